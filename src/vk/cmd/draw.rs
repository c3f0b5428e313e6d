//! Draws, render passes and vertex/index buffer binding.
//!
//! Nothing is rasterized yet (no attachments exist), so a draw runs GPU
//! work only when it has something visible to do: while transform feedback
//! is active and the pipeline's vertex shader has XFB outputs, the capture
//! job and the offset advance (`xfb.rs`). Otherwise it costs nothing on
//! the GPU.
//!
//! # Vertex input of the capture job
//! The capture job computes each vertex index itself and fetches its
//! inputs with LD_ATTR at (`raw` = vertex index, instance id). The
//! attribute unit turns that into the linear index `raw + Offset start +
//! instance × Instance Size` and each buffer record into an element:
//!
//! - one instance: per-vertex buffers are `1D` (element = vertex index);
//!   per-instance buffers point at element `firstInstance` with stride 0;
//!   `Offset start` 0, `Instance Size` 1;
//! - several instances: `Instance Size` S is a padded count above every
//!   vertex index the draw can produce, `Offset start` = `firstInstance ×
//!   S`; per-vertex buffers are `1D modulus` S (element = vertex index),
//!   per-instance buffers divide by S (element = `firstInstance` +
//!   instance). S is `firstVertex + vertexCount` for plain draws, 256 or
//!   65536 above `vertexOffset` for 8/16-bit indices; for 32-bit indices it
//!   is the largest power of two with `(firstInstance + instanceCount) × S
//!   ≤ 2^32`, so vertex indices must stay below it (docs/STATUS.md).
//!
//! No index is read on the CPU, and nothing here grows with the vertex or
//! instance count.

use super::recording::{Fail, Recording};
use super::state::{ActivePass, BoundRange, IndexBinding};
use crate::compiler::kernels::indirect::draw_value;
use crate::compiler::kernels::transfer::{copy_grid, copy_words};
use crate::compiler::kernels::xfb::{advance_words, restart_words};
use crate::compiler::passes::lower_sysvals::{SysvalBlock, sysval_offset};
use crate::compiler::passes::lower_xfb::{
    XFB_PARAM_COUNT, XfbBinding, XfbDraw, XfbIndexBuffer, XfbTopology, xfb_param,
};
use crate::hw::attribute::attribute_buffer;
use crate::hw::draw::dcd;
use crate::jm::attributes::{
    AttributeBuffer, AttributeRecord, shared_attribute_tables, write_attribute_tables,
};
use crate::jm::patch::{self, Patch};
use crate::jm::{AttributeTables, Indexing, XfbJob};
use crate::vk::kernels::KernelId;
use crate::vk::pipeline::{GraphicsPipeline, Program};

/// Graphics bind point index in `State::sets`.
pub const GRAPHICS: usize = 0;

/// An indirect draw being recorded (`indirect.rs`): the kernel job that
/// computes its parameters on the GPU, and where they must go in the jobs
/// recorded after it.
pub struct IndirectPatches {
    pub job: u16,
    pub patches: Vec<Patch>,
}

