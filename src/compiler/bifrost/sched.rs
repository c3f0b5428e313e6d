//! Clause formation: blocks of allocated instructions → clauses of tuples,
//! with their headers.
//!
//! Rules (correctness first, a simple in-order schedule):
//! - Instructions stay in program order, except that an FMA instruction may
//!   join the previous tuple's lone ADD instruction when neither reads the
//!   other's result (moves and MUX selects turn into their FMA forms, `MOV`
//!   and `CSEL`, for that). An ADD-unit instruction joins the previous tuple when
//!   that tuple holds only an FMA instruction. Either way the pair must be
//!   encodable (ports, one FAU slot, `t` for a same-tuple result) and the
//!   two must write different registers, and a message never joins the FMA
//!   instruction that writes one of its staging registers (the write lands
//!   a tuple later); otherwise a new tuple starts.
//! - A clause holds at most 8 tuples and the embedded constants its size
//!   allows; a message instruction (LOAD/STORE/LD_ATTR/LD_VAR/BARRIER/
//!   ATEST/ZS_EMIT/BLEND …) ends its clause, so each clause has at most one
//!   message, and so does `DISCARD` (nothing after it in its clause sends a
//!   message for a discarded thread); the clause's last
//!   tuple never writes two registers (the first tuple's block cannot
//!   encode that).
//! - A block's branch (`BRANCHZ.i32.eq` / `JUMP`) is a clause of its own,
//!   its offset a PC-relative constant.
//! - Headers as Mesa's packer builds them: a message clause signals
//!   scoreboard slot 0 (barriers also wait on slot 7); every clause waits,
//!   before its successors start, on the slots its successors depend on (a
//!   clause depends on slot 0 when one of its predecessors is a message
//!   clause), so every message completes before the next clause runs.
//!   Flow control: `eos` for the last clause, `nbb r_uncond` for the last
//!   clause of a block with two successors or whose successor has several
//!   predecessors, else `nbb`; next-clause prefetch unless the clause ends
//!   in `JUMP`; the next clause's message type. Fragment shaders: `td` on
//!   every clause; ATEST and ZS_EMIT clauses also depend on slot 6, BLEND
//!   clauses on 6 and 7 (tile-buffer depth and colour, as in Mesa's G52
//!   fragment binaries).
//!
//! It must never reorder instructions or change registers.

use crate::hw::isa::Unit;
use crate::hw::isa::clause::{ClauseHeader, FlowControl, max_constants};

use super::CompileError;
use super::isel::{Program, Term};
use super::ops::{Dst, Instr, Op, Src};
use super::pack::{FauNeed, SClause, STuple, plan_tuple};

/// The scheduled program.
pub struct Schedule {
    pub clauses: Vec<SClause>,
    /// Index of each block's first clause (the next clause for empty blocks).
    pub block_clause: Vec<usize>,
    /// Scoreboard slots the first clause depends on. No clause before it
    /// can wait for them: the RSD's `Shader wait dependency 6/7` say it
    /// for slots 6 and 7.
    pub entry_deps: u8,
}

/// Distinct constant sets of the clause's tuples (an upper bound of the
/// 64-bit constant slots the packer needs).
fn const_count(tuples: &[STuple]) -> usize {
    let mut distinct: Vec<Vec<u32>> = Vec::new();
    for t in tuples {
        let mut c: Vec<u32> = Vec::new();
        for (ins, fma) in [(&t.fma, true), (&t.add, false)] {
            let Some(ins) = ins else { continue };
            if ins.op.is_branch() {
                continue;
            }
            for s in ins.encoded_srcs() {
                if let Src::Imm(v) = *s
                    && !(fma && v == 0)
                    && !c.contains(&v)
                {
                    c.push(v);
                }
            }
        }
        c.sort_unstable();
        if !c.is_empty() && !distinct.contains(&c) {
            distinct.push(c);
        }
    }
    distinct.len()
}

