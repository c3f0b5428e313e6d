//! The draw-side descriptors: "Draw" (the DCD, 128 B, what a compute or
//! vertex job points its shader, resources and thread storage from),
//! "Primitive" and "Primitive Size" (tiler and IDVS jobs) and "Viewport".
//! All are bit-identical on v6 and v7.
//!
//! This module must never fill a descriptor for a particular draw; it is the
//! table the emitter packs with and the simulator and dump tool unpack with.

use super::layout::{Field, Kind, Layout, Modifier};

/// genxml enum "Occlusion Mode".
pub const OCCLUSION_MODES: &[(u64, &str)] = &[(0, "Disabled"), (1, "Predicate"), (3, "Counter")];

/// genxml enum "Draw Mode".
pub const DRAW_MODES: &[(u64, &str)] = &[
    (0, "None"),
    (1, "Points"),
    (2, "Lines"),
    (4, "Line strip"),
    (6, "Line loop"),
    (8, "Triangles"),
    (10, "Triangle strip"),
    (12, "Triangle fan"),
    (13, "Polygon"),
    (14, "Quads"),
];

/// genxml enum "Index Type".
pub const INDEX_TYPES: &[(u64, &str)] = &[(0, "None"), (1, "UINT8"), (2, "UINT16"), (3, "UINT32")];

/// genxml enum "Point Size Array Format".
pub const POINT_SIZE_ARRAY_FORMATS: &[(u64, &str)] = &[(0, "None"), (2, "FP16"), (3, "FP32")];

/// genxml enum "Primitive Restart".
pub const PRIMITIVE_RESTARTS: &[(u64, &str)] = &[(0, "None"), (2, "Implicit"), (3, "Explicit")];

pub mod dcd {
    use super::*;
    pub const FOUR_COMPONENTS_PER_VERTEX: Field =
        Field::new("Four Components Per Vertex", 0, 0, 1, Kind::Bool).default(1);
    pub const DRAW_DESCRIPTOR_IS_64B: Field =
        Field::new("Draw Descriptor Is 64b", 0, 1, 1, Kind::Bool).default(1);
    pub const OCCLUSION_QUERY: Field =
        Field::new("Occlusion query", 0, 3, 2, Kind::Enum(OCCLUSION_MODES));
    pub const FRONT_FACE_CCW: Field = Field::new("Front face CCW", 0, 5, 1, Kind::Bool);
    pub const CULL_FRONT_FACE: Field = Field::new("Cull front face", 0, 6, 1, Kind::Bool);
    pub const CULL_BACK_FACE: Field = Field::new("Cull back face", 0, 7, 1, Kind::Bool);
    pub const FLAT_SHADING_VERTEX: Field = Field::new("Flat Shading Vertex", 0, 8, 1, Kind::Uint);
    pub const EXCLUDE_FILTERED_PERF_COUNTERS: Field =
        Field::new("Exclude Filtered Perf Counters", 0, 9, 1, Kind::Bool);
    pub const PRIMITIVE_BARRIER: Field = Field::new("Primitive Barrier", 0, 10, 1, Kind::Bool);
    pub const CLEAN_FRAGMENT_WRITE: Field =
        Field::new("Clean Fragment Write", 0, 11, 1, Kind::Bool);
    pub const INSTANCE_SIZE: Field = Field::new("Instance Size", 0, 16, 8, Kind::Padded).default(1);
    pub const INSTANCE_PRIMITIVE_SIZE: Field =
        Field::new("Instance Primitive Size", 0, 24, 8, Kind::Padded).default(1);
    pub const OFFSET_START: Field = Field::new("Offset start", 1, 0, 32, Kind::Uint);
    pub const PRIMITIVE_INDEX_BASE: Field =
        Field::new("Primitive Index Base", 2, 0, 32, Kind::Uint);
    pub const POSITION: Field = Field::new("Position", 4, 0, 64, Kind::Address);
    pub const UNIFORM_BUFFERS: Field = Field::new("Uniform buffers", 6, 0, 64, Kind::Address);
    pub const TEXTURES: Field = Field::new("Textures", 8, 0, 64, Kind::Address);
    pub const SAMPLERS: Field = Field::new("Samplers", 10, 0, 64, Kind::Address);
    pub const PUSH_UNIFORMS: Field = Field::new("Push uniforms", 12, 0, 64, Kind::Address);
    pub const STATE: Field = Field::new("State", 14, 0, 64, Kind::Address);
    pub const ATTRIBUTE_BUFFERS: Field = Field::new("Attribute buffers", 16, 0, 64, Kind::Address);
    pub const ATTRIBUTES: Field = Field::new("Attributes", 18, 0, 64, Kind::Address);
    pub const VARYING_BUFFERS: Field = Field::new("Varying buffers", 20, 0, 64, Kind::Address);
    pub const VARYINGS: Field = Field::new("Varyings", 22, 0, 64, Kind::Address);
    pub const VIEWPORT: Field = Field::new("Viewport", 24, 0, 64, Kind::Address);
    pub const OCCLUSION: Field = Field::new("Occlusion", 26, 0, 64, Kind::Address);
    pub const THREAD_STORAGE: Field = Field::new("Thread Storage", 28, 0, 64, Kind::Address);
}

