//! VERTEX jobs on the simulated GPU: Mesa's `vs_attribs` varying shader
//! (LD_ATTR of float/uint/int attributes, LEA_ATTR + ST_CVT stores of
//! float/uint/int varyings) over 5 vertices × 2 instances, built with the
//! `jm` vertex emitter and the `hw` attribute tables, checked against the
//! GLSL on v7 and v6 (whose attribute format words differ).

use bifrost_vk::compiler::bifrost::binary::{Preloads, ShaderBinary};
use bifrost_vk::hw::attribute::{attribute_buffer as ab, attribute_desc as ad, attribute_type};
use bifrost_vk::hw::format::{ComponentType as C, VertexFormat};
use bifrost_vk::hw::layouts;
use bifrost_vk::jm::{AttributeTables, VertexJob};
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::SimGpu;

const VERTICES: u32 = 5;
const INSTANCES: u32 = 2;

/// Writes an attribute table (one buffer per attribute) and its buffers'
/// descriptors; returns the tables. `bufs`: (va, stride, size, type, divisor).
fn tables(
    gpu: &mut SimGpu,
    formats: &[VertexFormat],
    bufs: &[(u64, u32, u32, u64, u64)],
) -> AttributeTables {
    let l = layouts(gpu.arch());
    let attrs = gpu.alloc(4096);
    let buffers = gpu.alloc(4096);
    for (i, (f, &(va, stride, size, ty, divisor))) in formats.iter().zip(bufs).enumerate() {
        let mut w = l.attribute.defaults();
        ad::BUFFER_INDEX.set(&mut w, i as u64).unwrap();
        let word = l.formats.attribute_format(*f).unwrap();
        ad::FORMAT.set(&mut w, word).unwrap();
        gpu.write_u32s(attrs.va + 8 * i as u64, &w);
        let mut b = l.attribute_buffer.defaults();
        ab::TYPE.set(&mut b, ty).unwrap();
        ab::POINTER.set(&mut b, va).unwrap();
        ab::STRIDE.set(&mut b, u64::from(stride)).unwrap();
        ab::SIZE.set(&mut b, u64::from(size)).unwrap();
        if ty == attribute_type::MODULUS_1D {
            ab::DIVISOR.set(&mut b, divisor).unwrap();
        }
        gpu.write_u32s(buffers.va + 16 * i as u64, &b);
    }
    AttributeTables {
        attributes: attrs.va,
        buffers: buffers.va,
        count: formats.len() as u32,
    }
}

