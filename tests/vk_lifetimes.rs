//! Object lifetimes and threads through the loader:
//!
//! - a create / use / destroy loop over every object type the driver has
//!   (shader modules, set and pipeline layouts, descriptor pools and sets,
//!   graphics and compute pipelines, render passes, framebuffers, buffers,
//!   memory, command pools and buffers, fences, query pools, events,
//!   secondary command buffers with a wait point), each round
//!   capturing with transform feedback and dispatching; afterwards the
//!   device's BO count and bytes are back at their baseline (CI also runs
//!   this binary under valgrind: no definite leaks);
//! - 8 threads recording their own command buffers and submitting to the
//!   one queue (its external synchronisation through a mutex, as the spec
//!   requires), each capturing the same draw: every thread gets the bytes
//!   one thread gets.

mod common;
#[path = "support/fill_compute.rs"]
mod fill_compute;

use std::sync::Mutex;

use ash::vk;
use common::*;
use fill_compute::FillCompute;

const XFB_SHADER: &[u8] = include_bytes!("../examples/shaders/xfb_capture.vert.spv");

/// An XFB pipeline of the example shader (vec2 position at location 0).
struct XfbPipeline {
    module: vk::ShaderModule,
    layout: vk::PipelineLayout,
    render_pass: vk::RenderPass,
    framebuffer: vk::Framebuffer,
    pipeline: vk::Pipeline,
}

impl XfbPipeline {
    fn new(d: &ash::Device) -> XfbPipeline {
        let module = objects::shader_module(d, XFB_SHADER);
        // SAFETY: valid create infos throughout.
        unsafe {
            let layout = d
                .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
                .unwrap();
            let subpass = [vk::SubpassDescription::default()
                .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)];
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
                        .width(1)
                        .height(1)
                        .layers(1),
                    None,
                )
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
                .topology(vk::PrimitiveTopology::TRIANGLE_STRIP);
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
            let pipeline = d
                .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
                .unwrap()[0];
            XfbPipeline {
                module,
                layout,
                render_pass,
                framebuffer,
                pipeline,
            }
        }
    }

    /// Records a 24-vertex strip captured into `out` (room for all of it).
    fn record(&self, gpu: &Gpu, cb: vk::CommandBuffer, vertices: &Buf, out: &Buf) {
        let d = &gpu.device;
        let xfb = ash::ext::transform_feedback::Device::new(&gpu.instance, d);
        let fp = xfb.fp();
        // SAFETY: valid handles.
        unsafe {
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_begin_render_pass(
                cb,
                &vk::RenderPassBeginInfo::default()
                    .render_pass(self.render_pass)
                    .framebuffer(self.framebuffer),
                vk::SubpassContents::INLINE,
            );
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, self.pipeline);
            d.cmd_bind_vertex_buffers(cb, 0, &[vertices.buffer], &[0]);
            let size = out.size;
            (fp.cmd_bind_transform_feedback_buffers_ext)(cb, 0, 1, &out.buffer, &0, &size);
            (fp.cmd_begin_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
            d.cmd_draw(cb, 24, 1, 0, 0);
            (fp.cmd_end_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
            d.cmd_end_render_pass(cb);
            d.end_command_buffer(cb).unwrap();
        }
    }

    fn destroy(&self, d: &ash::Device) {
        // SAFETY: the GPU is idle.
        unsafe {
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_framebuffer(self.framebuffer, None);
            d.destroy_render_pass(self.render_pass, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_shader_module(self.module, None);
        }
    }
}

/// Bytes of 24 vertices' capture: 22 triangles × 3 records × 16 bytes.
const CAPTURE: u64 = 22 * 3 * 16;

fn vertex_data(d: &ash::Device) -> Buf {
    let v = Buf::new(d, 24 * 8, vk::BufferUsageFlags::VERTEX_BUFFER);
    let pos: Vec<f32> = (0..48).map(|i| i as f32 * 0.25 - 3.0).collect();
    // SAFETY: 192 bytes into the 192-byte mapping.
    unsafe { std::ptr::copy_nonoverlapping(pos.as_ptr().cast::<u8>(), v.ptr, 192) };
    v
}

fn submit_wait(d: &ash::Device, queue: vk::Queue, cb: vk::CommandBuffer) {
    // SAFETY: valid handles; the caller holds the queue's lock.
    unsafe {
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        d.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&[cb])],
            fence,
        )
        .unwrap();
        d.wait_for_fences(&[fence], true, 30_000_000_000).unwrap();
        d.destroy_fence(fence, None);
    }
}

