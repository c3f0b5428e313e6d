//! Fences and binary semaphores across submits.

mod common;

use ash::vk;
use common::*;

#[test]
fn fences_and_semaphores_across_two_submits() {
    let gpu = Gpu::new();
    let d = &gpu.device;
    let pool = gpu.command_pool();
    let cb1 = gpu.command_buffer(pool);
    let cb2 = gpu.command_buffer(pool);
    // SAFETY: valid handles throughout; objects destroyed after the GPU is idle.
    unsafe {
        for cb in [cb1, cb2] {
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.end_command_buffer(cb).unwrap();
        }
        let sem = d
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            .unwrap();
        let fence1 = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let fence2 = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        assert_eq!(d.get_fence_status(fence1), Ok(false), "unsignalled");
        assert_eq!(
            d.wait_for_fences(&[fence1], true, 1_000_000),
            Err(vk::Result::TIMEOUT)
        );

        let first = [cb1];
        let sems = [sem];
        let submit1 = vk::SubmitInfo::default()
            .command_buffers(&first)
            .signal_semaphores(&sems);
        d.queue_submit(gpu.queue, &[submit1], fence1).unwrap();
        let second = [cb2];
        let stages = [vk::PipelineStageFlags::TOP_OF_PIPE];
        let submit2 = vk::SubmitInfo::default()
            .wait_semaphores(&sems)
            .wait_dst_stage_mask(&stages)
            .command_buffers(&second);
        d.queue_submit(gpu.queue, &[submit2], fence2).unwrap();
        d.wait_for_fences(&[fence1, fence2], true, 5_000_000_000)
            .unwrap();
        assert_eq!(d.get_fence_status(fence2), Ok(true));

        d.reset_fences(&[fence1]).unwrap();
        assert_eq!(d.get_fence_status(fence1), Ok(false));
        // wait-any: fence2 is signalled.
        d.wait_for_fences(&[fence1, fence2], false, 0).unwrap();

        // A submit with no command buffers still signals its fence in order.
        d.queue_submit(gpu.queue, &[], fence1).unwrap();
        d.wait_for_fences(&[fence1], true, 5_000_000_000).unwrap();
        d.queue_wait_idle(gpu.queue).unwrap();
        d.device_wait_idle().unwrap();

        let signalled = d
            .create_fence(
                &vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED),
                None,
            )
            .unwrap();
        assert_eq!(d.get_fence_status(signalled), Ok(true));

        for f in [fence1, fence2, signalled] {
            d.destroy_fence(f, None);
        }
        d.destroy_semaphore(sem, None);
        d.free_command_buffers(pool, &[cb1, cb2]);
        d.destroy_command_pool(pool, None);
    }
}
