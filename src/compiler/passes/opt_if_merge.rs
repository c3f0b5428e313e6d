//! `opt_if_merge`: fuse adjacent `if`s on the same condition,
//! `if c {A} else {B}; if c {C} else {D}` → `if c {A; C} else {B; D}`.
//!
//! Only `if`s without results whose four branches end in a plain `yield`
//! (no `break`/`continue`) are fused: then nothing defined in `A` can be used
//! by `C` (scoping), `c` cannot change in between (SSA), and the order of the
//! side effects within each path is kept. The XFB variant guards every
//! captured output with the same "record fits" condition, which this turns
//! into one branch.

use crate::compiler::ir::*;

impl Shader {
    pub fn opt_if_merge(&mut self) -> bool {
        self.run_pass("opt_if_merge", opt_if_merge)
    }
}

fn opt_if_merge(s: &mut Shader) -> bool {
    let mut progress = false;
    s.body
        .for_each_region_mut(&mut |r| progress |= merge_region(r));
    progress
}

/// An `if` without results whose branches both fall through with `yield`.
fn fusable(instr: &Instr) -> Option<&If> {
    let ends_in_yield = |r: &Region| matches!(r.instrs.last().map(|i| &i.op), Some(Op::Yield(y)) if y.values.is_empty());
    match &instr.op {
        Op::If(f)
            if instr.dsts.is_empty()
                && ends_in_yield(&f.then_region)
                && ends_in_yield(&f.else_region) =>
        {
            Some(f)
        }
        _ => None,
    }
}

fn merge_region(region: &mut Region) -> bool {
    let any = region
        .instrs
        .windows(2)
        .any(|w| match (fusable(&w[0]), fusable(&w[1])) {
            (Some(a), Some(b)) => a.cond == b.cond,
            _ => false,
        });
    if !any {
        return false;
    }
    let mut progress = false;
    let old = std::mem::take(&mut region.instrs);
    region.instrs.reserve(old.len());
    for instr in old {
        let same_cond = match (region.instrs.last().and_then(fusable), fusable(&instr)) {
            (Some(prev), Some(next)) => prev.cond == next.cond,
            _ => false,
        };
        if !same_cond {
            region.instrs.push(instr);
            continue;
        }
        let Op::If(next) = instr.op else {
            unreachable!("fusable checked above")
        };
        let Some(Op::If(prev)) = region.instrs.last_mut().map(|i| &mut i.op) else {
            unreachable!("fusable checked above")
        };
        for (into, from) in [
            (&mut prev.then_region, next.then_region),
            (&mut prev.else_region, next.else_region),
        ] {
            into.instrs.pop(); // the empty yield
            into.instrs.extend(from.instrs);
        }
        progress = true;
    }
    progress
}

#[cfg(test)]
mod tests {
    use crate::compiler::ir::*;

    #[test]
    fn fuses_same_condition_only() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 4
  %0:i32 = load_sysval sysval=local_invocation_index
  %1:i32 = const 0x0
  %2:b1 = ieq %0, %1
  %3:b1 = ine %0, %1
  if %2 {
    store_ssbo set=0 binding=0 %0, %1
    yield
  } else {
    yield
  }
  if %2 {
    store_ssbo set=0 binding=0 %1, %0
    yield
  } else {
    store_ssbo set=0 binding=0 %0, %0
    yield
  }
  if %3 {
    store_ssbo set=0 binding=0 %1, %1
    yield
  } else {
    yield
  }
}"#,
        )
        .unwrap();
        assert!(s.opt_if_merge());
        let text = s.to_string();
        assert_eq!(text.matches("if %2").count(), 1, "{text}");
        assert_eq!(text.matches("if %3").count(), 1, "{text}");
        assert!(
            text.contains(
                "store_ssbo set=0 binding=0 %0, %1\n    store_ssbo set=0 binding=0 %1, %0\n    yield"
            ),
            "{text}"
        );
        assert!(!s.opt_if_merge());
    }
}
