//! Transform feedback and compute through the Khronos loader, on the
//! simulated G52 and G72: shader modules, descriptor sets, pipeline layouts
//! with push constants, graphics pipelines with vertex input, render passes
//! without attachments, `VK_EXT_transform_feedback` (bind, Begin/End with
//! counter buffers, pause/resume across command buffers), draws and indexed
//! draws, compute dispatches.
//!
//! Expected bytes come from the spec's capture rules as written here (the
//! Vulkan spec, "Transform Feedback Capture" and the primitive topology
//! section: strip triangle `i` is `{v_i, v_(i+1+i%2), v_(i+2-i%2)}`, fan
//! triangle `i` is `{v_(i+1), v_(i+2), v_0}`; whole primitives only; the
//! counters hold byte offsets), never from a driver's output. Every XFB
//! buffer starts filled with a canary; every byte the model does not write
//! must keep it.

mod common;
#[path = "support/fill_compute.rs"]
mod fill_compute;
#[path = "support/xfb_device.rs"]
mod xfb_device;

use ash::vk;
use common::*;
use fill_compute::FillCompute;
use xfb_device::*;

const CANARY: u8 = 0xC5;

/// One draw of a case.
#[derive(Clone, Debug)]
struct Draw {
    count: u32,
    instances: u32,
    first: u32,
    first_instance: u32,
    /// Indexed: the indices, their size (2 or 4) and vertexOffset.
    indexed: Option<(Vec<u32>, u32, i32)>,
}

/// The vertex numbers one draw captures, in order (all instances), and how
/// many primitives it needs. With `restart` (strips and fans of indexed
/// draws), the index stream splits at the all-ones value of the index size,
/// compared before vertexOffset, and each run assembles primitives afresh
/// (Vulkan spec, "Primitive Restart"; strip parity restarts with the run).
fn captured(
    topology: vk::PrimitiveTopology,
    d: &Draw,
    restart: bool,
    last: bool,
) -> (Vec<(u32, u32)>, u32) {
    // Runs of vertex numbers in draw order.
    let runs: Vec<Vec<u32>> = match &d.indexed {
        None => vec![(0..d.count).map(|j| d.first + j).collect()],
        Some((ix, size, vo)) => {
            let cut = match *size {
                1 => 0xFF,
                2 => 0xFFFF,
                _ => u32::MAX,
            };
            let stream = &ix[d.first as usize..(d.first + d.count) as usize];
            let vertex = |i: &u32| (i64::from(*i) + i64::from(*vo)) as u32;
            if restart {
                stream
                    .split(|&i| i == cut)
                    .map(|run| run.iter().map(vertex).collect())
                    .collect()
            } else {
                vec![stream.iter().map(vertex).collect()]
            }
        }
    };
    let mut per_instance = Vec::new();
    for run in &runs {
        let prims = if last {
            primitives_last(topology, run.len() as u32)
        } else {
            primitives(topology, run.len() as u32)
        };
        for p in prims {
            per_instance.push(p.iter().map(|&j| run[j as usize]).collect::<Vec<_>>());
        }
    }
    let mut out = Vec::new();
    for i in 0..d.instances {
        for p in &per_instance {
            out.extend(p.iter().map(|&v| (v, d.first_instance + i)));
        }
    }
    (out, per_instance.len() as u32 * d.instances)
}

/// XFB buffers of a case: memory of each, where the binding starts, its size.
struct Targets {
    bufs: [Buf; 2],
    bind_offset: [u64; 2],
    bind_size: [u64; 2],
    counters: Buf,
}

impl Targets {
    fn new(d: &ash::Device, records: [u64; 2]) -> Targets {
        let bind_offset = [16, 8];
        let bind_size = [records[0] * STRIDE[0], records[1] * STRIDE[1]];
        let usage = vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT;
        let make = |b: usize| {
            let buf = Buf::new(d, bind_offset[b] + bind_size[b] + 64, usage);
            buf.bytes().fill(CANARY);
            buf
        };
        let counters = Buf::new(
            d,
            64,
            // Counters also feed vkCmdDrawIndirectByteCountEXT.
            vk::BufferUsageFlags::TRANSFORM_FEEDBACK_COUNTER_BUFFER_EXT
                | vk::BufferUsageFlags::INDIRECT_BUFFER,
        );
        counters.bytes().fill(0xEE);
        Targets {
            bufs: [make(0), make(1)],
            bind_offset,
            bind_size,
            counters,
        }
    }

    fn destroy(&self, d: &ash::Device) {
        for b in &self.bufs {
            b.destroy(d);
        }
        self.counters.destroy(d);
    }
}

/// How `record` issues each draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// vkCmdDraw / vkCmdDrawIndexed.
    Direct,
    /// vkCmdDrawIndirect / vkCmdDrawIndexedIndirect: the draw's record at
    /// byte 12 of a buffer of its own (stride 20, drawCount 1).
    Indirect,
    /// vkCmdDraw(Indexed)IndirectCountKHR: the count (`n`, 0 or 1) at byte
    /// 0 of the same buffer, maxDrawCount 1.
    Count(u32),
    /// vkCmdDrawIndirectByteCountEXT with (counter buffer, its offset,
    /// counterOffset, vertexStride); the draw's count is not used.
    ByteCount(vk::Buffer, u64, u32, u32),
}

/// Records draws between Begin and End (counters at offsets 0 and 8 of the
/// counter buffer, resumed when `resume`), in a render pass.
fn record(
    gpu: &Gpu,
    s: &Setup,
    t: &Targets,
    pipeline: vk::Pipeline,
    draws: &[Draw],
    resume: bool,
) -> vk::CommandBuffer {
    record_as(gpu, s, t, pipeline, draws, resume, Mode::Direct)
}

