//! Clause formation: blocks of allocated instructions → clauses of tuples,
//! with their headers.
//!
//! Rules (a list schedule per block over `dag.rs`'s dependency graph):
//! - Each tuple takes the ready instruction with the longest path to the
//!   block's end that still encodes in the clause (ties: program order;
//!   moves and MUX selects may take their FMA forms, `MOV` and `CSEL`),
//!   then the best instruction for the other unit. Within a tuple the FMA
//!   instruction runs first: the ADD instruction may read its result (the
//!   `t` passthrough) or overwrite a register it reads, never the
//!   converse, and the two never write one register. The pair must be
//!   encodable (ports, one FAU slot, `t` for a same-tuple result), and a
//!   message never joins the FMA instruction that writes one of its
//!   staging registers (the write lands a tuple later).
//! - A clause holds at most 8 tuples and the embedded constants its size
//!   allows; a message instruction (LOAD/STORE/LD_ATTR/LD_VAR/BARRIER/
//!   ATEST/ZS_EMIT/BLEND …) ends its clause, so each clause has at most one
//!   message, and so does `DISCARD` (nothing after it in its clause sends a
//!   message for a discarded thread). Such an instruction waits until no
//!   other ready instruction fits in its clause (or the clause is nearly
//!   full), so the independent work fills the clause it ends. The clause's last
//!   tuple never writes two registers (the first tuple's block cannot
//!   encode that).
//! - A block's branch (`BRANCHZ.i32.eq` / `JUMP`) is the last tuple of the
//!   block's last clause when it fits there (`Builder::branch`: a tuple
//!   free, one 32-bit constant at most, which shares the offset's pair,
//!   and nothing before it that must end the clause — `DISCARD`, a
//!   barrier, a tile-buffer message, a message writing what the branch
//!   reads), else a clause of its own; its offset is a PC-relative
//!   constant.
//! - Headers as Mesa's packer builds them: a message clause signals
//!   scoreboard slot 0 (barriers also wait on slot 7); every clause waits,
//!   before its successors start, on the slots its successors depend on (a
//!   clause depends on slot 0 when one of its predecessors is a message
//!   clause), so every message completes before the next clause runs.
//!   Flow control: `eos` for the last clause, `nbb r_uncond` for the last
//!   clause of a block with two successors or whose successor has several
//!   predecessors, else `nbb`; next-clause prefetch unless the clause ends
//!   in `JUMP`; the next clause's message type. Fragment shaders: `td`
//!   where no later instruction needs the quad's helper invocations
//!   (`terminate_discarded`); ATEST and ZS_EMIT clauses also depend on slot 6, BLEND
//!   clauses on 6 and 7 (tile-buffer depth and colour, as in Mesa's G52
//!   fragment binaries).
//!
//! It must never change registers, nor order two instructions against an
//! edge of the dependency graph.

use crate::compiler::inline_vec::InlineVec;
use crate::hw::isa::Unit;
use crate::hw::isa::clause::{ClauseHeader, FlowControl, max_constants};

use super::CompileError;
use super::dag::{self, ORDER, WAW};
use super::isel::{Program, Term};
use super::ops::{Dst, Instr, Op, Seg, Src};
use super::pack::{
    FauNeed, SClause, STuple, TupleConsts, TuplePlan, branch_low_constant, plan_tuple,
};

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

/// The embedded constants one tuple needs, as `const_count` counts them:
/// none, a set (a sorted pair; a single constant pairs with itself), or
/// more than two (such a tuple does not encode anyway, `plan_tuple`; it
/// counts as a set of its own).
fn tuple_consts(t: &STuple) -> TupleConsts {
    let mut c = [0u32; 2];
    let mut k = 0usize;
    for (ins, fma) in [(&t.fma, true), (&t.add, false)] {
        let Some(ins) = ins else { continue };
        if ins.op.is_branch() {
            continue;
        }
        for s in ins.encoded_srcs() {
            if let Src::Imm(v) = *s
                && !(fma && v == 0)
                && !c[..k].contains(&v)
            {
                if k == 2 {
                    return TupleConsts::Over;
                }
                c[k] = v;
                k += 1;
            }
        }
    }
    match k {
        0 => TupleConsts::None,
        1 => TupleConsts::Set(c[0], c[0]),
        _ => TupleConsts::Set(c[0].min(c[1]), c[0].max(c[1])),
    }
}

/// A tuple's constant set: the one the scheduler kept in it, else computed.
fn kept_consts(t: &STuple) -> TupleConsts {
    t.consts.unwrap_or_else(|| tuple_consts(t))
}

