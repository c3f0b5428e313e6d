//! Per-instruction semantics of the simulated shader core: ALU operations
//! keyed by the ISA table's mnemonic and modifiers, branch decisions, and
//! the hand-off of message instructions to [`super::message`].
//!
//! An instruction is "prepared" once per decoded clause ([`prepare`]: the
//! mnemonic becomes an [`Op`], the modifiers a few flags) and evaluated per
//! lane ([`eval`]). Source modifiers follow their ISA names: `negN`/`absN`
//! on float sources, `widenN`/`laneN`/`lanesN`/`swzN` select a 16- or 8-bit
//! part of a source, `clamp`/`round` shape float results, `cmpf` and
//! `result_type` drive comparisons.
//!
//! Instructions the simulator does not model are refused when the clause is
//! prepared (INSTR_INVALID_ENC fault naming the clause), never guessed at.
//! This module must never touch memory itself (messages go through
//! `message`, which goes through the MMU) and never panic on any operand.

use super::message;
use super::warp::{Lane, LaneCtx};
use super::{CachedClause, Core, fault, status};
use crate::hw::isa::{InstrFields, Operand, RegWrite};
use crate::kmod::sim::jobs::JobFault;

/// Operation families the core implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Nop,
    Mov,
    // Float arithmetic.
    Fma,
    Fadd,
    Fmin,
    Fmax,
    Fcmp,
    Fround,
    Frcp,
    Frsq,
    FmaRscale,
    FaddLscale,
    Frexpe,
    Frexpm,
    Flogd,
    Fexp,
    FsinTable,
    FcosTable,
    // Integer arithmetic.
    Iadd,
    Isub,
    Imul,
    Iabs,
    Icmp,
    Clz,
    Popcount,
    Bitrev,
    LshiftOr,
    LshiftAnd,
    LshiftXor,
    RshiftOr,
    RshiftAnd,
    RshiftXor,
    Arshift,
    // Selects.
    CselF32,
    CselI32,
    CselS32,
    CselU32,
    Mux,
    // Conversions and packing.
    U16ToU32,
    S16ToS32,
    U8ToU32,
    S8ToS32,
    U32ToF32,
    S32ToF32,
    F32ToU32,
    F32ToS32,
    U16ToF32,
    S16ToF32,
    U8ToF32,
    S8ToF32,
    F16ToF32,
    V2F32ToV2F16,
    MkvecV2i16,
    MkvecV4i8,
    // Control flow (ADD unit, last in a clause).
    Branchz,
    Jump,
    Ldexp,
    // FMA-side halves of atomics (the ADD unit's ATOM_CX does the access).
    AtomC,
    AtomPost,
    /// `SEG_ADD`: a segment offset → a global address, FMA half the low
    /// word, ADD half the high word.
    SegAdd,
    /// A message instruction (ADD unit), see `super::message`.
    Message,
    /// `DTSEL_IMM` (FMA unit): its source unchanged; the same tuple's ADD
    /// message reads the table it selects (`super::image::table_of`).
    Dtsel,
    /// `CLPER.i32` / `CLPER_OLD.i32` (ADD unit): source 0 as another lane
    /// of the warp reads it (see [`clper_source_lane`]).
    Clper,
    ClperOld,
    /// `DISCARD.f32` (ADD unit, fragment jobs): when `cmpf` holds between
    /// its two sources, the thread is marked discarded
    /// ([`Effects::discard`]); a later clause whose header has
    /// `terminate discarded threads` ends it (`warp`).
    Discard,
}

