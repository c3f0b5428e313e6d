//! The XFB bookkeeping kernels (`compiler::kernels::xfb`: Begin, advance,
//! End) built in IR, validated, compiled by the Bifrost backend and run as
//! COMPUTE jobs on the simulated G52 and G72, against a model of the rules
//! written here from the spec's capture rules (whole primitives that fit in
//! every bound captured buffer; counters resume and save byte offsets;
//! stream queries count written and needed primitives; restart resolution
//! against the model the interpreter and simulator XFB tests already check
//! against the spec reference). Every word around the blocks the kernels may
//! write is a sentinel that must survive.

use bifrost_vk::compiler::bifrost::binary::ShaderBinary;
use bifrost_vk::compiler::bifrost::{Options, compile};
use bifrost_vk::compiler::kernels::xfb::{self, Kernel, advance_words, counter_words};
use bifrost_vk::compiler::passes::lower_xfb::{
    ProvokingVertex, XFB_PARAM_COUNT, XfbIndexBuffer, XfbTopology, xfb_param,
};
use bifrost_vk::compiler::xfb_reference::RefTopology;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::SimGpu;

#[path = "support/xfb_shaders.rs"]
mod xfb_shaders;
use xfb_shaders::{Lcg, restart_kernel_model, restart_value};

fn chance(rng: &mut Lcg, percent: u32) -> bool {
    rng.below(100) < percent
}

const SENTINEL: u32 = 0x5EB7_1E5A;

