//! Events through the Khronos loader, on the simulated G52 and G72:
//! vkCreateEvent/vkDestroyEvent, host vkSetEvent/vkResetEvent/
//! vkGetEventStatus, vkCmdSetEvent/vkCmdResetEvent as GPU writes seen by
//! the host after the fence, vkCmdWaitEvents ordering work after an
//! earlier vkCmdSetEvent, and a submitted vkCmdWaitEvents released only by
//! a later vkSetEvent from another thread (the work after the wait has not
//! run before the set: its destination still holds the canary).

mod common;

use std::time::Duration;

use ash::vk;
use common::*;

const CANARY: u8 = 0x5A;
const USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::TRANSFER_SRC.as_raw() | vk::BufferUsageFlags::TRANSFER_DST.as_raw(),
);

fn event(d: &ash::Device) -> vk::Event {
    // SAFETY: valid device.
    unsafe { d.create_event(&vk::EventCreateInfo::default(), None) }.unwrap()
}

fn status(d: &ash::Device, e: vk::Event) -> bool {
    // SAFETY: valid handles. ash maps EVENT_SET/EVENT_RESET to true/false.
    unsafe { d.get_event_status(e) }.unwrap()
}

fn begin(d: &ash::Device, cb: vk::CommandBuffer) {
    // SAFETY: valid command buffer.
    unsafe { d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default()) }.unwrap();
}

fn fence(d: &ash::Device) -> vk::Fence {
    // SAFETY: valid device.
    unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }.unwrap()
}

fn submit(gpu: &Gpu, cbs: &[vk::CommandBuffer], f: vk::Fence) {
    // SAFETY: valid handles, executable command buffers.
    unsafe {
        gpu.device.queue_submit(
            gpu.queue,
            &[vk::SubmitInfo::default().command_buffers(cbs)],
            f,
        )
    }
    .unwrap();
}

fn wait(d: &ash::Device, f: vk::Fence) {
    // SAFETY: valid fence.
    unsafe { d.wait_for_fences(&[f], true, 10_000_000_000) }.unwrap();
}

fn wait_events(
    d: &ash::Device,
    cb: vk::CommandBuffer,
    events: &[vk::Event],
    src: vk::PipelineStageFlags,
) {
    let mut access = vk::AccessFlags::empty();
    if src.contains(vk::PipelineStageFlags::TRANSFER) {
        access |= vk::AccessFlags::TRANSFER_WRITE;
    }
    if src.contains(vk::PipelineStageFlags::HOST) {
        access |= vk::AccessFlags::HOST_WRITE;
    }
    let m = [vk::MemoryBarrier::default()
        .src_access_mask(access)
        .dst_access_mask(vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::TRANSFER_WRITE)];
    // SAFETY: valid handles, recording.
    unsafe {
        d.cmd_wait_events(
            cb,
            events,
            src,
            vk::PipelineStageFlags::TRANSFER,
            &m,
            &[],
            &[],
        )
    };
}

#[test]
fn host_set_reset_and_status() {
    let gpu = Gpu::new();
    let d = &gpu.device;
    let e = event(d);
    assert!(!status(d, e), "a new event is unsignaled");
    // SAFETY: valid handles.
    unsafe {
        d.set_event(e).unwrap();
        assert!(status(d, e));
        d.set_event(e).unwrap();
        assert!(status(d, e), "setting twice has no further effect");
        d.reset_event(e).unwrap();
        assert!(!status(d, e));
        // The raw codes (ash folds them into a bool).
        let get = gpu.device.fp_v1_0().get_event_status;
        assert_eq!(get(d.handle(), e), vk::Result::EVENT_RESET);
        d.set_event(e).unwrap();
        assert_eq!(get(d.handle(), e), vk::Result::EVENT_SET);
        d.destroy_event(e, None);
        // VK_NULL_HANDLE is a no-op.
        d.destroy_event(vk::Event::null(), None);
    }
}

