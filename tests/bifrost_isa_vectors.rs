//! Mesa's G52 shader binaries as test vectors for the Bifrost encoding layer:
//! disassembly must equal Mesa's text, assembling Mesa's text must give back
//! the binary, and decoded statistics must match Mesa's shader-db line.

use std::fs;
use std::path::{Path, PathBuf};

use bifrost_vk::compiler::bifrost::disasm;

const SHADERS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/reference/mesa-g52/shaders"
);

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
