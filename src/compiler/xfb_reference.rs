//! The transform-feedback oracle: what the Vulkan spec says a draw writes into
//! its XFB buffers, computed in plain Rust from the draw parameters and the
//! per-vertex values of the captured outputs.
//!
//! This module is the *contract* (the Vulkan specification's rules, summed up
//! in docs/DESIGN.md "Transform feedback") written as executable code. It is
//! used by `tests/xfb_matrix.rs` (lowered XFB variant run in the IR
//! interpreter vs. this) and later by the simulator tests of the backend
//! (compiled variant on the simulated GPU vs. this). It must never depend on
//! the IR, on `passes/lower_xfb.rs` or on any driver code: it is written from
//! the spec's rules only, as a primitive assembler over the vertex stream, so
//! that a shared mistake is unlikely.
//!
//! Rules implemented (Vulkan spec sections in parentheses; Vulkan-Docs
//! chapters/vertexpostproc.adoc and chapters/drawing.adoc):
//! - vertex order ("Transform Feedback", "Primitive Topologies"):
//!   provoking-vertex-preserving order for
//!   `VK_PROVOKING_VERTEX_MODE_FIRST_VERTEX` (the provoking vertex is written
//!   first); odd triangle-strip triangles are `v_i, v_i+2, v_i+1`; fan
//!   triangles are `v_i+1, v_i+2, v_0`; adjacency topologies capture only the
//!   main line/triangle. [`ProvokingOrder::Last`] gives the LAST-vertex
//!   preserving alternative of the same table (not used by the variant).
//! - instances in order ("Primitive Order"): all primitives of instance 0,
//!   then instance 1... `firstInstance` only changes `gl_InstanceIndex`.
//! - primitive restart, indexed draws only
//!   (`VkPipelineInputAssemblyStateCreateInfo::primitiveRestartEnable`): the
//!   restart value is compared with the index *before* `vertexOffset` is
//!   added; it drops the pending incomplete primitive and restarts assembly
//!   (strip parity, fan centre). Incomplete primitives are never captured.
//! - whole primitives only ("Transform Feedback", buffer overflow): a
//!   primitive is written only if it fits (`vertices × XfbStride` bytes from
//!   the current write offset) in the effective bound range of *every* bound
//!   buffer that the shader captures to; otherwise nothing of it is written,
//!   `primitives_needed` still counts it and the write offsets do not
//!   advance. Nothing is written outside the bound range.
//! - untouched holes ("Transform Feedback"): bytes of a stride not covered by
//!   an output stay untouched (we write per component); outputs of an
//!   unbound buffer are dropped and the buffer does not constrain overflow.
//!
//! Robust index reads: an index position at or beyond the end of the bound
//! index data reads as 0 (the variant and the restart kernel do the same).

/// `VkPrimitiveTopology` values 0–9 (patch lists never reach XFB without tessellation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefTopology {
    PointList,
    LineList,
    LineStrip,
    TriangleList,
    TriangleStrip,
    TriangleFan,
    LineListWithAdjacency,
    LineStripWithAdjacency,
    TriangleListWithAdjacency,
    TriangleStripWithAdjacency,
}

impl RefTopology {
    pub const ALL: [RefTopology; 10] = [
        RefTopology::PointList,
        RefTopology::LineList,
        RefTopology::LineStrip,
        RefTopology::TriangleList,
        RefTopology::TriangleStrip,
        RefTopology::TriangleFan,
        RefTopology::LineListWithAdjacency,
        RefTopology::LineStripWithAdjacency,
        RefTopology::TriangleListWithAdjacency,
        RefTopology::TriangleStripWithAdjacency,
    ];

    /// The `VkPrimitiveTopology` value.
    pub fn vk(self) -> u32 {
        self as u32
    }

    /// Vertices of the captured (main) primitive.
    pub fn captured_vertices(self) -> usize {
        use RefTopology::*;
        match self {
            PointList => 1,
            LineList | LineStrip | LineListWithAdjacency | LineStripWithAdjacency => 2,
            _ => 3,
        }
    }
}

/// Which end of the primitive the provoking vertex is kept at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProvokingOrder {
    First,
    Last,
}