/// A command buffer recording into the render pass with the pipeline,
/// descriptors, push constants and vertex buffers bound and transform
/// feedback begun on `t` (resumed from its counters when `resume`).
fn begin_capture(
    gpu: &Gpu,
    s: &Setup,
    t: &Targets,
    pipeline: vk::Pipeline,
    resume: bool,
) -> vk::CommandBuffer {
    let d = &gpu.device;
    let xfb = ash::ext::transform_feedback::Device::new(&gpu.instance, d);
    let cb = s.begin_pass(gpu, pipeline);
    // SAFETY: valid handles throughout.
    unsafe {
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
        let fp = xfb.fp();
        let bufs = [t.bufs[0].buffer, t.bufs[1].buffer];
        (fp.cmd_bind_transform_feedback_buffers_ext)(
            cb,
            0,
            2,
            bufs.as_ptr(),
            t.bind_offset.as_ptr(),
            t.bind_size.as_ptr(),
        );
        let counters = [t.counters.buffer, t.counters.buffer];
        let offsets = [0u64, 8];
        if resume {
            (fp.cmd_begin_transform_feedback_ext)(cb, 0, 2, counters.as_ptr(), offsets.as_ptr());
        } else {
            (fp.cmd_begin_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
        }
    }
    cb
}

/// Ends what [`begin_capture`] began: transform feedback (counters saved
/// at offsets 0 and 8 of `t.counters`), the render pass, the recording.
fn end_capture(gpu: &Gpu, t: &Targets, cb: vk::CommandBuffer) {
    let d = &gpu.device;
    let xfb = ash::ext::transform_feedback::Device::new(&gpu.instance, d);
    let counters = [t.counters.buffer, t.counters.buffer];
    let offsets = [0u64, 8];
    // SAFETY: valid handles throughout.
    unsafe {
        (xfb.fp().cmd_end_transform_feedback_ext)(cb, 0, 2, counters.as_ptr(), offsets.as_ptr());
        d.cmd_end_render_pass(cb);
        d.end_command_buffer(cb).unwrap();
    }
}

/// [`record`] with the draws issued as `mode` says.
fn record_as(
    gpu: &Gpu,
    s: &Setup,
    t: &Targets,
    pipeline: vk::Pipeline,
    draws: &[Draw],
    resume: bool,
    mode: Mode,
) -> vk::CommandBuffer {
    let d = &gpu.device;
    let xfb = ash::ext::transform_feedback::Device::new(&gpu.instance, d);
    let fp = xfb.fp();
    let cb = begin_capture(gpu, s, t, pipeline, resume);
    // SAFETY: valid handles throughout.
    unsafe {
        let mut index_buffers = Vec::new();
        let count_ext = ash::khr::draw_indirect_count::Device::new(&gpu.instance, d);
        // The draw's own indirect buffer (filled with garbage around the record).
        let indirect = |words: &[u32]| -> vk::Buffer {
            let b = Buf::new(d, 64, vk::BufferUsageFlags::INDIRECT_BUFFER);
            b.bytes().fill(0x7F);
            b.write(12, words);
            if let Mode::Count(n) = mode {
                b.write(0, &[n]);
            }
            let buffer = b.buffer;
            INDIRECT_BUFFERS.with(|v| v.borrow_mut().push(b));
            buffer
        };
        for draw in draws {
            match (&draw.indexed, mode) {
                (None, Mode::ByteCount(counter, at, counter_offset, stride)) => (fp
                    .cmd_draw_indirect_byte_count_ext)(
                    cb,
                    draw.instances,
                    draw.first_instance,
                    counter,
                    at,
                    counter_offset,
                    stride,
                ),
                (None, Mode::Indirect | Mode::Count(_)) => {
                    let b =
                        indirect(&[draw.count, draw.instances, draw.first, draw.first_instance]);
                    if mode == Mode::Indirect {
                        d.cmd_draw_indirect(cb, b, 12, 1, 20);
                    } else {
                        count_ext.cmd_draw_indirect_count(cb, b, 12, b, 0, 1, 20);
                    }
                }
                (None, _) => d.cmd_draw(
                    cb,
                    draw.count,
                    draw.instances,
                    draw.first,
                    draw.first_instance,
                ),
                (Some((ix, size, vertex_offset)), _) => {
                    let ib = Buf::new(
                        d,
                        4 * ix.len() as u64 + 8,
                        vk::BufferUsageFlags::INDEX_BUFFER,
                    );
                    let ty = match *size {
                        1 => {
                            ib.write(1, &ix.iter().map(|&i| i as u8).collect::<Vec<_>>());
                            vk::IndexType::UINT8_EXT
                        }
                        2 => {
                            ib.write(2, &ix.iter().map(|&i| i as u16).collect::<Vec<_>>());
                            vk::IndexType::UINT16
                        }
                        _ => {
                            ib.write(4, ix);
                            vk::IndexType::UINT32
                        }
                    };
                    d.cmd_bind_index_buffer(cb, ib.buffer, u64::from(*size), ty);
                    let record = [
                        draw.count,
                        draw.instances,
                        draw.first,
                        *vertex_offset as u32,
                        draw.first_instance,
                    ];
                    match mode {
                        Mode::Indirect => {
                            let b = indirect(&record);
                            d.cmd_draw_indexed_indirect(cb, b, 12, 1, 20);
                        }
                        Mode::Count(_) => {
                            let b = indirect(&record);
                            count_ext.cmd_draw_indexed_indirect_count(cb, b, 12, b, 0, 1, 20);
                        }
                        _ => d.cmd_draw_indexed(
                            cb,
                            draw.count,
                            draw.instances,
                            draw.first,
                            *vertex_offset,
                            draw.first_instance,
                        ),
                    }
                    index_buffers.push(ib);
                }
            }
        }
        // Index buffers must outlive the submit: keep them in a leak-free way.
        INDEX_BUFFERS.with(|v| v.borrow_mut().extend(index_buffers));
    }
    end_capture(gpu, t, cb);
    cb
}

thread_local! {
    static INDEX_BUFFERS: std::cell::RefCell<Vec<Buf>> = const { std::cell::RefCell::new(Vec::new()) };
    static INDIRECT_BUFFERS: std::cell::RefCell<Vec<Buf>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn free_index_buffers(d: &ash::Device) {
    for list in [&INDEX_BUFFERS, &INDIRECT_BUFFERS] {
        list.with(|v| {
            for b in v.borrow_mut().drain(..) {
                b.destroy(d);
            }
        });
    }
}

/// What the buffers and counters must hold after `draws` (the spec's
/// rules: records in order, whole primitives that fit every bound buffer).
fn expect(
    topology: vk::PrimitiveTopology,
    restart: bool,
    last: bool,
    t: &Targets,
    draws: &[Draw],
    start: [u64; 2],
) -> ([Vec<u8>; 2], [u64; 2]) {
    let mut mem = [
        vec![CANARY; t.bufs[0].size as usize],
        vec![CANARY; t.bufs[1].size as usize],
    ];
    let vpp = primitives(topology, 3).first().map_or(1, Vec::len) as u64;
    let mut offset = start;
    for d in draws {
        let (verts, needed) = captured(topology, d, restart, last);
        let room = (0..2)
            .map(|b| (t.bind_size[b].saturating_sub(offset[b])) / (STRIDE[b] * vpp))
            .min()
            .unwrap();
        let written = room.min(u64::from(needed));
        for (r, &(v, inst)) in verts.iter().take((written * vpp) as usize).enumerate() {
            let at0 = (t.bind_offset[0] + offset[0]) as usize + r * STRIDE[0] as usize;
            let p = a_pos(v);
            for c in 0..4 {
                let x = p[c] * SCALE + OFFSET[c];
                mem[0][at0 + 4 * c..at0 + 4 * c + 4].copy_from_slice(&x.to_le_bytes());
            }
            mem[0][at0 + 16..at0 + 20].copy_from_slice(&v.to_le_bytes());
            mem[0][at0 + 20..at0 + 24].copy_from_slice(&inst.to_le_bytes());
            let at1 = (t.bind_offset[1] + offset[1]) as usize + r * STRIDE[1] as usize + 4;
            mem[1][at1..at1 + 4].copy_from_slice(&a_inst(inst).to_le_bytes());
        }
        for b in 0..2 {
            offset[b] += written * vpp * STRIDE[b];
        }
    }
    (mem, offset)
}

fn check(
    topology: vk::PrimitiveTopology,
    restart: bool,
    t: &Targets,
    draws: &[Draw],
    start: [u64; 2],
    what: &str,
) {
    check_order(topology, restart, false, t, draws, start, what)
}

/// [`check`] with the LAST provoking-vertex order when `last`.
fn check_order(
    topology: vk::PrimitiveTopology,
    restart: bool,
    last: bool,
    t: &Targets,
    draws: &[Draw],
    start: [u64; 2],
    what: &str,
) {
    let (want, counters) = expect(topology, restart, last, t, draws, start);
    for (b, (buf, want)) in t.bufs.iter().zip(&want).enumerate() {
        let got = buf.bytes();
        if got != want.as_slice() {
            let at = got.iter().zip(want).position(|(g, w)| g != w).unwrap();
            panic!(
                "{what}: {topology:?} buffer {b} differs at byte {at}: got {:02x?} want {:02x?}\ndraws {draws:?}",
                &got[at..(at + 8).min(got.len())],
                &want[at..(at + 8).min(got.len())]
            );
        }
    }
    assert_eq!(
        [
            u64::from(t.counters.u32_at(0)),
            u64::from(t.counters.u32_at(8))
        ],
        counters,
        "{what}: {topology:?} counters (byte offsets), draws {draws:?}"
    );
}

fn plain(count: u32, instances: u32, first: u32, first_instance: u32) -> Draw {
    Draw {
        count,
        instances,
        first,
        first_instance,
        indexed: None,
    }
}

/// Every non-adjacency topology × counts 0–8 × 1–3 instances (first vertex
/// and first instance varied), then overflow, indexed draws and a resume.
fn topologies_on(model: &str) {
    let gpu = Gpu::with_xfb(model);
    let d = &gpu.device;
    let s = Setup::new(&gpu);
    for topology in TOPOLOGIES {
        let pipeline = s.pipeline(d, topology);
        // Roomy buffers: every primitive fits.
        let mut n = 0;
        for count in 0..=8 {
            for instances in 1..=3 {
                n += 1;
                let draws = [plain(count, instances, (n * 7) % 11, n % 3)];
                let t = Targets::new(d, [200, 200]);
                let cb = record(&gpu, &s, &t, pipeline, &draws, false);
                submit_and_wait(&gpu, &[cb]);
                check(topology, false, &t, &draws, [0, 0], model);
                t.destroy(d);
            }
        }
        // Overflow: buffer 1 fills first, whole primitives only; two draws
        // share the buffers in order.
        let draws = [plain(8, 2, 1, 0), plain(7, 1, 30, 4)];
        let t = Targets::new(d, [40, 11]);
        let cb = record(&gpu, &s, &t, pipeline, &draws, false);
        submit_and_wait(&gpu, &[cb]);
        check(topology, false, &t, &draws, [0, 0], model);
        t.destroy(d);
        // Indexed, 16- and 32-bit, negative and positive vertexOffset,
        // instanced (per-instance data through the divisor records).
        let ix16: Vec<u32> = vec![9, 3, 200, 4, 4, 60_000, 7, 1, 0, 12];
        let ix32: Vec<u32> = vec![65_536, 3, 69_000, 5, 2, 66_000, 8, 1];
        let ix8: Vec<u32> = vec![7, 250, 3, 0, 9, 200, 1, 2];
        let draws = [
            Draw {
                count: 9,
                instances: 2,
                first: 1,
                first_instance: 1,
                indexed: Some((ix16.clone(), 2, 5)),
            },
            Draw {
                count: 7,
                instances: 3,
                first: 0,
                first_instance: 2,
                indexed: Some((ix32, 4, -2)),
            },
            Draw {
                count: 7,
                instances: 2,
                first: 1,
                first_instance: 0,
                indexed: Some((ix8, 1, 11)),
            },
        ];
        let t = Targets::new(d, [200, 200]);
        let cb = record(&gpu, &s, &t, pipeline, &draws, false);
        submit_and_wait(&gpu, &[cb]);
        check(topology, false, &t, &draws, [0, 0], model);
        // Resume from the counters in a second command buffer, then submit
        // both again: the same bytes (Begin rereads the counters on the GPU).
        let more = [plain(6, 1, 40, 0)];
        let cb2 = record(&gpu, &s, &t, pipeline, &more, true);
        submit_and_wait(&gpu, &[cb2]);
        let all: Vec<Draw> = draws.iter().chain(&more).cloned().collect();
        check(topology, false, &t, &all, [0, 0], model);
        for b in &t.bufs {
            b.bytes().fill(CANARY);
        }
        submit_and_wait(&gpu, &[cb, cb2]);
        check(topology, false, &t, &all, [0, 0], model);
        t.destroy(d);
        free_index_buffers(d);
        // SAFETY: the GPU is idle.
        unsafe { d.destroy_pipeline(pipeline, None) };
    }
    s.destroy(d);
}

#[test]
fn xfb_topologies_g52() {
    topologies_on("g52");
}

#[test]
fn xfb_topologies_g72() {
    topologies_on("g72");
}

/// A strip of 10^5 vertices, 2 instances: the capture job's cost on the CPU
/// does not depend on the count, and the bytes are the spec's.
#[test]
fn xfb_big_strip() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let s = Setup::new(&gpu);
    let topology = vk::PrimitiveTopology::TRIANGLE_STRIP;
    let pipeline = s.pipeline(d, topology);
    let draws = [plain(65_000, 2, 3, 0)];
    let t = Targets::new(d, [3 * 2 * 65_000, 3 * 2 * 65_000]);
    let cb = record(&gpu, &s, &t, pipeline, &draws, false);
    submit_and_wait(&gpu, &[cb]);
    check(topology, false, &t, &draws, [0, 0], "big strip");
    t.destroy(d);
    // SAFETY: the GPU is idle.
    unsafe { d.destroy_pipeline(pipeline, None) };
    s.destroy(d);
}

/// 65,541 instances of a u32-indexed point draw whose vertex indices reach
/// 69,990: no linear index `vertex + instance × n` with n above every
/// index fits 32 bits here (65,541 × 2^17 > 2^32), so this fails unless
/// the capture fetches each input by its own element index (vertex index,
/// or instance index for per-instance data). Direct and indirect.
#[test]
fn xfb_many_instances_with_large_u32_indices() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let s = Setup::new(&gpu);
    let topology = vk::PrimitiveTopology::POINT_LIST;
    let pipeline = s.pipeline(d, topology);
    let instances = 65_540;
    let inst = Buf::new(
        d,
        4 * u64::from(instances + 1),
        vk::BufferUsageFlags::VERTEX_BUFFER,
    );
    inst.write(0, &(0..=instances).map(a_inst).collect::<Vec<f32>>());
    for indirect in [false, true] {
        let draws = [Draw {
            count: 3,
            instances,
            first: 0,
            first_instance: 1,
            indexed: Some((vec![69_990, 3, 65_600], 4, 0)),
        }];
        let records = 3 * u64::from(instances);
        let t = Targets::new(d, [records, records]);
        let cb = begin_capture(&gpu, &s, &t, pipeline, false);
        let ib = Buf::new(d, 12, vk::BufferUsageFlags::INDEX_BUFFER);
        ib.write(0, &[69_990u32, 3, 65_600]);
        let args = Buf::new(d, 32, vk::BufferUsageFlags::INDIRECT_BUFFER);
        args.write(0, &[3u32, instances, 0, 0, 1]);
        // SAFETY: valid handles; the command buffer is recording.
        unsafe {
            d.cmd_bind_vertex_buffers(cb, 3, &[inst.buffer], &[0]);
            d.cmd_bind_index_buffer(cb, ib.buffer, 0, vk::IndexType::UINT32);
            if indirect {
                d.cmd_draw_indexed_indirect(cb, args.buffer, 0, 1, 20);
            } else {
                d.cmd_draw_indexed(cb, 3, instances, 0, 0, 1);
            }
        }
        end_capture(&gpu, &t, cb);
        submit_and_wait(&gpu, &[cb]);
        let what = if indirect { "indirect" } else { "direct" };
        check(topology, false, &t, &draws, [0, 0], what);
        t.destroy(d);
        ib.destroy(d);
        args.destroy(d);
    }
    inst.destroy(d);
    // SAFETY: the GPU is idle.
    unsafe { d.destroy_pipeline(pipeline, None) };
    s.destroy(d);
}

