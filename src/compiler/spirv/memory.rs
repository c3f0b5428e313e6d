//! Explicit-layout memory (push constants, UBOs, SSBOs, shared memory):
//! byte offsets from access chains under the layout rules in force, and
//! loads and stores of whole values as per-leaf memory accesses.

use crate::compiler::ir::*;

use super::error::Result;
use super::function::{Translator, Val};
use super::types::{MAX_LEAVES, Type};
use super::variables::*;

impl<'m> Translator<'m> {
    pub(super) fn add_offset(&mut self, mem: &mut Mem, idx: Index, stride: u32) -> Result<()> {
        match idx {
            Index::Const(i) => {
                let add = i
                    .checked_mul(stride)
                    .ok_or_else(|| self.limit("byte offset beyond 4 GiB"))?;
                mem.off_c = mem
                    .off_c
                    .checked_add(add)
                    .ok_or_else(|| self.limit("byte offset beyond 4 GiB"))?;
            }
            Index::Dyn(v) => {
                let s = self.u32c(stride)?;
                let scaled = self.alu_same(AluOp::Imul, &[v, s])?;
                mem.off_d = Some(match mem.off_d {
                    Some(d) => self.alu_same(AluOp::Iadd, &[d, scaled])?,
                    None => scaled,
                });
            }
        }
        Ok(())
    }

    pub(super) fn mem_step(&mut self, mut mem: Mem, ty: u32, idx: Index) -> Result<Mem> {
        let m = self.m;
        match m.ty(ty)?.clone() {
            Type::Struct { .. } => {
                let Index::Const(i) = idx else {
                    return Err(self.invalid("struct member index is not a constant"));
                };
                let off = m.member_offset(ty, i)?;
                mem.off_c = mem
                    .off_c
                    .checked_add(off)
                    .ok_or_else(|| self.limit("byte offset beyond 4 GiB"))?;
                let d = m.member_decos(ty, i);
                mem.mat = d.and_then(|d| d.matrix_stride.map(|s| (s, d.row_major)));
                mem.comp_stride = None;
            }
            Type::Array { .. } | Type::RuntimeArray { .. } => {
                let stride = m.array_stride(ty)?;
                self.add_offset(&mut mem, idx, stride)?;
            }
            Type::Matrix { col, n: _ } => {
                let es = m.natural_size_align(m.scalar_of(col), 1)?.0;
                let (ms, row_major) = match mem.mat {
                    Some(x) => x,
                    None => {
                        let (s, a) = m.natural_size_align(col, 1)?;
                        (super::types::round_up(s, a)?, false)
                    }
                };
                if row_major {
                    self.add_offset(&mut mem, idx, es)?;
                    mem.comp_stride = Some(ms);
                } else {
                    self.add_offset(&mut mem, idx, ms)?;
                    mem.comp_stride = None;
                }
            }
            Type::Vector { elem, .. } => {
                let es = m.natural_size_align(elem, 1)?.0;
                let cs = mem.comp_stride.unwrap_or(es);
                self.add_offset(&mut mem, idx, cs)?;
                mem.comp_stride = None;
            }
            _ => return Err(self.invalid(format!("cannot index into %{ty}"))),
        }
        Ok(mem)
    }

    pub(super) fn mem_offset(&mut self, mem: &Mem) -> Result<Value> {
        match mem.off_d {
            Some(d) if mem.off_c == 0 => Ok(d),
            Some(d) => {
                let c = self.u32c(mem.off_c)?;
                self.alu_same(AluOp::Iadd, &[d, c])
            }
            None => self.u32c(mem.off_c),
        }
    }

    /// `OpArrayLength`: the elements of the runtime array that is member
    /// `member` of the SSBO block `base` points to, from the bound range's
    /// size: `(size − start) / ArrayStride`, 0 when the range ends before
    /// the array starts (SPIR-V spec, OpArrayLength; Vulkan spec, "Shader
    /// Resource Interface": the length is computed from the bound range).
    pub(super) fn array_length(&mut self, base: &Val, member: u32) -> Result<Value> {
        let Val::Ptr(p) = base else {
            return Err(self.invalid("OpArrayLength of a non-pointer"));
        };
        let Root::Mem(mem) = &p.root else {
            return Err(self.invalid("OpArrayLength outside a storage buffer"));
        };
        let Space::Ssbo { set, binding } = mem.space else {
            return Err(self.invalid("OpArrayLength outside a storage buffer"));
        };
        if mem.off_d.is_some() {
            return Err(self.invalid("OpArrayLength of a dynamically indexed block"));
        }
        let array = match self.m.ty(p.ty)? {
            Type::Struct { members } => members.get(member as usize).copied(),
            _ => None,
        };
        let Some(array) = array.filter(|&a| matches!(self.m.ty(a), Ok(Type::RuntimeArray { .. })))
        else {
            return Err(self.invalid("OpArrayLength of a member that is no runtime array"));
        };
        let start = mem
            .off_c
            .checked_add(self.m.member_offset(p.ty, member)?)
            .ok_or_else(|| self.invalid("runtime array offset overflows"))?;
        let stride = self.m.array_stride(array)?.max(1);
        let u32t = ValueType::U32;
        let size = self.intrinsic(Intrinsic::BufferSize { set, binding }, u32t, &[])?;
        let start = self.u32c(start)?;
        let stride = self.u32c(stride)?;
        let room = self.alu(AluOp::Isub, u32t, &[size, start])?;
        let fits = self.alu(AluOp::Uge, ValueType::BOOL, &[size, start])?;
        let zero = self.u32c(0)?;
        let room = self.alu(AluOp::Bcsel, u32t, &[fits, room, zero])?;
        self.alu(AluOp::Udiv, u32t, &[room, stride])
    }

