//! Indirect draws and dispatches: vkCmdDispatchIndirect,
//! vkCmdDrawIndirect, vkCmdDrawIndexedIndirect, vkCmdDrawIndirectCountKHR,
//! vkCmdDrawIndexedIndirectCountKHR and vkCmdDrawIndirectByteCountEXT.
//!
//! The parameters live in GPU memory and may be written by earlier
//! commands of the same submission, so nothing is read on the CPU. Each
//! indirect dispatch or draw records, in this order:
//!
//! 1. the indirect kernel (`compiler::kernels::indirect`), one invocation,
//!    whose push words are filled in once the jobs below exist;
//! 2. the jobs of the command with placeholder sizes (a 1×1×1 grid), each
//!    waiting for the kernel;
//! 3. the patch table (`jm::patch`): every job field, push-uniform word and
//!    XFB parameter word that depends on the parameters, and which kernel
//!    value goes there.
//!
//! On the GPU the kernel computes the values, makes each job NULL when it
//! has nothing to do (and a real job again otherwise) and patches the
//! rest before the jobs run; submitting again recomputes everything from
//! the buffer's current contents. CPU work per command is O(drawCount) and
//! independent of the vertex and instance counts.
//!
//! Draws have GPU work only while transform feedback captures, a
//! primitives-generated query counts or the vertex shader writes memory
//! (nothing is rasterized yet, see `draw.rs`; the vertex stage runs the
//! draw as a point list, so it gets a kernel run of its own that computes
//! the point list's counts); `drawCount` draws of a multi-draw command each get their
//! own kernel run (draw `i` reads `offset + i × stride`), and with a count
//! buffer `maxDrawCount` are recorded and the kernel empties those at or
//! past the count.
//!
//! One exception reads parameters on the host: a dispatch whose shader
//! uses workgroup memory. Bifrost sizes that memory by the grid
//! (`jm::compute::wls_instances`: one instance per workgroup id per shader
//! core, as Mesa's `pan_wls_instances` does), and no GPU kernel can
//! allocate memory. Such a dispatch starts a segment of its own
//! (`segment.rs`) carrying a [`DeferredWls`]; when the queue reaches that
//! segment it waits for the GPU to finish everything before it, reads the
//! group counts from the buffer, allocates the workgroup memory and
//! rewrites the job's local-storage descriptor (`vk::queue`), then submits.
//! This is what Mesa's panfrost gallium driver does for indirect compute
//! on Bifrost (it maps the indirect buffer on the CPU,
//! `src/gallium/drivers/panfrost/pan_cmdstream.c`), and it costs a wait for
//! the GPU per such dispatch.

use std::sync::{Arc, Mutex};

use super::draw::{DrawParams, IndirectPatches};
use super::recording::{Fail, Recording};
use super::state::BoundRange;
use crate::compiler::kernels::indirect::{
    DrawSource, IndirectDraw, VALUE_COUNT, dispatch_value, dispatch_words, draw_words,
};
use crate::compiler::passes::lower_sysvals::{SysvalBlock, sysval_offset};
use crate::compiler::passes::lower_xfb::XfbTopology;
use crate::jm::compute::{WlsLayout, wls_instances};
use crate::jm::patch::{self, Patch};
use crate::jm::{ComputeJob, GpuAlloc};
use crate::kmod::{BO_NOEXEC, Bo, BoHandle};
use crate::vk::VkResult;
use crate::vk::device::DeviceCore;
use crate::vk::kernels::KernelId;

/// The workgroup memory of one indirect dispatch, sized when the queue
/// submits its segment (module docs).
pub struct DeferredWls {
    core: Arc<DeviceCore>,
    /// GPU VA of the `VkDispatchIndirectCommand`.
    command: u64,
    /// Workgroup memory bytes of the shader.
    shared_size: u32,
    /// GPU VA of the dispatch job's local-storage descriptor.
    descriptor: u64,
    /// The memory of the latest run (replaced by the next one, which
    /// starts only once the GPU is idle).
    memory: Mutex<Option<Bo>>,
}

