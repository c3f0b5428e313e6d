//! Structured control flow: SPIR-V blocks with merge instructions become
//! nested `if`/`loop` regions; functions are inlined.
//!
//! The walker follows a construct's blocks from its header until it reaches
//! the construct's merge block. Branches to the innermost loop's merge become
//! `break`, to its continue target a copy of the continue construct, to its
//! header `continue`. `OpSwitch` becomes an if-chain (fallthrough is a copy of
//! the next case). `OpPhi` goes through function-local variables written at
//! the end of each predecessor. A `return` inside control flow wraps the
//! function body in a single-iteration loop and becomes `break` (plus a flag
//! checked after each enclosing loop).
//!
//! A branch out of a nested selection to an enclosing construct's merge
//! (`break` out of a `switch` from inside an `if`) has no scf equivalent; the
//! walker follows it and duplicates the tail up to the next loop exit or
//! return, which keeps the semantics at some code size.
//!
//! The walker must terminate on any input: blocks revisited without a loop
//! header are an error, nesting is bounded, and so is the emitted size.

use rustc_hash::{FxHashMap, FxHashSet as HashSet};
use std::rc::Rc;

use spirv::Op;

use crate::compiler::ir::*;

use super::error::Result;
use super::function::{Frame, MAX_BLOCK_VISITS, MAX_DEPTH, Translator, Val};
use super::module::{Block, Function};
use super::reader::Inst;
use super::types::Type;

/// Where branches lead in the current construct.
#[derive(Clone, Copy, Debug, Default)]
pub struct Targets {
    /// Reaching this block ends the current region normally.
    merge: Option<u32>,
    /// Innermost loop's merge: `break`.
    brk: Option<u32>,
    /// Innermost loop's continue target: the continue construct.
    cont: Option<u32>,
    /// Innermost loop's header: `continue`.
    header: Option<u32>,
}

enum Next {
    Goto(u32),
    Stop,
}

/// Opcodes that define no result id.
fn has_result(op: Option<Op>) -> bool {
    !matches!(
        op,
        Some(
            Op::Store
                | Op::Branch
                | Op::BranchConditional
                | Op::Switch
                | Op::Return
                | Op::ReturnValue
                | Op::SelectionMerge
                | Op::LoopMerge
                | Op::ControlBarrier
                | Op::MemoryBarrier
                | Op::CopyMemory
                | Op::AtomicStore
                | Op::Line
                | Op::NoLine
                | Op::Nop
                | Op::Kill
                | Op::TerminateInvocation
                | Op::DemoteToHelperInvocation
                | Op::Unreachable
                | Op::LifetimeStart
                | Op::LifetimeStop
        )
    ) && op.is_some()
}

/// Ids used in a block other than the one defining them. Ids of the entry
/// block are exempt: its region encloses the whole function body.
fn escaping_ids(f: &Function) -> HashSet<u32> {
    let mut def_block = FxHashMap::default();
    for (b, block) in f.blocks.iter().enumerate() {
        for inst in &block.insts {
            if b > 0
                && has_result(inst.op)
                && let Some(&id) = inst.operands.get(1)
            {
                def_block.insert(id, b);
            }
        }
    }
    let mut out = HashSet::default();
    for (b, block) in f.blocks.iter().enumerate() {
        for inst in &block.insts {
            if inst.op == Some(Op::Phi) {
                for pair in inst.rest(2).chunks(2) {
                    if let [v, parent] = pair {
                        let pb = f.block_index.get(parent).copied();
                        if def_block.get(v).is_some_and(|&d| Some(d) != pb) {
                            out.insert(*v);
                        }
                    }
                }
                continue;
            }
            let skip = if has_result(inst.op) { 2 } else { 0 };
            for w in inst.rest(skip) {
                if def_block.get(w).is_some_and(|&d| d != b) {
                    out.insert(*w);
                }
            }
        }
    }
    out
}

