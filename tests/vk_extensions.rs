//! The small device extensions, through the loader:
//! VK_KHR_descriptor_update_template (a compute dispatch whose descriptors
//! were written by a template from application data with a stride) and
//! VK_KHR_maintenance1 (vkTrimCommandPool). VK_KHR_create_renderpass2 and
//! VK_KHR_multiview have their own file, `multiview.rs`.

mod common;
#[path = "support/fill_compute.rs"]
mod fill_compute;

use ash::vk;
use common::*;
use fill_compute::FillCompute;

const EXTENSIONS: [&std::ffi::CStr; 3] = [
    c"VK_EXT_transform_feedback",
    c"VK_KHR_descriptor_update_template",
    c"VK_KHR_maintenance1",
];

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
        let f = FillCompute::new(
            d,
            vk::DescriptorType::UNIFORM_BUFFER,
            vk::DescriptorPoolCreateFlags::empty(),
        );
        let (layout, pipeline, sets, l0) = (f.layout, f.pipeline, &f.sets, f.layouts[0]);
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::UNIFORM_BUFFER;
        let (src, dst, k) = (
            Buf::new(d, 64, usage),
            Buf::new(d, 64, usage),
            Buf::new(d, 256, usage),
        );
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
        d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, sets, &[]);
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
        f.destroy(d);
        for m in [&src, &dst, &k] {
            m.destroy(d);
        }
    }
}
