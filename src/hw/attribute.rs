//! Vertex attribute descriptors: "Attribute" (8 B: buffer index, format,
//! offset), "Attribute Buffer" (16 B: type, pointer, stride, size, with the
//! Divisor / Divisor R / P / E views of bits 56-63 chosen by the type) and the
//! continuation records that follow some buffers ("NPOT" divisor magic, 3D
//! dimensions). Varyings use the same records.
//!
//! Identical on v6 and v7 except how the Attribute's 22-bit format word is
//! read: [`attribute`] for the architecture gives the right table (its format
//! field prints as `Format (v6)` or `Format (v7)`).
//!
//! This module must never choose divisors or formats for a vertex binding;
//! see `hw::format` for format words.

use super::Arch;
use super::layout::{Field, Kind, Layout, Modifier};

/// genxml enum "Attribute Type".
pub const ATTRIBUTE_TYPES: &[(u64, &str)] = &[
    (1, "1D"),
    (2, "1D POT Divisor"),
    (3, "1D Modulus"),
    (4, "1D NPOT Divisor"),
    (5, "3D Linear"),
    (6, "3D Interleaved"),
    (7, "1D Primitive Index Buffer"),
    (10, "1D POT Divisor Write Reduction"),
    (11, "1D Modulus Write Reduction"),
    (12, "1D NPOT Divisor Write Reduction"),
    (32, "Continuation"),
];

/// Attribute Type values the emitter uses.
pub mod attribute_type {
    pub const LINEAR_1D: u64 = 1;
    pub const POT_DIVISOR_1D: u64 = 2;
    pub const MODULUS_1D: u64 = 3;
    pub const NPOT_DIVISOR_1D: u64 = 4;
    pub const LINEAR_3D: u64 = 5;
    pub const INTERLEAVED_3D: u64 = 6;
    pub const NPOT_DIVISOR_WRITE_REDUCTION_1D: u64 = 12;
    pub const CONTINUATION: u64 = 32;
}

pub mod attribute_desc {
    use super::*;
    pub const BUFFER_INDEX: Field = Field::new("Buffer index", 0, 0, 9, Kind::Uint);
    pub const OFFSET_ENABLE: Field = Field::new("Offset enable", 0, 9, 1, Kind::Bool).default(1);
    pub const FORMAT: Field = Field::new(
        "Format",
        0,
        10,
        22,
        Kind::PixelFormat(&super::super::format::V7.table),
    );
    pub const OFFSET: Field = Field::new("Offset", 1, 0, 32, Kind::Int);

    /// The format field read with the v6 table.
    pub const FORMAT_V6: Field = Field::new(
        "Format",
        0,
        10,
        22,
        Kind::PixelFormat(&super::super::format::V6.table),
    );
}

/// "Attribute" (v7 format word): 8 bytes.
pub static ATTRIBUTE_V7: Layout = Layout {
    name: "Attribute",
    words: 2,
    fields: &[
        attribute_desc::BUFFER_INDEX,
        attribute_desc::OFFSET_ENABLE,
        attribute_desc::FORMAT,
        attribute_desc::OFFSET,
    ],
};

/// "Attribute" (v6 format word): 8 bytes.
pub static ATTRIBUTE_V6: Layout = Layout {
    name: "Attribute",
    words: 2,
    fields: &[
        attribute_desc::BUFFER_INDEX,
        attribute_desc::OFFSET_ENABLE,
        attribute_desc::FORMAT_V6,
        attribute_desc::OFFSET,
    ],
};

pub mod attribute_buffer {
    use super::*;
    pub const TYPE: Field = Field::new("Type", 0, 0, 6, Kind::Enum(ATTRIBUTE_TYPES)).default(1);
    pub const POINTER: Field =
        Field::new("Pointer", 0, 6, 50, Kind::Address).modifier(Modifier::Shr(6));
    pub const STRIDE: Field = Field::new("Stride", 2, 0, 32, Kind::Uint);
    pub const SIZE: Field = Field::new("Size", 3, 0, 32, Kind::Uint);
    pub const DIVISOR: Field = Field::new("Divisor", 1, 24, 8, Kind::Padded).default(1);
    pub const DIVISOR_R: Field = Field::new("Divisor R", 1, 24, 5, Kind::Uint);
    pub const DIVISOR_P: Field = Field::new("Divisor P", 1, 29, 3, Kind::Uint);
    pub const DIVISOR_E: Field = Field::new("Divisor E", 1, 29, 1, Kind::Uint);
}

