//! The `bifrost-shaderdb` tool on a few of Mesa's G52 vector shaders: its
//! per-shader Mesa figures equal the stats files' `SHADER-DB:` lines summed
//! per stage (parsed here independently), ours equal the library's
//! `ShaderStats`, and the last line is the machine-readable TOTAL.

use std::collections::HashMap;
use std::fs;
use std::process::Command;

use bifrost_vk::compiler::bifrost;
use bifrost_vk::compiler::ir::Stage;
use bifrost_vk::compiler::pipeline::compile_front;

const SHADERS: &str = bifrost_vk::reference_path!("mesa-g52/shaders");

/// Σ tuples and Σ clauses of the stats file's lines whose stage is one of `stages`.
fn mesa_sums(name: &str, stages: &[&str]) -> (u64, u64) {
    let text = fs::read_to_string(format!("{SHADERS}/{name}.stats.txt")).unwrap();
    let mut sums = (0, 0);
    for line in text.lines().filter(|l| l.starts_with("SHADER-DB:")) {
        let stage = line.split_whitespace().nth(1).unwrap();
        if !stages.contains(&stage) {
            continue;
        }
        // "SHADER-DB: MESA_SHADER_X shader: 43 inst, 38 tuples, 13 clauses, ..."
        let parts: Vec<&str> = line.split(", ").collect();
        let num = |unit: &str| -> u64 {
            parts
                .iter()
                .find_map(|p| p.strip_suffix(unit))
                .and_then(|p| p.split_whitespace().last())
                .unwrap()
                .parse()
                .unwrap()
        };
        sums.0 += num(" tuples");
        sums.1 += num(" clauses");
    }
    sums
}

/// Our tuples and clauses for the main variant, through the library, as
/// the driver (and the tool) compile it: UBO loads through the UBO table.
fn ours(name: &str, stage: Stage) -> (u64, u64) {
    let bytes = fs::read(format!("{SHADERS}/{name}.spv")).unwrap();
    let front = bifrost_vk::compiler::pipeline::compile_front_with(
        &bytes,
        "main",
        stage,
        &HashMap::new(),
        bifrost_vk::compiler::pipeline::FrontOptions::DRIVER,
    )
    .unwrap();
    let options = bifrost::Options {
        push_uniform_words: Some(front.main.push_uniforms.words.len() as u32),
        ubo_table: true,
        ..bifrost::Options::default()
    };
    let s = bifrost::compile(&front.main.shader, options).unwrap().stats;
    (s.tuples.into(), s.clauses.into())
}

fn total_fields(line: &str) -> HashMap<String, u64> {
    let rest = line.strip_prefix("TOTAL ").expect("TOTAL line");
    rest.split(' ')
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect()
}

