//! The GLSL.std.450 extended instructions a vertex or compute shader uses,
//! expanded into IR ALU ops (trigonometry beyond sin/cos by polynomial and
//! identities, geometric functions by dot products).
//!
//! Interpolation functions and matrix inverse are rejected with an error.
//! Operand types are checked before any op is emitted.

use std::f64::consts::{FRAC_PI_2, LN_2, LOG2_E, PI};

use spirv::GlslStd450Op as G;

use crate::compiler::ir::{AluOp, Value, ValueType};

use super::error::Result;
use super::function::{Translator, Val};
use super::reader::Inst;

impl<'m> Translator<'m> {
    fn fk(&mut self, like: Value, x: f64) -> Result<Value> {
        let t = self.ty(like);
        self.fconst(t, x)
    }

    fn f1(&mut self, op: AluOp, x: Value) -> Result<Value> {
        self.alu_same(op, &[x])
    }

    fn f2(&mut self, op: AluOp, x: Value, y: Value) -> Result<Value> {
        self.alu_same(op, &[x, y])
    }

    /// atan of x in [0, 1] (minimax polynomial, max error about 1e-5 rad).
    fn atan_unit(&mut self, x: Value) -> Result<Value> {
        let coeffs = [
            -0.012_132_321_317_344_4,
            0.053_681_378_431_040_6,
            -0.117_350_319_478_685_1,
            0.193_892_497_711_561,
            -0.332_675_641_809_124_6,
            0.999_979_312_831_035_5,
        ];
        let x2 = self.f2(AluOp::Fmul, x, x)?;
        let mut acc = self.fk(x, coeffs[0])?;
        for &c in &coeffs[1..] {
            let k = self.fk(x, c)?;
            acc = self.alu_same(AluOp::Ffma, &[acc, x2, k])?;
        }
        self.f2(AluOp::Fmul, acc, x)
    }

    /// atan2(y, x) by octant reduction.
    fn atan2(&mut self, y: Value, x: Value) -> Result<Value> {
        let ay = self.f1(AluOp::Fabs, y)?;
        let ax = self.f1(AluOp::Fabs, x)?;
        let lo = self.f2(AluOp::Fmin, ay, ax)?;
        let hi = self.f2(AluOp::Fmax, ay, ax)?;
        let t = self.f2(AluOp::Fdiv, lo, hi)?;
        // 0/0 → 0.
        let zero = self.fk(x, 0.0)?;
        let bad = self.compare(AluOp::Feq, hi, zero)?;
        let t = self.bcsel(bad, zero, t)?;
        let mut r = self.atan_unit(t)?;
        let half_pi = self.fk(x, FRAC_PI_2)?;
        let swap = self.compare(AluOp::Flt, ax, ay)?;
        let alt = self.f2(AluOp::Fsub, half_pi, r)?;
        r = self.bcsel(swap, alt, r)?;
        let pi = self.fk(x, PI)?;
        let neg_x = self.compare(AluOp::Flt, x, zero)?;
        let alt = self.f2(AluOp::Fsub, pi, r)?;
        r = self.bcsel(neg_x, alt, r)?;
        let neg_y = self.compare(AluOp::Flt, y, zero)?;
        let nr = self.f1(AluOp::Fneg, r)?;
        self.bcsel(neg_y, nr, r)
    }

    fn exp_e(&mut self, x: Value) -> Result<Value> {
        let k = self.fk(x, LOG2_E)?;
        let s = self.f2(AluOp::Fmul, x, k)?;
        self.f1(AluOp::Fexp2, s)
    }

    fn log_e(&mut self, x: Value) -> Result<Value> {
        let l = self.f1(AluOp::Flog2, x)?;
        let k = self.fk(x, LN_2)?;
        self.f2(AluOp::Fmul, l, k)
    }

    fn length(&mut self, x: Value) -> Result<Value> {
        let d = self.dot(x, x)?;
        self.f1(AluOp::Fsqrt, d)
    }

