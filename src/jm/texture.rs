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
//! Written: 2D RGBA8 UNORM/sRGB/UINT/SINT textures and 2D arrays of one level, Linear
//! or Tiled (16×16 u-interleaved) texels; samplers with normalized
//! coordinates, one filter for minification and magnification, LOD range
//! [0, 0], the four core wrap modes, a float border colour, `Clamp integer
//! array indices` set (Vulkan clamps an array layer). This module
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
}

impl TexelFormat {
    /// The genxml `Format` name and the sRGB bit.
    fn hw(self) -> (&'static str, bool) {
        match self {
            TexelFormat::Rgba8Unorm => ("RGBA8 UNORM", false),
            TexelFormat::Rgba8Srgb => ("RGBA8 UNORM", true),
            TexelFormat::Rgba8Uint => ("RGBA8UI", false),
            TexelFormat::Rgba8Sint => ("RGBA8I", false),
        }
    }
}

/// A 2D RGBA8 image of one level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureDesc {
    /// GPU VA of texel (0, 0).
    pub address: u64,
    pub width: u32,
    pub height: u32,
    pub row_stride: u32,
    pub layout: TexelLayout,
    pub format: TexelFormat,
    /// Array layers (1: a plain 2D image) and the bytes between layers.
    pub layers: u32,
    pub layer_stride: u64,
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

/// Sampler state: one filter for both (`linear`), U and V wrap modes, a
/// float border colour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerDesc {
    pub linear: bool,
    pub wrap: [WrapMode; 2],
    pub border: [f32; 4],
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
            let surface = pool.alloc(16, 64)?;
            let mut s = l.surface_with_stride.defaults();
            pack(&mut s, sws::POINTER, t.address)?;
            pack(&mut s, sws::ROW_STRIDE, u64::from(t.row_stride))?;
            pack(&mut s, sws::SURFACE_STRIDE, t.layer_stride)?;
            surface.write_words(0, &s);
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
            pack(&mut w, td::DIMENSION, 2)?;
            pack(&mut w, td::WIDTH, u64::from(t.width))?;
            pack(&mut w, td::HEIGHT, u64::from(t.height))?;
            pack(&mut w, td::SWIZZLE, 0o3210)?;
            let layout = match t.layout {
                TexelLayout::Tiled => 1,
                TexelLayout::Linear => 2,
            };
            pack(&mut w, td::TEXEL_ORDERING, layout)?;
            pack(&mut w, td::LEVELS, 1)?;
            pack(&mut w, td::ARRAY_SIZE, u64::from(t.layers))?;
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
            pack(&mut w, smp::WRAP_MODE_R, WrapMode::ClampToEdge.hw())?;
            pack(&mut w, smp::MINIFY_NEAREST, u64::from(!s.linear))?;
            pack(&mut w, smp::MAGNIFY_NEAREST, u64::from(!s.linear))?;
            pack(&mut w, smp::NORMALIZED_COORDINATES, 1)?;
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
