//! Pipeline caches through the Khronos loader (Vulkan spec, "Pipeline
//! Cache"): a pipeline from a warm cache captures and computes the same
//! bytes as one compiled cold; the data round-trips; the header is the
//! spec's; corrupt, truncated and foreign data is ignored; VK_INCOMPLETE
//! writes whole entries and nothing past `*pDataSize`; merging; several
//! threads sharing one cache. Hits are counted by the hidden hook
//! `vkBifrostTestPipelineCacheStats` (src/icd/api/test_hooks.rs).

mod common;

use std::time::Instant;

use ash::vk;
use common::*;

const VERT: &[u8] = include_bytes!("shaders/vk/xfb_capture.vert.spv");
const COMPUTE: &[u8] = include_bytes!("shaders/vk/fill.comp.spv");
const CANARY: u8 = 0xC5;
/// Header (32) + magic, version, digest, count (src/vk/pipeline_cache.rs).
const EMPTY_SIZE: usize = 32 + 44;

/// (hits, misses, entries) of a cache.
fn stats(gpu: &Gpu, cache: vk::PipelineCache) -> (u64, u64, u64) {
    type Pfn = unsafe extern "system" fn(
        vk::Device,
        vk::PipelineCache,
        *mut u64,
        *mut u64,
        *mut u64,
    ) -> vk::Result;
    let f = gpu
        .hook(c"vkBifrostTestPipelineCacheStats")
        .expect("test hooks enabled");
    // SAFETY: the hook has this signature (src/icd/api/test_hooks.rs).
    let f: Pfn = unsafe { std::mem::transmute(f) };
    let (mut h, mut m, mut e) = (0, 0, 0);
    // SAFETY: valid handles and out pointers.
    let r = unsafe { f(gpu.device.handle(), cache, &mut h, &mut m, &mut e) };
    assert_eq!(r, vk::Result::SUCCESS);
    (h, m, e)
}

fn new_cache(d: &ash::Device, initial: &[u8]) -> vk::PipelineCache {
    let info = vk::PipelineCacheCreateInfo::default().initial_data(initial);
    // SAFETY: valid create info.
    unsafe { d.create_pipeline_cache(&info, None) }.expect("vkCreatePipelineCache")
}

fn data(d: &ash::Device, cache: vk::PipelineCache) -> Vec<u8> {
    // SAFETY: a live cache.
    unsafe { d.get_pipeline_cache_data(cache) }.expect("vkGetPipelineCacheData")
}

/// vkGetPipelineCacheData with a buffer of `room` bytes inside a larger
/// sentinel-filled one: (result, *pDataSize after, the whole buffer).
fn data_into(
    d: &ash::Device,
    cache: vk::PipelineCache,
    room: usize,
) -> (vk::Result, usize, Vec<u8>) {
    let mut buf = vec![0xAB; room + 64];
    let mut size = room;
    // SAFETY: `buf` holds at least `size` bytes.
    let r = unsafe {
        (d.fp_v1_0().get_pipeline_cache_data)(d.handle(), cache, &mut size, buf.as_mut_ptr().cast())
    };
    (r, size, buf)
}

/// A host-visible buffer with its memory, mapped.
struct Buf {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
    size: usize,
}

impl Buf {
    fn new(d: &ash::Device, size: usize, usage: vk::BufferUsageFlags) -> Buf {
        // SAFETY: valid device; memory type 0 is the only one.
        unsafe {
            let buffer = d
                .create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(size as u64)
                        .usage(usage),
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
                .cast::<u8>();
            Buf {
                buffer,
                memory,
                ptr,
                size,
            }
        }
    }

    #[allow(clippy::mut_from_ref)]
    fn bytes(&self) -> &mut [u8] {
        // SAFETY: the mapping; touched only while the GPU is idle.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.size) }
    }

