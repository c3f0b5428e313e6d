//! VK_KHR_get_physical_device_properties2: pNext chains are walked safely,
//! unknown structures skipped untouched.

mod common;

use ash::vk;
use common::*;

/// A structure type no driver knows, to put in chains.
#[repr(C)]
struct Unknown {
    s_type: vk::StructureType,
    p_next: *mut std::ffi::c_void,
    payload: [u32; 4],
}

fn unknown() -> Unknown {
    Unknown {
        s_type: vk::StructureType::from_raw(0x7ead_beef),
        p_next: std::ptr::null_mut(),
        payload: [0xa5a5_a5a5; 4],
    }
}

#[test]
fn features2_and_properties2_chains() {
    let gpu = Gpu::new();
    let ext = ash::khr::get_physical_device_properties2::Instance::new(&gpu.entry, &gpu.instance);
    let mut unk = unknown();
    let mut xfb = vk::PhysicalDeviceTransformFeedbackFeaturesEXT {
        transform_feedback: vk::TRUE,
        geometry_streams: vk::TRUE,
        p_next: (&mut unk as *mut Unknown).cast(),
        ..Default::default()
    };
    let mut f2 = vk::PhysicalDeviceFeatures2 {
        p_next: (&mut xfb as *mut vk::PhysicalDeviceTransformFeedbackFeaturesEXT).cast(),
        ..Default::default()
    };
    // SAFETY: valid chain.
    unsafe { ext.get_physical_device_features2(gpu.physical_device, &mut f2) };
    assert_eq!(xfb.transform_feedback, vk::TRUE, "transform feedback works");
    assert_eq!(xfb.geometry_streams, vk::FALSE, "no geometry shaders");
    assert_eq!(unk.payload, [0xa5a5_a5a5; 4], "unknown structure untouched");
    assert_eq!(f2.features.robust_buffer_access, vk::TRUE);
    assert_eq!(f2.features.geometry_shader, vk::FALSE);

    // VK_EXT_primitives_generated_query: counts on stream 0, with or without
    // rasterizer discard.
    let mut pg = vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT {
        primitives_generated_query_with_non_zero_streams: vk::TRUE,
        ..Default::default()
    };
    let mut f2 = vk::PhysicalDeviceFeatures2 {
        p_next: (&mut pg as *mut vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT).cast(),
        ..Default::default()
    };
    // SAFETY: valid chain.
    unsafe { ext.get_physical_device_features2(gpu.physical_device, &mut f2) };
    assert_eq!(pg.primitives_generated_query, vk::TRUE);
    assert_eq!(
        pg.primitives_generated_query_with_rasterizer_discard,
        vk::TRUE
    );
    assert_eq!(
        pg.primitives_generated_query_with_non_zero_streams,
        vk::FALSE
    );

    // VK_EXT_provoking_vertex: both modes, preserved in capture
    // (tests/xfb_loader.rs::xfb_provoking_vertex_*), fans included.
    let mut pv = vk::PhysicalDeviceProvokingVertexFeaturesEXT::default();
    let mut f2 = vk::PhysicalDeviceFeatures2 {
        p_next: (&mut pv as *mut vk::PhysicalDeviceProvokingVertexFeaturesEXT).cast(),
        ..Default::default()
    };
    // SAFETY: valid chain.
    unsafe { ext.get_physical_device_features2(gpu.physical_device, &mut f2) };
    assert_eq!(pv.provoking_vertex_last, vk::TRUE);
    assert_eq!(pv.transform_feedback_preserves_provoking_vertex, vk::TRUE);
    let mut pvp = vk::PhysicalDeviceProvokingVertexPropertiesEXT::default();
    let mut p2 = vk::PhysicalDeviceProperties2 {
        p_next: (&mut pvp as *mut vk::PhysicalDeviceProvokingVertexPropertiesEXT).cast(),
        ..Default::default()
    };
    // SAFETY: valid chain.
    unsafe { ext.get_physical_device_properties2(gpu.physical_device, &mut p2) };
    assert_eq!(pvp.provoking_vertex_mode_per_pipeline, vk::TRUE);
    assert_eq!(
        pvp.transform_feedback_preserves_triangle_fan_provoking_vertex,
        vk::TRUE
    );

    let mut unk = unknown();
    let mut xp = vk::PhysicalDeviceTransformFeedbackPropertiesEXT {
        p_next: (&mut unk as *mut Unknown).cast(),
        transform_feedback_queries: vk::FALSE,
        transform_feedback_draw: vk::TRUE,
        ..Default::default()
    };
    let mut p2 = vk::PhysicalDeviceProperties2 {
        p_next: (&mut xp as *mut vk::PhysicalDeviceTransformFeedbackPropertiesEXT).cast(),
        ..Default::default()
    };
    // SAFETY: valid chain.
    unsafe { ext.get_physical_device_properties2(gpu.physical_device, &mut p2) };
    assert_eq!(p2.properties.vendor_id, 0x13B5);
    assert_eq!(unk.payload, [0xa5a5_a5a5; 4]);
    assert_eq!(xp.max_transform_feedback_streams, 1);
    assert_eq!(xp.max_transform_feedback_buffers, 4);
    assert_eq!(xp.max_transform_feedback_buffer_size, u64::from(u32::MAX));
    assert_eq!(xp.max_transform_feedback_buffer_data_size, 2048);
    assert_eq!(xp.max_transform_feedback_buffer_data_stride, 2048);
    // Stream queries work (tests/xfb_queries.rs), and so do byte-count
    // draws (tests/xfb_loader.rs::xfb_byte_count_draws_*).
    assert_eq!(xp.transform_feedback_queries, vk::TRUE);
    assert_eq!(xp.transform_feedback_draw, vk::TRUE);

    let mut m2 = vk::PhysicalDeviceMemoryProperties2::default();
    // SAFETY: valid structure.
    unsafe { ext.get_physical_device_memory_properties2(gpu.physical_device, &mut m2) };
    assert_eq!(m2.memory_properties.memory_type_count, 1);

    // SAFETY: valid handles.
    let n = unsafe { ext.get_physical_device_queue_family_properties2_len(gpu.physical_device) };
    assert_eq!(n, 1);
    let mut q2 = [vk::QueueFamilyProperties2::default()];
    // SAFETY: room for one.
    unsafe { ext.get_physical_device_queue_family_properties2(gpu.physical_device, &mut q2) };
    assert_eq!(q2[0].queue_family_properties.queue_count, 1);

    let mut fmt = vk::FormatProperties2::default();
    // SAFETY: valid structure.
    unsafe {
        ext.get_physical_device_format_properties2(
            gpu.physical_device,
            vk::Format::R32_SFLOAT,
            &mut fmt,
        )
    };
    assert_eq!(
        fmt.format_properties.buffer_features,
        vk::FormatFeatureFlags::VERTEX_BUFFER
    );
    assert_eq!(
        fmt.format_properties.optimal_tiling_features,
        vk::FormatFeatureFlags::empty()
    );
}

