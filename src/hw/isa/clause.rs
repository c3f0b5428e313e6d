//! The Bifrost clause container at the bit level: quadword formats, the
//! 45-bit clause header, the 35-bit register block, tuples and embedded
//! constants; decoding a clause into the neutral form of `super::decoded`
//! and encoding that form back to bytes.
//!
//! Decoding is fed arbitrary GPU memory (the simulated shader core fetches
//! through it): it must never panic, never index out of bounds and never loop
//! without consuming input. Everything malformed is a `DecodeError` value.

use thiserror::Error;

use super::decoded::{ConstMod, DecodedClause, Instr, Operand, RegWrite, Tuple, WriteHalf};
use super::opcode::{InstrFields, OpError, Unit, decode_instr, encode_instr};

/// Size of a quadword in bytes.
pub const QUADWORD_BYTES: usize = 16;
/// Most tuples a clause can hold.
pub const MAX_TUPLES: usize = 8;

/// Why a clause could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DecodeError {
    #[error("clause truncated: quadword {quadword} lies beyond the end of the input")]
    Truncated { quadword: usize },
    #[error("quadword {quadword}: tag {tag:#04x} is not a valid clause format")]
    BadTag { quadword: usize, tag: u8 },
    #[error("quadword {quadword}: format with tag {tag:#04x} is out of sequence")]
    UnexpectedFormat { quadword: usize, tag: u8 },
    #[error("reserved bits set in {what}")]
    ReservedBits { what: &'static str },
    #[error("tuple {tuple}: register block control {ctrl} is reserved")]
    RegisterMode { tuple: usize, ctrl: u8 },
    #[error("tuple {tuple} {unit:?}: {source}")]
    Instr {
        tuple: usize,
        unit: Unit,
        #[source]
        source: OpError,
    },
    #[error("tuple {tuple}: FAU index {fau:#04x} names a constant the clause does not have")]
    MissingConstant { tuple: usize, fau: u8 },
    #[error("constant {index}: reserved PC-relative modifier")]
    ConstantModifier { index: usize },
    #[error("no clause here: the first word is zero")]
    ZeroWord,
    #[error(
        "tuple {tuple}: source reads register port {port}, which the register block does not read"
    )]
    PortNotRead { tuple: usize, port: u8 },
}

/// Why a neutral clause could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum EncodeError {
    #[error("a clause holds 1 to 8 tuples, not {0}")]
    TupleCount(usize),
    #[error("tuple {tuple} {unit:?}: {source}")]
    Instr {
        tuple: usize,
        unit: Unit,
        #[source]
        source: OpError,
    },
    #[error("{count} constants do not fit a clause of {tuples} tuples")]
    TooManyConstants { count: usize, tuples: usize },
    #[error("constant {0} has non-zero low 4 bits (they come from the FAU index)")]
    ConstantLowBits(usize),
    #[error("field {what} out of range")]
    Range { what: &'static str },
}

// ---------------------------------------------------------------------------
// Clause header

/// Flow control of a clause (header bits 11..14).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlowControl {
    /// End of shader (`eos`).
    End = 0,
    /// Not back-to-back, PC-encoded reconvergence (`nbb br_pc`).
    NbtbPc = 1,
    /// Not back-to-back, unconditional reconvergence (`nbb r_uncond`).
    NbtbUnconditional = 2,
    /// Not back-to-back (`nbb`).
    Nbtb = 3,
    /// Back-to-back, unconditional reconvergence (`bb r_uncond`).
    BtbUnconditional = 4,
    /// Back-to-back (`bb`).
    Btb = 5,
    /// Write elision, unconditional reconvergence (`we r_uncond`).
    WriteElisionUnconditional = 6,
    /// Write elision (`we`).
    WriteElision = 7,
}

impl FlowControl {
    /// From the 3-bit field.
    pub fn from_bits(v: u8) -> Self {
        match v & 7 {
            0 => Self::End,
            1 => Self::NbtbPc,
            2 => Self::NbtbUnconditional,
            3 => Self::Nbtb,
            4 => Self::BtbUnconditional,
            5 => Self::Btb,
            6 => Self::WriteElisionUnconditional,
            _ => Self::WriteElision,
        }
    }

    /// Disassembly spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::End => "eos",
            Self::NbtbPc => "nbb br_pc",
            Self::NbtbUnconditional => "nbb r_uncond",
            Self::Nbtb => "nbb",
            Self::BtbUnconditional => "bb r_uncond",
            Self::Btb => "bb",
            Self::WriteElisionUnconditional => "we r_uncond",
            Self::WriteElision => "we",
        }
    }

    /// All values, for parsing.
    pub const ALL: [FlowControl; 8] = [
        Self::End,
        Self::NbtbPc,
        Self::NbtbUnconditional,
        Self::Nbtb,
        Self::BtbUnconditional,
        Self::Btb,
        Self::WriteElisionUnconditional,
        Self::WriteElision,
    ];
}

/// Message type names as printed in clause headers, by 5-bit value.
pub fn message_type_name(v: u8) -> &'static str {
    match v {
        0 => "",
        1 => "vary",
        2 => "attr",
        3 => "tex",
        4 => "vartex",
        5 => "load",
        6 => "store",
        7 => "atomic",
        8 => "barrier",
        9 => "blend",
        10 => "tile",
        12 => "z_stencil",
        13 => "atest",
        14 => "job",
        15 => "64",
        _ => "XXX reserved",
    }
}

/// The 45-bit clause header, field by field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ClauseHeader {
    /// Bits 5..7: flush-to-zero mode (0 off, 1 DX11, 2 always, 3 abrupt).
    pub flush_to_zero: u8,
    /// Bit 7: clamp infinities to the largest finite value.
    pub suppress_inf: bool,
    /// Bit 8: turn NaN into +0.
    pub suppress_nan: bool,
    /// Bits 9..11: float exceptions (0 on, 1 off, 2 precise division, 3 precise sqrt).
    pub float_exceptions: u8,
    /// Bits 11..14.
    pub flow_control: u8,
    /// Bit 15.
    pub terminate_discarded_threads: bool,
    /// Bit 16: the next clause may be prefetched.
    pub next_clause_prefetch: bool,
    /// Bit 17: wait for staging reads of outstanding messages after this clause.
    pub staging_barrier: bool,
    /// Bits 18..24: first staging register of this clause's message.
    pub staging_register: u8,
    /// Bits 24..32: scoreboard slots waited on before the clause starts.
    pub dependency_wait: u8,
    /// Bits 32..35: scoreboard slot this clause's message signals.
    pub dependency_slot: u8,
    /// Bits 35..40: this clause's message type.
    pub message_type: u8,
    /// Bits 40..45: the next clause's message type.
    pub next_message_type: u8,
}

impl ClauseHeader {
    /// Unpacks the 45-bit header; reserved bits 0..5 and 14 must be zero.
    pub fn from_bits(bits: u64) -> Result<Self, DecodeError> {
        if bits & 0x1f != 0 || bits & (1 << 14) != 0 || bits >> 45 != 0 {
            return Err(DecodeError::ReservedBits {
                what: "clause header",
            });
        }
        let f = |start: u32, size: u32| ((bits >> start) & ((1 << size) - 1)) as u8;
        Ok(Self {
            flush_to_zero: f(5, 2),
            suppress_inf: f(7, 1) != 0,
            suppress_nan: f(8, 1) != 0,
            float_exceptions: f(9, 2),
            flow_control: f(11, 3),
            terminate_discarded_threads: f(15, 1) != 0,
            next_clause_prefetch: f(16, 1) != 0,
            staging_barrier: f(17, 1) != 0,
            staging_register: f(18, 6),
            dependency_wait: f(24, 8),
            dependency_slot: f(32, 3),
            message_type: f(35, 5),
            next_message_type: f(40, 5),
        })
    }