#[test]
fn vs_attribs_varying_shader_as_a_vertex_job() {
    let Ok(code) = std::fs::read(bifrost_vk::reference_path!(
        "mesa-g52/shaders/vs_attribs.varying.bin"
    )) else {
        eprintln!("skipped: reference data missing");
        return;
    };
    let mut results = Vec::new();
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let padded = 5u64; // 5 = 5 << 0 is a padded count already.
        // Inputs: vec3 pos, uvec4 joints, ivec2 offset (one buffer each).
        let pos = gpu.alloc(4096);
        let joints = gpu.alloc(4096);
        let offs = gpu.alloc(4096);
        let p: Vec<[f32; 3]> = (0..VERTICES)
            .map(|v| [1.0 + v as f32, -2.0 * v as f32, 0.5])
            .collect();
        let j: Vec<[u32; 4]> = (0..VERTICES).map(|v| [v, 7 * v, 0xff00 + v, 3]).collect();
        let o: Vec<[i32; 2]> = (0..VERTICES)
            .map(|v| [v as i32 - 10, 100 * v as i32])
            .collect();
        gpu.write_f32s(pos.va, &p.iter().flatten().copied().collect::<Vec<_>>());
        gpu.write_u32s(joints.va, &j.iter().flatten().copied().collect::<Vec<_>>());
        gpu.write_u32s(
            offs.va,
            &o.iter().flatten().map(|&x| x as u32).collect::<Vec<_>>(),
        );
        let m = attribute_type::MODULUS_1D;
        let attributes = tables(
            &mut gpu,
            &[
                VertexFormat::new(C::F32, 3),
                VertexFormat::new(C::U32, 4),
                VertexFormat::new(C::I32, 2),
            ],
            &[
                (pos.va, 12, 12 * VERTICES, m, padded),
                (joints.va, 16, 16 * VERTICES, m, padded),
                (offs.va, 8, 8 * VERTICES, m, padded),
            ],
        );
        // Outputs: slot 0 position (unused here), 1 vec3 normal, 2 uvec2
        // joints, 3 int offset sum; linear over padded count × instances.
        let n = (padded * u64::from(INSTANCES)) as u32;
        let vpos = gpu.alloc(4096);
        let vnorm = gpu.alloc(4096);
        let vj = gpu.alloc(4096);
        let vsum = gpu.alloc(4096);
        let lin = attribute_type::LINEAR_1D;
        let varyings = tables(
            &mut gpu,
            &[
                VertexFormat::new(C::F32, 4),
                VertexFormat::new(C::F32, 3),
                VertexFormat::new(C::U32, 2),
                VertexFormat::new(C::I32, 1),
            ],
            &[
                (vpos.va, 16, 16 * n, lin, 0),
                (vnorm.va, 12, 12 * n, lin, 0),
                (vj.va, 8, 8 * n, lin, 0),
                (vsum.va, 4, 4 * n, lin, 0),
            ],
        );
        let mut bytes = code.clone();
        bytes.resize(bytes.len() + 128, 0);
        let binary = ShaderBinary {
            code: bytes,
            work_registers: 32,
            preloads: Preloads {
                vertex_id: true,
                instance_id: true,
                ..Default::default()
            },
            attribute_count: 3,
            ..Default::default()
        };
        let code = gpu.upload(&binary);
        let run = gpu
            .run_vertex_job(&VertexJob {
                binary: &binary,
                code,
                push_uniforms: &[],
                vertices: VERTICES,
                instances: INSTANCES,
                offset_start: 0,
                ubos: &[],
                attributes,
                varyings,
            })
            .unwrap_or_else(|e| panic!("{model:?}: {e}"));
        assert_eq!(run.counters.threads, u64::from(VERTICES * INSTANCES));
        let norm = gpu.read_f32s(vnorm.va, 3 * n as usize);
        let js = gpu.read_u32s(vj.va, 2 * n as usize);
        let sums = gpu.read_u32s(vsum.va, n as usize);
        for inst in 0..INSTANCES as usize {
            for v in 0..VERTICES as usize {
                let k = inst * padded as usize + v;
                let len = p[v].iter().map(|c| c * c).sum::<f32>().sqrt();
                for c in 0..3 {
                    let want = p[v][c] / len;
                    assert!(
                        (norm[3 * k + c] - want).abs() < 1e-6,
                        "{model:?} normal {k}.{c}"
                    );
                }
                assert_eq!(
                    &js[2 * k..2 * k + 2],
                    &[j[v][0] ^ j[v][2], j[v][1] ^ j[v][3]]
                );
                assert_eq!(sums[k] as i32, o[v][0] + o[v][1], "{model:?} sum {k}");
            }
        }
        results.push((norm, js, sums));
    }
    assert_eq!(results[0], results[1], "v6 and v7 agree");
}

/// Loads attribute 0 of vertex r60 as f32 (or raw, `auto`) x4 and stores it.
fn ld_attr_program(register_format: &str) -> String {
    format!(
        "clause_0:
ds(0) nbb attr ncph next_store dwb(0) 
{{
    *NOP t0
    +LD_ATTR_IMM.{register_format}.v4 t1, r60, #0.x, attribute_index:0, @r0
}}

clause_1:
ds(0) eos store 
{{
    *LSHIFT_OR.i32 t0, r60, #0, 0x00000004 /* 0.000000 */
    +NOP t1
    *NOP t0
    +IADD.s32 r4:t1, u0.w0, t0
    *NOP t0
    +STORE.i128 t1, r4, #0.x, @r0
}}
"
    )
}

