//! Texture and sampler descriptors: "Texture" (32 B) with its surface
//! records ("Surface With Stride", 16 B; v7 YUV formats use "Multiplanar
//! Surface", 32 B) and "Sampler" (32 B). The Texture's format word is read
//! with the architecture's pixel format table ([`texture()`]); everything else
//! is shared by v6 and v7.
//!
//! This module must never choose texture layouts or sampler state; it only
//! places encodings.

use super::Arch;
use super::layout::{Field, Kind, Layout, Modifier};
use super::shader::FUNCS;

/// genxml enum "Wrap Mode".
pub const WRAP_MODES: &[(u64, &str)] = &[
    (8, "Repeat"),
    (9, "Clamp to Edge"),
    (11, "Clamp to Border"),
    (12, "Mirrored Repeat"),
    (13, "Mirrored Clamp to Edge"),
    (15, "Mirrored Clamp to Border"),
];

/// genxml enum "Mipmap Mode".
pub const MIPMAP_MODES: &[(u64, &str)] = &[(0, "Nearest"), (1, "None"), (3, "Trilinear")];

/// genxml enum "LOD Algorithm".
pub const LOD_ALGORITHMS: &[(u64, &str)] = &[(0, "Isotropic"), (3, "Anisotropic")];

/// genxml enum "Texture Dimension".
pub const TEXTURE_DIMENSIONS: &[(u64, &str)] = &[(0, "Cube"), (1, "1D"), (2, "2D"), (3, "3D")];

/// genxml enum "Texture Layout".
pub const TEXTURE_LAYOUTS: &[(u64, &str)] = &[(1, "Tiled"), (2, "Linear"), (12, "AFBC")];

pub mod sampler {
    use super::*;
    pub const TYPE: Field = Field::new("Type", 0, 0, 4, Kind::Uint).default(1);
    pub const WRAP_MODE_R: Field =
        Field::new("Wrap Mode R", 0, 8, 4, Kind::Enum(WRAP_MODES)).default(9);
    pub const WRAP_MODE_T: Field =
        Field::new("Wrap Mode T", 0, 12, 4, Kind::Enum(WRAP_MODES)).default(9);
    pub const WRAP_MODE_S: Field =
        Field::new("Wrap Mode S", 0, 16, 4, Kind::Enum(WRAP_MODES)).default(9);
    pub const ROUND_TO_NEAREST_EVEN: Field =
        Field::new("Round to nearest even", 0, 21, 1, Kind::Bool).default(1);
    pub const SRGB_OVERRIDE: Field = Field::new("sRGB override", 0, 22, 1, Kind::Bool);
    pub const SEAMLESS_CUBE_MAP: Field =
        Field::new("Seamless Cube Map", 0, 23, 1, Kind::Bool).default(1);
    pub const CLAMP_INTEGER_COORDINATES: Field =
        Field::new("Clamp integer coordinates", 0, 24, 1, Kind::Bool);
    pub const NORMALIZED_COORDINATES: Field =
        Field::new("Normalized Coordinates", 0, 25, 1, Kind::Bool).default(1);
    pub const CLAMP_INTEGER_ARRAY_INDICES: Field =
        Field::new("Clamp integer array indices", 0, 26, 1, Kind::Bool).default(1);
    pub const MINIFY_NEAREST: Field = Field::new("Minify nearest", 0, 27, 1, Kind::Bool);
    pub const MAGNIFY_NEAREST: Field = Field::new("Magnify nearest", 0, 28, 1, Kind::Bool);
    pub const MAGNIFY_CUTOFF: Field = Field::new("Magnify cutoff", 0, 29, 1, Kind::Bool);
    pub const MIPMAP_MODE: Field = Field::new("Mipmap Mode", 0, 30, 2, Kind::Enum(MIPMAP_MODES));
    pub const MINIMUM_LOD: Field = Field::new("Minimum LOD", 1, 0, 13, Kind::Lod { signed: false });
    pub const COMPARE_FUNCTION: Field = Field::new("Compare Function", 1, 13, 3, Kind::Enum(FUNCS));
    pub const MAXIMUM_LOD: Field =
        Field::new("Maximum LOD", 1, 16, 13, Kind::Lod { signed: false });
    pub const LOD_BIAS: Field = Field::new("LOD bias", 2, 0, 16, Kind::Lod { signed: true });
    pub const MAXIMUM_ANISOTROPY: Field = Field::new("Maximum anisotropy", 2, 16, 5, Kind::Uint)
        .modifier(Modifier::Minus(1))
        .default(1);
    pub const LOD_ALGORITHM: Field =
        Field::new("LOD algorithm", 2, 24, 2, Kind::Enum(LOD_ALGORITHMS));
    pub const BORDER_COLOR_R: Field = Field::new("Border Color R", 4, 0, 32, Kind::UintFloat);
    pub const BORDER_COLOR_G: Field = Field::new("Border Color G", 5, 0, 32, Kind::UintFloat);
    pub const BORDER_COLOR_B: Field = Field::new("Border Color B", 6, 0, 32, Kind::UintFloat);
    pub const BORDER_COLOR_A: Field = Field::new("Border Color A", 7, 0, 32, Kind::UintFloat);
}

