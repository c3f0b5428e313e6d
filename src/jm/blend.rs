//! Vulkan colour blending onto the fixed-function blend unit (genxml
//! v6.xml/v7.xml "Blend", "Blend Equation", "Blend Function").
//!
//! The unit computes, per channel, `±A + ±B × C'` with A ∈ {0, src, dst},
//! B ∈ {src − dst, src + dst, src, dst}, C' = C or 1 − C ("Invert C") and
//! C ∈ {0, src, dst, 2·src, src α, dst α, constant}; "src"/"dst" are the
//! channel's own values (in the alpha function: the alphas). One 16-bit
//! constant serves every channel. (The reading of the fields as that
//! formula is Mesa's `src/panfrost/lib/pan_blend.c`; the algebra below is
//! ours, from the Vulkan spec's "Blend Factors" and "Blend Operations"
//! tables.)
//!
//! A Vulkan equation `op(s·f_s, d·f_d)` fits when
//! - `op` is ADD, SUBTRACT or REVERSE_SUBTRACT (MIN and MAX need a blend
//!   shader);
//! - neither factor is dual-source (SRC1_*) and, in the colour equation,
//!   neither is SRC_ALPHA_SATURATE (in the alpha equation it is 1);
//! - one factor is ZERO or ONE, or both scale by the same operand C
//!   (possibly one of them inverted: `f` and `1 − f`), or the equation is
//!   ADD of `s·d + d·s` (DST_COLOR / SRC_COLOR, or DST_ALPHA / SRC_ALPHA in
//!   the alpha equation) = `d × 2s`;
//! - the blend-constant channels the equations read are all the same value
//!   (the unit has one constant).
//!
//! In the alpha equation the colour factors name alpha (Vulkan: SRC_COLOR
//! gives A_s there, CONSTANT_COLOR A_c, ...), so they are normalised to
//! their alpha forms first; that lets more pairs match than in Mesa's
//! `can_fixed_function_equation`, which compares the Gallium factors as
//! given.
//!
//! Everything else needs a blend shader ([`needs_blend_shader`],
//! `compiler::bifrost::blend`), dual-source factors included (the blend
//! shader reads the second colour from r4–r7).

use super::error::{JmError, JmResult};

/// `VkBlendFactor`, `VkBlendOp` and a blend-enabled attachment's equation:
/// the compiler's, which builds the blend shaders for what the unit
/// cannot do.
pub use crate::compiler::bifrost::blend::{BlendEquation, BlendFactor, BlendOp};

impl BlendEquation {
    /// SRC_ALPHA / ONE_MINUS_SRC_ALPHA, ADD, for colour and alpha.
    pub const SRC_ALPHA_OVER: BlendEquation = BlendEquation {
        src_color: BlendFactor::SrcAlpha,
        dst_color: BlendFactor::OneMinusSrcAlpha,
        color_op: BlendOp::Add,
        src_alpha: BlendFactor::SrcAlpha,
        dst_alpha: BlendFactor::OneMinusSrcAlpha,
        alpha_op: BlendOp::Add,
        constants: [0.0; 4],
    };
}

/// genxml "Blend Operand C".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OperandC {
    Zero = 1,
    Src = 2,
    Dest = 3,
    SrcX2 = 4,
    SrcAlpha = 5,
    DestAlpha = 6,
    Constant = 7,
}

/// A factor as the unit sees it: operand C, inverted or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Scale {
    c: OperandC,
    invert: bool,
}

impl Scale {
    fn is_zero(self) -> bool {
        self.c == OperandC::Zero && !self.invert
    }
    fn is_one(self) -> bool {
        self.c == OperandC::Zero && self.invert
    }
}

/// One packed "Blend Function" (12 bits) and its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Function {
    /// Operand A: Zero 1, Src 2, Dest 3.
    pub a: u64,
    pub negate_a: bool,
    /// Operand B: Src Minus Dest 0, Src Plus Dest 1, Src 2, Dest 3.
    pub b: u64,
    pub negate_b: bool,
    /// Operand C (genxml values).
    pub c: u64,
    pub invert_c: bool,
}

