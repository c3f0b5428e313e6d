//! `lower_int64`: the 64-bit integer operations the Bifrost backend has no
//! instruction sequence for, rewritten into 64-bit operations it has
//! (add, subtract, shifts, compares, selects) and 32-bit ones.
//!
//! - `udiv`/`umod`: restoring division, one quotient bit per iteration of
//!   a 64-trip loop (`r = r << 1 | bit; if r ≥ d { r −= d; q |= 1 << i }`).
//!   A zero divisor gives q = all ones and r = the dividend, the IR's
//!   definition (`ir/eval.rs`; SPIR-V leaves it undefined).
//! - `idiv`/`irem`/`imod`: the unsigned division of the magnitudes, then
//!   the sign rules of `OpSDiv`, `OpSRem` (sign of the dividend) and
//!   `OpSMod` (sign of the divisor); x / 0 = −1 as the IR defines it.
//! - `iabs`, `isign` on 64 bits: compares and selects.
//! - `i2f`/`u2f` from 64 bits to f32: the magnitude normalised so that its
//!   leading one is bit 63, the top 24 bits rounded to nearest even with
//!   the rest as round and sticky bits, and the exponent added to the
//!   rounded significand (a carry out of the significand bumps the
//!   exponent by itself). Conversions are correctly rounded (Vulkan spec,
//!   "Precision and Operation of SPIR-V Instructions"), as `ir/eval.rs`
//!   computes them.
//!
//! - `f2i`/`f2u` from f32 to 64 bits: the significand shifted by the
//!   exponent, truncated toward zero; NaN gives 0 and values outside the
//!   range saturate (SPIR-V leaves them undefined; this is `ir/eval.rs`'s
//!   rule, Rust's saturating cast).
//!
//! Vectors are lowered component by component. Run on the shared front
//! half, before the variants (`compiler::pipeline`); the optimiser after it
//! folds what constant operands make trivial.

use crate::compiler::ir::*;

/// Rewrite the 64-bit operations above (module doc). Returns whether
/// anything changed.
pub fn lower_int64(shader: &mut Shader) -> bool {
    let mut changed = false;
    Builder::rewrite(shader, &mut |instr, e| {
        let Op::Alu(a) = &instr.op else {
            e.push(instr);
            return;
        };
        let Some(&dst) = instr.dsts.first() else {
            e.push(instr);
            return;
        };
        let op = a.op;
        let src_ty = e.ty(a.srcs[0]);
        let dst_ty = e.ty(dst);
        // (Operand counts are the validator's to check: an instruction
        // with the wrong count is left for it and the backend to refuse.)
        let wanted = a.srcs.len() == op.num_srcs()
            && match op {
                AluOp::Udiv
                | AluOp::Umod
                | AluOp::Idiv
                | AluOp::Irem
                | AluOp::Imod
                | AluOp::Iabs
                | AluOp::Isign => dst_ty.bits == 64,
                AluOp::I2f | AluOp::U2f => src_ty.bits == 64 && dst_ty.bits == 32,
                AluOp::F2i | AluOp::F2u => src_ty.bits == 32 && dst_ty.bits == 64,
                _ => false,
            };
        if !wanted {
            e.push(instr);
            return;
        }
        changed = true;
        let srcs = a.srcs.clone();
        let mut comps = Vec::with_capacity(usize::from(dst_ty.comps));
        for c in 0..dst_ty.comps {
            let x = e.channel(srcs[0], c);
            let y = srcs.get(1).map(|&s| e.channel(s, c));
            comps.push(lower_scalar(e, op, x, y));
        }
        let result = if comps.len() == 1 {
            comps[0]
        } else {
            e.vec(&comps)
        };
        e.mov(dst, result);
    });
    changed
}

