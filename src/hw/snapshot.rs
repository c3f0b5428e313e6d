//! The "PANSNAP1" GPU memory snapshot format: a job-chain head address plus
//! every memory block (GPU VA, bytes) a job chain may reach.
//!
//! The driver writes one per submit when `BIFROST_VK_DUMP=<dir>` is set (both
//! kmod backends), the dump tool reads them, and the reference vectors' PanVk
//! job-chain snapshots (docs/DESIGN.md "The reference vectors") use the same
//! layout, so one reader serves both. Layout (little-endian, no padding):
//! magic `PANSNAP1`, u32 gpu_id, u32 flags (0), u64 jc, then records of u64
//! gpu_va, u64 size, bytes.

use std::io::{self, Write};

pub const MAGIC: &[u8; 8] = b"PANSNAP1";

/// One block of GPU memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub gpu_va: u64,
    pub bytes: Vec<u8>,
}

/// A parsed snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// GPU product id (a raw GPU_ID register value above 0xffff is shifted down).
    pub gpu_id: u32,
    pub flags: u32,
    /// GPU VA of the first job header.
    pub jc: u64,
    pub blocks: Vec<Block>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SnapshotError {
    #[error("not a PANSNAP1 file (bad magic)")]
    BadMagic,
    #[error("file truncated at byte {0}")]
    Truncated(usize),
    #[error("block at {0:#x} overlaps another block")]
    Overlap(u64),
}

/// Write a snapshot. `blocks` must not overlap.
pub fn write(
    out: &mut impl Write,
    gpu_id: u32,
    jc: u64,
    blocks: &mut dyn Iterator<Item = (u64, &[u8])>,
) -> io::Result<()> {
    write_header(out, gpu_id, jc)?;
    for (va, bytes) in blocks {
        write_block(out, va, bytes)?;
    }
    Ok(())
}

/// The 24-byte header; blocks follow ([`write_block`]).
pub fn write_header(out: &mut impl Write, gpu_id: u32, jc: u64) -> io::Result<()> {
    out.write_all(MAGIC)?;
    out.write_all(&gpu_id.to_le_bytes())?;
    out.write_all(&0u32.to_le_bytes())?;
    out.write_all(&jc.to_le_bytes())
}

/// One block record: GPU VA, size, bytes.
pub fn write_block(out: &mut impl Write, gpu_va: u64, bytes: &[u8]) -> io::Result<()> {
    out.write_all(&gpu_va.to_le_bytes())?;
    out.write_all(&(bytes.len() as u64).to_le_bytes())?;
    out.write_all(bytes)
}

impl Snapshot {
    pub fn parse(data: &[u8]) -> Result<Snapshot, SnapshotError> {
        if data.len() < 8 || &data[..8] != MAGIC {
            return Err(SnapshotError::BadMagic);
        }
        let u32_at = |at: usize| -> Result<u32, SnapshotError> {
            data.get(at..at + 4)
                .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
                .ok_or(SnapshotError::Truncated(at))
        };
        let u64_at = |at: usize| -> Result<u64, SnapshotError> {
            data.get(at..at + 8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                .ok_or(SnapshotError::Truncated(at))
        };
        let mut gpu_id = u32_at(8)?;
        if gpu_id > 0xffff {
            gpu_id >>= 16;
        }
        let flags = u32_at(12)?;
        let jc = u64_at(16)?;
        let mut blocks: Vec<Block> = Vec::new();
        let mut at = 24;
        while at < data.len() {
            let gpu_va = u64_at(at)?;
            let size = u64_at(at + 8)?;
            let start = at + 16;
            let end = usize::try_from(size)
                .ok()
                .and_then(|s| start.checked_add(s))
                .filter(|&e| e <= data.len())
                .ok_or(SnapshotError::Truncated(start))?;
            let new_end = gpu_va
                .checked_add(size)
                .ok_or(SnapshotError::Overlap(gpu_va))?;
            if blocks
                .iter()
                .any(|b| gpu_va < b.gpu_va + b.bytes.len() as u64 && b.gpu_va < new_end)
            {
                return Err(SnapshotError::Overlap(gpu_va));
            }
            blocks.push(Block {
                gpu_va,
                bytes: data[start..end].to_vec(),
            });
            at = end;
        }
        Ok(Snapshot {
            gpu_id,
            flags,
            jc,
            blocks,
        })
    }

    /// `len` bytes at `va`, if they lie inside one block.
    pub fn read(&self, va: u64, len: usize) -> Option<&[u8]> {
        self.blocks.iter().find_map(|b| {
            let off = va.checked_sub(b.gpu_va)?;
            let off = usize::try_from(off).ok()?;
            b.bytes.get(off..off.checked_add(len)?)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_then_parse_round_trips() {
        let a = [1u8; 64];
        let b = [2u8; 16];
        let mut out = Vec::new();
        let mut blocks = [(0x1000u64, &a[..]), (0x8000u64, &b[..])].into_iter();
        write(&mut out, 0x7212, 0x1000, &mut blocks).unwrap();
        let snap = Snapshot::parse(&out).unwrap();
        assert_eq!(snap.gpu_id, 0x7212);
        assert_eq!(snap.jc, 0x1000);
        assert_eq!(snap.blocks.len(), 2);
        assert_eq!(snap.read(0x8004, 4), Some(&[2u8; 4][..]));
        assert_eq!(snap.read(0x103e, 4), None);
        assert_eq!(
            Snapshot::parse(&out[..out.len() - 1]),
            Err(SnapshotError::Truncated(24 + 16 + 64 + 16))
        );
        assert_eq!(Snapshot::parse(b"PANSNAP2"), Err(SnapshotError::BadMagic));
    }

    #[test]
    fn reads_the_reference_snapshot() {
        let path = crate::reference_path!("mesa-g52/jobchains/jc_null_write_value.snap");
        let snap = Snapshot::parse(&std::fs::read(path).unwrap()).unwrap();
        assert_eq!(
            (snap.gpu_id, snap.jc, snap.blocks.len()),
            (0x7212, 0x10000, 2)
        );
        assert_eq!(snap.read(0x10060, 8).unwrap(), &0x20000u64.to_le_bytes());
    }
}