    fn write<T: Copy>(&self, at: usize, values: &[T]) {
        let n = std::mem::size_of_val(values);
        // SAFETY: plain data.
        let src = unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), n) };
        self.bytes()[at..at + n].copy_from_slice(src);
    }

    fn destroy(&self, d: &ash::Device) {
        // SAFETY: the GPU is idle.
        unsafe {
            d.destroy_buffer(self.buffer, None);
            d.free_memory(self.memory, None);
        }
    }
}

fn submit_and_wait(gpu: &Gpu, cb: vk::CommandBuffer) {
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

/// The compute test of tests/xfb_loader.rs, reduced: `dst[i] = i * k +
/// src[i] + base` (tests/shaders/vk/fill.comp).
struct Compute {
    module: vk::ShaderModule,
    set_layouts: [vk::DescriptorSetLayout; 2],
    layout: vk::PipelineLayout,
}

impl Compute {
    fn new(d: &ash::Device) -> Compute {
        let ssbo = |b| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        };
        let b0 = [ssbo(0), ssbo(1)];
        let b1 = [vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)];
        // SAFETY: valid create infos.
        unsafe {
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
            let set_layouts = [l0, l1];
            let layout = d
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default()
                        .set_layouts(&set_layouts)
                        .push_constant_ranges(&ranges),
                    None,
                )
                .unwrap();
            Compute {
                module: objects::shader_module(d, COMPUTE),
                set_layouts,
                layout,
            }
        }
    }

    fn pipeline(&self, d: &ash::Device, cache: vk::PipelineCache) -> vk::Pipeline {
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(self.module)
            .name(c"main");
        // SAFETY: valid create info.
        unsafe {
            d.create_compute_pipelines(
                cache,
                &[vk::ComputePipelineCreateInfo::default()
                    .stage(stage)
                    .layout(self.layout)],
                None,
            )
        }
        .unwrap()[0]
    }

    /// Run `pipeline` over 40 elements; the destination's bytes (and 64
    /// canary bytes after them).
    fn run(&self, gpu: &Gpu, pipeline: vk::Pipeline) -> Vec<u8> {
        const N: u32 = 40;
        let d = &gpu.device;
        let src = Buf::new(d, 4 * N as usize, vk::BufferUsageFlags::STORAGE_BUFFER);
        let dst = Buf::new(d, 4 * N as usize + 64, vk::BufferUsageFlags::STORAGE_BUFFER);
        let ubo = Buf::new(d, 256, vk::BufferUsageFlags::UNIFORM_BUFFER);
        src.write(0, &(0..N).map(|i| 1000 * i).collect::<Vec<u32>>());
        dst.bytes().fill(CANARY);
        ubo.write(0, &[7u32]);
        // SAFETY: valid handles throughout.
        unsafe {
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
                        .set_layouts(&self.set_layouts),
                )
                .unwrap();
            let info = |b: &Buf, range| {
                [vk::DescriptorBufferInfo {
                    buffer: b.buffer,
                    offset: 0,
                    range,
                }]
            };
            let (si, di, ui) = (
                info(&src, vk::WHOLE_SIZE),
                info(&dst, 4 * u64::from(N)),
                info(&ubo, 16),
            );
            fn write<'a>(
                set: vk::DescriptorSet,
                binding: u32,
                ty: vk::DescriptorType,
                i: &'a [vk::DescriptorBufferInfo; 1],
            ) -> vk::WriteDescriptorSet<'a> {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(binding)
                    .descriptor_type(ty)
                    .buffer_info(i)
            }
            d.update_descriptor_sets(
                &[
                    write(sets[0], 0, vk::DescriptorType::STORAGE_BUFFER, &si),
                    write(sets[0], 1, vk::DescriptorType::STORAGE_BUFFER, &di),
                    write(sets[1], 0, vk::DescriptorType::UNIFORM_BUFFER, &ui),
                ],
                &[],
            );
            let cmd_pool = gpu.command_pool();
            let cb = gpu.command_buffer(cmd_pool);
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            d.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                self.layout,
                0,
                &sets,
                &[],
            );
            d.cmd_push_constants(
                cb,
                self.layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &5u32.to_le_bytes(),
            );
            d.cmd_dispatch(cb, N / 8, 1, 1);
            d.end_command_buffer(cb).unwrap();
            submit_and_wait(gpu, cb);
            let out = dst.bytes().to_vec();
            for i in 0..N as usize {
                let got = u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
                assert_eq!(got, i as u32 * 7 + 1000 * i as u32 + 5, "element {i}");
            }
            assert!(out[4 * N as usize..].iter().all(|&b| b == CANARY));
            d.destroy_command_pool(cmd_pool, None);
            d.destroy_descriptor_pool(pool, None);
            for b in [&src, &dst, &ubo] {
                b.destroy(d);
            }
            out
        }
    }

    fn destroy(&self, d: &ash::Device) {
        // SAFETY: nothing uses them any more.
        unsafe {
            d.destroy_pipeline_layout(self.layout, None);
            for l in self.set_layouts {
                d.destroy_descriptor_set_layout(l, None);
            }
            d.destroy_shader_module(self.module, None);
        }
    }
}

