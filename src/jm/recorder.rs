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
use super::error::JmResult;
use super::pool::{GpuAlloc, GpuPool};
use super::xfb::{XfbJob, add_xfb_job};
use crate::hw::Arch;
use crate::hw::job::{JobType, header};
use crate::kmod::{BoHandle, Device};

pub struct Recorder {
    pub arch: Arch,
    chain: JobChain,
    pool: GpuPool,
    /// BOs outside the pool that the jobs read or write.
    extra_bos: FxHashSet<BoHandle>,
    /// The next job waits for all earlier ones.
    barrier_pending: bool,
    /// The attribute tables written last and what they describe
    /// (`super::attributes::shared_attribute_tables`).
    pub(super) last_attributes: Option<(
        Vec<super::attributes::AttributeBuffer>,
        Vec<super::attributes::AttributeRecord>,
        super::compute::AttributeTables,
    )>,
}

impl Recorder {
    pub fn new(device: Arc<Device>, arch: Arch) -> Recorder {
        Recorder {
            arch,
            chain: JobChain::new(),
            pool: GpuPool::new(device),
            extra_bos: FxHashSet::default(),
            barrier_pending: false,
            last_attributes: None,
        }
    }

    /// Forget every job and allocation (the pool keeps its BOs for reuse).
    pub fn reset(&mut self) {
        self.chain.clear();
        self.pool.reset();
        self.extra_bos.clear();
        self.barrier_pending = false;
        self.last_attributes = None;
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

    /// The jobs touch `bo` (memory bound to a buffer, a query pool, shader code).
    /// The address of `pool::ZEROS_BYTES` zero bytes, one block per
    /// recording, for jobs that read a block they never write.
    pub fn zeros(&mut self) -> JmResult<u64> {
        self.pool.shared(super::pool::SharedKey::Zeros, |pool| {
            let a = pool.alloc(super::pool::ZEROS_BYTES, 64)?;
            a.zero(0, a.size);
            Ok(a.gpu_va)
        })
    }

    pub fn use_bo(&mut self, bo: BoHandle) {
        if bo != 0 {
            self.extra_bos.insert(bo);
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
        if !self.chain.is_empty() {
            self.barrier_pending = true;
        }
    }

    /// Sets the pending barrier on the job just added (index `i`).
    fn added(&mut self, i: u16) -> u16 {
        if std::mem::take(&mut self.barrier_pending) {
            self.chain.patch_header(usize::from(i) - 1, |w| {
                let _ = header::BARRIER.set(w, 1);
            });
        }
        i
    }

    pub fn job(&mut self, job_type: JobType, payload: &[u32], deps: [u16; 2]) -> JmResult<u16> {
        let i = self
            .chain
            .add_job(&mut self.pool, job_type, payload, deps, false)?;
        Ok(self.added(i))
    }

    pub fn write_value(
        &mut self,
        address: u64,
        kind: u64,
        immediate: u64,
        deps: [u16; 2],
    ) -> JmResult<u16> {
        let i = self
            .chain
            .add_write_value(&mut self.pool, address, kind, immediate, deps)?;
        Ok(self.added(i))
    }

    pub fn compute(&mut self, job: &ComputeJob<'_>, deps: [u16; 2]) -> JmResult<u16> {
        let i = add_compute_job(&mut self.chain, &mut self.pool, self.arch, job, deps)?;
        Ok(self.added(i))
    }

    pub fn vertex(&mut self, job: &VertexJob<'_>, deps: [u16; 2]) -> JmResult<u16> {
        let i = add_vertex_job(&mut self.chain, &mut self.pool, self.arch, job, deps)?;
        Ok(self.added(i))
    }

    /// A draw's VERTEX and TILER jobs (`super::graphics`); `None` (and no
    /// job) when it draws nothing.
    pub fn draw(
        &mut self,
        draw: &super::graphics::Draw<'_>,
    ) -> JmResult<Option<super::graphics::DrawJobs>> {
        let jobs = super::graphics::add_draw(&mut self.chain, &mut self.pool, self.arch, draw)?;
        if let Some(j) = &jobs {
            self.added(j.vertex);
        }
        Ok(jobs)
    }

    /// The XFB capture job; `None` (and no job) for an empty grid.
    pub fn xfb(&mut self, job: &XfbJob<'_>, deps: [u16; 2]) -> JmResult<Option<u16>> {
        let i = add_xfb_job(&mut self.chain, &mut self.pool, self.arch, job, deps)?;
        Ok(i.map(|i| self.added(i)))
    }
}
