//! Framebuffer descriptors, what a fragment job points at: "Framebuffer
//! Parameters" (64 B) + padding, the optional "ZS CRC Extension" (64 B) and
//! one "Render Target" (64 B, with YUV and AFBC overlay views) per colour
//! attachment, plus the tagged "Framebuffer pointer" of the fragment payload.
//! v6 and v7 differ in the ZS CRC Extension and Render Target (block format
//! widths, v6 endianness, v7 CRC fields): [`zs_crc_extension()`] and
//! [`render_target()`] pick the table.
//!
//! This module must never lay out a framebuffer for a render pass; it only
//! places encodings.

use super::Arch;
use super::layout::{Field, Kind, Layout, Modifier};
use super::tiler::SAMPLE_PATTERNS;

/// genxml enum "Pre Post Frame Shader Mode".
pub const PRE_POST_FRAME_SHADER_MODES: &[(u64, &str)] = &[
    (0, "Never"),
    (1, "Always"),
    (2, "Intersect"),
    (3, "Early ZS always"),
];

/// genxml enum "Tie-Break Rule".
pub const TIE_BREAK_RULES: &[(u64, &str)] = &[
    (0, "0_IN_180_OUT"),
    (1, "0_OUT_180_IN"),
    (2, "MINUS_180_IN_0_OUT"),
    (3, "MINUS_180_OUT_0_IN"),
    (4, "90_IN_270_OUT"),
    (5, "90_OUT_270_IN"),
    (6, "MINUS_90_IN_90_OUT"),
    (7, "MINUS_90_OUT_90_IN"),
];

/// genxml enum "Z Internal Format".
pub const Z_INTERNAL_FORMATS: &[(u64, &str)] = &[(0, "D16"), (1, "D24"), (2, "D32")];

/// genxml enum "ZS Format".
pub const ZS_FORMATS: &[(u64, &str)] = &[
    (1, "D16"),
    (2, "D24"),
    (4, "D24X8"),
    (5, "D24S8"),
    (6, "X8D24"),
    (7, "S8D24"),
    (13, "D32_X8X24"),
    (14, "D32"),
    (15, "D32_S8X24"),
];

/// genxml enum "S Format".
pub const S_FORMATS: &[(u64, &str)] = &[
    (1, "S8"),
    (2, "S8X8"),
    (3, "S8X24"),
    (4, "X24S8"),
    (5, "X8S8"),
    (6, "X32_S8X24"),
];

/// genxml enum "MSAA".
pub const MSAAS: &[(u64, &str)] = &[
    (0, "Single"),
    (1, "Average"),
    (2, "Multiple"),
    (3, "Layered"),
];

/// genxml enum "Color Buffer Internal Format".
pub const COLOR_BUFFER_INTERNAL_FORMATS: &[(u64, &str)] = &[
    (0, "Raw Value"),
    (1, "R8G8B8A8"),
    (2, "R10G10B10A2"),
    (3, "R8G8B8A2"),
    (4, "R4G4B4A4"),
    (5, "R5G6B5A0"),
    (6, "R5G5B5A1"),
    (32, "RAW8"),
    (33, "RAW16"),
    (34, "RAW32"),
    (35, "RAW64"),
    (36, "RAW128"),
];

/// genxml enum "Color Format".
pub const COLOR_FORMATS: &[(u64, &str)] = &[
    (0, "RAW8"),
    (1, "RAW16"),
    (2, "RAW24"),
    (3, "RAW32"),
    (4, "RAW48"),
    (5, "RAW64"),
    (6, "RAW96"),
    (7, "RAW128"),
    (8, "RAW192"),
    (9, "RAW256"),
    (10, "RAW384"),
    (11, "RAW512"),
    (12, "RAW768"),
    (13, "RAW1024"),
    (14, "RAW1536"),
    (15, "RAW2048"),
    (16, "R8"),
    (17, "R8G8"),
    (18, "R8G8B8"),
    (19, "R8G8B8A8"),
    (20, "R4G4B4A4"),
    (21, "R5G6B5"),
    (22, "R8G8B8_FROM_R8G8B8A2"),
    (24, "R10G10B10A2"),
    (25, "A2B10G10R10"),
    (28, "R5G5B5A1"),
    (29, "A1B5G5R5"),
    (31, "NATIVE"),
];

/// genxml enum "YUV Swizzle".
pub const YUV_SWIZZLES: &[(u64, &str)] = &[
    (0, "YUVA"),
    (1, "YVUA"),
    (2, "UYVA"),
    (3, "UVYA"),
    (4, "VUYA"),
    (5, "VYUA"),
    (6, "Y00A"),
    (7, "YXXA"),
];

