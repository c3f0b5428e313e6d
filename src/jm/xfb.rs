//! The XFB capture job emitter: the job the driver emits per draw to run a
//! pipeline's **XFB variant** (`compiler::passes::lower_xfb`), packed with
//! the `hw` tables exactly per the variant's launch contract:
//!
//! - a COMPUTE-layout job descriptor with job type VERTEX,
//!   1×1×1 workgroups, grid `(1, V, instance_count)` with
//!   `V = prims_per_instance × verts_per_prim` (Invocation packed the
//!   graphics way, `Job Task Split` of vertex jobs);
//! - renderer state with the *vertex* preloads the binary asks for
//!   (r61 = captured vertex within the instance, r62 = instance id),
//!   `Preload.Uniform count` FAU words, the attribute count;
//! - DRAW: the draw's attribute / attribute-buffer tables, `Offset start`
//!   and `Instance Size`, the variant's own push uniforms (its
//!   `PushUniformLayout` filled with the draw's `SysvalBlock`, XFB
//!   parameters included), thread storage; no varyings, no position.
//!
//! An empty grid (`V = 0` or no instances) emits nothing: the caller gets
//! `None` and must not wait on a job index.
//!
//! Like [`super::compute`], this module encodes what it is given and never
//! decides what a draw means (parameters, offsets, restart resolution are
//! the caller's).

use super::chain::JobChain;
use super::compute::AttributeTables;
use super::pool::GpuPool;
use crate::compiler::bifrost::binary::ShaderBinary;
use crate::hw::compute::{WorkSize, parameters};
use crate::hw::draw::dcd;
use crate::hw::job::JobType;
use crate::hw::layout::Field;
use crate::hw::shader::renderer_state as rs;
use crate::hw::shader::{REGISTERS_32_PER_THREAD, REGISTERS_64_PER_THREAD, vertex_preload};
use crate::hw::{Arch, layouts};
use crate::kmod::{KmodError, KmodResult};

/// One XFB capture job (one per draw).
#[derive(Clone, Copy, Debug)]
pub struct XfbJob<'a> {
    /// The compiled XFB variant.
    pub binary: &'a ShaderBinary,
    /// The push-uniform (FAU) bytes: the variant's `PushUniformLayout::fill`
    /// output, at least `8 × binary.uniform_words` bytes.
    pub push_uniforms: &'a [u8],
    /// Captured vertices per instance: `prims_per_instance × verts_per_prim`
    /// (`XfbDraw::invocations_per_instance`).
    pub invocations_per_instance: u32,
    pub instance_count: u32,
    /// The draw's attribute tables (shared with its vertex job).
    pub attributes: Option<AttributeTables>,
    /// The draw's `Offset start` (raw vertex offset).
    pub offset_start: u32,
    /// The draw's `Instance Size` (must be a padded count; 1 when not instanced).
    pub instance_size: u32,
}

fn pack(words: &mut [u32], f: Field, v: u64) -> KmodResult<()> {
    f.set(words, v)
        .map_err(|_| KmodError::Invalid("XFB job descriptor field overflow"))
}

