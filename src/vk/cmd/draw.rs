//! Draws, render passes and vertex/index buffer binding.
//!
//! Nothing is rasterized yet (no attachments exist), so a draw runs GPU
//! work only when it has something visible to do: the vertex stage when
//! the vertex shader writes memory (`Recording::vertex_stage`); while
//! transform feedback is active and the vertex shader has XFB outputs,
//! the capture job and the offset advance (`xfb.rs`); the count of an
//! active primitives-generated query. Otherwise it costs nothing on the
//! GPU.
//!
//! # Vertex input of the capture job
//! The capture job computes each vertex index itself and fetches input i
//! with LD_ATTR at (element, 0), where the element is the vertex index, or
//! the instance index (`firstInstance` + instance) when bit i of the XFB
//! parameter INPUT_RATES says the attribute's binding is per instance
//! (`compiler::passes::lower_xfb`). Every buffer record is `1D` from the
//! binding's element 0, `Offset start` 0, `Instance Size` 1, so the
//! attribute unit's linear index is the element itself: any 32-bit vertex
//! index is fetched right whatever the instance count, and an indirect
//! draw's tables need no patching.
//!
//! No index is read on the CPU, and nothing here grows with the vertex or
//! instance count.

use super::recording::{Fail, Recording};
use super::state::{ActivePass, BoundRange, IndexBinding, view_indices};
use crate::compiler::kernels::indirect::draw_value;
use crate::compiler::kernels::transfer::{copy_grid, copy_words};
use crate::compiler::kernels::xfb::{advance_words, restart_words};
use crate::compiler::passes::lower_sysvals::{SysvalBlock, sysval_offset};
use crate::compiler::passes::lower_xfb::{
    XFB_PARAM_COUNT, XfbBinding, XfbDraw, XfbIndexBuffer, XfbTopology, xfb_param,
};
use crate::jm::attributes::{AttributeBuffer, AttributeRecord, shared_attribute_tables};
use crate::jm::patch::{self, Patch};
use crate::jm::{AttributeTables, Indexing, XfbJob};
use crate::vk::kernels::KernelId;
use crate::vk::pipeline::{GraphicsPipeline, Program};
use crate::vk::render_pass::RenderPass;

/// Graphics bind point index in `State::sets`.
pub const GRAPHICS: usize = 0;

/// The largest restart-resolved index list a captured draw may allocate:
/// an indirect draw's list is sized by its bound index range (12 bytes
/// per index of a triangle strip), so a huge range fails the recording
/// with VK_ERROR_OUT_OF_DEVICE_MEMORY instead of taking the memory.
const MAX_RESOLVED_LIST_BYTES: u64 = 256 << 20;

/// An indirect draw being recorded (`indirect.rs`): the kernel job that
/// computes its parameters on the GPU, and where they must go in the jobs
/// recorded after it.
pub struct IndirectPatches {
    pub job: u16,
    pub patches: Vec<Patch>,
}

/// The capture job's vertex input (module docs).
#[derive(Clone, Copy)]
pub struct VertexInput {
    tables: Option<AttributeTables>,
    /// The INPUT_RATES parameter: bit i, attribute i is per instance.
    rates: u32,
    /// The ATTRIBUTE_ELEMENTS parameters (robust buffer access).
    elements: [u32; xfb_param::MAX_ATTRIBUTES as usize],
}

/// The last vertex input built and what it was built from: a recorder
/// epoch (its tables live in that recorder's pool), the pipeline, the
/// program and the vertex buffers bound. Consecutive draws with the same
/// pipeline and vertex buffers reuse it.
pub struct VertexInputMemo {
    epoch: u64,
    pipeline: std::sync::Arc<GraphicsPipeline>,
    program: *const Program,
    buffers: [Option<BoundRange>; crate::vk::pipeline::MAX_VERTEX_BINDINGS as usize],
    input: VertexInput,
}

// SAFETY: `program` is only compared, never dereferenced; it points into
// `pipeline`, which the memo keeps alive.
unsafe impl Send for VertexInputMemo {}
// SAFETY: as above.
unsafe impl Sync for VertexInputMemo {}

