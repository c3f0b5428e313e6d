//! `robustBufferAccess` through the Khronos loader, on the simulated G52
//! and G72 (Vulkan spec, "Robust Buffer Access"): with the feature
//! enabled, uniform and storage buffer accesses outside the bound range
//! read zeros or values from inside the range and never write outside it,
//! and vertex attributes outside their bound vertex-buffer range read zeros
//! or in-range values. This driver drops the writes and reads zeros,
//! except that a uniform-buffer load through the UBO table (how the driver
//! compiles UBO loads) is checked against the range rounded up to 16
//! bytes: a vec4 straddling the range's end reads the buffer's own bytes,
//! which the spec allows ("values from anywhere within the memory range(s)
//! bound to the buffer"); docs/STATUS.md. The tests check that, and that
//! every byte outside a bound range keeps its canary.

mod common;
#[path = "support/xfb_device.rs"]
mod xfb_device;

use ash::vk;
use common::*;
use xfb_device::*;

const ROBUST: &[u8] = include_bytes!("shaders/vk/robust.comp.spv");
const SIZE: u64 = 1024;
/// Every range starts here (a multiple of the 256-byte offset alignments).
const AT: u64 = 256;

/// The word a buffer holds at absolute word `j` before the dispatch.
fn pattern(tag: u32, j: u64) -> u32 {
    tag << 16 | j as u32
}

