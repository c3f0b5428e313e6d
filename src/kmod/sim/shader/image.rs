//! Image accesses of the simulated shader core: `LEA_ATTR_TEX` (the address
//! and conversion word of one texel of an image, for a following `ST_CVT`)
//! and `LD_ATTR_TEX` (a texel loaded and converted to the register
//! format), both through the attribute unit's tables, and `DTSEL_IMM`, the
//! FMA-side descriptor-table select paired with them.
//!
//! An image is an Attribute (buffer index, memory format, offset) whose
//! Attribute Buffer has type "3D Linear" or "3D Interleaved" and is
//! followed by its "Attribute Buffer Continuation 3D" record (genxml
//! `v6.xml`/`v7.xml`; Mesa's `panfrost_emit_image_attribs` in
//! `src/gallium/drivers/panfrost/pan_cmdstream.c` and PanVk's image views
//! write them): `Stride` is the texel size, `Row Stride` the bytes between
//! rows (Linear) or between rows of 16×16 tiles (Interleaved: the
//! u-interleaved order of Mesa's `src/panfrost/lib/pan_tiling.c`),
//! `Slice Stride` the bytes between layers, `S/T/R dimension` the size.
//!
//! The coordinates are Mesa's (`bi_emit_image_coord` in
//! `src/panfrost/compiler/bifrost_compile.c`): the first source holds x
//! and y as two 16-bit halves, the second the layer (or z) as one word.
//!
//! What the hardware does with a texel outside the image is not
//! documented (Mesa's drivers bound-check in the shader where the API asks
//! for robustness): the simulator faults (DATA_INVALID_FAULT), as it does
//! for a record of another type, a missing continuation record, or a texel
//! past the buffer's `Size`. It must never touch memory except through the
//! MMU, and never panic on what it reads.

use super::exec::{Op, Prepared};
use super::message::{Value, components, read_format, staging_write};
use super::warp::Lane;
use super::{CachedClause, Core, fault, status};
use crate::hw::attribute::{
    attribute_buffer as ab, attribute_desc as ad, attribute_type, continuation_3d,
};
use crate::kmod::sim::framebuffer::u_interleaved_offset;
use crate::kmod::sim::jobs::JobFault;

/// `DTSEL_IMM`'s table of an FMA partner, if the ADD instruction has one.
///
/// Mesa (`bi_lower_dtsel` in `src/panfrost/compiler/bi_schedule.c`) puts
/// the `DTSEL_IMM` in the FMA slot of the message's own tuple, its source
/// the message's first source, and the message reads its result through
/// the `t` passthrough: the value passes unchanged (the coordinates must
/// reach the message) and the table is a property of the pair. Which
/// tables the names mean is our reading of Mesa: "LEA_ATTR_TEX defaults to
/// the secondary attribute table, but our ABI has all images in the
/// primary attribute table", so `attribute_1` is the primary one, the
/// DCD's Attributes / Attribute Buffers.
pub(super) fn table_of(fma_partner: Option<&Prepared>) -> Option<&'static str> {
    fma_partner
        .filter(|f| f.op == Op::Dtsel)
        .map(|f| f.fields.modifier("table").unwrap_or("attribute_1"))
}

/// Whether the access may use the primary attribute table: `LD_ATTR_TEX`
/// reads it by default (Mesa emits it without a `DTSEL_IMM`), with
/// `DTSEL_IMM.attribute_1` too; `LEA_ATTR_TEX` only with that select.
/// Every other table (the secondary table's meaning in a compute job,
/// `attribute_2`, `flat`) is undocumented and faults.
fn primary_table(
    p: &Prepared,
    fma_partner: Option<&Prepared>,
    cc: &CachedClause,
) -> Result<(), JobFault> {
    match (p.name, table_of(fma_partner)) {
        (_, Some("attribute_1")) | ("LD_ATTR_TEX", None) => Ok(()),
        (name, table) => {
            log::error!(
                "sim shader: {name} with descriptor table {table:?} is not simulated (clause {:#x})",
                cc.va
            );
            Err(fault(status::INSTR_INVALID_ENC, cc.va))
        }
    }
}

