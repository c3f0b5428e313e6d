//! Opcode table types and single-instruction bit matching.
//!
//! The tables themselves are data generated from the ISA description
//! (`tables.rs`); this module only interprets them: which row an FMA (23-bit)
//! or ADD (20-bit) instruction word matches, what its modifier values are, and
//! how to put an instruction back together. It must never panic on any input
//! word and never hard-code a per-opcode special case: if an instruction needs
//! one, it belongs in the table generator.

use thiserror::Error;

/// The execution unit an instruction word belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// The FMA unit: 23-bit instruction words, source 0 in bits 0..3.
    Fma,
    /// The ADD unit: 20-bit instruction words; the only unit issuing messages.
    Add,
}

impl Unit {
    /// Width of this unit's instruction word in bits.
    pub const fn bits(self) -> u32 {
        match self {
            Unit::Fma => 23,
            Unit::Add => 20,
        }
    }
}

/// A 3-bit source selector field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SrcField {
    /// First bit of the selector within the instruction word.
    pub start: u8,
    /// Bit `s` set when selector value `s` is legal for this source.
    pub allowed: u8,
}

/// A named modifier. Direct modifiers (`start` is `Some`) are a plain
/// bit-field; indirect ones are recovered from the derived fields via `lut`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModField {
    /// Modifier name as in the ISA description (`neg0`, `round`, `cmpf`, ...).
    pub name: &'static str,
    /// First bit for a direct modifier, `None` for one encoded through derived fields.
    pub start: Option<u8>,
    /// Field size in bits (the option list has `1 << size` entries).
    pub size: u8,
    /// The option that is not printed (`None`: every option is printed).
    pub default: Option<&'static str>,
    /// `Some(i)`: printed after source `i`; `None`: printed after the mnemonic.
    pub src: Option<u8>,
    /// Option names by value; `"reserved"` marks an illegal value.
    pub opts: &'static [&'static str],
    /// For indirect modifiers: option index per (ordering, derived value),
    /// 255 for combinations that are reserved.
    pub lut: &'static [u8],
}

/// A bit-field whose value is computed from several (indirect) modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DerivedField {
    /// First bit.
    pub start: u8,
    /// Size in bits.
    pub size: u8,
    /// Bit `v` set when field value `v` is reserved (no legal meaning).
    pub reserved: u32,
}

/// An immediate operand printed as `name:value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImmField {
    /// Name as printed.
    pub name: &'static str,
    /// First bit.
    pub start: u8,
    /// Size in bits.
    pub size: u8,
}

/// How many staging registers a message instruction reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StagingCount {
    /// No staging registers.
    None,
    /// A fixed count.
    Fixed(u8),
    /// Depends on the `register_format`/vector size modifiers.
    Format,
    /// Given by an `sr_count` operand (texture and atomic instructions).
    SrCount,
    /// Depends on the `vecsize` modifier.
    Vecsize,
}

/// Staging-register use of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Staging {
    /// Reads its staging registers (e.g. STORE data).
    pub read: bool,
    /// Writes its staging registers (e.g. LOAD results).
    pub write: bool,
    /// How many.
    pub count: StagingCount,
}

/// The message an instruction sends to a shared unit (see the clause header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Message {
    None,
    Atest,
    Atomic,
    Attribute,
    Barrier,
    Blend,
    Job,
    JobManagement,
    Load,
    Store,
    Tex,
    Tile,
    VarTex,
    Varying,
    ZStencil,
}

/// One encoding variant of one instruction.
#[derive(Debug, PartialEq, Eq)]
pub struct OpInfo {
    /// Mnemonic without unit prefix, e.g. `FADD.f32`.
    pub name: &'static str,
    /// Which encoding variant of `name` this row is (0 for single-encoding ops).
    pub variant: u8,
    /// Execution unit.
    pub unit: Unit,
    /// Bits that identify the opcode...
    pub mask: u32,
    /// ...and their values.
    pub exact: u32,
    /// Source selectors, in printing order.
    pub srcs: &'static [SrcField],
    /// Modifiers, in printing order.
    pub mods: &'static [ModField],
    /// Derived fields (concatenated, first field lowest, to index `ModField::lut`).
    pub derived: &'static [DerivedField],
    /// Whether the derived encoding also depends on `src0 > src1` (selector values).
    pub ordered: bool,
    /// Immediates.
    pub immediates: &'static [ImmField],
    /// Staging register use.
    pub staging: Staging,
    /// Message type (message instructions exist on the ADD unit only).
    pub message: Message,
    /// Must be the last instruction of its clause (branches).
    pub last: bool,
    /// Number of register destinations.
    pub dests: u8,
    /// Table-based (transcendental helper) instruction.
    pub table: bool,
}

