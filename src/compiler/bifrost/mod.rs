//! The Bifrost backend: turns the IR into Bifrost clauses, and reads them
//! back as text (`disasm` prints Mesa's syntax, `asm` parses it and encodes).
//!
//! Pipeline of [`compile`]: `lower_vars_to_ssa` → `optimize` → [`isel`]
//! (IR → blocks of [`ops`] on virtual registers) → [`ra`] (physical
//! registers, spilling to thread-local storage with [`spill`]) → [`sched`]
//! (clauses and headers) → [`pack`]
//! (`hw::isa` neutral form → bytes) → [`binary::ShaderBinary`].
//!
//! The input must already have gone through the driver's lowering that
//! needs its outputs (`lower_io`, `lower_xfb`, `lower_sysvals`): the backend
//! reads `load_uniform` words as FAU operands and the preloaded ids in
//! place. `BIFROST_VK_DEBUG=shaders` (or `all`) prints the selected program
//! and the disassembly of every compiled shader to stderr.
//!
//! # Conventions (the contract with the job emitter, see [`binary`])
//! - **FAU**: `load_uniform` byte offset `o` reads FAU word `o / 8`, half
//!   `(o / 4) % 2`, as an instruction operand (`uN.w0`/`uN.w1`); constants
//!   are embedded in the clause. One 64-bit FAU slot per tuple.
//! - **Buffers by (set, binding)** (`load_ubo`/`load_ssbo`/`store_ssbo`
//!   still in that form): the binding's 64-bit base address is the FAU word
//!   right after the push-uniform area, in the order of
//!   [`ShaderBinary::buffers`]; `uniform_words` includes them.
//! - **Preloads**: vertex/XFB jobs r61 (raw vertex id / captured vertex),
//!   r62 (instance id); compute r55 (local x | y << 16), r56 (local z),
//!   r57–r59 (workgroup), r60–r62 (global id). They are read in place and
//!   never allocated.
//! - **Registers**: r0–r54; values that do not fit are spilled to
//!   thread-local storage (`LOAD`/`STORE` `seg=tl` at offset (imm, 0));
//!   [`ShaderBinary::tls_size`] is the per-thread byte count the job
//!   emitter sizes the TLS buffer with (`jm::tls`). `work_registers` ≤ 32
//!   lets v7 run two threads per register file.
//!   `Options::arch` changes v7 fragment shaders (message preloads,
//!   below) and derivatives (`isel/derivative.rs`: `CLPER_OLD` on v6,
//!   `CLPER` on v7, as Mesa's `BIFROST_LIMITED_CLPER` quirk); v6 and v7
//!   share every other instruction used here.
//! - **Varyings** (`store_output` in vertex shaders): output `o` is written
//!   to varying record `o` with `LEA_ATTR_IMM.auto` (r61, r62; `LEA_ATTR`
//!   from record 16 on) and `ST_CVT` of its 32-bit words, as Mesa's
//!   non-IDVS vertex shaders do; [`ShaderBinary::varyings`] lists them.
//!   The XFB variant has none (its captures are `store_global`).
//! - **Fragment shaders** (`isel/fragment.rs`): inputs are `LD_VAR_IMM` /
//!   `LD_VAR_FLAT_IMM` of varying record = location (on v7 the first two
//!   smooth centre-sampled locations come from the RSD's message preloads
//!   in r0.. and r4.., `FragmentInfo::messages`); the body is followed
//!   by `ATEST`, `ZS_EMIT` (depth) and one `BLEND` per render target, with
//!   coverage in r60, the ATEST datum and blend descriptors in special FAU
//!   slots (5, 8 + n), r48 reserved for BLEND's return address;
//!   [`ShaderBinary::fragment`] is the RSD's side (see
//!   [`binary::FragmentInfo`]). Preloads r58–r61 are read in place.
//!
//! - **Float division, square roots, exp2/log2/sin/cos/pow**: sequences of
//!   FMA/FADD and integer ops with exact semantics (`isel/float_math.rs`),
//!   within Vulkan's precision bounds; no table instructions. Pack/unpack in
//!   `isel/pack_unpack.rs`, 32-bit atomics in `isel/atomics.rs`.
//!
//! Not supported (a [`CompileError::Unsupported`]): 16-bit and 64-bit float
//! arithmetic (Bifrost has no fp64), 8/16-bit ALU ops beyond conversions
//! (8/16-bit loads and stores are), 64-bit atomics, 8/16-bit outputs and
//! outputs of more than four 32-bit words; in fragment shaders, outputs
//! stored under control flow, render targets past 7, varying locations
//! past 31, textures.
//!
//! Bit layouts live in `crate::hw::isa`; nothing in here packs bits by hand.
//! Unsupported input is a [`CompileError`], never a panic.

