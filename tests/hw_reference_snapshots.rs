//! Our job-chain printer (`hw::decode`, `bifrost-dump`) against Mesa's
//! pandecode listings of the PanVk job-chain snapshots among the reference
//! vectors (docs/DESIGN.md "The reference vectors").
//!
//! - `jc_null_write_value`: the whole listing is equal, byte for byte (the two
//!   `//` lines the harness wrote are skipped).
//! - `jc_null_write_value_bad`: same stdout, and the reserved-bit report equals
//!   the recorded stderr.
//! - `cs_ubo_push`, `cs_ssbo_vec4`, `cs_shared_barrier` (PanVk compute jobs):
//!   both listings are parsed into (job, section path, field, value) triples
//!   and compared for every section: Job Header; Local Storage; State with
//!   Shader, Properties, Depth units/factor/bias clamp, Multisample Misc,
//!   Stencil Mask Misc, Stencil front/back, Preload and Secondary preload
//!   (Compute, Vertex, Fragment views), Secondary shader, Message Preload 1/2
//!   (LD_VAR, VAR_TEX views); the Uniform Buffer lines (`ubuf_N[size] = ...`,
//!   with pandecode's null-pointer comment); the push-uniform line
//!   (`vec4 uniforms[N] = memory_<va> + <offset>`); Vertex Job Payload with the
//!   `Invocation (x, y, z) x (x, y, z)` summary, Invocation, Vertex Job
//!   Parameters and Draw. On top of that, the text outside the shader
//!   disassembly is compared exactly.
//!   With our disassembler plugged in (as `bifrost-dump` does), the whole
//!   listing, shader disassembly included, equals pandecode's byte for
//!   byte. These snapshots hold no
//!   attributes, varyings, textures, samplers, tiler or fragment jobs, so
//!   those printers are only covered by unit tests.
//! - Packing: building `cs_ssbo_vec4`'s job, Renderer State and Local Storage
//!   and `cs_shared_barrier`'s Local Storage with our tables reproduces
//!   PanVk's bytes word for word.

use std::process::Command;

use bifrost_vk::hw::decode::{Options, decode_snapshot};
use bifrost_vk::hw::snapshot::Snapshot;

const DIR: &str = bifrost_vk::reference_path!("mesa-g52/jobchains/");

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}{name}")).unwrap()
}

