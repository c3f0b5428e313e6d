//! Texture and sampler descriptors for our own draws and dispatches: the
//! DCD's `Textures` and `Samplers` tables (arrays of 32-byte descriptors,
//! as PanVk writes them on Bifrost) and the "Surface With Stride" each
//! texture points at, packed with the `hw` tables (v6 and v7).
//!
//! **Convention** (the compiler's, `compiler::bifrost::isel::texture`):
//! entry n of each table is binding n of descriptor set 0: a combined image
//! sampler fills both tables at its binding, a separate image the texture
//! table, a separate sampler the sampler table. Unused entries are zero
//! (a descriptor the texture unit refuses if a shader reads it).
//!
//! Written: 1D, 2D and 3D RGBA8 UNORM/sRGB/UINT/SINT, R8/RG8 UNORM, RGB10A2 UNORM,
//! R5G6B5 UNORM, RGBA16F, RGBA32F and R32F textures of up to 16 mip levels
//! and 1D/2D arrays (one Surface With Stride per layer and level, Mesa's
//! order), cube maps and cube arrays (six faces per cube, in each
//! architecture's payload order: [`surface_record`]), Linear
//! or Tiled (16×16 u-interleaved) texels; samplers with normalized
//! coordinates, minification and magnification filters, mipmap mode
//! NEAREST or LINEAR (genxml "Trilinear"), LOD clamps and bias (8
//! fractional bits, the genxml `ulod`/`slod` types), the four core wrap
//! modes, a float border colour, a compare function (flipped, as Mesa),
//! `Clamp integer array indices` set (Vulkan clamps an array layer). This module
//! never chooses texels or sampler state; it places what it is given.

use super::error::{JmError, JmResult};
use super::pool::GpuPool;
use crate::hw::layout::Field;
use crate::hw::texture::{sampler as smp, surface_with_stride as sws, texture_desc as td};
use crate::hw::{Arch, layouts};

/// How the texels are laid out in memory (genxml `Texture Layout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexelLayout {
    /// Row after row, `row_stride` bytes apart.
    Linear,
    /// 16×16 tiles, u-interleaved inside, `row_stride` bytes per row of tiles.
    Tiled,
}

/// The texel formats this module writes (`VkFormat` R8G8B8A8_*).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexelFormat {
    Rgba8Unorm,
    Rgba8Srgb,
    Rgba8Uint,
    Rgba8Sint,
    /// `VK_FORMAT_R32_SFLOAT` (and a D32_SFLOAT image's depth): genxml
    /// "R32F", swizzle R001.
    R32Sfloat,
    /// `VK_FORMAT_R8_UNORM` ("R8 UNORM", 1 byte, swizzle R001),
    /// `VK_FORMAT_R8G8_UNORM` ("RG8 UNORM", 2 bytes, RG01),
    /// `VK_FORMAT_A2B10G10R10_UNORM_PACK32` ("RGB10 A2 UNORM": R in bits
    /// 0..9, G 10..19, B 20..29, A 30..31).
    R8Unorm,
    Rg8Unorm,
    A2b10g10r10UnormPack32,
    /// `VK_FORMAT_R5G6B5_UNORM_PACK16` ("RGB565", 2 bytes, R in bits
    /// 11..15): swizzle BGR1, as Mesa's `src/panfrost/lib/pan_format.c`
    /// maps PIPE_FORMAT_B5G6R5_UNORM (Vulkan's R5G6B5_UNORM_PACK16) to
    /// RGB565 with the order BGR1 — here the RGBA order every format of
    /// this module uses and the reversal in the Texture's `Swizzle`.
    R5g6b5UnormPack16,
    /// `VK_FORMAT_R16G16B16A16_SFLOAT` ("RGBA16F", 8 bytes),
    /// `VK_FORMAT_R32G32B32A32_SFLOAT` ("RGBA32F", 16 bytes).
    Rgba16Sfloat,
    Rgba32Sfloat,
    /// (2026-11-28, `gfx-fmt`) `VK_FORMAT_R16_SFLOAT` ("R16F", swizzle
    /// R001), `VK_FORMAT_R16G16_SFLOAT` ("RG16F", RG01),
    /// `VK_FORMAT_R32G32_SFLOAT` ("RG32F", RG01), `VK_FORMAT_R8_SNORM`,
    /// `R8G8_SNORM`, `R8G8B8A8_SNORM` ("R8 SNORM" R001, "RG8 SNORM" RG01,
    /// "RGBA8 SNORM"), and `VK_FORMAT_B8G8R8A8_UNORM` ("RGBA8 UNORM" with
    /// the swizzle BGRA: B is byte 0; Mesa maps PIPE_FORMAT_B8G8R8A8_UNORM
    /// to RGBA8 UNORM with the order BGRA).
    R16Sfloat,
    Rg16Sfloat,
    Rg32Sfloat,
    R8Snorm,
    Rg8Snorm,
    Rgba8Snorm,
    Bgra8Unorm,
    /// `VK_FORMAT_B10G11R11_UFLOAT_PACK32` ("R11F G11F B10F": R in bits
    /// 0..10, G 11..21, B 22..31; alpha reads 1).
    B10g11r11UfloatPack32,
    /// `VK_FORMAT_R16G16_UINT`/`_SINT` ("RG16UI"/"RG16I", RG01),
    /// `VK_FORMAT_R32_UINT`/`_SINT` ("R32UI"/"R32I", R001).
    Rg16Uint,
    Rg16Sint,
    R32Uint,
    R32Sint,
}

