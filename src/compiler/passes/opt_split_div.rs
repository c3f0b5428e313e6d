//! `opt_split_div`: 32-bit integer division by a divisor computed once and
//! used many times, split into a divisor-only part and a per-dividend part.
//!
//! Bifrost has no divide instruction. The backend divides by a constant
//! with a multiply-high by its magic number (`bifrost/isel/wide.rs`,
//! `DivMagic`), but by a run-time value with a 32-step shift-and-subtract
//! sequence of about 160 instructions. When the divisor `d` is defined
//! outside a loop that divides by it, or when several divisions share it
//! (a quotient and a remainder of an index, say), this pass computes, right
//! after `d`'s definition,
//!
//! - `m = udiv 0xffffffff, d` — the round-down reciprocal `⌊(2³²−1)/d⌋`,
//!   the one full division, paid once;
//! - `z = d == 0 ? ~0 : 0` — the IR's quotient for a zero divisor;
//!
//! and replaces each `x / d` by `t = umul_high(x, m)`, `r = x − t·d`, one
//! correction step `if r ≥ d { t += 1; r −= d }`, and `q = t | z` — about
//! 25 instructions instead of 160.
//!
//! Exactness, for every x and d ≥ 1 (q = ⌊x/d⌋): `m·d ≥ 2³² − d`, so
//! `x·m/2³² ≥ x/d − x/2³² > x/d − 1`, and `x·m < x·2³²/d`: the estimate
//! `t = ⌊x·m/2³²⌋` is q or q − 1, so `r = x − t·d` (no overflow: t·d ≤ x)
//! is below 2d and one correction makes it exact. For d = 0, `m` is all
//! ones (the IR's `udiv x, 0`), `r = x` and the correction fires: the
//! remainder is x and `z` makes the quotient all ones, the values the IR
//! defines (`ir/eval.rs`; SPIR-V leaves them undefined). The signed
//! operations divide the magnitudes (`iabs`, whose `INT_MIN` is 2³¹ as
//! an unsigned value) and apply `OpSDiv`'s, `OpSRem`'s and `OpSMod`'s sign
//! rules as the backend does (`bifrost/isel/alu.rs`), the quotient's
//! zero-divisor mask last; `INT_MIN / −1` gives `INT_MIN` as `ir/eval.rs` does.
//!
//! When it pays: the divisor must be defined by an ordinary instruction
//! (not a constant, which the backend divides by better, and not an `if`
//! or `loop` result), and either some division by it sits in a loop the
//! definition is outside of, or two or more divisions use it. The
//! divisor-only part goes right after the definition, so it is outside
//! every loop the definition is outside of, and shared by all divisions;
//! run after `opt_licm` (`compiler::pipeline`), which has moved uniform
//! and system-value reads and arithmetic on them — the usual divisors,
//! push constants and workgroup sizes — out of the loops already. A
//! divisor that is not uniform but loop-invariant (an input, a value
//! computed before the loop) qualifies in the same way: what matters is
//! how often the divisor-only part runs, not whether the subgroup shares
//! it. The cost it accepts: the reciprocal also runs when the loop runs no
//! iteration, or when two divisions lie on different paths of an `if`.
//!
//! NIR's `nir_lower_idiv` (src/compiler/nir/nir_lower_idiv.c) uses a
//! float reciprocal with two correction steps; this integer form is exact
//! by the argument above without relying on the precision of `frcp`.
//! Vectors are handled component-wise by the same ops; only 32-bit
//! divisions are split (`lower_int64` has already rewritten 64-bit ones).

use std::collections::HashMap;

use crate::compiler::ir::*;

impl Shader {
    pub fn opt_split_div(&mut self) -> bool {
        self.run_pass("opt_split_div", opt_split_div)
    }
}

fn is_division(op: AluOp) -> bool {
    matches!(
        op,
        AluOp::Udiv | AluOp::Umod | AluOp::Idiv | AluOp::Irem | AluOp::Imod
    )
}

fn is_signed(op: AluOp) -> bool {
    matches!(op, AluOp::Idiv | AluOp::Irem | AluOp::Imod)
}

/// A divisor and whether its divisions are signed (they divide `|d|`).
type Key = (Value, bool);