    /// Packs the header (fields are truncated to their widths).
    pub fn to_bits(&self) -> u64 {
        let g = |v: u8, start: u32, size: u32| (u64::from(v) & ((1 << size) - 1)) << start;
        g(self.flush_to_zero, 5, 2)
            | g(self.suppress_inf.into(), 7, 1)
            | g(self.suppress_nan.into(), 8, 1)
            | g(self.float_exceptions, 9, 2)
            | g(self.flow_control, 11, 3)
            | g(self.terminate_discarded_threads.into(), 15, 1)
            | g(self.next_clause_prefetch.into(), 16, 1)
            | g(self.staging_barrier.into(), 17, 1)
            | g(self.staging_register, 18, 6)
            | g(self.dependency_wait, 24, 8)
            | g(self.dependency_slot, 32, 3)
            | g(self.message_type, 35, 5)
            | g(self.next_message_type, 40, 5)
    }

    /// The flow control as an enum.
    pub fn flow(&self) -> FlowControl {
        FlowControl::from_bits(self.flow_control)
    }
}

// ---------------------------------------------------------------------------
// Register block

/// What register port 2 or 3 does in a tuple.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotOp {
    Idle,
    Read,
    Write,
    WriteLo,
    WriteHi,
}

/// Decoded meaning of the control bits: port 2 and port 3 behaviour and
/// which unit's result port 3 writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SlotModes {
    pub slot2: SlotOp,
    pub slot3: SlotOp,
    /// Port 3 writes the FMA result (else the ADD result).
    pub slot3_fma: bool,
}

/// The 5-bit register mode table (index = control value after the
/// first-tuple / reg2==reg3 adjustment). `None` = reserved.
const fn mode(slot2: SlotOp, slot3: SlotOp, slot3_fma: bool) -> Option<SlotModes> {
    Some(SlotModes {
        slot2,
        slot3,
        slot3_fma,
    })
}

/// Register-block modes by 5-bit value (`None` is reserved).
pub const REG_MODES: [Option<SlotModes>; 32] = {
    use SlotOp::*;
    [
        None,
        mode(Read, WriteLo, true),
        mode(Read, WriteHi, true),
        mode(Read, Write, true),
        mode(Read, WriteLo, false),
        mode(Read, WriteHi, false),
        mode(Read, Write, false),
        mode(WriteLo, WriteLo, false),
        mode(WriteLo, WriteHi, false),
        mode(WriteLo, Write, false),
        mode(WriteHi, WriteLo, false),
        mode(WriteHi, WriteHi, false),
        mode(WriteHi, Write, false),
        mode(Write, WriteLo, false),
        mode(Write, WriteHi, false),
        mode(Write, Write, false),
        mode(Idle, Idle, true), // 16: idle, first tuple
        mode(Idle, Write, true),
        mode(Idle, WriteLo, true),
        mode(Idle, WriteHi, true),
        mode(Read, Idle, false),
        mode(Idle, Write, false),
        mode(Idle, WriteLo, false),
        mode(Idle, WriteHi, false),
        mode(WriteLo, WriteHi, false), // 24: mixed FMA lo / ADD hi
        None,
        mode(WriteHi, WriteLo, false), // 26: mixed
        mode(Idle, Idle, true),        // 27: idle
        None,
        None,
        None,
        None,
    ]
};

/// Index of `modes` in [`MODE_OF`].
const fn modes_key(slot2: SlotOp, slot3: SlotOp, slot3_fma: bool) -> usize {
    (slot2 as usize * 5 + slot3 as usize) * 2 + slot3_fma as usize
}

/// The inverse of [`REG_MODES`] for packing: the first mode (1..32, the
/// two idle modes 16 and 27 aside) with the given slot behaviour, 0 where
/// none has it.
const MODE_OF: [u8; 50] = {
    let mut table = [0u8; 50];
    let mut i = 31;
    while i >= 1 {
        if let Some(m) = REG_MODES[i]
            && i != 16
            && i != 27
        {
            table[modes_key(m.slot2, m.slot3, m.slot3_fma)] = i as u8;
        }
        i -= 1;
    }
    table
};

/// The 35-bit register block as stored: `fau_idx` 8, `reg3` 6, `reg2` 6,
/// `reg0` 5, `reg1` 6, `ctrl` 4 (low to high).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RegBlock {
    pub fau_idx: u8,
    pub reg3: u8,
    pub reg2: u8,
    pub reg0: u8,
    pub reg1: u8,
    pub ctrl: u8,
}

/// What a register block means for one tuple.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegPorts {
    /// Register read through port 0, if enabled.
    pub port0: Option<u8>,
    /// Register read through port 1, if enabled.
    pub port1: Option<u8>,
    /// Register number on port 2 (meaningful unless `modes.slot2` is idle).
    pub reg2: u8,
    /// Register number on port 3.
    pub reg3: u8,
    /// Port 2/3 behaviour.
    pub modes: SlotModes,
    /// The raw 5-bit mode index into [`REG_MODES`].
    pub mode: u8,
}

impl RegBlock {
    /// Unpacks 35 bits.
    pub fn from_bits(bits: u64) -> Self {
        let f = |start: u32, size: u32| ((bits >> start) & ((1 << size) - 1)) as u8;
        Self {
            fau_idx: f(0, 8),
            reg3: f(8, 6),
            reg2: f(14, 6),
            reg0: f(20, 5),
            reg1: f(25, 6),
            ctrl: f(31, 4),
        }
    }

    /// Packs to 35 bits (fields truncated to their widths).
    pub fn to_bits(&self) -> u64 {
        let g = |v: u8, start: u32, size: u32| (u64::from(v) & ((1 << size) - 1)) << start;
        g(self.fau_idx, 0, 8)
            | g(self.reg3, 8, 6)
            | g(self.reg2, 14, 6)
            | g(self.reg0, 20, 5)
            | g(self.reg1, 25, 6)
            | g(self.ctrl, 31, 4)
    }

    /// Register number port 0 reads (as printed even if the port is off).
    pub fn reg0_number(&self) -> u8 {
        if self.ctrl == 0 {
            self.reg0 | ((self.reg1 & 1) << 5)
        } else if self.reg0 <= self.reg1 {
            self.reg0
        } else {
            63 - self.reg0
        }
    }

    /// Register number port 1 reads.
    pub fn reg1_number(&self) -> u8 {
        if self.reg0 <= self.reg1 {
            self.reg1
        } else {
            63 - self.reg1
        }
    }

    /// The 5-bit mode index: `first` is true for the clause's first tuple
    /// (whose block also carries the last tuple's writes).
    pub fn mode_index(&self, first: bool) -> u8 {
        let mut ctrl = if self.ctrl == 0 {
            self.reg1 >> 2
        } else {
            self.ctrl
        };
        if first {
            ctrl = (ctrl & 7) | ((ctrl & 8) << 1);
        } else if self.reg2 == self.reg3 {
            ctrl += 16;
        }
        ctrl
    }

