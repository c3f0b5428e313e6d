//! A render pass instance's framebuffer as a FRAGMENT job reads it: the
//! "Framebuffer" (parameters + padding), the optional "ZS CRC Extension",
//! one "Render Target" per colour attachment, the "Tiler Context" and
//! "Tiler Heap" the vertex/tiler side fills, and the FRAGMENT job whose
//! payload carries the tagged "Framebuffer pointer" (genxml v6.xml/v7.xml).
//!
//! Field choices follow what PanVk writes on a G52 for the same render
//! pass (Mesa `src/panfrost/lib/pan_desc.c`, `pan_emit_fbd` and friends):
//! 16×16-pixel tiles (`Effective Tile Size` 256), the colour buffer
//! allocation rounded up to 1 KiB, single-sampled sample pattern with the
//! sample locations table of [`SampleLocations`], tie-break rule
//! `MINUS_180_IN_0_OUT`, pre/post frame shaders "Never", every enabled
//! colour target written back with clean-pixel write enabled.
//! `tests/jm_framebuffer.rs` compares the words with PanVk's for the
//! reference render passes.
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

/// Bytes of tile buffer the colour targets may take per 16×16 tile. Mesa
/// shrinks the tile when more is needed (`pan_select_tile_size`); we do not
/// yet, so a larger format set is refused (16 bytes per pixel: four RGBA8
/// targets, or one RGBA32F).
pub const MAX_COLOR_BUFFER_ALLOCATION: u32 = 4096;

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

/// Colour formats a render target can be written back in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorFormat {
    /// `VK_FORMAT_R8G8B8A8_UNORM`: internal R8G8B8A8, written back R8G8B8A8.
    Rgba8Unorm,
    /// `VK_FORMAT_R8_UNORM`: internal R8G8B8A8, written back R8 (Mesa's
    /// `panfrost_blendable_formats`, `src/panfrost/lib/pan_format.c`).
    R8Unorm,
    /// `VK_FORMAT_R8G8_UNORM`: internal R8G8B8A8, written back R8G8.
    Rg8Unorm,
}

impl ColorFormat {
    /// Bytes per pixel in the tile buffer (the internal format).
    pub const fn bytes_per_pixel(self) -> u32 {
        4
    }

    /// Bytes per pixel in memory (the writeback format).
    pub const fn memory_bytes_per_pixel(self) -> u32 {
        self.components()
    }

    /// Components of the format (R, RG or RGBA); a format without alpha
    /// reads its destination alpha as 1 when blending.
    pub const fn components(self) -> u32 {
        match self {
            ColorFormat::Rgba8Unorm => 4,
            ColorFormat::R8Unorm => 1,
            ColorFormat::Rg8Unorm => 2,
        }
    }

