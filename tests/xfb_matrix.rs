//! The XFB test matrix: the lowered XFB variant (`lower_io` → `lower_xfb` →
//! `lower_sysvals`), run in the IR interpreter over every captured-vertex
//! invocation, must produce byte-identical buffers to the spec oracle
//! (`compiler::xfb_reference`). Buffers start with a sentinel pattern and are
//! mapped beyond their bound range, so holes in the stride and bytes outside
//! the binding are checked too; index buffers are mapped exactly, so an
//! over-read is an error.
//!
//! Axes (each covered fully; the cross product is sampled to stay fast):
//! topologies × vertex counts 0..=20 and 1000–1002 × instances 1..=3 × first
//! vertex; indexed u8/u16/u32 with negative and large vertex offsets, indices
//! above 65535 and reads past the index range; primitive restart through the
//! restart-kernel model; 1–4 buffers with gaps, bind offsets, resumed write
//! offsets and every 32-bit scalar/vector type; overflow at every primitive
//! boundary with each buffer in turn the limiting one.

use bifrost_vk::compiler::ir::interp::*;
use bifrost_vk::compiler::ir::*;
use bifrost_vk::compiler::passes::lower_xfb::{
    XFB_PARAM_COUNT, XfbBinding, XfbIndexBuffer, xfb_param,
};
use bifrost_vk::compiler::passes::*;
use bifrost_vk::compiler::xfb_reference::*;

#[path = "support/xfb_shaders.rs"]
mod xfb_shaders;
use xfb_shaders::*;

const ATTR_BASE: u64 = 0x10_0000_0000;
const INST_ATTR_BASE: u64 = 0x20_0000_0000;
const INDEX_BASE: u64 = 0x30_0000_0000;
const OFFSETS_BASE: u64 = 0x40_0000_0000;
const XFB_BASE: u64 = 0x50_0000_0000;

/// The compiled XFB variant and its push-uniform layout.
struct Variant {
    shader: Shader,
    layout: PushUniformLayout,
    attr_vertex: u32,
    attr_instance: u32,
}

/// The draw's XFB parameters with attribute `per_instance` read per
/// instance (INPUT_RATES, `lower_xfb`'s parameter table).
fn with_rates(
    mut p: [u32; XFB_PARAM_COUNT as usize],
    per_instance: u32,
) -> [u32; XFB_PARAM_COUNT as usize] {
    p[xfb_param::INPUT_RATES as usize] = 1 << per_instance;
    p
}

/// The sysval block of `draw` with no base vertex, base instance or raw
/// vertex offset, the instance attribute read per instance.
fn plain_sysvals(draw: &XfbDraw, v: &Variant) -> SysvalBlock {
    SysvalBlock {
        xfb_params: with_rates(draw.params(), v.attr_instance),
        ..SysvalBlock::default()
    }
}

fn make_variant(outs: &[OutSpec]) -> Variant {
    let mut s = build_shader(outs);
    let io = lower_io(&mut s);
    assert!(lower_xfb(&mut s));
    let layout = lower_sysvals(&mut s);
    // Nothing the backend does not know may remain.
    s.body.for_each_instr(&mut |i| {
        if let Op::Intrinsic(OpIntrinsic {
            kind: Intrinsic::LoadSysVal(sv),
            ..
        }) = &i.op
        {
            assert!(
                matches!(sv, SysVal::XfbInvocation | SysVal::InstanceId),
                "sysval {sv:?} left in the variant"
            );
        }
        if let Op::Intrinsic(i) = &i.op {
            assert!(!matches!(
                i.kind,
                Intrinsic::StoreOutput { .. } | Intrinsic::LoadInput { .. }
            ));
        }
    });
    Variant {
        shader: s,
        layout,
        attr_vertex: io.attribute_index(LOC_VERTEX).unwrap(),
        attr_instance: io.attribute_index(LOC_INSTANCE).unwrap(),
    }
}

