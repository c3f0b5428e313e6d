//! Query results to a buffer on the GPU: vkCmdCopyQueryPoolResults (Vulkan
//! spec, "Queries", vkCmdCopyQueryPoolResults and the flags of
//! vkGetQueryPoolResults).
//!
//! Query pool memory: one slot of `SLOT_BYTES` per query, holding
//! `VALUES` u64 results (1 for timestamps and primitives-generated
//! queries; 2 for transform-feedback-stream queries: primitives written,
//! then primitives needed) followed by a u64 availability word (non-zero:
//! available). `vk::query` lays out its timestamp pools that way.
//!
//! One invocation per query: query `i` (from the first) reads its slot at
//! `POOL + i × SLOT_BYTES` and writes at `DST + i × STRIDE`:
//! - its `VALUES` results, as u64 with `VK_QUERY_RESULT_64_BIT`, else as
//!   u32 (truncated: the spec lets a result that overflows 32 bits wrap),
//!   only when the query is available or `VK_QUERY_RESULT_PARTIAL_BIT` is
//!   set (then the current values, which lie between zero and the final
//!   result as the spec asks);
//! - with `VK_QUERY_RESULT_WITH_AVAILABILITY_BIT`, the availability (1 or
//!   0, same width) right after the results, whether available or not.
//!
//! Nothing else is written: the bytes of a stride beyond those stay as
//! they were, and an unavailable query without PARTIAL leaves its results
//! untouched.
//!
//! `VK_QUERY_RESULT_WAIT_BIT` is satisfied by ordering, not by the kernel:
//! the recording command must make the job depend on every earlier job of
//! the queue (a barrier before it), so every query ended by earlier
//! commands is available when it runs. The kernel ignores the bit: a query
//! still unavailable then would never become available (the application
//! broke WAIT's contract), and is treated as without WAIT.
//!
//! Alignment, as Vulkan requires of `dstOffset` and `stride`: multiples of
//! 4, of 8 with `VK_QUERY_RESULT_64_BIT`; slots are 8-byte aligned. Offsets
//! are 32-bit: `count × STRIDE` and `count × SLOT_BYTES` stay below 2^32
//! (the destination buffer and the pool are smaller than every Bifrost
//! memory heap).
//!
//! Grid: [`query_grid`]`(count)`: local size [`LOCAL_SIZE`]×1×1 and
//! `ceil(max(count, 1) / 64)` workgroups in x; invocations `≥ count` do
//! nothing (`count` 0 needs no job).

use super::{Kernel, add_offset, for_range, kernel_shader, uniform, uniform_u32, when};
use crate::compiler::ir::*;

/// Invocations per workgroup (x).
pub const LOCAL_SIZE: u32 = 64;

/// `VkQueryResultFlagBits` values the kernel reads.
pub mod flags {
    pub const RESULT_64: u32 = 0x1;
    pub const WAIT: u32 = 0x2;
    pub const WITH_AVAILABILITY: u32 = 0x4;
    pub const PARTIAL: u32 = 0x8;
}

/// Push-uniform words of [`copy_query_results`] (64-bit each; `lo`/`hi` =
/// the two 32-bit halves). Build them with [`query_words`].
pub mod query_words {
    /// Address of the first query's slot (pool memory + first × slot bytes).
    pub const POOL: u32 = 0;
    /// Destination address (`dstOffset` included).
    pub const DST: u32 = 1;
    /// lo: destination stride in bytes; hi: slot bytes.
    pub const STRIDE: u32 = 2;
    /// lo: number of queries; hi: `VkQueryResultFlags`.
    pub const COUNT_FLAGS: u32 = 3;
    /// lo: u64 values per query before its availability word.
    pub const VALUES: u32 = 4;
    pub const COUNT: u32 = 5;
}

/// What one vkCmdCopyQueryPoolResults needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryCopy {
    /// Address of the first query's slot.
    pub pool: u64,
    pub slot_bytes: u32,
    pub values_per_query: u32,
    pub count: u32,
    pub dst: u64,
    pub stride: u32,
    /// `VkQueryResultFlags`.
    pub flags: u32,
}

