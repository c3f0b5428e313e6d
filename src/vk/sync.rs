//! VkFence and binary VkSemaphore, each one kmod syncobj; timeline
//! semaphores (`VK_KHR_timeline_semaphore`) emulated on top.
//!
//! # Timeline semaphores
//! The panfrost SUBMIT takes binary syncobjs only, so a timeline is kept
//! on the CPU, the way Mesa's `vk_sync_timeline` emulates one
//! (`src/vulkan/runtime/vk_sync_timeline.c`): its value is the largest
//! value signalled by the host or by a completed queue operation. A queue
//! signal operation adds a **pending point** (the value, and a binary
//! syncobj holding the fence of the queue's work up to it); reading the
//! value retires the points whose fence has signalled. A queue wait on a
//! value is a wait point of the submission (`vk::queue`): the work after
//! it is submitted once the timeline reaches the value, by the submission
//! thread if it cannot be at once (wait-before-signal, as the spec
//! allows). Host signals wake whoever waits (`vk::event::HostEvents`).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ash::vk;

use super::device::DeviceCore;
use crate::kmod::{self, SyncobjHandle};
use crate::vk::VkResult;
use crate::vk::handle::Object;

pub struct Fence {
    core: Arc<DeviceCore>,
    pub syncobj: SyncobjHandle,
}

impl Object for Fence {
    const TAG: u64 = 0x6276_6b5f_6665_6e63; // "bvk_fenc"
}

impl Fence {
    pub fn new(core: &Arc<DeviceCore>, signaled: bool) -> VkResult<Fence> {
        let syncobj = core
            .kdev
            .kernel()
            .syncobj_create(signaled)
            .map_err(|e| core.kmod_error(e))?;
        Ok(Fence {
            core: core.clone(),
            syncobj,
        })
    }
}

impl Drop for Fence {
    fn drop(&mut self) {
        self.core.kdev.kernel().syncobj_destroy(self.syncobj);
    }
}

/// vkWaitForFences (timeout 0 also serves vkGetFenceStatus).
pub fn wait(core: &DeviceCore, fences: &[&Fence], wait_all: bool, timeout_ns: u64) -> VkResult<()> {
    core.check_lost()?;
    let handles: Vec<_> = fences.iter().map(|f| f.syncobj).collect();
    let deadline = kmod::deadline_after(timeout_ns);
    let signaled = core
        .kdev
        .kernel()
        .syncobj_wait(&handles, deadline, wait_all)
        .map_err(|e| core.kmod_error(e))?;
    if !signaled {
        return Err(vk::Result::TIMEOUT);
    }
    for h in handles {
        core.check_syncobj(h)?;
    }
    Ok(())
}

pub fn reset(core: &DeviceCore, fences: &[&Fence]) -> VkResult<()> {
    let handles: Vec<_> = fences.iter().map(|f| f.syncobj).collect();
    core.kdev
        .kernel()
        .syncobj_reset(&handles)
        .map_err(|e| core.kmod_error(e))
}

pub struct Semaphore {
    core: Arc<DeviceCore>,
    /// The binary semaphore's syncobj (0 for a timeline).
    pub syncobj: SyncobjHandle,
    pub timeline: Option<Arc<Timeline>>,
}

impl Object for Semaphore {
    const TAG: u64 = 0x6276_6b5f_7365_6d61; // "bvk_sema"
}

impl Semaphore {
    pub fn new(core: &Arc<DeviceCore>) -> VkResult<Semaphore> {
        let syncobj = core
            .kdev
            .kernel()
            .syncobj_create(false)
            .map_err(|e| core.kmod_error(e))?;
        Ok(Semaphore {
            core: core.clone(),
            syncobj,
            timeline: None,
        })
    }

    /// A timeline semaphore starting at `initial`.
    pub fn new_timeline(core: &Arc<DeviceCore>, initial: u64) -> Semaphore {
        Semaphore {
            core: core.clone(),
            syncobj: 0,
            timeline: Some(Arc::new(Timeline {
                core: core.clone(),
                state: Mutex::new(TimelineState {
                    value: initial,
                    pending: Vec::new(),
                }),
            })),
        }
    }
}

impl Drop for Semaphore {
    fn drop(&mut self) {
        if self.timeline.is_none() {
            self.core.kdev.kernel().syncobj_destroy(self.syncobj);
        }
    }
}

