//! The SPIR-V front end: Vulkan SPIR-V (1.0–1.6, as glslang emits it for
//! vertex and compute shaders) in, IR [`Shader`] out.
//!
//! Split by topic, like Mesa's vtn: `reader` (words, header, instruction
//! framing), `module` (module-level declarations), `decorations`, `types`
//! (types and memory layout), `constants` (constants and specialization),
//! `function` (translator state, id binding and scoping), `cfg` (structured
//! control flow and inlining), `variables` (variables and
//! pointers), `io` (I/O flattening with XFB decorations), `memory`
//! (explicit-layout memory), `inst` (memory/call/atomic instructions),
//! `image` (images, samplers and texture accesses),
//! `alu` and `glsl450` (arithmetic), `error`.
//!
//! Contract: [`parse`] never panics. Malformed or unsupported SPIR-V is a
//! [`SpirvError`] naming the opcode or rule and the word offset. The front
//! end does no optimisation: function variables, phis and values used across
//! structured regions go through IR variables for `lower_vars_to_ssa`.
//!
//! Debugging: the corpus lives in `tests/shaders/` (GLSL sources, SPIR-V made by
//! `regen.sh`); print the IR of one module with
//! `SHADER=loops.vert.spv cargo test --test spirv_frontend dump -- --ignored --nocapture`.

mod alu;
mod cfg;
mod constants;
mod decorations;
mod error;
mod function;
mod glsl450;
mod image;
mod inst;
mod io;
mod memory;
mod module;
mod reader;
#[cfg(test)]
mod tests;
mod types;
mod variables;

use std::borrow::Cow;
use std::collections::HashMap;

use spirv::{BuiltIn as SpvBuiltIn, ExecutionMode, ExecutionModel};

use crate::compiler::ir::{Shader, Stage};

pub use error::SpirvError;
use module::{Def, Module};

/// Specialization data by `SpecId`, as in `VkSpecializationInfo`: the bytes
/// of the value (4 for 32-bit scalars and booleans, 8 for 64-bit ...).
pub type SpecConstants = HashMap<u32, Vec<u8>>;

/// A SPIR-V binary as words or bytes (either byte order).
pub enum Binary<'a> {
    Words(&'a [u32]),
    Bytes(&'a [u8]),
}

impl<'a> From<&'a [u32]> for Binary<'a> {
    fn from(w: &'a [u32]) -> Self {
        Binary::Words(w)
    }
}

impl<'a> From<&'a Vec<u32>> for Binary<'a> {
    fn from(w: &'a Vec<u32>) -> Self {
        Binary::Words(w)
    }
}

impl<'a> From<&'a [u8]> for Binary<'a> {
    fn from(b: &'a [u8]) -> Self {
        Binary::Bytes(b)
    }
}

impl<'a> From<&'a Vec<u8>> for Binary<'a> {
    fn from(b: &'a Vec<u8>) -> Self {
        Binary::Bytes(b)
    }
}

/// Translate entry point `entry_point` of stage `stage` to IR, with the
/// specialization constants applied.
pub fn parse<'a>(
    module: impl Into<Binary<'a>>,
    entry_point: &str,
    stage: Stage,
    spec: &SpecConstants,
) -> Result<Shader, SpirvError> {
    let words: Cow<[u32]> = match module.into() {
        Binary::Words(w) => Cow::Borrowed(w),
        Binary::Bytes(b) => Cow::Owned(reader::words_from_bytes(b)?),
    };
    let header = reader::parse_header(&words)?;
    let insts = reader::instructions(&words)?;
    let m = Module::parse(header, &insts, spec)?;
    translate(&m, entry_point, stage)
}

/// The entry points of a module, as (name, execution model), in declaration
/// order. Only the framing and the `OpEntryPoint`s are read, so a module the
/// front end rejects for another reason (an unsupported capability) still
/// names its stages: for tools that pick the stage from the module itself.
pub fn entry_points<'a>(
    module: impl Into<Binary<'a>>,
) -> Result<Vec<(String, ExecutionModel)>, SpirvError> {
    let words: Cow<[u32]> = match module.into() {
        Binary::Words(w) => Cow::Borrowed(w),
        Binary::Bytes(b) => Cow::Owned(reader::words_from_bytes(b)?),
    };
    reader::parse_header(&words)?;
    let mut out = Vec::new();
    for inst in reader::instructions(&words)? {
        if inst.op == Some(spirv::Op::EntryPoint) {
            inst.need(3)?;
            let model = ExecutionModel::from_u32(inst.word(0)?)
                .ok_or_else(|| inst.invalid("unknown execution model"))?;
            let (name, _) = inst.string(2)?;
            out.push((name, model));
        }
    }
    Ok(out)
}