/// The XFB capture of tests/xfb_loader.rs, reduced to one triangle-list
/// draw of 6 vertices × 2 instances (tests/shaders/vk/xfb_capture.vert).
struct Xfb {
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    render_pass: vk::RenderPass,
    framebuffer: vk::Framebuffer,
}

const XFB_VERTS: u32 = 6;
const XFB_INSTANCES: u32 = 2;
const SCALE: f32 = 2.0;
const OFFSET: [f32; 4] = [0.25, -1.0, 8.0, 0.0];

fn a_pos(v: u32) -> [f32; 4] {
    let f = v as f32;
    [f, 0.5 * f, -f, 1.0 + f / 4.0]
}

impl Xfb {
    fn new(d: &ash::Device) -> Xfb {
        let vertex = vk::ShaderStageFlags::VERTEX;
        let set_layout = objects::set_layout(d, &[(0, vk::DescriptorType::UNIFORM_BUFFER)], vertex);
        let (render_pass, framebuffer) = objects::attachmentless_pass(d);
        Xfb {
            module: objects::shader_module(d, VERT),
            set_layout,
            layout: objects::pipeline_layout(d, &[set_layout], 4, vertex),
            render_pass,
            framebuffer,
        }
    }

    fn pipeline(&self, d: &ash::Device, cache: vk::PipelineCache) -> vk::Pipeline {
        objects::XfbPipeline {
            module: self.module,
            layout: self.layout,
            render_pass: self.render_pass,
            instance_binding: 1,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            restart: false,
            provoking: None,
        }
        .create(d, cache)
    }

