//! Backend instructions: one [`Op`] variant per Bifrost instruction the
//! backend emits, named after its ISA mnemonic (so `pack.rs` finds the
//! `hw::isa` table rows by [`Op::name`] and sets [`Op::modifiers`] verbatim),
//! with its execution unit and a reference [`Op::fold`] in plain Rust: what
//! the hardware computes on one lane's 32-bit sources.
//!
//! Operands are virtual registers ([`Reg`]) until `ra.rs` rewrites them to
//! physical ones ([`Src::Phys`]/[`Dst::Phys`]). This module must never know
//! bit layouts (that is `hw::isa`) nor the IR (that is `isel.rs`).

use std::fmt;

use super::fp16;
use crate::compiler::inline_vec::InlineVec;
use crate::hw::isa::Unit;

/// A virtual register component: vector `index`, component `comp`.
/// Vectors (staging ranges of messages) are allocated contiguously.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    pub index: u32,
    pub comp: u8,
}

/// An instruction's sources: up to four in place, more on the heap.
pub type SrcList = InlineVec<Src, 4>;

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Src {
    /// Virtual register (before RA).
    Reg(Reg),
    /// Physical register rN (after RA, and preloaded registers before).
    Phys(u8),
    /// A 32-bit immediate: an embedded constant, or `#0` on the FMA unit.
    Imm(u32),
    /// Half of a 64-bit push-uniform (FAU) word.
    Uniform { word: u8, high: bool },
    /// Half of a special FAU slot (`fau_idx` < 0x20): 8 + n = blend
    /// descriptor of render target n (`blend_descriptor_n.x`/`.y`).
    Special { slot: u8, high: bool },
}

/// What the unused slots of a [`SrcList`] hold (never read as a source).
impl Default for Src {
    fn default() -> Src {
        Src::Imm(0)
    }
}

/// Where a varying is sampled (`sample` modifier of `LD_VAR*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarSample {
    Center,
    Centroid,
    Sample,
}

impl VarSample {
    pub fn name(self) -> &'static str {
        match self {
            VarSample::Center => "center",
            VarSample::Centroid => "centroid",
            VarSample::Sample => "sample",
        }
    }
}

/// The fixed-function values `LD_VAR_SPECIAL` reads (`varying_name`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarSpecial {
    /// `gl_PointCoord` (two floats).
    Point,
    /// Fragment depth (gl_FragCoord.z).
    FragZ,
    /// gl_FragCoord.w.
    FragW,
}

/// A destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dst {
    Reg(Reg),
    Phys(u8),
}

/// Integer comparison types of `ICMP`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IcmpType {
    I32,
    S32,
    U32,
}

/// Comparison functions (`cmpf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    /// The comparison with its operands swapped (a < b ⇔ b > a).
    pub fn mirrored(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Gt,
            Cmp::Gt => Cmp::Lt,
            Cmp::Le => Cmp::Ge,
            Cmp::Ge => Cmp::Le,
            c => c,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Cmp::Eq => "eq",
            Cmp::Ne => "ne",
            Cmp::Lt => "lt",
            Cmp::Le => "le",
            Cmp::Gt => "gt",
            Cmp::Ge => "ge",
        }
    }
}

/// The bitwise combination of the shift-and-combine FMA instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShiftOp {
    LshiftOr,
    LshiftAnd,
    LshiftXor,
    RshiftOr,
    RshiftAnd,
    RshiftXor,
}

/// `FROUND` rounding modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Round {
    /// To nearest even.
    Rte,
    /// Toward +inf.
    Rtp,
    /// Toward -inf.
    Rtn,
    /// Toward zero.
    Rtz,
}

/// Memory segment of `LOAD`/`STORE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seg {
    /// Global memory (64-bit address in two registers).
    None,
    /// Workgroup-local (shared) memory.
    Wls,
    /// Thread-local storage (register spills): offset `a` in the thread's
    /// slot of the Local Storage descriptor's TLS buffer.
    Tl,
    /// A uniform buffer of the job's UBO table (the DCD's `Uniform
    /// buffers`): source 0 the byte offset, source 1 the table index
    /// (`LOAD.*.ubo`, loads only). The hardware checks the offset against
    /// the descriptor's `Entries`.
    Ubo,
}

/// The read-modify-write operation of `ATOM_C` (`atom_opc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOpc {
    Add,
    Smin,
    Smax,
    Umin,
    Umax,
    And,
    Or,
    Xor,
}

impl AtomOpc {
    pub fn name(self) -> &'static str {
        match self {
            AtomOpc::Add => "aadd",
            AtomOpc::Smin => "asmin",
            AtomOpc::Smax => "asmax",
            AtomOpc::Umin => "aumin",
            AtomOpc::Umax => "aumax",
            AtomOpc::And => "aand",
            AtomOpc::Or => "aor",
            AtomOpc::Xor => "axor",
        }
    }

    /// The new memory value from the old one and the operand.
    pub fn apply(self, old: u32, arg: u32) -> u32 {
        match self {
            AtomOpc::Add => old.wrapping_add(arg),
            AtomOpc::Smin => (old as i32).min(arg as i32) as u32,
            AtomOpc::Smax => (old as i32).max(arg as i32) as u32,
            AtomOpc::Umin => old.min(arg),
            AtomOpc::Umax => old.max(arg),
            AtomOpc::And => old & arg,
            AtomOpc::Or => old | arg,
            AtomOpc::Xor => old ^ arg,
        }
    }
}

