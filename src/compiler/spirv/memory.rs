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
                mem.align = lowered_align(mem.align, add);
            }
            Index::Dyn(v) if mem.space == Space::Global => {
                let scaled = self.scaled_index64(v, stride)?;
                let base = mem
                    .off_d
                    .ok_or_else(|| self.invalid("physical pointer without an address"))?;
                mem.off_d = Some(self.alu_same(AluOp::Iadd, &[base, scaled])?);
                mem.align = lowered_align(mem.align, stride);
            }
            Index::Dyn(v) => {
                let v = self.index_value(v)?;
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

    /// `index · stride` as a 64-bit byte offset: the index (any integer
    /// width) sign-extended, as Mesa's `vtn_access_link_as_ssa`
    /// (src/compiler/spirv/vtn_variables.c, `nir_i2iN`) does, so that a
    /// negative `OpPtrAccessChain` element moves backwards; a power-of-two
    /// stride is a shift.
    pub(super) fn scaled_index64(&mut self, v: Value, stride: u32) -> Result<Value> {
        let t = self.ty(v);
        if t.comps != 1 || t.is_bool() {
            return Err(self.invalid("index is not a scalar integer"));
        }
        let v = if t.bits == 64 {
            v
        } else {
            self.alu(AluOp::I2i, ValueType::U64, &[v])?
        };
        if stride.is_power_of_two() {
            if stride == 1 {
                return Ok(v);
            }
            let n = self.u32c(stride.trailing_zeros())?;
            return self.alu(AluOp::Ishl, ValueType::U64, &[v, n]);
        }
        let s = self.konst(ValueType::U64, &[u64::from(stride)])?;
        self.alu_same(AluOp::Imul, &[v, s])
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
                mem.align = lowered_align(mem.align, off);
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

    /// The byte offset of `mem` in its space (a u32), or for `Global` its
    /// 64-bit address.
    pub(super) fn mem_offset(&mut self, mem: &Mem) -> Result<Value> {
        if mem.space == Space::Global {
            let base = mem
                .off_d
                .ok_or_else(|| self.invalid("physical pointer without an address"))?;
            if mem.off_c == 0 {
                return Ok(base);
            }
            let c = self.konst(ValueType::U64, &[u64::from(mem.off_c)])?;
            return self.alu_same(AluOp::Iadd, &[base, c]);
        }
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
            Space::Global => {
                self.check_global_align(mem, load_ty)?;
                let a = self.mem_offset(mem)?;
                self.intrinsic(Intrinsic::LoadGlobal, load_ty, &[a])?
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
            Space::Global => {
                self.check_global_align(mem, self.ty(v))?;
                self.effect(Intrinsic::StoreGlobal, &[v, o])
            }
            Space::Push | Space::Ubo { .. } => Err(self.invalid("store to read-only memory")),
        }
    }

    /// A physical-pointer access of one scalar or vector must be aligned to
    /// its scalar's size (the Vulkan Guide, "Buffer Device Address
    /// Alignment": the alignment is at least the largest scalar in the
    /// block); the backend's
    /// LOAD/STORE messages need it too, so a leaf the `Aligned` operand and
    /// the layout's offsets cannot prove aligned is an error, not a fault at
    /// run time.
    fn check_global_align(&self, mem: &Mem, vt: ValueType) -> Result<()> {
        let need = u32::from(vt.bits / 8).max(1);
        if mem.align < need {
            return Err(self.invalid(format!(
                "{}-bit access through a physical pointer aligned to only {} byte(s) (the Aligned operand and the Offset/ArrayStride layout)",
                vt.bits, mem.align
            )));
        }
        Ok(())
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

/// The alignment known after adding `add` bytes to an address aligned to
/// `align` (a power of two).
pub(super) fn lowered_align(align: u32, add: u32) -> u32 {
    if add == 0 {
        align
    } else {
        align.min(1 << add.trailing_zeros())
    }
}
