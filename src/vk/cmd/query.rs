//! Query commands: timestamps, resets and transform-feedback stream
//! queries.
//!
//! Each waits for everything recorded before it (a job barrier): a
//! timestamp is taken when all previous commands are done, and a reset must
//! not overtake an earlier write to the same query.
//!
//! `VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT` (Vulkan spec, "Transform
//! Feedback Queries": the primitives written to the transform feedback
//! buffers and the primitives that would have been written with unlimited
//! room, counted by draws while transform feedback is active):
//! - Begin: after a barrier, two WRITE_VALUE ZERO jobs clear the query's
//!   (written, needed) pair, so a command buffer submitted again starts
//!   from zero.
//! - each XFB draw while the query is active: the draw's `xfb_advance`
//!   kernel gets the pair's address (its QUERY push word) and adds the
//!   draw's written and needed primitives on the GPU
//!   (`compiler::kernels::xfb`); it depends on the zeroing job. Draws
//!   outside transform feedback record no advance and so count nothing.
//! - End: after a barrier (every advance done), a WRITE_VALUE of 1 to the
//!   availability word.
//!
//! Only stream 0 exists (`maxTransformFeedbackStreams` = 1): a Begin or End
//! of another index is invalid usage, logged and ignored.

use super::recording::Recording;
use crate::hw::job::write_value;
use crate::vk::query::QueryPool;
use ash::vk;

/// A transform-feedback stream query between Begin and End.
#[derive(Clone, Copy, Debug)]
pub struct ActiveXfbQuery {
    /// GPU VA of its (written, needed) u64 pair.
    pub results: u64,
    /// The job that zeroed the pair (advance kernels depend on it).
    pub zeroed: u16,
}

impl Recording {
    /// vkCmdWriteTimestamp: a SYSTEM_TIMESTAMP write, then the availability word.
    pub fn write_timestamp(&mut self, qp: &QueryPool, query: u32) {
        if query >= qp.count {
            return;
        }
        self.record(|r| {
            r.rec.use_bo(qp.bo_handle());
            r.rec.barrier();
            let i =
                r.rec
                    .write_value(qp.value_va(query), write_value::SYSTEM_TIMESTAMP, 0, [0, 0])?;
            r.rec
                .write_value(qp.available_va(query), write_value::IMMEDIATE_64, 1, [i, 0])?;
            r.uses_timestamps = true;
            Ok(())
        });
    }

    /// A WRITE_VALUE of a 32-bit immediate to any GPU address (test hook only:
    /// lets tests make a chain fault on the GPU).
    pub fn record_raw_write_value(&mut self, address: u64, value: u32) {
        self.record(|r| {
            r.rec.barrier();
            r.rec
                .write_value(address, write_value::IMMEDIATE_32, u64::from(value), [0, 0])?;
            Ok(())
        });
    }

    /// vkCmdBeginQuery / vkCmdBeginQueryIndexedEXT (`index` 0 for the core
    /// command).
    pub fn begin_query(&mut self, qp: &QueryPool, query: u32, index: u32) {
        if query >= qp.count {
            log::warn!("vkCmdBeginQuery: query {query} out of range (invalid usage)");
            return;
        }
        if qp.query_type != vk::QueryType::TRANSFORM_FEEDBACK_STREAM_EXT {
            log::warn!(
                "vkCmdBeginQuery: {:?} queries cannot be begun (invalid usage)",
                qp.query_type
            );
            return;
        }
        if index != 0 {
            log::warn!(
                "vkCmdBeginQueryIndexedEXT: stream {index} does not exist (maxTransformFeedbackStreams = 1; invalid usage), ignored"
            );
            return;
        }
        self.record(|r| {
            if r.xfb.query.is_some() {
                log::warn!(
                    "vkCmdBeginQuery: a transform feedback stream query is already active (invalid usage)"
                );
                return Ok(());
            }
            r.rec.use_bo(qp.bo_handle());
            r.rec.barrier();
            let va = qp.value_va(query);
            let written = r.rec.write_value(va, write_value::ZERO, 0, [0, 0])?;
            let zeroed = r
                .rec
                .write_value(va + 8, write_value::ZERO, 0, [written, 0])?;
            r.xfb.query = Some(ActiveXfbQuery {
                results: va,
                zeroed,
            });
            Ok(())
        });
    }

    /// vkCmdEndQuery / vkCmdEndQueryIndexedEXT.
    pub fn end_query(&mut self, qp: &QueryPool, query: u32, index: u32) {
        if query >= qp.count || qp.query_type != vk::QueryType::TRANSFORM_FEEDBACK_STREAM_EXT {
            log::warn!("vkCmdEndQuery: not an active query (invalid usage)");
            return;
        }
        if index != 0 {
            log::warn!(
                "vkCmdEndQueryIndexedEXT: stream {index} does not exist (invalid usage), ignored"
            );
            return;
        }
        self.record(|r| {
            match r.xfb.query {
                Some(a) if a.results == qp.value_va(query) => {}
                _ => {
                    log::warn!("vkCmdEndQuery: query {query} is not active (invalid usage)");
                    return Ok(());
                }
            }
            r.xfb.query = None;
            // Every advance that adds to the pair is done before the
            // availability word says so.
            r.rec.barrier();
            r.rec
                .write_value(qp.available_va(query), write_value::IMMEDIATE_64, 1, [0, 0])?;
            Ok(())
        });
    }

    /// vkCmdResetQueryPool: zero the results and the availability words.
    pub fn reset_queries(&mut self, qp: &QueryPool, first: u32, count: u32) {
        if first.checked_add(count).is_none_or(|e| e > qp.count) {
            return;
        }
        self.record(|r| {
            r.rec.use_bo(qp.bo_handle());
            r.rec.barrier();
            let mut last = 0;
            for q in first..first + count {
                for k in 0..u64::from(qp.values) {
                    last = r.rec.write_value(
                        qp.value_va(q) + 8 * k,
                        write_value::ZERO,
                        0,
                        [last, 0],
                    )?;
                }
                last = r
                    .rec
                    .write_value(qp.available_va(q), write_value::ZERO, 0, [last, 0])?;
            }
            Ok(())
        });
    }
}
