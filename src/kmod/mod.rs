//! The kernel interface: the only door to the GPU.
//!
//! [`KernelDevice`] has the semantics of the panfrost uAPI (one GPU address
//! space per open device, BO create returns the BO's GPU VA, submit takes a
//! job-chain address, BO handles, in/out syncobjs and the job-slot requirement
//! flag). Two backends implement it: [`panfrost`] (DRM ioctls on a render node)
//! and [`sim`] (the simulated Bifrost JM GPU). Nothing above this module knows
//! which one runs. [`Device`] wraps a backend with what both need: BO
//! bookkeeping, CPU mappings, and the `BIFROST_VK_DUMP` submit dump.
//!
//! This module must never know about Vulkan objects.

pub mod panfrost;
pub mod sim;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Sequence number of submit dumps, process-wide: file names are never
/// reused within a run, whichever device (or device address) wrote them.
static DUMP_SEQ: AtomicU64 = AtomicU64::new(0);

/// `PANFROST_JD_REQ_FS`: the chain holds fragment jobs and runs on job slot 0;
/// every other chain runs on job slot 1.
pub const JD_REQ_FS: u32 = 1 << 0;
/// `PANFROST_JD_REQ_CYCLE_COUNT` (kernel 1.3+): keep the cycle counter and
/// system timestamp running while the chain executes.
pub const JD_REQ_CYCLE_COUNT: u32 = 1 << 1;

/// `PANFROST_BO_NOEXEC`: the BO never holds shader code.
pub const BO_NOEXEC: u32 = 1 << 0;

/// A GEM/BO handle (per device, never 0).
pub type BoHandle = u32;
/// A DRM syncobj handle (per device, never 0).
pub type SyncobjHandle = u32;

/// GET_PARAM ids (panfrost uAPI `enum drm_panfrost_param`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u32)]
pub enum Param {
    GpuProdId = 0,
    GpuRevision = 1,
    ShaderPresent = 2,
    TilerPresent = 3,
    L2Present = 4,
    StackPresent = 5,
    AsPresent = 6,
    JsPresent = 7,
    L2Features = 8,
    CoreFeatures = 9,
    TilerFeatures = 10,
    MemFeatures = 11,
    MmuFeatures = 12,
    ThreadFeatures = 13,
    MaxThreads = 14,
    ThreadMaxWorkgroupSz = 15,
    ThreadMaxBarrierSz = 16,
    CoherencyFeatures = 17,
    NrCoreGroups = 38,
    ThreadTlsAlloc = 39,
    AfbcFeatures = 40,
    SystemTimestamp = 41,
    SystemTimestampFrequency = 42,
}

/// A BO as the kernel reports it after CREATE_BO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoInfo {
    pub handle: BoHandle,
    /// GPU VA of the first byte, in this device's address space.
    pub gpu_va: u64,
    pub size: u64,
}

/// One SUBMIT: a job chain and what it waits for and signals.
#[derive(Clone, Debug, Default)]
pub struct Submit<'a> {
    /// GPU VA of the first job header.
    pub jc: u64,
    /// BOs the chain uses (lifetime pinning and implicit sync).
    pub bo_handles: &'a [BoHandle],
    /// Syncobjs whose current fences must signal before the chain starts.
    pub in_syncs: &'a [SyncobjHandle],
    /// Syncobj that receives the chain's completion fence (0: none).
    pub out_sync: SyncobjHandle,
    /// `JD_REQ_*` flags.
    pub requirements: u32,
}

/// Errors of the kernel interface, errno-like.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KmodError {
    #[error("out of GPU memory")]
    OutOfMemory,
    #[error("invalid argument: {0}")]
    Invalid(&'static str),
    #[error("no such handle {0}")]
    NoSuchHandle(u32),
    #[error("timed out")]
    Timeout,
    #[error("no usable GPU: {0}")]
    NoDevice(String),
    #[error("ioctl {name} failed: errno {errno}")]
    Ioctl { name: &'static str, errno: i32 },
}

pub type KmodResult<T> = Result<T, KmodError>;

/// BO bookkeeping a backend reports (for leak checks in tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoStats {
    pub count: u64,
    pub bytes: u64,
}

