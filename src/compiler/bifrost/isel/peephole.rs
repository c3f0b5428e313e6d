//! Peepholes on the selected program, before register allocation: the
//! fused shift + logic forms of `{L,R}SHIFT_{AND,OR,XOR}` and the removal
//! of ALU results nobody reads.
//!
//! Selection works one IR instruction at a time, so `(x >> 28) | y` is a
//! shift with a `#0` operand and an `OR` with a zero shift. One
//! `RSHIFT_OR.i32 d, x, y, 28` computes both (`ops.rs`: `Shift`,
//! `r = (a << s) op b`; Mesa's `bi_lshift_or`/`bi_rshift_and` forms in
//! `src/panfrost/compiler/bifrost_compile.c` do the same fusion through NIR
//! algebraic rules). The rewrites, on a shift result read exactly once, by
//! a later instruction of the same block, with the shift's sources unchanged
//! between the two:
//!
//! - `t = a <<|>> s` (`{L,R}SHIFT_OR t, a, #0, s`), `u = t op b`
//!   (`LSHIFT_op u, t, b, #0`, `not1`/`not_result` kept) →
//!   `{L,R}SHIFT_op u, a, b, s`; `b op t` likewise when `op` commutes and
//!   `b` is not inverted;
//! - `t = a & m` (`LSHIFT_AND t, a, m, #0`, `m` an immediate),
//!   `u = t << k` → `LSHIFT_AND u, a, m << k, k`; `u = t >> k` →
//!   `RSHIFT_AND u, a, m >> k, k` (`k` an immediate below 32).
//!
//! A fused instruction must still read at most one FAU slot
//! ([`FauUse`]); otherwise the pair stays. Afterwards every ALU
//! instruction ([`Op::fold`] defined) whose whole-register result nobody
//! reads is removed (also what selection left unused: a sign test of a
//! division whose divisor was a constant, a compare folded away).

use super::{FauUse, ZERO};
use crate::compiler::bifrost::isel::program::{Program, Term};
use crate::compiler::bifrost::ops::*;

pub(super) fn run(p: &mut Program) {
    let n = p.vreg_sizes.len();
    let mut reads = vec![0u32; n];
    let mut writes = vec![0u32; n];
    count(p, &mut reads, &mut writes);
    for b in 0..p.blocks.len() {
        fuse_shifts(&mut p.blocks[b].instrs, &mut reads, &writes);
    }
    remove_dead(p, &mut reads);
    for b in 0..p.blocks.len() {
        place_colours(&mut p.blocks[b].instrs, &p.vreg_sizes, &reads, &writes);
    }
}