    /// Draw with `pipeline` under transform feedback; the two XFB buffers'
    /// bytes, checked against the spec's capture order.
    fn run(&self, gpu: &Gpu, pipeline: vk::Pipeline) -> [Vec<u8>; 2] {
        let d = &gpu.device;
        let records = (XFB_VERTS * XFB_INSTANCES) as usize;
        let vertices = Buf::new(
            d,
            16 * XFB_VERTS as usize,
            vk::BufferUsageFlags::VERTEX_BUFFER,
        );
        vertices.write(0, &(0..XFB_VERTS).map(a_pos).collect::<Vec<_>>());
        let instances = Buf::new(d, 64, vk::BufferUsageFlags::VERTEX_BUFFER);
        instances.write(0, &(0..16).map(|i| 100.0 + i as f32).collect::<Vec<f32>>());
        let ubo = Buf::new(d, 256, vk::BufferUsageFlags::UNIFORM_BUFFER);
        ubo.write(0, &OFFSET);
        let usage = vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT;
        let outs = [
            Buf::new(d, 32 * records + 64, usage),
            Buf::new(d, 8 * records + 64, usage),
        ];
        for o in &outs {
            o.bytes().fill(CANARY);
        }
        let xfb = ash::ext::transform_feedback::Device::new(&gpu.instance, d);
        // SAFETY: valid handles throughout.
        unsafe {
            let (pool, set) = objects::buffer_set(
                d,
                self.set_layout,
                &[(0, vk::DescriptorType::UNIFORM_BUFFER, ubo.buffer, 0, 16)],
            );
            let cmd_pool = gpu.command_pool();
            let cb = gpu.command_buffer(cmd_pool);
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_begin_render_pass(
                cb,
                &vk::RenderPassBeginInfo::default()
                    .render_pass(self.render_pass)
                    .framebuffer(self.framebuffer),
                vk::SubpassContents::INLINE,
            );
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
            d.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::GRAPHICS,
                self.layout,
                0,
                &[set],
                &[],
            );
            d.cmd_push_constants(
                cb,
                self.layout,
                vk::ShaderStageFlags::VERTEX,
                0,
                &SCALE.to_le_bytes(),
            );
            d.cmd_bind_vertex_buffers(cb, 0, &[vertices.buffer, instances.buffer], &[0, 0]);
            let fp = xfb.fp();
            let bufs = [outs[0].buffer, outs[1].buffer];
            let offsets = [0u64, 0];
            let sizes = [32 * records as u64, 8 * records as u64];
            (fp.cmd_bind_transform_feedback_buffers_ext)(
                cb,
                0,
                2,
                bufs.as_ptr(),
                offsets.as_ptr(),
                sizes.as_ptr(),
            );
            (fp.cmd_begin_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
            d.cmd_draw(cb, XFB_VERTS, XFB_INSTANCES, 0, 0);
            (fp.cmd_end_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
            d.cmd_end_render_pass(cb);
            d.end_command_buffer(cb).unwrap();
            submit_and_wait(gpu, cb);
            d.destroy_command_pool(cmd_pool, None);
            d.destroy_descriptor_pool(pool, None);
        }
        // The spec's order for a triangle list: vertices in order, instance
        // by instance.
        let mut want = [vec![CANARY; outs[0].size], vec![CANARY; outs[1].size]];
        for inst in 0..XFB_INSTANCES {
            for v in 0..XFB_VERTS {
                let r = (inst * XFB_VERTS + v) as usize;
                let p = a_pos(v);
                for c in 0..4 {
                    let x = p[c] * SCALE + OFFSET[c];
                    want[0][32 * r + 4 * c..32 * r + 4 * c + 4].copy_from_slice(&x.to_le_bytes());
                }
                want[0][32 * r + 16..32 * r + 20].copy_from_slice(&v.to_le_bytes());
                want[0][32 * r + 20..32 * r + 24].copy_from_slice(&inst.to_le_bytes());
                want[1][8 * r + 4..8 * r + 8].copy_from_slice(&(100.0 + inst as f32).to_le_bytes());
            }
        }
        let got = [outs[0].bytes().to_vec(), outs[1].bytes().to_vec()];
        assert_eq!(got, want, "captured bytes");
        for b in outs.iter().chain([&vertices, &instances, &ubo]) {
            b.destroy(d);
        }
        got
    }

    fn destroy(&self, d: &ash::Device) {
        // SAFETY: nothing uses them any more.
        unsafe {
            d.destroy_framebuffer(self.framebuffer, None);
            d.destroy_render_pass(self.render_pass, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            d.destroy_shader_module(self.module, None);
        }
    }
}

fn destroy_pipelines(d: &ash::Device, pipelines: &[vk::Pipeline]) {
    for &p in pipelines {
        // SAFETY: the GPU is idle.
        unsafe { d.destroy_pipeline(p, None) };
    }
}

fn destroy_caches(d: &ash::Device, caches: &[vk::PipelineCache]) {
    for &c in caches {
        // SAFETY: no create call uses it.
        unsafe { d.destroy_pipeline_cache(c, None) };
    }
}

/// Cold, warm and reloaded pipelines give the same bytes on the GPU; the
/// warm and reloaded ones are cache hits.
#[test]
fn warm_and_reloaded_caches_give_the_same_bytes() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let xfb = Xfb::new(d);
    let comp = Compute::new(d);
    let cold = [
        xfb.pipeline(d, vk::PipelineCache::null()),
        comp.pipeline(d, vk::PipelineCache::null()),
    ];
    let cold_xfb = xfb.run(&gpu, cold[0]);
    let cold_comp = comp.run(&gpu, cold[1]);
    destroy_pipelines(d, &cold);
    // The driver's XFB kernels stay compiled for the device from here on.
    let (bos_before, _) = gpu.bo_stats();

    let cache = new_cache(d, &[]);
    assert_eq!(stats(&gpu, cache), (0, 0, 0));
    let first = [xfb.pipeline(d, cache), comp.pipeline(d, cache)];
    assert_eq!(stats(&gpu, cache), (0, 2, 2), "two misses, two entries");
    let warm = [xfb.pipeline(d, cache), comp.pipeline(d, cache)];
    assert_eq!(stats(&gpu, cache), (2, 2, 2), "two hits");
    assert_eq!(xfb.run(&gpu, first[0]), cold_xfb);
    assert_eq!(xfb.run(&gpu, warm[0]), cold_xfb);
    assert_eq!(comp.run(&gpu, warm[1]), cold_comp);

    // Round trip through vkGetPipelineCacheData.
    let blob = data(d, cache);
    assert!(blob.len() > EMPTY_SIZE);
    assert_eq!(data(d, cache), blob, "two calls, the same data");
    // The cache goes away; pipelines made from it live on.
    destroy_caches(d, &[cache]);
    assert_eq!(xfb.run(&gpu, warm[0]), cold_xfb);
    let reloaded = new_cache(d, &blob);
    assert_eq!(stats(&gpu, reloaded), (0, 0, 2), "both entries loaded");
    let again = [xfb.pipeline(d, reloaded), comp.pipeline(d, reloaded)];
    assert_eq!(stats(&gpu, reloaded), (2, 0, 2), "hits, no compilation");
    assert_eq!(xfb.run(&gpu, again[0]), cold_xfb);
    assert_eq!(comp.run(&gpu, again[1]), cold_comp);
    assert_eq!(
        data(d, reloaded),
        blob,
        "the reloaded cache serialises the same"
    );

    destroy_caches(d, &[reloaded]);
    for p in [first, warm, again] {
        destroy_pipelines(d, &p);
    }
    xfb.destroy(d);
    comp.destroy(d);
    let (bos_after, _) = gpu.bo_stats();
    assert_eq!(bos_after, bos_before, "every pipeline's code BO freed");
}

#[test]
fn header_is_the_specs() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    // SAFETY: valid handle.
    let props = unsafe {
        gpu.instance
            .get_physical_device_properties(gpu.physical_device)
    };
    assert_ne!(props.pipeline_cache_uuid, [0; 16]);
    let cache = new_cache(d, &[]);
    let mut size = 0;
    // SAFETY: a size query.
    let r = unsafe {
        (d.fp_v1_0().get_pipeline_cache_data)(d.handle(), cache, &mut size, std::ptr::null_mut())
    };
    assert_eq!((r, size), (vk::Result::SUCCESS, EMPTY_SIZE));
    let blob = data(d, cache);
    let word = |i: usize| u32::from_le_bytes(blob[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!(word(0), 32, "headerSize");
    assert_eq!(word(1), 1, "VK_PIPELINE_CACHE_HEADER_VERSION_ONE");
    assert_eq!(word(2), props.vendor_id);
    assert_eq!(word(2), 0x13B5);
    assert_eq!(word(3), props.device_id);
    assert_eq!(&blob[16..32], &props.pipeline_cache_uuid);
    destroy_caches(d, &[cache]);
}

/// Initial data that is truncated, bit-flipped or made for another
/// vendor, device, driver build or format is ignored: the cache starts
/// empty, works, and nothing crashes.
#[test]
fn bad_initial_data_is_ignored() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let comp = Compute::new(d);
    let cache = new_cache(d, &[]);
    let p = comp.pipeline(d, cache);
    let good = data(d, cache);
    destroy_pipelines(d, &[p]);
    destroy_caches(d, &[cache]);
    let check = |bad: &[u8], what: &str| {
        let c = new_cache(d, bad);
        assert_eq!(stats(&gpu, c).2, 0, "{what}: the cache starts empty");
        assert_eq!(data(d, c).len(), EMPTY_SIZE, "{what}");
        destroy_caches(d, &[c]);
    };
    // Control: the good data loads.
    let c = new_cache(d, &good);
    assert_eq!(stats(&gpu, c).2, 1);
    destroy_caches(d, &[c]);

    for len in (0..good.len()).step_by(7) {
        check(&good[..len], &format!("truncated to {len}"));
    }
    check(&good[..good.len() - 1], "one byte short");
    let mut longer = good.clone();
    longer.push(0);
    check(&longer, "one byte too many");
    for bit in (0..good.len() * 8).step_by(13) {
        let mut b = good.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        check(&b, &format!("bit {bit} flipped"));
    }
    let patched = |at: usize, bytes: &[u8]| {
        let mut b = good.clone();
        b[at..at + bytes.len()].copy_from_slice(bytes);
        b
    };
    check(&patched(0, &16u32.to_le_bytes()), "header size 16");
    check(&patched(4, &2u32.to_le_bytes()), "header version 2");
    check(&patched(8, &0x10DEu32.to_le_bytes()), "another vendor");
    check(&patched(12, &0x6221u32.to_le_bytes()), "another device");
    check(&patched(16, &[0x55; 16]), "another UUID");
    check(&patched(32, b"XXXX"), "another magic");
    let format = u32::from_le_bytes(good[36..40].try_into().unwrap());
    check(
        &patched(36, &(format + 1).to_le_bytes()),
        "another format version",
    );
    let noise: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    check(&noise, "noise");

    // A cache that ignored its data still caches.
    let c = new_cache(d, &patched(16, &[0x55; 16]));
    let p = comp.pipeline(d, c);
    comp.run(&gpu, p);
    assert_eq!(stats(&gpu, c), (0, 1, 1));
    destroy_pipelines(d, &[p]);
    destroy_caches(d, &[c]);
    comp.destroy(d);
}

/// A buffer smaller than the data: VK_INCOMPLETE, at most `*pDataSize`
/// bytes written and nothing past them, and what was written is valid
/// initial data holding whole entries.
#[test]
fn incomplete_writes_whole_entries() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let xfb = Xfb::new(d);
    let comp = Compute::new(d);
    let cache = new_cache(d, &[]);
    let ps = [xfb.pipeline(d, cache), comp.pipeline(d, cache)];
    let full = data(d, cache);

