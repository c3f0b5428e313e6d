//! Bifrost's own half-float conversions, as the backend's reference
//! semantics (`ops::Op::fold`) and the simulated shader core
//! (`kmod::sim::shader::exec`) model them — the one place they are defined.
//!
//! IEEE 754 binary16 conversion is the `half` crate everywhere the
//! specification asks for IEEE behaviour (SPIR-V constants, the IR's
//! semantics in `ir::eval`). This module differs from it only where the
//! hardware's conversion instructions (`F16_TO_F32`, `V2F32_TO_V2F16`, the
//! `h0`/`h1` source widening, `ST_CVT` to f16) do something IEEE leaves
//! open or that `half` does otherwise:
//!
//! - **f32 → f16, NaN**: the result is the quiet NaN `0x7e00` with the
//!   input's sign; the payload is dropped (`half` keeps its top ten bits).
//! - **f16 → f32, NaN**: the payload is widened unchanged (`m << 13`), so a
//!   signalling half NaN stays signalling (`half` sets the quiet bit).
//! - **Round toward zero** (`.rtz` conversions): `half` has none. A finite
//!   value beyond the largest half gives ±65504 (`0x7bff`), not infinity.
//!
//! Everything else — round to nearest even, ties, subnormals, overflow to
//! infinity, signed zeros — is IEEE and comes from `half`. These NaN rules
//! are our model, kept identical in the fold and the simulator; Mesa's
//! binaries and the differential tests never depend on a NaN payload.

use half::f16;

/// The quiet NaN with `sign` (0 or 0x8000) a conversion to f16 produces.
const QUIET_NAN: u16 = 0x7e00;

/// Bifrost's f16 → f32 (bits): exact; a NaN keeps its payload and its
/// quiet/signalling state.
pub fn f16_to_f32_bits(h: u16) -> u32 {
    if h & 0x7c00 == 0x7c00 && h & 0x3ff != 0 {
        (u32::from(h & 0x8000) << 16) | 0x7f80_0000 | (u32::from(h & 0x3ff) << 13)
    } else {
        f16::from_bits(h).to_f32().to_bits()
    }
}

/// Bifrost's f16 → f32 (see [`f16_to_f32_bits`]).
pub fn f16_to_f32(h: u16) -> f32 {
    f32::from_bits(f16_to_f32_bits(h))
}