    /// (`Internal Format`, `Writeback Format`, `Swizzle`) raw values.
    fn raw(self) -> (u64, u64, u64) {
        // genxml "Color Buffer Internal Format" R8G8B8A8 = 1, "Color
        // Format" R8 = 16, R8G8 = 17, R8G8B8A8 = 19 (v6.xml/v7.xml);
        // swizzle RGBA = R | G << 3 | B << 6 | A << 9 (the writeback keeps
        // the leading channels).
        let writeback = match self {
            ColorFormat::Rgba8Unorm => 19,
            ColorFormat::R8Unorm => 16,
            ColorFormat::Rg8Unorm => 17,
        };
        (1, writeback, 0x688)
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
    /// The clear colour as the four `Clear` words (the value packed in the
    /// internal format: RGBA8 repeats its 32-bit pixel), or `None` to load
    /// nothing (the targets start undefined: we have no preload yet).
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
}

impl DepthFormat {
    /// (`Z Internal Format`, `ZS Write Format`) raw values.
    fn raw(self) -> (u64, u64) {
        match self {
            DepthFormat::D32 => (2, 14),
            DepthFormat::D24X8 => (1, 4),
            DepthFormat::D16 => (0, 1),
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
    pub colors: &'a [ColorTarget],
    pub depth: Option<DepthTarget>,
    /// GPU VA of the tiler context ([`write_tiler_context`]).
    pub tiler_context: u64,
    /// GPU VA of the sample locations table ([`SampleLocations`]).
    pub sample_locations: u64,
}

/// The sample locations table a framebuffer points at: signed 16-bit
/// (x, y) pairs in 1/256 pixel with (128, 128) the pixel centre, 33 pairs
/// (as the table Mesa builds in `src/panfrost/lib/pan_samples.c`); for one
/// sample per pixel, the centre first and last and zero between.
pub struct SampleLocations;

impl SampleLocations {
    pub const PAIRS: usize = 33;

    /// The single-sampled table's words.
    pub fn single_sampled() -> [u32; Self::PAIRS] {
        let centre = 128u32 | 128 << 16;
        let mut w = [0u32; Self::PAIRS];
        w[0] = centre;
        w[Self::PAIRS - 1] = centre;
        w
    }
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
/// tiler context for a `width`×`height` framebuffer; returns the context's
/// GPU VA (what tiler/IDVS jobs and the framebuffer point at).
pub fn write_tiler_context(
    pool: &mut GpuPool,
    width: u32,
    height: u32,
    heap_base: u64,
    heap_size: u64,
) -> JmResult<u64> {
    check_size(width, height)?;
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
    let has_zs = fb.depth.is_some() || zs_options.stencil.is_some();
    check_size(fb.width, fb.height)?;
    if fb.colors.is_empty() || fb.colors.len() > 8 {
        return Err(JmError::Encoding(
            "a framebuffer has 1 to 8 render targets (an unused one is write-disabled)",
        ));
    }
    let bytes_per_pixel: u32 = fb.colors.iter().map(|c| c.format.bytes_per_pixel()).sum();
    let allocation = (bytes_per_pixel * TILE_SIZE * TILE_SIZE).next_multiple_of(1024);
    if allocation > MAX_COLOR_BUFFER_ALLOCATION {
        return Err(JmError::Encoding(
            "colour targets need more tile buffer than 16x16 tiles allow",
        ));
    }

    let params = &fbd::FRAMEBUFFER_PARAMETERS;
    let mut p = params.defaults();
    use fbd::framebuffer_parameters as fp;
    put(&mut p, fp::SAMPLE_LOCATIONS, fb.sample_locations)?;
    put(&mut p, fp::WIDTH, u64::from(fb.width))?;
    put(&mut p, fp::HEIGHT, u64::from(fb.height))?;
    put(&mut p, fp::BOUND_MAX_X, u64::from(fb.width - 1))?;
    put(&mut p, fp::BOUND_MAX_Y, u64::from(fb.height - 1))?;
    put(&mut p, fp::SAMPLE_COUNT, 1)?;
    // genxml "Tie-Break Rule" MINUS_180_IN_0_OUT, PanVk's choice.
    put(&mut p, fp::TIE_BREAK_RULE, 2)?;
    put(
        &mut p,
        fp::EFFECTIVE_TILE_SIZE,
        u64::from(TILE_SIZE * TILE_SIZE),
    )?;
    put(&mut p, fp::RENDER_TARGET_COUNT, fb.colors.len() as u64)?;
    put(&mut p, fp::COLOR_BUFFER_ALLOCATION, u64::from(allocation))?;
    put(&mut p, fp::TILER, fb.tiler_context)?;
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
        // genxml "S Format" S8 = 1.
        set(zs, &mut z, "S Write Format", 1)?;
        let sblock = if st.write { st.block.raw() } else { 0 };
        set(zs, &mut z, "S Block Format", sblock)?;
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
        set(rt_layout, &mut r, "Dithering Enable", 1)?;
        set(rt_layout, &mut r, "Swizzle", swizzle)?;
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
        offset += c.format.bytes_per_pixel() * TILE_SIZE * TILE_SIZE;
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
