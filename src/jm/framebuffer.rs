//! A render pass instance's framebuffer as a FRAGMENT job reads it: the
//! "Framebuffer" (parameters + padding), the optional "ZS CRC Extension",
//! one "Render Target" per colour attachment, the "Tiler Context" and
//! "Tiler Heap" the vertex/tiler side fills, and the FRAGMENT job whose
//! payload carries the tagged "Framebuffer pointer" (genxml v6.xml/v7.xml).
//!
//! Field choices follow what PanVk writes on a G52 for the same render
//! pass (Mesa `src/panfrost/lib/pan_desc.c`, `pan_emit_fbd` and friends):
//! 16×16-pixel tiles (`Effective Tile Size` 256), the colour buffer
//! allocation rounded up to 1 KiB, the sample count and pattern of
//! Mesa's `pan_sample_pattern` (1: Single-sampled, 4: Rotated 4x Grid, in
//! the framebuffer and the tiler context) with the sample locations table
//! of [`SampleLocations`], tie-break rule
//! `MINUS_180_IN_0_OUT`, pre/post frame shaders "Never" (pre-frame 0
//! "Always" with a colour preload, pre-frame 1 with a depth preload:
//! [`write_framebuffer_loaded`], `super::preload`), every enabled
//! colour target written back with clean-pixel write enabled.
//! `tests/jm_framebuffer.rs` compares the words with PanVk's for the
//! reference render passes.
//!
//! Multisampling (4 samples per pixel; the only other count is 1): the
//! tile buffer holds every sample, so the colour allocation and each
//! target's `Internal Buffer Offset` grow fourfold (Mesa's
//! `pan_cbuf_bytes_per_pixel` counts samples the same way). Each surface is
//! written back resolved or per sample (genxml "MSAA", Mesa's
//! `mali_sampling_mode`): a colour target without a sample stride gets
//! "Average" (one surface holding the samples' mean, what a Vulkan resolve
//! attachment with `VK_RESOLVE_MODE_AVERAGE_BIT` asks), one with a sample
//! stride "Layered" (sample s at `base + s × stride`, `Surface Stride`, as
//! Mesa writes multisampled images). Depth and stencil are only written per
//! sample (a resolved depth/stencil writeback is not documented: refused).
//! "Multiple" (one surface holding every sample, its order undocumented) is
//! never written.
//!
//! This module encodes what it is given; which attachments a Vulkan render
//! pass has and what their clear values convert to is `vk/`'s business.

use super::chain::JobChain;
use super::error::{JmError, JmResult};
use super::pool::GpuPool;
use crate::hw::job::{FRAGMENT_PAYLOAD, JobType};
use crate::hw::layout::{Field, Layout};
use crate::hw::tiler::{TILER_CONTEXT, TILER_HEAP, tiler_context, tiler_heap};
use crate::hw::{Arch, fbd};

/// Pixels on a side of a tile (`Effective Tile Size` = its square).
pub const TILE_SIZE: u32 = 16;

/// Bytes of tile buffer the colour targets may take per tile. When the
/// targets need more than a 16×16 tile of it, the effective tile shrinks
/// (Mesa's `pan_select_tile_size`, src/panfrost/lib/pan_desc.c, which
/// also clamps it to 4×4 at least); ours stays square (8×8 or 4×4: the
/// layout of Mesa's non-square 128- and 32-pixel tiles is undocumented),
/// so a framebuffer needing more than 256 bytes per pixel is refused.
pub const MAX_COLOR_BUFFER_ALLOCATION: u32 = 4096;

/// The effective tile's side for colour targets of `bytes_per_pixel` (all
/// samples): the largest of 16, 8, 4 whose tile fits
/// [`MAX_COLOR_BUFFER_ALLOCATION`].
pub fn effective_tile_side(bytes_per_pixel: u32) -> Option<u32> {
    [16, 8, 4]
        .into_iter()
        .find(|&t| bytes_per_pixel * t * t <= MAX_COLOR_BUFFER_ALLOCATION)
}

/// The largest framebuffer side (the `Width`/`Height` fields are 16 bits
/// minus one).
pub const MAX_SIDE: u32 = 1 << 16;

/// How a surface is laid out in memory (genxml "Block Format").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockFormat {
    /// Rows of pixels, `row_stride` bytes apart.
    Linear,
    /// 16×16-pixel tiles in u-interleaved order, tile rows `row_stride`
    /// bytes apart (docs/STATUS.md, "Framebuffer").
    TiledUInterleaved,
}

impl BlockFormat {
    /// The genxml value (identical on v6 and v7 for these two).
    fn raw(self) -> u64 {
        match self {
            BlockFormat::TiledUInterleaved => 1,
            BlockFormat::Linear => 2,
        }
    }
}

