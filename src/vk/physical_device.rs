//! VkPhysicalDevice: what a Bifrost JM GPU (real or simulated) reports.
//!
//! Only what works is advertised: no optional features, no image formats,
//! one queue family, one memory type. Limits are the Vulkan 1.0 required
//! values unless a GPU parameter gives the real one (compute workgroup
//! size); see docs/STATUS.md.

use std::ffi::CStr;

use ash::vk;

use crate::hw::Arch;
use crate::kmod::{DeviceSource, KmodError, Param};
use crate::vk::handle::Object;

/// ARM's PCI vendor id.
pub const VENDOR_ID_ARM: u32 = 0x13B5;

/// Device extensions we implement.
pub const DEVICE_EXTENSIONS: &[(&CStr, u32)] = &[
    (c"VK_EXT_transform_feedback", 1),
    (c"VK_EXT_index_type_uint8", 1),
    (c"VK_EXT_primitives_generated_query", 1),
    (c"VK_KHR_descriptor_update_template", 1),
    (c"VK_KHR_maintenance1", 2),
    (c"VK_KHR_draw_indirect_count", 1),
    (c"VK_EXT_provoking_vertex", 1),
    (c"VK_KHR_timeline_semaphore", 2),
    (c"VK_EXT_host_query_reset", 1),
    (c"VK_KHR_multiview", 1),
    (c"VK_KHR_maintenance2", 1),
    (c"VK_KHR_create_renderpass2", 1),
    (c"VK_KHR_shader_draw_parameters", 1),
    (c"VK_EXT_scalar_block_layout", 1),
    (c"VK_KHR_storage_buffer_storage_class", 1),
    (c"VK_KHR_16bit_storage", 1),
    (c"VK_KHR_8bit_storage", 1),
    (c"VK_KHR_shader_non_semantic_info", 1),
];

pub struct PhysicalDevice {
    pub source: DeviceSource,
    pub product_id: u32,
    pub arch: Arch,
    pub name: String,
    /// SYSTEM_TIMESTAMP_FREQUENCY, when the kernel reports one.
    pub timestamp_hz: Option<u64>,
    pub heap_size: u64,
    pub max_workgroup_size: u32,
}

impl Object for PhysicalDevice {
    const TAG: u64 = 0x6276_6b5f_7064_6576; // "bvk_pdev"
}

/// Marketing name of a Bifrost product id (Mesa `src/panfrost/lib/pan_props.c`).
pub fn model_name(prod_id: u32) -> &'static str {
    match prod_id {
        0x6000 => "Mali-G71",
        0x6221 => "Mali-G72",
        0x7090 => "Mali-G51",
        0x7093 => "Mali-G31",
        0x7211 => "Mali-G76",
        0x7212 | 0x7402 => "Mali-G52",
        _ => "Mali (unknown Bifrost)",
    }
}

/// `pipelineCacheUUID`: the first 16 bytes of SHA-256 over the crate
/// version, the hash of the driver's source that `build.rs` computes
/// (`BIFROST_VK_SOURCE_SHA256`: every file under `src/`) and the GPU product
/// id. Any change to the driver's source, the compiler's above all, gives a
/// new UUID, so pipeline cache data saved by another build is incompatible
/// ("Pipeline Cache" in the Vulkan spec: data whose header does not match is
/// ignored) and the cache starts empty (`vk::pipeline_cache`).
pub fn pipeline_cache_uuid(product_id: u32) -> [u8; vk::UUID_SIZE] {
    let mut h = crate::util::sha256::Sha256::new();
    h.update(b"bifrost-vk pipelineCacheUUID\0");
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(b"\0");
    h.update(env!("BIFROST_VK_SOURCE_SHA256").as_bytes());
    h.update(&product_id.to_le_bytes());
    let d = h.finish();
    let mut uuid = [0; vk::UUID_SIZE];
    uuid.copy_from_slice(&d[..vk::UUID_SIZE]);
    uuid
}