    pub(super) fn mem_load_leaf(&mut self, mem: &Mem, vt: ValueType) -> Result<Value> {
        let load_ty = if vt.is_bool() {
            ValueType::new(32, vt.comps)
        } else {
            vt
        };
        let v = match mem.space {
            Space::Push => {
                let d = match mem.off_d {
                    Some(d) => d,
                    None => self.u32c(0)?,
                };
                self.intrinsic(
                    Intrinsic::LoadPushConstant { base: mem.off_c },
                    load_ty,
                    &[d],
                )?
            }
            Space::Ubo { set, binding } => {
                let o = self.mem_offset(mem)?;
                self.intrinsic(Intrinsic::LoadUbo { set, binding }, load_ty, &[o])?
            }
            Space::Ssbo { set, binding } => {
                let o = self.mem_offset(mem)?;
                self.intrinsic(Intrinsic::LoadSsbo { set, binding }, load_ty, &[o])?
            }
            Space::Shared => {
                let o = self.mem_offset(mem)?;
                self.intrinsic(Intrinsic::LoadShared, load_ty, &[o])?
            }
        };
        if vt.is_bool() {
            let zero = self.konst(load_ty, &vec![0; vt.comps as usize])?;
            self.compare(AluOp::Ine, v, zero)
        } else {
            Ok(v)
        }
    }

    pub(super) fn mem_store_leaf(&mut self, mem: &Mem, v: Value) -> Result<()> {
        let vt = self.ty(v);
        let v = if vt.is_bool() {
            self.alu(AluOp::B2i, ValueType::new(32, vt.comps), &[v])?
        } else {
            v
        };
        let o = self.mem_offset(mem)?;
        match mem.space {
            Space::Ssbo { set, binding } => {
                self.effect(Intrinsic::StoreSsbo { set, binding }, &[v, o])
            }
            Space::Shared => self.effect(Intrinsic::StoreShared, &[v, o]),
            Space::Push | Space::Ubo { .. } => Err(self.invalid("store to read-only memory")),
        }
    }

    /// Whether a vector at `mem` must be accessed component by component.
    pub(super) fn strided(&self, mem: &Mem, ty: u32) -> Result<bool> {
        let es = self.m.natural_size_align(self.m.scalar_of(ty), 1)?.0;
        Ok(mem.comp_stride.is_some_and(|cs| cs != es))
    }

    pub(super) fn mem_load(&mut self, mem: &Mem, ty: u32, depth: u32) -> Result<Val> {
        if depth > 64 {
            return Err(self.limit("type nesting deeper than 64"));
        }
        if let Some(vt) = self.m.value_type(ty) {
            if vt.comps > 1 && self.strided(mem, ty)? {
                let mut comps = Vec::new();
                for c in 0..vt.comps {
                    let cm = self.mem_step(mem.clone(), ty, Index::Const(u32::from(c)))?;
                    comps.push(self.mem_load_leaf(&cm, vt.scalar())?);
                }
                return Ok(Val::Ssa(self.vec(&comps)?));
            }
            return Ok(Val::Ssa(self.mem_load_leaf(mem, vt)?));
        }
        let n = match self.m.ty(ty)? {
            Type::RuntimeArray { .. } => {
                return Err(self.unsupported("loading a whole runtime array"));
            }
            _ => self
                .m
                .child_count(ty)
                .ok_or_else(|| self.unsupported(format!("loading type %{ty} from memory")))?,
        };
        if n as usize > MAX_LEAVES {
            return Err(self.limit(format!("loading {n} elements at once")));
        }
        let mut out = Vec::new();
        for i in 0..n {
            let c = self
                .m
                .child_type(ty, i)
                .ok_or_else(|| self.invalid("bad type"))?;
            let cm = self.mem_step(mem.clone(), ty, Index::Const(i))?;
            out.push(self.mem_load(&cm, c, depth + 1)?);
        }
        Ok(Val::Comp(out))
    }

    pub(super) fn mem_store(&mut self, mem: &Mem, ty: u32, val: &Val, depth: u32) -> Result<()> {
        if depth > 64 {
            return Err(self.limit("type nesting deeper than 64"));
        }
        if let Some(vt) = self.m.value_type(ty) {
            let Val::Ssa(v) = val else {
                return Err(self.invalid("stored value does not match the pointer type"));
            };
            if self.ty(*v) != vt {
                return Err(self.invalid("stored value does not match the pointer type"));
            }
            if vt.comps > 1 && self.strided(mem, ty)? {
                for c in 0..vt.comps {
                    let cm = self.mem_step(mem.clone(), ty, Index::Const(u32::from(c)))?;
                    let s = self.channel(*v, c)?;
                    self.mem_store_leaf(&cm, s)?;
                }
                return Ok(());
            }
            return self.mem_store_leaf(mem, *v);
        }
        let Val::Comp(parts) = val else {
            return Err(self.invalid("stored value does not match the pointer type"));
        };
        if self.m.child_count(ty) != Some(parts.len() as u32) {
            return Err(self.invalid("stored value does not match the pointer type"));
        }
        for (i, part) in parts.iter().enumerate() {
            let c = self
                .m
                .child_type(ty, i as u32)
                .ok_or_else(|| self.invalid("bad type"))?;
            let cm = self.mem_step(mem.clone(), ty, Index::Const(i as u32))?;
            self.mem_store(&cm, c, part, depth + 1)?;
        }
        Ok(())
    }

    // ---- trees ----
}
