//! The shader side of a job: "Renderer State" (RSD, 64 B) and what it nests —
//! "Shader", "Renderer Properties", "Preload" (with its Compute, Vertex and
//! Fragment views of the same word), "Message Preload" (v7 only, with its
//! LD_VAR and VAR_TEX views), and the fragment-only "Multisample, Misc",
//! "Stencil Mask, Misc" and "Stencil" words.
//!
//! v6 and v7 differ here only: v6 Renderer Properties lacks the register
//! allocation and wait-dependency 6/7 fields, and v6 Renderer State lacks the
//! two Message Preload halves of word 15. Both are data: pick the table with
//! [`renderer_state()`] / [`renderer_properties()`] (or `hw::layouts(arch)`), and
//! reach a field that one arch lacks with [`Layout::lookup`], which returns
//! `None` there.
//!
//! This module must never compute a register count or a preload mask from a
//! shader; the compiler owns those values, this module only places them.

use super::Arch;
use super::layout::{Field, Kind, Layout, Modifier};

/// genxml enum "Depth Source".
pub const DEPTH_SOURCES: &[(u64, &str)] = &[
    (0, "Minimum"),
    (1, "Maximum"),
    (2, "Fixed function"),
    (3, "Shader"),
];

/// genxml enum "Shader Register Allocation".
pub const SHADER_REGISTER_ALLOCATIONS: &[(u64, &str)] =
    &[(0, "64 Per Thread"), (2, "32 Per Thread")];

/// genxml enum "Pixel Kill".
pub const PIXEL_KILLS: &[(u64, &str)] = &[
    (0, "Force Early"),
    (1, "Strong Early"),
    (2, "Weak Early"),
    (3, "Force Late"),
];

/// genxml enum "Warp Limit".
pub const WARP_LIMITS: &[(u64, &str)] = &[(0, "None"), (1, "2"), (2, "4"), (3, "8")];

/// genxml enum "Func".
pub const FUNCS: &[(u64, &str)] = &[
    (0, "Never"),
    (1, "Less"),
    (2, "Equal"),
    (3, "Lequal"),
    (4, "Greater"),
    (5, "Not Equal"),
    (6, "Gequal"),
    (7, "Always"),
];

/// genxml enum "Stencil Op".
pub const STENCIL_OPS: &[(u64, &str)] = &[
    (0, "Keep"),
    (1, "Replace"),
    (2, "Zero"),
    (3, "Invert"),
    (4, "Incr Wrap"),
    (5, "Decr Wrap"),
    (6, "Incr Sat"),
    (7, "Decr Sat"),
];

/// genxml enum "Message Preload Register Format".
pub const MESSAGE_PRELOAD_REGISTER_FORMATS: &[(u64, &str)] = &[(0, "F32"), (1, "F16")];

/// genxml enum "Message Type".
pub const MESSAGE_TYPES: &[(u64, &str)] = &[(0, "Disabled"), (1, "LD_VAR"), (2, "VAR_TEX")];

/// Bifrost v7 register allocation values.
pub const REGISTERS_64_PER_THREAD: u64 = 0;
pub const REGISTERS_32_PER_THREAD: u64 = 2;

pub mod shader_desc {
    use super::*;
    pub const SHADER: Field = Field::new("Shader", 0, 0, 64, Kind::Address);
    pub const SAMPLER_COUNT: Field = Field::new("Sampler count", 2, 0, 16, Kind::Uint);
    pub const TEXTURE_COUNT: Field = Field::new("Texture count", 2, 16, 16, Kind::Uint);
    pub const ATTRIBUTE_COUNT: Field = Field::new("Attribute count", 3, 0, 16, Kind::Uint);
    pub const VARYING_COUNT: Field = Field::new("Varying count", 3, 16, 16, Kind::Uint);
}

/// "Shader": the code address and resource counts (words 0-3 of the RSD).
pub static SHADER: Layout = Layout {
    name: "Shader",
    words: 4,
    fields: &[
        shader_desc::SHADER,
        shader_desc::SAMPLER_COUNT,
        shader_desc::TEXTURE_COUNT,
        shader_desc::ATTRIBUTE_COUNT,
        shader_desc::VARYING_COUNT,
    ],
};

