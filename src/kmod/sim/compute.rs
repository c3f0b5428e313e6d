//! COMPUTE and VERTEX jobs: unpack the job's descriptors with the `hw`
//! tables (Invocation, Draw, Renderer State, Local Storage, push uniforms)
//! and run its threads on the simulated shader core ([`super::shader`]).
//!
//! Compute: one thread per invocation, grouped by workgroup (barriers
//! synchronise a workgroup, each workgroup gets its own WLS instance in
//! its core's block, see `shader::Wls`);
//! preloads as Mesa's Bifrost compiler assigns them (src/panfrost/compiler/
//! bifrost_compile.c): r55 = local x | local y << 16, r56 = local z,
//! r57..r59 = workgroup id, r60..r62 = global id, each only when the
//! renderer state's Preload bit asks for it. Vertex: one thread per
//! (vertex, instance) of the Invocation's (1, vertices, instances) grid,
//! r61 = raw vertex id, r62 = instance id. Workgroups (vertex batches) go
//! round robin to the model's shader cores (`core_id`); a thread's slot on
//! its core is its index in the workgroup (batch), which selects its
//! thread-local storage (see `shader::Tls`).
//!
//! A malformed descriptor (reserved bits, null state or code pointer, a
//! missing push-uniform buffer) is a JOB_CONFIG_FAULT / DATA_INVALID_FAULT;
//! this module must never read a descriptor field by hand-coded offset and
//! never run a thread outside the job's grid.

use std::sync::Mutex;

use super::jobs::{JobContext, JobFault, JobHeader};
use super::shader::warp::ThreadSpec;
use super::shader::{Core, Counters, Program, Resources, ShaderCores, Tls, Wls, fault, status};
use crate::hw::compute::WorkSize;
use crate::hw::draw::dcd;
use crate::hw::job::JobType;
use crate::hw::shader::{compute_preload, renderer_state as rs, vertex_preload};
use crate::hw::storage::local_storage as ls;
use crate::hw::{Arch, layouts};

/// Shader-core counters of the jobs a device ran (newest last, bounded).
#[derive(Default)]
pub struct CounterLog {
    pub entries: Mutex<Vec<JobCounters>>,
}

/// Counters of one COMPUTE/VERTEX job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobCounters {
    pub job_va: u64,
    pub counters: Counters,
}

const COUNTER_LOG_MAX: usize = 4096;

impl CounterLog {
    pub fn push(&self, e: JobCounters) {
        let mut v = self.entries.lock().unwrap();
        if v.len() >= COUNTER_LOG_MAX {
            v.remove(0);
        }
        v.push(e);
    }

    pub fn all(&self) -> Vec<JobCounters> {
        self.entries.lock().unwrap().clone()
    }
}

fn config(va: u64, what: &str) -> JobFault {
    log::error!("sim: job descriptor at {va:#x}: {what}");
    JobFault::config(va)
}

/// Runs a COMPUTE or VERTEX job.
pub fn execute(ctx: &JobContext<'_>, job: &JobHeader) -> Result<(), JobFault> {
    let arch = ctx.arch;
    let l = layouts(arch);
    let agg = l.compute_job;
    let words = ctx.mmu.read_words(job.va, agg.bytes / 4)?;
    let section = |name: &str| agg.section(name).map(|s| s.words(&words)).unwrap_or(&[]);
    let invocation = section("Invocation");
    let draw = section("Draw");
    let draw_va = job.va + agg.section("Draw").map_or(64, |s| s.offset as u64);
    if l.draw.check_reserved(draw).is_err() || l.invocation.check_reserved(invocation).is_err() {
        return Err(config(draw_va, "reserved bits set in Draw/Invocation"));
    }
    let ws = WorkSize::unpack(invocation);

    // Renderer state.
    let state = dcd::STATE.get(draw);
    if state == 0 || !state.is_multiple_of(64) {
        return Err(config(draw_va, "null or misaligned renderer state"));
    }
    let rsd = ctx.mmu.read_words(state, l.renderer_state.words as usize)?;
    if l.renderer_state.check_reserved(&rsd).is_err() {
        return Err(config(state, "reserved bits set in Renderer State"));
    }
    let entry = rs::SHADER_ADDRESS.get(&rsd);
    if entry == 0 {
        return Err(config(state, "null shader pointer"));
    }
    let preload = |f: crate::hw::layout::Field| f.at(rs::PRELOAD.start).get(&rsd) != 0;
    let uniform_count = rs::PRELOAD_UNIFORM_COUNT.get(&rsd) as usize;

    let (fau, res) = load_resources(
        ctx,
        draw,
        draw_va,
        &rsd,
        uniform_count,
        hardware_instance_size(job.job_type, &ws),
        job.job_type == Some(JobType::Vertex),
    )?;
    let program = Program { entry, fau, res };
    let mut core = Core::new(ctx.mmu, arch, program);
    core.shared = Some(ctx.clauses);
    let result = match job.job_type {
        Some(JobType::Vertex) => {
            let ids = (
                preload(vertex_preload::VERTEX_ID),
                preload(vertex_preload::INSTANCE_ID),
            );
            run_vertex(&mut core, ctx.cores, &ws, ids, &|_, _| Vec::new())
        }
        _ => run_compute(&mut core, ctx.cores, &ws, &preload),
    };
    log::debug!(
        "sim: job {:#x} ({:?}): {:?}",
        job.va,
        job.job_type,
        core.counters
    );
    ctx.counters.push(JobCounters {
        job_va: job.va,
        counters: core.counters,
    });
    result
}

