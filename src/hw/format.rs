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

/// The v7 `Format` enum (genxml v7.xml).
pub const FORMATS_V7: &[(u64, &str)] = &[
    (1, "ETC2 RGB8"),
    (2, "ETC2 R11 UNORM"),
    (3, "ETC2 RGBA8"),
    (4, "ETC2 RG11 UNORM"),
    (5, "R4A4 UNORM"),
    (6, "A4R4 UNORM"),
    (7, "BC1 UNORM"),
    (8, "BC2 UNORM"),
    (9, "BC3 UNORM"),
    (10, "BC4 UNORM"),
    (11, "BC4 SNORM"),
    (12, "BC5 UNORM"),
    (13, "BC5 SNORM"),
    (14, "BC6H UF16"),
    (15, "BC6H SF16"),
    (16, "BC7 UNORM"),
    (17, "ETC2 R11 SNORM"),
    (18, "ETC2 RG11 SNORM"),
    (19, "ETC2 RGB8A1"),
    (20, "ASTC 3D LDR"),
    (21, "ASTC 3D HDR"),
    (22, "ASTC 2D LDR"),
    (23, "ASTC 2D HDR"),
    (24, "R8A8 UNORM"),
    (25, "A8R8 UNORM"),
    (26, "A8 UNORM"),
    (28, "RAW10"),
    (29, "RAW12"),
    (30, "R8G8B8G8"),
    (31, "G8R8G8B8"),
    (32, "YUV8"),
    (33, "YUVA8"),
    (34, "YUYV8"),
    (35, "VYUY8"),
    (36, "Y8 UV8 422"),
    (37, "Y8 U8 V8 422"),
    (38, "Y8 UV8 420"),
    (39, "Y8 U8 V8 420"),
    (40, "YUV10 A2"),
    (41, "A2 YUV10"),
    (42, "YUYAAYVYAA"),
    (44, "YUYV10"),
    (45, "VYUY10"),
    (46, "Y10 UV10 422"),
    (47, "Y10 UV10 420"),
    (48, "YUV16"),
    (49, "YUVA16"),
    (50, "YUYV16"),
    (51, "VYUY16"),
    (52, "Y10X6 U10X6V10X6 422"),
    (53, "Y16 UV16 422"),
    (54, "Y10X6 U10X6V10X6 420"),
    (55, "Y16 UV16 420"),
    (56, "Y8 UV8 BL 422"),
    (57, "Y8 UV8 BL 420"),
    (58, "CUSTOM YUV 2"),
    (59, "CUSTOM YUV 3"),
    (60, "CUSTOM YUV 4"),
    (61, "CUSTOM YUV 5"),
    (62, "ASTC 2D NARROW"),
    (63, "ASTC 3D NARROW"),
    (64, "RGB565"),
    (65, "RGB5 A1 UNORM"),
    (66, "A1 BGR5 UNORM"),
    (67, "RGB10 A2 UNORM"),
    (68, "A2 BGR10 UNORM"),
    (69, "RGB10 A2 SNORM"),
    (70, "A2 BGR10 SNORM"),
    (71, "RGB10 A2UI"),
    (72, "A2 BGR10UI"),
    (73, "RGB10 A2I"),
    (74, "A2 BGR10I"),
    (75, "Z16 UNORM"),
    (76, "Z32"),
    (77, "Z24X8 UNORM"),
    (78, "X8Z24"),
    (79, "X32 S8X24"),
    (80, "X24S8 X32"),
    (81, "R32 FIXED"),
    (82, "RG32 FIXED"),
    (83, "RGB32 FIXED"),
    (84, "RGBA32 FIXED"),
    (85, "X24S8"),
    (86, "S8X24"),
    (87, "Z32 X32"),
    (88, "X32 Z32"),
    (89, "R11F G11F B10F"),
    (90, "B10F G11F R11F"),
    (91, "R9F G9F B9F E5F"),
    (92, "E5F B9F G9F R9F"),
    (93, "S8"),
    (94, "Snap 4"),
    (95, "Constant"),
    (99, "R8 SNORM"),
    (100, "R16 SNORM"),
    (101, "R32 SNORM"),
    (106, "RG4 SNORM"),
    (107, "RG8 SNORM"),
    (108, "RG16 SNORM"),
    (109, "RG32 SNORM"),
    (115, "RGB8 SNORM"),
    (116, "RGB16 SNORM"),
    (117, "RGB32 SNORM"),
    (121, "RGBA2 SNORM"),
    (122, "RGBA4 SNORM"),
    (123, "RGBA8 SNORM"),
    (124, "RGBA16 SNORM"),
    (125, "RGBA32 SNORM"),
    (131, "R8UI"),
    (132, "R16UI"),
    (133, "R32UI"),
    (138, "RG4UI"),
    (139, "RG8UI"),
    (140, "RG16UI"),
    (141, "RG32UI"),
    (147, "RGB8UI"),
    (148, "RGB16UI"),
    (149, "RGB32UI"),
    (153, "RGBA2UI"),
    (154, "RGBA4UI"),
    (155, "RGBA8UI"),
    (156, "RGBA16UI"),
    (157, "RGBA32UI"),
    (163, "R8 UNORM"),
    (164, "R16 UNORM"),
    (165, "R32 UNORM"),
    (167, "R32F"),
    (170, "RG4 UNORM"),
    (171, "RG8 UNORM"),
    (172, "RG16 UNORM"),
    (173, "RG32 UNORM"),
    (175, "RG32F"),
    (179, "RGB8 UNORM"),
    (180, "RGB16 UNORM"),
    (181, "RGB32 UNORM"),
    (183, "RGB32F"),
    (185, "RGBA2 UNORM"),
    (186, "RGBA4 UNORM"),
    (187, "RGBA8 UNORM"),
    (188, "RGBA16 UNORM"),
    (189, "RGBA32 UNORM"),
    (191, "RGBA32F"),
    (195, "R8I"),
    (196, "R16I"),
    (197, "R32I"),
    (199, "R16F"),
    (202, "RG4I"),
    (203, "RG8I"),
    (204, "RG16I"),
    (205, "RG32I"),
    (207, "RG16F"),
    (211, "RGB8I"),
    (212, "RGB16I"),
    (213, "RGB32I"),
    (215, "RGB16F"),
    (217, "RGBA2I"),
    (218, "RGBA4I"),
    (219, "RGBA8I"),
    (220, "RGBA16I"),
    (221, "RGBA32I"),
    (223, "RGBA16F"),
    (224, "RGB5 A1 AU"),
    (225, "RGB5 A1 PU"),
    (226, "R5G6B5 AU"),
    (227, "R5G6B5 PU"),
    (230, "Snap4 V"),
    (231, "R32F RTZ"),
    (232, "RGBA4 AU"),
    (233, "RGBA4 PU"),
    (237, "RGBA8 TB"),
    (238, "RGB10 A2 TB"),
    (239, "RG32F RTZ"),
    (240, "Tess Vertex Pack"),
    (241, "RGB8 A2 AU"),
    (242, "RGB8 A2 PU"),
    (247, "RGB32F RTZ"),
    (255, "RGBA32F RTZ"),
];
/// The v7 `RGB Component Order` enum.
pub const RGB_COMPONENT_ORDERS: &[(u64, &str)] = &[
    (0, "RGBA"),
    (2, "GRBA"),
    (4, "BGRA"),
    (8, "ARGB"),
    (10, "AGRB"),
    (12, "ABGR"),
    (16, "RGB1"),
    (18, "GRB1"),
    (20, "BGR1"),
    (24, "1RGB"),
    (26, "1GRB"),
    (28, "1BGR"),
    (226, "RRRR"),
    (227, "RRR1"),
    (228, "RRRA"),
    (229, "000A"),
    (230, "0001"),
    (231, "0000"),
    (232, "Snap4 v9"),
    (233, "Snap4 v10"),
    (234, "Snap4 v11"),
    (235, "Snap4 v12"),
    (236, "Snap4 v13"),
    (237, "Snap4 v14"),
    (238, "Snap4 v15"),
    (239, "Snap4 v16"),
    (240, "R000"),
    (242, "RBGA"),
];
/// The v6 `Format` enum (genxml v6.xml).
pub const FORMATS_V6: &[(u64, &str)] = &[
    (1, "ETC2 RGB8"),
    (2, "ETC2 R11 UNORM"),
    (3, "ETC2 RGBA8"),
    (4, "ETC2 RG11 UNORM"),
    (7, "BC1 UNORM"),
    (8, "BC2 UNORM"),
    (9, "BC3 UNORM"),
    (10, "BC4 UNORM"),
    (11, "BC4 SNORM"),
    (12, "BC5 UNORM"),
    (13, "BC5 SNORM"),
    (14, "BC6H UF16"),
    (15, "BC6H SF16"),
    (16, "BC7 UNORM"),
    (17, "ETC2 R11 SNORM"),
    (18, "ETC2 RG11 SNORM"),
    (19, "ETC2 RGB8A1"),
    (20, "ASTC 3D LDR"),
    (21, "ASTC 3D HDR"),
    (22, "ASTC 2D LDR"),
    (23, "ASTC 2D HDR"),
    (64, "RGB565"),
    (65, "RGB5 A1 UNORM"),
    (66, "A1 BGR5 UNORM"),
    (67, "RGB10 A2 UNORM"),
    (68, "A2 BGR10 UNORM"),
    (69, "RGB10 A2 SNORM"),
    (70, "A2 BGR10 SNORM"),
    (71, "RGB10 A2UI"),
    (72, "A2 BGR10UI"),
    (73, "RGB10 A2I"),
    (74, "A2 BGR10I"),
    (77, "Z24X8 UNORM"),
    (78, "X8Z24"),
    (79, "X32 S8X24"),
    (80, "X24S8 X32"),
    (81, "R32 FIXED"),
    (82, "RG32 FIXED"),
    (83, "RGB32 FIXED"),
    (84, "RGBA32 FIXED"),
    (89, "R11F G11F B10F"),
    (90, "B10F G11F R11F"),
    (91, "R9F G9F B9F E5F"),
    (92, "E5F B9F G9F R9F"),
    (93, "Snap 2"),
    (94, "Snap 4"),
    (95, "Constant"),
    (96, "R1 SNORM"),
    (97, "R2 SNORM"),
    (98, "R4 SNORM"),
    (99, "R8 SNORM"),
    (100, "R16 SNORM"),
    (101, "R32 SNORM"),
    (102, "R64 SNORM"),
    (104, "RG1 SNORM"),
    (105, "RG2 SNORM"),
    (106, "RG4 SNORM"),
    (107, "RG8 SNORM"),
    (108, "RG16 SNORM"),
    (109, "RG32 SNORM"),
    (110, "RG64 SNORM"),
    (112, "RGB1 SNORM"),
    (113, "RGB2 SNORM"),
    (114, "RGB4 SNORM"),
    (115, "RGB8 SNORM"),
    (116, "RGB16 SNORM"),
    (117, "RGB32 SNORM"),
    (118, "RGB64 SNORM"),
    (120, "RGBA1 SNORM"),
    (121, "RGBA2 SNORM"),
    (122, "RGBA4 SNORM"),
    (123, "RGBA8 SNORM"),
    (124, "RGBA16 SNORM"),
    (125, "RGBA32 SNORM"),
    (126, "RGBA64 SNORM"),
    (128, "R1UI"),
    (129, "R2UI"),
    (130, "R4UI"),
    (131, "R8UI"),
    (132, "R16UI"),
    (133, "R32UI"),
    (134, "R64UI"),
    (135, "R64F"),
    (136, "RG1UI"),
    (137, "RG2UI"),
    (138, "RG4UI"),
    (139, "RG8UI"),
    (140, "RG16UI"),
    (141, "RG32UI"),
    (142, "RG64UI"),
    (143, "RG64F"),
    (144, "RGB1UI"),
    (145, "RGB2UI"),
    (146, "RGB4UI"),
    (147, "RGB8UI"),
    (148, "RGB16UI"),
    (149, "RGB32UI"),
    (150, "RGB64UI"),
    (151, "RGB64F"),
    (152, "RGBA1UI"),
    (153, "RGBA2UI"),
    (154, "RGBA4UI"),
    (155, "RGBA8UI"),
    (156, "RGBA16UI"),
    (157, "RGBA32UI"),
    (158, "RGBA64UI"),
    (159, "RGBA64F"),
    (160, "R1 UNORM"),
    (161, "R2 UNORM"),
    (162, "R4 UNORM"),
    (163, "R8 UNORM"),
    (164, "R16 UNORM"),
    (165, "R32 UNORM"),
    (166, "R64 UNORM"),
    (167, "R32F"),
    (168, "RG1 UNORM"),
    (169, "RG2 UNORM"),
    (170, "RG4 UNORM"),
    (171, "RG8 UNORM"),
    (172, "RG16 UNORM"),
    (173, "RG32 UNORM"),
    (174, "RG64 UNORM"),
    (175, "RG32F"),
    (176, "RGB1 UNORM"),
    (177, "RGB2 UNORM"),
    (178, "RGB4 UNORM"),
    (179, "RGB8 UNORM"),
    (180, "RGB16 UNORM"),
    (181, "RGB32 UNORM"),
    (182, "RGB64 UNORM"),
    (183, "RGB32F"),
    (184, "RGBA1 UNORM"),
    (185, "RGBA2 UNORM"),
    (186, "RGBA4 UNORM"),
    (187, "RGBA8 UNORM"),
    (188, "RGBA16 UNORM"),
    (189, "RGBA32 UNORM"),
    (190, "RGBA64 UNORM"),
    (191, "RGBA32F"),
    (192, "R1I"),
    (193, "R2I"),
    (194, "R4I"),
    (195, "R8I"),
    (196, "R16I"),
    (197, "R32I"),
    (198, "R64I"),
    (199, "R16F"),
    (200, "RG1I"),
    (201, "RG2I"),
    (202, "RG4I"),
    (203, "RG8I"),
    (204, "RG16I"),
    (205, "RG32I"),
    (206, "RG64I"),
    (207, "RG16F"),
    (208, "RGB1I"),
    (209, "RGB2I"),
    (210, "RGB4I"),
    (211, "RGB8I"),
    (212, "RGB16I"),
    (213, "RGB32I"),
    (214, "RGB64I"),
    (215, "RGB16F"),
    (216, "RGBA1I"),
    (217, "RGBA2I"),
    (218, "RGBA4I"),
    (219, "RGBA8I"),
    (220, "RGBA16I"),
    (221, "RGBA32I"),
    (222, "RGBA64I"),
    (223, "RGBA16F"),
    (224, "RGB5 A1 AU"),
    (225, "RGB5 A1 PU"),
    (226, "R5G6B5 AU"),
    (227, "R5G6B5 PU"),
    (230, "Snap4 V"),
    (232, "RGBA4 AU"),
    (233, "RGBA4 PU"),
    (237, "RGBA8 TB"),
    (238, "RGB10 A2 TB"),
    (240, "Tess Vertex Pack"),
    (241, "RGB8 A2 AU"),
    (242, "RGB8 A2 PU"),
];

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
    pub table: PixelFormatTable,
    /// The low 12 bits for a vertex format of 1, 2, 3, 4 components: the
    /// missing components read as 0 (G, B) and 1 (A).
    pub order_for_components: [u64; 4],
}

pub static V6: FormatArch = FormatArch {
    table: PixelFormatTable {
        arch: "v6",
        formats: FORMATS_V6,
        component_orders: None,
    },
    order_for_components: [
        v6_swizzle(channel::R, channel::ZERO, channel::ZERO, channel::ONE),
        v6_swizzle(channel::R, channel::G, channel::ZERO, channel::ONE),
        v6_swizzle(channel::R, channel::G, channel::B, channel::ONE),
        v6_swizzle(channel::R, channel::G, channel::B, channel::A),
    ],
};

pub static V7: FormatArch = FormatArch {
    table: PixelFormatTable {
        arch: "v7",
        formats: FORMATS_V7,
        component_orders: Some(RGB_COMPONENT_ORDERS),
    },
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
