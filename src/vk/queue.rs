//! VkQueue: submission of recorded job chains through kmod, and idle waits.
//!
//! Every SUBMIT names the queue's syncobj both as an in-sync and as the
//! out-sync, so chains run in order and a faulted chain's error reaches the
//! queue's latest fence. Semaphores and fences receive the queue syncobj's
//! fence after the batch (SYNCOBJ_TRANSFER). A batch with no recorded jobs
//! submits the queue's one-NULL-job chain so that its waits and signals
//! still pass through the GPU in order.
//!
//! A submission is resolved into [`Step`]s: one SUBMIT per segment of each
//! command buffer (`vk::cmd::segment`; a primary that executed secondaries
//! lists their segments in place), wait points, and signal transfers.
//! Steps run in order on the caller's thread until a wait point cannot be
//! passed at once (the queue is still busy, or an event is not signaled
//! yet): that step and everything after it, and every later submission
//! until the backlog drains, go to the queue's submission thread (started
//! on first need). It waits for the queue to be idle, then for the host to
//! see the events signaled (woken by vkSetEvent, `vk::event::HostEvents`),
//! and carries on. Fences and semaphores of deferred batches get their fence
//! when the thread reaches them; waits on them use WAIT_FOR_SUBMIT, so they
//! simply wait longer. This is Mesa's threaded-submit idea
//! (`src/vulkan/runtime/vk_queue.c`, `VK_QUEUE_SUBMIT_MODE_THREADED`), used
//! only while needed. PanVk's JM backend instead turns a wait into an
//! in-sync on the event's syncobj (`src/panfrost/vulkan/jm/panvk_vX_queue.c`),
//! which cannot wait for a host signal that comes after the submit.
//!
//! A segment holding an indirect dispatch with workgroup memory
//! (`vk::cmd::indirect::DeferredWls`) is submitted only once everything
//! before it has completed: the memory is sized from the counts in the
//! buffer, read then.
//!
//! A chain's job headers carry status words the GPU writes; they are
//! cleared before each SUBMIT (as PanVk does for a batch issued again). A
//! segment submitted again while its previous run may still be queued (a
//! secondary executed twice, SIMULTANEOUS_USE) is first waited for, so its
//! headers are never rewritten under the GPU.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use ash::vk;

use super::cmd::{CommandBuffer, Piece, Segment};
use super::device::DeviceCore;
use super::event::EventBo;
use super::sync::Timeline;
use crate::hw::job::JobType;
use crate::jm::{GpuPool, JobChain};
use crate::kmod::{self, Submit, SyncobjHandle};
use crate::vk::VkResult;
use crate::vk::handle::Object;

pub struct Queue {
    shared: Arc<Shared>,
    /// Holds the fence of the latest submission.
    pub syncobj: SyncobjHandle,
    worker: Mutex<Option<JoinHandle<()>>>,
}

/// What the submission thread shares with the queue.
struct Shared {
    core: Arc<DeviceCore>,
    syncobj: SyncobjHandle,
    state: Mutex<QueueState>,
    /// Signalled when steps are queued, the backlog drains, or on shutdown.
    cond: Condvar,
    shutdown: AtomicBool,
}

struct QueueState {
    null_pool: GpuPool,
    null_chain: JobChain,
    /// Serial of the NULL chain's latest SUBMIT.
    null_last: u64,
    /// SUBMITs issued so far, and how many of them are known complete.
    serial: u64,
    idle_through: u64,
    /// Steps waiting for the submission thread, in order.
    backlog: VecDeque<Step>,
    /// The submission thread is running a step it took from the backlog.
    busy: bool,
}

/// One thing a submission does, in order.
enum Step {
    /// SUBMIT a segment; `waits`: the batch's semaphores (first SUBMIT only).
    Run(Arc<Segment>, Vec<SyncobjHandle>),
    /// SUBMIT the NULL chain (a batch without jobs).
    Null(Vec<SyncobjHandle>),
    /// Go on when everything before completed and these events are set.
    Wait(Arc<[Arc<EventBo>]>),
    /// Semaphores and the fence receive the queue's latest fence.
    Signal(Vec<SyncobjHandle>),
    /// Go on when these timelines reach these values (`vk::sync`).
    WaitTimeline(Vec<(Arc<Timeline>, u64)>),
    /// These timelines reach these values when the queue's work so far
    /// completes.
    SignalTimeline(Vec<(Arc<Timeline>, u64)>),
}

