//! Loader ABI items that ash does not carry (from vk_icd.h).

/// Written into the first word of every dispatchable object; the loader
/// checks `(word0 & 0xffffffff) == ICD_LOADER_MAGIC` and then overwrites it
/// with its dispatch table pointer. The objects stamp it themselves
/// (`vk::handle`), so the constant lives there.
pub use crate::vk::handle::ICD_LOADER_MAGIC;

/// Newest loader–ICD interface version we speak (vk_icd.h of loader
/// 1.3.239: `CURRENT_LOADER_ICD_INTERFACE_VERSION` 7).
pub const LOADER_ICD_INTERFACE_VERSION: u32 = 7;

/// Oldest version we accept: 5 is the first where the loader may pass
/// any API version to vkCreateInstance, and where vk_icdGetPhysicalDeviceProcAddr exists.
pub const MIN_LOADER_ICD_INTERFACE_VERSION: u32 = 5;