impl PhysicalDevice {
    /// Open the device once and read what we need to describe it.
    pub fn probe(source: DeviceSource) -> Result<PhysicalDevice, KmodError> {
        let dev = source.open()?;
        let k = dev.kernel();
        let product_id = k.get_param(Param::GpuProdId)? as u32;
        let arch = Arch::from_product_id(product_id)
            .ok_or_else(|| KmodError::NoDevice(format!("product id {product_id:#x}")))?;
        let timestamp_hz = k
            .get_param(Param::SystemTimestampFrequency)
            .ok()
            .filter(|&hz| hz > 0);
        let max_workgroup_size = k
            .get_param(Param::ThreadMaxWorkgroupSz)
            .ok()
            .filter(|&v| v >= 128)
            .unwrap_or(128) as u32;
        let simulated = source.is_simulated();
        let name = if simulated {
            format!("{} (simulated)", model_name(product_id))
        } else {
            model_name(product_id).to_string()
        };
        let heap_size = k.memory_size();
        Ok(PhysicalDevice {
            source,
            product_id,
            arch,
            name,
            timestamp_hz,
            heap_size,
            max_workgroup_size,
        })
    }

    pub fn timestamps_supported(&self) -> bool {
        self.timestamp_hz.is_some()
    }

    pub fn properties(&self) -> vk::PhysicalDeviceProperties {
        let mut p = vk::PhysicalDeviceProperties {
            api_version: super::instance::API_VERSION,
            driver_version: vk::make_api_version(
                0,
                env!("CARGO_PKG_VERSION_MAJOR").parse().unwrap_or(0),
                env!("CARGO_PKG_VERSION_MINOR").parse().unwrap_or(0),
                env!("CARGO_PKG_VERSION_PATCH").parse().unwrap_or(0),
            ),
            vendor_id: VENDOR_ID_ARM,
            device_id: self.product_id,
            device_type: if self.source.is_simulated() {
                // It runs on the CPU: do not let applications mistake it for a GPU.
                vk::PhysicalDeviceType::CPU
            } else {
                vk::PhysicalDeviceType::INTEGRATED_GPU
            },
            limits: self.limits(),
            sparse_properties: vk::PhysicalDeviceSparseProperties::default(),
            ..Default::default()
        };
        crate::util::write_c_str(&mut p.device_name, &self.name);
        p.pipeline_cache_uuid = pipeline_cache_uuid(self.product_id);
        p
    }