/// An instruction ready to evaluate.
pub struct Prepared {
    pub op: Op,
    pub name: &'static str,
    pub srcs: Vec<Operand>,
    pub dest: Option<RegWrite>,
    pub fields: InstrFields,
    pub nop: bool,
    pub neg: [bool; 4],
    pub abs: [bool; 4],
    /// widen/lane/lanes/swz option per source ("" when none).
    pub part: [&'static str; 4],
    pub clamp: &'static str,
    pub round: &'static str,
    pub cmpf: Cmp,
    pub result_type: &'static str,
    pub not1: bool,
    pub not_result: bool,
    /// `saturate` = sat (IADD/ISUB).
    pub saturate: bool,
    /// `sem` = nan_propagate (FMIN/FMAX).
    pub nan_propagate: bool,
    /// `extend` = sext (IMUL, LOAD).
    pub sext: bool,
    /// `mux` option (MUX), `seg` option (LOAD/STORE).
    pub mux: &'static str,
    pub seg: &'static str,
    /// Signed integer variant (name ends in s32/s16).
    pub signed: bool,
    /// LOAD/STORE access size in bytes.
    pub access_bytes: usize,
}

fn op_of(name: &str) -> Option<Op> {
    use Op::*;
    let base = name.split('.').next().unwrap_or(name);
    Some(match name {
        "NOP" => Nop,
        "MOV.i32" => Mov,
        "FMA.f32" => Fma,
        "FADD.f32" => Fadd,
        "FMIN.f32" => Fmin,
        "FMAX.f32" => Fmax,
        "FCMP.f32" => Fcmp,
        "FROUND.f32" => Fround,
        "FRCP.f32" | "FRCP_APPROX.f32" => Frcp,
        "FRSQ.f32" | "FRSQ_APPROX.f32" => Frsq,
        "FMA_RSCALE.f32" => FmaRscale,
        "FADD_LSCALE.f32" => FaddLscale,
        "FREXPE.f32" => Frexpe,
        "FREXPM.f32" => Frexpm,
        "FLOGD.f32" => Flogd,
        "FEXP.f32" => Fexp,
        "FSIN_TABLE.u6" => FsinTable,
        "FCOS_TABLE.u6" => FcosTable,
        "IADD.s32" | "IADD.u32" => Iadd,
        "ISUB.s32" | "ISUB.u32" => Isub,
        "IMUL.i32" => Imul,
        "IABS.s32" => Iabs,
        "ICMP.i32" | "ICMP.s32" | "ICMP.u32" | "ICMPI.i32" | "ICMPI.s32" | "ICMPI.u32" => Icmp,
        "CLZ.u32" => Clz,
        "POPCOUNT.i32" => Popcount,
        "BITREV.i32" => Bitrev,
        "LSHIFT_OR.i32" => LshiftOr,
        "LSHIFT_AND.i32" => LshiftAnd,
        "LSHIFT_XOR.i32" => LshiftXor,
        "RSHIFT_OR.i32" => RshiftOr,
        "RSHIFT_AND.i32" => RshiftAnd,
        "RSHIFT_XOR.i32" => RshiftXor,
        "ARSHIFT.i32" => Arshift,
        "CSEL.f32" => CselF32,
        "CSEL.i32" => CselI32,
        "CSEL.s32" => CselS32,
        "CSEL.u32" => CselU32,
        "MUX.i32" => Mux,
        "U16_TO_U32" => U16ToU32,
        "S16_TO_S32" => S16ToS32,
        "U8_TO_U32" => U8ToU32,
        "S8_TO_S32" => S8ToS32,
        "U32_TO_F32" => U32ToF32,
        "S32_TO_F32" => S32ToF32,
        "F32_TO_U32" => F32ToU32,
        "F32_TO_S32" => F32ToS32,
        "U16_TO_F32" => U16ToF32,
        "S16_TO_F32" => S16ToF32,
        "U8_TO_F32" => U8ToF32,
        "S8_TO_F32" => S8ToF32,
        "F16_TO_F32" => F16ToF32,
        "V2F32_TO_V2F16" => V2F32ToV2F16,
        "MKVEC.v2i16" => MkvecV2i16,
        "MKVEC.v4i8" => MkvecV4i8,
        "BRANCHZ.i16" | "BRANCHZ.i32" | "BRANCHZ.s16" | "BRANCHZ.s32" | "BRANCHZ.u16"
        | "BRANCHZ.u32" | "BRANCHZ.f32" => Branchz,
        "JUMP" => Jump,
        "LDEXP.f32" => Ldexp,
        "ATOM_C.i32" | "ATOM_C_RETURN.i32" | "ATOM_C1.i32" | "ATOM_C1_RETURN.i32" => AtomC,
        "ATOM_POST.i32" => AtomPost,
        "SEG_ADD" => SegAdd,
        "DTSEL_IMM" => Dtsel,
        "CLPER.i32" => Clper,
        "CLPER_OLD.i32" => ClperOld,
        "DISCARD.f32" => Discard,
        _ if message::supported(name) => Message,
        _ => {
            let _ = base;
            return None;
        }
    })
}

/// Prepares one decoded instruction; unsupported ones fault (naming `clause_va`).
pub fn prepare(instr: &crate::hw::isa::Instr, clause_va: u64) -> Result<Prepared, JobFault> {
    let name = instr.name();
    let op = op_of(name).ok_or_else(|| {
        log::error!("sim shader: instruction {name} (clause {clause_va:#x}) is not simulated");
        fault(status::INSTR_INVALID_ENC, clause_va)
    })?;
    let f = &instr.fields;
    let get = |m: &str| f.modifier(m).unwrap_or("");
    let mut p = Prepared {
        op,
        name,
        srcs: instr.srcs.clone(),
        dest: instr.dest,
        fields: f.clone(),
        nop: instr.is_nop(),
        neg: [false; 4],
        abs: [false; 4],
        part: [""; 4],
        clamp: get("clamp"),
        round: get("round"),
        cmpf: Cmp::from_name(get("cmpf")),
        result_type: get("result_type"),
        not1: get("not1") == "not",
        not_result: get("not_result") == "not",
        saturate: get("saturate") == "sat",
        nan_propagate: get("sem") == "nan_propagate",
        sext: get("extend") == "sext",
        mux: f.modifier("mux").unwrap_or("int_zero"),
        seg: f.modifier("seg").unwrap_or("none"),
        signed: name.ends_with("s32") || name.ends_with("s16"),
        access_bytes: message::width_bytes(name),
    };
    if op == Op::Clper
        && !(matches!(get("lane_op"), "none" | "xor")
            && matches!(get("subgroup"), "subgroup2" | "subgroup4" | "subgroup8")
            && get("inactive_result") == "zero")
    {
        // The ISA description names the other lane ops (accumulate, shift)
        // and inactive results without defining them: not guessed at.
        log::error!(
            "sim shader: CLPER.i32 with lane_op {}, {}, inactive_result {} (clause {clause_va:#x}) is not simulated",
            get("lane_op"),
            get("subgroup"),
            get("inactive_result")
        );
        return Err(fault(status::INSTR_INVALID_ENC, clause_va));
    }
    for i in 0..4 {
        p.neg[i] = get(["neg0", "neg1", "neg2", "neg3"][i]) == "neg";
        p.abs[i] = get(["abs0", "abs1", "abs2", "abs3"][i]) == "abs";
        const PARTS: [[&str; 4]; 4] = [
            ["widen0", "widen1", "widen2", "widen3"],
            ["lane0", "lane1", "lane2", "lane3"],
            ["lanes0", "lanes1", "lanes2", "lanes3"],
            ["swz0", "swz1", "swz2", "swz3"],
        ];
        for names in PARTS {
            if let Some(v) = f.modifier(names[i]) {
                p.part[i] = v;
            }
        }
    }
    Ok(p)
}

/// What evaluating one instruction produced besides its value.
#[derive(Clone, Copy, Debug, Default)]
pub struct Effects {
    /// Branch taken to this address.
    pub branch: Option<u64>,
    /// The lane reached a workgroup barrier.
    pub barrier: bool,
    /// A `DISCARD.f32` whose condition held: the thread is discarded.
    pub discard: bool,
}

/// Reads a source operand's 32 bits.
pub fn read_src(
    core: &Core<'_>,
    op: &Operand,
    lane: &Lane,
    ctx: &LaneCtx,
    t: (u32, u32, u32),
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    let (t0, t1, fma) = t;
    Ok(match *op {
        Operand::Reg(r) => lane.regs[(r & 63) as usize],
        Operand::Zero => 0,
        Operand::FmaResult => fma,
        Operand::PrevFma => t0,
        Operand::PrevAdd => t1,
        Operand::Uniform { slot, high } => {
            let w = super::fau::uniform(&core.program.fau, slot).ok_or_else(|| {
                log::error!(
                    "sim shader: clause {:#x} reads uniform slot {slot} beyond the {} preloaded",
                    cc.va,
                    core.program.fau.len()
                );
                fault(status::INSTR_OPERAND_FAULT, cc.va)
            })?;
            if high { (w >> 32) as u32 } else { w as u32 }
        }
        Operand::Constant { .. } => match op.pc_relative_offset() {
            Some((off, hi)) => {
                let addr = (cc.va as i64).wrapping_add(off) as u64;
                if hi { (addr >> 32) as u32 } else { addr as u32 }
            }
            None => op.constant_value().unwrap_or(0),
        },
        Operand::Special { index, high } => {
            let v = super::fau::special(index, ctx)
                .or_else(|| super::fau::fragment_special(index, core.frag.as_ref()))
                .ok_or_else(|| {
                    log::error!("sim shader: FAU special {index} is not available in this job");
                    fault(status::INSTR_OPERAND_FAULT, cc.va)
                })?;
            if high { (v >> 32) as u32 } else { v as u32 }
        }
    })
}

// ---------------------------------------------------------------------------
// Number helpers

// Half-float conversions: the hardware's own, defined once for the
// simulator and the backend's reference semantics.
pub use crate::compiler::bifrost::fp16::{f16_to_f32, f32_to_f16};

fn apply_round(x: f32, mode: &str) -> f32 {
    match mode {
        "rtp" => x.ceil(),
        "rtn" => x.floor(),
        "rtz" => x.trunc(),
        "rtna" => x.round(),
        _ => x.round_ties_even(),
    }
}

/// The `cmpf` modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
    /// Ordered and not equal.
    GtLt,
    /// Total order equality.
    Total,
}

