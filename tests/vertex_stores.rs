//! `vertexPipelineStoresAndAtomics` through the Khronos loader, on the
//! simulated G52 and G72: a vertex shader that writes a storage buffer runs
//! for every vertex of a draw although nothing is rasterized and, in most
//! cases, nothing is captured.
//!
//! The shader (`shaders/vk/vertex_stores.vert`) counts each invocation in
//! `hits[instance × 64 + vertex]` with an atomic add and stores
//! `a_pos.x × 2 + instance` in `values[…]`. Expectations follow the Vulkan
//! spec (Shaders › Vertex Shader Execution: the shader runs *at least
//! once* for each vertex a drawing command specifies; Drawing Commands:
//! the vertices of `vkCmdDraw` are `firstVertex + i`, those of an indexed
//! draw `index[firstIndex + i] + vertexOffset`, instances
//! `firstInstance + j`; Primitive Restart: the restart index is no
//! vertex): every specified (instance, vertex) has at least one hit and its
//! value, every other slot keeps its canary. While transform feedback is
//! not active the driver runs the shader exactly once per index position
//! (docs/STATUS.md), which the tests check as well.

mod common;
#[path = "support/xfb_device.rs"]
mod xfb_device;

use ash::vk;
use common::*;
use xfb_device::{a_pos, submit_and_wait};

const STORES: &[u8] = include_bytes!("shaders/vk/vertex_stores.vert.spv");
const IDS: &[u8] = include_bytes!("shaders/vk/vertex_ids.vert.spv");
const SLOTS: usize = 256;
const CANARY: u32 = 0xC5C5_C5C5;

/// How a case issues its draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Issue {
    Direct,
    /// vkCmdDraw(Indexed)Indirect from a buffer of its own.
    Indirect,
    /// vkCmdDraw(Indexed)IndirectCountKHR with a count of 1.
    Count,
}

#[derive(Clone, Debug)]
struct Case {
    name: &'static str,
    topology: vk::PrimitiveTopology,
    restart: bool,
    count: u32,
    instances: u32,
    first: u32,
    first_instance: u32,
    /// Indexed: (indices, index size in bytes, vertexOffset).
    indexed: Option<(Vec<u32>, u32, i32)>,
    issue: Issue,
    /// Transform feedback active (capturing `v_pos`) during the draw.
    xfb: bool,
}

impl Case {
    fn plain(name: &'static str, count: u32, instances: u32, first: u32, fi: u32) -> Case {
        Case {
            name,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            restart: false,
            count,
            instances,
            first,
            first_instance: fi,
            indexed: None,
            issue: Issue::Direct,
            xfb: false,
        }
    }

    /// Index positions of the draw: (instance, vertex) per invocation the
    /// spec requires (restart indices dropped).
    fn vertices(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for j in 0..self.instances {
            let instance = self.first_instance + j;
            for i in 0..self.count {
                let vertex = match &self.indexed {
                    None => self.first + i,
                    Some((ix, size, offset)) => {
                        let index = ix[(self.first + i) as usize];
                        let restart_index = if *size == 2 { 0xFFFF } else { u32::MAX };
                        if self.restart && index == restart_index {
                            continue;
                        }
                        index.wrapping_add(*offset as u32)
                    }
                };
                out.push((instance, vertex));
            }
        }
        out
    }
}

struct Objects {
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    module: vk::ShaderModule,
    render_pass: vk::RenderPass,
    framebuffer: vk::Framebuffer,
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
    ssbo: Buf,
    vertices: Buf,
    cmd_pool: vk::CommandPool,
    /// Binding 0's stride.
    stride: u32,
}

impl Objects {
    fn new(gpu: &Gpu) -> Objects {
        Objects::with(gpu, STORES, 16)
    }

