//! Threads and warps of the simulated shader core, and the scheduler that
//! runs one workgroup (or one batch of vertex threads) to completion.
//!
//! Each lane has its own registers and PC. A warp runs the group of lanes at
//! the lowest PC among its runnable lanes, one clause at a time (min-PC
//! scheduling, see the parent module for why this reconverges). A lane that
//! executed a BARRIER waits until every lane of the workgroup is waiting or
//! finished. This module must never decode or evaluate instructions itself
//! (that is `exec`), and never loop without a budget: every clause a lane
//! runs is charged to the per-thread limit.

use super::exec::{self, Effects};
use super::{CachedClause, Core, fault, status};
use crate::hw::isa::{FlowControl, WriteHalf};
use crate::kmod::sim::jobs::JobFault;

/// Where a lane is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneState {
    Active,
    /// Waiting at a workgroup barrier.
    Barrier,
    Done,
}

/// One thread.
#[derive(Clone, Debug)]
pub struct Lane {
    pub regs: [u32; 64],
    pub pc: u64,
    pub state: LaneState,
    /// Clauses this thread has executed (runaway guard).
    pub clauses: u64,
    /// Registers written by a message whose slot was not waited on yet
    /// (debug check of ill-formed programs), per slot.
    pub pending: [u64; 8],
    /// A fragment thread a `DISCARD.f32` discarded: it ends at the next
    /// clause whose header has `terminate discarded threads` (Mesa's
    /// src/panfrost/compiler/bi_helper_invocations.c describes the bit:
    /// "Each clause has a `terminate_discarded_threads` bit"); until then it
    /// runs on, but may not reach the tile buffer (`fragment_message`).
    /// A quad's helper invocation starts so: the bit terminates helpers
    /// too (the same Mesa file: the compiler must keep it off every clause
    /// before the last instruction that needs helpers — derivatives and
    /// implicit-LOD texturing).
    pub discarded: bool,
}

/// Per-lane state the shader can observe besides registers.
#[derive(Clone, Copy, Debug, Default)]
pub struct LaneCtx {
    pub lane_id: u32,
    pub warp_id: u32,
    pub core_id: u32,
    /// Thread slot on its core: index in its workgroup (compute) or
    /// vertex batch (selects its TLS slice with `core_id`).
    pub thread: u64,
    /// Workgroup-local memory of the lane's workgroup.
    pub wls_base: u64,
    pub wls_size: u64,
}

/// A thread to start: its preloaded registers and its slot on the core.
#[derive(Clone, Debug, Default)]
pub struct ThreadSpec {
    pub preload: Vec<(u8, u32)>,
    pub thread: u64,
    /// A fragment quad's helper invocation (an uncovered pixel): runs like
    /// the others until the first clause with `terminate discarded
    /// threads`, counted apart (`Counters::helpers`).
    pub helper: bool,
}

struct Warp {
    lanes: Vec<Lane>,
    ctx: Vec<LaneCtx>,
}