/// Elements of an attribute (`offset`, `bytes` per element) wholly inside
/// a bound range of `range` bytes read with `stride` (the XFB parameter
/// ATTRIBUTE_ELEMENTS; Vulkan spec, "Robust Buffer Access": an attribute
/// is out of bounds when its offset plus its size passes the range).
fn attribute_elements(range: u64, stride: u32, offset: u32, bytes: u32) -> u32 {
    let end = u64::from(offset) + u64::from(bytes);
    if range < end {
        0
    } else if stride == 0 {
        u32::MAX
    } else {
        u32::try_from((range - end) / u64::from(stride) + 1).unwrap_or(u32::MAX)
    }
}

/// What one run of the XFB variant captures or covers ([`Recording::variant_job`]).
struct VariantRun<'a> {
    draw: &'a XfbDraw,
    params: [u32; XFB_PARAM_COUNT as usize],
    /// With primitive restart: the bound index range and where the
    /// restart kernel writes the resolved list.
    resolve: Option<(XfbIndexBuffer, u64)>,
    /// The job the run waits for (0: none).
    after: u16,
    /// `gl_ViewIndex` of the run (VK_KHR_multiview; 0 outside multiview).
    view: u32,
}

/// Whether primitive restart splits the draw's index stream: an indexed
/// draw of a strip or fan topology with restart enabled (lists take
/// restart only with VK_EXT_primitive_topology_list_restart, which is not
/// offered).
fn restart_applies(p: &GraphicsPipeline, d: DrawParams) -> bool {
    use XfbTopology::*;
    d.indexed
        && p.primitive_restart
        && matches!(
            p.topology,
            LineStrip
                | TriangleStrip
                | TriangleFan
                | LineStripWithAdjacency
                | TriangleStripWithAdjacency
        )
}

/// The restart value of an index size: all ones (Vulkan spec,
/// "Primitive Restart").
fn restart_value(index_size: u32) -> u32 {
    match index_size {
        1 => 0xFF,
        2 => 0xFFFF,
        _ => u32::MAX,
    }
}

/// One draw's parameters: a direct draw's, or placeholders that an
/// indirect draw's kernel replaces on the GPU.
#[derive(Clone, Copy, Debug)]
pub struct DrawParams {
    pub count: u32,
    pub instances: u32,
    /// `firstVertex`, or `firstIndex` for indexed draws.
    pub first: u32,
    pub first_instance: u32,
    pub vertex_offset: i32,
    pub indexed: bool,
}

impl Recording {
    pub fn begin_render_pass(&mut self, pass: &RenderPass) {
        let active = ActivePass {
            subpass: 0,
            subpasses: pass.subpasses,
            view_masks: pass.view_masks.clone(),
        };
        self.record(|r| {
            r.state.render_pass = Some(active);
            Ok(())
        });
    }

    pub fn next_subpass(&mut self) {
        self.record(|r| {
            if let Some(p) = &mut r.state.render_pass {
                p.subpass = (p.subpass + 1).min(p.subpasses.saturating_sub(1));
            }
            Ok(())
        });
    }

    pub fn end_render_pass(&mut self) {
        self.record(|r| {
            r.state.render_pass = None;
            Ok(())
        });
    }

    pub fn bind_vertex_buffers(&mut self, first: u32, ranges: &[Option<BoundRange>]) {
        self.record(|r| {
            for (i, range) in ranges.iter().enumerate() {
                if let Some(slot) = r.state.vertex_buffers.get_mut(first as usize + i) {
                    *slot = *range;
                }
            }
            Ok(())
        });
    }

    pub fn bind_index_buffer(&mut self, index: Option<IndexBinding>) {
        self.record(|r| {
            r.state.index = index;
            Ok(())
        });
    }

    /// vkCmdDraw / vkCmdDrawIndexed. In a multiview subpass the vertex
    /// stage and the primitives-generated count run once per view
    /// (`vertex_stage`, `count_generated`); transform feedback cannot be
    /// active there (VUID-vkCmdBeginTransformFeedbackEXT-None-02373).
    pub fn draw(&mut self, d: DrawParams) {
        self.record(|r| {
            r.vertex_stage(d, None)?;
            r.xfb_draw(d, None)?;
            r.count_generated(d, None)
        });
    }

