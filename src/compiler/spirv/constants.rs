//! Constants and specialization constants.
//!
//! Constants are folded to bit patterns at module level (`Cst`), with the
//! caller's specialization data applied to `SpecId`-decorated constants and
//! `OpSpecConstantOp` evaluated on the result, as a driver must at pipeline
//! creation. Nothing here emits IR; `function.rs` materializes constants where
//! they are used. Integer arithmetic wraps and division by zero gives 0:
//! folding must never panic on hostile operands.

use spirv::Op;

use super::SpecConstants;
use super::error::{Result, SpirvError};
use super::module::{Def, Module};
use super::reader::Inst;
use super::types::{MAX_LEAVES, Type};

/// A folded constant: scalars as zero-extended bit patterns.
#[derive(Clone, Debug, PartialEq)]
pub enum Cst {
    Scalar(u64),
    Composite(Vec<Cst>),
    Undef,
}

impl Cst {
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Cst::Scalar(v) => Some(*v),
            _ => None,
        }
    }
}

fn mask(v: u64, width: u32) -> u64 {
    if width >= 64 {
        v
    } else {
        v & ((1u64 << width) - 1)
    }
}

fn sext(v: u64, width: u32) -> i64 {
    if width >= 64 {
        v as i64
    } else {
        let shift = 64 - width;
        ((v << shift) as i64) >> shift
    }
}

