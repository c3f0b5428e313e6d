//! The symbols the library exports: the loader–ICD interface (`vk_icd*`)
//! and `vkGetInstanceProcAddr`, so the library can also be loaded directly
//! without a loader (e.g. ash's `Entry::load_from`).

use std::ffi::{CStr, c_char};

use ash::vk;

use super::abi::{LOADER_ICD_INTERFACE_VERSION, MIN_LOADER_ICD_INTERFACE_VERSION};
use super::dispatch::{Scope, lookup, lookup_test_hook};
use crate::procedure;

/// Pointer types of the `vk_icd*` functions (vk_icd.h).
pub type PfnNegotiate = unsafe extern "system" fn(*mut u32) -> vk::Result;
pub type PfnIcdGetProcAddr =
    unsafe extern "system" fn(vk::Instance, *const c_char) -> vk::PFN_vkVoidFunction;

/// The name as bytes, or None for a null pointer.
///
/// # Safety
/// `p_name` is null or a NUL-terminated string.
unsafe fn name<'a>(p_name: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: per the contract.
    (!p_name.is_null()).then(|| unsafe { CStr::from_ptr(p_name) }.to_bytes())
}

/// The `vk_icd*` functions themselves (interface v7: also queryable by name).
fn icd_function(name: &[u8]) -> vk::PFN_vkVoidFunction {
    match name {
        b"vk_icdNegotiateLoaderICDInterfaceVersion" => {
            procedure!(vk_icdNegotiateLoaderICDInterfaceVersion, PfnNegotiate)
        }
        b"vk_icdGetInstanceProcAddr" => procedure!(vk_icdGetInstanceProcAddr, PfnIcdGetProcAddr),
        b"vk_icdGetPhysicalDeviceProcAddr" => {
            procedure!(vk_icdGetPhysicalDeviceProcAddr, PfnIcdGetProcAddr)
        }
        _ => None,
    }
}

crate::vk_entry_points! {
    /// Agree on the loader–ICD interface version (we speak up to 7).
    #[unsafe(no_mangle)]
    fn vk_icdNegotiateLoaderICDInterfaceVersion(p_supported_version: *mut u32) -> vk::Result {
        crate::util::init_logging();
        let Some(v) = p_supported_version.as_mut() else {
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        };
        if *v < MIN_LOADER_ICD_INTERFACE_VERSION {
            log::warn!("loader interface version {} is too old", *v);
            return Err(vk::Result::ERROR_INCOMPATIBLE_DRIVER);
        }
        *v = (*v).min(LOADER_ICD_INTERFACE_VERSION);
        log::debug!("loader interface version {}", *v);
        Ok(())
    }

    /// The loader's entry into the ICD.
    #[unsafe(no_mangle)]
    fn vk_icdGetInstanceProcAddr(instance: vk::Instance, p_name: *const c_char) -> vk::PFN_vkVoidFunction {
        vkGetInstanceProcAddr(instance, p_name)
    }

    /// Physical-device commands the loader does not know by name.
    #[unsafe(no_mangle)]
    fn vk_icdGetPhysicalDeviceProcAddr(_instance: vk::Instance, p_name: *const c_char) -> vk::PFN_vkVoidFunction {
        let name = name(p_name)?;
        lookup(name, |s| s == Scope::PhysicalDevice)
    }

    /// vkGetInstanceProcAddr, exported for direct loading.
    #[unsafe(no_mangle)]
    fn vkGetInstanceProcAddr(instance: vk::Instance, p_name: *const c_char) -> vk::PFN_vkVoidFunction {
        crate::util::init_logging();
        let name = name(p_name)?;
        if let Some(f) = icd_function(name) {
            return Some(f);
        }
        if instance == vk::Instance::null() {
            lookup(name, |s| s == Scope::Global)
        } else {
            lookup(name, |_| true)
        }
    }

    /// Device-level commands only (plus the hidden test hooks when enabled).
    fn vkGetDeviceProcAddr(_device: vk::Device, p_name: *const c_char) -> vk::PFN_vkVoidFunction {
        let name = name(p_name)?;
        lookup(name, |s| s == Scope::Device).or_else(|| lookup_test_hook(name))
    }
}
