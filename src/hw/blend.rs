//! Blend descriptors ("Blend", 16 B, one per render target after a
//! fragment Renderer State) and what they nest: "Blend Equation" with two
//! "Blend Function"s, and "Internal Blend" with its Shader and
//! Fixed-Function views ("Internal Conversion" holds a pixel format word, so
//! that chain has a v6 and a v7 table; everything else is shared).
//!
//! This module must never translate Vulkan blend state; it only places
//! encodings.

use super::Arch;
use super::layout::{Field, Kind, Layout, Modifier};

/// genxml enum "Blend Operand A".
pub const BLEND_OPERANDS_A: &[(u64, &str)] = &[(1, "Zero"), (2, "Src"), (3, "Dest")];

/// genxml enum "Blend Operand B".
pub const BLEND_OPERANDS_B: &[(u64, &str)] = &[
    (0, "Src Minus Dest"),
    (1, "Src Plus Dest"),
    (2, "Src"),
    (3, "Dest"),
];

/// genxml enum "Blend Operand C".
pub const BLEND_OPERANDS_C: &[(u64, &str)] = &[
    (1, "Zero"),
    (2, "Src"),
    (3, "Dest"),
    (4, "Src x 2"),
    (5, "Src Alpha"),
    (6, "Dest Alpha"),
    (7, "Constant"),
];

/// genxml enum "Register File Format".
pub const REGISTER_FILE_FORMATS: &[(u64, &str)] = &[
    (0, "F16"),
    (1, "F32"),
    (2, "I32"),
    (3, "U32"),
    (4, "I16"),
    (5, "U16"),
];

/// genxml enum "Blend Mode".
pub const BLEND_MODES: &[(u64, &str)] = &[
    (0, "Shader"),
    (1, "Opaque"),
    (2, "Fixed-Function"),
    (3, "Off"),
];

pub mod blend_function {
    use super::*;
    pub const A: Field = Field::new("A", 0, 0, 2, Kind::Enum(BLEND_OPERANDS_A));
    pub const NEGATE_A: Field = Field::new("Negate A", 0, 3, 1, Kind::Bool);
    pub const B: Field = Field::new("B", 0, 4, 2, Kind::Enum(BLEND_OPERANDS_B));
    pub const NEGATE_B: Field = Field::new("Negate B", 0, 7, 1, Kind::Bool);
    pub const C: Field = Field::new("C", 0, 8, 3, Kind::Enum(BLEND_OPERANDS_C));
    pub const INVERT_C: Field = Field::new("Invert C", 0, 11, 1, Kind::Bool);
}

/// "Blend Function": A + (B * C) for one of RGB / alpha.
pub static BLEND_FUNCTION: Layout = Layout {
    name: "Blend Function",
    words: 1,
    fields: &[
        blend_function::A,
        blend_function::NEGATE_A,
        blend_function::B,
        blend_function::NEGATE_B,
        blend_function::C,
        blend_function::INVERT_C,
    ],
};

pub mod blend_equation {
    use super::*;
    pub const RGB: Field = Field::new("RGB", 0, 0, 12, Kind::Struct(&super::BLEND_FUNCTION));
    pub const ALPHA: Field = Field::new("Alpha", 0, 12, 12, Kind::Struct(&super::BLEND_FUNCTION));
    pub const COLOR_MASK: Field = Field::new("Color Mask", 0, 28, 4, Kind::Uint);
}

/// "Blend Equation".
pub static BLEND_EQUATION: Layout = Layout {
    name: "Blend Equation",
    words: 1,
    fields: &[
        blend_equation::RGB,
        blend_equation::ALPHA,
        blend_equation::COLOR_MASK,
    ],
};

pub mod blend_shader {
    use super::*;
    pub const RETURN_VALUE: Field =
        Field::new("Return Value", 0, 3, 29, Kind::Uint).modifier(Modifier::Shr(3));
    pub const PC: Field = Field::new("PC", 1, 4, 28, Kind::Uint).modifier(Modifier::Shr(4));
}

/// "Blend Shader" view of Internal Blend.
pub static BLEND_SHADER: Layout = Layout {
    name: "Blend Shader",
    words: 2,
    fields: &[blend_shader::RETURN_VALUE, blend_shader::PC],
};

pub mod internal_conversion {
    use super::*;
    pub const MEMORY_FORMAT: Field = Field::new(
        "Memory Format",
        0,
        0,
        22,
        Kind::PixelFormat(&super::super::format::V7.table),
    );
    pub const RAW: Field = Field::new("Raw", 0, 22, 1, Kind::Bool);
    pub const REGISTER_FORMAT: Field = Field::new(
        "Register Format",
        0,
        24,
        3,
        Kind::Enum(REGISTER_FILE_FORMATS),
    );

    pub const MEMORY_FORMAT_V6: Field = Field::new(
        "Memory Format",
        0,
        0,
        22,
        Kind::PixelFormat(&super::super::format::V6.table),
    );
}

/// "Internal Conversion" (v7 format word).
pub static INTERNAL_CONVERSION_V7: Layout = Layout {
    name: "Internal Conversion",
    words: 1,
    fields: &[
        internal_conversion::MEMORY_FORMAT,
        internal_conversion::RAW,
        internal_conversion::REGISTER_FORMAT,
    ],
};

/// "Internal Conversion" (v6 format word).
pub static INTERNAL_CONVERSION_V6: Layout = Layout {
    name: "Internal Conversion",
    words: 1,
    fields: &[
        internal_conversion::MEMORY_FORMAT_V6,
        internal_conversion::RAW,
        internal_conversion::REGISTER_FORMAT,
    ],
};

