//! `compact_values`: renumber SSA values densely, in definition order
//! (`%0, %1, …` as the text reads), and drop the types of values nothing
//! defines any more. Optimisation leaves gaps (a lowered XFB variant used
//! ids up to 157 for 90 live values); the backend indexes per-value tables
//! by id. Never changes what the shader computes.

use crate::compiler::ir::*;

impl Shader {
    /// Returns whether any id changed.
    pub fn compact_values(&mut self) -> bool {
        self.run_pass("compact_values", compact_values)
    }
}

struct Renumber {
    map: Vec<Option<Value>>,
    old_types: Vec<ValueType>,
    new_types: Vec<ValueType>,
}

impl Renumber {
    fn define(&mut self, v: &mut Value) {
        let new = Value(self.new_types.len() as u32);
        self.new_types.push(
            self.old_types
                .get(v.index())
                .copied()
                .unwrap_or(ValueType::U32),
        );
        if let Some(slot) = self.map.get_mut(v.index()) {
            *slot = Some(new);
        }
        *v = new;
    }

    fn use_(&mut self, v: &mut Value) {
        match self.map.get(v.index()).copied().flatten() {
            Some(new) => *v = new,
            // Validated IR defines every value it uses; keep anything else
            // distinct rather than guess.
            None => self.define(v),
        }
    }

    fn region(&mut self, region: &mut Region) {
        for instr in &mut region.instrs {
            for src in instr.srcs_mut() {
                self.use_(src);
            }
            for d in &mut instr.dsts {
                self.define(d);
            }
            match &mut instr.op {
                Op::If(f) => {
                    self.region(&mut f.then_region);
                    self.region(&mut f.else_region);
                }
                Op::Loop(l) => {
                    for p in &mut l.params {
                        self.define(p);
                    }
                    self.region(&mut l.body);
                }
                _ => {}
            }
        }
    }
}

fn compact_values(s: &mut Shader) -> bool {
    let n = s.values.len();
    let mut r = Renumber {
        map: vec![None; n],
        old_types: std::mem::take(&mut s.values),
        // As many as there were, or fewer (or more for invalid IR, which
        // uses ids it never defines).
        new_types: Vec::with_capacity(n),
    };
    r.region(&mut s.body);
    let changed = r.new_types.len() != r.old_types.len()
        || r.map
            .iter()
            .enumerate()
            .any(|(i, m)| m.is_some_and(|v| v.index() != i));
    s.values = r.new_types;
    changed
}

#[cfg(test)]
mod tests {
    use crate::compiler::ir::*;

    #[test]
    fn renumbers_in_text_order() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 40
  %7:i32 = load_sysval sysval=local_invocation_index
  %30:i32 = const 0x0
  %12:i32 = loop (%20:i32 = %30) {
    %3:b1 = ilt %20, %7
    if %3 {
      yield
    } else {
      break %20
    }
    %39:b1x2 = vec %3, %3
    %25:i32 = iadd %20, %7
    continue %25
  }
  store_ssbo set=0 binding=0 %12, %7
}"#,
        )
        .unwrap();
        assert!(s.compact_values());
        assert_eq!(
            s.to_string(),
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 7
  %0:i32 = load_sysval sysval=local_invocation_index
  %1:i32 = const 0x0
  %2:i32 = loop (%3:i32 = %1) {
    %4:b1 = ilt %3, %0
    if %4 {
      yield
    } else {
      break %3
    }
    %5:b1x2 = vec %4, %4
    %6:i32 = iadd %3, %0
    continue %6
  }
  store_ssbo set=0 binding=0 %2, %0
}
"#
        );
        assert!(!s.compact_values());
    }
}
