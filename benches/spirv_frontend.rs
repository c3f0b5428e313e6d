//! Per corpus shader (`cargo bench --bench spirv_frontend`):
//! - `parse`: SPIR-V → var-form IR (`spirv::parse`);
//! - `front_half`: SPIR-V → every lowered variant with its layouts
//!   (`compiler::pipeline::compile_front`: parse, SSA, optimize, lower_io,
//!   strip_xfb / lower_xfb, lower_sysvals, optimize, validation after each step);
//! - `to_machine_code`: SPIR-V → Bifrost machine code (the front half, then
//!   `compiler::bifrost::compile`) of every variant the backend compiles
//!   today: compute shaders, and both variants (rasterization, XFB) of
//!   vertex shaders;
//! - `mesa_vectors`: the same for Mesa's G52 vector shaders `vs_ids`,
//!   `vs_mvp` and `cs_loop` (issue 10's targets), read from
//!   `mesa-g52/shaders` of the reference vectors (`bifrost_vk::reference_path!`; skipped when
//!   it is absent).

use std::collections::HashMap;
use std::path::Path;

use bifrost_vk::compiler::bifrost;
use bifrost_vk::compiler::ir::Stage;
use bifrost_vk::compiler::pipeline::{FrontOptions, compile_front, compile_front_with};
use bifrost_vk::compiler::spirv;

fn main() {
    divan::main();
}

const SHADERS: &[&str] = &[
    "angle_xfb_block.vert.spv",
    "angle_xfb_holes.vert.spv",
    "array_length.comp.spv",
    "bitops.comp.spv",
    "buffer_reference.comp.spv",
    "buffer_reference_list.comp.spv",
    "builtins.comp.spv",
    "builtins.frag.spv",
    "builtins.vert.spv",
    "color_varying.frag.spv",
    "conversions.comp.spv",
    "discard_mrt.frag.spv",
    "div_loop.comp.spv",
    "div_loop.vert.spv",
    "dynamic_index.vert.spv",
    "early_return.vert.spv",
    "edge_cases.comp.spv",
    "functions.vert.spv",
    "glsl450_math.comp.spv",
    "int64_double.comp.spv",
    "int64_ops.comp.spv",
    "kill_loop.frag.spv",
    "loops.vert.spv",
    "matrices.vert.spv",
    "push_constants.vert.spv",
    "shared_atomics.comp.spv",
    "short_circuit.vert.spv",
    "spec_constant_op.comp.spv",
    "spec_constants.vert.spv",
    "ssbo_std430.comp.spv",
    "switch.comp.spv",
    "switch_nested_break.comp.spv",
    "texture_array.comp.spv",
    "texture_functions.frag.spv",
    "texture_int.comp.spv",
    "texture_lod.comp.spv",
    "texture_offset.comp.spv",
    "texture_gather.comp.spv",
    "texture_gather_array.comp.spv",
    "texture_gather_dref.comp.spv",
    "texture_shadow.comp.spv",
    "texture_size.comp.spv",
    "texture_sample.frag.spv",
    "ubo_scalar.vert.spv",
    "ubo_std140.vert.spv",
    "vk13_demote.frag.spv",
    "vk13_local_size.comp.spv",
    "vk13_spec_local_size.comp.spv",
    "xfb_all_types.vert.spv",
    "xfb_arrays_matrices.vert.spv",
    "xfb_components.vert.spv",
    "xfb_unwritten.vert.spv",
    "zink_handwritten.vert.spv",
    "zink_xfb_pointsize.vert.spv",
    "zink_xfb_position_clip.vert.spv",
];