/// A compute dispatch through descriptor sets (storage buffers, a dynamic
/// uniform buffer in a second set) and push constants.
#[test]
fn compute_dispatch_with_descriptors() {
    for model in ["g52", "g72"] {
        let gpu = Gpu::with_xfb(model);
        let d = &gpu.device;
        let (before, _) = gpu.bo_stats();
        let f = FillCompute::new(
            d,
            vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
            vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET,
        );
        let (layout, pipeline, pool, sets) = (f.layout, f.pipeline, f.pool, &f.sets);
        // SAFETY: valid handles and create infos throughout.
        unsafe {
            const N: u32 = 40;
            let src = Buf::new(d, 4 * u64::from(N), vk::BufferUsageFlags::STORAGE_BUFFER);
            let dst = Buf::new(
                d,
                4 * u64::from(N) + 64,
                vk::BufferUsageFlags::STORAGE_BUFFER,
            );
            let ubo = Buf::new(d, 512, vk::BufferUsageFlags::UNIFORM_BUFFER);
            src.write(0, &(0..N).map(|i| 1000 * i).collect::<Vec<u32>>());
            dst.bytes().fill(CANARY);
            ubo.write(256, &[7u32]);
            let si = [vk::DescriptorBufferInfo {
                buffer: src.buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }];
            let di = [vk::DescriptorBufferInfo {
                buffer: dst.buffer,
                offset: 0,
                range: 4 * u64::from(N),
            }];
            let ui = [vk::DescriptorBufferInfo {
                buffer: ubo.buffer,
                offset: 0,
                range: 16,
            }];
            d.update_descriptor_sets(
                &[
                    vk::WriteDescriptorSet::default()
                        .dst_set(sets[0])
                        .dst_binding(0)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(&si),
                    vk::WriteDescriptorSet::default()
                        .dst_set(sets[0])
                        .dst_binding(1)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(&di),
                    vk::WriteDescriptorSet::default()
                        .dst_set(sets[1])
                        .dst_binding(0)
                        .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC)
                        .buffer_info(&ui),
                ],
                &[],
            );
            let cmd_pool = gpu.command_pool();
            let cb = gpu.command_buffer(cmd_pool);
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            // The dynamic offset picks k = 7 at byte 256.
            d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, sets, &[256]);
            d.cmd_push_constants(
                cb,
                layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &5u32.to_le_bytes(),
            );
            d.cmd_dispatch(cb, N / 8, 1, 1);
            d.end_command_buffer(cb).unwrap();
            submit_and_wait(&gpu, &[cb]);
            for i in 0..N {
                assert_eq!(
                    dst.u32_at(4 * i as usize),
                    i * 7 + 1000 * i + 5,
                    "{model}: element {i}"
                );
            }
            assert!(
                dst.bytes()[4 * N as usize..].iter().all(|&b| b == CANARY),
                "{model}: nothing written past the range"
            );
            d.free_descriptor_sets(pool, sets).unwrap();
            d.destroy_command_pool(cmd_pool, None);
            f.destroy(d);
            for b in [&src, &dst, &ubo] {
                b.destroy(d);
            }
        }
        // The internal kernels stay compiled for the device; nothing else is left.
        let (after, _) = gpu.bo_stats();
        assert_eq!(after, before, "{model}: BOs back at the baseline");
    }
}

