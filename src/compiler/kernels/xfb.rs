//! Transform-feedback bookkeeping kernels: the GPU side of Begin, End and
//! the per-draw offset advance that `passes::lower_xfb` describes ("What the
//! driver emits per draw"). Each is one invocation (`local_size` 1×1×1) and
//! works on GPU memory only, because counters, earlier draws and indirect
//! draw records decide the values.
//!
//! Shared state: the **offsets block**, u32\[4\] byte offsets of the next
//! write relative to each binding's start (`XFB_PARAM` OFFSETS_ADDRESS of the
//! draws points at it), and the draw's **parameter words**, u32\[28\] laid out
//! as [`xfb_param`] (the same words the variant reads).
//!
//! - [`begin`]: `offsets[b]` = the u32 at counter `b` (resume), or 0 when
//!   counter `b` is absent (`vkCmdBeginTransformFeedbackEXT`).
//! - [`advance`], after each draw: `needed = instances × PRIMS_PER_INSTANCE`,
//!   `written = min(needed, min over bound captured b of ⌊(size_b −
//!   offset_b) / (stride_b × vpp)⌋)` (no room when the offset is past the
//!   size), then `offset_b += written × vpp × stride_b` for every bound
//!   captured buffer, and, with an active stream query, its two u64 results
//!   (primitives written, primitives needed, in that order as
//!   `VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT` reports them) grow by
//!   `written` and `needed`. "Captured" = the pipeline's stride for `b` is
//!   not 0. This is exactly the record test of the variant, so the offsets
//!   end after the last record the draw wrote.
//! - [`end`]: the u32 at counter `b` = `offsets[b]`, for each counter given
//!   (`vkCmdEndTransformFeedbackEXT`).
//! - [`restart`]: primitive restart resolution for one instance of an
//!   indexed draw (see `lower_xfb`): walks the index stream in order, splits
//!   it at the restart value (compared before `vertexOffset`; a read outside
//!   the bound index range gives 0), decomposes each run with the variant's
//!   (primitive, slot) → position rule and writes the index values in
//!   capture order as a u32 list, and the primitive count to a u32 (the
//!   resolved draw's PRIMS_PER_INSTANCE). One sequential thread: its cost is
//!   linear in the index count.
//!
//! The instance count is read from memory (an indirect draw's record, or a
//! word the driver wrote) for the same reason.

pub use super::Kernel;
use super::{add_bytes, kernel_shader, uniform};
use crate::compiler::ir::*;
use crate::compiler::passes::lower_xfb::{
    ProvokingVertex, XFB_MAX_BUFFERS, XfbIndexBuffer, XfbTopology, xfb_param,
};

/// Push-uniform words of [`advance`] (64-bit each).
pub mod advance_words {
    /// GPU address of the draw's u32\[28\] parameter words.
    pub const PARAMS: u32 = 0;
    /// GPU address of the u32 instance count.
    pub const INSTANCES: u32 = 1;
    /// GPU address of the active stream query's two u64 results, or 0.
    pub const QUERY: u32 = 2;
    /// Strides of buffers 0 and 1 (low and high 32 bits), then 2 and 3 in
    /// the next word; 0 = the pipeline captures nothing to the buffer.
    pub const STRIDES: u32 = 3;
    pub const COUNT: u32 = 5;
}

/// Push-uniform words of [`begin`] and [`end`] (64-bit each).
pub mod counter_words {
    /// GPU address of the offsets block.
    pub const OFFSETS: u32 = 0;
    /// GPU addresses of counters 0–3 (the u32 in each counter buffer at its
    /// counter offset), 0 when absent.
    pub const COUNTERS: u32 = 1;
    pub const COUNT: u32 = 5;
}

fn load_u32(b: &mut Builder<'_>, address: Value, bytes: u32) -> Value {
    let a = add_bytes(b, address, bytes);
    b.load(Intrinsic::LoadGlobal, ValueType::U32, &[a])
}

/// The 64-bit address held by parameter words `n`, `n + 1`.
fn load_param64(b: &mut Builder<'_>, params: Value, n: u16) -> Value {
    let a = add_bytes(b, params, 4 * u32::from(n));
    let words = b.load(Intrinsic::LoadGlobal, ValueType::new(32, 2), &[a]);
    b.alu_typed(AluOp::Bitcast, ValueType::U64, &[words])
}

