//! VK_KHR_multiview, VK_KHR_create_renderpass2 and VK_KHR_maintenance2
//! through the Khronos loader, on the simulated G52 and G72.
//!
//! Nothing is rasterized (render passes have no attachments), so what a
//! multiview subpass changes is observable in the vertex stage and in
//! queries. The shader (`shaders/vk/multiview.vert`) counts each
//! invocation in `hits[view × 64 + instance × 16 + vertex]`. Expectations
//! follow the Vulkan spec ("Multiview": a draw in a subpass whose view
//! mask is non-zero is executed for each view in the mask, `ViewIndex`
//! naming it; outside multiview `ViewIndex` is 0; "Queries" and
//! vkCmdWriteTimestamp: in a subpass of N views a query uses N
//! consecutive queries whose results sum to the total). The driver runs
//! the vertex stage exactly once per (view, instance, vertex) outside
//! transform feedback (docs/STATUS.md), which the tests check too.

mod common;
#[path = "support/xfb_device.rs"]
mod xfb_device;

use ash::vk;
use common::*;
use xfb_device::submit_and_wait;

const SHADER: &[u8] = include_bytes!("shaders/vk/multiview.vert.spv");
const SLOTS: usize = 512;

/// How the test creates and walks its render pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Api {
    /// vkCreateRenderPass + VkRenderPassMultiviewCreateInfo.
    V1,
    /// vkCreateRenderPass2KHR with `viewMask` per subpass, and the *2KHR
    /// begin/next/end commands.
    V2,
}

struct Objects {
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    module: vk::ShaderModule,
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
    ssbo: Buf,
    vertices: Buf,
    cmd_pool: vk::CommandPool,
}

impl Objects {
    fn new(gpu: &Gpu) -> Objects {
        let d = &gpu.device;
        let vertex = vk::ShaderStageFlags::VERTEX;
        let ty = vk::DescriptorType::STORAGE_BUFFER;
        let set_layout = objects::set_layout(d, &[(0, ty)], vertex);
        let layout = objects::pipeline_layout(d, &[set_layout], 0, vertex);
        let module = objects::shader_module(d, SHADER);
        let ssbo = Buf::new(d, 4 * SLOTS as u64, vk::BufferUsageFlags::STORAGE_BUFFER);
        let (pool, set) =
            objects::buffer_set(d, set_layout, &[(0, ty, ssbo.buffer, 0, 4 * SLOTS as u64)]);
        let vertices = Buf::new(d, 16 * 64, vk::BufferUsageFlags::VERTEX_BUFFER);
        Objects {
            set_layout,
            layout,
            module,
            pool,
            set,
            ssbo,
            vertices,
            cmd_pool: gpu.command_pool(),
        }
    }

    fn pipeline(&self, d: &ash::Device, render_pass: vk::RenderPass, subpass: u32) -> vk::Pipeline {
        objects::XfbPipeline {
            module: self.module,
            layout: self.layout,
            render_pass,
            instance_binding: 1,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            restart: false,
            provoking: None,
        }
        .create_for_subpass(d, vk::PipelineCache::null(), 16, subpass)
    }

    /// The draw state of a subpass: `pipeline`, dynamic viewport and
    /// scissor, set 0 and the two vertex buffers.
    fn bind(
        &self,
        d: &ash::Device,
        cb: vk::CommandBuffer,
        pipeline: vk::Pipeline,
        instances: &Buf,
    ) {
        // SAFETY: a command buffer in the recording state, in a render pass.
        unsafe {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
            objects::set_viewport_and_scissor(d, cb, 64, 64);
            d.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::GRAPHICS,
                self.layout,
                0,
                &[self.set],
                &[],
            );
            d.cmd_bind_vertex_buffers(cb, 0, &[self.vertices.buffer, instances.buffer], &[0, 0]);
        }
    }

    fn destroy(&self, d: &ash::Device) {
        // SAFETY: the GPU is idle.
        unsafe {
            d.destroy_command_pool(self.cmd_pool, None);
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            d.destroy_shader_module(self.module, None);
        }
        self.ssbo.destroy(d);
        self.vertices.destroy(d);
    }
}

