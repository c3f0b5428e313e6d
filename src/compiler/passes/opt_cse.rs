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

/// Everything that makes two pure instructions compute the same value:
/// what the instruction is (with its result type and number of items) and
/// its items (constant components, sources as value ids, swizzle
/// components), zero-padded. Every IR vector has at most four components,
/// so four items hold every `const`, `vec` and `swizzle`; an ALU op or a
/// load with more than four sources is left alone. Plain data: hashing and
/// comparing it touch no heap, and dropping the table drops nothing.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    head: Head,
    items: [u64; 4],
}

/// The items as four words: the derived hash of the array would hash its
/// length and then its 32 bytes as a byte string, several times the work
/// with FxHash. Equal keys still hash equally, and the table is only
/// probed, never iterated, so nothing depends on the hash values.
impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.head.hash(state);
        for &item in &self.items {
            state.write_u64(item);
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Head {
    Const(ValueType, u8),
    Alu(AluOp, ValueType, u8),
    Vec(ValueType, u8),
    Swizzle(ValueType, Value, u8),
    Load(Intrinsic, ValueType, u8),
}

/// `items` zero-padded to four, or `None` if there are more.
fn padded<T: Copy>(items: &[T], widen: impl Fn(T) -> u64) -> Option<(u8, [u64; 4])> {
    if items.len() > 4 {
        return None;
    }
    let mut out = [0u64; 4];
    for (o, &i) in out.iter_mut().zip(items) {
        *o = widen(i);
    }
    Some((items.len() as u8, out))
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
    let vals = |v: &[Value]| padded(v, |v| u64::from(v.0));
    let (head, items) = match &instr.op {
        Op::Const(c) => {
            let (n, items) = padded(&c.values, |x| x)?;
            (Head::Const(ty, n), items)
        }
        Op::Alu(a) => {
            let (n, mut items) = vals(&a.srcs)?;
            if is_commutative(a.op) {
                items[..usize::from(n)].sort_unstable();
            }
            (Head::Alu(a.op, ty, n), items)
        }
        Op::Vec(v) => {
            let (n, items) = vals(&v.srcs)?;
            (Head::Vec(ty, n), items)
        }
        Op::Swizzle(sw) => {
            let (n, items) = padded(&sw.comps, u64::from)?;
            (Head::Swizzle(ty, sw.src, n), items)
        }
        Op::Intrinsic(i) => match i.kind {
            Intrinsic::LoadInput { .. }
            | Intrinsic::LoadAttribute { .. }
            | Intrinsic::LoadSysVal(_)
            | Intrinsic::LoadPushConstant { .. }
            | Intrinsic::LoadUniform { .. }
            | Intrinsic::LoadUbo { .. }
            | Intrinsic::BufferSize { .. }
            | Intrinsic::TextureSize { .. } => {
                let (n, items) = vals(&i.srcs)?;
                (Head::Load(i.kind, ty, n), items)
            }
            _ => return None,
        },
        _ => return None,
    };
    Some(Key { head, items })
}

struct Cse<'a> {
    values: &'a [ValueType],
    table: FxHashMap<Key, Value>,
    /// Keys entered inside the nested regions being walked, innermost
    /// last: each region forgets its own when it ends.
    undo: Vec<Key>,
    subst: Subst,
}

fn opt_cse(s: &mut Shader) -> bool {
    let mut body = std::mem::take(&mut s.body);
    let mut cse = Cse {
        values: &s.values,
        table: FxHashMap::with_capacity_and_hasher(s.values.len(), Default::default()),
        undo: Vec::new(),
        subst: Subst::tracking(s),
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
        let mark = self.undo.len();
        for instr in &mut region.instrs {
            self.subst.resolve_srcs(instr);
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
                                    self.undo.push(*slot.key());
                                }
                                slot.insert(instr.dsts[0]);
                            }
                        }
                    }
                }
            }
        }
        for k in self.undo.drain(mark..) {
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