impl Cmp {
    fn from_name(n: &str) -> Cmp {
        match n {
            "ne" => Cmp::Ne,
            "gt" => Cmp::Gt,
            "ge" => Cmp::Ge,
            "lt" => Cmp::Lt,
            "le" => Cmp::Le,
            "gtlt" => Cmp::GtLt,
            "total" => Cmp::Total,
            _ => Cmp::Eq,
        }
    }
}

fn cmp_f(a: f32, b: f32, cmpf: Cmp) -> bool {
    match cmpf {
        Cmp::Eq => a == b,
        Cmp::Gt => a > b,
        Cmp::Ge => a >= b,
        Cmp::Ne => a != b,
        Cmp::Lt => a < b,
        Cmp::Le => a <= b,
        Cmp::GtLt => a.partial_cmp(&b).is_some_and(|o| o.is_ne()),
        Cmp::Total => a.total_cmp(&b).is_eq(),
    }
}

fn cmp_ord<T: PartialOrd + PartialEq>(a: T, b: T, cmpf: Cmp) -> bool {
    match cmpf {
        Cmp::Eq | Cmp::Total => a == b,
        Cmp::Ne | Cmp::GtLt => a != b,
        Cmp::Gt => a > b,
        Cmp::Ge => a >= b,
        Cmp::Lt => a < b,
        Cmp::Le => a <= b,
    }
}

