//! The same Vulkan program, through the Khronos loader, against our ICD (on
//! the simulated G52) and against lavapipe (Mesa's CPU driver), in one run:
//! command recording cost per draw (plain, XFB active, XFB at 3 vs 10^6
//! vertices, XFB paused/resumed around every draw), cold creation of a
//! vertex-only XFB pipeline, and XFB capture throughput of one 10^6-vertex
//! draw submitted to a fence. Run with `cargo bench --bench vk_record`.
//!
//! # One process per ICD
//! The loader reads `VK_ICD_FILENAMES` once per process, and divan runs
//! every benchmark of a binary in its own process. So `main` without
//! `BIFROST_VK_BENCH_ICD` in the environment is only a driver: it re-executes
//! this binary with the same arguments (divan filters and options pass
//! through) once per ICD, with `BIFROST_VK_BENCH_ICD=bifrost` or `lavapipe`,
//! and waits for each child. A child points `VK_ICD_FILENAMES` at its one
//! manifest before loading the loader and then runs `divan::main()` as usual,
//! so the benchmark names are the same in both sections of the output, each
//! headed by the ICD's name. `BIFROST_VK_BENCH_ICDS=bifrost` (or `lavapipe`)
//! runs one of them only. When lavapipe's manifest
//! (`/usr/share/vulkan/icd.d/lvp_icd.x86_64.json` on x86_64, Debian package
//! `mesa-vulkan-drivers`; `BIFROST_VK_BENCH_LAVAPIPE_ICD` overrides the
//! path) is absent, its section is skipped with a message.
//!
//! # The program
//! `tests/shaders/vk/xfb_capture.vert` (the loader tests' shader: a UBO, a
//! push constant, a per-vertex vec4 and a per-instance float, 40 bytes
//! captured per vertex into two XFB buffers), in a vertex-only pipeline with
//! rasterizer discard and a render pass without attachments, which both
//! drivers accept. Recording benchmarks record `DRAWS` draws into one command
//! buffer per iteration (pool reset, begin, render pass, bind everything,
//! the draws, end): the time per draw is the median divided by `DRAWS`
//! (divan's items/s column is its inverse); `empty_command_buffer` is the
//! same iteration without draws, the fixed part that division spreads out.

#[path = "../tests/common/mod.rs"]
mod common;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use ash::vk;
use divan::counter::ItemsCount;

const SHADER: &[u8] = include_bytes!("../tests/shaders/vk/xfb_capture.vert.spv");
const ICD_VAR: &str = "BIFROST_VK_BENCH_ICD";
const ICDS_VAR: &str = "BIFROST_VK_BENCH_ICDS";
/// Overrides where lavapipe's manifest is looked for.
const LAVAPIPE_VAR: &str = "BIFROST_VK_BENCH_LAVAPIPE_ICD";

/// Draws recorded per command buffer in the recording benchmarks.
const DRAWS: u32 = 1000;
/// Vertex count of the big draws.
const BIG: u32 = 1_000_000;
/// Bytes per captured vertex in XFB buffers 0 and 1 (the shader's strides).
const STRIDE: [u64; 2] = [32, 8];

fn main() {
    match std::env::var(ICD_VAR) {
        Ok(icd) => child(&icd),
        Err(_) => parent(),
    }
}

/// Re-executes this binary once per ICD (module docs).
fn parent() {
    let exe = std::env::current_exe().expect("bench binary path");
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let only = std::env::var(ICDS_VAR).ok();
    let mut failed = false;
    for icd in ["bifrost", "lavapipe"] {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|x| x == icd))
        {
            continue;
        }
        if icd == "lavapipe" && !lavapipe_manifest().exists() {
            println!(
                "\nvk_record: skipping lavapipe: {} not found \
                 (Debian: apt-get install mesa-vulkan-drivers)",
                lavapipe_manifest().display()
            );
            continue;
        }
        println!("\n=== ICD: {icd} ===");
        let status = Command::new(&exe)
            .args(&args)
            .env(ICD_VAR, icd)
            .status()
            .expect("re-execute the bench binary");
        if !status.success() {
            eprintln!("vk_record: the {icd} run failed: {status}");
            failed = true;
        }
    }
    if failed {
        std::process::exit(1);
    }
}