/// One component of `op`; `y` is the second source of the binary ones
/// (`lower_int64` checked the count), else `x`.
fn lower_scalar(e: &mut Builder<'_>, op: AluOp, x: Value, y: Option<Value>) -> Value {
    let y = y.unwrap_or(x);
    match op {
        AluOp::Udiv => udivmod(e, x, y).0,
        AluOp::Umod => udivmod(e, x, y).1,
        AluOp::Idiv | AluOp::Irem | AluOp::Imod => signed_divmod(e, op, x, y),
        AluOp::Iabs => {
            let neg = is_negative(e, x);
            let minus = negate(e, x);
            e.alu_typed(AluOp::Bcsel, ValueType::U64, &[neg, minus, x])
        }
        AluOp::Isign => {
            let neg = is_negative(e, x);
            let zero = e.imm_u64(0);
            let nonzero = e.alu_typed(AluOp::Ine, ValueType::BOOL, &[x, zero]);
            let one = e.imm_u64(1);
            let minus_one = e.imm_u64(u64::MAX);
            let pos = e.alu_typed(AluOp::Bcsel, ValueType::U64, &[nonzero, one, zero]);
            e.alu_typed(AluOp::Bcsel, ValueType::U64, &[neg, minus_one, pos])
        }
        AluOp::U2f => u64_to_f32(e, x),
        AluOp::I2f => {
            let neg = is_negative(e, x);
            let minus = negate(e, x);
            let magnitude = e.alu_typed(AluOp::Bcsel, ValueType::U64, &[neg, minus, x]);
            let f = u64_to_f32(e, magnitude);
            let sign = e.imm_u32(0x8000_0000);
            let none = e.imm_u32(0);
            let bit = e.alu_typed(AluOp::Bcsel, ValueType::U32, &[neg, sign, none]);
            e.alu_typed(AluOp::Ior, ValueType::U32, &[f, bit])
        }
        AluOp::F2i | AluOp::F2u => f32_to_64(e, op == AluOp::F2i, x),
        _ => unreachable!("lower_int64 selects only the operations above"),
    }
}

/// x < 0 as a signed 64-bit value.
fn is_negative(e: &mut Builder<'_>, x: Value) -> Value {
    let zero = e.imm_u64(0);
    e.alu_typed(AluOp::Ilt, ValueType::BOOL, &[x, zero])
}

fn negate(e: &mut Builder<'_>, x: Value) -> Value {
    let zero = e.imm_u64(0);
    e.alu_typed(AluOp::Isub, ValueType::U64, &[zero, x])
}

/// (quotient, remainder) of unsigned 64-bit `n / d` (module doc).
fn udivmod(e: &mut Builder<'_>, n: Value, d: Value) -> (Value, Value) {
    let u64t = ValueType::U64;
    let u32t = ValueType::U32;
    let zero = e.imm_u64(0);
    let start = e.imm_u32(64);
    let out = e.loop_(&[start, zero, zero], &[u64t, u64t], |b, p| {
        let (i, q, r) = (p[0], p[1], p[2]);
        let none = b.imm_u32(0);
        let done = b.alu_typed(AluOp::Ieq, ValueType::BOOL, &[i, none]);
        b.if_(
            done,
            &[],
            |b| {
                b.break_(&[q, r]);
                vec![]
            },
            |_| vec![],
        );
        let one32 = b.imm_u32(1);
        let i = b.alu_typed(AluOp::Isub, u32t, &[i, one32]);
        // r = r << 1 | (n >> i) & 1
        let one = b.imm_u64(1);
        let bit = b.alu_typed(AluOp::Ushr, u64t, &[n, i]);
        let bit = b.alu_typed(AluOp::Iand, u64t, &[bit, one]);
        let r = b.alu_typed(AluOp::Ishl, u64t, &[r, one32]);
        let r = b.alu_typed(AluOp::Ior, u64t, &[r, bit]);
        let fits = b.alu_typed(AluOp::Uge, ValueType::BOOL, &[r, d]);
        let less = b.alu_typed(AluOp::Isub, u64t, &[r, d]);
        let r = b.alu_typed(AluOp::Bcsel, u64t, &[fits, less, r]);
        let qbit = b.alu_typed(AluOp::Ishl, u64t, &[one, i]);
        let set = b.alu_typed(AluOp::Ior, u64t, &[q, qbit]);
        let q = b.alu_typed(AluOp::Bcsel, u64t, &[fits, set, q]);
        vec![i, q, r]
    });
    (out[0], out[1])
}

