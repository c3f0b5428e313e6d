//! vkCmdCopyBuffer, vkCmdFillBuffer, vkCmdUpdateBuffer and
//! vkCmdCopyQueryPoolResults as GPU work: the driver's copy, fill and
//! query-copy kernels (`compiler::kernels::{transfer, query}`), one job per
//! region (split at 4 GiB − 1 bytes, the kernels' 32-bit size).
//!
//! Transfers are not ordered against other commands unless a barrier says
//! so (Vulkan spec, "Synchronization and Cache Control"); query copies wait
//! for everything before them (a job barrier), which is how the `WAIT` flag
//! is honoured on the GPU.

use ash::vk;

use super::recording::{Fail, Recording};
use crate::compiler::kernels::query::{QueryCopy, query_grid, query_words};
use crate::compiler::kernels::transfer::{MAX_BYTES, copy_grid, copy_words, fill_words};
use crate::vk::buffer::Buffer;
use crate::vk::kernels::KernelId;
use crate::vk::query::QueryPool;

/// Most bytes vkCmdUpdateBuffer takes (the spec's limit).
const MAX_UPDATE: u64 = 65536;

impl Recording {
    fn copy_range(&mut self, src: u64, dst: u64, size: u64) -> Result<(), Fail> {
        let mut done = 0;
        while done < size {
            // Whole words keep the next piece's alignment.
            let n = (size - done).min(MAX_BYTES & !3);
            let words = copy_words(src + done, dst + done, n);
            self.run_kernel_grid(KernelId::CopyBuffer, &words, copy_grid(n), [0, 0])?;
            done += n;
        }
        Ok(())
    }

    /// vkCmdCopyBuffer.
    pub fn copy_buffer(&mut self, src: &Buffer, dst: &Buffer, regions: &[vk::BufferCopy]) {
        self.record(|r| {
            for region in regions {
                r.ensure_room(super::recording::JOBS_PER_COMMAND);
                let (Some((s, sn, sbo)), Some((d, dn, dbo))) = (
                    src.range(region.src_offset, region.size),
                    dst.range(region.dst_offset, region.size),
                ) else {
                    log::warn!("vkCmdCopyBuffer: region outside a buffer (invalid usage)");
                    continue;
                };
                if sn < region.size || dn < region.size {
                    log::warn!("vkCmdCopyBuffer: region outside a buffer (invalid usage)");
                    continue;
                }
                r.rec.use_bo(sbo);
                r.rec.use_bo(dbo);
                r.copy_range(s, d, region.size)?;
            }
            Ok(())
        });
    }

    /// vkCmdFillBuffer (`size` may be VK_WHOLE_SIZE: rounded down to words).
    pub fn fill_buffer(&mut self, dst: &Buffer, offset: u64, size: u64, data: u32) {
        self.record(|r| {
            let Some((d, n, bo)) = dst.range(offset, size) else {
                log::warn!("vkCmdFillBuffer: offset beyond the buffer (invalid usage)");
                return Ok(());
            };
            if !d.is_multiple_of(4) {
                log::warn!("vkCmdFillBuffer: offset not a multiple of 4 (invalid usage)");
                return Ok(());
            }
            let n = n & !3;
            r.rec.use_bo(bo);
            let mut done = 0;
            while done < n {
                let piece = (n - done).min(MAX_BYTES & !3);
                let words = fill_words(d + done, piece, data);
                r.run_kernel_grid(KernelId::FillBuffer, &words, copy_grid(piece), [0, 0])?;
                done += piece;
            }
            Ok(())
        });
    }

    /// vkCmdUpdateBuffer: the data goes into the command buffer's pool at
    /// record time and is copied on the GPU, so each submit writes it again.
    pub fn update_buffer(&mut self, dst: &Buffer, offset: u64, data: &[u8]) {
        self.record(|r| {
            let n = data.len() as u64;
            if n == 0 || n > MAX_UPDATE {
                log::warn!("vkCmdUpdateBuffer: {n} bytes (invalid usage)");
                return Ok(());
            }
            let Some((d, room, bo)) = dst.range(offset, n) else {
                log::warn!("vkCmdUpdateBuffer: offset beyond the buffer (invalid usage)");
                return Ok(());
            };
            if room < n {
                log::warn!("vkCmdUpdateBuffer: data beyond the buffer (invalid usage)");
                return Ok(());
            }
            let staging = r.rec.alloc(n, 16)?;
            staging.write_bytes(0, data);
            r.rec.use_bo(bo);
            r.copy_range(staging.gpu_va, d, n)
        });
    }

    /// vkCmdCopyQueryPoolResults (its parameters, as the command has them).
    #[allow(clippy::too_many_arguments)]
    pub fn copy_query_results(
        &mut self,
        qp: &QueryPool,
        first: u32,
        count: u32,
        dst: &Buffer,
        offset: u64,
        stride: u64,
        flags: vk::QueryResultFlags,
    ) {
        self.record(|r| {
            if first.checked_add(count).is_none_or(|e| e > qp.count) || count == 0 {
                return Ok(());
            }
            let Some((d, _, bo)) = dst.range(offset, vk::WHOLE_SIZE) else {
                log::warn!("vkCmdCopyQueryPoolResults: offset beyond the buffer (invalid usage)");
                return Ok(());
            };
            let Ok(stride) = u32::try_from(stride) else {
                return Err(Fail::Vk(vk::Result::ERROR_UNKNOWN));
            };
            r.rec.use_bo(bo);
            r.rec.use_bo(qp.bo_handle());
            let words = query_words(&QueryCopy {
                pool: qp.value_va(first),
                slot_bytes: qp.slot_size() as u32,
                values_per_query: qp.values,
                count,
                dst: d,
                stride,
                flags: flags.as_raw(),
            });
            r.rec.barrier();
            r.run_kernel_grid(
                KernelId::CopyQueryResults,
                &words,
                query_grid(count),
                [0, 0],
            )?;
            // Later commands that read the results are ordered by their own barrier.
            Ok(())
        });
    }
}
