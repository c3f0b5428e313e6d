//! A small harness around the simulated GPU for shader and job tests
//! (per-op tests, differential tests, Mesa snapshot replays, benchmarks).
//!
//! ```no_run
//! use bifrost_vk::kmod::sim::SimModel;
//! use bifrost_vk::testing::{SimGpu, binary_from_code};
//! # let code: Vec<u8> = Vec::new();
//! let mut gpu = SimGpu::new(SimModel::G52);        // or G72 (v6, 4-lane warps)
//! let out = gpu.alloc(4096);                       // zero-filled GPU buffer
//! // A ShaderBinary from the backend, or raw code (all compute preloads on):
//! let binary = binary_from_code(&code, 1);
//! // FAU words (push uniforms), local size, workgroup count (the code is
//! // uploaded into an executable BO first):
//! let run = gpu.run_compute(&binary, &[out.va], [64, 1, 1], [1, 1, 1])
//!     .expect("job runs");                         // Err: RunError::Fault {..}
//! let results = gpu.read_u32s(out.va, 64);
//! println!("{} instructions", run.counters.instructions);
//! ```
//!
//! More: [`SimGpu::run_compute_job`] (UBOs, attribute tables),
//! [`SimGpu::run_vertex_job`], [`SimGpu::load_snapshot`] + [`SimGpu::submit`]
//! (replay a PANSNAP1 memory image at its own addresses), `write_*`/`read_*`
//! helpers for harness buffers. Submits are dumped like the driver's
//! (`BIFROST_VK_DUMP`, or [`SimGpu::with_dump_dir`]), harness buffers included.
//!
//! Everything goes through the [`KernelDevice`] trait like the driver
//! does (BO creation, submit, syncobj wait); the harness only adds the
//! sim-only fixed-VA mapping for snapshots. It must never reach into the
//! simulator's internals to make a job pass: a test sees what the GPU wrote.

use std::sync::Arc;

use crate::compiler::bifrost::binary::ShaderBinary;
use crate::hw::Arch;
use crate::hw::job::{JOB_HEADER, header};
use crate::hw::snapshot::Snapshot;
use crate::jm::{
    AttributeTables, ComputeJob, GpuPool, JmError, JmResult, JobChain, VertexJob, add_compute_job,
    add_vertex_job,
};
use crate::kmod::sim::compute::JobCounters;
use crate::kmod::sim::jobs::{JobFault, exception};
use crate::kmod::sim::shader::Counters;
use crate::kmod::sim::{SimDevice, SimModel};
use crate::kmod::{
    BO_NOEXEC, BoHandle, BoInfo, BoStats, Device, KernelDevice, KmodError, KmodResult, Param,
    Submit, SyncobjHandle,
};

/// A buffer in simulated GPU memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub va: u64,
    pub size: u64,
    pub handle: BoHandle,
}

/// Result of a job chain that ran to the end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Run {
    /// Sum of the shader-core counters of the chain's jobs.
    pub counters: Counters,
    /// Per job, in execution order.
    pub jobs: Vec<JobCounters>,
}

/// Why a submitted chain did not complete.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error("job at {job_va:#x} faulted: status {:#x} ({}) at {:#x}", fault.status, exception::name(fault.status), fault.fault_va)]
    Fault { job_va: u64, fault: JobFault },
    #[error("kernel interface: {0}")]
    Kmod(String),
    #[error("job emission: {0}")]
    Jm(String),
    #[error("the chain did not finish in time")]
    Timeout,
}

impl RunError {
    /// The job fault, if that is what happened.
    pub fn fault(&self) -> Option<JobFault> {
        match self {
            RunError::Fault { fault, .. } => Some(*fault),
            _ => None,
        }
    }
}

impl From<JmError> for RunError {
    fn from(e: JmError) -> RunError {
        RunError::Jm(e.to_string())
    }
}

impl From<KmodError> for RunError {
    fn from(e: KmodError) -> RunError {
        RunError::Kmod(e.to_string())
    }
}

/// Lets one `SimDevice` be both a boxed `KernelDevice` (for `kmod::Device`)
/// and reachable for the sim-only calls.
struct SharedSim(Arc<SimDevice>);