fn bool_result(b: bool, result_type: &str) -> u32 {
    match (b, result_type) {
        (false, _) => 0,
        (true, "m1") => u32::MAX,
        (true, "f1") => 1.0f32.to_bits(),
        (true, _) => 1,
    }
}

impl Prepared {
    /// Float source `i` with its widen/abs/neg modifiers.
    fn f(&self, i: usize, v: u32) -> f32 {
        let mut x = match self.part[i] {
            "h0" => f16_to_f32(v as u16),
            "h1" => f16_to_f32((v >> 16) as u16),
            _ => f32::from_bits(v),
        };
        if self.abs[i] {
            x = x.abs();
        }
        if self.neg[i] {
            x = -x;
        }
        x
    }

    /// Integer source `i` with a lane selection, zero/sign extended.
    fn int(&self, i: usize, v: u32, signed: bool) -> u32 {
        let half = |h: u32| {
            if signed {
                h as u16 as i16 as i32 as u32
            } else {
                h & 0xffff
            }
        };
        let byte = |b: u32| {
            if signed {
                b as u8 as i8 as i32 as u32
            } else {
                b & 0xff
            }
        };
        match self.part[i] {
            "h0" => half(v),
            "h1" => half(v >> 16),
            "b0" => byte(v),
            "b1" => byte(v >> 8),
            "b2" => byte(v >> 16),
            "b3" => byte(v >> 24),
            _ => v,
        }
    }

    /// A float result with the clamp modifier applied.
    fn fres(&self, x: f32) -> u32 {
        let x = match self.clamp {
            "clamp_0_inf" => {
                if x.is_nan() {
                    0.0
                } else {
                    x.max(0.0)
                }
            }
            "clamp_m1_1" => {
                if x.is_nan() {
                    0.0
                } else {
                    x.clamp(-1.0, 1.0)
                }
            }
            "clamp_0_1" => {
                if x.is_nan() {
                    0.0
                } else {
                    x.clamp(0.0, 1.0)
                }
            }
            _ => x,
        };
        x.to_bits()
    }

    fn shift_amount(&self, v: u32) -> u32 {
        let b = match self.part[2] {
            "b1" => v >> 8,
            "b2" => v >> 16,
            "b3" => v >> 24,
            _ => v,
        };
        b & 0xff
    }
}

fn shl(a: u32, s: u32) -> u32 {
    if s >= 32 { 0 } else { a << s }
}