/// Colour formats a render target can be written back in. Two kinds
/// (Mesa's `pan_rt_init_format`, `src/panfrost/lib/pan_desc.c`): the UNORM
/// formats the fixed-function blend unit handles (Mesa's
/// `panfrost_blendable_formats`, `src/panfrost/lib/pan_format.c`), held in
/// the tile buffer as R8G8B8A8, R10G10B10A2, R5G6B5A0, R5G5B5A1 or
/// R4G4B4A4 channel codes and written back in the format's packing with an
/// RT swizzle; and every other format, held RAW (`RAW8` … `RAW128`, the
/// pixel's bits rounded up to a power of two) as the blend unit's
/// conversion wrote the pixel in its memory format (the blend descriptor's
/// `Memory Format`: the pixel format itself, Mesa's
/// `panfrost_format_to_bifrost_blend`), written back as `RAW<bits>` —
/// stored without blending (Opaque) only: blending them takes a blend
/// shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorFormat {
    /// `VK_FORMAT_R8G8B8A8_UNORM`: internal R8G8B8A8, written back R8G8B8A8.
    Rgba8Unorm,
    /// `VK_FORMAT_R8_UNORM`: internal R8G8B8A8, written back R8.
    R8Unorm,
    /// `VK_FORMAT_R8G8_UNORM`: internal R8G8B8A8, written back R8G8.
    Rg8Unorm,
    /// `VK_FORMAT_R8G8B8A8_SRGB`: internal R8G8B8A8 holding sRGB-encoded
    /// RGB (the render target's and the blend conversion's `sRGB` bits),
    /// written back R8G8B8A8.
    Rgba8Srgb,
    /// `VK_FORMAT_B8G8R8A8_UNORM` (B in byte 0): internal R8G8B8A8, written
    /// back R8G8B8A8 with the swizzle B, G, R, A (Mesa's
    /// `PIPE_FORMAT_B8G8R8A8_UNORM`, the inverse of its format swizzle).
    Bgra8Unorm,
    /// `VK_FORMAT_B8G8R8A8_SRGB`: as [`ColorFormat::Bgra8Unorm`], sRGB.
    Bgra8Srgb,
    /// `VK_FORMAT_R5G6B5_UNORM_PACK16` (R in bits 11–15, B in 0–4): internal
    /// R5G6B5A0, written back R5G6B5 with the swizzle B, G, R (Mesa's
    /// `PIPE_FORMAT_B5G6R5_UNORM`, the inverse of its format swizzle).
    R5g6b5UnormPack16,
    /// `VK_FORMAT_A2B10G10R10_UNORM_PACK32` (R in bits 0–9): internal and
    /// writeback R10G10B10A2.
    A2b10g10r10UnormPack32,
    /// `VK_FORMAT_A1R5G5B5_UNORM_PACK16` (B in bits 0–4, G 5–9, R 10–14, A
    /// 15): internal and writeback R5G5B5A1 with the swizzle B, G, R, A
    /// (Mesa's `PIPE_FORMAT_B5G5R5A1_UNORM`).
    A1r5g5b5UnormPack16,
    /// `VK_FORMAT_R4G4B4A4_UNORM_PACK16` (A in bits 0–3, B 4–7, G 8–11, R
    /// 12–15): internal and writeback R4G4B4A4 with the swizzle A, B, G, R
    /// (Mesa's `PIPE_FORMAT_A4B4G4R4_UNORM`).
    R4g4b4a4UnormPack16,
    /// `VK_FORMAT_B4G4R4A4_UNORM_PACK16` (A in bits 0–3, R 4–7, G 8–11, B
    /// 12–15): R4G4B4A4 with the swizzle A, R, G, B (Mesa's
    /// `PIPE_FORMAT_A4R4G4B4_UNORM`).
    B4g4r4a4UnormPack16,
    /// `VK_FORMAT_R16G16B16A16_SFLOAT` and the formats below: RAW (RAW64
    /// here), memory format RGBA16F.
    Rgba16Sfloat,
    /// `VK_FORMAT_R32G32B32A32_SFLOAT` (RAW128).
    Rgba32Sfloat,
    /// `VK_FORMAT_B10G11R11_UFLOAT_PACK32` (R in bits 0–10, G 11–21, B
    /// 22–31: unsigned 11/11/10-bit floats; RAW32, memory format "R11F
    /// G11F B10F").
    B10g11r11UfloatPack32,
    /// `VK_FORMAT_R16_SFLOAT` (RAW16, R16F).
    R16Sfloat,
    /// `VK_FORMAT_R16G16_SFLOAT` (RAW32, RG16F).
    Rg16Sfloat,
    /// `VK_FORMAT_R32_SFLOAT` (RAW32, R32F).
    R32Sfloat,
    /// `VK_FORMAT_R32G32_SFLOAT` (RAW64, RG32F).
    Rg32Sfloat,
    /// `VK_FORMAT_R32_UINT` (RAW32).
    R32Uint,
    /// `VK_FORMAT_R32_SINT` (RAW32).
    R32Sint,
    /// `VK_FORMAT_R32G32B32A32_UINT` (RAW128).
    Rgba32Uint,
    /// `VK_FORMAT_R32G32B32A32_SINT` (RAW128).
    Rgba32Sint,
    /// `VK_FORMAT_R32G32_UINT` (RAW64).
    Rg32Uint,
    /// `VK_FORMAT_R32G32_SINT` (RAW64).
    Rg32Sint,
    /// `VK_FORMAT_R8_UINT` (RAW8, R8UI), and the 8- and 16-bit integer
    /// formats below (R8I … RGBA16I).
    R8Uint,
    R8Sint,
    /// RAW16.
    Rg8Uint,
    Rg8Sint,
    /// RAW32.
    Rgba8Uint,
    Rgba8Sint,
    /// RAW16.
    R16Uint,
    R16Sint,
    /// RAW32.
    Rg16Uint,
    Rg16Sint,
    /// RAW64.
    Rgba16Uint,
    Rgba16Sint,
    /// `VK_FORMAT_R8_SNORM` (RAW8, "R8 SNORM"), and the SNORM and 16-bit
    /// UNORM formats below: not in Mesa's blendable table, so RAW.
    R8Snorm,
    Rg8Snorm,
    Rgba8Snorm,
    R16Snorm,
    Rg16Snorm,
    Rgba16Snorm,
    R16Unorm,
    Rg16Unorm,
    Rgba16Unorm,
}

/// What a colour format's channels are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorKind {
    /// Unsigned normalized fixed point: shader outputs float; blendable
    /// unless RAW ([`ColorFormat::is_raw`]: the 16-bit ones).
    Unorm,
    /// Signed normalized fixed point: shader outputs float, no blending.
    Snorm,
    /// Floating point: shader outputs float, no blending.
    Float,
    /// Unsigned / signed integers: shader outputs uint / int, no blending.
    Uint,
    Sint,
}

impl ColorFormat {
    /// What the channels are.
    pub const fn kind(self) -> ColorKind {
        use ColorFormat::*;
        match self {
            Rgba16Sfloat
            | Rgba32Sfloat
            | B10g11r11UfloatPack32
            | R16Sfloat
            | Rg16Sfloat
            | R32Sfloat
            | Rg32Sfloat => ColorKind::Float,
            R32Uint | Rgba32Uint | Rg32Uint | R8Uint | Rg8Uint | Rgba8Uint | R16Uint | Rg16Uint
            | Rgba16Uint => ColorKind::Uint,
            R32Sint | Rgba32Sint | Rg32Sint | R8Sint | Rg8Sint | Rgba8Sint | R16Sint | Rg16Sint
            | Rgba16Sint => ColorKind::Sint,
            R8Snorm | Rg8Snorm | Rgba8Snorm | R16Snorm | Rg16Snorm | Rgba16Snorm => {
                ColorKind::Snorm
            }
            _ => ColorKind::Unorm,
        }
    }