/// A malformed module and an unsupported stage fail cleanly.
#[test]
fn bad_shaders_are_errors() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let words = [0x0723_0203u32, 0x0001_0000, 0, 1, 0, 0xdead_beef];
    // SAFETY: valid create infos; the module content is what is tested.
    unsafe {
        let module = d
            .create_shader_module(
                &vk::ShaderModuleCreateInfo {
                    code_size: 24,
                    p_code: words.as_ptr(),
                    ..Default::default()
                },
                None,
            )
            .unwrap();
        let layout = d
            .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
            .unwrap();
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let r = d.create_compute_pipelines(
            vk::PipelineCache::null(),
            &[vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(layout)],
            None,
        );
        let (pipes, err) = r.unwrap_err();
        assert_eq!(pipes, [vk::Pipeline::null()]);
        assert!(err.as_raw() < 0, "an error code: {err:?}");
        let bad = [1u32, 2, 3];
        assert!(
            d.create_shader_module(
                &vk::ShaderModuleCreateInfo {
                    code_size: 12,
                    p_code: bad.as_ptr(),
                    ..Default::default()
                },
                None,
            )
            .is_err()
        );
        d.destroy_pipeline_layout(layout, None);
        d.destroy_shader_module(module, None);
    }
}

/// A compute shader that samples an image (`texture_lod.comp`: the
/// compiler handles it) is refused at pipeline creation with an error code:
/// no image descriptor can exist yet, so nothing could fill its texture
/// tables. Its layout lacks the image bindings (invalid usage the
/// validation layer reports, so scripts/validation.sh skips this test);
/// a layout with them cannot be made.
#[test]
fn shaders_sampling_images_are_refused() {
    // Sampling shaders (one of gathers) and storage-image ones
    // (imageStore/imageLoad, image atomics).
    const SPVS: [&[u8]; 4] = [
        include_bytes!("shaders/texture_lod.comp.spv"),
        include_bytes!("shaders/texture_gather.comp.spv"),
        include_bytes!("shaders/vk/image_float.comp.spv"),
        include_bytes!("shaders/vk/image_atomic.comp.spv"),
    ];
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let (before, _) = gpu.bo_stats();
    for spv in SPVS {
        let module = common::objects::shader_module(d, spv);
        // SAFETY: valid create infos.
        unsafe {
            let image_binding = [vk::DescriptorSetLayoutBinding::default()
                .binding(0)
                .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)];
            assert!(
                d.create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&image_binding),
                    None,
                )
                .is_err(),
                "image descriptors are not offered"
            );
            let layout = d
                .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
                .unwrap();
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            let (pipes, err) = d
                .create_compute_pipelines(
                    vk::PipelineCache::null(),
                    &[vk::ComputePipelineCreateInfo::default()
                        .stage(stage)
                        .layout(layout)],
                    None,
                )
                .unwrap_err();
            assert_eq!(pipes, [vk::Pipeline::null()]);
            assert_eq!(err, vk::Result::ERROR_UNKNOWN);
            d.destroy_pipeline_layout(layout, None);
            d.destroy_shader_module(module, None);
        }
    }
    let (after, _) = gpu.bo_stats();
    assert_eq!(after, before, "no BO left behind");
}