    let (r, n, buf) = data_into(d, cache, full.len());
    assert_eq!((r, n), (vk::Result::SUCCESS, full.len()));
    assert_eq!(&buf[..n], full.as_slice());
    assert!(buf[n..].iter().all(|&b| b == 0xAB));

    let mut saw_one_entry = false;
    for room in [0, 1, 31, 32, EMPTY_SIZE - 1, EMPTY_SIZE, EMPTY_SIZE + 1]
        .into_iter()
        .chain((EMPTY_SIZE..full.len()).step_by(97))
        .chain([full.len() - 1])
    {
        let (r, n, buf) = data_into(d, cache, room);
        assert_eq!(r, vk::Result::INCOMPLETE, "room {room}");
        assert!(n <= room, "room {room}: {n} bytes reported");
        assert!(
            buf[n..].iter().all(|&b| b == 0xAB),
            "room {room}: nothing written past the data"
        );
        if room < EMPTY_SIZE {
            assert_eq!(n, 0, "room {room}: too small for the header");
            continue;
        }
        let c = new_cache(d, &buf[..n]);
        let entries = stats(&gpu, c).2;
        assert!(entries < 2, "room {room}");
        saw_one_entry |= entries == 1;
        assert_eq!(data(d, c), buf[..n].to_vec(), "room {room}: valid data");
        destroy_caches(d, &[c]);
    }
    assert!(saw_one_entry, "a partial write holds the entry that fits");
    destroy_pipelines(d, &ps);
    destroy_caches(d, &[cache]);
    xfb.destroy(d);
    comp.destroy(d);
}

