//! Images and samplers: `OpSampledImage`, `OpImage`, and the texture
//! accesses the IR has (`Intrinsic::Texture`): `OpImageSampleImplicitLod`
//! (fragment shaders), `OpImageSampleExplicitLod` with `Lod` or `Grad`
//! (the gradients become an explicit LOD computed in the shader),
//! `OpImageFetch` (optional `Lod`), on 2D images and 2D arrays (1D
//! images and arrays and 3D images: explicit LOD, gradients, fetches and
//! size queries; cube maps and cube arrays: explicit and implicit LOD,
//! depth compares, size queries and gathers of float cubes),
//! single-sampled, with a 32-bit sampled type, and `OpImageGather` (a
//! constant component, optional `ConstOffset`) of 2D images and 2D
//! arrays, and `OpImageDrefGather` of 2D images.
//!
//! Storage images (`OpImageRead`, `OpImageWrite`) of 2D images or 2D arrays with a
//! 32-bit sampled type become `Intrinsic::ImageLoad`/`ImageStore`.
//!
//! Images and samplers are compile-time [`Handle`]s (the set and binding of
//! their descriptors), never run-time values. Everything else about images
//! — image atomics, depth gathers of arrays, projective sampling, other
//! queries, offsets of 1D/3D images, gradients with a depth compare,
//! minimum LOD, sparse access, gradients and depth gathers of cubes,
//! rectangle, buffer and subpass dimensions —
//! is a clean `Unsupported` error naming what is missing.

use spirv::Op;

use crate::compiler::ir::{AluOp, Intrinsic, SampledType, Stage, TexDim, TexOp, ValueType};

use super::error::Result;
use super::function::{Handle, Texel, Translator, Val};
use super::reader::Inst;
use super::types::Type;

/// Image operand bits (SPIR-V spec 3.14, "Image Operands").
const BIAS: u32 = 0x1;
const LOD: u32 = 0x2;
/// `Grad` (`textureGrad`): lowered to an explicit LOD computed in the
/// shader (`Translator::grad_lod`). Mesa's Bifrost route (Panfrost's NIR
/// texture lowering, `build_bi_gradient_desc` and `bi_lower_tex`: a TEXC
/// `GRDESC_DER` whose result's first word becomes the TEX's EXPLICIT LOD)
/// is not taken: only the low 16 bits of that 64-bit gradient descriptor
/// are documented (λ in signed 8:8, as Mesa's `bi_lower_lod` reads them).
const GRAD: u32 = 0x4;
const CONST_OFFSET: u32 = 0x8;
const OFFSET: u32 = 0x10;
const CONST_OFFSETS: u32 = 0x20;
const SAMPLE: u32 = 0x40;
const MIN_LOD: u32 = 0x80;
/// Memory-model bits that change nothing for a read-only sampled image.
const HARMLESS: u32 = 0x400 /* NonPrivateTexel */ | 0x800 /* VolatileTexel */;
/// `Dim` 1D, 2D, 3D.
const DIM_1D: u32 = 0;
const DIM_2D: u32 = 1;
const DIM_3D: u32 = 2;
/// `Dim` Cube (cube maps and, `Arrayed`, cube arrays).
const DIM_CUBE: u32 = 3;

/// A cube-table entry (sc or tc): the component of P (or of a gradient),
/// the component whose sign multiplies it (if any), and a constant factor.
type SignedComponent = (usize, Option<usize>, f64);