/// A pool with room for one set refuses the second with
/// `VK_ERROR_OUT_OF_POOL_MEMORY` (invalid usage the validation layer
/// reports, so scripts/validation.sh skips this test), and takes it after
/// the first is freed.
#[test]
fn descriptor_pool_exhaustion() {
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    // SAFETY: valid create infos.
    unsafe {
        let bindings = [vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(2)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)];
        let layout = d
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .unwrap();
        let sizes = [vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_BUFFER,
            descriptor_count: 3,
        }];
        let pool = d
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .flags(vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET)
                    .max_sets(4)
                    .pool_sizes(&sizes),
                None,
            )
            .unwrap();
        let layouts = [layout];
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&layouts);
        let first = d.allocate_descriptor_sets(&info).unwrap();
        // Two of three descriptors are taken: the next set does not fit.
        assert_eq!(
            d.allocate_descriptor_sets(&info).err(),
            Some(vk::Result::ERROR_OUT_OF_POOL_MEMORY)
        );
        d.free_descriptor_sets(pool, &first).unwrap();
        let again = d.allocate_descriptor_sets(&info).unwrap();
        assert_eq!(again.len(), 1);
        d.reset_descriptor_pool(pool, vk::DescriptorPoolResetFlags::empty())
            .unwrap();
        d.destroy_descriptor_pool(pool, None);
        d.destroy_descriptor_set_layout(layout, None);
    }
}

/// Primitive restart while capturing: strips and fans (and line strips) of
/// 16- and 32-bit indexed draws with restart values inside, at the start,
/// doubled and at the end, instanced, with overflow, direct and indirect;
/// resolved on the GPU by the restart kernel.
fn restart_on(model: &str) {
    let gpu = Gpu::with_xfb(model);
    let d = &gpu.device;
    let s = Setup::new(&gpu);
    const R16: u32 = 0xFFFF;
    const R32: u32 = u32::MAX;
    for topology in [
        vk::PrimitiveTopology::LINE_STRIP,
        vk::PrimitiveTopology::TRIANGLE_STRIP,
        vk::PrimitiveTopology::TRIANGLE_FAN,
    ] {
        let pipeline = s.pipeline_with_restart(d, topology, true);
        let draws = [
            Draw {
                count: 13,
                instances: 2,
                first: 1,
                first_instance: 1,
                indexed: Some((
                    vec![
                        9, 1, 2, 3, 4, 5, R16, 6, 7, 8, 9, R16, R16, 10, 11, 12, 13, 14, R16,
                    ],
                    2,
                    3,
                )),
            },
            Draw {
                count: 9,
                instances: 1,
                first: 0,
                first_instance: 0,
                indexed: Some((vec![R32, 20, 21, 22, 23, R32, 24, 25, 26, 27], 4, -1)),
            },
        ];
        let mut draws = draws.to_vec();
        draws.push(Draw {
            count: 11,
            instances: 2,
            first: 0,
            first_instance: 1,
            indexed: Some((vec![3, 4, 5, 0xFF, 6, 7, 8, 9, 0xFF, 0xFF, 10], 1, 2)),
        });
        for records in [[200, 200], [40, 9]] {
            // Direct, and indirect with the parameters (and, for the
            // `Count` form, the count) in GPU memory: the restart kernel
            // then reads its first index and count from the indirect
            // kernel's patches.
            for mode in [Mode::Direct, Mode::Indirect, Mode::Count(1)] {
                let label = format!("{model} {mode:?}");
                let t = Targets::new(d, records);
                let cb = record_as(&gpu, &s, &t, pipeline, &draws, false, mode);
                submit_and_wait(&gpu, &[cb]);
                check(topology, true, &t, &draws, [0, 0], &label);
                // Again, from the same command buffer: the same bytes.
                for b in &t.bufs {
                    b.bytes().fill(CANARY);
                }
                submit_and_wait(&gpu, &[cb]);
                check(topology, true, &t, &draws, [0, 0], &label);
                t.destroy(d);
            }
        }
        free_index_buffers(d);
        // SAFETY: the GPU is idle.
        unsafe { d.destroy_pipeline(pipeline, None) };
    }
    s.destroy(d);
}

