//! The framebuffer side of a FRAGMENT job: the multi-target framebuffer
//! descriptor (MFBD: genxml "Framebuffer Parameters", the optional "ZS CRC
//! Extension", one "Render Target" per colour attachment) unpacked with the
//! `hw` tables, the on-chip tile buffer (colour in the render target's
//! internal format, depth as f32), clears, the fixed-function blend unit and
//! the writeback of the tile buffer to memory (Tiled U-Interleaved or
//! Linear blocks).
//!
//! What is simulated (anything else in the descriptors faults with
//! JOB_CONFIG_FAULT, naming the descriptor): 1 or 4 samples per pixel
//! (see "Multisampling" below);
//! colour internal formats R8G8B8A8 (written back as R8G8B8A8, R8G8 or
//! R8, sRGB or not), R5G6B5A0 (→ R5G6B5), R10G10B10A2 (→ R10G10B10A2) —
//! the tile buffer holding each channel's UNORM code, blended by the
//! fixed-function unit —, R4G4B4A4 (→ R4G4B4A4), R5G5B5A1 (→ R5G5B5A1),
//! and RAW8/RAW16/RAW32/RAW64/RAW128 (→ a RAW size that rounds up to it:
//! float, integer, SNORM and 16-bit UNORM formats, the pixel's bytes as
//! the blend unit's conversion wrote them, Opaque only), any swizzle of R,
//! G, B, A (the identity for RAW), no YUV/AFBC; depth internal formats D16/D24/D32
//! (kept as f32 in the tile buffer, D16/D24 rounded to their UNORM
//! precision: `fragment::quantize_depth`) written back as D32 (f32) or D16/D24
//! UNORM through the ZS CRC Extension (D24S8: the depth's three low bytes
//! of each 32-bit pixel), stencil kept as u8 and written back as S8 or
//! X24S8 (the top byte of a D24S8 surface's pixels); of the frame shaders
//! pre-frame 0 and 1 in mode "Always" (our colour and depth preloads, run
//! by `fragment::execute`). `Dithering Enable` is not modelled: colour
//! is rounded to nearest (what the Vulkan rules allow; dithering is an
//! implementation choice the spec also allows).
//!
//! The u-interleaved layout (16x16-pixel tiles, tiles left to right, tile
//! rows `Row Stride` bytes apart, the 8-bit index inside a tile with bit
//! 2k+1 = y_k and bit 2k = x_k XOR y_k) is Mesa's `pan_tiling.c`
//! description of "Tiled U-Interleaved".
//!
//! Multisampling. `Sample Count` 1 with `Sample Pattern` Single-sampled
//! (one sample at the pixel centre; the Sample Locations table is not
//! read), or 4 with "Rotated 4x Grid" (Mesa's `pan_sample_pattern` for 4
//! samples): the four samples sit where the first four entries of the
//! `Sample Locations` table put them (16-bit x, y in 1/256 pixel from the
//! pixel's upper-left corner, Mesa's `src/panfrost/lib/pan_samples.c`,
//! which says the table gives "the sample position when indexed by the
//! sample index"; that the rasterizer itself reads it, rather than a fixed
//! pattern, is our reading: with Mesa's table both agree). Other counts
//! and patterns fault, and so does a Tiler Context whose `Sample Pattern`
//! differs (the list was binned for another pattern). The tile buffer holds
//! every sample's colour, depth and stencil. Writeback per surface, from
//! `Writeback MSAA` / `ZS MSAA` / `S MSAA` (genxml "MSAA"): Single (one
//! sample per pixel only), Average for colour ("N samples, 1 surface,
//! resolved": the mean of the samples' UNORM8 values, rounded to nearest,
//! ties up, in integers — Vulkan lets the conversion return either
//! neighbour of a value between two), Layered ("N surfaces": sample s at
//! the surface's address + s × `Surface Stride`, as Mesa writes
//! multisampled images). "Multiple" (one surface, the in-memory order of
//! its samples undocumented) and Average for depth/stencil fault.
//!
//! This module must never read or write memory except through the MMU, and
//! never panic on descriptor contents.

use super::jobs::JobFault;
use super::mmu::Mmu;
use crate::hw::Arch;
use crate::hw::fbd::{FRAMEBUFFER_BYTES, framebuffer_parameters as fbp};
use crate::hw::layout::Layout;

/// Host bytes the simulated tile buffer may take (per sample: 16 bytes of
/// colour words for every render target plus f32 depth and u8 stencil,
/// for the whole framebuffer): 8 single-sampled render targets of 4096 x
/// 4096 pixels (Vulkan's minimum `maxFramebufferWidth/Height`) fit, about
/// 2.2 GB of host memory.
pub const TILE_BUFFER_BUDGET: u64 = (16 * 8 + 5) * 4096 * 4096;

/// Byte offset of pixel (x, y) in a Tiled U-Interleaved surface with `bpp`
/// bytes per pixel and `row_stride` bytes between rows of 16x16 tiles.
pub fn u_interleaved_offset(x: u32, y: u32, row_stride: u64, bpp: u64) -> u64 {
    let (lx, ly) = (x & 15, y & 15);
    let mut i = 0u64;
    for k in 0..4 {
        let xk = u64::from((lx >> k) & 1);
        let yk = u64::from((ly >> k) & 1);
        i |= (yk << (2 * k + 1)) | ((xk ^ yk) << (2 * k));
    }
    u64::from(y >> 4) * row_stride + (u64::from(x >> 4) * 256 + i) * bpp
}

/// How a surface is laid out in memory (genxml `Block Format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    TiledUInterleaved,
    Linear,
}

impl Block {
    fn from_raw(v: u64) -> Option<Block> {
        match v {
            1 => Some(Block::TiledUInterleaved),
            2 => Some(Block::Linear),
            _ => None,
        }
    }