/// `idiv`, `irem` or `imod` of signed 64-bit values (module doc).
fn signed_divmod(e: &mut Builder<'_>, op: AluOp, x: Value, y: Value) -> Value {
    let u64t = ValueType::U64;
    let bool_t = ValueType::BOOL;
    let zero = e.imm_u64(0);
    let xneg = is_negative(e, x);
    let yneg = is_negative(e, y);
    let nx = negate(e, x);
    let ny = negate(e, y);
    let ax = e.alu_typed(AluOp::Bcsel, u64t, &[xneg, nx, x]);
    let ay = e.alu_typed(AluOp::Bcsel, u64t, &[yneg, ny, y]);
    let (q, r) = udivmod(e, ax, ay);
    match op {
        AluOp::Idiv => {
            let differ = e.alu_typed(AluOp::Ine, bool_t, &[xneg, yneg]);
            let nq = negate(e, q);
            let q = e.alu_typed(AluOp::Bcsel, u64t, &[differ, nq, q]);
            // x / 0 = −1 (the IR's definition).
            let by_zero = e.alu_typed(AluOp::Ieq, bool_t, &[y, zero]);
            let all = e.imm_u64(u64::MAX);
            e.alu_typed(AluOp::Bcsel, u64t, &[by_zero, all, q])
        }
        _ => {
            // The remainder takes the dividend's sign.
            let nr = negate(e, r);
            let rem = e.alu_typed(AluOp::Bcsel, u64t, &[xneg, nr, r]);
            if op == AluOp::Irem {
                return rem;
            }
            // The modulo takes the divisor's: a nonzero remainder of the
            // other sign moves by one divisor.
            let nonzero = e.alu_typed(AluOp::Ine, bool_t, &[rem, zero]);
            let rneg = is_negative(e, rem);
            let differ = e.alu_typed(AluOp::Ine, bool_t, &[rneg, yneg]);
            let fix = e.alu_typed(AluOp::Iand, bool_t, &[nonzero, differ]);
            let moved = e.alu_typed(AluOp::Iadd, u64t, &[rem, y]);
            e.alu_typed(AluOp::Bcsel, u64t, &[fix, moved, rem])
        }
    }
}

/// An unsigned 64-bit value as f32 bits, rounded to nearest even.
fn u64_to_f32(e: &mut Builder<'_>, x: Value) -> Value {
    let u64t = ValueType::U64;
    let u32t = ValueType::U32;
    let bool_t = ValueType::BOOL;
    let c32 = e.imm_u32(32);
    let lo = e.alu_typed(AluOp::U2u, u32t, &[x]);
    let hi = e.alu_typed(AluOp::Ushr, u64t, &[x, c32]);
    let hi = e.alu_typed(AluOp::U2u, u32t, &[hi]);
    // Position of the leading one: 32 + msb(hi), or msb(lo).
    let zero = e.imm_u32(0);
    let hi_set = e.alu_typed(AluOp::Ine, bool_t, &[hi, zero]);
    let msb_hi = e.alu_typed(AluOp::UfindMsb, u32t, &[hi]);
    let msb_hi = e.alu_typed(AluOp::Iadd, u32t, &[msb_hi, c32]);
    let msb_lo = e.alu_typed(AluOp::UfindMsb, u32t, &[lo]);
    let msb = e.alu_typed(AluOp::Bcsel, u32t, &[hi_set, msb_hi, msb_lo]);
    // Normalise: the leading one to bit 63 (msb is 0..=63 for x ≠ 0).
    let c63 = e.imm_u32(63);
    let lz = e.alu_typed(AluOp::Isub, u32t, &[c63, msb]);
    let m = e.alu_typed(AluOp::Ishl, u64t, &[x, lz]);
    let mlo = e.alu_typed(AluOp::U2u, u32t, &[m]);
    let mhi = e.alu_typed(AluOp::Ushr, u64t, &[m, c32]);
    let mhi = e.alu_typed(AluOp::U2u, u32t, &[mhi]);
    // Significand = bits 63..40 (mhi >> 8); round bit = bit 39 (mhi bit 7);
    // sticky = bits 38..0.
    let c8 = e.imm_u32(8);
    let sig = e.alu_typed(AluOp::Ushr, u32t, &[mhi, c8]);
    let c80 = e.imm_u32(0x80);
    let round = e.alu_typed(AluOp::Iand, u32t, &[mhi, c80]);
    let round = e.alu_typed(AluOp::Ine, bool_t, &[round, zero]);
    let c7f = e.imm_u32(0x7f);
    let low7 = e.alu_typed(AluOp::Iand, u32t, &[mhi, c7f]);
    let sticky = e.alu_typed(AluOp::Ior, u32t, &[low7, mlo]);
    let sticky = e.alu_typed(AluOp::Ine, bool_t, &[sticky, zero]);
    let one = e.imm_u32(1);
    let odd = e.alu_typed(AluOp::Iand, u32t, &[sig, one]);
    let odd = e.alu_typed(AluOp::Ine, bool_t, &[odd, zero]);
    let tie_break = e.alu_typed(AluOp::Ior, bool_t, &[sticky, odd]);
    let up = e.alu_typed(AluOp::Iand, bool_t, &[round, tie_break]);
    let inc = e.alu_typed(AluOp::Bcsel, u32t, &[up, one, zero]);
    let sig = e.alu_typed(AluOp::Iadd, u32t, &[sig, inc]);
    // Bits = (msb + 126) << 23 plus the significand with its leading one
    // (which adds the last 1 to the exponent; a rounding carry to 2^24
    // adds one more and leaves the fraction 0).
    let c126 = e.imm_u32(126);
    let exp = e.alu_typed(AluOp::Iadd, u32t, &[msb, c126]);
    let c23 = e.imm_u32(23);
    let exp = e.alu_typed(AluOp::Ishl, u32t, &[exp, c23]);
    let bits = e.alu_typed(AluOp::Iadd, u32t, &[exp, sig]);
    let zero64 = e.imm_u64(0);
    let is_zero = e.alu_typed(AluOp::Ieq, bool_t, &[x, zero64]);
    e.alu_typed(AluOp::Bcsel, u32t, &[is_zero, zero, bits])
}