/// "Draw" (DCD): 128 bytes, 64-byte aligned; at +64 of compute/vertex jobs,
/// +128 of tiler jobs, +128 (fragment) and +256 (vertex) of IDVS jobs.
pub static DRAW: Layout = Layout {
    name: "Draw",
    words: 32,
    fields: &[
        dcd::FOUR_COMPONENTS_PER_VERTEX,
        dcd::DRAW_DESCRIPTOR_IS_64B,
        dcd::OCCLUSION_QUERY,
        dcd::FRONT_FACE_CCW,
        dcd::CULL_FRONT_FACE,
        dcd::CULL_BACK_FACE,
        dcd::FLAT_SHADING_VERTEX,
        dcd::EXCLUDE_FILTERED_PERF_COUNTERS,
        dcd::PRIMITIVE_BARRIER,
        dcd::CLEAN_FRAGMENT_WRITE,
        dcd::INSTANCE_SIZE,
        dcd::INSTANCE_PRIMITIVE_SIZE,
        dcd::OFFSET_START,
        dcd::PRIMITIVE_INDEX_BASE,
        dcd::POSITION,
        dcd::UNIFORM_BUFFERS,
        dcd::TEXTURES,
        dcd::SAMPLERS,
        dcd::PUSH_UNIFORMS,
        dcd::STATE,
        dcd::ATTRIBUTE_BUFFERS,
        dcd::ATTRIBUTES,
        dcd::VARYING_BUFFERS,
        dcd::VARYINGS,
        dcd::VIEWPORT,
        dcd::OCCLUSION,
        dcd::THREAD_STORAGE,
    ],
};

pub mod primitive {
    use super::*;
    pub const DRAW_MODE: Field = Field::new("Draw mode", 0, 0, 8, Kind::Enum(DRAW_MODES));
    pub const INDEX_TYPE: Field = Field::new("Index type", 0, 8, 3, Kind::Enum(INDEX_TYPES));
    pub const POINT_SIZE_ARRAY_FORMAT: Field = Field::new(
        "Point size array format",
        0,
        11,
        2,
        Kind::Enum(POINT_SIZE_ARRAY_FORMATS),
    );
    pub const PRIMITIVE_INDEX_ENABLE: Field =
        Field::new("Primitive Index Enable", 0, 13, 1, Kind::Bool);
    pub const PRIMITIVE_INDEX_WRITEBACK: Field =
        Field::new("Primitive Index Writeback", 0, 14, 1, Kind::Bool);
    pub const FIRST_PROVOKING_VERTEX: Field =
        Field::new("First provoking vertex", 0, 15, 1, Kind::Bool).default(1);
    pub const LOW_DEPTH_CULL: Field = Field::new("Low Depth Cull", 0, 16, 1, Kind::Bool).default(1);
    pub const HIGH_DEPTH_CULL: Field =
        Field::new("High Depth Cull", 0, 17, 1, Kind::Bool).default(1);
    pub const SECONDARY_SHADER: Field = Field::new("Secondary Shader", 0, 18, 1, Kind::Bool);
    pub const PRIMITIVE_RESTART: Field = Field::new(
        "Primitive restart",
        0,
        19,
        2,
        Kind::Enum(PRIMITIVE_RESTARTS),
    );
    pub const JOB_TASK_SPLIT: Field = Field::new("Job Task Split", 0, 26, 6, Kind::Uint);
    pub const BASE_VERTEX_OFFSET: Field = Field::new("Base vertex offset", 1, 0, 32, Kind::Int);
    pub const PRIMITIVE_RESTART_INDEX: Field =
        Field::new("Primitive Restart Index", 2, 0, 32, Kind::Uint);
    pub const INDEX_COUNT: Field =
        Field::new("Index count", 3, 0, 32, Kind::Uint).modifier(Modifier::Minus(1));
    pub const INDICES: Field = Field::new("Indices", 4, 0, 64, Kind::Address);
}