fn shr(a: u32, s: u32) -> u32 {
    if s >= 32 { 0 } else { a >> s }
}

/// Evaluates `p` for one lane. `fma_partner` is the same tuple's FMA
/// instruction when `p` is on the ADD unit.
#[allow(clippy::too_many_arguments)]
pub fn eval(
    core: &mut Core<'_>,
    p: &Prepared,
    fma_partner: Option<&Prepared>,
    lane: &mut Lane,
    ctx: &LaneCtx,
    t: (u32, u32, u32),
    cc: &CachedClause,
    fx: &mut Effects,
) -> Result<u32, JobFault> {
    use Op::*;
    if p.op == Nop {
        return Ok(0);
    }
    let mut s = [0u32; 4];
    for (i, o) in p.srcs.iter().enumerate().take(4) {
        s[i] = read_src(core, o, lane, ctx, t, cc)?;
    }
    let v = match p.op {
        Nop => 0,
        Mov => s[0],
        Fma => p.fres(p.f(0, s[0]).mul_add(p.f(1, s[1]), p.f(2, s[2]))),
        Fadd => p.fres(p.f(0, s[0]) + p.f(1, s[1])),
        Fmin | Fmax => {
            let (a, b) = (p.f(0, s[0]), p.f(1, s[1]));
            let r = if p.nan_propagate && (a.is_nan() || b.is_nan()) {
                f32::NAN
            } else if p.op == Fmin {
                a.min(b)
            } else {
                a.max(b)
            };
            p.fres(r)
        }
        Fcmp => bool_result(cmp_f(p.f(0, s[0]), p.f(1, s[1]), p.cmpf), p.result_type),
        Fround => p.fres(apply_round(p.f(0, s[0]), p.round)),
        Frcp => p.fres(1.0 / p.f(0, s[0])),
        Frsq => p.fres(1.0 / p.f(0, s[0]).sqrt()),
        FmaRscale => {
            // a*b + c, scaled by 2^d (d an integer).
            let r = p.f(0, s[0]).mul_add(p.f(1, s[1]), p.f(2, s[2]));
            p.fres(ldexp(r, s[3] as i32))
        }
        FaddLscale => {
            // src0 + the mantissa of src1 in the `log` convention
            // ([0.75, 1.5)): Mesa's log2 computes m - 1 this way.
            let (m, _) = frexp_log(p.f(1, s[1]));
            p.fres(p.f(0, s[0]) + m)
        }
        Frexpe => {
            let x = p.f(0, s[0]);
            match (p.fields.modifier("log"), p.fields.modifier("sqrt")) {
                (Some("log"), _) => frexp_log(x).1 as u32,
                (_, Some("sqrt")) => return Err(unsupported(p, cc)),
                _ => frexp(x).1 as u32,
            }
        }
        Frexpm => {
            let x = p.f(0, s[0]);
            match (p.fields.modifier("log"), p.fields.modifier("sqrt")) {
                (Some("log"), _) => frexp_log(x).0.to_bits(),
                (_, Some("sqrt")) => return Err(unsupported(p, cc)),
                _ => frexp(x).0.to_bits(),
            }
        }
        Flogd => {
            // log2(m) / (m - 1) for the log-convention mantissa m of x, so
            // that e + (m - 1) * FLOGD(x) = log2(x).
            let x = p.f(0, s[0]);
            let (m, _) = frexp_log(x);
            let m = f64::from(m);
            let r = if x.is_nan() || x < 0.0 {
                f64::NAN
            } else if x == 0.0 {
                f64::NEG_INFINITY
            } else if x.is_infinite() {
                f64::INFINITY
            } else if (m - 1.0).abs() < 1e-12 {
                std::f64::consts::LOG2_E
            } else {
                m.log2() / (m - 1.0)
            };
            p.fres(r as f32)
        }
        Fexp => {
            // s0: x in 8.24 fixed point (integer), s1: x * 2^24 as a float
            // (for out-of-range inputs); result 2^x.
            let xf = f64::from(f32::from_bits(s[1]));
            let x = if xf.abs() < 2f64.powi(31) {
                f64::from(s[0] as i32)
            } else {
                xf
            };
            p.fres((x / 2f64.powi(24)).exp2() as f32)
        }
        FsinTable | FcosTable => {
            if p.fields.modifier("offset") == Some("offset") {
                return Err(unsupported(p, cc));
            }
            // The low 6 bits of the value (Mesa adds 1.5 * 2^19 to
            // x * 2/pi, leaving 4 fraction bits) index 64 steps of the
            // circle.
            let angle = f64::from(s[0] & 63) * std::f64::consts::PI / 32.0;
            let r = if p.op == FsinTable {
                angle.sin()
            } else {
                angle.cos()
            };
            (r as f32).to_bits()
        }
        Iadd => {
            let signed = p.signed;
            let b = p.int(1, s[1], signed);
            let a = s[0];
            if p.saturate {
                if signed {
                    (a as i32).saturating_add(b as i32) as u32
                } else {
                    a.saturating_add(b)
                }
            } else {
                a.wrapping_add(b)
            }
        }
        Isub => {
            let signed = p.signed;
            let b = p.int(1, s[1], signed);
            let a = s[0];
            if p.saturate {
                if signed {
                    (a as i32).saturating_sub(b as i32) as u32
                } else {
                    a.saturating_sub(b)
                }
            } else {
                a.wrapping_sub(b)
            }
        }
        Imul => s[0].wrapping_mul(p.int(1, s[1], p.sext)),
        Iabs => (s[0] as i32).unsigned_abs(),
        Icmp => {
            let (a, b) = (s[0], s[1]);
            let r = if p.signed {
                cmp_ord(a as i32, b as i32, p.cmpf)
            } else {
                cmp_ord(a, b, p.cmpf)
            };
            bool_result(r, p.result_type)
        }
        Clz => s[0].leading_zeros(),
        Popcount => s[0].count_ones(),
        Bitrev => s[0].reverse_bits(),
        LshiftOr | LshiftAnd | LshiftXor | RshiftOr | RshiftAnd | RshiftXor => {
            let sh = p.shift_amount(s[2]);
            let a = if matches!(p.op, LshiftOr | LshiftAnd | LshiftXor) {
                shl(s[0], sh)
            } else {
                shr(s[0], sh)
            };
            let b = if p.not1 { !s[1] } else { s[1] };
            let r = match p.op {
                LshiftOr | RshiftOr => a | b,
                LshiftAnd | RshiftAnd => a & b,
                _ => a ^ b,
            };
            if p.not_result { !r } else { r }
        }
        Arshift => {
            let sh = p.shift_amount(s[2]).min(31);
            (((s[0] as i32) >> sh) as u32) | s[1]
        }
        CselF32 => {
            let c = cmp_f(f32::from_bits(s[0]), f32::from_bits(s[1]), p.cmpf);
            if c { s[2] } else { s[3] }
        }
        CselI32 | CselU32 => {
            if cmp_ord(s[0], s[1], p.cmpf) {
                s[2]
            } else {
                s[3]
            }
        }
        CselS32 => {
            if cmp_ord(s[0] as i32, s[1] as i32, p.cmpf) {
                s[2]
            } else {
                s[3]
            }
        }
        Mux => match p.mux {
            "neg" => {
                if (s[2] as i32) < 0 {
                    s[1]
                } else {
                    s[0]
                }
            }
            "fp_zero" => {
                if s[2] & 0x7fff_ffff == 0 {
                    s[0]
                } else {
                    s[1]
                }
            }
            "bit" => (s[2] & s[1]) | (!s[2] & s[0]),
            _ => {
                if s[2] == 0 {
                    s[0]
                } else {
                    s[1]
                }
            }
        },
        U16ToU32 | U8ToU32 => p.int(0, s[0], false),
        S16ToS32 | S8ToS32 => p.int(0, s[0], true),
        U16ToF32 | U8ToF32 => (p.int(0, s[0], false) as f32).to_bits(),
        S16ToF32 | S8ToF32 => (p.int(0, s[0], true) as i32 as f32).to_bits(),
        U32ToF32 => (s[0] as f32).to_bits(),
        S32ToF32 => (s[0] as i32 as f32).to_bits(),
        F32ToU32 => apply_round(f32::from_bits(s[0]), p.round) as u32,
        F32ToS32 => apply_round(f32::from_bits(s[0]), p.round) as i32 as u32,
        F16ToF32 => f16_to_f32(p.int(0, s[0], false) as u16).to_bits(),
        V2F32ToV2F16 => {
            let rtz = p.round == "rtz";
            let a = f32::from_bits(p.fres(p.f(0, s[0])));
            let b = f32::from_bits(p.fres(p.f(1, s[1])));
            u32::from(f32_to_f16(a, rtz)) | (u32::from(f32_to_f16(b, rtz)) << 16)
        }
        MkvecV2i16 => {
            let h = |i: usize| match p.part[i] {
                "h1" => s[i] >> 16,
                _ => s[i] & 0xffff,
            };
            h(0) | (h(1) << 16)
        }
        MkvecV4i8 => {
            let b = |i: usize| match p.part[i] {
                "b2" => (s[i] >> 16) & 0xff,
                _ => s[i] & 0xff,
            };
            b(0) | (b(1) << 8) | (b(2) << 16) | (b(3) << 24)
        }
        Branchz => {
            let v = s[0];
            let taken = match p.name {
                "BRANCHZ.f32" => cmp_f(f32::from_bits(v), 0.0, p.cmpf),
                "BRANCHZ.s32" => cmp_ord(v as i32, 0, p.cmpf),
                "BRANCHZ.u32" | "BRANCHZ.i32" => cmp_ord(v, 0, p.cmpf),
                "BRANCHZ.s16" => cmp_ord(p.int(0, v, true) as i32, 0, p.cmpf),
                _ => cmp_ord(p.int(0, v, false) & 0xffff, 0, p.cmpf),
            };
            if taken {
                fx.branch = Some(branch_target(p, s[1], cc));
            }
            0
        }
        Jump => {
            fx.branch = Some(branch_target(p, s[0], cc));
            0
        }
        Ldexp => p.fres(ldexp(f32::from_bits(s[0]), s[1] as i32)),
        AtomC => 0,
        Dtsel => s[0],
        // The message returned the old value in its staging register.
        AtomPost => s[0],
        SegAdd => seg_add(core, p, fma_partner, ctx, s[0], t.2, cc)?,
        Message => {
            return message::execute(core, p, fma_partner, lane, ctx, &s, cc, fx);
        }
        Discard => {
            if core.frag.is_none() {
                log::error!(
                    "sim shader: DISCARD.f32 outside a fragment job (clause {:#x})",
                    cc.va
                );
                return Err(fault(status::INSTR_INVALID_ENC, cc.va));
            }
            if cmp_f(p.f(0, s[0]), p.f(1, s[1]), p.cmpf) {
                fx.discard = true;
            }
            0
        }
        // The warp scheduler ran the clause in lock step and gathered every
        // lane's source 0 (`Core::cross_lane`); a lane that is not running
        // this clause with us is inactive and reads as 0.
        Clper | ClperOld => {
            let from = clper_source_lane(p, ctx.lane_id, s[1], super::warp_width(core.arch));
            core.cross_lane
                .get(from as usize)
                .copied()
                .flatten()
                .unwrap_or(0)
        }
    };
    Ok(v)
}

