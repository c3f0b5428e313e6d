//! The driver's own GPU kernels (XFB Begin/advance/End, buffer copy and
//! fill, query-result copies, indirect parameters), built in IR
//! by `compiler::kernels`, compiled by our backend for the device's
//! architecture on first use, uploaded once into an executable BO and kept
//! for the device's lifetime.

use std::sync::{Mutex, OnceLock};

use ash::vk;

use crate::compiler::bifrost::{Options, compile};
use crate::compiler::kernels::{Kernel, indirect, query, transfer, xfb};
use crate::hw::Arch;
use crate::jm::ShaderCode;
use crate::kmod;
use crate::vk::VkResult;

/// Which internal kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelId {
    XfbBegin = 0,
    XfbAdvance = 1,
    XfbEnd = 2,
    CopyBuffer = 3,
    FillBuffer = 4,
    CopyQueryResults = 5,
    XfbRestart = 6,
    IndirectDispatch = 7,
    IndirectDraw = 8,
}

const KERNELS: usize = 9;

impl KernelId {
    fn build(self) -> Kernel {
        match self {
            KernelId::XfbBegin => xfb::begin(),
            KernelId::XfbAdvance => xfb::advance(),
            KernelId::XfbEnd => xfb::end(),
            KernelId::XfbRestart => xfb::restart(),
            KernelId::CopyBuffer => transfer::copy_buffer(),
            KernelId::FillBuffer => transfer::fill_buffer(),
            KernelId::CopyQueryResults => query::copy_query_results(),
            KernelId::IndirectDispatch => indirect::indirect_dispatch(),
            KernelId::IndirectDraw => indirect::indirect_draw(),
        }
    }
}

#[derive(Default)]
pub struct DeviceKernels {
    compiled: [OnceLock<ShaderCode>; KERNELS],
    /// Serialises first compiles (a kernel is compiled at most once).
    building: Mutex<()>,
}

impl DeviceKernels {
    /// The kernel, compiled and uploaded on first use.
    pub fn get(
        &self,
        device: &std::sync::Arc<kmod::Device>,
        arch: Arch,
        id: KernelId,
    ) -> VkResult<&ShaderCode> {
        let slot = &self.compiled[id as usize];
        if let Some(k) = slot.get() {
            return Ok(k);
        }
        let _guard = self.building.lock().unwrap();
        if let Some(k) = slot.get() {
            return Ok(k);
        }
        let kernel = id.build();
        let binary = compile(
            &kernel.shader,
            Options {
                arch: arch.into(),
                push_uniform_words: Some(kernel.words),
                // The kernels read buffers through address words only.
                ubo_table: false,
            },
        )
        .map_err(|e| {
            log::error!("internal kernel {id:?} does not compile: {e}");
            vk::Result::ERROR_UNKNOWN
        })?;
        let code = ShaderCode::upload(device, binary).map_err(|e| {
            log::error!("internal kernel {id:?}: {e}");
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY
        })?;
        Ok(slot.get_or_init(|| code))
    }
}
