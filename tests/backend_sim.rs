//! The Bifrost backend on the simulated shader core: IR programs compiled
//! by `compiler::bifrost`, launched as COMPUTE jobs through the job emitter,
//! compared byte for byte with the IR interpreter (differential tests).

#[path = "support/differential.rs"]
mod differential;

use bifrost_vk::compiler::bifrost::{Options, compile};
use bifrost_vk::compiler::ir::Shader;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::SimGpu;

/// Runs `text` on the simulator and the interpreter over `groups`
/// workgroups. FAU words: `words(out_va)`; one output buffer of `size`
/// bytes, pre-filled with `init`. Returns the simulator's bytes.
fn differential(
    text: &str,
    words: impl Fn(u64) -> Vec<u64>,
    init: &[u8],
    groups: [u32; 3],
) -> Vec<u8> {
    differential::differential_run(text, words, init, groups).1
}

const ARITH: &str = include_str!("programs/arith.ir");

#[test]
fn arith_matches_interpreter() {
    let out = differential(ARITH, |va| vec![5, va], &[0xaa; 64], [2, 1, 1]);
    assert_ne!(out, vec![0xaa; 64]);
}

const CONTROL: &str = include_str!("programs/control.ir");

#[test]
fn divergent_loops_and_ifs_match_interpreter() {
    for count in [0u64, 1, 7, 13] {
        differential(CONTROL, |va| vec![count, va], &[0x55; 4 * 12], [3, 1, 1]);
    }
}

const MEMORY: &str = include_str!("programs/memory.ir");

#[test]
fn loads_stores_shared_barrier_match_interpreter() {
    let init: Vec<u8> = (0..1024u32).map(|i| (i * 7 + 3) as u8).collect();
    differential(MEMORY, |va| vec![va], &init, [1, 1, 1]);
}