impl TexelFormat {
    /// The genxml `Format` name and the sRGB bit.
    fn hw(self) -> (&'static str, bool) {
        match self {
            TexelFormat::Rgba8Unorm => ("RGBA8 UNORM", false),
            TexelFormat::Rgba8Srgb => ("RGBA8 UNORM", true),
            TexelFormat::Rgba8Uint => ("RGBA8UI", false),
            TexelFormat::Rgba8Sint => ("RGBA8I", false),
            TexelFormat::R32Sfloat => ("R32F", false),
            TexelFormat::R8Unorm => ("R8 UNORM", false),
            TexelFormat::Rg8Unorm => ("RG8 UNORM", false),
            TexelFormat::A2b10g10r10UnormPack32 => ("RGB10 A2 UNORM", false),
            TexelFormat::R5g6b5UnormPack16 => ("RGB565", false),
            TexelFormat::Rgba16Sfloat => ("RGBA16F", false),
            TexelFormat::Rgba32Sfloat => ("RGBA32F", false),
            TexelFormat::R16Sfloat => ("R16F", false),
            TexelFormat::Rg16Sfloat => ("RG16F", false),
            TexelFormat::Rg32Sfloat => ("RG32F", false),
            TexelFormat::R8Snorm => ("R8 SNORM", false),
            TexelFormat::Rg8Snorm => ("RG8 SNORM", false),
            TexelFormat::Rgba8Snorm => ("RGBA8 SNORM", false),
            TexelFormat::Bgra8Unorm => ("RGBA8 UNORM", false),
            TexelFormat::B10g11r11UfloatPack32 => ("R11F G11F B10F", false),
            TexelFormat::Rg16Uint => ("RG16UI", false),
            TexelFormat::Rg16Sint => ("RG16I", false),
            TexelFormat::R32Uint => ("R32UI", false),
            TexelFormat::R32Sint => ("R32I", false),
        }
    }

    /// The Texture's `Swizzle` (genxml `Component Swizzle`, 3 bits per
    /// component: R 0, G 1, B 2, A 3, zero 4, one 5): identity, R001 for
    /// the one-channel formats (Vulkan's (R, 0, 0, 1)), RG01 for RG8,
    /// BGR1 for RGB565.
    fn swizzle(self) -> u64 {
        match self {
            TexelFormat::R32Sfloat
            | TexelFormat::R8Unorm
            | TexelFormat::R16Sfloat
            | TexelFormat::R8Snorm
            | TexelFormat::R32Uint
            | TexelFormat::R32Sint => 0o5440,
            TexelFormat::Rg8Unorm
            | TexelFormat::Rg16Sfloat
            | TexelFormat::Rg32Sfloat
            | TexelFormat::Rg8Snorm
            | TexelFormat::Rg16Uint
            | TexelFormat::Rg16Sint => 0o5410,
            TexelFormat::R5g6b5UnormPack16 => 0o5012,
            TexelFormat::Bgra8Unorm => 0o3012,
            _ => 0o3210,
        }
    }
}

/// Mip levels a [`TextureDesc`] can carry beyond level 0.
pub const MAX_MIP_LEVELS: usize = 15;

/// Where a mip level's texels are: its texel (0, 0) and bytes per row (of
/// texels, or of 16×16 tiles when Tiled).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MipLevel {
    pub address: u64,
    pub row_stride: u32,
    /// Bytes between this level's depth slices (3D) or layers (arrays);
    /// unused otherwise.
    pub slice_stride: u64,
}