/// Distinct constant sets of the clause's tuples (an upper bound of the
/// 64-bit constant slots the packer needs), the last tuple's being
/// `last` (the others' are kept in them once the scheduler has accepted
/// them, `STuple::consts`). Nothing is allocated: the scheduler asks for
/// every candidate.
fn const_count(tuples: &[STuple], last: TupleConsts) -> usize {
    let mut distinct: [(u32, u32); 8] = [(0, 0); 8];
    let mut n = 0usize;
    let mut extra = 0usize;
    let end = tuples.len().saturating_sub(1);
    for (i, t) in tuples.iter().enumerate() {
        let set = if i == end { last } else { kept_consts(t) };
        let set = match set {
            TupleConsts::None => continue,
            TupleConsts::Over => {
                extra += 1;
                continue;
            }
            TupleConsts::Set(a, b) => (a, b),
        };
        if !distinct[..n].contains(&set) {
            if n == distinct.len() {
                extra += 1;
            } else {
                distinct[n] = set;
                n += 1;
            }
        }
    }
    n + extra
}

/// The last tuple's plan and constants if the clause (as it stands) can be
/// encoded, the last tuple's writes aside (checked when the clause is
/// closed).
fn clause_plan(tuples: &[STuple]) -> Option<(TuplePlan, TupleConsts)> {
    let n = tuples.len();
    if n == 0 || n > 8 {
        return None;
    }
    // Tuples before the last were checked when they were added (a tuple's
    // encoding depends only on itself and its predecessor).
    let i = n - 1;
    let prev = (i > 0).then(|| tuples[i - 1].writes());
    // The first tuple's writes are the last tuple's: at most one register
    // (enforced at closing), modelled as a write to r63, never read.
    let writes = if i == 0 {
        [None, Some(63)]
    } else {
        tuples[i - 1].writes()
    };
    let plan = plan_tuple(&tuples[i], prev, writes, i == 0)?;
    let consts = plan.consts();
    (const_count(tuples, consts) <= max_constants(n)).then_some((plan, consts))
}

/// Whether the clause (as it stands) can be encoded; if so the last
/// tuple keeps its plan for packing (a first tuple's is provisional).
fn clause_ok(tuples: &mut [STuple]) -> bool {
    let n = tuples.len();
    let Some((plan, consts)) = clause_plan(tuples) else {
        return false;
    };
    if let Some(last) = tuples.last_mut() {
        last.plan = (n > 1).then_some(plan);
        last.consts = Some(consts);
    }
    true
}

/// A clause being formed: its block, tuples and terminal branch (with target block).
type Formed = (usize, Vec<STuple>, Option<(Instr, usize)>);

struct Builder {
    clauses: Vec<Formed>,
    cur: Vec<STuple>,
    /// Reused buffer of the list scheduler's candidate order.
    scratch: Vec<usize>,
    /// Reused buffer of ADD candidates.
    add_scratch: Vec<usize>,
    /// Reused buffers of the dependency graphs.
    dag_scratch: dag::Scratch,
    /// The clause being formed opens with the ADD instruction `close`
    /// split off the closed clause's last tuple; its FMA slot is still to
    /// fill (`fill_carried`).
    carried: bool,
}

impl Builder {
    fn close(&mut self, block: usize) -> Result<(), CompileError> {
        if self.cur.is_empty() {
            return Ok(());
        }
        // The clause's own vector, sized for it and a split last tuple
        // (`cur` keeps its buffer for the next clause).
        let mut tuples = Vec::with_capacity(self.cur.len() + 1);
        tuples.append(&mut self.cur);
        // The last tuple may write only one register.
        let last = tuples.last().expect("non-empty");
        let paired = last.fma.as_ref().is_some_and(|f| f.op.needs_add_partner());
        if paired && last.writes().iter().flatten().count() == 2 {
            // A pair cannot be split: an empty tuple writes its results.
            tuples.push(STuple::default());
            if !clause_ok(&mut tuples) {
                return Err(CompileError::Encode(
                    "a paired tuple cannot end its clause".into(),
                ));
            }
        } else if last.writes().iter().flatten().count() == 2 {
            let last = tuples.last_mut().expect("non-empty");
            let add = last.add.take();
            // Its plan and constants had the ADD instruction: plan it
            // again when packing.
            last.plan = None;
            last.consts = None;
            tuples.push(STuple::new(None, add));
            if !clause_ok(&mut tuples) {
                // The split ADD does not fit after it (constants, a full
                // clause): it opens the next clause, where later work of
                // the block may join it (`fill_carried`), instead of
                // taking a clause alone. Nothing scheduled after it has
                // run yet, so the order stays. A block's last clause
                // gets it as a clause of its own (`schedule` closes until
                // nothing is left).
                let t = tuples.pop().expect("pushed");
                self.clauses.push((block, tuples, None));
                self.cur.push(t);
                if clause_ok(&mut self.cur) {
                    self.carried = true;
                } else {
                    // As a clause of its own, planned again when packing.
                    let t = self.cur.pop().expect("pushed");
                    self.clauses.push((block, vec![t], None));
                }
                return Ok(());
            }
        }
        self.clauses.push((block, tuples, None));
        Ok(())
    }
}

