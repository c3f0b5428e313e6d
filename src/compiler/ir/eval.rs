//! The one reference semantics of every [`AluOp`]: constant folding
//! (`passes/opt_constant_fold.rs`) and the IR interpreter both call
//! [`eval_alu`], so folding can never disagree with execution. Every edge case
//! is decided here and nowhere else; this module must never depend on the
//! host's float environment beyond IEEE-754 round-to-nearest-even.
//!
//! Representation: a component is a `u64` holding the value's bits
//! zero-extended (as in `const`); booleans are 0 or 1; floats are IEEE
//! binary16/32/64 bit patterns (8-bit floats do not exist).
//!
//! Decisions (also listed on each op in `instr.rs`):
//! - Integer arithmetic wraps at the bit size. `iabs(INT_MIN) = INT_MIN`.
//! - Division by zero (RISC-V style): `udiv x,0 = idiv x,0 = all ones`
//!   (-1); `umod x,0 = irem x,0 = imod x,0 = x`. `idiv INT_MIN,-1 = INT_MIN`,
//!   `irem/imod INT_MIN,-1 = 0`. `imod` takes the divisor's sign.
//! - Shift counts (32-bit source) are taken modulo the bit size.
//! - `bitfield_insert/ubitfield_extract/ibitfield_extract`: offset and count
//!   are unsigned 32-bit; `offset = min(offset, bits)`,
//!   `count = min(count, bits - offset)`; count 0 inserts nothing / extracts 0;
//!   count = bits at offset 0 moves the whole value.
//! - `bit_count`, `find_lsb`, `ufind_msb`, `ifind_msb` give 32-bit results;
//!   "not found" is -1 (`ifind_msb` of 0 and of -1).
//! - Floats: computed exactly in f64 and rounded once to the destination width
//!   (round to nearest even; exact for add/sub/mul/div/sqrt since f64 holds
//!   twice the f32 precision plus two). `ffma` is fused for f32/f64 and
//!   computed with an f32 fused multiply-add then rounded for f16.
//!   Transcendentals (`fexp2 flog2 fsin fcos fpow`) use the host's f64 libm
//!   then round: approximate, like the hardware, so tests of those must allow
//!   an error. Denormals are kept (never flushed).
//! - Any NaN produced by float arithmetic is the canonical quiet NaN with a
//!   clear sign bit (0x7e00 / 0x7fc00000 / 0x7ff8000000000000). `fneg` and
//!   `fabs` are pure sign-bit operations and keep NaN payloads.
//! - `fmin/fmax` are IEEE minNum/maxNum: a NaN operand yields the other one,
//!   two NaNs the canonical NaN; `fmin(-0,+0) = -0`, `fmax(-0,+0) = +0`.
//! - `fsat(NaN) = +0`; `fsign(NaN) = +0`, `fsign(±0) = +0`.
//! - `frcp(±0) = ±inf`, `frsq(+0) = +inf`, `frsq(-0) = -inf`, `frsq(x<0) = NaN`.
//! - `ffract(x) = x - floor(x)` (NaN for ±inf). `fround_even` ties to even.
//! - Comparisons: `feq flt fge` are ordered (false with a NaN), `fneu` is
//!   unordered (true with a NaN).
//! - `f2i/f2u` truncate toward zero and saturate to the destination range;
//!   NaN gives 0. `i2f/u2f/f2f` round to nearest even (out of f16 range → ±inf).
//!   `f2f` of a NaN gives the canonical NaN.
//! - `i2i` sign-extends or truncates, `u2u` zero-extends or truncates;
//!   `b2i` gives 0/1, `b2f` 0.0/1.0, `i2b` is `x != 0`.
//! - `bitcast` concatenates the source components little-endian (component 0
//!   lowest) and splits the result the same way.
//! - `pack_half_2x16`: x in bits 0..16, rounded to nearest even.
//!   `pack_unorm_4x8`: `round_even(clamp(x, 0, 1) * 255)`, `pack_snorm_4x8`:
//!   `round_even(clamp(x, -1, 1) * 127)` as two's complement bytes (x lowest);
//!   the 2x16 forms use 65535 / 32767. A NaN packs as 0. Unpacking divides by
//!   255 / 127 / 65535 / 32767 (in f32), snorm clamped to -1.

use super::instr::AluOp;
use super::types::ValueType;

/// Canonical quiet NaN bits for a float width.
pub fn canonical_nan(bits: u8) -> u64 {
    match bits {
        16 => 0x7e00,
        32 => 0x7fc0_0000,
        _ => 0x7ff8_0000_0000_0000,
    }
}

/// binary16 bits → f32: exact, IEEE (`half`; a NaN comes back quiet).
pub fn f16_to_f32(h: u16) -> f32 {
    half::f16::from_bits(h).to_f32()
}