/// The image's dimensionality (genxml `Texture Dimension`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TextureDim {
    /// `height` must be 1.
    D1,
    #[default]
    D2,
    /// `depth` slices (level l has max(1, depth >> l)), level 0's
    /// `layer_stride` bytes apart (levels ≥ 1: their `slice_stride`); not
    /// an array.
    D3 { depth: u32 },
    /// A cube map or cube array: `layers` is 6 × the cube count, face
    /// f of cube c being layer 6c + f (Vulkan's face order +X −X +Y −Y +Z
    /// −Z), `layer_stride` (levels ≥ 1: `slice_stride`) bytes apart;
    /// square faces.
    Cube,
}

/// A 1D, 2D or 3D image, maybe an array: level 0 at `address`, levels 1..
/// at `mips[0..]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureDesc {
    /// GPU VA of texel (0, 0).
    pub address: u64,
    pub width: u32,
    pub height: u32,
    pub row_stride: u32,
    pub layout: TexelLayout,
    pub format: TexelFormat,
    /// Array layers (1: a plain 2D image) and the bytes between layers
    /// (a 3D image: between level 0's depth slices).
    pub layers: u32,
    pub layer_stride: u64,
    /// 1D, 2D or 3D.
    pub dim: TextureDim,
    /// Mip levels (1: level 0 only); level l ≥ 1 is `mips[l - 1]`, of
    /// size max(1, width >> l) × max(1, height >> l) (× max(1, depth >> l));
    /// an array's level l has its layers `mips[l - 1].slice_stride` apart.
    pub levels: u32,
    pub mips: [MipLevel; MAX_MIP_LEVELS],
}

/// `VkSamplerAddressMode` (the core four).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WrapMode {
    Repeat,
    MirroredRepeat,
    ClampToEdge,
    ClampToBorder,
}

impl WrapMode {
    /// genxml `Wrap Mode`.
    fn hw(self) -> u64 {
        match self {
            WrapMode::Repeat => 8,
            WrapMode::ClampToEdge => 9,
            WrapMode::ClampToBorder => 11,
            WrapMode::MirroredRepeat => 12,
        }
    }
}

/// `VkSamplerMipmapMode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MipmapMode {
    #[default]
    Nearest,
    Linear,
}

/// The level-of-detail state of a sampler. The default: the minification
/// filter is `SamplerDesc::linear`'s, NEAREST mipmaps, LOD range [0, 0],
/// no bias (one level).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SamplerLod {
    /// `minFilter` when it differs from `SamplerDesc::linear` (the
    /// magnification filter).
    pub min_linear: Option<bool>,
    pub mipmap: MipmapMode,
    /// `minLod`, `maxLod` (0..=31.996, 1/256 steps: genxml `ulod`, 5.8
    /// fixed point) and `mipLodBias` (−128..=127.996, genxml `slod`, 8.8):
    /// values between the steps are rounded to the nearest step.
    pub min_lod: f32,
    pub max_lod: f32,
    pub bias: f32,
    /// `compareEnable` with `compareOp`: written flipped, as Mesa does
    /// (`panfrost_flip_compare_func`: "the hardware compares in the wrong
    /// order"), so that the hardware's texel-op-reference is Vulkan's
    /// reference-op-texel.
    pub compare: Option<super::graphics::CompareOp>,
    /// `addressModeW` (3D images' r axis; `None`: Clamp to Edge, genxml
    /// `Wrap Mode R`'s default). Kept here, beside the other optional
    /// sampler state, so that existing `SamplerDesc` literals stay valid.
    pub wrap_r: Option<WrapMode>,
}

/// Sampler state: `linear` the magnification (and, unless `lod` says
/// otherwise, minification) filter, U and V wrap modes, a float border
/// colour, the level-of-detail state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerDesc {
    pub linear: bool,
    pub wrap: [WrapMode; 2],
    pub border: [f32; 4],
    pub lod: SamplerLod,
}

/// The tables as the DCD and the renderer state point at and count them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextureTables {
    pub textures: u64,
    pub samplers: u64,
    pub texture_count: u32,
    pub sampler_count: u32,
}

fn pack(words: &mut [u32], f: Field, v: u64) -> JmResult<()> {
    f.set(words, v)
        .map_err(|_| JmError::Encoding("texture descriptor field overflow"))
}

/// The Surface With Stride record of layer `layer` (a cube's: 6 × cube +
/// face) and level `level` of a texture of `levels` levels: layer ×
/// levels + level, but for a cube on v6, (cube × levels + level) × 6 +
/// face (Mesa's `panfrost_surface_iter_next`, `src/panfrost/lib/pan_texture.c`).
pub fn surface_record(arch: Arch, dim: TextureDim, layer: u64, level: u64, levels: u32) -> u64 {
    let levels = u64::from(levels);
    match (dim, arch) {
        (TextureDim::Cube, Arch::V6) => (layer / 6 * levels + level) * 6 + layer % 6,
        _ => layer * levels + level,
    }
}

