//! Per-sample operations from the Vulkan specification: the depth test
//! ("Depth Test", `VkCompareOp`), blending ("Blending": `VkBlendFactor`,
//! `VkBlendOp`, the colour write mask) and a multisampled target they write,
//! with the average resolve of "Multisample Resolve"
//! (`VK_RESOLVE_MODE_AVERAGE_BIT`). Colours are `[f64; 4]` RGBA; a target
//! of a fixed-point (UNORM) format clamps as "Blending" says.

use super::Fragment;

/// `VkCompareOp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    Never,
    Less,
    Equal,
    LessOrEqual,
    Greater,
    NotEqual,
    GreaterOrEqual,
    Always,
}

impl CompareOp {
    pub const ALL: [CompareOp; 8] = [
        CompareOp::Never,
        CompareOp::Less,
        CompareOp::Equal,
        CompareOp::LessOrEqual,
        CompareOp::Greater,
        CompareOp::NotEqual,
        CompareOp::GreaterOrEqual,
        CompareOp::Always,
    ];

    /// The test passes when `reference op stored` holds (the incoming
    /// fragment's depth is the left operand).
    pub fn test(self, reference: f64, stored: f64) -> bool {
        match self {
            CompareOp::Never => false,
            CompareOp::Less => reference < stored,
            CompareOp::Equal => reference == stored,
            CompareOp::LessOrEqual => reference <= stored,
            CompareOp::Greater => reference > stored,
            CompareOp::NotEqual => reference != stored,
            CompareOp::GreaterOrEqual => reference >= stored,
            CompareOp::Always => true,
        }
    }
}

/// `VkBlendFactor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlendFactor {
    Zero,
    One,
    SrcColor,
    OneMinusSrcColor,
    DstColor,
    OneMinusDstColor,
    SrcAlpha,
    OneMinusSrcAlpha,
    DstAlpha,
    OneMinusDstAlpha,
    ConstantColor,
    OneMinusConstantColor,
    ConstantAlpha,
    OneMinusConstantAlpha,
    SrcAlphaSaturate,
    Src1Color,
    OneMinusSrc1Color,
    Src1Alpha,
    OneMinusSrc1Alpha,
}

impl BlendFactor {
    pub const ALL: [BlendFactor; 19] = [
        BlendFactor::Zero,
        BlendFactor::One,
        BlendFactor::SrcColor,
        BlendFactor::OneMinusSrcColor,
        BlendFactor::DstColor,
        BlendFactor::OneMinusDstColor,
        BlendFactor::SrcAlpha,
        BlendFactor::OneMinusSrcAlpha,
        BlendFactor::DstAlpha,
        BlendFactor::OneMinusDstAlpha,
        BlendFactor::ConstantColor,
        BlendFactor::OneMinusConstantColor,
        BlendFactor::ConstantAlpha,
        BlendFactor::OneMinusConstantAlpha,
        BlendFactor::SrcAlphaSaturate,
        BlendFactor::Src1Color,
        BlendFactor::OneMinusSrc1Color,
        BlendFactor::Src1Alpha,
        BlendFactor::OneMinusSrc1Alpha,
    ];
}

/// `VkBlendOp` (the core five).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlendOp {
    Add,
    Subtract,
    ReverseSubtract,
    Min,
    Max,
}

impl BlendOp {
    pub const ALL: [BlendOp; 5] = [
        BlendOp::Add,
        BlendOp::Subtract,
        BlendOp::ReverseSubtract,
        BlendOp::Min,
        BlendOp::Max,
    ];
}

/// `VkPipelineColorBlendAttachmentState` plus the blend constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlendState {
    pub enable: bool,
    pub src_color: BlendFactor,
    pub dst_color: BlendFactor,
    pub color_op: BlendOp,
    pub src_alpha: BlendFactor,
    pub dst_alpha: BlendFactor,
    pub alpha_op: BlendOp,
    /// Bit 0 R, 1 G, 2 B, 3 A (`VkColorComponentFlags`).
    pub write_mask: u32,
    pub constants: [f64; 4],
}

