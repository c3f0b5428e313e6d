//! Vulkan objects as ordinary Rust types, one object family per file.
//!
//! `icd/` converts handles and raw pointers and calls in here; nothing in
//! this module is `extern`. Objects never touch the GPU except through
//! `kmod` and `jm`.

pub mod buffer;
pub mod cmd;
pub mod descriptor;
pub mod device;
pub mod event;
pub mod handle;
pub mod instance;
pub mod kernels;
pub mod memory;
pub mod physical_device;
pub mod pipeline;
pub mod pipeline_cache;
pub mod query;
pub mod queue;
pub mod render_pass;
pub mod shader_module;
pub mod sync;

/// What every command returns: `Err` carries any code other than
/// VK_SUCCESS (errors, and also VK_INCOMPLETE, VK_NOT_READY, VK_TIMEOUT).
pub type VkResult<T> = Result<T, ash::vk::Result>;

/// A raw dispatchable handle stored inside another object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawHandle(pub *mut u8);

// SAFETY: handles are plain addresses; the objects behind them are Sync.
unsafe impl Send for RawHandle {}
// SAFETY: as above.
unsafe impl Sync for RawHandle {}
