//! Colour preload (Vulkan's `VK_ATTACHMENT_LOAD_OP_LOAD`): the Draw a
//! FRAGMENT job runs over every pixel of each tile before the tile's
//! primitives, so that the tile buffer starts with the attachments'
//! current contents.
//!
//! The framebuffer's `Frame Shader DCDs` points at three Draw descriptors,
//! one per frame shader (pre-frame 0, pre-frame 1, post-frame), each
//! enabled by its mode in the framebuffer parameters (genxml v6.xml/v7.xml
//! "Pre Post Frame Shader Mode"; Mesa allocates the same three per layer
//! and writes the colour preload at index 0 and the depth/stencil one at 1,
//! `src/panfrost/vulkan/panvk_vX_cmd_fb_preload.c`). We write the colour
//! one at index 0 and
//! [`super::framebuffer::write_framebuffer_preloaded`] enables it with mode
//! "Always": every tile is preloaded whether or not a primitive touches it.
//! (PanVk chooses "Intersect", which preloads only tiles some primitive
//! covers, together with the Draw's `Clean Fragment Write`; our render
//! targets write every tile back (`Clean Pixel Write Enable`), so a tile
//! left unloaded would be written back from an undefined tile buffer.)
//!
//! The Draw: the preload shader of `compiler::kernels::preload` (texel
//! fetch of texture n at the pixel, to colour output n), compiled once per
//! pool for each combination of loaded targets' types and uploaded to the
//! pool's code; a Renderer State as Mesa's for a colour preload (early
//! pixel kill and ZS update, depth function Always without writes, no
//! stencil, sample mask all ones), one Blend descriptor per render target
//! (Opaque with the target's conversion for a loaded target; disabled for
//! the others); a Textures table whose entry n reads target n's memory
//! (its format, Linear or Tiled, one level) and one nearest sampler (Mesa
//! writes one; the fetch reads none); a Viewport whose scissor is the
//! framebuffer; thread storage.
//!
//! Depth (a D32 target): the depth preload ([`write_preload`]) at index 1,
//! enabled as pre-frame shader 1 "Always": a fragment shader writing
//! `gl_FragDepth` from a fetch of the depth surface read as R32F, with late
//! ZS update, depth function Always and the depth write on (Mesa's Z/S
//! preload state; Mesa enables it with "Early ZS always" on v7, which we
//! neither emit nor simulate). Stencil is not loaded.
//!
//! Single-sampled framebuffers only: a multisampled preload (a fetch per
//! sample) is refused with [`JmError`]. This module encodes what it is given; which attachments load is
//! `vk/`'s business.

use std::sync::Arc;

use super::error::{JmError, JmResult};
use super::framebuffer::{
    BlockFormat, ColorFormat, ColorKind, ColorTarget, DepthTarget, Framebuffer,
};
use super::graphics::{
    Blend, ColorTargetState, blend_words_with, put, set, set_v7_shader_properties,
};
use super::pool::GpuPool;
use super::texture::{
    MAX_MIP_LEVELS, MipLevel, SamplerDesc, SamplerLod, TexelFormat, TexelLayout, TextureDesc,
    TextureDim, WrapMode, write_texture_tables,
};
use crate::compiler::bifrost::binary::{BlendRegisterFormat, ShaderBinary};
use crate::compiler::bifrost::{self, Options};
use crate::compiler::ir::SampledType;
use crate::compiler::kernels::preload::{preload_colors, preload_depth};
use crate::hw::draw::{dcd, viewport as vp};
use crate::hw::shader::{
    fragment_preload as fpl, multisample_misc as msm, renderer_state as rs,
    stencil_mask_misc as smm,
};
use crate::hw::{Arch, layouts};

/// Frame shader Draw descriptors the framebuffer's `Frame Shader DCDs`
/// points at: pre-frame 0, pre-frame 1, post-frame.
pub const FRAME_SHADER_DCDS: u64 = 3;

/// The preload shader compiled for one combination of loaded targets.
#[derive(Clone, Debug)]
pub struct PreloadShader {
    pub binary: Arc<ShaderBinary>,
    /// GPU VA of its code.
    pub code: u64,
}