    /// With a primitives-generated query active (`vk::cmd::query`): the
    /// `xfb_advance` kernel with no buffer bound, a scratch offsets block
    /// and the query's pair as QUERY, so its result grows by the draw's
    /// primitives (instances × the topology's primitives for `count`
    /// vertices, Vulkan spec "Drawing Commands"/"Primitive Topologies";
    /// with nothing bound, written = needed lands in the hidden word).
    /// O(1) CPU.
    /// In a multiview subpass, once per view of the mask (each view
    /// generates the draw's primitives; `vk::cmd::query`).
    pub(super) fn count_generated(
        &mut self,
        d: DrawParams,
        mut indirect: Option<&mut IndirectPatches>,
    ) -> Result<(), Fail> {
        for _ in view_indices(self.view_mask()) {
            self.count_generated_once(d, indirect.as_deref_mut())?;
        }
        Ok(())
    }

    fn count_generated_once(
        &mut self,
        d: DrawParams,
        mut indirect: Option<&mut IndirectPatches>,
    ) -> Result<(), Fail> {
        let Some(mut q) = self.xfb.generated else {
            return Ok(());
        };
        let Some(p) = self.state.graphics.clone() else {
            return Ok(());
        };
        let restart = restart_applies(&p, d);
        let scratch = self.rec.alloc_zeroed(16, 16)?;
        let draw = XfbDraw {
            topology: p.topology,
            count: d.count,
            first: d.first,
            vertex_offset: d.vertex_offset,
            index: None,
            buffers: [None; 4],
            offsets_address: scratch.gpu_va,
            resolved_prims: None,
            provoking: p.provoking,
        };
        if indirect.is_none() && (d.instances == 0 || draw.prims_per_instance() == 0) {
            return Ok(());
        }
        let block = self.rec.alloc(4 * XFB_PARAM_COUNT as u64 + 4, 16)?;
        block.write_words(0, &draw.params());
        let instances_at = block.gpu_va + 4 * XFB_PARAM_COUNT as u64;
        block.write_words(4 * XFB_PARAM_COUNT as u64, &[d.instances]);
        let ppi_at = block.gpu_va + 4 * u64::from(xfb_param::PRIMS_PER_INSTANCE);
        // The job the advance kernel waits for besides the query's zeroing.
        let mut after = 0;
        if restart {
            // Primitive restart: the restart kernel counts the primitives
            // of the index stream (no list) and writes the count where the
            // advance kernel reads PRIMS_PER_INSTANCE.
            let Some(Some(ix)) = self.bound_index(d) else {
                return Ok(());
            };
            let words = restart_words(
                p.topology,
                p.provoking,
                ix,
                d.first,
                d.count,
                restart_value(ix.size),
                0,
                ppi_at,
            );
            after = self.restart_kernel(words, ix, indirect.as_deref_mut())?;
        }
        if let Some(ind) = indirect {
            if !restart {
                ind.patches
                    .push(Patch::word(ppi_at, draw_value::PRIMS_PER_INSTANCE));
            }
            ind.patches
                .push(Patch::word(instances_at, draw_value::INSTANCES));
            if after == 0 {
                after = ind.job;
            }
        }
        let deps = if q.zeroed == 0 {
            [after, 0]
        } else {
            [q.zeroed, after]
        };
        let mut words = [0u64; advance_words::COUNT as usize];
        words[advance_words::PARAMS as usize] = block.gpu_va;
        words[advance_words::INSTANCES as usize] = instances_at;
        words[advance_words::QUERY as usize] = q.results;
        q.zeroed = self.run_kernel(KernelId::XfbAdvance, &words, deps)?;
        self.xfb.generated = Some(q);
        Ok(())
    }

