//! Buffer transfer kernels: the GPU side of vkCmdCopyBuffer, vkCmdUpdateBuffer
//! and vkCmdFillBuffer (Vulkan spec, "Copy Commands" and "Clear Commands":
//! vkCmdCopyBuffer allows any offsets and sizes; vkCmdFillBuffer and
//! vkCmdUpdateBuffer need 4-byte aligned offsets and sizes).
//!
//! Both kernels run as a grid of invocations; each invocation owns up to
//! [`CHUNK_BYTES`] consecutive destination bytes. They must never write
//! outside `[dst, dst + size)` nor read outside `[src, src + size)`.
//!
//! **vkCmdUpdateBuffer** is a [`copy_buffer`] from the command buffer's pool
//! memory (the data is first written there on the CPU; placing it at a
//! 4-byte aligned address makes it take the word path below).
//!
//! ## Grid
//!
//! Launch [`copy_grid`]`(size)` (`local`, `groups`) with the push words of
//! [`copy_words`] / [`fill_words`] (which call it, so the two agree): local
//! size [`LOCAL_SIZE`]×1×1, `ceil(max(1, ceil(size / 64)) / 64)` workgroups,
//! folded into rows of at most [`MAX_ROW_GROUPS`] workgroups (`groups[1]`
//! rows of `groups[0]`) so the count fits the 32-bit invocation encoding
//! (`hw::compute::WorkSize`). Invocation `i = gid.y × ROW + gid.x`;
//! invocations with `i ≥ INVOCATIONS` do nothing. `size` 0 needs no job
//! (one launched anyway writes nothing). Sizes must be below 2^32 (every
//! Bifrost memory heap is smaller; see docs/STATUS.md, "memory").
//!
//! ## Copy paths
//!
//! The destination is split into a head of `(−dst) mod 4` bytes (at most
//! `size`) and the 4-byte aligned rest, cut into 64-byte chunks: chunk `i`
//! starts at `head + 64 i`, so every chunk's stores are 4-byte aligned and
//! it is always written with four 128-bit stores. The source's phase
//! `(src − dst) mod 4` decides how a full chunk is read:
//! - phase 0: four 128-bit loads;
//! - phases 1–3: the 17 aligned words around the chunk's source bytes (four
//!   128-bit loads and a 32-bit one, starting `phase` bytes before them),
//!   each output word funnel-shifted from two neighbours. Those words must
//!   lie inside the source; only the first and the last full chunk may
//!   reach outside, and they read single bytes instead.
//!
//! 128-bit accesses need only 4-byte alignment, as in Mesa's
//! `mem_access_size_align_cb` (src/panfrost/compiler/bifrost_compile.c),
//! which splits memory access into at most 16 bytes of 32-bit components at
//! 4-byte alignment. The head (invocation 0) and the last, partial chunk
//! are copied with 32-bit words (phase 0) and single bytes.
//!
//! Cost on the simulator (`tests/transfer_kernels.rs` prints it): about
//! 1,060 executed instructions per KiB in phase 0, 2,150 in the other
//! phases; a fill about 690. A quarter of the phase-0 instructions are the
//! moves the backend emits to gather each 128-bit store's data into fresh
//! registers, and a 64-bit address add is three instructions (add,
//! carry compare, subtract); 128 bytes per invocation would save 14% but
//! needs 41 registers (above 32, Bifrost halves the threads per core).

use super::{Kernel, add_bytes, add_offset, for_range, kernel_shader, uniform, uniform_u32, when};
use crate::compiler::ir::*;

/// Invocations per workgroup (x).
pub const LOCAL_SIZE: u32 = 64;
/// Destination bytes per invocation.
pub const CHUNK_BYTES: u32 = 64;
/// Most workgroups in one row of the grid (x).
pub const MAX_ROW_GROUPS: u32 = 1 << 13;

/// Push-uniform words of [`copy_buffer`] (64-bit each; `lo`/`hi` = the two
/// 32-bit halves). Build them with [`copy_words`].
pub mod copy_words {
    /// Source address.
    pub const SRC: u32 = 0;
    /// Destination address.
    pub const DST: u32 = 1;
    /// lo: size in bytes; hi: head bytes `min((−dst) mod 4, size)`.
    pub const SIZE: u32 = 2;
    /// lo: invocations that work; hi: invocations per grid row.
    pub const GRID: u32 = 3;
    /// lo: phase `(src − dst) mod 4`.
    pub const PHASE: u32 = 4;
    pub const COUNT: u32 = 5;
}

/// Push-uniform words of [`fill_buffer`]. Build them with [`fill_words`].
pub mod fill_words {
    /// Destination address (4-byte aligned).
    pub const DST: u32 = 0;
    /// lo: size in bytes (a multiple of 4); hi: the 32-bit pattern.
    pub const SIZE: u32 = 1;
    /// lo: invocations that work; hi: invocations per grid row.
    pub const GRID: u32 = 2;
    pub const COUNT: u32 = 3;
}

