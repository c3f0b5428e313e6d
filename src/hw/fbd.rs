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
use super::genxml::{v6, v7};
use super::layout::Layout;

pub use super::genxml::common::{
    COLOR_BUFFER_INTERNAL_FORMAT as COLOR_BUFFER_INTERNAL_FORMATS, COLOR_FORMAT as COLOR_FORMATS,
    FRAMEBUFFER_PADDING, FRAMEBUFFER_PARAMETERS, FRAMEBUFFER_POINTER, MSAA as MSAAS,
    PRE_POST_FRAME_SHADER_MODE as PRE_POST_FRAME_SHADER_MODES, RENDER_TARGET_AFBC_OVERLAY,
    RENDER_TARGET_YUV_OVERLAY, RT_BUFFER, RT_CLEAR, S_FORMAT as S_FORMATS,
    TIE_BREAK_RULE as TIE_BREAK_RULES, YUV_CONVERSION_MODE as YUV_CONVERSION_MODES,
    YUV_CR_SITING as YUV_CR_SITINGS, YUV_SWIZZLE as YUV_SWIZZLES,
    Z_INTERNAL_FORMAT as Z_INTERNAL_FORMATS, ZS_FORMAT as ZS_FORMATS, framebuffer_parameters,
    framebuffer_pointer, render_target_afbc_overlay as afbc_overlay,
    render_target_yuv_overlay as yuv_overlay, rt_buffer, rt_clear,
};
pub use super::genxml::v6::{
    BLOCK_FORMAT as BLOCK_FORMATS_V6, RENDER_TARGET as RENDER_TARGET_V6,
    RT_ENDIANNESS as RT_ENDIANNESSES, ZS_CRC_EXTENSION as ZS_CRC_EXTENSION_V6,
    render_target as render_target_v6, zs_crc_extension as zs_crc_extension_v6,
};
pub use super::genxml::v7::{
    BLOCK_FORMAT as BLOCK_FORMATS_V7, RENDER_TARGET as RENDER_TARGET_V7,
    ZS_CRC_EXTENSION as ZS_CRC_EXTENSION_V7, render_target as render_target_v7,
    zs_crc_extension as zs_crc_extension_v7,
};

/// Bytes of the "Framebuffer" aggregate (parameters + padding); the ZS CRC
/// extension (if any) and the render targets follow.
pub const FRAMEBUFFER_BYTES: u64 = super::genxml::common::FRAMEBUFFER.bytes as u64;

/// The ZS CRC Extension table of an architecture.
pub fn zs_crc_extension(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &v6::ZS_CRC_EXTENSION,
        Arch::V7 => &v7::ZS_CRC_EXTENSION,
    }
}

/// The Render Target table of an architecture.
pub fn render_target(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &v6::RENDER_TARGET,
        Arch::V7 => &v7::RENDER_TARGET,
    }
}

/// `Pre Post Frame Shader Mode` value "Never".
pub const FRAME_SHADER_NEVER: u64 = 0;