impl KernelDevice for SharedSim {
    fn backend_name(&self) -> &'static str {
        self.0.backend_name()
    }
    fn get_param(&self, param: Param) -> KmodResult<u64> {
        self.0.get_param(param)
    }
    fn bo_create(&self, size: u64, flags: u32) -> KmodResult<BoInfo> {
        self.0.bo_create(size, flags)
    }
    fn bo_mmap(&self, bo: &BoInfo) -> KmodResult<*mut u8> {
        self.0.bo_mmap(bo)
    }
    fn bo_unmap(&self, bo: &BoInfo, ptr: *mut u8) {
        self.0.bo_unmap(bo, ptr)
    }
    fn bo_close(&self, handle: BoHandle) {
        self.0.bo_close(handle)
    }
    fn bo_wait(&self, handle: BoHandle, abs_timeout_ns: i64) -> KmodResult<bool> {
        self.0.bo_wait(handle, abs_timeout_ns)
    }
    fn submit(&self, submit: &Submit<'_>) -> KmodResult<()> {
        self.0.submit(submit)
    }
    fn syncobj_create(&self, signaled: bool) -> KmodResult<SyncobjHandle> {
        self.0.syncobj_create(signaled)
    }
    fn syncobj_destroy(&self, handle: SyncobjHandle) {
        self.0.syncobj_destroy(handle)
    }
    fn syncobj_reset(&self, handles: &[SyncobjHandle]) -> KmodResult<()> {
        self.0.syncobj_reset(handles)
    }
    fn syncobj_transfer(&self, dst: SyncobjHandle, src: SyncobjHandle) -> KmodResult<()> {
        self.0.syncobj_transfer(dst, src)
    }
    fn syncobj_wait(
        &self,
        handles: &[SyncobjHandle],
        abs_timeout_ns: i64,
        wait_all: bool,
    ) -> KmodResult<bool> {
        self.0.syncobj_wait(handles, abs_timeout_ns, wait_all)
    }
    fn syncobj_fence_error(&self, handle: SyncobjHandle) -> KmodResult<Option<i32>> {
        self.0.syncobj_fence_error(handle)
    }
    fn bo_stats(&self) -> BoStats {
        self.0.bo_stats()
    }
    fn memory_size(&self) -> u64 {
        self.0.memory_size()
    }
    fn live_bos(&self) -> Vec<BoInfo> {
        self.0.live_bos()
    }
    fn bo_read(&self, bo: &BoInfo, out: &mut [u8]) -> KmodResult<()> {
        self.0.bo_read(bo, out)
    }
}

/// A simulated GPU with a BO list and a descriptor pool, for tests.
pub struct SimGpu {
    sim: Arc<SimDevice>,
    dev: Arc<Device>,
    pool: GpuPool,
    /// Buffers the harness created: (info, host pointer).
    bos: Vec<(BoInfo, *mut u8)>,
    /// Timeout of one chain.
    pub timeout_ns: u64,
}

// SAFETY: the host pointers address BOs owned by `sim`; tests use the
// harness from one thread at a time.
unsafe impl Send for SimGpu {}

impl SimGpu {
    pub fn new(model: SimModel) -> SimGpu {
        let dump_dir = std::env::var_os("BIFROST_VK_DUMP").map(std::path::PathBuf::from);
        SimGpu::with_dump_dir(model, dump_dir)
    }

    /// Like [`SimGpu::new`], with submit dumps written to `dump_dir` (None:
    /// none) instead of where `BIFROST_VK_DUMP` says.
    pub fn with_dump_dir(model: SimModel, dump_dir: Option<std::path::PathBuf>) -> SimGpu {
        let sim = Arc::new(SimDevice::new(model));
        let dev = Arc::new(Device::with_dump_dir(
            Box::new(SharedSim(sim.clone())),
            dump_dir,
        ));
        SimGpu {
            pool: GpuPool::new(dev.clone()),
            sim,
            dev,
            bos: Vec::new(),
            timeout_ns: 60_000_000_000,
        }
    }

    pub fn arch(&self) -> Arch {
        self.sim.model().arch()
    }

    /// The simulated device (for counters and the execution trace).
    pub fn sim(&self) -> &SimDevice {
        &self.sim
    }

    /// A zero-filled data buffer of `size` bytes (NOEXEC, like every BO
    /// the driver makes for data).
    pub fn alloc(&mut self, size: u64) -> Buffer {
        let info = self.sim.bo_create(size, BO_NOEXEC).expect("sim BO");
        self.track(info)
    }

    /// `binary`'s code in an executable BO of its own; returns its GPU VA
    /// (what the job structs' `code` takes).
    pub fn upload(&mut self, binary: &ShaderBinary) -> u64 {
        let info = self
            .sim
            .bo_create(binary.code.len().max(128) as u64, 0)
            .expect("sim code BO");
        let b = self.track(info);
        self.write(b.va, &binary.code);
        b.va
    }

    /// A zero-filled buffer mapped at exactly `va` (page aligned).
    pub fn alloc_at(&mut self, va: u64, size: u64) -> KmodResult<Buffer> {
        let info = self.sim.bo_create_at(va, size)?;
        Ok(self.track(info))
    }

    fn track(&mut self, info: BoInfo) -> Buffer {
        let ptr = self.sim.bo_mmap(&info).expect("sim BO mapping");
        self.bos.push((info, ptr));
        Buffer {
            va: info.gpu_va,
            size: info.size,
            handle: info.handle,
        }
    }

