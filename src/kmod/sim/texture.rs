//! The simulated texture unit: texel lookups for fragment jobs' VAR_TEX
//! message preloads and for the `TEXS_2D`/`TEXC` instructions
//! (`shader::message`), with a Texture and a Sampler descriptor (v6 and v7
//! layouts, unpacked with the `hw` tables).
//!
//! Simulated: 1D (height 1), 2D and 3D textures (`Texture Dimension`; 3D
//! depth slices `Surface stride` bytes apart in each level's record) of
//! up to 16 mip levels, and 1D/2D arrays, mipmapped or not: one "Surface
//! With Stride" per layer and level, record layer × levels + level
//! (Mesa's `panfrost_emit_texture_payload` order for one face and sample;
//! only TEXC with its array bit reads a layer other than 0, and an array
//! read without it faults), cube maps and cube arrays (dimension 0, square
//! faces, `Array size` cubes, face f of cube c the layer 6c + f, records in
//! each architecture's order: [`surface_record`]; TEXC's s word carries the
//! face, [`Texture::sample_cube`]; seamless filtering across face edges,
//! [`Texture::cube_level`]),
//! format RGBA8 UNORM (or BGRA through the swizzle 0o3012)
//! (or sRGB: RGB decoded with the sRGB EOTF, alpha linear), RGBA8UI or
//! RGBA8I (components zero- or sign-extended to 32-bit words, nearest
//! filtering only: linear filtering of an integer texture faults; their
//! border colour is the Sampler's four words as they are) in RGBA order,
//! R8 UNORM (swizzle R001), RG8 UNORM (RG01), RGB10 A2 UNORM, RGB565
//! (BGR1: Vulkan's R5G6B5_UNORM_PACK16), RGBA16F, RGBA32F, the plain
//! float/SNORM/UNORM formats of `hw::pixel` (R16F, RG16F, RG32F, R8/RG8/RGBA8
//! SNORM …; R001 / RG01 for one and two channels), or R32F
//! (swizzle R001; with a depth reference, compared by the
//! Sampler's `Compare Function`, see [`Texture::sample`])
//! (v7 `RGB Component Order` RGBA, v6 swizzle RGBA) with the identity
//! `Swizzle`, texel ordering Tiled (u-interleaved 16x16 tiles, `Row
//! stride` bytes per row of tiles, as render targets) or Linear, the
//! surface from the "Surface With Stride" the texture's `Surfaces` points
//! at; samplers with normalized coordinates, minification and
//! magnification filters (linear: 2, 4 or 8 texels by the dimension),
//! mipmap modes Nearest and Trilinear, LOD clamps
//! and bias (the Vulkan "Level-of-Detail Operation", see
//! [`Texture::sample`]; texel offsets added before wrapping), no compare
//! function, wrap modes (S, T and R) Repeat, Clamp to Edge, Clamp to Border (the
//! sampler's float border colour) and Mirrored Repeat. Filtering by the
//! Vulkan rules ("Texel Filtering"): nearest takes the texel containing
//! (u, v) = (s·width, t·height); linear weights the four texels around
//! (u − ½, v − ½), a texel outside the image under Clamp to Border being
//! the border colour. Texel fetches (`TEXC` FETCH) read the texel at
//! integer (x, y) of a level; outside the level or past the last one, the
//! result is zero (what Vulkan's robustImageAccess would return; the
//! hardware's behaviour is not documented and our tests never rely on it).
//! Anything else is a JOB_CONFIG_FAULT naming the descriptor.
//!
//! This module must never read memory except through the MMU.

use super::framebuffer::{Block, unorm8};
use super::jobs::JobFault;
use super::mmu::Mmu;
use crate::hw::Arch;
use crate::hw::texture::{sampler, surface_with_stride as sws, texture_desc as td};

fn config(va: u64, what: &str) -> JobFault {
    log::error!("sim texture: descriptor at {va:#x}: {what}");
    JobFault::config(va)
}

/// Bytes of a Texture and of a Sampler descriptor in their tables.
const TEXTURE_BYTES: u64 = 32;
const SAMPLER_BYTES: u64 = 32;

/// genxml `Wrap Mode` values.
const REPEAT: u64 = 8;
const CLAMP_TO_EDGE: u64 = 9;
const CLAMP_TO_BORDER: u64 = 11;
const MIRRORED_REPEAT: u64 = 12;

/// How a texel's bytes become the four words a shader reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexelKind {
    Unorm,
    Srgb,
    Uint,
    Sint,
    /// "R32F" with the swizzle R001: (d, 0, 0, 1).
    R32f,
    /// "R8 UNORM" (swizzle R001), "RG8 UNORM" (RG01), "RGB10 A2 UNORM"
    /// (R bits 0..9, G 10..19, B 20..29, A 30..31; identity): UNORM
    /// values c / (2^b − 1) rounded once to f32.
    R8,
    Rg8,
    Rgb10a2,
    /// "RGB565" (2 bytes; channel 0 in bits 0..4, 1 in 5..10, 2 in
    /// 11..15 — Mesa's `src/panfrost/lib/pan_format.c` maps
    /// PIPE_FORMAT_R5G6B5_UNORM, whose R is bits 0..4, to RGB565 with the
    /// RGB1 order) read with the swizzle BGR1 (0o5012): Vulkan's
    /// R5G6B5_UNORM_PACK16 has R in bits 11..15 (Mesa: B5G6R5_UNORM,
    /// RGB565 with BGR1). UNORM c / 31, c / 63.
    Rgb565,
    /// "RGBA16F" (8 bytes: four binary16, channel 0 first), each
    /// converted exactly to f32 (infinities and NaNs stay what they are).
    Rgba16f,
    /// "RGBA32F" (16 bytes: four f32 as they are).
    Rgba32f,
    /// "RGBA8 UNORM" read with the swizzle BGRA (0o3012): Vulkan's
    /// B8G8R8A8_UNORM (B in byte 0), as Mesa maps PIPE_FORMAT_B8G8R8A8_UNORM
    /// (RGBA8 UNORM with the order BGRA) — the reversal in the Texture's
    /// `Swizzle`, as for RGB565.
    Bgra8,
    /// The plain float and normalized formats of `hw::pixel` (2026-11-28,
    /// `gfx-fmt`): "R16F", "RG16F", "RG32F", "R8 SNORM", "RG8 SNORM",
    /// "RGBA8 SNORM", "R16 SNORM" … (components of 8, 16 or 32 bits,
    /// channel 0 first): binary16 converted exactly, f32 as they are,
    /// UNORM c / (2^b − 1) and SNORM max(c / (2^(b−1) − 1), −1) rounded once
    /// to f32; one- and two-channel formats with the swizzles R001 / RG01.
    Plain(crate::hw::pixel::RawLayout),
}

impl TexelKind {
    /// Bytes per texel.
    fn bytes(self) -> u64 {
        match self {
            TexelKind::R8 => 1,
            TexelKind::Rg8 | TexelKind::Rgb565 => 2,
            TexelKind::Rgba16f => 8,
            TexelKind::Rgba32f => 16,
            TexelKind::Plain(l) => u64::from(l.bytes()),
            _ => 4,
        }
    }
}

