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

/// What a one-input fragment module ([`fragment_module`]) is made of.
#[derive(Clone)]
struct FragSpec {
    /// The input is a signed 32-bit integer (else a float).
    int_input: bool,
    /// The input is a 64-bit float (needs `Float64`).
    double_input: bool,
    /// Decorations of the input besides Location 0.
    decorations: Vec<spirv::Decoration>,
    /// The input is this built-in instead of a located varying.
    builtin: Option<spirv::BuiltIn>,
    /// Execution modes besides `OriginUpperLeft`.
    modes: Vec<spirv::ExecutionMode>,
    /// `OpKill` (or another terminator) instead of `OpReturn`.
    terminator: Op,
    /// The terminator is in a called function.
    in_callee: bool,
    /// Demote before the terminator.
    demote: bool,
    model: spirv::ExecutionModel,
    /// A derivative instruction (`OpDPdx` ...) applied to the value written.
    derivative: Option<Op>,
}

impl Default for FragSpec {
    fn default() -> FragSpec {
        FragSpec {
            int_input: false,
            double_input: false,
            decorations: vec![],
            builtin: None,
            modes: vec![],
            terminator: Op::Return,
            in_callee: false,
            demote: false,
            model: spirv::ExecutionModel::Fragment,
            derivative: None,
        }
    }
}

/// A fragment shader `main` that reads one scalar input (%10) and writes
/// it, converted to float, to every component of a vec4 output (%11).
fn fragment_module(f: &FragSpec) -> Vec<u32> {
    use spirv::{Decoration as D, StorageClass as S};
    let mut a = Asm::new(40);
    a.op(Op::Capability, &[1]);
    if f.double_input {
        a.op(Op::Capability, &[spirv::Capability::Float64 as u32]);
    }
    if f.demote {
        a.op(
            Op::Capability,
            &[spirv::Capability::DemoteToHelperInvocation as u32],
        );
    }
    if f.derivative.is_some() {
        a.op(
            Op::Capability,
            &[spirv::Capability::DerivativeControl as u32],
        );
    }
    a.op(Op::MemoryModel, &[0, 1]);
    a.op(
        Op::EntryPoint,
        &[f.model as u32, 1, u32::from_le_bytes(*b"main"), 0, 10, 11],
    );
    for &m in [spirv::ExecutionMode::OriginUpperLeft]
        .iter()
        .chain(&f.modes)
    {
        a.op(Op::ExecutionMode, &[1, m as u32]);
    }
    match f.builtin {
        Some(b) => a.op(Op::Decorate, &[10, D::BuiltIn as u32, b as u32]),
        None => a.op(Op::Decorate, &[10, D::Location as u32, 0]),
    };
    for &d in &f.decorations {
        a.op(Op::Decorate, &[10, d as u32]);
    }
    a.op(Op::Decorate, &[11, D::Location as u32, 0]);
    a.op(Op::TypeVoid, &[2]).op(Op::TypeFunction, &[3, 2]);
    a.op(Op::TypeFloat, &[5, 32]);
    let in_ty = if f.int_input {
        a.op(Op::TypeInt, &[6, 32, 1]);
        6
    } else if f.double_input {
        a.op(Op::TypeFloat, &[6, 64]);
        6
    } else {
        5
    };
    a.op(Op::TypeVector, &[7, 5, 4])
        .op(Op::TypePointer, &[8, S::Input as u32, in_ty])
        .op(Op::TypePointer, &[9, S::Output as u32, 7])
        .op(Op::Variable, &[8, 10, S::Input as u32])
        .op(Op::Variable, &[9, 11, S::Output as u32]);
    let end = |a: &mut Asm| {
        if f.demote {
            a.op(Op::DemoteToHelperInvocation, &[]);
        }
        a.op(f.terminator, &[]);
    };
    if f.in_callee {
        a.op(Op::Function, &[2, 20, 0, 3]).op(Op::Label, &[21]);
        end(&mut a);
        a.op(Op::FunctionEnd, &[]);
    }
    a.op(Op::Function, &[2, 1, 0, 3])
        .op(Op::Label, &[4])
        .op(Op::Load, &[in_ty, 12, 10]);
    let x = match (f.int_input, f.double_input) {
        (true, _) => {
            a.op(Op::ConvertSToF, &[5, 13, 12]);
            13
        }
        (_, true) => {
            a.op(Op::FConvert, &[5, 13, 12]);
            13
        }
        _ => 12,
    };
    let x = match f.derivative {
        Some(d) => {
            a.op(d, &[5, 16, x]);
            16
        }
        None => x,
    };
    a.op(Op::CompositeConstruct, &[7, 14, x, x, x, x])
        .op(Op::Store, &[11, 14]);
    if f.in_callee {
        a.op(Op::FunctionCall, &[2, 15, 20]).op(Op::Return, &[]);
    } else {
        end(&mut a);
    }
    a.op(Op::FunctionEnd, &[]);
    a.words
}

