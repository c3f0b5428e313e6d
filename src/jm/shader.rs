//! Shader code in GPU memory: a compiled program uploaded once, by its
//! owner (a pipeline, the device's internal kernels), into a BO of its own
//! that the GPU may execute. Jobs point their renderer state at it.
//!
//! Command-buffer pools are created `PANFROST_BO_NOEXEC`, so code must
//! never be written there: the simulator's MMU faults an instruction fetch
//! from such a BO, as the hardware does.

use std::sync::Arc;

use super::error::JmResult;
use crate::compiler::bifrost::binary::ShaderBinary;
use crate::kmod::{Bo, BoHandle, Device};

/// Alignment of a shader's first clause.
pub const CODE_ALIGN: u64 = 128;

/// A compiled shader and the executable BO holding its code.
pub struct ShaderCode {
    pub binary: ShaderBinary,
    device: Arc<Device>,
    bo: Option<Bo>,
}

impl ShaderCode {
    /// Upload `binary.code` (which already carries the prefetch padding)
    /// into a fresh executable BO.
    pub fn upload(device: &Arc<Device>, binary: ShaderBinary) -> JmResult<ShaderCode> {
        let bo = device.bo_create((binary.code.len() as u64).max(CODE_ALIGN), 0)?;
        // SAFETY: a fresh mapping of at least `code.len()` bytes.
        unsafe { std::ptr::copy_nonoverlapping(binary.code.as_ptr(), bo.ptr(), binary.code.len()) };
        Ok(ShaderCode {
            binary,
            device: device.clone(),
            bo: Some(bo),
        })
    }

    /// GPU VA of the first clause.
    pub fn va(&self) -> u64 {
        self.bo.as_ref().map_or(0, Bo::gpu_va)
    }

    /// The BO, for a submit's BO list.
    pub fn bo_handle(&self) -> BoHandle {
        self.bo.as_ref().map_or(0, Bo::handle)
    }
}

impl Drop for ShaderCode {
    fn drop(&mut self) {
        if let Some(bo) = self.bo.take() {
            self.device.bo_destroy(bo);
        }
    }
}