/// A [`TexelKind::Plain`] texel's words from its bytes (channel 0 first,
/// little-endian components; absent G, B read 0 and A 1.0).
fn plain_texel(l: crate::hw::pixel::RawLayout, bytes: &[u8; 16]) -> [u32; 4] {
    use crate::hw::pixel::RawKind;
    if l.kind == RawKind::R11g11b10 {
        // R bits 0..10, G 11..21 (6-bit mantissas), B 22..31 (5-bit); 5-bit
        // exponents, bias 15, no sign (Vulkan "Unsigned 11-Bit
        // Floating-Point Numbers", "Unsigned 10-Bit …"): exact in f32.
        let w = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let small = |code: u32, m: u32| -> u32 {
            let (e, f) = (code >> m, code & ((1 << m) - 1));
            match e {
                0 => (f as f32 * 2f32.powi(-14 - m as i32)).to_bits(),
                31 if f == 0 => f32::INFINITY.to_bits(),
                31 => f32::NAN.to_bits(),
                // Rebias 15 → 127 and widen the mantissa to 23 bits.
                _ => (e + 112) << 23 | f << (23 - m),
            }
        };
        return [
            small(w & 0x7ff, 6),
            small(w >> 11 & 0x7ff, 6),
            small(w >> 22, 5),
            1.0f32.to_bits(),
        ];
    }
    let size = (l.bits / 8) as usize;
    // Absent alpha: 1.0, or the integer 1 of an integer format.
    let mut out = [0, 0, 0, if l.integer() { 1 } else { 1.0f32.to_bits() }];
    for (c, word) in out.iter_mut().enumerate().take(l.components as usize) {
        let code = bytes[size * c..size * (c + 1)]
            .iter()
            .rev()
            .fold(0u32, |v, &b| v << 8 | u32::from(b));
        let signed = (i64::from(code) << (64 - l.bits)) >> (64 - l.bits);
        *word = match l.kind {
            RawKind::Float if l.bits == 16 => half::f16::from_bits(code as u16).to_f32().to_bits(),
            RawKind::Float => code,
            RawKind::Unorm => {
                ((f64::from(code) / f64::from((1u32 << l.bits) - 1)) as f32).to_bits()
            }
            RawKind::Snorm => {
                let max = f64::from((1u32 << (l.bits - 1)) - 1);
                ((signed as f64 / max).max(-1.0) as f32).to_bits()
            }
            RawKind::Uint => code,
            RawKind::Sint => signed as u32,
            // Decoded above.
            RawKind::R11g11b10 => code,
        };
    }
    out
}

/// One mip level: texel (0, 0), bytes per row (of texels or tiles), size,
/// bytes between depth slices (3D; the record's `Surface stride`), and
/// the level's index.
#[derive(Clone, Copy, Debug)]
struct Level {
    base: u64,
    row_stride: u64,
    width: u32,
    height: u32,
    depth: u32,
    slice_stride: u64,
    index: u32,
}

/// An image ready to be read.
pub struct Texture {
    base: u64,
    row_stride: u64,
    block: Block,
    width: u32,
    height: u32,
    /// Levels 1.. (level 0 is `base`, `row_stride`, `width`, `height`).
    mips: Vec<Level>,
    pub kind: TexelKind,
    /// Array layers (1: not an array); layer l of level k is Surface With
    /// Stride record l × levels + k at `surfaces` (Mesa's
    /// `panfrost_emit_texture_payload` order).
    pub layers: u32,
    surfaces: u64,
    /// genxml `Texture Dimension`: 1, 2 or 3; level 0's depth (3D) and the
    /// bytes between its slices.
    pub dim: u32,
    depth: u32,
    slice_stride: u64,
    /// The descriptor's address (for fault reports) and architecture.
    va: u64,
    arch: Arch,
}

/// genxml `Mipmap Mode` values.
const MIPMAP_NEAREST: u64 = 0;
const MIPMAP_TRILINEAR: u64 = 3;

/// The sampler state the texture unit models.
pub struct SamplerState {
    /// The magnification filter.
    nearest: bool,
    min_nearest: bool,
    /// Mipmap mode Trilinear (else Nearest).
    trilinear: bool,
    /// `Minimum LOD`, `Maximum LOD`, `LOD bias` (8 fractional bits).
    min_lod: f32,
    max_lod: f32,
    bias: f32,
    /// Wrap modes S, T, R.
    wrap: [u64; 3],
    /// The border colour's words (floats, or integers for integer textures).
    border: [u32; 4],
    /// `Clamp integer array indices` (PanVk leaves it clear on 2D images).
    clamp_array: bool,
    /// `Compare Function` (genxml `Func`; Never = 0 when unused).
    compare: u64,
}

/// Texel index `i` wrapped into [0, n); `None` for a border texel.
fn wrap(mode: u64, i: i64, n: u32) -> Option<u32> {
    let n = i64::from(n);
    let v = match mode {
        REPEAT => i.rem_euclid(n),
        MIRRORED_REPEAT => {
            let m = i.rem_euclid(2 * n);
            if m < n { m } else { 2 * n - 1 - m }
        }
        CLAMP_TO_BORDER if i < 0 || i >= n => return None,
        _ => i.clamp(0, n - 1),
    };
    Some(v as u32)
}

/// ⌊x⌋ as a texel index that wraps like the true one however large:
/// reduced modulo 2n for the repeating modes (both periodic with a period
/// dividing 2n), clamped to [-2, n + 1] for the clamping ones, so that the
/// index and index + 1 of linear filtering never overflow.
fn texel_index(mode: u64, x: f64, n: u32) -> i64 {
    let f = x.floor();
    let n = f64::from(n);
    if matches!(mode, REPEAT | MIRRORED_REPEAT) {
        f.rem_euclid(2.0 * n) as i64
    } else {
        f.clamp(-2.0, n + 1.0) as i64
    }
}

/// sRGB EOTF (Khronos Data Format Specification, "sRGB transfer
/// functions") of an 8-bit code, rounded once to f32.
fn srgb_decode(code: u8) -> f32 {
    let c = f64::from(code) / 255.0;
    (if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }) as f32
}

/// The Surface With Stride record of layer `layer` and level `level` of a
/// texture of `levels` levels and genxml dimension `dim` (Mesa's
/// `panfrost_surface_iter_next`, `src/panfrost/lib/pan_texture.c`): layer
/// × levels + level; a cube's layer is 6 × cube + face, and on v6 a
/// level's six faces are together: (cube × levels + level) × 6 + face.
fn surface_record(arch: Arch, dim: u32, layer: u32, level: u32, levels: u32) -> u64 {
    let (layer, level, levels) = (u64::from(layer), u64::from(level), u64::from(levels));
    if dim == 0 && arch == Arch::V6 {
        (layer / 6 * levels + level) * 6 + layer % 6
    } else {
        layer * levels + level
    }
}

/// A cube face's axes (Vulkan "Cube Map Face Selection and
/// Transformations"): the direction of texel coordinates (sc, tc) on face
/// f (+X −X +Y −Y +Z −Z = 0..5) is major + sc · s_axis + tc · t_axis.
const CUBE_AXES: [[[f64; 3]; 3]; 6] = [
    [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, -1.0, 0.0]],
    [[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]],
    [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
    [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]],
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]],
    [[0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]],
];

/// The face and face coordinates (sc/ma, tc/ma) in [−1, 1] of direction
/// `d` whose major axis is unique (the caller's directions are off the
/// cube's edges): the component of largest magnitude and its sign.
fn cube_face_of(d: [f64; 3]) -> (usize, f64, f64) {
    let a = d.map(f64::abs);
    let axis = if a[0] >= a[1] && a[0] >= a[2] {
        0
    } else if a[1] >= a[2] {
        1
    } else {
        2
    };
    let face = 2 * axis + usize::from(d[axis] < 0.0);
    let [_, sa, ta] = CUBE_AXES[face];
    let dot = |v: [f64; 3]| v[0] * d[0] + v[1] * d[1] + v[2] * d[2];
    (face, dot(sa) / a[axis], dot(ta) / a[axis])
}

