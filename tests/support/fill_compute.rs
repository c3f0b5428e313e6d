//! The compute program of the loader-level tests (`shaders/vk/fill.comp`:
//! `out[i] = i × k + in[i] + base`): its module, set layouts (set 0: two
//! storage buffers; set 1: one uniform buffer of the given kind), a 4-byte
//! push-constant range, the pipeline, and a pool with both sets allocated.
#![allow(dead_code)]

use ash::vk;

pub const COMPUTE: &[u8] = include_bytes!("../shaders/vk/fill.comp.spv");

pub struct FillCompute {
    pub module: vk::ShaderModule,
    pub layouts: [vk::DescriptorSetLayout; 2],
    pub layout: vk::PipelineLayout,
    pub pipeline: vk::Pipeline,
    pub pool: vk::DescriptorPool,
    pub sets: Vec<vk::DescriptorSet>,
}

impl FillCompute {
    /// `uniform`: UNIFORM_BUFFER or UNIFORM_BUFFER_DYNAMIC for set 1.
    pub fn new(
        d: &ash::Device,
        uniform: vk::DescriptorType,
        pool_flags: vk::DescriptorPoolCreateFlags,
    ) -> FillCompute {
        // SAFETY: valid create infos throughout.
        unsafe {
            let module = d
                .create_shader_module(
                    &vk::ShaderModuleCreateInfo {
                        code_size: COMPUTE.len(),
                        p_code: COMPUTE.as_ptr().cast(),
                        ..Default::default()
                    },
                    None,
                )
                .unwrap();
            let binding = |b, ty| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b)
                    .descriptor_type(ty)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            };
            let storage = vk::DescriptorType::STORAGE_BUFFER;
            let b0 = [binding(0, storage), binding(1, storage)];
            let b1 = [binding(0, uniform)];
            let layouts = [&b0[..], &b1[..]].map(|b| {
                d.create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(b),
                    None,
                )
                .unwrap()
            });
            let ranges = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
                .size(4)];
            let layout = d
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default()
                        .set_layouts(&layouts)
                        .push_constant_ranges(&ranges),
                    None,
                )
                .unwrap();
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            let pipeline = d
                .create_compute_pipelines(
                    vk::PipelineCache::null(),
                    &[vk::ComputePipelineCreateInfo::default()
                        .stage(stage)
                        .layout(layout)],
                    None,
                )
                .unwrap()[0];
            let sizes = [
                vk::DescriptorPoolSize {
                    ty: storage,
                    descriptor_count: 2,
                },
                vk::DescriptorPoolSize {
                    ty: uniform,
                    descriptor_count: 1,
                },
            ];
            let pool = d
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .flags(pool_flags)
                        .max_sets(2)
                        .pool_sizes(&sizes),
                    None,
                )
                .unwrap();
            let sets = d
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(pool)
                        .set_layouts(&layouts),
                )
                .unwrap();
            FillCompute {
                module,
                layouts,
                layout,
                pipeline,
                pool,
                sets,
            }
        }
    }

    pub fn destroy(&self, d: &ash::Device) {
        // SAFETY: the GPU is idle.
        unsafe {
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            for l in self.layouts {
                d.destroy_descriptor_set_layout(l, None);
            }
            d.destroy_shader_module(self.module, None);
        }
    }
}