/// What the first walk learns about the shader.
struct Analysis {
    /// Loop depth of each value's defining instruction; `None` for values
    /// defined by `if`/`loop` (results, parameters), constants and unknowns.
    def_depth: Vec<Option<u32>>,
    /// Per divisor: how many divisions use it, and whether one of them is
    /// deeper in loops than the divisor's definition.
    uses: HashMap<Key, (u32, bool)>,
}

fn analyse(region: &Region, depth: u32, a: &mut Analysis) {
    for instr in &region.instrs {
        match &instr.op {
            Op::If(f) => {
                analyse(&f.then_region, depth, a);
                analyse(&f.else_region, depth, a);
            }
            Op::Loop(l) => analyse(&l.body, depth + 1, a),
            Op::Const(_) => {}
            op => {
                if let Op::Alu(alu) = op
                    && is_division(alu.op)
                    && alu.srcs.len() == 2
                    && let Some(Some(def)) = a.def_depth.get(alu.srcs[1].index())
                {
                    let e = a.uses.entry((alu.srcs[1], is_signed(alu.op))).or_default();
                    e.0 += 1;
                    e.1 |= depth > *def;
                }
                for d in &instr.dsts {
                    if let Some(slot) = a.def_depth.get_mut(d.index()) {
                        *slot = Some(depth);
                    }
                }
            }
        }
    }
}

/// The divisor-only values of one [`Key`].
#[derive(Clone, Copy)]
struct Reciprocal {
    /// The unsigned divisor: `d`, or `iabs d` for signed divisions.
    divisor: Value,
    /// `⌊(2³²−1)/divisor⌋` (all ones for 0).
    m: Value,
    /// All ones where the divisor is 0, else 0.
    zero_mask: Value,
}

fn splat(e: &mut Builder<'_>, ty: ValueType, v: u64) -> Value {
    e.imm(ty, &vec![v; usize::from(ty.comps)])
}

fn reciprocal(e: &mut Builder<'_>, d: Value, signed: bool) -> Reciprocal {
    let ty = e.ty(d);
    let divisor = if signed { e.alu(AluOp::Iabs, &[d]) } else { d };
    let ones = splat(e, ty, u64::from(u32::MAX));
    let zero = splat(e, ty, 0);
    let m = e.alu(AluOp::Udiv, &[ones, divisor]);
    let is_zero = e.alu(AluOp::Ieq, &[d, zero]);
    let zero_mask = e.alu(AluOp::Bcsel, &[is_zero, ones, zero]);
    Reciprocal {
        divisor,
        m,
        zero_mask,
    }
}

/// `(⌊x/d⌋, x mod d)` of unsigned `x` by the reciprocal's divisor, the
/// quotient without the zero-divisor mask (module doc).
fn udivmod(e: &mut Builder<'_>, x: Value, r: Reciprocal) -> (Value, Value) {
    let ty = e.ty(x);
    let t = e.alu(AluOp::UmulHigh, &[x, r.m]);
    let td = e.alu(AluOp::Imul, &[t, r.divisor]);
    let rem = e.alu(AluOp::Isub, &[x, td]);
    let fix = e.alu(AluOp::Uge, &[rem, r.divisor]);
    let one = splat(e, ty, 1);
    let t1 = e.alu(AluOp::Iadd, &[t, one]);
    let q = e.alu(AluOp::Bcsel, &[fix, t1, t]);
    let rem1 = e.alu(AluOp::Isub, &[rem, r.divisor]);
    let rem = e.alu(AluOp::Bcsel, &[fix, rem1, rem]);
    (q, rem)
}