/// The texel format a colour target's memory is read as, `None` when the
/// texture path has none for it.
pub fn texel_format(f: ColorFormat) -> Option<TexelFormat> {
    use ColorFormat as C;
    use TexelFormat as T;
    Some(match f {
        C::Rgba8Unorm => T::Rgba8Unorm,
        C::Rgba8Srgb => T::Rgba8Srgb,
        C::R8Unorm => T::R8Unorm,
        C::Rg8Unorm => T::Rg8Unorm,
        C::Bgra8Unorm => T::Bgra8Unorm,
        C::A2b10g10r10UnormPack32 => T::A2b10g10r10UnormPack32,
        C::R5g6b5UnormPack16 => T::R5g6b5UnormPack16,
        C::Rgba16Sfloat => T::Rgba16Sfloat,
        C::Rgba32Sfloat => T::Rgba32Sfloat,
        C::R16Sfloat => T::R16Sfloat,
        C::Rg16Sfloat => T::Rg16Sfloat,
        C::R32Sfloat => T::R32Sfloat,
        C::Rg32Sfloat => T::Rg32Sfloat,
        C::R8Snorm => T::R8Snorm,
        C::Rg8Snorm => T::Rg8Snorm,
        C::Rgba8Snorm => T::Rgba8Snorm,
        C::B10g11r11UfloatPack32 => T::B10g11r11UfloatPack32,
        C::Rgba8Uint => T::Rgba8Uint,
        C::Rgba8Sint => T::Rgba8Sint,
        C::Rg16Uint => T::Rg16Uint,
        C::Rg16Sint => T::Rg16Sint,
        C::R32Uint => T::R32Uint,
        C::R32Sint => T::R32Sint,
        _ => return None,
    })
}

/// What the shader reads a target's texels as and hands its BLEND.
fn sampled_type(f: ColorFormat) -> (SampledType, BlendRegisterFormat) {
    match f.kind() {
        ColorKind::Uint => (SampledType::Uint, BlendRegisterFormat::U32),
        ColorKind::Sint => (SampledType::Sint, BlendRegisterFormat::S32),
        _ => (SampledType::Float, BlendRegisterFormat::F32),
    }
}

/// The preload shader for `types` (index n: render target n), compiled and
/// uploaded the first time this pool needs it.
pub fn preload_shader(
    pool: &mut GpuPool,
    arch: Arch,
    types: &[Option<SampledType>],
) -> JmResult<PreloadShader> {
    compile_cached(pool, arch, format!("preload {arch:?} {types:?}"), || {
        preload_colors(types)
    })
}

/// The depth preload shader, compiled and uploaded once per pool.
pub fn depth_preload_shader(pool: &mut GpuPool, arch: Arch) -> JmResult<PreloadShader> {
    compile_cached(pool, arch, format!("preload depth {arch:?}"), preload_depth)
}

fn compile_cached(
    pool: &mut GpuPool,
    arch: Arch,
    key: String,
    build: impl FnOnce() -> crate::compiler::ir::Shader,
) -> JmResult<PreloadShader> {
    if let Some(s) = pool.preload_cache.get(&key) {
        return Ok(s.clone());
    }
    let shader = build();
    let binary = bifrost::compile(
        &shader,
        Options {
            arch: arch.into(),
            push_uniform_words: Some(0),
            ubo_table: false,
        },
    )
    .map_err(|e| {
        log::error!("preload shader: {e}");
        JmError::Encoding("preload shader compilation failed")
    })?;
    let code = pool.upload_code(&binary.code)?;
    let s = PreloadShader {
        binary: Arc::new(binary),
        code,
    };
    pool.preload_cache.insert(key, s.clone());
    Ok(s)
}

/// The texture reading colour target `c` of a `width`×`height` framebuffer.
fn target_texture(c: &ColorTarget, width: u32, height: u32) -> JmResult<TextureDesc> {
    let format = texel_format(c.format).ok_or(JmError::Encoding(
        "loading a colour target of a format the texture path does not read",
    ))?;
    Ok(TextureDesc {
        address: c.base,
        width,
        height,
        row_stride: c.row_stride,
        layout: match c.block {
            BlockFormat::Linear => TexelLayout::Linear,
            BlockFormat::TiledUInterleaved => TexelLayout::Tiled,
        },
        format,
        layers: 1,
        layer_stride: 0,
        dim: TextureDim::D2,
        levels: 1,
        mips: [MipLevel::default(); MAX_MIP_LEVELS],
    })
}

