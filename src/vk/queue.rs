//! VkQueue: submission of recorded job chains through kmod, and idle waits.
//!
//! Every SUBMIT names the queue's syncobj both as an in-sync and as the
//! out-sync, so chains run in order and a faulted chain's error reaches the
//! queue's latest fence. Semaphores and fences receive the queue syncobj's
//! fence after the batch (SYNCOBJ_TRANSFER). A batch with no recorded jobs
//! submits the queue's one-NULL-job chain so that its waits and signals
//! still pass through the GPU in order.

use std::sync::{Arc, Mutex};

use super::cmd::CommandBuffer;
use super::device::DeviceCore;
use crate::hw::job::JobType;
use crate::jm::{GpuPool, JobChain};
use crate::kmod::{self, Submit, SyncobjHandle};
use crate::vk::VkResult;
use crate::vk::handle::Object;

pub struct Queue {
    pub core: Arc<DeviceCore>,
    /// Holds the fence of the latest submission.
    pub syncobj: SyncobjHandle,
    state: Mutex<QueueState>,
}

struct QueueState {
    null_pool: GpuPool,
    null_chain: JobChain,
}

impl Object for Queue {
    const TAG: u64 = 0x6276_6b5f_7175_6575; // "bvk_queu"
}

/// One VkSubmitInfo, resolved.
pub struct Batch<'a> {
    pub waits: Vec<SyncobjHandle>,
    pub command_buffers: Vec<&'a CommandBuffer>,
    pub signals: Vec<SyncobjHandle>,
}

impl Queue {
    pub fn new(core: Arc<DeviceCore>) -> VkResult<Queue> {
        let k = core.kdev.kernel();
        let syncobj = k.syncobj_create(true).map_err(|e| core.kmod_error(e))?;
        let mut null_pool = GpuPool::new(core.kdev.clone());
        let mut null_chain = JobChain::new();
        null_chain
            .add_job(&mut null_pool, JobType::Null, &[], [0, 0], false)
            .map_err(|e| core.jm_error(e))?;
        Ok(Queue {
            core,
            syncobj,
            state: Mutex::new(QueueState {
                null_pool,
                null_chain,
            }),
        })
    }

    fn submit_chain(
        &self,
        jc: u64,
        bos: &[kmod::BoHandle],
        waits: &[SyncobjHandle],
        requirements: u32,
    ) -> VkResult<()> {
        let mut in_syncs = waits.to_vec();
        in_syncs.push(self.syncobj);
        self.core
            .kdev
            .submit(&Submit {
                jc,
                bo_handles: bos,
                in_syncs: &in_syncs,
                out_sync: self.syncobj,
                requirements,
            })
            .map_err(|e| self.core.kmod_error(e))
    }

    pub fn submit(&self, batches: &[Batch<'_>], fence: Option<SyncobjHandle>) -> VkResult<()> {
        self.core.check_lost()?;
        let state = self.state.lock().unwrap();
        let k = self.core.kdev.kernel();
        for batch in batches {
            let mut waits: &[SyncobjHandle] = &batch.waits;
            for cb in &batch.command_buffers {
                let rec = cb.state.lock().unwrap();
                let Some((jc, bos)) = rec.executable_chain()? else {
                    continue;
                };
                let req = if rec.uses_timestamps {
                    kmod::JD_REQ_CYCLE_COUNT
                } else {
                    0
                };
                self.submit_chain(jc, &bos, waits, req)?;
                waits = &[];
            }
            if !waits.is_empty() || batch.command_buffers.is_empty() {
                // Nothing recorded: a NULL job carries the waits through.
                let bos: Vec<_> = state.null_pool.bo_handles().collect();
                state.null_chain.reset_status();
                self.submit_chain(state.null_chain.head(), &bos, waits, 0)?;
            }
            for &s in &batch.signals {
                k.syncobj_transfer(s, self.syncobj)
                    .map_err(|e| self.core.kmod_error(e))?;
            }
        }
        if let Some(f) = fence {
            k.syncobj_transfer(f, self.syncobj)
                .map_err(|e| self.core.kmod_error(e))?;
        }
        Ok(())
    }

    pub fn wait_idle(&self) -> VkResult<()> {
        self.core.check_lost()?;
        let ok = self
            .core
            .kdev
            .kernel()
            .syncobj_wait(&[self.syncobj], i64::MAX, true)
            .map_err(|e| self.core.kmod_error(e))?;
        if !ok {
            return Err(self.core.mark_lost("queue never became idle"));
        }
        self.core.check_syncobj(self.syncobj)
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        // Let queued work finish before the pools go away.
        let k = self.core.kdev.kernel();
        let _ = k.syncobj_wait(&[self.syncobj], kmod::deadline_after(5_000_000_000), true);
        k.syncobj_destroy(self.syncobj);
    }
}

#[cfg(test)]
mod tests {
    use ash::vk;

    use super::{Batch, Queue};
    use crate::hw::job::write_value as wv;
    use crate::kmod::DeviceSource;
    use crate::kmod::sim::SimModel;
    use crate::kmod::sim::jobs::exception;
    use crate::vk::cmd::{CommandBuffer, CommandPool};
    use crate::vk::device::Device;
    use crate::vk::handle;
    use crate::vk::physical_device::PhysicalDevice;
    use crate::vk::sync::{self, Fence};

    /// A chain that faults on the GPU: the status lands in the job header,
    /// the fence wait reports DEVICE_LOST, and so does everything after.
    #[test]
    fn a_faulting_chain_loses_the_device() {
        let pd = PhysicalDevice::probe(DeviceSource::Sim(SimModel::G52)).unwrap();
        let dev = Device::new(&pd, &[], &[], None).unwrap();
        // SAFETY: the device's own queue.
        let queue = unsafe { handle::dispatchable::<Queue>(dev.queue.0) }.unwrap();
        let pool = CommandPool::new(&dev.core, &vk::CommandPoolCreateInfo::default()).unwrap();
        let raw = pool.allocate(0);
        // SAFETY: just allocated.
        let cb = unsafe { handle::dispatchable::<CommandBuffer>(raw.0) }.unwrap();
        cb.begin().unwrap();
        {
            let mut r = cb.state.lock().unwrap();
            // No BO lives at this GPU address.
            r.rec
                .write_value(0x7000_0000, wv::IMMEDIATE_32, 1, [0, 0])
                .unwrap();
        }
        cb.end().unwrap();
        let fence = Fence::new(&dev.core, false).unwrap();
        let batch = Batch {
            waits: vec![],
            command_buffers: vec![cb],
            signals: vec![],
        };
        queue
            .submit(std::slice::from_ref(&batch), Some(fence.syncobj))
            .unwrap();
        assert_eq!(
            sync::wait(&dev.core, &[&fence], true, 5_000_000_000),
            Err(vk::Result::ERROR_DEVICE_LOST)
        );
        assert_eq!(
            cb.state.lock().unwrap().rec.chain().statuses(),
            vec![exception::JOB_WRITE_FAULT]
        );
        assert_eq!(
            queue.submit(&[batch], None),
            Err(vk::Result::ERROR_DEVICE_LOST)
        );
        assert_eq!(queue.wait_idle(), Err(vk::Result::ERROR_DEVICE_LOST));
        drop(fence);
        drop(pool);
    }
}