fn compute_on(model: &str) {
    let gpu = Gpu::with_xfb_robust(model);
    let d = &gpu.device;
    // SAFETY: valid physical device.
    let f = unsafe {
        gpu.instance
            .get_physical_device_features(gpu.physical_device)
    };
    assert_eq!(f.robust_buffer_access, vk::TRUE);
    let ssbo = vk::DescriptorType::STORAGE_BUFFER;
    let ubo = vk::DescriptorType::UNIFORM_BUFFER;
    let compute = vk::ShaderStageFlags::COMPUTE;
    // (binding, type, tag, range in bytes)
    let bindings = [
        (0, ssbo, 0xA, 40), // src: 10 words
        (1, ubo, 0xB, 48),  // ubo: 3 uvec4
        (2, ssbo, 0xC, 60), // dst: 15 words
        (3, ssbo, 0xD, 20), // counts: 5 words
        (4, ubo, 0xE, 56),  // wide: 3 whole uvec4 and half of one
        (5, ssbo, 0xF, 0),  // results: the whole buffer
    ];
    let types: Vec<_> = bindings.iter().map(|b| (b.0, b.1)).collect();
    let set_layout = objects::set_layout(d, &types, compute);
    let layout = objects::pipeline_layout(d, &[set_layout], 4, compute);
    let bufs: Vec<Buf> = bindings
        .iter()
        .map(|b| {
            let usage = if b.1 == ubo {
                vk::BufferUsageFlags::UNIFORM_BUFFER
            } else {
                vk::BufferUsageFlags::STORAGE_BUFFER
            };
            Buf::new(d, SIZE, usage)
        })
        .collect();
    let writes: Vec<_> = bindings
        .iter()
        .zip(&bufs)
        .map(|(b, buf)| {
            if b.3 == 0 {
                (b.0, b.1, buf.buffer, 0, vk::WHOLE_SIZE)
            } else {
                (b.0, b.1, buf.buffer, AT, b.3)
            }
        })
        .collect();
    let (pool, set) = objects::buffer_set(d, set_layout, &writes);
    let module = objects::shader_module(d, ROBUST);
    let pipeline = objects::compute_pipeline(d, module, layout, model);
    let cmd_pool = gpu.command_pool();
    for base in [0u32, 5, 100] {
        for (b, buf) in bindings.iter().zip(&bufs) {
            let words: Vec<u32> = (0..SIZE / 4).map(|j| pattern(b.2, j)).collect();
            buf.write(0, &words);
        }
        let cb = gpu.command_buffer(cmd_pool);
        // SAFETY: valid handles; the GPU is idle after the submit.
        unsafe {
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
            d.cmd_push_constants(cb, layout, compute, 0, &base.to_le_bytes());
            d.cmd_dispatch(cb, 4, 1, 1);
            d.end_command_buffer(cb).unwrap();
        }
        submit_and_wait(&gpu, &[cb]);
        let what = |s: &str| format!("{model}, base {base}: {s}");
        let word = |buf: &Buf, j: u64| buf.u32_at(4 * j as usize);
        let first = AT / 4;
        for i in 0..32u64 {
            let k = u64::from(base) + i;
            let r = |n: u64| word(&bufs[5], 8 * i + n);
            assert_eq!(r(7), k as u32, "{}", what("k"));
            let src = if k < 10 { pattern(0xA, first + k) } else { 0 };
            assert_eq!(r(0), src, "{}", what(&format!("src.s[{k}]")));
            let u = if k / 4 < 3 {
                pattern(0xB, first + 4 * (k / 4) + 1)
            } else {
                0
            };
            assert_eq!(r(1), u, "{}", what(&format!("ubo.u[{}].y", k / 4)));
            if k < 5 {
                assert_eq!(r(2), pattern(0xD, first + k), "{}", what("atomic result"));
            }
            for c in 0..4 {
                let inside = pattern(0xE, first + 4 * k + c);
                let got = r(3 + c);
                let what = what(&format!("wide.w[{k}][{c}]"));
                match k {
                    0..3 => assert_eq!(got, inside, "{what}"),
                    // Half inside the 56-byte range: out of bounds as a
                    // whole, so zeros or the buffer's own bytes (ours:
                    // the table's 64-byte rounding reads them).
                    3 => assert!(got == inside || got == 0, "{what}: {got:#x}"),
                    _ => assert_eq!(got, 0, "{what}"),
                }
            }
        }
        // Writes: inside the ranges exactly the in-range ones; outside
        // them, nothing.
        for j in 0..SIZE / 4 {
            let k = j.wrapping_sub(first);
            let in_window = j >= first && k >= u64::from(base) && k < u64::from(base) + 32;
            let dst = if in_window && k < 15 {
                1000 + k as u32
            } else {
                pattern(0xC, j)
            };
            assert_eq!(word(&bufs[2], j), dst, "{}", what(&format!("dst word {j}")));
            let count = if in_window && k < 5 {
                pattern(0xD, j) + 1
            } else {
                pattern(0xD, j)
            };
            assert_eq!(
                word(&bufs[3], j),
                count,
                "{}",
                what(&format!("counts word {j}"))
            );
            for (b, buf) in [(0usize, &bufs[0]), (1, &bufs[1]), (4, &bufs[4])] {
                assert_eq!(
                    word(buf, j),
                    pattern(bindings[b].2, j),
                    "{}",
                    what("read-only buffer")
                );
            }
        }
        // SAFETY: the GPU is idle.
        unsafe { d.free_command_buffers(cmd_pool, &[cb]) };
    }
    // SAFETY: the GPU is idle.
    unsafe {
        d.destroy_command_pool(cmd_pool, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_shader_module(module, None);
        d.destroy_descriptor_pool(pool, None);
        d.destroy_pipeline_layout(layout, None);
        d.destroy_descriptor_set_layout(set_layout, None);
    }
    for b in &bufs {
        b.destroy(d);
    }
}

#[test]
fn robust_buffers_g52() {
    compute_on("g52");
}

#[test]
fn robust_buffers_g72() {
    compute_on("g72");
}

/// Vertex input: the capture of `xfb_capture.vert` (buffer 0: `v_pos =
/// a_pos × SCALE + OFFSET` and the vertex/instance indices, stride 32;
/// buffer 1: `v_inst = a_inst` at offset 4, stride 8) with the per-vertex
/// binding holding 5 elements and the per-instance one 1 (bound near the
/// ends of their buffers): vertices 5.. and instances 1.. read zeros.
fn vertex_input_on(model: &str) {
    let gpu = Gpu::with_xfb_robust(model);
    let d = &gpu.device;
    let s = Setup::new(&gpu);
    let pipeline = s.pipeline(d, vk::PrimitiveTopology::POINT_LIST);
    let xfb = ash::ext::transform_feedback::Device::new(&gpu.instance, d);
    let (count, instances) = (8u32, 3u32);
    let records = u64::from(count * instances);
    let out0 = Buf::new(
        d,
        32 * records,
        vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
    );
    let out1 = Buf::new(
        d,
        8 * records,
        vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
    );
    out0.bytes().fill(0xC5);
    out1.bytes().fill(0xC5);
    // The vertex buffer's last 5 elements, the instance buffer's last one.
    let vertex_offset = 4 + 16 * u64::from(VERTS - 5);
    let first_vertex_there = VERTS - 5;
    let instance_offset = 60;
    let cb = s.begin_pass(&gpu, pipeline);
    // SAFETY: valid handles throughout.
    unsafe {
        // Rebound near the ends of their buffers.
        d.cmd_bind_vertex_buffers(cb, 0, &[s.vertices.buffer], &[vertex_offset]);
        d.cmd_bind_vertex_buffers(cb, 3, &[s.instances.buffer], &[instance_offset]);
        let fp = xfb.fp();
        let bufs = [out0.buffer, out1.buffer];
        (fp.cmd_bind_transform_feedback_buffers_ext)(
            cb,
            0,
            2,
            bufs.as_ptr(),
            [0u64, 0].as_ptr(),
            std::ptr::null(),
        );
        (fp.cmd_begin_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
        d.cmd_draw(cb, count, instances, 0, 0);
        (fp.cmd_end_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
        d.cmd_end_render_pass(cb);
        d.end_command_buffer(cb).unwrap();
    }
    submit_and_wait(&gpu, &[cb]);
    let f32_at = |b: &Buf, at: usize| f32::from_bits(b.u32_at(at));
    let mut r = 0usize;
    for inst in 0..instances {
        for v in 0..count {
            let pos = if v < 5 {
                a_pos(first_vertex_there + v)
            } else {
                [0.0; 4]
            };
            for c in 0..4 {
                let want = pos[c] * SCALE + OFFSET[c];
                assert_eq!(
                    f32_at(&out0, 32 * r + 4 * c),
                    want,
                    "{model}: vertex {v} instance {inst} v_pos[{c}]"
                );
            }
            assert_eq!(out0.u32_at(32 * r + 16), v, "{model}: gl_VertexIndex");
            assert_eq!(out0.u32_at(32 * r + 20), inst, "{model}: gl_InstanceIndex");
            let want = if inst < 1 { a_inst(15) } else { 0.0 };
            assert_eq!(
                f32_at(&out1, 8 * r + 4),
                want,
                "{model}: instance {inst} v_inst"
            );
            r += 1;
        }
    }
    // SAFETY: the GPU is idle.
    unsafe { d.destroy_pipeline(pipeline, None) };
    out0.destroy(d);
    out1.destroy(d);
    s.destroy(d);
}

#[test]
fn robust_vertex_input_g52() {
    vertex_input_on("g52");
}

#[test]
fn robust_vertex_input_g72() {
    vertex_input_on("g72");
}
