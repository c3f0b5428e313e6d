//! Physical-device queries, core 1.0 and VK_KHR_get_physical_device_properties2.

use std::ffi::c_char;

use ash::vk::{self, Handle};

use super::{enumerate, extension_properties, input, out};
use crate::icd::chain;
use crate::vk::VkResult;
use crate::vk::device::Device;
use crate::vk::handle;
use crate::vk::physical_device::{DEVICE_EXTENSIONS, PhysicalDevice};

fn pd<'a>(p: vk::PhysicalDevice) -> VkResult<&'a PhysicalDevice> {
    // SAFETY: physical devices live as long as their instance; the caller
    // passes a handle from vkEnumeratePhysicalDevices (valid usage).
    unsafe { handle::dispatchable::<PhysicalDevice>(p.as_raw() as *mut u8) }
}

/// Fill the structures we know in a features2 chain; skip the rest.
///
/// # Safety
/// `p_next` is a valid output chain.
unsafe fn fill_features_chain(pd: &PhysicalDevice, p_next: *mut std::ffi::c_void) {
    // SAFETY: per the contract.
    for s in unsafe { chain::iter_out(p_next) } {
        // SAFETY: each element is a valid structure.
        let ty = unsafe { (*s).s_type };
        if ty == vk::StructureType::PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT {
            // SAFETY: sType identifies the structure.
            let f = unsafe { &mut *s.cast::<vk::PhysicalDeviceTransformFeedbackFeaturesEXT<'_>>() };
            let (xfb, streams) = pd.xfb_features();
            f.transform_feedback = vk::Bool32::from(xfb);
            f.geometry_streams = vk::Bool32::from(streams);
        } else if ty == vk::StructureType::PHYSICAL_DEVICE_INDEX_TYPE_UINT8_FEATURES_EXT {
            // SAFETY: sType identifies the structure.
            let f = unsafe { &mut *s.cast::<vk::PhysicalDeviceIndexTypeUint8FeaturesEXT<'_>>() };
            // 8-bit indices are read by the capture job and the restart kernel.
            f.index_type_uint8 = vk::TRUE;
        } else if ty == vk::StructureType::PHYSICAL_DEVICE_PRIMITIVES_GENERATED_QUERY_FEATURES_EXT {
            // SAFETY: sType identifies the structure.
            let f = unsafe {
                &mut *s.cast::<vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT<'_>>()
            };
            let (pg, discard, streams) = pd.primitives_generated_features();
            f.primitives_generated_query = vk::Bool32::from(pg);
            f.primitives_generated_query_with_rasterizer_discard = vk::Bool32::from(discard);
            f.primitives_generated_query_with_non_zero_streams = vk::Bool32::from(streams);
        } else if ty == vk::StructureType::PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES {
            // SAFETY: sType identifies the structure.
            let f = unsafe { &mut *s.cast::<vk::PhysicalDeviceTimelineSemaphoreFeatures<'_>>() };
            // Emulated on binary syncobjs (`vk::sync`).
            f.timeline_semaphore = vk::TRUE;
        } else if ty == vk::StructureType::PHYSICAL_DEVICE_MULTIVIEW_FEATURES {
            // SAFETY: sType identifies the structure.
            let f = unsafe { &mut *s.cast::<vk::PhysicalDeviceMultiviewFeatures<'_>>() };
            // A draw's vertex stage runs once per view (`vk::cmd::draw`);
            // there are no geometry or tessellation shaders.
            f.multiview = vk::TRUE;
            f.multiview_geometry_shader = vk::FALSE;
            f.multiview_tessellation_shader = vk::FALSE;
        } else if ty == vk::StructureType::PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES {
            // SAFETY: sType identifies the structure.
            let f = unsafe { &mut *s.cast::<vk::PhysicalDeviceShaderDrawParametersFeatures<'_>>() };
            // BaseVertex, BaseInstance and DrawIndex are push-uniform
            // sysvals (`lower_sysvals`); VK_KHR_shader_draw_parameters.
            f.shader_draw_parameters = vk::TRUE;
        } else if ty == vk::StructureType::PHYSICAL_DEVICE_SCALAR_BLOCK_LAYOUT_FEATURES {
            // SAFETY: sType identifies the structure.
            let f = unsafe { &mut *s.cast::<vk::PhysicalDeviceScalarBlockLayoutFeatures<'_>>() };
            // Block members are read at their `Offset` decorations, whatever
            // layout produced them (`compiler::spirv`).
            f.scalar_block_layout = vk::TRUE;
        } else if ty == vk::StructureType::PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES {
            // SAFETY: sType identifies the structure.
            let f = unsafe { &mut *s.cast::<vk::PhysicalDevice16BitStorageFeatures<'_>>() };
            // 16-bit loads and stores of buffers and push constants, and
            // the conversions to and from 32 bits (`isel::small_convert`);
            // 16-bit shader inputs and outputs are not compiled.
            f.storage_buffer16_bit_access = vk::TRUE;
            f.uniform_and_storage_buffer16_bit_access = vk::TRUE;
            f.storage_push_constant16 = vk::TRUE;
            f.storage_input_output16 = vk::FALSE;
        } else if ty == vk::StructureType::PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES {
            // SAFETY: sType identifies the structure.
            let f = unsafe { &mut *s.cast::<vk::PhysicalDevice8BitStorageFeatures<'_>>() };
            f.storage_buffer8_bit_access = vk::TRUE;
            f.uniform_and_storage_buffer8_bit_access = vk::TRUE;
            f.storage_push_constant8 = vk::TRUE;
        } else if ty == vk::StructureType::PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES {
            // SAFETY: sType identifies the structure.
            let f = unsafe { &mut *s.cast::<vk::PhysicalDeviceHostQueryResetFeatures<'_>>() };
            // Query slots live in a host-visible BO (`vk::query`).
            f.host_query_reset = vk::TRUE;
        } else if ty == vk::StructureType::PHYSICAL_DEVICE_PROVOKING_VERTEX_FEATURES_EXT {
            // SAFETY: sType identifies the structure.
            let f = unsafe { &mut *s.cast::<vk::PhysicalDeviceProvokingVertexFeaturesEXT<'_>>() };
            // Both provoking orders are capture orders of the XFB variant
            // (`lower_xfb`), chosen per pipeline.
            f.provoking_vertex_last = vk::TRUE;
            f.transform_feedback_preserves_provoking_vertex = vk::TRUE;
        } else {
            log::debug!("features2: skipping unknown structure {ty:?}");
        }
    }
}

crate::vk_entry_points! {
    fn vkGetPhysicalDeviceFeatures(physical_device: vk::PhysicalDevice, p_features: *mut vk::PhysicalDeviceFeatures) {
        if let Ok(p) = pd(physical_device) {
            let _ = out(p_features, p.features());
        }
    }

    fn vkGetPhysicalDeviceFeatures2(physical_device: vk::PhysicalDevice, p_features: *mut vk::PhysicalDeviceFeatures2<'_>) {
        if let (Ok(p), Some(f)) = (pd(physical_device), p_features.as_mut()) {
            f.features = p.features();
            fill_features_chain(p, f.p_next);
        }
    }

    fn vkGetPhysicalDeviceProperties(physical_device: vk::PhysicalDevice, p_properties: *mut vk::PhysicalDeviceProperties) {
        if let Ok(p) = pd(physical_device) {
            let _ = out(p_properties, p.properties());
        }
    }

    fn vkGetPhysicalDeviceProperties2(physical_device: vk::PhysicalDevice, p_properties: *mut vk::PhysicalDeviceProperties2<'_>) {
        if let (Ok(p), Some(props)) = (pd(physical_device), p_properties.as_mut()) {
            props.properties = p.properties();
            for s in chain::iter_out(props.p_next) {
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_PROPERTIES_EXT {
                    p.xfb_properties(&mut *s.cast::<vk::PhysicalDeviceTransformFeedbackPropertiesEXT<'_>>());
                } else if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_PROPERTIES {
                    // The emulation keeps u64 values: any difference works.
                    (*s.cast::<vk::PhysicalDeviceTimelineSemaphoreProperties<'_>>()).max_timeline_semaphore_value_difference = u64::MAX;
                } else if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_MULTIVIEW_PROPERTIES {
                    let m = &mut *s.cast::<vk::PhysicalDeviceMultiviewProperties<'_>>();
                    m.max_multiview_view_count = crate::vk::render_pass::MAX_MULTIVIEW_VIEWS;
                    // The spec's minimum; instances are not limited by views.
                    m.max_multiview_instance_index = (1 << 27) - 1;
                } else if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_POINT_CLIPPING_PROPERTIES {
                    // VK_KHR_maintenance2. Nothing is rasterized yet; a
                    // point is kept or dropped by its position alone, as
                    // the tiler culls primitives by their vertices.
                    (*s.cast::<vk::PhysicalDevicePointClippingProperties<'_>>()).point_clipping_behavior =
                        vk::PointClippingBehavior::ALL_CLIP_PLANES;
                } else if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_PROVOKING_VERTEX_PROPERTIES_EXT {
                    let pv = &mut *s.cast::<vk::PhysicalDeviceProvokingVertexPropertiesEXT<'_>>();
                    // The mode is a pipeline property of the XFB variant;
                    // fans capture {v0, v_i+1, v_i+2} in LAST mode.
                    pv.provoking_vertex_mode_per_pipeline = vk::TRUE;
                    pv.transform_feedback_preserves_triangle_fan_provoking_vertex = vk::TRUE;
                } else {
                    log::debug!("properties2: skipping unknown structure {:?}", (*s).s_type);
                }
            }
        }
    }

    fn vkGetPhysicalDeviceFormatProperties(
        physical_device: vk::PhysicalDevice,
        format: vk::Format,
        p_format_properties: *mut vk::FormatProperties,
    ) {
        if let Ok(p) = pd(physical_device) {
            let _ = out(p_format_properties, p.format_properties(format));
        }
    }

    fn vkGetPhysicalDeviceFormatProperties2(
        physical_device: vk::PhysicalDevice,
        format: vk::Format,
        p_format_properties: *mut vk::FormatProperties2<'_>,
    ) {
        if let (Ok(p), Some(f)) = (pd(physical_device), p_format_properties.as_mut()) {
            f.format_properties = p.format_properties(format);
            chain::log_unknown("vkGetPhysicalDeviceFormatProperties2", f.p_next, &[]);
        }
    }

    fn vkGetPhysicalDeviceImageFormatProperties(
        physical_device: vk::PhysicalDevice,
        _format: vk::Format,
        _ty: vk::ImageType,
        _tiling: vk::ImageTiling,
        _usage: vk::ImageUsageFlags,
        _flags: vk::ImageCreateFlags,
        _p_image_format_properties: *mut vk::ImageFormatProperties,
    ) -> vk::Result {
        pd(physical_device)?;
        // No images yet.
        Err(vk::Result::ERROR_FORMAT_NOT_SUPPORTED)
    }

    fn vkGetPhysicalDeviceImageFormatProperties2(
        physical_device: vk::PhysicalDevice,
        _p_image_format_info: *const vk::PhysicalDeviceImageFormatInfo2<'_>,
        _p_image_format_properties: *mut vk::ImageFormatProperties2<'_>,
    ) -> vk::Result {
        pd(physical_device)?;
        Err(vk::Result::ERROR_FORMAT_NOT_SUPPORTED)
    }

    fn vkGetPhysicalDeviceSparseImageFormatProperties(
        _physical_device: vk::PhysicalDevice,
        _format: vk::Format,
        _ty: vk::ImageType,
        _samples: vk::SampleCountFlags,
        _usage: vk::ImageUsageFlags,
        _tiling: vk::ImageTiling,
        p_property_count: *mut u32,
        _p_properties: *mut vk::SparseImageFormatProperties,
    ) {
        let _ = out(p_property_count, 0);
    }

    fn vkGetPhysicalDeviceSparseImageFormatProperties2(
        _physical_device: vk::PhysicalDevice,
        _p_format_info: *const vk::PhysicalDeviceSparseImageFormatInfo2<'_>,
        p_property_count: *mut u32,
        _p_properties: *mut vk::SparseImageFormatProperties2<'_>,
    ) {
        let _ = out(p_property_count, 0);
    }

    fn vkGetPhysicalDeviceQueueFamilyProperties(
        physical_device: vk::PhysicalDevice,
        p_count: *mut u32,
        p_properties: *mut vk::QueueFamilyProperties,
    ) {
        if let Ok(p) = pd(physical_device) {
            let _ = enumerate(&p.queue_families(), p_count, p_properties);
        }
    }

    fn vkGetPhysicalDeviceQueueFamilyProperties2(
        physical_device: vk::PhysicalDevice,
        p_count: *mut u32,
        p_properties: *mut vk::QueueFamilyProperties2<'_>,
    ) {
        let Ok(p) = pd(physical_device) else { return };
        let families = p.queue_families();
        let Some(count) = p_count.as_mut() else { return };
        if p_properties.is_null() {
            *count = families.len() as u32;
            return;
        }
        let n = (*count as usize).min(families.len());
        for (i, fam) in families.iter().take(n).enumerate() {
            (*p_properties.add(i)).queue_family_properties = *fam;
        }
        *count = n as u32;
    }

    fn vkGetPhysicalDeviceMemoryProperties(
        physical_device: vk::PhysicalDevice,
        p_memory_properties: *mut vk::PhysicalDeviceMemoryProperties,
    ) {
        if let Ok(p) = pd(physical_device) {
            let _ = out(p_memory_properties, p.memory_properties());
        }
    }

    fn vkGetPhysicalDeviceMemoryProperties2(
        physical_device: vk::PhysicalDevice,
        p_memory_properties: *mut vk::PhysicalDeviceMemoryProperties2<'_>,
    ) {
        if let (Ok(p), Some(m)) = (pd(physical_device), p_memory_properties.as_mut()) {
            m.memory_properties = p.memory_properties();
        }
    }

    fn vkEnumerateDeviceExtensionProperties(
        physical_device: vk::PhysicalDevice,
        p_layer_name: *const c_char,
        p_property_count: *mut u32,
        p_properties: *mut vk::ExtensionProperties,
    ) -> vk::Result {
        pd(physical_device)?;
        if !p_layer_name.is_null() {
            return Err(vk::Result::ERROR_LAYER_NOT_PRESENT);
        }
        enumerate(&extension_properties(DEVICE_EXTENSIONS), p_property_count, p_properties)
    }

    fn vkEnumerateDeviceLayerProperties(
        _physical_device: vk::PhysicalDevice,
        p_property_count: *mut u32,
        p_properties: *mut vk::LayerProperties,
    ) -> vk::Result {
        enumerate::<vk::LayerProperties>(&[], p_property_count, p_properties)
    }

    fn vkCreateDevice(
        physical_device: vk::PhysicalDevice,
        p_create_info: *const vk::DeviceCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_device: *mut vk::Device,
    ) -> vk::Result {
        let p = pd(physical_device)?;
        let info = input(p_create_info)?;
        let features2 = chain::find_in::<vk::PhysicalDeviceFeatures2<'_>>(info.p_next);
        if features2.is_some() && !info.p_enabled_features.is_null() {
            // Valid usage forbids both; refuse rather than guess.
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        // The structures form one chain; the XFB features may sit anywhere
        // in it. Geometry streams do not exist: asking for them fails.
        let (_, streams) = p.xfb_features();
        let too_much = chain::find_in::<vk::PhysicalDeviceTransformFeedbackFeaturesEXT<'_>>(info.p_next)
            .is_some_and(|x| x.geometry_streams != vk::FALSE && !streams);
        let (_, _, pg_streams) = p.primitives_generated_features();
        let too_much = too_much
            || chain::find_in::<vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT<'_>>(info.p_next)
                .is_some_and(|x| x.primitives_generated_query_with_non_zero_streams != vk::FALSE && !pg_streams);
        let too_much = too_much
            || chain::find_in::<vk::PhysicalDeviceMultiviewFeatures<'_>>(info.p_next).is_some_and(|x| {
                x.multiview_geometry_shader != vk::FALSE || x.multiview_tessellation_shader != vk::FALSE
            });
        let too_much = too_much
            || chain::find_in::<vk::PhysicalDevice16BitStorageFeatures<'_>>(info.p_next)
                .is_some_and(|x| x.storage_input_output16 != vk::FALSE);
        if too_much {
            return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
        }
        chain::log_unknown(
            "vkCreateDevice",
            info.p_next,
            &[
                vk::StructureType::PHYSICAL_DEVICE_FEATURES_2,
                vk::StructureType::PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT,
                vk::StructureType::PHYSICAL_DEVICE_PRIMITIVES_GENERATED_QUERY_FEATURES_EXT,
                vk::StructureType::PHYSICAL_DEVICE_INDEX_TYPE_UINT8_FEATURES_EXT,
                vk::StructureType::PHYSICAL_DEVICE_PROVOKING_VERTEX_FEATURES_EXT,
                vk::StructureType::PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
                vk::StructureType::PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES,
                vk::StructureType::PHYSICAL_DEVICE_MULTIVIEW_FEATURES,
                vk::StructureType::PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES,
                vk::StructureType::PHYSICAL_DEVICE_SCALAR_BLOCK_LAYOUT_FEATURES,
                vk::StructureType::PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
                vk::StructureType::PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
            ],
        );
        let features = features2
            .map(|f| &f.features)
            .or(info.p_enabled_features.as_ref());
        let exts = super::c_names(info.pp_enabled_extension_names, info.enabled_extension_count);
        let queues = super::slice(info.p_queue_create_infos, info.queue_create_info_count);
        let device = Device::new(p, &exts, queues, features)?;
        let raw = handle::new_dispatchable(device);
        out(p_device, vk::Device::from_raw(raw as u64))
    }
}