/// The push uniforms (FAU words) and resources a shader of the Draw
/// descriptor `draw` (at `draw_va`) with renderer state `rsd` sees:
/// `uniform_count` FAU words, UBO/attribute/varying tables, thread storage.
/// Shared by COMPUTE/VERTEX jobs, the two shaders of IDVS jobs and
/// fragment shading.
pub(super) fn load_resources(
    ctx: &JobContext<'_>,
    draw: &[u32],
    draw_va: u64,
    rsd: &[u32],
    uniform_count: usize,
    hardware_instance_size: u64,
    vertex: bool,
) -> Result<(Vec<u64>, Resources), JobFault> {
    let l = layouts(ctx.arch);
    let rsd = rsd.to_vec();
    // Push uniforms (FAU RAM).
    let push = dcd::PUSH_UNIFORMS.get(draw);
    let mut fau = Vec::with_capacity(uniform_count);
    if uniform_count > 0 {
        if push == 0 {
            return Err(config(
                draw_va,
                "uniforms preloaded from a null push-uniform pointer",
            ));
        }
        let w = ctx.mmu.read_words(push, 2 * uniform_count)?;
        fau.extend(
            w.chunks(2)
                .map(|c| u64::from(c[0]) | (u64::from(c[1]) << 32)),
        );
    }

    // Thread storage.
    let mut tls = Tls::default();
    let mut wls = Wls::default();
    let storage = dcd::THREAD_STORAGE.get(draw);
    if storage != 0 {
        let lsw = ctx
            .mmu
            .read_words(storage, l.local_storage.words as usize)?;
        if l.local_storage.check_reserved(&lsw).is_err() {
            return Err(config(storage, "reserved bits set in Local Storage"));
        }
        let tls_base = ls::TLS_BASE_POINTER.get(&lsw);
        if tls_base != 0 {
            tls = Tls {
                base: tls_base,
                per_thread: 16 << ls::TLS_SIZE.get(&lsw),
                threads_per_core: u64::from(ctx.cores.threads_per_core),
            };
        }
        let instances = ls::WLS_INSTANCES.get(&lsw);
        let scale = ls::WLS_SIZE_SCALE.get(&lsw);
        let wls_base = ls::WLS_BASE_POINTER.get(&lsw);
        if instances != ls::NO_WORKGROUP_MEM && scale > 0 && wls_base != 0 {
            let base_mul = 4 + ls::WLS_SIZE_BASE.get(&lsw);
            wls = Wls {
                base: wls_base,
                size: ((1u64 << (scale - 1)) * base_mul) / 4,
                instances: instances.max(1),
            };
        }
    }

    let res = Resources {
        ubo_table: dcd::UNIFORM_BUFFERS.get(draw),
        ubo_count: rs::UNIFORM_BUFFER_COUNT.get(&rsd) as u32,
        attributes: dcd::ATTRIBUTES.get(draw),
        attribute_buffers: dcd::ATTRIBUTE_BUFFERS.get(draw),
        attribute_count: rs::ATTRIBUTE_COUNT.get(&rsd) as u32,
        varyings: dcd::VARYINGS.get(draw),
        varying_buffers: dcd::VARYING_BUFFERS.get(draw),
        varying_count: rs::VARYING_COUNT.get(&rsd) as u32,
        tls,
        wls,
        offset_start: dcd::OFFSET_START.get(draw) as u32,
        instance_size: dcd::INSTANCE_SIZE.get(draw) as u32,
        hardware_instance_size,
        vertex,
        textures: dcd::TEXTURES.get(draw),
        samplers: dcd::SAMPLERS.get(draw),
        texture_count: rs::TEXTURE_COUNT.get(&rsd) as u32,
        sampler_count: rs::SAMPLER_COUNT.get(&rsd) as u32,
    };
    Ok((fau, res))
}

