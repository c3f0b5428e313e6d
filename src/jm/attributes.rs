//! Attribute and attribute-buffer tables for a draw's vertex input: one
//! buffer record (two for NPOT divisors) per vertex binding, one attribute
//! record per input the shader reads, written into the recorder's pool.
//!
//! Buffer records need 64-byte aligned pointers; Vulkan vertex buffers may
//! start anywhere, so each buffer's pointer is rounded down and the
//! difference goes into the `Offset` of every attribute that reads it (as
//! Mesa's panfrost does in `panfrost_emit_vertex_data`).
//!
//! This module encodes what it is given: which indexing each buffer uses
//! (and the `Instance Size` it implies) is the caller's decision.

use super::compute::AttributeTables;
use super::error::{JmError, JmResult};
use super::recorder::Recorder;
use super::vertex_input::{Indexing, buffer_slots, pack_attribute_buffer};
use crate::hw::Arch;
use crate::hw::attribute::attribute_desc as ad;
use crate::hw::format::VertexFormat;

/// One vertex buffer as the attribute unit reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttributeBuffer {
    /// GPU address of element 0 (any alignment).
    pub address: u64,
    /// Bytes readable from `address`.
    pub size: u64,
    pub stride: u32,
    pub indexing: Indexing,
}

/// One attribute record: which buffer, format and byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttributeRecord {
    pub buffer: usize,
    pub format: VertexFormat,
    pub offset: u32,
}

/// The tables of `buffers` and `records`: the last ones this recorder
/// wrote when they describe the same input (consecutive draws with the
/// same pipeline and vertex buffers), else new ones. Only for tables that
/// no GPU kernel patches (an indirect draw's are its own).
pub fn shared_attribute_tables(
    rec: &mut Recorder,
    buffers: &[AttributeBuffer],
    records: &[AttributeRecord],
) -> JmResult<AttributeTables> {
    if let Some((b, r, t)) = &rec.last_attributes
        && b.as_slice() == buffers
        && r.as_slice() == records
    {
        return Ok(*t);
    }
    let tables = write_attribute_tables(rec, buffers, records)?;
    rec.last_attributes = Some((buffers.to_vec(), records.to_vec(), tables));
    Ok(tables)
}

/// Writes the tables; `records[i]` is attribute index `i`.
pub fn write_attribute_tables(
    rec: &mut Recorder,
    buffers: &[AttributeBuffer],
    records: &[AttributeRecord],
) -> JmResult<AttributeTables> {
    let arch = rec.arch;
    write_attribute_tables_in(
        &mut |size, align| rec.alloc(size, align),
        arch,
        buffers,
        records,
    )
}

/// [`write_attribute_tables`] into any pool (a chain built without a
/// [`Recorder`], e.g. `jm::graphics` under a test harness).
pub fn write_attribute_tables_to_pool(
    pool: &mut super::pool::GpuPool,
    arch: Arch,
    buffers: &[AttributeBuffer],
    records: &[AttributeRecord],
) -> JmResult<AttributeTables> {
    write_attribute_tables_in(
        &mut |size, align| Ok(pool.alloc(size.max(1), align)?),
        arch,
        buffers,
        records,
    )
}

fn write_attribute_tables_in(
    alloc: &mut dyn FnMut(u64, u64) -> JmResult<super::pool::GpuAlloc>,
    arch: Arch,
    buffers: &[AttributeBuffer],
    records: &[AttributeRecord],
) -> JmResult<AttributeTables> {
    // Buffer table: slot of each buffer, then the packed records.
    let mut slots = Vec::with_capacity(buffers.len());
    let mut used = 0usize;
    for b in buffers {
        slots.push(used);
        used += buffer_slots(b.indexing);
    }
    let mut bwords = vec![0u32; 4 * used.max(1)];
    for (b, &slot) in buffers.iter().zip(&slots) {
        let pointer = b.address & !63;
        let delta = b.address - pointer;
        let size = u32::try_from(b.size + delta).unwrap_or(u32::MAX);
        pack_attribute_buffer(&mut bwords[4 * slot..], pointer, b.stride, size, b.indexing)?;
    }
    let table = alloc(4 * bwords.len() as u64, 64)?;
    table.write_words(0, &bwords);

    let templates = super::templates::templates(arch);
    let format_field = match arch {
        Arch::V6 => ad::FORMAT_V6,
        Arch::V7 => ad::FORMAT,
    };
    let mut awords = vec![0u32; 2 * records.len().max(1)];
    for (i, r) in records.iter().enumerate() {
        let b = buffers.get(r.buffer).ok_or(JmError::Encoding(
            "attribute names a buffer that does not exist",
        ))?;
        let format = templates
            .attribute_format(arch, r.format)
            .ok_or(JmError::Encoding("vertex format has no attribute encoding"))?;
        let w = &mut awords[2 * i..2 * i + 2];
        w.copy_from_slice(templates.attribute.as_slice());
        let err = |_| JmError::Encoding("attribute field overflow");
        ad::BUFFER_INDEX
            .set(w, slots[r.buffer] as u64)
            .map_err(err)?;
        format_field.set(w, format).map_err(err)?;
        let offset = u64::from(r.offset) + (b.address & 63);
        ad::OFFSET.set(w, offset).map_err(err)?;
    }
    let attrs = alloc(4 * awords.len() as u64, 64)?;
    attrs.write_words(0, &awords);
    Ok(AttributeTables {
        attributes: attrs.gpu_va,
        buffers: table.gpu_va,
        count: records.len() as u32,
    })
}
