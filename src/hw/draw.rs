//! The draw-side descriptors: "Draw" (the DCD, 128 B, what a compute or
//! vertex job points its shader, resources and thread storage from),
//! "Primitive" and "Primitive Size" (tiler and IDVS jobs) and "Viewport".
//! All are bit-identical on v6 and v7.
//!
//! This module must never fill a descriptor for a particular draw; it is the
//! table the emitter packs with and the simulator and dump tool unpack with.

pub use super::genxml::common::draw as dcd;
pub use super::genxml::common::{
    DRAW, INDEX_TYPE as INDEX_TYPES, OCCLUSION_MODE as OCCLUSION_MODES,
    POINT_SIZE_ARRAY_FORMAT as POINT_SIZE_ARRAY_FORMATS, PRIMITIVE_RESTART as PRIMITIVE_RESTARTS,
    PRIMITIVE_SIZE, VIEWPORT, primitive_size, viewport,
};
/// The Primitive fields. Their positions are the same on v6, whose `Draw
/// Mode` enum also names 15 ("Quad strip"): read whole descriptors with
/// [`primitive()`].
pub use super::genxml::v7::primitive;
pub use super::genxml::v7::{DRAW_MODE as DRAW_MODES, PRIMITIVE};

use super::Arch;
use super::layout::Layout;

/// The Primitive table of an architecture.
pub fn primitive(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &super::genxml::v6::PRIMITIVE,
        Arch::V7 => &super::genxml::v7::PRIMITIVE,
    }
}
