//! Varying stores on the simulated GPU: a hand-written IR vertex shader
//! writing gl_Position, gl_PointSize and float/int/uint outputs of 1–4
//! components (two sharing a location at different components), compiled
//! by the Bifrost backend (`store_output` → LEA_ATTR_IMM + ST_CVT), run as a
//! VERTEX job with the varying tables of `jm::varying`, and every byte of
//! every varying buffer compared with what `ir::interp` computes for the
//! same vertices — several vertices and instances, and a job with an
//! `Offset start` (attributes shift, varyings do not). G52 and G72.

#[path = "support/varyings.rs"]
mod varyings;

use bifrost_vk::compiler::bifrost::binary::ShaderBinary;
use bifrost_vk::compiler::bifrost::{Options, compile};
use bifrost_vk::compiler::ir::interp::{DrawState, Memory};
use bifrost_vk::compiler::ir::*;
use bifrost_vk::compiler::passes::lower_io::VaryingSlot;
use bifrost_vk::compiler::passes::{IoLayout, lower_io};
use bifrost_vk::jm::AttributeTables;
use bifrost_vk::jm::varying::VaryingBufferKind;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::SimGpu;
use varyings::{
    VaryingBytes, VaryingJob, attribute_span, attribute_tables, first_difference, run_and_expect,
};

/// Position from attribute `a` and the instance; a float vec4, an ivec3
/// of ids and a signed difference, a uint and a float sharing location 2
/// (components 1 and 3), a uvec2 at location 4 and the point size.
const SHADER: &str = r#"shader vertex "varyings" {
  info local_size 0 0 0 shared 0 push 0
  input "a" location 0 component 0 i32x4
  input "b" location 1 component 0 i32x2
  output "gl_Position" builtin position i32x4
  output "color" location 0 component 0 i32x4
  output "ids" location 1 component 0 i32x3
  output "count" location 2 component 1 i32
  output "scale" location 2 component 3 i32
  output "pair" location 4 component 0 i32x2
  output "psize" builtin point_size i32
  values 26
  %0:i32x4 = load_input location=0 component=0
  %1:i32x2 = load_input location=1 component=0
  %2:i32 = load_sysval sysval=raw_vertex_id
  %3:i32 = load_sysval sysval=instance_id
  %4:i32 = swizzle %0.x
  %5:i32 = swizzle %0.y
  %6:i32 = swizzle %0.z
  %7:i32 = swizzle %0.w
  %8:i32 = u2f %3
  %9:i32 = fadd %4, %8
  %10:i32 = const 0x3f800000
  %11:i32x4 = vec %9, %5, %6, %10
  %12:i32 = fmul %7, %8
  %13:i32x4 = vec %12, %6, %5, %4
  %14:i32 = swizzle %1.x
  %15:i32 = swizzle %1.y
  %16:i32 = isub %14, %15
  %17:i32x3 = vec %2, %3, %16
  %18:i32 = ixor %14, %2
  %19:i32 = u2f %15
  %20:i32x2 = vec %15, %18
  %21:i32 = fadd %19, %10
  %22:i32 = const 0x40000000
  %23:i32 = fmul %21, %22
  %24:i32 = imul %18, %3
  %25:i32 = iadd %24, %14
  store_output output=0 %11
  store_output output=1 %13
  store_output output=2 %17
  store_output output=3 %25
  store_output output=4 %23
  store_output output=5 %20
  store_output output=6 %21
}"#;

/// `s` compiled for `model` with the default options otherwise.
fn compiled(s: &Shader, model: SimModel) -> ShaderBinary {
    let options = Options {
        arch: model.arch().into(),
        ..Options::default()
    };
    compile(s, options).unwrap()
}

/// Runs `binary` (of `s`, which reads no attributes and no uniforms) as a
/// VERTEX job of `vertices` × `instances` on `model`; every varying byte
/// must be what the interpreter implies. Returns the buffers.
fn run_without_inputs(
    s: &Shader,
    io: &IoLayout,
    binary: &ShaderBinary,
    model: SimModel,
    vertices: u32,
    instances: u32,
) -> Vec<VaryingBytes> {
    let mut gpu = SimGpu::new(model);
    let job = VaryingJob {
        shader: s,
        io,
        binary,
        push_uniforms: &[],
        ubos: &[],
        attributes: AttributeTables::default(),
        vertices,
        instances,
        offset_start: 0,
    };
    let (_, bufs) =
        run_and_expect(&mut gpu, &job, &DrawState::default(), &mut Memory::new()).unwrap();
    if let Some(d) = bufs.iter().find_map(first_difference) {
        panic!("{model:?}: {d}");
    }
    bufs
}

