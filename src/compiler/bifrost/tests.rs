//! Backend tests: compile IR shaders (text form), check the output decodes
//! with `hw::isa`, and that its disassembly assembles back to the same bytes.

use super::*;
use crate::compiler::ir::Shader;
use crate::hw::isa::decode_shader;

/// Compiles, decodes, and round-trips the disassembly through the assembler.
pub(crate) fn check(text: &str) -> ShaderBinary {
    check_with(text, Options::default())
}

/// [`check`] with compile options (e.g. for v6).
pub(crate) fn check_with(text: &str, options: Options) -> ShaderBinary {
    let s = Shader::parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let bin = compile(&s, options).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let body = &bin.code[..bin.code.len() - 128];
    assert!(bin.code[body.len()..].iter().all(|&b| b == 0));
    let clauses = decode_shader(&bin.code).unwrap_or_else(|e| panic!("decode: {e}\n{text}"));
    assert_eq!(clauses.len() as u32, bin.stats.clauses);
    let dis = disasm::disassemble(&bin.code).expect("disassembles");
    // The packer makes the assembler's port and constant choices: the
    // disassembly assembles back to the very same bytes.
    let again = asm::assemble(&dis).unwrap_or_else(|e| panic!("assemble: {e}\n{dis}"));
    assert!(again == body, "round trip differs:\n{dis}");
    bin
}

pub(crate) const ARITH: &str = r#"shader compute "arith" {
  info local_size 1 1 1 shared 0 push 0
  values 32
  %0:i32x3 = load_sysval sysval=global_invocation_id
  %1:i32 = swizzle %0.x
  %2:i32 = const 0x3
  %3:i32 = imul %1, %2
  %4:i32 = iadd %3, %1
  %5:i32 = load_uniform offset=0
  %6:i32 = isub %4, %5
  %7:i32 = ishl %6, %2
  %8:i32 = ushr %7, %5
  %9:i32 = ixor %8, %1
  %10:i32 = i2f %9
  %11:i32 = const 0x3f000000
  %12:i32 = fmul %10, %11
  %13:i32 = fadd %12, %10
  %14:b1 = flt %13, %11
  %15:i32 = bcsel %14, %13, %9
  %16:i64 = load_uniform offset=8
  %17:i32 = const 0x4
  %18:i32 = imul %1, %17
  %19:i64 = u2u %18
  %20:i64 = iadd %16, %19
  store_global %15, %20
}"#;

#[test]
fn compiles_arith() {
    let bin = check(ARITH);
    assert!(bin.preloads.global_invocation[0]);
    assert_eq!(bin.uniform_words, 2);
}

pub(crate) const CONTROL: &str = r#"shader compute "control" {
  info local_size 4 1 1 shared 0 push 0
  values 40
  %0:i32x3 = load_sysval sysval=global_invocation_id
  %1:i32 = swizzle %0.x
  %2:i32 = const 0x0
  %3:i32 = const 0x1
  %4:i32 = load_uniform offset=0
  %20:i32 = loop (%5:i32 = %2, %6:i32 = %2) {
    %7:b1 = uge %5, %4
    if %7 {
      %30:i32 = iadd %6, %4
      break %30
    } else {
      yield
    }
    %8:i32 = iand %5, %3
    %9:b1 = ieq %8, %2
    %10:i32 = iadd %5, %3
    if %9 {
      continue %10, %6
    } else {
      yield
    }
    %11:b1 = ult %1, %5
    %12:i32 = if %11 {
      %13:i32 = imul %5, %1
      %14:b1 = ine %13, %3
      %15:i32 = if %14 {
        yield %13
      } else {
        %16:i32 = isub %2, %13
        yield %16
      }
      yield %15
    } else {
      yield %5
    }
    %17:i32 = iadd %6, %12
    continue %10, %17
  }
  %21:i64 = load_uniform offset=8
  %22:i32 = const 0x4
  %23:i32 = imul %1, %22
  %24:i64 = u2u %23
  %25:i64 = iadd %21, %24
  store_global %20, %25
}"#;

#[test]
fn compiles_control_flow() {
    let bin = check(CONTROL);
    let clauses = decode_shader(&bin.code).unwrap();
    // Branches exist and end their clauses.
    assert!(clauses.iter().any(|(_, c)| c.ends_in_branch()));
    assert_eq!(
        clauses.last().unwrap().1.header.flow(),
        crate::hw::isa::FlowControl::End
    );
}

pub(crate) const MEMORY: &str = r#"shader compute "memory" {
  info local_size 8 1 1 shared 64 push 0
  values 40
  %0:i32x3 = load_sysval sysval=local_invocation_id
  %1:i32 = swizzle %0.x
  %2:i64 = load_uniform offset=0
  %3:i32 = const 0x10
  %4:i32 = imul %1, %3
  %5:i64 = u2u %4
  %6:i64 = iadd %2, %5
  %7:i32 = load_global %6
  %8:i32x2 = load_global %6
  %9:i32x3 = load_global %6
  %10:i32x4 = load_global %6
  %11:i64 = load_global %6
  %12:i32 = const 0x2
  %13:i32 = ishl %1, %12
  store_shared %7, %13
  barrier
  %14:i32 = const 0x1c
  %15:i32 = isub %14, %13
  %16:i32 = load_shared %15
  %17:i32 = swizzle %8.y
  %18:i32 = swizzle %9.z
  %19:i32 = swizzle %10.w
  %20:i32 = iadd %16, %17
  %21:i32 = iadd %18, %19
  %22:i32x4 = vec %20, %21, %17, %18
  store_global %22, %6
  store_global %11, %6
  %23:i32x3 = vec %20, %21, %19
  store_global %23, %6
  %24:i32x2 = vec %21, %19
  store_global %24, %6
  %25:i32 = load_ubo set=0 binding=1 %4
  store_ssbo set=1 binding=0 %25, %4
}"#;

#[test]
fn compiles_memory() {
    let bin = check(MEMORY);
    assert!(bin.uses_barrier);
    assert_eq!(bin.buffers, vec![(0, 1), (1, 0)]);
    assert_eq!(bin.uniform_words, 3);
    let clauses = decode_shader(&bin.code).unwrap();
    let names: Vec<&str> = clauses
        .iter()
        .flat_map(|(_, c)| c.tuples.iter().map(|t| t.add.name()))
        .collect();
    for n in [
        "LOAD.i32",
        "LOAD.i64",
        "LOAD.i96",
        "LOAD.i128",
        "STORE.i128",
        "STORE.i96",
        "STORE.i64",
        "STORE.i32",
        "BARRIER",
    ] {
        assert!(names.contains(&n), "{n} missing: {names:?}");
    }
}

