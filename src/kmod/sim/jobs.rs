//! Job execution, dispatched per job type.
//!
//! The job manager ([`super::job_manager`]) walks a chain and calls
//! [`execute`] for every job header it reads. Each job type lives in its own
//! file with one function of the shape
//! `fn execute(ctx: &JobContext, job: &JobHeader) -> Result<(), JobFault>`:
//! [`super::write_value`], [`super::compute`] (COMPUTE and VERTEX jobs
//! share the COMPUTE_JOB layout and run on the shader core),
//! [`super::idvs`] (TILER and INDEXED_VERTEX jobs) and [`super::fragment`]. Jobs read and write only GPU memory, through `ctx.mmu`.

use super::clock::SimClock;
use super::mmu::{Mmu, MmuFault};
use crate::hw::job::{JobType, header};

/// Exception codes the job manager writes into a job header's `Exception
/// Status` (Mali exception types, as listed by the Linux panfrost driver's
/// `enum drm_panfrost_exception_type` in `panfrost_device.h`).
pub mod exception {
    /// Never executed (the header as the driver wrote it).
    pub const NOT_STARTED: u32 = 0x00;
    /// Completed without fault.
    pub const DONE: u32 = 0x01;
    /// The job descriptor is malformed (unknown type, bad dependency ...).
    pub const JOB_CONFIG_FAULT: u32 = 0x40;
    /// A read of job data faulted.
    pub const JOB_READ_FAULT: u32 = 0x42;
    /// A write of job data faulted.
    pub const JOB_WRITE_FAULT: u32 = 0x43;
    /// The tiler ran out of heap memory (`DRM_PANFROST_EXCEPTION_OOM`).
    pub const OUT_OF_MEMORY: u32 = 0x60;
    /// Codes above this are faults (`DRM_PANFROST_EXCEPTION_MAX_NON_FAULT`).
    pub const MAX_NON_FAULT: u32 = 0x3f;

    pub fn name(code: u32) -> &'static str {
        match code {
            NOT_STARTED => "NOT_STARTED",
            DONE => "DONE",
            JOB_CONFIG_FAULT => "JOB_CONFIG_FAULT",
            JOB_READ_FAULT => "JOB_READ_FAULT",
            JOB_WRITE_FAULT => "JOB_WRITE_FAULT",
            0x04 => "TERMINATED",
            0x50 => "INSTR_INVALID_PC",
            0x51 => "INSTR_INVALID_ENC",
            0x53 => "INSTR_OPERAND_FAULT",
            0x54 => "INSTR_TLS_FAULT",
            0x55 => "INSTR_BARRIER_FAULT",
            0x56 => "INSTR_ALIGN_FAULT",
            0x58 => "DATA_INVALID_FAULT",
            0x59 => "TILE_RANGE_FAULT",
            0x5a => "ADDR_RANGE_FAULT",
            OUT_OF_MEMORY => "OUT_OF_MEMORY",
            _ => "UNKNOWN",
        }
    }
}

/// Why a job failed: the exception code and the GPU VA that caused it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobFault {
    pub status: u32,
    pub fault_va: u64,
}

impl JobFault {
    pub fn config(va: u64) -> JobFault {
        JobFault {
            status: exception::JOB_CONFIG_FAULT,
            fault_va: va,
        }
    }
}

impl From<MmuFault> for JobFault {
    fn from(f: MmuFault) -> JobFault {
        JobFault {
            status: if f.write {
                exception::JOB_WRITE_FAULT
            } else {
                exception::JOB_READ_FAULT
            },
            fault_va: f.va,
        }
    }
}

/// A decoded job header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobHeader {
    /// GPU VA of the header.
    pub va: u64,
    pub raw_type: u64,
    pub job_type: Option<JobType>,
    pub is_64b: bool,
    pub barrier: bool,
    pub index: u16,
    pub dependencies: [u16; 2],
    pub next: u64,
}

impl JobHeader {
    pub fn decode(va: u64, words: &[u32]) -> JobHeader {
        let raw_type = header::TYPE.get(words);
        JobHeader {
            va,
            raw_type,
            job_type: JobType::from_raw(raw_type),
            is_64b: header::IS_64B.get(words) != 0,
            barrier: header::BARRIER.get(words) != 0,
            index: header::INDEX.get(words) as u16,
            dependencies: [
                header::DEPENDENCY_1.get(words) as u16,
                header::DEPENDENCY_2.get(words) as u16,
            ],
            next: header::NEXT.get(words),
        }
    }

    /// GPU VA of the payload.
    pub fn payload(&self) -> u64 {
        self.va + crate::hw::job::PAYLOAD_OFFSET
    }
}

/// What a job may touch while it runs.
pub struct JobContext<'a> {
    pub mmu: &'a Mmu,
    /// Clauses decoded by earlier jobs (`shader::ClauseCache`).
    pub clauses: &'a super::shader::ClauseCache,
    pub clock: &'a SimClock,
    /// Architecture of the simulated GPU (descriptor layouts, warp width).
    pub arch: crate::hw::Arch,
    /// Where shader jobs record their counters.
    pub counters: &'a super::compute::CounterLog,
    /// The model's shader cores (which run a job's workgroups, TLS slots).
    pub cores: super::shader::ShaderCores,
}

/// Run one job. The caller has checked the header itself (alignment,
/// dependencies) and writes the resulting exception status back.
pub fn execute(ctx: &JobContext<'_>, job: &JobHeader) -> Result<(), JobFault> {
    match job.job_type {
        Some(JobType::Null) => Ok(()),
        Some(JobType::WriteValue) => super::write_value::execute(ctx, job),
        Some(JobType::Compute) | Some(JobType::Vertex) => super::compute::execute(ctx, job),
        Some(JobType::Tiler) | Some(JobType::IndexedVertex) => super::idvs::execute(ctx, job),
        Some(JobType::Fragment) => super::fragment::execute(ctx, job),
        Some(other) => {
            // CACHE_FLUSH, GEOMETRY, FUSED ... are not simulated yet:
            // refuse them loudly instead of pretending.
            log::error!(
                "sim: {other:?} job at {:#x} is not simulated yet; faulting it",
                job.va
            );
            Err(JobFault::config(job.va))
        }
        None => Err(JobFault::config(job.va)),
    }
}