impl<'m> Translator<'m> {
    /// Inline a call of `func_id` with the given arguments at the current point.
    pub fn call(&mut self, func_id: u32, args: Vec<(u32, Val)>) -> Result<Option<Val>> {
        let m = self.m;
        if self.frames.len() >= 64 {
            return Err(self.limit("calls nested deeper than 64"));
        }
        if self.frames.iter().any(|f| f.func.id == func_id) {
            return Err(self.invalid("recursive function call"));
        }
        let f = m
            .functions
            .get(&func_id)
            .ok_or_else(|| self.invalid(format!("%{func_id} is not a function")))?;
        if args.len() != f.params.len() {
            return Err(self.invalid("argument count differs from the parameter count"));
        }
        if let Ok(Type::Function { params, .. }) = m.ty(f.fn_ty)
            && params.len() != f.params.len()
        {
            return Err(self.invalid("parameter count differs from the function type"));
        }
        for ((pid, pty), (aty, aval)) in f.params.iter().zip(args) {
            if *pty != aty {
                return Err(self.invalid(format!("argument for %{pid} has the wrong type")));
            }
            let region = self.cur_region();
            self.binds.insert(
                *pid,
                super::function::Bind {
                    ty: aty,
                    val: aval,
                    region,
                },
            );
        }
        let escaping = match self.escaping_cache.get(&func_id) {
            Some(e) => e.clone(),
            None => {
                let e = Rc::new(escaping_ids(f));
                self.escaping_cache.insert(func_id, e.clone());
                e
            }
        };
        self.push_region()?;
        self.frames.push(Frame {
            func: f,
            base_depth: self.depth(),
            nested_return: false,
            ret_vars: None,
            ret_val: None,
            ret_flag: None,
            loops: Vec::new(),
            escaping,
        });
        let entry = f
            .blocks
            .first()
            .map(|b| b.label)
            .ok_or_else(|| self.invalid("empty function"))?;
        let walked = self.walk(entry, Targets::default());
        let frame = self
            .frames
            .pop()
            .ok_or_else(|| self.invalid("frame stack"))?;
        walked?;
        let void = matches!(m.ty(f.ret_ty)?, Type::Void);
        if frame.nested_return {
            let mut body = self.pop_region();
            let ends = body.instrs.last().is_some_and(|i| i.op.is_terminator()) || body.diverges();
            if !ends {
                body.instrs
                    .push(Instr::new([], Op_::Break(OpValues { values: vec![] })));
            }
            if let Some(flag) = frame.ret_flag {
                let f = self.konst(ValueType::BOOL, &[0])?;
                self.store_var(flag, f)?;
            }
            self.emit_loop(body)?;
            if void {
                return Ok(None);
            }
            let vars = frame
                .ret_vars
                .ok_or_else(|| self.invalid("function returns no value"))?;
            let mut vals = Vec::new();
            for v in vars {
                vals.push(self.load_var(v)?);
            }
            Ok(Some(self.build_val(f.ret_ty, &mut vals.into_iter(), 0)?))
        } else {
            self.splice_region();
            if void {
                return Ok(None);
            }
            match frame.ret_val {
                Some(v) => Ok(Some(v)),
                None => Ok(Some(self.undef_val(f.ret_ty)?)),
            }
        }
    }

    fn block(&self, label: u32) -> Result<&'m Block<'m>> {
        let f = self
            .frames
            .last()
            .ok_or_else(|| self.invalid("no function"))?
            .func;
        f.block_index
            .get(&label)
            .and_then(|&i| f.blocks.get(i))
            .ok_or_else(|| self.invalid(format!("%{label} is not a block of this function")))
    }

    fn walk(&mut self, start: u32, t: Targets) -> Result<()> {
        let mut label = start;
        let mut seen = HashSet::default();
        loop {
            if self.region_ended() {
                return Ok(());
            }
            if Some(label) == t.merge {
                return Ok(());
            }
            self.blocks_walked += 1;
            if self.blocks_walked > MAX_BLOCK_VISITS {
                return Err(self.limit(format!(
                    "more than {MAX_BLOCK_VISITS} blocks walked (duplicated tails)"
                )));
            }
            if Some(label) == t.brk {
                return self.emit_break();
            }
            if Some(label) == t.header {
                return self.emit_continue();
            }
            if Some(label) == t.cont {
                let ct = Targets {
                    merge: None,
                    brk: t.brk,
                    cont: None,
                    header: t.header,
                };
                return self.walk(label, ct);
            }
            if !seen.insert(label) {
                return Err(self.invalid(format!("block %{label} reached again without a loop")));
            }
            let block = self.block(label)?;
            let next = if block.merge().is_some_and(|m| m.op == Some(Op::LoopMerge)) {
                self.emit_loop_construct(block)?
            } else {
                self.emit_block(block, t)?
            };
            match next {
                Next::Goto(l) => label = l,
                Next::Stop => return Ok(()),
            }
        }
    }