fn child(icd: &str) {
    let manifest: PathBuf = match icd {
        "bifrost" => common::manifest(),
        "lavapipe" => lavapipe_manifest(),
        other => panic!("{ICD_VAR}={other}: expected bifrost or lavapipe"),
    };
    // SAFETY: set before any thread exists and before the loader is loaded.
    unsafe {
        std::env::set_var("VK_ICD_FILENAMES", &manifest);
        std::env::set_var("BIFROST_VK_DEVICE", "sim");
        std::env::set_var("BIFROST_VK_SIM_GPU", "g52");
    }
    // The device first, so that its name heads the table.
    if !std::env::args().any(|a| a == "--list") {
        ctx();
    }
    divan::main();
}

/// Debian's manifest of lavapipe for this architecture
/// (`/usr/share/vulkan/icd.d/lvp_icd.x86_64.json` on x86_64), or
/// `BIFROST_VK_BENCH_LAVAPIPE_ICD`.
fn lavapipe_manifest() -> PathBuf {
    std::env::var_os(LAVAPIPE_VAR).map_or_else(
        || {
            format!(
                "/usr/share/vulkan/icd.d/lvp_icd.{}.json",
                std::env::consts::ARCH
            )
            .into()
        },
        PathBuf::from,
    )
}

/// A buffer with host-visible memory.
struct Buf {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
}

/// Everything the benchmarks share: made once per process, never destroyed
/// (the process ends after the benchmarks).
struct Ctx {
    _entry: ash::Entry,
    _instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    xfb: ash::ext::transform_feedback::Device,
    module: vk::ShaderModule,
    layout: vk::PipelineLayout,
    render_pass: vk::RenderPass,
    framebuffer: vk::Framebuffer,
    set: vk::DescriptorSet,
    vertices: Buf,
    instances: Buf,
    /// Big enough for a whole 10^6-vertex strip.
    targets: [Buf; 2],
    counters: Buf,
    list: vk::Pipeline,
    strip: vk::Pipeline,
}

// SAFETY: the handles are plain identifiers and ash's function tables are
// immutable; benchmarks run on one thread and externally synchronised
// objects (command pools) are per benchmark.
unsafe impl Sync for Ctx {}
// SAFETY: as above.
unsafe impl Send for Ctx {}

fn ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(Ctx::new)
}