impl Function {
    /// `src` replaces the destination (A = Src, B = Src, C = 0: what
    /// PanVk writes for an equation without blending).
    pub const REPLACE: Function = Function {
        a: 2,
        negate_a: false,
        b: 2,
        negate_b: false,
        c: OperandC::Zero as u64,
        invert_c: false,
    };

    /// Whether the function reads the destination.
    pub fn reads_dest(&self) -> bool {
        let c_zero = self.c == OperandC::Zero as u64 && !self.invert_c;
        let c_dest = self.c == OperandC::Dest as u64 || self.c == OperandC::DestAlpha as u64;
        self.a == 3 || c_dest || (!c_zero && matches!(self.b, 0 | 1 | 3))
    }
}

/// What the Blend descriptor of a blending target holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedFunction {
    pub rgb: Function,
    pub alpha: Function,
    /// The constant channel value in [0, 1] the functions read (0 if none).
    pub constant: f32,
    /// Source alpha 0 leaves every written channel as it was, source
    /// alpha 1 writes the source (genxml "Alpha Zero NOP", "Alpha One
    /// Store"; see [`alpha_zero_nop`], [`alpha_one_store`]).
    pub alpha_zero_nop: bool,
    pub alpha_one_store: bool,
}

fn refuse(what: &'static str) -> JmError {
    JmError::Encoding(what)
}

/// The factor's operand, or why the unit cannot scale by it.
fn scale(f: BlendFactor, alpha: bool) -> JmResult<Scale> {
    use BlendFactor::*;
    let s = |c, invert| Ok(Scale { c, invert });
    // In the alpha equation the colour factors are their alpha forms.
    let f = match (alpha, f) {
        (true, SrcColor) => SrcAlpha,
        (true, OneMinusSrcColor) => OneMinusSrcAlpha,
        (true, DstColor) => DstAlpha,
        (true, OneMinusDstColor) => OneMinusDstAlpha,
        (true, ConstantColor) => ConstantAlpha,
        (true, OneMinusConstantColor) => OneMinusConstantAlpha,
        // The spec's alpha column: SRC_ALPHA_SATURATE is 1.
        (true, SrcAlphaSaturate) => One,
        _ => f,
    };
    match f {
        Zero => s(OperandC::Zero, false),
        One => s(OperandC::Zero, true),
        SrcColor => s(OperandC::Src, false),
        OneMinusSrcColor => s(OperandC::Src, true),
        DstColor => s(OperandC::Dest, false),
        OneMinusDstColor => s(OperandC::Dest, true),
        SrcAlpha => s(OperandC::SrcAlpha, false),
        OneMinusSrcAlpha => s(OperandC::SrcAlpha, true),
        DstAlpha => s(OperandC::DestAlpha, false),
        OneMinusDstAlpha => s(OperandC::DestAlpha, true),
        ConstantColor | ConstantAlpha => s(OperandC::Constant, false),
        OneMinusConstantColor | OneMinusConstantAlpha => s(OperandC::Constant, true),
        SrcAlphaSaturate => Err(refuse(
            "SRC_ALPHA_SATURATE in the colour equation needs a blend shader",
        )),
        Src1Color | OneMinusSrc1Color | Src1Alpha | OneMinusSrc1Alpha => {
            Err(refuse("dual-source blend factors need a blend shader"))
        }
    }
}