    pub fn glsl450(&mut self, inst: &Inst) -> Result<()> {
        inst.need(4)?;
        let ty = inst.word(0)?;
        let id = inst.word(1)?;
        let num = inst.word(3)?;
        let op = G::from_u32(num)
            .ok_or_else(|| inst.invalid(format!("unknown GLSL.std.450 instruction {num}")))?;
        self.op_name = super::function::OpName::Glsl(op);
        let args = inst.rest(4);
        let arg = |s: &mut Self, i: usize| -> Result<Value> {
            let id = *args
                .get(i)
                .ok_or_else(|| s.invalid(format!("missing operand {i}")))?;
            s.ssa(id)
        };
        // Struct-returning variants first.
        match op {
            G::ModfStruct | G::FrexpStruct => {
                let x = arg(self, 0)?;
                let (a, b) = if op == G::ModfStruct {
                    let i = self.f1(AluOp::Ftrunc, x)?;
                    (self.f2(AluOp::Fsub, x, i)?, i)
                } else {
                    self.frexp(x)?
                };
                let v = Val::Comp(vec![Val::Ssa(a), Val::Ssa(b)]);
                self.check_val(ty, &v, 0)?;
                return self.bind(id, ty, v);
            }
            G::Determinant => {
                let (_, m) = self.get(
                    *args
                        .first()
                        .ok_or_else(|| self.invalid("missing operand"))?,
                )?;
                let d = self.determinant(&m)?;
                return self.bind(id, ty, Val::Ssa(d));
            }
            G::MatrixInverse => return Err(self.unsupported("matrix inverse")),
            G::InterpolateAtCentroid | G::InterpolateAtSample | G::InterpolateAtOffset => {
                return Err(self.unsupported("interpolation functions (fragment only)"));
            }
            G::Modf | G::Frexp => {
                let x = arg(self, 0)?;
                let pid = *args
                    .get(1)
                    .ok_or_else(|| self.invalid("missing operand 1"))?;
                let (_, ptr) = self.get(pid)?;
                let (ret, out) = if op == G::Modf {
                    let i = self.f1(AluOp::Ftrunc, x)?;
                    (self.f2(AluOp::Fsub, x, i)?, i)
                } else {
                    self.frexp(x)?
                };
                self.store_ptr(&ptr, Val::Ssa(out))?;
                let v = Val::Ssa(ret);
                self.check_val(ty, &v, 0)?;
                return self.bind(id, ty, v);
            }
            _ => {}
        }
        let vt = self.result_vt(ty)?;
        let x = arg(self, 0)?;
        let v = match op {
            G::Round | G::RoundEven => self.f1(AluOp::FroundEven, x)?,
            G::Trunc => self.f1(AluOp::Ftrunc, x)?,
            G::FAbs => self.f1(AluOp::Fabs, x)?,
            G::SAbs => self.f1(AluOp::Iabs, x)?,
            G::FSign => self.f1(AluOp::Fsign, x)?,
            G::SSign => self.f1(AluOp::Isign, x)?,
            G::Floor => self.f1(AluOp::Ffloor, x)?,
            G::Ceil => self.f1(AluOp::Fceil, x)?,
            G::Fract => self.f1(AluOp::Ffract, x)?,
            G::Radians => {
                let k = self.fk(x, PI / 180.0)?;
                self.f2(AluOp::Fmul, x, k)?
            }
            G::Degrees => {
                let k = self.fk(x, 180.0 / PI)?;
                self.f2(AluOp::Fmul, x, k)?
            }
            G::Sin => self.f1(AluOp::Fsin, x)?,
            G::Cos => self.f1(AluOp::Fcos, x)?,
            G::Tan => {
                let s = self.f1(AluOp::Fsin, x)?;
                let c = self.f1(AluOp::Fcos, x)?;
                self.f2(AluOp::Fdiv, s, c)?
            }
            G::Asin | G::Acos => {
                // asin x = atan2(x, sqrt(1 - x²)); acos x = π/2 - asin x.
                let one = self.fk(x, 1.0)?;
                let x2 = self.f2(AluOp::Fmul, x, x)?;
                let d = self.f2(AluOp::Fsub, one, x2)?;
                let r = self.f1(AluOp::Fsqrt, d)?;
                let a = self.atan2(x, r)?;
                if op == G::Asin {
                    a
                } else {
                    let h = self.fk(x, FRAC_PI_2)?;
                    self.f2(AluOp::Fsub, h, a)?
                }
            }
            G::Atan => {
                let one = self.fk(x, 1.0)?;
                self.atan2(x, one)?
            }
            G::Atan2 => {
                let xx = arg(self, 1)?;
                self.atan2(x, xx)?
            }
            G::Sinh | G::Cosh | G::Tanh => {
                let e = self.exp_e(x)?;
                let nx = self.f1(AluOp::Fneg, x)?;
                let ne = self.exp_e(nx)?;
                let half = self.fk(x, 0.5)?;
                let num = if op == G::Cosh {
                    self.f2(AluOp::Fadd, e, ne)?
                } else {
                    self.f2(AluOp::Fsub, e, ne)?
                };
                if op == G::Tanh {
                    let den = self.f2(AluOp::Fadd, e, ne)?;
                    self.f2(AluOp::Fdiv, num, den)?
                } else {
                    self.f2(AluOp::Fmul, num, half)?
                }
            }
            G::Asinh | G::Acosh => {
                // log(x ± ... ): asinh x = sign(x)·log(|x| + sqrt(x² + 1)); acosh x = log(x + sqrt(x² - 1)).
                let one = self.fk(x, 1.0)?;
                let x2 = self.f2(AluOp::Fmul, x, x)?;
                if op == G::Asinh {
                    let ax = self.f1(AluOp::Fabs, x)?;
                    let s = self.f2(AluOp::Fadd, x2, one)?;
                    let r = self.f1(AluOp::Fsqrt, s)?;
                    let t = self.f2(AluOp::Fadd, ax, r)?;
                    let l = self.log_e(t)?;
                    let sg = self.f1(AluOp::Fsign, x)?;
                    self.f2(AluOp::Fmul, sg, l)?
                } else {
                    let s = self.f2(AluOp::Fsub, x2, one)?;
                    let r = self.f1(AluOp::Fsqrt, s)?;
                    let t = self.f2(AluOp::Fadd, x, r)?;
                    self.log_e(t)?
                }
            }
            G::Atanh => {
                // 0.5·log((1 + x) / (1 - x)).
                let one = self.fk(x, 1.0)?;
                let a = self.f2(AluOp::Fadd, one, x)?;
                let b = self.f2(AluOp::Fsub, one, x)?;
                let q = self.f2(AluOp::Fdiv, a, b)?;
                let l = self.log_e(q)?;
                let half = self.fk(x, 0.5)?;
                self.f2(AluOp::Fmul, l, half)?
            }
            G::Pow => {
                let y = arg(self, 1)?;
                self.f2(AluOp::Fpow, x, y)?
            }
            G::Exp => self.exp_e(x)?,
            G::Log => self.log_e(x)?,
            G::Exp2 => self.f1(AluOp::Fexp2, x)?,
            G::Log2 => self.f1(AluOp::Flog2, x)?,
            G::Sqrt => self.f1(AluOp::Fsqrt, x)?,
            G::InverseSqrt => self.f1(AluOp::Frsq, x)?,
            G::FMin | G::NMin => {
                let y = arg(self, 1)?;
                self.f2(AluOp::Fmin, x, y)?
            }
            G::FMax | G::NMax => {
                let y = arg(self, 1)?;
                self.f2(AluOp::Fmax, x, y)?
            }
            G::UMin => {
                let y = arg(self, 1)?;
                self.f2(AluOp::Umin, x, y)?
            }
            G::UMax => {
                let y = arg(self, 1)?;
                self.f2(AluOp::Umax, x, y)?
            }
            G::SMin => {
                let y = arg(self, 1)?;
                self.f2(AluOp::Imin, x, y)?
            }
            G::SMax => {
                let y = arg(self, 1)?;
                self.f2(AluOp::Imax, x, y)?
            }
            G::FClamp | G::NClamp | G::UClamp | G::SClamp => {
                let lo = arg(self, 1)?;
                let hi = arg(self, 2)?;
                let (mx, mn) = match op {
                    G::UClamp => (AluOp::Umax, AluOp::Umin),
                    G::SClamp => (AluOp::Imax, AluOp::Imin),
                    _ => (AluOp::Fmax, AluOp::Fmin),
                };
                let t = self.f2(mx, x, lo)?;
                self.f2(mn, t, hi)?
            }
            G::FMix => {
                // x + (y - x)·a; for 32-bit floats as one fused
                // multiply-add (one rounding fewer: GLSL.std.450 FMix's
                // precision is "inherited from x·(1−a) + y·a", Vulkan
                // "Precision and Operation of SPIR-V Instructions", and the
                // extended instruction is ours to implement; Mesa's NIR
                // lowers flrp to ffma the same way where fused multiply-add
                // is fast, src/compiler/nir/nir_lower_flrp.c).
                let y = arg(self, 1)?;
                let a = arg(self, 2)?;
                let d = self.f2(AluOp::Fsub, y, x)?;
                if self.ty(x).bits == 32 {
                    self.alu_same(AluOp::Ffma, &[d, a, x])?
                } else {
                    let p = self.f2(AluOp::Fmul, d, a)?;
                    self.f2(AluOp::Fadd, x, p)?
                }
            }
            G::Step => {
                // step(edge, v) = v < edge ? 0 : 1
                let v = arg(self, 1)?;
                let ge = self.compare(AluOp::Fge, v, x)?;
                let t = self.ty(v);
                self.alu(AluOp::B2f, t, &[ge])?
            }
            G::SmoothStep => {
                let e1 = arg(self, 1)?;
                let v = arg(self, 2)?;
                let num = self.f2(AluOp::Fsub, v, x)?;
                let den = self.f2(AluOp::Fsub, e1, x)?;
                let q = self.f2(AluOp::Fdiv, num, den)?;
                let t = self.f1(AluOp::Fsat, q)?;
                let three = self.fk(t, 3.0)?;
                let two = self.fk(t, 2.0)?;
                let tt = self.f2(AluOp::Fmul, t, t)?;
                let two_t = self.f2(AluOp::Fmul, two, t)?;
                let s = self.f2(AluOp::Fsub, three, two_t)?;
                self.f2(AluOp::Fmul, tt, s)?
            }
            G::Fma => {
                let y = arg(self, 1)?;
                let z = arg(self, 2)?;
                self.alu_same(AluOp::Ffma, &[x, y, z])?
            }
            G::Ldexp => {
                let e = arg(self, 1)?;
                let et = self.ty(e);
                if et.comps != vt.comps || et.is_bool() {
                    return Err(self.invalid("ldexp exponent shape"));
                }
                let ef = self.alu(AluOp::I2f, vt, &[e])?;
                let p = self.f1(AluOp::Fexp2, ef)?;
                self.f2(AluOp::Fmul, x, p)?
            }
            G::PackSnorm4x8
            | G::PackUnorm4x8
            | G::PackSnorm2x16
            | G::PackUnorm2x16
            | G::PackHalf2x16 => {
                let (aop, comps) = match op {
                    G::PackSnorm4x8 => (AluOp::PackSnorm4x8, 4),
                    G::PackUnorm4x8 => (AluOp::PackUnorm4x8, 4),
                    G::PackSnorm2x16 => (AluOp::PackSnorm2x16, 2),
                    G::PackUnorm2x16 => (AluOp::PackUnorm2x16, 2),
                    _ => (AluOp::PackHalf2x16, 2),
                };
                if self.ty(x) != ValueType::new(32, comps) || vt != ValueType::U32 {
                    return Err(self.invalid("pack operand types"));
                }
                self.alu(aop, vt, &[x])?
            }
            G::UnpackSnorm4x8
            | G::UnpackUnorm4x8
            | G::UnpackSnorm2x16
            | G::UnpackUnorm2x16
            | G::UnpackHalf2x16 => {
                let (aop, comps) = match op {
                    G::UnpackSnorm4x8 => (AluOp::UnpackSnorm4x8, 4),
                    G::UnpackUnorm4x8 => (AluOp::UnpackUnorm4x8, 4),
                    G::UnpackSnorm2x16 => (AluOp::UnpackSnorm2x16, 2),
                    G::UnpackUnorm2x16 => (AluOp::UnpackUnorm2x16, 2),
                    _ => (AluOp::UnpackHalf2x16, 2),
                };
                if self.ty(x) != ValueType::U32 || vt != ValueType::new(32, comps) {
                    return Err(self.invalid("unpack operand types"));
                }
                self.alu(aop, vt, &[x])?
            }
            G::PackDouble2x32 | G::UnpackDouble2x32 => {
                let xt = self.ty(x);
                if u32::from(xt.bits) * u32::from(xt.comps) != 64
                    || u32::from(vt.bits) * u32::from(vt.comps) != 64
                {
                    return Err(self.invalid("double packing operand types"));
                }
                self.alu(AluOp::Bitcast, vt, &[x])?
            }
            G::Length => self.length(x)?,
            G::Distance => {
                let y = arg(self, 1)?;
                let d = self.f2(AluOp::Fsub, x, y)?;
                self.length(d)?
            }
            G::Cross => {
                let y = arg(self, 1)?;
                if self.ty(x).comps != 3 {
                    return Err(self.invalid("cross of non-3-component vectors"));
                }
                let x1 = self.swizzle(x, &[1, 2, 0])?;
                let y1 = self.swizzle(y, &[2, 0, 1])?;
                let x2 = self.swizzle(x, &[2, 0, 1])?;
                let y2 = self.swizzle(y, &[1, 2, 0])?;
                let a = self.f2(AluOp::Fmul, x1, y1)?;
                let b = self.f2(AluOp::Fmul, x2, y2)?;
                self.f2(AluOp::Fsub, a, b)?
            }
            G::Normalize => {
                let d = self.dot(x, x)?;
                let r = self.f1(AluOp::Frsq, d)?;
                let r = self.splat(r, self.ty(x).comps)?;
                self.f2(AluOp::Fmul, x, r)?
            }
            G::FaceForward => {
                // dot(Nref, I) < 0 ? N : -N
                let i = arg(self, 1)?;
                let nref = arg(self, 2)?;
                let d = self.dot(nref, i)?;
                let zero = self.fk(d, 0.0)?;
                let lt = self.compare(AluOp::Flt, d, zero)?;
                let nx = self.f1(AluOp::Fneg, x)?;
                self.bcsel(lt, x, nx)?
            }
            G::Reflect => {
                // I - 2·dot(N, I)·N
                let n = arg(self, 1)?;
                let d = self.dot(n, x)?;
                let two = self.fk(d, 2.0)?;
                let d2 = self.f2(AluOp::Fmul, d, two)?;
                let d2 = self.splat(d2, self.ty(x).comps)?;
                let p = self.f2(AluOp::Fmul, d2, n)?;
                self.f2(AluOp::Fsub, x, p)?
            }
            G::Refract => {
                let n = arg(self, 1)?;
                let eta = arg(self, 2)?;
                let d = self.dot(n, x)?;
                let one = self.fk(d, 1.0)?;
                let d2 = self.f2(AluOp::Fmul, d, d)?;
                let t = self.f2(AluOp::Fsub, one, d2)?;
                let e2 = self.f2(AluOp::Fmul, eta, eta)?;
                let t = self.f2(AluOp::Fmul, e2, t)?;
                let k = self.f2(AluOp::Fsub, one, t)?;
                let zero = self.fk(d, 0.0)?;
                let neg = self.compare(AluOp::Flt, k, zero)?;
                let sk = self.f1(AluOp::Fsqrt, k)?;
                let ed = self.f2(AluOp::Fmul, eta, d)?;
                let s = self.f2(AluOp::Fadd, ed, sk)?;
                let n_comps = self.ty(x).comps;
                let s = self.splat(s, n_comps)?;
                let es = self.splat(eta, n_comps)?;
                let a = self.f2(AluOp::Fmul, es, x)?;
                let b = self.f2(AluOp::Fmul, s, n)?;
                let r = self.f2(AluOp::Fsub, a, b)?;
                let z = self.fk(r, 0.0)?;
                self.bcsel(neg, z, r)?
            }
            G::FindILsb | G::FindSMsb | G::FindUMsb => {
                let aop = match op {
                    G::FindILsb => AluOp::FindLsb,
                    G::FindSMsb => AluOp::IfindMsb,
                    _ => AluOp::UfindMsb,
                };
                if self.ty(x).comps != vt.comps || self.ty(x).is_bool() {
                    return Err(self.invalid("find-bit operand shape"));
                }
                let r = self.alu(aop, ValueType::new(32, vt.comps), &[x])?;
                self.resize_int(r, vt)?
            }
            _ => return Err(self.unsupported("extended instruction")),
        };
        if self.ty(v) != vt {
            return Err(self.invalid(format!("result has type {}, expected {vt}", self.ty(v))));
        }
        self.bind(id, ty, Val::Ssa(v))
    }

