//! VK_KHR_shader_draw_parameters through the Khronos loader, on the
//! simulated G52 and G72: `gl_DrawIDARB`, `gl_BaseVertexARB` and
//! `gl_BaseInstanceARB` in a vertex shader that writes memory.
//!
//! The shader (`shaders/vk/draw_parameters.vert`) counts each invocation
//! in `hits[draw × 64 + instance × 16 + vertex]` and stores the base
//! vertex and base instance it saw beside it. Expectations follow the
//! Vulkan spec ("Built-In Variables": `DrawIndex` is the index of the draw
//! in a multi-draw indirect command, 0 for the other commands;
//! `BaseVertex` is `firstVertex` or, for indexed draws, `vertexOffset`;
//! `BaseInstance` is `firstInstance`; "Drawing Commands" for which
//! vertices and instances a draw has).

mod common;
#[path = "support/xfb_device.rs"]
mod xfb_device;

use ash::vk;
use common::*;
use xfb_device::submit_and_wait;

const SHADER: &[u8] = include_bytes!("shaders/vk/draw_parameters.vert.spv");
const SLOTS: usize = 256;

/// One draw: vertex count, instances, first vertex (or first index),
/// first instance, and for indexed draws the vertex offset.
#[derive(Clone, Copy, Debug)]
struct Draw {
    count: u32,
    instances: u32,
    first: u32,
    first_instance: u32,
    vertex_offset: Option<i32>,
}

const fn draw(count: u32, instances: u32, first: u32, first_instance: u32) -> Draw {
    Draw {
        count,
        instances,
        first,
        first_instance,
        vertex_offset: None,
    }
}

const fn indexed(count: u32, instances: u32, first: u32, first_instance: u32, offset: i32) -> Draw {
    Draw {
        count,
        instances,
        first,
        first_instance,
        vertex_offset: Some(offset),
    }
}

/// How a case issues its draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Issue {
    /// One vkCmdDraw(Indexed) per draw (each is draw 0 of its command).
    Direct,
    /// One multi-draw vkCmdDraw(Indexed)Indirect.
    Indirect,
    /// vkCmdDraw(Indexed)IndirectCountKHR with a count of `n` and
    /// maxDrawCount the number of draws.
    Count(u32),
}

/// The index buffer: index `i` is `i`, so an indexed draw's vertices are
/// `first + k + vertex_offset`.
const INDICES: u32 = 32;

/// (hits, base vertex, base instance) per slot, as the spec says.
fn expected(draws: &[Draw], issue: Issue) -> Vec<[u32; 3]> {
    let mut slots = vec![[0, 0, 0]; SLOTS];
    let n = match issue {
        Issue::Count(n) => (n as usize).min(draws.len()),
        _ => draws.len(),
    };
    for (i, d) in draws.iter().take(n).enumerate() {
        let id = if issue == Issue::Direct { 0 } else { i as u32 };
        let base = d.vertex_offset.map_or(d.first, |o| o as u32);
        for inst in d.first_instance..d.first_instance + d.instances {
            for k in 0..d.count {
                let v = match d.vertex_offset {
                    None => d.first + k,
                    Some(o) => (d.first + k).wrapping_add(o as u32),
                };
                let s = &mut slots[(id * 64 + inst * 16 + v) as usize];
                s[0] += 1;
                s[1] = base;
                s[2] = d.first_instance;
            }
        }
    }
    slots
}