/// One Bifrost instruction with its modifiers. Sources are in ISA order
/// (staging data excluded: it is the instruction's `staging` operand).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `MOV.i32 d, a` (ADD unit).
    MovI32,
    /// `MOV.i32 d, a` on the FMA unit (the scheduler's choice when the ADD
    /// slot is taken).
    MovI32Fma,
    /// `IADD.s32 d, a, b` (ADD): wrapping a + b.
    IaddS32,
    /// `ISUB.s32 d, a, b` (ADD): wrapping a - b.
    IsubS32,
    /// `IMUL.i32 d, a, b` (FMA): low 32 bits of a * b.
    ImulI32,
    /// `IABS.s32 d, a` (ADD).
    IabsS32,
    /// `{L,R}SHIFT_{OR,AND,XOR}.i32 d, a, b, s` (FMA):
    /// `r = (a << s) op (not1 ? !b : b)`, then `!r` if `not_result`;
    /// `s` is byte 0 of the third source; shifts of 32 or more give 0.
    Shift {
        op: ShiftOp,
        not1: bool,
        not_result: bool,
    },
    /// `ARSHIFT.i32 d, a, #0, s` (FMA): arithmetic right shift by byte 0 of s
    /// (31 or more replicates the sign).
    ArshiftI32,
    /// `ICMP.{i32,s32,u32}.m1.cmp d, a, b` (ADD): all ones if true, else 0.
    Icmp {
        ty: IcmpType,
        cmp: Cmp,
    },
    /// `FCMP.f32.cmp.m1 d, a, b` (FMA): ordered compare (`ne` unordered), all ones if true.
    Fcmp {
        cmp: Cmp,
    },
    /// `MUX.i32 d, a, b, c` (ADD, `int_zero`): `c == 0 ? a : b`.
    MuxI32,
    /// `CSEL.i32.eq d, a, b, c, e` (FMA): `a == b ? c : e` (the scheduler's
    /// FMA form of a MUX: `CSEL.eq cond, #0, if_zero, if_nonzero`).
    CselI32Eq,
    /// `FADD.f32 d, a, b` (FMA) with source negate/abs and an optional [0, 1] clamp.
    FaddF32 {
        neg: [bool; 2],
        abs: [bool; 2],
        clamp01: bool,
    },
    /// `FADD.f32 d, a, b` on the ADD unit, with source negates: the same
    /// operation as [`Op::FaddF32`] (one opcode, `BI_OPCODE_FADD_F32`, that
    /// Mesa's Bifrost scheduler places on either unit,
    /// src/panfrost/compiler/bi_opcodes / ISA.xml `+FADD.f32`), so it can
    /// sit beside an FMA-unit instruction in one tuple (`fract`: `FROUND`
    /// and `x - floor(x)` reading it through the tuple's `t`).
    FaddF32Add {
        neg: [bool; 2],
    },
    /// `FMA.f32 d, a, b, c` (FMA): fused a * b + c with source negates.
    FmaF32 {
        neg: [bool; 3],
    },
    /// `FMIN.f32`/`FMAX.f32` (ADD, `nan_suppress`): IEEE minNum/maxNum.
    FminF32,
    FmaxF32,
    /// Conversions (ADD): float → int round toward zero, saturating, NaN → 0;
    /// int → float round to nearest even.
    F32ToS32,
    F32ToU32,
    S32ToF32,
    U32ToF32,
    /// `V2F32_TO_V2F16` (FMA): two floats → two halves (a in the low 16
    /// bits), round to nearest even, overflow to ±inf; a NaN keeps its sign
    /// and becomes the quiet NaN 0x7e00 (our reading: hardware NaN payloads
    /// are not documented).
    V2F32ToV2F16,
    /// `F16_TO_F32` (FMA): the half in the low (`high`: upper) 16 bits →
    /// float, exactly (a NaN keeps sign and payload).
    F16ToF32 {
        high: bool,
    },
    /// `{U,S}{8,16}_TO_F32` (ADD): byte or half `lane` of the source, zero-
    /// or sign-extended, → float (exact).
    SmallIntToF32 {
        signed: bool,
        bits: u8,
        lane: u8,
    },
    /// `FADD.f32 .clamp_m1_1` (FMA): a + b clamped to [-1, 1], NaN → +0
    /// (the clamp of `FaddF32` for the signed range).
    FaddClampM1F32,
    /// `FROUND.f32` (FMA): round to an integral float.
    FroundF32 {
        round: Round,
    },
    /// `POPCOUNT.i32`, `BITREV.i32`, `CLZ.u32` (FMA).
    PopcountI32,
    BitrevI32,
    ClzU32,
    /// `LOAD.iN` (ADD, message `load`): `bytes` from address (a | b << 32)
    /// (global) or offset `a` (WLS) into the staging registers.
    Load {
        bytes: u8,
        seg: Seg,
    },
    /// `STORE.iN` (ADD, message `store`): the staging registers to memory.
    Store {
        bytes: u8,
        seg: Seg,
    },
    /// `LD_ATTR_IMM` (ADD, message `attr`): `comps` 32-bit components of
    /// attribute `index` for (vertex id a, instance id b), register format `auto`.
    LdAttrImm {
        index: u8,
        comps: u8,
    },
    /// `LD_ATTR` (ADD): as above with the attribute index in a register (third source).
    LdAttr {
        comps: u8,
    },
    /// `LEA_ATTR_IMM` (ADD, message `attr`): the address of varying (in a
    /// VERTEX job; attribute elsewhere) record `index` for (vertex id a,
    /// instance id b), written to three staging registers: address low,
    /// address high, the record's format/conversion word. Register format
    /// `auto`: the record's format decides the conversion.
    LeaAttrImm {
        index: u8,
    },
    /// `LEA_ATTR` (ADD): as above with the record index in a register (third source).
    LeaAttr,
    /// `DTSEL_IMM.attribute_1` (FMA): its source unchanged, read by the
    /// same tuple's `LEA_ATTR_TEX` through `t`, which then addresses the
    /// primary attribute table (Mesa's `bi_lower_dtsel`: "LEA_ATTR_TEX
    /// defaults to the secondary attribute table, but our ABI has all images
    /// in the primary attribute table"). Only valid in one tuple with it.
    DtselAttribute1,
    /// `LEA_ATTR_TEX` (ADD, message `attr`): the address (two words) and
    /// conversion word of texel (a = x | y << 16, b = layer) of image c of
    /// the attribute table, for registers of `ty`, in 3 staging registers
    /// (Mesa's `bi_emit_lea_image`); its first source is `DTSEL_IMM`'s
    /// result.
    LeaAttrTex {
        ty: crate::compiler::ir::SampledType,
    },
    /// `LD_ATTR_TEX` (ADD, message `attr`): texel (a = x | y << 16, b =
    /// layer) of image c of the attribute table converted to `comps`
    /// registers of `ty` (Mesa's `bi_emit_image_load`).
    LdAttrTex {
        ty: crate::compiler::ir::SampledType,
        comps: u8,
    },
    /// `ST_CVT` (ADD, message `store`): `comps` staging registers converted
    /// to the format word in source 2 and stored at address (s0 | s1 << 32),
    /// the triple `LEA_ATTR` produced. `srcs[0]` is the first staging
    /// (data) register, as for `STORE`.
    StCvt {
        comps: u8,
    },
    /// `BARRIER` (ADD, message `barrier`): workgroup execution and memory barrier.
    Barrier,
    /// `ATOM_C.i32` / `ATOM_C_RETURN.i32` (FMA; `ret` returns the old
    /// value): the FMA half of a 32-bit atomic on the global address
    /// (a | b << 32) with the operand in staging register c. Only valid in
    /// one tuple with its `ATOM_CX`, which performs the access (Mesa's
    /// `bi_lower_atom_c` pairing; our reading of the ISA description).
    AtomC {
        opc: AtomOpc,
        ret: bool,
    },
    /// `ATOM_CX` (ADD, message `atomic`): the message half of `AtomC`:
    /// sources address lo, hi and the staging register again; the staging
    /// register holds the operand and receives the old value.
    AtomCx,
    /// `AXCHG.i32` (ADD, message `atomic`): exchange the staging register
    /// with memory at (a | b << 32), or at WLS offset a.
    Axchg {
        seg: Seg,
    },
    /// `ACMPXCHG.i32` (ADD, message `atomic`): staging registers (new,
    /// compare); memory = new if memory == compare; the old value returns
    /// in the first staging register. (Mesa: "hardware is swapped from NIR".)
    Acmpxchg {
        seg: Seg,
    },
    /// `SEG_ADD.wls` pair: the FMA half (`high` false) gives the low word of
    /// the global address of WLS offset a, the ADD half (`high` true, with
    /// the offset's high word, 0) the high word, in one tuple. Mesa's
    /// conversion of shared-memory atomics to global ones.
    SegAddWls {
        high: bool,
    },
    /// `LD_VAR_IMM.f32.<sample>.store` (ADD, message `varying`): `comps`
    /// interpolated 32-bit float components of varying record `index`
    /// (source: r61, the sample mask/ID preload, which `centroid`/`sample`
    /// read; as Mesa's `bi_emit_load_vary`).
    LdVarImm {
        index: u8,
        comps: u8,
        sample: VarSample,
    },
    /// `LD_VAR_FLAT_IMM.auto` (ADD, message `varying`): `comps` components
    /// of the provoking vertex's varying record `index`, unconverted
    /// (register format `auto`: the record's format).
    LdVarFlatImm {
        index: u8,
        comps: u8,
    },
    /// `LD_VAR_SPECIAL.f32.center.clobber` (ADD, message `varying`): point
    /// coordinate, fragment z or w (source: r61, ignored at the centre).
    LdVarSpecial {
        name: VarSpecial,
    },
    /// `ATEST` (ADD, message `atest`): the alpha/coverage test. Sources:
    /// coverage (r60), alpha (float); the ATEST datum is the tuple's FAU
    /// slot (special 5, implicit). Writes the updated coverage to r60
    /// (staging register and destination).
    Atest,
    /// `ZS_EMIT` (ADD, message `z_stencil`): depth (`z`) and/or stencil
    /// from the first two sources, coverage (r60) third; updated coverage
    /// to r60.
    ZsEmit {
        z: bool,
        stencil: bool,
    },
    /// `BLEND` (ADD, message `blend`, clause-terminal): the colour in four
    /// staging registers (`srcs[0]`, as for `STORE`) to render target
    /// `rt`, with coverage (r60) and the blend descriptor (FAU special
    /// 8 + rt, both halves). Its destination is r48, the return address
    /// the blend unit hands a blend shader (Mesa's convention).
    Blend {
        rt: u8,
    },
    /// `LD_TILE.v4` (ADD, message `tile`): a blend shader's read of the
    /// tile buffer (`src/compiler/bifrost/blend.rs`). Sources: pixel
    /// indices (sample, render target, current pixel), coverage (r60),
    /// the 32-bit internal conversion descriptor of the target; four
    /// staging registers written in the conversion's register format.
    LdTile,
    /// `TEXS_2D.f32` (ADD, message `tex`): the 2D texture at index
    /// `texture` of the draw's Textures table filtered with sampler
    /// `sampler` at normalized coordinates (a, b), four f32 results in
    /// staging registers; `computed_lod` (fragment shaders) or level of
    /// detail zero. Mesa's `bi_emit_texs`.
    TexsF32 {
        texture: u8,
        sampler: u8,
        computed_lod: bool,
    },
    /// `TEXC` (ADD, message `tex`): the full texture operation. Sources:
    /// the staging registers (`srcs[0]`: the data registers the operation
    /// descriptor asks for, then overwritten by the four results), s and t
    /// (floats, or integers for a fetch), the 32-bit texture operation
    /// descriptor (Mesa's `struct bifrost_texture_operation`, an
    /// immediate). Mesa's `bi_emit_texc`.
    Texc,
    /// `CLPER.i32 d, a, lane` (ADD, v7; `subgroup4`, `inactive_result`
    /// zero): `a` as read by another lane of the thread's 2×2 quad — lane
    /// `lane` of the quad (`lane_op` none), or the thread's own quad lane
    /// XOR `lane` (`xor`). Mesa's `bi_clper` on cores without the
    /// `BIFROST_LIMITED_CLPER` quirk. Cross-lane: no [`Op::fold`].
    Clper {
        xor: bool,
    },
    /// `CLPER_OLD.i32 d, a, lane` (ADD; v6's G71/G72, Mesa's
    /// `BIFROST_LIMITED_CLPER`): `a` as read by warp lane `lane` (their
    /// warps are one quad of 4 threads).
    ClperOld,
    /// `DISCARD.f32.eq a, b` (ADD): ends the invocation (the thread is
    /// marked discarded) when a == b; with `#0, #0`, unconditionally.
    DiscardF32,
    /// `BRANCHZ.i32.eq a, target` (ADD, clause-terminal): branch if a == 0.
    BranchzI32,
    /// `BRANCHZ.i32.ne a, target` (ADD, clause-terminal): branch if a ≠ 0
    /// (an `if` whose then-branch only jumps to the join branches there
    /// directly, `sched.rs::thread_empty_then`).
    BranchnzI32,
    /// `JUMP target` (ADD, clause-terminal).
    Jump,
}