/// A compute pipeline with descriptors and push constants, dispatched once.
fn compute_round(gpu: &Gpu) {
    let d = &gpu.device;
    let f = FillCompute::new(
        d,
        vk::DescriptorType::UNIFORM_BUFFER,
        vk::DescriptorPoolCreateFlags::empty(),
    );
    let (layout, pipeline, sets) = (f.layout, f.pipeline, &f.sets);
    // SAFETY: valid handles throughout.
    unsafe {
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::UNIFORM_BUFFER;
        let bufs = [
            Buf::new(d, 64, usage),
            Buf::new(d, 64, usage),
            Buf::new(d, 64, usage),
        ];
        bufs[2].bytes().fill(0);
        let info = |m: &Buf| {
            [vk::DescriptorBufferInfo {
                buffer: m.buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }]
        };
        let (i0, i1, i2) = (info(&bufs[0]), info(&bufs[1]), info(&bufs[2]));
        let write = |set, binding, ty, i: &[vk::DescriptorBufferInfo; 1]| vk::WriteDescriptorSet {
            dst_set: set,
            dst_binding: binding,
            descriptor_count: 1,
            descriptor_type: ty,
            p_buffer_info: i.as_ptr(),
            ..Default::default()
        };
        d.update_descriptor_sets(
            &[
                write(sets[0], 0, vk::DescriptorType::STORAGE_BUFFER, &i0),
                write(sets[0], 1, vk::DescriptorType::STORAGE_BUFFER, &i1),
                write(sets[1], 0, vk::DescriptorType::UNIFORM_BUFFER, &i2),
            ],
            &[],
        );
        bufs[0].bytes().fill(1);
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
            &3u32.to_le_bytes(),
        );
        d.cmd_dispatch(cb, 2, 1, 1);
        d.end_command_buffer(cb).unwrap();
        submit_wait(d, gpu.queue, cb);
        // k = 0: out[i] = in[i] + 3 = 0x01010101 + 3.
        let out = bufs[1].bytes().to_vec();
        assert_eq!(
            u32::from_le_bytes(out[60..64].try_into().unwrap()),
            0x0101_0104
        );
        d.destroy_command_pool(cmd_pool, None);
        f.destroy(d);
        for b in &bufs {
            b.destroy(d);
        }
    }
}

/// One round of everything, checked, then destroyed.
fn round(gpu: &Gpu) {
    let d = &gpu.device;
    let p = XfbPipeline::new(d);
    let vertices = vertex_data(d);
    let out = Buf::new(
        d,
        CAPTURE,
        vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT | vk::BufferUsageFlags::TRANSFER_DST,
    );
    out.bytes().fill(0xAB);
    let pool = gpu.command_pool();
    let cb = gpu.command_buffer(pool);
    p.record(gpu, cb, &vertices, &out);
    submit_wait(d, gpu.queue, cb);
    // Strip triangle 1 = {v1, v3, v2}: record 3 holds vertex 1.
    let bytes = out.bytes().to_vec();
    assert_eq!(
        u32::from_le_bytes(bytes[3 * 16 + 8..3 * 16 + 12].try_into().unwrap()),
        1
    );
    assert_eq!(
        u32::from_le_bytes(bytes[4 * 16 + 8..4 * 16 + 12].try_into().unwrap()),
        3
    );
    // SAFETY: valid handles; the GPU is idle.
    unsafe {
        let qp = d
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(2),
                None,
            )
            .unwrap();
        d.reset_command_pool(pool, vk::CommandPoolResetFlags::RELEASE_RESOURCES)
            .unwrap();
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_reset_query_pool(cb, qp, 0, 2);
        d.cmd_write_timestamp(cb, vk::PipelineStageFlags::TOP_OF_PIPE, qp, 0);
        d.cmd_fill_buffer(cb, out.buffer, 0, vk::WHOLE_SIZE, 7);
        d.end_command_buffer(cb).unwrap();
        submit_wait(d, gpu.queue, cb);
        assert!(out.bytes().chunks(4).all(|w| w == 7u32.to_le_bytes()));
        d.destroy_query_pool(qp, None);
        d.destroy_command_pool(pool, None);
    }
    compute_round(gpu);
    vertices.destroy(d);
    out.destroy(d);
    p.destroy(d);
}

#[test]
fn create_use_destroy_leaves_nothing_behind() {
    let gpu = Gpu::with_xfb("g52");
    // The first round compiles the device's internal kernels, which the
    // device keeps: the baseline is taken after it.
    round(&gpu);
    let baseline = gpu.bo_stats();
    for _ in 0..20 {
        round(&gpu);
    }
    assert_eq!(
        gpu.bo_stats(),
        baseline,
        "BO count and bytes back at the baseline"
    );
}

