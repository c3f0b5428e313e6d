//! The COMPUTE (and plain VERTEX) job emitter: from a [`ShaderBinary`],
//! push-uniform words, a grid and optional UBO / attribute / varying
//! tables, write the shader code, renderer state, Local Storage (TLS/WLS),
//! UBO table, push-uniform buffer and the job (header + Invocation +
//! Parameters + Draw) into GPU memory, packed with the `hw` tables.
//!
//! This module must never decide what a dispatch means for Vulkan (base
//! workgroup, indirect dispatch, descriptor sets): it encodes exactly what
//! it is given.

use super::chain::JobChain;
use super::error::{JmError, JmResult};
use super::pool::{GpuPool, SharedKey};
use crate::compiler::bifrost::binary::ShaderBinary;
use crate::hw::compute::{WorkSize, parameters};
use crate::hw::draw::dcd;
use crate::hw::job::JobType;
use crate::hw::layout::Field;
use crate::hw::shader::renderer_state as rs;
use crate::hw::shader::{
    REGISTERS_32_PER_THREAD, REGISTERS_64_PER_THREAD, compute_preload, vertex_preload,
};
use crate::hw::storage::{local_storage as ls, uniform_buffer};
use crate::hw::{Arch, layouts};

/// Attribute and attribute-buffer tables already in GPU memory (compute
/// shaders read images/texel buffers through them on Bifrost).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AttributeTables {
    pub attributes: u64,
    pub buffers: u64,
    pub count: u32,
}

/// One compute dispatch.
#[derive(Clone, Copy, Debug)]
pub struct ComputeJob<'a> {
    pub binary: &'a ShaderBinary,
    /// GPU VA of `binary.code`, uploaded into an executable BO
    /// ([`super::ShaderCode`]).
    pub code: u64,
    /// The push-uniform (FAU) words, `Preload.Uniform count` of them.
    pub push_uniforms: &'a [u64],
    pub local_size: [u32; 3],
    pub groups: [u32; 3],
    /// Uniform buffers (GPU VA, size in bytes), UBO index = position.
    pub ubos: &'a [(u64, u32)],
    pub attributes: Option<AttributeTables>,
    /// Where the push uniforms go (None: a fresh pool allocation); given
    /// when a GPU kernel patches a word before the job runs (indirect
    /// dispatches).
    pub push_buffer: Option<super::pool::GpuAlloc>,
}

/// One non-indexed VERTEX job (no IDVS): `vertices` × `instances` threads
/// with r61 = vertex id, r62 = instance id; inputs through `attributes`
/// (LD_ATTR), outputs through `varyings` (LEA_ATTR + ST_CVT). With several
/// instances `Instance Size` is the vertex count padded the hardware's way
/// ([`crate::hw::attribute::padded_vertex_count`]); per-vertex buffers then
/// use the 1D-modulus type with that divisor, per-instance data the divisor
/// types.
#[derive(Clone, Copy, Debug)]
pub struct VertexJob<'a> {
    pub binary: &'a ShaderBinary,
    /// GPU VA of `binary.code` in an executable BO ([`super::ShaderCode`]).
    pub code: u64,
    pub push_uniforms: &'a [u64],
    pub vertices: u32,
    pub instances: u32,
    /// DCD `Offset start` (first vertex).
    pub offset_start: u32,
    pub ubos: &'a [(u64, u32)],
    pub attributes: AttributeTables,
    pub varyings: AttributeTables,
}

fn pack(words: &mut [u32], f: Field, v: u64) -> JmResult<()> {
    f.set(words, v)
        .map_err(|_| JmError::Encoding("compute descriptor field overflow"))
}

/// Writes everything `job` needs and appends the COMPUTE job to `chain`.
pub fn add_compute_job(
    chain: &mut JobChain,
    pool: &mut GpuPool,
    arch: Arch,
    job: &ComputeJob<'_>,
    dependencies: [u16; 2],
) -> JmResult<u16> {
    add_compute_job_with_textures(chain, pool, arch, job, None, dependencies)
}

