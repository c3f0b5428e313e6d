//! Attribute-buffer records for vertex input: how a buffer's element index
//! follows from the hardware's linear vertex index, and the divisor encodings
//! that express it.
//!
//! The attribute unit computes one linear index per thread,
//! `vertex + Offset start + instance × Instance Size` (`Instance Size` is the
//! padded per-instance vertex count of the draw), and each attribute buffer
//! turns it into an element number by its type:
//!
//! - per-vertex data of a non-instanced draw: `1D`, the index itself;
//! - per-vertex data of an instanced draw: `1D Modulus` by `Instance Size`;
//! - per-instance data (instance rate with divisor `k`): the index divided by
//!   `k × Instance Size`: `1D POT Divisor` (a shift, `Divisor R`) when that
//!   is a power of two, otherwise `1D NPOT Divisor`, a multiply by a 32-bit
//!   magic number followed by a shift, whose numerator lives in the
//!   continuation record that follows the buffer (so the buffer takes two
//!   slots of the attribute-buffer table).
//!
//! NPOT magic (facts from Mesa's `panfrost_compute_magic_divisor` and the
//! genxml layout): with `r = floor(log2 d)`, the magic is
//! `m = round(2^(32+r) / d)`, a 32-bit number whose top bit is always set and
//! therefore not stored (`Divisor Numerator` = `m - 2^31`); `Divisor R` = `r`;
//! `Divisor E` = 1 when `m` was rounded down. The hardware then computes
//! `((n + E) × m) >> (32 + r)` ([`crate::hw::attribute::npot_divide`]). That
//! formula is our reading of what the encoding implies (Mesa only writes
//! the fields); with this choice of `m` it is exact for every
//! `n < 2^32 - 1` (a rounded-up `m` errs by at most `d/2` per `2^(32+r)`, a
//! rounded-down one is corrected by the `+ E`), which `tests` checks and the
//! simulator relies on.

use crate::hw::attribute::{attribute_buffer as ab, attribute_type, continuation_npot};
use crate::hw::layout::Field;
use crate::kmod::{KmodError, KmodResult};

/// How one attribute buffer indexes its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Indexing {
    /// Element = linear index (per-vertex data, one instance).
    Linear,
    /// Element = linear index mod `instance_size` (per-vertex data of an
    /// instanced draw; `instance_size` must be a padded count).
    PerVertex { instance_size: u32 },
    /// Element = linear index / (`divisor` × `instance_size`): per-instance
    /// data advancing every `divisor` instances.
    PerInstance { instance_size: u32, divisor: u32 },
}

/// The NPOT-divisor encoding of one divisor (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NpotMagic {
    /// `Divisor Numerator`: the magic without its implicit top bit.
    pub numerator: u32,
    /// `Divisor R`: `floor(log2 d)`.
    pub shift: u32,
    /// `Divisor E`: the magic was rounded down; add 1 to the index first.
    pub round_down: bool,
}

impl NpotMagic {
    /// The magic for divisor `d` (≥ 2, not a power of two).
    pub fn new(d: u32) -> NpotMagic {
        debug_assert!(d >= 2 && !d.is_power_of_two());
        let d64 = u64::from(d);
        let shift = d.ilog2();
        let t = 1u128 << (32 + shift);
        let floor = (t / u128::from(d64)) as u64;
        let rem = (t % u128::from(d64)) as u64;
        // Round to nearest: up when the remainder is at least half of d.
        let round_up = 2 * rem >= d64;
        let m = if round_up { floor + 1 } else { floor };
        debug_assert!((1u64 << 31..1u64 << 32).contains(&m));
        NpotMagic {
            numerator: (m - (1 << 31)) as u32,
            shift,
            round_down: !round_up,
        }
    }

    /// What the hardware computes for linear index `n` with this magic
    /// ([`crate::hw::attribute::npot_divide`]).
    pub fn divide(self, n: u64) -> u64 {
        crate::hw::attribute::npot_divide(n, self.numerator, self.shift, self.round_down)
    }
}

fn set(words: &mut [u32], f: Field, v: u64) -> KmodResult<()> {
    f.set(words, v)
        .map_err(|_| KmodError::Invalid("attribute buffer field overflow"))
}

