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
//! - DRAW: the draw's attribute / attribute-buffer tables (linear, by
//!   element index: `compiler::passes::lower_xfb`), `Offset start` and
//!   `Instance Size` as the caller gives them (0 and 1 for the
//!   variant's contract), the variant's own push uniforms (its
//!   `PushUniformLayout` filled with the draw's `SysvalBlock`, XFB
//!   parameters included), thread storage; no varyings, no position.
//!
//! An empty grid (`V = 0` or no instances) emits nothing: the caller gets
//! `None` and must not wait on a job index.
//!
//! The descriptors themselves are written by the shared emitter of
//! [`super::compute`] (the capture job is a vertex job without UBOs,
//! varyings or workgroup memory). Like it, this module encodes what it is
//! given and never decides what a draw means (parameters, offsets, restart
//! resolution are the caller's).

use super::chain::JobChain;
use super::compute::{AttributeTables, Emit, VERTEX_PRELOADS, emit};
use super::error::{JmError, JmResult};
use super::pool::GpuPool;
use crate::compiler::bifrost::binary::ShaderBinary;
use crate::hw::Arch;
use crate::hw::compute::{WorkSize, parameters};
use crate::hw::job::JobType;

/// One XFB capture job (one per draw).
#[derive(Clone, Copy, Debug)]
pub struct XfbJob<'a> {
    /// The compiled XFB variant.
    pub binary: &'a ShaderBinary,
    /// GPU VA of its code in an executable BO ([`super::ShaderCode`]).
    pub code: u64,
    /// Where the FAU words go (None: a fresh pool allocation); given when a
    /// GPU kernel patches a parameter word before the job runs (restart).
    pub push_buffer: Option<super::pool::GpuAlloc>,
    /// The push-uniform (FAU) words: the variant's
    /// `PushUniformLayout::fill_words` output, at least `binary.uniform_words`.
    pub push_uniforms: &'a [u64],
    /// Uniform buffers (GPU VA, size in bytes), UBO index = position
    /// (`ShaderBinary::ubos`).
    pub ubos: &'a [(u64, u32)],
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

/// Writes everything `job` needs and appends the VERTEX-typed capture job to
/// `chain`. Returns the job index, or `None` when the grid is empty.
pub fn add_xfb_job(
    chain: &mut JobChain,
    pool: &mut GpuPool,
    arch: Arch,
    job: &XfbJob<'_>,
    dependencies: [u16; 2],
) -> JmResult<Option<u16>> {
    if job.invocations_per_instance == 0 || job.instance_count == 0 {
        return Ok(None);
    }
    let b = job.binary;
    // The capture job has no varying tables (docs/DESIGN.md, "Transform
    // feedback"): a binary that stores varyings is a rasterization variant.
    if !b.varyings.is_empty() {
        return Err(JmError::Encoding(
            "the XFB job has no varyings: binary stores varyings",
        ));
    }
    // A vertex-typed job has no workgroup memory.
    if b.shared_size > 0 {
        return Err(JmError::Encoding("XFB variant needs workgroup storage"));
    }
    if job.push_uniforms.len() < b.uniform_words as usize {
        return Err(JmError::Encoding(
            "fewer push-uniform words than the XFB variant preloads",
        ));
    }
    let preload_mask = b.preloads.vertex_bits();
    emit(
        chain,
        pool,
        arch,
        &Emit {
            binary: b,
            code: job.code,
            push_uniforms: job.push_uniforms,
            push_buffer: job.push_buffer,
            ubos: job.ubos,
            attributes: job.attributes,
            varyings: None,
            preload_fields: &VERTEX_PRELOADS,
            preload_mask,
            work: WorkSize::vertices(job.invocations_per_instance, job.instance_count),
            graphics: true,
            invocation_error: "XFB grid does not fit the invocation encoding",
            task_split: parameters::VERTEX_JOB_TASK_SPLIT as u32,
            job_type: JobType::Vertex,
            groups: 1,
            offset_start: job.offset_start,
            instance_size: u64::from(job.instance_size.max(1)),
            textures: None,
        },
        dependencies,
    )
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

    fn job<'a>(b: &'a ShaderBinary, push: &'a [u64], v: u32, instances: u32) -> XfbJob<'a> {
        XfbJob {
            binary: b,
            // Never fetched: these jobs are only encoded.
            code: 0x10_0000,
            push_buffer: None,
            push_uniforms: push,
            ubos: &[],
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
        let push = [0u64; 2];
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
        // Too few push-uniform words for what the binary preloads.
        let r = add_xfb_job(
            &mut chain,
            &mut pool,
            Arch::V7,
            &job(&b, &push[..1], 3, 1),
            [0, 0],
        );
        assert!(r.is_err());
    }
}