/// `if address != 0 { f }`.
fn if_nonzero(b: &mut Builder<'_>, address: Value, f: impl FnOnce(&mut Builder<'_>)) {
    let zero = b.imm_u64(0);
    let present = b.alu(AluOp::Ine, &[address, zero]);
    b.if_(
        present,
        &[],
        |b| {
            f(b);
            vec![]
        },
        |_| vec![],
    );
}

/// The advance kernel (module docs).
pub fn advance() -> Kernel {
    use advance_words::*;
    let mut s = kernel_shader("xfb_advance", [1, 1, 1]);
    let mut b = Builder::new(&mut s);
    let u32t = ValueType::U32;
    let u64t = ValueType::U64;
    let params = uniform(&mut b, u64t, 8 * PARAMS);
    let instances_addr = uniform(&mut b, u64t, 8 * INSTANCES);
    let query = uniform(&mut b, u64t, 8 * QUERY);
    let vpp = load_u32(&mut b, params, 4 * u32::from(xfb_param::VERTS_PER_PRIM));
    let ppi = load_u32(&mut b, params, 4 * u32::from(xfb_param::PRIMS_PER_INSTANCE));
    let mask = load_u32(&mut b, params, 4 * u32::from(xfb_param::BOUND_MASK));
    let offsets = load_param64(&mut b, params, xfb_param::OFFSETS_ADDRESS);
    let instances = b.load(Intrinsic::LoadGlobal, u32t, &[instances_addr]);
    let instances64 = b.alu_typed(AluOp::U2u, u64t, &[instances]);
    let ppi64 = b.alu_typed(AluOp::U2u, u64t, &[ppi]);
    let needed = b.alu(AluOp::Imul, &[instances64, ppi64]);

    let zero = b.imm_u32(0);
    let one = b.imm_u32(1);
    // 64-bit: with no captured buffer nothing limits `needed`, which may
    // exceed 32 bits in the query.
    let mut fit = b.imm_u64(u64::MAX);
    let mut per_buffer = Vec::new();
    for buf in 0..XFB_MAX_BUFFERS {
        let stride = uniform(&mut b, u32t, 8 * STRIDES + 4 * buf);
        let size = load_u32(&mut b, params, 4 * u32::from(xfb_param::buffer_size(buf)));
        let offset = load_u32(&mut b, offsets, 4 * buf);
        let sh = b.imm_u32(buf);
        let bit = b.alu(AluOp::Ushr, &[mask, sh]);
        let bit = b.alu(AluOp::Iand, &[bit, one]);
        let bound = b.alu(AluOp::Ine, &[bit, zero]);
        let has_stride = b.alu(AluOp::Ine, &[stride, zero]);
        let captured = b.alu(AluOp::Iand, &[bound, has_stride]);
        let has_room = b.alu(AluOp::Uge, &[size, offset]);
        let diff = b.alu(AluOp::Isub, &[size, offset]);
        let room = b.alu(AluOp::Bcsel, &[has_room, diff, zero]);
        // stride × vpp ≤ 2^32: strides are at most 2048 bytes
        // (maxTransformFeedbackBufferDataStride) and vpp at most 3.
        let prim_bytes = b.alu(AluOp::Imul, &[stride, vpp]);
        let prims = b.alu(AluOp::Udiv, &[room, prim_bytes]);
        let prims = b.alu_typed(AluOp::U2u, u64t, &[prims]);
        let limited = b.alu(AluOp::Umin, &[fit, prims]);
        fit = b.alu(AluOp::Bcsel, &[captured, limited, fit]);
        per_buffer.push((captured, stride, offset));
    }
    let written64 = b.alu(AluOp::Umin, &[needed, fit]);
    // Only used for captured buffers, and then written ≤ fit < 2^32.
    let written = b.alu_typed(AluOp::U2u, u32t, &[written64]);
    let written_vertices = b.alu(AluOp::Imul, &[written, vpp]);
    for (buf, (captured, stride, offset)) in per_buffer.into_iter().enumerate() {
        let bytes = b.alu(AluOp::Imul, &[written_vertices, stride]);
        let advanced = b.alu(AluOp::Iadd, &[offset, bytes]);
        let new = b.alu(AluOp::Bcsel, &[captured, advanced, offset]);
        let a = add_bytes(&mut b, offsets, 4 * buf as u32);
        b.store(Intrinsic::StoreGlobal, &[new, a]);
    }
    if_nonzero(&mut b, query, |b| {
        for (i, add) in [written64, needed].into_iter().enumerate() {
            let a = add_bytes(b, query, 8 * i as u32);
            let old = b.load(Intrinsic::LoadGlobal, u64t, &[a]);
            let sum = b.alu(AluOp::Iadd, &[old, add]);
            b.store(Intrinsic::StoreGlobal, &[sum, a]);
        }
    });
    b.finish();
    Kernel {
        shader: s,
        words: COUNT,
    }
}

