//! VK_EXT_transform_feedback commands: binding the XFB buffers, Begin and
//! End (with counter buffers), and the per-draw capture.
//!
//! While transform feedback is active, a command buffer owns an **offsets
//! block** in its pool: u32\[4\] byte offsets of the next write, relative
//! to each binding (`compiler::kernels::xfb`). Every job that reads or
//! writes it waits for the previous one:
//!
//! - Begin: the `xfb_begin` kernel sets each offset from its counter
//!   buffer (resume) or to 0. It always runs on the GPU, so a command
//!   buffer submitted again starts from the counters' current contents.
//! - each draw: the capture job (the pipeline's XFB variant, one
//!   invocation per captured vertex) reads the offsets, then the
//!   `xfb_advance` kernel moves them past the primitives that fit every
//!   bound buffer (whole primitives only).
//! - End: the `xfb_end` kernel writes the offsets to the counter buffers
//!   given.
//!
//! No CPU work depends on the vertex or instance count: the draw's
//! parameters are O(1) words (`XfbDraw::params`).

use super::recording::{Fail, Recording};
use super::state::BoundRange;
use crate::compiler::kernels::xfb::{advance_words, counter_words};
use crate::compiler::passes::lower_xfb::XFB_MAX_BUFFERS;
use crate::jm::ComputeJob;
use crate::vk::kernels::KernelId;

/// Transform feedback between Begin and End.
#[derive(Clone, Copy, Debug)]
pub struct ActiveXfb {
    /// GPU VA of the offsets block.
    pub offsets: u64,
    /// The last job that touched the offsets block.
    pub last_job: u16,
}

#[derive(Default)]
pub struct XfbState {
    pub bindings: [Option<BoundRange>; XFB_MAX_BUFFERS as usize],
    pub active: Option<ActiveXfb>,
    /// The active transform-feedback stream query (stream 0), if any
    /// (`vk::cmd::query`).
    pub query: Option<super::query::ActiveXfbQuery>,
    /// The active primitives-generated query, if any.
    pub generated: Option<super::query::ActiveXfbQuery>,
}

/// A counter buffer entry of Begin/End: GPU address of its u32 and BO.
pub type Counter = Option<(u64, crate::kmod::BoHandle)>;

impl Recording {
    /// One run of an internal kernel (1×1×1) with `words` as its push uniforms.
    pub fn run_kernel(&mut self, id: KernelId, words: &[u64], deps: [u16; 2]) -> Result<u16, Fail> {
        self.run_kernel_grid(id, words, ([1, 1, 1], [1, 1, 1]), deps)
    }

    /// An internal kernel over a grid of (local size, workgroups).
    pub fn run_kernel_grid(
        &mut self,
        id: KernelId,
        words: &[u64],
        grid: ([u32; 3], [u32; 3]),
        deps: [u16; 2],
    ) -> Result<u16, Fail> {
        self.run_kernel_into(id, words, grid, deps, None)
    }

    /// [`Recording::run_kernel_grid`] with the push words in `push_buffer`
    /// (so the caller can rewrite a word before the submit).
    pub fn run_kernel_into(
        &mut self,
        id: KernelId,
        words: &[u64],
        (local_size, groups): ([u32; 3], [u32; 3]),
        deps: [u16; 2],
        push_buffer: Option<crate::jm::GpuAlloc>,
    ) -> Result<u16, Fail> {
        let core = self.core.clone();
        let k = core.kernels.get(&core.kdev, core.arch, id)?;
        self.rec.use_bo(k.bo_handle());
        Ok(self.rec.compute(
            &ComputeJob {
                binary: &k.binary,
                code: k.va(),
                push_uniforms: words,
                local_size,
                groups,
                ubos: &[],
                attributes: None,
                push_buffer,
            },
            deps,
        )?)
    }

    /// vkCmdBindTransformFeedbackBuffersEXT.
    pub fn bind_xfb_buffers(&mut self, first: u32, ranges: &[Option<BoundRange>]) {
        self.record(|r| {
            for (i, range) in ranges.iter().enumerate() {
                let b = first as usize + i;
                if b >= r.xfb.bindings.len() {
                    log::warn!("XFB binding {b} out of range (invalid usage)");
                    break;
                }
                r.xfb.bindings[b] = *range;
            }
            Ok(())
        });
    }

