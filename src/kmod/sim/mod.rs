//! The simulated Bifrost JM GPU, behind the same [`KernelDevice`] trait as
//! the panfrost kernel driver.
//!
//! The simulator sees only GPU memory: `submit` hands it a job-chain address
//! and BO handles, and everything else it learns from job headers and
//! descriptors it reads through its MMU. Files: `bo.rs` (host memory of
//! BOs), `mmu.rs` (GPU VA, checked access), `job_manager.rs` (two job slots,
//! chain walking, exception status write-back), `jobs.rs` (per-job-type
//! dispatch: the place to plug in new job types), `write_value.rs`,
//! `compute.rs` (COMPUTE/VERTEX jobs), `idvs.rs` (TILER and IDVS jobs),
//! `tiler.rs` (our polygon-list format in the tiler heap), `fragment.rs`
//! (FRAGMENT jobs), `raster.rs` (coverage and interpolation),
//! `framebuffer.rs` (MFBD, tile buffer, blending, writeback), `texture.rs`
//! (texel lookups of VAR_TEX preloads) and `shader/`
//! (the shader core),
//! `clock.rs` (timestamp and cycle counter), `sync.rs` (fences, syncobjs).
//! The `SimGpu` harness for shader and job tests is `crate::testing` (built
//! only with the `testing` feature), so that kmod never depends on jm or
//! the compiler.
//!
//! Sim-only extras (no hardware counterpart, used by tests and tools only):
//! [`SimDevice::bo_create_at`] (a BO at a fixed VA, to replay snapshots),
//! [`SimDevice::read_gpu`], [`SimDevice::shader_counters`].
//!
//! Never give the simulator anything the hardware would not see.

pub mod bo;
pub mod clip;
pub mod clock;
pub mod compute;
pub mod fragment;
pub mod framebuffer;
pub mod idvs;
pub mod job_manager;
pub mod jobs;
pub mod mmu;
pub mod raster;
pub mod shader;
pub mod sync;
pub mod texture;
pub mod tiler;
pub mod write_value;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use self::bo::BoArena;
use self::job_manager::{JobSlot, Shared, TraceEntry, Work};
use self::sync::Fence;
use super::{
    BoHandle, BoInfo, BoStats, JD_REQ_FS, KernelDevice, KmodError, KmodResult, Param, Submit,
    SyncobjHandle,
};

/// Reads the execution trace of a [`SimDevice`] (unit-test builds record it).
pub struct TraceHandle(Arc<Shared>);

impl TraceHandle {
    pub fn entries(&self) -> Vec<TraceEntry> {
        self.0.trace.lock().unwrap().clone()
    }

    /// Shader-core counters of the COMPUTE/VERTEX jobs run so far.
    pub fn shader_counters(&self) -> Vec<compute::JobCounters> {
        self.0.counters.all()
    }

    /// The device's fences and syncobjs (tests stand in for a signaller
    /// outside the GPU, like DRM's SYNCOBJ_SIGNAL).
    #[cfg(test)]
    pub(crate) fn sync(&self) -> &sync::SyncTable {
        &self.0.sync
    }
}

#[cfg(test)]
mod tests;

/// Which GPU the simulator models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimModel {
    /// Mali-G52 (v7), product id 0x7212: the default.
    G52,
    /// Mali-G72 (v6), product id 0x6221.
    G72,
}

/// GPU memory of the simulated device (the one heap it reports).
pub const SIM_MEMORY_BYTES: u64 = 2 << 30;

impl SimModel {
    /// `BIFROST_VK_SIM_GPU=g52|g72` (default g52).
    pub fn from_env() -> SimModel {
        match std::env::var("BIFROST_VK_SIM_GPU").as_deref() {
            Ok("g72") | Ok("G72") => SimModel::G72,
            _ => SimModel::G52,
        }
    }

    /// The Bifrost architecture of the model.
    pub fn arch(self) -> crate::hw::Arch {
        match self {
            SimModel::G52 => crate::hw::Arch::V7,
            SimModel::G72 => crate::hw::Arch::V6,
        }
    }

    pub fn product_id(self) -> u32 {
        match self {
            SimModel::G52 => 0x7212,
            SimModel::G72 => 0x6221,
        }
    }

    /// The shader cores the model has (`SHADER_PRESENT`, `MAX_THREADS`).
    pub fn shader_cores(self) -> shader::ShaderCores {
        shader::ShaderCores {
            present: self.param(Param::ShaderPresent).unwrap_or(1),
            threads_per_core: self.param(Param::MaxThreads).unwrap_or(256) as u32,
        }
    }

