//! Instruction selection: the lowered, optimised IR → a [`Program`] of
//! basic blocks of backend [`Instr`]s on virtual registers.
//!
//! - Values are scalarised into 32-bit **lanes**: a component of 8–32 bits
//!   (only 32 supported) is one lane, a 64-bit component two (low, high).
//!   Constants and push uniforms stay operands ([`Src::Imm`],
//!   [`Src::Uniform`]); preloaded registers are read in place ([`Src::Phys`],
//!   the allocator never hands out r55–r63).
//! - Booleans are 32-bit 0 / all-ones (`ICMP`/`FCMP` `.m1`); stored to
//!   memory as 0/1 like the interpreter.
//! - 64-bit integer add/sub are 32-bit pairs with a carry from `ICMP.u32`.
//! - Structured control flow becomes blocks ending in [`Term`]s; `if`
//!   results, loop parameters and loop results are non-SSA virtual registers
//!   written by copies at the end of each branch / before each `continue`
//!   (through temporaries, so the copies behave as parallel copies).
//! - UBO/SSBO access by (set, binding) reads the binding's 64-bit base
//!   address from the FAU word after the push-uniform area (see `binary.rs`).
//!
//! Every source operand combination produced here is one instruction's worth
//! of FAU use (one 64-bit slot); anything beyond is copied into registers.
//! Anything unsupported is a [`CompileError`], never a panic.

use std::collections::BTreeMap;

use crate::compiler::inline_vec::InlineVec;
use crate::compiler::ir::{
    self, AluOp, AtomicOp, Intrinsic, Op as IrOp, Region, Shader, Stage, SysVal, Value,
};
use crate::hw::isa::Unit;

use super::CompileError;
use super::binary::{BUFFER_SIZE_WORD, Preloads, TEXTURE_SIZE_WORD, VaryingStore};
use super::ops::*;

mod alu;
mod atomics;
mod derivative;
mod float_math;
mod fragment;
mod image;
mod memory;
mod pack_unpack;
mod peephole;
mod program;
mod texture;
mod wide;

pub use program::{Block, Program, Term};

struct LoopCtx {
    header: usize,
    exit: usize,
    params: Vec<Vec<Reg>>,
    results: Vec<Vec<Reg>>,
}

struct Isel<'a> {
    s: &'a Shader,
    /// Blocks by creation id; `order` is the layout.
    blocks: Vec<Block>,
    order: Vec<usize>,
    cur: usize,
    /// The lanes of every value defined so far, by value index.
    vals: Vec<Option<SrcList>>,
    vreg_sizes: Vec<u8>,
    loops: Vec<LoopCtx>,
    preloads: Preloads,
    uniform_base: u32,
    buffers: Vec<(u32, u32)>,
    /// `Options::ubo_table`, and the table's entries so far.
    ubo_table: bool,
    ubos: Vec<(u32, u32)>,
    uses_barrier: bool,
    attribute_count: u32,
    /// Output index → 32-bit words its `store_output`s write.
    varyings: BTreeMap<u32, u8>,
    /// Every value some instruction reads (an atomic whose old value is not
    /// among them uses the non-returning form).
    used: ValueSet,
    /// Fragment shaders: inputs, built-ins and outputs seen.
    frag: fragment::FragState,
    /// By virtual register: the 32-bit lane an `ine x, 0` result in that
    /// register tests (a branch or `MUX` reads `x` itself: both test for
    /// zero).
    nonzero: Vec<Option<Src>>,
    /// Uniform words copied into registers in the current block (a 64-bit
    /// address plus a constant needs the uniform and the constant in one
    /// instruction, which the FAU port cannot give).
    uniform_regs: Vec<(Src, Src)>,
    /// The target (cross-lane instructions differ between v6 and v7).
    arch: super::Arch,
}

/// A set of values as a dense bit per value index (ids are dense after
/// `compact_values`).
struct ValueSet(Vec<bool>);

