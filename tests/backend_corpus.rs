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
                    ubo_table: false,
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
/// optimiser's fixed point — in the IR too: another `optimize` makes no
/// progress, though the front half runs one round after each variant's
/// lowering (with and without robust buffer access). Every corpus module (`tests/shaders`, `vk/`, `graphics/`) and
/// every Mesa vector shader, every variant the front half lowers; the code
/// of every variant the backend compiles.
#[test]
fn front_half_output_needs_no_reoptimisation() {
    use bifrost_vk::compiler::bifrost::compile_optimized;
    use bifrost_vk::compiler::pipeline::{FrontOptions, compile_front, compile_front_with};
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders/vk"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders/graphics"),
        Path::new(bifrost_vk::reference_path!("mesa-g52/shaders")).to_path_buf(),
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
    let mut irs = 0;
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        let stage = match spirv::entry_points(&bytes[..]).unwrap().first() {
            Some((_, ::spirv::ExecutionModel::Vertex)) => Stage::Vertex,
            Some((_, ::spirv::ExecutionModel::GLCompute)) => Stage::Compute,
            Some((_, ::spirv::ExecutionModel::Fragment)) => Stage::Fragment,
            _ => continue,
        };
        let Ok(front) = compile_front(&bytes, "main", stage, &HashMap::new()) else {
            continue;
        };
        // The front half runs one round of the passes after each variant's
        // lowering (`Shader::optimize_round`): another finds nothing, with
        // robust buffer access too (its bounds checks and the XFB
        // variant's attribute checks are lowered code as well).
        // Robust access with UBO loads bounds-checked in the IR, and with
        // them left to the UBO table and products contracted (the
        // driver's choice).
        let robust = FrontOptions {
            robust_buffer_access: true,
            ubo_table: false,
            contract: false,
        };
        let robust_front = compile_front_with(&bytes, "main", stage, &HashMap::new(), robust)
            .unwrap_or_else(|e| panic!("{}: robust: {e}", file.display()));
        let table = FrontOptions {
            robust_buffer_access: true,
            ..FrontOptions::DRIVER
        };
        let table_front = compile_front_with(&bytes, "main", stage, &HashMap::new(), table)
            .unwrap_or_else(|e| panic!("{}: robust, as the driver: {e}", file.display()));
        for (lowered, how) in front
            .variants()
            .map(|l| (l, ""))
            .chain(robust_front.variants().map(|l| (l, ", robust")))
            .chain(
                table_front
                    .variants()
                    .map(|l| (l, ", robust, as the driver")),
            )
        {
            assert!(
                !lowered.shader.clone().optimize(),
                "{} ({}{how}): a second round of the passes made progress",
                file.display(),
                lowered.variant.name()
            );
            irs += 1;
        }
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
    assert!(irs >= 140, "only {irs} variants lowered");
}

/// Our fragment shaders against Mesa's for the same SPIR-V (the G52
/// reference set): the tile-buffer epilogue must be built the same way.
/// Mesa loads varyings through RSD message preloads and we with LD_VAR,
/// so varying clauses are left out; what must agree, read from Mesa's
/// binaries with our decoder: the order of the ATEST and BLEND messages,
/// their FAU slots (ATEST datum, blend descriptor 0) and destinations
/// (r60, r48), BLEND ending the last clause (`eos`), `td` on every clause,
/// and the header of the clause before BLEND (waits, no prefetch, next
/// message type). Skipped without the reference vectors.
#[test]
fn fragment_epilogue_matches_mesa() {
    use bifrost_vk::compiler::pipeline::compile_front;
    use bifrost_vk::hw::isa::{DecodedClause, decode_shader};
    let root = Path::new(bifrost_vk::reference_path!("mesa-g52"));
    let pairs = [
        (
            "graphics/shaders/gfx_triangle.frag.spv",
            "graphics/shaders/gfx_triangle.frag.bin",
        ),
        ("shaders/vs_ids.frag.spv", "shaders/vs_ids.fragment.bin"),
        (
            "shaders/vs_attribs.frag.spv",
            "shaders/vs_attribs.fragment.bin",
        ),
        (
            "shaders/vs_instanced_ssbo.frag.spv",
            "shaders/vs_instanced_ssbo.fragment.bin",
        ),
    ];
    if !root.join(pairs[0].0).exists() {
        eprintln!("skipped: no {}", root.display());
        return;
    }
    /// (message type, FAU index, destination) of each tile-buffer message.
    fn epilogue(clauses: &[(usize, DecodedClause)]) -> Vec<(u8, u8, Option<u8>)> {
        let mut out = Vec::new();
        for (_, c) in clauses {
            for t in &c.tuples {
                if matches!(t.add.name(), "ATEST" | "BLEND") {
                    out.push((
                        c.header.message_type,
                        t.regs.fau_idx,
                        t.add.dest.map(|d| d.reg),
                    ));
                }
            }
        }
        out
    }
    /// The headers that must agree: every clause's `td`, the last clause's
    /// flow and message, and the clause before it.
    fn headers(clauses: &[(usize, DecodedClause)]) -> (bool, u8, u8, (u8, u8, bool)) {
        let n = clauses.len();
        let last = &clauses[n - 1].1.header;
        let before = &clauses[n - 2].1.header;
        (
            clauses
                .iter()
                .all(|(_, c)| c.header.terminate_discarded_threads),
            last.flow_control,
            last.message_type,
            (
                before.dependency_wait,
                before.next_message_type,
                before.next_clause_prefetch,
            ),
        )
    }
    for (spv, bin) in pairs {
        let bytes = std::fs::read(root.join(spv)).unwrap();
        let front = compile_front(&bytes, "main", Stage::Fragment, &HashMap::new())
            .unwrap_or_else(|e| panic!("{spv}: {e}"));
        let ours = compile(
            &front.main.shader,
            Options {
                push_uniform_words: Some(front.main.push_uniforms.words.len() as u32),
                ..Options::default()
            },
        )
        .unwrap_or_else(|e| panic!("{spv}: {e}"));
        let ours = decode_shader(&ours.code).unwrap();
        let mesa = decode_shader(&std::fs::read(root.join(bin)).unwrap()).unwrap();
        assert_eq!(epilogue(&ours), epilogue(&mesa), "{spv}");
        assert_eq!(headers(&ours), headers(&mesa), "{spv}");
        // The last instruction of both is the BLEND.
        for c in [&ours, &mesa] {
            let t = c.last().unwrap().1.tuples.last().unwrap();
            assert_eq!(t.add.name(), "BLEND", "{spv}");
        }
    }
}
