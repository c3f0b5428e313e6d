//! Malformed modules built word by word: each must give the right error.

use std::collections::HashMap;

use spirv::Op;

use super::{SpirvError, parse};
use crate::compiler::ir::Stage;

/// A tiny module builder: a vertex shader `main` with the given body.
struct Asm {
    words: Vec<u32>,
}

impl Asm {
    fn new(bound: u32) -> Asm {
        Asm {
            words: vec![super::reader::MAGIC, 0x0001_0000, 0, bound, 0],
        }
    }

    fn op(&mut self, op: Op, operands: &[u32]) -> &mut Self {
        self.words
            .push(((operands.len() as u32 + 1) << 16) | op as u32);
        self.words.extend_from_slice(operands);
        self
    }

    /// Capability, memory model, entry point %1 "main", void %2, fn type %3.
    fn prologue(&mut self) -> &mut Self {
        self.op(Op::Capability, &[1]);
        self.op(Op::MemoryModel, &[0, 1]);
        self.op(Op::EntryPoint, &[0, 1, u32::from_le_bytes(*b"main"), 0]);
        self.op(Op::TypeVoid, &[2]);
        self.op(Op::TypeFunction, &[3, 2])
    }

    fn parse(&self) -> Result<crate::compiler::ir::Shader, SpirvError> {
        parse(&self.words, "main", Stage::Vertex, &HashMap::new())
    }
}

#[test]
fn minimal_module_parses() {
    let mut a = Asm::new(10);
    a.prologue()
        .op(Op::Function, &[2, 1, 0, 3])
        .op(Op::Label, &[4])
        .op(Op::Return, &[])
        .op(Op::FunctionEnd, &[]);
    let s = a.parse().unwrap();
    assert_eq!(s.instr_count(), 0);
}

#[test]
fn out_of_range_id() {
    let mut a = Asm::new(10);
    a.prologue().op(Op::TypeBool, &[99]);
    assert!(matches!(a.parse(), Err(SpirvError::Invalid { ref op, .. }) if op == "OpTypeBool"));
}

#[test]
fn recursion_is_rejected() {
    let mut a = Asm::new(10);
    a.prologue()
        .op(Op::Function, &[2, 1, 0, 3])
        .op(Op::Label, &[4])
        .op(Op::FunctionCall, &[2, 5, 1])
        .op(Op::Return, &[])
        .op(Op::FunctionEnd, &[]);
    let e = a.parse().unwrap_err();
    assert!(e.to_string().contains("recursive"), "{e}");
}

#[test]
fn cycle_without_loop_merge() {
    let mut a = Asm::new(10);
    a.prologue()
        .op(Op::Function, &[2, 1, 0, 3])
        .op(Op::Label, &[4])
        .op(Op::Branch, &[5])
        .op(Op::Label, &[5])
        .op(Op::Branch, &[4])
        .op(Op::FunctionEnd, &[]);
    let e = a.parse().unwrap_err();
    assert!(e.to_string().contains("without a loop"), "{e}");
}

#[test]
fn unknown_opcode_in_a_body() {
    let mut a = Asm::new(10);
    a.prologue()
        .op(Op::Function, &[2, 1, 0, 3])
        .op(Op::Label, &[4]);
    a.words.extend_from_slice(&[(1 << 16) | 0x7777]);
    a.op(Op::Return, &[]).op(Op::FunctionEnd, &[]);
    assert!(
        matches!(a.parse(), Err(SpirvError::Unsupported { ref op, .. }) if op == "opcode 30583")
    );
}

#[test]
fn wrong_operand_count_and_type_mismatch() {
    // %6 = int 32, %7 = const 1, %8 = vec2, %9 = const composite.
    let build = |body: &[(Op, Vec<u32>)]| {
        let mut a = Asm::new(20);
        a.prologue()
            .op(Op::TypeInt, &[6, 32, 1])
            .op(Op::Constant, &[6, 7, 1])
            .op(Op::TypeVector, &[8, 6, 2])
            .op(Op::ConstantComposite, &[8, 9, 7, 7])
            .op(Op::Function, &[2, 1, 0, 3])
            .op(Op::Label, &[4]);
        for (op, w) in body {
            a.op(*op, w);
        }
        a.op(Op::Return, &[]).op(Op::FunctionEnd, &[]);
        a.parse()
    };
    let e = build(&[(Op::IAdd, vec![6, 10, 7])]).unwrap_err();
    assert!(matches!(e, SpirvError::Invalid { .. }), "{e}");
    let e = build(&[(Op::IAdd, vec![6, 10, 7, 9])]).unwrap_err();
    assert!(e.to_string().contains("expected"), "{e}");
    let e = build(&[(Op::IAdd, vec![6, 10, 7, 15])]).unwrap_err();
    assert!(e.to_string().contains("not defined"), "{e}");
    assert!(build(&[(Op::IAdd, vec![8, 10, 9, 9])]).is_ok());
}

#[test]
fn huge_array_is_a_limit() {
    let mut a = Asm::new(20);
    a.prologue()
        .op(Op::TypeInt, &[6, 32, 0])
        .op(Op::Constant, &[6, 7, 1 << 30])
        .op(Op::TypeArray, &[8, 6, 7]);
    assert!(matches!(a.parse(), Err(SpirvError::Limit { .. })));
}

#[test]
fn absurd_bound_is_a_limit() {
    let mut a = Asm::new(1 << 21);
    a.prologue();
    assert!(matches!(a.parse(), Err(SpirvError::Limit { word: 3, .. })));
}

#[test]
fn layout_overflow_is_a_limit() {
    // A shared struct whose member Offset puts its end just below 4 GiB:
    // rounding the size up must not overflow.
    let mut a = Asm::new(20);
    a.prologue()
        .op(
            Op::MemberDecorate,
            &[7, 0, spirv::Decoration::Offset as u32, 0xffff_fff9],
        )
        .op(Op::TypeFloat, &[6, 32])
        .op(Op::TypeStruct, &[7, 6])
        .op(
            Op::TypePointer,
            &[8, spirv::StorageClass::Workgroup as u32, 7],
        )
        .op(Op::Variable, &[8, 9, spirv::StorageClass::Workgroup as u32])
        .op(Op::Function, &[2, 1, 0, 3])
        .op(Op::Label, &[4])
        .op(Op::Return, &[])
        .op(Op::FunctionEnd, &[]);
    assert!(
        matches!(a.parse(), Err(SpirvError::Limit { .. })),
        "{:?}",
        a.parse()
    );
}
