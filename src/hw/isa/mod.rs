//! The Bifrost instruction encoding layer: opcode tables (generated from the
//! ISA description), the clause container format, and a decoder/encoder
//! between clause bytes and a neutral decoded form.
//!
//! This is the single place that knows Bifrost bit layouts. The compiler
//! backend encodes through it, the disassembler/assembler print and parse its
//! neutral form, and the simulated shader core executes that form. It must
//! never panic on any input bytes (the simulator feeds it arbitrary GPU
//! memory) and never depend on Vulkan, the kernel or the compiler IR.
//!
//! Entry points: [`decode_clause`], [`decode_shader`], [`encode_clause`],
//! [`PortRequest::pack`] for legal register-port assignment.

pub mod clause;
pub mod decoded;
pub mod opcode;
#[rustfmt::skip]
pub mod tables;

pub use clause::{
    ClauseHeader, DecodeError, EncodeError, FlowControl, PortRequest, RegBlock, RegPorts, SlotOp,
    decode_clause, decode_shader, encode_clause, rebuild_views,
};
pub use decoded::{
    ConstMod, DecodedClause, Instr, Operand, RegWrite, StagingUse, Tuple, WriteHalf,
};
pub use opcode::{InstrFields, OpInfo, Unit};
