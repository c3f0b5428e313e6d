//! VK_KHR_timeline_semaphore through the Khronos loader on the simulated
//! G52: host signals and waits, queue signals that complete with the GPU
//! work before them, queue waits on values signalled later by the host
//! (wait-before-signal: the work after the wait must not run before it),
//! chains of submissions, any/all waits and timeouts. The GPU work is
//! vkCmdFillBuffer, checked in the buffer's bytes.

mod common;

use std::time::Duration;

use ash::vk;
use common::*;

fn gpu() -> Gpu {
    Gpu::with_extensions(&[c"VK_KHR_timeline_semaphore"])
}

fn timeline(d: &ash::Device, initial: u64) -> vk::Semaphore {
    let mut ty = vk::SemaphoreTypeCreateInfo::default()
        .semaphore_type(vk::SemaphoreType::TIMELINE)
        .initial_value(initial);
    // SAFETY: valid create info.
    unsafe { d.create_semaphore(&vk::SemaphoreCreateInfo::default().push_next(&mut ty), None) }
        .unwrap()
}

/// A command buffer filling `buf` with `value`.
fn fill(gpu: &Gpu, pool: vk::CommandPool, buf: &Buf, value: u32) -> vk::CommandBuffer {
    let d = &gpu.device;
    let cb = gpu.command_buffer(pool);
    // SAFETY: valid handles.
    unsafe {
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_fill_buffer(cb, buf.buffer, 0, vk::WHOLE_SIZE, value);
        d.end_command_buffer(cb).unwrap();
    }
    cb
}

/// vkQueueSubmit of `cbs` waiting for and signalling timeline values.
fn submit(
    gpu: &Gpu,
    cbs: &[vk::CommandBuffer],
    waits: &[(vk::Semaphore, u64)],
    signals: &[(vk::Semaphore, u64)],
) {
    let wait_sems: Vec<_> = waits.iter().map(|w| w.0).collect();
    let wait_values: Vec<_> = waits.iter().map(|w| w.1).collect();
    let stages = vec![vk::PipelineStageFlags::ALL_COMMANDS; waits.len()];
    let signal_sems: Vec<_> = signals.iter().map(|s| s.0).collect();
    let signal_values: Vec<_> = signals.iter().map(|s| s.1).collect();
    let mut values = vk::TimelineSemaphoreSubmitInfo::default()
        .wait_semaphore_values(&wait_values)
        .signal_semaphore_values(&signal_values);
    let info = vk::SubmitInfo::default()
        .command_buffers(cbs)
        .wait_semaphores(&wait_sems)
        .wait_dst_stage_mask(&stages)
        .signal_semaphores(&signal_sems)
        .push_next(&mut values);
    // SAFETY: valid handles.
    unsafe {
        gpu.device
            .queue_submit(gpu.queue, &[info], vk::Fence::null())
    }
    .unwrap();
}

fn value(t: &ash::khr::timeline_semaphore::Device, s: vk::Semaphore) -> u64 {
    // SAFETY: a live timeline semaphore.
    unsafe { t.get_semaphore_counter_value(s) }.unwrap()
}

fn wait(
    t: &ash::khr::timeline_semaphore::Device,
    sems: &[vk::Semaphore],
    values: &[u64],
    any: bool,
    timeout_ns: u64,
) -> Result<(), vk::Result> {
    let flags = if any {
        vk::SemaphoreWaitFlags::ANY
    } else {
        vk::SemaphoreWaitFlags::empty()
    };
    let info = vk::SemaphoreWaitInfo::default()
        .flags(flags)
        .semaphores(sems)
        .values(values);
    // SAFETY: live semaphores.
    unsafe { t.wait_semaphores(&info, timeout_ns) }
}

#[test]
fn host_signals_and_waits() {
    let gpu = gpu();
    let d = &gpu.device;
    let t = ash::khr::timeline_semaphore::Device::new(&gpu.instance, d);
    let a = timeline(d, 5);
    let b = timeline(d, 0);
    assert_eq!(value(&t, a), 5);
    assert_eq!(wait(&t, &[a], &[5], false, 0), Ok(()));
    assert_eq!(
        wait(&t, &[a], &[6], false, 1_000_000),
        Err(vk::Result::TIMEOUT)
    );
    // SAFETY: live semaphore, increasing value.
    unsafe { t.signal_semaphore(&vk::SemaphoreSignalInfo::default().semaphore(a).value(7)) }
        .unwrap();
    assert_eq!(value(&t, a), 7);
    // Any: a is there, b is not; all: not both.
    assert_eq!(wait(&t, &[a, b], &[7, 1], true, 0), Ok(()));
    assert_eq!(
        wait(&t, &[a, b], &[7, 1], false, 0),
        Err(vk::Result::TIMEOUT)
    );
    // A wait on another thread ends when the host signals.
    std::thread::scope(|s| {
        let waiter = s.spawn(|| wait(&t, &[b], &[3], false, 5_000_000_000));
        std::thread::sleep(Duration::from_millis(30));
        // SAFETY: live semaphore.
        unsafe { t.signal_semaphore(&vk::SemaphoreSignalInfo::default().semaphore(b).value(3)) }
            .unwrap();
        assert_eq!(waiter.join().unwrap(), Ok(()));
    });
    // SAFETY: idle.
    unsafe {
        d.destroy_semaphore(a, None);
        d.destroy_semaphore(b, None);
    }
}

