//! The loader-facing ABI: exported symbols, name → function tables, handle
//! conversion, pNext walking, and the entry-point macro with its panic guard.
//!
//! `api/` holds the shims (one file per object family, like `vk/`): they
//! turn raw pointers and handles into Rust values and call into `vk/`. No
//! Vulkan semantics live here.

pub mod abi;
pub mod api;
pub mod chain;
pub mod dispatch;
pub mod entry;
pub mod exports;
