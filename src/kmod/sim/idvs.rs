//! TILER and INDEXED_VERTEX (IDVS) jobs: vertex shading (IDVS only) and
//! primitive assembly into the simulated tiler's polygon list
//! ([`super::tiler`]).
//!
//! IDVS (genxml "Indexed Vertex Job"): the Vertex Draw's renderer state
//! runs its position shader once per (vertex, instance) of the Invocation,
//! with r58/r59 = the address of the vertex's position (the Fragment Draw's
//! `Position` + 16 × vertex; Vertex Preload "Position result address
//! lo/hi"), r61/r62 = vertex/instance id; then, when the Primitive's
//! `Secondary Shader` is set, its varying shader (`Secondary shader`,
//! `Secondary preload`, `Secondary preload.Uniform count`) over the same
//! grid. Both see the Vertex Draw's tables. The tiler part then reads the
//! positions back from memory.
//!
//! Tiler part (TILER jobs and IDVS): the Primitive's `Draw mode`, indices
//! (`Index type`, `Indices`, `Index count`, `Base vertex offset`), point
//! sizes (`Primitive Size`: constant or an FP16/FP32 array per vertex),
//! culling (the fragment-side Draw's `Cull front/back face`, `Front face
//! CCW`, facing from the sign of the area in framebuffer coordinates as the
//! Vulkan spec computes it). A vertex's element index (its slot in the
//! position and varying buffers) is its index plus `Base vertex offset` for
//! indexed draws, its position in the draw otherwise — vertex jobs store
//! outputs at the raw vertex id, which does not include `Offset start`.
//! Strips and fans are split the Vulkan way, by the Primitive's `First
//! provoking vertex` (first: odd strip triangles (i, i+2, i+1), fan
//! triangles (i+1, i+2, 0); last: (i+1, i, i+2) and (0, i+1, i+2)); the
//! record says which vertex provokes flat varyings.
//!
//! Primitive restart (the Primitive's `Primitive restart`: "Implicit" =
//! the all-ones index of the index type, "Explicit" = `Primitive Restart
//! Index`; indexed draws only) ends the strip, fan or list at each restart
//! index and starts a new one after it, the Vulkan rule
//! (`primitiveRestartEnable`); an incomplete primitive before it is
//! dropped. Which value the hardware compares against for "Implicit" is
//! our reading of genxml's names and of PanVk, which writes "Implicit"
//! for Vulkan's all-ones restart.
//!
//! Instances (TILER jobs): the Invocation's instance count, instance i's
//! vertices at elements `+ i × Instance Size` of the fragment-side Draw,
//! its primitives after the previous instance's (Vulkan's order).
//!
//! Not simulated (JOB_CONFIG_FAULT): instanced IDVS jobs,
//! "Polygon" and "Quads" draw modes, a null tiler context.
//!
//! This module must never pass anything to the fragment job except through
//! GPU memory (the polygon list).

use super::compute::{hardware_instance_size, load_resources, run_vertex};
use super::jobs::{JobContext, JobFault, JobHeader};
use super::raster::{Vertex, facing_area};
use super::shader::{Core, Program};
use super::tiler::{Kind, ListWriter, Record};
use crate::hw::compute::WorkSize;
use crate::hw::draw::dcd;
use crate::hw::draw::primitive as prim;
use crate::hw::draw::primitive_size as psize;
use crate::hw::job::JobType;
use crate::hw::job::tiler_pointer;
use crate::hw::layouts;
use crate::hw::shader::{renderer_state as rs, vertex_preload};

fn config(va: u64, what: &str) -> JobFault {
    log::error!("sim tiler job: descriptor at {va:#x}: {what}");
    JobFault::config(va)
}

