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

use std::collections::{BTreeMap, HashMap};

use crate::compiler::ir::{
    self, AluOp, AtomicOp, Intrinsic, Op as IrOp, Region, Shader, Stage, SysVal, Value,
};
use crate::hw::isa::Unit;

use super::CompileError;
use super::binary::{Preloads, VaryingStore};
use super::ops::*;

mod atomics;
mod float_math;
mod pack_unpack;

/// How a block ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// Continue with the next block in layout order.
    Fall,
    /// Jump to a block.
    Jump(usize),
    /// Branch to a block if the source is zero, else fall through.
    BranchZ(Src, usize),
    /// End of the shader.
    End,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub instrs: Vec<Instr>,
    pub term: Term,
}

/// The selected program: blocks in layout order and virtual register sizes.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub blocks: Vec<Block>,
    /// Components of each virtual register (1..=4, contiguous when > 1).
    pub vreg_sizes: Vec<u8>,
    pub preloads: Preloads,
    /// 64-bit FAU words read (push-uniform area plus the buffer address table).
    pub uniform_words: u32,
    pub uses_barrier: bool,
    pub attribute_count: u32,
    /// (set, binding) of each buffer address FAU word, in order.
    pub buffers: Vec<(u32, u32)>,
    /// Varying records written (`store_output`), ascending.
    pub varyings: Vec<VaryingStore>,
}

impl Program {
    /// Successor blocks of block `b`.
    pub fn successors(&self, b: usize) -> Vec<usize> {
        let next = b + 1;
        match self.blocks[b].term {
            Term::Fall if next < self.blocks.len() => vec![next],
            Term::Fall | Term::End => vec![],
            Term::Jump(t) => vec![t],
            Term::BranchZ(_, t) if next < self.blocks.len() => vec![next, t],
            Term::BranchZ(_, t) => vec![t],
        }
    }
}

impl std::fmt::Display for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, b) in self.blocks.iter().enumerate() {
            writeln!(f, "block{i}:")?;
            for ins in &b.instrs {
                writeln!(f, "    {ins}")?;
            }
            writeln!(f, "    -> {:?}", b.term)?;
        }
        Ok(())
    }
}

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
    vals: HashMap<Value, Vec<Src>>,
    vreg_sizes: Vec<u8>,
    loops: Vec<LoopCtx>,
    preloads: Preloads,
    uniform_base: u32,
    buffers: Vec<(u32, u32)>,
    uses_barrier: bool,
    attribute_count: u32,
    /// Output index → 32-bit words its `store_output`s write.
    varyings: BTreeMap<u32, u8>,
    /// Every value some instruction reads (an atomic whose old value is not
    /// among them uses the non-returning form).
    used: std::collections::HashSet<Value>,
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

