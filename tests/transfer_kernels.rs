//! The transfer and query kernels (`compiler::kernels::transfer`: buffer
//! copy and fill; `compiler::kernels::query`: vkCmdCopyQueryPoolResults)
//! built in IR, validated, compiled by the Bifrost backend and run as
//! COMPUTE jobs on the simulated G52 and G72 with the grids their helpers
//! give, against models written here from the Vulkan rules: a copy writes
//! exactly the source bytes to `[dst, dst + size)`; a fill writes the
//! pattern to every word of `[dst, dst + size)`; a query copy writes each
//! available query's results (or every query's with PARTIAL), 64- or
//! 32-bit, and the availability after them when asked. Sentinel bytes
//! before and after every destination range must survive, and sources
//! placed against unmapped memory show that nothing is read outside them.

use bifrost_vk::compiler::bifrost::binary::ShaderBinary;
use bifrost_vk::compiler::bifrost::{Options, compile};
use bifrost_vk::compiler::ir::interp::{self, DrawState, InvocationIds, Memory};
use bifrost_vk::compiler::kernels::Kernel;
use bifrost_vk::compiler::kernels::query::{self, QueryCopy, flags};
use bifrost_vk::compiler::kernels::transfer::{self, CHUNK_BYTES};
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::{Run, SimGpu};

const SENTINEL: u8 = 0xA5;
/// Sentinel bytes checked on each side of a destination range.
const GUARD: u64 = 24;

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
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

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

/// Runs the copy kernel for `size` bytes from `src` to `dst`.
fn run_copy(gpu: &mut SimGpu, bin: &ShaderBinary, src: u64, dst: u64, size: u64) -> Run {
    let (local, groups) = transfer::copy_grid(size);
    let words = transfer::copy_words(src, dst, size);
    gpu.run_compute(bin, &words, local, groups)
        .unwrap_or_else(|e| panic!("copy {src:#x} → {dst:#x}, {size} bytes: {e}"))
}

/// Copies `size` random bytes from `src` to `dst` (each with `GUARD`
/// sentinel bytes around it in a harness buffer) and checks the result
/// against the model: the destination range holds the source bytes,
/// everything around it and the source itself are unchanged.
fn check_copy(gpu: &mut SimGpu, bin: &ShaderBinary, rng: &mut Lcg, src: u64, dst: u64, size: u64) {
    let data = rng.bytes(size as usize);
    gpu.write(src, &data);
    let around = (2 * GUARD + size) as usize;
    gpu.write(dst - GUARD, &vec![SENTINEL; around]);
    run_copy(gpu, bin, src, dst, size);
    let mut want = vec![SENTINEL; around];
    want[GUARD as usize..GUARD as usize + size as usize].copy_from_slice(&data);
    let got = gpu.read(dst - GUARD, around);
    if got != want {
        let first = got.iter().zip(&want).position(|(g, w)| g != w).unwrap();
        panic!(
            "copy src {src:#x} dst {dst:#x} size {size}: first wrong byte at dst{:+} (got {:#x}, want {:#x})",
            first as i64 - GUARD as i64,
            got[first],
            want[first]
        );
    }
    assert_eq!(gpu.read(src, size as usize), data, "source changed");
}

#[test]
fn copies_every_small_size_at_every_misalignment() {
    let k = transfer::copy_buffer();
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let bin = compiled(&k, model);
        let mut rng = Lcg(0xC0B1 ^ model as u64);
        let src_buf = gpu.alloc(4096);
        let dst_buf = gpu.alloc(4096);
        for size in 0..=70u64 {
            for src_mis in 0..8 {
                for dst_mis in 0..8 {
                    let src = src_buf.va + 64 + src_mis;
                    let dst = dst_buf.va + 64 + dst_mis;
                    check_copy(&mut gpu, &bin, &mut rng, src, dst, size);
                }
            }
        }
    }
}