fn load(name: &str) -> (Vec<u8>, Stage) {
    let dir = if name.contains('.') {
        "tests/shaders"
    } else {
        bifrost_vk::reference_path!("mesa-g52/shaders")
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(dir)
        .join(if name.contains('.') {
            name.to_string()
        } else {
            format!("{name}.spv")
        });
    let bytes = std::fs::read(&path).expect("corpus shader");
    let stage = if name.contains(".comp") || name.starts_with("cs_") {
        Stage::Compute
    } else if name.contains(".frag") || name.starts_with("fs_") {
        Stage::Fragment
    } else {
        Stage::Vertex
    };
    (bytes, stage)
}

#[divan::bench(args = SHADERS)]
fn parse(bencher: divan::Bencher, name: &str) {
    let (bytes, stage) = load(name);
    let spec = HashMap::new();
    bencher
        .counter(divan::counter::BytesCount::new(bytes.len()))
        .bench(|| spirv::parse(divan::black_box(&bytes), "main", stage, &spec).expect("parses"));
}

#[divan::bench(args = SHADERS)]
fn front_half(bencher: divan::Bencher, name: &str) {
    let (bytes, stage) = load(name);
    let spec = HashMap::new();
    bencher
        .counter(divan::counter::BytesCount::new(bytes.len()))
        .bench(|| compile_front(divan::black_box(&bytes), "main", stage, &spec).expect("lowers"));
}

/// The whole compiler: SPIR-V → the front half → Bifrost machine code of
/// the variants listed in `which` (`true` = the main variant, `false` = the
/// XFB variant). Returns the bytes of code produced.
fn to_machine_code_once(bytes: &[u8], stage: Stage, which: &[bool]) -> Result<usize, String> {
    let spec = HashMap::new();
    // As the driver compiles (contraction, UBO loads through the table).
    let front = compile_front_with(bytes, "main", stage, &spec, FrontOptions::DRIVER)
        .map_err(|e| e.to_string())?;
    let mut code = 0;
    for &main in which {
        let lowered = if main {
            Some(&front.main)
        } else {
            front.xfb.as_ref()
        };
        let lowered = lowered.ok_or("no such variant")?;
        let options = bifrost::Options {
            push_uniform_words: Some(lowered.push_uniforms.fau_words()),
            // As the driver compiles: UBO loads through the UBO table.
            ubo_table: true,
            ..bifrost::Options::default()
        };
        code += bifrost::compile_optimized(&lowered.shader, options)
            .map_err(|e| e.to_string())?
            .code
            .len();
    }
    Ok(code)
}

/// The variants of a corpus shader the backend compiles today (those it
/// rejects fail cleanly — `tests/backend_corpus.rs`).
fn compiled_variants(name: &str) -> Vec<bool> {
    let (bytes, stage) = load(name);
    [true, false]
        .into_iter()
        .filter(|&main| to_machine_code_once(&bytes, stage, &[main]).is_ok())
        .collect()
}

fn backend_shaders() -> Vec<&'static str> {
    SHADERS
        .iter()
        .copied()
        .filter(|name| !compiled_variants(name).is_empty())
        .collect()
}

#[divan::bench(args = backend_shaders())]
fn to_machine_code(bencher: divan::Bencher, name: &str) {
    let (bytes, stage) = load(name);
    let which = compiled_variants(name);
    bencher
        .counter(divan::counter::BytesCount::new(bytes.len()))
        .bench(|| to_machine_code_once(divan::black_box(&bytes), stage, &which).expect("compiles"));
}

/// Mesa's vector shaders the issue sets targets for (SPIR-V → binary).
const MESA_VECTORS: &[&str] = &["vs_ids", "vs_mvp", "cs_loop"];

fn mesa_vectors_present() -> Vec<&'static str> {
    MESA_VECTORS
        .iter()
        .copied()
        .filter(|n| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(bifrost_vk::reference_path!("mesa-g52/shaders"))
                .join(format!("{n}.spv"))
                .exists()
        })
        .collect()
}

#[divan::bench(args = mesa_vectors_present())]
fn mesa_vectors(bencher: divan::Bencher, name: &str) {
    let (bytes, stage) = load(name);
    let which = compiled_variants(name);
    bencher
        .counter(divan::counter::BytesCount::new(bytes.len()))
        .bench(|| to_machine_code_once(divan::black_box(&bytes), stage, &which).expect("compiles"));
}
