//! VkQueryPool: one BO with a slot per query, written on the GPU (vk::cmd:
//! WRITE_VALUE jobs and the XFB advance kernel) and read here by
//! vkGetQueryPoolResults. The slot layout is the one
//! `compiler::kernels::query` documents: `values` u64 results, then a u64
//! availability word (non-zero: available).
//!
//! - TIMESTAMP: (value, available).
//! - TRANSFORM_FEEDBACK_STREAM_EXT (VK_EXT_transform_feedback,
//!   `transformFeedbackQueries`): (primitives written, primitives needed,
//!   available), the two results in the order the Vulkan spec gives them
//!   ("Transform Feedback Queries").
//! - PRIMITIVES_GENERATED_EXT (VK_EXT_primitives_generated_query): a
//!   hidden u64 first (the "written" word the XFB advance kernel adds to,
//!   meaningless here), then (primitives generated, available): the
//!   reported slot starts at the second word, so `value_va` and the copy
//!   kernel see (value, available) with a slot stride of 24 bytes.

use std::sync::Arc;

use ash::vk;

use super::device::DeviceCore;
use crate::kmod::{BO_NOEXEC, Bo};
use crate::vk::VkResult;
use crate::vk::handle::Object;

pub struct QueryPool {
    core: Arc<DeviceCore>,
    bo: Option<Bo>,
    pub count: u32,
    pub query_type: vk::QueryType,
    /// u64 results per query before the availability word.
    pub values: u32,
    /// Hidden u64 words before the results (module docs).
    lead: u32,
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
        let values = match info.query_type {
            vk::QueryType::TIMESTAMP if core.timestamps => 1,
            // Valid only with VK_EXT_transform_feedback enabled (the type
            // belongs to it).
            vk::QueryType::TRANSFORM_FEEDBACK_STREAM_EXT if core.enabled.transform_feedback => 2,
            vk::QueryType::PRIMITIVES_GENERATED_EXT if core.enabled.primitives_generated_query => 1,
            other => {
                log::warn!("vkCreateQueryPool: {other:?} queries are not supported");
                return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
            }
        };
        if info.query_count == 0 {
            return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        }
        let lead = u32::from(info.query_type == vk::QueryType::PRIMITIVES_GENERATED_EXT);
        let bo = core
            .kdev
            .bo_create(
                u64::from(info.query_count) * 8 * u64::from(lead + values + 1),
                BO_NOEXEC,
            )
            .map_err(|e| core.kmod_error(e))?;
        Ok(QueryPool {
            core: core.clone(),
            bo: Some(bo),
            count: info.query_count,
            query_type: info.query_type,
            values,
            lead,
            queue_syncobj,
        })
    }

    fn bo(&self) -> &Bo {
        self.bo.as_ref().expect("query pool has a BO until dropped")
    }

    pub fn bo_handle(&self) -> crate::kmod::BoHandle {
        self.bo().handle()
    }

    /// Bytes per query: hidden words, the results, then the availability
    /// word.
    pub fn slot_size(&self) -> u64 {
        8 * u64::from(self.lead + self.values + 1)
    }

    /// GPU VA of the query's slot (hidden words first).
    pub fn slot_va(&self, query: u32) -> u64 {
        self.bo().gpu_va() + u64::from(query) * self.slot_size()
    }

    /// u64 words of a slot before its availability word.
    pub fn words_before_availability(&self) -> u32 {
        self.lead + self.values
    }

    /// GPU VA of the query's first result.
    pub fn value_va(&self, query: u32) -> u64 {
        self.slot_va(query) + 8 * u64::from(self.lead)
    }

    pub fn available_va(&self, query: u32) -> u64 {
        self.value_va(query) + 8 * u64::from(self.values)
    }

    /// The query's results (first `values` of the array) and availability.
    fn read(&self, query: u32) -> ([u64; 2], bool) {
        let off = u64::from(query) * self.slot_size() + 8 * u64::from(self.lead);
        let available = self.bo().read_u64(off + 8 * u64::from(self.values)) != 0;
        // Read the values after seeing them available.
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        let mut v = [0; 2];
        for (k, v) in v.iter_mut().enumerate().take(self.values as usize) {
            *v = self.bo().read_u64(off + 8 * k as u64);
        }
        (v, available)
    }

    /// vkResetQueryPool (VK_EXT_host_query_reset): the slots of queries
    /// `first..first + count` go back to zero, availability included, as
    /// vkCmdResetQueryPool leaves them on the GPU. A range outside the pool
    /// is ignored and logged (the command returns nothing).
    pub fn host_reset(&self, first: u32, count: u32) {
        if first.checked_add(count).is_none_or(|e| e > self.count) {
            log::warn!(
                "vkResetQueryPool: queries {first}..+{count} outside a pool of {}",
                self.count
            );
            return;
        }
        let start = u64::from(first) * self.slot_size();
        let zeros = vec![0u8; (u64::from(count) * self.slot_size()) as usize];
        // Results before availability: a reader never sees a slot
        // available with a stale value.
        self.bo().write(start, &zeros);
        std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
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
            // Unavailable: the results are written only with PARTIAL (the
            // values accumulated so far lie between zero and the final
            // result, as the spec asks; timestamps may not use PARTIAL).
            if available || flags.contains(vk::QueryResultFlags::PARTIAL) {
                for (k, &v) in value.iter().enumerate().take(self.values as usize) {
                    put(k, v);
                }
            }
            if !available {
                not_ready = true;
            }
            if with_availability {
                put(self.values as usize, u64::from(available));
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