impl Op {
    /// The ISA mnemonic (the `hw::isa` table name).
    pub fn name(&self) -> &'static str {
        match self {
            Op::MovI32 | Op::MovI32Fma => "MOV.i32",
            Op::IaddS32 => "IADD.s32",
            Op::IsubS32 => "ISUB.s32",
            Op::ImulI32 => "IMUL.i32",
            Op::IabsS32 => "IABS.s32",
            Op::Shift { op, .. } => match op {
                ShiftOp::LshiftOr => "LSHIFT_OR.i32",
                ShiftOp::LshiftAnd => "LSHIFT_AND.i32",
                ShiftOp::LshiftXor => "LSHIFT_XOR.i32",
                ShiftOp::RshiftOr => "RSHIFT_OR.i32",
                ShiftOp::RshiftAnd => "RSHIFT_AND.i32",
                ShiftOp::RshiftXor => "RSHIFT_XOR.i32",
            },
            Op::ArshiftI32 => "ARSHIFT.i32",
            Op::Icmp { ty, .. } => match ty {
                IcmpType::I32 => "ICMP.i32",
                IcmpType::S32 => "ICMP.s32",
                IcmpType::U32 => "ICMP.u32",
            },
            Op::Fcmp { .. } => "FCMP.f32",
            Op::MuxI32 => "MUX.i32",
            Op::CselI32Eq => "CSEL.i32",
            Op::FaddF32 { .. } | Op::FaddF32Add { .. } => "FADD.f32",
            Op::FmaF32 { .. } => "FMA.f32",
            Op::FminF32 => "FMIN.f32",
            Op::FmaxF32 => "FMAX.f32",
            Op::F32ToS32 => "F32_TO_S32",
            Op::F32ToU32 => "F32_TO_U32",
            Op::S32ToF32 => "S32_TO_F32",
            Op::U32ToF32 => "U32_TO_F32",
            Op::V2F32ToV2F16 => "V2F32_TO_V2F16",
            Op::F16ToF32 { .. } => "F16_TO_F32",
            Op::SmallIntToF32 { signed, bits, .. } => match (signed, bits) {
                (false, 8) => "U8_TO_F32",
                (true, 8) => "S8_TO_F32",
                (false, _) => "U16_TO_F32",
                (true, _) => "S16_TO_F32",
            },
            Op::FaddClampM1F32 => "FADD.f32",
            Op::FroundF32 { .. } => "FROUND.f32",
            Op::PopcountI32 => "POPCOUNT.i32",
            Op::BitrevI32 => "BITREV.i32",
            Op::ClzU32 => "CLZ.u32",
            Op::Load { bytes, .. } => match bytes {
                1 => "LOAD.i8",
                2 => "LOAD.i16",
                4 => "LOAD.i32",
                8 => "LOAD.i64",
                12 => "LOAD.i96",
                _ => "LOAD.i128",
            },
            Op::Store { bytes, .. } => match bytes {
                1 => "STORE.i8",
                2 => "STORE.i16",
                4 => "STORE.i32",
                8 => "STORE.i64",
                12 => "STORE.i96",
                _ => "STORE.i128",
            },
            Op::LdAttrImm { .. } => "LD_ATTR_IMM",
            Op::LdAttr { .. } => "LD_ATTR",
            Op::LeaAttrImm { .. } => "LEA_ATTR_IMM",
            Op::LeaAttr => "LEA_ATTR",
            Op::DtselAttribute1 => "DTSEL_IMM",
            Op::LeaAttrTex { .. } => "LEA_ATTR_TEX",
            Op::LdAttrTex { .. } => "LD_ATTR_TEX",
            Op::StCvt { .. } => "ST_CVT",
            Op::Barrier => "BARRIER",
            Op::AtomC { ret: false, .. } => "ATOM_C.i32",
            Op::AtomC { ret: true, .. } => "ATOM_C_RETURN.i32",
            Op::AtomCx => "ATOM_CX",
            Op::Axchg { .. } => "AXCHG.i32",
            Op::Acmpxchg { .. } => "ACMPXCHG.i32",
            Op::SegAddWls { .. } => "SEG_ADD",
            Op::LdVarImm { .. } => "LD_VAR_IMM",
            Op::LdVarFlatImm { .. } => "LD_VAR_FLAT_IMM",
            Op::LdVarSpecial { .. } => "LD_VAR_SPECIAL",
            Op::Atest => "ATEST",
            Op::ZsEmit { .. } => "ZS_EMIT",
            Op::Blend { .. } => "BLEND",
            Op::LdTile => "LD_TILE",
            Op::TexsF32 { .. } => "TEXS_2D.f32",
            Op::Texc => "TEXC",
            Op::Clper { .. } => "CLPER.i32",
            Op::ClperOld => "CLPER_OLD.i32",
            Op::DiscardF32 => "DISCARD.f32",
            Op::BranchzI32 | Op::BranchnzI32 => "BRANCHZ.i32",
            Op::Jump => "JUMP",
        }
    }

    /// The unit the instruction runs on.
    #[inline]
    pub fn unit(&self) -> Unit {
        match self {
            Op::ImulI32
            | Op::MovI32Fma
            | Op::CselI32Eq
            | Op::Shift { .. }
            | Op::ArshiftI32
            | Op::Fcmp { .. }
            | Op::FaddF32 { .. }
            | Op::FmaF32 { .. }
            | Op::FroundF32 { .. }
            | Op::PopcountI32
            | Op::BitrevI32
            | Op::ClzU32
            | Op::V2F32ToV2F16
            | Op::F16ToF32 { .. }
            | Op::FaddClampM1F32
            | Op::AtomC { .. }
            | Op::DtselAttribute1
            | Op::SegAddWls { high: false } => Unit::Fma,
            _ => Unit::Add,
        }
    }

    /// Number of (non-staging) sources.
    pub fn num_srcs(&self) -> usize {
        match self {
            Op::Barrier | Op::LdVarFlatImm { .. } => 0,
            Op::LdVarImm { .. } | Op::LdVarSpecial { .. } => 1,
            Op::ZsEmit { .. } => 3,
            Op::Blend { .. } | Op::LdTile => 3,
            Op::MovI32
            | Op::MovI32Fma
            | Op::IabsS32
            | Op::F32ToS32
            | Op::F32ToU32
            | Op::S32ToF32
            | Op::U32ToF32
            | Op::F16ToF32 { .. }
            | Op::SmallIntToF32 { .. }
            | Op::SegAddWls { .. }
            | Op::DtselAttribute1
            | Op::FroundF32 { .. }
            | Op::PopcountI32
            | Op::BitrevI32
            | Op::ClzU32
            | Op::Jump => 1,
            Op::Shift { .. }
            | Op::ArshiftI32
            | Op::MuxI32
            | Op::FmaF32 { .. }
            | Op::LdAttr { .. }
            | Op::LeaAttr
            | Op::LeaAttrTex { .. }
            | Op::LdAttrTex { .. }
            | Op::StCvt { .. }
            | Op::AtomC { .. }
            | Op::AtomCx
            | Op::Texc => 3,
            Op::CselI32Eq => 4,
            _ => 2,
        }
    }

    /// Modifier settings (table modifier name, option name) beyond the defaults.
    pub fn modifiers(&self) -> Vec<(&'static str, &'static str)> {
        let yn = |b: bool, y: &'static str| if b { y } else { "none" };
        match *self {
            Op::Shift {
                not1, not_result, ..
            } => vec![
                ("not1", yn(not1, "not")),
                ("not_result", yn(not_result, "not")),
            ],
            Op::Icmp { cmp, .. } => vec![("result_type", "m1"), ("cmpf", cmp.name())],
            Op::Fcmp { cmp } => vec![("result_type", "m1"), ("cmpf", cmp.name())],
            Op::MuxI32 => vec![("mux", "int_zero")],
            Op::CselI32Eq => vec![("cmpf", "eq")],
            Op::FaddF32Add { neg } => {
                vec![("neg0", yn(neg[0], "neg")), ("neg1", yn(neg[1], "neg"))]
            }
            Op::FaddF32 { neg, abs, clamp01 } => vec![
                ("neg0", yn(neg[0], "neg")),
                ("neg1", yn(neg[1], "neg")),
                ("abs0", yn(abs[0], "abs")),
                ("abs1", yn(abs[1], "abs")),
                ("clamp", if clamp01 { "clamp_0_1" } else { "none" }),
            ],
            // The product's sign is one bit: (-a) * b is encoded as a * (-b).
            Op::FmaF32 { neg } => vec![
                ("neg0", "none"),
                ("neg1", yn(neg[0] ^ neg[1], "neg")),
                ("neg2", yn(neg[2], "neg")),
            ],
            Op::FminF32 | Op::FmaxF32 => vec![("sem", "nan_suppress")],
            Op::F16ToF32 { high } => vec![("lane0", if high { "h1" } else { "h0" })],
            Op::SmallIntToF32 { bits, lane, .. } => vec![(
                "lane0",
                match (bits, lane) {
                    (8, 0) => "b0",
                    (8, 1) => "b1",
                    (8, 2) => "b2",
                    (8, _) => "b3",
                    (_, 0) => "h0",
                    _ => "h1",
                },
            )],
            Op::FaddClampM1F32 => vec![("clamp", "clamp_m1_1")],
            Op::AtomC { opc, .. } => vec![("atom_opc", opc.name())],
            Op::Axchg { seg } | Op::Acmpxchg { seg } => vec![(
                "seg",
                match seg {
                    Seg::None => "none",
                    Seg::Wls => "wls",
                    Seg::Tl => "tl",
                    Seg::Ubo => "ubo",
                },
            )],
            Op::SegAddWls { .. } => vec![("seg", "wls")],
            Op::F32ToS32 | Op::F32ToU32 => vec![("round", "rtz")],
            Op::FroundF32 { round } => vec![(
                "round",
                match round {
                    Round::Rte => "none",
                    Round::Rtp => "rtp",
                    Round::Rtn => "rtn",
                    Round::Rtz => "rtz",
                },
            )],
            Op::Load { seg, .. } | Op::Store { seg, .. } => vec![(
                "seg",
                match seg {
                    Seg::None => "none",
                    Seg::Wls => "wls",
                    Seg::Tl => "tl",
                    Seg::Ubo => "ubo",
                },
            )],
            Op::LdAttrImm { comps, .. } | Op::LdAttr { comps } => {
                vec![("register_format", "auto"), ("vecsize", vecsize(comps))]
            }
            Op::LeaAttrImm { .. } | Op::LeaAttr => vec![("register_format", "auto")],
            Op::DtselAttribute1 => vec![("table", "attribute_1")],
            Op::LeaAttrTex { ty } => vec![("register_format", register_format(ty))],
            Op::LdAttrTex { ty, comps } => vec![
                ("register_format", register_format(ty)),
                ("vecsize", vecsize(comps)),
            ],
            // ST_CVT's register format is a pseudo-modifier (not encoded):
            // the format word from LEA_ATTR carries the conversion.
            Op::StCvt { comps } => vec![("vecsize", vecsize(comps))],
            // As ST_CVT: the conversion descriptor (third source) carries
            // the register format.
            Op::LdTile => vec![("vecsize", "v4")],
            Op::BranchzI32 => vec![("cmpf", "eq")],
            Op::BranchnzI32 => vec![("cmpf", "ne")],
            Op::LdVarImm { comps, sample, .. } => vec![
                ("register_format", "f32"),
                ("sample", sample.name()),
                ("update", "store"),
                ("vecsize", vecsize(comps)),
            ],
            Op::LdVarFlatImm { comps, .. } => vec![
                ("register_format", "auto"),
                ("function", "none"),
                ("vecsize", vecsize(comps)),
            ],
            Op::LdVarSpecial { name } => vec![
                (
                    "varying_name",
                    match name {
                        VarSpecial::Point => "point",
                        VarSpecial::FragZ => "frag_z",
                        VarSpecial::FragW => "frag_w",
                    },
                ),
                ("register_format", "f32"),
                ("sample", "center"),
                ("update", "clobber"),
                (
                    "vecsize",
                    if name == VarSpecial::Point {
                        "v2"
                    } else {
                        "none"
                    },
                ),
            ],
            Op::ZsEmit { z, stencil } => vec![
                ("z", if z { "z" } else { "none" }),
                ("stencil", if stencil { "stencil" } else { "none" }),
            ],
            Op::DiscardF32 => vec![("cmpf", "eq")],
            Op::Clper { xor } => vec![
                ("lane_op", if xor { "xor" } else { "none" }),
                ("subgroup", "subgroup4"),
                ("inactive_result", "zero"),
            ],
            Op::TexsF32 { computed_lod, .. } => vec![(
                "lod_mode",
                if computed_lod {
                    "computed_lod"
                } else {
                    "zero_lod"
                },
            )],
            _ => vec![],
        }
    }

    /// Staging registers: (count, read, write) for message instructions.
    pub fn staging(&self) -> Option<(u8, bool, bool)> {
        match *self {
            Op::Load { bytes, .. } => Some((bytes.div_ceil(4), false, true)),
            Op::Store { bytes, .. } => Some((bytes.div_ceil(4), true, false)),
            Op::LdAttrImm { comps, .. } | Op::LdAttr { comps } => Some((comps, false, true)),
            Op::LeaAttrImm { .. } | Op::LeaAttr | Op::LeaAttrTex { .. } => Some((3, false, true)),
            Op::LdAttrTex { comps, .. } => Some((comps, false, true)),
            Op::StCvt { comps } => Some((comps, true, false)),
            Op::AtomCx | Op::Axchg { .. } => Some((1, true, true)),
            Op::Acmpxchg { .. } => Some((2, true, true)),
            Op::LdVarImm { comps, .. } | Op::LdVarFlatImm { comps, .. } => {
                Some((comps, false, true))
            }
            Op::LdVarSpecial { name } => {
                Some((if name == VarSpecial::Point { 2 } else { 1 }, false, true))
            }
            Op::Atest | Op::ZsEmit { .. } => Some((1, false, true)),
            Op::Blend { .. } => Some((4, true, false)),
            Op::LdTile => Some((4, false, true)),
            Op::TexsF32 { .. } => Some((4, false, true)),
            // The hardware reads only the data registers the descriptor
            // asks for; isel writes all four (see `isel/texture.rs`).
            Op::Texc => Some((4, true, true)),
            _ => None,
        }
    }

    /// The clause-header message type (0 none, 1 varying, 2 attr, 5 load,
    /// 6 store, 7 atomic, 8 barrier, 9 blend, 12 z/stencil, 13 atest).
    /// (`ST_CVT` is a `store` message: `vs_attribs.varying.disasm.txt`.)
    pub fn message_type(&self) -> u8 {
        match self {
            Op::LdVarImm { .. } | Op::LdVarFlatImm { .. } | Op::LdVarSpecial { .. } => 1,
            Op::Blend { .. } => 9,
            Op::LdTile => 10,
            Op::ZsEmit { .. } => 12,
            Op::Atest => 13,
            Op::LdAttrImm { .. } | Op::LdAttr { .. } => 2,
            Op::LeaAttrImm { .. } | Op::LeaAttr => 2,
            // UBO loads are attribute-unit messages (Mesa's G52 binaries:
            // `LOAD.i128.ubo` in clauses of type `attr`, e.g.
            // `cs_ubo_push.disasm.txt` in the reference shaders).
            Op::Load { seg: Seg::Ubo, .. } => 2,
            Op::LeaAttrTex { .. } | Op::LdAttrTex { .. } => 2,
            Op::Load { .. } => 5,
            Op::Store { .. } => 6,
            Op::StCvt { .. } => 6,
            Op::Barrier => 8,
            Op::TexsF32 { .. } | Op::Texc => 3,
            Op::AtomCx | Op::Axchg { .. } | Op::Acmpxchg { .. } => 7,
            _ => 0,
        }
    }

    #[inline]
    pub fn is_branch(&self) -> bool {
        matches!(self, Op::BranchzI32 | Op::BranchnzI32 | Op::Jump)
    }

    /// Whether the instruction ends its clause: a message (one per clause),
    /// and `DISCARD` (so that nothing after it in the clause sends a
    /// message for a discarded thread; the next clause's `td` ends it).
    #[inline]
    pub fn ends_clause(&self) -> bool {
        self.message_type() != 0 || matches!(self, Op::DiscardF32)
    }

    /// Whether the instruction writes a register through the register block
    /// (message results go to staging registers instead).
    #[inline]
    pub fn has_dest(&self) -> bool {
        !matches!(
            self,
            Op::Load { .. }
                | Op::Store { .. }
                | Op::LdAttrImm { .. }
                | Op::LdAttr { .. }
                | Op::LeaAttrImm { .. }
                | Op::LeaAttr
                | Op::LeaAttrTex { .. }
                | Op::LdAttrTex { .. }
                | Op::StCvt { .. }
                | Op::Barrier
                | Op::BranchzI32
                | Op::BranchnzI32
                | Op::Jump
                | Op::AtomC { .. }
                | Op::AtomCx
                | Op::Axchg { .. }
                | Op::Acmpxchg { .. }
                | Op::LdVarImm { .. }
                | Op::LdVarFlatImm { .. }
                | Op::LdVarSpecial { .. }
                | Op::LdTile
                | Op::DiscardF32
                | Op::TexsF32 { .. }
                | Op::Texc
        )
    }

    /// Whether the sources may be passthroughs (`t`, `t0`, `t1`). Mesa's
    /// scheduler: on cores newer than the G71, conversions that pick the
    /// upper half or a byte other than 0 of their source must not read a
    /// same-cycle temporary (`bi_impacted_t_modifiers`); we keep that rule on
    /// every core.
    #[inline]
    pub fn reads_temps(&self) -> bool {
        !matches!(
            self,
            Op::F16ToF32 { high: true } | Op::SmallIntToF32 { lane: 1..=3, .. }
        )
    }

    /// The FMA half of a pair whose ADD half must share its tuple.
    #[inline]
    pub fn needs_add_partner(&self) -> bool {
        matches!(
            self,
            Op::AtomC { .. } | Op::SegAddWls { high: false } | Op::DtselAttribute1
        )
    }

    /// The ADD half of such a pair.
    #[inline]
    pub fn is_add_partner(&self) -> bool {
        matches!(
            self,
            Op::AtomCx | Op::SegAddWls { high: true } | Op::LeaAttrTex { .. }
        )
    }

    /// Reference semantics of an ALU instruction on one lane: `None` for
    /// messages and branches.
    pub fn fold(&self, s: &[u32]) -> Option<u32> {
        let f = |i: usize| f32::from_bits(s[i]);
        let shift_amount = |v: u32| v & 0xff;
        Some(match *self {
            Op::MovI32 | Op::MovI32Fma => s[0],
            Op::IaddS32 => s[0].wrapping_add(s[1]),
            Op::IsubS32 => s[0].wrapping_sub(s[1]),
            Op::ImulI32 => s[0].wrapping_mul(s[1]),
            Op::IabsS32 => (s[0] as i32).unsigned_abs(),
            Op::Shift {
                op,
                not1,
                not_result,
            } => {
                let n = shift_amount(s[2]);
                let a = match op {
                    ShiftOp::LshiftOr | ShiftOp::LshiftAnd | ShiftOp::LshiftXor => {
                        s[0].checked_shl(n).unwrap_or(0)
                    }
                    _ => s[0].checked_shr(n).unwrap_or(0),
                };
                let b = if not1 { !s[1] } else { s[1] };
                let r = match op {
                    ShiftOp::LshiftOr | ShiftOp::RshiftOr => a | b,
                    ShiftOp::LshiftAnd | ShiftOp::RshiftAnd => a & b,
                    ShiftOp::LshiftXor | ShiftOp::RshiftXor => a ^ b,
                };
                if not_result { !r } else { r }
            }
            Op::ArshiftI32 => ((s[0] as i32) >> shift_amount(s[2]).min(31)) as u32,
            Op::Icmp { ty, cmp } => {
                let (a, b) = (s[0], s[1]);
                let ord = match ty {
                    IcmpType::S32 => (a as i32).cmp(&(b as i32)),
                    _ => a.cmp(&b),
                };
                mask(match cmp {
                    Cmp::Eq => ord.is_eq(),
                    Cmp::Ne => ord.is_ne(),
                    Cmp::Lt => ord.is_lt(),
                    Cmp::Le => ord.is_le(),
                    Cmp::Gt => ord.is_gt(),
                    Cmp::Ge => ord.is_ge(),
                })
            }
            Op::Fcmp { cmp } => {
                let (a, b) = (f(0), f(1));
                mask(match cmp {
                    Cmp::Eq => a == b,
                    Cmp::Ne => a != b,
                    Cmp::Lt => a < b,
                    Cmp::Le => a <= b,
                    Cmp::Gt => a > b,
                    Cmp::Ge => a >= b,
                })
            }
            Op::CselI32Eq => {
                if s[0] == s[1] {
                    s[2]
                } else {
                    s[3]
                }
            }
            Op::MuxI32 => {
                if s[2] == 0 {
                    s[0]
                } else {
                    s[1]
                }
            }
            Op::FaddF32Add { neg } => {
                let m = |i: usize| if neg[i] { -f(i) } else { f(i) };
                (m(0) + m(1)).to_bits()
            }
            Op::FaddF32 { neg, abs, clamp01 } => {
                let m = |i: usize| {
                    let v = if abs[i] { f(i).abs() } else { f(i) };
                    if neg[i] { -v } else { v }
                };
                let r = m(0) + m(1);
                if clamp01 { clamp_0_1(r) } else { r }.to_bits()
            }
            Op::FmaF32 { neg } => {
                let m = |i: usize| if neg[i] { -f(i) } else { f(i) };
                m(0).mul_add(m(1), m(2)).to_bits()
            }
            Op::FminF32 => f(0).min(f(1)).to_bits(),
            Op::FmaxF32 => f(0).max(f(1)).to_bits(),
            Op::F32ToS32 => f(0) as i32 as u32,
            Op::F32ToU32 => f(0) as u32,
            Op::S32ToF32 => (s[0] as i32 as f32).to_bits(),
            Op::U32ToF32 => (s[0] as f32).to_bits(),
            Op::V2F32ToV2F16 => {
                u32::from(fp16::f32_to_f16(f(0), false))
                    | (u32::from(fp16::f32_to_f16(f(1), false)) << 16)
            }
            Op::F16ToF32 { high } => {
                fp16::f16_to_f32_bits((s[0] >> if high { 16 } else { 0 }) as u16)
            }
            Op::SmallIntToF32 { signed, bits, lane } => {
                let shift = 32 - u32::from(bits);
                let up = s[0] >> (u32::from(bits) * u32::from(lane)) << shift;
                let v = if signed {
                    ((up as i32) >> shift) as f32
                } else {
                    (up >> shift) as f32
                };
                v.to_bits()
            }
            Op::FaddClampM1F32 => {
                let r = f(0) + f(1);
                if r.is_nan() { 0.0 } else { r.clamp(-1.0, 1.0) }.to_bits()
            }
            Op::FroundF32 { round } => match round {
                Round::Rte => f(0).round_ties_even(),
                Round::Rtp => f(0).ceil(),
                Round::Rtn => f(0).floor(),
                Round::Rtz => f(0).trunc(),
            }
            .to_bits(),
            Op::PopcountI32 => s[0].count_ones(),
            Op::BitrevI32 => s[0].reverse_bits(),
            Op::ClzU32 => s[0].leading_zeros(),
            _ => return None,
        })
    }
}