/// [`add_compute_job`] for a shader that samples: the DCD points at
/// `textures`' tables and the renderer state counts them
/// ([`super::texture::write_texture_tables`]).
pub fn add_compute_job_with_textures(
    chain: &mut JobChain,
    pool: &mut GpuPool,
    arch: Arch,
    job: &ComputeJob<'_>,
    textures: Option<super::texture::TextureTables>,
    dependencies: [u16; 2],
) -> JmResult<u16> {
    let preload_mask = job.binary.preloads.compute_bits();
    let ws = WorkSize {
        size: job.local_size,
        count: job.groups,
    };
    emit(
        chain,
        pool,
        arch,
        &Emit {
            binary: job.binary,
            code: job.code,
            push_uniforms: job.push_uniforms,
            push_buffer: job.push_buffer,
            ubos: job.ubos,
            attributes: job.attributes,
            varyings: None,
            preload_fields: &COMPUTE_PRELOADS,
            preload_mask,
            work: ws,
            graphics: false,
            invocation_error: "work size does not fit the invocation encoding",
            task_split: ws.compute_job_task_split(),
            job_type: JobType::Compute,
            groups: wls_instances(job.groups),
            offset_start: 0,
            instance_size: 1,
            textures,
        },
        dependencies,
    )
}

/// Writes everything `job` needs and appends the VERTEX job to `chain`.
pub fn add_vertex_job(
    chain: &mut JobChain,
    pool: &mut GpuPool,
    arch: Arch,
    job: &VertexJob<'_>,
    dependencies: [u16; 2],
) -> JmResult<u16> {
    add_vertex_job_with_textures(chain, pool, arch, job, None, dependencies)
}

/// [`add_vertex_job`] for a vertex shader that samples
/// ([`super::texture::write_texture_tables`]).
pub fn add_vertex_job_with_textures(
    chain: &mut JobChain,
    pool: &mut GpuPool,
    arch: Arch,
    job: &VertexJob<'_>,
    textures: Option<super::texture::TextureTables>,
    dependencies: [u16; 2],
) -> JmResult<u16> {
    if job.binary.varying_count() > job.varyings.count {
        return Err(JmError::Encoding(
            "fewer varying records than the shader writes",
        ));
    }
    let preload_mask = job.binary.preloads.vertex_bits();
    emit(
        chain,
        pool,
        arch,
        &Emit {
            binary: job.binary,
            code: job.code,
            push_uniforms: job.push_uniforms,
            push_buffer: None,
            ubos: job.ubos,
            attributes: Some(job.attributes),
            varyings: Some(job.varyings),
            preload_fields: &VERTEX_PRELOADS,
            preload_mask,
            work: WorkSize::vertices(job.vertices, job.instances),
            graphics: true,
            invocation_error: "vertex count does not fit the invocation encoding",
            task_split: parameters::VERTEX_JOB_TASK_SPLIT as u32,
            job_type: JobType::Vertex,
            groups: 1,
            offset_start: job.offset_start,
            instance_size: vertex_instance_size(job.vertices, job.instances)?,
            textures,
        },
        dependencies,
    )
}

/// The DCD's `Instance Size` of a VERTEX job: when instanced, the padded
/// vertex count the hardware itself derives from the Invocation's vertex
/// count ([`crate::hw::attribute::padded_vertex_count`], Mesa's
/// `panfrost_padded_vertex_count`; PanVk's `panvk_emit_vertex_dcd` writes
/// the same), else 1. Not the smallest encodable count: the two differ for
/// about 40% of counts (11 → 12, 20 → 24, 32 → 36).
pub fn vertex_instance_size(vertices: u32, instances: u32) -> JmResult<u64> {
    if instances > 1 {
        let padded = crate::hw::attribute::padded_vertex_count(vertices);
        match crate::hw::layout::encode_padded(padded) {
            Some(_) => Ok(padded),
            None => Err(JmError::Encoding("vertex count cannot be padded")),
        }
    } else {
        Ok(1)
    }
}

/// Workgroup-local storage instances per shader core for a grid of
/// `groups` workgroups: `npot(x) × npot(y) × npot(z)`, what the workgroup id
/// bit fields of the Invocation span (Mesa `src/panfrost/lib/pan_desc.h`,
/// `pan_wls_instances`, used by PanVk's `panvk_vX_cmd_dispatch.c`).
pub fn wls_instances(groups: [u32; 3]) -> u64 {
    groups
        .iter()
        .map(|&g| u64::from(g.max(1)).next_power_of_two())
        .product()
}