fn compiled(k: &Kernel, model: SimModel) -> ShaderBinary {
    k.shader
        .validate()
        .unwrap_or_else(|e| panic!("{}: {e:?}", k.shader.info.name));
    compile(
        &k.shader,
        Options {
            arch: model.arch().into(),
            push_uniform_words: Some(k.words),
            ubo_table: false,
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", k.shader.info.name))
}

/// One advance case.
#[derive(Clone, Debug)]
struct AdvanceCase {
    vpp: u32,
    ppi: u32,
    instances: u32,
    bound: [bool; 4],
    strides: [u32; 4],
    sizes: [u32; 4],
    offsets: [u32; 4],
    query: Option<[u64; 2]>,
}

/// The rule: (new offsets, new query results).
fn advance_model(c: &AdvanceCase) -> ([u32; 4], Option<[u64; 2]>) {
    let needed = u64::from(c.instances) * u64::from(c.ppi);
    let captured = |b: usize| c.bound[b] && c.strides[b] != 0;
    let mut written = needed;
    for b in (0..4).filter(|&b| captured(b)) {
        let room = u64::from(c.sizes[b].saturating_sub(c.offsets[b]));
        written = written.min(room / u64::from(c.strides[b] * c.vpp));
    }
    let mut offsets = c.offsets;
    for b in (0..4).filter(|&b| captured(b)) {
        offsets[b] += (written * u64::from(c.vpp * c.strides[b])) as u32;
    }
    let query = c
        .query
        .map(|[w, n]| [w.wrapping_add(written), n.wrapping_add(needed)]);
    (offsets, query)
}

fn random_advance(rng: &mut Lcg) -> AdvanceCase {
    let vpp = 1 + rng.below(3);
    let mut c = AdvanceCase {
        vpp,
        ppi: match rng.below(4) {
            0 => rng.below(4),
            1 => rng.below(100_000),
            _ => rng.below(300),
        },
        instances: match rng.below(5) {
            0 => 0,
            1 => 1 << 20,
            _ => 1 + rng.below(6),
        },
        bound: [false; 4],
        strides: [0; 4],
        sizes: [0; 4],
        offsets: [0; 4],
        query: chance(rng, 60).then(|| [u64::from(rng.next()) << 20, u64::from(rng.next()) << 7]),
    };
    for b in 0..4 {
        c.bound[b] = chance(rng, 70);
        c.strides[b] = if chance(rng, 75) {
            4 * (1 + rng.below(32))
        } else {
            0
        };
        c.sizes[b] = match rng.below(5) {
            0 => 0,
            1 => u32::MAX - rng.below(1 << 16),
            _ => rng.below(1 << 16),
        };
        c.offsets[b] = match rng.below(4) {
            0 => 0,
            1 => c.sizes[b].saturating_add(4 * rng.below(8)),
            _ => 4 * rng.below(c.sizes[b] / 4 + 1),
        };
    }
    c
}

/// Runs `c` through the advance kernel; returns (offsets, query, params
/// block) as read back, after checking the sentinels.
fn run_advance(
    gpu: &mut SimGpu,
    binary: &ShaderBinary,
    c: &AdvanceCase,
) -> ([u32; 4], Option<[u64; 2]>) {
    // One BO: [sentinel ×4][params ×28][sentinel ×4][offsets ×4][sentinel ×4]
    // [instances][sentinel ×3][query: 4 words][sentinel ×4].
    let words = 4 + XFB_PARAM_COUNT as usize + 4 + 4 + 4 + 4 + 4 + 4;
    let bo = gpu.alloc(4 * words as u64);
    let mut mem = vec![SENTINEL; words];
    let params_at = 4;
    let offsets_at = params_at + XFB_PARAM_COUNT as usize + 4;
    let instances_at = offsets_at + 8;
    let query_at = instances_at + 4;
    let va = |i: usize| bo.va + 4 * i as u64;
    let p = &mut mem[params_at..params_at + XFB_PARAM_COUNT as usize];
    p.fill(0x0BAD_0BAD);
    p[xfb_param::VERTS_PER_PRIM as usize] = c.vpp;
    p[xfb_param::PRIMS_PER_INSTANCE as usize] = c.ppi;
    p[xfb_param::BOUND_MASK as usize] = (0..4).filter(|&b| c.bound[b]).map(|b| 1 << b).sum();
    p[xfb_param::OFFSETS_ADDRESS as usize] = va(offsets_at) as u32;
    p[xfb_param::OFFSETS_ADDRESS as usize + 1] = (va(offsets_at) >> 32) as u32;
    for b in 0..4 {
        p[xfb_param::buffer_size(b as u32) as usize] = c.sizes[b];
    }
    mem[offsets_at..offsets_at + 4].copy_from_slice(&c.offsets);
    mem[instances_at] = c.instances;
    if let Some(q) = c.query {
        for (i, v) in q.iter().enumerate() {
            mem[query_at + 2 * i] = *v as u32;
            mem[query_at + 2 * i + 1] = (*v >> 32) as u32;
        }
    }
    gpu.write_u32s(bo.va, &mem);
    let mut uniforms = vec![0u64; advance_words::COUNT as usize];
    uniforms[advance_words::PARAMS as usize] = va(params_at);
    uniforms[advance_words::INSTANCES as usize] = va(instances_at);
    uniforms[advance_words::QUERY as usize] = if c.query.is_some() { va(query_at) } else { 0 };
    let s = c.strides.map(u64::from);
    uniforms[advance_words::STRIDES as usize] = s[0] | s[1] << 32;
    uniforms[advance_words::STRIDES as usize + 1] = s[2] | s[3] << 32;
    gpu.run_compute(binary, &uniforms, [1, 1, 1], [1, 1, 1])
        .unwrap_or_else(|e| panic!("{c:?}: {e}"));

    let got = gpu.read_u32s(bo.va, words);
    // Nothing but the offsets and the query words may change.
    for (i, (g, w)) in got.iter().zip(&mem).enumerate() {
        let writable = (offsets_at..offsets_at + 4).contains(&i)
            || (c.query.is_some() && (query_at..query_at + 4).contains(&i));
        if !writable {
            assert_eq!(g, w, "{c:?}: word {i} changed");
        }
    }
    let offsets = got[offsets_at..offsets_at + 4].try_into().unwrap();
    let q =
        |i: usize| u64::from(got[query_at + 2 * i]) | u64::from(got[query_at + 2 * i + 1]) << 32;
    (offsets, c.query.map(|_| [q(0), q(1)]))
}

#[test]
fn advance_kernel_follows_the_capture_rules() {
    let k = xfb::advance();
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let binary = compiled(&k, model);
        let mut rng = Lcg(0xAD5A_1CE0 ^ model as u64);
        let mut cases: Vec<AdvanceCase> = (0..300).map(|_| random_advance(&mut rng)).collect();
        // Fixed corners: a buffer exactly full, one past its size, no
        // buffer bound, and a count whose product needs 64 bits.
        let base = AdvanceCase {
            vpp: 3,
            ppi: 10,
            instances: 2,
            bound: [true, false, true, false],
            strides: [12, 8, 0, 4],
            sizes: [360, 64, 100, 64],
            offsets: [0, 0, 0, 0],
            query: Some([5, 7]),
        };
        cases.push(base.clone());
        cases.push(AdvanceCase {
            offsets: [364, 0, 0, 0],
            ..base.clone()
        });
        cases.push(AdvanceCase {
            bound: [false; 4],
            ..base.clone()
        });
        cases.push(AdvanceCase {
            ppi: 1 << 20,
            instances: 1 << 20,
            bound: [false; 4],
            query: Some([u64::MAX - 1, 1]),
            ..base.clone()
        });
        let mut partial = 0;
        for c in &cases {
            let want = advance_model(c);
            let got = run_advance(&mut gpu, &binary, c);
            assert_eq!(got, want, "{model:?}: {c:?}");
            let needed = u64::from(c.instances) * u64::from(c.ppi);
            if want.0 != c.offsets && (0..4).any(|b| c.bound[b] && c.strides[b] != 0) {
                let written = want.1.map(|q| q[0]);
                partial += usize::from(written.is_some() && needed > 0);
            }
        }
        // The random cases reach the interesting paths.
        assert!(partial > 20, "only {partial} cases advanced with a query");
    }
}

#[test]
fn begin_and_end_kernels_move_counters() {
    let (kb, ke) = (xfb::begin(), xfb::end());
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let (bb, be) = (compiled(&kb, model), compiled(&ke, model));
        let mut rng = Lcg(0xC0DE ^ model as u64);
        for _ in 0..60 {
            // [sentinel ×4][offsets ×4][sentinel ×4][counter b, sentinel ×3]×4
            let words = 4 + 4 + 4 + 16;
            let bo = gpu.alloc(4 * words as u64);
            let mut mem = vec![SENTINEL; words];
            let offsets_at = 4;
            let counter_at = |b: usize| 12 + 4 * b;
            let present: Vec<bool> = (0..4).map(|_| chance(&mut rng, 60)).collect();
            for b in 0..4 {
                mem[offsets_at + b] = rng.next();
                mem[counter_at(b)] = rng.next();
            }
            gpu.write_u32s(bo.va, &mem);
            let va = |i: usize| bo.va + 4 * i as u64;
            let mut uniforms = vec![0u64; counter_words::COUNT as usize];
            uniforms[counter_words::OFFSETS as usize] = va(offsets_at);
            for b in 0..4 {
                if present[b] {
                    uniforms[counter_words::COUNTERS as usize + b] = va(counter_at(b));
                }
            }

            // Begin: offsets resume from present counters, else start at 0.
            gpu.run_compute(&bb, &uniforms, [1, 1, 1], [1, 1, 1])
                .unwrap();
            let mut want = mem.clone();
            for b in 0..4 {
                want[offsets_at + b] = if present[b] { mem[counter_at(b)] } else { 0 };
            }
            assert_eq!(
                gpu.read_u32s(bo.va, words),
                want,
                "{model:?} begin {present:?}"
            );

            // Draws move the offsets; End saves them to present counters only.
            for b in 0..4 {
                want[offsets_at + b] = rng.next();
            }
            gpu.write_u32s(bo.va, &want);
            gpu.run_compute(&be, &uniforms, [1, 1, 1], [1, 1, 1])
                .unwrap();
            for b in 0..4 {
                if present[b] {
                    want[counter_at(b)] = want[offsets_at + b];
                }
            }
            assert_eq!(
                gpu.read_u32s(bo.va, words),
                want,
                "{model:?} end {present:?}"
            );
        }
    }
}

