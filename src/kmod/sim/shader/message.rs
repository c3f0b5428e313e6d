//! Message instructions of the simulated shader core: memory loads and
//! stores (global, workgroup-local, thread-local, UBO), atomics, workgroup
//! barriers, the attribute unit (LD_ATTR / LEA_ATTR, ST_CVT) vertex
//! jobs use; the fragment messages (ATEST, BLEND, LD_VAR) are dispatched
//! from here to `super::fragment_message`.
//!
//! A message executes when it is issued: loads write their staging
//! registers at once, stores read them at once (the scoreboard bookkeeping
//! is in `warp`). Every memory access goes through the MMU and is checked:
//! outside mapped memory is a read/write fault, a misaligned address an
//! INSTR_ALIGN_FAULT, a workgroup/thread-local offset past its window an
//! ADDR_RANGE_FAULT. This module must never write outside the staging
//! registers and the addressed memory.
//!
//! Atomics (`ATOM_CX` with its `ATOM_C*` partner, `AXCHG`, `ACMPXCHG`) are
//! one indivisible read-modify-write per lane, in the simulator's execution
//! order: within a warp the lanes of a clause in lane order, warps of a
//! workgroup one after another (each until it blocks at a barrier or ends),
//! workgroups in dispatch order. Real hardware defines no order between
//! lanes; tests must only check what every order gives.

use super::exec::{Effects, Prepared, f32_to_f16};
use super::warp::{Lane, LaneCtx};
use super::{CachedClause, Core, fault, fragment_message, status};
use crate::hw::attribute::{attribute_buffer as ab, attribute_desc as ad, attribute_type};
use crate::hw::storage::uniform_buffer;
use crate::kmod::sim::jobs::JobFault;
use crate::kmod::sim::texture::{SamplerState, Texture};

/// Whether `name` is a message instruction this module executes.
pub fn supported(name: &str) -> bool {
    name.starts_with("LOAD.")
        || name.starts_with("STORE.")
        || matches!(
            name,
            "BARRIER"
                | "ATOM_CX"
                | "AXCHG.i32"
                | "ACMPXCHG.i32"
                | "LD_ATTR_IMM"
                | "LD_ATTR"
                | "LEA_ATTR_IMM"
                | "LEA_ATTR"
                | "ST_CVT"
                | "LEA_ATTR_TEX"
                | "LD_ATTR_TEX"
                | "ATEST"
                | "BLEND"
                | "LD_TILE"
                | "LD_VAR"
                | "LD_VAR_IMM"
                | "LD_VAR_FLAT"
                | "LD_VAR_FLAT_IMM"
                | "LD_VAR_SPECIAL"
                | "ZS_EMIT"
                | "TEXS_2D.f32"
                | "TEXC"
        )
}

/// Access size of a LOAD/STORE mnemonic (`LOAD.i96` → 12).
pub fn width_bytes(name: &str) -> usize {
    let t = name.split('.').nth(1).unwrap_or("i32");
    t.trim_start_matches('i').parse::<usize>().unwrap_or(32) / 8
}

/// Address of a LOAD/STORE for this lane, by segment.
fn address(
    core: &Core<'_>,
    p: &Prepared,
    ctx: &LaneCtx,
    lo: u32,
    hi: u32,
    bytes: usize,
    cc: &CachedClause,
) -> Result<u64, JobFault> {
    let seg = p.seg;
    let end = u64::from(lo) + bytes as u64;
    Ok(match seg {
        "wls" => {
            if ctx.wls_size == 0 || end > ctx.wls_size {
                log::error!(
                    "sim shader: WLS access at {lo:#x}+{bytes} outside the {}-byte window (clause {:#x})",
                    ctx.wls_size,
                    cc.va
                );
                return Err(fault(status::ADDR_RANGE_FAULT, cc.va));
            }
            ctx.wls_base + u64::from(lo)
        }
        "tl" => {
            // Offset `lo` in this thread's slot of the TLS buffer (layout in
            // `super::Tls`); no TLS, an access past the thread's TLS size or
            // a thread slot beyond the core's are TLS faults.
            let tls = core.program.res.tls;
            if tls.per_thread == 0 || end > tls.per_thread || ctx.thread >= tls.threads_per_core {
                log::error!(
                    "sim shader: TLS access at {lo:#x}+{bytes} outside the {}-byte thread storage (clause {:#x})",
                    tls.per_thread,
                    cc.va
                );
                return Err(fault(status::INSTR_TLS_FAULT, cc.va));
            }
            let slot = u64::from(ctx.core_id) * tls.threads_per_core + ctx.thread;
            tls.base + slot * tls.per_thread + u64::from(lo)
        }
        "none" | "stream" => u64::from(lo) | (u64::from(hi) << 32),
        _ => {
            log::error!("sim shader: {} with seg={seg} is not simulated", p.name);
            return Err(fault(status::INSTR_INVALID_ENC, cc.va));
        }
    })
}

fn check_align(addr: u64, bytes: usize, cc: &CachedClause) -> Result<(), JobFault> {
    let align = match bytes {
        1 => 1,
        2 => 2,
        _ => 4,
    };
    if !addr.is_multiple_of(align) {
        return Err(fault(status::INSTR_ALIGN_FAULT, addr));
    }
    let _ = cc;
    Ok(())
}

