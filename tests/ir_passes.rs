//! IR pass tests.
//!
//! - File cases: `tests/ir/<pass>/<name>.ir` hold an input shader, a line
//!   `// ---- expected ----`, and the expected output of running `<pass>`
//!   (`optimize` runs the whole opt loop; `lower_vars_to_ssa+optimize` runs
//!   both). `BLESS=1 cargo test --test ir_passes` rewrites the expectations
//!   with the actual output: review the diff before committing it.
//! - Property tests: random programs (`ir::random`) must validate, survive
//!   print → parse, stay valid after every pass, and compute the same
//!   outputs before and after every pass (checked with a small reference
//!   executor here, built on `ir::eval`, for the subset the generator emits).

use std::path::{Path, PathBuf};

use bifrost_vk::compiler::ir::eval::eval_alu;
use bifrost_vk::compiler::ir::random::{RandomConfig, random_shader};
use bifrost_vk::compiler::ir::*;
use proptest::prelude::*;

#[path = "support/bless.rs"]
mod bless;

const SEPARATOR: &str = "// ---- expected ----";

fn run_pass(s: &mut Shader, name: &str) -> bool {
    match name {
        "lower_vars_to_ssa" => s.lower_vars_to_ssa(),
        "opt_constant_fold" => s.opt_constant_fold(),
        "opt_copy_prop" => s.opt_copy_prop(),
        "opt_dce" => s.opt_dce(),
        "opt_cse" => s.opt_cse(),
        "opt_algebraic" => s.opt_algebraic(),
        "opt_if_merge" => s.opt_if_merge(),
        "opt_peephole_select" => s.opt_peephole_select(),
        "opt_split_div" => s.opt_split_div(),
        "opt_dse" => s.opt_dse(),
        "compact_values" => s.compact_values(),
        "optimize" => s.optimize(),
        "lower_vars_to_ssa+optimize" => s.lower_vars_to_ssa() | s.optimize(),
        _ => panic!("unknown pass directory '{name}'"),
    }
}

const PASSES: &[&str] = &[
    "lower_vars_to_ssa",
    "opt_constant_fold",
    "opt_copy_prop",
    "opt_dce",
    "opt_cse",
    "opt_algebraic",
    "opt_if_merge",
    "opt_peephole_select",
    "opt_split_div",
    "compact_values",
];

