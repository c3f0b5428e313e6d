//! VkEvent: one u32 in GPU memory (1 = signaled, 0 = unsignaled), in a
//! small BO of its own, so that the GPU (a WRITE_VALUE job recorded by
//! vkCmdSetEvent/vkCmdResetEvent, `vk::cmd::event`) and the host
//! (vkSetEvent, vkResetEvent, vkGetEventStatus, and the queue when it waits
//! for a host-signalled event, `vk::queue`) read and write the same word.
//!
//! The BO lives in an `Arc<EventBo>`: command buffers that recorded a
//! command on the event hold it too, so destroying an event that a
//! recording still names (invalid usage) never frees memory a job writes.
//! Host writes wake whoever waits in [`HostEvents`] (the queue's
//! submission thread).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use ash::vk;

use super::device::DeviceCore;
use crate::kmod::{self, BO_NOEXEC, Bo, BoHandle};
use crate::vk::VkResult;
use crate::vk::handle::Object;

/// The GPU memory of one event.
pub struct EventBo {
    kdev: Arc<kmod::Device>,
    bo: Option<Bo>,
}

impl EventBo {
    fn bo(&self) -> &Bo {
        self.bo.as_ref().expect("an event has its BO until dropped")
    }

    fn word(&self) -> &AtomicU32 {
        // SAFETY: the BO's mapping is page-aligned and lives as long as
        // `self`; every CPU access to the word goes through this atomic.
        unsafe { AtomicU32::from_ptr(self.bo().ptr().cast::<u32>()) }
    }

    /// GPU VA of the state word.
    pub fn va(&self) -> u64 {
        self.bo().gpu_va()
    }

    pub fn bo_handle(&self) -> BoHandle {
        self.bo().handle()
    }

    pub fn is_set(&self) -> bool {
        self.word().load(Ordering::Acquire) != 0
    }

    fn store(&self, set: bool) {
        self.word().store(u32::from(set), Ordering::Release);
    }

    /// A key that identifies the event while it is alive.
    pub fn key(self: &Arc<Self>) -> usize {
        Arc::as_ptr(self) as usize
    }
}

impl Drop for EventBo {
    fn drop(&mut self) {
        if let Some(bo) = self.bo.take() {
            self.kdev.bo_destroy(bo);
        }
    }
}

pub struct Event {
    core: Arc<DeviceCore>,
    pub bo: Arc<EventBo>,
}

impl Object for Event {
    const TAG: u64 = 0x6276_6b5f_6576_6e74; // "bvk_evnt"
}

impl Event {
    /// vkCreateEvent: unsignaled (a new BO is zero-filled).
    pub fn new(core: &Arc<DeviceCore>) -> VkResult<Event> {
        let bo = core
            .kdev
            .bo_create(4, BO_NOEXEC)
            .map_err(|e| core.kmod_error(e))?;
        Ok(Event {
            core: core.clone(),
            bo: Arc::new(EventBo {
                kdev: core.kdev.clone(),
                bo: Some(bo),
            }),
        })
    }

    /// vkGetEventStatus.
    pub fn status(&self) -> VkResult<()> {
        self.core.check_lost()?;
        Err(if self.bo.is_set() {
            vk::Result::EVENT_SET
        } else {
            vk::Result::EVENT_RESET
        })
    }

    /// vkSetEvent / vkResetEvent.
    pub fn host_write(&self, set: bool) {
        self.bo.store(set);
        self.core.host_events.changed();
    }
}

/// Wakes threads waiting for the host to signal an event.
#[derive(Default)]
pub struct HostEvents {
    generation: Mutex<u64>,
    cond: Condvar,
}

impl HostEvents {
    /// An event was written by the host (or a waiter must look again).
    pub fn changed(&self) {
        *self.generation.lock().unwrap() += 1;
        self.cond.notify_all();
    }

    /// The current generation (read before checking the events).
    pub fn generation(&self) -> u64 {
        *self.generation.lock().unwrap()
    }

    /// Sleep until the generation moves past `seen` or `timeout` passes.
    pub fn wait(&self, seen: u64, timeout: Duration) {
        let g = self.generation.lock().unwrap();
        let _ = self
            .cond
            .wait_timeout_while(g, timeout, |g| *g == seen)
            .unwrap();
    }
}
