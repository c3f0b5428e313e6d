//! Precision of the backend's float division, reciprocal, square roots and
//! transcendentals: each IR op compiled by the Bifrost backend, run on the
//! simulated G52 and G72 over many inputs (special values, a dense sweep and
//! random bit patterns), the results checked against an f64 reference with
//! the bound Vulkan sets ("Precision and Operation of SPIR-V Instructions"):
//!
//! | op | bound |
//! |---|---|
//! | x / y | 2.5 ULP for \|y\| in [2^-126, 2^126] (tested for every y: denormal and huge divisors are scaled into that range) |
//! | 1/x (`frcp`) | 2.5 ULP (division's) |
//! | inversesqrt | 2 ULP |
//! | sqrt | inherited from 1/inversesqrt(x): 2.5 + 2 ULP |
//! | exp2 | 3 + 2·\|x\| ULP |
//! | log2 | 3 ULP outside [0.5, 2], absolute 2^-21 inside |
//! | sin, cos | absolute 2^-11 in [-π, π] |
//! | pow | inherited from exp2(y · log2(x)) |
//!
//! Results that are denormal are not checked against the bound (Vulkan lets
//! any denormal result be flushed to zero). Special values (0, -0, inf,
//! NaN, negative inputs) must give what GLSL.std.450 / IEEE 754 say.
//! The largest error measured per op is printed (`--nocapture`).

use bifrost_vk::compiler::bifrost::{Options, compile};
use bifrost_vk::compiler::ir::Shader;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::SimGpu;

/// Threads per workgroup.
const LOCAL: u32 = 64;

/// out[gid] = op(in[gid].x [, in[gid].y]).
fn program(op: &str, binary: bool) -> String {
    let call = if binary {
        format!("{op} %8, %9")
    } else {
        format!("{op} %8")
    };
    format!(
        "shader compute \"{op}\" {{
  info local_size {LOCAL} 1 1 shared 0 push 0
  values 20
  %0:i32x3 = load_sysval sysval=global_invocation_id
  %1:i32 = swizzle %0.x
  %2:i64 = load_uniform offset=0
  %3:i32 = const 0x8
  %4:i32 = imul %1, %3
  %5:i64 = u2u %4
  %6:i64 = iadd %2, %5
  %7:i32x2 = load_global %6
  %8:i32 = swizzle %7.x
  %9:i32 = swizzle %7.y
  %10:i32 = {call}
  %11:i64 = load_uniform offset=8
  %12:i32 = const 0x4
  %13:i32 = imul %1, %12
  %14:i64 = u2u %13
  %15:i64 = iadd %11, %14
  store_global %10, %15
}}
"
    )
}