/// The model of the advance kernel (`compiler::kernels::xfb::advance`):
/// primitives written and the new offsets.
fn advance_kernel_model(
    total_prims: u64,
    vpp: u32,
    outs: &[OutSpec],
    bufs: &[BufSpec],
) -> (u64, Vec<u32>) {
    let mut fit = u64::MAX;
    for (b, buf) in bufs.iter().enumerate() {
        if buf.bound && outs.iter().any(|o| o.buffer as usize == b) {
            let room = buf.bind_size.saturating_sub(buf.write_offset) as u64;
            fit = fit.min(room / (stride_of(outs, b as u32) * vpp) as u64);
        }
    }
    let written = total_prims.min(fit);
    let offsets = bufs
        .iter()
        .enumerate()
        .map(|(b, buf)| {
            if buf.bound && outs.iter().any(|o| o.buffer as usize == b) {
                buf.write_offset + written as u32 * vpp * stride_of(outs, b as u32)
            } else {
                buf.write_offset
            }
        })
        .collect();
    (written, offsets)
}

/// Run one case through the variant and the reference; panics with context on mismatch.
fn check(variant: &Variant, outs: &[OutSpec], case: &Case) -> u64 {
    // ---- reference ----
    let Reference {
        draw: ref_draw,
        buffers: ref_buffers,
        expected,
    } = reference(outs, case);

    // ---- the variant ----
    let topology = xfb_topology(case.topology);
    let provoking = match case.provoking {
        ProvokingOrder::First => ProvokingVertex::First,
        ProvokingOrder::Last => ProvokingVertex::Last,
    };
    let mut mem = Memory::new();
    let mut bindings = [None; 4];
    for (b, spec) in case.buffers.iter().enumerate() {
        let base = XFB_BASE + ((b as u64) << 28);
        mem.map(base, ref_buffers[b].memory.clone()).unwrap();
        if spec.bound {
            bindings[b] = Some(XfbBinding {
                address: base + spec.bind_offset as u64,
                size: spec.bind_size,
            });
        }
    }
    let mut offsets = [0u32; 4];
    for (b, spec) in case.buffers.iter().enumerate() {
        offsets[b] = spec.write_offset;
    }
    mem.map(
        OFFSETS_BASE,
        offsets.iter().flat_map(|o| o.to_le_bytes()).collect(),
    )
    .unwrap();
    let draw = match &case.indices {
        None => XfbDraw {
            topology,
            count: case.count,
            first: case.first,
            vertex_offset: 0,
            index: None,
            buffers: bindings,
            offsets_address: OFFSETS_BASE,
            resolved_prims: None,
            provoking,
        },
        Some((ix, size, restart)) => {
            if *restart {
                let (list, prims) = restart_kernel_model(
                    topology,
                    provoking,
                    ix,
                    case.first,
                    case.count,
                    restart_value(*size),
                );
                if !list.is_empty() {
                    mem.map(
                        INDEX_BASE,
                        list.iter().flat_map(|i| i.to_le_bytes()).collect(),
                    )
                    .unwrap();
                }
                XfbDraw::resolved(
                    topology,
                    INDEX_BASE,
                    prims,
                    case.vertex_offset,
                    bindings,
                    OFFSETS_BASE,
                )
            } else {
                let bytes: Vec<u8> = ix
                    .iter()
                    .flat_map(|i| i.to_le_bytes()[..*size as usize].to_vec())
                    .collect();
                if !bytes.is_empty() {
                    mem.map(INDEX_BASE, bytes).unwrap();
                }
                XfbDraw {
                    topology,
                    count: case.count,
                    first: case.first,
                    vertex_offset: case.vertex_offset,
                    index: Some(XfbIndexBuffer {
                        address: INDEX_BASE,
                        count: ix.len() as u32,
                        size: *size,
                    }),
                    buffers: bindings,
                    offsets_address: OFFSETS_BASE,
                    resolved_prims: None,
                    provoking,
                }
            }
        }
    };
    // Attribute memory covering exactly the vertices of complete primitives
    // (one mapped range per run of consecutive vertex indices).
    let prims = primitives(&ref_draw);
    let mut vertices: Vec<u32> = prims.iter().flatten().copied().collect();
    vertices.sort_unstable();
    vertices.dedup();
    let vmin = vertices.first().copied().unwrap_or(0);
    let mut run_start = 0;
    for i in 0..vertices.len() {
        let last = i + 1 == vertices.len() || vertices[i].checked_add(1) != Some(vertices[i + 1]);
        if last {
            let bytes: Vec<u8> = vertices[run_start..=i]
                .iter()
                .flat_map(|&v| vertex_attr(v).to_le_bytes())
                .collect();
            mem.map(ATTR_BASE + 4 * vertices[run_start] as u64, bytes)
                .unwrap();
            run_start = i + 1;
        }
    }
    let ibytes: Vec<u8> = (0..case.instances)
        .flat_map(|i| instance_attr(case.first_instance + i).to_le_bytes())
        .collect();
    if !ibytes.is_empty() {
        mem.map(INST_ATTR_BASE, ibytes).unwrap();
    }
    // The raw vertex offset only moves `raw_vertex_id` (any value must
    // give the same captures); the variant fetches its inputs by element
    // index from linear buffers with `Offset start` 0 (lower_xfb's
    // contract), the per-instance one by `firstInstance` + instance.
    let raw_vertex_offset = vmin.wrapping_sub(case.raw_offset_delta);
    let mut state = DrawState {
        offset_start: 0,
        ..Default::default()
    };
    state.attributes.insert(
        variant.attr_vertex,
        AttributeBinding {
            address: ATTR_BASE,
            stride: 4,
            comps: 1,
            kind: AttributeKind::Int,
            rate: InputRate::Vertex,
        },
    );
    state.attributes.insert(
        variant.attr_instance,
        AttributeBinding {
            // Holds the elements from firstInstance on, so element 0 is
            // firstInstance elements before it.
            address: INST_ATTR_BASE.wrapping_sub(4 * u64::from(case.first_instance)),
            stride: 4,
            comps: 1,
            kind: AttributeKind::Int,
            rate: InputRate::Vertex,
        },
    );
    let sysvals = SysvalBlock {
        raw_vertex_offset,
        base_vertex: if case.indices.is_some() {
            case.vertex_offset as u32
        } else {
            case.first
        },
        base_instance: case.first_instance,
        xfb_params: with_rates(draw.params(), variant.attr_instance),
        ..SysvalBlock::default()
    };
    state.push_uniforms = variant.layout.fill(&sysvals, &[]);
    let per_instance = draw.invocations_per_instance();
    let mut steps = 0;
    for instance in 0..case.instances {
        for s in 0..per_instance {
            let ids = InvocationIds {
                xfb_invocation: s,
                instance_id: instance,
                ..Default::default()
            };
            let r = run_invocation(&variant.shader, &state, &mut mem, ids)
                .unwrap_or_else(|e| panic!("invocation {s}/{instance} of {case:?}: {e}"));
            steps += r.steps;
        }
    }
    for (b, want) in expected.memory.iter().enumerate() {
        let got = mem.range(XFB_BASE + ((b as u64) << 28)).unwrap();
        if got != want.as_slice() {
            let first_diff = got.iter().zip(want).position(|(g, w)| g != w).unwrap();
            panic!(
                "buffer {b} differs at byte {first_diff} (got {:02x?}, want {:02x?})\ncase {case:?}\nouts {outs:?}",
                &got[first_diff..(first_diff + 8).min(got.len())],
                &want[first_diff..(first_diff + 8).min(want.len())]
            );
        }
    }
    // The advance kernel's model agrees with the reference's counters.
    let vpp = topology.decode().verts_per_prim;
    let total = case.instances as u64 * draw.prims_per_instance() as u64;
    assert_eq!(total, expected.primitives_needed, "{case:?}");
    let (written, new_offsets) = advance_kernel_model(total, vpp, outs, &case.buffers);
    assert_eq!(written, expected.primitives_written, "{case:?}");
    assert_eq!(new_offsets, expected.write_offsets, "{case:?}");
    steps
}