/// genxml enum "YUV Conversion Mode".
pub const YUV_CONVERSION_MODES: &[(u64, &str)] = &[
    (0, "No Conversion"),
    (3, "BT 601"),
    (4, "BT 709"),
    (6, "BT 2020"),
];

/// genxml enum "YUV Cr Siting".
pub const YUV_CR_SITINGS: &[(u64, &str)] = &[
    (0, "Co-Sited"),
    (1, "Center Y"),
    (2, "Center X"),
    (3, "Center"),
    (4, "One Quarter"),
    (5, "Three Quarters"),
    (7, "Replicated"),
];

/// genxml enum "Block Format" (v6).
pub const BLOCK_FORMATS_V6: &[(u64, &str)] = &[
    (0, "Tiled U-Interleaved"),
    (1, "Tiled Linear"),
    (2, "Linear"),
    (3, "AFBC"),
];

/// genxml enum "Block Format" (v7).
pub const BLOCK_FORMATS_V7: &[(u64, &str)] = &[
    (0, "No Write"),
    (1, "Tiled U-Interleaved"),
    (2, "Linear"),
    (12, "AFBC"),
    (13, "AFBC Tiled"),
];

/// genxml enum "RT Endianness".
pub const RT_ENDIANNESSES: &[(u64, &str)] = &[
    (0, "Little Endian"),
    (1, "Big Endian 2B"),
    (2, "Big Endian 4B"),
    (3, "Big Endian 8B"),
];

pub mod framebuffer_parameters {
    use super::*;
    pub const PRE_FRAME_0: Field = Field::new(
        "Pre Frame 0",
        0,
        0,
        3,
        Kind::Enum(PRE_POST_FRAME_SHADER_MODES),
    );
    pub const PRE_FRAME_1: Field = Field::new(
        "Pre Frame 1",
        0,
        3,
        3,
        Kind::Enum(PRE_POST_FRAME_SHADER_MODES),
    );
    pub const POST_FRAME: Field = Field::new(
        "Post Frame",
        0,
        6,
        3,
        Kind::Enum(PRE_POST_FRAME_SHADER_MODES),
    );
    pub const SAMPLE_LOCATIONS: Field = Field::new("Sample Locations", 4, 0, 64, Kind::Address);
    pub const FRAME_SHADER_DCDS: Field = Field::new("Frame Shader DCDs", 6, 0, 64, Kind::Address);
    pub const WIDTH: Field = Field::new("Width", 8, 0, 16, Kind::Uint).modifier(Modifier::Minus(1));
    pub const HEIGHT: Field =
        Field::new("Height", 8, 16, 16, Kind::Uint).modifier(Modifier::Minus(1));
    pub const BOUND_MIN_X: Field = Field::new("Bound Min X", 9, 0, 16, Kind::Uint);
    pub const BOUND_MIN_Y: Field = Field::new("Bound Min Y", 9, 16, 16, Kind::Uint);
    pub const BOUND_MAX_X: Field = Field::new("Bound Max X", 10, 0, 16, Kind::Uint);
    pub const BOUND_MAX_Y: Field = Field::new("Bound Max Y", 10, 16, 16, Kind::Uint);
    pub const SAMPLE_COUNT: Field = Field::new("Sample Count", 11, 0, 3, Kind::Uint)
        .modifier(Modifier::Log2)
        .default(1);
    pub const SAMPLE_PATTERN: Field =
        Field::new("Sample Pattern", 11, 3, 3, Kind::Enum(SAMPLE_PATTERNS));
    pub const TIE_BREAK_RULE: Field =
        Field::new("Tie-Break Rule", 11, 6, 3, Kind::Enum(TIE_BREAK_RULES));
    pub const EFFECTIVE_TILE_SIZE: Field =
        Field::new("Effective Tile Size", 11, 9, 4, Kind::Uint).modifier(Modifier::Log2);
    pub const X_DOWNSAMPLING_SCALE: Field =
        Field::new("X Downsampling Scale", 11, 13, 3, Kind::Uint);
    pub const Y_DOWNSAMPLING_SCALE: Field =
        Field::new("Y Downsampling Scale", 11, 16, 3, Kind::Uint);
    pub const RENDER_TARGET_COUNT: Field =
        Field::new("Render Target Count", 11, 19, 4, Kind::Uint).modifier(Modifier::Minus(1));
    pub const COLOR_BUFFER_ALLOCATION: Field =
        Field::new("Color Buffer Allocation", 11, 24, 8, Kind::Uint).modifier(Modifier::Shr(10));
    pub const S_CLEAR: Field = Field::new("S Clear", 12, 0, 8, Kind::Uint);
    pub const S_WRITE_ENABLE: Field = Field::new("S Write Enable", 12, 8, 1, Kind::Bool);
    pub const S_PRELOAD_ENABLE: Field = Field::new("S Preload Enable", 12, 9, 1, Kind::Bool);
    pub const S_UNLOAD_ENABLE: Field = Field::new("S Unload Enable", 12, 10, 1, Kind::Bool);
    pub const Z_INTERNAL_FORMAT: Field = Field::new(
        "Z Internal Format",
        12,
        16,
        2,
        Kind::Enum(Z_INTERNAL_FORMATS),
    );
    pub const Z_WRITE_ENABLE: Field = Field::new("Z Write Enable", 12, 18, 1, Kind::Bool);
    pub const Z_PRELOAD_ENABLE: Field = Field::new("Z Preload Enable", 12, 19, 1, Kind::Bool);
    pub const Z_UNLOAD_ENABLE: Field = Field::new("Z Unload Enable", 12, 20, 1, Kind::Bool);
    pub const HAS_ZS_CRC_EXTENSION: Field =
        Field::new("Has ZS CRC Extension", 12, 21, 1, Kind::Bool);
    pub const EMPTY_TILE_READ_ENABLE: Field =
        Field::new("Empty Tile Read Enable", 12, 28, 1, Kind::Bool);
    pub const EMPTY_TILE_WRITE_ENABLE: Field =
        Field::new("Empty Tile Write Enable", 12, 29, 1, Kind::Bool);
    pub const CRC_READ_ENABLE: Field = Field::new("CRC Read Enable", 12, 30, 1, Kind::Bool);
    pub const CRC_WRITE_ENABLE: Field = Field::new("CRC Write Enable", 12, 31, 1, Kind::Bool);
    pub const Z_CLEAR: Field = Field::new("Z Clear", 13, 0, 32, Kind::Float);
    pub const TILER: Field = Field::new("Tiler", 14, 0, 64, Kind::Address);
}