/// Attribute `attr`, vertex element `e`, component `c`: small floats for
/// `a`, integers (some negative differences) for `b`.
fn attribute_word(attr: usize, e: u32, c: u32) -> u32 {
    if attr == 0 {
        ((e * 4 + c) as f32 * 0.75 - 3.0).to_bits()
    } else {
        e * 13 + c * 29 + 1
    }
}

#[test]
fn every_output_kind_lands_where_the_layout_says() {
    let mut s = Shader::parse(SHADER).unwrap();
    s.validate().unwrap();
    let io = lower_io(&mut s);
    assert_eq!(
        io.varyings,
        vec![
            (VaryingSlot::Position, 0),
            (VaryingSlot::Generic(0), 0),
            (VaryingSlot::Generic(1), 0),
            (VaryingSlot::Generic(2), 1),
            (VaryingSlot::Generic(2), 3),
            (VaryingSlot::Generic(3), 0),
            (VaryingSlot::PointSize, 0),
        ]
    );
    // (vertices, instances, Offset start): instanced with a padded count
    // (17 → Instance Size 18), instanced unpadded (5), and a shifted start.
    let jobs = [(17u32, 3u32, 0u32), (5, 2, 0), (6, 1, 11)];
    for model in [SimModel::G52, SimModel::G72] {
        let arch = model.arch();
        let binary = compiled(&s, model);
        let words: Vec<(u32, u8)> = binary.varyings.iter().map(|v| (v.index, v.words)).collect();
        assert_eq!(
            words,
            vec![(0, 4), (1, 4), (2, 3), (3, 1), (4, 1), (5, 2), (6, 1)]
        );
        assert_eq!(binary.varying_count(), 7);
        for &(vertices, instances, offset_start) in &jobs {
            let mut gpu = SimGpu::new(model);
            let mut mem = Memory::new();
            let mut state = DrawState::default();
            let (elements, modulus) = attribute_span(vertices, instances, offset_start);
            let attributes = attribute_tables(
                &mut gpu,
                arch,
                &[4, 2],
                elements,
                modulus,
                attribute_word,
                &mut state,
                &mut mem,
            );
            let job = VaryingJob {
                shader: &s,
                io: &io,
                binary: &binary,
                push_uniforms: &[],
                ubos: &[],
                attributes,
                vertices,
                instances,
                offset_start,
            };
            let what = format!("{model:?} {vertices}×{instances} from {offset_start}");
            let (run, bufs) = run_and_expect(&mut gpu, &job, &state, &mut mem)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(run.counters.threads, u64::from(vertices * instances));
            assert_eq!(run.counters.hazards, 0, "{what}");
            let kinds: Vec<_> = bufs.iter().map(|b| (b.kind, b.stride)).collect();
            assert_eq!(
                kinds,
                vec![
                    (VaryingBufferKind::Position, 16),
                    (VaryingBufferKind::PointSize, 4),
                    (VaryingBufferKind::General, 64),
                ],
                "{what}"
            );
            if let Some(d) = bufs.iter().find_map(first_difference) {
                panic!("{what}: {d}");
            }
            // Every vertex wrote its position, point size and the 12 words
            // of generic outputs (slot 2 components 0 and 2 stay as they were).
            let n = (vertices * instances) as usize;
            let written: Vec<usize> = bufs.iter().map(|b| b.written).collect();
            assert!(
                written[0] > 13 * n && written[1] > 3 * n,
                "{what}: {written:?}"
            );
            assert!(written[2] > 40 * n, "{what}: {written:?}");
            // Spot check against hand arithmetic: vertex 1 of the last
            // instance, position.x = a.x + instance, at element
            // 1 + instance × Instance Size (Offset start shifts the input).
            let inst = instances - 1;
            let e = 1 + modulus.map_or(0, |instance_size| inst * instance_size);
            let pos = &bufs[0].got[16 * e as usize..16 * e as usize + 16];
            let x = f32::from_le_bytes(pos[..4].try_into().unwrap());
            let a_x = f32::from_bits(attribute_word(0, 1 + offset_start, 0));
            assert_eq!(x, a_x + inst as f32, "{what}");
            assert_eq!(&pos[12..], &1.0f32.to_le_bytes());
        }
    }
}

