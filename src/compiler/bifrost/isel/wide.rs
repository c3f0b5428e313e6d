//! Integer arithmetic beyond one instruction: 64-bit add, subtract,
//! multiply, compare and shifts as 32-bit pairs, the high half of a 32-bit
//! multiply, and exact division (by constants through [`DivMagic`], by
//! run-time values unrolled).

use super::*;

impl Isel<'_> {
    pub(super) fn add64(&mut self, a: &[Src], b: &[Src]) -> Vec<Src> {
        if b[0] == ZERO {
            let hi = if b[1] == ZERO {
                a[1]
            } else {
                self.emit(Op::IaddS32, &[a[1], b[1]])
            };
            return vec![a[0], hi];
        }
        // A uniform base plus a constant (a UBO/SSBO field): the uniform
        // is copied to a register once per block, not the constant once
        // per address.
        let a0 = match (a[0], b[0]) {
            (u @ Src::Uniform { .. }, Src::Imm(_)) => self.uniform_in_reg(u),
            (x, _) => x,
        };
        let lo = self.emit(Op::IaddS32, &[a0, b[0]]);
        let carry = self.icmp(IcmpType::U32, Cmp::Gt, a0, lo);
        let hi = if b[1] == ZERO {
            a[1]
        } else {
            self.emit(Op::IaddS32, &[a[1], b[1]])
        };
        let hi = self.emit(Op::IsubS32, &[hi, carry]);
        vec![lo, hi]
    }

    /// High 32 bits of the unsigned 64-bit product, from 16-bit halves.
    pub(super) fn umul_high(&mut self, a: Src, b: Src) -> Src {
        let lo16 = |s: &mut Self, v: Src| match v {
            Src::Imm(c) => Src::Imm(c & 0xffff),
            _ => s.shift(ShiftOp::LshiftAnd, v, Src::Imm(0xffff), ZERO),
        };
        let hi16 = |s: &mut Self, v: Src| match v {
            Src::Imm(c) => Src::Imm(c >> 16),
            _ => s.shift(ShiftOp::RshiftOr, v, ZERO, Src::Imm(16)),
        };
        let (a0, a1, b0, b1) = (lo16(self, a), hi16(self, a), lo16(self, b), hi16(self, b));
        let mul = |s: &mut Self, x: Src, y: Src| {
            if x == ZERO || y == ZERO {
                ZERO
            } else {
                s.emit(Op::ImulI32, &[x, y])
            }
        };
        let p00 = mul(self, a0, b0);
        let p10 = mul(self, a1, b0);
        let p01 = mul(self, a0, b1);
        let p11 = mul(self, a1, b1);
        // t = (p00 >> 16) + (p10 & 0xffff) + (p01 & 0xffff)
        let t0 = hi16(self, p00);
        let t1 = lo16(self, p10);
        let t2 = lo16(self, p01);
        let t = self.emit(Op::IaddS32, &[t0, t1]);
        let t = self.emit(Op::IaddS32, &[t, t2]);
        // high = p11 + (p10 >> 16) + (p01 >> 16) + (t >> 16)
        let h1 = hi16(self, p10);
        let h2 = hi16(self, p01);
        let h3 = hi16(self, t);
        let h = self.emit(Op::IaddS32, &[p11, h1]);
        let h = self.emit(Op::IaddS32, &[h, h2]);
        self.emit(Op::IaddS32, &[h, h3])
    }

    pub(super) fn mul64(&mut self, a: &[Src], b: &[Src]) -> Vec<Src> {
        let lo = self.emit(Op::ImulI32, &[a[0], b[0]]);
        let mut hi = self.umul_high(a[0], b[0]);
        if b[1] != ZERO {
            let c = self.emit(Op::ImulI32, &[a[0], b[1]]);
            hi = self.emit(Op::IaddS32, &[hi, c]);
        }
        if a[1] != ZERO {
            let c = self.emit(Op::ImulI32, &[a[1], b[0]]);
            hi = self.emit(Op::IaddS32, &[hi, c]);
        }
        vec![lo, hi]
    }

    /// `x / d` for a constant `d` in 3..=[`SMALL_DIVISOR_MAX`], not a power
    /// of two, in 8 instructions instead of a 17-instruction `umul_high`:
    /// with `x = h·2^16 + l` and `2^16 = Q·d + R`, `x = d·Q·h + (R·h + l)`,
    /// so `⌊x / d⌋ = Q·h + ⌊y / d⌋` for `y = R·h + l < d·2^16`; `⌊y / d⌋`
    /// is `F32_TO_U32.rtz(FMA(f32(y), RN(1/d), RN(1/(2d))))` (exact: the
    /// bound is at `small_quotient`, its model for the tests).
    fn udiv_small(&mut self, x: Src, d: u32) -> Src {
        let (q_, r_) = (65536 / d, 65536 % d);
        let h = self.shift(ShiftOp::RshiftOr, x, ZERO, Src::Imm(16));
        let l = self.shift(ShiftOp::LshiftAnd, x, Src::Imm(0xffff), ZERO);
        // R is 1 for 3, 5 and 15 (2^16 − 1 = 3·5·17·257): no multiply.
        let rh = if r_ == 1 {
            h
        } else {
            self.emit(Op::ImulI32, &[h, Src::Imm(r_)])
        };
        let y = self.emit(Op::IaddS32, &[rh, l]);
        let f = self.emit(Op::U32ToF32, &[y]);
        let (c, bias) = small_quotient_constants(d);
        let t = self.emit(
            Op::FmaF32 { neg: [false; 3] },
            &[f, Src::Imm(c.to_bits()), Src::Imm(bias.to_bits())],
        );
        let low = self.emit(Op::F32ToU32, &[t]);
        let high = self.emit(Op::ImulI32, &[h, Src::Imm(q_)]);
        self.emit(Op::IaddS32, &[high, low])
    }

    /// Unsigned 32-bit division and remainder. Powers of two are shifts,
    /// other constants a multiply by their [`DivMagic`]; a divisor only
    /// known at run time is an unrolled shift-and-subtract division (exact,
    /// integer only; x / 0 = all ones and x % 0 = x, as the IR defines them).
    pub(super) fn udivmod(&mut self, x: Src, y: Src) -> (Src, Src) {
        if let Src::Imm(d) = y {
            if d == 0 {
                return (Src::Imm(u32::MAX), x);
            }
            if d.is_power_of_two() {
                let q = self.shift(ShiftOp::RshiftOr, x, ZERO, Src::Imm(d.trailing_zeros()));
                let r = self.shift(ShiftOp::LshiftAnd, x, Src::Imm(d - 1), ZERO);
                return (q, r);
            }
            if d <= SMALL_DIVISOR_MAX {
                let q = self.udiv_small(x, d);
                let qd = self.emit(Op::ImulI32, &[q, Src::Imm(d)]);
                let r = self.emit(Op::IsubS32, &[x, qd]);
                return (q, r);
            }
            let magic = DivMagic::new(d);
            let t = self.umul_high(x, Src::Imm(magic.multiplier));
            let q = if magic.add {
                // q = (((x - t) >> 1) + t) >> (shift - 1): the 33rd bit of
                // the multiplier without overflowing 32 bits.
                let diff = self.emit(Op::IsubS32, &[x, t]);
                let half = self.shift(ShiftOp::RshiftOr, diff, ZERO, Src::Imm(1));
                let sum = self.emit(Op::IaddS32, &[half, t]);
                self.shift(ShiftOp::RshiftOr, sum, ZERO, Src::Imm(magic.shift - 1))
            } else {
                self.shift(ShiftOp::RshiftOr, t, ZERO, Src::Imm(magic.shift))
            };
            let qd = self.emit(Op::ImulI32, &[q, Src::Imm(d)]);
            let r = self.emit(Op::IsubS32, &[x, qd]);
            return (q, r);
        }
        // Shift-and-subtract from the top bit down: at step i the running
        // remainder r is below y << (i + 1), so y fits into it at bit i
        // exactly when (r >> i) >= y, and then y << i (no overflow: it is
        // at most r) is subtracted. y = 0 gives q = all ones and r = x.
        // The quotient bits are collected as a prefix XOR, one instruction
        // each: p ^= ge << i flips bits i..=31 when bit i of q is set, so
        // bit j of p is the XOR of q's bits 0..=j and q = p ^ (p << 1) at
        // the end. Five instructions per bit (the
        // remainder kept in its own register and the quotient shifted in
        // took seven).
        let y = self.in_reg(y);
        let mut r = x;
        let mut p = ZERO;
        for i in (0..32).rev() {
            let top = if i == 0 {
                r
            } else {
                self.shift(ShiftOp::RshiftOr, r, ZERO, Src::Imm(i))
            };
            let ge = self.icmp(IcmpType::U32, Cmp::Ge, top, y);
            let sub = self.shift(ShiftOp::LshiftAnd, y, ge, Src::Imm(i));
            r = self.emit(Op::IsubS32, &[r, sub]);
            p = self.shift(ShiftOp::LshiftXor, ge, p, Src::Imm(i));
        }
        let q = self.shift(ShiftOp::LshiftXor, p, p, Src::Imm(1));
        (q, r)
    }

    /// `a < b` on 64-bit pairs (all ones if true):
    /// `(hi < hi') | (hi == hi' & lo <u lo')`, the high halves compared
    /// signed when `signed`.
    pub(super) fn lt64(&mut self, a: &[Src], b: &[Src], signed: bool) -> Src {
        let hty = if signed { IcmpType::S32 } else { IcmpType::U32 };
        let hlt = self.icmp(hty, Cmp::Lt, a[1], b[1]);
        let heq = self.icmp(IcmpType::I32, Cmp::Eq, a[1], b[1]);
        let llt = self.icmp(IcmpType::U32, Cmp::Lt, a[0], b[0]);
        let t = self.shift(ShiftOp::LshiftAnd, heq, llt, ZERO);
        self.shift(ShiftOp::LshiftOr, hlt, t, ZERO)
    }

    pub(super) fn sub64(&mut self, a: &[Src], b: &[Src]) -> Vec<Src> {
        let lo = self.emit(Op::IsubS32, &[a[0], b[0]]);
        let borrow = self.icmp(IcmpType::U32, Cmp::Lt, a[0], b[0]);
        let hi = self.emit(Op::IsubS32, &[a[1], b[1]]);
        let hi = self.emit(Op::IaddS32, &[hi, borrow]);
        vec![lo, hi]
    }

    /// 64-bit shifts as 32-bit pairs; the count is taken modulo 64 (the
    /// IR's rule). Bifrost's shifts use byte 0 of the count and give 0 for
    /// 32..=255, so a "negative" count (32 - n for n > 32, n - 32 for n < 32)
    /// shifts everything out: the cross-word terms need no selects, except
    /// the arithmetic one (`ARSHIFT` saturates at 31 instead).
    pub(super) fn shift64(&mut self, op: AluOp, x: &[Src], count: Src) -> Vec<Src> {
        let (lo, hi) = (x[0], x[1]);
        if let Src::Imm(c) = count {
            return self.shift64_const(op, lo, hi, c & 63);
        }
        let n = self.shift(ShiftOp::LshiftAnd, count, Src::Imm(63), ZERO);
        let up = self.emit(Op::IsubS32, &[Src::Imm(32), n]); // 32 - n
        let down = self.emit(Op::IaddS32, &[n, Src::Imm(32u32.wrapping_neg())]); // n - 32
        match op {
            AluOp::Ishl => {
                // hi' = (hi << n) | (lo >> (32 - n)) | (lo << (n - 32))
                let t = self.shift(ShiftOp::RshiftOr, lo, ZERO, up);
                let t = self.shift(ShiftOp::LshiftOr, lo, t, down);
                let h = self.shift(ShiftOp::LshiftOr, hi, t, n);
                let l = self.shift(ShiftOp::LshiftOr, lo, ZERO, n);
                vec![l, h]
            }
            AluOp::Ushr => {
                // lo' = (lo >> n) | (hi << (32 - n)) | (hi >> (n - 32))
                let t = self.shift(ShiftOp::LshiftOr, hi, ZERO, up);
                let t = self.shift(ShiftOp::RshiftOr, hi, t, down);
                let l = self.shift(ShiftOp::RshiftOr, lo, t, n);
                let h = self.shift(ShiftOp::RshiftOr, hi, ZERO, n);
                vec![l, h]
            }
            _ => {
                // n < 32: lo' = (lo >> n) | (hi << (32 - n)); else hi >>a (n - 32).
                let t = self.shift(ShiftOp::LshiftOr, hi, ZERO, up);
                let small = self.shift(ShiftOp::RshiftOr, lo, t, n);
                let big = self.emit(Op::ArshiftI32, &[hi, ZERO, down]);
                let ge32 = self.icmp(IcmpType::U32, Cmp::Ge, n, Src::Imm(32));
                let l = self.mux(small, big, ge32);
                let h = self.emit(Op::ArshiftI32, &[hi, ZERO, n]);
                vec![l, h]
            }
        }
    }

    /// A 64-bit shift by a constant `n` in 0..64.
    pub(super) fn shift64_const(&mut self, op: AluOp, lo: Src, hi: Src, n: u32) -> Vec<Src> {
        if n == 0 {
            return vec![lo, hi];
        }
        let sign = |s: &mut Self| s.emit(Op::ArshiftI32, &[hi, ZERO, Src::Imm(31)]);
        match (op, n < 32) {
            (AluOp::Ishl, true) => {
                let t = self.shift(ShiftOp::RshiftOr, lo, ZERO, Src::Imm(32 - n));
                let h = self.shift(ShiftOp::LshiftOr, hi, t, Src::Imm(n));
                let l = self.shift(ShiftOp::LshiftOr, lo, ZERO, Src::Imm(n));
                vec![l, h]
            }
            (AluOp::Ishl, false) => {
                vec![
                    ZERO,
                    self.shift(ShiftOp::LshiftOr, lo, ZERO, Src::Imm(n - 32)),
                ]
            }
            (AluOp::Ushr, true) | (AluOp::Ishr, true) => {
                let t = self.shift(ShiftOp::LshiftOr, hi, ZERO, Src::Imm(32 - n));
                let l = self.shift(ShiftOp::RshiftOr, lo, t, Src::Imm(n));
                let h = if op == AluOp::Ushr {
                    self.shift(ShiftOp::RshiftOr, hi, ZERO, Src::Imm(n))
                } else {
                    self.emit(Op::ArshiftI32, &[hi, ZERO, Src::Imm(n)])
                };
                vec![l, h]
            }
            (AluOp::Ushr, false) => {
                vec![
                    self.shift(ShiftOp::RshiftOr, hi, ZERO, Src::Imm(n - 32)),
                    ZERO,
                ]
            }
            _ => {
                let l = self.emit(Op::ArshiftI32, &[hi, ZERO, Src::Imm(n - 32)]);
                vec![l, sign(self)]
            }
        }
    }
}

