//! Fence and semaphore commands.

use ash::vk::{self, Handle};

use super::device::device;
use super::{input, out, slice};
use crate::vk::VkResult;
use crate::vk::handle;
use crate::vk::sync::{self as vsync, Fence, Semaphore};

/// The timeline of a timeline semaphore (a binary one is invalid usage).
fn timeline<'a>(s: vk::Semaphore) -> VkResult<&'a std::sync::Arc<crate::vk::sync::Timeline>> {
    // SAFETY: the caller passes a live semaphore (valid usage).
    let sem = unsafe { handle::handle::<Semaphore>(s.as_raw()) }?;
    sem.timeline.as_ref().ok_or_else(|| {
        log::warn!("a binary semaphore where a timeline semaphore is required (invalid usage)");
        vk::Result::ERROR_UNKNOWN
    })
}

fn fences<'a>(p: *const vk::Fence, n: u32) -> VkResult<Vec<&'a Fence>> {
    // SAFETY: the caller passes `n` live fences (valid usage).
    unsafe { slice(p, n) }
        .iter()
        // SAFETY: as above.
        .map(|f| unsafe { handle::handle::<Fence>(f.as_raw()) })
        .collect()
}

crate::vk_entry_points! {
    fn vkCreateFence(
        device: vk::Device,
        p_create_info: *const vk::FenceCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_fence: *mut vk::Fence,
    ) -> vk::Result {
        let d = self::device(device)?;
        let info = input(p_create_info)?;
        crate::icd::chain::log_unknown("vkCreateFence", info.p_next, &[]);
        let f = Fence::new(&d.core, info.flags.contains(vk::FenceCreateFlags::SIGNALED))?;
        out(p_fence, vk::Fence::from_raw(handle::new_handle(f)))
    }

    fn vkDestroyFence(_device: vk::Device, fence: vk::Fence, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_handle::<Fence>(fence.as_raw()));
    }

    fn vkResetFences(device: vk::Device, fence_count: u32, p_fences: *const vk::Fence) -> vk::Result {
        let d = self::device(device)?;
        vsync::reset(&d.core, &fences(p_fences, fence_count)?)
    }

    fn vkGetFenceStatus(device: vk::Device, fence: vk::Fence) -> vk::Result {
        let d = self::device(device)?;
        let f = handle::handle::<Fence>(fence.as_raw())?;
        match vsync::wait(&d.core, &[f], true, 0) {
            Err(vk::Result::TIMEOUT) => Err(vk::Result::NOT_READY),
            other => other,
        }
    }

    fn vkWaitForFences(
        device: vk::Device,
        fence_count: u32,
        p_fences: *const vk::Fence,
        wait_all: vk::Bool32,
        timeout: u64,
    ) -> vk::Result {
        let d = self::device(device)?;
        vsync::wait(&d.core, &fences(p_fences, fence_count)?, wait_all != vk::FALSE, timeout)
    }

    fn vkCreateSemaphore(
        device: vk::Device,
        p_create_info: *const vk::SemaphoreCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_semaphore: *mut vk::Semaphore,
    ) -> vk::Result {
        let d = self::device(device)?;
        let info = input(p_create_info)?;
        let ty = crate::icd::chain::find_in::<vk::SemaphoreTypeCreateInfo<'_>>(info.p_next);
        if let Some(t) = ty.filter(|t| t.semaphore_type == vk::SemaphoreType::TIMELINE) {
            let s = Semaphore::new_timeline(&d.core, t.initial_value);
            return out(p_semaphore, vk::Semaphore::from_raw(handle::new_handle(s)));
        }
        if ty.is_some_and(|t| t.semaphore_type != vk::SemaphoreType::BINARY) {
            return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
        }
        let s = Semaphore::new(&d.core)?;
        out(p_semaphore, vk::Semaphore::from_raw(handle::new_handle(s)))
    }

    fn vkDestroySemaphore(_device: vk::Device, semaphore: vk::Semaphore, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_handle::<Semaphore>(semaphore.as_raw()));
    }

    // VK_KHR_timeline_semaphore
    fn vkGetSemaphoreCounterValueKHR(_device: vk::Device, semaphore: vk::Semaphore, p_value: *mut u64) -> vk::Result {
        let t = timeline(semaphore)?;
        out(p_value, t.value()?)
    }

    fn vkSignalSemaphoreKHR(_device: vk::Device, p_signal_info: *const vk::SemaphoreSignalInfo<'_>) -> vk::Result {
        let info = input(p_signal_info)?;
        timeline(info.semaphore)?.signal(info.value);
        Ok(())
    }

    fn vkWaitSemaphoresKHR(device: vk::Device, p_wait_info: *const vk::SemaphoreWaitInfo<'_>, timeout: u64) -> vk::Result {
        let d = self::device(device)?;
        let info = input(p_wait_info)?;
        let sems = crate::icd::api::slice(info.p_semaphores, info.semaphore_count);
        let values = crate::icd::api::slice(info.p_values, info.semaphore_count);
        let waits = sems
            .iter()
            .zip(values)
            .map(|(s, &v)| timeline(*s).map(|t| (t.clone(), v)))
            .collect::<VkResult<Vec<_>>>()?;
        let any = info.flags.contains(vk::SemaphoreWaitFlags::ANY);
        vsync::wait_timelines(&d.core, &waits, any, timeout)
    }
}
