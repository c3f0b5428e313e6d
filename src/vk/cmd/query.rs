//! Query commands: timestamps and resets as WRITE_VALUE jobs.
//!
//! Each waits for everything recorded before it (a job barrier): a
//! timestamp is taken when all previous commands are done, and a reset must
//! not overtake an earlier write to the same query.

use super::recording::Recording;
use crate::hw::job::write_value;
use crate::vk::query::QueryPool;

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

    /// vkCmdResetQueryPool: zero the availability words.
    pub fn reset_queries(&mut self, qp: &QueryPool, first: u32, count: u32) {
        if first.checked_add(count).is_none_or(|e| e > qp.count) {
            return;
        }
        self.record(|r| {
            r.rec.use_bo(qp.bo_handle());
            r.rec.barrier();
            let mut last = 0;
            for q in first..first + count {
                last = r
                    .rec
                    .write_value(qp.available_va(q), write_value::ZERO, 0, [last, 0])?;
            }
            Ok(())
        });
    }
}