/// Whether `p` is a texture instruction (its implicit LOD reads the
/// quad's coordinates: the warp runs its clause in lock step).
pub fn is_texture(p: &Prepared) -> bool {
    p.op == Op::Message && matches!(p.name, "TEXC" | "TEXS_2D.f32")
}

/// The lane whose source 0 a `CLPER` on lane `lane` reads, `index` its
/// second source. `CLPER.i32` (Mesa's `bi_clper_i32` with `subgroupN`):
/// lanes form groups of N (`subgroup2/4/8`); `lane_op` none reads lane
/// `index` of the group, `xor` the own lane XOR `index` within it. Our
/// reading of the ISA description's names, fixed by how Mesa uses them
/// (`bi_emit_derivative`: a 2×2 quad is a group of 4, bit 0 of the lane the
/// x parity, bit 1 the y parity). `CLPER_OLD.i32` (v6 cores, Mesa's
/// `BIFROST_LIMITED_CLPER`, which computes `lane_id ^ axis` itself): lane
/// `index` of the warp (modulo the warp's width).
pub fn clper_source_lane(p: &Prepared, lane: u32, index: u32, warp_width: usize) -> u32 {
    let width = warp_width.max(1) as u32;
    if p.op == Op::ClperOld {
        return index % width;
    }
    let n = match p.fields.modifier("subgroup").unwrap_or("subgroup4") {
        "subgroup2" => 2,
        "subgroup8" => 8,
        _ => 4,
    }
    .min(width);
    let within = if p.fields.modifier("lane_op") == Some("xor") {
        (lane ^ index) & (n - 1)
    } else {
        index & (n - 1)
    };
    (lane & !(n - 1)) | within
}

