//! The XFB variant on the simulated GPU: the matrix's variants
//! (`tests/xfb_matrix.rs`: `lower_io` → `lower_xfb` → `lower_sysvals`)
//! compiled to Bifrost machine code by `compiler::bifrost`, laid out in
//! simulated GPU memory and launched as **one real job per draw** through
//! `jm::add_xfb_job` (a VERTEX-typed COMPUTE_JOB, 1×1×1 workgroups, grid
//! `(1, prims × vpp, instances)`, r61/r62 preloads, the draw's attribute
//! tables and `Offset start`, the variant's own push uniforms) and the
//! `KernelDevice` trait. The XFB buffers must equal the spec oracle
//! (`compiler::xfb_reference`) byte for byte.
//!
//! Everything the GPU reads is in GPU memory: code, renderer state, push
//! uniforms (the variant's `PushUniformLayout` filled with the draw's
//! `SysvalBlock` and `XfbDraw::params`), the u32\[4\] write offsets, index
//! data, attribute / attribute-buffer descriptors (per-vertex `1D` or
//! `1D modulus` buffer, per-instance `1D POT` or `NPOT divisor` buffer as
//! `jm::vertex_input` packs them for the draw's padded `Instance Size`,
//! both sized exactly so a fetch
//! outside the captured vertices faults). XFB buffers start with a
//! sentinel pattern, with slack before (bind offset) and after (tail) the
//! bound range checked too; they end within 16 bytes of the end of their
//! zeroed BO (a guard page follows, so a far over-write faults) and every
//! other byte of the BO must stay zero. Index data also ends at its BO's
//! end, so an over-read faults.
//!
//! Axes (each fully covered; the cross product is sampled with a fixed
//! seed): the ten topologies × counts 0–7, 11, 20 and ≥ 1000 × instances
//! 1–3 × first vertex × provoking order; indexed u8/u16/u32 with negative
//! vertex offsets and indices above 65535, robust reads past the index
//! range; restart through the restart-kernel model's resolved list; 1–4
//! buffers with gaps, unbound slots, bind and resumed write offsets, every
//! 32-bit scalar/vector type; overflow at primitive boundaries. G52 (v7)
//! everywhere (~3650 draws); on G72 (v6) the random cross product, the
//! restart lists, indices above 65535 and an instanced draw per topology
//! (~360 draws). About 11 s in the dev profile on 2 cores.
//!
//! The test shader builder and the restart-kernel model are shared with
//! the matrix through `support/xfb_shaders.rs`.

use bifrost_vk::compiler::bifrost::binary::ShaderBinary;
use bifrost_vk::compiler::bifrost::{Options, compile};
use bifrost_vk::compiler::passes::lower_xfb::{XfbBinding, XfbIndexBuffer};
use bifrost_vk::compiler::passes::*;
use bifrost_vk::compiler::xfb_reference::*;
use bifrost_vk::hw::attribute::attribute_desc as ad;
use bifrost_vk::hw::format::{ComponentType, FormatArch, VertexFormat};
use bifrost_vk::hw::{Arch, layouts};
use bifrost_vk::jm::{AttributeTables, Indexing, XfbJob, add_xfb_job, pack_attribute_buffer};
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::kmod::sim::shader::Counters;
use bifrost_vk::testing::{Buffer, SimGpu};

#[path = "support/xfb_shaders.rs"]
mod xfb_shaders;
use xfb_shaders::*;

/// The XFB variant, its push-uniform layout and its machine code.
struct Variant {
    layout: PushUniformLayout,
    attr_vertex: u32,
    attr_instance: u32,
    binary: ShaderBinary,
}

