//! Transform feedback through the Khronos loader: a triangle strip and a
//! triangle fan of five vertices each are captured into one buffer that
//! holds five triangles, so the fan overflows and only whole primitives are
//! written. Prints what the GPU captured beside what the Vulkan spec
//! requires, and the byte offset the End command left in the counter buffer.
//!
//!     cargo build && cargo run --example xfb_capture
//!
//! (`scripts/run-sim.sh` runs it after vulkaninfo.) Uses the manifest the
//! build wrote (target/debug/bifrost_vk_icd.json) unless VK_ICD_FILENAMES is
//! set; on a machine without a Mali GPU that is the simulated Mali-G52.
//! Exits with status 1 when a captured byte differs from the spec's rules.

use ash::vk;

const SHADER: &[u8] = include_bytes!("shaders/xfb_capture.vert.spv");
/// Bytes per captured vertex: vec2 position, uint vertex index, 4 unused.
const STRIDE: u64 = 16;
/// Room for five triangles.
const CAPACITY: u64 = 5 * 3 * STRIDE;
/// Never written by the GPU: the unused 4 bytes of each record keep it.
const UNTOUCHED: u32 = 0xDDDD_DDDD;

/// The spec's capture order for `n` vertices (Vulkan spec, "Primitive
/// Topologies"): strip triangle i = {i, i+1+i%2, i+2-i%2}; fan triangle i =
/// {i+1, i+2, 0}.
fn spec_order(topology: vk::PrimitiveTopology, n: u32) -> Vec<[u32; 3]> {
    (0..n.saturating_sub(2))
        .map(|i| match topology {
            vk::PrimitiveTopology::TRIANGLE_STRIP => [i, i + 1 + i % 2, i + 2 - i % 2],
            _ => [i + 1, i + 2, 0],
        })
        .collect()
}

fn position(v: u32) -> [f32; 2] {
    let a = v as f32 * 0.7;
    [
        (a.cos() * 100.0).round() / 100.0,
        (a.sin() * 100.0).round() / 100.0,
    ]
}

struct Buffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
}