/// Texel (i, j) of face `face` of an n × n level, one index maybe one
/// texel outside the face, as the texel of the face it lies on (Vulkan
/// "Cube Map Edge Handling"): the direction through the outside texel's
/// centre, extended past the edge, selects the neighbouring face, and the
/// texel containing that direction's face coordinates is the one across
/// the edge (the centre moves by less than half a texel).
fn cube_neighbour(face: usize, (i, j): (i64, i64), n: u32) -> (usize, u32, u32) {
    let nf = f64::from(n);
    let sc = (2.0 * i as f64 + 1.0) / nf - 1.0;
    let tc = (2.0 * j as f64 + 1.0) / nf - 1.0;
    let [m, sa, ta] = CUBE_AXES[face];
    let d: [f64; 3] = std::array::from_fn(|k| m[k] + sc * sa[k] + tc * ta[k]);
    let (f, s, t) = cube_face_of(d);
    let index =
        |c: f64| ((((c + 1.0) / 2.0) * nf).floor() as i64).clamp(0, i64::from(n) - 1) as u32;
    (f, index(s), index(t))
}

/// A cube texel's words, or with `dref` = (the Sampler's `Compare
/// Function`, reference) its depth compare (`d F reference`, the operand
/// order of [`Texture::sample`]) as (1.0 or 0.0, 0, 0, 1).
fn cube_compare(w: [u32; 4], dref: Option<(u64, f32)>) -> [u32; 4] {
    match dref {
        Some((func, r)) => {
            let pass = super::fragment::depth_passes(func, f32::from_bits(w[0]), r);
            [
                if pass { 1.0f32 } else { 0.0 }.to_bits(),
                0,
                0,
                1.0f32.to_bits(),
            ]
        }
        None => w,
    }
}

/// The implicit λbase of a cube access by a quad (TEXC LOD COMPUTE or
/// BIAS with dimension 0), from the (packed s, t) words of its lanes 0, 1
/// (x neighbour) and 2 (y neighbour), faces of `n` texels: each lane's
/// direction rebuilt from its face and (s, t) (up to scale, which the
/// projection ignores), lanes 1 and 2 projected onto lane 0's face, and the
/// coarse differences of those face coordinates scaled by n give ρ =
/// max(|(∂u/∂x, ∂v/∂x)|, |(∂u/∂y, ∂v/∂y)|) and λ = log2 ρ — the finite
/// differences of the spec's "Cube Map Derivative Transformation" (the
/// derivatives of sc/|rc| and tc/|rc| on the selected face; the
/// hardware's method is undocumented). A neighbour pointing away from lane
/// 0's face (no projection) gives λ = 128, the coarsest level (our
/// choice: such a quad spans opposite faces). NaN: 0.
pub fn cube_implicit_lod(n: u32, lanes: [(u32, u32); 3]) -> f64 {
    let dir = |(ps, t): (u32, u32)| -> Option<[f64; 3]> {
        let face = (ps >> 29) as usize;
        let s = f64::from(f32::from_bits(ps & 0x1fff_ffff | 0x2000_0000));
        let t = f64::from(f32::from_bits(t));
        let [m, sa, ta] = CUBE_AXES.get(face)?;
        Some(std::array::from_fn(|k| {
            m[k] + (2.0 * s - 1.0) * sa[k] + (2.0 * t - 1.0) * ta[k]
        }))
    };
    let (Some(d0), Some(d1), Some(d2)) = (dir(lanes[0]), dir(lanes[1]), dir(lanes[2])) else {
        return 0.0;
    };
    let face0 = (lanes[0].0 >> 29) as usize;
    let [m, sa, ta] = CUBE_AXES[face0];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let project = |d: [f64; 3]| -> Option<(f64, f64)> {
        let ma = dot(m, d);
        (ma > 0.0).then(|| (dot(sa, d) / ma / 2.0, dot(ta, d) / ma / 2.0))
    };
    let (Some(p0), Some(p1), Some(p2)) = (project(d0), project(d1), project(d2)) else {
        return 128.0;
    };
    let n = f64::from(n);
    let rho = (n * (p1.0 - p0.0))
        .hypot(n * (p1.1 - p0.1))
        .max((n * (p2.0 - p0.0)).hypot(n * (p2.1 - p0.1)));
    let lambda = rho.log2();
    if lambda.is_nan() { 0.0 } else { lambda }
}

impl Texture {
    /// Unpacks texture `index` of the table at `textures` and sampler
    /// `index` of `samplers` (tables of `counts.0` and `counts.1` entries):
    /// what a VAR_TEX preload reads.
    pub fn read(
        mmu: &Mmu,
        arch: Arch,
        textures: u64,
        samplers: u64,
        index: u32,
        counts: (u32, u32),
    ) -> Result<(Texture, SamplerState), JobFault> {
        let t = Texture::read_texture(mmu, arch, textures, index, counts.0)?;
        let s = SamplerState::read(mmu, arch, samplers, index, counts.1)?;
        Ok((t, s))
    }