pub(crate) const VERTEX: &str = r#"shader vertex "attr" {
  info local_size 0 0 0 shared 0 push 0
  values 20
  %0:i32 = load_sysval sysval=raw_vertex_id
  %1:i32 = load_sysval sysval=instance_id
  %2:i32 = load_uniform offset=0
  %3:i32 = iadd %0, %2
  %4:i32x3 = load_attribute location=0 component=0 %3, %1
  %5:i32x2 = load_attribute location=20 component=1 %3, %1
  %6:i64 = load_uniform offset=8
  %7:i32 = swizzle %4.z
  %8:i32 = swizzle %5.x
  %9:i32 = fadd %7, %8
  store_global %9, %6
}"#;

#[test]
fn compiles_attribute_fetch() {
    let bin = check(VERTEX);
    assert!(bin.preloads.vertex_id && bin.preloads.instance_id);
    let clauses = decode_shader(&bin.code).unwrap();
    let names: Vec<&str> = clauses
        .iter()
        .flat_map(|(_, c)| c.tuples.iter().map(|t| t.add.name()))
        .collect();
    assert!(
        names.contains(&"LD_ATTR_IMM") && names.contains(&"LD_ATTR"),
        "{names:?}"
    );
}

#[test]
fn unsupported_is_an_error() {
    let s = Shader::parse(
        r#"shader compute "div" {
  info local_size 1 1 1 shared 0 push 0
  values 4
  %0:i64 = load_uniform offset=0
  %1:i64 = fdiv %0, %0
  %2:i64 = load_uniform offset=8
  store_global %1, %2
}"#,
    )
    .unwrap();
    assert!(matches!(
        compile(&s, Options::default()),
        Err(CompileError::Unsupported(_))
    ));
}

// ---------------------------------------------------------------------------
// Every op alone: packed → decoded by `hw::isa` → disassembled → assembled
// back to the same bytes, for random registers, FAU operands and modifiers.

use crate::hw::isa::Unit;
use isel::{Block, Program, Term};
use ops::*;
use proptest::prelude::*;

pub(crate) fn every_op() -> Vec<Op> {
    let mut v = vec![
        Op::MovI32,
        Op::MovI32Fma,
        Op::IaddS32,
        Op::IsubS32,
        Op::ImulI32,
        Op::IabsS32,
        Op::ArshiftI32,
        Op::MuxI32,
        Op::CselI32Eq,
        Op::FminF32,
        Op::FmaxF32,
        Op::F32ToS32,
        Op::F32ToU32,
        Op::S32ToF32,
        Op::U32ToF32,
        Op::PopcountI32,
        Op::BitrevI32,
        Op::ClzU32,
        Op::Barrier,
    ];
    for neg in [[false, false], [true, false], [false, true], [true, true]] {
        for (abs, clamp01) in [
            ([false, false], false),
            ([true, false], true),
            ([false, true], false),
        ] {
            v.push(Op::FaddF32 { neg, abs, clamp01 });
        }
        v.push(Op::FaddF32Add { neg });
    }
    for n in 0..8u8 {
        v.push(Op::FmaF32 {
            neg: [n & 1 != 0, n & 2 != 0, n & 4 != 0],
        });
    }
    for op in [
        ShiftOp::LshiftOr,
        ShiftOp::LshiftAnd,
        ShiftOp::LshiftXor,
        ShiftOp::RshiftOr,
        ShiftOp::RshiftAnd,
        ShiftOp::RshiftXor,
    ] {
        for (not1, not_result) in [(false, false), (true, false), (false, true)] {
            if matches!(op, ShiftOp::LshiftXor | ShiftOp::RshiftXor) && not1 {
                continue; // XOR rows have no source inversion
            }
            v.push(Op::Shift {
                op,
                not1,
                not_result,
            });
        }
    }
    for cmp in [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge] {
        v.push(Op::Fcmp { cmp });
        if matches!(cmp, Cmp::Eq | Cmp::Ne) {
            v.push(Op::Icmp {
                ty: IcmpType::I32,
                cmp,
            });
        } else {
            v.push(Op::Icmp {
                ty: IcmpType::S32,
                cmp,
            });
            v.push(Op::Icmp {
                ty: IcmpType::U32,
                cmp,
            });
        }
    }
    for round in [Round::Rte, Round::Rtp, Round::Rtn, Round::Rtz] {
        v.push(Op::FroundF32 { round });
    }
    v.extend([
        Op::V2F32ToV2F16,
        Op::F16ToF32 { high: false },
        Op::F16ToF32 { high: true },
        Op::FaddClampM1F32,
    ]);
    for signed in [false, true] {
        for (bits, lanes) in [(8, 4), (16, 2)] {
            for lane in 0..lanes {
                v.push(Op::SmallIntToF32 { signed, bits, lane });
            }
        }
    }
    for seg in [Seg::None, Seg::Wls] {
        for bytes in [1, 2, 4, 8, 12, 16] {
            v.push(Op::Load { bytes, seg });
            v.push(Op::Store { bytes, seg });
        }
    }
    for seg in [Seg::None, Seg::Wls] {
        v.push(Op::Axchg { seg });
        v.push(Op::Acmpxchg { seg });
    }
    for comps in 1..=4 {
        v.push(Op::LdAttrImm {
            index: comps * 3,
            comps,
        });
        v.push(Op::LdAttr { comps });
        v.push(Op::StCvt { comps });
    }
    v.push(Op::LeaAttrImm { index: 0 });
    v.push(Op::LeaAttrImm { index: 15 });
    v.push(Op::LeaAttr);
    for ty in crate::compiler::ir::SampledType::ALL {
        v.push(Op::LdAttrTex { ty, comps: 4 });
    }
    v
}

