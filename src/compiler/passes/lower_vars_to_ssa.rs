//! `lower_vars_to_ssa`: promote every function-local variable to SSA values
//! in the structured form. Never changes what the shader computes.
//!
//! One walk in program order keeps the current value of each variable:
//! - `load_var` becomes a use of the current value (an `undef` if the
//!   variable was never stored on this path); `store_var` just sets it;
//! - an `if` gets one new result per variable stored in either branch, each
//!   yielding branch yields its current value (an `undef` if none);
//! - a `loop` gets one new param per variable stored anywhere in its body
//!   (nested loops included), initialised with the value before the loop;
//!   every `continue` of the loop passes the current values and every
//!   `break` passes them out through new loop results.
//!
//! Afterwards no `load_var`/`store_var` remains and `Shader::vars` is empty.
//! Unneeded results and params are left for `opt_copy_prop`/`opt_dce`.

use super::Subst;
use crate::compiler::ir::*;

impl Shader {
    pub fn lower_vars_to_ssa(&mut self) -> bool {
        self.run_pass("lower_vars_to_ssa", lower_vars_to_ssa)
    }
}

struct Lower<'a> {
    shader: &'a mut Shader,
    subst: Subst,
    /// Variables promoted to params of each enclosing loop (innermost last).
    loops: Vec<Vec<VarId>>,
}

type Current = Vec<Option<Value>>;

fn lower_vars_to_ssa(s: &mut Shader) -> bool {
    let mut any = !s.vars.is_empty();
    s.body.for_each_instr(&mut |i| {
        any |= matches!(&i.op, Op::Intrinsic(x) if matches!(x.kind, Intrinsic::LoadVar { .. } | Intrinsic::StoreVar { .. }));
    });
    if !any {
        return false;
    }
    let body = std::mem::take(&mut s.body);
    let mut cur: Current = vec![None; s.vars.len()];
    let mut l = Lower {
        subst: Subst::new(s),
        shader: s,
        loops: Vec::new(),
    };
    let body = l.region(body, &mut cur);
    let subst = l.subst;
    s.body = body;
    subst.apply(&mut s.body);
    s.vars.clear();
    true
}

/// Variables stored anywhere in `region` (nested regions included).
fn stored_vars(region: &Region, num_vars: usize) -> Vec<VarId> {
    let mut stored = vec![false; num_vars];
    region.for_each_instr(&mut |i| {
        if let Op::Intrinsic(OpIntrinsic {
            kind: Intrinsic::StoreVar { var },
            ..
        }) = &i.op
            && let Some(s) = stored.get_mut(var.0 as usize)
        {
            *s = true;
        }
    });
    (0..num_vars as u32)
        .filter(|&v| stored[v as usize])
        .map(VarId)
        .collect()
}