/// A `BLEND` reads its colour from four consecutive registers (a vector
/// vreg); the epilogue fills it with one `MOV` per component
/// (`isel/fragment.rs`). When a component's value is a whole-register ALU
/// result read only by that `MOV`, defined earlier in the same block, the
/// ALU instruction writes the vector's component itself and the `MOV`
/// goes (Mesa's register allocator coalesces the same copies). Nothing
/// between the two may read the vector or write that component. The first
/// write of the vector in the block stays its full definition (`partial`
/// false) and later ones partial, so liveness sees the vector from its
/// first component on.
fn place_colours(instrs: &mut Vec<Instr>, sizes: &[u8], reads: &[u32], writes: &[u32]) {
    let colour_vregs: Vec<u32> = instrs
        .iter()
        .filter(|i| matches!(i.op, Op::Blend { .. }))
        .filter_map(|i| match i.srcs.first() {
            Some(Src::Reg(r)) if r.comp == 0 && sizes[r.index as usize] == 4 => Some(r.index),
            _ => None,
        })
        // Only vectors written in this block alone (a load's vector from
        // an earlier block keeps its definition there).
        .filter(|&v| {
            let here = instrs
                .iter()
                .filter(|i| matches!(i.dst, Some(Dst::Reg(r)) if r.index == v))
                .count();
            here as u32 == writes[v as usize]
        })
        .collect();
    if colour_vregs.is_empty() {
        return;
    }
    let mut k = 0;
    while k < instrs.len() {
        let ins = &instrs[k];
        let (Op::MovI32, Some(Dst::Reg(d)), [Src::Reg(s)]) = (ins.op, ins.dst, &ins.srcs[..])
        else {
            k += 1;
            continue;
        };
        let s = *s;
        if !colour_vregs.contains(&d.index)
            || sizes[s.index as usize] != 1
            || reads[s.index as usize] != 1
            || writes[s.index as usize] != 1
        {
            k += 1;
            continue;
        }
        let def = instrs[..k]
            .iter()
            .rposition(|i| matches!(i.dst, Some(Dst::Reg(r)) if r.index == s.index));
        let movable = def.is_some_and(|j| {
            let di = &instrs[j];
            scalar_dst(di, sizes) == Some(s.index)
                && !di.op.is_add_partner()
                && di.op.fold(&[0; 4]).is_some()
                && instrs[j + 1..k].iter().all(|i| {
                    !i.srcs.iter().any(|x| is_reg(*x, d.index))
                        && !matches!(i.dst, Some(Dst::Reg(r)) if r == d)
                })
        });
        match def {
            Some(j) if movable => {
                instrs[j].dst = Some(Dst::Reg(d));
                instrs.remove(k);
            }
            _ => k += 1,
        }
    }
    // The first write of each colour vector defines it; the rest add to it.
    for &v in &colour_vregs {
        let mut first = true;
        for i in instrs.iter_mut() {
            if matches!(i.dst, Some(Dst::Reg(r)) if r.index == v) {
                i.partial = !first;
                first = false;
            }
        }
    }
}

fn count(p: &Program, reads: &mut [u32], writes: &mut [u32]) {
    for b in &p.blocks {
        for ins in &b.instrs {
            for s in &ins.srcs {
                if let Src::Reg(r) = s {
                    reads[r.index as usize] += 1;
                }
            }
            if let Some(Dst::Reg(r)) = ins.dst {
                writes[r.index as usize] += 1;
            }
        }
        if let Term::BranchZ(Src::Reg(r), _) = b.term {
            reads[r.index as usize] += 1;
        }
    }
}

/// A whole single-register virtual result (not a lane of a vector, not a
/// partial write).
fn scalar_dst(ins: &Instr, sizes: &[u8]) -> Option<u32> {
    match ins.dst {
        Some(Dst::Reg(r)) if !ins.partial && r.comp == 0 && sizes[r.index as usize] == 1 => {
            Some(r.index)
        }
        _ => None,
    }
}

fn is_reg(s: Src, index: u32) -> bool {
    matches!(s, Src::Reg(r) if r.index == index)
}

/// The logic half of a shift op, and the op with the other direction.
fn logic_of(op: ShiftOp) -> (u8, bool) {
    match op {
        ShiftOp::LshiftOr => (0, false),
        ShiftOp::LshiftAnd => (1, false),
        ShiftOp::LshiftXor => (2, false),
        ShiftOp::RshiftOr => (0, true),
        ShiftOp::RshiftAnd => (1, true),
        ShiftOp::RshiftXor => (2, true),
    }
}

fn shift_op(logic: u8, right: bool) -> ShiftOp {
    match (logic, right) {
        (0, false) => ShiftOp::LshiftOr,
        (1, false) => ShiftOp::LshiftAnd,
        (2, false) => ShiftOp::LshiftXor,
        (0, true) => ShiftOp::RshiftOr,
        (1, true) => ShiftOp::RshiftAnd,
        _ => ShiftOp::RshiftXor,
    }
}

