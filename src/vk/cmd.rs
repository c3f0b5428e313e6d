//! VkCommandPool and VkCommandBuffer: recording writes job chains into the
//! command buffer's own GPU memory pool (jm). Recording errors are kept and
//! reported by vkEndCommandBuffer, as the spec asks.

use std::sync::{Arc, Mutex};

use ash::vk;

use super::RawHandle;
use super::device::DeviceCore;
use super::query::QueryPool;
use crate::hw::job::write_value;
use crate::icd::entry::VkResult;
use crate::icd::handle::{self, Object};
use crate::jm::{GpuPool, JobChain};

pub struct CommandPool {
    pub core: Arc<DeviceCore>,
    pub buffers: Mutex<Vec<RawHandle>>,
}

impl Object for CommandPool {
    const TAG: u64 = 0x6276_6b5f_6370_6f6f; // "bvk_cpoo"
}

impl CommandPool {
    pub fn new(
        core: &Arc<DeviceCore>,
        info: &vk::CommandPoolCreateInfo<'_>,
    ) -> VkResult<CommandPool> {
        if info.queue_family_index != 0 {
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        Ok(CommandPool {
            core: core.clone(),
            buffers: Mutex::new(Vec::new()),
        })
    }

    pub fn allocate(&self, pool_handle: u64) -> RawHandle {
        let cb = CommandBuffer {
            pool: pool_handle,
            state: Mutex::new(Recording::new(&self.core)),
        };
        let raw = RawHandle(handle::new_dispatchable(cb));
        self.buffers.lock().unwrap().push(raw);
        raw
    }

    /// Free one command buffer of this pool.
    pub fn free(&self, raw: RawHandle) {
        let mut list = self.buffers.lock().unwrap();
        if let Some(i) = list.iter().position(|&b| b == raw) {
            list.swap_remove(i);
            // SAFETY: allocated by `allocate`, now removed from the pool's list.
            drop(unsafe { handle::free_dispatchable::<CommandBuffer>(raw.0) });
        }
    }

    pub fn reset(&self) {
        for &raw in self.buffers.lock().unwrap().iter() {
            // SAFETY: live command buffers of this pool.
            if let Ok(cb) = unsafe { handle::dispatchable::<CommandBuffer>(raw.0) } {
                cb.state.lock().unwrap().reset();
            }
        }
    }
}

impl Drop for CommandPool {
    fn drop(&mut self) {
        for raw in self.buffers.get_mut().unwrap().drain(..) {
            // SAFETY: allocated by `allocate`, freed only here or in `free`.
            drop(unsafe { handle::free_dispatchable::<CommandBuffer>(raw.0) });
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Initial,
    Recording,
    Executable,
}

/// Everything a command buffer has recorded.
pub struct Recording {
    pub pool: GpuPool,
    pub chain: JobChain,
    pub status: Status,
    pub uses_timestamps: bool,
    pub error: Option<vk::Result>,
}

impl Recording {
    fn new(core: &Arc<DeviceCore>) -> Recording {
        Recording {
            pool: GpuPool::new(core.kdev.clone()),
            chain: JobChain::new(),
            status: Status::Initial,
            uses_timestamps: false,
            error: None,
        }
    }

    pub fn reset(&mut self) {
        self.pool.reset();
        self.chain.clear();
        self.status = Status::Initial;
        self.uses_timestamps = false;
        self.error = None;
    }

    /// The chain to submit (None when nothing was recorded), with the
    /// GPU-written status words cleared.
    pub fn executable_chain(&self) -> VkResult<Option<u64>> {
        if self.status != Status::Executable {
            log::warn!("vkQueueSubmit: command buffer is not executable (invalid usage)");
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        if self.chain.is_empty() {
            return Ok(None);
        }
        self.chain.reset_status();
        Ok(Some(self.chain.head()))
    }

    fn record(&mut self, f: impl FnOnce(&mut Recording) -> crate::kmod::KmodResult<()>) {
        if self.status != Status::Recording || self.error.is_some() {
            return;
        }
        if let Err(e) = f(self) {
            log::warn!("recording failed: {e}");
            self.error = Some(crate::vk::kmod_error(e));
        }
    }

    /// Every job depends on the one before it: commands execute in order.
    fn previous(&self) -> [u16; 2] {
        [self.chain.last_index(), 0]
    }

    /// vkCmdWriteTimestamp: a SYSTEM_TIMESTAMP write, then the availability word.
    pub fn write_timestamp(&mut self, qp: &QueryPool, query: u32) {
        if query >= qp.count {
            return;
        }
        self.record(|r| {
            let deps = r.previous();
            let i = r.chain.add_write_value(
                &mut r.pool,
                qp.value_va(query),
                write_value::SYSTEM_TIMESTAMP,
                0,
                deps,
            )?;
            r.chain.add_write_value(
                &mut r.pool,
                qp.available_va(query),
                write_value::IMMEDIATE_64,
                1,
                [i, 0],
            )?;
            r.uses_timestamps = true;
            Ok(())
        });
    }

    /// A WRITE_VALUE of a 32-bit immediate to any GPU address (test hook only:
    /// lets tests make a chain fault on the GPU).
    pub fn record_raw_write_value(&mut self, address: u64, value: u32) {
        self.record(|r| {
            let deps = r.previous();
            r.chain.add_write_value(
                &mut r.pool,
                address,
                write_value::IMMEDIATE_32,
                u64::from(value),
                deps,
            )?;
            Ok(())
        });
    }

    /// vkCmdResetQueryPool: zero the availability words.
    pub fn reset_queries(&mut self, qp: &QueryPool, first: u32, count: u32) {
        if first.checked_add(count).is_none_or(|e| e > qp.count) {
            return;
        }
        self.record(|r| {
            for q in first..first + count {
                let deps = r.previous();
                r.chain.add_write_value(
                    &mut r.pool,
                    qp.available_va(q),
                    write_value::ZERO,
                    0,
                    deps,
                )?;
            }
            Ok(())
        });
    }
}

pub struct CommandBuffer {
    /// The VkCommandPool it came from.
    pub pool: u64,
    pub state: Mutex<Recording>,
}

impl Object for CommandBuffer {
    const TAG: u64 = 0x6276_6b5f_636d_6462; // "bvk_cmdb"
}

impl CommandBuffer {
    pub fn begin(&self) -> VkResult<()> {
        let mut r = self.state.lock().unwrap();
        // Begin implicitly resets (our pools always allow it).
        r.reset();
        r.status = Status::Recording;
        Ok(())
    }

    pub fn end(&self) -> VkResult<()> {
        let mut r = self.state.lock().unwrap();
        if r.status != Status::Recording {
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        if let Some(e) = r.error {
            return Err(e);
        }
        r.status = Status::Executable;
        Ok(())
    }

    pub fn reset(&self) {
        self.state.lock().unwrap().reset();
    }
}