/// Events and secondary command buffers: a secondary that waits on a
/// host-set event, fills and sets another event, executed by a primary;
/// every object destroyed afterwards (also while a freed secondary's chain
/// is still held by the primary).
fn events_round(gpu: &Gpu) {
    let d = &gpu.device;
    let dst = Buf::new(d, 64, vk::BufferUsageFlags::TRANSFER_DST);
    // SAFETY: valid handles throughout; the GPU is idle before destruction.
    unsafe {
        let host = d
            .create_event(&vk::EventCreateInfo::default(), None)
            .unwrap();
        let gpu_set = d
            .create_event(&vk::EventCreateInfo::default(), None)
            .unwrap();
        d.set_event(host).unwrap();
        let pool = gpu.command_pool();
        let s = d
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .level(vk::CommandBufferLevel::SECONDARY)
                    .command_buffer_count(1),
            )
            .unwrap()[0];
        let inheritance = vk::CommandBufferInheritanceInfo::default();
        d.begin_command_buffer(
            s,
            &vk::CommandBufferBeginInfo::default().inheritance_info(&inheritance),
        )
        .unwrap();
        d.cmd_wait_events(
            s,
            &[host],
            vk::PipelineStageFlags::HOST,
            vk::PipelineStageFlags::TRANSFER,
            &[],
            &[],
            &[],
        );
        d.cmd_fill_buffer(s, dst.buffer, 0, 64, 9);
        d.cmd_set_event(s, gpu_set, vk::PipelineStageFlags::TRANSFER);
        d.end_command_buffer(s).unwrap();
        let p = gpu.command_buffer(pool);
        d.begin_command_buffer(p, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_execute_commands(p, &[s]);
        d.end_command_buffer(p).unwrap();
        submit_wait(d, gpu.queue, p);
        assert!(d.get_event_status(gpu_set).unwrap());
        assert_eq!(dst.u32_at(60), 9);
        d.destroy_command_pool(pool, None);
        d.destroy_event(host, None);
        d.destroy_event(gpu_set, None);
    }
    dst.destroy(d);
}

#[test]
fn events_and_secondaries_leave_nothing_behind() {
    let gpu = Gpu::with_xfb("g72");
    events_round(&gpu);
    let baseline = gpu.bo_stats();
    for _ in 0..20 {
        events_round(&gpu);
    }
    assert_eq!(
        gpu.bo_stats(),
        baseline,
        "BO count and bytes back at the baseline"
    );
}

/// One command buffer reset and re-recorded many times: its pool memory
/// is reused, nothing grows.
#[test]
fn re_recording_does_not_grow() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let p = XfbPipeline::new(d);
    let vertices = vertex_data(d);
    let out = Buf::new(
        d,
        CAPTURE,
        vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
    );
    // SAFETY: valid device; the pool allows resetting single command buffers.
    let pool = unsafe {
        d.create_command_pool(
            &vk::CommandPoolCreateInfo::default()
                .queue_family_index(0)
                .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
            None,
        )
    }
    .unwrap();
    let cb = gpu.command_buffer(pool);
    p.record(&gpu, cb, &vertices, &out);
    submit_wait(d, gpu.queue, cb);
    let baseline = gpu.bo_stats();
    for _ in 0..2000 {
        // SAFETY: the command buffer is not pending (waited above).
        unsafe { d.reset_command_buffer(cb, vk::CommandBufferResetFlags::empty()) }.unwrap();
        p.record(&gpu, cb, &vertices, &out);
    }
    submit_wait(d, gpu.queue, cb);
    assert_eq!(gpu.bo_stats(), baseline);
    // SAFETY: the GPU is idle.
    unsafe { d.destroy_command_pool(pool, None) };
    vertices.destroy(d);
    out.destroy(d);
    p.destroy(d);
}

#[test]
fn eight_threads_record_and_submit() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let p = XfbPipeline::new(d);
    let vertices = vertex_data(d);
    let queue = Mutex::new(gpu.queue);
    // The reference: one thread, one capture.
    let reference = {
        let out = Buf::new(
            d,
            CAPTURE,
            vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
        );
        out.bytes().fill(0xAB);
        let pool = gpu.command_pool();
        let cb = gpu.command_buffer(pool);
        p.record(&gpu, cb, &vertices, &out);
        submit_wait(d, gpu.queue, cb);
        // SAFETY: the GPU is idle.
        unsafe { d.destroy_command_pool(pool, None) };
        let b = out.bytes().to_vec();
        out.destroy(d);
        b
    };
    assert!(
        reference.iter().any(|&b| b != 0xAB),
        "the reference captured something"
    );
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                let out = Buf::new(
                    d,
                    CAPTURE,
                    vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
                );
                let pool = gpu.command_pool();
                for _ in 0..15 {
                    out.bytes().fill(0xAB);
                    let cb = gpu.command_buffer(pool);
                    p.record(&gpu, cb, &vertices, &out);
                    {
                        let q = queue.lock().unwrap();
                        // SAFETY: valid handles; the queue is locked.
                        unsafe {
                            let fence = d
                                .create_fence(&vk::FenceCreateInfo::default(), None)
                                .unwrap();
                            d.queue_submit(
                                *q,
                                &[vk::SubmitInfo::default().command_buffers(&[cb])],
                                fence,
                            )
                            .unwrap();
                            drop(q);
                            d.wait_for_fences(&[fence], true, 30_000_000_000).unwrap();
                            d.destroy_fence(fence, None);
                        }
                    }
                    assert_eq!(out.bytes(), &reference[..], "a thread's capture differs");
                    // SAFETY: the command buffer completed.
                    unsafe { d.free_command_buffers(pool, &[cb]) };
                }
                // SAFETY: all of this thread's work completed.
                unsafe { d.destroy_command_pool(pool, None) };
                out.destroy(d);
            });
        }
    });
    vertices.destroy(d);
    p.destroy(d);
}
