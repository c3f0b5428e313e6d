//! Secondary command buffers through the Khronos loader, on the simulated
//! G52 and G72: vkCmdExecuteCommands outside and inside a render pass
//! (RENDER_PASS_CONTINUE with inheritance info), the order of primary and
//! secondary commands, a secondary executed twice in one primary and in two
//! primaries of one submit (SIMULTANEOUS_USE), re-submission with new
//! buffer contents, re-recording, ONE_TIME_SUBMIT, a compute dispatch in a
//! secondary, and transform feedback begun and ended inside secondaries
//! that continue a render pass (resumed across them through the counter
//! buffers). Every check is on buffer bytes the commands' definitions give
//! (vkCmdFillBuffer, vkCmdCopyBuffer, vkCmdUpdateBuffer, the fill shader
//! `out[i] = i × k + in[i] + base`, the spec's capture order), with canaries
//! around them.

mod common;
#[path = "support/fill_compute.rs"]
mod fill_compute;
#[path = "support/xfb_device.rs"]
mod xfb_device;

use ash::vk;
use common::*;
use fill_compute::FillCompute;
use xfb_device::{OFFSET, SCALE, STRIDE, Setup, a_inst, a_pos};

const CANARY: u8 = 0x5A;
const USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::TRANSFER_SRC.as_raw()
        | vk::BufferUsageFlags::TRANSFER_DST.as_raw()
        | vk::BufferUsageFlags::STORAGE_BUFFER.as_raw(),
);

fn secondary(gpu: &Gpu, pool: vk::CommandPool) -> vk::CommandBuffer {
    let info = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::SECONDARY)
        .command_buffer_count(1);
    // SAFETY: valid pool.
    unsafe { gpu.device.allocate_command_buffers(&info) }.unwrap()[0]
}

/// Begin a secondary used outside render passes.
fn begin_secondary(d: &ash::Device, cb: vk::CommandBuffer, flags: vk::CommandBufferUsageFlags) {
    let inheritance = vk::CommandBufferInheritanceInfo::default();
    // SAFETY: valid command buffer.
    unsafe {
        d.begin_command_buffer(
            cb,
            &vk::CommandBufferBeginInfo::default()
                .flags(flags)
                .inheritance_info(&inheritance),
        )
    }
    .unwrap();
}

fn begin(d: &ash::Device, cb: vk::CommandBuffer, flags: vk::CommandBufferUsageFlags) {
    // SAFETY: valid command buffer.
    unsafe { d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default().flags(flags)) }
        .unwrap();
}

fn end(d: &ash::Device, cb: vk::CommandBuffer) {
    // SAFETY: valid command buffer in the recording state.
    unsafe { d.end_command_buffer(cb) }.unwrap();
}

/// A barrier between transfers (transfer writes → transfer reads/writes).
fn transfer_barrier(d: &ash::Device, cb: vk::CommandBuffer) {
    let m = [vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::TRANSFER_WRITE)];
    // SAFETY: valid command buffer, recording.
    unsafe {
        d.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &m,
            &[],
            &[],
        )
    };
}

fn submit_wait(gpu: &Gpu, cbs: &[vk::CommandBuffer]) {
    let d = &gpu.device;
    // SAFETY: valid handles; the command buffers are executable.
    unsafe {
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        d.queue_submit(
            gpu.queue,
            &[vk::SubmitInfo::default().command_buffers(cbs)],
            fence,
        )
        .unwrap();
        d.wait_for_fences(&[fence], true, 10_000_000_000).unwrap();
        d.destroy_fence(fence, None);
    }
}

fn words(v: u32, n: usize) -> Vec<u8> {
    v.to_le_bytes().repeat(n)
}