/// The core-id range of the device (highest set bit of GET_PARAM
/// `SHADER_PRESENT` + 1, as in `super::tls`): workgroup memory has one
/// block of instances per possible core id.
fn core_id_range(device: &crate::kmod::Device) -> JmResult<u64> {
    let present = device
        .kernel()
        .get_param(crate::kmod::Param::ShaderPresent)
        .ok()
        .filter(|&p| p != 0)
        .ok_or(JmError::Encoding(
            "SHADER_PRESENT unknown: cannot size workgroup-local storage",
        ))?;
    Ok(u64::from(64 - present.leading_zeros()))
}

/// The compute preloads, in the order of `Preloads::compute_bits`.
static COMPUTE_PRELOADS: [Field; 8] = [
    compute_preload::LOCAL_INVOCATION_XY,
    compute_preload::LOCAL_INVOCATION_Z,
    compute_preload::WORK_GROUP_X,
    compute_preload::WORK_GROUP_Y,
    compute_preload::WORK_GROUP_Z,
    compute_preload::GLOBAL_INVOCATION_X,
    compute_preload::GLOBAL_INVOCATION_Y,
    compute_preload::GLOBAL_INVOCATION_Z,
];

/// The vertex preloads (vertex and capture jobs), in the order of
/// `Preloads::vertex_bits`.
pub(super) static VERTEX_PRELOADS: [Field; 2] =
    [vertex_preload::VERTEX_ID, vertex_preload::INSTANCE_ID];

/// What one shader job needs, however its caller describes it (compute,
/// vertex, and the XFB capture job of `super::xfb`).
pub(super) struct Emit<'a> {
    pub(super) binary: &'a ShaderBinary,
    pub(super) code: u64,
    pub(super) push_uniforms: &'a [u64],
    /// Where the push uniforms go (None: a fresh pool allocation). A caller
    /// gives one when a GPU kernel must patch a word before the job runs.
    pub(super) push_buffer: Option<super::pool::GpuAlloc>,
    pub(super) ubos: &'a [(u64, u32)],
    pub(super) attributes: Option<AttributeTables>,
    pub(super) varyings: Option<AttributeTables>,
    /// The renderer state's preload fields and which of them are set (bit
    /// i: `preload_fields[i]`).
    pub(super) preload_fields: &'static [Field],
    pub(super) preload_mask: u64,
    /// The grid, packed the graphics way (vertex-typed jobs) or the
    /// compute way, and what to say when it does not fit.
    pub(super) work: WorkSize,
    pub(super) graphics: bool,
    pub(super) invocation_error: &'static str,
    pub(super) task_split: u32,
    pub(super) job_type: JobType,
    /// Workgroup-local storage instances per shader core the grid needs
    /// ([`wls_instances`]; 1 for jobs without workgroup memory).
    pub(super) groups: u64,
    pub(super) offset_start: u32,
    pub(super) instance_size: u64,
    /// Texture and sampler tables (`super::texture`), if the shader samples.
    pub(super) textures: Option<super::texture::TextureTables>,
}