/// A render pass without attachments whose subpasses have `masks`.
fn render_pass(gpu: &Gpu, api: Api, masks: &[u32]) -> vk::RenderPass {
    let d = &gpu.device;
    // SAFETY: valid create infos.
    unsafe {
        match api {
            Api::V1 => {
                let subpasses: Vec<_> = masks
                    .iter()
                    .map(|_| {
                        vk::SubpassDescription::default()
                            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
                    })
                    .collect();
                let mut multiview = vk::RenderPassMultiviewCreateInfo::default().view_masks(masks);
                d.create_render_pass(
                    &vk::RenderPassCreateInfo::default()
                        .subpasses(&subpasses)
                        .push_next(&mut multiview),
                    None,
                )
                .unwrap()
            }
            Api::V2 => {
                let rp2 = ash::khr::create_renderpass2::Device::new(&gpu.instance, d);
                let subpasses: Vec<_> = masks
                    .iter()
                    .map(|&m| {
                        vk::SubpassDescription2::default()
                            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
                            .view_mask(m)
                    })
                    .collect();
                rp2.create_render_pass2(
                    &vk::RenderPassCreateInfo2::default().subpasses(&subpasses),
                    None,
                )
                .unwrap()
            }
        }
    }
}

fn framebuffer(d: &ash::Device, render_pass: vk::RenderPass) -> vk::Framebuffer {
    // SAFETY: valid create info.
    unsafe {
        d.create_framebuffer(
            &vk::FramebufferCreateInfo::default()
                .render_pass(render_pass)
                .width(64)
                .height(64)
                .layers(1),
            None,
        )
        .unwrap()
    }
}

/// One draw of a subpass: (vertices, instances, first vertex, first
/// instance, indirect).
type Draw = (u32, u32, u32, u32, bool);

/// Records a render pass with one subpass per entry of `masks`, draws
/// `draws[i]` in subpass `i`, runs it, and returns the hit counts.
fn run(gpu: &Gpu, o: &Objects, api: Api, masks: &[u32], draws: &[Draw]) -> Vec<u32> {
    let d = &gpu.device;
    let rp2 = ash::khr::create_renderpass2::Device::new(&gpu.instance, d);
    let rp = render_pass(gpu, api, masks);
    let fb = framebuffer(d, rp);
    let pipelines: Vec<_> = (0..masks.len() as u32)
        .map(|s| o.pipeline(d, rp, s))
        .collect();
    o.ssbo.write(0, &[0u32; SLOTS]);
    let indirect = Buf::new(d, 16 * 8, vk::BufferUsageFlags::INDIRECT_BUFFER);
    let instance_data = Buf::new(d, 64, vk::BufferUsageFlags::VERTEX_BUFFER);
    let cb = gpu.command_buffer(o.cmd_pool);
    // SAFETY: valid handles throughout.
    unsafe {
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(rp)
            .framebuffer(fb)
            .render_area(vk::Rect2D {
                extent: vk::Extent2D {
                    width: 64,
                    height: 64,
                },
                ..Default::default()
            });
        let contents = vk::SubpassBeginInfo::default().contents(vk::SubpassContents::INLINE);
        let end = vk::SubpassEndInfo::default();
        match api {
            Api::V1 => d.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE),
            Api::V2 => rp2.cmd_begin_render_pass2(cb, &begin, &contents),
        }
        for (s, &(count, instances, first, first_instance, is_indirect)) in draws.iter().enumerate()
        {
            if s > 0 {
                match api {
                    Api::V1 => d.cmd_next_subpass(cb, vk::SubpassContents::INLINE),
                    Api::V2 => rp2.cmd_next_subpass2(cb, &contents, &end),
                }
            }
            o.bind(d, cb, pipelines[s], &instance_data);
            if is_indirect {
                indirect.write(16 * s, &[count, instances, first, first_instance]);
                d.cmd_draw_indirect(cb, indirect.buffer, 16 * s as u64, 1, 16);
            } else {
                d.cmd_draw(cb, count, instances, first, first_instance);
            }
        }
        match api {
            Api::V1 => d.cmd_end_render_pass(cb),
            Api::V2 => rp2.cmd_end_render_pass2(cb, &end),
        }
        d.end_command_buffer(cb).unwrap();
        submit_and_wait(gpu, &[cb]);
        for p in pipelines {
            d.destroy_pipeline(p, None);
        }
        d.destroy_framebuffer(fb, None);
        d.destroy_render_pass(rp, None);
    }
    indirect.destroy(d);
    instance_data.destroy(d);
    (0..SLOTS).map(|i| o.ssbo.u32_at(4 * i)).collect()
}

