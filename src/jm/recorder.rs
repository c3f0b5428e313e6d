//! The chain a command buffer is appending to: its job chain, the GPU
//! memory pool its descriptors come from, the architecture the descriptors
//! are packed for, and every BO the jobs reach (so a submit can list them:
//! the kernel only pins and synchronises BOs named in SUBMIT).
//!
//! Ordering: jobs name the earlier jobs they need (`dependencies`). On top
//! of that, [`Recorder::barrier`] makes the next job wait for every job
//! before it (the job header's `Barrier` bit), which is how pipeline
//! barriers, events and query writes order work that has no direct
//! producer–consumer link.
//!
//! This type never decides what a Vulkan command means; `vk::cmd` does.

use rustc_hash::FxHashSet;
use std::sync::Arc;

use super::chain::JobChain;
use super::compute::{ComputeJob, VertexJob, add_compute_job, add_vertex_job};
use super::error::{JmError, JmResult};
use super::pool::{GpuAlloc, GpuPool};
use super::xfb::{XfbJob, add_xfb_job};
use crate::hw::Arch;
use crate::hw::job::JobType;
use crate::kmod::{BoHandle, Device};

pub struct Recorder {
    pub arch: Arch,
    /// Changes whenever the pool's memory and the BO set are forgotten
    /// (new recorder, reset): what a caller remembers of this recorder's
    /// allocations is valid while the epoch is the same.
    epoch: u64,
    chain: JobChain,
    pool: GpuPool,
    /// BOs outside the pool that the jobs read or write.
    extra_bos: FxHashSet<BoHandle>,
    /// The last few handles [`Recorder::use_bo`] inserted (a draw names
    /// the same handful of BOs again and again).
    recent_bos: [BoHandle; 8],
    /// The attribute tables written last and what they describe
    /// (`super::attributes::shared_attribute_tables`).
    pub(super) last_attributes: Option<(
        Vec<super::attributes::AttributeBuffer>,
        Vec<super::attributes::AttributeRecord>,
        super::compute::AttributeTables,
    )>,
}

fn next_epoch() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Recorder {
    pub fn new(device: Arc<Device>, arch: Arch) -> Recorder {
        Recorder {
            arch,
            epoch: next_epoch(),
            chain: JobChain::new(),
            pool: GpuPool::new(device),
            extra_bos: FxHashSet::default(),
            recent_bos: [0; 8],
            last_attributes: None,
        }
    }

    /// Forget every job and allocation (the pool keeps its BOs for reuse).
    pub fn reset(&mut self) {
        self.epoch = next_epoch();
        self.chain.clear();
        self.pool.reset();
        self.extra_bos.clear();
        self.recent_bos = [0; 8];
        self.last_attributes = None;
    }

    /// See the field: unique per recorder and reset, process-wide.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    pub fn chain(&self) -> &JobChain {
        &self.chain
    }

    /// GPU VA of job `index` of the chain (for patch tables, `super::patch`).
    pub fn job_va(&self, index: u16) -> Option<u64> {
        self.chain.job_va(index)
    }

    pub fn device(&self) -> &Device {
        self.pool.device()
    }

    /// Scratch GPU memory from the pool (descriptors, parameters, blocks
    /// that kernels read and write).
    pub fn alloc(&mut self, size: u64, align: u64) -> JmResult<GpuAlloc> {
        Ok(self.pool.alloc(size.max(1), align)?)
    }

    /// A zero-filled pool allocation.
    pub fn alloc_zeroed(&mut self, size: u64, align: u64) -> JmResult<GpuAlloc> {
        let a = self.alloc(size, align)?;
        a.zero(0, a.size);
        Ok(a)
    }

    /// The address of `pool::ZEROS_BYTES` zero bytes, one block per
    /// recording, for jobs that read a block they never write.
    pub fn zeros(&mut self) -> JmResult<u64> {
        self.pool.shared(super::pool::SharedKey::Zeros, |pool| {
            let a = pool.alloc(super::pool::ZEROS_BYTES, 64)?;
            a.zero(0, a.size);
            Ok(a.gpu_va)
        })
    }

    /// The jobs touch `bo` (memory bound to a buffer, a query pool, shader code).
    pub fn use_bo(&mut self, bo: BoHandle) {
        if bo != 0 && !self.recent_bos.contains(&bo) {
            self.extra_bos.insert(bo);
            self.recent_bos.rotate_right(1);
            self.recent_bos[0] = bo;
        }
    }

    /// Every BO a submit of this chain must list.
    pub fn bo_handles(&self) -> Vec<BoHandle> {
        let mut v: Vec<BoHandle> = self.pool.bo_handles().collect();
        v.extend(self.extra_bos.iter().copied());
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The next job waits for every job recorded before it.
    pub fn barrier(&mut self) {
        self.chain.barrier_next();
    }

    pub fn job(&mut self, job_type: JobType, payload: &[u32], deps: [u16; 2]) -> JmResult<u16> {
        self.chain
            .add_job(&mut self.pool, job_type, payload, deps, false)
    }

    pub fn write_value(
        &mut self,
        address: u64,
        kind: u64,
        immediate: u64,
        deps: [u16; 2],
    ) -> JmResult<u16> {
        self.chain
            .add_write_value(&mut self.pool, address, kind, immediate, deps)
    }

    pub fn compute(&mut self, job: &ComputeJob<'_>, deps: [u16; 2]) -> JmResult<u16> {
        add_compute_job(&mut self.chain, &mut self.pool, self.arch, job, deps)
    }

    /// A compute job whose workgroup-local storage is sized when it runs:
    /// recorded for a one-workgroup grid, and returns the GPU VA of its
    /// local-storage descriptor, whose WLS fields
    /// [`super::compute::WlsLayout::patch`] rewrites before the SUBMIT.
    pub fn compute_deferred_wls(
        &mut self,
        job: &ComputeJob<'_>,
        deps: [u16; 2],
    ) -> JmResult<(u16, u64)> {
        if job.binary.shared_size == 0 || job.groups != [1, 1, 1] {
            return Err(JmError::Encoding(
                "a deferred-WLS job uses workgroup memory and is recorded for one workgroup",
            ));
        }
        let index = add_compute_job(&mut self.chain, &mut self.pool, self.arch, job, deps)?;
        Ok((index, self.pool.last_local_storage))
    }

    pub fn vertex(&mut self, job: &VertexJob<'_>, deps: [u16; 2]) -> JmResult<u16> {
        add_vertex_job(&mut self.chain, &mut self.pool, self.arch, job, deps)
    }

    /// A draw's VERTEX and TILER jobs (`super::graphics`); `None` (and no
    /// job) when it draws nothing.
    pub fn draw(
        &mut self,
        draw: &super::graphics::Draw<'_>,
    ) -> JmResult<Option<super::graphics::DrawJobs>> {
        super::graphics::add_draw(&mut self.chain, &mut self.pool, self.arch, draw)
    }

    /// The XFB capture job; `None` (and no job) for an empty grid.
    pub fn xfb(&mut self, job: &XfbJob<'_>, deps: [u16; 2]) -> JmResult<Option<u16>> {
        add_xfb_job(&mut self.chain, &mut self.pool, self.arch, job, deps)
    }
}