    /// frexp for 32-bit floats: (mantissa in [0.5, 1), exponent).
    fn frexp(&mut self, x: Value) -> Result<(Value, Value)> {
        let t = self.ty(x);
        if t.bits != 32 {
            return Err(self.unsupported("frexp of non-32-bit floats"));
        }
        let it = ValueType::new(32, t.comps);
        let bits = x;
        let k23 = self.konst(ValueType::new(32, t.comps), &vec![23; t.comps as usize])?;
        let sh = self.alu(AluOp::Ushr, it, &[bits, k23])?;
        let kff = self.iconst(it, 0xff)?;
        let e = self.f2(AluOp::Iand, sh, kff)?;
        let k126 = self.iconst(it, 126)?;
        let exp = self.f2(AluOp::Isub, e, k126)?;
        let kmask = self.iconst(it, 0x807f_ffff)?;
        let m = self.f2(AluOp::Iand, bits, kmask)?;
        let khalf = self.iconst(it, 0x3f00_0000)?;
        let mant = self.f2(AluOp::Ior, m, khalf)?;
        let zero = self.fk(x, 0.0)?;
        let is_zero = self.compare(AluOp::Feq, x, zero)?;
        let izero = self.iconst(it, 0)?;
        let mant = self.bcsel(is_zero, x, mant)?;
        let exp = self.bcsel(is_zero, izero, exp)?;
        Ok((mant, exp))
    }