/// Whether `ins` needs the other invocations of its 2×2 quad, helpers
/// included: the cross-lane reads of derivatives (`CLPER`, `CLPER_OLD`)
/// and texture lookups whose LOD the hardware computes from the quad
/// (`TEXS_2D` with `computed_lod`; `TEXC` TEX with LOD mode COMPUTE or
/// BIAS, `isel/texture.rs::desc`; a descriptor that is not a constant
/// counts as needing them).
fn needs_helpers(ins: &Instr) -> bool {
    match ins.op {
        Op::Clper { .. } | Op::ClperOld => true,
        Op::TexsF32 { computed_lod, .. } => computed_lod,
        Op::Texc => match ins.srcs.get(3) {
            Some(&Src::Imm(word)) => {
                let tex = (word >> 12) & 7 == 7;
                let lod = (word >> 20) & 7;
                tex && (lod == 7 || lod == 5)
            }
            _ => true,
        },
        _ => false,
    }
}

/// Whether `ins` writes memory other than the thread's own spill slots.
fn writes_memory(ins: &Instr) -> bool {
    match ins.op {
        Op::Store { seg, .. } => seg != Seg::Tl,
        Op::StCvt { .. } | Op::AtomCx | Op::Axchg { .. } | Op::Acmpxchg { .. } => true,
        _ => false,
    }
}

/// Which clauses of a fragment shader get `terminate discarded threads`.
/// Helper invocations end at such a clause as discarded threads do (Mesa's
/// `src/panfrost/compiler/bi_helper_invocations.c`), so it is set only on
/// clauses from which no instruction needing the quad's helpers
/// ([`needs_helpers`]) can be reached, itself included — backward
/// dataflow over the clause graph, loops included — and always on a
/// clause that writes memory, so that no discarded thread stores or
/// does an atomic (a derivative after such a store would read ended
/// helpers; no test shader has one). Not a fragment shader: none.
fn terminate_discarded(
    fragment: bool,
    clauses: &[Formed],
    succ: &[InlineVec<usize, 2>],
) -> Vec<bool> {
    let n = clauses.len();
    if !fragment {
        return vec![false; n];
    }
    let instrs = |ci: usize| {
        let (_, tuples, br) = &clauses[ci];
        tuples
            .iter()
            .flat_map(|t| [t.fma.as_ref(), t.add.as_ref()])
            .flatten()
            .chain(br.as_ref().map(|(i, _)| i))
    };
    let mut needs: Vec<bool> = (0..n).map(|ci| instrs(ci).any(needs_helpers)).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for ci in (0..n).rev() {
            if !needs[ci] && succ[ci].iter().any(|&s| needs[s]) {
                needs[ci] = true;
                changed = true;
            }
        }
    }
    (0..n)
        .map(|ci| !needs[ci] || instrs(ci).any(writes_memory))
        .collect()
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

/// Whether every tuple of a closed clause plans (as `pack::build_clause`
/// plans them) and they read one 32-bit embedded constant at most: the
/// low half of the branch offset's pair (`pack::branch_constants`).
fn encodes_beside_a_branch(tuples: &[STuple]) -> bool {
    let n = tuples.len();
    let mut needs = [FauNeed::None; 8];
    for (i, t) in tuples.iter().enumerate() {
        let prev = (i > 0).then(|| tuples[i - 1].writes());
        let writes = tuples[(i + n - 1) % n].writes();
        match plan_tuple(t, prev, writes, i == 0) {
            Some(p) => needs[i] = p.fau,
            None => return false,
        }
    }
    branch_low_constant(&needs[..n]).is_some()
}