    /// Decodes ports and modes; a reserved mode is `None`.
    pub fn ports(&self, first: bool) -> Option<RegPorts> {
        let mode = self.mode_index(first);
        let modes = REG_MODES[mode as usize & 31]?;
        let (read0, read1) = if self.ctrl == 0 {
            (self.reg1 & 2 == 0, false)
        } else {
            (true, true)
        };
        Some(RegPorts {
            port0: read0.then(|| self.reg0_number()),
            port1: read1.then(|| self.reg1_number()),
            reg2: self.reg2,
            reg3: self.reg3,
            modes,
            mode,
        })
    }
}

/// Register reads and writes wanted from one register block, before packing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortRequest {
    /// Port 0 read.
    pub port0: Option<u8>,
    /// Port 1 read (requires port 0; must differ from it).
    pub port1: Option<u8>,
    /// Port 2 read.
    pub read2: Option<u8>,
    /// Write of the previous tuple's FMA result (register, half).
    pub write_fma: Option<(u8, WriteHalf)>,
    /// Write of the previous tuple's ADD result.
    pub write_add: Option<(u8, WriteHalf)>,
    /// FAU index.
    pub fau_idx: u8,
}

fn slot_op(h: WriteHalf) -> SlotOp {
    match h {
        WriteHalf::Full => SlotOp::Write,
        WriteHalf::Lo => SlotOp::WriteLo,
        WriteHalf::Hi => SlotOp::WriteHi,
    }
}

impl PortRequest {
    /// Packs a request into a register block the way Mesa's packer does: the
    /// ADD write takes port 3, the FMA write takes port 3 if free else port 2;
    /// port 1 must be the higher register (the `63 - x` trick); in the first
    /// tuple, and whenever only one of ports 2/3 is busy, reg2 equals reg3.
    /// Returns `None` for combinations that have no encoding.
    pub fn pack(&self, first: bool) -> Option<RegBlock> {
        let mut slot2 = SlotOp::Idle;
        let mut slot3 = SlotOp::Idle;
        let mut slot3_fma = false;
        let (mut r2, mut r3) = (0u8, 0u8);
        if let Some(r) = self.read2 {
            slot2 = SlotOp::Read;
            r2 = r;
        }
        if let Some((r, h)) = self.write_add {
            slot3 = slot_op(h);
            r3 = r;
        }
        if let Some((r, h)) = self.write_fma {
            if slot3 != SlotOp::Idle {
                if slot2 != SlotOp::Idle {
                    return None;
                }
                slot2 = slot_op(h);
                r2 = r;
            } else {
                slot3 = slot_op(h);
                slot3_fma = true;
                r3 = r;
            }
        }
        let idle = slot2 == SlotOp::Idle && slot3 == SlotOp::Idle;
        let modes = SlotModes {
            slot2,
            slot3,
            // The idle modes carry the FMA flag as a placeholder.
            slot3_fma: slot3_fma || idle,
        };
        let mode = if idle {
            if first { 16 } else { 27 }
        } else {
            match MODE_OF[modes_key(modes.slot2, modes.slot3, modes.slot3_fma)] {
                0 => return None,
                m => m,
            }
        };
        let (ctrl, r2_eq_r3) = if first {
            if mode & 8 != 0 {
                return None;
            }
            (
                (mode & 7) | ((mode & 0x10) >> 1),
                !(slot2 != SlotOp::Idle && slot3 != SlotOp::Idle),
            )
        } else {
            (mode & 0xf, mode & 0x10 != 0)
        };
        let mut block = RegBlock {
            fau_idx: self.fau_idx,
            ..RegBlock::default()
        };
        match (self.port0, self.port1) {
            (Some(a), Some(b)) => {
                let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                if lo == hi || lo > 63 || hi > 63 {
                    return None;
                }
                let (lo, hi) = if lo > 31 {
                    (63 - lo, 63 - hi)
                } else {
                    (lo, hi)
                };
                // After the trick port 0 > port 1 marks the flipped case.
                block.ctrl = ctrl;
                block.reg0 = lo;
                block.reg1 = hi;
                if ctrl == 0 {
                    return None;
                }
            }
            (Some(a), None) => {
                if a > 63 {
                    return None;
                }
                block.reg1 = (ctrl << 2) | (a >> 5);
                block.reg0 = a & 31;
            }
            (None, None) => block.reg1 = (ctrl << 2) | 2,
            (None, Some(_)) => return None,
        }
        if r2_eq_r3 {
            if slot2 != SlotOp::Idle && slot3 != SlotOp::Idle && r2 != r3 {
                return None;
            }
            if slot2 != SlotOp::Idle {
                r3 = r2;
            } else {
                r2 = r3;
            }
        } else if !first && r2 == r3 {
            return None;
        }
        block.reg2 = r2;
        block.reg3 = r3;
        // The packed block must read back as requested.
        let back = block.ports(first)?;
        (back.modes == modes).then_some(block)
    }
}

// ---------------------------------------------------------------------------
// Quadword formats

/// What one piece of a quadword holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sub {
    /// A literal value (tag fields).
    Lit(u8),
    /// Upper 3 bits (75..78) of tuple n.
    Upper(u8),
    /// Bits of tuple n (which bits depends on the slot).
    Tuple(u8),
    /// Clause header.
    Header,
    /// Must be zero.
    Reserved,
    /// Embedded constant 0 (part of it).
    Const,
    /// Constant modifier bits.
    M,
    /// Clause-end bit: 1 when no constant quadwords follow.
    Z,
    /// Upper bits of two tuples (n, n+1) at 12 and 9.
    Upper2(u8),
}

/// One of the 14 instruction quadword formats: tag pieces (2, 3, 3 bits from
/// the top of the tag byte), then the 60-, 15-, 30- and 15-bit slots.
#[derive(Clone, Copy, Debug)]
struct Format {
    /// Format number as in the ISA documentation (0..11).
    number: u8,
    /// Quadword position within the clause.
    pos: u8,
    tag1: Sub,
    tag2: Sub,
    tag3: Sub,
    s0_s3: Sub,
    s4: Sub,
    s5_s6: Sub,
    s7: Sub,
}

const fn fmt(number: u8, pos: u8, t: [Sub; 3], s: [Sub; 4]) -> Format {
    Format {
        number,
        pos,
        tag1: t[0],
        tag2: t[1],
        tag3: t[2],
        s0_s3: s[0],
        s4: s[1],
        s5_s6: s[2],
        s7: s[3],
    }
}

use Sub::{Const as EC, Header as H, Lit as L, M, Reserved as R, Tuple as T, Upper as U, Z};

const FORMATS: [Format; 14] = [
    fmt(0, 0, [L(0), L(5), U(0)], [T(0), T(0), H, H]),
    fmt(0, 0, [Z, L(1), U(0)], [T(0), T(0), H, H]),
    fmt(1, 1, [Z, L(0), L(3)], [T(1), T(1), R, U(1)]),
    fmt(2, 1, [L(0), L(4), U(1)], [T(1), T(1), T(2), T(2)]),
    fmt(3, 2, [Z, L(0), L(4)], [EC, M, T(2), U(2)]),
    fmt(4, 2, [L(0), L(0), L(1)], [T(3), T(3), T(2), Sub::Upper2(2)]),
    fmt(4, 2, [Z, L(0), L(5)], [T(3), T(3), T(2), Sub::Upper2(2)]),
    fmt(5, 2, [L(2), U(3), U(2)], [T(3), T(3), T(2), EC]),
    fmt(6, 3, [Z, L(2), U(4)], [T(4), T(4), EC, EC]),
    fmt(7, 3, [L(1), L(4), U(4)], [T(4), T(4), T(5), T(5)]),
    fmt(8, 4, [Z, L(0), L(6)], [EC, M, T(5), U(5)]),
    fmt(9, 4, [Z, L(0), L(7)], [T(6), T(6), T(5), Sub::Upper2(5)]),
    fmt(10, 4, [L(3), U(6), U(5)], [T(6), T(6), T(5), EC]),
    fmt(11, 5, [Z, L(3), U(7)], [T(7), T(7), EC, EC]),
];

