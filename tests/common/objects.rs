//! Vulkan objects the loader-level tests and benchmarks build the same way:
//! shader modules, descriptor-set and pipeline layouts, a descriptor set
//! with its buffers written, the attachment-less render pass, and the
//! vertex-only transform-feedback pipeline of the capture shaders
//! (`tests/shaders/vk/xfb_capture.vert`: a vec4 per vertex at location 0
//! and a float per instance at location 1). Every call unwraps: a failure
//! is the test's failure.

use ash::vk;

pub fn shader_module(d: &ash::Device, spirv: &[u8]) -> vk::ShaderModule {
    // SAFETY: valid create info over the SPIR-V words.
    unsafe {
        d.create_shader_module(
            &vk::ShaderModuleCreateInfo {
                code_size: spirv.len(),
                p_code: spirv.as_ptr().cast(),
                ..Default::default()
            },
            None,
        )
    }
    .unwrap()
}

/// A set layout of one descriptor per `(binding, type)`, visible to `stages`.
pub fn set_layout(
    d: &ash::Device,
    bindings: &[(u32, vk::DescriptorType)],
    stages: vk::ShaderStageFlags,
) -> vk::DescriptorSetLayout {
    let b: Vec<vk::DescriptorSetLayoutBinding> = bindings
        .iter()
        .map(|&(binding, ty)| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(binding)
                .descriptor_type(ty)
                .descriptor_count(1)
                .stage_flags(stages)
        })
        .collect();
    // SAFETY: valid create info.
    unsafe {
        d.create_descriptor_set_layout(
            &vk::DescriptorSetLayoutCreateInfo::default().bindings(&b),
            None,
        )
    }
    .unwrap()
}

/// A pipeline layout of `sets` with `push_bytes` of push constants for
/// `stages` (none when 0).
pub fn pipeline_layout(
    d: &ash::Device,
    sets: &[vk::DescriptorSetLayout],
    push_bytes: u32,
    stages: vk::ShaderStageFlags,
) -> vk::PipelineLayout {
    let ranges = [vk::PushConstantRange::default()
        .stage_flags(stages)
        .size(push_bytes)];
    let ranges: &[vk::PushConstantRange] = if push_bytes == 0 { &[] } else { &ranges };
    // SAFETY: valid create info.
    unsafe {
        d.create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default()
                .set_layouts(sets)
                .push_constant_ranges(ranges),
            None,
        )
    }
    .unwrap()
}

/// The compute pipeline of `module`'s `main` under `layout`, no cache;
/// panics with `what` when creation fails.
pub fn compute_pipeline(
    d: &ash::Device,
    module: vk::ShaderModule,
    layout: vk::PipelineLayout,
    what: &str,
) -> vk::Pipeline {
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module)
        .name(c"main");
    // SAFETY: valid handles.
    unsafe {
        d.create_compute_pipelines(
            vk::PipelineCache::null(),
            &[vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(layout)],
            None,
        )
    }
    .unwrap_or_else(|(_, e)| panic!("{what}: vkCreateComputePipelines: {e:?}"))[0]
}

/// A compute pipeline with its own objects: one descriptor set layout of
/// `bindings`, a layout with `push_bytes` of push constants, the module.
pub struct ComputeProgram {
    pub set_layout: vk::DescriptorSetLayout,
    pub layout: vk::PipelineLayout,
    pub module: vk::ShaderModule,
    pub pipeline: vk::Pipeline,
}

impl ComputeProgram {
    pub fn new(
        d: &ash::Device,
        bindings: &[(u32, vk::DescriptorType)],
        push_bytes: u32,
        spirv: &[u8],
        what: &str,
    ) -> ComputeProgram {
        let compute = vk::ShaderStageFlags::COMPUTE;
        let set_layout = set_layout(d, bindings, compute);
        let layout = pipeline_layout(d, &[set_layout], push_bytes, compute);
        let module = shader_module(d, spirv);
        let pipeline = compute_pipeline(d, module, layout, what);
        ComputeProgram {
            set_layout,
            layout,
            module,
            pipeline,
        }
    }