impl Builder {
    /// Ends block `block` with a branch (`ins`, kept as `marker` for the
    /// clause) to block `target`: as an extra tuple of the block's last
    /// clause when it fits there, as Mesa does, else as a clause of its own.
    /// It fits when that clause is the block's, holds nothing that must
    /// end it (`may_precede_branch`), has a tuple free, reads one
    /// 32-bit embedded constant at most (it shares the branch offset's
    /// pair, as in Mesa's cs_ubo_push) and the tuple encodes after its
    /// predecessor.
    fn branch(&mut self, block: usize, ins: Instr, marker: Instr, target: usize) {
        let reads = dag::reads_writes(&ins).0;
        let tuple = STuple::new(None, Some(ins));
        if let Some((blk, tuples, br)) = self.clauses.last_mut()
            && *blk == block
            && br.is_none()
            && tuples.len() < 8
            && tuples.iter().all(|t| {
                [&t.fma, &t.add]
                    .into_iter()
                    .flatten()
                    .all(|i| may_precede_branch(i, reads))
            })
        {
            tuples.push(tuple);
            if clause_ok(tuples) && encodes_beside_a_branch(tuples) {
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

/// Whether `i` may sit in a clause before that clause's branch (its last
/// tuple), which reads the registers `branch_reads`. Not another branch
/// nor `DISCARD` (either ends its clause). A memory, attribute, varying
/// or texture message may, as in Mesa's G52
/// binaries (cs_shared_barrier and cs_ssbo_vec4: `STORE` then `JUMP` in
/// one clause; cs_divergent_if: `STORE`, ALU, `JUMP`), as long as the
/// branch does not read what the message writes (that arrives after the
/// clause). Barriers and tile-buffer messages keep their clauses' ends.
fn may_precede_branch(i: &Instr, branch_reads: u64) -> bool {
    if i.op.is_branch() || matches!(i.op, Op::DiscardF32) {
        return false;
    }
    match i.op.message_type() {
        0 => true,
        1 | 2 | 3 | 5 | 6 | 7 => branch_reads & dag::reads_writes(i).1 == 0,
        _ => false,
    }
}

/// Clause-header message types of the tile-buffer messages.
const MESSAGE_BLEND: u8 = 9;
const MESSAGE_Z_STENCIL: u8 = 12;
const MESSAGE_ATEST: u8 = 13;

pub fn schedule(p: &Program) -> Result<Schedule, CompileError> {
    let fragment = p.fragment.is_some();
    let mut b = Builder {
        clauses: Vec::with_capacity(2 * p.blocks.len()),
        cur: Vec::with_capacity(9),
        scratch: Vec::new(),
        add_scratch: Vec::new(),
        dag_scratch: dag::Scratch::default(),
        carried: false,
    };
    let mut block_clause = Vec::with_capacity(p.blocks.len());
    let terms = thread_empty_then(&p.blocks);
    for (bi, block) in p.blocks.iter().enumerate() {
        block_clause.push(b.clauses.len());
        b.list_schedule(bi, &block.instrs)?;
        // A split ADD carried into a new clause closes as a clause of its
        // own at the block's end.
        while !b.cur.is_empty() {
            b.close(bi)?;
        }
        b.carried = false;
        match terms[bi] {
            (Term::BranchZ(c, t), true) => b.branch(
                bi,
                Instr::new(Op::BranchnzI32, None, [c, Src::Imm(0)]),
                Instr::new(Op::BranchnzI32, None, []),
                t,
            ),
            (Term::Jump(t), _) => b.branch(
                bi,
                Instr::new(Op::Jump, None, [Src::Imm(0)]),
                Instr::new(Op::Jump, None, []),
                t,
            ),
            (Term::BranchZ(c, t), false) => b.branch(
                bi,
                Instr::new(Op::BranchzI32, None, [c, Src::Imm(0)]),
                Instr::new(Op::BranchzI32, None, []),
                t,
            ),
            _ => {}
        }
    }
    // A blend shader returns through a register: `JUMP r48` after
    // everything else (Mesa's blend shaders end so, in bifrost_compile.c).
    if let Some(r) = p.return_register {
        let last = p.blocks.len().saturating_sub(1);
        b.clauses.push((
            last,
            vec![STuple::new(
                None,
                Some(Instr::new(Op::Jump, None, [Src::Phys(r)])),
            )],
            None,
        ));
    }
    // The shader must end in a clause (also a target for branches to the end).
    if b.clauses.last().is_none_or(|c| c.0 + 1 != p.blocks.len()) {
        let last = p.blocks.len().saturating_sub(1);
        b.clauses.push((
            last,
            vec![STuple::new(
                None,
                Some(Instr::new(
                    Op::MovI32,
                    Some(Dst::Phys(63)),
                    vec![Src::Phys(63)],
                )),
            )],
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
    // At most two successors each (fall-through and branch target).
    let mut succ: Vec<InlineVec<usize, 2>> = vec![InlineVec::new(); n];
    for (ci, (blk, _, br)) in b.clauses.iter().enumerate() {
        let last_of_block = ci + 1 == n || b.clauses[ci + 1].0 != *blk;
        if !last_of_block {
            succ[ci].push(ci + 1);
            continue;
        }
        match br {
            Some((ins, t)) => {
                if matches!(ins.op, Op::BranchzI32 | Op::BranchnzI32)
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
        if succ[ci].len() == 2 && succ[ci][0] == succ[ci][1] {
            succ[ci].pop();
        }
    }
    let mut preds = vec![0usize; n];
    for s in &succ {
        for &c in s {
            preds[c] += 1;
        }
    }
    let messages: Vec<u8> = b
        .clauses
        .iter()
        .map(|(_, tuples, _)| {
            tuples
                .iter()
                .filter_map(|t| t.add.as_ref())
                .map(|a| a.op.message_type())
                .find(|&m| m != 0)
                .unwrap_or(0)
        })
        .collect();
    let message = |ci: usize| -> u8 { messages[ci] };
    let td = terminate_discarded(fragment, &b.clauses, &succ);
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
    let blocks_of: Vec<usize> = b.clauses.iter().map(|c| c.0).collect();
    for (ci, (blk, tuples, br)) in b.clauses.into_iter().enumerate() {
        let blk = &blk;
        let mt = message(ci);
        let mut wait = succ[ci].iter().fold(0u8, |w, &c| w | deps[c]);
        if mt == 8 {
            wait |= 0x80;
        }
        let last_of_block = ci + 1 == n || blocks_of[ci + 1] != *blk;
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
            // Fragment shaders: where no later instruction needs the
            // quad's helpers (`terminate_discarded`).
            terminate_discarded_threads: td[ci],
            staging_register: staging,
            dependency_wait: wait,
            dependency_slot: 0,
            message_type: mt,
            next_message_type: next.map(message).unwrap_or(0),
            ..ClauseHeader::default()
        };
        clauses.push(SClause {
            header,
            tuples,
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

/// Each block's terminator as scheduled, with whether a `BranchZ` branches
/// on a non-zero condition instead. An `if` whose then-branch is only a
/// jump to the join (block `i + 1` empty, ending in `Jump(j)`, block `i`
/// branching to the else-branch at `i + 2` when its condition is zero)
/// branches to `j` when the condition is not zero and falls through the
/// empty block into the else-branch: the same paths, one clause and one
/// branch fewer. Only when nothing else enters block `i + 1`. After
/// register allocation, so the then-branch holds no phi copies.
fn thread_empty_then(blocks: &[super::isel::Block]) -> Vec<(Term, bool)> {
    let mut terms: Vec<(Term, bool)> = blocks.iter().map(|b| (b.term, false)).collect();
    let targets = |k: usize| {
        blocks
            .iter()
            .filter(|b| matches!(b.term, Term::Jump(t) | Term::BranchZ(_, t) if t == k))
            .count()
    };
    for i in 0..blocks.len().saturating_sub(2) {
        if let Term::BranchZ(c, t) = blocks[i].term
            && t == i + 2
            && blocks[i + 1].instrs.is_empty()
            && let Term::Jump(j) = blocks[i + 1].term
            && targets(i + 1) == 0
        {
            terms[i] = (Term::BranchZ(c, j), true);
            terms[i + 1] = (Term::Fall, false);
        }
    }
    terms
}

/// How many ready instructions the list scheduler tries for one slot
/// before giving up on it (bounds compile time on wide blocks).
const TRIES: usize = 24;

/// The FMA form of an instruction: itself on the FMA unit, the FMA
/// forms of a move (`MOV`) and a MUX (`CSEL.eq c, #0, …`), else none.
fn fma_form(ins: &Instr) -> Option<Instr> {
    match ins.op {
        Op::MovI32 => Some(Instr {
            op: Op::MovI32Fma,
            ..ins.clone()
        }),
        // MUX(if_zero, if_nonzero, c) = CSEL.eq(c, #0, if_zero, if_nonzero)
        Op::MuxI32 => Some(Instr {
            op: Op::CselI32Eq,
            srcs: [ins.srcs[2], Src::Imm(0), ins.srcs[0], ins.srcs[1]].into(),
            ..ins.clone()
        }),
        _ if ins.op.unit() == Unit::Fma && !ins.op.needs_add_partner() => Some(ins.clone()),
        _ => None,
    }
}

/// A node's scheduling priority as one number, smallest first: the
/// longest path to the block's end (high word, inverted), then program
/// order (low word: the node's index).
fn priority(g: &dag::Graph<'_>, i: usize) -> u64 {
    u64::from(u32::MAX - g.nodes[i].height) << 32 | i as u64
}

/// The node a [`priority`] belongs to.
fn node_of(key: u64) -> usize {
    (key & u64::from(u32::MAX)) as usize
}

/// The list scheduler's state over one block's graph.
struct Ready<'a> {
    graph: dag::Graph<'a>,
    preds_left: Vec<usize>,
    /// The ready nodes' priorities, ascending (distinct: no ties).
    ready: Vec<u64>,
    left: usize,
}

impl<'a> Ready<'a> {
    fn new(instrs: &'a [Instr], scratch: &mut dag::Scratch) -> Ready<'a> {
        let graph = dag::build_with(instrs, scratch);
        let preds_left: Vec<usize> = graph.nodes.iter().map(|n| n.npreds).collect();
        let mut ready: Vec<u64> = (0..graph.nodes.len())
            .filter(|&i| preds_left[i] == 0)
            .map(|i| priority(&graph, i))
            .collect();
        ready.sort_unstable();
        let left = graph.nodes.len();
        Ready {
            graph,
            preds_left,
            ready,
            left,
        }
    }

    /// Marks node `i` scheduled: its successors may become ready.
    fn done(&mut self, i: usize) {
        if let Ok(at) = self.ready.binary_search(&priority(&self.graph, i)) {
            self.ready.remove(at);
        }
        self.left -= 1;
        for k in 0..self.graph.succs(i).len() {
            let s = self.graph.succs(i)[k].0;
            self.preds_left[s] -= 1;
            if self.preds_left[s] == 0 {
                let key = priority(&self.graph, s);
                let at = self.ready.partition_point(|&r| r < key);
                self.ready.insert(at, key);
            }
        }
    }

    /// Ready instructions by priority: longest path to the block's end
    /// first, then program order (in `buf`, reused between calls; `ready`
    /// is kept in that order, not sorted per call).
    fn by_priority(&self, buf: &mut Vec<usize>) {
        buf.clear();
        buf.extend(self.ready());
    }

    /// The ready nodes, by priority.
    fn ready(&self) -> impl Iterator<Item = usize> + '_ {
        self.ready.iter().map(|&k| node_of(k))
    }

    /// Nodes that may run as the ADD instruction beside FMA instruction
    /// `f` (scheduled in this tuple): ready ones, and those waiting only
    /// for `f` through a read of its result (a passthrough) or a write of
    /// a register it reads (it reads first). Never a message (it would end
    /// the clause early) nor a pair.
    fn add_candidates(&self, f: usize, c: &mut Vec<usize>) {
        c.clear();
        c.extend(
            self.ready()
                .filter(|&i| i != f)
                .chain(
                    self.graph
                        .succs(f)
                        .iter()
                        .filter(|&&(s, k)| self.preds_left[s] == 1 && k & (WAW | ORDER) == 0)
                        .map(|&(s, _)| s),
                )
                .filter(|&i| {
                    let n = &self.graph.nodes[i];
                    !n.ends_clause && n.partner.is_none() && n.first.op.unit() == Unit::Add
                }),
        );
        c.sort_unstable_by_key(|&i| (std::cmp::Reverse(self.graph.nodes[i].height), i));
    }
}

impl Builder {
    /// Pushes tuple `t` if the clause still encodes with it (a pair that
    /// writes two registers never becomes a full clause's last tuple:
    /// `close` could not split it).
    fn try_push(&mut self, t: STuple) -> bool {
        self.cur.push(t);
        if !self.full_with_two_writes() && clause_ok(&mut self.cur) {
            return true;
        }
        self.cur.pop();
        false
    }

    /// Whether a full clause's last tuple writes two registers (the
    /// first tuple's block cannot encode that, and `close` would have to
    /// move its ADD instruction into a clause of its own).
    fn full_with_two_writes(&self) -> bool {
        self.cur.len() == 8
            && self
                .cur
                .last()
                .is_some_and(|t| t.writes().iter().flatten().count() == 2)
    }

    /// Sets the last tuple's FMA instruction if the clause still encodes.
    fn try_fma(&mut self, ins: Instr) -> bool {
        self.cur.last_mut().expect("non-empty").fma = Some(ins);
        if !self.full_with_two_writes() && clause_ok(&mut self.cur) {
            return true;
        }
        self.cur.last_mut().expect("non-empty").fma = None;
        false
    }

    /// Sets the last tuple's ADD instruction if the clause still encodes.
    fn try_add(&mut self, ins: Instr) -> bool {
        self.cur.last_mut().expect("non-empty").add = Some(ins);
        if !self.full_with_two_writes() && clause_ok(&mut self.cur) {
            return true;
        }
        self.cur.last_mut().expect("non-empty").add = None;
        false
    }

    /// Fills the empty FMA slot of the last tuple, whose ADD instruction is
    /// node `a`, with a ready FMA instruction independent of it (both are
    /// ready, so neither reads or writes what the other writes), never one
    /// writing a staging register `a` reads (that write lands a tuple later).
    fn fill_fma(&mut self, g: &mut Ready<'_>, a: usize) {
        let add = g.graph.nodes[a].first;
        if add.op.is_branch() {
            return;
        }
        self.fill_fma_slot(g, |f, ins| f == a || reads_staging_of(add, Some(ins)));
    }

    /// Fills the FMA slot of a carried ADD instruction (`close`), the
    /// clause's only tuple, with a ready FMA instruction. The ADD
    /// instruction counts as scheduled already, so its successors may be
    /// ready: one that shares a register with it (its reads, its write)
    /// would run before it and is skipped; register edges are the only
    /// ones from a non-message to an FMA instruction (`dag.rs`).
    fn fill_carried(&mut self, g: &mut Ready<'_>) {
        if !std::mem::take(&mut self.carried) || self.cur.len() != 1 || self.cur[0].fma.is_some() {
            return;
        }
        let Some(add) = &self.cur[0].add else {
            return;
        };
        let (reads, writes) = dag::reads_writes(add);
        self.fill_fma_slot(g, |_, ins| {
            let (r, w) = dag::reads_writes(ins);
            r & writes != 0 || w & (reads | writes) != 0
        });
    }

    /// Puts the first ready instruction (by priority) that has an FMA form,
    /// neither ends a clause nor is a pair, is not `skip`ped and encodes,
    /// into the last tuple's FMA slot; gives up after `TRIES` refusals.
    fn fill_fma_slot(&mut self, g: &mut Ready<'_>, skip: impl Fn(usize, &Instr) -> bool) {
        let mut tries = 0;
        let mut order = std::mem::take(&mut self.scratch);
        g.by_priority(&mut order);
        for &f in &order {
            let node = &g.graph.nodes[f];
            if node.ends_clause || node.partner.is_some() {
                continue;
            }
            let Some(ins) = fma_form(node.first) else {
                continue;
            };
            if skip(f, &ins) {
                continue;
            }
            if self.try_fma(ins) {
                g.done(f);
                break;
            }
            tries += 1;
            if tries == TRIES {
                break;
            }
        }
        self.scratch = order;
    }

    /// Fills the empty ADD slot of the last tuple, whose FMA instruction is
    /// node `f`.
    fn fill_add(&mut self, g: &mut Ready<'_>, f: usize) -> Option<usize> {
        let mut candidates = std::mem::take(&mut self.add_scratch);
        g.add_candidates(f, &mut candidates);
        let mut found = None;
        for (tries, &a) in candidates.iter().enumerate() {
            if tries == TRIES {
                break;
            }
            if self.try_add(g.graph.nodes[a].first.clone()) {
                found = Some(a);
                break;
            }
        }
        self.add_scratch = candidates;
        found
    }

    /// Places clause-ending node `m` (a message or `DISCARD`) and closes
    /// the clause: in the last tuple's free ADD slot when it encodes there
    /// (not beside the FMA instruction that writes one of its staging
    /// registers or a register it writes), else in a tuple of its own
    /// (which a ready FMA instruction may share), else in a new clause.
    fn place_ending(
        &mut self,
        block: usize,
        g: &mut Ready<'_>,
        m: usize,
    ) -> Result<(), CompileError> {
        let node = &g.graph.nodes[m];
        let (first, partner) = (node.first.clone(), node.partner.cloned());
        if let Some(add) = partner {
            let pair = STuple::new(Some(first), Some(add));
            if !self.try_push(pair.clone()) {
                self.close(block)?;
                if !self.try_push(pair) {
                    return Err(CompileError::Encode("pair cannot be encoded".into()));
                }
            }
            g.done(m);
            return self.close(block);
        }
        if let Some(last) = self.cur.last()
            && last.add.is_none()
            && let Some(f) = &last.fma
            && !f.op.needs_add_partner()
            && !reads_staging_of(&first, Some(f))
            && !writes_same(f, &first)
            && self.try_add(first.clone())
        {
            g.done(m);
            return self.close(block);
        }
        let alone = STuple::new(None, Some(first.clone()));
        if !self.try_push(alone.clone()) {
            self.close(block)?;
            if !self.try_push(alone) {
                return Err(CompileError::Encode(format!(
                    "instruction cannot be encoded alone: {first:?}"
                )));
            }
        }
        // The FMA instruction runs first: it must not be one of `m`'s
        // successors, so it is chosen before `m` counts as scheduled.
        self.fill_fma(g, m);
        g.done(m);
        self.close(block)
    }

    /// Dependency-aware list scheduling of one block into tuples and
    /// clauses (rules in the module comment): each tuple takes the ready
    /// instruction with the longest path to the block's end that still
    /// encodes in the clause, then the best one for the other unit. A
    /// message (or `DISCARD`) ends its clause, so it waits until nothing
    /// else ready fits in the clause (or the clause is nearly full): the
    /// independent work fills the clause it ends.
    fn list_schedule(&mut self, block: usize, instrs: &[Instr]) -> Result<(), CompileError> {
        let mut g = Ready::new(instrs, &mut self.dag_scratch);
        let mut order = Vec::new();
        while g.left > 0 {
            self.fill_carried(&mut g);
            if g.left == 0 {
                break;
            }
            g.by_priority(&mut order);
            let ending = order
                .iter()
                .copied()
                .find(|&i| g.graph.nodes[i].ends_clause);
            let mut placed: Option<(usize, Unit)> = None;
            if ending.is_none() || self.cur.len() < 7 {
                let mut tries = 0;
                for &c in &order {
                    let node = &g.graph.nodes[c];
                    if node.ends_clause {
                        continue;
                    }
                    let t = match &node.partner {
                        Some(p) => STuple::new(Some(node.first.clone()), Some((*p).clone())),
                        None if node.first.op.unit() == Unit::Fma => {
                            STuple::new(Some(node.first.clone()), None)
                        }
                        None => STuple::new(None, Some(node.first.clone())),
                    };
                    let unit = if node.partner.is_some() {
                        None
                    } else {
                        Some(node.first.op.unit())
                    };
                    let alt = (unit == Some(Unit::Add))
                        .then(|| fma_form(node.first))
                        .flatten();
                    if self.try_push(t) {
                        placed = unit.map(|u| (c, u));
                        if unit.is_none() {
                            g.done(c);
                            placed = None;
                            tries = usize::MAX;
                        }
                        break;
                    }
                    if let Some(f) = alt
                        && self.try_push(STuple::new(Some(f), None))
                    {
                        placed = Some((c, Unit::Fma));
                        break;
                    }
                    tries += 1;
                    if tries == TRIES {
                        break;
                    }
                }
                if tries == usize::MAX {
                    // A pair took the whole tuple.
                    if self.cur.len() == 8 {
                        self.close(block)?;
                    }
                    continue;
                }
            }
            let Some((c, unit)) = placed else {
                if let Some(m) = ending {
                    self.place_ending(block, &mut g, m)?;
                    continue;
                }
                if self.cur.is_empty() {
                    return Err(CompileError::Encode(format!(
                        "no ready instruction encodes alone: {:?}",
                        order.first().map(|&i| &g.graph.nodes[i].first)
                    )));
                }
                self.close(block)?;
                continue;
            };
            match unit {
                Unit::Fma => {
                    let a = self.fill_add(&mut g, c);
                    g.done(c);
                    if let Some(a) = a {
                        g.done(a);
                    }
                }
                Unit::Add => {
                    self.fill_fma(&mut g, c);
                    g.done(c);
                }
            }
            if self.cur.len() == 8 {
                // A message ready now may still take a free ADD slot.
                let last_add_free = self.cur.last().is_some_and(|t| t.add.is_none());
                let ending = g
                    .ready()
                    .find(|&i| g.graph.nodes[i].ends_clause && g.graph.nodes[i].partner.is_none());
                if last_add_free && let Some(m) = ending {
                    self.place_ending(block, &mut g, m)?;
                } else {
                    self.close(block)?;
                }
            }
        }
        Ok(())
    }
}

/// Whether two instructions write a common register.
fn writes_same(a: &Instr, b: &Instr) -> bool {
    dag::reads_writes(a).1 & dag::reads_writes(b).1 != 0
}