impl Object for Queue {
    const TAG: u64 = 0x6276_6b5f_7175_6575; // "bvk_queu"
}

/// One VkSubmitInfo, resolved.
pub struct Batch<'a> {
    pub waits: Vec<SyncobjHandle>,
    pub command_buffers: Vec<&'a CommandBuffer>,
    pub signals: Vec<SyncobjHandle>,
    /// Timeline semaphores to wait for and to signal, with their values.
    pub timeline_waits: Vec<(Arc<Timeline>, u64)>,
    pub timeline_signals: Vec<(Arc<Timeline>, u64)>,
}

impl Queue {
    pub fn new(core: Arc<DeviceCore>) -> VkResult<Queue> {
        let k = core.kdev.kernel();
        let syncobj = k.syncobj_create(true).map_err(|e| core.kmod_error(e))?;
        let mut null_pool = GpuPool::new(core.kdev.clone());
        let mut null_chain = JobChain::new();
        null_chain
            .add_job(&mut null_pool, JobType::Null, &[], [0, 0], false)
            .map_err(|e| core.jm_error(e))?;
        Ok(Queue {
            shared: Arc::new(Shared {
                core,
                syncobj,
                state: Mutex::new(QueueState {
                    null_pool,
                    null_chain,
                    null_last: 0,
                    serial: 0,
                    idle_through: 0,
                    backlog: VecDeque::new(),
                    busy: false,
                }),
                cond: Condvar::new(),
                shutdown: AtomicBool::new(false),
            }),
            syncobj,
            worker: Mutex::new(None),
        })
    }

    /// vkQueueSubmit: every command buffer is checked before anything runs.
    pub fn submit(&self, batches: &[Batch<'_>], fence: Option<SyncobjHandle>) -> VkResult<()> {
        self.shared.core.check_lost()?;
        let mut steps = Vec::new();
        for batch in batches {
            let mut waits = batch.waits.clone();
            if !batch.timeline_waits.is_empty() {
                steps.push(Step::WaitTimeline(batch.timeline_waits.clone()));
            }
            for cb in &batch.command_buffers {
                if cb.level != vk::CommandBufferLevel::PRIMARY {
                    log::warn!("vkQueueSubmit: a secondary command buffer (invalid usage)");
                    return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
                }
                let mut rec = cb.state.lock().unwrap();
                let pieces = rec.executable_pieces()?;
                if rec.submitted
                    && rec
                        .usage
                        .contains(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT)
                {
                    log::warn!(
                        "vkQueueSubmit: a ONE_TIME_SUBMIT command buffer submitted again (invalid usage)"
                    );
                }
                rec.submitted = true;
                for piece in pieces {
                    steps.push(match piece {
                        Piece::Jobs(seg) => Step::Run(seg, std::mem::take(&mut waits)),
                        Piece::WaitEvents(events) => Step::Wait(events),
                    });
                }
            }
            if !waits.is_empty() || batch.command_buffers.is_empty() {
                // Nothing recorded: a NULL job carries the waits through.
                steps.push(Step::Null(waits));
            }
            if !batch.signals.is_empty() {
                steps.push(Step::Signal(batch.signals.clone()));
            }
            if !batch.timeline_signals.is_empty() {
                steps.push(Step::SignalTimeline(batch.timeline_signals.clone()));
            }
        }
        if let Some(f) = fence {
            steps.push(Step::Signal(vec![f]));
        }
        self.shared.run_or_defer(steps);
        self.ensure_worker();
        self.shared.core.check_lost()
    }

    /// Start the submission thread if steps wait for it.
    fn ensure_worker(&self) {
        if self.shared.state.lock().unwrap().backlog.is_empty() {
            return;
        }
        let mut worker = self.worker.lock().unwrap();
        if worker.is_none() {
            let shared = self.shared.clone();
            match std::thread::Builder::new()
                .name("bifrost-vk-queue".into())
                .spawn(move || shared.work())
            {
                Ok(t) => *worker = Some(t),
                Err(e) => {
                    let _ = self
                        .shared
                        .core
                        .mark_lost(&format!("cannot start the submission thread: {e}"));
                }
            }
        }
        self.shared.cond.notify_all();
    }

    pub fn wait_idle(&self) -> VkResult<()> {
        let core = &self.shared.core;
        core.check_lost()?;
        {
            let mut st = self.shared.state.lock().unwrap();
            while !st.backlog.is_empty() || st.busy {
                core.check_lost()?;
                st = self
                    .shared
                    .cond
                    .wait_timeout(st, Duration::from_millis(10))
                    .unwrap()
                    .0;
            }
        }
        let ok = core
            .kdev
            .kernel()
            .syncobj_wait(&[self.syncobj], i64::MAX, true)
            .map_err(|e| core.kmod_error(e))?;
        if !ok {
            return Err(core.mark_lost("queue never became idle"));
        }
        core.check_syncobj(self.syncobj)
    }
}

impl Shared {
    /// Run `steps` here while nothing is deferred and no wait blocks; queue
    /// the rest for the submission thread.
    fn run_or_defer(&self, steps: Vec<Step>) {
        let mut st = self.state.lock().unwrap();
        let mut steps = steps.into_iter();
        while st.backlog.is_empty() && !st.busy {
            let Some(step) = steps.next() else {
                return;
            };
            if let Step::Wait(events) = &step
                && !self.wait_passes(&mut st, events, false)
            {
                st.backlog.push_back(step);
                break;
            }
            if let Step::WaitTimeline(waits) = &step
                && !self.timelines_reached(waits)
            {
                st.backlog.push_back(step);
                break;
            }
            self.run(&mut st, step);
        }
        st.backlog.extend(steps);
    }

