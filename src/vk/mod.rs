//! Vulkan objects as ordinary Rust types, one object family per file.
//!
//! `icd/` converts handles and raw pointers and calls in here; nothing in
//! this module is `extern`. Objects never touch the GPU except through
//! `kmod` and `jm`.

pub mod buffer;
pub mod cmd;
pub mod device;
pub mod instance;
pub mod memory;
pub mod physical_device;
pub mod query;
pub mod queue;
pub mod sync;

/// A raw dispatchable handle stored inside another object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawHandle(pub *mut u8);

// SAFETY: handles are plain addresses; the objects behind them are Sync.
unsafe impl Send for RawHandle {}
// SAFETY: as above.
unsafe impl Sync for RawHandle {}

/// Map a kernel-interface error to the Vulkan code a command reports.
pub fn kmod_error(e: crate::kmod::KmodError) -> ash::vk::Result {
    use crate::kmod::KmodError;
    match e {
        KmodError::OutOfMemory => ash::vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
        KmodError::Timeout => ash::vk::Result::TIMEOUT,
        KmodError::NoDevice(_) => ash::vk::Result::ERROR_INITIALIZATION_FAILED,
        other => {
            log::error!("kernel interface: {other}");
            ash::vk::Result::ERROR_DEVICE_LOST
        }
    }
}