impl Default for BlendState {
    fn default() -> BlendState {
        BlendState {
            enable: false,
            src_color: BlendFactor::One,
            dst_color: BlendFactor::Zero,
            color_op: BlendOp::Add,
            src_alpha: BlendFactor::One,
            dst_alpha: BlendFactor::Zero,
            alpha_op: BlendOp::Add,
            write_mask: 0xf,
            constants: [0.0; 4],
        }
    }
}

/// The factor `(f_r, f_g, f_b)` or `f_a` of the spec's "Blend Factors" table:
/// `rgb` selects the RGB column, otherwise the alpha column. `s0` is the
/// source colour, `s1` the second source (dual-source blending), `d` the
/// destination, `c` the constants.
pub fn factor(
    f: BlendFactor,
    rgb: bool,
    s0: [f64; 4],
    s1: [f64; 4],
    d: [f64; 4],
    c: [f64; 4],
) -> [f64; 4] {
    use BlendFactor::*;
    let splat = |v: f64| [v; 4];
    let inv = |v: [f64; 4]| v.map(|x| 1.0 - x);
    let v = match f {
        Zero => splat(0.0),
        One => splat(1.0),
        SrcColor => s0,
        OneMinusSrcColor => inv(s0),
        DstColor => d,
        OneMinusDstColor => inv(d),
        SrcAlpha => splat(s0[3]),
        OneMinusSrcAlpha => splat(1.0 - s0[3]),
        DstAlpha => splat(d[3]),
        OneMinusDstAlpha => splat(1.0 - d[3]),
        ConstantColor => c,
        OneMinusConstantColor => inv(c),
        ConstantAlpha => splat(c[3]),
        OneMinusConstantAlpha => splat(1.0 - c[3]),
        // RGB: min(As0, 1 - Ad); alpha: 1.
        SrcAlphaSaturate if rgb => splat(s0[3].min(1.0 - d[3])),
        SrcAlphaSaturate => splat(1.0),
        Src1Color => s1,
        OneMinusSrc1Color => inv(s1),
        Src1Alpha => splat(s1[3]),
        OneMinusSrc1Alpha => splat(1.0 - s1[3]),
    };
    if rgb { v } else { splat(v[3]) }
}

/// One channel of a blend operation ("Blend Operations" table):
/// `Add: s·sf + d·df`, `Subtract: s·sf - d·df`, `ReverseSubtract: d·df - s·sf`,
/// `Min: min(s, d)`, `Max: max(s, d)` (the factors do not apply to Min/Max).
pub fn blend_op(op: BlendOp, s: f64, sf: f64, d: f64, df: f64) -> f64 {
    match op {
        BlendOp::Add => s * sf + d * df,
        BlendOp::Subtract => s * sf - d * df,
        BlendOp::ReverseSubtract => d * df - s * sf,
        BlendOp::Min => s.min(d),
        BlendOp::Max => s.max(d),
    }
}

/// Blend `src` (and the second source `src1`) over `dst`. With `unorm`, the
/// sources, destination and constants are clamped to [0, 1] first, and the
/// result after (fixed-point attachments). The write mask keeps `dst` in
/// channels it clears.
pub fn blend(
    state: &BlendState,
    src: [f64; 4],
    src1: [f64; 4],
    dst: [f64; 4],
    unorm: bool,
) -> [f64; 4] {
    let clamp = |v: [f64; 4]| {
        if unorm {
            v.map(|x| x.clamp(0.0, 1.0))
        } else {
            v
        }
    };
    let (s0, s1, d, c) = (clamp(src), clamp(src1), clamp(dst), clamp(state.constants));
    let out = if state.enable {
        let sf_rgb = factor(state.src_color, true, s0, s1, d, c);
        let df_rgb = factor(state.dst_color, true, s0, s1, d, c);
        let sf_a = factor(state.src_alpha, false, s0, s1, d, c);
        let df_a = factor(state.dst_alpha, false, s0, s1, d, c);
        let mut out = [0.0; 4];
        for i in 0..3 {
            out[i] = blend_op(state.color_op, s0[i], sf_rgb[i], d[i], df_rgb[i]);
        }
        out[3] = blend_op(state.alpha_op, s0[3], sf_a[3], d[3], df_a[3]);
        clamp(out)
    } else {
        s0
    };
    std::array::from_fn(|i| {
        if state.write_mask & (1 << i) != 0 {
            out[i]
        } else {
            dst[i]
        }
    })
}

