//! Register allocation: virtual registers → r0..r54 by liveness analysis
//! over the block graph, an interference graph and greedy colouring in
//! definition order (vectors take contiguous ranges, a move's destination
//! prefers its source's register). Two colourings: *spread*, where each
//! value takes the first free register after the previous value's, cycling
//! through r0–r31 (a register is reused late, so neighbouring
//! instructions rarely have write-after-read dependencies the scheduler
//! would have to respect), used when it needs no spilling, fits r0–r31 and
//! keeps no more moves than the other; else *first fit* (lowest registers
//! first), with spilling.
//!
//! r55–r63 are never allocated: they hold the preloaded ids (r55–r62),
//! which isel reads in place. The budget is 55 registers on every
//! architecture; on v7 the result uses the 32-registers-per-thread mode
//! when it fits in r0–r31, which both colourings favour.
//!
//! [`allocate_with_spilling`] (what `compile` uses) spills to thread-local
//! storage when the budget is exceeded: whenever a value cannot be
//! coloured, the cheapest spillable value among it and its coloured
//! neighbours (cost = loop-weighted defs and uses per interference degree,
//! [`super::spill`]) is evicted; after the round, the evicted values get
//! TLS stores after their definitions and loads before their uses, and
//! liveness, interference and colouring are redone. The spill code's own
//! short-lived registers take part in the next round like any value (they
//! are never spilled themselves), which reserves what it needs. [`allocate`]
//! keeps the old contract: no spilling, a [`CompileError::RegisterPressure`]
//! instead.
//!
//! This pass must never change what a program computes, only names (and,
//! when spilling, where values live between definition and use).

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
    /// The members in ascending order (one step per member, not per bit).
    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        BitSet::members(&self.0)
    }

    /// The members of the set whose words are `words`, ascending.
    fn members(words: &[u64]) -> impl Iterator<Item = u32> + '_ {
        words.iter().enumerate().flat_map(|(w, &bits)| {
            let mut rest = bits;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let b = rest.trailing_zeros();
                rest &= rest - 1;
                Some(w as u32 * 64 + b)
            })
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

/// Liveness-derived interference between virtual registers.
pub struct Interference {
    /// Neighbours of each vreg with a lower index (deduplicated,
    /// ascending): `adj[v]`. Colouring in index order needs no others.
    pub adj: Adjacency,
    /// Number of neighbours of each vreg, lower and higher.
    pub degree: Vec<u32>,
    /// Copy hints: a register defined by a move prefers its source's register.
    pub hint: Vec<Option<super::ops::Reg>>,
    /// Physical registers (bit n = rn) each vreg may not take besides the
    /// program's reserved ones: r0–r15 and r48 for a value live across a
    /// fragment shader's `BLEND`, which may call a blend shader that uses
    /// them ([`BLEND_SHADER_CLOBBERS`]).
    pub blocked: Vec<u64>,
}

/// The registers a blend shader may overwrite: r0–r15 and r48 (Mesa's
/// src/panfrost/compiler/bi_ra.c, "Blend shaders might clobber r0-r15,
/// r48"; its compiler README gives blend shaders r0–r7 for the colours,
/// r8–r15 as scratch and r48 as the return address). Our blend shaders
/// (`blend.rs`) allocate only there.
pub const BLEND_SHADER_CLOBBERS: u64 = 0xffff | 1 << 48;