/// The Begin kernel (module docs).
pub fn begin() -> Kernel {
    counters_kernel("xfb_begin", true)
}

/// The End kernel (module docs).
pub fn end() -> Kernel {
    counters_kernel("xfb_end", false)
}

fn counters_kernel(name: &str, begin: bool) -> Kernel {
    use counter_words::*;
    let mut s = kernel_shader(name, [1, 1, 1]);
    let mut b = Builder::new(&mut s);
    let u64t = ValueType::U64;
    let offsets = uniform(&mut b, u64t, 8 * OFFSETS);
    for buf in 0..XFB_MAX_BUFFERS {
        let counter = uniform(&mut b, u64t, 8 * (COUNTERS + buf));
        let slot = add_bytes(&mut b, offsets, 4 * buf);
        if begin {
            let zero = b.imm_u64(0);
            let present = b.alu(AluOp::Ine, &[counter, zero]);
            let value = b.if_(
                present,
                &[ValueType::U32],
                |b| vec![b.load(Intrinsic::LoadGlobal, ValueType::U32, &[counter])],
                |b| vec![b.imm_u32(0)],
            );
            b.store(Intrinsic::StoreGlobal, &[value[0], slot]);
        } else {
            if_nonzero(&mut b, counter, |b| {
                let value = b.load(Intrinsic::LoadGlobal, ValueType::U32, &[slot]);
                b.store(Intrinsic::StoreGlobal, &[value, counter]);
            });
        }
    }
    b.finish();
    Kernel {
        shader: s,
        words: COUNT,
    }
}

/// Push-uniform words of [`restart`] (64-bit each; `lo`/`hi` = the two
/// 32-bit halves). Build them with [`restart_words`].
pub mod restart_words {
    /// Start of the bound index range.
    pub const INDEX_ADDRESS: u32 = 0;
    /// lo: index size in bytes (1, 2, 4); hi: indices in the bound range.
    pub const INDEX_FORMAT: u32 = 1;
    /// lo: `firstIndex`; hi: the draw's index count.
    pub const RANGE: u32 = 2;
    /// lo: the restart value; hi: TOPOLOGY_FLAGS of the original topology.
    pub const RESTART: u32 = 3;
    /// lo: vertices per primitive; hi: PRIM_STEP.
    pub const SHAPE: u32 = 4;
    /// lo: PRIM_FIRST; hi: SLOT_SCALE.
    pub const SLOTS: u32 = 5;
    /// lo: vertices of the first primitive (a run shorter than this has no
    /// primitive; each further primitive needs PRIM_STEP more); hi: CAP,
    /// the stream positions the kernel reads at most: the count is
    /// clamped to `CAP − firstIndex` (0 when `firstIndex` ≥ CAP; u32::MAX:
    /// no clamp). An
    /// indirect draw's count is not known when its list is allocated: it
    /// gives the bound range's index count, so the list's size follows the
    /// index buffer; direct draws give u32::MAX.
    pub const MIN_VERTICES: u32 = 6;
    /// Where the u32 list goes: room for `vpp × count` words (`vpp ×` the
    /// count clamped by CAP); 0 counts the primitives and writes no list.
    pub const LIST: u32 = 7;
    /// Where the u32 primitive count goes.
    pub const PRIMS: u32 = 8;
    pub const COUNT: u32 = 9;
}