unsafe fn buffer(
    d: &ash::Device,
    size: u64,
    usage: vk::BufferUsageFlags,
) -> Result<Buffer, vk::Result> {
    // SAFETY: valid device; memory type 0 is host-visible and coherent.
    unsafe {
        let buffer = d.create_buffer(
            &vk::BufferCreateInfo::default().size(size).usage(usage),
            None,
        )?;
        let req = d.get_buffer_memory_requirements(buffer);
        let memory = d.allocate_memory(
            &vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(0),
            None,
        )?;
        d.bind_buffer_memory(buffer, memory, 0)?;
        let ptr = d
            .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())?
            .cast();
        Ok(Buffer {
            buffer,
            memory,
            ptr,
        })
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::var_os("VK_ICD_FILENAMES").is_none() {
        let manifest = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/target/debug/bifrost_vk_icd.json"
        );
        // SAFETY: single-threaded, before the loader is loaded.
        unsafe { std::env::set_var("VK_ICD_FILENAMES", manifest) };
    }
    // SAFETY: loading the system's Khronos loader.
    let entry = unsafe { ash::Entry::load()? };
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_0);
    let instance_exts = [vk::KHR_GET_PHYSICAL_DEVICE_PROPERTIES2_NAME.as_ptr()];
    // SAFETY: valid handles and create infos throughout; everything is
    // destroyed before returning.
    unsafe {
        let instance = entry.create_instance(
            &vk::InstanceCreateInfo::default()
                .application_info(&app)
                .enabled_extension_names(&instance_exts),
            None,
        )?;
        let pd = *instance
            .enumerate_physical_devices()?
            .first()
            .ok_or("no Vulkan device")?;
        let props = instance.get_physical_device_properties(pd);
        println!(
            "device: {}",
            props.device_name_as_c_str()?.to_string_lossy()
        );

        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&prio)];
        let exts = [c"VK_EXT_transform_feedback".as_ptr()];
        let mut xfb_features =
            vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default().transform_feedback(true);
        let d = instance.create_device(
            pd,
            &vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .enabled_extension_names(&exts)
                .push_next(&mut xfb_features),
            None,
        )?;
        let xfb = ash::ext::transform_feedback::Device::new(&instance, &d);
        let queue = d.get_device_queue(0, 0);

        let module = d.create_shader_module(
            &vk::ShaderModuleCreateInfo {
                code_size: SHADER.len(),
                p_code: SHADER.as_ptr().cast(),
                ..Default::default()
            },
            None,
        )?;
        let layout = d.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)?;
        let subpass =
            [vk::SubpassDescription::default()
                .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)];
        let render_pass = d.create_render_pass(
            &vk::RenderPassCreateInfo::default().subpasses(&subpass),
            None,
        )?;
        let framebuffer = d.create_framebuffer(
            &vk::FramebufferCreateInfo::default()
                .render_pass(render_pass)
                .width(1)
                .height(1)
                .layers(1),
            None,
        )?;
        let topologies = [
            vk::PrimitiveTopology::TRIANGLE_STRIP,
            vk::PrimitiveTopology::TRIANGLE_FAN,
        ];
        let mut pipelines = Vec::new();
        for topology in topologies {
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
            let ia = vk::PipelineInputAssemblyStateCreateInfo::default().topology(topology);
            let rs = vk::PipelineRasterizationStateCreateInfo::default()
                .rasterizer_discard_enable(true)
                .line_width(1.0);
            let info = vk::GraphicsPipelineCreateInfo::default()
                .stages(&stages)
                .vertex_input_state(&vi)
                .input_assembly_state(&ia)
                .rasterization_state(&rs)
                .layout(layout)
                .render_pass(render_pass);
            pipelines.push(
                d.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
                    .map_err(|(_, e)| e)?[0],
            );
        }

        // Vertices 0..5 for the strip, 5..10 for the fan (firstVertex 5).
        let vertices = buffer(&d, 10 * 8, vk::BufferUsageFlags::VERTEX_BUFFER)?;
        let pos: Vec<[f32; 2]> = (0..10).map(position).collect();
        std::ptr::copy_nonoverlapping(pos.as_ptr().cast::<u8>(), vertices.ptr, 80);
        let captured = buffer(
            &d,
            CAPACITY,
            vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
        )?;
        std::slice::from_raw_parts_mut(captured.ptr.cast::<u32>(), (CAPACITY / 4) as usize)
            .fill(UNTOUCHED);
        let counter = buffer(
            &d,
            4,
            vk::BufferUsageFlags::TRANSFORM_FEEDBACK_COUNTER_BUFFER_EXT,
        )?;

        let pool = d.create_command_pool(
            &vk::CommandPoolCreateInfo::default().queue_family_index(0),
            None,
        )?;
        let cb = d.allocate_command_buffers(
            &vk::CommandBufferAllocateInfo::default()
                .command_pool(pool)
                .command_buffer_count(1),
        )?[0];
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())?;
        d.cmd_begin_render_pass(
            cb,
            &vk::RenderPassBeginInfo::default()
                .render_pass(render_pass)
                .framebuffer(framebuffer),
            vk::SubpassContents::INLINE,
        );
        d.cmd_bind_vertex_buffers(cb, 0, &[vertices.buffer], &[0]);
        let fp = xfb.fp();
        (fp.cmd_bind_transform_feedback_buffers_ext)(cb, 0, 1, &captured.buffer, &0, &CAPACITY);
        (fp.cmd_begin_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipelines[0]);
        d.cmd_draw(cb, 5, 1, 0, 0);
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipelines[1]);
        d.cmd_draw(cb, 5, 1, 5, 0);
        (fp.cmd_end_transform_feedback_ext)(cb, 0, 1, &counter.buffer, &0);
        d.cmd_end_render_pass(cb);
        d.end_command_buffer(cb)?;
        let fence = d.create_fence(&vk::FenceCreateInfo::default(), None)?;
        d.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&[cb])],
            fence,
        )?;
        d.wait_for_fences(&[fence], true, 10_000_000_000)?;

        // What the spec requires: the strip's three triangles, then as many
        // whole fan triangles as still fit (two of three).
        let mut want = Vec::new();
        for (topology, first) in [(topologies[0], 0), (topologies[1], 5)] {
            for tri in spec_order(topology, 5) {
                if (want.len() as u64 + 1) * 3 * STRIDE <= CAPACITY {
                    want.push((topology, tri.map(|v| v + first)));
                }
            }
        }
        let words = std::slice::from_raw_parts(captured.ptr.cast::<u32>(), (CAPACITY / 4) as usize);
        let mut ok = true;
        println!("record  draw   | captured: vertex  position         | spec: vertex  position");
        for (t, (topology, tri)) in want.iter().enumerate() {
            for (k, &v) in tri.iter().enumerate() {
                let r = 3 * t + k;
                let rec = &words[4 * r..4 * r + 4];
                let got = (rec[2], [f32::from_bits(rec[0]), f32::from_bits(rec[1])]);
                let expect = (v, position(v));
                let same = got == expect && rec[3] == UNTOUCHED;
                ok &= same;
                let name = if *topology == topologies[0] {
                    "strip"
                } else {
                    "fan"
                };
                println!(
                    "{r:>6}  {name:<5}  |  {:>14}  ({:>5.2}, {:>5.2})   | {:>10}  ({:>5.2}, {:>5.2})  {}",
                    got.0,
                    got.1[0],
                    got.1[1],
                    expect.0,
                    expect.1[0],
                    expect.1[1],
                    if same { "" } else { "<-- differs" }
                );
            }
        }
        let counter_value = *counter.ptr.cast::<u32>();
        let want_counter = want.len() as u64 * 3 * STRIDE;
        println!(
            "counter after End: {counter_value} bytes (spec: {want_counter}, {} whole triangles of {} drawn)",
            want.len(),
            spec_order(topologies[0], 5).len() + spec_order(topologies[1], 5).len()
        );
        ok &= u64::from(counter_value) == want_counter;

        d.destroy_fence(fence, None);
        d.destroy_command_pool(pool, None);
        for b in [&vertices, &captured, &counter] {
            d.destroy_buffer(b.buffer, None);
            d.free_memory(b.memory, None);
        }
        for p in pipelines {
            d.destroy_pipeline(p, None);
        }
        d.destroy_framebuffer(framebuffer, None);
        d.destroy_render_pass(render_pass, None);
        d.destroy_pipeline_layout(layout, None);
        d.destroy_shader_module(module, None);
        d.destroy_device(None);
        instance.destroy_instance(None);
        if !ok {
            eprintln!("captured data differs from the spec's rules");
            std::process::exit(1);
        }
        println!("captured data matches the spec's rules");
    }
    Ok(())
}
