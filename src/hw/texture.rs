//! Texture and sampler descriptors: "Texture" (32 B) with its surface
//! records ("Surface With Stride", 16 B; v7 YUV formats use "Multiplanar
//! Surface", 32 B) and "Sampler" (32 B). The Texture's format word is read
//! with the architecture's pixel format table ([`texture()`]); everything else
//! is shared by v6 and v7.
//!
//! This module must never choose texture layouts or sampler state; it only
//! places encodings.

use super::Arch;
use super::genxml::{v6, v7};
use super::layout::{Field, Layout};

pub use super::genxml::common::{
    LOD_ALGORITHM as LOD_ALGORITHMS, MIPMAP_MODE as MIPMAP_MODES, SAMPLER, SURFACE_WITH_STRIDE,
    TEXTURE_DIMENSION as TEXTURE_DIMENSIONS, TEXTURE_LAYOUT as TEXTURE_LAYOUTS,
    WRAP_MODE as WRAP_MODES, sampler, surface_with_stride,
};
pub use super::genxml::v6::TEXTURE as TEXTURE_V6;
pub use super::genxml::v7::{MULTIPLANAR_SURFACE, TEXTURE as TEXTURE_V7, multiplanar_surface};

/// The Texture fields (positions are the same on v6; `FORMAT_V6` reads the
/// format word with the v6 table).
pub mod texture_desc {
    pub use crate::hw::genxml::v7::texture::*;
    pub const FORMAT_V6: super::Field = super::v6::texture::FORMAT;
}

/// The Texture table of an architecture.
pub fn texture(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &v6::TEXTURE,
        Arch::V7 => &v7::TEXTURE,
    }
}

/// v7 `Format` values of the YUV formats whose surfaces are multiplanar
/// (YUV8 = 32 ..= CUSTOM YUV 5 = 61).
pub const V7_YUV_FORMATS: std::ops::RangeInclusive<u64> = 32..=61;

/// `Texture Dimension` value of 3D textures.
pub const DIMENSION_3D: u64 = 3;
/// `Texture Dimension` value of cube maps.
pub const DIMENSION_CUBE: u64 = 0;