#[test]
fn non_indexed_all_topologies_counts_instances() {
    let outs = standard_outputs();
    let v = make_variant(&outs);
    for topology in RefTopology::ALL {
        for count in (0..=20).chain([1000, 1001, 1002]) {
            for instances in 1..=3 {
                // Large counts: one first-vertex value per instance count.
                let firsts: &[u32] = if count >= 1000 { &[7] } else { &[0, 5, 65530] };
                for &first in firsts {
                    // Both provoking orders; for large draws only where they differ.
                    let orders: &[ProvokingOrder] = if count >= 1000
                        && !matches!(
                            topology,
                            RefTopology::TriangleStrip
                                | RefTopology::TriangleFan
                                | RefTopology::TriangleStripWithAdjacency
                        ) {
                        &[ProvokingOrder::First]
                    } else {
                        &[ProvokingOrder::First, ProvokingOrder::Last]
                    };
                    for &provoking in orders {
                        let mut case = non_indexed(topology, count, instances, first);
                        case.first_instance = instances - 1;
                        case.raw_offset_delta = first % 3;
                        case.buffers = roomy_buffers(&outs, 2, count * instances);
                        case.provoking = provoking;
                        check(&v, &outs, &case);
                    }
                }
            }
        }
    }
}

#[test]
fn indexed_u8_u16_u32_offsets_and_robust_reads() {
    let outs = standard_outputs();
    let v = make_variant(&outs);
    let mut rng = Lcg(1);
    for topology in RefTopology::ALL {
        for size in [1u32, 2, 4] {
            for count in (0..=20).chain([300]) {
                for (vertex_offset, base) in [(0i32, 0u32), (-3, 3), (70_000, 0), (-65_000, 65_500)]
                {
                    let max = match size {
                        1 => 0xFE,
                        2 => 0xFFFE,
                        _ => 200_000,
                    };
                    if base + 40 > max {
                        continue;
                    }
                    let span = max.min(base + 40) - base.min(max);
                    let ix: Vec<u32> = (0..count + 4)
                        .map(|_| (base + rng.below(span + 1)).min(max))
                        .collect();
                    // Sometimes read past the end of the bound range (robust 0);
                    // with base > 0 the vertex offset keeps index 0 valid only if
                    // vertex_offset ≥ 0, so only do it then.
                    let first = if vertex_offset >= 0 && count % 5 == 0 {
                        6
                    } else {
                        2
                    };
                    let instances = 1 + count % 3;
                    let case = Case {
                        topology,
                        count,
                        first,
                        vertex_offset,
                        instances,
                        first_instance: 3,
                        indices: Some((ix, size, false)),
                        buffers: roomy_buffers(&outs, 2, (count + 4) * instances),
                        raw_offset_delta: 11,
                        provoking: if count % 2 == 0 {
                            ProvokingOrder::First
                        } else {
                            ProvokingOrder::Last
                        },
                    };
                    check(&v, &outs, &case);
                }
            }
        }
    }
}