impl ValueSet {
    fn insert(&mut self, v: Value) {
        if v.index() >= self.0.len() {
            self.0.resize(v.index() + 1, false);
        }
        self.0[v.index()] = true;
    }

    fn contains(&self, v: &Value) -> bool {
        self.0.get(v.index()).copied().unwrap_or(false)
    }
}

fn unsupported(what: impl Into<String>) -> CompileError {
    CompileError::Unsupported(what.into())
}

/// Lanes per component of a type.
/// 8- and 16-bit values (only loaded and widened) are one zero-extended lane.
fn lanes_per_comp(ty: ir::ValueType) -> Result<usize, CompileError> {
    match ty.bits {
        1 | 8 | 16 | 32 => Ok(1),
        64 => Ok(2),
        b => Err(unsupported(format!("{b}-bit values"))),
    }
}

const ZERO: Src = Src::Imm(0);

/// Instruction selection for an architecture: v7 fragment shaders read
/// their first varyings from message preloads (`isel/fragment.rs`), and
/// derivatives differ (`isel/derivative.rs`); everything else is the same
/// code on v6 and v7.
pub fn select(s: &Shader, options: &super::Options) -> Result<Program, CompileError> {
    let (push_uniform_words, arch) = (options.push_uniform_words, options.arch);
    // The push-uniform area is `push_uniform_words` long (or, if not given,
    // every word `load_uniform` reads); buffer addresses follow it.
    // Words read: one past the highest word any `load_uniform` touches (a
    // plain maximum: an `Option` here compiled to a conditional move on
    // its uninitialised payload, which valgrind reports).
    let mut read_words = 0u32;
    s.body.for_each_instr(&mut |i| {
        if let IrOp::Intrinsic(ir::OpIntrinsic {
            kind: Intrinsic::LoadUniform { offset },
            ..
        }) = &i.op
        {
            let bytes = i.dsts.first().map(|d| s.ty(*d).byte_size()).unwrap_or(4);
            let last = (offset + bytes.max(1) - 1) / 8;
            read_words = read_words.max(last + 1);
        }
    });
    let mut used = ValueSet(vec![false; s.values.len()]);
    s.body.for_each_instr(&mut |i| {
        for &v in i.srcs() {
            used.insert(v);
        }
    });
    let uniform_base = match push_uniform_words {
        Some(n) if n < read_words => {
            return Err(CompileError::Unsupported(format!(
                "load_uniform reads word {} beyond the {n}-word push-uniform area",
                read_words - 1
            )));
        }
        Some(n) => n,
        None => read_words,
    };
    let mut isel = Isel {
        s,
        // Room for about two machine instructions per top-level IR one
        // (the entry block gets most of them): fewer regrowths.
        blocks: vec![Block {
            instrs: Vec::with_capacity(2 * s.body.instrs.len()),
            term: Term::Fall,
        }],
        order: vec![0],
        cur: 0,
        vals: vec![None; s.values.len()],
        vreg_sizes: Vec::new(),
        loops: Vec::new(),
        preloads: Preloads::default(),
        uniform_base,
        buffers: Vec::new(),
        ubo_table: options.ubo_table,
        ubos: Vec::new(),
        uses_barrier: false,
        attribute_count: 0,
        varyings: BTreeMap::new(),
        used,
        frag: fragment::FragState::default(),
        nonzero: Vec::new(),
        uniform_regs: Vec::new(),
        arch,
    };
    if s.stage == Stage::Fragment && arch == super::Arch::V7 {
        isel.frag.messages = fragment::plan_message_preloads(s);
    }
    if s.stage == Stage::Fragment && fragment::stores_output_nested(&s.body) {
        return Err(unsupported(
            "a fragment output stored under control flow (outputs are sent once, at the end)",
        ));
    }
    isel.region(&s.body)?;
    let fragment = if s.stage == Stage::Fragment {
        Some(isel.fragment_epilogue()?)
    } else {
        None
    };
    let last = isel.cur;
    isel.blocks[last].term = Term::End;
    // Renumber blocks in layout order.
    let mut new_id = vec![0usize; isel.blocks.len()];
    for (pos, &id) in isel.order.iter().enumerate() {
        new_id[id] = pos;
    }
    let mut old: Vec<Option<Block>> = isel.blocks.into_iter().map(Some).collect();
    let mut blocks = Vec::with_capacity(isel.order.len());
    for &id in &isel.order {
        let mut b = old[id].take().expect("each block laid out once");
        b.term = match b.term {
            Term::Jump(t) => Term::Jump(new_id[t]),
            Term::BranchZ(c, t) => Term::BranchZ(c, new_id[t]),
            t => t,
        };
        blocks.push(b);
    }
    // A jump forward over nothing but empty blocks that fall through (the
    // then-branch of an `if` without else) falls through instead: no
    // branch clause for it.
    for i in 0..blocks.len() {
        if let Term::Jump(t) = blocks[i].term
            && t > i
            && blocks[i + 1..t]
                .iter()
                .all(|b| b.instrs.is_empty() && b.term == Term::Fall)
        {
            blocks[i].term = Term::Fall;
        }
    }
    // A block laid out last that falls through ends the shader.
    if let Some(b) = blocks.last_mut()
        && b.term == Term::Fall
    {
        b.term = Term::End;
    }
    let mut program = Program {
        blocks,
        vreg_sizes: isel.vreg_sizes,
        preloads: isel.preloads,
        uniform_words: isel.uniform_base + isel.buffers.len() as u32,
        uses_barrier: isel.uses_barrier,
        attribute_count: isel.attribute_count,
        buffers: isel.buffers,
        ubos: isel.ubos,
        varyings: isel
            .varyings
            .iter()
            .map(|(&index, &words)| VaryingStore { index, words })
            .collect(),
        // BLEND writes r48 (see `Op::Blend`): nothing may live there; the
        // message preloads' registers are read in place.
        reserved: match &fragment {
            Some(f) => (0..f.messages.len()).fold(1 << 48, |r, i| r | 0xf << (4 * i)),
            None => 0,
        },
        fragment,
        return_register: None,
    };
    peephole::run(&mut program);
    Ok(program)
}