/// One instruction of `op` on physical registers; `fau` replaces source
/// `fau_src` with an immediate or a uniform.
fn lone(op: Op, regs: &[u8], dst: u8, fau: Option<(usize, Src)>) -> Vec<u8> {
    let n = op.num_srcs();
    let mut srcs: Vec<Src> = (0..n).map(|i| Src::Phys(regs[i])).collect();
    // ARSHIFT's second source is #0; CSEL reads at most three registers.
    if matches!(op, Op::ArshiftI32 | Op::CselI32Eq) {
        srcs[1] = Src::Imm(0);
    }
    if let Some((i, s)) = fau
        && i < n
        && !(matches!(op, Op::ArshiftI32 | Op::CselI32Eq) && i == 1)
    {
        srcs[i] = s;
    }
    let dst = match op {
        Op::Store { .. } | Op::StCvt { .. } => {
            srcs.insert(0, Src::Phys(dst));
            None
        }
        // Read-write staging: the data register is the result register.
        Op::Axchg { .. } | Op::Acmpxchg { .. } => {
            srcs.insert(0, Src::Phys(dst));
            Some(Dst::Phys(dst))
        }
        Op::Barrier => None,
        _ => Some(Dst::Phys(dst)),
    };
    let p = Program {
        blocks: vec![Block {
            instrs: vec![Instr::new(op, dst, srcs)],
            term: Term::End,
        }],
        ..Program::default()
    };
    let s = sched::schedule(&p).unwrap_or_else(|e| panic!("{op:?}: {e}"));
    let (code, _) =
        pack::encode_program(&s.clauses, &s.block_clause).unwrap_or_else(|e| panic!("{op:?}: {e}"));
    code
}

fn round_trips(code: &[u8]) -> Result<(), TestCaseError> {
    let body = &code[..code.len() - 128];
    let clauses = decode_shader(code).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(!clauses.is_empty());
    let dis = disasm::disassemble(code).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let again = asm::assemble(&dis).map_err(|e| TestCaseError::fail(format!("{e}\n{dis}")))?;
    prop_assert!(again == body, "round trip differs:\n{}", dis);
    Ok(())
}

#[test]
fn every_op_round_trips_with_fixed_operands() {
    for op in every_op() {
        let code = lone(op, &[1, 2, 3, 5], 4, None);
        round_trips(&code).unwrap_or_else(|e| panic!("{op:?}: {e}"));
        let clauses = decode_shader(&code).unwrap();
        let names: Vec<&str> = clauses
            .iter()
            .flat_map(|(_, c)| c.tuples.iter().flat_map(|t| [t.fma.name(), t.add.name()]))
            .collect();
        assert!(names.contains(&op.name()), "{op:?}: {names:?}");
        let t = &clauses[0].1.tuples[0];
        let unit_instr = if op.unit() == Unit::Fma {
            &t.fma
        } else {
            &t.add
        };
        for (m, v) in op.modifiers() {
            if let Some(got) = unit_instr.fields.modifier(m) {
                // Compares may be encoded mirrored (operands swapped).
                if m != "cmpf" {
                    assert_eq!(got, v, "{op:?} modifier {m}");
                }
            }
        }
    }
}

/// The image-store pair `DTSEL_IMM.attribute_1` + `LEA_ATTR_TEX` (Mesa's
/// `bi_lower_dtsel`) for each register format: one tuple, the ADD reading
/// the FMA result through `t`, and the clause round-trips through the
/// disassembler.
#[test]
fn image_store_pairs_round_trip() {
    for ty in crate::compiler::ir::SampledType::ALL {
        let instrs = vec![
            Instr::new(Op::DtselAttribute1, Some(Dst::Phys(6)), vec![Src::Phys(1)]),
            Instr::new(
                Op::LeaAttrTex { ty },
                Some(Dst::Phys(8)),
                vec![Src::Phys(6), Src::Imm(0), Src::Imm(0)],
            ),
        ];
        let p = Program {
            blocks: vec![Block {
                instrs,
                term: Term::End,
            }],
            ..Program::default()
        };
        let s = sched::schedule(&p).unwrap();
        let (code, _) = pack::encode_program(&s.clauses, &s.block_clause).unwrap();
        round_trips(&code).unwrap_or_else(|e| panic!("{ty:?}: {e}"));
        let dis = disasm::disassemble(&code).unwrap();
        let lea = Op::LeaAttrTex { ty }.modifiers()[0].1;
        assert!(
            dis.contains("*DTSEL_IMM.attribute_1 r6:t0, r1")
                && dis.contains(&format!("+LEA_ATTR_TEX.{lea} t1, t, ")),
            "{ty:?}:\n{dis}"
        );
    }
}

