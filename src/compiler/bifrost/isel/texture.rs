//! Texture accesses (`Intrinsic::Texture`) as Bifrost's texture
//! instructions, the way Mesa selects them (`bi_emit_texs`, `bi_emit_texc`
//! in `src/panfrost/compiler/bifrost_compile.c`):
//!
//! - `TEXS_2D.f32` for float results with implicit LOD (`computed_lod`) or
//!   an explicit LOD that is the constant 0 (`zero_lod`), texture and
//!   sampler indices below 8;
//! - `TEXC` otherwise: explicit LOD (8:8 fixed point in the first data
//!   register, Mesa's `bi_emit_texc_lod_88`: clamped to ±16), LOD bias
//!   (LOD mode BIAS, the same 8:8 register, lower bound 0), texel offsets
//!   (an offset register, Mesa's `bi_emit_texc_offset_ms_index`), texel fetch
//!   (LOD in 8:8 fixed point, Mesa's `bi_emit_texc_lod_cube`), gathers
//!   (FETCH with a GATHER4 component, Mesa's `bi_tex_op` for
//!   `nir_texop_tg4`), integer
//!   results, indices up to 127 (texture) and 15 (sampler), with the
//!   texture operation descriptor as an immediate; 1D (the coordinate as
//!   both sources), 2D and 3D (r in the first data register,
//!   `BIFROST_TEX_DREG_Z_COORD`) by the descriptor's `dimension`; cube
//!   maps and cube arrays (dimension 0, Mesa's `bi_emit_texc_cube_coord`:
//!   the face selected by ALU code of ours, [`Isel::cube_coord`], packed
//!   into the s word; a cube array's layer in the array register).
//!
//! **Convention** (the contract with `jm::texture`): the texture index is
//! the image's binding and the sampler index the sampler's binding, in
//! descriptor set 0; the draw's or dispatch's Textures and Samplers tables
//! hold the descriptors at those positions. Other sets are `Unsupported`.

use crate::compiler::ir::{Intrinsic, SampledType, TexDim, TexOp};

use super::super::CompileError;
use super::super::ops::*;
use super::{Isel, ZERO, unsupported};

/// Fields of the texture operation descriptor (Mesa's `struct
/// bifrost_texture_operation`, `src/panfrost/compiler/bifrost.h`).
mod desc {
    /// `index` (texture) at bit 4, `sampler_index_or_mode` at bit 0,
    /// `immediate_indices` bit 11.
    pub const IMMEDIATE_INDICES: u32 = 1 << 11;
    /// `op` at bit 12: FETCH = 6, TEX = 7 (`enum bifrost_tex_op`).
    pub const OP_FETCH: u32 = 6 << 12;
    pub const OP_TEX: u32 = 7 << 12;
    /// `offset_or_bias_disable` bit 15: a data register of texel offsets
    /// (after the LOD's and the array index's).
    pub const OFFSETS: u32 = 1 << 15;
    /// `shadow_or_clamp_disable` bit 16: a depth-compare reference in a
    /// data register (after the LOD's, before the array index's).
    pub const SHADOW: u32 = 1 << 16;
    /// `array` bit 17: an array index in a data register after the LOD's.
    pub const ARRAY: u32 = 1 << 17;
    /// `dimension` at bit 18: 1D = 1, 2D = 2, 3D = 3 (genxml `Texture
    /// Dimension`; Mesa's `bifrost_tex_format`).
    pub const DIM_SHIFT: u32 = 18;
    /// `lod_or_fetch` at bit 20: EXPLICIT = 4, BIAS = 5, ZERO = 6, COMPUTE = 7
    /// (`enum bifrost_lod_mode`); for FETCH, TEXEL = 1.
    pub const LOD_EXPLICIT: u32 = 4 << 20;
    pub const LOD_BIAS: u32 = 5 << 20;
    pub const LOD_ZERO: u32 = 6 << 20;
    pub const LOD_COMPUTE: u32 = 7 << 20;
    pub const FETCH_TEXEL: u32 = 1 << 20;
    /// For FETCH, a gather of component r (4), g, b or a (7) (`enum
    /// bifrost_texture_fetch`, `BIFROST_TEXTURE_FETCH_GATHER4_R`..`_A`).
    pub const FETCH_GATHER4_R: u32 = 4 << 20;
    /// `format` at bit 24 (`enum bifrost_texture_format_full`): F32 = 4,
    /// U32 = 14, S32 = 15.
    pub const F32: u32 = 4 << 24;
    pub const U32: u32 = 14 << 24;
    pub const S32: u32 = 15 << 24;
    /// `mask` at bit 28: all four components.
    pub const MASK_XYZW: u32 = 0xf << 28;
}