pub mod properties {
    use super::*;
    pub const UNIFORM_BUFFER_COUNT: Field = Field::new("Uniform buffer count", 0, 0, 8, Kind::Uint);
    pub const DEPTH_SOURCE: Field = Field::new("Depth source", 0, 8, 2, Kind::Enum(DEPTH_SOURCES));
    pub const SHADER_CONTAINS_BARRIER: Field =
        Field::new("Shader contains barrier", 0, 11, 1, Kind::Bool);
    pub const SHADER_REGISTER_ALLOCATION: Field = Field::new(
        "Shader register allocation",
        0,
        12,
        2,
        Kind::Enum(SHADER_REGISTER_ALLOCATIONS),
    );
    pub const SECONDARY_SHADER_REGISTER_ALLOCATION: Field = Field::new(
        "Secondary shader register allocation",
        0,
        14,
        2,
        Kind::Enum(SHADER_REGISTER_ALLOCATIONS),
    );
    pub const SHADER_MODIFIES_COVERAGE: Field =
        Field::new("Shader modifies coverage", 0, 16, 1, Kind::Bool);
    pub const ALLOW_FORWARD_PIXEL_TO_KILL: Field =
        Field::new("Allow forward pixel to kill", 0, 19, 1, Kind::Bool);
    pub const ALLOW_FORWARD_PIXEL_TO_BE_KILLED: Field =
        Field::new("Allow forward pixel to be killed", 0, 20, 1, Kind::Bool);
    pub const PIXEL_KILL_OPERATION: Field =
        Field::new("Pixel kill operation", 0, 21, 2, Kind::Enum(PIXEL_KILLS));
    pub const ZS_UPDATE_OPERATION: Field =
        Field::new("ZS update operation", 0, 23, 2, Kind::Enum(PIXEL_KILLS));
    pub const POINT_SPRITE_COORD_ORIGIN_MAX_Y: Field =
        Field::new("Point sprite coord origin max Y", 0, 27, 1, Kind::Bool);
    pub const STENCIL_FROM_SHADER: Field = Field::new("Stencil from shader", 0, 28, 1, Kind::Bool);
    pub const SHADER_WAIT_DEPENDENCY_6: Field =
        Field::new("Shader wait dependency 6", 0, 30, 1, Kind::Bool);
    pub const SHADER_WAIT_DEPENDENCY_7: Field =
        Field::new("Shader wait dependency 7", 0, 31, 1, Kind::Bool);
}

/// "Renderer Properties" (v7): word 4 of the RSD.
pub static RENDERER_PROPERTIES_V7: Layout = Layout {
    name: "Renderer Properties",
    words: 1,
    fields: &[
        properties::UNIFORM_BUFFER_COUNT,
        properties::DEPTH_SOURCE,
        properties::SHADER_CONTAINS_BARRIER,
        properties::SHADER_REGISTER_ALLOCATION,
        properties::SECONDARY_SHADER_REGISTER_ALLOCATION,
        properties::SHADER_MODIFIES_COVERAGE,
        properties::ALLOW_FORWARD_PIXEL_TO_KILL,
        properties::ALLOW_FORWARD_PIXEL_TO_BE_KILLED,
        properties::PIXEL_KILL_OPERATION,
        properties::ZS_UPDATE_OPERATION,
        properties::POINT_SPRITE_COORD_ORIGIN_MAX_Y,
        properties::STENCIL_FROM_SHADER,
        properties::SHADER_WAIT_DEPENDENCY_6,
        properties::SHADER_WAIT_DEPENDENCY_7,
    ],
};

