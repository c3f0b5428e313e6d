//! Query pool commands (TIMESTAMP, TRANSFORM_FEEDBACK_STREAM_EXT and
//! PRIMITIVES_GENERATED_EXT pools).

use std::ffi::c_void;

use ash::vk::{self, Handle};

use super::device::device;
use super::{input, out};
use crate::vk::handle;
use crate::vk::query::QueryPool;
use crate::vk::queue::Queue;

crate::vk_entry_points! {
    fn vkCreateQueryPool(
        device: vk::Device,
        p_create_info: *const vk::QueryPoolCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_query_pool: *mut vk::QueryPool,
    ) -> vk::Result {
        let d = self::device(device)?;
        let info = input(p_create_info)?;
        crate::icd::chain::log_unknown("vkCreateQueryPool", info.p_next, &[]);
        let q = handle::dispatchable::<Queue>(d.queue.0)?;
        let pool = QueryPool::new(&d.core, info, q.syncobj)?;
        out(p_query_pool, vk::QueryPool::from_raw(handle::new_handle(pool)))
    }

    fn vkDestroyQueryPool(_device: vk::Device, query_pool: vk::QueryPool, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_handle::<QueryPool>(query_pool.as_raw()));
    }

    // VK_EXT_host_query_reset (`hostQueryReset`).
    fn vkResetQueryPoolEXT(_device: vk::Device, query_pool: vk::QueryPool, first_query: u32, query_count: u32) {
        if let Ok(pool) = handle::handle::<QueryPool>(query_pool.as_raw()) {
            pool.host_reset(first_query, query_count);
        }
    }

    fn vkGetQueryPoolResults(
        _device: vk::Device,
        query_pool: vk::QueryPool,
        first_query: u32,
        query_count: u32,
        data_size: usize,
        p_data: *mut c_void,
        stride: vk::DeviceSize,
        flags: vk::QueryResultFlags,
    ) -> vk::Result {
        let pool = handle::handle::<QueryPool>(query_pool.as_raw())?;
        if p_data.is_null() && data_size > 0 {
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        let data: &mut [u8] = if data_size == 0 {
            &mut []
        } else {
            std::slice::from_raw_parts_mut(p_data.cast(), data_size)
        };
        pool.results(first_query, query_count, data, stride, flags)
    }
}