/// The largest size one job handles.
pub const MAX_BYTES: u64 = u32::MAX as u64;

/// (local size, workgroups) of a copy or fill of `size` bytes (module docs).
pub fn copy_grid(size: u64) -> ([u32; 3], [u32; 3]) {
    let invocations = size.div_ceil(u64::from(CHUNK_BYTES)).max(1);
    let groups = invocations.div_ceil(u64::from(LOCAL_SIZE));
    let rows = groups.div_ceil(u64::from(MAX_ROW_GROUPS));
    let per_row = groups.div_ceil(rows);
    ([LOCAL_SIZE, 1, 1], [per_row as u32, rows as u32, 1])
}

fn pair(lo: u32, hi: u32) -> u64 {
    u64::from(lo) | u64::from(hi) << 32
}

/// (working invocations, invocations per row) for `size` and a head.
fn grid_word(size: u64, head: u64) -> u64 {
    let (local, groups) = copy_grid(size);
    let invocations = (size - head).div_ceil(u64::from(CHUNK_BYTES)).max(1);
    pair(invocations as u32, local[0] * groups[0])
}

/// The push words of [`copy_buffer`] for `size` bytes from `src` to `dst`
/// (CPU, O(1)). `size` ≤ [`MAX_BYTES`].
pub fn copy_words(src: u64, dst: u64, size: u64) -> [u64; copy_words::COUNT as usize] {
    use copy_words::*;
    assert!(size <= MAX_BYTES, "copy of {size} bytes: split it");
    let head = (dst.wrapping_neg() & 3).min(size);
    let mut w = [0u64; COUNT as usize];
    w[SRC as usize] = src;
    w[DST as usize] = dst;
    w[SIZE as usize] = pair(size as u32, head as u32);
    w[GRID as usize] = grid_word(size, head);
    w[PHASE as usize] = src.wrapping_sub(dst) & 3;
    w
}

/// The push words of [`fill_buffer`] (CPU, O(1)). `dst` and `size` are
/// multiples of 4 (vkCmdFillBuffer's rules; VK_WHOLE_SIZE is rounded down
/// by the caller), `size` ≤ [`MAX_BYTES`].
pub fn fill_words(dst: u64, size: u64, pattern: u32) -> [u64; fill_words::COUNT as usize] {
    use fill_words::*;
    assert!(size <= MAX_BYTES && size.is_multiple_of(4) && dst.is_multiple_of(4));
    let mut w = [0u64; COUNT as usize];
    w[DST as usize] = dst;
    w[SIZE as usize] = pair(size as u32, pattern);
    w[GRID as usize] = grid_word(size, 0);
    w
}

/// This invocation's number and whether it has work: `(i, i < working)`.
fn invocation(b: &mut Builder<'_>, grid_word: u32) -> (Value, Value) {
    let gid = b.sysval(SysVal::GlobalInvocationId, ValueType::new(32, 3));
    let x = b.channel(gid, 0);
    let y = b.channel(gid, 1);
    let working = uniform_u32(b, grid_word, false);
    let row = uniform_u32(b, grid_word, true);
    let i = b.alu(AluOp::Imul, &[y, row]);
    let i = b.alu(AluOp::Iadd, &[i, x]);
    let active = b.alu(AluOp::Ult, &[i, working]);
    (i, active)
}

/// Copies `[from, to)` (u32 offsets) from `src` to `dst` in `ty` units.
fn copy_range(b: &mut Builder<'_>, src: Value, dst: Value, from: Value, to: Value, ty: ValueType) {
    for_range(b, from, to, ty.byte_size(), |b, off| {
        let s = add_offset(b, src, off);
        let v = b.load(Intrinsic::LoadGlobal, ty, &[s]);
        let d = add_offset(b, dst, off);
        b.store(Intrinsic::StoreGlobal, &[v, d]);
    });
}

/// Four 32-bit words read from `s` (any alignment) in byte loads,
/// little-endian.
fn load_bytes_as_words(b: &mut Builder<'_>, s: Value) -> Value {
    let mut words = Vec::new();
    for w in 0..4 {
        let mut word = None;
        for k in 0..4 {
            let byte = 4 * w + k;
            let a = if byte == 0 { s } else { add_bytes(b, s, byte) };
            let v = b.load(Intrinsic::LoadGlobal, ValueType::new(8, 1), &[a]);
            let v = b.alu_typed(AluOp::U2u, ValueType::U32, &[v]);
            word = Some(match word {
                None => v,
                Some(acc) => {
                    let sh = b.imm_u32(8 * k);
                    let v = b.alu(AluOp::Ishl, &[v, sh]);
                    b.alu(AluOp::Ior, &[acc, v])
                }
            });
        }
        words.push(word.expect("four bytes per word"));
    }
    b.vec(&words)
}

