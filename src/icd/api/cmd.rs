//! Command pool and command buffer commands.

use ash::vk::{self, Handle};

use super::device::device;
use super::{input, out, slice};
use crate::vk::VkResult;
use crate::vk::cmd::{CommandBuffer, CommandPool};
use crate::vk::handle;
use crate::vk::query::QueryPool;

fn cmd<'a>(c: vk::CommandBuffer) -> VkResult<&'a CommandBuffer> {
    // SAFETY: the caller passes a live command buffer (valid usage).
    unsafe { handle::dispatchable::<CommandBuffer>(c.as_raw() as *mut u8) }
}

fn pool<'a>(p: vk::CommandPool) -> VkResult<&'a CommandPool> {
    // SAFETY: the caller passes a live pool (valid usage).
    unsafe { handle::handle::<CommandPool>(p.as_raw()) }
}

crate::vk_entry_points! {
    fn vkCreateCommandPool(
        device: vk::Device,
        p_create_info: *const vk::CommandPoolCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_command_pool: *mut vk::CommandPool,
    ) -> vk::Result {
        let d = self::device(device)?;
        let info = input(p_create_info)?;
        let p = CommandPool::new(&d.core, info)?;
        out(p_command_pool, vk::CommandPool::from_raw(handle::new_handle(p)))
    }

    fn vkDestroyCommandPool(_device: vk::Device, command_pool: vk::CommandPool, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_handle::<CommandPool>(command_pool.as_raw()));
    }

    fn vkResetCommandPool(_device: vk::Device, command_pool: vk::CommandPool, flags: vk::CommandPoolResetFlags) -> vk::Result {
        self::pool(command_pool)?.reset(flags.contains(vk::CommandPoolResetFlags::RELEASE_RESOURCES));
        Ok(())
    }

    fn vkAllocateCommandBuffers(
        _device: vk::Device,
        p_allocate_info: *const vk::CommandBufferAllocateInfo<'_>,
        p_command_buffers: *mut vk::CommandBuffer,
    ) -> vk::Result {
        let info = input(p_allocate_info)?;
        let p = self::pool(info.command_pool)?;
        if info.level != vk::CommandBufferLevel::PRIMARY {
            // Secondary command buffers are not implemented.
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        if p_command_buffers.is_null() {
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        for i in 0..info.command_buffer_count as usize {
            let raw = p.allocate(info.command_pool.as_raw());
            p_command_buffers.add(i).write(vk::CommandBuffer::from_raw(raw.0 as u64));
        }
        Ok(())
    }

    fn vkFreeCommandBuffers(
        _device: vk::Device,
        command_pool: vk::CommandPool,
        count: u32,
        p_command_buffers: *const vk::CommandBuffer,
    ) {
        let Ok(p) = self::pool(command_pool) else { return };
        for c in slice(p_command_buffers, count) {
            if !c.is_null() {
                p.free(crate::vk::RawHandle(c.as_raw() as *mut u8));
            }
        }
    }

    fn vkBeginCommandBuffer(command_buffer: vk::CommandBuffer, p_begin_info: *const vk::CommandBufferBeginInfo<'_>) -> vk::Result {
        input(p_begin_info)?;
        self::cmd(command_buffer)?.begin()
    }

    fn vkEndCommandBuffer(command_buffer: vk::CommandBuffer) -> vk::Result {
        self::cmd(command_buffer)?.end()
    }

    fn vkResetCommandBuffer(command_buffer: vk::CommandBuffer, _flags: vk::CommandBufferResetFlags) -> vk::Result {
        self::cmd(command_buffer)?.reset();
        Ok(())
    }

    fn vkCmdWriteTimestamp(
        command_buffer: vk::CommandBuffer,
        _pipeline_stage: vk::PipelineStageFlags,
        query_pool: vk::QueryPool,
        query: u32,
    ) {
        // Jobs of a command buffer run in order, so every stage is "done"
        // when the timestamp job runs.
        if let (Ok(c), Ok(qp)) = (self::cmd(command_buffer), handle::handle::<QueryPool>(query_pool.as_raw())) {
            c.state.lock().unwrap().write_timestamp(qp, query);
        }
    }

    fn vkCmdResetQueryPool(
        command_buffer: vk::CommandBuffer,
        query_pool: vk::QueryPool,
        first_query: u32,
        query_count: u32,
    ) {
        if let (Ok(c), Ok(qp)) = (self::cmd(command_buffer), handle::handle::<QueryPool>(query_pool.as_raw())) {
            c.state.lock().unwrap().reset_queries(qp, first_query, query_count);
        }
    }
}