/// "Attribute Buffer": 16 bytes, 32-byte aligned arrays.
pub static ATTRIBUTE_BUFFER: Layout = Layout {
    name: "Attribute Buffer",
    words: 4,
    fields: &[
        attribute_buffer::TYPE,
        attribute_buffer::POINTER,
        attribute_buffer::STRIDE,
        attribute_buffer::SIZE,
        attribute_buffer::DIVISOR,
        attribute_buffer::DIVISOR_R,
        attribute_buffer::DIVISOR_P,
        attribute_buffer::DIVISOR_E,
    ],
};

pub mod continuation_npot {
    use super::*;
    pub const TYPE: Field = Field::new("Type", 0, 0, 6, Kind::Enum(ATTRIBUTE_TYPES)).default(32);
    pub const DIVISOR_NUMERATOR: Field = Field::new("Divisor Numerator", 1, 0, 32, Kind::Uint);
    pub const DIVISOR: Field = Field::new("Divisor", 3, 0, 32, Kind::Uint);
}

/// "Attribute Buffer Continuation NPOT": the record after an NPOT-divisor
/// buffer (magic numerator and the original divisor).
pub static ATTRIBUTE_BUFFER_CONTINUATION_NPOT: Layout = Layout {
    name: "Attribute Buffer Continuation NPOT",
    words: 4,
    fields: &[
        continuation_npot::TYPE,
        continuation_npot::DIVISOR_NUMERATOR,
        continuation_npot::DIVISOR,
    ],
};

/// What the attribute unit computes for an NPOT-divisor buffer: linear
/// index `n` × the magic `2^31 | numerator`, shifted right by `32 + r`, after
/// adding `e` to `n` (`Divisor E`). Our reading of the encoding (Mesa only
/// writes the fields; see `jm::vertex_input` for how the emitter chooses
/// them and why this is exact); 128-bit so nothing wraps.
pub fn npot_divide(n: u64, numerator: u32, r: u32, e: bool) -> u64 {
    let magic = u128::from(numerator) | 1 << 31;
    (((u128::from(n) + u128::from(e)) * magic) >> (32 + r.min(31))) as u64
}

pub mod continuation_3d {
    use super::*;
    pub const TYPE: Field = Field::new("Type", 0, 0, 6, Kind::Enum(ATTRIBUTE_TYPES)).default(32);
    pub const S_DIMENSION: Field =
        Field::new("S dimension", 0, 16, 16, Kind::Uint).modifier(Modifier::Minus(1));
    pub const T_DIMENSION: Field =
        Field::new("T dimension", 1, 0, 16, Kind::Uint).modifier(Modifier::Minus(1));
    pub const R_DIMENSION: Field =
        Field::new("R dimension", 1, 16, 16, Kind::Uint).modifier(Modifier::Minus(1));
    pub const ROW_STRIDE: Field = Field::new("Row Stride", 2, 0, 32, Kind::Uint);
    pub const SLICE_STRIDE: Field = Field::new("Slice Stride", 3, 0, 32, Kind::Uint);
}

/// "Attribute Buffer Continuation 3D": the record after a 3D buffer.
pub static ATTRIBUTE_BUFFER_CONTINUATION_3D: Layout = Layout {
    name: "Attribute Buffer Continuation 3D",
    words: 4,
    fields: &[
        continuation_3d::TYPE,
        continuation_3d::S_DIMENSION,
        continuation_3d::T_DIMENSION,
        continuation_3d::R_DIMENSION,
        continuation_3d::ROW_STRIDE,
        continuation_3d::SLICE_STRIDE,
    ],
};

/// The Attribute table of an architecture.
pub fn attribute(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &ATTRIBUTE_V6,
        Arch::V7 => &ATTRIBUTE_V7,
    }
}
