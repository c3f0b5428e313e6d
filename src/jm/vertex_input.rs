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
//! NPOT magic, as both Mesa drivers choose it (Mesa
//! `src/panfrost/lib/pan_attributes.c`, `pan_compute_magic_divisor`;
//! explained in `docs/drivers/panfrost/instancing.rst`): with
//! `r = floor(log2 d)` and `e = 2^(32+r) mod d`, the magic is
//! `m = floor(2^(32+r) / d)` with `Divisor E` = 1 ("round down") when
//! `e <= 2^r`, otherwise `m = ceil(2^(32+r) / d)` with `Divisor E` = 0; `m`
//! is a 32-bit number whose top bit is always set and therefore not stored
//! (`Divisor Numerator` = `m - 2^31`); `Divisor R` = `r`. The continuation
//! record's `Divisor` holds the API divisor (the binding's, not the
//! hardware divisor `k × Instance Size`), as gallium's
//! `panfrost_emit_vertex_data` and PanVk's `panvk_draw_emit_attrib_buf`
//! write it; the division does not read it.
//!
//! The hardware computes `((n + E) × m) >> (32 + r)`
//! ([`crate::hw::attribute::npot_divide`]): instancing.rst says it
//! multiplies by the magic (implicit top bit), applies the round-down
//! correction when `E` is set and shifts by `r`, the "round-down" method of
//! ridiculousfish's unsigned division by constants, whose correction is
//! the `+ 1` on the index. With Mesa's choice of `m` the result is exact
//! for every 32-bit `n`: rounded down, the error `(n+1)·e / (d·2^(32+r))`
//! stays below `1/d` while `n + 1 <= 2^32` because `e <= 2^r`; rounded up,
//! the error `n·(d-e) / (d·2^(32+r))` does too because `d - e < 2^r`.
//! The tests check it and the simulator relies on it.

use super::error::{JmError, JmResult};
use crate::hw::attribute::{attribute_buffer as ab, attribute_type, continuation_npot};
use crate::hw::layout::Field;

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
    /// The magic for divisor `d` (≥ 3, not a power of two), by Mesa's rule
    /// (see the module docs).
    pub fn new(d: u32) -> NpotMagic {
        debug_assert!(d >= 3 && !d.is_power_of_two());
        let d64 = u64::from(d);
        let shift = d.ilog2();
        let t = 1u64 << (32 + shift);
        let floor = t / d64;
        let rem = t % d64;
        // Round down (and correct with E) whenever the remainder allows it.
        let round_down = rem <= 1u64 << shift;
        let m = if round_down { floor } else { floor + 1 };
        debug_assert!((1u64 << 31..1u64 << 32).contains(&m));
        NpotMagic {
            numerator: (m - (1 << 31)) as u32,
            shift,
            round_down,
        }
    }

    /// What the hardware computes for linear index `n` with this magic
    /// ([`crate::hw::attribute::npot_divide`]).
    pub fn divide(self, n: u64) -> u64 {
        crate::hw::attribute::npot_divide(n, self.numerator, self.shift, self.round_down)
    }
}