/// The 64 source bytes at `s` (phase `phase` ≠ 0) from 17 aligned words
/// starting `phase` bytes before `s`, each output word funnel-shifted
/// from two neighbours: `(w[k] >> 8·phase) | (w[k+1] << (32 − 8·phase))`.
/// The phase is a constant (one copy per phase): shifts by a run-time
/// count cost a mask each.
fn load_funnel(b: &mut Builder<'_>, aligned_src: Value, phase: u32) -> Vec<Value> {
    let quad = ValueType::new(32, 4);
    let mut w = Vec::new();
    for p in 0..CHUNK_BYTES / 16 {
        let a = if p == 0 {
            aligned_src
        } else {
            add_bytes(b, aligned_src, 16 * p)
        };
        let v = b.load(Intrinsic::LoadGlobal, quad, &[a]);
        w.extend((0..4).map(|c| b.channel(v, c)));
    }
    let a = add_bytes(b, aligned_src, CHUNK_BYTES);
    w.push(b.load(Intrinsic::LoadGlobal, ValueType::U32, &[a]));
    let down = b.imm_u32(8 * phase);
    let up = b.imm_u32(32 - 8 * phase);
    let out: Vec<Value> = (0..w.len() - 1)
        .map(|k| {
            let lo = b.alu(AluOp::Ushr, &[w[k], down]);
            let hi = b.alu(AluOp::Ishl, &[w[k + 1], up]);
            b.alu(AluOp::Ior, &[lo, hi])
        })
        .collect();
    out.chunks(4).map(|q| b.vec(q)).collect()
}

/// The copy kernel (module docs).
pub fn copy_buffer() -> Kernel {
    use copy_words::*;
    let mut s = kernel_shader("copy_buffer", [LOCAL_SIZE, 1, 1]);
    let mut b = Builder::new(&mut s);
    let u64t = ValueType::U64;
    let src = uniform(&mut b, u64t, 8 * SRC);
    let dst = uniform(&mut b, u64t, 8 * DST);
    let (i, active) = invocation(&mut b, GRID);
    when(&mut b, active, |b| {
        let size = uniform_u32(b, SIZE, false);
        let head = uniform_u32(b, SIZE, true);
        let phase = uniform_u32(b, PHASE, false);
        let zero = b.imm_u32(0);
        let first = b.alu(AluOp::Ieq, &[i, zero]);
        when(b, first, |b| {
            copy_range(b, src, dst, zero, head, ValueType::new(8, 1))
        });
        let six = b.imm_u32(CHUNK_BYTES.trailing_zeros());
        let start = b.alu(AluOp::Ishl, &[i, six]);
        let start = b.alu(AluOp::Iadd, &[start, head]);
        let len = b.alu(AluOp::Isub, &[size, start]);
        let chunk = b.imm_u32(CHUNK_BYTES);
        let full = b.alu(AluOp::Uge, &[len, chunk]);
        let aligned = b.alu(AluOp::Ieq, &[phase, zero]);
        b.if_(
            full,
            &[],
            |b| {
                let s = add_offset(b, src, start);
                let d = add_offset(b, dst, start);
                // Loads and stores in each branch: values yielded out of
                // the `if` would cost a move per word.
                let store_chunk = |b: &mut Builder<'_>, data: Vec<Value>| {
                    for (p, v) in (0..).zip(data) {
                        let a = if p == 0 { d } else { add_bytes(b, d, 16 * p) };
                        b.store(Intrinsic::StoreGlobal, &[v, a]);
                    }
                };
                b.if_(
                    aligned,
                    &[],
                    |b| {
                        let data = (0..CHUNK_BYTES / 16)
                            .map(|p| {
                                let a = if p == 0 { s } else { add_bytes(b, s, 16 * p) };
                                b.load(Intrinsic::LoadGlobal, ValueType::new(32, 4), &[a])
                            })
                            .collect();
                        store_chunk(b, data);
                        vec![]
                    },
                    |b| {
                        // The aligned words around the chunk's source,
                        // [start − phase, start + 68 − phase), must lie
                        // inside the source; only the first and last
                        // chunks may not, and take byte loads.
                        let after_first = b.alu(AluOp::Uge, &[start, phase]);
                        let window = b.imm_u32(CHUNK_BYTES + 4);
                        let window = b.alu(AluOp::Isub, &[window, phase]);
                        let before_last = b.alu(AluOp::Uge, &[len, window]);
                        let inside = b.alu(AluOp::Iand, &[after_first, before_last]);
                        b.if_(
                            inside,
                            &[],
                            |b| {
                                let from = b.alu(AluOp::Isub, &[start, phase]);
                                let a = add_offset(b, src, from);
                                let one = b.imm_u32(1);
                                let is1 = b.alu(AluOp::Ieq, &[phase, one]);
                                let two = b.imm_u32(2);
                                let is2 = b.alu(AluOp::Ieq, &[phase, two]);
                                b.if_(
                                    is1,
                                    &[],
                                    |b| {
                                        let data = load_funnel(b, a, 1);
                                        store_chunk(b, data);
                                        vec![]
                                    },
                                    |b| {
                                        b.if_(
                                            is2,
                                            &[],
                                            |b| {
                                                let data = load_funnel(b, a, 2);
                                                store_chunk(b, data);
                                                vec![]
                                            },
                                            |b| {
                                                let data = load_funnel(b, a, 3);
                                                store_chunk(b, data);
                                                vec![]
                                            },
                                        );
                                        vec![]
                                    },
                                );
                                vec![]
                            },
                            |b| {
                                let data = (0..CHUNK_BYTES / 16)
                                    .map(|p| {
                                        let a = if p == 0 { s } else { add_bytes(b, s, 16 * p) };
                                        load_bytes_as_words(b, a)
                                    })
                                    .collect();
                                store_chunk(b, data);
                                vec![]
                            },
                        );
                        vec![]
                    },
                );
                vec![]
            },
            |b| {
                // The last chunk: whole words when the phase allows, then bytes.
                let end = b.alu(AluOp::Iadd, &[start, len]);
                let mask = b.imm_u32(!3);
                let word_bytes = b.alu(AluOp::Iand, &[len, mask]);
                let word_bytes = b.alu(AluOp::Bcsel, &[aligned, word_bytes, zero]);
                let words_end = b.alu(AluOp::Iadd, &[start, word_bytes]);
                copy_range(b, src, dst, start, words_end, ValueType::U32);
                copy_range(b, src, dst, words_end, end, ValueType::new(8, 1));
                vec![]
            },
        );
    });
    b.finish();
    Kernel {
        shader: s,
        words: COUNT,
    }
}