/// Primary and secondary commands interleave in recording order: each later
/// fill overwrites part of an earlier one, so the bytes show the order.
#[test]
fn secondaries_run_in_recording_order() {
    for model in ["g52", "g72"] {
        let gpu = Gpu::with_xfb(model);
        let d = &gpu.device;
        let dst = Buf::new(d, 1024, USAGE);
        let src = Buf::new(d, 1024, USAGE);
        dst.bytes().fill(CANARY);
        for (i, b) in src.bytes().iter_mut().enumerate() {
            *b = (i * 7 + 3) as u8;
        }
        let pool = gpu.command_pool();
        let (s1, s2) = (secondary(&gpu, pool), secondary(&gpu, pool));
        let primary = gpu.command_buffer(pool);
        let update: Vec<u8> = (0..32u8).map(|i| i ^ 0xA0).collect();
        // SAFETY: valid handles throughout.
        unsafe {
            begin_secondary(d, s1, vk::CommandBufferUsageFlags::empty());
            d.cmd_fill_buffer(s1, dst.buffer, 0, 256, 0x2222_2222);
            transfer_barrier(d, s1);
            d.cmd_copy_buffer(
                s1,
                src.buffer,
                dst.buffer,
                &[vk::BufferCopy {
                    src_offset: 5,
                    dst_offset: 100,
                    size: 50,
                }],
            );
            end(d, s1);
            begin_secondary(d, s2, vk::CommandBufferUsageFlags::empty());
            d.cmd_update_buffer(s2, dst.buffer, 200, &update);
            end(d, s2);

            begin(d, primary, vk::CommandBufferUsageFlags::empty());
            d.cmd_fill_buffer(primary, dst.buffer, 0, 512, 0x1111_1111);
            transfer_barrier(d, primary);
            d.cmd_execute_commands(primary, &[s1, s2]);
            transfer_barrier(d, primary);
            d.cmd_fill_buffer(primary, dst.buffer, 240, 16, 0x3333_3333);
            end(d, primary);
        }
        submit_wait(&gpu, &[primary]);
        let mut want = vec![CANARY; 1024];
        want[..512].copy_from_slice(&words(0x1111_1111, 128));
        want[..256].copy_from_slice(&words(0x2222_2222, 64));
        want[100..150].copy_from_slice(&src.bytes()[5..55]);
        want[200..232].copy_from_slice(&update);
        want[240..256].copy_from_slice(&words(0x3333_3333, 4));
        assert_eq!(dst.bytes(), &want[..], "{model}");
        // SAFETY: idle.
        unsafe { d.destroy_command_pool(pool, None) };
        dst.destroy(d);
        src.destroy(d);
    }
}

