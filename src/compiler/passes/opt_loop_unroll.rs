//! `opt_loop_unroll`: replace a loop whose trip count is known when
//! compiling by that many copies of its body.
//!
//! The loops it takes are the shape the front end gives a `for`/`while`
//! loop with a counter (docs/ARCHITECTURE.md, "The IR"):
//!
//! ```text
//! %r = loop (%p = %init, ...) {                 %r = loop (%p = %init, ...) {
//!   <header>                                      <header>
//!   if %cond { yield } else { break %x... }       if %cond { continue %next... }
//!   <body>                                        else { break %x... }
//!   continue %next...                           }
//! }
//! ```
//!
//! (a `for`/`while` loop and a `do`/`while` loop; either `if` may have its
//! branches swapped), where the header and body hold no other `break` or
//! `continue` of this loop (nested loops' own are fine).
//!
//! The trip count comes from running the header and the body's top-level
//! ALU ops on the parameters' constant values, with the interpreter's own
//! semantics ([`fold_instr`], `ir::eval`), until the condition leaves the
//! loop; a condition that depends on anything not constant (a uniform, a
//! value computed under an `if`) leaves the loop alone. The unrolled code is
//! the body `trips` times, each copy reading the previous copy's `continue`
//! values as its parameters, then the header once more, whose `break`
//! values become the loop's results. Nothing else changes meaning: the
//! copies run the same instructions in the same order as the loop did, so
//! stores, atomics and barriers keep their order.
//!
//! Limits: at most [`MAX_TRIPS`] iterations and [`MAX_UNROLLED`]
//! instructions after unrolling (nested regions counted), like Mesa's
//! `nir_opt_loop_unroll` (src/compiler/nir/nir_opt_loop_unroll.c), which
//! unrolls small constant-trip loops for Bifrost too. Inner loops are
//! unrolled first, so an outer loop may then fit. The pipeline runs the
//! pass once after the shared optimisation and optimises again when it
//! unrolled something: the copies' compares and selects on the counter fold
//! away (`compiler::pipeline`).

use rustc_hash::FxHashMap as HashMap;

use super::opt_constant_fold::fold_instr;
use super::{ConstTable, Subst, const_values, for_each_loop_exit};
use crate::compiler::ir::*;

/// Most iterations a loop may have to be unrolled.
pub const MAX_TRIPS: usize = 32;

/// Most instructions the unrolled copies may add up to.
pub const MAX_UNROLLED: usize = 256;

impl Shader {
    pub fn opt_loop_unroll(&mut self) -> bool {
        self.run_pass("opt_loop_unroll", opt_loop_unroll)
    }
}

struct Unroll<'a> {
    values: &'a mut Vec<ValueType>,
    consts: ConstTable,
    subst: Subst,
    progress: bool,
}

fn opt_loop_unroll(s: &mut Shader) -> bool {
    let consts = const_values(s);
    let subst = Subst::new(s);
    let mut body = std::mem::take(&mut s.body);
    let mut u = Unroll {
        values: &mut s.values,
        consts,
        subst,
        progress: false,
    };
    u.region(&mut body);
    let (subst, progress) = (u.subst, u.progress);
    subst.apply(&mut body);
    s.body = body;
    progress
}

/// The parts of a loop body of one of the shapes in the module docs.
struct Shape<'a> {
    /// Runs on every iteration and once more before the loop is left.
    header: &'a [Instr],
    cond: Value,
    /// Whether the loop goes on when `cond` is true.
    stay_when: bool,
    exit: &'a [Value],
    /// Runs after the test on the iterations that go on.
    body: &'a [Instr],
    next: &'a [Value],
}

fn is_pure(instr: &Instr) -> bool {
    matches!(
        instr.op,
        Op::Const(_) | Op::Undef | Op::Alu(_) | Op::Vec(_) | Op::Swizzle(_)
    )
}

/// The only instruction of `r`, if it is one.
fn only(r: &Region) -> Option<&Op> {
    match &r.instrs[..] {
        [i] => Some(&i.op),
        _ => None,
    }
}