#[test]
fn xfb_primitive_restart_g52() {
    restart_on("g52");
}

#[test]
fn xfb_primitive_restart_g72() {
    restart_on("g72");
}

/// Indirect draws (vkCmdDrawIndirect, vkCmdDrawIndexedIndirect and the
/// `Count` forms of VK_KHR_draw_indirect_count) capture what the spec's
/// rules give for the parameters in the buffer, for every topology, first
/// vertex and first instance (`drawIndirectFirstInstance`), indexed draws
/// of every index size, overflow, and a count of 0. The parameters are read
/// by the GPU at each submit: rewriting the buffer and submitting the same
/// command buffer again captures the new draw.
fn indirect_on(model: &str) {
    let gpu = Gpu::with_xfb(model);
    let d = &gpu.device;
    let s = Setup::new(&gpu);
    let label = |mode: Mode| format!("{model} {mode:?}");
    for topology in TOPOLOGIES {
        let pipeline = s.pipeline(d, topology);
        let mut n = 0;
        for count in [0, 1, 2, 3, 5, 8] {
            for instances in [0, 1, 3] {
                n += 1;
                let draws = [plain(count, instances, (n * 5) % 9, n % 4)];
                for mode in [Mode::Indirect, Mode::Count(1)] {
                    let t = Targets::new(d, [200, 200]);
                    let cb = record_as(&gpu, &s, &t, pipeline, &draws, false, mode);
                    submit_and_wait(&gpu, &[cb]);
                    check(topology, false, &t, &draws, [0, 0], &label(mode));
                    t.destroy(d);
                }
            }
        }
        // A count of 0 in the count buffer: nothing is captured.
        let t = Targets::new(d, [200, 200]);
        let cb = record_as(
            &gpu,
            &s,
            &t,
            pipeline,
            &[plain(6, 2, 0, 0)],
            false,
            Mode::Count(0),
        );
        submit_and_wait(&gpu, &[cb]);
        check(topology, false, &t, &[], [0, 0], &label(Mode::Count(0)));
        t.destroy(d);
        // Overflow across two draws, and indexed draws (8/16/32-bit,
        // vertexOffset both signs, instanced).
        let ix16: Vec<u32> = vec![9, 3, 200, 4, 4, 60_000, 7, 1, 0, 12];
        let ix32: Vec<u32> = vec![65_536, 3, 69_000, 5, 2, 66_000, 8, 1];
        let ix8: Vec<u32> = vec![7, 250, 3, 0, 9, 200, 1, 2];
        let indexed = [
            Draw {
                count: 9,
                instances: 2,
                first: 1,
                first_instance: 1,
                indexed: Some((ix16, 2, 5)),
            },
            Draw {
                count: 7,
                instances: 3,
                first: 0,
                first_instance: 2,
                indexed: Some((ix32, 4, -2)),
            },
            Draw {
                count: 7,
                instances: 2,
                first: 1,
                first_instance: 0,
                indexed: Some((ix8, 1, 11)),
            },
        ];
        let overflow = [plain(8, 2, 1, 0), plain(7, 1, 30, 4)];
        for mode in [Mode::Indirect, Mode::Count(1)] {
            for (draws, records) in [(&overflow[..], [40, 11]), (&indexed[..], [200, 200])] {
                let t = Targets::new(d, records);
                let cb = record_as(&gpu, &s, &t, pipeline, draws, false, mode);
                submit_and_wait(&gpu, &[cb]);
                check(topology, false, &t, draws, [0, 0], &label(mode));
                t.destroy(d);
            }
        }
        free_index_buffers(d);
        // Resubmission reads the buffer again.
        let t = Targets::new(d, [200, 200]);
        let cb = record_as(
            &gpu,
            &s,
            &t,
            pipeline,
            &[plain(5, 2, 1, 1)],
            false,
            Mode::Indirect,
        );
        submit_and_wait(&gpu, &[cb]);
        check(topology, false, &t, &[plain(5, 2, 1, 1)], [0, 0], model);
        INDIRECT_BUFFERS.with(|v| v.borrow().last().unwrap().write(12, &[7u32, 1, 3, 2]));
        for b in &t.bufs {
            b.bytes().fill(CANARY);
        }
        submit_and_wait(&gpu, &[cb]);
        check(topology, false, &t, &[plain(7, 1, 3, 2)], [0, 0], model);
        t.destroy(d);
        free_index_buffers(d);
        // SAFETY: the GPU is idle.
        unsafe { d.destroy_pipeline(pipeline, None) };
    }
    s.destroy(d);
}

#[test]
fn xfb_indirect_draws_g52() {
    indirect_on("g52");
}

#[test]
fn xfb_indirect_draws_g72() {
    indirect_on("g72");
}

/// vkCmdDrawIndirectByteCountEXT: a first pass captures into buffers whose
/// counter then drives a second draw, `vertexCount = (counter −
/// counterOffset) / vertexStride` (Vulkan spec,
/// vkCmdDrawIndirectByteCountEXT), with instances and a first instance.
fn byte_count_on(model: &str) {
    let gpu = Gpu::with_xfb(model);
    let d = &gpu.device;
    let s = Setup::new(&gpu);
    for topology in [
        vk::PrimitiveTopology::TRIANGLE_LIST,
        vk::PrimitiveTopology::TRIANGLE_STRIP,
        vk::PrimitiveTopology::POINT_LIST,
    ] {
        let pipeline = s.pipeline(d, topology);
        let first = [plain(8, 1, 0, 0)];
        let t1 = Targets::new(d, [200, 200]);
        let cb1 = record(&gpu, &s, &t1, pipeline, &first, false);
        submit_and_wait(&gpu, &[cb1]);
        check(topology, false, &t1, &first, [0, 0], model);
        let counter = t1.counters.u32_at(0);
        let stride = STRIDE[0] as u32;
        // counterOffset is a multiple of 4
        // (VUID-vkCmdDrawIndirectByteCountEXT-counterOffset-09474).
        for (counter_offset, vertex_stride) in
            [(0, stride), (stride + 4, stride), (0, 7), (counter + 8, 16)]
        {
            let n = counter.saturating_sub(counter_offset) / vertex_stride;
            let draws = [plain(n, 2, 0, 1)];
            let t2 = Targets::new(d, [200, 200]);
            let mode = Mode::ByteCount(t1.counters.buffer, 0, counter_offset, vertex_stride);
            let cb2 = record_as(&gpu, &s, &t2, pipeline, &draws, false, mode);
            submit_and_wait(&gpu, &[cb2]);
            check(
                topology,
                false,
                &t2,
                &draws,
                [0, 0],
                &format!("{model} {mode:?}"),
            );
            t2.destroy(d);
        }
        t1.destroy(d);
        // SAFETY: the GPU is idle.
        unsafe { d.destroy_pipeline(pipeline, None) };
    }
    s.destroy(d);
}