/// A SIMULTANEOUS_USE secondary copying `src` → `dst`, executed twice in
/// one primary (with `src` refilled in between) and once more in a second
/// primary of the same submit: each execution sees what came before it.
#[test]
fn a_secondary_executed_twice_and_in_two_primaries() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let src = Buf::new(d, 256, USAGE);
    let dst = Buf::new(d, 256, USAGE);
    let seen = [Buf::new(d, 256, USAGE), Buf::new(d, 256, USAGE)];
    src.write(0, &[0xAAAA_AAAAu32; 64]);
    dst.bytes().fill(CANARY);
    for s in &seen {
        s.bytes().fill(CANARY);
    }
    let pool = gpu.command_pool();
    let s = secondary(&gpu, pool);
    let (p1, p2) = (gpu.command_buffer(pool), gpu.command_buffer(pool));
    let copy = |cb, from: &Buf, to: &Buf| {
        // SAFETY: valid handles, recording.
        unsafe {
            d.cmd_copy_buffer(
                cb,
                from.buffer,
                to.buffer,
                &[vk::BufferCopy {
                    src_offset: 0,
                    dst_offset: 0,
                    size: 256,
                }],
            )
        }
    };
    // SAFETY: valid handles throughout.
    unsafe {
        begin_secondary(d, s, vk::CommandBufferUsageFlags::SIMULTANEOUS_USE);
        copy(s, &src, &dst);
        end(d, s);
        begin(d, p1, vk::CommandBufferUsageFlags::SIMULTANEOUS_USE);
        d.cmd_execute_commands(p1, &[s]);
        transfer_barrier(d, p1);
        copy(p1, &dst, &seen[0]);
        d.cmd_fill_buffer(p1, src.buffer, 0, 128, 0xBBBB_BBBB);
        transfer_barrier(d, p1);
        d.cmd_execute_commands(p1, &[s]);
        end(d, p1);
        begin(d, p2, vk::CommandBufferUsageFlags::empty());
        d.cmd_fill_buffer(p2, src.buffer, 128, 128, 0xCCCC_CCCC);
        transfer_barrier(d, p2);
        d.cmd_execute_commands(p2, &[s]);
        transfer_barrier(d, p2);
        copy(p2, &dst, &seen[1]);
        end(d, p2);
    }
    submit_wait(&gpu, &[p1, p2]);
    assert_eq!(seen[0].bytes(), &words(0xAAAA_AAAA, 64)[..], "first run");
    let mut want = words(0xBBBB_BBBB, 32);
    want.extend(words(0xCCCC_CCCC, 32));
    assert_eq!(
        seen[1].bytes(),
        &want[..],
        "third run, in the second primary"
    );
    assert_eq!(dst.bytes(), &want[..]);

    // Submitted again: the same chains run again on the current contents.
    src.write(0, &[0x1234_5678u32; 64]);
    seen[0].bytes().fill(CANARY);
    submit_wait(&gpu, &[p1]);
    assert_eq!(seen[0].bytes(), &words(0x1234_5678, 64)[..], "re-submitted");
    let mut want = words(0xBBBB_BBBB, 32);
    want.extend(words(0x1234_5678, 32));
    assert_eq!(dst.bytes(), &want[..], "re-submitted, second execution");
    // SAFETY: idle.
    unsafe { d.destroy_command_pool(pool, None) };
    for b in [&src, &dst, &seen[0], &seen[1]] {
        b.destroy(d);
    }
}