fn fixture_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ir");
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&root).expect("tests/ir exists") {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "ir") {
                files.push(f);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn file_cases() {
    let bless = bless::enabled();
    let mut failures = Vec::new();
    let files = fixture_files();
    assert!(!files.is_empty());
    for path in files {
        let pass = path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let (input, expected) = match text.split_once(SEPARATOR) {
            Some((i, e)) => (i, Some(e.trim_start_matches('\n'))),
            None => (&text[..], None),
        };
        let mut s = Shader::parse(input).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Err(e) = s.validate() {
            panic!("{}: input invalid: {e}", path.display());
        }
        run_pass(&mut s, &pass);
        s.validate().unwrap();
        let actual = s.to_string();
        if bless {
            std::fs::write(
                &path,
                format!(
                    "{}{SEPARATOR}\n{actual}",
                    input.trim_end_matches('\n').to_string() + "\n"
                ),
            )
            .unwrap();
            continue;
        }
        match expected {
            Some(e) if e == actual => {}
            _ => failures.push(format!(
                "{}:\n--- expected\n{}\n--- actual\n{actual}",
                path.display(),
                expected.unwrap_or("(none)")
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches (BLESS=1 to accept):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---- reference executor for the generator's subset ----

/// Stores to outputs, in order, and the final output values.
#[derive(Debug, PartialEq)]
struct Trace {
    stores: Vec<(u32, Vec<u64>)>,
}

enum Flow {
    Normal,
    Yield(Vec<Vec<u64>>),
    Break(Vec<Vec<u64>>),
    Continue(Vec<Vec<u64>>),
}

struct Exec<'a> {
    s: &'a Shader,
    vals: Vec<Vec<u64>>,
    vars: Vec<Vec<u64>>,
    sysvals: (u64, u64),
    trace: Trace,
    steps: usize,
}

impl Exec<'_> {
    fn get(&self, v: Value) -> Vec<u64> {
        self.vals[v.index()].clone()
    }

    fn set(&mut self, v: Value, x: Vec<u64>) {
        self.vals[v.index()] = x;
    }

    fn region(&mut self, r: &Region) -> Flow {
        for instr in &r.instrs {
            self.steps += 1;
            assert!(self.steps < 1_000_000, "runaway program");
            let d = instr.dsts.first().copied();
            match &instr.op {
                Op::Const(c) => self.set(d.unwrap(), c.values.to_vec()),
                Op::Undef => {
                    let n = self.s.ty(d.unwrap()).comps as usize;
                    self.set(d.unwrap(), vec![0; n]);
                }
                Op::Alu(a) => {
                    let srcs: Vec<Vec<u64>> = a.srcs.iter().map(|&s| self.get(s)).collect();
                    let refs: Vec<&[u64]> = srcs.iter().map(|v| &v[..]).collect();
                    let tys: Vec<ValueType> = a.srcs.iter().map(|&s| self.s.ty(s)).collect();
                    let r = eval_alu(a.op, self.s.ty(d.unwrap()), &tys, &refs);
                    self.set(d.unwrap(), r);
                }
                Op::Vec(v) => {
                    let r = v.srcs.iter().flat_map(|&s| self.get(s)).collect();
                    self.set(d.unwrap(), r);
                }
                Op::Swizzle(sw) => {
                    let src = self.get(sw.src);
                    let r = sw.comps.iter().map(|&c| src[c as usize]).collect();
                    self.set(d.unwrap(), r);
                }
                Op::Intrinsic(i) => match i.kind {
                    Intrinsic::LoadSysVal(SysVal::VertexIndex) => {
                        self.set(d.unwrap(), vec![self.sysvals.0])
                    }
                    Intrinsic::LoadSysVal(SysVal::InstanceIndex) => {
                        self.set(d.unwrap(), vec![self.sysvals.1])
                    }
                    Intrinsic::StoreOutput { output } => {
                        let v = self.get(i.srcs[0]);
                        self.trace.stores.push((output, v));
                    }
                    Intrinsic::LoadVar { var } => {
                        let v = self.vars[var.0 as usize].clone();
                        self.set(d.unwrap(), v);
                    }
                    Intrinsic::StoreVar { var } => self.vars[var.0 as usize] = self.get(i.srcs[0]),
                    k => panic!("reference executor does not know {k:?}"),
                },
                Op::If(f) => {
                    let c = self.get(f.cond)[0] & 1 != 0;
                    let flow = self.region(if c { &f.then_region } else { &f.else_region });
                    match flow {
                        Flow::Yield(vals) => {
                            for (&d, v) in instr.dsts.iter().zip(vals) {
                                self.set(d, v);
                            }
                        }
                        Flow::Normal => panic!("if branch fell off its end"),
                        other => return other,
                    }
                }
                Op::Loop(l) => {
                    let mut params: Vec<Vec<u64>> = l.inits.iter().map(|&v| self.get(v)).collect();
                    loop {
                        for (&p, v) in l.params.iter().zip(params) {
                            self.set(p, v);
                        }
                        match self.region(&l.body) {
                            Flow::Continue(v) => params = v,
                            Flow::Break(vals) => {
                                for (&d, v) in instr.dsts.iter().zip(vals) {
                                    self.set(d, v);
                                }
                                break;
                            }
                            _ => panic!("loop body fell off its end"),
                        }
                    }
                }
                Op::Yield(v) => {
                    return Flow::Yield(v.values.iter().map(|&x| self.get(x)).collect());
                }
                Op::Break(v) => {
                    return Flow::Break(v.values.iter().map(|&x| self.get(x)).collect());
                }
                Op::Continue(v) => {
                    return Flow::Continue(v.values.iter().map(|&x| self.get(x)).collect());
                }
            }
        }
        Flow::Normal
    }
}

fn execute(s: &Shader, vertex: u64, instance: u64) -> Trace {
    let mut e = Exec {
        s,
        vals: vec![Vec::new(); s.values.len()],
        vars: s
            .vars
            .iter()
            .map(|v| vec![0; v.ty.comps as usize])
            .collect(),
        sysvals: (vertex, instance),
        trace: Trace { stores: Vec::new() },
        steps: 0,
    };
    e.region(&s.body);
    e.trace
}

fn traces(s: &Shader) -> Vec<Trace> {
    [(0, 0), (1, 0), (7, 3), (0xffff_fff0, 1)]
        .iter()
        .map(|&(v, i)| execute(s, v, i))
        .collect()
}

fn check_program(s: &Shader) -> Result<(), TestCaseError> {
    if let Err(e) = s.validate() {
        return Err(TestCaseError::fail(format!("invalid: {e}\n{s}")));
    }
    let text = s.to_string();
    let back = Shader::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    prop_assert_eq!(&back, s, "round trip\n{}", text);
    let before = traces(s);
    for &pass in PASSES {
        let mut t = s.clone();
        run_pass(&mut t, pass);
        if let Err(e) = t.validate() {
            return Err(TestCaseError::fail(format!("{pass}: {e}\n{s}\n{t}")));
        }
        let printed = t.to_string();
        prop_assert_eq!(
            &Shader::parse(&printed).unwrap(),
            &t,
            "round trip after {}",
            pass
        );
        prop_assert!(
            traces(&t) == before,
            "{} changed the results of\n{}\ninto\n{}",
            pass,
            s,
            t
        );
    }
    let mut t = s.clone();
    t.lower_vars_to_ssa();
    t.optimize();
    prop_assert!(t.vars.is_empty());
    let mut has_var_access = false;
    t.body.for_each_instr(&mut |i| {
        has_var_access |= matches!(&i.op, Op::Intrinsic(x) if matches!(x.kind, Intrinsic::LoadVar { .. } | Intrinsic::StoreVar { .. }));
    });
    prop_assert!(!has_var_access);
    prop_assert!(
        traces(&t) == before,
        "the pipeline changed the results of\n{}\ninto\n{}",
        s,
        t
    );
    // The pipeline reaches a fixed point.
    let mut again = t.clone();
    prop_assert!(!again.optimize(), "optimize made progress twice on\n{}", t);
    Ok(())
}

/// 300 cases per property, or `PROPTEST_CASES`.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_ssa_programs(seed in any::<u64>()) {
        check_program(&random_shader(seed, &RandomConfig::default()))?;
    }

    #[test]
    fn random_var_programs(seed in any::<u64>()) {
        let cfg = RandomConfig { use_vars: true, ..RandomConfig::default() };
        check_program(&random_shader(seed, &cfg))?;
    }

    #[test]
    fn random_deep_programs(seed in any::<u64>()) {
        let cfg = RandomConfig { max_depth: 5, max_instrs: 5, use_vars: seed % 2 == 0, ..RandomConfig::default() };
        check_program(&random_shader(seed, &cfg))?;
    }

    #[test]
    fn parser_never_panics(text in "\\PC{0,200}") {
        let _ = Shader::parse(&text);
    }
}

/// Mutated printer output must give an error or a shader, never a panic.
#[test]
fn parser_survives_mutations() {
    let s = random_shader(42, &RandomConfig::default());
    let text = s.to_string();
    let bytes = text.as_bytes();
    for i in (0..bytes.len()).step_by(3) {
        for repl in ["", "%", "}", "{", "x", "9999999999999", "\n", "loop () {"] {
            let mutated = format!("{}{repl}{}", &text[..i], &text[(i + 1).min(text.len())..]);
            if let Ok(m) = Shader::parse(&mutated) {
                let _ = m.validate();
                let _ = m.to_string();
            }
        }
    }
}
