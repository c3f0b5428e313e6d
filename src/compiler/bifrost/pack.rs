//! Packing: scheduled clauses of physical-register instructions → the
//! neutral clause form of `hw::isa` → bytes.
//!
//! Per tuple it chooses source selectors (register ports 0–2, `#0`, the
//! passthroughs `t`/`t0`/`t1` for results of this or the previous tuple,
//! FAU halves), assigns register ports (honouring each table row's allowed
//! selectors and [`PortRequest::pack`]), lays the clause's embedded
//! constants out (64-bit pairs; quadword pairs ordered so their M bits
//! never read as PC-relative; a branch offset is the high half of a pair
//! whose M bits say "PC-relative high", as Mesa does) and builds each
//! instruction's [`InstrFields`] from the table row named by [`Op::name`].
//! It must never pack bits itself: `hw::isa` encodes.

use crate::hw::isa::clause::{ClauseHeader, MAX_TUPLES, constant_fau_bits, max_constants};
use crate::hw::isa::opcode::{InstrFields, OpInfo, encode_instr, variants};
use crate::hw::isa::{DecodedClause, Instr as HwInstr, PortRequest, Tuple, Unit, WriteHalf};
use crate::hw::isa::{RegBlock, encode_clause_parts_into, rebuild_views};
use std::rc::Rc;

use super::CompileError;
use super::ops::{Dst, Instr, Op, Src};

/// A scheduled tuple: at most one instruction per unit.
#[derive(Clone, Debug, Default)]
pub struct STuple {
    pub fma: Option<Instr>,
    pub add: Option<Instr>,
    /// The plan the scheduler found for this tuple after its predecessor
    /// in the clause (`plan_tuple` with the predecessor's writes), kept so
    /// that packing does not plan it again; `None` when there is none
    /// (a clause's first tuple: its block writes the last tuple's results,
    /// known only when the clause is closed).
    pub plan: Option<TuplePlan>,
    /// The embedded constants it needs, kept by the scheduler with the plan
    /// (`None`: not known).
    pub consts: Option<TupleConsts>,
}

/// The embedded constants a tuple needs, as the scheduler counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TupleConsts {
    None,
    /// A sorted pair (a single constant pairs with itself).
    Set(u32, u32),
    /// More than two.
    Over,
}

impl STuple {
    pub fn new(fma: Option<Instr>, add: Option<Instr>) -> STuple {
        STuple {
            fma,
            add,
            plan: None,
            consts: None,
        }
    }

    /// Registers written through the next register block (FMA, ADD).
    #[inline]
    pub fn writes(&self) -> [Option<u8>; 2] {
        let w = |i: &Option<Instr>| match i {
            Some(Instr {
                op,
                dst: Some(Dst::Phys(r)),
                ..
            }) if op.has_dest() => Some(*r),
            _ => None,
        };
        [w(&self.fma), w(&self.add)]
    }
}

/// A scheduled clause.
#[derive(Clone, Debug)]
pub struct SClause {
    pub header: ClauseHeader,
    pub tuples: Vec<STuple>,
    /// Block whose first clause a terminal branch targets.
    pub target: Option<usize>,
}

/// What a tuple reads through the FAU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FauNeed {
    None,
    Uniform(u8),
    /// Up to two distinct 32-bit constants.
    Consts(Consts),
    /// A PC-relative branch offset (high half of the pair).
    Branch,
    /// A special FAU slot (`fau_idx` below 0x20): 5 the ATEST datum,
    /// 8 + n the blend descriptor of render target n.
    Special(u8),
}

/// The special FAU slot holding the ATEST parameter datum, which `ATEST`
/// reads without naming it (ISA.xml: "implicitly encoded into the tuple").
pub const FAU_ATEST_DATUM: u8 = 5;

/// The special FAU slot that reads zero in both halves (Mesa's
/// `BIR_FAU_ZERO`; Mesa's G52 binaries read it as `#0.x` in ADD sources,
/// e.g. `+MOV.i32 r1:t1, #0.x`): an ADD instruction's zero, where the
/// FMA unit's inline zero (selector 3) does not exist, without an
/// embedded constant.
pub const FAU_ZERO: u8 = 0;

/// The distinct 32-bit constants a tuple reads (at most two), held inline:
/// the scheduler plans every candidate tuple, so planning allocates nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Consts {
    len: u8,
    vals: [u32; 2],
}

impl Consts {
    fn one(v: u32) -> Consts {
        Consts {
            len: 1,
            vals: [v, 0],
        }
    }

    /// The constants, in first-use order.
    pub fn as_slice(&self) -> &[u32] {
        &self.vals[..usize::from(self.len)]
    }