/// Instruction quadword formats used for each tuple count (index = count - 1).
const FORMAT_SEQUENCES: [&[usize]; 8] = [
    &[1],
    &[0, 2],
    &[0, 3, 4],
    &[0, 3, 6],
    &[0, 3, 7, 8],
    &[0, 3, 5, 9, 10],
    &[0, 3, 5, 9, 11],
    &[0, 3, 5, 9, 12, 13],
];

/// Position field of each constant quadword by tuple count and quadword index.
const CONST_POSITIONS: [&[u8]; 8] = [
    &[0],
    &[1],
    &[3],
    &[2, 5],
    &[4, 8],
    &[7, 11, 14],
    &[6, 10, 13],
    &[9, 12],
];

/// Whether embedded constant 0 lives inside the instruction quadwords.
fn ec0_packed(tuples: usize) -> bool {
    matches!(tuples, 3 | 5 | 6 | 8)
}

/// The most constant slots any clause has (six tuples: the packed one and
/// three quadwords of two).
pub const MAX_CONSTANTS: usize = 7;

/// Constant slots usable by a clause of `tuples` tuples.
pub fn max_constants(tuples: usize) -> usize {
    if tuples == 0 || tuples > MAX_TUPLES {
        return 0;
    }
    usize::from(ec0_packed(tuples)) + 2 * CONST_POSITIONS[tuples - 1].len()
}

fn bits128(v: u128, start: u32, size: u32) -> u128 {
    (v >> start) & ((1u128 << size) - 1)
}

/// Tuple bit range held by a `T(n)` in a given slot.
fn tuple_range(slot: usize, format_number: u8) -> (u32, u32) {
    match slot {
        0 => (0, 60),
        1 => (60, 15),
        2 if format_number == 2 || format_number == 7 => (0, 30),
        2 => (45, 30),
        _ => (30, 15),
    }
}

/// Slot (start, size) within the 128-bit quadword.
const SLOTS: [(u32, u32); 4] = [(8, 60), (68, 15), (83, 30), (113, 15)];

/// Classifies a tag byte as an instruction format (index into FORMATS).
fn classify(tag: u8) -> Option<usize> {
    let t1 = tag >> 6;
    let t2 = (tag >> 3) & 7;
    let t3 = tag & 7;
    if tag & 0x80 != 0 {
        return Some(if t1 == 2 { 7 } else { 12 });
    }
    let z_ok = t1 <= 1;
    match t2 {
        0 => match (t3, t1) {
            (3, _) => Some(2),
            (4, _) => Some(4),
            (1, 0) => Some(5),
            (5, _) => Some(6),
            (6, _) => Some(10),
            (7, _) => Some(11),
            _ => None,
        },
        1 => Some(1),
        2 => Some(8),
        3 => Some(13),
        4 => Some(if t1 == 0 { 3 } else { 9 }),
        5 if t1 == 0 => Some(0),
        _ => None,
    }
    .filter(|_| z_ok)
}

fn read_quadword(bytes: &[u8], index: usize) -> Result<u128, DecodeError> {
    let start = index * QUADWORD_BYTES;
    let chunk = bytes
        .get(start..start + QUADWORD_BYTES)
        .ok_or(DecodeError::Truncated { quadword: index })?;
    let mut buf = [0u8; 16];
    buf.copy_from_slice(chunk);
    Ok(u128::from_le_bytes(buf))
}

/// Raw bit-level content of a clause, before instruction decoding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawClause {
    /// 45-bit header.
    pub header: u64,
    /// 78-bit tuples.
    pub tuples: Vec<u128>,
    /// Constants as 64-bit values whose low 4 bits are zero.
    pub constants: Vec<u64>,
    /// The 15-bit slot carrying constant 0's M bits (formats 3 and 8), else 0.
    pub m_field: u16,
    /// Quadwords consumed.
    pub quadwords: usize,
}

/// Splits a clause into header, tuples and constants (no instruction decoding).
pub fn split_clause(bytes: &[u8]) -> Result<RawClause, DecodeError> {
    let first = read_quadword(bytes, 0)?;
    if first as u32 == 0 {
        return Err(DecodeError::ZeroWord);
    }
    let mut tuples = [0u128; MAX_TUPLES];
    let mut header = 0u64;
    let mut ec0 = 0u64;
    let mut m_field = 0u16;
    let mut seen: Vec<usize> = Vec::new();
    let mut z = false;
    let mut q = 0usize;
    let count = loop {
        let word = read_quadword(bytes, q)?;
        let tag = word as u8;
        let f_index = classify(tag).ok_or(DecodeError::BadTag { quadword: q, tag })?;
        let f = &FORMATS[f_index];
        if usize::from(f.pos) != q {
            return Err(DecodeError::UnexpectedFormat { quadword: q, tag });
        }
        seen.push(f_index);
        let tag_parts = [
            (f.tag1, u32::from(tag >> 6)),
            (f.tag2, u32::from((tag >> 3) & 7)),
            (f.tag3, u32::from(tag & 7)),
        ];
        for (sub, v) in tag_parts {
            match sub {
                Sub::Lit(l) if u32::from(l) != v => {
                    return Err(DecodeError::BadTag { quadword: q, tag });
                }
                Sub::Upper(n) => tuples[usize::from(n)] |= u128::from(v) << 75,
                Sub::Z => z = v == 1,
                _ => {}
            }
        }
        for (slot, (sub, (start, size))) in [f.s0_s3, f.s4, f.s5_s6, f.s7]
            .into_iter()
            .zip(SLOTS)
            .enumerate()
        {
            let v = bits128(word, start, size);
            match sub {
                Sub::Tuple(n) => {
                    let (ts, _) = tuple_range(slot, f.number);
                    tuples[usize::from(n)] |= v << ts;
                }
                Sub::Header => {
                    header |= (v as u64) << if slot == 2 { 0 } else { 30 };
                }
                Sub::Reserved => {
                    if v != 0 {
                        return Err(DecodeError::ReservedBits {
                            what: "clause format",
                        });
                    }
                }
                Sub::Const => {
                    let shift = match slot {
                        0 => 0,
                        2 => 15,
                        _ if f.number == 5 || f.number == 10 => 0,
                        _ => 45,
                    };
                    ec0 |= (v as u64) << shift;
                }
                Sub::M => m_field = v as u16,
                Sub::Upper(n) => {
                    if v & 0xfff != 0 {
                        return Err(DecodeError::ReservedBits {
                            what: "clause format",
                        });
                    }
                    tuples[usize::from(n)] |= (v >> 12) << 75;
                }
                Sub::Upper2(n) => {
                    if v & 0x1ff != 0 {
                        return Err(DecodeError::ReservedBits {
                            what: "clause format",
                        });
                    }
                    tuples[usize::from(n)] |= (v >> 12) << 75;
                    tuples[usize::from(n) + 1] |= ((v >> 9) & 7) << 75;
                }
                Sub::Lit(_) | Sub::Z => {}
            }
        }
        q += 1;
        if f.tag1 == Sub::Z {
            let count = match f.number {
                0 => 1,
                1 => 2,
                3 => 3,
                4 => 4,
                6 => 5,
                8 => 6,
                9 => 7,
                _ => 8,
            };
            break count;
        }
        if q >= 6 {
            return Err(DecodeError::UnexpectedFormat { quadword: q, tag });
        }
    };
    if seen != FORMAT_SEQUENCES[count - 1] {
        return Err(DecodeError::UnexpectedFormat {
            quadword: q - 1,
            tag: read_quadword(bytes, q - 1)? as u8,
        });
    }
    let packed = ec0_packed(count);
    let mut constants = Vec::new();
    if packed {
        constants.push(ec0 << 4);
    }
    if !z {
        let positions = CONST_POSITIONS[count - 1];
        for (i, &pos) in positions.iter().enumerate() {
            let word = read_quadword(bytes, q)?;
            let tag = word as u8;
            let final_tag = 0x70 | pos;
            let more_tag = 0x30 | pos;
            let last_allowed = i + 1 == positions.len();
            if tag != final_tag && (tag != more_tag || last_allowed) {
                return Err(DecodeError::BadTag { quadword: q, tag });
            }
            constants.push((bits128(word, 8, 60) as u64) << 4);
            constants.push((bits128(word, 68, 60) as u64) << 4);
            q += 1;
            if tag == final_tag {
                break;
            }
        }
    }
    Ok(RawClause {
        header,
        tuples: tuples[..count].to_vec(),
        constants,
        m_field: if packed { m_field } else { 0 },
        quadwords: q,
    })
}