pub(super) fn emit(
    chain: &mut JobChain,
    pool: &mut GpuPool,
    arch: Arch,
    job: &Emit<'_>,
    dependencies: [u16; 2],
) -> JmResult<u16> {
    let b = job.binary;

    // Shader code: uploaded once by its owner into an executable BO
    // (command-buffer pools are NOEXEC, as PanVk's are).
    if job.code == 0 || !job.code.is_multiple_of(128) {
        return Err(JmError::Encoding(
            "shader code address not 128-byte aligned",
        ));
    }

    // The UBO table: at least the entries the shader indexes
    // (`ShaderBinary::ubos`).
    if job.ubos.len() < b.ubo_count as usize {
        return Err(JmError::Encoding(
            "fewer UBO table entries than the shader reads",
        ));
    }
    // Push uniforms.
    if job.push_uniforms.len() < b.uniform_words as usize {
        return Err(JmError::Encoding(
            "fewer push-uniform words than the shader preloads",
        ));
    }
    let push_va = if job.push_uniforms.is_empty() {
        0
    } else {
        let bytes = 8 * job.push_uniforms.len() as u64;
        let push = match job.push_buffer {
            Some(b) if b.size >= bytes && b.gpu_va.is_multiple_of(16) => b,
            Some(_) => {
                return Err(JmError::Encoding(
                    "push-uniform buffer too small or misaligned",
                ));
            }
            None => pool.alloc(bytes, 16)?,
        };
        push.write_u64s(0, job.push_uniforms);
        push.gpu_va
    };

    // The renderer state is a function of the program and the counts
    // below, so written once per recording and shared (`GpuPool::shared`).
    let preload_mask = job.preload_mask;
    let rsd = [
        job.code,
        (job.ubos.len() as u64) << 32 | u64::from(job.attributes.map_or(0, |a| a.count)),
        job.varyings.map_or(0, |v| u64::from(v.count) + 1) << 32
            | preload_mask << 8
            | u64::from(job.job_type as u8),
        job.textures.map_or(0, |t| {
            u64::from(t.texture_count) << 32 | u64::from(t.sampler_count)
        }),
    ];
    // The job payload: Invocation, Parameters, Draw. Consecutive jobs of
    // one program (a draw's capture job, the advance kernel after it) pack
    // the same words but for the push-uniform pointer: the pool's memo
    // keeps the last few payloads by what they are made of. Jobs with a
    // UBO table or local memory of their own get fresh descriptors.
    let memo = job.ubos.is_empty() && b.tls_size == 0 && b.shared_size == 0;
    let key = PayloadKey {
        arch,
        rsd,
        work: job.work,
        graphics: job.graphics,
        task_split: job.task_split,
        attributes: job.attributes.map_or([0; 2], |a| [a.attributes, a.buffers]),
        varyings: job.varyings.map_or([0; 2], |v| [v.attributes, v.buffers]),
        offset_start: job.offset_start,
        instance_size: job.instance_size,
        textures: job.textures.map_or([0; 2], |t| [t.textures, t.samplers]),
    };
    let remembered = if memo { pool.payloads.get(&key) } else { None };
    let mut job_words = match remembered {
        Some(w) => w,
        None => {
            let w = pack_payload(pool, arch, job, &key)?;
            if memo {
                pool.payloads.put(key, w);
            }
            w
        }
    };
    let t = super::templates::templates(arch);
    let words = job_words.as_mut_slice();
    pack(t.draw.words_mut(words), dcd::PUSH_UNIFORMS, push_va)?;
    let payload = &words[crate::hw::job::PAYLOAD_OFFSET as usize / 4..];
    chain.add_job(pool, job.job_type, payload, dependencies, false)
}

/// Everything a compute/vertex job payload is packed from but the
/// push-uniform pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PayloadKey {
    arch: Arch,
    /// The renderer state's key (`SharedKey::RendererState`).
    rsd: [u64; 4],
    work: WorkSize,
    graphics: bool,
    task_split: u32,
    attributes: [u64; 2],
    varyings: [u64; 2],
    offset_start: u32,
    instance_size: u64,
    textures: [u64; 2],
}

/// The last [`PayloadMemo::SLOTS`] payloads packed, by key. The renderer
/// state a payload points to is the pool's shared one, so the pool
/// forgets its payloads on reset, with that memory.
#[derive(Default)]
pub(super) struct PayloadMemo {
    slots: [Option<(PayloadKey, super::templates::Words)>; PayloadMemo::SLOTS],
    next: usize,
}

impl PayloadMemo {
    const SLOTS: usize = 4;

    fn get(&self, key: &PayloadKey) -> Option<super::templates::Words> {
        self.slots
            .iter()
            .flatten()
            .find(|(k, _)| k == key)
            .map(|(_, w)| *w)
    }

    fn put(&mut self, key: PayloadKey, words: super::templates::Words) {
        self.slots[self.next] = Some((key, words));
        self.next = (self.next + 1) % Self::SLOTS;
    }
}