/// Records 16 and beyond are addressed with LEA_ATTR (the immediate form
/// has 4 bits): 18 outputs, the last ones written through a register index.
#[test]
fn records_beyond_fifteen_use_lea_attr() {
    let n = 18;
    let mut text = String::from(
        "shader vertex \"many\" {\n  info local_size 0 0 0 shared 0 push 0\n  output \"gl_Position\" builtin position i32x4\n",
    );
    for o in 1..n {
        text += &format!("  output \"o{o}\" location {o} component 0 i32\n");
    }
    text += &format!("  values {}\n", n + 2);
    text += "  %0:i32 = load_sysval sysval=raw_vertex_id\n";
    text += "  %1:i32 = load_sysval sysval=instance_id\n";
    text += "  %2:i32x4 = vec %0, %1, %0, %1\n";
    text += "  store_output output=0 %2\n";
    for o in 1..n {
        text += &format!("  %{}:i32 = const {:#x}\n", o + 2, 0x100 * o);
    }
    for o in 1..n {
        text += &format!("  store_output output={o} %{}\n", o + 2);
    }
    text += "}\n";
    let mut s = Shader::parse(&text).unwrap();
    s.validate().unwrap();
    let io = lower_io(&mut s);
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compiled(&s, model);
        let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code).unwrap();
        assert!(text.contains("LEA_ATTR_IMM"), "{text}");
        assert!(text.contains("+LEA_ATTR."), "{text}");
        let bufs = run_without_inputs(&s, &io, &binary, model, 4, 2);
        // Generic slot 16 (output 17) of vertex 3, instance 1 (element 7).
        let general = &bufs[1];
        let at = 7 * general.stride as usize + 16 * 16;
        assert_eq!(&general.got[at..at + 4], &0x1100u32.to_le_bytes());
    }
}

/// A 64-bit output is stored as its 32-bit halves (low word first, as the
/// interpreter's little-endian bytes), two components filling a slot.
#[test]
fn sixty_four_bit_outputs_are_stored_as_word_pairs() {
    let text = r#"shader vertex "wide" {
  info local_size 0 0 0 shared 0 push 0
  output "gl_Position" builtin position i32x4
  output "d" location 0 component 0 i64x2
  values 8
  %0:i32 = load_sysval sysval=raw_vertex_id
  %1:i32 = load_sysval sysval=instance_id
  %2:i32x4 = vec %0, %1, %0, %1
  %3:i64 = u2u %0
  %4:i64 = const 0x123456789
  %5:i64 = imul %3, %4
  %6:i64 = iadd %5, %4
  %7:i64x2 = vec %5, %6
  store_output output=0 %2
  store_output output=1 %7
}"#;
    let mut s = Shader::parse(text).unwrap();
    s.validate().unwrap();
    let io = lower_io(&mut s);
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compiled(&s, model);
        assert_eq!(binary.varyings[1].words, 4);
        let bufs = run_without_inputs(&s, &io, &binary, model, 6, 2);
        // Vertex 5 of instance 0: 5 × 0x123456789 and that + 0x123456789.
        let g = &bufs[1].got[5 * 16..6 * 16];
        assert_eq!(&g[..8], &(5u64 * 0x1_2345_6789).to_le_bytes());
        assert_eq!(&g[8..], &(6u64 * 0x1_2345_6789).to_le_bytes());
    }
}

