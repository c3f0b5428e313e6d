//! `bifrost-shaderdb [--compare DIR] [--runs N] [--min] [--series] [--dump-code] [--disasm] FILE.spv...`: shader-db-like
//! statistics of our Bifrost compiler.
//!
//! For every SPIR-V file and every variant the driver compiles (a compute
//! or fragment shader; a vertex shader's rasterization variant and, when it
//! has XFB outputs, its XFB variant) it prints instructions, tuples, clauses,
//! quadwords (Mesa's convention: clauses plus the prefetch padding of
//! `128 − last clause` bytes), work registers, threads per core (2 when
//! ≤ 32 registers, as on v7), spills:fills and the compile time (median over
//! `--runs` compiles, default 5, of SPIR-V → binary for that variant: the
//! whole front half plus the backend of that variant; build with `--release`
//! for meaningful times; `--min` gives the shortest run instead of the
//! median).
//!
//! With `--compare DIR`, Mesa's figures for `NAME.spv` come from
//! `DIR/NAME.stats.txt` (Mesa's shader-db lines, as in the mesa-g52 reference
//! set) and are printed beside ours with the ratios ours/Mesa. Mesa's figures
//! for a shader are the sum of its `SHADER-DB:` lines of that stage: a
//! vertex shader's POSITION and VARYING lines together (compared against our
//! rasterization variant), a compute shader's COMPUTE line, a fragment
//! shader's FRAGMENT line (for `NAME.frag.spv` without its own stats file,
//! the FRAGMENT line of `NAME.stats.txt`, the pipeline it was built in).
//! Every variant is compiled for v7 (Mesa's figures are a G52's), so
//! fragment shaders use message preloads as Mesa's do. A line
//! `without fragment shaders: ours_tuples=N ...` gives the vertex/compute
//! sums alone; the last line is then exactly
//! `TOTAL ours_tuples=N mesa_tuples=N ours_clauses=N mesa_clauses=N` over
//! the shaders both compile, fragment shaders included. Without `--compare` it is
//! `TOTAL instructions=N tuples=N clauses=N quadwords=N spills=N fills=N`
//! over every variant we compile.
//!
//! `--series` adds a line `series NAME VARIANT T1 T2 ... TN` after each
//! row: every run's time in µs, in the order they ran. The first of them is
//! the variant's first compile in the process (for the first file, the
//! compiler's first compile too), so the line shows how a compile speeds
//! up as the caches and branch predictors warm to it.
//!
//! `--dump-code` adds a line `code NAME VARIANT HEX` after each row: the
//! variant's bytes (identical bytes are the proof that a compile-speed
//! change left the code alone). `--disasm` prints each variant's
//! disassembly after its row instead.
//!
//! A shader we do not compile (an unsupported feature) is reported on its
//! row and left out of the totals. Exit status: 0, or 2 on usage errors and
//! unreadable or unparsable files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use ::spirv::ExecutionModel;
use bifrost_vk::compiler::bifrost::{self, binary::ShaderBinary};
use bifrost_vk::compiler::ir::Stage;
use bifrost_vk::compiler::pipeline::{
    FrontOptions, FrontShaders, Variant, compile_front, compile_front_with,
};
use bifrost_vk::compiler::spirv;
use bifrost_vk::hw::isa::decode_shader;

/// One variant's figures, ours or Mesa's.
#[derive(Clone, Copy, Debug, Default)]
struct Figures {
    instructions: u64,
    tuples: u64,
    clauses: u64,
    quadwords: u64,
    /// Ours: work registers. Mesa's lines do not give it.
    registers: Option<u64>,
    threads: u64,
    spills: u64,
    fills: u64,
}

impl Figures {
    fn add(&mut self, o: &Figures) {
        self.instructions += o.instructions;
        self.tuples += o.tuples;
        self.clauses += o.clauses;
        self.quadwords += o.quadwords;
        self.spills += o.spills;
        self.fills += o.fills;
        // Threads of a pair of variants: the fewer.
        self.threads = if self.threads == 0 {
            o.threads
        } else {
            self.threads.min(o.threads)
        };
    }
}

