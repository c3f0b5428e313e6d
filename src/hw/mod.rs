//! Bifrost hardware layouts as data.
//!
//! Every descriptor the job manager reads (job headers, payloads, draw and
//! renderer-state descriptors, attributes ...) is described once here as a
//! table of named bit ranges ([`layout::Field`]); the job emitter (`jm/`) packs
//! with these tables, the simulator (`kmod/sim/`) unpacks with them, and the
//! dump tools print them. Per-architecture differences (v6/v7) are data.
//!
//! This module must never hold driver state or know about Vulkan: it is pure
//! description plus pack/unpack.

pub mod isa;
pub mod job;
pub mod layout;
pub mod snapshot;

/// Bifrost architecture major version (v6: G71/G72, v7: G31/G51/G52/G76).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    V6,
    V7,
}

impl Arch {
    /// The architecture of a GPU product id (`GPU_PROD_ID`), if it is a Bifrost JM GPU.
    pub fn from_product_id(prod_id: u32) -> Option<Arch> {
        match prod_id >> 12 {
            6 => Some(Arch::V6),
            7 => Some(Arch::V7),
            _ => None,
        }
    }
}
