//! The simulated GPU's address space: VA allocation and MMU-checked access.
//!
//! Every GPU read or write the simulator performs goes through [`Mmu::read`] /
//! [`Mmu::write`], which check the whole range against the mapped BOs and
//! report a [`MmuFault`] otherwise, like a translation fault on hardware. The
//! MMU never invents memory: an access outside every BO is a fault.
//!
//! Mappings carry the uAPI's execute permission: a BO created with
//! `PANFROST_BO_NOEXEC` is mapped without it (the kernel's
//! `panfrost_gem_create` maps such BOs with `IOMMU_NOEXEC`), and an
//! instruction fetch from it ([`Mmu::fetch`]) faults like any other
//! unpermitted access.

use std::collections::BTreeMap;
use std::sync::RwLock;

/// First GPU VA handed out (panfrost's user VA range starts at 32 MiB).
pub const VA_START: u64 = 32 << 20;
/// End of the GPU VA range (exclusive; 4 GiB as on panfrost).
pub const VA_END: u64 = 4 << 30;
/// Unmapped gap kept after every BO so overruns fault instead of hitting a neighbour.
pub const GUARD: u64 = 4096;

/// A GPU access outside every mapped BO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmuFault {
    pub va: u64,
    pub write: bool,
}

#[derive(Clone, Copy, Debug)]
struct Mapping {
    size: u64,
    /// Instruction fetches allowed (the BO was created without NOEXEC).
    exec: bool,
    /// Host address of the BO's first byte.
    host: usize,
}

/// VA → host memory of every mapped BO.
#[derive(Default)]
pub struct Mmu {
    maps: RwLock<BTreeMap<u64, Mapping>>,
}

impl Mmu {
    /// Find a free VA range of `size` bytes (4 KiB aligned) and map `host` there.
    pub fn map(&self, size: u64, host: *mut u8, exec: bool) -> Option<u64> {
        let mut maps = self.maps.write().unwrap();
        let mut candidate = VA_START;
        for (&va, m) in maps.iter() {
            if candidate + size + GUARD <= va {
                break;
            }
            candidate = candidate.max((va + m.size + GUARD).next_multiple_of(4096));
        }
        if candidate.checked_add(size)? > VA_END {
            return None;
        }
        maps.insert(
            candidate,
            Mapping {
                size,
                exec,
                host: host as usize,
            },
        );
        Some(candidate)
    }

    /// Map `host` at exactly `va` (sim-only: replaying snapshots whose
    /// memory lives at fixed addresses). False if it overlaps a mapping or
    /// leaves the VA range.
    pub fn map_at(&self, va: u64, size: u64, host: *mut u8, exec: bool) -> bool {
        let mut maps = self.maps.write().unwrap();
        let Some(end) = va.checked_add(size) else {
            return false;
        };
        if va == 0 || end > VA_END {
            return false;
        }
        if let Some((&b, m)) = maps.range(..end).next_back()
            && b + m.size > va
        {
            return false;
        }
        maps.insert(
            va,
            Mapping {
                size,
                exec,
                host: host as usize,
            },
        );
        true
    }

    pub fn unmap(&self, va: u64) {
        self.maps.write().unwrap().remove(&va);
    }

    /// Run `f` on the host bytes of `[va, va+len)` if one BO covers them all.
    fn with_range<R>(
        &self,
        va: u64,
        len: usize,
        write: bool,
        fetch: bool,
        f: impl FnOnce(*mut u8) -> R,
    ) -> Result<R, MmuFault> {
        let fault = MmuFault { va, write };
        let maps = self.maps.read().unwrap();
        let (&base, m) = maps.range(..=va).next_back().ok_or(fault)?;
        if fetch && !m.exec && va < base + m.size {
            // A permission fault: the page is mapped, but not executable.
            return Err(fault);
        }
        let end = va.checked_add(len as u64).ok_or(fault)?;
        if end > base + m.size {
            // Name the first byte that is not mapped.
            return Err(MmuFault {
                va: (base + m.size).max(va),
                write,
            });
        }
        // The read lock keeps the mapping alive while `f` runs.
        Ok(f((m.host + (va - base) as usize) as *mut u8))
    }

    /// GPU read of `out.len()` bytes at `va`.
    pub fn read(&self, va: u64, out: &mut [u8]) -> Result<(), MmuFault> {
        self.with_range(va, out.len(), false, false, |p| {
            // SAFETY: the range lies inside a live BO (checked above). CPU
            // threads may write it concurrently, as on real shared memory.
            unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), out.len()) }
        })
    }

    /// Instruction fetch of `out.len()` bytes at `va`: as [`Mmu::read`],
    /// and the BO must be executable (created without NOEXEC).
    pub fn fetch(&self, va: u64, out: &mut [u8]) -> Result<(), MmuFault> {
        self.with_range(va, out.len(), false, true, |p| {
            // SAFETY: as in `read`.
            unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), out.len()) }
        })
    }

    /// GPU write of `data` at `va`.
    pub fn write(&self, va: u64, data: &[u8]) -> Result<(), MmuFault> {
        self.with_range(va, data.len(), true, false, |p| {
            // SAFETY: as in `read`.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) }
        })
    }

    /// Read `n` little-endian 32-bit words (a descriptor) at `va`.
    pub fn read_words(&self, va: u64, n: usize) -> Result<Vec<u32>, MmuFault> {
        let mut bytes = vec![0u8; n * 4];
        self.read(va, &mut bytes)?;
        Ok(crate::hw::layout::words_from_bytes(&bytes))
    }

    /// Write little-endian 32-bit words at `va`.
    pub fn write_words(&self, va: u64, words: &[u32]) -> Result<(), MmuFault> {
        self.write(va, &crate::hw::layout::bytes_from_words(words))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accesses_outside_bos_fault() {
        let mmu = Mmu::default();
        let mut a = vec![0u8; 8192];
        let mut b = vec![0u8; 4096];
        let va_a = mmu.map(8192, a.as_mut_ptr(), false).unwrap();
        let va_b = mmu.map(4096, b.as_mut_ptr(), false).unwrap();
        assert_eq!(va_a, VA_START);
        assert!(va_b >= va_a + 8192 + GUARD);
        mmu.write(va_a + 8188, &[1, 2, 3, 4]).unwrap();
        assert_eq!(&a[8188..], &[1, 2, 3, 4]);
        assert_eq!(
            mmu.write(va_a + 8190, &[0; 4]),
            Err(MmuFault {
                va: va_a + 8192,
                write: true
            })
        );
        assert!(mmu.read(0, &mut [0; 4]).is_err());
        mmu.unmap(va_a);
        assert!(mmu.read(va_a, &mut [0; 4]).is_err());
        // The freed range is reused.
        assert_eq!(mmu.map(4096, a.as_mut_ptr(), false), Some(VA_START));
    }
}