/// Every vreg's list of lower neighbours in one vector (`start[v]..start[v + 1]`),
/// not a vector per vreg: indexing gives the list as a slice.
pub struct Adjacency {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl std::ops::Index<usize> for Adjacency {
    type Output = [u32];
    fn index(&self, v: usize) -> &[u32] {
        &self.list[self.start[v] as usize..self.start[v + 1] as usize]
    }
}

/// Computes liveness over the block graph and the interference graph.
pub fn interference(p: &Program) -> Interference {
    let n = p.vreg_sizes.len();
    let nb = p.blocks.len();
    let succs: Vec<Vec<usize>> = (0..nb).map(|b| p.successors(b)).collect();
    // Per block: upward-exposed uses and (full) defs, then live-in and
    // live-out; each kind is one vector of `words`-word rows, one per block.
    let words = n.div_ceil(64);
    let row = |b: usize| b * words..(b + 1) * words;
    let mut gen_ = vec![0u64; nb * words];
    let mut kill = vec![0u64; nb * words];
    let mut live = BitSet::new(n);
    let mut killed = BitSet::new(n);
    for (b, block) in p.blocks.iter().enumerate() {
        live.0.fill(0);
        killed.0.fill(0);
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
        gen_[row(b)].copy_from_slice(&live.0);
        kill[row(b)].copy_from_slice(&killed.0);
    }
    let mut live_in = vec![0u64; nb * words];
    let mut live_out = vec![0u64; nb * words];
    let mut changed = true;
    let mut out = vec![0u64; words];
    while changed {
        changed = false;
        for b in (0..nb).rev() {
            out.fill(0);
            for &s in &succs[b] {
                for (o, i) in out.iter_mut().zip(&live_in[row(s)]) {
                    *o |= i;
                }
            }
            // in = gen | (out - kill), merged into live_in.
            for (((i, o), k), g) in live_in[row(b)]
                .iter_mut()
                .zip(&out)
                .zip(&kill[row(b)])
                .zip(&gen_[row(b)])
            {
                let new = *i | (o & !k | g);
                changed |= new != *i;
                *i = new;
            }
            live_out[row(b)].copy_from_slice(&out);
        }
    }
    // Interference, as a bit matrix (row `a` holds `a`'s neighbours): each
    // edge is recorded once however often it is found, and the rows give
    // the neighbour lists sorted. A definition's row takes everything live
    // across it a word at a time; the other direction of every edge is
    // added in one pass at the end, and nothing interferes with itself.
    let mut matrix = vec![0u64; n * words];
    let or_into_row = |matrix: &mut [u64], a: u32, live: &BitSet| {
        let row = &mut matrix[a as usize * words..(a as usize + 1) * words];
        for (r, l) in row.iter_mut().zip(&live.0) {
            *r |= l;
        }
    };
    let mut blocked = vec![0u64; n];
    // A blend shader's own BLEND returns to it (it calls nothing).
    let calls_blend_shaders = p.return_register.is_none();
    for (b, block) in p.blocks.iter().enumerate() {
        live.0.copy_from_slice(&live_out[row(b)]);
        if let Some(u) = term_use(&block.term) {
            live.set(u);
        }
        for ins in block.instrs.iter().rev() {
            if calls_blend_shaders && matches!(ins.op, super::ops::Op::Blend { .. }) {
                // `live` is what lives after the BLEND.
                for a in live.iter() {
                    blocked[a as usize] |= BLEND_SHADER_CLOBBERS;
                }
            }
            // A write to a fixed register (dual-source blending's second
            // colour in r4–r7, BLEND's r48, ATEST's r60 ...) clobbers it for
            // every value that lives across the write.
            if let Some(Dst::Phys(r)) = ins.dst
                && r < 64
            {
                for a in live.iter() {
                    blocked[a as usize] |= 1 << r;
                }
            }
            if let Some(Dst::Reg(d)) = ins.dst {
                or_into_row(&mut matrix, d.index, &live);
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
            for a in live.iter() {
                or_into_row(&mut matrix, a, &live);
            }
        }
    }
    // Only each vreg's lower neighbours are listed: colouring goes in
    // index order, so when a vreg is coloured its higher neighbours are
    // all uncoloured and take nothing from it. An edge found in row `a` to
    // a higher `b` moves to row `b`; then row `a` keeps bits below `a`.
    for a in 0..n {
        let (first, bit) = (a / 64, a % 64);
        let row = a * words;
        for w in first..words {
            let mut bits = matrix[row + w];
            if w == first {
                bits &= u64::MAX.checked_shl(bit as u32 + 1).unwrap_or(0);
            }
            while bits != 0 {
                let b = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                matrix[b * words + first] |= 1 << bit;
            }
        }
        matrix[row + first] &= (1 << bit) - 1;
        matrix[row + first + 1..row + words].fill(0);
    }
    // Row `a` has bits only in its first `a / 64 + 1` words now.
    let lower = |a: usize| a * words..a * words + a / 64 + 1;
    let total: usize = (0..n)
        .flat_map(|a| &matrix[lower(a)])
        .map(|w| w.count_ones() as usize)
        .sum();
    let mut adj = Adjacency {
        start: Vec::with_capacity(n + 1),
        list: Vec::with_capacity(total),
    };
    let mut degree = vec![0u32; n];
    adj.start.push(0);
    for a in 0..n {
        for (w, &word) in matrix[lower(a)].iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let b = w as u32 * 64 + bits.trailing_zeros();
                adj.list.push(b);
                degree[b as usize] += 1;
                bits &= bits - 1;
            }
        }
        let start = *adj.start.last().unwrap_or(&0);
        degree[a] += adj.list.len() as u32 - start;
        adj.start.push(adj.list.len() as u32);
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
    Interference {
        adj,
        degree,
        hint,
        blocked,
    }
}

/// Why colouring stopped.
pub(super) enum Uncoloured {
    /// Spill these vregs and try again.
    Spill(Vec<u32>),
    /// Nothing (more) can be spilled.
    Error(CompileError),
}

/// Greedy colouring in definition (= index) order. Without `costs`, the
/// first value that does not fit is a [`CompileError::RegisterPressure`];
/// with them, the cheapest spillable value among it and its coloured
/// neighbours is evicted until it fits, and the evicted set is returned.
pub(super) fn colour(
    p: &Program,
    g: &Interference,
    costs: Option<&super::spill::SpillCosts>,
) -> Result<Vec<Option<u8>>, Uncoloured> {
    colour_from(p, g, costs, false)
}

/// Registers the rotating colouring cycles through: the 32-register mode.
const SPREAD_WINDOW: u8 = 32;

/// Colours the values; with `spread`, each value takes the first free
/// register at or after the one following the previous value's (cycling
/// through r0–r31, then r32 and up), so that a register is reused as late
/// as possible: fewer write-after-read and write-after-write dependencies
/// between neighbouring instructions, which the scheduler may then reorder
/// and pair (as Mesa's allocator leaves them). Without, first fit.
fn colour_from(
    p: &Program,
    g: &Interference,
    costs: Option<&super::spill::SpillCosts>,
    spread: bool,
) -> Result<Vec<Option<u8>>, Uncoloured> {
    let n = p.vreg_sizes.len();
    let mut base: Vec<Option<u8>> = vec![None; n];
    // The registers each coloured vreg occupies (bit n = rn; 0 while
    // uncoloured): a neighbour's contribution is one OR.
    let mut occupied: Vec<u64> = vec![0; n];
    let mut evicted: Vec<u32> = Vec::new();
    let mut cursor = 0u8;
    // Moves whose destination is coloured before their source (a phi's
    // copies): the source then prefers the destination's register.
    let mut copied_to: Vec<Vec<(u32, u8)>> = vec![Vec::new(); if spread { n } else { 0 }];
    if spread {
        for (d, h) in g.hint.iter().enumerate() {
            if let Some(h) = h
                && (h.index as usize) > d
            {
                copied_to[h.index as usize].push((d as u32, h.comp));
            }
        }
    }
    for v in 0..n {
        let size = p.vreg_sizes[v];
        loop {
            // Registers taken by coloured neighbours or reserved (bit n = rn;
            // every colour lies below ALLOCATABLE < 64).
            let lanes = |size: u8| {
                1u64.checked_shl(u32::from(size))
                    .map_or(u64::MAX, |m| m - 1)
            };
            let mut blocked = p.reserved | g.blocked[v];
            for &o in &g.adj[v] {
                blocked |= occupied[o as usize];
            }
            let free = |b: u8| b + size <= ALLOCATABLE && blocked >> b & lanes(size) == 0;
            let hinted = g.hint[v]
                .and_then(|h| base[h.index as usize].map(|b| b + h.comp))
                .filter(|&b| free(b));
            let window = SPREAD_WINDOW.saturating_sub(size - 1);
            // The first free base in the search order (spread: from the
            // cursor to the window's end, the window's start, then above
            // the window; else ascending).
            let found = || {
                if size > ALLOCATABLE {
                    return None; // no base fits (what `free` says of every one)
                }
                // Bit b set: bases b..b + size free and b + size <= ALLOCATABLE.
                let mut taken = blocked;
                for k in 1..u32::from(size) {
                    taken |= blocked.checked_shr(k).unwrap_or(0);
                }
                let ok = !taken & lanes(ALLOCATABLE - size + 1);
                let first_in = |lo: u8, hi: u8| {
                    let m = ok & lanes(hi) & !lanes(lo);
                    (m != 0).then(|| m.trailing_zeros() as u8)
                };
                if spread {
                    let c = cursor.min(window);
                    first_in(c, window)
                        .or_else(|| first_in(0, c))
                        .or_else(|| first_in(window, ALLOCATABLE - size + 1))
                } else {
                    first_in(0, ALLOCATABLE - size + 1)
                }
            };
            let copy = || {
                copied_to.get(v)?.iter().find_map(|&(d, comp)| {
                    base[d as usize]
                        .and_then(|b| b.checked_sub(comp))
                        .filter(|&b| free(b))
                })
            };
            if let Some(b) = hinted.or_else(copy).or_else(found) {
                base[v] = Some(b);
                occupied[v] = lanes(size) << b;
                cursor = (b + size) % SPREAD_WINDOW;
                break;
            }
            let pressure = CompileError::RegisterPressure {
                needed: size,
                available: ALLOCATABLE,
            };
            let Some(costs) = costs else {
                return Err(Uncoloured::Error(pressure));
            };
            let candidates = g.adj[v]
                .iter()
                .copied()
                .filter(|&o| base[o as usize].is_some())
                .chain(std::iter::once(v as u32));
            match costs.cheapest(candidates) {
                None => return Err(Uncoloured::Error(pressure)),
                Some(victim) => {
                    evicted.push(victim);
                    if victim == v as u32 {
                        break;
                    }
                    base[victim as usize] = None;
                    occupied[victim as usize] = 0;
                }
            }
        }
    }
    if evicted.is_empty() {
        Ok(base)
    } else {
        Err(Uncoloured::Spill(evicted))
    }
}

/// A colouring without spilling: the spread colouring, when it needs no
/// spilling, stays in the 32-register mode and keeps no more moves than
/// first fit (which often gives a phi's copies one register by chance);
/// else first fit when that has fewer moves. `None` when the spread
/// colouring does not fit (first fit, perhaps with spilling, decides).
fn spread_colouring(p: &Program, g: &Interference) -> Option<Vec<Option<u8>>> {
    let spread = colour_from(p, g, None, true).ok()?;
    if max_register(p, &spread) > u32::from(SPREAD_WINDOW) {
        return None;
    }
    let moves = |base: &[Option<u8>]| {
        let phys = |r: super::ops::Reg| base[r.index as usize].map(|b| b + r.comp);
        p.blocks
            .iter()
            .flat_map(|b| &b.instrs)
            .filter(|ins| match (ins.op, ins.dst, &ins.srcs[..]) {
                (super::ops::Op::MovI32, Some(Dst::Reg(d)), [Src::Reg(s)]) => phys(d) != phys(*s),
                _ => false,
            })
            .count()
    };
    let spread_moves = moves(&spread);
    if spread_moves == 0 {
        return Some(spread);
    }
    // A first fit that succeeds without spill costs is also what
    // colouring with them gives (they only choose what to evict).
    match colour(p, g, None) {
        Ok(first_fit) if moves(&first_fit) < spread_moves => Some(first_fit),
        _ => Some(spread),
    }
}

/// Highest register a colouring uses + 1.
fn max_register(p: &Program, base: &[Option<u8>]) -> u32 {
    base.iter()
        .zip(&p.vreg_sizes)
        .filter_map(|(b, &size)| b.map(|b| u32::from(b + size)))
        .max()
        .unwrap_or(0)
}

/// Rewrites every operand to its physical register; returns the number of
/// work registers used (highest + 1).
fn rewrite(p: &mut Program, base: &[Option<u8>]) -> u32 {
    let mut max_used = 0u32;
    for (v, b) in base.iter().enumerate() {
        if let Some(b) = b {
            max_used = max_used.max(u32::from(b + p.vreg_sizes[v]));
        }
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
    max_used
}

/// Allocates registers and rewrites every operand to a physical register,
/// without spilling. Returns the number of work registers used (highest + 1).
pub fn allocate(p: &mut Program) -> Result<u32, CompileError> {
    let g = interference(p);
    if let Some(base) = spread_colouring(p, &g) {
        return Ok(rewrite(p, &base));
    }
    match colour(p, &g, None) {
        Ok(base) => Ok(rewrite(p, &base)),
        Err(Uncoloured::Error(e)) => Err(e),
        Err(Uncoloured::Spill(_)) => Err(CompileError::RegisterPressure {
            needed: 1,
            available: ALLOCATABLE,
        }),
    }
}

/// What [`allocate_with_spilling`] produced besides the rewritten program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Allocation {
    /// Highest work register used + 1.
    pub work_registers: u32,
    /// Bytes of thread-local storage per thread the spill code addresses.
    pub tls_size: u32,
    /// TLS stores (spills) and loads (fills) inserted.
    pub spills: u32,
    pub fills: u32,
    /// Virtual registers spilled (over all rounds).
    pub spilled_values: u32,
    /// Colouring rounds (1 when nothing was spilled).
    pub rounds: u32,
}

/// Allocates registers, spilling to thread-local storage when the program
/// needs more than r0..r54 (see the module docs).
pub fn allocate_with_spilling(p: &mut Program) -> Result<Allocation, CompileError> {
    let mut g = interference(p);
    // Spread colouring (or first fit) when it fits without spilling: no
    // spill bookkeeping needed.
    if let Some(base) = spread_colouring(p, &g) {
        return Ok(Allocation {
            work_registers: rewrite(p, &base),
            rounds: 1,
            ..Allocation::default()
        });
    }
    // Else first fit with spilling, round after round.
    let mut spiller = super::spill::Spiller::new(p);
    let mut rounds = 1;
    loop {
        let costs = spiller.costs(p, &g);
        match colour(p, &g, Some(&costs)) {
            Ok(base) => {
                let work_registers = rewrite(p, &base);
                return Ok(Allocation {
                    rounds,
                    ..spiller.finish(work_registers)
                });
            }
            Err(Uncoloured::Error(e)) => return Err(e),
            Err(Uncoloured::Spill(victims)) => spiller.spill(p, &victims)?,
        }
        rounds += 1;
        g = interference(p);
    }
}