    /// Whether the tile buffer holds the pixel RAW (every format the
    /// fixed-function unit cannot blend).
    pub const fn is_raw(self) -> bool {
        use ColorFormat::*;
        !matches!(
            self,
            Rgba8Unorm
                | R8Unorm
                | Rg8Unorm
                | Rgba8Srgb
                | Bgra8Unorm
                | Bgra8Srgb
                | R5g6b5UnormPack16
                | A2b10g10r10UnormPack32
                | A1r5g5b5UnormPack16
                | R4g4b4a4UnormPack16
                | B4g4r4a4UnormPack16
        )
    }

    /// Bytes per pixel in the tile buffer (the internal format: 4 for the
    /// blendable formats, the memory size rounded up to a power of two for
    /// RAW ones).
    pub const fn bytes_per_pixel(self) -> u32 {
        if self.is_raw() {
            self.memory_bytes_per_pixel().next_power_of_two()
        } else {
            4
        }
    }

    /// Bytes per pixel in memory (the writeback format).
    pub const fn memory_bytes_per_pixel(self) -> u32 {
        use ColorFormat::*;
        match self {
            R8Unorm | R8Uint | R8Sint | R8Snorm => 1,
            Rg8Unorm | R5g6b5UnormPack16 | A1r5g5b5UnormPack16 | R4g4b4a4UnormPack16
            | B4g4r4a4UnormPack16 | R16Sfloat | Rg8Uint | Rg8Sint | R16Uint | R16Sint
            | Rg8Snorm | R16Snorm | R16Unorm => 2,
            Rgba16Sfloat | Rg32Sfloat | Rg32Uint | Rg32Sint | Rgba16Uint | Rgba16Sint
            | Rgba16Snorm | Rgba16Unorm => 8,
            Rgba32Sfloat | Rgba32Uint | Rgba32Sint => 16,
            _ => 4,
        }
    }

    /// Components of the format (R, RG, RGB or RGBA); a format without
    /// alpha reads its destination alpha as 1 when blending.
    pub const fn components(self) -> u32 {
        use ColorFormat::*;
        match self {
            R8Unorm | R32Uint | R32Sint | R16Sfloat | R32Sfloat | R8Uint | R8Sint | R16Uint
            | R16Sint | R8Snorm | R16Snorm | R16Unorm => 1,
            Rg8Unorm | Rg16Sfloat | Rg32Sfloat | Rg32Uint | Rg32Sint | Rg8Uint | Rg8Sint
            | Rg16Uint | Rg16Sint | Rg8Snorm | Rg16Snorm | Rg16Unorm => 2,
            R5g6b5UnormPack16 | B10g11r11UfloatPack32 => 3,
            _ => 4,
        }
    }

    /// Bits of each RGBA channel: for the blendable formats in the tile
    /// buffer (0: absent), for the SNORM and 16-bit UNORM ones in memory
    /// (16 or 8 each); 8 for the float and integer formats (not
    /// normalized: unused).
    pub const fn channel_bits(self) -> [u32; 4] {
        use ColorFormat::*;
        match self {
            R5g6b5UnormPack16 => [5, 6, 5, 0],
            A2b10g10r10UnormPack32 => [10, 10, 10, 2],
            A1r5g5b5UnormPack16 => [5, 5, 5, 1],
            R4g4b4a4UnormPack16 | B4g4r4a4UnormPack16 => [4; 4],
            R16Snorm | Rg16Snorm | Rgba16Snorm | R16Unorm | Rg16Unorm | Rgba16Unorm => [16; 4],
            _ => [8; 4],
        }
    }

    /// Whether RGB is sRGB-encoded.
    pub const fn srgb(self) -> bool {
        matches!(self, ColorFormat::Rgba8Srgb | ColorFormat::Bgra8Srgb)
    }

    /// Bits of the blend constant (Mesa's `pan_pack_blend_constant`: the
    /// size of the format's channel 0).
    pub const fn constant_bits(self) -> u32 {
        match self {
            ColorFormat::R5g6b5UnormPack16 | ColorFormat::A1r5g5b5UnormPack16 => 5,
            ColorFormat::R4g4b4a4UnormPack16 | ColorFormat::B4g4r4a4UnormPack16 => 4,
            ColorFormat::A2b10g10r10UnormPack32 => 10,
            _ => 8,
        }
    }