impl Ctx {
    fn new() -> Ctx {
        // SAFETY: loading the system's libvulkan.so.1; the environment was
        // set in `child` before.
        let entry = unsafe { ash::Entry::load() }.expect("libvulkan.so.1 (install libvulkan1)");
        let instance = common::create_instance(&entry, &[common::GPDP2]).expect("vkCreateInstance");
        // SAFETY: valid handles and create infos throughout.
        unsafe {
            let pd = instance.enumerate_physical_devices().unwrap()[0];
            let props = instance.get_physical_device_properties(pd);
            println!(
                "vk_record: device {:?}",
                props.device_name_as_c_str().unwrap_or(c"?")
            );
            let prio = [1.0f32];
            let queues = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(0)
                .queue_priorities(&prio)];
            let names = [c"VK_EXT_transform_feedback".as_ptr()];
            let mut features =
                vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default().transform_feedback(true);
            let info = vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .enabled_extension_names(&names)
                .push_next(&mut features);
            let device = instance
                .create_device(pd, &info, None)
                .expect("vkCreateDevice");
            let queue = device.get_device_queue(0, 0);
            let xfb = ash::ext::transform_feedback::Device::new(&instance, &device);
            let memory_props = instance.get_physical_device_memory_properties(pd);
            let buf = |size: u64, usage: vk::BufferUsageFlags| {
                let buffer = device
                    .create_buffer(
                        &vk::BufferCreateInfo::default().size(size).usage(usage),
                        None,
                    )
                    .unwrap();
                let req = device.get_buffer_memory_requirements(buffer);
                let want =
                    vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
                let index = (0..memory_props.memory_type_count)
                    .find(|&i| {
                        req.memory_type_bits & (1 << i) != 0
                            && memory_props.memory_types[i as usize]
                                .property_flags
                                .contains(want)
                    })
                    .expect("a host-visible coherent memory type");
                let memory = device
                    .allocate_memory(
                        &vk::MemoryAllocateInfo::default()
                            .allocation_size(req.size)
                            .memory_type_index(index),
                        None,
                    )
                    .unwrap();
                device.bind_buffer_memory(buffer, memory, 0).unwrap();
                Buf { buffer, memory }
            };
            let fill = |b: &Buf, bytes: &[u8]| {
                let p = device
                    .map_memory(b.memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                    .unwrap()
                    .cast::<u8>();
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
                device.unmap_memory(b.memory);
            };
            use common::objects;
            let module = objects::shader_module(&device, SHADER);
            let vertex = vk::ShaderStageFlags::VERTEX;
            let ubo_type = vk::DescriptorType::UNIFORM_BUFFER;
            let set_layout = objects::set_layout(&device, &[(0, ubo_type)], vertex);
            let layout = objects::pipeline_layout(&device, &[set_layout], 4, vertex);
            let (render_pass, framebuffer) = objects::attachmentless_pass(&device);
            let ubo = buf(256, vk::BufferUsageFlags::UNIFORM_BUFFER);
            fill(&ubo, bytemuck::cast_slice(&[0.25f32, -1.0, 8.0, 0.0]));
            let (_pool, set) =
                objects::buffer_set(&device, set_layout, &[(0, ubo_type, ubo.buffer, 0, 16)]);
            let vertices = buf(16 * u64::from(BIG), vk::BufferUsageFlags::VERTEX_BUFFER);
            let pos: Vec<f32> = (0..BIG)
                .flat_map(|v| {
                    let f = v as f32;
                    [f, 0.5 * f, -f, 1.0]
                })
                .collect();
            fill(&vertices, bytemuck::cast_slice(&pos));
            let instances = buf(64, vk::BufferUsageFlags::VERTEX_BUFFER);
            fill(&instances, bytemuck::cast_slice(&[100.0f32; 16]));
            let captured = 3 * u64::from(BIG);
            let usage = vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT;
            let targets = [
                buf(captured * STRIDE[0], usage),
                buf(captured * STRIDE[1], usage),
            ];
            let counters = buf(
                64,
                vk::BufferUsageFlags::TRANSFORM_FEEDBACK_COUNTER_BUFFER_EXT,
            );
            fill(&counters, &[0; 64]);
            let mut ctx = Ctx {
                _entry: entry,
                _instance: instance,
                device,
                queue,
                xfb,
                module,
                layout,
                render_pass,
                framebuffer,
                set,
                vertices,
                instances,
                targets,
                counters,
                list: vk::Pipeline::null(),
                strip: vk::Pipeline::null(),
            };
            ctx.list = ctx.pipeline(vk::PrimitiveTopology::TRIANGLE_LIST);
            ctx.strip = ctx.pipeline(vk::PrimitiveTopology::TRIANGLE_STRIP);
            ctx
        }
    }

    /// The vertex-only XFB pipeline (rasterizer discard, no attachments).
    fn pipeline(&self, topology: vk::PrimitiveTopology) -> vk::Pipeline {
        common::objects::XfbPipeline {
            module: self.module,
            layout: self.layout,
            render_pass: self.render_pass,
            instance_binding: 1,
            topology,
            restart: false,
            provoking: None,
        }
        .create(&self.device, vk::PipelineCache::null())
    }

    fn command_pool(&self) -> vk::CommandPool {
        let info = vk::CommandPoolCreateInfo::default().queue_family_index(0);
        // SAFETY: valid device.
        unsafe { self.device.create_command_pool(&info, None) }.unwrap()
    }

    fn command_buffer(&self, pool: vk::CommandPool) -> vk::CommandBuffer {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid pool.
        unsafe { self.device.allocate_command_buffers(&info) }.unwrap()[0]
    }