use super::tables::{ADD_BY_NAME, FMA_BY_NAME};
pub use super::tables::{ADD_OPS, FMA_OPS};

/// Errors from matching or building a single instruction word.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum OpError {
    #[error("no {unit:?} instruction matches {bits:#x}")]
    UnknownOpcode { unit: Unit, bits: u32 },
    #[error("{name}: source {src} selector {sel} is not allowed")]
    IllegalSource {
        name: &'static str,
        src: usize,
        sel: u8,
    },
    #[error("{name}: modifier {modifier} has a reserved value")]
    ReservedModifier {
        name: &'static str,
        modifier: &'static str,
    },
    #[error("{name}: modifier combination cannot be encoded")]
    UnencodableModifiers { name: &'static str },
    #[error("{name}: wrong operand count")]
    OperandCount { name: &'static str },
    #[error("{name}: immediate {imm} out of range")]
    ImmediateRange {
        name: &'static str,
        imm: &'static str,
    },
}

fn field(bits: u32, start: u8, size: u8) -> u32 {
    (bits >> start) & ((1u32 << size) - 1)
}

/// The table for a unit.
pub fn ops(unit: Unit) -> &'static [OpInfo] {
    match unit {
        Unit::Fma => FMA_OPS,
        Unit::Add => ADD_OPS,
    }
}

/// Every encoding variant of the instruction called `name` on `unit`, in
/// decoding priority order (a binary search of the generated name index:
/// no scan of the table).
pub fn variants(unit: Unit, name: &str) -> impl Iterator<Item = &'static OpInfo> + use<> {
    let (table, index) = match unit {
        Unit::Fma => (FMA_OPS, FMA_BY_NAME),
        Unit::Add => (ADD_OPS, ADD_BY_NAME),
    };
    let rows: &'static [u16] = index
        .binary_search_by(|&(n, _)| n.as_bytes().cmp(name.as_bytes()))
        .map_or(&[], |i| index[i].1);
    rows.iter().map(move |&i| &table[usize::from(i)])
}

/// Finds the row an instruction word decodes as: exact bits must match and
/// no derived field may hold a reserved value; earlier rows win.
pub fn match_op(unit: Unit, bits: u32) -> Option<&'static OpInfo> {
    ops(unit).iter().find(|op| {
        bits & op.mask == op.exact
            && op
                .derived
                .iter()
                .all(|d| op_reserved_ok(d, field(bits, d.start, d.size)))
    })
}

fn op_reserved_ok(d: &DerivedField, value: u32) -> bool {
    d.reserved & (1u32 << value) == 0
}

/// The fields of an instruction word once its row is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstrFields {
    /// The matched row.
    pub op: &'static OpInfo,
    /// Source selectors (0-2 register ports, 3 zero/`t`, 4/5 FAU low/high, 6 `t0`, 7 `t1`).
    pub selectors: Vec<u8>,
    /// Option index per modifier of `op.mods`.
    pub mods: Vec<u8>,
    /// Immediate values per `op.immediates`.
    pub imms: Vec<u32>,
}

impl InstrFields {
    /// An instruction of row `op` with every modifier at its default (the
    /// first option when there is none), immediates 0 and selectors `srcs`.
    pub fn new(op: &'static OpInfo, srcs: &[u8]) -> Self {
        Self {
            op,
            selectors: srcs.to_vec(),
            mods: op
                .mods
                .iter()
                .map(|m| {
                    m.default
                        .and_then(|d| m.opts.iter().position(|o| *o == d))
                        .unwrap_or(0) as u8
                })
                .collect(),
            imms: vec![0; op.immediates.len()],
        }
    }

    /// Sets modifier `name` to option `value`; false if there is no such
    /// modifier or option.
    pub fn set_modifier(&mut self, name: &str, value: &str) -> bool {
        let Some(i) = self.op.mods.iter().position(|m| m.name == name) else {
            return false;
        };
        match self.op.mods[i].opts.iter().position(|o| *o == value) {
            Some(v) => {
                self.mods[i] = v as u8;
                true
            }
            None => false,
        }
    }