/// Whether the clause (as it stands) can be encoded, the last tuple's
/// writes aside (checked when the clause is closed).
fn clause_ok(tuples: &[STuple]) -> bool {
    let n = tuples.len();
    if n > 8 {
        return false;
    }
    // Tuples before the last were checked when they were added (a tuple's
    // encoding depends only on itself and its predecessor).
    for (i, t) in tuples.iter().enumerate().skip(n.saturating_sub(1)) {
        let prev = (i > 0).then(|| tuples[i - 1].writes());
        // The first tuple's writes are the last tuple's: at most one register
        // (enforced at closing), modelled as a write to r63, never read.
        let writes = if i == 0 {
            [None, Some(63)]
        } else {
            tuples[i - 1].writes()
        };
        if plan_tuple(t, prev, writes, i == 0).is_none() {
            return false;
        }
    }
    const_count(tuples) <= max_constants(n)
}

/// A clause being formed: its block, tuples and terminal branch (with target block).
type Formed = (usize, Vec<STuple>, Option<(Instr, usize)>);

struct Builder {
    clauses: Vec<Formed>,
    cur: Vec<STuple>,
}

impl Builder {
    fn close(&mut self, block: usize) -> Result<(), CompileError> {
        if self.cur.is_empty() {
            return Ok(());
        }
        let mut tuples = std::mem::take(&mut self.cur);
        // The last tuple may write only one register.
        let last = tuples.last().expect("non-empty");
        let paired = last.fma.as_ref().is_some_and(|f| f.op.needs_add_partner());
        if paired && last.writes().iter().flatten().count() == 2 {
            // A pair cannot be split: an empty tuple writes its results.
            tuples.push(STuple::default());
            if !clause_ok(&tuples) {
                return Err(CompileError::Encode(
                    "a paired tuple cannot end its clause".into(),
                ));
            }
        } else if last.writes().iter().flatten().count() == 2 {
            let add = tuples.last_mut().and_then(|t| t.add.take());
            let split = STuple { fma: None, add };
            tuples.push(split);
            if !clause_ok(&tuples) {
                // Move the split ADD into a clause of its own.
                let t = tuples.pop().expect("pushed");
                self.clauses.push((block, tuples, None));
                self.clauses.push((block, vec![t], None));
                return Ok(());
            }
        }
        self.clauses.push((block, tuples, None));
        Ok(())
    }

    fn add(&mut self, block: usize, ins: Instr) -> Result<(), CompileError> {
        let message = ins.op.ends_clause();
        if ins.op.is_add_partner() {
            return self.add_partner(block, ins);
        }
        // Try pairing with the previous tuple's lone FMA instruction.
        if ins.op.unit() == Unit::Add
            && let Some(last) = self.cur.last()
            && last.add.is_none()
            && last.fma.as_ref().is_some_and(|f| !f.op.needs_add_partner())
        {
            let same_dst = matches!(
                (&last.fma.as_ref().and_then(|f| f.dst), &ins.dst),
                (Some(Dst::Phys(a)), Some(Dst::Phys(b))) if a == b
            );
            if !same_dst && !reads_staging_of(&ins, last.fma.as_ref()) {
                // Tried in place (no copy of the clause), undone if it fails.
                self.cur.last_mut().expect("non-empty").add = Some(ins.clone());
                if clause_ok(&self.cur) {
                    if message {
                        self.close(block)?;
                    }
                    return Ok(());
                }
                self.cur.last_mut().expect("non-empty").add = None;
            }
        }
        // An FMA instruction may also join the previous tuple's lone ADD
        // instruction (it then runs alongside it): only when neither reads
        // the other's result and they write different registers. A move
        // can run on either unit.
        let as_fma = match ins.op {
            Op::MovI32 => Instr {
                op: Op::MovI32Fma,
                ..ins.clone()
            },
            // MUX(if_zero, if_nonzero, c) = CSEL.eq(c, #0, if_zero, if_nonzero)
            Op::MuxI32 => Instr {
                op: Op::CselI32Eq,
                srcs: vec![ins.srcs[2], Src::Imm(0), ins.srcs[0], ins.srcs[1]],
                ..ins.clone()
            },
            _ => ins.clone(),
        };
        let ins_fma = &as_fma;
        if ins_fma.op.unit() == Unit::Fma
            && !ins_fma.op.needs_add_partner()
            && let Some(last) = self.cur.last()
            && last.fma.is_none()
            && let Some(add) = &last.add
        {
            let reg = |d: &Option<Dst>| match d {
                Some(Dst::Phys(r)) => Some(*r),
                _ => None,
            };
            let reads =
                |i: &Instr, r: Option<u8>| r.is_some_and(|r| i.srcs.contains(&Src::Phys(r)));
            let (fd, ad) = (reg(&ins_fma.dst), reg(&add.dst));
            let independent = !reads(ins_fma, ad)
                && !reads(add, fd)
                && (fd.is_none() || fd != ad)
                && add.op.message_type() == 0
                && !add.op.is_branch();
            if independent {
                self.cur.last_mut().expect("non-empty").fma = Some(ins_fma.clone());
                if clause_ok(&self.cur) {
                    return Ok(());
                }
                self.cur.last_mut().expect("non-empty").fma = None;
            }
        }
        let t = match ins.op.unit() {
            Unit::Fma => STuple {
                fma: Some(ins),
                add: None,
            },
            Unit::Add => STuple {
                fma: None,
                add: Some(ins),
            },
        };
        self.cur.push(t);
        if !clause_ok(&self.cur) {
            let t = self.cur.pop().expect("pushed above");
            self.close(block)?;
            self.cur.push(t);
            if !clause_ok(&self.cur) {
                return Err(CompileError::Encode(format!(
                    "instruction cannot be encoded alone: {:?}",
                    self.cur[0]
                )));
            }
        }
        if message {
            self.close(block)?;
        }
        Ok(())
    }
}