    /// Adds `v` unless present; false when that would make three.
    fn insert(&mut self, v: u32) -> bool {
        if self.as_slice().contains(&v) {
            return true;
        }
        if self.len == 2 {
            return false;
        }
        self.vals[usize::from(self.len)] = v;
        self.len += 1;
        true
    }
}

impl std::ops::Deref for Consts {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        self.as_slice()
    }
}

/// Most sources an instruction encodes (the tables' widest rows have 4).
const MAX_SRCS: usize = 4;

/// Source selection of one tuple, before constants are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TuplePlan {
    /// Selectors per instruction (FMA, ADD), the first `nsrc[k]` valid;
    /// an immediate read as an embedded constant has selector 4 until the
    /// layout says which half of its pair it is (4 low, 5 high).
    sel: [[u8; MAX_SRCS]; 2],
    nsrc: [u8; 2],
    pub req: PortRequest,
    /// `req` packed (its FAU index, 0 here, is set when packing the
    /// clause: the block's other fields do not depend on it).
    regs: RegBlock,
    pub fau: FauNeed,
}

impl TuplePlan {
    /// Selectors of instruction `k` (0 FMA, 1 ADD).
    pub fn sel(&self, k: usize) -> &[u8] {
        &self.sel[k][..usize::from(self.nsrc[k])]
    }

    /// The embedded constants the plan reads (a branch offset and the
    /// FAU's special zero are none).
    pub fn consts(&self) -> TupleConsts {
        match self.fau {
            FauNeed::Consts(c) => match *c {
                [a] => TupleConsts::Set(a, a),
                [a, b] => TupleConsts::Set(a.min(b), a.max(b)),
                _ => TupleConsts::None,
            },
            _ => TupleConsts::None,
        }
    }
}