    /// The genxml pixel-format name of the blend unit's conversion (Mesa's
    /// `MALI_BLEND_AU_*`: dithered, as our render targets enable
    /// dithering; "TB" has one form).
    /// For the RAW formats, the pixel format itself (Mesa's
    /// `panfrost_format_to_bifrost_blend` for formats that are not
    /// blendable).
    pub const fn blend_memory_format(self) -> &'static str {
        use ColorFormat::*;
        match self {
            R5g6b5UnormPack16 => "R5G6B5 AU",
            A2b10g10r10UnormPack32 => "RGB10 A2 TB",
            A1r5g5b5UnormPack16 => "RGB5 A1 AU",
            R4g4b4a4UnormPack16 | B4g4r4a4UnormPack16 => "RGBA4 AU",
            Rgba16Sfloat => "RGBA16F",
            Rgba32Sfloat => "RGBA32F",
            B10g11r11UfloatPack32 => "R11F G11F B10F",
            R16Sfloat => "R16F",
            Rg16Sfloat => "RG16F",
            R32Sfloat => "R32F",
            Rg32Sfloat => "RG32F",
            R32Uint => "R32UI",
            R32Sint => "R32I",
            Rgba32Uint => "RGBA32UI",
            Rgba32Sint => "RGBA32I",
            Rg32Uint => "RG32UI",
            Rg32Sint => "RG32I",
            R8Uint => "R8UI",
            R8Sint => "R8I",
            Rg8Uint => "RG8UI",
            Rg8Sint => "RG8I",
            Rgba8Uint => "RGBA8UI",
            Rgba8Sint => "RGBA8I",
            R16Uint => "R16UI",
            R16Sint => "R16I",
            Rg16Uint => "RG16UI",
            Rg16Sint => "RG16I",
            Rgba16Uint => "RGBA16UI",
            Rgba16Sint => "RGBA16I",
            R8Snorm => "R8 SNORM",
            Rg8Snorm => "RG8 SNORM",
            Rgba8Snorm => "RGBA8 SNORM",
            R16Snorm => "R16 SNORM",
            Rg16Snorm => "RG16 SNORM",
            Rgba16Snorm => "RGBA16 SNORM",
            R16Unorm => "R16 UNORM",
            Rg16Unorm => "RG16 UNORM",
            Rgba16Unorm => "RGBA16 UNORM",
            Rgba8Unorm | R8Unorm | Rg8Unorm | Rgba8Srgb | Bgra8Unorm | Bgra8Srgb => "RGBA8 TB",
        }
    }

    /// The memory layout of a RAW format's pixel (`hw::pixel`), `None` for
    /// the blendable ones.
    pub fn raw_layout(self) -> Option<crate::hw::pixel::RawLayout> {
        if !self.is_raw() {
            return None;
        }
        crate::hw::pixel::RawLayout::of(self.blend_memory_format())
    }

    /// (`Internal Format`, `Writeback Format`, `Swizzle`) raw values.
    fn raw(self) -> (u64, u64, u64) {
        use ColorFormat::*;
        // genxml "Color Buffer Internal Format" R8G8B8A8 = 1, R10G10B10A2
        // = 2, R4G4B4A4 = 4, R5G6B5A0 = 5, R5G5B5A1 = 6; "Color Format" R8 =
        // 16, R8G8 = 17, R8G8B8A8 = 19, R4G4B4A4 = 20, R5G6B5 = 21,
        // R10G10B10A2 = 24, R5G5B5A1 = 28 (v6.xml/v7.xml); swizzle: memory
        // channel i from tile channel (3 bits each, R = 0 … A = 3),
        // identity 0o3210 (the writeback keeps the leading channels; the
        // packed formats hold channel 0 in their lowest bits).
        match self {
            Rgba8Unorm | Rgba8Srgb => (1, 19, 0o3210),
            Bgra8Unorm | Bgra8Srgb => (1, 19, 0o3012),
            R8Unorm => (1, 16, 0o3210),
            Rg8Unorm => (1, 17, 0o3210),
            R5g6b5UnormPack16 => (5, 21, 0o3012),
            A2b10g10r10UnormPack32 => (2, 24, 0o3210),
            A1r5g5b5UnormPack16 => (6, 28, 0o3012),
            R4g4b4a4UnormPack16 => (4, 20, 0o0123),
            B4g4r4a4UnormPack16 => (4, 20, 0o2103),
            // RAW8 = 32 … RAW128 = 36 internal (log2 of the bytes), the
            // writeback RAW8 = 0, RAW16 = 1, RAW32 = 3, RAW64 = 5, RAW128 =
            // 7 of the pixel's size (Mesa's `pan_mfbd_raw_format`); the
            // pixel's bytes as they are.
            _ => {
                let internal = 32 + u64::from(self.bytes_per_pixel().trailing_zeros());
                let writeback = match self.memory_bytes_per_pixel() {
                    1 => 0,
                    2 => 1,
                    4 => 3,
                    8 => 5,
                    _ => 7,
                };
                (internal, writeback, 0o3210)
            }
        }
    }

    /// The `Clear` words of an integer format for `VkClearColorValue`'s
    /// `uint32`/`int32`: the pixel in its memory format (each value cast
    /// to the component's size, as the spec says), in the low bytes.
    pub fn clear_words_integer(self, values: [u32; 4]) -> [u32; 4] {
        self.raw_layout()
            .and_then(|l| l.pack_ints(values))
            .unwrap_or(values)
    }

    /// The `Clear` words for the clear colour `rgba` (floats, linear):
    /// converted to the channels' UNORM codes (sRGB-encoded for an sRGB
    /// format, as Mesa's `pan_pack_color` does; round to nearest) and
    /// packed as the tile buffer holds the internal format (Mesa's
    /// `src/panfrost/lib/pan_lower_framebuffer.c`: channels of up to 8
    /// bits in the top bits of a byte each; R10G10B10A2 as the top 8 bits
    /// of R, G, B in bytes 0–2 and the low 2 bits of each, then A, in
    /// byte 3), repeated in the four words.
    /// RAW formats: the pixel in its memory format (`hw::pixel`: binary16
    /// rounded to nearest even, f32 bits, SNORM/UNORM codes; integer
    /// formats take the values converted to integers, exact up to 2^24:
    /// [`ColorFormat::clear_words_integer`] takes the integers themselves).
    pub fn clear_words(self, rgba: [f32; 4]) -> [u32; 4] {
        if let Some(l) = self.raw_layout() {
            return match self.kind() {
                ColorKind::Uint => self.clear_words_integer(rgba.map(|v| v as u32)),
                ColorKind::Sint => self.clear_words_integer(rgba.map(|v| v as i32 as u32)),
                _ => l.pack_floats(rgba).unwrap_or_default(),
            };
        }
        let bits = self.channel_bits();
        let code: [u32; 4] = std::array::from_fn(|c| {
            if bits[c] == 0 {
                return 0;
            }
            let v = if rgba[c].is_nan() {
                0.0
            } else {
                f64::from(rgba[c]).clamp(0.0, 1.0)
            };
            let v = if self.srgb() && c < 3 {
                if v <= 0.003_130_8 {
                    v * 12.92
                } else {
                    1.055 * v.powf(1.0 / 2.4) - 0.055
                }
            } else {
                v
            };
            (v * f64::from((1u32 << bits[c]) - 1)).round() as u32
        });
        let word = if bits == [10, 10, 10, 2] {
            (code[0] >> 2)
                | (code[1] >> 2) << 8
                | (code[2] >> 2) << 16
                | (code[0] & 3) << 24
                | (code[1] & 3) << 26
                | (code[2] & 3) << 28
                | code[3] << 30
        } else {
            (0..4).fold(0, |w, c| {
                let byte = if bits[c] == 0 {
                    0
                } else {
                    code[c] << (8 - bits[c])
                };
                w | byte << (8 * c)
            })
        };
        [word; 4]
    }
}