/// Bifrost's f32 → f16: round to nearest even, or toward zero when `rtz`;
/// a NaN becomes the quiet NaN with the input's sign.
pub fn f32_to_f16(x: f32, rtz: bool) -> u16 {
    let sign = ((x.to_bits() >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return sign | QUIET_NAN;
    }
    let nearest = f16::from_f32(x).to_bits();
    if !rtz || x.is_infinite() {
        return nearest;
    }
    // Magnitudes of halves order like their bit patterns: if rounding to
    // nearest went up in magnitude, the truncated result is one below
    // (across a binade, and from infinity to 65504, alike).
    if f16::from_bits(nearest).to_f32().abs() > x.abs() {
        nearest - 1
    } else {
        nearest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every half's value, computed independently in f64.
    fn value(h: u16) -> f64 {
        let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
        let e = i32::from((h >> 10) & 0x1f);
        let m = f64::from(h & 0x3ff);
        match e {
            0 => s * m * 2f64.powi(-24),
            31 if m == 0.0 => s * f64::INFINITY,
            31 => f64::NAN,
            _ => s * (1024.0 + m) * 2f64.powi(e - 25),
        }
    }

    #[test]
    fn widening_is_exact_and_keeps_nan_payloads() {
        for h in 0..=0xffffu16 {
            let got = f16_to_f32_bits(h);
            let v = value(h);
            if v.is_nan() {
                let want =
                    (u32::from(h & 0x8000) << 16) | 0x7f80_0000 | (u32::from(h & 0x3ff) << 13);
                assert_eq!(got, want, "{h:#x}");
                // IEEE (`half`) quiets where we keep the state.
                let ieee = f16::from_bits(h).to_f32().to_bits();
                assert_eq!(ieee, want | 0x0040_0000, "{h:#x}");
            } else {
                assert_eq!(f64::from(f32::from_bits(got)), v, "{h:#x}");
                assert_eq!(got & 0x8000_0000 != 0, h & 0x8000 != 0, "{h:#x} sign");
            }
        }
        // Signalling stays signalling; quiet stays quiet.
        assert_eq!(f16_to_f32_bits(0x7c01), 0x7f80_2000);
        assert_eq!(f16_to_f32_bits(0xfe00), 0xffc0_0000);
        assert_eq!(f16_to_f32_bits(0x0001), 2f32.powi(-24).to_bits());
        assert_eq!(
            f16_to_f32_bits(0x83ff),
            (-1023.0 * 2f32.powi(-24)).to_bits()
        );
        assert_eq!(f16_to_f32_bits(0xfc00), f32::NEG_INFINITY.to_bits());
    }

    #[test]
    fn narrowing_round_trips_every_half() {
        for h in 0..=0xffffu16 {
            let x = f32::from_bits(f16_to_f32_bits(h));
            if x.is_nan() {
                assert_eq!(f32_to_f16(x, false), (h & 0x8000) | 0x7e00, "{h:#x}");
            } else {
                assert_eq!(f32_to_f16(x, false), h, "{h:#x}");
                assert_eq!(f32_to_f16(x, true), h, "{h:#x}");
            }
        }
    }

    #[test]
    fn nearest_even_ties_subnormals_and_overflow() {
        let n = |x: f32| f32_to_f16(x, false);
        // 1 + 2^-11 is halfway between 1.0 and 1 + 2^-10: even → 1.0.
        assert_eq!(n(1.0 + 2f32.powi(-11)), 0x3c00);
        assert_eq!(n(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        assert_eq!(n(-(1.0 + 3.0 * 2f32.powi(-11))), 0xbc02);
        // Largest half, the tie above it (→ inf), just below the tie.
        assert_eq!(n(65504.0), 0x7bff);
        assert_eq!(n(65520.0), 0x7c00);
        assert_eq!(n(65519.996), 0x7bff);
        assert_eq!(n(1.0e6), 0x7c00);
        assert_eq!(n(f32::INFINITY), 0x7c00);
        assert_eq!(n(f32::NEG_INFINITY), 0xfc00);
        // Subnormals: the smallest, the tie below it (→ 0), above it (→ 1).
        assert_eq!(n(2f32.powi(-24)), 0x0001);
        assert_eq!(n(2f32.powi(-25)), 0x0000);
        assert_eq!(n(1.5 * 2f32.powi(-25)), 0x0001);
        assert_eq!(n(2.5 * 2f32.powi(-24)), 0x0002); // tie → even
        // Largest subnormal rounding up into the smallest normal.
        assert_eq!(n(1023.75 * 2f32.powi(-24)), 0x0400);
        // f32 subnormals and signed zeros.
        assert_eq!(n(f32::from_bits(1)), 0x0000);
        assert_eq!(n(-f32::from_bits(1)), 0x8000);
        assert_eq!(n(-0.0), 0x8000);
    }

    #[test]
    fn nan_drops_the_payload_and_keeps_the_sign() {
        for bits in [
            0x7fc0_0000u32,
            0x7f80_0001,
            0x7fbf_ffff,
            0xffc0_0001,
            0xff80_2000,
        ] {
            let got = f32_to_f16(f32::from_bits(bits), false);
            assert_eq!(got, ((bits >> 16) as u16 & 0x8000) | 0x7e00, "{bits:#x}");
            assert_eq!(f32_to_f16(f32::from_bits(bits), true), got, "{bits:#x}");
        }
        // Where `half` (IEEE, payload kept) differs.
        assert_eq!(f16::from_f32(f32::from_bits(0x7fa0_0000)).to_bits(), 0x7f00);
        assert_eq!(f32_to_f16(f32::from_bits(0x7fa0_0000), false), 0x7e00);
    }

    #[test]
    fn toward_zero_truncates_and_saturates() {
        let z = |x: f32| f32_to_f16(x, true);
        assert_eq!(z(1.0 + 3.0 * 2f32.powi(-11)), 0x3c01);
        assert_eq!(z(-(1.0 + 3.0 * 2f32.powi(-11))), 0xbc01);
        assert_eq!(z(2.0 - 2f32.powi(-20)), 0x3fff); // below the binade's top
        assert_eq!(z(65519.0), 0x7bff);
        assert_eq!(z(1.0e6), 0x7bff);
        assert_eq!(z(-1.0e6), 0xfbff);
        assert_eq!(z(f32::INFINITY), 0x7c00);
        assert_eq!(z(1.9 * 2f32.powi(-24)), 0x0001);
        assert_eq!(z(0.9 * 2f32.powi(-24)), 0x0000);
        assert_eq!(z(-0.9 * 2f32.powi(-24)), 0x8000);
    }

    /// Against an independent bit-level reference over a spread of floats
    /// covering every exponent.
    #[test]
    fn agrees_with_a_bit_level_reference() {
        fn reference(x: f32, rtz: bool) -> u16 {
            let b = x.to_bits();
            let sign = ((b >> 16) & 0x8000) as u16;
            let exp = ((b >> 23) & 0xff) as i32;
            let man = b & 0x7f_ffff;
            if exp == 0xff {
                return sign | if man != 0 { 0x7e00 } else { 0x7c00 };
            }
            let e = exp - 127 + 15;
            if e >= 31 {
                return sign | if rtz { 0x7bff } else { 0x7c00 };
            }
            let (m, shift) = if e <= 0 {
                if e < -10 {
                    return sign;
                }
                (man | 0x80_0000, (14 - e) as u32)
            } else {
                (man, 13)
            };
            let mut q = m >> shift;
            if !rtz {
                let rem = m & ((1 << shift) - 1);
                let halfway = 1 << (shift - 1);
                if rem > halfway || (rem == halfway && q & 1 != 0) {
                    q += 1;
                }
            }
            if e <= 0 {
                sign | q as u16
            } else {
                sign | (((e as u32) << 10) + q) as u16
            }
        }
        for i in 0..(1u64 << 20) {
            let bits = (i * 4099 + (i >> 5)) as u32;
            for b in [bits, bits | 0x1000, bits & !0xfff] {
                let x = f32::from_bits(b);
                for rtz in [false, true] {
                    assert_eq!(f32_to_f16(x, rtz), reference(x, rtz), "{b:#x} rtz={rtz}");
                }
            }
        }
    }
}