/// "Renderer Properties" (v6): no register allocation, no wait dependency 6/7.
pub static RENDERER_PROPERTIES_V6: Layout = Layout {
    name: "Renderer Properties",
    words: 1,
    fields: &[
        properties::UNIFORM_BUFFER_COUNT,
        properties::DEPTH_SOURCE,
        properties::SHADER_CONTAINS_BARRIER,
        properties::SHADER_MODIFIES_COVERAGE,
        properties::ALLOW_FORWARD_PIXEL_TO_KILL,
        properties::ALLOW_FORWARD_PIXEL_TO_BE_KILLED,
        properties::PIXEL_KILL_OPERATION,
        properties::ZS_UPDATE_OPERATION,
        properties::POINT_SPRITE_COORD_ORIGIN_MAX_Y,
        properties::STENCIL_FROM_SHADER,
    ],
};

pub mod compute_preload {
    use super::*;
    pub const PC: Field = Field::new("PC", 0, 6, 1, Kind::Bool);
    pub const LOCAL_INVOCATION_XY: Field = Field::new("Local Invocation XY", 0, 7, 1, Kind::Bool);
    pub const LOCAL_INVOCATION_Z: Field = Field::new("Local Invocation Z", 0, 8, 1, Kind::Bool);
    pub const WORK_GROUP_X: Field = Field::new("Work group X", 0, 9, 1, Kind::Bool);
    pub const WORK_GROUP_Y: Field = Field::new("Work group Y", 0, 10, 1, Kind::Bool);
    pub const WORK_GROUP_Z: Field = Field::new("Work group Z", 0, 11, 1, Kind::Bool);
    pub const GLOBAL_INVOCATION_X: Field = Field::new("Global Invocation X", 0, 12, 1, Kind::Bool);
    pub const GLOBAL_INVOCATION_Y: Field = Field::new("Global Invocation Y", 0, 13, 1, Kind::Bool);
    pub const GLOBAL_INVOCATION_Z: Field = Field::new("Global Invocation Z", 0, 14, 1, Kind::Bool);
}

/// "Compute Preload": which of r55-r62 the compute thread starts with.
pub static COMPUTE_PRELOAD: Layout = Layout {
    name: "Compute Preload",
    words: 1,
    fields: &[
        compute_preload::PC,
        compute_preload::LOCAL_INVOCATION_XY,
        compute_preload::LOCAL_INVOCATION_Z,
        compute_preload::WORK_GROUP_X,
        compute_preload::WORK_GROUP_Y,
        compute_preload::WORK_GROUP_Z,
        compute_preload::GLOBAL_INVOCATION_X,
        compute_preload::GLOBAL_INVOCATION_Y,
        compute_preload::GLOBAL_INVOCATION_Z,
    ],
};

pub mod vertex_preload {
    use super::*;
    pub const WARP_LIMIT: Field = Field::new("Warp limit", 0, 0, 2, Kind::Enum(WARP_LIMITS));
    pub const PC: Field = Field::new("PC", 0, 6, 1, Kind::Bool);
    pub const POSITION_RESULT_ADDRESS_LO: Field =
        Field::new("Position result address lo", 0, 10, 1, Kind::Bool);
    pub const POSITION_RESULT_ADDRESS_HI: Field =
        Field::new("Position result address hi", 0, 11, 1, Kind::Bool);
    pub const VERTEX_ID: Field = Field::new("Vertex ID", 0, 13, 1, Kind::Bool);
    pub const INSTANCE_ID: Field = Field::new("Instance ID", 0, 14, 1, Kind::Bool);
}

/// "Vertex Preload": r58/r59 position result address, r61 vertex ID, r62 instance ID.
pub static VERTEX_PRELOAD: Layout = Layout {
    name: "Vertex Preload",
    words: 1,
    fields: &[
        vertex_preload::WARP_LIMIT,
        vertex_preload::PC,
        vertex_preload::POSITION_RESULT_ADDRESS_LO,
        vertex_preload::POSITION_RESULT_ADDRESS_HI,
        vertex_preload::VERTEX_ID,
        vertex_preload::INSTANCE_ID,
    ],
};

