//! The work-size descriptors of compute and vertex jobs: "Invocation" (8 B)
//! and "Compute Job Parameters" (24 B), identical on v6 and v7, plus the
//! packed invocation encoding both the emitter and the simulator need.
//!
//! Invocation packing (`panfrost_pack_work_groups_compute` in Mesa's
//! src/panfrost/lib/pan_encoder.h): the six values `size x,y,z` (work-group
//! size) and `count x,y,z` (number of work groups) are stored minus one in
//! consecutive bit ranges of `Invocations`, each `ceil(log2(value))` bits
//! wide; the five shift fields say where ranges 2..6 start. Graphics jobs use
//! `Thread group split` = 2 ("Min efficient") and set `Workgroups Z shift` to
//! 32 when there is a single instance; compute jobs use `Thread group split`
//! = `Workgroups X shift` (barriers depend on it).
//!
//! This module must never decide how a draw or dispatch is split into jobs;
//! it only encodes what it is given.

pub use super::genxml::common::{COMPUTE_JOB_PARAMETERS, INVOCATION, invocation};
use super::layout::Field;

pub mod parameters {
    pub use crate::hw::genxml::common::compute_job_parameters::*;

    /// `Job Task Split` of vertex jobs (panvk and gallium).
    pub const VERTEX_JOB_TASK_SPLIT: u64 = 5;
}

/// A work size: `size` invocations per work group in x, y, z and `count`
/// work groups (vertex jobs: size (1,1,1), count (1, vertices, instances)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkSize {
    pub size: [u32; 3],
    pub count: [u32; 3],
}

/// A work size that the 32-bit `Invocations` field cannot hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("work size {size:?} x {count:?} does not fit the 32-bit invocation encoding")]
pub struct InvocationError {
    pub size: [u32; 3],
    pub count: [u32; 3],
}

/// Bits needed to store `value - 1`: ceil(log2(value)); 0 for value 1.
pub const fn bits_for(value: u32) -> u32 {
    if value <= 1 {
        0
    } else {
        32 - (value - 1).leading_zeros()
    }
}

impl WorkSize {
    /// The work size of a vertex job: one "work group" per vertex, one z
    /// slice per instance.
    pub const fn vertices(vertex_range: u32, instances: u32) -> WorkSize {
        WorkSize {
            size: [1, 1, 1],
            count: [1, vertex_range, instances],
        }
    }

    fn values(&self) -> [u32; 6] {
        [
            self.size[0],
            self.size[1],
            self.size[2],
            self.count[0],
            self.count[1],
            self.count[2],
        ]
    }

    /// Invocation words for a compute job (split = Workgroups X shift).
    pub fn pack_compute(&self) -> Result<[u32; 2], InvocationError> {
        self.pack(false)
    }

    /// Invocation words for a vertex/tiler/IDVS job (split = Min efficient,
    /// Workgroups Z shift = 32 for a single instance).
    pub fn pack_graphics(&self) -> Result<[u32; 2], InvocationError> {
        self.pack(true)
    }

    fn pack(&self, graphics: bool) -> Result<[u32; 2], InvocationError> {
        let err = InvocationError {
            size: self.size,
            count: self.count,
        };
        let mut shifts = [0u32; 7];
        let mut packed = 0u64;
        for (i, v) in self.values().into_iter().enumerate() {
            if v == 0 {
                return Err(err);
            }
            packed |= u64::from(v - 1) << shifts[i];
            shifts[i + 1] = shifts[i] + bits_for(v);
        }
        if shifts[6] > 32 {
            return Err(err);
        }
        let mut w = [0u32; 2];
        use invocation::*;
        let set = |w: &mut [u32; 2], f: Field, v: u32| f.set(w, u64::from(v));
        let fill = |w: &mut [u32; 2]| -> Result<(), crate::hw::layout::PackError> {
            set(w, INVOCATIONS, packed as u32)?;
            set(w, SIZE_Y_SHIFT, shifts[1])?;
            set(w, SIZE_Z_SHIFT, shifts[2])?;
            set(w, WORKGROUPS_X_SHIFT, shifts[3])?;
            set(w, WORKGROUPS_Y_SHIFT, shifts[4])?;
            let z_shift = if graphics && self.count[2] <= 1 {
                32
            } else {
                shifts[5]
            };
            set(w, WORKGROUPS_Z_SHIFT, z_shift)?;
            let split = if graphics {
                THREAD_GROUP_SPLIT_MIN_EFFICIENT as u32
            } else {
                shifts[3]
            };
            set(w, THREAD_GROUP_SPLIT, split)
        };
        // Shifts ≤ 32 always fit their fields except Size Y/Z shift (5 bits)
        // at exactly 32, which means the later ranges are empty anyway.
        fill(&mut w).map_err(|_| err)?;
        Ok(w)
    }

    /// Read an Invocation back the way the hardware (and pandecode) does:
    /// range i is bits [shift_i, shift_i+1) of `Invocations`, plus one.
    pub fn unpack(words: &[u32]) -> WorkSize {
        use invocation::*;
        let inv = INVOCATIONS.get(words) as u32;
        let s = [
            0,
            SIZE_Y_SHIFT.get(words) as u32,
            SIZE_Z_SHIFT.get(words) as u32,
            WORKGROUPS_X_SHIFT.get(words) as u32,
            WORKGROUPS_Y_SHIFT.get(words) as u32,
            WORKGROUPS_Z_SHIFT.get(words) as u32,
            32,
        ];
        let v = |i: usize| bit_range(inv, s[i], s[i + 1]).wrapping_add(1);
        WorkSize {
            size: [v(0), v(1), v(2)],
            count: [v(3), v(4), v(5)],
        }
    }