/// The push-uniform words of [`restart`] for one draw (CPU, O(1)).
#[allow(clippy::too_many_arguments)]
pub fn restart_words(
    topology: XfbTopology,
    provoking: ProvokingVertex,
    index: XfbIndexBuffer,
    first: u32,
    count: u32,
    restart: u32,
    list: u64,
    prims: u64,
) -> [u64; restart_words::COUNT as usize] {
    use restart_words::*;
    let t = topology.decode_for(provoking);
    let pair = |lo: u32, hi: u32| u64::from(lo) | u64::from(hi) << 32;
    // The shortest run with a primitive (adjacency vertices included);
    // each further PRIM_STEP vertices add one.
    let min_vertices = (1..=6)
        .find(|&n| topology.primitive_count(n) > 0)
        .unwrap_or(1);
    let mut w = [0u64; COUNT as usize];
    w[MIN_VERTICES as usize] = u64::from(u32::MAX) << 32;
    w[INDEX_ADDRESS as usize] = index.address;
    w[INDEX_FORMAT as usize] = pair(index.size, index.count);
    w[RANGE as usize] = pair(first, count);
    w[RESTART as usize] = pair(restart, t.flags);
    w[SHAPE as usize] = pair(t.verts_per_prim, t.prim_step);
    w[SLOTS as usize] = pair(t.prim_first, t.slot_scale);
    w[MIN_VERTICES as usize] |= u64::from(min_vertices);
    w[LIST as usize] = list;
    w[PRIMS as usize] = prims;
    w
}

/// Index value at stream position `first + off` (0 outside the bound range,
/// also when the sum passes 2^32).
fn read_index(b: &mut Builder<'_>, c: &RestartCtx, off: Value) -> Value {
    let u32t = ValueType::U32;
    let (address, size) = (c.address, c.size);
    let pos = b.alu(AluOp::Iadd, &[c.first, off]);
    let wrapped = b.alu(AluOp::Ult, &[pos, c.first]);
    let below = b.alu(AluOp::Ult, &[pos, c.available]);
    let not_wrapped = b.alu(AluOp::Inot, &[wrapped]);
    let inside = b.alu(AluOp::Iand, &[below, not_wrapped]);
    b.if_(
        inside,
        &[u32t],
        |b| {
            let byte = b.alu(AluOp::Imul, &[pos, size]);
            let byte = b.alu_typed(AluOp::U2u, ValueType::U64, &[byte]);
            let a = b.alu(AluOp::Iadd, &[address, byte]);
            let four = b.imm_u32(4);
            let is4 = b.alu(AluOp::Ieq, &[size, four]);
            b.if_(
                is4,
                &[u32t],
                |b| vec![b.load(Intrinsic::LoadGlobal, u32t, &[a])],
                |b| {
                    let two = b.imm_u32(2);
                    let is2 = b.alu(AluOp::Ieq, &[size, two]);
                    b.if_(
                        is2,
                        &[u32t],
                        |b| {
                            let v = b.load(Intrinsic::LoadGlobal, ValueType::new(16, 1), &[a]);
                            vec![b.alu_typed(AluOp::U2u, u32t, &[v])]
                        },
                        |b| {
                            let v = b.load(Intrinsic::LoadGlobal, ValueType::new(8, 1), &[a]);
                            vec![b.alu_typed(AluOp::U2u, u32t, &[v])]
                        },
                    )
                },
            )
        },
        |b| vec![b.imm_u32(0)],
    )[0]
}

/// `lo`/`hi` 32-bit half of push-uniform word `w`.
fn half(b: &mut Builder<'_>, w: u32, hi: bool) -> Value {
    uniform(b, ValueType::U32, 8 * w + 4 * u32::from(hi))
}

/// The values [`restart`] reads once.
struct RestartCtx {
    address: Value,
    size: Value,
    available: Value,
    first: Value,
    vpp: Value,
    step: Value,
    prim_first: Value,
    scale: Value,
    min_vertices: Value,
    list: Value,
    /// LIST ≠ 0: the kernel writes the list (else it only counts).
    write_list: Value,
    fan: Value,
    fan_last: Value,
    odd_swap: Value,
    odd_swap_last: Value,
}