    pub(super) fn xfb_draw(
        &mut self,
        d: DrawParams,
        indirect: Option<&mut IndirectPatches>,
    ) -> Result<(), Fail> {
        let Some(active) = self.xfb.active else {
            return Ok(());
        };
        let Some(p) = self.state.graphics.clone() else {
            log::warn!("draw without a graphics pipeline (invalid usage)");
            return Ok(());
        };
        let Some(prog) = p.capture() else {
            return Ok(());
        };
        let restart = restart_applies(&p, d);
        let mut buffers = [None; 4];
        for (b, binding) in self.xfb.bindings.iter().enumerate() {
            if let Some(range) = binding {
                self.rec.use_bo(range.bo);
                buffers[b] = Some(XfbBinding {
                    address: range.address,
                    size: u32::try_from(range.size).unwrap_or(u32::MAX),
                });
            }
        }
        let Some(index) = self.bound_index(d) else {
            return Ok(());
        };
        let mut draw = XfbDraw {
            topology: p.topology,
            count: d.count,
            first: d.first,
            vertex_offset: d.vertex_offset,
            index,
            buffers,
            offsets_address: active.offsets,
            resolved_prims: None,
            provoking: p.provoking,
        };
        if indirect.is_none() && (d.instances == 0 || draw.prims_per_instance() == 0) {
            return Ok(());
        }
        // Primitive restart: the restart kernel resolves the index stream
        // into a list in capture order (module docs); the grid is launched
        // for the most primitives the count allows.
        let mut resolve = None;
        if restart && let Some(ix) = index {
            // An indirect draw's count is on the GPU: room for every
            // primitive of the bound index range, the restart kernel's CAP.
            let max_prims = if indirect.is_some() {
                p.topology.primitive_count(ix.count)
            } else {
                draw.prims_per_instance()
            };
            let vpp = p.topology.decode().verts_per_prim;
            let bytes = 4 * u64::from(max_prims) * u64::from(vpp);
            if bytes > MAX_RESOLVED_LIST_BYTES {
                log::error!(
                    "a captured draw with primitive restart needs a {bytes}-byte resolved index list (limit {MAX_RESOLVED_LIST_BYTES})"
                );
                return Err(Fail::Vk(ash::vk::Result::ERROR_OUT_OF_DEVICE_MEMORY));
            }
            let list = self.rec.alloc(bytes, 16)?;
            draw = XfbDraw::resolved(
                p.topology,
                list.gpu_va,
                max_prims,
                d.vertex_offset,
                buffers,
                active.offsets,
            );
            resolve = Some((ix, list.gpu_va));
        }
        let params = draw.params();
        let run = VariantRun {
            draw: &draw,
            params,
            resolve,
            after: active.last_job,
            view: 0,
        };
        let (capture, block) = self.variant_job(&p, prog, d, run, indirect)?;
        self.xfb_advance(
            block,
            params.len(),
            p.xfb_strides,
            capture.unwrap_or(active.last_job),
        )
    }

    /// The vertex stage of a pipeline whose vertex shader writes memory
    /// (`vertexPipelineStoresAndAtomics`): nothing is rasterized, but the
    /// shader must still run at least once for every vertex of the draw
    /// (Vulkan spec, Shaders › Vertex Shader Execution). Its XFB variant
    /// runs as a **point list** over the draw's vertices, capturing
    /// nothing: one invocation per vertex (per index of an indexed draw;
    /// with primitive restart, restart indices are no vertices: the
    /// RESTART_VALUE parameter), per instance. This job runs whether or
    /// not transform feedback also captures the draw; the capture job
    /// runs the shader again per captured vertex, which the spec allows
    /// ("at least once"; how often is implementation-dependent, stores and
    /// atomics included).
    /// In a multiview subpass the stage runs once per view of the mask,
    /// `gl_ViewIndex` set to the view.
    pub(super) fn vertex_stage(
        &mut self,
        d: DrawParams,
        mut indirect: Option<&mut IndirectPatches>,
    ) -> Result<(), Fail> {
        for view in view_indices(self.view_mask()) {
            self.vertex_stage_for_view(d, indirect.as_deref_mut(), view)?;
        }
        Ok(())
    }