/// Runs `k` in the IR interpreter over the grid `(local, groups)`.
fn interpret(k: &Kernel, words: &[u64], grid: ([u32; 3], [u32; 3]), memory: &mut Memory) {
    let (local, groups) = grid;
    let state = DrawState {
        push_uniforms: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        ..DrawState::default()
    };
    for gy in 0..groups[1] {
        for gx in 0..groups[0] {
            for lx in 0..local[0] {
                let ids = InvocationIds {
                    local_id: [lx, 0, 0],
                    workgroup_id: [gx, gy, 0],
                    ..InvocationIds::default()
                };
                interp::run_invocation(&k.shader, &state, memory, ids)
                    .unwrap_or_else(|e| panic!("{}: {e}", k.shader.info.name));
            }
        }
    }
}

/// The exact byte ranges, which the simulator's page-granular MMU cannot
/// check: in the IR interpreter only `[src, src + size)` and `[dst, dst +
/// size)` are mapped, byte-exact, so any access outside them is an error.
/// Every size to 70 at every misalignment, and sources and destinations
/// straddling a 2^32 boundary (the carry of the 64-bit address adds).
#[test]
fn copies_touch_exactly_their_ranges_in_the_interpreter() {
    let k = transfer::copy_buffer();
    let mut rng = Lcg(0x1E7E);
    let mut cases = Vec::new();
    for size in 0..=70u64 {
        for src_mis in 0..8 {
            for dst_mis in 0..8 {
                cases.push((0x1_0000_0000 + src_mis, 0x3_0000_0000 + dst_mis, size));
            }
        }
    }
    for _ in 0..200 {
        let size = u64::from(rng.below(700));
        let src = 0x2_0000_0000 - u64::from(rng.below(800));
        let dst = 0x5_0000_0000 - u64::from(rng.below(800));
        cases.push((src, dst, size));
    }
    for (src, dst, size) in cases {
        let data = rng.bytes(size as usize);
        let mut memory = Memory::new();
        if size > 0 {
            memory.map(src, data.clone()).unwrap();
            memory.map(dst, vec![SENTINEL; size as usize]).unwrap();
        }
        let words = transfer::copy_words(src, dst, size);
        interpret(&k, &words, transfer::copy_grid(size), &mut memory);
        if size > 0 {
            assert!(
                memory.read(dst, size).unwrap() == data,
                "{src:#x} → {dst:#x} {size}"
            );
        }
    }
}

/// Sources that end exactly at the end of mapped memory, or start exactly
/// at its start (unmapped pages on both sides): a read outside `[src, src +
/// size)` faults the job. Every size to 70 and every destination
/// misalignment (so every phase).
#[test]
fn reads_stay_inside_the_source() {
    let k = transfer::copy_buffer();
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let bin = compiled(&k, model);
        let mut rng = Lcg(0xED6E ^ model as u64);
        // One page with nothing mapped for a page on either side.
        let page = 3u64 << 30;
        let src_buf = gpu.alloc_at(page, 4096).expect("fixed VA");
        let dst_buf = gpu.alloc(4096);
        let end = src_buf.va + src_buf.size;
        for size in 0..=70u64 {
            for dst_mis in 0..8 {
                let dst = dst_buf.va + 64 + dst_mis;
                check_copy(&mut gpu, &bin, &mut rng, end - size, dst, size);
                check_copy(&mut gpu, &bin, &mut rng, src_buf.va, dst, size);
            }
        }
    }
}

/// Random sizes up to 4 KiB at random offsets (so every chunk kind, the
/// funnel-shifted middle chunks and byte-loaded first and last ones, meet
/// every phase), a third of the sources ending exactly at unmapped memory
/// and a third starting exactly after it.
#[test]
fn copies_random_sizes_and_offsets() {
    let k = transfer::copy_buffer();
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let bin = compiled(&k, model);
        let mut rng = Lcg(0x4A4D ^ model as u64);
        let page = 3u64 << 30;
        let src_buf = gpu.alloc_at(page, 8192).expect("fixed VA");
        let dst_buf = gpu.alloc(8192);
        let end = src_buf.va + src_buf.size;
        for case in 0..300 {
            let size = u64::from(match rng.below(3) {
                0 => 60 + rng.below(200),
                _ => rng.below(4097),
            });
            let src = match case % 3 {
                0 => end - size,
                1 => src_buf.va,
                _ => src_buf.va + u64::from(rng.below(8192 - size as u32 + 1)),
            };
            let dst = dst_buf.va + GUARD + u64::from(rng.below(64));
            check_copy(&mut gpu, &bin, &mut rng, src, dst, size);
        }
    }
}