/// A timeline semaphore's state (module docs).
pub struct Timeline {
    core: Arc<DeviceCore>,
    state: Mutex<TimelineState>,
}

struct TimelineState {
    /// The largest value known reached.
    value: u64,
    /// Queue signal operations not known complete: (value, syncobj).
    pending: Vec<(u64, SyncobjHandle)>,
}

impl Timeline {
    /// The current value (vkGetSemaphoreCounterValue): retires the pending
    /// points whose fence has signalled. A faulted point loses the device.
    pub fn value(&self) -> VkResult<u64> {
        let mut st = self.state.lock().unwrap();
        self.retire(&mut st)?;
        Ok(st.value)
    }

    fn retire(&self, st: &mut TimelineState) -> VkResult<()> {
        let k = self.core.kdev.kernel();
        let mut i = 0;
        while i < st.pending.len() {
            let (v, s) = st.pending[i];
            let done = k
                .syncobj_wait(&[s], 0, true)
                .map_err(|e| self.core.kmod_error(e))?;
            if done {
                let checked = self.core.check_syncobj(s);
                k.syncobj_destroy(s);
                st.pending.remove(i);
                checked?;
                st.value = st.value.max(v);
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    /// vkSignalSemaphore: the host sets the value.
    pub fn signal(&self, value: u64) {
        {
            let mut st = self.state.lock().unwrap();
            if value <= st.value {
                log::warn!(
                    "vkSignalSemaphore: {value} is not above the current value {} (invalid usage)",
                    st.value
                );
            }
            st.value = st.value.max(value);
        }
        self.core.host_events.changed();
    }

    /// A queue signal operation: `value` is reached when the fence now in
    /// `queue_syncobj` signals.
    pub fn add_point(&self, value: u64, queue_syncobj: SyncobjHandle) -> VkResult<()> {
        let k = self.core.kdev.kernel();
        let s = k
            .syncobj_create(false)
            .map_err(|e| self.core.kmod_error(e))?;
        if let Err(e) = k.syncobj_transfer(s, queue_syncobj) {
            k.syncobj_destroy(s);
            return Err(self.core.kmod_error(e));
        }
        self.state.lock().unwrap().pending.push((value, s));
        Ok(())
    }

    /// Whether the value is at least `value` now.
    pub fn reached(&self, value: u64) -> VkResult<bool> {
        Ok(self.value()? >= value)
    }

    /// The syncobjs of pending points that would reach `value`.
    fn points_reaching(&self, value: u64) -> Vec<SyncobjHandle> {
        let st = self.state.lock().unwrap();
        st.pending
            .iter()
            .filter(|(v, _)| *v >= value)
            .map(|&(_, s)| s)
            .collect()
    }
}

impl Drop for Timeline {
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap();
        for &(_, s) in &st.pending {
            self.core.kdev.kernel().syncobj_destroy(s);
        }
    }
}

/// vkWaitSemaphores: every (or, with `any`, one) timeline reaches its
/// value before the timeout.
pub fn wait_timelines(
    core: &DeviceCore,
    waits: &[(Arc<Timeline>, u64)],
    any: bool,
    timeout_ns: u64,
) -> VkResult<()> {
    let deadline = kmod::deadline_after(timeout_ns);
    loop {
        core.check_lost()?;
        let seen = core.host_events.generation();
        let mut done = 0;
        for (t, v) in waits {
            if t.reached(*v)? {
                done += 1;
            }
        }
        if (any && done > 0) || done == waits.len() {
            return Ok(());
        }
        let now = kmod::monotonic_ns();
        if now >= deadline {
            return Err(vk::Result::TIMEOUT);
        }
        // Sleep on a GPU point that would satisfy a wait, or until a host
        // signal, at most a few milliseconds at a time.
        let slice = deadline.min(now + 5_000_000);
        let points: Vec<SyncobjHandle> = waits
            .iter()
            .flat_map(|(t, v)| t.points_reaching(*v))
            .collect();
        if points.is_empty() {
            let left = u64::try_from(slice - now).unwrap_or(0);
            core.host_events.wait(seen, Duration::from_nanos(left));
        } else {
            // A point may be retired (and its syncobj destroyed) by another
            // thread meanwhile: an error here only means "look again".
            let _ = core.kdev.kernel().syncobj_wait(&points, slice, false);
        }
    }
}