/// "Primitive": 24 bytes at +40 of tiler and IDVS jobs.
pub static PRIMITIVE: Layout = Layout {
    name: "Primitive",
    words: 6,
    fields: &[
        primitive::DRAW_MODE,
        primitive::INDEX_TYPE,
        primitive::POINT_SIZE_ARRAY_FORMAT,
        primitive::PRIMITIVE_INDEX_ENABLE,
        primitive::PRIMITIVE_INDEX_WRITEBACK,
        primitive::FIRST_PROVOKING_VERTEX,
        primitive::LOW_DEPTH_CULL,
        primitive::HIGH_DEPTH_CULL,
        primitive::SECONDARY_SHADER,
        primitive::PRIMITIVE_RESTART,
        primitive::JOB_TASK_SPLIT,
        primitive::BASE_VERTEX_OFFSET,
        primitive::PRIMITIVE_RESTART_INDEX,
        primitive::INDEX_COUNT,
        primitive::INDICES,
    ],
};

pub mod primitive_size {
    use super::*;
    pub const CONSTANT: Field = Field::new("Constant", 0, 0, 32, Kind::Float);
    pub const SIZE_ARRAY: Field = Field::new("Size Array", 0, 0, 64, Kind::Uint);
}

/// "Primitive Size": 8 bytes at +64 of tiler and IDVS jobs; a constant
/// point size or the address of a per-vertex size array (two views).
pub static PRIMITIVE_SIZE: Layout = Layout {
    name: "Primitive Size",
    words: 2,
    fields: &[primitive_size::CONSTANT, primitive_size::SIZE_ARRAY],
};

pub mod viewport {
    use super::*;
    pub const MINIMUM_X: Field =
        Field::new("Minimum X", 0, 0, 32, Kind::Float).default(0xff80_0000);
    pub const MINIMUM_Y: Field =
        Field::new("Minimum Y", 1, 0, 32, Kind::Float).default(0xff80_0000);
    pub const MAXIMUM_X: Field =
        Field::new("Maximum X", 2, 0, 32, Kind::Float).default(0x7f80_0000);
    pub const MAXIMUM_Y: Field =
        Field::new("Maximum Y", 3, 0, 32, Kind::Float).default(0x7f80_0000);
    pub const MINIMUM_Z: Field = Field::new("Minimum Z", 4, 0, 32, Kind::Float);
    pub const MAXIMUM_Z: Field =
        Field::new("Maximum Z", 5, 0, 32, Kind::Float).default(0x3f80_0000);
    pub const SCISSOR_MINIMUM_X: Field = Field::new("Scissor Minimum X", 6, 0, 16, Kind::Uint);
    pub const SCISSOR_MINIMUM_Y: Field = Field::new("Scissor Minimum Y", 6, 16, 16, Kind::Uint);
    pub const SCISSOR_MAXIMUM_X: Field = Field::new("Scissor Maximum X", 7, 0, 16, Kind::Uint);
    pub const SCISSOR_MAXIMUM_Y: Field = Field::new("Scissor Maximum Y", 7, 16, 16, Kind::Uint);
}

/// "Viewport": 32 bytes, 32-byte aligned (tiler DCDs point at it).
pub static VIEWPORT: Layout = Layout {
    name: "Viewport",
    words: 8,
    fields: &[
        viewport::MINIMUM_X,
        viewport::MINIMUM_Y,
        viewport::MAXIMUM_X,
        viewport::MAXIMUM_Y,
        viewport::MINIMUM_Z,
        viewport::MAXIMUM_Z,
        viewport::SCISSOR_MINIMUM_X,
        viewport::SCISSOR_MINIMUM_Y,
        viewport::SCISSOR_MAXIMUM_X,
        viewport::SCISSOR_MAXIMUM_Y,
    ],
};
