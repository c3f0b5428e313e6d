//! The small device extensions, through the loader:
//! VK_KHR_descriptor_update_template (a compute dispatch whose descriptors
//! were written by a template from application data with a stride),
//! VK_KHR_create_renderpass2 (a two-subpass render pass created, begun,
//! advanced and ended with the `2` commands around a transform-feedback
//! capture) and VK_KHR_maintenance1 (vkTrimCommandPool).

mod common;

use ash::vk;
use common::*;

const COMPUTE: &[u8] = include_bytes!("shaders/vk/fill.comp.spv");
const XFB_SHADER: &[u8] = include_bytes!("../examples/shaders/xfb_capture.vert.spv");

const EXTENSIONS: [&std::ffi::CStr; 4] = [
    c"VK_EXT_transform_feedback",
    c"VK_KHR_create_renderpass2",
    c"VK_KHR_descriptor_update_template",
    c"VK_KHR_maintenance1",
];

struct Mem {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
}

fn mem(d: &ash::Device, size: u64, usage: vk::BufferUsageFlags) -> Mem {
    // SAFETY: valid device and create infos.
    unsafe {
        let buffer = d
            .create_buffer(
                &vk::BufferCreateInfo::default().size(size).usage(usage),
                None,
            )
            .unwrap();
        let req = d.get_buffer_memory_requirements(buffer);
        let memory = d
            .allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(0),
                None,
            )
            .unwrap();
        d.bind_buffer_memory(buffer, memory, 0).unwrap();
        let ptr = d
            .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .unwrap()
            .cast();
        Mem {
            buffer,
            memory,
            ptr,
        }
    }
}

fn free(d: &ash::Device, m: &Mem) {
    // SAFETY: the GPU is idle.
    unsafe {
        d.destroy_buffer(m.buffer, None);
        d.free_memory(m.memory, None);
    }
}

fn submit(gpu: &Gpu, cb: vk::CommandBuffer) {
    let d = &gpu.device;
    // SAFETY: valid handles.
    unsafe {
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
    }
}

#[test]
fn the_extensions_are_listed_and_enabled() {
    let gpu = Gpu::with_extensions(&EXTENSIONS);
    // SAFETY: valid physical device.
    let listed = unsafe {
        gpu.instance
            .enumerate_device_extension_properties(gpu.physical_device)
    }
    .unwrap();
    for e in EXTENSIONS {
        assert!(
            listed
                .iter()
                .any(|p| p.extension_name_as_c_str().unwrap() == e),
            "{e:?} listed"
        );
    }
    for name in [
        c"vkCreateDescriptorUpdateTemplateKHR",
        c"vkUpdateDescriptorSetWithTemplateKHR",
        c"vkCreateRenderPass2KHR",
        c"vkCmdBeginRenderPass2KHR",
        c"vkTrimCommandPoolKHR",
    ] {
        assert!(gpu.hook(name).is_some(), "{name:?} resolves");
    }
}