    fn vertex_stage_for_view(
        &mut self,
        d: DrawParams,
        indirect: Option<&mut IndirectPatches>,
        view: u32,
    ) -> Result<(), Fail> {
        let Some(p) = self.state.graphics.clone() else {
            return Ok(());
        };
        let (true, Some(prog)) = (p.vertex_stores, &p.xfb) else {
            return Ok(());
        };
        if indirect.is_none() && (d.instances == 0 || d.count == 0) {
            return Ok(());
        }
        let Some(index) = self.bound_index(d) else {
            return Ok(());
        };
        // The variant reads the write offsets of the buffers it declares
        // even when none is bound: the recording's shared zeros.
        let offsets = self.rec.zeros()?;
        let draw = XfbDraw {
            topology: XfbTopology::PointList,
            count: d.count,
            first: d.first,
            vertex_offset: d.vertex_offset,
            index,
            buffers: [None; 4],
            offsets_address: offsets,
            resolved_prims: None,
            provoking: p.provoking,
        };
        let mut params = draw.params();
        if let (true, Some(ix)) = (p.primitive_restart, index) {
            params[xfb_param::RESTART_VALUE as usize] = restart_value(ix.size);
        }
        let run = VariantRun {
            draw: &draw,
            params,
            resolve: None,
            after: 0,
            view,
        };
        self.variant_job(&p, prog, d, run, indirect)?;
        Ok(())
    }

    /// A run of the restart kernel with `words`; for an indirect draw it
    /// waits for the draw's indirect kernel, which patches its first
    /// index and count, and reads at most the bound index range (CAP).
    fn restart_kernel(
        &mut self,
        mut words: [u64; restart_words::COUNT as usize],
        ix: XfbIndexBuffer,
        indirect: Option<&mut IndirectPatches>,
    ) -> Result<u16, Fail> {
        let Some(ind) = indirect else {
            return self.run_kernel(KernelId::XfbRestart, &words, [0, 0]);
        };
        let cap = &mut words[restart_words::MIN_VERTICES as usize];
        *cap = (*cap & u64::from(u32::MAX)) | u64::from(ix.count) << 32;
        let push = self.rec.alloc(8 * words.len() as u64, 16)?;
        let job = self.run_kernel_into(
            KernelId::XfbRestart,
            &words,
            ([1, 1, 1], [1, 1, 1]),
            [ind.job, 0],
            Some(push),
        )?;
        let range = push.gpu_va + 8 * u64::from(restart_words::RANGE);
        ind.patches.extend([
            Patch::word(range, draw_value::FIRST),
            Patch::word(range + 4, draw_value::COUNT),
        ]);
        Ok(job)
    }

    /// The index range of an indexed draw (`Some(None)` for a
    /// non-indexed one); `None` when an indexed draw has no index buffer
    /// bound (invalid usage: the draw is skipped).
    fn bound_index(&mut self, d: DrawParams) -> Option<Option<XfbIndexBuffer>> {
        if !d.indexed {
            return Some(None);
        }
        let Some(ix) = self.state.index else {
            log::warn!("indexed draw without an index buffer (invalid usage)");
            return None;
        };
        self.rec.use_bo(ix.range.bo);
        Some(Some(XfbIndexBuffer {
            address: ix.range.address,
            count: u32::try_from(ix.range.size / u64::from(ix.size)).unwrap_or(u32::MAX),
            size: ix.size,
        }))
    }