#[test]
fn xfb_byte_count_draws_g52() {
    byte_count_on("g52");
}

#[test]
fn xfb_byte_count_draws_g72() {
    byte_count_on("g72");
}

/// vkCmdDispatchIndirect: the workgroup counts come from the buffer when
/// the GPU runs (one recording, submitted with different counts), reach
/// the shader as gl_NumWorkGroups, and a count of 0 runs nothing.
#[test]
fn dispatch_indirect() {
    const SPV: &[u8] = include_bytes!("shaders/vk/groups.comp.spv");
    for model in ["g52", "g72"] {
        dispatch_indirect_on(model, SPV, |_, i| i + 1, false);
    }
}

/// vkCmdDispatchIndirect of a shader with workgroup memory: the memory is
/// sized for the grid when the command runs (`vk::cmd::indirect`), each
/// workgroup sees only its own shared words (a neighbour's marker after a
/// barrier), and counts written on the GPU earlier in the same command
/// buffer (vkCmdUpdateBuffer, then a barrier) are the ones used. Too few
/// workgroup-memory instances fault on the simulator (`sim_wls.rs`).
#[test]
fn dispatch_indirect_with_workgroup_memory() {
    const SPV: &[u8] = include_bytes!("shaders/vk/groups_shared.comp.spv");
    for model in ["g52", "g72"] {
        let marker = |group: u32, i: u32| group * 16 + (i % 8 + 1) % 8 + 1;
        dispatch_indirect_on(model, SPV, marker, false);
        dispatch_indirect_on(model, SPV, marker, true);
    }
}

/// One recording of vkCmdDispatchIndirect over `spv` (local size 4×2,
/// writing `value(workgroup, invocation)` and the packed counts for each
/// invocation), submitted once per grid; with `gpu_args` the recording
/// writes the counts itself first (vkCmdUpdateBuffer), from a buffer the
/// test fills between submits.
fn dispatch_indirect_on(model: &str, spv: &[u8], value: impl Fn(u32, u32) -> u32, gpu_args: bool) {
    const WORDS: usize = 2 * 8 * 64;
    let gpu = Gpu::with_xfb(model);
    let d = &gpu.device;
    // SAFETY: valid handles and create infos throughout.
    unsafe {
        let compute = vk::ShaderStageFlags::COMPUTE;
        let ssbo = vk::DescriptorType::STORAGE_BUFFER;
        let module = objects::shader_module(d, spv);
        let set_layout = objects::set_layout(d, &[(0, ssbo)], compute);
        let layout = objects::pipeline_layout(d, &[set_layout], 0, compute);
        let pipeline = objects::compute_pipeline(d, module, layout, "dispatch_indirect");
        let out = Buf::new(d, 4 * WORDS as u64, vk::BufferUsageFlags::STORAGE_BUFFER);
        let args = Buf::new(
            d,
            64,
            vk::BufferUsageFlags::INDIRECT_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
        );
        let (pool, set) =
            objects::buffer_set(d, set_layout, &[(0, ssbo, out.buffer, 0, vk::WHOLE_SIZE)]);
        let cmd_pool = gpu.command_pool();
        let grids = [[1u32, 1, 1], [3, 2, 2], [0, 4, 4], [5, 1, 3], [2, 0, 1]];
        // With `gpu_args`: one recording per grid, each updating the
        // counts on the GPU from a stale host value.
        let record = |groups: Option<[u32; 3]>| {
            let cb = gpu.command_buffer(cmd_pool);
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            if let Some(g) = groups {
                let bytes: Vec<u8> = g.iter().flat_map(|v| v.to_le_bytes()).collect();
                d.cmd_update_buffer(cb, args.buffer, 4, &bytes);
                let barrier = vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .dst_access_mask(vk::AccessFlags::INDIRECT_COMMAND_READ);
                d.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::DRAW_INDIRECT,
                    vk::DependencyFlags::empty(),
                    &[barrier],
                    &[],
                    &[],
                );
            }
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
            d.cmd_dispatch_indirect(cb, args.buffer, 4);
            d.end_command_buffer(cb).unwrap();
            cb
        };
        let shared_cb = (!gpu_args).then(|| record(None));
        for groups in grids {
            args.bytes().fill(0x55);
            let cb = match shared_cb {
                Some(cb) => {
                    args.write(4, &groups);
                    cb
                }
                None => {
                    args.write(4, &[7u32, 7, 7]);
                    record(Some(groups))
                }
            };
            out.bytes().fill(CANARY);
            let cbs = [cb];
            let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
            d.queue_submit(gpu.queue, &submit, vk::Fence::null())
                .unwrap();
            d.queue_wait_idle(gpu.queue).unwrap();
            let got: Vec<u32> = (0..WORDS).map(|w| out.u32_at(4 * w)).collect();
            let n = 8 * groups[0] * groups[1] * groups[2];
            let packed = groups[0] | groups[1] << 8 | groups[2] << 16;
            let canary = u32::from_le_bytes([CANARY; 4]);
            for i in 0..WORDS as u32 / 2 {
                let want = if i < n {
                    [value(i / 8, i), packed]
                } else {
                    [canary, canary]
                };
                let at = 2 * i as usize;
                assert_eq!(
                    [got[at], got[at + 1]],
                    want,
                    "{model} groups {groups:?} invocation {i} (counts from the GPU: {gpu_args})"
                );
            }
        }
        out.destroy(d);
        args.destroy(d);
        d.destroy_command_pool(cmd_pool, None);
        d.destroy_descriptor_pool(pool, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_pipeline_layout(layout, None);
        d.destroy_descriptor_set_layout(set_layout, None);
        d.destroy_shader_module(module, None);
    }
}