/// The largest constant divisor [`Isel::udiv_small`] takes.
pub(crate) const SMALL_DIVISOR_MAX: u32 = 15;

/// `RN(1/d)` and `RN(1/(2d))` in binary32.
pub(crate) fn small_quotient_constants(d: u32) -> (f32, f32) {
    ((1.0 / f64::from(d)) as f32, (0.5 / f64::from(d)) as f32)
}

/// `⌊y / d⌋` as `udiv_small` computes it in binary32, for `y < d·2^16`
/// and `d ≤ SMALL_DIVISOR_MAX`: `y` (below 2^24) converts exactly; `y/d +
/// 1/(2d)` is at least `1/(2d) ≥ 1/30` from every integer (`y/d` is a
/// multiple of `1/d`); the computed value is within `y/d · 2^-24` (the
/// reciprocal's rounding) plus half an ulp of a result below `2^16 + 1`
/// (`2^-7`) of it, under `2^-6`, so truncation gives `⌊y / d⌋` (checked for
/// every such `y` by a test).
#[cfg(test)]
pub(crate) fn small_quotient(y: u32, d: u32) -> u32 {
    let (c, bias) = small_quotient_constants(d);
    (y as f32).mul_add(c, bias) as u32
}

/// Division of any u32 by the constant `d` (not 0, not a power of two) as a
/// multiply-high and shifts (Granlund and Montgomery's method): with
/// `l = ceil(log2 d)`, `q = umul_high(x, multiplier) >> shift` when a 32-bit
/// multiplier `ceil(2^(32+l-1) / d)` is exact for every x (its excess over
/// `2^(32+l-1) / d`, times d, is at most `2^(l-1)`); otherwise the 33-bit
/// `ceil(2^(32+l) / d)` always is, its top bit handled by the `add` sequence
/// in `udivmod` (`multiplier` then holds the low 32 bits, `shift` = l).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DivMagic {
    pub multiplier: u32,
    pub shift: u32,
    pub add: bool,
}

