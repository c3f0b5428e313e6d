//! `VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT` through the Khronos loader,
//! on the simulated G52 and G72: vkCmdBeginQuery/EndQuery and the indexed
//! EXT variants around transform-feedback draws, vkGetQueryPoolResults
//! (32/64-bit, WAIT, WITH_AVAILABILITY, PARTIAL, NOT_READY),
//! vkCmdCopyQueryPoolResults, vkCmdResetQueryPool, resubmission, and a
//! Begin of a stream that does not exist.
//!
//! Expected counts come from the spec's rules as written here (Vulkan spec,
//! "Transform Feedback Queries": per query, the primitives written to the
//! transform feedback buffers and the primitives that would have been
//! written with unlimited room, counted by draws while transform feedback
//! is active; "Transform Feedback Capture": whole primitives only, a
//! primitive is written only when it fits every bound buffer of the
//! pipeline), never from the driver's output.

mod common;
#[path = "support/xfb_device.rs"]
mod xfb_device;

use ash::vk;
use common::*;
use xfb_device::*;

/// One draw: vertex count, instances, first vertex (first index when
/// indexed), first instance, whether transform feedback is active for it,
/// and whether it is vkCmdDrawIndexed (through [`INDICES`] u32 indices,
/// vertexOffset 2; its count is the index count, so the same rule).
#[derive(Clone, Copy, Debug)]
struct Draw {
    count: u32,
    instances: u32,
    first: u32,
    first_instance: u32,
    xfb: bool,
    indexed: bool,
}

/// u32 indices in the indexed draws' index buffer.
const INDICES: u32 = 64;

const fn indexed(count: u32, instances: u32, first: u32, first_instance: u32) -> Draw {
    Draw {
        indexed: true,
        ..draw(count, instances, first, first_instance)
    }
}

const fn draw(count: u32, instances: u32, first: u32, first_instance: u32) -> Draw {
    Draw {
        count,
        instances,
        first,
        first_instance,
        xfb: true,
        indexed: false,
    }
}

const fn outside(count: u32, instances: u32) -> Draw {
    Draw {
        count,
        instances,
        first: 0,
        first_instance: 0,
        xfb: false,
        indexed: false,
    }
}

/// The spec's counts for `draws` (in order, the buffers' offsets starting
/// at 0 when transform feedback begins) with room for `records[b]` records
/// in buffer `b`; one (written, needed) pair per group of draws (a query
/// each).
fn model(
    topology: vk::PrimitiveTopology,
    records: [u64; 2],
    groups: &[&[Draw]],
) -> Vec<(u64, u64)> {
    let vpp = primitives(topology, 3).first().map_or(1, Vec::len) as u64;
    let mut used = [0u64; 2];
    let mut out = Vec::new();
    for g in groups {
        let (mut written, mut needed) = (0, 0);
        for d in g.iter().filter(|d| d.xfb) {
            let n = primitives(topology, d.count).len() as u64 * u64::from(d.instances);
            let room = (0..2).map(|b| (records[b] - used[b]) / vpp).min().unwrap();
            let w = n.min(room);
            for u in &mut used {
                *u += w * vpp;
            }
            written += w;
            needed += n;
        }
        out.push((written, needed));
    }
    out
}

/// Two XFB buffers with room for `records` records each, bound at 0.
struct Targets {
    bufs: [Buf; 2],
    records: [u64; 2],
}

impl Targets {
    fn new(d: &ash::Device, records: [u64; 2]) -> Targets {
        let usage = vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT;
        Targets {
            bufs: [
                Buf::new(d, records[0] * STRIDE[0] + 64, usage),
                Buf::new(d, records[1] * STRIDE[1] + 64, usage),
            ],
            records,
        }
    }

    fn destroy(&self, d: &ash::Device) {
        for b in &self.bufs {
            b.destroy(d);
        }
    }
}

/// How a group's query is begun and ended.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Api {
    Core,
    Indexed(u32),
}

struct Ext {
    xfb: ash::ext::transform_feedback::Device,
}

impl Ext {
    fn new(gpu: &Gpu) -> Ext {
        Ext {
            xfb: ash::ext::transform_feedback::Device::new(&gpu.instance, &gpu.device),
        }
    }