/// The first table row of `name` on `unit` (its sources' allowed
/// selectors are what planning needs), through a small direct-mapped
/// per-thread cache in front of the tables' name index (keyed by the name's address
/// and length: `Op::name` returns 'static literals): the scheduler plans
/// hundreds of candidate tuples per shader, two instructions each.
fn first_row(unit: Unit, name: &'static str) -> Option<&'static OpInfo> {
    use std::cell::Cell;
    /// (name address, name length, FMA unit, row).
    type Entry = (usize, usize, bool, Option<&'static OpInfo>);
    thread_local! {
        static RECENT: [Cell<Entry>; 64] =
            const { [const { Cell::new((0, 0, false, None)) }; 64] };
    }
    let (addr, len, fma) = (name.as_ptr() as usize, name.len(), unit == Unit::Fma);
    let slot = (addr ^ addr >> 6 ^ usize::from(fma)) & 63;
    // Two small accesses (each inlines), the lookup between them.
    let (a, l, f, row) = RECENT.with(|r| r[slot].get());
    if (a, l, f) == (addr, len, fma) {
        return row;
    }
    let row = variants(unit, name).next();
    RECENT.with(|r| r[slot].set((addr, len, fma, row)));
    row
}

/// Every assignment of `n` distinct registers to distinct ports (register
/// `i` on port `slots[i]`), in the order of the base-3 numbers
/// `slots[0] + 3 slots[1] + 9 slots[2]`: the order `plan_tuple` tries
/// them in (the test `port_tables_are_the_injective_codes_in_order`).
pub(super) const PORTS_1: [[u8; 3]; 3] = [[0, 0, 0], [1, 0, 0], [2, 0, 0]];
pub(super) const PORTS_2: [[u8; 3]; 6] = [
    [1, 0, 0],
    [2, 0, 0],
    [0, 1, 0],
    [2, 1, 0],
    [0, 2, 0],
    [1, 2, 0],
];
pub(super) const PORTS_3: [[u8; 3]; 6] = [
    [2, 1, 0],
    [1, 2, 0],
    [2, 0, 1],
    [0, 2, 1],
    [1, 0, 2],
    [0, 1, 2],
];

/// Plans one tuple: `prev` are the previous tuple's result registers (for
/// passthroughs; `None` in a clause's first tuple), `writes` the registers
/// this tuple's block writes (the previous tuple's results, or the last
/// tuple's for the first). `None` if the tuple cannot be encoded.
pub fn plan_tuple(
    t: &STuple,
    prev: Option<[Option<u8>; 2]>,
    writes: [Option<u8>; 2],
    first: bool,
) -> Option<TuplePlan> {
    let mut fau = FauNeed::None;
    // (register, allowed selector mask) of the distinct registers read: at
    // most three fit the ports (no allocation: the scheduler plans every
    // candidate tuple).
    let mut reads = [(0u8, 0u8); 3];
    let mut nreads = 0usize;
    let mut sel = [[0u8; MAX_SRCS]; 2];
    let mut nsrc = [0u8; 2];
    let fma_dst = t.writes()[0];
    for (k, ins) in [&t.fma, &t.add].into_iter().enumerate() {
        let Some(ins) = ins else { continue };
        // Allowed selectors per source of the op's first table row.
        let row = first_row(ins.op.unit(), ins.op.name())?;
        let srcs = ins.encoded_srcs();
        if row.srcs.len() != srcs.len() || srcs.len() > MAX_SRCS {
            return None;
        }
        nsrc[k] = srcs.len() as u8;
        let is_add = k == 1;
        // A branch to a register (a blend shader's `JUMP r48`) is a plain
        // register read; the others take a PC-relative constant.
        let pc_relative = ins.op.is_branch() && !matches!(srcs.last(), Some(Src::Phys(_)));
        if pc_relative {
            if fau != FauNeed::None {
                return None;
            }
            fau = FauNeed::Branch;
        }
        if matches!(ins.op, Op::Atest) {
            match fau {
                FauNeed::None => fau = FauNeed::Special(FAU_ATEST_DATUM),
                FauNeed::Special(FAU_ATEST_DATUM) => {}
                _ => return None,
            }
        }
        for (j, (&s, mask)) in srcs
            .iter()
            .zip(row.srcs.iter().map(|f| f.allowed))
            .enumerate()
        {
            let ok = |sel: u8| mask & (1 << sel) != 0;
            if pc_relative && j + 1 == srcs.len() {
                // The PC-relative offset: high half of the branch constant.
                sel[k][j] = 5;
                continue;
            }
            let (selector, c) = match s {
                Src::Phys(r) => {
                    let just_written = (is_add && fma_dst == Some(r))
                        || prev.is_some_and(|p| p.contains(&Some(r)));
                    if just_written && !ins.op.reads_temps() {
                        // Only a passthrough holds the value yet, and this
                        // source may not read one: not in this tuple.
                        return None;
                    }
                    if is_add && fma_dst == Some(r) {
                        (3, None)
                    } else if prev.is_some_and(|p| p[1] == Some(r)) {
                        (7, None)
                    } else if prev.is_some_and(|p| p[0] == Some(r)) {
                        (6, None)
                    } else {
                        match reads[..nreads].iter_mut().find(|(reg, _)| *reg == r) {
                            Some(e) => e.1 &= mask,
                            None if nreads == 3 => return None,
                            None => {
                                reads[nreads] = (r, mask);
                                nreads += 1;
                            }
                        }
                        (0xff, None) // port chosen below
                    }
                }
                Src::Imm(0) if !is_add && ok(3) => (3, None),
                // A zero through the special FAU slot while the tuple's
                // FAU slot is free; a constant later in the tuple makes it
                // an embedded constant again (below).
                Src::Imm(0)
                    if ok(4) && matches!(fau, FauNeed::None | FauNeed::Special(FAU_ZERO)) =>
                {
                    fau = FauNeed::Special(FAU_ZERO);
                    (4, None)
                }
                Src::Imm(v) => {
                    match &mut fau {
                        FauNeed::None => fau = FauNeed::Consts(Consts::one(v)),
                        FauNeed::Special(FAU_ZERO) => {
                            // The zeros read so far (selector 4) become
                            // the pair's zero half when packing.
                            let mut c = Consts::one(0);
                            c.insert(v);
                            fau = FauNeed::Consts(c);
                        }
                        FauNeed::Consts(c) => {
                            if !c.insert(v) {
                                return None;
                            }
                        }
                        _ => return None,
                    }
                    (4, Some(v))
                }
                Src::Uniform { word, high } => {
                    match fau {
                        FauNeed::None => fau = FauNeed::Uniform(word),
                        FauNeed::Uniform(w) if w == word => {}
                        _ => return None,
                    }
                    (4 + u8::from(high), None)
                }
                Src::Special { slot, high } => {
                    match fau {
                        FauNeed::None => fau = FauNeed::Special(slot),
                        FauNeed::Special(s) if s == slot => {}
                        _ => return None,
                    }
                    (4 + u8::from(high), None)
                }
                Src::Reg(_) => return None,
            };
            if selector != 0xff && !ok(selector) && c.is_none() {
                return None;
            }
            if c.is_some() && !ok(4) && !ok(5) {
                return None;
            }
            sel[k][j] = selector;
        }
    }
    let reads = &reads[..nreads];
    let write = |r: Option<u8>| r.map(|r| (r, WriteHalf::Full));
    // Try every assignment of the distinct registers to ports 0, 1, 2.
    let n = reads.len();
    // The assembler's choice first (the first two registers read, in source
    // order, on ports 0/1 with the higher on port 1, the third on port 2),
    // then every other assignment.
    let mut conv = [0u8, 1, 2];
    if n >= 2 && reads[0].0 > reads[1].0 {
        conv = [1, 0, 2];
    }
    let every: &[[u8; 3]] = match n {
        0 => &[[0; 3]],
        1 => &PORTS_1,
        2 => &PORTS_2,
        _ => &PORTS_3,
    };
    let mut fallback: Option<TuplePlan> = None;
    for slots in std::iter::once(&conv).chain(every) {
        let used = &slots[..n];
        if (0..n).any(|i| reads[i].1 & (1 << used[i]) == 0) {
            continue;
        }
        let port = |p: u8| (0..n).find(|&i| used[i] == p).map(|i| reads[i].0);
        // Port 1 needs port 0, and holds the higher register (the packer
        // orders them so; selectors must agree).
        match (port(0), port(1)) {
            (None, Some(_)) => continue,
            (Some(a), Some(b)) if a > b => continue,
            _ => {}
        }
        let req = PortRequest {
            port0: port(0),
            port1: port(1),
            read2: port(2),
            write_fma: write(writes[0]),
            write_add: write(writes[1]),
            fau_idx: 0,
        };
        let Some(regs) = req.pack(first) else {
            continue;
        };
        // Resolve register selectors.
        let mut sel = sel;
        for (k, ins) in [&t.fma, &t.add].into_iter().enumerate() {
            let Some(ins) = ins else { continue };
            for (j, s) in ins.encoded_srcs().iter().enumerate() {
                if sel[k][j] == 0xff
                    && let Src::Phys(r) = s
                {
                    let i = (0..n).find(|&i| reads[i].0 == *r)?;
                    sel[k][j] = used[i];
                }
            }
        }
        let plan = TuplePlan {
            sel,
            nsrc,
            req,
            regs,
            fau,
        };
        if n == 3 && !assembler_agrees(t, &plan) {
            // Valid, but the disassembly would reassemble with other
            // ports: kept only if no assignment agrees.
            fallback.get_or_insert(plan);
            continue;
        }
        return Some(plan);
    }
    fallback
}

/// Whether the assembler (`asm.rs`: the first two registers read in the
/// printed source order on ports 0/1, the lower on port 0, the third on
/// port 2) would choose the plan's ports. A comparison whose encoding
/// exists only with its sources swapped (`build_fields` mirrors it) prints
/// them swapped; every other instruction prints its sources in order.
fn assembler_agrees(t: &STuple, plan: &TuplePlan) -> bool {
    let mut printed: [u8; 3] = [0; 3];
    let mut count = 0usize;
    for (k, ins) in [&t.fma, &t.add].into_iter().enumerate() {
        let Some(ins) = ins else { continue };
        let sel = plan.sel(k);
        let swapped = matches!(ins.op, Op::Icmp { .. } | Op::Fcmp { .. })
            && sel.len() == 2
            && !encodes_exactly(&ins.op, sel);
        let srcs = ins.encoded_srcs();
        let order: [usize; 2] = if swapped { [1, 0] } else { [0, 1] };
        let indices = order
            .into_iter()
            .take(srcs.len().min(2))
            .chain(2..srcs.len());
        for j in indices {
            if let Src::Phys(r) = srcs[j]
                && sel[j] <= 2
                && !printed[..count].contains(&r)
                && count < 3
            {
                printed[count] = r;
                count += 1;
            }
        }
    }
    if count != 3 {
        return true;
    }
    let (lo, hi) = (printed[0].min(printed[1]), printed[0].max(printed[1]));
    plan.req.port0 == Some(lo) && plan.req.port1 == Some(hi) && plan.req.read2 == Some(printed[2])
}

/// The 64-bit constant pairs of a clause and, per tuple, its pair index.
struct ConstLayout {
    pairs: Vec<u64>,
    /// Per tuple: index into `pairs`.
    slot: [Option<usize>; MAX_TUPLES],
}

fn top(v: u64) -> u64 {
    v >> 60
}

/// Lays out constants the way the assembler does (so that our bytes and
/// the reassembled disassembly agree): tuples needing two constants get a
/// pair (high = the larger) first, then single constants reuse a pair
/// holding them or are paired with the next single (high = the larger; a
/// lone one goes high). Slot 0 is alone when the format packs it; each
/// quadword pair is ordered so its M bits decode as plain constants (a lone
/// last constant's padding copies its top nibble when needed).
fn layout_constants(needs: &[FauNeed], n: usize) -> Option<ConstLayout> {
    let merge = |a: u32, b: u32| {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        u64::from(lo) | (u64::from(hi) << 32)
    };
    let mut pairs: Vec<u64> = Vec::with_capacity(9);
    let mut slot = [None; MAX_TUPLES];
    for (t, need) in needs.iter().enumerate() {
        if let FauNeed::Consts(c) = need
            && c.len() == 2
        {
            let v = merge(c[0], c[1]);
            slot[t] = Some(match pairs.iter().position(|&p| p == v) {
                Some(i) => i,
                None => {
                    pairs.push(v);
                    pairs.len() - 1
                }
            });
        }
    }
    let mut pending: Option<u32> = None;
    let mut pending_users: Vec<usize> = Vec::new();
    for (t, need) in needs.iter().enumerate() {
        let FauNeed::Consts(c) = need else { continue };
        if c.len() != 1 {
            continue;
        }
        let v = c[0];
        if let Some(i) = pairs
            .iter()
            .position(|&p| p as u32 == v || (p >> 32) as u32 == v)
        {
            slot[t] = Some(i);
            continue;
        }
        let idx = pairs.len();
        match pending {
            Some(p) if p != v => {
                pairs.push(merge(p, v));
                pending = None;
                slot[t] = Some(idx);
                for u in pending_users.drain(..) {
                    slot[u] = Some(idx);
                }
            }
            _ => {
                pending = Some(v);
                pending_users.push(t);
            }
        }
    }
    if let Some(p) = pending {
        let idx = pairs.len();
        pairs.push(u64::from(p) << 32);
        for u in pending_users.drain(..) {
            slot[u] = Some(idx);
        }
    }
    let packed = matches!(n, 3 | 5 | 6 | 8);
    let count = pairs.len();
    if count > max_constants(n) {
        return None;
    }
    pairs.resize(count.max(9), 0);
    let mut i = usize::from(packed);
    while i < count {
        let last = i + 1 == count;
        let m1 = (16 + top(pairs[i]) - top(pairs[i + 1])) & 0xf;
        let mut swap = m1 != 0 && m1 < 8;
        if last && swap {
            pairs[i + 1] |= pairs[i] & (0xf << 60);
            swap = false;
        }
        if swap {
            pairs.swap(i, i + 1);
            for s in slot.iter_mut().flatten() {
                if *s == i {
                    *s = i + 1;
                } else if *s == i + 1 {
                    *s = i;
                }
            }
        }
        i += 2;
    }
    let count = if packed { count.max(1) } else { count };
    let quads = (count - usize::from(packed)).div_ceil(2);
    pairs.truncate(usize::from(packed) + 2 * quads);
    Some(ConstLayout { pairs, slot })
}

/// Some comparison encodings exist only with the sources in one order
/// (the table orders them by selector): try the mirrored comparison too.
/// The fields and their instruction word (`encode_instr`), shared.
type Built = (Rc<InstrFields>, u32);

/// The fields and their instruction word (`encode_instr`).
fn build_fields(op: &Op, sel: &[u8]) -> Result<Built, CompileError> {
    use rustc_hash::FxHashMap;
    use std::cell::RefCell;
    type Key = (Op, [u8; 4]);
    thread_local! {
        // The same op with the same selectors always gets the same fields:
        // the matching rows are scanned once per thread.
        static CACHE: RefCell<FxHashMap<Key, Built>> = RefCell::new(FxHashMap::default());
    }
    let fresh = || build_fields_uncached(op, sel).map(|(f, w)| (Rc::new(f), w));
    if sel.len() > 4 {
        return fresh();
    }
    let mut key_sel = [u8::MAX; 4];
    key_sel[..sel.len()].copy_from_slice(sel);
    let key = (*op, key_sel);
    if let Some(f) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(f);
    }
    let f = fresh()?;
    CACHE.with(|c| c.borrow_mut().insert(key, f.clone()));
    Ok(f)
}

/// Whether `build_fields_exact(op, sel)` succeeds (memoised per thread:
/// the scheduler asks for candidate tuples reading three registers).
fn encodes_exactly(op: &Op, sel: &[u8]) -> bool {
    use rustc_hash::FxHashMap;
    use std::cell::RefCell;
    thread_local! {
        static CACHE: RefCell<FxHashMap<(Op, [u8; 4]), bool>> =
            RefCell::new(FxHashMap::default());
    }
    if sel.len() > 4 {
        return build_fields_exact(op, sel).is_ok();
    }
    let mut key_sel = [u8::MAX; 4];
    key_sel[..sel.len()].copy_from_slice(sel);
    let key = (*op, key_sel);
    if let Some(ok) = CACHE.with(|c| c.borrow().get(&key).copied()) {
        return ok;
    }
    let ok = build_fields_exact(op, sel).is_ok();
    CACHE.with(|c| c.borrow_mut().insert(key, ok));
    ok
}

fn build_fields_uncached(op: &Op, sel: &[u8]) -> Result<(InstrFields, u32), CompileError> {
    let first = build_fields_exact(op, sel);
    if first.is_ok() {
        return first;
    }
    let mirrored = match *op {
        Op::Icmp { ty, cmp } => Some(Op::Icmp {
            ty,
            cmp: cmp.mirrored(),
        }),
        Op::Fcmp { cmp } => Some(Op::Fcmp {
            cmp: cmp.mirrored(),
        }),
        _ => None,
    };
    match mirrored {
        Some(m) if sel.len() == 2 => build_fields_exact(&m, &[sel[1], sel[0]]).or(first),
        _ => first,
    }
}

fn build_fields_exact(op: &Op, sel: &[u8]) -> Result<(InstrFields, u32), CompileError> {
    let mut last_err = None;
    for row in variants(op.unit(), op.name()) {
        let mut f = InstrFields::new(row, sel);
        let mut ok = true;
        for (m, v) in op.modifiers() {
            // A default ("none") a row does not have is no constraint.
            let missing = !row.mods.iter().any(|x| x.name == m);
            if !(f.set_modifier(m, v) || missing && v == "none") {
                ok = false;
            }
        }
        let imm: &[(&str, u8)] = match op {
            Op::LdAttrImm { index, .. } | Op::LeaAttrImm { index } => {
                &[("attribute_index", *index)]
            }
            Op::LdVarImm { index, .. } | Op::LdVarFlatImm { index, .. } => &[("index", *index)],
            Op::TexsF32 {
                texture, sampler, ..
            } => &[("texture_index", *texture), ("sampler_index", *sampler)],
            _ => &[],
        };
        for &(name, index) in imm {
            match row.immediates.iter().position(|i| i.name == name) {
                Some(i) => f.imms[i] = u32::from(index),
                None => ok = false,
            }
        }
        if !ok {
            continue;
        }
        match encode_instr(&f) {
            Ok(word) => return Ok((f, word)),
            Err(e) => last_err = Some(e.to_string()),
        }
    }
    Err(CompileError::Encode(format!(
        "{}: {}",
        op.name(),
        last_err.unwrap_or_else(|| "no table row".into())
    )))
}

fn nop(unit: Unit) -> Result<Built, CompileError> {
    use std::cell::RefCell;
    thread_local! {
        // Per unit (FMA, ADD).
        static CACHE: RefCell<[Option<Built>; 2]> = const { RefCell::new([None, None]) };
    }
    let k = usize::from(unit == Unit::Add);
    if let Some(b) = CACHE.with(|c| c.borrow()[k].clone()) {
        return Ok(b);
    }
    let f = variants(unit, "NOP")
        .next()
        .map(|r| InstrFields::new(r, &[]))
        .ok_or_else(|| CompileError::Encode("no NOP row".into()))?;
    let word = encode_instr(&f).map_err(|e| CompileError::Encode(e.to_string()))?;
    let b = (Rc::new(f), word);
    CACHE.with(|c| c.borrow_mut()[k] = Some(b.clone()));
    Ok(b)
}

/// Builds the neutral form of a clause; `branch_offset` is the byte offset
/// from this clause to its branch target.
pub fn build_clause(c: &SClause, branch_offset: i64) -> Result<DecodedClause, CompileError> {
    let p = pack_clause(c, branch_offset)?;
    let tuples = p
        .tuples
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let instr = |b: &Built| HwInstr {
                fields: (*b.0).clone(),
                srcs: vec![],
                dest: None,
            };
            Ok(Tuple {
                regs: t.regs,
                ports: t
                    .regs
                    .ports(i == 0)
                    .ok_or_else(|| CompileError::Encode("reserved register mode".into()))?,
                fma: instr(&t.instrs[0]),
                add: instr(&t.instrs[1]),
            })
        })
        .collect::<Result<Vec<_>, CompileError>>()?;
    let mut clause = DecodedClause {
        header: c.header,
        tuples,
        constants: p.constants,
        const_mods: vec![],
        m_field: p.m_field,
    };
    rebuild_views(&mut clause).map_err(|e| CompileError::Encode(e.to_string()))?;
    Ok(clause)
}