#[test]
fn ld_attr_formats() {
    use bifrost_vk::compiler::bifrost::asm::assemble;
    use bifrost_vk::jm::ComputeJob;
    use bifrost_vk::testing::binary_from_code;
    let h = |x: f32| x.to_bits();
    // (format, register format, element bytes, expected words of element 1)
    let cases: Vec<(VertexFormat, &str, Vec<u8>, [u32; 4])> = vec![
        (
            VertexFormat::new(C::Unorm8, 4),
            "f32",
            vec![0, 255, 51, 102],
            [h(0.0), h(1.0), h(0.2), h(0.4)],
        ),
        (
            VertexFormat::new(C::Snorm16, 2),
            "f32",
            [(-32767i16).to_le_bytes(), 16384i16.to_le_bytes()].concat(),
            [h(-1.0), h(16384.0 / 32767.0), h(0.0), h(1.0)],
        ),
        (
            VertexFormat::new(C::U8, 3),
            "auto",
            vec![7, 200, 255],
            [7, 200, 255, 1],
        ),
        (
            VertexFormat::new(C::I16, 1),
            "auto",
            (-300i16).to_le_bytes().to_vec(),
            [(-300i32) as u32, 0, 0, 1],
        ),
        (
            VertexFormat::new(C::F32, 2),
            "f32",
            [1.5f32.to_le_bytes(), (-2.0f32).to_le_bytes()].concat(),
            [h(1.5), h(-2.0), h(0.0), h(1.0)],
        ),
    ];
    for model in [SimModel::G52, SimModel::G72] {
        for (format, regfmt, bytes, expect) in &cases {
            let mut gpu = SimGpu::new(model);
            let data = gpu.alloc(4096);
            let stride = 16u32;
            // Element 0 zeroed, element 1 holds the bytes.
            gpu.write(data.va + u64::from(stride), bytes);
            let attributes = tables(
                &mut gpu,
                &[*format],
                &[(data.va, stride, 2 * stride, attribute_type::LINEAR_1D, 0)],
            );
            let out = gpu.alloc(4096);
            let code = assemble(&ld_attr_program(regfmt)).expect("assembles");
            let mut binary = binary_from_code(&code, 1);
            binary.attribute_count = 1;
            let code = gpu.upload(&binary);
            gpu.run_compute_job(&ComputeJob {
                binary: &binary,
                code,
                push_uniforms: &[out.va],
                local_size: [2, 1, 1],
                groups: [1, 1, 1],
                ubos: &[],
                attributes: Some(attributes),
                push_buffer: None,
            })
            .unwrap_or_else(|e| panic!("{model:?} {format:?}: {e}"));
            let got = gpu.read_u32s(out.va + 16, 4);
            assert_eq!(&got[..], &expect[..], "{model:?} {format:?} {regfmt}");
        }
    }
}