    fn begin(&self, d: &ash::Device, cb: vk::CommandBuffer, pool: vk::QueryPool, q: u32, api: Api) {
        // SAFETY: valid handles.
        unsafe {
            match api {
                Api::Core => d.cmd_begin_query(cb, pool, q, vk::QueryControlFlags::empty()),
                Api::Indexed(i) => (self.xfb.fp().cmd_begin_query_indexed_ext)(
                    cb,
                    pool,
                    q,
                    vk::QueryControlFlags::empty(),
                    i,
                ),
            }
        }
    }

    fn end(&self, d: &ash::Device, cb: vk::CommandBuffer, pool: vk::QueryPool, q: u32, api: Api) {
        // SAFETY: valid handles.
        unsafe {
            match api {
                Api::Core => d.cmd_end_query(cb, pool, q),
                Api::Indexed(i) => (self.xfb.fp().cmd_end_query_indexed_ext)(cb, pool, q, i),
            }
        }
    }
}

fn create_pool(d: &ash::Device, count: u32) -> vk::QueryPool {
    create_pool_of(d, vk::QueryType::TRANSFORM_FEEDBACK_STREAM_EXT, count)
}

fn create_pool_of(d: &ash::Device, ty: vk::QueryType, count: u32) -> vk::QueryPool {
    // SAFETY: valid create info.
    unsafe {
        d.create_query_pool(
            &vk::QueryPoolCreateInfo::default()
                .query_type(ty)
                .query_count(count),
            None,
        )
    }
    .unwrap()
}

/// Primitives generated per group: every draw's primitives × instances
/// (VK_EXT_primitives_generated_query counts what the draws generate,
/// transform feedback or not, room or not).
fn generated_model(topology: vk::PrimitiveTopology, groups: &[&[Draw]]) -> Vec<u64> {
    groups
        .iter()
        .map(|g| {
            g.iter()
                .map(|d| primitives(topology, d.count).len() as u64 * u64::from(d.instances))
                .sum()
        })
        .collect()
}

/// Primitives-generated queries of `want` available with those counts.
fn check_generated(d: &ash::Device, pool: vk::QueryPool, want: &[u64], what: &str) {
    let n = want.len() as u32;
    let (r, data) = results(
        d,
        pool,
        0,
        n,
        16,
        vk::QueryResultFlags::TYPE_64
            | vk::QueryResultFlags::WAIT
            | vk::QueryResultFlags::WITH_AVAILABILITY,
    );
    assert_eq!(r, vk::Result::SUCCESS, "{what}");
    let expect: Vec<u64> = want.iter().flat_map(|&g| [g, 1]).collect();
    assert_eq!(u64s(&data), expect, "{what}: primitives generated (64-bit)");
    let (r, data) = results(d, pool, 0, n, 4, vk::QueryResultFlags::empty());
    assert_eq!(r, vk::Result::SUCCESS, "{what}");
    let expect: Vec<u32> = want.iter().map(|&g| g as u32).collect();
    assert_eq!(u32s(&data), expect, "{what}: primitives generated (32-bit)");
}