    /// Record one run of the pipeline's XFB variant: its parameter block,
    /// push uniforms, the restart kernel when `run.resolve` asks, the job,
    /// and an indirect draw's patches. Returns the job (`None` when the
    /// recorder dropped an empty one) and the parameter block's address.
    fn variant_job(
        &mut self,
        p: &std::sync::Arc<GraphicsPipeline>,
        prog: &Program,
        d: DrawParams,
        run: VariantRun<'_>,
        mut indirect: Option<&mut IndirectPatches>,
    ) -> Result<(Option<u16>, u64), Fail> {
        let VariantRun {
            draw,
            mut params,
            resolve,
            after,
            view,
        } = run;
        let input = self.vertex_input(p, prog)?;
        params[xfb_param::INPUT_RATES as usize] = input.rates;
        for (i, &n) in input.elements.iter().enumerate() {
            params[xfb_param::attribute_elements(i as u32) as usize] = n;
        }
        let block = self.xfb_params_block(&params, d.instances)?;
        let ppi_word = block + 4 * u64::from(xfb_param::PRIMS_PER_INSTANCE);
        let mut sysvals = SysvalBlock {
            // The capture job passes vertex indices as raw ids (module docs).
            raw_vertex_offset: 0,
            base_vertex: if d.indexed {
                d.vertex_offset as u32
            } else {
                d.first
            },
            base_instance: d.first_instance,
            view_index: view,
            draw_index: self.draw_index,
            xfb_params: params,
            ..SysvalBlock::default()
        };
        let push = self.push_uniforms(prog, &p.layout, GRAPHICS, &mut sysvals)?;
        let ubos = self.ubo_table(prog, &p.layout, GRAPHICS);
        let push_buffer = self.rec.alloc(8 * push.len() as u64, 16)?;
        let mut first_dep = after;
        let mut second_dep = indirect.as_ref().map_or(0, |i| i.job);
        if let Some((ix, list)) = resolve {
            // The kernel writes the resolved primitive count into the
            // parameter block (for the advance kernel); a 4-byte copy puts
            // it into the capture job's FAU words before that job runs.
            let words = restart_words(
                p.topology,
                p.provoking,
                ix,
                d.first,
                d.count,
                restart_value(ix.size),
                list,
                ppi_word,
            );
            let resolved = self.restart_kernel(words, ix, indirect.as_deref_mut())?;
            let at = prog
                .push
                .sysval_offset(
                    sysval_offset::XFB_PARAMS + 4 * u32::from(xfb_param::PRIMS_PER_INSTANCE),
                )
                .ok_or(Fail::Vk(ash::vk::Result::ERROR_UNKNOWN))?;
            let copy = copy_words(ppi_word, push_buffer.gpu_va + u64::from(at), 4);
            second_dep =
                self.run_kernel_grid(KernelId::CopyBuffer, &copy, copy_grid(4), [resolved, 0])?;
        }
        if first_dep == 0 {
            first_dep = second_dep;
            second_dep = 0;
        }
        self.rec.use_bo(prog.code.bo_handle());
        let job = self.rec.xfb(
            &XfbJob {
                binary: &prog.code.binary,
                code: prog.code.va(),
                push_buffer: Some(push_buffer),
                push_uniforms: &push,
                ubos: &ubos,
                // An indirect draw's grid is patched (a 1×1 placeholder).
                invocations_per_instance: if indirect.is_some() {
                    1
                } else {
                    draw.invocations_per_instance()
                },
                instance_count: d.instances.max(u32::from(indirect.is_some())),
                attributes: input.tables,
                offset_start: 0,
                instance_size: 1,
            },
            [first_dep, second_dep],
        )?;
        self.recycle_push(push);
        if let Some(ind) = indirect {
            let job_va = job
                .and_then(|c| self.rec.job_va(c))
                .ok_or(Fail::Vk(ash::vk::Result::ERROR_UNKNOWN))?;
            let arch = self.rec.arch;
            ind.patches
                .push(patch::job_type(job_va, draw_value::JOB_TYPE)?);
            ind.patches.extend(patch::invocation(
                arch,
                job_va,
                [draw_value::INVOCATION_0, draw_value::INVOCATION_1],
            )?);
            let param = |i: u16| sysval_offset::XFB_PARAMS + 4 * u32::from(i);
            // A restart-resolved draw reads its list from 0 (FIRST), and
            // the restart kernel writes its primitive count (above).
            let resolved = resolve.is_some();
            let all_params = [
                (
                    xfb_param::PRIMS_PER_INSTANCE,
                    draw_value::PRIMS_PER_INSTANCE,
                ),
                (xfb_param::FIRST, draw_value::FIRST),
                (xfb_param::VERTEX_OFFSET, draw_value::VERTEX_OFFSET),
            ];
            let draw_params: Vec<(u16, u8)> = all_params
                .into_iter()
                .filter(|&(i, _)| !resolved || i == xfb_param::VERTEX_OFFSET)
                .collect();
            let sysvals = draw_params
                .iter()
                .map(|&(i, value)| (param(i), value))
                .chain([
                    (sysval_offset::BASE_VERTEX, draw_value::BASE_VERTEX),
                    (sysval_offset::BASE_INSTANCE, draw_value::FIRST_INSTANCE),
                ]);
            for (sysval, value) in sysvals {
                if let Some(at) = prog.push.sysval_offset(sysval) {
                    ind.patches
                        .push(Patch::word(push_buffer.gpu_va + u64::from(at), value));
                }
            }
            for &(i, value) in &draw_params {
                ind.patches
                    .push(Patch::word(block + 4 * u64::from(i), value));
            }
            ind.patches.push(Patch::word(
                block + 4 * params.len() as u64,
                draw_value::INSTANCES,
            ));
        }
        Ok((job, block))
    }