    /// Destroys the four objects (the GPU is idle).
    pub fn destroy(&self, d: &ash::Device) {
        // SAFETY: valid handles no pending work uses.
        unsafe {
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            d.destroy_shader_module(self.module, None);
        }
    }
}

/// A query pool of `count` queries of type `ty`.
pub fn query_pool(d: &ash::Device, ty: vk::QueryType, count: u32) -> vk::QueryPool {
    // SAFETY: valid create info.
    unsafe {
        d.create_query_pool(
            &vk::QueryPoolCreateInfo::default()
                .query_type(ty)
                .query_count(count),
            None,
        )
    }
    .unwrap()
}

/// Records into `cb` (initial state) one compute dispatch of `pipeline`
/// with set 0 = `set` and `push` at offset 0 of the compute push
/// constants; ends the command buffer.
pub fn record_dispatch(
    d: &ash::Device,
    cb: vk::CommandBuffer,
    (pipeline, layout, set): (vk::Pipeline, vk::PipelineLayout, vk::DescriptorSet),
    push: &[u8],
    groups: [u32; 3],
) {
    // SAFETY: valid handles; `cb` is in the initial state.
    unsafe {
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
        d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
        if !push.is_empty() {
            d.cmd_push_constants(cb, layout, vk::ShaderStageFlags::COMPUTE, 0, push);
        }
        d.cmd_dispatch(cb, groups[0], groups[1], groups[2]);
        d.end_command_buffer(cb).unwrap();
    }
}

/// A pool with one set of `layout`, its buffer descriptors written: one
/// `(binding, type, buffer, offset, range)` each.
pub fn buffer_set(
    d: &ash::Device,
    layout: vk::DescriptorSetLayout,
    writes: &[(u32, vk::DescriptorType, vk::Buffer, u64, u64)],
) -> (vk::DescriptorPool, vk::DescriptorSet) {
    let sizes: Vec<vk::DescriptorPoolSize> = writes
        .iter()
        .map(|w| vk::DescriptorPoolSize {
            ty: w.1,
            descriptor_count: 1,
        })
        .collect();
    // SAFETY: valid handles and create infos.
    unsafe {
        let pool = d
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(1)
                    .pool_sizes(&sizes),
                None,
            )
            .unwrap();
        let set = d
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&[layout]),
            )
            .unwrap()[0];
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = writes
            .iter()
            .map(|w| {
                [vk::DescriptorBufferInfo {
                    buffer: w.2,
                    offset: w.3,
                    range: w.4,
                }]
            })
            .collect();
        let w: Vec<vk::WriteDescriptorSet> = writes
            .iter()
            .zip(&infos)
            .map(|(w, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(w.0)
                    .descriptor_type(w.1)
                    .buffer_info(info)
            })
            .collect();
        d.update_descriptor_sets(&w, &[]);
        (pool, set)
    }
}

/// Dynamic viewport and scissor over a `width` × `height` framebuffer.
pub fn set_viewport_and_scissor(d: &ash::Device, cb: vk::CommandBuffer, width: u32, height: u32) {
    // SAFETY: a command buffer in the recording state.
    unsafe {
        d.cmd_set_viewport(
            cb,
            0,
            &[vk::Viewport {
                width: width as f32,
                height: height as f32,
                max_depth: 1.0,
                ..Default::default()
            }],
        );
        d.cmd_set_scissor(
            cb,
            0,
            &[vk::Rect2D {
                extent: vk::Extent2D { width, height },
                ..Default::default()
            }],
        );
    }
}

