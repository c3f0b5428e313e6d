//! The simulated tiler's polygon list: how TILER and IDVS jobs hand their
//! primitives to the FRAGMENT job, through GPU memory only.
//!
//! The hardware's polygon-list and heap format is undocumented, so the
//! simulator uses **a format of its own** (nothing the driver reads or
//! writes; a driver only allocates the heap and the Tiler Context, as Mesa
//! does):
//!
//! - The list lives in the tiler heap the Tiler Context's `Heap` descriptor
//!   describes, between `Bottom` and the smaller of `Top` and `Base + Size`.
//! - The Tiler Context's opaque `State` words (genxml "Tiler State",
//!   hardware-owned) hold the list's header: Word0 = [`MAGIC`] once a
//!   tiler job wrote to the context, Word1 = the number of records, Word2/3
//!   = the VA of the first record, Word4/5 = the VA where the next record
//!   goes. Tiler jobs of one context append; a tiler job whose context has
//!   no header starts its list at the heap's `Bottom`.
//! - A record is [`RECORD_BYTES`] bytes, 8 words: w0 = primitive kind (1
//!   triangle, 2 line, 3 point), w1 = point size or line width (f32 bits),
//!   w2/w3 = VA of the job's Draw descriptor (the fragment side of the draw:
//!   renderer state, varyings, position buffer, viewport), w4..w6 = the
//!   vertices' element indices in the position and varying buffers, w7 bit
//!   0 = the last vertex provokes flat values (else the first).
//!   Records are in submission order; the list is not binned into tiles.
//! - A record that does not fit below the heap's end stops the tiler job
//!   with OUT_OF_MEMORY (0x60, `DRM_PANFROST_EXCEPTION_OOM`); the records
//!   written before it stay valid.
//! - The FRAGMENT job reads every record of its framebuffer's Tiler Context
//!   and, when it completes, clears the header (the list is consumed, as a
//!   frame's lists are on hardware), so a re-submitted vertex/tiler chain
//!   starts a fresh list.
//!
//! Two Tiler Contexts that share a heap must not have lists alive at the
//! same time (each starts at `Bottom`): true of PanVk on JM, which renders
//! a batch's fragment chain before the next batch's tiler jobs.
//!
//! This module must never interpret anything but its own records and the
//! Tiler Context / Tiler Heap descriptors (through the `hw` tables).

use super::jobs::{JobFault, exception};
use super::mmu::Mmu;
use crate::hw::Arch;
use crate::hw::tiler::{tiler_context as tc, tiler_heap as th};

/// Word0 of a Tiler Context's State when it holds one of our lists ("SIM1").
pub const MAGIC: u32 = 0x314d_4953;
/// Bytes per primitive record.
pub const RECORD_BYTES: u64 = 32;

/// Primitive kinds of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Triangle = 1,
    Line = 2,
    Point = 3,
}

/// One primitive in the list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Record {
    pub kind: Kind,
    /// Point size or line width in pixels (0 for triangles).
    pub size: f32,
    /// The Draw descriptor the fragment side reads.
    pub draw: u64,
    pub vertices: [u32; 3],
    /// The last vertex provokes flat values (else the first).
    pub provoking_last: bool,
}

impl Record {
    fn words(&self) -> [u32; 8] {
        [
            self.kind as u32,
            self.size.to_bits(),
            self.draw as u32,
            (self.draw >> 32) as u32,
            self.vertices[0],
            self.vertices[1],
            self.vertices[2],
            u32::from(self.provoking_last),
        ]
    }

    fn from_words(w: &[u32]) -> Option<Record> {
        let kind = match w[0] {
            1 => Kind::Triangle,
            2 => Kind::Line,
            3 => Kind::Point,
            _ => return None,
        };
        Some(Record {
            kind,
            size: f32::from_bits(w[1]),
            draw: u64::from(w[2]) | (u64::from(w[3]) << 32),
            vertices: [w[4], w[5], w[6]],
            provoking_last: w[7] & 1 != 0,
        })
    }
}

fn config(va: u64, what: &str) -> JobFault {
    log::error!("sim tiler: {what} (descriptor at {va:#x})");
    JobFault::config(va)
}

/// The State words of a Tiler Context (bit offset of Word0).
fn state_word(ctx: u64, i: u64) -> u64 {
    ctx + u64::from(tc::STATE.start / 32) * 4 + 4 * i
}

/// A Tiler Context and the heap window its list may use.
struct Context {
    va: u64,
    start: u64,
    end: u64,
}

