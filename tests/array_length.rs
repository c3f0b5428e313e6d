//! `.length()` of runtime arrays in storage buffers (`OpArrayLength`)
//! through the Khronos loader, on the simulated G52 and G72: the length
//! comes from the range the descriptor binds (Vulkan spec, "Shader
//! Resource Interface" / OpArrayLength: the bound range's size, less the
//! array's offset, over its stride), with an explicit range, with
//! `VK_WHOLE_SIZE`, and with a dynamic offset that shrinks the range.
//!
//! The shader (`tests/shaders/array_length.comp`): `a.n = a.v.length()`
//! for `buffer A { uint n; uint pad; uvec2 v[]; }`, and each of 4
//! invocations `i < b.f.length()` writes `b.f[i] = length + i` for
//! `buffer B { float f[]; }`.

mod common;
#[path = "support/xfb_device.rs"]
mod xfb_device;

use ash::vk;
use common::*;
use xfb_device::submit_and_wait;

const SHADER: &[u8] = include_bytes!("shaders/array_length.comp.spv");
const CANARY: u32 = 0xC5C5_C5C5;

/// One case: how A and B are bound.
struct Case {
    /// (bind offset, range) of A; range `None` is VK_WHOLE_SIZE.
    a: (u64, Option<u64>),
    /// (bind offset, range) of B.
    b: (u64, Option<u64>),
    /// A dynamic offset added to B's (B is then STORAGE_BUFFER_DYNAMIC).
    b_dynamic: Option<u32>,
}

fn run_on(model: &str) {
    let gpu = Gpu::with_xfb(model);
    let d = &gpu.device;
    const SIZE: u64 = 1024;
    // Offsets are multiples of minStorageBufferOffsetAlignment (256).
    let cases = [
        // A: 8 + 5 × 8 bytes → 5; B: 3 floats → invocations 0..2 write.
        Case {
            a: (256, Some(48)),
            b: (0, Some(12)),
            b_dynamic: None,
        },
        // Whole buffers from an offset: A (1024 − 256 − 8) / 8 = 95; B
        // (1024 − 768) / 4 = 64 (all 4 invocations write).
        Case {
            a: (256, None),
            b: (768, None),
            b_dynamic: None,
        },
        // A range that ends with the header: length 0. B bound at 0 with
        // range 40 and dynamic offset 256: the window moves, its size
        // stays (VkDescriptorBufferInfo: the range is static): 10 floats.
        Case {
            a: (0, Some(8)),
            b: (0, Some(40)),
            b_dynamic: Some(256),
        },
        // A range of 7 bytes past the header: length 0 (no whole element).
        Case {
            a: (512, Some(15)),
            b: (256, Some(4)),
            b_dynamic: Some(0),
        },
    ];
    let module = objects::shader_module(d, SHADER);
    for c in &cases {
        let b_ty = if c.b_dynamic.is_some() {
            vk::DescriptorType::STORAGE_BUFFER_DYNAMIC
        } else {
            vk::DescriptorType::STORAGE_BUFFER
        };
        let ssbo = vk::DescriptorType::STORAGE_BUFFER;
        let compute = vk::ShaderStageFlags::COMPUTE;
        let set_layout = objects::set_layout(d, &[(0, ssbo), (1, b_ty)], compute);
        let layout = objects::pipeline_layout(d, &[set_layout], 0, compute);
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let a = Buf::new(d, SIZE, usage);
        let b = Buf::new(d, SIZE, usage);
        a.bytes().fill(0xC5);
        b.bytes().fill(0xC5);
        let whole = vk::WHOLE_SIZE;
        let (pool, set) = objects::buffer_set(
            d,
            set_layout,
            &[
                (0, ssbo, a.buffer, c.a.0, c.a.1.unwrap_or(whole)),
                (1, b_ty, b.buffer, c.b.0, c.b.1.unwrap_or(whole)),
            ],
        );
        let pipeline = objects::compute_pipeline(d, module, layout, model);
        // SAFETY: valid handles throughout; the GPU is idle at the end.
        unsafe {
            let cmd_pool = gpu.command_pool();
            let cb = gpu.command_buffer(cmd_pool);
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            let dynamic: Vec<u32> = c.b_dynamic.into_iter().collect();
            d.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                layout,
                0,
                &[set],
                &dynamic,
            );
            d.cmd_dispatch(cb, 1, 1, 1);
            d.end_command_buffer(cb).unwrap();
            submit_and_wait(&gpu, &[cb]);
            d.destroy_command_pool(cmd_pool, None);
            d.destroy_pipeline(pipeline, None);
            d.destroy_descriptor_pool(pool, None);
            d.destroy_pipeline_layout(layout, None);
            d.destroy_descriptor_set_layout(set_layout, None);
        }
        // The spec's lengths from the bound ranges.
        let range = |(offset, range): (u64, Option<u64>)| range.unwrap_or(SIZE - offset);
        let a_range = range(c.a);
        let a_len = a_range.saturating_sub(8) / 8;
        let dynamic = u64::from(c.b_dynamic.unwrap_or(0));
        let b_range = range(c.b);
        let b_len = b_range / 4;
        let what = format!("{model}: A at {:?}, B at {:?}+{dynamic}", c.a, c.b);
        if a_range >= 4 {
            assert_eq!(
                a.u32_at(c.a.0 as usize),
                a_len as u32,
                "{what}: a.v.length()"
            );
        }
        let b_start = (c.b.0 + dynamic) as usize;
        for i in 0..(SIZE as usize / 4) {
            let at = 4 * i;
            let inside = at >= b_start && at < b_start + 4 * (b_len.min(4) as usize);
            let got = b.u32_at(at);
            if inside {
                let k = (at - b_start) / 4;
                let want = b_len as f32 + k as f32;
                assert_eq!(f32::from_bits(got), want, "{what}: b.f[{k}]");
            } else {
                assert_eq!(got, CANARY, "{what}: byte {at} of B written");
            }
        }
        for i in 0..(SIZE as usize / 4) {
            if c.a.0 as usize == 4 * i && a_range >= 4 {
                continue;
            }
            assert_eq!(
                a.u32_at(4 * i),
                CANARY,
                "{what}: byte {} of A written",
                4 * i
            );
        }
        a.destroy(d);
        b.destroy(d);
    }
    // SAFETY: the GPU is idle.
    unsafe { d.destroy_shader_module(module, None) };
}

#[test]
fn array_length_g52() {
    run_on("g52");
}

#[test]
fn array_length_g72() {
    run_on("g72");
}