/// The address of texel (x, y, layer) of image `index` in the job's
/// attribute tables, and its memory format word.
pub(super) fn texel_address(
    core: &Core<'_>,
    xy: u32,
    layer: u32,
    index: u32,
    cc: &CachedClause,
) -> Result<(u64, u32), JobFault> {
    let res = &core.program.res;
    let bad = |what: &str| {
        log::error!("sim shader: image {index}: {what} (clause {:#x})", cc.va);
        fault(status::DATA_INVALID_FAULT, cc.va)
    };
    if res.attributes == 0 || res.attribute_buffers == 0 || index >= res.attribute_count {
        return Err(bad("no such attribute"));
    }
    let attr = core
        .mmu
        .read_words(res.attributes + 8 * u64::from(index), 2)?;
    if ad::OFFSET_ENABLE.get(&attr) != 0 {
        // Bifrost drivers leave it off for images (Mesa: `offset_enable =
        // PAN_ARCH <= 5`); what it would change is undocumented.
        return Err(bad("Offset enable set on an image"));
    }
    let buf_index = ad::BUFFER_INDEX.get(&attr);
    let format = ad::FORMAT.get(&attr) as u32;
    let offset = ad::OFFSET.get(&attr) as u32 as i32 as i64;
    let buf = core
        .mmu
        .read_words(res.attribute_buffers + 16 * buf_index, 4)?;
    let ty = ab::TYPE.get(&buf);
    if ty != attribute_type::LINEAR_3D && ty != attribute_type::INTERLEAVED_3D {
        return Err(bad("not a 3D attribute buffer"));
    }
    let cont = core
        .mmu
        .read_words(res.attribute_buffers + 16 * (buf_index + 1), 4)?;
    if continuation_3d::TYPE.get(&cont) != attribute_type::CONTINUATION {
        return Err(bad("3D buffer without its continuation record"));
    }
    // The sizes (stored minus one; `get` adds it back).
    let dims = [
        continuation_3d::S_DIMENSION.get(&cont),
        continuation_3d::T_DIMENSION.get(&cont),
        continuation_3d::R_DIMENSION.get(&cont),
    ];
    let (x, y) = (xy & 0xffff, xy >> 16);
    if u64::from(x) >= dims[0] || u64::from(y) >= dims[1] || u64::from(layer) >= dims[2] {
        return Err(bad("texel outside the image"));
    }
    let stride = ab::STRIDE.get(&buf);
    let row_stride = continuation_3d::ROW_STRIDE.get(&cont);
    let slice_stride = continuation_3d::SLICE_STRIDE.get(&cont);
    let within = if ty == attribute_type::LINEAR_3D {
        u64::from(x) * stride + u64::from(y) * row_stride
    } else {
        u_interleaved_offset(x, y, row_stride, stride)
    } + u64::from(layer) * slice_stride;
    let end = within as i64 + offset + stride.max(1) as i64;
    if within as i64 + offset < 0 || end as u64 > ab::SIZE.get(&buf) {
        return Err(bad("texel outside the buffer"));
    }
    let ptr = ab::POINTER.get(&buf);
    Ok(((ptr as i64 + within as i64 + offset) as u64, format))
}

/// The register format code of an instruction's `register_format`
/// modifier (genxml "Register File Format": F16 0, F32 1, I32 2, U32 3,
/// I16 4, U16 5); `auto` is written as 0, what `LEA_ATTR` returns too.
fn register_format_code(p: &Prepared) -> u32 {
    match p.fields.modifier("register_format").unwrap_or("auto") {
        "f16" => 0,
        "f32" => 1,
        "s32" => 2,
        "u32" => 3,
        "s16" => 4,
        "u16" => 5,
        _ => 0,
    }
}

/// `LEA_ATTR_TEX`: the texel's address (two words) and the conversion word
/// (genxml "Internal Conversion": the memory format, the instruction's
/// register format in bits 24..26) in three staging registers.
pub(super) fn lea_attr_tex(
    core: &Core<'_>,
    p: &Prepared,
    fma_partner: Option<&Prepared>,
    lane: &mut Lane,
    s: &[u32; 4],
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    primary_table(p, fma_partner, cc)?;
    let (addr, format) = texel_address(core, s[0], s[1], s[2], cc)?;
    staging_write(lane, cc, 0, addr as u32);
    staging_write(lane, cc, 1, (addr >> 32) as u32);
    staging_write(lane, cc, 2, format | register_format_code(p) << 24);
    Ok(0)
}

/// `LD_ATTR_TEX`: the texel converted from its memory format (as
/// `LD_ATTR` converts vertex formats) to the register format.
pub(super) fn ld_attr_tex(
    core: &Core<'_>,
    p: &Prepared,
    fma_partner: Option<&Prepared>,
    lane: &mut Lane,
    s: &[u32; 4],
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    primary_table(p, fma_partner, cc)?;
    let (addr, format) = texel_address(core, s[0], s[1], s[2], cc)?;
    let values = read_format(core, addr, format, cc)?;
    let reg_format = p.fields.modifier("register_format").unwrap_or("auto");
    for (i, v) in values.iter().take(components(p)).enumerate() {
        let w = match (reg_format, v) {
            ("f32" | "auto", Value::F(f)) => f.to_bits(),
            ("s32" | "auto", Value::I(i)) => *i as u32,
            ("u32" | "auto", Value::U(u)) => *u,
            _ => {
                // Loading a float format as integers (or the reverse) is a
                // format mismatch in Vulkan; the hardware's answer is
                // undocumented.
                log::error!(
                    "sim shader: LD_ATTR_TEX.{reg_format} of format {format:#x} is not simulated (clause {:#x})",
                    cc.va
                );
                return Err(fault(status::DATA_INVALID_FAULT, cc.va));
            }
        };
        staging_write(lane, cc, i, w);
    }
    Ok(0)
}
