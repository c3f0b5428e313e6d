//! Bifrost disassembler: prints decoded clauses in Mesa's disassembly syntax,
//! character for character (so our output can be diffed against Mesa's and
//! parsed back by `asm`).
//!
//! It only formats what `hw::isa` decoded; it must never interpret bits
//! itself and never panic on a decodable clause.

use std::fmt::Write as _;

use crate::hw::isa::clause::{QUADWORD_BYTES, message_type_name};
use crate::hw::isa::{
    DecodeError, DecodedClause, Instr, Operand, SlotOp, Tuple, Unit, WriteHalf, decode_clause,
    decode_shader,
};

/// Shader statistics as Mesa's shader-db counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Non-NOP instructions.
    pub instructions: usize,
    /// Tuples.
    pub tuples: usize,
    /// Clauses.
    pub clauses: usize,
}

/// Counts clauses, tuples and instructions of a shader binary.
pub fn stats(code: &[u8]) -> Result<Stats, DecodeError> {
    let clauses = decode_shader(code)?;
    Ok(Stats {
        instructions: clauses.iter().map(|(_, c)| c.instruction_count()).sum(),
        tuples: clauses.iter().map(|(_, c)| c.tuples.len()).sum(),
        clauses: clauses.len(),
    })
}

/// Disassembles a whole shader binary (stops at the first zero word where a
/// clause should start, like Mesa).
pub fn disassemble(code: &[u8]) -> Result<String, DecodeError> {
    let mut out = String::new();
    for (offset, clause) in decode_shader(code)? {
        let _ = writeln!(out, "clause_{offset}:");
        write_clause(&mut out, &clause, offset)?;
    }
    Ok(out)
}