/// f64 → binary16 bits, IEEE round to nearest even, rounded once. `half`
/// converts f32 correctly, but its f64 path rounds twice (through f32 with
/// F16C, or after dropping the low 32 mantissa bits), so the value first
/// goes to f32 rounding to odd (exact, or the truncation with its last bit
/// set), which carries the sticky bit for the f32 → f16 rounding: 24 bits
/// against 11, so one correct rounding overall. A NaN becomes the quiet NaN
/// `0x7e00` with the input's sign, its payload dropped: the IR's NaN results
/// carry no payload, and the sign is what Bifrost's conversion keeps
/// (`bifrost::fp16`), so `pack_half_2x16` means the same on both.
pub fn f64_to_f16(x: f64) -> u16 {
    if x.is_nan() {
        return if x.is_sign_negative() { 0xfe00 } else { 0x7e00 };
    }
    let nearest = x as f32;
    let odd = if nearest.is_infinite() || f64::from(nearest) == x {
        nearest
    } else {
        let mut bits = nearest.to_bits();
        if f64::from(nearest).abs() > x.abs() {
            bits -= 1; // toward zero
        }
        f32::from_bits(bits | 1)
    };
    half::f16::from_f32(odd).to_bits()
}

/// Decode a float component of width `bits` to f64 (exact).
pub fn float_to_f64(bits: u8, v: u64) -> f64 {
    match bits {
        16 => f64::from(f16_to_f32(v as u16)),
        32 => f64::from(f32::from_bits(v as u32)),
        _ => f64::from_bits(v),
    }
}

/// Encode an f64 as a float of width `bits`, rounding to nearest even;
/// NaN becomes the canonical NaN.
pub fn f64_to_float(bits: u8, x: f64) -> u64 {
    if x.is_nan() {
        return canonical_nan(bits);
    }
    match bits {
        16 => u64::from(f64_to_f16(x)),
        32 => u64::from((x as f32).to_bits()),
        _ => x.to_bits(),
    }
}

fn mask(bits: u8) -> u64 {
    ValueType::new(bits, 1).mask()
}

/// Sign-extend the low `bits` of `v` to i64.
pub fn sext(bits: u8, v: u64) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let s = 64 - u32::from(bits);
        ((v << s) as i64) >> s
    }
}

fn sign_bit(bits: u8) -> u64 {
    1u64 << (bits - 1)
}

/// Evaluate `op` on constant sources. `srcs[i]` holds the components of
/// source `i` (of type `src_tys[i]`); the result has `dst_ty.comps`
/// components, each masked to `dst_ty.bits`. The operands must satisfy the
/// validator's typing rules (the function does not panic otherwise but the
/// result is then meaningless).
pub fn eval_alu(op: AluOp, dst_ty: ValueType, src_tys: &[ValueType], srcs: &[&[u64]]) -> Vec<u64> {
    use AluOp::*;
    let dst_bits = dst_ty.bits;
    let n = dst_ty.comps as usize;
    let m = dst_ty.mask();
    let sbits = src_tys.first().map_or(dst_bits, |t| t.bits);
    let get = |s: usize, c: usize| -> u64 {
        srcs.get(s)
            .and_then(|v| v.get(c).or_else(|| v.first()))
            .copied()
            .unwrap_or(0)
    };
    match op {
        Bitcast => return bitcast(dst_ty, src_tys.first().copied(), srcs.first().copied()),
        PackHalf2x16 => {
            let h = |c| u64::from(f64_to_f16(float_to_f64(32, get(0, c))));
            return vec![h(0) | (h(1) << 16)];
        }
        UnpackHalf2x16 => {
            let v = get(0, 0);
            return (0..2)
                .map(|i| {
                    let h = ((v >> (16 * i)) & 0xffff) as u16;
                    f64_to_float(32, f64::from(f16_to_f32(h)))
                })
                .collect();
        }
        PackUnorm4x8 | PackSnorm4x8 | PackUnorm2x16 | PackSnorm2x16 => {
            let (count, width, signed) = match op {
                PackUnorm4x8 => (4, 8, false),
                PackSnorm4x8 => (4, 8, true),
                PackUnorm2x16 => (2, 16, false),
                _ => (2, 16, true),
            };
            let scale = ((1u32 << (width - u32::from(signed))) - 1) as f32;
            let mut out = 0u64;
            for c in 0..count {
                let x = f32::from_bits(get(0, c) as u32);
                let x = if x.is_nan() {
                    0.0
                } else if signed {
                    x.clamp(-1.0, 1.0)
                } else {
                    x.clamp(0.0, 1.0)
                };
                let q = (x * scale).round_ties_even() as i32 as u64;
                out |= (q & ((1u64 << width) - 1)) << (width as usize * c);
            }
            return vec![out];
        }
        UnpackUnorm4x8 | UnpackSnorm4x8 | UnpackUnorm2x16 | UnpackSnorm2x16 => {
            let (count, width, signed) = match op {
                UnpackUnorm4x8 => (4, 8u8, false),
                UnpackSnorm4x8 => (4, 8, true),
                UnpackUnorm2x16 => (2, 16, false),
                _ => (2, 16, true),
            };
            let v = get(0, 0);
            let scale = ((1u32 << (u32::from(width) - u32::from(signed))) - 1) as f32;
            return (0..count)
                .map(|c| {
                    let raw = (v >> (usize::from(width) * c)) & mask(width);
                    let x = if signed {
                        (sext(width, raw) as f32 / scale).max(-1.0)
                    } else {
                        raw as f32 / scale
                    };
                    u64::from(x.to_bits())
                })
                .collect();
        }
        _ => {}
    }
    (0..n)
        .map(|c| eval_component(op, dst_bits, sbits, &|s| get(s, c)) & m)
        .collect()
}