/// Writes the tables: `textures[n]` and `samplers[n]` are binding n (set 0).
pub fn write_texture_tables(
    pool: &mut GpuPool,
    arch: Arch,
    textures: &[Option<TextureDesc>],
    samplers: &[Option<SamplerDesc>],
) -> JmResult<TextureTables> {
    let l = layouts(arch);
    if textures.len() > 128 || samplers.len() > 16 {
        return Err(JmError::Encoding(
            "more than 128 textures or 16 samplers (TEXC's immediate indices)",
        ));
    }
    let mut out = TextureTables {
        texture_count: textures.len() as u32,
        sampler_count: samplers.len() as u32,
        ..TextureTables::default()
    };
    if !textures.is_empty() {
        let table = pool.alloc(32 * textures.len() as u64, 64)?;
        table.zero(0, 32 * textures.len() as u64);
        for (i, t) in textures.iter().enumerate() {
            let Some(t) = t else { continue };
            if t.width == 0 || t.height == 0 || t.width > 65536 || t.height > 65536 {
                return Err(JmError::Encoding("texture size outside 1..=65536"));
            }
            if !(1..=65536).contains(&t.layers) || (t.layers > 1 && t.layer_stride == 0) {
                return Err(JmError::Encoding(
                    "array layers outside 1..=65536 or a zero layer stride",
                ));
            }
            let depth = match t.dim {
                TextureDim::D3 { depth } => depth,
                _ => 1,
            };
            if t.dim == TextureDim::Cube && (t.layers % 6 != 0 || t.width != t.height) {
                return Err(JmError::Encoding(
                    "a cube texture whose layers are not whole cubes or whose faces are not square",
                ));
            }
            if (t.dim == TextureDim::D1 && t.height != 1)
                || !(1..=65536).contains(&depth)
                || (depth > 1 && t.layers > 1)
                || (matches!(t.dim, TextureDim::D3 { .. }) && t.layers > 1)
            {
                return Err(JmError::Encoding(
                    "a 1D image of height other than 1, a depth outside 1..=65536, or a 3D array",
                ));
            }
            if !(1..=1 + MAX_MIP_LEVELS as u32).contains(&t.levels)
                || t.levels > 1 + t.width.max(t.height).max(depth).ilog2()
            {
                return Err(JmError::Encoding(
                    "mip levels outside 1..=16 or past the 1×1 level",
                ));
            }
            // One Surface With Stride per layer and level, the levels of a
            // layer together (Mesa's `panfrost_emit_texture_payload`, v6
            // and v7 alike for one face and one sample: layer × levels +
            // level). Each record's `Surface stride` is the bytes between
            // that level's layers (3D: depth slices); record
            // (layer, level) points at the level's layer `layer`. A cube's
            // faces (Mesa's `panfrost_surface_iter_next`): on v7 faces are
            // layers (cube → face → level, levels innermost), on v6 the
            // faces of a level together (cube → level → face).
            let records = u64::from(t.levels) * u64::from(t.layers);
            let surface = pool.alloc(16 * records, 64)?;
            for layer in 0..u64::from(t.layers) {
                for level in 0..t.levels as usize {
                    let (address, row_stride, stride) = match level {
                        0 => (t.address, t.row_stride, t.layer_stride),
                        l => {
                            let m = t.mips[l - 1];
                            (m.address, m.row_stride, m.slice_stride)
                        }
                    };
                    let address = stride
                        .checked_mul(layer)
                        .and_then(|o| address.checked_add(o))
                        .ok_or(JmError::Encoding("array layer address past 2^64"))?;
                    let mut s = l.surface_with_stride.defaults();
                    pack(&mut s, sws::POINTER, address)?;
                    pack(&mut s, sws::ROW_STRIDE, u64::from(row_stride))?;
                    pack(&mut s, sws::SURFACE_STRIDE, stride)?;
                    let index = surface_record(arch, t.dim, layer, level as u64, t.levels);
                    surface.write_words(16 * index, &s);
                }
            }
            let mut w = l.texture.defaults();
            // Format: the RGBA8 format with the RGBA order of the
            // architecture (v7 `RGB Component Order` RGBA = 0, v6 swizzle
            // RGBA), bit 20 sRGB (`hw::format`).
            let fa = crate::hw::format::FormatArch::for_arch(arch);
            let (name, srgb) = t.format.hw();
            let value = fa
                .format_value(name)
                .ok_or(JmError::Encoding("no such texture format"))?;
            let order = match arch {
                Arch::V7 => 0,
                Arch::V6 => fa.order_for_components[3],
            };
            let format = value << 12 | order | u64::from(srgb) << 20;
            pack(&mut w, td::FORMAT, format)?;
            let dimension = match t.dim {
                TextureDim::D1 => 1,
                TextureDim::D2 => 2,
                TextureDim::D3 { .. } => 3,
                TextureDim::Cube => 0,
            };
            pack(&mut w, td::DIMENSION, dimension)?;
            pack(&mut w, td::DEPTH, u64::from(depth))?;
            pack(&mut w, td::WIDTH, u64::from(t.width))?;
            pack(&mut w, td::HEIGHT, u64::from(t.height))?;
            pack(&mut w, td::SWIZZLE, t.format.swizzle())?;
            let layout = match t.layout {
                TexelLayout::Tiled => 1,
                TexelLayout::Linear => 2,
            };
            pack(&mut w, td::TEXEL_ORDERING, layout)?;
            pack(&mut w, td::LEVELS, u64::from(t.levels))?;
            // A cube texture's `Array size` counts cubes (Mesa's
            // `panfrost_new_texture`: the layer count divided by 6).
            let array_size = match t.dim {
                TextureDim::Cube => t.layers / 6,
                _ => t.layers,
            };
            pack(&mut w, td::ARRAY_SIZE, u64::from(array_size))?;
            pack(&mut w, td::SURFACES, surface.gpu_va)?;
            table.write_words(32 * i as u64, &w);
        }
        out.textures = table.gpu_va;
    }
    if !samplers.is_empty() {
        let table = pool.alloc(32 * samplers.len() as u64, 64)?;
        table.zero(0, 32 * samplers.len() as u64);
        for (i, s) in samplers.iter().enumerate() {
            let Some(s) = s else { continue };
            let mut w = l.sampler.defaults();
            pack(&mut w, smp::WRAP_MODE_S, s.wrap[0].hw())?;
            pack(&mut w, smp::WRAP_MODE_T, s.wrap[1].hw())?;
            let wrap_r = s.lod.wrap_r.unwrap_or(WrapMode::ClampToEdge);
            pack(&mut w, smp::WRAP_MODE_R, wrap_r.hw())?;
            let min_linear = s.lod.min_linear.unwrap_or(s.linear);
            pack(&mut w, smp::MINIFY_NEAREST, u64::from(!min_linear))?;
            // genxml `Mipmap Mode`: Nearest 0, Trilinear 3.
            let mip = match s.lod.mipmap {
                MipmapMode::Nearest => 0,
                MipmapMode::Linear => 3,
            };
            pack(&mut w, smp::MIPMAP_MODE, mip)?;
            let ulod = |v: f32| -> JmResult<u64> {
                if !(0.0..=8191.0 / 256.0).contains(&v) {
                    return Err(JmError::Encoding("sampler LOD clamp outside 0..=31.996"));
                }
                Ok((f64::from(v) * 256.0).round() as u64)
            };
            pack(&mut w, smp::MINIMUM_LOD, ulod(s.lod.min_lod)?)?;
            pack(&mut w, smp::MAXIMUM_LOD, ulod(s.lod.max_lod)?)?;
            if !(-128.0..=32767.0 / 256.0).contains(&s.lod.bias) {
                return Err(JmError::Encoding("sampler LOD bias outside -128..=127.996"));
            }
            let bias = (f64::from(s.lod.bias) * 256.0).round() as i64;
            pack(&mut w, smp::LOD_BIAS, bias as u64)?;
            pack(&mut w, smp::MAGNIFY_NEAREST, u64::from(!s.linear))?;
            pack(&mut w, smp::NORMALIZED_COORDINATES, 1)?;
            if let Some(op) = s.lod.compare {
                // genxml `Func` = VkCompareOp's values; LESS ↔ GREATER and
                // LEQUAL ↔ GEQUAL swapped.
                let f = match op as u64 {
                    1 => 4,
                    4 => 1,
                    3 => 6,
                    6 => 3,
                    f => f,
                };
                pack(&mut w, smp::COMPARE_FUNCTION, f)?;
            }
            for (f, c) in [
                smp::BORDER_COLOR_R,
                smp::BORDER_COLOR_G,
                smp::BORDER_COLOR_B,
                smp::BORDER_COLOR_A,
            ]
            .into_iter()
            .zip(s.border)
            {
                pack(&mut w, f, u64::from(c.to_bits()))?;
            }
            table.write_words(32 * i as u64, &w);
        }
        out.samplers = table.gpu_va;
    }
    Ok(out)
}
