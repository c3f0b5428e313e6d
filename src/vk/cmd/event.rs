//! vkCmdSetEvent, vkCmdResetEvent and vkCmdWaitEvents.
//!
//! An event is a u32 in GPU memory (`vk::event`). Set and reset are a
//! WRITE_VALUE job of 1 or 0 with the job barrier bit: it runs after every
//! job recorded before it (coarser than `stageMask` asks, never weaker),
//! and later jobs do not wait for it.
//!
//! vkCmdWaitEvents (Vulkan spec, "Events"): the first synchronization scope
//! holds event signal operations of earlier commands on the same queue, and
//! host signals (vkSetEvent) only when `srcStageMask` includes
//! `VK_PIPELINE_STAGE_HOST_BIT` (VUID-vkCmdWaitEvents-srcStageMask-01158
//! requires the bit whenever an event was set by the host). The job
//! manager has no job that waits for a memory value, so:
//!
//! - without HOST in `srcStageMask`, or when every event was set by an
//!   earlier vkCmdSetEvent of this command buffer (and not reset since),
//!   the signals that count were recorded earlier on this queue: jobs of
//!   one queue finish in submission order at a job barrier (earlier chains
//!   finished before this one started), so the wait is a job barrier;
//! - otherwise the host may be the signaller: the command buffer is split
//!   here (`segment.rs`), and the queue submits what follows only when
//!   everything before has completed and the host sees every event set
//!   (`vk::queue`). Since Vulkan 1.3.228 the spec requires host signals to
//!   happen before the submission ("Queue Forward Progress"); earlier
//!   versions let the host set the event later, which this also honours.
//!   Inside a render pass `srcStageMask` must not include HOST
//!   (VUID-vkCmdWaitEvents-srcStageMask-07308): there it is a barrier.
//!
//! The memory barriers need nothing beyond the job barrier: the one memory
//! type is host-coherent and jobs see each other's writes once complete.

use std::sync::Arc;

use super::recording::Recording;
use crate::hw::job::write_value;
use crate::vk::event::EventBo;

impl Recording {
    /// vkCmdSetEvent (`set`) / vkCmdResetEvent.
    pub fn write_event(&mut self, event: &Arc<EventBo>, set: bool) {
        self.record(|r| {
            r.rec.use_bo(event.bo_handle());
            r.segment_events.push(event.clone());
            r.rec.barrier();
            r.rec.write_value(
                event.va(),
                write_value::IMMEDIATE_32,
                u64::from(set),
                [0, 0],
            )?;
            r.event_ops.insert(event.key(), set);
            Ok(())
        });
    }

    /// vkCmdWaitEvents; `host`: `srcStageMask` includes HOST.
    pub fn wait_events(&mut self, events: &[Arc<EventBo>], host: bool) {
        self.record(|r| {
            let unknown: Vec<Arc<EventBo>> = events
                .iter()
                .filter(|e| r.event_ops.get(&e.key()) != Some(&true))
                .cloned()
                .collect();
            if host && !unknown.is_empty() {
                if r.state.render_pass.is_none() {
                    r.push_wait(unknown);
                    return Ok(());
                }
                log::warn!(
                    "vkCmdWaitEvents: HOST in srcStageMask inside a render pass (invalid usage); waiting for earlier commands only"
                );
            }
            r.rec.barrier();
            Ok(())
        });
    }
}
