//! BOs of the simulated GPU: zero-filled host memory, one GPU VA each.
//!
//! The arena owns the host allocations; the CPU reaches them through the
//! pointer `bo_mmap` returns, the GPU only through the [`super::mmu::Mmu`].
//! Total size is capped at the model's memory size, so out-of-memory is real.

use std::collections::HashMap;

use super::mmu::Mmu;
use crate::kmod::{BoHandle, BoInfo, BoStats, KmodError, KmodResult};

struct SimBo {
    info: BoInfo,
    /// Anonymous mapping of `info.size` bytes (zero pages until touched).
    host: *mut u8,
}

/// All live BOs of one simulated device.
pub struct BoArena {
    bos: HashMap<BoHandle, SimBo>,
    next_handle: BoHandle,
    capacity: u64,
    used: u64,
}

// SAFETY: the raw host pointers are owned by the arena and only freed by it.
unsafe impl Send for BoArena {}

impl BoArena {
    pub fn new(capacity: u64) -> BoArena {
        BoArena {
            bos: HashMap::new(),
            next_handle: 1,
            capacity,
            used: 0,
        }
    }

    /// Allocate `size` bytes (already page-rounded by the caller or here) and map them.
    /// `exec`: instruction fetches are allowed (no `PANFROST_BO_NOEXEC`).
    pub fn create(&mut self, mmu: &Mmu, size: u64, exec: bool) -> KmodResult<BoInfo> {
        self.create_inner(mmu, size, None, exec)
    }

    /// Allocate a BO mapped at exactly `va` (4 KiB aligned; sim-only).
    pub fn create_at(&mut self, mmu: &Mmu, va: u64, size: u64) -> KmodResult<BoInfo> {
        if !va.is_multiple_of(4096) {
            return Err(KmodError::Invalid("fixed BO address not page aligned"));
        }
        // Replayed snapshots hold shader code anywhere: executable.
        self.create_inner(mmu, size, Some(va), true)
    }

    fn create_inner(
        &mut self,
        mmu: &Mmu,
        size: u64,
        at: Option<u64>,
        exec: bool,
    ) -> KmodResult<BoInfo> {
        if size == 0 {
            return Err(KmodError::Invalid("zero-sized BO"));
        }
        let size = size
            .checked_next_multiple_of(4096)
            .ok_or(KmodError::OutOfMemory)?;
        if size > self.capacity - self.used {
            return Err(KmodError::OutOfMemory);
        }
        let len = usize::try_from(size).map_err(|_| KmodError::OutOfMemory)?;
        use rustix::mm::{MapFlags, ProtFlags, mmap_anonymous};
        // SAFETY: a fresh private anonymous mapping; nothing else lives there.
        let host = unsafe {
            mmap_anonymous(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::PRIVATE | MapFlags::NORESERVE,
            )
        }
        .map_err(|_| KmodError::OutOfMemory)?
        .cast::<u8>();
        let mapped = match at {
            Some(va) => mmu.map_at(va, size, host, exec).then_some(va),
            None => mmu.map(size, host, exec),
        };
        let Some(gpu_va) = mapped else {
            // SAFETY: mapped just above with this length.
            let _ = unsafe { rustix::mm::munmap(host.cast(), len) };
            return Err(KmodError::OutOfMemory);
        };
        let handle = self.next_handle;
        self.next_handle += 1;
        let info = BoInfo {
            handle,
            gpu_va,
            size,
        };
        self.used += size;
        self.bos.insert(handle, SimBo { info, host });
        Ok(info)
    }

    pub fn host_ptr(&self, handle: BoHandle) -> KmodResult<*mut u8> {
        self.bos
            .get(&handle)
            .map(|b| b.host)
            .ok_or(KmodError::NoSuchHandle(handle))
    }

    pub fn contains(&self, handle: BoHandle) -> bool {
        self.bos.contains_key(&handle)
    }

    /// Unmap from the GPU and free the host memory.
    pub fn close(&mut self, mmu: &Mmu, handle: BoHandle) {
        if let Some(bo) = self.bos.remove(&handle) {
            // Unmapping takes the MMU's write lock, so no GPU access is in flight.
            mmu.unmap(bo.info.gpu_va);
            self.used -= bo.info.size;
            // SAFETY: mapped in `create` with this size; the GPU mapping is gone
            // and the CPU user (kmod::Device) unmapped before closing.
            let _ = unsafe { rustix::mm::munmap(bo.host.cast(), bo.info.size as usize) };
        }
    }

    /// Every live BO.
    pub fn infos(&self) -> Vec<BoInfo> {
        self.bos.values().map(|b| b.info).collect()
    }

    /// Copy the first `out.len()` bytes of a BO (the CPU's view, under the
    /// arena's lock, so the BO cannot be closed meanwhile).
    pub fn read(&self, handle: BoHandle, out: &mut [u8]) -> KmodResult<()> {
        let bo = self
            .bos
            .get(&handle)
            .ok_or(KmodError::NoSuchHandle(handle))?;
        if out.len() as u64 > bo.info.size {
            return Err(KmodError::Invalid("read beyond the end of the BO"));
        }
        // SAFETY: `host` maps `info.size` bytes until `close`, which needs
        // `&mut self`.
        unsafe { std::ptr::copy_nonoverlapping(bo.host, out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    pub fn stats(&self) -> BoStats {
        BoStats {
            count: self.bos.len() as u64,
            bytes: self.used,
        }
    }

    /// Close everything (device teardown).
    pub fn close_all(&mut self, mmu: &Mmu) {
        let handles: Vec<_> = self.bos.keys().copied().collect();
        for h in handles {
            self.close(mmu, h);
        }
    }
}