    fn emit_loop_construct(&mut self, header: &'m Block<'m>) -> Result<Next> {
        let lm = header
            .merge()
            .ok_or_else(|| self.invalid("loop without merge"))?;
        self.set_inst(lm);
        let merge = lm.word(0)?;
        let cont = lm.word(1)?;
        if merge == header.label {
            return Err(self.invalid("loop merge is the loop header"));
        }
        let lt = Targets {
            merge: None,
            brk: Some(merge),
            cont: if cont == header.label {
                None
            } else {
                Some(cont)
            },
            header: Some(header.label),
        };
        if let Some(f) = self.frames.last_mut() {
            f.loops.push(false);
        }
        self.push_region()?;
        let r = (|| -> Result<()> {
            if let Next::Goto(l) = self.emit_block(header, lt)? {
                self.walk(l, lt)?;
            }
            Ok(())
        })();
        let returned = self
            .frames
            .last_mut()
            .and_then(|f| f.loops.pop())
            .unwrap_or(false);
        r?;
        self.end_with(Op_::Break(OpValues { values: vec![] }))?;
        let body = self.pop_region();
        self.emit_loop(body)?;
        if returned {
            if let Some(outer) = self.frames.last_mut().and_then(|f| f.loops.last_mut()) {
                *outer = true;
            }
            let flag = self.ret_flag()?;
            let c = self.load_var(flag)?;
            self.emit_if(c, |s| s.emit_break(), |_| Ok(()))?;
        }
        Ok(Next::Goto(merge))
    }

    fn ret_flag(&mut self) -> Result<VarId> {
        if let Some(v) = self.frames.last().and_then(|f| f.ret_flag) {
            return Ok(v);
        }
        let v = self.new_var("returned".into(), ValueType::BOOL)?;
        if let Some(f) = self.frames.last_mut() {
            f.ret_flag = Some(v);
        }
        Ok(v)
    }

    /// Store the values flowing into `succ`'s phis from `pred`.
    fn store_phis(&mut self, pred: u32, succ: u32) -> Result<()> {
        let block = self.block(succ)?;
        for inst in &block.insts {
            if inst.op != Some(Op::Phi) {
                break;
            }
            self.set_inst(inst);
            let id = inst.word(1)?;
            let ty = inst.word(0)?;
            let mut incoming = None;
            for pair in inst.rest(2).chunks(2) {
                if let [v, p] = pair
                    && *p == pred
                {
                    incoming = Some(*v);
                }
            }
            let Some(v) = incoming else {
                return Err(self.invalid(format!("phi %{id} has no value for predecessor %{pred}")));
            };
            let (vty, val) = self.get(v)?;
            if vty != ty {
                return Err(self.invalid(format!("phi %{id} incoming value has the wrong type")));
            }
            let val = self.pointer_as_value(val)?;
            let vars = self.phi_vars_for(id, ty)?;
            let mut values = Vec::new();
            val.values(&mut values);
            if values.len() != vars.len() || matches!(val, Val::Ptr(_)) {
                return Err(self.unsupported("phi of pointers"));
            }
            for (var, v) in vars.into_iter().zip(values) {
                self.store_var(var, v)?;
            }
        }
        Ok(())
    }

    fn phi_vars_for(&mut self, id: u32, ty: u32) -> Result<Vec<VarId>> {
        if let Some(v) = self.phi_vars.get(&id) {
            return Ok(v.clone());
        }
        // Physical pointers are 64-bit values (`Module::value_type`); other
        // pointers are compile-time objects.
        if matches!(self.m.ty(ty)?, Type::Pointer { .. }) && self.m.value_type(ty).is_none() {
            return Err(self.unsupported("phi of pointers"));
        }
        let mut vars = Vec::new();
        for (i, t) in self.m.leaf_types(ty)?.into_iter().enumerate() {
            vars.push(self.new_var(format!("phi_{id}_{i}"), t)?);
        }
        self.phi_vars.insert(id, vars.clone());
        Ok(vars)
    }

    fn is_exit(t: &Targets, label: u32) -> bool {
        Some(label) == t.brk || Some(label) == t.header || Some(label) == t.cont
    }

