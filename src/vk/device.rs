//! VkDevice: one kernel-device open (its own GPU address space), one queue,
//! and the device-lost state every GPU-facing command checks.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ash::vk;

use super::RawHandle;
use super::physical_device::{DEVICE_EXTENSIONS, PhysicalDevice};
use super::queue::Queue;
use crate::kmod;
use crate::vk::VkResult;
use crate::vk::handle::{self, Object};

/// What every object of a device shares.
pub struct DeviceCore {
    pub kdev: Arc<kmod::Device>,
    lost: AtomicBool,
    pub timestamps: bool,
    /// The architecture descriptors and code are made for.
    pub arch: crate::hw::Arch,
    /// GPU_PROD_ID (`deviceID`) and `pipelineCacheUUID`: what pipeline cache
    /// data must carry in its header to be used (`vk::pipeline_cache`).
    pub product_id: u32,
    pub pipeline_cache_uuid: [u8; vk::UUID_SIZE],
    /// The driver's GPU kernels, compiled on first use.
    pub kernels: super::kernels::DeviceKernels,
    /// Enabled device extensions and features the commands depend on.
    pub enabled: Enabled,
    /// Host writes of events wake the queue's submission thread (`vk::event`).
    pub host_events: super::event::HostEvents,
}

/// What the application enabled at vkCreateDevice that changes behaviour.
#[derive(Clone, Copy, Debug, Default)]
pub struct Enabled {
    pub transform_feedback: bool,
    pub primitives_generated_query: bool,
    /// `robustBufferAccess`: pipelines compile bounds-checked buffer and
    /// vertex-input accesses (`compiler::pipeline::FrontOptions`).
    pub robust_buffer_access: bool,
}

impl DeviceCore {
    pub fn check_lost(&self) -> VkResult<()> {
        if self.lost.load(Ordering::Acquire) {
            Err(vk::Result::ERROR_DEVICE_LOST)
        } else {
            Ok(())
        }
    }

    /// The GPU faulted: every later GPU-facing command reports DEVICE_LOST.
    pub fn mark_lost(&self, why: &str) -> vk::Result {
        if !self.lost.swap(true, Ordering::AcqRel) {
            log::error!("device lost: {why}");
        }
        vk::Result::ERROR_DEVICE_LOST
    }

    /// The one mapping from kernel errors to Vulkan results: out of memory
    /// and timeouts are reported as such, anything else loses the device.
    pub fn kmod_error(&self, e: kmod::KmodError) -> vk::Result {
        match e {
            kmod::KmodError::OutOfMemory => vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            kmod::KmodError::Timeout => vk::Result::TIMEOUT,
            other => self.mark_lost(&other.to_string()),
        }
    }

    /// The Vulkan code for a job-emission error: GPU memory for
    /// descriptors could not be had → OUT_OF_DEVICE_MEMORY; a request the
    /// descriptors cannot encode → VK_ERROR_UNKNOWN with the reason logged
    /// (never a lost device: the GPU has not seen it); other kernel errors
    /// as [`DeviceCore::kmod_error`].
    pub fn jm_error(&self, e: crate::jm::JmError) -> vk::Result {
        use crate::jm::JmError;
        match e {
            JmError::OutOfMemory => vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            JmError::Kernel(k) => self.kmod_error(k),
            JmError::Encoding(why) => {
                log::error!("cannot encode: {why}");
                vk::Result::ERROR_UNKNOWN
            }
        }
    }

    /// DEVICE_LOST if the syncobj's fence carries a job-fault error.
    pub fn check_syncobj(&self, syncobj: kmod::SyncobjHandle) -> VkResult<()> {
        match self.kdev.kernel().syncobj_fence_error(syncobj) {
            Ok(None) => self.check_lost(),
            Ok(Some(err)) => {
                Err(self.mark_lost(&format!("a job chain faulted (fence error {err})")))
            }
            Err(e) => Err(self.kmod_error(e)),
        }
    }
}

pub struct Device {
    pub core: Arc<DeviceCore>,
    pub queue: RawHandle,
    /// Size of the one memory heap.
    pub heap_size: u64,
}

impl Object for Device {
    const TAG: u64 = 0x6276_6b5f_6465_7669; // "bvk_devi"
}

impl Device {
    pub fn new(
        pd: &PhysicalDevice,
        extensions: &[&std::ffi::CStr],
        queues: &[vk::DeviceQueueCreateInfo<'_>],
        features: Option<&vk::PhysicalDeviceFeatures>,
    ) -> VkResult<Device> {
        super::instance::check_extensions(extensions, DEVICE_EXTENSIONS)?;
        if let Some(f) = features {
            // A VK_TRUE where the device reports VK_FALSE asks for too much.
            let supported = pd.features();
            let have: &[vk::Bool32] = bytemuck_features(&supported);
            let words: &[vk::Bool32] = bytemuck_features(f);
            if words
                .iter()
                .zip(have)
                .any(|(&w, &h)| w != vk::FALSE && h == vk::FALSE)
            {
                return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
            }
        }
        for q in queues {
            // Unknown extension structures in each queue info are skipped.
            if q.queue_family_index != 0 || q.queue_count != 1 {
                log::warn!(
                    "vkCreateDevice: family {} count {} not available",
                    q.queue_family_index,
                    q.queue_count
                );
                return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
            }
        }
        let kdev = Arc::new(pd.source.open().map_err(|e| {
            log::error!("cannot open the GPU: {e}");
            vk::Result::ERROR_INITIALIZATION_FAILED
        })?);
        let core = Arc::new(DeviceCore {
            kdev,
            lost: AtomicBool::new(false),
            timestamps: pd.timestamps_supported(),
            arch: pd.arch,
            product_id: pd.product_id,
            pipeline_cache_uuid: super::physical_device::pipeline_cache_uuid(pd.product_id),
            kernels: super::kernels::DeviceKernels::default(),
            enabled: Enabled {
                transform_feedback: extensions
                    .iter()
                    .any(|e| e.to_bytes() == b"VK_EXT_transform_feedback"),
                primitives_generated_query: extensions
                    .iter()
                    .any(|e| e.to_bytes() == b"VK_EXT_primitives_generated_query"),
                robust_buffer_access: features.is_some_and(|f| f.robust_buffer_access != 0),
            },
            host_events: Default::default(),
        });
        let queue = Queue::new(core.clone())?;
        Ok(Device {
            core,
            queue: RawHandle(handle::new_dispatchable(queue)),
            heap_size: pd.heap_size,
        })
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: created in `new`, freed only here.
        drop(unsafe { handle::free_dispatchable::<Queue>(self.queue.0) });
    }
}

/// VkPhysicalDeviceFeatures is 55 VkBool32s in a row.
fn bytemuck_features(f: &vk::PhysicalDeviceFeatures) -> &[vk::Bool32] {
    const N: usize = std::mem::size_of::<vk::PhysicalDeviceFeatures>() / 4;
    // SAFETY: the struct is repr(C) and consists only of VkBool32 fields.
    unsafe { std::slice::from_raw_parts((f as *const vk::PhysicalDeviceFeatures).cast(), N) }
}
