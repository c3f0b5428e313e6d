//! The tiler's descriptors: "Tiler Context" (192 B, what tiler and IDVS
//! jobs point at through their Tiler Pointer), its nested "Tiler Weights"
//! and opaque "Tiler State", and "Tiler Heap". Identical on v6 and v7; the
//! tables are generated from genxml (`hw::genxml::common`).
//!
//! This module must never size a tiler heap or polygon list; it only places
//! the values the driver computed.

pub use super::genxml::common::{
    SAMPLE_PATTERN as SAMPLE_PATTERNS, TILER_CONTEXT, TILER_HEAP, TILER_STATE, TILER_WEIGHTS,
    tiler_context, tiler_heap, tiler_state, tiler_weights,
};