fn ours(binary: &ShaderBinary) -> Figures {
    let s = binary.stats;
    // Mesa counts the variant's size including the prefetch padding after
    // its last clause (128 bytes from that clause's start): last clause's
    // offset in quadwords + 8.
    let quadwords = decode_shader(&binary.code)
        .ok()
        .and_then(|c| c.last().map(|(offset, _)| *offset as u64 + 8))
        .unwrap_or(0);
    Figures {
        instructions: s.instructions.into(),
        tuples: s.tuples.into(),
        clauses: s.clauses.into(),
        quadwords,
        registers: Some(binary.work_registers.into()),
        threads: if binary.work_registers <= 32 { 2 } else { 1 },
        spills: s.spills.into(),
        fills: s.fills.into(),
    }
}

/// The number before `unit` in a shader-db line (`43 inst,`), or the pair of
/// `spills:fills`.
fn field(line: &str, unit: &str) -> Option<u64> {
    let words: Vec<&str> = line.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let i = words.iter().position(|w| *w == unit)?;
    let w = words.get(i.checked_sub(1)?)?;
    // "6.000000 cycles" style fields are not used; counts are integers.
    w.parse().ok()
}

/// Mesa's figures for a shader of `stage`: the sum of the matching
/// `SHADER-DB:` lines of a stats file (None when there is none).
fn mesa_figures(stats: &str, stage: Stage) -> Option<Figures> {
    let wanted: &[&str] = match stage {
        Stage::Vertex => &["MESA_SHADER_POSITION", "MESA_SHADER_VARYING"],
        Stage::Compute => &["MESA_SHADER_COMPUTE"],
        Stage::Fragment => &["MESA_SHADER_FRAGMENT"],
    };
    let mut sum = Figures::default();
    let mut any = false;
    for line in stats.lines().filter(|l| l.starts_with("SHADER-DB:")) {
        if !wanted.iter().any(|w| line.contains(w)) {
            continue;
        }
        let spills_fills = line
            .split([' ', ','])
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .windows(2)
            .find(|p| p[1] == "spills:fills")
            .and_then(|p| p[0].split_once(':'))
            .and_then(|(s, f)| Some((s.parse().ok()?, f.parse().ok()?)));
        let (spills, fills) = spills_fills?;
        sum.add(&Figures {
            instructions: field(line, "inst")?,
            tuples: field(line, "tuples")?,
            clauses: field(line, "clauses")?,
            quadwords: field(line, "quadwords")?,
            registers: None,
            threads: field(line, "threads")?,
            spills,
            fills,
        });
        any = true;
    }
    any.then_some(sum)
}

struct Args {
    compare: Option<PathBuf>,
    runs: usize,
    /// Print each variant's code as hex (to check that a compiler change
    /// leaves the bytes alone).
    dump_code: bool,
    /// Print each variant's disassembly (to read the code we make).
    disasm: bool,
    /// Report the fastest run instead of the median (steadier on a loaded
    /// machine, where other processes preempt some runs).
    min: bool,
    /// Print every run's time in order (the warm-up of a process).
    series: bool,
    files: Vec<PathBuf>,
}

const USAGE: &str = "usage: bifrost-shaderdb [--compare MESA_SHADER_DIR] [--runs N] [--min] [--series] [--dump-code] [--disasm] FILE.spv...";

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        compare: None,
        runs: 5,
        dump_code: false,
        disasm: false,
        min: false,
        series: false,
        files: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--dump-code" => args.dump_code = true,
            "--disasm" => args.disasm = true,
            "--min" => args.min = true,
            "--series" => args.series = true,
            "--compare" => {
                args.compare = Some(it.next().ok_or("--compare needs a directory")?.into())
            }
            "--runs" => {
                args.runs = it
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--runs needs a positive count")?
            }
            _ if a.starts_with("--") => return Err(format!("unknown option {a}")),
            _ => args.files.push(a.into()),
        }
    }
    if args.files.is_empty() {
        return Err(String::new());
    }
    Ok(args)
}