impl DivMagic {
    pub fn new(d: u32) -> DivMagic {
        debug_assert!(d > 1 && !d.is_power_of_two());
        let d = u128::from(d);
        let l = 32 - (d as u32 - 1).leading_zeros();
        let p = l - 1;
        let m = (1u128 << (32 + p)).div_ceil(d);
        if m < 1 << 32 && m * d - (1u128 << (32 + p)) <= 1u128 << p {
            return DivMagic {
                multiplier: m as u32,
                shift: p,
                add: false,
            };
        }
        let m = (1u128 << (32 + l)).div_ceil(d);
        debug_assert!((1u128 << 32..1u128 << 33).contains(&m));
        DivMagic {
            multiplier: (m - (1 << 32)) as u32,
            shift: l,
            add: true,
        }
    }

    /// The quotient the instruction sequence computes (for tests).
    #[cfg(test)]
    pub fn divide(self, x: u32) -> u32 {
        let t = ((u64::from(x) * u64::from(self.multiplier)) >> 32) as u32;
        if self.add {
            (((x - t) >> 1) + t) >> (self.shift - 1)
        } else {
            t >> self.shift
        }
    }
}

#[cfg(test)]
mod div_magic_tests {
    use super::DivMagic;

    #[test]
    fn magic_division_is_exact() {
        let mut divisors: Vec<u32> = (3..3000).filter(|d: &u32| !d.is_power_of_two()).collect();
        divisors.extend([
            7 << 20,
            641,
            6_700_417,
            0x7FFF_FFFF,
            0x8000_0001,
            u32::MAX - 1,
            u32::MAX,
        ]);
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for d in divisors {
            let m = DivMagic::new(d);
            let top = u32::MAX / d * d;
            let mut xs = vec![
                0,
                1,
                d - 1,
                d,
                d.wrapping_add(1),
                top,
                top - 1,
                u32::MAX,
                u32::MAX - 1,
            ];
            for _ in 0..200 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let x = seed as u32;
                xs.extend([x, x / d * d, (x / d * d).wrapping_sub(1)]);
            }
            for x in xs {
                assert_eq!(m.divide(x), x / d, "{x} / {d} with {m:?}");
            }
        }
        // Both forms occur: 3 has a 32-bit multiplier, 7 needs the 33rd bit.
        assert!(!DivMagic::new(3).add && DivMagic::new(7).add);
    }
}

#[cfg(test)]
mod small_divisor_tests {
    use super::{SMALL_DIVISOR_MAX, small_quotient};

    /// The binary32 step of `udiv_small` is exact for every `y` it can be
    /// given (`y < d·2^16`), for every divisor it takes; and the whole
    /// decomposition on edge and random `x`.
    #[test]
    fn small_quotient_is_exact_on_its_whole_range() {
        for d in (3..=SMALL_DIVISOR_MAX).filter(|d| !d.is_power_of_two()) {
            for y in 0..d << 16 {
                assert_eq!(small_quotient(y, d), y / d, "{y} / {d}");
            }
            let whole = |x: u32| {
                let (h, l) = (x >> 16, x & 0xffff);
                (65536 / d) * h + small_quotient((65536 % d) * h + l, d)
            };
            let mut seed = 0x9E37_79B9_7F4A_7C15u64;
            let mut xs = vec![0, 1, d - 1, d, 65535, 65536, u32::MAX, u32::MAX - 1];
            for _ in 0..2000 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                xs.push(seed as u32);
            }
            for x in xs {
                assert_eq!(whole(x), x / d, "{x} / {d}");
            }
        }
    }
}
