//! Global and instance commands.

use std::ffi::c_char;

use ash::vk::{self, Handle};

use super::{c_names, enumerate, extension_properties, input, out};
use crate::vk::handle;
use crate::vk::instance::{API_VERSION, INSTANCE_EXTENSIONS, Instance};

crate::vk_entry_points! {
    fn vkCreateInstance(
        p_create_info: *const vk::InstanceCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_instance: *mut vk::Instance,
    ) -> vk::Result {
        crate::util::init_logging();
        let info = input(p_create_info)?;
        // The loader adds its own structures to pNext: skip what we do not know.
        crate::icd::chain::log_unknown("vkCreateInstance", info.p_next, &[]);
        let requested = input(info.p_application_info)
            .map(|a| a.api_version)
            .unwrap_or(API_VERSION);
        let exts = c_names(info.pp_enabled_extension_names, info.enabled_extension_count);
        let instance = Instance::new(&exts, requested)?;
        let raw = handle::new_dispatchable(instance);
        out(p_instance, vk::Instance::from_raw(raw as u64))
    }

    fn vkDestroyInstance(instance: vk::Instance, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_dispatchable::<Instance>(instance.as_raw() as *mut u8));
    }

    fn vkEnumerateInstanceExtensionProperties(
        p_layer_name: *const c_char,
        p_property_count: *mut u32,
        p_properties: *mut vk::ExtensionProperties,
    ) -> vk::Result {
        if !p_layer_name.is_null() {
            return Err(vk::Result::ERROR_LAYER_NOT_PRESENT);
        }
        enumerate(&extension_properties(INSTANCE_EXTENSIONS), p_property_count, p_properties)
    }

    fn vkEnumerateInstanceLayerProperties(
        p_property_count: *mut u32,
        p_properties: *mut vk::LayerProperties,
    ) -> vk::Result {
        enumerate::<vk::LayerProperties>(&[], p_property_count, p_properties)
    }

    fn vkEnumeratePhysicalDevices(
        instance: vk::Instance,
        p_physical_device_count: *mut u32,
        p_physical_devices: *mut vk::PhysicalDevice,
    ) -> vk::Result {
        let instance = handle::dispatchable::<Instance>(instance.as_raw() as *mut u8)?;
        let list: Vec<vk::PhysicalDevice> = instance
            .physical_devices
            .iter()
            .map(|p| vk::PhysicalDevice::from_raw(p.0 as u64))
            .collect();
        enumerate(&list, p_physical_device_count, p_physical_devices)
    }
}