    /// Value of immediate `name`.
    pub fn immediate(&self, name: &str) -> Option<u32> {
        self.op
            .immediates
            .iter()
            .position(|i| i.name == name)
            .map(|i| self.imms[i])
    }

    /// Option name of modifier `i`.
    pub fn mod_name(&self, i: usize) -> &'static str {
        self.op.mods[i].opts[self.mods[i] as usize]
    }

    /// Option name of the modifier called `name`, if the instruction has it.
    pub fn modifier(&self, name: &str) -> Option<&'static str> {
        self.op
            .mods
            .iter()
            .position(|m| m.name == name)
            .map(|i| self.mod_name(i))
    }
}

/// Splits an instruction word into its fields. Reserved modifier values and
/// illegal source selectors are errors.
pub fn decode_instr(unit: Unit, bits: u32) -> Result<InstrFields, OpError> {
    let op = match_op(unit, bits).ok_or(OpError::UnknownOpcode { unit, bits })?;
    fields_of(op, bits)
}

fn fields_of(op: &'static OpInfo, bits: u32) -> Result<InstrFields, OpError> {
    let selectors: Vec<u8> = op
        .srcs
        .iter()
        .map(|s| field(bits, s.start, 3) as u8)
        .collect();
    for (i, (s, &sel)) in op.srcs.iter().zip(&selectors).enumerate() {
        if s.allowed & (1 << sel) == 0 {
            return Err(OpError::IllegalSource {
                name: op.name,
                src: i,
                sel,
            });
        }
    }
    let mut derived_value = 0u32;
    let mut shift = 0;
    for d in op.derived {
        derived_value |= field(bits, d.start, d.size) << shift;
        shift += d.size;
    }
    let ordering = if op.ordered && selectors.len() >= 2 && selectors[0] > selectors[1] {
        1u32 << shift
    } else {
        0
    };
    let mut mods = Vec::with_capacity(op.mods.len());
    for m in op.mods {
        let value = match m.start {
            Some(start) => field(bits, start, m.size) as u8,
            None => *m
                .lut
                .get((ordering | derived_value) as usize)
                .unwrap_or(&255),
        };
        if value == 255 || m.opts.get(value as usize).is_none_or(|o| *o == "reserved") {
            return Err(OpError::ReservedModifier {
                name: op.name,
                modifier: m.name,
            });
        }
        mods.push(value);
    }
    let imms = op
        .immediates
        .iter()
        .map(|i| field(bits, i.start, i.size))
        .collect();
    Ok(InstrFields {
        op,
        selectors,
        mods,
        imms,
    })
}