/// The `vecsize` modifier of an attribute load/store of `comps` components.
/// The `register_format` option of registers holding `ty`.
fn register_format(ty: crate::compiler::ir::SampledType) -> &'static str {
    match ty {
        crate::compiler::ir::SampledType::Float => "f32",
        crate::compiler::ir::SampledType::Sint => "s32",
        crate::compiler::ir::SampledType::Uint => "u32",
    }
}

fn vecsize(comps: u8) -> &'static str {
    match comps {
        1 => "none",
        2 => "v2",
        3 => "v3",
        _ => "v4",
    }
}

fn mask(b: bool) -> u32 {
    if b { u32::MAX } else { 0 }
}

fn clamp_0_1(x: f32) -> f32 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// One backend instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    pub op: Op,
    /// Register result (or the first staging register of a load).
    pub dst: Option<Dst>,
    /// Sources in ISA order; for `STORE` and `ST_CVT`, `srcs[0]` is the
    /// first staging (data) register and the address follows. Up to four
    /// in place (`InlineVec`: no allocation per instruction).
    pub srcs: SrcList,
    /// The write defines only part of a vector being built (liveness must
    /// not treat it as killing the whole vector).
    pub partial: bool,
}

impl Instr {
    pub fn new(op: Op, dst: Option<Dst>, srcs: impl Into<SrcList>) -> Instr {
        Instr {
            op,
            dst,
            srcs: srcs.into(),
            partial: false,
        }
    }

