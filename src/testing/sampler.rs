//! A reference texture sampler written from the Vulkan specification's
//! "Image Operations" chapter (sections "Texel Coordinate Systems",
//! "Unnormalized Texel Coordinate Operations", "Level-of-Detail Operation",
//! "Wrapping Operation", "Texel Filtering"), the oracle the simulated
//! texture unit is checked against. It shares nothing with the simulator.
//!
//! Modelled: 2D images in R8_UNORM, R8G8_UNORM, A2B10G10R10_UNORM_PACK32,
//! R5G6B5_UNORM_PACK16, R16G16B16A16_SFLOAT, R32G32B32A32_SFLOAT,
//! R32_SFLOAT, R8G8B8A8_UNORM,
//! _SRGB (the RGB channels decoded by the Khronos Data Format
//! Specification's sRGB EOTF, alpha linear), _UINT and _SINT (components
//! unconverted, zero- or sign-extended to 32 bits; nearest filtering only,
//! as these formats lack `SAMPLED_IMAGE_FILTER_LINEAR`); samplers with normalized
//! coordinates, `magFilter`/`minFilter` NEAREST or LINEAR chosen by the
//! sign of λ after the `minLod`/`maxLod` clamp, every address mode but
//! MIRROR_CLAMP_TO_EDGE, the three opaque and transparent float border
//! colours; `OpImageFetch` at integer coordinates inside the level.
//!
//! Cube maps ([`Bindings::sample_cube`], [`Bindings::gather_cube`]): the
//! spec's "Cube Map Face Selection and Transformations" table, NEAREST
//! clamped to the face, LINEAR and gathers across face edges by "Cube Map
//! Edge Handling" (corners: the average of three texels), written apart
//! from the simulator's (an integer lattice here, a reprojected direction
//! there).
//!
//! Mipmaps, `mipmapMode`, `mipLodBias` and texel offsets through
//! [`Bindings::sample_levels`] / [`Bindings::sample_offset`] (λbase given:
//! explicit, or from [`implicit_lod`]).
//!
//! Not modelled (an error, never a guess): implicit LOD in
//! `TextureSource` when the two filters differ (λ needs derivatives, which
//! an invocation alone does not have; with equal filters and one level λ
//! selects nothing), unnormalized coordinates, anisotropy, compare, other
//! formats, fetches outside the image (undefined without
//! robustImageAccess).

use std::collections::HashMap;

use crate::compiler::ir::interp::TextureSource;
use crate::compiler::ir::{Intrinsic, SampledType, TexDim, TexOp};

/// `VkSamplerAddressMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMode {
    Repeat,
    MirroredRepeat,
    ClampToEdge,
    ClampToBorder,
}

impl AddressMode {
    pub const ALL: [AddressMode; 4] = [
        AddressMode::Repeat,
        AddressMode::MirroredRepeat,
        AddressMode::ClampToEdge,
        AddressMode::ClampToBorder,
    ];
}

/// `VkBorderColor` (the float ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BorderColor {
    TransparentBlack,
    OpaqueBlack,
    OpaqueWhite,
}

impl BorderColor {
    pub fn rgba(self) -> [f32; 4] {
        match self {
            BorderColor::TransparentBlack => [0.0; 4],
            BorderColor::OpaqueBlack => [0.0, 0.0, 0.0, 1.0],
            BorderColor::OpaqueWhite => [1.0; 4],
        }
    }
}

/// The sampler state the reference models.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampler {
    pub mag_linear: bool,
    pub min_linear: bool,
    /// `addressModeU`, `addressModeV`.
    pub address: [AddressMode; 2],
    /// `addressModeW` (3D images).
    pub address_w: AddressMode,
    pub border: BorderColor,
    pub min_lod: f32,
    pub max_lod: f32,
    /// `mipmapMode` LINEAR (else NEAREST) and `mipLodBias` (for
    /// [`Bindings::sample_levels`]).
    pub mipmap_linear: bool,
    pub lod_bias: f32,
    /// `compareEnable` with `compareOp` (for [`Bindings::sample_levels_dref`]).
    pub compare: Option<CompareOp>,
}

/// `VkCompareOp`: the reference rasterizer's (a depth compare is the
/// same "`reference` op `texel`" test, "Depth Compare Operation").
pub use super::raster::ops::CompareOp;

impl Sampler {
    /// One filter for both, one address mode for both axes, LOD range [0, 0].
    pub fn simple(linear: bool, address: AddressMode) -> Sampler {
        Sampler {
            mag_linear: linear,
            min_linear: linear,
            address: [address; 2],
            address_w: address,
            border: BorderColor::TransparentBlack,
            min_lod: 0.0,
            max_lod: 0.0,
            mipmap_linear: false,
            lod_bias: 0.0,
            compare: None,
        }
    }
}

/// The `VkFormat`s of [`Image`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    Rgba8Unorm,
    Rgba8Srgb,
    Rgba8Uint,
    Rgba8Sint,
    /// `VK_FORMAT_R32_SFLOAT`: each texel's four bytes are one f32
    /// (little-endian), read as (d, 0, 0, 1).
    R32Sfloat,
    /// `VK_FORMAT_R8_UNORM` (byte 0; (r, 0, 0, 1)), `VK_FORMAT_R8G8_UNORM`
    /// (bytes 0, 1; (r, g, 0, 1)), `VK_FORMAT_A2B10G10R10_UNORM_PACK32`
    /// (the little-endian word: R bits 0..9, G 10..19, B 20..29, A
    /// 30..31, "Formats"); UNORM c / (2^b − 1).
    R8Unorm,
    R8g8Unorm,
    A2b10g10r10UnormPack32,
    /// `VK_FORMAT_R5G6B5_UNORM_PACK16`: the little-endian 16-bit word of
    /// bytes 0, 1 holds R in bits 11..15, G 5..10, B 0..4 ("Formats":
    /// the first-listed component in the most significant bits); UNORM
    /// c / (2^b − 1), alpha 1.
    R5g6b5UnormPack16,
    /// `VK_FORMAT_R16G16B16A16_SFLOAT`: four IEEE 754 binary16 values, R
    /// first, little-endian (8 bytes: two consecutive entries of
    /// [`Image::texels`]). Converted to 32-bit floats exactly
    /// ("Floating-Point Format Conversions": every binary16 value,
    /// infinities included, is representable; a NaN stays a NaN).
    R16g16b16a16Sfloat,
    /// `VK_FORMAT_R32G32B32A32_SFLOAT`: four f32, R first (16 bytes: four
    /// consecutive entries of [`Image::texels`]).
    R32g32b32a32Sfloat,
    /// `VK_FORMAT_R16_SFLOAT`, `VK_FORMAT_R16G16_SFLOAT` (binary16 values,
    /// R first, (r, 0, 0, 1) / (r, g, 0, 1)), `VK_FORMAT_R32G32_SFLOAT` (two
    /// f32: two entries of [`Image::texels`]).
    R16Sfloat,
    R16g16Sfloat,
    R32g32Sfloat,
    /// `VK_FORMAT_R8_SNORM`, `R8G8_SNORM`, `R8G8B8A8_SNORM`: bytes as two's
    /// complement c, "Conversion from Normalized Fixed-Point to
    /// Floating-Point" max(c / 127, −1).
    R8Snorm,
    R8g8Snorm,
    R8g8b8a8Snorm,
    /// `VK_FORMAT_B8G8R8A8_UNORM`: B in byte 0, G 1, R 2, A 3.
    B8g8r8a8Unorm,
    /// `VK_FORMAT_B10G11R11_UFLOAT_PACK32`: the little-endian word holds R
    /// in bits 0..10, G 11..21 (unsigned 11-bit floats: 5-bit exponent,
    /// 6-bit mantissa), B 22..31 (10-bit: 5-bit mantissa), "Unsigned 11-Bit
    /// Floating-Point Numbers"; alpha 1.
    B10g11r11UfloatPack32,
    /// `VK_FORMAT_R16G16_UINT`/`_SINT` (two little-endian 16-bit integers,
    /// R first; (r, g, 0, 1)), `VK_FORMAT_R32_UINT`/`_SINT` (one 32-bit
    /// integer; (r, 0, 0, 1)): zero- or sign-extended to 32-bit words.
    R16g16Uint,
    R16g16Sint,
    R32Uint,
    R32Sint,
}

impl ImageFormat {
    /// Entries of [`Image::texels`] per texel: texels of up to 4 bytes take
    /// one (its leading bytes), wider ones 4-byte words in turn.
    pub fn texel_words(self) -> usize {
        match self {
            ImageFormat::R16g16b16a16Sfloat | ImageFormat::R32g32Sfloat => 2,
            ImageFormat::R32g32b32a32Sfloat => 4,
            _ => 1,
        }
    }

    /// The sampled type a shader must read it as.
    pub fn sampled_type(self) -> SampledType {
        match self {
            ImageFormat::Rgba8Unorm
            | ImageFormat::Rgba8Srgb
            | ImageFormat::R32Sfloat
            | ImageFormat::R8Unorm
            | ImageFormat::R8g8Unorm
            | ImageFormat::A2b10g10r10UnormPack32
            | ImageFormat::R5g6b5UnormPack16
            | ImageFormat::R16g16b16a16Sfloat
            | ImageFormat::R32g32b32a32Sfloat
            | ImageFormat::R16Sfloat
            | ImageFormat::R16g16Sfloat
            | ImageFormat::R32g32Sfloat
            | ImageFormat::R8Snorm
            | ImageFormat::R8g8Snorm
            | ImageFormat::R8g8b8a8Snorm
            | ImageFormat::B8g8r8a8Unorm
            | ImageFormat::B10g11r11UfloatPack32 => SampledType::Float,
            ImageFormat::Rgba8Uint | ImageFormat::R16g16Uint | ImageFormat::R32Uint => {
                SampledType::Uint
            }
            ImageFormat::Rgba8Sint | ImageFormat::R16g16Sint | ImageFormat::R32Sint => {
                SampledType::Sint
            }
        }
    }
}