    /// Records a command buffer: render pass, pipeline, descriptor set, push
    /// constant, vertex buffers, XFB buffers, then `body`, then the end of
    /// the render pass.
    fn record(
        &self,
        cb: vk::CommandBuffer,
        pipeline: vk::Pipeline,
        body: impl FnOnce(&Ctx, vk::CommandBuffer),
    ) {
        let d = &self.device;
        // SAFETY: valid handles; `cb` is in the initial state.
        unsafe {
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_begin_render_pass(
                cb,
                &vk::RenderPassBeginInfo::default()
                    .render_pass(self.render_pass)
                    .framebuffer(self.framebuffer)
                    .render_area(vk::Rect2D {
                        offset: vk::Offset2D::default(),
                        extent: vk::Extent2D {
                            width: 64,
                            height: 64,
                        },
                    }),
                vk::SubpassContents::INLINE,
            );
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
            d.cmd_set_viewport(
                cb,
                0,
                &[vk::Viewport {
                    width: 64.0,
                    height: 64.0,
                    max_depth: 1.0,
                    ..Default::default()
                }],
            );
            d.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::GRAPHICS,
                self.layout,
                0,
                &[self.set],
                &[],
            );
            d.cmd_push_constants(
                cb,
                self.layout,
                vk::ShaderStageFlags::VERTEX,
                0,
                &2.0f32.to_le_bytes(),
            );
            d.cmd_bind_vertex_buffers(
                cb,
                0,
                &[self.vertices.buffer, self.instances.buffer],
                &[0, 0],
            );
            let bufs = [self.targets[0].buffer, self.targets[1].buffer];
            let offsets = [0u64, 0];
            let sizes = [vk::WHOLE_SIZE, vk::WHOLE_SIZE];
            (self.xfb.fp().cmd_bind_transform_feedback_buffers_ext)(
                cb,
                0,
                2,
                bufs.as_ptr(),
                offsets.as_ptr(),
                sizes.as_ptr(),
            );
            body(self, cb);
            d.cmd_end_render_pass(cb);
            d.end_command_buffer(cb).unwrap();
        }
    }

    /// vkCmdBeginTransformFeedbackEXT, from the counters when `resume`.
    fn begin_xfb(&self, cb: vk::CommandBuffer, resume: bool) {
        let counters = [self.counters.buffer, self.counters.buffer];
        let offsets = [0u64, 8];
        let n = if resume { 2 } else { 0 };
        // SAFETY: valid handles; the arrays hold `n` entries.
        unsafe {
            (self.xfb.fp().cmd_begin_transform_feedback_ext)(
                cb,
                0,
                n,
                counters.as_ptr(),
                offsets.as_ptr(),
            )
        };
    }

    /// vkCmdEndTransformFeedbackEXT, saving the counters.
    fn end_xfb(&self, cb: vk::CommandBuffer) {
        let counters = [self.counters.buffer, self.counters.buffer];
        let offsets = [0u64, 8];
        // SAFETY: valid handles; two counters.
        unsafe {
            (self.xfb.fp().cmd_end_transform_feedback_ext)(
                cb,
                0,
                2,
                counters.as_ptr(),
                offsets.as_ptr(),
            )
        };
    }

    fn draw(&self, cb: vk::CommandBuffer, vertices: u32) {
        // SAFETY: valid command buffer in the recording state.
        unsafe { self.device.cmd_draw(cb, vertices, 1, 0, 0) };
    }
}

/// Per iteration: reset the pool, record one command buffer with `body`.
fn bench_recording(
    bencher: divan::Bencher,
    draws: u32,
    body: impl Fn(&Ctx, vk::CommandBuffer) + Copy,
) {
    let c = ctx();
    let pool = c.command_pool();
    let cb = c.command_buffer(pool);
    bencher.counter(ItemsCount::new(draws)).bench_local(|| {
        // SAFETY: the command buffer was never submitted.
        unsafe {
            c.device
                .reset_command_pool(pool, vk::CommandPoolResetFlags::empty())
                .unwrap()
        };
        c.record(cb, c.list, body);
    });
    // SAFETY: nothing of the pool is in use.
    unsafe { c.device.destroy_command_pool(pool, None) };
}