/// Packs a raw clause into bytes (the inverse of [`split_clause`]).
pub fn join_clause(raw: &RawClause) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    join_clause_into(
        raw.header,
        &raw.tuples,
        &raw.constants,
        raw.m_field,
        &mut out,
    )?;
    Ok(out)
}

/// [`join_clause`] of a clause given by its parts, appended to `out`
/// (nothing is appended on error).
fn join_clause_into(
    header: u64,
    tuples: &[u128],
    constants: &[u64],
    m_field: u16,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let raw = RawParts {
        header,
        tuples,
        constants,
        m_field,
    };
    let count = raw.tuples.len();
    if count == 0 || count > MAX_TUPLES {
        return Err(EncodeError::TupleCount(count));
    }
    if raw.constants.len() > max_constants(count) {
        return Err(EncodeError::TooManyConstants {
            count: raw.constants.len(),
            tuples: count,
        });
    }
    if let Some(i) = raw.constants.iter().position(|c| c & 0xf != 0) {
        return Err(EncodeError::ConstantLowBits(i));
    }
    let packed = ec0_packed(count);
    let ec0 = if packed {
        raw.constants.first().copied().unwrap_or(0) >> 4
    } else {
        0
    };
    let rest = &raw.constants[usize::from(packed).min(raw.constants.len())..];
    let const_quads = rest.len().div_ceil(2);
    let z = const_quads == 0;
    let upper = |n: u8| -> u128 { bits128(raw.tuples[usize::from(n).min(count - 1)], 75, 3) };
    out.reserve((FORMAT_SEQUENCES[count - 1].len() + const_quads) * 16);
    for &fi in FORMAT_SEQUENCES[count - 1] {
        let f = &FORMATS[fi];
        let mut word: u128 = 0;
        let tag_parts = [(f.tag1, 6u32), (f.tag2, 3), (f.tag3, 0)];
        for (sub, shift) in tag_parts {
            let v = match sub {
                Sub::Lit(l) => u128::from(l),
                Sub::Upper(n) => upper(n),
                Sub::Z => u128::from(z),
                _ => 0,
            };
            word |= v << shift;
        }
        for (slot, (sub, (start, size))) in [f.s0_s3, f.s4, f.s5_s6, f.s7]
            .into_iter()
            .zip(SLOTS)
            .enumerate()
        {
            let v: u128 = match sub {
                Sub::Tuple(n) => {
                    let (ts, tsz) = tuple_range(slot, f.number);
                    bits128(raw.tuples[usize::from(n)], ts, tsz)
                }
                Sub::Header => {
                    let h = u128::from(raw.header);
                    if slot == 2 {
                        bits128(h, 0, 30)
                    } else {
                        bits128(h, 30, 15)
                    }
                }
                Sub::Const => {
                    let e = u128::from(ec0);
                    match slot {
                        0 => bits128(e, 0, 60),
                        2 => bits128(e, 15, 30),
                        _ if f.number == 5 || f.number == 10 => bits128(e, 0, 15),
                        _ => bits128(e, 45, 15),
                    }
                }
                Sub::M => u128::from(raw.m_field & 0x7fff),
                Sub::Upper(n) => upper(n) << 12,
                Sub::Upper2(n) => (upper(n) << 12) | (upper(n + 1) << 9),
                Sub::Reserved | Sub::Lit(_) | Sub::Z => 0,
            };
            word |= bits128(v, 0, size) << start;
        }
        out.extend_from_slice(&word.to_le_bytes());
    }
    for i in 0..const_quads {
        let more = i + 1 < const_quads;
        let pos = CONST_POSITIONS[count - 1][i];
        let a = rest[2 * i] >> 4;
        let b = rest.get(2 * i + 1).copied().unwrap_or(0) >> 4;
        let word: u128 = u128::from(pos | if more { 0x30 } else { 0x70 })
            | (u128::from(a) << 8)
            | (u128::from(b) << 68);
        out.extend_from_slice(&word.to_le_bytes());
    }
    Ok(())
}

/// A clause's stored parts, borrowed ([`RawClause`] without its vectors).
struct RawParts<'a> {
    header: u64,
    tuples: &'a [u128],
    constants: &'a [u64],
    m_field: u16,
}

// ---------------------------------------------------------------------------
// Constant modifiers

const M1_TABLE: [[ConstMod; 2]; 7] = {
    use ConstMod::*;
    [
        [None, None],
        [PcLo, None],
        [PcLo, PcLo],
        [None, None], // 3: reserved, rejected before use
        [PcHi, None],
        [PcHi, PcHi],
        [PcLo, None],
    ]
};

const M2_TABLE: [[ConstMod; 2]; 4] = {
    use ConstMod::*;
    [
        [PcLoHi, None],
        [PcLoHi, PcHi],
        [PcLoHi, PcLoHi],
        [PcLoHi, PcHi],
    ]
};

fn decode_m(m1: u32, m2: u32, index: usize) -> Result<[ConstMod; 2], DecodeError> {
    if m1 >= 8 {
        Ok([ConstMod::None; 2])
    } else if m1 == 7 {
        M2_TABLE
            .get(m2 as usize)
            .copied()
            .ok_or(DecodeError::ConstantModifier { index })
    } else if m1 == 3 {
        Err(DecodeError::ConstantModifier { index })
    } else {
        Ok(M1_TABLE[m1 as usize])
    }
}