/// `op(s·sf, d·df)` as `±A + ±B × C'` (`alpha`: the alpha function, whose
/// src and dst are the alphas).
fn function(op: BlendOp, sf: Scale, df: Scale, alpha: bool) -> JmResult<Function> {
    const A_ZERO: u64 = 1;
    const A_SRC: u64 = 2;
    const A_DEST: u64 = 3;
    const B_SRC_MINUS_DEST: u64 = 0;
    const B_SRC_PLUS_DEST: u64 = 1;
    const B_SRC: u64 = 2;
    const B_DEST: u64 = 3;
    let (sub, rsub) = match op {
        BlendOp::Add => (false, false),
        BlendOp::Subtract => (true, false),
        BlendOp::ReverseSubtract => (false, true),
        BlendOp::Min | BlendOp::Max => {
            return Err(refuse("MIN and MAX blend ops need a blend shader"));
        }
    };
    let f = |a, negate_a, b, negate_b, k: Scale| Function {
        a,
        negate_a,
        b,
        negate_b,
        c: k.c as u64,
        invert_c: k.invert,
    };
    Ok(if sf.is_zero() {
        // ADD, REV_SUB: d·df; SUB: −d·df.
        f(A_ZERO, false, B_DEST, sub, df)
    } else if sf.is_one() {
        // ADD: s + d·df; SUB: s − d·df; REV_SUB: −s + d·df.
        f(A_SRC, rsub, B_DEST, sub, df)
    } else if df.is_zero() {
        // ADD, SUB: s·sf; REV_SUB: −s·sf.
        f(A_ZERO, false, B_SRC, rsub, sf)
    } else if df.is_one() {
        // ADD: d + s·sf; SUB: −d + s·sf; REV_SUB: d − s·sf.
        f(A_DEST, sub, B_SRC, rsub, sf)
    } else if sf == df {
        // ADD: (s + d)·f; SUB: (s − d)·f; REV_SUB: −(s − d)·f.
        let b = if sub || rsub {
            B_SRC_MINUS_DEST
        } else {
            B_SRC_PLUS_DEST
        };
        f(A_ZERO, false, b, rsub, sf)
    } else if sf.c == df.c {
        // df = 1 − sf. ADD: s·f + d − d·f = d + (s − d)·f;
        // SUB: s·f − d + d·f = −d + (s + d)·f; REV_SUB: d − (s + d)·f.
        if sub || rsub {
            f(A_DEST, sub, B_SRC_PLUS_DEST, rsub, sf)
        } else {
            f(A_DEST, false, B_SRC_MINUS_DEST, false, sf)
        }
    } else if !sub && !rsub && (sf.c, df.c, sf.invert, df.invert) == two_s_d(alpha) {
        // s·d + d·s = d × 2s.
        f(
            A_ZERO,
            false,
            B_DEST,
            false,
            Scale {
                c: OperandC::SrcX2,
                invert: false,
            },
        )
    } else {
        return Err(refuse(
            "blend factors that differ and are neither ZERO nor ONE need a blend shader",
        ));
    })
}

/// The operands of `d·s + s·d` with neither inverted: DST_COLOR, SRC_COLOR
/// (alpha: DST_ALPHA, SRC_ALPHA).
fn two_s_d(alpha: bool) -> (OperandC, OperandC, bool, bool) {
    if alpha {
        (OperandC::DestAlpha, OperandC::SrcAlpha, false, false)
    } else {
        (OperandC::Dest, OperandC::Src, false, false)
    }
}

/// The colour channels (bit 0 R … bit 3 A) of the blend constants that a
/// factor of the colour (`alpha` false) or alpha equation reads.
fn constant_channels(f: BlendFactor, alpha: bool) -> u8 {
    use BlendFactor::*;
    match f {
        ConstantColor | OneMinusConstantColor if !alpha => 0b0111,
        ConstantColor | OneMinusConstantColor | ConstantAlpha | OneMinusConstantAlpha => 0b1000,
        _ => 0,
    }
}

/// Whether a UNORM target blending with `eq` and `write_mask` needs a
/// blend shader (the unit cannot express it; dual-source factors always
/// do: the unit has no operand for the second colour). The `Result` is
/// kept for states no blend shader serves (none at present).
pub fn needs_blend_shader(eq: &BlendEquation, write_mask: u8) -> JmResult<bool> {
    Ok(fixed_function(eq, write_mask).is_err())
}

/// Whether `eq` reads the second colour of dual-source blending.
pub fn is_dual_source(eq: &BlendEquation) -> bool {
    [eq.src_color, eq.dst_color, eq.src_alpha, eq.dst_alpha]
        .iter()
        .any(|f| f.is_dual_source())
}

