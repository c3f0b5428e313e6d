//! The varying tables of a non-IDVS VERTEX job: where the outputs a vertex
//! shader stores ([`ShaderBinary::varyings`]) land in GPU memory, as the
//! DCD's `Varyings` (attribute records) and `Varying buffers` (attribute
//! buffer records), packed with the `hw` tables.
//!
//! The layout is ours (the tiler and fragment descriptors built later must
//! read the same):
//! - **buffers**, in this order, only those some output needs:
//!   [`VaryingBufferKind::Position`] (`gl_Position`, 16 bytes per vertex,
//!   what a tiler job's `DRAW.Position` will point at),
//!   [`VaryingBufferKind::PointSize`] (4 bytes, F32), then
//!   [`VaryingBufferKind::General`]: every generic slot of
//!   [`IoLayout::varyings`] interleaved, 16 bytes per slot (slot `g` at byte
//!   `16 g`, component `c` at `+4 c`); then an all-zero record (the
//!   attribute-buffer array ends with one, as PanVk's
//!   `jm/panvk_vX_cmd_draw.c` writes it; genxml `v7.xml`);
//! - **records**: record `i` is output `i` (the backend's convention),
//!   buffer and byte offset from its slot and component, format of the
//!   words the shader stores: F32 for position and point size (what the
//!   tiler reads), U32 for generic slots. The IR has no float/integer
//!   distinction, and the shader stores with register format `auto`, so a
//!   32-bit format is a bit-exact copy whatever the output's type;
//! - **elements**: vertex `v` of instance `i` is element
//!   `v + i × Instance Size` of every buffer, `Instance Size` being the
//!   padded vertex count of an instanced draw ([`vertex_instance_size`]:
//!   the count the hardware itself pads to, which is where the hardware
//!   puts instance `i`, whatever the DCD says; Mesa
//!   `docs/drivers/panfrost/instancing.rst`); buffers hold
//!   `Instance Size × instances` elements. `Offset start` is
//!   not added for varyings (our reading of Mesa, which sizes varying
//!   buffers by the vertex range alone; see `kmod/sim/shader/message.rs`).
//!
//! The position buffer holds `gl_Position` as the shader computed it:
//! clip space for the plain rasterization variant (what these tables'
//! tests compare), framebuffer coordinates and 1/w when the shader was
//! lowered with `compiler::pipeline::lower_for_tiler`, which is what the
//! tiler reads (Mesa applies the viewport transform in the vertex shader
//! too, `src/panfrost/compiler/bifrost_compile.c`). `super::graphics`
//! builds on these tables for draws that rasterize and gives the position
//! record the "Snap 4" format.
//!
//! This module never allocates the buffers themselves (the caller owns
//! them: scratch memory of the batch, or a test's buffers); it only writes
//! the descriptors that point at them.

use super::compute::{AttributeTables, vertex_instance_size};
use super::error::{JmError, JmResult};
use super::pool::GpuPool;
use crate::compiler::bifrost::binary::ShaderBinary;
use crate::compiler::passes::IoLayout;
use crate::compiler::passes::lower_io::VaryingSlot;
use crate::hw::attribute::{attribute_buffer as ab, attribute_desc as ad, attribute_type};
use crate::hw::format::{ComponentType, FormatArch, VertexFormat};
use crate::hw::layout::Field;
use crate::hw::{Arch, layouts};

/// What a varying buffer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VaryingBufferKind {
    Position,
    PointSize,
    General,
}

/// One varying buffer: its kind and bytes per element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VaryingBuffer {
    pub kind: VaryingBufferKind,
    pub stride: u32,
}

/// Where one output's record points: buffer (index into
/// [`VaryingLayout::buffers`]), byte offset in the element, format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VaryingRecord {
    pub buffer: u32,
    pub offset: u32,
    pub format: VertexFormat,
}

/// The varying buffers and records of one compiled vertex shader.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VaryingLayout {
    pub buffers: Vec<VaryingBuffer>,
    /// Record `i` (= output `i`); `None` for outputs the shader never stores
    /// (their record is left zero).
    pub records: Vec<Option<VaryingRecord>>,
}