/// What the spec asks of `draws` in subpasses with `masks`: one hit per
/// (view of the mask, or view 0 without multiview; instance; vertex).
fn expected(masks: &[u32], draws: &[Draw]) -> Vec<u32> {
    let mut hits = vec![0; SLOTS];
    for (&mask, &(count, instances, first, first_instance, _)) in masks.iter().zip(draws) {
        let views: Vec<u32> = if mask == 0 {
            vec![0]
        } else {
            (0..32).filter(|v| mask >> v & 1 == 1).collect()
        };
        for view in views {
            for i in first_instance..first_instance + instances {
                for v in first..first + count {
                    hits[(view * 64 + i * 16 + v) as usize] += 1;
                }
            }
        }
    }
    hits
}

fn check(model: &str) {
    let gpu = Gpu::with_multiview(model);
    let o = Objects::new(&gpu);
    let cases: [(&[u32], &[Draw]); 4] = [
        // Views 0 and 2, then view 1: direct draws with instances.
        (&[0b101, 0b010], &[(5, 2, 1, 0, false), (3, 1, 4, 2, false)]),
        // Indirect draws in a two-view subpass and a six-view one.
        (
            &[0b011, 0b11_1111],
            &[(4, 1, 0, 1, true), (2, 2, 7, 0, true)],
        ),
        // One view only: ViewIndex is that view's index, not 0.
        (&[0b1000], &[(6, 1, 2, 0, false)]),
        // Multiview off (all masks 0): view 0.
        (&[0, 0], &[(3, 3, 0, 0, false), (2, 1, 9, 0, true)]),
    ];
    for api in [Api::V1, Api::V2] {
        for (masks, draws) in cases {
            let got = run(&gpu, &o, api, masks, draws);
            assert_eq!(
                got,
                expected(masks, draws),
                "{model} {api:?} masks {masks:?} draws {draws:?}"
            );
        }
    }
    o.destroy(&gpu.device);
}

#[test]
fn multiview_draws_run_once_per_view_on_g52() {
    check("g52");
}

#[test]
fn multiview_draws_run_once_per_view_on_g72() {
    check("g72");
}

/// Features and properties as advertised; a device asking for multiview
/// with geometry or tessellation shaders is refused.
#[test]
fn multiview_features_and_limits() {
    let gpu = Gpu::with_multiview("g52");
    let mut mv = vk::PhysicalDeviceMultiviewFeatures::default();
    let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut mv);
    let mut mv_props = vk::PhysicalDeviceMultiviewProperties::default();
    let mut clipping = vk::PhysicalDevicePointClippingProperties::default();
    let mut props = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut mv_props)
        .push_next(&mut clipping);
    // SAFETY: valid handles and chains.
    unsafe {
        gpu.instance
            .get_physical_device_features2(gpu.physical_device, &mut features);
        gpu.instance
            .get_physical_device_properties2(gpu.physical_device, &mut props);
    }
    assert_eq!(
        (
            mv.multiview,
            mv.multiview_geometry_shader,
            mv.multiview_tessellation_shader
        ),
        (vk::TRUE, vk::FALSE, vk::FALSE)
    );
    assert!(mv_props.max_multiview_view_count >= 6);
    assert!(mv_props.max_multiview_instance_index >= (1 << 27) - 1);
    assert_eq!(
        clipping.point_clipping_behavior,
        vk::PointClippingBehavior::ALL_CLIP_PLANES
    );

    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let names = [c"VK_KHR_multiview".as_ptr()];
    let mut geometry = vk::PhysicalDeviceMultiviewFeatures::default()
        .multiview(true)
        .multiview_geometry_shader(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&names)
        .push_next(&mut geometry);
    assert_eq!(
        create_device(&gpu.instance, gpu.physical_device, &info).err(),
        Some(vk::Result::ERROR_FEATURE_NOT_PRESENT)
    );
}