/// `SEG_ADD`: the base of the lane's segment plus an offset, as a 64-bit
/// global address split over the pair: `*SEG_ADD` (no partner) gives the
/// low word of base + offset, `+SEG_ADD` the high word of the base plus its
/// source (the offset's high word) plus the carry out of the FMA half's
/// result (`fma_lo`, read like the `t` passthrough). This split is our
/// reading of Mesa's lowering of its 64-bit `SEG_ADD.i64` into the pair;
/// `preserve_null` is not modelled (faults).
fn seg_add(
    core: &Core<'_>,
    p: &Prepared,
    fma_partner: Option<&Prepared>,
    ctx: &LaneCtx,
    src: u32,
    fma_lo: u32,
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    if p.fields.modifier("preserve_null") == Some("preserve_null") {
        return Err(unsupported(p, cc));
    }
    let base = match p.seg {
        "wls" => ctx.wls_base,
        "tl" => {
            let tls = core.program.res.tls;
            tls.base + ctx.thread * tls.per_thread
        }
        _ => return Err(unsupported(p, cc)),
    };
    match fma_partner {
        None => Ok((base as u32).wrapping_add(src)),
        Some(f) if f.op == Op::SegAdd && f.seg == p.seg => {
            let carry = u32::from(fma_lo < base as u32);
            Ok(((base >> 32) as u32).wrapping_add(src).wrapping_add(carry))
        }
        Some(_) => {
            log::error!(
                "sim shader: +SEG_ADD without its *SEG_ADD half (clause {:#x})",
                cc.va
            );
            Err(fault(status::INSTR_INVALID_ENC, cc.va))
        }
    }
}

