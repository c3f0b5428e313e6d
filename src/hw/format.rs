//! Pixel formats as the attribute unit sees them: the per-architecture
//! `Format` enum tables (v6 and v7 differ), the v7 `RGB Component Order`
//! enum, and helpers that build and read the 22-bit format word of an
//! Attribute for the vertex formats the driver uses (32-bit float/int/uint
//! and 8/16-bit normalized or integer, 1–4 components).
//!
//! Word layout (genxml "Pixel Format"): bits 0..12 component order (v7) or
//! four 3-bit channel swizzles (v6), bits 12..20 the `Format` enum, bit 20
//! sRGB, bit 21 big-endian (v6) / must be zero (v7).
//!
//! This module must never pick a format for a Vulkan format enum (that is the
//! driver's business); it only names hardware encodings.

use super::Arch;
use super::layout::{CHANNELS, PixelFormatTable, enum_name};

pub use super::genxml::v6::FORMAT as FORMATS_V6;
pub use super::genxml::v7::{FORMAT as FORMATS_V7, RGB_COMPONENT_ORDER as RGB_COMPONENT_ORDERS};

/// Channel codes of a v6 swizzle (common.xml `Channel`).
pub mod channel {
    pub const R: u64 = 0;
    pub const G: u64 = 1;
    pub const B: u64 = 2;
    pub const A: u64 = 3;
    pub const ZERO: u64 = 4;
    pub const ONE: u64 = 5;
}

/// A v6 swizzle word: channel `i` in bits 3i..3i+3.
pub const fn v6_swizzle(r: u64, g: u64, b: u64, a: u64) -> u64 {
    r | g << 3 | b << 6 | a << 9
}

/// The v7 component orders the driver uses.
pub const ORDER_RGBA: u64 = 0;
pub const ORDER_RGB1: u64 = 16;

/// Per-architecture pixel format data.
#[derive(Debug, PartialEq, Eq)]
pub struct FormatArch {
    pub table: &'static PixelFormatTable,
    /// The low 12 bits for a vertex format of 1, 2, 3, 4 components: the
    /// missing components read as 0 (G, B) and 1 (A).
    pub order_for_components: [u64; 4],
}

pub static V6: FormatArch = FormatArch {
    table: &super::genxml::v6::PIXEL_FORMAT,
    order_for_components: [
        v6_swizzle(channel::R, channel::ZERO, channel::ZERO, channel::ONE),
        v6_swizzle(channel::R, channel::G, channel::ZERO, channel::ONE),
        v6_swizzle(channel::R, channel::G, channel::B, channel::ONE),
        v6_swizzle(channel::R, channel::G, channel::B, channel::A),
    ],
};

pub static V7: FormatArch = FormatArch {
    table: &super::genxml::v7::PIXEL_FORMAT,
    // v7 has no R001/RG01 orders: Mesa uses RGB1 for 1-3 components.
    order_for_components: [ORDER_RGB1, ORDER_RGB1, ORDER_RGB1, ORDER_RGBA],
};

