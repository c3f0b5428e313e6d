//! Arithmetic, logic, comparisons, conversions, composites and matrix
//! operations, mapped onto the IR's component-wise ALU ops.
//!
//! Every operand's IR type is checked against what the opcode requires
//! before an instruction is emitted: a type mismatch is an error, never an
//! ill-typed IR instruction.

use spirv::Op;

use crate::compiler::ir::{AluOp, Op as IrOp, Value, ValueType};

use super::error::Result;
use super::function::{Translator, Val};
use super::reader::Inst;
use super::types::Type;

impl<'m> Translator<'m> {
    pub fn ssa(&mut self, id: u32) -> Result<Value> {
        Ok(self.get_ssa(id)?.1)
    }

    /// The IR type of result type `ty`, which must be a scalar or vector.
    pub fn result_vt(&self, ty: u32) -> Result<ValueType> {
        self.m
            .value_type(ty)
            .ok_or_else(|| self.invalid(format!("result type %{ty} is not a scalar or vector")))
    }

    fn expect(&self, v: Value, vt: ValueType) -> Result<()> {
        if self.ty(v) == vt {
            Ok(())
        } else {
            Err(self.invalid(format!("operand has type {}, expected {vt}", self.ty(v))))
        }
    }

    /// Sum of the components of a vector.
    pub fn reduce(&mut self, op: AluOp, v: Value) -> Result<Value> {
        let n = self.ty(v).comps;
        let mut acc = self.channel(v, 0)?;
        for c in 1..n {
            let x = self.channel(v, c)?;
            acc = self.alu_same(op, &[acc, x])?;
        }
        Ok(acc)
    }

    pub fn dot(&mut self, a: Value, b: Value) -> Result<Value> {
        let p = self.alu_same(AluOp::Fmul, &[a, b])?;
        self.reduce(AluOp::Fadd, p)
    }

    fn mat_cols(&self, v: &Val) -> Result<Vec<Value>> {
        match v {
            Val::Comp(c) => c
                .iter()
                .map(|c| match c {
                    Val::Ssa(v) => Ok(*v),
                    _ => Err(self.invalid("matrix column is not a vector")),
                })
                .collect(),
            _ => Err(self.invalid("operand is not a matrix")),
        }
    }

    /// M * v (columns `cols`, vector `v` with one component per column).
    fn mat_vec(&mut self, cols: &[Value], v: Value) -> Result<Value> {
        if self.ty(v).comps as usize != cols.len() {
            return Err(self.invalid("matrix and vector sizes differ"));
        }
        let mut acc: Option<Value> = None;
        for (j, &c) in cols.iter().enumerate() {
            let s = self.channel(v, j as u8)?;
            let s = self.splat(s, self.ty(c).comps)?;
            let p = self.alu_same(AluOp::Fmul, &[c, s])?;
            acc = Some(match acc {
                Some(a) => self.alu_same(AluOp::Fadd, &[a, p])?,
                None => p,
            });
        }
        acc.ok_or_else(|| self.invalid("empty matrix"))
    }

    fn composite_extract(&mut self, mut v: Val, path: &[u32]) -> Result<Val> {
        for (n, &i) in path.iter().enumerate() {
            v = match v {
                Val::Comp(parts) => parts
                    .into_iter()
                    .nth(i as usize)
                    .ok_or_else(|| self.invalid(format!("index {i} out of range")))?,
                Val::Ssa(s) if n + 1 == path.len() => {
                    if i >= u32::from(self.ty(s).comps) {
                        return Err(self.invalid(format!("component {i} out of range")));
                    }
                    Val::Ssa(self.channel(s, i as u8)?)
                }
                _ => return Err(self.invalid("index into a scalar or pointer")),
            };
        }
        Ok(v)
    }