/// A primitive assembler: fed one vertex at a time, emits complete primitives
/// (already in capture order) and can be reset by primitive restart.
struct Assembler {
    topology: RefTopology,
    order: ProvokingOrder,
    /// Vertices since the last restart (only what each topology needs is read).
    window: Vec<u32>,
    /// Vertices consumed since the last restart.
    count: usize,
    /// Fan centre (first vertex since restart).
    first: Option<u32>,
}

impl Assembler {
    fn new(topology: RefTopology, order: ProvokingOrder) -> Assembler {
        Assembler {
            topology,
            order,
            window: Vec::new(),
            count: 0,
            first: None,
        }
    }

    fn restart(&mut self) {
        self.window.clear();
        self.count = 0;
        self.first = None;
    }

    /// Feed vertex `v`; returns the primitive it completes, if any.
    fn push(&mut self, v: u32) -> Option<Vec<u32>> {
        use RefTopology::*;
        let n = self.count; // index of v since restart
        self.count += 1;
        if self.first.is_none() {
            self.first = Some(v);
        }
        self.window.push(v);
        // Keep only the vertices a topology can still refer to.
        let keep = match self.topology {
            PointList => 1,
            LineList | LineStrip => 2,
            TriangleList | TriangleStrip | TriangleFan => 3,
            LineListWithAdjacency | LineStripWithAdjacency => 4,
            TriangleListWithAdjacency | TriangleStripWithAdjacency => 6,
        };
        if self.window.len() > keep {
            self.window.remove(0);
        }
        let w = &self.window;
        let last = self.order == ProvokingOrder::Last;

        match self.topology {
            PointList => Some(vec![w[0]]),
            LineList => (n % 2 == 1).then(|| vec![w[0], w[1]]),
            LineStrip => (n >= 1).then(|| vec![w[0], w[1]]),
            TriangleList => (n % 3 == 2).then(|| vec![w[0], w[1], w[2]]),
            TriangleStrip => (n >= 2).then(|| {
                // Triangle i = n - 2 uses v_i, v_i+1, v_i+2 = w[0], w[1], w[2].
                let odd = (n - 2) % 2 == 1;
                match (odd, last) {
                    (false, _) => vec![w[0], w[1], w[2]],
                    (true, false) => vec![w[0], w[2], w[1]],
                    (true, true) => vec![w[1], w[0], w[2]],
                }
            }),
            TriangleFan => (n >= 2).then(|| {
                let c = self.first.unwrap_or(0);
                if last {
                    vec![c, w[1], w[2]]
                } else {
                    vec![w[1], w[2], c]
                }
            }),
            // Main line = 2nd and 3rd of each group of four.
            LineListWithAdjacency => (n % 4 == 3).then(|| vec![w[1], w[2]]),
            LineStripWithAdjacency => (n >= 3).then(|| vec![w[1], w[2]]),
            // Main triangle = 1st, 3rd, 5th of each group of six.
            TriangleListWithAdjacency => (n % 6 == 5).then(|| vec![w[0], w[2], w[4]]),
            TriangleStripWithAdjacency => (n >= 5 && (n - 5).is_multiple_of(2)).then(|| {
                // Triangle i = (n - 5) / 2 uses v_2i .. v_2i+5 = w[0..6].
                let odd = ((n - 5) / 2) % 2 == 1;
                match (odd, last) {
                    (false, _) => vec![w[0], w[2], w[4]],
                    (true, false) => vec![w[0], w[4], w[2]],
                    (true, true) => vec![w[2], w[0], w[4]],
                }
            }),
        }
    }
}

/// Index data of an indexed draw.
#[derive(Clone, Debug)]
pub struct RefIndices {
    /// The whole bound index range (values zero-extended to u32).
    pub indices: Vec<u32>,
    /// `firstIndex`.
    pub first_index: u32,
    /// The restart value (0xFF, 0xFFFF or 0xFFFFFFFF) if restart is enabled.
    pub restart: Option<u32>,
}

/// One draw.
#[derive(Clone, Debug)]
pub struct RefDraw {
    pub topology: RefTopology,
    /// Vertex count (non-indexed) or index count (indexed).
    pub count: u32,
    /// `firstVertex` (non-indexed; ignored when indexed).
    pub first_vertex: u32,
    /// `vertexOffset` (indexed; ignored when not indexed).
    pub vertex_offset: i32,
    pub instance_count: u32,
    pub first_instance: u32,
    pub indexed: Option<RefIndices>,
    pub order: ProvokingOrder,
}