/// vkCmdSetEvent/vkCmdResetEvent write the event on the GPU; the host sees
/// the result after the fence, and the order of the writes holds.
#[test]
fn gpu_writes_are_seen_by_the_host() {
    for model in ["g52", "g72"] {
        let gpu = Gpu::with_xfb(model);
        let d = &gpu.device;
        let (set, reset, both) = (event(d), event(d), event(d));
        // SAFETY: valid handles throughout.
        unsafe {
            d.set_event(reset).unwrap();
            let pool = gpu.command_pool();
            let cb = gpu.command_buffer(pool);
            begin(d, cb);
            d.cmd_set_event(cb, set, vk::PipelineStageFlags::ALL_COMMANDS);
            d.cmd_reset_event(cb, reset, vk::PipelineStageFlags::ALL_COMMANDS);
            d.cmd_reset_event(cb, both, vk::PipelineStageFlags::TRANSFER);
            d.cmd_set_event(cb, both, vk::PipelineStageFlags::TRANSFER);
            d.end_command_buffer(cb).unwrap();
            assert!(!status(d, set), "nothing ran before the submit");
            let f = fence(d);
            submit(&gpu, &[cb], f);
            wait(d, f);
            assert!(status(d, set), "{model}: set on the GPU");
            assert!(!status(d, reset), "{model}: reset on the GPU");
            assert!(status(d, both), "{model}: the later write wins");
            // Submitted again after the host changed them: written again.
            d.reset_event(set).unwrap();
            d.set_event(reset).unwrap();
            d.reset_fences(&[f]).unwrap();
            submit(&gpu, &[cb], f);
            wait(d, f);
            assert!(
                status(d, set) && !status(d, reset),
                "{model}: second submit"
            );
            d.destroy_fence(f, None);
            d.destroy_command_pool(pool, None);
            for e in [set, reset, both] {
                d.destroy_event(e, None);
            }
        }
    }
}

/// A wait on an event set earlier on the queue (same command buffer, and
/// an earlier submit) orders the copy after the fill before the set.
#[test]
fn wait_after_a_gpu_set() {
    for model in ["g52", "g72"] {
        let gpu = Gpu::with_xfb(model);
        let d = &gpu.device;
        let (a, b) = (Buf::new(d, 256, USAGE), Buf::new(d, 256, USAGE));
        a.bytes().fill(0);
        b.bytes().fill(CANARY);
        let (e1, e2) = (event(d), event(d));
        let pool = gpu.command_pool();
        let (c1, c2) = (gpu.command_buffer(pool), gpu.command_buffer(pool));
        let region = [vk::BufferCopy {
            src_offset: 0,
            dst_offset: 0,
            size: 128,
        }];
        let region2 = [vk::BufferCopy {
            src_offset: 128,
            dst_offset: 128,
            size: 128,
        }];
        // SAFETY: valid handles throughout.
        unsafe {
            begin(d, c1);
            d.cmd_fill_buffer(c1, a.buffer, 0, 256, 0x0102_0304);
            d.cmd_set_event(c1, e1, vk::PipelineStageFlags::TRANSFER);
            d.cmd_set_event(c1, e2, vk::PipelineStageFlags::TRANSFER);
            wait_events(d, c1, &[e1], vk::PipelineStageFlags::TRANSFER);
            d.cmd_copy_buffer(c1, a.buffer, b.buffer, &region);
            d.end_command_buffer(c1).unwrap();
            begin(d, c2);
            // Set by the earlier submit.
            wait_events(d, c2, &[e2], vk::PipelineStageFlags::TRANSFER);
            d.cmd_copy_buffer(c2, a.buffer, b.buffer, &region2);
            d.end_command_buffer(c2).unwrap();
            let f = fence(d);
            submit(&gpu, &[c1], vk::Fence::null());
            submit(&gpu, &[c2], f);
            wait(d, f);
            assert_eq!(
                b.bytes(),
                &0x0102_0304u32.to_le_bytes().repeat(64)[..],
                "{model}"
            );
            d.destroy_fence(f, None);
            d.destroy_command_pool(pool, None);
            d.destroy_event(e1, None);
            d.destroy_event(e2, None);
        }
        a.destroy(d);
        b.destroy(d);
    }
}

