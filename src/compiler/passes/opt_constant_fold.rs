//! `opt_constant_fold`: replace ALU ops, `vec` and `swizzle` whose sources
//! are all constants by a `const` (with [`eval_alu`], the semantics the
//! interpreter uses, so folding never changes results); inline the taken
//! branch of an `if` with a constant condition; inline the body of a loop
//! that always leaves through the `break` at its end on the first iteration.
//! The folded instruction keeps its result id, so scoping is unchanged.

use super::{ConstTable, Subst, const_values, for_each_loop_exit, truncate_after_end};
use crate::compiler::ir::eval::eval_alu;
use crate::compiler::ir::*;

impl Shader {
    pub fn opt_constant_fold(&mut self) -> bool {
        self.run_pass("opt_constant_fold", opt_constant_fold)
    }
}

struct Fold<'a> {
    values: &'a [ValueType],
    consts: ConstTable,
    subst: Subst,
    progress: bool,
    /// Branches and loop bodies inlined so far.
    inlined: usize,
}

fn opt_constant_fold(s: &mut Shader) -> bool {
    fold_keeping_consts(s).0
}

/// The pass, also returning its table of constants: every `const` of the
/// result by value id (and some of code it removed, whose values nothing
/// uses any more), what [`const_values`] of the result gives for every
/// value a source can hold. `optimize_round` hands it to `opt_algebraic`,
/// which runs next and would otherwise walk the shader to build it again.
pub(super) fn fold_keeping_consts(s: &mut Shader) -> (bool, ConstTable) {
    let consts = const_values(s);
    let mut body = std::mem::take(&mut s.body);
    let mut f = Fold {
        values: &s.values,
        consts,
        subst: Subst::tracking(s),
        progress: false,
        inlined: 0,
    };
    f.region(&mut body);
    f.subst.apply(&mut body);
    let progress = f.progress;
    s.body = body;
    (progress, f.consts)
}

impl Fold<'_> {
    fn konst(&self, v: Value) -> Option<&[u64]> {
        self.consts.get(self.subst.get(v))
    }

    /// Folds `region` in place; only an inlined branch or loop body moves
    /// instructions.
    fn region(&mut self, region: &mut Region) {
        let inlined_before = self.inlined;
        let mut i = 0;
        while i < region.instrs.len() {
            let instr = &mut region.instrs[i];
            self.subst.resolve_srcs(instr);
            if let Some(values) = self.fold(instr) {
                self.consts.set(instr.dsts[0], &values);
                instr.op = Op::Const(OpConst {
                    values: values.into(),
                });
                self.progress = true;
            }
            // The region to inline in place of the instruction, and whether
            // it is a loop body.
            let inlined = match &mut instr.op {
                Op::If(f) => {
                    let cond = self.konst(f.cond).map(|c| c[0] & 1 != 0);
                    self.region(&mut f.then_region);
                    self.region(&mut f.else_region);
                    cond.map(|c| {
                        let taken = if c {
                            &mut f.then_region
                        } else {
                            &mut f.else_region
                        };
                        (std::mem::take(taken), false)
                    })
                }
                Op::Loop(l) => {
                    self.region(&mut l.body);
                    let mut exits = 0;
                    for_each_loop_exit(&l.body, &mut |_| exits += 1);
                    let ends_in_break = matches!(
                        l.body.instrs.last(),
                        Some(Instr {
                            op: Op::Break(_),
                            ..
                        })
                    );
                    if exits == 1 && ends_in_break {
                        for (&p, &i) in l.params.iter().zip(&l.inits) {
                            self.subst.replace(p, i);
                        }
                        // Uses of the params already inside the body.
                        let mut body = std::mem::take(&mut l.body);
                        self.subst.apply(&mut body);
                        Some((body, true))
                    } else {
                        None
                    }
                }
                _ => None,
            };
            match inlined {
                Some((body, is_loop)) => {
                    let dsts = instr.dsts.clone();
                    let mut out = Vec::with_capacity(body.instrs.len());
                    self.inline(body, &dsts, is_loop, &mut out);
                    let n = out.len();
                    region.instrs.splice(i..i + 1, out);
                    self.progress = true;
                    self.inlined += 1;
                    i += n;
                }
                None => i += 1,
            }
        }
        // Only inlined code can end a valid region early: a terminator
        // spliced in here, or an `if` whose branches now both diverge
        // after an inlining inside them. Folding an instruction in place
        // makes a `const`, which ends nothing.
        if self.inlined != inlined_before {
            truncate_after_end(region);
        }
    }

    /// Splice `region` into `out`; its final yield (or break of the
    /// inlined loop, `is_loop`) gives `dsts`.
    fn inline(&mut self, mut region: Region, dsts: &[Value], is_loop: bool, out: &mut Vec<Instr>) {
        let ends = match region.instrs.last().map(|i| &i.op) {
            Some(Op::Yield(v)) if !is_loop => Some(v),
            Some(Op::Break(v)) if is_loop => Some(v),
            _ => None,
        };
        if let Some(v) = ends {
            for (&d, &v) in dsts.iter().zip(&v.values) {
                self.subst.replace(d, v);
            }
            region.instrs.pop();
        }
        out.extend(region.instrs);
    }

    fn fold(&self, instr: &Instr) -> Option<Vec<u64>> {
        fold_instr(instr, self.values, |v| self.konst(v))
    }
}