/// One colour attachment.
#[derive(Clone, Copy, Debug)]
pub struct ColorTarget {
    pub format: ColorFormat,
    pub block: BlockFormat,
    /// GPU address of pixel (0, 0) (64-byte aligned).
    pub base: u64,
    pub row_stride: u32,
    /// With a multisampled framebuffer, `Some(stride)` writes every sample
    /// (sample s at `base + s × stride`); `None` writes their average.
    /// Must be `None` for one sample per pixel.
    pub sample_stride: Option<u32>,
    /// The clear colour as the four `Clear` words (the value packed in the
    /// internal format: RGBA8 repeats its 32-bit pixel), or `None`: the
    /// target starts undefined, or with its memory's contents when
    /// [`write_framebuffer_preloaded`] loads it.
    pub clear: Option<[u32; 4]>,
}

/// A 32-bit float depth attachment (`VK_FORMAT_D32_SFLOAT`).
#[derive(Clone, Copy, Debug)]
pub struct DepthTarget {
    pub block: BlockFormat,
    pub base: u64,
    pub row_stride: u32,
    /// Depth every pixel starts with (loadOp CLEAR).
    pub clear: f32,
    /// Whether the result is stored (storeOp STORE).
    pub write: bool,
    /// With a multisampled framebuffer, where sample s is stored (`base +
    /// s × stride`; required when `write`); `None` for one sample.
    pub sample_stride: Option<u32>,
}

/// How the depth attachment is stored (the tile buffer's `Z Internal
/// Format` and the writeback's `ZS Write Format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DepthFormat {
    /// `VK_FORMAT_D32_SFLOAT`.
    #[default]
    D32,
    /// `VK_FORMAT_X8_D24_UNORM_PACK32` (24-bit UNORM in the low bits).
    D24X8,
    /// `VK_FORMAT_D16_UNORM`.
    D16,
    /// `VK_FORMAT_D24_UNORM_S8_UINT` as one interleaved surface: depth
    /// 24-bit UNORM in bits 0–23, stencil in bits 24–31 of each 32-bit
    /// pixel (Mesa's `PIPE_FORMAT_Z24_UNORM_S8_UINT`: `ZS Write Format`
    /// D24S8, and the stencil written through `S Write Format` X24S8 at the
    /// same surface, `translate_zs_format`/`translate_s_format` in
    /// `src/panfrost/lib/pan_desc.c`). A [`ZsOptions::stencil`] target must
    /// then name the depth target's surface (base, row stride, block,
    /// sample stride).
    D24S8,
}

impl DepthFormat {
    /// (`Z Internal Format`, `ZS Write Format`) raw values.
    fn raw(self) -> (u64, u64) {
        match self {
            DepthFormat::D32 => (2, 14),
            DepthFormat::D24X8 => (1, 4),
            DepthFormat::D16 => (0, 1),
            DepthFormat::D24S8 => (1, 5),
        }
    }
}

/// An 8-bit stencil attachment (`VK_FORMAT_S8_UINT`, or the stencil plane
/// of a depth/stencil image), written back as "S8".
#[derive(Clone, Copy, Debug)]
pub struct StencilTarget {
    pub block: BlockFormat,
    pub base: u64,
    pub row_stride: u32,
    /// Stencil every pixel starts with (loadOp CLEAR).
    pub clear: u8,
    /// Whether the result is stored (storeOp STORE).
    pub write: bool,
    /// As [`DepthTarget::sample_stride`].
    pub sample_stride: Option<u32>,
}

/// Depth/stencil choices a [`Framebuffer`] does not carry (kept apart so
/// that `Framebuffer` literals stay valid): [`write_framebuffer`] is
/// [`write_framebuffer_with`] with a D32 depth target and no stencil.
#[derive(Clone, Copy, Debug, Default)]
pub struct ZsOptions {
    pub depth_format: DepthFormat,
    pub stencil: Option<StencilTarget>,
}

/// One framebuffer: size, attachments, and the tiler context its draws
/// were binned into.
#[derive(Clone, Copy, Debug)]
pub struct Framebuffer<'a> {
    pub width: u32,
    pub height: u32,
    /// Samples per pixel (`rasterizationSamples`): 1 or 4.
    pub samples: u32,
    pub colors: &'a [ColorTarget],
    pub depth: Option<DepthTarget>,
    /// GPU VA of the tiler context ([`write_tiler_context`]).
    pub tiler_context: u64,
    /// GPU VA of the sample locations table of `samples`
    /// ([`SampleLocations::for_samples`]).
    pub sample_locations: u64,
}

/// The sample locations table a framebuffer points at: 16-bit (x, y)
/// pairs in 1/256 pixel from the pixel's upper-left corner, (128, 128) the
/// centre, 33 pairs: the samples in index order, zero after them, the
/// origin (the centre) last (the table Mesa builds in
/// `src/panfrost/lib/pan_samples.c`).
pub struct SampleLocations;

impl SampleLocations {
    pub const PAIRS: usize = 33;

    /// The single-sampled table's words.
    pub fn single_sampled() -> [u32; Self::PAIRS] {
        Self::table(&[(128, 128)])
    }

    /// The 4× table: Vulkan's standard locations for 4 samples ("Standard
    /// sample locations": (0.375, 0.125), (0.875, 0.375), (0.125, 0.625),
    /// (0.625, 0.875)), which are Mesa's "Rotated 4x Grid".
    pub fn rotated_4x() -> [u32; Self::PAIRS] {
        Self::table(&[(96, 32), (224, 96), (32, 160), (160, 224)])
    }