    fn host(&self, va: u64, len: usize) -> *mut u8 {
        for (info, ptr) in &self.bos {
            if va >= info.gpu_va && va + len as u64 <= info.gpu_va + info.size {
                // SAFETY: inside this BO's mapping.
                return unsafe { ptr.add((va - info.gpu_va) as usize) };
            }
        }
        panic!("harness access {va:#x}+{len} outside the harness's buffers");
    }

    /// CPU write into a harness buffer.
    pub fn write(&self, va: u64, bytes: &[u8]) {
        let p = self.host(va, bytes.len());
        // SAFETY: `host` checked the range.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) }
    }

    /// CPU read from a harness buffer.
    pub fn read(&self, va: u64, len: usize) -> Vec<u8> {
        let p = self.host(va, len);
        let mut out = vec![0u8; len];
        // SAFETY: `host` checked the range.
        unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), len) };
        out
    }

    pub fn write_u32s(&self, va: u64, words: &[u32]) {
        self.write(va, &crate::hw::layout::bytes_from_words(words));
    }

    pub fn read_u32s(&self, va: u64, n: usize) -> Vec<u32> {
        crate::hw::layout::words_from_bytes(&self.read(va, 4 * n))
    }

    pub fn write_f32s(&self, va: u64, v: &[f32]) {
        let w: Vec<u32> = v.iter().map(|f| f.to_bits()).collect();
        self.write_u32s(va, &w);
    }

    pub fn read_f32s(&self, va: u64, n: usize) -> Vec<f32> {
        self.read_u32s(va, n)
            .into_iter()
            .map(f32::from_bits)
            .collect()
    }

    /// Maps every block of `snap` at its VA (pages rounded out) and copies
    /// its bytes in. Returns the chain head.
    pub fn load_snapshot(&mut self, snap: &Snapshot) -> KmodResult<u64> {
        // Merge blocks that share pages.
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        let mut blocks: Vec<_> = snap.blocks.iter().collect();
        blocks.sort_by_key(|b| b.gpu_va);
        for b in &blocks {
            let start = b.gpu_va & !4095;
            let end = (b.gpu_va + b.bytes.len() as u64).next_multiple_of(4096);
            match ranges.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => ranges.push((start, end)),
            }
        }
        for (start, end) in ranges {
            self.alloc_at(start, end - start)?;
        }
        for b in &blocks {
            self.write(b.gpu_va, &b.bytes);
        }
        Ok(snap.jc)
    }

    /// Submits the chain at `jc` with every harness and pool BO, waits, and
    /// reports the counters of the jobs it ran or the first fault.
    pub fn submit(&mut self, jc: u64) -> Result<Run, RunError> {
        self.submit_with(jc, 0)
    }

    /// [`SimGpu::submit`] with SUBMIT `requirements` (e.g. `kmod::JD_REQ_FS`
    /// for a chain of FRAGMENT jobs, as drivers submit render passes).
    pub fn submit_with(&mut self, jc: u64, requirements: u32) -> Result<Run, RunError> {
        let before = self.sim.shader_counters().len();
        let k = self.dev.kernel();
        let sync = k.syncobj_create(false)?;
        let mut handles: Vec<BoHandle> = self.bos.iter().map(|(b, _)| b.handle).collect();
        handles.extend(self.pool.bo_handles());
        self.dev.submit(&Submit {
            jc,
            bo_handles: &handles,
            in_syncs: &[],
            out_sync: sync,
            requirements,
        })?;
        let done = k.syncobj_wait(&[sync], crate::kmod::deadline_after(self.timeout_ns), true)?;
        let err = k.syncobj_fence_error(sync)?;
        k.syncobj_destroy(sync);
        if !done {
            return Err(RunError::Timeout);
        }
        if err.is_some() {
            return Err(self.first_fault(jc));
        }
        let mut jobs = self.sim.shader_counters();
        let jobs: Vec<JobCounters> = jobs.split_off(before.min(jobs.len()));
        let mut counters = Counters::default();
        for j in &jobs {
            counters.add(&j.counters);
        }
        Ok(Run { counters, jobs })
    }

    /// Walks the chain and returns the first job whose status is not DONE.
    fn first_fault(&self, jc: u64) -> RunError {
        let mut va = jc;
        let mut n = 0;
        while va != 0 && n < 1 << 16 {
            n += 1;
            let mut bytes = vec![0u8; JOB_HEADER.bytes()];
            // Headers may live in the pool: read through the device's MMU view.
            if self.sim.read_gpu(va, &mut bytes).is_err() {
                break;
            }
            let w = crate::hw::layout::words_from_bytes(&bytes);
            let status = header::EXCEPTION_STATUS.get(&w) as u32;
            if status != exception::DONE {
                return RunError::Fault {
                    job_va: va,
                    fault: JobFault {
                        status,
                        fault_va: header::FAULT_POINTER.get(&w),
                    },
                };
            }
            va = header::NEXT.get(&w);
        }
        RunError::Kmod("chain failed but no job reports a fault".into())
    }

    /// Uploads `binary`, builds one COMPUTE job for it and runs it. Push
    /// uniforms: `uniforms` (FAU words) as given.
    pub fn run_compute_job(&mut self, job: &ComputeJob<'_>) -> Result<Run, RunError> {
        let mut chain = JobChain::new();
        let arch = self.arch();
        add_compute_job(&mut chain, &mut self.pool, arch, job, [0, 0])?;
        let r = self.submit(chain.head());
        self.pool.reset();
        r
    }

    /// Builds one VERTEX job and runs it.
    pub fn run_vertex_job(&mut self, job: &VertexJob<'_>) -> Result<Run, RunError> {
        let mut chain = JobChain::new();
        let arch = self.arch();
        add_vertex_job(&mut chain, &mut self.pool, arch, job, [0, 0])?;
        let r = self.submit(chain.head());
        self.pool.reset();
        r
    }

    /// The simple form: run `binary` over `groups` workgroups of
    /// `local_size`, with `uniforms` as the push-uniform (FAU) words.
    pub fn run_compute(
        &mut self,
        binary: &ShaderBinary,
        uniforms: &[u64],
        local_size: [u32; 3],
        groups: [u32; 3],
    ) -> Result<Run, RunError> {
        let code = self.upload(binary);
        self.run_compute_job(&ComputeJob {
            binary,
            code,
            push_uniforms: uniforms,
            local_size,
            groups,
            ubos: &[],
            attributes: None::<AttributeTables>,
            push_buffer: None,
        })
    }

    /// Like [`SimGpu::run_chain`], but `edit` gets the device and the
    /// chain's first job before the submit, to rewrite descriptors in GPU
    /// memory ([`SimDevice::read_gpu`], [`SimDevice::write_gpu`]): for tests
    /// of what the GPU does with a descriptor no emitter writes.
    pub fn run_chain_edited(
        &mut self,
        build: impl FnOnce(&mut JobChain, &mut GpuPool, Arch) -> JmResult<bool>,
        edit: impl FnOnce(&SimDevice, u64),
    ) -> Result<Option<Run>, RunError> {
        let mut chain = JobChain::new();
        let arch = self.arch();
        let any = build(&mut chain, &mut self.pool, arch);
        let r = match any {
            Ok(true) => {
                edit(&self.sim, chain.head());
                self.submit(chain.head()).map(Some)
            }
            Ok(false) => Ok(None),
            Err(e) => Err(e.into()),
        };
        self.pool.reset();
        r
    }

    /// Reads `len` bytes of GPU memory anywhere (pool memory included, e.g.
    /// the buffers an emitter allocated for a job that just ran).
    pub fn read_gpu(&self, va: u64, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        self.sim
            .read_gpu(va, &mut out)
            .unwrap_or_else(|f| panic!("GPU read at {va:#x}+{len}: {f:?}"));
        out
    }

    /// Builds a chain with `build` (given the harness's pool and the
    /// device's architecture), submits it and waits. `build` returns
    /// `false` when it emitted no job (nothing is submitted then).
    pub fn run_chain(
        &mut self,
        build: impl FnOnce(&mut JobChain, &mut GpuPool, Arch) -> JmResult<bool>,
    ) -> Result<Option<Run>, RunError> {
        let mut chain = JobChain::new();
        let arch = self.arch();
        let any = build(&mut chain, &mut self.pool, arch);
        let r = match any {
            Ok(true) => self.submit(chain.head()).map(Some),
            Ok(false) => Ok(None),
            Err(e) => Err(e.into()),
        };
        self.pool.reset();
        r
    }
}

impl Drop for SimGpu {
    fn drop(&mut self) {
        for (info, _) in self.bos.drain(..) {
            self.sim.bo_close(info.handle);
        }
    }
}

/// A [`ShaderBinary`] for raw code from elsewhere (e.g. Mesa's `.bin`
/// files): every compute preload on, `uniform_words` FAU words, 64 registers.
pub fn binary_from_code(code: &[u8], uniform_words: u32) -> ShaderBinary {
    let mut code = code.to_vec();
    code.resize(code.len().next_multiple_of(16) + 128, 0);
    ShaderBinary {
        code,
        work_registers: 64,
        preloads: crate::compiler::bifrost::binary::Preloads {
            local_invocation_xy: true,
            local_invocation_z: true,
            workgroup: [true; 3],
            global_invocation: [true; 3],
            ..Default::default()
        },
        uniform_words,
        ..Default::default()
    }
}
