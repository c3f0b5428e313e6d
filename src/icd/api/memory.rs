//! Device memory and buffer commands.

use std::ffi::c_void;

use ash::vk::{self, Handle};

use super::device::device;
use super::{input, out, slice};
use crate::vk::VkResult;
use crate::vk::buffer::Buffer;
use crate::vk::handle;
use crate::vk::memory::DeviceMemory;

fn memory<'a>(m: vk::DeviceMemory) -> VkResult<&'a DeviceMemory> {
    // SAFETY: the caller passes a live memory object (valid usage).
    unsafe { handle::handle::<DeviceMemory>(m.as_raw()) }
}

fn buffer<'a>(b: vk::Buffer) -> VkResult<&'a Buffer> {
    // SAFETY: the caller passes a live buffer (valid usage).
    unsafe { handle::handle::<Buffer>(b.as_raw()) }
}

crate::vk_entry_points! {
    fn vkAllocateMemory(
        device: vk::Device,
        p_allocate_info: *const vk::MemoryAllocateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_memory: *mut vk::DeviceMemory,
    ) -> vk::Result {
        let d = self::device(device)?;
        let info = input(p_allocate_info)?;
        crate::icd::chain::log_unknown("vkAllocateMemory", info.p_next, &[]);
        let mem = DeviceMemory::allocate(&d.core, info.allocation_size, info.memory_type_index, d.heap_size)?;
        out(p_memory, vk::DeviceMemory::from_raw(handle::new_handle(mem)))
    }

    fn vkFreeMemory(_device: vk::Device, memory: vk::DeviceMemory, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_handle::<DeviceMemory>(memory.as_raw()));
    }

    fn vkMapMemory(
        _device: vk::Device,
        memory: vk::DeviceMemory,
        offset: vk::DeviceSize,
        size: vk::DeviceSize,
        _flags: vk::MemoryMapFlags,
        pp_data: *mut *mut c_void,
    ) -> vk::Result {
        let ptr = self::memory(memory)?.map(offset, size)?;
        out(pp_data, ptr.cast())
    }

    fn vkUnmapMemory(_device: vk::Device, memory: vk::DeviceMemory) {
        if let Ok(m) = self::memory(memory) {
            m.unmap();
        }
    }

    fn vkFlushMappedMemoryRanges(
        _device: vk::Device,
        count: u32,
        p_ranges: *const vk::MappedMemoryRange<'_>,
    ) -> vk::Result {
        // Host-coherent memory: nothing to flush. Check the handles anyway.
        for r in slice(p_ranges, count) {
            self::memory(r.memory)?;
        }
        Ok(())
    }

    fn vkInvalidateMappedMemoryRanges(
        _device: vk::Device,
        count: u32,
        p_ranges: *const vk::MappedMemoryRange<'_>,
    ) -> vk::Result {
        for r in slice(p_ranges, count) {
            self::memory(r.memory)?;
        }
        Ok(())
    }

    fn vkGetDeviceMemoryCommitment(
        _device: vk::Device,
        memory: vk::DeviceMemory,
        p_committed: *mut vk::DeviceSize,
    ) {
        if let Ok(m) = self::memory(memory) {
            let _ = out(p_committed, m.size);
        }
    }

    fn vkCreateBuffer(
        _device: vk::Device,
        p_create_info: *const vk::BufferCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_buffer: *mut vk::Buffer,
    ) -> vk::Result {
        let info = input(p_create_info)?;
        crate::icd::chain::log_unknown("vkCreateBuffer", info.p_next, &[]);
        let b = Buffer::new(info)?;
        out(p_buffer, vk::Buffer::from_raw(handle::new_handle(b)))
    }

    fn vkDestroyBuffer(_device: vk::Device, buffer: vk::Buffer, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        // Buffers own nothing but their description.
        let _ = handle::free_handle::<Buffer>(buffer.as_raw());
    }

    fn vkGetBufferMemoryRequirements(
        _device: vk::Device,
        buffer: vk::Buffer,
        p_memory_requirements: *mut vk::MemoryRequirements,
    ) {
        if let Ok(b) = self::buffer(buffer) {
            let _ = out(p_memory_requirements, b.requirements());
        }
    }

    fn vkBindBufferMemory(
        _device: vk::Device,
        buffer: vk::Buffer,
        memory: vk::DeviceMemory,
        memory_offset: vk::DeviceSize,
    ) -> vk::Result {
        self::buffer(buffer)?.bind(self::memory(memory)?, memory_offset)
    }
}