fn bitcast(dst_ty: ValueType, src_ty: Option<ValueType>, src: Option<&[u64]>) -> Vec<u64> {
    let (Some(src_ty), Some(src)) = (src_ty, src) else {
        return vec![0; dst_ty.comps as usize];
    };
    let mut bytes = Vec::with_capacity(32);
    let sb = usize::from(src_ty.bits.max(8) / 8);
    for c in 0..src_ty.comps as usize {
        let v = src.get(c).copied().unwrap_or(0);
        bytes.extend_from_slice(&v.to_le_bytes()[..sb]);
    }
    let db = usize::from(dst_ty.bits.max(8) / 8);
    (0..dst_ty.comps as usize)
        .map(|c| {
            let mut buf = [0u8; 8];
            for (i, b) in buf.iter_mut().enumerate().take(db) {
                *b = bytes.get(c * db + i).copied().unwrap_or(0);
            }
            u64::from_le_bytes(buf) & dst_ty.mask()
        })
        .collect()
}

/// One component of a component-wise op. `bits` is the destination width,
/// `sbits` the width of source 0.
fn eval_component(op: AluOp, bits: u8, sbits: u8, src: &dyn Fn(usize) -> u64) -> u64 {
    use AluOp::*;
    let m = mask(bits);
    let a = src(0);
    let b = src(1);
    let sa = sext(sbits, a);
    let sb = sext(sbits, b);
    let f = |s: usize| float_to_f64(sbits, src(s));
    let fres = |x: f64| f64_to_float(bits, x);
    let tf = |x: bool| u64::from(x);
    let shift = |b: u64| (b as u32) % u32::from(bits.max(1));
    match op {
        Mov => a,
        Iadd => a.wrapping_add(b),
        Isub => a.wrapping_sub(b),
        Imul => a.wrapping_mul(b),
        ImulHigh => ((i128::from(sa) * i128::from(sb)) >> bits) as u64,
        UmulHigh => ((u128::from(a) * u128::from(b)) >> bits) as u64,
        Ineg => a.wrapping_neg(),
        Iabs => sa.wrapping_abs() as u64,
        Isign => sa.signum() as u64,
        Imin => sa.min(sb) as u64,
        Imax => sa.max(sb) as u64,
        Umin => a.min(b),
        Umax => a.max(b),
        Udiv => a.checked_div(b).unwrap_or(u64::MAX),
        Idiv => {
            if sb == 0 {
                u64::MAX
            } else {
                sa.wrapping_div(sb) as u64
            }
        }
        Umod => a.checked_rem(b).unwrap_or(a),
        Irem => {
            if sb == 0 {
                a
            } else {
                sext_rem(bits, sa, sb) as u64
            }
        }
        Imod => {
            if sb == 0 {
                a
            } else {
                let r = sext_rem(bits, sa, sb);
                if r != 0 && ((r < 0) != (sb < 0)) {
                    r.wrapping_add(sb) as u64
                } else {
                    r as u64
                }
            }
        }
        Iand => a & b,
        Ior => a | b,
        Ixor => a ^ b,
        Inot => !a,
        Ishl => a << shift(b),
        Ishr => (sa >> shift(b)) as u64,
        Ushr => (a & m) >> shift(b),
        BitfieldInsert => {
            let (off, cnt) = bitfield_range(bits, src(2), src(3));
            if cnt == 0 {
                return a;
            }
            let fm = field_mask(cnt) << off;
            (a & !fm) | ((b << off) & fm)
        }
        UbitfieldExtract => {
            let (off, cnt) = bitfield_range(bits, b, src(2));
            if cnt == 0 {
                return 0;
            }
            (a >> off) & field_mask(cnt)
        }
        IbitfieldExtract => {
            let (off, cnt) = bitfield_range(bits, b, src(2));
            if cnt == 0 {
                return 0;
            }
            sext(cnt as u8, (a >> off) & field_mask(cnt)) as u64
        }
        BitfieldReverse => (a & mask(sbits)).reverse_bits() >> (64 - u32::from(sbits)),
        BitCount => u64::from((a & mask(sbits)).count_ones()),
        FindLsb => {
            let v = a & mask(sbits);
            if v == 0 {
                u64::MAX
            } else {
                u64::from(v.trailing_zeros())
            }
        }
        UfindMsb => {
            let v = a & mask(sbits);
            if v == 0 {
                u64::MAX
            } else {
                u64::from(63 - v.leading_zeros())
            }
        }
        IfindMsb => {
            let v = if sa < 0 { !sa } else { sa } as u64;
            if v == 0 {
                u64::MAX
            } else {
                u64::from(63 - v.leading_zeros())
            }
        }
        Fadd => fres(f(0) + f(1)),
        Fsub => fres(f(0) - f(1)),
        Fmul => fres(f(0) * f(1)),
        Ffma => match bits {
            64 => fres(f(0).mul_add(f(1), f(2))),
            _ => fres(f64::from((f(0) as f32).mul_add(f(1) as f32, f(2) as f32))),
        },
        Fdiv => fres(f(0) / f(1)),
        Fneg => a ^ sign_bit(bits),
        Fabs => a & !sign_bit(bits),
        Fsign => {
            let x = f(0);
            fres(if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                0.0
            })
        }
        Fmin | Fmax => {
            let (x, y) = (f(0), f(1));
            let r = if x.is_nan() {
                y
            } else if y.is_nan() {
                x
            } else if x == y {
                // Only ±0 differ here: min prefers -0, max +0.
                let neg = x.is_sign_negative() || y.is_sign_negative();
                let pos = x.is_sign_positive() || y.is_sign_positive();
                match (op, neg, pos) {
                    (Fmin, true, _) => -x.abs(),
                    (Fmax, _, true) => x.abs(),
                    _ => x,
                }
            } else if (x < y) == (op == Fmin) {
                x
            } else {
                y
            };
            fres(r)
        }
        Fsat => {
            let x = f(0);
            fres(if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) })
        }
        Fsqrt => fres(f(0).sqrt()),
        Frsq => fres(1.0 / f(0).sqrt()),
        Frcp => fres(1.0 / f(0)),
        Fexp2 => fres(f(0).exp2()),
        Flog2 => fres(f(0).log2()),
        Fsin => fres(f(0).sin()),
        Fcos => fres(f(0).cos()),
        Ffloor => fres(f(0).floor()),
        Fceil => fres(f(0).ceil()),
        Ftrunc => fres(f(0).trunc()),
        Ffract => fres(f(0) - f(0).floor()),
        FroundEven => fres(f(0).round_ties_even()),
        Fpow => fres(f(0).powf(f(1))),
        Ieq => tf((a & mask(sbits)) == (b & mask(sbits))),
        Ine => tf((a & mask(sbits)) != (b & mask(sbits))),
        Ilt => tf(sa < sb),
        Ige => tf(sa >= sb),
        Ult => tf((a & mask(sbits)) < (b & mask(sbits))),
        Uge => tf((a & mask(sbits)) >= (b & mask(sbits))),
        Feq => tf(f(0) == f(1)),
        Fneu => tf(f(0) != f(1)),
        Flt => tf(f(0) < f(1)),
        Fge => tf(f(0) >= f(1)),
        Bcsel => {
            if a & 1 != 0 {
                b
            } else {
                src(2)
            }
        }
        // Direct casts: going through f64 could round twice for 64-bit sources.
        I2f if bits == 32 => u64::from((sa as f32).to_bits()),
        U2f if bits == 32 => u64::from(((a & mask(sbits)) as f32).to_bits()),
        I2f => fres(sa as f64),
        U2f => fres((a & mask(sbits)) as f64),
        F2i => {
            let x = f(0);
            match bits {
                8 => x as i8 as u64,
                16 => x as i16 as u64,
                32 => x as i32 as u64,
                _ => x as i64 as u64,
            }
        }
        F2u => {
            let x = f(0);
            match bits {
                8 => u64::from(x as u8),
                16 => u64::from(x as u16),
                32 => u64::from(x as u32),
                _ => x as u64,
            }
        }
        F2f => fres(f(0)),
        I2i => sa as u64,
        U2u => a & mask(sbits),
        B2i => a & 1,
        B2f => fres(if a & 1 != 0 { 1.0 } else { 0.0 }),
        I2b => tf(a & mask(sbits) != 0),
        // Handled per vector in `eval_alu`.
        Bitcast | PackHalf2x16 | UnpackHalf2x16 | PackUnorm4x8 | PackSnorm4x8 | UnpackUnorm4x8
        | UnpackSnorm4x8 | PackUnorm2x16 | PackSnorm2x16 | UnpackUnorm2x16 | UnpackSnorm2x16 => 0,
    }
}

