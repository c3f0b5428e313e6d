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
use bifrost_vk::kmod::sim::testing::SimGpu;

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
    let Ok(code) = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/reference/mesa-g52/shaders/vs_attribs.varying.bin"
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
        let run = gpu
            .run_vertex_job(&VertexJob {
                binary: &binary,
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