/// Descriptors written through a template from a strided array of
/// `VkDescriptorBufferInfo` drive a dispatch; the result proves each
/// binding got its buffer.
#[test]
fn descriptor_update_template_feeds_a_dispatch() {
    let gpu = Gpu::with_extensions(&EXTENSIONS);
    let d = &gpu.device;
    let dut = ash::khr::descriptor_update_template::Device::new(&gpu.instance, d);
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
        let storage = |b| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        };
        let b0 = [storage(0), storage(1)];
        let b1 = [vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)];
        let l0 = d
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&b0),
                None,
            )
            .unwrap();
        let l1 = d
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&b1),
                None,
            )
            .unwrap();
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(4)];
        let layouts = [l0, l1];
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
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: 2,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::UNIFORM_BUFFER,
                descriptor_count: 1,
            },
        ];
        let pool = d
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
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
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::UNIFORM_BUFFER;
        let (src, dst, k) = (mem(d, 64, usage), mem(d, 64, usage), mem(d, 256, usage));
        let input: Vec<u32> = (0..16).map(|i| 100 + i).collect();
        std::ptr::copy_nonoverlapping(input.as_ptr().cast::<u8>(), src.ptr, 64);
        std::ptr::write_bytes(dst.ptr, 0xCC, 64);
        k.ptr.cast::<u32>().write(9);
        // Set 0 by a template over a strided record: {tag, info} pairs.
        #[repr(C)]
        struct Record {
            tag: u64,
            info: vk::DescriptorBufferInfo,
        }
        let records = [
            Record {
                tag: 1,
                info: vk::DescriptorBufferInfo {
                    buffer: src.buffer,
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                },
            },
            Record {
                tag: 2,
                info: vk::DescriptorBufferInfo {
                    buffer: dst.buffer,
                    offset: 0,
                    range: 64,
                },
            },
        ];
        let entries = [vk::DescriptorUpdateTemplateEntry {
            dst_binding: 0,
            dst_array_element: 0,
            descriptor_count: 2,
            descriptor_type: vk::DescriptorType::STORAGE_BUFFER,
            offset: std::mem::offset_of!(Record, info),
            stride: std::mem::size_of::<Record>(),
        }];
        let fp = dut.fp();
        let info = vk::DescriptorUpdateTemplateCreateInfo::default()
            .descriptor_update_entries(&entries)
            .template_type(vk::DescriptorUpdateTemplateType::DESCRIPTOR_SET)
            .descriptor_set_layout(l0);
        let mut template = vk::DescriptorUpdateTemplate::null();
        assert_eq!(
            (fp.create_descriptor_update_template_khr)(
                d.handle(),
                &info,
                std::ptr::null(),
                &mut template
            ),
            vk::Result::SUCCESS
        );
        // Two consecutive bindings from one entry (the count rolls over).
        (fp.update_descriptor_set_with_template_khr)(
            d.handle(),
            sets[0],
            template,
            records.as_ptr().cast(),
        );
        let ki = [vk::DescriptorBufferInfo {
            buffer: k.buffer,
            offset: 0,
            range: 16,
        }];
        d.update_descriptor_sets(
            &[vk::WriteDescriptorSet::default()
                .dst_set(sets[1])
                .dst_binding(0)
                .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                .buffer_info(&ki)],
            &[],
        );
        let cmd_pool = gpu.command_pool();
        let cb = gpu.command_buffer(cmd_pool);
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
        d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &sets, &[]);
        d.cmd_push_constants(
            cb,
            layout,
            vk::ShaderStageFlags::COMPUTE,
            0,
            &1u32.to_le_bytes(),
        );
        d.cmd_dispatch(cb, 2, 1, 1);
        d.end_command_buffer(cb).unwrap();
        submit(&gpu, cb);
        let out = std::slice::from_raw_parts(dst.ptr.cast::<u32>(), 16);
        let want: Vec<u32> = (0..16).map(|i| i * 9 + 100 + i + 1).collect();
        assert_eq!(out, &want[..]);
        // VK_KHR_maintenance1: trimming leaves the pool usable.
        let trim = ash::khr::maintenance1::Device::new(&gpu.instance, d);
        trim.trim_command_pool(cmd_pool, vk::CommandPoolTrimFlags::empty());
        submit(&gpu, cb);
        (fp.destroy_descriptor_update_template_khr)(d.handle(), template, std::ptr::null());
        d.destroy_command_pool(cmd_pool, None);
        d.destroy_descriptor_pool(pool, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_pipeline_layout(layout, None);
        d.destroy_descriptor_set_layout(l0, None);
        d.destroy_descriptor_set_layout(l1, None);
        d.destroy_shader_module(module, None);
        for m in [&src, &dst, &k] {
            free(d, m);
        }
    }
}