    fn emit_block(&mut self, block: &'m Block<'m>, t: Targets) -> Result<Next> {
        let n = block.insts.len();
        if n == 0 {
            return Err(self.invalid(format!("block %{} has no terminator", block.label)));
        }
        let body_end = n - usize::from(block.merge().is_some()) - 1;
        for inst in &block.insts[..body_end] {
            self.set_inst(inst);
            if inst.op == Some(Op::Phi) {
                let ty = inst.word(0)?;
                let id = inst.word(1)?;
                let vars = self.phi_vars_for(id, ty)?;
                let mut vals = Vec::new();
                for v in vars {
                    vals.push(self.load_var(v)?);
                }
                let val = self.build_val(ty, &mut vals.into_iter(), 0)?;
                self.bind(id, ty, val)?;
                continue;
            }
            self.inst(inst).map_err(|e| e.at(inst.word))?;
        }
        let term = &block.insts[n - 1];
        self.set_inst(term);
        let merge = block.merge().filter(|m| m.op == Some(Op::SelectionMerge));
        let sel_merge = match merge {
            Some(m) => Some(m.word(0)?),
            None => None,
        };
        match term.op {
            Some(Op::Branch) => {
                let target = term.word(0)?;
                self.store_phis(block.label, target)?;
                Ok(Next::Goto(target))
            }
            Some(Op::BranchConditional) => {
                term.need(3)?;
                let (c, tl, fl) = (term.word(0)?, term.word(1)?, term.word(2)?);
                let (_, cond) = self.get_ssa(c)?;
                if self.ty(cond) != ValueType::BOOL {
                    return Err(self.invalid("branch condition is not a boolean scalar"));
                }
                self.store_phis(block.label, tl)?;
                if fl != tl {
                    self.store_phis(block.label, fl)?;
                }
                if tl == fl {
                    return Ok(Next::Goto(tl));
                }
                if let Some(m) = sel_merge {
                    let bt = Targets {
                        merge: Some(m),
                        ..t
                    };
                    self.emit_if(cond, |s| s.walk(tl, bt), |s| s.walk(fl, bt))?;
                    return Ok(Next::Goto(m));
                }
                let (te, fe) = (Self::is_exit(&t, tl), Self::is_exit(&t, fl));
                if te && !fe {
                    self.emit_if(cond, |s| s.walk(tl, t), |_| Ok(()))?;
                    Ok(Next::Goto(fl))
                } else if fe && !te {
                    self.emit_if(cond, |_| Ok(()), |s| s.walk(fl, t))?;
                    Ok(Next::Goto(tl))
                } else {
                    // No merge: both branches run to the current construct's
                    // exits; the `if` is the last thing in this region.
                    self.emit_if(cond, |s| s.walk(tl, t), |s| s.walk(fl, t))?;
                    Ok(Next::Stop)
                }
            }
            Some(Op::Switch) => {
                let Some(m) = sel_merge else {
                    return Err(self.unsupported("OpSwitch without OpSelectionMerge"));
                };
                self.emit_switch(block, term, m, t)?;
                Ok(Next::Goto(m))
            }
            Some(Op::Return) => {
                self.emit_return(None)?;
                Ok(Next::Stop)
            }
            Some(Op::ReturnValue) => {
                let v = term.word(0)?;
                self.emit_return(Some(v))?;
                Ok(Next::Stop)
            }
            Some(Op::Unreachable) => Ok(Next::Stop),
            Some(Op::Kill) | Some(Op::TerminateInvocation) => {
                if self.shader.stage != Stage::Fragment {
                    return Err(
                        self.invalid("OpKill/OpTerminateInvocation outside a fragment shader")
                    );
                }
                // The discard ends the invocation (`Intrinsic::Discard`); the
                // return keeps the IR's structure for the code after it. In a
                // called function the caller would carry on, which the IR has
                // no way to stop, so only the entry point may discard.
                if self.frames.len() > 1 {
                    return Err(
                        self.unsupported("OpKill/OpTerminateInvocation in a called function")
                    );
                }
                self.effect(Intrinsic::Discard, &[])?;
                self.emit_return(None)?;
                Ok(Next::Stop)
            }
            _ => Err(self.invalid(format!("block %{} does not end in a branch", block.label))),
        }
    }