/// The payload words of `job` (push-uniform pointer 0), and the
/// descriptors they point to.
fn pack_payload(
    pool: &mut GpuPool,
    arch: Arch,
    job: &Emit<'_>,
    key: &PayloadKey,
) -> JmResult<super::templates::Words> {
    let b = job.binary;
    let state_va = pool.shared(SharedKey::RendererState(key.rsd), |pool| {
        renderer_state(pool, arch, job)
    })?;
    // UBO table.
    let ubo_va = if job.ubos.is_empty() {
        0
    } else {
        let table = pool.alloc(8 * job.ubos.len() as u64, 64)?;
        let mut words = vec![0u32; 2 * job.ubos.len()];
        for (i, &(va, size)) in job.ubos.iter().enumerate() {
            let entry = &mut words[2 * i..2 * i + 2];
            let entries = u64::from(size).div_ceil(16).max(1);
            pack(entry, uniform_buffer::ENTRIES, entries)?;
            pack(entry, uniform_buffer::POINTER, va)?;
        }
        table.write_words(0, &words);
        table.gpu_va
    };
    // Local storage (`local_storage`); one shared descriptor for the jobs
    // that use no thread- or workgroup-local memory. A TLS buffer is not
    // shared: two jobs of a chain may run at once.
    let storage_va = if b.tls_size == 0 && b.shared_size == 0 {
        pool.shared(SharedKey::EmptyLocalStorage, |pool| {
            local_storage(pool, arch, job)
        })?
    } else {
        local_storage(pool, arch, job)?
    };
    let invocation = if key.graphics {
        key.work.pack_graphics()
    } else {
        key.work.pack_compute()
    }
    .map_err(|_| JmError::Encoding(job.invocation_error))?;

    let t = super::templates::templates(arch);
    let mut job_words = t.compute_job;
    let words = job_words.as_mut_slice();
    t.invocation.words_mut(words).copy_from_slice(&invocation);
    pack(
        t.parameters.words_mut(words),
        parameters::JOB_TASK_SPLIT,
        u64::from(key.task_split),
    )?;
    let draw = t.draw.words_mut(words);
    pack(draw, dcd::STATE, state_va)?;
    pack(draw, dcd::UNIFORM_BUFFERS, ubo_va)?;
    pack(draw, dcd::THREAD_STORAGE, storage_va)?;
    if let Some(a) = job.attributes {
        pack(draw, dcd::ATTRIBUTES, a.attributes)?;
        pack(draw, dcd::ATTRIBUTE_BUFFERS, a.buffers)?;
    }
    if let Some(v) = job.varyings {
        pack(draw, dcd::VARYINGS, v.attributes)?;
        pack(draw, dcd::VARYING_BUFFERS, v.buffers)?;
    }
    if let Some(t) = job.textures {
        pack(draw, dcd::TEXTURES, t.textures)?;
        pack(draw, dcd::SAMPLERS, t.samplers)?;
    }
    pack(draw, dcd::OFFSET_START, u64::from(key.offset_start))?;
    pack(draw, dcd::INSTANCE_SIZE, key.instance_size)?;
    Ok(job_words)
}

/// Writes `job`'s local-storage descriptor: TLS sized by the binary and the
/// device (`super::tls`); WLS as Mesa sizes it (`pan_wls_adjust_size`,
/// `pan_wls_instances` in `src/panfrost/lib/pan_desc.h`; PanVk's dispatch
/// multiplies by the core-id range): next_pow2(max(bytes, 128)) per
/// instance, `job.groups` instances per core, one block of them per core
/// id, since the instance count the descriptor gives is per shader core.
fn local_storage(pool: &mut GpuPool, arch: Arch, job: &Emit<'_>) -> JmResult<u64> {
    let t = super::templates::templates(arch);
    let l = layouts(arch);
    let b = job.binary;
    let mut lsw_words = t.local_storage;
    let lsw = lsw_words.as_mut_slice();
    super::tls::emit_thread_storage(pool, arch, lsw, b.tls_size)?;
    if b.shared_size > 0 {
        let w = WlsLayout::new(pool.device(), b.shared_size, job.groups)?;
        let wls = pool.alloc(w.total, 4096)?;
        wls.zero(0, w.total);
        w.pack(lsw, wls.gpu_va)?;
    }
    let storage = pool.alloc(l.local_storage.bytes() as u64, 64)?;
    storage.write_words(0, lsw);
    pool.last_local_storage = storage.gpu_va;
    Ok(storage.gpu_va)
}

/// How much workgroup-local storage a grid needs ([`local_storage`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WlsLayout {
    /// Bytes per instance: next_pow2(max(shared bytes, 128)).
    size: u64,
    /// Instances per shader core ([`wls_instances`]).
    instances: u64,
    /// Bytes of the whole buffer (one block of instances per core id).
    pub total: u64,
}