impl Isel<'_> {
    /// `dst` = the texture access `kind` with sources `args` (see
    /// `Intrinsic::Texture`).
    pub(super) fn texture(
        &mut self,
        kind: Intrinsic,
        args: &[SrcList],
        dst: crate::compiler::ir::Value,
    ) -> Result<(), CompileError> {
        let Intrinsic::Texture {
            set,
            binding,
            sampler,
            op,
            ty,
            array,
            dim,
            offset,
        } = kind
        else {
            return Err(CompileError::Malformed("not a texture access".into()));
        };
        if set != 0 || sampler.is_some_and(|(s, _)| s != 0) {
            return Err(unsupported(
                "images and samplers outside descriptor set 0 (jm::texture's tables)",
            ));
        }
        let texture = u8::try_from(binding)
            .ok()
            .filter(|&t| t < 128)
            .ok_or_else(|| unsupported("image bindings above 127"))?;
        let smp = match sampler {
            Some((_, b)) => u8::try_from(b)
                .ok()
                .filter(|&s| s < 16)
                .ok_or_else(|| unsupported("sampler bindings above 15"))?,
            None => 0,
        };
        let n = usize::from(dim.coords());
        let coord = args
            .first()
            .filter(|c| c.len() == n + usize::from(array))
            .ok_or_else(|| CompileError::Malformed("texture coordinate".into()))?;
        // A 1D access passes its one coordinate as both sources (Mesa's
        // `bi_emit_texc`: "Copy XY (for 2D+) or XX (for 1D)"); a 3D one its
        // r in the first data register (`BIFROST_TEX_DREG_Z_COORD`).
        let (s, t) = if dim == TexDim::Cube {
            self.cube_coord(coord[0], coord[1], coord[2])
        } else {
            (self.in_reg(coord[0]), self.in_reg(coord[n.min(2) - 1]))
        };
        let z_coord = (dim == TexDim::D3).then(|| coord[2]);
        let lod = args.get(1).map(|l| l[0]);
        let v = self.new_vreg(4);
        let staging = Reg { index: v, comp: 0 };
        let simple = ty == SampledType::Float
            && !array
            && dim == TexDim::D2
            && offset == [0, 0]
            && texture < 8
            && smp < 8
            && match op {
                TexOp::Sample => true,
                TexOp::SampleLod => lod == Some(Src::Imm(0)),
                TexOp::SampleBias
                | TexOp::SampleDref
                | TexOp::SampleDrefLod
                | TexOp::Fetch
                | TexOp::Gather(_)
                | TexOp::GatherDref => false,
            };
        if simple {
            let hw = Op::TexsF32 {
                texture,
                sampler: smp,
                computed_lod: op == TexOp::Sample,
            };
            self.push(Instr::new(hw, Some(Dst::Reg(staging)), vec![s, t]));
        } else {
            let (op_bits, lod_bits, data) = match op {
                TexOp::Sample => (desc::OP_TEX, desc::LOD_COMPUTE, None),
                TexOp::SampleLod if lod == Some(Src::Imm(0)) => {
                    (desc::OP_TEX, desc::LOD_ZERO, None)
                }
                TexOp::SampleLod => {
                    let lod = lod.ok_or_else(|| CompileError::Malformed("no LOD".into()))?;
                    (desc::OP_TEX, desc::LOD_EXPLICIT, Some(self.lod_88(lod)))
                }
                // The bias in the low 16 bits (8:8), the lower bound in the
                // high ones left 0 (Mesa's `bi_emit_texc` for
                // `nir_tex_src_bias`).
                TexOp::SampleBias => {
                    let bias = lod.ok_or_else(|| CompileError::Malformed("no bias".into()))?;
                    (desc::OP_TEX, desc::LOD_BIAS, Some(self.lod_88(bias)))
                }
                TexOp::SampleDref => (desc::OP_TEX, desc::LOD_COMPUTE, None),
                TexOp::SampleDrefLod if lod == Some(Src::Imm(0)) => {
                    (desc::OP_TEX, desc::LOD_ZERO, None)
                }
                TexOp::SampleDrefLod => {
                    let lod = lod.ok_or_else(|| CompileError::Malformed("no LOD".into()))?;
                    (desc::OP_TEX, desc::LOD_EXPLICIT, Some(self.lod_88(lod)))
                }
                TexOp::Fetch => {
                    let lod = lod.ok_or_else(|| CompileError::Malformed("no LOD".into()))?;
                    let fixed = match lod {
                        Src::Imm(l) => Src::Imm(l << 8),
                        l => self.emit(
                            Op::Shift {
                                op: ShiftOp::LshiftOr,
                                not1: false,
                                not_result: false,
                            },
                            &[l, ZERO, Src::Imm(8)],
                        ),
                    };
                    (desc::OP_FETCH, desc::FETCH_TEXEL, Some(fixed))
                }
                // A gather is a FETCH whose `lod_or_fetch` names the
                // component (`BIFROST_TEXTURE_FETCH_GATHER4_R` + component)
                // with a LOD register of level 0 (Mesa's `bi_emit_texc`:
                // `bi_emit_texc_lod_cube(b, bi_zero())` when the NIR
                // instruction has no LOD).
                TexOp::Gather(c) => {
                    if c > 3 {
                        return Err(CompileError::Malformed("gather component".into()));
                    }
                    let fetch = desc::FETCH_GATHER4_R + (u32::from(c) << 20);
                    (desc::OP_FETCH, fetch, Some(ZERO))
                }
                // A depth gather: the same with the shadow bit, component r
                // (`shadow_or_clamp_disable`: "Implies fetch_component =
                // gather4_r", `bifrost.h`).
                TexOp::GatherDref => (desc::OP_FETCH, desc::FETCH_GATHER4_R, Some(ZERO)),
            };
            let format = match ty {
                SampledType::Float => desc::F32,
                SampledType::Uint => desc::U32,
                SampledType::Sint => desc::S32,
            };
            // The texel offset (Mesa's `bi_emit_texc_offset_ms_index`): a
            // data register of signed bytes x, y, z, sample index, present
            // only when nonzero.
            // The depth reference (`BIFROST_TEX_DREG_SHADOW`, after the
            // LOD's register and before the array index's).
            let shadow = match op {
                TexOp::SampleDref => Some(args.get(1).map(|a| a[0])),
                TexOp::SampleDrefLod => Some(args.get(2).map(|a| a[0])),
                TexOp::GatherDref => Some(args.get(1).map(|a| a[0])),
                _ => None,
            };
            let shadow = match shadow {
                Some(Some(r)) => Some(r),
                Some(None) => return Err(CompileError::Malformed("no depth reference".into())),
                None => None,
            };
            let offsets = (offset != [0, 0])
                .then(|| Src::Imm(u32::from(offset[0] as u8) | u32::from(offset[1] as u8) << 8));
            // genxml `Texture Dimension`: Cube 0, 1D 1, 2D 2, 3D 3.
            let dimension = match dim {
                TexDim::Cube => 0,
                d => u32::from(d.coords()),
            };
            let word = u32::from(smp)
                | u32::from(texture) << 4
                | desc::IMMEDIATE_INDICES
                | if offsets.is_some() { desc::OFFSETS } else { 0 }
                | if shadow.is_some() { desc::SHADOW } else { 0 }
                | if array { desc::ARRAY } else { 0 }
                | op_bits
                | dimension << desc::DIM_SHIFT
                | lod_bits
                | format
                | desc::MASK_XYZW;
            // The array index (Mesa's `bi_emit_texc_array_index`): an
            // integer for fetches, else the layer rounded to nearest even
            // and converted (negative → 0; the hardware clamps to the
            // array's size, the sampler's `Clamp integer array indices`).
            let layer = if !array {
                None
            } else if op == TexOp::Fetch {
                Some(coord[n])
            } else {
                let r = self.emit(Op::FroundF32 { round: Round::Rte }, &[coord[n]]);
                Some(self.emit(Op::F32ToU32, &[r]))
            };
            // The staging vector: the data registers in Mesa's order (a 3D
            // access's r, the LOD, the depth reference, the array index,
            // the offsets: `enum bifrost_tex_dreg`), zeros after them (the
            // hardware reads only what the descriptor asks for; the
            // allocator sees four defined registers).
            let regs: Vec<Src> = z_coord
                .into_iter()
                .chain(data)
                .chain(shadow)
                .chain(layer)
                .chain(offsets)
                .collect();
            for c in 0..4u8 {
                let x = regs.get(usize::from(c)).copied().unwrap_or(ZERO);
                self.mov_to(Reg { index: v, comp: c }, x, c > 0);
            }
            let srcs = vec![Src::Reg(staging), s, t, Src::Imm(word)];
            self.push(Instr::new(Op::Texc, Some(Dst::Reg(staging)), srcs));
        }
        // A gather's four texels come back in the order (i0, j0), (i1, j0),
        // (i0, j1), (i1, j1); Vulkan's ("Texel Gathering") is i0j1, i1j1,
        // i1j0, i0j0. Mesa reorders with `nir_lower_tex`'s
        // `lower_tg4_broadcom_swizzle` (`bifrost_compile.c`; the swizzle
        // 2, 3, 1, 0 of `swizzle_tg4_broadcom`, `nir_lower_tex.c`): so do we.
        let order: [u8; 4] = if matches!(op, TexOp::Gather(_) | TexOp::GatherDref) {
            [2, 3, 1, 0]
        } else {
            [0, 1, 2, 3]
        };
        self.define(
            dst,
            order
                .iter()
                .map(|&c| Src::Reg(Reg { index: v, comp: c }))
                .collect::<SrcList>(),
        );
        Ok(())
    }

    /// The cube-map coordinate words of TEXC for the direction (x, y, z)
    /// (Mesa's `bi_emit_texc_cube_coord`, `struct cube_map_descriptor {
    /// float s : 29; unsigned face : 3; float t : 32; }`): s in the low 29
    /// bits with the face in bits 29–31, t the second word, both in
    /// [0, 1] (clamped, as Mesa's `CLAMP_0_1`).
    ///
    /// Mesa takes the face from the `CUBEFACE` pseudo-instruction, whose
    /// outputs `bifrost-ISA.xml` does not describe; this is ALU code of
    /// ours from the Vulkan spec's "Cube Map Face Selection and
    /// Transformations" table: the major axis is the component of largest
    /// magnitude — ties (the spec leaves them to the implementation) go
    /// to x before y before z — its sign the face's (a zero or −0
    /// component counts as positive), the face numbered +X −X +Y −Y +Z −Z
    /// = 0..5 (the payload's face order; our reading of the packed
    /// word), (sc, tc, ma) = (∓z, −y, |x|), (x, ±z, |y|), (±x, −y, |z|)
    /// per axis, s = ½ (sc / ma + 1) computed as sc × (½ × 1/ma) + ½
    /// (Mesa's form; 1/ma from `frcp`, about one ULP).
    fn cube_coord(&mut self, x: Src, y: Src, z: Src) -> (Src, Src) {
        const SIGN: u32 = 0x8000_0000;
        let half = Src::Imm(0.5f32.to_bits());
        let abs = |me: &mut Self, v: Src| {
            me.emit(
                Op::FaddF32 {
                    neg: [false; 2],
                    abs: [true, false],
                    clamp01: false,
                },
                &[v, ZERO],
            )
        };
        let (ax, ay, az) = (abs(self, x), abs(self, y), abs(self, z));
        let and = |me: &mut Self, a: Src, b: Src, not_b: bool| {
            me.emit(
                Op::Shift {
                    op: ShiftOp::LshiftAnd,
                    not1: not_b,
                    not_result: false,
                },
                &[a, b, ZERO],
            )
        };
        let xy = self.fcmp(Cmp::Ge, ax, ay);
        let xz = self.fcmp(Cmp::Ge, ax, az);
        let x_major = and(self, xy, xz, false);
        let yz = self.fcmp(Cmp::Ge, ay, az);
        let y_major = and(self, yz, x_major, true);
        let neg_x = self.fcmp(Cmp::Lt, x, ZERO);
        let neg_y = self.fcmp(Cmp::Lt, y, ZERO);
        let neg_z = self.fcmp(Cmp::Lt, z, ZERO);
        let xor = |me: &mut Self, a: Src, b: Src| me.shift(ShiftOp::LshiftXor, a, b, ZERO);
        // X major: sc = −z (+X) or z (−X), tc = −y.
        let pos_x_sign = and(self, Src::Imm(SIGN), neg_x, true);
        let sc_x = xor(self, z, pos_x_sign);
        // Y major: sc = x, tc = z (+Y) or −z (−Y).
        let neg_y_sign = and(self, neg_y, Src::Imm(SIGN), false);
        let tc_y = xor(self, z, neg_y_sign);
        // Z major: sc = x (+Z) or −x (−Z), tc = −y.
        let neg_z_sign = and(self, neg_z, Src::Imm(SIGN), false);
        let sc_z = xor(self, x, neg_z_sign);
        let minus_y = xor(self, y, Src::Imm(SIGN));
        let sc_yz = self.mux(sc_z, x, y_major);
        let sc = self.mux(sc_yz, sc_x, x_major);
        let tc = self.mux(minus_y, tc_y, y_major);
        let ma_yz = self.mux(az, ay, y_major);
        let ma = self.mux(ma_yz, ax, x_major);
        // The face: 2 × axis + (1 when negative).
        let face_of = |me: &mut Self, neg: Src, base: u32| {
            let bit = and(me, neg, Src::Imm(1), false);
            me.shift(ShiftOp::LshiftOr, bit, Src::Imm(base), ZERO)
        };
        let face_x = face_of(self, neg_x, 0);
        let face_y = face_of(self, neg_y, 2);
        let face_z = face_of(self, neg_z, 4);
        let face_yz = self.mux(face_z, face_y, y_major);
        let face = self.mux(face_yz, face_x, x_major);
        let rcp = self.frcp(ma);
        let scale = self.fmul(rcp, half);
        let to_unit = |me: &mut Self, c: Src| {
            let m = me.fmul(c, scale);
            me.emit(
                Op::FaddF32 {
                    neg: [false; 2],
                    abs: [false; 2],
                    clamp01: true,
                },
                &[m, half],
            )
        };
        let s = to_unit(self, sc);
        let t = to_unit(self, tc);
        let low = and(self, s, Src::Imm(0x1fff_ffff), false);
        let packed = self.shift(ShiftOp::LshiftOr, face, low, Src::Imm(29));
        (packed, t)
    }

    /// An f32 LOD as TEXC's signed 8:8 fixed point in the low 16 bits:
    /// clamp(lod, -16, 16) × 256 rounded toward zero (Mesa's
    /// `bi_emit_texc_lod_88`; NaN becomes -16 through FMAX's NaN rule).
    fn lod_88(&mut self, lod: Src) -> Src {
        if let Src::Imm(bits) = lod {
            let x = f32::from_bits(bits);
            let x = if x.is_nan() {
                -16.0
            } else {
                x.clamp(-16.0, 16.0)
            };
            return Src::Imm(((x * 256.0) as i32 as u32) & 0xffff);
        }
        let lo = self.emit(Op::FmaxF32, &[lod, Src::Imm((-16.0f32).to_bits())]);
        let hi = self.emit(Op::FminF32, &[lo, Src::Imm(16.0f32.to_bits())]);
        let scaled = self.emit(
            Op::FmaF32 { neg: [false; 3] },
            &[hi, Src::Imm(256.0f32.to_bits()), ZERO],
        );
        let fixed = self.emit(Op::F32ToS32, &[scaled]);
        self.emit(
            Op::Shift {
                op: ShiftOp::LshiftAnd,
                not1: false,
                not_result: false,
            },
            &[fixed, Src::Imm(0xffff), ZERO],
        )
    }
}