/// The fill kernel: `size / 4` copies of the pattern from `dst`.
pub fn fill_buffer() -> Kernel {
    use fill_words::*;
    let mut s = kernel_shader("fill_buffer", [LOCAL_SIZE, 1, 1]);
    let mut b = Builder::new(&mut s);
    let dst = uniform(&mut b, ValueType::U64, 8 * DST);
    let (i, active) = invocation(&mut b, GRID);
    when(&mut b, active, |b| {
        let size = uniform_u32(b, SIZE, false);
        let pattern = uniform_u32(b, SIZE, true);
        let six = b.imm_u32(CHUNK_BYTES.trailing_zeros());
        let start = b.alu(AluOp::Ishl, &[i, six]);
        let len = b.alu(AluOp::Isub, &[size, start]);
        let chunk = b.imm_u32(CHUNK_BYTES);
        let full = b.alu(AluOp::Uge, &[len, chunk]);
        b.if_(
            full,
            &[],
            |b| {
                let d = add_offset(b, dst, start);
                let v = b.vec(&[pattern; 4]);
                for p in 0..CHUNK_BYTES / 16 {
                    let a = if p == 0 { d } else { add_bytes(b, d, 16 * p) };
                    b.store(Intrinsic::StoreGlobal, &[v, a]);
                }
                vec![]
            },
            |b| {
                for_range(b, start, size, 4, |b, off| {
                    let a = add_offset(b, dst, off);
                    b.store(Intrinsic::StoreGlobal, &[pattern, a]);
                });
                vec![]
            },
        );
    });
    b.finish();
    Kernel {
        shader: s,
        words: COUNT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::compute::WorkSize;

    /// The grid covers every chunk, wastes less than a workgroup per row
    /// (plus one), and always fits the invocation encoding.
    #[test]
    fn grid_covers_the_chunks_and_packs() {
        let mut sizes: Vec<u64> = (0..300).collect();
        sizes.extend([1 << 20, (1 << 20) + 13, 1 << 25, (1 << 25) + 1, 3 << 30]);
        sizes.extend([MAX_BYTES - 1, MAX_BYTES]);
        for size in sizes {
            let (local, groups) = copy_grid(size);
            let total = u64::from(local[0]) * u64::from(groups[0]) * u64::from(groups[1]);
            let needed = size.div_ceil(u64::from(CHUNK_BYTES)).max(1);
            assert!(total >= needed, "{size}");
            let rows = u64::from(groups[1]);
            assert!(
                total - needed < u64::from(LOCAL_SIZE) * (rows + 1),
                "{size}"
            );
            assert!(groups[0] <= MAX_ROW_GROUPS && groups[2] == 1);
            WorkSize {
                size: local,
                count: groups,
            }
            .pack_compute()
            .unwrap_or_else(|e| panic!("{size}: {e}"));
        }
    }
}