#[test]
fn indices_above_65535() {
    let outs = standard_outputs();
    let v = make_variant(&outs);
    for topology in RefTopology::ALL {
        let ix: Vec<u32> = (0..24).map(|i| 65_530 + (i * 5) % 17).collect();
        let case = Case {
            topology,
            count: 24,
            first: 0,
            vertex_offset: -10,
            instances: 2,
            first_instance: 0,
            indices: Some((ix, 4, false)),
            buffers: roomy_buffers(&outs, 2, 48),
            raw_offset_delta: 0,
            provoking: ProvokingOrder::First,
        };
        check(&v, &outs, &case);
    }
}

#[test]
fn primitive_restart_resolved_lists() {
    let outs = standard_outputs();
    let v = make_variant(&outs);
    let mut rng = Lcg(7);
    for topology in RefTopology::ALL {
        for size in [1u32, 2, 4] {
            let restart = match size {
                1 => 0xFF,
                2 => 0xFFFF,
                _ => 0xFFFF_FFFF,
            };
            for count in (0..=20).chain([200]) {
                for (density, provoking) in
                    [(3u32, ProvokingOrder::First), (7, ProvokingOrder::Last)]
                {
                    let ix: Vec<u32> = (0..count)
                        .map(|_| {
                            if rng.below(density) == 0 {
                                restart
                            } else {
                                rng.below(50) + if size == 4 { 70_000 } else { 0 }
                            }
                        })
                        .collect();
                    let vertex_offset = if size == 4 { -69_990 } else { 5 };
                    let case = Case {
                        topology,
                        count,
                        first: 0,
                        vertex_offset,
                        instances: 1 + count % 3,
                        first_instance: 1,
                        indices: Some((ix, size, true)),
                        buffers: roomy_buffers(&outs, 2, count * 3),
                        raw_offset_delta: 2,
                        provoking,
                    };
                    check(&v, &outs, &case);
                }
            }
        }
    }
    // piglit primitive-restart-xfb: 9 indices, one restart → 4 triangles.
    let case = Case {
        topology: RefTopology::TriangleStrip,
        count: 9,
        first: 0,
        vertex_offset: 0,
        instances: 1,
        first_instance: 0,
        indices: Some((vec![0, 1, 2, 3, 0xFFFF, 4, 5, 6, 7], 2, true)),
        buffers: roomy_buffers(&outs, 2, 4),
        raw_offset_delta: 0,
        provoking: ProvokingOrder::First,
    };
    check(&v, &outs, &case);
}

