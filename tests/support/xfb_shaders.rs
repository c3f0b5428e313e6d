//! The XFB test vertex shader, its expected values and the models shared by
//! `xfb_matrix.rs` (the variant in the interpreter) and `xfb_sim.rs` (the
//! variant compiled to Bifrost on the simulator): one copy, included by both
//! with `#[path]` (each file under tests/ is its own crate).
#![allow(dead_code)]

use bifrost_vk::compiler::ir::*;
use bifrost_vk::compiler::passes::*;
use bifrost_vk::compiler::xfb_reference::*;

/// Input locations (non-trivial so that lower_io's renumbering matters).
pub const LOC_VERTEX: u32 = 3;

pub const LOC_INSTANCE: u32 = 7;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Float,
    Int,
    Uint,
}

#[derive(Clone, Copy, Debug)]
pub struct OutSpec {
    pub buffer: u32,
    pub offset: u32,
    pub comps: u32,
    pub kind: Kind,
}

/// Per-vertex attribute value (element = vertex index).
pub fn vertex_attr(v: u32) -> u32 {
    v.wrapping_mul(3).wrapping_add(1)
}

/// Per-instance attribute value (element = instance index).
pub fn instance_attr(ii: u32) -> u32 {
    ii.wrapping_mul(7).wrapping_add(2)
}

/// What the test shader computes for component `c` of output `o`, as bits.
pub fn expected_value(v: u32, ii: u32, o: usize, c: u32, kind: Kind) -> u32 {
    let x = vertex_attr(v)
        .wrapping_add(v)
        .wrapping_add(instance_attr(ii).wrapping_mul(16))
        .wrapping_add(ii.wrapping_mul(1000))
        .wrapping_add(64 * o as u32)
        .wrapping_add(c);
    match kind {
        Kind::Float => (x as f32).to_bits(),
        Kind::Int => x.wrapping_neg(),
        Kind::Uint => x ^ 0x5A00_0000,
    }
}

/// A vertex shader computing `expected_value` from two attributes and the
/// vertex/instance index sysvals, plus a non-captured position output.
pub fn build_shader(outs: &[OutSpec]) -> Shader {
    let mut s = Shader::new(Stage::Vertex);
    s.info.xfb_mode = true;
    let u32t = ValueType::U32;
    s.inputs = vec![
        Input {
            name: "a_vertex".into(),
            location: LOC_VERTEX,
            component: 0,
            ty: u32t,
            interpolation: Interpolation::Smooth,
            sampling: Sampling::Center,
        },
        Input {
            name: "a_instance".into(),
            location: LOC_INSTANCE,
            component: 0,
            ty: u32t,
            interpolation: Interpolation::Smooth,
            sampling: Sampling::Center,
        },
    ];
    s.outputs.push(Output {
        name: "gl_Position".into(),
        slot: OutputSlot::BuiltIn(BuiltIn::Position),
        ty: ValueType::new(32, 4),
        xfb: None,
    });
    for (o, spec) in outs.iter().enumerate() {
        let stride = stride_of(outs, spec.buffer);
        s.outputs.push(Output {
            name: format!("out{o}"),
            slot: OutputSlot::Location {
                location: o as u32,
                component: 0,
            },
            ty: ValueType::new(32, spec.comps as u8),
            xfb: Some(Xfb {
                buffer: spec.buffer,
                stride,
                offset: spec.offset,
                stream: 0,
            }),
        });
    }
    let mut b = Builder::new(&mut s);
    let va = b.load(
        Intrinsic::LoadInput {
            location: LOC_VERTEX,
            component: 0,
        },
        u32t,
        &[],
    );
    let ia = b.load(
        Intrinsic::LoadInput {
            location: LOC_INSTANCE,
            component: 0,
        },
        u32t,
        &[],
    );
    let vi = b.sysval(SysVal::VertexIndex, u32t);
    let ii = b.sysval(SysVal::InstanceIndex, u32t);
    let sixteen = b.imm_u32(16);
    let thousand = b.imm_u32(1000);
    let t0 = b.alu(AluOp::Iadd, &[va, vi]);
    let t1 = b.alu(AluOp::Imul, &[ia, sixteen]);
    let t2 = b.alu(AluOp::Imul, &[ii, thousand]);
    let t3 = b.alu(AluOp::Iadd, &[t0, t1]);
    let x = b.alu(AluOp::Iadd, &[t3, t2]);
    // Position: float(x) in x, the rest constant (not captured).
    let fx = b.alu_typed(AluOp::U2f, ValueType::F32, &[x]);
    let one = b.imm_f32(1.0);
    let pos = b.vec(&[fx, one, one, one]);
    b.store(Intrinsic::StoreOutput { output: 0 }, &[pos]);
    for (o, spec) in outs.iter().enumerate() {
        let comps: Vec<Value> = (0..spec.comps)
            .map(|c| {
                let k = b.imm_u32(64 * o as u32 + c);
                let xc = b.alu(AluOp::Iadd, &[x, k]);
                match spec.kind {
                    Kind::Float => b.alu_typed(AluOp::U2f, ValueType::F32, &[xc]),
                    Kind::Int => b.alu(AluOp::Ineg, &[xc]),
                    Kind::Uint => {
                        let m = b.imm_u32(0x5A00_0000);
                        b.alu(AluOp::Ixor, &[xc, m])
                    }
                }
            })
            .collect();
        let v = if comps.len() == 1 {
            comps[0]
        } else {
            b.vec(&comps)
        };
        // Store some outputs inside control flow, as real shaders do.
        if o % 2 == 1 {
            let t = b.imm_bool(true);
            b.if_(
                t,
                &[],
                |b| {
                    b.store(
                        Intrinsic::StoreOutput {
                            output: o as u32 + 1,
                        },
                        &[v],
                    );
                    vec![]
                },
                |_| vec![],
            );
        } else {
            b.store(
                Intrinsic::StoreOutput {
                    output: o as u32 + 1,
                },
                &[v],
            );
        }
    }
    b.finish();
    s
}