/// The push words of [`copy_query_results`] (CPU, O(1)).
pub fn query_words(c: &QueryCopy) -> [u64; query_words::COUNT as usize] {
    use query_words::*;
    let pair = |lo: u32, hi: u32| u64::from(lo) | u64::from(hi) << 32;
    let mut w = [0u64; COUNT as usize];
    w[POOL as usize] = c.pool;
    w[DST as usize] = c.dst;
    w[STRIDE as usize] = pair(c.stride, c.slot_bytes);
    w[COUNT_FLAGS as usize] = pair(c.count, c.flags);
    w[VALUES as usize] = u64::from(c.values_per_query);
    w
}

/// (local size, workgroups) for `count` queries (module docs).
pub fn query_grid(count: u32) -> ([u32; 3], [u32; 3]) {
    let groups = count.max(1).div_ceil(LOCAL_SIZE);
    ([LOCAL_SIZE, 1, 1], [groups, 1, 1])
}

/// The query copy kernel (module docs).
pub fn copy_query_results() -> Kernel {
    use query_words::*;
    let mut s = kernel_shader("copy_query_results", [LOCAL_SIZE, 1, 1]);
    let mut b = Builder::new(&mut s);
    let u32t = ValueType::U32;
    let u64t = ValueType::U64;
    let gid = b.sysval(SysVal::GlobalInvocationId, ValueType::new(32, 3));
    let i = b.channel(gid, 0);
    let count = uniform_u32(&mut b, COUNT_FLAGS, false);
    let active = b.alu(AluOp::Ult, &[i, count]);
    when(&mut b, active, |b| {
        let pool = uniform(b, u64t, 8 * POOL);
        let dst = uniform(b, u64t, 8 * DST);
        let stride = uniform_u32(b, STRIDE, false);
        let slot_bytes = uniform_u32(b, STRIDE, true);
        let flag_word = uniform_u32(b, COUNT_FLAGS, true);
        let values = uniform_u32(b, VALUES, false);
        let zero = b.imm_u32(0);
        let mut flag = |bit: u32| {
            let m = b.imm_u32(bit);
            let v = b.alu(AluOp::Iand, &[flag_word, m]);
            b.alu(AluOp::Ine, &[v, zero])
        };
        let wide = flag(flags::RESULT_64);
        let partial = flag(flags::PARTIAL);
        let with_availability = flag(flags::WITH_AVAILABILITY);

        let slot_offset = b.alu(AluOp::Imul, &[i, slot_bytes]);
        let slot = add_offset(b, pool, slot_offset);
        let out_offset = b.alu(AluOp::Imul, &[i, stride]);
        let out = add_offset(b, dst, out_offset);
        let three = b.imm_u32(3);
        let values_bytes = b.alu(AluOp::Ishl, &[values, three]);
        let availability_at = add_offset(b, slot, values_bytes);
        let availability = b.load(Intrinsic::LoadGlobal, u64t, &[availability_at]);
        let zero64 = b.imm_u64(0);
        let available = b.alu(AluOp::Ine, &[availability, zero64]);
        // Element k of the output: at k × 8 (64-bit) or k × 4, as u64 or
        // truncated to u32.
        let store_element = |b: &mut Builder<'_>, k: Value, v: Value| {
            b.if_(
                wide,
                &[],
                |b| {
                    let three = b.imm_u32(3);
                    let off = b.alu(AluOp::Ishl, &[k, three]);
                    let a = add_offset(b, out, off);
                    b.store(Intrinsic::StoreGlobal, &[v, a]);
                    vec![]
                },
                |b| {
                    let two = b.imm_u32(2);
                    let off = b.alu(AluOp::Ishl, &[k, two]);
                    let a = add_offset(b, out, off);
                    let narrow = b.alu_typed(AluOp::U2u, u32t, &[v]);
                    b.store(Intrinsic::StoreGlobal, &[narrow, a]);
                    vec![]
                },
            );
        };
        let write_results = b.alu(AluOp::Ior, &[available, partial]);
        when(b, write_results, |b| {
            for_range(b, zero, values_bytes, 8, |b, byte| {
                let a = add_offset(b, slot, byte);
                let v = b.load(Intrinsic::LoadGlobal, u64t, &[a]);
                let k = b.alu(AluOp::Ushr, &[byte, three]);
                store_element(b, k, v);
            });
        });
        when(b, with_availability, |b| {
            let v = b.alu_typed(AluOp::B2i, u64t, &[available]);
            store_element(b, values, v);
        });
    });
    b.finish();
    Kernel {
        shader: s,
        words: COUNT,
    }
}