impl Isel<'_> {
    fn new_vreg(&mut self, size: u8) -> u32 {
        self.vreg_sizes.push(size);
        self.vreg_sizes.len() as u32 - 1
    }

    fn new_reg(&mut self) -> Reg {
        Reg {
            index: self.new_vreg(1),
            comp: 0,
        }
    }

    fn new_block(&mut self) -> usize {
        self.blocks.push(Block {
            instrs: Vec::with_capacity(16),
            term: Term::Fall,
        });
        self.blocks.len() - 1
    }

    fn start_block(&mut self, b: usize) {
        self.order.push(b);
        self.cur = b;
        self.uniform_regs.clear();
    }

    /// A register holding uniform `u`, copied once per block.
    fn uniform_in_reg(&mut self, u: Src) -> Src {
        if let Some(&(_, r)) = self.uniform_regs.iter().find(|(k, _)| *k == u) {
            return r;
        }
        let r = self.in_reg(u);
        self.uniform_regs.push((u, r));
        r
    }

    fn push(&mut self, i: Instr) {
        self.blocks[self.cur].instrs.push(i);
    }

    fn src(&self, v: Value) -> Result<SrcList, CompileError> {
        self.vals
            .get(v.index())
            .and_then(|l| l.clone())
            .ok_or_else(|| CompileError::Malformed(format!("{v} used before definition")))
    }

    /// Emit `op` writing a fresh register; FAU operands are legalised first.
    /// An integer op on immediates only is folded into an immediate
    /// ([`Op::fold`], the semantics `backend_sim.rs` checks every op
    /// variant against on the simulated core), and a `MUX` on an immediate
    /// condition is the source it selects: division by a constant and the
    /// 64-bit helpers meet both (`x / 7` compares 7 with 0).
    fn emit(&mut self, op: Op, srcs: &[Src]) -> Src {
        if let Some(s) = fold_immediates(op, srcs) {
            return s;
        }
        let d = self.new_reg();
        self.emit_to(op, Dst::Reg(d), srcs);
        Src::Reg(d)
    }

    fn emit_to(&mut self, op: Op, dst: Dst, srcs: &[Src]) {
        let srcs = self.legalize(op, srcs);
        self.push(Instr::new(op, Some(dst), srcs));
    }

    fn mov_to(&mut self, dst: Reg, src: Src, partial: bool) {
        let mut i = Instr::new(Op::MovI32, Some(Dst::Reg(dst)), [src]);
        i.partial = partial;
        self.push(i);
    }

    /// What a branch or `MUX` may test for zero instead of boolean `c`:
    /// `x` for `c = ine x, 0` (the compare is then often unread and
    /// dropped by `peephole`).
    fn truth(&self, c: Src) -> Src {
        match c {
            Src::Reg(r) => self
                .nonzero
                .get(r.index as usize)
                .copied()
                .flatten()
                .unwrap_or(c),
            _ => c,
        }
    }

    /// A register holding `s`.
    fn in_reg(&mut self, s: Src) -> Src {
        match s {
            Src::Reg(_) | Src::Phys(_) => s,
            _ => self.emit(Op::MovI32, &[s]),
        }
    }

    /// Keep at most one 64-bit FAU slot per instruction ([`FauUse`]);
    /// operands beyond it are copied into registers.
    fn legalize(&mut self, op: Op, srcs: &[Src]) -> SrcList {
        let mut fau = FauUse::new(op);
        let mut out = SrcList::new();
        for &s in srcs {
            out.push(if fau.admit(s) { s } else { self.in_reg(s) });
        }
        out
    }

    fn region(&mut self, r: &Region) -> Result<(), CompileError> {
        for i in &r.instrs {
            self.instr(i)?;
        }
        Ok(())
    }

    fn define(&mut self, v: Value, lanes: impl Into<SrcList>) {
        if v.index() >= self.vals.len() {
            self.vals.resize(v.index() + 1, None);
        }
        self.vals[v.index()] = Some(lanes.into());
    }

    /// Fresh registers for every lane of a list of values (if/loop results).
    fn lane_regs(&mut self, vals: &[Value]) -> Result<Vec<Vec<Reg>>, CompileError> {
        vals.iter()
            .map(|v| {
                let ty = self.s.ty(*v);
                let n = lanes_per_comp(ty)? * ty.comps as usize;
                Ok((0..n).map(|_| self.new_reg()).collect())
            })
            .collect()
    }

    /// Copy values into lane registers as a parallel copy. Only when a
    /// source register is also a destination (loop parameters passed on
    /// rotated: `continue`) do the copies go through temporaries; `if`
    /// results and loop results are fresh registers no source reads.
    fn copy_values(&mut self, dsts: &[Vec<Reg>], vals: &[Value]) -> Result<(), CompileError> {
        let mut pairs = Vec::new();
        for (d, v) in dsts.iter().zip(vals) {
            let lanes = self.src(*v)?;
            if lanes.len() != d.len() {
                return Err(CompileError::Malformed("copy of mismatched types".into()));
            }
            pairs.extend(d.iter().copied().zip(lanes.iter().copied()));
        }
        let overlap = pairs.iter().any(|(_, s)| match s {
            Src::Reg(r) => pairs.iter().any(|(d, _)| d.index == r.index),
            _ => false,
        });
        if !overlap {
            for (d, s) in pairs {
                self.mov_to(d, s, false);
            }
            return Ok(());
        }
        let mut temps = Vec::new();
        for (dr, s) in pairs {
            // Sources that are not registers cannot be overwritten by the copies.
            if matches!(s, Src::Reg(_)) {
                let t = self.new_reg();
                self.mov_to(t, s, false);
                temps.push((dr, Src::Reg(t)));
            } else {
                temps.push((dr, s));
            }
        }
        for (d, s) in temps {
            self.mov_to(d, s, false);
        }
        Ok(())
    }

    fn instr(&mut self, i: &ir::Instr) -> Result<(), CompileError> {
        let dst = i.dsts.first().copied();
        match &i.op {
            IrOp::Const(c) => {
                let d = dst.ok_or_else(|| CompileError::Malformed("const without dst".into()))?;
                let ty = self.s.ty(d);
                let mut lanes = Vec::new();
                for &v in &c.values {
                    match ty.bits {
                        1 => lanes.push(Src::Imm(if v != 0 { u32::MAX } else { 0 })),
                        8 | 16 => lanes.push(Src::Imm(v as u32)),
                        32 => lanes.push(Src::Imm(v as u32)),
                        64 => {
                            lanes.push(Src::Imm(v as u32));
                            lanes.push(Src::Imm((v >> 32) as u32));
                        }
                        b => return Err(unsupported(format!("{b}-bit constants"))),
                    }
                }
                self.define(d, lanes);
            }
            IrOp::Undef => {
                let d = dst.ok_or_else(|| CompileError::Malformed("undef without dst".into()))?;
                let ty = self.s.ty(d);
                let n = lanes_per_comp(ty)? * ty.comps as usize;
                self.define(d, std::iter::repeat_n(ZERO, n).collect::<SrcList>());
            }
            IrOp::Vec(v) => {
                let mut lanes = Vec::new();
                for s in &v.srcs {
                    lanes.extend(self.src(*s)?);
                }
                if let Some(d) = dst {
                    self.define(d, lanes);
                }
            }
            IrOp::Swizzle(sw) => {
                let src = self.src(sw.src)?;
                let per = lanes_per_comp(self.s.ty(sw.src))?;
                let mut lanes = Vec::new();
                for &c in &sw.comps {
                    let c = c as usize * per;
                    lanes.extend(
                        src.get(c..c + per).ok_or_else(|| {
                            CompileError::Malformed("swizzle out of range".into())
                        })?,
                    );
                }
                if let Some(d) = dst {
                    self.define(d, lanes);
                }
            }
            IrOp::Alu(a) => {
                let d = dst.ok_or_else(|| CompileError::Malformed("alu without dst".into()))?;
                let lanes = self.alu(a.op, d, &a.srcs)?;
                if a.op == AluOp::Ine && lanes.len() == 1 && self.s.ty(a.srcs[0]).bits == 32 {
                    let (x, y) = (self.src(a.srcs[0])?[0], self.src(a.srcs[1])?[0]);
                    if let ((v, Src::Imm(0)) | (Src::Imm(0), v), Src::Reg(r)) = ((x, y), lanes[0]) {
                        let i = r.index as usize;
                        if i >= self.nonzero.len() {
                            self.nonzero.resize(i + 1, None);
                        }
                        self.nonzero[i] = Some(v);
                    }
                }
                self.define(d, lanes);
            }
            IrOp::Intrinsic(intr) => self.intrinsic(intr, dst)?,
            IrOp::If(f) => {
                let results = self.lane_regs(&i.dsts)?;
                let cond = self.src(f.cond)?[0];
                let cond = self.truth(cond);
                let cond = self.in_reg(cond);
                let then_b = self.new_block();
                let else_b = self.new_block();
                let join = self.new_block();
                self.blocks[self.cur].term = Term::BranchZ(cond, else_b);
                self.start_block(then_b);
                self.region(&f.then_region)?;
                if !f.then_region.diverges() {
                    if let Some(y) = ir_yield(&f.then_region) {
                        self.copy_values(&results, y)?;
                    }
                    self.blocks[self.cur].term = Term::Jump(join);
                }
                self.start_block(else_b);
                self.region(&f.else_region)?;
                if !f.else_region.diverges()
                    && let Some(y) = ir_yield(&f.else_region)
                {
                    self.copy_values(&results, y)?;
                }
                self.start_block(join);
                for (d, regs) in i.dsts.iter().zip(results) {
                    self.define(*d, regs.into_iter().map(Src::Reg).collect::<SrcList>());
                }
            }
            IrOp::Loop(l) => {
                let params = self.lane_regs(&l.params)?;
                let results = self.lane_regs(&i.dsts)?;
                self.copy_values(&params, &l.inits)?;
                for (p, regs) in l.params.iter().zip(&params) {
                    self.define(*p, regs.iter().copied().map(Src::Reg).collect::<SrcList>());
                }
                let header = self.new_block();
                let exit = self.new_block();
                self.start_block(header);
                self.loops.push(LoopCtx {
                    header,
                    exit,
                    params,
                    results: results.clone(),
                });
                self.region(&l.body)?;
                self.loops.pop();
                self.start_block(exit);
                for (d, regs) in i.dsts.iter().zip(results) {
                    self.define(*d, regs.into_iter().map(Src::Reg).collect::<SrcList>());
                }
            }
            IrOp::Yield(_) => {} // handled by the enclosing `if`
            IrOp::Break(v) | IrOp::Continue(v) => {
                let is_break = matches!(i.op, IrOp::Break(_));
                let ctx = self.loops.last().ok_or_else(|| {
                    CompileError::Malformed("break/continue outside a loop".into())
                })?;
                let (regs, target) = if is_break {
                    (ctx.results.clone(), ctx.exit)
                } else {
                    (ctx.params.clone(), ctx.header)
                };
                self.copy_values(&regs, &v.values)?;
                self.blocks[self.cur].term = Term::Jump(target);
            }
        }
        Ok(())
    }
}

