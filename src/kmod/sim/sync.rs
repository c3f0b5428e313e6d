//! Fences and binary syncobjs of the simulated device, with DRM semantics:
//! a syncobj holds at most one fence; SUBMIT replaces the out-syncobj's fence;
//! RESET drops it; a fence is signalled once, possibly with an error (a
//! faulted job chain), which waiters can query.
//!
//! One mutex and one condition variable cover the whole table: every state
//! change notifies all waiters, who re-check their condition.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use crate::kmod::{KmodError, KmodResult, SyncobjHandle, monotonic_ns};

const PENDING: i32 = i32::MIN;

/// A one-shot completion: pending, then 0 (done) or a negative errno.
#[derive(Debug)]
pub struct Fence(AtomicI32);

impl Fence {
    pub fn pending() -> Arc<Fence> {
        Arc::new(Fence(AtomicI32::new(PENDING)))
    }
    pub fn signaled() -> Arc<Fence> {
        Arc::new(Fence(AtomicI32::new(0)))
    }
    /// None while pending, else Some(0) or Some(-errno).
    pub fn status(&self) -> Option<i32> {
        match self.0.load(Ordering::Acquire) {
            PENDING => None,
            s => Some(s),
        }
    }
}

#[derive(Default)]
struct Table {
    syncobjs: HashMap<SyncobjHandle, Option<Arc<Fence>>>,
    next: SyncobjHandle,
}

/// The syncobj table plus the wake-up machinery.
#[derive(Default)]
pub struct SyncTable {
    table: Mutex<Table>,
    changed: Condvar,
    /// Set when the device goes away: fence waits give up.
    closing: std::sync::atomic::AtomicBool,
}

impl SyncTable {
    pub fn create(&self, signaled: bool) -> SyncobjHandle {
        let mut t = self.table.lock().unwrap();
        t.next += 1;
        let h = t.next;
        t.syncobjs.insert(h, signaled.then(Fence::signaled));
        h
    }

    pub fn destroy(&self, h: SyncobjHandle) {
        self.table.lock().unwrap().syncobjs.remove(&h);
        self.changed.notify_all();
    }

    pub fn count(&self) -> usize {
        self.table.lock().unwrap().syncobjs.len()
    }

    /// The current fence (SUBMIT's in-syncs). Err if the handle is unknown or
    /// holds no fence, as `drm_syncobj_find_fence` does.
    pub fn fence(&self, h: SyncobjHandle) -> KmodResult<Arc<Fence>> {
        let t = self.table.lock().unwrap();
        match t.syncobjs.get(&h) {
            None => Err(KmodError::NoSuchHandle(h)),
            Some(None) => Err(KmodError::Invalid("syncobj has no fence")),
            Some(Some(f)) => Ok(f.clone()),
        }
    }

    /// Install `fence` in `h` (SUBMIT's out-sync, TRANSFER).
    pub fn replace(&self, h: SyncobjHandle, fence: Option<Arc<Fence>>) -> KmodResult<()> {
        let mut t = self.table.lock().unwrap();
        let slot = t.syncobjs.get_mut(&h).ok_or(KmodError::NoSuchHandle(h))?;
        *slot = fence;
        drop(t);
        self.changed.notify_all();
        Ok(())
    }

    /// Signal a fence with `status` (0 or -errno) and wake waiters.
    pub fn signal(&self, fence: &Fence, status: i32) {
        fence.0.store(status, Ordering::Release);
        // Taking the lock orders this store before any waiter's re-check.
        drop(self.table.lock().unwrap());
        self.changed.notify_all();
    }

    /// Make every current and future fence wait give up (device teardown).
    pub fn close(&self) {
        self.closing.store(true, Ordering::Release);
        drop(self.table.lock().unwrap());
        self.changed.notify_all();
    }

    /// Wait for all fences to signal; false at the deadline or on close.
    pub fn wait_fences(&self, fences: &[Arc<Fence>], abs_timeout_ns: i64) -> bool {
        let mut t = self.table.lock().unwrap();
        loop {
            if fences.iter().all(|f| f.status().is_some()) {
                return true;
            }
            let now = monotonic_ns();
            if now >= abs_timeout_ns || self.closing.load(Ordering::Acquire) {
                return false;
            }
            let left = std::time::Duration::from_nanos((abs_timeout_ns - now) as u64)
                .min(std::time::Duration::from_millis(100));
            t = self.changed.wait_timeout(t, left).unwrap().0;
        }
    }

    /// SYNCOBJ_WAIT with WAIT_FOR_SUBMIT.
    pub fn wait(
        &self,
        handles: &[SyncobjHandle],
        abs_timeout_ns: i64,
        wait_all: bool,
    ) -> KmodResult<bool> {
        let mut t = self.table.lock().unwrap();
        loop {
            let mut done = 0;
            for h in handles {
                match t.syncobjs.get(h) {
                    None => return Err(KmodError::NoSuchHandle(*h)),
                    Some(Some(f)) if f.status().is_some() => done += 1,
                    Some(_) => {}
                }
            }
            if (wait_all && done == handles.len()) || (!wait_all && done > 0) {
                return Ok(true);
            }
            let now = monotonic_ns();
            if now >= abs_timeout_ns {
                return Ok(false);
            }
            let left = std::time::Duration::from_nanos((abs_timeout_ns - now) as u64)
                .min(std::time::Duration::from_millis(100));
            t = self.changed.wait_timeout(t, left).unwrap().0;
        }
    }
}
