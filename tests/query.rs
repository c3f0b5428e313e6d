//! Timestamp queries: WRITE_VALUE jobs of the system-timestamp kind, and
//! host resets (VK_EXT_host_query_reset).

mod common;

use ash::vk;
use common::*;

#[test]
fn timestamps_increase_across_two_submits() {
    let gpu = Gpu::new();
    let d = &gpu.device;
    // SAFETY: valid handles throughout; objects destroyed after the GPU is idle.
    unsafe {
        let period = gpu
            .instance
            .get_physical_device_properties(gpu.physical_device)
            .limits
            .timestamp_period;
        assert!(period > 0.0);
        let qp = objects::query_pool(d, vk::QueryType::TIMESTAMP, 4);
        // Never written: not ready, availability 0.
        let mut early = [[7u64; 2]; 1];
        assert_eq!(
            d.get_query_pool_results(
                qp,
                0,
                &mut early,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY
            ),
            Err(vk::Result::NOT_READY)
        );
        assert_eq!(early[0], [7, 0], "value untouched, availability 0");

        let pool = gpu.command_pool();
        let cbs = [gpu.command_buffer(pool), gpu.command_buffer(pool)];
        for (i, &cb) in cbs.iter().enumerate() {
            let q = 2 * i as u32;
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_reset_query_pool(cb, qp, q, 2);
            d.cmd_write_timestamp(cb, vk::PipelineStageFlags::TOP_OF_PIPE, qp, q);
            d.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, qp, q + 1);
            d.end_command_buffer(cb).unwrap();
        }
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        d.queue_submit(
            gpu.queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs[..1])],
            fence,
        )
        .unwrap();
        d.wait_for_fences(&[fence], true, 5_000_000_000).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
        d.reset_fences(&[fence]).unwrap();
        d.queue_submit(
            gpu.queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs[1..])],
            fence,
        )
        .unwrap();

        let mut ts = [0u64; 4];
        d.get_query_pool_results(
            qp,
            0,
            &mut ts,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
        )
        .unwrap();
        assert!(ts[0] > 0);
        assert!(ts[0] <= ts[1] && ts[1] < ts[2] && ts[2] <= ts[3], "{ts:?}");
        // Two milliseconds apart, in ticks of `period` nanoseconds.
        let gap_ns = (ts[2] - ts[1]) as f64 * f64::from(period);
        assert!(gap_ns >= 1.5e6, "gap {gap_ns} ns");

        d.wait_for_fences(&[fence], true, 5_000_000_000).unwrap();
        let mut with_avail = [[0u32; 2]; 4];
        d.get_query_pool_results(
            qp,
            0,
            &mut with_avail,
            vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .unwrap();
        for (i, r) in with_avail.iter().enumerate() {
            assert_eq!(r[0], ts[i] as u32, "32-bit results are truncated");
            assert_eq!(r[1], 1);
        }

        // Re-submitting a command buffer resets and rewrites its queries.
        d.reset_fences(&[fence]).unwrap();
        d.queue_submit(
            gpu.queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs[..1])],
            fence,
        )
        .unwrap();
        d.wait_for_fences(&[fence], true, 5_000_000_000).unwrap();
        let mut again = [0u64; 2];
        d.get_query_pool_results(qp, 0, &mut again, vk::QueryResultFlags::TYPE_64)
            .unwrap();
        assert!(again[0] > ts[3]);

        d.destroy_fence(fence, None);
        d.destroy_command_pool(pool, None);
        d.destroy_query_pool(qp, None);
    }
}

#[test]
fn only_timestamp_queries_exist() {
    let gpu = Gpu::new();
    let info = vk::QueryPoolCreateInfo::default()
        .query_type(vk::QueryType::OCCLUSION)
        .query_count(1);
    // SAFETY: valid handles.
    let r = unsafe { gpu.device.create_query_pool(&info, None) };
    assert!(r.is_err());
}

