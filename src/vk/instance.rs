//! VkInstance: extension checks and the physical devices found at creation.

use std::ffi::CStr;

use ash::vk;

use super::RawHandle;
use super::physical_device::PhysicalDevice;
use crate::kmod::{DeviceChoice, DeviceSource};
use crate::vk::VkResult;
use crate::vk::handle::{self, Object};

/// The API version we report: 1.0, the highest whose required commands and
/// features all work (see docs/STATUS.md).
pub const API_VERSION: u32 = vk::make_api_version(0, 1, 0, 0);

/// Instance extensions we implement, with their spec versions.
pub const INSTANCE_EXTENSIONS: &[(&CStr, u32)] =
    &[(vk::KHR_GET_PHYSICAL_DEVICE_PROPERTIES2_NAME, 2)];

pub struct Instance {
    pub physical_devices: Vec<RawHandle>,
}

impl Object for Instance {
    const TAG: u64 = 0x6276_6b5f_696e_7374; // "bvk_inst"
}

/// Err(EXTENSION_NOT_PRESENT) unless every name is in `supported`.
pub fn check_extensions(names: &[&CStr], supported: &[(&CStr, u32)]) -> VkResult<()> {
    for name in names {
        if !supported.iter().any(|(n, _)| n == name) {
            log::warn!("extension {name:?} is not supported");
            return Err(vk::Result::ERROR_EXTENSION_NOT_PRESENT);
        }
    }
    Ok(())
}

impl Instance {
    pub fn new(extensions: &[&CStr], requested_api: u32) -> VkResult<Instance> {
        check_extensions(extensions, INSTANCE_EXTENSIONS)?;
        log::debug!(
            "vkCreateInstance: app asks for API {}.{}",
            vk::api_version_major(requested_api),
            vk::api_version_minor(requested_api)
        );
        let mut physical_devices = Vec::new();
        for source in DeviceSource::probe(DeviceChoice::from_env()) {
            match PhysicalDevice::probe(source) {
                Ok(pd) => physical_devices.push(RawHandle(handle::new_dispatchable(pd))),
                Err(e) => log::warn!("skipping a device: {e}"),
            }
        }
        Ok(Instance { physical_devices })
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        for pd in self.physical_devices.drain(..) {
            // SAFETY: created by new_dispatchable above, freed only here.
            drop(unsafe { handle::free_dispatchable::<PhysicalDevice>(pd.0) });
        }
    }
}