pub mod fragment_preload {
    use super::*;
    pub const PC: Field = Field::new("PC", 0, 6, 1, Kind::Bool);
    pub const COVERAGE: Field = Field::new("Coverage", 0, 7, 1, Kind::Bool);
    pub const PRIMITIVE_ID: Field = Field::new("Primitive ID", 0, 9, 1, Kind::Bool);
    pub const PRIMITIVE_FLAGS: Field = Field::new("Primitive flags", 0, 10, 1, Kind::Bool);
    pub const FRAGMENT_POSITION: Field = Field::new("Fragment position", 0, 11, 1, Kind::Bool);
    pub const SAMPLE_MASK_ID: Field = Field::new("Sample mask/ID", 0, 13, 1, Kind::Bool);
}

/// "Fragment Preload".
pub static FRAGMENT_PRELOAD: Layout = Layout {
    name: "Fragment Preload",
    words: 1,
    fields: &[
        fragment_preload::PC,
        fragment_preload::COVERAGE,
        fragment_preload::PRIMITIVE_ID,
        fragment_preload::PRIMITIVE_FLAGS,
        fragment_preload::FRAGMENT_POSITION,
        fragment_preload::SAMPLE_MASK_ID,
    ],
};

pub mod preload {
    use super::*;
    pub const COMPUTE: Field =
        Field::new("Compute", 0, 0, 32, Kind::Struct(&super::COMPUTE_PRELOAD));
    pub const VERTEX: Field = Field::new("Vertex", 0, 0, 32, Kind::Struct(&super::VERTEX_PRELOAD));
    pub const FRAGMENT: Field =
        Field::new("Fragment", 0, 0, 32, Kind::Struct(&super::FRAGMENT_PRELOAD));
    pub const UNIFORM_COUNT: Field = Field::new("Uniform count", 0, 15, 7, Kind::Uint);
}

/// "Preload": three views of the same word plus the FAU (push uniform) count
/// in 64-bit words.
pub static PRELOAD: Layout = Layout {
    name: "Preload",
    words: 1,
    fields: &[
        preload::COMPUTE,
        preload::VERTEX,
        preload::FRAGMENT,
        preload::UNIFORM_COUNT,
    ],
};

pub mod multisample_misc {
    use super::*;
    pub const SAMPLE_MASK: Field = Field::new("Sample mask", 0, 0, 16, Kind::Uint);
    pub const MULTISAMPLE_ENABLE: Field = Field::new("Multisample enable", 0, 16, 1, Kind::Bool);
    pub const MULTISAMPLE_LATE_COVERAGE: Field =
        Field::new("Multisample late coverage", 0, 17, 1, Kind::Bool);
    pub const EVALUATE_PER_SAMPLE: Field = Field::new("Evaluate per-sample", 0, 18, 1, Kind::Bool);
    pub const FIXED_FUNCTION_DEPTH_RANGE_FIXED: Field =
        Field::new("Fixed-function depth range fixed", 0, 19, 1, Kind::Bool);
    pub const SHADER_DEPTH_RANGE_FIXED: Field =
        Field::new("Shader depth range fixed", 0, 20, 1, Kind::Bool);
    pub const OVERDRAW_ALPHA1: Field = Field::new("Overdraw alpha1", 0, 22, 1, Kind::Bool);
    pub const OVERDRAW_ALPHA0: Field = Field::new("Overdraw alpha0", 0, 23, 1, Kind::Bool);
    pub const DEPTH_FUNCTION: Field = Field::new("Depth function", 0, 24, 3, Kind::Enum(FUNCS));
    pub const DEPTH_WRITE_MASK: Field = Field::new("Depth write mask", 0, 27, 1, Kind::Bool);
    pub const FIXED_FUNCTION_NEAR_DISCARD: Field =
        Field::new("Fixed-function near discard", 0, 28, 1, Kind::Bool);
    pub const FIXED_FUNCTION_FAR_DISCARD: Field =
        Field::new("Fixed-function far discard", 0, 29, 1, Kind::Bool);
    pub const FRAGMENT_NEAR_DISCARD: Field =
        Field::new("Fragment near discard", 0, 30, 1, Kind::Bool);
    pub const FRAGMENT_FAR_DISCARD: Field =
        Field::new("Fragment far discard", 0, 31, 1, Kind::Bool);
}