/// The panfrost uAPI, as a trait. All timeouts are absolute CLOCK_MONOTONIC
/// nanoseconds, as in the uAPI (`i64::MAX`: forever).
pub trait KernelDevice: Send + Sync {
    /// Human-readable backend name ("panfrost" or "sim").
    fn backend_name(&self) -> &'static str;
    /// DRM_IOCTL_PANFROST_GET_PARAM.
    fn get_param(&self, param: Param) -> KmodResult<u64>;
    /// DRM_IOCTL_PANFROST_CREATE_BO; the BO is zero-filled and mapped on the GPU.
    fn bo_create(&self, size: u64, flags: u32) -> KmodResult<BoInfo>;
    /// MMAP_BO + mmap(): a CPU pointer to the whole BO, valid until [`KernelDevice::bo_unmap`].
    fn bo_mmap(&self, bo: &BoInfo) -> KmodResult<*mut u8>;
    /// munmap() of a pointer returned by `bo_mmap`.
    fn bo_unmap(&self, bo: &BoInfo, ptr: *mut u8);
    /// GEM_CLOSE: the handle dies, the VA range is unmapped once the GPU is done.
    fn bo_close(&self, handle: BoHandle);
    /// DRM_IOCTL_PANFROST_WAIT_BO: Ok(true) when idle, Ok(false) on timeout.
    fn bo_wait(&self, handle: BoHandle, abs_timeout_ns: i64) -> KmodResult<bool>;
    /// DRM_IOCTL_PANFROST_SUBMIT.
    fn submit(&self, submit: &Submit<'_>) -> KmodResult<()>;
    /// DRM_IOCTL_SYNCOBJ_CREATE (optionally already signalled).
    fn syncobj_create(&self, signaled: bool) -> KmodResult<SyncobjHandle>;
    /// DRM_IOCTL_SYNCOBJ_DESTROY.
    fn syncobj_destroy(&self, handle: SyncobjHandle);
    /// DRM_IOCTL_SYNCOBJ_RESET: drop the current fence (unsignalled).
    fn syncobj_reset(&self, handles: &[SyncobjHandle]) -> KmodResult<()>;
    /// DRM_IOCTL_SYNCOBJ_TRANSFER (binary → binary): `dst` gets `src`'s fence.
    fn syncobj_transfer(&self, dst: SyncobjHandle, src: SyncobjHandle) -> KmodResult<()>;
    /// DRM_IOCTL_SYNCOBJ_WAIT with WAIT_FOR_SUBMIT (waits for a fence to
    /// appear). Ok(true) when signalled (all or any), Ok(false) on timeout.
    fn syncobj_wait(
        &self,
        handles: &[SyncobjHandle],
        abs_timeout_ns: i64,
        wait_all: bool,
    ) -> KmodResult<bool>;
    /// The error of the syncobj's signalled fence (a job fault: the kernel sets
    /// the fence error when a job faults), None when fine or not signalled.
    fn syncobj_fence_error(&self, handle: SyncobjHandle) -> KmodResult<Option<i32>>;
    /// BOs currently alive on this device, by the backend's own count.
    fn bo_stats(&self) -> BoStats;
    /// Bytes of memory the GPU can use for BOs (the Vulkan heap size).
    fn memory_size(&self) -> u64;
    /// Every BO alive on this device, whoever created it (the kernel knows
    /// them all; the backend keeps the list). Used by the submit dump.
    fn live_bos(&self) -> Vec<BoInfo>;
    /// Copy the first `out.len()` bytes of a live BO (for the submit dump,
    /// for BOs nobody mapped through [`Device`]). A BO closed meanwhile is
    /// `NoSuchHandle`; the copy never reads freed memory.
    fn bo_read(&self, bo: &BoInfo, out: &mut [u8]) -> KmodResult<()>;
}

/// CLOCK_MONOTONIC now, in nanoseconds (the clock of all kmod timeouts).
pub fn monotonic_ns() -> i64 {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

/// Relative timeout (ns, u64 as Vulkan gives it) → absolute deadline.
pub fn deadline_after(timeout_ns: u64) -> i64 {
    i64::try_from(timeout_ns)
        .ok()
        .and_then(|t| monotonic_ns().checked_add(t))
        .unwrap_or(i64::MAX)
}

/// Which device `BIFROST_VK_DEVICE` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    /// Real Bifrost if present, else the simulator.
    Auto,
    Hardware,
    Simulator,
}

impl DeviceChoice {
    pub fn from_env() -> DeviceChoice {
        match std::env::var("BIFROST_VK_DEVICE").as_deref() {
            Ok("hw") => DeviceChoice::Hardware,
            Ok("sim") => DeviceChoice::Simulator,
            Ok("auto") | Err(_) => DeviceChoice::Auto,
            Ok(other) => {
                log::warn!("BIFROST_VK_DEVICE={other:?} is not auto|hw|sim; using auto");
                DeviceChoice::Auto
            }
        }
    }
}

/// Something that opens a fresh [`KernelDevice`] (one GPU address space per
/// open, like opening the render node again).
#[derive(Clone, Debug)]
pub enum DeviceSource {
    Panfrost(PathBuf),
    Sim(sim::SimModel),
}

impl DeviceSource {
    /// The devices `choice` selects, in order (at most one simulator).
    pub fn probe(choice: DeviceChoice) -> Vec<DeviceSource> {
        let mut found = Vec::new();
        if choice != DeviceChoice::Simulator {
            found.extend(panfrost::probe().into_iter().map(DeviceSource::Panfrost));
        }
        let want_sim = match choice {
            DeviceChoice::Simulator => true,
            DeviceChoice::Auto => found.is_empty(),
            DeviceChoice::Hardware => false,
        };
        if want_sim {
            found.push(DeviceSource::Sim(sim::SimModel::from_env()));
        }
        found
    }