#[test]
fn device_creation_skips_unknown_pnext_and_checks_features2() {
    let gpu = Gpu::new();
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let mut unk = unknown();
    let f2 = vk::PhysicalDeviceFeatures2 {
        p_next: (&mut unk as *mut Unknown).cast(),
        ..Default::default()
    };
    let mut info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
    info.p_next = (&f2 as *const vk::PhysicalDeviceFeatures2).cast();
    let device = create_device(&gpu.instance, gpu.physical_device, &info).unwrap();
    destroy_device(&device);

    let mut f2 = vk::PhysicalDeviceFeatures2::default();
    f2.features.sampler_anisotropy = vk::TRUE;
    let mut info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
    info.p_next = (&f2 as *const vk::PhysicalDeviceFeatures2).cast();
    let r = create_device(&gpu.instance, gpu.physical_device, &info);
    assert_eq!(r.err(), Some(vk::Result::ERROR_FEATURE_NOT_PRESENT));

    // Transform feedback can be enabled through the chain (with its extension)...
    let mut xfb = vk::PhysicalDeviceTransformFeedbackFeaturesEXT {
        transform_feedback: vk::TRUE,
        ..Default::default()
    };
    let f2 = vk::PhysicalDeviceFeatures2 {
        p_next: (&mut xfb as *mut vk::PhysicalDeviceTransformFeedbackFeaturesEXT).cast(),
        ..Default::default()
    };
    let exts = [c"VK_EXT_transform_feedback".as_ptr()];
    let mut info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts);
    info.p_next = (&f2 as *const vk::PhysicalDeviceFeatures2).cast();
    let device = create_device(&gpu.instance, gpu.physical_device, &info).unwrap();
    destroy_device(&device);

    // ... but geometry streams do not exist.
    let mut xfb = vk::PhysicalDeviceTransformFeedbackFeaturesEXT {
        transform_feedback: vk::TRUE,
        geometry_streams: vk::TRUE,
        ..Default::default()
    };
    let f2 = vk::PhysicalDeviceFeatures2 {
        p_next: (&mut xfb as *mut vk::PhysicalDeviceTransformFeedbackFeaturesEXT).cast(),
        ..Default::default()
    };
    let mut info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
    info.p_next = (&f2 as *const vk::PhysicalDeviceFeatures2).cast();
    let r = create_device(&gpu.instance, gpu.physical_device, &info);
    assert_eq!(r.err(), Some(vk::Result::ERROR_FEATURE_NOT_PRESENT));

    // Primitives-generated queries: the supported features can be enabled,
    // non-zero streams cannot.
    for (streams, ok) in [(vk::FALSE, true), (vk::TRUE, false)] {
        let mut pg = vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT {
            primitives_generated_query: vk::TRUE,
            primitives_generated_query_with_rasterizer_discard: vk::TRUE,
            primitives_generated_query_with_non_zero_streams: streams,
            ..Default::default()
        };
        let f2 = vk::PhysicalDeviceFeatures2 {
            p_next: (&mut pg as *mut vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT).cast(),
            ..Default::default()
        };
        let exts = [
            c"VK_EXT_transform_feedback".as_ptr(),
            c"VK_EXT_primitives_generated_query".as_ptr(),
        ];
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&exts);
        info.p_next = (&f2 as *const vk::PhysicalDeviceFeatures2).cast();
        match create_device(&gpu.instance, gpu.physical_device, &info) {
            Ok(device) if ok => destroy_device(&device),
            r => assert_eq!(r.err(), Some(vk::Result::ERROR_FEATURE_NOT_PRESENT)),
        }
    }
}