    /// Whether a wait point is passed: every earlier SUBMIT completed and the
    /// host sees each event set, or the device is lost (a faulted chain:
    /// nothing will wait any more). `block`: wait for the GPU (not the
    /// events).
    fn wait_passes(&self, st: &mut QueueState, events: &[Arc<EventBo>], block: bool) -> bool {
        if st.idle_through < st.serial {
            let deadline = if block { i64::MAX } else { 0 };
            match self
                .core
                .kdev
                .kernel()
                .syncobj_wait(&[self.syncobj], deadline, true)
            {
                Ok(true) => st.idle_through = st.serial,
                Ok(false) => return false,
                Err(e) => {
                    // Lost (or out of memory): nothing to wait for any more.
                    let _ = self.core.kmod_error(e);
                    return true;
                }
            }
        }
        self.core.check_syncobj(self.syncobj).is_err() || events.iter().all(|e| e.is_set())
    }

    /// Run one SUBMIT or signal step (a wait step has been passed).
    fn run(&self, st: &mut QueueState, step: Step) {
        let result = match step {
            Step::Run(seg, waits) => self.submit_segment(st, &seg, &waits),
            Step::Null(waits) => self.submit_null(st, &waits),
            Step::Wait(_) | Step::WaitTimeline(_) => Ok(()),
            Step::SignalTimeline(points) => points
                .iter()
                .try_for_each(|(t, v)| t.add_point(*v, self.syncobj)),
            Step::Signal(syncobjs) => syncobjs.iter().try_for_each(|&s| {
                self.core
                    .kdev
                    .kernel()
                    .syncobj_transfer(s, self.syncobj)
                    .map_err(|e| self.core.kmod_error(e))
            }),
        };
        if let Err(e) = result {
            log::error!("queue submission failed: {e:?}");
        }
    }

    /// Wait until every SUBMIT up to serial `last` completed.
    fn wait_for(&self, st: &mut QueueState, last: u64) -> VkResult<()> {
        if last > st.idle_through {
            self.core
                .kdev
                .kernel()
                .syncobj_wait(&[self.syncobj], i64::MAX, true)
                .map_err(|e| self.core.kmod_error(e))?;
            st.idle_through = st.serial;
        }
        Ok(())
    }