    /// The capture job's attribute tables and input rates (module docs),
    /// those of the previous draw when nothing they depend on changed.
    fn vertex_input(
        &mut self,
        p: &std::sync::Arc<GraphicsPipeline>,
        prog: &Program,
    ) -> Result<VertexInput, Fail> {
        let epoch = self.rec.epoch();
        if let Some(m) = &self.vertex_input_memo
            && m.epoch == epoch
            && std::sync::Arc::ptr_eq(&m.pipeline, p)
            && std::ptr::eq(m.program, prog)
            && m.buffers == self.state.vertex_buffers
        {
            return Ok(m.input);
        }
        let input = self.build_vertex_input(p, prog)?;
        self.vertex_input_memo = Some(VertexInputMemo {
            epoch,
            pipeline: p.clone(),
            program: prog,
            buffers: self.state.vertex_buffers,
            input,
        });
        Ok(input)
    }

    fn build_vertex_input(
        &mut self,
        p: &GraphicsPipeline,
        prog: &Program,
    ) -> Result<VertexInput, Fail> {
        let locations = &prog.io.attributes;
        let mut elements = [0; xfb_param::MAX_ATTRIBUTES as usize];
        if locations.is_empty() {
            return Ok(VertexInput {
                tables: None,
                rates: 0,
                elements,
            });
        }
        let mut buffers = Vec::new();
        let mut buffer_of_binding = Vec::new();
        let mut records = Vec::with_capacity(locations.len());
        let mut rates = 0u32;
        for (i, &location) in locations.iter().enumerate() {
            let Some(a) = p.attributes.iter().find(|a| a.location == location) else {
                log::error!(
                    "the vertex shader reads location {location}, which the pipeline does not provide"
                );
                return Err(Fail::Vk(ash::vk::Result::ERROR_UNKNOWN));
            };
            let binding = p
                .bindings
                .iter()
                .find(|b| b.binding == a.binding)
                .copied()
                .ok_or(Fail::Vk(ash::vk::Result::ERROR_UNKNOWN))?;
            if binding.per_instance {
                rates |= 1 << i;
            }
            let range = self.state.vertex_buffers[a.binding as usize].map_or(0, |r| r.size);
            if let Some(n) = elements.get_mut(i) {
                *n = attribute_elements(range, binding.stride, a.offset, a.format.bytes());
            }
            let slot = match buffer_of_binding.iter().position(|&b| b == a.binding) {
                Some(s) => s,
                None => {
                    let range = self.state.vertex_buffers[a.binding as usize].unwrap_or_default();
                    self.rec.use_bo(range.bo);
                    buffers.push(AttributeBuffer {
                        address: range.address,
                        size: range.size,
                        stride: binding.stride,
                        indexing: Indexing::Linear,
                    });
                    buffer_of_binding.push(a.binding);
                    buffers.len() - 1
                }
            };
            records.push(AttributeRecord {
                buffer: slot,
                format: a.format,
                offset: a.offset,
            });
        }
        let tables = shared_attribute_tables(&mut self.rec, &buffers, &records)?;
        Ok(VertexInput {
            tables: Some(tables),
            rates,
            elements,
        })
    }
}