/// Writes the frame shader Draw descriptors with the colour preload of the
/// targets whose `load` is set (index n: `fb.colors[n]`) at index 0, the
/// other two zero; returns their GPU VA (the framebuffer's `Frame Shader
/// DCDs`). `load` has one entry per colour target and at least one set.
pub fn write_color_preload(
    pool: &mut GpuPool,
    arch: Arch,
    fb: &Framebuffer<'_>,
    load: &[bool],
) -> JmResult<u64> {
    let colour = color_draw(pool, arch, fb, load)?;
    write_dcds(pool, [Some(colour), None, None])
}

/// [`write_color_preload`] with, when `depth` is set, the depth preload at
/// index 1 (pre-frame shader 1: `gl_FragDepth` fetched from the depth
/// target, a D32 surface read as R32F, written with ZS_EMIT under late
/// depth updates, depth function Always). Either may be absent (`load`
/// all false, `depth` None), not both. Returns the DCDs' VA.
pub fn write_preload(
    pool: &mut GpuPool,
    arch: Arch,
    fb: &Framebuffer<'_>,
    load: &[bool],
    depth: Option<&DepthTarget>,
) -> JmResult<u64> {
    let colour = if load.iter().any(|&l| l) {
        Some(color_draw(pool, arch, fb, load)?)
    } else {
        None
    };
    let depth = match depth {
        Some(d) => Some(depth_draw(pool, arch, fb, d)?),
        None => None,
    };
    if colour.is_none() && depth.is_none() {
        return Err(JmError::Encoding("a preload loads something"));
    }
    write_dcds(pool, [colour, depth, None])
}

/// The three frame shader Draws (absent ones zero).
fn write_dcds(pool: &mut GpuPool, draws: [Option<Vec<u32>>; 3]) -> JmResult<u64> {
    let draw_bytes = draws
        .iter()
        .flatten()
        .map(|d| 4 * d.len() as u64)
        .next()
        .ok_or(JmError::Encoding("a preload loads something"))?;
    let dcds = pool.alloc(FRAME_SHADER_DCDS * draw_bytes, 64)?;
    dcds.zero(0, FRAME_SHADER_DCDS * draw_bytes);
    for (i, d) in draws.iter().enumerate() {
        if let Some(d) = d {
            dcds.write_words(i as u64 * draw_bytes, d);
        }
    }
    Ok(dcds.gpu_va)
}

/// The sampler of every preload (Mesa writes one nearest sampler; the
/// fetches read none).
const NEAREST: SamplerDesc = SamplerDesc {
    linear: false,
    wrap: [WrapMode::ClampToEdge; 2],
    border: [0.0; 4],
    lod: SamplerLod {
        min_linear: None,
        mipmap: super::texture::MipmapMode::Nearest,
        min_lod: 0.0,
        max_lod: 0.0,
        bias: 0.0,
        compare: None,
        wrap_r: None,
    },
};