/// "Multisample, Misc" (fragment state, word 8 of the RSD).
pub static MULTISAMPLE_MISC: Layout = Layout {
    name: "Multisample, Misc",
    words: 1,
    fields: &[
        multisample_misc::SAMPLE_MASK,
        multisample_misc::MULTISAMPLE_ENABLE,
        multisample_misc::MULTISAMPLE_LATE_COVERAGE,
        multisample_misc::EVALUATE_PER_SAMPLE,
        multisample_misc::FIXED_FUNCTION_DEPTH_RANGE_FIXED,
        multisample_misc::SHADER_DEPTH_RANGE_FIXED,
        multisample_misc::OVERDRAW_ALPHA1,
        multisample_misc::OVERDRAW_ALPHA0,
        multisample_misc::DEPTH_FUNCTION,
        multisample_misc::DEPTH_WRITE_MASK,
        multisample_misc::FIXED_FUNCTION_NEAR_DISCARD,
        multisample_misc::FIXED_FUNCTION_FAR_DISCARD,
        multisample_misc::FRAGMENT_NEAR_DISCARD,
        multisample_misc::FRAGMENT_FAR_DISCARD,
    ],
};

pub mod stencil_mask_misc {
    use super::*;
    pub const STENCIL_MASK_FRONT: Field = Field::new("Stencil mask front", 0, 0, 8, Kind::Uint);
    pub const STENCIL_MASK_BACK: Field = Field::new("Stencil mask back", 0, 8, 8, Kind::Uint);
    pub const STENCIL_ENABLE: Field = Field::new("Stencil enable", 0, 16, 1, Kind::Bool);
    pub const ALPHA_TO_COVERAGE: Field = Field::new("Alpha-to-coverage", 0, 17, 1, Kind::Bool);
    pub const ALPHA_TO_COVERAGE_INVERT: Field =
        Field::new("Alpha-to-coverage Invert", 0, 18, 1, Kind::Bool);
    pub const ALPHA_TEST_COMPARE_FUNCTION: Field =
        Field::new("Alpha test compare function", 0, 21, 3, Kind::Enum(FUNCS));
    pub const FORCE_SEAMLESS_CUBEMAPS: Field =
        Field::new("Force seamless cubemaps", 0, 26, 1, Kind::Bool);
    pub const FRONT_FACING_DEPTH_BIAS: Field =
        Field::new("Front-facing depth bias", 0, 28, 1, Kind::Bool);
    pub const BACK_FACING_DEPTH_BIAS: Field =
        Field::new("Back-facing depth bias", 0, 29, 1, Kind::Bool);
    pub const SINGLE_SAMPLED_LINES: Field =
        Field::new("Single-sampled lines", 0, 30, 1, Kind::Bool);
    pub const POINT_SNAP: Field = Field::new("Point snap", 0, 31, 1, Kind::Bool);
}

/// "Stencil Mask, Misc" (fragment state, word 9 of the RSD).
pub static STENCIL_MASK_MISC: Layout = Layout {
    name: "Stencil Mask, Misc",
    words: 1,
    fields: &[
        stencil_mask_misc::STENCIL_MASK_FRONT,
        stencil_mask_misc::STENCIL_MASK_BACK,
        stencil_mask_misc::STENCIL_ENABLE,
        stencil_mask_misc::ALPHA_TO_COVERAGE,
        stencil_mask_misc::ALPHA_TO_COVERAGE_INVERT,
        stencil_mask_misc::ALPHA_TEST_COMPARE_FUNCTION,
        stencil_mask_misc::FORCE_SEAMLESS_CUBEMAPS,
        stencil_mask_misc::FRONT_FACING_DEPTH_BIAS,
        stencil_mask_misc::BACK_FACING_DEPTH_BIAS,
        stencil_mask_misc::SINGLE_SAMPLED_LINES,
        stencil_mask_misc::POINT_SNAP,
    ],
};