pub fn stride_of(outs: &[OutSpec], buffer: u32) -> u32 {
    let end = outs
        .iter()
        .filter(|o| o.buffer == buffer)
        .map(|o| o.offset + 4 * o.comps)
        .max()
        .unwrap_or(0);
    // Leave a hole at the end of each record.
    (end + 4 + 3) & !3
}

/// The model of the GPU restart-resolution kernel (`compiler::kernels::xfb::
/// restart`, checked against this model in `xfb_kernels.rs`): walks the index
/// stream of one instance, splits it at restart values (compared before
/// `vertexOffset`), decomposes each run into primitives with the same
/// (primitive, slot) → position table the variant uses, and emits the u32
/// index values in capture order and the primitive count. Out-of-range index
/// reads give 0 (robust). Deliberately not the reference's assembler.
pub fn restart_kernel_model(
    topology: XfbTopology,
    provoking: ProvokingVertex,
    indices: &[u32],
    first: u32,
    count: u32,
    restart: u32,
) -> (Vec<u32>, u32) {
    let vpp = topology.decode().verts_per_prim;
    let mut list = Vec::new();
    let mut prims = 0;
    let mut run: Vec<u32> = Vec::new();
    let mut flush = |run: &mut Vec<u32>, list: &mut Vec<u32>| {
        let n = topology.primitive_count(run.len() as u32);
        for p in 0..n {
            for k in 0..vpp {
                list.push(run[topology.vertex_position(provoking, p, k) as usize]);
            }
        }
        prims += n;
        run.clear();
    };
    for i in 0..count {
        let pos = first as u64 + i as u64;
        let index = indices.get(pos as usize).copied().unwrap_or(0);
        if index == restart {
            flush(&mut run, &mut list);
        } else {
            run.push(index);
        }
    }
    flush(&mut run, &mut list);
    (list, prims)
}

/// A small deterministic generator.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    pub fn below(&mut self, n: u32) -> u32 {
        self.next() % n.max(1)
    }
}