fn run_compute(
    core: &mut Core<'_>,
    cores: ShaderCores,
    ws: &WorkSize,
    preload: &dyn Fn(crate::hw::layout::Field) -> bool,
) -> Result<(), JobFault> {
    let p = [
        preload(compute_preload::LOCAL_INVOCATION_XY),
        preload(compute_preload::LOCAL_INVOCATION_Z),
        preload(compute_preload::WORK_GROUP_X),
        preload(compute_preload::WORK_GROUP_Y),
        preload(compute_preload::WORK_GROUP_Z),
        preload(compute_preload::GLOBAL_INVOCATION_X),
        preload(compute_preload::GLOBAL_INVOCATION_Y),
        preload(compute_preload::GLOBAL_INVOCATION_Z),
    ];
    let [sx, sy, sz] = ws.size;
    let [cx, cy, cz] = ws.count;
    let group_threads = (sx as u64) * (sy as u64) * (sz as u64);
    if group_threads > 1024 {
        return Err(fault(status::DATA_INVALID_FAULT, core.program.entry));
    }
    let wls = core.program.res.wls;
    let mut threads = Vec::with_capacity(group_threads as usize);
    let mut group_index = 0u64;
    let mut warp_id = 0u32;
    for gz in 0..cz {
        for gy in 0..cy {
            for gx in 0..cx {
                threads.clear();
                let mut t = 0u64;
                for lz in 0..sz {
                    for ly in 0..sy {
                        for lx in 0..sx {
                            let mut pre = Vec::with_capacity(8);
                            let mut put = |on: bool, r: u8, v: u32| {
                                if on {
                                    pre.push((r, v));
                                }
                            };
                            put(p[0], 55, (lx & 0xffff) | (ly << 16));
                            put(p[1], 56, lz);
                            put(p[2], 57, gx);
                            put(p[3], 58, gy);
                            put(p[4], 59, gz);
                            put(p[5], 60, gx.wrapping_mul(sx).wrapping_add(lx));
                            put(p[6], 61, gy.wrapping_mul(sy).wrapping_add(ly));
                            put(p[7], 62, gz.wrapping_mul(sz).wrapping_add(lz));
                            threads.push(ThreadSpec {
                                preload: pre,
                                thread: t,
                                helper: false,
                            });
                            t += 1;
                        }
                    }
                }
                core.core_id = cores.core_for(group_index);
                let wls_base = if wls.size > 0 {
                    // This core's block, this workgroup's instance in it
                    // (layout and the fault: `shader::Wls`).
                    let i = Wls::instance_in_core([gx, gy, gz], [cx, cy, cz]);
                    let slot = u64::from(core.core_id) * wls.instances + i;
                    let base = wls.base + slot * wls.size;
                    if i >= wls.instances {
                        log::error!(
                            "sim: workgroup ({gx}, {gy}, {gz}) needs WLS instance {i} of a core, \
                             the descriptor programs {}",
                            wls.instances
                        );
                        return Err(fault(status::ADDR_RANGE_FAULT, base));
                    }
                    base
                } else {
                    0
                };
                core.run_group(&threads, wls_base, warp_id)?;
                warp_id = warp_id.wrapping_add(
                    threads.len().div_ceil(super::shader::warp_width(core.arch)) as u32,
                );
                group_index += 1;
            }
        }
    }
    Ok(())
}

/// Vertex threads run in batches of this many (no barriers in vertex shaders).
const VERTEX_BATCH: usize = 256;

/// Runs one thread per (vertex, instance) of `ws`: r61 = vertex id and
/// r62 = instance id when `ids` asks for them, plus what `extra` preloads.
pub(super) fn run_vertex(
    core: &mut Core<'_>,
    cores: ShaderCores,
    ws: &WorkSize,
    ids: (bool, bool),
    extra: &dyn Fn(u32, u32) -> Vec<(u8, u32)>,
) -> Result<(), JobFault> {
    let (want_vertex, want_instance) = ids;
    let vertices = ws.count[1];
    let instances = ws.count[2];
    let mut batch = Vec::with_capacity(VERTEX_BATCH);
    let mut warp_id = 0u32;
    let mut batches = 0u64;
    for instance in 0..instances {
        for vertex in 0..vertices {
            let mut pre = extra(vertex, instance);
            if want_vertex {
                pre.push((61, vertex));
            }
            if want_instance {
                pre.push((62, instance));
            }
            batch.push(ThreadSpec {
                preload: pre,
                thread: batch.len() as u64,
                helper: false,
            });
            if batch.len() == VERTEX_BATCH {
                core.core_id = cores.core_for(batches);
                batches += 1;
                core.run_group(&batch, 0, warp_id)?;
                warp_id = warp_id
                    .wrapping_add((VERTEX_BATCH / super::shader::warp_width(core.arch)) as u32);
                batch.clear();
            }
        }
    }
    if !batch.is_empty() {
        core.core_id = cores.core_for(batches);
        core.run_group(&batch, 0, warp_id)?;
    }
    Ok(())
}

/// The padded per-instance vertex count the hardware picks for a VERTEX
/// job from its Invocation's vertex count when it has several instances
/// (Mesa `docs/drivers/panfrost/instancing.rst`: "padded_num_vertices is
/// picked by the hardware. The driver just specifies the actual number of
/// vertices"; the rule is `hw::attribute::padded_vertex_count`); 1 for
/// other jobs, whose instance id is always 0.
pub(super) fn hardware_instance_size(job_type: Option<JobType>, ws: &WorkSize) -> u64 {
    let [_, vertices, instances] = ws.count;
    if job_type == Some(JobType::Vertex) && instances > 1 {
        crate::hw::attribute::padded_vertex_count(vertices).max(1)
    } else {
        1
    }
}

/// The architecture a product id belongs to (v7 for unknown ids).
pub fn arch_of(product_id: u32) -> Arch {
    Arch::from_product_id(product_id).unwrap_or(Arch::V7)
}
