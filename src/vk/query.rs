//! VkQueryPool of type TIMESTAMP: one BO with a (value, available) pair of
//! u64 per query, written by WRITE_VALUE jobs on the GPU (vk::cmd) and read
//! here by vkGetQueryPoolResults.

use std::sync::Arc;

use ash::vk;

use super::device::DeviceCore;
use crate::kmod::{BO_NOEXEC, Bo};
use crate::vk::VkResult;
use crate::vk::handle::Object;

/// Bytes per query in the pool's BO: value then availability.
pub const SLOT_SIZE: u64 = 16;

pub struct QueryPool {
    core: Arc<DeviceCore>,
    bo: Option<Bo>,
    pub count: u32,
    /// The queue's syncobj, to notice a fault while waiting.
    queue_syncobj: crate::kmod::SyncobjHandle,
}

impl Object for QueryPool {
    const TAG: u64 = 0x6276_6b5f_7175_6572; // "bvk_quer"
}

impl QueryPool {
    pub fn new(
        core: &Arc<DeviceCore>,
        info: &vk::QueryPoolCreateInfo<'_>,
        queue_syncobj: u32,
    ) -> VkResult<QueryPool> {
        if info.query_type != vk::QueryType::TIMESTAMP || !core.timestamps {
            log::warn!(
                "vkCreateQueryPool: {:?} queries are not supported",
                info.query_type
            );
            return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
        }
        if info.query_count == 0 {
            return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        }
        let bo = core
            .kdev
            .bo_create(u64::from(info.query_count) * SLOT_SIZE, BO_NOEXEC)
            .map_err(|e| core.kmod_error(e))?;
        Ok(QueryPool {
            core: core.clone(),
            bo: Some(bo),
            count: info.query_count,
            queue_syncobj,
        })
    }

    fn bo(&self) -> &Bo {
        self.bo.as_ref().expect("query pool has a BO until dropped")
    }

    pub fn bo_handle(&self) -> crate::kmod::BoHandle {
        self.bo().handle()
    }

    pub fn value_va(&self, query: u32) -> u64 {
        self.bo().gpu_va() + u64::from(query) * SLOT_SIZE
    }

    pub fn available_va(&self, query: u32) -> u64 {
        self.value_va(query) + 8
    }

    fn read(&self, query: u32) -> (u64, bool) {
        let off = u64::from(query) * SLOT_SIZE;
        let available = self.bo().read_u64(off + 8) != 0;
        // Read the value after seeing it available.
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        (self.bo().read_u64(off), available)
    }

    /// vkGetQueryPoolResults.
    pub fn results(
        &self,
        first: u32,
        count: u32,
        data: &mut [u8],
        stride: u64,
        flags: vk::QueryResultFlags,
    ) -> VkResult<()> {
        if first.checked_add(count).is_none_or(|e| e > self.count) {
            return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        }
        let wide = flags.contains(vk::QueryResultFlags::TYPE_64);
        let with_availability = flags.contains(vk::QueryResultFlags::WITH_AVAILABILITY);
        let elem = if wide { 8 } else { 4 };
        let mut not_ready = false;
        for i in 0..count {
            let q = first + i;
            let (mut value, mut available) = self.read(q);
            if flags.contains(vk::QueryResultFlags::WAIT) {
                let mut spins = 0u32;
                while !available {
                    self.core.check_lost()?;
                    self.core.check_syncobj(self.queue_syncobj)?;
                    spins += 1;
                    if spins < 64 {
                        std::thread::yield_now();
                    } else {
                        std::thread::sleep(std::time::Duration::from_micros(50));
                    }
                    (value, available) = self.read(q);
                }
            }
            let base = (u64::from(i) * stride) as usize;
            let mut put = |slot: usize, v: u64| {
                let at = base + slot * elem;
                if let Some(dst) = data.get_mut(at..at + elem) {
                    if wide {
                        dst.copy_from_slice(&v.to_le_bytes());
                    } else {
                        dst.copy_from_slice(&(v as u32).to_le_bytes());
                    }
                }
            };
            if available {
                put(0, value);
            } else {
                // Timestamps have no partial results: leave the value alone.
                not_ready = true;
            }
            if with_availability {
                put(1, u64::from(available));
            }
        }
        self.core.check_lost()?;
        if not_ready {
            Err(vk::Result::NOT_READY)
        } else {
            Ok(())
        }
    }
}

impl Drop for QueryPool {
    fn drop(&mut self) {
        if let Some(bo) = self.bo.take() {
            self.core.kdev.bo_destroy(bo);
        }
    }
}
