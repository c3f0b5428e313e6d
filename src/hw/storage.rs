//! Memory the shader reaches through tables: "Uniform Buffer" (8 B table
//! entries: 16-byte entry count and pointer) and "Local Storage" (32 B: the
//! thread-local stack and the workgroup-local memory of a job), identical on
//! v6 and v7.
//!
//! This module must never size TLS or WLS buffers for a device; it only
//! encodes sizes and addresses computed elsewhere.

use super::layout::{Field, Kind, Layout, Modifier};

pub mod uniform_buffer {
    use super::*;
    pub const ENTRIES: Field =
        Field::new("Entries", 0, 0, 12, Kind::Uint).modifier(Modifier::Minus(1));
    pub const POINTER: Field =
        Field::new("Pointer", 0, 12, 52, Kind::Address).modifier(Modifier::Shr(4));
}

/// "Uniform Buffer": 8 bytes; `Entries` counts 16-byte entries.
pub static UNIFORM_BUFFER: Layout = Layout {
    name: "Uniform Buffer",
    words: 2,
    fields: &[uniform_buffer::ENTRIES, uniform_buffer::POINTER],
};

pub mod local_storage {
    use super::*;
    /// `WLS Instances` value meaning "no workgroup memory" (stored as log2 = 31).
    pub const NO_WORKGROUP_MEM: u64 = 0x8000_0000;
    pub const TLS_SIZE: Field = Field::new("TLS Size", 0, 0, 5, Kind::Uint);
    pub const TLS_INITIAL_STACK_POINTER_OFFSET: Field =
        Field::new("TLS Initial Stack Pointer Offset", 0, 5, 27, Kind::Uint);
    pub const WLS_INSTANCES: Field = Field::new("WLS Instances", 1, 0, 5, Kind::Uint)
        .modifier(Modifier::Log2)
        .default(NO_WORKGROUP_MEM);
    pub const WLS_SIZE_BASE: Field = Field::new("WLS Size Base", 1, 5, 2, Kind::Uint);
    pub const WLS_SIZE_SCALE: Field = Field::new("WLS Size Scale", 1, 8, 5, Kind::Uint);
    pub const TLS_BASE_POINTER: Field = Field::new("TLS Base Pointer", 2, 0, 64, Kind::Address);
    pub const WLS_BASE_POINTER: Field = Field::new("WLS Base Pointer", 4, 0, 64, Kind::Address);
}

/// "Local Storage" (TLS/WLS): 32 bytes, 64-byte aligned.
pub static LOCAL_STORAGE: Layout = Layout {
    name: "Local Storage",
    words: 8,
    fields: &[
        local_storage::TLS_SIZE,
        local_storage::TLS_INITIAL_STACK_POINTER_OFFSET,
        local_storage::WLS_INSTANCES,
        local_storage::WLS_SIZE_BASE,
        local_storage::WLS_SIZE_SCALE,
        local_storage::TLS_BASE_POINTER,
        local_storage::WLS_BASE_POINTER,
    ],
};