#[derive(Clone, Debug)]
pub struct BufSpec {
    pub bound: bool,
    pub bind_offset: u32,
    pub bind_size: u32,
    pub write_offset: u32,
    /// Bytes mapped after the bound range (sentinel checked).
    pub tail: u32,
}

#[derive(Clone, Debug)]
pub struct Case {
    pub topology: RefTopology,
    pub count: u32,
    pub first: u32,
    pub vertex_offset: i32,
    pub instances: u32,
    pub first_instance: u32,
    /// (index values, index size in bytes, restart enabled)
    pub indices: Option<(Vec<u32>, u32, bool)>,
    pub buffers: Vec<BufSpec>,
    /// `Offset start` = lowest captured vertex − this (clamped at 0).
    pub raw_offset_delta: u32,
    pub provoking: ProvokingOrder,
}

pub fn sentinel(b: usize, i: usize) -> u8 {
    (0xA5 ^ (i * 7) ^ (b * 31)) as u8
}

pub fn xfb_topology(t: RefTopology) -> XfbTopology {
    XfbTopology::from_vk(t.vk()).unwrap()
}

pub fn restart_value(size: u32) -> u32 {
    match size {
        1 => 0xFF,
        2 => 0xFFFF,
        _ => 0xFFFF_FFFF,
    }
}

/// What the spec reference says one case writes: the draw and the buffers
/// (sentinel-filled) it was computed from, and the result.
pub struct Reference {
    pub draw: RefDraw,
    pub buffers: Vec<RefBuffer>,
    pub expected: RefResult,
}

/// Run `case` through the spec reference with the test shader's values.
pub fn reference(outs: &[OutSpec], case: &Case) -> Reference {
    let ref_draw = RefDraw {
        topology: case.topology,
        count: case.count,
        first_vertex: case.first,
        vertex_offset: case.vertex_offset,
        instance_count: case.instances,
        first_instance: case.first_instance,
        indexed: case.indices.as_ref().map(|(ix, size, restart)| RefIndices {
            indices: ix.clone(),
            first_index: case.first,
            restart: restart.then(|| restart_value(*size)),
        }),
        order: case.provoking,
    };
    let ref_outputs: Vec<RefOutput> = outs
        .iter()
        .map(|o| RefOutput {
            buffer: o.buffer,
            offset: o.offset,
            comps: o.comps,
        })
        .collect();
    let ref_buffers: Vec<RefBuffer> = case
        .buffers
        .iter()
        .enumerate()
        .map(|(b, spec)| {
            let len = (spec.bind_offset + spec.bind_size + spec.tail) as usize;
            RefBuffer {
                bound: spec.bound,
                memory: (0..len).map(|i| sentinel(b, i)).collect(),
                bind_offset: spec.bind_offset,
                bind_size: spec.bind_size,
                write_offset: spec.write_offset,
                stride: stride_of(outs, b as u32),
            }
        })
        .collect();
    let expected = run(&ref_draw, &ref_outputs, &ref_buffers, &|v, ii, o| {
        (0..outs[o].comps)
            .map(|c| expected_value(v, ii, o, c, outs[o].kind))
            .collect()
    });
    Reference {
        draw: ref_draw,
        buffers: ref_buffers,
        expected,
    }
}

/// The standard output set: holes, two buffers, bind offsets.
pub fn standard_outputs() -> Vec<OutSpec> {
    vec![
        OutSpec {
            buffer: 0,
            offset: 0,
            comps: 4,
            kind: Kind::Float,
        },
        OutSpec {
            buffer: 0,
            offset: 20,
            comps: 1,
            kind: Kind::Int,
        },
        OutSpec {
            buffer: 1,
            offset: 4,
            comps: 2,
            kind: Kind::Uint,
        },
    ]
}

/// Bound buffers with room for `max_prims` triangles of each stride.
pub fn roomy_buffers(outs: &[OutSpec], n: usize, max_prims: u32) -> Vec<BufSpec> {
    (0..n)
        .map(|b| {
            let stride = stride_of(outs, b as u32);
            BufSpec {
                bound: true,
                bind_offset: 4 * (b as u32 + 1),
                bind_size: stride * 3 * max_prims + 8,
                write_offset: 0,
                tail: 16,
            }
        })
        .collect()
}