/// A multisampled colour + depth target: `samples` values per pixel, row
/// major, sample-minor.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    pub width: u32,
    pub height: u32,
    pub samples: u32,
    pub color: Vec<[f64; 4]>,
    pub depth: Vec<f64>,
    /// The stencil aspect (8 bits), cleared to 0.
    pub stencil: Vec<u8>,
    /// The colour attachment is fixed-point (clamps in blending).
    pub unorm: bool,
    /// `Some(b)`: the attachment stores `b`-bit UNORM channels, so every
    /// written colour (and the clear colour) is converted to that and back
    /// ("Conversion from Floating-Point to Normalized Fixed-Point", round
    /// to nearest) and later blends read the stored value. `None`: colours
    /// are kept exactly.
    pub unorm_bits: Option<u32>,
    /// `Some(n)`: the depth attachment is n-bit UNORM: each sample's depth
    /// is converted to it (nearest) before the test and the write.
    pub depth_bits: Option<u32>,
    /// `Some(bits)`: the attachment's channels are UNORM of these sizes
    /// (0: absent, stored as 0), overriding `unorm_bits`.
    pub channel_bits: Option<[u32; 4]>,
    /// `Some(16 | 32)`: a floating-point attachment of that size (no
    /// clamping; `unorm` false): every stored value is rounded to it
    /// ([`round_to_f16`], or to f32); `Some(11)`: R, G unsigned 11-bit and
    /// B unsigned 10-bit floats ([`round_to_unsigned_float`]), the
    /// `B10G11R11_UFLOAT_PACK32` layout.
    pub float_bits: Option<u32>,
    /// With `channel_bits`: the channels are SNORM of those sizes, stored
    /// as "Conversion from Floating-Point to Normalized Fixed-Point" says
    /// for signed formats (clamp to [−1, 1], × (2^(b−1) − 1), round to
    /// nearest) and read back as code / (2^(b−1) − 1) ("Conversion from
    /// Normalized Fixed-Point to Floating-Point": the most negative code
    /// reads as −1; this conversion never produces it).
    pub snorm: bool,
    /// The attachment is sRGB: `color` holds the stored (encoded) values,
    /// blending reads R, G, B linearized and writes them encoded ("Blend
    /// Operations": "the R, G, and B destination color values ... are
    /// considered to be encoded for the sRGB color space and hence are
    /// linearized prior to their use in blending", and the result is
    /// converted back).
    pub srgb: bool,
    /// Components the attachment's format has (1 R, 2 RG, 3 RGB, 4 RGBA):
    /// without alpha, blending reads the destination alpha as 1.
    pub components: u32,
    /// How many times each sample was written (tests count double writes).
    pub writes: Vec<u32>,
}

impl Target {
    pub fn new(width: u32, height: u32, samples: u32, clear: [f64; 4], clear_depth: f64) -> Target {
        let n = (width * height * samples) as usize;
        Target {
            width,
            height,
            samples,
            color: vec![clear; n],
            depth: vec![clear_depth; n],
            stencil: vec![0; n],
            unorm: true,
            unorm_bits: None,
            channel_bits: None,
            float_bits: None,
            snorm: false,
            srgb: false,
            depth_bits: None,
            components: 4,
            writes: vec![0; n],
        }
    }

    /// The target as a `bits`-bit UNORM attachment (see `unorm_bits`).
    pub fn with_unorm_bits(mut self, bits: u32) -> Target {
        self.unorm_bits = Some(bits);
        let color = self.color.iter().map(|&c| self.store(c)).collect();
        self.color = color;
        self
    }

    /// The target as a UNORM attachment of per-channel `bits` (0: absent),
    /// sRGB-encoded with `srgb` (see `channel_bits`, `srgb`); the clear
    /// colour is taken as linear and stored.
    pub fn with_unorm_format(mut self, bits: [u32; 4], srgb: bool) -> Target {
        self.channel_bits = Some(bits);
        self.srgb = srgb;
        let color = self.color.iter().map(|&c| self.store(c)).collect();
        self.color = color;
        self
    }