fn parse_fragment(f: &FragSpec) -> Result<crate::compiler::ir::Shader, SpirvError> {
    parse(
        &fragment_module(f),
        "main",
        Stage::Fragment,
        &HashMap::new(),
    )
}

#[test]
fn every_interpolation_decoration_is_kept() {
    use crate::compiler::ir::{Interpolation as I, Sampling as Sm};
    use spirv::Decoration as D;
    let cases = [
        (vec![], I::Smooth, Sm::Center),
        (vec![D::Flat], I::Flat, Sm::Center),
        (vec![D::NoPerspective], I::NoPerspective, Sm::Center),
        (vec![D::Centroid], I::Smooth, Sm::Centroid),
        (vec![D::Sample], I::Smooth, Sm::Sample),
        (
            vec![D::NoPerspective, D::Centroid],
            I::NoPerspective,
            Sm::Centroid,
        ),
        (vec![D::Flat, D::Sample], I::Flat, Sm::Sample),
    ];
    for (decorations, interpolation, sampling) in cases {
        let f = FragSpec {
            decorations: decorations.clone(),
            ..FragSpec::default()
        };
        let s = parse_fragment(&f).unwrap_or_else(|e| panic!("{decorations:?}: {e}"));
        assert_eq!(s.stage, Stage::Fragment);
        assert_eq!(s.inputs.len(), 1);
        assert_eq!(
            (s.inputs[0].interpolation, s.inputs[0].sampling),
            (interpolation, sampling),
            "{decorations:?}"
        );
        assert_eq!(
            s.info.color_formats,
            vec![(0, crate::compiler::ir::ColorFormat::Float)]
        );
    }
    // A flat integer input is fine.
    let f = FragSpec {
        int_input: true,
        decorations: vec![D::Flat],
        ..FragSpec::default()
    };
    assert_eq!(parse_fragment(&f).unwrap().inputs[0].interpolation, I::Flat);
}

#[test]
fn fragment_builtins_and_modes() {
    use crate::compiler::ir::{Intrinsic, Op as IrOp, SysVal};
    use spirv::BuiltIn as B;
    for (b, sv) in [
        (B::FragCoord, SysVal::FragCoord),
        (B::FrontFacing, SysVal::FrontFacing),
        (B::PointCoord, SysVal::PointCoord),
        (B::SampleId, SysVal::SampleId),
    ] {
        // The scalar input type does not matter to the front end's
        // built-in mapping (a float here).
        let f = FragSpec {
            builtin: Some(b),
            ..FragSpec::default()
        };
        let s = parse_fragment(&f).unwrap_or_else(|e| panic!("{b:?}: {e}"));
        let mut found = false;
        s.body.for_each_instr(&mut |i| {
            if let IrOp::Intrinsic(x) = &i.op {
                found |= x.kind == Intrinsic::LoadSysVal(sv);
            }
        });
        assert!(found, "{b:?}");
        assert!(s.inputs.is_empty());
    }
    let f = FragSpec {
        modes: vec![
            spirv::ExecutionMode::EarlyFragmentTests,
            spirv::ExecutionMode::DepthReplacing,
        ],
        ..FragSpec::default()
    };
    assert!(parse_fragment(&f).unwrap().info.early_fragment_tests);
    assert!(
        !parse_fragment(&FragSpec::default())
            .unwrap()
            .info
            .early_fragment_tests
    );
}

#[test]
fn kill_terminate_and_demote_become_discard() {
    use crate::compiler::ir::{Intrinsic, Op as IrOp};
    let discards = |s: &crate::compiler::ir::Shader| {
        let mut n = 0;
        s.body.for_each_instr(&mut |i| {
            if let IrOp::Intrinsic(x) = &i.op {
                n += usize::from(x.kind == Intrinsic::Discard);
            }
        });
        n
    };
    for (terminator, demote) in [
        (Op::Kill, false),
        (Op::TerminateInvocation, false),
        (Op::Return, true),
    ] {
        let f = FragSpec {
            terminator,
            demote,
            ..FragSpec::default()
        };
        let s = parse_fragment(&f).unwrap_or_else(|e| panic!("{terminator:?}: {e}"));
        assert_eq!(discards(&s), 1, "{terminator:?}");
        s.validate().unwrap();
    }
}