/// "Framebuffer Parameters": the first 64 bytes of a framebuffer descriptor.
pub static FRAMEBUFFER_PARAMETERS: Layout = Layout {
    name: "Framebuffer Parameters",
    words: 16,
    fields: &[
        framebuffer_parameters::PRE_FRAME_0,
        framebuffer_parameters::PRE_FRAME_1,
        framebuffer_parameters::POST_FRAME,
        framebuffer_parameters::SAMPLE_LOCATIONS,
        framebuffer_parameters::FRAME_SHADER_DCDS,
        framebuffer_parameters::WIDTH,
        framebuffer_parameters::HEIGHT,
        framebuffer_parameters::BOUND_MIN_X,
        framebuffer_parameters::BOUND_MIN_Y,
        framebuffer_parameters::BOUND_MAX_X,
        framebuffer_parameters::BOUND_MAX_Y,
        framebuffer_parameters::SAMPLE_COUNT,
        framebuffer_parameters::SAMPLE_PATTERN,
        framebuffer_parameters::TIE_BREAK_RULE,
        framebuffer_parameters::EFFECTIVE_TILE_SIZE,
        framebuffer_parameters::X_DOWNSAMPLING_SCALE,
        framebuffer_parameters::Y_DOWNSAMPLING_SCALE,
        framebuffer_parameters::RENDER_TARGET_COUNT,
        framebuffer_parameters::COLOR_BUFFER_ALLOCATION,
        framebuffer_parameters::S_CLEAR,
        framebuffer_parameters::S_WRITE_ENABLE,
        framebuffer_parameters::S_PRELOAD_ENABLE,
        framebuffer_parameters::S_UNLOAD_ENABLE,
        framebuffer_parameters::Z_INTERNAL_FORMAT,
        framebuffer_parameters::Z_WRITE_ENABLE,
        framebuffer_parameters::Z_PRELOAD_ENABLE,
        framebuffer_parameters::Z_UNLOAD_ENABLE,
        framebuffer_parameters::HAS_ZS_CRC_EXTENSION,
        framebuffer_parameters::EMPTY_TILE_READ_ENABLE,
        framebuffer_parameters::EMPTY_TILE_WRITE_ENABLE,
        framebuffer_parameters::CRC_READ_ENABLE,
        framebuffer_parameters::CRC_WRITE_ENABLE,
        framebuffer_parameters::Z_CLEAR,
        framebuffer_parameters::TILER,
    ],
};

/// "Framebuffer Padding": the 64 reserved bytes after the parameters.
pub static FRAMEBUFFER_PADDING: Layout = Layout {
    name: "Framebuffer Padding",
    words: 16,
    fields: &[],
};

/// Bytes of the "Framebuffer" aggregate (parameters + padding); the ZS CRC
/// extension (if any) and the render targets follow.
pub const FRAMEBUFFER_BYTES: u64 = 128;