/// A 2D image of one level.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    /// Row-major texels, each [`ImageFormat::texel_words`] consecutive
    /// entries (its bytes in memory order).
    pub texels: Vec<[u8; 4]>,
    pub format: ImageFormat,
}

/// The sRGB EOTF (Khronos Data Format Specification, "sRGB transfer
/// functions"): encoded value → linear.
pub fn srgb_to_linear(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// An IEEE 754 binary16 value (1 sign bit, 5 exponent bits biased by
/// 15, 10 fraction bits): exponent 0 is ±f · 2^-24 (zero and subnormals),
/// 31 is ±∞ (f = 0) or a NaN, others ±(1 + f/1024) · 2^(e − 15). Exact in
/// f64. Written here from the IEEE definition rather than taken from the
/// `half` crate the simulator uses, so the two do not share a decoder.
pub fn binary16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let f = f64::from(h & 0x3ff);
    sign * match e {
        0 => f * 2f64.powi(-24),
        31 if f == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + f / 1024.0) * 2f64.powi(e - 15),
    }
}

impl Image {
    /// The texel at integer (i, j) inside the image, converted to floats
    /// ("Format Conversion": UNORM c / 255, sRGB RGB decoded).
    pub fn texel(&self, i: u32, j: u32) -> [f64; 4] {
        let at = (j * self.width + i) as usize * self.format.texel_words();
        let t = self.texels[at];
        match self.format {
            ImageFormat::R5g6b5UnormPack16 => {
                let w = u16::from_le_bytes([t[0], t[1]]);
                let c = |at: u32, bits: u32| {
                    let max = (1u16 << bits) - 1;
                    f64::from((w >> at) & max) / f64::from(max)
                };
                return [c(11, 5), c(5, 6), c(0, 5), 1.0];
            }
            ImageFormat::R16g16b16a16Sfloat => {
                let u = self.texels[at + 1];
                let h = [[t[0], t[1]], [t[2], t[3]], [u[0], u[1]], [u[2], u[3]]];
                return h.map(|b| binary16_to_f64(u16::from_le_bytes(b)));
            }
            ImageFormat::R32g32b32a32Sfloat => {
                return std::array::from_fn(|k| f64::from(f32::from_le_bytes(self.texels[at + k])));
            }
            ImageFormat::R32Sfloat => return [f64::from(f32::from_le_bytes(t)), 0.0, 0.0, 1.0],
            ImageFormat::R8Unorm => return [f64::from(t[0]) / 255.0, 0.0, 0.0, 1.0],
            ImageFormat::R8g8Unorm => {
                return [f64::from(t[0]) / 255.0, f64::from(t[1]) / 255.0, 0.0, 1.0];
            }
            ImageFormat::A2b10g10r10UnormPack32 => {
                let w = u32::from_le_bytes(t);
                let c = |at: u32, bits: u32| {
                    let max = (1u32 << bits) - 1;
                    f64::from((w >> at) & max) / f64::from(max)
                };
                return [c(0, 10), c(10, 10), c(20, 10), c(30, 2)];
            }
            ImageFormat::R16Sfloat => {
                return [
                    binary16_to_f64(u16::from_le_bytes([t[0], t[1]])),
                    0.0,
                    0.0,
                    1.0,
                ];
            }
            ImageFormat::R16g16Sfloat => {
                let h = |k: usize| binary16_to_f64(u16::from_le_bytes([t[2 * k], t[2 * k + 1]]));
                return [h(0), h(1), 0.0, 1.0];
            }
            ImageFormat::R32g32Sfloat => {
                let f = |k: usize| f64::from(f32::from_le_bytes(self.texels[at + k]));
                return [f(0), f(1), 0.0, 1.0];
            }
            ImageFormat::R8Snorm | ImageFormat::R8g8Snorm | ImageFormat::R8g8b8a8Snorm => {
                let n = match self.format {
                    ImageFormat::R8Snorm => 1,
                    ImageFormat::R8g8Snorm => 2,
                    _ => 4,
                };
                let mut out = [0.0, 0.0, 0.0, 1.0];
                for (o, &b) in out.iter_mut().zip(&t).take(n) {
                    *o = (f64::from(b as i8) / 127.0).max(-1.0);
                }
                return out;
            }
            ImageFormat::B8g8r8a8Unorm => {
                return [t[2], t[1], t[0], t[3]].map(|c| f64::from(c) / 255.0);
            }
            ImageFormat::B10g11r11UfloatPack32 => {
                let w = u32::from_le_bytes(t);
                // Exponent 0: f · 2^-14 / 2^m; 31: ∞ or NaN; else (1 +
                // f / 2^m) · 2^(e − 15).
                let v = |at: u32, m: u32| {
                    let code = (w >> at) & ((1 << (m + 5)) - 1);
                    let (e, f) = ((code >> m) as i32, f64::from(code & ((1 << m) - 1)));
                    let scale = f64::from(1u32 << m);
                    match e {
                        0 => f / scale * 2f64.powi(-14),
                        31 if f == 0.0 => f64::INFINITY,
                        31 => f64::NAN,
                        _ => (1.0 + f / scale) * 2f64.powi(e - 15),
                    }
                };
                return [v(0, 6), v(11, 6), v(22, 5), 1.0];
            }
            _ => {}
        }
        let mut out = t.map(|c| f64::from(c) / 255.0);
        if self.format == ImageFormat::Rgba8Srgb {
            for c in &mut out[..3] {
                *c = srgb_to_linear(*c);
            }
        }
        out
    }
}

impl Image {
    /// The texel at integer (i, j) of an integer image, as the 32-bit
    /// words a shader reads (UINT zero-extended, SINT sign-extended).
    pub fn texel_bits(&self, i: u32, j: u32) -> [u32; 4] {
        let t = self.texels[(j * self.width + i) as usize];
        match self.format {
            ImageFormat::Rgba8Sint => t.map(|c| c as i8 as i32 as u32),
            ImageFormat::R16g16Uint => [
                u32::from(u16::from_le_bytes([t[0], t[1]])),
                u32::from(u16::from_le_bytes([t[2], t[3]])),
                0,
                1,
            ],
            ImageFormat::R16g16Sint => [
                i16::from_le_bytes([t[0], t[1]]) as i32 as u32,
                i16::from_le_bytes([t[2], t[3]]) as i32 as u32,
                0,
                1,
            ],
            ImageFormat::R32Uint | ImageFormat::R32Sint => [u32::from_le_bytes(t), 0, 0, 1],
            _ => t.map(u32::from),
        }
    }
}

/// Integer texel coordinate after the "Wrapping Operation" for a size of
/// `n`; `None` for a border texel (CLAMP_TO_BORDER outside [0, n)).
pub fn wrap(mode: AddressMode, i: i64, n: u32) -> Option<u32> {
    let n = i64::from(n);
    let v = match mode {
        AddressMode::Repeat => i.rem_euclid(n),
        AddressMode::MirroredRepeat => {
            // (size − 1) − mirror((i mod (2 × size)) − size), mirror(a) =
            // a if a ≥ 0 else −(1 + a).
            let a = i.rem_euclid(2 * n) - n;
            let mirror = if a >= 0 { a } else { -(1 + a) };
            (n - 1) - mirror
        }
        AddressMode::ClampToEdge => i.clamp(0, n - 1),
        AddressMode::ClampToBorder => {
            let c = i.clamp(-1, n);
            if c < 0 || c >= n {
                return None;
            }
            c
        }
    };
    Some(v as u32)
}

/// ⌊x⌋ as an index `wrap` maps as it would map the true one, however
/// large: wrapping is periodic (period n or 2n) and clamping saturates, so
/// the index is reduced modulo 2n, or clamped to [-2, n + 1] (f64's
/// `rem_euclid` of an integer-valued float is exact). `index + 1` stays
/// consistent with `⌊x⌋ + 1`.
pub fn texel_index(mode: AddressMode, x: f64, n: u32) -> i64 {
    let f = x.floor();
    match mode {
        AddressMode::Repeat | AddressMode::MirroredRepeat => {
            f.rem_euclid(2.0 * f64::from(n)) as i64
        }
        AddressMode::ClampToEdge | AddressMode::ClampToBorder => {
            f.clamp(-2.0, f64::from(n) + 1.0) as i64
        }
    }
}

/// The images and samplers of a draw or dispatch by (set, binding).
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    pub images: HashMap<(u32, u32), Image>,
    /// 2D array images: their layers, in order; a 1D array's layers are
    /// images of height 1.
    pub arrays: HashMap<(u32, u32), Vec<Image>>,
    /// 3D images: their mip levels (level 0 first), each its depth
    /// slices in order. A 1D image is an [`Image`] of height 1 in
    /// `images`.
    pub volumes: HashMap<(u32, u32), Vec<Vec<Image>>>,
    pub samplers: HashMap<(u32, u32), Sampler>,
}

/// The layer a sample of an array with `layers` layers reads ("Texel
/// Coordinate Systems": clamp(RNE(r), 0, layers − 1)).
pub fn array_layer(r: f32, layers: usize) -> usize {
    let l = f64::from(r).round_ties_even();
    if l.is_nan() || l < 0.0 {
        0
    } else {
        (l.min((layers - 1) as f64)) as usize
    }
}

/// Whether `sampler` filters linearly at level of detail `lod` (`None`:
/// implicit): λ = clamp(λbase, minLod, maxLod) (no bias), magnified when
/// λ ≤ 0; an implicit LOD is modelled only when both filters agree.
fn filter_is_linear(sampler: &Sampler, lod: Option<f32>) -> Result<bool, String> {
    match lod {
        Some(l) => {
            if sampler.min_lod > sampler.max_lod || l.is_nan() {
                return Err("λ undefined (minLod > maxLod or a NaN LOD)".into());
            }
            Ok(if l.clamp(sampler.min_lod, sampler.max_lod) <= 0.0 {
                sampler.mag_linear
            } else {
                sampler.min_linear
            })
        }
        None if sampler.mag_linear == sampler.min_linear => Ok(sampler.mag_linear),
        None => Err("implicit LOD with different min and mag filters".into()),
    }
}