#[test]
fn compare_against_mesa_sums_per_stage() {
    let files = [
        "cs_loop.spv",
        "vs_mvp.spv",
        "vs_ids.spv",
        "vs_ids.frag.spv",
        "cs_buffer_reference.spv",
        "fs_textured.spv",
    ];
    let out = Command::new(env!("CARGO_BIN_EXE_bifrost-shaderdb"))
        .arg("--compare")
        .arg(SHADERS)
        .args(["--runs", "1"])
        .args(files.iter().map(|f| format!("{SHADERS}/{f}")))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();

    // Columns of the header: ours, then Mesa's after "| mesa".
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    let mesa_at = header.iter().position(|w| *w == "mesa").unwrap();
    let col = |name: &str, mesa: bool| -> usize {
        let start = if mesa { mesa_at } else { 0 };
        start + header[start..].iter().position(|w| *w == name).unwrap()
    };
    let row = |shader: &str, variant: &str| -> Vec<&str> {
        let l = lines
            .iter()
            .find(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                w.first() == Some(&shader) && w.get(1) == Some(&variant)
            })
            .unwrap_or_else(|| panic!("no row {shader} {variant} in\n{text}"));
        l.split_whitespace().collect()
    };
    let num = |r: &[&str], c: usize| -> u64 { r[c].parse().unwrap() };

    let cases = [
        (
            "cs_loop",
            "compute",
            &["MESA_SHADER_COMPUTE"][..],
            Stage::Compute,
        ),
        (
            "cs_buffer_reference",
            "compute",
            &["MESA_SHADER_COMPUTE"][..],
            Stage::Compute,
        ),
        (
            "vs_mvp",
            "rasterization",
            &["MESA_SHADER_POSITION", "MESA_SHADER_VARYING"][..],
            Stage::Vertex,
        ),
        (
            "vs_ids",
            "rasterization",
            &["MESA_SHADER_POSITION", "MESA_SHADER_VARYING"][..],
            Stage::Vertex,
        ),
    ];
    let mut want = HashMap::<&str, u64>::new();
    for (shader, variant, stages, stage) in cases {
        let r = row(shader, variant);
        let (mt, mc) = mesa_sums(shader, stages);
        assert_eq!(num(&r, col("tuples", true)), mt, "{shader} Mesa tuples");
        assert_eq!(num(&r, col("clauses", true)), mc, "{shader} Mesa clauses");
        let (ot, oc) = ours(shader, stage);
        assert_eq!(num(&r, col("tuples", false)), ot, "{shader} our tuples");
        assert_eq!(num(&r, col("clauses", false)), oc, "{shader} our clauses");
        *want.entry("mesa_tuples").or_default() += mt;
        *want.entry("mesa_clauses").or_default() += mc;
        *want.entry("ours_tuples").or_default() += ot;
        *want.entry("ours_clauses").or_default() += oc;
    }
    // The fragment shaders are compared with the FRAGMENT line of their
    // pipeline's stats file (vs_ids.frag: vs_ids.stats.txt) or their own
    // (fs_textured) and summed too, apart from the line without them.
    let no_frag = want.clone();
    for (shader, stats) in [("vs_ids.frag", "vs_ids"), ("fs_textured", "fs_textured")] {
        let r = row(shader, "fragment");
        let (mt, mc) = mesa_sums(stats, &["MESA_SHADER_FRAGMENT"]);
        assert_eq!(num(&r, col("tuples", true)), mt, "{shader} Mesa tuples");
        assert_eq!(num(&r, col("clauses", true)), mc, "{shader} Mesa clauses");
        let (ot, oc) = ours(shader, Stage::Fragment);
        assert_eq!(num(&r, col("tuples", false)), ot, "{shader} our tuples");
        assert_eq!(num(&r, col("clauses", false)), oc, "{shader} our clauses");
        *want.entry("mesa_tuples").or_default() += mt;
        *want.entry("mesa_clauses").or_default() += mc;
        *want.entry("ours_tuples").or_default() += ot;
        *want.entry("ours_clauses").or_default() += oc;
    }
    let partial = lines
        .iter()
        .find_map(|l| l.strip_prefix("without fragment shaders: "))
        .unwrap_or_else(|| panic!("no line without fragment shaders in\n{text}"));
    for (k, v) in &no_frag {
        assert!(
            partial.contains(&format!("{k}={v} ")),
            "{k}={v} in {partial}"
        );
    }

    let last = lines.last().unwrap();
    let total = total_fields(last);
    assert_eq!(total.len(), 4, "{last}");
    for (k, v) in want {
        assert_eq!(total[k], v, "{k} in {last}");
    }
    assert!(
        last.starts_with("TOTAL ours_tuples=")
            && last.contains(" mesa_tuples=")
            && last.contains(" ours_clauses=")
            && last.contains(" mesa_clauses="),
        "{last}"
    );
}

