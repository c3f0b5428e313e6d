//! Vertex attribute descriptors: "Attribute" (8 B: buffer index, format,
//! offset), "Attribute Buffer" (16 B: type, pointer, stride, size, with the
//! Divisor / Divisor R / P / E views of bits 56-63 chosen by the type) and the
//! continuation records that follow some buffers ("NPOT" divisor magic, 3D
//! dimensions). Varyings use the same records.
//!
//! Identical on v6 and v7 except how the Attribute's 22-bit format word is
//! read: [`attribute`] for the architecture gives the right table (its format
//! field prints as `Format (v6)` or `Format (v7)`).
//!
//! This module must never choose divisors or formats for a vertex binding;
//! see `hw::format` for format words.

use super::Arch;
use super::genxml::{v6, v7};
use super::layout::{Field, Layout};

pub use super::genxml::common::{
    ATTRIBUTE_BUFFER, ATTRIBUTE_BUFFER_CONTINUATION_3D, ATTRIBUTE_BUFFER_CONTINUATION_NPOT,
    ATTRIBUTE_TYPE as ATTRIBUTE_TYPES, attribute_buffer,
    attribute_buffer_continuation_3d as continuation_3d,
    attribute_buffer_continuation_npot as continuation_npot,
};
pub use super::genxml::v6::ATTRIBUTE as ATTRIBUTE_V6;
pub use super::genxml::v7::ATTRIBUTE as ATTRIBUTE_V7;

/// Attribute Type values the emitter uses.
pub mod attribute_type {
    pub const LINEAR_1D: u64 = 1;
    pub const POT_DIVISOR_1D: u64 = 2;
    pub const MODULUS_1D: u64 = 3;
    pub const NPOT_DIVISOR_1D: u64 = 4;
    pub const LINEAR_3D: u64 = 5;
    pub const INTERLEAVED_3D: u64 = 6;
    pub const NPOT_DIVISOR_WRITE_REDUCTION_1D: u64 = 12;
    pub const CONTINUATION: u64 = 32;
}

/// The Attribute fields (positions are the same on v6; `FORMAT_V6` reads the
/// format word with the v6 table).
pub mod attribute_desc {
    pub use crate::hw::genxml::v7::attribute::*;
    pub const FORMAT_V6: super::Field = super::v6::attribute::FORMAT;
}

/// The per-instance vertex count the hardware pads an instanced job's
/// vertex count to: its threads' linear index is `vertex + instance ×
/// padded`, so every `Instance Size` and 1D-modulus / divisor record the
/// driver derives from the draw must use exactly this value.
///
/// The rule is the hardware's, as Mesa reconstructs it (Mesa
/// `src/panfrost/lib/pan_attributes.c`, `pan_padded_vertex_count`, whose
/// comment says it "has to match exactly how the hardware calculates
/// this ... or else instancing will break"; explained in Mesa's
/// `docs/drivers/panfrost/instancing.rst`: "padded_num_vertices is picked
/// by the hardware. The driver just specifies the actual number of
/// vertices"):
///
/// - below 10: the count itself;
/// - 10 to 19: rounded up to even;
/// - from 20: with `t` the top four bits of the count (its highest set bit
///   and the three below it) and `n` the bits under them, `t = 8` → `9 << n`,
///   `t = 9` → `10 << n`, `t` 10–11 → `12 << n`, 12–13 → `14 << n`, 14–15 →
///   `16 << n`: always strictly above the count, never the smallest
///   encodable value at or above it (11 → 12, 20 → 24, 32 → 36, 70 → 72).
///
/// Every result is a padded-encodable `(2k+1) << s` except for 0 (no
/// vertices) and counts from `0xE000_0000` (`1 << 32`), which no job can
/// have. 64-bit so that those do not wrap.
pub fn padded_vertex_count(vertices: u32) -> u64 {
    let v = u64::from(vertices);
    if v < 10 {
        return v;
    }
    if v < 20 {
        return v.next_multiple_of(2);
    }
    let n = 64 - v.leading_zeros() - 4;
    let top = v >> n;
    let scaled = match top {
        8 => 9,
        9 => 10,
        10 | 11 => 12,
        12 | 13 => 14,
        _ => 16,
    };
    scaled << n
}

/// What the attribute unit computes for an NPOT-divisor buffer: linear
/// index `n` × the magic `2^31 | numerator`, shifted right by `32 + r`, after
/// adding `e` to `n` (`Divisor E`). Mesa's `docs/drivers/panfrost/instancing.rst`
/// describes the hardware's steps (multiply by the magic with its implicit
/// top bit, the "round-down" correction when `E` is set, shift by `r`);
/// writing the correction as `n + E` is our exact reading of that
/// ridiculousfish-style round-down method (uncertain, docs/STATUS.md). The
/// continuation record's `Divisor` is not an input. See `jm::vertex_input`
/// for how the emitter chooses the fields and why this is exact; 128-bit so
/// nothing wraps.
pub fn npot_divide(n: u64, numerator: u32, r: u32, e: bool) -> u64 {
    let magic = u128::from(numerator) | 1 << 31;
    (((u128::from(n) + u128::from(e)) * magic) >> (32 + r.min(31))) as u64
}

/// The Attribute table of an architecture.
pub fn attribute(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &v6::ATTRIBUTE,
        Arch::V7 => &v7::ATTRIBUTE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::layout::{encode_padded, padded_round_up};

    #[test]
    fn padded_vertex_count_follows_the_hardware_rule() {
        // Worked by hand from the rule (see `padded_vertex_count`):
        // below 10 unchanged, 10-19 to even, then by the top four bits.
        let worked = [
            (1, 1),
            (5, 5),
            (9, 9),
            (10, 10),
            (11, 12), // smallest encodable would be 11
            (17, 18),
            (19, 20),
            (20, 24), // 10100: top 1010, n 1 → 12 << 1 (encodable: 20)
            (23, 24), // 10111: top 1011 → 12 << 1
            (24, 28), // 11000: top 1100 → 14 << 1
            (28, 32), // 11100: top 1110 → 16 << 1
            (31, 32),
            (32, 36),   // 100000: top 1000, n 2 → 9 << 2 (encodable: 32)
            (36, 40),   // 100100: top 1001 → 10 << 2
            (70, 72),   // Mesa's instancing.rst example: 1000110 → 9 << 3
            (100, 112), // 1100100: top 1100, n 3 → 14 << 3
            (1000, 1024),
            (0x8000_0000, 9 << 28),
        ];
        for (n, want) in worked {
            assert_eq!(padded_vertex_count(n), want, "{n}");
        }
        assert_eq!(padded_vertex_count(0), 0);
    }

    #[test]
    fn padded_vertex_counts_are_encodable_and_large_enough() {
        let mut differ = 0;
        for n in (1..70_000u32).chain([0xDFFF_FFFF, 0x1234_5678, 0x7FFF_FFFF]) {
            let p = padded_vertex_count(n);
            assert!(p >= u64::from(n), "{n} → {p}");
            assert!(encode_padded(p).is_some(), "{n} → {p} not encodable");
            if n >= 20 {
                assert!(p > u64::from(n), "{n} → {p}");
            }
            if n < 1000 && padded_round_up(u64::from(n)) != Some(p) {
                differ += 1;
            }
        }
        // The smallest-encodable rule disagrees for 409 of the counts below
        // 1000 (counted with an independent script).
        assert_eq!(differ, 409);
    }
}