/// Builds the instruction word for `fields`. Fails when the modifier values
/// have no encoding in this variant, or when the result would decode as a
/// different row (decoding is the reference).
pub fn encode_instr(fields: &InstrFields) -> Result<u32, OpError> {
    let op = fields.op;
    if fields.selectors.len() != op.srcs.len()
        || fields.mods.len() != op.mods.len()
        || fields.imms.len() != op.immediates.len()
    {
        return Err(OpError::OperandCount { name: op.name });
    }
    let mut base = op.exact;
    for (s, &sel) in op.srcs.iter().zip(&fields.selectors) {
        if sel > 7 || s.allowed & (1 << sel) == 0 {
            return Err(OpError::IllegalSource {
                name: op.name,
                src: 0,
                sel,
            });
        }
        base |= u32::from(sel) << s.start;
    }
    for (m, &v) in op.mods.iter().zip(&fields.mods) {
        if let Some(start) = m.start {
            if u32::from(v) >= 1 << m.size {
                return Err(OpError::UnencodableModifiers { name: op.name });
            }
            base |= u32::from(v) << start;
        }
    }
    for (i, &v) in op.immediates.iter().zip(&fields.imms) {
        if v >= 1 << i.size {
            return Err(OpError::ImmediateRange {
                name: op.name,
                imm: i.name,
            });
        }
        base |= v << i.start;
    }
    let width: u8 = op.derived.iter().map(|d| d.size).sum();
    // The modifiers held in derived fields are looked up as `fields_of`
    // does (`lut[ordering | derived value]`): a value whose lookup differs
    // cannot decode to `fields`, and is skipped before the costlier
    // decoding check below.
    let ordering =
        if op.ordered && fields.selectors.len() >= 2 && fields.selectors[0] > fields.selectors[1] {
            1u32 << width
        } else {
            0
        };
    for value in 0..(1u32 << width) {
        let mut bits = base;
        let mut shift = 0;
        for d in op.derived {
            bits |= field(value, shift, d.size) << d.start;
            shift += d.size;
        }
        let mut decoded = 0u32;
        let mut shift = 0;
        for d in op.derived {
            decoded |= field(bits, d.start, d.size) << shift;
            shift += d.size;
        }
        let lut_ok = op.mods.iter().zip(&fields.mods).all(|(m, &v)| {
            m.start.is_some() || m.lut.get((ordering | decoded) as usize) == Some(&v)
        });
        if !lut_ok {
            continue;
        }
        if match_op(op.unit, bits).is_some_and(|m| std::ptr::eq(m, op))
            && fields_of(op, bits).is_ok_and(|f| f == *fields)
        {
            return Ok(bits);
        }
    }
    Err(OpError::UnencodableModifiers { name: op.name })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_fits_its_unit() {
        for unit in [Unit::Fma, Unit::Add] {
            for op in ops(unit) {
                assert_eq!(op.unit, unit);
                assert!(op.mask < 1 << unit.bits(), "{}", op.name);
                assert_eq!(op.exact & !op.mask, 0, "{}", op.name);
            }
        }
    }

    #[test]
    fn iadd_decodes_and_reencodes() {
        // +IADD.s32 t1, r57, u0.w0 from cs_loop clause_0 (add bits 0x?).
        let op = variants(Unit::Add, "IADD.s32").next().unwrap();
        let f = InstrFields {
            op,
            selectors: vec![1, 4],
            mods: op.mods.iter().map(default_index).collect(),
            imms: vec![],
        };
        assert_eq!(InstrFields::new(op, &[1, 4]), f);
        let bits = encode_instr(&f).unwrap();
        assert_eq!(decode_instr(Unit::Add, bits).unwrap(), f);
    }

    /// The name index lists exactly each name's rows, in table order (what
    /// a scan of the table gives), and nothing for names it lacks.
    #[test]
    fn name_index_gives_every_row_of_a_name_in_order() {
        for unit in [Unit::Fma, Unit::Add] {
            let mut listed = 0;
            for op in ops(unit) {
                let scan: Vec<*const OpInfo> = ops(unit)
                    .iter()
                    .filter(|o| o.name == op.name)
                    .map(|o| o as *const OpInfo)
                    .collect();
                let indexed: Vec<*const OpInfo> = variants(unit, op.name)
                    .map(|o| o as *const OpInfo)
                    .collect();
                assert_eq!(indexed, scan, "{unit:?} {}", op.name);
                listed += 1;
            }
            assert_eq!(listed, ops(unit).len());
            assert_eq!(variants(unit, "NO_SUCH_OP").count(), 0);
            assert_eq!(variants(unit, "").count(), 0);
        }
        assert!(variants(Unit::Fma, "NOP").next().is_some());
        assert!(variants(Unit::Add, "NOP").next().is_some());
    }

    /// The checked-in tables are what `tools/gen_isa.py` makes of the ISA
    /// description (skipped where python3 or the reference data is missing).
    #[test]
    fn generated_tables_are_up_to_date() {
        let root = env!("CARGO_MANIFEST_DIR");
        let xml = crate::reference_path!("bifrost-ISA.xml");
        if !std::path::Path::new(&xml).exists() {
            eprintln!("skipped: {xml} not found");
            return;
        }
        let Ok(out) = std::process::Command::new("python3")
            .arg(format!("{root}/tools/gen_isa.py"))
            .arg(xml)
            .output()
        else {
            eprintln!("skipped: python3 not available");
            return;
        };
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let checked_in = std::fs::read(format!("{root}/src/hw/isa/tables.rs")).unwrap();
        assert!(
            out.stdout == checked_in,
            "src/hw/isa/tables.rs is stale: python3 tools/gen_isa.py {xml} > src/hw/isa/tables.rs"
        );
    }

    fn default_index(m: &ModField) -> u8 {
        m.default
            .and_then(|d| m.opts.iter().position(|o| *o == d))
            .unwrap_or(0) as u8
    }
}
