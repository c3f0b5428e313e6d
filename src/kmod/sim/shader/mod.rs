//! The simulated Bifrost shader core: runs the machine code of COMPUTE and
//! VERTEX jobs thread by thread, in warps, from GPU memory.
//!
//! What it does:
//! - fetches clauses through the MMU at the thread's PC and decodes them with
//!   [`crate::hw::isa::decode_clause`] (decoded clauses are cached per job by
//!   VA; code is not expected to change while a job runs);
//! - keeps 64 32-bit registers per thread, the `t0`/`t1` passthroughs, FAU
//!   uniforms (the push-uniform words the job preloaded, [`fau`]), embedded
//!   constants and specials (lane id, warp id, core id);
//! - executes tuples in order (FMA, then ADD which may read the FMA result
//!   `t`; a tuple's register writes land after both units have read their
//!   sources), per-op semantics in [`exec`], message instructions (memory,
//!   attributes, atomics, barriers) in [`message`];
//! - groups threads into warps of 4 (v6) or 8 (v7) lanes ([`warp`]).
//!
//! Control flow and reconvergence: every lane has its own PC. A warp always
//! runs the lanes whose PC is the lowest among its runnable lanes, as one
//! group, clause by clause ("min-PC" scheduling). Lanes that branched
//! forward wait until the others catch up, so divergent paths reconverge at
//! the first common clause; backward branches (loops) keep the lanes that
//! loop at lower PCs until they leave the loop. This gives the same results
//! as the hardware's reconvergence for structured code, whatever the
//! header's flow-control bits say; those bits (`r_uncond`, `br_pc`, ...) are
//! therefore only decoded, not interpreted. A clause with the `eos` flow
//! control ends the thread after it runs, and so does a taken branch to
//! address 0 (Mesa's early `return`: `JUMP #0`, `BRANCHZ ..., #0`). Branch
//! targets are PC-relative constants (relative to the branching clause).
//!
//! Scoreboard: a message executes when it is issued (its result lands in the
//! staging registers at once), and the slot named by the clause's
//! `dependency_slot` is marked pending until a clause's `dependency_wait`
//! mask names it. That mask belongs to the boundary *after* its clause
//! (Mesa fills it with the next clause's dependencies, so a clause waiting
//! for its own load carries its own slot). In debug builds, reading a staging
//! register of a still-pending load is reported (log::warn) as an ill-formed
//! program; results are not affected.
//!
//! Barriers: a BARRIER parks the lane after its clause; when no lane of the
//! workgroup can run any more, all parked lanes are released together.
//!
//! It must never panic on GPU memory contents, never touch memory except
//! through the MMU, and never learn anything that is not in GPU memory:
//! illegal encodings, unsupported instructions, bad addresses and runaway
//! loops are [`JobFault`]s (the job's exception status), never panics.

pub mod exec;
pub mod fau;
pub mod fragment_message;
pub mod image;
pub mod message;
pub mod warp;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::jobs::JobFault;
use super::mmu::Mmu;
use crate::hw::Arch;
use crate::hw::isa::{DecodedClause, FlowControl, decode_clause};

/// Default budget of clauses one thread may execute before the job is
/// stopped as a runaway (what the kernel's job timeout does on hardware).
/// `BIFROST_VK_SIM_CLAUSE_LIMIT` overrides it.
pub const DEFAULT_CLAUSE_LIMIT: u64 = 1 << 20;

/// Budget of clause executions (summed over threads) of one job.
pub const JOB_CLAUSE_LIMIT: u64 = 1 << 32;

/// 0: not set yet (read the environment on first use).
static CLAUSE_LIMIT: AtomicU64 = AtomicU64::new(0);

/// Sets the per-thread clause budget (tests lower it to catch loops fast).
pub fn set_clause_limit(limit: u64) {
    CLAUSE_LIMIT.store(limit.max(1), Ordering::Relaxed);
}

