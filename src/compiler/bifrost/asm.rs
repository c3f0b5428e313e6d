//! Bifrost assembler: parses Mesa's disassembly syntax (as printed by
//! `disasm`) back into the neutral clause form of `hw::isa` and encodes it.
//!
//! The text does not name register ports, constant slots or FAU halves, so
//! the assembler makes those choices the way Mesa's scheduler and packer do
//! (reads fill ports 0, 1, 2 in source order, port 1 holds the higher
//! register; constants are merged into 64-bit pairs, pairs before singles;
//! PC-relative offsets take the high half with M1 = 4). It must never pack
//! bits itself (that is `hw::isa`'s job) and never accept text it cannot
//! reproduce: every instruction is re-printed and compared with its line.

use thiserror::Error;

use crate::hw::isa::clause::{
    ClauseHeader, EncodeError, FlowControl, PortRequest, RawClause, RegBlock, constant_fau_bits,
    constant_mods, message_type_name, rebuild_views,
};
use crate::hw::isa::opcode::{InstrFields, OpInfo, encode_instr, ops};
use crate::hw::isa::{
    ConstMod, DecodeError, DecodedClause, Instr, Operand, RegWrite, Tuple, Unit, WriteHalf,
    encode_clause,
};

use super::disasm::write_instr;

/// Why text could not be assembled.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum AsmError {
    #[error("line {line}: {msg}")]
    Syntax { line: usize, msg: String },
    #[error("clause_{clause}: {source}")]
    Encode {
        clause: usize,
        #[source]
        source: EncodeError,
    },
    #[error("clause_{clause}: {source}")]
    Decode {
        clause: usize,
        #[source]
        source: DecodeError,
    },
}

fn syntax(line: usize, msg: impl Into<String>) -> AsmError {
    AsmError::Syntax {
        line,
        msg: msg.into(),
    }
}

/// One operand as written in the text, before port/constant assignment.
#[derive(Clone, Debug, PartialEq, Eq)]
enum TextOperand {
    Reg(u8),
    Zero,
    FmaResult,
    PrevFma,
    PrevAdd,
    Uniform { slot: u8, high: bool },
    Special { index: u8, high: bool },
    Constant(u32),
    Branch(i64),
}

#[derive(Clone, Debug)]
struct TextInstr {
    line: usize,
    text: String,
    unit: Unit,
    mnemonic: String,
    dest: Option<RegWrite>,
    operands: Vec<(TextOperand, String)>,
    imms: Vec<(String, u32)>,
    staging: Option<u8>,
}

#[derive(Clone, Debug)]
struct TextClause {
    label: usize,
    header_line: usize,
    header: String,
    instrs: Vec<TextInstr>,
}

/// Parses and encodes a whole shader listing. Clause labels must be the
/// quadword offsets the encoded clauses end up at.
pub fn assemble(text: &str) -> Result<Vec<u8>, AsmError> {
    let mut out = Vec::new();
    for clause in assemble_clauses(text)? {
        let (label, c) = clause;
        if out.len() != label * 16 {
            return Err(syntax(
                0,
                format!("clause_{label} would start at quadword {}", out.len() / 16),
            ));
        }
        out.extend(encode_clause(&c).map_err(|source| AsmError::Encode {
            clause: label,
            source,
        })?);
    }
    Ok(out)
}

/// Parses a listing into (label, neutral clause) pairs.
pub fn assemble_clauses(text: &str) -> Result<Vec<(usize, DecodedClause)>, AsmError> {
    parse_listing(text)?
        .into_iter()
        .map(|tc| Ok((tc.label, build_clause(&tc)?)))
        .collect()
}

fn parse_listing(text: &str) -> Result<Vec<TextClause>, AsmError> {
    let mut clauses = Vec::new();
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l)).peekable();
    while let Some((n, line)) = lines.next() {
        let line_t = line.trim_end();
        if line_t.is_empty() || line_t.trim_start().starts_with('#') {
            continue;
        }
        let label = line_t
            .strip_prefix("clause_")
            .and_then(|s| s.strip_suffix(':'))
            .and_then(|s| s.parse::<usize>().ok())
            .ok_or_else(|| syntax(n, "expected clause_N:"))?;
        let (hn, header) = next_content(&mut lines).ok_or_else(|| syntax(n, "missing header"))?;
        let (bn, brace) = next_content(&mut lines).ok_or_else(|| syntax(hn, "missing {"))?;
        if brace.trim() != "{" {
            return Err(syntax(bn, "expected {"));
        }
        let mut instrs = Vec::new();
        loop {
            let (ln, l) = next_content(&mut lines).ok_or_else(|| syntax(bn, "missing }"))?;
            let t = l.trim();
            if t == "}" {
                break;
            }
            instrs.push(parse_instr(ln, t)?);
        }
        clauses.push(TextClause {
            label,
            header_line: hn,
            header: header.to_string(),
            instrs,
        });
    }
    Ok(clauses)
}