    /// Unpacks texture `index` of the table at `textures` (`count` entries).
    pub fn read_texture(
        mmu: &Mmu,
        arch: Arch,
        textures: u64,
        index: u32,
        count: u32,
    ) -> Result<Texture, JobFault> {
        let l = crate::hw::layouts(arch);
        if textures == 0 || index >= count {
            return Err(config(textures, "no such texture"));
        }
        let tva = textures + TEXTURE_BYTES * u64::from(index);
        let t = mmu.read_words(tva, l.texture.words as usize)?;
        if l.texture.check_reserved(&t).is_err() {
            return Err(config(tva, "reserved bits set in Texture"));
        }
        let format = td::FORMAT.get(&t);
        let name = crate::hw::layout::enum_name(l.formats.table.formats, (format >> 12) & 0xff);
        let srgb = format & (1 << 20) != 0;
        let kind = match (name, srgb) {
            ("RGBA8 UNORM", false) if td::SWIZZLE.get(&t) == 0o3012 => Some(TexelKind::Bgra8),
            ("RGBA8 UNORM", false) => Some(TexelKind::Unorm),
            ("RGBA8 UNORM", true) => Some(TexelKind::Srgb),
            ("RGBA8UI", false) => Some(TexelKind::Uint),
            ("RGBA8I", false) => Some(TexelKind::Sint),
            ("R32F", false) => Some(TexelKind::R32f),
            ("R8 UNORM", false) => Some(TexelKind::R8),
            ("RG8 UNORM", false) => Some(TexelKind::Rg8),
            ("RGB10 A2 UNORM", false) => Some(TexelKind::Rgb10a2),
            ("RGB565", false) => Some(TexelKind::Rgb565),
            ("RGBA16F", false) => Some(TexelKind::Rgba16f),
            ("RGBA32F", false) => Some(TexelKind::Rgba32f),
            (name, false) => crate::hw::pixel::RawLayout::of(name)
                .filter(|l| {
                    use crate::hw::pixel::RawKind;
                    matches!(
                        l.kind,
                        RawKind::Float
                            | RawKind::Unorm
                            | RawKind::Snorm
                            | RawKind::R11g11b10
                            | RawKind::Uint
                            | RawKind::Sint
                    )
                })
                .map(TexelKind::Plain),
            _ => None,
        };
        // The swizzle each format is simulated with: identity, or R001 for
        // the one-channel format (what `jm::texture` writes; another
        // swizzle's reading of absent channels is undocumented).
        let swizzle = match kind {
            Some(TexelKind::R32f | TexelKind::R8) => 0o5440,
            Some(TexelKind::Rg8) => 0o5410,
            Some(TexelKind::Rgb565) => 0o5012,
            Some(TexelKind::Bgra8) => 0o3012,
            Some(TexelKind::Plain(l)) if l.components == 1 => 0o5440,
            Some(TexelKind::Plain(l)) if l.components == 2 => 0o5410,
            _ => 0o3210,
        };
        // RGBA order: v7's `RGB Component Order` RGBA is 0, v6's swizzle
        // R, G, B, A is 0x688 (`hw::format`).
        let rgba = match arch {
            Arch::V7 => 0,
            Arch::V6 => crate::hw::format::V6.order_for_components[3],
        };
        let Some(kind) = kind else {
            return Err(config(tva, "texture format not simulated"));
        };
        let levels = td::LEVELS.get(&t) as u32;
        // The texture-level `Minimum level`, `Minimum LOD` and `Maximum
        // LOD` (PanVk leaves them 0 on Bifrost) have no documented effect:
        // refused unless 0.
        let dim = td::DIMENSION.get(&t) as u32;
        let depth = td::DEPTH.get(&t) as u32;
        let layers = td::ARRAY_SIZE.get(&t) as u32;
        // 1D (height 1), 2D or 3D (not an array); a depth only for 3D.
        // Cube maps (dimension 0) are not simulated.
        let shape_ok = match dim {
            // A cube (our reading of `Texture Dimension` 0, Mesa's
            // MALI_TEXTURE_DIMENSION_CUBE): square faces, `Array size`
            // cubes.
            0 => depth == 1 && td::WIDTH.get(&t) == td::HEIGHT.get(&t),
            1 => td::HEIGHT.get(&t) == 1 && depth == 1,
            2 => depth == 1,
            3 => layers == 1,
            _ => false,
        };
        if !shape_ok
            || format & 0xfff != rgba
            || format >> 21 != 0
            || td::SWIZZLE.get(&t) != swizzle
            || td::MINIMUM_LEVEL.get(&t) != 0
            || td::MINIMUM_LOD.get(&t) != 0
            || td::MAXIMUM_LOD.get(&t) != 0
            || td::SAMPLE_COUNT.get(&t) != 1
        {
            return Err(config(tva, "texture kind not simulated"));
        }
        let block = match td::TEXEL_ORDERING.get(&t) {
            1 => Block::TiledUInterleaved,
            2 => Block::Linear,
            _ => return Err(config(tva, "texel ordering not simulated")),
        };
        let surface = td::SURFACES.get(&t);
        let s = mmu.read_words(surface, l.surface_with_stride.words as usize)?;
        let row_stride = sws::ROW_STRIDE.get(&s) as i64;
        if row_stride <= 0 {
            return Err(config(surface, "negative or zero row stride"));
        }
        let (width, height) = (td::WIDTH.get(&t) as u32, td::HEIGHT.get(&t) as u32);
        if levels > 1 + width.max(height).max(depth).ilog2() {
            return Err(config(tva, "more mip levels than the size has"));
        }
        // Levels 1..: the next Surface With Stride records (Mesa's
        // `panfrost_emit_texture_payload`: for one layer, face and sample,
        // one record per level in turn; the next layer's levels after
        // them).
        let mut mips = Vec::new();
        for level in 1..levels {
            let va = surface + 16 * surface_record(arch, dim, 0, level, levels);
            let m = mmu.read_words(va, l.surface_with_stride.words as usize)?;
            let stride = sws::ROW_STRIDE.get(&m) as i64;
            if stride <= 0 {
                return Err(config(va, "negative or zero row stride"));
            }
            let slices = sws::SURFACE_STRIDE.get(&m) as i64;
            if dim == 3 && slices <= 0 {
                return Err(config(
                    va,
                    "a 3D level with a negative or zero surface stride",
                ));
            }
            mips.push(Level {
                base: sws::POINTER.get(&m),
                row_stride: stride as u64,
                width: (width >> level).max(1),
                height: (height >> level).max(1),
                depth: (depth >> level).max(1),
                slice_stride: slices.max(0) as u64,
                index: level,
            });
        }
        let slice_stride = sws::SURFACE_STRIDE.get(&s) as i64;
        if dim == 3 && slice_stride <= 0 {
            return Err(config(
                surface,
                "a 3D texture with a negative or zero surface stride",
            ));
        }
        Ok(Texture {
            base: sws::POINTER.get(&s),
            row_stride: row_stride as u64,
            block,
            width,
            height,
            mips,
            kind,
            layers,
            surfaces: surface,
            dim,
            depth,
            slice_stride: slice_stride.max(0) as u64,
            va: tva,
            arch,
        })
    }

    /// Faults unless the texture is a 2D texture and not an array (what
    /// `TEXS_2D` and VAR_TEX read: which layer the hardware would take, or
    /// what it makes of another dimension, is undocumented).
    pub fn single_layer(&self) -> Result<(), JobFault> {
        self.dimension(2, false)
    }

    /// Faults unless the texture has dimension `dim` (TEXC's descriptor
    /// field) and is an array exactly when `array` (TEXC's array bit;
    /// a one-layer texture may be read either way).
    pub fn dimension(&self, dim: u32, array: bool) -> Result<(), JobFault> {
        if dim != self.dim {
            return Err(config(
                self.va,
                "a read of another dimension than the texture's",
            ));
        }
        if self.layers > 1 && !array {
            return Err(config(self.va, "an array read without an array index"));
        }
        Ok(())
    }

    /// Whether the texels are read as floats.
    pub fn is_float(&self) -> bool {
        matches!(
            self.kind,
            TexelKind::Unorm
                | TexelKind::Srgb
                | TexelKind::R32f
                | TexelKind::R8
                | TexelKind::Rg8
                | TexelKind::Rgb10a2
                | TexelKind::Rgb565
                | TexelKind::Rgba16f
                | TexelKind::Rgba32f
                | TexelKind::Bgra8
        ) || matches!(self.kind, TexelKind::Plain(l) if !l.integer())
    }

    /// Whether the texels are read as unsigned integers.
    pub fn is_uint(&self) -> bool {
        use crate::hw::pixel::RawKind;
        self.kind == TexelKind::Uint
            || matches!(self.kind, TexelKind::Plain(l) if l.kind == RawKind::Uint)
    }

    /// Whether the texels are read as signed integers.
    pub fn is_sint(&self) -> bool {
        use crate::hw::pixel::RawKind;
        self.kind == TexelKind::Sint
            || matches!(self.kind, TexelKind::Plain(l) if l.kind == RawKind::Sint)
    }

    /// Level 0's width and height.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Mip levels.
    pub fn levels(&self) -> u32 {
        1 + self.mips.len() as u32
    }

    /// Level `level` (0 ..= levels − 1).
    fn level(&self, level: u32) -> Level {
        match level {
            0 => Level {
                base: self.base,
                row_stride: self.row_stride,
                width: self.width,
                height: self.height,
                depth: self.depth,
                slice_stride: self.slice_stride,
                index: 0,
            },
            l => self.mips[(l as usize - 1).min(self.mips.len() - 1)],
        }
    }