/// The PC-relative modifier of every constant of a raw clause.
pub fn constant_mods(raw: &RawClause) -> Result<Vec<ConstMod>, DecodeError> {
    let count = raw.tuples.len();
    let mut mods = vec![ConstMod::None; raw.constants.len()];
    let packed = ec0_packed(count);
    if packed && !mods.is_empty() {
        let m = u32::from(raw.m_field);
        let has_m = matches!(count, 3 | 6);
        if has_m {
            mods[0] = decode_m(m & 0xf, (m >> 4) & 0xf, 0)?[0];
        }
    }
    let mut i = usize::from(packed);
    while i + 1 < raw.constants.len() {
        let (a, b) = (raw.constants[i], raw.constants[i + 1]);
        let m1 = ((a >> 60) as u32).wrapping_sub((b >> 60) as u32) & 0xf;
        let m2 = (((a >> 28) & 0xf) as u32).wrapping_sub(((b >> 28) & 0xf) as u32) & 0xf;
        let pair = decode_m(m1, m2, i)?;
        mods[i] = pair[0];
        mods[i + 1] = pair[1];
        i += 2;
    }
    Ok(mods)
}

// ---------------------------------------------------------------------------
// Whole-clause decoding

/// Index of the embedded constant selected by FAU index bits 4..7.
pub fn fau_constant_index(fau_idx: u8) -> Option<usize> {
    match fau_idx >> 4 {
        2 => Some(4),
        3 => Some(5),
        4 => Some(0),
        5 => Some(1),
        6 => Some(2),
        7 => Some(3),
        _ => None,
    }
}

/// FAU index bits 4..7 selecting embedded constant `index`.
pub fn constant_fau_bits(index: usize) -> Option<u8> {
    match index {
        0 => Some(4),
        1 => Some(5),
        2 => Some(6),
        3 => Some(7),
        4 => Some(2),
        5 => Some(3),
        _ => None,
    }
}

const FMA_MASK: u128 = (1 << 23) - 1;
const ADD_MASK: u128 = (1 << 20) - 1;

/// Decodes one clause from the start of `bytes`. Returns the clause and the
/// number of bytes it occupies.
pub fn decode_clause(bytes: &[u8]) -> Result<(DecodedClause, usize), DecodeError> {
    let raw = split_clause(bytes)?;
    let header = ClauseHeader::from_bits(raw.header)?;
    let const_mods = constant_mods(&raw)?;
    let count = raw.tuples.len();
    let blocks: Vec<RegBlock> = raw
        .tuples
        .iter()
        .map(|t| RegBlock::from_bits((t & ((1 << 35) - 1)) as u64))
        .collect();
    let mut ports = Vec::with_capacity(count);
    for (i, b) in blocks.iter().enumerate() {
        ports.push(b.ports(i == 0).ok_or(DecodeError::RegisterMode {
            tuple: i,
            ctrl: b.mode_index(i == 0),
        })?);
    }
    let mut tuples = Vec::with_capacity(count);
    for (i, t) in raw.tuples.iter().enumerate() {
        let fma_bits = ((t >> 35) & FMA_MASK) as u32;
        let add_bits = ((t >> 58) & ADD_MASK) as u32;
        let instr = |unit: Unit, bits: u32| -> Result<Instr, DecodeError> {
            let fields = decode_instr(unit, bits).map_err(|source| DecodeError::Instr {
                tuple: i,
                unit,
                source,
            })?;
            Ok(Instr {
                fields,
                srcs: Vec::new(),
                dest: None,
            })
        };
        tuples.push(Tuple {
            regs: blocks[i],
            ports: ports[i],
            fma: instr(Unit::Fma, fma_bits)?,
            add: instr(Unit::Add, add_bits)?,
        });
    }
    let mut clause = DecodedClause {
        header,
        tuples,
        constants: raw.constants,
        const_mods,
        m_field: raw.m_field,
    };
    // Sources, destinations and port checks are the same as for built clauses.
    rebuild_views(&mut clause)?;
    Ok((clause, raw.quadwords * QUADWORD_BYTES))
}

fn half_of(op: SlotOp) -> Option<WriteHalf> {
    match op {
        SlotOp::Write => Some(WriteHalf::Full),
        SlotOp::WriteLo => Some(WriteHalf::Lo),
        SlotOp::WriteHi => Some(WriteHalf::Hi),
        _ => None,
    }
}

/// Register writes (FMA result, ADD result) that a register block performs.
pub fn writes_of(p: &RegPorts) -> (Option<RegWrite>, Option<RegWrite>) {
    let fma = if let Some(half) = half_of(p.modes.slot2) {
        Some(RegWrite { reg: p.reg2, half })
    } else if p.modes.slot3_fma {
        half_of(p.modes.slot3).map(|half| RegWrite { reg: p.reg3, half })
    } else {
        None
    };
    let add = if p.modes.slot3_fma {
        None
    } else {
        half_of(p.modes.slot3).map(|half| RegWrite { reg: p.reg3, half })
    };
    (fma, add)
}

/// Whether selector `sel` reads a register port that `ports` enables.
fn port_enabled(sel: u8, ports: &RegPorts) -> bool {
    match sel {
        0 => ports.port0.is_some(),
        1 => ports.port1.is_some(),
        2 => ports.modes.slot2 == SlotOp::Read,
        _ => true,
    }
}

fn check_ports(fields: &InstrFields, ports: &RegPorts, tuple: usize) -> Result<(), DecodeError> {
    match fields.selectors.iter().find(|&&s| !port_enabled(s, ports)) {
        Some(&port) => Err(DecodeError::PortNotRead { tuple, port }),
        None => Ok(()),
    }
}

/// Resolves a source selector against a tuple's register block and the
/// clause constants. `None` when the FAU index names a missing constant.
pub fn resolve(
    sel: u8,
    unit: Unit,
    regs: &RegBlock,
    constants: &[u64],
    const_mods: &[ConstMod],
) -> Option<Operand> {
    Some(match sel {
        0 => Operand::Reg(regs.reg0_number()),
        1 => Operand::Reg(regs.reg1_number()),
        2 => Operand::Reg(regs.reg2),
        3 if unit == Unit::Fma => Operand::Zero,
        3 => Operand::FmaResult,
        6 => Operand::PrevFma,
        7 => Operand::PrevAdd,
        _ => {
            let high = sel == 5;
            let fau = regs.fau_idx;
            if fau & 0x80 != 0 {
                Operand::Uniform {
                    slot: fau & 0x7f,
                    high,
                }
            } else if fau >= 0x20 {
                let index = fau_constant_index(fau)?;
                let raw = constants.get(index)? | u64::from(fau & 0xf);
                Operand::Constant {
                    index: index as u8,
                    high,
                    raw,
                    mode: const_mods.get(index).copied().unwrap_or(ConstMod::None),
                }
            } else {
                Operand::Special { index: fau, high }
            }
        }
    })
}

/// Encodes a neutral clause. The register blocks, selectors and constants
/// are taken as given (`srcs`, `dest`, `ports` and `const_mods` are derived
/// views and ignored); [`PortRequest::pack`] assigns legal ports.
pub fn encode_clause(clause: &DecodedClause) -> Result<Vec<u8>, EncodeError> {
    let count = clause.tuples.len();
    if count == 0 || count > MAX_TUPLES {
        return Err(EncodeError::TupleCount(count));
    }
    let mut words = Vec::with_capacity(count);
    for (i, t) in clause.tuples.iter().enumerate() {
        let fma = encode_instr(&t.fma.fields).map_err(|source| EncodeError::Instr {
            tuple: i,
            unit: Unit::Fma,
            source,
        })?;
        let add = encode_instr(&t.add.fields).map_err(|source| EncodeError::Instr {
            tuple: i,
            unit: Unit::Add,
            source,
        })?;
        words.push((t.regs, [fma, add]));
    }
    encode_clause_parts(&clause.header, &words, &clause.constants, clause.m_field)
}

