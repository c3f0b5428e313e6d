//! `opt_algebraic`: integer and bitwise identities that hold bit-exactly
//! under the semantics of `ir/eval.rs` (float identities such as `x * 1.0`
//! are not applied: they would change NaN payloads and signed zeros):
//!
//! - `iadd x,0 → x`, `isub x,0 → x`, `isub x,x → 0`, `imul x,1 → x`, `imul x,0 → 0`;
//! - `iand x,0 → 0`, `iand x,~0 → x`, `iand x,x → x`, `ior x,0 → x`,
//!   `ior x,~0 → ~0`, `ior x,x → x`, `ixor x,0 → x`, `ixor x,x → 0`;
//! - shifts by a multiple of the bit size → x, shifts of 0 → 0, `udiv x,1 → x`;
//! - `ineg (ineg x)`, `inot (inot x)`, `fneg (fneg x)` → x;
//! - `bcsel c,x,x → x`, `bcsel true,a,b → a`, `bcsel false,a,b → b`;
//! - `umin x,~0 → x`, `umin x,0 → 0`, `umax x,0 → x`, `umax x,~0 → ~0`;
//! - `ieq/ige/uge x,x → true`, `ine/ilt/ult x,x → false`, `imin/imax/umin/umax x,x → x`;
//! - `i2b (b2i c) → c`, `ine (b2i c),0 → c`, `bcsel c,true,false → c` (booleans);
//! - `iadd (iadd x,c1),c2 → iadd x,(c1+c2)` (the new constant goes right before).
//!
//! One float rewrite that is not an identity but a precision choice the
//! Vulkan specification allows: `fdiv x, c` with a 32-bit constant divisor
//! whose every component has |c| in [2^-126, 2^126] becomes `fmul x, r`
//! with r = RN(1/c). Vulkan (appendix "Vulkan Environment for SPIR-V",
//! "Precision and Operation of SPIR-V Instructions") requires `OpFDiv` to
//! be within 2.5 ULP for such divisors; x · RN(1/c) rounded is within
//! (1 + 2^-24)² − 1 < 2^-22.9 relative, under 2 ULP of the quotient. For a
//! power of two the reciprocal is exact and the product is the correctly
//! rounded quotient itself. NaN, infinite and zero dividends give the
//! division's result (same class and sign). Mesa does the same (NIR's
//! `fdiv` lowering to `fmul a, frcp(b)` with `frcp` of a constant folded,
//! `src/compiler/nir/nir_opt_algebraic.py`); it turns `x / 7.0` into one
//! `FMA.f32` instead of our exact division sequence
//! (`bifrost/isel/float_math.rs`, ~20 instructions).

use super::{ConstTable, Subst, const_values};
use crate::compiler::ir::eval::eval_alu;
use crate::compiler::ir::*;

impl Shader {
    pub fn opt_algebraic(&mut self) -> bool {
        self.run_pass("opt_algebraic", opt_algebraic)
    }
}

struct Algebraic<'a> {
    shader: &'a mut Shader,
    consts: ConstTable,
    /// Defining ALU op and (first four) sources of every ALU result seen
    /// so far, held inline (the patterns look at ops of at most two).
    alu_defs: Vec<Option<(AluOp, [Value; 4])>>,
    subst: Subst,
    progress: bool,
}

enum Rewrite {
    Copy(Value),
    Const(Vec<u64>),
    /// `op x, c` with a new constant `c` (`iadd` for constant chains,
    /// `fmul` for a division by a constant).
    WithConst(AluOp, Value, Vec<u64>),
}

fn opt_algebraic(s: &mut Shader) -> bool {
    let consts = const_values(s);
    algebraic_with_consts(s, consts)
}

/// The pass with `consts` the constants of `s` by value id (as
/// [`const_values`] gives them, or `opt_constant_fold`'s table of the same
/// shader: entries for values no source holds change nothing).
pub(super) fn algebraic_with_consts(s: &mut Shader, consts: ConstTable) -> bool {
    let n = s.values.len();
    let mut body = std::mem::take(&mut s.body);
    let mut a = Algebraic {
        consts,
        alu_defs: vec![None; n],
        subst: Subst::tracking(s),
        shader: s,
        progress: false,
    };
    a.region(&mut body);
    a.subst.apply(&mut body);
    let progress = a.progress;
    s.body = body;
    progress
}

