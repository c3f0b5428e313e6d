//! Instance and physical-device queries through the Khronos loader.

mod common;

use ash::vk;
use common::*;

#[test]
fn instance_extensions_and_layers() {
    let entry = entry();
    // SAFETY: plain queries.
    let exts = unsafe { entry.enumerate_instance_extension_properties(None) }.unwrap();
    assert!(
        exts.iter()
            .any(|e| e.extension_name_as_c_str().unwrap() == GPDP2),
        "VK_KHR_get_physical_device_properties2 is advertised"
    );
    let instance = create_instance(&entry, &[GPDP2]).unwrap();
    // SAFETY: valid instance.
    unsafe { instance.destroy_instance(None) };
}

#[test]
fn unknown_extension_is_refused() {
    let entry = entry();
    let err = create_instance(&entry, &[c"VK_BIFROST_no_such_extension"]).err();
    assert_eq!(err, Some(vk::Result::ERROR_EXTENSION_NOT_PRESENT));
}

#[test]
fn simulated_g52_properties() {
    let entry = entry();
    let instance = create_instance(&entry, &[]).unwrap();
    // SAFETY: valid handles throughout.
    unsafe {
        let pds = instance.enumerate_physical_devices().unwrap();
        assert_eq!(pds.len(), 1);
        let p = instance.get_physical_device_properties(pds[0]);
        assert_eq!(p.vendor_id, 0x13B5);
        assert_eq!(p.device_id, 0x7212);
        assert_eq!(p.device_name_as_c_str().unwrap(), c"Mali-G52 (simulated)");
        assert_eq!(p.api_version, vk::API_VERSION_1_0);
        assert!(p.limits.timestamp_period > 0.0);
        assert!(p.limits.max_compute_work_group_invocations >= 128);

        let families = instance.get_physical_device_queue_family_properties(pds[0]);
        assert_eq!(families.len(), 1);
        assert_eq!(families[0].queue_count, 1);
        assert_eq!(families[0].timestamp_valid_bits, 64);

        let mem = instance.get_physical_device_memory_properties(pds[0]);
        assert_eq!((mem.memory_type_count, mem.memory_heap_count), (1, 1));
        assert_eq!(
            mem.memory_types[0].property_flags,
            vk::MemoryPropertyFlags::DEVICE_LOCAL
                | vk::MemoryPropertyFlags::HOST_VISIBLE
                | vk::MemoryPropertyFlags::HOST_COHERENT
        );

        // Only the indirect-draw features (tests/xfb_loader.rs draws with a
        // first instance from the indirect buffer), vertex-stage stores
        // (tests/vertex_stores.rs) and robust buffer access
        // (tests/robust_access.rs) are claimed.
        let f = instance.get_physical_device_features(pds[0]);
        assert_eq!(f.robust_buffer_access, vk::TRUE);
        assert_eq!(f.geometry_shader, vk::FALSE);
        assert_eq!(f.multi_draw_indirect, vk::TRUE);
        assert_eq!(f.draw_indirect_first_instance, vk::TRUE);
        assert_eq!(f.vertex_pipeline_stores_and_atomics, vk::TRUE);
        assert_eq!(f.fragment_stores_and_atomics, vk::FALSE);
        let limits = instance.get_physical_device_properties(pds[0]).limits;
        assert_eq!(limits.max_draw_indirect_count, 65_535);
        let fmt =
            instance.get_physical_device_format_properties(pds[0], vk::Format::R8G8B8A8_UNORM);
        assert_eq!(fmt.buffer_features, vk::FormatFeatureFlags::empty());
        assert_eq!(fmt.optimal_tiling_features, vk::FormatFeatureFlags::empty());
        assert_eq!(
            instance
                .get_physical_device_image_format_properties(
                    pds[0],
                    vk::Format::R8G8B8A8_UNORM,
                    vk::ImageType::TYPE_2D,
                    vk::ImageTiling::OPTIMAL,
                    vk::ImageUsageFlags::SAMPLED,
                    vk::ImageCreateFlags::empty(),
                )
                .err(),
            Some(vk::Result::ERROR_FORMAT_NOT_SUPPORTED)
        );
        let dev_exts = instance
            .enumerate_device_extension_properties(pds[0])
            .unwrap();
        let names: Vec<_> = dev_exts
            .iter()
            .map(|e| e.extension_name_as_c_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                c"VK_EXT_transform_feedback",
                c"VK_EXT_index_type_uint8",
                c"VK_EXT_primitives_generated_query",
                c"VK_KHR_descriptor_update_template",
                c"VK_KHR_maintenance1",
                c"VK_KHR_draw_indirect_count",
                c"VK_EXT_provoking_vertex",
                c"VK_KHR_timeline_semaphore",
                c"VK_EXT_host_query_reset",
                c"VK_KHR_multiview",
                c"VK_KHR_maintenance2",
                c"VK_KHR_create_renderpass2",
                c"VK_KHR_shader_draw_parameters",
                c"VK_EXT_scalar_block_layout",
                c"VK_KHR_storage_buffer_storage_class",
                c"VK_KHR_16bit_storage",
                c"VK_KHR_8bit_storage",
                c"VK_KHR_shader_non_semantic_info",
            ]
        );
        instance.destroy_instance(None);
    }
}

#[test]
fn device_commands_not_implemented_are_null() {
    let gpu = Gpu::new();
    for name in [c"vkCreateImage", c"vkCmdCopyImage", c"vkCreateSampler"] {
        assert!(
            gpu.hook(name).is_none(),
            "{name:?} must be absent, not a stub"
        );
    }
    for name in [
        c"vkQueueSubmit",
        c"vkCmdWriteTimestamp",
        c"vkAllocateMemory",
        c"vkCmdDraw",
        c"vkCreateGraphicsPipelines",
        c"vkCmdBeginTransformFeedbackEXT",
        c"vkCmdCopyBuffer",
        c"vkCreatePipelineCache",
        c"vkGetPipelineCacheData",
        c"vkMergePipelineCaches",
        c"vkCreateEvent",
        c"vkCmdWaitEvents",
        c"vkCmdExecuteCommands",
    ] {
        assert!(gpu.hook(name).is_some(), "{name:?} is implemented");
    }
}

#[test]
fn device_creation_checks_queues_and_extensions() {
    let gpu = Gpu::new();
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let ext = [c"VK_KHR_swapchain".as_ptr()];
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&ext);
    let r = create_device(&gpu.instance, gpu.physical_device, &info);
    assert_eq!(r.err(), Some(vk::Result::ERROR_EXTENSION_NOT_PRESENT));
    let features = vk::PhysicalDeviceFeatures::default().geometry_shader(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_features(&features);
    let r = create_device(&gpu.instance, gpu.physical_device, &info);
    assert_eq!(r.err(), Some(vk::Result::ERROR_FEATURE_NOT_PRESENT));
}