/// The tuple pairs (`SEG_ADD`, `ATOM_C*` + `ATOM_CX`) for every atomic
/// operation, with and without a returned value: scheduled into one tuple
/// each, and the clause round-trips through the disassembler.
#[test]
fn atomic_pairs_round_trip() {
    let opcs = [
        AtomOpc::Add,
        AtomOpc::Smin,
        AtomOpc::Smax,
        AtomOpc::Umin,
        AtomOpc::Umax,
        AtomOpc::And,
        AtomOpc::Or,
        AtomOpc::Xor,
    ];
    for opc in opcs {
        for ret in [false, true] {
            let (lo, hi, data) = (Src::Phys(4), Src::Phys(5), Src::Phys(7));
            let instrs = vec![
                Instr::new(
                    Op::SegAddWls { high: false },
                    Some(Dst::Phys(4)),
                    vec![Src::Phys(1)],
                ),
                Instr::new(
                    Op::SegAddWls { high: true },
                    Some(Dst::Phys(5)),
                    vec![Src::Imm(0)],
                ),
                Instr::new(Op::AtomC { opc, ret }, None, [lo, hi, data]),
                Instr::new(Op::AtomCx, Some(Dst::Phys(7)), [data, lo, hi, data]),
            ];
            let p = Program {
                blocks: vec![Block {
                    instrs,
                    term: Term::End,
                }],
                ..Program::default()
            };
            let s = sched::schedule(&p).unwrap();
            let (code, _) = pack::encode_program(&s.clauses, &s.block_clause).unwrap();
            round_trips(&code).unwrap_or_else(|e| panic!("{opc:?} {ret}: {e}"));
            let clauses = decode_shader(&code).unwrap();
            let paired = |f: &str, a: &str| {
                clauses.iter().any(|(_, c)| {
                    c.tuples
                        .iter()
                        .any(|t| t.fma.name() == f && t.add.name() == a)
                })
            };
            assert!(paired("SEG_ADD", "SEG_ADD"), "{opc:?}");
            let name = Op::AtomC { opc, ret }.name();
            assert!(paired(name, "ATOM_CX"), "{opc:?} {ret}");
            let atom = clauses
                .iter()
                .flat_map(|(_, c)| c.tuples.iter())
                .find(|t| t.fma.name() == name)
                .unwrap();
            assert_eq!(atom.fma.fields.modifier("atom_opc"), Some(opc.name()));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_operands_round_trip(
        op in prop::sample::select(every_op()),
        regs in prop::collection::vec(0u8..55, 4),
        dst in 0u8..55,
        fau_src in 0usize..4,
        fau_kind in 0u8..3,
        imm in any::<u32>(),
        word in 0u8..16,
        high in any::<bool>(),
    ) {
        let fau = match fau_kind {
            0 => None,
            1 => Some((fau_src, Src::Imm(imm))),
            _ => Some((fau_src, Src::Uniform { word, high })),
        };
        // Staging ranges must fit in r0..r63.
        let dst = dst.min(60 - op.staging().map_or(0, |s| s.0));
        round_trips(&lone(op, &regs, dst, fau))?;
    }
}

/// Static statistics of the test shaders (`--nocapture` prints them).
#[test]
fn stats_are_consistent() {
    for (name, text) in [
        ("arith", ARITH),
        ("control", CONTROL),
        ("memory", MEMORY),
        ("vertex", VERTEX),
    ] {
        let bin = check(text);
        let st = bin.stats;
        assert!(st.instructions >= st.tuples && st.instructions <= 2 * st.tuples);
        eprintln!(
            "{name}: {} instructions, {} tuples, {} clauses, {} quadwords, {:.2} instructions/tuple, {} registers",
            st.instructions,
            st.tuples,
            st.clauses,
            st.quadwords,
            st.tuple_fullness(),
            bin.work_registers
        );
    }
}

/// Conversions that select an upper half or byte never read a passthrough
/// (Mesa's same-cycle temporary restriction), even right after the
/// instruction computing their source: they move to where the register
/// file holds it.
#[test]
fn lane_selecting_conversions_read_registers() {
    let convs = [
        Op::F16ToF32 { high: true },
        Op::SmallIntToF32 {
            signed: true,
            bits: 8,
            lane: 2,
        },
        Op::SmallIntToF32 {
            signed: false,
            bits: 16,
            lane: 1,
        },
    ];
    // r1 = r2 + r3; r4 = conv(r1); then `tail`.
    let program = |conv: Op, tail: Vec<Instr>| {
        let mut instrs = vec![
            Instr::new(
                Op::IaddS32,
                Some(Dst::Phys(1)),
                vec![Src::Phys(2), Src::Phys(3)],
            ),
            Instr::new(conv, Some(Dst::Phys(4)), [Src::Phys(1)]),
        ];
        instrs.extend(tail);
        Program {
            blocks: vec![Block {
                instrs,
                term: Term::End,
            }],
            ..Program::default()
        }
    };
    let packed = |p: &Program| {
        let s = sched::schedule(p).unwrap();
        pack::encode_program(&s.clauses, &s.block_clause).unwrap().0
    };
    // The first source of the first decoded instruction of `op`.
    let first_source = |code: &[u8], op: Op| {
        let clauses = decode_shader(code).unwrap();
        let ins = clauses
            .iter()
            .flat_map(|(_, c)| c.tuples.iter().flat_map(|t| [&t.fma, &t.add]))
            .find(|i| i.name() == op.name())
            .unwrap();
        ins.srcs[0]
    };
    for conv in convs {
        let tail = vec![Instr::new(
            Op::IaddS32,
            Some(Dst::Phys(5)),
            vec![Src::Phys(4), Src::Phys(4)],
        )];
        let code = packed(&program(conv, tail));
        round_trips(&code).unwrap();
        assert_eq!(
            first_source(&code, conv),
            crate::hw::isa::Operand::Reg(1),
            "{conv:?}"
        );
        // Without the restriction, the same program reads the passthrough.
        let plain = Op::F16ToF32 { high: false };
        let code = packed(&program(plain, vec![]));
        assert_ne!(first_source(&code, plain), crate::hw::isa::Operand::Reg(1));
    }
}

/// What the backend leaves out says so by name: 64-bit atomics, and any
/// f64 arithmetic (Bifrost has no fp64; shaderFloat64 is not advertised).
#[test]
fn wide_atomics_and_f64_are_named_unsupported() {
    let cases = [
        (
            "  %1:i64 = load_global %0\n  %2:i64 = global_atomic op=add %0, %1\n  store_global %2, %0\n",
            "64-bit atomics",
        ),
        (
            "  %1:i64 = load_global %0\n  %2:i64 = fmul %1, %1\n  store_global %2, %0\n",
            "fmul on f64",
        ),
        (
            "  %1:i32 = load_global %0\n  %2:i64 = i2f %1\n  store_global %2, %0\n",
            "i2f on f64",
        ),
    ];
    for (body, want) in cases {
        let text = format!(
            "shader compute \"x\" {{\n  info local_size 1 1 1 shared 0 push 0\n  values 3\n  %0:i64 = load_uniform offset=0\n{body}}}"
        );
        let s = Shader::parse(&text).unwrap();
        match compile(&s, Options::default()) {
            Err(CompileError::Unsupported(why)) => assert!(why.contains(want), "{why}"),
            other => panic!("{want}: {other:?}"),
        }
    }
}

/// Every decoded (clause, tuple index, instruction) of a binary.
fn instructions(
    bin: &ShaderBinary,
) -> Vec<(crate::hw::isa::DecodedClause, usize, crate::hw::isa::Instr)> {
    let mut out = Vec::new();
    for (_, c) in decode_shader(&bin.code).unwrap() {
        for (t, tuple) in c.tuples.iter().enumerate() {
            for ins in [&tuple.fma, &tuple.add] {
                if !ins.is_nop() {
                    out.push((c.clone(), t, ins.clone()));
                }
            }
        }
    }
    out
}

#[test]
fn fragment_shader_loads_varyings_and_ends_in_atest_and_blend() {
    use crate::compiler::bifrost::binary::{BlendRegisterFormat, RenderTargetWrite};
    use crate::compiler::ir::{Interpolation, Sampling};
    let s = crate::compiler::ir::interp::fragment_test_shader();
    let bin = check(&s.to_string());
    let dis = disasm::disassemble(&bin.code).unwrap();
    // The varying: record 2, components 0..3 (component 1 + two), centroid.
    assert!(
        dis.contains("LD_VAR_IMM.v3.store.f32.centroid") && dis.contains("index:2"),
        "{dis}"
    );
    assert!(dis.contains("LD_VAR_SPECIAL.frag_w"), "{dis}");
    assert!(dis.contains("DISCARD.f32"), "{dis}");
    let ins = instructions(&bin);
    let clauses = decode_shader(&bin.code).unwrap();
    // Every clause terminates discarded threads.
    assert!(
        clauses
            .iter()
            .all(|(_, c)| c.header.terminate_discarded_threads)
    );
    // ATEST: coverage r60 in and out, the datum in FAU special slot 5.
    let (atest_clause, t, atest) = ins.iter().find(|(_, _, i)| i.name() == "ATEST").unwrap();
    assert_eq!(atest_clause.header.message_type, 13);
    assert_eq!(atest_clause.tuples[*t].regs.fau_idx, 5);
    assert_eq!(atest.dest.map(|d| d.reg), Some(60));
    // BLEND: the shader's last instruction, in its last clause (`eos`),
    // descriptor of render target 0 in FAU special 8, return address r48.
    let (blend_clause, t, blend) = ins.last().unwrap();
    assert_eq!(blend.name(), "BLEND");
    assert_eq!(*t + 1, blend_clause.tuples.len());
    assert_eq!(blend_clause.header.message_type, 9);
    assert_eq!(blend_clause.header.flow(), crate::hw::isa::FlowControl::End);
    assert_eq!(blend_clause.tuples[*t].regs.fau_idx, 8);
    assert_eq!(blend.dest.map(|d| d.reg), Some(48));
    // ATEST comes first; the clause before BLEND waits on slots 0, 6, 7.
    let atest_at = clauses
        .iter()
        .position(|(_, c)| c.header.message_type == 13)
        .unwrap();
    let blend_at = clauses.len() - 1;
    assert!(atest_at < blend_at);
    let before = &clauses[blend_at - 1].1.header;
    assert_eq!(before.dependency_wait & 0xc1, 0xc1);
    assert_eq!(before.next_message_type, 9);
    // No other instruction writes r48 (the allocator keeps it free).
    assert!(
        ins.iter()
            .filter(|(_, _, i)| i.name() != "BLEND")
            .all(|(_, _, i)| i.dest.is_none_or(|d| d.reg != 48))
    );
    let f = bin.fragment.as_ref().expect("fragment info");
    assert!(f.preloads.coverage && f.preloads.sample_mask_id);
    assert!(f.preloads.fragment_position && f.preloads.primitive_flags);
    assert!(f.can_discard && f.reads_frag_coord && f.reads_front_facing);
    assert!(!f.writes_depth && !f.early_z_allowed);
    assert_eq!(
        f.render_targets,
        vec![RenderTargetWrite {
            index: 0,
            format: BlendRegisterFormat::F32,
            components: 4,
            return_offset: 0,
        }]
    );
    assert_eq!(f.varyings.len(), 1);
    let v = f.varyings[0];
    assert_eq!((v.location, v.components), (2, 3));
    assert_eq!(
        (v.interpolation, v.sampling),
        (Interpolation::NoPerspective, Sampling::Centroid)
    );
    assert_eq!(f.varying_count(), 3);
    assert_eq!(bin.preloads, binary::Preloads::default());
    // The first clause loads a varying: nothing for the RSD to wait for.
    assert!(!f.wait_dependency_6 && !f.wait_dependency_7);
}

#[test]
fn a_fragment_shader_starting_with_atest_asks_the_rsd_to_wait() {
    // A constant colour: ATEST is in the first clause, which depends on
    // slot 6; only the RSD can make the shader wait for it.
    let text = r#"shader fragment "constant" {
  info local_size 1 1 1 shared 0 push 0
  color location 0 float
  output "o" location 0 component 0 i32x4
  values 3
  %0:i32 = const 0x3f800000
  %1:i32 = const 0x0
  %2:i32x4 = vec %0, %1, %1, %0
  store_output output=0 %2
}"#;
    let bin = check(text);
    let clauses = decode_shader(&bin.code).unwrap();
    assert_eq!(clauses[0].1.header.message_type, 13, "ATEST first");
    let f = bin.fragment.unwrap();
    assert!(f.wait_dependency_6 && !f.wait_dependency_7);
    assert!(f.varyings.is_empty() && !f.preloads.sample_mask_id);
}

const FRAGMENT_MRT: &str = r#"shader fragment "mrt" {
  info local_size 1 1 1 shared 0 push 0
  color location 0 float
  color location 3 uint
  input "c" location 0 component 0 i32x4
  input "id" location 1 component 0 i32 flat
  output "o0" location 0 component 0 i32x4
  output "o3" location 3 component 1 i32x2
  output "depth" builtin frag_depth i32
  values 8
  %0:i32x4 = load_input location=0 component=0
  %1:i32 = load_input location=1 component=0
  %2:i32 = swizzle %0.x
  %3:i32 = iadd %1, %1
  %4:i32x2 = vec %1, %3
  store_output output=0 %0
  store_output output=1 %4
  store_output output=2 %2
}"#;