/// A tuple as packed: its register block and, per unit, the fields and
/// instruction word.
struct PackedTuple {
    regs: RegBlock,
    instrs: [Built; 2],
}

/// A clause's stored parts (without the decoded views `build_clause`
/// derives).
struct PackedClause {
    tuples: Vec<PackedTuple>,
    /// Embedded constants, low 4 bits clear (they are in the FAU indices).
    constants: Vec<u64>,
    m_field: u16,
    /// A branch clause's one 32-bit constant, the low half of the branch
    /// offset's pair (0 when it has none).
    branch_low: u32,
}

impl PackedClause {
    /// Appends the clause's bytes to `out`.
    fn encode_into(&self, header: &ClauseHeader, out: &mut Vec<u8>) -> Result<(), CompileError> {
        let n = self.tuples.len();
        if n > MAX_TUPLES {
            return Err(CompileError::Encode(format!("{n} tuples in a clause")));
        }
        let mut parts = [(RegBlock::default(), [0u32; 2]); MAX_TUPLES];
        for (p, t) in parts.iter_mut().zip(&self.tuples) {
            *p = (t.regs, [t.instrs[0].1, t.instrs[1].1]);
        }
        encode_clause_parts_into(header, &parts[..n], &self.constants, self.m_field, out)
            .map_err(|e| CompileError::Encode(e.to_string()))
    }