fn make_variant(outs: &[OutSpec], model: SimModel) -> Variant {
    let mut s = build_shader(outs);
    let io = lower_io(&mut s);
    assert!(lower_xfb(&mut s));
    let layout = lower_sysvals(&mut s);
    let binary = compile(
        &s,
        Options {
            arch: model.arch().into(),
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}\n{s}"));
    assert!(binary.preloads.vertex_id && binary.preloads.instance_id);
    assert_eq!(binary.uniform_words as usize, layout.words.len());
    assert!(binary.buffers.is_empty(), "the variant binds no buffers");
    Variant {
        layout,
        attr_vertex: io.attribute_index(LOC_VERTEX).unwrap(),
        attr_instance: io.attribute_index(LOC_INSTANCE).unwrap(),
        binary,
    }
}

/// `bytes` near the end of a fresh zeroed BO (a guard page follows it),
/// start aligned down to 16 bytes; returns the BO and the start address.
fn place_at_end(gpu: &mut SimGpu, bytes: &[u8]) -> (Buffer, u64) {
    let size = (bytes.len() as u64 + 16).next_multiple_of(4096);
    let bo: Buffer = gpu.alloc(size);
    let va = (bo.va + bo.size - bytes.len() as u64) & !15;
    gpu.write(va, bytes);
    (bo, va)
}

/// Attribute and attribute-buffer tables as the XFB job reads them
/// (`compiler::passes::lower_xfb`'s contract): 1D linear buffers indexed by
/// element, `Offset start` 0. Per-vertex `vertex_attr(v)` for `v` in
/// `vmin..vmin + span` (the attribute's offset rebases the buffer on
/// `vmin`, its size bounds it); per-instance
/// `instance_attr(firstInstance + i)` for the draw's instances (rebased on
/// `firstInstance`: the variant fetches it by instance index, INPUT_RATES).
fn attribute_tables(
    gpu: &mut SimGpu,
    v: &Variant,
    vmin: u32,
    span: u32,
    case: &Case,
) -> AttributeTables {
    let arch = gpu.arch();
    let vbytes: Vec<u8> = (0..span)
        .flat_map(|i| vertex_attr(vmin + i).to_le_bytes())
        .collect();
    let vbo = gpu.alloc((vbytes.len() as u64).max(64));
    gpu.write(vbo.va, &vbytes);
    let ibytes: Vec<u8> = (0..case.instances)
        .flat_map(|i| instance_attr(case.first_instance + i).to_le_bytes())
        .collect();
    let ibo = gpu.alloc((ibytes.len() as u64).max(64));
    gpu.write(ibo.va, &ibytes);

    let mut bufs = vec![0u32; 8];
    let set = |w: &mut [u32], f: bifrost_vk::hw::layout::Field, x: u64| f.set(w, x).unwrap();
    pack_attribute_buffer(
        &mut bufs[0..4],
        vbo.va,
        4,
        vbytes.len() as u32,
        Indexing::Linear,
    )
    .unwrap();
    pack_attribute_buffer(
        &mut bufs[4..8],
        ibo.va,
        4,
        ibytes.len() as u32,
        Indexing::Linear,
    )
    .unwrap();
    let buffers = gpu.alloc(64);
    gpu.write_u32s(buffers.va, &bufs);

    let format = FormatArch::for_arch(arch)
        .attribute_format(VertexFormat::new(ComponentType::U32, 1))
        .unwrap();
    let format_field = match arch {
        Arch::V6 => ad::FORMAT_V6,
        Arch::V7 => ad::FORMAT,
    };
    let count = v.attr_vertex.max(v.attr_instance) + 1;
    assert!(v.binary.attribute_count <= count);
    let mut attrs = vec![0u32; 2 * count as usize];
    for (index, buffer, offset) in [
        (v.attr_vertex, 0u64, (-4 * i64::from(vmin)) as u64),
        (
            v.attr_instance,
            1,
            (-4 * i64::from(case.first_instance)) as u64,
        ),
    ] {
        let w = &mut attrs[2 * index as usize..2 * index as usize + 2];
        let l = layouts(arch).attribute;
        w.copy_from_slice(&l.defaults());
        set(w, ad::BUFFER_INDEX, buffer);
        set(w, format_field, format);
        set(w, ad::OFFSET, offset);
    }
    let attributes = gpu.alloc(64.max(4 * attrs.len() as u64));
    gpu.write_u32s(attributes.va, &attrs);
    AttributeTables {
        attributes: attributes.va,
        buffers: buffers.va,
        count,
    }
}

/// Runs one draw's XFB job on `gpu` and compares with the reference.
/// Returns the job's counters (None when the grid was empty).
fn check(gpu: &mut SimGpu, v: &Variant, outs: &[OutSpec], case: &Case) -> Option<Counters> {
    // ---- reference ----
    let Reference {
        draw: ref_draw,
        buffers: ref_buffers,
        expected,
    } = reference(outs, case);

    // ---- GPU memory ----
    let topology = xfb_topology(case.topology);
    let provoking = match case.provoking {
        ProvokingOrder::First => ProvokingVertex::First,
        ProvokingOrder::Last => ProvokingVertex::Last,
    };
    let mut bases = Vec::new();
    let mut bindings = [None; 4];
    for (b, spec) in case.buffers.iter().enumerate() {
        let (bo, base) = place_at_end(gpu, &ref_buffers[b].memory);
        bases.push((bo, base));
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
    let offsets_bo = gpu.alloc(64);
    gpu.write_u32s(offsets_bo.va, &offsets);
    let draw = match &case.indices {
        None => XfbDraw {
            topology,
            count: case.count,
            first: case.first,
            vertex_offset: 0,
            index: None,
            buffers: bindings,
            offsets_address: offsets_bo.va,
            resolved_prims: None,
            provoking,
        },
        Some((ix, size, true)) => {
            let (list, prims) = restart_kernel_model(
                topology,
                provoking,
                ix,
                case.first,
                case.count,
                restart_value(*size),
            );
            let bytes: Vec<u8> = list.iter().flat_map(|i| i.to_le_bytes()).collect();
            let (_, list_va) = place_at_end(gpu, &bytes);
            XfbDraw::resolved(
                topology,
                list_va,
                prims,
                case.vertex_offset,
                bindings,
                offsets_bo.va,
            )
        }
        Some((ix, size, false)) => {
            let bytes: Vec<u8> = ix
                .iter()
                .flat_map(|i| i.to_le_bytes()[..*size as usize].to_vec())
                .collect();
            let (_, index_va) = place_at_end(gpu, &bytes);
            XfbDraw {
                topology,
                count: case.count,
                first: case.first,
                vertex_offset: case.vertex_offset,
                index: Some(XfbIndexBuffer {
                    address: index_va,
                    count: ix.len() as u32,
                    size: *size,
                }),
                buffers: bindings,
                offsets_address: offsets_bo.va,
                resolved_prims: None,
                provoking,
            }
        }
    };
    // Attribute data covering exactly the captured vertices' span.
    let prims = primitives(&ref_draw);
    let vmin = prims.iter().flatten().copied().min().unwrap_or(0);
    let vmax = prims.iter().flatten().copied().max().unwrap_or(0);
    let span = vmax - vmin + 1;
    assert!(
        span <= 1 << 20,
        "vertex span {vmin}..={vmax} too wide: {case:?}"
    );
    let tables = attribute_tables(gpu, v, vmin, span, case);
    // The raw vertex offset only moves `raw_vertex_id`: any value ≤ the
    // lowest vertex must capture the same bytes.
    let raw_offset = vmin - case.raw_offset_delta.min(vmin);
    let mut params = draw.params();
    params[bifrost_vk::compiler::passes::lower_xfb::xfb_param::INPUT_RATES as usize] =
        1 << v.attr_instance;
    let sysvals = SysvalBlock {
        raw_vertex_offset: raw_offset,
        base_vertex: if case.indices.is_some() {
            case.vertex_offset as u32
        } else {
            case.first
        },
        base_instance: case.first_instance,
        view_index: 0,
        draw_index: 0,
        push_constants_address: 0,
        num_workgroups: [0; 3],
        xfb_params: params,
        viewport: [0; 6],
    };
    let push = v.layout.fill_words(&sysvals, &[]);
    let code = gpu.upload(&v.binary);
    let job = XfbJob {
        binary: &v.binary,
        code,
        push_buffer: None,
        push_uniforms: &push,
        ubos: &[],
        invocations_per_instance: draw.invocations_per_instance(),
        instance_count: case.instances,
        attributes: Some(tables),
        offset_start: 0,
        instance_size: 1,
    };
    let run = gpu
        .run_chain(|chain, pool, arch| {
            add_xfb_job(chain, pool, arch, &job, [0, 0]).map(|j| j.is_some())
        })
        .unwrap_or_else(|e| panic!("{e}\ncase {case:?}\nouts {outs:?}"));
    if draw.invocations_per_instance() == 0 || case.instances == 0 {
        assert!(run.is_none());
    }

    // The whole BO: the zeroed bytes around the buffer's memory stay zero.
    for (b, want) in expected.memory.iter().enumerate() {
        let (bo, base) = bases[b];
        let got = gpu.read(bo.va, bo.size as usize);
        let before = (base - bo.va) as usize;
        let mut want_bo = vec![0u8; bo.size as usize];
        want_bo[before..before + want.len()].copy_from_slice(want);
        let (got, want) = (&got, &want_bo);
        if got != want {
            let at = got.iter().zip(want).position(|(g, w)| g != w).unwrap();
            panic!(
                "{:?}: buffer {b} differs at byte {} of its memory (got {:02x?}, want {:02x?})\ncase {case:?}\nouts {outs:?}",
                gpu.arch(),
                at as i64 - before as i64,
                &got[at..(at + 8).min(got.len())],
                &want[at..(at + 8).min(want.len())]
            );
        }
    }
    // The variant only reads the offsets block.
    assert_eq!(gpu.read_u32s(offsets_bo.va, 4), offsets);
    run.map(|r| {
        assert_eq!(r.jobs.len(), 1, "one job per draw");
        assert_eq!(
            r.counters.threads,
            u64::from(draw.invocations_per_instance()) * u64::from(case.instances)
        );
        r.counters
    })
}

/// Runs cases on one simulated GPU, a fresh one every few draws (the
/// harness keeps every BO it made until it is dropped).
struct Runner {
    model: SimModel,
    gpu: SimGpu,
    used: u32,
    pub draws: u32,
}

impl Runner {
    fn new(model: SimModel) -> Runner {
        Runner {
            model,
            gpu: SimGpu::new(model),
            used: 0,
            draws: 0,
        }
    }

    fn check(&mut self, v: &Variant, outs: &[OutSpec], case: &Case) -> Option<Counters> {
        if self.used == 64 {
            self.gpu = SimGpu::new(self.model);
            self.used = 0;
        }
        self.used += 1;
        self.draws += 1;
        check(&mut self.gpu, v, outs, case)
    }
}

const COUNTS: [u32; 10] = [0, 1, 2, 3, 4, 5, 6, 7, 11, 20];

/// Every topology × every count × every instance count 1–3 × both provoking
/// orders; the first vertex rotates over the cross product; ≥ 1000-vertex
/// draws for every topology and instance count.
#[test]
fn non_indexed_topologies_counts_instances() {
    let outs = standard_outputs();
    let v = make_variant(&outs, SimModel::G52);
    let mut r = Runner::new(SimModel::G52);
    let firsts = [0u32, 5, 65530];
    let mut n = 0usize;
    for topology in RefTopology::ALL {
        for count in COUNTS {
            for instances in 1..=3 {
                for provoking in [ProvokingOrder::First, ProvokingOrder::Last] {
                    let mut case = non_indexed(topology, count, instances, firsts[n % 3]);
                    case.first_instance = instances - 1;
                    case.raw_offset_delta = n as u32 % 3;
                    case.buffers = roomy_buffers(&outs, 2, count * instances);
                    case.provoking = provoking;
                    r.check(&v, &outs, &case);
                    n += 1;
                }
            }
        }
        for instances in 1..=3 {
            let mut case = non_indexed(topology, 1000 + instances, instances, 7);
            case.first_instance = instances - 1;
            case.buffers = roomy_buffers(&outs, 2, 3003);
            case.provoking = if instances == 2 {
                ProvokingOrder::Last
            } else {
                ProvokingOrder::First
            };
            r.check(&v, &outs, &case);
        }
    }
    eprintln!("{} draws on G52", r.draws);
}

/// Indexed u8/u16/u32 draws: every topology × index size × count × every
/// vertex offset the index size can hold (0, negative, large, negative with
/// high indices); robust reads past the end of the index range.
#[test]
fn indexed_u8_u16_u32_offsets_and_robust_reads() {
    let outs = standard_outputs();
    let v = make_variant(&outs, SimModel::G52);
    let mut r = Runner::new(SimModel::G52);
    let mut rng = Lcg(1);
    let offsets = [(0i32, 0u32), (-3, 3), (70_000, 0), (-65_000, 65_500)];
    let mut n = 0usize;
    for topology in RefTopology::ALL {
        for size in [1u32, 2, 4] {
            for count in COUNTS.into_iter().chain([300]) {
                let max = match size {
                    1 => 0xFE,
                    2 => 0xFFFE,
                    _ => 200_000,
                };
                // Rotate over the offsets this index size can hold.
                let usable: Vec<_> = offsets.iter().filter(|(_, b)| b + 40 <= max).collect();
                for _ in 0..usable.len() {
                    let &(vertex_offset, base) = usable[n % usable.len()];
                    n += 1;
                    let span = 40;
                    let ix: Vec<u32> = (0..count + 4).map(|_| base + rng.below(span + 1)).collect();
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
                        provoking: if (count + n as u32).is_multiple_of(2) {
                            ProvokingOrder::First
                        } else {
                            ProvokingOrder::Last
                        },
                    };
                    r.check(&v, &outs, &case);
                }
            }
        }
    }
    eprintln!("{} draws on G52", r.draws);
}

#[test]
fn indices_above_65535() {
    indices_above_65535_on(SimModel::G52);
}

fn indices_above_65535_on(model: SimModel) -> u32 {
    let outs = standard_outputs();
    let v = make_variant(&outs, model);
    let mut r = Runner::new(model);
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
        r.check(&v, &outs, &case);
    }
    r.draws
}