/// The host sets the event after the submit, from another thread: the copy
/// after the wait has not run while the event was unsignaled (its
/// destination keeps the canary, the fence is unsignaled) and runs once it
/// is set; the fill before the wait ran regardless. vkQueueWaitIdle waits
/// for the whole submission.
#[test]
fn host_set_after_submit_releases_the_wait() {
    for model in ["g52", "g72"] {
        let gpu = Gpu::with_xfb(model);
        let d = &gpu.device;
        let (a, b) = (Buf::new(d, 256, USAGE), Buf::new(d, 256, USAGE));
        let before = Buf::new(d, 64, USAGE);
        a.write(0, &[0xCAFE_F00Du32; 64]);
        b.bytes().fill(CANARY);
        before.bytes().fill(CANARY);
        let e = event(d);
        let pool = gpu.command_pool();
        let cb = gpu.command_buffer(pool);
        // SAFETY: valid handles throughout.
        unsafe {
            begin(d, cb);
            d.cmd_fill_buffer(cb, before.buffer, 0, 64, 0x0B0B_0B0B);
            wait_events(d, cb, &[e], vk::PipelineStageFlags::HOST);
            d.cmd_copy_buffer(
                cb,
                a.buffer,
                b.buffer,
                &[vk::BufferCopy {
                    src_offset: 0,
                    dst_offset: 0,
                    size: 256,
                }],
            );
            d.end_command_buffer(cb).unwrap();
            let f = fence(d);
            submit(&gpu, &[cb], f);
            // Work before the wait runs; the fence cannot signal.
            let fill = 0x0B0B_0B0Bu32.to_le_bytes().repeat(16);
            let start = std::time::Instant::now();
            while before.bytes() != &fill[..] && start.elapsed() < Duration::from_secs(20) {
                std::thread::sleep(Duration::from_millis(5));
            }
            assert_eq!(
                before.bytes(),
                &fill[..],
                "{model}: the fill before the wait ran"
            );
            std::thread::sleep(Duration::from_millis(50));
            assert_eq!(
                d.get_fence_status(f),
                Ok(false),
                "{model}: fence before the set"
            );
            assert!(
                b.bytes().iter().all(|&x| x == CANARY),
                "{model}: copy ran early"
            );
            let setter = {
                let dev = d.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(50));
                    dev.set_event(e).unwrap();
                })
            };
            wait(d, f);
            setter.join().unwrap();
            assert_eq!(
                b.bytes(),
                &0xCAFE_F00Du32.to_le_bytes().repeat(64)[..],
                "{model}"
            );

            // Again with the event still set: no wait at all; then reset on
            // the host and released by a set while vkQueueWaitIdle blocks.
            b.bytes().fill(CANARY);
            d.reset_fences(&[f]).unwrap();
            submit(&gpu, &[cb], f);
            wait(d, f);
            assert_eq!(b.bytes(), &0xCAFE_F00Du32.to_le_bytes().repeat(64)[..]);
            d.reset_event(e).unwrap();
            b.bytes().fill(CANARY);
            submit(&gpu, &[cb], vk::Fence::null());
            let setter = {
                let dev = d.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(100));
                    dev.set_event(e).unwrap();
                })
            };
            d.queue_wait_idle(gpu.queue).unwrap();
            setter.join().unwrap();
            assert_eq!(b.bytes(), &0xCAFE_F00Du32.to_le_bytes().repeat(64)[..]);
            d.destroy_fence(f, None);
            d.destroy_command_pool(pool, None);
            d.destroy_event(e, None);
        }
        for x in [&a, &b, &before] {
            x.destroy(d);
        }
    }
}