    /// The sources the instruction encodes (STORE's and ST_CVT's staging data excluded).
    #[inline]
    pub fn encoded_srcs(&self) -> &[Src] {
        if matches!(
            self.op,
            Op::Store { .. }
                | Op::StCvt { .. }
                | Op::AtomCx
                | Op::Axchg { .. }
                | Op::Acmpxchg { .. }
                | Op::Blend { .. }
                | Op::Texc
        ) {
            &self.srcs[1..]
        } else {
            &self.srcs
        }
    }
}

impl fmt::Display for Src {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Src::Reg(r) => write!(f, "%{}.{}", r.index, r.comp),
            Src::Phys(p) => write!(f, "r{p}"),
            Src::Imm(v) => write!(f, "{v:#x}"),
            Src::Uniform { word, high } => write!(f, "u{word}.w{}", u8::from(high)),
            Src::Special { slot, high } => write!(f, "fau{slot}.w{}", u8::from(high)),
        }
    }
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.dst {
            Some(Dst::Reg(r)) => write!(f, "%{}.{} = ", r.index, r.comp)?,
            Some(Dst::Phys(p)) => write!(f, "r{p} = ")?,
            None => {}
        }
        write!(f, "{}", self.op.name())?;
        for (m, v) in self.op.modifiers() {
            if v != "none" {
                write!(f, ".{m}={v}")?;
            }
        }
        for (i, s) in self.srcs.iter().enumerate() {
            write!(f, "{}{s}", if i == 0 { " " } else { ", " })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds() {
        let sh = Op::Shift {
            op: ShiftOp::LshiftOr,
            not1: false,
            not_result: false,
        };
        assert_eq!(sh.fold(&[3, 0, 4]), Some(48));
        assert_eq!(sh.fold(&[3, 0, 32]), Some(0));
        assert_eq!(Op::MuxI32.fold(&[1, 2, 0]), Some(1));
        assert_eq!(Op::MuxI32.fold(&[1, 2, 5]), Some(2));
        let lt = Op::Icmp {
            ty: IcmpType::S32,
            cmp: Cmp::Lt,
        };
        assert_eq!(lt.fold(&[u32::MAX, 0]), Some(u32::MAX));
        assert_eq!(Op::F32ToS32.fold(&[f32::NAN.to_bits()]), Some(0));
        assert_eq!(Op::Jump.fold(&[0]), None);
    }

    /// The half conversions' folds agree with the IR's definition
    /// (`ir::eval`, IEEE through `half`) on every half and on a spread of
    /// floats covering every exponent, ties, NaNs and infinities; a widened
    /// NaN only has to stay a NaN (`fp16` documents the difference).
    #[test]
    fn half_conversion_folds_agree_with_the_ir() {
        use crate::compiler::ir::eval::{f16_to_f32, f64_to_f16};
        for h in 0..=0xffffu16 {
            let want = f16_to_f32(h);
            let got = f32::from_bits(Op::F16ToF32 { high: false }.fold(&[u32::from(h)]).unwrap());
            if want.is_nan() {
                assert!(got.is_nan(), "{h:#x}");
            } else {
                assert_eq!(got.to_bits(), want.to_bits(), "{h:#x}");
                let back = Op::V2F32ToV2F16.fold(&[want.to_bits(), 0]).unwrap();
                assert_eq!(back, u32::from(h), "{h:#x}");
            }
        }
        for i in 0..(1u64 << 22) {
            let bits = (i * 1021 + (i >> 3)) as u32;
            for b in [bits, bits | 0x1000, bits & !0xfff] {
                let x = f32::from_bits(b);
                let got = Op::V2F32ToV2F16.fold(&[b, 0]).unwrap();
                assert_eq!(got, u32::from(f64_to_f16(f64::from(x))), "{b:#x}");
            }
        }
    }
}