/// Every 32-bit type (float/int/uint × 1–4 components) over 1–4 buffers with
/// gaps, unbound slots, bind offsets and resumed write offsets.
#[test]
fn buffers_types_gaps_and_unbound() {
    let kinds = [Kind::Float, Kind::Int, Kind::Uint];
    let mut rng = Lcg(3);
    for nbuf in 1..=4u32 {
        for variant_seed in 0..3u32 {
            // Spread the 12 type combinations over the buffers, with gaps.
            let mut outs = Vec::new();
            let mut cursor = vec![0u32; nbuf as usize];
            for (t, kind) in kinds.iter().enumerate() {
                for comps in 1..=4 {
                    let buffer = (t as u32 * 4 + comps + variant_seed) % nbuf;
                    let gap = 4 * rng.below(2);
                    let offset = cursor[buffer as usize] + gap;
                    cursor[buffer as usize] = offset + 4 * comps;
                    outs.push(OutSpec {
                        buffer,
                        offset,
                        comps,
                        kind: *kind,
                    });
                }
            }
            let v = make_variant(&outs);
            for topology in RefTopology::ALL {
                let count = 9 + rng.below(8);
                let mut case = non_indexed(topology, count, 2, 1);
                case.buffers = roomy_buffers(&outs, nbuf as usize, count * 2);
                for (b, buf) in case.buffers.iter_mut().enumerate() {
                    buf.bind_offset = 4 * rng.below(5);
                    buf.write_offset = 4 * rng.below(3) * (b as u32);
                    // Leave one slot unbound now and then (its outputs are dropped).
                    if nbuf > 1 && (b as u32 + variant_seed) % 3 == 2 {
                        buf.bound = false;
                    }
                }
                check(&v, &outs, &case);
            }
        }
    }
}

/// Overflow at every primitive boundary, each buffer in turn the limiting one:
/// sizes that fit exactly k primitives, k primitives and a few bytes, k+1
/// primitives minus a few bytes; resumed offsets beyond the size.
#[test]
fn overflow_at_every_primitive_boundary() {
    let outs = standard_outputs();
    let v = make_variant(&outs);
    for topology in RefTopology::ALL {
        let count = 14;
        let instances = 2;
        let mut probe = non_indexed(topology, count, instances, 0);
        probe.buffers = roomy_buffers(&outs, 2, 100);
        let vpp = topology.captured_vertices() as u32;
        let total = xfb_topology(topology).primitive_count(count) * instances;
        for limiting in 0..2usize {
            let stride = stride_of(&outs, limiting as u32);
            let prim = stride * vpp;
            for k in 0..=total + 1 {
                for extra in [0i64, 3, 4, -4] {
                    let size = k as i64 * prim as i64 + extra;
                    if size < 0 {
                        continue;
                    }
                    for write_offset in [0u32, 8] {
                        let mut case = probe.clone();
                        case.buffers[limiting].bind_size = size as u32 + write_offset;
                        case.buffers[limiting].write_offset = write_offset;
                        check(&v, &outs, &case);
                    }
                }
            }
            // Write offset beyond the bound size: nothing fits.
            let mut case = probe.clone();
            case.buffers[limiting].bind_size = 16;
            case.buffers[limiting].write_offset = 64;
            check(&v, &outs, &case);
        }
        // Both limiting at different counts.
        let mut case = probe.clone();
        case.buffers[0].bind_size = 3 * vpp * stride_of(&outs, 0);
        case.buffers[1].bind_size = 2 * vpp * stride_of(&outs, 1) + 5;
        check(&v, &outs, &case);
    }
}