/// The per-thread clause budget in force.
pub fn clause_limit() -> u64 {
    match CLAUSE_LIMIT.load(Ordering::Relaxed) {
        0 => {
            let limit = std::env::var("BIFROST_VK_SIM_CLAUSE_LIMIT")
                .ok()
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|&v| v > 0)
                .unwrap_or(DEFAULT_CLAUSE_LIMIT);
            CLAUSE_LIMIT.store(limit, Ordering::Relaxed);
            limit
        }
        l => l,
    }
}

/// What one job made the shader core do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Threads (invocations) started, helper invocations not included.
    pub threads: u64,
    /// Helper invocations started: the uncovered pixels of fragment quads
    /// (Vulkan "Helper Invocations"), which run for derivatives only.
    pub helpers: u64,
    /// Warps started.
    pub warps: u64,
    /// Clauses executed, counted once per warp group issue.
    pub clauses: u64,
    /// Non-NOP instructions executed, counted per thread.
    pub instructions: u64,
    /// Clause executions per thread (clauses × active lanes).
    pub thread_clauses: u64,
    /// Debug builds: reads of a register a message was still writing (its
    /// scoreboard slot not waited on yet): an ill-formed program.
    pub hazards: u64,
}

impl Counters {
    pub fn add(&mut self, o: &Counters) {
        self.threads += o.threads;
        self.helpers += o.helpers;
        self.warps += o.warps;
        self.clauses += o.clauses;
        self.instructions += o.instructions;
        self.thread_clauses += o.thread_clauses;
        self.hazards += o.hazards;
    }
}

/// Lanes per warp of an architecture: 4 on v6, 8 on v7 (Mesa's
/// `pan_subgroup_size`, src/panfrost/util/pan_ir.h).
pub fn warp_width(arch: Arch) -> usize {
    match arch {
        Arch::V6 => 4,
        Arch::V7 => 8,
    }
}

/// A shader fault: exception status and faulting address.
pub fn fault(status: u32, va: u64) -> JobFault {
    JobFault {
        status,
        fault_va: va,
    }
}

/// Exception codes the shader core reports (Mali exception types, as
/// listed by the Linux panfrost driver).
pub mod status {
    /// The job was stopped (our runaway guard; the kernel's timeout hard-stops).
    pub const TERMINATED: u32 = 0x04;
    pub const INSTR_INVALID_PC: u32 = 0x50;
    pub const INSTR_INVALID_ENC: u32 = 0x51;
    pub const INSTR_OPERAND_FAULT: u32 = 0x53;
    pub const INSTR_TLS_FAULT: u32 = 0x54;
    pub const INSTR_BARRIER_FAULT: u32 = 0x55;
    pub const INSTR_ALIGN_FAULT: u32 = 0x56;
    pub const DATA_INVALID_FAULT: u32 = 0x58;
    pub const ADDR_RANGE_FAULT: u32 = 0x5a;
}

/// Thread-local storage of a job (stack/spill memory, `seg=tl`).
///
/// Layout (our model; the real per-thread address formula is not public):
/// the buffer is `cores × threads_per_core` slots of `per_thread` bytes,
/// Mesa's sizing rule (`next_pow2(align16(bytes)) × threads_per_core ×
/// core_id_range`: `pan_emit_tls` in src/panfrost/lib/pan_desc.c, sizes in
/// src/panfrost/lib/pan_scratch.c). A thread's slot is
/// `core_id × threads_per_core + its thread slot on that core`, so any
/// buffer sized by that rule holds every thread that can be resident at
/// once, whatever the hardware's actual slot assignment is.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tls {
    pub base: u64,
    /// Bytes per thread (0: no TLS).
    pub per_thread: u64,
    /// Thread slots per core (the model's `MAX_THREADS`).
    pub threads_per_core: u64,
}

/// The shader cores of a model: which are present and how many threads
/// each runs at once (GET_PARAM `SHADER_PRESENT`, `MAX_THREADS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShaderCores {
    pub present: u64,
    pub threads_per_core: u32,
}