#[test]
fn fragment_shader_with_depth_and_two_render_targets() {
    use crate::compiler::bifrost::binary::BlendRegisterFormat;
    let bin = check(FRAGMENT_MRT);
    let dis = disasm::disassemble(&bin.code).unwrap();
    assert!(dis.contains("LD_VAR_FLAT_IMM"), "{dis}");
    let names: Vec<&str> = instructions(&bin)
        .iter()
        .map(|(_, _, i)| i.name())
        .filter(|n| ["ATEST", "ZS_EMIT", "BLEND"].contains(n))
        .collect();
    assert_eq!(names, ["ATEST", "ZS_EMIT", "BLEND", "BLEND"], "{dis}");
    // One BLEND per render target, descriptor slot 8 + target.
    let blends: Vec<u8> = instructions(&bin)
        .iter()
        .filter(|(_, _, i)| i.name() == "BLEND")
        .map(|(c, t, _)| c.tuples[*t].regs.fau_idx)
        .collect();
    assert_eq!(blends, [8, 11]);
    assert!(dis.contains("blend_descriptor_3"), "{dis}");
    let f = bin.fragment.unwrap();
    assert!(f.writes_depth && !f.early_fragment_tests && !f.early_z_allowed);
    assert!(!f.can_discard);
    // With `EarlyFragmentTests` the depth has no effect (Vulkan's "Early
    // Fragment Test Mode"): no ZS_EMIT, fixed-function depth.
    let early = check(&FRAGMENT_MRT.replace("1 1 1 shared", "1 1 1 early_fragment_tests shared"));
    let e = early.fragment.as_ref().unwrap();
    assert!(e.early_fragment_tests && e.early_z_allowed && !e.writes_depth);
    let names: Vec<&str> = instructions(&early)
        .iter()
        .map(|(_, _, i)| i.name())
        .filter(|n| ["ATEST", "ZS_EMIT", "BLEND"].contains(n))
        .collect();
    assert_eq!(names, ["ATEST", "BLEND", "BLEND"]);
    let rts: Vec<_> = f
        .render_targets
        .iter()
        .map(|r| (r.index, r.format, r.components))
        .collect();
    assert_eq!(
        rts,
        [
            (0, BlendRegisterFormat::F32, 4),
            (3, BlendRegisterFormat::U32, 3)
        ]
    );
    assert_eq!(f.varying_count(), 2);
}