/// Queries in a subpass of N views use N queries: the first holds the
/// total over the views (primitives generated: every view's primitives),
/// the others become available with zero; a timestamp goes to the first,
/// zero to the others.
#[test]
fn queries_in_a_multiview_subpass_use_one_query_per_view() {
    let gpu = Gpu::with_multiview("g52");
    let d = &gpu.device;
    let o = Objects::new(&gpu);
    let rp = render_pass(&gpu, Api::V1, &[0b0111]);
    let fb = framebuffer(d, rp);
    let pipeline = o.pipeline(d, rp, 0);
    let instance_data = Buf::new(d, 64, vk::BufferUsageFlags::VERTEX_BUFFER);
    o.ssbo.write(0, &[0u32; SLOTS]);
    // SAFETY: valid handles throughout.
    unsafe {
        let generated = objects::query_pool(d, vk::QueryType::PRIMITIVES_GENERATED_EXT, 4);
        let stamps = objects::query_pool(d, vk::QueryType::TIMESTAMP, 4);
        let cb = gpu.command_buffer(o.cmd_pool);
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_reset_query_pool(cb, generated, 0, 4);
        d.cmd_reset_query_pool(cb, stamps, 0, 4);
        d.cmd_begin_render_pass(
            cb,
            &vk::RenderPassBeginInfo::default()
                .render_pass(rp)
                .framebuffer(fb),
            vk::SubpassContents::INLINE,
        );
        o.bind(d, cb, pipeline, &instance_data);
        d.cmd_begin_query(cb, generated, 1, vk::QueryControlFlags::empty());
        // Two triangles, two instances: 4 primitives per view.
        d.cmd_draw(cb, 6, 2, 0, 0);
        d.cmd_end_query(cb, generated, 1);
        d.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, stamps, 0);
        d.cmd_end_render_pass(cb);
        d.end_command_buffer(cb).unwrap();
        submit_and_wait(&gpu, &[cb]);

        let mut g = [[0u64; 2]; 3];
        d.get_query_pool_results(
            generated,
            1,
            &mut g,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .unwrap();
        assert_eq!(g, [[12, 1], [0, 1], [0, 1]], "3 views × 4 primitives");
        let mut t = [[0u64; 2]; 3];
        d.get_query_pool_results(
            stamps,
            0,
            &mut t,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .unwrap();
        assert!(t[0][0] > 0 && t[0][1] == 1, "{t:?}");
        assert_eq!((t[1], t[2]), ([0, 1], [0, 1]));
        // Query 0 (not used) stays unavailable; 3 is past the views.
        let mut rest = [[9u64; 2]; 1];
        let r = d.get_query_pool_results(
            generated,
            0,
            &mut rest,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        );
        assert_eq!(r, Err(vk::Result::NOT_READY));
        assert_eq!(rest[0][1], 0);

        // The vertex stage ran for views 0, 1 and 2.
        let hits: Vec<u32> = (0..SLOTS).map(|i| o.ssbo.u32_at(4 * i)).collect();
        assert_eq!(hits, expected(&[0b0111], &[(6, 2, 0, 0, false)]));

        d.destroy_query_pool(generated, None);
        d.destroy_query_pool(stamps, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_framebuffer(fb, None);
        d.destroy_render_pass(rp, None);
    }
    instance_data.destroy(d);
    o.destroy(d);
}