/// Whether message `ins` reads a staging register that `fma` (same tuple)
/// writes: that write lands in the next tuple's register block, after the
/// message has read its staging registers (spill stores right after the
/// value's FMA definition would store the old contents).
fn reads_staging_of(ins: &Instr, fma: Option<&Instr>) -> bool {
    let (Some((count, true, _)), Some(Src::Phys(first)), Some(Dst::Phys(w))) =
        (ins.op.staging(), ins.srcs.first(), fma.and_then(|f| f.dst))
    else {
        return false;
    };
    (*first..first.saturating_add(count)).contains(&w)
}

impl Builder {
    /// The ADD half of a pair joins the tuple of its FMA half (the last
    /// one, left alone by `add`); if the clause has no room for the pair,
    /// the pair starts the next clause.
    fn add_partner(&mut self, block: usize, ins: Instr) -> Result<(), CompileError> {
        let lone_partner = self.cur.last().is_some_and(|t| {
            t.add.is_none() && t.fma.as_ref().is_some_and(|f| f.op.needs_add_partner())
        });
        if !lone_partner {
            return Err(CompileError::Encode(format!(
                "{} without its FMA half",
                ins.op.name()
            )));
        }
        self.cur.last_mut().expect("non-empty").add = Some(ins.clone());
        if !clause_ok(&self.cur) {
            let pair = self.cur.pop().expect("non-empty");
            self.close(block)?;
            self.cur.push(pair);
            if !clause_ok(&self.cur) {
                return Err(CompileError::Encode(format!(
                    "{} pair cannot be encoded",
                    ins.op.name()
                )));
            }
        }
        if ins.op.ends_clause() {
            self.close(block)?;
        }
        Ok(())
    }
}

/// Whether every tuple of a closed clause plans (as `pack::build_clause`
/// plans them) without a clause constant: a branch's offset then has the
/// constant slot to itself.
fn encodes_without_constants(tuples: &[STuple]) -> bool {
    let n = tuples.len();
    tuples.iter().enumerate().all(|(i, t)| {
        let prev = (i > 0).then(|| tuples[i - 1].writes());
        let writes = tuples[(i + n - 1) % n].writes();
        plan_tuple(t, prev, writes, i == 0).is_some_and(|p| !matches!(p.fau, FauNeed::Consts(_)))
    })
}