    /// The target as a SNORM attachment of per-channel `bits` (see
    /// `snorm`); the clear colour is stored.
    pub fn with_snorm_format(mut self, bits: [u32; 4]) -> Target {
        self.unorm = false;
        self.snorm = true;
        self.channel_bits = Some(bits);
        let color = self.color.iter().map(|&c| self.store(c)).collect();
        self.color = color;
        self
    }

    /// The target as a float attachment of `bits` (16 or 32), or an
    /// integer one (`None`: values stored as they are; 32-bit integer
    /// formats hold every value the tests write): no clamping, no
    /// normalization ("Fragment Output Interface": outputs are written
    /// to float and integer attachments as they are, converted to the
    /// attachment's size).
    pub fn with_float_or_int(mut self, bits: Option<u32>) -> Target {
        self.unorm = false;
        self.unorm_bits = None;
        self.channel_bits = None;
        self.float_bits = bits;
        let color = self.color.iter().map(|&c| self.store(c)).collect();
        self.color = color;
        self
    }

    /// The value blending reads from a stored colour (RGB linearized for
    /// an sRGB attachment).
    pub fn decode(&self, c: [f64; 4]) -> [f64; 4] {
        if !self.srgb {
            return c;
        }
        std::array::from_fn(|i| if i < 3 { srgb_to_linear(c[i]) } else { c[i] })
    }

    /// What the attachment holds after `c` is written to it ("Conversion
    /// from Floating-Point to Normalized Fixed-Point", round to nearest;
    /// RGB sRGB-encoded first for an sRGB attachment).
    pub fn store(&self, c: [f64; 4]) -> [f64; 4] {
        match self.float_bits {
            Some(16) => return c.map(round_to_f16),
            Some(11) => {
                return [
                    round_to_unsigned_float(c[0], 6),
                    round_to_unsigned_float(c[1], 6),
                    round_to_unsigned_float(c[2], 5),
                    c[3],
                ];
            }
            Some(_) => return c.map(|x| f64::from(x as f32)),
            None => {}
        }
        if let (Some(bits), true) = (self.channel_bits, self.snorm) {
            return std::array::from_fn(|i| {
                if bits[i] == 0 {
                    return 0.0;
                }
                let x = if c[i].is_nan() {
                    0.0
                } else {
                    c[i].clamp(-1.0, 1.0)
                };
                let max = f64::from((1u32 << (bits[i] - 1)) - 1);
                (x * max).round() / max
            });
        }
        if let Some(bits) = self.channel_bits {
            return std::array::from_fn(|i| {
                if bits[i] == 0 {
                    return 0.0;
                }
                let x = if c[i].is_nan() {
                    0.0
                } else {
                    c[i].clamp(0.0, 1.0)
                };
                let x = if self.srgb && i < 3 {
                    linear_to_srgb(x)
                } else {
                    x
                };
                let max = f64::from((1u32 << bits[i]) - 1);
                (x * max).round() / max
            });
        }
        match self.unorm_bits {
            None => c,
            Some(b) => {
                let max = f64::from((1u32 << b) - 1);
                c.map(|x| {
                    let x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
                    (x * max).round() / max
                })
            }
        }
    }

    pub fn index(&self, x: u32, y: u32, sample: u32) -> usize {
        ((y * self.width + x) * self.samples + sample) as usize
    }

    /// The resolved frame as RGBA8 UNORM bytes (`round(clamp(c) × 255)`,
    /// "Conversion from Floating-Point to Normalized Fixed-Point"), e.g. for
    /// `testing::png`.
    pub fn resolve_rgba8(&self) -> Vec<u8> {
        self.resolve()
            .iter()
            .flat_map(|p| p.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8))
            .collect()
    }

    /// The average of each pixel's samples (`VK_RESOLVE_MODE_AVERAGE_BIT`).
    pub fn resolve(&self) -> Vec<[f64; 4]> {
        (0..self.width * self.height)
            .map(|p| {
                let s = &self.color[(p * self.samples) as usize..((p + 1) * self.samples) as usize];
                std::array::from_fn(|c| {
                    s.iter().map(|v| v[c]).sum::<f64>() / f64::from(self.samples)
                })
            })
            .collect()
    }
}

