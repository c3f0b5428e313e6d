//! A builder that appends instructions to a shader's body, with closures for
//! structured control flow:
//!
//! ```
//! use bifrost_vk::compiler::ir::*;
//! let mut s = Shader::new(Stage::Compute);
//! let mut b = Builder::new(&mut s);
//! let zero = b.imm_u32(0);
//! let ten = b.imm_u32(10);
//! // for (i = 0; i < 10; i++) {}
//! let result = b.loop_(&[zero], &[ValueType::U32], |b, params| {
//!     let i = params[0];
//!     let done = b.alu(AluOp::Uge, &[i, ten]);
//!     b.if_(done, &[], |b| { b.break_(&[i]); vec![] }, |_| vec![]);
//!     let one = b.imm_u32(1);
//!     vec![b.alu(AluOp::Iadd, &[i, one])]
//! });
//! b.finish();
//! assert_eq!(s.ty(result[0]), ValueType::U32);
//! ```

use super::instr::*;
use super::shader::{Region, Shader, Variable};
use super::types::{Value, ValueType, VarId};

/// The one way to create IR: new values go into the shader's value table,
/// instructions into the region under construction. Passes that rewrite a
/// shader in place use [`Builder::rewrite`] (or [`Builder::rewrite_region`]
/// inside a builder of their own).
pub struct Builder<'s> {
    values: &'s mut Vec<ValueType>,
    vars: &'s [Variable],
    /// The shader's body, put back by [`Builder::finish`].
    body: &'s mut Region,
    /// Regions under construction; the last is where instructions go.
    stack: Vec<Region>,
}