    fn submit_segment(
        &self,
        st: &mut QueueState,
        seg: &Segment,
        waits: &[SyncobjHandle],
    ) -> VkResult<()> {
        self.wait_for(st, seg.last_submit.load(Ordering::Acquire))?;
        let mut bos = seg.bo_handles();
        if !seg.deferred_wls.is_empty() {
            // An indirect dispatch with workgroup memory: its group counts
            // are read once everything before has run
            // (`vk::cmd::indirect`).
            self.wait_for(st, st.serial)?;
            self.core.check_syncobj(self.syncobj)?;
            for wls in &seg.deferred_wls {
                bos.push(wls.resolve()?);
            }
        }
        seg.reset_status();
        let req = if seg.uses_timestamps {
            kmod::JD_REQ_CYCLE_COUNT
        } else {
            0
        };
        self.submit_chain(st, seg.head(), &bos, waits, req)?;
        seg.last_submit.store(st.serial, Ordering::Release);
        Ok(())
    }

    fn submit_null(&self, st: &mut QueueState, waits: &[SyncobjHandle]) -> VkResult<()> {
        self.wait_for(st, st.null_last)?;
        let bos: Vec<_> = st.null_pool.bo_handles().collect();
        st.null_chain.reset_status();
        let head = st.null_chain.head();
        self.submit_chain(st, head, &bos, waits, 0)?;
        st.null_last = st.serial;
        Ok(())
    }

    fn submit_chain(
        &self,
        st: &mut QueueState,
        jc: u64,
        bos: &[kmod::BoHandle],
        waits: &[SyncobjHandle],
        requirements: u32,
    ) -> VkResult<()> {
        let mut in_syncs = waits.to_vec();
        in_syncs.push(self.syncobj);
        self.core
            .kdev
            .submit(&Submit {
                jc,
                bo_handles: bos,
                in_syncs: &in_syncs,
                out_sync: self.syncobj,
                requirements,
            })
            .map_err(|e| self.core.kmod_error(e))?;
        st.serial += 1;
        Ok(())
    }

    /// The submission thread: run the backlog in order, blocking at wait
    /// points, until the queue is dropped.
    fn work(self: Arc<Self>) {
        let mut st = self.state.lock().unwrap();
        loop {
            if self.shutdown.load(Ordering::Acquire) {
                if !st.backlog.is_empty() {
                    log::error!(
                        "queue destroyed while {} submission steps waited (an event never set?); dropped",
                        st.backlog.len()
                    );
                    st.backlog.clear();
                }
                break;
            }
            let Some(step) = st.backlog.pop_front() else {
                self.cond.notify_all();
                st = self.cond.wait(st).unwrap();
                continue;
            };
            st.busy = true;
            if let Step::Wait(events) = &step {
                st = self.block_until_set(st, events);
            } else if let Step::WaitTimeline(waits) = &step {
                st = self.block_until_reached(st, waits);
            } else {
                self.run(&mut st, step);
            }
            st.busy = false;
        }
        drop(st);
        self.cond.notify_all();
    }

    /// Whether every timeline wait is satisfied now (a lost device passes:
    /// nothing will wait any more).
    fn timelines_reached(&self, waits: &[(Arc<Timeline>, u64)]) -> bool {
        waits.iter().all(|(t, v)| t.reached(*v).unwrap_or(true))
    }