#[test]
fn merge_adds_the_entries_of_every_source() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let xfb = Xfb::new(d);
    let comp = Compute::new(d);
    let a = new_cache(d, &[]);
    let b = new_cache(d, &[]);
    let dst = new_cache(d, &[]);
    let ps = [xfb.pipeline(d, a), comp.pipeline(d, b), comp.pipeline(d, a)];
    assert_eq!(stats(&gpu, a).2, 2);
    assert_eq!(stats(&gpu, b).2, 1);
    // SAFETY: live caches, dst not among the sources.
    unsafe { d.merge_pipeline_caches(dst, &[a, b]) }.unwrap();
    assert_eq!(stats(&gpu, dst).2, 2, "the union, no duplicates");
    // SAFETY: as above.
    unsafe { d.merge_pipeline_caches(dst, &[b]) }.unwrap();
    assert_eq!(stats(&gpu, dst).2, 2);
    assert_eq!(
        data(d, dst),
        data(d, a),
        "the same entries serialise the same"
    );
    let merged = [xfb.pipeline(d, dst), comp.pipeline(d, dst)];
    assert_eq!(stats(&gpu, dst), (2, 0, 2));
    comp.run(&gpu, merged[1]);
    xfb.run(&gpu, merged[0]);
    destroy_pipelines(d, &ps);
    destroy_pipelines(d, &merged);
    destroy_caches(d, &[a, b, dst]);
    xfb.destroy(d);
    comp.destroy(d);
}

