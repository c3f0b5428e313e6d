//! The NIR-like SSA IR every stage of the compiler speaks.
//!
//! A [`Shader`] holds typed SSA [`Value`]s (bit size × component count), its
//! I/O variables (with their transform-feedback decorations), function-local
//! variables (before `lower_vars_to_ssa`), and a body [`Region`] of
//! [`Instr`]s. Control flow is structured: an [`If`] or [`Loop`] instruction owns
//! nested regions and defines result values, and values flow out of regions
//! through `yield`, `break` and `continue` (MLIR's scf style instead of NIR's
//! φ-nodes: every use is dominated by its definition by scoping alone).
//!
//! The IR knows nothing about SPIR-V, Vulkan or Bifrost encodings. The text
//! form (print/parse) is stable and round-trips.

pub mod builder;
pub mod eval;
pub mod instr;
/// The reference interpreter, for tests (not part of the driver).
#[cfg(any(test, feature = "testing"))]
pub mod interp;
pub mod parse;
pub mod print;
/// Random programs, for property tests (not part of the driver).
#[cfg(any(test, feature = "testing"))]
pub mod random;
pub mod shader;
pub mod types;
pub mod validate;

pub use builder::Builder;
pub use instr::*;
pub use shader::*;
pub use types::*;