impl VaryingLayout {
    /// The layout for `binary`'s varying stores, with slots from `io` (the
    /// lowered shader's `IoLayout`).
    pub fn new(binary: &ShaderBinary, io: &IoLayout) -> JmResult<VaryingLayout> {
        let generic_slots = io
            .varyings
            .iter()
            .filter_map(|(s, _)| match s {
                VaryingSlot::Generic(g) => Some(g + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let mut layout = VaryingLayout {
            buffers: Vec::new(),
            records: vec![None; binary.varying_count() as usize],
        };
        for kind in [
            VaryingBufferKind::Position,
            VaryingBufferKind::PointSize,
            VaryingBufferKind::General,
        ] {
            let used = binary
                .varyings
                .iter()
                .filter_map(|v| io.varyings.get(v.index as usize))
                .any(|(s, _)| kind_of(*s) == kind);
            if used {
                let stride = match kind {
                    VaryingBufferKind::Position => 16,
                    VaryingBufferKind::PointSize => 4,
                    VaryingBufferKind::General => 16 * generic_slots,
                };
                layout.buffers.push(VaryingBuffer { kind, stride });
            }
        }
        for v in &binary.varyings {
            let &(slot, component) = io
                .varyings
                .get(v.index as usize)
                .ok_or(JmError::Encoding("varying record without an output slot"))?;
            let kind = kind_of(slot);
            let buffer = layout
                .buffers
                .iter()
                .position(|b| b.kind == kind)
                .ok_or(JmError::Encoding("varying buffer missing"))?;
            if u32::from(component) + u32::from(v.words) > 4 {
                return Err(JmError::Encoding("varying beyond its slot's 4 words"));
            }
            let (offset, ty) = match slot {
                VaryingSlot::Position | VaryingSlot::PointSize => (0, ComponentType::F32),
                VaryingSlot::Generic(g) => (16 * g, ComponentType::U32),
            };
            layout.records[v.index as usize] = Some(VaryingRecord {
                buffer: buffer as u32,
                offset: offset + 4 * u32::from(component),
                format: VertexFormat::new(ty, v.words),
            });
        }
        Ok(layout)
    }

    /// The buffer of `kind`, if the shader writes one: (index, buffer).
    pub fn buffer(&self, kind: VaryingBufferKind) -> Option<(usize, VaryingBuffer)> {
        self.buffers
            .iter()
            .position(|b| b.kind == kind)
            .map(|i| (i, self.buffers[i]))
    }
}

fn kind_of(slot: VaryingSlot) -> VaryingBufferKind {
    match slot {
        VaryingSlot::Position => VaryingBufferKind::Position,
        VaryingSlot::PointSize => VaryingBufferKind::PointSize,
        VaryingSlot::Generic(_) => VaryingBufferKind::General,
    }
}

/// Elements every varying buffer of a `vertices` × `instances` VERTEX job
/// needs (see the module doc).
pub fn varying_elements(vertices: u32, instances: u32) -> JmResult<u64> {
    if instances > 1 {
        Ok(vertex_instance_size(vertices, instances)? * u64::from(instances))
    } else {
        Ok(u64::from(vertices))
    }
}

fn pack(words: &mut [u32], f: Field, v: u64) -> JmResult<()> {
    f.set(words, v)
        .map_err(|_| JmError::Encoding("varying descriptor field overflow"))
}

/// Writes the varying records and buffer records of `layout` into `pool`,
/// buffer `i` at GPU VA `buffer_vas[i]` holding `elements` elements (at
/// least [`varying_elements`]); returns the tables for
/// [`super::VertexJob::varyings`].
pub fn write_varying_tables(
    pool: &mut GpuPool,
    arch: Arch,
    layout: &VaryingLayout,
    buffer_vas: &[u64],
    elements: u64,
) -> JmResult<AttributeTables> {
    let (records, buffers) = varying_table_words(arch, layout, buffer_vas, elements)?;
    let rec = pool.alloc(4 * records.len() as u64, 64)?;
    rec.write_words(0, &records);
    let buf = pool.alloc(4 * buffers.len() as u64, 64)?;
    buf.write_words(0, &buffers);
    Ok(AttributeTables {
        attributes: rec.gpu_va,
        buffers: buf.gpu_va,
        count: layout.records.len() as u32,
    })
}

/// The words of [`write_varying_tables`]: (varying records, buffer records
/// with their zero terminator).
pub fn varying_table_words(
    arch: Arch,
    layout: &VaryingLayout,
    buffer_vas: &[u64],
    elements: u64,
) -> JmResult<(Vec<u32>, Vec<u32>)> {
    if buffer_vas.len() != layout.buffers.len() {
        return Err(JmError::Encoding("one address per varying buffer"));
    }
    let l = layouts(arch);
    let formats = FormatArch::for_arch(arch);
    let format_field = match arch {
        Arch::V6 => ad::FORMAT_V6,
        Arch::V7 => ad::FORMAT,
    };
    let n = layout.records.len().max(1);
    let mut records = vec![0u32; 2 * n];
    for (i, r) in layout.records.iter().enumerate() {
        let Some(r) = r else { continue };
        let w = &mut records[2 * i..2 * i + 2];
        w.copy_from_slice(&l.attribute.defaults());
        pack(w, ad::BUFFER_INDEX, u64::from(r.buffer))?;
        let word = formats
            .attribute_format(r.format)
            .ok_or(JmError::Encoding("varying format has no hardware format"))?;
        pack(w, format_field, word)?;
        pack(w, ad::OFFSET, u64::from(r.offset))?;
    }
    // Buffer records, then the all-zero terminator.
    let mut buffers = vec![0u32; 4 * (layout.buffers.len() + 1)];
    for (i, (b, &va)) in layout.buffers.iter().zip(buffer_vas).enumerate() {
        if va & 63 != 0 {
            return Err(JmError::Encoding("varying buffer not 64-byte aligned"));
        }
        let size = u64::from(b.stride)
            .checked_mul(elements)
            .filter(|&s| s <= u64::from(u32::MAX))
            .ok_or(JmError::Encoding("varying buffer larger than 4 GiB"))?;
        let w = &mut buffers[4 * i..4 * i + 4];
        w.copy_from_slice(&l.attribute_buffer.defaults());
        pack(w, ab::TYPE, attribute_type::LINEAR_1D)?;
        pack(w, ab::POINTER, va)?;
        pack(w, ab::STRIDE, u64::from(b.stride))?;
        pack(w, ab::SIZE, size)?;
    }
    Ok((records, buffers))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::compiler::bifrost::binary::VaryingStore;
    use crate::kmod::Device;
    use crate::kmod::sim::{SimDevice, SimModel};

    fn binary(stores: &[(u32, u8)]) -> ShaderBinary {
        ShaderBinary {
            varyings: stores
                .iter()
                .map(|&(index, words)| VaryingStore { index, words })
                .collect(),
            ..ShaderBinary::default()
        }
    }

    fn io(slots: &[(VaryingSlot, u8)]) -> IoLayout {
        IoLayout {
            attributes: vec![],
            varyings: slots.to_vec(),
        }
    }

    #[test]
    fn outputs_land_in_their_slots() {
        use VaryingSlot::*;
        // Output 4 exists (generic slot 2) but is never stored: no record,
        // yet its slot still takes room in the general buffer.
        let b = binary(&[(0, 4), (1, 2), (2, 1), (3, 3)]);
        let io = io(&[
            (Position, 0),
            (Generic(1), 2),
            (PointSize, 0),
            (Generic(0), 1),
            (Generic(2), 0),
        ]);
        let l = VaryingLayout::new(&b, &io).unwrap();
        let kinds: Vec<_> = l.buffers.iter().map(|b| (b.kind, b.stride)).collect();
        assert_eq!(
            kinds,
            vec![
                (VaryingBufferKind::Position, 16),
                (VaryingBufferKind::PointSize, 4),
                (VaryingBufferKind::General, 48),
            ]
        );
        let rec = |buffer, offset, ty, n| {
            Some(VaryingRecord {
                buffer,
                offset,
                format: VertexFormat::new(ty, n),
            })
        };
        use ComponentType::{F32, U32};
        assert_eq!(
            l.records,
            vec![
                rec(0, 0, F32, 4),
                rec(2, 16 + 8, U32, 2),
                rec(1, 0, F32, 1),
                rec(2, 4, U32, 3),
            ]
        );
        // No position written: no position buffer.
        let l = VaryingLayout::new(&binary(&[(1, 1)]), &io).unwrap();
        assert_eq!(l.buffers.len(), 1);
        assert_eq!(l.records, vec![None, rec(0, 16 + 8, U32, 1)]);
    }

    #[test]
    fn bad_layouts_are_errors() {
        use VaryingSlot::*;
        // Three words from component 2 overflow the slot.
        assert!(VaryingLayout::new(&binary(&[(0, 3)]), &io(&[(Generic(0), 2)])).is_err());
        // A record with no output.
        assert!(VaryingLayout::new(&binary(&[(1, 1)]), &io(&[(Generic(0), 0)])).is_err());
    }

    #[test]
    fn tables_are_packed_with_the_hw_layouts() {
        use VaryingSlot::*;
        let b = binary(&[(0, 4), (2, 2)]);
        let l = VaryingLayout::new(&b, &io(&[(Position, 0), (Generic(0), 0), (Generic(1), 1)]))
            .unwrap();
        // 17 pads to 18 = 9 << 1 (the padded encoding has 3-bit odd parts).
        assert_eq!(varying_elements(17, 3).unwrap(), 54);
        assert_eq!(varying_elements(9, 3).unwrap(), 27);
        assert_eq!(varying_elements(9, 1).unwrap(), 9);
        let (recs, bufs) = varying_table_words(Arch::V7, &l, &[0x10000, 0x20000], 30).unwrap();
        assert_eq!(recs.len(), 6);
        assert_eq!(ad::BUFFER_INDEX.get(&recs[4..6]), 1);
        assert_eq!(ad::OFFSET.get(&recs[4..6]), 16 + 4);
        let f = FormatArch::for_arch(Arch::V7);
        let word = ad::FORMAT.get(&recs[4..6]);
        assert_eq!(
            f.decode_attribute_format(word).map(|x| x.0),
            Some(VertexFormat::new(ComponentType::U32, 2))
        );
        assert_eq!(&recs[2..4], &[0, 0], "output 1 is never stored");
        assert_eq!(bufs.len(), 12);
        assert_eq!(ab::TYPE.get(&bufs[4..8]), attribute_type::LINEAR_1D);
        assert_eq!(ab::POINTER.get(&bufs[4..8]), 0x20000);
        assert_eq!(ab::STRIDE.get(&bufs[4..8]), 32);
        assert_eq!(ab::SIZE.get(&bufs[4..8]), 32 * 30);
        assert_eq!(&bufs[8..12], &[0; 4], "zero terminator");
        // Misaligned buffers, a wrong buffer count and oversized buffers
        // are refused; the pool writer gives the same words a home.
        assert!(varying_table_words(Arch::V7, &l, &[0x10000, 0x20010], 30).is_err());
        assert!(varying_table_words(Arch::V7, &l, &[0x10000], 30).is_err());
        assert!(varying_table_words(Arch::V7, &l, &[0x10000, 0x20000], 1 << 28).is_err());
        let mut pool = GpuPool::new(Arc::new(Device::with_dump_dir(
            Box::new(SimDevice::new(SimModel::G52)),
            None,
        )));
        let t = write_varying_tables(&mut pool, Arch::V7, &l, &[0x10000, 0x20000], 30).unwrap();
        assert_eq!(t.count, 3);
        assert_ne!(t.attributes, 0);
    }
}