fn next_content<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
) -> Option<(usize, &'a str)> {
    lines.find(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
}

fn parse_reg(s: &str) -> Option<u8> {
    s.strip_prefix('r')?.parse().ok().filter(|r| *r < 64)
}

fn parse_instr(line: usize, t: &str) -> Result<TextInstr, AsmError> {
    let unit = match t.chars().next() {
        Some('*') => Unit::Fma,
        Some('+') => Unit::Add,
        _ => return Err(syntax(line, "instruction must start with * or +")),
    };
    let body = &t[1..];
    let (mnemonic, rest) = body.split_once(' ').unwrap_or((body, ""));
    let mut parts = rest.split(", ");
    let dest_text = parts.next().unwrap_or("");
    let dest = parse_dest(dest_text, unit).ok_or_else(|| syntax(line, "bad destination"))?;
    let mut operands = Vec::new();
    let mut imms = Vec::new();
    let mut staging = None;
    for p in parts {
        if let Some(r) = p.strip_prefix('@') {
            staging = Some(parse_reg(r).ok_or_else(|| syntax(line, "bad staging register"))?);
        } else if let Some((name, v)) = p
            .split_once(':')
            .filter(|(n, v)| !n.contains(' ') && !n.starts_with("0x") && v.parse::<u32>().is_ok())
        {
            imms.push((name.to_string(), v.parse().unwrap_or(0)));
        } else {
            operands
                .push(parse_operand(p).ok_or_else(|| syntax(line, format!("bad operand {p:?}")))?);
        }
    }
    Ok(TextInstr {
        line,
        text: t.to_string(),
        unit,
        mnemonic: mnemonic.to_string(),
        dest,
        operands,
        imms,
        staging,
    })
}

fn parse_dest(s: &str, unit: Unit) -> Option<Option<RegWrite>> {
    let own = if unit == Unit::Fma { "t0" } else { "t1" };
    if s == own {
        return Some(None);
    }
    let (reg, rest) = s.split_once(':')?;
    let reg = parse_reg(reg)?;
    let half = match rest.strip_prefix(own)? {
        "" => WriteHalf::Full,
        ".h0" => WriteHalf::Lo,
        ".h1" => WriteHalf::Hi,
        _ => return None,
    };
    Some(Some(RegWrite { reg, half }))
}

const SPECIALS: [(&str, u8); 7] = [
    ("#0", 0),
    ("lane_id", 1),
    ("warp_id", 2),
    ("core_id", 3),
    ("framebuffer_size", 4),
    ("atest_datum", 5),
    ("sample", 6),
];

/// Splits an operand into its base and the modifier suffix (".a.b").
fn parse_operand(s: &str) -> Option<(TextOperand, String)> {
    if let Some(hex) = s.strip_prefix("0x") {
        let value = u32::from_str_radix(hex.get(..8)?, 16).ok()?;
        let rest = &hex[8..];
        let rest = match rest.strip_prefix(" /* ") {
            Some(r) => &r[r.find(" */")? + 3..],
            None => rest,
        };
        return Some((TextOperand::Constant(value), rest.to_string()));
    }
    if let Some(n) = s.strip_prefix("clause_") {
        let end = n.find(|c: char| !c.is_ascii_digit()).unwrap_or(n.len());
        let target: i64 = n[..end].parse().ok()?;
        let mut rest = &n[end..];
        if rest.starts_with(" >> 32") {
            return None; // PC_LO with the high half: Mesa never emits it.
        }
        if let Some(r) = rest.strip_prefix(" /* XXX: likely an infinite loop */") {
            rest = r;
        }
        return Some((TextOperand::Branch(target), rest.to_string()));
    }
    for (name, index) in SPECIALS {
        if let Some(r) = s.strip_prefix(name) {
            if let Some(r2) = r.strip_prefix(".x") {
                return Some((TextOperand::Special { index, high: false }, r2.to_string()));
            }
            if let Some(r2) = r.strip_prefix(".y") {
                return Some((TextOperand::Special { index, high: true }, r2.to_string()));
            }
        }
    }
    if let Some(r) = s.strip_prefix("blend_descriptor_") {
        let d = r.get(..1)?.parse::<u8>().ok()?;
        let high = match r.get(1..3)? {
            ".x" => false,
            ".y" => true,
            _ => return None,
        };
        return Some((
            TextOperand::Special { index: 8 + d, high },
            r[3..].to_string(),
        ));
    }
    let (base, rest) = match s.find('.') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let op = match base {
        "#0" => TextOperand::Zero,
        "t" => TextOperand::FmaResult,
        "t0" => TextOperand::PrevFma,
        "t1" => TextOperand::PrevAdd,
        _ if base.starts_with('u') => {
            let slot: u8 = base[1..].parse().ok().filter(|s| *s < 128)?;
            let high = match rest.get(..3)? {
                ".w0" => false,
                ".w1" => true,
                _ => return None,
            };
            return Some((TextOperand::Uniform { slot, high }, rest[3..].to_string()));
        }
        _ => TextOperand::Reg(parse_reg(base)?),
    };
    Some((op, rest.to_string()))
}

fn parse_header(line: usize, text: &str) -> Result<ClauseHeader, AsmError> {
    let mut h = ClauseHeader::default();
    let mut rest = text.trim();
    let ds = rest
        .strip_prefix("ds(")
        .and_then(|r| r.split_once(')'))
        .ok_or_else(|| syntax(line, "expected ds(N)"))?;
    h.dependency_slot = ds.0.parse().map_err(|_| syntax(line, "bad ds"))?;
    rest = ds.1.trim_start();
    // dwb(...) may contain spaces: cut it off first.
    if let Some(i) = rest.find("dwb(") {
        let inner = &rest[i + 4..];
        let end = inner.find(')').ok_or_else(|| syntax(line, "bad dwb"))?;
        for slot in inner[..end].split(',') {
            let s: u8 = slot
                .trim()
                .parse()
                .map_err(|_| syntax(line, "bad dwb slot"))?;
            if s > 7 {
                return Err(syntax(line, "bad dwb slot"));
            }
            h.dependency_wait |= 1 << s;
        }
        rest = &rest[..i];
    }
    let mut words: Vec<&str> = rest.split_whitespace().collect();
    // Flow control is one or two words.
    let mut flow = None;
    for f in FlowControl::ALL {
        let name: Vec<&str> = f.name().split(' ').collect();
        let at = if words.first() == Some(&"osrb") { 1 } else { 0 };
        if words.len() >= at + name.len() && words[at..at + name.len()] == name[..] {
            let better = flow.is_none_or(|(_, l)| name.len() > l);
            if better {
                flow = Some((f, name.len()));
            }
        }
    }
    let (flow, flow_len) = flow.ok_or_else(|| syntax(line, "missing flow control"))?;
    h.flow_control = flow as u8;
    let at = if words.first() == Some(&"osrb") {
        h.staging_barrier = true;
        1
    } else {
        0
    };
    words.drain(..at + flow_len);
    for w in words {
        match w {
            "inf_suppress" => h.suppress_inf = true,
            "nan_suppress" => h.suppress_nan = true,
            "ftz_dx11" => h.flush_to_zero = 1,
            "ftz_hsa" => h.flush_to_zero = 2,
            "ftz_au" => h.flush_to_zero = 3,
            "fpe_ts" => h.float_exceptions = 1,
            "fpe_pd" => h.float_exceptions = 2,
            "fpe_psqr" => h.float_exceptions = 3,
            "td" => h.terminate_discarded_threads = true,
            "ncph" => h.next_clause_prefetch = true,
            _ => {
                if let Some(n) = w.strip_prefix("next_") {
                    h.next_message_type = message_type(n).ok_or_else(|| syntax(line, w))?;
                } else {
                    h.message_type = message_type(w).ok_or_else(|| syntax(line, w))?;
                }
            }
        }
    }
    Ok(h)
}

fn message_type(name: &str) -> Option<u8> {
    (1..16).find(|&v| message_type_name(v) == name)
}

// ---------------------------------------------------------------------------
// Constants, the way Mesa's scheduler merges them

#[derive(Clone, Copy, Debug, Default)]
struct TupleConsts {
    count: usize,
    values: [u32; 2],
    pcrel: bool,
    word: usize,
}

fn merge_u32(c0: u32, c1: u32, pcrel: bool) -> u64 {
    let hi = if pcrel { 0 } else { c0.max(c1) };
    let lo = if c0 == hi { c1 } else { c0 };
    u64::from(lo) | (u64::from(hi) << 32)
}

/// Returns (pairs, pcrel pair index).
fn merge_constants(consts: &mut [TupleConsts]) -> (Vec<u64>, Option<usize>) {
    let mut pairs: Vec<u64> = Vec::new();
    let mut pcrel_pair: Option<usize> = None;
    for t in consts.iter_mut().filter(|t| t.count == 2) {
        let val = merge_u32(t.values[0], t.values[1], t.pcrel);
        let found = (0..pairs.len()).find(|&s| pairs[s] == val && pcrel_pair != Some(s));
        t.word = match found {
            Some(s) => s,
            None => {
                pairs.push(val);
                if t.pcrel {
                    pcrel_pair = Some(pairs.len() - 1);
                }
                pairs.len() - 1
            }
        };
    }
    let mut pending: Option<(u32, bool)> = None;
    for t in consts.iter_mut().filter(|t| t.count == 1) {
        let val = t.values[0];
        // Pairs formed from earlier singles count as well.
        let found = (0..pairs.len()).find(|&i| {
            let hit = pairs[i] as u32 == val || (pairs[i] >> 32) as u32 == val;
            hit && pcrel_pair != Some(i) && !t.pcrel
        });
        t.word = match found {
            Some(i) => i,
            None => {
                let idx = pairs.len();
                match pending {
                    Some((p, p_pcrel)) if p != val => {
                        let pcrel = p_pcrel || t.pcrel;
                        if pcrel {
                            pcrel_pair = Some(idx);
                        }
                        pairs.push(merge_u32(p, val, pcrel));
                        pending = None;
                    }
                    _ => pending = Some((val, t.pcrel)),
                }
                idx
            }
        };
    }
    if let Some((p, p_pcrel)) = pending {
        if p_pcrel {
            pcrel_pair = Some(pairs.len());
        }
        pairs.push(u64::from(p) << 32);
    }
    (pairs, pcrel_pair)
}

fn swap_constants(consts: &mut [TupleConsts], pairs: &mut [u64], i: usize) {
    pairs.swap(i, i + 1);
    for t in consts.iter_mut() {
        if t.word == i {
            t.word = i + 1;
        } else if t.word == i + 1 {
            t.word = i;
        }
    }
}

fn apply_constant_modifiers(
    consts: &mut [TupleConsts],
    pairs: &mut Vec<u64>,
    pcrel: &mut Option<usize>,
    tuple_count: usize,
) -> usize {
    let packed = matches!(tuple_count, 3 | 5 | 6 | 8);
    let mut count = pairs.len();
    pairs.resize(9, 0);
    if *pcrel == Some(0) && matches!(tuple_count, 5 | 8) {
        count = count.max(2);
        *pcrel = Some(1);
        swap_constants(consts, pairs, 0);
    }
    let mut i = usize::from(packed);
    while i < count {
        let last = i + 1 == count;
        let a1 = pairs[i] >> 60;
        let b1 = pairs[i + 1] >> 60;
        let mut swap;
        if let Some(p) = *pcrel
            && (p == i || p == i + 1)
        {
            swap = p == i + 1;
            let b = if swap { a1 } else { b1 };
            let a = (b + 4) & 0xf;
            pairs[p] |= a << 60;
            *pcrel = Some(i);
        } else {
            let m1 = (16 + a1 - b1) & 0xf;
            swap = m1 != 0 && m1 < 8;
            if last && swap {
                pairs[i + 1] |= pairs[i] & (0xf << 60);
                swap = false;
            }
        }
        if swap {
            swap_constants(consts, pairs, i);
        }
        i += 2;
    }
    count
}

// ---------------------------------------------------------------------------
// Building one clause

struct TupleText<'a> {
    fma: &'a TextInstr,
    add: &'a TextInstr,
}