    fn with(gpu: &Gpu, spirv: &[u8], stride: u32) -> Objects {
        let d = &gpu.device;
        let vertex = vk::ShaderStageFlags::VERTEX;
        let ty = vk::DescriptorType::STORAGE_BUFFER;
        let set_layout = objects::set_layout(d, &[(0, ty)], vertex);
        let layout = objects::pipeline_layout(d, &[set_layout], 0, vertex);
        let module = objects::shader_module(d, spirv);
        let (render_pass, framebuffer) = objects::attachmentless_pass(d);
        let ssbo = Buf::new(d, 8 * SLOTS as u64, vk::BufferUsageFlags::STORAGE_BUFFER);
        let (pool, set) =
            objects::buffer_set(d, set_layout, &[(0, ty, ssbo.buffer, 0, 8 * SLOTS as u64)]);
        let vertices = Buf::new(d, 16 * 64, vk::BufferUsageFlags::VERTEX_BUFFER);
        vertices.write(0, &(0..64).map(a_pos).collect::<Vec<_>>());
        Objects {
            set_layout,
            layout,
            module,
            render_pass,
            framebuffer,
            pool,
            set,
            ssbo,
            vertices,
            cmd_pool: gpu.command_pool(),
            stride,
        }
    }

    fn pipeline(&self, d: &ash::Device, c: &Case) -> vk::Pipeline {
        objects::XfbPipeline {
            module: self.module,
            layout: self.layout,
            render_pass: self.render_pass,
            instance_binding: 1,
            topology: c.topology,
            restart: c.restart,
            provoking: None,
        }
        .create_with_stride(d, vk::PipelineCache::null(), self.stride)
    }