/// The implicit base level of detail ("Scale Factor Operation",
/// isotropic): ρ = max(|(w ∂s/∂x, h ∂t/∂x)|, |(w ∂s/∂y, h ∂t/∂y)|) for level
/// 0 of `w`×`h` texels, λbase = log2 ρ, rounded to the nearest 1/256 — the
/// 8 fractional bits we give the hardware's LOD values (genxml `slod`), an
/// approximation within the spec's `mipmapPrecisionBits` allowance.
pub fn implicit_lod(size: (u32, u32), ds_dx: f64, dt_dx: f64, ds_dy: f64, dt_dy: f64) -> f32 {
    let (w, h) = (f64::from(size.0), f64::from(size.1));
    let rho = (w * ds_dx)
        .hypot(h * dt_dx)
        .max((w * ds_dy).hypot(h * dt_dy));
    ((rho.log2() * 256.0).round() / 256.0).clamp(-128.0, 128.0) as f32
}

/// "Unnormalized Texel Coordinate Operations": (u, v) = (s × width,
/// t × height), finite.
fn unnormalized(image: &Image, s: f32, t: f32) -> Result<(f64, f64), String> {
    let u = f64::from(s) * f64::from(image.width);
    let v = f64::from(t) * f64::from(image.height);
    if !(u.is_finite() && v.is_finite()) {
        return Err("non-finite coordinate".into());
    }
    Ok((u, v))
}

impl Bindings {
    /// `OpImageSample*Lod` with normalized (s, t) and level of detail
    /// `lod` (`None`: implicit). Four floats.
    pub fn sample(
        &self,
        image: &Image,
        sampler: &Sampler,
        s: f32,
        t: f32,
        lod: Option<f32>,
    ) -> Result<[f32; 4], String> {
        self.sample_offset(image, sampler, s, t, lod, [0, 0])
    }

    /// [`Bindings::sample`] with a texel offset (`ConstOffset`, "Texel
    /// Coordinate Systems": (Δi, Δj) added to the integer texel
    /// coordinates, i = ⌊u⌋ + Δi for NEAREST, i0 = ⌊u − ½⌋ + Δi for LINEAR,
    /// before wrapping).
    pub fn sample_offset(
        &self,
        image: &Image,
        sampler: &Sampler,
        s: f32,
        t: f32,
        lod: Option<f32>,
        offset: [i8; 2],
    ) -> Result<[f32; 4], String> {
        self.filter(image, sampler, (s, t), lod, offset, None)
    }

    /// The filtering of [`Bindings::sample_offset`]; with `dref` ("Depth
    /// Compare Operation"), each texel's depth D — its first component, a
    /// border texel's the border colour's red — becomes 1.0 when `dref op
    /// D` holds for the sampler's `compareOp`, else 0.0, before the
    /// filter weights them; the result is (r, 0, 0, 1).
    fn filter(
        &self,
        image: &Image,
        sampler: &Sampler,
        (s, t): (f32, f32),
        lod: Option<f32>,
        offset: [i8; 2],
        dref: Option<f32>,
    ) -> Result<[f32; 4], String> {
        let (di, dj) = (f64::from(offset[0]), f64::from(offset[1]));
        let linear = filter_is_linear(sampler, lod)?;
        let (u, v) = unnormalized(image, s, t)?;
        let border = sampler.border.rgba().map(f64::from);
        let compare = |c: [f64; 4]| match (dref, sampler.compare) {
            (Some(r), Some(op)) => [
                f64::from(u8::from(op.test(f64::from(r), c[0]))),
                0.0,
                0.0,
                1.0,
            ],
            _ => c,
        };
        let fetch = |i: i64, j: i64| -> [f64; 4] {
            compare(
                match (
                    wrap(sampler.address[0], i, image.width),
                    wrap(sampler.address[1], j, image.height),
                ) {
                    (Some(x), Some(y)) => image.texel(x, y),
                    _ => border,
                },
            )
        };
        let out = if !linear {
            // NEAREST: i = ⌊u⌋, j = ⌊v⌋.
            fetch(
                texel_index(sampler.address[0], u + di, image.width),
                texel_index(sampler.address[1], v + dj, image.height),
            )
        } else {
            // LINEAR: i0 = ⌊u − ½⌋, α = frac(u − ½); the four texels
            // weighted (1 − α)(1 − β), α(1 − β), (1 − α)β, αβ.
            let (u, v) = (u - 0.5, v - 0.5);
            let i0 = texel_index(sampler.address[0], u + di, image.width);
            let j0 = texel_index(sampler.address[1], v + dj, image.height);
            let (a, b) = (u - u.floor(), v - v.floor());
            let mut acc = [0.0f64; 4];
            for (dj, wy) in [(0, 1.0 - b), (1, b)] {
                for (di, wx) in [(0, 1.0 - a), (1, a)] {
                    let c = fetch(i0 + di, j0 + dj);
                    for k in 0..4 {
                        acc[k] += wx * wy * c[k];
                    }
                }
            }
            acc
        };
        Ok(out.map(|x| x as f32))
    }

    /// `OpImageSample*Lod` of a mipmapped image (`levels[l]` is level l,
    /// of size max(1, width >> l) × max(1, height >> l)) at normalized
    /// (s, t) with the base level of detail `lod` (explicit, or what the
    /// "Scale Factor Operation" gives an implicit one). "Level-of-Detail
    /// Operation": λ' = lod + mipLodBias, λ = clamp(λ', minLod, maxLod)
    /// (minLod > maxLod: an error); "Image Level(s) Selection": d =
    /// clamp(λ, 0, q), q = the last level; NEAREST takes level ⌈d + ½⌉ − 1
    /// (the spec's preferred rounding; ⌊d + ½⌋ is also allowed, they differ
    /// only at d = k + ½), LINEAR blends levels ⌊d⌋ and min(⌊d⌋ + 1, q) by
    /// (1 − δ, δ), δ = frac(d); each level filtered with magFilter when λ ≤
    /// 0, else minFilter ("Texel Filtering"). Float formats only.
    pub fn sample_levels(
        &self,
        levels: &[Image],
        sampler: &Sampler,
        s: f32,
        t: f32,
        lod: f32,
    ) -> Result<[f32; 4], String> {
        self.sample_levels_offset(levels, sampler, s, t, lod, [0, 0])
    }

    /// [`Bindings::sample_levels`] with a texel offset in every level (as
    /// [`Bindings::sample_offset`]).
    pub fn sample_levels_offset(
        &self,
        levels: &[Image],
        sampler: &Sampler,
        s: f32,
        t: f32,
        lod: f32,
        offset: [i8; 2],
    ) -> Result<[f32; 4], String> {
        self.levels_filter(levels, sampler, (s, t), lod, offset, None)
    }

    /// `OpImageSampleDrefExplicitLod`: [`Bindings::sample_levels`] with
    /// each level's texels compared with `dref` (see `filter`); the
    /// sampler must have `compare`.
    pub fn sample_levels_dref(
        &self,
        levels: &[Image],
        sampler: &Sampler,
        s: f32,
        t: f32,
        lod: f32,
        dref: f32,
    ) -> Result<[f32; 4], String> {
        if sampler.compare.is_none() {
            return Err("a depth compare with a sampler without compareEnable".into());
        }
        self.levels_filter(levels, sampler, (s, t), lod, [0, 0], Some(dref))
    }

    fn levels_filter(
        &self,
        levels: &[Image],
        sampler: &Sampler,
        (s, t): (f32, f32),
        lod: f32,
        offset: [i8; 2],
        dref: Option<f32>,
    ) -> Result<[f32; 4], String> {
        if levels.is_empty() || levels[0].format.sampled_type() != SampledType::Float {
            return Err("no levels, or an integer format".into());
        }
        for (l, image) in levels.iter().enumerate() {
            let (w, h) = (
                (levels[0].width >> l).max(1),
                (levels[0].height >> l).max(1),
            );
            if (image.width, image.height) != (w, h) {
                return Err(format!("level {l} is not {w}×{h}"));
            }
        }
        if sampler.min_lod > sampler.max_lod || !lod.is_finite() {
            return Err("λ undefined (minLod > maxLod or a non-finite LOD)".into());
        }
        let lambda = (f64::from(lod) + f64::from(sampler.lod_bias))
            .clamp(f64::from(sampler.min_lod), f64::from(sampler.max_lod));
        let linear = if lambda <= 0.0 {
            sampler.mag_linear
        } else {
            sampler.min_linear
        };
        let one = Sampler {
            mag_linear: linear,
            min_linear: linear,
            min_lod: 0.0,
            max_lod: 0.0,
            ..*sampler
        };
        let q = (levels.len() - 1) as f64;
        let d = lambda.clamp(0.0, q);
        let level = |l: usize| self.filter(&levels[l], &one, (s, t), Some(0.0), offset, dref);
        if !sampler.mipmap_linear {
            return level(((d + 0.5).ceil() - 1.0) as usize);
        }
        let hi = d.floor() as usize;
        let lo = (hi + 1).min(levels.len() - 1);
        let delta = d - d.floor();
        let (a, b) = (level(hi)?, level(lo)?);
        Ok(std::array::from_fn(|k| {
            ((1.0 - delta) * f64::from(a[k]) + delta * f64::from(b[k])) as f32
        }))
    }

    /// `OpImageFetch` at (i, j), level `lod`.
    pub fn fetch(&self, image: &Image, i: i32, j: i32, lod: i32) -> Result<[f32; 4], String> {
        if lod != 0 || i < 0 || j < 0 || i as u32 >= image.width || j as u32 >= image.height {
            return Err(format!(
                "texel ({i}, {j}) level {lod} outside the image (undefined)"
            ));
        }
        Ok(image.texel(i as u32, j as u32).map(|x| x as f32))
    }
}

