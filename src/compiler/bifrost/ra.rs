//! Register allocation: virtual registers → r0..r54 by liveness analysis
//! over the block graph, an interference graph and greedy first-fit
//! colouring in definition order (vectors take contiguous ranges).
//!
//! r55–r63 are never allocated: they hold the preloaded ids (r55–r62),
//! which isel reads in place. There is **no spilling**: a shader that needs
//! more registers than the budget is a [`CompileError::RegisterPressure`].
//! The budget is 55 registers on every architecture; on v7 the result uses
//! the 32-registers-per-thread mode when it fits in r0–r31, which first-fit
//! colouring favours (lowest registers first).
//!
//! This pass must never change what a program computes, only names.

use super::CompileError;
use super::isel::{Program, Term};
use super::ops::{Dst, Src};

/// First register that is never allocated (r55.. are preloaded ids).
pub const ALLOCATABLE: u8 = 55;

struct BitSet(Vec<u64>);

impl BitSet {
    fn new(n: usize) -> BitSet {
        BitSet(vec![0; n.div_ceil(64)])
    }
    fn set(&mut self, i: u32) {
        self.0[i as usize / 64] |= 1 << (i % 64);
    }
    fn clear(&mut self, i: u32) {
        self.0[i as usize / 64] &= !(1 << (i % 64));
    }
    fn union(&mut self, o: &BitSet) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            let n = *a | b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            (0..64)
                .filter(move |b| bits & (1 << b) != 0)
                .map(move |b| (w * 64 + b) as u32)
        })
    }
}

fn uses(srcs: &[Src]) -> impl Iterator<Item = u32> + '_ {
    srcs.iter().filter_map(|s| match s {
        Src::Reg(r) => Some(r.index),
        _ => None,
    })
}

fn term_use(t: &Term) -> Option<u32> {
    match t {
        Term::BranchZ(Src::Reg(r), _) => Some(r.index),
        _ => None,
    }
}

/// Allocates registers and rewrites every operand to a physical register.
/// Returns the number of work registers used (highest + 1).
pub fn allocate(p: &mut Program) -> Result<u32, CompileError> {
    let n = p.vreg_sizes.len();
    let nb = p.blocks.len();
    let succs: Vec<Vec<usize>> = (0..nb).map(|b| p.successors(b)).collect();
    // Per block: upward-exposed uses and (full) defs.
    let mut gen_: Vec<BitSet> = (0..nb).map(|_| BitSet::new(n)).collect();
    let mut kill: Vec<BitSet> = (0..nb).map(|_| BitSet::new(n)).collect();
    for (b, block) in p.blocks.iter().enumerate() {
        let mut live = BitSet::new(n);
        let mut killed = BitSet::new(n);
        if let Some(u) = term_use(&block.term) {
            live.set(u);
        }
        for ins in block.instrs.iter().rev() {
            if let Some(Dst::Reg(d)) = ins.dst
                && !ins.partial
            {
                live.clear(d.index);
                killed.set(d.index);
            }
            for u in uses(&ins.srcs) {
                live.set(u);
            }
        }
        gen_[b] = live;
        kill[b] = killed;
    }
    let mut live_in: Vec<BitSet> = (0..nb).map(|_| BitSet::new(n)).collect();
    let mut live_out: Vec<BitSet> = (0..nb).map(|_| BitSet::new(n)).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..nb).rev() {
            let mut out = BitSet::new(n);
            for &s in &succs[b] {
                out.union(&live_in[s]);
            }
            // in = gen | (out - kill)
            let mut inn = BitSet(out.0.iter().zip(&kill[b].0).map(|(o, k)| o & !k).collect());
            inn.union(&gen_[b]);
            changed |= live_in[b].union(&inn);
            live_out[b] = out;
        }
    }
    // Interference.
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut add_edge = |a: u32, b: u32| {
        if a != b {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
    };
    for (b, block) in p.blocks.iter().enumerate() {
        let mut live = BitSet(live_out[b].0.clone());
        if let Some(u) = term_use(&block.term) {
            live.set(u);
        }
        for ins in block.instrs.iter().rev() {
            if let Some(Dst::Reg(d)) = ins.dst {
                for l in live.iter() {
                    add_edge(d.index, l);
                }
                if !ins.partial {
                    live.clear(d.index);
                }
            }
            for u in uses(&ins.srcs) {
                live.set(u);
            }
        }
        // Values live into the entry block are read before any definition
        // (undefined): they still need registers distinct from each other.
        if b == 0 {
            let ins: Vec<u32> = live.iter().collect();
            for (i, &a) in ins.iter().enumerate() {
                for &c in &ins[i + 1..] {
                    add_edge(a, c);
                }
            }
        }
    }
    // Copy hints: a register defined by a move prefers its source's register.
    let mut hint: Vec<Option<super::ops::Reg>> = vec![None; n];
    for block in &p.blocks {
        for ins in &block.instrs {
            if let (super::ops::Op::MovI32, Some(Dst::Reg(d)), [Src::Reg(s)]) =
                (ins.op, ins.dst, &ins.srcs[..])
                && p.vreg_sizes[d.index as usize] == 1
                && d.comp == 0
            {
                hint[d.index as usize].get_or_insert(*s);
            }
        }
    }
    // Greedy colouring in definition (= index) order.
    let mut base: Vec<Option<u8>> = vec![None; n];
    let mut max_used = 0u32;
    for v in 0..n {
        let size = p.vreg_sizes[v];
        let mut busy = [false; 64];
        for &o in &adj[v] {
            if let Some(b) = base[o as usize] {
                for r in b..b + p.vreg_sizes[o as usize] {
                    busy[r as usize] = true;
                }
            }
        }
        let free = |b: u8| b + size <= ALLOCATABLE && (b..b + size).all(|r| !busy[r as usize]);
        let hinted = hint[v]
            .and_then(|h| base[h.index as usize].map(|b| b + h.comp))
            .filter(|&b| free(b));
        let found = hinted.or_else(|| (0..=ALLOCATABLE - size).find(|&b| free(b)));
        let b = found.ok_or(CompileError::RegisterPressure {
            needed: size,
            available: ALLOCATABLE,
        })?;
        base[v] = Some(b);
        max_used = max_used.max(u32::from(b + size));
    }
    let phys = |r: super::ops::Reg| base[r.index as usize].unwrap_or(0) + r.comp;
    for block in &mut p.blocks {
        // Moves that became self-moves vanish.
        block.instrs.retain(|ins| {
            !matches!(
                (ins.op, ins.dst, &ins.srcs[..]),
                (super::ops::Op::MovI32, Some(Dst::Reg(d)), [Src::Reg(s)]) if phys(d) == phys(*s)
            )
        });
        for ins in &mut block.instrs {
            if let Some(Dst::Reg(d)) = ins.dst {
                ins.dst = Some(Dst::Phys(phys(d)));
            }
            for s in &mut ins.srcs {
                if let Src::Reg(r) = *s {
                    *s = Src::Phys(phys(r));
                }
            }
        }
        if let Term::BranchZ(Src::Reg(r), t) = block.term {
            block.term = Term::BranchZ(Src::Phys(phys(r)), t);
        }
    }
    Ok(max_used)
}
