//! VkFence and binary VkSemaphore, each one kmod syncobj.

use std::sync::Arc;

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
    pub syncobj: SyncobjHandle,
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
        })
    }
}

impl Drop for Semaphore {
    fn drop(&mut self) {
        self.core.kdev.kernel().syncobj_destroy(self.syncobj);
    }
}
