//! The real backend: the Linux panfrost DRM driver on a render node.
//!
//! Discovery opens `/dev/dri/renderD*`, keeps nodes whose DRM driver name is
//! "panfrost" and whose GPU_PROD_ID is a Bifrost JM part (v6/v7). Every call
//! is one ioctl (or mmap) with the structs of [`uapi`]. This backend cannot
//! run on a machine without the hardware; its encoding is unit-tested.

pub mod uapi;

use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rustix::fs::{Mode, OFlags};
use rustix::ioctl::{Opcode, Updater, ioctl};

use self::uapi::*;
use super::{
    BoHandle, BoInfo, BoStats, KernelDevice, KmodError, KmodResult, Param, Submit, SyncobjHandle,
};
use crate::hw::Arch;

/// An open panfrost render node (one GPU address space).
pub struct PanfrostDevice {
    fd: OwnedFd,
    /// Live BOs, for [`KernelDevice::bo_stats`] and [`KernelDevice::live_bos`].
    live: Mutex<std::collections::HashMap<BoHandle, BoInfo>>,
}

fn errno(name: &'static str) -> impl Fn(rustix::io::Errno) -> KmodError {
    move |e| match e {
        rustix::io::Errno::NOMEM => KmodError::OutOfMemory,
        e => KmodError::Ioctl {
            name,
            errno: e.raw_os_error(),
        },
    }
}

/// Run an read-write ioctl on `value`.
///
/// # Safety
/// `OPCODE` must be the request whose argument type is `T`.
unsafe fn ioctl_rw<const OPCODE: Opcode, T>(
    fd: impl AsFd,
    name: &'static str,
    value: &mut T,
) -> KmodResult<()> {
    // SAFETY: per this function's contract.
    unsafe { ioctl(fd, Updater::<OPCODE, T>::new(value)) }.map_err(errno(name))
}

/// The DRM driver name of an open node.
fn driver_name(fd: &OwnedFd) -> KmodResult<String> {
    let mut name = vec![0u8; 64];
    let mut v = DrmVersion {
        version_major: 0,
        version_minor: 0,
        version_patchlevel: 0,
        name_len: name.len(),
        name: name.as_mut_ptr(),
        date_len: 0,
        date: std::ptr::null_mut(),
        desc_len: 0,
        desc: std::ptr::null_mut(),
    };
    // SAFETY: DRM_IOCTL_VERSION takes a drm_version; `name` outlives the call.
    unsafe { ioctl_rw::<DRM_IOCTL_VERSION, _>(fd, "DRM_IOCTL_VERSION", &mut v)? };
    name.truncate(v.name_len.min(64));
    Ok(String::from_utf8_lossy(&name).into_owned())
}

/// Render nodes driven by panfrost with a Bifrost JM GPU.
pub fn probe() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/dev/dri") else {
        return found;
    };
    let mut nodes: Vec<PathBuf> = dir
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("renderD"))
        })
        .collect();
    nodes.sort();
    for path in nodes {
        match PanfrostDevice::open(&path) {
            Ok(_) => found.push(path),
            Err(e) => log::debug!("{}: not a Bifrost panfrost node: {e}", path.display()),
        }
    }
    found
}

impl PanfrostDevice {
    /// Open `path` and check it is panfrost with a v6/v7 GPU.
    pub fn open(path: &Path) -> KmodResult<PanfrostDevice> {
        let fd = rustix::fs::open(path, OFlags::RDWR | OFlags::CLOEXEC, Mode::empty())
            .map_err(|e| KmodError::NoDevice(format!("{}: {e}", path.display())))?;
        let name = driver_name(&fd)?;
        if name != "panfrost" {
            return Err(KmodError::NoDevice(format!("driver is {name:?}")));
        }
        let dev = PanfrostDevice {
            fd,
            live: Mutex::new(Default::default()),
        };
        let prod = dev.get_param(Param::GpuProdId)? as u32;
        if Arch::from_product_id(prod).is_none() {
            return Err(KmodError::NoDevice(format!(
                "GPU product id {prod:#x} is not Bifrost v6/v7"
            )));
        }
        Ok(dev)
    }
}