    /// `Job Task Split` of a compute job: Σ ceil(log2(size_d + 1)).
    pub fn compute_job_task_split(&self) -> u32 {
        self.size
            .iter()
            .map(|&s| bits_for(s.saturating_add(1)))
            .sum()
    }
}

/// Bits [lo, hi) of `word`, with pandecode's edge rules: the whole word when
/// the range is 32 bits or more (or reversed), nothing when `lo` ≥ 32.
pub fn bit_range(word: u32, lo: u32, hi: u32) -> u32 {
    let len = hi.wrapping_sub(lo);
    if len >= 32 {
        word
    } else if lo >= 32 {
        0
    } else {
        (word >> lo) & ((1u32 << len) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked by hand from Mesa's packing rule (module docs), and checked against the PanVk
    /// snapshots' pandecode listings.
    #[test]
    fn compute_examples() {
        // cs_ssbo_vec4: local 16x4x1, one group: values 15,3,0,0,0,0 in
        // widths 4,2,0,0,0,0 → Invocations 15 | 3<<4 = 63, shifts 4,6,6,6,6.
        let ws = WorkSize {
            size: [16, 4, 1],
            count: [1, 1, 1],
        };
        let w = ws.pack_compute().unwrap();
        assert_eq!(
            INVOCATION.unpack(&w),
            vec![
                ("Invocations", 63),
                ("Size Y shift", 4),
                ("Size Z shift", 6),
                ("Workgroups X shift", 6),
                ("Workgroups Y shift", 6),
                ("Workgroups Z shift", 6),
                ("Thread group split", 6),
            ]
        );
        assert_eq!(WorkSize::unpack(&w), ws);
        assert_eq!(ws.compute_job_task_split(), 9);
        // 1x1x1 x 1x1x1 packs to all zeros; task split 1+1+1.
        let one = WorkSize {
            size: [1, 1, 1],
            count: [1, 1, 1],
        };
        assert_eq!(one.pack_compute().unwrap(), [0, 0]);
        assert_eq!(one.compute_job_task_split(), 3);
        // local 8x8x1, groups 3x5x7: widths 3,3,0,2,3,3 → shifts 3,6,6,8,11,(14).
        let ws = WorkSize {
            size: [8, 8, 1],
            count: [3, 5, 7],
        };
        let w = ws.pack_compute().unwrap();
        let expect = 7 | 7 << 3 | 2 << 6 | 4 << 8 | 6 << 11;
        assert_eq!(w[0], expect);
        assert_eq!(w[1], 3 | 6 << 5 | 6 << 10 | 8 << 16 | 11 << 22 | 6 << 28);
        assert_eq!(WorkSize::unpack(&w), ws);
    }

    #[test]
    fn vertex_examples() {
        // 3 vertices, 1 instance: count y = 3 (2 bits, value 2), z shift = 32.
        let w = WorkSize::vertices(3, 1).pack_graphics().unwrap();
        assert_eq!(w[0], 2);
        use invocation::*;
        assert_eq!(WORKGROUPS_X_SHIFT.get(&w), 0);
        assert_eq!(WORKGROUPS_Y_SHIFT.get(&w), 0);
        assert_eq!(WORKGROUPS_Z_SHIFT.get(&w), 32);
        assert_eq!(THREAD_GROUP_SPLIT.get(&w), 2);
        assert_eq!(WorkSize::unpack(&w), WorkSize::vertices(3, 1));
        // 100 vertices, 4 instances: 99 in 7 bits, then 3 at bit 7.
        let w = WorkSize::vertices(100, 4).pack_graphics().unwrap();
        assert_eq!(w[0], 99 | 3 << 7);
        assert_eq!(WORKGROUPS_Z_SHIFT.get(&w), 7);
        assert_eq!(WorkSize::unpack(&w), WorkSize::vertices(100, 4));
    }

    #[test]
    fn too_large_or_zero_is_an_error() {
        assert!(
            WorkSize::vertices(1 << 20, 1 << 13)
                .pack_graphics()
                .is_err()
        );
        assert!(WorkSize::vertices(0, 1).pack_graphics().is_err());
        // Exactly 32 bits is fine.
        let w = WorkSize::vertices(1 << 20, 1 << 12)
            .pack_graphics()
            .unwrap();
        assert_eq!(WorkSize::unpack(&w), WorkSize::vertices(1 << 20, 1 << 12));
    }

    proptest::proptest! {
        #[test]
        fn pack_unpack_round_trips(
            sx in 1u32..=64, sy in 1u32..=64, sz in 1u32..=64,
            cx in 1u32..=300, cy in 1u32..=300, cz in 1u32..=300,
        ) {
            let ws = WorkSize { size: [sx, sy, sz], count: [cx, cy, cz] };
            if let Ok(w) = ws.pack_compute() {
                proptest::prop_assert_eq!(WorkSize::unpack(&w), ws);
                proptest::prop_assert!(INVOCATION.check_reserved(&w).is_ok());
            }
            if let Ok(w) = ws.pack_graphics() {
                proptest::prop_assert_eq!(WorkSize::unpack(&w), ws);
            }
        }
    }
}