    /// The four words a shader reads for texel (x, y, z) of level `lv` and
    /// layer `layer` (z: a 3D texture's slice, `Surface stride` bytes
    /// apart; a layer other than 0 is Surface With Stride record
    /// layer × levels + level).
    fn texel_of(
        &self,
        mmu: &Mmu,
        lv: &Level,
        (x, y, z): (u32, u32, u32),
        layer: u32,
    ) -> Result<[u32; 4], JobFault> {
        let mut wide = [0u8; 16];
        let bytes = self.kind.bytes();
        let (base, row_stride) = if layer == 0 {
            (lv.base, lv.row_stride)
        } else {
            let l = crate::hw::layouts(self.arch);
            let record = surface_record(self.arch, self.dim, layer, lv.index, self.levels());
            let va = self.surfaces + 16 * record;
            let m = mmu.read_words(va, l.surface_with_stride.words as usize)?;
            let stride = sws::ROW_STRIDE.get(&m) as i64;
            if stride <= 0 {
                return Err(config(va, "negative or zero row stride"));
            }
            (sws::POINTER.get(&m), stride as u64)
        };
        let off = self.block.offset(x, y, row_stride, bytes) + u64::from(z) * lv.slice_stride;
        // A surface pointer near the top of the address space must fault,
        // not wrap.
        let va = base
            .checked_add(off)
            .ok_or_else(|| config(self.va, "texel address past 2^64"))?;
        mmu.read(va, &mut wide[..bytes as usize])?;
        let b = [wide[0], wide[1], wide[2], wide[3]];
        Ok(match self.kind {
            TexelKind::Unorm => b.map(|c| unorm8(c).to_bits()),
            TexelKind::Srgb => {
                let mut c = b.map(|c| unorm8(c).to_bits());
                for (v, &code) in c[..3].iter_mut().zip(&b) {
                    *v = srgb_decode(code).to_bits();
                }
                c
            }
            TexelKind::Uint => b.map(u32::from),
            TexelKind::Sint => b.map(|c| c as i8 as i32 as u32),
            TexelKind::R32f => [u32::from_le_bytes(b), 0, 0, 1.0f32.to_bits()],
            TexelKind::R8 => [unorm8(b[0]).to_bits(), 0, 0, 1.0f32.to_bits()],
            TexelKind::Rg8 => [
                unorm8(b[0]).to_bits(),
                unorm8(b[1]).to_bits(),
                0,
                1.0f32.to_bits(),
            ],
            TexelKind::Rgb10a2 => {
                let w = u32::from_le_bytes(b);
                let c = |at: u32, bits: u32| {
                    let max = (1u32 << bits) - 1;
                    ((f64::from((w >> at) & max) / f64::from(max)) as f32).to_bits()
                };
                [c(0, 10), c(10, 10), c(20, 10), c(30, 2)]
            }
            // Channels 2, 1, 0 through the swizzle BGR1 (see `Rgb565`).
            TexelKind::Rgb565 => {
                let w = u32::from(u16::from_le_bytes([b[0], b[1]]));
                let c = |at: u32, bits: u32| {
                    let max = (1u32 << bits) - 1;
                    ((f64::from((w >> at) & max) / f64::from(max)) as f32).to_bits()
                };
                [c(11, 5), c(5, 6), c(0, 5), 1.0f32.to_bits()]
            }
            TexelKind::Rgba16f => std::array::from_fn(|k| {
                half::f16::from_le_bytes([wide[2 * k], wide[2 * k + 1]])
                    .to_f32()
                    .to_bits()
            }),
            TexelKind::Rgba32f => std::array::from_fn(|k| {
                u32::from_le_bytes([
                    wide[4 * k],
                    wide[4 * k + 1],
                    wide[4 * k + 2],
                    wide[4 * k + 3],
                ])
            }),
            TexelKind::Bgra8 => [b[2], b[1], b[0], b[3]].map(|c| unorm8(c).to_bits()),
            TexelKind::Plain(l) => plain_texel(l, &wide),
        })
    }

    /// The texel at integer (x, y, z) of level `level` and layer `layer`
    /// (zeros outside; a 1D texture's y and a 1D or 2D one's z are not
    /// read: TEXC passes a 1D x twice).
    pub fn fetch(
        &self,
        mmu: &Mmu,
        [x, y, z]: [i32; 3],
        level: i32,
        layer: u32,
    ) -> Result<[u32; 4], JobFault> {
        if level < 0 || level as u32 >= self.levels() {
            return Ok([0; 4]);
        }
        let lv = self.level(level as u32);
        let y = if self.dim == 1 { 0 } else { y };
        let z = if self.dim == 3 { z } else { 0 };
        if x < 0
            || y < 0
            || z < 0
            || x as u32 >= lv.width
            || y as u32 >= lv.height
            || z as u32 >= lv.depth
            || layer >= self.layers
        {
            return Ok([0; 4]);
        }
        self.texel_of(mmu, &lv, (x as u32, y as u32, z as u32), layer)
    }

