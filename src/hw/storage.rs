//! Memory the shader reaches through tables: "Uniform Buffer" (8 B table
//! entries: 16-byte entry count and pointer) and "Local Storage" (32 B: the
//! thread-local stack and the workgroup-local memory of a job), identical on
//! v6 and v7; the tables are generated from genxml (`hw::genxml::common`).
//!
//! This module must never size TLS or WLS buffers for a device; it only
//! encodes sizes and addresses computed elsewhere.

pub use super::genxml::common::{LOCAL_STORAGE, UNIFORM_BUFFER, uniform_buffer};

pub mod local_storage {
    pub use crate::hw::genxml::common::local_storage::*;
    /// `WLS Instances` value meaning "no workgroup memory" (stored as log2 = 31).
    pub const NO_WORKGROUP_MEM: u64 = WLS_INSTANCES_NO_WORKGROUP_MEM;
}