/// Runs `op` over the (x, y) pairs on `model`; returns the results.
fn run(op: &str, binary: bool, inputs: &[(f32, f32)], model: SimModel) -> Vec<f32> {
    let shader = Shader::parse(&program(op, binary)).unwrap_or_else(|e| panic!("{e:?}"));
    let bin = compile(
        &shader,
        Options {
            arch: model.arch().into(),
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{op}: {e}"));
    let mut padded = inputs.to_vec();
    while !padded.len().is_multiple_of(LOCAL as usize) {
        padded.push((1.0, 1.0));
    }
    let n = padded.len();
    let mut gpu = SimGpu::new(model);
    let input = gpu.alloc(8 * n as u64);
    let bytes: Vec<u8> = padded
        .iter()
        .flat_map(|(x, y)| [x.to_bits(), y.to_bits()])
        .flat_map(u32::to_le_bytes)
        .collect();
    gpu.write(input.va, &bytes);
    let output = gpu.alloc(4 * n as u64);
    gpu.run_compute(
        &bin,
        &[input.va, output.va],
        [LOCAL, 1, 1],
        [n as u32 / LOCAL, 1, 1],
    )
    .unwrap_or_else(|e| panic!("{op} on {model:?}: {e}"));
    gpu.read(output.va, 4 * n)
        .chunks(4)
        .take(inputs.len())
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The size of one f32 ULP at magnitude |v| (normal numbers; 2^-149 below).
fn ulp(v: f64) -> f64 {
    let v = v.abs();
    if v < f64::from(f32::MIN_POSITIVE) {
        return 2f64.powi(-149);
    }
    2f64.powi(v.log2().floor() as i32 - 23)
}

fn is_denormal_result(v: f64) -> bool {
    v != 0.0 && v.abs() < f64::from(f32::MIN_POSITIVE)
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    /// A float with uniformly random bits, exponent field in [lo, hi].
    fn float(&mut self, lo: u32, hi: u32, negative: bool) -> f32 {
        let e = lo + self.next() % (hi - lo + 1);
        let sign = if negative && self.next() % 2 == 1 {
            0x8000_0000
        } else {
            0
        };
        f32::from_bits(sign | e << 23 | (self.next() & 0x7f_ffff))
    }
    fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.next() as f32 / u32::MAX as f32)
    }
}

/// `count` evenly spaced points in [lo, hi].
fn sweep(lo: f32, hi: f32, count: usize) -> impl Iterator<Item = f32> {
    (0..count).map(move |i| lo + (hi - lo) * (i as f32 / (count - 1) as f32))
}

/// How an op's error is measured.
enum Bound {
    /// Error in ULP of the reference must be at most `f(x, y, reference)`.
    Ulp(fn(f32, f32, f64) -> f64),
    /// Absolute error at most the value.
    Abs(f64),
}

/// Checks every (finite-reference) result of `op` against `reference` with
/// `bound`; special values are checked by [`specials`]. Returns the largest
/// error (in the bound's unit) per model.
fn check(
    op: &str,
    binary: bool,
    inputs: &[(f32, f32)],
    reference: fn(f64, f64) -> f64,
    bound: impl Fn(f32, f32, f64) -> Option<(Bound, &'static str)>,
) {
    for model in [SimModel::G52, SimModel::G72] {
        let got = run(op, binary, inputs, model);
        let mut worst: Vec<(&str, f64, f32, f32)> = Vec::new();
        for (&(x, y), &g) in inputs.iter().zip(&got) {
            let want = reference(f64::from(x), f64::from(y));
            if !want.is_finite() || want.abs() > f64::from(f32::MAX) || is_denormal_result(want) {
                continue;
            }
            let Some((b, unit)) = bound(x, y, want) else {
                continue;
            };
            let err = (f64::from(g) - want).abs();
            let (measure, limit) = match b {
                Bound::Ulp(f) => (err / ulp(want), f(x, y, want)),
                Bound::Abs(a) => (err, a),
            };
            assert!(
                measure <= limit,
                "{op}({x:e} [{:#010x}], {y:e}) on {model:?} = {g:e}, reference {want:e}: error {measure} {unit} > {limit}",
                x.to_bits()
            );
            match worst.iter_mut().find(|w| w.0 == unit) {
                Some(w) if w.1 < measure => *w = (unit, measure, x, y),
                Some(_) => {}
                None => worst.push((unit, measure, x, y)),
            }
        }
        for (unit, e, x, y) in worst {
            eprintln!("{op} on {model:?}: max error {e:.3e} {unit} (at x = {x:e}, y = {y:e})");
        }
    }
}

/// Exact results for special inputs: `(x, y, expected)`, NaN meaning any NaN.
fn specials(op: &str, binary: bool, cases: &[(f32, f32, f32)]) {
    let inputs: Vec<(f32, f32)> = cases.iter().map(|&(x, y, _)| (x, y)).collect();
    for model in [SimModel::G52, SimModel::G72] {
        let got = run(op, binary, &inputs, model);
        for (&(x, y, want), &g) in cases.iter().zip(&got) {
            let ok = if want.is_nan() {
                g.is_nan()
            } else {
                g.to_bits() == want.to_bits()
            };
            assert!(ok, "{op}({x:e}, {y:e}) on {model:?} = {g:e}, want {want:e}");
        }
    }
}

const INF: f32 = f32::INFINITY;
const NAN: f32 = f32::NAN;

#[test]
fn reciprocal_and_division() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut inputs: Vec<(f32, f32)> = sweep(1.0, 2.0, 4096).map(|y| (1.0, y)).collect();
    inputs.extend(sweep(-4.0, 4.0, 2048).map(|y| (3.0, y)));
    for _ in 0..8192 {
        // y in [2^-126, 2^126]; x anywhere finite.
        inputs.push((rng.float(0, 254, true), rng.float(1, 253, true)));
        // Beyond (denormal and huge divisors): no Vulkan bound, ours is
        // the same (the divisor is scaled into range first).
        inputs.push((rng.float(0, 254, true), rng.float(0, 254, true)));
    }
    inputs.extend((1..64).map(|i| (f32::from_bits(i * 7), f32::from_bits(i * 13))));
    // Denormal divisors of 1/x (results large but finite).
    inputs.extend((0..64).map(|i| (1.0, f32::from_bits(0x0020_0000 + i * 0x1_0001))));
    let div_bound = |_: f32, _: f32, _: f64| Some((Bound::Ulp(|_, _, _| 2.5), "ULP"));
    check("fdiv", true, &inputs, |x, y| x / y, div_bound);
    let rcp: Vec<(f32, f32)> = inputs.iter().map(|&(_, y)| (y, 0.0)).collect();
    check(
        "frcp",
        false,
        &rcp,
        |x, _| 1.0 / x,
        |_, _, _| Some((Bound::Ulp(|_, _, _| 2.5), "ULP")),
    );
    specials(
        "frcp",
        false,
        &[
            (0.0, 0.0, INF),
            (-0.0, 0.0, -INF),
            (INF, 0.0, 0.0),
            (-INF, 0.0, -0.0),
            (NAN, 0.0, NAN),
            (1.0, 0.0, 1.0),
            (-4.0, 0.0, -0.25),
            (2f32.powi(-128), 0.0, INF),
        ],
    );
    specials(
        "fdiv",
        true,
        &[
            (1.0, 0.0, INF),
            (-1.0, 0.0, -INF),
            (0.0, 0.0, NAN),
            (INF, 2.0, INF),
            (INF, INF, NAN),
            (3.0, INF, 0.0),
            (-3.0, INF, -0.0),
            (0.0, 5.0, 0.0),
            (-0.0, 5.0, -0.0),
            (6.0, 3.0, 2.0),
            (1.0, 3.0, 1.0 / 3.0),
            (NAN, 1.0, NAN),
            (1.0, NAN, NAN),
            (f32::MAX, 0.5, INF),
        ],
    );
}

#[test]
fn square_roots() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut inputs: Vec<(f32, f32)> = sweep(1.0, 4.0, 4096).map(|x| (x, 0.0)).collect();
    for _ in 0..8192 {
        inputs.push((rng.float(0, 254, false), 0.0));
    }
    check(
        "frsq",
        false,
        &inputs,
        |x, _| 1.0 / x.sqrt(),
        |_, _, _| Some((Bound::Ulp(|_, _, _| 2.0), "ULP")),
    );
    check(
        "fsqrt",
        false,
        &inputs,
        |x, _| x.sqrt(),
        |_, _, _| Some((Bound::Ulp(|_, _, _| 4.5), "ULP")),
    );
    specials(
        "frsq",
        false,
        &[
            (0.0, 0.0, INF),
            (-0.0, 0.0, -INF),
            (INF, 0.0, 0.0),
            (-1.0, 0.0, NAN),
            (-INF, 0.0, NAN),
            (NAN, 0.0, NAN),
            (4.0, 0.0, 0.5),
            (0.25, 0.0, 2.0),
        ],
    );
    specials(
        "fsqrt",
        false,
        &[
            (0.0, 0.0, 0.0),
            (-0.0, 0.0, -0.0),
            (INF, 0.0, INF),
            (-1.0, 0.0, NAN),
            (-INF, 0.0, NAN),
            (NAN, 0.0, NAN),
            (4.0, 0.0, 2.0),
            (2.0, 0.0, std::f32::consts::SQRT_2),
            (f32::from_bits(1), 0.0, 2f64.powf(-74.5) as f32),
        ],
    );
}