fn context(mmu: &Mmu, arch: Arch, va: u64) -> Result<Context, JobFault> {
    let l = crate::hw::layouts(arch);
    if va == 0 || !va.is_multiple_of(64) {
        return Err(config(va, "null or misaligned tiler context"));
    }
    let w = mmu.read_words(va, l.tiler_context.words as usize)?;
    if l.tiler_context.check_reserved(&w).is_err() {
        return Err(config(va, "reserved bits set in Tiler Context"));
    }
    let heap = tc::HEAP.get(&w);
    if heap == 0 {
        return Err(config(va, "tiler context without a heap"));
    }
    let h = mmu.read_words(heap, l.tiler_heap.words as usize)?;
    if l.tiler_heap.check_reserved(&h).is_err() {
        return Err(config(heap, "reserved bits set in Tiler Heap"));
    }
    let base = th::BASE.get(&h);
    let bottom = th::BOTTOM.get(&h);
    let top = th::TOP.get(&h);
    let end = top.min(base.saturating_add(th::SIZE.get(&h)));
    if base == 0 || bottom < base || bottom > end {
        return Err(config(heap, "tiler heap bounds are inconsistent"));
    }
    Ok(Context {
        va,
        start: bottom,
        end,
    })
}

/// Appends records to a Tiler Context's list (one tiler or IDVS job).
pub struct ListWriter {
    ctx: Context,
    first: u64,
    cursor: u64,
    count: u32,
}

impl ListWriter {
    /// Opens the list of the Tiler Context at `va` (continuing it if an
    /// earlier job of the same context started one).
    pub fn open(mmu: &Mmu, arch: Arch, va: u64) -> Result<ListWriter, JobFault> {
        let ctx = context(mmu, arch, va)?;
        let s = mmu.read_words(state_word(va, 0), 6)?;
        let (first, cursor, count) = if s[0] == MAGIC {
            let first = u64::from(s[2]) | (u64::from(s[3]) << 32);
            let cursor = u64::from(s[4]) | (u64::from(s[5]) << 32);
            if first < ctx.start
                || cursor > ctx.end
                || cursor < first
                || (cursor - first) != u64::from(s[1]) * RECORD_BYTES
            {
                return Err(config(va, "tiler context state is not a list of ours"));
            }
            (first, cursor, s[1])
        } else {
            (ctx.start, ctx.start, 0)
        };
        Ok(ListWriter {
            ctx,
            first,
            cursor,
            count,
        })
    }

    /// Appends one record; OUT_OF_MEMORY when the heap is full.
    pub fn push(&mut self, mmu: &Mmu, r: &Record) -> Result<(), JobFault> {
        if self.cursor + RECORD_BYTES > self.ctx.end {
            log::error!(
                "sim tiler: polygon list of context {:#x} outgrew its heap (end {:#x})",
                self.ctx.va,
                self.ctx.end
            );
            // Keep what was written: the header covers the records so far.
            self.close(mmu)?;
            return Err(JobFault {
                status: exception::OUT_OF_MEMORY,
                fault_va: self.cursor,
            });
        }
        mmu.write_words(self.cursor, &r.words())?;
        self.cursor += RECORD_BYTES;
        self.count += 1;
        Ok(())
    }

    /// Writes the header back into the context's State words.
    pub fn close(&self, mmu: &Mmu) -> Result<(), JobFault> {
        let s = [
            MAGIC,
            self.count,
            self.first as u32,
            (self.first >> 32) as u32,
            self.cursor as u32,
            (self.cursor >> 32) as u32,
        ];
        mmu.write_words(state_word(self.ctx.va, 0), &s)?;
        Ok(())
    }
}

/// Every record of the Tiler Context at `va` (empty if no tiler job wrote).
pub fn read_list(mmu: &Mmu, arch: Arch, va: u64) -> Result<Vec<Record>, JobFault> {
    let ctx = context(mmu, arch, va)?;
    let s = mmu.read_words(state_word(va, 0), 6)?;
    if s[0] != MAGIC {
        if s.iter().any(|&w| w != 0) {
            return Err(config(va, "tiler context state is not a list of ours"));
        }
        return Ok(Vec::new());
    }
    let first = u64::from(s[2]) | (u64::from(s[3]) << 32);
    let cursor = u64::from(s[4]) | (u64::from(s[5]) << 32);
    if first < ctx.start
        || cursor > ctx.end
        || cursor < first
        || cursor - first != u64::from(s[1]) * RECORD_BYTES
    {
        return Err(config(va, "tiler context state is not a list of ours"));
    }
    let words = mmu.read_words(first, (cursor - first) as usize / 4)?;
    words
        .chunks(RECORD_BYTES as usize / 4)
        .map(|c| Record::from_words(c).ok_or_else(|| config(first, "bad polygon-list record")))
        .collect()
}

/// Clears the list header of the Tiler Context at `va` (consumed).
pub fn consume(mmu: &Mmu, va: u64) -> Result<(), JobFault> {
    mmu.write_words(state_word(va, 0), &[0; 6])?;
    Ok(())
}