/// `op` of `x` by the divisor `y` whose divisor-only part is `r`.
fn divide(e: &mut Builder<'_>, op: AluOp, x: Value, y: Value, r: Reciprocal) -> Value {
    let ty = e.ty(x);
    let zero = splat(e, ty, 0);
    let negate = |e: &mut Builder<'_>, v: Value| e.alu(AluOp::Isub, &[zero, v]);
    match op {
        AluOp::Udiv => {
            let (q, _) = udivmod(e, x, r);
            e.alu(AluOp::Ior, &[q, r.zero_mask])
        }
        AluOp::Umod => udivmod(e, x, r).1,
        AluOp::Idiv => {
            let ax = e.alu(AluOp::Iabs, &[x]);
            let (q, _) = udivmod(e, ax, r);
            // Negative when the signs differ; x / 0 = −1.
            let signs = e.alu(AluOp::Ixor, &[x, y]);
            let differ = e.alu(AluOp::Ilt, &[signs, zero]);
            let nq = negate(e, q);
            let q = e.alu(AluOp::Bcsel, &[differ, nq, q]);
            e.alu(AluOp::Ior, &[q, r.zero_mask])
        }
        _ => {
            let ax = e.alu(AluOp::Iabs, &[x]);
            let (_, rem) = udivmod(e, ax, r);
            // The remainder takes the dividend's sign (x % 0 = x).
            let xneg = e.alu(AluOp::Ilt, &[x, zero]);
            let nrem = negate(e, rem);
            let rem = e.alu(AluOp::Bcsel, &[xneg, nrem, rem]);
            if op == AluOp::Irem {
                return rem;
            }
            // Modulo: add y when rem ≠ 0 and its sign differs from y's.
            let signs = e.alu(AluOp::Ixor, &[rem, y]);
            let differ = e.alu(AluOp::Ilt, &[signs, zero]);
            let nonzero = e.alu(AluOp::Ine, &[rem, zero]);
            let fix = e.alu(AluOp::Iand, &[differ, nonzero]);
            let sum = e.alu(AluOp::Iadd, &[rem, y]);
            e.alu(AluOp::Bcsel, &[fix, sum, rem])
        }
    }
}

/// The divisions in `region`: divisor, signedness, loop depth.
fn divisions(region: &Region, depth: u32, out: &mut Vec<(Value, bool, u32)>) {
    for instr in &region.instrs {
        match &instr.op {
            Op::Alu(a) if is_division(a.op) && a.srcs.len() == 2 => {
                out.push((a.srcs[1], is_signed(a.op), depth));
            }
            Op::If(f) => {
                divisions(&f.then_region, depth, out);
                divisions(&f.else_region, depth, out);
            }
            Op::Loop(l) => divisions(&l.body, depth + 1, out),
            _ => {}
        }
    }
}

fn opt_split_div(s: &mut Shader) -> bool {
    // Most shaders divide by nothing, or once outside any loop (the XFB
    // prologue): one cheap walk decides whether the full analysis can
    // find anything.
    let mut found = Vec::new();
    divisions(&s.body, 0, &mut found);
    let in_loop = found.iter().any(|&(_, _, depth)| depth > 0);
    let shared = || {
        let mut keys: Vec<(Value, bool)> =
            found.iter().map(|&(d, signed, _)| (d, signed)).collect();
        keys.sort_unstable();
        keys.windows(2).any(|w| w[0] == w[1])
    };
    if !in_loop && !shared() {
        return false;
    }
    let mut a = Analysis {
        def_depth: vec![None; s.values.len()],
        uses: HashMap::new(),
    };
    analyse(&s.body, 0, &mut a);
    let values = &s.values;
    let chosen: HashMap<Key, Option<Reciprocal>> = a
        .uses
        .iter()
        .filter(|&(&(d, _), &(count, deeper))| {
            let ty = values[d.index()];
            ty.bits == 32 && (deeper || count >= 2)
        })
        .map(|(&k, _)| (k, None))
        .collect();
    if chosen.is_empty() {
        return false;
    }
    let mut chosen = chosen;
    Builder::rewrite(s, &mut |instr, e| {
        if matches!(instr.op, Op::If(_) | Op::Loop(_)) {
            e.push(instr);
            return;
        }
        let dsts = instr.dsts.clone();
        if let Op::Alu(alu) = &instr.op
            && is_division(alu.op)
            && alu.srcs.len() == 2
            && let [dst] = instr.dsts[..]
            && let Some(&Some(r)) = chosen.get(&(alu.srcs[1], is_signed(alu.op)))
            && e.ty(dst) == e.ty(alu.srcs[0])
            && e.ty(dst) == e.ty(alu.srcs[1])
        {
            let v = divide(e, alu.op, alu.srcs[0], alu.srcs[1], r);
            e.mov(dst, v);
        } else {
            e.push(instr);
        }
        // A quotient can be a divisor in turn: its reciprocal follows it.
        for d in dsts.iter() {
            for signed in [false, true] {
                if let Some(slot @ None) = chosen.get_mut(&(*d, signed)) {
                    *slot = Some(reciprocal(e, *d, signed));
                }
            }
        }
    });
    true
}

