//! The tiler's descriptors: "Tiler Context" (192 B, what tiler and IDVS
//! jobs point at through their Tiler Pointer), its nested "Tiler Weights"
//! and opaque "Tiler State", and "Tiler Heap". Identical on v6 and v7.
//!
//! This module must never size a tiler heap or polygon list; it only places
//! the values the driver computed.

use super::layout::{Field, Kind, Layout, Modifier};

/// genxml enum "Sample Pattern" (common.xml).
pub const SAMPLE_PATTERNS: &[(u64, &str)] = &[
    (0, "Single-sampled"),
    (1, "Ordered 4x Grid"),
    (2, "Rotated 4x Grid"),
    (3, "D3D 8x Grid"),
    (4, "D3D 16x Grid"),
];

pub mod tiler_heap {
    use super::*;
    pub const SIZE: Field =
        Field::new("Size", 1, 0, 32, Kind::Uint).modifier(Modifier::Align(4096));
    pub const BASE: Field = Field::new("Base", 2, 0, 64, Kind::Address);
    pub const BOTTOM: Field = Field::new("Bottom", 4, 0, 64, Kind::Address);
    pub const TOP: Field = Field::new("Top", 6, 0, 64, Kind::Address);
}

/// "Tiler Heap": 32 bytes, 64-byte aligned.
pub static TILER_HEAP: Layout = Layout {
    name: "Tiler Heap",
    words: 8,
    fields: &[
        tiler_heap::SIZE,
        tiler_heap::BASE,
        tiler_heap::BOTTOM,
        tiler_heap::TOP,
    ],
};

pub mod tiler_weights {
    use super::*;
    pub const WEIGHT0: Field = Field::new("Weight0", 0, 16, 16, Kind::Uint);
    pub const WEIGHT1: Field = Field::new("Weight1", 1, 16, 16, Kind::Uint);
    pub const WEIGHT2: Field = Field::new("Weight2", 2, 16, 16, Kind::Uint);
    pub const WEIGHT3: Field = Field::new("Weight3", 3, 16, 16, Kind::Uint);
    pub const WEIGHT4: Field = Field::new("Weight4", 4, 16, 16, Kind::Uint);
    pub const WEIGHT5: Field = Field::new("Weight5", 5, 16, 16, Kind::Uint);
    pub const WEIGHT6: Field = Field::new("Weight6", 6, 16, 16, Kind::Uint);
    pub const WEIGHT7: Field = Field::new("Weight7", 7, 16, 16, Kind::Uint);
}

/// "Tiler Weights": words 8-15 of the Tiler Context.
pub static TILER_WEIGHTS: Layout = Layout {
    name: "Tiler Weights",
    words: 8,
    fields: &[
        tiler_weights::WEIGHT0,
        tiler_weights::WEIGHT1,
        tiler_weights::WEIGHT2,
        tiler_weights::WEIGHT3,
        tiler_weights::WEIGHT4,
        tiler_weights::WEIGHT5,
        tiler_weights::WEIGHT6,
        tiler_weights::WEIGHT7,
    ],
};

pub mod tiler_state {
    use super::*;
    pub const WORD0: Field = Field::new("Word0", 0, 0, 32, Kind::Uint);
    pub const WORD1: Field = Field::new("Word1", 1, 0, 32, Kind::Uint);
    pub const WORD2: Field = Field::new("Word2", 2, 0, 32, Kind::Uint);
    pub const WORD3: Field = Field::new("Word3", 3, 0, 32, Kind::Uint);
    pub const WORD4: Field = Field::new("Word4", 4, 0, 32, Kind::Uint);
    pub const WORD5: Field = Field::new("Word5", 5, 0, 32, Kind::Uint);
    pub const WORD6: Field = Field::new("Word6", 6, 0, 32, Kind::Uint);
    pub const WORD7: Field = Field::new("Word7", 7, 0, 32, Kind::Uint);
    pub const WORD8: Field = Field::new("Word8", 8, 0, 32, Kind::Uint);
    pub const WORD9: Field = Field::new("Word9", 9, 0, 32, Kind::Uint);
    pub const WORD10: Field = Field::new("Word10", 10, 0, 32, Kind::Uint);
    pub const WORD11: Field = Field::new("Word11", 11, 0, 32, Kind::Uint);
    pub const WORD12: Field = Field::new("Word12", 12, 0, 32, Kind::Uint);
    pub const WORD13: Field = Field::new("Word13", 13, 0, 32, Kind::Uint);
    pub const WORD14: Field = Field::new("Word14", 14, 0, 32, Kind::Uint);
    pub const WORD15: Field = Field::new("Word15", 15, 0, 32, Kind::Uint);
}

/// "Tiler State": words 32-47 of the Tiler Context, owned by the GPU.
pub static TILER_STATE: Layout = Layout {
    name: "Tiler State",
    words: 16,
    fields: &[
        tiler_state::WORD0,
        tiler_state::WORD1,
        tiler_state::WORD2,
        tiler_state::WORD3,
        tiler_state::WORD4,
        tiler_state::WORD5,
        tiler_state::WORD6,
        tiler_state::WORD7,
        tiler_state::WORD8,
        tiler_state::WORD9,
        tiler_state::WORD10,
        tiler_state::WORD11,
        tiler_state::WORD12,
        tiler_state::WORD13,
        tiler_state::WORD14,
        tiler_state::WORD15,
    ],
};

pub mod tiler_context {
    use super::*;
    pub const POLYGON_LIST: Field = Field::new("Polygon List", 0, 0, 64, Kind::Address);
    pub const HIERARCHY_MASK: Field = Field::new("Hierarchy Mask", 2, 0, 13, Kind::Uint);
    pub const SAMPLE_PATTERN: Field =
        Field::new("Sample Pattern", 2, 13, 3, Kind::Enum(SAMPLE_PATTERNS));
    pub const UPDATE_COST_TABLE: Field = Field::new("Update Cost Table", 2, 16, 1, Kind::Bool);
    pub const FB_WIDTH: Field =
        Field::new("FB Width", 3, 0, 16, Kind::Uint).modifier(Modifier::Minus(1));
    pub const FB_HEIGHT: Field =
        Field::new("FB Height", 3, 16, 16, Kind::Uint).modifier(Modifier::Minus(1));
    pub const HEAP: Field = Field::new("Heap", 6, 0, 64, Kind::Address);
    pub const WEIGHTS: Field =
        Field::new("Weights", 8, 0, 256, Kind::Struct(&super::TILER_WEIGHTS));
    pub const STATE: Field = Field::new("State", 32, 0, 512, Kind::Struct(&super::TILER_STATE));
}

/// "Tiler Context": 192 bytes, 64-byte aligned.
pub static TILER_CONTEXT: Layout = Layout {
    name: "Tiler Context",
    words: 48,
    fields: &[
        tiler_context::POLYGON_LIST,
        tiler_context::HIERARCHY_MASK,
        tiler_context::SAMPLE_PATTERN,
        tiler_context::UPDATE_COST_TABLE,
        tiler_context::FB_WIDTH,
        tiler_context::FB_HEIGHT,
        tiler_context::HEAP,
        tiler_context::WEIGHTS,
        tiler_context::STATE,
    ],
};