    /// TEXC FETCH with `lod_or_fetch` GATHER4 (component `component`, 0–3:
    /// r, g, b, a) at normalized (s, t) of layer `layer`: that component of
    /// the four texels a linear filter weights in level 0 (Vulkan "Texel
    /// Gathering": i0 = ⌊u − ½⌋ + Δi, j0 = ⌊v − ½⌋ + Δj, i1 = i0 + 1,
    /// j1 = j0 + 1, each wrapped by the sampler's modes; a border texel
    /// gives the border colour's component), as the words a shader reads,
    /// in the order (i0, j0), (i1, j0), (i0, j1), (i1, j1). That order is
    /// our reading of Mesa, which reorders a Bifrost gather's result with
    /// the swizzle 2, 3, 1, 0 into Vulkan's i0j1, i1j1, i1j0, i0j0
    /// (`lower_tg4_broadcom_swizzle` in `bifrost_compile.c`,
    /// `swizzle_tg4_broadcom` in `nir_lower_tex.c`). The sampler's filters,
    /// mipmap mode and LOD range select nothing (the spec gathers from the
    /// base level; the caller refuses a LOD register other than level 0).
    /// With `dref` (TEXC's shadow register, component 0 only) each texel's
    /// first component d (a border texel's: the border's red) becomes 1.0
    /// when `d F dref` holds for the Sampler's `Compare Function` F, else
    /// 0.0 — the operand order of [`Texture::sample`], which Mesa's
    /// `panfrost_flip_compare_func` compensates for both. Without `dref`,
    /// a compare function other than Never faults (as for sampling); integer
    /// textures gather their words, a border texel of one the Sampler's
    /// border word as it is (as [`Texture::sample`]); non-finite
    /// coordinates give zeros (as `sample_level`).
    #[allow(clippy::too_many_arguments)]
    pub fn gather(
        &self,
        mmu: &Mmu,
        smp: &SamplerState,
        (s, t): (f32, f32),
        layer: u32,
        (offset, dref): ([i32; 2], Option<f32>),
        component: usize,
    ) -> Result<[u32; 4], JobFault> {
        if dref.is_none() && smp.compare != 0 {
            return Err(config(self.va, "a gather with a compare function"));
        }
        if dref.is_some() && (!self.is_float() || component != 0) {
            return Err(config(
                self.va,
                "a depth gather of an integer texture or of a component other than r",
            ));
        }
        if component > 3 || self.dim != 2 {
            return Err(config(
                self.va,
                "a gather component past alpha, or a gather of a 1D or 3D texture",
            ));
        }
        if self.layers > 1 && !smp.clamp_array {
            return Err(config(
                self.va,
                "array gathers without Clamp integer array indices",
            ));
        }
        let layer = layer.min(self.layers - 1);
        let lv = self.level(0);
        let u = f64::from(s) * f64::from(lv.width) - 0.5;
        let v = f64::from(t) * f64::from(lv.height) - 0.5;
        if !(u.is_finite() && v.is_finite()) {
            return Ok([0; 4]);
        }
        let i0 = texel_index(smp.wrap[0], u + f64::from(offset[0]), lv.width);
        let j0 = texel_index(smp.wrap[1], v + f64::from(offset[1]), lv.height);
        let mut out = [0u32; 4];
        for (k, (di, dj)) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
            let c = match (
                wrap(smp.wrap[0], i0 + di, lv.width),
                wrap(smp.wrap[1], j0 + dj, lv.height),
            ) {
                (Some(x), Some(y)) => self.texel_of(mmu, &lv, (x, y, 0), layer)?[component],
                _ => smp.border[component],
            };
            out[k] = match dref {
                Some(r) => {
                    let pass = super::fragment::depth_passes(smp.compare, f32::from_bits(c), r);
                    if pass { 1.0f32 } else { 0.0 }.to_bits()
                }
                None => c,
            };
        }
        Ok(out)
    }

    /// Whether the level of detail changes what [`Texture::sample`] returns
    /// with `smp`: more than one level, or two different filters.
    pub fn lod_matters(&self, smp: &SamplerState) -> bool {
        self.levels() > 1 || smp.nearest != smp.min_nearest
    }

    /// The filtered colour at normalized coordinates (s, t) of layer
    /// `layer` (clamped to the array: `Clamp integer array indices`) for
    /// the base level of detail `lod` (what TEXC's explicit LOD register
    /// holds, or 0), as the four words a shader reads (f32 bits for float
    /// textures). The Vulkan "Level-of-Detail Operation": λ = clamp(lod +
    /// bias, Minimum LOD, Maximum LOD) (every term on the 1/256 grid of the
    /// hardware's 8:8 LOD values, so the sum is exact); the magnification
    /// filter when λ ≤ 0, else the minification one; d = clamp(λ, 0, q)
    /// (q = levels − 1), the nearest level ⌈d + ½⌉ − 1 (mipmap mode
    /// Nearest) or the levels ⌊d⌋ and ⌊d⌋ + 1 (clamped to q) blended with
    /// weights 1 − δ and δ, δ = frac(d) (Trilinear).
    ///
    /// `offset` (TEXC's texel offsets) is added to the integer texel
    /// coordinates before wrapping (Vulkan "Texel Coordinate Systems":
    /// ⌊u⌋ + Δi, ⌊u − ½⌋ + Δi), in every level.
    ///
    /// `dref` (TEXC's shadow register): each texel's first component d (a
    /// border texel's: the border colour's red) becomes 1.0 when `d F
    /// dref` holds for the Sampler's `Compare Function` F, else 0.0 —
    /// the hardware's operand order, which Mesa's
    /// `panfrost_flip_compare_func` compensates — and those are filtered;
    /// the result is (r, 0, 0, 1) (our choice: shaders read r only). A
    /// compare function other than Never without a reference faults
    /// (Vulkan forbids it; the hardware's answer is undocumented).
    #[allow(clippy::too_many_arguments)]
    pub fn sample(
        &self,
        mmu: &Mmu,
        smp: &SamplerState,
        s: f32,
        t: f32,
        layer: u32,
        lod: f32,
        offset: [i32; 2],
        dref: Option<f32>,
    ) -> Result<[u32; 4], JobFault> {
        self.sample_at(mmu, smp, [s, t, 0.0], layer, lod, offset, dref)
    }

    /// [`Texture::sample`] at normalized (s, t, r): a 1D texture reads s
    /// only, a 2D one s and t, a 3D one all three (its r wrapped by the
    /// Sampler's `Wrap Mode R`; linear filtering weights the eight texels
    /// around (u − ½, v − ½, w − ½), Vulkan's "Texel Filtering" for 3D).
    #[allow(clippy::too_many_arguments)]
    pub fn sample_at(
        &self,
        mmu: &Mmu,
        smp: &SamplerState,
        coord: [f32; 3],
        layer: u32,
        lod: f32,
        offset: [i32; 2],
        dref: Option<f32>,
    ) -> Result<[u32; 4], JobFault> {
        if dref.is_none() && smp.compare != 0 {
            return Err(config(
                self.va,
                "a compare function without a depth reference",
            ));
        }
        if dref.is_some() && !self.is_float() {
            return Err(config(self.va, "depth compare of an integer texture"));
        }
        if smp.min_lod > smp.max_lod || !lod.is_finite() {
            return Err(config(
                self.va,
                "minimum LOD above maximum LOD, or a NaN LOD",
            ));
        }
        let lambda = (f64::from(lod) + f64::from(smp.bias))
            .clamp(f64::from(smp.min_lod), f64::from(smp.max_lod));
        let nearest = if lambda <= 0.0 {
            smp.nearest
        } else {
            smp.min_nearest
        };
        let q = f64::from(self.levels() - 1);
        let d = lambda.clamp(0.0, q);
        if !smp.trilinear || d.fract() == 0.0 {
            let level = if smp.trilinear {
                d as u32
            } else {
                ((d + 0.5).ceil() - 1.0) as u32
            };
            return self.sample_level(mmu, smp, nearest, coord, layer, level, (offset, dref));
        }
        let (hi, delta) = (d.floor() as u32, d.fract());
        let lo = (hi + 1).min(self.levels() - 1);
        let a = self.sample_level(mmu, smp, nearest, coord, layer, hi, (offset, dref))?;
        let b = self.sample_level(mmu, smp, nearest, coord, layer, lo, (offset, dref))?;
        if !self.is_float() {
            return Err(config(
                self.va,
                "linear mipmap filtering of an integer texture",
            ));
        }
        Ok(std::array::from_fn(|k| {
            let (x, y) = (
                f64::from(f32::from_bits(a[k])),
                f64::from(f32::from_bits(b[k])),
            );
            (((1.0 - delta) * x + delta * y) as f32).to_bits()
        }))
    }

    /// One level's filtered colour (`nearest` or linear), see
    /// [`Texture::sample_at`]: over the texture's 1, 2 or 3 axes.
    #[allow(clippy::too_many_arguments)]
    fn sample_level(
        &self,
        mmu: &Mmu,
        smp: &SamplerState,
        nearest: bool,
        coord: [f32; 3],
        layer: u32,
        level: u32,
        (offset, dref): ([i32; 2], Option<f32>),
    ) -> Result<[u32; 4], JobFault> {
        let lv = self.level(level);
        // A depth compare replaces each texel by its comparison's 1 or 0.
        let compare = |c: [u32; 4]| -> [u32; 4] {
            match dref {
                Some(r) => {
                    let pass = super::fragment::depth_passes(smp.compare, f32::from_bits(c[0]), r);
                    [
                        if pass { 1.0f32 } else { 0.0 }.to_bits(),
                        0,
                        0,
                        1.0f32.to_bits(),
                    ]
                }
                None => c,
            }
        };
        if self.layers > 1 && !smp.clamp_array {
            // Vulkan clamps the layer; without the sampler's clamp the
            // hardware's answer for an index past the array is undocumented.
            return Err(config(
                self.va,
                "array sampling without Clamp integer array indices",
            ));
        }
        let layer = layer.min(self.layers - 1);
        if !self.is_float() && !nearest {
            return Err(config(self.va, "linear filtering of an integer texture"));
        }
        if self.dim == 0 {
            let face = coord[2] as u32;
            let dref = dref.map(|r| (smp.compare, r));
            return self.cube_level(
                mmu,
                (nearest, dref),
                [coord[0], coord[1]],
                layer * 6 + face,
                &lv,
            );
        }
        let axes = self.dim.clamp(1, 3) as usize;
        let size = [lv.width, lv.height, lv.depth];
        let off = [f64::from(offset[0]), f64::from(offset[1]), 0.0];
        let mut uvw = [0.0f64; 3];
        for a in 0..axes {
            uvw[a] = f64::from(coord[a]) * f64::from(size[a]);
            if !uvw[a].is_finite() {
                return Ok([0; 4]);
            }
        }
        // The texel at integer indices (the axes past the texture's: 0).
        let fetch = |idx: [i64; 3]| -> Result<[u32; 4], JobFault> {
            let mut at = [0u32; 3];
            for a in 0..axes {
                match wrap(smp.wrap[a], idx[a], size[a]) {
                    Some(i) => at[a] = i,
                    None => return Ok(compare(smp.border)),
                }
            }
            self.texel_of(mmu, &lv, (at[0], at[1], at[2]), layer)
                .map(compare)
        };
        if nearest {
            let mut idx = [0i64; 3];
            for a in 0..axes {
                idx[a] = texel_index(smp.wrap[a], uvw[a] + off[a], size[a]);
            }
            return fetch(idx);
        }
        let mut base = [0i64; 3];
        let mut frac = [0.0f64; 3];
        for a in 0..axes {
            let x = uvw[a] - 0.5;
            base[a] = texel_index(smp.wrap[a], x + off[a], size[a]);
            frac[a] = x - x.floor();
        }
        // The 2^axes texels, the first axis fastest, each weighted by the
        // product of its axes' weights (1 − α or α).
        let mut out = [0.0f64; 4];
        for corner in 0..1usize << axes {
            let mut idx = base;
            let mut w = 1.0f64;
            for a in 0..axes {
                let up = corner >> a & 1;
                idx[a] += up as i64;
                w *= if up == 1 { frac[a] } else { 1.0 - frac[a] };
            }
            let c = fetch(idx)?;
            for k in 0..4 {
                out[k] += w * f64::from(f32::from_bits(c[k]));
            }
        }
        Ok(out.map(|x| (x as f32).to_bits()))
    }
}

