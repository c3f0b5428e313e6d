//! Shader modules, descriptor set layouts, pipeline layouts, descriptor
//! pools and sets, pipeline caches, pipelines, render passes and
//! framebuffers.

use ash::vk::{self, Handle};

use super::device::device;
use super::{input, out, slice};
use crate::icd::chain;
use crate::vk::VkResult;
use crate::vk::descriptor::{
    DescriptorPool, DescriptorSet, DescriptorSetLayout, DescriptorUpdateTemplate, PipelineLayout,
};
use crate::vk::handle::{self, Object};
use crate::vk::pipeline::{ComputePipeline, GraphicsPipeline, Pipeline, create_all};
use crate::vk::pipeline_cache::PipelineCache;
use crate::vk::render_pass::{Framebuffer, RenderPass};
use crate::vk::shader_module::ShaderModule;

/// Box `value` as a non-dispatchable handle and write it to `p`.
unsafe fn make<T: Object, H: Handle>(p: *mut H, value: T) -> VkResult<()> {
    // SAFETY: per the caller's contract (valid usage).
    unsafe { out(p, H::from_raw(handle::new_handle(value))) }
}

/// The array handling shared by vkCreateGraphicsPipelines and
/// vkCreateComputePipelines: `count` infos in, `count` handles out.
///
/// # Safety
/// `p_infos` holds `count` infos and `p_pipelines` room for `count` handles.
unsafe fn create_pipelines<I>(
    p_infos: *const I,
    count: u32,
    p_pipelines: *mut vk::Pipeline,
    make: impl Fn(&I) -> VkResult<Pipeline>,
) -> VkResult<()> {
    // SAFETY: per the contract.
    let infos = unsafe { slice(p_infos, count) };
    if p_pipelines.is_null() && count > 0 {
        return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
    }
    // SAFETY: room for `count` handles (checked non-null when count > 0).
    let out: &mut [vk::Pipeline] = if infos.is_empty() {
        &mut []
    } else {
        unsafe { std::slice::from_raw_parts_mut(p_pipelines, infos.len()) }
    };
    create_all(infos, out, make)
}

fn get<'a, T: Object>(raw: u64) -> VkResult<&'a T> {
    // SAFETY: the caller passes a live handle (valid usage).
    unsafe { handle::handle::<T>(raw) }
}

/// The pipeline cache a create call names, or None for VK_NULL_HANDLE.
fn cache<'a>(c: vk::PipelineCache) -> VkResult<Option<&'a PipelineCache>> {
    if c.is_null() {
        Ok(None)
    } else {
        get::<PipelineCache>(c.as_raw()).map(Some)
    }
}

