//! A recorded command buffer is an ordered list of [`Piece`]s: closed job
//! chains ([`Segment`]s, one SUBMIT each) and wait points (the host must
//! see events signaled before what follows may run).
//!
//! Commands append to the open segment (`Recording::rec`). It is closed —
//! and a new one opened — when the command buffer ends, before
//! vkCmdExecuteCommands appends the secondary's pieces (a job chain's
//! dependencies name indices of its own chain, so chains cannot be
//! spliced), and at a vkCmdWaitEvents that may wait for the host
//! (`vk::cmd::event`). The queue submits segments in order; each SUBMIT
//! waits for the previous one (`vk::queue`), so a new segment needs no
//! barrier against the old one, and job indices the state tracker keeps
//! (the last XFB offsets update, a query's zeroing) are forgotten.
//!
//! Segments are shared (`Arc`): a primary that executed a secondary holds
//! the secondary's segments, and the queue holds what it has not submitted
//! yet. Resetting or freeing a command buffer drops its references; a
//! segment's GPU memory goes back to its recording for reuse only when no
//! one else holds it, and is freed with the last reference otherwise.
//! Segments also hold the events their jobs write, so no job can write an
//! event BO that was freed.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use super::indirect::DeferredWls;
use super::recording::Recording;
use crate::jm::Recorder;
use crate::kmod::BoHandle;
use crate::vk::event::EventBo;

/// A closed job chain with its memory, as one SUBMIT.
pub struct Segment {
    rec: Recorder,
    /// `Recording::id` of the command buffer that recorded it: only that
    /// one takes the memory back for reuse.
    owner: u64,
    /// The chain writes timestamps (SUBMIT asks for the cycle counter).
    pub uses_timestamps: bool,
    /// Events its jobs write (kept alive with it).
    _events: Vec<Arc<EventBo>>,
    /// Workgroup memory the queue sizes and allocates before each SUBMIT
    /// of this segment (`indirect.rs`).
    pub deferred_wls: Vec<Arc<DeferredWls>>,
    /// The queue's serial number of its latest SUBMIT (0: never), so that
    /// the queue resets the chain's status words only once the previous run
    /// is done (`vk::queue`).
    pub last_submit: AtomicU64,
}

impl Segment {
    /// GPU VA of the first job.
    pub fn head(&self) -> u64 {
        self.rec.chain().head()
    }

    /// Every BO the SUBMIT must list.
    pub fn bo_handles(&self) -> Vec<BoHandle> {
        self.rec.bo_handles()
    }

    /// Clear what the GPU wrote into the job headers, so the chain can run again.
    pub fn reset_status(&self) {
        self.rec.chain().reset_status();
    }

    /// Exception status of every job (tests).
    pub fn statuses(&self) -> Vec<u32> {
        self.rec.chain().statuses()
    }
}

/// One element of a recorded command buffer.
#[derive(Clone)]
pub enum Piece {
    Jobs(Arc<Segment>),
    /// Nothing after this point runs before the host sees all of these
    /// events signaled (after everything before it completed).
    WaitEvents(Arc<[Arc<EventBo>]>),
}

impl Recording {
    /// Close the open segment (if it has jobs) and open a new one.
    pub fn close_segment(&mut self) {
        if self.rec.chain().is_empty() {
            return;
        }
        let next = self
            .spares
            .pop()
            .unwrap_or_else(|| Recorder::new(self.core.kdev.clone(), self.core.arch));
        let old = std::mem::replace(&mut self.rec, next);
        // Later jobs may still address memory of the closed segment (an
        // active query's results in its pool BO, the XFB offsets block):
        // every SUBMIT lists what its jobs can reach.
        for bo in old.bo_handles() {
            self.rec.use_bo(bo);
        }
        self.pieces.push(Piece::Jobs(Arc::new(Segment {
            rec: old,
            owner: self.id,
            uses_timestamps: std::mem::take(&mut self.uses_timestamps),
            _events: std::mem::take(&mut self.segment_events),
            deferred_wls: std::mem::take(&mut self.segment_wls),
            last_submit: AtomicU64::new(0),
        })));
        // Job indices name jobs of the closed chain; the next chain runs
        // after all of it.
        if let Some(a) = &mut self.xfb.active {
            a.last_job = 0;
        }
        for q in [&mut self.xfb.query, &mut self.xfb.generated]
            .into_iter()
            .flatten()
        {
            q.zeroed = 0;
        }
    }

    /// Append a wait point (after closing the open segment).
    pub fn push_wait(&mut self, events: Vec<Arc<EventBo>>) {
        self.close_segment();
        self.pieces.push(Piece::WaitEvents(events.into()));
    }

    /// vkCmdExecuteCommands of one secondary: its pieces run here, and its
    /// event operations count as recorded here. Transform feedback and
    /// queries do not carry into a secondary: the spec forbids executing
    /// one while either is active (VUID-vkCmdExecuteCommands-None-02286,
    /// -commandBuffer-07594); that is logged, and the secondary's draws
    /// capture and count nothing of the primary's.
    pub fn append_secondary(&mut self, pieces: Vec<Piece>, event_ops: &[(usize, bool)]) {
        self.record(|r| {
            if r.xfb.active.is_some() {
                log::warn!(
                    "vkCmdExecuteCommands while transform feedback is active (invalid usage): the secondary does not capture"
                );
            }
            if r.xfb.query.is_some() || r.xfb.generated.is_some() {
                log::warn!(
                    "vkCmdExecuteCommands with a stream or primitives-generated query active (invalid usage): the secondary's draws are not counted"
                );
            }
            if !pieces.is_empty() {
                r.close_segment();
                r.pieces.extend(pieces);
            }
            r.event_ops.extend(event_ops.iter().copied());
            Ok(())
        });
    }

    /// Forget every piece: segments this command buffer recorded and nobody
    /// else holds give their memory back for reuse (the first becomes the
    /// open segment again, so a command buffer re-recorded the same way
    /// reuses the same BOs); other segments are freed with their last
    /// holder (a secondary's, once neither it nor a primary holds them).
    pub fn drop_pieces(&mut self) {
        let mut recovered = Vec::new();
        for piece in self.pieces.drain(..) {
            if let Piece::Jobs(seg) = piece
                && seg.owner == self.id
                && let Ok(seg) = Arc::try_unwrap(seg)
            {
                let mut rec = seg.rec;
                rec.reset();
                recovered.push(rec);
            }
        }
        self.segment_events.clear();
        self.segment_wls.clear();
        self.rec.reset();
        if !recovered.is_empty() {
            let first = recovered.remove(0);
            let open = std::mem::replace(&mut self.rec, first);
            self.spares.push(open);
        }
        self.spares.extend(recovered);
    }
}