/// Records: reset of queries `0..groups.len()` (when `reset`), then in a
/// render pass one query per group (query `i` for group `i`, begun and
/// ended with `api`), transform feedback begun before the first draw that
/// has `xfb` and ended after the last one of it (draws without it come
/// before or after), all in one transform-feedback session. Indexed draws
/// read `index_buffer`.
#[allow(clippy::too_many_arguments)]
fn record(
    gpu: &Gpu,
    ext: &Ext,
    s: &Setup,
    t: &Targets,
    pipeline: vk::Pipeline,
    pool: vk::QueryPool,
    groups: &[&[Draw]],
    api: Api,
    reset: bool,
    index_buffer: Option<&Buf>,
    generated: Option<vk::QueryPool>,
) -> vk::CommandBuffer {
    let d = &gpu.device;
    let cb = gpu.command_buffer(s.cmd_pool);
    let fp = ext.xfb.fp();
    // SAFETY: valid handles throughout.
    unsafe {
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        if reset {
            d.cmd_reset_query_pool(cb, pool, 0, groups.len() as u32);
            if let Some(g) = generated {
                d.cmd_reset_query_pool(cb, g, 0, groups.len() as u32);
            }
        }
        d.cmd_begin_render_pass(
            cb,
            &vk::RenderPassBeginInfo::default()
                .render_pass(s.render_pass)
                .framebuffer(s.framebuffer),
            vk::SubpassContents::INLINE,
        );
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
        s.bind(d, cb, pipeline);
        if let Some(ib) = index_buffer {
            d.cmd_bind_index_buffer(cb, ib.buffer, 0, vk::IndexType::UINT32);
        }
        let bufs = [t.bufs[0].buffer, t.bufs[1].buffer];
        let offsets = [0u64, 0];
        let sizes = [t.records[0] * STRIDE[0], t.records[1] * STRIDE[1]];
        (fp.cmd_bind_transform_feedback_buffers_ext)(
            cb,
            0,
            2,
            bufs.as_ptr(),
            offsets.as_ptr(),
            sizes.as_ptr(),
        );
        let mut xfb_on = false;
        let mut xfb_done = false;
        for (q, g) in groups.iter().enumerate() {
            ext.begin(d, cb, pool, q as u32, api);
            if let Some(g) = generated {
                ext.begin(d, cb, g, q as u32, api);
            }
            for dr in g.iter() {
                if dr.xfb && !xfb_on {
                    assert!(!xfb_done, "one transform feedback session per case");
                    (fp.cmd_begin_transform_feedback_ext)(
                        cb,
                        0,
                        0,
                        std::ptr::null(),
                        std::ptr::null(),
                    );
                    xfb_on = true;
                }
                if !dr.xfb && xfb_on {
                    (fp.cmd_end_transform_feedback_ext)(
                        cb,
                        0,
                        0,
                        std::ptr::null(),
                        std::ptr::null(),
                    );
                    xfb_on = false;
                    xfb_done = true;
                }
                if dr.indexed {
                    assert!(index_buffer.is_some() && dr.first + dr.count <= INDICES);
                    d.cmd_draw_indexed(cb, dr.count, dr.instances, dr.first, 2, dr.first_instance);
                } else {
                    d.cmd_draw(cb, dr.count, dr.instances, dr.first, dr.first_instance);
                }
            }
            if let Some(g) = generated {
                ext.end(d, cb, g, q as u32, api);
            }
            ext.end(d, cb, pool, q as u32, api);
        }
        if xfb_on {
            (fp.cmd_end_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
        }
        d.cmd_end_render_pass(cb);
        d.end_command_buffer(cb).unwrap();
    }
    cb
}

/// vkGetQueryPoolResults into a buffer pre-filled with 0xAB bytes.
fn results(
    d: &ash::Device,
    pool: vk::QueryPool,
    first: u32,
    count: u32,
    stride: usize,
    flags: vk::QueryResultFlags,
) -> (vk::Result, Vec<u8>) {
    let mut data = vec![0xABu8; stride * count as usize];
    // SAFETY: `data` holds `count` strides.
    let r = unsafe {
        (d.fp_v1_0().get_query_pool_results)(
            d.handle(),
            pool,
            first,
            count,
            data.len(),
            data.as_mut_ptr().cast(),
            stride as u64,
            flags,
        )
    };
    (r, data)
}

fn u64s(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Every query of `want` available with exactly those counts, read back
/// as 64-bit and 32-bit results with availability.
fn check(d: &ash::Device, pool: vk::QueryPool, want: &[(u64, u64)], what: &str) {
    let n = want.len() as u32;
    let (r, data) = results(
        d,
        pool,
        0,
        n,
        24,
        vk::QueryResultFlags::TYPE_64
            | vk::QueryResultFlags::WAIT
            | vk::QueryResultFlags::WITH_AVAILABILITY,
    );
    assert_eq!(r, vk::Result::SUCCESS, "{what}");
    let got = u64s(&data);
    let expect: Vec<u64> = want.iter().flat_map(|&(w, n)| [w, n, 1]).collect();
    assert_eq!(got, expect, "{what}: 64-bit (written, needed, available)");
    // 32-bit, stride 16: three words per query and 4 untouched bytes.
    let (r, data) = results(d, pool, 0, n, 16, vk::QueryResultFlags::WITH_AVAILABILITY);
    assert_eq!(r, vk::Result::SUCCESS, "{what}");
    let got = u32s(&data);
    let expect: Vec<u32> = want
        .iter()
        .flat_map(|&(w, n)| [w as u32, n as u32, 1, 0xABAB_ABAB])
        .collect();
    assert_eq!(got, expect, "{what}: 32-bit");
}

/// Every topology: counts over several draws and instances, with roomy
/// buffers and with buffers that overflow (buffer 1 first, then buffer 0),
/// draws outside transform feedback inside the query, two queries over one
/// session, core and indexed Begin/End.
///
/// With `generated`, a `VK_QUERY_TYPE_PRIMITIVES_GENERATED_EXT` query runs
/// alongside each stream query (VK_EXT_primitives_generated_query: every
/// primitive the draws generate while it is active, whether transform
/// feedback is active or the buffers have room), read back as 64/32-bit
/// results and copied on the GPU.
fn counts_on(model_name: &str, generated: bool) {
    let gpu = if generated {
        Gpu::with_xfb_and_generated(model_name)
    } else {
        Gpu::with_xfb(model_name)
    };
    let d = &gpu.device;
    let s = Setup::new(&gpu);
    let ext = Ext::new(&gpu);
    let pool = create_pool(d, 4);
    let pg_pool = generated.then(|| create_pool_of(d, vk::QueryType::PRIMITIVES_GENERATED_EXT, 4));
    let dst = Buf::new(d, 64, vk::BufferUsageFlags::TRANSFER_DST);
    if let Some(g) = pg_pool {
        // Reset on the GPU, never begun: NOT_READY; without PARTIAL the
        // results stay untouched, with it they are the zeroed values.
        let reset = gpu.command_buffer(s.cmd_pool);
        // SAFETY: valid handles.
        unsafe {
            d.begin_command_buffer(reset, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_reset_query_pool(reset, g, 0, 4);
            d.end_command_buffer(reset).unwrap();
        }
        submit_and_wait(&gpu, &[reset]);
        let flags = vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY;
        let (r, data) = results(d, g, 0, 4, 16, flags);
        assert_eq!(r, vk::Result::NOT_READY);
        let ab = 0xABAB_ABAB_ABAB_ABABu64;
        assert_eq!(u64s(&data), [ab, 0, ab, 0, ab, 0, ab, 0]);
        let (r, data) = results(d, g, 0, 4, 16, flags | vk::QueryResultFlags::PARTIAL);
        assert_eq!(r, vk::Result::NOT_READY);
        assert_eq!(u64s(&data), [0; 8]);
    }
    let ib = Buf::new(
        d,
        4 * u64::from(INDICES),
        vk::BufferUsageFlags::INDEX_BUFFER,
    );
    let ix: Vec<u32> = (0..INDICES).map(|i| (i * 37 + 5) % 997).collect();
    ib.write(0, &ix);
    for (ti, topology) in TOPOLOGIES.into_iter().enumerate() {
        let pipeline = s.pipeline(d, topology);
        let a: &[Draw] = &[
            outside(9, 2),
            draw(8, 2, 1, 0),
            draw(7, 3, 30, 4),
            draw(0, 2, 0, 0),
            draw(5, 0, 0, 0),
        ];
        let b: &[Draw] = &[
            draw(11, 1, 100, 2),
            indexed(10, 2, 5, 1),
            draw(4, 4, 7, 9),
            indexed(6, 1, 40, 0),
            outside(6, 3),
        ];
        let api = if ti % 2 == 0 {
            Api::Core
        } else {
            Api::Indexed(0)
        };
        for records in [[500, 500], [60, 19], [7, 40], [1, 100]] {
            let t = Targets::new(d, records);
            let groups = [a, b];
            let cb = record(
                &gpu,
                &ext,
                &s,
                &t,
                pipeline,
                pool,
                &groups,
                api,
                true,
                Some(&ib),
                pg_pool,
            );
            submit_and_wait(&gpu, &[cb]);
            let want = model(topology, records, &groups);
            let what = format!("{model_name} {topology:?} records {records:?}");
            check(d, pool, &want, &what);
            let want_pg = generated_model(topology, &groups);
            if let Some(g) = pg_pool {
                check_generated(d, g, &want_pg, &what);
            }
            // Submitted again: Begin zeroes the counts, the same results
            // (the buffers' offsets start at 0 again too).
            submit_and_wait(&gpu, &[cb]);
            check(d, pool, &want, &format!("{what}, resubmitted"));
            if let Some(g) = pg_pool {
                check_generated(d, g, &want_pg, &format!("{what}, resubmitted"));
                // A GPU copy: 64-bit with availability (stride 16), then
                // 32-bit without it at 40 (stride 4).
                dst.bytes().fill(0xCD);
                let copy = gpu.command_buffer(s.cmd_pool);
                // SAFETY: valid handles.
                unsafe {
                    d.begin_command_buffer(copy, &vk::CommandBufferBeginInfo::default())
                        .unwrap();
                    d.cmd_copy_query_pool_results(
                        copy,
                        g,
                        0,
                        2,
                        dst.buffer,
                        0,
                        16,
                        vk::QueryResultFlags::TYPE_64
                            | vk::QueryResultFlags::WAIT
                            | vk::QueryResultFlags::WITH_AVAILABILITY,
                    );
                    d.cmd_copy_query_pool_results(
                        copy,
                        g,
                        0,
                        2,
                        dst.buffer,
                        40,
                        4,
                        vk::QueryResultFlags::WAIT,
                    );
                    d.end_command_buffer(copy).unwrap();
                }
                submit_and_wait(&gpu, &[copy]);
                let bytes = dst.bytes().to_vec();
                assert_eq!(
                    u64s(&bytes[0..32]),
                    [want_pg[0], 1, want_pg[1], 1],
                    "{what}: copied generated counts"
                );
                assert_eq!(u64s(&bytes[32..40]), [0xCDCD_CDCD_CDCD_CDCD]);
                assert_eq!(
                    u32s(&bytes[40..48]),
                    [want_pg[0] as u32, want_pg[1] as u32],
                    "{what}: copied 32-bit"
                );
                assert!(bytes[48..].iter().all(|&x| x == 0xCD), "{what}");
            }
            t.destroy(d);
        }
        // SAFETY: the GPU is idle.
        unsafe { d.destroy_pipeline(pipeline, None) };
    }
    // The overflow model is not trivial in these cases.
    let o = model(
        vk::PrimitiveTopology::TRIANGLE_LIST,
        [60, 19],
        &[
            &[draw(8, 2, 1, 0), draw(7, 3, 30, 4)],
            &[draw(11, 1, 100, 2)],
        ],
    );
    assert_eq!(o, vec![(6, 10), (0, 3)]);
    // SAFETY: the GPU is idle.
    unsafe {
        d.destroy_query_pool(pool, None);
        if let Some(g) = pg_pool {
            d.destroy_query_pool(g, None);
        }
    };
    dst.destroy(d);
    ib.destroy(d);
    s.destroy(d);
}

#[test]
fn xfb_query_counts_g52() {
    counts_on("g52", false);
}

#[test]
fn xfb_query_counts_g72() {
    counts_on("g72", false);
}

#[test]
fn primitives_generated_counts_g52() {
    counts_on("g52", true);
}

#[test]
fn primitives_generated_counts_g72() {
    counts_on("g72", true);
}

/// Availability, PARTIAL and NOT_READY before a submit, GPU copies, reset
/// and re-use, and a Begin of stream 1 refused.
fn results_on(model_name: &str) {
    let gpu = Gpu::with_xfb(model_name);
    let d = &gpu.device;
    let s = Setup::new(&gpu);
    let ext = Ext::new(&gpu);
    let pool = create_pool(d, 3);
    let topology = vk::PrimitiveTopology::LINE_STRIP;
    let pipeline = s.pipeline(d, topology);
    let records = [40, 13];
    let t = Targets::new(d, records);
    let a: &[Draw] = &[draw(6, 2, 3, 1), draw(9, 1, 0, 0)];
    let b: &[Draw] = &[draw(5, 3, 50, 5)];
    let c: &[Draw] = &[outside(7, 1)];
    let groups = [a, b, c];
    let want = model(topology, records, &groups);
    assert_eq!(want, vec![(6, 18), (0, 12), (0, 0)]);

    // Reset on the GPU, nothing else: unavailable, zero results.
    let reset_cb = gpu.command_buffer(s.cmd_pool);
    // SAFETY: valid handles.
    unsafe {
        d.begin_command_buffer(reset_cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_reset_query_pool(reset_cb, pool, 0, 3);
        d.end_command_buffer(reset_cb).unwrap();
    }
    submit_and_wait(&gpu, &[reset_cb]);
    let check_unavailable = |what: &str| {
        // No PARTIAL: NOT_READY, results untouched, availability 0.
        let (r, data) = results(
            d,
            pool,
            0,
            3,
            24,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        );
        assert_eq!(r, vk::Result::NOT_READY, "{what}");
        let ab = 0xABAB_ABAB_ABAB_ABABu64;
        assert_eq!(u64s(&data), [ab, ab, 0, ab, ab, 0, ab, ab, 0], "{what}");
        // Without availability either: nothing written at all.
        let (r, data) = results(d, pool, 1, 2, 8, vk::QueryResultFlags::empty());
        assert_eq!(r, vk::Result::NOT_READY, "{what}");
        assert!(data.iter().all(|&x| x == 0xAB), "{what}");
        // PARTIAL: the values so far (reset made them 0), availability 0.
        let (r, data) = results(
            d,
            pool,
            0,
            3,
            12,
            vk::QueryResultFlags::PARTIAL | vk::QueryResultFlags::WITH_AVAILABILITY,
        );
        assert_eq!(r, vk::Result::NOT_READY, "{what}");
        assert_eq!(u32s(&data), [0; 9], "{what}");
    };
    check_unavailable("after reset, before the queries ran");

    // Recorded but not submitted yet: still unavailable.
    let cb = record(
        &gpu,
        &ext,
        &s,
        &t,
        pipeline,
        pool,
        &groups,
        Api::Indexed(0),
        false,
        None,
        None,
    );
    check_unavailable("recorded, not submitted");
    submit_and_wait(&gpu, &[cb]);
    check(d, pool, &want, model_name);

    // GPU copies: 64-bit with availability at stride 32, 32-bit at stride
    // 12 (three words), and 32-bit without availability, stride 8, from
    // query 1; after the queries in the same submission order.
    let dst = Buf::new(d, 256, vk::BufferUsageFlags::TRANSFER_DST);
    dst.bytes().fill(0xCD);
    let copy_cb = gpu.command_buffer(s.cmd_pool);
    // SAFETY: valid handles.
    unsafe {
        d.begin_command_buffer(copy_cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_copy_query_pool_results(
            copy_cb,
            pool,
            0,
            3,
            dst.buffer,
            0,
            32,
            vk::QueryResultFlags::TYPE_64
                | vk::QueryResultFlags::WAIT
                | vk::QueryResultFlags::WITH_AVAILABILITY,
        );
        d.cmd_copy_query_pool_results(
            copy_cb,
            pool,
            0,
            3,
            dst.buffer,
            96,
            12,
            vk::QueryResultFlags::WITH_AVAILABILITY | vk::QueryResultFlags::WAIT,
        );
        d.cmd_copy_query_pool_results(
            copy_cb,
            pool,
            1,
            2,
            dst.buffer,
            132,
            8,
            vk::QueryResultFlags::WAIT,
        );
        d.end_command_buffer(copy_cb).unwrap();
    }
    let verify_copies = |what: &str| {
        let bytes = dst.bytes().to_vec();
        let cd64 = 0xCDCD_CDCD_CDCD_CDCDu64;
        let mut w64 = Vec::new();
        for &(w, n) in &want {
            w64.extend([w, n, 1, cd64]);
        }
        assert_eq!(u64s(&bytes[0..96]), w64, "{what}: 64-bit copy");
        let w32: Vec<u32> = want
            .iter()
            .flat_map(|&(w, n)| [w as u32, n as u32, 1])
            .collect();
        assert_eq!(u32s(&bytes[96..132]), w32, "{what}: 32-bit copy");
        let w32: Vec<u32> = want[1..]
            .iter()
            .flat_map(|&(w, n)| [w as u32, n as u32])
            .collect();
        assert_eq!(
            u32s(&bytes[132..148]),
            w32,
            "{what}: copy without availability"
        );
        assert!(
            bytes[148..].iter().all(|&x| x == 0xCD),
            "{what}: beyond the copies"
        );
    };
    submit_and_wait(&gpu, &[copy_cb]);
    verify_copies(model_name);

    // Reset, then queries and copy in one submission: the same again.
    dst.bytes().fill(0xCD);
    submit_and_wait(&gpu, &[reset_cb]);
    check_unavailable("reset again");
    submit_and_wait(&gpu, &[cb, copy_cb]);
    check(d, pool, &want, &format!("{model_name}, re-used"));
    verify_copies(&format!("{model_name}, re-used"));

    // A Begin/End of stream 1 is refused (only stream 0 exists): logged,
    // the command buffer still records and runs, the query stays
    // unavailable; a stream-0 query of the same command buffer works.
    submit_and_wait(&gpu, &[reset_cb]);
    let xfb = ext.xfb.fp();
    let bad = gpu.command_buffer(s.cmd_pool);
    // SAFETY: valid handles (the invalid stream index is the point).
    unsafe {
        d.begin_command_buffer(bad, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        (xfb.cmd_begin_query_indexed_ext)(bad, pool, 2, vk::QueryControlFlags::empty(), 1);
        (xfb.cmd_end_query_indexed_ext)(bad, pool, 2, 1);
        (xfb.cmd_begin_query_indexed_ext)(bad, pool, 1, vk::QueryControlFlags::empty(), 3);
        d.cmd_end_query(bad, pool, 1);
        d.end_command_buffer(bad).unwrap();
    }
    submit_and_wait(&gpu, &[bad]);
    let (r, data) = results(
        d,
        pool,
        1,
        2,
        24,
        vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
    );
    assert_eq!(r, vk::Result::NOT_READY);
    assert_eq!(u64s(&data)[2], 0);
    assert_eq!(u64s(&data)[5], 0);
    let one = [draw(6, 2, 3, 1)];
    let cb1 = record(
        &gpu,
        &ext,
        &s,
        &t,
        pipeline,
        pool,
        &[&one],
        Api::Core,
        true,
        None,
        None,
    );
    submit_and_wait(&gpu, &[cb1]);
    check(
        d,
        pool,
        &model(topology, records, &[&one]),
        "after a refused stream",
    );

    // SAFETY: the GPU is idle.
    unsafe {
        d.destroy_query_pool(pool, None);
        d.destroy_pipeline(pipeline, None);
    }
    dst.destroy(d);
    t.destroy(d);
    s.destroy(d);
}

#[test]
fn xfb_query_results_g52() {
    results_on("g52");
}

#[test]
fn xfb_query_results_g72() {
    results_on("g72");
}

/// Primitives-generated queries over indexed strips and fans with
/// primitive restart count the primitives of each run between restart
/// indices (Vulkan spec, "Primitive Restart": a restart index starts a new
/// primitive sequence), outside transform feedback and while capturing,
/// u16 and u32 indices, with instances, direct and indirect.
fn generated_with_restart_on(model_name: &str) {
    let gpu = Gpu::with_xfb_and_generated(model_name);
    let d = &gpu.device;
    let s = Setup::new(&gpu);
    let ext = Ext::new(&gpu);
    let t = Targets::new(d, [64, 64]);
    let cases: [(vk::PrimitiveTopology, vk::IndexType, &[u32], u32, bool); 5] = [
        (
            vk::PrimitiveTopology::TRIANGLE_STRIP,
            vk::IndexType::UINT32,
            &[0, 1, 2, 3, u32::MAX, 4, 5, 6, u32::MAX, 7, 8],
            2,
            false,
        ),
        (
            vk::PrimitiveTopology::TRIANGLE_STRIP,
            vk::IndexType::UINT16,
            &[0, 1, 0xFFFF, 2, 3, 4, 5, 6],
            1,
            true,
        ),
        (
            vk::PrimitiveTopology::TRIANGLE_FAN,
            vk::IndexType::UINT32,
            &[9, 1, 2, 3, u32::MAX, 9, 4, 5],
            3,
            false,
        ),
        (
            vk::PrimitiveTopology::LINE_STRIP,
            vk::IndexType::UINT16,
            &[1, 2, 3, 0xFFFF, 0xFFFF, 4, 5, 0xFFFF, 6],
            2,
            true,
        ),
        (
            vk::PrimitiveTopology::LINE_STRIP,
            vk::IndexType::UINT32,
            &[u32::MAX, u32::MAX],
            1,
            false,
        ),
    ];
    let runs = cases
        .into_iter()
        .flat_map(|case| [(case, false), (case, true)]);
    for ((topology, ty, indices, instances, capture), indirect) in runs {
        let what = format!(
            "{model_name} {topology:?} {ty:?} {indices:?} x{instances} capture {capture} indirect {indirect}"
        );
        // vkCmdDrawIndexedIndirect's record at byte 4, garbage around it.
        let params = Buf::new(d, 32, vk::BufferUsageFlags::INDIRECT_BUFFER);
        params.bytes().fill(0x5A);
        params.write(4, &[indices.len() as u32, instances, 0, 0, 0]);
        let pipeline = s.pipeline_with_restart(d, topology, true);
        let pool = create_pool_of(d, vk::QueryType::PRIMITIVES_GENERATED_EXT, 1);
        let ib = Buf::new(d, 64, vk::BufferUsageFlags::INDEX_BUFFER);
        let cut = if ty == vk::IndexType::UINT16 {
            let v: Vec<u16> = indices.iter().map(|&i| i as u16).collect();
            ib.write(0, &v);
            0xFFFF
        } else {
            ib.write(0, indices);
            u32::MAX
        };
        // The spec's count: primitives of every run between restart indices.
        let per_instance: u64 = indices
            .split(|&i| i == cut)
            .map(|run| primitives(topology, run.len() as u32).len() as u64)
            .sum();
        let cb = gpu.command_buffer(s.cmd_pool);
        let fp = ext.xfb.fp();
        // SAFETY: valid handles throughout.
        unsafe {
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_reset_query_pool(cb, pool, 0, 1);
            d.cmd_begin_render_pass(
                cb,
                &vk::RenderPassBeginInfo::default()
                    .render_pass(s.render_pass)
                    .framebuffer(s.framebuffer),
                vk::SubpassContents::INLINE,
            );
            s.bind(d, cb, pipeline);
            d.cmd_bind_index_buffer(cb, ib.buffer, 0, ty);
            let bufs = [t.bufs[0].buffer, t.bufs[1].buffer];
            (fp.cmd_bind_transform_feedback_buffers_ext)(
                cb,
                0,
                2,
                bufs.as_ptr(),
                [0u64, 0].as_ptr(),
                std::ptr::null(),
            );
            ext.begin(d, cb, pool, 0, Api::Core);
            if capture {
                (fp.cmd_begin_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
            }
            if indirect {
                d.cmd_draw_indexed_indirect(cb, params.buffer, 4, 1, 20);
            } else {
                d.cmd_draw_indexed(cb, indices.len() as u32, instances, 0, 0, 0);
            }
            if capture {
                (fp.cmd_end_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
            }
            ext.end(d, cb, pool, 0, Api::Core);
            d.cmd_end_render_pass(cb);
            d.end_command_buffer(cb).unwrap();
        }
        submit_and_wait(&gpu, &[cb]);
        check_generated(d, pool, &[per_instance * u64::from(instances)], &what);
        // SAFETY: the GPU is idle.
        unsafe {
            d.free_command_buffers(s.cmd_pool, &[cb]);
            d.destroy_query_pool(pool, None);
            d.destroy_pipeline(pipeline, None);
        }
        ib.destroy(d);
        params.destroy(d);
    }
    t.destroy(d);
    s.destroy(d);
}

#[test]
fn primitives_generated_with_restart_g52() {
    generated_with_restart_on("g52");
}

#[test]
fn primitives_generated_with_restart_g72() {
    generated_with_restart_on("g72");
}