/// Records whose primitive end × stride passes 32 bits never fit a
/// buffer: the room check's product must not wrap into a small number
/// (which would store at a wrapped, in-range or unmapped, offset). A point
/// list of `n` points, instance 1, so records `n + s` straddle
/// `⌈2^32 / stride⌉` while the vertex and instance indices stay small;
/// record 0 of instance 0 is stored, as the control.
#[test]
fn records_past_32_bit_products_never_fit() {
    let outs = standard_outputs();
    let v = make_variant(&outs);
    let stride = u64::from(stride_of(&outs, 0));
    let wrap = (1u64 << 32).div_ceil(stride) as u32;
    let n = wrap - 3;
    let sentinel = vec![0xab_u8; 8192];
    let mut mem = Memory::new();
    mem.map(XFB_BASE, sentinel.clone()).unwrap();
    mem.map(OFFSETS_BASE, vec![0; 16]).unwrap();
    let vertex: Vec<u8> = (0..8u32)
        .flat_map(|i| vertex_attr(i).to_le_bytes())
        .collect();
    mem.map(ATTR_BASE, vertex).unwrap();
    let instance: Vec<u8> = (0..2u32)
        .flat_map(|i| instance_attr(i).to_le_bytes())
        .collect();
    mem.map(INST_ATTR_BASE, instance).unwrap();
    let mut buffers = [None; 4];
    buffers[0] = Some(XfbBinding {
        address: XFB_BASE,
        size: 4096,
    });
    let draw = XfbDraw {
        topology: xfb_topology(RefTopology::PointList),
        count: n,
        first: 0,
        vertex_offset: 0,
        index: None,
        buffers,
        offsets_address: OFFSETS_BASE,
        resolved_prims: None,
        provoking: ProvokingVertex::First,
    };
    let mut state = DrawState {
        offset_start: 0,
        ..Default::default()
    };
    for (index, address) in [
        (v.attr_vertex, ATTR_BASE),
        (v.attr_instance, INST_ATTR_BASE),
    ] {
        state.attributes.insert(
            index,
            AttributeBinding {
                address,
                stride: 4,
                comps: 1,
                kind: AttributeKind::Int,
                rate: InputRate::Vertex,
            },
        );
    }
    let sysvals = plain_sysvals(&draw, &v);
    state.push_uniforms = v.layout.fill(&sysvals, &[]);
    for s in 0..6 {
        let ids = InvocationIds {
            xfb_invocation: s,
            instance_id: 1,
            ..Default::default()
        };
        run_invocation(&v.shader, &state, &mut mem, ids)
            .unwrap_or_else(|e| panic!("record {}: {e}", u64::from(n) + u64::from(s)));
        assert_eq!(
            mem.range(XFB_BASE).unwrap(),
            sentinel.as_slice(),
            "record {} was stored",
            u64::from(n) + u64::from(s)
        );
    }
    let ids = InvocationIds {
        xfb_invocation: 0,
        instance_id: 0,
        ..Default::default()
    };
    run_invocation(&v.shader, &state, &mut mem, ids).unwrap();
    assert_ne!(mem.range(XFB_BASE).unwrap(), sentinel.as_slice());
}

#[test]
fn rasterization_variant_keeps_no_capture() {
    let mut s = build_shader(&standard_outputs());
    strip_xfb(&mut s);
    assert!(s.outputs.iter().all(|o| o.xfb.is_none()));
    assert!(!s.info.xfb_mode);
    let mut stores = 0;
    s.body.for_each_instr(&mut |i| {
        if let Op::Intrinsic(OpIntrinsic {
            kind: Intrinsic::StoreGlobal,
            ..
        }) = &i.op
        {
            stores += 1;
        }
    });
    assert_eq!(stores, 0);
    // A shader without XFB outputs has no variant.
    assert!(!lower_xfb(&mut s));
}