#[test]
fn without_compare_lists_xfb_variants_and_totals() {
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shaders");
    let out = Command::new(env!("CARGO_BIN_EXE_bifrost-shaderdb"))
        .args(["--runs", "1"])
        .arg(format!("{corpus}/zink_xfb_position_clip.vert.spv"))
        .arg(format!("{corpus}/builtins.comp.spv"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    let variants: Vec<(&str, &str)> = rows
        .iter()
        .filter(|r| r[0] != "TOTAL")
        .map(|r| (r[0], r[1]))
        .collect();
    assert_eq!(
        variants,
        [
            ("zink_xfb_position_clip.vert", "rasterization"),
            ("zink_xfb_position_clip.vert", "xfb"),
            ("builtins.comp", "compute"),
        ]
    );
    let tuples: u64 = rows[..3].iter().map(|r| r[3].parse::<u64>().unwrap()).sum();
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("TOTAL instructions="), "{last}");
    assert!(last.contains(&format!(" tuples={tuples} ")), "{last}");
}

/// `--dump-code` prints every variant's bytes, which equal the library's
/// binary of that variant (through `compile`, the optimising path); `--min`
/// keeps the rows and the TOTAL line as they are.
#[test]
fn dump_code_gives_the_library_bytes() {
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shaders");
    let file = format!("{corpus}/zink_xfb_position_clip.vert.spv");
    let out = Command::new(env!("CARGO_BIN_EXE_bifrost-shaderdb"))
        .args(["--runs", "2", "--min", "--dump-code"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let bytes = fs::read(&file).unwrap();
    let front = compile_front(&bytes, "main", Stage::Vertex, &HashMap::new()).unwrap();
    let mut seen = 0;
    for l in front.variants() {
        let options = bifrost::Options {
            arch: bifrost::Arch::V7,
            push_uniform_words: Some(l.push_uniforms.fau_words()),
            ubo_table: true,
        };
        let code = bifrost::compile(&l.shader, options).unwrap().code;
        let hex: String = code.iter().map(|b| format!("{b:02x}")).collect();
        let want = format!(
            "code zink_xfb_position_clip.vert {} {hex}",
            l.variant.name()
        );
        assert!(
            text.lines().any(|line| line == want),
            "no line {want:.80}… in\n{text}"
        );
        seen += 1;
    }
    assert_eq!(seen, 2, "rasterization and XFB variants");
    assert_eq!(text.lines().filter(|l| l.starts_with("code ")).count(), 2);
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("TOTAL instructions=")
    );
}

/// `--series` follows each row with every run's time in order; the row's
/// time is their median (and with `--min` their shortest).
#[test]
fn series_lists_every_run_and_the_row_is_their_median() {
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shaders");
    let file = format!("{corpus}/zink_xfb_position_clip.vert.spv");
    for (flags, pick) in [
        (&["--runs", "3", "--series"][..], "median"),
        (&["--runs", "4", "--series", "--min"][..], "min"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_bifrost-shaderdb"))
            .args(flags)
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let runs: usize = flags[1].parse().unwrap();
        let mut seen = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let Some(rest) = line.strip_prefix("series ") else {
                continue;
            };
            let f: Vec<&str> = rest.split_whitespace().collect();
            assert_eq!(f[0], "zink_xfb_position_clip.vert", "{line}");
            let times: Vec<f64> = f[2..].iter().map(|t| t.parse().unwrap()).collect();
            assert_eq!(times.len(), runs, "{line}");
            assert!(times.iter().all(|&t| t > 0.0), "{line}");
            // The row it follows names the same variant and ends with the
            // summary time.
            let row: Vec<&str> = lines[i - 1].split_whitespace().collect();
            assert_eq!(row[..2], f[..2], "{}\n{line}", lines[i - 1]);
            let mut sorted = times.clone();
            sorted.sort_by(f64::total_cmp);
            let want = if pick == "min" {
                sorted[0]
            } else {
                sorted[runs / 2]
            };
            let got: f64 = row.last().unwrap().parse().unwrap();
            assert_eq!(got, want, "{}\n{line}", lines[i - 1]);
            seen.push(f[1].to_string());
        }
        assert_eq!(seen, ["rasterization", "xfb"], "{text}");
    }
}
