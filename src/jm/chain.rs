//! A job chain under construction: headers linked through `Next`, indices
//! 1, 2, 3 … and dependencies, written into GPU memory as jobs are added.

use super::error::{JmError, JmResult};
use super::pool::{GpuAlloc, GpuPool};
use crate::hw::job::{self, JOB_HEADER, JobType, header, write_value};

/// Words of a job header (`hw::job::JOB_HEADER`).
const HEADER_WORDS: usize = (job::PAYLOAD_OFFSET / 4) as usize;

/// Job headers are 64-byte aligned.
pub const JOB_ALIGN: u64 = 64;

#[derive(Default)]
pub struct JobChain {
    /// Every job's allocation, in list order.
    jobs: Vec<GpuAlloc>,
    /// The next job added waits for every job before it
    /// ([`JobChain::barrier_next`]).
    barrier_next: bool,
}

impl JobChain {
    pub fn new() -> JobChain {
        JobChain::default()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// GPU VA of the first job header (0 when empty).
    pub fn head(&self) -> u64 {
        self.jobs.first().map_or(0, |j| j.gpu_va)
    }

    /// GPU VA of job `index` (1-based, as dependencies name jobs).
    pub fn job_va(&self, index: u16) -> Option<u64> {
        let i = usize::from(index).checked_sub(1)?;
        self.jobs.get(i).map(|j| j.gpu_va)
    }

    /// Index of the last job (0 when empty).
    pub fn last_index(&self) -> u16 {
        self.jobs.len() as u16
    }

    pub fn clear(&mut self) {
        self.jobs.clear();
        self.barrier_next = false;
    }

    /// Make the next job added wait for every earlier job (its header's
    /// `Barrier` bit); nothing when the chain is empty.
    pub fn barrier_next(&mut self) {
        if !self.jobs.is_empty() {
            self.barrier_next = true;
        }
    }

    /// Append a job of `job_type` with `payload` words after the header.
    /// `dependencies` name earlier indices (0 = none). Returns the new index.
    pub fn add_job(
        &mut self,
        pool: &mut GpuPool,
        job_type: JobType,
        payload: &[u32],
        dependencies: [u16; 2],
        barrier: bool,
    ) -> JmResult<u16> {
        let index = u16::try_from(self.jobs.len() + 1)
            .ok()
            .filter(|&i| i < u16::MAX)
            .ok_or(JmError::Encoding("job chain has 65535 jobs"))?;
        let size = job::PAYLOAD_OFFSET + payload.len() as u64 * 4;
        let alloc = pool.alloc(size.next_multiple_of(JOB_ALIGN), JOB_ALIGN)?;
        // The job header is the same on v6 and v7.
        let mut header_words = [0u32; HEADER_WORDS];
        let words = header_words.as_mut_slice();
        words.copy_from_slice(
            super::templates::templates(crate::hw::Arch::V7)
                .job_header
                .as_slice(),
        );
        let pack = |w: &mut [u32], f: &crate::hw::layout::Field, v: u64| {
            f.set(w, v)
                .map_err(|_| JmError::Encoding("job header field overflow"))
        };
        pack(words, &header::TYPE, job_type as u64)?;
        pack(words, &header::INDEX, u64::from(index))?;
        pack(words, &header::DEPENDENCY_1, u64::from(dependencies[0]))?;
        pack(words, &header::DEPENDENCY_2, u64::from(dependencies[1]))?;
        let barrier = barrier || std::mem::take(&mut self.barrier_next);
        pack(words, &header::BARRIER, u64::from(barrier))?;
        alloc.write_words(0, words);
        alloc.write_words(job::PAYLOAD_OFFSET, payload);
        if let Some(prev) = self.jobs.last() {
            // Link the previous header to this one.
            let next = [alloc.gpu_va as u32, (alloc.gpu_va >> 32) as u32];
            prev.write_words(u64::from(header::NEXT.start / 8), &next);
        }
        self.jobs.push(alloc);
        Ok(index)
    }

    /// Append a WRITE_VALUE job storing `kind` (a `write_value::*` type) at `address`.
    pub fn add_write_value(
        &mut self,
        pool: &mut GpuPool,
        address: u64,
        kind: u64,
        immediate: u64,
        dependencies: [u16; 2],
    ) -> JmResult<u16> {
        let mut payload = vec![0u32; job::WRITE_VALUE_PAYLOAD.words as usize];
        let err = |_| JmError::Encoding("write value field overflow");
        write_value::ADDRESS
            .set(&mut payload, address)
            .map_err(err)?;
        write_value::TYPE.set(&mut payload, kind).map_err(err)?;
        write_value::IMMEDIATE_VALUE
            .set(&mut payload, immediate)
            .map_err(err)?;
        self.add_job(pool, JobType::WriteValue, &payload, dependencies, false)
    }

    /// Clear what the GPU wrote back into each header (exception status,
    /// first incomplete task, fault pointer) so the chain can run again.
    pub fn reset_status(&self) {
        for job in &self.jobs {
            job.zero(0, 16);
        }
    }

    /// Let `f` edit the header words of job `i` (0-based) in GPU memory.
    pub fn patch_header(&self, i: usize, f: impl FnOnce(&mut [u32])) {
        let mut words = self.header_words(i);
        f(&mut words);
        self.jobs[i].write_words(0, &words);
    }

    /// Let `f` look at the header words of job `i` (0-based) in GPU memory.
    pub fn read_header<R>(&self, i: usize, f: impl FnOnce(&[u32]) -> R) -> R {
        f(&self.header_words(i))
    }

    fn header_words(&self, i: usize) -> Vec<u32> {
        let mut bytes = vec![0u8; JOB_HEADER.bytes()];
        // SAFETY: a job allocation holds at least a header.
        unsafe { std::ptr::copy_nonoverlapping(self.jobs[i].cpu, bytes.as_mut_ptr(), bytes.len()) };
        crate::hw::layout::words_from_bytes(&bytes)
    }

    /// Exception status of every job, as the GPU wrote it back.
    pub fn statuses(&self) -> Vec<u32> {
        self.jobs
            .iter()
            .map(|j| {
                let mut b = [0u8; 4];
                // SAFETY: the first 4 bytes of a live job allocation.
                unsafe { std::ptr::copy_nonoverlapping(j.cpu, b.as_mut_ptr(), 4) };
                u32::from_le_bytes(b)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::kmod::Device;
    use crate::kmod::sim::{SimDevice, SimModel};

    #[test]
    fn headers_are_packed_and_linked() {
        let dev = Arc::new(Device::with_dump_dir(
            Box::new(SimDevice::new(SimModel::G52)),
            None,
        ));
        let mut pool = GpuPool::new(dev);
        let mut chain = JobChain::new();
        assert_eq!(chain.head(), 0);
        let a = chain
            .add_job(&mut pool, JobType::Null, &[], [0, 0], false)
            .unwrap();
        let b = chain
            .add_write_value(
                &mut pool,
                0x1234_5678,
                write_value::IMMEDIATE_64,
                42,
                [a, 0],
            )
            .unwrap();
        let c = chain
            .add_job(&mut pool, JobType::Null, &[], [a, b], true)
            .unwrap();
        assert_eq!((a, b, c), (1, 2, 3));
        assert_eq!(chain.head() % JOB_ALIGN, 0);
        let mut va = chain.head();
        for i in 0..3 {
            chain.read_header(i, |w| {
                assert!(JOB_HEADER.check_reserved(w).is_ok());
                assert_eq!(header::INDEX.get(w), i as u64 + 1);
                assert_eq!(header::IS_64B.get(w), 1);
                let next = header::NEXT.get(w);
                if i < 2 {
                    assert!(
                        next > va && next.is_multiple_of(JOB_ALIGN),
                        "linked forward"
                    );
                    va = next;
                } else {
                    assert_eq!(next, 0, "the last job ends the chain");
                }
            });
        }
        chain.read_header(1, |w| {
            assert_eq!(header::TYPE.get(w), JobType::WriteValue as u64);
            assert_eq!(header::DEPENDENCY_1.get(w), 1);
        });
        chain.read_header(2, |w| {
            assert_eq!(header::BARRIER.get(w), 1);
            assert_eq!(
                (header::DEPENDENCY_1.get(w), header::DEPENDENCY_2.get(w)),
                (1, 2)
            );
        });
    }
}
