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
//!
//! The instance count is read from memory (an indirect draw's record, or a
//! word the driver wrote) for the same reason.

use crate::compiler::ir::*;
use crate::compiler::passes::lower_xfb::{XFB_MAX_BUFFERS, xfb_param};

/// A kernel and the number of 64-bit push-uniform words it reads.
pub struct Kernel {
    pub shader: Shader,
    pub words: u32,
}

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

fn kernel_shader(name: &str) -> Shader {
    let mut s = Shader::new(Stage::Compute);
    s.info.name = name.into();
    s.info.local_size = [1, 1, 1];
    s
}

fn uniform(b: &mut Builder<'_>, ty: ValueType, byte_offset: u32) -> Value {
    b.load(
        Intrinsic::LoadUniform {
            offset: byte_offset,
        },
        ty,
        &[],
    )
}

fn add_bytes(b: &mut Builder<'_>, address: Value, bytes: u32) -> Value {
    let k = b.imm_u64(u64::from(bytes));
    b.alu(AluOp::Iadd, &[address, k])
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
    let mut s = kernel_shader("xfb_advance");
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
    let mut s = kernel_shader(name);
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
