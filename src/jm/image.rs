//! Storage-image descriptors for our own dispatches: the Attribute and
//! Attribute Buffer tables through which Bifrost shaders address images
//! (`LEA_ATTR_TEX`, `LD_ATTR_TEX`), packed with the `hw` tables (v6, v7).
//!
//! Each image is, as Mesa writes it (`panfrost_emit_image_attribs` in
//! `src/gallium/drivers/panfrost/pan_cmdstream.c`; PanVk's image views
//! and its descriptor-copy job do the same): an Attribute (its buffer
//! index, the memory format, no offset, `Offset enable` off) and two
//! Attribute Buffer slots — a "3D Linear" or "3D Interleaved" record
//! (pointer, `Stride` = the texel size, `Size` = the bytes from the
//! pointer to the end of the memory) and its "Attribute Buffer
//! Continuation 3D" (S, T, R dimensions; `Row Stride` between rows, or
//! between rows of 16×16 tiles for Interleaved; `Slice Stride` between
//! layers). The buffer table ends with an all-zero record (Mesa: "to stop
//! prefetching on Bifrost").
//!
//! **Convention** (the compiler's, `compiler::bifrost::isel::image`):
//! attribute n is binding n of descriptor set 0, its records in buffer
//! slots 2n and 2n + 1. Unused entries are zero (a record the attribute
//! unit refuses if a shader uses it). This module never chooses texels;
//! it places what it is given.

use super::compute::AttributeTables;
use super::error::{JmError, JmResult};
use super::pool::GpuPool;
use super::texture::TexelLayout;
use crate::hw::attribute::{
    attribute_buffer as ab, attribute_desc as ad, attribute_type, continuation_3d,
};
use crate::hw::format::{ComponentType, FormatArch, VertexFormat};
use crate::hw::layout::Field;
use crate::hw::{Arch, layouts};

/// The storage-image formats this module writes (`VkFormat`s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// `VK_FORMAT_R8G8B8A8_UNORM`: genxml "RGBA8 UNORM".
    Rgba8Unorm,
    /// `VK_FORMAT_R8G8B8A8_UINT`: "RGBA8UI".
    Rgba8Uint,
    /// `VK_FORMAT_R32G32B32A32_SFLOAT`: "RGBA32F".
    Rgba32Sfloat,
    /// `VK_FORMAT_R32_UINT`: "R32UI", the missing components read as
    /// (0, 0, 1) (Vulkan's "Conversion to RGBA").
    R32Uint,
    /// `VK_FORMAT_R32_SINT`: "R32I".
    R32Sint,
}

impl ImageFormat {
    /// The attribute-unit format of the texels.
    fn vertex_format(self) -> VertexFormat {
        let (ty, components) = match self {
            ImageFormat::Rgba8Unorm => (ComponentType::Unorm8, 4),
            ImageFormat::Rgba8Uint => (ComponentType::U8, 4),
            ImageFormat::Rgba32Sfloat => (ComponentType::F32, 4),
            ImageFormat::R32Uint => (ComponentType::U32, 1),
            ImageFormat::R32Sint => (ComponentType::I32, 1),
        };
        VertexFormat { ty, components }
    }

    /// Bytes per texel.
    pub fn bytes(self) -> u32 {
        self.vertex_format().bytes()
    }
}

/// One 2D image (or 2D array) as a shader stores into and loads from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDesc {
    /// GPU VA of texel (0, 0) of layer 0; 64-byte aligned (the record's
    /// pointer is stored shifted right by 6).
    pub address: u64,
    /// Bytes from `address` to the end of the image's memory.
    pub size: u64,
    pub width: u32,
    pub height: u32,
    pub layers: u32,
    /// Bytes between rows (Linear) or rows of 16×16 tiles (Tiled).
    pub row_stride: u32,
    /// Bytes between layers (0 for one layer).
    pub layer_stride: u32,
    pub layout: TexelLayout,
    pub format: ImageFormat,
}

fn pack(words: &mut [u32], f: Field, v: u64) -> JmResult<()> {
    f.set(words, v)
        .map_err(|_| JmError::Encoding("image descriptor field overflow"))
}

/// Writes the tables: `images[n]` is binding n (set 0).
pub fn write_image_tables(
    pool: &mut GpuPool,
    arch: Arch,
    images: &[Option<ImageDesc>],
) -> JmResult<AttributeTables> {
    let l = layouts(arch);
    if images.is_empty() {
        return Ok(AttributeTables::default());
    }
    if images.len() > 255 {
        return Err(JmError::Encoding("more than 255 images"));
    }
    let n = images.len() as u64;
    let attributes = pool.alloc(8 * n, 64)?;
    attributes.zero(0, 8 * n);
    // Two slots per image and the terminating zero record.
    let buffers = pool.alloc(16 * (2 * n + 1), 64)?;
    buffers.zero(0, 16 * (2 * n + 1));
    let fa = FormatArch::for_arch(arch);
    for (i, img) in images.iter().enumerate() {
        let Some(img) = img else { continue };
        if img.address % 64 != 0 {
            return Err(JmError::Encoding("image address not 64-byte aligned"));
        }
        if !(1..=65536).contains(&img.width)
            || !(1..=65536).contains(&img.height)
            || !(1..=65536).contains(&img.layers)
            || (img.layers > 1 && img.layer_stride == 0)
        {
            return Err(JmError::Encoding(
                "image size or layers outside 1..=65536, or a zero layer stride",
            ));
        }
        let format = fa
            .attribute_format(img.format.vertex_format())
            .ok_or(JmError::Encoding("image format not on this architecture"))?;
        let slot = 2 * i as u64;
        let mut a = l.attribute.defaults();
        pack(&mut a, ad::BUFFER_INDEX, slot)?;
        pack(&mut a, ad::OFFSET_ENABLE, 0)?;
        pack(&mut a, ad::FORMAT, format)?;
        pack(&mut a, ad::OFFSET, 0)?;
        attributes.write_words(8 * i as u64, &a);
        let mut b = l.attribute_buffer.defaults();
        let ty = match img.layout {
            TexelLayout::Linear => attribute_type::LINEAR_3D,
            TexelLayout::Tiled => attribute_type::INTERLEAVED_3D,
        };
        pack(&mut b, ab::TYPE, ty)?;
        pack(&mut b, ab::POINTER, img.address)?;
        pack(&mut b, ab::STRIDE, u64::from(img.format.bytes()))?;
        pack(&mut b, ab::SIZE, img.size.min(u64::from(u32::MAX)))?;
        buffers.write_words(16 * slot, &b);
        let mut c = l.attribute_buffer_continuation_3d.defaults();
        pack(&mut c, continuation_3d::S_DIMENSION, u64::from(img.width))?;
        pack(&mut c, continuation_3d::T_DIMENSION, u64::from(img.height))?;
        pack(&mut c, continuation_3d::R_DIMENSION, u64::from(img.layers))?;
        pack(
            &mut c,
            continuation_3d::ROW_STRIDE,
            u64::from(img.row_stride),
        )?;
        pack(
            &mut c,
            continuation_3d::SLICE_STRIDE,
            u64::from(img.layer_stride),
        )?;
        buffers.write_words(16 * (slot + 1), &c);
    }
    Ok(AttributeTables {
        attributes: attributes.gpu_va,
        buffers: buffers.gpu_va,
        count: images.len() as u32,
    })
}