pub mod framebuffer_pointer {
    use super::*;
    pub const TYPE: Field = Field::new("Type", 0, 0, 1, Kind::Bool).default(1);
    pub const ZS_CRC_EXTENSION_PRESENT: Field =
        Field::new("ZS CRC Extension present", 0, 1, 1, Kind::Bool);
    pub const RENDER_TARGET_COUNT: Field =
        Field::new("Render target count", 0, 2, 4, Kind::Uint).modifier(Modifier::Minus(1));
    pub const POINTER: Field =
        Field::new("Pointer", 0, 6, 58, Kind::Address).modifier(Modifier::Shr(6));
}

/// "Framebuffer pointer": the tagged FBD address in a fragment job payload.
pub static FRAMEBUFFER_POINTER: Layout = Layout {
    name: "Framebuffer pointer",
    words: 2,
    fields: &[
        framebuffer_pointer::TYPE,
        framebuffer_pointer::ZS_CRC_EXTENSION_PRESENT,
        framebuffer_pointer::RENDER_TARGET_COUNT,
        framebuffer_pointer::POINTER,
    ],
};

pub mod zs_crc_extension_v6 {
    use super::*;
    pub const CRC_BASE: Field = Field::new("CRC Base", 0, 0, 64, Kind::Address);
    pub const CRC_ROW_STRIDE: Field = Field::new("CRC Row Stride", 2, 0, 32, Kind::Uint);
    pub const ZS_WRITE_FORMAT: Field =
        Field::new("ZS Write Format", 3, 0, 4, Kind::Enum(ZS_FORMATS));
    pub const ZS_BLOCK_FORMAT: Field =
        Field::new("ZS Block Format", 3, 4, 2, Kind::Enum(BLOCK_FORMATS_V6));
    pub const ZS_MSAA: Field = Field::new("ZS MSAA", 3, 6, 2, Kind::Enum(MSAAS));
    pub const ZS_BIG_ENDIAN: Field = Field::new("ZS Big Endian", 3, 8, 1, Kind::Bool);
    pub const ZS_CLEAN_PIXEL_WRITE_ENABLE: Field =
        Field::new("ZS Clean Pixel Write Enable", 3, 10, 1, Kind::Bool);
    pub const S_WRITE_FORMAT: Field = Field::new("S Write Format", 3, 16, 4, Kind::Enum(S_FORMATS));
    pub const S_BLOCK_FORMAT: Field =
        Field::new("S Block Format", 3, 20, 2, Kind::Enum(BLOCK_FORMATS_V6));
    pub const S_MSAA: Field = Field::new("S MSAA", 3, 22, 2, Kind::Enum(MSAAS));
    pub const ZS_WRITEBACK_BASE: Field = Field::new("ZS Writeback Base", 4, 0, 64, Kind::Address);
    pub const ZS_WRITEBACK_ROW_STRIDE: Field =
        Field::new("ZS Writeback Row Stride", 6, 0, 32, Kind::Uint);
    pub const ZS_WRITEBACK_SURFACE_STRIDE: Field =
        Field::new("ZS Writeback Surface Stride", 7, 0, 32, Kind::Uint);
    pub const S_WRITEBACK_BASE: Field = Field::new("S Writeback Base", 8, 0, 64, Kind::Address);
    pub const S_WRITEBACK_ROW_STRIDE: Field =
        Field::new("S Writeback Row Stride", 10, 0, 32, Kind::Uint);
    pub const S_WRITEBACK_SURFACE_STRIDE: Field =
        Field::new("S Writeback Surface Stride", 11, 0, 32, Kind::Uint);
    pub const ZS_AFBC_HEADER: Field = Field::new("ZS AFBC Header", 4, 0, 64, Kind::Address);
    pub const ZS_AFBC_ROW_STRIDE: Field = Field::new("ZS AFBC Row Stride", 6, 0, 13, Kind::Uint);
    pub const ZS_AFBC_BODY: Field = Field::new("ZS AFBC Body", 8, 0, 64, Kind::Address);
}

/// "ZS CRC Extension" (v6).
pub static ZS_CRC_EXTENSION_V6: Layout = Layout {
    name: "ZS CRC Extension",
    words: 16,
    fields: &[
        zs_crc_extension_v6::CRC_BASE,
        zs_crc_extension_v6::CRC_ROW_STRIDE,
        zs_crc_extension_v6::ZS_WRITE_FORMAT,
        zs_crc_extension_v6::ZS_BLOCK_FORMAT,
        zs_crc_extension_v6::ZS_MSAA,
        zs_crc_extension_v6::ZS_BIG_ENDIAN,
        zs_crc_extension_v6::ZS_CLEAN_PIXEL_WRITE_ENABLE,
        zs_crc_extension_v6::S_WRITE_FORMAT,
        zs_crc_extension_v6::S_BLOCK_FORMAT,
        zs_crc_extension_v6::S_MSAA,
        zs_crc_extension_v6::ZS_WRITEBACK_BASE,
        zs_crc_extension_v6::ZS_WRITEBACK_ROW_STRIDE,
        zs_crc_extension_v6::ZS_WRITEBACK_SURFACE_STRIDE,
        zs_crc_extension_v6::S_WRITEBACK_BASE,
        zs_crc_extension_v6::S_WRITEBACK_ROW_STRIDE,
        zs_crc_extension_v6::S_WRITEBACK_SURFACE_STRIDE,
        zs_crc_extension_v6::ZS_AFBC_HEADER,
        zs_crc_extension_v6::ZS_AFBC_ROW_STRIDE,
        zs_crc_extension_v6::ZS_AFBC_BODY,
    ],
};