/// f32 bits `x` truncated to a signed (`signed`) or unsigned 64-bit
/// integer (module doc).
fn f32_to_64(e: &mut Builder<'_>, signed: bool, x: Value) -> Value {
    let u64t = ValueType::U64;
    let u32t = ValueType::U32;
    let bool_t = ValueType::BOOL;
    let imm = |e: &mut Builder<'_>, v: u32| e.imm_u32(v);
    let c23 = imm(e, 23);
    let exp = e.alu_typed(AluOp::Ushr, u32t, &[x, c23]);
    let cff = imm(e, 0xff);
    let exp = e.alu_typed(AluOp::Iand, u32t, &[exp, cff]);
    let cfrac = imm(e, 0x7f_ffff);
    let frac = e.alu_typed(AluOp::Iand, u32t, &[x, cfrac]);
    let zero = imm(e, 0);
    let has_frac = e.alu_typed(AluOp::Ine, bool_t, &[frac, zero]);
    let c255 = imm(e, 255);
    let all_ones = e.alu_typed(AluOp::Ieq, bool_t, &[exp, c255]);
    let nan = e.alu_typed(AluOp::Iand, bool_t, &[all_ones, has_frac]);
    let c31 = imm(e, 31);
    let sign = e.alu_typed(AluOp::Ushr, u32t, &[x, c31]);
    let neg = e.alu_typed(AluOp::Ine, bool_t, &[sign, zero]);
    // |x| = (1.frac) × 2^(exp − 127) = mant × 2^(exp − 150).
    let implicit = imm(e, 0x80_0000);
    let mant = e.alu_typed(AluOp::Ior, u32t, &[frac, implicit]);
    let c150 = imm(e, 150);
    let big = e.alu_typed(AluOp::Uge, bool_t, &[exp, c150]);
    let up = e.alu_typed(AluOp::Isub, u32t, &[exp, c150]);
    let down = e.alu_typed(AluOp::Isub, u32t, &[c150, exp]);
    let mant64 = e.alu_typed(AluOp::U2u, u64t, &[mant]);
    let shifted_up = e.alu_typed(AluOp::Ishl, u64t, &[mant64, up]);
    // Below 2^23 the shift right is at most 23 places here (|x| < 1 is
    // cut below).
    let shifted_down = e.alu_typed(AluOp::Ushr, u32t, &[mant, down]);
    let shifted_down = e.alu_typed(AluOp::U2u, u64t, &[shifted_down]);
    let mag = e.alu_typed(AluOp::Bcsel, u64t, &[big, shifted_up, shifted_down]);
    let c127 = imm(e, 127);
    let below_one = e.alu_typed(AluOp::Ult, bool_t, &[exp, c127]);
    let zero64 = e.imm_u64(0);
    // Saturation: from 2^63 (signed) or 2^64 (unsigned) up, infinities
    // included.
    let (limit, high, low) = if signed {
        (127 + 63, i64::MAX as u64, i64::MIN as u64)
    } else {
        (127 + 64, u64::MAX, 0)
    };
    let limit = imm(e, limit);
    let over = e.alu_typed(AluOp::Uge, bool_t, &[exp, limit]);
    let high = e.imm_u64(high);
    let low = e.imm_u64(low);
    let sat = e.alu_typed(AluOp::Bcsel, u64t, &[neg, low, high]);
    let value = if signed {
        let minus = negate(e, mag);
        e.alu_typed(AluOp::Bcsel, u64t, &[neg, minus, mag])
    } else {
        e.alu_typed(AluOp::Bcsel, u64t, &[neg, zero64, mag])
    };
    let value = e.alu_typed(AluOp::Bcsel, u64t, &[below_one, zero64, value]);
    let value = e.alu_typed(AluOp::Bcsel, u64t, &[over, sat, value]);
    e.alu_typed(AluOp::Bcsel, u64t, &[nan, zero64, value])
}