pub(super) fn staging_write(lane: &mut Lane, cc: &CachedClause, i: usize, v: u32) {
    let r = (usize::from(cc.clause.header.staging_register) + i) & 63;
    lane.regs[r] = v;
    let slot = usize::from(cc.clause.header.dependency_slot & 7);
    lane.pending[slot] |= 1 << r;
}

pub(super) fn staging_read(lane: &Lane, cc: &CachedClause, i: usize) -> u32 {
    lane.regs[(usize::from(cc.clause.header.staging_register) + i) & 63]
}

/// Executes message instruction `p` for one lane; `s` holds its sources.
#[allow(clippy::too_many_arguments)]
pub fn execute(
    core: &mut Core<'_>,
    p: &Prepared,
    fma_partner: Option<&Prepared>,
    lane: &mut Lane,
    ctx: &LaneCtx,
    s: &[u32; 4],
    cc: &CachedClause,
    fx: &mut Effects,
) -> Result<u32, JobFault> {
    let name = p.name;
    if name == "BARRIER" {
        fx.barrier = true;
        return Ok(0);
    }
    if cfg!(debug_assertions) && p.fields.op.staging.read {
        // Staging data still being written by an un-waited message.
        let pending = lane.pending.iter().fold(0u64, |a, b| a | b);
        let first = usize::from(cc.clause.header.staging_register);
        use crate::hw::isa::opcode::StagingCount;
        let count = match p.fields.op.staging.count {
            StagingCount::Fixed(n) => usize::from(n),
            StagingCount::Format | StagingCount::Vecsize => components(p),
            StagingCount::SrCount => 1,
            StagingCount::None => 0,
        };
        if (0..count).any(|i| pending & (1u64 << ((first + i) & 63)) != 0) {
            log::warn!(
                "sim shader: clause {:#x} sends staging registers a message is still writing",
                cc.va
            );
            core.counters.hazards += 1;
        }
    }
    if name.starts_with("LOAD.") {
        let bytes = p.access_bytes.min(16);
        let mut buf = [0u8; 16];
        let data = &mut buf[..bytes];
        if p.seg == "ubo" {
            load_ubo(core, s[0], s[1], data, cc)?;
        } else {
            let addr = address(core, p, ctx, s[0], s[1], bytes, cc)?;
            check_align(addr, bytes, cc)?;
            core.mmu.read(addr, data)?;
        }
        let nwords = bytes.div_ceil(4);
        for i in 0..nwords {
            let mut w =
                u32::from_le_bytes([buf[4 * i], buf[4 * i + 1], buf[4 * i + 2], buf[4 * i + 3]]);
            if i == 0 && bytes < 4 && p.sext {
                let shift = 32 - 8 * bytes as u32;
                w = (((w << shift) as i32) >> shift) as u32;
            }
            staging_write(lane, cc, i, w);
        }
        return Ok(0);
    }
    if name.starts_with("STORE.") {
        let bytes = p.access_bytes.min(16);
        let addr = address(core, p, ctx, s[0], s[1], bytes, cc)?;
        check_align(addr, bytes, cc)?;
        let mut buf = [0u8; 16];
        for i in 0..bytes.div_ceil(4) {
            buf[4 * i..4 * i + 4].copy_from_slice(&staging_read(lane, cc, i).to_le_bytes());
        }
        core.mmu.write(addr, &buf[..bytes])?;
        return Ok(0);
    }
    match name {
        "ATOM_CX" => atomic(core, fma_partner, lane, s, cc),
        "AXCHG.i32" | "ACMPXCHG.i32" => exchange(core, p, lane, ctx, s, cc),
        "LD_ATTR_IMM" | "LD_ATTR" => {
            let index = if name == "LD_ATTR_IMM" {
                p.fields.immediate("attribute_index").unwrap_or(0)
            } else {
                s[2]
            };
            ld_attr(core, p, lane, s[0], s[1], index, cc)
        }
        "LEA_ATTR_IMM" | "LEA_ATTR" => {
            let index = if name == "LEA_ATTR_IMM" {
                p.fields.immediate("attribute_index").unwrap_or(0)
            } else {
                s[2]
            };
            let varying = core.program.res.vertex;
            let (addr, format) = attribute_address(core, s[0], s[1], index, varying, cc)?;
            staging_write(lane, cc, 0, addr as u32);
            staging_write(lane, cc, 1, (addr >> 32) as u32);
            staging_write(lane, cc, 2, format);
            Ok(0)
        }
        "ST_CVT" => st_cvt(core, p, lane, s, cc),
        "LEA_ATTR_TEX" => super::image::lea_attr_tex(core, p, fma_partner, lane, s, cc),
        "LD_ATTR_TEX" => super::image::ld_attr_tex(core, p, fma_partner, lane, s, cc),
        "ATEST" => fragment_message::atest(core, p, lane, ctx, s, cc),
        "ZS_EMIT" => fragment_message::zs_emit(core, p, lane, ctx, s, cc),
        "LD_VAR_SPECIAL" => fragment_message::ld_var_special(core, p, lane, ctx, cc),
        "BLEND" => fragment_message::blend(core, p, lane, ctx, s, cc, fx),
        "LD_TILE" => fragment_message::ld_tile(core, p, lane, ctx, s, cc),
        "LD_VAR" | "LD_VAR_IMM" | "LD_VAR_FLAT" | "LD_VAR_FLAT_IMM" => {
            fragment_message::ld_var(core, p, lane, ctx, s, cc)
        }
        "TEXS_2D.f32" => texs(core, p, lane, ctx.lane_id, s, cc),
        "TEXC" => texc(core, lane, ctx.lane_id, s, cc),
        _ => Err(fault(status::INSTR_INVALID_ENC, cc.va)),
    }
}