#[test]
fn unsupported_fragment_shapes_are_clean_errors() {
    let cases = [
        // A render target past the eight blend descriptors.
        FRAGMENT_MRT.replace("location 3 component 1", "location 8 component 1"),
        // A varying beyond LD_VAR_IMM's 5-bit index.
        FRAGMENT_MRT
            .replace("\"id\" location 1", "\"id\" location 40")
            .replace("location=1 component=0", "location=40 component=0"),
    ];
    for text in cases {
        let s = Shader::parse(&text).unwrap();
        assert!(
            matches!(
                compile(&s, Options::default()),
                Err(CompileError::Unsupported(_))
            ),
            "{text}"
        );
    }
    // An output stored under control flow.
    let text = r#"shader fragment "cf" {
  info local_size 1 1 1 shared 0 push 0
  color location 0 float
  input "c" location 0 component 0 i32
  output "o" location 0 component 0 i32
  values 4
  %0:i32 = load_input location=0 component=0
  %1:i32 = const 0x0
  %2:b1 = flt %0, %1
  if %2 {
    store_output output=0 %0
    yield
  } else {
    yield
  }
}"#;
    let s = Shader::parse(text).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(matches!(
        compile(&s, Options::default()),
        Err(CompileError::Unsupported(_))
    ));
}

#[test]
fn a_varying_colour_is_blended_from_the_load_registers() {
    // o = vec4(v.xyz, 1.0): the LD_VAR's registers are BLEND's staging
    // registers, only the fourth is written (the shape of Mesa's
    // gfx_triangle.frag, which blends from its preloaded registers).
    let text = r#"shader fragment "varying_colour" {
  info local_size 1 1 1 shared 0 push 0
  color location 0 float
  input "v" location 0 component 0 i32x3
  output "o" location 0 component 0 i32x4
  values 3
  %0:i32x3 = load_input location=0 component=0
  %1:i32 = const 0x3f800000
  %2:i32x4 = vec %0, %1
  store_output output=0 %2
}"#;
    // v6: from the LD_VAR's registers.
    let bin = check_with(
        text,
        Options {
            arch: Arch::V6,
            ..Options::default()
        },
    );
    let clauses = decode_shader(&bin.code).unwrap();
    let vary = clauses
        .iter()
        .find(|(_, c)| c.header.message_type == 1)
        .unwrap();
    let blend = clauses.last().unwrap();
    assert_eq!(blend.1.header.message_type, 9);
    let base = vary.1.header.staging_register;
    assert_eq!(blend.1.header.staging_register, base);
    // Registers base..base+3 are written only by the load and one move
    // (the 1.0 of the fourth component).
    let writes: Vec<u8> = instructions(&bin)
        .iter()
        .filter_map(|(_, _, i)| i.dest.map(|d| d.reg))
        .filter(|r| (base..base + 4).contains(r))
        .collect();
    assert_eq!(writes, [base + 3]);
    // v7: from the message preload's r0..r2 (no LD_VAR clause), r3 = 1.0.
    let bin = check(text);
    let f = bin.fragment.as_ref().unwrap();
    assert_eq!(
        f.messages,
        [super::binary::VaryingPreload {
            location: 0,
            components: 3
        }]
    );
    let clauses = decode_shader(&bin.code).unwrap();
    assert!(clauses.iter().all(|(_, c)| c.header.message_type != 1));
    let blend = clauses.last().unwrap();
    assert_eq!(blend.1.header.message_type, 9);
    assert_eq!(blend.1.header.staging_register, 0);
    let writes: Vec<u8> = instructions(&bin)
        .iter()
        .filter_map(|(_, _, i)| i.dest.map(|d| d.reg))
        .filter(|r| (0..4).contains(r))
        .collect();
    assert_eq!(writes, [3]);
}

/// Dual-source blending: the second colour (`second_color`, SPIR-V
/// `Index` 1) is written to r4–r7 before render target 0's BLEND, whose
/// staging registers stay out of r4–r7; on v7 the shader keeps one message
/// preload (the second one's registers would be r4–r7), here the second
/// colour's varying, so the first colour — the other varying — is loaded.
#[test]
fn a_second_colour_goes_to_r4_r7_before_the_first_blend() {
    let text = r#"shader fragment "dual" {
  info local_size 1 1 1 shared 0 push 0
  color location 0 float
  input "a" location 0 component 0 i32x4
  input "b" location 1 component 0 i32x4
  output "o0" location 0 component 0 i32x4
  output "o1" second_color component 0 i32x4
  values 2
  %0:i32x4 = load_input location=0 component=0
  %1:i32x4 = load_input location=1 component=0
  store_output output=0 %1
  store_output output=1 %0
}"#;
    // The IR prints the slot back as it parses it.
    let parsed = Shader::parse(text).unwrap();
    assert_eq!(
        Shader::parse(&parsed.to_string()).unwrap().outputs,
        parsed.outputs
    );
    assert!(parsed.to_string().contains("second_color component 0"));
    for arch in [Arch::V7, Arch::V6] {
        let bin = check_with(
            text,
            Options {
                arch,
                ..Options::default()
            },
        );
        let dis = disasm::disassemble(&bin.code).unwrap();
        let f = bin.fragment.as_ref().unwrap();
        assert!(f.messages.len() <= 1, "{:?}", f.messages);
        let ins = instructions(&bin);
        let blend = ins
            .iter()
            .position(|(_, _, i)| i.name() == "BLEND")
            .expect("a BLEND");
        let staging = ins[blend].0.header.staging_register;
        assert!(staging + 4 <= 4 || staging >= 8, "BLEND @r{staging}\n{dis}");
        // r4–r7 written before the BLEND (in its clause or earlier).
        let mut written = [false; 4];
        for (_, _, i) in &ins[..=blend] {
            if let Some(w) = &i.dest
                && (4..8).contains(&w.reg)
            {
                written[usize::from(w.reg - 4)] = true;
            }
        }
        assert_eq!(written, [true; 4], "{arch:?}\n{dis}");
    }
}