impl Bindings {
    /// `OpImageSample*Lod` of an integer image: the nearest texel's words
    /// (linear filtering and border texels of integer formats: errors).
    pub fn sample_int(
        &self,
        image: &Image,
        sampler: &Sampler,
        s: f32,
        t: f32,
        lod: Option<f32>,
    ) -> Result<[u32; 4], String> {
        if filter_is_linear(sampler, lod)? {
            return Err("linear filtering of an integer format".into());
        }
        let (u, v) = unnormalized(image, s, t)?;
        match (
            wrap(
                sampler.address[0],
                texel_index(sampler.address[0], u, image.width),
                image.width,
            ),
            wrap(
                sampler.address[1],
                texel_index(sampler.address[1], v, image.height),
                image.height,
            ),
        ) {
            (Some(x), Some(y)) => Ok(image.texel_bits(x, y)),
            _ => Err("a float border colour for an integer format".into()),
        }
    }
}

impl Bindings {
    /// `OpImageGather` (Vulkan "Texel Gathering") of component `component`
    /// (0–3) at normalized (s, t) with texel offset `offset`: the four
    /// texels LINEAR filtering would use in the base level — i0 =
    /// ⌊u − ½⌋ + Δi, j0 = ⌊v − ½⌋ + Δj, i1 = i0 + 1, j1 = j0 + 1, each wrapped
    /// ("Wrapping Operation") — in the spec's order i0j1, i1j1, i1j0, i0j0,
    /// each texel's `component` after "Conversion to RGBA" (absent
    /// components 0, alpha 1), a border texel's the border colour's. The
    /// sampler's filters and LOD range play no part. Float images give f32
    /// bits, integer ones the texel's words; a border texel of an integer
    /// image is an error (the float border colours are not integer values).
    pub fn gather(
        &self,
        image: &Image,
        sampler: &Sampler,
        (s, t): (f32, f32),
        offset: [i8; 2],
        component: usize,
    ) -> Result<[u32; 4], String> {
        if component > 3 {
            return Err(format!("gather of component {component}"));
        }
        if sampler.compare.is_some() {
            return Err("a gather with compareEnable without a reference".into());
        }
        self.gather_texels(image, sampler, (s, t), offset, component)
    }

    /// `OpImageDrefGather`: the texels of [`Bindings::gather`] (component
    /// 0: a texel's depth D, a border texel's the border colour's red),
    /// each replaced by 1.0 when `dref op D` holds for the sampler's
    /// `compareOp`, else 0.0 ("Depth Compare Operation"), in the same
    /// order. The sampler must have `compare`; float images only.
    pub fn gather_dref(
        &self,
        image: &Image,
        sampler: &Sampler,
        (s, t): (f32, f32),
        offset: [i8; 2],
        dref: f32,
    ) -> Result<[u32; 4], String> {
        let op = sampler
            .compare
            .ok_or("a depth gather with a sampler without compareEnable")?;
        if image.format.sampled_type() != SampledType::Float {
            return Err("a depth gather of an integer image".into());
        }
        let d = self.gather_texels(image, sampler, (s, t), offset, 0)?;
        Ok(d.map(|x| {
            let pass = op.test(f64::from(dref), f64::from(f32::from_bits(x)));
            if pass { 1.0f32 } else { 0.0 }.to_bits()
        }))
    }

    fn gather_texels(
        &self,
        image: &Image,
        sampler: &Sampler,
        (s, t): (f32, f32),
        offset: [i8; 2],
        component: usize,
    ) -> Result<[u32; 4], String> {
        let (u, v) = unnormalized(image, s, t)?;
        let (u, v) = (u - 0.5, v - 0.5);
        let i0 = texel_index(sampler.address[0], u + f64::from(offset[0]), image.width);
        let j0 = texel_index(sampler.address[1], v + f64::from(offset[1]), image.height);
        let float = image.format.sampled_type() == SampledType::Float;
        let texel = |i: i64, j: i64| -> Result<u32, String> {
            match (
                wrap(sampler.address[0], i, image.width),
                wrap(sampler.address[1], j, image.height),
            ) {
                (Some(x), Some(y)) if float => Ok((image.texel(x, y)[component] as f32).to_bits()),
                (Some(x), Some(y)) => Ok(image.texel_bits(x, y)[component]),
                _ if float => Ok(sampler.border.rgba()[component].to_bits()),
                _ => Err("a float border colour for an integer format".into()),
            }
        };
        Ok([
            texel(i0, j0 + 1)?,
            texel(i0 + 1, j0 + 1)?,
            texel(i0 + 1, j0)?,
            texel(i0, j0)?,
        ])
    }
}

/// 1D and 3D images ("Texel Coordinate Systems": a 1D image has only u
/// and i, a 3D one also w = r × depth and k; "Texel Filtering": LINEAR
/// weights the 2 or 8 texels around (u − ½[, v − ½, w − ½]) by products of
/// (1 − α, α), (1 − β, β), (1 − γ, γ)). Written apart from the 2D filter
/// above, over a list of axes.
impl Bindings {
    /// One level of a 1D image (`slices` = [the image], height 1) or a 3D
    /// image (`slices` its depth slices) filtered at normalized `coord`
    /// (1 or 3 components used) with NEAREST or LINEAR.
    fn filter_axes(
        slices: &[Image],
        sampler: &Sampler,
        coord: [f32; 3],
        axes: usize,
        linear: bool,
    ) -> Result<[f64; 4], String> {
        let first = slices.first().ok_or("a 3D level without slices")?;
        let size = [first.width, first.height, slices.len() as u32];
        let modes = [sampler.address[0], sampler.address[1], sampler.address_w];
        let axis_list: Vec<usize> = if axes == 1 { vec![0] } else { vec![0, 1, 2] };
        let mut x = [0.0f64; 3];
        for &a in &axis_list {
            x[a] = f64::from(coord[a]) * f64::from(size[a]);
            if !x[a].is_finite() {
                return Err("non-finite coordinate".into());
            }
        }
        let texel = |ijk: [i64; 3]| -> [f64; 4] {
            let mut at = [0u32; 3];
            for &a in &axis_list {
                match wrap(modes[a], ijk[a], size[a]) {
                    Some(v) => at[a] = v,
                    None => return sampler.border.rgba().map(f64::from),
                }
            }
            slices[at[2] as usize].texel(at[0], at[1])
        };
        if !linear {
            let mut ijk = [0i64; 3];
            for &a in &axis_list {
                ijk[a] = texel_index(modes[a], x[a], size[a]);
            }
            return Ok(texel(ijk));
        }
        let mut i0 = [0i64; 3];
        let mut alpha = [0.0f64; 3];
        for &a in &axis_list {
            let y = x[a] - 0.5;
            i0[a] = texel_index(modes[a], y, size[a]);
            alpha[a] = y - y.floor();
        }
        let mut acc = [0.0f64; 4];
        let corners = 1usize << axis_list.len();
        for c in 0..corners {
            let mut ijk = i0;
            let mut weight = 1.0;
            for (bit, &a) in axis_list.iter().enumerate() {
                if c >> bit & 1 == 1 {
                    ijk[a] += 1;
                    weight *= alpha[a];
                } else {
                    weight *= 1.0 - alpha[a];
                }
            }
            let t = texel(ijk);
            for k in 0..4 {
                acc[k] += weight * t[k];
            }
        }
        Ok(acc)
    }

    /// `OpImageSampleExplicitLod` of a mipmapped 1D (`axes` 1: each level
    /// one image of height 1) or 3D image (`axes` 3: each level its
    /// slices; level l is max(1, w >> l) × max(1, h >> l) × max(1, d >> l))
    /// with the "Level-of-Detail Operation" and "Image Level(s) Selection"
    /// of [`Bindings::sample_levels`]. Float formats only.
    pub fn sample_axes_levels(
        &self,
        levels: &[Vec<Image>],
        sampler: &Sampler,
        coord: [f32; 3],
        axes: usize,
        lod: f32,
    ) -> Result<[f32; 4], String> {
        let base = levels.first().and_then(|l| l.first()).ok_or("no levels")?;
        if base.format.sampled_type() != SampledType::Float {
            return Err("an integer format".into());
        }
        let depth0 = levels[0].len() as u32;
        for (l, slices) in levels.iter().enumerate() {
            let want = (
                (base.width >> l).max(1),
                (base.height >> l).max(1),
                (depth0 >> l).max(1),
            );
            let got = (slices[0].width, slices[0].height, slices.len() as u32);
            if got != want || (axes == 1 && (got.1, got.2) != (1, 1)) {
                return Err(format!("level {l} is not {want:?}"));
            }
        }
        if sampler.min_lod > sampler.max_lod || !lod.is_finite() {
            return Err("λ undefined (minLod > maxLod or a non-finite LOD)".into());
        }
        let lambda = (f64::from(lod) + f64::from(sampler.lod_bias))
            .clamp(f64::from(sampler.min_lod), f64::from(sampler.max_lod));
        let linear = if lambda <= 0.0 {
            sampler.mag_linear
        } else {
            sampler.min_linear
        };
        let q = (levels.len() - 1) as f64;
        let d = lambda.clamp(0.0, q);
        let level = |l: usize| Self::filter_axes(&levels[l], sampler, coord, axes, linear);
        let out = if !sampler.mipmap_linear {
            level(((d + 0.5).ceil() - 1.0) as usize)?.map(|x| x as f32)
        } else {
            let hi = d.floor() as usize;
            let lo = (hi + 1).min(levels.len() - 1);
            let delta = d - d.floor();
            let (a, b) = (level(hi)?.map(|x| x as f32), level(lo)?.map(|x| x as f32));
            std::array::from_fn(|k| {
                ((1.0 - delta) * f64::from(a[k]) + delta * f64::from(b[k])) as f32
            })
        };
        Ok(out)
    }