/// A varying table shorter than the records the shader writes: the emitter
/// refuses it; and if the binary does not say what it writes, LEA_ATTR of a
/// record past the RSD's `Varying count` faults the job (DATA_INVALID)
/// instead of writing anywhere.
#[test]
fn a_missing_varying_record_faults_the_job() {
    use bifrost_vk::jm::{VaryingLayout, VertexJob, add_vertex_job, write_varying_tables};
    let mut s = Shader::parse(SHADER).unwrap();
    let io = lower_io(&mut s);
    for model in [SimModel::G52, SimModel::G72] {
        let arch = model.arch();
        let binary = compiled(&s, model);
        let mut gpu = SimGpu::new(model);
        let mut state = DrawState::default();
        let mut mem = Memory::new();
        let attributes = attribute_tables(
            &mut gpu,
            arch,
            &[4, 2],
            4,
            None,
            attribute_word,
            &mut state,
            &mut mem,
        );
        let layout = VaryingLayout::new(&binary, &io).unwrap();
        let bufs: Vec<u64> = layout
            .buffers
            .iter()
            .map(|b| gpu.alloc(u64::from(b.stride) * 4).va)
            .collect();
        let mut silent = binary.clone();
        silent.varyings.clear();
        let code = gpu.upload(&binary);
        let r = gpu.run_chain(|chain, pool, arch| {
            let mut varyings = write_varying_tables(pool, arch, &layout, &bufs, 4)?;
            varyings.count = 3;
            let mut job = VertexJob {
                binary: &binary,
                code,
                push_uniforms: &[],
                vertices: 4,
                instances: 1,
                offset_start: 0,
                ubos: &[],
                attributes,
                varyings,
            };
            let refused = add_vertex_job(chain, pool, arch, &job, [0, 0]);
            assert!(refused.is_err(), "the emitter checks the record count");
            job.binary = &silent;
            add_vertex_job(chain, pool, arch, &job, [0, 0]).map(|_| true)
        });
        let e = r.expect_err("the job faults").to_string();
        assert!(e.contains("DATA_INVALID_FAULT"), "{model:?}: {e}");
    }
}

/// Random vertex shaders (`ir::random`: nested ifs and loops, integer
/// arithmetic and division, outputs stored inside branches and loops, some
/// never stored on some paths) through the driver's lowering and the
/// backend, run as VERTEX jobs: every varying byte as the interpreter says.
#[test]
fn random_vertex_shaders_store_what_the_interpreter_stores() {
    use bifrost_vk::compiler::ir::random::{RandomConfig, random_shader};
    use bifrost_vk::compiler::passes::{SysvalBlock, lower_sysvals};
    let cfg = RandomConfig {
        num_outputs: 5,
        floats: false,
        extended: false,
        ..RandomConfig::default()
    };
    let (mut compared, mut skipped) = (0, Vec::new());
    for seed in 0..60u64 {
        let mut s = random_shader(0xA11CE + seed * 7919, &cfg);
        s.lower_vars_to_ssa();
        s.optimize();
        let io = lower_io(&mut s);
        let layout = lower_sysvals(&mut s);
        s.optimize();
        s.compact_values();
        let model = if seed % 3 == 0 {
            SimModel::G72
        } else {
            SimModel::G52
        };
        let binary = match compile(
            &s,
            Options {
                arch: model.arch().into(),
                push_uniform_words: Some(layout.words.len() as u32),
                ..Options::default()
            },
        ) {
            Ok(b) => b,
            Err(bifrost_vk::compiler::bifrost::CompileError::Unsupported(e)) => {
                skipped.push(e);
                continue;
            }
            Err(e) => panic!("seed {seed}: {e}\n{s}"),
        };
        let (vertices, instances, offset_start) = (5 + seed as u32 % 7, 2, 0);
        let sysvals = SysvalBlock {
            raw_vertex_offset: offset_start,
            base_vertex: offset_start,
            base_instance: 3,
            view_index: 0,
            draw_index: 0,
            push_constants_address: 0,
            num_workgroups: [0; 3],
            xfb_params: SysvalBlock::default().xfb_params,
            viewport: [0; 6],
        };
        let words = layout.fill_words(&sysvals, &[]);
        let state = DrawState {
            push_uniforms: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            ..DrawState::default()
        };
        let mut gpu = SimGpu::new(model);
        let job = VaryingJob {
            shader: &s,
            io: &io,
            binary: &binary,
            push_uniforms: &words,
            ubos: &[],
            attributes: AttributeTables::default(),
            vertices,
            instances,
            offset_start,
        };
        let (_, bufs) = run_and_expect(&mut gpu, &job, &state, &mut Memory::new())
            .unwrap_or_else(|e| panic!("seed {seed} on {model:?}: {e}\n{s}"));
        if let Some(d) = bufs.iter().find_map(first_difference) {
            panic!("seed {seed} on {model:?}: {d}\n{s}");
        }
        compared += 1;
    }
    eprintln!("{compared} random vertex shaders compared; skipped: {skipped:?}");
    assert!(compared >= 50, "only {compared} compiled: {skipped:?}");
}