/// Whether `instr` is, or holds, a `break` or `continue` of the loop
/// whose body it is in.
fn exits(instr: &Instr) -> bool {
    let mut n = 0;
    match &instr.op {
        Op::Break(_) | Op::Continue(_) => n += 1,
        Op::If(i) => {
            for_each_loop_exit(&i.then_region, &mut |_| n += 1);
            for_each_loop_exit(&i.else_region, &mut |_| n += 1);
        }
        _ => {}
    }
    n > 0
}

fn shape(l: &Loop) -> Option<Shape<'_>> {
    let instrs = &l.body.instrs;
    let t = instrs.iter().position(exits)?;
    let test = &instrs[t];
    let Op::If(f) = &test.op else {
        return None;
    };
    if !test.dsts.is_empty() {
        return None;
    }
    let header = &instrs[..t];
    let (stay_when, stay, exit) = match (only(&f.then_region)?, only(&f.else_region)?) {
        (stay, Op::Break(b)) => (true, stay, &b.values),
        (Op::Break(b), stay) => (false, stay, &b.values),
        _ => return None,
    };
    match stay {
        // The do-while form: the test ends the body.
        Op::Continue(next) if t + 1 == instrs.len() => Some(Shape {
            header,
            cond: f.cond,
            stay_when,
            exit,
            body: &[],
            next: &next.values,
        }),
        // The for/while form: the body runs after the test, and only its
        // last instruction leaves (back to the top).
        Op::Yield(y) if y.values.is_empty() => {
            let (last, body) = instrs[t + 1..].split_last()?;
            let Op::Continue(next) = &last.op else {
                return None;
            };
            (!body.iter().any(exits)).then_some(Shape {
                header,
                cond: f.cond,
                stay_when,
                exit,
                body,
                next: &next.values,
            })
        }
        _ => None,
    }
}

fn count(instrs: &[Instr]) -> usize {
    let mut n = 0;
    for i in instrs {
        n += 1;
        match &i.op {
            Op::If(f) => n += count(&f.then_region.instrs) + count(&f.else_region.instrs),
            Op::Loop(l) => n += count(&l.body.instrs),
            _ => {}
        }
    }
    n
}