    fn limits(&self) -> vk::PhysicalDeviceLimits {
        let wg = self.max_workgroup_size;
        vk::PhysicalDeviceLimits {
            max_image_dimension1_d: 4096,
            max_image_dimension2_d: 4096,
            max_image_dimension3_d: 256,
            max_image_dimension_cube: 4096,
            max_image_array_layers: 256,
            max_texel_buffer_elements: 65536,
            max_uniform_buffer_range: 16384,
            max_storage_buffer_range: 1 << 27,
            max_push_constants_size: 128,
            max_memory_allocation_count: 4096,
            max_sampler_allocation_count: 4000,
            buffer_image_granularity: 64,
            sparse_address_space_size: 0,
            max_bound_descriptor_sets: 4,
            max_per_stage_descriptor_samplers: 16,
            max_per_stage_descriptor_uniform_buffers: 12,
            max_per_stage_descriptor_storage_buffers: 4,
            max_per_stage_descriptor_sampled_images: 16,
            max_per_stage_descriptor_storage_images: 4,
            max_per_stage_descriptor_input_attachments: 4,
            max_per_stage_resources: 128,
            max_descriptor_set_samplers: 96,
            max_descriptor_set_uniform_buffers: 72,
            max_descriptor_set_uniform_buffers_dynamic: 8,
            max_descriptor_set_storage_buffers: 24,
            max_descriptor_set_storage_buffers_dynamic: 4,
            max_descriptor_set_sampled_images: 96,
            max_descriptor_set_storage_images: 24,
            max_descriptor_set_input_attachments: 4,
            max_vertex_input_attributes: 16,
            max_vertex_input_bindings: 16,
            max_vertex_input_attribute_offset: 2047,
            max_vertex_input_binding_stride: 2048,
            max_vertex_output_components: 64,
            max_fragment_input_components: 64,
            max_fragment_output_attachments: 4,
            max_fragment_combined_output_resources: 4,
            max_compute_shared_memory_size: 16384,
            max_compute_work_group_count: [65535; 3],
            max_compute_work_group_invocations: wg,
            max_compute_work_group_size: [wg, wg, 64],
            sub_pixel_precision_bits: 4,
            sub_texel_precision_bits: 4,
            mipmap_precision_bits: 4,
            max_draw_indexed_index_value: u32::MAX,
            max_draw_indirect_count: super::cmd::MAX_DRAW_INDIRECT_COUNT,
            max_sampler_lod_bias: 2.0,
            max_sampler_anisotropy: 1.0,
            max_viewports: 1,
            max_viewport_dimensions: [4096, 4096],
            viewport_bounds_range: [-8192.0, 8191.0],
            min_memory_map_alignment: 64,
            min_texel_buffer_offset_alignment: super::buffer::DESCRIPTOR_OFFSET_ALIGNMENT,
            min_uniform_buffer_offset_alignment: super::buffer::DESCRIPTOR_OFFSET_ALIGNMENT,
            min_storage_buffer_offset_alignment: super::buffer::DESCRIPTOR_OFFSET_ALIGNMENT,
            min_texel_offset: -8,
            max_texel_offset: 7,
            min_texel_gather_offset: -8,
            max_texel_gather_offset: 7,
            min_interpolation_offset: -0.5,
            max_interpolation_offset: 0.4375,
            sub_pixel_interpolation_offset_bits: 4,
            max_framebuffer_width: 4096,
            max_framebuffer_height: 4096,
            max_framebuffer_layers: 256,
            framebuffer_color_sample_counts: vk::SampleCountFlags::TYPE_1
                | vk::SampleCountFlags::TYPE_4,
            framebuffer_depth_sample_counts: vk::SampleCountFlags::TYPE_1
                | vk::SampleCountFlags::TYPE_4,
            framebuffer_stencil_sample_counts: vk::SampleCountFlags::TYPE_1
                | vk::SampleCountFlags::TYPE_4,
            framebuffer_no_attachments_sample_counts: vk::SampleCountFlags::TYPE_1
                | vk::SampleCountFlags::TYPE_4,
            max_color_attachments: 4,
            sampled_image_color_sample_counts: vk::SampleCountFlags::TYPE_1
                | vk::SampleCountFlags::TYPE_4,
            sampled_image_integer_sample_counts: vk::SampleCountFlags::TYPE_1,
            sampled_image_depth_sample_counts: vk::SampleCountFlags::TYPE_1
                | vk::SampleCountFlags::TYPE_4,
            sampled_image_stencil_sample_counts: vk::SampleCountFlags::TYPE_1
                | vk::SampleCountFlags::TYPE_4,
            storage_image_sample_counts: vk::SampleCountFlags::TYPE_1,
            max_sample_mask_words: 1,
            timestamp_compute_and_graphics: self.timestamps_supported().into(),
            timestamp_period: self.timestamp_hz.map_or(1.0, |hz| (1e9 / hz as f64) as f32),
            discrete_queue_priorities: 2,
            point_size_range: [1.0, 1.0],
            line_width_range: [1.0, 1.0],
            point_size_granularity: 0.0,
            line_width_granularity: 0.0,
            standard_sample_locations: vk::FALSE,
            optimal_buffer_copy_offset_alignment: 1,
            optimal_buffer_copy_row_pitch_alignment: 1,
            non_coherent_atom_size: 64,
            ..Default::default()
        }
    }

    /// The optional features that work (docs/STATUS.md): indirect draws
    /// take `firstInstance` from the buffer and may be many per command
    /// (`vk::cmd::indirect`; a command buffer whose job chain fills up
    /// continues in a new segment); vertex shaders may write memory (every
    /// draw runs their vertex stage, `vk::cmd::draw::vertex_stage`);
    /// 64-bit integers compile (`compiler::passes::lower_int64` for what
    /// the backend has no sequence of its own for).
    pub fn features(&self) -> vk::PhysicalDeviceFeatures {
        vk::PhysicalDeviceFeatures {
            draw_indirect_first_instance: vk::TRUE,
            multi_draw_indirect: vk::TRUE,
            robust_buffer_access: vk::TRUE,
            vertex_pipeline_stores_and_atomics: vk::TRUE,
            full_draw_index_uint32: vk::TRUE,
            shader_int64: vk::TRUE,
            ..Default::default()
        }
    }