impl Lower<'_> {
    fn var_ty(&self, var: VarId) -> ValueType {
        self.shader.vars[var.0 as usize].ty
    }

    /// The current value of `var`, emitting an `undef` into `out` if none.
    fn current(&mut self, var: VarId, cur: &Current, out: &mut Vec<Instr>) -> Value {
        match cur[var.0 as usize] {
            Some(v) => v,
            None => {
                let v = self.shader.new_value(self.var_ty(var));
                out.push(Instr::new([v], Op::Undef));
                v
            }
        }
    }

    fn region(&mut self, region: Region, cur: &mut Current) -> Region {
        let mut out = Vec::with_capacity(region.instrs.len());
        for mut instr in region.instrs {
            for src in instr.srcs_mut() {
                *src = self.subst.get(*src);
            }
            match instr.op {
                Op::Intrinsic(OpIntrinsic {
                    kind: Intrinsic::LoadVar { var },
                    ..
                }) => match cur[var.0 as usize] {
                    Some(v) => self.subst.replace(instr.dsts[0], v),
                    None => out.push(Instr::new(instr.dsts, Op::Undef)),
                },
                Op::Intrinsic(OpIntrinsic {
                    kind: Intrinsic::StoreVar { var },
                    srcs,
                }) => cur[var.0 as usize] = Some(srcs[0]),
                Op::If(f) => self.if_(instr.dsts, f, cur, &mut out),
                Op::Loop(l) => self.loop_(instr.dsts, l, cur, &mut out),
                Op::Break(_) | Op::Continue(_) => {
                    let is_break = matches!(instr.op, Op::Break(_));
                    let vars = self.loops.last().cloned().unwrap_or_default();
                    let extra: Vec<Value> = vars
                        .iter()
                        .map(|&v| self.current(v, cur, &mut out))
                        .collect();
                    match &mut instr.op {
                        Op::Break(b) if is_break => b.values.extend(extra),
                        Op::Continue(c) => c.values.extend(extra),
                        _ => {}
                    }
                    out.push(instr);
                }
                op => out.push(Instr::new(instr.dsts, op)),
            }
        }
        Region { instrs: out }
    }

    fn if_(&mut self, mut dsts: ValueList, f: If, cur: &mut Current, out: &mut Vec<Instr>) {
        let stored = {
            let mut v = stored_vars(&f.then_region, cur.len());
            v.extend(stored_vars(&f.else_region, cur.len()));
            v.sort();
            v.dedup();
            v
        };
        let mut then_cur = cur.clone();
        let mut else_cur = cur.clone();
        let mut then_region = self.region(f.then_region, &mut then_cur);
        let mut else_region = self.region(f.else_region, &mut else_cur);
        for (region, bcur) in [(&mut then_region, &then_cur), (&mut else_region, &else_cur)] {
            if let Some(Instr {
                op: Op::Yield(_), ..
            }) = region.instrs.last()
            {
                let y = region.instrs.pop().expect("checked above");
                let mut extra = Vec::new();
                for &var in &stored {
                    extra.push(self.current(var, bcur, &mut region.instrs));
                }
                let Op::Yield(mut values) = y.op else {
                    unreachable!()
                };
                values.values.extend(extra);
                region.instrs.push(Instr::new(y.dsts, Op::Yield(values)));
            }
        }
        let yields = !(then_region.diverges() && else_region.diverges());
        for &var in &stored {
            if yields {
                let r = self.shader.new_value(self.var_ty(var));
                dsts.push(r);
                cur[var.0 as usize] = Some(r);
            }
        }
        out.push(Instr::new(
            dsts,
            Op::If(If {
                cond: f.cond,
                then_region,
                else_region,
            }),
        ));
    }

    fn loop_(&mut self, mut dsts: ValueList, l: Loop, cur: &mut Current, out: &mut Vec<Instr>) {
        let stored = stored_vars(&l.body, cur.len());
        let mut params = l.params;
        let mut inits = l.inits;
        let mut body_cur = cur.clone();
        for &var in &stored {
            inits.push(self.current(var, cur, out));
            let p = self.shader.new_value(self.var_ty(var));
            params.push(p);
            body_cur[var.0 as usize] = Some(p);
        }
        self.loops.push(stored.clone());
        let body = self.region(l.body, &mut body_cur);
        self.loops.pop();
        for &var in &stored {
            let r = self.shader.new_value(self.var_ty(var));
            dsts.push(r);
            cur[var.0 as usize] = Some(r);
        }
        out.push(Instr::new(
            dsts,
            Op::Loop(Loop {
                params,
                inits,
                body,
            }),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::compiler::ir::*;

    fn check(input: &str, expected: &str) {
        let mut s = Shader::parse(input).unwrap();
        s.validate().unwrap();
        s.lower_vars_to_ssa();
        assert_eq!(s.to_string(), Shader::parse(expected).unwrap().to_string());
    }

    #[test]
    fn straight_line_and_undef() {
        check(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  var "x" i32
  values 4
  %0:i32 = load_var var=0
  %1:i32 = const 0x5
  store_var var=0 %1
  %2:i32 = load_var var=0
  %3:i32 = iadd %0, %2
  store_ssbo set=0 binding=0 %3, %1
}"#,
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 4
  %0:i32 = undef
  %1:i32 = const 0x5
  %3:i32 = iadd %0, %1
  store_ssbo set=0 binding=0 %3, %1
}"#,
        );
    }

    #[test]
    fn if_and_loop_become_results_and_params() {
        check(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  var "i" i32
  values 8
  %0:i32 = const 0x0
  store_var var=0 %0
  loop () {
    %1:i32 = load_var var=0
    %2:i32 = const 0xa
    %3:b1 = uge %1, %2
    if %3 {
      break
    } else {
      %4:i32 = const 0x1
      %5:i32 = iadd %1, %4
      store_var var=0 %5
      yield
    }
    continue
  }
  %6:i32 = load_var var=0
  store_ssbo set=0 binding=0 %6, %0
}"#,
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 11
  %0:i32 = const 0x0
  %10:i32 = loop (%8:i32 = %0) {
    %2:i32 = const 0xa
    %3:b1 = uge %8, %2
    %9:i32 = if %3 {
      break %8
    } else {
      %4:i32 = const 0x1
      %5:i32 = iadd %8, %4
      yield %5
    }
    continue %9
  }
  store_ssbo set=0 binding=0 %10, %0
}"#,
        );
    }
}