#[test]
fn derivatives_become_derivative_intrinsics() {
    use crate::compiler::ir::{AluOp, DerivativeAxis as X, Intrinsic, Op as IrOp};
    let count = |s: &crate::compiler::ir::Shader| {
        let (mut found, mut fabs) = (Vec::new(), 0);
        s.body.for_each_instr(&mut |i| match &i.op {
            IrOp::Intrinsic(x) => {
                if let Intrinsic::Derivative { axis, coarse } = x.kind {
                    found.push((axis, coarse));
                }
            }
            IrOp::Alu(a) if a.op == AluOp::Fabs => fabs += 1,
            _ => {}
        });
        (found, fabs)
    };
    for (op, want, abs) in [
        (Op::DPdx, vec![(X::X, false)], 0),
        (Op::DPdy, vec![(X::Y, false)], 0),
        (Op::DPdxFine, vec![(X::X, false)], 0),
        (Op::DPdyFine, vec![(X::Y, false)], 0),
        (Op::DPdxCoarse, vec![(X::X, true)], 0),
        (Op::DPdyCoarse, vec![(X::Y, true)], 0),
        (Op::Fwidth, vec![(X::X, false), (X::Y, false)], 2),
        (Op::FwidthFine, vec![(X::X, false), (X::Y, false)], 2),
        (Op::FwidthCoarse, vec![(X::X, true), (X::Y, true)], 2),
    ] {
        let f = FragSpec {
            derivative: Some(op),
            ..FragSpec::default()
        };
        let s = parse_fragment(&f).unwrap_or_else(|e| panic!("{op:?}: {e}"));
        s.validate().unwrap_or_else(|e| panic!("{op:?}: {e:?}"));
        assert_eq!(count(&s), (want, abs), "{op:?}");
        // The text form round-trips.
        let text = s.to_string();
        let back = crate::compiler::ir::Shader::parse(&text).unwrap();
        assert_eq!(back.to_string(), text, "{op:?}");
    }
    // Outside fragment shaders: a clean error.
    let words = fragment_module(&FragSpec {
        model: spirv::ExecutionModel::Vertex,
        derivative: Some(Op::DPdx),
        ..FragSpec::default()
    });
    let e = parse(&words, "main", Stage::Vertex, &HashMap::new()).unwrap_err();
    assert!(matches!(e, SpirvError::Invalid { .. }), "{e}");
}

#[test]
fn malformed_fragment_modules_are_clean_errors() {
    use spirv::Decoration as D;
    let invalid = |f: FragSpec, what: &str| {
        let e = parse_fragment(&f).unwrap_err();
        assert!(matches!(e, SpirvError::Invalid { .. }), "{what}: {e}");
    };
    let unsupported = |f: FragSpec, what: &str| {
        let e = parse_fragment(&f).unwrap_err();
        assert!(matches!(e, SpirvError::Unsupported { .. }), "{what}: {e}");
    };
    invalid(
        FragSpec {
            int_input: true,
            ..FragSpec::default()
        },
        "integer input without Flat",
    );
    invalid(
        FragSpec {
            decorations: vec![D::Flat, D::NoPerspective],
            ..FragSpec::default()
        },
        "Flat and NoPerspective",
    );
    invalid(
        FragSpec {
            decorations: vec![D::Centroid, D::Sample],
            ..FragSpec::default()
        },
        "Centroid and Sample",
    );
    unsupported(
        FragSpec {
            modes: vec![spirv::ExecutionMode::OriginLowerLeft],
            ..FragSpec::default()
        },
        "OriginLowerLeft",
    );
    unsupported(
        FragSpec {
            modes: vec![spirv::ExecutionMode::PixelCenterInteger],
            ..FragSpec::default()
        },
        "PixelCenterInteger",
    );
    unsupported(
        FragSpec {
            terminator: Op::Kill,
            in_callee: true,
            ..FragSpec::default()
        },
        "OpKill in a called function",
    );
    unsupported(
        FragSpec {
            double_input: true,
            ..FragSpec::default()
        },
        "64-bit varying",
    );
    unsupported(
        FragSpec {
            builtin: Some(spirv::BuiltIn::HelperInvocation),
            ..FragSpec::default()
        },
        "HelperInvocation",
    );
    // A vertex module asked for as a fragment shader, and the reverse.
    let vertex = FragSpec {
        model: spirv::ExecutionModel::Vertex,
        ..FragSpec::default()
    };
    assert!(matches!(
        parse_fragment(&vertex),
        Err(SpirvError::NoEntryPoint { .. })
    ));
    // Fragment-only instructions and built-ins in a vertex shader.
    let words = fragment_module(&FragSpec {
        model: spirv::ExecutionModel::Vertex,
        terminator: Op::Kill,
        ..FragSpec::default()
    });
    let e = parse(&words, "main", Stage::Vertex, &HashMap::new()).unwrap_err();
    assert!(matches!(e, SpirvError::Invalid { .. }), "{e}");
    let words = fragment_module(&FragSpec {
        model: spirv::ExecutionModel::Vertex,
        builtin: Some(spirv::BuiltIn::FragCoord),
        ..FragSpec::default()
    });
    let e = parse(&words, "main", Stage::Vertex, &HashMap::new()).unwrap_err();
    assert!(matches!(e, SpirvError::Unsupported { .. }), "{e}");
    // Every prefix of a fragment module is an error, never a panic.
    let words = fragment_module(&FragSpec {
        terminator: Op::Kill,
        decorations: vec![D::Centroid],
        ..FragSpec::default()
    });
    for n in 0..words.len() {
        let _ = parse(&words[..n], "main", Stage::Fragment, &HashMap::new());
    }
}