impl Algebraic<'_> {
    fn konst(&self, v: Value) -> Option<&[u64]> {
        self.consts.get(v)
    }

    /// `v` is a constant whose every component is `want` (masked to its type).
    fn is(&self, v: Value, want: u64) -> bool {
        let m = self.shader.ty(v).mask();
        self.konst(v)
            .is_some_and(|c| c.iter().all(|&x| x == want & m))
    }

    fn splat(&self, ty: ValueType, x: u64) -> Vec<u64> {
        vec![x & ty.mask(); ty.comps as usize]
    }

    /// Rewrites `region` in place; instructions move only when one is
    /// dropped (a copy) or a new constant goes in.
    fn region(&mut self, region: &mut Region) {
        // Indices of dropped instructions, and new constants with the index
        // of the instruction they go before.
        let mut dropped: Vec<usize> = Vec::new();
        let mut added: Vec<(usize, Instr)> = Vec::new();
        for (i, instr) in region.instrs.iter_mut().enumerate() {
            self.subst.resolve_srcs(instr);
            match &mut instr.op {
                Op::If(f) => {
                    self.region(&mut f.then_region);
                    self.region(&mut f.else_region);
                }
                Op::Loop(l) => self.region(&mut l.body),
                Op::Alu(alu) => {
                    let d = instr.dsts[0];
                    match self.rewrite(alu.op, &alu.srcs, d) {
                        Some(Rewrite::Copy(v)) => {
                            self.subst.replace(d, v);
                            self.progress = true;
                            dropped.push(i);
                            continue;
                        }
                        Some(Rewrite::Const(values)) => {
                            self.consts.set(d, &values);
                            instr.op = Op::Const(OpConst {
                                values: values.into(),
                            });
                            self.progress = true;
                        }
                        Some(Rewrite::WithConst(op, x, values)) => {
                            let c = self.shader.new_value(self.shader.ty(d));
                            self.consts.set(c, &values);
                            self.alu_defs.push(None);
                            added.push((
                                i,
                                Instr::new(
                                    [c],
                                    Op::Const(OpConst {
                                        values: values.into(),
                                    }),
                                ),
                            ));
                            alu.op = op;
                            alu.srcs = [x, c].into();
                            // `c` is new and, a constant, never replaced here.
                            self.subst.note_read(x);
                            self.progress = true;
                        }
                        None => {}
                    }
                    if let Op::Alu(alu) = &instr.op
                        && alu.srcs.len() <= 4
                    {
                        let mut srcs = [Value(0); 4];
                        srcs[..alu.srcs.len()].copy_from_slice(&alu.srcs);
                        self.alu_defs[d.index()] = Some((alu.op, srcs));
                    }
                }
                _ => {}
            }
        }
        if dropped.is_empty() && added.is_empty() {
            return;
        }
        if added.is_empty() {
            // Only drops: the region is compacted in place in one pass
            // (not every instruction moved to a new vector).
            let mut k = 0;
            let mut next = dropped.iter().copied().peekable();
            region.instrs.retain(|_| {
                let keep = next.next_if_eq(&k).is_none();
                k += 1;
                keep
            });
            return;
        }
        let old = std::mem::take(&mut region.instrs);
        region.instrs.reserve(old.len() + added.len());
        let (mut dropped, mut added) =
            (dropped.into_iter().peekable(), added.into_iter().peekable());
        for (i, instr) in old.into_iter().enumerate() {
            while let Some((_, c)) = added.next_if(|(at, _)| *at == i) {
                region.instrs.push(c);
            }
            if dropped.next_if_eq(&i).is_none() {
                region.instrs.push(instr);
            }
        }
    }

    fn rewrite(&self, op: AluOp, srcs: &[Value], d: Value) -> Option<Rewrite> {
        use AluOp::*;
        use Rewrite::*;
        let ty = self.shader.ty(d);
        let x = srcs[0];
        let y = srcs.get(1).copied().unwrap_or(x);
        let ones = u64::MAX;
        let inner = |v: Value| self.alu_defs.get(v.index()).and_then(|d| d.as_ref());
        let zero = || Const(self.splat(ty, 0));
        Some(match op {
            Iadd if self.is(y, 0) => Copy(x),
            Iadd if self.is(x, 0) => Copy(y),
            Iadd => {
                // Re-associate constant chains.
                let (v, c2) = match (self.konst(x), self.konst(y)) {
                    (None, Some(c)) => (x, c),
                    (Some(c), None) => (y, c),
                    _ => return None,
                };
                let Some((Iadd, isrcs)) = inner(v) else {
                    return None;
                };
                let (a, c1) = match (self.konst(isrcs[0]), self.konst(isrcs[1])) {
                    (None, Some(c)) => (isrcs[0], c),
                    (Some(c), None) => (isrcs[1], c),
                    _ => return None,
                };
                WithConst(Iadd, a, eval_alu(Iadd, ty, &[ty, ty], &[c1, c2]))
            }
            Fdiv if ty.bits == 32 => WithConst(Fmul, x, reciprocals(self.konst(y)?)?),
            Isub if self.is(y, 0) => Copy(x),
            Isub if x == y => zero(),
            Imul if self.is(y, 1) => Copy(x),
            Imul if self.is(x, 1) => Copy(y),
            Imul if self.is(x, 0) || self.is(y, 0) => zero(),
            Iand if self.is(x, 0) || self.is(y, 0) => zero(),
            Iand if self.is(y, ones) => Copy(x),
            Iand if self.is(x, ones) => Copy(y),
            Iand | Ior | Imin | Imax | Umin | Umax if x == y => Copy(x),
            Ior if self.is(y, 0) => Copy(x),
            Ior if self.is(x, 0) => Copy(y),
            Ior if self.is(x, ones) || self.is(y, ones) => Const(self.splat(ty, ones)),
            Umin if self.is(y, ones) => Copy(x),
            Umin if self.is(x, ones) => Copy(y),
            Umin if self.is(x, 0) || self.is(y, 0) => zero(),
            Umax if self.is(y, 0) => Copy(x),
            Umax if self.is(x, 0) => Copy(y),
            Umax if self.is(x, ones) || self.is(y, ones) => Const(self.splat(ty, ones)),
            Ixor if self.is(y, 0) => Copy(x),
            Ixor if self.is(x, 0) => Copy(y),
            Ixor if x == y => zero(),
            Ishl | Ishr | Ushr
                if self.konst(y).is_some_and(|c| {
                    c.iter()
                        .all(|&n| (n as u32).is_multiple_of(u32::from(ty.bits)))
                }) =>
            {
                Copy(x)
            }
            Ishl | Ishr | Ushr if self.is(x, 0) => zero(),
            Udiv if self.is(y, 1) => Copy(x),
            Ineg | Inot | Fneg => match inner(x) {
                Some((o, s)) if *o == op => Copy(s[0]),
                _ => return None,
            },
            Bcsel => {
                let z = srcs[2];
                if ty == ValueType::BOOL && self.is(y, 1) && self.is(z, 0) {
                    Copy(x)
                } else if y == z || self.is(x, 1) {
                    Copy(y)
                } else if self.is(x, 0) {
                    Copy(z)
                } else {
                    return None;
                }
            }
            // Boolean round trips, common in front-end output.
            I2b => match inner(x) {
                Some((B2i, s)) => Copy(s[0]),
                _ => return None,
            },
            Ine if self.is(y, 0) && matches!(inner(x), Some((B2i, _))) => Copy(inner(x)?.1[0]),
            Ine if self.is(x, 0) && matches!(inner(y), Some((B2i, _))) => Copy(inner(y)?.1[0]),
            Ieq | Ige | Uge if x == y => Const(self.splat(ty, 1)),
            Ine | Ilt | Ult if x == y => zero(),
            _ => return None,
        })
    }
}

