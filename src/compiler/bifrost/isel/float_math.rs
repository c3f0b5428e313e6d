//! Float division, reciprocal, square roots and transcendentals (32-bit):
//! `frcp`, `fdiv`, `frsq`, `fsqrt`, `fexp2`, `flog2`, `fsin`, `fcos`, `fpow`.
//!
//! Every function is a sequence of instructions whose semantics are exactly
//! known — IEEE fused multiply-add and add (`FMA.f32`, `FADD.f32`), integer
//! shifts/adds/compares/selects on the bits, `FROUND`, the conversions — so
//! the result is the same on the hardware, on the simulator and in
//! [`Op::fold`], bit for bit. The hardware's table instructions
//! (`FRCP.f32`, `FRSQ.f32`, `FRCP_APPROX.f32`, `FEXP.f32`, `FLOGD.f32`,
//! `FSIN_TABLE.u6`, `FEXP_TABLE.u4`, `FLOG_TABLE.f32` ...) are not used:
//! their tables (and so their exact results) are not documented. Mesa uses
//! `FRCP.f32`/`FRSQ.f32`/`FEXP.f32`/`FLOGD.f32` on every Bifrost except the
//! G71 (product id 0x60xx: quirk `BIFROST_NO_FP32_TRANSCENDENTALS`, where it
//! lowers to `*_APPROX`/`*_TABLE` plus polynomials), and table + polynomial
//! sine/cosine on all of them. Ours are longer (19–45 instructions per
//! function, 54 for pow) but portable between v6 and v7 and exactly
//! reproducible.
//!
//! Denormal inputs are scaled by 2^64 (exactly) before their bits are taken
//! apart. This assumes, as the simulator does, that `FMA.f32` keeps
//! denormals; no public source says whether the hardware flushes them in
//! this configuration. If it does, a denormal input behaves as ±0 here,
//! which Vulkan permits. Signed zeros: sin(−0) and a few other zero
//! results come out +0 (GLSL does not distinguish them).
//!
//! Precision targets (Vulkan, "Precision and Operation of SPIR-V
//! Instructions"): x/y 2.5 ULP for |y| in [2^-126, 2^126]; inversesqrt 2 ULP;
//! sqrt as 1/inversesqrt; exp2 3 + 2|x| ULP; log2 3 ULP outside [0.5, 2],
//! absolute 2^-21 inside; sin/cos absolute 2^-11 in [-π, π]; pow as
//! exp2(y · log2(x)). `tests/float_precision.rs` measures the errors.
//!
//! Polynomial coefficients are near-minimax fits (Chebyshev, mpmath) rounded
//! to f32; each table says the interval and the fit's own error.

use super::*;

const SIGN: u32 = 0x8000_0000;
const INF: u32 = 0x7f80_0000;
const NEG_INF: u32 = 0xff80_0000;
const QNAN: u32 = 0x7fc0_0000;
const ONE: u32 = 0x3f80_0000;

/// An f32 immediate.
fn fimm(v: f32) -> Src {
    Src::Imm(v.to_bits())
}

/// 2^f for f in [-0.5, 0.5], highest degree first (fit error 2^-28.9).
const EXP2_POLY: [u32; 7] = [
    0x3922_2000,
    0x3aaf_a460,
    0x3c1d_950e,
    0x3d63_5766,
    0x3e75_fdf0,
    0x3f31_7218,
    ONE,
];

/// log2(1 + u) / u for u in [√½ − 1, √2 − 1], highest degree first (fit
/// error 2^-26.9 relative).
const LOG2_POLY: [u32; 10] = [
    0xbddc_27db,
    0x3e3d_31d0,
    0xbe43_fb51,
    0x3e51_c634,
    0xbe75_5bd5,
    0x3e93_bd29,
    0xbeb8_ad38,
    0x3ef6_3855,
    0xbf38_aa38,
    0x3fb8_aa3b,
];

/// (sin(r) − r) / r³ as a polynomial in z = r², r in [−π/4, π/4]
/// (fit error 2^-25.6 of that quotient, i.e. ≤ 2^-27 of sin r).
const SIN_POLY: [u32; 3] = [0xb94d_64d8, 0x3c08_8614, 0xbe2a_aaa9];