/// A preload Renderer State's words: the shader, its counts and
/// preloads, sample mask all ones, depth function Always, no stencil, and
/// for a depth preload (`depth`) the depth from the shader with late
/// pixel kill and ZS update and the depth write on (Mesa's choices for its
/// Z/S preload: "Writing Z/S requires late updates", and no forward pixel
/// kill); for colour early kill and update (Mesa: "Skipping ATEST requires
/// forcing Z/S"), which may kill and, on v6, be killed.
fn preload_rsd(
    arch: Arch,
    shader: &PreloadShader,
    texture_count: u32,
    sampler_count: u32,
    depth: bool,
) -> JmResult<Vec<u32>> {
    let b = &shader.binary;
    let fs = b.fragment.as_ref().ok_or(JmError::Encoding(
        "the preload shader is not a fragment shader",
    ))?;
    let l = layouts(arch);
    let layout = l.renderer_state;
    let mut w = layout.defaults();
    put(&mut w, rs::SHADER_ADDRESS, shader.code)?;
    put(
        &mut w,
        rs::PRELOAD_UNIFORM_COUNT,
        u64::from(b.uniform_words),
    )?;
    put(&mut w, rs::TEXTURE_COUNT, u64::from(texture_count))?;
    put(&mut w, rs::SAMPLER_COUNT, u64::from(sampler_count))?;
    let props = |name: &str| format!("Properties.{name}");
    // genxml "Depth Source": Fixed function 2, Shader 3; "Pixel Kill":
    // Force Early 0, Force Late 3.
    let (source, kill) = if depth { (3, 3) } else { (2, 0) };
    set(layout, &mut w, &props("Depth source"), source)?;
    set(layout, &mut w, &props("Pixel kill operation"), kill)?;
    set(layout, &mut w, &props("ZS update operation"), kill)?;
    set(
        layout,
        &mut w,
        &props("Allow forward pixel to kill"),
        u64::from(!depth),
    )?;
    set(
        layout,
        &mut w,
        &props("Allow forward pixel to be killed"),
        u64::from(arch == Arch::V6 && !depth),
    )?;
    if depth {
        set(layout, &mut w, &props("Shader modifies coverage"), 1)?;
    }
    if arch == Arch::V7 {
        set_v7_shader_properties(layout, &mut w, b, fs)?;
    }
    let mut ms = [0u32];
    put(&mut ms, msm::SAMPLE_MASK, 0xffff)?;
    // genxml "Function" Always (7).
    put(&mut ms, msm::DEPTH_FUNCTION, 7)?;
    put(&mut ms, msm::DEPTH_WRITE_MASK, u64::from(depth))?;
    put(&mut w, rs::MULTISAMPLE_MISC, u64::from(ms[0]))?;
    let mut sm = [0u32];
    put(&mut sm, smm::ALPHA_TEST_COMPARE_FUNCTION, 7)?;
    put(&mut sm, smm::STENCIL_MASK_FRONT, 0xff)?;
    put(&mut sm, smm::STENCIL_MASK_BACK, 0xff)?;
    put(&mut w, rs::STENCIL_MASK_MISC, u64::from(sm[0]))?;
    let p = fs.preloads;
    for (f, on) in [
        (fpl::COVERAGE, p.coverage),
        (fpl::PRIMITIVE_FLAGS, p.primitive_flags),
        (fpl::FRAGMENT_POSITION, p.fragment_position),
        (fpl::SAMPLE_MASK_ID, p.sample_mask_id),
    ] {
        put(&mut w, f.at(rs::PRELOAD.start), u64::from(on))?;
    }
    Ok(w)
}

/// A frame shader Draw's words: its Renderer State, texture and sampler
/// tables, a Viewport whose scissor is the framebuffer (depth range 0..1),
/// thread storage for its shader.
fn preload_draw(
    pool: &mut GpuPool,
    arch: Arch,
    fb: &Framebuffer<'_>,
    state: u64,
    tables: &super::texture::TextureTables,
    tls: u32,
) -> JmResult<Vec<u32>> {
    let l = layouts(arch);
    let mut v = l.viewport.defaults();
    put(&mut v, vp::SCISSOR_MAXIMUM_X, u64::from(fb.width - 1))?;
    put(&mut v, vp::SCISSOR_MAXIMUM_Y, u64::from(fb.height - 1))?;
    put(&mut v, vp::MINIMUM_Z, u64::from(0.0f32.to_bits()))?;
    put(&mut v, vp::MAXIMUM_Z, u64::from(1.0f32.to_bits()))?;
    let viewport = pool.alloc(4 * v.len() as u64, 64)?;
    viewport.write_words(0, &v);
    let mut d = l.draw.defaults();
    put(&mut d, dcd::STATE, state)?;
    put(&mut d, dcd::TEXTURES, tables.textures)?;
    put(&mut d, dcd::SAMPLERS, tables.samplers)?;
    put(&mut d, dcd::VIEWPORT, viewport.gpu_va)?;
    let storage = super::graphics::thread_storage(pool, arch, tls)?;
    put(&mut d, dcd::THREAD_STORAGE, storage)?;
    Ok(d)
}

