//! The driver's internal GPU kernels, built with the IR builder in the form
//! `lower_sysvals` produces (push uniforms read with `load_uniform`, memory
//! through 64-bit addresses), so that they go straight to a backend.
//!
//! Each kernel documents its push-uniform words (64-bit FAU words, `Options::
//! push_uniform_words` is [`Kernel::words`]) and what it reads and writes;
//! nothing here records jobs (that is `jm`).
//!
//! - [`xfb`]: transform-feedback Begin, per-draw advance, End, restart
//!   resolution.
//! - [`transfer`]: buffer copies and fills (vkCmdCopyBuffer,
//!   vkCmdUpdateBuffer, vkCmdFillBuffer).
//! - [`query`]: query results to a buffer (vkCmdCopyQueryPoolResults).
//! - [`indirect`]: indirect draw and dispatch parameters patched into the
//!   recorded jobs.
//! - [`preload`]: the fragment program of a render pass's colour preload
//!   (loadOp LOAD), run by the FRAGMENT job's pre-frame Draw.

pub mod indirect;
pub mod preload;
pub mod query;
pub mod transfer;
pub mod xfb;

use crate::compiler::ir::*;

/// A kernel and the number of 64-bit push-uniform words it reads.
pub struct Kernel {
    pub shader: Shader,
    pub words: u32,
}

/// Every kernel of this module, by name (for tests that compile them all).
pub fn all() -> Vec<Kernel> {
    vec![
        xfb::begin(),
        xfb::advance(),
        xfb::end(),
        xfb::restart(),
        transfer::copy_buffer(),
        transfer::fill_buffer(),
        query::copy_query_results(),
        indirect::indirect_dispatch(),
        indirect::indirect_draw(),
    ]
}

fn kernel_shader(name: &str, local_size: [u32; 3]) -> Shader {
    let mut s = Shader::new(Stage::Compute);
    s.info.name = name.into();
    s.info.local_size = local_size;
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

/// The low (`hi` false) or high 32 bits of push-uniform word `word`.
fn uniform_u32(b: &mut Builder<'_>, word: u32, hi: bool) -> Value {
    uniform(b, ValueType::U32, 8 * word + 4 * u32::from(hi))
}

fn add_bytes(b: &mut Builder<'_>, address: Value, bytes: u32) -> Value {
    let k = b.imm_u64(u64::from(bytes));
    b.alu(AluOp::Iadd, &[address, k])
}

/// `address + offset` for a u32 byte offset.
fn add_offset(b: &mut Builder<'_>, address: Value, offset: Value) -> Value {
    let wide = b.alu_typed(AluOp::U2u, ValueType::U64, &[offset]);
    b.alu(AluOp::Iadd, &[address, wide])
}

/// `if cond { f }` without results.
fn when(b: &mut Builder<'_>, cond: Value, f: impl FnOnce(&mut Builder<'_>)) {
    b.if_(
        cond,
        &[],
        |b| {
            f(b);
            vec![]
        },
        |_| vec![],
    );
}

/// `for (off = from; off < to; off += step) body(off)` over u32 offsets.
fn for_range(
    b: &mut Builder<'_>,
    from: Value,
    to: Value,
    step: u32,
    body: impl FnOnce(&mut Builder<'_>, Value),
) {
    b.loop_(&[from], &[], |b, p| {
        let off = p[0];
        let done = b.alu(AluOp::Uge, &[off, to]);
        when(b, done, |b| b.break_(&[]));
        body(b, off);
        let k = b.imm_u32(step);
        vec![b.alu(AluOp::Iadd, &[off, k])]
    });
}