/// [`encode_clause`] from a clause's stored parts: the header, each tuple's
/// register block and instruction words (FMA, ADD) as [`encode_instr`]
/// gives them, the constants (low 4 bits zero) and the M field. For a
/// compiler that has the words already (memoised with the fields it built
/// them from) and needs no decoded views.
pub fn encode_clause_parts(
    header: &ClauseHeader,
    tuples: &[(RegBlock, [u32; 2])],
    constants: &[u64],
    m_field: u16,
) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode_clause_parts_into(header, tuples, constants, m_field, &mut out)?;
    Ok(out)
}

/// [`encode_clause_parts`] appended to `out`, without allocating anything
/// else (the compiler encodes every clause of a shader so; nothing is
/// appended on error).
pub fn encode_clause_parts_into(
    header: &ClauseHeader,
    tuples: &[(RegBlock, [u32; 2])],
    constants: &[u64],
    m_field: u16,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let count = tuples.len();
    if count == 0 || count > MAX_TUPLES {
        return Err(EncodeError::TupleCount(count));
    }
    // Constants after the packed one come in pairs: a lone last one is
    // padded with a zero.
    let mut len = constants.len();
    let packed = usize::from(ec0_packed(count));
    if len > packed && (len - packed) % 2 == 1 {
        len += 1;
    }
    if len > max_constants(count) {
        return Err(EncodeError::TooManyConstants {
            count: len,
            tuples: count,
        });
    }
    let mut padded = [0u64; MAX_CONSTANTS];
    padded[..constants.len()].copy_from_slice(constants);
    let mut words = [0u128; MAX_TUPLES];
    for (w, (regs, [fma, add])) in words.iter_mut().zip(tuples) {
        *w = u128::from(regs.to_bits()) | (u128::from(*fma) << 35) | (u128::from(*add) << 58);
    }
    join_clause_into(
        header.to_bits(),
        &words[..count],
        &padded[..len],
        m_field,
        out,
    )
}

/// Decodes a whole shader: clauses back to back until the end of `bytes` or
/// a zero word where a clause should start. Returns (quadword offset, clause).
pub fn decode_shader(bytes: &[u8]) -> Result<Vec<(usize, DecodedClause)>, DecodeError> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos + 4 <= bytes.len() {
        let word = u32::from_le_bytes([bytes[pos], bytes[pos + 1], bytes[pos + 2], bytes[pos + 3]]);
        if word == 0 {
            break;
        }
        let (clause, size) = decode_clause(&bytes[pos..])?;
        out.push((pos / QUADWORD_BYTES, clause));
        pos += size;
    }
    Ok(out)
}