/// Submissions made while a wait blocks run after it, in order, and their
/// fences and semaphores signal in order.
#[test]
fn later_submits_queue_behind_a_blocked_wait() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let dst = Buf::new(d, 64, USAGE);
    dst.bytes().fill(CANARY);
    let e = event(d);
    let pool = gpu.command_pool();
    let (waiter, later) = (gpu.command_buffer(pool), gpu.command_buffer(pool));
    // SAFETY: valid handles throughout.
    unsafe {
        begin(d, waiter);
        wait_events(d, waiter, &[e], vk::PipelineStageFlags::HOST);
        d.cmd_fill_buffer(waiter, dst.buffer, 0, 64, 1);
        d.end_command_buffer(waiter).unwrap();
        begin(d, later);
        d.cmd_fill_buffer(later, dst.buffer, 0, 32, 2);
        d.end_command_buffer(later).unwrap();
        let sem = d
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            .unwrap();
        let (f1, f2) = (fence(d), fence(d));
        d.queue_submit(
            gpu.queue,
            &[vk::SubmitInfo::default()
                .command_buffers(&[waiter])
                .signal_semaphores(&[sem])],
            f1,
        )
        .unwrap();
        let stages = [vk::PipelineStageFlags::TRANSFER];
        d.queue_submit(
            gpu.queue,
            &[vk::SubmitInfo::default()
                .wait_semaphores(&[sem])
                .wait_dst_stage_mask(&stages)
                .command_buffers(&[later])],
            f2,
        )
        .unwrap();
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(d.get_fence_status(f1), Ok(false));
        assert_eq!(d.get_fence_status(f2), Ok(false));
        assert!(dst.bytes().iter().all(|&x| x == CANARY), "nothing ran");
        d.set_event(e).unwrap();
        d.wait_for_fences(&[f1, f2], true, 10_000_000_000).unwrap();
        let mut want = 2u32.to_le_bytes().repeat(8);
        want.extend(1u32.to_le_bytes().repeat(8));
        assert_eq!(dst.bytes(), &want[..], "the later submit ran last");
        for f in [f1, f2] {
            d.destroy_fence(f, None);
        }
        d.destroy_semaphore(sem, None);
        d.destroy_command_pool(pool, None);
        d.destroy_event(e, None);
    }
    dst.destroy(d);
}

/// A secondary that waits on a host event and sets another: the primary
/// runs the wait point where the secondary has it.
#[test]
fn events_in_a_secondary() {
    let gpu = Gpu::with_xfb("g72");
    let d = &gpu.device;
    let dst = Buf::new(d, 64, USAGE);
    dst.bytes().fill(CANARY);
    let (host, gpu_set) = (event(d), event(d));
    let pool = gpu.command_pool();
    let s = {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::SECONDARY)
            .command_buffer_count(1);
        // SAFETY: valid pool.
        unsafe { d.allocate_command_buffers(&info) }.unwrap()[0]
    };
    let p = gpu.command_buffer(pool);
    let inheritance = vk::CommandBufferInheritanceInfo::default();
    // SAFETY: valid handles throughout.
    unsafe {
        d.begin_command_buffer(
            s,
            &vk::CommandBufferBeginInfo::default().inheritance_info(&inheritance),
        )
        .unwrap();
        wait_events(d, s, &[host], vk::PipelineStageFlags::HOST);
        d.cmd_fill_buffer(s, dst.buffer, 0, 64, 5);
        d.cmd_set_event(s, gpu_set, vk::PipelineStageFlags::TRANSFER);
        d.end_command_buffer(s).unwrap();
        begin(d, p);
        d.cmd_execute_commands(p, &[s]);
        d.end_command_buffer(p).unwrap();
        let f = fence(d);
        submit(&gpu, &[p], f);
        std::thread::sleep(Duration::from_millis(50));
        assert!(!status(d, gpu_set));
        assert!(dst.bytes().iter().all(|&x| x == CANARY));
        d.set_event(host).unwrap();
        wait(d, f);
        assert!(status(d, gpu_set));
        assert_eq!(dst.bytes(), &5u32.to_le_bytes().repeat(16)[..]);
        d.destroy_fence(f, None);
        d.destroy_command_pool(pool, None);
        d.destroy_event(host, None);
        d.destroy_event(gpu_set, None);
    }
    dst.destroy(d);
}

/// Destroying an event that a recorded command buffer still names, then
/// submitting it (invalid usage: the command buffer is invalid), neither
/// crashes nor writes freed memory: the recording keeps the event's memory.
/// Not run under the validation layer.
#[test]
fn destroyed_event_in_a_recording_is_survived() {
    let gpu = Gpu::new();
    let d = &gpu.device;
    let e = event(d);
    let pool = gpu.command_pool();
    let cb = gpu.command_buffer(pool);
    // SAFETY: valid handles; the misuse is the point.
    unsafe {
        begin(d, cb);
        d.cmd_set_event(cb, e, vk::PipelineStageFlags::ALL_COMMANDS);
        d.end_command_buffer(cb).unwrap();
        d.destroy_event(e, None);
        let f = fence(d);
        submit(&gpu, &[cb], f);
        wait(d, f);
        d.destroy_fence(f, None);
        d.destroy_command_pool(pool, None);
    }
}