impl Shader {
    /// Method form of [`lower_int64`].
    pub fn lower_int64(&mut self) -> bool {
        self.run_pass("lower_int64", lower_int64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::ir::eval::eval_alu;
    use crate::compiler::ir::interp::{DrawState, InvocationIds, Memory, run_invocation};

    const OUT: u64 = 0x1000;

    /// `op` over `srcs` (64-bit sources, read from memory so nothing folds),
    /// lowered, run by the reference interpreter: the result's low
    /// `dst.bits`.
    fn lowered(op: AluOp, dst: ValueType, srcs: &[u64]) -> u64 {
        let mut s = Shader::new(Stage::Compute);
        let mut b = Builder::new(&mut s);
        let vals: Vec<Value> = (0..srcs.len())
            .map(|i| {
                let at = b.imm_u64(OUT + 8 + 8 * i as u64);
                b.load(Intrinsic::LoadGlobal, ValueType::U64, &[at])
            })
            .collect();
        let r = b.alu_typed(op, dst, &vals);
        let out = b.imm_u64(OUT);
        b.store(Intrinsic::StoreGlobal, &[r, out]);
        b.finish();
        assert!(lower_int64(&mut s), "{op:?} was lowered");
        s.validate().unwrap();
        let mut bytes = vec![0u8; 8 + 8 * srcs.len()];
        for (i, v) in srcs.iter().enumerate() {
            bytes[8 + 8 * i..16 + 8 * i].copy_from_slice(&v.to_le_bytes());
        }
        let mut m = Memory::new();
        m.map(OUT, bytes).unwrap();
        run_invocation(&s, &DrawState::default(), &mut m, InvocationIds::default()).unwrap();
        let got = m.read(OUT, u64::from(dst.bits / 8)).unwrap();
        let mut w = [0u8; 8];
        w[..got.len()].copy_from_slice(got);
        u64::from_le_bytes(w)
    }

    fn want(op: AluOp, dst: ValueType, srcs: &[u64]) -> u64 {
        let tys = vec![ValueType::U64; srcs.len()];
        let comps: Vec<&[u64]> = srcs.iter().map(std::slice::from_ref).collect();
        eval_alu(op, dst, &tys, &comps)[0]
    }

    /// Operands with every corner the rules have: 0, ±1, the extremes,
    /// powers of two and their neighbours, values wider than 32 bits, and
    /// pseudo-random ones.
    fn operands() -> Vec<u64> {
        let mut v = vec![
            0,
            1,
            2,
            3,
            7,
            u64::MAX,
            u64::MAX - 1,
            i64::MIN as u64,
            i64::MAX as u64,
            (-7i64) as u64,
            (-2i64) as u64,
            1 << 32,
            (1 << 32) - 1,
            (1 << 32) + 1,
            0xFFFF_FFFF_0000_0000,
            1 << 24,
            (1 << 24) + 1,
            (1 << 25) + 3,
            (1 << 53) + 1,
            0x0123_4567_89AB_CDEF,
            0x8000_0080_0000_0000,
            0x8000_0180_0000_0000,
            0x0000_0100_0000_0080,
        ];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..12 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push(x);
            v.push(x >> (x % 61));
        }
        v
    }

    #[test]
    fn division_family_matches_the_ir_definition() {
        let ops = operands();
        for op in [
            AluOp::Udiv,
            AluOp::Umod,
            AluOp::Idiv,
            AluOp::Irem,
            AluOp::Imod,
        ] {
            for (i, &a) in ops.iter().enumerate() {
                // A stride through the divisors keeps the run short.
                for &b in ops.iter().skip(i % 3).step_by(3) {
                    let got = lowered(op, ValueType::U64, &[a, b]);
                    assert_eq!(
                        got,
                        want(op, ValueType::U64, &[a, b]),
                        "{op:?} {a:#x} {b:#x}"
                    );
                }
            }
        }
    }

    #[test]
    fn abs_sign_and_conversions_match_the_ir_definition() {
        for a in operands() {
            for op in [AluOp::Iabs, AluOp::Isign] {
                let got = lowered(op, ValueType::U64, &[a]);
                assert_eq!(got, want(op, ValueType::U64, &[a]), "{op:?} {a:#x}");
            }
            for op in [AluOp::U2f, AluOp::I2f] {
                let got = lowered(op, ValueType::F32, &[a]);
                assert_eq!(got, want(op, ValueType::F32, &[a]), "{op:?} {a:#x}");
            }
        }
    }

    #[test]
    fn conversions_round_to_nearest_even() {
        // Halfway cases above 2^24: ties go to the even significand.
        for (x, f) in [
            ((1u64 << 24) + 1, 16_777_216.0f32),
            ((1u64 << 24) + 3, 16_777_220.0),
            ((1u64 << 40) + (1 << 16), 1_099_511_627_776.0),
            ((1u64 << 40) + (3 << 16), 1_099_511_889_920.0),
            (u64::MAX, 18_446_744_073_709_551_616.0),
        ] {
            assert_eq!(
                lowered(AluOp::U2f, ValueType::F32, &[x]),
                u64::from(f.to_bits()),
                "{x:#x}"
            );
        }
        let m = (-(1i64 << 62) - 1) as u64;
        assert_eq!(
            lowered(AluOp::I2f, ValueType::F32, &[m]),
            u64::from((-(4_611_686_018_427_387_904.0f32)).to_bits())
        );
    }

    /// `op` on f32 bits `x` (read from memory) into 64 bits, lowered.
    fn lowered_from_f32(op: AluOp, x: u32) -> u64 {
        let mut s = Shader::new(Stage::Compute);
        let mut b = Builder::new(&mut s);
        let at = b.imm_u64(OUT + 8);
        let v = b.load(Intrinsic::LoadGlobal, ValueType::F32, &[at]);
        let r = b.alu_typed(op, ValueType::U64, &[v]);
        let out = b.imm_u64(OUT);
        b.store(Intrinsic::StoreGlobal, &[r, out]);
        b.finish();
        assert!(lower_int64(&mut s), "{op:?} was lowered");
        s.validate().unwrap();
        let mut bytes = vec![0u8; 16];
        bytes[8..12].copy_from_slice(&x.to_le_bytes());
        let mut m = Memory::new();
        m.map(OUT, bytes).unwrap();
        run_invocation(&s, &DrawState::default(), &mut m, InvocationIds::default()).unwrap();
        u64::from_le_bytes(m.read(OUT, 8).unwrap().try_into().unwrap())
    }

    #[test]
    fn float_to_64_bit_truncates_and_saturates_like_the_ir_definition() {
        let mut floats: Vec<f32> = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            0.999_999_9,
            1.0,
            -1.0,
            1.5,
            -1.5,
            2.5,
            8_388_607.5,
            8_388_608.0,
            16_777_217.0,
            -16_777_216.0,
            1e10,
            -1e10,
            9.2e18,
            -9.2e18,
            9.223_372e18,
            -9.223_372e18,
            1.8e19,
            1.9e19,
            3e38,
            -3e38,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            1e-40,
        ];
        floats.extend((0..63).map(|k| 2f32.powi(k) * 1.75));
        floats.extend((0..63).map(|k| -(2f32.powi(k)) * 1.25));
        for f in floats {
            for op in [AluOp::F2i, AluOp::F2u] {
                let bits = f.to_bits();
                let want =
                    eval_alu(op, ValueType::U64, &[ValueType::F32], &[&[u64::from(bits)]])[0];
                assert_eq!(lowered_from_f32(op, bits), want, "{op:?} {f:e}");
            }
        }
    }

    #[test]
    fn other_widths_are_left_alone() {
        let mut s = Shader::new(Stage::Compute);
        let mut b = Builder::new(&mut s);
        let x = b.imm_u32(7);
        let y = b.imm_u32(2);
        let q = b.alu_typed(AluOp::Udiv, ValueType::U32, &[x, y]);
        let f = b.alu_typed(AluOp::U2f, ValueType::F32, &[x]);
        let out = b.imm_u64(OUT);
        b.store(Intrinsic::StoreGlobal, &[q, out]);
        b.store(Intrinsic::StoreGlobal, &[f, out]);
        b.finish();
        assert!(!lower_int64(&mut s));
    }
}