/// Mesa's `vs_instanced_ssbo` varying shader: per-instance data from an
/// SSBO indexed by gl_InstanceIndex (r62 + the base-instance sysval),
/// attributes, a mat4 in push constants, three varyings. FAU layout as
/// PanVk's packed sysvals for this shader: u3 = (base instance,
/// noperspective mask), u4 = descriptor set 0, u5..u12 = the push
/// constants (view_proj, column-major).
#[test]
fn vs_instanced_ssbo_varying_shader() {
    let Ok(code) = std::fs::read(bifrost_vk::reference_path!(
        "mesa-g52/shaders/vs_instanced_ssbo.varying.bin"
    )) else {
        eprintln!("skipped: reference data missing");
        return;
    };
    const V: u32 = 3;
    const I: u32 = 2;
    const BASE_INSTANCE: u32 = 1;
    let mut results = Vec::new();
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let padded = 3u64;
        // Instance structs: translate_scale, color, uv_rect, flags.
        let inst = gpu.alloc(4096);
        let its: Vec<[f32; 12]> = (0..3)
            .map(|k| {
                let k = k as f32;
                [
                    k,
                    -k,
                    2.0 * k,
                    0.5 + k, // translate_scale
                    0.0,
                    0.0,
                    0.0,
                    0.0, // color
                    0.25 * k,
                    0.5,
                    2.0,
                    3.0 + k, // uv_rect
                ]
            })
            .collect();
        for (k, it) in its.iter().enumerate() {
            gpu.write_f32s(inst.va + 64 * k as u64, it);
            gpu.write_u32s(inst.va + 64 * k as u64 + 48, &[k as u32 % 2, 0, 0, 0]);
        }
        let set = gpu.alloc(4096);
        gpu.write(set.va, &inst.va.to_le_bytes());
        gpu.write(set.va + 8, &4096u32.to_le_bytes());
        // Attributes: vec4 pos, vec2 uv.
        let pos = gpu.alloc(4096);
        let uv = gpu.alloc(4096);
        let p: Vec<[f32; 4]> = (0..V).map(|v| [v as f32, 1.0, -(v as f32), 1.0]).collect();
        let t: Vec<[f32; 2]> = (0..V).map(|v| [0.5 * v as f32, 1.0 - v as f32]).collect();
        gpu.write_f32s(pos.va, &p.iter().flatten().copied().collect::<Vec<_>>());
        gpu.write_f32s(uv.va, &t.iter().flatten().copied().collect::<Vec<_>>());
        let m = attribute_type::MODULUS_1D;
        let attributes = tables(
            &mut gpu,
            &[VertexFormat::new(C::F32, 4), VertexFormat::new(C::F32, 2)],
            &[
                (pos.va, 16, 16 * V, m, padded),
                (uv.va, 8, 8 * V, m, padded),
            ],
        );
        let n = (padded * u64::from(I)) as u32;
        let (vp, vw, vu, vf) = (
            gpu.alloc(4096),
            gpu.alloc(4096),
            gpu.alloc(4096),
            gpu.alloc(4096),
        );
        let lin = attribute_type::LINEAR_1D;
        let varyings = tables(
            &mut gpu,
            &[
                VertexFormat::new(C::F32, 4),
                VertexFormat::new(C::F32, 3),
                VertexFormat::new(C::F32, 2),
                VertexFormat::new(C::F32, 1),
            ],
            &[
                (vp.va, 16, 16 * n, lin, 0),
                (vw.va, 12, 12 * n, lin, 0),
                (vu.va, 8, 8 * n, lin, 0),
                (vf.va, 4, 4 * n, lin, 0),
            ],
        );
        // view_proj columns; row 3 (w) = (0.5, 2, -1, 80).
        let vpm: [[f32; 4]; 4] = [
            [1.0, 0.0, 0.0, 0.5],
            [0.0, 1.0, 0.0, 2.0],
            [0.0, 0.0, 1.0, -1.0],
            [0.0, 0.0, 0.0, 80.0],
        ];
        let flat: Vec<f32> = vpm.iter().flatten().copied().collect();
        let mut uniforms = vec![0u64, 0, 0, u64::from(BASE_INSTANCE), set.va];
        uniforms.extend(
            flat.chunks(2)
                .map(|c| u64::from(c[0].to_bits()) | (u64::from(c[1].to_bits()) << 32)),
        );
        let mut bytes = code.clone();
        bytes.resize(bytes.len() + 128, 0);
        let binary = ShaderBinary {
            code: bytes,
            work_registers: 64,
            preloads: Preloads {
                vertex_id: true,
                instance_id: true,
                ..Default::default()
            },
            uniform_words: uniforms.len() as u32,
            attribute_count: 2,
            ..Default::default()
        };
        let code = gpu.upload(&binary);
        let run = gpu
            .run_vertex_job(&VertexJob {
                binary: &binary,
                code,
                push_uniforms: &uniforms,
                vertices: V,
                instances: I,
                offset_start: 0,
                ubos: &[],
                attributes,
                varyings,
            })
            .unwrap_or_else(|e| panic!("{model:?}: {e}"));
        assert_eq!(run.counters.hazards, 0);
        let world = gpu.read_f32s(vw.va, 3 * n as usize);
        let uvs = gpu.read_f32s(vu.va, 2 * n as usize);
        let fog = gpu.read_f32s(vf.va, n as usize);
        for i in 0..I as usize {
            let it = &its[i + BASE_INSTANCE as usize];
            let flag = (i + BASE_INSTANCE as usize) % 2;
            for v in 0..V as usize {
                let k = i * padded as usize + v;
                let w: Vec<f32> = (0..3).map(|c| p[v][c].mul_add(it[3], it[c])).collect();
                assert_eq!(&world[3 * k..3 * k + 3], &w[..], "{model:?} world {k}");
                let e_uv = [
                    t[v][0].mul_add(it[10], it[8]),
                    t[v][1].mul_add(it[11], it[9]),
                ];
                assert_eq!(&uvs[2 * k..2 * k + 2], &e_uv, "{model:?} uv {k}");
                let cw = vpm[0][3] * w[0] + vpm[1][3] * w[1] + vpm[2][3] * w[2] + vpm[3][3];
                let e_fog = if flag != 0 {
                    (cw * 0.01).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                assert!(
                    (fog[k] - e_fog).abs() < 1e-6,
                    "{model:?} fog {k}: {} vs {e_fog}",
                    fog[k]
                );
            }
        }
        results.push((world, uvs, fog));
    }
    assert_eq!(results[0], results[1]);
}