    /// `OpImageFetch` of texel (i, j, k) (j and k 0 for 1D) of level
    /// `lod` of a 1D or 3D image given as [`Bindings::sample_axes_levels`]
    /// takes it: the texel's words (f32 bits for float formats).
    pub fn fetch_axes(levels: &[Vec<Image>], ijk: [i32; 3], lod: i32) -> Result<[u32; 4], String> {
        let slices = usize::try_from(lod)
            .ok()
            .and_then(|l| levels.get(l))
            .ok_or_else(|| format!("level {lod} outside the image (undefined)"))?;
        let [i, j, k] = ijk;
        let img = usize::try_from(k)
            .ok()
            .and_then(|k| slices.get(k))
            .ok_or_else(|| format!("slice {k} outside the image (undefined)"))?;
        if i < 0 || j < 0 || i as u32 >= img.width || j as u32 >= img.height {
            return Err(format!("texel ({i}, {j}) outside the image (undefined)"));
        }
        Ok(if img.format.sampled_type() == SampledType::Float {
            img.texel(i as u32, j as u32).map(|x| (x as f32).to_bits())
        } else {
            img.texel_bits(i as u32, j as u32)
        })
    }

    /// [`TextureSource::texture`] of 1D and 3D images (one level: the
    /// `images` entry of height 1, or the `volumes` entry's levels):
    /// explicit-LOD sampling and fetches.
    fn texture_1d_3d(
        &self,
        kind: Intrinsic,
        coord: [u32; 3],
        lod: u32,
    ) -> Result<[u32; 4], String> {
        let Intrinsic::Texture {
            set,
            binding,
            sampler,
            op,
            array,
            dim,
            ..
        } = kind
        else {
            return Err("not a texture access".into());
        };
        if array {
            return Err("1D arrays in the interpreter's texture source (not modelled)".into());
        }
        let levels: Vec<Vec<Image>> = match dim {
            TexDim::D3 => self
                .volumes
                .get(&(set, binding))
                .cloned()
                .ok_or_else(|| format!("no 3D image at set {set} binding {binding}"))?,
            _ => vec![vec![self.images.get(&(set, binding)).cloned().ok_or_else(
                || format!("no image at set {set} binding {binding}"),
            )?]],
        };
        let axes = usize::from(dim.coords());
        if op == TexOp::Fetch {
            let mut ijk = [0i32; 3];
            for (a, c) in ijk.iter_mut().enumerate().take(axes) {
                *c = coord[if axes == 1 { 0 } else { a }] as i32;
            }
            return Self::fetch_axes(&levels, ijk, lod as i32);
        }
        if op != TexOp::SampleLod {
            return Err(format!("{op:?} of a 1D or 3D image (not modelled)"));
        }
        let key = sampler.ok_or("a sample without a sampler")?;
        let smp = self
            .samplers
            .get(&key)
            .ok_or_else(|| format!("no sampler at set {} binding {}", key.0, key.1))?;
        let c = coord.map(f32::from_bits);
        Ok(self
            .sample_axes_levels(&levels, smp, c, axes, f32::from_bits(lod))?
            .map(f32::to_bits))
    }
}

/// One row of the spec's "Cube Map Face Selection and Transformations"
/// table: the major axis direction's face (+X −X +Y −Y +Z −Z = 0..5, the
/// order of a cube's layers), and sc, tc, rc each as (component of r,
/// sign).
struct CubeFace {
    sc: (usize, f64),
    tc: (usize, f64),
    rc: (usize, f64),
}

/// The table, face by face: +rx: sc = −rz, tc = −ry, rc = rx; −rx: +rz,
/// −ry, rx; +ry: +rx, +rz, ry; −ry: +rx, −rz, ry; +rz: +rx, −ry, rz; −rz:
/// −rx, −ry, rz.
const CUBE_FACES: [CubeFace; 6] = [
    CubeFace {
        sc: (2, -1.0),
        tc: (1, -1.0),
        rc: (0, 1.0),
    },
    CubeFace {
        sc: (2, 1.0),
        tc: (1, -1.0),
        rc: (0, -1.0),
    },
    CubeFace {
        sc: (0, 1.0),
        tc: (2, 1.0),
        rc: (1, 1.0),
    },
    CubeFace {
        sc: (0, 1.0),
        tc: (2, -1.0),
        rc: (1, -1.0),
    },
    CubeFace {
        sc: (0, 1.0),
        tc: (1, -1.0),
        rc: (2, 1.0),
    },
    CubeFace {
        sc: (0, -1.0),
        tc: (1, -1.0),
        rc: (2, -1.0),
    },
];

/// "Cube Map Face Selection": the face of direction `r` — the major axis
/// is the component of largest magnitude; ties, which the spec leaves to
/// the implementation, are resolved x before y before z, and a zero
/// component's direction counts as positive (our choice, the compiler's
/// too) — and its (s, t) = (½ (sc/|rc| + 1), ½ (tc/|rc| + 1)) ("Cube Map
/// Coordinate Transformation"), in f64.
pub fn cube_face(r: [f32; 3]) -> (usize, f64, f64) {
    let r = r.map(f64::from);
    let m = r.map(f64::abs);
    let axis = if m[0] >= m[1] && m[0] >= m[2] {
        0
    } else if m[1] >= m[2] {
        1
    } else {
        2
    };
    let face = 2 * axis + usize::from(r[axis] < 0.0);
    let f = &CUBE_FACES[face];
    let sc = f.sc.1 * r[f.sc.0];
    let tc = f.tc.1 * r[f.tc.0];
    let ma = f.rc.1 * r[f.rc.0];
    (face, 0.5 * (sc / ma + 1.0), 0.5 * (tc / ma + 1.0))
}

/// The direction with face coordinates (sc, tc) ∈ [−1, 1]² (that is
/// sc/|rc|, tc/|rc|) and |rc| = 1 on face `face` (+X −X +Y −Y +Z −Z =
/// 0..5): [`cube_face`]'s table read backwards, for tests that aim at a
/// spot of a face. Computed as major + sc · s_axis + tc · t_axis in f32.
pub fn cube_direction(face: usize, sc: f32, tc: f32) -> [f32; 3] {
    let f = &CUBE_FACES[face];
    let unit = |(axis, sign): (usize, f64)| {
        let mut v = [0.0f32; 3];
        v[axis] = sign as f32;
        v
    };
    let (m, s, t) = (unit(f.rc), unit(f.sc), unit(f.tc));
    std::array::from_fn(|a| m[a] + sc * s[a] + tc * t[a])
}

/// λbase of `textureGrad` of a cube with level-0 faces of `n` texels
/// ("Cube Map Derivative Transformation", then the isotropic "Scale
/// Factor Operation"), in f64: the face of `r` by [`cube_face`]'s rule,
/// (sc, tc, rc) of the direction and of each gradient by that face's row
/// of the table, ∂s/∂x = ½ (∂sc/∂x · |rc| − sc · ∂|rc|/∂x) / rc² (t
/// alike), ρx = n · |(∂s/∂x, ∂t/∂x)|, λ = log2 max(ρx, ρy).
pub fn cube_grad_lod(n: u32, r: [f32; 3], dx: [f32; 3], dy: [f32; 3]) -> f64 {
    let (face, _, _) = cube_face(r);
    let f = &CUBE_FACES[face];
    let pick = |v: [f32; 3], (k, sign): (usize, f64)| sign * f64::from(v[k]);
    let (sc, tc, rc) = (pick(r, f.sc), pick(r, f.tc), pick(r, f.rc));
    let rho = |g: [f32; 3]| {
        let (dsc, dtc, drc) = (pick(g, f.sc), pick(g, f.tc), pick(g, f.rc));
        // rc = |rc| here (the face's sign makes it positive).
        let ds = 0.5 * (dsc * rc - sc * drc) / (rc * rc);
        let dt = 0.5 * (dtc * rc - tc * drc) / (rc * rc);
        f64::from(n) * ds.hypot(dt)
    };
    rho(dx).max(rho(dy)).log2()
}

/// "Cube Map Edge Handling": texel (i, j) of face `face` of an n × n
/// level, exactly one index one texel outside, as (face, i, j) of the
/// texel across that edge. On a lattice where texel centres of a face are
/// at odd coordinates 2i + 1 − n along sc and tc and the faces at ±n: the
/// outside texel's centre has ±(n + 1) on an axis which names the
/// neighbouring face; moved onto that face (±n) with the old major axis
/// half a texel inside (n − 1), it is a texel centre of the neighbour.
pub fn cube_edge_texel(face: usize, (i, j): (i64, i64), n: i64) -> (usize, i64, i64) {
    let f = &CUBE_FACES[face];
    let mut p = [0i64; 3];
    p[f.rc.0] = f.rc.1 as i64 * n;
    p[f.sc.0] = f.sc.1 as i64 * (2 * i + 1 - n);
    p[f.tc.0] = f.tc.1 as i64 * (2 * j + 1 - n);
    let out = (0..3).find(|&k| p[k].abs() == n + 1).unwrap_or(f.rc.0);
    p[out] = p[out].signum() * n;
    p[f.rc.0] = p[f.rc.0].signum() * (n - 1);
    let nf = 2 * out + usize::from(p[out] < 0);
    let g = &CUBE_FACES[nf];
    let sc = g.sc.1 as i64 * p[g.sc.0];
    let tc = g.tc.1 as i64 * p[g.tc.0];
    (nf, (sc + n - 1) / 2, (tc + n - 1) / 2)
}