impl FormatArch {
    pub fn for_arch(arch: Arch) -> &'static FormatArch {
        match arch {
            Arch::V6 => &V6,
            Arch::V7 => &V7,
        }
    }

    /// The `Format` enum value named `name` ("RGBA32F"), if this arch has it.
    pub fn format_value(&self, name: &str) -> Option<u64> {
        self.table
            .formats
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(v, _)| *v)
    }

    /// The name of `Format` enum value `value`, if this arch has it.
    pub fn format_name(&self, value: u64) -> Option<&'static str> {
        self.table
            .formats
            .iter()
            .find(|(v, _)| *v == value)
            .map(|(_, n)| *n)
    }

    /// The 22-bit attribute format word of a vertex format.
    pub fn attribute_format(&self, format: VertexFormat) -> Option<u64> {
        if !(1..=4).contains(&format.components) {
            return None;
        }
        let value = self.format_value(&format.hw_name())?;
        Some(value << 12 | self.order_for_components[usize::from(format.components) - 1])
    }

    /// Read back an attribute format word: the vertex format (if it is one of
    /// ours) and the swizzle (channel codes of [`channel`]) applied after the fetch.
    pub fn decode_attribute_format(&self, word: u64) -> Option<(VertexFormat, [u64; 4])> {
        if word & (3 << 20) != 0 {
            return None; // sRGB / big-endian: not a vertex format
        }
        let name = enum_name(self.table.formats, (word >> 12) & 0xff);
        let format = VertexFormat::from_hw_name(name)?;
        let low = word & 0xfff;
        let swizzle = match self.table.component_orders {
            None => [0, 1, 2, 3].map(|i| (low >> (3 * i)) & 7),
            Some(_) => match low {
                ORDER_RGBA => [channel::R, channel::G, channel::B, channel::A],
                ORDER_RGB1 => [channel::R, channel::G, channel::B, channel::ONE],
                _ => return None,
            },
        };
        if swizzle.iter().any(|&c| c > channel::ONE) {
            return None;
        }
        Some((format, swizzle))
    }
}

/// The component type of a vertex attribute format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ComponentType {
    F32,
    I32,
    U32,
    Unorm8,
    Snorm8,
    Unorm16,
    Snorm16,
    U8,
    I8,
    U16,
    I16,
}

impl ComponentType {
    pub const ALL: [ComponentType; 11] = [
        ComponentType::F32,
        ComponentType::I32,
        ComponentType::U32,
        ComponentType::Unorm8,
        ComponentType::Snorm8,
        ComponentType::Unorm16,
        ComponentType::Snorm16,
        ComponentType::U8,
        ComponentType::I8,
        ComponentType::U16,
        ComponentType::I16,
    ];

    /// Suffix of the hardware format name ("RGBA" + suffix).
    const fn suffix(self) -> &'static str {
        match self {
            ComponentType::F32 => "32F",
            ComponentType::I32 => "32I",
            ComponentType::U32 => "32UI",
            ComponentType::Unorm8 => "8 UNORM",
            ComponentType::Snorm8 => "8 SNORM",
            ComponentType::Unorm16 => "16 UNORM",
            ComponentType::Snorm16 => "16 SNORM",
            ComponentType::U8 => "8UI",
            ComponentType::I8 => "8I",
            ComponentType::U16 => "16UI",
            ComponentType::I16 => "16I",
        }
    }

    /// Bytes per component in memory.
    pub const fn bytes(self) -> u32 {
        match self {
            ComponentType::F32 | ComponentType::I32 | ComponentType::U32 => 4,
            ComponentType::Unorm16
            | ComponentType::Snorm16
            | ComponentType::U16
            | ComponentType::I16 => 2,
            _ => 1,
        }
    }
}

/// A vertex attribute format: component type and count (1–4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VertexFormat {
    pub ty: ComponentType,
    pub components: u8,
}

const PREFIXES: [&str; 4] = ["R", "RG", "RGB", "RGBA"];

impl VertexFormat {
    pub const fn new(ty: ComponentType, components: u8) -> VertexFormat {
        VertexFormat { ty, components }
    }

    /// The hardware `Format` enum name, e.g. "RGB32F", "RG8 UNORM".
    pub fn hw_name(self) -> String {
        let prefix = PREFIXES[usize::from(self.components.clamp(1, 4)) - 1];
        format!("{prefix}{}", self.ty.suffix())
    }

    pub fn from_hw_name(name: &str) -> Option<VertexFormat> {
        // Longest prefix first so "RGBA" is not read as "RGB" + "A...".
        for (i, prefix) in PREFIXES.iter().enumerate().rev() {
            if let Some(rest) = name.strip_prefix(prefix) {
                let ty = ComponentType::ALL
                    .into_iter()
                    .find(|t| t.suffix() == rest)?;
                return Some(VertexFormat::new(ty, i as u8 + 1));
            }
        }
        None
    }

    /// Bytes one element occupies in memory.
    pub const fn bytes(self) -> u32 {
        self.ty.bytes() * self.components as u32
    }
}