#[test]
fn queue_signals_and_waits() {
    let gpu = gpu();
    let d = &gpu.device;
    let t = ash::khr::timeline_semaphore::Device::new(&gpu.instance, d);
    let pool = gpu.command_pool();
    let usage = vk::BufferUsageFlags::TRANSFER_DST;
    let x = Buf::new(d, 256, usage);
    let y = Buf::new(d, 256, usage);
    let sem = timeline(d, 1);
    let other = timeline(d, 0);
    let binary =
        // SAFETY: valid create info.
        unsafe { d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }.unwrap();
    let fill_x = fill(&gpu, pool, &x, 0x1111_1111);
    let fill_y = fill(&gpu, pool, &y, 0x2222_2222);

    // A queue signal: the value is reached once the fill has run.
    submit(&gpu, &[fill_x], &[], &[(sem, 10)]);
    assert_eq!(wait(&t, &[sem], &[10], false, 5_000_000_000), Ok(()));
    assert!(x.bytes().iter().all(|&b| b == 0x11));
    assert!(value(&t, sem) >= 10);

    // Wait-before-signal: the fill of y waits for 20, which only the host
    // gives later; until then y stays untouched and the value stays below.
    y.bytes().fill(0);
    submit(&gpu, &[fill_y], &[(sem, 20)], &[(sem, 21), (other, 4)]);
    std::thread::sleep(Duration::from_millis(50));
    assert!(y.bytes().iter().all(|&b| b == 0), "ran before its wait");
    assert!(value(&t, sem) < 20);
    // Later submissions queue behind the wait.
    x.bytes().fill(0);
    submit(&gpu, &[fill_x], &[], &[(sem, 22)]);
    std::thread::sleep(Duration::from_millis(20));
    assert!(
        x.bytes().iter().all(|&b| b == 0),
        "ran before an earlier wait"
    );
    // SAFETY: live semaphore.
    unsafe { t.signal_semaphore(&vk::SemaphoreSignalInfo::default().semaphore(sem).value(20)) }
        .unwrap();
    assert_eq!(
        wait(&t, &[sem, other], &[22, 4], false, 5_000_000_000),
        Ok(())
    );
    assert!(y.bytes().iter().all(|&b| b == 0x22));
    assert!(x.bytes().iter().all(|&b| b == 0x11));
    assert_eq!(value(&t, other), 4);

    // A chain with a binary semaphore in the middle, and a batch without
    // command buffers that only waits and signals.
    y.bytes().fill(0);
    let mut infos = Vec::new();
    let (w1, s1) = ([sem], [23u64]);
    let mut v1 = vk::TimelineSemaphoreSubmitInfo::default().signal_semaphore_values(&s1);
    infos.push(
        vk::SubmitInfo::default()
            .command_buffers(std::slice::from_ref(&fill_x))
            .signal_semaphores(&w1)
            .push_next(&mut v1),
    );
    let stage = [vk::PipelineStageFlags::ALL_COMMANDS];
    let (w2, wv2, s2) = ([sem], [23u64], [binary]);
    let mut v2 = vk::TimelineSemaphoreSubmitInfo::default()
        .wait_semaphore_values(&wv2)
        .signal_semaphore_values(&[0]);
    infos.push(
        vk::SubmitInfo::default()
            .wait_semaphores(&w2)
            .wait_dst_stage_mask(&stage)
            .signal_semaphores(&s2)
            .push_next(&mut v2),
    );
    let (w3, s3, sv3) = ([binary], [sem], [30u64]);
    let mut v3 = vk::TimelineSemaphoreSubmitInfo::default()
        .wait_semaphore_values(&[0])
        .signal_semaphore_values(&sv3);
    infos.push(
        vk::SubmitInfo::default()
            .command_buffers(std::slice::from_ref(&fill_y))
            .wait_semaphores(&w3)
            .wait_dst_stage_mask(&stage)
            .signal_semaphores(&s3)
            .push_next(&mut v3),
    );
    // SAFETY: valid handles.
    unsafe { d.queue_submit(gpu.queue, &infos, vk::Fence::null()) }.unwrap();
    assert_eq!(wait(&t, &[sem], &[30], false, 5_000_000_000), Ok(()));
    assert!(y.bytes().iter().all(|&b| b == 0x22));
    assert_eq!(value(&t, sem), 30);

    // SAFETY: idle after the waits.
    unsafe {
        d.queue_wait_idle(gpu.queue).unwrap();
        d.destroy_semaphore(sem, None);
        d.destroy_semaphore(other, None);
        d.destroy_semaphore(binary, None);
        d.destroy_command_pool(pool, None);
    }
    x.destroy(d);
    y.destroy(d);
}