#[test]
fn exp2_and_log2() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut inputs: Vec<(f32, f32)> = sweep(-130.0, 129.0, 8192).map(|x| (x, 0.0)).collect();
    inputs.extend(sweep(-1.0, 1.0, 2048).map(|x| (x, 0.0)));
    for _ in 0..4096 {
        inputs.push((rng.uniform(-150.0, 130.0), 0.0));
        inputs.push((rng.float(0, 133, true), 0.0));
    }
    check(
        "fexp2",
        false,
        &inputs,
        |x, _| x.exp2(),
        |_, _, _| Some((Bound::Ulp(|x, _, _| 3.0 + 2.0 * f64::from(x.abs())), "ULP")),
    );
    specials(
        "fexp2",
        false,
        &[
            (0.0, 0.0, 1.0),
            (-0.0, 0.0, 1.0),
            (1.0, 0.0, 2.0),
            (-1.0, 0.0, 0.5),
            (10.0, 0.0, 1024.0),
            (INF, 0.0, INF),
            (-INF, 0.0, 0.0),
            (NAN, 0.0, NAN),
            (128.0, 0.0, INF),
            (-160.0, 0.0, 0.0),
        ],
    );

    let mut inputs: Vec<(f32, f32)> = sweep(0.25, 4.0, 8192).map(|x| (x, 0.0)).collect();
    inputs.extend(sweep(0.999, 1.001, 2048).map(|x| (x, 0.0)));
    for _ in 0..8192 {
        inputs.push((rng.float(0, 254, false), 0.0));
    }
    check(
        "flog2",
        false,
        &inputs,
        |x, _| x.log2(),
        |x, _, _| {
            if (0.5..=2.0).contains(&x) {
                Some((Bound::Abs(2f64.powi(-21)), "absolute"))
            } else {
                Some((Bound::Ulp(|_, _, _| 3.0), "ULP"))
            }
        },
    );
    specials(
        "flog2",
        false,
        &[
            (1.0, 0.0, 0.0),
            (2.0, 0.0, 1.0),
            (0.5, 0.0, -1.0),
            (1024.0, 0.0, 10.0),
            (2f32.powi(-140), 0.0, -140.0),
            (0.0, 0.0, -INF),
            (-0.0, 0.0, -INF),
            (-1.0, 0.0, NAN),
            (-INF, 0.0, NAN),
            (INF, 0.0, INF),
            (NAN, 0.0, NAN),
        ],
    );
}