/// A non-indexed draw with no buffers yet.
pub fn non_indexed(topology: RefTopology, count: u32, instances: u32, first: u32) -> Case {
    Case {
        topology,
        count,
        first,
        vertex_offset: 0,
        instances,
        first_instance: 0,
        indices: None,
        buffers: Vec::new(),
        raw_offset_delta: 0,
        provoking: ProvokingOrder::First,
    }
}

/// Random outputs over 1–4 buffers (1–5 outputs of 1–4 components, gaps of
/// 0 or 4 bytes, any kind): the buffer count and the outputs.
pub fn random_outputs(rng: &mut Lcg) -> (u32, Vec<OutSpec>) {
    let kinds = [Kind::Float, Kind::Int, Kind::Uint];
    let nbuf = 1 + rng.below(4);
    let mut outs = Vec::new();
    let mut cursor = vec![0u32; nbuf as usize];
    for _ in 0..1 + rng.below(5) {
        let buffer = rng.below(nbuf);
        let comps = 1 + rng.below(4);
        let offset = cursor[buffer as usize] + 4 * rng.below(2);
        cursor[buffer as usize] = offset + 4 * comps;
        outs.push(OutSpec {
            buffer,
            offset,
            comps,
            kind: kinds[rng.below(3) as usize],
        });
    }
    (nbuf, outs)
}

/// A random draw over every axis: topology, count, instances, non-indexed /
/// indexed / restart with u8/u16/u32 indices, first vertex or index, vertex
/// offset, bound/unbound buffers from nothing fits to everything fits,
/// first instance, raw offset delta, provoking order.
///
/// A robust read past the index range gives index 0: with a negative vertex
/// offset that is a vertex index near 2^32. `far_vertices: false` makes such
/// offsets positive (no attribute buffer of the simulator covers them; the
/// interpreter's sparse memory does). The generator draws the same numbers
/// either way.
pub fn random_case(rng: &mut Lcg, outs: &[OutSpec], nbuf: u32, far_vertices: bool) -> Case {
    let topology = RefTopology::ALL[rng.below(10) as usize];
    let count = rng.below(40);
    let instances = 1 + rng.below(3);
    let mode = rng.below(3); // 0 non-indexed, 1 indexed, 2 restart
    let size = [1u32, 2, 4][rng.below(3) as usize];
    let restart = restart_value(size);
    let high = if size == 4 { 100_000 } else { 0 };
    let indices = (mode > 0).then(|| {
        let ix: Vec<u32> = (0..count + rng.below(3))
            .map(|_| {
                if mode == 2 && rng.below(6) == 0 {
                    restart
                } else {
                    high + 10 + rng.below(60)
                }
            })
            .collect();
        (ix, size, mode == 2)
    });
    let first = if mode == 0 {
        rng.below(1000)
    } else {
        rng.below(3)
    };
    let mut buffers = roomy_buffers(outs, nbuf as usize, 0);
    for (b, buf) in buffers.iter_mut().enumerate() {
        let stride = stride_of(outs, b as u32);
        buf.bound = rng.below(5) != 0;
        buf.bind_offset = 4 * rng.below(4);
        buf.write_offset = 4 * rng.below(4);
        // From nothing fits to everything fits.
        buf.bind_size = buf.write_offset + stride * rng.below(3 * count * instances + 4);
        buf.tail = 4 * rng.below(4);
    }
    let mut vertex_offset = if mode == 0 {
        0
    } else {
        rng.below(20) as i32 - 10
    };
    if !far_vertices
        && let Some((ix, _, _)) = &indices
        && vertex_offset < 0
        && (ix.len() as u32) < first + count
    {
        vertex_offset = -vertex_offset;
    }
    Case {
        topology,
        count,
        first,
        vertex_offset,
        instances,
        first_instance: rng.below(4),
        indices,
        buffers,
        raw_offset_delta: rng.below(5),
        provoking: if rng.below(2) == 0 {
            ProvokingOrder::First
        } else {
            ProvokingOrder::Last
        },
    }
}