/// One captured output: 32-bit components at `offset` in the vertex record of `buffer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefOutput {
    pub buffer: u32,
    pub offset: u32,
    pub comps: u32,
}

/// One XFB buffer slot. `memory` is the whole `VkBuffer`'s contents.
#[derive(Clone, Debug)]
pub struct RefBuffer {
    /// Whether a buffer is bound to this slot.
    pub bound: bool,
    pub memory: Vec<u8>,
    /// `pOffsets[i]` of the bind call.
    pub bind_offset: u32,
    /// Effective size of the binding (`min(pSizes[i], size − offset)`).
    pub bind_size: u32,
    /// Current write position, relative to the binding (0, or a resumed counter).
    pub write_offset: u32,
    /// `XfbStride` the shader declares for this buffer (0 if it declares none).
    pub stride: u32,
}

/// What a draw did to the XFB state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefResult {
    pub memory: Vec<Vec<u8>>,
    pub primitives_written: u64,
    pub primitives_needed: u64,
    /// Write offsets after the draw (the counter values End would store).
    pub write_offsets: Vec<u32>,
}

/// The vertex stream of one instance: `Some(vertex index)` or `None` for a restart.
fn vertex_stream(draw: &RefDraw) -> Vec<Option<u32>> {
    (0..draw.count)
        .map(|i| match &draw.indexed {
            None => Some(draw.first_vertex.wrapping_add(i)),
            Some(ix) => {
                let pos = ix.first_index as u64 + i as u64;
                let index = ix.indices.get(pos as usize).copied().unwrap_or(0);
                if ix.restart == Some(index) {
                    None
                } else {
                    Some(index.wrapping_add(draw.vertex_offset as u32))
                }
            }
        })
        .collect()
}

/// The captured primitives of one instance, as vertex indices in capture order.
pub fn primitives(draw: &RefDraw) -> Vec<Vec<u32>> {
    let mut asm = Assembler::new(draw.topology, draw.order);
    let mut out = Vec::new();
    for v in vertex_stream(draw) {
        match v {
            None => asm.restart(),
            Some(v) => out.extend(asm.push(v)),
        }
    }
    out
}