impl Builder {
    /// Ends block `block` with a branch (`ins`, kept as `marker` for the
    /// clause) to block `target`: as an extra tuple of the block's last
    /// clause when it fits there, as Mesa does, else as a clause of its own.
    /// It fits when that clause is the block's, sends no message (the
    /// message ends its clause), has a tuple free, uses no clause constant
    /// (the branch offset takes the constant slot) and the tuple encodes
    /// after its predecessor.
    fn branch(&mut self, block: usize, ins: Instr, marker: Instr, target: usize) {
        let tuple = STuple {
            fma: None,
            add: Some(ins),
        };
        if let Some((blk, tuples, br)) = self.clauses.last_mut()
            && *blk == block
            && br.is_none()
            && tuples.len() < 8
            && const_count(tuples) == 0
            && !tuples.iter().any(|t| {
                [&t.fma, &t.add]
                    .into_iter()
                    .flatten()
                    .any(|i| i.op.message_type() != 0 || i.op.is_branch())
            })
        {
            tuples.push(tuple);
            if clause_ok(tuples) && encodes_without_constants(tuples) {
                *br = Some((marker, target));
                return;
            }
            let tuple = tuples.pop().expect("pushed above");
            self.clauses
                .push((block, vec![tuple], Some((marker, target))));
            return;
        }
        self.clauses
            .push((block, vec![tuple], Some((marker, target))));
    }
}

/// Clause-header message types of the tile-buffer messages.
const MESSAGE_BLEND: u8 = 9;
const MESSAGE_Z_STENCIL: u8 = 12;
const MESSAGE_ATEST: u8 = 13;

