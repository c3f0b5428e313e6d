//! WRITE_VALUE jobs: store an immediate, zero, the cycle counter or the
//! system timestamp at a GPU address (genxml "Write Value Job Payload").

use super::jobs::{JobContext, JobFault, JobHeader};
use crate::hw::job::{WRITE_VALUE_PAYLOAD, write_value as wv};

pub fn execute(ctx: &JobContext<'_>, job: &JobHeader) -> Result<(), JobFault> {
    let words = ctx
        .mmu
        .read_words(job.payload(), WRITE_VALUE_PAYLOAD.words as usize)?;
    let address = wv::ADDRESS.get(&words);
    let immediate = wv::IMMEDIATE_VALUE.get(&words);
    let bytes: Vec<u8> = match wv::TYPE.get(&words) {
        wv::CYCLE_COUNTER => ctx.clock.cycles().to_le_bytes().to_vec(),
        wv::SYSTEM_TIMESTAMP => ctx.clock.timestamp().to_le_bytes().to_vec(),
        wv::ZERO => vec![0; 8],
        wv::IMMEDIATE_8 => vec![immediate as u8],
        wv::IMMEDIATE_16 => (immediate as u16).to_le_bytes().to_vec(),
        wv::IMMEDIATE_32 => (immediate as u32).to_le_bytes().to_vec(),
        wv::IMMEDIATE_64 => immediate.to_le_bytes().to_vec(),
        _ => return Err(JobFault::config(job.payload())),
    };
    // Natural alignment of the stored size.
    if !address.is_multiple_of(bytes.len() as u64) {
        return Err(JobFault::config(address));
    }
    ctx.mmu.write(address, &bytes)?;
    Ok(())
}