/// "Sampler": 32 bytes, 32-byte aligned.
pub static SAMPLER: Layout = Layout {
    name: "Sampler",
    words: 8,
    fields: &[
        sampler::TYPE,
        sampler::WRAP_MODE_R,
        sampler::WRAP_MODE_T,
        sampler::WRAP_MODE_S,
        sampler::ROUND_TO_NEAREST_EVEN,
        sampler::SRGB_OVERRIDE,
        sampler::SEAMLESS_CUBE_MAP,
        sampler::CLAMP_INTEGER_COORDINATES,
        sampler::NORMALIZED_COORDINATES,
        sampler::CLAMP_INTEGER_ARRAY_INDICES,
        sampler::MINIFY_NEAREST,
        sampler::MAGNIFY_NEAREST,
        sampler::MAGNIFY_CUTOFF,
        sampler::MIPMAP_MODE,
        sampler::MINIMUM_LOD,
        sampler::COMPARE_FUNCTION,
        sampler::MAXIMUM_LOD,
        sampler::LOD_BIAS,
        sampler::MAXIMUM_ANISOTROPY,
        sampler::LOD_ALGORITHM,
        sampler::BORDER_COLOR_R,
        sampler::BORDER_COLOR_G,
        sampler::BORDER_COLOR_B,
        sampler::BORDER_COLOR_A,
    ],
};

pub mod texture_desc {
    use super::*;
    pub const TYPE: Field = Field::new("Type", 0, 0, 4, Kind::Uint).default(2);
    pub const DIMENSION: Field = Field::new("Dimension", 0, 4, 2, Kind::Enum(TEXTURE_DIMENSIONS));
    pub const SAMPLE_CORNER_POSITION: Field =
        Field::new("Sample corner position", 0, 8, 1, Kind::Bool);
    pub const NORMALIZE_COORDINATES: Field =
        Field::new("Normalize coordinates", 0, 9, 1, Kind::Bool);
    pub const FORMAT: Field = Field::new(
        "Format",
        0,
        10,
        22,
        Kind::PixelFormat(&super::super::format::V7.table),
    );
    pub const WIDTH: Field = Field::new("Width", 1, 0, 16, Kind::Uint).modifier(Modifier::Minus(1));
    pub const HEIGHT: Field =
        Field::new("Height", 1, 16, 16, Kind::Uint).modifier(Modifier::Minus(1));
    pub const SWIZZLE: Field = Field::new("Swizzle", 2, 0, 12, Kind::ComponentSwizzle);
    pub const TEXEL_ORDERING: Field =
        Field::new("Texel ordering", 2, 12, 4, Kind::Enum(TEXTURE_LAYOUTS));
    pub const LEVELS: Field = Field::new("Levels", 2, 16, 5, Kind::Uint)
        .modifier(Modifier::Minus(1))
        .default(1);
    pub const MINIMUM_LEVEL: Field = Field::new("Minimum level", 2, 24, 5, Kind::Uint);
    pub const MINIMUM_LOD: Field = Field::new("Minimum LOD", 3, 0, 13, Kind::Lod { signed: false });
    pub const SAMPLE_COUNT: Field = Field::new("Sample count", 3, 13, 3, Kind::Uint)
        .modifier(Modifier::Log2)
        .default(1);
    pub const MAXIMUM_LOD: Field =
        Field::new("Maximum LOD", 3, 16, 13, Kind::Lod { signed: false });
    pub const SURFACES: Field = Field::new("Surfaces", 4, 0, 64, Kind::Address);
    pub const ARRAY_SIZE: Field = Field::new("Array size", 6, 0, 16, Kind::Uint)
        .modifier(Modifier::Minus(1))
        .default(1);
    pub const DEPTH: Field = Field::new("Depth", 7, 0, 16, Kind::Uint)
        .modifier(Modifier::Minus(1))
        .default(1);
    pub const FORMAT_V6: Field = Field::new(
        "Format",
        0,
        10,
        22,
        Kind::PixelFormat(&super::super::format::V6.table),
    );
}

