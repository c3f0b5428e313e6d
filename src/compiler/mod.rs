//! The shader compiler: SPIR-V in, Bifrost machine code out.
//!
//! `spirv/` parses SPIR-V into the NIR-like SSA IR of `ir/`; `passes/` hold one
//! pass per file (lowering and optimisation, including the XFB lowering);
//! `bifrost/` turns the IR into Bifrost clauses; `kernels/` builds the
//! driver's own GPU kernels (XFB bookkeeping) in IR. `pipeline` runs the front
//! half (SPIR-V → lowered IR variants with their layouts) as one call,
//! [`pipeline::compile_front`]. Nothing in here knows about
//! Vulkan objects or the kernel.

pub mod bifrost;
pub mod inline_vec;
pub mod ir;
pub mod kernels;
pub mod passes;
pub mod pipeline;
pub mod spirv;
/// The spec's XFB rules as an oracle for tests (not part of the driver).
#[cfg(any(test, feature = "testing"))]
pub mod xfb_reference;

pub use pipeline::{FrontError, FrontShaders, LoweredShader, Variant, compile_front};
