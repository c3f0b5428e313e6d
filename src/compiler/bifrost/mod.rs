//! The Bifrost backend: turns the IR into Bifrost clauses, and reads them
//! back as text (`disasm` prints Mesa's syntax, `asm` parses it and encodes).
//!
//! Bit layouts live in `crate::hw::isa`; nothing in here packs bits by hand.

pub mod asm;
pub mod binary;
pub mod disasm;