#[cfg(test)]
mod tests {
    use crate::compiler::ir::interp::{DrawState, InvocationIds, Memory, run_invocation};
    use crate::compiler::ir::*;

    const BASE: u64 = 0x1000;
    const BYTES: usize = 256;

    /// Reads `d`, `x0`, `step` and the trip count from the words at
    /// `BASE`, then for each trip `i` stores `x / d`, `x % d` (unsigned,
    /// then `idiv`, `irem`, `imod`) and `uvec2(x, x0) / uvec2(d)` for
    /// `x = x0 + i * step` at `BASE + 0x40 + 28 i`.
    const LOOP: &str = r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 50
  %0:i64 = const 0x1000
  %1:i64 = const 0x4
  %2:i64 = const 0x8
  %3:i64 = const 0xc
  %4:i64 = iadd %0, %1
  %5:i64 = iadd %0, %2
  %6:i64 = iadd %0, %3
  %7:i32 = load_global %0
  %8:i32 = load_global %4
  %9:i32 = load_global %5
  %10:i32 = load_global %6
  %11:i32 = const 0x0
  %12:i32 = const 0x1
  %13:i64 = const 0x40
  %14:i64 = const 0x1c
  %40:i32x2 = vec %7, %7
  loop (%15:i32 = %11) {
    %16:b1 = uge %15, %10
    if %16 {
      break
    } else {
      yield
    }
    %17:i32 = imul %15, %9
    %18:i32 = iadd %8, %17
    %19:i32 = udiv %18, %7
    %20:i32 = umod %18, %7
    %21:i32 = idiv %18, %7
    %22:i32 = irem %18, %7
    %23:i32 = imod %18, %7
    %41:i32x2 = vec %18, %8
    %42:i32x2 = udiv %41, %40
    %24:i64 = u2u %15
    %25:i64 = imul %24, %14
    %26:i64 = iadd %25, %0
    %27:i64 = iadd %26, %13
    store_global %19, %27
    %28:i64 = iadd %27, %1
    store_global %20, %28
    %29:i64 = iadd %28, %1
    store_global %21, %29
    %30:i64 = iadd %29, %1
    store_global %22, %30
    %31:i64 = iadd %30, %1
    store_global %23, %31
    %32:i64 = iadd %31, %1
    store_global %42, %32
    %33:i32 = iadd %15, %12
    continue %33
  }
}"#;

    fn run(s: &Shader, words: [u32; 4]) -> Vec<u8> {
        let mut bytes = vec![0u8; BYTES];
        for (i, w) in words.iter().enumerate() {
            bytes[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        let mut m = Memory::new();
        m.map(BASE, bytes).unwrap();
        run_invocation(s, &DrawState::default(), &mut m, InvocationIds::default()).unwrap();
        m.read(BASE, BYTES as u64).unwrap().to_vec()
    }

    /// The divisor-only part lands before the loop, the loop divides by
    /// nothing, and every quotient and remainder equals the original's —
    /// the IR's own results for a zero divisor and `INT_MIN / −1`
    /// included — on edge and pseudo-random divisors and dividends.
    #[test]
    fn splits_loop_divisions_exactly() {
        let original = Shader::parse(LOOP).unwrap();
        let mut s = original.clone();
        assert!(s.opt_split_div());
        s.validate().unwrap();
        s.optimize();
        let text = s.to_string();
        let (before, body) = text.split_once("loop").unwrap();
        for op in ["udiv", "umod", "idiv", "irem", "imod"] {
            assert!(!body.contains(op), "{op} left in the loop: {text}");
        }
        // One reciprocal per (divisor, signedness), scalar and vector
        // (the vector divisor is a different value).
        assert_eq!(before.matches("udiv").count(), 3, "{text}");
        assert_eq!(body.matches("umul_high").count(), 3, "{text}");

        let mut edges = vec![
            0u32,
            1,
            2,
            3,
            7,
            10,
            0x7fff_ffff,
            0x8000_0000,
            0x8000_0001,
            0xffff_fff9,
            0xffff_fffe,
            0xffff_ffff,
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u32
        };
        for _ in 0..12 {
            let r = next();
            edges.push(r);
            edges.push(r >> (r % 31));
        }
        let mut cases = 0;
        for &d in &edges {
            for &x0 in &edges {
                let step = [1u32, 0xffff_ffff, 0x9e37_79b9][(d ^ x0) as usize % 3];
                let words = [d, x0, step, 3];
                assert_eq!(
                    run(&original, words),
                    run(&s, words),
                    "d={d:#x} x0={x0:#x} step={step:#x}\n{text}"
                );
                cases += 1;
            }
        }
        assert!(cases > 1000);
    }

    /// A quotient used as a divisor in a loop gets its own reciprocal,
    /// right after the (split) division that defines it.
    #[test]
    fn a_split_quotient_can_be_a_split_divisor() {
        // x / (step / d) in the loop, step / d before it.
        let text = LOOP
            .replace(
                "%40:i32x2 = vec %7, %7",
                "%40:i32x2 = vec %7, %7\n  %44:i32 = udiv %9, %7",
            )
            .replace("%19:i32 = udiv %18, %7", "%19:i32 = udiv %18, %44");
        let original = Shader::parse(&text).unwrap();
        let mut s = original.clone();
        assert!(s.opt_split_div());
        s.validate().unwrap();
        s.optimize();
        let text = s.to_string();
        let (before, body) = text.split_once("loop").unwrap();
        assert!(!body.contains("div") && !body.contains("mod"), "{text}");
        // Reciprocals of %7 (unsigned, signed), of the vector and of %44.
        assert_eq!(before.matches("udiv").count(), 4, "{text}");
        for d in [0u32, 1, 2, 3, 7, 0x8000_0000, 0xffff_ffff] {
            for x0 in [0u32, 5, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff] {
                let words = [d, x0, 0x9e37_79b9, 3];
                assert_eq!(run(&original, words), run(&s, words), "d={d:#x} x0={x0:#x}");
            }
        }
    }

    /// One division where its divisor is defined gains nothing (the
    /// reciprocal costs one full division itself); constants are the
    /// backend's (`DivMagic`); two divisions by one divisor share it.
    #[test]
    fn splits_only_when_the_reciprocal_is_reused() {
        let single = r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 8
  %0:i64 = const 0x1000
  %1:i32 = load_global %0
  %2:i32 = const 0x7
  %3:i32 = udiv %1, %2
  %4:i32 = umod %1, %2
  %5:i32 = idiv %3, %1
  %6:i32 = iadd %4, %5
  store_global %6, %0
}"#;
        let mut s = Shader::parse(single).unwrap();
        let before = s.to_string();
        assert!(!s.opt_split_div());
        assert_eq!(s.to_string(), before);

        let shared = single.replace("%5:i32 = idiv %3, %1", "%5:i32 = umod %3, %1");
        let shared = shared.replace(
            "%6:i32 = iadd %4, %5",
            "%7:i32 = udiv %4, %1\n  %6:i32 = iadd %7, %5",
        );
        let original = Shader::parse(&shared).unwrap();
        let mut s = original.clone();
        assert!(s.opt_split_div());
        s.validate().unwrap();
        s.optimize();
        let text = s.to_string();
        assert_eq!(text.matches("udiv").count(), 2, "{text}"); // by 7, and the reciprocal
        assert_eq!(text.matches("umul_high").count(), 2, "{text}");
        for x in [0u32, 1, 6, 7, 8, 100, 0x8000_0000, 0xffff_ffff, 0x1234_5678] {
            let mut m0 = Memory::new();
            m0.map(BASE, x.to_le_bytes().to_vec()).unwrap();
            let mut m1 = m0.clone();
            run_invocation(
                &original,
                &DrawState::default(),
                &mut m0,
                InvocationIds::default(),
            )
            .unwrap();
            run_invocation(&s, &DrawState::default(), &mut m1, InvocationIds::default()).unwrap();
            assert_eq!(
                m0.read(BASE, 4).unwrap(),
                m1.read(BASE, 4).unwrap(),
                "x={x:#x}"
            );
        }
    }
}