impl DeferredWls {
    /// With every earlier SUBMIT complete: read the group counts, allocate
    /// the workgroup memory they need and point the descriptor at it.
    /// Returns the BO the SUBMIT must list. A grid whose memory cannot be
    /// allocated loses the device (logged): the command has no way left
    /// to report an error.
    pub fn resolve(&self) -> VkResult<BoHandle> {
        let kdev = &self.core.kdev;
        let mut raw = [0u8; 12];
        kdev.read_va(self.command, &mut raw)
            .map_err(|e| self.core.mark_lost(&format!("vkCmdDispatchIndirect: {e}")))?;
        let groups: [u32; 3] = std::array::from_fn(|i| {
            u32::from_le_bytes(raw[4 * i..4 * i + 4].try_into().unwrap_or_default())
        });
        let layout =
            WlsLayout::new(kdev, self.shared_size, wls_instances(groups)).map_err(|e| {
                self.core.mark_lost(&format!(
                    "vkCmdDispatchIndirect of {groups:?} workgroups: workgroup memory: {e}"
                ))
            })?;
        let bo = kdev.bo_create(layout.total, BO_NOEXEC).map_err(|e| {
            self.core.mark_lost(&format!(
                "vkCmdDispatchIndirect of {groups:?} workgroups needs {} bytes of workgroup memory: {e}",
                layout.total
            ))
        })?;
        let handle = bo.handle();
        layout
            .patch(kdev, self.core.arch, self.descriptor, bo.gpu_va())
            .map_err(|e| self.core.mark_lost(&format!("vkCmdDispatchIndirect: {e}")))?;
        if let Some(old) = self.memory.lock().unwrap().replace(bo) {
            kdev.bo_destroy(old);
        }
        Ok(handle)
    }
}

impl Drop for DeferredWls {
    fn drop(&mut self) {
        if let Some(bo) = self.memory.get_mut().unwrap().take() {
            self.core.kdev.bo_destroy(bo);
        }
    }
}

/// `maxDrawIndirectCount`: the count a count buffer may hold, and the most
/// draws of one command. `drawCount` above it is invalid usage; the `Count`
/// forms record at most this many draws whatever their `maxDrawCount` (a
/// count above it is invalid usage).
pub const MAX_DRAW_INDIRECT_COUNT: u32 = (1 << 16) - 1;

/// Push words as the 32-bit words of their buffer.
fn halves(words: &[u64]) -> Vec<u32> {
    words
        .iter()
        .flat_map(|w| [*w as u32, (*w >> 32) as u32])
        .collect()
}

/// One run of an indirect kernel (1×1×1) whose push words are written
/// later, and its values scratch block.
struct KernelRun {
    job: u16,
    push: GpuAlloc,
    values: GpuAlloc,
}

impl Recording {
    fn indirect_kernel(&mut self, id: KernelId, words: usize) -> Result<KernelRun, Fail> {
        let push = self.rec.alloc(8 * words as u64, 16)?;
        let values = self.rec.alloc_zeroed(4 * u64::from(VALUE_COUNT), 16)?;
        let placeholder = vec![0u64; words];
        let job =
            self.run_kernel_into(id, &placeholder, ([1, 1, 1], [1, 1, 1]), [0, 0], Some(push))?;
        Ok(KernelRun { job, push, values })
    }