/// One instruction's use of the FAU port: the first uniform word, or up to
/// two distinct immediates (`#0` is free on the FMA unit).
struct FauUse {
    fma: bool,
    word: Option<u8>,
    imms: InlineVec<u32, 2>,
}

impl FauUse {
    fn new(op: Op) -> FauUse {
        FauUse {
            fma: op.unit() == Unit::Fma,
            word: None,
            imms: InlineVec::new(),
        }
    }

    /// Whether source `s` can be read in place next to those admitted so
    /// far (it is then counted).
    fn admit(&mut self, s: Src) -> bool {
        match s {
            Src::Imm(0) if self.fma => true,
            Src::Imm(v) => {
                if self.word.is_none() && (self.imms.contains(&v) || self.imms.len() < 2) {
                    if !self.imms.contains(&v) {
                        self.imms.push(v);
                    }
                    true
                } else {
                    false
                }
            }
            Src::Uniform { word: w, .. } => {
                if self.imms.is_empty() && self.word.is_none_or(|x| x == w) {
                    self.word = Some(w);
                    true
                } else {
                    false
                }
            }
            _ => true,
        }
    }
}

/// `op` on `srcs` as an operand without an instruction, if its result is
/// known at compile time (integer ops only: no float rounding question).
fn fold_immediates(op: Op, srcs: &[Src]) -> Option<Src> {
    match op {
        Op::MuxI32 => match srcs {
            [a, b, Src::Imm(c)] => Some(if *c == 0 { *a } else { *b }),
            _ => None,
        },
        Op::IaddS32
        | Op::IsubS32
        | Op::ImulI32
        | Op::IabsS32
        | Op::Shift { .. }
        | Op::ArshiftI32
        | Op::Icmp { .. }
        | Op::CselI32Eq => {
            let mut vals: InlineVec<u32, 4> = InlineVec::new();
            for s in srcs {
                match s {
                    Src::Imm(v) => vals.push(*v),
                    _ => return None,
                }
            }
            op.fold(&vals).map(Src::Imm)
        }
        _ => None,
    }
}

/// The values a branch region yields, if it ends in `yield`.
fn ir_yield(r: &Region) -> Option<&[Value]> {
    match r.instrs.last().map(|i| &i.op) {
        Some(IrOp::Yield(v)) => Some(&v.values),
        _ => None,
    }
}