    /// Byte offset of pixel (x, y).
    pub fn offset(self, x: u32, y: u32, row_stride: u64, bpp: u64) -> u64 {
        match self {
            Block::TiledUInterleaved => u_interleaved_offset(x, y, row_stride, bpp),
            Block::Linear => u64::from(y) * row_stride + u64::from(x) * bpp,
        }
    }
}

/// How a surface stores a multisampled tile buffer (genxml "MSAA").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Msaa {
    /// One sample per pixel (a single-sampled framebuffer).
    Single,
    /// The samples' average, one value per pixel (colour only).
    Average,
    /// Sample s in its own surface, `surface stride` bytes after the
    /// previous one.
    Layered(u64),
}

impl Msaa {
    /// The mode of a surface from its `MSAA` field and surface stride, for
    /// a framebuffer of `samples`; `colour` allows Average.
    fn from_raw(raw: u64, surface_stride: u64, samples: u32, colour: bool) -> Option<Msaa> {
        match (raw, samples) {
            (0, 1) => Some(Msaa::Single),
            (1, 4) if colour => Some(Msaa::Average),
            (3, 4) => Some(Msaa::Layered(surface_stride)),
            _ => None,
        }
    }

    /// The surface (its address offset) and the samples it stores: one
    /// entry per surface, with the samples averaged into it.
    fn surfaces(self, samples: u32) -> Vec<(u64, std::ops::Range<u32>)> {
        match self {
            Msaa::Single | Msaa::Average => vec![(0, 0..samples)],
            Msaa::Layered(stride) => (0..samples)
                .map(|s| (u64::from(s) * stride, s..s + 1))
                .collect(),
        }
    }
}

/// A render target's tile-buffer format (its `Internal Format`): UNORM
/// channels of `bits` each (0: the channel is absent; a missing alpha
/// reads 1 when blending, Vulkan's rule), the RGB channels sRGB-encoded
/// with `srgb`. The tile buffer holds each channel's integer code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnormFormat {
    pub bits: [u32; 4],
    pub srgb: bool,
}

impl UnormFormat {
    pub const RGBA8: UnormFormat = UnormFormat {
        bits: [8; 4],
        srgb: false,
    };

    /// genxml "Color Buffer Internal Format" R8G8B8A8 (1), R10G10B10A2
    /// (2), R4G4B4A4 (4), R5G6B5A0 (5), R5G5B5A1 (6).
    fn from_internal(raw: u64, srgb: bool) -> Option<UnormFormat> {
        let bits = match raw {
            1 => [8, 8, 8, 8],
            2 => [10, 10, 10, 2],
            5 if !srgb => [5, 6, 5, 0],
            4 if !srgb => [4, 4, 4, 4],
            6 if !srgb => [5, 5, 5, 1],
            _ => return None,
        };
        Some(UnormFormat { bits, srgb })
    }

    fn max(self, c: usize) -> f32 {
        ((1u32 << self.bits[c]) - 1) as f32
    }

    /// The values the codes stand for (sRGB channels linearized).
    pub fn decode(self, code: [u32; 4]) -> [f32; 4] {
        std::array::from_fn(|c| {
            if self.bits[c] == 0 {
                return if c == 3 { 1.0 } else { 0.0 };
            }
            let v = code[c] as f32 / self.max(c);
            if self.srgb && c < 3 {
                srgb_to_linear(v)
            } else {
                v
            }
        })
    }

    /// Values → codes: clamped to [0, 1] (NaN → 0), sRGB-encoded, rounded
    /// to the nearest code (Vulkan's conversion to normalized fixed point).
    pub fn encode(self, v: [f32; 4]) -> [u32; 4] {
        std::array::from_fn(|c| {
            if self.bits[c] == 0 {
                return 0;
            }
            let x = if v[c].is_nan() {
                0.0
            } else {
                v[c].clamp(0.0, 1.0)
            };
            let x = if self.srgb && c < 3 {
                linear_to_srgb(x)
            } else {
                x
            };
            (x * self.max(c)).round() as u32
        })
    }

    /// The codes of a `Clear Color 0` word packed as the tile buffer holds
    /// the format (Mesa's `src/panfrost/lib/pan_lower_framebuffer.c`:
    /// channels of at most 8 bits each in a byte, in its top bits; RGB10_A2
    /// as the top 8 bits of R, G, B in bytes 0–2 and their low 2 bits, then
    /// A, in byte 3).
    fn unpack_clear(self, w: u32) -> [u32; 4] {
        let byte = |c: usize| (w >> (8 * c)) & 0xff;
        if self.bits == [10, 10, 10, 2] {
            return std::array::from_fn(|c| {
                if c == 3 {
                    w >> 30
                } else {
                    byte(c) << 2 | ((w >> (24 + 2 * c)) & 3)
                }
            });
        }
        std::array::from_fn(|c| {
            if self.bits[c] == 0 {
                0
            } else {
                byte(c) >> (8 - self.bits[c])
            }
        })
    }
}

/// The sRGB EOTF (Khronos Data Format Specification, "sRGB transfer
/// functions", which Vulkan's sRGB formats refer to): encoded → linear.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// The inverse: linear → sRGB-encoded.
pub fn linear_to_srgb(l: f32) -> f32 {
    if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    }
}

/// What a render target's tile buffer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileFormat {
    /// UNORM channel codes.
    Unorm(UnormFormat),
    /// `Internal Format` RAW8 … RAW128: the pixel's bytes in its memory
    /// format, as the blend unit's conversion wrote them, `bytes` of them
    /// (1, 2, 4, 8, 16; little-endian in the words; Mesa's
    /// `pan_rt_init_format` for formats the blend unit cannot blend).
    Raw { bytes: u32 },
}