pub mod zs_crc_extension_v7 {
    use super::*;
    pub const CRC_BASE: Field = Field::new("CRC Base", 0, 0, 64, Kind::Address);
    pub const CRC_ROW_STRIDE: Field = Field::new("CRC Row Stride", 2, 0, 32, Kind::Uint);
    pub const ZS_WRITE_FORMAT: Field =
        Field::new("ZS Write Format", 3, 0, 4, Kind::Enum(ZS_FORMATS));
    pub const ZS_BLOCK_FORMAT: Field =
        Field::new("ZS Block Format", 3, 4, 4, Kind::Enum(BLOCK_FORMATS_V7));
    pub const ZS_MSAA: Field = Field::new("ZS MSAA", 3, 8, 2, Kind::Enum(MSAAS));
    pub const ZS_CLEAN_PIXEL_WRITE_ENABLE: Field =
        Field::new("ZS Clean Pixel Write Enable", 3, 10, 1, Kind::Bool);
    pub const CRC_RENDER_TARGET: Field = Field::new("CRC Render Target", 3, 11, 4, Kind::Uint);
    pub const S_WRITE_FORMAT: Field = Field::new("S Write Format", 3, 16, 4, Kind::Enum(S_FORMATS));
    pub const S_BLOCK_FORMAT: Field =
        Field::new("S Block Format", 3, 20, 4, Kind::Enum(BLOCK_FORMATS_V7));
    pub const S_MSAA: Field = Field::new("S MSAA", 3, 24, 2, Kind::Enum(MSAAS));
    pub const ZS_WRITEBACK_BASE: Field = Field::new("ZS Writeback Base", 4, 0, 64, Kind::Address);
    pub const ZS_WRITEBACK_ROW_STRIDE: Field =
        Field::new("ZS Writeback Row Stride", 6, 0, 32, Kind::Uint);
    pub const ZS_WRITEBACK_SURFACE_STRIDE: Field =
        Field::new("ZS Writeback Surface Stride", 7, 0, 32, Kind::Uint);
    pub const S_WRITEBACK_BASE: Field = Field::new("S Writeback Base", 8, 0, 64, Kind::Address);
    pub const S_WRITEBACK_ROW_STRIDE: Field =
        Field::new("S Writeback Row Stride", 10, 0, 32, Kind::Uint);
    pub const S_WRITEBACK_SURFACE_STRIDE: Field =
        Field::new("S Writeback Surface Stride", 11, 0, 32, Kind::Uint);
    pub const ZS_AFBC_HEADER: Field = Field::new("ZS AFBC Header", 4, 0, 64, Kind::Address);
    pub const ZS_AFBC_ROW_STRIDE: Field = Field::new("ZS AFBC Row Stride", 6, 0, 13, Kind::Uint);
    pub const ZS_AFBC_BODY: Field = Field::new("ZS AFBC Body", 8, 0, 64, Kind::Address);
    pub const CRC_CLEAR_COLOR: Field = Field::new("CRC Clear Color", 12, 0, 64, Kind::Uint);
}

/// "ZS CRC Extension" (v7).
pub static ZS_CRC_EXTENSION_V7: Layout = Layout {
    name: "ZS CRC Extension",
    words: 16,
    fields: &[
        zs_crc_extension_v7::CRC_BASE,
        zs_crc_extension_v7::CRC_ROW_STRIDE,
        zs_crc_extension_v7::ZS_WRITE_FORMAT,
        zs_crc_extension_v7::ZS_BLOCK_FORMAT,
        zs_crc_extension_v7::ZS_MSAA,
        zs_crc_extension_v7::ZS_CLEAN_PIXEL_WRITE_ENABLE,
        zs_crc_extension_v7::CRC_RENDER_TARGET,
        zs_crc_extension_v7::S_WRITE_FORMAT,
        zs_crc_extension_v7::S_BLOCK_FORMAT,
        zs_crc_extension_v7::S_MSAA,
        zs_crc_extension_v7::ZS_WRITEBACK_BASE,
        zs_crc_extension_v7::ZS_WRITEBACK_ROW_STRIDE,
        zs_crc_extension_v7::ZS_WRITEBACK_SURFACE_STRIDE,
        zs_crc_extension_v7::S_WRITEBACK_BASE,
        zs_crc_extension_v7::S_WRITEBACK_ROW_STRIDE,
        zs_crc_extension_v7::S_WRITEBACK_SURFACE_STRIDE,
        zs_crc_extension_v7::ZS_AFBC_HEADER,
        zs_crc_extension_v7::ZS_AFBC_ROW_STRIDE,
        zs_crc_extension_v7::ZS_AFBC_BODY,
        zs_crc_extension_v7::CRC_CLEAR_COLOR,
    ],
};