    fn composite_insert(&mut self, base: Val, path: &[u32], obj: Val) -> Result<Val> {
        let Some((&i, rest)) = path.split_first() else {
            return Ok(obj);
        };
        match base {
            Val::Comp(mut parts) => {
                let slot = parts
                    .get_mut(i as usize)
                    .ok_or_else(|| self.invalid(format!("index {i} out of range")))?;
                let old = std::mem::replace(slot, Val::Comp(vec![]));
                let new = self.composite_insert(old, rest, obj)?;
                parts[i as usize] = new;
                Ok(Val::Comp(parts))
            }
            Val::Ssa(v) if rest.is_empty() => {
                let Val::Ssa(s) = obj else {
                    return Err(self.invalid("inserted object is not a scalar"));
                };
                let t = self.ty(v);
                if i >= u32::from(t.comps) || self.ty(s) != t.scalar() {
                    return Err(self.invalid("insert into a vector out of range or mistyped"));
                }
                let mut comps = Vec::new();
                for c in 0..t.comps {
                    comps.push(if u32::from(c) == i {
                        s
                    } else {
                        self.channel(v, c)?
                    });
                }
                Ok(Val::Ssa(self.vec(&comps)?))
            }
            _ => Err(self.invalid("insert into a scalar or pointer")),
        }
    }

    pub fn alu_inst(&mut self, inst: &Inst, op: Op) -> Result<()> {
        inst.need(2)?;
        let ty = inst.word(0)?;
        let id = inst.word(1)?;
        let val = self.alu_value(inst, op, ty)?;
        self.check_val(ty, &val, 0)?;
        self.bind(id, ty, val)
    }