/// VK_EXT_host_query_reset: `hostQueryReset` is reported, and
/// vkResetQueryPool on the host makes exactly the named queries unavailable
/// again; a later submit that writes them (without a GPU reset) makes them
/// available with new values.
#[test]
fn host_reset_makes_queries_unavailable_again() {
    let gpu = Gpu::with_extensions(&[c"VK_EXT_host_query_reset"]);
    let d = &gpu.device;
    let hqr = ash::ext::host_query_reset::Device::new(&gpu.instance, d);
    // SAFETY: a valid device and pool; the queries are not in use on the GPU.
    let host_reset = |qp: vk::QueryPool, first: u32, count: u32| unsafe {
        (hqr.fp().reset_query_pool_ext)(d.handle(), qp, first, count)
    };
    let mut reset_features = vk::PhysicalDeviceHostQueryResetFeatures::default();
    let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut reset_features);
    // SAFETY: valid handles throughout; objects destroyed after the GPU is idle.
    unsafe {
        gpu.instance
            .get_physical_device_features2(gpu.physical_device, &mut features);
        assert_eq!(reset_features.host_query_reset, vk::TRUE);

        let qp = objects::query_pool(d, vk::QueryType::TIMESTAMP, 4);
        // Host reset before first use, instead of vkCmdResetQueryPool.
        host_reset(qp, 0, 4);
        let pool = gpu.command_pool();
        let all = gpu.command_buffer(pool);
        let middle = gpu.command_buffer(pool);
        d.begin_command_buffer(all, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        for q in 0..4 {
            d.cmd_write_timestamp(all, vk::PipelineStageFlags::BOTTOM_OF_PIPE, qp, q);
        }
        d.end_command_buffer(all).unwrap();
        d.begin_command_buffer(middle, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        for q in 1..3 {
            d.cmd_write_timestamp(middle, vk::PipelineStageFlags::BOTTOM_OF_PIPE, qp, q);
        }
        d.end_command_buffer(middle).unwrap();
        let run = |cb: vk::CommandBuffer| gpu.submit_and_wait(&[cb]);
        let read = || {
            let mut r = [[0u64; 2]; 4];
            let status = d.get_query_pool_results(
                qp,
                0,
                &mut r,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
            );
            (status, r)
        };

        run(all);
        let (status, first) = read();
        assert_eq!(status, Ok(()));
        assert!(first.iter().all(|q| q[1] == 1 && q[0] > 0), "{first:?}");

        host_reset(qp, 1, 2);
        let (status, after) = read();
        assert_eq!(status, Err(vk::Result::NOT_READY));
        assert_eq!(after[0], first[0], "query 0 untouched");
        assert_eq!(after[3], first[3], "query 3 untouched");
        assert_eq!((after[1][1], after[2][1]), (0, 0), "1 and 2 unavailable");

        run(middle);
        let (status, again) = read();
        assert_eq!(status, Ok(()));
        assert_eq!(again[0], first[0]);
        assert_eq!(again[3], first[3]);
        for q in 1..3 {
            assert_eq!(again[q][1], 1);
            assert!(again[q][0] >= first[3][0], "rewritten later: {again:?}");
        }

        d.destroy_command_pool(pool, None);
        d.destroy_query_pool(qp, None);
    }
}

/// A host reset of a range past the pool's end (invalid usage) is logged
/// and changes nothing. Skipped under the validation layer
/// (`scripts/validation.sh`), which rightly reports it.
#[test]
fn host_reset_past_the_end_is_ignored() {
    let gpu = Gpu::with_extensions(&[c"VK_EXT_host_query_reset"]);
    let d = &gpu.device;
    let hqr = ash::ext::host_query_reset::Device::new(&gpu.instance, d);
    // SAFETY: valid handles; the pool is idle.
    unsafe {
        let qp = objects::query_pool(d, vk::QueryType::TIMESTAMP, 4);
        (hqr.fp().reset_query_pool_ext)(d.handle(), qp, 0, 4);
        let pool = gpu.command_pool();
        let cb = gpu.command_buffer(pool);
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, qp, 3);
        d.end_command_buffer(cb).unwrap();
        gpu.submit_and_wait(&[cb]);
        let mut before = [[0u64; 2]; 1];
        d.get_query_pool_results(
            qp,
            3,
            &mut before,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .unwrap();
        assert_eq!(before[0][1], 1);
        (hqr.fp().reset_query_pool_ext)(d.handle(), qp, 3, 5);
        let mut after = [[0u64; 2]; 1];
        d.get_query_pool_results(
            qp,
            3,
            &mut after,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .unwrap();
        assert_eq!(after, before);
        d.destroy_command_pool(pool, None);
        d.destroy_query_pool(qp, None);
    }
}