/// Copies of over 1 MiB, not a multiple of the chunk, in every phase, with
/// a misaligned destination; reports the simulated instructions per KiB.
#[test]
fn copies_big_buffers() {
    let k = transfer::copy_buffer();
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let bin = compiled(&k, model);
        let mut rng = Lcg(0xB16 ^ model as u64);
        let size = (1u64 << 20) + 3 * u64::from(CHUNK_BYTES) / 2 + 5;
        let src_buf = gpu.alloc(size + 256);
        let dst_buf = gpu.alloc(size + 256);
        for (src_mis, dst_mis) in [(0, 0), (5, 1), (3, 2), (6, 0), (1, 2)] {
            let src = src_buf.va + 64 + src_mis;
            let dst = dst_buf.va + 64 + dst_mis;
            let data = rng.bytes(size as usize);
            gpu.write(src, &data);
            let around = (2 * GUARD + size) as usize;
            gpu.write(dst - GUARD, &vec![SENTINEL; around]);
            let run = run_copy(&mut gpu, &bin, src, dst, size);
            let got = gpu.read(dst - GUARD, around);
            let g = GUARD as usize;
            assert!(got[..g].iter().all(|&b| b == SENTINEL), "{model:?} before");
            assert!(got[g + size as usize..].iter().all(|&b| b == SENTINEL));
            assert!(got[g..g + size as usize] == data[..], "{model:?} data");
            let kib = size as f64 / 1024.0;
            eprintln!(
                "{model:?} copy of {size} bytes, phase {}: {} threads, {:.0} instructions/KiB, {:.0} clauses/KiB",
                (src_mis + 8 - dst_mis) % 4,
                run.counters.threads,
                run.counters.instructions as f64 / kib,
                run.counters.thread_clauses as f64 / kib,
            );
        }
    }
}

/// Runs the fill kernel and checks the model: every word of the range is
/// the pattern, nothing around it changes.
fn check_fill(gpu: &mut SimGpu, bin: &ShaderBinary, dst: u64, size: u64, pattern: u32) -> Run {
    let around = (2 * GUARD + size) as usize;
    gpu.write(dst - GUARD, &vec![SENTINEL; around]);
    let (local, groups) = transfer::copy_grid(size);
    let words = transfer::fill_words(dst, size, pattern);
    let run = gpu
        .run_compute(bin, &words, local, groups)
        .unwrap_or_else(|e| panic!("fill {dst:#x} {size}: {e}"));
    let mut want = vec![SENTINEL; around];
    for (i, b) in want[GUARD as usize..GUARD as usize + size as usize]
        .iter_mut()
        .enumerate()
    {
        *b = pattern.to_le_bytes()[i % 4];
    }
    assert!(
        gpu.read(dst - GUARD, around) == want,
        "fill {dst:#x} size {size} pattern {pattern:#x}"
    );
    run
}

#[test]
fn fills_buffers() {
    let k = transfer::fill_buffer();
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let bin = compiled(&k, model);
        let mut rng = Lcg(0xF111 ^ model as u64);
        let buf = gpu.alloc(4096);
        for size in (0..=280u64).step_by(4) {
            for dst_mis in [0, 4, 8, 12] {
                check_fill(&mut gpu, &bin, buf.va + 64 + dst_mis, size, rng.next());
            }
        }
        let size = (1u64 << 20) + 3 * u64::from(CHUNK_BYTES) / 2 + 4;
        let big = gpu.alloc(size + 256);
        let run = check_fill(&mut gpu, &bin, big.va + 68, size, 0xDEAD_BEEF);
        eprintln!(
            "{model:?} fill of {size} bytes: {} threads, {:.0} instructions/KiB",
            run.counters.threads,
            run.counters.instructions as f64 / (size as f64 / 1024.0)
        );
    }
}

/// One query-pool slot as the pool holds it.
#[derive(Clone, Debug)]
struct Slot {
    values: Vec<u64>,
    available: u64,
}