#[test]
fn sine_and_cosine() {
    use std::f32::consts::PI;
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    let mut inputs: Vec<(f32, f32)> = sweep(-PI, PI, 8192).map(|x| (x, 0.0)).collect();
    for _ in 0..4096 {
        inputs.push((rng.uniform(-PI, PI), 0.0));
    }
    // Beyond [-π, π] Vulkan sets no bound; the range reduction keeps the
    // same absolute bound up to |x| = 2^15 (tested so that it stays so).
    for _ in 0..4096 {
        inputs.push((rng.uniform(-1000.0, 1000.0), 0.0));
        inputs.push((rng.uniform(-32768.0, 32768.0), 0.0));
    }
    for op in ["fsin", "fcos"] {
        let reference: fn(f64, f64) -> f64 = if op == "fsin" {
            |x, _| x.sin()
        } else {
            |x, _| x.cos()
        };
        check(op, false, &inputs, reference, |_, _, _| {
            Some((Bound::Abs(2f64.powi(-11)), "absolute"))
        });
    }
    specials(
        "fsin",
        false,
        &[
            (0.0, 0.0, 0.0),
            (INF, 0.0, NAN),
            (-INF, 0.0, NAN),
            (NAN, 0.0, NAN),
        ],
    );
    specials(
        "fcos",
        false,
        &[(0.0, 0.0, 1.0), (INF, 0.0, NAN), (NAN, 0.0, NAN)],
    );
}

#[test]
fn power() {
    let mut rng = Rng(0x0bad_5eed_1234_4321);
    let mut inputs = Vec::new();
    for _ in 0..8192 {
        inputs.push((rng.uniform(0.0, 16.0), rng.uniform(-8.0, 8.0)));
        inputs.push((rng.float(100, 154, false), rng.uniform(-3.0, 3.0)));
    }
    inputs.extend(sweep(0.5, 2.0, 2048).map(|x| (x, 7.5)));
    // Inherited from exp2(y · log2(x)): log2's error (3 ULP of l, or 2^-21
    // absolute inside [0.5, 2]) times |y|, plus the product's rounding, is
    // an error Δp of the exponent, i.e. a relative error ln 2 · Δp of the
    // result; exp2 adds its own 3 + 2|p| ULP.
    check(
        "fpow",
        true,
        &inputs,
        |x, y| x.powf(y),
        |_, _, _| {
            Some((
                Bound::Ulp(|x, y, want| {
                    let (x, y) = (f64::from(x), f64::from(y));
                    let l = x.log2();
                    let dl = if (0.5..=2.0).contains(&x) {
                        2f64.powi(-21)
                    } else {
                        3.0 * ulp(l)
                    };
                    let p = y * l;
                    let dp = y.abs() * dl + 0.5 * ulp(p);
                    let relative = std::f64::consts::LN_2 * dp * want.abs() / ulp(want);
                    relative + 3.0 + 2.0 * p.abs()
                }),
                "ULP",
            ))
        },
    );
    specials(
        "fpow",
        true,
        &[
            (2.0, 10.0, 1024.0),
            (3.0, 0.0, 1.0),
            (0.0, 2.0, 0.0),
            (-2.0, 0.5, NAN),
            (INF, 1.0, INF),
            (4.0, 0.5, 2.0),
        ],
    );
}

/// Instructions each op adds to the one-op program (over `fneg`, one
/// instruction), on G52; printed for the record and bounded so that a
/// regression in the sequences shows.
#[test]
fn compile_size() {
    let size = |op: &str, binary: bool| {
        let shader = Shader::parse(&program(op, binary)).unwrap();
        compile(&shader, Options::default())
            .unwrap_or_else(|e| panic!("{op}: {e}"))
            .stats
    };
    let base = size("fneg", false).instructions - 1;
    for (op, binary, limit) in [
        ("frcp", false, 40),
        ("fdiv", true, 48),
        ("frsq", false, 32),
        ("fsqrt", false, 34),
        ("fexp2", false, 26),
        ("flog2", false, 40),
        ("fsin", false, 26),
        ("fcos", false, 26),
        ("fpow", true, 64),
    ] {
        let s = size(op, binary);
        let n = s.instructions - base;
        eprintln!(
            "{op}: {n} instructions ({} tuples, {} clauses in the whole program)",
            s.tuples, s.clauses
        );
        assert!(n <= limit, "{op}: {n} instructions > {limit}");
    }
}