fn unsupported(p: &Prepared, cc: &CachedClause) -> JobFault {
    log::error!(
        "sim shader: {} in clause {:#x} is not simulated",
        p.name,
        cc.va
    );
    fault(status::INSTR_INVALID_ENC, cc.va)
}

/// Branch target: a PC-relative constant gives the address directly; any
/// other source holds the low 32 bits of an absolute address in the
/// clause's 4 GiB region, 0 meaning address 0 (the end of the thread: a
/// blend shader's `JUMP r48` with a return value of 0, Mesa's
/// bifrost_compile.c: "jump to 0 terminates the blend shader").
fn branch_target(p: &Prepared, value: u32, cc: &CachedClause) -> u64 {
    let src = p.srcs.last();
    match src.and_then(|o| o.pc_relative_offset()) {
        Some((off, _)) => (cc.va as i64).wrapping_add(off) as u64,
        None if value == 0 => 0,
        None => (cc.va & !0xffff_ffff) | u64::from(value),
    }
}

fn ldexp(x: f32, e: i32) -> f32 {
    let e = e.clamp(-300, 300);
    (f64::from(x) * 2f64.powi(e)) as f32
}

/// (mantissa in [0.75, 1.5), exponent) with x = m * 2^e: the `log`
/// convention of FREXPE/FREXPM (centred on 1 so that log2(m) is small).
fn frexp_log(x: f32) -> (f32, i32) {
    let (m, e) = frexp(x);
    if m.abs() < 0.75 && m != 0.0 {
        (m * 2.0, e - 1)
    } else {
        (m, e)
    }
}

/// (mantissa in [0.5, 1), exponent) with x = m * 2^e.
fn frexp(x: f32) -> (f32, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let (x, bias) = if x.abs() < f32::MIN_POSITIVE {
        (x * 2f32.powi(32), -32)
    } else {
        (x, 0)
    };
    let b = x.to_bits();
    let e = ((b >> 23) & 0xff) as i32 - 126;
    let m = f32::from_bits((b & 0x807f_ffff) | (126 << 23));
    (m, e + bias)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frexp_forms() {
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(frexp(-3.0), (-0.75, 2));
        assert_eq!(frexp_log(1.4), (1.4, 0));
        assert_eq!(frexp_log(0.7), (1.4, -1));
        let tiny = f32::from_bits(1);
        let (m, e) = frexp(tiny);
        assert_eq!(f64::from(m) * 2f64.powi(e), f64::from(tiny));
    }

    #[test]
    fn rounding_modes() {
        assert_eq!(apply_round(2.5, "none"), 2.0);
        assert_eq!(apply_round(3.5, "none"), 4.0);
        assert_eq!(apply_round(-2.5, "rtna"), -3.0);
        assert_eq!(apply_round(-2.5, "rtz"), -2.0);
        assert_eq!(apply_round(-2.5, "rtn"), -3.0);
        assert_eq!(apply_round(2.1, "rtp"), 3.0);
    }
}
