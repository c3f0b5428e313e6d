//! `opt_cse`: common subexpression elimination over pure instructions
//! (`const`, ALU ops, `vec`, `swizzle`, and loads of values that cannot change
//! during the shader: inputs, attributes, sysvals, push constants, uniforms,
//! UBOs). A later identical instruction reuses the earlier result only if
//! that definition dominates it by scope (same region before it, or an
//! enclosing region); a definition inside a branch or loop body is forgotten
//! when the region ends. Commutative ALU ops match either source order.

use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

use super::Subst;
use crate::compiler::ir::*;

impl Shader {
    pub fn opt_cse(&mut self) -> bool {
        self.run_pass("opt_cse", opt_cse)
    }
}

/// Everything that makes two pure instructions compute the same value.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Const(ValueType, Small<u64>),
    Alu(AluOp, ValueType, Small<Value>),
    Vec(ValueType, Small<Value>),
    Swizzle(ValueType, Value, Small<u8>),
    Load(Intrinsic, ValueType, Small<Value>),
}

/// A short list held inline (no allocation for the usual one to four
/// sources or components); longer ones on the heap. Each length has one
/// representation, so the derived equality and hash are the list's.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Small<T> {
    Inline(u8, [T; 4]),
    Heap(Vec<T>),
}

impl<T: Copy> Small<T> {
    fn new(items: &[T], filler: T) -> Small<T> {
        if items.len() <= 4 {
            let mut a = [filler; 4];
            a[..items.len()].copy_from_slice(items);
            Small::Inline(items.len() as u8, a)
        } else {
            Small::Heap(items.to_vec())
        }
    }
}

fn is_commutative(op: AluOp) -> bool {
    use AluOp::*;
    matches!(
        op,
        Iadd | Imul
            | ImulHigh
            | UmulHigh
            | Imin
            | Imax
            | Umin
            | Umax
            | Iand
            | Ior
            | Ixor
            | Fadd
            | Fmul
            | Fmin
            | Fmax
            | Ieq
            | Ine
            | Feq
            | Fneu
    )
}

fn key(instr: &Instr, values: &[ValueType]) -> Option<Key> {
    let [d] = instr.dsts[..] else { return None };
    let ty = *values.get(d.index())?;
    let vals = |v: &[Value]| Small::new(v, Value(0));
    Some(match &instr.op {
        Op::Const(c) => Key::Const(ty, Small::new(&c.values, 0)),
        Op::Alu(a) => {
            let srcs = if is_commutative(a.op) && a.srcs.len() <= 4 {
                let mut sorted = [Value(0); 4];
                sorted[..a.srcs.len()].copy_from_slice(&a.srcs);
                sorted[..a.srcs.len()].sort();
                vals(&sorted[..a.srcs.len()])
            } else if is_commutative(a.op) {
                let mut sorted = a.srcs.clone();
                sorted.sort();
                vals(&sorted)
            } else {
                vals(&a.srcs)
            };
            Key::Alu(a.op, ty, srcs)
        }
        Op::Vec(v) => Key::Vec(ty, vals(&v.srcs)),
        Op::Swizzle(sw) => Key::Swizzle(ty, sw.src, Small::new(&sw.comps, 0)),
        Op::Intrinsic(i) => match i.kind {
            Intrinsic::LoadInput { .. }
            | Intrinsic::LoadAttribute { .. }
            | Intrinsic::LoadSysVal(_)
            | Intrinsic::LoadPushConstant { .. }
            | Intrinsic::LoadUniform { .. }
            | Intrinsic::LoadUbo { .. }
            | Intrinsic::BufferSize { .. }
            | Intrinsic::TextureSize { .. } => Key::Load(i.kind, ty, vals(&i.srcs)),
            _ => return None,
        },
        _ => return None,
    })
}

struct Cse<'a> {
    values: &'a [ValueType],
    table: FxHashMap<Key, Value>,
    subst: Subst,
}

fn opt_cse(s: &mut Shader) -> bool {
    let mut body = std::mem::take(&mut s.body);
    let mut cse = Cse {
        values: &s.values,
        table: FxHashMap::with_capacity_and_hasher(s.values.len(), Default::default()),
        subst: Subst::new(s),
    };
    cse.region(&mut body, false);
    let progress = !cse.subst.is_empty();
    cse.subst.apply(&mut body);
    s.body = body;
    progress
}

impl Cse<'_> {
    /// CSE over `region`; a `nested` region's definitions are forgotten at
    /// its end (the body's need no undo log, nor copies of their keys).
    fn region(&mut self, region: &mut Region, nested: bool) {
        let mut added = Vec::new();
        for instr in &mut region.instrs {
            for src in instr.srcs_mut() {
                *src = self.subst.get(*src);
            }
            match &mut instr.op {
                Op::If(f) => {
                    self.region(&mut f.then_region, true);
                    self.region(&mut f.else_region, true);
                }
                Op::Loop(l) => self.region(&mut l.body, true),
                _ => {
                    if let Some(k) = key(instr, self.values) {
                        // One hash and probe per instruction (entry, not get + insert).
                        match self.table.entry(k) {
                            Entry::Occupied(prev) => self.subst.replace(instr.dsts[0], *prev.get()),
                            Entry::Vacant(slot) => {
                                if nested {
                                    added.push(slot.key().clone());
                                }
                                slot.insert(instr.dsts[0]);
                            }
                        }
                    }
                }
            }
        }
        for k in added {
            self.table.remove(&k);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::compiler::ir::*;

    #[test]
    fn reuses_dominating_definitions_only() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 10
  %0:i32 = load_sysval sysval=local_invocation_index
  %1:i32 = const 0x1
  %2:i32 = iadd %0, %1
  %3:b1 = ieq %2, %1
  if %3 {
    %4:i32 = iadd %1, %0
    %5:i32 = imul %4, %4
    store_ssbo set=0 binding=0 %5, %4
    yield
  } else {
    yield
  }
  %6:i32 = imul %2, %2
  %7:i32 = const 0x1
  %8:i32 = load_sysval sysval=local_invocation_index
  %9:i32 = iadd %8, %7
  store_ssbo set=0 binding=0 %6, %9
}"#,
        )
        .unwrap();
        assert!(s.opt_cse());
        let text = s.to_string();
        assert!(text.contains("store_ssbo set=0 binding=0 %5, %2"), "{text}");
        // %5 (inside the branch) must not replace %6.
        assert!(text.contains("store_ssbo set=0 binding=0 %6, %2"), "{text}");
    }
}