fn set(words: &mut [u32], f: Field, v: u64) -> JmResult<()> {
    f.set(words, v)
        .map_err(|_| JmError::Encoding("attribute buffer field overflow"))
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
fn npot_divisor(indexing: Indexing) -> JmResult<Option<u32>> {
    match indexing {
        Indexing::PerInstance {
            instance_size,
            divisor,
        } => {
            let d = u64::from(divisor.max(1)) * u64::from(instance_size.max(1));
            let d = u32::try_from(d)
                .map_err(|_| JmError::Encoding("instance divisor beyond 32 bits"))?;
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
) -> JmResult<()> {
    let slots = buffer_slots(indexing);
    if words.len() < 4 * slots {
        return Err(JmError::Encoding("attribute buffer table too small"));
    }
    if !va.is_multiple_of(64) {
        return Err(JmError::Encoding("attribute buffer not 64-byte aligned"));
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
                // The API divisor, as Mesa writes it (module docs).
                let Indexing::PerInstance { divisor, .. } = indexing else {
                    unreachable!()
                };
                set(cont, continuation_npot::DIVISOR, u64::from(divisor.max(1)))?;
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
    /// the 32-bit range (2^32 - 1 included).
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
        out.push(u64::from(u32::MAX));
        out.retain(|&n| n <= u64::from(u32::MAX));
        out
    }

    #[test]
    fn npot_magic_divides_exactly_for_every_32_bit_index() {
        let mut divisors: Vec<u32> = (3..5000).filter(|d: &u32| !d.is_power_of_two()).collect();
        // Every padded count (the divisors instanced draws actually use).
        for s in 0..28 {
            for k in [3u32, 5, 7, 9, 11, 13, 15] {
                divisors.push(k << s);
            }
        }
        // The hardware padding of many vertex counts times API divisors.
        for n in (20..200_000).step_by(997) {
            for k in [1u64, 3, 5, 6, 7, 100] {
                let d = padded_vertex_count(n) * k;
                if d < 1 << 32 && !d.is_power_of_two() {
                    divisors.push(d as u32);
                }
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
        let fields = |d| {
            let m = NpotMagic::new(d);
            (m.numerator | 1 << 31, m.shift, m.round_down)
        };
        // 3: 2^33 = 2863311530 × 3 + 2, remainder 2 <= 2^1 → rounded down,
        // E = 1 (round to nearest would have taken 0xAAAAAAAB, E = 0).
        assert_eq!(fields(3), (0xAAAA_AAAA, 1, true));
        // 7: 2^34 = 2454267026 × 7 + 2, 2 <= 2^2 → rounded down, E = 1.
        assert_eq!(fields(7), (0x9249_2492, 2, true));
        // 11: 2^35 = 3123612578 × 11 + 10, 10 > 2^3 → rounded up, E = 0.
        assert_eq!(fields(11), (0xBA2E_8BA3, 3, false));
        // 12 (11 vertices padded): 2^35 = 2863311530 × 12 + 8, 8 <= 2^3.
        assert_eq!(fields(12), (0xAAAA_AAAA, 3, true));
    }

    /// Mesa's steps, as `docs/drivers/panfrost/instancing.rst` lists them
    /// (ceil, remainder, round down when the remainder is at most 2^shift),
    /// against [`NpotMagic::new`] for every NPOT divisor below 70,000 and
    /// some large ones.
    #[test]
    fn npot_magic_follows_mesa_steps() {
        let large = [u32::MAX, u32::MAX - 2, 0x8000_0001, 3 << 30, 9 << 28];
        for d in (3..70_000u32).chain(large) {
            if d.is_power_of_two() {
                continue;
            }
            let shift = d.ilog2();
            let t = 1u128 << (32 + shift);
            let ceil = t.div_ceil(u128::from(d));
            let e = t % u128::from(d);
            let (m, flag) = if e <= 1 << shift {
                (ceil - 1, true)
            } else {
                (ceil, false)
            };
            let magic = NpotMagic::new(d);
            assert_eq!(
                (u128::from(magic.numerator) | 1 << 31, magic.round_down),
                (m, flag),
                "{d}"
            );
        }
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

        // 11 vertices (padded to 12) and an API divisor of 3: hardware
        // divisor 36, the continuation keeps the API divisor 3.
        let npot = Indexing::PerInstance {
            instance_size: 12,
            divisor: 3,
        };
        assert_eq!(buffer_slots(npot), 2);
        let mut w = [0u32; 8];
        pack_attribute_buffer(&mut w, va, 4, 64, npot).unwrap();
        let magic = NpotMagic::new(36);
        assert_eq!(ab::TYPE.get(&w), attribute_type::NPOT_DIVISOR_1D);
        assert_eq!(ab::DIVISOR_R.get(&w), 5);
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
        assert_eq!(continuation_npot::DIVISOR.get(cont), 3);

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