    /// vkCmdDispatchIndirect: `command` is the `VkDispatchIndirectCommand`.
    pub fn dispatch_indirect(&mut self, command: BoundRange) {
        self.record(|r| {
            let Some(p) = r.state.compute.clone() else {
                log::warn!("vkCmdDispatchIndirect without a compute pipeline (invalid usage)");
                return Ok(());
            };
            let shared_size = p.program.code.binary.shared_size;
            if shared_size > 0 {
                // Workgroup memory is sized by the queue (module docs):
                // everything recorded before runs in an earlier SUBMIT.
                r.close_segment();
            }
            r.rec.use_bo(command.bo);
            let k =
                r.indirect_kernel(KernelId::IndirectDispatch, dispatch_words::COUNT as usize)?;
            let mut sysvals = SysvalBlock {
                num_workgroups: [1, 1, 1],
                ..SysvalBlock::default()
            };
            let push = r.push_uniforms(
                &p.program,
                &p.layout,
                super::dispatch::COMPUTE,
                &mut sysvals,
            )?;
            let ubos = r.ubo_table(&p.program, &p.layout, super::dispatch::COMPUTE);
            let push_buffer = r.rec.alloc(8 * push.len().max(1) as u64, 16)?;
            r.rec.use_bo(p.program.code.bo_handle());
            let job = ComputeJob {
                binary: &p.program.code.binary,
                code: p.program.code.va(),
                push_uniforms: &push,
                local_size: p.local_size,
                groups: [1, 1, 1],
                ubos: &ubos,
                attributes: None,
                push_buffer: Some(push_buffer),
            };
            let job = if shared_size > 0 {
                let (job, descriptor) = r.rec.compute_deferred_wls(&job, [k.job, 0])?;
                r.segment_wls.push(Arc::new(DeferredWls {
                    core: r.core.clone(),
                    command: command.address,
                    shared_size,
                    descriptor,
                    memory: Mutex::new(None),
                }));
                job
            } else {
                r.rec.compute(&job, [k.job, 0])?
            };
            let va = r
                .rec
                .job_va(job)
                .ok_or(Fail::Vk(ash::vk::Result::ERROR_UNKNOWN))?;
            let arch = r.rec.arch;
            let mut patches = vec![patch::job_type(va, dispatch_value::JOB_TYPE)?];
            patches.extend(patch::invocation(
                arch,
                va,
                [dispatch_value::INVOCATION_0, dispatch_value::INVOCATION_1],
            )?);
            for (i, value) in [
                dispatch_value::GROUPS_X,
                dispatch_value::GROUPS_Y,
                dispatch_value::GROUPS_Z,
            ]
            .into_iter()
            .enumerate()
            {
                let sysval = sysval_offset::NUM_WORKGROUPS + 4 * i as u32;
                if let Some(at) = p.program.push.sysval_offset(sysval) {
                    patches.push(Patch::word(push_buffer.gpu_va + u64::from(at), value));
                }
            }
            let (table, n) = patch::write_table(&mut r.rec, &patches)?;
            let words = dispatch_words(command.address, p.local_size, table, n, k.values.gpu_va);
            k.push.write_words(0, &halves(&words));
            Ok(())
        });
    }

    /// vkCmdDrawIndirect / vkCmdDrawIndexedIndirect (`count` None) and
    /// their `Count` forms: `commands` starts at the first record.
    pub fn draw_indirect(
        &mut self,
        commands: BoundRange,
        draw_count: u32,
        stride: u32,
        indexed: bool,
        count: Option<BoundRange>,
    ) {
        self.record(|r| {
            if !r.draws_run_on_gpu() {
                return Ok(());
            }
            r.rec.use_bo(commands.bo);
            if let Some(c) = count {
                r.rec.use_bo(c.bo);
            }
            for i in 0..draw_count.min(MAX_DRAW_INDIRECT_COUNT) {
                r.ensure_room(super::recording::JOBS_PER_COMMAND);
                let at = commands.address + u64::from(i) * u64::from(stride);
                let source = if indexed {
                    DrawSource::Indexed(at)
                } else {
                    DrawSource::Draw(at)
                };
                let draw_count = count.map(|c| (c.address, i, draw_count));
                // gl_DrawID: draw `i` of the command (each has its jobs).
                r.draw_index = i;
                let drawn = r.indirect_draw(source, draw_count, indexed);
                r.draw_index = 0;
                drawn?;
            }
            Ok(())
        });
    }

