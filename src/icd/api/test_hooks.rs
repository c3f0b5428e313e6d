//! Hidden test-only entry points, resolvable through vkGetDeviceProcAddr
//! only when `BIFROST_VK_TEST_HOOKS=1` (docs/DEBUGGING.md). They exist so
//! loader-level tests can check what the API cannot show: the panic guard,
//! that no BO leaks, and pipeline-cache hits.

use ash::vk;

use ash::vk::Handle;

use super::device::device;
use super::out;
use crate::vk::cmd::CommandBuffer;
use crate::vk::handle;
use crate::vk::pipeline_cache::PipelineCache;

/// `vkBifrostTestPanic(VkDevice) -> VkResult`: panics inside the shim.
pub type PfnTestPanic = unsafe extern "system" fn(vk::Device) -> vk::Result;
/// `vkBifrostTestBoStats(VkDevice, uint64_t *count, uint64_t *bytes) -> VkResult`.
pub type PfnTestBoStats = unsafe extern "system" fn(vk::Device, *mut u64, *mut u64) -> vk::Result;
/// `vkBifrostTestRecordFault(VkCommandBuffer) -> VkResult`: records a
/// WRITE_VALUE job aimed at unmapped GPU memory, so the chain faults on the GPU.
pub type PfnTestRecordFault = unsafe extern "system" fn(vk::CommandBuffer) -> vk::Result;

/// `vkBifrostTestPipelineCacheStats(VkDevice, VkPipelineCache, uint64_t
/// *hits, uint64_t *misses, uint64_t *entries) -> VkResult`: the cache's
/// lookup counters and entry count.
pub type PfnTestPipelineCacheStats = unsafe extern "system" fn(
    vk::Device,
    vk::PipelineCache,
    *mut u64,
    *mut u64,
    *mut u64,
) -> vk::Result;

/// A GPU address no BO is ever mapped at (below the 32 MiB VA floor).
pub const UNMAPPED_VA: u64 = 0x10_0000;

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

    fn vkBifrostTestPipelineCacheStats(
        device: vk::Device,
        cache: vk::PipelineCache,
        p_hits: *mut u64,
        p_misses: *mut u64,
        p_entries: *mut u64,
    ) -> vk::Result {
        self::device(device)?;
        let c = handle::handle::<PipelineCache>(cache.as_raw())?;
        let (hits, misses, entries) = c.stats();
        out(p_hits, hits)?;
        out(p_misses, misses)?;
        out(p_entries, entries)
    }

    fn vkBifrostTestRecordFault(command_buffer: vk::CommandBuffer) -> vk::Result {
        let cb = handle::dispatchable::<CommandBuffer>(command_buffer.as_raw() as *mut u8)?;
        cb.state.lock().unwrap().record_raw_write_value(UNMAPPED_VA, 0xdead);
        Ok(())
    }
}