/// How a render target's pixels are packed in memory (`Writeback Format`):
/// memory channel i holds tile channel `swizzle[i]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writeback {
    /// R8 (1), R8G8 (2), R8G8B8A8 (4): one byte per channel.
    Bytes(u64),
    /// R5G6B5: a 16-bit word, channel 0 in bits 0–4, 1 in 5–10, 2 in
    /// 11–15 (our reading: the genxml names list channels from the least
    /// significant bits, as R8G8B8A8 puts R in byte 0).
    R5G6B5,
    /// R10G10B10A2: a 32-bit word, channels at bits 0, 10, 20, 30.
    R10G10B10A2,
    /// R5G5B5A1 / R4G4B4A4: a 16-bit word, channel 0 in the lowest bits
    /// (the reading of R5G6B5), channel sizes `bits`.
    Packed16([u32; 4]),
    /// RAW8 … RAW128: the first `n` bytes of the tile buffer's words.
    Raw(u32),
}

impl Writeback {
    fn bytes(self) -> u64 {
        match self {
            Writeback::Bytes(n) => n,
            Writeback::R5G6B5 => 2,
            Writeback::R10G10B10A2 => 4,
            Writeback::Packed16(_) => 2,
            Writeback::Raw(bytes) => u64::from(bytes),
        }
    }

    fn pack(self, m: [u32; 4]) -> Vec<u8> {
        match self {
            Writeback::Bytes(n) => m[..n as usize].iter().map(|&v| v as u8).collect(),
            Writeback::R5G6B5 => ((m[0] | m[1] << 5 | m[2] << 11) as u16)
                .to_le_bytes()
                .to_vec(),
            Writeback::R10G10B10A2 => (m[0] | m[1] << 10 | m[2] << 20 | m[3] << 30)
                .to_le_bytes()
                .to_vec(),
            Writeback::Packed16(bits) => {
                let mut shift = 0;
                let mut v = 0u32;
                for c in 0..4 {
                    v |= m[c] << shift;
                    shift += bits[c];
                }
                (v as u16).to_le_bytes().to_vec()
            }
            Writeback::Raw(bytes) => m
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take(bytes as usize)
                .collect(),
        }
    }
}

/// One colour render target.
#[derive(Clone, Debug)]
pub struct RenderTarget {
    pub format: TileFormat,
    pub writeback: Writeback,
    /// `Swizzle`: memory channel i holds tile channel `swizzle[i]`.
    pub swizzle: [usize; 4],
    /// `Write Enable`: written back at the end of the job.
    pub write: bool,
    pub block: Block,
    pub base: u64,
    pub row_stride: u64,
    /// `Writeback MSAA` with `RGB.Surface Stride`.
    pub msaa: Msaa,
    /// Clear colour: the channels' codes.
    pub clear: [u32; 4],
}

/// Depth writeback through the ZS CRC Extension.
#[derive(Clone, Copy, Debug)]
pub struct DepthTarget {
    pub block: Block,
    pub base: u64,
    pub row_stride: u64,
    /// Bytes per pixel written: 4 (D32 as f32, D24X8 UNORM) or 2 (D16).
    pub format: DepthFormat,
    /// `ZS Write Format` D24S8: the 24-bit UNORM depth goes to bytes 0–2
    /// of each 32-bit pixel and byte 3 (the stencil's, written by an
    /// X24S8 stencil writeback) is left as it is.
    pub keeps_stencil_byte: bool,
    /// `ZS MSAA` with `ZS Writeback Surface Stride` (Single or Layered).
    pub msaa: Msaa,
}

