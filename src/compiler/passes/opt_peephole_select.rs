//! `opt_peephole_select`: a small `if`/`else` whose branches only compute
//! values becomes straight-line code and `bcsel`s,
//! `r = if c { A; yield x } else { B; yield y }` → `A; B; r = bcsel(c, x, y)`.
//!
//! GLSL's `||`, `&&` and `?:` reach us as such branches; on Bifrost each
//! costs a branch clause and the clauses around it, a select one
//! instruction (Mesa's `nir_opt_peephole_select` does the same). Only
//! branches of at most [`MAX_INSTRS`] instructions that end in `yield`,
//! hold no intrinsic (no memory access, no side effect), no nested control
//! flow, no division or transcendental (too costly to run on both paths)
//! and nothing wider than 32 bits are flattened: running them on both
//! paths then changes no observable behaviour (SSA values are defined once;
//! the branch's values are only used through the `yield`).

use crate::compiler::ir::*;

/// Most instructions (before the `yield`) a branch may hold.
const MAX_INSTRS: usize = 6;

impl Shader {
    pub fn opt_peephole_select(&mut self) -> bool {
        self.run_pass("opt_peephole_select", opt_peephole_select)
    }
}

fn opt_peephole_select(s: &mut Shader) -> bool {
    let types = s.values.clone();
    let mut new_values: Vec<ValueType> = Vec::new();
    let first_new = s.values.len();
    let mut progress = false;
    s.body.for_each_region_mut(&mut |r| {
        progress |= flatten_region(r, &types, first_new, &mut new_values);
    });
    s.values.extend(new_values);
    progress
}

/// Whether an ALU op is cheap enough to run on both paths.
fn cheap(op: AluOp) -> bool {
    !matches!(
        op,
        AluOp::Udiv
            | AluOp::Idiv
            | AluOp::Umod
            | AluOp::Irem
            | AluOp::Imod
            | AluOp::Fdiv
            | AluOp::Fsqrt
            | AluOp::Frsq
            | AluOp::Frcp
            | AluOp::Fexp2
            | AluOp::Flog2
            | AluOp::Fsin
            | AluOp::Fcos
            | AluOp::Fpow
    )
}

/// The values a flattenable branch yields.
fn flattenable<'a>(r: &'a Region, types: &[ValueType]) -> Option<&'a [Value]> {
    let (last, body) = r.instrs.split_last()?;
    let Op::Yield(y) = &last.op else {
        return None;
    };
    if body.len() > MAX_INSTRS {
        return None;
    }
    let narrow = |v: &Value| types.get(v.0 as usize).is_some_and(|t| t.bits <= 32);
    for i in body {
        let ok = match &i.op {
            Op::Const(_) | Op::Undef | Op::Vec(_) | Op::Swizzle(_) => true,
            Op::Alu(a) => cheap(a.op) && a.srcs.iter().all(narrow),
            _ => false,
        };
        if !ok || !i.dsts.iter().all(narrow) {
            return None;
        }
    }
    Some(&y.values)
}

fn flatten_region(
    region: &mut Region,
    types: &[ValueType],
    first_new: usize,
    new_values: &mut Vec<ValueType>,
) -> bool {
    let any = region.instrs.iter().any(|i| match &i.op {
        Op::If(f) => {
            i.dsts.iter().all(|d| types[d.0 as usize].bits <= 32)
                && flattenable(&f.then_region, types).is_some()
                && flattenable(&f.else_region, types).is_some()
        }
        _ => false,
    });
    if !any {
        return false;
    }
    let mut progress = false;
    let old = std::mem::take(&mut region.instrs);
    region.instrs.reserve(old.len());
    for instr in old {
        let Op::If(f) = &instr.op else {
            region.instrs.push(instr);
            continue;
        };
        let (Some(x), Some(y)) = (
            flattenable(&f.then_region, types),
            flattenable(&f.else_region, types),
        ) else {
            region.instrs.push(instr);
            continue;
        };
        if !instr.dsts.iter().all(|d| types[d.0 as usize].bits <= 32) {
            region.instrs.push(instr);
            continue;
        }
        let (x, y) = (x.to_vec(), y.to_vec());
        let cond = f.cond;
        let Instr { dsts, op } = instr;
        let Op::If(f) = op else { unreachable!() };
        for r in [f.then_region, f.else_region] {
            let n = r.instrs.len();
            region.instrs.extend(r.instrs.into_iter().take(n - 1));
        }
        for ((d, a), b) in dsts.iter().zip(&x).zip(&y) {
            let comps = types[d.0 as usize].comps;
            let c = if comps == 1 {
                cond
            } else {
                let v = Value((first_new + new_values.len()) as u32);
                new_values.push(ValueType::new(1, comps));
                region.instrs.push(Instr {
                    dsts: [v].into(),
                    op: Op::Swizzle(OpSwizzle {
                        src: cond,
                        comps: std::iter::repeat_n(0, usize::from(comps)).collect(),
                    }),
                });
                v
            };
            region.instrs.push(Instr {
                dsts: [*d].into(),
                op: Op::Alu(OpAlu {
                    op: AluOp::Bcsel,
                    srcs: [c, *a, *b].into(),
                }),
            });
        }
        progress = true;
    }
    progress
}
