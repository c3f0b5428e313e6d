//! The indirect-parameter kernels (`compiler::kernels::indirect`) compiled
//! by the Bifrost backend and run as COMPUTE jobs on the simulated G52 and
//! G72, against a model written here: the Vulkan spec's indirect command
//! layouts and primitive counts, the Invocation packing of
//! `hw::compute::WorkSize` (a separate implementation of the same rule),
//! and the vertex-input scheme documented in the kernel module. The patch
//! table targets words in a buffer full of sentinels; only the patched
//! bits may change.

use bifrost_vk::compiler::bifrost::binary::ShaderBinary;
use bifrost_vk::compiler::bifrost::{Options, compile};
use bifrost_vk::compiler::kernels::Kernel;
use bifrost_vk::compiler::kernels::indirect::{
    self, DrawSource, IndirectDraw, PATCH_BYTES, VALUE_COUNT, dispatch_value, draw_value, job_type,
};
use bifrost_vk::compiler::passes::lower_xfb::XfbTopology;
use bifrost_vk::hw::compute::WorkSize;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::SimGpu;

const SENTINEL: u32 = 0xC0DE_5EED;

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n.max(1)
    }
}

fn compiled(k: &Kernel, model: SimModel) -> ShaderBinary {
    k.shader.validate().expect("kernel validates");
    compile(
        &k.shader,
        Options {
            arch: model.arch().into(),
            push_uniform_words: Some(k.words),
            ubo_table: false,
        },
    )
    .expect("kernel compiles")
}

/// A patch: (target word, shift, width, value slot).
type Patch = (usize, u32, u32, u8);

/// Lays out [sentinel targets ×16][values ×VALUE_COUNT][patch table][input ×8]
/// in one BO, runs `binary` with `words(input, table, n, values)` and
/// returns (targets after, values after, targets before).
fn run(
    gpu: &mut SimGpu,
    binary: &ShaderBinary,
    input: &[u32],
    patches: &[Patch],
    words: impl FnOnce(u64, u64, u32, u64) -> Vec<u64>,
) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let targets = 16usize;
    let table_words = patches.len() * PATCH_BYTES as usize / 4;
    let total = targets + VALUE_COUNT as usize + table_words + 8;
    let bo = gpu.alloc(4 * total as u64);
    let va = |i: usize| bo.va + 4 * i as u64;
    let values_at = targets;
    let table_at = values_at + VALUE_COUNT as usize;
    let input_at = table_at + table_words;
    let mut mem: Vec<u32> = (0..total as u32)
        .map(|i| SENTINEL ^ i.wrapping_mul(0x9E37_79B9))
        .collect();
    for (i, &(word, shift, width, value)) in patches.iter().enumerate() {
        let e = table_at + 4 * i;
        let a = va(word);
        mem[e] = a as u32;
        mem[e + 1] = (a >> 32) as u32;
        mem[e + 2] = shift | width << 8 | u32::from(value) << 16;
        mem[e + 3] = 0;
    }
    mem[input_at..input_at + input.len()].copy_from_slice(input);
    gpu.write_u32s(bo.va, &mem);
    let uniforms = words(
        va(input_at),
        va(table_at),
        patches.len() as u32,
        va(values_at),
    );
    gpu.run_compute(binary, &uniforms, [1, 1, 1], [1, 1, 1])
        .expect("kernel runs");
    let got = gpu.read_u32s(bo.va, total);
    // The table and the input are read-only.
    assert_eq!(got[table_at..], mem[table_at..], "table or input changed");
    (
        got[..targets].to_vec(),
        got[values_at..table_at].to_vec(),
        mem[..targets].to_vec(),
    )
}

/// The targets as the patch rule says they must be.
fn patched(before: &[u32], patches: &[Patch], values: &[u32]) -> Vec<u32> {
    let mut out = before.to_vec();
    for &(word, shift, width, value) in patches {
        let mask = if width == 32 {
            u32::MAX
        } else {
            (1u32 << width) - 1
        };
        out[word] = out[word] & !(mask << shift) | (values[value as usize] & mask) << shift;
    }
    out
}