pub mod stencil {
    use super::*;
    pub const REFERENCE_VALUE: Field = Field::new("Reference Value", 0, 0, 8, Kind::Uint);
    pub const MASK: Field = Field::new("Mask", 0, 8, 8, Kind::Uint);
    pub const COMPARE_FUNCTION: Field = Field::new("Compare Function", 0, 16, 3, Kind::Enum(FUNCS));
    pub const STENCIL_FAIL: Field = Field::new("Stencil Fail", 0, 19, 3, Kind::Enum(STENCIL_OPS));
    pub const DEPTH_FAIL: Field = Field::new("Depth Fail", 0, 22, 3, Kind::Enum(STENCIL_OPS));
    pub const DEPTH_PASS: Field = Field::new("Depth Pass", 0, 25, 3, Kind::Enum(STENCIL_OPS));
}

/// "Stencil": one face of stencil state.
pub static STENCIL: Layout = Layout {
    name: "Stencil",
    words: 1,
    fields: &[
        stencil::REFERENCE_VALUE,
        stencil::MASK,
        stencil::COMPARE_FUNCTION,
        stencil::STENCIL_FAIL,
        stencil::DEPTH_FAIL,
        stencil::DEPTH_PASS,
    ],
};

pub mod ld_var_preload {
    use super::*;
    pub const VARYING_INDEX: Field = Field::new("Varying Index", 0, 4, 5, Kind::Uint);
    pub const REGISTER_FORMAT: Field = Field::new(
        "Register Format",
        0,
        9,
        2,
        Kind::Enum(MESSAGE_PRELOAD_REGISTER_FORMATS),
    );
    pub const NUM_COMPONENTS: Field = Field::new("Num Components", 0, 11, 2, Kind::Uint)
        .modifier(Modifier::Minus(1))
        .default(1);
}

/// "LD_VAR Preload" view of a v7 Message Preload.
pub static LD_VAR_PRELOAD: Layout = Layout {
    name: "LD_VAR Preload",
    words: 1,
    fields: &[
        ld_var_preload::VARYING_INDEX,
        ld_var_preload::REGISTER_FORMAT,
        ld_var_preload::NUM_COMPONENTS,
    ],
};

pub mod var_tex_preload {
    use super::*;
    pub const VARYING_INDEX: Field = Field::new("Varying Index", 0, 4, 3, Kind::Uint);
    pub const TEXTURE_INDEX: Field = Field::new("Texture Index", 0, 7, 2, Kind::Uint);
    pub const REGISTER_FORMAT: Field = Field::new(
        "Register Format",
        0,
        9,
        2,
        Kind::Enum(MESSAGE_PRELOAD_REGISTER_FORMATS),
    );
    pub const SKIP: Field = Field::new("Skip", 0, 14, 1, Kind::Bool);
    pub const ZERO_LOD: Field = Field::new("Zero LOD", 0, 15, 1, Kind::Bool);
}

/// "VAR_TEX Preload" view of a v7 Message Preload.
pub static VAR_TEX_PRELOAD: Layout = Layout {
    name: "VAR_TEX Preload",
    words: 1,
    fields: &[
        var_tex_preload::VARYING_INDEX,
        var_tex_preload::TEXTURE_INDEX,
        var_tex_preload::REGISTER_FORMAT,
        var_tex_preload::SKIP,
        var_tex_preload::ZERO_LOD,
    ],
};

pub mod message_preload {
    use super::*;
    pub const TYPE: Field = Field::new("Type", 0, 0, 4, Kind::Enum(MESSAGE_TYPES));
    pub const LD_VAR: Field = Field::new("LD_VAR", 0, 0, 16, Kind::Struct(&super::LD_VAR_PRELOAD));
    pub const VAR_TEX: Field =
        Field::new("VAR_TEX", 0, 0, 16, Kind::Struct(&super::VAR_TEX_PRELOAD));
}

/// "Message Preload" (v7): a varying or texture message the fragment
/// thread starts with.
pub static MESSAGE_PRELOAD: Layout = Layout {
    name: "Message Preload",
    words: 1,
    fields: &[
        message_preload::TYPE,
        message_preload::LD_VAR,
        message_preload::VAR_TEX,
    ],
};