/// Writes everything `job` needs and appends the VERTEX-typed capture job to
/// `chain`. Returns the job index, or `None` when the grid is empty.
pub fn add_xfb_job(
    chain: &mut JobChain,
    pool: &mut GpuPool,
    arch: Arch,
    job: &XfbJob<'_>,
    dependencies: [u16; 2],
) -> KmodResult<Option<u16>> {
    if job.invocations_per_instance == 0 || job.instance_count == 0 {
        return Ok(None);
    }
    // The capture job has no varying tables (facts: mesa-panfrost.md §1.4,
    // §9.4): a binary that stores varyings is a rasterization variant.
    if !job.binary.varyings.is_empty() {
        return Err(KmodError::Invalid(
            "the XFB job has no varyings: binary stores varyings",
        ));
    }
    let l = layouts(arch);
    let b = job.binary;
    let ws = WorkSize::vertices(job.invocations_per_instance, job.instance_count);
    let invocation = ws
        .pack_graphics()
        .map_err(|_| KmodError::Invalid("XFB grid does not fit the invocation encoding"))?;

    // Shader code (128-byte aligned; the binary carries its prefetch padding).
    let code = pool.alloc(b.code.len().max(128) as u64, 128)?;
    code.write_bytes(0, &b.code);

    // Renderer state: vertex preloads.
    let mut rsd = l.renderer_state.defaults();
    pack(&mut rsd, rs::SHADER_ADDRESS, code.gpu_va)?;
    pack(
        &mut rsd,
        rs::ATTRIBUTE_COUNT,
        job.attributes.map_or(0, |a| a.count) as u64,
    )?;
    pack(
        &mut rsd,
        rs::PRELOAD_UNIFORM_COUNT,
        u64::from(b.uniform_words),
    )?;
    if let Some(f) = l
        .renderer_state
        .lookup("Properties.Shader register allocation")
    {
        let alloc = if b.work_registers <= 32 {
            REGISTERS_32_PER_THREAD
        } else {
            REGISTERS_64_PER_THREAD
        };
        pack(&mut rsd, f, alloc)?;
    }
    pack(
        &mut rsd,
        vertex_preload::VERTEX_ID.at(rs::PRELOAD.start),
        u64::from(b.preloads.vertex_id),
    )?;
    pack(
        &mut rsd,
        vertex_preload::INSTANCE_ID.at(rs::PRELOAD.start),
        u64::from(b.preloads.instance_id),
    )?;
    let state = pool.alloc(l.renderer_state.bytes() as u64, 64)?;
    state.write_words(0, &rsd);

    // Push uniforms.
    let need = 8 * b.uniform_words as usize;
    if job.push_uniforms.len() < need {
        return Err(KmodError::Invalid(
            "fewer push-uniform bytes than the XFB variant preloads",
        ));
    }
    let push_va = if need == 0 {
        0
    } else {
        let push = pool.alloc(job.push_uniforms.len().next_multiple_of(8) as u64, 16)?;
        push.write_bytes(0, job.push_uniforms);
        push.gpu_va
    };

    // Thread storage: TLS when the variant spills (`super::tls`); no WLS
    // (a vertex-typed job has no workgroup memory).
    if b.shared_size > 0 {
        return Err(KmodError::Invalid("XFB variant needs workgroup storage"));
    }
    let mut lsw = l.local_storage.defaults();
    super::tls::emit_thread_storage(pool, arch, &mut lsw, b.tls_size)?;
    let storage = pool.alloc(l.local_storage.bytes() as u64, 64)?;
    storage.write_words(0, &lsw);

    // The job payload: Invocation, Parameters, Draw.
    let agg = l.compute_job;
    let mut words = agg.defaults();
    let section = |name: &str| agg.section(name).expect("compute job section");
    section("Invocation")
        .words_mut(&mut words)
        .copy_from_slice(&invocation);
    pack(
        section("Parameters").words_mut(&mut words),
        parameters::JOB_TASK_SPLIT,
        parameters::VERTEX_JOB_TASK_SPLIT,
    )?;
    let draw = section("Draw").words_mut(&mut words);
    pack(draw, dcd::STATE, state.gpu_va)?;
    pack(draw, dcd::PUSH_UNIFORMS, push_va)?;
    pack(draw, dcd::THREAD_STORAGE, storage.gpu_va)?;
    pack(draw, dcd::OFFSET_START, u64::from(job.offset_start))?;
    pack(
        draw,
        dcd::INSTANCE_SIZE,
        u64::from(job.instance_size.max(1)),
    )?;
    if let Some(a) = job.attributes {
        pack(draw, dcd::ATTRIBUTES, a.attributes)?;
        pack(draw, dcd::ATTRIBUTE_BUFFERS, a.buffers)?;
    }
    let payload = &words[crate::hw::job::PAYLOAD_OFFSET as usize / 4..];
    chain
        .add_job(pool, JobType::Vertex, payload, dependencies, false)
        .map(Some)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::hw::job::header;
    use crate::kmod::Device;
    use crate::kmod::sim::{SimDevice, SimModel};

    fn pool() -> GpuPool {
        GpuPool::new(Arc::new(Device::with_dump_dir(
            Box::new(SimDevice::new(SimModel::G52)),
            None,
        )))
    }

    fn binary(uniform_words: u32) -> ShaderBinary {
        let mut b = ShaderBinary {
            code: vec![0; 256],
            uniform_words,
            ..ShaderBinary::default()
        };
        b.preloads.vertex_id = true;
        b.preloads.instance_id = true;
        b
    }

    fn job<'a>(b: &'a ShaderBinary, push: &'a [u8], v: u32, instances: u32) -> XfbJob<'a> {
        XfbJob {
            binary: b,
            push_uniforms: push,
            invocations_per_instance: v,
            instance_count: instances,
            attributes: None,
            offset_start: 0,
            instance_size: 1,
        }
    }

    #[test]
    fn empty_grids_emit_no_job() {
        let mut pool = pool();
        let mut chain = JobChain::new();
        let b = binary(0);
        for (v, i) in [(0, 1), (3, 0), (0, 0)] {
            let r = add_xfb_job(&mut chain, &mut pool, Arch::V7, &job(&b, &[], v, i), [0, 0]);
            assert_eq!(r.unwrap(), None);
        }
        assert_eq!(chain.head(), 0);
    }

    #[test]
    fn one_vertex_typed_job_per_draw() {
        let mut pool = pool();
        let mut chain = JobChain::new();
        let b = binary(2);
        let push = [0u8; 16];
        for arch in [Arch::V6, Arch::V7] {
            let r = add_xfb_job(&mut chain, &mut pool, arch, &job(&b, &push, 21, 3), [0, 0]);
            assert!(r.unwrap().is_some());
        }
        for i in 0..2 {
            chain.read_header(i, |w| {
                assert_eq!(header::TYPE.get(w), JobType::Vertex as u64);
            });
        }
        // A rasterization variant (it stores varyings) is refused.
        let mut raster = binary(2);
        raster.varyings =
            vec![crate::compiler::bifrost::binary::VaryingStore { index: 0, words: 4 }];
        let r = add_xfb_job(
            &mut chain,
            &mut pool,
            Arch::V7,
            &job(&raster, &push, 3, 1),
            [0, 0],
        );
        assert!(r.is_err());
        // Too few push-uniform bytes for what the binary preloads.
        let r = add_xfb_job(
            &mut chain,
            &mut pool,
            Arch::V7,
            &job(&b, &push[..8], 3, 1),
            [0, 0],
        );
        assert!(r.is_err());
    }
}