/// RN(1/c) of every 32-bit float component, if every |c| is in
/// [2^-126, 2^126] (the divisors for which Vulkan bounds `OpFDiv` at 2.5
/// ULP; see the module comment).
fn reciprocals(c: &[u64]) -> Option<Vec<u64>> {
    c.iter()
        .map(|&bits| {
            let c = f32::from_bits(bits as u32);
            let m = c.abs();
            (m >= f32::from_bits(0x0080_0000) && m <= f32::from_bits(0x7e80_0000))
                .then(|| u64::from((1.0 / c).to_bits()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::compiler::ir::*;

    /// Copies dropped from a region, few or many (compacted in place):
    /// the other instructions stay, in order, with their uses of the
    /// copies replaced.
    #[test]
    fn drops_copies_few_or_many() {
        for copies in [2, 12] {
            let mut text = String::from(
                "shader compute \"\" {\n  info local_size 1 1 1 shared 0 push 0\n  values 26\n",
            );
            let lines: Vec<&str> = r#"  %0:i32 = load_sysval sysval=local_invocation_index
  %1:i32 = const 0x0
  %2:i32 = iadd %0, %1
  %3:i32 = imul %2, %0
  %4:i32 = iadd %3, %1
  %5:i32 = imul %4, %0
  %6:i32 = iadd %5, %1
  %7:i32 = imul %6, %0
  %8:i32 = iadd %7, %1
  %9:i32 = imul %8, %0
  %10:i32 = iadd %9, %1
  %11:i32 = imul %10, %0
  %12:i32 = iadd %11, %1
  %13:i32 = imul %12, %0
  %14:i32 = iadd %13, %1
  %15:i32 = imul %14, %0
  %16:i32 = iadd %15, %1
  %17:i32 = imul %16, %0
  %18:i32 = iadd %17, %1
  %19:i32 = imul %18, %0
  %20:i32 = iadd %19, %1
  %21:i32 = imul %20, %0
  %22:i32 = iadd %21, %1
  %23:i32 = imul %22, %0
  %24:i32 = iadd %23, %1
  %25:i32 = imul %24, %0
  store_ssbo set=0 binding=0 %25, %0"#
                .lines()
                .collect();
            // The first `copies` copies and their products, then the store
            // of the last product kept.
            let kept = 2 + 2 * copies;
            for l in &lines[..kept] {
                text.push_str(l);
                text.push('\n');
            }
            let last = 2 * copies + 1;
            text.push_str(&format!("  store_ssbo set=0 binding=0 %{last}, %0\n}}"));
            let mut s = Shader::parse(&text).unwrap();
            assert!(s.opt_algebraic());
            let out = s.to_string();
            assert!(!out.contains("iadd"), "{out}");
            // Product k multiplies product k-1 (or %0) directly.
            let mut prev = 0;
            for k in 0..copies {
                let p = 2 * k + 3;
                assert!(
                    out.contains(&format!("%{p}:i32 = imul %{prev}, %0")),
                    "{out}"
                );
                prev = p;
            }
            assert_eq!(s.instr_count(), 2 + copies + 1, "{out}");
        }
    }

    #[test]
    fn unsigned_min_max_with_extremes() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 8
  %0:i32 = load_sysval sysval=local_invocation_index
  %1:i32 = const 0xffffffff
  %2:i32 = const 0x0
  %3:i32 = umin %1, %0
  %4:i32 = umax %3, %2
  %5:i32 = umin %4, %2
  %6:i32 = umax %1, %4
  %7:i32 = iadd %5, %6
  store_ssbo set=0 binding=0 %4, %7
}"#,
        )
        .unwrap();
        assert!(s.opt_algebraic());
        let text = s.to_string();
        assert!(text.contains("%5:i32 = const 0x0"), "{text}");
        assert!(text.contains("%6:i32 = const 0xffffffff"), "{text}");
        assert!(text.contains("store_ssbo set=0 binding=0 %0, %6"), "{text}");
    }

    #[test]
    fn simplifies_identities_and_chains() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 16
  %0:i32 = load_sysval sysval=local_invocation_index
  %1:i32 = const 0x0
  %2:i32 = const 0x3
  %3:i32 = iadd %0, %1
  %4:i32 = iadd %3, %2
  %5:i32 = iadd %2, %4
  %6:i32 = ixor %5, %5
  %7:i32 = ineg %0
  %8:i32 = ineg %7
  %9:b1 = ilt %8, %8
  %10:i32 = bcsel %9, %6, %0
  %11:i32 = const 0x20
  %12:i32 = ishl %10, %11
  %13:i32 = const 0xffffffff
  %14:i32 = iand %12, %13
  store_ssbo set=0 binding=0 %14, %5
}"#,
        )
        .unwrap();
        assert!(s.opt_algebraic());
        let text = s.to_string();
        assert!(
            text.contains("%16:i32 = const 0x6\n  %5:i32 = iadd %0, %16"),
            "{text}"
        );
        assert!(text.contains("%6:i32 = const 0x0"), "{text}");
        assert!(text.contains("%9:b1 = const 0x0"), "{text}");
        assert!(text.contains("store_ssbo set=0 binding=0 %0, %5"), "{text}");
    }

    #[test]
    fn division_by_constant_becomes_multiplication_by_reciprocal() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 12
  %0:i32 = load_sysval sysval=local_invocation_index
  %1:i32 = u2f %0
  %2:i32 = const 0x40e00000
  %3:i32 = fdiv %1, %2
  %4:i32 = const 0x7f000000
  %5:i32 = fdiv %1, %4
  %6:i32 = const 0x0
  %7:i32 = fdiv %1, %6
  %8:i32x2 = vec %1, %1
  %9:i32x2 = const 0x3e800000 0xc0000000
  %10:i32x2 = fdiv %8, %9
  %11:i32 = fdiv %2, %1
  store_ssbo set=0 binding=0 %3, %0
  store_ssbo set=0 binding=0 %5, %0
  store_ssbo set=0 binding=0 %7, %0
  store_ssbo set=0 binding=0 %10, %0
  store_ssbo set=0 binding=0 %11, %0
}"#,
        )
        .unwrap();
        assert!(s.opt_algebraic());
        let text = s.to_string();
        // 1/7 rounded to nearest is 0x3e124925 (0.142857149...).
        assert!(
            text.contains("const 0x3e124925\n  %3:i32 = fmul %1, %"),
            "{text}"
        );
        // 2^127 and 0 are outside [2^-126, 2^126]: divided exactly.
        assert!(text.contains("%5:i32 = fdiv %1, %4"), "{text}");
        assert!(text.contains("%7:i32 = fdiv %1, %6"), "{text}");
        // 1/0.25 = 4, 1/-2 = -0.5, per component.
        assert!(
            text.contains("const 0x40800000 0xbf000000\n  %10:i32x2 = fmul %8, %"),
            "{text}"
        );
        // A constant dividend is not a constant divisor.
        assert!(text.contains("%11:i32 = fdiv %2, %1"), "{text}");
    }

    /// The claim the rewrite rests on: x · RN(1/c) is within 2.5 ULP of
    /// x / c (here: within 2), and equal to it when c is a power of two.
    #[test]
    fn reciprocal_product_is_within_vulkan_division_bound() {
        use crate::compiler::ir::eval::eval_alu;
        let ty = ValueType::F32;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let divisors = [3.0f32, 7.0, 10.0, 255.0, 0.1, -1e-30, 6.5e37, 1.0 / 3.0];
        for &c in &divisors {
            let r = super::reciprocals(&[u64::from(c.to_bits())]).unwrap();
            for _ in 0..20_000 {
                // Normal dividends whose quotient is normal.
                let x = f32::from_bits((next() as u32) & 0xbfff_ffff | 0x0800_0000);
                let q = x as f64 / c as f64;
                if !(q.abs() >= f64::from(f32::MIN_POSITIVE) && q.abs() <= f64::from(f32::MAX)) {
                    continue;
                }
                let got = eval_alu(AluOp::Fmul, ty, &[ty, ty], &[&[u64::from(x.to_bits())], &r])[0];
                let got = f32::from_bits(got as u32) as f64;
                let ulp = 2f64.powi(q.abs().log2().floor() as i32 - 23);
                assert!((got - q).abs() <= 2.0 * ulp, "{x} / {c}: {got} vs {q}");
            }
        }
        for k in [-126, -3, 0, 5, 126] {
            let c = 2f32.powi(k);
            let r = super::reciprocals(&[u64::from(c.to_bits())]).unwrap();
            for _ in 0..5_000 {
                let x = f32::from_bits(next() as u32);
                let got = eval_alu(AluOp::Fmul, ty, &[ty, ty], &[&[u64::from(x.to_bits())], &r])[0]
                    as u32;
                let want = x / c;
                if want.is_nan() {
                    assert!(f32::from_bits(got).is_nan());
                } else {
                    assert_eq!(got, want.to_bits(), "{x} / 2^{k}");
                }
            }
        }
    }
}