    fn destroy(&self, d: &ash::Device) {
        // SAFETY: the GPU is idle.
        unsafe {
            d.destroy_command_pool(self.cmd_pool, None);
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_framebuffer(self.framebuffer, None);
            d.destroy_render_pass(self.render_pass, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            d.destroy_shader_module(self.module, None);
        }
        self.ssbo.destroy(d);
        self.vertices.destroy(d);
    }
}

/// Record and run one case; returns the XFB buffer's bytes (all of them,
/// captured or not).
fn run(gpu: &Gpu, o: &Objects, c: &Case) -> Vec<u8> {
    let d = &gpu.device;
    let xfb = ash::ext::transform_feedback::Device::new(&gpu.instance, d);
    let count_ext = ash::khr::draw_indirect_count::Device::new(&gpu.instance, d);
    let pipeline = o.pipeline(d, c);
    o.ssbo.write(0, &[0u32; SLOTS]);
    o.ssbo.write(4 * SLOTS, &vec![CANARY; SLOTS]);
    let captured = Buf::new(
        d,
        16 * 1024,
        vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
    );
    captured.bytes().fill(0xC5);
    let instance_data = Buf::new(d, 64, vk::BufferUsageFlags::VERTEX_BUFFER);
    let indirect = Buf::new(d, 64, vk::BufferUsageFlags::INDIRECT_BUFFER);
    let index = Buf::new(d, 4 * 64, vk::BufferUsageFlags::INDEX_BUFFER);
    let cb = gpu.command_buffer(o.cmd_pool);
    // SAFETY: valid handles throughout.
    unsafe {
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_begin_render_pass(
            cb,
            &vk::RenderPassBeginInfo::default()
                .render_pass(o.render_pass)
                .framebuffer(o.framebuffer),
            vk::SubpassContents::INLINE,
        );
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        let viewport = vk::Viewport {
            width: 64.0,
            height: 64.0,
            max_depth: 1.0,
            ..Default::default()
        };
        d.cmd_set_viewport(cb, 0, &[viewport]);
        d.cmd_set_scissor(
            cb,
            0,
            &[vk::Rect2D {
                extent: vk::Extent2D {
                    width: 64,
                    height: 64,
                },
                ..Default::default()
            }],
        );
        d.cmd_bind_descriptor_sets(
            cb,
            vk::PipelineBindPoint::GRAPHICS,
            o.layout,
            0,
            &[o.set],
            &[],
        );
        d.cmd_bind_vertex_buffers(cb, 0, &[o.vertices.buffer, instance_data.buffer], &[0, 0]);
        if c.xfb {
            let fp = xfb.fp();
            (fp.cmd_bind_transform_feedback_buffers_ext)(
                cb,
                0,
                1,
                &captured.buffer,
                &0u64,
                std::ptr::null(),
            );
            (fp.cmd_begin_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
        }
        match &c.indexed {
            None => {
                indirect.write(12, &[c.count, c.instances, c.first, c.first_instance]);
                indirect.write(0, &[1u32]);
                match c.issue {
                    Issue::Direct => {
                        d.cmd_draw(cb, c.count, c.instances, c.first, c.first_instance)
                    }
                    Issue::Indirect => d.cmd_draw_indirect(cb, indirect.buffer, 12, 1, 20),
                    Issue::Count => count_ext.cmd_draw_indirect_count(
                        cb,
                        indirect.buffer,
                        12,
                        indirect.buffer,
                        0,
                        1,
                        20,
                    ),
                }
            }
            Some((ix, size, offset)) => {
                let ty = if *size == 2 {
                    index.write(0, &ix.iter().map(|&i| i as u16).collect::<Vec<_>>());
                    vk::IndexType::UINT16
                } else {
                    index.write(0, ix);
                    vk::IndexType::UINT32
                };
                d.cmd_bind_index_buffer(cb, index.buffer, 0, ty);
                indirect.write(
                    12,
                    &[
                        c.count,
                        c.instances,
                        c.first,
                        *offset as u32,
                        c.first_instance,
                    ],
                );
                indirect.write(0, &[1u32]);
                match c.issue {
                    Issue::Direct => d.cmd_draw_indexed(
                        cb,
                        c.count,
                        c.instances,
                        c.first,
                        *offset,
                        c.first_instance,
                    ),
                    Issue::Indirect => d.cmd_draw_indexed_indirect(cb, indirect.buffer, 12, 1, 20),
                    Issue::Count => count_ext.cmd_draw_indexed_indirect_count(
                        cb,
                        indirect.buffer,
                        12,
                        indirect.buffer,
                        0,
                        1,
                        20,
                    ),
                }
            }
        }
        if c.xfb {
            (xfb.fp().cmd_end_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
        }
        d.cmd_end_render_pass(cb);
        d.end_command_buffer(cb).unwrap();
    }
    submit_and_wait(gpu, &[cb]);
    let out = captured.bytes().to_vec();
    // SAFETY: the GPU is idle.
    unsafe {
        d.free_command_buffers(o.cmd_pool, &[cb]);
        d.destroy_pipeline(pipeline, None);
    }
    for b in [&captured, &instance_data, &indirect, &index] {
        b.destroy(d);
    }
    out
}

impl Case {
    /// Captured records of a non-indexed triangle-list or point-list draw.
    fn xfb_records(&self) -> usize {
        if !self.xfb {
            return 0;
        }
        let per_instance = match self.topology {
            vk::PrimitiveTopology::POINT_LIST => self.count,
            _ => self.count / 3 * 3,
        };
        (per_instance * self.instances) as usize
    }
}

fn check(gpu: &Gpu, o: &Objects, c: &Case) {
    let bytes = run(gpu, o, c);
    let captured: Vec<[f32; 4]> = (0..c.xfb_records())
        .map(|r| std::array::from_fn(|k| f32_at(&bytes, 16 * r + 4 * k)))
        .collect();
    let hits: Vec<u32> = (0..SLOTS).map(|s| o.ssbo.u32_at(4 * s)).collect();
    let values: Vec<u32> = (0..SLOTS).map(|s| o.ssbo.u32_at(4 * (SLOTS + s))).collect();
    let mut expected = vec![0u32; SLOTS];
    for (instance, vertex) in c.vertices() {
        let slot = (instance * 64 + vertex) as usize;
        assert!(slot < SLOTS, "{}: case outside the observed slots", c.name);
        expected[slot] += 1;
    }
    for s in 0..SLOTS {
        let (instance, vertex) = (s as u32 / 64, s as u32 % 64);
        if expected[s] == 0 {
            assert_eq!(
                hits[s], 0,
                "{}: instance {instance} vertex {vertex} is not in the draw",
                c.name
            );
            assert_eq!(values[s], CANARY, "{}: slot {s} written", c.name);
            continue;
        }
        assert!(
            hits[s] >= 1,
            "{}: instance {instance} vertex {vertex} never ran",
            c.name
        );
        if !c.xfb {
            assert_eq!(
                hits[s], expected[s],
                "{}: instance {instance} vertex {vertex}: once per index position",
                c.name
            );
        }
        let want = a_pos(vertex)[0] * 2.0 + instance as f32;
        assert_eq!(
            f32::from_bits(values[s]),
            want,
            "{}: value of slot {s}",
            c.name
        );
    }
    // The capture is the spec's: triangle-list vertices in order, v_pos = a_pos.
    let mut r = 0;
    for j in 0..c.instances {
        let _ = j;
        for i in 0..(c.xfb_records() as u32 / c.instances.max(1)) {
            assert_eq!(
                captured[r],
                a_pos(c.first + i),
                "{}: captured record {r}",
                c.name
            );
            r += 1;
        }
    }
}

fn f32_at(bytes: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn cases() -> Vec<Case> {
    let strip = vk::PrimitiveTopology::TRIANGLE_STRIP;
    vec![
        // 7 vertices of a triangle list: vertex 11 belongs to no triangle
        // and must still run.
        Case::plain("draw", 7, 3, 5, 1),
        Case {
            issue: Issue::Indirect,
            ..Case::plain("draw indirect", 5, 2, 20, 0)
        },
        Case {
            issue: Issue::Count,
            ..Case::plain("draw indirect count", 4, 1, 60, 3)
        },
        Case {
            topology: vk::PrimitiveTopology::POINT_LIST,
            ..Case::plain("point list", 1, 1, 63, 0)
        },
        // Duplicate u32 indices: each index position is a vertex.
        Case {
            indexed: Some((vec![3, 9, 3, 4, 9, 9, 0], 4, 2)),
            ..Case::plain("indexed u32", 6, 2, 1, 1)
        },
        // A u16 strip with restart: the restart index plus vertexOffset
        // would be vertex 40, which no other index names.
        Case {
            topology: strip,
            restart: true,
            indexed: Some((
                vec![65500, 65501, 65502, 0xFFFF, 65503, 65504, 65505],
                2,
                -65495,
            )),
            ..Case::plain("indexed u16 strip with restart", 7, 1, 0, 2)
        },
        Case {
            topology: strip,
            restart: true,
            indexed: Some((vec![7, 65500, 65501, 0xFFFF, 65502, 65503], 2, -65495)),
            issue: Issue::Indirect,
            ..Case::plain("indexed indirect strip with restart", 5, 2, 1, 0)
        },
        Case {
            indexed: Some((vec![1, 2, 30, 31, 33], 4, 0)),
            issue: Issue::Count,
            ..Case::plain("indexed indirect count", 4, 3, 1, 0)
        },
        // While transform feedback captures, stores still happen (at least once).
        Case {
            xfb: true,
            ..Case::plain("draw while capturing", 9, 2, 10, 0)
        },
        Case {
            xfb: true,
            topology: vk::PrimitiveTopology::POINT_LIST,
            ..Case::plain("points while capturing", 5, 1, 50, 1)
        },
    ]
}

fn stores_on(model: &str) {
    let gpu = Gpu::with_xfb(model);
    // SAFETY: valid physical device.
    let f = unsafe {
        gpu.instance
            .get_physical_device_features(gpu.physical_device)
    };
    assert_eq!(f.vertex_pipeline_stores_and_atomics, vk::TRUE);
    let o = Objects::new(&gpu);
    // The second round starts with the device's kernels compiled (they
    // are kept for the device's life) and must leave no BO behind.
    let mut baseline = None;
    for _ in 0..2 {
        for c in cases() {
            check(&gpu, &o, &c);
        }
        // SAFETY: the GPU is idle.
        unsafe {
            gpu.device
                .reset_command_pool(o.cmd_pool, vk::CommandPoolResetFlags::RELEASE_RESOURCES)
                .unwrap();
        }
        let now = gpu.bo_stats();
        assert_eq!(
            *baseline.get_or_insert(now),
            now,
            "BOs back at the baseline"
        );
    }
    o.destroy(&gpu.device);
}

#[test]
fn vertex_stores_g52() {
    stores_on("g52");
}

#[test]
fn vertex_stores_g72() {
    stores_on("g72");
}

/// `fullDrawIndexUint32`: 32-bit index values up to 2^32 − 2 (the
/// restart value 2^32 − 1 excluded, Vulkan spec, `maxDrawIndexedIndexValue`)
/// reach the shader as `gl_VertexIndex = index + vertexOffset`, in the
/// vertex stage and in the capture, direct and indirect. The input's
/// binding has stride 0, so every vertex reads element 0 whatever its
/// index (Vulkan spec, "Vertex Input Address Calculation").
fn full_u32_on(model: &str) {
    let gpu = Gpu::with_xfb(model);
    // SAFETY: valid physical device.
    let (f, limits) = unsafe {
        let i = &gpu.instance;
        (
            i.get_physical_device_features(gpu.physical_device),
            i.get_physical_device_properties(gpu.physical_device).limits,
        )
    };
    assert_eq!(f.full_draw_index_uint32, vk::TRUE);
    assert_eq!(limits.max_draw_indexed_index_value, u32::MAX);
    let o = Objects::with(&gpu, IDS, 0);
    o.vertices.write(0, &[42.5f32, 1.0, 2.0, 3.0]);
    let indices = vec![0xFFFF_FFFE, 0x8000_0000, 1 << 24, 0xFFFF_FFF0, 7];
    for vertex_offset in [0, -7] {
        for issue in [Issue::Direct, Issue::Indirect] {
            for xfb in [false, true] {
                let c = Case {
                    topology: vk::PrimitiveTopology::POINT_LIST,
                    indexed: Some((indices.clone(), 4, vertex_offset)),
                    issue,
                    xfb,
                    ..Case::plain("full u32", 5, 1, 0, 0)
                };
                let what = format!("offset {vertex_offset}, {issue:?}, capture {xfb}");
                let bytes = run(&gpu, &o, &c);
                let want: Vec<u32> = indices[..c.count as usize]
                    .iter()
                    .map(|&i| (i64::from(i) + i64::from(vertex_offset)) as u32)
                    .collect();
                let n = o.ssbo.u32_at(0) as usize;
                let runs = if xfb { 2 } else { 1 };
                assert_eq!(n, runs * want.len(), "{what}: invocations");
                let mut seen: Vec<u32> = (0..n).map(|k| o.ssbo.u32_at(4 + 4 * k)).collect();
                let mut expected: Vec<u32> = (0..runs).flat_map(|_| want.clone()).collect();
                seen.sort_unstable();
                expected.sort_unstable();
                assert_eq!(seen, expected, "{what}: gl_VertexIndex values");
                for k in 0..n {
                    assert_eq!(
                        f32::from_bits(o.ssbo.u32_at(256 + 4 * k)),
                        42.5,
                        "{what}: input"
                    );
                }
                if xfb {
                    let got: Vec<u32> = (0..want.len()).map(|r| u32_at(&bytes, 4 * r)).collect();
                    assert_eq!(got, want, "{what}: captured gl_VertexIndex");
                    assert_eq!(
                        u32_at(&bytes, 4 * want.len()),
                        0xC5C5_C5C5,
                        "{what}: past the capture"
                    );
                }
            }
        }
    }
    o.destroy(&gpu.device);
}

#[test]
fn full_draw_index_uint32_g52() {
    full_u32_on("g52");
}

#[test]
fn full_draw_index_uint32_g72() {
    full_u32_on("g72");
}