impl WlsLayout {
    /// For `shared_size` bytes per workgroup and `instances` instances per
    /// core on `device`.
    pub fn new(device: &crate::kmod::Device, shared_size: u32, instances: u64) -> JmResult<Self> {
        let size = u64::from(shared_size).max(128).next_power_of_two();
        let instances = instances.max(1);
        if instances >= ls::NO_WORKGROUP_MEM {
            return Err(JmError::Encoding(
                "too many workgroup-local storage instances",
            ));
        }
        let cores = core_id_range(device)?;
        let total = size
            .checked_mul(instances)
            .and_then(|b| b.checked_mul(cores))
            .ok_or(JmError::Encoding("workgroup-local storage too large"))?;
        Ok(WlsLayout {
            size,
            instances,
            total,
        })
    }

    /// Write the WLS fields of a local-storage descriptor's words.
    fn pack(&self, lsw: &mut [u32], base: u64) -> JmResult<()> {
        pack(lsw, ls::WLS_INSTANCES, self.instances)?;
        pack(
            lsw,
            ls::WLS_SIZE_SCALE,
            u64::from(self.size.trailing_zeros()) + 1,
        )?;
        pack(lsw, ls::WLS_BASE_POINTER, base)
    }

    /// Rewrite the WLS fields of the local-storage descriptor at
    /// `descriptor` (GPU VA, in a BO of `device`) for a buffer at `base`:
    /// how a dispatch whose grid is known only when it runs
    /// (vkCmdDispatchIndirect) gets its workgroup memory
    /// (`Recorder::compute_deferred_wls`).
    pub fn patch(
        &self,
        device: &crate::kmod::Device,
        arch: Arch,
        descriptor: u64,
        base: u64,
    ) -> JmResult<()> {
        let bytes = layouts(arch).local_storage.bytes();
        let mut raw = vec![0u8; bytes];
        device.read_va(descriptor, &mut raw)?;
        let mut words: Vec<u32> = raw
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        self.pack(&mut words, base)?;
        let raw: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        device.write_va(descriptor, &raw)?;
        Ok(())
    }
}

/// Writes the renderer state of `job`'s program (the pool caches it).
fn renderer_state(pool: &mut GpuPool, arch: Arch, job: &Emit<'_>) -> JmResult<u64> {
    let t = super::templates::templates(arch);
    let l = layouts(arch);
    let b = job.binary;
    let mut rsd_words = t.renderer_state;
    let rsd = rsd_words.as_mut_slice();
    pack(rsd, rs::SHADER_ADDRESS, job.code)?;
    pack(rsd, rs::UNIFORM_BUFFER_COUNT, job.ubos.len() as u64)?;
    pack(
        rsd,
        rs::ATTRIBUTE_COUNT,
        job.attributes.map_or(0, |a| a.count) as u64,
    )?;
    pack(rsd, rs::SHADER_CONTAINS_BARRIER, u64::from(b.uses_barrier))?;
    pack(rsd, rs::PRELOAD_UNIFORM_COUNT, u64::from(b.uniform_words))?;
    if let Some(f) = t.register_allocation {
        let alloc = if b.work_registers <= 32 {
            REGISTERS_32_PER_THREAD
        } else {
            REGISTERS_64_PER_THREAD
        };
        pack(rsd, f, alloc)?;
    }
    if let Some(v) = job.varyings {
        pack(rsd, rs::VARYING_COUNT, u64::from(v.count))?;
    }
    if let Some(t) = job.textures {
        pack(rsd, rs::TEXTURE_COUNT, u64::from(t.texture_count))?;
        pack(rsd, rs::SAMPLER_COUNT, u64::from(t.sampler_count))?;
    }
    for (i, &f) in job.preload_fields.iter().enumerate() {
        let on = job.preload_mask >> i & 1;
        pack(rsd, f.at(rs::PRELOAD.start), on)?;
    }
    let state = pool.alloc(l.renderer_state.bytes() as u64, 64)?;
    state.write_words(0, rsd);
    Ok(state.gpu_va)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wls_instances_round_each_dimension() {
        assert_eq!(wls_instances([1, 1, 1]), 1);
        assert_eq!(wls_instances([5, 3, 1]), 8 * 4);
        // One power of two for the whole grid would give 32 here.
        assert_eq!(wls_instances([3, 3, 3]), 64);
        assert_eq!(wls_instances([4, 2, 0]), 8);
    }
}
