//! Mesa's G52 shader binaries as test vectors for the Bifrost encoding layer:
//! disassembly must equal Mesa's text, assembling Mesa's text must give back
//! the binary, and decoded statistics must match Mesa's shader-db line.

use std::fs;
use std::path::{Path, PathBuf};

use bifrost_vk::compiler::bifrost::disasm;

const SHADERS: &str = bifrost_vk::reference_path!("mesa-g52/shaders");

fn binaries() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(SHADERS)
        .expect("reference shaders")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    v.sort();
    assert!(v.len() >= 25, "expected every .bin, found {}", v.len());
    v
}

fn sibling(bin: &Path, suffix: &str) -> PathBuf {
    let s = bin.to_str().unwrap();
    PathBuf::from(format!("{}{}", s.strip_suffix(".bin").unwrap(), suffix))
}

#[test]
fn disassembly_matches_mesa_exactly() {
    let mut failures = Vec::new();
    for bin in binaries() {
        let code = fs::read(&bin).unwrap();
        let expected = fs::read_to_string(sibling(&bin, ".disasm.txt")).unwrap();
        match disasm::disassemble(&code) {
            Ok(text) if text == expected => {}
            Ok(text) => {
                let line = text
                    .lines()
                    .zip(expected.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                failures.push(format!(
                    "{}: line {}: ours {:?} mesa {:?}",
                    bin.display(),
                    line + 1,
                    text.lines().nth(line),
                    expected.lines().nth(line)
                ));
            }
            Err(e) => failures.push(format!("{}: {e}", bin.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The binary holding each `SHADER-DB` line of a stats file, in line order.
fn variants(stats: &Path) -> Vec<PathBuf> {
    let name = stats.file_name().unwrap().to_str().unwrap();
    let base = name.strip_suffix(".stats.txt").unwrap();
    let dir = stats.parent().unwrap();
    let text = fs::read_to_string(stats).unwrap();
    text.lines()
        .filter(|l| l.starts_with("SHADER-DB:"))
        .map(|l| {
            let file = if l.contains("MESA_SHADER_POSITION") {
                format!("{base}.position.bin")
            } else if l.contains("MESA_SHADER_VARYING") {
                format!("{base}.varying.bin")
            } else if l.contains("MESA_SHADER_FRAGMENT") && base == "vs_mvp" {
                "fs_textured.bin".to_string()
            } else if l.contains("MESA_SHADER_FRAGMENT") && base.starts_with("vs_") {
                format!("{base}.fragment.bin")
            } else {
                format!("{base}.bin")
            };
            dir.join(file)
        })
        .collect()
}

fn field(line: &str, unit: &str) -> usize {
    let words: Vec<&str> = line.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let i = words.iter().position(|w| *w == unit).unwrap();
    words[i - 1].parse().unwrap()
}

#[test]
fn statistics_match_shader_db() {
    let mut checked = 0;
    for entry in fs::read_dir(SHADERS).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_str().unwrap().ends_with(".stats.txt") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("SHADER-DB:"))
            .collect();
        for (line, bin) in lines.iter().zip(variants(&path)) {
            let code = fs::read(&bin).unwrap();
            let s = disasm::stats(&code).unwrap();
            let who = bin.display();
            assert_eq!(s.instructions, field(line, "inst"), "{who}");
            assert_eq!(s.tuples, field(line, "tuples"), "{who}");
            assert_eq!(s.clauses, field(line, "clauses"), "{who}");
            assert_eq!(code.len() / 16, field(line, "quadwords"), "{who}");
            checked += 1;
        }
    }
    assert_eq!(checked, 23);
}

#[test]
fn reencoding_decoded_clauses_gives_mesa_bytes() {
    use bifrost_vk::hw::isa::{decode_shader, encode_clause};
    for bin in binaries() {
        let code = fs::read(&bin).unwrap();
        let mut ours = Vec::new();
        for (offset, clause) in decode_shader(&code).unwrap() {
            assert_eq!(ours.len(), offset * 16, "{}", bin.display());
            ours.extend(encode_clause(&clause).unwrap());
        }
        assert_eq!(ours[..], code[..ours.len()], "{}", bin.display());
        // Per-variant files end in zero padding; combined vertex binaries
        // continue with the varying variant after it.
        let combined = bin.to_str().unwrap().contains("/vs_") && code.len() > ours.len() + 128;
        if !combined {
            assert!(
                code[ours.len()..].iter().all(|&b| b == 0),
                "{}",
                bin.display()
            );
        }
    }
}

#[test]
fn assembling_mesa_text_gives_mesa_bytes() {
    use bifrost_vk::compiler::bifrost::asm;
    let mut failures = Vec::new();
    let mut exact = 0;
    for bin in binaries() {
        let code = fs::read(&bin).unwrap();
        let text = fs::read_to_string(sibling(&bin, ".disasm.txt")).unwrap();
        match asm::assemble(&text) {
            Ok(ours) if ours.len() <= code.len() && ours[..] == code[..ours.len()] => {
                // Everything Mesa printed was reproduced, nothing more.
                assert_eq!(
                    disasm::disassemble(&ours).unwrap(),
                    text,
                    "{}",
                    bin.display()
                );
                exact += 1;
            }
            Ok(ours) => {
                let q = ours
                    .chunks(16)
                    .zip(code.chunks(16))
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                failures.push(format!("{}: first differing quadword {q}", bin.display()));
            }
            Err(e) => failures.push(format!("{}: {e}", bin.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{exact} exact\n{}",
        failures.join("\n")
    );
    // Every vector is reproduced bit for bit (no fallback to decode equality needed).
    assert_eq!(exact, binaries().len());
}

#[test]
fn verbose_disassembly_matches_mesa_exactly() {
    let mut failures = Vec::new();
    for bin in binaries() {
        let code = fs::read(&bin).unwrap();
        let expected = fs::read_to_string(sibling(&bin, ".disasm-verbose.txt")).unwrap();
        let text = disasm::disassemble_verbose(&code).unwrap();
        if text != expected {
            let line = text
                .lines()
                .zip(expected.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            failures.push(format!(
                "{}: line {}: ours {:?} mesa {:?}",
                bin.display(),
                line + 1,
                text.lines().nth(line),
                expected.lines().nth(line)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