/// The constant an ALU op, `vec` or `swizzle` gives when `konst` knows
/// all its sources (by [`eval_alu`]); `None` for anything else.
pub(super) fn fold_instr<'a>(
    instr: &Instr,
    values: &[ValueType],
    konst: impl Fn(Value) -> Option<&'a [u64]>,
) -> Option<Vec<u64>> {
    let [dst] = instr.dsts[..] else { return None };
    let dst_ty = *values.get(dst.index())?;
    match &instr.op {
        Op::Alu(a) => {
            // Most sources are not constants: ask before collecting (no allocation).
            if !a.srcs.iter().all(|&s| konst(s).is_some()) {
                return None;
            }
            let srcs: Vec<&[u64]> = a.srcs.iter().map(|&s| konst(s)).collect::<Option<_>>()?;
            let tys: Vec<ValueType> = a.srcs.iter().map(|s| values[s.index()]).collect();
            Some(eval_alu(a.op, dst_ty, &tys, &srcs))
        }
        Op::Vec(v) => {
            let mut out = Vec::new();
            for &s in &v.srcs {
                out.extend(konst(s)?.iter().copied());
            }
            Some(out)
        }
        Op::Swizzle(sw) => {
            let c = konst(sw.src)?;
            sw.comps
                .iter()
                .map(|&i| c.get(usize::from(i)).copied())
                .collect()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::compiler::ir::*;

    #[test]
    fn folds_alu_and_constant_if() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 8
  %0:i32 = const 0x7
  %1:i32 = const 0x0
  %2:i32 = udiv %0, %1
  %3:b1 = ult %1, %0
  %4:i32 = if %3 {
    %5:i32 = iadd %0, %0
    yield %5
  } else {
    yield %2
  }
  %6:i32x2 = vec %4, %0
  %7:i32 = swizzle %6.y
  store_ssbo set=0 binding=0 %7, %4
}"#,
        )
        .unwrap();
        assert!(s.opt_constant_fold());
        let expected = r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 8
  %0:i32 = const 0x7
  %1:i32 = const 0x0
  %2:i32 = const 0xffffffff
  %3:b1 = const 0x1
  %5:i32 = const 0xe
  %6:i32x2 = const 0xe 0x7
  %7:i32 = const 0x7
  store_ssbo set=0 binding=0 %7, %5
}
"#;
        assert_eq!(s.to_string(), expected);
    }

    /// The table the pass keeps for `opt_algebraic` gives what a walk of
    /// the result gives for every value a source holds, though the pass
    /// folded instructions, dropped a branch holding a constant and
    /// inlined the other.
    #[test]
    fn kept_constants_match_the_result() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 12
  %0:i32 = load_sysval sysval=local_invocation_index
  %1:i32 = const 0x3
  %2:b1 = ult %1, %1
  %3:i32 = if %2 {
    %4:i32 = const 0x9
    %5:i32 = iadd %4, %0
    yield %5
  } else {
    %6:i32 = imul %1, %1
    %7:i32 = iadd %6, %0
    yield %7
  }
  %8:i32 = iadd %1, %1
  %9:i32x2 = vec %8, %3
  %10:i32 = swizzle %9.x
  %11:i32 = iadd %10, %3
  store_ssbo set=0 binding=0 %11, %8
}"#,
        )
        .unwrap();
        let (progress, kept) = super::fold_keeping_consts(&mut s);
        assert!(progress);
        let fresh = super::const_values(&s);
        let mut srcs = Vec::new();
        s.body
            .for_each_instr(&mut |i| srcs.extend_from_slice(i.srcs()));
        assert!(srcs.len() >= 6, "{s}");
        for v in srcs {
            assert_eq!(kept.get(v), fresh.get(v), "{v} in\n{s}");
        }
        // The dropped branch's constant is still in the kept table only.
        assert_eq!(kept.get(Value(4)), Some(&[9][..]));
        assert_eq!(fresh.get(Value(4)), None);
    }

    /// An `if` whose branches diverge only once a branch inside one of
    /// them is inlined ends its region: the code after it goes too.
    #[test]
    fn inlining_inside_a_branch_ends_the_enclosing_region() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 6
  %0:i32 = load_sysval sysval=local_invocation_index
  %1:b1 = const 0x1
  loop () {
    %2:b1 = ieq %0, %0
    if %2 {
      if %1 {
        break
      } else {
        yield
      }
      yield
    } else {
      continue
    }
    %3:i32 = iadd %0, %0
    store_ssbo set=0 binding=0 %3, %0
    continue
  }
  store_ssbo set=0 binding=0 %0, %0
}"#,
        )
        .unwrap();
        assert!(s.opt_constant_fold());
        let text = s.to_string();
        assert!(!text.contains("iadd"), "{text}");
        assert!(!text.contains("yield"), "{text}");
        s.validate().unwrap();
    }

    #[test]
    fn inlines_single_iteration_loop() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 5
  %0:i32 = load_sysval sysval=local_invocation_index
  %2:i32 = loop (%1:i32 = %0) {
    %3:i32 = iadd %1, %1
    break %3
  }
  store_ssbo set=0 binding=0 %2, %0
}"#,
        )
        .unwrap();
        assert!(s.opt_constant_fold());
        assert!(
            s.to_string()
                .contains("%3:i32 = iadd %0, %0\n  store_ssbo set=0 binding=0 %3, %0")
        );
    }
}