impl ShaderCores {
    /// The core that runs the `n`-th workgroup (or vertex batch) of a job:
    /// round robin over the present cores, as a job manager spreads tasks.
    pub fn core_for(&self, n: u64) -> u32 {
        let count = u64::from(self.present.count_ones().max(1));
        let mut k = n % count;
        for id in 0..64 {
            if self.present & (1 << id) != 0 {
                if k == 0 {
                    return id;
                }
                k -= 1;
            }
        }
        0
    }
}

/// Workgroup-local storage of a job (`seg=wls`, shared memory).
///
/// Layout (our model within the facts; the hardware's instance assignment
/// is not documented): the descriptor's `WLS Instances` count is per shader
/// core, and the buffer holds one block of that many instances per core id
/// (Mesa sizes it `instances × core_id_range`, `pan_wls_instances` in
/// `src/panfrost/lib/pan_desc.h` and PanVk's dispatch). A workgroup runs in
/// instance `core_id × instances + i`, where `i` is its id packed the way the
/// Invocation packs workgroup ids (x, then y above `ceil(log2(count x))`
/// bits, then z): `x + npot(cx) × (y + npot(cy) × z)`, which Mesa's
/// `npot(cx) × npot(cy) × npot(cz)` instances always cover. An `i` beyond
/// the programmed instances is a fault (`super::compute`), as a TLS slot
/// beyond a core's is.
#[derive(Clone, Copy, Debug, Default)]
pub struct Wls {
    pub base: u64,
    /// Bytes per workgroup instance.
    pub size: u64,
    /// Instances per shader core.
    pub instances: u64,
}

impl Wls {
    /// The instance within its core of workgroup `id` of a grid of `count`
    /// workgroups (see the type's docs).
    pub fn instance_in_core(id: [u32; 3], count: [u32; 3]) -> u64 {
        let npot = |c: u32| u64::from(c.max(1)).next_power_of_two();
        u64::from(id[0]) + npot(count[0]) * (u64::from(id[1]) + npot(count[1]) * u64::from(id[2]))
    }
}

/// Everything a shader reaches besides registers: read from the DCD and the
/// descriptors it points at (see `super::compute`).
#[derive(Clone, Debug, Default)]
pub struct Resources {
    /// Uniform Buffer table and its entry count (renderer state).
    pub ubo_table: u64,
    pub ubo_count: u32,
    /// Attribute and Attribute Buffer tables; attribute count (renderer state).
    pub attributes: u64,
    pub attribute_buffers: u64,
    pub attribute_count: u32,
    /// Varying and Varying Buffer tables (vertex jobs store outputs there).
    pub varyings: u64,
    pub varying_buffers: u64,
    pub varying_count: u32,
    pub tls: Tls,
    pub wls: Wls,
    /// DCD `Offset start` (added to the vertex id for attribute fetch).
    pub offset_start: u32,
    /// DCD `Instance Size` (padded vertex count per instance): how the
    /// attribute unit combines an LD_ATTR's vertex and instance operands.
    pub instance_size: u32,
    /// The padded per-instance vertex count the hardware derives itself from
    /// an instanced VERTEX job's Invocation
    /// (`hw::attribute::padded_vertex_count`; 1 otherwise): the stride of
    /// instances in the varying buffers (see `message::attribute_address`).
    pub hardware_instance_size: u64,
    /// A VERTEX job: LEA_ATTR addresses the varying tables (outputs).
    pub vertex: bool,
    /// Texture and Sampler tables (DCD) and their entry counts (renderer
    /// state): what TEXS/TEXC read.
    pub textures: u64,
    pub samplers: u64,
    pub texture_count: u32,
    pub sampler_count: u32,
}