    /// vkCmdDrawIndirectByteCountEXT: `counter` is the counter's u32.
    pub fn draw_indirect_byte_count(
        &mut self,
        instances: u32,
        first_instance: u32,
        counter: BoundRange,
        counter_offset: u32,
        vertex_stride: u32,
    ) {
        self.record(|r| {
            if vertex_stride == 0 {
                log::warn!("vkCmdDrawIndirectByteCountEXT: vertexStride 0 (invalid usage)");
                return Ok(());
            }
            if !r.draws_run_on_gpu() {
                return Ok(());
            }
            r.rec.use_bo(counter.bo);
            let source = DrawSource::ByteCount {
                counter: counter.address,
                counter_offset,
                vertex_stride,
                instances,
                first_instance,
            };
            r.indirect_draw(source, None, false)
        });
    }

    /// Whether a draw now has GPU work (module docs).
    fn draws_run_on_gpu(&self) -> bool {
        let stores = self
            .state
            .graphics
            .as_ref()
            .is_some_and(|p| p.vertex_stores);
        stores || self.captures_or_counts()
    }

    /// Whether a draw now captures or counts primitives: the jobs the
    /// pipeline topology's kernel run patches.
    fn captures_or_counts(&self) -> bool {
        let p = self.state.graphics.as_ref();
        let captures = self.xfb.active.is_some() && p.is_some_and(|p| p.capture().is_some());
        captures || self.xfb.generated.is_some()
    }

    /// One run of the indirect-draw kernel for `draw`: `record` appends
    /// the jobs it patches (and their patches), then the kernel's patch
    /// table and push words are written.
    fn patched_by_kernel(
        &mut self,
        draw: IndirectDraw,
        record: impl FnOnce(&mut Recording, &mut IndirectPatches) -> Result<(), Fail>,
    ) -> Result<(), Fail> {
        let k = self.indirect_kernel(KernelId::IndirectDraw, draw_words::COUNT as usize)?;
        let mut patches = IndirectPatches {
            job: k.job,
            patches: Vec::new(),
        };
        record(self, &mut patches)?;
        let (table, n) = patch::write_table(&mut self.rec, &patches.patches)?;
        let words = draw_words(&draw, table, n, k.values.gpu_va);
        k.push.write_words(0, &halves(&words));
        Ok(())
    }

    /// One draw of an indirect command (module docs).
    fn indirect_draw(
        &mut self,
        source: DrawSource,
        draw_count: Option<(u64, u32, u32)>,
        indexed: bool,
    ) -> Result<(), Fail> {
        let Some(p) = self.state.graphics.clone() else {
            log::warn!("indirect draw without a graphics pipeline (invalid usage)");
            return Ok(());
        };
        let index_size = if indexed {
            match self.state.index {
                Some(ix) => ix.size,
                None => {
                    log::warn!("indexed draw without an index buffer (invalid usage)");
                    return Ok(());
                }
            }
        } else {
            0
        };
        // Placeholders: the kernel writes the real values.
        let d = DrawParams {
            count: 0,
            instances: 0,
            first: 0,
            first_instance: 0,
            vertex_offset: 0,
            indexed,
        };
        let draw = IndirectDraw {
            source,
            topology: p.topology as u32,
            verts_per_prim: p.topology.decode().verts_per_prim,
            index_size,
            draw_count,
        };
        if self.captures_or_counts() {
            self.patched_by_kernel(draw, |r, patches| {
                r.xfb_draw(d, Some(&mut *patches))?;
                r.count_generated(d, Some(patches))
            })?;
        }
        if p.vertex_stores {
            // The vertex stage runs the draw as a point list: its own
            // kernel run computes the point list's counts and grid.
            let points = XfbTopology::PointList;
            let draw = IndirectDraw {
                topology: points as u32,
                verts_per_prim: points.decode().verts_per_prim,
                ..draw
            };
            self.patched_by_kernel(draw, |r, patches| r.vertex_stage(d, Some(patches)))?;
        }
        Ok(())
    }
}
