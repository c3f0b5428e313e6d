//! Storage-image accesses (`Intrinsic::ImageLoad`, `Intrinsic::ImageStore`)
//! as Bifrost's attribute-unit image instructions, the way Mesa selects
//! them for v6/v7 (`bi_emit_image_load`, `bi_emit_lea_image`,
//! `bi_emit_image_store` in `src/panfrost/compiler/bifrost_compile.c`):
//!
//! - the coordinates as one word x | y << 16 (Mesa's `MKVEC.v2i16` of the
//!   low halves, here `LSHIFT_AND` + `LSHIFT_OR`) and a layer word (a 2D
//!   array's layer, 0 for 2D images);
//! - a load is `LD_ATTR_TEX` with the register format of the image's
//!   sampled type, four components;
//! - an atomic is the same `LEA_ATTR_TEX` pair, then a global atomic on
//!   the texel's address;
//! - a store is `DTSEL_IMM.attribute_1` + `LEA_ATTR_TEX` in one tuple (the
//!   texel's address and conversion word; the select makes it use the
//!   primary attribute table, Mesa's `bi_lower_dtsel`), then `ST_CVT` of
//!   the four components with that conversion word.
//!
//! **Convention** (the contract with `jm::image`), compute shaders only:
//! the image's attribute index is its binding in descriptor set 0; the dispatch's Attribute and
//! Attribute Buffer tables hold its records there. Other sets, and
//! bindings the immediate cannot hold, are `Unsupported`.

use super::*;
use crate::compiler::ir::SampledType;

impl Isel<'_> {
    /// The attribute index of the image at (`set`, `binding`). Compute
    /// shaders only: a vertex job's attribute table also holds the vertex
    /// inputs (Mesa puts images after them, `bi_emit_image_index`) and no
    /// emitter of ours writes image tables for draws yet.
    fn image_index(&self, set: u32, binding: u32) -> Result<u32, CompileError> {
        if self.s.stage != Stage::Compute {
            return Err(unsupported("storage images outside compute shaders"));
        }
        if set != 0 {
            return Err(unsupported(
                "storage images outside descriptor set 0 (jm::image's tables)",
            ));
        }
        if binding > 255 {
            return Err(unsupported("storage image bindings above 255"));
        }
        Ok(binding)
    }

    /// x | y << 16 from an integer coordinate of `comps` components (2,
    /// or 3 for an array), and the layer word (0 for 2D images; Mesa's
    /// `bi_emit_image_coord` passes an array's layer whole).
    fn image_xy(
        &mut self,
        coord: Option<&SrcList>,
        comps: usize,
    ) -> Result<(Src, Src), CompileError> {
        let coord = coord
            .filter(|c| c.len() == comps)
            .ok_or_else(|| CompileError::Malformed("image coordinate".into()))?;
        let x = self.shift(ShiftOp::LshiftAnd, coord[0], Src::Imm(0xffff), ZERO);
        let xy = self.shift(ShiftOp::LshiftOr, coord[1], x, Src::Imm(16));
        Ok((xy, if comps == 3 { coord[2] } else { ZERO }))
    }

    /// `dst` = texel (args[0]) of the image `kind` names.
    pub(super) fn image_load(
        &mut self,
        kind: Intrinsic,
        args: &[SrcList],
        dst: crate::compiler::ir::Value,
    ) -> Result<(), CompileError> {
        let Intrinsic::ImageLoad {
            set,
            binding,
            ty,
            array,
        } = kind
        else {
            return Err(CompileError::Malformed("not an image load".into()));
        };
        let index = self.image_index(set, binding)?;
        let (xy, layer) = self.image_xy(args.first(), 2 + usize::from(array))?;
        let op = Op::LdAttrTex { ty, comps: 4 };
        let srcs = self.legalize(op, &[xy, layer, Src::Imm(index)]);
        let v = self.new_vreg(4);
        let staging = Reg { index: v, comp: 0 };
        self.push(Instr::new(op, Some(Dst::Reg(staging)), srcs));
        self.define(
            dst,
            (0..4)
                .map(|c| Src::Reg(Reg { index: v, comp: c }))
                .collect::<SrcList>(),
        );
        Ok(())
    }

    /// Stores texel args[1] at args[0] of the image `kind` names.
    pub(super) fn image_store(
        &mut self,
        kind: Intrinsic,
        args: &[SrcList],
    ) -> Result<(), CompileError> {
        let Intrinsic::ImageStore {
            set,
            binding,
            ty,
            array,
        } = kind
        else {
            return Err(CompileError::Malformed("not an image store".into()));
        };
        let index = self.image_index(set, binding)?;
        let (xy, layer) = self.image_xy(args.first(), 2 + usize::from(array))?;
        let data = args
            .get(1)
            .filter(|d| d.len() == 4)
            .ok_or_else(|| CompileError::Malformed("image texel".into()))?
            .to_vec();
        let lea = self.lea_attr_tex(xy, layer, index, ty);
        self.st_cvt(&data, lea);
        Ok(())
    }

    /// `DTSEL_IMM.attribute_1` + `LEA_ATTR_TEX` of texel `xy` of image
    /// `index` for registers of `ty`: the vector register of its three
    /// results (address low, high, conversion word).
    fn lea_attr_tex(&mut self, xy: Src, layer: Src, index: u32, ty: SampledType) -> u32 {
        let xy = self.in_reg(xy);
        // The pair must stay adjacent (`dag.rs` makes it one node): the
        // moves that legalise LEA_ATTR_TEX's constants come before it.
        let selected = self.new_reg();
        let op = Op::LeaAttrTex { ty };
        let srcs = self.legalize(op, &[Src::Reg(selected), layer, Src::Imm(index)]);
        self.push(Instr::new(
            Op::DtselAttribute1,
            Some(Dst::Reg(selected)),
            vec![xy],
        ));
        let lea = self.new_vreg(3);
        self.push(Instr::new(
            op,
            Some(Dst::Reg(Reg {
                index: lea,
                comp: 0,
            })),
            srcs,
        ));
        lea
    }

    /// `dst` = the old value of an atomic on texel args[0] of the image
    /// `kind` names: the texel's address from `LEA_ATTR_TEX` (its
    /// conversion word unused), then the global atomic on it (`ATOM_C`,
    /// `AXCHG` or `ACMPXCHG`, `isel/atomics.rs`): Mesa's v6/v7 image
    /// atomics take `bi_emit_lea_image`'s address into
    /// `bi_emit_atomic_i32_to`.
    pub(super) fn image_atomic(
        &mut self,
        kind: Intrinsic,
        args: &[SrcList],
        dst: Option<crate::compiler::ir::Value>,
    ) -> Result<(), CompileError> {
        let Intrinsic::ImageAtomic { set, binding, op } = kind else {
            return Err(CompileError::Malformed("not an image atomic".into()));
        };
        let index = self.image_index(set, binding)?;
        let (xy, layer) = self.image_xy(args.first(), 2)?;
        let lea = self.lea_attr_tex(xy, layer, index, SampledType::Uint);
        let at = |comp| Src::Reg(Reg { index: lea, comp });
        let addr = super::atomics::AtomicAddress::Global(vec![at(0), at(1)]);
        self.atomic(op, addr, &args[1..], 32, dst)
    }
}
