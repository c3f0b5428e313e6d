//! Blend descriptors ("Blend", 16 B, one per render target after a
//! fragment Renderer State) and what they nest: "Blend Equation" with two
//! "Blend Function"s, and "Internal Blend" with its Shader and
//! Fixed-Function views ("Internal Conversion" holds a pixel format word, so
//! that chain has a v6 and a v7 table; everything else is shared).
//!
//! This module must never translate Vulkan blend state; it only places
//! encodings.

use super::Arch;
use super::genxml::{v6, v7};
use super::layout::Layout;

pub use super::genxml::common::{
    BLEND_EQUATION, BLEND_FUNCTION, BLEND_MODE as BLEND_MODES, BLEND_OPERAND_A as BLEND_OPERANDS_A,
    BLEND_OPERAND_B as BLEND_OPERANDS_B, BLEND_OPERAND_C as BLEND_OPERANDS_C, BLEND_SHADER,
    REGISTER_FILE_FORMAT as REGISTER_FILE_FORMATS, blend_equation, blend_function, blend_shader,
};
pub use super::genxml::v6::{
    BLEND as BLEND_V6, BLEND_FIXED_FUNCTION as BLEND_FIXED_FUNCTION_V6,
    INTERNAL_BLEND as INTERNAL_BLEND_V6, INTERNAL_CONVERSION as INTERNAL_CONVERSION_V6,
};
/// The fields of Blend and what it nests (v7's; v6's are at the same
/// positions and differ only in the pixel-format table of the conversion).
pub use super::genxml::v7::{
    BLEND as BLEND_V7, BLEND_FIXED_FUNCTION as BLEND_FIXED_FUNCTION_V7,
    INTERNAL_BLEND as INTERNAL_BLEND_V7, INTERNAL_CONVERSION as INTERNAL_CONVERSION_V7,
    blend as blend_desc, blend_fixed_function, internal_blend, internal_conversion,
};

/// The Blend table of an architecture.
pub fn blend(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &v6::BLEND,
        Arch::V7 => &v7::BLEND,
    }
}

/// Blend Mode "Shader": Internal Blend holds a blend shader PC.
pub const MODE_SHADER: u64 = 0;