/// Texel (i, j) of face `face` of a level's six `faces`, each index at
/// most one texel outside: inside, the face's texel; past one edge, the
/// texel across it ([`cube_edge_texel`]); past a corner, the average of
/// the three texels meeting at that corner of the cube.
/// `map` applies to each texel before a corner's three are averaged (a
/// depth compare's 1 or 0).
fn cube_texel(
    faces: &[Image],
    face: usize,
    (i, j): (i64, i64),
    map: &dyn Fn([f64; 4]) -> [f64; 4],
) -> [f64; 4] {
    let n = i64::from(faces[face].width);
    let texel = |f: usize, i: i64, j: i64| map(faces[f].texel(i as u32, j as u32));
    let edge = |k: i64| k.clamp(0, n - 1);
    let inside = |k: i64| (0..n).contains(&k);
    let across = |i: i64, j: i64| {
        let (f, x, y) = cube_edge_texel(face, (i, j), n);
        texel(f, x, y)
    };
    match (inside(i), inside(j)) {
        (true, true) => texel(face, i, j),
        (false, false) => {
            let (x, y) = (edge(i), edge(j));
            let three = [texel(face, x, y), across(i, y), across(x, j)];
            std::array::from_fn(|k| three.iter().map(|c| c[k]).sum::<f64>() / 3.0)
        }
        _ => across(i, j),
    }
}

impl Bindings {
    /// `OpImageGather` of component `component` of a float cube (`faces`:
    /// level 0's six faces) in direction `r` ("Texel Gathering"): the
    /// four texels of the LINEAR footprint around (u − ½, v − ½) on the
    /// face [`cube_face`] selects, past an edge or corner as seamless
    /// filtering takes them, in the spec's order i0j1, i1j1, i1j0, i0j0.
    pub fn gather_cube(faces: &[Image], r: [f32; 3], component: usize) -> Result<[f32; 4], String> {
        if faces.len() != 6
            || component > 3
            || faces.iter().any(|f| {
                (f.width, f.height) != (faces[0].width, faces[0].width)
                    || f.format.sampled_type() != SampledType::Float
            })
        {
            return Err("a cube gather needs six square float faces and a component 0-3".into());
        }
        if !r.iter().all(|c| c.is_finite()) || r == [0.0; 3] {
            return Err("a non-finite or zero direction".into());
        }
        let (face, s, t) = cube_face(r);
        let n = f64::from(faces[0].width);
        let (u, v) = (s * n - 0.5, t * n - 0.5);
        let (i0, j0) = (u.floor() as i64, v.floor() as i64);
        let at = |di: i64, dj: i64| {
            cube_texel(faces, face, (i0 + di, j0 + dj), &|c| c)[component] as f32
        };
        Ok([at(0, 1), at(1, 1), at(1, 0), at(0, 0)])
    }

    /// `OpImageSampleExplicitLod` of a cube (`levels[l]` is level l's six
    /// faces in the order +X −X +Y −Y +Z −Z, each square, max(1, n >> l)
    /// texels a side) in direction `r` at base LOD `lod`: the face and
    /// (s, t) by [`cube_face`], the level(s) as [`Bindings::sample_levels`]
    /// (LOD, bias, clamps, mipmap mode). The wrap modes are ignored: NEAREST
    /// clamps to the face's edge, LINEAR takes texels past an edge from the
    /// neighbouring face ([`cube_edge_texel`]) and a texel past a corner
    /// as the average of the three texels meeting at that corner of the
    /// cube (the face's corner texel and the two across its edges), which
    /// the spec allows (Vulkan "Cube Map Edge Handling", "Wrapping
    /// Operation"). Float formats only.
    pub fn sample_cube(
        levels: &[Vec<Image>],
        sampler: &Sampler,
        r: [f32; 3],
        lod: f32,
    ) -> Result<[f32; 4], String> {
        Self::cube_filter(levels, sampler, r, lod, None)
    }

    /// `OpImageSampleDref*Lod` of a cube: [`Bindings::sample_cube`] with
    /// each texel — before a corner's three are averaged — replaced by
    /// its "Depth Compare Operation" (1.0 when `dref op D`, D its first
    /// component), the result (r, 0, 0, 1); the sampler must have
    /// `compare`.
    pub fn sample_cube_dref(
        levels: &[Vec<Image>],
        sampler: &Sampler,
        r: [f32; 3],
        lod: f32,
        dref: f32,
    ) -> Result<[f32; 4], String> {
        if sampler.compare.is_none() {
            return Err("a depth compare with a sampler without compareEnable".into());
        }
        Self::cube_filter(levels, sampler, r, lod, Some(dref))
    }

    fn cube_filter(
        levels: &[Vec<Image>],
        sampler: &Sampler,
        r: [f32; 3],
        lod: f32,
        dref: Option<f32>,
    ) -> Result<[f32; 4], String> {
        let compare = |c: [f64; 4]| match (dref, sampler.compare) {
            (Some(r), Some(op)) => [
                f64::from(u8::from(op.test(f64::from(r), c[0]))),
                0.0,
                0.0,
                1.0,
            ],
            _ => c,
        };
        if levels.is_empty() || levels[0].len() != 6 {
            return Err("a cube needs levels of six faces".into());
        }
        let n0 = levels[0][0].width;
        for (l, faces) in levels.iter().enumerate() {
            let n = (n0 >> l).max(1);
            if faces.len() != 6
                || faces.iter().any(|f| {
                    (f.width, f.height) != (n, n) || f.format.sampled_type() != SampledType::Float
                })
            {
                return Err(format!("level {l} is not six {n}×{n} float faces"));
            }
        }
        if sampler.min_lod > sampler.max_lod || !lod.is_finite() {
            return Err("λ undefined (minLod > maxLod or a non-finite LOD)".into());
        }
        if !r.iter().all(|c| c.is_finite()) || r == [0.0; 3] {
            return Err("a non-finite or zero direction".into());
        }
        let (face, s, t) = cube_face(r);
        let lambda = (f64::from(lod) + f64::from(sampler.lod_bias))
            .clamp(f64::from(sampler.min_lod), f64::from(sampler.max_lod));
        let linear = if lambda <= 0.0 {
            sampler.mag_linear
        } else {
            sampler.min_linear
        };
        let q = (levels.len() - 1) as f64;
        let d = lambda.clamp(0.0, q);
        let level = |l: usize| -> [f64; 4] {
            let faces = &levels[l];
            let n = i64::from(faces[0].width);
            let texel = |f: usize, i: i64, j: i64| compare(faces[f].texel(i as u32, j as u32));
            let (u, v) = (s * n as f64, t * n as f64);
            let edge = |k: i64| k.clamp(0, n - 1);
            if !linear {
                return texel(face, edge(u.floor() as i64), edge(v.floor() as i64));
            }
            let (u, v) = (u - 0.5, v - 0.5);
            let (i0, j0) = (u.floor() as i64, v.floor() as i64);
            let (a, b) = (u - u.floor(), v - v.floor());
            let mut acc = [0.0f64; 4];
            for (dj, wy) in [(0, 1.0 - b), (1, b)] {
                for (di, wx) in [(0, 1.0 - a), (1, a)] {
                    let c = cube_texel(faces, face, (i0 + di, j0 + dj), &compare);
                    for k in 0..4 {
                        acc[k] += wx * wy * c[k];
                    }
                }
            }
            acc
        };
        let out = if !sampler.mipmap_linear {
            level(((d + 0.5).ceil() - 1.0) as usize)
        } else {
            let hi = d.floor() as usize;
            let lo = (hi + 1).min(levels.len() - 1);
            let delta = d - d.floor();
            let (a, b) = (level(hi), level(lo));
            std::array::from_fn(|k| (1.0 - delta) * a[k] + delta * b[k])
        };
        Ok(out.map(|x| x as f32))
    }
}

impl TextureSource for Bindings {
    fn texture(&self, kind: Intrinsic, coord: [u32; 3], lod: u32) -> Result<[u32; 4], String> {
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
            return Err("not a texture access".into());
        };
        if dim == TexDim::Cube {
            // A cube array's direction and layer are four components,
            // more than this interface passes.
            return Err("cube images in the interpreter's texture source (not modelled)".into());
        }
        if dim != TexDim::D2 {
            return self.texture_1d_3d(kind, coord, lod);
        }
        let image = if array {
            let layers = self
                .arrays
                .get(&(set, binding))
                .filter(|l| !l.is_empty())
                .ok_or_else(|| format!("no array image at set {set} binding {binding}"))?;
            let layer = if op == TexOp::Fetch {
                let l = coord[2] as i32;
                if l < 0 || l as usize >= layers.len() {
                    return Err(format!("layer {l} outside the array (undefined)"));
                }
                l as usize
            } else {
                array_layer(f32::from_bits(coord[2]), layers.len())
            };
            &layers[layer]
        } else {
            self.images
                .get(&(set, binding))
                .ok_or_else(|| format!("no image at set {set} binding {binding}"))?
        };
        if ty != image.format.sampled_type() {
            return Err(format!(
                "a {ty:?} read of a {:?} image (undefined)",
                image.format
            ));
        }
        let int = ty != SampledType::Float;
        if op == TexOp::Fetch {
            let (i, j, l) = (
                (coord[0] as i32).wrapping_add(i32::from(offset[0])),
                (coord[1] as i32).wrapping_add(i32::from(offset[1])),
                lod as i32,
            );
            if int {
                self.fetch(image, i, j, l)?;
                return Ok(image.texel_bits(i as u32, j as u32));
            }
            return Ok(self.fetch(image, i, j, l)?.map(f32::to_bits));
        }
        let key = sampler.ok_or("a sample without a sampler")?;
        let smp = self
            .samplers
            .get(&key)
            .ok_or_else(|| format!("no sampler at set {} binding {}", key.0, key.1))?;
        let (s, t) = (f32::from_bits(coord[0]), f32::from_bits(coord[1]));
        // A depth gather's second source (the reference) comes as `lod`.
        if op == TexOp::GatherDref {
            return self.gather_dref(image, smp, (s, t), offset, f32::from_bits(lod));
        }
        let lod = (op == TexOp::SampleLod).then(|| f32::from_bits(lod));
        if let TexOp::Gather(c) = op {
            return self.gather(image, smp, (s, t), offset, usize::from(c));
        }

