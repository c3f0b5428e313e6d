//! What a command buffer has recorded: the closed pieces (`segment.rs`) and
//! the open `jm::Recorder` (job chain, GPU memory pool, the BOs the jobs
//! touch), its usage and status, the state tracker and the first
//! recording error.
//!
//! Commands record through [`Recording::record`], which does nothing once
//! an error happened and keeps that error for vkEndCommandBuffer
//! (job-emission errors mapped by `DeviceCore::jm_error`).

use std::collections::HashMap;
use std::sync::Arc;

use ash::vk;

use super::segment::Piece;
use super::state::State;
use super::xfb::XfbState;
use crate::jm::{JmError, Recorder};
use crate::vk::VkResult;
use crate::vk::device::DeviceCore;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Initial,
    Recording,
    Executable,
}

pub struct Recording {
    pub core: Arc<DeviceCore>,
    /// Unique per recording object (segments remember who made them).
    pub id: u64,
    /// The open segment.
    pub rec: Recorder,
    /// Closed pieces before `rec`, in execution order (`segment.rs`).
    pub pieces: Vec<Piece>,
    /// Recorders of segments nobody holds any more, for reuse.
    pub spares: Vec<Recorder>,
    pub status: Status,
    /// VkCommandBufferBeginInfo::flags of the current recording.
    pub usage: vk::CommandBufferUsageFlags,
    /// A secondary continuing a render pass: the pass is inherited and is
    /// still active at vkEndCommandBuffer.
    pub inherited_pass: bool,
    /// Submitted since it was recorded (ONE_TIME_SUBMIT checks).
    pub submitted: bool,
    /// The open segment writes timestamps.
    pub uses_timestamps: bool,
    /// Events the open segment's jobs write (the segment keeps them alive).
    pub segment_events: Vec<Arc<crate::vk::event::EventBo>>,
    /// Workgroup memory the queue sizes before submitting the open segment
    /// (`indirect.rs`).
    pub segment_wls: Vec<Arc<super::indirect::DeferredWls>>,
    /// The last vkCmdSetEvent (true) or vkCmdResetEvent (false) recorded
    /// per event (`EventBo::key`), executed secondaries included.
    pub event_ops: HashMap<usize, bool>,
    pub error: Option<vk::Result>,
    pub state: State,
    pub xfb: XfbState,
    /// The last draw's vertex input (`draw.rs`).
    pub vertex_input_memo: Option<super::draw::VertexInputMemo>,
    /// A push-uniform vector to reuse (`Recording::push_uniforms`).
    pub push_scratch: Vec<u64>,
    /// The draw's index in its multi-draw command (`gl_DrawID`;
    /// VK_KHR_shader_draw_parameters, `indirect.rs`).
    pub draw_index: u32,
}

impl Recording {
    pub fn new(core: &Arc<DeviceCore>) -> Recording {
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Recording {
            core: core.clone(),
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            rec: Recorder::new(core.kdev.clone(), core.arch),
            pieces: Vec::new(),
            spares: Vec::new(),
            status: Status::Initial,
            usage: vk::CommandBufferUsageFlags::empty(),
            inherited_pass: false,
            submitted: false,
            uses_timestamps: false,
            segment_events: Vec::new(),
            segment_wls: Vec::new(),
            event_ops: HashMap::new(),
            error: None,
            state: State::default(),
            xfb: XfbState::default(),
            vertex_input_memo: None,
            push_scratch: Vec::new(),
            draw_index: 0,
        }
    }

    pub fn reset(&mut self) {
        self.drop_pieces();
        self.status = Status::Initial;
        self.usage = vk::CommandBufferUsageFlags::empty();
        self.inherited_pass = false;
        self.submitted = false;
        self.uses_timestamps = false;
        self.event_ops.clear();
        self.error = None;
        self.state = State::default();
        self.xfb = XfbState::default();
        self.vertex_input_memo = None;
        self.draw_index = 0;
    }

    /// vkEndCommandBuffer's checks: the first recording error, and no
    /// transform feedback left active (invalid usage; reported, not run).
    /// The current subpass's view mask (0: no multiview, or outside a
    /// render pass).
    pub fn view_mask(&self) -> u32 {
        self.state.render_pass.as_ref().map_or(0, |p| p.view_mask())
    }

    pub fn finish(&mut self) -> VkResult<()> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.state.render_pass.is_some() && !self.inherited_pass {
            log::warn!("vkEndCommandBuffer: a render pass is still active (invalid usage)");
        }
        if self.xfb.active.is_some() {
            log::warn!("vkEndCommandBuffer: transform feedback is still active (invalid usage)");
        }
        self.close_segment();
        Ok(())
    }

    /// What a submit or vkCmdExecuteCommands runs of this command buffer.
    pub fn executable_pieces(&self) -> VkResult<Vec<Piece>> {
        if self.status != Status::Executable {
            log::warn!("command buffer is not executable (invalid usage)");
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        Ok(self.pieces.clone())
    }

    /// Whether commands may be recorded now (recording, no error yet).
    pub fn recording(&self) -> bool {
        self.status == Status::Recording && self.error.is_none()
    }

    /// Keep the first error of this recording.
    pub fn fail(&mut self, e: vk::Result) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// Run `f` unless recording already failed; keep its error.
    pub fn record(&mut self, f: impl FnOnce(&mut Recording) -> Result<(), Fail>) {
        if !self.recording() {
            return;
        }
        self.ensure_room(JOBS_PER_COMMAND);
        if let Err(e) = f(self) {
            let code = match e {
                Fail::Jm(e) => self.core.jm_error(e),
                Fail::Vk(code) => code,
            };
            log::warn!("recording failed: {code:?}");
            self.fail(code);
        }
    }
}

/// The most jobs one chain holds: job indices are 16-bit and 0 means none
/// (`jm::chain`).
const MAX_CHAIN_JOBS: usize = u16::MAX as usize - 1;

/// Jobs one command (or one iteration of a command's loop over draws or
/// regions, which calls [`Recording::ensure_room`] itself) adds at most.
pub const JOBS_PER_COMMAND: usize = 64;

impl Recording {
    /// Start a new segment (`segment.rs`) when the open chain cannot take
    /// `jobs` more, so any number of commands fits a command buffer.
    pub fn ensure_room(&mut self, jobs: usize) {
        if self.rec.chain().len() + jobs > MAX_CHAIN_JOBS {
            self.close_segment();
        }
    }
}

/// Why a command could not be recorded.
#[derive(Debug)]
pub enum Fail {
    Jm(JmError),
    Vk(vk::Result),
}

impl From<JmError> for Fail {
    fn from(e: JmError) -> Fail {
        Fail::Jm(e)
    }
}

impl From<vk::Result> for Fail {
    fn from(e: vk::Result) -> Fail {
        Fail::Vk(e)
    }
}