    /// GET_PARAM values of the model (what a kernel reads from GPU registers).
    fn param(self, param: Param) -> Option<u64> {
        use Param::*;
        Some(match param {
            GpuProdId => u64::from(self.product_id()),
            GpuRevision => 0,
            // G52 MP2 (as on RK3566/RK3568) and G72 MP3.
            ShaderPresent => match self {
                SimModel::G52 => 0x3,
                SimModel::G72 => 0x7,
            },
            TilerPresent | L2Present | StackPresent => 0x1,
            AsPresent => 0xff,
            // Two job slots are modelled (JS0, JS1).
            JsPresent => 0x3,
            ThreadMaxWorkgroupSz | ThreadMaxBarrierSz => 256,
            MaxThreads => match self {
                SimModel::G52 => 768,
                SimModel::G72 => 384,
            },
            NrCoreGroups => 1,
            SystemTimestamp => clock::SimClock.timestamp(),
            SystemTimestampFrequency => clock::TIMESTAMP_HZ,
            _ => 0,
        })
    }
}

/// A simulated GPU with its own address space (one per open, like a DRM fd).
pub struct SimDevice {
    model: SimModel,
    shared: Arc<Shared>,
    bos: Mutex<BoArena>,
    /// Last fence of every BO named in a submit (implicit sync, WAIT_BO).
    bo_fences: Mutex<HashMap<BoHandle, Arc<Fence>>>,
    /// Slots last: dropped (joined) before the memory they use.
    slots: [JobSlot; 2],
}

impl SimDevice {
    pub fn new(model: SimModel) -> SimDevice {
        let shared = Arc::new(Shared {
            mmu: Default::default(),
            sync: Default::default(),
            clock: clock::SimClock,
            trace: Mutex::new(Vec::new()),
            trace_enabled: cfg!(test),
            arch: model.arch(),
            counters: Default::default(),
            cores: model.shader_cores(),
            clauses: Default::default(),
        });
        SimDevice {
            model,
            slots: [
                JobSlot::start(0, shared.clone()),
                JobSlot::start(1, shared.clone()),
            ],
            shared,
            bos: Mutex::new(BoArena::new(SIM_MEMORY_BYTES)),
            bo_fences: Mutex::new(HashMap::new()),
        }
    }

    pub fn model(&self) -> SimModel {
        self.model
    }

    /// Jobs executed so far (recorded in unit-test builds only).
    pub fn trace(&self) -> Vec<TraceEntry> {
        self.shared.trace.lock().unwrap().clone()
    }

    /// Sim-only: a BO mapped at exactly `gpu_va` (page aligned), e.g. to
    /// replay a memory snapshot whose pointers are absolute.
    pub fn bo_create_at(&self, gpu_va: u64, size: u64) -> KmodResult<BoInfo> {
        self.bos
            .lock()
            .unwrap()
            .create_at(&self.shared.mmu, gpu_va, size)
    }

    /// Sim-only: read GPU memory through the MMU (as the GPU sees it).
    pub fn read_gpu(&self, va: u64, out: &mut [u8]) -> Result<(), mmu::MmuFault> {
        self.shared.mmu.read(va, out)
    }

    /// Sim-only: write GPU memory through the MMU (tests that need a
    /// descriptor no emitter writes).
    pub fn write_gpu(&self, va: u64, data: &[u8]) -> Result<(), mmu::MmuFault> {
        self.shared.mmu.write(va, data)
    }

    /// Shader-core counters of the COMPUTE/VERTEX jobs run so far (newest last).
    pub fn shader_counters(&self) -> Vec<compute::JobCounters> {
        self.shared.counters.all()
    }

    /// A handle on the execution trace that outlives boxing the device.
    pub fn trace_handle(&self) -> TraceHandle {
        TraceHandle(self.shared.clone())
    }
}

impl Drop for SimDevice {
    fn drop(&mut self) {
        // Stop the slots first (they finish queued work whose waits can
        // still be met; chains waiting on fences that will never signal are
        // cancelled), then free memory.
        self.shared.sync.close();
        for slot in &mut self.slots {
            slot.stop();
        }
        self.bos.lock().unwrap().close_all(&self.shared.mmu);
    }
}

