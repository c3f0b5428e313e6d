//! Shared by the varying tests (`sim_varyings.rs`, `sim_corpus.rs`): run a
//! compiled rasterization variant as a VERTEX job whose varying buffers are
//! laid out by `jm::varying`, and compute the bytes those buffers must hold
//! from `ir::interp`'s outputs for the same vertices.
//!
//! The buffers start as a byte pattern; the expectation is that pattern with
//! each stored output's bit patterns written at the element and offset the
//! layout gives (outputs the interpreter leaves unwritten leave the pattern).

use bifrost_vk::compiler::bifrost::binary::ShaderBinary;
use bifrost_vk::compiler::ir::Shader;
use bifrost_vk::compiler::ir::interp::{
    AttributeBinding, AttributeKind, DrawState, InputRate, InvocationIds, Memory, run_invocation,
};
use bifrost_vk::compiler::passes::IoLayout;
use bifrost_vk::hw::attribute::{attribute_buffer as ab, attribute_desc as ad, attribute_type};
use bifrost_vk::hw::format::{ComponentType, FormatArch, VertexFormat};
use bifrost_vk::hw::{Arch, layouts};
use bifrost_vk::jm::varying::VaryingBufferKind;
use bifrost_vk::jm::{
    AttributeTables, VaryingLayout, VertexJob, add_vertex_job, varying_elements,
    write_varying_tables,
};
use bifrost_vk::testing::{Run, SimGpu};

/// One VERTEX job's inputs (beyond the GPU memory already set up).
pub struct VaryingJob<'a> {
    pub shader: &'a Shader,
    pub io: &'a IoLayout,
    pub binary: &'a ShaderBinary,
    pub push_uniforms: &'a [u64],
    pub ubos: &'a [(u64, u32)],
    pub attributes: AttributeTables,
    pub vertices: u32,
    pub instances: u32,
    pub offset_start: u32,
}

/// One varying buffer after the job: what the simulator left, what the
/// interpreter implies.
pub struct VaryingBytes {
    pub kind: VaryingBufferKind,
    pub stride: u32,
    pub got: Vec<u8>,
    pub want: Vec<u8>,
    /// Bytes the interpreter's outputs changed from the initial pattern.
    pub written: usize,
}

/// The initial byte `i` of varying buffer `b`.
fn pattern(b: usize, i: usize) -> u8 {
    (0x5A ^ i ^ (b * 37)) as u8
}

/// Runs the job on `gpu` and the interpreter on `mem`/`state` (whose
/// attributes must describe the same data); returns every varying buffer.
pub fn run_and_expect(
    gpu: &mut SimGpu,
    job: &VaryingJob<'_>,
    state: &DrawState,
    mem: &mut Memory,
) -> Result<(Run, Vec<VaryingBytes>), String> {
    let layout = VaryingLayout::new(job.binary, job.io).map_err(|e| e.to_string())?;
    let elements = varying_elements(job.vertices, job.instances).map_err(|e| e.to_string())?;
    let mut vas = Vec::new();
    let mut want = Vec::new();
    for (b, buf) in layout.buffers.iter().enumerate() {
        let len = (u64::from(buf.stride) * elements) as usize;
        let init: Vec<u8> = (0..len).map(|i| pattern(b, i)).collect();
        let va = gpu.alloc(len.max(64) as u64).va;
        gpu.write(va, &init);
        vas.push(va);
        want.push(init);
    }
    let code = gpu.upload(job.binary);
    let vertex_job = |varyings| VertexJob {
        binary: job.binary,
        code,
        push_uniforms: job.push_uniforms,
        vertices: job.vertices,
        instances: job.instances,
        offset_start: job.offset_start,
        ubos: job.ubos,
        attributes: job.attributes,
        varyings,
    };
    let run = gpu
        .run_chain(|chain, pool, arch| {
            let tables = write_varying_tables(pool, arch, &layout, &vas, elements)?;
            add_vertex_job(chain, pool, arch, &vertex_job(tables), [0, 0]).map(|_| true)
        })
        .map_err(|e| e.to_string())?
        .ok_or("no job was emitted")?;
    // Element of (vertex, instance): vertex + instance × Instance Size.
    let per_instance = if job.instances > 1 {
        elements / u64::from(job.instances)
    } else {
        0
    };
    let mut state = state.clone();
    state.offset_start = job.offset_start;
    for instance in 0..job.instances {
        for vertex in 0..job.vertices {
            let ids = InvocationIds {
                raw_vertex_id: vertex,
                instance_id: instance,
                ..Default::default()
            };
            let r = run_invocation(job.shader, &state, mem, ids)
                .map_err(|e| format!("interpreter: {e}"))?;
            let element = u64::from(vertex) + u64::from(instance) * per_instance;
            for (o, out) in r.outputs.iter().enumerate() {
                let (Some(values), Some(Some(rec))) = (out, layout.records.get(o)) else {
                    continue;
                };
                let stride = u64::from(layout.buffers[rec.buffer as usize].stride);
                let at = (element * stride + u64::from(rec.offset)) as usize;
                let bits = job.shader.outputs[o].ty.bits;
                let bytes: Vec<u8> = values
                    .iter()
                    .flat_map(|&v| {
                        if bits == 64 {
                            v.to_le_bytes().to_vec()
                        } else {
                            (v as u32).to_le_bytes().to_vec()
                        }
                    })
                    .collect();
                want[rec.buffer as usize][at..at + bytes.len()].copy_from_slice(&bytes);
            }
        }
    }
    let out = layout
        .buffers
        .iter()
        .zip(vas)
        .zip(want)
        .enumerate()
        .map(|(b, ((buf, va), want))| {
            let written = want
                .iter()
                .enumerate()
                .filter(|&(i, &x)| x != pattern(b, i))
                .count();
            VaryingBytes {
                kind: buf.kind,
                stride: buf.stride,
                got: gpu.read(va, want.len()),
                want,
                written,
            }
        })
        .collect();
    Ok((run, out))
}