/// The blend shader of render target `rt` blending with `eq` and
/// `write_mask`; `internal` is the Internal Blend (mode Opaque, the
/// target's conversion with the colour's register format) its own BLEND
/// writes with, whose second word is LD_TILE's conversion; `integer`
/// targets only mask (the equation is ONE/ZERO ADD).
pub fn shader_desc(
    eq: &BlendEquation,
    write_mask: u8,
    rt: u8,
    unorm: bool,
    integer: bool,
    internal: [u32; 2],
) -> crate::compiler::bifrost::blend::BlendShaderDesc {
    crate::compiler::bifrost::blend::BlendShaderDesc {
        rt,
        equation: *eq,
        write_mask,
        unorm,
        integer,
        conversion: internal[1],
        descriptor: internal,
        multisampled: false,
    }
}

/// The fixed-function encoding of `eq` for a colour target that writes
/// the channels of `write_mask`, or why there is none. Channels masked out
/// of `write_mask` are not written, so their equation does not matter (it
/// is still encoded).
pub fn fixed_function(eq: &BlendEquation, write_mask: u8) -> JmResult<FixedFunction> {
    let rgb = function(
        eq.color_op,
        scale(eq.src_color, false)?,
        scale(eq.dst_color, false)?,
        false,
    )?;
    let alpha = function(
        eq.alpha_op,
        scale(eq.src_alpha, true)?,
        scale(eq.dst_alpha, true)?,
        true,
    )?;
    let used = constant_channels(eq.src_color, false)
        | constant_channels(eq.dst_color, false)
        | constant_channels(eq.src_alpha, true)
        | constant_channels(eq.dst_alpha, true);
    // UNORM targets clamp the constants to [0, 1] (Vulkan "Blending").
    let clamp = |v: f32| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    let mut constant = None;
    for (i, &c) in eq.constants.iter().enumerate() {
        if used & (1 << i) == 0 {
            continue;
        }
        match constant {
            None => constant = Some(clamp(c)),
            Some(k) if k != clamp(c) => {
                return Err(refuse(
                    "blend constants the equation reads differ (fixed-function blending has one)",
                ));
            }
            Some(_) => {}
        }
    }
    Ok(FixedFunction {
        rgb,
        alpha,
        constant: constant.unwrap_or(0.0),
        alpha_zero_nop: alpha_zero_nop(eq, write_mask),
        alpha_one_store: alpha_one_store(eq, write_mask),
    })
}

/// `eq` for a colour attachment without an alpha component, whose
/// destination alpha blending reads as 1 (Vulkan "Blending": "if the
/// color attachment format has no alpha component, the destination alpha
/// ... 1.0" is what we implement, as Mesa's `util_blend_dst_alpha_to_one`
/// does before choosing fixed function): DST_ALPHA (and DST_COLOR in the
/// alpha equation) → ONE, their inverses → ZERO, SRC_ALPHA_SATURATE in
/// the colour equation (min(A_s, 1 − 1)) → ZERO.
pub fn without_destination_alpha(eq: &BlendEquation) -> BlendEquation {
    use BlendFactor::*;
    let rgb = |f: BlendFactor| match f {
        DstAlpha => One,
        OneMinusDstAlpha | SrcAlphaSaturate => Zero,
        f => f,
    };
    let alpha = |f: BlendFactor| match f {
        DstAlpha | DstColor => One,
        OneMinusDstAlpha | OneMinusDstColor => Zero,
        f => f,
    };
    BlendEquation {
        src_color: rgb(eq.src_color),
        dst_color: rgb(eq.dst_color),
        src_alpha: alpha(eq.src_alpha),
        dst_alpha: alpha(eq.dst_alpha),
        ..*eq
    }
}

/// The value of factor `f` when the source alpha is `a` (0 or 1), if it
/// does not depend on anything else.
fn factor_at_alpha(f: BlendFactor, alpha_eq: bool, a: f32) -> Option<f32> {
    use BlendFactor::*;
    match f {
        Zero => Some(0.0),
        One => Some(1.0),
        SrcAlpha => Some(a),
        OneMinusSrcAlpha => Some(1.0 - a),
        SrcColor if alpha_eq => Some(a),
        OneMinusSrcColor if alpha_eq => Some(1.0 - a),
        SrcAlphaSaturate if alpha_eq => Some(1.0),
        _ => None,
    }
}