crate::vk_entry_points! {
    fn vkCreateShaderModule(
        _device: vk::Device,
        p_create_info: *const vk::ShaderModuleCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_shader_module: *mut vk::ShaderModule,
    ) -> vk::Result {
        let info = input(p_create_info)?;
        if info.p_code.is_null() {
            return Err(vk::Result::ERROR_INVALID_SHADER_NV);
        }
        let code = std::slice::from_raw_parts(info.p_code.cast::<u8>(), info.code_size);
        make(p_shader_module, ShaderModule::new(code)?)
    }

    fn vkDestroyShaderModule(_device: vk::Device, module: vk::ShaderModule, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_handle::<ShaderModule>(module.as_raw()));
    }

    fn vkCreateDescriptorSetLayout(
        _device: vk::Device,
        p_create_info: *const vk::DescriptorSetLayoutCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_set_layout: *mut vk::DescriptorSetLayout,
    ) -> vk::Result {
        let info = input(p_create_info)?;
        crate::icd::chain::log_unknown("vkCreateDescriptorSetLayout", info.p_next, &[]);
        let bindings = slice(info.p_bindings, info.binding_count);
        make(p_set_layout, DescriptorSetLayout::new(bindings)?)
    }

    fn vkDestroyDescriptorSetLayout(_device: vk::Device, layout: vk::DescriptorSetLayout, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_handle::<DescriptorSetLayout>(layout.as_raw()));
    }

    fn vkCreatePipelineLayout(
        _device: vk::Device,
        p_create_info: *const vk::PipelineLayoutCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_pipeline_layout: *mut vk::PipelineLayout,
    ) -> vk::Result {
        make(p_pipeline_layout, PipelineLayout::new(input(p_create_info)?)?)
    }

    fn vkDestroyPipelineLayout(_device: vk::Device, layout: vk::PipelineLayout, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_handle::<PipelineLayout>(layout.as_raw()));
    }

    fn vkCreateDescriptorPool(
        _device: vk::Device,
        p_create_info: *const vk::DescriptorPoolCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_descriptor_pool: *mut vk::DescriptorPool,
    ) -> vk::Result {
        make(p_descriptor_pool, DescriptorPool::new(input(p_create_info)?)?)
    }

    fn vkDestroyDescriptorPool(_device: vk::Device, pool: vk::DescriptorPool, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_handle::<DescriptorPool>(pool.as_raw()));
    }

    fn vkResetDescriptorPool(_device: vk::Device, pool: vk::DescriptorPool, _flags: vk::DescriptorPoolResetFlags) -> vk::Result {
        get::<DescriptorPool>(pool.as_raw())?.reset();
        Ok(())
    }

    fn vkAllocateDescriptorSets(
        _device: vk::Device,
        p_allocate_info: *const vk::DescriptorSetAllocateInfo<'_>,
        p_descriptor_sets: *mut vk::DescriptorSet,
    ) -> vk::Result {
        let info = input(p_allocate_info)?;
        let pool = get::<DescriptorPool>(info.descriptor_pool.as_raw())?;
        let layouts = slice(info.p_set_layouts, info.descriptor_set_count);
        if p_descriptor_sets.is_null() && !layouts.is_empty() {
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        let mut made = Vec::with_capacity(layouts.len());
        for (i, l) in layouts.iter().enumerate() {
            let result = get::<DescriptorSetLayout>(l.as_raw())
                .and_then(|layout| pool.allocate(&layout.info));
            match result {
                Ok(h) => {
                    made.push(h);
                    p_descriptor_sets.add(i).write(vk::DescriptorSet::from_raw(h));
                }
                Err(e) => {
                    // All or nothing: free what this call made.
                    for h in made {
                        pool.free(h);
                    }
                    for j in 0..layouts.len() {
                        p_descriptor_sets.add(j).write(vk::DescriptorSet::null());
                    }
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    fn vkFreeDescriptorSets(
        _device: vk::Device,
        descriptor_pool: vk::DescriptorPool,
        count: u32,
        p_descriptor_sets: *const vk::DescriptorSet,
    ) -> vk::Result {
        let pool = get::<DescriptorPool>(descriptor_pool.as_raw())?;
        if !pool.free_individual {
            log::warn!("vkFreeDescriptorSets on a pool without FREE_DESCRIPTOR_SET (invalid usage)");
        }
        for s in slice(p_descriptor_sets, count) {
            if !s.is_null() {
                pool.free(s.as_raw());
            }
        }
        Ok(())
    }

    fn vkUpdateDescriptorSets(
        _device: vk::Device,
        write_count: u32,
        p_writes: *const vk::WriteDescriptorSet<'_>,
        copy_count: u32,
        p_copies: *const vk::CopyDescriptorSet<'_>,
    ) {
        for w in slice(p_writes, write_count) {
            let Ok(set) = get::<DescriptorSet>(w.dst_set.as_raw()) else { continue };
            let infos = slice(w.p_buffer_info, w.descriptor_count);
            if infos.len() != w.descriptor_count as usize {
                log::warn!("vkUpdateDescriptorSets: {:?} writes need buffer infos", w.descriptor_type);
                continue;
            }
            let _ = set.write_buffers(w.dst_binding, w.dst_array_element, infos);
        }
        for c in slice(p_copies, copy_count) {
            let (Ok(src), Ok(dst)) = (
                get::<DescriptorSet>(c.src_set.as_raw()),
                get::<DescriptorSet>(c.dst_set.as_raw()),
            ) else {
                continue;
            };
            let _ = dst.copy_from(src, c.src_binding, c.src_array_element, c.dst_binding, c.dst_array_element, c.descriptor_count);
        }
    }

    fn vkCreatePipelineCache(
        device: vk::Device,
        p_create_info: *const vk::PipelineCacheCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_pipeline_cache: *mut vk::PipelineCache,
    ) -> vk::Result {
        let d = self::device(device)?;
        let info = input(p_create_info)?;
        crate::icd::chain::log_unknown("vkCreatePipelineCache", info.p_next, &[]);
        let initial: &[u8] = if info.initial_data_size == 0 || info.p_initial_data.is_null() {
            &[]
        } else {
            std::slice::from_raw_parts(info.p_initial_data.cast(), info.initial_data_size)
        };
        make(p_pipeline_cache, PipelineCache::new(&d.core, initial))
    }

    fn vkDestroyPipelineCache(_device: vk::Device, pipeline_cache: vk::PipelineCache, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_handle::<PipelineCache>(pipeline_cache.as_raw()));
    }

    fn vkGetPipelineCacheData(
        _device: vk::Device,
        pipeline_cache: vk::PipelineCache,
        p_data_size: *mut usize,
        p_data: *mut std::ffi::c_void,
    ) -> vk::Result {
        let c = get::<PipelineCache>(pipeline_cache.as_raw())?;
        if p_data_size.is_null() {
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        // "Pipeline Cache" in the Vulkan spec: with pData NULL, the size of
        // all the data; otherwise at most *pDataSize bytes, the amount
        // written back in *pDataSize, VK_INCOMPLETE if not all of it fit,
        // and whatever is written must be valid initial data.
        if p_data.is_null() {
            *p_data_size = c.serialize(None).0.len();
            return Ok(());
        }
        let (data, complete) = c.serialize(Some(*p_data_size));
        std::ptr::copy_nonoverlapping(data.as_ptr(), p_data.cast::<u8>(), data.len());
        *p_data_size = data.len();
        if complete { Ok(()) } else { Err(vk::Result::INCOMPLETE) }
    }

    fn vkMergePipelineCaches(
        _device: vk::Device,
        dst_cache: vk::PipelineCache,
        src_cache_count: u32,
        p_src_caches: *const vk::PipelineCache,
    ) -> vk::Result {
        let dst = get::<PipelineCache>(dst_cache.as_raw())?;
        for src in slice(p_src_caches, src_cache_count) {
            dst.merge_from(get::<PipelineCache>(src.as_raw())?);
        }
        Ok(())
    }

    fn vkCreateGraphicsPipelines(
        device: vk::Device,
        pipeline_cache: vk::PipelineCache,
        count: u32,
        p_create_infos: *const vk::GraphicsPipelineCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_pipelines: *mut vk::Pipeline,
    ) -> vk::Result {
        let d = self::device(device)?;
        let cache = cache(pipeline_cache)?;
        create_pipelines(p_create_infos, count, p_pipelines, |info| {
            crate::icd::chain::log_unknown("vkCreateGraphicsPipelines", info.p_next, &[]);
            // VK_EXT_provoking_vertex: the mode rides on the rasterization state.
            let provoking_last = info.p_rasterization_state.as_ref().is_some_and(|rs| {
                chain::find_in::<vk::PipelineRasterizationProvokingVertexStateCreateInfoEXT<'_>>(rs.p_next)
                    .is_some_and(|p| p.provoking_vertex_mode == vk::ProvokingVertexModeEXT::LAST_VERTEX)
            });
            Ok(Pipeline::Graphics(std::sync::Arc::new(GraphicsPipeline::new(&d.core, info, provoking_last, cache)?)))
        })
    }

    fn vkCreateComputePipelines(
        device: vk::Device,
        pipeline_cache: vk::PipelineCache,
        count: u32,
        p_create_infos: *const vk::ComputePipelineCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_pipelines: *mut vk::Pipeline,
    ) -> vk::Result {
        let d = self::device(device)?;
        let cache = cache(pipeline_cache)?;
        create_pipelines(p_create_infos, count, p_pipelines, |info| {
            Ok(Pipeline::Compute(std::sync::Arc::new(ComputePipeline::new(&d.core, info, cache)?)))
        })
    }

    fn vkDestroyPipeline(_device: vk::Device, pipeline: vk::Pipeline, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_handle::<Pipeline>(pipeline.as_raw()));
    }

    fn vkCreateRenderPass(
        _device: vk::Device,
        p_create_info: *const vk::RenderPassCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_render_pass: *mut vk::RenderPass,
    ) -> vk::Result {
        let info = input(p_create_info)?;
        // VK_KHR_multiview: the subpasses' view masks (the correlation
        // masks are a hint about attachments, which do not exist).
        let masks = match chain::find_in::<vk::RenderPassMultiviewCreateInfo<'_>>(info.p_next) {
            Some(m) => slice(m.p_view_masks, m.subpass_count),
            None => &[],
        };
        make(p_render_pass, RenderPass::new(info.attachment_count, info.subpass_count, masks)?)
    }

    // VK_KHR_create_renderpass2: the subpasses carry their view masks.
    fn vkCreateRenderPass2KHR(
        _device: vk::Device,
        p_create_info: *const vk::RenderPassCreateInfo2<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_render_pass: *mut vk::RenderPass,
    ) -> vk::Result {
        let info = input(p_create_info)?;
        let masks: Vec<u32> = slice(info.p_subpasses, info.subpass_count)
            .iter()
            .map(|s| s.view_mask)
            .collect();
        let masks = if masks.iter().all(|&m| m == 0) { &[][..] } else { &masks[..] };
        make(p_render_pass, RenderPass::new(info.attachment_count, info.subpass_count, masks)?)
    }

    fn vkCreateDescriptorUpdateTemplateKHR(
        _device: vk::Device,
        p_create_info: *const vk::DescriptorUpdateTemplateCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_template: *mut vk::DescriptorUpdateTemplate,
    ) -> vk::Result {
        make(p_template, DescriptorUpdateTemplate::new(input(p_create_info)?)?)
    }

    fn vkDestroyDescriptorUpdateTemplateKHR(
        _device: vk::Device,
        template: vk::DescriptorUpdateTemplate,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        drop(handle::free_handle::<DescriptorUpdateTemplate>(template.as_raw()));
    }

    fn vkUpdateDescriptorSetWithTemplateKHR(
        _device: vk::Device,
        set: vk::DescriptorSet,
        template: vk::DescriptorUpdateTemplate,
        p_data: *const std::ffi::c_void,
    ) {
        let (Ok(set), Ok(t)) = (
            get::<DescriptorSet>(set.as_raw()),
            get::<DescriptorUpdateTemplate>(template.as_raw()),
        ) else {
            return;
        };
        if p_data.is_null() {
            log::warn!("vkUpdateDescriptorSetWithTemplate: pData is NULL (invalid usage)");
            return;
        }
        let _ = t.apply(set, p_data.cast());
    }

    fn vkDestroyRenderPass(_device: vk::Device, render_pass: vk::RenderPass, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        let _ = handle::free_handle::<RenderPass>(render_pass.as_raw());
    }

    fn vkGetRenderAreaGranularity(_device: vk::Device, _render_pass: vk::RenderPass, p_granularity: *mut vk::Extent2D) {
        // Tiles are 16×16 pixels on Bifrost.
        let _ = out(p_granularity, vk::Extent2D { width: 16, height: 16 });
    }

    fn vkCreateFramebuffer(
        _device: vk::Device,
        p_create_info: *const vk::FramebufferCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_framebuffer: *mut vk::Framebuffer,
    ) -> vk::Result {
        make(p_framebuffer, Framebuffer::new(input(p_create_info)?)?)
    }

    fn vkDestroyFramebuffer(_device: vk::Device, framebuffer: vk::Framebuffer, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        let _ = handle::free_handle::<Framebuffer>(framebuffer.as_raw());
    }
}