/// The first difference of a varying buffer, for a failure message.
pub fn first_difference(v: &VaryingBytes) -> Option<String> {
    let at = v.got.iter().zip(&v.want).position(|(g, w)| g != w)?;
    let w = at & !3;
    Some(format!(
        "{:?} buffer differs at byte {at} (element {}, offset {}): sim {:02x?} interp {:02x?}",
        v.kind,
        at / v.stride as usize,
        at % v.stride as usize,
        &v.got[w..w + 4],
        &v.want[w..w + 4]
    ))
}

/// The attribute elements a job of `vertices` × `instances` from
/// `offset_start` reads, and the divisor of its per-vertex data: instanced
/// jobs read element vertex + instance × Instance Size (1D modulus Instance
/// Size), others vertex + Offset start (1D linear, `None`).
pub fn attribute_span(vertices: u32, instances: u32, offset_start: u32) -> (u32, Option<u32>) {
    if instances > 1 {
        let instance_size =
            bifrost_vk::jm::compute::vertex_instance_size(vertices, instances).unwrap() as u32;
        (instance_size, Some(instance_size))
    } else {
        (offset_start + vertices, None)
    }
}

/// Writes attributes `comps[i]` words wide (R32UI × n, word `word(i,
/// element, component)`) for `elements` elements, one buffer each: 1D
/// linear (`modulus` None: non-instanced jobs, element = vertex + Offset
/// start) or 1D modulus (instanced: divisor = Instance Size); describes the
/// same data to the interpreter in `state`/`mem`.
#[allow(clippy::too_many_arguments)]
pub fn attribute_tables(
    gpu: &mut SimGpu,
    arch: Arch,
    comps: &[u8],
    elements: u32,
    modulus: Option<u32>,
    word: fn(usize, u32, u32) -> u32,
    state: &mut DrawState,
    mem: &mut Memory,
) -> AttributeTables {
    let l = layouts(arch);
    let mut attr_words = vec![0u32; 2 * comps.len()];
    let mut buf_words = vec![0u32; 4 * (comps.len() + 1)];
    for (a, &n) in comps.iter().enumerate() {
        let words: Vec<u32> = (0..elements)
            .flat_map(|e| (0..u32::from(n)).map(move |c| word(a, e, c)))
            .collect();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let buf = gpu.alloc(bytes.len() as u64);
        gpu.write(buf.va, &bytes);
        mem.map(buf.va, bytes.clone()).unwrap();
        let w = &mut attr_words[2 * a..2 * a + 2];
        w.copy_from_slice(&l.attribute.defaults());
        ad::BUFFER_INDEX.set(w, a as u64).unwrap();
        let format = FormatArch::for_arch(arch)
            .attribute_format(VertexFormat::new(ComponentType::U32, n))
            .unwrap();
        let format_field = match arch {
            Arch::V6 => ad::FORMAT_V6,
            Arch::V7 => ad::FORMAT,
        };
        format_field.set(w, format).unwrap();
        let bw = &mut buf_words[4 * a..4 * a + 4];
        bw.copy_from_slice(&l.attribute_buffer.defaults());
        match modulus {
            Some(m) => {
                ab::TYPE.set(bw, attribute_type::MODULUS_1D).unwrap();
                ab::DIVISOR.set(bw, u64::from(m)).unwrap();
            }
            None => ab::TYPE.set(bw, attribute_type::LINEAR_1D).unwrap(),
        }
        ab::POINTER.set(bw, buf.va).unwrap();
        ab::STRIDE.set(bw, 4 * u64::from(n)).unwrap();
        ab::SIZE.set(bw, bytes.len() as u64).unwrap();
        state.attributes.insert(
            a as u32,
            AttributeBinding {
                address: buf.va,
                stride: 4 * u32::from(n),
                comps: n,
                kind: AttributeKind::Int,
                rate: InputRate::Vertex,
            },
        );
    }
    let attrs = gpu.alloc(64.max(4 * attr_words.len() as u64));
    gpu.write_u32s(attrs.va, &attr_words);
    let bufs = gpu.alloc(64.max(4 * buf_words.len() as u64));
    gpu.write_u32s(bufs.va, &buf_words);
    AttributeTables {
        attributes: attrs.va,
        buffers: bufs.va,
        count: comps.len() as u32,
    }
}
