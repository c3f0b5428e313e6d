//! Shared by the loader-level transform-feedback tests (`xfb_loader.rs`,
//! `xfb_queries.rs`): the capture shader and its pipeline, vertex and
//! instance data, mapped buffers, the spec's primitive decomposition
//! (Vulkan spec, "Transform Feedback Capture" and the primitive topology
//! section), and a submit that waits.
#![allow(dead_code)]

use ash::vk;

pub use super::common::Buf;
use super::common::{Gpu, objects};

pub const SHADER: &[u8] = include_bytes!("../shaders/vk/xfb_capture.vert.spv");

/// Bytes per record in XFB buffers 0 and 1 (the shader's strides).
pub const STRIDE: [u64; 2] = [32, 8];

/// Capture order within one instance: positions in the draw's vertex
/// sequence, primitive by primitive (the spec's formulas).
/// [`primitives`] in the order VK_EXT_provoking_vertex's LAST mode with
/// `transformFeedbackPreservesProvokingVertex` requires: the provoking
/// vertex (strip triangle i: v_(i+2); fan triangle i: v_(i+2); the last of
/// lines and list triangles) written last, winding kept (Vulkan spec,
/// "Transform Feedback Capture" and "Provoking Vertex").
pub fn primitives_last(topology: vk::PrimitiveTopology, n: u32) -> Vec<Vec<u32>> {
    use vk::PrimitiveTopology as T;
    match topology {
        T::TRIANGLE_STRIP => (0..n.saturating_sub(2))
            .map(|i| {
                if i % 2 == 0 {
                    vec![i, i + 1, i + 2]
                } else {
                    vec![i + 1, i, i + 2]
                }
            })
            .collect(),
        T::TRIANGLE_FAN => (0..n.saturating_sub(2))
            .map(|i| vec![0, i + 1, i + 2])
            .collect(),
        other => primitives(other, n),
    }
}

pub fn primitives(topology: vk::PrimitiveTopology, n: u32) -> Vec<Vec<u32>> {
    use vk::PrimitiveTopology as T;
    match topology {
        T::POINT_LIST => (0..n).map(|i| vec![i]).collect(),
        T::LINE_LIST => (0..n / 2).map(|i| vec![2 * i, 2 * i + 1]).collect(),
        T::LINE_STRIP => (0..n.saturating_sub(1)).map(|i| vec![i, i + 1]).collect(),
        T::TRIANGLE_LIST => (0..n / 3)
            .map(|i| vec![3 * i, 3 * i + 1, 3 * i + 2])
            .collect(),
        T::TRIANGLE_STRIP => (0..n.saturating_sub(2))
            .map(|i| vec![i, i + 1 + i % 2, i + 2 - i % 2])
            .collect(),
        T::TRIANGLE_FAN => (0..n.saturating_sub(2))
            .map(|i| vec![i + 1, i + 2, 0])
            .collect(),
        other => panic!("{other:?} is not tested"),
    }
}

pub const TOPOLOGIES: [vk::PrimitiveTopology; 6] = [
    vk::PrimitiveTopology::POINT_LIST,
    vk::PrimitiveTopology::LINE_LIST,
    vk::PrimitiveTopology::LINE_STRIP,
    vk::PrimitiveTopology::TRIANGLE_LIST,
    vk::PrimitiveTopology::TRIANGLE_STRIP,
    vk::PrimitiveTopology::TRIANGLE_FAN,
];

pub fn a_pos(v: u32) -> [f32; 4] {
    let f = v as f32;
    [f, 0.5 * f, -f, 1.0 + f / 4.0]
}

pub fn a_inst(i: u32) -> f32 {
    100.0 + i as f32
}

pub const SCALE: f32 = 2.0;
pub const OFFSET: [f32; 4] = [0.25, -1.0, 8.0, 0.0];

/// Everything a case needs on the device.
pub struct Setup {
    pub layout: vk::PipelineLayout,
    pub set_layout: vk::DescriptorSetLayout,
    pub render_pass: vk::RenderPass,
    pub framebuffer: vk::Framebuffer,
    pub module: vk::ShaderModule,
    pub pool: vk::DescriptorPool,
    pub set: vk::DescriptorSet,
    pub ubo: Buf,
    pub vertices: Buf,
    pub instances: Buf,
    pub cmd_pool: vk::CommandPool,
}

/// Vertex data for vertices 0..VERTS (the vertex buffer is bound at offset 4,
/// so its GPU address is not 64-byte aligned) and instances 0..16.
pub const VERTS: u32 = 70_000;