impl Unroll<'_> {
    fn region(&mut self, region: &mut Region) {
        let mut i = 0;
        while i < region.instrs.len() {
            let instr = &mut region.instrs[i];
            let unrolled = match &mut instr.op {
                Op::If(f) => {
                    self.region(&mut f.then_region);
                    self.region(&mut f.else_region);
                    None
                }
                Op::Loop(l) => {
                    self.region(&mut l.body);
                    self.unroll(l, &instr.dsts)
                }
                _ => None,
            };
            match unrolled {
                Some(out) => {
                    let n = out.len();
                    region.instrs.splice(i..i + 1, out);
                    self.progress = true;
                    i += n;
                }
                None => i += 1,
            }
        }
    }

    /// The constant components of `v`: loop-local ones first.
    fn konst<'a>(&'a self, local: &'a HashMap<Value, Vec<u64>>, v: Value) -> Option<&'a [u64]> {
        local
            .get(&v)
            .map(Vec::as_slice)
            .or_else(|| self.consts.get(v))
    }

    /// Runs the pure instructions of `instrs` whose sources are known.
    fn eval(&self, instrs: &[Instr], local: &mut HashMap<Value, Vec<u64>>) {
        for instr in instrs.iter().filter(|i| is_pure(i)) {
            if let Some(c) = fold_instr(instr, self.values, |v| self.konst(local, v)) {
                local.insert(instr.dsts[0], c);
            }
        }
    }

    /// How many times the loop runs its body, if known and small.
    fn trips(&self, l: &Loop, shape: &Shape<'_>) -> Option<usize> {
        let mut params: Vec<Option<Vec<u64>>> = l
            .inits
            .iter()
            .map(|&v| self.consts.get(v).map(<[u64]>::to_vec))
            .collect();
        // One map for every trip, emptied at its start: at most the params
        // and one value per instruction of the header and the body.
        let mut local = HashMap::with_capacity_and_hasher(
            l.params.len() + shape.header.len() + shape.body.len(),
            Default::default(),
        );
        for k in 0..=MAX_TRIPS {
            local.clear();
            for (&p, c) in l.params.iter().zip(&params) {
                if let Some(c) = c {
                    local.insert(p, c.clone());
                }
            }
            self.eval(shape.header, &mut local);
            let cond = self.konst(&local, shape.cond)?.first()? & 1 != 0;
            if cond != shape.stay_when {
                return Some(k);
            }
            self.eval(shape.body, &mut local);
            params = shape
                .next
                .iter()
                .map(|v| self.konst(&local, *v).map(<[u64]>::to_vec))
                .collect();
        }
        None
    }

    fn unroll(&mut self, l: &Loop, dsts: &[Value]) -> Option<Vec<Instr>> {
        let shape = shape(l)?;
        let trips = self.trips(l, &shape)?;
        let header = count(shape.header);
        if (header + count(shape.body)) * trips + header > MAX_UNROLLED {
            return None;
        }
        // The params and the values the copied code defines (one per
        // instruction, nearly always).
        let mut map = HashMap::with_capacity_and_hasher(
            l.params.len() + header + count(shape.body),
            Default::default(),
        );
        for (&p, &i) in l.params.iter().zip(&l.inits) {
            map.insert(p, i);
        }
        let mut out = Vec::new();
        for _ in 0..trips {
            for instr in shape.header.iter().chain(shape.body) {
                out.push(self.copy(instr, &mut map));
            }
            let next: Vec<Value> = shape
                .next
                .iter()
                .map(|v| *map.get(v).unwrap_or(v))
                .collect();
            for (&p, n) in l.params.iter().zip(next) {
                map.insert(p, n);
            }
        }
        for instr in shape.header {
            out.push(self.copy(instr, &mut map));
        }
        for (&d, x) in dsts.iter().zip(shape.exit) {
            self.subst.replace(d, *map.get(x).unwrap_or(x));
        }
        Some(out)
    }

    /// `instr` with its sources renamed by `map` and new values for
    /// everything it (and its nested regions) defines.
    fn copy(&mut self, instr: &Instr, map: &mut HashMap<Value, Value>) -> Instr {
        let mut c = instr.clone();
        self.rename(&mut c, map);
        c
    }

    fn rename(&mut self, instr: &mut Instr, map: &mut HashMap<Value, Value>) {
        for src in instr.srcs_mut() {
            *src = *map.get(src).unwrap_or(src);
        }
        for d in instr.dsts.iter_mut() {
            *d = self.fresh(*d, map);
        }
        match &mut instr.op {
            Op::If(f) => {
                for r in [&mut f.then_region, &mut f.else_region] {
                    for i in &mut r.instrs {
                        self.rename(i, map);
                    }
                }
            }
            Op::Loop(l) => {
                for p in &mut l.params {
                    *p = self.fresh(*p, map);
                }
                for i in &mut l.body.instrs {
                    self.rename(i, map);
                }
            }
            _ => {}
        }
    }

    fn fresh(&mut self, v: Value, map: &mut HashMap<Value, Value>) -> Value {
        self.values.push(self.values[v.index()]);
        let n = Value(self.values.len() as u32 - 1);
        map.insert(v, n);
        n
    }
}

#[cfg(test)]
mod tests {
    use crate::compiler::ir::interp::{DrawState, InvocationIds, Memory, run_invocation};
    use crate::compiler::ir::*;

    const BASE: u64 = 0x1000;

    /// Runs `s` with 16 words at `BASE`, the first `start`; returns them.
    fn run(s: &Shader, start: u32) -> Vec<u8> {
        let mut bytes = vec![0u8; 64];
        bytes[..4].copy_from_slice(&start.to_le_bytes());
        let mut m = Memory::new();
        m.map(BASE, bytes).unwrap();
        run_invocation(s, &DrawState::default(), &mut m, InvocationIds::default()).unwrap();
        m.read(BASE, 64).unwrap().to_vec()
    }