    fn emit_switch(&mut self, block: &Block, term: &Inst, merge: u32, t: Targets) -> Result<()> {
        let (sty, sel) = self.get_ssa(term.word(0)?)?;
        let st = self.ty(sel);
        if st.comps != 1 || st.is_bool() {
            return Err(self.invalid("switch selector is not an integer scalar"));
        }
        let _ = sty;
        let default = term.word(1)?;
        let lit_words = if st.bits == 64 { 2 } else { 1 };
        let rest = term.rest(2);
        if !rest.len().is_multiple_of(lit_words + 1) {
            return Err(self.invalid("switch case operands do not pair up"));
        }
        let mut groups: Vec<(u32, Vec<u64>)> = Vec::new();
        for case in rest.chunks(lit_words + 1) {
            let mut lit = u64::from(case[0]);
            if lit_words == 2 {
                lit |= u64::from(case[1]) << 32;
            }
            let target = case[lit_words];
            if target == default {
                continue;
            }
            match groups.iter_mut().find(|g| g.0 == target) {
                Some(g) => g.1.push(lit),
                None => groups.push((target, vec![lit])),
            }
        }
        if groups.len() > MAX_DEPTH / 2 {
            return Err(self.limit(format!("switch with {} distinct targets", groups.len())));
        }
        let mut targets: Vec<u32> = groups.iter().map(|g| g.0).collect();
        targets.push(default);
        targets.dedup();
        for &target in &targets {
            self.store_phis(block.label, target)?;
        }
        let bt = Targets {
            merge: Some(merge),
            ..t
        };
        self.switch_chain(sel, &groups, default, bt)
    }

    fn switch_chain(
        &mut self,
        sel: Value,
        groups: &[(u32, Vec<u64>)],
        default: u32,
        bt: Targets,
    ) -> Result<()> {
        let Some(((target, lits), rest)) = groups.split_first() else {
            return self.walk(default, bt);
        };
        let st = self.ty(sel);
        let mut cond: Option<Value> = None;
        for &lit in lits {
            let k = self.konst(st, &[lit])?;
            let c = self.compare(AluOp::Ieq, sel, k)?;
            cond = Some(match cond {
                Some(prev) => self.alu_same(AluOp::Ior, &[prev, c])?,
                None => c,
            });
        }
        let cond = cond.ok_or_else(|| self.invalid("empty case"))?;
        let target = *target;
        self.emit_if(
            cond,
            |s| s.walk(target, bt),
            |s| s.switch_chain(sel, rest, default, bt),
        )
    }

    fn emit_return(&mut self, value: Option<u32>) -> Result<()> {
        let val = match value {
            Some(id) => {
                let (ty, v) = self.get(id)?;
                let want = self.frames.last().map(|f| f.func.ret_ty).unwrap_or(0);
                if ty != want {
                    return Err(self.invalid("returned value has the wrong type"));
                }
                Some(v)
            }
            None => None,
        };
        let depth = self.depth();
        let (at_top, nested) = match self.frames.last() {
            Some(f) => (depth == f.base_depth, f.nested_return),
            None => return Err(self.invalid("return outside a function")),
        };
        if at_top && !nested {
            if let Some(f) = self.frames.last_mut() {
                f.ret_val = val;
            }
            return Ok(());
        }
        if let Some(val) = val {
            let vars = match self.frames.last().and_then(|f| f.ret_vars.clone()) {
                Some(v) => v,
                None => {
                    let ty = self.frames.last().map(|f| f.func.ret_ty).unwrap_or(0);
                    let mut vars = Vec::new();
                    for (i, t) in self.m.leaf_types(ty)?.into_iter().enumerate() {
                        vars.push(self.new_var(format!("ret_{i}"), t)?);
                    }
                    if let Some(f) = self.frames.last_mut() {
                        f.ret_vars = Some(vars.clone());
                    }
                    vars
                }
            };
            let val = self.pointer_as_value(val)?;
            let mut values = Vec::new();
            val.values(&mut values);
            if values.len() != vars.len() || matches!(val, Val::Ptr(_)) {
                return Err(self.unsupported("returning pointers"));
            }
            for (var, v) in vars.into_iter().zip(values) {
                self.store_var(var, v)?;
            }
        }
        if at_top {
            return Ok(());
        }
        let in_loop = self.frames.last().is_some_and(|f| !f.loops.is_empty());
        if let Some(f) = self.frames.last_mut() {
            f.nested_return = true;
            if let Some(l) = f.loops.last_mut() {
                *l = true;
            }
        }
        if in_loop {
            let flag = self.ret_flag()?;
            let t = self.konst(ValueType::BOOL, &[1])?;
            self.store_var(flag, t)?;
        }
        self.emit_break()
    }
}

use crate::compiler::ir::Op as Op_;