/// Primitive restart: the restart-kernel model resolves the index stream
/// into a u32 list that the variant runs as an indexed list draw.
#[test]
fn primitive_restart_resolved_lists() {
    let n = restart_lists(SimModel::G52);
    eprintln!("{n} draws on G52");
}

fn restart_lists(model: SimModel) -> u32 {
    let outs = standard_outputs();
    let v = make_variant(&outs, model);
    let mut r = Runner::new(model);
    let mut rng = Lcg(7);
    let mut n = 0u32;
    for topology in RefTopology::ALL {
        for size in [1u32, 2, 4] {
            let restart = restart_value(size);
            for count in [0u32, 3, 7, 11, 20, 200] {
                n += 1;
                let (density, provoking) = if n.is_multiple_of(2) {
                    (3u32, ProvokingOrder::First)
                } else {
                    (7, ProvokingOrder::Last)
                };
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
                r.check(&v, &outs, &case);
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
    r.check(&v, &outs, &case);
    r.draws
}

/// Every 32-bit type (float/int/uint × 1–4 components) over 1–4 buffers with
/// gaps, unbound slots, bind offsets and resumed write offsets.
#[test]
fn buffers_types_gaps_and_unbound() {
    let kinds = [Kind::Float, Kind::Int, Kind::Uint];
    let mut rng = Lcg(3);
    let mut r = Runner::new(SimModel::G52);
    for nbuf in 1..=4u32 {
        for variant_seed in 0..2u32 {
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
            let v = make_variant(&outs, SimModel::G52);
            for topology in RefTopology::ALL {
                let count = 9 + rng.below(8);
                let mut case = non_indexed(topology, count, 2, 1);
                case.buffers = roomy_buffers(&outs, nbuf as usize, count * 2);
                for (b, buf) in case.buffers.iter_mut().enumerate() {
                    buf.bind_offset = 4 * rng.below(5);
                    buf.write_offset = 4 * rng.below(3) * (b as u32);
                    if nbuf > 1 && (b as u32 + variant_seed) % 3 == 2 {
                        buf.bound = false;
                    }
                }
                r.check(&v, &outs, &case);
            }
        }
    }
    eprintln!("{} draws on G52", r.draws);
}

/// Overflow at every primitive boundary, each buffer in turn the limiting
/// one: sizes of exactly k primitives, k primitives and a few bytes, k + 1
/// primitives minus a few bytes; resumed write offsets (alternating), offsets
/// beyond the size.
/// A variant with more captured words than registers: every output value
/// is live until the guarded stores at the end, so the allocator spills to
/// thread-local storage and `add_xfb_job` gives the job its TLS buffer;
/// the captured bytes must still be the reference's, on G52 and G72.
#[test]
fn spilling_variant_captures_like_the_reference() {
    let kinds = [Kind::Float, Kind::Int, Kind::Uint];
    let mut outs = Vec::new();
    let mut cursor = [0u32; 4];
    for round in 0..3u32 {
        for (t, kind) in kinds.iter().enumerate() {
            for comps in 1..=4 {
                let buffer = (round + t as u32 + comps) % 4;
                let offset = cursor[buffer as usize];
                cursor[buffer as usize] += 4 * comps;
                outs.push(OutSpec {
                    buffer,
                    offset,
                    comps,
                    kind: *kind,
                });
            }
        }
    }
    assert_eq!(cursor.iter().sum::<u32>(), 4 * 90);
    for model in [SimModel::G52, SimModel::G72] {
        let v = make_variant(&outs, model);
        assert!(
            v.binary.stats.spills > 0 && v.binary.tls_size > 0,
            "{model:?}: 90 live output words should spill ({} spills, {} TLS bytes)",
            v.binary.stats.spills,
            v.binary.tls_size
        );
        let mut r = Runner::new(model);
        for (i, topology) in RefTopology::ALL.into_iter().enumerate() {
            let count = 7 + i as u32;
            let mut case = non_indexed(topology, count, 2, 1);
            case.buffers = roomy_buffers(&outs, 4, count * 2);
            if i % 3 == 1 {
                // Room for part of the draw only: overflow with spilled values.
                for buf in &mut case.buffers {
                    buf.bind_size /= 2;
                }
            }
            r.check(&v, &outs, &case);
        }
    }
}

#[test]
fn overflow_at_primitive_boundaries() {
    let outs = standard_outputs();
    let v = make_variant(&outs, SimModel::G52);
    let mut r = Runner::new(SimModel::G52);
    let mut n = 0usize;
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
            for (k, extra) in (0..=total + 1).flat_map(|k| [0i64, 3, 4, -4].map(|e| (k, e))) {
                let write_offset = [0u32, 8][n % 2];
                n += 1;
                let size = k as i64 * prim as i64 + extra;
                if size < 0 {
                    continue;
                }
                let mut case = probe.clone();
                case.buffers[limiting].bind_size = size as u32 + write_offset;
                case.buffers[limiting].write_offset = write_offset;
                r.check(&v, &outs, &case);
            }
            let mut case = probe.clone();
            case.buffers[limiting].bind_size = 16;
            case.buffers[limiting].write_offset = 64;
            r.check(&v, &outs, &case);
        }
        let mut case = probe.clone();
        case.buffers[0].bind_size = 3 * vpp * stride_of(&outs, 0);
        case.buffers[1].bind_size = 2 * vpp * stride_of(&outs, 1) + 5;
        r.check(&v, &outs, &case);
    }
    eprintln!("{} draws on G52", r.draws);
}

/// A random cross product of every axis (deterministic seed), on G52 and G72.
fn random_cross_product(model: SimModel, seed: u64, variants: u32, draws: u32) -> u32 {
    let mut rng = Lcg(seed);
    let mut r = Runner::new(model);
    for _ in 0..variants {
        let (nbuf, outs) = random_outputs(&mut rng);
        let v = make_variant(&outs, model);
        for _ in 0..draws {
            let case = random_case(&mut rng, &outs, nbuf, false);
            r.check(&v, &outs, &case);
        }
    }
    r.draws
}

#[test]
fn random_cross_product_g52() {
    let n = random_cross_product(SimModel::G52, 0x5eed, 12, 12);
    eprintln!("{n} draws on G52");
}

/// The v6 subset: the random cross product, restart lists, indices above
/// 65535 and one instanced draw per topology.
#[test]
fn g72_subset() {
    let n = random_cross_product(SimModel::G72, 0x72, 16, 10)
        + restart_lists(SimModel::G72)
        + indices_above_65535_on(SimModel::G72);
    let outs = standard_outputs();
    let v = make_variant(&outs, SimModel::G72);
    let mut r = Runner::new(SimModel::G72);
    for (i, topology) in RefTopology::ALL.into_iter().enumerate() {
        let mut case = non_indexed(topology, 20, 3, 65530);
        case.buffers = roomy_buffers(&outs, 2, 60);
        case.provoking = if i % 2 == 0 {
            ProvokingOrder::First
        } else {
            ProvokingOrder::Last
        };
        r.check(&v, &outs, &case);
    }
    eprintln!("{} draws on G72", n + r.draws);
}

/// One big draw (a 3000-vertex triangle strip, 3 instances, ~9000 captured
/// vertices × 3): prints what the simulated core executed.
#[test]
fn big_draw_counters() {
    let outs = standard_outputs();
    let v = make_variant(&outs, SimModel::G52);
    let mut r = Runner::new(SimModel::G52);
    let mut case = non_indexed(RefTopology::TriangleStrip, 3000, 3, 100);
    case.buffers = roomy_buffers(&outs, 2, 9000);
    case.first_instance = 2;
    let c = r.check(&v, &outs, &case).unwrap();
    eprintln!(
        "XFB variant ({} instructions, {} clauses static): big draw: {} threads, {} warps, {} clauses issued, {} thread-clauses, {} instructions executed",
        v.binary.stats.instructions,
        v.binary.stats.clauses,
        c.threads,
        c.warps,
        c.clauses,
        c.thread_clauses,
        c.instructions
    );
    assert_eq!(c.threads, 3 * 2998 * 3);
}