/// What fragment threads reach besides registers and memory (FRAGMENT
/// jobs only, `super::fragment`): the tile buffer BLEND writes into, the
/// Blend descriptors of the render targets, and each thread's pixel.
#[derive(Clone, Debug)]
pub struct FragmentIo {
    pub tile: super::framebuffer::TileBuffer,
    /// Per render target: its 4-word Blend descriptor (after the fragment
    /// Renderer State). FAU specials 8 + i read words 2–3 of entry i.
    pub blend: Vec<[u32; 4]>,
    /// Per thread of the running group (`LaneCtx::thread`): its pixel and
    /// the perspective-correct weights of the primitive's vertices there.
    pub threads: Vec<FragThread>,
    /// The primitive's vertices (element indices in the varying buffers),
    /// how many it has (3, 2, 1), and which one provokes flat values.
    pub vertices: [u32; 3],
    pub corners: usize,
    pub provoking: usize,
    /// The renderer state's `Alpha test compare function` (genxml `Func`).
    pub alpha_test: u64,
    /// Late depth/stencil (`Pixel kill` and `ZS update` Force Late): the
    /// tests ATEST (fixed-function depth) or ZS_EMIT (depth from the
    /// shader) run; `None`: they ran before the shader.
    pub late: Option<super::fragment::LateZs>,
    /// The primitive is front-facing (r58 preload, stencil face).
    pub front: bool,
    /// A point primitive: its centre (framebuffer x, y) and size, what
    /// `LD_VAR_SPECIAL` `point` (gl_PointCoord) reads; and whether the
    /// renderer state's `Point sprite coord origin max Y` flips y.
    pub point: Option<[f32; 3]>,
    pub point_origin_max_y: bool,
    /// The framebuffer's sample-locations table (FAU special 6).
    pub sample_locations: u64,
    /// The renderer state's `Alpha-to-coverage` (ATEST).
    pub alpha_to_coverage: bool,
}

/// One fragment thread's place: pixel and interpolation weights.
#[derive(Clone, Copy, Debug, Default)]
pub struct FragThread {
    pub x: u32,
    pub y: u32,
    pub bary: [f32; 3],
    /// The samples the rasterizer (and the early tests) left it, and their
    /// depths (rasterized, before depth bias).
    pub mask: u32,
    pub z: [f32; super::raster::MAX_SAMPLES],
    /// Depth and 1/w at the pixel centre (`LD_VAR_SPECIAL` frag_z/frag_w).
    pub centre: [f32; 2],
    /// The perspective-correct weights at each sample's position (what
    /// `LD_VAR` with `centroid` or `sample` reads at a multisampled
    /// framebuffer; entries past the sample count unused).
    pub sample_bary: [[f32; 3]; super::raster::MAX_SAMPLES],
    /// The late depth/stencil tests ran for this thread (ATEST or ZS_EMIT).
    pub tested: bool,
}

/// One program to run: code address, FAU words, resources.
#[derive(Clone, Debug)]
pub struct Program {
    pub entry: u64,
    /// Push-uniform words preloaded into FAU RAM (`Preload.Uniform count`).
    pub fau: Vec<u64>,
    pub res: Resources,
}

/// A decoded clause as the core keeps it.
pub struct CachedClause {
    pub va: u64,
    pub size: u64,
    pub clause: DecodedClause,
    pub flow: FlowControl,
    /// Prepared tuples: (FMA, ADD).
    pub tuples: Vec<(exec::Prepared, exec::Prepared)>,
    pub instructions: u64,
    /// A tuple reads another lane's operand (`CLPER`): the warp runs the
    /// clause in lock step, tuple by tuple over its lanes.
    pub cross_lane: bool,
}

/// Decoded clauses kept across jobs (the device's instruction cache):
/// keyed by address and checked against the bytes fetched for each job, so
/// code rewritten in place is decoded again. Decoding a program for every
/// job was most of the cost of a small job.
#[derive(Default)]
pub struct ClauseCache {
    clauses: Mutex<HashMap<u64, Fetched>>,
}

/// The bytes a clause was decoded from, and the decoded clause.
type Fetched = (Vec<u8>, Arc<CachedClause>);

/// Entries kept before the cache starts over.
const CLAUSE_CACHE_ENTRIES: usize = 1 << 14;

impl ClauseCache {
    fn get(&self, va: u64, bytes: &[u8]) -> Option<Arc<CachedClause>> {
        let map = self.clauses.lock().unwrap();
        map.get(&va)
            .filter(|(b, _)| b.as_slice() == bytes)
            .map(|(_, c)| c.clone())
    }