fn build_clause(tc: &TextClause) -> Result<DecodedClause, AsmError> {
    let mut header = parse_header(tc.header_line, &tc.header)?;
    if tc.instrs.is_empty() || !tc.instrs.len().is_multiple_of(2) || tc.instrs.len() > 16 {
        return Err(syntax(tc.header_line, "a clause needs 1 to 8 (*, +) pairs"));
    }
    let tuples: Vec<TupleText> = tc
        .instrs
        .chunks(2)
        .map(|p| TupleText {
            fma: &p[0],
            add: &p[1],
        })
        .collect();
    for t in &tuples {
        if t.fma.unit != Unit::Fma || t.add.unit != Unit::Add {
            return Err(syntax(t.fma.line, "expected a * line then a + line"));
        }
    }
    let n = tuples.len();
    if let Some(r) = tc.instrs.iter().find_map(|i| i.staging) {
        header.staging_register = r;
    }

    // Constants per tuple.
    let mut consts = vec![TupleConsts::default(); n];
    for (t, tt) in tuples.iter().enumerate() {
        let c = &mut consts[t];
        let mut others = Vec::new();
        for (op, _) in tt.fma.operands.iter().chain(&tt.add.operands) {
            match *op {
                TextOperand::Branch(_) => c.pcrel = true,
                TextOperand::Constant(v) if !others.contains(&v) => others.push(v),
                _ => {}
            }
        }
        let mut values = Vec::new();
        if c.pcrel {
            values.push(0);
        }
        values.extend(others);
        if values.len() > 2 {
            return Err(syntax(tt.fma.line, "more than two constants in a tuple"));
        }
        c.count = values.len();
        for (i, v) in values.iter().enumerate() {
            c.values[i] = *v;
        }
    }
    let (mut pairs, mut pcrel) = merge_constants(&mut consts);
    let count = apply_constant_modifiers(&mut consts, &mut pairs, &mut pcrel, n);
    let packed = matches!(n, 3 | 5 | 6 | 8);
    let count = if packed { count.max(1) } else { count };
    let quads = (count - usize::from(packed)).div_ceil(2);
    let total = usize::from(packed) + 2 * quads;
    pairs.resize(total.max(9), 0);

    // Branch offsets go into the high half of the PC-relative pair.
    let mut branch: Option<i64> = None;
    for tt in &tuples {
        for (op, _) in tt.fma.operands.iter().chain(&tt.add.operands) {
            if let TextOperand::Branch(target) = *op {
                branch = Some(target);
            }
        }
    }
    if let (Some(target), Some(p)) = (branch, pcrel) {
        let bytes = (target - tc.label as i64) * 16;
        pairs[p] |= u64::from((bytes as u32) & 0x0fff_ffff) << 32;
    }
    let m_field: u16 = if matches!(n, 3 | 6) && pcrel == Some(0) {
        4
    } else {
        0
    };
    // Stored constants drop their low 4 bits: every user's FAU index supplies them.
    let stored: Vec<u64> = pairs[..total].iter().map(|c| c & !0xf).collect();
    let const_mods = constant_mods(&RawClause {
        header: 0,
        tuples: vec![0; n],
        constants: stored.clone(),
        m_field,
        quadwords: 0,
    })
    .map_err(|source| AsmError::Decode {
        clause: tc.label,
        source,
    })?;

    // Per tuple: FAU index, register ports, selectors.
    let mut decoded_tuples = Vec::with_capacity(n);
    for (t, tt) in tuples.iter().enumerate() {
        let mut fau: Option<u8> = None;
        let c = &consts[t];
        let mut set_fau = |v: u8, line: usize| -> Result<(), AsmError> {
            match fau {
                Some(f) if f != v => Err(syntax(line, "two FAU slots in one tuple")),
                _ => {
                    fau = Some(v);
                    Ok(())
                }
            }
        };
        let pair = if c.count > 0 { pairs[c.word] } else { 0 };
        for instr in [tt.fma, tt.add] {
            for (op, _) in &instr.operands {
                match *op {
                    TextOperand::Uniform { slot, .. } => set_fau(0x80 | slot, instr.line)?,
                    TextOperand::Special { index, .. } => set_fau(index, instr.line)?,
                    TextOperand::Constant(_) | TextOperand::Branch(_) => {
                        let field = constant_fau_bits(c.word)
                            .ok_or_else(|| syntax(instr.line, "too many constants"))?;
                        set_fau((field << 4) | (pair as u8 & 0xf), instr.line)?;
                    }
                    _ => {}
                }
            }
        }
        // +ATEST reads the ATEST datum through the FAU as a source the
        // listing does not print.
        if fau.is_none() && tt.add.mnemonic == "ATEST" {
            fau = Some(5);
        }
        // Register reads in source order: FMA then ADD.
        let mut reads: Vec<u8> = Vec::new();
        for instr in [tt.fma, tt.add] {
            for (op, _) in &instr.operands {
                if let TextOperand::Reg(r) = *op
                    && !reads.contains(&r)
                {
                    reads.push(r);
                }
            }
        }
        if reads.len() > 3 {
            return Err(syntax(tt.fma.line, "more than three registers read"));
        }
        let mut two: Vec<u8> = reads.iter().copied().take(2).collect();
        two.sort_unstable();
        let prev = &tuples[(t + n - 1) % n];
        let req = PortRequest {
            port0: two.first().copied(),
            port1: two.get(1).copied(),
            read2: reads.get(2).copied(),
            write_fma: prev.fma.dest.map(|w| (w.reg, w.half)),
            write_add: prev.add.dest.map(|w| (w.reg, w.half)),
            fau_idx: fau.unwrap_or(0),
        };
        let regs: RegBlock = req
            .pack(t == 0)
            .ok_or_else(|| syntax(tt.fma.line, format!("no port assignment for {req:?}")))?;
        let selector = |op: &TextOperand, unit: Unit| -> Option<u8> {
            Some(match *op {
                TextOperand::Reg(r) => {
                    if req.port0 == Some(r) {
                        0
                    } else if req.port1 == Some(r) {
                        1
                    } else {
                        2
                    }
                }
                TextOperand::Zero if unit == Unit::Fma => 3,
                TextOperand::FmaResult if unit == Unit::Add => 3,
                TextOperand::PrevFma => 6,
                TextOperand::PrevAdd => 7,
                TextOperand::Uniform { high, .. } | TextOperand::Special { high, .. } => {
                    4 + u8::from(high)
                }
                TextOperand::Branch(_) => 5,
                TextOperand::Constant(v) => {
                    if c.word == pcrel.unwrap_or(usize::MAX) || (pair >> 32) as u32 != v {
                        4
                    } else {
                        5
                    }
                }
                _ => return None,
            })
        };
        let mut instrs = Vec::with_capacity(2);
        for instr in [tt.fma, tt.add] {
            let selectors = instr
                .operands
                .iter()
                .map(|(op, _)| selector(op, instr.unit))
                .collect::<Option<Vec<u8>>>()
                .ok_or_else(|| syntax(instr.line, "operand not allowed on this unit"))?;
            instrs.push(choose_op(
                instr,
                selectors,
                header.staging_register,
                tc.label,
                &regs,
                &stored,
                &const_mods,
            )?);
        }
        let add = instrs.pop().expect("two");
        let fma = instrs.pop().expect("two");
        decoded_tuples.push(Tuple {
            regs,
            ports: regs
                .ports(t == 0)
                .ok_or_else(|| syntax(tt.fma.line, "reserved register mode"))?,
            fma,
            add,
        });
    }
    let mut clause = DecodedClause {
        header,
        tuples: decoded_tuples,
        constants: stored,
        const_mods: Vec::new(),
        m_field,
    };
    rebuild_views(&mut clause).map_err(|source| AsmError::Decode {
        clause: tc.label,
        source,
    })?;
    // Check every instruction prints back as written.
    for (t, tt) in tuples.iter().enumerate() {
        for (instr, text) in [
            (&clause.tuples[t].fma, tt.fma),
            (&clause.tuples[t].add, tt.add),
        ] {
            let mut s = String::new();
            write_instr(
                &mut s,
                instr,
                text.unit,
                clause.header.staging_register,
                tc.label,
            )
            .map_err(|source| AsmError::Decode {
                clause: tc.label,
                source,
            })?;
            if s.trim() != text.text {
                return Err(syntax(text.line, format!("reassembled as {:?}", s.trim())));
            }
        }
    }
    Ok(clause)
}

