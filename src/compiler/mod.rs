//! The shader compiler: SPIR-V in, Bifrost machine code out.
//!
//! `spirv/` parses SPIR-V into the NIR-like SSA IR of `ir/`; `passes/` hold one
//! pass per file (lowering and optimisation, including the XFB lowering);
//! `bifrost/` turns the IR into Bifrost clauses. Nothing in here knows about
//! Vulkan objects or the kernel.

pub mod bifrost;
pub mod ir;
pub mod passes;
pub mod spirv;
pub mod xfb_reference;