    fn determinant(&mut self, m: &Val) -> Result<Value> {
        let Val::Comp(cols) = m else {
            return Err(self.invalid("determinant of a non-matrix"));
        };
        let mut c = Vec::new();
        for col in cols {
            match col {
                Val::Ssa(v) => c.push(*v),
                _ => return Err(self.invalid("determinant of a non-matrix")),
            }
        }
        let n = c.len();
        if c.iter().any(|&v| self.ty(v).comps as usize != n) {
            return Err(self.invalid("determinant of a non-square matrix"));
        }
        let mut e = vec![vec![Value(0); n]; n];
        for (i, col) in c.iter().enumerate() {
            for (r, row) in e.iter_mut().enumerate() {
                row[i] = self.channel(*col, r as u8)?;
            }
        }
        self.det_rec(&e)
    }

    fn det_rec(&mut self, e: &[Vec<Value>]) -> Result<Value> {
        let n = e.len();
        if n == 1 {
            return Ok(e[0][0]);
        }
        if n == 2 {
            let a = self.f2(AluOp::Fmul, e[0][0], e[1][1])?;
            let b = self.f2(AluOp::Fmul, e[0][1], e[1][0])?;
            return self.f2(AluOp::Fsub, a, b);
        }
        let mut acc: Option<Value> = None;
        for j in 0..n {
            let minor: Vec<Vec<Value>> = e[1..]
                .iter()
                .map(|row| {
                    row.iter()
                        .enumerate()
                        .filter(|(k, _)| *k != j)
                        .map(|(_, v)| *v)
                        .collect()
                })
                .collect();
            let d = self.det_rec(&minor)?;
            let t = self.f2(AluOp::Fmul, e[0][j], d)?;
            acc = Some(match acc {
                None => t,
                Some(a) if j % 2 == 1 => self.f2(AluOp::Fsub, a, t)?,
                Some(a) => self.f2(AluOp::Fadd, a, t)?,
            });
        }
        acc.ok_or_else(|| self.invalid("empty matrix"))
    }
}