/// Whether source alpha 0 leaves every channel of `write_mask` as the
/// destination had it: the colour needs `0·s + 1·d` (ADD or
/// REVERSE_SUBTRACT with f_s = 0, f_d = 1); alpha (s = 0) needs f_d = 1
/// and ADD or REVERSE_SUBTRACT.
pub fn alpha_zero_nop(eq: &BlendEquation, write_mask: u8) -> bool {
    let keeps = |op: BlendOp, sf: BlendFactor, df: BlendFactor, alpha: bool| {
        matches!(op, BlendOp::Add | BlendOp::ReverseSubtract)
            && factor_at_alpha(df, alpha, 0.0) == Some(1.0)
            && (alpha || factor_at_alpha(sf, alpha, 0.0) == Some(0.0))
    };
    (write_mask & 7 == 0 || keeps(eq.color_op, eq.src_color, eq.dst_color, false))
        && (write_mask & 8 == 0 || keeps(eq.alpha_op, eq.src_alpha, eq.dst_alpha, true))
}

/// Whether source alpha 1 makes every channel the source: `1·s ± 0·d`
/// (ADD or SUBTRACT) in both equations, every channel written.
pub fn alpha_one_store(eq: &BlendEquation, write_mask: u8) -> bool {
    let stores = |op: BlendOp, sf: BlendFactor, df: BlendFactor, alpha: bool| {
        matches!(op, BlendOp::Add | BlendOp::Subtract)
            && factor_at_alpha(sf, alpha, 1.0) == Some(1.0)
            && factor_at_alpha(df, alpha, 1.0) == Some(0.0)
    };
    write_mask & 15 == 15
        && stores(eq.color_op, eq.src_color, eq.dst_color, false)
        && stores(eq.alpha_op, eq.src_alpha, eq.dst_alpha, true)
}