impl Setup {
    pub fn new(gpu: &Gpu) -> Setup {
        let d = &gpu.device;
        let module = objects::shader_module(d, SHADER);
        let vertex = vk::ShaderStageFlags::VERTEX;
        let ubo_type = vk::DescriptorType::UNIFORM_BUFFER;
        let set_layout = objects::set_layout(d, &[(0, ubo_type)], vertex);
        let layout = objects::pipeline_layout(d, &[set_layout], 4, vertex);
        let (render_pass, framebuffer) = objects::attachmentless_pass(d);
        // The UBO sits at minUniformBufferOffsetAlignment (256), with
        // other data before it.
        let ubo = Buf::new(d, 512, vk::BufferUsageFlags::UNIFORM_BUFFER);
        ubo.write(0, &[9.0f32; 4]);
        ubo.write(256, &OFFSET);
        let (pool, set) = objects::buffer_set(d, set_layout, &[(0, ubo_type, ubo.buffer, 256, 16)]);
        let vertices = Buf::new(
            d,
            4 + 16 * u64::from(VERTS),
            vk::BufferUsageFlags::VERTEX_BUFFER,
        );
        let pos: Vec<[f32; 4]> = (0..VERTS).map(a_pos).collect();
        vertices.write(4, &pos);
        let instances = Buf::new(d, 64, vk::BufferUsageFlags::VERTEX_BUFFER);
        let inst: Vec<f32> = (0..16).map(a_inst).collect();
        instances.write(0, &inst);
        Setup {
            layout,
            set_layout,
            render_pass,
            framebuffer,
            module,
            pool,
            set,
            ubo,
            vertices,
            instances,
            cmd_pool: gpu.command_pool(),
        }
    }

    pub fn pipeline(&self, d: &ash::Device, topology: vk::PrimitiveTopology) -> vk::Pipeline {
        self.pipeline_with_restart(d, topology, false)
    }

    /// [`Setup::pipeline`] with `primitiveRestartEnable` as given.
    pub fn pipeline_with_restart(
        &self,
        d: &ash::Device,
        topology: vk::PrimitiveTopology,
        restart: bool,
    ) -> vk::Pipeline {
        self.pipeline_with(d, topology, restart, None)
    }

    /// [`Setup::pipeline`] with `primitiveRestartEnable` and, when given, a
    /// VK_EXT_provoking_vertex mode on the rasterization state.
    pub fn pipeline_with(
        &self,
        d: &ash::Device,
        topology: vk::PrimitiveTopology,
        restart: bool,
        provoking: Option<vk::ProvokingVertexModeEXT>,
    ) -> vk::Pipeline {
        objects::XfbPipeline {
            module: self.module,
            layout: self.layout,
            render_pass: self.render_pass,
            instance_binding: 3,
            topology,
            restart,
            provoking,
        }
        .create(d, vk::PipelineCache::null())
    }

    /// A command buffer from the setup's pool, recording inside the
    /// render pass with `pipeline`, the descriptor set, the push constant
    /// [`SCALE`] and both vertex buffers (vertices at offset 4, instances
    /// on binding 3) bound.
    pub fn begin_pass(&self, gpu: &Gpu, pipeline: vk::Pipeline) -> vk::CommandBuffer {
        let d = &gpu.device;
        let cb = gpu.command_buffer(self.cmd_pool);
        // SAFETY: valid handles throughout.
        unsafe {
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_begin_render_pass(
                cb,
                &vk::RenderPassBeginInfo::default()
                    .render_pass(self.render_pass)
                    .framebuffer(self.framebuffer),
                vk::SubpassContents::INLINE,
            );
            self.bind(d, cb, pipeline);
        }
        cb
    }

    /// Bind what [`Setup::begin_pass`] binds, in a recording command buffer.
    pub fn bind(&self, d: &ash::Device, cb: vk::CommandBuffer, pipeline: vk::Pipeline) {
        // SAFETY: valid handles; `cb` is recording.
        unsafe {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
            d.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::GRAPHICS,
                self.layout,
                0,
                &[self.set],
                &[],
            );
            d.cmd_push_constants(
                cb,
                self.layout,
                vk::ShaderStageFlags::VERTEX,
                0,
                &SCALE.to_le_bytes(),
            );
            d.cmd_bind_vertex_buffers(cb, 0, &[self.vertices.buffer], &[4]);
            d.cmd_bind_vertex_buffers(cb, 3, &[self.instances.buffer], &[0]);
        }
    }

    pub fn destroy(&self, d: &ash::Device) {
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
        self.ubo.destroy(d);
        self.vertices.destroy(d);
        self.instances.destroy(d);
    }
}

pub fn submit_and_wait(gpu: &Gpu, cbs: &[vk::CommandBuffer]) {
    gpu.submit_and_wait(cbs);
}