    fn counter_words(
        offsets: u64,
        first: u32,
        counters: &[Counter],
    ) -> [u64; counter_words::COUNT as usize] {
        let mut words = [0u64; counter_words::COUNT as usize];
        words[counter_words::OFFSETS as usize] = offsets;
        for (i, c) in counters.iter().enumerate() {
            let b = first as usize + i;
            if let (Some((addr, _)), true) = (c, b < XFB_MAX_BUFFERS as usize) {
                words[counter_words::COUNTERS as usize + b] = *addr;
            }
        }
        words
    }

    /// vkCmdBeginTransformFeedbackEXT.
    pub fn begin_xfb(&mut self, first: u32, counters: &[Counter]) {
        self.record(|r| {
            if r.xfb.active.is_some() {
                log::warn!("vkCmdBeginTransformFeedbackEXT while active (invalid usage)");
                return Ok(());
            }
            if r.view_mask() != 0 {
                log::warn!(
                    "vkCmdBeginTransformFeedbackEXT in a multiview subpass (VUID-vkCmdBeginTransformFeedbackEXT-None-02373), ignored"
                );
                return Ok(());
            }
            for c in counters.iter().flatten() {
                r.rec.use_bo(c.1);
            }
            let block = r.rec.alloc_zeroed(16, 16)?;
            let words = Self::counter_words(block.gpu_va, first, counters);
            // Counters were written by earlier commands (a barrier is the
            // application's duty, but Begin reading them is ordered anyway).
            r.rec.barrier();
            let job = r.run_kernel(KernelId::XfbBegin, &words, [0, 0])?;
            r.xfb.active = Some(ActiveXfb {
                offsets: block.gpu_va,
                last_job: job,
            });
            Ok(())
        });
    }

    /// vkCmdEndTransformFeedbackEXT.
    pub fn end_xfb(&mut self, first: u32, counters: &[Counter]) {
        self.record(|r| {
            let Some(active) = r.xfb.active.take() else {
                log::warn!("vkCmdEndTransformFeedbackEXT while not active (invalid usage)");
                return Ok(());
            };
            if counters.iter().all(Option::is_none) {
                return Ok(());
            }
            for c in counters.iter().flatten() {
                r.rec.use_bo(c.1);
            }
            let words = Self::counter_words(active.offsets, first, counters);
            r.run_kernel(KernelId::XfbEnd, &words, [active.last_job, 0])?;
            Ok(())
        });
    }

    /// The draw's parameter words and instance count in GPU memory (what the
    /// advance kernel reads, and what the restart kernel patches).
    pub fn xfb_params_block(&mut self, params: &[u32], instances: u32) -> Result<u64, Fail> {
        let block = self.rec.alloc(4 * params.len() as u64 + 4, 16)?;
        block.write_words(0, params);
        block.write_words(4 * params.len() as u64, &[instances]);
        Ok(block.gpu_va)
    }

    /// After a capture job (or none): the advance kernel for the draw whose
    /// `params_len` parameter words and instance count are at `block`.
    pub fn xfb_advance(
        &mut self,
        block: u64,
        params_len: usize,
        strides: [u32; 4],
        after: u16,
    ) -> Result<(), Fail> {
        let Some(mut active) = self.xfb.active else {
            return Ok(());
        };
        let mut words = [0u64; advance_words::COUNT as usize];
        words[advance_words::PARAMS as usize] = block;
        words[advance_words::INSTANCES as usize] = block + 4 * params_len as u64;
        // With an active stream query the kernel adds the draw's written
        // and needed primitives to its pair, after Begin zeroed it.
        let (query, zeroed) = self.xfb.query.map_or((0, 0), |q| (q.results, q.zeroed));
        words[advance_words::QUERY as usize] = query;
        words[advance_words::STRIDES as usize] =
            u64::from(strides[0]) | u64::from(strides[1]) << 32;
        words[advance_words::STRIDES as usize + 1] =
            u64::from(strides[2]) | u64::from(strides[3]) << 32;
        let job = self.run_kernel(KernelId::XfbAdvance, &words, [after, zeroed])?;
        active.last_job = job;
        self.xfb.active = Some(active);
        Ok(())
    }
}