/// Disassembles with Mesa's `--verbose` annotations: each quadword's words
/// (high word first) and tag, the raw header, each tuple's register block and
/// its port use, and the clause constants.
pub fn disassemble_verbose(code: &[u8]) -> Result<String, DecodeError> {
    let mut out = String::new();
    let mut pos = 0usize;
    while pos + 4 <= code.len() {
        if code[pos..pos + 4] == [0; 4] {
            break;
        }
        let (clause, size) = decode_clause(&code[pos..])?;
        let offset = pos / QUADWORD_BYTES;
        let _ = writeln!(out, "clause_{offset}:");
        for q in code[pos..pos + size].chunks(QUADWORD_BYTES) {
            out.push_str("# ");
            for w in q.chunks(4).rev() {
                let _ = write!(out, "{:08x} ", u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
            }
            let _ = write!(out, "\n# tag: 0x{:02x}\n", q[0]);
        }
        let _ = writeln!(out, "# header: {:012x}", clause.header.to_bits());
        write_clause_inner(&mut out, &clause, offset, true)?;
        for (i, c) in clause.constants.iter().enumerate() {
            let _ = writeln!(out, "# const{}: {:08x}", 2 * i, c & 0xffff_ffff);
            let _ = writeln!(out, "# const{}: {:08x}", 2 * i + 1, c >> 32);
        }
        out.push('\n');
        pos += size;
    }
    Ok(out)
}

/// Disassembles one clause that sits `offset` quadwords from the shader start
/// (branch targets are printed as `clause_N` labels relative to it).
pub fn write_clause(
    out: &mut String,
    clause: &DecodedClause,
    offset: usize,
) -> Result<(), DecodeError> {
    write_clause_inner(out, clause, offset, false)?;
    out.push('\n');
    Ok(())
}

fn write_clause_inner(
    out: &mut String,
    clause: &DecodedClause,
    offset: usize,
    verbose: bool,
) -> Result<(), DecodeError> {
    write_header(out, clause);
    out.push_str("{\n");
    for tuple in &clause.tuples {
        if verbose {
            write_regs(out, tuple);
        }
        let staging = clause.header.staging_register;
        write_instr(out, &tuple.fma, Unit::Fma, staging, offset)?;
        write_instr(out, &tuple.add, Unit::Add, staging, offset)?;
    }
    out.push_str("}\n");
    Ok(())
}

fn write_regs(out: &mut String, tuple: &Tuple) {
    let p = &tuple.ports;
    let _ = writeln!(out, "    # regs: {:016x}", tuple.regs.to_bits());
    out.push_str("    # ");
    if let Some(r) = p.port0 {
        let _ = write!(out, "slot 0: r{r} ");
    }
    if let Some(r) = p.port1 {
        let _ = write!(out, "slot 1: r{r} ");
    }
    let kind = |op: SlotOp| match op {
        SlotOp::Write => Some("write"),
        SlotOp::WriteLo => Some("write lo"),
        SlotOp::WriteHi => Some("write hi"),
        _ => None,
    };
    match p.modes.slot2 {
        SlotOp::Read => {
            let _ = write!(out, "slot 2: r{} (read) ", p.reg2);
        }
        op => {
            if let Some(k) = kind(op) {
                let _ = write!(out, "slot 2: r{} ({k} FMA) ", p.reg2);
            }
        }
    }
    if let Some(k) = kind(p.modes.slot3) {
        let unit = if p.modes.slot3_fma { "FMA" } else { "ADD" };
        let _ = write!(out, "slot 3: r{} ({k} {unit}) ", p.reg3);
    }
    if tuple.regs.fau_idx != 0 {
        let _ = write!(out, "fau {:X} ", tuple.regs.fau_idx);
    }
    out.push('\n');
}

fn write_header(out: &mut String, clause: &DecodedClause) {
    let h = &clause.header;
    let _ = write!(out, "ds({}) ", h.dependency_slot);
    if h.staging_barrier {
        out.push_str("osrb ");
    }
    out.push_str(h.flow().name());
    out.push(' ');
    if h.suppress_inf {
        out.push_str("inf_suppress ");
    }
    if h.suppress_nan {
        out.push_str("nan_suppress ");
    }
    match h.flush_to_zero {
        1 => out.push_str("ftz_dx11 "),
        2 => out.push_str("ftz_hsa "),
        3 => out.push_str("ftz_au "),
        _ => {}
    }
    match h.float_exceptions {
        1 => out.push_str("fpe_ts "),
        2 => out.push_str("fpe_pd "),
        3 => out.push_str("fpe_psqr "),
        _ => {}
    }
    if h.message_type != 0 {
        let _ = write!(out, "{} ", message_type_name(h.message_type));
    }
    if h.terminate_discarded_threads {
        out.push_str("td ");
    }
    if h.next_clause_prefetch {
        out.push_str("ncph ");
    }
    if h.next_message_type != 0 {
        let _ = write!(out, "next_{} ", message_type_name(h.next_message_type));
    }
    if h.dependency_wait != 0 {
        let slots: Vec<String> = (0..8)
            .filter(|i| h.dependency_wait & (1 << i) != 0)
            .map(|i| i.to_string())
            .collect();
        let _ = write!(out, "dwb({}) ", slots.join(", "));
    }
    out.push('\n');
}

/// C's `%f` for a float promoted to double.
pub fn c_float(f: f32) -> String {
    if f.is_nan() {
        if f.is_sign_negative() { "-nan" } else { "nan" }.to_string()
    } else if f.is_infinite() {
        if f < 0.0 { "-inf" } else { "inf" }.to_string()
    } else {
        format!("{:.6}", f64::from(f))
    }
}

fn const_imm(v: u32) -> String {
    format!("0x{v:08x} /* {} */", c_float(f32::from_bits(v)))
}

fn write_operand(out: &mut String, op: &Operand, offset: usize) -> Result<(), DecodeError> {
    match *op {
        Operand::Reg(r) => {
            let _ = write!(out, "r{r}");
        }
        Operand::Zero => out.push_str("#0"),
        Operand::FmaResult => out.push('t'),
        Operand::PrevFma => out.push_str("t0"),
        Operand::PrevAdd => out.push_str("t1"),
        Operand::Uniform { slot, high } => {
            let _ = write!(out, "u{slot}.w{}", u8::from(high));
        }
        Operand::Constant { index, .. } => {
            if let Some((offs, shifted)) = op.pc_relative_offset() {
                if offs & 15 != 0 {
                    return Err(DecodeError::ConstantModifier {
                        index: index.into(),
                    });
                }
                let _ = write!(out, "clause_{}", offset as i64 + offs / 16);
                if shifted {
                    out.push_str(" >> 32");
                }
                if offs == 0 {
                    out.push_str(" /* XXX: likely an infinite loop */");
                }
            } else {
                out.push_str(&const_imm(op.constant_value().unwrap_or(0)));
            }
        }
        Operand::Special { index, high } => {
            match index {
                0 => out.push_str("#0"),
                1 => out.push_str("lane_id"),
                2 => out.push_str("warp_id"),
                3 => out.push_str("core_id"),
                4 => out.push_str("framebuffer_size"),
                5 => out.push_str("atest_datum"),
                6 => out.push_str("sample"),
                8..=15 => {
                    let _ = write!(out, "blend_descriptor_{}", index - 8);
                }
                _ => {
                    let _ = write!(out, "XXX - reserved{index}");
                }
            }
            out.push_str(if high { ".y" } else { ".x" });
        }
    }
    Ok(())
}

fn write_mod(out: &mut String, instr: &Instr, i: usize) {
    let m = &instr.fields.op.mods[i];
    let opt = instr.fields.mod_name(i);
    if m.default != Some(opt) {
        out.push('.');
        out.push_str(opt);
    }
}

pub(crate) fn write_instr(
    out: &mut String,
    instr: &Instr,
    unit: Unit,
    staging: u8,
    offset: usize,
) -> Result<(), DecodeError> {
    let op = instr.fields.op;
    out.push_str("    ");
    out.push(if unit == Unit::Fma { '*' } else { '+' });
    out.push_str(op.name);
    for (i, m) in op.mods.iter().enumerate() {
        if m.src.is_none() {
            write_mod(out, instr, i);
        }
    }
    out.push(' ');
    match instr.dest {
        Some(w) => {
            let _ = write!(out, "r{}:t{}", w.reg, u8::from(unit == Unit::Add));
            match w.half {
                WriteHalf::Full => {}
                WriteHalf::Lo => out.push_str(".h0"),
                WriteHalf::Hi => out.push_str(".h1"),
            }
        }
        None => out.push_str(if unit == Unit::Fma { "t0" } else { "t1" }),
    }
    for (s, src) in instr.srcs.iter().enumerate() {
        out.push_str(", ");
        write_operand(out, src, offset)?;
        for (i, m) in op.mods.iter().enumerate() {
            if m.src == Some(s as u8) {
                write_mod(out, instr, i);
            }
        }
    }
    for (imm, v) in op.immediates.iter().zip(&instr.fields.imms) {
        let _ = write!(out, ", {}:{v}", imm.name);
    }
    if op.staging.read || op.staging.write {
        let _ = write!(out, ", @r{staging}");
    }
    out.push('\n');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_c() {
        assert_eq!(c_float(1000.0), "1000.000000");
        assert_eq!(c_float(f32::from_bits(5)), "0.000000");
        assert_eq!(c_float(-0.5), "-0.500000");
        assert_eq!(c_float(f32::INFINITY), "inf");
    }
}