/// "Texture" (v7 format word): 32 bytes, 32-byte aligned.
pub static TEXTURE_V7: Layout = Layout {
    name: "Texture",
    words: 8,
    fields: &[
        texture_desc::TYPE,
        texture_desc::DIMENSION,
        texture_desc::SAMPLE_CORNER_POSITION,
        texture_desc::NORMALIZE_COORDINATES,
        texture_desc::FORMAT,
        texture_desc::WIDTH,
        texture_desc::HEIGHT,
        texture_desc::SWIZZLE,
        texture_desc::TEXEL_ORDERING,
        texture_desc::LEVELS,
        texture_desc::MINIMUM_LEVEL,
        texture_desc::MINIMUM_LOD,
        texture_desc::SAMPLE_COUNT,
        texture_desc::MAXIMUM_LOD,
        texture_desc::SURFACES,
        texture_desc::ARRAY_SIZE,
        texture_desc::DEPTH,
    ],
};

/// "Texture" (v6 format word).
pub static TEXTURE_V6: Layout = Layout {
    name: "Texture",
    words: 8,
    fields: &[
        texture_desc::TYPE,
        texture_desc::DIMENSION,
        texture_desc::SAMPLE_CORNER_POSITION,
        texture_desc::NORMALIZE_COORDINATES,
        texture_desc::FORMAT_V6,
        texture_desc::WIDTH,
        texture_desc::HEIGHT,
        texture_desc::SWIZZLE,
        texture_desc::TEXEL_ORDERING,
        texture_desc::LEVELS,
        texture_desc::MINIMUM_LEVEL,
        texture_desc::MINIMUM_LOD,
        texture_desc::SAMPLE_COUNT,
        texture_desc::MAXIMUM_LOD,
        texture_desc::SURFACES,
        texture_desc::ARRAY_SIZE,
        texture_desc::DEPTH,
    ],
};

pub mod surface_with_stride {
    use super::*;
    pub const POINTER: Field = Field::new("Pointer", 0, 0, 64, Kind::Address);
    pub const ROW_STRIDE: Field = Field::new("Row stride", 2, 0, 32, Kind::Int);
    pub const SURFACE_STRIDE: Field = Field::new("Surface stride", 3, 0, 32, Kind::Int);
}

/// "Surface With Stride": one mip level / layer / sample of a texture.
pub static SURFACE_WITH_STRIDE: Layout = Layout {
    name: "Surface With Stride",
    words: 4,
    fields: &[
        surface_with_stride::POINTER,
        surface_with_stride::ROW_STRIDE,
        surface_with_stride::SURFACE_STRIDE,
    ],
};

pub mod multiplanar_surface {
    use super::*;
    pub const PLANE_0_POINTER: Field = Field::new("Plane 0 Pointer", 0, 0, 64, Kind::Address);
    pub const PLANE_0_ROW_STRIDE: Field = Field::new("Plane 0 Row Stride", 2, 0, 32, Kind::Int);
    pub const PLANE_1_2_ROW_STRIDE: Field = Field::new("Plane 1/2 Row Stride", 3, 0, 32, Kind::Int);
    pub const PLANE_1_POINTER: Field = Field::new("Plane 1 Pointer", 4, 0, 64, Kind::Address);
    pub const PLANE_2_POINTER: Field = Field::new("Plane 2 Pointer", 6, 0, 64, Kind::Address);
}

/// "Multiplanar Surface" (v7, YUV formats).
pub static MULTIPLANAR_SURFACE: Layout = Layout {
    name: "Multiplanar Surface",
    words: 8,
    fields: &[
        multiplanar_surface::PLANE_0_POINTER,
        multiplanar_surface::PLANE_0_ROW_STRIDE,
        multiplanar_surface::PLANE_1_2_ROW_STRIDE,
        multiplanar_surface::PLANE_1_POINTER,
        multiplanar_surface::PLANE_2_POINTER,
    ],
};

/// The Texture table of an architecture.
pub fn texture(arch: Arch) -> &'static Layout {
    match arch {
        Arch::V6 => &TEXTURE_V6,
        Arch::V7 => &TEXTURE_V7,
    }
}

/// v7 `Format` values of the YUV formats whose surfaces are multiplanar
/// (YUV8 = 32 ..= CUSTOM YUV 5 = 61).
pub const V7_YUV_FORMATS: std::ops::RangeInclusive<u64> = 32..=61;

/// `Texture Dimension` value of 3D textures.
pub const DIMENSION_3D: u64 = 3;
/// `Texture Dimension` value of cube maps.
pub const DIMENSION_CUBE: u64 = 0;
