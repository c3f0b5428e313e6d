//! What can go wrong while writing jobs: the GPU memory for them could not
//! be had, or what was asked cannot be encoded in the descriptors.
//!
//! Neither is a lost device: recording reports them at
//! `vkEndCommandBuffer` (`vk::cmd`), and the GPU never sees the chain.

use crate::kmod::KmodError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JmError {
    /// A BO for descriptors, job headers or shader data could not be made.
    #[error("out of GPU memory")]
    OutOfMemory,
    /// The kernel refused something other than memory.
    #[error("kernel interface: {0}")]
    Kernel(KmodError),
    /// A value does not fit its descriptor field, or the request breaks a
    /// rule of the hardware layout (the text names it).
    #[error("cannot encode: {0}")]
    Encoding(&'static str),
}

impl From<KmodError> for JmError {
    fn from(e: KmodError) -> JmError {
        match e {
            KmodError::OutOfMemory => JmError::OutOfMemory,
            other => JmError::Kernel(other),
        }
    }
}

pub type JmResult<T> = Result<T, JmError>;