/// Sequence position of slot `k` of primitive `prim` (odd: prim is odd),
/// the rule of `XfbTopology::vertex_position` on the decoded words.
fn slot_position(b: &mut Builder<'_>, c: &RestartCtx, prim: Value, odd: Value, k: Value) -> Value {
    let zero = b.imm_u32(0);
    let one = b.imm_u32(1);
    let two = b.imm_u32(2);
    let three = b.imm_u32(3);
    let knz = b.alu(AluOp::Ine, &[k, zero]);
    let klt2 = b.alu(AluOp::Ult, &[k, two]);
    // Strips swap slots on odd primitives: 1↔2 (first vertex provoking)
    // or 0↔1 (last).
    let swap = b.alu(AluOp::Iand, &[c.odd_swap, odd]);
    let swap = b.alu(AluOp::Iand, &[swap, knz]);
    let swap_last = b.alu(AluOp::Iand, &[c.odd_swap_last, odd]);
    let swap_last = b.alu(AluOp::Iand, &[swap_last, klt2]);
    let k3 = b.alu(AluOp::Isub, &[three, k]);
    let k1 = b.alu(AluOp::Isub, &[one, k]);
    let ks = b.alu(AluOp::Bcsel, &[swap_last, k1, k]);
    let ks = b.alu(AluOp::Bcsel, &[swap, k3, ks]);
    let base = b.alu(AluOp::Imul, &[c.step, prim]);
    let base = b.alu(AluOp::Iadd, &[base, c.prim_first]);
    let sk = b.alu(AluOp::Imul, &[c.scale, ks]);
    let pos = b.alu(AluOp::Iadd, &[base, sk]);
    // Fans: slot 2 (first) or slot 0 (last) is the run's vertex 0.
    let is2 = b.alu(AluOp::Ieq, &[k, two]);
    let is0 = b.alu(AluOp::Ieq, &[k, zero]);
    let f = b.alu(AluOp::Iand, &[c.fan, is2]);
    let f_last = b.alu(AluOp::Iand, &[c.fan_last, is0]);
    let center = b.alu(AluOp::Ior, &[f, f_last]);
    b.alu(AluOp::Bcsel, &[center, zero, pos])
}

/// Writes the primitives of the run at stream positions `start ..
/// start + len` to the list from word `w`; returns (primitives, new w).
fn emit_run(
    b: &mut Builder<'_>,
    c: &RestartCtx,
    start: Value,
    len: Value,
    w: Value,
) -> (Value, Value) {
    let u32t = ValueType::U32;
    let zero = b.imm_u32(0);
    let one = b.imm_u32(1);
    let out = b.loop_(&[zero, w], &[u32t, u32t], |b, p| {
        let (prim, w) = (p[0], p[1]);
        // Primitive `prim` exists iff step × prim + min_vertices ≤ len.
        let base = b.alu(AluOp::Imul, &[c.step, prim]);
        let need = b.alu(AluOp::Iadd, &[base, c.min_vertices]);
        let done = b.alu(AluOp::Ult, &[len, need]);
        b.if_(
            done,
            &[],
            |b| {
                b.break_(&[prim, w]);
                vec![]
            },
            |_| vec![],
        );
        let podd = b.alu(AluOp::Iand, &[prim, one]);
        let odd = b.alu(AluOp::Ine, &[podd, zero]);
        let w = b.loop_(&[zero, w], &[u32t], |b, q| {
            let (k, w) = (q[0], q[1]);
            let end = b.alu(AluOp::Uge, &[k, c.vpp]);
            b.if_(
                end,
                &[],
                |b| {
                    b.break_(&[w]);
                    vec![]
                },
                |_| vec![],
            );
            let pos = slot_position(b, c, prim, odd, k);
            let at = b.alu(AluOp::Iadd, &[start, pos]);
            let value = read_index(b, c, at);
            let four = b.imm_u32(4);
            let byte = b.alu(AluOp::Imul, &[w, four]);
            let byte = b.alu_typed(AluOp::U2u, ValueType::U64, &[byte]);
            let dst = b.alu(AluOp::Iadd, &[c.list, byte]);
            b.if_(
                c.write_list,
                &[],
                |b| {
                    b.store(Intrinsic::StoreGlobal, &[value, dst]);
                    vec![]
                },
                |_| vec![],
            );
            let k = b.alu(AluOp::Iadd, &[k, one]);
            let w = b.alu(AluOp::Iadd, &[w, one]);
            vec![k, w]
        })[0];
        let prim = b.alu(AluOp::Iadd, &[prim, one]);
        vec![prim, w]
    });
    (out[0], out[1])
}