/// `x` rounded to the nearest IEEE binary16 value (the Vulkan spec's
/// "16-bit floating-point numbers": 1 sign bit, 5 exponent bits with bias
/// 15, 10 mantissa bits, denormals below 2^-14), ties to even; values from
/// 65520 up (half a unit above the largest finite 65504) become infinite.
pub fn round_to_f16(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let a = x.abs();
    if a >= 65520.0 {
        return f64::INFINITY.copysign(x);
    }
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    // The spacing of binary16 values around `a`: 2^(e - 10), or 2^-24
    // among the denormals.
    let q = 2f64.powi(e.max(-14) - 10);
    ((a / q).round_ties_even() * q).copysign(x)
}

/// `x` as an unsigned float of 5 exponent bits (bias 15) and `mantissa`
/// bits (the spec's "Unsigned 11-Bit Floating-Point Numbers" with 6,
/// "Unsigned 10-Bit Floating-Point Numbers" with 5): negative values (and
/// −0) become 0 ("for unsigned destination formats any negative values
/// are converted to zero", "Floating-Point Format Conversions"); others
/// are rounded to nearest, ties to even (the spec leaves the rounding
/// mode open: our choice); past the largest finite value, 2^15 × (2 −
/// 2^-mantissa), they become infinite (also allowed).
pub fn round_to_unsigned_float(x: f64, mantissa: i32) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x <= 0.0 {
        return 0.0;
    }
    if x.is_infinite() {
        return x;
    }
    let e = (((x.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(-14);
    let q = 2f64.powi(e - mantissa);
    let r = (x / q).round_ties_even() * q;
    if r > 2f64.powi(15) * (2.0 - 2f64.powi(-mantissa)) {
        f64::INFINITY
    } else {
        r
    }
}

/// The sRGB EOTF (Khronos Data Format Specification, "sRGB transfer
/// functions", which the Vulkan spec's sRGB formats refer to): an encoded
/// value in [0, 1] → linear.
pub fn srgb_to_linear(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// The inverse EOTF: linear → sRGB-encoded.
pub fn linear_to_srgb(l: f64) -> f64 {
    if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    }
}

/// Depth state (`VkPipelineDepthStencilStateCreateInfo`, depth part).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthState {
    pub test: bool,
    pub write: bool,
    pub compare: CompareOp,
}

impl Default for DepthState {
    fn default() -> DepthState {
        DepthState {
            test: false,
            write: false,
            compare: CompareOp::Always,
        }
    }
}

/// `VkStencilOp`, in Vulkan's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StencilOp {
    Keep,
    Zero,
    Replace,
    IncrementAndClamp,
    DecrementAndClamp,
    Invert,
    IncrementAndWrap,
    DecrementAndWrap,
}

impl StencilOp {
    pub const ALL: [StencilOp; 8] = [
        StencilOp::Keep,
        StencilOp::Zero,
        StencilOp::Replace,
        StencilOp::IncrementAndClamp,
        StencilOp::DecrementAndClamp,
        StencilOp::Invert,
        StencilOp::IncrementAndWrap,
        StencilOp::DecrementAndWrap,
    ];

    /// The new stencil value (the "Stencil Test" table, 8-bit attachment:
    /// clamping at 0 and 255, wrapping modulo 256).
    pub fn apply(self, s: u8, reference: u8) -> u8 {
        match self {
            StencilOp::Keep => s,
            StencilOp::Zero => 0,
            StencilOp::Replace => reference,
            StencilOp::IncrementAndClamp => s.saturating_add(1),
            StencilOp::DecrementAndClamp => s.saturating_sub(1),
            StencilOp::Invert => !s,
            StencilOp::IncrementAndWrap => s.wrapping_add(1),
            StencilOp::DecrementAndWrap => s.wrapping_sub(1),
        }
    }
}

/// `VkStencilOpState`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilFace {
    pub fail: StencilOp,
    pub pass: StencilOp,
    pub depth_fail: StencilOp,
    pub compare: CompareOp,
    pub compare_mask: u8,
    pub write_mask: u8,
    pub reference: u8,
}

/// `stencilTestEnable` with the front and back faces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilState {
    pub front: StencilFace,
    pub back: StencilFace,
}

