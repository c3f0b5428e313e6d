//! Patch tables for the indirect kernels (`compiler::kernels::indirect`):
//! where in a recorded job, its push uniforms or its attribute records a
//! value computed on the GPU must go. Each entry names a 32-bit word, a bit
//! range in it and the kernel's value slot; the kernel merges the value
//! into those bits and keeps the others.
//!
//! This module is the one place that turns descriptor fields (`hw`
//! layouts) into patch entries, so the kernels never know a layout.

use super::error::{JmError, JmResult};
use super::recorder::Recorder;
use crate::compiler::kernels::indirect::PATCH_BYTES;
use crate::hw::Arch;
use crate::hw::layout::Field;

/// One patch: bits `[shift, shift + width)` of the 32-bit word at
/// `address` take the low `width` bits of value slot `value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Patch {
    pub address: u64,
    pub shift: u8,
    pub width: u8,
    pub value: u8,
}

impl Patch {
    /// A whole 32-bit word.
    pub fn word(address: u64, value: u8) -> Patch {
        Patch {
            address,
            shift: 0,
            width: 32,
            value,
        }
    }

    /// `field` of a descriptor that starts at `base` (the field must not
    /// cross a 32-bit word).
    pub fn field(base: u64, field: Field, value: u8) -> JmResult<Patch> {
        let shift = field.start % 32;
        if field.width == 0 || shift + field.width > 32 {
            return Err(JmError::Encoding("patched field crosses a word"));
        }
        Ok(Patch {
            address: base + u64::from(field.start / 32) * 4,
            shift: shift as u8,
            width: field.width as u8,
            value,
        })
    }
}

/// The job type in the header of the job at `job_va`.
pub fn job_type(job_va: u64, value: u8) -> JmResult<Patch> {
    Patch::field(job_va, crate::hw::job::header::TYPE, value)
}

/// The two Invocation words of a compute, vertex or XFB capture job.
pub fn invocation(arch: Arch, job_va: u64, values: [u8; 2]) -> JmResult<[Patch; 2]> {
    let at = section(arch, "Invocation")?;
    Ok([
        Patch::word(job_va + at, values[0]),
        Patch::word(job_va + at + 4, values[1]),
    ])
}

/// `field` of the job's Draw (DCD) section.
pub fn draw_field(arch: Arch, job_va: u64, field: Field, value: u8) -> JmResult<Patch> {
    Patch::field(job_va + section(arch, "Draw")?, field, value)
}

fn section(arch: Arch, name: &str) -> JmResult<u64> {
    let t = super::templates::templates(arch);
    match name {
        "Invocation" => Ok(t.invocation.offset as u64),
        "Draw" => Ok(t.draw.offset as u64),
        _ => Err(JmError::Encoding("compute job section missing")),
    }
}

/// Writes `patches` into the recorder's pool: (table address, entries).
pub fn write_table(rec: &mut Recorder, patches: &[Patch]) -> JmResult<(u64, u32)> {
    let table = rec.alloc(u64::from(PATCH_BYTES) * patches.len().max(1) as u64, 16)?;
    let mut words = Vec::with_capacity(4 * patches.len());
    for p in patches {
        words.extend([
            p.address as u32,
            (p.address >> 32) as u32,
            u32::from(p.shift) | u32::from(p.width) << 8 | u32::from(p.value) << 16,
            0,
        ]);
    }
    table.write_words(0, &words);
    Ok((table.gpu_va, patches.len() as u32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::draw::dcd;
    use crate::hw::job::header;

    #[test]
    fn fields_become_word_and_bit_ranges() {
        let p = job_type(0x1000, 6).unwrap();
        // Job type: bits 1..7 of header word 4.
        assert_eq!((p.address, p.shift, p.width), (0x1010, 1, 7));
        assert_eq!(header::TYPE.start, 4 * 32 + 1);
        for arch in [Arch::V6, Arch::V7] {
            let [a, b] = invocation(arch, 0x2000, [1, 2]).unwrap();
            assert_eq!((a.address, b.address), (0x2020, 0x2024));
            let s = draw_field(arch, 0x2000, dcd::INSTANCE_SIZE, 9).unwrap();
            let o = draw_field(arch, 0x2000, dcd::OFFSET_START, 10).unwrap();
            assert_eq!((s.shift, s.width), (16, 8));
            assert_eq!(o.address, s.address + 4);
            assert_eq!((o.shift, o.width), (0, 32));
        }
        // A 64-bit field cannot be patched.
        assert!(Patch::field(0, dcd::STATE, 0).is_err());
    }
}