pub mod asm;
pub mod binary;
pub mod blend;
pub mod dag;
pub mod disasm;
pub mod fp16;
pub mod isel;
pub mod ops;
pub mod pack;
pub mod ra;
pub mod sched;
pub mod spill;
pub mod verify;

use thiserror::Error;

use crate::compiler::ir::Shader;
use crate::compiler::passes::debug_flag;

use binary::{ShaderBinary, ShaderStats};

/// The GPU architecture generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    /// G71/G72.
    V6,
    /// G31/G51/G52/G76.
    V7,
}

/// The generation of a hardware architecture (`hw::Arch`, e.g. a simulated
/// model's `SimModel::arch()`).
impl From<crate::hw::Arch> for Arch {
    fn from(arch: crate::hw::Arch) -> Arch {
        match arch {
            crate::hw::Arch::V6 => Arch::V6,
            crate::hw::Arch::V7 => Arch::V7,
        }
    }
}

/// Compile options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub arch: Arch,
    /// Length in 64-bit words of the push-uniform area the driver fills
    /// (`PushUniformLayout::words.len()`); the buffer-address words of
    /// [`ShaderBinary::buffers`] follow it. `None`: right after the highest
    /// word the shader reads (only for shaders whose caller lays out the
    /// uniforms from the binary itself, like the simulator tests).
    pub push_uniform_words: Option<u32>,
    /// UBO loads go through the hardware's UBO table (`LOAD.*.ubo` with the
    /// byte offset and the table index, listed in [`ShaderBinary::ubos`]),
    /// as Mesa's Bifrost compiler does, instead of a 64-bit address add on
    /// an address word of [`ShaderBinary::buffers`]. The caller then fills
    /// the job's UBO table (`jm::compute::ComputeJob::ubos`). Off by default:
    /// most simulator tests lay out only the FAU words.
    pub ubo_table: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            arch: Arch::V7,
            push_uniform_words: None,
            ubo_table: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CompileError {
    #[error("unsupported by the Bifrost backend: {0}")]
    Unsupported(String),
    #[error("malformed IR: {0}")]
    Malformed(String),
    #[error(
        "register allocation failed: a {needed}-register value does not fit in r0..r{available} (even after spilling)"
    )]
    RegisterPressure { needed: u8, available: u8 },
    #[error("encoding failed (backend bug): {0}")]
    Encode(String),
}

/// Compiles a (driver-lowered) shader to Bifrost machine code. The shader
/// may still have variables and need optimising (hand-written IR, the
/// driver's kernels): a copy goes through `lower_vars_to_ssa`,
/// `lower_int64` and `optimize` first. For the front half's output, which already has,
/// [`compile_optimized`] skips the copy and the passes.
pub fn compile(shader: &Shader, options: Options) -> Result<ShaderBinary, CompileError> {
    let mut s = shader.clone();
    s.lower_vars_to_ssa();
    s.lower_int64();
    s.optimize();
    compile_optimized(&s, options)
}