pub mod rt_buffer {
    use super::*;
    pub const BASE: Field = Field::new("Base", 0, 0, 64, Kind::Address);
    pub const ROW_STRIDE: Field = Field::new("Row Stride", 2, 0, 32, Kind::Uint);
    pub const SURFACE_STRIDE: Field = Field::new("Surface Stride", 3, 0, 32, Kind::Uint);
}

/// "RT Buffer": the colour writeback address and strides.
pub static RT_BUFFER: Layout = Layout {
    name: "RT Buffer",
    words: 4,
    fields: &[
        rt_buffer::BASE,
        rt_buffer::ROW_STRIDE,
        rt_buffer::SURFACE_STRIDE,
    ],
};

pub mod rt_clear {
    use super::*;
    pub const COLOR_0: Field = Field::new("Color 0", 0, 0, 32, Kind::Uint);
    pub const COLOR_1: Field = Field::new("Color 1", 1, 0, 32, Kind::Uint);
    pub const COLOR_2: Field = Field::new("Color 2", 2, 0, 32, Kind::Uint);
    pub const COLOR_3: Field = Field::new("Color 3", 3, 0, 32, Kind::Uint);
}

/// "RT Clear": the clear colour words.
pub static RT_CLEAR: Layout = Layout {
    name: "RT Clear",
    words: 4,
    fields: &[
        rt_clear::COLOR_0,
        rt_clear::COLOR_1,
        rt_clear::COLOR_2,
        rt_clear::COLOR_3,
    ],
};

pub mod yuv_overlay {
    use super::*;
    pub const SWIZZLE: Field = Field::new("Swizzle", 2, 16, 3, Kind::Enum(YUV_SWIZZLES));
    pub const FULL_RANGE: Field = Field::new("Full Range", 2, 20, 1, Kind::Bool);
    pub const CONVERSION_MODE: Field = Field::new(
        "Conversion Mode",
        2,
        21,
        4,
        Kind::Enum(YUV_CONVERSION_MODES),
    );
    pub const CR_SITING: Field = Field::new("Cr Siting", 2, 25, 3, Kind::Enum(YUV_CR_SITINGS));
    pub const UNSIGNED_CR_RANGE: Field = Field::new("Unsigned Cr Range", 2, 28, 1, Kind::Bool);
    pub const PLANE_0_BASE: Field = Field::new("Plane 0 Base", 4, 0, 64, Kind::Address);
    pub const PLANE_1_BASE: Field = Field::new("Plane 1 Base", 6, 0, 64, Kind::Address);
    pub const PLANE_2_BASE: Field = Field::new("Plane 2 Base", 8, 0, 64, Kind::Address);
    pub const PLANE_0_STRIDE: Field = Field::new("Plane 0 Stride", 10, 0, 32, Kind::Uint);
    pub const PLANE_1_2_STRIDE: Field = Field::new("Plane 1 2 Stride", 11, 0, 32, Kind::Uint);
}

/// "Render Target YUV Overlay" view of a Render Target.
pub static RENDER_TARGET_YUV_OVERLAY: Layout = Layout {
    name: "Render Target YUV Overlay",
    words: 16,
    fields: &[
        yuv_overlay::SWIZZLE,
        yuv_overlay::FULL_RANGE,
        yuv_overlay::CONVERSION_MODE,
        yuv_overlay::CR_SITING,
        yuv_overlay::UNSIGNED_CR_RANGE,
        yuv_overlay::PLANE_0_BASE,
        yuv_overlay::PLANE_1_BASE,
        yuv_overlay::PLANE_2_BASE,
        yuv_overlay::PLANE_0_STRIDE,
        yuv_overlay::PLANE_1_2_STRIDE,
    ],
};