/// How the depth attachment resolves depth (the "Depth Bias" section's r).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthResolution {
    /// An n-bit UNORM format: r = 2^-n.
    Unorm(u32),
    /// A 32-bit float format: r = 2^(e − 23), e the exponent of the
    /// largest |z| in the primitive.
    Float32,
}

/// Vulkan "Depth Bias" for a polygon with framebuffer-coordinate vertices
/// `v` (x, y, z): o = m × slope + r × constant, m = max(|∂z/∂x|, |∂z/∂y|)
/// (the spec's allowed approximation of the gradient's length), then the
/// clamp (0 or NaN: none; positive: min; negative: max).
pub fn depth_bias(
    v: [[f64; 3]; 3],
    constant: f64,
    slope: f64,
    clamp: f64,
    resolution: DepthResolution,
) -> f64 {
    let (x1, y1, z1) = (v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2]);
    let (x2, y2, z2) = (v[2][0] - v[0][0], v[2][1] - v[0][1], v[2][2] - v[0][2]);
    let det = x1 * y2 - x2 * y1;
    let m = if det == 0.0 {
        0.0
    } else {
        ((z1 * y2 - z2 * y1) / det)
            .abs()
            .max(((x1 * z2 - x2 * z1) / det).abs())
    };
    let r = match resolution {
        DepthResolution::Unorm(n) => 2f64.powi(-(n as i32)),
        DepthResolution::Float32 => {
            let zmax = v.iter().map(|p| p[2].abs()).fold(0.0, f64::max);
            2f64.powi(zmax.log2().floor() as i32 - 23)
        }
    };
    let o = m * slope + r * constant;
    if clamp > 0.0 {
        o.min(clamp)
    } else if clamp < 0.0 {
        o.max(clamp)
    } else {
        o
    }
}

/// Run the per-sample operations for fragments: the fragment shader
/// `shade` gives a colour (and second source) or `None` (discard); then for
/// each covered sample the depth test (depth clamped to [0, 1] first, as
/// without `depthClampEnable` the viewport depth range bounds it), the depth
/// write, blending and the write mask.
pub fn shade_fragments(
    target: &mut Target,
    fragments: &[Fragment],
    depth: &DepthState,
    blend_state: &BlendState,
    shade: impl FnMut(&Fragment) -> Option<([f64; 4], [f64; 4])>,
) {
    let zs = ZsState {
        depth: *depth,
        ..ZsState::default()
    };
    shade_fragments_zs(target, fragments, &zs, blend_state, shade);
}

/// Depth/stencil state of a primitive's fragments.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ZsState {
    pub depth: DepthState,
    pub stencil: Option<StencilState>,
    /// The depth bias o added to every sample's depth ([`depth_bias`]).
    pub depth_offset: f64,
}

/// The coverage mask alpha-to-coverage makes of `alpha` ("Multisample
/// Coverage": implementation-dependent, no samples at alpha 0, all at 1,
/// more samples for larger alpha). Our choice, which the simulator makes
/// too: the lowest ⌊alpha × samples + ½⌋ samples, alpha clamped to [0, 1].
pub fn alpha_to_coverage_mask(alpha: f64, samples: u32) -> u32 {
    let a = if alpha.is_nan() {
        0.0
    } else {
        alpha.clamp(0.0, 1.0)
    };
    let n = ((a * f64::from(samples) + 0.5).floor() as u32).min(samples);
    if n >= 32 { u32::MAX } else { (1u32 << n) - 1 }
}

/// What a fragment shader gives the per-sample operations: its colour
/// (and second source), and `FragDepth` when it writes it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Shaded {
    pub colour: [f64; 4],
    pub src1: [f64; 4],
    pub depth: Option<f64>,
    /// `SampleMask` when the shader writes it: the fragment's coverage is
    /// ANDed with it ("Sample Mask" output in the spec's "Fragment Shader
    /// Outputs"; before the depth/stencil tests unless they ran early).
    pub sample_mask: Option<u32>,
}