#[test]
fn restart_kernel_resolves_index_streams_like_the_model() {
    let k = xfb::restart();
    // All ten, in `VkPrimitiveTopology` order.
    let topologies = RefTopology::ALL.map(|t| XfbTopology::from_vk(t.vk()).unwrap());
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let binary = compiled(&k, model);
        let mut rng = Lcg(0x5E57_A127 ^ model as u64);
        let mut nonempty = 0;
        for case in 0..160 {
            let topology = topologies[case % topologies.len()];
            let provoking = if case % 20 < 10 {
                ProvokingVertex::First
            } else {
                ProvokingVertex::Last
            };
            let size = [1u32, 2, 4][rng.below(3) as usize];
            let restart = restart_value(size);
            let available = rng.below(40);
            let indices: Vec<u32> = (0..available)
                .map(|_| {
                    if chance(&mut rng, 20) {
                        restart
                    } else {
                        rng.below(if size == 1 { 255 } else { 5000 })
                    }
                })
                .collect();
            // Sometimes the draw runs past the bound range (robust reads)
            // or starts beyond it.
            let first = rng.below(available.max(1) + 4);
            let count = rng.below(available + 8);
            // Indirect draws give the bound range as CAP: the count is
            // clamped to the positions inside it. LIST = 0 only counts.
            let capped = case % 3 == 1;
            let count_only = case % 4 == 3;
            let kernel_count = if capped {
                count.min(available.saturating_sub(first))
            } else {
                count
            };
            let (mut want_list, want_prims) =
                restart_kernel_model(topology, provoking, &indices, first, kernel_count, restart);
            if count_only {
                want_list.clear();
            }

            let bytes: Vec<u8> = indices
                .iter()
                .flat_map(|&i| i.to_le_bytes()[..size as usize].to_vec())
                .collect();
            let ibo = gpu.alloc((bytes.len() as u64).max(4));
            gpu.write(ibo.va, &bytes);
            // List room vpp × count words, a sentinel word after it and the
            // primitive count in its own sentinel-surrounded slot.
            let vpp = topology.decode().verts_per_prim as usize;
            let room = vpp * count as usize;
            let words = room + 1 + 3;
            let out = gpu.alloc(4 * words as u64);
            gpu.write_u32s(out.va, &vec![SENTINEL; words]);
            let prims_va = out.va + 4 * (room as u64 + 2);
            let mut uniforms = xfb::restart_words(
                topology,
                provoking,
                XfbIndexBuffer {
                    address: ibo.va,
                    count: available,
                    size,
                },
                first,
                count,
                restart,
                if count_only { 0 } else { out.va },
                prims_va,
            );
            if capped {
                let w = &mut uniforms[xfb::restart_words::MIN_VERTICES as usize];
                *w = (*w & u64::from(u32::MAX)) | u64::from(available) << 32;
            }
            gpu.run_compute(&binary, &uniforms, [1, 1, 1], [1, 1, 1])
                .unwrap_or_else(|e| panic!("{model:?} {topology:?}: {e}"));
            let got = gpu.read_u32s(out.va, words);
            let ctx = format!(
                "{model:?} {topology:?} {provoking:?} size {size} first {first} count {count} capped {capped} count only {count_only} indices {indices:?}"
            );
            assert_eq!(got[room + 2], want_prims, "{ctx}");
            assert_eq!(&got[..want_list.len()], &want_list[..], "{ctx}");
            assert!(
                got[want_list.len()..room + 2]
                    .iter()
                    .all(|&w| w == SENTINEL)
                    && got[room + 3] == SENTINEL,
                "{ctx}: wrote outside the list"
            );
            nonempty += usize::from(want_prims > 0);
        }
        assert!(nonempty > 60, "only {nonempty} cases produced primitives");
    }
}