/// Signed remainder at `bits` width (INT_MIN % -1 = 0).
fn sext_rem(bits: u8, a: i64, b: i64) -> i64 {
    let _ = bits;
    a.wrapping_rem(b)
}

/// Clamp bitfield offset/count (unsigned 32-bit sources) to the value width.
fn bitfield_range(bits: u8, offset: u64, count: u64) -> (u32, u32) {
    let bits = u32::from(bits);
    let off = (offset as u32).min(bits);
    let cnt = (count as u32).min(bits - off);
    (off, cnt)
}

fn field_mask(count: u32) -> u64 {
    if count >= 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const I32: ValueType = ValueType::U32;
    const B: ValueType = ValueType::BOOL;

    fn e1(op: AluOp, dst: ValueType, src: ValueType, a: u64) -> u64 {
        eval_alu(op, dst, &[src], &[&[a]])[0]
    }
    fn e2(op: AluOp, ty: ValueType, a: u64, b: u64) -> u64 {
        let dst = if op.class() == crate::compiler::ir::AluClass::Compare {
            B
        } else {
            ty
        };
        eval_alu(op, dst, &[ty, ty], &[&[a], &[b]])[0]
    }
    fn f(x: f32) -> u64 {
        u64::from(x.to_bits())
    }
    fn m32(x: i32) -> u64 {
        u64::from(x as u32)
    }

    #[test]
    fn division_edge_cases() {
        assert_eq!(e2(AluOp::Udiv, I32, 7, 0), 0xffff_ffff);
        assert_eq!(e2(AluOp::Idiv, I32, 7, 0), 0xffff_ffff);
        assert_eq!(e2(AluOp::Umod, I32, 7, 0), 7);
        assert_eq!(e2(AluOp::Irem, I32, m32(-7), 0), m32(-7));
        assert_eq!(e2(AluOp::Imod, I32, 7, 0), 7);
        assert_eq!(e2(AluOp::Idiv, I32, m32(i32::MIN), m32(-1)), m32(i32::MIN));
        assert_eq!(e2(AluOp::Irem, I32, m32(i32::MIN), m32(-1)), 0);
        assert_eq!(e2(AluOp::Imod, I32, m32(i32::MIN), m32(-1)), 0);
        assert_eq!(e2(AluOp::Idiv, I32, m32(-7), 2), m32(-3));
        assert_eq!(e2(AluOp::Irem, I32, m32(-7), 2), m32(-1));
        assert_eq!(e2(AluOp::Imod, I32, m32(-7), 2), 1);
        assert_eq!(e2(AluOp::Imod, I32, 7, m32(-2)), m32(-1));
        let i16t = ValueType::new(16, 1);
        assert_eq!(e2(AluOp::Idiv, i16t, 0x8000, 0xffff), 0x8000);
        assert_eq!(e2(AluOp::Iabs, I32, m32(i32::MIN), 0), m32(i32::MIN));
    }

    #[test]
    fn shifts_wrap_count() {
        assert_eq!(e2(AluOp::Ishl, I32, 1, 33), 2);
        assert_eq!(e2(AluOp::Ishl, I32, 1, 32), 1);
        assert_eq!(e2(AluOp::Ushr, I32, 0x8000_0000, 31), 1);
        assert_eq!(e2(AluOp::Ishr, I32, 0x8000_0000, 31), 0xffff_ffff);
        let i8t = ValueType::new(8, 1);
        let r = eval_alu(AluOp::Ishl, i8t, &[i8t, I32], &[&[0x81], &[9]]);
        assert_eq!(r, vec![0x02]);
        let r = eval_alu(AluOp::Ishr, i8t, &[i8t, I32], &[&[0x80], &[3]]);
        assert_eq!(r, vec![0xf0]);
    }

    #[test]
    fn mul_high() {
        assert_eq!(
            e2(AluOp::UmulHigh, I32, 0xffff_ffff, 0xffff_ffff),
            0xffff_fffe
        );
        assert_eq!(e2(AluOp::ImulHigh, I32, m32(-1), m32(-1)), 0);
        assert_eq!(e2(AluOp::ImulHigh, I32, m32(-2), 3), 0xffff_ffff);
        let u64t = ValueType::U64;
        assert_eq!(e2(AluOp::UmulHigh, u64t, u64::MAX, 2), 1);
    }

    #[test]
    fn nan_in_min_max_and_compares() {
        let nan = f(f32::NAN);
        assert_eq!(e2(AluOp::Fmin, I32, nan, f(2.0)), f(2.0));
        assert_eq!(e2(AluOp::Fmax, I32, f(2.0), nan), f(2.0));
        assert_eq!(e2(AluOp::Fmax, I32, nan, nan), 0x7fc0_0000);
        assert_eq!(e2(AluOp::Fmin, I32, f(0.0), f(-0.0)), f(-0.0));
        assert_eq!(e2(AluOp::Fmax, I32, f(-0.0), f(0.0)), f(0.0));
        assert_eq!(e2(AluOp::Feq, I32, nan, nan), 0);
        assert_eq!(e2(AluOp::Fneu, I32, nan, nan), 1);
        assert_eq!(e2(AluOp::Flt, I32, nan, f(1.0)), 0);
        assert_eq!(e2(AluOp::Fge, I32, nan, f(1.0)), 0);
        assert_eq!(e2(AluOp::Feq, I32, f(0.0), f(-0.0)), 1);
        assert_eq!(e1(AluOp::Fsat, I32, I32, nan), 0);
        assert_eq!(e1(AluOp::Fsign, I32, I32, f(-3.0)), f(-1.0));
        assert_eq!(e1(AluOp::Fneg, I32, I32, nan), 0xffc0_0000);
        assert_eq!(
            e2(AluOp::Fadd, I32, f(f32::INFINITY), f(f32::NEG_INFINITY)),
            0x7fc0_0000
        );
        assert_eq!(e1(AluOp::Frsq, I32, I32, f(-0.0)), f(f32::NEG_INFINITY));
        assert_eq!(e1(AluOp::FroundEven, I32, I32, f(2.5)), f(2.0));
        assert_eq!(e1(AluOp::Ffract, I32, I32, f(-0.25)), f(0.75));
    }

    #[test]
    fn f2i_saturates() {
        assert_eq!(e1(AluOp::F2i, I32, I32, f(3e9)), m32(i32::MAX));
        assert_eq!(e1(AluOp::F2i, I32, I32, f(-3e9)), m32(i32::MIN));
        assert_eq!(e1(AluOp::F2i, I32, I32, f(f32::NAN)), 0);
        assert_eq!(e1(AluOp::F2i, I32, I32, f(-2.7)), m32(-2));
        assert_eq!(e1(AluOp::F2u, I32, I32, f(-2.7)), 0);
        assert_eq!(e1(AluOp::F2u, I32, I32, f(5e9)), 0xffff_ffff);
        let i8t = ValueType::new(8, 1);
        assert_eq!(e1(AluOp::F2i, i8t, I32, f(300.0)), 0x7f);
        assert_eq!(e1(AluOp::F2i, i8t, I32, f(-300.0)), 0x80);
    }

    #[test]
    fn half_conversions_round_to_nearest_even() {
        let h = ValueType::new(16, 1);
        assert_eq!(e1(AluOp::F2f, h, I32, f(1.0)), 0x3c00);
        assert_eq!(e1(AluOp::F2f, h, I32, f(65504.0)), 0x7bff);
        assert_eq!(e1(AluOp::F2f, h, I32, f(65520.0)), 0x7c00);
        assert_eq!(e1(AluOp::F2f, h, I32, f(65519.99)), 0x7bff);
        // 1 + 2^-11 is a tie between 1.0 and 1 + 2^-10: even → 1.0.
        assert_eq!(e1(AluOp::F2f, h, I32, f(1.0 + 2f32.powi(-11))), 0x3c00);
        assert_eq!(
            e1(AluOp::F2f, h, I32, f(1.0 + 3.0 * 2f32.powi(-11))),
            0x3c02
        );
        // Smallest subnormal and the tie below it.
        assert_eq!(e1(AluOp::F2f, h, I32, f(2f32.powi(-24))), 0x0001);
        assert_eq!(e1(AluOp::F2f, h, I32, f(2f32.powi(-25))), 0x0000);
        assert_eq!(e1(AluOp::F2f, h, I32, f(1.5 * 2f32.powi(-25))), 0x0001);
        assert_eq!(e1(AluOp::F2f, h, I32, f(-0.0)), 0x8000);
        assert_eq!(e1(AluOp::F2f, h, I32, f(f32::NAN)), 0x7e00);
        assert_eq!(e1(AluOp::F2f, I32, h, 0x0001), f(2f32.powi(-24)));
        assert_eq!(e1(AluOp::F2f, I32, h, 0xfc00), f(f32::NEG_INFINITY));
        assert_eq!(e1(AluOp::I2f, h, I32, 70000), 0x7c00);
        assert_eq!(e1(AluOp::U2f, h, I32, 2049), 0x6800);
        // Exhaustive round trip of every non-NaN half through f32.
        for bits in 0..=0xffffu16 {
            let x = f16_to_f32(bits);
            if !x.is_nan() {
                assert_eq!(f64_to_f16(f64::from(x)), bits);
            }
        }
        // f16 arithmetic rounds once.
        assert_eq!(e2(AluOp::Fadd, h, 0x3c00, 0x1000), 0x3c00);
        // The conversions themselves: one rounding from f64 (through f32,
        // 1 + 2^-11 + 2^-40 would become the tie 1 + 2^-11 and round down).
        assert_eq!(f64_to_f16(1.0 + 2f64.powi(-11) + 2f64.powi(-40)), 0x3c01);
        assert_eq!(f64_to_f16(65519.999), 0x7bff);
        assert_eq!(f64_to_f16(-65520.0), 0xfc00);
        assert_eq!(f64_to_f16(f64::INFINITY), 0x7c00);
        assert_eq!(f64_to_f16(2f64.powi(-30)), 0x0000);
        assert_eq!(f64_to_f16(-2f64.powi(-30)), 0x8000);
        assert_eq!(f64_to_f16(3.0 * 2f64.powi(-25)), 0x0002); // subnormal tie → even
        assert_eq!(f64_to_f16(f64::NAN), 0x7e00);
        assert_eq!(f64_to_f16(-f64::NAN), 0xfe00);
        assert_eq!(f64_to_f16(f64::from(f32::from_bits(0x7fa0_0000))), 0x7e00);
        assert_eq!(f16_to_f32(0x03ff), 1023.0 * 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
        assert!(f16_to_f32(0x7c01).is_nan());
        assert!(f16_to_f32(0xfe00).is_sign_negative());
        // Every tie between adjacent positive halves (subnormal, normal, up
        // to the largest), and values just off it that f32 cannot tell apart
        // from the tie: rounded once, from the f64.
        for h in 0..0x7bffu16 {
            let (a, b) = (f64::from(f16_to_f32(h)), f64::from(f16_to_f32(h + 1)));
            let mid = (a + b) / 2.0;
            let off = (b - a) * 2f64.powi(-30);
            assert_eq!(
                f64_to_f16(mid),
                if h & 1 == 0 { h } else { h + 1 },
                "{h:#x}"
            );
            assert_eq!(f64_to_f16(mid + off), h + 1, "{h:#x}");
            assert_eq!(f64_to_f16(mid - off), h, "{h:#x}");
            assert_eq!(f64_to_f16(-(mid + off)), 0x8000 | (h + 1), "{h:#x}");
        }
    }

    #[test]
    fn pack_unpack() {
        let v2 = ValueType::new(32, 2);
        let v4 = ValueType::new(32, 4);
        let r = eval_alu(AluOp::PackHalf2x16, I32, &[v2], &[&[f(1.0), f(-2.0)]]);
        assert_eq!(r, vec![0xc000_3c00]);
        let r = eval_alu(AluOp::UnpackHalf2x16, v2, &[I32], &[&[0xc000_3c00]]);
        assert_eq!(r, vec![f(1.0), f(-2.0)]);
        let src = [f(0.0), f(1.0), f(0.5), f(2.0)];
        let r = eval_alu(AluOp::PackUnorm4x8, I32, &[v4], &[&src]);
        assert_eq!(r, vec![0xff80_ff00]);
        let src = [f(-1.0), f(1.0), f(-0.5), f(f32::NAN)];
        let r = eval_alu(AluOp::PackSnorm4x8, I32, &[v4], &[&src]);
        assert_eq!(r, vec![0x00c0_7f81]);
        let r = eval_alu(AluOp::UnpackSnorm4x8, v4, &[I32], &[&[0x0080_7f81]]);
        assert_eq!(r, vec![f(-1.0), f(1.0), f(-1.0), f(0.0)]);
        let r = eval_alu(AluOp::UnpackUnorm2x16, v2, &[I32], &[&[0xffff_0000]]);
        assert_eq!(r, vec![f(0.0), f(1.0)]);
        let r = eval_alu(AluOp::PackSnorm2x16, I32, &[v2], &[&[f(-1.0), f(0.5)]]);
        assert_eq!(r, vec![0x4000_8001]);
        let r = eval_alu(AluOp::PackUnorm2x16, I32, &[v2], &[&[f(1.0), f(0.0)]]);
        assert_eq!(r, vec![0xffff]);
        let r = eval_alu(AluOp::UnpackUnorm4x8, v4, &[I32], &[&[0xff00_00ff]]);
        assert_eq!(r, vec![f(1.0), f(0.0), f(0.0), f(1.0)]);
        let r = eval_alu(AluOp::UnpackSnorm2x16, v2, &[I32], &[&[0x7fff_8000]]);
        assert_eq!(r, vec![f(-1.0), f(1.0)]);
    }

    #[test]
    fn bitcast_little_endian() {
        let v2 = ValueType::new(32, 2);
        let r = eval_alu(
            AluOp::Bitcast,
            ValueType::U64,
            &[v2],
            &[&[0x1111_2222, 0x3333_4444]],
        );
        assert_eq!(r, vec![0x3333_4444_1111_2222]);
        let r = eval_alu(
            AluOp::Bitcast,
            v2,
            &[ValueType::U64],
            &[&[0x3333_4444_1111_2222]],
        );
        assert_eq!(r, vec![0x1111_2222, 0x3333_4444]);
        let b4 = ValueType::new(8, 4);
        let r = eval_alu(AluOp::Bitcast, b4, &[I32], &[&[0x0403_0201]]);
        assert_eq!(r, vec![1, 2, 3, 4]);
    }

    #[test]
    fn bitfield_ops() {
        let bfi = |base, ins, off, cnt| {
            eval_alu(
                AluOp::BitfieldInsert,
                I32,
                &[I32; 4],
                &[&[base], &[ins], &[off], &[cnt]],
            )[0]
        };
        assert_eq!(bfi(0xffff_ffff, 0, 4, 0), 0xffff_ffff);
        assert_eq!(bfi(0xffff_ffff, 0x1234_5678, 0, 32), 0x1234_5678);
        assert_eq!(bfi(0, 0xf, 4, 4), 0xf0);
        assert_eq!(bfi(0, 0xff, 28, 8), 0xf000_0000);
        let ext = |op, v, off, cnt| eval_alu(op, I32, &[I32; 3], &[&[v], &[off], &[cnt]])[0];
        assert_eq!(ext(AluOp::UbitfieldExtract, 0xabcd, 4, 0), 0);
        assert_eq!(ext(AluOp::IbitfieldExtract, 0xabcd, 4, 0), 0);
        assert_eq!(
            ext(AluOp::UbitfieldExtract, 0xdead_beef, 0, 32),
            0xdead_beef
        );
        assert_eq!(
            ext(AluOp::IbitfieldExtract, 0xdead_beef, 0, 32),
            0xdead_beef
        );
        assert_eq!(ext(AluOp::UbitfieldExtract, 0xabcd, 4, 4), 0xc);
        assert_eq!(ext(AluOp::IbitfieldExtract, 0xabcd, 4, 4), 0xffff_fffc);
        assert_eq!(
            ext(AluOp::IbitfieldExtract, 0x8000_0000, 31, 1),
            0xffff_ffff
        );
        assert_eq!(e1(AluOp::BitfieldReverse, I32, I32, 1), 0x8000_0000);
        assert_eq!(e1(AluOp::BitCount, I32, I32, 0xf0f0), 8);
        assert_eq!(e1(AluOp::FindLsb, I32, I32, 0), 0xffff_ffff);
        assert_eq!(e1(AluOp::FindLsb, I32, I32, 8), 3);
        assert_eq!(e1(AluOp::UfindMsb, I32, I32, 0), 0xffff_ffff);
        assert_eq!(e1(AluOp::UfindMsb, I32, I32, 0x8000_0000), 31);
        assert_eq!(e1(AluOp::IfindMsb, I32, I32, 0xffff_ffff), 0xffff_ffff);
        assert_eq!(e1(AluOp::IfindMsb, I32, I32, 0xffff_fff0), 3);
        assert_eq!(e1(AluOp::IfindMsb, I32, I32, 5), 2);
        assert_eq!(e1(AluOp::BitCount, I32, ValueType::U64, u64::MAX), 64);
    }

    #[test]
    fn conversions() {
        let i64t = ValueType::U64;
        assert_eq!(e1(AluOp::I2i, i64t, I32, 0xffff_fffe), (-2i64) as u64);
        assert_eq!(e1(AluOp::U2u, i64t, I32, 0xffff_fffe), 0xffff_fffe);
        assert_eq!(e1(AluOp::I2i, ValueType::new(8, 1), I32, 0x1ff), 0xff);
        assert_eq!(e1(AluOp::B2i, I32, B, 1), 1);
        assert_eq!(e1(AluOp::B2f, I32, B, 1), f(1.0));
        assert_eq!(e1(AluOp::I2b, B, I32, 0x100), 1);
        assert_eq!(e1(AluOp::I2f, I32, I32, m32(-3)), f(-3.0));
        assert_eq!(e1(AluOp::U2f, I32, I32, 0xffff_ffff), f(4294967296.0));
        // 2^24 + 1 rounds to even.
        assert_eq!(e1(AluOp::I2f, I32, I32, 16_777_217), f(16_777_216.0));
        assert_eq!(
            e1(AluOp::F2f, i64t, I32, f(0.1)),
            f64::from(0.1f32).to_bits()
        );
        // i64 → f32 rounds once: 2^62 + 2^38 + 1 is just above a halfway point.
        let x = (1u64 << 62) + (1 << 38) + 1;
        assert_eq!(
            e1(AluOp::U2f, I32, i64t, x),
            f(((1u64 << 62) + (1 << 39)) as f32)
        );
        assert_eq!(
            e1(AluOp::I2f, I32, i64t, x),
            f(((1u64 << 62) + (1 << 39)) as f32)
        );
    }

    #[test]
    fn every_op_evaluates_without_panicking() {
        for &op in AluOp::ALL {
            let n = op.num_srcs();
            let srcs: Vec<&[u64]> = vec![&[0x3f80_0000, 0, 1, 0xffff_ffff]; n];
            let tys = vec![ValueType::new(32, 4); n];
            let _ = eval_alu(op, ValueType::new(32, 4), &tys, &srcs);
            let _ = eval_alu(
                op,
                ValueType::new(16, 1),
                &[ValueType::new(16, 1); 4][..n],
                &srcs,
            );
        }
    }
}