impl Core<'_> {
    /// Runs `threads` as one workgroup (barriers synchronise all of them)
    /// using workgroup memory at `wls_base`.
    pub fn run_group(
        &mut self,
        threads: &[ThreadSpec],
        wls_base: u64,
        first_warp_id: u32,
    ) -> Result<(), JobFault> {
        let width = super::warp_width(self.arch);
        let entry = self.program.entry;
        let mut warps: Vec<Warp> = threads
            .chunks(width)
            .enumerate()
            .map(|(w, chunk)| Warp {
                lanes: chunk
                    .iter()
                    .map(|t| {
                        let mut regs = [0u32; 64];
                        for &(r, v) in &t.preload {
                            regs[(r & 63) as usize] = v;
                        }
                        Lane {
                            regs,
                            pc: entry,
                            state: LaneState::Active,
                            clauses: 0,
                            pending: [0; 8],
                            // A helper invocation ends where a discarded
                            // thread does (below).
                            discarded: t.helper,
                        }
                    })
                    .collect(),
                ctx: chunk
                    .iter()
                    .enumerate()
                    .map(|(l, t)| LaneCtx {
                        lane_id: l as u32,
                        warp_id: first_warp_id + w as u32,
                        core_id: self.core_id,
                        thread: t.thread,
                        wls_base,
                        wls_size: self.program.res.wls.size,
                    })
                    .collect(),
            })
            .collect();
        let helpers = threads.iter().filter(|t| t.helper).count() as u64;
        self.counters.threads += threads.len() as u64 - helpers;
        self.counters.helpers += helpers;
        self.counters.warps += warps.len() as u64;
        loop {
            for warp in &mut warps {
                self.run_warp(warp)?;
            }
            let mut any_barrier = false;
            for warp in &mut warps {
                for lane in &mut warp.lanes {
                    if lane.state == LaneState::Barrier {
                        lane.state = LaneState::Active;
                        any_barrier = true;
                    }
                }
            }
            if !any_barrier {
                return Ok(());
            }
        }
    }

    /// Runs a warp until none of its lanes can go on.
    fn run_warp(&mut self, warp: &mut Warp) -> Result<(), JobFault> {
        let mut group: Vec<usize> = Vec::with_capacity(warp.lanes.len());
        loop {
            let Some(pc) = warp
                .lanes
                .iter()
                .filter(|l| l.state == LaneState::Active)
                .map(|l| l.pc)
                .min()
            else {
                return Ok(());
            };
            group.clear();
            group.extend(
                (0..warp.lanes.len()).filter(|&i| {
                    warp.lanes[i].state == LaneState::Active && warp.lanes[i].pc == pc
                }),
            );
            let cc = self.clause(pc)?;
            if cc.clause.header.terminate_discarded_threads {
                // Discarded threads end here instead of running the clause.
                group.retain(|&i| {
                    let lane = &mut warp.lanes[i];
                    if lane.discarded {
                        lane.state = LaneState::Done;
                    }
                    !lane.discarded
                });
                if group.is_empty() {
                    continue;
                }
            }
            self.counters.clauses += 1;
            if cc.cross_lane {
                self.charge(warp, &group, pc)?;
                self.exec_clause_lock_step(&cc, warp, &group)?;
                continue;
            }
            for &i in &group {
                let ctx = warp.ctx[i];
                let lane = &mut warp.lanes[i];
                lane.clauses += 1;
                if lane.clauses > self.clause_limit
                    || self.counters.thread_clauses >= super::JOB_CLAUSE_LIMIT
                {
                    log::error!(
                        "sim shader: thread {} reached the clause budget ({} per thread, {} per job); stopping the job",
                        ctx.thread,
                        self.clause_limit,
                        super::JOB_CLAUSE_LIMIT
                    );
                    return Err(fault(status::TERMINATED, pc));
                }
                self.exec_clause(&cc, lane, &ctx)?;
            }
        }
    }

    /// Runs one clause on one lane and moves its PC/state.
    fn exec_clause(
        &mut self,
        cc: &CachedClause,
        lane: &mut Lane,
        ctx: &LaneCtx,
    ) -> Result<(), JobFault> {
        self.counters.instructions += cc.instructions;
        self.counters.thread_clauses += 1;
        let (mut t0, mut t1) = (0u32, 0u32);
        let mut fx = Effects::default();
        for (fma, add) in &cc.tuples {
            if cfg!(debug_assertions) && check_pending(lane, fma, add, cc) {
                self.counters.hazards += 1;
            }
            let f = exec::eval(self, fma, None, lane, ctx, (t0, t1, 0), cc, &mut fx)?;
            let a = exec::eval(self, add, Some(fma), lane, ctx, (t0, t1, f), cc, &mut fx)?;
            if let Some(w) = fma.dest {
                write(lane, w, f);
            }
            if let Some(w) = add.dest {
                write(lane, w, a);
            }
            t0 = f;
            t1 = a;
        }
        finish_clause(cc, lane, &fx);
        Ok(())
    }

    /// Charges one clause to each lane of `group` (the runaway guard).
    fn charge(&mut self, warp: &mut Warp, group: &[usize], pc: u64) -> Result<(), JobFault> {
        for &i in group {
            let lane = &mut warp.lanes[i];
            lane.clauses += 1;
            if lane.clauses > self.clause_limit
                || self.counters.thread_clauses + group.len() as u64 > super::JOB_CLAUSE_LIMIT
            {
                log::error!(
                    "sim shader: thread {} reached the clause budget; stopping the job",
                    warp.ctx[i].thread
                );
                return Err(fault(status::TERMINATED, pc));
            }
        }
        Ok(())
    }

    /// Runs a clause with a cross-lane instruction on every lane of `group`
    /// in lock step: each tuple's FMA on every lane, then the sources the
    /// ADD instruction shares across lanes (`Core::cross_lane`), then the
    /// ADD on every lane, then the register writes, so that a lane reads
    /// another's operand as of the same tuple (as lanes of one warp do).
    fn exec_clause_lock_step(
        &mut self,
        cc: &CachedClause,
        warp: &mut Warp,
        group: &[usize],
    ) -> Result<(), JobFault> {
        let n = group.len();
        self.counters.instructions += cc.instructions * n as u64;
        self.counters.thread_clauses += n as u64;
        let mut temps = vec![(0u32, 0u32); n];
        let mut fxs = vec![Effects::default(); n];
        let mut fma_results = vec![0u32; n];
        let mut add_results = vec![0u32; n];
        for (fma, add) in &cc.tuples {
            for (k, &i) in group.iter().enumerate() {
                let (lane, ctx) = (&mut warp.lanes[i], &warp.ctx[i]);
                if cfg!(debug_assertions) && check_pending(lane, fma, add, cc) {
                    self.counters.hazards += 1;
                }
                let (t0, t1) = temps[k];
                fma_results[k] =
                    exec::eval(self, fma, None, lane, ctx, (t0, t1, 0), cc, &mut fxs[k])?;
            }
            // Source `c` of the ADD instruction as lane `i` (the `k`th of
            // the group) reads it after this tuple's FMA.
            let add_src = |core: &Self, k: usize, i: usize, c: usize| {
                let src = add
                    .srcs
                    .get(c)
                    .copied()
                    .unwrap_or(crate::hw::isa::Operand::Zero);
                let (t0, t1) = temps[k];
                let t = (t0, t1, fma_results[k]);
                exec::read_src(core, &src, &warp.lanes[i], &warp.ctx[i], t, cc)
            };
            let cross = matches!(add.op, exec::Op::Clper | exec::Op::ClperOld);
            if cross {
                self.cross_lane.clear();
                self.cross_lane.resize(warp.lanes.len(), None);
                for (k, &i) in group.iter().enumerate() {
                    let v = add_src(self, k, i, 0)?;
                    let id = warp.ctx[i].lane_id as usize;
                    if let Some(slot) = self.cross_lane.get_mut(id) {
                        *slot = Some(v);
                    }
                }
            }
            let texture = exec::is_texture(add);
            if texture {
                self.quad_coords.clear();
                self.quad_coords.resize(warp.lanes.len(), None);
                for (k, &i) in group.iter().enumerate() {
                    let st = (add_src(self, k, i, 0)?, add_src(self, k, i, 1)?);
                    let id = warp.ctx[i].lane_id as usize;
                    if let Some(slot) = self.quad_coords.get_mut(id) {
                        *slot = Some(st);
                    }
                }
            }
            for (k, &i) in group.iter().enumerate() {
                let (lane, ctx) = (&mut warp.lanes[i], &warp.ctx[i]);
                let (t0, t1) = temps[k];
                add_results[k] = exec::eval(
                    self,
                    add,
                    Some(fma),
                    lane,
                    ctx,
                    (t0, t1, fma_results[k]),
                    cc,
                    &mut fxs[k],
                )?;
            }
            if cross {
                self.cross_lane.clear();
            }
            if texture {
                self.quad_coords.clear();
            }
            for (k, &i) in group.iter().enumerate() {
                let lane = &mut warp.lanes[i];
                if let Some(w) = fma.dest {
                    write(lane, w, fma_results[k]);
                }
                if let Some(w) = add.dest {
                    write(lane, w, add_results[k]);
                }
                temps[k] = (fma_results[k], add_results[k]);
            }
        }
        for (k, &i) in group.iter().enumerate() {
            finish_clause(cc, &mut warp.lanes[i], &fxs[k]);
        }
        Ok(())
    }
}

