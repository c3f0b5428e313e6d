//! The translator state shared by the CFG walker, variables and ALU code:
//! the IR under construction (a stack of open regions), the binding of SPIR-V
//! ids to IR values, and region scoping.
//!
//! SPIR-V ids map to [`Val`]s: an SSA value for scalars and vectors, a tree
//! for matrices/arrays/structs, or a compile-time pointer. An id defined in
//! one structured region may be used after the region is closed (SPIR-V
//! dominance is wider than scf scoping); such ids are "spilled" to
//! function-local variables at their definition and reloaded where they are
//! out of scope (`lower_vars_to_ssa` rebuilds SSA). Emission helpers here never
//! panic: callers check operand types first and get errors from `check_*`.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::rc::Rc;

use crate::compiler::ir::*;

use super::error::{Result, SpirvError};
use super::module::Module;
use super::reader::Inst;
use super::variables::Ptr;

/// Upper bound on emitted instructions (guards against exponential
/// duplication of continue constructs and switch fallthrough).
pub const MAX_INSTRS: usize = 1 << 18;
/// Upper bound on blocks visited by the CFG walker (tail duplication).
pub const MAX_BLOCK_VISITS: usize = 1 << 18;
/// Deepest structured nesting / call depth accepted.
pub const MAX_DEPTH: usize = 128;

/// A loaded image, sampler or sampled image: the (set, binding) of its
/// descriptors (`image.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handle {
    pub image: Option<(u32, u32)>,
    pub sampler: Option<(u32, u32)>,
}

/// The compile-time value of a SPIR-V id.
#[derive(Clone, Debug)]
pub enum Val {
    Ssa(Value),
    Comp(Vec<Val>),
    Ptr(Rc<Ptr>),
    /// Images and samplers have no run-time value: where they are bound.
    Handle(Handle),
    /// `OpImageTexelPointer`'s result: a texel of a storage image, only
    /// for atomics (`image.rs`).
    Texel(Texel),
}

/// A texel of the 2D storage image at `image` (set, binding), at `coord`
/// (a 2 × i32 value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Texel {
    pub image: (u32, u32),
    pub coord: Value,
}

impl Val {
    /// Every SSA value this Val depends on, in a fixed order.
    pub fn values(&self, out: &mut Vec<Value>) {
        match self {
            Val::Ssa(v) => out.push(*v),
            Val::Comp(c) => c.iter().for_each(|c| c.values(out)),
            Val::Ptr(p) => p.values(out),
            Val::Handle(_) => {}
            Val::Texel(t) => out.push(t.coord),
        }
    }

    /// The same shape with the values replaced, in the order of [`Val::values`].
    pub fn replace(&self, new: &mut impl Iterator<Item = Value>) -> Val {
        match self {
            Val::Ssa(v) => Val::Ssa(new.next().unwrap_or(*v)),
            Val::Comp(c) => Val::Comp(c.iter().map(|c| c.replace(new)).collect()),
            Val::Ptr(p) => Val::Ptr(Rc::new(p.replace(new))),
            Val::Handle(h) => Val::Handle(*h),
            Val::Texel(t) => Val::Texel(Texel {
                image: t.image,
                coord: new.next().unwrap_or(t.coord),
            }),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Bind {
    pub ty: u32,
    pub val: Val,
    pub region: u32,
}

/// One inlined function call being translated.
pub struct Frame<'m> {
    pub func: &'m super::module::Function<'m>,
    /// Region stack length at the start of the call (depth 0 of the callee).
    pub base_depth: usize,
    /// A `return` happened inside control flow: the body is wrapped in a
    /// single-iteration loop and returns become `break`.
    pub nested_return: bool,
    pub ret_vars: Option<Vec<VarId>>,
    pub ret_val: Option<Val>,
    /// Set when returning from inside a loop (checked after each loop).
    pub ret_flag: Option<VarId>,
    /// For each open SPIR-V loop of this call: whether a return happened inside.
    pub loops: Vec<bool>,
    /// Ids used outside their defining block (spilled at definition).
    pub escaping: Rc<HashSet<u32>>,
}

/// The name of the instruction being translated, for error messages (as
/// `Inst::name` gives it; formatting it for every instruction cost a
/// string per instruction).
#[derive(Clone, Copy, Debug)]
pub enum OpName {
    /// A SPIR-V instruction: its opcode, known or not.
    Inst(Option<spirv::Op>, u32),
    /// An extended instruction of GLSL.std.450.
    Glsl(spirv::GlslStd450Op),
    Text(&'static str),
}

impl std::fmt::Display for OpName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            OpName::Inst(Some(op), _) => write!(f, "Op{op:?}"),
            OpName::Inst(None, opcode) => write!(f, "opcode {opcode}"),
            OpName::Glsl(op) => write!(f, "GLSL.std.450 {op:?}"),
            OpName::Text(t) => f.write_str(t),
        }
    }
}