/// A compute shader using `PhysicalStorageBuffer` pointers: float %4, u64
/// %5, u32 %6, the pointee type %7 (`types` defines it, ids from 20 on),
/// %8 = a physical pointer to %7, constants %9 = 0x1000 (u64), %10 = 3
/// (u32), %11 = 7.0, and in `main` %13 = OpConvertUToPtr %8 %9 before
/// `body` (ids 14..20).
fn physical_module(
    decorate: &dyn Fn(&mut Asm),
    types: &dyn Fn(&mut Asm),
    body: &dyn Fn(&mut Asm),
) -> Vec<u32> {
    use spirv::{AddressingModel, Capability, ExecutionMode, ExecutionModel, StorageClass};
    let mut a = Asm::new(40);
    a.op(Op::Capability, &[Capability::Shader as u32])
        .op(Op::Capability, &[Capability::Int64 as u32])
        .op(
            Op::Capability,
            &[Capability::PhysicalStorageBufferAddresses as u32],
        )
        .op(
            Op::MemoryModel,
            &[AddressingModel::PhysicalStorageBuffer64 as u32, 1],
        )
        .op(
            Op::EntryPoint,
            &[
                ExecutionModel::GLCompute as u32,
                1,
                u32::from_le_bytes(*b"main"),
                0,
            ],
        )
        .op(
            Op::ExecutionMode,
            &[1, ExecutionMode::LocalSize as u32, 1, 1, 1],
        );
    decorate(&mut a);
    a.op(Op::TypeVoid, &[2])
        .op(Op::TypeFunction, &[3, 2])
        .op(Op::TypeFloat, &[4, 32])
        .op(Op::TypeInt, &[5, 64, 0])
        .op(Op::TypeInt, &[6, 32, 0]);
    types(&mut a);
    a.op(
        Op::TypePointer,
        &[8, StorageClass::PhysicalStorageBuffer as u32, 7],
    )
    .op(Op::Constant, &[5, 9, 0x1000, 0])
    .op(Op::Constant, &[6, 10, 3])
    .op(Op::Constant, &[4, 11, 7.0f32.to_bits()])
    .op(Op::Function, &[2, 1, 0, 3])
    .op(Op::Label, &[12])
    .op(Op::ConvertUToPtr, &[8, 13, 9]);
    body(&mut a);
    a.op(Op::Return, &[]).op(Op::FunctionEnd, &[]);
    a.words
}

fn parse_compute(words: &[u32]) -> Result<crate::compiler::ir::Shader, SpirvError> {
    parse(words, "main", Stage::Compute, &HashMap::new())
}

/// `Aligned` (memory operand bit 1) with its literal.
const ALIGNED: u32 = 2;