impl KernelDevice for PanfrostDevice {
    fn backend_name(&self) -> &'static str {
        "panfrost"
    }

    fn get_param(&self, param: Param) -> KmodResult<u64> {
        let mut p = DrmPanfrostGetParam {
            param: param as u32,
            ..Default::default()
        };
        // SAFETY: GET_PARAM takes a drm_panfrost_get_param.
        unsafe { ioctl_rw::<DRM_IOCTL_PANFROST_GET_PARAM, _>(&self.fd, "GET_PARAM", &mut p)? };
        Ok(p.value)
    }

    fn bo_create(&self, size: u64, flags: u32) -> KmodResult<BoInfo> {
        let size32 = u32::try_from(size).map_err(|_| KmodError::OutOfMemory)?;
        let mut c = DrmPanfrostCreateBo {
            size: size32,
            flags,
            ..Default::default()
        };
        // SAFETY: CREATE_BO takes a drm_panfrost_create_bo.
        unsafe { ioctl_rw::<DRM_IOCTL_PANFROST_CREATE_BO, _>(&self.fd, "CREATE_BO", &mut c)? };
        let info = BoInfo {
            handle: c.handle,
            gpu_va: c.offset,
            size,
        };
        self.live.lock().unwrap().insert(c.handle, info);
        Ok(info)
    }

    fn bo_mmap(&self, bo: &BoInfo) -> KmodResult<*mut u8> {
        let mut m = DrmPanfrostMmapBo {
            handle: bo.handle,
            ..Default::default()
        };
        // SAFETY: MMAP_BO takes a drm_panfrost_mmap_bo.
        unsafe { ioctl_rw::<DRM_IOCTL_PANFROST_MMAP_BO, _>(&self.fd, "MMAP_BO", &mut m)? };
        use rustix::mm::{MapFlags, ProtFlags, mmap};
        // SAFETY: a fresh shared mapping of the BO's fake offset; nothing else
        // lives at the address the kernel picks.
        let ptr = unsafe {
            mmap(
                std::ptr::null_mut(),
                bo.size as usize,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                &self.fd,
                m.offset,
            )
        }
        .map_err(errno("mmap"))?;
        Ok(ptr.cast())
    }

    fn bo_unmap(&self, bo: &BoInfo, ptr: *mut u8) {
        // SAFETY: `ptr` came from bo_mmap for this BO's size.
        let _ = unsafe { rustix::mm::munmap(ptr.cast(), bo.size as usize) };
    }

    fn bo_close(&self, handle: BoHandle) {
        let c = DrmGemClose { handle, pad: 0 };
        // SAFETY: GEM_CLOSE takes a drm_gem_close.
        let r = unsafe {
            ioctl(
                &self.fd,
                rustix::ioctl::Setter::<DRM_IOCTL_GEM_CLOSE, DrmGemClose>::new(c),
            )
        };
        if r.is_ok() {
            self.live.lock().unwrap().remove(&handle);
        }
    }

    fn bo_wait(&self, handle: BoHandle, abs_timeout_ns: i64) -> KmodResult<bool> {
        let w = DrmPanfrostWaitBo {
            handle,
            pad: 0,
            timeout_ns: abs_timeout_ns,
        };
        // SAFETY: WAIT_BO takes a drm_panfrost_wait_bo.
        let r = unsafe {
            ioctl(
                &self.fd,
                rustix::ioctl::Setter::<DRM_IOCTL_PANFROST_WAIT_BO, DrmPanfrostWaitBo>::new(w),
            )
        };
        match r {
            Ok(()) => Ok(true),
            Err(rustix::io::Errno::TIMEDOUT) | Err(rustix::io::Errno::BUSY) => Ok(false),
            Err(e) => Err(errno("WAIT_BO")(e)),
        }
    }

    fn submit(&self, submit: &Submit<'_>) -> KmodResult<()> {
        let s = DrmPanfrostSubmit {
            jc: submit.jc,
            in_syncs: submit.in_syncs.as_ptr() as u64,
            in_sync_count: submit.in_syncs.len() as u32,
            out_sync: submit.out_sync,
            bo_handles: submit.bo_handles.as_ptr() as u64,
            bo_handle_count: submit.bo_handles.len() as u32,
            requirements: submit.requirements,
        };
        // SAFETY: SUBMIT takes a drm_panfrost_submit; the arrays outlive the call.
        unsafe {
            ioctl(
                &self.fd,
                rustix::ioctl::Setter::<DRM_IOCTL_PANFROST_SUBMIT, DrmPanfrostSubmit>::new(s),
            )
        }
        .map_err(errno("SUBMIT"))
    }

    fn syncobj_create(&self, signaled: bool) -> KmodResult<SyncobjHandle> {
        let mut c = DrmSyncobjCreate {
            handle: 0,
            flags: if signaled {
                DRM_SYNCOBJ_CREATE_SIGNALED
            } else {
                0
            },
        };
        // SAFETY: SYNCOBJ_CREATE takes a drm_syncobj_create.
        unsafe { ioctl_rw::<DRM_IOCTL_SYNCOBJ_CREATE, _>(&self.fd, "SYNCOBJ_CREATE", &mut c)? };
        Ok(c.handle)
    }

    fn syncobj_destroy(&self, handle: SyncobjHandle) {
        let mut d = DrmSyncobjDestroy { handle, pad: 0 };
        // SAFETY: SYNCOBJ_DESTROY takes a drm_syncobj_destroy.
        let _ = unsafe {
            ioctl_rw::<DRM_IOCTL_SYNCOBJ_DESTROY, _>(&self.fd, "SYNCOBJ_DESTROY", &mut d)
        };
    }

    fn syncobj_reset(&self, handles: &[SyncobjHandle]) -> KmodResult<()> {
        let mut a = DrmSyncobjArray {
            handles: handles.as_ptr() as u64,
            count_handles: handles.len() as u32,
            pad: 0,
        };
        // SAFETY: SYNCOBJ_RESET takes a drm_syncobj_array; `handles` outlives the call.
        unsafe { ioctl_rw::<DRM_IOCTL_SYNCOBJ_RESET, _>(&self.fd, "SYNCOBJ_RESET", &mut a) }
    }

    fn syncobj_transfer(&self, dst: SyncobjHandle, src: SyncobjHandle) -> KmodResult<()> {
        let mut t = DrmSyncobjTransfer {
            src_handle: src,
            dst_handle: dst,
            ..Default::default()
        };
        // SAFETY: SYNCOBJ_TRANSFER takes a drm_syncobj_transfer.
        unsafe { ioctl_rw::<DRM_IOCTL_SYNCOBJ_TRANSFER, _>(&self.fd, "SYNCOBJ_TRANSFER", &mut t) }
    }

    fn syncobj_wait(
        &self,
        handles: &[SyncobjHandle],
        abs_timeout_ns: i64,
        wait_all: bool,
    ) -> KmodResult<bool> {
        let mut w = DrmSyncobjWait {
            handles: handles.as_ptr() as u64,
            timeout_nsec: abs_timeout_ns,
            count_handles: handles.len() as u32,
            flags: DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT
                | if wait_all {
                    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL
                } else {
                    0
                },
            ..Default::default()
        };
        // SAFETY: SYNCOBJ_WAIT takes a drm_syncobj_wait; `handles` outlives the call.
        match unsafe { ioctl(&self.fd, Updater::<DRM_IOCTL_SYNCOBJ_WAIT, _>::new(&mut w)) } {
            Ok(()) => Ok(true),
            Err(rustix::io::Errno::TIME) | Err(rustix::io::Errno::TIMEDOUT) => Ok(false),
            Err(e) => Err(errno("SYNCOBJ_WAIT")(e)),
        }
    }

    fn syncobj_fence_error(&self, handle: SyncobjHandle) -> KmodResult<Option<i32>> {
        // Export the fence as a sync_file and read its status (<0: error).
        let mut h = DrmSyncobjHandle {
            handle,
            flags: DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
            fd: -1,
            pad: 0,
        };
        // SAFETY: SYNCOBJ_HANDLE_TO_FD takes a drm_syncobj_handle.
        unsafe {
            ioctl_rw::<DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, _>(&self.fd, "SYNCOBJ_HANDLE_TO_FD", &mut h)?
        };
        if h.fd < 0 {
            // Success without a file descriptor: not what the kernel does,
            // but Mesa's drm-shim answers so. The fence's status cannot
            // be read; report no error (the wait itself has succeeded).
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| {
                log::warn!("SYNCOBJ_HANDLE_TO_FD gave no sync file: job faults cannot be seen")
            });
            return Ok(None);
        }
        // SAFETY: the kernel returned a new file descriptor we now own.
        let sync_file = unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(h.fd) };
        let mut info = SyncFileInfo::default();
        // SAFETY: SYNC_IOC_FILE_INFO takes a sync_file_info (num_fences 0: no array).
        unsafe { ioctl_rw::<SYNC_IOC_FILE_INFO, _>(&sync_file, "SYNC_IOC_FILE_INFO", &mut info)? };
        Ok((info.status < 0).then_some(info.status))
    }

    fn memory_size(&self) -> u64 {
        system_heap_size()
    }

    fn bo_stats(&self) -> BoStats {
        let live = self.live.lock().unwrap();
        BoStats {
            count: live.len() as u64,
            bytes: live.values().map(|bo| bo.size).sum(),
        }
    }

    fn live_bos(&self) -> Vec<BoInfo> {
        self.live.lock().unwrap().values().copied().collect()
    }

    fn bo_read(&self, bo: &BoInfo, out: &mut [u8]) -> KmodResult<()> {
        if out.len() as u64 > bo.size {
            return Err(KmodError::Invalid("read beyond the end of the BO"));
        }
        // A temporary mapping holds its own reference on the GEM object, so
        // a concurrent GEM_CLOSE cannot free the memory under the copy.
        let ptr = self.bo_mmap(bo)?;
        // SAFETY: `ptr` maps `bo.size` bytes until the bo_unmap below.
        unsafe { std::ptr::copy_nonoverlapping(ptr, out.as_mut_ptr(), out.len()) };
        self.bo_unmap(bo, ptr);
        Ok(())
    }
}

/// Half of system RAM (the GPU shares it), for a real device's heap.
fn system_heap_size() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(1 << 30, |kib| kib * 1024);
    // The panfrost VA range is [32 MiB, 4 GiB).
    (total / 2).min((4 << 30) - (32 << 20))
}