/// Runs a TILER or INDEXED_VERTEX job.
pub fn execute(ctx: &JobContext<'_>, job: &JobHeader) -> Result<(), JobFault> {
    let l = layouts(ctx.arch);
    let idvs = job.job_type == Some(JobType::IndexedVertex);
    let agg = if idvs {
        l.indexed_vertex_job
    } else {
        l.tiler_job
    };
    let words = ctx.mmu.read_words(job.va, agg.bytes / 4)?;
    let section = |name: &str| -> Result<(&[u32], u64), JobFault> {
        let s = agg
            .section(name)
            .ok_or_else(|| config(job.va, "job layout lacks a section"))?;
        Ok((s.words(&words), job.va + s.offset as u64))
    };
    let (invocation, _) = section("Invocation")?;
    let (primitive, prim_va) = section("Primitive")?;
    let (size, _) = section("Primitive Size")?;
    let (tiler, tiler_va) = section("Tiler")?;
    let (draw, draw_va) = section(if idvs { "Fragment Draw" } else { "Draw" })?;
    if l.invocation.check_reserved(invocation).is_err()
        || l.primitive.check_reserved(primitive).is_err()
        || l.draw.check_reserved(draw).is_err()
    {
        return Err(config(
            job.va,
            "reserved bits set in Invocation/Primitive/Draw",
        ));
    }
    let ws = WorkSize::unpack(invocation);
    let instances = ws.count[2];
    if instances > 1 && idvs {
        return Err(config(job.va, "instanced IDVS jobs are not simulated"));
    }
    // Instance i's vertices are elements `+ i × Instance Size` (our reading
    // of genxml's Draw field; Mesa's Gallium driver writes the padded
    // count its VERTEX job's outputs use into the tiler job's Draw too,
    // `src/gallium/drivers/panfrost/pan_cmdstream.c`). A size below the
    // Invocation's vertex count would make instances overlap: refused.
    let instance_size = if instances > 1 {
        let size = dcd::INSTANCE_SIZE.get(draw);
        if size < u64::from(ws.count[1]) {
            return Err(config(draw_va, "Instance Size below the vertex count"));
        }
        size
    } else {
        0
    };
    let position = dcd::POSITION.get(draw);
    if position == 0 {
        return Err(config(draw_va, "no position buffer"));
    }
    if idvs {
        let (vdraw, vdraw_va) = section("Vertex Draw")?;
        if l.draw.check_reserved(vdraw).is_err() {
            return Err(config(vdraw_va, "reserved bits set in Vertex Draw"));
        }
        let secondary = prim::SECONDARY_SHADER.get(primitive) != 0;
        shade_vertices(ctx, job, vdraw, vdraw_va, &ws, position, secondary)?;
    }
    let context = tiler_pointer::ADDRESS.get(tiler);
    if context == 0 {
        return Err(config(tiler_va, "null tiler context"));
    }
    let mut list = ListWriter::open(ctx.mmu, ctx.arch, context)?;
    for i in 0..u64::from(instances.max(1)) {
        let first_slot = u32::try_from(i * instance_size)
            .map_err(|_| config(draw_va, "instance elements beyond 2^32"))?;
        let at = Assembly {
            primitive,
            prim_va,
            size,
            draw,
            draw_va,
            position,
            first_slot,
        };
        assemble(ctx, &at, &mut list)?;
    }
    list.close(ctx.mmu)
}

/// IDVS vertex shading: the position shader, then the varying shader.
fn shade_vertices(
    ctx: &JobContext<'_>,
    job: &JobHeader,
    draw: &[u32],
    draw_va: u64,
    ws: &WorkSize,
    position: u64,
    secondary: bool,
) -> Result<(), JobFault> {
    let l = layouts(ctx.arch);
    let state = dcd::STATE.get(draw);
    if state == 0 || !state.is_multiple_of(64) {
        return Err(config(draw_va, "null or misaligned renderer state"));
    }
    let rsd = ctx.mmu.read_words(state, l.renderer_state.words as usize)?;
    if l.renderer_state.check_reserved(&rsd).is_err() {
        return Err(config(state, "reserved bits set in Renderer State"));
    }
    let hw_instances = hardware_instance_size(job.job_type, ws);
    let bit = |base: u32, f: crate::hw::layout::Field| f.at(base).get(&rsd) != 0;
    let mut passes = vec![(
        rs::SHADER_ADDRESS.get(&rsd),
        rs::PRELOAD.start,
        rs::PRELOAD_UNIFORM_COUNT.get(&rsd) as usize,
    )];
    if secondary {
        passes.push((
            rs::SECONDARY_SHADER.get(&rsd),
            rs::SECONDARY_PRELOAD.start,
            rs::SECONDARY_PRELOAD_UNIFORM_COUNT.get(&rsd) as usize,
        ));
    }
    for (entry, preload_at, uniforms) in passes {
        if entry == 0 {
            return Err(config(state, "null shader pointer"));
        }
        let (fau, res) = load_resources(ctx, draw, draw_va, &rsd, uniforms, hw_instances, true)?;
        let ids = (
            bit(preload_at, vertex_preload::VERTEX_ID),
            bit(preload_at, vertex_preload::INSTANCE_ID),
        );
        let (lo, hi) = (
            bit(preload_at, vertex_preload::POSITION_RESULT_ADDRESS_LO),
            bit(preload_at, vertex_preload::POSITION_RESULT_ADDRESS_HI),
        );
        let mut core = Core::new(ctx.mmu, ctx.arch, Program { entry, fau, res });
        core.shared = Some(ctx.clauses);
        let result = run_vertex(&mut core, ctx.cores, ws, ids, &|vertex, instance| {
            let slot = u64::from(vertex) + u64::from(instance) * hw_instances;
            let addr = position + 16 * slot;
            let mut pre = Vec::new();
            if lo {
                pre.push((58, addr as u32));
            }
            if hi {
                pre.push((59, (addr >> 32) as u32));
            }
            pre
        });
        ctx.counters.push(super::compute::JobCounters {
            job_va: job.va,
            counters: core.counters,
        });
        result?;
    }
    Ok(())
}