/// A render pass made with vkCreateRenderPass2 and two subpasses; the
/// capture runs in the second one, entered with vkCmdNextSubpass2.
#[test]
fn renderpass2_around_a_capture() {
    let gpu = Gpu::with_extensions(&EXTENSIONS);
    let d = &gpu.device;
    let rp2 = ash::khr::create_renderpass2::Device::new(&gpu.instance, d);
    let xfb = ash::ext::transform_feedback::Device::new(&gpu.instance, d);
    // SAFETY: valid create infos throughout.
    unsafe {
        let subpasses = [
            vk::SubpassDescription2::default().pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS),
            vk::SubpassDescription2::default().pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS),
        ];
        let render_pass = rp2
            .create_render_pass2(
                &vk::RenderPassCreateInfo2::default().subpasses(&subpasses),
                None,
            )
            .unwrap();
        let framebuffer = d
            .create_framebuffer(
                &vk::FramebufferCreateInfo::default()
                    .render_pass(render_pass)
                    .width(1)
                    .height(1)
                    .layers(1),
                None,
            )
            .unwrap();
        let module = d
            .create_shader_module(
                &vk::ShaderModuleCreateInfo {
                    code_size: XFB_SHADER.len(),
                    p_code: XFB_SHADER.as_ptr().cast(),
                    ..Default::default()
                },
                None,
            )
            .unwrap();
        let layout = d
            .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
            .unwrap();
        let stages = [vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(module)
            .name(c"main")];
        let vb = [vk::VertexInputBindingDescription {
            binding: 0,
            stride: 8,
            input_rate: vk::VertexInputRate::VERTEX,
        }];
        let va = [vk::VertexInputAttributeDescription {
            location: 0,
            binding: 0,
            format: vk::Format::R32G32_SFLOAT,
            offset: 0,
        }];
        let vi = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&vb)
            .vertex_attribute_descriptions(&va);
        let ia = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let rs = vk::PipelineRasterizationStateCreateInfo::default()
            .rasterizer_discard_enable(true)
            .line_width(1.0);
        let pipeline = d
            .create_graphics_pipelines(
                vk::PipelineCache::null(),
                &[vk::GraphicsPipelineCreateInfo::default()
                    .stages(&stages)
                    .vertex_input_state(&vi)
                    .input_assembly_state(&ia)
                    .rasterization_state(&rs)
                    .layout(layout)
                    .render_pass(render_pass)
                    .subpass(1)],
                None,
            )
            .unwrap()[0];
        let vertices = mem(d, 64, vk::BufferUsageFlags::VERTEX_BUFFER);
        let pos: [f32; 6] = [0.5, 1.5, 2.5, 3.5, 4.5, 5.5];
        std::ptr::copy_nonoverlapping(pos.as_ptr().cast::<u8>(), vertices.ptr, 24);
        let out = mem(d, 48, vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT);
        std::ptr::write_bytes(out.ptr, 0xEE, 48);
        let cmd_pool = gpu.command_pool();
        let cb = gpu.command_buffer(cmd_pool);
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(render_pass)
            .framebuffer(framebuffer);
        let sb = vk::SubpassBeginInfo::default().contents(vk::SubpassContents::INLINE);
        let se = vk::SubpassEndInfo::default();
        rp2.cmd_begin_render_pass2(cb, &begin, &sb);
        rp2.cmd_next_subpass2(cb, &sb, &se);
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        d.cmd_bind_vertex_buffers(cb, 0, &[vertices.buffer], &[0]);
        let fp = xfb.fp();
        (fp.cmd_bind_transform_feedback_buffers_ext)(cb, 0, 1, &out.buffer, &0, &48);
        (fp.cmd_begin_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
        d.cmd_draw(cb, 3, 1, 0, 0);
        (fp.cmd_end_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
        rp2.cmd_end_render_pass2(cb, &se);
        d.end_command_buffer(cb).unwrap();
        submit(&gpu, cb);
        let words = std::slice::from_raw_parts(out.ptr.cast::<u32>(), 12);
        for v in 0..3 {
            let rec = &words[4 * v..4 * v + 4];
            assert_eq!(f32::from_bits(rec[0]), pos[2 * v]);
            assert_eq!(f32::from_bits(rec[1]), pos[2 * v + 1]);
            assert_eq!(rec[2], v as u32, "gl_VertexIndex");
            assert_eq!(rec[3], 0xEEEE_EEEE, "the unused word is not written");
        }
        d.destroy_command_pool(cmd_pool, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_pipeline_layout(layout, None);
        d.destroy_shader_module(module, None);
        d.destroy_framebuffer(framebuffer, None);
        d.destroy_render_pass(render_pass, None);
        free(d, &vertices);
        free(d, &out);
    }
}