    fn alu_value(&mut self, inst: &Inst, op: Op, ty: u32) -> Result<Val> {
        let m = self.m;
        let arg = |i: usize| inst.word(2 + i);
        // Composite and matrix operations first: their results need not be vectors.
        match op {
            Op::CompositeConstruct => {
                let parts = inst.rest(2);
                if let Some(vt) = m.value_type(ty) {
                    let mut vals = Vec::new();
                    for &p in parts {
                        let v = self.ssa(p)?;
                        if self.ty(v).bits != vt.bits {
                            return Err(self.invalid("constituent has the wrong component type"));
                        }
                        vals.push(v);
                    }
                    if vals.is_empty() {
                        return Err(self.invalid("no constituents"));
                    }
                    return Ok(Val::Ssa(self.vec(&vals)?));
                }
                let n = m
                    .child_count(ty)
                    .ok_or_else(|| self.invalid("construct of a non-composite type"))?;
                if parts.len() != n as usize {
                    return Err(self.invalid("constituent count differs from the type"));
                }
                let mut out = Vec::new();
                for &p in parts {
                    let v = self.get(p)?.1;
                    out.push(self.pointer_as_value(v)?);
                }
                return Ok(Val::Comp(out));
            }
            Op::CompositeExtract => {
                let (_, v) = self.get(arg(0)?)?;
                return self.composite_extract(v, inst.rest(3));
            }
            Op::CompositeInsert => {
                let (_, obj) = self.get(arg(0)?)?;
                let (bty, base) = self.get(arg(1)?)?;
                if bty != ty {
                    return Err(self.invalid("insert changes the composite type"));
                }
                return self.composite_insert(base, inst.rest(4), obj);
            }
            Op::Transpose => {
                let (_, v) = self.get(arg(0)?)?;
                let cols = self.mat_cols(&v)?;
                let rows = cols.first().map(|&c| self.ty(c).comps).unwrap_or(0);
                let mut out = Vec::new();
                for r in 0..rows {
                    let mut comps = Vec::new();
                    for &c in &cols {
                        comps.push(self.channel(c, r)?);
                    }
                    out.push(Val::Ssa(self.vec(&comps)?));
                }
                return Ok(Val::Comp(out));
            }
            Op::MatrixTimesScalar => {
                let (_, v) = self.get(arg(0)?)?;
                let s = self.ssa(arg(1)?)?;
                let cols = self.mat_cols(&v)?;
                let mut out = Vec::new();
                for c in cols {
                    let ss = self.splat(s, self.ty(c).comps)?;
                    out.push(Val::Ssa(self.alu_same(AluOp::Fmul, &[c, ss])?));
                }
                return Ok(Val::Comp(out));
            }
            Op::MatrixTimesVector => {
                let (_, mv) = self.get(arg(0)?)?;
                let cols = self.mat_cols(&mv)?;
                let v = self.ssa(arg(1)?)?;
                return Ok(Val::Ssa(self.mat_vec(&cols, v)?));
            }
            Op::VectorTimesMatrix => {
                let v = self.ssa(arg(0)?)?;
                let (_, mv) = self.get(arg(1)?)?;
                let cols = self.mat_cols(&mv)?;
                let mut comps = Vec::new();
                for c in cols {
                    comps.push(self.dot(v, c)?);
                }
                return Ok(Val::Ssa(self.vec(&comps)?));
            }
            Op::MatrixTimesMatrix => {
                let (_, a) = self.get(arg(0)?)?;
                let (_, b) = self.get(arg(1)?)?;
                let acols = self.mat_cols(&a)?;
                let bcols = self.mat_cols(&b)?;
                let mut out = Vec::new();
                for bc in bcols {
                    out.push(Val::Ssa(self.mat_vec(&acols, bc)?));
                }
                return Ok(Val::Comp(out));
            }
            Op::OuterProduct => {
                let c = self.ssa(arg(0)?)?;
                let r = self.ssa(arg(1)?)?;
                let mut out = Vec::new();
                for j in 0..self.ty(r).comps {
                    let s = self.channel(r, j)?;
                    let s = self.splat(s, self.ty(c).comps)?;
                    out.push(Val::Ssa(self.alu_same(AluOp::Fmul, &[c, s])?));
                }
                return Ok(Val::Comp(out));
            }
            Op::Select => {
                let c = self.ssa(arg(0)?)?;
                let (_, a) = self.get(arg(1)?)?;
                let (_, b) = self.get(arg(2)?)?;
                let (a, b) = (self.pointer_as_value(a)?, self.pointer_as_value(b)?);
                if !self.ty(c).is_bool() {
                    return Err(self.invalid("select condition is not boolean"));
                }
                if let (Val::Ssa(a), Val::Ssa(b)) = (&a, &b) {
                    return Ok(Val::Ssa(self.bcsel(c, *a, *b)?));
                }
                if self.ty(c).comps != 1 {
                    return Err(self.invalid("vector condition for a composite select"));
                }
                return self.select_val(c, &a, &b);
            }
            Op::IAddCarry | Op::ISubBorrow | Op::UMulExtended | Op::SMulExtended => {
                let a = self.ssa(arg(0)?)?;
                let b = self.ssa(arg(1)?)?;
                let (lo, hi) = match op {
                    Op::IAddCarry => {
                        let s = self.alu_same(AluOp::Iadd, &[a, b])?;
                        let c = self.compare(AluOp::Ult, s, a)?;
                        let t = self.ty(a);
                        (s, self.alu(AluOp::B2i, t, &[c])?)
                    }
                    Op::ISubBorrow => {
                        let s = self.alu_same(AluOp::Isub, &[a, b])?;
                        let c = self.compare(AluOp::Ult, a, b)?;
                        let t = self.ty(a);
                        (s, self.alu(AluOp::B2i, t, &[c])?)
                    }
                    Op::UMulExtended => (
                        self.alu_same(AluOp::Imul, &[a, b])?,
                        self.alu_same(AluOp::UmulHigh, &[a, b])?,
                    ),
                    _ => (
                        self.alu_same(AluOp::Imul, &[a, b])?,
                        self.alu_same(AluOp::ImulHigh, &[a, b])?,
                    ),
                };
                return Ok(Val::Comp(vec![Val::Ssa(lo), Val::Ssa(hi)]));
            }
            _ => {}
        }
        let vt = self.result_vt(ty)?;
        let float = m.is_float(ty);
        let _ = float;
        let a = |s: &mut Self| -> Result<Value> { s.ssa(arg(0)?) };
        let b = |s: &mut Self| -> Result<Value> { s.ssa(arg(1)?) };
        // Same-type unary and binary ops.
        let same: Option<AluOp> = match op {
            Op::IAdd => Some(AluOp::Iadd),
            Op::ISub => Some(AluOp::Isub),
            Op::IMul => Some(AluOp::Imul),
            Op::UDiv => Some(AluOp::Udiv),
            Op::SDiv => Some(AluOp::Idiv),
            Op::UMod => Some(AluOp::Umod),
            Op::SRem => Some(AluOp::Irem),
            Op::SMod => Some(AluOp::Imod),
            Op::FAdd => Some(AluOp::Fadd),
            Op::FSub => Some(AluOp::Fsub),
            Op::FMul => Some(AluOp::Fmul),
            Op::FDiv => Some(AluOp::Fdiv),
            Op::BitwiseAnd | Op::LogicalAnd => Some(AluOp::Iand),
            Op::BitwiseOr | Op::LogicalOr => Some(AluOp::Ior),
            Op::BitwiseXor => Some(AluOp::Ixor),
            Op::SNegate => Some(AluOp::Ineg),
            Op::FNegate => Some(AluOp::Fneg),
            Op::Not | Op::LogicalNot => Some(AluOp::Inot),
            Op::BitReverse => Some(AluOp::BitfieldReverse),
            _ => None,
        };
        if let Some(aop) = same {
            let mut srcs = vec![a(self)?];
            if aop.num_srcs() == 2 {
                srcs.push(b(self)?);
            }
            for &s in &srcs {
                self.expect(s, vt)?;
            }
            return Ok(Val::Ssa(self.alu(aop, vt, &srcs)?));
        }
        let cmp_op: Option<(AluOp, bool)> = match op {
            Op::IEqual | Op::LogicalEqual => Some((AluOp::Ieq, false)),
            Op::INotEqual | Op::LogicalNotEqual => Some((AluOp::Ine, false)),
            Op::SLessThan => Some((AluOp::Ilt, false)),
            Op::SGreaterThan => Some((AluOp::Ilt, true)),
            Op::SLessThanEqual => Some((AluOp::Ige, true)),
            Op::SGreaterThanEqual => Some((AluOp::Ige, false)),
            Op::ULessThan => Some((AluOp::Ult, false)),
            Op::UGreaterThan => Some((AluOp::Ult, true)),
            Op::ULessThanEqual => Some((AluOp::Uge, true)),
            Op::UGreaterThanEqual => Some((AluOp::Uge, false)),
            Op::FOrdEqual => Some((AluOp::Feq, false)),
            Op::FUnordNotEqual => Some((AluOp::Fneu, false)),
            Op::FOrdLessThan => Some((AluOp::Flt, false)),
            Op::FOrdGreaterThan => Some((AluOp::Flt, true)),
            Op::FOrdLessThanEqual => Some((AluOp::Fge, true)),
            Op::FOrdGreaterThanEqual => Some((AluOp::Fge, false)),
            _ => None,
        };
        if let Some((cop, swap)) = cmp_op {
            let (x, y) = (a(self)?, b(self)?);
            let r = self.cmp(x, y, cop, swap)?;
            if self.ty(r) != vt {
                return Err(self.invalid("comparison result type"));
            }
            return Ok(Val::Ssa(r));
        }
        let v = match op {
            Op::FRem | Op::FMod => {
                let (x, y) = (a(self)?, b(self)?);
                self.expect(x, vt)?;
                self.expect(y, vt)?;
                let q = self.alu_same(AluOp::Fdiv, &[x, y])?;
                let r = self.alu_same(
                    if op == Op::FMod {
                        AluOp::Ffloor
                    } else {
                        AluOp::Ftrunc
                    },
                    &[q],
                )?;
                let p = self.alu_same(AluOp::Fmul, &[y, r])?;
                self.alu_same(AluOp::Fsub, &[x, p])?
            }
            Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
                let (x, s) = (a(self)?, b(self)?);
                self.expect(x, vt)?;
                let st = self.ty(s);
                if st.comps != vt.comps || st.is_bool() {
                    return Err(self.invalid("shift count shape differs"));
                }
                let s = if st.bits == 32 {
                    s
                } else {
                    self.alu(AluOp::U2u, ValueType::new(32, st.comps), &[s])?
                };
                let aop = match op {
                    Op::ShiftLeftLogical => AluOp::Ishl,
                    Op::ShiftRightLogical => AluOp::Ushr,
                    _ => AluOp::Ishr,
                };
                self.alu(aop, vt, &[x, s])?
            }
            Op::BitFieldInsert => {
                let (base, ins) = (a(self)?, b(self)?);
                let off = self.ssa(arg(2)?)?;
                let cnt = self.ssa(arg(3)?)?;
                self.expect(base, vt)?;
                self.expect(ins, vt)?;
                let off = self.splat_count(off, vt)?;
                let cnt = self.splat_count(cnt, vt)?;
                self.alu(AluOp::BitfieldInsert, vt, &[base, ins, off, cnt])?
            }
            Op::BitFieldSExtract | Op::BitFieldUExtract => {
                let base = a(self)?;
                self.expect(base, vt)?;
                let off = self.ssa(arg(1)?)?;
                let cnt = self.ssa(arg(2)?)?;
                let off = self.splat_count(off, vt)?;
                let cnt = self.splat_count(cnt, vt)?;
                let aop = if op == Op::BitFieldSExtract {
                    AluOp::IbitfieldExtract
                } else {
                    AluOp::UbitfieldExtract
                };
                self.alu(aop, vt, &[base, off, cnt])?
            }
            Op::BitCount => {
                let x = a(self)?;
                if self.ty(x).comps != vt.comps {
                    return Err(self.invalid("bit count shape differs"));
                }
                let r = self.alu(AluOp::BitCount, ValueType::new(32, vt.comps), &[x])?;
                self.resize_int(r, vt)?
            }
            Op::VectorTimesScalar => {
                let (x, s) = (a(self)?, b(self)?);
                self.expect(x, vt)?;
                self.expect(s, vt.scalar())?;
                let s = self.splat(s, vt.comps)?;
                self.alu(AluOp::Fmul, vt, &[x, s])?
            }
            Op::Dot => {
                let (x, y) = (a(self)?, b(self)?);
                if self.ty(x) != self.ty(y) || self.ty(x).scalar() != vt {
                    return Err(self.invalid("dot operand types"));
                }
                self.dot(x, y)?
            }
            Op::Any | Op::All => {
                let x = a(self)?;
                if !self.ty(x).is_bool() || vt != ValueType::BOOL {
                    return Err(self.invalid("any/all operand is not a boolean vector"));
                }
                self.reduce(
                    if op == Op::Any {
                        AluOp::Ior
                    } else {
                        AluOp::Iand
                    },
                    x,
                )?
            }
            Op::IsNan => {
                let x = a(self)?;
                self.compare(AluOp::Fneu, x, x)?
            }
            Op::IsInf => {
                let x = a(self)?;
                let ax = self.alu_same(AluOp::Fabs, &[x])?;
                let inf = self.fconst(self.ty(x), f64::INFINITY)?;
                self.compare(AluOp::Feq, ax, inf)?
            }
            Op::FOrdNotEqual | Op::FUnordEqual => {
                let (x, y) = (a(self)?, b(self)?);
                let lt = self.compare(AluOp::Flt, x, y)?;
                let gt = self.compare(AluOp::Flt, y, x)?;
                let ne = self.alu_same(AluOp::Ior, &[lt, gt])?;
                if op == Op::FOrdNotEqual {
                    ne
                } else {
                    self.alu_same(AluOp::Inot, &[ne])?
                }
            }
            Op::FUnordLessThan
            | Op::FUnordGreaterThan
            | Op::FUnordLessThanEqual
            | Op::FUnordGreaterThanEqual => {
                // Unordered x < y is !(x >= y), and so on.
                let (x, y) = (a(self)?, b(self)?);
                let ord = match op {
                    Op::FUnordLessThan => self.compare(AluOp::Fge, x, y)?,
                    Op::FUnordGreaterThan => self.compare(AluOp::Fge, y, x)?,
                    Op::FUnordLessThanEqual => self.compare(AluOp::Flt, y, x)?,
                    _ => self.compare(AluOp::Flt, x, y)?,
                };
                self.alu_same(AluOp::Inot, &[ord])?
            }
            Op::ConvertFToS
            | Op::ConvertFToU
            | Op::ConvertSToF
            | Op::ConvertUToF
            | Op::SConvert
            | Op::UConvert
            | Op::FConvert => {
                let x = a(self)?;
                if self.ty(x).comps != vt.comps || self.ty(x).is_bool() {
                    return Err(self.invalid("conversion operand shape differs"));
                }
                let aop = match op {
                    Op::ConvertFToS => AluOp::F2i,
                    Op::ConvertFToU => AluOp::F2u,
                    Op::ConvertSToF => AluOp::I2f,
                    Op::ConvertUToF => AluOp::U2f,
                    Op::SConvert => AluOp::I2i,
                    Op::UConvert => AluOp::U2u,
                    _ => AluOp::F2f,
                };
                if matches!(op, Op::SConvert | Op::UConvert | Op::FConvert) && self.ty(x) == vt {
                    x
                } else {
                    self.alu(aop, vt, &[x])?
                }
            }
            // A physical pointer is its 64-bit address (`Module::value_type`):
            // narrower integers are zero-extended, wider truncated (SPIR-V
            // spec, OpConvertUToPtr and OpConvertPtrToU).
            Op::ConvertUToPtr | Op::ConvertPtrToU => {
                let (xty, _) = self.get(arg(0)?)?;
                let x = a(self)?;
                let xt = self.ty(x);
                let (from_ptr, to_ptr) = (
                    self.m.is_physical_pointer(xty),
                    self.m.is_physical_pointer(ty),
                );
                let ints = !self.m.is_float(xty) && !self.m.is_float(ty);
                let kinds = match op {
                    Op::ConvertUToPtr => to_ptr && !from_ptr,
                    _ => from_ptr && !to_ptr,
                };
                if !kinds || !ints || xt.comps != 1 || xt.is_bool() || vt.comps != 1 || vt.is_bool()
                {
                    return Err(self.invalid(
                        "pointer conversion between other than an integer scalar and a physical pointer",
                    ));
                }
                if xt == vt {
                    x
                } else {
                    self.alu(AluOp::U2u, vt, &[x])?
                }
            }
            Op::Bitcast => {
                let x = a(self)?;
                let xt = self.ty(x);
                if xt.is_bool()
                    || vt.is_bool()
                    || u32::from(xt.bits) * u32::from(xt.comps)
                        != u32::from(vt.bits) * u32::from(vt.comps)
                {
                    return Err(self.invalid("bitcast between types of different sizes"));
                }
                if xt == vt {
                    x
                } else {
                    self.alu(AluOp::Bitcast, vt, &[x])?
                }
            }
            Op::VectorShuffle => {
                let (x, y) = (a(self)?, b(self)?);
                let (xt, yt) = (self.ty(x), self.ty(y));
                if xt.bits != vt.bits || yt.bits != vt.bits {
                    return Err(self.invalid("shuffle operand types"));
                }
                let sel = inst.rest(4);
                if sel.len() != vt.comps as usize {
                    return Err(self.invalid("shuffle size differs from the result"));
                }
                // One swizzle when every component comes from the same source.
                let (nx, ny) = (u32::from(xt.comps), u32::from(yt.comps));
                if sel.iter().all(|&s| s < nx) {
                    let c: Vec<u8> = sel.iter().map(|&s| s as u8).collect();
                    return Ok(Val::Ssa(self.swizzle(x, &c)?));
                }
                if sel.iter().all(|&s| s >= nx && s - nx < ny) {
                    let c: Vec<u8> = sel.iter().map(|&s| (s - nx) as u8).collect();
                    return Ok(Val::Ssa(self.swizzle(y, &c)?));
                }
                let mut comps = Vec::new();
                for &s in sel {
                    comps.push(if s == u32::MAX {
                        self.emit(vt.scalar(), IrOp::Undef)?
                    } else if s < u32::from(xt.comps) {
                        self.channel(x, s as u8)?
                    } else if s - u32::from(xt.comps) < u32::from(yt.comps) {
                        self.channel(y, (s - u32::from(xt.comps)) as u8)?
                    } else {
                        return Err(self.invalid(format!("shuffle component {s} out of range")));
                    });
                }
                self.vec(&comps)?
            }
            Op::VectorExtractDynamic => {
                let (x, i) = (a(self)?, b(self)?);
                if self.ty(x).scalar() != vt || self.ty(i).comps != 1 || self.ty(i).is_bool() {
                    return Err(self.invalid("dynamic extract operand types"));
                }
                let i = if self.ty(i).bits == 32 {
                    i
                } else {
                    self.alu(AluOp::U2u, ValueType::U32, &[i])?
                };
                let n = self.ty(x).comps;
                let mut acc = self.channel(x, n - 1)?;
                for c in (0..n - 1).rev() {
                    let k = self.u32c(u32::from(c))?;
                    let is = self.compare(AluOp::Ieq, i, k)?;
                    let xc = self.channel(x, c)?;
                    acc = self.bcsel(is, xc, acc)?;
                }
                acc
            }
            Op::VectorInsertDynamic => {
                let (x, s) = (a(self)?, b(self)?);
                let i = self.ssa(arg(2)?)?;
                self.expect(x, vt)?;
                self.expect(s, vt.scalar())?;
                if self.ty(i).comps != 1 || self.ty(i).is_bool() {
                    return Err(self.invalid("dynamic insert index type"));
                }
                let i = if self.ty(i).bits == 32 {
                    i
                } else {
                    self.alu(AluOp::U2u, ValueType::U32, &[i])?
                };
                let mut comps = Vec::new();
                for c in 0..vt.comps {
                    let k = self.u32c(u32::from(c))?;
                    let is = self.compare(AluOp::Ieq, i, k)?;
                    let xc = self.channel(x, c)?;
                    comps.push(self.bcsel(is, s, xc)?);
                }
                self.vec(&comps)?
            }
            Op::QuantizeToF16 => return Err(inst.unsupported("OpQuantizeToF16")),
            _ => return Err(inst.unsupported("instruction")),
        };
        if self.ty(v) != vt {
            return Err(self.invalid(format!("result has type {}, expected {vt}", self.ty(v))));
        }
        let _ = Type::Void;
        Ok(Val::Ssa(v))
    }

    fn cmp(&mut self, a: Value, b: Value, op: AluOp, swap: bool) -> Result<Value> {
        if swap {
            self.compare(op, b, a)
        } else {
            self.compare(op, a, b)
        }
    }

    /// A bitfield offset/count operand as a 32-bit value with `vt`'s component count.
    fn splat_count(&mut self, v: Value, vt: ValueType) -> Result<Value> {
        let t = self.ty(v);
        if t.comps != 1 || t.is_bool() {
            return Err(self.invalid("bitfield offset/count is not an integer scalar"));
        }
        let v = if t.bits == 32 {
            v
        } else {
            self.alu(AluOp::U2u, ValueType::U32, &[v])?
        };
        self.splat(v, vt.comps)
    }

    /// Convert a 32-bit integer result to the bit size of `vt`.
    pub fn resize_int(&mut self, v: Value, vt: ValueType) -> Result<Value> {
        if self.ty(v).bits == vt.bits {
            Ok(v)
        } else {
            self.alu(AluOp::I2i, vt, &[v])
        }
    }
}