/// `NAME` of `DIR/NAME.spv`.
fn base_name(file: &Path) -> String {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.strip_suffix(".spv")
        .map(str::to_string)
        .unwrap_or(name)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// SPIR-V → binary of one variant, `runs` times; the binary and every
/// run's time, in order.
fn compile_variant(
    bytes: &[u8],
    entry: &str,
    stage: Stage,
    variant: Variant,
    runs: usize,
) -> Result<(ShaderBinary, Vec<Duration>), String> {
    let spec = HashMap::new();
    let once = || -> Result<ShaderBinary, String> {
        // As the driver compiles (contraction, UBO loads through the table).
        let front: FrontShaders =
            compile_front_with(bytes, entry, stage, &spec, FrontOptions::DRIVER)
                .map_err(|e| e.to_string())?;
        let lowered = front
            .variants()
            .find(|l| l.variant == variant)
            .ok_or("no such variant")?;
        let options = bifrost::Options {
            arch: bifrost::Arch::V7,
            push_uniform_words: Some(lowered.push_uniforms.fau_words()),
            // UBO loads through the UBO table, as the driver compiles them.
            ubo_table: true,
        };
        // The front half's output is optimised already (`compile` would
        // give the same code, after a copy and a second optimisation).
        bifrost::compile_optimized(&lowered.shader, options).map_err(|e| e.to_string())
    };
    let mut times = Vec::with_capacity(runs);
    let mut binary = None;
    for _ in 0..runs {
        let start = Instant::now();
        let b = once()?;
        times.push(start.elapsed());
        binary = Some(b);
    }
    Ok((binary.expect("runs > 0"), times))
}

fn cols(f: &Figures) -> String {
    format!(
        "{:>6} {:>6} {:>7} {:>5} {:>4} {:>3} {:>11}",
        f.instructions,
        f.tuples,
        f.clauses,
        f.quadwords,
        f.registers.map_or("-".to_string(), |r| r.to_string()),
        f.threads,
        format!("{}:{}", f.spills, f.fills)
    )
}

fn ratio(a: u64, b: u64) -> String {
    if b == 0 {
        "-".to_string()
    } else {
        format!("{:.2}", a as f64 / b as f64)
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("{e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let compare = args.compare.is_some();
    let head = format!(
        "{:>6} {:>6} {:>7} {:>5} {:>4} {:>3} {:>11}",
        "inst", "tuples", "clauses", "qw", "regs", "thr", "spill:fill"
    );
    if compare {
        println!(
            "{:<28} {:<13} {head} {:>9} | mesa {head} | ratio {:>6} {:>7} {:>6} {:>5}",
            "shader", "variant", "time_us", "tuples", "clauses", "inst", "qw"
        );
    } else {
        println!("{:<28} {:<13} {head} {:>9}", "shader", "variant", "time_us");
    }
    let mut ours_total = Figures::default();
    let mut all_total = Figures::default();
    let mut mesa_total = Figures::default();
    // The same sums over the vertex and compute rows only.
    let mut ours_no_frag = Figures::default();
    let mut mesa_no_frag = Figures::default();
    for file in &args.files {
        let name = base_name(file);
        let bytes = match std::fs::read(file) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{}: {e}", file.display());
                return ExitCode::from(2);
            }
        };
        let entries = match spirv::entry_points(&bytes) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("{}: {e}", file.display());
                return ExitCode::from(2);
            }
        };
        let Some((entry, stage)) = entries.iter().find_map(|(n, m)| match m {
            ExecutionModel::Vertex => Some((n.clone(), Stage::Vertex)),
            ExecutionModel::GLCompute => Some((n.clone(), Stage::Compute)),
            ExecutionModel::Fragment => Some((n.clone(), Stage::Fragment)),
            _ => None,
        }) else {
            let models: Vec<String> = entries.iter().map(|(_, m)| format!("{m:?}")).collect();
            println!(
                "{name:<28} {:<13} skipped: no vertex, fragment or compute entry point ({})",
                "-",
                models.join(", ")
            );
            continue;
        };
        // A pipeline's fragment shader (`vs_ids.frag`, `gfx_triangle.frag`)
        // has its FRAGMENT line in the pipeline's stats file.
        let mesa = match &args.compare {
            Some(dir) => std::fs::read_to_string(dir.join(format!("{name}.stats.txt")))
                .or_else(|e| match name.strip_suffix(".frag") {
                    Some(base) => std::fs::read_to_string(dir.join(format!("{base}.stats.txt"))),
                    None => Err(e),
                })
                .ok()
                .and_then(|text| mesa_figures(&text, stage)),
            None => None,
        };
        let variants: Vec<Variant> = match stage {
            Stage::Compute => vec![Variant::Compute],
            Stage::Fragment => vec![Variant::Fragment],
            Stage::Vertex => {
                // The XFB variant exists when the front half makes one.
                let has_xfb = compile_front(&bytes, &entry, stage, &HashMap::new())
                    .map(|f| f.xfb.is_some())
                    .unwrap_or(false);
                let mut v = vec![Variant::Rasterization];
                if has_xfb {
                    v.push(Variant::Xfb);
                }
                v
            }
        };
        for variant in variants {
            let main = variant != Variant::Xfb;
            match compile_variant(&bytes, &entry, stage, variant, args.runs) {
                Ok((binary, times)) => {
                    let series: Vec<String> = times
                        .iter()
                        .map(|t| format!("{:.1}", t.as_secs_f64() * 1e6))
                        .collect();
                    let time = if args.min {
                        times.iter().copied().min().unwrap_or_default()
                    } else {
                        median(times)
                    };
                    let f = ours(&binary);
                    all_total.add(&f);
                    let us = format!("{:.1}", time.as_secs_f64() * 1e6);
                    let mut line =
                        format!("{name:<28} {:<13} {} {us:>9}", variant.name(), cols(&f));
                    if compare {
                        match (main, &mesa) {
                            (true, Some(m)) => {
                                ours_total.add(&f);
                                mesa_total.add(m);
                                if stage != Stage::Fragment {
                                    ours_no_frag.add(&f);
                                    mesa_no_frag.add(m);
                                }
                                line += &format!(
                                    " | mesa {} | ratio {:>6} {:>7} {:>6} {:>5}",
                                    cols(m),
                                    ratio(f.tuples, m.tuples),
                                    ratio(f.clauses, m.clauses),
                                    ratio(f.instructions, m.instructions),
                                    ratio(f.quadwords, m.quadwords)
                                );
                            }
                            _ => line += " | mesa -",
                        }
                    }
                    println!("{line}");
                    if args.series {
                        println!("series {name} {} {}", variant.name(), series.join(" "));
                    }
                    if args.dump_code {
                        let hex: String = binary.code.iter().map(|b| format!("{b:02x}")).collect();
                        println!("code {name} {} {hex}", variant.name());
                    }
                    if args.disasm {
                        match bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code) {
                            Ok(text) => print!("{text}"),
                            Err(e) => println!("(disassembly failed: {e:?})"),
                        }
                    }
                }
                Err(e) => {
                    let mesa_note = match (&mesa, main) {
                        (Some(m), true) => format!(" | mesa {}", cols(m)),
                        _ => String::new(),
                    };
                    println!(
                        "{name:<28} {:<13} not compiled: {e}{mesa_note}",
                        variant.name()
                    );
                }
            }
        }
    }
    if compare {
        println!(
            "without fragment shaders: ours_tuples={} mesa_tuples={} ours_clauses={} mesa_clauses={} (tuples {} clauses {})",
            ours_no_frag.tuples,
            mesa_no_frag.tuples,
            ours_no_frag.clauses,
            mesa_no_frag.clauses,
            ratio(ours_no_frag.tuples, mesa_no_frag.tuples),
            ratio(ours_no_frag.clauses, mesa_no_frag.clauses)
        );
        println!(
            "ratios over the shaders both compile: tuples {} clauses {} instructions {} quadwords {}",
            ratio(ours_total.tuples, mesa_total.tuples),
            ratio(ours_total.clauses, mesa_total.clauses),
            ratio(ours_total.instructions, mesa_total.instructions),
            ratio(ours_total.quadwords, mesa_total.quadwords)
        );
        println!(
            "TOTAL ours_tuples={} mesa_tuples={} ours_clauses={} mesa_clauses={}",
            ours_total.tuples, mesa_total.tuples, ours_total.clauses, mesa_total.clauses
        );
    } else {
        println!(
            "TOTAL instructions={} tuples={} clauses={} quadwords={} spills={} fills={}",
            all_total.instructions,
            all_total.tuples,
            all_total.clauses,
            all_total.quadwords,
            all_total.spills,
            all_total.fills
        );
    }
    ExitCode::SUCCESS
}