/// [`shade_fragments`] with the stencil test and depth bias ("Stencil
/// Test", "Depth Test", "Depth Bias"): per covered sample (the front or
/// back stencil state by the fragment's facing), depth + o
/// clamped to [0, 1]; the stencil test `(reference & compareMask) op
/// (stored & compareMask)`, failing → `failOp`; the depth test, →
/// `depthFailOp` or `passOp` (written through `writeMask`); the depth write;
/// blending. Returns the samples that passed both tests (what a precise
/// occlusion query counts).
pub fn shade_fragments_zs(
    target: &mut Target,
    fragments: &[Fragment],
    zs: &ZsState,
    blend_state: &BlendState,
    mut shade: impl FnMut(&Fragment) -> Option<([f64; 4], [f64; 4])>,
) -> u64 {
    shade_fragments_tests(target, fragments, zs, blend_state, false, |f| {
        shade(f).map(|(colour, src1)| Shaded {
            colour,
            src1,
            depth: None,
            sample_mask: None,
        })
    })
}

/// [`shade_fragments_zs`] with the shader's `FragDepth` and the
/// `EarlyFragmentTests` execution mode ("Fragment Operations", "Early
/// Fragment Test Mode"): without `early`, the shader runs first — a
/// discarded fragment (`None`) changes nothing, not even the stencil or
/// the counted samples — and its `FragDepth`, when written, replaces every
/// sample's depth (depth bias applies to rasterized depths only); with
/// `early`, the tests, the depth/stencil writes and the sample counting
/// run before the shader with the rasterized depth, the shader's depth is
/// ignored, and a discard only drops the colour of the samples that passed.
pub fn shade_fragments_tests(
    target: &mut Target,
    fragments: &[Fragment],
    zs: &ZsState,
    blend_state: &BlendState,
    early: bool,
    mut shade: impl FnMut(&Fragment) -> Option<Shaded>,
) -> u64 {
    let depth = &zs.depth;
    let mut passed = 0;
    for f in fragments {
        // The fragment's facing picks the stencil state ("Stencil Test").
        let face = zs
            .stencil
            .map(|s| if f.front_facing { s.front } else { s.back });
        let shaded = if early { None } else { shade(f) };
        if !early && shaded.is_none() {
            continue;
        }
        let mut survivors = 0u32;
        // The shader's SampleMask leaves the coverage before the late
        // tests (after them when they ran early: it drops colour only).
        let coverage = f.mask & shaded.and_then(|o| o.sample_mask).unwrap_or(u32::MAX);
        for s in 0..target.samples {
            if coverage & (1 << s) == 0 {
                continue;
            }
            let i = target.index(f.x, f.y, s);
            let raw = match shaded.and_then(|o| o.depth) {
                Some(d) => d,
                None => f.depth[s as usize] + zs.depth_offset,
            };
            let mut z = raw.clamp(0.0, 1.0);
            if let Some(n) = target.depth_bits {
                let max = f64::from((1u32 << n) - 1);
                z = (z * max).round() / max;
            }
            if let Some(face) = &face {
                let st = target.stencil[i];
                let write = |new: u8| (st & !face.write_mask) | (new & face.write_mask);
                let pass = face.compare.test(
                    f64::from(face.reference & face.compare_mask),
                    f64::from(st & face.compare_mask),
                );
                if !pass {
                    target.stencil[i] = write(face.fail.apply(st, face.reference));
                    continue;
                }
                let depth_ok = !depth.test || depth.compare.test(z, target.depth[i]);
                let op = if depth_ok { face.pass } else { face.depth_fail };
                target.stencil[i] = write(op.apply(st, face.reference));
            }
            if depth.test && !depth.compare.test(z, target.depth[i]) {
                continue;
            }
            if depth.test && depth.write {
                target.depth[i] = z;
            }
            passed += 1;
            survivors |= 1 << s;
        }
        let shaded = if early { shade(f) } else { shaded };
        let Some(out) = shaded else {
            continue;
        };
        if let Some(m) = out.sample_mask {
            survivors &= m;
        }
        for s in 0..target.samples {
            if survivors & (1 << s) == 0 {
                continue;
            }
            let i = target.index(f.x, f.y, s);
            let mut dst = target.decode(target.color[i]);
            if target.components < 4 {
                dst[3] = 1.0;
            }
            let c = blend(blend_state, out.colour, out.src1, dst, target.unorm);
            target.color[i] = target.store(c);
            target.writes[i] += 1;
        }
    }
    passed
}