impl Texture {
    /// One level of a cube: face `face_layer` % 6 of cube `face_layer` / 6
    /// at face coordinates (s, t), clamped to [0, 1] (what the shader's
    /// packing gives; the hardware's answer outside is undocumented),
    /// the sampler's wrap modes ignored (Vulkan "Cube Map Edge
    /// Handling"). Nearest: the texel containing (s·n, t·n), clamped to
    /// the face. Linear: the four texels around (u − ½, v − ½); one outside
    /// the face across an edge is the neighbouring face's texel there
    /// ([`cube_neighbour`]); one outside across a corner is the average of
    /// the three texels meeting at that corner of the cube (the face's own
    /// corner texel and its two neighbours'), as the spec allows.
    fn cube_level(
        &self,
        mmu: &Mmu,
        (nearest, dref): (bool, Option<(u64, f32)>),
        st: [f32; 2],
        face_layer: u32,
        lv: &Level,
    ) -> Result<[u32; 4], JobFault> {
        let n = lv.width;
        let (cube, face) = (face_layer - face_layer % 6, (face_layer % 6) as usize);
        let [u, v] = st.map(|c| f64::from(c).clamp(0.0, 1.0) * f64::from(n));
        if !(u.is_finite() && v.is_finite()) {
            return Ok([0; 4]);
        }
        let clamp = |k: i64| k.clamp(0, i64::from(n) - 1) as u32;
        if nearest {
            let w = self.texel_of(
                mmu,
                lv,
                (clamp(u.floor() as i64), clamp(v.floor() as i64), 0),
                face_layer,
            )?;
            return Ok(cube_compare(w, dref));
        }
        let (x, y) = (u - 0.5, v - 0.5);
        let (i0, j0) = (x.floor() as i64, y.floor() as i64);
        let (a, b) = (x - x.floor(), y - y.floor());
        let mut out = [0.0f64; 4];
        for (dj, wy) in [(0, 1.0 - b), (1, b)] {
            for (di, wx) in [(0, 1.0 - a), (1, a)] {
                let c = self.cube_texel(mmu, lv, (cube, face), (i0 + di, j0 + dj), dref)?;
                for k in 0..4 {
                    out[k] += wx * wy * c[k];
                }
            }
        }
        Ok(out.map(|x| (x as f32).to_bits()))
    }

    /// Texel (i, j) of face `face` of the cube whose first layer is
    /// `cube`, at most one texel outside the face on each axis, as floats:
    /// inside, the face's texel; across an edge, the neighbouring face's
    /// ([`cube_neighbour`]); across a corner, the average of the three
    /// texels meeting at that corner of the cube (see
    /// [`Texture::sample_at`] for cubes).
    fn cube_texel(
        &self,
        mmu: &Mmu,
        lv: &Level,
        (cube, face): (u32, usize),
        (i, j): (i64, i64),
        dref: Option<(u64, f32)>,
    ) -> Result<[f64; 4], JobFault> {
        let n = lv.width;
        let texel = |f: usize, x: u32, y: u32| -> Result<[f64; 4], JobFault> {
            let w = self.texel_of(mmu, lv, (x, y, 0), cube + f as u32)?;
            Ok(cube_compare(w, dref).map(|c| f64::from(f32::from_bits(c))))
        };
        let clamp = |k: i64| k.clamp(0, i64::from(n) - 1) as u32;
        let inside = |k: i64| (0..i64::from(n)).contains(&k);
        let across = |i: i64, j: i64| -> Result<[f64; 4], JobFault> {
            let (f, x, y) = cube_neighbour(face, (i, j), n);
            texel(f, x, y)
        };
        Ok(match (inside(i), inside(j)) {
            (true, true) => texel(face, i as u32, j as u32)?,
            (false, false) => {
                let own = texel(face, clamp(i), clamp(j))?;
                let p = across(i, i64::from(clamp(j)))?;
                let q = across(i64::from(clamp(i)), j)?;
                std::array::from_fn(|k| (own[k] + p[k] + q[k]) / 3.0)
            }
            _ => across(i, j)?,
        })
    }