/// The XFB variant goes through the Bifrost backend: it compiles, decodes
/// with `hw::isa`, and reads only r61/r62 as preloads.
#[test]
fn variant_compiles_for_bifrost() {
    use bifrost_vk::compiler::bifrost::{Options, compile, disasm};
    let v = make_variant(&standard_outputs());
    let bin =
        compile(&v.shader, Options::default()).unwrap_or_else(|e| panic!("{e}\n{}", v.shader));
    bifrost_vk::hw::isa::decode_shader(&bin.code).unwrap();
    let text = disasm::disassemble(&bin.code).unwrap();
    let body = &bin.code[..bin.code.len() - 128];
    assert!(bifrost_vk::compiler::bifrost::asm::assemble(&text).unwrap() == body);
    assert!(bin.preloads.vertex_id && bin.preloads.instance_id);
    assert_eq!(bin.uniform_words as usize, v.layout.words.len());
    eprintln!(
        "XFB variant: {} instructions, {} tuples, {} clauses, {} registers",
        bin.stats.instructions, bin.stats.tuples, bin.stats.clauses, bin.work_registers
    );
}

/// The XFB variant compiled by the Bifrost backend and run on the simulated
/// GPU (a COMPUTE job of 1×1×1 workgroups over (1, V, 1), so r61 =
/// captured vertex and r62 = instance, attributes fetched with LD_ATTR
/// through real attribute descriptors) writes exactly the reference's bytes.
#[test]
fn variant_on_the_simulator_matches_the_reference() {
    use bifrost_vk::compiler::bifrost::{Options, compile};
    use bifrost_vk::hw::attribute::{attribute_buffer as ab, attribute_desc as ad, attribute_type};
    use bifrost_vk::hw::format::{ComponentType, VertexFormat};
    use bifrost_vk::jm::{AttributeTables, ComputeJob};
    use bifrost_vk::kmod::sim::SimModel;
    use bifrost_vk::testing::SimGpu;

    let outs = standard_outputs();
    let v = make_variant(&outs);
    let mut binary = compile(&v.shader, Options::default()).unwrap_or_else(|e| panic!("{e}"));
    // In a COMPUTE job r60..r62 are the global ids: (0, captured vertex, instance).
    binary.preloads.global_invocation = [true; 3];
    for model in [SimModel::G52, SimModel::G72] {
        let ix: Vec<u32> = vec![3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5];
        for (topology, count, instances, index_size) in [
            (RefTopology::TriangleList, 6, 1, 0),
            (RefTopology::TriangleStrip, 7, 1, 0),
            (RefTopology::LineList, 5, 1, 0),
            (RefTopology::TriangleList, 9, 1, 1),
            (RefTopology::TriangleStrip, 8, 1, 2),
            (RefTopology::TriangleFan, 11, 1, 4),
        ] {
            let mut case = non_indexed(topology, count, instances, 0);
            case.buffers = roomy_buffers(&outs, 2, count * instances);
            // ---- reference ----
            if index_size > 0 {
                case.indices = Some((ix.clone(), index_size, false));
            }
            let Reference {
                buffers: ref_buffers,
                expected,
                ..
            } = reference(&outs, &case);
            // ---- the simulator ----
            let mut gpu = SimGpu::new(model);
            let mut bindings = [None; 4];
            let mut bases = Vec::new();
            for (b, spec) in case.buffers.iter().enumerate() {
                let len = ref_buffers[b].memory.len() as u64;
                let base = gpu.alloc(len.next_multiple_of(4096)).va;
                bases.push(base);
                gpu.write(base, &ref_buffers[b].memory);
                bindings[b] = Some(XfbBinding {
                    address: base + spec.bind_offset as u64,
                    size: spec.bind_size,
                });
            }
            let index = (index_size > 0).then(|| {
                let va = gpu.alloc(4096).va;
                let bytes: Vec<u8> = ix
                    .iter()
                    .flat_map(|i| i.to_le_bytes()[..index_size as usize].to_vec())
                    .collect();
                gpu.write(va, &bytes);
                XfbIndexBuffer {
                    address: va,
                    count: ix.len() as u32,
                    size: index_size,
                }
            });
            let offsets = gpu.alloc(4096).va;
            gpu.write(offsets, &[0u8; 16]);
            let draw = XfbDraw {
                topology: xfb_topology(case.topology),
                count: case.count,
                first: 0,
                vertex_offset: 0,
                index,
                buffers: bindings,
                offsets_address: offsets,
                resolved_prims: None,
                provoking: ProvokingVertex::First,
            };
            let attr_base = gpu.alloc(4096).va;
            let vbytes: Vec<u8> = (0..64).flat_map(|x| vertex_attr(x).to_le_bytes()).collect();
            gpu.write(attr_base, &vbytes);
            let inst_attr_base = gpu.alloc(4096).va;
            let ibytes: Vec<u8> = (0..16)
                .flat_map(|i| instance_attr(i).to_le_bytes())
                .collect();
            gpu.write(inst_attr_base, &ibytes);
            // Attribute descriptors: attribute i reads buffer i as R32I.
            let arch = gpu.arch();
            let fmt = bifrost_vk::hw::format::FormatArch::for_arch(arch)
                .attribute_format(VertexFormat::new(ComponentType::I32, 1))
                .unwrap();
            let tables = gpu.alloc(4096);
            let count_attrs = v.attr_vertex.max(v.attr_instance) + 1;
            for (attr, base) in [
                (v.attr_vertex, attr_base),
                (v.attr_instance, inst_attr_base),
            ] {
                let mut a = [0u32; 2];
                ad::BUFFER_INDEX.set(&mut a, u64::from(attr)).unwrap();
                ad::OFFSET_ENABLE.set(&mut a, 1).unwrap();
                ad::FORMAT.set(&mut a, fmt).unwrap();
                let words: Vec<u8> = a.iter().flat_map(|w| w.to_le_bytes()).collect();
                gpu.write(tables.va + 8 * u64::from(attr), &words);
                // Linear buffers from element 0 (lower_xfb's contract): the
                // variant fetches per-instance data by instance index.
                let mut bw = [0u32; 4];
                ab::TYPE.set(&mut bw, attribute_type::LINEAR_1D).unwrap();
                ab::POINTER.set(&mut bw, base).unwrap();
                ab::STRIDE.set(&mut bw, 4).unwrap();
                ab::SIZE.set(&mut bw, 4096).unwrap();
                let words: Vec<u8> = bw.iter().flat_map(|w| w.to_le_bytes()).collect();
                gpu.write(tables.va + 1024 + 16 * u64::from(attr), &words);
            }
            let sysvals = plain_sysvals(&draw, &v);
            let uniforms = v.layout.fill_words(&sysvals, &[]);
            let code = gpu.upload(&binary);
            let job = ComputeJob {
                binary: &binary,
                code,
                push_uniforms: &uniforms,
                local_size: [1, 1, 1],
                groups: [1, draw.invocations_per_instance(), case.instances],
                ubos: &[],
                attributes: Some(AttributeTables {
                    attributes: tables.va,
                    buffers: tables.va + 1024,
                    count: count_attrs,
                }),
                push_buffer: None,
            };
            gpu.run_compute_job(&job)
                .unwrap_or_else(|e| panic!("{model:?} {case:?}: {e}"));
            for (b, want) in expected.memory.iter().enumerate() {
                let got = gpu.read(bases[b], want.len());
                assert!(
                    got == *want,
                    "{model:?} {topology:?}: buffer {b} differs from the reference at byte {:?}\n got {:02x?}\nwant {:02x?}",
                    got.iter().zip(want).position(|(g, w)| g != w),
                    &got[..want.len().min(96)],
                    &want[..want.len().min(96)]
                );
            }
        }
    }
}

/// The variant's text, for reading (`cargo test --test xfb_matrix print_variant -- --nocapture`).
#[test]
fn print_variant() {
    let v = make_variant(&standard_outputs()[..1]);
    let text = v.shader.to_string();
    assert!(text.contains("store_global"));
    println!("{text}\n{:?}", v.layout);
}

/// Random draws mixing every axis at once (topology, indexing, restart,
/// instances, offsets, buffers, overflow), deterministic seed.
#[test]
fn random_cross_product() {
    let mut rng = Lcg(0x5eed);
    for _ in 0..40 {
        let (nbuf, outs) = random_outputs(&mut rng);
        let v = make_variant(&outs);
        for _ in 0..25 {
            let case = random_case(&mut rng, &outs, nbuf, true);
            check(&v, &outs, &case);
        }
    }
}