    fn insert(&self, va: u64, bytes: Vec<u8>, clause: Arc<CachedClause>) {
        let mut map = self.clauses.lock().unwrap();
        if map.len() >= CLAUSE_CACHE_ENTRIES {
            map.clear();
        }
        map.insert(va, (bytes, clause));
    }
}

/// The shader core of one job.
pub struct Core<'a> {
    pub mmu: &'a Mmu,
    /// Clauses decoded by earlier jobs.
    pub shared: Option<&'a ClauseCache>,
    pub arch: Arch,
    pub program: Program,
    cache: HashMap<u64, Arc<CachedClause>>,
    pub counters: Counters,
    pub clause_limit: u64,
    /// The shader core the next workgroup runs on (`core_id`, TLS slots).
    pub core_id: u32,
    /// Fragment shading only: tile buffer, blend state, pixels.
    pub frag: Option<FragmentIo>,
    /// While a clause with a cross-lane instruction runs in lock step: by
    /// lane id, the value of that instruction's source 0 in each lane
    /// running the clause (None: the lane is not running it).
    pub cross_lane: Vec<Option<u32>>,
    /// Likewise for a texture instruction: each running lane's coordinates
    /// (s, t), what an implicit level of detail differentiates.
    pub quad_coords: Vec<Option<(u32, u32)>>,
}

/// Bytes read ahead to decode a clause (a clause is at most 8 tuples and
/// their constants: well under 256 bytes).
const FETCH_BYTES: u64 = 256;

impl<'a> Core<'a> {
    pub fn new(mmu: &'a Mmu, arch: Arch, program: Program) -> Core<'a> {
        Core {
            mmu,
            shared: None,
            arch,
            program,
            cache: HashMap::new(),
            counters: Counters::default(),
            clause_limit: clause_limit(),
            core_id: 0,
            frag: None,
            cross_lane: Vec::new(),
            quad_coords: Vec::new(),
        }
    }

    /// The clause at `va`, decoded (and cached).
    pub fn clause(&mut self, va: u64) -> Result<Arc<CachedClause>, JobFault> {
        if let Some(c) = self.cache.get(&va) {
            return Ok(c.clone());
        }
        if !va.is_multiple_of(16) || va == 0 {
            return Err(fault(status::INSTR_INVALID_PC, va));
        }
        let mut bytes = vec![0u8; FETCH_BYTES as usize];
        if let Err(f) = self.mmu.fetch(va, &mut bytes) {
            // Near the end of a BO: read what is mapped.
            if f.va <= va {
                return Err(f.into());
            }
            bytes.truncate((f.va - va) as usize);
            self.mmu.fetch(va, &mut bytes)?;
        }
        if let Some(c) = self.shared.and_then(|s| s.get(va, &bytes)) {
            self.cache.insert(va, c.clone());
            return Ok(c);
        }
        let (clause, size) = decode_clause(&bytes).map_err(|e| {
            log::error!("sim shader: undecodable clause at {va:#x}: {e}");
            fault(status::INSTR_INVALID_ENC, va)
        })?;
        let mut tuples = Vec::with_capacity(clause.tuples.len());
        for t in &clause.tuples {
            let f = exec::prepare(&t.fma, va)?;
            let a = exec::prepare(&t.add, va)?;
            tuples.push((f, a));
        }
        let cross_lane = tuples.iter().any(|(_, a)| {
            matches!(a.op, exec::Op::Clper | exec::Op::ClperOld) || exec::is_texture(a)
        });
        let cached = Arc::new(CachedClause {
            cross_lane,
            va,
            size: size as u64,
            flow: clause.header.flow(),
            instructions: clause.instruction_count() as u64,
            clause,
            tuples,
        });
        self.cache.insert(va, cached.clone());
        if let Some(s) = self.shared {
            s.insert(va, bytes, cached.clone());
        }
        Ok(cached)
    }
}