fn check_preloadable(fb: &Framebuffer<'_>) -> JmResult<()> {
    if fb.samples != 1 {
        return Err(JmError::Encoding(
            "preloading a multisampled framebuffer is not encoded",
        ));
    }
    if fb.colors.is_empty() {
        return Err(JmError::Encoding("a framebuffer without colour targets"));
    }
    Ok(())
}

/// The colour preload's Draw words.
fn color_draw(
    pool: &mut GpuPool,
    arch: Arch,
    fb: &Framebuffer<'_>,
    load: &[bool],
) -> JmResult<Vec<u32>> {
    if load.len() != fb.colors.len() || !load.iter().any(|&l| l) {
        return Err(JmError::Encoding(
            "a preload names each colour target and loads at least one",
        ));
    }
    check_preloadable(fb)?;
    let mut textures = Vec::with_capacity(load.len());
    let mut types = Vec::with_capacity(load.len());
    for (c, &l) in fb.colors.iter().zip(load) {
        if l {
            if c.clear.is_some() {
                return Err(JmError::Encoding(
                    "a loaded colour target has a clear colour",
                ));
            }
            textures.push(Some(target_texture(c, fb.width, fb.height)?));
            types.push(Some(sampled_type(c.format).0));
        } else {
            textures.push(None);
            types.push(None);
        }
    }
    let tables = write_texture_tables(pool, arch, &textures, &[Some(NEAREST)])?;
    let shader = preload_shader(pool, arch, &types)?;
    let w = preload_rsd(
        arch,
        &shader,
        tables.texture_count,
        tables.sampler_count,
        false,
    )?;
    let state = write_state(pool, arch, fb, &w, |i| load[i])?;
    preload_draw(pool, arch, fb, state, &tables, shader.binary.tls_size)
}

/// The Renderer State `rsd` followed by one Opaque Blend per colour target,
/// writing the targets `loaded` says and disabled for the others; its GPU
/// address.
fn write_state(
    pool: &mut GpuPool,
    arch: Arch,
    fb: &Framebuffer<'_>,
    rsd: &[u32],
    loaded: impl Fn(usize) -> bool,
) -> JmResult<u64> {
    let rsd_bytes = 4 * rsd.len() as u64;
    let state = pool.alloc(rsd_bytes + 16 * fb.colors.len() as u64, 64)?;
    state.write_words(0, rsd);
    for (i, c) in fb.colors.iter().enumerate() {
        let target = ColorTargetState {
            format: c.format,
            blend: Blend::Opaque,
            write_mask: if loaded(i) { 0xf } else { 0 },
        };
        let bw = blend_words_with(arch, i as u32, &target, sampled_type(c.format).1)?;
        state.write_words(rsd_bytes + 16 * i as u64, &bw);
    }
    Ok(state.gpu_va)
}

/// The depth preload's Draw words (a D32 depth target).
fn depth_draw(
    pool: &mut GpuPool,
    arch: Arch,
    fb: &Framebuffer<'_>,
    d: &DepthTarget,
) -> JmResult<Vec<u32>> {
    check_preloadable(fb)?;
    let texture = TextureDesc {
        address: d.base,
        width: fb.width,
        height: fb.height,
        row_stride: d.row_stride,
        layout: match d.block {
            BlockFormat::Linear => TexelLayout::Linear,
            BlockFormat::TiledUInterleaved => TexelLayout::Tiled,
        },
        format: TexelFormat::R32Sfloat,
        layers: 1,
        layer_stride: 0,
        dim: TextureDim::D2,
        levels: 1,
        mips: [MipLevel::default(); MAX_MIP_LEVELS],
    };
    let tables = write_texture_tables(pool, arch, &[Some(texture)], &[Some(NEAREST)])?;
    let shader = depth_preload_shader(pool, arch)?;
    let w = preload_rsd(
        arch,
        &shader,
        tables.texture_count,
        tables.sampler_count,
        true,
    )?;
    // Every colour target's Blend disabled (the shader writes no colour).
    let state = write_state(pool, arch, fb, &w, |_| false)?;
    preload_draw(pool, arch, fb, state, &tables, shader.binary.tls_size)
}