#[test]
fn dispatch_kernel_packs_the_grid_and_nulls_empty_ones() {
    let k = indirect::indirect_dispatch();
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let binary = compiled(&k, model);
        let mut rng = Lcg(0x1D15_0000 ^ model as u64);
        let mut cases: Vec<([u32; 3], [u32; 3])> = vec![
            ([1, 1, 1], [1, 1, 1]),
            ([64, 1, 1], [0, 5, 5]),
            ([8, 8, 1], [65535, 65535, 65535]),
            ([1, 1, 1], [1 << 16, 1 << 16, 1]),
            ([32, 1, 1], [1 << 16, 1 << 10, 1]),
            ([4, 4, 4], [3, 5, 7]),
        ];
        for _ in 0..150 {
            let local = [1 + rng.below(64), 1 + rng.below(8), 1 + rng.below(4)];
            let (gx, gz) = (rng.below(17), rng.below(12));
            let groups = [rng.below(1 << gx), rng.below(9), rng.below(1 << gz)];
            cases.push((local, groups));
        }
        // Header type bits 1..7 of word 0, both invocation words, three
        // sysval words, and one field narrower than its word.
        let patches: Vec<Patch> = vec![
            (0, 1, 7, dispatch_value::JOB_TYPE),
            (2, 0, 32, dispatch_value::INVOCATION_0),
            (3, 0, 32, dispatch_value::INVOCATION_1),
            (5, 0, 32, dispatch_value::GROUPS_X),
            (6, 0, 32, dispatch_value::GROUPS_Y),
            (7, 0, 32, dispatch_value::GROUPS_Z),
            (9, 12, 5, dispatch_value::GROUPS_Y),
        ];
        for (local, groups) in cases {
            let (got, values, before) = run(&mut gpu, &binary, &groups, &patches, |i, t, n, v| {
                indirect::dispatch_words(i, local, t, n, v).to_vec()
            });
            let packed = WorkSize {
                size: local,
                count: groups,
            }
            .pack_compute();
            let ty = if packed.is_ok() {
                job_type::COMPUTE
            } else {
                job_type::NULL
            };
            assert_eq!(values[0], ty, "{local:?} {groups:?}");
            assert_eq!(values[3..6], groups, "{local:?} {groups:?}");
            if let Ok(w) = packed {
                assert_eq!(values[1..3], w, "{local:?} {groups:?}");
            }
            let want = patched(&before, &patches, &values);
            if packed.is_ok() {
                assert_eq!(got, want, "{local:?} {groups:?}");
            } else {
                // Only the job type is meaningful for a NULL job.
                assert_eq!(got[0], want[0]);
                assert_eq!(got[1], before[1]);
            }
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct DrawCase {
    draw: IndirectDraw,
    /// The words at the source address.
    record: [u32; 5],
    /// The count-buffer word (when `draw.draw_count` is set).
    count_word: u32,
}

/// The values the kernel must produce; `None` in a slot = not meaningful.
fn draw_model(c: &DrawCase) -> Vec<Option<u32>> {
    let r = c.record;
    let d = c.draw;
    let (mut count, mut instances, first, vertex_offset, first_instance, index_size) =
        match d.source {
            DrawSource::Draw(_) => (r[0], r[1], r[2], 0, r[3], 0),
            DrawSource::Indexed(_) => (r[0], r[1], r[2], r[3], r[4], d.index_size),
            DrawSource::ByteCount {
                counter_offset,
                vertex_stride,
                instances,
                first_instance,
                ..
            } => (
                r[0].saturating_sub(counter_offset) / vertex_stride,
                instances,
                0,
                0,
                first_instance,
                0,
            ),
        };
    if let Some((_, index, max)) = d.draw_count
        && index >= c.count_word.min(max)
    {
        count = 0;
        instances = 0;
    }
    let topology = XfbTopology::from_vk(d.topology).unwrap();
    let ppi = topology.primitive_count(count);
    let v = u64::from(ppi) * u64::from(d.verts_per_prim);
    let ie = u64::from(first_instance) + u64::from(instances);
    // Plain draws: the last vertex index fits 32 bits.
    let bound_ok = index_size != 0
        || matches!(d.source, DrawSource::Indexed(_))
        || u64::from(first) + u64::from(count) <= u64::from(u32::MAX);
    let grid = u32::try_from(v)
        .ok()
        .and_then(|v| WorkSize::vertices(v, instances).pack_graphics().ok());
    let ok = grid.is_some() && ie <= u64::from(u32::MAX) && bound_ok;
    let mut out = vec![None; VALUE_COUNT as usize];
    use draw_value::*;
    out[PRIMS_PER_INSTANCE as usize] = Some(if ok { ppi } else { 0 });
    out[FIRST as usize] = Some(first);
    out[VERTEX_OFFSET as usize] = Some(vertex_offset);
    out[INSTANCES as usize] = Some(if ok { instances } else { 0 });
    out[FIRST_INSTANCE as usize] = Some(first_instance);
    out[BASE_VERTEX as usize] = Some(
        if index_size != 0 || matches!(d.source, DrawSource::Indexed(_)) {
            vertex_offset
        } else {
            first
        },
    );
    out[JOB_TYPE as usize] = Some(if ok { job_type::VERTEX } else { job_type::NULL });
    out[COUNT as usize] = Some(count);
    if ok {
        let w = grid.unwrap();
        out[INVOCATION_0 as usize] = Some(w[0]);
        out[INVOCATION_1 as usize] = Some(w[1]);
    }
    out
}

fn random_draw(rng: &mut Lcg) -> DrawCase {
    let topology = rng.below(10);
    let vpp = XfbTopology::from_vk(topology)
        .unwrap()
        .decode()
        .verts_per_prim;
    let small = |rng: &mut Lcg| match rng.below(6) {
        0 => 0,
        1 => rng.next(),
        2 => u32::MAX - rng.below(4),
        3 => rng.below(1 << 20),
        _ => rng.below(12),
    };
    let record = [
        small(rng),
        match rng.below(4) {
            0 => 1,
            1 => small(rng),
            _ => rng.below(5),
        },
        small(rng),
        small(rng),
        small(rng),
    ];
    let source = match rng.below(3) {
        0 => DrawSource::Draw(0),
        1 => DrawSource::Indexed(0),
        _ => DrawSource::ByteCount {
            counter: 0,
            counter_offset: rng.below(64),
            vertex_stride: 4 * (1 + rng.below(16)),
            instances: rng.below(4),
            first_instance: small(rng),
        },
    };
    DrawCase {
        draw: IndirectDraw {
            source,
            topology,
            verts_per_prim: vpp,
            index_size: [1, 2, 4][rng.below(3) as usize],
            draw_count: (rng.below(3) == 0).then(|| (0, rng.below(4), rng.below(5))),
        },
        record,
        count_word: rng.below(6),
    }
}

#[test]
fn draw_kernel_computes_the_capture_parameters() {
    let k = indirect::indirect_draw();
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let binary = compiled(&k, model);
        let mut rng = Lcg(0xD2A3_0000 ^ model as u64);
        let mut cases: Vec<DrawCase> = (0..250).map(|_| random_draw(&mut rng)).collect();
        // Fixed corners: a plain triangle strip, an indexed list with a
        // negative vertex offset, 32-bit indices with many instances, a
        // byte-count draw below its offset, a draw past its count.
        let base = IndirectDraw {
            source: DrawSource::Draw(0),
            topology: 4,
            verts_per_prim: 3,
            index_size: 2,
            draw_count: None,
        };
        cases.push(DrawCase {
            draw: base,
            record: [6, 2, 3, 7, 0],
            count_word: 0,
        });
        cases.push(DrawCase {
            draw: IndirectDraw {
                source: DrawSource::Indexed(0),
                topology: 3,
                ..base
            },
            record: [9, 3, 1, (-4i32) as u32, 2],
            count_word: 0,
        });
        cases.push(DrawCase {
            draw: IndirectDraw {
                source: DrawSource::Indexed(0),
                index_size: 4,
                ..base
            },
            record: [5, 1000, 0, 0, 24],
            count_word: 0,
        });
        cases.push(DrawCase {
            draw: IndirectDraw {
                source: DrawSource::ByteCount {
                    counter: 0,
                    counter_offset: 40,
                    vertex_stride: 8,
                    instances: 1,
                    first_instance: 0,
                },
                ..base
            },
            record: [36, 0, 0, 0, 0],
            count_word: 0,
        });
        cases.push(DrawCase {
            draw: IndirectDraw {
                draw_count: Some((0, 2, 8)),
                ..base
            },
            record: [6, 1, 0, 0, 0],
            count_word: 2,
        });
        let patches: Vec<Patch> = vec![
            (0, 1, 7, draw_value::JOB_TYPE),
            (1, 0, 32, draw_value::INVOCATION_0),
            (2, 0, 32, draw_value::INVOCATION_1),
            (3, 16, 8, draw_value::COUNT),
            (4, 0, 32, draw_value::COUNT),
            (5, 24, 8, draw_value::FIRST_INSTANCE),
            (6, 0, 32, draw_value::PRIMS_PER_INSTANCE),
            (7, 0, 32, draw_value::FIRST),
            (8, 0, 32, draw_value::VERTEX_OFFSET),
            (9, 0, 32, draw_value::INSTANCES),
            (10, 0, 32, draw_value::BASE_VERTEX),
            (11, 0, 32, draw_value::FIRST_INSTANCE),
        ];
        for c in cases {
            let want = draw_model(&c);
            let (got, values, before) = run(
                &mut gpu,
                &binary,
                &[c.record.as_slice(), &[c.count_word]].concat(),
                &patches,
                |input, t, n, v| {
                    let mut d = c.draw;
                    d.source = match d.source {
                        DrawSource::Draw(_) => DrawSource::Draw(input),
                        DrawSource::Indexed(_) => DrawSource::Indexed(input),
                        DrawSource::ByteCount {
                            counter_offset,
                            vertex_stride,
                            instances,
                            first_instance,
                            ..
                        } => DrawSource::ByteCount {
                            counter: input,
                            counter_offset,
                            vertex_stride,
                            instances,
                            first_instance,
                        },
                    };
                    d.draw_count = d.draw_count.map(|(_, i, m)| (input + 20, i, m));
                    indirect::draw_words(&d, t, n, v).to_vec()
                },
            );
            for (slot, w) in want.iter().enumerate() {
                if let Some(w) = w {
                    assert_eq!(values[slot], *w, "{c:?}: value {slot}");
                }
            }
            let model_values: Vec<u32> = values.clone();
            let expect = patched(&before, &patches, &model_values);
            assert_eq!(got, expect, "{c:?}");
        }
    }
}
