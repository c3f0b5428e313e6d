//! VkCommandPool and VkCommandBuffer: the pool and command-buffer
//! lifecycle. Recording itself lives beside this file:
//!
//! - `recording.rs`: what a command buffer has recorded (the open
//!   `jm::Recorder` with its job chain, GPU memory pool and BO list; the
//!   first recording error, reported by vkEndCommandBuffer as the spec asks);
//! - `segment.rs`: a recorded command buffer as a list of job chains (one
//!   SUBMIT each) and wait points; vkCmdExecuteCommands appends a
//!   secondary's list to the primary's;
//! - `state.rs`: the state tracker (bound pipelines, descriptor sets, push
//!   constants, vertex/index buffers, the render pass);
//! - one file per command family: `draw.rs`, `dispatch.rs`, `xfb.rs`,
//!   `query.rs`, `barrier.rs`, `transfer.rs`, `event.rs`.

mod barrier;
mod dispatch;
mod draw;
mod event;
mod indirect;
mod query;
mod recording;
mod segment;
mod state;
mod transfer;
mod xfb;

use std::sync::{Arc, Mutex};

use ash::vk;

pub use draw::DrawParams;
pub use indirect::MAX_DRAW_INDIRECT_COUNT;
pub use recording::{Recording, Status};
pub use segment::{Piece, Segment};
pub use state::{ActivePass, BoundRange, IndexBinding, bind_point_index};
pub use xfb::Counter;

use super::RawHandle;
use super::VkResult;
use super::device::DeviceCore;
use super::handle::{self, Object};

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

    pub fn allocate(&self, pool_handle: u64, level: vk::CommandBufferLevel) -> RawHandle {
        let cb = CommandBuffer {
            pool: pool_handle,
            level,
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

    /// vkResetCommandPool: every command buffer back to the initial state;
    /// with `release`, their GPU memory goes back to the kernel too.
    pub fn reset(&self, release: bool) {
        for &raw in self.buffers.lock().unwrap().iter() {
            // SAFETY: live command buffers of this pool.
            if let Ok(cb) = unsafe { handle::dispatchable::<CommandBuffer>(raw.0) } {
                let mut r = cb.state.lock().unwrap();
                if release {
                    *r = Recording::new(&self.core);
                } else {
                    r.reset();
                }
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

pub struct CommandBuffer {
    /// The VkCommandPool it came from.
    pub pool: u64,
    /// PRIMARY or SECONDARY.
    pub level: vk::CommandBufferLevel,
    pub state: Mutex<Recording>,
}

/// What vkBeginCommandBuffer says about the recording.
#[derive(Clone, Debug, Default)]
pub struct BeginInfo {
    pub usage: vk::CommandBufferUsageFlags,
    /// A secondary with RENDER_PASS_CONTINUE: the render pass instance it
    /// continues (from its inheritance info).
    pub continues: Option<ActivePass>,
}

impl Object for CommandBuffer {
    const TAG: u64 = 0x6276_6b5f_636d_6462; // "bvk_cmdb"
}

impl CommandBuffer {
    pub fn begin(&self, info: BeginInfo) -> VkResult<()> {
        let mut r = self.state.lock().unwrap();
        // Begin implicitly resets (our pools always allow it).
        r.reset();
        r.status = Status::Recording;
        r.usage = info.usage;
        if self.level == vk::CommandBufferLevel::SECONDARY
            && let Some(pass) = info.continues
        {
            r.state.render_pass = Some(pass);
            r.inherited_pass = true;
        }
        Ok(())
    }

    /// vkCmdExecuteCommands: append each executable secondary's pieces to
    /// this primary (`segment.rs`); invalid elements are logged and skipped.
    pub fn execute_commands(&self, secondaries: &[&CommandBuffer]) {
        if self.level != vk::CommandBufferLevel::PRIMARY {
            log::warn!("vkCmdExecuteCommands in a secondary command buffer (invalid usage)");
            return;
        }
        let mut r = self.state.lock().unwrap();
        for s in secondaries {
            if std::ptr::eq(*s, self) || s.level != vk::CommandBufferLevel::SECONDARY {
                log::warn!("vkCmdExecuteCommands: not a secondary command buffer (invalid usage)");
                continue;
            }
            let sr = s.state.lock().unwrap();
            let Ok(pieces) = sr.executable_pieces() else {
                continue;
            };
            let ops: Vec<(usize, bool)> = sr.event_ops.iter().map(|(&k, &v)| (k, v)).collect();
            drop(sr);
            r.append_secondary(pieces, &ops);
        }
    }

    pub fn end(&self) -> VkResult<()> {
        let mut r = self.state.lock().unwrap();
        if r.status != Status::Recording {
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        r.finish()?;
        r.status = Status::Executable;
        Ok(())
    }

    pub fn reset(&self) {
        self.state.lock().unwrap().reset();
    }
}
