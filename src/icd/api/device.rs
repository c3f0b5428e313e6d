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
            crate::icd::chain::log_unknown(
                "vkQueueSubmit",
                s.p_next,
                &[vk::StructureType::TIMELINE_SEMAPHORE_SUBMIT_INFO],
            );
            // VK_KHR_timeline_semaphore: the values of timeline semaphores,
            // by position (ignored for binary ones).
            let values = crate::icd::chain::find_in::<vk::TimelineSemaphoreSubmitInfo<'_>>(s.p_next);
            let wait_values = values.map_or(&[][..], |v| slice(v.p_wait_semaphore_values, v.wait_semaphore_value_count));
            let signal_values =
                values.map_or(&[][..], |v| slice(v.p_signal_semaphore_values, v.signal_semaphore_value_count));
            let split = |list: &[vk::Semaphore], values: &[u64]| -> VkResult<(Vec<_>, Vec<_>)> {
                let mut binary = Vec::new();
                let mut timeline = Vec::new();
                for (i, h) in list.iter().enumerate() {
                    let sem = handle::handle::<Semaphore>(h.as_raw())?;
                    match &sem.timeline {
                        None => binary.push(sem.syncobj),
                        Some(t) => {
                            let Some(&v) = values.get(i) else {
                                log::warn!("vkQueueSubmit: a timeline semaphore without a value (invalid usage)");
                                return Err(vk::Result::ERROR_UNKNOWN);
                            };
                            timeline.push((t.clone(), v));
                        }
                    }
                }
                Ok((binary, timeline))
            };
            let (waits, timeline_waits) = split(slice(s.p_wait_semaphores, s.wait_semaphore_count), wait_values)?;
            let (signals, timeline_signals) =
                split(slice(s.p_signal_semaphores, s.signal_semaphore_count), signal_values)?;
            let command_buffers = slice(s.p_command_buffers, s.command_buffer_count)
                .iter()
                .map(|c| handle::dispatchable::<CommandBuffer>(c.as_raw() as *mut u8))
                .collect::<VkResult<Vec<_>>>()?;
            batches.push(Batch {
                waits,
                command_buffers,
                signals,
                timeline_waits,
                timeline_signals,
            });
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