/// `pack::PORTS_*` list exactly the assignments of 1, 2 and 3 distinct
/// registers to distinct ports, in increasing base-3 code: the packer
/// tries them in that order, and the first that encodes is the one
/// emitted, so the order is part of the machine code.
#[test]
fn port_tables_are_the_injective_codes_in_order() {
    for (n, table) in [
        (1usize, &pack::PORTS_1[..]),
        (2, &pack::PORTS_2[..]),
        (3, &pack::PORTS_3[..]),
    ] {
        let want: Vec<[u8; 3]> = (0..3usize.pow(n as u32))
            .map(|code| {
                let mut slots = [0u8; 3];
                let mut c = code;
                for s in slots.iter_mut().take(n) {
                    *s = (c % 3) as u8;
                    c /= 3;
                }
                slots
            })
            .filter(|s| (0..n).all(|i| (i + 1..n).all(|j| s[i] != s[j])))
            .collect();
        assert_eq!(table, want.as_slice(), "{n} registers");
    }
}

/// An `if` without an else falls from its then-branch into the join:
/// a store under a condition is one `BRANCHZ` and no `JUMP`, and with an
/// else-branch the then-branch still jumps over it.
#[test]
fn then_branch_without_else_falls_through() {
    let text = |else_store: &str| {
        format!(
            r#"shader compute "cond" {{
  info local_size 1 1 1 shared 0 push 0
  values 16
  %0:i32x3 = load_sysval sysval=global_invocation_id
  %1:i32 = swizzle %0.x
  %2:i32 = const 0x0
  %3:b1 = ine %1, %2
  %4:i64 = load_uniform offset=0
  if %3 {{
    store_global %1, %4
    yield
  }} else {{
    {else_store}
    yield
  }}
}}"#
        )
    };
    let count = |bin: &ShaderBinary, name: &str| {
        disasm::disassemble(&bin.code)
            .expect("disassembles")
            .lines()
            .filter(|l| l.trim_start().starts_with(&format!("+{name} ")))
            .count()
    };
    let bin = check(&text(""));
    assert_eq!((count(&bin, "BRANCHZ.i32.eq"), count(&bin, "JUMP")), (1, 0));
    let bin = check(&text("store_global %2, %4"));
    assert_eq!((count(&bin, "BRANCHZ.i32.eq"), count(&bin, "JUMP")), (1, 1));
}

/// A loaded vector stored as it is is the store's staging vector itself:
/// no moves into a fresh one (a vector built from other values still is).
#[test]
fn whole_vectors_are_stored_without_copies() {
    let text = |value: &str| {
        format!(
            r#"shader compute "copy" {{
  info local_size 1 1 1 shared 0 push 0
  values 16
  %0:i64 = load_uniform offset=0
  %1:i64 = load_uniform offset=8
  %2:i32x4 = load_global %0
  %3:i32 = swizzle %2.y
  %4:i32x4 = vec %3, %3, %3, %3
  store_global {value}, %1
}}"#
        )
    };
    let moves = |bin: &ShaderBinary| {
        disasm::disassemble(&bin.code)
            .expect("disassembles")
            .lines()
            .filter(|l| l.contains("MOV.i32"))
            .count()
    };
    assert_eq!(moves(&check(&text("%2"))), 0);
    assert!(moves(&check(&text("%4"))) >= 3);
}

/// A clause's last tuple writes two registers, and its ADD instruction,
/// split off into a tuple of its own, does not fit the clause (an eighth
/// tuple leaves four constant slots, the seven before it use five or
/// more): that ADD instruction opens the next clause, beside the block's
/// remaining work, instead of taking a clause alone.
#[test]
fn split_add_opens_the_next_clause() {
    // Seven FMA-only multiplies by distinct constants, each beside an ADD
    // without constants (all independent), then more independent work.
    let mut instrs = Vec::new();
    for k in 0..7u8 {
        instrs.push(Instr::new(
            Op::ImulI32,
            Some(Dst::Phys(10 + k)),
            vec![Src::Phys(0), Src::Imm(0x1001 * (u32::from(k) + 3))],
        ));
        instrs.push(Instr::new(
            Op::IaddS32,
            Some(Dst::Phys(20 + k)),
            vec![Src::Phys(1), Src::Phys(2)],
        ));
    }
    for k in 0..4u8 {
        instrs.push(Instr::new(
            Op::IaddS32,
            Some(Dst::Phys(30 + k)),
            vec![Src::Phys(3), Src::Phys(4)],
        ));
    }
    let p = Program {
        blocks: vec![Block {
            instrs,
            term: Term::End,
        }],
        ..Program::default()
    };
    let s = sched::schedule(&p).unwrap();
    let shape: Vec<Vec<(bool, bool)>> = s
        .clauses
        .iter()
        .map(|c| {
            c.tuples
                .iter()
                .map(|t| (t.fma.is_some(), t.add.is_some()))
                .collect()
        })
        .collect();
    // Every instruction is scheduled once.
    let count: usize = s
        .clauses
        .iter()
        .flat_map(|c| &c.tuples)
        .map(|t| usize::from(t.fma.is_some()) + usize::from(t.add.is_some()))
        .sum();
    assert_eq!(count, 18, "{shape:?}");
    // The first clause's last tuple was split (its ADD moved on).
    let first = &s.clauses[0].tuples;
    assert_eq!(
        first.last().map(|t| t.add.is_some()),
        Some(false),
        "{shape:?}"
    );
    // No clause holds a lone ALU instruction: the split ADD shares the
    // next clause with the four other additions.
    assert_eq!(s.clauses.len(), 2, "{shape:?}");
    assert!(s.clauses[1].tuples.len() >= 3, "{shape:?}");
    let (code, _) = pack::encode_program(&s.clauses, &s.block_clause).unwrap();
    round_trips(&code).unwrap();
}