/// The name of a v6 swizzle channel code (`R`, `G`, `B`, `A`, `0`, `1`).
pub fn channel_name(code: u64) -> &'static str {
    enum_name(CHANNELS, code)
}

/// Red, green and blue as the 32-bit word of `B10G11R11_UFLOAT_PACK32`
/// (the tile format R11F G11F B10F): red at bit 0 and green at bit 11 as
/// 11-bit floats, blue at bit 22 as a 10-bit float ([`small_float`]). The
/// one definition for the driver's clear colours and the simulator's
/// writeback.
pub fn pack_r11g11b10_ufloat(rgb: [f32; 3]) -> u32 {
    small_float(rgb[0], 6) | small_float(rgb[1], 6) << 11 | small_float(rgb[2], 5) << 22
}

/// `v` as an unsigned float of 5 exponent bits (bias 15) and `mantissa`
/// bits (the 11- and 10-bit floats of R11F_G11F_B10F): rounded to nearest,
/// ties to even; negative values and −0 become 0 (Vulkan: "for unsigned
/// destination formats any negative values are converted to zero"), NaN
/// stays NaN, values from the largest finite + half a unit up become
/// infinity (the spec allows that or the largest finite value: our
/// choice, as for binary16).
pub fn small_float(v: f32, mantissa: u32) -> u32 {
    let inf = 31 << mantissa;
    if v.is_nan() {
        return inf | 1;
    }
    if v <= 0.0 {
        return 0;
    }
    if v.is_infinite() {
        return inf;
    }
    let e = (((v.to_bits() >> 23) & 0xff) as i32 - 127).max(-14);
    // Units of the spacing 2^(e − mantissa) around v; the code of the
    // value `units` × spacing is (e + 15) << mantissa + units − 2^mantissa
    // for normals, `units` for denormals (e = −14: the same formula), and
    // a carry into the next binade works out.
    let q = f64::from(e - mantissa as i32);
    let units = (f64::from(v) / q.exp2()).round_ties_even() as u32;
    let code = (((e + 15) as u32) << mantissa) + units - (1 << mantissa);
    code.min(inf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_formats_match_the_enum_tables() {
        let f = VertexFormat::new(ComponentType::F32, 4);
        // RGBA32F = 191 on both archs; v7 order RGBA = 0, v6 swizzle RGBA = 0x688.
        assert_eq!(V7.attribute_format(f), Some(191 << 12));
        assert_eq!(V6.attribute_format(f), Some(191 << 12 | 0x688));
        let f3 = VertexFormat::new(ComponentType::F32, 3);
        assert_eq!(V7.attribute_format(f3), Some(183 << 12 | 16));
        let rg8 = VertexFormat::new(ComponentType::Unorm8, 2);
        assert_eq!(V7.attribute_format(rg8), Some(171 << 12 | 16));
        assert_eq!(
            V7.table.describe(V7.attribute_format(rg8).unwrap()),
            "Format (v7): RG8 UNORM RGB1"
        );
        assert_eq!(
            V6.table.describe(V6.attribute_format(f3).unwrap()),
            "Format (v6): RGB32F RGB1"
        );
    }

    #[test]
    fn every_vertex_format_round_trips_on_both_archs() {
        for arch in [&V6, &V7] {
            for ty in ComponentType::ALL {
                for n in 1..=4 {
                    let f = VertexFormat::new(ty, n);
                    let word = arch.attribute_format(f).unwrap_or_else(|| {
                        panic!("{} missing on {}", f.hw_name(), arch.table.arch)
                    });
                    assert!(word < 1 << 22);
                    let (back, swizzle) = arch.decode_attribute_format(word).unwrap();
                    assert_eq!(back, f);
                    assert_eq!(swizzle[0], channel::R);
                    assert_eq!(swizzle[3], if n == 4 { channel::A } else { channel::ONE });
                }
            }
        }
        assert_eq!(channel_name(5), "1");
    }
}