fn load_ubo(
    core: &Core<'_>,
    offset: u32,
    index: u32,
    out: &mut [u8],
    cc: &CachedClause,
) -> Result<(), JobFault> {
    let res = &core.program.res;
    if index >= res.ubo_count.max(1) || res.ubo_table == 0 {
        log::error!(
            "sim shader: UBO {index} but the job has {} (clause {:#x})",
            res.ubo_count,
            cc.va
        );
        return Err(fault(status::DATA_INVALID_FAULT, cc.va));
    }
    let entry = core
        .mmu
        .read_words(res.ubo_table + 8 * u64::from(index), 2)?;
    let size = uniform_buffer::ENTRIES.get(&entry) * 16;
    let ptr = uniform_buffer::POINTER.get(&entry);
    let end = u64::from(offset) + out.len() as u64;
    if end > size {
        // Out-of-range UBO reads return zeros (robust buffer access).
        out.fill(0);
        return Ok(());
    }
    core.mmu.read(ptr + u64::from(offset), out)?;
    Ok(())
}

fn atomic(
    core: &mut Core<'_>,
    fma: Option<&Prepared>,
    lane: &mut Lane,
    s: &[u32; 4],
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    let Some(f) = fma.filter(|f| f.op == super::exec::Op::AtomC) else {
        log::error!(
            "sim shader: ATOM_CX without an ATOM_C* partner (clause {:#x})",
            cc.va
        );
        return Err(fault(status::INSTR_INVALID_ENC, cc.va));
    };
    let addr = u64::from(s[0]) | (u64::from(s[1]) << 32);
    check_align(addr, 4, cc)?;
    let mut b = [0u8; 4];
    core.mmu.read(addr, &mut b)?;
    let old = u32::from_le_bytes(b);
    let opc = f.fields.modifier("atom_opc").unwrap_or("");
    let arg = staging_read(lane, cc, 0);
    let new = match opc {
        "ainc" => old.wrapping_add(1),
        "adec" => old.wrapping_sub(1),
        "aadd" => old.wrapping_add(arg),
        "asmin" => (old as i32).min(arg as i32) as u32,
        "asmax" => (old as i32).max(arg as i32) as u32,
        "aumin" => old.min(arg),
        "aumax" => old.max(arg),
        "aand" => old & arg,
        "aor" => old | arg,
        "axor" => old ^ arg,
        _ => {
            log::error!("sim shader: atomic {opc} is not simulated");
            return Err(fault(status::INSTR_INVALID_ENC, cc.va));
        }
    };
    core.mmu.write(addr, &new.to_le_bytes())?;
    if f.name.contains("RETURN") {
        staging_write(lane, cc, 0, old);
    }
    Ok(0)
}

/// `AXCHG.i32` (staging: the new value) and `ACMPXCHG.i32` (staging: the
/// new value, then the compare value; Mesa's order): store the new value
/// (if memory equals the compare value), return the old value in the
/// first staging register. Global or WLS, by the `seg` modifier.
fn exchange(
    core: &mut Core<'_>,
    p: &Prepared,
    lane: &mut Lane,
    ctx: &LaneCtx,
    s: &[u32; 4],
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    let addr = address(core, p, ctx, s[0], s[1], 4, cc)?;
    check_align(addr, 4, cc)?;
    let mut b = [0u8; 4];
    core.mmu.read(addr, &mut b)?;
    let old = u32::from_le_bytes(b);
    let new = staging_read(lane, cc, 0);
    let store = p.name == "AXCHG.i32" || old == staging_read(lane, cc, 1);
    if store {
        core.mmu.write(addr, &new.to_le_bytes())?;
    }
    staging_write(lane, cc, 0, old);
    Ok(0)
}

/// Register-format element count per register (f16/s16/u16 pack two).
pub(super) fn components(p: &Prepared) -> usize {
    match p.fields.modifier("vecsize").unwrap_or("none") {
        "v2" => 2,
        "v3" => 3,
        "v4" => 4,
        _ => 1,
    }
}

