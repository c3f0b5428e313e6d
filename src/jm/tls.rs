//! Thread-local storage for shader jobs (the memory register spilling
//! stores to, `seg=tl`): sizes the TLS buffer by Mesa's rule (`pan_emit_tls`,
//! `src/panfrost/lib/pan_desc.c`) and
//! fills the TLS fields of a Local Storage descriptor.
//!
//! The rule: `TLS Size` = `ceil(log2(ceil(bytes / 16)))` (per-thread bytes
//! are `16 << TLS Size`), and the buffer holds that many bytes for every
//! thread slot of every core that may exist: `threads_per_core ×
//! core_id_range`, with `threads_per_core` = `THREAD_TLS_ALLOC` or else
//! `MAX_THREADS` (or the per-arch default of Mesa's
//! `src/panfrost/lib/kmod/panfrost_kmod.c` when the kernel
//! reports neither) and `core_id_range` = highest set bit of
//! `SHADER_PRESENT` + 1. The hardware picks a thread's slot itself; the
//! driver only guarantees the buffer is large enough.
//!
//! This module must never guess a core count: a device that does not report
//! `SHADER_PRESENT` gets an error, not a buffer that may be too small.

use super::error::{JmError, JmResult};
use super::pool::GpuPool;
use crate::hw::Arch;
use crate::hw::layout::Field;
use crate::hw::storage::local_storage as ls;
use crate::kmod::{Device, Param};

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
/// nor `MAX_THREADS` (Mesa's kmod defaults, `src/panfrost/lib/kmod/panfrost_kmod.c`).
fn default_threads_per_core(arch: Arch) -> u64 {
    match arch {
        Arch::V6 => 384,
        Arch::V7 => 768,
    }
}

/// The sizing for a shader needing `tls_bytes` per thread (`None`: none).
pub fn sizing(device: &Device, arch: Arch, tls_bytes: u32) -> JmResult<Option<TlsSizing>> {
    if tls_bytes == 0 {
        return Ok(None);
    }
    let units = u64::from(tls_bytes).div_ceil(16);
    let size_field = units.next_power_of_two().trailing_zeros();
    let param = |p: Param| device.kernel().get_param(p).ok().filter(|&v| v > 0);
    let threads_per_core = param(Param::ThreadTlsAlloc)
        .or_else(|| param(Param::MaxThreads))
        .unwrap_or_else(|| default_threads_per_core(arch));
    let present = param(Param::ShaderPresent).ok_or(JmError::Encoding(
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
) -> JmResult<Option<TlsSizing>> {
    let Some(s) = sizing(pool.device(), arch, tls_bytes)? else {
        return Ok(None);
    };
    if s.size_field >= 1 << ls::TLS_SIZE.width {
        return Err(JmError::Encoding("thread-local storage too large"));
    }
    // Spill code writes every slot before reading it: no need to clear.
    let tls = pool.alloc(s.buffer_bytes(), 4096)?;
    set(lsw, ls::TLS_SIZE, u64::from(s.size_field))?;
    set(lsw, ls::TLS_BASE_POINTER, tls.gpu_va)?;
    Ok(Some(s))
}

fn set(words: &mut [u32], f: Field, v: u64) -> JmResult<()> {
    f.set(words, v)
        .map_err(|_| JmError::Encoding("local storage field overflow"))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::compiler::bifrost::binary::ShaderBinary;
    use crate::jm::{JobChain, XfbJob, add_xfb_job};
    use crate::kmod::sim::{SimDevice, SimModel};

    fn pool(model: SimModel) -> GpuPool {
        GpuPool::new(Arc::new(Device::with_dump_dir(
            Box::new(SimDevice::new(model)),
            None,
        )))
    }

    #[test]
    fn sizes_follow_the_facts_rule_and_the_device() {
        // G52 model: MP2 (SHADER_PRESENT 0x3), 768 threads; G72: MP3, 384.
        let g52 = pool(SimModel::G52);
        let s = sizing(g52.device(), Arch::V7, 1280).unwrap().unwrap();
        // ceil(1280 / 16) = 80 → 128 units → TLS Size 7, 2048 bytes.
        assert_eq!((s.size_field, s.per_thread), (7, 2048));
        assert_eq!((s.threads_per_core, s.core_id_range), (768, 2));
        assert_eq!(s.buffer_bytes(), 2048 * 768 * 2);
        let g72 = pool(SimModel::G72);
        let s = sizing(g72.device(), Arch::V6, 4).unwrap().unwrap();
        assert_eq!((s.size_field, s.per_thread), (0, 16));
        assert_eq!((s.threads_per_core, s.core_id_range), (384, 3));
        let s = sizing(g72.device(), Arch::V6, 17).unwrap().unwrap();
        assert_eq!((s.size_field, s.per_thread), (1, 32));
        assert_eq!(sizing(g72.device(), Arch::V6, 0).unwrap(), None);
    }

    #[test]
    fn local_storage_fields_point_at_the_buffer() {
        let mut pool = pool(SimModel::G52);
        let l = crate::hw::layouts(Arch::V7);
        let mut lsw = l.local_storage.defaults();
        let none = emit_thread_storage(&mut pool, Arch::V7, &mut lsw, 0).unwrap();
        assert_eq!(none, None);
        assert_eq!(lsw, l.local_storage.defaults());
        let s = emit_thread_storage(&mut pool, Arch::V7, &mut lsw, 100)
            .unwrap()
            .unwrap();
        assert_eq!(ls::TLS_SIZE.get(&lsw), 3); // 7 units → 8 → 128 bytes
        assert_eq!(s.per_thread, 128);
        let base = ls::TLS_BASE_POINTER.get(&lsw);
        assert!(base != 0 && base.is_multiple_of(4096));
        // The next allocation starts past the whole buffer.
        let after = pool.alloc(16, 16).unwrap().gpu_va;
        assert!(after >= base + s.buffer_bytes() || after < base);
    }

    #[test]
    fn xfb_jobs_take_thread_storage_but_not_workgroup_memory() {
        let mut pool = pool(SimModel::G52);
        let mut chain = JobChain::new();
        let mut b = ShaderBinary {
            code: vec![0; 256],
            tls_size: 64,
            ..ShaderBinary::default()
        };
        fn job(b: &ShaderBinary) -> XfbJob<'_> {
            XfbJob {
                binary: b,
                // Never fetched: these jobs are only encoded.
                code: 0x10_0000,
                push_buffer: None,
                push_uniforms: &[],
                ubos: &[],
                invocations_per_instance: 3,
                instance_count: 1,
                attributes: None,
                offset_start: 0,
                instance_size: 1,
            }
        }
        let b1 = b.clone();
        assert!(matches!(
            add_xfb_job(&mut chain, &mut pool, Arch::V7, &job(&b1), [0, 0]),
            Ok(Some(_))
        ));
        b.shared_size = 16;
        assert!(add_xfb_job(&mut chain, &mut pool, Arch::V7, &job(&b), [0, 0]).is_err());
    }
}