pub mod renderer_state {
    use super::*;
    pub const SHADER: Field = Field::new("Shader", 0, 0, 128, Kind::Struct(&super::SHADER));
    pub const PROPERTIES: Field = Field::new(
        "Properties",
        4,
        0,
        32,
        Kind::Struct(&super::RENDERER_PROPERTIES_V7),
    );
    pub const DEPTH_UNITS: Field = Field::new("Depth units", 5, 0, 32, Kind::Float);
    pub const DEPTH_FACTOR: Field = Field::new("Depth factor", 6, 0, 32, Kind::Float);
    pub const DEPTH_BIAS_CLAMP: Field = Field::new("Depth bias clamp", 7, 0, 32, Kind::Float);
    pub const MULTISAMPLE_MISC: Field = Field::new(
        "Multisample, Misc",
        8,
        0,
        32,
        Kind::Struct(&super::MULTISAMPLE_MISC),
    );
    pub const STENCIL_MASK_MISC: Field = Field::new(
        "Stencil Mask, Misc",
        9,
        0,
        32,
        Kind::Struct(&super::STENCIL_MASK_MISC),
    );
    pub const STENCIL_FRONT: Field =
        Field::new("Stencil front", 10, 0, 32, Kind::Struct(&super::STENCIL));
    pub const STENCIL_BACK: Field =
        Field::new("Stencil back", 11, 0, 32, Kind::Struct(&super::STENCIL));
    pub const PRELOAD: Field = Field::new("Preload", 12, 0, 32, Kind::Struct(&super::PRELOAD));
    pub const SECONDARY_PRELOAD: Field = Field::new(
        "Secondary preload",
        13,
        0,
        32,
        Kind::Struct(&super::PRELOAD),
    );
    pub const SECONDARY_SHADER: Field = Field::new("Secondary shader", 14, 0, 64, Kind::Address);
    pub const MESSAGE_PRELOAD_1: Field = Field::new(
        "Message Preload 1",
        15,
        0,
        16,
        Kind::Struct(&super::MESSAGE_PRELOAD),
    );
    pub const MESSAGE_PRELOAD_2: Field = Field::new(
        "Message Preload 2",
        15,
        16,
        16,
        Kind::Struct(&super::MESSAGE_PRELOAD),
    );

    // Nested fields the emitter sets most, at their absolute positions. Any
    // other nested field: `<view>::<FIELD>.at(<OUTER>.start)`, e.g.
    // `compute_preload::WORK_GROUP_X.at(PRELOAD.start)`, or a dotted path
    // through `renderer_state(arch).lookup(..)` for arch-dependent fields.
    pub const SHADER_ADDRESS: Field = shader_desc::SHADER.at(SHADER.start);
    pub const SAMPLER_COUNT: Field = shader_desc::SAMPLER_COUNT.at(SHADER.start);
    pub const TEXTURE_COUNT: Field = shader_desc::TEXTURE_COUNT.at(SHADER.start);
    pub const ATTRIBUTE_COUNT: Field = shader_desc::ATTRIBUTE_COUNT.at(SHADER.start);
    pub const VARYING_COUNT: Field = shader_desc::VARYING_COUNT.at(SHADER.start);
    pub const UNIFORM_BUFFER_COUNT: Field = properties::UNIFORM_BUFFER_COUNT.at(PROPERTIES.start);
    pub const SHADER_CONTAINS_BARRIER: Field =
        properties::SHADER_CONTAINS_BARRIER.at(PROPERTIES.start);
    pub const PRELOAD_UNIFORM_COUNT: Field = preload::UNIFORM_COUNT.at(PRELOAD.start);
    pub const SECONDARY_PRELOAD_UNIFORM_COUNT: Field =
        preload::UNIFORM_COUNT.at(SECONDARY_PRELOAD.start);

    /// Properties as a v6 table (the field position is the same).
    pub const PROPERTIES_V6: Field = Field::new(
        "Properties",
        4,
        0,
        32,
        Kind::Struct(&super::RENDERER_PROPERTIES_V6),
    );
}

