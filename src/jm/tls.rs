//! Thread-local storage for shader jobs (the memory register spilling
//! stores to, `seg=tl`): sizes the TLS buffer by the rule of facts §3.7 and
//! fills the TLS fields of a Local Storage descriptor.
//!
//! The rule: `TLS Size` = `ceil(log2(ceil(bytes / 16)))` (per-thread bytes
//! are `16 << TLS Size`), and the buffer holds that many bytes for every
//! thread slot of every core that may exist: `threads_per_core ×
//! core_id_range`, with `threads_per_core` = `THREAD_TLS_ALLOC` or else
//! `MAX_THREADS` (or the per-arch default of facts §5.5 when the kernel
//! reports neither) and `core_id_range` = highest set bit of
//! `SHADER_PRESENT` + 1. The hardware picks a thread's slot itself; the
//! driver only guarantees the buffer is large enough.
//!
//! This module must never guess a core count: a device that does not report
//! `SHADER_PRESENT` gets an error, not a buffer that may be too small.

use super::pool::GpuPool;
use crate::hw::Arch;
use crate::hw::layout::Field;
use crate::hw::storage::local_storage as ls;
use crate::kmod::{Device, KmodError, KmodResult, Param};

/// How a job's thread storage is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlsSizing {
    /// The `TLS Size` field: per-thread bytes are `16 << size_field`.
    pub size_field: u32,
    pub per_thread: u64,
    pub threads_per_core: u64,
    pub core_id_range: u64,
}

impl TlsSizing {
    /// Bytes of the whole TLS buffer.
    pub fn buffer_bytes(&self) -> u64 {
        self.per_thread * self.threads_per_core * self.core_id_range
    }
}

/// Thread slots per core when the kernel reports neither `THREAD_TLS_ALLOC`
/// nor `MAX_THREADS` (Mesa's kmod defaults, facts §5.5).
fn default_threads_per_core(arch: Arch) -> u64 {
    match arch {
        Arch::V6 => 384,
        Arch::V7 => 768,
    }
}

/// The sizing for a shader needing `tls_bytes` per thread (`None`: none).
pub fn sizing(device: &Device, arch: Arch, tls_bytes: u32) -> KmodResult<Option<TlsSizing>> {
    if tls_bytes == 0 {
        return Ok(None);
    }
    let units = u64::from(tls_bytes).div_ceil(16);
    let size_field = units.next_power_of_two().trailing_zeros();
    let param = |p: Param| device.kernel().get_param(p).ok().filter(|&v| v > 0);
    let threads_per_core = param(Param::ThreadTlsAlloc)
        .or_else(|| param(Param::MaxThreads))
        .unwrap_or_else(|| default_threads_per_core(arch));
    let present = param(Param::ShaderPresent).ok_or(KmodError::Invalid(
        "SHADER_PRESENT unknown: cannot size thread-local storage",
    ))?;
    Ok(Some(TlsSizing {
        size_field,
        per_thread: 16 << size_field,
        threads_per_core,
        core_id_range: u64::from(64 - present.leading_zeros()),
    }))
}

/// Allocates the TLS buffer for a shader needing `tls_bytes` per thread and
/// sets `TLS Size` / `TLS Base Pointer` in the Local Storage words `lsw`.
/// Nothing happens when `tls_bytes` is 0 (the fields keep their defaults).
pub fn emit_thread_storage(
    pool: &mut GpuPool,
    arch: Arch,
    lsw: &mut [u32],
    tls_bytes: u32,
) -> KmodResult<Option<TlsSizing>> {
    let Some(s) = sizing(pool.device(), arch, tls_bytes)? else {
        return Ok(None);
    };
    if s.size_field >= 1 << ls::TLS_SIZE.width {
        return Err(KmodError::Invalid("thread-local storage too large"));
    }
    // Spill code writes every slot before reading it: no need to clear.
    let tls = pool.alloc(s.buffer_bytes(), 4096)?;
    set(lsw, ls::TLS_SIZE, u64::from(s.size_field))?;
    set(lsw, ls::TLS_BASE_POINTER, tls.gpu_va)?;
    Ok(Some(s))
}

fn set(words: &mut [u32], f: Field, v: u64) -> KmodResult<()> {
    f.set(words, v)
        .map_err(|_| KmodError::Invalid("local storage field overflow"))
}