/// The restart-resolution kernel (module docs).
pub fn restart() -> Kernel {
    use restart_words::*;
    use xfb_param::{FLAG_FAN, FLAG_FAN_LAST, FLAG_ODD_SWAP, FLAG_ODD_SWAP_LAST};
    let mut s = kernel_shader("xfb_restart", [1, 1, 1]);
    let mut b = Builder::new(&mut s);
    let u32t = ValueType::U32;
    let flags = half(&mut b, RESTART, true);
    let zero = b.imm_u32(0);
    let one = b.imm_u32(1);
    let mut flag = |bit: u32| {
        let m = b.imm_u32(bit);
        let v = b.alu(AluOp::Iand, &[flags, m]);
        b.alu(AluOp::Ine, &[v, zero])
    };
    let (fan, fan_last) = (flag(FLAG_FAN), flag(FLAG_FAN_LAST));
    let (odd_swap, odd_swap_last) = (flag(FLAG_ODD_SWAP), flag(FLAG_ODD_SWAP_LAST));
    let list = uniform(&mut b, ValueType::U64, 8 * LIST);
    let zero64 = b.imm_u64(0);
    let write_list = b.alu(AluOp::Ine, &[list, zero64]);
    let c = RestartCtx {
        address: uniform(&mut b, ValueType::U64, 8 * INDEX_ADDRESS),
        size: half(&mut b, INDEX_FORMAT, false),
        available: half(&mut b, INDEX_FORMAT, true),
        first: half(&mut b, RANGE, false),
        vpp: half(&mut b, SHAPE, false),
        step: half(&mut b, SHAPE, true),
        prim_first: half(&mut b, SLOTS, false),
        scale: half(&mut b, SLOTS, true),
        min_vertices: half(&mut b, MIN_VERTICES, false),
        list,
        write_list,
        fan,
        fan_last,
        odd_swap,
        odd_swap_last,
    };
    let count = half(&mut b, RANGE, true);
    let cap = half(&mut b, MIN_VERTICES, true);
    let inside = b.alu(AluOp::Ult, &[c.first, cap]);
    let room = b.alu(AluOp::Isub, &[cap, c.first]);
    let room = b.alu(AluOp::Bcsel, &[inside, room, zero]);
    let all = b.imm_u32(u32::MAX);
    let unclamped = b.alu(AluOp::Ieq, &[cap, all]);
    let room = b.alu(AluOp::Bcsel, &[unclamped, all, room]);
    let count = b.alu(AluOp::Umin, &[count, room]);
    let restart = half(&mut b, RESTART, false);
    // One pass over positions 0..=count; position `count` ends the last run.
    let out = b.loop_(&[zero, zero, zero, zero], &[u32t], |b, p| {
        let (i, start, w, prims) = (p[0], p[1], p[2], p[3]);
        let past = b.alu(AluOp::Ult, &[count, i]);
        b.if_(
            past,
            &[],
            |b| {
                b.break_(&[prims]);
                vec![]
            },
            |_| vec![],
        );
        let at_end = b.alu(AluOp::Ieq, &[i, count]);
        let ends_run = b.if_(
            at_end,
            &[ValueType::BOOL],
            |b| vec![b.imm_bool(true)],
            |b| {
                let index = read_index(b, &c, i);
                vec![b.alu(AluOp::Ieq, &[index, restart])]
            },
        )[0];
        let next = b.alu(AluOp::Iadd, &[i, one]);
        let state = b.if_(
            ends_run,
            &[u32t, u32t, u32t],
            |b| {
                let len = b.alu(AluOp::Isub, &[i, start]);
                let (n, w) = emit_run(b, &c, start, len, w);
                let prims = b.alu(AluOp::Iadd, &[prims, n]);
                vec![next, w, prims]
            },
            |_| vec![start, w, prims],
        );
        vec![next, state[0], state[1], state[2]]
    });
    let prims_out = uniform(&mut b, ValueType::U64, 8 * PRIMS);
    b.store(Intrinsic::StoreGlobal, &[out[0], prims_out]);
    b.finish();
    Kernel {
        shader: s,
        words: COUNT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's run rule (a primitive per PRIM_STEP vertices after the
    /// first MIN_VERTICES) is `XfbTopology::primitive_count` for every
    /// topology and run length.
    #[test]
    fn run_rule_matches_primitive_count() {
        for vk in 0..10 {
            let topology = XfbTopology::from_vk(vk).unwrap();
            let w = restart_words(
                topology,
                ProvokingVertex::First,
                XfbIndexBuffer {
                    address: 0,
                    count: 0,
                    size: 4,
                },
                0,
                0,
                u32::MAX,
                0,
                0,
            );
            let step = (w[restart_words::SHAPE as usize] >> 32) as u32;
            let min = w[restart_words::MIN_VERTICES as usize] as u32;
            for n in 0..100 {
                let rule = if n >= min { (n - min) / step + 1 } else { 0 };
                assert_eq!(rule, topology.primitive_count(n), "{topology:?} n={n}");
            }
        }
    }
}
