//! VkDeviceMemory: one kmod BO per allocation, always CPU-mapped (the only
//! memory type is host-visible and host-coherent, so flush and invalidate
//! have nothing to do).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ash::vk;

use super::device::DeviceCore;
use crate::kmod::{BO_NOEXEC, Bo};
use crate::vk::VkResult;
use crate::vk::handle::Object;

pub struct DeviceMemory {
    core: Arc<DeviceCore>,
    bo: Option<Bo>,
    pub size: u64,
    mapped: AtomicBool,
}

impl Object for DeviceMemory {
    const TAG: u64 = 0x6276_6b5f_6d65_6d6f; // "bvk_memo"
}

impl DeviceMemory {
    pub fn allocate(
        core: &Arc<DeviceCore>,
        size: u64,
        type_index: u32,
        heap_size: u64,
    ) -> VkResult<DeviceMemory> {
        if size == 0 {
            // Invalid usage (allocationSize must be > 0); fail instead of crashing.
            log::warn!("vkAllocateMemory: allocationSize is 0 (invalid usage)");
            return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        }
        if type_index != 0 {
            log::warn!("vkAllocateMemory: memory type {type_index} does not exist");
            return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        }
        if size > heap_size {
            return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        }
        let bo = core.kdev.bo_create(size, BO_NOEXEC).map_err(|e| match e {
            crate::kmod::KmodError::OutOfMemory => vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            other => core.kmod_error(other),
        })?;
        Ok(DeviceMemory {
            core: core.clone(),
            bo: Some(bo),
            size,
            mapped: AtomicBool::new(false),
        })
    }

    pub fn bo(&self) -> &Bo {
        self.bo.as_ref().expect("memory has a BO until dropped")
    }

    pub fn gpu_va(&self) -> u64 {
        self.bo().gpu_va()
    }

    pub fn map(&self, offset: u64, size: u64) -> VkResult<*mut u8> {
        let end = if size == vk::WHOLE_SIZE {
            self.size
        } else {
            offset.saturating_add(size)
        };
        if offset >= self.size || end > self.size {
            return Err(vk::Result::ERROR_MEMORY_MAP_FAILED);
        }
        if self.mapped.swap(true, Ordering::AcqRel) {
            log::warn!("vkMapMemory: memory is already mapped");
            return Err(vk::Result::ERROR_MEMORY_MAP_FAILED);
        }
        // SAFETY: offset < size of the BO's mapping.
        Ok(unsafe { self.bo().ptr().add(offset as usize) })
    }

    pub fn unmap(&self) {
        self.mapped.store(false, Ordering::Release);
    }
}

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        if let Some(bo) = self.bo.take() {
            self.core.kdev.bo_destroy(bo);
        }
    }
}