/// Resolves attribute `index` for (vertex, instance) in the attribute (or,
/// `varying`, the varying) tables: its address and format word.
///
/// Which table LEA_ATTR uses is our reading of Mesa's vertex shaders: they
/// load inputs with LD_ATTR and address their outputs with LEA_ATTR using
/// output-slot indices that overlap the input indices, so in a VERTEX job
/// LEA_ATTR goes to the DCD's Varyings / Varying buffers; elsewhere to the
/// attribute tables.
pub(super) fn attribute_address(
    core: &Core<'_>,
    vertex: u32,
    instance: u32,
    index: u32,
    varying: bool,
    cc: &CachedClause,
) -> Result<(u64, u32), JobFault> {
    let res = &core.program.res;
    let bad = |what: &str| {
        log::error!(
            "sim shader: attribute {index}: {what} (clause {:#x})",
            cc.va
        );
        fault(status::DATA_INVALID_FAULT, cc.va)
    };
    let (table, buffers, count) = if varying {
        (res.varyings, res.varying_buffers, res.varying_count)
    } else {
        (res.attributes, res.attribute_buffers, res.attribute_count)
    };
    if table == 0 || buffers == 0 || index >= count {
        return Err(bad("no such attribute"));
    }
    let attr = core.mmu.read_words(table + 8 * u64::from(index), 2)?;
    let buf_index = ad::BUFFER_INDEX.get(&attr);
    let format = ad::FORMAT.get(&attr) as u32;
    let offset = ad::OFFSET.get(&attr) as u32 as i32 as i64;
    let buf = core.mmu.read_words(buffers + 16 * buf_index, 4)?;
    let ty = ab::TYPE.get(&buf);
    let ptr = ab::POINTER.get(&buf);
    let stride = ab::STRIDE.get(&buf);
    let size = ab::SIZE.get(&buf);
    // The linear index: vertex (+ Offset start) + instance * the padded
    // per-instance vertex count; divisor types divide it, so a per-instance
    // divisor is programmed as divisor * that count.
    //
    // Which padded count (uncertain hardware behaviour, our model): the
    // hardware picks its own from the Invocation (Mesa
    // `docs/drivers/panfrost/instancing.rst`; `pan_attributes.c`: the
    // driver's value "has to match exactly how the hardware calculates
    // this ... or else instancing will break"). Varyings are addressed with
    // that one: they are what the fixed-function units after the vertex
    // job read by the hardware's own linear index (PanVk sizes them padded
    // count × instances), so a DCD `Instance Size` that disagrees puts a
    // job's outputs where the driver does not look (or past the buffer: a
    // DATA_INVALID fault below). Attributes combine the LD_ATTR operands
    // with the DCD's `Instance Size`, since LD_ATTR names the vertex and
    // instance explicitly: the XFB capture job (`jm::xfb`) relies on that,
    // fetching the draw's attributes with the draw's `Instance Size` over a
    // grid of its own (also an assumption; verify on hardware).
    //
    // Varyings do not add Offset start: inferred, not documented — Mesa
    // sizes varying buffers as stride × (vertex range × instances) while
    // Offset start can be any first index, so the hardware cannot be
    // adding it there (verify on hardware).
    let (start, per_instance) = if varying {
        (0, res.hardware_instance_size)
    } else {
        (res.offset_start, u64::from(res.instance_size.max(1)))
    };
    let v = u64::from(vertex) + u64::from(start) + u64::from(instance) * per_instance;
    let element = match ty {
        attribute_type::LINEAR_1D => v,
        attribute_type::MODULUS_1D => {
            let d = ab::DIVISOR.get(&buf).max(1);
            v % d
        }
        attribute_type::POT_DIVISOR_1D => v >> ab::DIVISOR_R.get(&buf),
        attribute_type::NPOT_DIVISOR_1D => {
            // Multiply by the magic in the continuation record and shift;
            // the record's plain `Divisor` (the API divisor, as Mesa writes
            // it) is not used (see `npot_divide`).
            use crate::hw::attribute::{
                attribute_type::CONTINUATION, continuation_npot, npot_divide,
            };
            let cont = core.mmu.read_words(buffers + 16 * (buf_index + 1), 4)?;
            if continuation_npot::TYPE.get(&cont) != CONTINUATION {
                return Err(bad("NPOT divisor without its continuation record"));
            }
            npot_divide(
                v,
                continuation_npot::DIVISOR_NUMERATOR.get(&cont) as u32,
                ab::DIVISOR_R.get(&buf) as u32,
                ab::DIVISOR_E.get(&buf) != 0,
            )
        }
        _ => return Err(bad("unsupported attribute buffer type")),
    };
    let addr_off = element as i64 * stride as i64 + offset;
    if addr_off < 0 || addr_off as u64 >= size.max(1) {
        return Err(bad("element outside the buffer"));
    }
    Ok(((ptr as i64 + addr_off) as u64, format))
}