    /// The table for `samples` per pixel (1 or 4).
    pub fn for_samples(samples: u32) -> JmResult<[u32; Self::PAIRS]> {
        match samples {
            1 => Ok(Self::single_sampled()),
            4 => Ok(Self::rotated_4x()),
            _ => Err(JmError::Encoding("sample count other than 1 or 4")),
        }
    }

    fn table(samples: &[(u32, u32)]) -> [u32; Self::PAIRS] {
        let mut w = [0u32; Self::PAIRS];
        for (word, &(x, y)) in w.iter_mut().zip(samples) {
            *word = x | y << 16;
        }
        w[Self::PAIRS - 1] = 128 | 128 << 16;
        w
    }
}

/// genxml "Sample Pattern" for `samples` per pixel (Mesa's
/// `pan_sample_pattern`: Single-sampled 0, Rotated 4x Grid 2).
fn sample_pattern(samples: u32) -> JmResult<u64> {
    match samples {
        1 => Ok(0),
        4 => Ok(2),
        _ => Err(JmError::Encoding("sample count other than 1 or 4")),
    }
}

/// genxml "MSAA" and "Surface Stride" of a surface of a framebuffer of
/// `samples` that stores `stride` apart per sample (`Some`) or resolved
/// (`None`; `resolvable` false: not allowed). `surface_bytes` is how far one
/// sample's surface reaches, which a stride must not be below.
fn msaa(
    samples: u32,
    stride: Option<u32>,
    resolvable: bool,
    surface_bytes: u64,
) -> JmResult<(u64, u64)> {
    match (samples, stride) {
        (1, None) => Ok((0, 0)),
        (1, Some(_)) => Err(JmError::Encoding(
            "a per-sample surface in a single-sampled framebuffer",
        )),
        (_, None) if resolvable => Ok((1, 0)),
        (_, None) => Err(JmError::Encoding(
            "a multisampled depth/stencil surface is only stored per sample",
        )),
        (_, Some(s)) if u64::from(s) < surface_bytes || s % 64 != 0 => Err(JmError::Encoding(
            "sample surfaces overlap or are not 64-byte aligned",
        )),
        (_, Some(s)) => Ok((3, u64::from(s))),
    }
}

/// Bytes one sample's surface of `height` rows spans.
fn surface_bytes(block: BlockFormat, height: u32, row_stride: u32) -> u64 {
    let rows = match block {
        BlockFormat::Linear => height,
        BlockFormat::TiledUInterleaved => height.div_ceil(TILE_SIZE),
    };
    u64::from(rows) * u64::from(row_stride)
}

fn set(layout: &Layout, words: &mut [u32], path: &str, value: u64) -> JmResult<()> {
    layout
        .set(words, path, value)
        .map_err(|_| JmError::Encoding("framebuffer descriptor field does not fit"))
}

fn put(words: &mut [u32], f: Field, value: u64) -> JmResult<()> {
    f.set(words, value)
        .map_err(|_| JmError::Encoding("framebuffer descriptor field does not fit"))
}

/// Writes a tiler heap descriptor for `heap` (`size` bytes at `base`) and a
/// tiler context for a `width`×`height` framebuffer of `samples` per pixel
/// (1 or 4); returns the context's GPU VA (what tiler/IDVS jobs and the
/// framebuffer point at).
pub fn write_tiler_context(
    pool: &mut GpuPool,
    width: u32,
    height: u32,
    samples: u32,
    heap_base: u64,
    heap_size: u64,
) -> JmResult<u64> {
    check_size(width, height)?;
    let pattern = sample_pattern(samples)?;
    let mut hw = TILER_HEAP.defaults();
    put(&mut hw, tiler_heap::SIZE, heap_size)?;
    put(&mut hw, tiler_heap::BASE, heap_base)?;
    put(&mut hw, tiler_heap::BOTTOM, heap_base)?;
    put(&mut hw, tiler_heap::TOP, heap_base + heap_size)?;
    let heap = pool.alloc(TILER_HEAP.bytes() as u64, 64)?;
    heap.write_words(0, &hw);

    let mut cw = TILER_CONTEXT.defaults();
    // Every hierarchy level allowed, as PanVk writes on Bifrost.
    put(&mut cw, tiler_context::HIERARCHY_MASK, 0xff)?;
    put(&mut cw, tiler_context::SAMPLE_PATTERN, pattern)?;
    put(&mut cw, tiler_context::FB_WIDTH, u64::from(width))?;
    put(&mut cw, tiler_context::FB_HEIGHT, u64::from(height))?;
    put(&mut cw, tiler_context::HEAP, heap.gpu_va)?;
    let ctx = pool.alloc(TILER_CONTEXT.bytes() as u64, 64)?;
    ctx.write_words(0, &cw);
    Ok(ctx.gpu_va)
}

fn check_size(width: u32, height: u32) -> JmResult<()> {
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return Err(JmError::Encoding("framebuffer size out of range"));
    }
    Ok(())
}

/// Writes the framebuffer descriptors; returns the tagged "Framebuffer
/// pointer" of the FRAGMENT payload.
pub fn write_framebuffer(pool: &mut GpuPool, arch: Arch, fb: &Framebuffer<'_>) -> JmResult<u64> {
    write_framebuffer_with(pool, arch, fb, &ZsOptions::default())
}

/// [`write_framebuffer`] with another depth format or a stencil target.
pub fn write_framebuffer_with(
    pool: &mut GpuPool,
    arch: Arch,
    fb: &Framebuffer<'_>,
    zs_options: &ZsOptions,
) -> JmResult<u64> {
    write_framebuffer_full(pool, arch, fb, zs_options, None)
}

/// [`write_framebuffer_with`] where the colour targets whose `load` is set
/// (one entry per target; their `clear` must be `None`) start with their
/// memory's contents (loadOp LOAD): the pre-frame shader of
/// [`super::preload`], enabled with mode "Always" (`Pre Frame 0`; the
/// framebuffer's `Frame Shader DCDs` points at its Draw). Without any
/// `load` set, [`write_framebuffer_with`].
pub fn write_framebuffer_preloaded(
    pool: &mut GpuPool,
    arch: Arch,
    fb: &Framebuffer<'_>,
    zs_options: &ZsOptions,
    load: &[bool],
) -> JmResult<u64> {
    write_framebuffer_loaded(pool, arch, fb, zs_options, load, false)
}