/// Stencil writeback (S8, or X24S8) through the ZS CRC Extension.
#[derive(Clone, Copy, Debug)]
pub struct StencilTarget {
    pub block: Block,
    pub base: u64,
    pub row_stride: u64,
    /// `S Write Format` X24S8: the stencil is byte 3 of 32-bit pixels
    /// (a D24S8 surface); S8: one byte per pixel.
    pub x24s8: bool,
    /// `S MSAA` with `S Writeback Surface Stride` (Single or Layered).
    pub msaa: Msaa,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthFormat {
    D16,
    D24X8,
    D32,
}

/// What a FRAGMENT job needs from its framebuffer descriptor.
#[derive(Clone, Debug)]
pub struct Framebuffer {
    pub width: u32,
    pub height: u32,
    /// Inclusive pixel bounds (`Bound Min/Max X/Y`).
    pub bound: [u32; 4],
    /// `Tie-Break Rule` (see `super::raster::TieBreak`).
    pub tie_break: u64,
    /// Effective tile edge in pixels (the job payload's bounds are in tiles).
    pub tile_edge: u32,
    /// Samples per pixel (1 or 4).
    pub samples: u32,
    /// Where they are: offsets in 1/256 pixel from the pixel's upper-left
    /// corner (`raster::Samples`).
    pub sample_offsets: Vec<(i64, i64)>,
    /// The `Sample Locations` table's address: what FAU special 6 hands a
    /// fragment shader (Mesa's `BIR_FAU_SAMPLE_POS_ARRAY`, read by
    /// src/panfrost/compiler/pan_lower_sample_pos.c as the table of the
    /// framebuffer's pattern; that the hardware takes it from the FBD is
    /// our reading — Mesa writes one table for both).
    pub sample_locations: u64,
    pub tiler_context: u64,
    /// `Pre Frame 0` / `Pre Frame 1` "Always": the Draw (the first /
    /// second of `Frame Shader DCDs`) run over every pixel before the
    /// primitives.
    pub pre_frame: [Option<u64>; 2],
    pub z_clear: f32,
    /// `Z Write Enable` with a ZS CRC Extension that writes depth back.
    pub depth: Option<DepthTarget>,
    /// `Z Internal Format`: the tile buffer's depth precision (what the
    /// depth bias's r is for).
    pub z_internal: DepthFormat,
    /// `S Clear`.
    pub s_clear: u8,
    /// `S Write Enable` with the ZS CRC Extension's S8 writeback.
    pub stencil: Option<StencilTarget>,
    pub rts: Vec<RenderTarget>,
}

fn config(va: u64, what: &str) -> JobFault {
    log::error!("sim fragment: framebuffer descriptor at {va:#x}: {what}");
    JobFault::config(va)
}

fn field(l: &Layout, w: &[u32], path: &str, va: u64) -> Result<u64, JobFault> {
    l.get(w, path)
        .ok_or_else(|| config(va, &format!("no field {path} in {}", l.name)))
}

impl Framebuffer {
    /// Unpacks the MFBD at `fb` (the fragment payload's tagged pointer).
    pub fn read(mmu: &Mmu, arch: Arch, tagged: u64) -> Result<Framebuffer, JobFault> {
        use crate::hw::fbd::framebuffer_pointer as fp;
        let l = crate::hw::layouts(arch);
        let tw = [tagged as u32, (tagged >> 32) as u32];
        let va = fp::POINTER.get(&tw);
        if fp::TYPE.get(&tw) == 0 || va == 0 {
            return Err(config(tagged, "not a multi-target framebuffer pointer"));
        }
        let tagged_zs = fp::ZS_CRC_EXTENSION_PRESENT.get(&tw) != 0;
        let tagged_rts = fp::RENDER_TARGET_COUNT.get(&tw);
        let w = mmu.read_words(va, l.framebuffer_parameters.words as usize)?;
        if l.framebuffer_parameters.check_reserved(&w).is_err() {
            return Err(config(va, "reserved bits set in Framebuffer Parameters"));
        }
        // Frame shaders: pre-frame 0 and 1 with mode "Always" (1) run the
        // first and second of the three Draws at `Frame Shader DCDs` over
        // every pixel of the job's rectangle before its primitives, in
        // that order (`fragment::execute`; the order is our choice, the
        // sources do not give one — ours write colour and depth apart).
        // "Intersect" (only tiles some primitive covers) and "Early ZS
        // always" are not simulated (what exactly they preload is not in
        // the public sources), nor the post-frame shader.
        if fbp::POST_FRAME.get(&w) != crate::hw::fbd::FRAME_SHADER_NEVER {
            return Err(config(va, "post-frame shader is not simulated"));
        }
        let dcds = fbp::FRAME_SHADER_DCDS.get(&w);
        let draw_bytes = 4 * u64::from(l.draw.words);
        let mut pre_frame = [None; 2];
        for (i, f) in [fbp::PRE_FRAME_0, fbp::PRE_FRAME_1].into_iter().enumerate() {
            match f.get(&w) {
                crate::hw::fbd::FRAME_SHADER_NEVER => {}
                1 => {
                    if dcds == 0 || !dcds.is_multiple_of(64) {
                        return Err(config(va, "frame shader DCDs null or misaligned"));
                    }
                    pre_frame[i] = Some(dcds + i as u64 * draw_bytes);
                }
                _ => return Err(config(va, "pre-frame shader mode not simulated")),
            }
        }
        let samples = fbp::SAMPLE_COUNT.get(&w) as u32;
        let pattern = fbp::SAMPLE_PATTERN.get(&w);
        let sample_offsets = match (samples, pattern) {
            (1, 0) => super::raster::CENTRE.to_vec(),
            (4, 2) => {
                let table = fbp::SAMPLE_LOCATIONS.get(&w);
                let words = mmu.read_words(table, 4)?;
                let mut offsets = Vec::new();
                for p in words {
                    let (x, y) = (i64::from(p & 0xffff), i64::from(p >> 16));
                    if x >= 256 || y >= 256 {
                        return Err(config(table, "a sample location outside its pixel"));
                    }
                    offsets.push((x, y));
                }
                offsets
            }
            _ => {
                return Err(config(
                    va,
                    "sample count/pattern not simulated (1 single-sampled, 4 rotated grid)",
                ));
            }
        };
        let tiler = fbp::TILER.get(&w);
        if tiler != 0 {
            use crate::hw::tiler::tiler_context as tc;
            let t = mmu.read_words(tiler, 3)?;
            if tc::SAMPLE_PATTERN.get(&t) != pattern {
                return Err(config(
                    tiler,
                    "tiler context sample pattern differs from the framebuffer's",
                ));
            }
        }
        for (f, what) in [
            (fbp::Z_PRELOAD_ENABLE, "Z preload"),
            (fbp::S_PRELOAD_ENABLE, "S preload"),
            (fbp::CRC_READ_ENABLE, "CRC read"),
            (fbp::CRC_WRITE_ENABLE, "CRC write"),
        ] {
            if f.get(&w) != 0 {
                return Err(config(va, &format!("{what} is not simulated")));
            }
        }
        let rt_count = fbp::RENDER_TARGET_COUNT.get(&w);
        let has_zs = fbp::HAS_ZS_CRC_EXTENSION.get(&w) != 0;
        if rt_count != tagged_rts || has_zs != tagged_zs || rt_count > 8 {
            return Err(config(
                va,
                "framebuffer pointer tags disagree with the descriptor",
            ));
        }
        let tile_area = fbp::EFFECTIVE_TILE_SIZE.get(&w);
        let tile_edge = (tile_area as f64).sqrt() as u32;
        if tile_edge == 0 || u64::from(tile_edge * tile_edge) != tile_area {
            return Err(config(va, "effective tile size is not a square"));
        }
        let mut fb = Framebuffer {
            width: fbp::WIDTH.get(&w) as u32,
            height: fbp::HEIGHT.get(&w) as u32,
            bound: [
                fbp::BOUND_MIN_X.get(&w) as u32,
                fbp::BOUND_MIN_Y.get(&w) as u32,
                fbp::BOUND_MAX_X.get(&w) as u32,
                fbp::BOUND_MAX_Y.get(&w) as u32,
            ],
            tie_break: fbp::TIE_BREAK_RULE.get(&w),
            tile_edge,
            samples,
            sample_offsets,
            sample_locations: fbp::SAMPLE_LOCATIONS.get(&w),
            tiler_context: tiler,
            pre_frame,
            z_clear: f32::from_bits(fbp::Z_CLEAR.get(&w) as u32),
            depth: None,
            z_internal: match fbp::Z_INTERNAL_FORMAT.get(&w) {
                0 => DepthFormat::D16,
                1 => DepthFormat::D24X8,
                2 => DepthFormat::D32,
                _ => return Err(config(va, "Z internal format not simulated")),
            },
            s_clear: fbp::S_CLEAR.get(&w) as u8,
            stencil: None,
            rts: Vec::new(),
        };
        // The tile buffer covers the whole framebuffer (our model keeps it
        // in host memory): refuse sizes whose buffer would not fit the
        // model's budget instead of exhausting the host.
        let pixels = u64::from(fb.width) * u64::from(fb.height) * u64::from(samples);
        if pixels * (16 * rt_count + 5) > TILE_BUFFER_BUDGET {
            return Err(config(
                va,
                "framebuffer too large for the simulated tile buffer",
            ));
        }
        let mut next = va + FRAMEBUFFER_BYTES;
        if has_zs {
            let zl = l.zs_crc_extension;
            let z = mmu.read_words(next, zl.words as usize)?;
            if zl.check_reserved(&z).is_err() {
                return Err(config(next, "reserved bits set in ZS CRC Extension"));
            }
            if fbp::Z_WRITE_ENABLE.get(&w) != 0 {
                let block = field(zl, &z, "ZS Block Format", next)?;
                // D24S8 (5) writes the depth of a D24X8 pixel and leaves
                // its top byte to the stencil writeback: our reading of
                // Mesa's `PIPE_FORMAT_Z24_UNORM_S8_UINT` (depth in bits
                // 0–23) written as ZS D24S8 plus S X24S8 at the same
                // surface (`pan_desc.c`); what D24S8 does to that byte
                // when no stencil is written is not documented, and
                // Vulkan wants a store of one aspect to leave the other.
                let (format, keeps_stencil_byte) = match field(zl, &z, "ZS Write Format", next)? {
                    1 => (DepthFormat::D16, false),
                    4 => (DepthFormat::D24X8, false),
                    5 => (DepthFormat::D24X8, true),
                    14 => (DepthFormat::D32, false),
                    _ => return Err(config(next, "ZS write format not simulated")),
                };
                fb.depth = Some(DepthTarget {
                    block: Block::from_raw(block)
                        .ok_or_else(|| config(next, "ZS block format not simulated"))?,
                    base: field(zl, &z, "ZS Writeback Base", next)?,
                    row_stride: field(zl, &z, "ZS Writeback Row Stride", next)?,
                    format,
                    keeps_stencil_byte,
                    msaa: Msaa::from_raw(
                        field(zl, &z, "ZS MSAA", next)?,
                        field(zl, &z, "ZS Writeback Surface Stride", next)?,
                        samples,
                        false,
                    )
                    .ok_or_else(|| config(next, "ZS MSAA mode not simulated"))?,
                });
            }
            if fbp::S_WRITE_ENABLE.get(&w) != 0 {
                // genxml "S Format" S8 (1) or X24S8 (4).
                let x24s8 = match field(zl, &z, "S Write Format", next)? {
                    1 => false,
                    4 => true,
                    _ => {
                        return Err(config(
                            next,
                            "S write format not simulated (S8 and X24S8 only)",
                        ));
                    }
                };
                fb.stencil = Some(StencilTarget {
                    x24s8,
                    block: Block::from_raw(field(zl, &z, "S Block Format", next)?)
                        .ok_or_else(|| config(next, "S block format not simulated"))?,
                    base: field(zl, &z, "S Writeback Base", next)?,
                    row_stride: field(zl, &z, "S Writeback Row Stride", next)?,
                    msaa: Msaa::from_raw(
                        field(zl, &z, "S MSAA", next)?,
                        field(zl, &z, "S Writeback Surface Stride", next)?,
                        samples,
                        false,
                    )
                    .ok_or_else(|| config(next, "S MSAA mode not simulated"))?,
                });
            }
            next += u64::from(zl.words) * 4;
        } else if fbp::Z_WRITE_ENABLE.get(&w) != 0 || fbp::S_WRITE_ENABLE.get(&w) != 0 {
            return Err(config(va, "Z/S write without a ZS CRC Extension"));
        }
        let rl = l.render_target;
        for i in 0..rt_count {
            let rva = next + i * u64::from(rl.words) * 4;
            let r = mmu.read_words(rva, rl.words as usize)?;
            if rl.check_reserved(&r).is_err() {
                return Err(config(rva, "reserved bits set in Render Target"));
            }
            let get = |p: &str| field(rl, &r, p, rva);
            // Internal R8G8B8A8 (1) → writeback R8 (16), R8G8 (17),
            // R8G8B8A8 (19), sRGB or not; R5G6B5A0 (5) → R5G6B5 (21);
            // R10G10B10A2 (2) → R10G10B10A2 (24) (Mesa's
            // `panfrost_blendable_formats`). Swizzle: 3-bit fields, R=0,
            // G=1, B=2, A=3 (identity 0o3210).
            // R4G4B4A4 (4) → R4G4B4A4 (20); R5G5B5A1 (6) → R5G5B5A1 (28).
            // RAW8 (32) … RAW128 (36) → writeback RAW8 (0), RAW16 (1),
            // RAW24 (2), RAW32 (3), RAW48 (4), RAW64 (5), RAW96 (6), RAW128
            // (7) whose size rounds up to the internal one (Mesa's
            // `pan_rt_init_format`), identity swizzle, no sRGB.
            let internal = get("Internal Format")?;
            let srgb = get("sRGB")? != 0;
            let format =
                match (internal, srgb) {
                    (32..=36, false) => TileFormat::Raw {
                        bytes: 1 << (internal - 32),
                    },
                    _ => TileFormat::Unorm(UnormFormat::from_internal(internal, srgb).ok_or_else(
                        || config(rva, "render target internal format not simulated"),
                    )?),
                };
            const RAW_BYTES: [u32; 8] = [1, 2, 3, 4, 6, 8, 12, 16];
            let writeback = match (get("Writeback Format")?, internal) {
                (w @ 0..=7, 32..=36)
                    if RAW_BYTES[w as usize].next_power_of_two() == 1 << (internal - 32) =>
                {
                    Writeback::Raw(RAW_BYTES[w as usize])
                }
                (20, 4) => Writeback::Packed16([4; 4]),
                (28, 6) => Writeback::Packed16([5, 5, 5, 1]),
                (16, 1) => Writeback::Bytes(1),
                (17, 1) => Writeback::Bytes(2),
                (19, 1) => Writeback::Bytes(4),
                (21, 5) => Writeback::R5G6B5,
                (24, 2) => Writeback::R10G10B10A2,
                _ => return Err(config(rva, "render target format not simulated")),
            };
            let raw_swizzle = get("Swizzle")?;
            let swizzle: [usize; 4] =
                std::array::from_fn(|i| (raw_swizzle >> (3 * i) & 7) as usize);
            if swizzle.iter().any(|&c| c > 3)
                || get("YUV Enable")? != 0
                || (matches!(format, TileFormat::Raw { .. }) && raw_swizzle != 0o3210)
            {
                return Err(config(rva, "render target swizzle not simulated"));
            }
            let clear = match format {
                TileFormat::Unorm(f) => f.unpack_clear(get("Clear.Color 0")? as u32),
                TileFormat::Raw { .. } => [
                    get("Clear.Color 0")? as u32,
                    get("Clear.Color 1")? as u32,
                    get("Clear.Color 2")? as u32,
                    get("Clear.Color 3")? as u32,
                ],
            };
            let msaa = Msaa::from_raw(
                get("Writeback MSAA")?,
                get("RGB.Surface Stride")?,
                samples,
                true,
            )
            .ok_or_else(|| config(rva, "render target MSAA mode not simulated"))?;
            if (srgb || matches!(format, TileFormat::Raw { .. })) && msaa == Msaa::Average {
                return Err(config(
                    rva,
                    "resolving an sRGB, float or integer target is not simulated",
                ));
            }
            fb.rts.push(RenderTarget {
                format,
                writeback,
                swizzle,
                write: get("Write Enable")? != 0,
                block: Block::from_raw(get("Writeback Block Format")?)
                    .ok_or_else(|| config(rva, "render target block format not simulated"))?,
                base: get("RGB.Base")?,
                row_stride: get("RGB.Row Stride")?,
                msaa,
                clear,
            });
        }
        Ok(fb)
    }
}

/// The tile buffer of one FRAGMENT job: what the hardware keeps on chip
/// while it renders, covering the whole framebuffer (tiles outside the
/// job's bounds are never touched).
#[derive(Clone, Debug)]
pub struct TileBuffer {
    pub width: u32,
    pub height: u32,
    /// Samples per pixel: every vector below holds pixel i's sample s at
    /// `i * samples + s` ([`TileBuffer::sample`]).
    pub samples: u32,
    /// Per render target, per sample: the channels' codes.
    pub colour: Vec<Vec<[u32; 4]>>,
    /// Per render target: what the words mean.
    pub formats: Vec<TileFormat>,
    pub depth: Vec<f32>,
    pub stencil: Vec<u8>,
}

impl TileBuffer {
    /// A tile buffer holding the clear values.
    pub fn cleared(fb: &Framebuffer) -> TileBuffer {
        let n = (fb.width as usize) * (fb.height as usize) * fb.samples as usize;
        TileBuffer {
            width: fb.width,
            height: fb.height,
            samples: fb.samples,
            colour: fb.rts.iter().map(|rt| vec![rt.clear; n]).collect(),
            formats: fb.rts.iter().map(|rt| rt.format).collect(),
            depth: vec![super::fragment::quantize_depth(fb.z_clear, fb.z_internal); n],
            stencil: vec![fb.s_clear; n],
        }
    }