/// The position the vertex shaders stored for element `slot`.
pub fn read_position(mmu: &super::mmu::Mmu, position: u64, slot: u32) -> Result<Vertex, JobFault> {
    let w = mmu.read_words(position + 16 * u64::from(slot), 4)?;
    Ok(Vertex {
        x: f32::from_bits(w[0]),
        y: f32::from_bits(w[1]),
        z: f32::from_bits(w[2]),
        inv_w: f32::from_bits(w[3]),
    })
}

/// What primitive assembly reads for one instance.
struct Assembly<'a> {
    primitive: &'a [u32],
    prim_va: u64,
    size: &'a [u32],
    draw: &'a [u32],
    draw_va: u64,
    position: u64,
    /// The instance's first element (instance × `Instance Size`).
    first_slot: u32,
}

/// Primitive assembly of one instance: indices → records in the polygon
/// list.
fn assemble(
    ctx: &JobContext<'_>,
    at: &Assembly<'_>,
    list: &mut ListWriter,
) -> Result<(), JobFault> {
    let Assembly {
        primitive,
        prim_va,
        size,
        draw,
        draw_va,
        position,
        first_slot,
    } = *at;
    let mmu = ctx.mmu;
    let count = prim::INDEX_COUNT.get(primitive);
    if count > 1 << 28 {
        return Err(config(prim_va, "index count out of range"));
    }
    let count = count as u32;
    let index_bytes = match prim::INDEX_TYPE.get(primitive) {
        0 => 0u64,
        1 => 1,
        2 => 2,
        _ => 4,
    };
    let indices = prim::INDICES.get(primitive);
    let base_vertex = prim::BASE_VERTEX_OFFSET.get(primitive) as i64;
    if index_bytes != 0 && indices == 0 {
        return Err(config(prim_va, "indexed draw without indices"));
    }
    let raw = |k: u32| -> Result<u32, JobFault> {
        let mut b = [0u8; 4];
        let n = index_bytes as usize;
        mmu.read(indices + u64::from(k) * index_bytes, &mut b[..n])?;
        Ok(u32::from_le_bytes(b))
    };
    let slot = |k: u32| -> Result<u32, JobFault> {
        let v = if index_bytes == 0 {
            i64::from(k)
        } else {
            i64::from(raw(k)?) + base_vertex
        };
        let v = u32::try_from(v).map_err(|_| config(prim_va, "index + base vertex is negative"))?;
        v.checked_add(first_slot)
            .ok_or_else(|| config(prim_va, "element index beyond 2^32"))
    };
    let restart = match (prim::PRIMITIVE_RESTART.get(primitive), index_bytes) {
        (0, _) => None,
        (_, 0) => return Err(config(prim_va, "primitive restart without indices")),
        (2, n) => Some(((1u64 << (8 * n)) - 1) as u32),
        (3, _) => Some(prim::PRIMITIVE_RESTART_INDEX.get(primitive) as u32),
        _ => return Err(config(prim_va, "primitive restart mode")),
    };
    let last = prim::FIRST_PROVOKING_VERTEX.get(primitive) == 0;
    let cull_front = dcd::CULL_FRONT_FACE.get(draw) != 0;
    let cull_back = dcd::CULL_BACK_FACE.get(draw) != 0;
    let ccw_front = dcd::FRONT_FACE_CCW.get(draw) != 0;
    let push_triangle = |list: &mut ListWriter, v: [u32; 3]| -> Result<(), JobFault> {
        if cull_front || cull_back {
            let p = [
                read_position(mmu, position, v[0])?,
                read_position(mmu, position, v[1])?,
                read_position(mmu, position, v[2])?,
            ];
            // The Vulkan spec's area is the negated doubled area in
            // framebuffer coordinates: positive = counter-clockwise.
            let ccw = -facing_area(&p) > 0.0;
            let front = ccw == ccw_front;
            if (front && cull_front) || (!front && cull_back) {
                return Ok(());
            }
        }
        list.push(
            mmu,
            &Record {
                kind: Kind::Triangle,
                size: 0.0,
                draw: draw_va,
                vertices: v,
                provoking_last: last,
            },
        )
    };
    let mode = prim::DRAW_MODE.get(primitive);
    // Segments between restart indices (one segment without restart).
    let total = count;
    let mut first = 0u32;
    loop {
        let mut end = total;
        if let Some(r) = restart {
            end = first;
            while end < total && raw(end)? != r {
                end += 1;
            }
        }
        let slot = |k: u32| slot(first + k);
        let count = end - first;
        match mode {
            // Triangles, strip, fan.
            8 => {
                for t in 0..count / 3 {
                    push_triangle(
                        &mut *list,
                        [slot(3 * t)?, slot(3 * t + 1)?, slot(3 * t + 2)?],
                    )?;
                }
            }
            10 => {
                for i in 0..count.saturating_sub(2) {
                    let (a, b, c) = (slot(i)?, slot(i + 1)?, slot(i + 2)?);
                    // Vulkan's order keeps the provoking vertex in place: odd
                    // triangles are (i, i+2, i+1) with the first vertex
                    // provoking, (i+1, i, i+2) with the last.
                    push_triangle(
                        &mut *list,
                        match (i % 2 == 0, last) {
                            (true, _) => [a, b, c],
                            (false, false) => [a, c, b],
                            (false, true) => [b, a, c],
                        },
                    )?;
                }
            }
            12 => {
                for i in 0..count.saturating_sub(2) {
                    let (a, b, c) = (slot(i + 1)?, slot(i + 2)?, slot(0)?);
                    push_triangle(&mut *list, if last { [c, a, b] } else { [a, b, c] })?;
                }
            }
            // Points.
            1 => {
                let format = prim::POINT_SIZE_ARRAY_FORMAT.get(primitive);
                let array = psize::SIZE_ARRAY.get(size);
                for k in 0..count {
                    let s = slot(k)?;
                    let point_size = match format {
                        0 => f32::from_bits(psize::CONSTANT.get(size) as u32),
                        2 => {
                            let mut b = [0u8; 2];
                            mmu.read(array + 2 * u64::from(s), &mut b)?;
                            super::shader::exec::f16_to_f32(u16::from_le_bytes(b))
                        }
                        3 => {
                            let w = mmu.read_words(array + 4 * u64::from(s), 1)?;
                            f32::from_bits(w[0])
                        }
                        _ => return Err(config(prim_va, "point size array format")),
                    };
                    list.push(
                        mmu,
                        &Record {
                            kind: Kind::Point,
                            size: point_size,
                            draw: draw_va,
                            vertices: [s, s, s],
                            provoking_last: false,
                        },
                    )?;
                }
            }
            // Lines, strip, loop.
            2 | 4 | 6 => {
                let width = f32::from_bits(psize::CONSTANT.get(size) as u32);
                let mut segs = Vec::new();
                match mode {
                    2 => {
                        for i in 0..count / 2 {
                            segs.push((2 * i, 2 * i + 1));
                        }
                    }
                    _ => {
                        for i in 0..count.saturating_sub(1) {
                            segs.push((i, i + 1));
                        }
                        if mode == 6 && count > 2 {
                            segs.push((count - 1, 0));
                        }
                    }
                }
                for (a, b) in segs {
                    let (a, b) = (slot(a)?, slot(b)?);
                    list.push(
                        mmu,
                        &Record {
                            kind: Kind::Line,
                            size: width,
                            draw: draw_va,
                            vertices: [a, b, b],
                            provoking_last: last,
                        },
                    )?;
                }
            }
            0 => {}
            _ => return Err(config(prim_va, "draw mode not simulated")),
        }
        if end >= total {
            break;
        }
        first = end + 1;
    }
    Ok(())
}
