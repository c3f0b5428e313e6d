//! The SPIR-V front end against the GLSL corpus in tests/shaders/.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use bifrost_vk::compiler::ir::*;
use bifrost_vk::compiler::spirv::{self, SpecConstants, SpirvError};

fn shader_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders")
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(shader_dir())
        .expect("tests/shaders exists")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "spv"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

fn stage_of(name: &str) -> Stage {
    if name.contains(".comp") {
        Stage::Compute
    } else {
        Stage::Vertex
    }
}

fn load(name: &str) -> Vec<u8> {
    std::fs::read(shader_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn parse_with(name: &str, spec: &SpecConstants) -> Result<Shader, SpirvError> {
    spirv::parse(&load(name), "main", stage_of(name), spec)
}

fn parse(name: &str) -> Shader {
    parse_with(name, &HashMap::new()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_corpus_shader_parses() {
    let corpus = corpus();
    assert!(corpus.len() >= 25, "corpus has {} modules", corpus.len());
    let mut failures = Vec::new();
    for (name, bytes) in &corpus {
        match spirv::parse(bytes, "main", stage_of(name), &HashMap::new()) {
            Ok(s) => assert!(s.instr_count() > 0, "{name}: empty body"),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