/// Parses the `.a.b` modifier suffixes for the given modifiers, in order.
fn parse_mods(op: &OpInfo, which: Option<u8>, suffix: &str, mods: &mut [u8]) -> Option<()> {
    let mut words = suffix.split('.').filter(|w| !w.is_empty()).peekable();
    for (i, m) in op.mods.iter().enumerate() {
        if m.src != which {
            continue;
        }
        let default = m.default.and_then(|d| m.opts.iter().position(|o| *o == d));
        let next = words.peek().copied();
        let hit = next.and_then(|w| {
            m.opts
                .iter()
                .position(|o| *o == w && Some(*o) != m.default && *o != "reserved")
        });
        match (hit, default) {
            (Some(v), _) => {
                mods[i] = v as u8;
                words.next();
            }
            (None, Some(d)) => mods[i] = d as u8,
            (None, None) => return None,
        }
    }
    words.next().is_none().then_some(())
}

fn choose_op(
    instr: &TextInstr,
    selectors: Vec<u8>,
    staging: u8,
    offset: usize,
    regs: &RegBlock,
    constants: &[u64],
    const_mods: &[ConstMod],
) -> Result<Instr, AsmError> {
    for op in ops(instr.unit) {
        let Some(suffix) = instr.mnemonic.strip_prefix(op.name) else {
            continue;
        };
        if !(suffix.is_empty() || suffix.starts_with('.')) || op.srcs.len() != instr.operands.len()
        {
            continue;
        }
        let mut mods = vec![0u8; op.mods.len()];
        if parse_mods(op, None, suffix, &mut mods).is_none() {
            continue;
        }
        if instr
            .operands
            .iter()
            .enumerate()
            .any(|(i, (_, sfx))| parse_mods(op, Some(i as u8), sfx, &mut mods).is_none())
        {
            continue;
        }
        let Some(imms) = op
            .immediates
            .iter()
            .map(|f| {
                instr
                    .imms
                    .iter()
                    .find(|(n, _)| n == f.name)
                    .map(|(_, v)| *v)
            })
            .collect::<Option<Vec<u32>>>()
        else {
            continue;
        };
        if imms.len() != instr.imms.len()
            || (op.staging.read || op.staging.write) != instr.staging.is_some()
        {
            continue;
        }
        let fields = InstrFields {
            op,
            selectors: selectors.clone(),
            mods,
            imms,
        };
        if encode_instr(&fields).is_err() {
            continue;
        }
        let srcs: Option<Vec<Operand>> = fields
            .selectors
            .iter()
            .map(|&s| crate::hw::isa::clause::resolve(s, instr.unit, regs, constants, const_mods))
            .collect();
        let Some(srcs) = srcs else { continue };
        let candidate = Instr {
            fields,
            srcs,
            dest: instr.dest,
        };
        let mut s = String::new();
        if write_instr(&mut s, &candidate, instr.unit, staging, offset).is_ok()
            && s.trim() == instr.text
        {
            return Ok(candidate);
        }
    }
    Err(syntax(
        instr.line,
        format!("no encoding for {:?}", instr.text),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::bifrost::disasm::disassemble;
    use proptest::prelude::*;

    const LOOP_HEAD: &str = "clause_0:
ds(0) nbb r_uncond ncph 
{
    *NOP t0
    +ICMP.u32.m1.gt t1, u3.w1, r1
    *NOP t0
    +BRANCHZ.i16.eq t1, t1.h0, clause_5
}

clause_3:
ds(0) eos store 
{
    *NOP t0
    +IADD.s32 r0:t1, r2, r0
    *NOP t0
    +ICMP.u32.gt t1, r2, t1
    *NOP t0
    +IADD.s32 t1, t1, r3
    *NOP t0
    +STORE.i32 t1, r0, t1, @r1
}

";

    #[test]
    fn assembles_and_prints_back() {
        let code = assemble(LOOP_HEAD).unwrap();
        assert_eq!(disassemble(&code).unwrap(), LOOP_HEAD);
    }

    #[test]
    fn wrong_label_is_an_error() {
        let text = LOOP_HEAD.replace("clause_3:", "clause_4:");
        assert!(assemble(&text).is_err());
    }

    #[test]
    fn unknown_mnemonic_is_an_error() {
        let text = LOOP_HEAD.replace("+IADD.s32 t1, t1, r3", "+IADD.bogus t1, t1, r3");
        assert!(matches!(assemble(&text), Err(AsmError::Syntax { .. })));
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC{0,200}") {
            let _ = assemble(&s);
        }

        #[test]
        fn mutated_listings_never_panic(at in 0usize..600, insert in "[ -~]{0,6}") {
            let mut text = LOOP_HEAD.to_string();
            let at = at.min(text.len());
            if text.is_char_boundary(at) {
                text.insert_str(at, &insert);
            }
            let _ = assemble(&text);
        }
    }
}