/// The spec's rule for one query (`None` = a byte not written).
fn query_model(slot: &Slot, flags: u32) -> Vec<Option<u8>> {
    let wide = flags & flags::RESULT_64 != 0;
    let available = slot.available != 0;
    let element = |v: u64| -> Vec<Option<u8>> {
        if wide {
            v.to_le_bytes().map(Some).to_vec()
        } else {
            (v as u32).to_le_bytes().map(Some).to_vec()
        }
    };
    let mut out = Vec::new();
    for &v in &slot.values {
        if available || flags & flags::PARTIAL != 0 {
            out.extend(element(v));
        } else {
            out.extend(vec![None; if wide { 8 } else { 4 }]);
        }
    }
    if flags & flags::WITH_AVAILABILITY != 0 {
        out.extend(element(u64::from(available)));
    }
    out
}

#[test]
fn copies_query_results_by_the_rules() {
    let k = query::copy_query_results();
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let bin = compiled(&k, model);
        let mut rng = Lcg(0x0E7 ^ model as u64);
        let (mut written, mut skipped) = (0, 0);
        for case in 0..250 {
            let values_per_query = 1 + rng.below(2);
            let slot_bytes = 8 * (values_per_query + 1) + 8 * rng.below(3);
            let count = match case % 5 {
                0 => rng.below(3),
                1 => 60 + rng.below(80),
                _ => 1 + rng.below(12),
            };
            let flag_bits = rng.below(16);
            let wide = flag_bits & flags::RESULT_64 != 0;
            let unit = if wide { 8 } else { 4 };
            let elements = values_per_query + u32::from(flag_bits & flags::WITH_AVAILABILITY != 0);
            let stride = elements * unit + unit * rng.below(3);
            let slots: Vec<Slot> = (0..count)
                .map(|_| Slot {
                    values: (0..values_per_query)
                        .map(|_| match rng.below(3) {
                            0 => u64::from(rng.next()),
                            _ => u64::from(rng.next()) << 32 | u64::from(rng.next()),
                        })
                        .collect(),
                    available: match rng.below(4) {
                        0 => 0,
                        1 => u64::from(rng.next()) << 32,
                        _ => 1,
                    },
                })
                .collect();
            // Pool: two slots of garbage before the first query and after
            // the last, so a wrong slot shows.
            let first = 2u64;
            let pool_bytes = u64::from(slot_bytes) * (u64::from(count) + 4);
            let pool = gpu.alloc(pool_bytes);
            let mut pool_mem = rng.bytes(pool_bytes as usize);
            for (i, s) in slots.iter().enumerate() {
                let at = ((first + i as u64) * u64::from(slot_bytes)) as usize;
                for (k, v) in s.values.iter().chain([&s.available]).enumerate() {
                    pool_mem[at + 8 * k..at + 8 * k + 8].copy_from_slice(&v.to_le_bytes());
                }
            }
            gpu.write(pool.va, &pool_mem);
            let dst_bytes = u64::from(stride) * u64::from(count) + 2 * GUARD + 8;
            let dst_buf = gpu.alloc(dst_bytes);
            let before = rng.bytes(dst_bytes as usize);
            gpu.write(dst_buf.va, &before);
            let dst = dst_buf.va
                + GUARD.next_multiple_of(8)
                + if wide { 0 } else { 4 * u64::from(rng.below(2)) };
            let c = QueryCopy {
                pool: pool.va + first * u64::from(slot_bytes),
                slot_bytes,
                values_per_query,
                count,
                dst,
                stride,
                flags: flag_bits,
            };
            let (local, groups) = query::query_grid(count);
            gpu.run_compute(&bin, &query::query_words(&c), local, groups)
                .unwrap_or_else(|e| panic!("{model:?} {c:?}: {e}"));
            let mut want = before.clone();
            for (i, s) in slots.iter().enumerate() {
                let at = (dst - dst_buf.va) as usize + i * stride as usize;
                for (k, b) in query_model(s, flag_bits).into_iter().enumerate() {
                    match b {
                        Some(b) => {
                            want[at + k] = b;
                            written += 1;
                        }
                        None => skipped += 1,
                    }
                }
            }
            let got = gpu.read(dst_buf.va, dst_bytes as usize);
            assert!(got == want, "{model:?} {c:?} {slots:?}");
            assert_eq!(gpu.read(pool.va, pool_bytes as usize), pool_mem);
        }
        assert!(written > 10_000 && skipped > 1_000, "{written} {skipped}");
    }
}