/// An ADD instruction's zero reads the FAU's special zero (`#0.x`, as in
/// Mesa's binaries) while its tuple's FAU slot is free, so it takes no
/// embedded constant and a block's branch still joins its clause; beside
/// a constant it is that constant's pair's other half.
#[test]
fn add_zeros_read_the_fau_zero() {
    let p = Program {
        blocks: vec![
            Block {
                instrs: vec![Instr::new(
                    Op::IsubS32,
                    Some(Dst::Phys(1)),
                    vec![Src::Imm(0), Src::Phys(0)],
                )],
                term: Term::Jump(2),
            },
            Block {
                instrs: vec![Instr::new(
                    Op::MuxI32,
                    Some(Dst::Phys(2)),
                    vec![Src::Imm(0), Src::Imm(1), Src::Phys(1)],
                )],
                term: Term::End,
            },
            Block {
                instrs: vec![Instr::new(
                    Op::MovI32,
                    Some(Dst::Phys(3)),
                    vec![Src::Phys(1)],
                )],
                term: Term::End,
            },
        ],
        ..Program::default()
    };
    let s = sched::schedule(&p).unwrap();
    // Block 0 is one clause: the subtraction and the jump.
    assert_eq!(s.block_clause[1] - s.block_clause[0], 1);
    let (code, _) = pack::encode_program(&s.clauses, &s.block_clause).unwrap();
    round_trips(&code).unwrap();
    let dis = disasm::disassemble(&code).unwrap();
    assert!(dis.contains("+ISUB.s32 r1:t1, #0.x, r0"), "{dis}");
    assert!(dis.contains("+JUMP t1, clause_"), "{dis}");
    // A zero and a one in one instruction: an embedded pair.
    assert!(
        dis.contains("+MUX.i32 r2:t1, 0x00000000 /* 0.000000 */, 0x00000001"),
        "{dis}"
    );
}

/// A block's branch joins its last clause when that clause reads one
/// 32-bit embedded constant: the constant is the low half of the branch
/// offset's pair (as in Mesa's cs_ubo_push). For every clause size the
/// clause round-trips through the assembler and decodes with the
/// constant and the branch target intact.
#[test]
fn branches_share_their_pair_with_one_constant() {
    const C: u32 = 0x0001_2345;
    for k in 1..=7u8 {
        let instrs = (0..k)
            .map(|i| {
                Instr::new(
                    Op::IaddS32,
                    Some(Dst::Phys(10 + i)),
                    vec![Src::Phys(0), Src::Imm(C)],
                )
            })
            .collect();
        let mov = |r: u8| Instr::new(Op::MovI32, Some(Dst::Phys(r)), vec![Src::Phys(1)]);
        let p = Program {
            blocks: vec![
                Block {
                    instrs,
                    term: Term::Jump(2),
                },
                Block {
                    instrs: vec![mov(20)],
                    term: Term::End,
                },
                Block {
                    instrs: vec![mov(21)],
                    term: Term::End,
                },
            ],
            ..Program::default()
        };
        let s = sched::schedule(&p).unwrap();
        assert_eq!(s.block_clause[1], 1, "k = {k}: block 0 is one clause");
        assert_eq!(s.clauses[0].tuples.len(), usize::from(k) + 1, "k = {k}");
        let (code, _) = pack::encode_program(&s.clauses, &s.block_clause).unwrap();
        round_trips(&code).unwrap_or_else(|e| panic!("k = {k}: {e}"));
        let clauses = decode_shader(&code).unwrap();
        let (at, first) = &clauses[0];
        let target = clauses[s.block_clause[2]].0;
        let mut adds = 0;
        let mut jump = None;
        for t in &first.tuples {
            for src in &t.add.srcs {
                if let Some((offset, _)) = src.pc_relative_offset() {
                    // Clause positions count quadwords, offsets bytes.
                    jump = Some(*at as i64 * 16 + offset);
                } else if let Some(v) = src.constant_value() {
                    assert_eq!(v, C, "k = {k}");
                    adds += 1;
                }
            }
        }
        assert_eq!(adds, usize::from(k), "k = {k}");
        assert_eq!(jump, Some(target as i64 * 16), "k = {k}");
    }
}

/// An `if` whose then-branch only jumps to the join branches to the join
/// on a non-zero condition (`BRANCHZ.i32.ne`) and falls into the
/// else-branch: no `JUMP` clause. A then-branch that something else
/// also enters keeps its jump.
#[test]
fn empty_then_branches_become_branches_on_non_zero() {
    let mov = |d: u8, s: u8| Instr::new(Op::MovI32, Some(Dst::Phys(d)), vec![Src::Phys(s)]);
    let program = |entered: bool| Program {
        blocks: vec![
            Block {
                instrs: vec![mov(1, 2)],
                term: Term::BranchZ(Src::Phys(1), 2),
            },
            Block {
                instrs: vec![],
                term: Term::Jump(3),
            },
            Block {
                instrs: vec![mov(5, 6)],
                term: if entered {
                    Term::BranchZ(Src::Phys(5), 1)
                } else {
                    Term::Fall
                },
            },
            Block {
                instrs: vec![mov(7, 8)],
                term: Term::End,
            },
        ],
        ..Program::default()
    };
    let s = sched::schedule(&program(false)).unwrap();
    let (code, _) = pack::encode_program(&s.clauses, &s.block_clause).unwrap();
    round_trips(&code).unwrap();
    let dis = disasm::disassemble(&code).unwrap();
    let join = s.block_clause[3];
    let label = decode_shader(&code).unwrap()[join].0;
    // (The condition comes through the MOV's passthrough.)
    assert!(
        dis.contains(&format!("+BRANCHZ.i32.ne t1, t1, clause_{label}")),
        "{dis}"
    );
    assert!(!dis.contains("JUMP"), "{dis}");
    let s = sched::schedule(&program(true)).unwrap();
    let (code, _) = pack::encode_program(&s.clauses, &s.block_clause).unwrap();
    let dis = disasm::disassemble(&code).unwrap();
    assert!(dis.contains("+JUMP") && !dis.contains(".ne"), "{dis}");
}