/// (cos(r) − 1) / z as a polynomial in z = r², r in [−π/4, π/4]
/// (fit error 2^-31.6).
const COS_POLY: [u32; 4] = [0x37cd_3796, 0xbab6_0704, 0x3d2a_aaa6, 0xbf00_0000];

/// π/2 in three parts (Cody–Waite): C1 has 8 significant bits and C2 11, so
/// x − q·C1 is exact for the quadrant counts q of every |x| < 2^15; the
/// remainder π/2 − C1 − C2 − C3 is 1.7e-15.
const PIO2_C1: u32 = 0x3fc9_0000;
const PIO2_C2: u32 = 0x39fd_a000;
const PIO2_C3: u32 = 0x33a2_2169;
const TWO_OVER_PI: u32 = 0x3f22_f983;

impl Isel<'_> {
    /// One component of a float math op on 32-bit floats; `y` is the second
    /// source of `fdiv` and `fpow`.
    pub(super) fn float_math(
        &mut self,
        op: AluOp,
        x: Src,
        y: Option<Src>,
    ) -> Result<Src, CompileError> {
        let second =
            || y.ok_or_else(|| CompileError::Malformed(format!("{} needs two sources", op.name())));
        Ok(match op {
            AluOp::Frcp => self.frcp(x),
            AluOp::Fdiv => self.fdiv(x, second()?),
            AluOp::Frsq => self.frsq(x),
            AluOp::Fsqrt => self.fsqrt(x),
            AluOp::Fexp2 => self.fexp2(x),
            AluOp::Flog2 => self.flog2(x),
            AluOp::Fsin => self.fsincos(x, false),
            AluOp::Fcos => self.fsincos(x, true),
            AluOp::Fpow => {
                // GLSL defines pow as exp2(y · log2(x)) (undefined for x < 0,
                // and for x = 0 with y ≤ 0): exactly that, so x < 0 gives NaN.
                let l = self.flog2(x);
                let p = self.fmul(second()?, l);
                self.fexp2(p)
            }
            _ => return Err(unsupported(format!("{} as float math", op.name()))),
        })
    }

    /// a · b + c (one rounding).
    pub(super) fn ffma(&mut self, a: Src, b: Src, c: Src) -> Src {
        self.emit(Op::FmaF32 { neg: [false; 3] }, &[a, b, c])
    }

    /// c − a · b (one rounding).
    fn ffnma(&mut self, a: Src, b: Src, c: Src) -> Src {
        self.emit(
            Op::FmaF32 {
                neg: [true, false, false],
            },
            &[a, b, c],
        )
    }

    /// a · b, as `fmul` is selected (a · b + (−0) keeps the sign of zeros).
    pub(super) fn fmul(&mut self, a: Src, b: Src) -> Src {
        self.emit(
            Op::FmaF32 {
                neg: [false, false, true],
            },
            &[a, b, ZERO],
        )
    }

    pub(super) fn fcmp(&mut self, cmp: Cmp, a: Src, b: Src) -> Src {
        self.emit(Op::Fcmp { cmp }, &[a, b])
    }

    /// Horner's rule: ((c0 · t + c1) · t + c2) ..., coefficients as f32 bits.
    fn horner(&mut self, coeffs: &[u32], t: Src) -> Src {
        let mut acc = Src::Imm(coeffs[0]);
        for &c in &coeffs[1..] {
            acc = self.ffma(acc, t, Src::Imm(c));
        }
        acc
    }

    /// |x| = m · 2^e with m in [1, 2), for finite non-zero x (denormals
    /// included: they are first scaled by 2^64, which is exact). For ±0 it
    /// gives m = 1, e = −191; for inf/NaN e = 128. Returns (m, e).
    fn frexp_abs(&mut self, x: Src) -> (Src, Src) {
        let exp_field = self.shift(ShiftOp::RshiftAnd, x, Src::Imm(0xff), Src::Imm(23));
        let denormal = self.icmp(IcmpType::I32, Cmp::Eq, exp_field, ZERO);
        let scaled = self.fmul(x, fimm(2f32.powi(64)));
        let xn = self.mux(x, scaled, denormal);
        let exp_field = self.shift(ShiftOp::RshiftAnd, xn, Src::Imm(0xff), Src::Imm(23));
        let bias = self.mux(Src::Imm(127), Src::Imm(127 + 64), denormal);
        let e = self.emit(Op::IsubS32, &[exp_field, bias]);
        let frac = self.shift(ShiftOp::LshiftAnd, xn, Src::Imm(0x007f_ffff), ZERO);
        let m = self.shift(ShiftOp::LshiftOr, frac, Src::Imm(ONE), ZERO);
        (m, e)
    }

    /// v · 2^k for an integer k in [−252, 254], rounded once: two exact
    /// power-of-two factors 2^⌊k/2⌋ and 2^⌈k/2⌉ (each a normal float), so
    /// results that overflow become inf and tiny ones round to denormals/0.
    fn ldexp(&mut self, v: Src, k: Src) -> Src {
        let k1 = self.emit(Op::ArshiftI32, &[k, ZERO, Src::Imm(1)]);
        let k2 = self.emit(Op::IsubS32, &[k, k1]);
        let mut r = v;
        for half in [k1, k2] {
            // (half + 127) << 23, as (half << 23) + (127 << 23) in wrapping arithmetic.
            let bits = self.shift(ShiftOp::LshiftOr, half, ZERO, Src::Imm(23));
            let factor = self.emit(Op::IaddS32, &[bits, Src::Imm(ONE)]);
            r = self.fmul(r, factor);
        }
        r
    }

    /// 1/x within about one ULP: 1/m by Newton–Raphson from the linear
    /// estimate 24/17 − 8/17·m (error ≤ 1/17 on [1, 2)), three iterations
    /// (error 2^-4 → 2^-8 → 2^-16 → below rounding), then scaled by 2^-e.
    pub(super) fn frcp(&mut self, x: Src) -> Src {
        let (m, e) = self.frexp_abs(x);
        let mut r = self.ffma(m, fimm(-8.0 / 17.0), fimm(24.0 / 17.0));
        for _ in 0..3 {
            let t = self.ffnma(m, r, Src::Imm(ONE));
            r = self.ffma(r, t, r);
        }
        // e in [−191, 128] (±0 .. inf/NaN), so −e is in ldexp's range; ±0
        // overflows to inf there.
        let k = self.emit(Op::IsubS32, &[ZERO, e]);
        let r = self.ldexp(r, k);
        let sign = self.shift(ShiftOp::LshiftAnd, x, Src::Imm(SIGN), ZERO);
        let r = self.shift(ShiftOp::LshiftOr, r, sign, ZERO);
        // 1/±inf = ±0, 1/NaN = NaN.
        let inf_or_nan = self.icmp(IcmpType::I32, Cmp::Eq, e, Src::Imm(128));
        let r = self.mux(r, sign, inf_or_nan);
        let nan = self.fcmp(Cmp::Ne, x, x);
        self.mux(r, x, nan)
    }

    /// a / b = a · (1/b) with one residual correction q + (a − b·q)/b.
    /// Where the correction is not finite (b = 0 or inf, a or the quotient
    /// inf) the plain product is the IEEE answer; a zero quotient keeps the
    /// product's sign.
    ///
    /// Divisors below 2^-125 (denormals) or from 2^126 on are first scaled,
    /// with the dividend, by 2^64 or 2^-64 (exact unless the quotient
    /// overflows or underflows anyway), so that 1/b and the correction stay
    /// normal: Vulkan bounds only |b| in [2^-126, 2^126], but a/b of two
    /// denormals is an ordinary number.
    fn fdiv(&mut self, a: Src, b: Src) -> Src {
        let exp_field = self.shift(ShiftOp::RshiftAnd, b, Src::Imm(0xff), Src::Imm(23));
        let tiny = self.icmp(IcmpType::U32, Cmp::Lt, exp_field, Src::Imm(2));
        // inf and NaN (field 255) scale to themselves.
        let huge = self.icmp(IcmpType::U32, Cmp::Gt, exp_field, Src::Imm(252));
        let s = self.mux(Src::Imm(ONE), fimm(2f32.powi(64)), tiny);
        let s = self.mux(s, fimm(2f32.powi(-64)), huge);
        let a = self.fmul(a, s);
        let b = self.fmul(b, s);
        let r = self.frcp(b);
        let q = self.fmul(a, r);
        let residual = self.ffnma(b, q, a);
        let corrected = self.ffma(residual, r, q);
        let nan = self.fcmp(Cmp::Ne, corrected, corrected);
        let zero = self.fcmp(Cmp::Eq, q, ZERO);
        let keep = self.shift(ShiftOp::LshiftOr, nan, zero, ZERO);
        self.mux(corrected, q, keep)
    }

    /// 1/√x for positive finite non-zero x (denormals scaled by 2^64 first),
    /// without special cases: the integer estimate 0x5f3759df − bits/2
    /// (relative error ≤ 3.5 %) and three Newton–Raphson steps
    /// y += y·(1 − x·y²)/2 (2^-4.8 → 2^-9 → 2^-17.6 → below rounding).
    fn rsq_core(&mut self, x: Src) -> Src {
        let exp_field = self.shift(ShiftOp::RshiftAnd, x, Src::Imm(0xff), Src::Imm(23));
        let denormal = self.icmp(IcmpType::I32, Cmp::Eq, exp_field, ZERO);
        let scaled = self.fmul(x, fimm(2f32.powi(64)));
        let xn = self.mux(x, scaled, denormal);
        let half_bits = self.shift(ShiftOp::RshiftOr, xn, ZERO, Src::Imm(1));
        let mut y = self.emit(Op::IsubS32, &[Src::Imm(0x5f37_59df), half_bits]);
        for _ in 0..3 {
            let h = self.fmul(xn, y);
            let t = self.ffnma(h, y, Src::Imm(ONE));
            let u = self.fmul(y, t);
            y = self.ffma(u, fimm(0.5), y);
        }
        let undo = self.mux(Src::Imm(ONE), fimm(2f32.powi(32)), denormal);
        self.fmul(y, undo)
    }

    /// 1/√x: ±0 → ±inf, +inf → +0, x < 0 → NaN, NaN → NaN.
    fn frsq(&mut self, x: Src) -> Src {
        let y = self.rsq_core(x);
        let zero = self.fcmp(Cmp::Eq, x, ZERO);
        let signed_inf = self.shift(ShiftOp::LshiftOr, x, Src::Imm(INF), ZERO);
        let y = self.mux(y, signed_inf, zero);
        let inf = self.fcmp(Cmp::Eq, x, Src::Imm(INF));
        let y = self.mux(y, ZERO, inf);
        let neg = self.fcmp(Cmp::Lt, x, ZERO);
        self.mux(y, Src::Imm(QNAN), neg)
    }

    /// √x = x · (1/√x), corrected once by Newton's step s += (x − s²)·y/2:
    /// ±0 and +inf are themselves, x < 0 → NaN, NaN → NaN.
    fn fsqrt(&mut self, x: Src) -> Src {
        let y = self.rsq_core(x);
        let s = self.fmul(x, y);
        let t = self.ffnma(s, s, x);
        let half_y = self.fmul(y, fimm(0.5));
        let s = self.ffma(t, half_y, s);
        // x + x == x only for ±0 and ±inf (−inf is then caught as negative).
        let twice = self.fadd(x, x, [false, false]);
        let zero_or_inf = self.fcmp(Cmp::Eq, twice, x);
        let s = self.mux(s, x, zero_or_inf);
        let neg = self.fcmp(Cmp::Lt, x, ZERO);
        self.mux(s, Src::Imm(QNAN), neg)
    }

    /// 2^x = 2^n · 2^f with n = round(x), f = x − n in [−0.5, 0.5] (exact),
    /// 2^f by a degree-6 polynomial, 2^n applied by `ldexp`. x is clamped to
    /// [−200, 200] first (beyond, the result is 0 or inf anyway); NaN stays NaN.
    fn fexp2(&mut self, x: Src) -> Src {
        let lo = self.emit(Op::FmaxF32, &[x, fimm(-200.0)]);
        let xc = self.emit(Op::FminF32, &[lo, fimm(200.0)]);
        let n = self.emit(Op::FroundF32 { round: Round::Rte }, &[xc]);
        let f = self.fadd(xc, n, [false, true]);
        let p = self.horner(&EXP2_POLY, f);
        let ni = self.emit(Op::F32ToS32, &[n]);
        let r = self.ldexp(p, ni);
        let nan = self.fcmp(Cmp::Ne, x, x);
        self.mux(r, x, nan)
    }

    /// log2(x) = e + log2(m) with m in [√½, √2) (so log2(m) is small and
    /// exact powers of two give exact results), log2(m) = u · P(u), u = m − 1
    /// (exact). 0 → −inf, x < 0 → NaN, +inf → +inf, NaN → NaN.
    fn flog2(&mut self, x: Src) -> Src {
        let (m, e) = self.frexp_abs(x);
        let big = self.fcmp(Cmp::Gt, m, fimm(std::f32::consts::SQRT_2));
        let half = self.fmul(m, fimm(0.5));
        let m = self.mux(m, half, big);
        // big is all ones (−1): e − big = e + 1.
        let e = self.emit(Op::IsubS32, &[e, big]);
        let u = self.fadd(m, Src::Imm(ONE), [false, true]);
        let p = self.horner(&LOG2_POLY, u);
        let l = self.fmul(u, p);
        let ef = self.emit(Op::S32ToF32, &[e]);
        let r = self.fadd(ef, l, [false, false]);
        // Bits ≥ 0x7f800000 unsigned: +inf, NaN and every negative input.
        let above = self.icmp(IcmpType::U32, Cmp::Ge, x, Src::Imm(INF));
        let r = self.mux(r, x, above);
        let neg = self.fcmp(Cmp::Lt, x, ZERO);
        let r = self.mux(r, Src::Imm(QNAN), neg);
        let zero = self.fcmp(Cmp::Eq, x, ZERO);
        self.mux(r, Src::Imm(NEG_INF), zero)
    }

    /// sin/cos: quadrant q = round(x · 2/π), r = x − q·π/2 in [−π/4, π/4]
    /// (Cody–Waite), both polynomials, selected and negated by q mod 4
    /// (cos(x) = sin(x + π/2): q + 1). inf/NaN give NaN. Accurate to a few
    /// ULP of 1 for |x| < 2^15; beyond, the reduction loses precision
    /// (Vulkan bounds only [−π, π]).
    fn fsincos(&mut self, x: Src, cos: bool) -> Src {
        let scaled = self.fmul(x, Src::Imm(TWO_OVER_PI));
        let q = self.emit(Op::FroundF32 { round: Round::Rte }, &[scaled]);
        let mut r = x;
        for c in [PIO2_C1, PIO2_C2, PIO2_C3] {
            r = self.ffnma(q, Src::Imm(c), r);
        }
        let z = self.fmul(r, r);
        let ps = self.horner(&SIN_POLY, z);
        let rz = self.fmul(r, z);
        let sin = self.ffma(rz, ps, r);
        let pc = self.horner(&COS_POLY, z);
        let cos_r = self.ffma(z, pc, Src::Imm(ONE));
        let mut qi = self.emit(Op::F32ToS32, &[q]);
        if cos {
            qi = self.emit(Op::IaddS32, &[qi, Src::Imm(1)]);
        }
        let odd = self.shift(ShiftOp::LshiftAnd, qi, Src::Imm(1), ZERO);
        let v = self.mux(sin, cos_r, odd);
        // Bit 1 of q is the sign: (q << 30) & 0x80000000.
        let sign = self.shift(ShiftOp::LshiftAnd, qi, Src::Imm(SIGN), Src::Imm(30));
        self.shift(ShiftOp::LshiftXor, v, sign, ZERO)
    }
}

