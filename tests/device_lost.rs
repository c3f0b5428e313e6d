//! A job chain that faults on the GPU loses the device: fence waits, later
//! submits, idle waits, query waits and event status report
//! VK_ERROR_DEVICE_LOST (also when a wait for a host-set event was queued
//! behind the faulting chain: it does not block), and the process keeps
//! running.

mod common;

use ash::vk;
use common::*;

#[test]
fn a_gpu_fault_is_device_lost_upstairs() {
    let gpu = Gpu::new();
    let d = &gpu.device;
    type Pfn = unsafe extern "system" fn(vk::CommandBuffer) -> vk::Result;
    let record_fault = gpu
        .hook(c"vkBifrostTestRecordFault")
        .expect("test hooks enabled");
    // SAFETY: the hook has this signature (src/icd/api/test_hooks.rs).
    let record_fault: Pfn = unsafe { std::mem::transmute(record_fault) };
    // SAFETY: valid handles throughout.
    unsafe {
        let qp = d
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(1),
                None,
            )
            .unwrap();
        let pool = gpu.command_pool();
        let event = d
            .create_event(&vk::EventCreateInfo::default(), None)
            .unwrap();
        let waiter = gpu.command_buffer(pool);
        d.begin_command_buffer(waiter, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        // Never set: only the loss ends this wait.
        d.cmd_wait_events(
            waiter,
            &[event],
            vk::PipelineStageFlags::HOST,
            vk::PipelineStageFlags::TRANSFER,
            &[],
            &[],
            &[],
        );
        d.cmd_reset_query_pool(waiter, qp, 0, 1);
        d.end_command_buffer(waiter).unwrap();
        let cb = gpu.command_buffer(pool);
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_reset_query_pool(cb, qp, 0, 1);
        assert_eq!(record_fault(cb), vk::Result::SUCCESS);
        // Never reached: the chain stops at the fault.
        d.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, qp, 0);
        d.end_command_buffer(cb).unwrap();
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let cbs = [cb];
        d.queue_submit(
            gpu.queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            fence,
        )
        .unwrap();
        // Queued behind the fault (or refused if the loss is already known).
        let queued = d.queue_submit(
            gpu.queue,
            &[vk::SubmitInfo::default().command_buffers(&[waiter])],
            vk::Fence::null(),
        );
        assert!(matches!(
            queued,
            Ok(()) | Err(vk::Result::ERROR_DEVICE_LOST)
        ));
        assert_eq!(
            d.wait_for_fences(&[fence], true, 5_000_000_000),
            Err(vk::Result::ERROR_DEVICE_LOST)
        );
        let mut ts = [0u64; 1];
        assert_eq!(
            d.get_query_pool_results(
                qp,
                0,
                &mut ts,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT
            ),
            Err(vk::Result::ERROR_DEVICE_LOST)
        );
        assert_eq!(
            d.queue_submit(
                gpu.queue,
                &[vk::SubmitInfo::default().command_buffers(&cbs)],
                vk::Fence::null()
            ),
            Err(vk::Result::ERROR_DEVICE_LOST)
        );
        assert_eq!(
            d.queue_wait_idle(gpu.queue),
            Err(vk::Result::ERROR_DEVICE_LOST)
        );
        assert_eq!(
            d.get_fence_status(fence),
            Err(vk::Result::ERROR_DEVICE_LOST)
        );
        assert_eq!(
            d.get_event_status(event),
            Err(vk::Result::ERROR_DEVICE_LOST)
        );
        d.destroy_event(event, None);
        // Objects can still be destroyed.
        d.destroy_fence(fence, None);
        d.destroy_command_pool(pool, None);
        d.destroy_query_pool(qp, None);
    }
    // A new device on the same process works.
    let again = Gpu::new();
    // SAFETY: valid handles.
    unsafe {
        again
            .device
            .queue_submit(again.queue, &[vk::SubmitInfo::default()], vk::Fence::null())
            .unwrap();
        again.device.queue_wait_idle(again.queue).unwrap();
    }
}