pub struct Translator<'m> {
    pub m: &'m Module<'m>,
    pub shader: Shader,
    stack: Vec<(u32, Region)>,
    next_region: u32,
    region_alias: HashMap<u32, u32>,
    pub binds: HashMap<u32, Bind>,
    pub globals: HashMap<u32, Val>,
    pub spills: HashMap<u32, Vec<VarId>>,
    pub frames: Vec<Frame<'m>>,
    pub phi_vars: HashMap<u32, Vec<VarId>>,
    pub instrs: usize,
    pub blocks_walked: usize,
    /// The instruction being translated (for error messages).
    pub word: usize,
    /// Its name, formatted only when an error needs it.
    pub op_name: OpName,
    pub escaping_cache: HashMap<u32, Rc<HashSet<u32>>>,
    /// Output leaves (see `variables.rs`).
    pub out_leaves: Vec<super::io::OutLeaf>,
}

impl<'m> Translator<'m> {
    pub fn new(m: &'m Module<'m>, stage: Stage) -> Translator<'m> {
        Translator {
            m,
            shader: Shader::new(stage),
            stack: vec![(0, Region::new())],
            next_region: 1,
            region_alias: HashMap::default(),
            binds: HashMap::default(),
            globals: HashMap::default(),
            spills: HashMap::default(),
            frames: Vec::new(),
            phi_vars: HashMap::default(),
            instrs: 0,
            blocks_walked: 0,
            word: 0,
            op_name: OpName::Text(""),
            escaping_cache: HashMap::default(),
            out_leaves: Vec::new(),
        }
    }

    pub fn finish(mut self) -> Shader {
        if let Some((_, body)) = self.stack.pop() {
            self.shader.body = body;
        }
        self.shader
    }

    // ---- errors ----

    pub fn invalid(&self, rule: impl Into<String>) -> SpirvError {
        SpirvError::Invalid {
            op: self.op_name.to_string(),
            word: self.word,
            rule: rule.into(),
        }
    }

    pub fn unsupported(&self, what: impl Into<String>) -> SpirvError {
        SpirvError::Unsupported {
            op: self.op_name.to_string(),
            word: self.word,
            what: what.into(),
        }
    }

    pub fn limit(&self, what: impl Into<String>) -> SpirvError {
        SpirvError::Limit {
            word: self.word,
            what: what.into(),
        }
    }

    pub fn set_inst(&mut self, inst: &Inst) {
        self.word = inst.word;
        self.op_name = OpName::Inst(inst.op, inst.opcode);
    }

    // ---- regions ----

    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    pub fn cur_region(&self) -> u32 {
        self.stack.last().map_or(0, |r| r.0)
    }

    pub fn push_region(&mut self) -> Result<()> {
        if self.stack.len() > MAX_DEPTH {
            return Err(self.limit(format!("control flow nested deeper than {MAX_DEPTH}")));
        }
        let id = self.next_region;
        self.next_region += 1;
        self.stack.push((id, Region::new()));
        Ok(())
    }

    pub fn pop_region(&mut self) -> Region {
        if self.stack.len() <= 1 {
            return Region::new();
        }
        self.stack.pop().map(|r| r.1).unwrap_or_default()
    }

    /// Pop a region and append its instructions to the enclosing one; its
    /// values stay in scope.
    pub fn splice_region(&mut self) {
        if self.stack.len() <= 1 {
            return;
        }
        if let Some((id, r)) = self.stack.pop() {
            let parent = self.cur_region();
            self.region_alias.insert(id, parent);
            if let Some(top) = self.stack.last_mut() {
                top.1.instrs.extend(r.instrs);
            }
        }
    }

    pub fn in_scope(&self, mut region: u32) -> bool {
        let mut hops = 0;
        while let Some(&p) = self.region_alias.get(&region) {
            region = p;
            hops += 1;
            if hops > 100_000 {
                return false;
            }
        }
        self.stack.iter().any(|r| r.0 == region)
    }

    /// The current region ends in a terminator or a diverging `if`.
    pub fn region_ended(&self) -> bool {
        let r = match self.stack.last() {
            Some(r) => &r.1,
            None => return true,
        };
        r.instrs.last().is_some_and(|i| i.op.is_terminator()) || r.diverges()
    }

    // ---- emission ----

    pub fn push(&mut self, instr: Instr) -> Result<()> {
        self.instrs += 1;
        if self.instrs > MAX_INSTRS {
            return Err(self.limit(format!("more than {MAX_INSTRS} IR instructions")));
        }
        if let Some(top) = self.stack.last_mut() {
            top.1.instrs.push(instr);
        }
        Ok(())
    }

    pub fn emit(&mut self, ty: ValueType, op: Op) -> Result<Value> {
        let v = self.shader.new_value(ty);
        self.push(Instr::new([v], op))?;
        Ok(v)
    }

    pub fn ty(&self, v: Value) -> ValueType {
        self.shader
            .values
            .get(v.index())
            .copied()
            .unwrap_or(ValueType::U32)
    }

    pub fn konst(&mut self, ty: ValueType, values: &[u64]) -> Result<Value> {
        let values = values.iter().map(|v| v & ty.mask()).collect();
        self.emit(ty, Op::Const(OpConst { values }))
    }

    pub fn u32c(&mut self, v: u32) -> Result<Value> {
        self.konst(ValueType::U32, &[u64::from(v)])
    }

    /// A constant of type `ty` with every component a float `x` (bits of width `ty.bits`).
    pub fn fconst(&mut self, ty: ValueType, x: f64) -> Result<Value> {
        let bits = float_bits(x, ty.bits);
        self.konst(ty, &vec![bits; ty.comps as usize])
    }

    pub fn iconst(&mut self, ty: ValueType, x: i64) -> Result<Value> {
        self.konst(ty, &vec![x as u64; ty.comps as usize])
    }

    pub fn alu(&mut self, op: AluOp, ty: ValueType, srcs: &[Value]) -> Result<Value> {
        self.emit(
            ty,
            Op::Alu(OpAlu {
                op,
                srcs: srcs.into(),
            }),
        )
    }

    /// ALU op whose destination type is the first source's.
    pub fn alu_same(&mut self, op: AluOp, srcs: &[Value]) -> Result<Value> {
        let first = srcs
            .first()
            .copied()
            .ok_or_else(|| self.invalid("no operands"))?;
        for &s in srcs {
            if self.ty(s) != self.ty(first) {
                return Err(self.invalid(format!(
                    "operand types differ ({} vs {})",
                    self.ty(s),
                    self.ty(first)
                )));
            }
        }
        let ty = self.ty(first);
        self.alu(op, ty, srcs)
    }

    pub fn compare(&mut self, op: AluOp, a: Value, b: Value) -> Result<Value> {
        if self.ty(a) != self.ty(b) {
            return Err(self.invalid("compared operands differ in type"));
        }
        let comps = self.ty(a).comps;
        self.alu(op, ValueType::new(1, comps), &[a, b])
    }

    pub fn bcsel(&mut self, c: Value, a: Value, b: Value) -> Result<Value> {
        let (ta, tb) = (self.ty(a), self.ty(b));
        if ta != tb {
            return Err(self.invalid("select operands differ in type"));
        }
        let c = if self.ty(c).comps != ta.comps {
            self.splat(c, ta.comps)?
        } else {
            c
        };
        if !self.ty(c).is_bool() {
            return Err(self.invalid("select condition is not boolean"));
        }
        self.alu(AluOp::Bcsel, ta, &[c, a, b])
    }

    pub fn vec(&mut self, srcs: &[Value]) -> Result<Value> {
        let first = *srcs.first().ok_or_else(|| self.invalid("empty vector"))?;
        let bits = self.ty(first).bits;
        let mut comps = 0u32;
        for &s in srcs {
            if self.ty(s).bits != bits {
                return Err(self.invalid("vector constituents differ in bit size"));
            }
            comps += u32::from(self.ty(s).comps);
        }
        if comps > 4 {
            return Err(self.invalid("vector of more than 4 components"));
        }
        if srcs.len() == 1 {
            return Ok(first);
        }
        self.emit(
            ValueType::new(bits, comps as u8),
            Op::Vec(OpVec { srcs: srcs.into() }),
        )
    }

    pub fn swizzle(&mut self, src: Value, comps: &[u8]) -> Result<Value> {
        let ty = self.ty(src);
        if comps.is_empty() || comps.len() > 4 || comps.iter().any(|&c| c >= ty.comps) {
            return Err(self.invalid("component index out of range"));
        }
        if comps.len() == ty.comps as usize
            && comps.iter().enumerate().all(|(i, &c)| i == c as usize)
        {
            return Ok(src);
        }
        self.emit(
            ty.with_comps(comps.len() as u8),
            Op::Swizzle(OpSwizzle {
                src,
                comps: comps.into(),
            }),
        )
    }

    pub fn channel(&mut self, src: Value, c: u8) -> Result<Value> {
        self.swizzle(src, &[c])
    }

    pub fn splat(&mut self, s: Value, n: u8) -> Result<Value> {
        if self.ty(s).comps == n {
            return Ok(s);
        }
        if self.ty(s).comps != 1 {
            return Err(self.invalid("cannot splat a vector"));
        }
        self.vec(&vec![s; n as usize])
    }

    pub fn intrinsic(&mut self, kind: Intrinsic, ty: ValueType, srcs: &[Value]) -> Result<Value> {
        self.emit(
            ty,
            Op::Intrinsic(OpIntrinsic {
                kind,
                srcs: srcs.into(),
            }),
        )
    }

    pub fn effect(&mut self, kind: Intrinsic, srcs: &[Value]) -> Result<()> {
        self.push(Instr::new(
            vec![],
            Op::Intrinsic(OpIntrinsic {
                kind,
                srcs: srcs.into(),
            }),
        ))
    }

    pub fn load_var(&mut self, var: VarId) -> Result<Value> {
        let ty = self
            .shader
            .vars
            .get(var.0 as usize)
            .map(|v| v.ty)
            .unwrap_or(ValueType::U32);
        self.intrinsic(Intrinsic::LoadVar { var }, ty, &[])
    }

    pub fn store_var(&mut self, var: VarId, v: Value) -> Result<()> {
        let ty = self.shader.vars.get(var.0 as usize).map(|v| v.ty);
        if ty != Some(self.ty(v)) {
            return Err(self.invalid(format!(
                "stored value of type {} into a variable of another type",
                self.ty(v)
            )));
        }
        self.effect(Intrinsic::StoreVar { var }, &[v])
    }

    pub fn new_var(&mut self, name: String, ty: ValueType) -> Result<VarId> {
        if self.shader.vars.len() > MAX_INSTRS {
            return Err(self.limit("too many variables"));
        }
        Ok(self.shader.new_var(name, ty))
    }

    /// `if cond { then } else { else }` with no results; the closures emit into new regions.
    pub fn emit_if(
        &mut self,
        cond: Value,
        then_b: impl FnOnce(&mut Self) -> Result<()>,
        else_b: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<()> {
        if self.ty(cond) != ValueType::BOOL {
            return Err(self.invalid("branch condition is not a scalar boolean"));
        }
        self.push_region()?;
        then_b(self)?;
        self.end_with(Op::Yield(OpValues { values: vec![] }))?;
        let then_region = self.pop_region();
        self.push_region()?;
        else_b(self)?;
        self.end_with(Op::Yield(OpValues { values: vec![] }))?;
        let else_region = self.pop_region();
        self.push(Instr::new(
            vec![],
            Op::If(If {
                cond,
                then_region,
                else_region,
            }),
        ))
    }

    /// Append `op` unless the current region already ends.
    pub fn end_with(&mut self, op: Op) -> Result<()> {
        if !self.region_ended() {
            self.push(Instr::new([], op))?;
        }
        Ok(())
    }

    pub fn emit_break(&mut self) -> Result<()> {
        self.push(Instr::new([], Op::Break(OpValues { values: vec![] })))
    }

    pub fn emit_continue(&mut self) -> Result<()> {
        self.push(Instr::new(
            vec![],
            Op::Continue(OpValues { values: vec![] }),
        ))
    }

    pub fn emit_loop(&mut self, body: Region) -> Result<()> {
        self.push(Instr::new(
            vec![],
            Op::Loop(Loop {
                params: vec![],
                inits: vec![],
                body,
            }),
        ))
    }

    // ---- bindings ----

    pub fn bind(&mut self, id: u32, ty: u32, val: Val) -> Result<()> {
        let escapes = self.frames.last().is_some_and(|f| f.escaping.contains(&id));
        if escapes {
            let mut values = Vec::new();
            val.values(&mut values);
            let vars = match self.spills.get(&id) {
                Some(v) if v.len() == values.len() => v.clone(),
                _ => {
                    let mut vars = Vec::new();
                    for (i, &v) in values.iter().enumerate() {
                        let ty = self.ty(v);
                        vars.push(self.new_var(format!("spill_{id}_{i}"), ty)?);
                    }
                    self.spills.insert(id, vars.clone());
                    vars
                }
            };
            for (var, v) in vars.into_iter().zip(values) {
                self.store_var(var, v)?;
            }
        }
        let region = self.cur_region();
        self.binds.insert(id, Bind { ty, val, region });
        Ok(())
    }

    /// The value of an id usable at the current point, with its type id.
    pub fn get(&mut self, id: u32) -> Result<(u32, Val)> {
        if let Some(g) = self.globals.get(&id) {
            let ty = match self.m.def(id)? {
                super::module::Def::Var { ty, .. } => *ty,
                _ => 0,
            };
            return Ok((ty, g.clone()));
        }
        if let Some(b) = self.binds.get(&id) {
            if self.in_scope(b.region) {
                return Ok((b.ty, b.val.clone()));
            }
            let b = b.clone();
            if let Some(vars) = self.spills.get(&id).cloned() {
                let mut loaded = Vec::new();
                for v in vars {
                    loaded.push(self.load_var(v)?);
                }
                let val = b.val.replace(&mut loaded.into_iter());
                let region = self.cur_region();
                self.binds.insert(
                    id,
                    Bind {
                        ty: b.ty,
                        val: val.clone(),
                        region,
                    },
                );
                return Ok((b.ty, val));
            }
            if let super::module::Def::Const { .. } = self.m.def(id)? {
                // fall through to rematerialize
            } else {
                let mut values = Vec::new();
                b.val.values(&mut values);
                if values.is_empty() {
                    return Ok((b.ty, b.val));
                }
                return Err(self.unsupported(format!(
                    "%{id} is used outside the structured region that defines it"
                )));
            }
        }
        if let super::module::Def::Const { ty, value } = self.m.def(id)? {
            let (ty, value) = (*ty, value.clone());
            let val = self.materialize(ty, &value, 0)?;
            let region = self.cur_region();
            self.binds.insert(
                id,
                Bind {
                    ty,
                    val: val.clone(),
                    region,
                },
            );
            return Ok((ty, val));
        }
        Err(self.invalid(format!("%{id} is not defined here")))
    }

    /// An id that must be a scalar or vector: its SSA value and type id.
    pub fn get_ssa(&mut self, id: u32) -> Result<(u32, Value)> {
        let (ty, val) = self.get(id)?;
        match (ty, self.pointer_as_value(val)?) {
            (ty, Val::Ssa(v)) => Ok((ty, v)),
            _ => Err(self.invalid(format!("%{id} is not a scalar or vector"))),
        }
    }

    pub fn materialize(&mut self, ty: u32, c: &super::constants::Cst, depth: u32) -> Result<Val> {
        use super::constants::Cst;
        if depth > 64 {
            return Err(self.limit("constant nesting deeper than 64"));
        }
        if let Some(vt) = self.m.value_type(ty) {
            return Ok(Val::Ssa(match c {
                Cst::Undef => self.emit(vt, Op::Undef)?,
                Cst::Scalar(v) if vt.comps == 1 => self.konst(vt, &[*v])?,
                Cst::Composite(parts) if parts.len() == vt.comps as usize => {
                    if parts.iter().any(|p| matches!(p, Cst::Undef)) {
                        let mut comps = Vec::new();
                        for p in parts {
                            comps.push(match p {
                                Cst::Scalar(v) => self.konst(vt.scalar(), &[*v])?,
                                _ => self.emit(vt.scalar(), Op::Undef)?,
                            });
                        }
                        self.vec(&comps)?
                    } else {
                        let vals: Vec<u64> =
                            parts.iter().map(|p| p.as_u64().unwrap_or(0)).collect();
                        self.konst(vt, &vals)?
                    }
                }
                _ => return Err(self.invalid(format!("constant does not match its type %{ty}"))),
            }));
        }
        let n = self
            .m
            .child_count(ty)
            .ok_or_else(|| self.unsupported(format!("constant of type %{ty}")))?;
        let mut out = Vec::new();
        for i in 0..n {
            let cty = self
                .m
                .child_type(ty, i)
                .ok_or_else(|| self.invalid("bad constant type"))?;
            let part = match c {
                Cst::Composite(parts) => parts
                    .get(i as usize)
                    .cloned()
                    .ok_or_else(|| self.invalid("constant has too few constituents"))?,
                Cst::Undef => Cst::Undef,
                Cst::Scalar(_) => return Err(self.invalid("scalar constant of composite type")),
            };
            out.push(self.materialize(cty, &part, depth + 1)?);
        }
        Ok(Val::Comp(out))
    }

    /// Build a Val of type `ty` from a list of leaf values (see `Module::leaf_types`).
    pub fn build_val(
        &self,
        ty: u32,
        leaves: &mut impl Iterator<Item = Value>,
        depth: u32,
    ) -> Result<Val> {
        if depth > 64 {
            return Err(self.limit("type nesting deeper than 64"));
        }
        if self.m.value_type(ty).is_some() {
            return leaves
                .next()
                .map(Val::Ssa)
                .ok_or_else(|| self.invalid("too few values for the type"));
        }
        let n = self
            .m
            .child_count(ty)
            .ok_or_else(|| self.unsupported(format!("values of type %{ty}")))?;
        let mut out = Vec::new();
        for i in 0..n {
            let c = self
                .m
                .child_type(ty, i)
                .ok_or_else(|| self.invalid("bad type"))?;
            out.push(self.build_val(c, leaves, depth + 1)?);
        }
        Ok(Val::Comp(out))
    }

    /// An undefined value of a type.
    pub fn undef_val(&mut self, ty: u32) -> Result<Val> {
        let leaves = self.m.leaf_types(ty)?;
        let mut vals = Vec::new();
        for t in leaves {
            vals.push(self.emit(t, Op::Undef)?);
        }
        self.build_val(ty, &mut vals.into_iter(), 0)
    }

    /// Check that a Val has the shape of type `ty`.
    pub fn check_val(&self, ty: u32, val: &Val, depth: u32) -> Result<()> {
        if depth > 64 {
            return Err(self.limit("type nesting deeper than 64"));
        }
        match (self.m.value_type(ty), val) {
            (Some(vt), Val::Ssa(v)) if self.ty(*v) == vt => Ok(()),
            // A physical pointer below an access chain (its address is made
            // where it is stored or converted).
            (Some(_), Val::Ptr(_))
                if matches!(
                    self.m.ty(ty),
                    Ok(super::types::Type::Pointer {
                        class: spirv::StorageClass::PhysicalStorageBuffer,
                        ..
                    })
                ) =>
            {
                Ok(())
            }
            (None, Val::Comp(parts)) if self.m.child_count(ty) == Some(parts.len() as u32) => {
                for (i, p) in parts.iter().enumerate() {
                    let c = self
                        .m
                        .child_type(ty, i as u32)
                        .ok_or_else(|| self.invalid("bad type"))?;
                    self.check_val(c, p, depth + 1)?;
                }
                Ok(())
            }
            (None, Val::Ptr(_))
                if matches!(self.m.ty(ty), Ok(super::types::Type::Pointer { .. })) =>
            {
                Ok(())
            }
            (None, Val::Texel(_))
                if matches!(self.m.ty(ty), Ok(super::types::Type::Pointer { .. })) =>
            {
                Ok(())
            }
            (None, Val::Handle(_))
                if matches!(
                    self.m.ty(ty),
                    Ok(super::types::Type::Image { .. }
                        | super::types::Type::Sampler
                        | super::types::Type::SampledImage { .. })
                ) =>
            {
                Ok(())
            }
            _ => Err(self.invalid(format!("value does not have type %{ty}"))),
        }
    }
}

/// The bit pattern of `x` as a float of `bits` bits (16, 32 or 64).
pub fn float_bits(x: f64, bits: u8) -> u64 {
    match bits {
        64 => x.to_bits(),
        16 => u64::from(crate::compiler::ir::eval::f64_to_f16(x)),
        _ => u64::from((x as f32).to_bits()),
    }
}