/// The fixed part of every recording iteration: no draws.
#[divan::bench(sample_count = 100)]
fn empty_command_buffer(bencher: divan::Bencher) {
    bench_recording(bencher, 1, |_, _| {});
}

/// `DRAWS` × vkCmdDraw(3 vertices) with no transform feedback active.
#[divan::bench(sample_count = 100)]
fn plain_draw(bencher: divan::Bencher) {
    bench_recording(bencher, DRAWS, |c, cb| {
        for _ in 0..DRAWS {
            c.draw(cb, 3);
        }
    });
}

/// `DRAWS` × vkCmdDraw(`vertices`) inside one Begin/End.
#[divan::bench(sample_count = 100, args = [3, BIG])]
fn xfb_draw(bencher: divan::Bencher, vertices: u32) {
    bench_recording(bencher, DRAWS, move |c, cb| {
        c.begin_xfb(cb, false);
        for _ in 0..DRAWS {
            c.draw(cb, vertices);
        }
        c.end_xfb(cb);
    });
}

/// `DRAWS` × (Begin from the counters, vkCmdDraw(3), End to the counters).
#[divan::bench(sample_count = 100)]
fn xfb_pause_resume_draw(bencher: divan::Bencher) {
    bench_recording(bencher, DRAWS, |c, cb| {
        for _ in 0..DRAWS {
            c.begin_xfb(cb, true);
            c.draw(cb, 3);
            c.end_xfb(cb);
        }
    });
}

/// vkCreateGraphicsPipelines + vkDestroyPipeline of the vertex-only XFB
/// pipeline, no pipeline cache.
#[divan::bench(sample_count = 50)]
fn create_xfb_vertex_pipeline(bencher: divan::Bencher) {
    let c = ctx();
    bencher.bench_local(|| {
        let p = c.pipeline(vk::PrimitiveTopology::TRIANGLE_LIST);
        // SAFETY: never used.
        unsafe { c.device.destroy_pipeline(p, None) };
    });
}

/// One draw of `BIG` vertices with XFB active, submitted and waited for;
/// the counter is the number of captured vertices (3 per triangle). Few
/// samples: on the simulator one strip draw takes tens of seconds.
#[divan::bench(sample_count = 3, sample_size = 1, args = ["strip", "list"])]
fn xfb_capture_throughput(bencher: divan::Bencher, topology: &str) {
    let c = ctx();
    let (pipeline, captured) = match topology {
        "strip" => (c.strip, 3 * (BIG - 2)),
        _ => (c.list, BIG / 3 * 3),
    };
    let pool = c.command_pool();
    let cb = c.command_buffer(pool);
    c.record(cb, pipeline, |c, cb| {
        c.begin_xfb(cb, false);
        c.draw(cb, BIG);
        c.end_xfb(cb);
    });
    let d = &c.device;
    // SAFETY: valid handles; the GPU is idle before anything is destroyed.
    unsafe {
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let cbs = [cb];
        let batch = [vk::SubmitInfo::default().command_buffers(&cbs)];
        let run = || {
            d.queue_submit(c.queue, &batch, fence).unwrap();
            d.wait_for_fences(&[fence], true, u64::MAX).unwrap();
            d.reset_fences(&[fence]).unwrap();
        };
        // Once outside the measurement: lavapipe compiles the shader at the
        // first draw.
        run();
        let counters = d
            .map_memory(c.counters.memory, 0, 16, vk::MemoryMapFlags::empty())
            .unwrap()
            .cast::<u32>();
        let written = counters.read();
        d.unmap_memory(c.counters.memory);
        assert_eq!(
            u64::from(written),
            u64::from(captured) * STRIDE[0],
            "buffer 0's counter after one {topology} draw"
        );
        bencher.counter(ItemsCount::new(captured)).bench_local(run);
        d.destroy_fence(fence, None);
        d.destroy_command_pool(pool, None);
    }
}