/// [`write_framebuffer_preloaded`] that also loads the depth target when
/// `load_depth` (a D32 depth target, [`DepthFormat::D32`]; its `clear` is
/// then unused): the depth preload of [`super::preload::write_preload`] as
/// pre-frame shader 1, mode "Always". Stencil is never loaded.
pub fn write_framebuffer_loaded(
    pool: &mut GpuPool,
    arch: Arch,
    fb: &Framebuffer<'_>,
    zs_options: &ZsOptions,
    load: &[bool],
    load_depth: bool,
) -> JmResult<u64> {
    if load.len() != fb.colors.len() {
        return Err(JmError::Encoding("one load flag per colour target"));
    }
    let colours = load.iter().any(|&l| l);
    if !colours && !load_depth {
        return write_framebuffer_full(pool, arch, fb, zs_options, None);
    }
    check_size(fb.width, fb.height)?;
    let depth = if load_depth {
        if zs_options.depth_format != DepthFormat::D32 {
            return Err(JmError::Encoding(
                "loading depth other than D32 is not encoded",
            ));
        }
        Some(
            fb.depth
                .as_ref()
                .ok_or(JmError::Encoding("loading depth without a depth target"))?,
        )
    } else {
        None
    };
    let dcds = super::preload::write_preload(pool, arch, fb, load, depth)?;
    let modes = [colours, load_depth];
    write_framebuffer_full(pool, arch, fb, zs_options, Some((dcds, modes)))
}

/// genxml "Pre Post Frame Shader Mode" Always.
const FRAME_SHADER_ALWAYS: u64 = 1;

