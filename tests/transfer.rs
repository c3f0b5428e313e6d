//! vkCmdCopyBuffer, vkCmdFillBuffer, vkCmdUpdateBuffer and
//! vkCmdCopyQueryPoolResults through the loader: GPU kernels, checked
//! byte for byte against what the spec's definitions of the commands give,
//! with canary bytes around every destination range.

mod common;

use ash::vk;
use common::*;

const CANARY: u8 = 0x5A;
const TRANSFER: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::TRANSFER_SRC.as_raw() | vk::BufferUsageFlags::TRANSFER_DST.as_raw(),
);

fn run(gpu: &Gpu, record: impl FnOnce(vk::CommandBuffer)) {
    let d = &gpu.device;
    let pool = gpu.command_pool();
    let cb = gpu.command_buffer(pool);
    // SAFETY: valid handles.
    unsafe {
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        record(cb);
        d.end_command_buffer(cb).unwrap();
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        d.queue_submit(
            gpu.queue,
            &[vk::SubmitInfo::default().command_buffers(&[cb])],
            fence,
        )
        .unwrap();
        d.wait_for_fences(&[fence], true, 10_000_000_000).unwrap();
        d.destroy_fence(fence, None);
        d.destroy_command_pool(pool, None);
    }
}

#[test]
fn copies_fills_and_updates() {
    for model in ["g52", "g72"] {
        let gpu = Gpu::with_xfb(model);
        let d = &gpu.device;
        let src = Buf::new(d, 4096, TRANSFER);
        let dst = Buf::new(d, 4096, TRANSFER);
        for (i, b) in src.bytes().iter_mut().enumerate() {
            *b = (i * 7 + i / 256) as u8;
        }
        dst.bytes().fill(CANARY);
        // Misaligned and aligned regions, one of them a single byte.
        let regions = [
            vk::BufferCopy {
                src_offset: 3,
                dst_offset: 10,
                size: 333,
            },
            vk::BufferCopy {
                src_offset: 1024,
                dst_offset: 1024,
                size: 1024,
            },
            vk::BufferCopy {
                src_offset: 7,
                dst_offset: 3001,
                size: 1,
            },
        ];
        let update: Vec<u8> = (0..100u8).map(|i| i.wrapping_mul(13)).collect();
        run(&gpu, |cb| unsafe {
            d.cmd_copy_buffer(cb, src.buffer, dst.buffer, &regions);
            d.cmd_fill_buffer(cb, dst.buffer, 2100, 400, 0xDEAD_BEEF);
            d.cmd_update_buffer(cb, dst.buffer, 2600, &update);
        });
        let mut want = vec![CANARY; 4096];
        for r in &regions {
            let (s, t, n) = (
                r.src_offset as usize,
                r.dst_offset as usize,
                r.size as usize,
            );
            want[t..t + n].copy_from_slice(&src.bytes()[s..s + n]);
        }
        for w in 0..100 {
            want[2100 + 4 * w..2104 + 4 * w].copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
        }
        want[2600..2700].copy_from_slice(&update);
        assert_eq!(dst.bytes(), &want[..], "{model}");
        // VK_WHOLE_SIZE fills to the end in whole words.
        run(&gpu, |cb| unsafe {
            d.cmd_fill_buffer(cb, dst.buffer, 4000, vk::WHOLE_SIZE, 0x0102_0304);
        });
        for w in 0..24 {
            want[4000 + 4 * w..4004 + 4 * w].copy_from_slice(&0x0102_0304u32.to_le_bytes());
        }
        assert_eq!(dst.bytes(), &want[..], "{model}: whole-size fill");
        src.destroy(d);
        dst.destroy(d);
    }
}

/// Timestamps copied on the GPU: 64- and 32-bit, availability, an
/// unavailable query skipped unless PARTIAL.
#[test]
fn query_results_copied_on_the_gpu() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    // SAFETY: valid handles and create infos.
    unsafe {
        let qp = d
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(3),
                None,
            )
            .unwrap();
        let dst = Buf::new(d, 256, TRANSFER);
        dst.bytes().fill(CANARY);
        use vk::QueryResultFlags as F;
        run(&gpu, |cb| {
            d.cmd_reset_query_pool(cb, qp, 0, 3);
            d.cmd_write_timestamp(cb, vk::PipelineStageFlags::TOP_OF_PIPE, qp, 0);
            d.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, qp, 1);
            // Query 2 stays unavailable.
            d.cmd_copy_query_pool_results(
                cb,
                qp,
                0,
                3,
                dst.buffer,
                0,
                24,
                F::TYPE_64 | F::WITH_AVAILABILITY,
            );
            d.cmd_copy_query_pool_results(cb, qp, 0, 3, dst.buffer, 96, 8, F::WITH_AVAILABILITY);
        });
        let mut host = [[0u64; 2]; 2];
        d.get_query_pool_results(qp, 0, &mut host, F::TYPE_64 | F::WITH_AVAILABILITY)
            .unwrap();
        let b = dst.bytes();
        let u64_at = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
        let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
        for (q, [value, _]) in host.iter().enumerate() {
            assert_eq!(u64_at(24 * q), *value, "query {q} value");
            assert_eq!(u64_at(24 * q + 8), 1, "query {q} available");
            assert_eq!(u32_at(96 + 8 * q), *value as u32, "32-bit value");
            assert_eq!(u32_at(96 + 8 * q + 4), 1);
        }
        assert!(host[1][0] >= host[0][0]);
        // The unavailable query: no value written, availability 0.
        assert_eq!(&b[48..56], &[CANARY; 8], "no value without PARTIAL");
        assert_eq!(u64_at(56), 0);
        assert_eq!(&b[112..116], &[CANARY; 4]);
        assert_eq!(u32_at(116), 0);
        // Gaps of the stride and the tail untouched.
        assert_eq!(&b[64..96], &[CANARY; 32]);
        assert!(b[120..].iter().all(|&x| x == CANARY));
        dst.destroy(d);
        d.destroy_query_pool(qp, None);
    }
}