// ---------------------------------------------------------------------------
// Instance Size: the hardware pads an instanced job's vertex count itself
// (`hw::attribute::padded_vertex_count`); the simulator strides instances in
// the varying buffers by that count, whatever the DCD says (our model of an
// undocumented behaviour, docs/STATUS.md).

/// Output 0 = (raw vertex id, instance id).
const IDS_SHADER: &str = r#"shader vertex "ids" {
  info local_size 0 0 0 shared 0 push 0
  output "ids" location 0 component 0 i32x2
  values 3
  %0:i32 = load_sysval sysval=raw_vertex_id
  %1:i32 = load_sysval sysval=instance_id
  %2:i32x2 = vec %0, %1
  store_output output=0 %2
}"#;

const UNWRITTEN: u32 = 0xdead_beef;

/// Runs [`IDS_SHADER`] over `vertices` × `instances` with one U32×2 varying
/// buffer of `elements` elements (pre-filled with [`UNWRITTEN`]); with
/// `instance_size`, the DCD's Instance Size is overwritten with it before
/// the submit. Returns the buffer's words or the fault status.
fn run_ids(
    model: SimModel,
    vertices: u32,
    instances: u32,
    elements: u32,
    instance_size: Option<u64>,
) -> Result<Vec<u32>, u32> {
    use bifrost_vk::compiler::bifrost::{Options, compile};
    use bifrost_vk::compiler::ir::Shader;
    use bifrost_vk::hw::draw::dcd;

    let mut gpu = SimGpu::new(model);
    let shader = Shader::parse(IDS_SHADER).unwrap();
    let options = Options {
        arch: model.arch().into(),
        ..Options::default()
    };
    let binary = compile(&shader, options).unwrap();
    let out = gpu.alloc(8 * u64::from(elements));
    gpu.write_u32s(out.va, &vec![UNWRITTEN; 2 * elements as usize]);
    let lin = attribute_type::LINEAR_1D;
    let varyings = tables(
        &mut gpu,
        &[VertexFormat::new(C::U32, 2)],
        &[(out.va, 8, 8 * elements, lin, 0)],
    );
    let code = gpu.upload(&binary);
    let job = VertexJob {
        binary: &binary,
        code,
        push_uniforms: &[],
        vertices,
        instances,
        offset_start: 0,
        ubos: &[],
        attributes: AttributeTables::default(),
        varyings,
    };
    let arch = gpu.arch();
    let run = gpu.run_chain_edited(
        |chain, pool, arch| {
            bifrost_vk::jm::add_vertex_job(chain, pool, arch, &job, [0, 0]).map(|_| true)
        },
        |sim, job_va| {
            let Some(size) = instance_size else { return };
            let l = layouts(arch);
            let draw = l.compute_job.section("Draw").unwrap();
            let va = job_va + draw.offset as u64;
            let mut bytes = vec![0u8; 4 * l.draw.words as usize];
            sim.read_gpu(va, &mut bytes).unwrap();
            let mut words = bifrost_vk::hw::layout::words_from_bytes(&bytes);
            dcd::INSTANCE_SIZE.set(&mut words, size).unwrap();
            sim.write_gpu(va, &bifrost_vk::hw::layout::bytes_from_words(&words))
                .unwrap();
        },
    );
    match run {
        Ok(_) => Ok(gpu.read_u32s(out.va, 2 * elements as usize)),
        Err(e) => Err(e.fault().map_or(0, |f| f.status)),
    }
}