/// Compiles a shader that is already in SSA form without variables and
/// optimised, as `pipeline::compile_front` returns its variants (the same
/// code as [`compile`] gives it: `backend_corpus.rs` checks that on every
/// corpus variant). Anything else is compiled as it stands: correct, but
/// without the optimisations.
pub fn compile_optimized(s: &Shader, options: Options) -> Result<ShaderBinary, CompileError> {
    let mut prog = isel::select(s, &options)?;
    let debug = debug_flag("shaders");
    if debug {
        eprintln!("// Bifrost backend: {}\n{prog}", s.info.name);
    }
    let alloc = ra::allocate_with_spilling(&mut prog)?;
    // The message preloads' registers (four per preload, reserved) are
    // read in place and never allocated.
    let preloaded = prog
        .fragment
        .as_ref()
        .map_or(0, |f| 4 * f.messages.len() as u32);
    let work = alloc.work_registers.max(preloaded);
    if debug && alloc.spilled_values > 0 {
        eprintln!(
            "// spilled {} values: {} TLS stores, {} loads, {} bytes per thread, {} colouring rounds",
            alloc.spilled_values, alloc.spills, alloc.fills, alloc.tls_size, alloc.rounds
        );
    }
    let sched = sched::schedule(&prog)?;
    let (code, counts) = pack::encode_program(&sched.clauses, &sched.block_clause)?;
    // Debug builds (every test) re-check the clause rules on the bytes.
    if cfg!(debug_assertions) {
        let clauses = crate::hw::isa::decode_shader(&code)
            .map_err(|e| CompileError::Encode(format!("our binary does not decode: {e}")))?;
        verify::check_clauses(&clauses)
            .map_err(|e| CompileError::Encode(format!("clause rules: {e}")))?;
    }
    let mut stats = ShaderStats {
        clauses: counts.clauses,
        tuples: counts.tuples,
        instructions: counts.instructions,
        spills: alloc.spills,
        fills: alloc.fills,
        ..ShaderStats::default()
    };
    stats.quadwords = ((code.len() - 128) / 16) as u32;
    if debug {
        match disasm::disassemble(&code) {
            Ok(text) => eprintln!("{text}"),
            Err(e) => eprintln!("// disassembly failed: {e}"),
        }
    }
    let mut fragment = prog.fragment;
    if let Some(f) = &mut fragment {
        f.wait_dependency_6 = sched.entry_deps & 0x40 != 0;
        f.wait_dependency_7 = sched.entry_deps & 0x80 != 0;
        set_return_offsets(&sched.clauses, &counts.clause_offsets, &code, f)?;
    }
    Ok(ShaderBinary {
        code,
        work_registers: work,
        preloads: prog.preloads,
        uniform_words: prog.uniform_words,
        tls_size: alloc.tls_size,
        uses_barrier: prog.uses_barrier,
        shared_size: s.info.shared_size,
        attribute_count: prog.attribute_count,
        ubo_count: prog.ubos.len() as u32,
        ubos: prog.ubos,
        buffers: prog.buffers,
        varyings: prog.varyings,
        fragment,
        stats,
    })
}

/// Fills each render target's [`binary::RenderTargetWrite::return_offset`]:
/// the byte offset of the clause after its `BLEND` clause (the BLENDs are
/// in render-target order, each ending its clause), 0 after the last one.
/// `offsets` are the packer's clause offsets; debug builds (the tests)
/// check the result against the decoded binary.
fn set_return_offsets(
    clauses: &[pack::SClause],
    offsets: &[usize],
    code: &[u8],
    f: &mut binary::FragmentInfo,
) -> Result<(), CompileError> {
    // Message type 9: blend (`hw::isa::clause::message_type_name`).
    let blends: Vec<usize> = (0..clauses.len())
        .filter(|&i| clauses[i].header.message_type == 9)
        .collect();
    if blends.len() != f.render_targets.len() {
        return Err(CompileError::Encode(format!(
            "{} BLEND clauses for {} render targets",
            blends.len(),
            f.render_targets.len()
        )));
    }
    for (rt, &i) in f.render_targets.iter_mut().zip(&blends) {
        rt.return_offset = if i + 1 < clauses.len() {
            offsets.get(i + 1).copied().unwrap_or(0) as u32
        } else {
            0
        };
    }
    if cfg!(debug_assertions) {
        let decoded = crate::hw::isa::decode_shader(code)
            .map_err(|e| CompileError::Encode(format!("our binary does not decode: {e}")))?;
        let from_bytes: Vec<u32> = (0..decoded.len())
            .filter(|&i| decoded[i].1.header.message_type == 9)
            .map(|i| decoded.get(i + 1).map_or(0, |(qw, _)| 16 * *qw as u32))
            .collect();
        let ours: Vec<u32> = f.render_targets.iter().map(|r| r.return_offset).collect();
        if from_bytes != ours {
            return Err(CompileError::Encode(format!(
                "return offsets {ours:?}, decoded {from_bytes:?}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
