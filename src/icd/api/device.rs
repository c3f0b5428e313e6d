//! Device and queue commands.

use ash::vk::{self, Handle};

use super::{out, slice};
use crate::vk::VkResult;
use crate::vk::cmd::CommandBuffer;
use crate::vk::device::Device;
use crate::vk::handle;
use crate::vk::queue::{Batch, Queue};
use crate::vk::sync::{Fence, Semaphore};

pub fn device<'a>(d: vk::Device) -> VkResult<&'a Device> {
    // SAFETY: the caller passes a live device (valid usage).
    unsafe { handle::dispatchable::<Device>(d.as_raw() as *mut u8) }
}

fn queue<'a>(q: vk::Queue) -> VkResult<&'a Queue> {
    // SAFETY: queues live as long as their device (valid usage).
    unsafe { handle::dispatchable::<Queue>(q.as_raw() as *mut u8) }
}

crate::vk_entry_points! {
    fn vkDestroyDevice(device: vk::Device, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_dispatchable::<Device>(device.as_raw() as *mut u8));
    }

    fn vkGetDeviceQueue(device: vk::Device, queue_family_index: u32, queue_index: u32, p_queue: *mut vk::Queue) {
        let Ok(d) = self::device(device) else { return };
        if queue_family_index == 0 && queue_index == 0 {
            let _ = out(p_queue, vk::Queue::from_raw(d.queue.0 as u64));
        } else {
            log::warn!("vkGetDeviceQueue: no queue {queue_family_index}/{queue_index}");
        }
    }

    fn vkQueueSubmit(
        queue: vk::Queue,
        submit_count: u32,
        p_submits: *const vk::SubmitInfo<'_>,
        fence: vk::Fence,
    ) -> vk::Result {
        let q = self::queue(queue)?;
        let mut batches = Vec::new();
        for s in slice(p_submits, submit_count) {
            crate::icd::chain::log_unknown("vkQueueSubmit", s.p_next, &[]);
            let sem = |h: &vk::Semaphore| handle::handle::<Semaphore>(h.as_raw()).map(|s| s.syncobj);
            let waits = slice(s.p_wait_semaphores, s.wait_semaphore_count)
                .iter()
                .map(sem)
                .collect::<VkResult<Vec<_>>>()?;
            let signals = slice(s.p_signal_semaphores, s.signal_semaphore_count)
                .iter()
                .map(sem)
                .collect::<VkResult<Vec<_>>>()?;
            let command_buffers = slice(s.p_command_buffers, s.command_buffer_count)
                .iter()
                .map(|c| handle::dispatchable::<CommandBuffer>(c.as_raw() as *mut u8))
                .collect::<VkResult<Vec<_>>>()?;
            batches.push(Batch { waits, command_buffers, signals });
        }
        let fence = if fence == vk::Fence::null() {
            None
        } else {
            Some(handle::handle::<Fence>(fence.as_raw())?.syncobj)
        };
        q.submit(&batches, fence)
    }

    fn vkQueueWaitIdle(queue: vk::Queue) -> vk::Result {
        self::queue(queue)?.wait_idle()
    }

    fn vkDeviceWaitIdle(device: vk::Device) -> vk::Result {
        let d = self::device(device)?;
        self::queue(vk::Queue::from_raw(d.queue.0 as u64))?.wait_idle()
    }
}