/// Several threads create pipelines with one cache at once.
#[test]
fn threads_share_a_cache() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let comp = Compute::new(d);
    let xfb = Xfb::new(d);
    let cache = new_cache(d, &[]);
    const THREADS: usize = 4;
    const EACH: usize = 3;
    let pipelines: Vec<vk::Pipeline> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (comp, xfb) = (&comp, &xfb);
                s.spawn(move || {
                    (0..EACH)
                        .map(|i| {
                            if (t + i).is_multiple_of(2) {
                                comp.pipeline(d, cache)
                            } else {
                                xfb.pipeline(d, cache)
                            }
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let (hits, misses, entries) = stats(&gpu, cache);
    assert_eq!(entries, 2);
    assert_eq!(hits + misses, (THREADS * EACH) as u64);
    assert!(misses >= 2, "each stage missed at least once");
    for (i, &p) in pipelines.iter().enumerate() {
        if (i / EACH + i % EACH).is_multiple_of(2) {
            comp.run(&gpu, p);
        } else {
            xfb.run(&gpu, p);
        }
    }
    destroy_pipelines(d, &pipelines);
    destroy_caches(d, &[cache]);
    comp.destroy(d);
    xfb.destroy(d);
}

/// Cold vs warm pipeline creation, printed (`cargo test --release --test
/// pipeline_cache -- --nocapture timing`); never asserted.
#[test]
fn timing() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let xfb = Xfb::new(d);
    let comp = Compute::new(d);
    let cache = new_cache(d, &[]);
    let ps = [xfb.pipeline(d, cache), comp.pipeline(d, cache)];
    destroy_pipelines(d, &ps);
    let median = |cache: vk::PipelineCache, graphics: bool| {
        let mut t: Vec<f64> = (0..15)
            .map(|_| {
                let start = Instant::now();
                let p = if graphics {
                    xfb.pipeline(d, cache)
                } else {
                    comp.pipeline(d, cache)
                };
                let e = start.elapsed().as_secs_f64() * 1e6;
                destroy_pipelines(d, &[p]);
                e
            })
            .collect();
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    };
    for (name, graphics) in [("XFB vertex pipeline", true), ("compute pipeline", false)] {
        let cold = median(vk::PipelineCache::null(), graphics);
        let warm = median(cache, graphics);
        println!("{name}: cold {cold:.0} µs, warm {warm:.0} µs (median of 15)");
    }
    destroy_caches(d, &[cache]);
    xfb.destroy(d);
    comp.destroy(d);
}