fn translate(m: &Module, entry_point: &str, stage: Stage) -> Result<Shader, SpirvError> {
    let model = match stage {
        Stage::Vertex => ExecutionModel::Vertex,
        Stage::Compute => ExecutionModel::GLCompute,
        Stage::Fragment => ExecutionModel::Fragment,
    };
    let ep = m
        .entry_points
        .iter()
        .find(|e| e.name == entry_point && e.model == model)
        .ok_or_else(|| SpirvError::NoEntryPoint {
            name: entry_point.to_string(),
            stage: format!("{stage:?}"),
        })?;
    let mut t = function::Translator::new(m, stage);
    t.shader.info.name = entry_point.to_string();
    t.shader.info.no_contraction = m
        .decos
        .values()
        .chain(m.member_decos.values())
        .any(|d| d.exact);
    if stage == Stage::Compute {
        t.shader.info.local_size = [1, 1, 1];
    }
    for (func, mode, operands, is_id, word) in &m.exec_modes {
        if *func != ep.func {
            continue;
        }
        let bad = |rule: &str| SpirvError::Invalid {
            op: format!("OpExecutionMode {mode:?}"),
            word: *word,
            rule: rule.to_string(),
        };
        match mode {
            ExecutionMode::Xfb => t.shader.info.xfb_mode = true,
            // Vulkan's window origin is the upper left (and its pixel
            // centres at half-integers); the other conventions are GL-only.
            ExecutionMode::OriginLowerLeft | ExecutionMode::PixelCenterInteger => {
                return Err(SpirvError::Unsupported {
                    op: format!("OpExecutionMode {mode:?}"),
                    word: *word,
                    what: "a GL-only fragment coordinate convention".into(),
                });
            }
            ExecutionMode::EarlyFragmentTests => t.shader.info.early_fragment_tests = true,
            ExecutionMode::LocalSize | ExecutionMode::LocalSizeId => {
                if operands.len() != 3 {
                    return Err(bad("needs 3 operands"));
                }
                let mut size = [0u32; 3];
                for (s, &o) in size.iter_mut().zip(operands) {
                    *s = if *is_id {
                        match m.def(o) {
                            Ok(Def::Const { value, .. }) => value
                                .as_u64()
                                .and_then(|v| u32::try_from(v).ok())
                                .ok_or_else(|| bad("size is not a 32-bit scalar constant"))?,
                            _ => return Err(bad("size operand is not a constant")),
                        }
                    } else {
                        o
                    };
                }
                t.shader.info.local_size = size;
            }
            _ => {}
        }
    }
    // A constant decorated WorkgroupSize overrides the execution mode.
    for (&id, d) in &m.decos {
        if d.builtin == Some(SpvBuiltIn::WorkgroupSize)
            && let Ok(Def::Const { value, .. }) = m.def(id)
        {
            if let constants::Cst::Composite(parts) = value
                && parts.len() == 3
            {
                for (s, p) in t.shader.info.local_size.iter_mut().zip(parts) {
                    *s = p.as_u64().and_then(|v| u32::try_from(v).ok()).unwrap_or(0);
                }
            } else {
                return Err(SpirvError::Invalid {
                    op: "WorkgroupSize".into(),
                    word: 0,
                    rule: "WorkgroupSize constant is not a 3-component vector".into(),
                });
            }
        }
    }
    if stage == Stage::Compute && t.shader.info.local_size.contains(&0) {
        return Err(SpirvError::Invalid {
            op: "LocalSize".into(),
            word: 0,
            rule: format!(
                "workgroup size {:?} has a zero dimension",
                t.shader.info.local_size
            ),
        });
    }
    t.instantiate_globals(&ep.interface)?;
    t.call(ep.func, Vec::new())?;
    t.emit_output_stores()?;
    Ok(t.finish())
}