    /// Instructions that are not NOPs (`DecodedClause::instruction_count`).
    fn instruction_count(&self) -> usize {
        self.tuples
            .iter()
            .flat_map(|t| &t.instrs)
            .filter(|b| b.0.op.name != "NOP")
            .count()
    }
}

/// The embedded constants of a branch clause of `n` tuples, the slot its
/// tuples read and the format's M field: one pair, the offset in its high
/// half with M1 = 4 (PC-relative high) and the clause's one 32-bit
/// constant `low` (or 0) in its low half — Mesa's cs_ubo_push clause_0
/// holds `0x00000006` so beside its `BRANCHZ` — placed as Mesa's packer
/// does (and `asm` expects): in the packed first slot with the format's M
/// field 4 for 3 or 6 tuples, in the first quadword pair after the packed
/// slot for 5 or 8, else in a quadword of its own.
fn branch_constants(n: usize, branch_offset: i64, low: u32) -> (Vec<u64>, usize, u16) {
    let raw = ((branch_offset as u64) & 0x0fff_ffff) << 32 | (4u64 << 60) | u64::from(low);
    match n {
        // The format's M field marks it, not the constant's top bits.
        3 | 6 => (vec![raw & !(0xf << 60)], 0, 4),
        5 | 8 => (vec![0, raw, 0], 1, 0),
        _ => (vec![raw, 0], 0, 0),
    }
}