        if int {
            if offset != [0, 0] {
                return Err("texel offsets on integer images (not modelled)".into());
            }
            self.sample_int(image, smp, s, t, lod)
        } else {
            Ok(self
                .sample_offset(image, smp, s, t, lod, offset)?
                .map(f32::to_bits))
        }
    }
}

/// Storage-image texel conversions, from the Vulkan spec ("Texel Output
/// Format Conversion" and "Conversion from Floating-Point to Normalized
/// Fixed-Point" for `imageStore`; "Format Conversion" and "Conversion to
/// RGBA" for `imageLoad`): the oracle of the simulated `ST_CVT` and
/// `LD_ATTR_TEX` of storage images. Values are the 32-bit words of the
/// shader's texel (floats as bits for float formats).
pub mod storage {
    /// The storage formats the references cover.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum StorageFormat {
        Rgba8Unorm,
        Rgba8Uint,
        Rgba32Sfloat,
        R32Uint,
    }

    impl StorageFormat {
        /// Bytes per texel.
        pub fn bytes(self) -> usize {
            match self {
                StorageFormat::Rgba8Unorm | StorageFormat::Rgba8Uint | StorageFormat::R32Uint => 4,
                StorageFormat::Rgba32Sfloat => 16,
            }
        }
    }

    /// The bytes `imageStore` writes for `texel`. UNORM: c = round(f ×
    /// 255) after clamping f to [0, 1] (NaN → 0; the spec's "round to
    /// nearest", here in f64 where f × 255 is exact). RGBA8UI: each
    /// component's low byte — the test stores only values that fit (a
    /// value out of the format's range is undefined in Vulkan). R32UI: the
    /// first component only.
    pub fn encode(format: StorageFormat, texel: [u32; 4]) -> Vec<u8> {
        match format {
            StorageFormat::Rgba8Unorm => texel
                .iter()
                .map(|&w| {
                    let f = f64::from(f32::from_bits(w));
                    let f = if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) };
                    (f * 255.0).round() as u8
                })
                .collect(),
            StorageFormat::Rgba8Uint => texel.iter().map(|&w| w as u8).collect(),
            StorageFormat::Rgba32Sfloat => texel.iter().flat_map(|w| w.to_le_bytes()).collect(),
            StorageFormat::R32Uint => texel[0].to_le_bytes().to_vec(),
        }
    }

    /// The texel `imageLoad` returns for `bytes`. UNORM: c / 255 rounded
    /// to f32; RGBA8UI: each byte; RGBA32F: the words; R32UI: (r, 0, 0, 1)
    /// ("Conversion to RGBA": missing G, B are 0, a missing A is 1).
    pub fn decode(format: StorageFormat, bytes: &[u8]) -> [u32; 4] {
        let word = |i: usize| {
            u32::from_le_bytes([
                bytes[4 * i],
                bytes[4 * i + 1],
                bytes[4 * i + 2],
                bytes[4 * i + 3],
            ])
        };
        match format {
            StorageFormat::Rgba8Unorm => {
                std::array::from_fn(|i| ((f64::from(bytes[i]) / 255.0) as f32).to_bits())
            }
            StorageFormat::Rgba8Uint => std::array::from_fn(|i| u32::from(bytes[i])),
            StorageFormat::Rgba32Sfloat => std::array::from_fn(word),
            StorageFormat::R32Uint => [word(0), 0, 0, 1],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cube_direction` inverts `cube_face`: the face and (s, t) come back,
    /// and +X's spot (sc, tc) = (0.5, −0.25) is (1, 0.25, −0.5) by the
    /// spec's table (sc = −rz, tc = −ry).
    #[test]
    fn cube_directions_land_where_they_aim() {
        assert_eq!(cube_direction(0, 0.5, -0.25), [1.0, 0.25, -0.5]);
        for face in 0..6 {
            for (sc, tc) in [(0.0, 0.0), (0.5, -0.25), (-0.75, 0.875)] {
                let (f, s, t) = cube_face(cube_direction(face, sc, tc));
                assert_eq!(f, face);
                assert_eq!(
                    (s, t),
                    (0.5 * (f64::from(sc) + 1.0), 0.5 * (f64::from(tc) + 1.0))
                );
            }
        }
    }

    fn image_2x2() -> Image {
        Image {
            width: 2,
            height: 2,
            texels: vec![
                [0, 0, 0, 255],
                [255, 0, 0, 255],
                [0, 255, 0, 255],
                [0, 0, 255, 255],
            ],
            format: ImageFormat::Rgba8Unorm,
        }
    }

    /// 1D and 3D filtering worked by hand: a 2×2×2 image whose slice 0
    /// is the 2×2 image above and slice 1 its colours inverted (255 − c,
    /// alpha 0): LINEAR at the centre weights all eight texels by 1/8 (red
    /// = (255 + 0 + 0 + 0 + 0 + 255 + 255 + 255) / 8 / 255 = ½), at a
    /// texel centre takes that texel, NEAREST at r = 0.75 reads slice 1;
    /// CLAMP_TO_BORDER on W with r = 1 is half border (opaque white)
    /// when linear at (0.25, 0.25): ½ (texel 0,0,1) + ½ white. A 1D image
    /// of 4 texels (0, 85, 170, 255 red): LINEAR at s = ½ is (85 + 170)/2;
    /// the fetch of level 1 of a 2-level 3D image.
    #[test]
    fn one_and_three_dimensional_filtering_by_hand() {
        let s0 = image_2x2();
        let mut s1 = image_2x2();
        for t in &mut s1.texels {
            *t = [255 - t[0], 255 - t[1], 255 - t[2], 0];
        }
        let b = Bindings::default();
        let levels = vec![vec![s0.clone(), s1.clone()]];
        let lin = Sampler::simple(true, AddressMode::ClampToEdge);
        let c = b
            .sample_axes_levels(&levels, &lin, [0.5, 0.5, 0.5], 3, 0.0)
            .unwrap();
        assert_eq!(c, [0.5, 0.5, 0.5, 0.5]);
        let c = b
            .sample_axes_levels(&levels, &lin, [0.75, 0.25, 0.75], 3, 0.0)
            .unwrap();
        assert_eq!(c, [0.0, 1.0, 1.0, 0.0]);
        let near = Sampler::simple(false, AddressMode::Repeat);
        let c = b
            .sample_axes_levels(&levels, &near, [0.25, 0.75, 0.75], 3, 0.0)
            .unwrap();
        assert_eq!(c, [1.0, 0.0, 1.0, 0.0]);
        let mut border = Sampler::simple(true, AddressMode::ClampToEdge);
        border.address_w = AddressMode::ClampToBorder;
        border.border = BorderColor::OpaqueWhite;
        // w − ½ = 1.5: slice 1 and slice 2 (a border texel) weighted ½.
        let c = b
            .sample_axes_levels(&levels, &border, [0.25, 0.25, 1.0], 3, 0.0)
            .unwrap();
        assert_eq!(c, [1.0, 1.0, 1.0, 0.5]);
        let line = Image {
            width: 4,
            height: 1,
            texels: vec![
                [0, 0, 0, 255],
                [85, 0, 0, 255],
                [170, 0, 0, 255],
                [255, 0, 0, 255],
            ],
            format: ImageFormat::Rgba8Unorm,
        };
        let c = b
            .sample_axes_levels(&[vec![line]], &lin, [0.5, 7.0, 0.0], 1, 0.0)
            .unwrap();
        assert_eq!(c, [0.5, 0.0, 0.0, 1.0]);
        // Level 1 of a 2×2×2 image is 1×1×1.
        let small = Image {
            width: 1,
            height: 1,
            texels: vec![[255, 0, 0, 255]],
            format: ImageFormat::Rgba8Unorm,
        };
        let mip = vec![vec![s0, s1], vec![small]];
        let f = Bindings::fetch_axes(&mip, [0, 0, 0], 1).unwrap();
        assert_eq!(f, [1.0f32, 0.0, 0.0, 1.0].map(f32::to_bits));
        assert!(Bindings::fetch_axes(&mip, [0, 0, 1], 1).is_err());
    }

    /// "Texel Gathering" worked by hand on the 2×2 image (black, red /
    /// green, blue): the order i0j1, i1j1, i1j0, i0j0, wrapping and
    /// border texels, and depth gathers.
    #[test]
    fn gathers_by_hand() {
        let b = Bindings::default();
        let img = image_2x2();
        let one = 1.0f32.to_bits();
        let g = |mode, st, c| {
            b.gather(&img, &Sampler::simple(false, mode), st, [0, 0], c)
                .unwrap()
                .map(|x| u32::from(x == one))
        };
        // At the centre: i0 = j0 = 0; (0, 1) green, (1, 1) blue, (1, 0)
        // red, (0, 0) black.
        let centre = (0.5, 0.5);
        assert_eq!(g(AddressMode::Repeat, centre, 0), [0, 0, 1, 0]);
        assert_eq!(g(AddressMode::Repeat, centre, 1), [1, 0, 0, 0]);
        assert_eq!(g(AddressMode::Repeat, centre, 2), [0, 1, 0, 0]);
        assert_eq!(g(AddressMode::Repeat, centre, 3), [1, 1, 1, 1]);
        // At (0.1, 0.1): i0 = j0 = −1. Repeat: (1, 0) red, (0, 0) black,
        // (0, 1) green, (1, 1) blue; Clamp to Border (transparent black):
        // only i1j1 = (0, 0) is inside, alpha 1.
        let corner = (0.1, 0.1);
        assert_eq!(g(AddressMode::Repeat, corner, 0), [1, 0, 0, 0]);
        assert_eq!(g(AddressMode::Repeat, corner, 2), [0, 0, 0, 1]);
        assert_eq!(g(AddressMode::ClampToBorder, corner, 3), [0, 1, 0, 0]);
        // An offset of (1, 0) at the centre: i0 = 1, i1 = 2 → 0 (repeat).
        let off = b
            .gather(
                &img,
                &Sampler::simple(false, AddressMode::Repeat),
                centre,
                [1, 0],
                1,
            )
            .unwrap();
        assert_eq!(off.map(|x| u32::from(x == one)), [0, 1, 0, 0]);
        // Depth gather: depths 0.25, 0.5 / 0.75, 1.0, reference 0.5, LESS
        // (0.5 < D): (0, 1) 0.75 and (1, 1) 1.0 pass, (1, 0) 0.5 and
        // (0, 0) 0.25 do not.
        let depth = Image {
            texels: [0.25f32, 0.5, 0.75, 1.0].map(f32::to_le_bytes).to_vec(),
            format: ImageFormat::R32Sfloat,
            ..image_2x2()
        };
        let mut smp = Sampler::simple(false, AddressMode::Repeat);
        assert!(b.gather_dref(&depth, &smp, centre, [0, 0], 0.5).is_err());
        smp.compare = Some(CompareOp::Less);
        let d = b.gather_dref(&depth, &smp, centre, [0, 0], 0.5).unwrap();
        assert_eq!(d, [one, one, 0, 0]);
        assert!(b.gather(&depth, &smp, centre, [0, 0], 0).is_err());
    }

    #[test]
    fn wrap_modes_by_hand() {
        // Over 4 texels: the spec's formulas worked by hand.
        let idx = [-5i64, -2, -1, 0, 3, 4, 5, 8];
        let w = |m| idx.map(|i| wrap(m, i, 4));
        let s = |v: [i64; 8]| v.map(|x| if x < 0 { None } else { Some(x as u32) });
        assert_eq!(w(AddressMode::Repeat), s([3, 2, 3, 0, 3, 0, 1, 0]));
        assert_eq!(w(AddressMode::MirroredRepeat), s([3, 1, 0, 0, 3, 3, 2, 0]));
        assert_eq!(w(AddressMode::ClampToEdge), s([0, 0, 0, 0, 3, 3, 3, 3]));
        assert_eq!(
            w(AddressMode::ClampToBorder),
            s([-1, -1, -1, 0, 3, -1, -1, -1])
        );
        // Huge coordinates: reduced exactly, never overflowing.
        let big = 2f64.powi(70) + 4096.0;
        let want = big.rem_euclid(6.0) as i64;
        assert_eq!(texel_index(AddressMode::Repeat, big, 3), want);
        assert_eq!(texel_index(AddressMode::ClampToEdge, -big, 3), -2);
        assert_eq!(texel_index(AddressMode::ClampToBorder, 1e300, 3), 4);
    }

    #[test]
    fn wide_and_packed_texels_by_hand() {
        // binary16: 1.0, −2.0, 65504 (the largest), 2^-24 (the smallest
        // subnormal), 2^-14 (the smallest normal), +∞, a NaN.
        assert_eq!(binary16_to_f64(0x3c00), 1.0);
        assert_eq!(binary16_to_f64(0xc000), -2.0);
        assert_eq!(binary16_to_f64(0x7bff), 65504.0);
        assert_eq!(binary16_to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(binary16_to_f64(0x0400), 2f64.powi(-14));
        assert_eq!(binary16_to_f64(0x7c00), f64::INFINITY);
        assert!(binary16_to_f64(0x7e01).is_nan());
        // An RGBA16F texel (1, −2, 0.5, ∞) after a first texel of zeros.
        let img = Image {
            width: 2,
            height: 1,
            texels: vec![
                [0; 4],
                [0; 4],
                [0x00, 0x3c, 0x00, 0xc0],
                [0x00, 0x38, 0x00, 0x7c],
            ],
            format: ImageFormat::R16g16b16a16Sfloat,
        };
        assert_eq!(img.texel(1, 0), [1.0, -2.0, 0.5, f64::INFINITY]);
        // RGBA32F: four words per texel.
        let words = [0.25f32, -3.0, 1e30, 7.5].map(f32::to_le_bytes);
        let img = Image {
            width: 1,
            height: 1,
            texels: words.to_vec(),
            format: ImageFormat::R32g32b32a32Sfloat,
        };
        assert_eq!(img.texel(0, 0), [0.25, -3.0, f64::from(1e30f32), 7.5]);
        // R5G6B5: 0xf81f is R 31, G 0, B 31; 0x07e0 is G 63.
        let img = Image {
            width: 2,
            height: 1,
            texels: vec![[0x1f, 0xf8, 0, 0], [0xe0, 0x07, 0, 0]],
            format: ImageFormat::R5g6b5UnormPack16,
        };
        assert_eq!(img.texel(0, 0), [1.0, 0.0, 1.0, 1.0]);
        assert_eq!(img.texel(1, 0), [0.0, 1.0, 0.0, 1.0]);
    }

    #[test]
    fn nearest_and_linear_by_hand() {
        let b = Bindings::default();
        let img = image_2x2();
        let near = Sampler::simple(false, AddressMode::ClampToEdge);
        // (0.75, 0.25) is in texel (1, 0): red.
        assert_eq!(
            b.sample(&img, &near, 0.75, 0.25, Some(0.0)),
            Ok([1.0, 0.0, 0.0, 1.0])
        );
        // The centre of the image averages the four texels.
        let lin = Sampler::simple(true, AddressMode::ClampToEdge);
        let c = b.sample(&img, &lin, 0.5, 0.5, Some(0.0)).unwrap();
        assert_eq!(c, [0.25, 0.25, 0.25, 1.0]);
        // A texel centre gives the texel exactly.
        assert_eq!(
            b.sample(&img, &lin, 0.25, 0.75, None),
            Ok([0.0, 1.0, 0.0, 1.0])
        );
        // Clamp to border at the left edge: half the texel, half transparent black.
        let mut border = Sampler::simple(true, AddressMode::ClampToBorder);
        assert_eq!(
            b.sample(&img, &border, 0.0, 0.25, None),
            Ok([0.0, 0.0, 0.0, 0.5])
        );
        border.border = BorderColor::OpaqueWhite;
        assert_eq!(
            b.sample(&img, &border, 0.0, 0.25, None),
            Ok([0.5, 0.5, 0.5, 1.0])
        );
        // Repeat at s = 0 mixes the first and last columns.
        let rep = Sampler::simple(true, AddressMode::Repeat);
        assert_eq!(
            b.sample(&img, &rep, 0.0, 0.25, None),
            Ok([0.5, 0.0, 0.0, 1.0])
        );
    }

    #[test]
    fn lod_picks_the_filter_and_unmodelled_cases_are_errors() {
        let b = Bindings::default();
        let img = image_2x2();
        let mut s = Sampler::simple(false, AddressMode::ClampToEdge);
        s.min_linear = true;
        s.max_lod = 4.0;
        // λ = 0: magnified (nearest); λ = 1: minified (linear).
        assert_eq!(
            b.sample(&img, &s, 0.5, 0.5, Some(0.0)),
            Ok([0.0, 0.0, 1.0, 1.0])
        );
        assert_eq!(
            b.sample(&img, &s, 0.5, 0.5, Some(1.0)),
            Ok([0.25, 0.25, 0.25, 1.0])
        );
        // λ clamped to maxLod = 0 stays magnified.
        s.max_lod = 0.0;
        assert_eq!(
            b.sample(&img, &s, 0.5, 0.5, Some(3.0)),
            Ok([0.0, 0.0, 1.0, 1.0])
        );
        assert!(b.sample(&img, &s, 0.5, 0.5, None).is_err());
        assert!(b.fetch(&img, 2, 0, 0).is_err());
        assert!(b.fetch(&img, 0, 0, 1).is_err());
        assert_eq!(b.fetch(&img, 1, 1, 0), Ok([0.0, 0.0, 1.0, 1.0]));
    }

    #[test]
    fn array_layers_by_hand() {
        // clamp(RNE(r), 0, d − 1) over 3 layers.
        let r = [-1.0, 0.49, 0.5, 1.5, 2.5, 7.0, f32::NAN];
        assert_eq!(r.map(|x| array_layer(x, 3)), [0, 0, 0, 2, 2, 2, 0]);
    }

    #[test]
    fn integer_images_by_hand() {
        let b = Bindings::default();
        let mut img = image_2x2();
        img.texels[3] = [200, 1, 128, 255];
        img.format = ImageFormat::Rgba8Sint;
        assert_eq!(
            img.texel_bits(1, 1),
            [(-56i32) as u32, 1, (-128i32) as u32, u32::MAX]
        );
        img.format = ImageFormat::Rgba8Uint;
        assert_eq!(img.texel_bits(1, 1), [200, 1, 128, 255]);
        let near = Sampler::simple(false, AddressMode::Repeat);
        // u = 3.6, v = 3.2: texel (3, 3), repeated to (1, 1).
        assert_eq!(
            b.sample_int(&img, &near, 1.8, 1.6, Some(0.0)),
            Ok([200, 1, 128, 255])
        );
        let lin = Sampler::simple(true, AddressMode::Repeat);
        assert!(b.sample_int(&img, &lin, 0.5, 0.5, None).is_err());
        let border = Sampler::simple(false, AddressMode::ClampToBorder);
        assert!(b.sample_int(&img, &border, -0.5, 0.5, None).is_err());
    }

    #[test]
    fn srgb_decodes_rgb_only() {
        let img = Image {
            width: 1,
            height: 1,
            texels: vec![[188, 0, 255, 188]],
            format: ImageFormat::Rgba8Srgb,
        };
        let t = img.texel(0, 0);
        // 188/255 = 0.7373 → ((0.7373 + 0.055) / 1.055)^2.4 = 0.5029.
        assert!((t[0] - 0.502_886).abs() < 1e-5, "{t:?}");
        assert_eq!(t[1], 0.0);
        assert_eq!(t[2], 1.0);
        assert!((t[3] - 188.0 / 255.0).abs() < 1e-12);
    }
}
