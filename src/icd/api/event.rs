//! Event commands, host side and recorded (`vk::event`, `vk::cmd::event`).

use std::sync::Arc;

use ash::vk::{self, Handle};

use super::device::device;
use super::{input, out, slice};
use crate::vk::VkResult;
use crate::vk::cmd::CommandBuffer;
use crate::vk::event::{Event, EventBo};
use crate::vk::handle;

fn event<'a>(e: vk::Event) -> VkResult<&'a Event> {
    // SAFETY: the caller passes a live event (valid usage).
    unsafe { handle::handle::<Event>(e.as_raw()) }
}

fn cmd<'a>(c: vk::CommandBuffer) -> VkResult<&'a CommandBuffer> {
    // SAFETY: the caller passes a live command buffer (valid usage).
    unsafe { handle::dispatchable::<CommandBuffer>(c.as_raw() as *mut u8) }
}

crate::vk_entry_points! {
    fn vkCreateEvent(
        device: vk::Device,
        p_create_info: *const vk::EventCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_event: *mut vk::Event,
    ) -> vk::Result {
        let d = self::device(device)?;
        let info = input(p_create_info)?;
        crate::icd::chain::log_unknown("vkCreateEvent", info.p_next, &[]);
        let e = Event::new(&d.core)?;
        out(p_event, vk::Event::from_raw(handle::new_handle(e)))
    }

    fn vkDestroyEvent(_device: vk::Device, event: vk::Event, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_handle::<Event>(event.as_raw()));
    }

    fn vkGetEventStatus(device: vk::Device, event: vk::Event) -> vk::Result {
        self::device(device)?;
        self::event(event)?.status()
    }

    fn vkSetEvent(device: vk::Device, event: vk::Event) -> vk::Result {
        self::device(device)?;
        self::event(event)?.host_write(true);
        Ok(())
    }

    fn vkResetEvent(device: vk::Device, event: vk::Event) -> vk::Result {
        self::device(device)?;
        self::event(event)?.host_write(false);
        Ok(())
    }

    fn vkCmdSetEvent(command_buffer: vk::CommandBuffer, event: vk::Event, _stage_mask: vk::PipelineStageFlags) {
        let (Ok(c), Ok(e)) = (self::cmd(command_buffer), self::event(event)) else { return };
        c.state.lock().unwrap().write_event(&e.bo, true);
    }

    fn vkCmdResetEvent(command_buffer: vk::CommandBuffer, event: vk::Event, _stage_mask: vk::PipelineStageFlags) {
        let (Ok(c), Ok(e)) = (self::cmd(command_buffer), self::event(event)) else { return };
        c.state.lock().unwrap().write_event(&e.bo, false);
    }

    // The memory barriers need nothing beyond the job barrier (vk::cmd::event).
    fn vkCmdWaitEvents(
        command_buffer: vk::CommandBuffer,
        event_count: u32,
        p_events: *const vk::Event,
        src_stage_mask: vk::PipelineStageFlags,
        _dst_stage_mask: vk::PipelineStageFlags,
        _memory_barrier_count: u32,
        _p_memory_barriers: *const vk::MemoryBarrier<'_>,
        _buffer_memory_barrier_count: u32,
        _p_buffer_memory_barriers: *const vk::BufferMemoryBarrier<'_>,
        _image_memory_barrier_count: u32,
        _p_image_memory_barriers: *const vk::ImageMemoryBarrier<'_>,
    ) {
        let Ok(c) = self::cmd(command_buffer) else { return };
        let events: Vec<Arc<EventBo>> = slice(p_events, event_count)
            .iter()
            .filter_map(|&e| self::event(e).ok().map(|e| e.bo.clone()))
            .collect();
        let host = src_stage_mask.contains(vk::PipelineStageFlags::HOST);
        c.state.lock().unwrap().wait_events(&events, host);
    }
}