fn run(gpu: &Gpu, draws: &[Draw], issue: Issue) -> Vec<[u32; 3]> {
    let d = &gpu.device;
    let count_ext = ash::khr::draw_indirect_count::Device::new(&gpu.instance, d);
    let vertex = vk::ShaderStageFlags::VERTEX;
    let ty = vk::DescriptorType::STORAGE_BUFFER;
    let set_layout = objects::set_layout(d, &[(0, ty)], vertex);
    let layout = objects::pipeline_layout(d, &[set_layout], 0, vertex);
    let module = objects::shader_module(d, SHADER);
    let (render_pass, framebuffer) = objects::attachmentless_pass(d);
    let bytes = 3 * 4 * SLOTS as u64;
    let out = Buf::new(d, bytes, vk::BufferUsageFlags::STORAGE_BUFFER);
    out.write(0, &vec![0u32; 3 * SLOTS]);
    let (pool, set) = objects::buffer_set(d, set_layout, &[(0, ty, out.buffer, 0, bytes)]);
    let vertices = Buf::new(d, 16 * 64, vk::BufferUsageFlags::VERTEX_BUFFER);
    let instance_data = Buf::new(d, 64, vk::BufferUsageFlags::VERTEX_BUFFER);
    let index = Buf::new(
        d,
        4 * u64::from(INDICES),
        vk::BufferUsageFlags::INDEX_BUFFER,
    );
    index.write(0, &(0..INDICES).collect::<Vec<u32>>());
    let args = Buf::new(
        d,
        4 + 20 * draws.len() as u64,
        vk::BufferUsageFlags::INDIRECT_BUFFER,
    );
    let pipeline = objects::XfbPipeline {
        module,
        layout,
        render_pass,
        instance_binding: 1,
        topology: vk::PrimitiveTopology::POINT_LIST,
        restart: false,
        provoking: None,
    }
    .create(d, vk::PipelineCache::null());
    let is_indexed = draws[0].vertex_offset.is_some();
    let cmd_pool = gpu.command_pool();
    let cb = gpu.command_buffer(cmd_pool);
    // SAFETY: valid handles throughout.
    unsafe {
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_begin_render_pass(
            cb,
            &vk::RenderPassBeginInfo::default()
                .render_pass(render_pass)
                .framebuffer(framebuffer),
            vk::SubpassContents::INLINE,
        );
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        objects::set_viewport_and_scissor(d, cb, 64, 64);
        d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::GRAPHICS, layout, 0, &[set], &[]);
        d.cmd_bind_vertex_buffers(cb, 0, &[vertices.buffer, instance_data.buffer], &[0, 0]);
        d.cmd_bind_index_buffer(cb, index.buffer, 0, vk::IndexType::UINT32);
        // Commands at offset 4 (the count at 0), 20 bytes apart.
        for (i, w) in draws.iter().enumerate() {
            let at = 4 + 20 * i;
            match w.vertex_offset {
                None => args.write(at, &[w.count, w.instances, w.first, w.first_instance, 0]),
                Some(o) => args.write(
                    at,
                    &[w.count, w.instances, w.first, o as u32, w.first_instance],
                ),
            }
        }
        let n = draws.len() as u32;
        match issue {
            Issue::Direct => {
                for w in draws {
                    match w.vertex_offset {
                        None => d.cmd_draw(cb, w.count, w.instances, w.first, w.first_instance),
                        Some(o) => d.cmd_draw_indexed(
                            cb,
                            w.count,
                            w.instances,
                            w.first,
                            o,
                            w.first_instance,
                        ),
                    }
                }
            }
            Issue::Indirect if is_indexed => d.cmd_draw_indexed_indirect(cb, args.buffer, 4, n, 20),
            Issue::Indirect => d.cmd_draw_indirect(cb, args.buffer, 4, n, 20),
            Issue::Count(c) => {
                args.write(0, &[c]);
                if is_indexed {
                    count_ext.cmd_draw_indexed_indirect_count(
                        cb,
                        args.buffer,
                        4,
                        args.buffer,
                        0,
                        n,
                        20,
                    );
                } else {
                    count_ext.cmd_draw_indirect_count(cb, args.buffer, 4, args.buffer, 0, n, 20);
                }
            }
        }
        d.cmd_end_render_pass(cb);
        d.end_command_buffer(cb).unwrap();
        submit_and_wait(gpu, &[cb]);
        d.destroy_command_pool(cmd_pool, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_descriptor_pool(pool, None);
        d.destroy_framebuffer(framebuffer, None);
        d.destroy_render_pass(render_pass, None);
        d.destroy_pipeline_layout(layout, None);
        d.destroy_descriptor_set_layout(set_layout, None);
        d.destroy_shader_module(module, None);
    }
    let got = (0..SLOTS)
        .map(|i| {
            [
                out.u32_at(4 * i),
                out.u32_at(4 * (SLOTS + i)),
                out.u32_at(4 * (2 * SLOTS + i)),
            ]
        })
        .collect();
    for b in [&out, &vertices, &instance_data, &index, &args] {
        b.destroy(d);
    }
    got
}

fn check(model: &str) {
    let gpu = Gpu::model_with(
        model,
        &[
            c"VK_KHR_shader_draw_parameters",
            c"VK_KHR_draw_indirect_count",
        ],
    );
    let plain = [draw(2, 1, 0, 0), draw(3, 2, 5, 1), draw(1, 1, 9, 3)];
    let with_index = [indexed(2, 2, 1, 0, 3), indexed(3, 1, 4, 2, -2)];
    let cases: [(&[Draw], Issue); 6] = [
        (&plain, Issue::Direct),
        (&plain, Issue::Indirect),
        (&plain, Issue::Count(2)),
        (&with_index, Issue::Direct),
        (&with_index, Issue::Indirect),
        (&with_index, Issue::Count(1)),
    ];
    for (draws, issue) in cases {
        let got = run(&gpu, draws, issue);
        let want = expected(draws, issue);
        assert_eq!(got, want, "{model} {issue:?} {draws:?}");
    }
}

#[test]
fn draw_parameters_on_g52() {
    check("g52");
}

#[test]
fn draw_parameters_on_g72() {
    check("g72");
}

#[test]
fn shader_draw_parameters_is_reported() {
    let gpu = Gpu::model_with("g52", &[c"VK_KHR_shader_draw_parameters"]);
    let mut params = vk::PhysicalDeviceShaderDrawParametersFeatures::default();
    let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut params);
    // SAFETY: valid handles and chain.
    unsafe {
        gpu.instance
            .get_physical_device_features2(gpu.physical_device, &mut features)
    };
    assert_eq!(params.shader_draw_parameters, vk::TRUE);
}