#[cfg(test)]
mod tests {
    //! The selected sequences evaluated instruction by instruction with
    //! [`Op::fold`] (the semantics the simulator is tested against op by
    //! op) over whole binades: every 16th f32 of the range by default,
    //! every one with `BIFROST_VK_EXHAUSTIVE=1` (minutes). The largest
    //! errors are printed. tests/float_precision.rs runs the same ops on
    //! the simulator.

    use super::super::select;
    use super::*;
    use crate::compiler::ir::Shader;
    use std::collections::HashMap;

    /// A straight-line selected program in a form that evaluates quickly.
    struct Straight {
        instrs: Vec<(Op, Vec<Operand>, usize)>,
        result: Operand,
        regs: usize,
    }

    #[derive(Clone, Copy)]
    enum Operand {
        Reg(usize),
        Imm(u32),
        X,
        Y,
    }

    /// `store_global op(x, y)` with x, y the two halves of push word 0.
    fn straight(op: &str, binary: bool) -> Straight {
        let call = if binary {
            format!("{op} %0, %1")
        } else {
            format!("{op} %0")
        };
        let text = format!(
            "shader compute \"t\" {{
  info local_size 1 1 1 shared 0 push 0
  values 8
  %0:i32 = load_uniform offset=0
  %1:i32 = load_uniform offset=4
  %2:i32 = {call}
  %3:i64 = load_uniform offset=8
  store_global %2, %3
}}
"
        );
        let shader = Shader::parse(&text).unwrap();
        let p = select(&shader, &Default::default()).unwrap();
        assert_eq!(p.blocks.len(), 1, "{op} is straight-line code");
        let mut index = HashMap::new();
        let operand = |s: &Src, index: &HashMap<Reg, usize>| match *s {
            Src::Reg(r) => Operand::Reg(index[&r]),
            Src::Imm(v) => Operand::Imm(v),
            Src::Uniform { word: 0, high } => {
                if high {
                    Operand::Y
                } else {
                    Operand::X
                }
            }
            s => panic!("unexpected operand {s}"),
        };
        let mut instrs = Vec::new();
        for i in &p.blocks[0].instrs {
            if let Op::Store { .. } = i.op {
                let result = operand(&i.srcs[0], &index);
                let regs = index.len();
                return Straight {
                    instrs,
                    result,
                    regs,
                };
            }
            let srcs = i.srcs.iter().map(|s| operand(s, &index)).collect();
            let Some(Dst::Reg(d)) = i.dst else {
                panic!("{i}: no register result")
            };
            let n = index.len();
            let d = *index.entry(d).or_insert(n);
            instrs.push((i.op, srcs, d));
        }
        panic!("no store")
    }

    impl Straight {
        fn eval(&self, x: f32, y: f32, regs: &mut Vec<u32>) -> f32 {
            regs.resize(self.regs, 0);
            let get = |o: Operand, regs: &[u32]| match o {
                Operand::Reg(r) => regs[r],
                Operand::Imm(v) => v,
                Operand::X => x.to_bits(),
                Operand::Y => y.to_bits(),
            };
            let mut s = [0u32; 4];
            for (op, srcs, d) in &self.instrs {
                for (k, &o) in srcs.iter().enumerate() {
                    s[k] = get(o, regs);
                }
                regs[*d] = op.fold(&s[..srcs.len()]).expect("ALU op");
            }
            f32::from_bits(get(self.result, regs))
        }
    }

    /// The size of one f32 ULP at |v| (normal range).
    fn ulp(v: f64) -> f64 {
        2f64.powi(v.abs().log2().floor() as i32 - 23)
    }

    /// The f32s with exponent field `e` (one binade), positive: all of
    /// them, or every 16th.
    fn binade(e: u32) -> impl Iterator<Item = f32> {
        let all = std::env::var("BIFROST_VK_EXHAUSTIVE").is_ok_and(|v| v == "1");
        (0..1u32 << 23)
            .step_by(if all { 1 } else { 16 })
            .map(move |m| f32::from_bits(e << 23 | m))
    }

    /// Largest error in ULP of `f` against `reference` over the inputs.
    fn max_ulp(
        s: &Straight,
        inputs: impl Iterator<Item = f32>,
        reference: impl Fn(f64) -> f64,
    ) -> (f64, f32) {
        let mut regs = Vec::new();
        let mut worst = (0f64, 0f32);
        for x in inputs {
            let want = reference(f64::from(x));
            let got = f64::from(s.eval(x, 1.0, &mut regs));
            let e = (got - want).abs() / ulp(want);
            if e > worst.0 || e.is_nan() {
                worst = (e, x);
            }
        }
        worst
    }

    #[test]
    fn reciprocal_over_a_whole_binade() {
        // 1/x is the same sequence in every binade up to the exponent.
        let s = straight("frcp", false);
        let (e, at) = max_ulp(&s, binade(127), |x| 1.0 / x);
        eprintln!("frcp on [1, 2): {e:.3} ULP at {at:e}");
        assert!(e <= 1.0, "frcp: {e} ULP at {at:e}");
        let s = straight("fdiv", true);
        let mut regs = Vec::new();
        for y in binade(127).step_by(61) {
            for x in [1.0f32, 3.0, 0.7, 1.9999999] {
                let want = f64::from(x) / f64::from(y);
                let got = f64::from(s.eval(x, y, &mut regs));
                assert!((got - want).abs() <= ulp(want), "{x} / {y} = {got}");
            }
        }
    }

    #[test]
    fn square_roots_over_two_binades() {
        // [1, 4): both exponent parities.
        for (op, reference, bound) in [
            ("frsq", (|x: f64| 1.0 / x.sqrt()) as fn(f64) -> f64, 2.0),
            ("fsqrt", f64::sqrt, 1.0),
        ] {
            let s = straight(op, false);
            let (e, at) = max_ulp(&s, binade(127).chain(binade(128)), reference);
            eprintln!("{op} on [1, 4): {e:.3} ULP at {at:e}");
            assert!(e <= bound, "{op}: {e} ULP at {at:e}");
        }
    }

    #[test]
    fn log2_around_one_and_exp2_over_unit_binades() {
        let s = straight("flog2", false);
        let mut regs = Vec::new();
        let mut worst = 0f64;
        for x in binade(126).chain(binade(127)) {
            // [0.5, 2): absolute 2^-21 (Vulkan).
            let err = (f64::from(s.eval(x, 0.0, &mut regs)) - f64::from(x).log2()).abs();
            assert!(err < 2f64.powi(-21), "flog2({x:e}): error {err:e}");
            worst = worst.max(err);
        }
        eprintln!("flog2 on [0.5, 2): {worst:.3e} absolute");
        let (e, at) = max_ulp(&s, binade(128), f64::log2);
        eprintln!("flog2 on [2, 4): {e:.3} ULP at {at:e}");
        assert!(e <= 3.0, "flog2: {e} ULP at {at:e}");
        let s = straight("fexp2", false);
        let (e, at) = max_ulp(&s, binade(126).chain(binade(127)), f64::exp2);
        eprintln!("fexp2 on [0.5, 2): {e:.3} ULP at {at:e}");
        assert!(e <= 3.0 + 2.0 * 2.0, "fexp2: {e} ULP at {at:e}");
    }

    #[test]
    fn sine_and_cosine_over_zero_to_four() {
        // Every f32 in [0.5, 4): beyond the reduction's first quadrant
        // boundaries (π/4, 3π/4) up to past π.
        for (op, reference) in [("fsin", f64::sin as fn(f64) -> f64), ("fcos", f64::cos)] {
            let s = straight(op, false);
            let mut regs = Vec::new();
            let mut worst = 0f64;
            for x in (126..=128).flat_map(binade) {
                let err = (f64::from(s.eval(x, 0.0, &mut regs)) - reference(f64::from(x))).abs();
                worst = worst.max(err);
            }
            eprintln!("{op} on [0.5, 4): {worst:.3e} absolute");
            assert!(worst <= 2f64.powi(-11), "{op}: absolute error {worst:e}");
            assert!(
                worst <= 2f64.powi(-22),
                "{op}: {worst:e}, more than ours measures"
            );
        }
    }
}