/// Re-recording a secondary (and the primary that executes it, as the spec
/// requires) runs the new commands; ONE_TIME_SUBMIT primaries run once per
/// recording; BO count and bytes stay flat over many rounds.
#[test]
fn re_recording_and_one_time_submit() {
    let gpu = Gpu::with_xfb("g72");
    let d = &gpu.device;
    let dst = Buf::new(d, 64, USAGE);
    let pool = gpu.command_pool();
    let s = secondary(&gpu, pool);
    let p = gpu.command_buffer(pool);
    let mut baseline = None;
    for round in 0..40u32 {
        // SAFETY: valid handles; the GPU is idle between rounds.
        unsafe {
            begin_secondary(d, s, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            d.cmd_fill_buffer(s, dst.buffer, 0, 64, round * 3 + 1);
            end(d, s);
            begin(d, p, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            d.cmd_execute_commands(p, &[s]);
            end(d, p);
        }
        submit_wait(&gpu, &[p]);
        assert_eq!(dst.bytes(), &words(round * 3 + 1, 16)[..], "round {round}");
        if round == 2 {
            baseline = Some(gpu.bo_stats());
        } else if round > 2 {
            assert_eq!(Some(gpu.bo_stats()), baseline, "round {round}: BOs grew");
        }
    }
    // SAFETY: idle.
    unsafe { d.destroy_command_pool(pool, None) };
    dst.destroy(d);
}

/// A compute dispatch recorded in a secondary, with its own bindings (a
/// secondary inherits no state), executed by a primary.
#[test]
fn a_dispatch_in_a_secondary() {
    for model in ["g52", "g72"] {
        let gpu = Gpu::with_xfb(model);
        let d = &gpu.device;
        let f = FillCompute::new(
            d,
            vk::DescriptorType::UNIFORM_BUFFER,
            vk::DescriptorPoolCreateFlags::empty(),
        );
        const N: u32 = 32;
        let src = Buf::new(d, 4 * u64::from(N), USAGE);
        let dst = Buf::new(d, 4 * u64::from(N) + 64, USAGE);
        let ubo = Buf::new(d, 256, vk::BufferUsageFlags::UNIFORM_BUFFER);
        src.write(0, &(0..N).map(|i| 100 * i).collect::<Vec<u32>>());
        dst.bytes().fill(CANARY);
        ubo.write(0, &[3u32]);
        let buf_info = |b: &Buf, range| {
            [vk::DescriptorBufferInfo {
                buffer: b.buffer,
                offset: 0,
                range,
            }]
        };
        let (si, di, ui) = (
            buf_info(&src, vk::WHOLE_SIZE),
            buf_info(&dst, 4 * u64::from(N)),
            buf_info(&ubo, 16),
        );
        let pool = gpu.command_pool();
        let s = secondary(&gpu, pool);
        let p = gpu.command_buffer(pool);
        // SAFETY: valid handles throughout.
        unsafe {
            d.update_descriptor_sets(
                &[
                    vk::WriteDescriptorSet::default()
                        .dst_set(f.sets[0])
                        .dst_binding(0)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(&si),
                    vk::WriteDescriptorSet::default()
                        .dst_set(f.sets[0])
                        .dst_binding(1)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(&di),
                    vk::WriteDescriptorSet::default()
                        .dst_set(f.sets[1])
                        .dst_binding(0)
                        .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                        .buffer_info(&ui),
                ],
                &[],
            );
            begin_secondary(d, s, vk::CommandBufferUsageFlags::empty());
            d.cmd_bind_pipeline(s, vk::PipelineBindPoint::COMPUTE, f.pipeline);
            d.cmd_bind_descriptor_sets(
                s,
                vk::PipelineBindPoint::COMPUTE,
                f.layout,
                0,
                &f.sets,
                &[],
            );
            d.cmd_push_constants(
                s,
                f.layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &9u32.to_le_bytes(),
            );
            d.cmd_dispatch(s, N / 8, 1, 1);
            end(d, s);
            begin(d, p, vk::CommandBufferUsageFlags::empty());
            d.cmd_execute_commands(p, &[s]);
            end(d, p);
        }
        submit_wait(&gpu, &[p]);
        for i in 0..N {
            assert_eq!(
                dst.u32_at(4 * i as usize),
                i * 3 + 100 * i + 9,
                "{model}: {i}"
            );
        }
        assert!(dst.bytes()[4 * N as usize..].iter().all(|&b| b == CANARY));
        // SAFETY: idle.
        unsafe { d.destroy_command_pool(pool, None) };
        f.destroy(d);
        for b in [&src, &dst, &ubo] {
            b.destroy(d);
        }
    }
}

/// Misuse that the spec leaves undefined must not crash or touch freed
/// memory: a primary submitted after the secondary it executed was freed
/// (the primary is invalid, so the result is not checked), a secondary
/// submitted directly (refused), and a primary executed as a secondary
/// (skipped). Not run under the validation layer (scripts/validation.sh).
#[test]
fn invalid_secondary_use_is_survived() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let dst = Buf::new(d, 64, USAGE);
    let pool = gpu.command_pool();
    let s = secondary(&gpu, pool);
    let p = gpu.command_buffer(pool);
    let other = gpu.command_buffer(pool);
    // SAFETY: valid handles; the misuse is the point of the test.
    unsafe {
        begin_secondary(d, s, vk::CommandBufferUsageFlags::empty());
        d.cmd_fill_buffer(s, dst.buffer, 0, 64, 0x0707_0707);
        end(d, s);
        begin(d, other, vk::CommandBufferUsageFlags::empty());
        end(d, other);
        begin(d, p, vk::CommandBufferUsageFlags::empty());
        d.cmd_execute_commands(p, &[s, other]);
        end(d, p);
        assert_eq!(
            d.queue_submit(
                gpu.queue,
                &[vk::SubmitInfo::default().command_buffers(&[s])],
                vk::Fence::null()
            ),
            Err(vk::Result::ERROR_INITIALIZATION_FAILED),
            "a secondary cannot be submitted"
        );
        d.free_command_buffers(pool, &[s]);
        submit_wait(&gpu, &[p]);
        // The primary kept the freed secondary's chain alive: it still ran.
        assert_eq!(dst.bytes(), &words(0x0707_0707, 16)[..]);
        d.destroy_command_pool(pool, None);
    }
    dst.destroy(d);
}

/// Transform feedback begun, drawn and ended inside secondaries that
/// continue a render pass (RENDER_PASS_CONTINUE with inheritance info): the
/// first captures a triangle list and saves the counters, the second
/// resumes from them in a second render pass instance. The records are the
/// spec's (vertices in order, buffer 0: position × scale + offset and the
/// vertex/instance indices at a 32-byte stride, buffer 1: the instance
/// value at offset 4 of an 8-byte stride), the untouched bytes keep the
/// canary, and the counters hold the byte offsets.
#[test]
fn transform_feedback_inside_secondaries() {
    for model in ["g52", "g72"] {
        let gpu = Gpu::with_xfb(model);
        let d = &gpu.device;
        let xfb = ash::ext::transform_feedback::Device::new(&gpu.instance, d);
        let fp = xfb.fp();
        let s = Setup::new(&gpu);
        let pipeline = s.pipeline(d, vk::PrimitiveTopology::TRIANGLE_LIST);
        const CANARY_XFB: u8 = 0xC5;
        let bufs = [
            Buf::new(d, 1024, vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT),
            Buf::new(d, 256, vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT),
        ];
        for b in &bufs {
            b.bytes().fill(CANARY_XFB);
        }
        let counters = Buf::new(
            d,
            64,
            vk::BufferUsageFlags::TRANSFORM_FEEDBACK_COUNTER_BUFFER_EXT,
        );
        counters.bytes().fill(0xEE);
        let pool = gpu.command_pool();
        let inheritance = vk::CommandBufferInheritanceInfo::default()
            .render_pass(s.render_pass)
            .subpass(0)
            .framebuffer(s.framebuffer);
        // (first vertex, vertex count, resume) of each secondary.
        let parts = [(0u32, 6u32, false), (6, 3, true)];
        let mut secondaries = Vec::new();
        // SAFETY: valid handles throughout.
        unsafe {
            for &(first, count, resume) in &parts {
                let sc = secondary(&gpu, pool);
                d.begin_command_buffer(
                    sc,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE)
                        .inheritance_info(&inheritance),
                )
                .unwrap();
                d.cmd_bind_pipeline(sc, vk::PipelineBindPoint::GRAPHICS, pipeline);
                let viewport = vk::Viewport {
                    width: 64.0,
                    height: 64.0,
                    max_depth: 1.0,
                    ..Default::default()
                };
                d.cmd_set_viewport(sc, 0, &[viewport]);
                d.cmd_set_scissor(
                    sc,
                    0,
                    &[vk::Rect2D {
                        offset: vk::Offset2D::default(),
                        extent: vk::Extent2D {
                            width: 64,
                            height: 64,
                        },
                    }],
                );
                d.cmd_bind_descriptor_sets(
                    sc,
                    vk::PipelineBindPoint::GRAPHICS,
                    s.layout,
                    0,
                    &[s.set],
                    &[],
                );
                d.cmd_push_constants(
                    sc,
                    s.layout,
                    vk::ShaderStageFlags::VERTEX,
                    0,
                    &SCALE.to_le_bytes(),
                );
                d.cmd_bind_vertex_buffers(sc, 0, &[s.vertices.buffer], &[4]);
                d.cmd_bind_vertex_buffers(sc, 3, &[s.instances.buffer], &[0]);
                let b = [bufs[0].buffer, bufs[1].buffer];
                let offsets = [0u64, 0];
                (fp.cmd_bind_transform_feedback_buffers_ext)(
                    sc,
                    0,
                    2,
                    b.as_ptr(),
                    offsets.as_ptr(),
                    std::ptr::null(),
                );
                let cbufs = [counters.buffer, counters.buffer];
                let coffs = [0u64, 8];
                if resume {
                    (fp.cmd_begin_transform_feedback_ext)(sc, 0, 2, cbufs.as_ptr(), coffs.as_ptr());
                } else {
                    (fp.cmd_begin_transform_feedback_ext)(
                        sc,
                        0,
                        0,
                        std::ptr::null(),
                        std::ptr::null(),
                    );
                }
                d.cmd_draw(sc, count, 1, first, 0);
                (fp.cmd_end_transform_feedback_ext)(sc, 0, 2, cbufs.as_ptr(), coffs.as_ptr());
                d.end_command_buffer(sc).unwrap();
                secondaries.push(sc);
            }
            let p = gpu.command_buffer(pool);
            begin(d, p, vk::CommandBufferUsageFlags::empty());
            for &sc in &secondaries {
                d.cmd_begin_render_pass(
                    p,
                    &vk::RenderPassBeginInfo::default()
                        .render_pass(s.render_pass)
                        .framebuffer(s.framebuffer)
                        .render_area(vk::Rect2D {
                            offset: vk::Offset2D::default(),
                            extent: vk::Extent2D {
                                width: 64,
                                height: 64,
                            },
                        }),
                    vk::SubpassContents::SECONDARY_COMMAND_BUFFERS,
                );
                d.cmd_execute_commands(p, &[sc]);
                d.cmd_end_render_pass(p);
                // The counters written by End are read by the next Begin.
                let m = [vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::TRANSFORM_FEEDBACK_COUNTER_WRITE_EXT)
                    .dst_access_mask(vk::AccessFlags::TRANSFORM_FEEDBACK_COUNTER_READ_EXT)];
                d.cmd_pipeline_barrier(
                    p,
                    vk::PipelineStageFlags::TRANSFORM_FEEDBACK_EXT,
                    vk::PipelineStageFlags::DRAW_INDIRECT,
                    vk::DependencyFlags::empty(),
                    &m,
                    &[],
                    &[],
                );
            }
            end(d, p);
            submit_wait(&gpu, &[p]);
        }
        // The spec's records for vertices 0..9, instance 0.
        let mut want = [vec![CANARY_XFB; 1024], vec![CANARY_XFB; 256]];
        for v in 0..9u32 {
            let at0 = v as usize * STRIDE[0] as usize;
            let p = a_pos(v);
            for c in 0..4 {
                let x = p[c] * SCALE + OFFSET[c];
                want[0][at0 + 4 * c..at0 + 4 * c + 4].copy_from_slice(&x.to_le_bytes());
            }
            want[0][at0 + 16..at0 + 20].copy_from_slice(&v.to_le_bytes());
            want[0][at0 + 20..at0 + 24].copy_from_slice(&0u32.to_le_bytes());
            let at1 = v as usize * STRIDE[1] as usize + 4;
            want[1][at1..at1 + 4].copy_from_slice(&a_inst(0).to_le_bytes());
        }
        assert_eq!(bufs[0].bytes(), &want[0][..], "{model}: buffer 0");
        assert_eq!(bufs[1].bytes(), &want[1][..], "{model}: buffer 1");
        assert_eq!(
            [counters.u32_at(0), counters.u32_at(8)],
            [9 * STRIDE[0] as u32, 9 * STRIDE[1] as u32],
            "{model}: counters"
        );
        // SAFETY: idle.
        unsafe {
            d.destroy_command_pool(pool, None);
            d.destroy_pipeline(pipeline, None);
        }
        for b in [&bufs[0], &bufs[1], &counters] {
            b.destroy(d);
        }
        s.destroy(d);
    }
}