/// After a lane ran a clause: drain the slots the header waits on, then
/// end the thread or move its PC (branch, barrier).
fn finish_clause(cc: &CachedClause, lane: &mut Lane, fx: &Effects) {
    lane.discarded |= fx.discard;
    {
        // The header's wait mask is for what follows this clause (Mesa
        // packs the next clause's dependencies into it): the slots are
        // drained before the next clause issues.
        let wait = cc.clause.header.dependency_wait;
        if wait != 0 {
            for slot in 0..8 {
                if wait & (1 << slot) != 0 {
                    lane.pending[slot] = 0;
                }
            }
        }
    }
    // A taken branch leaves even a clause that ends the thread: Mesa's
    // blend shaders end with `JUMP r48` in their last clause (flow `end`,
    // bi_pack.c) and return through it, and a fragment shader's last
    // BLEND clause calls a blend shader the same way.
    if cc.flow == FlowControl::End && fx.branch.is_none_or(|b| b == 0) {
        lane.state = LaneState::Done;
        return;
    }
    if fx.branch == Some(0) {
        // A branch to address 0 ends the thread (how Mesa's code returns
        // early: `JUMP #0`, `BRANCHZ ..., #0`).
        lane.state = LaneState::Done;
        return;
    }
    lane.pc = fx.branch.unwrap_or(cc.va + cc.size);
    if fx.barrier {
        lane.state = LaneState::Barrier;
    }
}

fn write(lane: &mut Lane, w: crate::hw::isa::RegWrite, v: u32) {
    let r = &mut lane.regs[(w.reg & 63) as usize];
    match w.half {
        WriteHalf::Full => *r = v,
        WriteHalf::Lo => *r = (*r & 0xffff_0000) | (v & 0xffff),
        WriteHalf::Hi => *r = (*r & 0xffff) | (v & 0xffff_0000),
    }
    for p in &mut lane.pending {
        *p &= !(1u64 << (w.reg & 63));
    }
}

/// Debug check: a register a message will write, read before its slot was
/// waited on. True if the tuple does that.
fn check_pending(
    lane: &Lane,
    fma: &exec::Prepared,
    add: &exec::Prepared,
    cc: &CachedClause,
) -> bool {
    let pending: u64 = lane.pending.iter().fold(0, |a, b| a | b);
    if pending == 0 {
        return false;
    }
    let mut hazard = false;
    for p in [fma, add] {
        for o in &p.srcs {
            if let crate::hw::isa::Operand::Reg(r) = o
                && pending & (1 << (r & 63)) != 0
            {
                log::warn!(
                    "sim shader: clause {:#x} reads r{r} before waiting for the message writing it",
                    cc.va
                );
                hazard = true;
            }
        }
    }
    hazard
}