pub mod afbc_overlay {
    use super::*;
    pub const HEADER: Field = Field::new("Header", 4, 0, 64, Kind::Address);
    pub const ROW_STRIDE: Field = Field::new("Row Stride", 6, 0, 13, Kind::Uint);
    pub const CHUNK_SIZE: Field = Field::new("Chunk Size", 7, 0, 12, Kind::Uint);
    pub const AFBC_SPLIT_BLOCK_ENABLE: Field =
        Field::new("AFBC Split Block Enable", 7, 18, 1, Kind::Bool);
    pub const AFBC_WIDE_BLOCK_ENABLE: Field =
        Field::new("AFBC Wide Block Enable", 7, 19, 1, Kind::Bool);
    pub const REVERSE_ISSUE_ORDER: Field = Field::new("Reverse Issue Order", 7, 20, 1, Kind::Bool);
    pub const YUV_TRANSFORM_ENABLE: Field =
        Field::new("YUV Transform Enable", 7, 17, 1, Kind::Bool);
    pub const BODY: Field = Field::new("Body", 8, 0, 64, Kind::Address);
    pub const BODY_SIZE: Field = Field::new("Body Size", 10, 0, 32, Kind::Uint);
}

/// "Render Target AFBC Overlay" view of a Render Target.
pub static RENDER_TARGET_AFBC_OVERLAY: Layout = Layout {
    name: "Render Target AFBC Overlay",
    words: 16,
    fields: &[
        afbc_overlay::HEADER,
        afbc_overlay::ROW_STRIDE,
        afbc_overlay::CHUNK_SIZE,
        afbc_overlay::AFBC_SPLIT_BLOCK_ENABLE,
        afbc_overlay::AFBC_WIDE_BLOCK_ENABLE,
        afbc_overlay::REVERSE_ISSUE_ORDER,
        afbc_overlay::YUV_TRANSFORM_ENABLE,
        afbc_overlay::BODY,
        afbc_overlay::BODY_SIZE,
    ],
};

pub mod render_target_v6 {
    use super::*;
    pub const YUV: Field = Field::new(
        "YUV",
        0,
        0,
        512,
        Kind::Struct(&super::RENDER_TARGET_YUV_OVERLAY),
    );
    pub const AFBC: Field = Field::new(
        "AFBC",
        0,
        0,
        512,
        Kind::Struct(&super::RENDER_TARGET_AFBC_OVERLAY),
    );
    pub const INTERNAL_BUFFER_OFFSET: Field =
        Field::new("Internal Buffer Offset", 0, 4, 12, Kind::Uint).modifier(Modifier::Shr(4));
    pub const YUV_ENABLE: Field = Field::new("YUV Enable", 0, 24, 1, Kind::Bool);
    pub const DITHERED_CLEAR: Field = Field::new("Dithered Clear", 0, 25, 1, Kind::Bool);
    pub const INTERNAL_FORMAT: Field = Field::new(
        "Internal Format",
        0,
        26,
        6,
        Kind::Enum(COLOR_BUFFER_INTERNAL_FORMATS),
    );
    pub const WRITE_ENABLE: Field = Field::new("Write Enable", 1, 0, 1, Kind::Bool);
    pub const WRITEBACK_FORMAT: Field =
        Field::new("Writeback Format", 1, 3, 5, Kind::Enum(COLOR_FORMATS));
    pub const WRITEBACK_ENDIANNESS: Field =
        Field::new("Writeback Endianness", 1, 8, 2, Kind::Enum(RT_ENDIANNESSES));
    pub const WRITEBACK_BLOCK_FORMAT: Field = Field::new(
        "Writeback Block Format",
        1,
        10,
        2,
        Kind::Enum(BLOCK_FORMATS_V6),
    );
    pub const WRITEBACK_MSAA: Field = Field::new("Writeback MSAA", 1, 12, 2, Kind::Enum(MSAAS));
    pub const SRGB: Field = Field::new("sRGB", 1, 14, 1, Kind::Bool);
    pub const DITHERING_ENABLE: Field = Field::new("Dithering Enable", 1, 15, 1, Kind::Bool);
    pub const SWIZZLE: Field = Field::new("Swizzle", 1, 16, 12, Kind::ComponentSwizzle);
    pub const CLEAN_PIXEL_WRITE_ENABLE: Field =
        Field::new("Clean Pixel Write Enable", 1, 31, 1, Kind::Bool);
    pub const RGB: Field = Field::new("RGB", 8, 0, 128, Kind::Struct(&super::RT_BUFFER));
    pub const CLEAR: Field = Field::new("Clear", 12, 0, 128, Kind::Struct(&super::RT_CLEAR));
}