    pub fn open(&self) -> KmodResult<Device> {
        let backend: Box<dyn KernelDevice> = match self {
            DeviceSource::Panfrost(path) => Box::new(panfrost::PanfrostDevice::open(path)?),
            DeviceSource::Sim(model) => Box::new(sim::SimDevice::new(*model)),
        };
        Ok(Device::new(backend))
    }

    pub fn is_simulated(&self) -> bool {
        matches!(self, DeviceSource::Sim(_))
    }
}

/// A live BO with its CPU mapping (every BO this driver creates is mappable).
#[derive(Debug)]
pub struct Bo {
    pub info: BoInfo,
    map: *mut u8,
}

// SAFETY: the mapping is plain shared memory; users synchronise through GPU
// fences exactly as with a real GPU mapping.
unsafe impl Send for Bo {}
// SAFETY: as above.
unsafe impl Sync for Bo {}

impl Bo {
    pub fn gpu_va(&self) -> u64 {
        self.info.gpu_va
    }
    pub fn size(&self) -> u64 {
        self.info.size
    }
    pub fn handle(&self) -> BoHandle {
        self.info.handle
    }
    /// CPU pointer to the first byte.
    pub fn ptr(&self) -> *mut u8 {
        self.map
    }
    /// Copy `bytes` into the BO at `offset` (bounds-checked).
    pub fn write(&self, offset: u64, bytes: &[u8]) {
        assert!(
            offset + bytes.len() as u64 <= self.size(),
            "BO write out of range"
        );
        // SAFETY: in range of a live mapping; GPU access is synchronised by fences.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.map.add(offset as usize),
                bytes.len(),
            )
        }
    }
    /// Copy bytes out of the BO at `offset` (bounds-checked).
    pub fn read(&self, offset: u64, out: &mut [u8]) {
        assert!(
            offset + out.len() as u64 <= self.size(),
            "BO read out of range"
        );
        // SAFETY: in range of a live mapping.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.map.add(offset as usize),
                out.as_mut_ptr(),
                out.len(),
            )
        }
    }
    pub fn read_u64(&self, offset: u64) -> u64 {
        let mut b = [0u8; 8];
        self.read(offset, &mut b);
        u64::from_le_bytes(b)
    }
}

/// A backend plus the bookkeeping both backends need: the BO registry (the
/// CPU mappings of BOs made through it, reused by the submit dump), the
/// product id, and the dump directory.
pub struct Device {
    backend: Box<dyn KernelDevice>,
    prod_id: u32,
    /// handle → (va, size, cpu pointer) of every BO created through this
    /// `Device` and not destroyed yet.
    bos: Mutex<BTreeMap<BoHandle, (u64, u64, usize)>>,
    dump_dir: Option<PathBuf>,
}

impl Device {
    /// Wrap a backend; submit dumps go where `BIFROST_VK_DUMP` says.
    pub fn new(backend: Box<dyn KernelDevice>) -> Device {
        let dump_dir = std::env::var_os("BIFROST_VK_DUMP").map(PathBuf::from);
        Device::with_dump_dir(backend, dump_dir)
    }

    /// Wrap a backend with an explicit dump directory (None: no dumps).
    pub fn with_dump_dir(backend: Box<dyn KernelDevice>, dump_dir: Option<PathBuf>) -> Device {
        let prod_id = backend.get_param(Param::GpuProdId).unwrap_or(0) as u32;
        Device {
            backend,
            prod_id,
            bos: Mutex::new(BTreeMap::new()),
            dump_dir,
        }
    }

    pub fn kernel(&self) -> &dyn KernelDevice {
        &*self.backend
    }

    pub fn product_id(&self) -> u32 {
        self.prod_id
    }