impl KernelDevice for SimDevice {
    fn backend_name(&self) -> &'static str {
        "sim"
    }

    fn get_param(&self, param: Param) -> KmodResult<u64> {
        self.model
            .param(param)
            .ok_or(KmodError::Invalid("unknown param"))
    }

    fn bo_create(&self, size: u64, flags: u32) -> KmodResult<BoInfo> {
        // The uAPI's size field is 32 bits wide.
        if size > u64::from(u32::MAX) {
            return Err(KmodError::OutOfMemory);
        }
        let exec = flags & crate::kmod::BO_NOEXEC == 0;
        self.bos
            .lock()
            .unwrap()
            .create(&self.shared.mmu, size, exec)
    }

    fn bo_mmap(&self, bo: &BoInfo) -> KmodResult<*mut u8> {
        self.bos.lock().unwrap().host_ptr(bo.handle)
    }

    fn bo_unmap(&self, _bo: &BoInfo, _ptr: *mut u8) {}

    fn bo_close(&self, handle: BoHandle) {
        self.bo_fences.lock().unwrap().remove(&handle);
        self.bos.lock().unwrap().close(&self.shared.mmu, handle);
    }

    fn bo_wait(&self, handle: BoHandle, abs_timeout_ns: i64) -> KmodResult<bool> {
        if !self.bos.lock().unwrap().contains(handle) {
            return Err(KmodError::NoSuchHandle(handle));
        }
        let fence = self.bo_fences.lock().unwrap().get(&handle).cloned();
        Ok(match fence {
            Some(f) => self.shared.sync.wait_fences(&[f], abs_timeout_ns),
            None => true,
        })
    }

    fn submit(&self, submit: &Submit<'_>) -> KmodResult<()> {
        if submit.jc == 0 {
            return Err(KmodError::Invalid("null job chain"));
        }
        let mut wait = Vec::new();
        for &h in submit.in_syncs {
            wait.push(self.shared.sync.fence(h)?);
        }
        let done = Fence::pending();
        let mut implicit = Vec::new();
        {
            let bos = self.bos.lock().unwrap();
            let mut bo_fences = self.bo_fences.lock().unwrap();
            for &h in submit.bo_handles {
                if !bos.contains(h) {
                    return Err(KmodError::NoSuchHandle(h));
                }
            }
            for &h in submit.bo_handles {
                // Every listed BO counts as written: wait for its last user.
                if let Some(f) = bo_fences.insert(h, done.clone()) {
                    implicit.push(f);
                }
            }
        }
        if submit.out_sync != 0 {
            self.shared
                .sync
                .replace(submit.out_sync, Some(done.clone()))?;
        }
        let slot = if submit.requirements & JD_REQ_FS != 0 {
            0
        } else {
            1
        };
        self.slots[slot].push(Work {
            jc: submit.jc,
            wait,
            implicit,
            done,
        });
        Ok(())
    }

    fn syncobj_create(&self, signaled: bool) -> KmodResult<SyncobjHandle> {
        Ok(self.shared.sync.create(signaled))
    }

    fn syncobj_destroy(&self, handle: SyncobjHandle) {
        self.shared.sync.destroy(handle);
    }

    fn syncobj_reset(&self, handles: &[SyncobjHandle]) -> KmodResult<()> {
        for &h in handles {
            self.shared.sync.replace(h, None)?;
        }
        Ok(())
    }

    fn syncobj_transfer(&self, dst: SyncobjHandle, src: SyncobjHandle) -> KmodResult<()> {
        let fence = self.shared.sync.fence(src)?;
        self.shared.sync.replace(dst, Some(fence))
    }

    fn syncobj_wait(
        &self,
        handles: &[SyncobjHandle],
        abs_timeout_ns: i64,
        wait_all: bool,
    ) -> KmodResult<bool> {
        self.shared.sync.wait(handles, abs_timeout_ns, wait_all)
    }

    fn syncobj_fence_error(&self, handle: SyncobjHandle) -> KmodResult<Option<i32>> {
        match self.shared.sync.fence(handle) {
            Ok(f) => Ok(f.status().filter(|&s| s < 0)),
            Err(KmodError::Invalid(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn bo_stats(&self) -> BoStats {
        self.bos.lock().unwrap().stats()
    }

    fn memory_size(&self) -> u64 {
        SIM_MEMORY_BYTES
    }

    fn live_bos(&self) -> Vec<BoInfo> {
        self.bos.lock().unwrap().infos()
    }

    fn bo_read(&self, bo: &BoInfo, out: &mut [u8]) -> KmodResult<()> {
        self.bos.lock().unwrap().read(bo.handle, out)
    }
}