/// Plans, lays out the constants of and builds the fields of one clause.
fn pack_clause(c: &SClause, branch_offset: i64) -> Result<PackedClause, CompileError> {
    let n = c.tuples.len();
    if n > MAX_TUPLES {
        return Err(CompileError::Encode(format!("{n} tuples in a clause")));
    }
    // At most eight tuples: their plans and constant needs in place.
    let mut plans = [None::<TuplePlan>; MAX_TUPLES];
    let mut needs = [FauNeed::None; MAX_TUPLES];
    for (i, t) in c.tuples.iter().enumerate() {
        let prev = (i > 0).then(|| c.tuples[i - 1].writes());
        let writes = c.tuples[(i + n - 1) % n].writes();
        let planned = || {
            plan_tuple(t, prev, writes, i == 0).ok_or_else(|| {
                CompileError::Encode(format!("no register port assignment for tuple {i}"))
            })
        };
        // The scheduler's plan of a later tuple had the same inputs (its
        // predecessor's writes); debug builds check that it still holds.
        let plan = match t.plan {
            Some(p) if i > 0 => {
                debug_assert_eq!(Some(p), planned().ok(), "stale plan of tuple {i}");
                p
            }
            _ => planned()?,
        };
        plans[i] = Some(plan);
        needs[i] = plan.fau;
    }
    let needs = &needs[..n];
    let mut m_field = 0;
    let branch = needs.contains(&FauNeed::Branch);
    let mut branch_low = 0;
    let (constants, slots) = if branch {
        branch_low = branch_low_constant(needs)
            .ok_or_else(|| CompileError::Encode("constants beside a branch".into()))?;
        let (constants, slot, m) = branch_constants(n, branch_offset, branch_low);
        m_field = m;
        (constants, [Some(slot); MAX_TUPLES])
    } else {
        let l = layout_constants(needs, n)
            .ok_or_else(|| CompileError::Encode("too many constants in a clause".into()))?;
        (l.pairs, l.slot)
    };
    let mut tuples = Vec::with_capacity(n);
    for (i, (t, plan)) in c.tuples.iter().zip(plans.iter().flatten()).enumerate() {
        // The planned block with the FAU index now known.
        let mut regs = plan.regs;
        regs.fau_idx = match plan.fau {
            FauNeed::None => 0,
            FauNeed::Uniform(w) => 0x80 | w,
            FauNeed::Special(slot) => slot,
            FauNeed::Consts(_) | FauNeed::Branch => {
                let s = slots[i].unwrap_or(0);
                let bits = constant_fau_bits(s)
                    .ok_or_else(|| CompileError::Encode("constant slot out of range".into()))?;
                (bits << 4) | (constants[s] & 0xf) as u8
            }
        };
        let pair = slots[i].map(|s| constants[s]).unwrap_or(0);
        debug_assert_eq!(
            Some(regs),
            PortRequest {
                fau_idx: regs.fau_idx,
                ..plan.req
            }
            .pack(i == 0)
        );
        // The block must decode (`RegBlock::ports`, as `build_clause`'s
        // views and the decoder read it).
        if regs.ports(i == 0).is_none() {
            return Err(CompileError::Encode("reserved register mode".into()));
        }
        let mut built: [Option<Built>; 2] = [None, None];
        for (k, (ins, unit)) in [(&t.fma, Unit::Fma), (&t.add, Unit::Add)]
            .into_iter()
            .enumerate()
        {
            built[k] = Some(match ins {
                None => nop(unit)?,
                Some(ins) => {
                    // Embedded constants: the immediates planned at selector
                    // 4 (an FMA zero at 3 and a branch offset at 5 are not).
                    let mut sel = plan.sel[k];
                    // (A branch clause's constant is its pair's low half.)
                    let embedded = matches!(plan.fau, FauNeed::Consts(_)) && !branch;
                    for (j, s) in ins.encoded_srcs().iter().enumerate() {
                        if let Src::Imm(v) = *s
                            && sel[j] == 4
                            && embedded
                        {
                            sel[j] = if (pair >> 32) as u32 == v { 5 } else { 4 };
                        }
                    }
                    build_fields(&ins.op, &sel[..usize::from(plan.nsrc[k])])?
                }
            });
        }
        let [Some(fma), Some(add)] = built else {
            unreachable!("both units built above")
        };
        tuples.push(PackedTuple {
            regs,
            instrs: [fma, add],
        });
    }
    Ok(PackedClause {
        tuples,
        constants: constants.iter().map(|c| c & !0xf).collect(),
        m_field,
        branch_low,
    })
}