/// The capture job's vertex input (module docs).
struct VertexInput {
    tables: Option<AttributeTables>,
    offset_start: u32,
    instance_size: u32,
    /// Buffer records whose divisor byte holds log2(`Instance Size`)
    /// (indirect draws: patched on the GPU).
    scaled_records: Vec<u64>,
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
    pub fn begin_render_pass(&mut self, subpasses: u32) {
        self.record(|r| {
            r.state.render_pass = Some(ActivePass {
                subpass: 0,
                subpasses,
            });
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

    /// vkCmdDraw / vkCmdDrawIndexed.
    pub fn draw(&mut self, d: DrawParams) {
        self.record(|r| {
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
    pub(super) fn count_generated(
        &mut self,
        d: DrawParams,
        indirect: Option<&mut IndirectPatches>,
    ) -> Result<(), Fail> {
        let Some(mut q) = self.xfb.generated else {
            return Ok(());
        };
        let Some(p) = self.state.graphics.clone() else {
            return Ok(());
        };
        let restart_matters = matches!(
            p.topology,
            XfbTopology::LineStrip
                | XfbTopology::TriangleStrip
                | XfbTopology::TriangleFan
                | XfbTopology::LineStripWithAdjacency
                | XfbTopology::TriangleStripWithAdjacency
        );
        if d.indexed && p.primitive_restart && restart_matters {
            log::error!(
                "primitives-generated query over an indexed strip/fan draw with primitive restart is not implemented yet"
            );
            return Err(Fail::Vk(ash::vk::Result::ERROR_UNKNOWN));
        }
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
        let mut deps = [q.zeroed, 0];
        if let Some(ind) = indirect {
            let ppi_at = block.gpu_va + 4 * u64::from(xfb_param::PRIMS_PER_INSTANCE);
            ind.patches.extend([
                Patch::word(ppi_at, draw_value::PRIMS_PER_INSTANCE),
                Patch::word(instances_at, draw_value::INSTANCES),
            ]);
            deps = if q.zeroed == 0 {
                [ind.job, 0]
            } else {
                [q.zeroed, ind.job]
            };
        }
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
        let Some(prog) = &p.xfb else {
            return Ok(());
        };
        let restart_matters = matches!(
            p.topology,
            XfbTopology::LineStrip
                | XfbTopology::TriangleStrip
                | XfbTopology::TriangleFan
                | XfbTopology::LineStripWithAdjacency
                | XfbTopology::TriangleStripWithAdjacency
        );
        let restart = d.indexed && p.primitive_restart && restart_matters;
        if restart && indirect.is_some() {
            log::error!(
                "indirect captured strip/fan draws with primitive restart are not implemented yet"
            );
            return Err(Fail::Vk(ash::vk::Result::ERROR_UNKNOWN));
        }
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
        let index = if d.indexed {
            let Some(ix) = self.state.index else {
                log::warn!("indexed draw without an index buffer (invalid usage)");
                return Ok(());
            };
            self.rec.use_bo(ix.range.bo);
            Some(XfbIndexBuffer {
                address: ix.range.address,
                count: u32::try_from(ix.range.size / u64::from(ix.size)).unwrap_or(u32::MAX),
                size: ix.size,
            })
        } else {
            None
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
            let max_prims = draw.prims_per_instance();
            let vpp = p.topology.decode().verts_per_prim;
            let list = self
                .rec
                .alloc(4 * u64::from(max_prims) * u64::from(vpp), 16)?;
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
        let block = self.xfb_params_block(&params, d.instances)?;
        let ppi_word = block + 4 * u64::from(xfb_param::PRIMS_PER_INSTANCE);
        let input = self.vertex_input(&p, prog, &d, indirect.is_some())?;
        let mut sysvals = SysvalBlock {
            // The capture job passes vertex indices as raw ids (module docs).
            raw_vertex_offset: 0,
            base_vertex: if d.indexed {
                d.vertex_offset as u32
            } else {
                d.first
            },
            base_instance: d.first_instance,
            xfb_params: params,
            ..SysvalBlock::default()
        };
        let push = self.push_uniforms(prog, &p.layout, GRAPHICS, &mut sysvals)?;
        let push_buffer = self.rec.alloc(8 * push.len() as u64, 16)?;
        let mut first_dep = active.last_job;
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
                // The all-ones value of the index size (Vulkan spec, "Primitive Restart").
                match ix.size {
                    1 => 0xFF,
                    2 => 0xFFFF,
                    _ => u32::MAX,
                },
                list,
                ppi_word,
            );
            let resolved = self.run_kernel(KernelId::XfbRestart, &words, [0, 0])?;
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
        let capture = self.rec.xfb(
            &XfbJob {
                binary: &prog.code.binary,
                code: prog.code.va(),
                push_buffer: Some(push_buffer),
                push_uniforms: &push,
                // An indirect draw's grid is patched (a 1×1 placeholder).
                invocations_per_instance: if indirect.is_some() {
                    1
                } else {
                    draw.invocations_per_instance()
                },
                instance_count: d.instances.max(u32::from(indirect.is_some())),
                attributes: input.tables,
                offset_start: input.offset_start,
                instance_size: input.instance_size,
            },
            [first_dep, second_dep],
        )?;
        if let Some(ind) = indirect {
            let job = capture
                .and_then(|c| self.rec.job_va(c))
                .ok_or(Fail::Vk(ash::vk::Result::ERROR_UNKNOWN))?;
            let arch = self.rec.arch;
            let log2 = draw_value::LOG2_INSTANCE_SIZE;
            ind.patches
                .push(patch::job_type(job, draw_value::JOB_TYPE)?);
            ind.patches.extend(patch::invocation(
                arch,
                job,
                [draw_value::INVOCATION_0, draw_value::INVOCATION_1],
            )?);
            ind.patches
                .push(patch::draw_field(arch, job, dcd::INSTANCE_SIZE, log2)?);
            ind.patches.push(patch::draw_field(
                arch,
                job,
                dcd::OFFSET_START,
                draw_value::OFFSET_START,
            )?);
            for &r in &input.scaled_records {
                ind.patches
                    .push(Patch::field(r, attribute_buffer::DIVISOR, log2)?);
            }
            let param = |i: u16| sysval_offset::XFB_PARAMS + 4 * u32::from(i);
            for (sysval, value) in [
                (
                    param(xfb_param::PRIMS_PER_INSTANCE),
                    draw_value::PRIMS_PER_INSTANCE,
                ),
                (param(xfb_param::FIRST), draw_value::FIRST),
                (param(xfb_param::VERTEX_OFFSET), draw_value::VERTEX_OFFSET),
                (sysval_offset::BASE_VERTEX, draw_value::BASE_VERTEX),
                (sysval_offset::BASE_INSTANCE, draw_value::FIRST_INSTANCE),
            ] {
                if let Some(at) = prog.push.sysval_offset(sysval) {
                    ind.patches
                        .push(Patch::word(push_buffer.gpu_va + u64::from(at), value));
                }
            }
            for (i, value) in [
                (
                    xfb_param::PRIMS_PER_INSTANCE,
                    draw_value::PRIMS_PER_INSTANCE,
                ),
                (xfb_param::FIRST, draw_value::FIRST),
                (xfb_param::VERTEX_OFFSET, draw_value::VERTEX_OFFSET),
            ] {
                ind.patches
                    .push(Patch::word(block + 4 * u64::from(i), value));
            }
            ind.patches.push(Patch::word(
                block + 4 * params.len() as u64,
                draw_value::INSTANCES,
            ));
        }
        self.xfb_advance(
            block,
            params.len(),
            p.xfb_strides,
            capture.unwrap_or(active.last_job),
        )
    }

    /// The capture job's attribute tables, `Offset start` and `Instance
    /// Size` (module docs).
    /// Indirect draws always use the several-instances scheme with
    /// placeholders (`Instance Size` 1, `Offset start` 0) that their kernel
    /// replaces.
    fn vertex_input(
        &mut self,
        p: &GraphicsPipeline,
        prog: &Program,
        d: &DrawParams,
        indirect: bool,
    ) -> Result<VertexInput, Fail> {
        let locations = &prog.io.attributes;
        if locations.is_empty() {
            return Ok(VertexInput {
                tables: None,
                offset_start: 0,
                instance_size: 1,
                scaled_records: Vec::new(),
            });
        }
        let instanced = indirect || d.instances > 1;
        let size = if instanced && !indirect {
            self.instance_size(d)?
        } else {
            1
        };
        let offset_start = if instanced {
            d.first_instance * size
        } else {
            0
        };
        let mut buffers = Vec::new();
        let mut buffer_of_binding = Vec::new();
        let mut records = Vec::with_capacity(locations.len());
        for &location in locations {
            let Some(a) = p.attributes.iter().find(|a| a.location == location) else {
                log::error!(
                    "the vertex shader reads location {location}, which the pipeline does not provide"
                );
                return Err(Fail::Vk(ash::vk::Result::ERROR_UNKNOWN));
            };
            let slot = match buffer_of_binding.iter().position(|&b| b == a.binding) {
                Some(s) => s,
                None => {
                    let binding = p
                        .bindings
                        .iter()
                        .find(|b| b.binding == a.binding)
                        .copied()
                        .ok_or(Fail::Vk(ash::vk::Result::ERROR_UNKNOWN))?;
                    let range = self.state.vertex_buffers[a.binding as usize].unwrap_or_default();
                    self.rec.use_bo(range.bo);
                    let (address, size_bytes, stride, indexing) =
                        match (binding.per_instance, instanced) {
                            (false, false) => {
                                (range.address, range.size, binding.stride, Indexing::Linear)
                            }
                            (false, true) => (
                                range.address,
                                range.size,
                                binding.stride,
                                Indexing::PerVertex {
                                    instance_size: size,
                                },
                            ),
                            (true, false) => {
                                let skip = u64::from(d.first_instance) * u64::from(binding.stride);
                                (
                                    range.address + skip,
                                    range.size.saturating_sub(skip),
                                    0,
                                    Indexing::Linear,
                                )
                            }
                            (true, true) => (
                                range.address,
                                range.size,
                                binding.stride,
                                Indexing::PerInstance {
                                    instance_size: size,
                                    divisor: 1,
                                },
                            ),
                        };
                    buffers.push(AttributeBuffer {
                        address,
                        size: size_bytes,
                        stride,
                        indexing,
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
        // An indirect draw's kernel patches its buffer records: its own.
        let tables = if indirect {
            write_attribute_tables(&mut self.rec, &buffers, &records)?
        } else {
            shared_attribute_tables(&mut self.rec, &buffers, &records)?
        };
        // With `Instance Size` 1 every record is one slot (modulus or POT
        // divisor), so buffer i's record is slot i.
        let scaled_records = if indirect {
            (0..buffers.len() as u64)
                .map(|i| tables.buffers + 16 * i)
                .collect()
        } else {
            Vec::new()
        };
        Ok(VertexInput {
            tables: Some(tables),
            offset_start,
            instance_size: size,
            scaled_records,
        })
    }

    /// `Instance Size` of an instanced capture job (module docs).
    fn instance_size(&self, d: &DrawParams) -> Result<u32, Fail> {
        let instances_end = u64::from(d.first_instance) + u64::from(d.instances);
        let bound = if !d.indexed {
            Some(u64::from(d.first) + u64::from(d.count))
        } else {
            let above = u64::from(d.vertex_offset.max(0) as u32);
            match self.state.index.map(|i| i.size) {
                Some(1) => Some(256 + above),
                Some(2) => Some(65536 + above),
                _ => None,
            }
        };
        let size = match bound {
            Some(b) => crate::hw::layout::padded_round_up(b).unwrap_or(u64::MAX),
            None => {
                // The largest power of two that keeps the linear index in 32 bits.
                let bits = 64 - (instances_end.max(1) - 1).leading_zeros();
                1u64 << (32 - bits.min(32))
            }
        };
        if instances_end * size > 1 << 32 || size > u64::from(u32::MAX) {
            log::error!(
                "instanced draw too large for the attribute unit's 32-bit linear index \
                 ({instances_end} instances × {size} vertices)"
            );
            return Err(Fail::Vk(ash::vk::Result::ERROR_UNKNOWN));
        }
        Ok(size as u32)
    }
}