fn write_framebuffer_full(
    pool: &mut GpuPool,
    arch: Arch,
    fb: &Framebuffer<'_>,
    zs_options: &ZsOptions,
    frame_shader_dcds: Option<(u64, [bool; 2])>,
) -> JmResult<u64> {
    let has_zs = fb.depth.is_some() || zs_options.stencil.is_some();
    check_size(fb.width, fb.height)?;
    if fb.colors.is_empty() || fb.colors.len() > 8 {
        return Err(JmError::Encoding(
            "a framebuffer has 1 to 8 render targets (an unused one is write-disabled)",
        ));
    }
    let pattern = sample_pattern(fb.samples)?;
    let bytes_per_pixel: u32 = fb.colors.iter().map(|c| c.format.bytes_per_pixel()).sum();
    let tile = effective_tile_side(bytes_per_pixel * fb.samples).ok_or(JmError::Encoding(
        "colour targets need more tile buffer than 4x4 tiles allow",
    ))?;
    let allocation = (bytes_per_pixel * fb.samples * tile * tile).next_multiple_of(1024);

    let params = &fbd::FRAMEBUFFER_PARAMETERS;
    let mut p = params.defaults();
    use fbd::framebuffer_parameters as fp;
    put(&mut p, fp::SAMPLE_LOCATIONS, fb.sample_locations)?;
    put(&mut p, fp::WIDTH, u64::from(fb.width))?;
    put(&mut p, fp::HEIGHT, u64::from(fb.height))?;
    put(&mut p, fp::BOUND_MAX_X, u64::from(fb.width - 1))?;
    put(&mut p, fp::BOUND_MAX_Y, u64::from(fb.height - 1))?;
    put(&mut p, fp::SAMPLE_COUNT, u64::from(fb.samples))?;
    put(&mut p, fp::SAMPLE_PATTERN, pattern)?;
    // genxml "Tie-Break Rule" MINUS_180_IN_0_OUT, PanVk's choice.
    put(&mut p, fp::TIE_BREAK_RULE, 2)?;
    put(&mut p, fp::EFFECTIVE_TILE_SIZE, u64::from(tile * tile))?;
    put(&mut p, fp::RENDER_TARGET_COUNT, fb.colors.len() as u64)?;
    put(&mut p, fp::COLOR_BUFFER_ALLOCATION, u64::from(allocation))?;
    put(&mut p, fp::TILER, fb.tiler_context)?;
    if let Some((dcds, [colour, depth])) = frame_shader_dcds {
        if colour {
            put(&mut p, fp::PRE_FRAME_0, FRAME_SHADER_ALWAYS)?;
        }
        if depth {
            put(&mut p, fp::PRE_FRAME_1, FRAME_SHADER_ALWAYS)?;
        }
        put(&mut p, fp::FRAME_SHADER_DCDS, dcds)?;
    }
    if let Some(st) = zs_options.stencil {
        put(&mut p, fp::S_CLEAR, u64::from(st.clear))?;
        put(&mut p, fp::S_WRITE_ENABLE, u64::from(st.write))?;
        put(&mut p, fp::HAS_ZS_CRC_EXTENSION, 1)?;
    }
    if let Some(d) = fb.depth {
        put(
            &mut p,
            fp::Z_INTERNAL_FORMAT,
            zs_options.depth_format.raw().0,
        )?;
        put(&mut p, fp::Z_WRITE_ENABLE, u64::from(d.write))?;
        put(&mut p, fp::Z_CLEAR, u64::from(d.clear.to_bits()))?;
        put(&mut p, fp::HAS_ZS_CRC_EXTENSION, 1)?;
    } else {
        // genxml "Z Internal Format" D24, what PanVk leaves without depth.
        put(&mut p, fp::Z_INTERNAL_FORMAT, 1)?;
    }

    let head = fbd::FRAMEBUFFER_BYTES;
    let zs_bytes = if has_zs {
        fbd::zs_crc_extension(arch).bytes() as u64
    } else {
        0
    };
    let rt_layout = fbd::render_target(arch);
    let rt_bytes = rt_layout.bytes() as u64;
    let total = head + zs_bytes + rt_bytes * fb.colors.len() as u64;
    let block = pool.alloc(total, 64)?;
    block.zero(0, total);
    block.write_words(0, &p);

    let zs = fbd::zs_crc_extension(arch);
    let mut z = zs.defaults();
    if let Some(st) = zs_options.stencil {
        // genxml "S Format" S8 = 1; X24S8 = 4, the stencil byte of a
        // D24S8 surface, which must then be the depth target's.
        let interleaved = zs_options.depth_format == DepthFormat::D24S8;
        if interleaved {
            let same = fb.depth.is_some_and(|d| {
                (d.base, d.row_stride, d.block, d.sample_stride)
                    == (st.base, st.row_stride, st.block, st.sample_stride)
            });
            if !same {
                return Err(JmError::Encoding(
                    "D24S8 stencil must be written to the depth target's surface",
                ));
            }
        }
        set(
            zs,
            &mut z,
            "S Write Format",
            if interleaved { 4 } else { 1 },
        )?;
        let sblock = if st.write { st.block.raw() } else { 0 };
        set(zs, &mut z, "S Block Format", sblock)?;
        let (mode, stride) = if st.write || st.sample_stride.is_some() {
            msaa(
                fb.samples,
                st.sample_stride,
                false,
                surface_bytes(st.block, fb.height, st.row_stride),
            )?
        } else {
            (0, 0)
        };
        set(zs, &mut z, "S MSAA", mode)?;
        set(zs, &mut z, "S Writeback Surface Stride", stride)?;
        set(zs, &mut z, "S Writeback Base", st.base)?;
        set(
            zs,
            &mut z,
            "S Writeback Row Stride",
            u64::from(st.row_stride),
        )?;
    }
    if let Some(d) = fb.depth {
        set(
            zs,
            &mut z,
            "ZS Write Format",
            zs_options.depth_format.raw().1,
        )?;
        let zblock = if d.write { d.block.raw() } else { 0 };
        set(zs, &mut z, "ZS Block Format", zblock)?;
        set(
            zs,
            &mut z,
            "ZS Clean Pixel Write Enable",
            u64::from(d.write),
        )?;
        let (mode, stride) = if d.write || d.sample_stride.is_some() {
            msaa(
                fb.samples,
                d.sample_stride,
                false,
                surface_bytes(d.block, fb.height, d.row_stride),
            )?
        } else {
            (0, 0)
        };
        set(zs, &mut z, "ZS MSAA", mode)?;
        set(zs, &mut z, "ZS Writeback Surface Stride", stride)?;
        set(zs, &mut z, "ZS Writeback Base", d.base)?;
        set(
            zs,
            &mut z,
            "ZS Writeback Row Stride",
            u64::from(d.row_stride),
        )?;
    }
    if has_zs {
        block.write_words(head, &z);
    }

    let mut offset = 0u32;
    for (i, c) in fb.colors.iter().enumerate() {
        let mut r = rt_layout.defaults();
        let (internal, writeback, swizzle) = c.format.raw();
        set(
            rt_layout,
            &mut r,
            "Internal Buffer Offset",
            u64::from(offset),
        )?;
        set(rt_layout, &mut r, "Internal Format", internal)?;
        set(rt_layout, &mut r, "Write Enable", 1)?;
        set(rt_layout, &mut r, "Writeback Format", writeback)?;
        set(rt_layout, &mut r, "Writeback Block Format", c.block.raw())?;
        let (mode, stride) = msaa(
            fb.samples,
            c.sample_stride,
            true,
            surface_bytes(c.block, fb.height, c.row_stride),
        )?;
        set(rt_layout, &mut r, "Writeback MSAA", mode)?;
        set(rt_layout, &mut r, "RGB.Surface Stride", stride)?;
        set(rt_layout, &mut r, "Dithering Enable", 1)?;
        set(rt_layout, &mut r, "Swizzle", swizzle)?;
        set(rt_layout, &mut r, "sRGB", u64::from(c.format.srgb()))?;
        if (c.format.srgb() || c.format.kind() != ColorKind::Unorm)
            && fb.samples > 1
            && c.sample_stride.is_none()
        {
            return Err(JmError::Encoding(
                "resolving an sRGB, float or integer target is not encoded",
            ));
        }
        set(rt_layout, &mut r, "Clean Pixel Write Enable", 1)?;
        set(rt_layout, &mut r, "RGB.Base", c.base)?;
        set(rt_layout, &mut r, "RGB.Row Stride", u64::from(c.row_stride))?;
        if let Some(clear) = c.clear {
            for (k, w) in clear.iter().enumerate() {
                set(
                    rt_layout,
                    &mut r,
                    &format!("Clear.Color {k}"),
                    u64::from(*w),
                )?;
            }
        }
        block.write_words(head + zs_bytes + rt_bytes * i as u64, &r);
        offset += c.format.bytes_per_pixel() * fb.samples * tile * tile;
    }

    let pointer = &fbd::FRAMEBUFFER_POINTER;
    let mut fp_words = pointer.defaults();
    use fbd::framebuffer_pointer as ptr;
    put(&mut fp_words, ptr::POINTER, block.gpu_va)?;
    put(
        &mut fp_words,
        ptr::ZS_CRC_EXTENSION_PRESENT,
        u64::from(has_zs),
    )?;
    put(
        &mut fp_words,
        ptr::RENDER_TARGET_COUNT,
        fb.colors.len() as u64,
    )?;
    Ok(u64::from(fp_words[0]) | u64::from(fp_words[1]) << 32)
}

/// Appends the FRAGMENT job that renders every tile of a `width`×`height`
/// framebuffer (`framebuffer`: what [`write_framebuffer`] returned).
pub fn add_fragment_job(
    chain: &mut JobChain,
    pool: &mut GpuPool,
    framebuffer: u64,
    width: u32,
    height: u32,
    dependencies: [u16; 2],
) -> JmResult<u16> {
    check_size(width, height)?;
    use crate::hw::job::fragment as fj;
    let mut w = FRAGMENT_PAYLOAD.defaults();
    put(&mut w, fj::BOUND_MAX_X, u64::from((width - 1) / TILE_SIZE))?;
    put(&mut w, fj::BOUND_MAX_Y, u64::from((height - 1) / TILE_SIZE))?;
    put(&mut w, fj::FRAMEBUFFER, framebuffer)?;
    chain.add_job(pool, JobType::Fragment, &w, dependencies, false)
}