/// The one 32-bit constant a branch clause's tuples read besides the
/// branch offset (0 when none); `None` when they read more than one.
pub fn branch_low_constant(needs: &[FauNeed]) -> Option<u32> {
    let mut low = None;
    for need in needs {
        if let FauNeed::Consts(c) = need {
            for &v in c.iter() {
                match low {
                    None => low = Some(v),
                    Some(l) if l == v => {}
                    Some(_) => return None,
                }
            }
        }
    }
    Some(low.unwrap_or(0))
}

/// What [`encode_program`] counts of the clauses it encoded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodeCounts {
    pub clauses: u32,
    pub tuples: u32,
    /// Instructions that are not NOPs.
    pub instructions: u32,
    /// Byte offset of each clause in the code, and of its end last.
    pub clause_offsets: Vec<usize>,
}

/// Encodes every clause, resolving branch targets (`block_clause[b]` is the
/// index of block `b`'s first clause), and appends the prefetch padding.
pub fn encode_program(
    clauses: &[SClause],
    block_clause: &[usize],
) -> Result<(Vec<u8>, CodeCounts), CompileError> {
    // Sizes do not depend on branch offsets: every clause is encoded once,
    // straight into the code; branch clauses are encoded again, with
    // their offsets in their constants (the one part of a packed clause the
    // offset changes: the pair's low nibble, in the FAU indices, is the
    // clause constant's whatever the offset), over their first bytes.
    let mut code = Vec::with_capacity(clauses.len() * 48 + 128);
    let mut offsets = Vec::with_capacity(clauses.len() + 1);
    let mut branches: Vec<(usize, PackedClause)> = Vec::new();
    let mut counts = CodeCounts {
        clauses: clauses.len() as u32,
        ..CodeCounts::default()
    };
    for (i, c) in clauses.iter().enumerate() {
        let p = pack_clause(c, 0)?;
        counts.tuples += p.tuples.len() as u32;
        counts.instructions += p.instruction_count() as u32;
        offsets.push(code.len());
        p.encode_into(&c.header, &mut code)?;
        if c.target.is_some() {
            branches.push((i, p));
        }
    }
    offsets.push(code.len());
    let mut again = Vec::new();
    for (i, mut p) in branches {
        let c = &clauses[i];
        let Some(b) = c.target else { continue };
        let t = block_clause.get(b).copied().unwrap_or(clauses.len());
        let rel = offsets[t.min(clauses.len())] as i64 - offsets[i] as i64;
        let (constants, _, _) = branch_constants(c.tuples.len(), rel, p.branch_low);
        p.constants = constants.iter().map(|c| c & !0xf).collect();
        debug_assert!(pack_clause(c, rel).is_ok_and(|q| q.constants == p.constants));
        again.clear();
        p.encode_into(&c.header, &mut again)?;
        let at = offsets[i]..offsets[i + 1];
        if again.len() != at.len() {
            return Err(CompileError::Encode(
                "a branch clause changed size with its offset".into(),
            ));
        }
        code[at].copy_from_slice(&again);
    }
    code.extend(std::iter::repeat_n(0u8, 128));
    counts.clause_offsets = offsets;
    Ok((code, counts))
}
