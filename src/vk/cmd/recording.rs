//! What a command buffer has recorded: its `jm::Recorder` (job chain, GPU
//! memory pool, the BOs the jobs touch), its status, the state tracker and
//! the first recording error.
//!
//! Commands record through [`Recording::record`], which does nothing once
//! an error happened and keeps that error for vkEndCommandBuffer
//! (job-emission errors mapped by `DeviceCore::jm_error`).

use std::sync::Arc;

use ash::vk;

use super::state::State;
use super::xfb::XfbState;
use crate::jm::{JmError, Recorder};
use crate::vk::VkResult;
use crate::vk::device::DeviceCore;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Initial,
    Recording,
    Executable,
}

pub struct Recording {
    pub core: Arc<DeviceCore>,
    pub rec: Recorder,
    pub status: Status,
    pub uses_timestamps: bool,
    pub error: Option<vk::Result>,
    pub state: State,
    pub xfb: XfbState,
}

impl Recording {
    pub fn new(core: &Arc<DeviceCore>) -> Recording {
        Recording {
            core: core.clone(),
            rec: Recorder::new(core.kdev.clone(), core.arch),
            status: Status::Initial,
            uses_timestamps: false,
            error: None,
            state: State::default(),
            xfb: XfbState::default(),
        }
    }

    pub fn reset(&mut self) {
        self.rec.reset();
        self.status = Status::Initial;
        self.uses_timestamps = false;
        self.error = None;
        self.state = State::default();
        self.xfb = XfbState::default();
    }

    /// vkEndCommandBuffer's checks: the first recording error, and no
    /// transform feedback left active (invalid usage; reported, not run).
    pub fn finish(&mut self) -> VkResult<()> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.state.render_pass.is_some() {
            log::warn!("vkEndCommandBuffer: a render pass is still active (invalid usage)");
        }
        Ok(())
    }

    /// The chain to submit (None when nothing was recorded), with the
    /// GPU-written status words cleared, and the BOs the submit must list.
    pub fn executable_chain(&self) -> VkResult<Option<(u64, Vec<crate::kmod::BoHandle>)>> {
        if self.status != Status::Executable {
            log::warn!("vkQueueSubmit: command buffer is not executable (invalid usage)");
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        let chain = self.rec.chain();
        if chain.is_empty() {
            return Ok(None);
        }
        chain.reset_status();
        Ok(Some((chain.head(), self.rec.bo_handles())))
    }

    /// Whether commands may be recorded now (recording, no error yet).
    pub fn recording(&self) -> bool {
        self.status == Status::Recording && self.error.is_none()
    }

    /// Keep the first error of this recording.
    pub fn fail(&mut self, e: vk::Result) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// Run `f` unless recording already failed; keep its error.
    pub fn record(&mut self, f: impl FnOnce(&mut Recording) -> Result<(), Fail>) {
        if !self.recording() {
            return;
        }
        if let Err(e) = f(self) {
            let code = match e {
                Fail::Jm(e) => self.core.jm_error(e),
                Fail::Vk(code) => code,
            };
            log::warn!("recording failed: {code:?}");
            self.fail(code);
        }
    }
}

/// Why a command could not be recorded.
#[derive(Debug)]
pub enum Fail {
    Jm(JmError),
    Vk(vk::Result),
}

impl From<JmError> for Fail {
    fn from(e: JmError) -> Fail {
        Fail::Jm(e)
    }
}

impl From<vk::Result> for Fail {
    fn from(e: vk::Result) -> Fail {
        Fail::Vk(e)
    }
}