/// Attribute-buffer table slots `indexing` takes: 2 for NPOT divisors (the
/// continuation record), 1 otherwise.
pub fn buffer_slots(indexing: Indexing) -> usize {
    match npot_divisor(indexing) {
        Ok(Some(_)) => 2,
        _ => 1,
    }
}

/// The per-instance hardware divisor when it is not a power of two.
fn npot_divisor(indexing: Indexing) -> KmodResult<Option<u32>> {
    match indexing {
        Indexing::PerInstance {
            instance_size,
            divisor,
        } => {
            let d = u64::from(divisor.max(1)) * u64::from(instance_size.max(1));
            let d = u32::try_from(d)
                .map_err(|_| KmodError::Invalid("instance divisor beyond 32 bits"))?;
            Ok((!d.is_power_of_two()).then_some(d))
        }
        _ => Ok(None),
    }
}

/// Packs the attribute-buffer record(s) of one buffer into `words`
/// (4 words per slot, [`buffer_slots`] slots) over the all-zero defaults
/// the caller provides.
pub fn pack_attribute_buffer(
    words: &mut [u32],
    va: u64,
    stride: u32,
    size: u32,
    indexing: Indexing,
) -> KmodResult<()> {
    let slots = buffer_slots(indexing);
    if words.len() < 4 * slots {
        return Err(KmodError::Invalid("attribute buffer table too small"));
    }
    if !va.is_multiple_of(64) {
        return Err(KmodError::Invalid("attribute buffer not 64-byte aligned"));
    }
    let record = &mut words[..4];
    set(record, ab::POINTER, va)?;
    set(record, ab::STRIDE, u64::from(stride))?;
    set(record, ab::SIZE, u64::from(size))?;
    match indexing {
        Indexing::Linear => set(record, ab::TYPE, attribute_type::LINEAR_1D)?,
        Indexing::PerVertex { instance_size } => {
            set(record, ab::TYPE, attribute_type::MODULUS_1D)?;
            set(record, ab::DIVISOR, u64::from(instance_size.max(1)))?;
        }
        Indexing::PerInstance { .. } => match npot_divisor(indexing)? {
            None => {
                let Indexing::PerInstance {
                    instance_size,
                    divisor,
                } = indexing
                else {
                    unreachable!()
                };
                let d = divisor.max(1) * instance_size.max(1);
                set(record, ab::TYPE, attribute_type::POT_DIVISOR_1D)?;
                set(record, ab::DIVISOR_R, u64::from(d.trailing_zeros()))?;
            }
            Some(d) => {
                let magic = NpotMagic::new(d);
                set(record, ab::TYPE, attribute_type::NPOT_DIVISOR_1D)?;
                set(record, ab::DIVISOR_R, u64::from(magic.shift))?;
                set(record, ab::DIVISOR_E, u64::from(magic.round_down))?;
                let cont = &mut words[4..8];
                set(cont, continuation_npot::TYPE, attribute_type::CONTINUATION)?;
                set(
                    cont,
                    continuation_npot::DIVISOR_NUMERATOR,
                    u64::from(magic.numerator),
                )?;
                set(cont, continuation_npot::DIVISOR, u64::from(d))?;
            }
        },
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::attribute::padded_vertex_count;

    /// Indices that stress the magic: around multiples of `d` and the top of
    /// the 32-bit range.
    fn probes(d: u32) -> Vec<u64> {
        let d = u64::from(d);
        let mut out = vec![0, 1, d - 1, d, d + 1, u64::from(u32::MAX) - 1];
        let top = (u64::from(u32::MAX) - 1) / d * d;
        out.extend(
            [top, top + 1]
                .into_iter()
                .chain([1, d, d + 1].iter().map(|&k| top.wrapping_sub(k))),
        );
        let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ d;
        for _ in 0..64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let q = (x >> 33) % (u64::from(u32::MAX) / d);
            out.extend([q * d, q * d + d - 1, x % u64::from(u32::MAX - 1)]);
        }
        out.retain(|&n| n < u64::from(u32::MAX));
        out
    }

    #[test]
    fn npot_magic_divides_exactly_below_2_pow_32_minus_1() {
        let mut divisors: Vec<u32> = (3..5000).filter(|d: &u32| !d.is_power_of_two()).collect();
        // Every padded count (the divisors instanced draws actually use).
        for s in 0..28 {
            for k in [3u32, 5, 7, 9, 11, 13, 15] {
                divisors.push(k << s);
            }
        }
        divisors.extend([
            u32::MAX,
            u32::MAX - 2,
            (1 << 31) + 1,
            0x7FFF_FFFF,
            4_294_967_291,
        ]);
        for d in divisors {
            let magic = NpotMagic::new(d);
            assert_eq!(magic.shift, d.ilog2());
            for n in probes(d) {
                assert_eq!(
                    magic.divide(n),
                    n / u64::from(d),
                    "{n} / {d} with {magic:?}"
                );
            }
        }
    }

    #[test]
    fn npot_magic_fields_for_small_divisors() {
        // 3: 2^33 / 3 = 2863311530.67 → rounded up to 2863311531 = 0xAAAAAAAB.
        let m = NpotMagic::new(3);
        assert_eq!(
            (m.numerator | 1 << 31, m.shift, m.round_down),
            (0xAAAA_AAAB, 1, false)
        );
        // 7: 2^34 / 7 = 2454267026.29 → rounded down, E = 1.
        let m = NpotMagic::new(7);
        assert_eq!(
            (m.numerator | 1 << 31, m.shift, m.round_down),
            (0x9249_2492, 2, true)
        );
    }

    #[test]
    fn packs_each_indexing_kind() {
        let va = 0x1_0000_0040;
        let mut w = [0u32; 8];
        pack_attribute_buffer(&mut w, va, 12, 600, Indexing::Linear).unwrap();
        assert_eq!(ab::TYPE.get(&w), attribute_type::LINEAR_1D);
        assert_eq!(
            (ab::POINTER.get(&w), ab::STRIDE.get(&w), ab::SIZE.get(&w)),
            (va, 12, 600)
        );

        let isize = padded_vertex_count(11) as u32; // 12
        let mut w = [0u32; 8];
        pack_attribute_buffer(
            &mut w,
            va,
            4,
            64,
            Indexing::PerVertex {
                instance_size: isize,
            },
        )
        .unwrap();
        assert_eq!(ab::TYPE.get(&w), attribute_type::MODULUS_1D);
        assert_eq!(ab::DIVISOR.get(&w), u64::from(isize));

        let pot = Indexing::PerInstance {
            instance_size: 8,
            divisor: 2,
        };
        assert_eq!(buffer_slots(pot), 1);
        let mut w = [0u32; 8];
        pack_attribute_buffer(&mut w, va, 4, 64, pot).unwrap();
        assert_eq!(ab::TYPE.get(&w), attribute_type::POT_DIVISOR_1D);
        assert_eq!(ab::DIVISOR_R.get(&w), 4);
        assert_eq!(w[4..], [0; 4]);

        let npot = Indexing::PerInstance {
            instance_size: 6,
            divisor: 1,
        };
        assert_eq!(buffer_slots(npot), 2);
        let mut w = [0u32; 8];
        pack_attribute_buffer(&mut w, va, 4, 64, npot).unwrap();
        let magic = NpotMagic::new(6);
        assert_eq!(ab::TYPE.get(&w), attribute_type::NPOT_DIVISOR_1D);
        assert_eq!(ab::DIVISOR_R.get(&w), 2);
        assert_eq!(ab::DIVISOR_E.get(&w), u64::from(magic.round_down));
        let cont = &w[4..];
        assert_eq!(
            continuation_npot::TYPE.get(cont),
            attribute_type::CONTINUATION
        );
        assert_eq!(
            continuation_npot::DIVISOR_NUMERATOR.get(cont),
            u64::from(magic.numerator)
        );
        assert_eq!(continuation_npot::DIVISOR.get(cont), 6);

        // Too small a table, misalignment and 32-bit overflow are errors.
        assert!(pack_attribute_buffer(&mut [0u32; 4], va, 4, 64, npot).is_err());
        assert!(pack_attribute_buffer(&mut [0u32; 8], va + 4, 4, 64, npot).is_err());
        let huge = Indexing::PerInstance {
            instance_size: 1 << 20,
            divisor: 1 << 13,
        };
        assert!(pack_attribute_buffer(&mut [0u32; 8], va, 4, 64, huge).is_err());
    }
}