/// Decodes one attribute element of `format` at `addr` into f32/int words.
fn ld_attr(
    core: &mut Core<'_>,
    p: &Prepared,
    lane: &mut Lane,
    vertex: u32,
    instance: u32,
    index: u32,
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    let (addr, format) = attribute_address(core, vertex, instance, index, false, cc)?;
    let values = read_format(core, addr, format, cc)?;
    let n = components(p);
    let reg_format = p.fields.modifier("register_format").unwrap_or("auto");
    for (i, v) in values.iter().take(n).enumerate() {
        let w = match (reg_format, v) {
            ("f32", Value::I(i)) => (*i as f32).to_bits(),
            ("f32", Value::U(u)) => (*u as f32).to_bits(),
            ("f16", Value::F(f)) => u32::from(f32_to_f16(*f, false)),
            (_, Value::F(f)) => f.to_bits(),
            (_, Value::I(i)) => *i as u32,
            (_, Value::U(u)) => *u,
        };
        staging_write(lane, cc, i, w);
    }
    Ok(0)
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Value {
    F(f32),
    I(i32),
    U(u32),
}

/// Reads one element of the vertex format in `word` at `addr`, swizzled.
pub(super) fn read_format(
    core: &Core<'_>,
    addr: u64,
    word: u32,
    cc: &CachedClause,
) -> Result<[Value; 4], JobFault> {
    use crate::hw::format::ComponentType as C;
    let formats = crate::hw::layouts(core.arch).formats;
    let (fmt, swizzle) = formats
        .decode_attribute_format(u64::from(word))
        .ok_or_else(|| {
            log::error!("sim shader: attribute format {word:#x} is not a vertex format");
            fault(status::DATA_INVALID_FAULT, cc.va)
        })?;
    let bytes_per = fmt.ty.bytes() as usize;
    let n = usize::from(fmt.components).min(4);
    let mut raw = vec![0u8; bytes_per * n];
    core.mmu.read(addr, &mut raw)?;
    let int = matches!(fmt.ty, C::I32 | C::I8 | C::I16);
    let uint = matches!(fmt.ty, C::U32 | C::U8 | C::U16);
    let mut comp = [Value::F(0.0); 4];
    for (i, c) in comp.iter_mut().enumerate().take(n) {
        let b = &raw[i * bytes_per..(i + 1) * bytes_per];
        let u = b.iter().rev().fold(0u32, |a, &x| (a << 8) | u32::from(x));
        let bits = (bytes_per * 8) as u32;
        let sx = if bits < 32 {
            ((u << (32 - bits)) as i32) >> (32 - bits)
        } else {
            u as i32
        };
        *c = match fmt.ty {
            C::F32 => Value::F(f32::from_bits(u)),
            C::Unorm8 | C::Unorm16 => Value::F(u as f32 / ((1u64 << bits) - 1) as f32),
            C::Snorm8 | C::Snorm16 => {
                Value::F((sx as f32 / ((1u64 << (bits - 1)) - 1) as f32).max(-1.0))
            }
            C::U32 | C::U8 | C::U16 => Value::U(u),
            C::I32 | C::I8 | C::I16 => Value::I(sx),
        };
    }
    let zero = if int {
        Value::I(0)
    } else if uint {
        Value::U(0)
    } else {
        Value::F(0.0)
    };
    let one = if int {
        Value::I(1)
    } else if uint {
        Value::U(1)
    } else {
        Value::F(1.0)
    };
    Ok(swizzle.map(|c| match c {
        0..=3 if (c as usize) < n => comp[c as usize],
        5 => one,
        _ => zero,
    }))
}

/// ST_CVT: store staging registers at the address in s0/s1, converted to
/// the memory format of the conversion word in s2 (genxml "Internal
/// Conversion": Memory Format bits 0..21, Register Format bits 24..26:
/// F32 1, I32 2, U32 3; 0, what `LEA_ATTR` returns, is taken as 32-bit
/// registers of the memory format's own kind). Memory formats: "Snap 4"
/// (the position format: four f32 as the shader wrote them, snapping is
/// the rasterizer's), the 16-bit float formats R16F..RGBA16F (f32 → f16,
/// round to nearest even), and the formats `hw::format` reads as vertex
/// formats — 32-bit float/int/uint as they are; 8/16-bit UNORM and SNORM
/// from f32 registers by Vulkan's "Conversion from Floating-Point to
/// Normalized Fixed-Point" (clamp, round to nearest; NaN → 0); 8/16-bit
/// integers from integer registers, saturated to the format's range (our
/// choice: what the hardware does with an out-of-range integer is
/// undocumented, and Vulkan leaves it undefined; no test relies on it).
/// A float register into an integer format or the reverse faults (a
/// format mismatch Vulkan leaves undefined; the hardware's answer is
/// undocumented). Fewer components than the format has write only those;
/// more are not written.
fn st_cvt(
    core: &mut Core<'_>,
    p: &Prepared,
    lane: &mut Lane,
    s: &[u32; 4],
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    use crate::hw::format::ComponentType as C;
    let addr = u64::from(s[0]) | (u64::from(s[1]) << 32);
    let formats = crate::hw::layouts(core.arch).formats;
    let regfmt = (s[2] >> 24) & 7;
    if regfmt > 3 {
        log::error!("sim shader: ST_CVT register format {regfmt} not simulated");
        return Err(fault(status::DATA_INVALID_FAULT, cc.va));
    }
    let word = u64::from(s[2] & 0x3f_ffff);
    let name = crate::hw::layout::enum_name(formats.table.formats, (word >> 12) & 0xff);
    let half_components = match name {
        "R16F" => Some(1),
        "RG16F" => Some(2),
        "RGB16F" => Some(3),
        "RGBA16F" => Some(4),
        _ => None,
    };
    let mut out = Vec::new();
    if name == "Snap 4" || half_components.is_some() {
        if regfmt > 1 {
            log::error!("sim shader: ST_CVT of integer registers to {name} not simulated");
            return Err(fault(status::DATA_INVALID_FAULT, cc.va));
        }
        let n = components(p).min(half_components.unwrap_or(4));
        for i in 0..n {
            let w = staging_read(lane, cc, i);
            if half_components.is_some() {
                out.extend_from_slice(&f32_to_f16(f32::from_bits(w), false).to_le_bytes());
            } else {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        check_align(addr, if half_components.is_some() { 2 } else { 4 }, cc)?;
        core.mmu.write(addr, &out)?;
        return Ok(0);
    }
    let (fmt, _) = formats.decode_attribute_format(word).ok_or_else(|| {
        log::error!("sim shader: ST_CVT format {:#x} not understood", s[2]);
        fault(status::DATA_INVALID_FAULT, cc.va)
    })?;
    let float_memory = matches!(
        fmt.ty,
        C::F32 | C::Unorm8 | C::Snorm8 | C::Unorm16 | C::Snorm16
    );
    // 32-bit memory formats keep what the register holds when the register
    // format is auto or F32 (the vertex-output path); otherwise the
    // register's kind must match the memory's.
    let mismatch = match regfmt {
        1 => !float_memory && !matches!(fmt.ty, C::U32 | C::I32),
        2 | 3 => float_memory,
        _ => false,
    };
    if mismatch {
        log::error!("sim shader: ST_CVT of register format {regfmt} to {fmt:?} not simulated");
        return Err(fault(status::DATA_INVALID_FAULT, cc.va));
    }
    let signed_regs = regfmt == 2 || (regfmt == 0 && matches!(fmt.ty, C::I8 | C::I16 | C::I32));
    let n = components(p).min(usize::from(fmt.components).max(1));
    let bytes = fmt.ty.bytes() as usize;
    for i in 0..n {
        let w = staging_read(lane, cc, i);
        let f = f32::from_bits(w);
        // In f64, where f × (2^b − 1) is exact: f32 would round the
        // product first and could move a value across a rounding boundary.
        let norm = |max: f64, lo: f64| -> u32 {
            let c = if f.is_nan() {
                0.0
            } else {
                f64::from(f).clamp(lo, 1.0)
            };
            ((c * max).round() as i32) as u32
        };
        let int = |lo: i64, hi: i64| -> u32 {
            let v = if signed_regs {
                i64::from(w as i32)
            } else {
                i64::from(w)
            };
            v.clamp(lo, hi) as u32
        };
        let v = match fmt.ty {
            C::F32 | C::U32 | C::I32 => w,
            C::Unorm8 => norm(255.0, 0.0),
            C::Unorm16 => norm(65535.0, 0.0),
            C::Snorm8 => norm(127.0, -1.0),
            C::Snorm16 => norm(32767.0, -1.0),
            C::U8 => int(0, 255),
            C::U16 => int(0, 65535),
            C::I8 => int(-128, 127),
            C::I16 => int(-32768, 32767),
        };
        out.extend_from_slice(&v.to_le_bytes()[..bytes]);
    }
    check_align(addr, bytes.min(4), cc)?;
    core.mmu.write(addr, &out)?;
    Ok(0)
}

/// Reads texture `texture` (and sampler `sampler`, if given) of the job's
/// tables; a bad index or descriptor is the texture unit's fault.
fn texture_of(
    core: &Core<'_>,
    texture: u32,
    sampler: Option<u32>,
) -> Result<(Texture, Option<SamplerState>), JobFault> {
    let res = &core.program.res;
    let t = Texture::read_texture(
        core.mmu,
        core.arch,
        res.textures,
        texture,
        res.texture_count,
    )?;
    let s = match sampler {
        Some(i) => Some(SamplerState::read(
            core.mmu,
            core.arch,
            res.samplers,
            i,
            res.sampler_count,
        )?),
        None => None,
    };
    Ok((t, s))
}

/// The implicit base level of detail of a texture access by lane `lane_id`
/// in a fragment job: the Vulkan "Scale Factor Operation" with the
/// coordinates of the lane's 2×2 quad (`Core::quad_coords`, gathered
/// when the clause ran in lock step): ∂s/∂x and ∂t/∂x the differences
/// between the quad's upper pixels (lanes 1 and 0), ∂s/∂y, ∂t/∂y between
/// its left ones (lanes 2 and 0) — one λ per quad, the coarse
/// derivatives, which the spec allows; the hardware's choice is not
/// documented — scaled by level 0's width and height, ρ = max(|(∂u/∂x,
/// ∂v/∂x)|, |(∂u/∂y, ∂v/∂y)|) (isotropic), λ = log2 ρ rounded to the
/// nearest 1/256 (the 8 fractional bits of the hardware's LOD values,
/// genxml `slod`), clamped to ±128. A quad lane that is not running the
/// access (divergent control flow: undefined in Vulkan) faults.
fn implicit_lod(
    core: &Core<'_>,
    lane_id: u32,
    t: &Texture,
    cc: &CachedClause,
) -> Result<f32, JobFault> {
    let base = (lane_id & !3) as usize;
    let coord = |l: usize| core.quad_coords.get(base + l).copied().flatten();
    let (Some(c0), Some(c1), Some(c2)) = (coord(0), coord(1), coord(2)) else {
        log::error!(
            "sim shader: implicit LOD without the whole quad running the access (clause {:#x})",
            cc.va
        );
        return Err(fault(status::INSTR_INVALID_ENC, cc.va));
    };
    let f = |w: u32| f64::from(f32::from_bits(w));
    if t.dim == 0 {
        let lambda = super::super::texture::cube_implicit_lod(t.size().0, [c0, c1, c2]);
        return Ok(((lambda * 256.0).round() / 256.0).clamp(-128.0, 128.0) as f32);
    }
    let (w, h) = t.size();
    let (w, h) = (f64::from(w), f64::from(h));
    let ux = w * (f(c1.0) - f(c0.0));
    let vx = h * (f(c1.1) - f(c0.1));
    let uy = w * (f(c2.0) - f(c0.0));
    let vy = h * (f(c2.1) - f(c0.1));
    let rho = ux.hypot(vx).max(uy.hypot(vy));
    let lambda = rho.log2();
    Ok(if lambda.is_nan() {
        0.0
    } else {
        ((lambda * 256.0).round() / 256.0).clamp(-128.0, 128.0) as f32
    })
}

/// `TEXS_2D.f32`: texture `texture_index` with sampler `sampler_index` at
/// (s, t) = the two sources, four f32 results in the staging registers.
/// `computed_lod` only in fragment jobs (its derivatives come from the
/// quad); with the one level and the single filter `texture` simulates,
/// the LOD selects nothing.
fn texs(
    core: &mut Core<'_>,
    p: &Prepared,
    lane: &mut Lane,
    lane_id: u32,
    s: &[u32; 4],
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    if p.fields.modifier("lod_mode") == Some("computed_lod") && core.frag.is_none() {
        log::error!(
            "sim shader: TEXS with a computed LOD outside a fragment job (clause {:#x})",
            cc.va
        );
        return Err(fault(status::INSTR_INVALID_ENC, cc.va));
    }
    if p.fields.modifier("skip") == Some("skip") {
        return Err(fault(status::INSTR_INVALID_ENC, cc.va));
    }
    let texture = p.fields.immediate("texture_index").unwrap_or(0);
    let sampler = p.fields.immediate("sampler_index").unwrap_or(0);
    let (t, smp) = texture_of(core, texture, Some(sampler))?;
    let smp = smp.ok_or_else(|| fault(status::INSTR_INVALID_ENC, cc.va))?;
    if !t.is_float() {
        log::error!(
            "sim shader: TEXS_2D.f32 of an integer texture (clause {:#x})",
            cc.va
        );
        return Err(fault(status::INSTR_INVALID_ENC, cc.va));
    }
    t.single_layer()?;
    let lod = if p.fields.modifier("lod_mode") == Some("computed_lod") {
        implicit_lod(core, lane_id, &t, cc)?
    } else {
        0.0
    };
    let c = t.sample(
        core.mmu,
        &smp,
        f32::from_bits(s[0]),
        f32::from_bits(s[1]),
        0,
        lod,
        [0, 0],
        None,
    )?;
    for (i, &v) in c.iter().enumerate() {
        staging_write(lane, cc, i, v);
    }
    Ok(0)
}

/// `TEXC`: the texture operation descriptor (third source; Mesa's
/// `struct bifrost_texture_operation`, `src/panfrost/compiler/bifrost.h`)
/// with immediate indices, 1D, 2D or 3D (dimension 1–3: a 3D access's r in
/// the first data register, before the LOD's; a 1D access reads only its
/// first source; with the array bit, an array index after the LOD
/// register; offsets and depth references of 2D textures only): TEX
/// with LOD zero, computed (fragment jobs) or explicit (8:8 fixed point in
/// the first staging register), or FETCH of a texel (integer coordinates,
/// level in 8:8 fixed point in the first staging register), or FETCH
/// with a GATHER4 component (`Texture::gather`); cube maps (dimension 0:
/// TEX, and FETCH GATHER4, the face in the s word's top 3 bits,
/// `Texture::sample_cube`/`gather_cube`; a cube array's cube in the array
/// register); results as
/// F32 of a UNORM/sRGB texture, U32 of an RGBA8UI one or S32 of an RGBA8I
/// one (another pairing's conversion is undocumented: refused), all four
/// components (mask 0xf).
/// Anything else is INSTR_INVALID_ENC.
fn texc(
    core: &mut Core<'_>,
    lane: &mut Lane,
    lane_id: u32,
    s: &[u32; 4],
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    let d = s[2];
    let field = |at: u32, bits: u32| (d >> at) & ((1 << bits) - 1);
    let (sampler, texture, immediate, op) = (field(0, 4), field(4, 7), field(11, 1), field(12, 3));
    let (offsets, shadow, array, dim) = (field(15, 1), field(16, 1), field(17, 1), field(18, 2));
    let (lod_mode, zero, format, mask) = (field(20, 3), field(23, 1), field(24, 4), field(28, 4));
    let bad = |why: &str| {
        log::error!(
            "sim shader: TEXC descriptor {d:#010x}: {why} not simulated (clause {:#x})",
            cc.va
        );
        fault(status::INSTR_INVALID_ENC, cc.va)
    };
    // A depth reference goes with TEX, or with a FETCH gathering
    // component r (Mesa's `bifrost.h`: the shadow bit "Implies
    // fetch_component = gather4_r"; other components are undocumented).
    if immediate != 1
        || (dim == 0 && op != 7 && !(op == 6 && (4..=7).contains(&lod_mode)))
        || (dim != 2 && offsets != 0)
        || (matches!(dim, 1 | 3) && shadow != 0)
        || (dim == 3 && array != 0)
        || zero != 0
        || (shadow != 0 && op != 7 && (op, lod_mode) != (6, 4))
    {
        return Err(bad(
            "indirect indices, cube fetches or gathers, 3D arrays, offsets or depth \
             references of 1D/3D/cube textures, or a depth reference of a texel fetch",
        ));
    }
    if !matches!(format, 4 | 14 | 15) || mask != 0xf {
        return Err(bad(
            "a result format other than F32, U32, S32 or a partial mask",
        ));
    }
    let kind_fits = |t: &Texture| match format {
        4 => t.is_float(),
        14 => t.is_uint(),
        _ => t.is_sint(),
    };
    // The data registers in Mesa's order (`enum bifrost_tex_dreg`): a 3D
    // access's r (`BIFROST_TEX_DREG_Z_COORD`: f32 for TEX, an integer for
    // FETCH), the LOD (EXPLICIT, and every FETCH: signed 8:8 fixed point),
    // then the array index.
    let z = (dim == 3).then(|| staging_read(lane, cc, 0));
    let first = usize::from(z.is_some());
    let has_lod = op == 6 || lod_mode == 4 || lod_mode == 5;
    let lod_reg = if has_lod {
        staging_read(lane, cc, first)
    } else {
        0
    };
    let level = f32::from(lod_reg as u16 as i16) / 256.0;
    // The depth reference (shadow), the array index, the offsets, in turn
    // (Mesa's `enum bifrost_tex_dreg`).
    let dref =
        (shadow != 0).then(|| f32::from_bits(staging_read(lane, cc, first + usize::from(has_lod))));
    let after_lod = first + usize::from(has_lod) + shadow as usize;
    let layer = (array != 0).then(|| staging_read(lane, cc, after_lod));
    // The texel offsets (Mesa's `bi_emit_texc_offset_ms_index`: signed
    // bytes x, y, z and a sample index) after the LOD and array registers.
    let offset = if offsets != 0 {
        let w = staging_read(lane, cc, after_lod + array as usize);
        if w >> 16 != 0 {
            return Err(bad("a z offset or a sample index"));
        }
        [i32::from(w as u8 as i8), i32::from((w >> 8) as u8 as i8)]
    } else {
        [0, 0]
    };
    let layer_of = |t: &Texture| -> Result<u32, JobFault> {
        t.dimension(dim, layer.is_some())?;
        Ok(layer.unwrap_or(0))
    };
    let c = match (op, lod_mode) {
        // FETCH, TEXEL.
        (6, 1) => {
            let (t, _) = texture_of(core, texture, None)?;
            if !kind_fits(&t) {
                return Err(bad("this result format for the texture's format"));
            }
            let level = if level.fract() == 0.0 {
                level as i32
            } else {
                -1
            };
            let l = layer_of(&t)?;
            t.fetch(
                core.mmu,
                [
                    (s[0] as i32).wrapping_add(offset[0]),
                    (s[1] as i32).wrapping_add(offset[1]),
                    z.unwrap_or(0) as i32,
                ],
                level,
                l,
            )?
        }
        // FETCH, GATHER4_R/G/B/A (Mesa's `bi_emit_texc` for
        // `nir_texop_tg4`): a sampler, level 0 only — Mesa's LOD register
        // for a gather is always 0; another level's meaning is
        // undocumented.
        (6, 4..=7) => {
            let (t, smp) = texture_of(core, texture, Some(sampler))?;
            let smp = smp.ok_or_else(|| bad("no sampler"))?;
            if !kind_fits(&t) {
                return Err(bad("this result format for the texture's format"));
            }
            if lod_reg != 0 {
                return Err(bad("a gather with a LOD register other than 0"));
            }
            let l = layer_of(&t)?;
            if dim == 0 {
                // A cube: s packed with the face, as for TEX.
                t.gather_cube(
                    core.mmu,
                    (s[0], f32::from_bits(s[1])),
                    l,
                    (lod_mode - 4) as usize,
                )?
            } else {
                t.gather(
                    core.mmu,
                    &smp,
                    (f32::from_bits(s[0]), f32::from_bits(s[1])),
                    l,
                    (offset, dref),
                    (lod_mode - 4) as usize,
                )?
            }
        }
        // TEX: EXPLICIT, ZERO, COMPUTE (fragment jobs only).
        (7, 4 | 6) | (7, 5 | 7) if !matches!(lod_mode, 5 | 7) || core.frag.is_some() => {
            let (t, smp) = texture_of(core, texture, Some(sampler))?;
            let smp = smp.ok_or_else(|| bad("no sampler"))?;
            if !kind_fits(&t) {
                return Err(bad("this result format for the texture's format"));
            }
            let l = layer_of(&t)?;
            if matches!(dim, 1 | 3) && matches!(lod_mode, 5 | 7) {
                // Our λ comes from the quad's s and t (`implicit_lod`; a
                // cube's from its faces, `cube_implicit_lod`); what the
                // hardware does for 1D/3D is not modelled.
                return Err(bad("implicit LOD of a 1D or 3D texture"));
            }
            let lod = match lod_mode {
                4 => level,
                7 => implicit_lod(core, lane_id, &t, cc)?,
                // BIAS: the computed LOD plus the register's low half
                // (8:8). Its high half, a lower bound Mesa leaves 0, is
                // simulated only as 0: the sampler's Minimum LOD (never
                // negative) already bounds λ from below, so a 0 bound
                // changes nothing; other bounds' interplay with it is
                // undocumented.
                5 => {
                    if lod_reg >> 16 != 0 {
                        return Err(bad("a BIAS lower bound other than 0"));
                    }
                    implicit_lod(core, lane_id, &t, cc)? + level
                }
                _ => 0.0,
            };
            if dim == 0 {
                // A cube: s packed with the face (Mesa's
                // `bi_emit_texc_cube_coord`), a cube array's cube index
                // in the array register.
                t.sample_cube(core.mmu, &smp, (s[0], f32::from_bits(s[1])), l, lod, dref)?
            } else {
                t.sample_at(
                    core.mmu,
                    &smp,
                    [
                        f32::from_bits(s[0]),
                        f32::from_bits(s[1]),
                        f32::from_bits(z.unwrap_or(0)),
                    ],
                    l,
                    lod,
                    offset,
                    dref,
                )?
            }
        }
        _ => return Err(bad("this operation")),
    };
    for (i, &v) in c.iter().enumerate() {
        staging_write(lane, cc, i, v);
    }
    Ok(0)
}