    /// Pixel (x, y)'s index (its samples are at [`TileBuffer::sample`]).
    pub fn index(&self, x: u32, y: u32) -> Option<usize> {
        (x < self.width && y < self.height).then(|| y as usize * self.width as usize + x as usize)
    }

    /// Where sample `s` of pixel `i` is kept.
    pub fn sample(&self, i: usize, s: u32) -> usize {
        i * self.samples as usize + s as usize
    }

    /// Writes the pixels of `rect` (inclusive x0, y0, x1, y1) back to memory.
    pub fn write_back(&self, mmu: &Mmu, fb: &Framebuffer, rect: [u32; 4]) -> Result<(), JobFault> {
        let [x0, y0, x1, y1] = rect;
        let pixels = || (y0..=y1).flat_map(move |y| (x0..=x1).map(move |x| (x, y)));
        for (rt, colour) in fb.rts.iter().zip(&self.colour) {
            if !rt.write {
                continue;
            }
            for (surface, range) in rt.msaa.surfaces(self.samples) {
                let n = range.len() as u32;
                for (x, y) in pixels() {
                    let Some(i) = self.index(x, y) else { continue };
                    // The mean of the samples, rounded to nearest, ties up.
                    let mut sum = [0u32; 4];
                    for s in range.clone() {
                        for (acc, v) in sum.iter_mut().zip(colour[self.sample(i, s)]) {
                            *acc += v;
                        }
                    }
                    let pixel = sum.map(|v| (v + n / 2) / n);
                    let memory = rt.swizzle.map(|c| pixel[c]);
                    let bytes = rt.writeback.bytes();
                    let off = rt.block.offset(x, y, rt.row_stride, bytes);
                    mmu.write(
                        rt.base.wrapping_add(surface).wrapping_add(off),
                        &rt.writeback.pack(memory),
                    )?;
                }
            }
        }
        if let Some(d) = fb.depth {
            for (surface, range) in d.msaa.surfaces(self.samples) {
                for (x, y) in pixels() {
                    let Some(i) = self.index(x, y) else { continue };
                    // Single or Layered: one sample per surface.
                    let z = self.depth[self.sample(i, range.start)];
                    let zc = z.clamp(0.0, 1.0);
                    let (bytes, bpp): (Vec<u8>, u64) = match d.format {
                        DepthFormat::D32 => (z.to_le_bytes().to_vec(), 4),
                        DepthFormat::D24X8 => {
                            let v = (f64::from(zc) * f64::from((1u32 << 24) - 1)).round() as u32;
                            (v.to_le_bytes().to_vec(), 4)
                        }
                        DepthFormat::D16 => {
                            let v = (f64::from(zc) * 65535.0).round() as u16;
                            (v.to_le_bytes().to_vec(), 2)
                        }
                    };
                    let off = d.block.offset(x, y, d.row_stride, bpp);
                    let bytes = if d.keeps_stencil_byte {
                        &bytes[..3]
                    } else {
                        &bytes[..]
                    };
                    mmu.write(d.base.wrapping_add(surface).wrapping_add(off), bytes)?;
                }
            }
        }
        if let Some(st) = fb.stencil {
            for (surface, range) in st.msaa.surfaces(self.samples) {
                for (x, y) in pixels() {
                    let Some(i) = self.index(x, y) else { continue };
                    let off = if st.x24s8 {
                        st.block.offset(x, y, st.row_stride, 4) + 3
                    } else {
                        st.block.offset(x, y, st.row_stride, 1)
                    };
                    mmu.write(
                        st.base.wrapping_add(surface).wrapping_add(off),
                        &[self.stencil[self.sample(i, range.start)]],
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// UNORM8 → float.
pub fn unorm8(v: u8) -> f32 {
    f32::from(v) / 255.0
}

/// Float → UNORM8: clamp to [0, 1], round to nearest (Vulkan's
/// float-to-normalized conversion; NaN becomes 0).
pub fn to_unorm8(v: f32) -> u8 {
    let c = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    (c * 255.0).round() as u8
}

/// One blend function of a fixed-function blend equation (genxml "Blend
/// Function"): the hardware computes `±A + ±B × C'` per channel, where
/// A ∈ {0, src, dst}, B ∈ {src − dst, src + dst, src, dst} and C' is C or
/// (Invert C) 1 − C, C ∈ {0, src, dst, 2·src ("Src x 2"), src α, dst α,
/// constant}. (The reading of the fields as that formula is Mesa's
/// `pan_blend.c`, which maps every Vulkan blend equation it can onto it;
/// "Src x 2" is its `src·dst + dst·src = dst × (2·src)`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlendFunction {
    pub a: u64,
    pub negate_a: bool,
    pub b: u64,
    pub negate_b: bool,
    pub c: u64,
    pub invert_c: bool,
}

impl BlendFunction {
    /// Unpacks a 12-bit Blend Function.
    pub fn unpack(raw: u64) -> BlendFunction {
        use crate::hw::blend::blend_function as bf;
        let w = [raw as u32];
        BlendFunction {
            a: bf::A.get(&w),
            negate_a: bf::NEGATE_A.get(&w) != 0,
            b: bf::B.get(&w),
            negate_b: bf::NEGATE_B.get(&w) != 0,
            c: bf::C.get(&w),
            invert_c: bf::INVERT_C.get(&w) != 0,
        }
    }

    /// Whether every operand is one this model computes.
    pub fn supported(&self) -> bool {
        matches!(self.a, 1..=3) && self.b <= 3 && matches!(self.c, 1..=7)
    }

    /// Blends one channel: `src`/`dst` the channel, `src_a`/`dst_a` the
    /// alphas, `constant` the blend constant's channel.
    pub fn apply(&self, src: f32, dst: f32, src_a: f32, dst_a: f32, constant: f32) -> f32 {
        let a = match self.a {
            2 => src,
            3 => dst,
            _ => 0.0,
        };
        let b = match self.b {
            0 => src - dst,
            1 => src + dst,
            2 => src,
            _ => dst,
        };
        let c = match self.c {
            2 => src,
            3 => dst,
            4 => 2.0 * src,
            5 => src_a,
            6 => dst_a,
            7 => constant,
            _ => 0.0,
        };
        let c = if self.invert_c { 1.0 - c } else { c };
        let a = if self.negate_a { -a } else { a };
        let b = if self.negate_b { -b } else { b };
        a + b * c
    }
}

/// A render target's blend state as the BLEND instruction applies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlendMode {
    /// Source replaces destination (`Mode: Opaque`).
    Opaque,
    /// `Mode: Fixed-Function`: `rgb`/`alpha` equations, colour write mask.
    FixedFunction {
        rgb: BlendFunction,
        alpha: BlendFunction,
        mask: u8,
        /// `Constant`: a UNORM of the target's channel size in the top
        /// bits (Mesa's reading, `pan_pack_blend_constant`; R8G8B8A8: the
        /// top 8 bits).
        constant: u16,
        /// `Alpha Zero NOP`: a source alpha of 0 writes nothing.
        alpha_zero_nop: bool,
        /// `Alpha One Store`: a source alpha of 1 stores the source.
        alpha_one_store: bool,
    },
}

/// Blends `src` (floats as the shader wrote them) into `dst` (codes of
/// `format`): sources clamped for a UNORM target, the destination decoded
/// (sRGB linearized), the equation in f32, the result encoded.
pub fn blend_unorm(
    mode: &BlendMode,
    src: [f32; 4],
    dst: [u32; 4],
    format: UnormFormat,
) -> [u32; 4] {
    match mode {
        BlendMode::Opaque => format.encode(src),
        BlendMode::FixedFunction {
            rgb,
            alpha,
            mask,
            constant,
            alpha_zero_nop,
            alpha_one_store,
        } => {
            // Source colours are clamped for a UNORM target before blending
            // (Vulkan: "if the colour attachment is fixed-point, the
            // components of the source and destination values ... are each
            // clamped to [0,1]").
            let s = src.map(|v| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) });
            // The shortcuts look at the clamped source alpha (our reading:
            // they are the hints Mesa derives from the equation, exact
            // whenever the driver sets them as Mesa does).
            if *alpha_zero_nop && s[3] == 0.0 {
                return dst;
            }
            if *alpha_one_store && s[3] == 1.0 {
                return format.encode(s);
            }
            let d = format.decode(dst);
            // `Constant`: a UNORM of the widest channel's size in the top
            // bits (Mesa's `pan_pack_blend_constant` takes channel 0's).
            let k_bits = format.bits[0];
            let k = f32::from(*constant >> (16 - k_bits)) / ((1u32 << k_bits) - 1) as f32;
            let mut out = d;
            for ch in 0..4 {
                if mask & (1 << ch) == 0 {
                    continue;
                }
                let f = if ch == 3 { alpha } else { rgb };
                out[ch] = f.apply(s[ch], d[ch], s[3], d[3], k);
            }
            let coded = format.encode(out);
            std::array::from_fn(|ch| {
                if mask & (1 << ch) != 0 {
                    coded[ch]
                } else {
                    dst[ch]
                }
            })
        }
    }
}

/// [`blend_unorm`] for R8G8B8A8.
pub fn blend_rgba8(mode: &BlendMode, src: [f32; 4], dst: [u8; 4]) -> [u8; 4] {
    blend_unorm(mode, src, dst.map(u32::from), UnormFormat::RGBA8).map(|v| v as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u_interleaved_matches_the_documented_bit_pattern() {
        // Index bits: 2k+1 = y_k, 2k = x_k ^ y_k.
        assert_eq!(u_interleaved_offset(0, 0, 4096, 4), 0);
        assert_eq!(u_interleaved_offset(1, 0, 4096, 4), 4); // i = 1
        assert_eq!(u_interleaved_offset(0, 1, 4096, 4), 3 * 4); // i = 0b11
        assert_eq!(u_interleaved_offset(1, 1, 4096, 4), 2 * 4); // i = 0b10
        assert_eq!(u_interleaved_offset(15, 15, 4096, 4), 0b1010_1010 * 4);
        // Next tile to the right, next tile row.
        assert_eq!(u_interleaved_offset(16, 0, 4096, 4), 256 * 4);
        assert_eq!(u_interleaved_offset(0, 16, 4096, 4), 4096);
        assert_eq!(
            u_interleaved_offset(17, 33, 4096, 2),
            2 * 4096 + (256 + 2) * 2
        );
        // Every pixel of a tile lands on its own slot.
        let mut seen = [false; 256];
        for y in 0..16 {
            for x in 0..16 {
                let i = (u_interleaved_offset(x, y, 0, 1)) as usize;
                assert!(!seen[i]);
                seen[i] = true;
            }
        }
    }

    fn f(a: u64, b: u64, c: u64, invert_c: bool) -> BlendFunction {
        BlendFunction {
            a,
            negate_a: false,
            b,
            negate_b: false,
            c,
            invert_c,
        }
    }

    #[test]
    fn blend_equations_follow_a_plus_b_times_c() {
        // Opaque as fixed function: A = Src, B = Src, C = Zero.
        let opaque = f(2, 2, 1, false);
        assert_eq!(opaque.apply(0.25, 0.75, 0.5, 1.0, 0.0), 0.25);
        // SRC_ALPHA / ONE_MINUS_SRC_ALPHA: A = Dest, B = Src − Dest, C = Src α.
        let over = f(3, 0, 5, false);
        let (s, d, a) = (0.8f32, 0.2f32, 0.25f32);
        assert!((over.apply(s, d, a, 1.0, 0.0) - (s * a + d * (1.0 - a))).abs() < 1e-6);
        // ONE / ONE additive: A = Src, B = Dest, C = Zero inverted (= 1).
        let add = f(2, 3, 1, true);
        assert!((add.apply(0.3, 0.4, 0.0, 0.0, 0.0) - 0.7).abs() < 1e-6);
        // Reverse subtract dst − src: A = Dest, B = Src, C = 1, B negated.
        let mut rsub = f(3, 2, 1, true);
        rsub.negate_b = true;
        assert!((rsub.apply(0.3, 0.5, 0.0, 0.0, 0.0) - 0.2).abs() < 1e-6);
        // Through the RGBA8 path, with the write mask and clamping.
        let mode = BlendMode::FixedFunction {
            rgb: over,
            alpha: over,
            mask: 0b0111,
            constant: 0,
            alpha_zero_nop: false,
            alpha_one_store: false,
        };
        let out = blend_rgba8(&mode, [1.5, 0.0, 0.5, 0.5], [0, 255, 100, 7]);
        assert_eq!(out, [128, 128, 114, 7]);
        assert_eq!(
            blend_rgba8(&BlendMode::Opaque, [2.0, -1.0, 0.5, f32::NAN], [9; 4]),
            [255, 0, 128, 0]
        );
        // 0 + Dest × (Src x 2) = 2·s·d; the constant is the top 8 bits.
        let twice = f(1, 3, 4, false);
        assert!((twice.apply(0.25, 0.5, 0.0, 0.0, 0.0) - 0.25).abs() < 1e-6);
        let konst = |c: u16| BlendMode::FixedFunction {
            rgb: f(1, 2, 7, false),
            alpha: f(1, 2, 7, false),
            mask: 15,
            constant: c,
            alpha_zero_nop: false,
            alpha_one_store: false,
        };
        assert_eq!(
            blend_rgba8(&konst(51 << 8 | 0xff), [1.0; 4], [0; 4]),
            [51; 4]
        );
        // The shortcuts: alpha 0 keeps the destination, alpha 1 stores.
        let hinted = BlendMode::FixedFunction {
            rgb: f(2, 3, 1, true),
            alpha: f(2, 3, 1, true),
            mask: 15,
            constant: 0,
            alpha_zero_nop: true,
            alpha_one_store: true,
        };
        assert_eq!(blend_rgba8(&hinted, [0.5, 0.5, 0.5, 0.0], [9; 4]), [9; 4]);
        assert_eq!(
            blend_rgba8(&hinted, [0.5, 0.5, 0.5, 1.0], [9; 4]),
            [128, 128, 128, 255]
        );
    }
}
