//! A mutation fuzzer for the whole compiler on the stable toolchain
//! (cargo-fuzz needs nightly, which this project's machines do not have;
//! `fuzz/` holds the libFuzzer target for those that do).
//!
//! ```text
//! cargo run --release --features testing --bin bifrost-fuzz -- \
//!     [--execs N] [--seed S] [--crashes DIR] SEED.spv...
//! ```
//!
//! Each execution mutates a seed module (`testing::fuzz::Mutator`, seeded
//! by `--seed`, so a run is reproducible) and runs every compiler path on
//! it (`testing::fuzz::compile_everything`). A panic is a crash: the input
//! goes to `DIR/crash-<execution>.spv` (default `target/fuzz-crashes`) and
//! the run goes on. An execution taking over 60 s is a hang: its input is
//! written as `hang-<execution>.spv` and the process exits with 3. The
//! last line is `FUZZ execs=N crashes=N hangs=0 fronts=N binaries=N
//! backend_errors=N seconds=N`; the exit status is 1 when anything
//! crashed.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bifrost_vk::testing::fuzz::{Mutator, compile_everything};

const USAGE: &str = "usage: bifrost-fuzz [--execs N] [--seed S] [--crashes DIR] SEED.spv...";
const HANG: Duration = Duration::from_secs(60);

struct Args {
    execs: u64,
    seed: u64,
    crashes: PathBuf,
    seeds: Vec<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        execs: 10_000,
        seed: 1,
        crashes: PathBuf::from("target/fuzz-crashes"),
        seeds: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut number = |what: &str| -> Result<u64, String> {
            it.next()
                .and_then(|n| n.parse().ok())
                .ok_or(format!("{what} needs a number"))
        };
        match a.as_str() {
            "--execs" => args.execs = number("--execs")?,
            "--seed" => args.seed = number("--seed")?,
            "--crashes" => args.crashes = it.next().ok_or("--crashes needs a directory")?.into(),
            _ if a.starts_with("--") => return Err(format!("unknown option {a}")),
            _ => args.seeds.push(a.into()),
        }
    }
    if args.seeds.is_empty() {
        return Err("no seed modules".into());
    }
    Ok(args)
}

fn save(dir: &PathBuf, name: &str, bytes: &[u8]) {
    let path = dir.join(name);
    match std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, bytes)) {
        Ok(()) => eprintln!("  input written to {}", path.display()),
        Err(e) => eprintln!("  cannot write {}: {e}", path.display()),
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut corpus = Vec::new();
    for path in &args.seeds {
        match std::fs::read(path) {
            Ok(b) => corpus.push(b),
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    // Panics are expected to be reported by us, once, not by the hook.
    std::panic::set_hook(Box::new(|_| {}));

    // The watchdog: the current execution's number, start and input.
    let current: Arc<Mutex<(u64, Instant, Vec<u8>)>> =
        Arc::new(Mutex::new((0, Instant::now(), Vec::new())));
    let done = Arc::new(AtomicU64::new(0));
    {
        let current = current.clone();
        let done = done.clone();
        let dir = args.crashes.clone();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_secs(1));
                if done.load(Ordering::Acquire) != 0 {
                    return;
                }
                let c = current.lock().unwrap();
                if c.1.elapsed() > HANG {
                    eprintln!("HANG: execution {} ran over {HANG:?}", c.0);
                    save(&dir, &format!("hang-{}.spv", c.0), &c.2);
                    std::process::exit(3);
                }
            }
        });
    }

    let start = Instant::now();
    let mut m = Mutator::new(args.seed);
    let (mut crashes, mut fronts, mut binaries, mut backend_errors) = (0u64, 0u64, 0u64, 0u64);
    for exec in 0..args.execs {
        let seed = &corpus[m.below(corpus.len())];
        let other = &corpus[m.below(corpus.len())];
        let input = m.mutate(seed, other);
        *current.lock().unwrap() = (exec, Instant::now(), input.clone());
        match std::panic::catch_unwind(|| compile_everything(&input)) {
            Ok(r) => {
                fronts += u64::from(r.fronts);
                binaries += u64::from(r.binaries);
                backend_errors += u64::from(r.backend_errors);
            }
            Err(p) => {
                crashes += 1;
                let what = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                eprintln!("CRASH at execution {exec}: {what}");
                save(&args.crashes, &format!("crash-{exec}.spv"), &input);
            }
        }
        if (exec + 1) % 10_000 == 0 {
            eprintln!(
                "{} execs, {crashes} crashes, {:.0} s",
                exec + 1,
                start.elapsed().as_secs_f64()
            );
        }
    }
    done.store(1, Ordering::Release);
    println!(
        "FUZZ execs={} crashes={crashes} hangs=0 fronts={fronts} binaries={binaries} backend_errors={backend_errors} seconds={:.0}",
        args.execs,
        start.elapsed().as_secs_f64()
    );
    if crashes > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