/// The fused form of `t` (defining the value) read by `u`, if any.
fn fuse(t: &Instr, u: &Instr, ti: u32) -> Option<Instr> {
    let Op::Shift {
        op: top,
        not1: false,
        not_result: false,
    } = t.op
    else {
        return None;
    };
    let Op::Shift {
        op: uop,
        not1,
        not_result,
    } = u.op
    else {
        return None;
    };
    let (tl, tr) = logic_of(top);
    let (ul, ur) = logic_of(uop);
    let (a, tb, ts) = (t.srcs[0], t.srcs[1], t.srcs[2]);
    let (u0, u1, us) = (u.srcs[0], u.srcs[1], u.srcs[2]);
    let fused = |op: ShiftOp, n1: bool, nr: bool, srcs: [Src; 3]| {
        let op = Op::Shift {
            op,
            not1: n1,
            not_result: nr,
        };
        let mut fau = FauUse::new(op);
        srcs.iter()
            .all(|&s| fau.admit(s))
            .then(|| Instr::new(op, u.dst, srcs))
    };
    // A plain shift (`op #0` is the identity for OR) feeding a logic op.
    if tl == 0 && tb == ZERO && us == ZERO {
        if is_reg(u0, ti) && !is_reg(u1, ti) {
            return fused(shift_op(ul, tr), not1, not_result, [a, u1, ts]);
        }
        if is_reg(u1, ti) && !is_reg(u0, ti) && !not1 {
            return fused(shift_op(ul, tr), false, not_result, [a, u0, ts]);
        }
    }
    // A mask by an immediate, then shifted by an immediate.
    if tl == 1
        && !tr
        && ts == ZERO
        && ul == 0
        && u1 == ZERO
        && !not1
        && !not_result
        && is_reg(u0, ti)
        && let (Src::Imm(m), Src::Imm(k)) = (tb, us)
        && k < 32
    {
        let m = if ur { m >> k } else { m << k };
        return fused(shift_op(1, ur), false, false, [a, Src::Imm(m), Src::Imm(k)]);
    }
    None
}

fn fuse_shifts(instrs: &mut [Instr], reads: &mut [u32], writes: &[u32]) {
    for i in 0..instrs.len() {
        let Some(Dst::Reg(t)) = instrs[i].dst else {
            continue;
        };
        let ti = t.index;
        if !matches!(instrs[i].op, Op::Shift { .. })
            || instrs[i].partial
            || t.comp != 0
            || reads[ti as usize] != 1
            || writes[ti as usize] != 1
        {
            continue;
        }
        // The reader, if it is in this block; the shift's register sources
        // must keep their values up to it.
        let srcs = instrs[i].srcs.clone();
        let mut reader = None;
        for (j, u) in instrs.iter().enumerate().skip(i + 1) {
            if u.srcs.iter().any(|&s| is_reg(s, ti)) {
                reader = Some(j);
                break;
            }
            let clobbers = match u.dst {
                Some(Dst::Reg(r)) => srcs.iter().any(|&s| is_reg(s, r.index)),
                Some(Dst::Phys(p)) => srcs.contains(&Src::Phys(p)),
                None => false,
            };
            if clobbers {
                break;
            }
        }
        let Some(j) = reader else { continue };
        if let Some(f) = fuse(&instrs[i], &instrs[j], ti) {
            for s in &srcs {
                if let Src::Reg(r) = s {
                    reads[r.index as usize] += 1;
                }
            }
            reads[ti as usize] -= 1;
            instrs[j] = f;
        }
    }
}

/// Removes ALU instructions whose result no one reads, until none is left.
fn remove_dead(p: &mut Program, reads: &mut [u32]) {
    let sizes = std::mem::take(&mut p.vreg_sizes);
    loop {
        let mut progress = false;
        for b in p.blocks.iter_mut().rev() {
            let mut k = b.instrs.len();
            while k > 0 {
                k -= 1;
                let ins = &b.instrs[k];
                let dead = scalar_dst(ins, &sizes).is_some_and(|d| reads[d as usize] == 0)
                    && !ins.op.is_add_partner()
                    && ins.op.fold(&[0; 4]).is_some();
                if dead {
                    for s in &ins.srcs {
                        if let Src::Reg(r) = s {
                            reads[r.index as usize] -= 1;
                        }
                    }
                    b.instrs.remove(k);
                    progress = true;
                }
            }
        }
        if !progress {
            break;
        }
    }
    p.vreg_sizes = sizes;
}