/// Run `draw` against `buffers`. `values(vertex_index, instance_index, output)`
/// gives the 32-bit components of a captured output for one vertex.
pub fn run(
    draw: &RefDraw,
    outputs: &[RefOutput],
    buffers: &[RefBuffer],
    values: &dyn Fn(u32, u32, usize) -> Vec<u32>,
) -> RefResult {
    let prims = primitives(draw);
    let verts = draw.topology.captured_vertices() as u64;
    let mut memory: Vec<Vec<u8>> = buffers.iter().map(|b| b.memory.clone()).collect();
    let mut offsets: Vec<u32> = buffers.iter().map(|b| b.write_offset).collect();
    let mut written = 0u64;
    let mut needed = 0u64;
    // Buffers that constrain overflow: bound and written by the shader.
    let active: Vec<usize> = (0..buffers.len())
        .filter(|&b| buffers[b].bound && outputs.iter().any(|o| o.buffer as usize == b))
        .collect();
    for instance in 0..draw.instance_count {
        let instance_index = draw.first_instance.wrapping_add(instance);
        for prim in &prims {
            needed += 1;
            let fits = active.iter().all(|&b| {
                let room = (buffers[b].bind_size as u64).saturating_sub(offsets[b] as u64);
                room >= verts * buffers[b].stride as u64
            });
            if !fits {
                continue;
            }
            written += 1;
            for (k, &vertex) in prim.iter().enumerate() {
                for (o, out) in outputs.iter().enumerate() {
                    let b = out.buffer as usize;
                    if !active.contains(&b) {
                        continue;
                    }
                    let vals = values(vertex, instance_index, o);
                    for (c, val) in vals.iter().enumerate().take(out.comps as usize) {
                        let at = buffers[b].bind_offset as usize
                            + offsets[b] as usize
                            + k * buffers[b].stride as usize
                            + out.offset as usize
                            + 4 * c;
                        memory[b][at..at + 4].copy_from_slice(&val.to_le_bytes());
                    }
                }
            }
            for &b in &active {
                offsets[b] += verts as u32 * buffers[b].stride;
            }
        }
    }
    RefResult {
        memory,
        primitives_written: written,
        primitives_needed: needed,
        write_offsets: offsets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(topology: RefTopology, count: u32) -> RefDraw {
        RefDraw {
            topology,
            count,
            first_vertex: 0,
            vertex_offset: 0,
            instance_count: 1,
            first_instance: 0,
            indexed: None,
            order: ProvokingOrder::First,
        }
    }

    #[test]
    fn spec_table_orders() {
        use RefTopology::*;
        assert_eq!(
            primitives(&draw(TriangleStrip, 5)),
            vec![vec![0, 1, 2], vec![1, 3, 2], vec![2, 3, 4]]
        );
        assert_eq!(
            primitives(&draw(TriangleFan, 5)),
            vec![vec![1, 2, 0], vec![2, 3, 0], vec![3, 4, 0]]
        );
        assert_eq!(
            primitives(&draw(TriangleStripWithAdjacency, 9)),
            vec![vec![0, 2, 4], vec![2, 6, 4]]
        );
        assert_eq!(
            primitives(&draw(LineStripWithAdjacency, 5)),
            vec![vec![1, 2], vec![2, 3]]
        );
        assert_eq!(
            primitives(&draw(LineListWithAdjacency, 9)),
            vec![vec![1, 2], vec![5, 6]]
        );
        assert_eq!(
            primitives(&draw(TriangleListWithAdjacency, 12)),
            vec![vec![0, 2, 4], vec![6, 8, 10]]
        );
        // LAST-vertex-preserving order (provoking vertex last; module docs).
        let last = |t, n| {
            let mut d = draw(t, n);
            d.order = ProvokingOrder::Last;
            primitives(&d)
        };
        assert_eq!(
            last(TriangleStrip, 5),
            vec![vec![0, 1, 2], vec![2, 1, 3], vec![2, 3, 4]]
        );
        assert_eq!(last(TriangleFan, 4), vec![vec![0, 1, 2], vec![0, 2, 3]]);
        assert_eq!(
            last(TriangleStripWithAdjacency, 9),
            vec![vec![0, 2, 4], vec![4, 2, 6]]
        );
        assert_eq!(last(LineStrip, 3), vec![vec![0, 1], vec![1, 2]]);
        assert_eq!(last(TriangleListWithAdjacency, 6), vec![vec![0, 2, 4]]);
    }

    #[test]
    fn restart_resets_parity() {
        // piglit primitive-restart-xfb: 9-index strip with one restart → 4 triangles.
        let mut d = draw(RefTopology::TriangleStrip, 9);
        d.indexed = Some(RefIndices {
            indices: vec![0, 1, 2, 3, 0xFFFF, 4, 5, 6, 7],
            first_index: 0,
            restart: Some(0xFFFF),
        });
        d.vertex_offset = 10;
        assert_eq!(
            primitives(&d),
            vec![
                vec![10, 11, 12],
                vec![11, 13, 12],
                vec![14, 15, 16],
                vec![15, 17, 16]
            ]
        );
    }

    #[test]
    fn overflow_is_whole_primitives_across_buffers() {
        let d = draw(RefTopology::TriangleList, 9);
        let outputs = [
            RefOutput {
                buffer: 0,
                offset: 0,
                comps: 1,
            },
            RefOutput {
                buffer: 1,
                offset: 4,
                comps: 1,
            },
        ];
        let buf = |size: u32, stride: u32| RefBuffer {
            bound: true,
            memory: vec![0xAA; 64],
            bind_offset: 0,
            bind_size: size,
            write_offset: 0,
            stride,
        };
        // Buffer 1 fits two triangles (2*3*8 = 48 ≤ 50 < 72).
        let r = run(&d, &outputs, &[buf(64, 4), buf(50, 8)], &|v, _, _| vec![v]);
        assert_eq!(r.primitives_needed, 3);
        assert_eq!(r.primitives_written, 2);
        assert_eq!(r.write_offsets, vec![24, 48]);
        assert_eq!(&r.memory[0][20..28], &[5, 0, 0, 0, 0xAA, 0xAA, 0xAA, 0xAA]);
        assert_eq!(&r.memory[1][0..8], &[0xAA, 0xAA, 0xAA, 0xAA, 0, 0, 0, 0]);
    }
}