/// pandecode's listing without the two harness lines.
fn reference(name: &str) -> String {
    let text = read(&format!("{name}.pandecode.txt"));
    text.lines()
        .skip_while(|l| l.starts_with("// pandecode_jc") || l.starts_with("// job chain"))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn ours(name: &str) -> (String, String) {
    let snap = Snapshot::parse(&std::fs::read(format!("{DIR}{name}.snap")).unwrap()).unwrap();
    let (listing, result) = decode_snapshot(&snap, &Options::default());
    result.unwrap();
    (listing.text, listing.errors)
}

#[test]
fn null_write_value_matches_exactly() {
    let (text, errors) = ours("jc_null_write_value");
    assert_eq!(text, reference("jc_null_write_value"));
    assert_eq!(errors, "");
}

#[test]
fn null_write_value_bad_reports_the_reserved_bit() {
    let (text, errors) = ours("jc_null_write_value_bad");
    assert_eq!(text, reference("jc_null_write_value_bad"));
    assert_eq!(errors, read("jc_null_write_value_bad.pandecode.stderr.txt"));
}

/// One `Field: value` line: (job ordinal, section path, field, value), or a
/// free-standing line (`vec4 uniforms[...]`, `ubuf_0[...]`, `// XXX ...`)
/// with an empty field.
type Triple = (usize, String, String, String);

/// Parse a pandecode-style listing, skipping shader disassembly blocks.
fn triples(text: &str) -> Vec<Triple> {
    let mut out = Vec::new();
    let mut job = 0;
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut in_shader = false;
    for line in text.lines() {
        if line.starts_with("Shader <host-ptr>") {
            in_shader = true;
            continue;
        }
        if in_shader {
            if line == "State:" {
                in_shader = false;
            } else {
                continue;
            }
        }
        if line.trim().is_empty() {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let body = line.trim_start();
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        if body.starts_with("Job Header (") {
            job += 1;
        }
        let path = stack
            .iter()
            .map(|(_, s)| s.as_str())
            .collect::<Vec<_>>()
            .join("/");
        if let Some(heading) = body.strip_suffix(':') {
            stack.push((indent, heading.to_string()));
        } else if let Some((field, value)) = body.split_once(": ") {
            out.push((job, path, field.to_string(), value.to_string()));
        } else {
            out.push((job, path, String::new(), body.to_string()));
        }
    }
    out
}

fn compare_panvk(name: &str) {
    let (text, errors) = ours(name);
    assert_eq!(errors, "", "{name}: reserved bits reported");
    let theirs = triples(&reference(name));
    let mine = triples(&text);
    assert!(theirs.len() > 150, "{name}: parsed too little");
    for (i, (a, b)) in theirs.iter().zip(&mine).enumerate() {
        assert_eq!(a, b, "{name}: triple {i} differs");
    }
    assert_eq!(theirs.len(), mine.len(), "{name}: number of triples");
    // Sections we claim to compare are really there.
    for section in [
        "Job Header (",
        "Local Storage",
        "State/Shader",
        "State/Properties",
        "State/Preload/Compute",
        "State/Message Preload 1/LD_VAR",
        "Vertex Job Payload/Invocation",
        "Vertex Job Payload/Vertex Job Parameters",
        "Vertex Job Payload/Draw",
    ] {
        assert!(
            mine.iter().any(|(_, p, _, _)| p.starts_with(section)),
            "{name}: no {section}"
        );
    }
    assert!(
        mine.iter()
            .any(|(_, _, f, v)| f.is_empty() && v.starts_with("vec4 uniforms["))
    );

    // Exact text outside the disassembly.
    let strip = |t: &str| -> String {
        let mut out = String::new();
        let mut skip = false;
        for line in t.lines() {
            if line.starts_with("Shader <host-ptr>") {
                out += line;
                out += "\n";
                skip = true;
            } else if line == "State:" {
                skip = false;
            }
            if !skip {
                out += line;
                out += "\n";
            }
        }
        out
    };
    assert_eq!(strip(&text), strip(&reference(name)), "{name}: text");
}

/// The listing with shaders disassembled by `compiler::bifrost::disasm`.
fn ours_disassembled(name: &str) -> String {
    let snap = Snapshot::parse(&std::fs::read(format!("{DIR}{name}.snap")).unwrap()).unwrap();
    let disasm = |code: &[u8]| bifrost_vk::compiler::bifrost::disasm::disassemble(code).unwrap();
    let opts = Options {
        disassemble: Some(&disasm),
    };
    let (listing, result) = decode_snapshot(&snap, &opts);
    result.unwrap();
    listing.text
}

#[test]
fn full_listings_with_shader_disassembly_equal_pandecode() {
    for name in ["cs_ubo_push", "cs_ssbo_vec4", "cs_shared_barrier"] {
        let ours = ours_disassembled(name);
        assert!(ours.contains("clause_0:\n"), "{name}: no disassembly");
        assert_eq!(ours, reference(name), "{name}");
    }
}

#[test]
fn cs_ubo_push_agrees_with_pandecode() {
    compare_panvk("cs_ubo_push");
}

#[test]
fn cs_ssbo_vec4_agrees_with_pandecode() {
    compare_panvk("cs_ssbo_vec4");
}

#[test]
fn cs_shared_barrier_agrees_with_pandecode() {
    compare_panvk("cs_shared_barrier");
}

#[test]
fn the_parser_sees_differences() {
    let text = reference("cs_shared_barrier");
    let changed = text.replace("WLS Size Scale: 9", "WLS Size Scale: 8");
    assert_ne!(triples(&text), triples(&changed));
}

#[test]
fn dump_tool_prints_the_listing_and_reports_reserved_bits() {
    let exe = env!("CARGO_BIN_EXE_bifrost-dump");
    let ok = Command::new(exe)
        .arg(format!("{DIR}jc_null_write_value.snap"))
        .output()
        .unwrap();
    assert!(ok.status.success());
    assert_eq!(
        String::from_utf8(ok.stdout).unwrap(),
        reference("jc_null_write_value")
    );
    let bad = Command::new(exe)
        .arg(format!("{DIR}jc_null_write_value_bad.snap"))
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(bad.stderr).unwrap(),
        read("jc_null_write_value_bad.pandecode.stderr.txt")
    );
    let missing = Command::new(exe).arg("/nonexistent.snap").output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
}

/// The emitter's side: packing `cs_ssbo_vec4`'s descriptors with our tables
/// from the values in pandecode's listing reproduces PanVk's bytes.
#[test]
fn packing_reproduces_panvk_descriptors() {
    use bifrost_vk::hw::compute::WorkSize;
    use bifrost_vk::hw::decode::{read_descriptor, read_words};
    use bifrost_vk::hw::job::{JobType, header};
    use bifrost_vk::hw::shader::{REGISTERS_32_PER_THREAD, compute_preload, renderer_state};
    use bifrost_vk::hw::{Arch, layouts};

    let snap = Snapshot::parse(&std::fs::read(format!("{DIR}cs_ssbo_vec4.snap")).unwrap()).unwrap();
    let l = layouts(Arch::V7);
    let jc = snap.jc;

    // The job: header, invocation, parameters, draw.
    let agg = l.compute_job;
    let mut job = agg.defaults();
    header::TYPE.set(&mut job, JobType::Compute as u64).unwrap();
    header::INDEX.set(&mut job, 1).unwrap();
    let ws = WorkSize {
        size: [16, 4, 1],
        count: [1, 1, 1],
    };
    agg.section("Invocation")
        .unwrap()
        .words_mut(&mut job)
        .copy_from_slice(&ws.pack_compute().unwrap());
    l.compute_job_parameters
        .set(
            agg.section("Parameters").unwrap().words_mut(&mut job),
            "Job Task Split",
            u64::from(ws.compute_job_task_split()),
        )
        .unwrap();
    let draw = l
        .draw
        .build(&[
            ("Push uniforms", 0xf7fd_1020),
            ("State", 0xf7ff_7000),
            ("Thread Storage", 0xf7fd_1000),
        ])
        .unwrap();
    agg.section("Draw")
        .unwrap()
        .words_mut(&mut job)
        .copy_from_slice(&draw);
    let theirs = read_words(&snap, jc, agg.bytes / 4).unwrap();
    assert_eq!(job, theirs);

    // The renderer state.
    let mut rsd = l.renderer_state.defaults();
    renderer_state::SHADER_ADDRESS
        .set(&mut rsd, 0xf7ff_b000)
        .unwrap();
    l.renderer_state
        .set(
            &mut rsd,
            "Properties.Shader register allocation",
            REGISTERS_32_PER_THREAD,
        )
        .unwrap();
    let preload = renderer_state::PRELOAD.start;
    for f in [
        compute_preload::LOCAL_INVOCATION_XY,
        compute_preload::WORK_GROUP_X,
        compute_preload::WORK_GROUP_Y,
    ] {
        f.at(preload).set(&mut rsd, 1).unwrap();
    }
    renderer_state::PRELOAD_UNIFORM_COUNT
        .set(&mut rsd, 4)
        .unwrap();
    assert_eq!(
        rsd,
        read_descriptor(&snap, 0xf7ff_7000, l.renderer_state).unwrap()
    );

    // The thread storage: defaults (no TLS, no workgroup memory).
    assert_eq!(
        l.local_storage.defaults(),
        read_descriptor(&snap, 0xf7fd_1000, l.local_storage).unwrap()
    );
}

/// Workgroup-local storage and the barrier flag of `cs_shared_barrier`.
#[test]
fn packing_reproduces_panvk_local_storage() {
    use bifrost_vk::hw::decode::read_descriptor;
    use bifrost_vk::hw::shader::renderer_state;
    use bifrost_vk::hw::storage::local_storage;
    use bifrost_vk::hw::{Arch, layouts};

    let snap =
        Snapshot::parse(&std::fs::read(format!("{DIR}cs_shared_barrier.snap")).unwrap()).unwrap();
    let l = layouts(Arch::V7);
    let ls = l
        .local_storage
        .build(&[
            ("WLS Instances", 1),
            ("WLS Size Scale", 9),
            ("WLS Base Pointer", 0xf7fc_3000),
        ])
        .unwrap();
    assert_eq!(
        ls,
        read_descriptor(&snap, 0xf7fd_3000, l.local_storage).unwrap()
    );
    assert_eq!(local_storage::WLS_INSTANCES.get(&ls), 1);
    let rsd = read_descriptor(&snap, 0xf7ff_7000, l.renderer_state).unwrap();
    assert_eq!(renderer_state::SHADER_CONTAINS_BARRIER.get(&rsd), 1);
}

/// PanVk's graphics chains (IDVS/VERTEX/TILER, FRAGMENT, MFBD, render
/// targets, ZS/CRC, tiler context and heap, blend, textures and samplers
/// of six render passes) print exactly as pandecode printed them, shaders
/// disassembled: every table they use comes from genxml (`hw::genxml`).
#[test]
fn graphics_chains_print_as_pandecode_did() {
    let dir = bifrost_vk::reference_path!("mesa-g52/graphics/jobchains/");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".snap").map(str::to_string)
        })
        .collect();
    names.sort();
    assert_eq!(names.len(), 10, "{names:?}");
    let disasm = |code: &[u8]| bifrost_vk::compiler::bifrost::disasm::disassemble(code).unwrap();
    let mut all = String::new();
    for name in names {
        let snap = Snapshot::parse(&std::fs::read(format!("{dir}{name}.snap")).unwrap()).unwrap();
        let opts = Options {
            disassemble: Some(&disasm),
        };
        let (listing, result) = decode_snapshot(&snap, &opts);
        result.unwrap();
        let want: String = std::fs::read_to_string(format!("{dir}{name}.pandecode.txt"))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("//"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(listing.text, want, "{name}");
        assert_eq!(listing.errors, "", "{name}");
        all += &listing.text;
    }
    // What the listings cover: the descriptors issue 9 builds on.
    for heading in [
        "Tiler Job Payload:",
        "Fragment Job Payload:",
        "Framebuffer @",
        "Color Render Targets @",
        "ZS CRC Extension:",
        "Tiler Heap:",
        "Primitive:",
        "Vertex Draw:",
        "Equation:",
        "Texture:",
    ] {
        assert!(all.contains(heading), "{heading}");
    }
}