/// Division and remainder by each small constant (3–15, not powers of
/// two: `isel::wide`'s 16-bit split with a binary32 step) of 64 values at
/// the edges of that split (multiples of 2^16 and of the divisor, the top
/// of the range) and random ones, on the G52 and a v6 G72: every quotient
/// and remainder as Rust divides, and as the interpreter does.
#[test]
fn small_constant_divisions_are_exact() {
    let divisors: Vec<u32> = (3..16u32).filter(|d| !d.is_power_of_two()).collect();
    let mut text =
        String::from("shader compute \"small_div\" {\n  info local_size 64 1 1 shared 0 push 0\n");
    let mut body = String::new();
    let mut v = 0;
    let mut val = |body: &mut String, ty: &str, rhs: String| {
        body.push_str(&format!("  %{v}:{ty} = {rhs}\n"));
        v += 1;
        v - 1
    };
    let id = val(
        &mut body,
        "i32x3",
        "load_sysval sysval=global_invocation_id".into(),
    );
    let lane = val(&mut body, "i32", format!("swizzle %{id}.x"));
    let base = val(&mut body, "i64", "load_uniform offset=0".into());
    let four = val(&mut body, "i32", "const 0x4".into());
    let off = val(&mut body, "i32", format!("imul %{lane}, %{four}"));
    let off64 = val(&mut body, "i64", format!("u2u %{off}"));
    let at = val(&mut body, "i64", format!("iadd %{base}, %{off64}"));
    let x = val(&mut body, "i32", format!("load_global %{at}"));
    let stride = 8 * divisors.len() as u32;
    let k = val(&mut body, "i32", format!("const {stride:#x}"));
    let o = val(&mut body, "i32", format!("imul %{lane}, %{k}"));
    let c256 = val(&mut body, "i32", "const 0x100".into());
    let o = val(&mut body, "i32", format!("iadd %{o}, %{c256}"));
    let o64 = val(&mut body, "i64", format!("u2u %{o}"));
    let out = val(&mut body, "i64", format!("iadd %{base}, %{o64}"));
    for (j, d) in divisors.iter().enumerate() {
        let dv = val(&mut body, "i32", format!("const {d:#x}"));
        let q = val(&mut body, "i32", format!("udiv %{x}, %{dv}"));
        let r = val(&mut body, "i32", format!("umod %{x}, %{dv}"));
        let qr = val(&mut body, "i32x2", format!("vec %{q}, %{r}"));
        let dj = val(&mut body, "i64", format!("const {:#x}", 8 * j));
        let a = val(&mut body, "i64", format!("iadd %{out}, %{dj}"));
        body.push_str(&format!("  store_global %{qr}, %{a}\n"));
    }
    text.push_str(&format!("  values {v}\n{body}}}"));
    let mut xs: Vec<u32> = vec![
        0,
        1,
        2,
        14,
        15,
        16,
        0xffff,
        0x1_0000,
        0x1_0001,
        0x1_fffe,
        0x1_ffff,
        0x2_0000,
        0xf_ffff,
        0xfffe_ffff,
        0xffff_0000,
        0xffff_fffe,
        u32::MAX,
        0xaaaa_aaaa,
        0x5555_5555,
        0x8000_0000,
        0x7fff_ffff,
        u32::MAX / 3 * 3,
        u32::MAX / 7 * 7 - 1,
        u32::MAX / 13 * 13 + 1,
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    while xs.len() < 64 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        xs.push(seed as u32);
    }
    let mut init = vec![0u8; 256 + 64 * stride as usize];
    for (i, x) in xs.iter().enumerate() {
        init[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    let got = differential(&text, |va| vec![va], &init, [1, 1, 1]);
    let word = |at: usize| u32::from_le_bytes(got[at..at + 4].try_into().unwrap());
    for (i, &x) in xs.iter().enumerate() {
        for (j, &d) in divisors.iter().enumerate() {
            let at = 256 + i * stride as usize + 8 * j;
            assert_eq!((word(at), word(at + 4)), (x / d, x % d), "{x} / {d}");
        }
    }
}

// ---------------------------------------------------------------------------
// Per-op tests: each backend op, encoded by the packer, run on the simulated
// core for random inputs (one input triple per lane), against `Op::fold`.

use bifrost_vk::compiler::bifrost::isel::{Block, Program, Term};
use bifrost_vk::compiler::bifrost::ops::*;
use bifrost_vk::compiler::bifrost::{pack, ra, sched};

fn reg(index: u32, comp: u8) -> Reg {
    Reg { index, comp }
}

/// in = LOAD.i128 [u0 + gid * 16]; out[gid] = op(in.x, in.y, in.z).
fn op_program(op: Op) -> Program {
    let r = |i, c| Src::Reg(reg(i, c));
    let d = |i| Some(Dst::Reg(reg(i, 0)));
    let sh = |op| Op::Shift {
        op,
        not1: false,
        not_result: false,
    };
    let mut instrs = vec![
        Instr::new(
            sh(ShiftOp::LshiftOr),
            d(0),
            vec![Src::Phys(60), Src::Imm(0), Src::Imm(4)],
        ),
        Instr::new(
            Op::IaddS32,
            d(1),
            vec![
                Src::Uniform {
                    word: 0,
                    high: false,
                },
                r(0, 0),
            ],
        ),
        Instr::new(
            Op::MovI32,
            d(2),
            vec![Src::Uniform {
                word: 0,
                high: true,
            }],
        ),
        Instr::new(
            Op::Load {
                bytes: 16,
                seg: Seg::None,
            },
            d(3),
            vec![r(1, 0), r(2, 0)],
        ),
    ];
    let srcs: Vec<Src> = (0..op.num_srcs() as u8)
        .map(|c| {
            if matches!(op, Op::ArshiftI32 | Op::CselI32Eq) && c == 1 {
                Src::Imm(0)
            } else {
                r(3, c)
            }
        })
        .collect();
    instrs.push(Instr::new(op, d(4), srcs));
    instrs.push(Instr::new(
        sh(ShiftOp::LshiftOr),
        d(5),
        vec![Src::Phys(60), Src::Imm(0), Src::Imm(2)],
    ));
    instrs.push(Instr::new(
        Op::IaddS32,
        d(6),
        vec![
            Src::Uniform {
                word: 1,
                high: false,
            },
            r(5, 0),
        ],
    ));
    instrs.push(Instr::new(
        Op::MovI32,
        d(7),
        vec![Src::Uniform {
            word: 1,
            high: true,
        }],
    ));
    instrs.push(Instr::new(Op::MovI32, d(8), vec![r(4, 0)]));
    instrs.push(Instr::new(
        Op::Store {
            bytes: 4,
            seg: Seg::None,
        },
        None,
        vec![r(8, 0), r(6, 0), r(7, 0)],
    ));
    Program {
        blocks: vec![Block {
            instrs,
            term: Term::End,
        }],
        vreg_sizes: vec![1, 1, 1, 4, 1, 1, 1, 1, 1],
        uniform_words: 2,
        ..Program::default()
    }
}

fn op_binary(op: Op) -> bifrost_vk::compiler::bifrost::binary::ShaderBinary {
    let mut p = op_program(op);
    let work = ra::allocate(&mut p).unwrap();
    let s = sched::schedule(&p).unwrap();
    let (code, _) = pack::encode_program(&s.clauses, &s.block_clause).unwrap();
    bifrost_vk::compiler::bifrost::binary::ShaderBinary {
        code,
        work_registers: work,
        preloads: bifrost_vk::compiler::bifrost::binary::Preloads {
            global_invocation: [true; 3],
            ..Default::default()
        },
        uniform_words: 2,
        ..Default::default()
    }
}

/// A small xorshift generator (deterministic, no dependency).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    /// Mostly "interesting" values: small ints, floats in a sane range, edge cases.
    fn value(&mut self, float: bool) -> u32 {
        match self.next() % 8 {
            0 => [0, 1, u32::MAX, 0x8000_0000, 0x7fff_ffff, 31, 32, 33][self.next() as usize % 8],
            1..=3 if float => (((self.next() % 20001) as f32 - 10000.0) / 64.0).to_bits(),
            1..=3 => self.next() % 64,
            _ => self.next(),
        }
    }
}

fn is_float(op: Op) -> bool {
    matches!(
        op,
        Op::Fcmp { .. }
            | Op::FaddF32 { .. }
            | Op::FmaF32 { .. }
            | Op::FminF32
            | Op::FmaxF32
            | Op::F32ToS32
            | Op::F32ToU32
            | Op::FroundF32 { .. }
            | Op::V2F32ToV2F16
            | Op::FaddClampM1F32
    )
}

fn all_ops() -> Vec<Op> {
    let mut ops = vec![
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
        Op::FaddF32 {
            neg: [false, true],
            abs: [true, false],
            clamp01: false,
        },
        Op::FaddF32 {
            neg: [false, false],
            abs: [false, false],
            clamp01: true,
        },
        Op::FmaF32 {
            neg: [false, false, true],
        },
        Op::FmaF32 {
            neg: [true, false, false],
        },
    ];
    for op in [
        ShiftOp::LshiftOr,
        ShiftOp::LshiftAnd,
        ShiftOp::LshiftXor,
        ShiftOp::RshiftOr,
        ShiftOp::RshiftAnd,
        ShiftOp::RshiftXor,
    ] {
        ops.push(Op::Shift {
            op,
            not1: false,
            not_result: false,
        });
        ops.push(Op::Shift {
            op,
            not1: false,
            not_result: true,
        });
    }
    ops.push(Op::Shift {
        op: ShiftOp::LshiftOr,
        not1: true,
        not_result: false,
    });
    for cmp in [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge] {
        ops.push(Op::Fcmp { cmp });
        let ity = if matches!(cmp, Cmp::Eq | Cmp::Ne) {
            vec![IcmpType::I32]
        } else {
            vec![IcmpType::S32, IcmpType::U32]
        };
        for ty in ity {
            ops.push(Op::Icmp { ty, cmp });
        }
    }
    for round in [Round::Rte, Round::Rtp, Round::Rtn, Round::Rtz] {
        ops.push(Op::FroundF32 { round });
    }
    ops.extend([
        Op::V2F32ToV2F16,
        Op::F16ToF32 { high: false },
        Op::F16ToF32 { high: true },
        Op::FaddClampM1F32,
    ]);
    for signed in [false, true] {
        for lane in 0..4 {
            ops.push(Op::SmallIntToF32 {
                signed,
                bits: 8,
                lane,
            });
        }
        for lane in 0..2 {
            ops.push(Op::SmallIntToF32 {
                signed,
                bits: 16,
                lane,
            });
        }
    }
    ops
}

#[test]
fn every_op_matches_its_fold_on_the_simulator() {
    const LANES: u32 = 64;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut failures = Vec::new();
    for (model, op) in [SimModel::G52, SimModel::G72]
        .into_iter()
        .flat_map(|m| all_ops().into_iter().map(move |o| (m, o)))
    {
        let mut gpu = SimGpu::new(model);
        let binary = op_binary(op);
        let input = gpu.alloc(16 * u64::from(LANES));
        let output = gpu.alloc(4 * u64::from(LANES));
        let inputs: Vec<u32> = (0..4 * LANES).map(|_| rng.value(is_float(op))).collect();
        gpu.write_u32s(input.va, &inputs);
        gpu.run_compute(
            &binary,
            &[input.va, output.va],
            [8, 1, 1],
            [LANES / 8, 1, 1],
        )
        .unwrap_or_else(|e| panic!("{op:?}: {e}"));
        let got = gpu.read_u32s(output.va, LANES as usize);
        for lane in 0..LANES as usize {
            let mut s = inputs[4 * lane..4 * lane + 4].to_vec();
            if matches!(op, Op::ArshiftI32 | Op::CselI32Eq) {
                s[1] = 0; // the program passes #0 there
            }
            let s = &s[..];
            let want = op.fold(s).unwrap();
            let same = got[lane] == want
                || (is_float(op)
                    && f32::from_bits(got[lane]).is_nan()
                    && f32::from_bits(want).is_nan());
            if !same {
                failures.push(format!(
                    "{model:?} {op:?}{s:x?}: simulator {:#x}, fold {want:#x}",
                    got[lane]
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

const DIVMUL: &str = include_str!("programs/divmul.ir");

#[test]
fn division_wide_multiply_and_narrow_loads_match_interpreter() {
    let mut init = vec![0u8; 256 + 64 * 16];
    let pairs: [(u32, u32); 16] = [
        (100, 7),
        (0xffff_ffff, 3),
        (5, 0),
        (0, 9),
        (0x8000_0000, 0xffff_ffff),
        (123_456_789, 1000),
        (0xdead_beef, 0x1_0000),
        (17, 17),
        (0xffff, 0xffff),
        (1, 2),
        (0xfedc_ba98, 0x0123_4567),
        (42, 1),
        (0x7fff_ffff, 2),
        (99, 100),
        (0x8765_4321, 0x8765_4320),
        (3, 0xffff_ff80),
    ];
    for (i, (a, b)) in pairs.iter().enumerate() {
        init[8 * i..8 * i + 4].copy_from_slice(&a.to_le_bytes());
        init[8 * i + 4..8 * i + 8].copy_from_slice(&b.to_le_bytes());
    }
    differential(DIVMUL, |va| vec![va], &init, [2, 1, 1]);
}

const CONSTDIV: &str = include_str!("programs/constdiv.ir");

/// Division and remainder by constants (multiply-high magic, the 33-bit
/// form, powers of two, 0, negative and INT_MIN divisors) on dividends
/// around their multiples and the ends of the range.
#[test]
fn division_by_constants_matches_interpreter() {
    let mut init = vec![0u8; 256 + 64 * 16];
    let xs: [u32; 16] = [
        0,
        1,
        2,
        3,
        640,
        641,
        9_999_999,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        0x8000_0002,
        0xffff_fffe,
        0xffff_ffff,
        0xfff_fff9,
        0xdead_beef,
        641 * 6_700_416,
    ];
    for (i, x) in xs.iter().enumerate() {
        init[8 * i..8 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    differential(CONSTDIV, |va| vec![va], &init, [2, 1, 1]);
}

const LOOPDIV: &str = include_str!("programs/loopdiv.ir");

/// Division by a uniform inside a loop (scalars and a vector), as
/// `opt_split_div` rewrites it (the reciprocal before the loop, a
/// multiply-high and one correction per division) and as the backend
/// divides without it: on the simulator both
/// match the interpreter, and so each other, for edge divisors (0, 1,
/// 2^31, all ones, negative ones) and dividends around the ends of the
/// range (INT_MIN / -1 included).
#[test]
fn division_by_a_loop_invariant_divisor_matches_interpreter() {
    let original = Shader::parse(LOOPDIV).unwrap();
    let mut split = original.clone();
    assert!(split.opt_split_div());
    split.optimize();
    let split_text = split.to_string();
    let (_, body) = split_text.split_once("  loop (").unwrap();
    assert!(
        !body.contains("div") && !body.contains("mod"),
        "{split_text}"
    );
    let mut init = vec![0u8; 256 + 16 * 96];
    let xs: [u32; 16] = [
        0,
        1,
        2,
        7,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        0xffff_fffe,
        0xffff_ffff,
        0xffff_fff9,
        0xdead_beef,
        641 * 6_700_416,
        0x1234_5678,
        100,
        0x6000_0000,
        0x9e37_79b9,
    ];
    for (i, x) in xs.iter().enumerate() {
        init[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    for d in [
        0u32,
        1,
        3,
        7,
        641,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        0xffff_fff9,
        0xffff_ffff,
    ] {
        let want = differential(LOOPDIV, |va| vec![va, u64::from(d)], &init, [2, 1, 1]);
        let got = differential(&split_text, |va| vec![va, u64::from(d)], &init, [2, 1, 1]);
        assert_eq!(got, want, "divisor {d:#x}");
    }
}

const MINMAX64: &str = include_str!("programs/minmax64.ir");

/// 64-bit min/max (signed and unsigned) as 32-bit pairs: pairs that differ
/// only in the low half, only in the high half, in sign, and equal ones.
#[test]
fn wide_min_max_match_interpreter() {
    let mut init = vec![0u8; 256 + 64 * 16];
    let pairs: [(u64, u64); 16] = [
        (0, 0),
        (1, 2),
        (2, 1),
        (0x1_0000_0000, 0xffff_ffff),
        (0xffff_ffff, 0x1_0000_0000),
        (u64::MAX, 0),
        (0, u64::MAX),
        (1 << 63, (1 << 63) - 1),
        ((1 << 63) - 1, 1 << 63),
        (0x8000_0000, 0x7fff_ffff),
        (0x5_8000_0000, 0x5_7fff_ffff),
        (0xffff_fffe_0000_0001, 0xffff_fffe_0000_0002),
        (0x1234_5678_9abc_def0, 0x1234_5678_9abc_def0),
        (u64::MAX - 1, u64::MAX),
        (42, 1 << 40),
        (0xdead_beef_0000_0000, 0xdead_beee_ffff_ffff),
    ];
    for (i, (a, b)) in pairs.iter().enumerate() {
        init[16 * i..16 * i + 8].copy_from_slice(&a.to_le_bytes());
        init[16 * i + 8..16 * i + 16].copy_from_slice(&b.to_le_bytes());
    }
    differential(MINMAX64, |va| vec![va], &init, [2, 1, 1]);
}

const SIGNED: &str = include_str!("programs/signed.ir");

#[test]
fn signed_division_and_bit_queries_match_interpreter() {
    let mut init = vec![0u8; 256 + 64 * 16];
    let pairs: [(i32, i32); 16] = [
        (-7, 2),
        (7, -2),
        (-7, -2),
        (7, 0),
        (-7, 0),
        (i32::MIN, -1),
        (i32::MIN, 1),
        (i32::MIN, i32::MIN),
        (0, -5),
        (100, 7),
        (-100, 7),
        (i32::MAX, -3),
        (1, 1),
        (-1, 1),
        (12345678, -1000),
        (-12345678, 1000),
    ];
    for (i, (a, b)) in pairs.iter().enumerate() {
        init[8 * i..8 * i + 4].copy_from_slice(&a.to_le_bytes());
        init[8 * i + 4..8 * i + 8].copy_from_slice(&b.to_le_bytes());
    }
    differential(SIGNED, |va| vec![va], &init, [2, 1, 1]);
}

const SHIFT_LOGIC: &str = include_str!("programs/shift_logic.ir");

/// Shifts feeding logic ops and masks feeding shifts (fused by
/// `isel/peephole.rs` into one `{L,R}SHIFT_{AND,OR,XOR}`), multiplies by
/// powers of two, run-time division (shift-and-subtract) and signed
/// division by constants, on inputs with extreme shift counts and divisors.
#[test]
fn fused_shifts_and_division_match_interpreter() {
    let mut init = vec![0u8; 256 + 64 * 16];
    let pairs: [(u32, u32); 16] = [
        (0xdead_beef, 0x0000_0005),
        (0xffff_ffff, 0xffff_ffff),
        (0x8000_0000, 0),
        (0, 0x1f),
        (0x1234_5678, 0x20),
        (0xf0f0_f0f0, 0x0f0f_0f0f),
        (7, 0xffff_ffe1),
        (0x7fff_ffff, 1),
        (0x8765_4321, 0x8765_4322),
        (100, 7),
        (0xffff_fff9, 3),
        (31, 33),
        (0x0001_0000, 0x0000_ff00),
        (0xfedc_ba98, 0x8000_0000),
        (1, 0xffff_ffff),
        (0x5555_5555, 0xaaaa_aaab),
    ];
    for (i, (a, b)) in pairs.iter().enumerate() {
        init[8 * i..8 * i + 4].copy_from_slice(&a.to_le_bytes());
        init[8 * i + 4..8 * i + 8].copy_from_slice(&b.to_le_bytes());
    }
    let (binary, _) = differential::differential_run(SHIFT_LOGIC, |va| vec![va], &init, [2, 1, 1]);
    // The fused forms are there: ~(x >> 3), (x & 0xff) << 4 and
    // (y & 0xff00) >> 8 as one instruction each.
    let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code).unwrap();
    assert!(text.contains("RSHIFT_OR.i32.not"), "{text}");
    assert!(text.contains("0x00000ff0"), "{text}");
    assert!(text.contains("RSHIFT_AND.i32"), "{text}");
}

// ---------------------------------------------------------------------------
// Random programs: straight-line integer arithmetic, selects, nested ifs
// with results and counted loops over four per-lane inputs, two uniforms and
// constants; differential against the interpreter.

struct Gen {
    rng: Rng,
    text: String,
    next: u32,
    /// Defined i32 values usable at this point (scoped).
    vals: Vec<u32>,
    /// Also draw pack/unpack ops and 64-bit shifts (off: the original
    /// programs, seed for seed).
    extended: bool,
}

impl Gen {
    fn val(&mut self) -> u32 {
        let i = self.rng.next() as usize % self.vals.len();
        self.vals[i]
    }
    fn fresh(&mut self) -> u32 {
        self.next += 1;
        self.next
    }
    fn line(&mut self, depth: usize, s: &str) {
        self.text.push_str(&"  ".repeat(depth + 1));
        self.text.push_str(s);
        self.text.push('\n');
    }
    fn op(&mut self, depth: usize) {
        let d = self.fresh();
        let (a, b) = (self.val(), self.val());
        let k = self.rng.next() % if self.extended { 24 } else { 20 };
        let s = match k {
            20 => {
                let (c, e) = (self.val(), self.val());
                let v = self.fresh();
                self.line(depth, &format!("%{v}:i32x4 = vec %{a}, %{b}, %{c}, %{e}"));
                let op = ["pack_unorm_4x8", "pack_snorm_4x8"][self.rng.next() as usize % 2];
                let op2 = ["pack_half_2x16", "pack_unorm_2x16", "pack_snorm_2x16"]
                    [self.rng.next() as usize % 3];
                let (p, w) = (self.fresh(), self.fresh());
                self.line(depth, &format!("%{p}:i32 = {op} %{v}"));
                self.line(depth, &format!("%{w}:i32x2 = swizzle %{v}.yz"));
                let q = self.fresh();
                self.line(depth, &format!("%{q}:i32 = {op2} %{w}"));
                format!("%{d}:i32 = ixor %{p}, %{q}")
            }
            21 => {
                let (op, n) = [
                    ("unpack_half_2x16", 2),
                    ("unpack_unorm_4x8", 4),
                    ("unpack_snorm_4x8", 4),
                    ("unpack_unorm_2x16", 2),
                    ("unpack_snorm_2x16", 2),
                ][self.rng.next() as usize % 5];
                let u = self.fresh();
                self.line(depth, &format!("%{u}:i32x{n} = {op} %{a}"));
                let c = ["x", "y", "z", "w"][self.rng.next() as usize % n];
                format!("%{d}:i32 = swizzle %{u}.{c}")
            }
            22 | 23 => {
                let op = ["ishl", "ushr", "ishr"][self.rng.next() as usize % 3];
                let (v, w, r, h) = (self.fresh(), self.fresh(), self.fresh(), self.fresh());
                self.line(depth, &format!("%{v}:i32x2 = vec %{a}, %{b}"));
                self.line(depth, &format!("%{w}:i64 = bitcast %{v}"));
                let count = if k == 22 {
                    self.val()
                } else {
                    let c = self.fresh();
                    let n = self.rng.next() % 80;
                    self.line(depth, &format!("%{c}:i32 = const {n:#x}"));
                    c
                };
                self.line(depth, &format!("%{r}:i64 = {op} %{w}, %{count}"));
                self.line(depth, &format!("%{h}:i32x2 = bitcast %{r}"));
                let c = ["x", "y"][self.rng.next() as usize % 2];
                format!("%{d}:i32 = swizzle %{h}.{c}")
            }
            0 => format!("%{d}:i32 = iadd %{a}, %{b}"),
            1 => format!("%{d}:i32 = isub %{a}, %{b}"),
            2 => format!("%{d}:i32 = imul %{a}, %{b}"),
            3 => format!("%{d}:i32 = iand %{a}, %{b}"),
            4 => format!("%{d}:i32 = ior %{a}, %{b}"),
            5 => format!("%{d}:i32 = ixor %{a}, %{b}"),
            6 => format!("%{d}:i32 = ishl %{a}, %{b}"),
            7 => format!("%{d}:i32 = ushr %{a}, %{b}"),
            8 => format!("%{d}:i32 = ishr %{a}, %{b}"),
            9 => format!("%{d}:i32 = imin %{a}, %{b}"),
            10 => format!("%{d}:i32 = umax %{a}, %{b}"),
            11 => format!("%{d}:i32 = ineg %{a}"),
            12 => format!("%{d}:i32 = inot %{a}"),
            13 => format!("%{d}:i32 = umul_high %{a}, %{b}"),
            14 => format!("%{d}:i32 = bit_count %{a}"),
            15 => {
                let c = self.rng.value(false);
                format!("%{d}:i32 = const {c:#x}")
            }
            16 => format!("%{d}:i32 = udiv %{a}, %{b}"),
            _ => {
                let cmp = ["ieq", "ine", "ilt", "ige", "ult", "uge"][self.rng.next() as usize % 6];
                let c = self.fresh();
                let e = self.val();
                self.line(depth, &format!("%{c}:b1 = {cmp} %{a}, %{b}"));
                format!("%{d}:i32 = bcsel %{c}, %{e}, %{a}")
            }
        };
        self.line(depth, &s);
        self.vals.push(d);
    }
    fn block(&mut self, depth: usize, n: usize) {
        for _ in 0..n {
            match self.rng.next() % 10 {
                0 if depth < 3 => self.if_(depth),
                1 if depth < 2 => self.loop_(depth),
                _ => self.op(depth),
            }
        }
    }
    fn if_(&mut self, depth: usize) {
        let (a, b) = (self.val(), self.val());
        let c = self.fresh();
        self.line(depth, &format!("%{c}:b1 = ult %{a}, %{b}"));
        let r = self.fresh();
        self.line(depth, &format!("%{r}:i32 = if %{c} {{"));
        let saved = self.vals.len();
        let k = 1 + self.rng.next() as usize % 4;
        self.block(depth + 1, k);
        let y = self.val();
        self.line(depth + 1, &format!("yield %{y}"));
        self.vals.truncate(saved);
        self.line(depth, "} else {");
        let k = self.rng.next() as usize % 3;
        self.block(depth + 1, k);
        let y = self.val();
        self.line(depth + 1, &format!("yield %{y}"));
        self.vals.truncate(saved);
        self.line(depth, "}");
        self.vals.push(r);
    }
    /// for (i = 0; i < n (1..=4); i++) acc = f(acc, i, ...)
    fn loop_(&mut self, depth: usize) {
        let zero = self.fresh();
        self.line(depth, &format!("%{zero}:i32 = const 0x0"));
        let init = self.val();
        let (i, acc, r) = (self.fresh(), self.fresh(), self.fresh());
        self.line(
            depth,
            &format!("%{r}:i32 = loop (%{i}:i32 = %{zero}, %{acc}:i32 = %{init}) {{"),
        );
        let n = self.fresh();
        let trips = 1 + self.rng.next() % 4;
        self.line(depth + 1, &format!("%{n}:i32 = const {trips:#x}"));
        let done = self.fresh();
        self.line(depth + 1, &format!("%{done}:b1 = uge %{i}, %{n}"));
        self.line(depth + 1, &format!("if %{done} {{"));
        // Break with the parameter itself (copy propagation must keep the
        // loop result in scope; 1500 seeds checked when this was written).
        self.line(depth + 2, &format!("break %{acc}"));
        self.line(depth + 1, "} else {");
        self.line(depth + 2, "yield");
        self.line(depth + 1, "}");
        let saved = self.vals.len();
        self.vals.push(i);
        self.vals.push(acc);
        let k = 1 + self.rng.next() as usize % 4;
        self.block(depth + 1, k);
        let one = self.fresh();
        self.line(depth + 1, &format!("%{one}:i32 = const 0x1"));
        let i2 = self.fresh();
        self.line(depth + 1, &format!("%{i2}:i32 = iadd %{i}, %{one}"));
        let a2 = self.val();
        self.line(depth + 1, &format!("continue %{i2}, %{a2}"));
        self.vals.truncate(saved);
        self.line(depth, "}");
        self.vals.push(r);
    }
}

/// A random program; with `pressure`, 90–130 top-level items whose values
/// all stay live to a final reduction (100+ simultaneously live values:
/// more than the 55 allocatable registers, so the allocator must spill);
/// `extended` adds pack/unpack and 64-bit shifts.
fn random_program(seed: u64, pressure: bool) -> String {
    random_program_with(seed, pressure, false)
}

fn random_program_with(seed: u64, pressure: bool, extended: bool) -> String {
    let mut g = Gen {
        rng: Rng(seed | 1),
        text: String::new(),
        next: 20,
        vals: vec![],
        extended,
    };
    let header = "  %0:i32x3 = load_sysval sysval=global_invocation_id
  %1:i32 = swizzle %0.x
  %2:i64 = load_uniform offset=0
  %3:i32 = const 0x10
  %4:i32 = imul %1, %3
  %5:i64 = u2u %4
  %6:i64 = iadd %2, %5
  %7:i32x4 = load_global %6
  %8:i32 = swizzle %7.x
  %9:i32 = swizzle %7.y
  %10:i32 = swizzle %7.z
  %11:i32 = swizzle %7.w
  %12:i32 = load_uniform offset=8
  %13:i32 = load_uniform offset=12
";
    g.vals = vec![1, 8, 9, 10, 11, 12, 13];
    let k = if pressure {
        90 + g.rng.next() as usize % 40
    } else {
        12 + g.rng.next() as usize % 20
    };
    g.block(0, k);
    let mut outs: Vec<u32> = (0..4).map(|_| g.val()).collect();
    if pressure {
        let mut acc = outs[0];
        for v in g.vals.clone().into_iter().rev() {
            let d = g.fresh();
            let op = ["iadd", "ixor", "isub"][v as usize % 3];
            g.line(0, &format!("%{d}:i32 = {op} %{acc}, %{v}"));
            acc = d;
        }
        outs[0] = acc;
    }
    let (v, o, off, a) = (g.fresh(), g.fresh(), g.fresh(), g.fresh());
    g.line(
        0,
        &format!(
            "%{v}:i32x4 = vec %{}, %{}, %{}, %{}",
            outs[0], outs[1], outs[2], outs[3]
        ),
    );
    g.line(0, &format!("%{o}:i32 = const 0x400"));
    let s = g.fresh();
    g.line(0, &format!("%{s}:i32 = iadd %4, %{o}"));
    g.line(0, &format!("%{off}:i64 = u2u %{s}"));
    g.line(0, &format!("%{a}:i64 = iadd %2, %{off}"));
    g.line(0, &format!("store_global %{v}, %{a}"));
    format!(
        "shader compute \"random\" {{\n  info local_size 8 1 1 shared 0 push 0\n  values {}\n{header}{}}}",
        g.next + 1,
        g.text
    )
}

/// Runs random program `seed` (`text`) differentially over `groups`
/// workgroups with inputs drawn from `rng`: a 2 KiB buffer (float-like
/// bytes when `float_bytes`) and FAU word 1 = `a | b << 32` (`b` float-like
/// when `float_b`). A mismatch panics with `what`, the seed and the text.
fn random_program_matches(
    what: &str,
    seed: u64,
    text: &str,
    mut rng: Rng,
    float_bytes: bool,
    float_b: bool,
    groups: [u32; 3],
) {
    let init: Vec<u8> = (0..2048).map(|_| rng.value(float_bytes) as u8).collect();
    let a = rng.value(false);
    let b = rng.value(float_b);
    let result = std::panic::catch_unwind(|| {
        differential(
            text,
            |va| vec![va, u64::from(a) | u64::from(b) << 32],
            &init,
            groups,
        )
    });
    if result.is_err() {
        panic!("{what} {seed} failed:\n{text}");
    }
}

#[test]
fn random_programs_match_interpreter() {
    for seed in 0..150u64 {
        let text = random_program(0x1234_5678 + seed * 7919, false);
        let rng = Rng(seed + 99);
        random_program_matches("random program", seed, &text, rng, false, false, [2, 1, 1]);
    }
}

#[test]
fn random_high_pressure_programs_spill_and_match_interpreter() {
    let mut spilled = 0;
    const SEEDS: u64 = 24;
    for seed in 0..SEEDS {
        let text = random_program(0x9e37_79b9 + seed * 104_729, true);
        let shader = Shader::parse(&text).unwrap();
        let binary = compile(&shader, Options::default())
            .unwrap_or_else(|e| panic!("random program {seed}: {e}\n{text}"));
        if binary.stats.spills > 0 {
            assert!(binary.tls_size > 0);
            spilled += 1;
        }
        let rng = Rng(seed + 7);
        let what = "random high-pressure program";
        random_program_matches(what, seed, &text, rng, false, false, [3, 1, 1]);
    }
    // The generator is meant to exceed the register budget.
    assert!(
        spilled * 4 >= SEEDS * 3,
        "only {spilled} of {SEEDS} programs spilled"
    );
}

#[test]
fn random_programs_with_packing_and_wide_shifts_match_interpreter() {
    for seed in 0..100u64 {
        let text = random_program_with(0x0bad_cafe + seed * 6151, false, true);
        let rng = Rng(seed + 7);
        let float_bytes = seed % 2 == 0;
        random_program_matches(
            "random program",
            seed,
            &text,
            rng,
            float_bytes,
            true,
            [2, 1, 1],
        );
    }
}

const FLOATS: &str = include_str!("programs/floats.ir");

#[test]
fn float_arithmetic_matches_interpreter() {
    let mut rng = Rng(7);
    let mut init = vec![0u8; 0x200 + 16 * 0x80];
    for i in 0..16 * 4 {
        let v: f32 = match rng.next() % 6 {
            0 => [0.0, -0.5, 0.5, 1.5, -2.5, 3.0e9, -3.0e9, 1.0][rng.next() as usize % 8],
            _ => ((rng.next() % 20001) as f32 - 10000.0) / 64.0,
        };
        init[4 * i..4 * i + 4].copy_from_slice(&v.to_bits().to_le_bytes());
    }
    differential(FLOATS, |va| vec![va], &init, [2, 1, 1]);
}

const PACKING: &str = include_str!("programs/packing.ir");

/// Inputs for the pack/unpack program: per lane four words, mostly floats
/// around the norm ranges and the half range, with NaNs, infinities,
/// signed zeros, subnormals, half-way cases and raw bit patterns.
fn packing_inputs(lanes: usize) -> Vec<u8> {
    let mut rng = Rng(0x5eed_f00d);
    let special: [u32; 16] = [
        0x7fc0_0000,                         // NaN
        0xffc0_0001,                         // negative NaN with payload
        0x7f80_0000,                         // +inf
        0xff80_0000,                         // -inf
        0x8000_0000,                         // -0
        0x0000_0001,                         // smallest subnormal
        (1.0f32 + 2f32.powi(-11)).to_bits(), // half tie → even
        (1.0f32 + 3.0 * 2f32.powi(-11)).to_bits(),
        65504.0f32.to_bits(),
        65520.0f32.to_bits(),     // rounds to +inf as a half
        2f32.powi(-25).to_bits(), // half subnormal tie → 0
        (0.5f32 / 255.0).to_bits(),
        (1.5f32 / 255.0).to_bits(), // unorm8 ties
        (-0.5f32 / 127.0).to_bits(),
        0x7e00_7c01, // half NaNs in the low/high halves
        0xfc00_8001,
    ];
    let mut out = Vec::with_capacity(16 * lanes);
    for _ in 0..4 * lanes {
        let w = match rng.next() % 6 {
            0 => special[rng.next() as usize % special.len()],
            1 => ((rng.next() % 4001) as f32 / 1000.0 - 2.0).to_bits(),
            2 => ((rng.next() % 511) as f32 / 255.0 - 1.0).to_bits(),
            3 => (((rng.next() % 200_001) as f32 - 100_000.0) / 1.5).to_bits(),
            _ => rng.next(),
        };
        out.extend_from_slice(&w.to_le_bytes());
    }
    out
}

#[test]
fn pack_unpack_match_interpreter() {
    // 16 lanes of inputs at 0, their results at 0x400 + 0x80 * lane.
    let mut init = packing_inputs(16);
    init.resize(0x400 + 16 * 0x80, 0xcd);
    let out = differential(PACKING, |va| vec![va], &init, [2, 1, 1]);
    assert_ne!(out[0x400..0x480], [0xcd; 0x80][..]);
}

const NARROW_WIDE: &str = include_str!("programs/narrow_wide.ir");

#[test]
fn wide_shifts_and_narrow_stores_match_interpreter() {
    // Per lane: a 64-bit value and two shift counts (every count 0..=255
    // class: below, at and above 32 and 64); results at 0x400 + 0x80 * lane,
    // over a 0xcd fill so that bytes the narrow stores skip are checked.
    let mut rng = Rng(0xface_b00c);
    let mut init = vec![0xcdu8; 0x400 + 16 * 0x80];
    for lane in 0..16 {
        let x = u64::from(rng.value(false)) << 32 | u64::from(rng.value(false));
        let x = if lane % 3 == 0 { x | 1 << 63 } else { x };
        let count = [0, 1, 31, 32, 33, 63, 64, 65, 100, 255][lane % 10] as u32;
        let count = if lane >= 10 { rng.next() } else { count };
        init[16 * lane..16 * lane + 8].copy_from_slice(&x.to_le_bytes());
        init[16 * lane + 8..16 * lane + 12].copy_from_slice(&count.to_le_bytes());
        init[16 * lane + 12..16 * lane + 16].copy_from_slice(&rng.next().to_le_bytes());
    }
    let out = differential(NARROW_WIDE, |va| vec![va], &init, [2, 1, 1]);
    // Byte 0x4a (between the i16 and the i8 stores) stays untouched.
    assert_eq!(out[0x400 + 0x4a], 0xcd);
}

// ---------------------------------------------------------------------------
// Atomics. The simulator runs them in a fixed lane order, the interpreter in
// thread order, real hardware in an unspecified one: the differential tests
// check only what every order gives (one lane; or final memory that no
// order changes), the chain test checks order-free properties in Rust.

/// IR text under construction: `%N` values numbered in order.
struct IrText {
    body: String,
    next: u32,
}

impl IrText {
    fn new() -> IrText {
        IrText {
            body: String::new(),
            next: 0,
        }
    }
    fn val(&mut self, ty: &str, rhs: &str) -> u32 {
        let d = self.next;
        self.next += 1;
        self.body.push_str(&format!("  %{d}:{ty} = {rhs}\n"));
        d
    }
    fn line(&mut self, s: &str) {
        self.body.push_str(&format!("  {s}\n"));
    }
    fn konst(&mut self, v: u32) -> u32 {
        self.val("i32", &format!("const {v:#x}"))
    }
    /// `base + off` as a 64-bit address (`off` an i32 value).
    fn addr(&mut self, base: u32, off: u32) -> u32 {
        let wide = self.val("i64", &format!("u2u %{off}"));
        self.val("i64", &format!("iadd %{base}, %{wide}"))
    }
    fn addr_const(&mut self, base: u32, off: u32) -> u32 {
        let k = self.konst(off);
        self.addr(base, k)
    }
    fn finish(self, name: &str, local: u32, shared: u32) -> String {
        format!(
            "shader compute \"{name}\" {{\n  info local_size {local} 1 1 shared {shared} push 0\n  values {}\n{}}}",
            self.next, self.body
        )
    }
}

/// (IR name, compare source for comp_swap: `true` = the current value).
const ATOMIC_CASES: [(&str, bool); 11] = [
    ("add", false),
    ("imin", false),
    ("imax", false),
    ("umin", false),
    ("umax", false),
    ("and", false),
    ("or", false),
    ("xor", false),
    ("xchg", false),
    ("cmpxchg", true),
    ("cmpxchg", false),
];

/// One invocation: every atomic op on global and shared memory, with the
/// old value stored, and again with the old value unused.
fn single_lane_atomics() -> String {
    let mut ir = IrText::new();
    let base = ir.val("i64", "load_uniform offset=0");
    for (k, &(name, cmp_current)) in ATOMIC_CASES.iter().enumerate() {
        let k = k as u32;
        let a_init = ir.addr_const(base, 4 * k);
        let init = ir.val("i32", &format!("load_global %{a_init}"));
        let a_data = ir.addr_const(base, 0x40 + 4 * k);
        let data = ir.val("i32", &format!("load_global %{a_data}"));
        let operands = if name == "cmpxchg" {
            let cmp = if cmp_current { init } else { data };
            format!("%{cmp}, %{data}")
        } else {
            format!("%{data}")
        };
        // Global, old value stored at 0x100, memory at 0x200.
        let g = ir.addr_const(base, 0x200 + 4 * k);
        ir.line(&format!("store_global %{init}, %{g}"));
        let old = ir.val("i32", &format!("global_atomic op={name} %{g}, {operands}"));
        let o = ir.addr_const(base, 0x100 + 4 * k);
        ir.line(&format!("store_global %{old}, %{o}"));
        // Shared, old value at 0x140, memory copied to 0x280.
        let s = ir.konst(4 * k);
        ir.line(&format!("store_shared %{init}, %{s}"));
        let old = ir.val("i32", &format!("shared_atomic op={name} %{s}, {operands}"));
        let o = ir.addr_const(base, 0x140 + 4 * k);
        ir.line(&format!("store_global %{old}, %{o}"));
        let v = ir.val("i32", &format!("load_shared %{s}"));
        let o = ir.addr_const(base, 0x280 + 4 * k);
        ir.line(&format!("store_global %{v}, %{o}"));
        // Results unused: global at 0x300, shared copied to 0x380.
        let g = ir.addr_const(base, 0x300 + 4 * k);
        ir.line(&format!("store_global %{init}, %{g}"));
        ir.val("i32", &format!("global_atomic op={name} %{g}, {operands}"));
        let s = ir.konst(0x40 + 4 * k);
        ir.line(&format!("store_shared %{init}, %{s}"));
        ir.val("i32", &format!("shared_atomic op={name} %{s}, {operands}"));
        let v = ir.val("i32", &format!("load_shared %{s}"));
        let o = ir.addr_const(base, 0x380 + 4 * k);
        ir.line(&format!("store_global %{v}, %{o}"));
    }
    ir.finish("single_lane_atomics", 1, 0x80)
}

#[test]
fn single_lane_atomics_match_interpreter() {
    let text = single_lane_atomics();
    let mut rng = Rng(0xa70_3141);
    for round in 0..4 {
        let mut init = vec![0x77u8; 0x400];
        for w in 0..32 {
            let v = match round {
                0 => rng.value(false),
                1 => rng.next() % 8,
                _ => rng.next(),
            };
            init[4 * w..4 * w + 4].copy_from_slice(&v.to_le_bytes());
        }
        let out = differential(&text, |va| vec![va], &init, [1, 1, 1]);
        // The stored old values are the initial ones.
        assert_eq!(out[0x100..0x104], init[0..4]);
    }
    // The pairs are really there: ATOM_C_RETURN (old value used) and
    // ATOM_C (unused) with ATOM_CX, SEG_ADD for shared memory, AXCHG and
    // ACMPXCHG with seg=wls.
    let shader = Shader::parse(&text).unwrap();
    let bin = compile(&shader, Options::default()).unwrap();
    let dis = bifrost_vk::compiler::bifrost::disasm::disassemble(&bin.code).unwrap();
    for needle in [
        "ATOM_C_RETURN.i32",
        "ATOM_C.i32",
        "+ATOM_CX",
        "*SEG_ADD",
        "+SEG_ADD",
        "+AXCHG.i32",
        "+ACMPXCHG.i32",
        ".wls",
    ] {
        assert!(dis.contains(needle), "{needle} missing:\n{dis}");
    }
}

/// 8 lanes per workgroup, 2 workgroups: a counter whose returned values
/// mark a table (every order marks each slot once), and min/max/and/or/xor
/// of per-lane data with unused results, on global and shared memory.
fn all_lanes_atomics() -> String {
    let mut ir = IrText::new();
    let base = ir.val("i64", "load_uniform offset=0");
    let gid3 = ir.val("i32x3", "load_sysval sysval=global_invocation_id");
    let gid = ir.val("i32", &format!("swizzle %{gid3}.x"));
    let lid3 = ir.val("i32x3", "load_sysval sysval=local_invocation_id");
    let lid = ir.val("i32", &format!("swizzle %{lid3}.x"));
    let wid3 = ir.val("i32x3", "load_sysval sysval=workgroup_id");
    let wid = ir.val("i32", &format!("swizzle %{wid3}.x"));
    let four = ir.konst(4);
    let g4 = ir.val("i32", &format!("imul %{gid}, %{four}"));
    let k200 = ir.konst(0x200);
    let d_off = ir.val("i32", &format!("iadd %{g4}, %{k200}"));
    let d_addr = ir.addr(base, d_off);
    let data = ir.val("i32", &format!("load_global %{d_addr}"));
    let one = ir.konst(1);
    // Global counter at 0, marks at 0x100 + 4 * old.
    let c = ir.addr_const(base, 0);
    let old = ir.val("i32", &format!("global_atomic op=add %{c}, %{one}"));
    let o4 = ir.val("i32", &format!("imul %{old}, %{four}"));
    let k100 = ir.konst(0x100);
    let m_off = ir.val("i32", &format!("iadd %{o4}, %{k100}"));
    let m = ir.addr(base, m_off);
    ir.line(&format!("store_global %{one}, %{m}"));
    let ops = ["imin", "imax", "umin", "umax", "and", "or", "xor"];
    for (k, op) in ops.iter().enumerate() {
        let a = ir.addr_const(base, 4 + 4 * k as u32);
        ir.val("i32", &format!("global_atomic op={op} %{a}, %{data}"));
    }
    // Shared: lane 0 sets words 0..8 (0, then the data of lane 0 for the
    // min/max ops, then all ones / zero for and / or,xor); barrier; the
    // same ops; barrier; lane 0 copies them to 0x40 + 0x40 * workgroup.
    let zero = ir.konst(0);
    let first = ir.val("b1", &format!("ieq %{lid}, %{zero}"));
    ir.line(&format!("if %{first} {{"));
    let inits = [
        None,
        Some(data),
        Some(data),
        Some(data),
        Some(data),
        None,
        None,
        None,
    ];
    for (k, v) in inits.iter().enumerate() {
        let v = match (k, v) {
            (5, _) => ir.konst(u32::MAX),
            (_, Some(d)) => *d,
            _ => ir.konst(0),
        };
        let s = ir.konst(4 * k as u32);
        ir.line(&format!("store_shared %{v}, %{s}"));
    }
    ir.line("yield");
    ir.line("} else {");
    ir.line("yield");
    ir.line("}");
    ir.line("barrier");
    let s0 = ir.konst(0);
    let sold = ir.val("i32", &format!("shared_atomic op=add %{s0}, %{one}"));
    for (k, op) in ops.iter().enumerate() {
        let s = ir.konst(4 + 4 * k as u32);
        ir.val("i32", &format!("shared_atomic op={op} %{s}, %{data}"));
    }
    // Shared marks at 0x180 + 0x20 * workgroup + 4 * old.
    let w20 = ir.konst(0x20);
    let wo = ir.val("i32", &format!("imul %{wid}, %{w20}"));
    let so4 = ir.val("i32", &format!("imul %{sold}, %{four}"));
    let t = ir.val("i32", &format!("iadd %{wo}, %{so4}"));
    let k180 = ir.konst(0x180);
    let t = ir.val("i32", &format!("iadd %{t}, %{k180}"));
    let m = ir.addr(base, t);
    ir.line(&format!("store_global %{one}, %{m}"));
    ir.line("barrier");
    ir.line(&format!("if %{first} {{"));
    let w40 = ir.konst(0x40);
    let wo = ir.val("i32", &format!("imul %{wid}, %{w40}"));
    let t = ir.val("i32", &format!("iadd %{wo}, %{w40}"));
    for k in 0..8u32 {
        let s = ir.konst(4 * k);
        let v = ir.val("i32", &format!("load_shared %{s}"));
        let o = ir.val("i32", &format!("iadd %{t}, %{s}"));
        let a = ir.addr(base, o);
        ir.line(&format!("store_global %{v}, %{a}"));
    }
    ir.line("yield");
    ir.line("} else {");
    ir.line("yield");
    ir.line("}");
    ir.finish("all_lanes_atomics", 8, 0x20)
}

#[test]
fn order_free_results_of_atomics_match_interpreter() {
    let text = all_lanes_atomics();
    let mut rng = Rng(0xc0ffee);
    for round in 0..3 {
        let mut init = vec![0u8; 0x400];
        // Global min/max/and/or/xor words start at lane 0's datum / ones / 0.
        let data: Vec<u32> = (0..16)
            .map(|_| {
                if round == 0 {
                    rng.value(false)
                } else {
                    rng.next()
                }
            })
            .collect();
        for (k, v) in [data[0], data[0], data[0], data[0], u32::MAX, 0, 0]
            .iter()
            .enumerate()
        {
            init[4 + 4 * k..8 + 4 * k].copy_from_slice(&v.to_le_bytes());
        }
        for (i, d) in data.iter().enumerate() {
            init[0x200 + 4 * i..0x204 + 4 * i].copy_from_slice(&d.to_le_bytes());
        }
        let out = differential(&text, |va| vec![va], &init, [2, 1, 1]);
        let word = |o: usize| u32::from_le_bytes(out[o..o + 4].try_into().unwrap());
        // Every order: 16 increments, each returned value marked once.
        assert_eq!(word(0), 16);
        assert!((0..16).all(|i| word(0x100 + 4 * i) == 1));
        let umin = data.iter().copied().min().unwrap();
        assert_eq!(word(12), umin);
        assert_eq!(word(0x40 + 12), data[..8].iter().copied().min().unwrap());
    }
}

/// Exchange and compare-and-swap chains, 8 lanes × 2 workgroups: global
/// words 0 (xchg) and 4 (cmpxchg 0 → gid + 1) and, per workgroup, shared
/// words 0 and 4 likewise with lid + 1; old values stored per lane at
/// 0x100 / 0x140 (global) and 0x180 / 0x1c0 (shared), the final shared
/// words at 0x200 + 8 * workgroup.
fn atomic_chains() -> String {
    let mut ir = IrText::new();
    let base = ir.val("i64", "load_uniform offset=0");
    let gid3 = ir.val("i32x3", "load_sysval sysval=global_invocation_id");
    let gid = ir.val("i32", &format!("swizzle %{gid3}.x"));
    let lid3 = ir.val("i32x3", "load_sysval sysval=local_invocation_id");
    let lid = ir.val("i32", &format!("swizzle %{lid3}.x"));
    let wid3 = ir.val("i32x3", "load_sysval sysval=workgroup_id");
    let wid = ir.val("i32", &format!("swizzle %{wid3}.x"));
    let (zero, one, four) = (ir.konst(0), ir.konst(1), ir.konst(4));
    let g1 = ir.val("i32", &format!("iadd %{gid}, %{one}"));
    let l1 = ir.val("i32", &format!("iadd %{lid}, %{one}"));
    let g4 = ir.val("i32", &format!("imul %{gid}, %{four}"));
    let store_at = |ir: &mut IrText, v: u32, table: u32| {
        let k = ir.konst(table);
        let o = ir.val("i32", &format!("iadd %{g4}, %{k}"));
        let a = ir.addr(base, o);
        ir.line(&format!("store_global %{v}, %{a}"));
    };
    let x = ir.addr_const(base, 0);
    let old = ir.val("i32", &format!("global_atomic op=xchg %{x}, %{g1}"));
    store_at(&mut ir, old, 0x100);
    let y = ir.addr_const(base, 4);
    let old = ir.val(
        "i32",
        &format!("global_atomic op=cmpxchg %{y}, %{zero}, %{g1}"),
    );
    store_at(&mut ir, old, 0x140);
    let first = ir.val("b1", &format!("ieq %{lid}, %{zero}"));
    ir.line(&format!("if %{first} {{"));
    ir.line(&format!("store_shared %{zero}, %{zero}"));
    ir.line(&format!("store_shared %{zero}, %{four}"));
    ir.line("yield");
    ir.line("} else {");
    ir.line("yield");
    ir.line("}");
    ir.line("barrier");
    let old = ir.val("i32", &format!("shared_atomic op=xchg %{zero}, %{l1}"));
    store_at(&mut ir, old, 0x180);
    let old = ir.val(
        "i32",
        &format!("shared_atomic op=cmpxchg %{four}, %{zero}, %{l1}"),
    );
    store_at(&mut ir, old, 0x1c0);
    ir.line("barrier");
    ir.line(&format!("if %{first} {{"));
    let eight = ir.konst(8);
    let w8 = ir.val("i32", &format!("imul %{wid}, %{eight}"));
    for k in [0u32, 4] {
        let s = ir.konst(k);
        let v = ir.val("i32", &format!("load_shared %{s}"));
        let t = ir.konst(0x200 + k);
        let o = ir.val("i32", &format!("iadd %{w8}, %{t}"));
        let a = ir.addr(base, o);
        ir.line(&format!("store_global %{v}, %{a}"));
    }
    ir.line("yield");
    ir.line("} else {");
    ir.line("yield");
    ir.line("}");
    ir.finish("atomic_chains", 8, 8)
}

/// A chain of exchanges starting from 0 over values `1..=n`: the returned
/// values and the final one are each of 0..=n exactly once; a cmpxchg race
/// from 0: exactly one winner (returned 0), the others saw its value.
fn check_chains(olds: &[u32], last: u32, cas: &[u32], cas_last: u32, what: &str) {
    let n = olds.len() as u32;
    let mut seen: Vec<u32> = olds.iter().copied().chain([last]).collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..=n).collect::<Vec<_>>(), "{what}: xchg chain");
    let winners: Vec<usize> = (0..cas.len()).filter(|&i| cas[i] == 0).collect();
    assert_eq!(winners.len(), 1, "{what}: cmpxchg winners {cas:?}");
    assert_eq!(cas_last, winners[0] as u32 + 1, "{what}: cmpxchg result");
    assert!(
        cas.iter()
            .enumerate()
            .all(|(i, &c)| i == winners[0] || c == cas_last),
        "{what}: {cas:?}"
    );
}

#[test]
fn exchange_chains_have_order_free_properties() {
    let shader = Shader::parse(&atomic_chains()).unwrap();
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile(&shader, Options::default()).unwrap();
        let mut gpu = SimGpu::new(model);
        let buf = gpu.alloc(0x400);
        gpu.write(buf.va, &[0xffu8; 0x400]);
        gpu.write_u32s(buf.va, &[0, 0]);
        gpu.run_compute(&binary, &[buf.va], [8, 1, 1], [2, 1, 1])
            .unwrap_or_else(|e| panic!("{model:?}: {e}"));
        let w = gpu.read_u32s(buf.va, 0x100);
        check_chains(&w[0x40..0x50], w[0], &w[0x50..0x60], w[1], "global");
        for g in 0..2 {
            let lanes = 0x60 + 8 * g..0x68 + 8 * g;
            let cas = 0x70 + 8 * g..0x78 + 8 * g;
            let last = w[0x80 + 2 * g];
            let cas_last = w[0x81 + 2 * g];
            check_chains(&w[lanes], last, &w[cas], cas_last, "shared");
        }
    }
}
