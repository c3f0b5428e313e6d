//! A bump allocator of GPU memory for one command buffer: descriptors and job
//! headers are carved out of 64 KiB BOs; reset rewinds, drop frees.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::kmod::{BO_NOEXEC, Bo, BoHandle, Device, KmodResult};

/// Size of each BO the pool takes from the kernel.
pub const CHUNK: u64 = 64 * 1024;

/// A piece of pool memory: its GPU VA and CPU pointer.
#[derive(Clone, Copy, Debug)]
pub struct GpuAlloc {
    pub gpu_va: u64,
    pub cpu: *mut u8,
    pub size: u64,
}

// SAFETY: the pointer addresses a mapped pool BO (plain shared memory); the
// owning command buffer is externally synchronised per the Vulkan spec.
unsafe impl Send for GpuAlloc {}
// SAFETY: as above.
unsafe impl Sync for GpuAlloc {}

impl GpuAlloc {
    /// Write little-endian words at `offset` bytes into the allocation.
    pub fn write_words(&self, offset: u64, words: &[u32]) {
        self.write_le(offset, words, |w| w.to_le_bytes());
    }

    /// Write little-endian 64-bit words at `offset` bytes into the allocation.
    pub fn write_u64s(&self, offset: u64, words: &[u64]) {
        self.write_le(offset, words, |w| w.to_le_bytes());
    }

    /// Write each element's `N` bytes, back to back, without a temporary.
    fn write_le<T: Copy, const N: usize>(
        &self,
        offset: u64,
        v: &[T],
        bytes: impl Fn(T) -> [u8; N],
    ) {
        assert!(
            offset + (N * v.len()) as u64 <= self.size,
            "pool write out of range"
        );
        for (i, &w) in v.iter().enumerate() {
            // SAFETY: in range of the allocation (checked above), which
            // lives in a mapped pool BO; unaligned writes are allowed.
            unsafe {
                self.cpu
                    .add(offset as usize + N * i)
                    .cast::<[u8; N]>()
                    .write_unaligned(bytes(w))
            }
        }
    }

    /// Write raw bytes at `offset` bytes into the allocation.
    pub fn write_bytes(&self, offset: u64, bytes: &[u8]) {
        assert!(
            offset + bytes.len() as u64 <= self.size,
            "pool write out of range"
        );
        // SAFETY: in range of the allocation, which lives in a mapped pool BO.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.cpu.add(offset as usize),
                bytes.len(),
            )
        }
    }

    /// Zero `len` bytes at `offset`.
    pub fn zero(&self, offset: u64, len: u64) {
        assert!(offset + len <= self.size, "pool write out of range");
        // SAFETY: as in `write_words`.
        unsafe { std::ptr::write_bytes(self.cpu.add(offset as usize), 0, len as usize) }
    }
}

pub struct GpuPool {
    device: Arc<Device>,
    bos: Vec<Bo>,
    /// Index of the BO being filled and its fill level.
    current: usize,
    used: u64,
    /// Descriptors written once and shared by every job that would write
    /// the same words (a program's renderer state, an empty local-storage
    /// descriptor): key → GPU VA. They live in the pool's memory, so a
    /// reset forgets them with it.
    shared: FxHashMap<SharedKey, u64>,
    /// Job payloads packed lately (`super::compute::PayloadMemo`).
    pub(super) payloads: super::compute::PayloadMemo,
    /// GPU VA of the local-storage descriptor written last
    /// (`Recorder::compute_deferred_wls` reads it).
    pub(super) last_local_storage: u64,
    /// Executable BOs (created without NOEXEC) for the code the recorder
    /// builds itself (blend shaders, `super::blend`), the fill level of
    /// the last one, and the code already uploaded (its text key → VA).
    code: Vec<Bo>,
    code_used: u64,
    pub(super) code_cache: FxHashMap<String, u64>,
    /// Colour preload shaders compiled for this pool (`jm::preload`).
    pub(super) preload_cache: FxHashMap<String, super::preload::PreloadShader>,
}

