//! The job manager: two job slots that walk job chains in GPU memory.
//!
//! Like the hardware's JS0 (fragment) and JS1 (everything else) under the
//! panfrost kernel, each slot runs its submissions in order on its own thread;
//! the two slots run concurrently. A chain is walked through the headers'
//! `Next` pointers. Jobs run in list order, which is a legal scoreboard order
//! because a dependency must name a job earlier in the chain (a dependency on
//! an index not seen yet is a JOB_CONFIG_FAULT) and a barrier job waits for
//! everything before it. After each job the slot writes `Exception Status`
//! (and `Fault Pointer` on a fault) back into its header. The first fault stops
//! the chain and the submission's fence signals with an error (-EIO), as the
//! kernel does for a faulted job; a header that cannot be read at all (bad job
//! pointer) stops the chain the same way without a header to write.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::clock::SimClock;
use super::jobs::{self, JobContext, JobFault, JobHeader, exception};
use super::mmu::Mmu;
use super::sync::{Fence, SyncTable};
use crate::hw::job::{JOB_HEADER, header};

/// Fence error of a faulted chain (the kernel uses -EIO for job faults ...
/// and -ECANCELED for jobs skipped because a dependency failed).
pub const EIO: i32 = 5;
pub const ECANCELED: i32 = 125;

/// Jobs walked before the sim gives up on a chain (a `Next` cycle never ends
/// on hardware either; the kernel's job timeout would reset the GPU).
pub const MAX_JOBS_PER_CHAIN: usize = 1 << 20;

/// One executed (or faulted) job, for tests and debugging.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceEntry {
    pub slot: usize,
    pub jc: u64,
    pub job_va: u64,
    pub index: u16,
    pub status: u32,
}

/// How a chain ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainResult {
    Done,
    /// A job faulted: its header holds `status`.
    JobFault {
        job_va: u64,
        fault: JobFault,
    },
    /// A job pointer could not be read: nothing to write the status into.
    BadJobPointer {
        va: u64,
    },
}

/// Everything the slots share with the device.
pub struct Shared {
    pub mmu: Mmu,
    pub sync: SyncTable,
    pub clock: SimClock,
    pub trace: Mutex<Vec<TraceEntry>>,
    pub trace_enabled: bool,
    /// Architecture of the simulated GPU.
    pub arch: crate::hw::Arch,
    /// Shader-core counters per COMPUTE/VERTEX job.
    pub counters: super::compute::CounterLog,
    /// The model's shader cores.
    pub cores: super::shader::ShaderCores,
    /// Decoded clauses, across jobs.
    pub clauses: super::shader::ClauseCache,
}

/// A queued chain.
pub struct Work {
    pub jc: u64,
    /// Explicit in-syncs: a failed one cancels this chain.
    pub wait: Vec<Arc<Fence>>,
    /// Implicit BO fences: only ordering.
    pub implicit: Vec<Arc<Fence>>,
    pub done: Arc<Fence>,
}

/// A job slot: a thread and its queue.
pub struct JobSlot {
    queue: Option<mpsc::Sender<Work>>,
    thread: Option<JoinHandle<()>>,
}

impl JobSlot {
    pub fn start(slot: usize, shared: Arc<Shared>) -> JobSlot {
        let (tx, rx) = mpsc::channel::<Work>();
        let thread = std::thread::Builder::new()
            .name(format!("bifrost-sim-js{slot}"))
            .spawn(move || {
                for work in rx {
                    let ready = shared.sync.wait_fences(&work.wait, i64::MAX)
                        && shared.sync.wait_fences(&work.implicit, i64::MAX);
                    if !ready || work.wait.iter().any(|f| f.status() != Some(0)) {
                        log::warn!(
                            "sim js{slot}: chain {:#x} skipped: a dependency failed",
                            work.jc
                        );
                        shared.sync.signal(&work.done, -ECANCELED);
                        continue;
                    }
                    // A bug in a job's simulation must not kill the slot
                    // (its fences would never signal): treat it as a fault.
                    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_chain(&shared, slot, work.jc)
                    }));
                    let status = match run {
                        Ok(ChainResult::Done) => 0,
                        Ok(other) => {
                            log::error!("sim js{slot}: chain {:#x} faulted: {other:?}", work.jc);
                            -EIO
                        }
                        Err(_) => {
                            log::error!("sim js{slot}: simulator panic in chain {:#x}", work.jc);
                            -EIO
                        }
                    };
                    shared.sync.signal(&work.done, status);
                }
            })
            .expect("spawning a job slot thread");
        JobSlot {
            queue: Some(tx),
            thread: Some(thread),
        }
    }

    pub fn push(&self, work: Work) {
        if let Some(q) = &self.queue {
            // The thread only exits when the sender is dropped.
            let _ = q.send(work);
        }
    }
}

impl JobSlot {
    /// Finish queued work and join the thread.
    pub fn stop(&mut self) {
        self.queue = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for JobSlot {
    fn drop(&mut self) {
        self.queue = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Walk and execute one chain on `slot`.
pub fn run_chain(shared: &Shared, slot: usize, jc: u64) -> ChainResult {
    // Which job indices have completed in this chain (16-bit index space).
    let mut done = vec![false; 1 << 16];
    let ctx = JobContext {
        mmu: &shared.mmu,
        clauses: &shared.clauses,
        clock: &shared.clock,
        arch: shared.arch,
        counters: &shared.counters,
        cores: shared.cores,
    };
    let mut va = jc;
    let mut walked = 0usize;
    while va != 0 {
        walked += 1;
        if !va.is_multiple_of(64) || walked > MAX_JOBS_PER_CHAIN {
            return ChainResult::BadJobPointer { va };
        }
        let Ok(mut words) = shared.mmu.read_words(va, JOB_HEADER.words as usize) else {
            return ChainResult::BadJobPointer { va };
        };
        let job = JobHeader::decode(va, &words);
        let result = check_header(&job, &done).and_then(|()| jobs::execute(&ctx, &job));
        let status = match result {
            Ok(()) => exception::DONE,
            Err(f) => f.status,
        };
        let _ = header::EXCEPTION_STATUS.set(&mut words, u64::from(status));
        let _ = header::FIRST_INCOMPLETE_TASK.set(&mut words, 0);
        if let Err(f) = result {
            let _ = header::FAULT_POINTER.set(&mut words, f.fault_va);
        }
        // Write back the first 16 bytes only, as the hardware does.
        if shared.mmu.write_words(va, &words[..4]).is_err() {
            return ChainResult::BadJobPointer { va };
        }
        if shared.trace_enabled {
            shared.trace.lock().unwrap().push(TraceEntry {
                slot,
                jc,
                job_va: va,
                index: job.index,
                status,
            });
        }
        if let Err(fault) = result {
            return ChainResult::JobFault { job_va: va, fault };
        }
        done[job.index as usize] = true;
        va = job.next;
    }
    ChainResult::Done
}

/// Header checks the job manager does before running a job.
fn check_header(job: &JobHeader, done: &[bool]) -> Result<(), JobFault> {
    if !job.is_64b {
        return Err(JobFault::config(job.va));
    }
    for dep in job.dependencies {
        if dep != 0 && !done[dep as usize] {
            return Err(JobFault::config(job.va));
        }
    }
    // Jobs run one at a time in list order, so a barrier is always satisfied.
    let _ = job.barrier;
    Ok(())
}
