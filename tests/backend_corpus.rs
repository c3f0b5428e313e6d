//! The GLSL corpus (`tests/shaders/*.spv`) through the whole compiler:
//! SPIR-V front end → driver lowering (`lower_io`, the rasterization
//! variant of every vertex shader and the XFB variant of those with
//! captured outputs, `lower_sysvals`) → Bifrost backend.
//! Every shader the backend accepts must decode with `hw::isa` and
//! disassemble to text that assembles back to the same bytes; every one it
//! rejects must be a clean `CompileError::Unsupported` (never a panic, an
//! encoding failure or malformed IR). The driver's own GPU kernels
//! (`compiler::kernels::all`) must compile for v6 and v7 and round-trip the
//! same way. `--nocapture` prints the table.

use std::collections::HashMap;
use std::path::Path;

use bifrost_vk::compiler::bifrost::{CompileError, Options, asm, compile, disasm};
use bifrost_vk::compiler::ir::*;
use bifrost_vk::compiler::passes::{lower_io, lower_sysvals, lower_xfb};
use bifrost_vk::compiler::spirv;

#[test]
fn corpus_compiles_or_is_cleanly_unsupported() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/shaders")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".spv"))
        .collect();
    names.sort();
    let (mut ok, mut unsupported, mut bugs) = (0, 0, Vec::new());
    for name in &names {
        let stage = if name.contains(".comp") {
            Stage::Compute
        } else if name.contains(".frag") {
            Stage::Fragment
        } else {
            Stage::Vertex
        };
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let Ok(mut s) = spirv::parse(&bytes[..], "main", stage, &HashMap::new()) else {
            continue; // the front end's own tests cover its rejections
        };
        lower_io(&mut s);
        // A vertex shader with captured outputs makes two programs: the
        // rasterization variant (varying stores, XFB decorations stripped)
        // and the XFB variant; both must compile or fail cleanly.
        let mut programs = Vec::new();
        if stage == Stage::Vertex {
            let mut raster = s.clone();
            raster.strip_xfb();
            if lower_xfb(&mut s) {
                programs.push((raster, "rasterizer"));
                programs.push((s, "XFB variant"));
            } else {
                programs.push((raster, ""));
            }
        } else {
            programs.push((s, ""));
        }
        for (mut s, what) in programs {
            lower_sysvals(&mut s);
            match compile(&s, Options::default()) {
                Ok(bin) => {
                    let body = &bin.code[..bin.code.len() - 128];
                    bifrost_vk::hw::isa::decode_shader(&bin.code)
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                    let text = disasm::disassemble(&bin.code).unwrap();
                    assert!(asm::assemble(&text).unwrap() == body, "{name}: round trip");
                    let st = bin.stats;
                    eprintln!(
                        "{name:34} {what:11} ok: {:4} instr {:4} tuples {:3} clauses {:.2}/tuple {:2} regs",
                        st.instructions,
                        st.tuples,
                        st.clauses,
                        st.tuple_fullness(),
                        bin.work_registers
                    );
                    ok += 1;
                }
                Err(CompileError::Unsupported(why)) => {
                    eprintln!("{name:34} {what:11} unsupported: {why}");
                    unsupported += 1;
                }
                Err(e) => bugs.push(format!("{name}: {e}")),
            }
        }
    }
    eprintln!("{ok} compiled, {unsupported} unsupported");
    assert!(bugs.is_empty(), "{}", bugs.join("\n"));
    assert!(ok > 0);
}

#[test]
fn driver_kernels_compile_and_round_trip() {
    use bifrost_vk::hw::Arch;
    for k in bifrost_vk::compiler::kernels::all() {
        let name = &k.shader.info.name;
        k.shader
            .validate()
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        for arch in [Arch::V6, Arch::V7] {
            let bin = compile(
                &k.shader,
                Options {
                    arch: arch.into(),
                    push_uniform_words: Some(k.words),
                },
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            let body = &bin.code[..bin.code.len() - 128];
            bifrost_vk::hw::isa::decode_shader(&bin.code).unwrap_or_else(|e| panic!("{name}: {e}"));
            let text = disasm::disassemble(&bin.code).unwrap();
            assert!(asm::assemble(&text).unwrap() == body, "{name}: round trip");
            let st = bin.stats;
            eprintln!(
                "{name:20} {arch:?}: {:4} instr {:4} tuples {:3} clauses {:2} regs",
                st.instructions, st.tuples, st.clauses, bin.work_registers
            );
        }
    }
}

/// `compile_optimized` (no copy, no passes) gives the front half's variants
/// the same code as `compile` (which runs `lower_vars_to_ssa` and
/// `optimize` on a copy first): the front half's output is already at the
/// optimiser's fixed point. Every corpus module and every Mesa vector
/// shader, every variant the backend compiles.
#[test]
fn front_half_output_needs_no_reoptimisation() {
    use bifrost_vk::compiler::bifrost::compile_optimized;
    use bifrost_vk::compiler::pipeline::compile_front;
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/mesa-g52/shaders"),
    ] {
        let mut v: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "spv"))
            .collect();
        v.sort();
        files.extend(v);
    }
    let mut compared = 0;
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        let stage = match spirv::entry_points(&bytes[..]).unwrap().first() {
            Some((_, ::spirv::ExecutionModel::Vertex)) => Stage::Vertex,
            Some((_, ::spirv::ExecutionModel::GLCompute)) => Stage::Compute,
            _ => continue,
        };
        let Ok(front) = compile_front(&bytes, "main", stage, &HashMap::new()) else {
            continue;
        };
        for lowered in front.variants() {
            let options = Options {
                push_uniform_words: Some(lowered.push_uniforms.fau_words()),
                ..Options::default()
            };
            let full = compile(&lowered.shader, options);
            let direct = compile_optimized(&lowered.shader, options);
            assert_eq!(
                full,
                direct,
                "{} ({})",
                file.display(),
                lowered.variant.name()
            );
            compared += usize::from(full.is_ok());
        }
    }
    assert!(compared >= 50, "only {compared} variants compiled");
}