/// The Blend descriptor's 16-bit `Constant` for a UNORM target with
/// `bits`-bit channels: the constant as a `bits`-bit UNORM in the top bits
/// (Mesa `pan_blend.c`'s `pan_pack_blend_constant`: "the blend constant is
/// expressed with a UNORM of the size of the target format ... shifted such
/// that used bits are in the MSB"), rounded to nearest.
pub fn pack_constant(constant: f32, bits: u32) -> u64 {
    let max = (1u64 << bits) - 1;
    let v = (f64::from(constant.clamp(0.0, 1.0)) * max as f64).round() as u64;
    v << (16 - bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `±A + ±B × C'` with the unit's operands, as the simulator reads them.
    fn eval(f: &Function, s: f32, d: f32, k: f32) -> f32 {
        let a = match f.a {
            2 => s,
            3 => d,
            _ => 0.0,
        };
        let b = match f.b {
            0 => s - d,
            1 => s + d,
            2 => s,
            _ => d,
        };
        let c = match f.c {
            2 | 5 => s,
            3 | 6 => d,
            4 => 2.0 * s,
            7 => k,
            _ => 0.0,
        };
        let c = if f.invert_c { 1.0 - c } else { c };
        (if f.negate_a { -a } else { a }) + (if f.negate_b { -b } else { b }) * c
    }

    /// Every accepted single-channel alpha equation computes what Vulkan's
    /// tables say (alpha: every factor is a scalar of A_s, A_d, A_c).
    #[test]
    fn accepted_alpha_equations_compute_the_vulkan_result() {
        let value = |f: BlendFactor, s: f32, d: f32, k: f32| -> f32 {
            use BlendFactor::*;
            match f {
                Zero => 0.0,
                One | SrcAlphaSaturate => 1.0,
                SrcColor | SrcAlpha => s,
                OneMinusSrcColor | OneMinusSrcAlpha => 1.0 - s,
                DstColor | DstAlpha => d,
                OneMinusDstColor | OneMinusDstAlpha => 1.0 - d,
                ConstantColor | ConstantAlpha => k,
                OneMinusConstantColor | OneMinusConstantAlpha => 1.0 - k,
                _ => f32::NAN,
            }
        };
        let mut accepted = 0;
        for op in BlendOp::ALL {
            for sf in BlendFactor::ALL {
                for df in BlendFactor::ALL {
                    let Ok(func) = scale(sf, true)
                        .and_then(|a| scale(df, true).and_then(|b| function(op, a, b, true)))
                    else {
                        continue;
                    };
                    accepted += 1;
                    for (s, d, k) in [(0.25f32, 0.75f32, 0.5f32), (0.9, 0.3, 0.2)] {
                        let (x, y) = (s * value(sf, s, d, k), d * value(df, s, d, k));
                        let want = match op {
                            BlendOp::Add => x + y,
                            BlendOp::Subtract => x - y,
                            BlendOp::ReverseSubtract => y - x,
                            _ => unreachable!(),
                        };
                        let got = eval(&func, s, d, k);
                        assert!(
                            (got - want).abs() < 1e-6,
                            "{op:?} {sf:?} {df:?}: {got} {want}"
                        );
                    }
                }
            }
        }
        // 15 single-source factors fall on 4 operands (+ ZERO/ONE): every
        // pair with ZERO/ONE, pairs on one operand, and 2·s·d for ADD.
        assert!(accepted > 300, "{accepted}");
    }

    #[test]
    fn refusals_are_errors() {
        let mut eq = BlendEquation::SRC_ALPHA_OVER;
        assert!(fixed_function(&eq, 15).is_ok());
        eq.color_op = BlendOp::Max;
        assert!(matches!(fixed_function(&eq, 15), Err(JmError::Encoding(_))));
        let mut eq = BlendEquation::SRC_ALPHA_OVER;
        eq.src_color = BlendFactor::Src1Alpha;
        assert!(fixed_function(&eq, 15).is_err());
        let mut eq = BlendEquation::SRC_ALPHA_OVER;
        eq.src_color = BlendFactor::SrcAlphaSaturate;
        assert!(fixed_function(&eq, 15).is_err());
        eq.src_color = BlendFactor::SrcAlpha;
        eq.src_alpha = BlendFactor::SrcAlphaSaturate;
        assert!(fixed_function(&eq, 15).is_ok());
        // Two constants read, different: refused; equal: one constant.
        let mut eq = BlendEquation::SRC_ALPHA_OVER;
        eq.src_color = BlendFactor::ConstantColor;
        eq.dst_color = BlendFactor::OneMinusConstantAlpha;
        eq.constants = [0.5, 0.5, 0.5, 0.25];
        assert!(fixed_function(&eq, 15).is_err());
        eq.constants = [0.5, 0.5, 0.5, 0.5];
        let ff = fixed_function(&eq, 15).unwrap();
        assert_eq!(ff.constant, 0.5);
        assert_eq!((ff.rgb.a, ff.rgb.b, ff.rgb.c), (3, 0, 7));
        // Only the alpha constant read: the colour constants may differ.
        eq.src_color = BlendFactor::ConstantAlpha;
        eq.constants = [0.1, 0.2, 0.3, 0.5];
        assert_eq!(fixed_function(&eq, 15).unwrap().constant, 0.5);
        assert_eq!(pack_constant(1.0, 8), 0xff00);
        assert_eq!(pack_constant(0.5, 8), 128 << 8);
    }

    #[test]
    fn alpha_shortcuts() {
        let over = BlendEquation::SRC_ALPHA_OVER;
        assert!(alpha_zero_nop(&over, 15) && alpha_one_store(&over, 15));
        assert!(!alpha_one_store(&over, 7));
        let mut add = over;
        add.src_color = BlendFactor::One;
        assert!(!alpha_zero_nop(&add, 15) && alpha_zero_nop(&add, 8));
        assert!(alpha_one_store(&add, 15));
        add.src_alpha = BlendFactor::DstAlpha;
        assert!(!alpha_one_store(&add, 15));
        add.dst_alpha = BlendFactor::Zero;
        assert!(!alpha_zero_nop(&add, 8));
    }
}