/// "Renderer State" (v7): 64 bytes, 64-byte aligned.
pub static RENDERER_STATE_V7: Layout = Layout {
    name: "Renderer State",
    words: 16,
    fields: &[
        renderer_state::SHADER,
        renderer_state::PROPERTIES,
        renderer_state::DEPTH_UNITS,
        renderer_state::DEPTH_FACTOR,
        renderer_state::DEPTH_BIAS_CLAMP,
        renderer_state::MULTISAMPLE_MISC,
        renderer_state::STENCIL_MASK_MISC,
        renderer_state::STENCIL_FRONT,
        renderer_state::STENCIL_BACK,
        renderer_state::PRELOAD,
        renderer_state::SECONDARY_PRELOAD,
        renderer_state::SECONDARY_SHADER,
        renderer_state::MESSAGE_PRELOAD_1,
        renderer_state::MESSAGE_PRELOAD_2,
    ],
};

/// "Renderer State" (v6): no Message Preload.
pub static RENDERER_STATE_V6: Layout = Layout {
    name: "Renderer State",
    words: 16,
    fields: &[
        renderer_state::SHADER,
        renderer_state::PROPERTIES_V6,
        renderer_state::DEPTH_UNITS,
        renderer_state::DEPTH_FACTOR,
        renderer_state::DEPTH_BIAS_CLAMP,
        renderer_state::MULTISAMPLE_MISC,
        renderer_state::STENCIL_MASK_MISC,
        renderer_state::STENCIL_FRONT,
        renderer_state::STENCIL_BACK,
        renderer_state::PRELOAD,
        renderer_state::SECONDARY_PRELOAD,
        renderer_state::SECONDARY_SHADER,
    ],
};

/// The Renderer State table of an architecture.
pub fn renderer_state(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &RENDERER_STATE_V6,
        Arch::V7 => &RENDERER_STATE_V7,
    }
}

/// The Renderer Properties table of an architecture.
pub fn renderer_properties(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &RENDERER_PROPERTIES_V6,
        Arch::V7 => &RENDERER_PROPERTIES_V7,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_differences_are_data() {
        let v6 = renderer_state(Arch::V6);
        let v7 = renderer_state(Arch::V7);
        let path = "Properties.Shader register allocation";
        assert!(v6.lookup(path).is_none());
        let f = v7.lookup(path).unwrap();
        assert_eq!(f.start, 4 * 32 + 12);
        assert!(v6.lookup("Message Preload 1.Type").is_none());
        assert_eq!(
            v7.lookup("Message Preload 2.Type").unwrap().start,
            15 * 32 + 16
        );
        // Bits 12-15 of word 4 are reserved on v6 only.
        let mut w = v7.defaults();
        f.set(&mut w, REGISTERS_32_PER_THREAD).unwrap();
        assert!(v7.check_reserved(&w).is_ok());
        assert_eq!(v6.check_reserved(&w).unwrap_err().word, 4);
        assert_eq!(
            renderer_state::PRELOAD_UNIFORM_COUNT,
            v7.lookup("Preload.Uniform count").unwrap()
        );
        let wg_x = compute_preload::WORK_GROUP_X.at(renderer_state::PRELOAD.start);
        assert_eq!(wg_x, v6.lookup("Preload.Compute.Work group X").unwrap());
    }

    #[test]
    fn nested_dump_prints_sub_structures() {
        let mut w = RENDERER_STATE_V7.defaults();
        renderer_state::SHADER_ADDRESS
            .set(&mut w, 0xf7ff_b000)
            .unwrap();
        renderer_state::PRELOAD_UNIFORM_COUNT
            .set(&mut w, 4)
            .unwrap();
        let text = RENDERER_STATE_V7.dump(&w, 2);
        assert!(text.starts_with("  Shader:\n    Shader: 0xf7ffb000\n    Sampler count: 0\n"));
        assert!(text.contains("  Preload:\n    Compute:\n      PC: false\n"));
        assert!(text.contains("\n    Uniform count: 4\n"));
        assert!(text.contains("  Message Preload 2:\n    Type: Disabled\n    LD_VAR:\n"));
        assert!(text.contains("      Num Components: 1\n"));
        assert!(text.contains("    Shader register allocation: 64 Per Thread\n"));
        assert!(text.contains("  Depth units: 0.000000\n"));
    }
}