pub fn schedule(p: &Program) -> Result<Schedule, CompileError> {
    let fragment = p.fragment.is_some();
    let mut b = Builder {
        clauses: Vec::new(),
        cur: Vec::new(),
    };
    let mut block_clause = Vec::with_capacity(p.blocks.len());
    for (bi, block) in p.blocks.iter().enumerate() {
        block_clause.push(b.clauses.len());
        for ins in &block.instrs {
            b.add(bi, ins.clone())?;
        }
        b.close(bi)?;
        match block.term {
            Term::Jump(t) => b.branch(
                bi,
                Instr::new(Op::Jump, None, vec![Src::Imm(0)]),
                Instr::new(Op::Jump, None, vec![]),
                t,
            ),
            Term::BranchZ(c, t) => b.branch(
                bi,
                Instr::new(Op::BranchzI32, None, vec![c, Src::Imm(0)]),
                Instr::new(Op::BranchzI32, None, vec![]),
                t,
            ),
            _ => {}
        }
    }
    // The shader must end in a clause (also a target for branches to the end).
    if b.clauses.last().is_none_or(|c| c.0 + 1 != p.blocks.len()) {
        let last = p.blocks.len().saturating_sub(1);
        b.clauses.push((
            last,
            vec![STuple {
                fma: None,
                add: Some(Instr::new(
                    Op::MovI32,
                    Some(Dst::Phys(63)),
                    vec![Src::Phys(63)],
                )),
            }],
            None,
        ));
        // A clause of NOPs would do as well; a self-move of the never-used
        // r63 keeps the clause non-empty and harmless.
    }
    let n = b.clauses.len();
    let nb = p.blocks.len();
    // Resolve a block to the clause that runs first when entering it.
    let block_entry =
        |blk: usize| -> Option<usize> { (blk < nb).then(|| block_clause[blk]).filter(|&c| c < n) };
    // Clause successors.
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (ci, (blk, _, br)) in b.clauses.iter().enumerate() {
        let last_of_block = ci + 1 == n || b.clauses[ci + 1].0 != *blk;
        if !last_of_block {
            succ[ci].push(ci + 1);
            continue;
        }
        match br {
            Some((ins, t)) => {
                if ins.op == Op::BranchzI32
                    && let Some(c) = block_entry(blk + 1)
                {
                    succ[ci].push(c);
                }
                if let Some(c) = block_entry(*t) {
                    succ[ci].push(c);
                }
            }
            None => {
                if p.blocks[*blk].term != Term::End
                    && let Some(c) = block_entry(blk + 1)
                {
                    succ[ci].push(c);
                }
            }
        }
        succ[ci].dedup();
    }
    let mut preds = vec![0usize; n];
    for s in &succ {
        for &c in s {
            preds[c] += 1;
        }
    }
    let message = |ci: usize| -> u8 {
        b.clauses[ci]
            .1
            .iter()
            .filter_map(|t| t.add.as_ref())
            .map(|a| a.op.message_type())
            .find(|&m| m != 0)
            .unwrap_or(0)
    };
    // A clause depends on slot 0 when a predecessor sends a message.
    let mut deps = vec![0u8; n];
    for (ci, s) in succ.iter().enumerate() {
        if message(ci) != 0 {
            for &c in s {
                deps[c] |= 1;
            }
        }
    }
    // Tile-buffer accesses wait for the fragment's older accesses: ATEST
    // and ZS_EMIT on slot 6 (depth), BLEND on 6 and 7 (depth, colour), as
    // Mesa's G52 fragment shaders show (the clause before a BLEND waits on
    // 0, 6 and 7: `dwb(0, 6, 7)` in gfx_triangle.frag and fs_textured).
    for (ci, d) in deps.iter_mut().enumerate() {
        match message(ci) {
            MESSAGE_BLEND => *d |= 0xc0,
            MESSAGE_ATEST | MESSAGE_Z_STENCIL => *d |= 0x40,
            _ => {}
        }
    }
    let mut clauses = Vec::with_capacity(n);
    for (ci, (blk, tuples, br)) in b.clauses.iter().enumerate() {
        let mt = message(ci);
        let mut wait = succ[ci].iter().fold(0u8, |w, &c| w | deps[c]);
        if mt == 8 {
            wait |= 0x80;
        }
        let last_of_block = ci + 1 == n || b.clauses[ci + 1].0 != *blk;
        let ends_jump = br.as_ref().is_some_and(|(i, _)| i.op == Op::Jump);
        let flow = if succ[ci].is_empty() {
            FlowControl::End
        } else if last_of_block && (succ[ci].len() > 1 || preds[succ[ci][0]] > 1) {
            FlowControl::NbtbUnconditional
        } else {
            FlowControl::Nbtb
        };
        // The clause that runs next: the jump target, else the next in layout.
        let next = if ends_jump {
            succ[ci].first().copied()
        } else {
            (ci + 1 < n).then_some(ci + 1)
        };
        let staging = tuples
            .iter()
            .filter_map(|t| t.add.as_ref())
            .find(|a| a.op.staging().is_some())
            .and_then(|a| match (a.op, a.dst, a.srcs.first()) {
                (Op::Store { .. } | Op::StCvt { .. } | Op::Blend { .. }, _, Some(Src::Phys(r))) => {
                    Some(*r)
                }
                (_, Some(Dst::Phys(r)), _) => Some(r),
                _ => None,
            })
            .unwrap_or(0);
        let header = ClauseHeader {
            flow_control: flow as u8,
            next_clause_prefetch: !succ[ci].is_empty() && !ends_jump,
            // Fragment shaders: discarded threads stop at every clause
            // boundary (Mesa sets it on all of them).
            terminate_discarded_threads: fragment,
            staging_register: staging,
            dependency_wait: wait,
            dependency_slot: 0,
            message_type: mt,
            next_message_type: next.map(message).unwrap_or(0),
            ..ClauseHeader::default()
        };
        clauses.push(SClause {
            header,
            tuples: tuples.clone(),
            target: br.as_ref().map(|(_, t)| *t),
        });
    }
    // Branch targets: a block's entry clause.
    let block_clause = (0..nb).map(|blk| block_entry(blk).unwrap_or(n)).collect();
    Ok(Schedule {
        clauses,
        block_clause,
        entry_deps: deps.first().copied().unwrap_or(0),
    })
}