pub mod blend_fixed_function {
    use super::*;
    pub const NUM_COMPS: Field = Field::new("Num Comps", 0, 3, 2, Kind::Uint)
        .modifier(Modifier::Minus(1))
        .default(1);
    pub const ALPHA_ZERO_NOP: Field = Field::new("Alpha Zero NOP", 0, 5, 1, Kind::Bool);
    pub const ALPHA_ONE_STORE: Field = Field::new("Alpha One Store", 0, 6, 1, Kind::Bool);
    pub const RT: Field = Field::new("RT", 0, 16, 4, Kind::Uint);
    pub const CONVERSION: Field = Field::new(
        "Conversion",
        1,
        0,
        32,
        Kind::Struct(&super::INTERNAL_CONVERSION_V7),
    );
    pub const CONVERSION_V6: Field = Field::new(
        "Conversion",
        1,
        0,
        32,
        Kind::Struct(&super::INTERNAL_CONVERSION_V6),
    );
}

/// "Blend Fixed-Function" view of Internal Blend (v7).
pub static BLEND_FIXED_FUNCTION_V7: Layout = Layout {
    name: "Blend Fixed-Function",
    words: 2,
    fields: &[
        blend_fixed_function::NUM_COMPS,
        blend_fixed_function::ALPHA_ZERO_NOP,
        blend_fixed_function::ALPHA_ONE_STORE,
        blend_fixed_function::RT,
        blend_fixed_function::CONVERSION,
    ],
};

/// "Blend Fixed-Function" view of Internal Blend (v6).
pub static BLEND_FIXED_FUNCTION_V6: Layout = Layout {
    name: "Blend Fixed-Function",
    words: 2,
    fields: &[
        blend_fixed_function::NUM_COMPS,
        blend_fixed_function::ALPHA_ZERO_NOP,
        blend_fixed_function::ALPHA_ONE_STORE,
        blend_fixed_function::RT,
        blend_fixed_function::CONVERSION_V6,
    ],
};

pub mod internal_blend {
    use super::*;
    pub const MODE: Field = Field::new("Mode", 0, 0, 2, Kind::Enum(BLEND_MODES));
    pub const SHADER: Field = Field::new("Shader", 0, 0, 64, Kind::Struct(&super::BLEND_SHADER));
    pub const FIXED_FUNCTION: Field = Field::new(
        "Fixed-Function",
        0,
        0,
        64,
        Kind::Struct(&super::BLEND_FIXED_FUNCTION_V7),
    );
    pub const FIXED_FUNCTION_V6: Field = Field::new(
        "Fixed-Function",
        0,
        0,
        64,
        Kind::Struct(&super::BLEND_FIXED_FUNCTION_V6),
    );
}

/// "Internal Blend" (v7): mode plus two views.
pub static INTERNAL_BLEND_V7: Layout = Layout {
    name: "Internal Blend",
    words: 2,
    fields: &[
        internal_blend::MODE,
        internal_blend::SHADER,
        internal_blend::FIXED_FUNCTION,
    ],
};

/// "Internal Blend" (v6).
pub static INTERNAL_BLEND_V6: Layout = Layout {
    name: "Internal Blend",
    words: 2,
    fields: &[
        internal_blend::MODE,
        internal_blend::SHADER,
        internal_blend::FIXED_FUNCTION_V6,
    ],
};

pub mod blend_desc {
    use super::*;
    pub const LOAD_DESTINATION: Field = Field::new("Load Destination", 0, 0, 1, Kind::Bool);
    pub const ALPHA_TO_ONE: Field = Field::new("Alpha To One", 0, 8, 1, Kind::Bool);
    pub const ENABLE: Field = Field::new("Enable", 0, 9, 1, Kind::Bool).default(1);
    pub const SRGB: Field = Field::new("sRGB", 0, 10, 1, Kind::Bool);
    pub const ROUND_TO_FB_PRECISION: Field =
        Field::new("Round to FB precision", 0, 11, 1, Kind::Bool);
    pub const CONSTANT: Field = Field::new("Constant", 0, 16, 16, Kind::Uint);
    pub const EQUATION: Field =
        Field::new("Equation", 1, 0, 32, Kind::Struct(&super::BLEND_EQUATION));
    pub const INTERNAL: Field = Field::new(
        "Internal",
        2,
        0,
        64,
        Kind::Struct(&super::INTERNAL_BLEND_V7),
    );
    pub const INTERNAL_V6: Field = Field::new(
        "Internal",
        2,
        0,
        64,
        Kind::Struct(&super::INTERNAL_BLEND_V6),
    );
}

/// "Blend" (v7): 16 bytes, 16-byte aligned.
pub static BLEND_V7: Layout = Layout {
    name: "Blend",
    words: 4,
    fields: &[
        blend_desc::LOAD_DESTINATION,
        blend_desc::ALPHA_TO_ONE,
        blend_desc::ENABLE,
        blend_desc::SRGB,
        blend_desc::ROUND_TO_FB_PRECISION,
        blend_desc::CONSTANT,
        blend_desc::EQUATION,
        blend_desc::INTERNAL,
    ],
};

/// "Blend" (v6).
pub static BLEND_V6: Layout = Layout {
    name: "Blend",
    words: 4,
    fields: &[
        blend_desc::LOAD_DESTINATION,
        blend_desc::ALPHA_TO_ONE,
        blend_desc::ENABLE,
        blend_desc::SRGB,
        blend_desc::ROUND_TO_FB_PRECISION,
        blend_desc::CONSTANT,
        blend_desc::EQUATION,
        blend_desc::INTERNAL_V6,
    ],
};

/// The Blend table of an architecture.
pub fn blend(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &BLEND_V6,
        Arch::V7 => &BLEND_V7,
    }
}

/// Blend Mode "Shader": Internal Blend holds a blend shader PC.
pub const MODE_SHADER: u64 = 0;