    /// Create and map a BO of at least `size` bytes (rounded up to 4 KiB).
    pub fn bo_create(&self, size: u64, flags: u32) -> KmodResult<Bo> {
        let size = size
            .checked_next_multiple_of(4096)
            .ok_or(KmodError::OutOfMemory)?;
        let info = self.backend.bo_create(size, flags)?;
        let map = match self.backend.bo_mmap(&info) {
            Ok(p) => p,
            Err(e) => {
                self.backend.bo_close(info.handle);
                return Err(e);
            }
        };
        self.bos
            .lock()
            .unwrap()
            .insert(info.handle, (info.gpu_va, info.size, map as usize));
        Ok(Bo { info, map })
    }

    /// Unmap and close a BO.
    pub fn bo_destroy(&self, bo: Bo) {
        self.bos.lock().unwrap().remove(&bo.info.handle);
        self.backend.bo_unmap(&bo.info, bo.map);
        self.backend.bo_close(bo.info.handle);
    }

    /// The CPU address of `[va, va + len)` when one BO made through this
    /// `Device` holds all of it; calls `f` with it under the registry lock
    /// (no BO can be destroyed meanwhile).
    fn with_mapping<R>(&self, va: u64, len: u64, f: impl FnOnce(*mut u8) -> R) -> KmodResult<R> {
        let bos = self.bos.lock().unwrap();
        let end = va
            .checked_add(len)
            .ok_or(KmodError::Invalid("address range overflows"))?;
        for &(bo_va, size, ptr) in bos.values() {
            if va >= bo_va && end <= bo_va + size {
                return Ok(f((ptr + (va - bo_va) as usize) as *mut u8));
            }
        }
        Err(KmodError::Invalid("no mapped BO holds the address range"))
    }

    /// Host read of GPU memory by address (a BO made through this `Device`).
    pub fn read_va(&self, va: u64, out: &mut [u8]) -> KmodResult<()> {
        self.with_mapping(va, out.len() as u64, |p| {
            // SAFETY: `p` maps `out.len()` bytes of a live BO (with_mapping).
            unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), out.len()) }
        })
    }

    /// Host write of GPU memory by address (a BO made through this `Device`).
    pub fn write_va(&self, va: u64, bytes: &[u8]) -> KmodResult<()> {
        self.with_mapping(va, bytes.len() as u64, |p| {
            // SAFETY: `p` maps `bytes.len()` bytes of a live BO (with_mapping).
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) }
        })
    }

    /// SUBMIT, writing a PANSNAP1 dump first when `BIFROST_VK_DUMP` is set.
    pub fn submit(&self, submit: &Submit<'_>) -> KmodResult<()> {
        if let Some(dir) = &self.dump_dir {
            self.dump(dir, submit.jc);
        }
        self.backend.submit(submit)
    }

    /// Writes `<dir>/bifrost-vk-<pid>-<seq>.pansnap`: every BO alive on the
    /// kernel device (not only those of this `Device` or of the SUBMIT's
    /// list: a chain can reach any of them), read through this `Device`'s
    /// mapping when it has one and copied by the backend otherwise.
    fn dump(&self, dir: &std::path::Path, jc: u64) {
        let seq = DUMP_SEQ.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(
            "bifrost-vk-{}-{seq:06}.pansnap",
            std::process::id()
        ));
        let result = std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::File::create(&path))
            .and_then(|f| {
                let mut w = std::io::BufWriter::new(f);
                self.write_snapshot(&mut w, jc)?;
                std::io::Write::flush(&mut w)
            });
        match result {
            Ok(()) => log::info!("submit dump written to {}", path.display()),
            Err(e) => log::warn!("BIFROST_VK_DUMP: cannot write {}: {e}", path.display()),
        }
    }

    fn write_snapshot(&self, w: &mut impl std::io::Write, jc: u64) -> std::io::Result<()> {
        // Held throughout: bo_destroy needs it to unmap a registered BO.
        let mapped = self.bos.lock().unwrap();
        let mut live = self.backend.live_bos();
        live.sort_by_key(|bo| bo.gpu_va);
        crate::hw::snapshot::write_header(w, self.prod_id, jc)?;
        let mut copy = Vec::new();
        for bo in &live {
            if let Some(&(_, size, ptr)) = mapped.get(&bo.handle) {
                // SAFETY: a registered pointer maps `size` bytes until
                // bo_destroy, which cannot run while we hold the lock.
                let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, size as usize) };
                crate::hw::snapshot::write_block(w, bo.gpu_va, bytes)?;
                continue;
            }
            copy.resize(bo.size as usize, 0);
            match self.backend.bo_read(bo, &mut copy) {
                Ok(()) => crate::hw::snapshot::write_block(w, bo.gpu_va, &copy)?,
                // Closed by its owner since live_bos(): it is not live any more.
                Err(e) => log::debug!("BIFROST_VK_DUMP: BO {} skipped: {e}", bo.handle),
            }
        }
        Ok(())
    }
}