/// VK_EXT_provoking_vertex: a pipeline in LAST mode captures every
/// primitive with its provoking vertex last (`transformFeedbackPreserves
/// ProvokingVertex`, fans included: `transformFeedbackPreservesTriangleFan
/// ProvokingVertex`), for plain, instanced, indexed, restarted and indirect
/// draws; FIRST mode given explicitly is the default order.
fn provoking_on(model: &str) {
    let gpu = Gpu::with_xfb(model);
    let d = &gpu.device;
    let s = Setup::new(&gpu);
    let ix16: Vec<u32> = vec![9, 3, 0xFFFF, 4, 4, 60, 7, 1, 0, 12, 5];
    for topology in TOPOLOGIES {
        for (mode, last) in [
            (vk::ProvokingVertexModeEXT::LAST_VERTEX, true),
            (vk::ProvokingVertexModeEXT::FIRST_VERTEX, false),
        ] {
            let what = format!("{model} {mode:?}");
            let pipeline = s.pipeline_with(d, topology, false, Some(mode));
            let draws: Vec<Draw> = (0..=7).map(|n| plain(n, 2, n % 3, 1)).collect();
            for how in [Mode::Direct, Mode::Indirect] {
                let t = Targets::new(d, [400, 400]);
                let cb = record_as(&gpu, &s, &t, pipeline, &draws, false, how);
                submit_and_wait(&gpu, &[cb]);
                check_order(topology, false, last, &t, &draws, [0, 0], &what);
                t.destroy(d);
            }
            // SAFETY: the GPU is idle.
            unsafe { d.destroy_pipeline(pipeline, None) };
            // Restart (strips and fans are where the order differs; list
            // topologies cannot enable it, VUID-...-topology-00428).
            let draws = [Draw {
                count: 11,
                instances: 2,
                first: 0,
                first_instance: 0,
                indexed: Some((ix16.clone(), 2, 1)),
            }];
            let restart = matches!(
                topology,
                vk::PrimitiveTopology::LINE_STRIP
                    | vk::PrimitiveTopology::TRIANGLE_STRIP
                    | vk::PrimitiveTopology::TRIANGLE_FAN
            );
            if restart {
                let pipeline = s.pipeline_with(d, topology, true, Some(mode));
                let t = Targets::new(d, [200, 200]);
                let cb = record(&gpu, &s, &t, pipeline, &draws, false);
                submit_and_wait(&gpu, &[cb]);
                check_order(topology, true, last, &t, &draws, [0, 0], &what);
                t.destroy(d);
                free_index_buffers(d);
                // SAFETY: the GPU is idle.
                unsafe { d.destroy_pipeline(pipeline, None) };
            }
        }
    }
    s.destroy(d);
}

#[test]
fn xfb_provoking_vertex_g52() {
    provoking_on("g52");
}

#[test]
fn xfb_provoking_vertex_g72() {
    provoking_on("g72");
}

/// Records `draws` (plain draws) as one vkCmdDrawIndirect with `stride`,
/// or, with `count = Some((n, max))`, one vkCmdDrawIndirectCountKHR whose
/// count buffer holds `n` and whose maxDrawCount is `max` (records past
/// `draws` hold garbage that must never be drawn).
fn record_multi(
    gpu: &Gpu,
    s: &Setup,
    t: &Targets,
    pipeline: vk::Pipeline,
    draws: &[Draw],
    stride: u32,
    count: Option<(u32, u32)>,
) -> (vk::CommandBuffer, Buf) {
    let d = &gpu.device;
    let count_ext = ash::khr::draw_indirect_count::Device::new(&gpu.instance, d);
    let slots = draws.len() as u64 + 2;
    let args = Buf::new(
        d,
        16 + slots * u64::from(stride),
        vk::BufferUsageFlags::INDIRECT_BUFFER,
    );
    args.bytes().fill(0x3F);
    for (i, draw) in draws.iter().enumerate() {
        args.write(
            16 + i * stride as usize,
            &[draw.count, draw.instances, draw.first, draw.first_instance],
        );
    }
    let cb = begin_capture(gpu, s, t, pipeline, false);
    // SAFETY: valid handles throughout.
    unsafe {
        match count {
            None => d.cmd_draw_indirect(cb, args.buffer, 16, draws.len() as u32, stride),
            Some((n, max)) => {
                args.write(0, &[n]);
                count_ext.cmd_draw_indirect_count(cb, args.buffer, 16, args.buffer, 0, max, stride);
            }
        }
    }
    end_capture(gpu, t, cb);
    (cb, args)
}

/// `multiDrawIndirect`: many draws per indirect command, with strides,
/// count buffers below and at maxDrawCount, and 22,000 draws in one command
/// (more jobs than one job chain holds: the command buffer continues in a
/// new segment, in order).
#[test]
fn xfb_multi_draw_indirect() {
    for model in ["g52", "g72"] {
        let gpu = Gpu::with_xfb(model);
        let d = &gpu.device;
        let s = Setup::new(&gpu);
        for topology in [
            vk::PrimitiveTopology::TRIANGLE_STRIP,
            vk::PrimitiveTopology::LINE_LIST,
        ] {
            let pipeline = s.pipeline(d, topology);
            let draws: Vec<Draw> = (0..7)
                .map(|i| plain(i + 2, 1 + i % 2, i * 3, i % 3))
                .collect();
            for (stride, count) in [
                (16, None),
                (28, None),
                (20, Some((7, 9))),
                (20, Some((4, 7))),
                (24, Some((9, 5))),
            ] {
                let t = Targets::new(d, [300, 300]);
                let (cb, args) = record_multi(&gpu, &s, &t, pipeline, &draws, stride, count);
                submit_and_wait(&gpu, &[cb]);
                let n = count.map_or(draws.len(), |(n, max)| n.min(max) as usize);
                check(
                    topology,
                    false,
                    &t,
                    &draws[..n],
                    [0, 0],
                    &format!("{model} stride {stride} count {count:?}"),
                );
                t.destroy(d);
                args.destroy(d);
            }
            // SAFETY: the GPU is idle.
            unsafe { d.destroy_pipeline(pipeline, None) };
        }
        s.destroy(d);
        if model == "g72" {
            break;
        }
    }
    // One command of 22,000 single-point draws: three jobs each.
    let gpu = Gpu::with_xfb("g52");
    let d = &gpu.device;
    let s = Setup::new(&gpu);
    let topology = vk::PrimitiveTopology::POINT_LIST;
    let pipeline = s.pipeline(d, topology);
    let draws: Vec<Draw> = (0..22_000).map(|i| plain(1, 1, i % 50, i % 3)).collect();
    let t = Targets::new(d, [22_000, 22_000]);
    let (cb, args) = record_multi(&gpu, &s, &t, pipeline, &draws, 16, None);
    submit_and_wait(&gpu, &[cb]);
    check(topology, false, &t, &draws, [0, 0], "22,000 draws");
    t.destroy(d);
    args.destroy(d);
    // SAFETY: the GPU is idle.
    unsafe { d.destroy_pipeline(pipeline, None) };
    s.destroy(d);
}
