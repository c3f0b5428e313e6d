//! Hidden test-only entry points, resolvable through vkGetDeviceProcAddr
//! only when `BIFROST_VK_TEST_HOOKS=1` (docs/DEBUGGING.md). They exist so
//! loader-level tests can check what the API cannot show: the panic guard,
//! and that no BO leaks.

use ash::vk;

use super::device::device;
use super::out;

/// `vkBifrostTestPanic(VkDevice) -> VkResult`: panics inside the shim.
pub type PfnTestPanic = unsafe extern "system" fn(vk::Device) -> vk::Result;
/// `vkBifrostTestBoStats(VkDevice, uint64_t *count, uint64_t *bytes) -> VkResult`.
pub type PfnTestBoStats = unsafe extern "system" fn(vk::Device, *mut u64, *mut u64) -> vk::Result;

crate::vk_entry_points! {
    fn vkBifrostTestPanic(device: vk::Device) -> vk::Result {
        self::device(device)?;
        panic!("vkBifrostTestPanic: deliberate panic for the panic-guard test");
    }

    fn vkBifrostTestBoStats(device: vk::Device, p_count: *mut u64, p_bytes: *mut u64) -> vk::Result {
        let d = self::device(device)?;
        let stats = d.core.kdev.kernel().bo_stats();
        out(p_count, stats.count)?;
        out(p_bytes, stats.bytes)
    }
}