#[test]
fn physical_pointer_access_chain_stores_through_the_address() {
    use crate::compiler::ir::interp::{DrawState, Memory, run_workgroup};
    let array_stride = |a: &mut Asm| {
        a.op(
            Op::Decorate,
            &[8, spirv::Decoration::ArrayStride as u32, 16],
        );
    };
    let float = |a: &mut Asm| {
        a.op(Op::TypeFloat, &[7, 32]);
    };
    // p[3] = 7.0 with p = (float*)0x1000 and a 16-byte element stride.
    let store = |aligned: &'static [u32]| {
        move |a: &mut Asm| {
            a.op(Op::PtrAccessChain, &[8, 14, 13, 10]);
            let mut ops = vec![14, 11];
            ops.extend_from_slice(aligned);
            a.op(Op::Store, &ops);
        }
    };
    let s = parse_compute(&physical_module(
        &array_stride,
        &float,
        &store(&[ALIGNED, 4]),
    ))
    .unwrap();
    let mut memory = Memory::new();
    memory.map(0x1000, vec![0; 64]).unwrap();
    run_workgroup(&s, &DrawState::default(), &mut memory, [0, 0, 0]).unwrap();
    let mut want = [0u8; 64];
    want[48..52].copy_from_slice(&7.0f32.to_le_bytes());
    assert_eq!(memory.range(0x1000).unwrap(), &want[..]);

    // The Aligned operand: missing, not a power of two, too small for a float.
    for (aligned, says) in [
        (&[][..], "without the Aligned"),
        (&[ALIGNED, 3][..], "not a power of two"),
        (&[ALIGNED, 2][..], "aligned to only 2"),
    ] {
        let words = physical_module(&array_stride, &float, &store(aligned));
        let e = parse_compute(&words).unwrap_err();
        assert!(matches!(e, SpirvError::Invalid { .. }), "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
    // OpPtrAccessChain needs the pointer type's ArrayStride.
    let e = parse_compute(&physical_module(&|_| {}, &float, &store(&[ALIGNED, 4]))).unwrap_err();
    assert!(e.to_string().contains("ArrayStride"), "{e}");
}

#[test]
fn malformed_physical_pointers_are_errors() {
    // A pointer to a sampler: declared fine, an error when loaded.
    let e = parse_compute(&physical_module(
        &|_| {},
        &|a| {
            a.op(Op::TypeSampler, &[7]);
        },
        &|a| {
            a.op(Op::Load, &[7, 14, 13, ALIGNED, 16]);
        },
    ))
    .unwrap_err();
    assert!(matches!(e, SpirvError::Unsupported { .. }), "{e}");
    // A struct whose float sits at byte 2: its load cannot be 4-aligned.
    let e = parse_compute(&physical_module(
        &|a| {
            a.op(
                Op::MemberDecorate,
                &[7, 0, spirv::Decoration::Offset as u32, 2],
            );
        },
        &|a| {
            a.op(Op::TypeStruct, &[7, 4]);
        },
        &|a| {
            a.op(Op::Load, &[7, 14, 13, ALIGNED, 16]);
        },
    ))
    .unwrap_err();
    assert!(e.to_string().contains("aligned to only 2"), "{e}");
    // A float converted to a pointer; a pointer converted to a float.
    let e = parse_compute(&physical_module(
        &|_| {},
        &|a| {
            a.op(Op::TypeFloat, &[7, 32]);
        },
        &|a| {
            a.op(Op::ConvertUToPtr, &[8, 14, 11]);
        },
    ))
    .unwrap_err();
    assert!(matches!(e, SpirvError::Invalid { .. }), "{e}");
    let e = parse_compute(&physical_module(
        &|_| {},
        &|a| {
            a.op(Op::TypeFloat, &[7, 32]);
        },
        &|a| {
            a.op(Op::ConvertPtrToU, &[4, 14, 13]);
        },
    ))
    .unwrap_err();
    assert!(matches!(e, SpirvError::Invalid { .. }), "{e}");
    // Forward pointers of another storage class; a forward pointer never defined.
    let e = parse_compute(&physical_module(
        &|_| {},
        &|a| {
            a.op(
                Op::TypeForwardPointer,
                &[20, spirv::StorageClass::StorageBuffer as u32],
            )
            .op(Op::TypeFloat, &[7, 32]);
        },
        &|_| {},
    ))
    .unwrap_err();
    assert!(matches!(e, SpirvError::Unsupported { .. }), "{e}");
    let e = parse_compute(&physical_module(
        &|_| {},
        &|a| {
            a.op(
                Op::TypeForwardPointer,
                &[20, spirv::StorageClass::PhysicalStorageBuffer as u32],
            )
            .op(Op::TypeStruct, &[7, 20]);
        },
        &|a| {
            a.op(Op::Load, &[7, 14, 13, ALIGNED, 16]);
        },
    ))
    .unwrap_err();
    assert!(matches!(e, SpirvError::Invalid { .. }), "{e}");
    // Every prefix of a physical-pointer module is an error, never a panic.
    let words = physical_module(
        &|a| {
            a.op(
                Op::Decorate,
                &[8, spirv::Decoration::ArrayStride as u32, 16],
            );
        },
        &|a| {
            a.op(Op::TypeFloat, &[7, 32]);
        },
        &|a| {
            a.op(Op::PtrAccessChain, &[8, 14, 13, 10])
                .op(Op::Store, &[14, 11, ALIGNED, 4]);
        },
    );
    for n in 0..words.len() {
        let _ = parse_compute(&words[..n]);
    }
}