/// What [`Builder::rewrite`] calls for every instruction.
pub type Rewrite<'f, 's> = dyn FnMut(Instr, &mut Builder<'s>) + 'f;

impl<'s> Builder<'s> {
    /// A builder appending to the end of `shader.body`.
    pub fn new(shader: &'s mut Shader) -> Builder<'s> {
        let Shader {
            values, vars, body, ..
        } = shader;
        let region = std::mem::take(body);
        Builder {
            values,
            vars,
            body,
            stack: vec![region],
        }
    }

    /// Put the built body back into the shader.
    pub fn finish(mut self) {
        debug_assert_eq!(self.stack.len(), 1, "unbalanced control flow in builder");
        *self.body = self.stack.pop().unwrap_or_default();
    }

    /// Rewrite every instruction of `shader.body` through `f`: nested
    /// regions first, then the instruction holding them; `f` appends the
    /// instruction's replacement (the instruction itself with
    /// [`Builder::push`], or new code, or nothing).
    pub fn rewrite(shader: &'s mut Shader, f: &mut Rewrite<'_, 's>) {
        let old = std::mem::take(&mut shader.body);
        let mut b = Builder::new(shader);
        let new = b.rewrite_region(old, f);
        b.stack[0] = new;
        b.finish();
    }

    /// [`Builder::rewrite`] of one detached region: returns its rewritten
    /// form (not appended anywhere).
    pub fn rewrite_region(&mut self, region: Region, f: &mut Rewrite<'_, 's>) -> Region {
        self.build_region(|b| {
            // Rewrites add instructions: room for half as many again.
            b.region()
                .instrs
                .reserve(region.instrs.len() + region.instrs.len() / 2);
            for mut instr in region.instrs {
                match &mut instr.op {
                    Op::If(i) => {
                        let then_region = std::mem::take(&mut i.then_region);
                        i.then_region = b.rewrite_region(then_region, f);
                        let else_region = std::mem::take(&mut i.else_region);
                        i.else_region = b.rewrite_region(else_region, f);
                    }
                    Op::Loop(l) => {
                        let body = std::mem::take(&mut l.body);
                        l.body = b.rewrite_region(body, f);
                    }
                    _ => {}
                }
                f(instr, b);
            }
        })
    }

    /// Moves the instructions appended so far to the region under
    /// construction to the end of `out` (passes that lower instructions in
    /// place build each replacement so: `lower_sysvals`).
    pub fn drain_into(&mut self, out: &mut Vec<Instr>) {
        out.append(&mut self.region().instrs);
    }

    fn region(&mut self) -> &mut Region {
        self.stack
            .last_mut()
            .expect("builder region stack is never empty")
    }

    /// A new SSA value of type `ty`, defined by nothing yet.
    pub fn new_value(&mut self, ty: ValueType) -> Value {
        self.values.push(ty);
        Value(self.values.len() as u32 - 1)
    }

    /// Append an instruction as is.
    pub fn push(&mut self, instr: Instr) {
        self.region().instrs.push(instr);
    }

    /// Append an op defining one value of type `ty`.
    pub fn emit(&mut self, ty: ValueType, op: Op) -> Value {
        let v = self.new_value(ty);
        self.push(Instr::new([v], op));
        v
    }

    pub fn ty(&self, v: Value) -> ValueType {
        self.values[v.index()]
    }

    /// Define the existing value `dst` as a copy of `src` (rewrites that
    /// replace an instruction keep its result's name).
    pub fn mov(&mut self, dst: Value, src: Value) {
        self.push(Instr::new(
            vec![dst],
            Op::Alu(OpAlu {
                op: AluOp::Mov,
                srcs: [src].into(),
            }),
        ));
    }

    // ---- constants ----

    pub fn imm(&mut self, ty: ValueType, values: &[u64]) -> Value {
        debug_assert_eq!(values.len(), ty.comps as usize);
        let values = values.iter().map(|v| v & ty.mask()).collect();
        self.emit(ty, Op::Const(OpConst { values }))
    }

    pub fn imm_u32(&mut self, v: u32) -> Value {
        self.imm(ValueType::U32, &[u64::from(v)])
    }

    pub fn imm_i32(&mut self, v: i32) -> Value {
        self.imm(ValueType::U32, &[u64::from(v as u32)])
    }

    pub fn imm_u64(&mut self, v: u64) -> Value {
        self.imm(ValueType::U64, &[v])
    }

    pub fn imm_f32(&mut self, v: f32) -> Value {
        self.imm(ValueType::F32, &[u64::from(v.to_bits())])
    }

    pub fn imm_bool(&mut self, v: bool) -> Value {
        self.imm(ValueType::BOOL, &[u64::from(v)])
    }

    pub fn undef(&mut self, ty: ValueType) -> Value {
        self.emit(ty, Op::Undef)
    }

    // ---- ALU ----

    /// An ALU op whose destination type follows from its class and sources
    /// (`Same`, `Shift`, `Select`, `Compare`). Conversions and other ops with
    /// a free destination type use [`Builder::alu_typed`].
    pub fn alu(&mut self, op: AluOp, srcs: &[Value]) -> Value {
        let ty = match op.class() {
            AluClass::Same | AluClass::Shift => self.ty(srcs[0]),
            AluClass::Select => self.ty(srcs[1]),
            AluClass::Compare => ValueType::new(1, self.ty(srcs[0]).comps),
            AluClass::Convert | AluClass::Special => {
                panic!("alu({}) needs an explicit destination type", op.name())
            }
        };
        self.alu_typed(op, ty, srcs)
    }

    pub fn alu_typed(&mut self, op: AluOp, ty: ValueType, srcs: &[Value]) -> Value {
        self.emit(
            ty,
            Op::Alu(OpAlu {
                op,
                srcs: srcs.into(),
            }),
        )
    }

    pub fn vec(&mut self, srcs: &[Value]) -> Value {
        let first = self.ty(srcs[0]);
        let comps = srcs.iter().map(|&s| self.ty(s).comps).sum();
        self.emit(
            first.with_comps(comps),
            Op::Vec(OpVec { srcs: srcs.into() }),
        )
    }

    pub fn swizzle(&mut self, src: Value, comps: &[u8]) -> Value {
        let ty = self.ty(src).with_comps(comps.len() as u8);
        self.emit(
            ty,
            Op::Swizzle(OpSwizzle {
                src,
                comps: comps.into(),
            }),
        )
    }

    /// Component `c` of a vector (the value itself for a scalar and c = 0).
    pub fn channel(&mut self, src: Value, c: u8) -> Value {
        if self.ty(src).comps == 1 && c == 0 {
            return src;
        }
        self.swizzle(src, &[c])
    }

    // ---- intrinsics ----

    /// An intrinsic defining a value of type `ty`.
    pub fn load(&mut self, kind: Intrinsic, ty: ValueType, srcs: &[Value]) -> Value {
        self.emit(
            ty,
            Op::Intrinsic(OpIntrinsic {
                kind,
                srcs: srcs.into(),
            }),
        )
    }

    /// An intrinsic defining nothing (stores, barriers).
    pub fn store(&mut self, kind: Intrinsic, srcs: &[Value]) {
        self.push(Instr::new(
            vec![],
            Op::Intrinsic(OpIntrinsic {
                kind,
                srcs: srcs.into(),
            }),
        ));
    }

    pub fn sysval(&mut self, sv: SysVal, ty: ValueType) -> Value {
        self.load(Intrinsic::LoadSysVal(sv), ty, &[])
    }

    pub fn load_var(&mut self, var: VarId) -> Value {
        let ty = self.vars[var.0 as usize].ty;
        self.load(Intrinsic::LoadVar { var }, ty, &[])
    }

    pub fn store_var(&mut self, var: VarId, value: Value) {
        self.store(Intrinsic::StoreVar { var }, &[value]);
    }

    // ---- control flow ----

    /// `if cond { then } else { else }` with results of `result_tys`. Each
    /// closure returns the values its branch yields (ignored if the branch
    /// ends in break/continue).
    pub fn if_(
        &mut self,
        cond: Value,
        result_tys: &[ValueType],
        then_branch: impl FnOnce(&mut Builder<'s>) -> Vec<Value>,
        else_branch: impl FnOnce(&mut Builder<'s>) -> Vec<Value>,
    ) -> Vec<Value> {
        let then_region = self.build_region(|b| {
            let values = then_branch(b);
            b.end_region_with(|values| Op::Yield(OpValues { values }), values);
        });
        let else_region = self.build_region(|b| {
            let values = else_branch(b);
            b.end_region_with(|values| Op::Yield(OpValues { values }), values);
        });
        let dsts: Vec<Value> = result_tys.iter().map(|&t| self.new_value(t)).collect();
        self.push(Instr::new(
            dsts.clone(),
            Op::If(If {
                cond,
                then_region,
                else_region,
            }),
        ));
        dsts
    }

    /// `loop(params = inits) { body }` with results of `result_tys` (given by
    /// `break`). The closure gets the parameters and returns the values for
    /// the implicit `continue` at the end of the body (ignored if the body
    /// already ends in break/continue).
    pub fn loop_(
        &mut self,
        inits: &[Value],
        result_tys: &[ValueType],
        body: impl FnOnce(&mut Builder<'s>, &[Value]) -> Vec<Value>,
    ) -> Vec<Value> {
        let params: Vec<Value> = inits
            .iter()
            .map(|&i| {
                let ty = self.ty(i);
                self.new_value(ty)
            })
            .collect();
        let body_region = self.build_region(|b| {
            let values = body(b, &params);
            b.end_region_with(|values| Op::Continue(OpValues { values }), values);
        });
        let dsts: Vec<Value> = result_tys.iter().map(|&t| self.new_value(t)).collect();
        self.push(Instr::new(
            dsts.clone(),
            Op::Loop(Loop {
                params,
                inits: inits.to_vec(),
                body: body_region,
            }),
        ));
        dsts
    }

    pub fn break_(&mut self, values: &[Value]) {
        self.push(Instr::new(
            vec![],
            Op::Break(OpValues {
                values: values.to_vec(),
            }),
        ));
    }

    pub fn continue_(&mut self, values: &[Value]) {
        self.push(Instr::new(
            vec![],
            Op::Continue(OpValues {
                values: values.to_vec(),
            }),
        ));
    }

    fn build_region(&mut self, f: impl FnOnce(&mut Builder<'s>)) -> Region {
        self.stack.push(Region::new());
        f(self);
        self.stack.pop().expect("pushed above")
    }

    fn end_region_with(&mut self, make: impl FnOnce(Vec<Value>) -> Op, values: Vec<Value>) {
        let region = self.region();
        let ends = region.instrs.last().is_some_and(|i| i.op.is_terminator()) || region.diverges();
        if !ends {
            region.instrs.push(Instr::new([], make(values)));
        }
    }
}