/// Checks that instance `i`'s vertex `v` is element `v + i × stride`.
fn assert_ids_at(words: &[u32], vertices: u32, instances: u32, stride: u32, what: &str) {
    for i in 0..instances {
        for v in 0..stride {
            let e = (v + i * stride) as usize;
            let want = if v < vertices { [v, i] } else { [UNWRITTEN; 2] };
            assert_eq!(words[2 * e..2 * e + 2], want, "{what}: element {e}");
        }
    }
}

#[test]
fn instanced_vertex_jobs_use_the_hardware_padded_count() {
    use bifrost_vk::hw::attribute::padded_vertex_count;
    for model in [SimModel::G52, SimModel::G72] {
        // Counts where the hardware's padding differs from the smallest
        // encodable value (11 → 12, 20 → 24, 32 → 36) and some where not.
        for (vertices, instances) in [(11u32, 3u32), (20, 2), (32, 2), (5, 4), (17, 2)] {
            let stride = padded_vertex_count(vertices) as u32;
            let what = format!("{model:?} {vertices}×{instances}");
            let words = run_ids(model, vertices, instances, stride * instances, None)
                .unwrap_or_else(|s| panic!("{what}: fault {s:#x}"));
            assert_ids_at(&words, vertices, instances, stride, &what);
        }
    }
}

#[test]
fn an_instance_size_the_hardware_does_not_use_misplaces_or_faults() {
    use bifrost_vk::hw::layout::padded_round_up;
    for model in [SimModel::G52, SimModel::G72] {
        // What the emitter wrote before: the smallest encodable count.
        let (vertices, instances) = (11u32, 3u32);
        let wrong = padded_round_up(u64::from(vertices)).unwrap();
        assert_eq!(wrong, 11);
        // A roomy buffer: the outputs land at the hardware's stride (12),
        // not where an Instance Size of 11 says (instance 1 would start
        // at element 11, which stays unwritten).
        let words = run_ids(model, vertices, instances, 64, Some(wrong))
            .unwrap_or_else(|s| panic!("{model:?}: fault {s:#x}"));
        assert_ids_at(&words, vertices, instances, 12, &format!("{model:?}"));
        assert_eq!(words[2 * 11..2 * 11 + 2], [UNWRITTEN; 2]);
        // A buffer sized by the wrong count (11 × 3 elements): the last
        // instance's outputs fall past it, a DATA_INVALID fault.
        let status = run_ids(model, vertices, instances, 33, Some(wrong)).unwrap_err();
        assert_eq!(status, 0x58, "{model:?}");
        // The right count in the same job runs.
        assert!(run_ids(model, vertices, instances, 36, Some(12)).is_ok());
    }
}