/// A render pass of one subpass without attachments and its 64×64
/// framebuffer (what a rasterizer-discard draw records in).
pub fn attachmentless_pass(d: &ash::Device) -> (vk::RenderPass, vk::Framebuffer) {
    let subpass =
        [vk::SubpassDescription::default().pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)];
    // SAFETY: valid create infos.
    unsafe {
        let render_pass = d
            .create_render_pass(
                &vk::RenderPassCreateInfo::default().subpasses(&subpass),
                None,
            )
            .unwrap();
        let framebuffer = d
            .create_framebuffer(
                &vk::FramebufferCreateInfo::default()
                    .render_pass(render_pass)
                    .width(64)
                    .height(64)
                    .layers(1),
                None,
            )
            .unwrap();
        (render_pass, framebuffer)
    }
}

/// The vertex-only transform-feedback pipeline of a capture shader:
/// binding 0 (16-byte stride, per vertex) feeds location 0 as RGBA32F,
/// binding `instance_binding` (4-byte stride, per instance) location 1 as
/// R32F; rasterizer discard; viewport and scissor dynamic.
pub struct XfbPipeline {
    pub module: vk::ShaderModule,
    pub layout: vk::PipelineLayout,
    pub render_pass: vk::RenderPass,
    pub instance_binding: u32,
    pub topology: vk::PrimitiveTopology,
    pub restart: bool,
    /// A VK_EXT_provoking_vertex mode on the rasterization state.
    pub provoking: Option<vk::ProvokingVertexModeEXT>,
}

impl XfbPipeline {
    pub fn create(&self, d: &ash::Device, cache: vk::PipelineCache) -> vk::Pipeline {
        self.create_with_stride(d, cache, 16)
    }

    /// [`XfbPipeline::create`] with binding 0's stride as given (0: every
    /// vertex reads element 0).
    pub fn create_with_stride(
        &self,
        d: &ash::Device,
        cache: vk::PipelineCache,
        stride: u32,
    ) -> vk::Pipeline {
        self.create_for_subpass(d, cache, stride, 0)
    }

    /// [`XfbPipeline::create_with_stride`] for subpass `subpass` of the
    /// render pass.
    pub fn create_for_subpass(
        &self,
        d: &ash::Device,
        cache: vk::PipelineCache,
        stride: u32,
        subpass: u32,
    ) -> vk::Pipeline {
        let stages = [vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(self.module)
            .name(c"main")];
        let vb = [
            vk::VertexInputBindingDescription {
                binding: 0,
                stride,
                input_rate: vk::VertexInputRate::VERTEX,
            },
            vk::VertexInputBindingDescription {
                binding: self.instance_binding,
                stride: 4,
                input_rate: vk::VertexInputRate::INSTANCE,
            },
        ];
        let va = [
            vk::VertexInputAttributeDescription {
                location: 0,
                binding: 0,
                format: vk::Format::R32G32B32A32_SFLOAT,
                offset: 0,
            },
            vk::VertexInputAttributeDescription {
                location: 1,
                binding: self.instance_binding,
                format: vk::Format::R32_SFLOAT,
                offset: 0,
            },
        ];
        let vi = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&vb)
            .vertex_attribute_descriptions(&va);
        let ia = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(self.topology)
            .primitive_restart_enable(self.restart);
        let vp = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let mut pv = vk::PipelineRasterizationProvokingVertexStateCreateInfoEXT::default()
            .provoking_vertex_mode(self.provoking.unwrap_or_default());
        let mut rs = vk::PipelineRasterizationStateCreateInfo::default()
            .rasterizer_discard_enable(true)
            .line_width(1.0);
        if self.provoking.is_some() {
            rs = rs.push_next(&mut pv);
        }
        let dynamic = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let ds = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vi)
            .input_assembly_state(&ia)
            .viewport_state(&vp)
            .rasterization_state(&rs)
            .dynamic_state(&ds)
            .layout(self.layout)
            .render_pass(self.render_pass)
            .subpass(subpass);
        // SAFETY: valid create info.
        unsafe { d.create_graphics_pipelines(cache, &[info], None) }.unwrap()[0]
    }
}