/// "Render Target" (v6).
pub static RENDER_TARGET_V6: Layout = Layout {
    name: "Render Target",
    words: 16,
    fields: &[
        render_target_v6::YUV,
        render_target_v6::AFBC,
        render_target_v6::INTERNAL_BUFFER_OFFSET,
        render_target_v6::YUV_ENABLE,
        render_target_v6::DITHERED_CLEAR,
        render_target_v6::INTERNAL_FORMAT,
        render_target_v6::WRITE_ENABLE,
        render_target_v6::WRITEBACK_FORMAT,
        render_target_v6::WRITEBACK_ENDIANNESS,
        render_target_v6::WRITEBACK_BLOCK_FORMAT,
        render_target_v6::WRITEBACK_MSAA,
        render_target_v6::SRGB,
        render_target_v6::DITHERING_ENABLE,
        render_target_v6::SWIZZLE,
        render_target_v6::CLEAN_PIXEL_WRITE_ENABLE,
        render_target_v6::RGB,
        render_target_v6::CLEAR,
    ],
};

pub mod render_target_v7 {
    use super::*;
    pub const YUV: Field = Field::new(
        "YUV",
        0,
        0,
        512,
        Kind::Struct(&super::RENDER_TARGET_YUV_OVERLAY),
    );
    pub const AFBC: Field = Field::new(
        "AFBC",
        0,
        0,
        512,
        Kind::Struct(&super::RENDER_TARGET_AFBC_OVERLAY),
    );
    pub const INTERNAL_BUFFER_OFFSET: Field =
        Field::new("Internal Buffer Offset", 0, 4, 12, Kind::Uint).modifier(Modifier::Shr(4));
    pub const YUV_ENABLE: Field = Field::new("YUV Enable", 0, 24, 1, Kind::Bool);
    pub const DITHERED_CLEAR: Field = Field::new("Dithered Clear", 0, 25, 1, Kind::Bool);
    pub const INTERNAL_FORMAT: Field = Field::new(
        "Internal Format",
        0,
        26,
        6,
        Kind::Enum(COLOR_BUFFER_INTERNAL_FORMATS),
    );
    pub const WRITE_ENABLE: Field = Field::new("Write Enable", 1, 0, 1, Kind::Bool);
    pub const WRITEBACK_FORMAT: Field =
        Field::new("Writeback Format", 1, 3, 5, Kind::Enum(COLOR_FORMATS));
    pub const WRITEBACK_BLOCK_FORMAT: Field = Field::new(
        "Writeback Block Format",
        1,
        8,
        4,
        Kind::Enum(BLOCK_FORMATS_V7),
    );
    pub const WRITEBACK_MSAA: Field = Field::new("Writeback MSAA", 1, 12, 2, Kind::Enum(MSAAS));
    pub const SRGB: Field = Field::new("sRGB", 1, 14, 1, Kind::Bool);
    pub const DITHERING_ENABLE: Field = Field::new("Dithering Enable", 1, 15, 1, Kind::Bool);
    pub const SWIZZLE: Field = Field::new("Swizzle", 1, 16, 12, Kind::ComponentSwizzle);
    pub const CLEAN_PIXEL_WRITE_ENABLE: Field =
        Field::new("Clean Pixel Write Enable", 1, 31, 1, Kind::Bool);
    pub const RGB: Field = Field::new("RGB", 8, 0, 128, Kind::Struct(&super::RT_BUFFER));
    pub const CLEAR: Field = Field::new("Clear", 12, 0, 128, Kind::Struct(&super::RT_CLEAR));
}

/// "Render Target" (v7).
pub static RENDER_TARGET_V7: Layout = Layout {
    name: "Render Target",
    words: 16,
    fields: &[
        render_target_v7::YUV,
        render_target_v7::AFBC,
        render_target_v7::INTERNAL_BUFFER_OFFSET,
        render_target_v7::YUV_ENABLE,
        render_target_v7::DITHERED_CLEAR,
        render_target_v7::INTERNAL_FORMAT,
        render_target_v7::WRITE_ENABLE,
        render_target_v7::WRITEBACK_FORMAT,
        render_target_v7::WRITEBACK_BLOCK_FORMAT,
        render_target_v7::WRITEBACK_MSAA,
        render_target_v7::SRGB,
        render_target_v7::DITHERING_ENABLE,
        render_target_v7::SWIZZLE,
        render_target_v7::CLEAN_PIXEL_WRITE_ENABLE,
        render_target_v7::RGB,
        render_target_v7::CLEAR,
    ],
};

/// The ZS CRC Extension table of an architecture.
pub fn zs_crc_extension(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &ZS_CRC_EXTENSION_V6,
        Arch::V7 => &ZS_CRC_EXTENSION_V7,
    }
}

/// The Render Target table of an architecture.
pub fn render_target(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &RENDER_TARGET_V6,
        Arch::V7 => &RENDER_TARGET_V7,
    }
}

/// `Pre Post Frame Shader Mode` value "Never".
pub const FRAME_SHADER_NEVER: u64 = 0;