    /// `sum = mem[0]; loop { sum += i * 5; mem[1 + i] = sum; i++ } mem[0] =
    /// sum`, the loop's test `first` before its body (testing `%5`, the
    /// counter) or `last` after it (testing `%11`, the next counter),
    /// against the constant `n` (`%1`).
    fn summing_loop(n: u32, first: &str, last: &str) -> Shader {
        Shader::parse(&format!(
            r#"shader compute "" {{
  info local_size 1 1 1 shared 0 push 0
  values 20
  %12:i64 = const {BASE:#x}
  %13:i64 = const 0x4
  %0:i32 = const 0x0
  %1:i32 = const {n:#x}
  %2:i32 = const 0x1
  %3:i32 = const 0x5
  %4:i32 = load_global %12
  %7:i32 = loop (%5:i32 = %0, %6:i32 = %4) {{
{first}    %9:i32 = imul %5, %3
    %10:i32 = iadd %6, %9
    %11:i32 = iadd %5, %2
    %14:i64 = u2u %11
    %15:i64 = imul %14, %13
    %16:i64 = iadd %15, %12
    store_global %10, %16
{last}  }}
  store_global %7, %12
}}"#
        ))
        .unwrap()
    }

    /// The for form: `for (i = 0; i cmp n; i++)`, the exit branch first
    /// when `swapped`.
    fn counted(cmp: &str, n: u32, swapped: bool) -> Shader {
        let branches = if swapped {
            "if %8 {\n      break %6\n    } else {\n      yield\n    }"
        } else {
            "if %8 {\n      yield\n    } else {\n      break %6\n    }"
        };
        let first = format!("    %8:b1 = {cmp} %5, %1\n    {branches}\n");
        summing_loop(n, &first, "    continue %11, %10\n")
    }

    /// The do-while form: `do { ... } while (i < n)`.
    fn do_while(n: u32) -> Shader {
        let last = "    %8:b1 = ult %11, %1\n    if %8 {\n      continue %11, %10\n    } else {\n      break %10\n    }\n";
        summing_loop(n, "", last)
    }

    /// Unrolls `original`: no loop is left, `stores` stores are, and the
    /// optimised result writes the loop's memory for three start values.
    fn check_unrolled(original: &Shader, stores: usize, what: &str) {
        let mut s = original.clone();
        assert!(s.opt_loop_unroll(), "{what}");
        s.validate().unwrap();
        let text = s.to_string();
        assert!(!text.contains("loop"), "{text}");
        assert_eq!(text.matches("store_global").count(), stores, "{text}");
        s.optimize();
        for start in [0, 7, 0xffff_fff0] {
            assert_eq!(run(original, start), run(&s, start), "{what} {start}");
        }
    }

    /// Three, zero and twelve trips, both branch orders: the loop is gone,
    /// and the stores are those of the loop, in memory and in number.
    #[test]
    fn unrolls_counted_loops() {
        for (cmp, n, swapped, trips) in [
            ("ult", 3, false, 3),
            ("ult", 0, false, 0),
            ("ult", 12, false, 12),
            ("uge", 3, true, 3),
        ] {
            check_unrolled(&counted(cmp, n, swapped), trips + 1, &format!("{cmp} {n}"));
        }
    }

    /// The do-while form runs its body at least once.
    #[test]
    fn unrolls_do_while_loops() {
        for (n, runs) in [(3, 3), (0, 1), (1, 1), (9, 9)] {
            check_unrolled(&do_while(n), runs + 1, &format!("do-while {n}"));
        }
    }

    /// A bound that is not constant, a trip count over the limit, and a
    /// break inside the body leave the loop alone.
    #[test]
    fn leaves_other_loops() {
        let runtime_bound = counted("ult", 3, false)
            .to_string()
            .replace("%1:i32 = const 0x3", "%1:i32 = load_global %12");
        let body_break = counted("ult", 3, false).to_string().replace(
            "store_global %10, %16\n",
            "store_global %10, %16\n    if %8 {\n      break %10\n    } else {\n      yield\n    }\n",
        );
        for text in [
            runtime_bound,
            counted("ult", 33, false).to_string(),
            body_break,
        ] {
            let mut s = Shader::parse(&text).unwrap();
            s.validate().unwrap();
            assert!(!s.opt_loop_unroll(), "{text}");
        }
    }
}