impl Module<'_> {
    /// Scalar bit width of a bool/int/float type (1 for bool), or `None`.
    pub fn scalar_width(&self, ty: u32) -> Option<u32> {
        match self.ty(ty).ok()? {
            Type::Bool => Some(1),
            Type::Int { width, .. } | Type::Float { width } => Some(u32::from(*width)),
            _ => None,
        }
    }

    /// The all-zero constant of a type.
    pub fn zero(&self, inst: &Inst, ty: u32, depth: u32) -> Result<Cst> {
        if depth > 64 {
            return Err(inst.limit("constant nesting deeper than 64"));
        }
        if self.scalar_width(ty).is_some() {
            return Ok(Cst::Scalar(0));
        }
        let n = self
            .child_count(ty)
            .ok_or_else(|| inst.unsupported("null constant of this type"))?;
        if n as usize > MAX_LEAVES {
            return Err(inst.limit(format!("null constant with {n} elements")));
        }
        let mut out = Vec::new();
        for i in 0..n {
            let c = self
                .child_type(ty, i)
                .ok_or_else(|| inst.invalid("bad type"))?;
            out.push(self.zero(inst, c, depth + 1)?);
        }
        Ok(Cst::Composite(out))
    }

    fn const_operand(&self, inst: &Inst, id: u32) -> Result<(u32, Cst)> {
        match self.def(id)? {
            Def::Const { ty, value } => Ok((*ty, value.clone())),
            _ => Err(inst.invalid(format!("%{id} is not a constant"))),
        }
    }

    pub(super) fn constant(
        &mut self,
        inst: &Inst,
        op: Op,
        ty: u32,
        id: u32,
        spec: &SpecConstants,
    ) -> Result<Cst> {
        let spec_data = |m: &mut Self| -> Option<(u32, Vec<u8>)> {
            let sid = m.decos(id).and_then(|d| d.spec_id)?;
            let data = spec.get(&sid)?.clone();
            m.applied_spec_ids.push(sid);
            Some((sid, data))
        };
        match op {
            Op::Undef => Ok(Cst::Undef),
            Op::ConstantNull => {
                self.leaf_types(ty)
                    .map_err(|_| inst.limit("null constant too large"))?;
                self.zero(inst, ty, 0)
            }
            Op::ConstantTrue | Op::ConstantFalse | Op::SpecConstantTrue | Op::SpecConstantFalse => {
                if !matches!(self.ty(ty)?, Type::Bool) {
                    return Err(inst.invalid("boolean constant of a non-boolean type"));
                }
                let mut v = matches!(op, Op::ConstantTrue | Op::SpecConstantTrue);
                if matches!(op, Op::SpecConstantTrue | Op::SpecConstantFalse)
                    && let Some((sid, data)) = spec_data(self)
                {
                    if data.len() != 4 {
                        return Err(SpirvError::Specialization {
                            spec_id: sid,
                            rule: format!("boolean needs 4 bytes (VkBool32), got {}", data.len()),
                        });
                    }
                    v = data.iter().any(|&b| b != 0);
                }
                Ok(Cst::Scalar(u64::from(v)))
            }
            Op::Constant | Op::SpecConstant => {
                let width = match self.ty(ty)? {
                    Type::Int { width, .. } | Type::Float { width } => u32::from(*width),
                    _ => return Err(inst.invalid("scalar constant of a non-numeric type")),
                };
                let words = inst.rest(2);
                let need = if width == 64 { 2 } else { 1 };
                if words.len() != need {
                    return Err(inst.invalid(format!(
                        "{width}-bit constant needs {need} literal words, has {}",
                        words.len()
                    )));
                }
                let mut v = u64::from(words[0]);
                if need == 2 {
                    v |= u64::from(words[1]) << 32;
                }
                if op == Op::SpecConstant
                    && let Some((sid, data)) = spec_data(self)
                {
                    let bytes = (width / 8) as usize;
                    if data.len() != bytes {
                        return Err(SpirvError::Specialization {
                            spec_id: sid,
                            rule: format!(
                                "{width}-bit constant needs {bytes} bytes, got {}",
                                data.len()
                            ),
                        });
                    }
                    let mut b = [0u8; 8];
                    b[..bytes].copy_from_slice(&data);
                    v = u64::from_le_bytes(b);
                }
                Ok(Cst::Scalar(mask(v, width)))
            }
            Op::ConstantComposite | Op::SpecConstantComposite => {
                // Bounds the constant's size (its shape is its type's).
                self.leaf_types(ty)
                    .map_err(|_| inst.limit("composite constant too large"))?;
                let parts = inst.rest(2);
                let n = self
                    .child_count(ty)
                    .ok_or_else(|| inst.invalid("composite constant of a non-composite type"))?;
                if parts.len() != n as usize {
                    return Err(
                        inst.invalid(format!("{} constituents for a type with {n}", parts.len()))
                    );
                }
                let mut out = Vec::with_capacity(parts.len());
                for (i, &p) in parts.iter().enumerate() {
                    let (pty, c) = self.const_operand(inst, p)?;
                    if self.child_type(ty, i as u32) != Some(pty) {
                        return Err(inst.invalid(format!("constituent {i} has the wrong type")));
                    }
                    out.push(c);
                }
                Ok(Cst::Composite(out))
            }
            Op::SpecConstantOp => self.spec_op(inst, ty),
            _ => Err(inst.unsupported("constant instruction")),
        }
    }

    /// Fold an `OpSpecConstantOp`.
    fn spec_op(&self, inst: &Inst, ty: u32) -> Result<Cst> {
        let opcode = inst.word(2)?;
        let op = Op::from_u32(opcode)
            .ok_or_else(|| inst.invalid("unknown opcode in OpSpecConstantOp"))?;
        let args = inst.rest(3);
        let arg = |i: usize| -> Result<(u32, Cst)> {
            let id = *args.get(i).ok_or_else(|| {
                inst.invalid(format!("OpSpecConstantOp {op:?} lacks operand {i}"))
            })?;
            self.const_operand(inst, id)
        };
        match op {
            Op::VectorShuffle => {
                let (_, a) = arg(0)?;
                let (_, b) = arg(1)?;
                let mut all = Vec::new();
                for c in [a, b] {
                    match c {
                        Cst::Composite(v) => all.extend(v),
                        other => all.push(other),
                    }
                }
                let mut out = Vec::new();
                for &sel in args.get(2..).unwrap_or(&[]) {
                    out.push(if sel == u32::MAX {
                        Cst::Undef
                    } else {
                        all.get(sel as usize)
                            .cloned()
                            .ok_or_else(|| inst.invalid("shuffle index out of range"))?
                    });
                }
                if Some(out.len() as u32) != self.child_count(ty) {
                    return Err(inst.invalid("shuffle size does not match the result"));
                }
                return Ok(Cst::Composite(out));
            }
            Op::CompositeExtract => {
                let (_, mut c) = arg(0)?;
                for &i in args.get(1..).unwrap_or(&[]) {
                    c = match c {
                        Cst::Composite(v) => v
                            .get(i as usize)
                            .cloned()
                            .ok_or_else(|| inst.invalid("extract index out of range"))?,
                        _ => return Err(inst.invalid("extract from a scalar")),
                    };
                }
                return Ok(c);
            }
            Op::CompositeInsert => {
                let (_, obj) = arg(0)?;
                let (_, mut comp) = arg(1)?;
                let path = args.get(2..).unwrap_or(&[]);
                fn insert(c: &mut Cst, path: &[u32], obj: Cst) -> bool {
                    match path.split_first() {
                        None => {
                            *c = obj;
                            true
                        }
                        Some((&i, rest)) => match c {
                            Cst::Composite(v) => match v.get_mut(i as usize) {
                                Some(child) => insert(child, rest, obj),
                                None => false,
                            },
                            _ => false,
                        },
                    }
                }
                if !insert(&mut comp, path, obj) {
                    return Err(inst.invalid("insert index out of range"));
                }
                return Ok(comp);
            }
            Op::Select => {
                let (_, c) = arg(0)?;
                let (_, a) = arg(1)?;
                let (_, b) = arg(2)?;
                return Ok(match (c, a, b) {
                    (Cst::Scalar(c), a, b) => {
                        if c != 0 {
                            a
                        } else {
                            b
                        }
                    }
                    (Cst::Composite(c), Cst::Composite(a), Cst::Composite(b))
                        if c.len() == a.len() && a.len() == b.len() =>
                    {
                        Cst::Composite(
                            c.into_iter()
                                .zip(a.into_iter().zip(b))
                                .map(|(c, (a, b))| if c.as_u64().unwrap_or(0) != 0 { a } else { b })
                                .collect(),
                        )
                    }
                    _ => return Err(inst.invalid("select operand shapes differ")),
                });
            }
            _ => {}
        }
        // Component-wise integer and logical operations.
        let rw = self
            .scalar_width(self.scalar_of(ty))
            .ok_or_else(|| inst.invalid("OpSpecConstantOp result is not numeric"))?;
        let (aty, a) = arg(0)?;
        let aw = self.scalar_width(self.scalar_of(aty)).unwrap_or(32);
        let b = if args.len() > 1 {
            Some(arg(1)?.1)
        } else {
            None
        };
        let signed_src = matches!(
            self.ty(self.scalar_of(aty))?,
            Type::Int { signed: true, .. }
        );
        let f = |x: u64, y: u64| -> Result<u64> {
            let w = aw;
            let sx = sext(x, w);
            let sy = sext(y, w);
            let sh = (y % u64::from(w.max(1))) as u32;
            Ok(match op {
                Op::SConvert => sext(x, w) as u64,
                Op::UConvert => x,
                Op::SNegate => sx.wrapping_neg() as u64,
                Op::Not => !x,
                Op::IAdd => x.wrapping_add(y),
                Op::ISub => x.wrapping_sub(y),
                Op::IMul => x.wrapping_mul(y),
                Op::UDiv => x.checked_div(y).unwrap_or(0),
                Op::SDiv => sx.checked_div(sy).unwrap_or(0) as u64,
                Op::UMod => x.checked_rem(y).unwrap_or(0),
                Op::SRem => sx.checked_rem(sy).unwrap_or(0) as u64,
                Op::SMod => {
                    let r = sx.checked_rem(sy).unwrap_or(0);
                    (if r != 0 && (r < 0) != (sy < 0) {
                        r.wrapping_add(sy)
                    } else {
                        r
                    }) as u64
                }
                Op::ShiftRightLogical => mask(x, w) >> sh,
                Op::ShiftRightArithmetic => (sx >> sh) as u64,
                Op::ShiftLeftLogical => x << sh,
                Op::BitwiseOr | Op::LogicalOr => x | y,
                Op::BitwiseXor => x ^ y,
                Op::BitwiseAnd | Op::LogicalAnd => x & y,
                Op::LogicalNot => u64::from(x == 0),
                Op::LogicalEqual => u64::from((x != 0) == (y != 0)),
                Op::LogicalNotEqual => u64::from((x != 0) != (y != 0)),
                Op::IEqual => u64::from(mask(x, w) == mask(y, w)),
                Op::INotEqual => u64::from(mask(x, w) != mask(y, w)),
                Op::ULessThan => u64::from(mask(x, w) < mask(y, w)),
                Op::UGreaterThan => u64::from(mask(x, w) > mask(y, w)),
                Op::ULessThanEqual => u64::from(mask(x, w) <= mask(y, w)),
                Op::UGreaterThanEqual => u64::from(mask(x, w) >= mask(y, w)),
                Op::SLessThan => u64::from(sx < sy),
                Op::SGreaterThan => u64::from(sx > sy),
                Op::SLessThanEqual => u64::from(sx <= sy),
                Op::SGreaterThanEqual => u64::from(sx >= sy),
                _ => return Err(inst.unsupported(format!("OpSpecConstantOp {op:?}"))),
            })
        };
        let _ = signed_src;
        let binary = !matches!(
            op,
            Op::SConvert | Op::UConvert | Op::SNegate | Op::Not | Op::LogicalNot
        );
        let one = |x: &Cst, y: Option<&Cst>| -> Result<Cst> {
            match (x, y) {
                (Cst::Scalar(x), Some(Cst::Scalar(y))) => Ok(Cst::Scalar(mask(f(*x, *y)?, rw))),
                (Cst::Scalar(x), None) => Ok(Cst::Scalar(mask(f(*x, 0)?, rw))),
                (Cst::Undef, _) | (_, Some(Cst::Undef)) => Ok(Cst::Undef),
                _ => Err(inst.invalid("operand shapes differ")),
            }
        };
        if binary && b.is_none() {
            return Err(inst.invalid(format!("OpSpecConstantOp {op:?} needs two operands")));
        }
        match (&a, &b) {
            (Cst::Composite(xs), Some(Cst::Composite(ys))) if xs.len() == ys.len() => {
                Ok(Cst::Composite(
                    xs.iter()
                        .zip(ys)
                        .map(|(x, y)| one(x, Some(y)))
                        .collect::<Result<_>>()?,
                ))
            }
            (Cst::Composite(xs), None) => Ok(Cst::Composite(
                xs.iter().map(|x| one(x, None)).collect::<Result<_>>()?,
            )),
            (x, y) => one(x, y.as_ref()),
        }
    }
}