    /// One heap, one type: device-local | host-visible | host-coherent (as PanVk on v6/v7).
    pub fn memory_properties(&self) -> vk::PhysicalDeviceMemoryProperties {
        let mut m = vk::PhysicalDeviceMemoryProperties {
            memory_type_count: 1,
            memory_heap_count: 1,
            ..Default::default()
        };
        m.memory_types[0] = vk::MemoryType {
            property_flags: vk::MemoryPropertyFlags::DEVICE_LOCAL
                | vk::MemoryPropertyFlags::HOST_VISIBLE
                | vk::MemoryPropertyFlags::HOST_COHERENT,
            heap_index: 0,
        };
        m.memory_heaps[0] = vk::MemoryHeap {
            size: self.heap_size,
            flags: vk::MemoryHeapFlags::DEVICE_LOCAL,
        };
        m
    }

    /// One family with one queue. GRAPHICS|COMPUTE describe the hardware
    /// queue (both are needed for the query commands to be valid); which
    /// commands exist is decided by the dispatch table.
    pub fn queue_families(&self) -> Vec<vk::QueueFamilyProperties> {
        vec![vk::QueueFamilyProperties {
            queue_flags: vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE,
            queue_count: 1,
            timestamp_valid_bits: if self.timestamps_supported() { 64 } else { 0 },
            min_image_transfer_granularity: vk::Extent3D {
                width: 1,
                height: 1,
                depth: 1,
            },
        }]
    }

    /// No format is usable yet: no images, no vertex input, no texel buffers.
    /// Vertex formats the attribute unit reads (`super::pipeline::vertex_format`)
    /// report `VERTEX_BUFFER`; no format supports images yet.
    pub fn format_properties(&self, format: vk::Format) -> vk::FormatProperties {
        vk::FormatProperties {
            buffer_features: if super::pipeline::vertex_format(format).is_some() {
                vk::FormatFeatureFlags::VERTEX_BUFFER
            } else {
                vk::FormatFeatureFlags::empty()
            },
            ..Default::default()
        }
    }

    /// `VkPhysicalDeviceTransformFeedbackFeaturesEXT`: capture works;
    /// there are no geometry shaders, so no geometry streams.
    pub fn xfb_features(&self) -> (bool, bool) {
        (true, false)
    }

    /// `VkPhysicalDevicePrimitivesGeneratedQueryFeaturesEXT`:
    /// (primitivesGeneratedQuery, ...WithRasterizerDiscard,
    /// ...WithNonZeroStreams). The count comes from the draw's parameters on
    /// the GPU, not from rasterization, so discard does not change it; only
    /// stream 0 exists.
    pub fn primitives_generated_features(&self) -> (bool, bool, bool) {
        (true, true, false)
    }

    /// `VkPhysicalDeviceTransformFeedbackPropertiesEXT` (docs/STATUS.md).
    pub fn xfb_properties(&self, p: &mut vk::PhysicalDeviceTransformFeedbackPropertiesEXT<'_>) {
        use crate::compiler::passes::lower_xfb::XFB_MAX_BUFFERS;
        p.max_transform_feedback_streams = 1;
        p.max_transform_feedback_buffers = XFB_MAX_BUFFERS;
        // Binding sizes and offsets are 32-bit in the draw parameters.
        p.max_transform_feedback_buffer_size = u64::from(u32::MAX);
        p.max_transform_feedback_stream_data_size = 2048;
        p.max_transform_feedback_buffer_data_size = 2048;
        p.max_transform_feedback_buffer_data_stride = 2048;
        // Stream queries of stream 0 (vk::cmd::query).
        p.transform_feedback_queries = vk::TRUE;
        // Not implemented yet: vkCmdDrawIndirectByteCountEXT.
        p.transform_feedback_streams_lines_triangles = vk::FALSE;
        p.transform_feedback_rasterization_stream_select = vk::FALSE;
        p.transform_feedback_draw = vk::TRUE;
    }
}