    /// Wait until the timelines reach their values (a host signal, or a
    /// completed signal operation of this queue, polled), a lost device or
    /// a dropped queue.
    fn block_until_reached<'a>(
        &'a self,
        mut st: MutexGuard<'a, QueueState>,
        waits: &[(Arc<Timeline>, u64)],
    ) -> MutexGuard<'a, QueueState> {
        loop {
            let seen = self.core.host_events.generation();
            if self.timelines_reached(waits)
                || self.shutdown.load(Ordering::Acquire)
                || self.core.check_lost().is_err()
            {
                return st;
            }
            drop(st);
            self.core.host_events.wait(seen, Duration::from_millis(2));
            st = self.state.lock().unwrap();
        }
    }

    /// Wait for the GPU to finish earlier work, then for the host to set
    /// the events (woken by vkSetEvent; polled as well). A lost device or a
    /// dropped queue ends the wait.
    fn block_until_set<'a>(
        &'a self,
        mut st: MutexGuard<'a, QueueState>,
        events: &[Arc<EventBo>],
    ) -> MutexGuard<'a, QueueState> {
        loop {
            let seen = self.core.host_events.generation();
            if self.wait_passes(&mut st, events, true)
                || self.shutdown.load(Ordering::Acquire)
                || self.core.check_lost().is_err()
            {
                return st;
            }
            drop(st);
            self.core.host_events.wait(seen, Duration::from_millis(20));
            st = self.state.lock().unwrap();
        }
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::Release);
        self.shared.cond.notify_all();
        self.shared.core.host_events.changed();
        if let Some(t) = self.worker.get_mut().unwrap().take() {
            let _ = t.join();
        }
        // Let queued work finish before the pools go away.
        let k = self.shared.core.kdev.kernel();
        let _ = k.syncobj_wait(&[self.syncobj], kmod::deadline_after(5_000_000_000), true);
        k.syncobj_destroy(self.syncobj);
    }
}

#[cfg(test)]
mod tests {
    use ash::vk;

    use super::{Batch, Queue};
    use crate::hw::job::write_value as wv;
    use crate::kmod::DeviceSource;
    use crate::kmod::sim::SimModel;
    use crate::kmod::sim::jobs::exception;
    use crate::vk::cmd::{BeginInfo, CommandBuffer, CommandPool, Piece};
    use crate::vk::device::Device;
    use crate::vk::handle;
    use crate::vk::physical_device::PhysicalDevice;
    use crate::vk::sync::{self, Fence};

    /// A chain that faults on the GPU: the status lands in the job header,
    /// the fence wait reports DEVICE_LOST, and so does everything after.
    #[test]
    fn a_faulting_chain_loses_the_device() {
        let pd = PhysicalDevice::probe(DeviceSource::Sim(SimModel::G52)).unwrap();
        let dev = Device::new(&pd, &[], &[], None).unwrap();
        // SAFETY: the device's own queue.
        let queue = unsafe { handle::dispatchable::<Queue>(dev.queue.0) }.unwrap();
        let pool = CommandPool::new(&dev.core, &vk::CommandPoolCreateInfo::default()).unwrap();
        let raw = pool.allocate(0, vk::CommandBufferLevel::PRIMARY);
        // SAFETY: just allocated.
        let cb = unsafe { handle::dispatchable::<CommandBuffer>(raw.0) }.unwrap();
        cb.begin(BeginInfo::default()).unwrap();
        {
            let mut r = cb.state.lock().unwrap();
            // No BO lives at this GPU address.
            r.rec
                .write_value(0x7000_0000, wv::IMMEDIATE_32, 1, [0, 0])
                .unwrap();
        }
        cb.end().unwrap();
        let fence = Fence::new(&dev.core, false).unwrap();
        let batch = Batch {
            waits: vec![],
            command_buffers: vec![cb],
            signals: vec![],
            timeline_waits: vec![],
            timeline_signals: vec![],
        };
        queue
            .submit(std::slice::from_ref(&batch), Some(fence.syncobj))
            .unwrap();
        assert_eq!(
            sync::wait(&dev.core, &[&fence], true, 5_000_000_000),
            Err(vk::Result::ERROR_DEVICE_LOST)
        );
        let Piece::Jobs(seg) = cb.state.lock().unwrap().pieces[0].clone() else {
            panic!("one segment")
        };
        assert_eq!(seg.statuses(), vec![exception::JOB_WRITE_FAULT]);
        assert_eq!(
            queue.submit(&[batch], None),
            Err(vk::Result::ERROR_DEVICE_LOST)
        );
        assert_eq!(queue.wait_idle(), Err(vk::Result::ERROR_DEVICE_LOST));
        drop(fence);
        drop(pool);
    }
}
