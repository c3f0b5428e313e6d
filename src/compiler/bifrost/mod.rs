//! The Bifrost backend: turns the IR into Bifrost clauses, and reads them
//! back as text (`disasm` prints Mesa's syntax, `asm` parses it and encodes).
//!
//! Pipeline of [`compile`]: `lower_vars_to_ssa` → `optimize` → [`isel`]
//! (IR → blocks of [`ops`] on virtual registers) → [`ra`] (physical
//! registers, no spilling) → [`sched`] (clauses and headers) → [`pack`]
//! (`hw::isa` neutral form → bytes) → [`binary::ShaderBinary`].
//!
//! The input must already have gone through the driver's lowering that
//! needs its outputs (`lower_io`, `lower_xfb`, `lower_sysvals`): the backend
//! reads `load_uniform` words as FAU operands and the preloaded ids in
//! place. `BIFROST_VK_DEBUG=shaders` (or `all`) prints the selected program
//! and the disassembly of every compiled shader to stderr.
//!
//! Bit layouts live in `crate::hw::isa`; nothing in here packs bits by hand.
//! Unsupported input is a [`CompileError`], never a panic.

pub mod asm;
pub mod binary;
pub mod disasm;
pub mod isel;
pub mod ops;
pub mod pack;
pub mod ra;
pub mod sched;

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

/// Compile options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub arch: Arch,
}

impl Default for Options {
    fn default() -> Options {
        Options { arch: Arch::V7 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CompileError {
    #[error("unsupported by the Bifrost backend: {0}")]
    Unsupported(String),
    #[error("malformed IR: {0}")]
    Malformed(String),
    #[error(
        "register allocation failed: a {needed}-register value does not fit in r0..r{available} (spilling is not implemented)"
    )]
    RegisterPressure { needed: u8, available: u8 },
    #[error("encoding failed (backend bug): {0}")]
    Encode(String),
}

/// Compiles a (driver-lowered) shader to Bifrost machine code.
pub fn compile(shader: &Shader, options: Options) -> Result<ShaderBinary, CompileError> {
    let mut s = shader.clone();
    s.lower_vars_to_ssa();
    s.optimize();
    let mut prog = isel::select(&s)?;
    let debug = debug_flag("shaders");
    if debug {
        eprintln!("// Bifrost backend: {}\n{prog}", s.info.name);
    }
    let work = ra::allocate(&mut prog)?;
    let sched = sched::schedule(&prog)?;
    let (code, decoded) = pack::encode_program(&sched.clauses, &sched.block_clause)?;
    let mut stats = ShaderStats {
        clauses: decoded.len() as u32,
        ..ShaderStats::default()
    };
    for c in &decoded {
        stats.tuples += c.tuples.len() as u32;
        stats.instructions += c.instruction_count() as u32;
    }
    stats.quadwords = ((code.len() - 128) / 16) as u32;
    if debug {
        match disasm::disassemble(&code) {
            Ok(text) => eprintln!("{text}"),
            Err(e) => eprintln!("// disassembly failed: {e}"),
        }
    }
    let _ = options.arch;
    Ok(ShaderBinary {
        code,
        work_registers: work,
        preloads: prog.preloads,
        uniform_words: prog.uniform_words,
        tls_size: 0,
        uses_barrier: prog.uses_barrier,
        shared_size: s.info.shared_size,
        attribute_count: prog.attribute_count,
        ubo_count: 0,
        buffers: prog.buffers,
        stats,
    })
}

#[cfg(test)]
mod tests;