pub fn select(s: &Shader, push_uniform_words: Option<u32>) -> Result<Program, CompileError> {
    // The push-uniform area is `push_uniform_words` long (or, if not given,
    // every word `load_uniform` reads); buffer addresses follow it.
    let mut max_word = None::<u32>;
    s.body.for_each_instr(&mut |i| {
        if let IrOp::Intrinsic(ir::OpIntrinsic {
            kind: Intrinsic::LoadUniform { offset },
            ..
        }) = &i.op
        {
            let bytes = i.dsts.first().map(|d| s.ty(*d).byte_size()).unwrap_or(4);
            let last = (offset + bytes.max(1) - 1) / 8;
            max_word = Some(max_word.map_or(last, |m: u32| m.max(last)));
        }
    });
    let read_words = max_word.map_or(0, |m| m + 1);
    let mut used = std::collections::HashSet::new();
    s.body.for_each_instr(&mut |i| used.extend(i.srcs()));
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
        blocks: vec![Block {
            instrs: vec![],
            term: Term::Fall,
        }],
        order: vec![0],
        cur: 0,
        vals: HashMap::new(),
        vreg_sizes: Vec::new(),
        loops: Vec::new(),
        preloads: Preloads::default(),
        uniform_base,
        buffers: Vec::new(),
        uses_barrier: false,
        attribute_count: 0,
        varyings: BTreeMap::new(),
        used,
    };
    isel.region(&s.body)?;
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
    // A block laid out last that falls through ends the shader.
    if let Some(b) = blocks.last_mut()
        && b.term == Term::Fall
    {
        b.term = Term::End;
    }
    Ok(Program {
        blocks,
        vreg_sizes: isel.vreg_sizes,
        preloads: isel.preloads,
        uniform_words: isel.uniform_base + isel.buffers.len() as u32,
        uses_barrier: isel.uses_barrier,
        attribute_count: isel.attribute_count,
        buffers: isel.buffers,
        varyings: isel
            .varyings
            .iter()
            .map(|(&index, &words)| VaryingStore { index, words })
            .collect(),
    })
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
            instrs: vec![],
            term: Term::Fall,
        });
        self.blocks.len() - 1
    }

    fn start_block(&mut self, b: usize) {
        self.order.push(b);
        self.cur = b;
    }

    fn push(&mut self, i: Instr) {
        self.blocks[self.cur].instrs.push(i);
    }

    fn src(&self, v: Value) -> Result<Vec<Src>, CompileError> {
        self.vals
            .get(&v)
            .cloned()
            .ok_or_else(|| CompileError::Malformed(format!("{v} used before definition")))
    }

    /// Emit `op` writing a fresh register; FAU operands are legalised first.
    fn emit(&mut self, op: Op, srcs: &[Src]) -> Src {
        let d = self.new_reg();
        self.emit_to(op, Dst::Reg(d), srcs);
        Src::Reg(d)
    }

    fn emit_to(&mut self, op: Op, dst: Dst, srcs: &[Src]) {
        let srcs = self.legalize(op, srcs);
        self.push(Instr::new(op, Some(dst), srcs));
    }

    fn mov_to(&mut self, dst: Reg, src: Src, partial: bool) {
        let mut i = Instr::new(Op::MovI32, Some(Dst::Reg(dst)), vec![src]);
        i.partial = partial;
        self.push(i);
    }

    /// A register holding `s`.
    fn in_reg(&mut self, s: Src) -> Src {
        match s {
            Src::Reg(_) | Src::Phys(_) => s,
            _ => self.emit(Op::MovI32, &[s]),
        }
    }

    /// Keep at most one 64-bit FAU slot per instruction: the first uniform
    /// word, or up to two distinct immediates (`#0` is free on the FMA unit).
    fn legalize(&mut self, op: Op, srcs: &[Src]) -> Vec<Src> {
        let fma = op.unit() == Unit::Fma;
        let mut word: Option<u8> = None;
        let mut imms: Vec<u32> = Vec::new();
        let mut out = Vec::with_capacity(srcs.len());
        for &s in srcs {
            let keep = match s {
                Src::Imm(0) if fma => true,
                Src::Imm(v) => {
                    if word.is_none() && (imms.contains(&v) || imms.len() < 2) {
                        if !imms.contains(&v) {
                            imms.push(v);
                        }
                        true
                    } else {
                        false
                    }
                }
                Src::Uniform { word: w, .. } => {
                    if imms.is_empty() && word.is_none_or(|x| x == w) {
                        word = Some(w);
                        true
                    } else {
                        false
                    }
                }
                _ => true,
            };
            out.push(if keep { s } else { self.in_reg(s) });
        }
        out
    }

    fn region(&mut self, r: &Region) -> Result<(), CompileError> {
        for i in &r.instrs {
            self.instr(i)?;
        }
        Ok(())
    }

    fn define(&mut self, v: Value, lanes: Vec<Src>) {
        self.vals.insert(v, lanes);
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

    /// Copy values into lane registers as a parallel copy.
    fn copy_values(&mut self, dsts: &[Vec<Reg>], vals: &[Value]) -> Result<(), CompileError> {
        let mut temps = Vec::new();
        for (d, v) in dsts.iter().zip(vals) {
            let lanes = self.src(*v)?;
            if lanes.len() != d.len() {
                return Err(CompileError::Malformed("copy of mismatched types".into()));
            }
            for (&dr, &s) in d.iter().zip(&lanes) {
                // Sources that are not registers cannot be overwritten by the copies.
                if matches!(s, Src::Reg(_)) {
                    let t = self.new_reg();
                    self.mov_to(t, s, false);
                    temps.push((dr, Src::Reg(t)));
                } else {
                    temps.push((dr, s));
                }
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
                self.define(d, vec![ZERO; n]);
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
                self.define(d, lanes);
            }
            IrOp::Intrinsic(intr) => self.intrinsic(intr, dst)?,
            IrOp::If(f) => {
                let results = self.lane_regs(&i.dsts)?;
                let cond = self.src(f.cond)?[0];
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
                    self.define(*d, regs.into_iter().map(Src::Reg).collect());
                }
            }
            IrOp::Loop(l) => {
                let params = self.lane_regs(&l.params)?;
                let results = self.lane_regs(&i.dsts)?;
                self.copy_values(&params, &l.inits)?;
                for (p, regs) in l.params.iter().zip(&params) {
                    self.define(*p, regs.iter().copied().map(Src::Reg).collect());
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
                    self.define(*d, regs.into_iter().map(Src::Reg).collect());
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

    fn alu(&mut self, op: AluOp, d: Value, srcs: &[Value]) -> Result<Vec<Src>, CompileError> {
        let dty = self.s.ty(d);
        let sty = srcs.first().map(|s| self.s.ty(*s)).unwrap_or(dty);
        let args: Vec<Vec<Src>> = srcs
            .iter()
            .map(|s| self.src(*s))
            .collect::<Result<_, _>>()?;
        if let Some(first) = args.first()
            && let Some(lanes) = self.pack_unpack(op, first)?
        {
            return Ok(lanes);
        }
        let comps = dty.comps as usize;
        let small = |b: u8| matches!(b, 8 | 16);
        if small(sty.bits) || small(dty.bits) {
            return self.small_convert(op, dty, sty, &args[0]);
        }
        if op == AluOp::Bitcast {
            // Same bits, regrouped: lanes are 32-bit either way.
            if !matches!(dty.bits, 32 | 64) || !matches!(sty.bits, 32 | 64) {
                return Err(unsupported(format!(
                    "bitcast {}-bit → {}-bit",
                    sty.bits, dty.bits
                )));
            }
            return Ok(args[0].clone());
        }
        // Lanes per component of each source.
        let per: Vec<usize> = srcs
            .iter()
            .map(|s| lanes_per_comp(self.s.ty(*s)))
            .collect::<Result<_, _>>()?;
        for (k, lanes) in args.iter().enumerate() {
            if lanes.len() < per[k] {
                return Err(CompileError::Malformed(format!(
                    "{}: source {k} has {} lanes, its type needs {}",
                    op.name(),
                    lanes.len(),
                    per[k]
                )));
            }
        }
        let mut out = Vec::new();
        for c in 0..comps {
            let a = |k: usize| -> Vec<Src> {
                let p = per[k];
                // Scalar sources broadcast (shift counts).
                let cc = if args[k].len() / p > c { c } else { 0 };
                args[k][cc * p..cc * p + p].to_vec()
            };
            out.extend(self.alu_comp(op, dty, sty, &a)?);
        }
        Ok(out)
    }

    /// Moves and integer conversions from or to 8/16-bit values, which
    /// live zero-extended in one 32-bit lane per component.
    fn small_convert(
        &mut self,
        op: AluOp,
        dty: ir::ValueType,
        sty: ir::ValueType,
        src: &[Src],
    ) -> Result<Vec<Src>, CompileError> {
        let per = lanes_per_comp(sty)?;
        let bad = || {
            unsupported(format!(
                "{} on {}-bit → {}-bit values",
                op.name(),
                sty.bits,
                dty.bits
            ))
        };
        let mut out = Vec::new();
        for c in 0..dty.comps as usize {
            let x = *src.get(c * per).ok_or_else(|| {
                CompileError::Malformed(format!("{}: source too short", op.name()))
            })?;
            match op {
                AluOp::Mov => out.push(x),
                // Widening: the lane is already zero-extended.
                AluOp::U2u if dty.bits > sty.bits => {
                    out.push(x);
                    if dty.bits == 64 {
                        out.push(ZERO);
                    }
                }
                AluOp::I2i if dty.bits > sty.bits => {
                    let k = Src::Imm(32 - u32::from(sty.bits));
                    let up = self.shift(ShiftOp::LshiftOr, x, ZERO, k);
                    let v = self.emit(Op::ArshiftI32, &[up, ZERO, k]);
                    out.push(v);
                    if dty.bits == 64 {
                        out.push(self.emit(Op::ArshiftI32, &[v, ZERO, Src::Imm(31)]));
                    }
                }
                // Truncation keeps the lane zero-extended.
                AluOp::I2i | AluOp::U2u if dty.bits < sty.bits => {
                    let m = Src::Imm((1u32 << dty.bits) - 1);
                    out.push(self.shift(ShiftOp::LshiftAnd, x, m, ZERO));
                }
                AluOp::I2i | AluOp::U2u => out.push(x),
                _ => return Err(bad()),
            }
        }
        Ok(out)
    }

    fn shift(&mut self, op: ShiftOp, a: Src, b: Src, s: Src) -> Src {
        self.emit(
            Op::Shift {
                op,
                not1: false,
                not_result: false,
            },
            &[a, b, s],
        )
    }

    /// Shift count modulo 32.
    fn shift_count(&mut self, s: Src) -> Src {
        match s {
            Src::Imm(v) => Src::Imm(v & 31),
            _ => self.shift(ShiftOp::LshiftAnd, s, Src::Imm(31), ZERO),
        }
    }

    fn fadd(&mut self, a: Src, b: Src, neg: [bool; 2]) -> Src {
        self.emit(
            Op::FaddF32 {
                neg,
                abs: [false; 2],
                clamp01: false,
            },
            &[a, b],
        )
    }

    fn icmp(&mut self, ty: IcmpType, cmp: Cmp, a: Src, b: Src) -> Src {
        self.emit(Op::Icmp { ty, cmp }, &[a, b])
    }

    fn mux(&mut self, if_zero: Src, if_nonzero: Src, c: Src) -> Src {
        self.emit(Op::MuxI32, &[if_zero, if_nonzero, c])
    }

    fn add64(&mut self, a: &[Src], b: &[Src]) -> Vec<Src> {
        if b[0] == ZERO {
            let hi = if b[1] == ZERO {
                a[1]
            } else {
                self.emit(Op::IaddS32, &[a[1], b[1]])
            };
            return vec![a[0], hi];
        }
        let lo = self.emit(Op::IaddS32, &[a[0], b[0]]);
        let carry = self.icmp(IcmpType::U32, Cmp::Gt, a[0], lo);
        let hi = if b[1] == ZERO {
            a[1]
        } else {
            self.emit(Op::IaddS32, &[a[1], b[1]])
        };
        let hi = self.emit(Op::IsubS32, &[hi, carry]);
        vec![lo, hi]
    }

    /// High 32 bits of the unsigned 64-bit product, from 16-bit halves.
    fn umul_high(&mut self, a: Src, b: Src) -> Src {
        let lo16 = |s: &mut Self, v: Src| match v {
            Src::Imm(c) => Src::Imm(c & 0xffff),
            _ => s.shift(ShiftOp::LshiftAnd, v, Src::Imm(0xffff), ZERO),
        };
        let hi16 = |s: &mut Self, v: Src| match v {
            Src::Imm(c) => Src::Imm(c >> 16),
            _ => s.shift(ShiftOp::RshiftOr, v, ZERO, Src::Imm(16)),
        };
        let (a0, a1, b0, b1) = (lo16(self, a), hi16(self, a), lo16(self, b), hi16(self, b));
        let mul = |s: &mut Self, x: Src, y: Src| {
            if x == ZERO || y == ZERO {
                ZERO
            } else {
                s.emit(Op::ImulI32, &[x, y])
            }
        };
        let p00 = mul(self, a0, b0);
        let p10 = mul(self, a1, b0);
        let p01 = mul(self, a0, b1);
        let p11 = mul(self, a1, b1);
        // t = (p00 >> 16) + (p10 & 0xffff) + (p01 & 0xffff)
        let t0 = hi16(self, p00);
        let t1 = lo16(self, p10);
        let t2 = lo16(self, p01);
        let t = self.emit(Op::IaddS32, &[t0, t1]);
        let t = self.emit(Op::IaddS32, &[t, t2]);
        // high = p11 + (p10 >> 16) + (p01 >> 16) + (t >> 16)
        let h1 = hi16(self, p10);
        let h2 = hi16(self, p01);
        let h3 = hi16(self, t);
        let h = self.emit(Op::IaddS32, &[p11, h1]);
        let h = self.emit(Op::IaddS32, &[h, h2]);
        self.emit(Op::IaddS32, &[h, h3])
    }

    fn mul64(&mut self, a: &[Src], b: &[Src]) -> Vec<Src> {
        let lo = self.emit(Op::ImulI32, &[a[0], b[0]]);
        let mut hi = self.umul_high(a[0], b[0]);
        if b[1] != ZERO {
            let c = self.emit(Op::ImulI32, &[a[0], b[1]]);
            hi = self.emit(Op::IaddS32, &[hi, c]);
        }
        if a[1] != ZERO {
            let c = self.emit(Op::ImulI32, &[a[1], b[0]]);
            hi = self.emit(Op::IaddS32, &[hi, c]);
        }
        vec![lo, hi]
    }

    /// Unsigned 32-bit division and remainder. Powers of two are shifts,
    /// other constants a multiply by their [`DivMagic`]; a divisor only
    /// known at run time is an unrolled restoring division (exact, integer
    /// only; x / 0 = all ones and x % 0 = x, as the IR defines them).
    fn udivmod(&mut self, x: Src, y: Src) -> (Src, Src) {
        if let Src::Imm(d) = y {
            if d == 0 {
                return (Src::Imm(u32::MAX), x);
            }
            if d.is_power_of_two() {
                let q = self.shift(ShiftOp::RshiftOr, x, ZERO, Src::Imm(d.trailing_zeros()));
                let r = self.shift(ShiftOp::LshiftAnd, x, Src::Imm(d - 1), ZERO);
                return (q, r);
            }
            let magic = DivMagic::new(d);
            let t = self.umul_high(x, Src::Imm(magic.multiplier));
            let q = if magic.add {
                // q = (((x - t) >> 1) + t) >> (shift - 1): the 33rd bit of
                // the multiplier without overflowing 32 bits.
                let diff = self.emit(Op::IsubS32, &[x, t]);
                let half = self.shift(ShiftOp::RshiftOr, diff, ZERO, Src::Imm(1));
                let sum = self.emit(Op::IaddS32, &[half, t]);
                self.shift(ShiftOp::RshiftOr, sum, ZERO, Src::Imm(magic.shift - 1))
            } else {
                self.shift(ShiftOp::RshiftOr, t, ZERO, Src::Imm(magic.shift))
            };
            let qd = self.emit(Op::ImulI32, &[q, Src::Imm(d)]);
            let r = self.emit(Op::IsubS32, &[x, qd]);
            return (q, r);
        }
        let y = self.in_reg(y);
        let mut q = ZERO;
        let mut r = ZERO;
        for i in (0..32).rev() {
            // r = (r << 1) | ((x >> i) & 1)
            let bit = self.emit(
                Op::Shift {
                    op: ShiftOp::RshiftAnd,
                    not1: false,
                    not_result: false,
                },
                &[x, Src::Imm(1), Src::Imm(i)],
            );
            r = if r == ZERO {
                bit
            } else {
                self.shift(ShiftOp::LshiftOr, r, bit, Src::Imm(1))
            };
            // if r >= y { r -= y; q |= 1 << i }
            let ge = self.icmp(IcmpType::U32, Cmp::Ge, r, y);
            let sub = self.emit(Op::IsubS32, &[r, y]);
            r = self.mux(r, sub, ge);
            q = if q == ZERO {
                self.emit(Op::IsubS32, &[ZERO, ge])
            } else {
                let q2 = self.shift(ShiftOp::LshiftOr, q, ZERO, Src::Imm(1));
                self.emit(Op::IsubS32, &[q2, ge])
            };
        }
        (q, r)
    }

    /// `a < b` on 64-bit pairs (all ones if true):
    /// `(hi < hi') | (hi == hi' & lo <u lo')`, the high halves compared
    /// signed when `signed`.
    fn lt64(&mut self, a: &[Src], b: &[Src], signed: bool) -> Src {
        let hty = if signed { IcmpType::S32 } else { IcmpType::U32 };
        let hlt = self.icmp(hty, Cmp::Lt, a[1], b[1]);
        let heq = self.icmp(IcmpType::I32, Cmp::Eq, a[1], b[1]);
        let llt = self.icmp(IcmpType::U32, Cmp::Lt, a[0], b[0]);
        let t = self.shift(ShiftOp::LshiftAnd, heq, llt, ZERO);
        self.shift(ShiftOp::LshiftOr, hlt, t, ZERO)
    }

    fn sub64(&mut self, a: &[Src], b: &[Src]) -> Vec<Src> {
        let lo = self.emit(Op::IsubS32, &[a[0], b[0]]);
        let borrow = self.icmp(IcmpType::U32, Cmp::Lt, a[0], b[0]);
        let hi = self.emit(Op::IsubS32, &[a[1], b[1]]);
        let hi = self.emit(Op::IaddS32, &[hi, borrow]);
        vec![lo, hi]
    }

    /// 64-bit shifts as 32-bit pairs; the count is taken modulo 64 (the
    /// IR's rule). Bifrost's shifts use byte 0 of the count and give 0 for
    /// 32..=255, so a "negative" count (32 - n for n > 32, n - 32 for n < 32)
    /// shifts everything out: the cross-word terms need no selects, except
    /// the arithmetic one (`ARSHIFT` saturates at 31 instead).
    fn shift64(&mut self, op: AluOp, x: &[Src], count: Src) -> Vec<Src> {
        let (lo, hi) = (x[0], x[1]);
        if let Src::Imm(c) = count {
            return self.shift64_const(op, lo, hi, c & 63);
        }
        let n = self.shift(ShiftOp::LshiftAnd, count, Src::Imm(63), ZERO);
        let up = self.emit(Op::IsubS32, &[Src::Imm(32), n]); // 32 - n
        let down = self.emit(Op::IaddS32, &[n, Src::Imm(32u32.wrapping_neg())]); // n - 32
        match op {
            AluOp::Ishl => {
                // hi' = (hi << n) | (lo >> (32 - n)) | (lo << (n - 32))
                let t = self.shift(ShiftOp::RshiftOr, lo, ZERO, up);
                let t = self.shift(ShiftOp::LshiftOr, lo, t, down);
                let h = self.shift(ShiftOp::LshiftOr, hi, t, n);
                let l = self.shift(ShiftOp::LshiftOr, lo, ZERO, n);
                vec![l, h]
            }
            AluOp::Ushr => {
                // lo' = (lo >> n) | (hi << (32 - n)) | (hi >> (n - 32))
                let t = self.shift(ShiftOp::LshiftOr, hi, ZERO, up);
                let t = self.shift(ShiftOp::RshiftOr, hi, t, down);
                let l = self.shift(ShiftOp::RshiftOr, lo, t, n);
                let h = self.shift(ShiftOp::RshiftOr, hi, ZERO, n);
                vec![l, h]
            }
            _ => {
                // n < 32: lo' = (lo >> n) | (hi << (32 - n)); else hi >>a (n - 32).
                let t = self.shift(ShiftOp::LshiftOr, hi, ZERO, up);
                let small = self.shift(ShiftOp::RshiftOr, lo, t, n);
                let big = self.emit(Op::ArshiftI32, &[hi, ZERO, down]);
                let ge32 = self.icmp(IcmpType::U32, Cmp::Ge, n, Src::Imm(32));
                let l = self.mux(small, big, ge32);
                let h = self.emit(Op::ArshiftI32, &[hi, ZERO, n]);
                vec![l, h]
            }
        }
    }

    /// A 64-bit shift by a constant `n` in 0..64.
    fn shift64_const(&mut self, op: AluOp, lo: Src, hi: Src, n: u32) -> Vec<Src> {
        if n == 0 {
            return vec![lo, hi];
        }
        let sign = |s: &mut Self| s.emit(Op::ArshiftI32, &[hi, ZERO, Src::Imm(31)]);
        match (op, n < 32) {
            (AluOp::Ishl, true) => {
                let t = self.shift(ShiftOp::RshiftOr, lo, ZERO, Src::Imm(32 - n));
                let h = self.shift(ShiftOp::LshiftOr, hi, t, Src::Imm(n));
                let l = self.shift(ShiftOp::LshiftOr, lo, ZERO, Src::Imm(n));
                vec![l, h]
            }
            (AluOp::Ishl, false) => {
                vec![
                    ZERO,
                    self.shift(ShiftOp::LshiftOr, lo, ZERO, Src::Imm(n - 32)),
                ]
            }
            (AluOp::Ushr, true) | (AluOp::Ishr, true) => {
                let t = self.shift(ShiftOp::LshiftOr, hi, ZERO, Src::Imm(32 - n));
                let l = self.shift(ShiftOp::RshiftOr, lo, t, Src::Imm(n));
                let h = if op == AluOp::Ushr {
                    self.shift(ShiftOp::RshiftOr, hi, ZERO, Src::Imm(n))
                } else {
                    self.emit(Op::ArshiftI32, &[hi, ZERO, Src::Imm(n)])
                };
                vec![l, h]
            }
            (AluOp::Ushr, false) => {
                vec![
                    self.shift(ShiftOp::RshiftOr, hi, ZERO, Src::Imm(n - 32)),
                    ZERO,
                ]
            }
            _ => {
                let l = self.emit(Op::ArshiftI32, &[hi, ZERO, Src::Imm(n - 32)]);
                vec![l, sign(self)]
            }
        }
    }

    fn alu_comp(
        &mut self,
        op: AluOp,
        dty: ir::ValueType,
        sty: ir::ValueType,
        a: &dyn Fn(usize) -> Vec<Src>,
    ) -> Result<Vec<Src>, CompileError> {
        use AluOp::*;
        let wide = sty.bits == 64;
        let bits_ok = |b: u8| matches!(b, 1 | 32);
        let x = a(0);
        let s0 = x[0];
        let bad = || unsupported(format!("{} on {}-bit values", op.name(), sty.bits));
        // Bitwise ops and selects work lane by lane at any width.
        match op {
            Mov => return Ok(x),
            Iand | Ior | Ixor => {
                let y = a(1);
                let sop = match op {
                    Iand => ShiftOp::LshiftAnd,
                    Ior => ShiftOp::LshiftOr,
                    _ => ShiftOp::LshiftXor,
                };
                return Ok(x
                    .iter()
                    .zip(&y)
                    .map(|(&p, &q)| self.shift(sop, p, q, ZERO))
                    .collect());
            }
            Inot => {
                return Ok(x
                    .iter()
                    .map(|&p| {
                        self.emit(
                            Op::Shift {
                                op: ShiftOp::LshiftOr,
                                not1: false,
                                not_result: true,
                            },
                            &[p, ZERO, ZERO],
                        )
                    })
                    .collect());
            }
            Bcsel => {
                let c = x[0];
                let (t, f) = (a(1), a(2));
                return Ok(t.iter().zip(&f).map(|(&t, &f)| self.mux(f, t, c)).collect());
            }
            Bitcast => {
                if dty.bits != sty.bits && !(bits_ok(dty.bits) || dty.bits == 64) {
                    return Err(bad());
                }
                return Ok(x);
            }
            _ => {}
        }
        // Bifrost has no fp64 (the driver does not advertise shaderFloat64).
        let f64_src = sty.bits == 64 && op.name().starts_with('f');
        let f64_dst = dty.bits == 64 && matches!(op, I2f | U2f | B2f | F2f);
        if f64_src || f64_dst {
            return Err(unsupported(format!(
                "{} on f64 (64-bit float): Bifrost has no fp64 arithmetic",
                op.name()
            )));
        }
        if wide {
            return Ok(match op {
                Iadd => self.add64(&x, &a(1)),
                Isub => self.sub64(&x, &a(1)),
                Ineg => self.sub64(&[ZERO, ZERO], &x),
                Imul => self.mul64(&x, &a(1)),
                Ishl | Ishr | Ushr => self.shift64(op, &x, a(1)[0]),
                Ieq | Ine => {
                    let y = a(1);
                    let lo = self.icmp(IcmpType::I32, Cmp::Eq, x[0], y[0]);
                    let hi = self.icmp(IcmpType::I32, Cmp::Eq, x[1], y[1]);
                    let both = self.shift(ShiftOp::LshiftAnd, lo, hi, ZERO);
                    if op == Ieq {
                        vec![both]
                    } else {
                        vec![self.emit(
                            Op::Shift {
                                op: ShiftOp::LshiftOr,
                                not1: false,
                                not_result: true,
                            },
                            &[both, ZERO, ZERO],
                        )]
                    }
                }
                Imin | Imax | Umin | Umax => {
                    let y = a(1);
                    let lt = self.lt64(&x, &y, matches!(op, Imin | Imax));
                    let (if_lt, if_not) = if matches!(op, Imin | Umin) {
                        (x, y)
                    } else {
                        (y, x)
                    };
                    vec![
                        self.mux(if_not[0], if_lt[0], lt),
                        self.mux(if_not[1], if_lt[1], lt),
                    ]
                }
                Ult | Uge | Ilt | Ige => {
                    let lt = self.lt64(&x, &a(1), matches!(op, Ilt | Ige));
                    if matches!(op, Ult | Ilt) {
                        vec![lt]
                    } else {
                        vec![self.emit(
                            Op::Shift {
                                op: ShiftOp::LshiftOr,
                                not1: false,
                                not_result: true,
                            },
                            &[lt, ZERO, ZERO],
                        )]
                    }
                }
                I2i | U2u if dty.bits == 32 => vec![x[0]],
                I2i | U2u if dty.bits == 64 => x,
                I2b => {
                    let or = self.shift(ShiftOp::LshiftOr, x[0], x[1], ZERO);
                    vec![self.icmp(IcmpType::I32, Cmp::Ne, or, ZERO)]
                }
                _ => return Err(bad()),
            });
        }
        if !bits_ok(sty.bits) {
            return Err(bad());
        }
        let fop = |neg| Op::FaddF32 {
            neg,
            abs: [false; 2],
            clamp01: false,
        };
        let r = match op {
            Iadd => self.emit(Op::IaddS32, &[s0, a(1)[0]]),
            Isub => self.emit(Op::IsubS32, &[s0, a(1)[0]]),
            Imul => self.emit(Op::ImulI32, &[s0, a(1)[0]]),
            UmulHigh => self.umul_high(s0, a(1)[0]),
            Ineg => self.emit(Op::IsubS32, &[ZERO, s0]),
            Iabs => self.emit(Op::IabsS32, &[s0]),
            Imin | Imax | Umin | Umax => {
                let b = a(1)[0];
                let ty = if matches!(op, Imin | Imax) {
                    IcmpType::S32
                } else {
                    IcmpType::U32
                };
                let lt = self.icmp(ty, Cmp::Lt, s0, b);
                // lt ? a : b for min, lt ? b : a for max
                if matches!(op, Imin | Umin) {
                    self.mux(b, s0, lt)
                } else {
                    self.mux(s0, b, lt)
                }
            }
            Ishl | Ishr | Ushr => {
                let n = self.shift_count(a(1)[0]);
                match op {
                    Ishl => self.shift(ShiftOp::LshiftOr, s0, ZERO, n),
                    Ushr => self.shift(ShiftOp::RshiftOr, s0, ZERO, n),
                    _ => self.emit(Op::ArshiftI32, &[s0, ZERO, n]),
                }
            }
            Udiv | Umod => {
                let (q, r) = self.udivmod(s0, a(1)[0]);
                if op == Udiv { q } else { r }
            }
            Idiv | Irem | Imod => {
                let y = a(1)[0];
                let ax = self.emit(Op::IabsS32, &[s0]);
                let ay = match y {
                    Src::Imm(c) => Src::Imm((c as i32).unsigned_abs()),
                    _ => self.emit(Op::IabsS32, &[y]),
                };
                let (q, r) = self.udivmod(ax, ay);
                let xneg = self.icmp(IcmpType::S32, Cmp::Lt, s0, ZERO);
                match op {
                    Idiv => {
                        // Negate when the signs differ; x / 0 = -1.
                        let diff = self.shift(ShiftOp::LshiftXor, s0, y, ZERO);
                        let dneg = self.icmp(IcmpType::S32, Cmp::Lt, diff, ZERO);
                        let nq = self.emit(Op::IsubS32, &[ZERO, q]);
                        let q = self.mux(q, nq, dneg);
                        let y0 = self.icmp(IcmpType::I32, Cmp::Eq, y, ZERO);
                        self.mux(q, Src::Imm(u32::MAX), y0)
                    }
                    _ => {
                        // Remainder with the dividend's sign (x % 0 = x).
                        let nr = self.emit(Op::IsubS32, &[ZERO, r]);
                        let rem = self.mux(r, nr, xneg);
                        if op == Irem {
                            rem
                        } else {
                            // Modulo: add y when rem != 0 and its sign differs from y's.
                            let diff = self.shift(ShiftOp::LshiftXor, rem, y, ZERO);
                            let dneg = self.icmp(IcmpType::S32, Cmp::Lt, diff, ZERO);
                            let nz = self.icmp(IcmpType::I32, Cmp::Ne, rem, ZERO);
                            let fix = self.shift(ShiftOp::LshiftAnd, dneg, nz, ZERO);
                            let sum = self.emit(Op::IaddS32, &[rem, y]);
                            self.mux(rem, sum, fix)
                        }
                    }
                }
            }
            UbitfieldExtract | IbitfieldExtract | BitfieldInsert => {
                // off = min(offset, 32), cnt = min(count, 32 - off) (eval.rs);
                // shifts by 32 give 0 on Bifrost, so (1 << 32) - 1 is all ones.
                let (o_src, c_src) = if op == BitfieldInsert {
                    (a(2)[0], a(3)[0])
                } else {
                    (a(1)[0], a(2)[0])
                };
                let umin = |s: &mut Self, x: Src, y: Src| {
                    let lt = s.icmp(IcmpType::U32, Cmp::Lt, x, y);
                    s.mux(y, x, lt)
                };
                let off = umin(self, o_src, Src::Imm(32));
                let room = self.emit(Op::IsubS32, &[Src::Imm(32), off]);
                let cnt = umin(self, c_src, room);
                let one_shl = self.shift(ShiftOp::LshiftOr, Src::Imm(1), ZERO, cnt);
                let mask = self.emit(Op::IsubS32, &[one_shl, Src::Imm(1)]);
                match op {
                    UbitfieldExtract => {
                        let sh = self.shift(ShiftOp::RshiftOr, s0, ZERO, off);
                        self.shift(ShiftOp::LshiftAnd, sh, mask, ZERO)
                    }
                    IbitfieldExtract => {
                        let left = self.emit(Op::IsubS32, &[room, cnt]);
                        let up = self.shift(ShiftOp::LshiftOr, s0, ZERO, left);
                        let right = self.emit(Op::IsubS32, &[Src::Imm(32), cnt]);
                        let v = self.emit(Op::ArshiftI32, &[up, ZERO, right]);
                        let zero_cnt = self.icmp(IcmpType::I32, Cmp::Eq, cnt, ZERO);
                        self.mux(v, ZERO, zero_cnt)
                    }
                    _ => {
                        let fmask = self.shift(ShiftOp::LshiftOr, mask, ZERO, off);
                        let ins = self.shift(ShiftOp::LshiftOr, a(1)[0], ZERO, off);
                        let ins = self.shift(ShiftOp::LshiftAnd, ins, fmask, ZERO);
                        let keep = self.emit(
                            Op::Shift {
                                op: ShiftOp::LshiftAnd,
                                not1: true,
                                not_result: false,
                            },
                            &[s0, fmask, ZERO],
                        );
                        self.shift(ShiftOp::LshiftOr, keep, ins, ZERO)
                    }
                }
            }
            Isign => {
                // (x >> 31 arithmetic) | ((-x) >> 31 logical)
                let neg = self.emit(Op::IsubS32, &[ZERO, s0]);
                let pos = self.shift(ShiftOp::RshiftOr, neg, ZERO, Src::Imm(31));
                let sign = self.emit(Op::ArshiftI32, &[s0, ZERO, Src::Imm(31)]);
                self.shift(ShiftOp::LshiftOr, sign, pos, ZERO)
            }
            Fsign => {
                // 1.0 if x > 0, -1.0 if x < 0, else +0.0 (zeros and NaN).
                let gt = self.emit(Op::Fcmp { cmp: Cmp::Gt }, &[s0, ZERO]);
                let lt = self.emit(Op::Fcmp { cmp: Cmp::Lt }, &[s0, ZERO]);
                let p = self.shift(ShiftOp::LshiftAnd, gt, Src::Imm(0x3f80_0000), ZERO);
                let n = self.shift(ShiftOp::LshiftAnd, lt, Src::Imm(0xbf80_0000), ZERO);
                self.shift(ShiftOp::LshiftOr, p, n, ZERO)
            }
            FindLsb => {
                // 31 - clz(x & -x): -1 for 0.
                let neg = self.emit(Op::IsubS32, &[ZERO, s0]);
                let low = self.shift(ShiftOp::LshiftAnd, s0, neg, ZERO);
                let clz = self.emit(Op::ClzU32, &[low]);
                self.emit(Op::IsubS32, &[Src::Imm(31), clz])
            }
            IfindMsb => {
                let sign = self.emit(Op::ArshiftI32, &[s0, ZERO, Src::Imm(31)]);
                let v = self.shift(ShiftOp::LshiftXor, s0, sign, ZERO);
                let clz = self.emit(Op::ClzU32, &[v]);
                self.emit(Op::IsubS32, &[Src::Imm(31), clz])
            }
            BitfieldReverse => self.emit(Op::BitrevI32, &[s0]),
            BitCount => self.emit(Op::PopcountI32, &[s0]),
            UfindMsb => {
                let clz = self.emit(Op::ClzU32, &[s0]);
                self.emit(Op::IsubS32, &[Src::Imm(31), clz])
            }
            Fadd => self.fadd(s0, a(1)[0], [false, false]),
            Fsub => self.fadd(s0, a(1)[0], [false, true]),
            Fmul => self.emit(
                Op::FmaF32 {
                    neg: [false, false, true],
                },
                &[s0, a(1)[0], ZERO],
            ),
            Ffma => self.emit(Op::FmaF32 { neg: [false; 3] }, &[s0, a(1)[0], a(2)[0]]),
            Frcp | Fdiv | Frsq | Fsqrt | Fexp2 | Flog2 | Fsin | Fcos | Fpow => {
                let y = matches!(op, Fdiv | Fpow).then(|| a(1)[0]);
                self.float_math(op, s0, y)?
            }
            Fneg => self.shift(ShiftOp::LshiftXor, s0, Src::Imm(0x8000_0000), ZERO),
            Fabs => self.shift(ShiftOp::LshiftAnd, s0, Src::Imm(0x7fff_ffff), ZERO),
            Fsat => self.emit(
                Op::FaddF32 {
                    neg: [false, true],
                    abs: [false; 2],
                    clamp01: true,
                },
                &[s0, ZERO],
            ),
            Fmin => self.emit(Op::FminF32, &[s0, a(1)[0]]),
            Fmax => self.emit(Op::FmaxF32, &[s0, a(1)[0]]),
            Ffloor | Fceil | Ftrunc | FroundEven => {
                let round = match op {
                    Ffloor => Round::Rtn,
                    Fceil => Round::Rtp,
                    Ftrunc => Round::Rtz,
                    _ => Round::Rte,
                };
                self.emit(Op::FroundF32 { round }, &[s0])
            }
            Ffract => {
                let fl = self.emit(Op::FroundF32 { round: Round::Rtn }, &[s0]);
                self.emit(fop([false, true]), &[s0, fl])
            }
            Ieq | Ine | Ilt | Ige | Ult | Uge => {
                let (ty, cmp) = match op {
                    Ieq => (IcmpType::I32, Cmp::Eq),
                    Ine => (IcmpType::I32, Cmp::Ne),
                    Ilt => (IcmpType::S32, Cmp::Lt),
                    Ige => (IcmpType::S32, Cmp::Ge),
                    Ult => (IcmpType::U32, Cmp::Lt),
                    _ => (IcmpType::U32, Cmp::Ge),
                };
                self.icmp(ty, cmp, s0, a(1)[0])
            }
            Feq | Fneu | Flt | Fge => {
                let cmp = match op {
                    Feq => Cmp::Eq,
                    Fneu => Cmp::Ne,
                    Flt => Cmp::Lt,
                    _ => Cmp::Ge,
                };
                self.emit(Op::Fcmp { cmp }, &[s0, a(1)[0]])
            }
            I2f if dty.bits == 32 => self.emit(Op::S32ToF32, &[s0]),
            U2f if dty.bits == 32 => self.emit(Op::U32ToF32, &[s0]),
            F2i if dty.bits == 32 => self.emit(Op::F32ToS32, &[s0]),
            F2u if dty.bits == 32 => self.emit(Op::F32ToU32, &[s0]),
            F2f | I2i | U2u if dty.bits == 32 => s0,
            I2i if dty.bits == 64 => {
                let hi = self.emit(Op::ArshiftI32, &[s0, ZERO, Src::Imm(31)]);
                return Ok(vec![s0, hi]);
            }
            U2u if dty.bits == 64 => return Ok(vec![s0, ZERO]),
            B2i if dty.bits == 32 => self.shift(ShiftOp::LshiftAnd, s0, Src::Imm(1), ZERO),
            B2i if dty.bits == 64 => {
                return Ok(vec![
                    self.shift(ShiftOp::LshiftAnd, s0, Src::Imm(1), ZERO),
                    ZERO,
                ]);
            }
            B2f if dty.bits == 32 => {
                self.shift(ShiftOp::LshiftAnd, s0, Src::Imm(0x3f80_0000), ZERO)
            }
            I2b => self.icmp(IcmpType::I32, Cmp::Ne, s0, ZERO),
            _ => {
                return Err(unsupported(format!(
                    "{} ({}-bit → {}-bit)",
                    op.name(),
                    sty.bits,
                    dty.bits
                )));
            }
        };
        Ok(vec![r])
    }

    fn preload(&mut self, sv: SysVal) -> Result<Vec<Src>, CompileError> {
        let vertex = self.s.stage == Stage::Vertex;
        Ok(match sv {
            SysVal::RawVertexId | SysVal::XfbInvocation if vertex => {
                self.preloads.vertex_id = true;
                vec![Src::Phys(61)]
            }
            SysVal::InstanceId if vertex => {
                self.preloads.instance_id = true;
                vec![Src::Phys(62)]
            }
            SysVal::LocalInvocationId if !vertex => {
                self.preloads.local_invocation_xy = true;
                self.preloads.local_invocation_z = true;
                let x = self.shift(ShiftOp::LshiftAnd, Src::Phys(55), Src::Imm(0xffff), ZERO);
                let y = self.shift(ShiftOp::RshiftOr, Src::Phys(55), ZERO, Src::Imm(16));
                vec![x, y, Src::Phys(56)]
            }
            SysVal::WorkgroupId if !vertex => {
                self.preloads.workgroup = [true; 3];
                vec![Src::Phys(57), Src::Phys(58), Src::Phys(59)]
            }
            SysVal::GlobalInvocationId if !vertex => {
                self.preloads.global_invocation = [true; 3];
                vec![Src::Phys(60), Src::Phys(61), Src::Phys(62)]
            }
            sv => {
                return Err(unsupported(format!(
                    "system value {sv:?} in a {:?} shader (run lower_sysvals first)",
                    self.s.stage
                )));
            }
        })
    }

    /// The FAU word holding the base address of buffer (set, binding).
    fn buffer_address(&mut self, set: u32, binding: u32) -> Result<Vec<Src>, CompileError> {
        let i = match self.buffers.iter().position(|&b| b == (set, binding)) {
            Some(i) => i,
            None => {
                self.buffers.push((set, binding));
                self.buffers.len() - 1
            }
        };
        let word = self.uniform_base + i as u32;
        let word = u8::try_from(word)
            .ok()
            .filter(|&w| w < 128)
            .ok_or_else(|| unsupported("more than 128 FAU words"))?;
        Ok(vec![
            Src::Uniform { word, high: false },
            Src::Uniform { word, high: true },
        ])
    }

    /// `addr` (lo, hi; hi unused for WLS) plus a constant byte offset.
    fn offset_address(&mut self, addr: &[Src], seg: Seg, offset: u32) -> Vec<Src> {
        if offset == 0 {
            addr.to_vec()
        } else if seg == Seg::Wls {
            vec![self.emit(Op::IaddS32, &[addr[0], Src::Imm(offset)]), ZERO]
        } else {
            self.add64(addr, &[Src::Imm(offset), ZERO])
        }
    }

    /// Global or shared load of `ty` at `addr` (lo, hi); returns lanes.
    fn load(
        &mut self,
        ty: ir::ValueType,
        addr: Vec<Src>,
        seg: Seg,
    ) -> Result<Vec<Src>, CompileError> {
        let per = lanes_per_comp(ty)?;
        if matches!(ty.bits, 8 | 16) {
            // One zero-extending LOAD.i8/.i16 per component.
            let bytes = ty.bits / 8;
            let mut lanes = Vec::with_capacity(ty.comps as usize);
            for c in 0..u32::from(ty.comps) {
                let a = self.offset_address(&addr, seg, c * u32::from(bytes));
                let v = self.new_vreg(1);
                let op = Op::Load { bytes, seg };
                let srcs = self.legalize(op, &a);
                self.push(Instr::new(
                    op,
                    Some(Dst::Reg(Reg { index: v, comp: 0 })),
                    srcs,
                ));
                lanes.push(Src::Reg(Reg { index: v, comp: 0 }));
            }
            return Ok(lanes);
        }
        let total = per * ty.comps as usize;
        let mut lanes = Vec::with_capacity(total);
        let mut done = 0;
        while done < total {
            let n = (total - done).min(4);
            let a = self.offset_address(&addr, seg, 4 * done as u32);
            let v = self.new_vreg(n as u8);
            let srcs = self.legalize(Op::Load { bytes: 4, seg }, &a);
            self.push(Instr::new(
                Op::Load {
                    bytes: 4 * n as u8,
                    seg,
                },
                Some(Dst::Reg(Reg { index: v, comp: 0 })),
                srcs,
            ));
            lanes.extend((0..n).map(|c| {
                Src::Reg(Reg {
                    index: v,
                    comp: c as u8,
                })
            }));
            done += n;
        }
        if ty.bits == 1 {
            lanes = lanes
                .into_iter()
                .map(|l| self.icmp(IcmpType::I32, Cmp::Ne, l, ZERO))
                .collect();
        }
        Ok(lanes)
    }

    fn store(
        &mut self,
        ty: ir::ValueType,
        data: Vec<Src>,
        addr: Vec<Src>,
        seg: Seg,
    ) -> Result<(), CompileError> {
        if matches!(ty.bits, 8 | 16) {
            // One STORE.i8/.i16 per component (the low bits of its lane).
            let bytes = ty.bits / 8;
            for (c, &d) in data.iter().enumerate() {
                let a = self.offset_address(&addr, seg, c as u32 * u32::from(bytes));
                let v = self.new_reg();
                self.mov_to(v, d, false);
                let op = Op::Store { bytes, seg };
                let mut srcs = vec![Src::Reg(v)];
                srcs.extend(self.legalize(op, &a));
                self.push(Instr::new(op, None, srcs));
            }
            return Ok(());
        }
        lanes_per_comp(ty)?;
        let data: Vec<Src> = if ty.bits == 1 {
            data.into_iter()
                .map(|l| self.shift(ShiftOp::LshiftAnd, l, Src::Imm(1), ZERO))
                .collect()
        } else {
            data
        };
        let mut done = 0;
        while done < data.len() {
            let n = (data.len() - done).min(4);
            let a = self.offset_address(&addr, seg, 4 * done as u32);
            let v = self.new_vreg(n as u8);
            for c in 0..n {
                self.mov_to(
                    Reg {
                        index: v,
                        comp: c as u8,
                    },
                    data[done + c],
                    c > 0,
                );
            }
            let op = Op::Store {
                bytes: 4 * n as u8,
                seg,
            };
            let mut srcs = vec![Src::Reg(Reg { index: v, comp: 0 })];
            srcs.extend(self.legalize(op, &a));
            self.push(Instr::new(op, None, srcs));
            done += n;
        }
        Ok(())
    }

    fn attribute(
        &mut self,
        ty: ir::ValueType,
        location: u32,
        component: u8,
        vertex: Src,
        instance: Src,
    ) -> Result<Vec<Src>, CompileError> {
        if ty.bits != 32 {
            return Err(unsupported(format!("{}-bit vertex attributes", ty.bits)));
        }
        let n = component + ty.comps;
        if n > 4 {
            return Err(CompileError::Malformed(
                "attribute beyond 4 components".into(),
            ));
        }
        self.attribute_count = self.attribute_count.max(location + 1);
        let v = self.new_vreg(n);
        let dst = Some(Dst::Reg(Reg { index: v, comp: 0 }));
        let vertex = self.in_reg(vertex);
        let instance = self.in_reg(instance);
        if location < 16 {
            let op = Op::LdAttrImm {
                index: location as u8,
                comps: n,
            };
            self.push(Instr::new(op, dst, vec![vertex, instance]));
        } else {
            let idx = self.in_reg(Src::Imm(location));
            self.push(Instr::new(
                Op::LdAttr { comps: n },
                dst,
                vec![vertex, instance, idx],
            ));
        }
        Ok((component..n)
            .map(|c| Src::Reg(Reg { index: v, comp: c }))
            .collect())
    }

    /// `store_output`: output `output` to varying record `output` of this
    /// vertex (LEA_ATTR with the preloaded ids), its lanes stored
    /// unconverted by ST_CVT (see `ShaderBinary::varyings`).
    fn store_output(&mut self, output: u32, data: Vec<Src>) -> Result<(), CompileError> {
        let ty = self
            .s
            .outputs
            .get(output as usize)
            .ok_or_else(|| CompileError::Malformed(format!("output {output} does not exist")))?
            .ty;
        if !matches!(ty.bits, 32 | 64) {
            return Err(unsupported(format!("{}-bit outputs", ty.bits)));
        }
        let words = data.len();
        if !(1..=4).contains(&words) {
            return Err(unsupported(format!(
                "an output of {words} 32-bit words (at most 4 per varying)"
            )));
        }
        if let Some(&w) = self.varyings.get(&output)
            && usize::from(w) != words
        {
            return Err(CompileError::Malformed(format!(
                "output {output} stored with {w} and {words} words"
            )));
        }
        self.varyings.insert(output, words as u8);
        self.preloads.vertex_id = true;
        self.preloads.instance_id = true;
        let lea = self.new_vreg(3);
        let at = |comp| Reg { index: lea, comp };
        let ids = vec![Src::Phys(61), Src::Phys(62)];
        if output < 16 {
            let op = Op::LeaAttrImm {
                index: output as u8,
            };
            self.push(Instr::new(op, Some(Dst::Reg(at(0))), ids));
        } else {
            let idx = self.in_reg(Src::Imm(output));
            let mut srcs = ids;
            srcs.push(idx);
            self.push(Instr::new(Op::LeaAttr, Some(Dst::Reg(at(0))), srcs));
        }
        let v = self.new_vreg(words as u8);
        for (c, &d) in data.iter().enumerate() {
            let r = Reg {
                index: v,
                comp: c as u8,
            };
            self.mov_to(r, d, c > 0);
        }
        let srcs = vec![
            Src::Reg(Reg { index: v, comp: 0 }),
            Src::Reg(at(0)),
            Src::Reg(at(1)),
            Src::Reg(at(2)),
        ];
        self.push(Instr::new(Op::StCvt { comps: words as u8 }, None, srcs));
        Ok(())
    }

    /// The operand width of an atomic intrinsic (source 1).
    fn atomic_bits(&self, intr: &ir::OpIntrinsic) -> Result<u8, CompileError> {
        match (intr.srcs.get(1), intr.srcs.first()) {
            (Some(v), Some(_)) => Ok(self.s.ty(*v).bits),
            _ => Err(CompileError::Malformed("atomic without operands".into())),
        }
    }

    fn intrinsic(
        &mut self,
        intr: &ir::OpIntrinsic,
        dst: Option<Value>,
    ) -> Result<(), CompileError> {
        let need_dst = || dst.ok_or_else(|| CompileError::Malformed("load without dst".into()));
        let args: Vec<Vec<Src>> = intr
            .srcs
            .iter()
            .map(|s| self.src(*s))
            .collect::<Result<_, _>>()?;
        match intr.kind {
            Intrinsic::LoadUniform { offset } => {
                let d = need_dst()?;
                let ty = self.s.ty(d);
                let n = lanes_per_comp(ty)? * ty.comps as usize;
                if offset % 4 != 0 {
                    return Err(unsupported("unaligned load_uniform"));
                }
                let mut lanes = Vec::new();
                for i in 0..n as u32 {
                    let w = offset / 4 + i;
                    let word = u8::try_from(w / 2)
                        .ok()
                        .filter(|&w| w < 128)
                        .ok_or_else(|| unsupported("more than 128 FAU words"))?;
                    let u = Src::Uniform {
                        word,
                        high: w % 2 == 1,
                    };
                    lanes.push(if ty.bits == 1 {
                        self.icmp(IcmpType::I32, Cmp::Ne, u, ZERO)
                    } else {
                        u
                    });
                }
                self.define(d, lanes);
            }
            Intrinsic::LoadSysVal(sv) => {
                let d = need_dst()?;
                let lanes = self.preload(sv)?;
                let n = self.s.ty(d).comps as usize;
                self.define(d, lanes.into_iter().take(n).collect());
            }
            Intrinsic::LoadGlobal => {
                let d = need_dst()?;
                let lanes = self.load(self.s.ty(d), args[0].clone(), Seg::None)?;
                self.define(d, lanes);
            }
            Intrinsic::StoreGlobal => {
                let ty = self.s.ty(intr.srcs[0]);
                self.store(ty, args[0].clone(), args[1].clone(), Seg::None)?;
            }
            Intrinsic::LoadShared => {
                let d = need_dst()?;
                let lanes = self.load(self.s.ty(d), vec![args[0][0], ZERO], Seg::Wls)?;
                self.define(d, lanes);
            }
            Intrinsic::StoreShared => {
                let ty = self.s.ty(intr.srcs[0]);
                self.store(ty, args[0].clone(), vec![args[1][0], ZERO], Seg::Wls)?;
            }
            Intrinsic::LoadUbo { set, binding } | Intrinsic::LoadSsbo { set, binding } => {
                let d = need_dst()?;
                let base = self.buffer_address(set, binding)?;
                let addr = self.add64(&base, &[args[0][0], ZERO]);
                let lanes = self.load(self.s.ty(d), addr, Seg::None)?;
                self.define(d, lanes);
            }
            Intrinsic::StoreSsbo { set, binding } => {
                let ty = self.s.ty(intr.srcs[0]);
                let base = self.buffer_address(set, binding)?;
                let addr = self.add64(&base, &[args[1][0], ZERO]);
                self.store(ty, args[0].clone(), addr, Seg::None)?;
            }
            Intrinsic::SsboAtomic { set, binding, op } => {
                let base = self.buffer_address(set, binding)?;
                let addr = self.add64(&base, &[args[0][0], ZERO]);
                let bits = self.atomic_bits(intr)?;
                let addr = atomics::AtomicAddress::Global(addr);
                self.atomic(op, addr, &args[1..], bits, dst)?;
            }
            Intrinsic::GlobalAtomic { op } => {
                let bits = self.atomic_bits(intr)?;
                let addr = atomics::AtomicAddress::Global(args[0].clone());
                self.atomic(op, addr, &args[1..], bits, dst)?;
            }
            Intrinsic::SharedAtomic { op } => {
                let bits = self.atomic_bits(intr)?;
                let addr = atomics::AtomicAddress::Shared(args[0][0]);
                self.atomic(op, addr, &args[1..], bits, dst)?;
            }
            Intrinsic::Barrier => {
                self.uses_barrier = true;
                self.push(Instr::new(Op::Barrier, None, vec![]));
            }
            Intrinsic::LoadAttribute {
                location,
                component,
            } => {
                let d = need_dst()?;
                let lanes =
                    self.attribute(self.s.ty(d), location, component, args[0][0], args[1][0])?;
                self.define(d, lanes);
            }
            Intrinsic::LoadInput {
                location,
                component,
            } if self.s.stage == Stage::Vertex => {
                let d = need_dst()?;
                self.preloads.vertex_id = true;
                self.preloads.instance_id = true;
                let lanes = self.attribute(
                    self.s.ty(d),
                    location,
                    component,
                    Src::Phys(61),
                    Src::Phys(62),
                )?;
                self.define(d, lanes);
            }
            Intrinsic::StoreOutput { output } if self.s.stage == Stage::Vertex => {
                self.store_output(output, args[0].clone())?;
            }
            k => return Err(unsupported(format!("intrinsic {k:?}"))),
        }
        Ok(())
    }
}

/// The values a branch region yields, if it ends in `yield`.
fn ir_yield(r: &Region) -> Option<&[Value]> {
    match r.instrs.last().map(|i| &i.op) {
        Some(IrOp::Yield(v)) => Some(&v.values),
        _ => None,
    }
}

/// Division of any u32 by the constant `d` (not 0, not a power of two) as a
/// multiply-high and shifts (Granlund and Montgomery's method): with
/// `l = ceil(log2 d)`, `q = umul_high(x, multiplier) >> shift` when a 32-bit
/// multiplier `ceil(2^(32+l-1) / d)` is exact for every x (its excess over
/// `2^(32+l-1) / d`, times d, is at most `2^(l-1)`); otherwise the 33-bit
/// `ceil(2^(32+l) / d)` always is, its top bit handled by the `add` sequence
/// in `udivmod` (`multiplier` then holds the low 32 bits, `shift` = l).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DivMagic {
    pub multiplier: u32,
    pub shift: u32,
    pub add: bool,
}

impl DivMagic {
    pub fn new(d: u32) -> DivMagic {
        debug_assert!(d > 1 && !d.is_power_of_two());
        let d = u128::from(d);
        let l = 32 - (d as u32 - 1).leading_zeros();
        let p = l - 1;
        let m = (1u128 << (32 + p)).div_ceil(d);
        if m < 1 << 32 && m * d - (1u128 << (32 + p)) <= 1u128 << p {
            return DivMagic {
                multiplier: m as u32,
                shift: p,
                add: false,
            };
        }
        let m = (1u128 << (32 + l)).div_ceil(d);
        debug_assert!((1u128 << 32..1u128 << 33).contains(&m));
        DivMagic {
            multiplier: (m - (1 << 32)) as u32,
            shift: l,
            add: true,
        }
    }

    /// The quotient the instruction sequence computes (for tests).
    #[cfg(test)]
    pub fn divide(self, x: u32) -> u32 {
        let t = ((u64::from(x) * u64::from(self.multiplier)) >> 32) as u32;
        if self.add {
            (((x - t) >> 1) + t) >> (self.shift - 1)
        } else {
            t >> self.shift
        }
    }
}

#[cfg(test)]
mod div_magic_tests {
    use super::DivMagic;

    #[test]
    fn magic_division_is_exact() {
        let mut divisors: Vec<u32> = (3..3000).filter(|d: &u32| !d.is_power_of_two()).collect();
        divisors.extend([
            7 << 20,
            641,
            6_700_417,
            0x7FFF_FFFF,
            0x8000_0001,
            u32::MAX - 1,
            u32::MAX,
        ]);
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for d in divisors {
            let m = DivMagic::new(d);
            let top = u32::MAX / d * d;
            let mut xs = vec![
                0,
                1,
                d - 1,
                d,
                d.wrapping_add(1),
                top,
                top - 1,
                u32::MAX,
                u32::MAX - 1,
            ];
            for _ in 0..200 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let x = seed as u32;
                xs.extend([x, x / d * d, (x / d * d).wrapping_sub(1)]);
            }
            for x in xs {
                assert_eq!(m.divide(x), x / d, "{x} / {d} with {m:?}");
            }
        }
        // Both forms occur: 3 has a 32-bit multiplier, 7 needs the 33rd bit.
        assert!(!DivMagic::new(3).add && DivMagic::new(7).add);
    }
}