impl Translator<'_> {
    /// The handle and image type behind an id of image or sampled-image type.
    fn image_of(&mut self, id: u32) -> Result<(Handle, u32)> {
        let (ty, v) = self.get(id)?;
        let Val::Handle(h) = v else {
            return Err(self.invalid("operand is not an image"));
        };
        let image_ty = match self.m.ty(ty)? {
            Type::SampledImage { image } => *image,
            Type::Image { .. } => ty,
            _ => return Err(self.invalid("operand is not an image")),
        };
        Ok((h, image_ty))
    }

    /// The sampled type, arrayness and dimension of a 1D, 2D or 3D image
    /// (1D and 2D maybe arrays) the texture intrinsic can read, or why not.
    fn texture_type(&self, image_ty: u32) -> Result<(SampledType, bool, TexDim)> {
        self.texture_type_for(image_ty, false)
    }

    /// [`Self::texture_type`]; `dref`: for a depth-compare access, which
    /// takes depth images (`Depth` 1) too.
    fn texture_type_for(&self, image_ty: u32, dref: bool) -> Result<(SampledType, bool, TexDim)> {
        let Type::Image {
            sampled_ty,
            dim,
            depth,
            arrayed,
            ms,
            sampled,
        } = *self.m.ty(image_ty)?
        else {
            return Err(self.invalid("not an image type"));
        };
        if sampled == 2 {
            return Err(self.unsupported("storage images"));
        }
        let tex_dim = match dim {
            DIM_1D => TexDim::D1,
            DIM_2D => TexDim::D2,
            DIM_3D => TexDim::D3,
            DIM_CUBE => TexDim::Cube,
            _ => TexDim::D2,
        };
        if !matches!(dim, DIM_1D | DIM_2D | DIM_3D | DIM_CUBE) {
            let what = match dim {
                4 => "rectangle images",
                5 => "texel buffers",
                6 => "subpass inputs",
                _ => "images of this dimension",
            };
            return Err(self.unsupported(what));
        }
        if ms {
            return Err(self.unsupported("multisampled images"));
        }
        // Vulkan has no 3D arrays ("Standalone SPIR-V Validation": an
        // OpTypeImage with Dim 3D must not be Arrayed).
        if arrayed && tex_dim == TexDim::D3 {
            return Err(self.invalid("an arrayed 3D image"));
        }
        if depth == 1 && !dref {
            return Err(self.unsupported("depth images outside depth-compare sampling"));
        }
        match self.m.ty(sampled_ty)? {
            Type::Float { width: 32 } => Ok((SampledType::Float, arrayed, tex_dim)),
            Type::Int {
                width: 32,
                signed: true,
            } => Ok((SampledType::Sint, arrayed, tex_dim)),
            Type::Int {
                width: 32,
                signed: false,
            } => Ok((SampledType::Uint, arrayed, tex_dim)),
            Type::Void => Err(self.invalid("a sampled image of sampled type void")),
            _ => Err(self.unsupported("images of a sampled type other than 32 bits")),
        }
    }

    /// The coordinate operand: a vector of `comps` 32-bit components
    /// (floats for sampling, integers for fetches).
    fn tex_coord(&mut self, id: u32, float: bool, comps: u8) -> Result<crate::compiler::ir::Value> {
        let (ty, v) = self.get_ssa(id)?;
        let t = self.ty(v);
        // Extra components are allowed and ignored (SPIR-V's "Coordinate"
        // of the sampling instructions; glslang passes a shadow lookup's
        // (s, t, dref) whole and the reference again as Dref).
        if float && t.comps > comps && t.bits == 32 && self.m.is_float(ty) {
            if comps == 1 {
                return self.channel(v, 0);
            }
            let first: Vec<u8> = (0..comps).collect();
            return self.swizzle(v, &first);
        }
        if t.comps != comps || t.bits != 32 || self.m.is_float(ty) != float {
            return Err(self.invalid(format!(
                "{} coordinate is not a {comps}-component {} vector",
                if float { "sampling" } else { "fetch" },
                if float { "float" } else { "integer" }
            )));
        }
        Ok(v)
    }

    /// Unsupported image operands, by name.
    fn check_image_operands(&self, mask: u32, allowed: u32) -> Result<()> {
        let extra = mask & !(allowed | HARMLESS);
        if extra == 0 {
            return Ok(());
        }
        for (bit, what) in [
            (BIAS, "LOD bias (image operand Bias)"),
            (LOD, "an explicit LOD here"),
            (GRAD, "explicit gradients (image operand Grad)"),
            (CONST_OFFSET, "texel offsets (ConstOffset)"),
            (OFFSET, "texel offsets (Offset)"),
            (CONST_OFFSETS, "gather offsets (ConstOffsets)"),
            (SAMPLE, "sample indices (image operand Sample)"),
            (MIN_LOD, "minimum LOD (image operand MinLod)"),
        ] {
            if extra & bit != 0 {
                return Err(self.unsupported(what));
            }
        }
        Err(self.unsupported(format!("image operands {extra:#x}")))
    }

    /// `OpSampledImage`, `OpImage` and the image instructions.
    pub fn image_inst(&mut self, inst: &Inst, op: Op) -> Result<()> {
        match op {
            Op::SampledImage => {
                inst.need(4)?;
                let (ty, id) = (inst.word(0)?, inst.word(1)?);
                let (img, _) = self.image_of(inst.word(2)?)?;
                let (sty, s) = self.get(inst.word(3)?)?;
                let (Val::Handle(smp), Ok(Type::Sampler)) = (s, self.m.ty(sty)) else {
                    return Err(inst.invalid("OpSampledImage without a sampler"));
                };
                if !matches!(self.m.ty(ty)?, Type::SampledImage { .. }) || img.image.is_none() {
                    return Err(inst.invalid("OpSampledImage result is not a sampled image"));
                }
                let h = Handle {
                    image: img.image,
                    sampler: smp.sampler,
                };
                self.bind(id, ty, Val::Handle(h))
            }
            Op::Image => {
                inst.need(3)?;
                let (ty, id) = (inst.word(0)?, inst.word(1)?);
                let (h, image_ty) = self.image_of(inst.word(2)?)?;
                if ty != image_ty {
                    return Err(inst.invalid("OpImage result is not the sampled image's image"));
                }
                let h = Handle {
                    image: h.image,
                    sampler: None,
                };
                self.bind(id, ty, Val::Handle(h))
            }
            Op::ImageSampleImplicitLod
            | Op::ImageSampleExplicitLod
            | Op::ImageFetch
            | Op::ImageGather
            | Op::ImageDrefGather
            | Op::ImageSampleDrefImplicitLod
            | Op::ImageSampleDrefExplicitLod => self.texture(inst, op),
            Op::ImageSampleProjDrefImplicitLod | Op::ImageSampleProjDrefExplicitLod => {
                Err(inst.unsupported("projective depth-compare (shadow) sampling"))
            }
            Op::ImageSampleProjImplicitLod | Op::ImageSampleProjExplicitLod => {
                Err(inst.unsupported("projective sampling"))
            }
            Op::ImageRead | Op::ImageWrite => self.storage_image(inst, op),
            Op::ImageTexelPointer => self.texel_pointer(inst),
            Op::ImageQuerySizeLod | Op::ImageQueryLevels => self.image_query(inst, op),
            Op::ImageQuerySize
            | Op::ImageQueryLod
            | Op::ImageQuerySamples
            | Op::ImageQueryFormat
            | Op::ImageQueryOrder => Err(inst.unsupported("image queries")),
            _ => Err(inst.unsupported("sparse or other image instructions")),
        }
    }

    /// The texel type of a storage image (`Sampled` 2) the image
    /// intrinsics can access — 2D or 2D array (`true`), single-sampled, a
    /// 32-bit sampled type. Its format qualifier (`Image Format`) is not
    /// needed: the image's descriptor carries the memory format.
    fn storage_image_type(&self, image_ty: u32) -> Result<(SampledType, bool)> {
        let Type::Image {
            sampled_ty,
            dim,
            arrayed,
            ms,
            sampled,
            ..
        } = *self.m.ty(image_ty)?
        else {
            return Err(self.invalid("not an image type"));
        };
        if sampled != 2 {
            return Err(self.invalid("OpImageRead/OpImageWrite of a sampled image"));
        }
        if dim != DIM_2D {
            return Err(self.unsupported("storage images other than 2D"));
        }
        if ms {
            return Err(self.unsupported("multisampled storage images"));
        }
        let ty = match self.m.ty(sampled_ty)? {
            Type::Float { width: 32 } => SampledType::Float,
            Type::Int {
                width: 32,
                signed: true,
            } => SampledType::Sint,
            Type::Int {
                width: 32,
                signed: false,
            } => SampledType::Uint,
            _ => {
                return Err(self.unsupported("storage images of a sampled type other than 32 bits"));
            }
        };
        Ok((ty, arrayed))
    }

    /// `OpImageRead` (`imageLoad`) and `OpImageWrite` (`imageStore`) of a
    /// 2D (or 2D-array: the layer third) storage image with integer coordinates and a 4-component texel
    /// of the image's sampled type: the IR's `image_load`/`image_store`.
    /// Image operands other than the memory-model ones are `Unsupported`.
    fn storage_image(&mut self, inst: &Inst, op: Op) -> Result<()> {
        let read = op == Op::ImageRead;
        let at = usize::from(read) * 2;
        inst.need(at + if read { 2 } else { 3 })?;
        let (h, image_ty) = self.image_of(inst.word(at)?)?;
        let (ty, array) = self.storage_image_type(image_ty)?;
        let (set, binding) = h
            .image
            .ok_or_else(|| inst.invalid("image operand has no image"))?;
        let coord = self.tex_coord(inst.word(at + 1)?, false, 2 + u8::from(array))?;
        let float = ty == SampledType::Float;
        let mask_at = at + if read { 2 } else { 3 };
        let mask = inst.operands.get(mask_at).copied().unwrap_or(0);
        self.check_image_operands(mask, 0)?;
        if read {
            let (rty, id) = (inst.word(0)?, inst.word(1)?);
            if self.m.value_type(rty) != Some(ValueType::U32.with_comps(4))
                || self.m.is_float(rty) != float
            {
                return Err(
                    inst.invalid("OpImageRead result is not a 4-vector of the image's type")
                );
            }
            let kind = Intrinsic::ImageLoad {
                set,
                binding,
                ty,
                array,
            };
            let v = self.intrinsic(kind, ValueType::U32.with_comps(4), &[coord])?;
            self.bind(id, rty, Val::Ssa(v))
        } else {
            let (tty, texel) = self.get_ssa(inst.word(at + 2)?)?;
            if self.ty(texel) != ValueType::U32.with_comps(4) || self.m.is_float(tty) != float {
                return Err(inst.unsupported(
                    "OpImageWrite of a texel other than a 4-vector of the image's type",
                ));
            }
            let kind = Intrinsic::ImageStore {
                set,
                binding,
                ty,
                array,
            };
            self.effect(kind, &[coord, texel])
        }
    }

    /// `OpImageTexelPointer` of a 2D storage image of 32-bit integers (the
    /// image operand is its variable): a [`Texel`] that only the atomics
    /// take (`inst.rs`), as the IR's `image_atomic`. Float images (no core
    /// float atomics in Vulkan 1.0) and a non-zero `Sample` are
    /// `Unsupported`.
    fn texel_pointer(&mut self, inst: &Inst) -> Result<()> {
        inst.need(5)?;
        let (ty, id) = (inst.word(0)?, inst.word(1)?);
        let (var_ty, v) = self.get(inst.word(2)?)?;
        let h = match &v {
            Val::Ptr(p) if p.path.is_empty() => match &p.root {
                super::variables::Root::Handle(h) => *h,
                _ => return Err(inst.invalid("OpImageTexelPointer of a non-image")),
            },
            _ => return Err(inst.invalid("OpImageTexelPointer of a non-image")),
        };
        let image_ty = match self.m.ty(var_ty)? {
            Type::Pointer { pointee, .. } => *pointee,
            _ => return Err(inst.invalid("OpImageTexelPointer image is not a pointer")),
        };
        match self.storage_image_type(image_ty)? {
            (SampledType::Float, _) => {
                return Err(inst.unsupported("image atomics on float images"));
            }
            (_, true) => return Err(inst.unsupported("image atomics on arrayed images")),
            _ => {}
        }
        let (_, sample) = self.get_ssa(inst.word(4)?)?;
        if self.ty(sample) != ValueType::U32 {
            return Err(inst.invalid("OpImageTexelPointer Sample is not a 32-bit integer"));
        }
        if !self.is_zero_const(inst.word(4)?) {
            return Err(inst.unsupported("image atomics with a sample index"));
        }
        let image = h
            .image
            .ok_or_else(|| inst.invalid("OpImageTexelPointer has no image"))?;
        let coord = self.tex_coord(inst.word(3)?, false, 2)?;
        self.bind(id, ty, Val::Texel(Texel { image, coord }))
    }

    /// Whether `id` is the integer constant 0.
    fn is_zero_const(&self, id: u32) -> bool {
        matches!(
            self.m.def(id),
            Ok(super::module::Def::Const { value, .. }) if value.as_u64() == Some(0)
        )
    }

    /// `OpImageQuerySizeLod` (`textureSize`) and `OpImageQueryLevels`
    /// (`textureQueryLevels`) of a sampled 1D, 2D or 3D image or a 1D/2D
    /// array: the IR's `texture_size` (two words the driver supplies,
    /// `binary::TEXTURE_SIZE_WORD`: level 0's (width − 1) | (height − 1)
    /// << 16, and the level count | (depth − 1 or layers − 1) << 16 — the
    /// high half 0 for plain 1D/2D images); level `lod`'s width, height
    /// and depth are max(1, size >> lod) (Vulkan "Image Mip Level
    /// Sizing"), an array's layer count is the same at every level. The
    /// result has one component per dimension, plus one for an array.
    fn image_query(&mut self, inst: &Inst, op: Op) -> Result<()> {
        inst.need(3)?;
        let (ty, id) = (inst.word(0)?, inst.word(1)?);
        let (h, image_ty) = self.image_of(inst.word(2)?)?;
        let (_, array, dim) = self.texture_type(image_ty)?;
        let (set, binding) = h
            .image
            .ok_or_else(|| inst.invalid("image operand has no image"))?;
        let u32t = ValueType::U32;
        // A cube's size is its faces' width and height (Vulkan
        // "OpImageQuerySizeLod": a cube array adds its cube count).
        let want = if op == Op::ImageQueryLevels {
            1
        } else if dim == TexDim::Cube {
            2 + u8::from(array)
        } else {
            dim.coords() + u8::from(array)
        };
        if self.m.value_type(ty) != Some(u32t.with_comps(want)) || self.m.is_float(ty) {
            return Err(
                inst.invalid("image query result is not an integer of the image's dimensions")
            );
        }
        let word = self.intrinsic(
            Intrinsic::TextureSize { set, binding },
            u32t.with_comps(2),
            &[],
        )?;
        // Whether the level word's high half holds a depth or layer count.
        let third = array || dim == TexDim::D3;
        let (mask, sixteen, one) = (self.u32c(0xffff)?, self.u32c(16)?, self.u32c(1)?);
        let v = if op == Op::ImageQueryLevels {
            let levels = self.channel(word, 1)?;
            if third {
                self.alu(AluOp::Iand, u32t, &[levels, mask])?
            } else {
                levels
            }
        } else {
            inst.need(4)?;
            let (lty, lod) = self.get_ssa(inst.word(3)?)?;
            if self.ty(lod) != u32t || self.m.is_float(lty) {
                return Err(inst.invalid("size query Lod is not a 32-bit integer"));
            }
            let packed = self.channel(word, 0)?;
            let w = self.alu(AluOp::Iand, u32t, &[packed, mask])?;
            let mut sizes = vec![w];
            if dim != TexDim::D1 {
                sizes.push(self.alu(AluOp::Ushr, u32t, &[packed, sixteen])?);
            }
            if third {
                let levels = self.channel(word, 1)?;
                sizes.push(self.alu(AluOp::Ushr, u32t, &[levels, sixteen])?);
            }
            let mut dims = Vec::new();
            for (k, d) in sizes.into_iter().enumerate() {
                let d = self.alu(AluOp::Iadd, u32t, &[d, one])?;
                // An array's layer count does not shrink with the level.
                if array && k + 1 == usize::from(want) {
                    dims.push(d);
                    continue;
                }
                let d = self.alu(AluOp::Ushr, u32t, &[d, lod])?;
                dims.push(self.alu(AluOp::Umax, u32t, &[d, one])?);
            }
            if dims.len() == 1 {
                dims[0]
            } else {
                self.vec(&dims)?
            }
        };
        self.bind(id, ty, Val::Ssa(v))
    }

    /// The base level of detail of `OpImageSampleExplicitLod` with `Grad`
    /// (`textureGrad`), computed in the shader: Vulkan's "Scale Factor
    /// Operation" with the isotropic ρmax = max(ρx, ρy), ρx = |(w ∂s/∂x,
    /// h ∂t/∂x, d ∂r/∂x)| (the axes the dimension has) and λbase =
    /// log2 ρmax = ½ log2 max(ρx², ρy²), the sizes of level 0 from the
    /// image's size word (`texture_size`: width, height, and a 3D image's
    /// depth in the level word's high half). The access is then a
    /// `sample_lod` at λbase (the sampler's bias and clamps still apply, as
    /// the spec's λ' = λbase + mipLodBias). The other route, Mesa's TEXC
    /// `GRDESC_DER` descriptor, has undocumented fields (docs/STATUS.md).
    fn grad_lod(
        &mut self,
        (set, binding): (u32, u32),
        dim: TexDim,
        dx: u32,
        dy: u32,
    ) -> Result<crate::compiler::ir::Value> {
        let n = dim.coords();
        let f32t = ValueType::F32;
        let u32t = ValueType::U32;
        let mut grads = Vec::new();
        for id in [dx, dy] {
            let (gty, g) = self.get_ssa(id)?;
            if self.ty(g) != f32t.with_comps(n) || !self.m.is_float(gty) {
                return Err(self.invalid("Grad is not a float vector of the image's dimensions"));
            }
            grads.push(g);
        }
        let word = self.intrinsic(
            Intrinsic::TextureSize { set, binding },
            u32t.with_comps(2),
            &[],
        )?;
        let (mask, sixteen, one) = (self.u32c(0xffff)?, self.u32c(16)?, self.u32c(1)?);
        let packed = self.channel(word, 0)?;
        let mut sizes = vec![self.alu(AluOp::Iand, u32t, &[packed, mask])?];
        if n >= 2 {
            sizes.push(self.alu(AluOp::Ushr, u32t, &[packed, sixteen])?);
        }
        if n == 3 {
            let levels = self.channel(word, 1)?;
            sizes.push(self.alu(AluOp::Ushr, u32t, &[levels, sixteen])?);
        }
        let mut fsizes = Vec::new();
        for d in sizes {
            let d = self.alu(AluOp::Iadd, u32t, &[d, one])?;
            fsizes.push(self.alu(AluOp::U2f, f32t, &[d])?);
        }
        let mut squares = Vec::new();
        for g in grads {
            let mut sum = None;
            for (a, &size) in fsizes.iter().enumerate() {
                let c = if n == 1 { g } else { self.channel(g, a as u8)? };
                let scaled = self.alu(AluOp::Fmul, f32t, &[c, size])?;
                sum = Some(match sum {
                    None => self.alu(AluOp::Fmul, f32t, &[scaled, scaled])?,
                    Some(s) => self.alu(AluOp::Ffma, f32t, &[scaled, scaled, s])?,
                });
            }
            squares.push(sum.ok_or_else(|| self.invalid("Grad without components"))?);
        }
        let m = self.alu(AluOp::Fmax, f32t, &squares)?;
        let l = self.alu(AluOp::Flog2, f32t, &[m])?;
        let half = self.fconst(f32t, 0.5)?;
        self.alu(AluOp::Fmul, f32t, &[l, half])
    }

    /// The base level of detail of `textureGrad` of a cube, computed in
    /// the shader from the direction `coord` (its first three components)
    /// and the gradients: the face selected as the backend selects it
    /// (`isel::texture::cube_coord`: largest magnitude, ties x before y
    /// before z, a zero component positive), (sc, tc, rc) and their
    /// derivatives from the spec's "Cube Map Face Selection and
    /// Transformations" table applied to the direction and to ∂P/∂x, ∂P/∂y,
    /// then the spec's "Cube Map Derivative Transformation" ∂s/∂x = ½
    /// (∂sc/∂x · |rc| − sc · ∂|rc|/∂x) / rc² (t alike), and the isotropic
    /// λbase = ½ log2 max(ρx², ρy²), ρx² = n² ((∂s/∂x)² + (∂t/∂x)²), n the
    /// face size of level 0 (the size word's width).
    fn cube_grad_lod(
        &mut self,
        (set, binding): (u32, u32),
        coord: crate::compiler::ir::Value,
        dx: u32,
        dy: u32,
    ) -> Result<crate::compiler::ir::Value> {
        let f32t = ValueType::F32;
        let u32t = ValueType::U32;
        let mut grads = Vec::new();
        for id in [dx, dy] {
            let (gty, g) = self.get_ssa(id)?;
            if self.ty(g) != f32t.with_comps(3) || !self.m.is_float(gty) {
                return Err(self.invalid("Grad of a cube is not a float 3-vector"));
            }
            grads.push(g);
        }
        let mut p = Vec::new();
        for c in 0..3 {
            p.push(self.channel(coord, c)?);
        }
        let mut abs = Vec::new();
        for &c in &p {
            abs.push(self.alu(AluOp::Fabs, f32t, &[c])?);
        }
        let zero = self.fconst(f32t, 0.0)?;
        let (one, minus_one) = (self.fconst(f32t, 1.0)?, self.fconst(f32t, -1.0)?);
        // sgn: 1 for a zero or positive component, else −1.
        let mut sgn = Vec::new();
        for &c in &p {
            let pos = self.compare(AluOp::Fge, c, zero)?;
            sgn.push(self.bcsel(pos, one, minus_one)?);
        }
        let xy = self.compare(AluOp::Fge, abs[0], abs[1])?;
        let xz = self.compare(AluOp::Fge, abs[0], abs[2])?;
        let yz = self.compare(AluOp::Fge, abs[1], abs[2])?;
        // The table's rows per axis as (component, sign) of sc, tc, rc;
        // the signs that depend on the major component's direction use
        // sgn.
        let mut d = Vec::new();
        for g in &grads {
            let mut comps = Vec::new();
            for c in 0..3 {
                comps.push(self.channel(*g, c)?);
            }
            d.push(comps);
        }
        // Values in the order: sc, tc, rc of the direction, then of ∂/∂x,
        // then of ∂/∂y: each a signed component of P, dPdx or dPdy.
        let mut per_axis: Vec<Vec<crate::compiler::ir::Value>> = Vec::new();
        for axis in 0..3usize {
            // (sc component, sc sign), (tc component, tc sign), rc component.
            let (sc, tc): (SignedComponent, SignedComponent) = match axis {
                // ±X: sc = −sgn(x)·z, tc = −y.
                0 => ((2, Some(0), -1.0), (1, None, -1.0)),
                // ±Y: sc = x, tc = sgn(y)·z.
                1 => ((0, None, 1.0), (2, Some(1), 1.0)),
                // ±Z: sc = sgn(z)·x, tc = −y.
                _ => ((0, Some(2), 1.0), (1, None, -1.0)),
            };
            let mut vals = Vec::new();
            for src in 0..3 {
                let v = |me: &mut Self, (comp, sign_of, k): (usize, Option<usize>, f64)| {
                    let base = if src == 0 { p[comp] } else { d[src - 1][comp] };
                    let kc = me.fconst(f32t, k)?;
                    let scaled = me.alu(AluOp::Fmul, f32t, &[base, kc])?;
                    match sign_of {
                        Some(a) => me.alu(AluOp::Fmul, f32t, &[scaled, sgn[a]]),
                        None => Ok(scaled),
                    }
                };
                let s = v(self, sc)?;
                let t = v(self, tc)?;
                // |rc| and ∂|rc| = sgn(rc)·∂rc.
                let r = if src == 0 {
                    abs[axis]
                } else {
                    d[src - 1][axis]
                };
                let r = if src == 0 {
                    r
                } else {
                    self.alu(AluOp::Fmul, f32t, &[r, sgn[axis]])?
                };
                vals.extend([s, t, r]);
            }
            per_axis.push(vals);
        }
        // x major when |x| ≥ |y| and |x| ≥ |z|; else y when |y| ≥ |z|.
        let mut sel = Vec::new();
        let [on_x, on_y, on_z] = [&per_axis[0], &per_axis[1], &per_axis[2]];
        for ((&xv, &yv), &zv) in on_x.iter().zip(on_y).zip(on_z) {
            let yz_val = self.bcsel(yz, yv, zv)?;
            let x_or = self.bcsel(xz, xv, yz_val)?;
            sel.push(self.bcsel(xy, x_or, yz_val)?);
        }
        let (sc, tc, ma) = (sel[0], sel[1], sel[2]);
        let word = self.intrinsic(
            Intrinsic::TextureSize { set, binding },
            u32t.with_comps(2),
            &[],
        )?;
        let (mask, one_u) = (self.u32c(0xffff)?, self.u32c(1)?);
        let packed = self.channel(word, 0)?;
        let w = self.alu(AluOp::Iand, u32t, &[packed, mask])?;
        let w = self.alu(AluOp::Iadd, u32t, &[w, one_u])?;
        let n = self.alu(AluOp::U2f, f32t, &[w])?;
        let ma2 = self.alu(AluOp::Fmul, f32t, &[ma, ma])?;
        let half = self.fconst(f32t, 0.5)?;
        let mut squares = Vec::new();
        for g in 0..2 {
            let (dsc, dtc, dma) = (sel[3 + 3 * g], sel[4 + 3 * g], sel[5 + 3 * g]);
            let mut sum = None;
            for (c, dc) in [(sc, dsc), (tc, dtc)] {
                // ½ (∂c · ma − c · ∂ma) / ma² × n.
                let a = self.alu(AluOp::Fmul, f32t, &[dc, ma])?;
                let b = self.alu(AluOp::Fmul, f32t, &[c, dma])?;
                let diff = self.alu(AluOp::Fsub, f32t, &[a, b])?;
                let q = self.alu(AluOp::Fdiv, f32t, &[diff, ma2])?;
                let q = self.alu(AluOp::Fmul, f32t, &[q, half])?;
                let q = self.alu(AluOp::Fmul, f32t, &[q, n])?;
                sum = Some(match sum {
                    None => self.alu(AluOp::Fmul, f32t, &[q, q])?,
                    Some(s) => self.alu(AluOp::Ffma, f32t, &[q, q, s])?,
                });
            }
            squares.push(sum.ok_or_else(|| self.invalid("no gradient"))?);
        }
        let m = self.alu(AluOp::Fmax, f32t, &squares)?;
        let l = self.alu(AluOp::Flog2, f32t, &[m])?;
        self.alu(AluOp::Fmul, f32t, &[l, half])
    }

    fn texture(&mut self, inst: &Inst, op: Op) -> Result<()> {
        inst.need(4)?;
        let (ty, id) = (inst.word(0)?, inst.word(1)?);
        let (h, image_ty) = self.image_of(inst.word(2)?)?;
        let fetch = op == Op::ImageFetch;
        let dref_op = matches!(
            op,
            Op::ImageSampleDrefImplicitLod | Op::ImageSampleDrefExplicitLod | Op::ImageDrefGather
        );
        let (sampled, array, dim) = self.texture_type_for(image_ty, dref_op)?;
        if op == Op::ImageDrefGather && array {
            return Err(inst.unsupported("depth gathers of array images"));
        }
        // Vulkan gathers 2D, cube and rectangle images only ("Standalone
        // SPIR-V Validation": OpImage*Gather's Dim).
        if matches!(op, Op::ImageGather | Op::ImageDrefGather)
            && !matches!(dim, TexDim::D2 | TexDim::Cube)
        {
            return Err(inst.invalid("a gather of a 1D or 3D image"));
        }
        if matches!(dim, TexDim::D1 | TexDim::D3) && dref_op {
            return Err(inst.unsupported("depth compares of 1D and 3D images"));
        }
        // Cube maps: sampling with an explicit (`textureLod`) or implicit
        // LOD (`texture`, with or without a bias) and gathers. SPIR-V
        // forbids fetches of cube images ("OpImageFetch": Dim must not be
        // Cube).
        if dim == TexDim::Cube {
            match op {
                Op::ImageFetch => return Err(inst.invalid("a texel fetch of a cube image")),
                Op::ImageSampleExplicitLod
                | Op::ImageSampleImplicitLod
                | Op::ImageSampleDrefExplicitLod
                | Op::ImageSampleDrefImplicitLod => {}
                // Gathers of float cubes: the simulated texture unit
                // averages the three texels of a cube corner, which has no
                // meaning for integer texels.
                Op::ImageGather if sampled == SampledType::Float => {}
                Op::ImageGather => return Err(inst.unsupported("gathers of integer cube images")),
                Op::ImageDrefGather => {
                    return Err(inst.unsupported("depth gathers of cube images"));
                }
                _ => return Err(inst.unsupported("implicit-LOD sampling of cube images")),
            }
        }
        // Implicit LOD of 1D and 3D images: the simulated TEXC COMPUTE
        // derives λ from the quad's (s, t) only (kmod/sim/shader/message.rs).
        if matches!(dim, TexDim::D1 | TexDim::D3) && op == Op::ImageSampleImplicitLod {
            return Err(inst.unsupported("implicit-LOD sampling of 1D and 3D images"));
        }
        let coord = self.tex_coord(inst.word(3)?, !fetch, dim.coords() + u8::from(array))?;
        // A gather's `Component`: a constant 0–3 (Vulkan's
        // "Standalone SPIR-V Validation": an OpImageGather Component must be
        // a constant), then the image operands.
        let component = if op == Op::ImageGather {
            inst.need(5)?;
            match self.m.def(inst.word(4)?)? {
                super::module::Def::Const { value, .. } => match value.as_u64() {
                    Some(c @ 0..=3) => Some(c as u8),
                    _ => return Err(inst.invalid("gather Component is not 0, 1, 2 or 3")),
                },
                _ => return Err(inst.invalid("gather Component is not a constant")),
            }
        } else {
            None
        };
        // Depth-compare: the reference value, then the image operands.
        let (dref, inst_shift) = if op == Op::ImageGather {
            (None, 1)
        } else if dref_op {
            inst.need(5)?;
            let (dty, d) = self.get_ssa(inst.word(4)?)?;
            if self.ty(d) != ValueType::F32
                || !self.m.is_float(dty)
                || sampled != SampledType::Float
            {
                return Err(inst.invalid("Dref is not a 32-bit float, or the image is not float"));
            }
            (Some(d), 1)
        } else {
            (None, 0)
        };
        let mask = inst.operands.get(4 + inst_shift).copied().unwrap_or(0);
        if dim == TexDim::Cube && mask & (CONST_OFFSET | OFFSET | CONST_OFFSETS) != 0 {
            return Err(inst.invalid("texel offsets of a cube image"));
        }
        let (set, binding) = h
            .image
            .ok_or_else(|| inst.invalid("image operand has no image"))?;
        let mut srcs = vec![coord];
        let tex_op = match op {
            Op::ImageSampleDrefImplicitLod | Op::ImageSampleDrefExplicitLod => {
                let explicit = op == Op::ImageSampleDrefExplicitLod;
                if !explicit && self.shader.stage != Stage::Fragment {
                    return Err(inst.invalid("implicit-LOD sampling outside a fragment shader"));
                }
                if explicit && mask & (LOD | GRAD) == 0 {
                    return Err(inst.invalid("explicit-LOD sampling without Lod or Grad"));
                }
                self.check_image_operands(mask, if explicit { LOD } else { 0 } | CONST_OFFSET)?;
                if explicit {
                    let (lty, lod) = self.get_ssa(inst.word(6)?)?;
                    if self.ty(lod) != ValueType::F32 || !self.m.is_float(lty) {
                        return Err(inst.invalid("Lod is not a 32-bit float"));
                    }
                    srcs.push(lod);
                }
                srcs.extend(dref);
                if explicit {
                    TexOp::SampleDrefLod
                } else {
                    TexOp::SampleDref
                }
            }
            Op::ImageGather => {
                self.check_image_operands(mask, CONST_OFFSET)?;
                TexOp::Gather(component.unwrap_or(0))
            }
            Op::ImageDrefGather => {
                self.check_image_operands(mask, CONST_OFFSET)?;
                srcs.extend(dref);
                TexOp::GatherDref
            }
            Op::ImageSampleImplicitLod => {
                if self.shader.stage != Stage::Fragment {
                    return Err(inst.invalid("implicit-LOD sampling outside a fragment shader"));
                }
                self.check_image_operands(mask, BIAS | CONST_OFFSET)?;
                if mask & BIAS != 0 {
                    let (bty, bias) = self.get_ssa(inst.word(5)?)?;
                    if self.ty(bias) != ValueType::F32 || !self.m.is_float(bty) {
                        return Err(inst.invalid("Bias is not a 32-bit float"));
                    }
                    srcs.push(bias);
                    TexOp::SampleBias
                } else {
                    TexOp::Sample
                }
            }
            Op::ImageSampleExplicitLod => {
                if mask & (LOD | GRAD) == 0 || mask & (LOD | GRAD) == LOD | GRAD {
                    return Err(inst.invalid("explicit-LOD sampling without Lod or Grad, or both"));
                }
                self.check_image_operands(mask, LOD | GRAD | CONST_OFFSET)?;
                let lod = if mask & GRAD != 0 && dim == TexDim::Cube {
                    self.cube_grad_lod((set, binding), coord, inst.word(5)?, inst.word(6)?)?
                } else if mask & GRAD != 0 {
                    self.grad_lod((set, binding), dim, inst.word(5)?, inst.word(6)?)?
                } else {
                    let (lty, lod) = self.get_ssa(inst.word(5)?)?;
                    if self.ty(lod) != ValueType::F32 || !self.m.is_float(lty) {
                        return Err(inst.invalid("Lod is not a 32-bit float"));
                    }
                    lod
                };
                srcs.push(lod);
                TexOp::SampleLod
            }
            _ => {
                self.check_image_operands(mask, LOD | CONST_OFFSET)?;
                let lod = if mask & LOD != 0 {
                    let (lty, lod) = self.get_ssa(inst.word(5)?)?;
                    if self.ty(lod) != ValueType::U32 || self.m.is_float(lty) {
                        return Err(inst.invalid("fetch Lod is not a 32-bit integer"));
                    }
                    lod
                } else {
                    self.konst(ValueType::U32, &[0])?
                };
                srcs.push(lod);
                TexOp::Fetch
            }
        };
        // `ConstOffset` follows the Bias or Lod operand (SPIR-V "Image
        // Operands": operands in the order of their mask bits): a constant
        // integer 2-vector, each component in Vulkan's required
        // [minTexelOffset, maxTexelOffset] = [−8, 7] (what TEXC's signed
        // bytes hold).
        if mask & CONST_OFFSET != 0 && dim != TexDim::D2 {
            return Err(inst.unsupported("texel offsets of 1D and 3D images"));
        }
        let offset = if mask & CONST_OFFSET != 0 {
            let at = 5
                + inst_shift
                + usize::from(mask & (BIAS | LOD) != 0)
                + 2 * usize::from(mask & GRAD != 0);
            let id = inst.word(at)?;
            let comps = match self.m.def(id)? {
                super::module::Def::Const {
                    value: super::constants::Cst::Composite(c),
                    ..
                } if c.len() == 2 => c.clone(),
                _ => return Err(inst.invalid("ConstOffset is not a constant integer 2-vector")),
            };
            let mut o = [0i8; 2];
            for (k, c) in comps.iter().enumerate() {
                let v = c.as_u64().map(|v| v as u32 as i32);
                match v {
                    Some(v @ -8..=7) => o[k] = v as i8,
                    _ => return Err(inst.unsupported("texel offsets outside [-8, 7]")),
                }
            }
            o
        } else {
            [0, 0]
        };
        // The result: a 4-vector of the image's sampled type (a float for
        // depth compares).
        let float = sampled == SampledType::Float;
        let scalar = dref_op && op != Op::ImageDrefGather;
        let comps = if scalar { 1 } else { 4 };
        if self.m.value_type(ty) != Some(ValueType::U32.with_comps(comps))
            || self.m.is_float(ty) != float
        {
            return Err(inst.invalid("result is not a 4-vector of the image's sampled type"));
        }
        let sampler = match tex_op {
            TexOp::Fetch => None,
            _ => Some(
                h.sampler
                    .ok_or_else(|| inst.invalid("sampling an image without a sampler"))?,
            ),
        };
        let kind = Intrinsic::Texture {
            set,
            binding,
            sampler,
            op: tex_op,
            ty: sampled,
            array,
            dim,
            offset,
        };
        let v = self.intrinsic(kind, ValueType::U32.with_comps(4), &srcs)?;
        let v = if scalar { self.channel(v, 0)? } else { v };
        self.bind(id, ty, Val::Ssa(v))
    }
}