/// What a shared descriptor's words are a function of (`jm::compute`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SharedKey {
    /// A renderer state: the code address and the other inputs packed.
    RendererState([u64; 4]),
    /// Local storage with neither thread- nor workgroup-local memory.
    EmptyLocalStorage,
    /// [`ZEROS_BYTES`] of zeros that no job writes.
    Zeros,
}

/// Size of the shared read-only zero block (`SharedKey::Zeros`).
pub const ZEROS_BYTES: u64 = 64;

// SAFETY: the pool's BOs are plain shared memory; command buffers are
// externally synchronised per the Vulkan spec.
unsafe impl Send for GpuPool {}

impl GpuPool {
    pub fn new(device: Arc<Device>) -> GpuPool {
        GpuPool {
            device,
            bos: Vec::new(),
            current: 0,
            used: 0,
            shared: FxHashMap::default(),
            payloads: super::compute::PayloadMemo::default(),
            last_local_storage: 0,
            code: Vec::new(),
            code_used: 0,
            code_cache: FxHashMap::default(),
            preload_cache: FxHashMap::default(),
        }
    }

    /// Uploads machine code to executable memory (128-byte aligned, as
    /// shader addresses must be); its GPU VA. All of it lies in one BO.
    pub fn upload_code(&mut self, code: &[u8]) -> KmodResult<u64> {
        let size = code.len() as u64;
        let start = self.code_used.next_multiple_of(128);
        let fits = self.code.last().is_some_and(|bo| start + size <= bo.size());
        let start = if fits {
            start
        } else {
            let bo = self.device.bo_create(size.max(CHUNK), 0)?;
            self.code.push(bo);
            0
        };
        let bo = self.code.last().expect("a code BO");
        // SAFETY: start + size <= bo.size(), inside the mapping.
        unsafe {
            std::ptr::copy_nonoverlapping(code.as_ptr(), bo.ptr().add(start as usize), code.len())
        };
        self.code_used = start + size;
        Ok(bo.gpu_va() + start)
    }

    /// The GPU VA of the shared descriptor `key`: the one written since
    /// the last reset, or the one `write` writes now (into this pool).
    pub fn shared<E>(
        &mut self,
        key: SharedKey,
        write: impl FnOnce(&mut GpuPool) -> Result<u64, E>,
    ) -> Result<u64, E> {
        if let Some(&va) = self.shared.get(&key) {
            return Ok(va);
        }
        let va = write(self)?;
        self.shared.insert(key, va);
        Ok(va)
    }

    /// `size` bytes aligned to `align` (a power of two ≤ 4096).
    pub fn alloc(&mut self, size: u64, align: u64) -> KmodResult<GpuAlloc> {
        loop {
            if let Some(bo) = self.bos.get(self.current) {
                let start = self.used.next_multiple_of(align);
                if start + size <= bo.size() {
                    self.used = start + size;
                    return Ok(GpuAlloc {
                        gpu_va: bo.gpu_va() + start,
                        // SAFETY: start < bo.size(), inside the mapping.
                        cpu: unsafe { bo.ptr().add(start as usize) },
                        size,
                    });
                }
                if self.current + 1 < self.bos.len() {
                    self.current += 1;
                    self.used = 0;
                    continue;
                }
            }
            let bo = self.device.bo_create(size.max(CHUNK), BO_NOEXEC)?;
            self.bos.push(bo);
            self.current = self.bos.len() - 1;
            self.used = 0;
        }
    }

    /// The device the pool allocates from (its GET_PARAM values size
    /// per-core buffers such as thread-local storage).
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Forget every allocation; keep the BOs for reuse.
    pub fn reset(&mut self) {
        self.current = 0;
        self.used = 0;
        self.shared.clear();
        self.payloads = super::compute::PayloadMemo::default();
        self.last_local_storage = 0;
        // Code stays where it is (a later submit may still run it): the
        // cache keeps pointing at it.
    }

    /// Handles of the pool's BOs (SUBMIT's BO list).
    pub fn bo_handles(&self) -> impl Iterator<Item = BoHandle> + '_ {
        self.bos.iter().chain(&self.code).map(|b| b.handle())
    }
}

impl Drop for GpuPool {
    fn drop(&mut self) {
        for bo in self.bos.drain(..).chain(self.code.drain(..)) {
            self.device.bo_destroy(bo);
        }
    }
}
