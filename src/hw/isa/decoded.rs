//! The neutral decoded form of a clause, shared by the disassembler, the
//! assembler, the backend encoder and the simulated shader core.
//!
//! It keeps both what is *stored* (register block, source selectors, modifier
//! values, constants: enough to re-encode bit for bit) and what it *means*
//! (resolved operands and register writes). It must never hold references
//! into the bytes it came from, and nothing here may depend on a particular
//! GPU memory layout.

use super::clause::{ClauseHeader, RegBlock, RegPorts};
use super::opcode::InstrFields;

/// How a PC-relative constant is interpreted (from the M bits of its quadword).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ConstMod {
    /// A plain 64-bit constant.
    #[default]
    None,
    /// The whole 60-bit value (sign-extended) is a byte offset from this clause.
    PcLo,
    /// The high 32 bits (28-bit sign-extended) are a byte offset; the low 32 are plain.
    PcHi,
    /// Each 32-bit half (28-bit sign-extended) is a byte offset.
    PcLoHi,
}

/// Which part of a register a write touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WriteHalf {
    /// All 32 bits.
    Full,
    /// Bits 0..16 (`.h0`).
    Lo,
    /// Bits 16..32 (`.h1`).
    Hi,
}

/// A register write performed for an instruction's result (encoded in the
/// next tuple's register block; the last tuple's in the first tuple's block).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegWrite {
    /// Register r0..r63.
    pub reg: u8,
    /// Part written.
    pub half: WriteHalf,
}

/// A resolved source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// General-purpose register rN, read through a register port.
    Reg(u8),
    /// FMA selector 3: the constant zero (`#0`).
    Zero,
    /// ADD selector 3: this tuple's FMA result (`t`).
    FmaResult,
    /// The previous tuple's FMA result (`t0`).
    PrevFma,
    /// The previous tuple's ADD result (`t1`).
    PrevAdd,
    /// 32-bit half of a 64-bit uniform (FAU RAM) slot (`uN.w0`/`uN.w1`).
    Uniform { slot: u8, high: bool },
    /// Half of an embedded constant. `raw` already has the FAU index's low 4
    /// bits OR-ed in; `mode` says whether (part of) it is a PC-relative offset.
    Constant {
        index: u8,
        high: bool,
        raw: u64,
        mode: ConstMod,
    },
    /// A special FAU value (FAU index below 0x20: 0 zero, 1 lane id, 2 warp
    /// id, 3 core id, 4 framebuffer size, 5 ATEST datum, 6 sample, 8..15 blend
    /// descriptors).
    Special { index: u8, high: bool },
}

impl Operand {
    /// The 32-bit value of a (non-PC-relative) constant operand.
    pub fn constant_value(&self) -> Option<u32> {
        match *self {
            Operand::Constant { raw, high, .. } => {
                Some(if high { (raw >> 32) as u32 } else { raw as u32 })
            }
            _ => None,
        }
    }

    /// For a PC-relative constant operand: the byte offset from the start of
    /// the clause holding it, and whether Mesa prints it as `>> 32` (the high
    /// half of a 60-bit offset). `None` for anything else.
    pub fn pc_relative_offset(&self) -> Option<(i64, bool)> {
        let Operand::Constant {
            raw, high, mode, ..
        } = *self
        else {
            return None;
        };
        let sx28 = |v: u32| i64::from(((v << 4) as i32) >> 4);
        match mode {
            ConstMod::None => None,
            ConstMod::PcHi if !high => None,
            ConstMod::PcHi => Some((sx28((raw >> 32) as u32), false)),
            ConstMod::PcLo => Some((((raw << 4) as i64) >> 4, high)),
            ConstMod::PcLoHi => Some((
                sx28(if high { (raw >> 32) as u32 } else { raw as u32 }),
                false,
            )),
        }
    }
}

/// One decoded instruction (FMA or ADD half of a tuple).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    /// Table row, selectors, modifiers, immediates (what is stored).
    pub fields: InstrFields,
    /// Resolved sources, one per selector.
    pub srcs: Vec<Operand>,
    /// Register written with the result, if any (else only `t0`/`t1`).
    pub dest: Option<RegWrite>,
}

impl Instr {
    /// Mnemonic, e.g. `IADD.s32`.
    pub fn name(&self) -> &'static str {
        self.fields.op.name
    }

    /// Whether this is a NOP (not counted as an instruction in statistics).
    pub fn is_nop(&self) -> bool {
        self.fields.op.name == "NOP"
    }
}

/// One tuple: a register block, an FMA and an ADD instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tuple {
    /// The register block as stored.
    pub regs: RegBlock,
    /// Its decoded ports (derived from `regs` and the tuple's position).
    pub ports: RegPorts,
    /// FMA-unit instruction.
    pub fma: Instr,
    /// ADD-unit instruction.
    pub add: Instr,
}

/// A decoded clause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedClause {
    /// Header fields.
    pub header: ClauseHeader,
    /// 1..=8 tuples in execution order.
    pub tuples: Vec<Tuple>,
    /// Embedded constants by index (low 4 bits zero; they come from FAU indices).
    pub constants: Vec<u64>,
    /// PC-relative interpretation of each constant (derived).
    pub const_mods: Vec<ConstMod>,
    /// Raw M slot of constant 0 for 3- and 6-tuple clauses (else 0).
    pub m_field: u16,
}

/// The staging registers of a clause's message instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StagingUse {
    /// First register (from the clause header).
    pub first: u8,
    /// The instruction reads them (data to send).
    pub read: bool,
    /// The instruction writes them (message results).
    pub write: bool,
    /// How many, as the table describes it.
    pub count: super::opcode::StagingCount,
}

impl DecodedClause {
    /// The message instruction's staging registers, if the clause has one.
    pub fn staging(&self) -> Option<StagingUse> {
        self.tuples.iter().find_map(|t| {
            let s = t.add.fields.op.staging;
            (s.read || s.write).then_some(StagingUse {
                first: self.header.staging_register,
                read: s.read,
                write: s.write,
                count: s.count,
            })
        })
    }

    /// Whether the clause ends in a branch (an instruction marked `last`).
    pub fn ends_in_branch(&self) -> bool {
        self.tuples.last().is_some_and(|t| t.add.fields.op.last)
    }

    /// Instructions that are not NOPs.
    pub fn instruction_count(&self) -> usize {
        self.tuples
            .iter()
            .map(|t| usize::from(!t.fma.is_nop()) + usize::from(!t.add.is_nop()))
            .sum()
    }
}