/// Recomputes the derived views of a clause (ports, resolved sources,
/// register writes, constant modifiers) from its stored parts (register
/// blocks, instruction fields, constants, M field). Builders fill the stored
/// parts and call this; `decode_clause(encode_clause(c))` then equals `c`.
pub fn rebuild_views(clause: &mut DecodedClause) -> Result<(), DecodeError> {
    let count = clause.tuples.len();
    if count == 0 || count > MAX_TUPLES {
        return Err(DecodeError::UnexpectedFormat {
            quadword: 0,
            tag: 0,
        });
    }
    let raw = RawClause {
        header: 0,
        tuples: vec![0; count],
        constants: clause.constants.clone(),
        m_field: clause.m_field,
        quadwords: 0,
    };
    clause.const_mods = constant_mods(&raw)?;
    let mut ports = Vec::with_capacity(count);
    for (i, t) in clause.tuples.iter().enumerate() {
        ports.push(t.regs.ports(i == 0).ok_or(DecodeError::RegisterMode {
            tuple: i,
            ctrl: t.regs.mode_index(i == 0),
        })?);
    }
    for i in 0..count {
        let (fma_dest, add_dest) = writes_of(&ports[(i + 1) % count]);
        let regs = clause.tuples[i].regs;
        let constants = &clause.constants;
        let const_mods = &clause.const_mods;
        let t = &mut clause.tuples[i];
        t.ports = ports[i];
        for (instr, unit, dest) in [
            (&mut t.fma, Unit::Fma, fma_dest),
            (&mut t.add, Unit::Add, add_dest),
        ] {
            instr.dest = dest;
            check_ports(&instr.fields, &ports[i], i)?;
            instr.srcs = instr
                .fields
                .selectors
                .iter()
                .map(|&sel| {
                    resolve(sel, unit, &regs, constants, const_mods).ok_or(
                        DecodeError::MissingConstant {
                            tuple: i,
                            fau: regs.fau_idx,
                        },
                    )
                })
                .collect::<Result<_, _>>()?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::isa::opcode::{InstrFields, decode_instr};
    use proptest::prelude::*;

    /// `MAX_CONSTANTS` is the largest `max_constants` of any tuple count.
    #[test]
    fn max_constants_bound_is_reached() {
        let most = (1..=MAX_TUPLES).map(max_constants).max();
        assert_eq!(most, Some(MAX_CONSTANTS));
    }

    /// The packer's inverse table names, for every slot behaviour, the
    /// first non-idle mode of `REG_MODES` that has it.
    #[test]
    fn mode_of_inverts_reg_modes() {
        use SlotOp::*;
        let ops = [Idle, Read, Write, WriteLo, WriteHi];
        for slot2 in ops {
            for slot3 in ops {
                for slot3_fma in [false, true] {
                    let modes = SlotModes {
                        slot2,
                        slot3,
                        slot3_fma,
                    };
                    let first = (1..32)
                        .find(|&i| REG_MODES[i] == Some(modes) && i != 16 && i != 27)
                        .unwrap_or(0);
                    assert_eq!(
                        usize::from(MODE_OF[modes_key(slot2, slot3, slot3_fma)]),
                        first,
                        "{modes:?}"
                    );
                }
            }
        }
        // Every non-idle behaviour of the table packs to a mode that has it.
        for (i, m) in REG_MODES.iter().enumerate() {
            if let Some(m) = m
                && i != 16
                && i != 27
            {
                let packed = MODE_OF[modes_key(m.slot2, m.slot3, m.slot3_fma)];
                assert_eq!(REG_MODES[usize::from(packed)], Some(*m), "mode {i}");
            }
        }
    }

    /// A legal instruction of `unit` derived deterministically from `seed`.
    fn instr_from(unit: Unit, seed: u32) -> InstrFields {
        let mask = (1u32 << unit.bits()) - 1;
        let mut x = seed;
        for _ in 0..4096 {
            if let Ok(f) = decode_instr(unit, x & mask) {
                return f;
            }
            x = x.wrapping_mul(0x9e37_79b9).wrapping_add(0x7f4a_7c15);
        }
        decode_instr(unit, 0).unwrap_or_else(|_| {
            // NOP is all zeros in both units; keep searching linearly otherwise.
            (0..=mask)
                .find_map(|b| decode_instr(unit, b).ok())
                .expect("some opcode")
        })
    }

    fn placeholder(fields: InstrFields) -> Instr {
        Instr {
            fields,
            srcs: Vec::new(),
            dest: None,
        }
    }

    /// A register block from random bits, biased towards reading all three
    /// ports so that random instructions' register selectors are legal.
    fn regs_from(r: u64, first: bool) -> RegBlock {
        let reg = |shift: u32| ((r >> shift) & 63) as u8;
        let (a, b, c) = (reg(0), reg(6), reg(12));
        let half = |bits: u64| match bits & 3 {
            0 => WriteHalf::Lo,
            1 => WriteHalf::Hi,
            _ => WriteHalf::Full,
        };
        let mut req = PortRequest {
            port0: Some(a),
            port1: (a != b).then_some(b),
            read2: Some(c),
            write_fma: (r >> 18 & 1 == 1).then_some((reg(20), half(r >> 26))),
            write_add: (r >> 19 & 1 == 1).then_some((reg(28), half(r >> 34))),
            fau_idx: (r >> 40) as u8,
        };
        if r >> 48 & 7 == 0 {
            return RegBlock::from_bits(r & ((1 << 35) - 1));
        }
        if let Some(b) = req.pack(first) {
            return b;
        }
        req.read2 = None;
        if let Some(b) = req.pack(first) {
            return b;
        }
        req.write_fma = None;
        req.pack(first)
            .unwrap_or_else(|| RegBlock::from_bits(r & ((1 << 35) - 1)))
    }

    prop_compose! {
        fn arb_tuple()(fma in any::<u32>(), add in any::<u32>(), regs in any::<u64>())
            -> (u32, u32, u64) { (fma, add, regs) }
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 512,
            max_global_rejects: 100_000,
            ..ProptestConfig::default()
        })]

        #[test]
        fn packed_port_requests_read_back(r in any::<u64>(), first in any::<bool>()) {
            let block = regs_from(r | (1 << 48), first);
            let request_of = |b: &RegBlock| {
                b.ports(first).map(|p| {
                    let (fma, add) = writes_of(&p);
                    PortRequest {
                        port0: p.port0,
                        port1: p.port1,
                        read2: (p.modes.slot2 == SlotOp::Read).then_some(p.reg2),
                        write_fma: fma.map(|w| (w.reg, w.half)),
                        write_add: add.map(|w| (w.reg, w.half)),
                        fau_idx: b.fau_idx,
                    }
                })
            };
            if let Some(req) = request_of(&block) {
                // Whatever a block means packs again to a block meaning the same.
                let again = req.pack(first).expect("a decoded request packs again");
                prop_assert_eq!(request_of(&again), Some(req));
            }
        }

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = decode_clause(&bytes);
            let _ = decode_shader(&bytes);
            let _ = crate::compiler::bifrost::disasm::disassemble(&bytes);
        }

        #[test]
        fn random_tag_streams_never_panic(
            tags in proptest::collection::vec(any::<u8>(), 1..10),
            fill in any::<u64>(),
        ) {
            let mut bytes = Vec::new();
            for t in tags {
                let mut q = [0u8; 16];
                q[0] = t;
                q[1..9].copy_from_slice(&fill.to_le_bytes());
                bytes.extend_from_slice(&q);
            }
            let _ = decode_shader(&bytes);
            let _ = crate::compiler::bifrost::disasm::disassemble(&bytes);
        }

        #[test]
        fn legal_clauses_roundtrip(
            tuples in proptest::collection::vec(arb_tuple(), 1..=8),
            header in any::<u64>(),
            consts in proptest::collection::vec(any::<u64>(), 7),
            quads in 0usize..4,
            m_field in 0u16..0x100,
        ) {
            let n = tuples.len();
            let packed = usize::from(ec0_packed(n));
            let quads = quads.min(CONST_POSITIONS[n - 1].len());
            let constants: Vec<u64> =
                consts[..packed + 2 * quads].iter().map(|c| c & !0xf).collect();
            let mut clause = DecodedClause {
                header: ClauseHeader::from_bits(header & ((1 << 45) - 1) & !0x401f).unwrap(),
                tuples: tuples
                    .iter()
                    .enumerate()
                    .map(|(i, &(f, a, r))| {
                        let regs = regs_from(r, i == 0);
                        Tuple {
                            regs,
                            ports: regs.ports(i == 0).unwrap_or(RegPorts {
                                port0: None,
                                port1: None,
                                reg2: 0,
                                reg3: 0,
                                modes: SlotModes { slot2: SlotOp::Idle, slot3: SlotOp::Idle, slot3_fma: true },
                                mode: 0,
                            }),
                            fma: placeholder(instr_from(Unit::Fma, f)),
                            add: placeholder(instr_from(Unit::Add, a)),
                        }
                    })
                    .collect(),
                constants,
                const_mods: Vec::new(),
                m_field: if matches!(n, 3 | 6) { m_field } else { 0 },
            };
            // Illegal register modes, missing constants and reserved constant
            // modifiers are not legal clauses: skip them.
            prop_assume!(rebuild_views(&mut clause).is_ok());
            let bytes = encode_clause(&clause).unwrap();
            let (back, size) = decode_clause(&bytes).unwrap();
            prop_assert_eq!(size, bytes.len());
            prop_assert_eq!(back, clause);
        }
    }

    fn cs_loop() -> Vec<u8> {
        let path = crate::reference_path!("mesa-g52/shaders/cs_loop.bin");
        std::fs::read(path).expect("reference vector")
    }

    #[test]
    fn decodes_first_clause_of_cs_loop() {
        let code = cs_loop();
        let (c, size) = decode_clause(&code).unwrap();
        assert_eq!(size, 4 * QUADWORD_BYTES);
        assert_eq!(c.tuples.len(), 4);
        assert_eq!(c.header.flow(), FlowControl::NbtbUnconditional);
        assert!(c.header.next_clause_prefetch);
        let add = &c.tuples[0].add;
        assert_eq!(add.name(), "IADD.s32");
        assert_eq!(
            add.srcs,
            vec![
                Operand::Reg(57),
                Operand::Uniform {
                    slot: 0,
                    high: false
                }
            ]
        );
        // Tuple 1's ADD result goes to r0 (written by tuple 2's block).
        assert_eq!(
            c.tuples[1].add.dest,
            Some(RegWrite {
                reg: 0,
                half: WriteHalf::Full
            })
        );
    }

    #[test]
    fn malformed_clauses_are_errors() {
        let code = cs_loop();
        // Truncated in the middle of the first clause.
        assert_eq!(
            decode_clause(&code[..40]).unwrap_err(),
            DecodeError::Truncated { quadword: 2 }
        );
        // A tag that is no format.
        let mut bad = code.clone();
        bad[0] = 0x3f; // a constant-quadword tag where the header should be
        assert!(matches!(
            decode_clause(&bad),
            Err(DecodeError::BadTag { .. } | DecodeError::UnexpectedFormat { .. })
        ));
        // A source reading port 1 while the block reads only port 0.
        let (mut c, _) = decode_clause(&code).unwrap();
        c.tuples[0].fma.fields.selectors = vec![1];
        c.tuples[0].regs.ctrl = 0;
        c.tuples[0].regs.reg1 = 5 << 2;
        assert!(matches!(
            rebuild_views(&mut c),
            Err(DecodeError::PortNotRead { tuple: 0, port: 1 })
        ));
    }

    #[test]
    fn port_request_packs_like_mesa() {
        // cs_loop clause_0 tuple 0: regs 000000068c808280.
        let req = PortRequest {
            port0: Some(55),
            port1: Some(57),
            read2: None,
            write_fma: None,
            write_add: Some((2, WriteHalf::Full)),
            fau_idx: 0x80,
        };
        assert_eq!(req.pack(true).map(|b| b.to_bits()), Some(0x68c808280));
    }
}