    /// A gather of component `component` of a float cube (TEXC FETCH
    /// GATHER4 with dimension 0): the packed s word and t decoded as for
    /// [`Texture::sample_cube`], level 0, the four texels around (u − ½,
    /// v − ½) of the face in the order of [`Texture::gather`], those past
    /// an edge or corner as seamless linear filtering takes them (Vulkan
    /// "Texel Gathering" uses the LINEAR footprint; a corner's value is
    /// the average of its three texels). An integer cube faults (a corner
    /// average of integers is meaningless; the hardware's answer is
    /// undocumented).
    pub fn gather_cube(
        &self,
        mmu: &Mmu,
        (packed_s, t): (u32, f32),
        cube: u32,
        component: usize,
    ) -> Result<[u32; 4], JobFault> {
        let face = packed_s >> 29;
        if face > 5 || self.dim != 0 || !self.is_float() || component > 3 {
            return Err(config(
                self.va,
                "a cube gather with a face above 5, of another dimension, of an integer \
                 texture or past alpha",
            ));
        }
        let s = f32::from_bits(packed_s & 0x1fff_ffff | 0x2000_0000);
        let lv = self.level(0);
        let n = f64::from(lv.width);
        let [u, v] = [s, t].map(|c| f64::from(c).clamp(0.0, 1.0) * n - 0.5);
        if !(u.is_finite() && v.is_finite()) {
            return Ok([0; 4]);
        }
        let (i0, j0) = (u.floor() as i64, v.floor() as i64);
        let cube = cube.min(self.layers - 1) * 6;
        let mut out = [0u32; 4];
        for (k, (di, dj)) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
            let c = self.cube_texel(mmu, &lv, (cube, face as usize), (i0 + di, j0 + dj), None)?;
            out[k] = (c[component] as f32).to_bits();
        }
        Ok(out)
    }

    /// [`Texture::sample_at`] of a cube: TEXC's packed s word (Mesa's
    /// `struct cube_map_descriptor`: s in bits 0–28, the face in 29–31)
    /// and t, the cube `cube` of a cube array, base LOD `lod`. The s
    /// float's bits 29–31 (sign and the exponent's two top bits) are
    /// restored as 0, 1, 0: exactly the bits of every float in [2^-63, 2)
    /// — the redundancy Mesa's packing relies on (our reading; an s below
    /// 2^-63 becomes 2^-63, the same texel). A face above 5 faults.
    ///
    /// `dref` (TEXC's shadow register): each texel — before a corner's
    /// three are averaged — becomes its comparison's 1.0 or 0.0, as in
    /// [`Texture::sample`].
    pub fn sample_cube(
        &self,
        mmu: &Mmu,
        smp: &SamplerState,
        (packed_s, t): (u32, f32),
        cube: u32,
        lod: f32,
        dref: Option<f32>,
    ) -> Result<[u32; 4], JobFault> {
        let face = packed_s >> 29;
        if face > 5 || self.dim != 0 {
            return Err(config(
                self.va,
                "a cube face above 5, or a cube read of another dimension",
            ));
        }
        let s = f32::from_bits(packed_s & 0x1fff_ffff | 0x2000_0000);
        self.sample_at(mmu, smp, [s, t, face as f32], cube, lod, [0, 0], dref)
    }
}

impl SamplerState {
    /// Unpacks sampler `index` of the table at `samplers` (`count` entries).
    pub fn read(
        mmu: &Mmu,
        arch: Arch,
        samplers: u64,
        index: u32,
        count: u32,
    ) -> Result<SamplerState, JobFault> {
        let l = crate::hw::layouts(arch);
        if samplers == 0 || index >= count {
            return Err(config(samplers, "no such sampler"));
        }
        let sva = samplers + SAMPLER_BYTES * u64::from(index);
        let sm = mmu.read_words(sva, l.sampler.words as usize)?;
        if l.sampler.check_reserved(&sm).is_err() {
            return Err(config(sva, "reserved bits set in Sampler"));
        }
        let nearest = sampler::MAGNIFY_NEAREST.get(&sm) != 0;
        let ws = sampler::WRAP_MODE_S.get(&sm);
        let wt = sampler::WRAP_MODE_T.get(&sm);
        let wr = sampler::WRAP_MODE_R.get(&sm);
        let mipmap = sampler::MIPMAP_MODE.get(&sm);
        // `Magnify cutoff` (0.5 instead of 0 between the filters), the LOD
        // algorithm and anisotropy: other rules than Vulkan's isotropic
        // one, not simulated (the genxml defaults: cutoff 0, Isotropic,
        // 1×).
        if sampler::NORMALIZED_COORDINATES.get(&sm) == 0
            || !matches!(mipmap, MIPMAP_NEAREST | MIPMAP_TRILINEAR)
            || sampler::MAGNIFY_CUTOFF.get(&sm) != 0
            || sampler::LOD_ALGORITHM.get(&sm) != 0
            || sampler::MAXIMUM_ANISOTROPY.get(&sm) != 1
            || ![ws, wt, wr].iter().all(|w| {
                matches!(
                    *w,
                    REPEAT | CLAMP_TO_EDGE | CLAMP_TO_BORDER | MIRRORED_REPEAT
                )
            })
        {
            return Err(config(sva, "sampler state not simulated"));
        }
        let border = [
            sampler::BORDER_COLOR_R,
            sampler::BORDER_COLOR_G,
            sampler::BORDER_COLOR_B,
            sampler::BORDER_COLOR_A,
        ]
        .map(|f| f.get(&sm) as u32);
        // `ulod` (unsigned) and `slod` (signed, sign-extended by `get`):
        // 8 fractional bits.
        let lod = |v: u64| (v as i64 as f64 / 256.0) as f32;
        Ok(SamplerState {
            nearest,
            min_nearest: sampler::MINIFY_NEAREST.get(&sm) != 0,
            trilinear: mipmap == MIPMAP_TRILINEAR,
            min_lod: lod(sampler::MINIMUM_LOD.get(&sm)),
            max_lod: lod(sampler::MAXIMUM_LOD.get(&sm)),
            bias: lod(sampler::LOD_BIAS.get(&sm)),
            wrap: [ws, wt, wr],
            border,
            clamp_array: sampler::CLAMP_INTEGER_ARRAY_INDICES.get(&sm) != 0,
            compare: sampler::COMPARE_FUNCTION.get(&sm),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{cube_neighbour, wrap};

    /// Every texel one step outside every face of cubes of 1–12 texels a
    /// side: the simulator's neighbour (a reprojected direction) is the
    /// reference sampler's (an integer lattice, `testing::sampler`), and
    /// crossing back from that texel over the same edge lands on the
    /// face's own edge texel.
    #[test]
    fn cube_edges_agree_with_the_reference_lattice() {
        let mut checked = 0;
        for n in 1..=12u32 {
            let m = i64::from(n);
            for face in 0..6 {
                for k in 0..m {
                    for (i, j) in [(-1, k), (m, k), (k, -1), (k, m)] {
                        let (f, x, y) = cube_neighbour(face, (i, j), n);
                        let r = crate::testing::sampler::cube_edge_texel(face, (i, j), m);
                        assert_eq!(
                            (f, i64::from(x), i64::from(y)),
                            r,
                            "n {n} face {face} ({i}, {j})"
                        );
                        // The way back: the texel outside face f next to
                        // (x, y), on the side facing the original face.
                        let back = [
                            (i64::from(x) - 1, i64::from(y)),
                            (i64::from(x) + 1, i64::from(y)),
                            (i64::from(x), i64::from(y) - 1),
                            (i64::from(x), i64::from(y) + 1),
                        ]
                        .into_iter()
                        .filter(|&(a, b)| !(0..m).contains(&a) || !(0..m).contains(&b))
                        .map(|ab| cube_neighbour(f, ab, n))
                        .any(|(g, a, b)| {
                            g == face
                                && (i64::from(a), i64::from(b))
                                    == (i.clamp(0, m - 1), j.clamp(0, m - 1))
                        });
                        assert!(
                            back,
                            "n {n} face {face} ({i}, {j}) → {f} ({x}, {y}) has no way back"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 6 * 4 * (1..=12).sum::<i32>());
    }

    #[test]
    fn wrap_modes() {
        // Clamp to edge, repeat, mirrored repeat over 4 texels.
        let idx = [-2i64, -1, 0, 3, 4, 5, 8];
        let w = |m| idx.map(|i| wrap(m, i, 4).map_or(-1, i64::from));
        assert_eq!(w(9), [0, 0, 0, 3, 3, 3, 3]);
        assert_eq!(w(8), [2, 3, 0, 3, 0, 1, 0]);
        assert_eq!(w(12), [1, 0, 0, 3, 3, 2, 0]);
        assert_eq!(w(11), [-1, -1, 0, 3, -1, -1, -1]);
    }
}
