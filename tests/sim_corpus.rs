//! Differential test over the SPIR-V corpus (tests/shaders/*.comp.spv):
//! every compute shader goes through the front end and the driver's
//! lowering (`lower_sysvals`), is compiled by the Bifrost backend and run
//! as a COMPUTE job on the simulated GPU (G52 and G72), and the bytes it
//! leaves in its buffers must equal what `ir::interp` computes from the
//! same lowered IR on the same inputs.
//!
//! Inputs are synthesised per the lowering's conventions: each UBO/SSBO
//! binding the shader names gets its own buffer (deterministic contents:
//! small floats and small integers interleaved, so float and integer
//! arithmetic both stay in ordinary ranges), push constants get a pattern
//! and live in GPU memory at the sysval block's push-constant address, the
//! FAU words are the variant's `PushUniformLayout` followed by the 64-bit
//! address of each binding in `ShaderBinary::buffers` order.
//!
//! Vertex shaders (tests/shaders/*.vert.spv) run as the **XFB capture job**
//! of a draw (`jm::add_xfb_job`, a VERTEX-typed job): the backend has no
//! varying stores yet, so the XFB variant is the vertex shader it can run;
//! shaders without XFB decorations get every 32-bit output captured so that
//! all their outputs are compared (see `capture_everything`).
//!
//! Shaders the backend cannot compile are listed with the exact
//! `CompileError` ([`EXPECTED_SKIPS`]); an unlisted shader that does not
//! compile, or any error other than `Unsupported`, fails the test; a listed
//! one that starts compiling is compared like the rest.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use bifrost_vk::compiler::bifrost::binary::ShaderBinary;
use bifrost_vk::compiler::bifrost::{Arch as CArch, Options, compile};
use bifrost_vk::compiler::ir::interp::{BufferRange, DrawState, Memory, run_workgroup};
use bifrost_vk::compiler::ir::*;
use bifrost_vk::compiler::passes::*;
use bifrost_vk::compiler::spirv;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::kmod::sim::testing::SimGpu;

/// Bytes of every synthesised buffer.
const BUFFER_BYTES: usize = 16 << 10;
/// Workgroups of every dispatch.
const GROUPS: [u32; 3] = [2, 1, 1];
/// Bytes of push constants offered (Vulkan's minimum maxPushConstantsSize).
const PUSH_BYTES: usize = 128;

/// Compute shaders the backend does not compile yet, with the reason it gave
/// when this list was last updated (the backend is still growing: a listed
/// shader may fail on a later op; it must fail with a clean `Unsupported`).
const EXPECTED_SKIPS: &[(&str, &str)] = &[
    (
        "glsl450_math.comp.spv",
        "unsupported by the Bifrost backend: fdiv (32-bit → 32-bit)",
    ),
    (
        "int64_double.comp.spv",
        "unsupported by the Bifrost backend: fmul on f64 (64-bit float): Bifrost has no fp64 arithmetic",
    ),
];

/// Compute shaders that compile but whose result depends on the order of
/// their invocations' atomics: checked by a dedicated test each instead.
const ORDER_DEPENDENT: &[&str] = &["shared_atomics.comp.spv"];

fn shader_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders")
}

fn compute_corpus() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(shader_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".comp.spv"))
        .collect();
    out.sort();
    out
}

/// Buffer bindings the shader addresses, as (set, binding) → is UBO.
fn bindings_of(s: &Shader) -> Vec<((u32, u32), bool)> {
    let mut set = BTreeSet::new();
    s.body.for_each_instr(&mut |i| {
        if let Op::Intrinsic(OpIntrinsic { kind, .. }) = &i.op {
            match *kind {
                Intrinsic::LoadUbo { set: a, binding } => {
                    set.insert(((a, binding), true));
                }
                Intrinsic::LoadSsbo { set: a, binding }
                | Intrinsic::StoreSsbo { set: a, binding }
                | Intrinsic::SsboAtomic {
                    set: a, binding, ..
                } => {
                    set.insert(((a, binding), false));
                }
                _ => {}
            }
        }
    });
    set.into_iter().collect()
}

/// Word `i` of buffer `b`: small floats on even words, small non-negative
/// integers on odd ones.
fn input_word(b: usize, i: usize) -> u32 {
    let h = (i as u32)
        .wrapping_mul(2654435761)
        .wrapping_add(b as u32 * 97)
        .rotate_left(7);
    if i.is_multiple_of(2) {
        ((h % 2001) as f32 / 8.0 - 125.0).to_bits()
    } else {
        // Non-negative: read as a float it is a denormal, never a NaN (NaN
        // payloads are implementation-defined: the interpreter returns the
        // canonical NaN, the hardware propagates the input's payload).
        h % 200
    }
}

fn push_bytes() -> Vec<u8> {
    (0..PUSH_BYTES / 4)
        .flat_map(|i| input_word(99, i).to_le_bytes())
        .collect()
}

struct Outcome {
    /// Buffers (set, binding) and their final bytes.
    buffers: Vec<((u32, u32), Vec<u8>)>,
    /// Bytes that differ from the buffers' initial contents.
    changed: usize,
}

fn model_arch(model: SimModel) -> CArch {
    match model {
        SimModel::G52 => CArch::V7,
        SimModel::G72 => CArch::V6,
    }
}

/// The FAU words: the push-uniform area, then one address per binding of
/// `binary.buffers`, starting at word `uniform_words − buffers.len()` — the
/// backend's rule (one past the highest `load_uniform` word it still reads
/// after its own optimisation). That can be *less* than the area's length
/// when a trailing push-uniform word is dead (see
/// `dead_trailing_push_constant_and_a_buffer`); the words cut off are read
/// by nobody.
fn fau_words(binary: &ShaderBinary, area: &[u8], addresses: &HashMap<(u32, u32), u64>) -> Vec<u64> {
    let base = binary.uniform_words as usize - binary.buffers.len();
    let mut words: Vec<u64> = area
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect();
    words.resize(base, 0);
    for b in &binary.buffers {
        words.push(addresses[b]);
    }
    words
}

/// No regression: whatever is skipped is listed and fails with a clean
/// `Unsupported` error (listed shaders that compile now are simply compared).
fn check_skips(skipped: &[(String, String)], expected: &[(&str, &str)]) {
    for (n, e) in skipped {
        assert!(
            expected.iter().any(|(name, _)| name == n),
            "{n} is skipped but not listed: {e}"
        );
        assert!(
            e.starts_with("unsupported by the Bifrost backend: "),
            "{n}: not a clean Unsupported error: {e}"
        );
    }
}

fn changed_bytes(buffers: &[((u32, u32), Vec<u8>)], inits: &[Vec<u8>]) -> usize {
    buffers
        .iter()
        .zip(inits)
        .map(|((_, got), init)| got.iter().zip(init).filter(|(a, b)| a != b).count())
        .sum()
}

/// Runs `s` (lowered) on the simulator and in the interpreter; returns both outcomes.
fn run_both(
    name: &str,
    s: &Shader,
    layout: &PushUniformLayout,
    binary: &ShaderBinary,
    model: SimModel,
) -> (Outcome, Outcome) {
    let init = |n: usize| -> Vec<u8> {
        (0..BUFFER_BYTES / 4)
            .flat_map(|i| input_word(n, i).to_le_bytes())
            .collect()
    };
    run_both_with(name, s, layout, binary, model, &init)
}

/// `run_both` with the initial bytes of each binding (by index) given.
fn run_both_with(
    name: &str,
    s: &Shader,
    layout: &PushUniformLayout,
    binary: &ShaderBinary,
    model: SimModel,
    init: &dyn Fn(usize) -> Vec<u8>,
) -> (Outcome, Outcome) {
    let binds = bindings_of(s);
    let mut gpu = SimGpu::new(model);
    let push = push_bytes();
    let push_buf = gpu.alloc(PUSH_BYTES as u64);
    gpu.write(push_buf.va, &push);
    let mut addresses = HashMap::new();
    let mut inits = Vec::new();
    for (n, &(b, _)) in binds.iter().enumerate() {
        let bytes = init(n);
        let buf = gpu.alloc(BUFFER_BYTES as u64);
        gpu.write(buf.va, &bytes);
        addresses.insert(b, buf.va);
        inits.push(bytes);
    }
    let sysvals = SysvalBlock {
        raw_vertex_offset: 0,
        base_vertex: 0,
        base_instance: 0,
        push_constants_address: push_buf.va,
        num_workgroups: GROUPS,
        xfb_params: [0; lower_xfb::XFB_PARAM_COUNT as usize],
    };
    let area = layout.fill(&sysvals, &push);
    let words = fau_words(binary, &area, &addresses);

    // ---- simulator ----
    gpu.run_compute(binary, &words, s.info.local_size, GROUPS)
        .unwrap_or_else(|e| {
            panic!(
                "{name} on {model:?}: {e}\n{}",
                bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code).unwrap()
            )
        });
    let buffers: Vec<_> = binds
        .iter()
        .map(|&(b, _)| (b, gpu.read(addresses[&b], BUFFER_BYTES)))
        .collect();
    let changed = changed_bytes(&buffers, &inits);
    let sim = Outcome { buffers, changed };
    assert_eq!(
        gpu.read(push_buf.va, PUSH_BYTES),
        push,
        "{name}: push constants"
    );

    // ---- interpreter ----
    let mut mem = Memory::new();
    mem.map(push_buf.va, push.clone()).unwrap();
    let mut state = DrawState {
        push_uniforms: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        push_constants: push.clone(),
        ..DrawState::default()
    };
    for (n, &(b, ubo)) in binds.iter().enumerate() {
        mem.map(addresses[&b], inits[n].clone()).unwrap();
        let range = BufferRange {
            address: addresses[&b],
            size: BUFFER_BYTES as u64,
        };
        if ubo {
            state.ubos.insert(b, range);
        } else {
            state.ssbos.insert(b, range);
        }
    }
    for z in 0..GROUPS[2] {
        for y in 0..GROUPS[1] {
            for x in 0..GROUPS[0] {
                run_workgroup(s, &state, &mut mem, [x, y, z])
                    .unwrap_or_else(|e| panic!("{name}: interpreter: {e}"));
            }
        }
    }
    let buffers: Vec<_> = binds
        .iter()
        .map(|&(b, _)| (b, mem.range(addresses[&b]).unwrap().to_vec()))
        .collect();
    let changed = changed_bytes(&buffers, &inits);
    let interp = Outcome { buffers, changed };
    (sim, interp)
}

#[test]
fn compute_corpus_on_the_simulator_matches_the_interpreter() {
    let mut compared = Vec::new();
    let mut skipped = Vec::new();
    let mut failures = Vec::new();
    for name in compute_corpus() {
        if ORDER_DEPENDENT.contains(&name.as_str()) {
            continue;
        }
        let module = std::fs::read(shader_dir().join(&name)).unwrap();
        let mut s = spirv::parse(&module, "main", Stage::Compute, &HashMap::new())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let layout = lower_sysvals(&mut s);
        for model in [SimModel::G52, SimModel::G72] {
            let binary = match compile(
                &s,
                Options {
                    arch: model_arch(model),
                    ..Options::default()
                },
            ) {
                Ok(b) => b,
                Err(e) => {
                    if model == SimModel::G52 {
                        skipped.push((name.clone(), e.to_string()));
                    }
                    continue;
                }
            };
            let (sim, interp) = run_both(&name, &s, &layout, &binary, model);
            assert!(sim.changed > 0, "{name}: the dispatch wrote nothing");
            assert_eq!(sim.changed, interp.changed, "{name}");
            for ((b, got), (_, want)) in sim.buffers.iter().zip(&interp.buffers) {
                if got != want {
                    let at = got.iter().zip(want).position(|(g, w)| g != w).unwrap();
                    let w = at & !3;
                    failures.push(format!(
                        "{name} on {model:?}: binding {b:?} differs at byte {at}: sim {:02x?} interp {:02x?}",
                        &got[w..w + 4],
                        &want[w..w + 4]
                    ));
                }
            }
            if model == SimModel::G52 {
                compared.push(format!(
                    "{name} ({} instructions, {} bytes written)",
                    binary.stats.instructions, sim.changed
                ));
            }
        }
    }
    for c in &compared {
        eprintln!("compared on G52 and G72: {c}");
    }
    for (n, e) in &skipped {
        eprintln!("skipped {n}: {e}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    check_skips(&skipped, EXPECTED_SKIPS);
}

// ---- vertex shaders, as XFB capture jobs ----
//
// The backend compiles vertex shaders only as XFB variants (the
// rasterization variant needs varying stores, not implemented yet), so
// every vertex shader of the corpus runs as the XFB job of a draw: shaders
// with XFB decorations keep them; the others get every 32-bit output
// captured into buffer 0 (consecutive offsets), which exposes all their
// outputs to the comparison. Inputs: one attribute buffer per attribute
// (R32UI × the components the shader reads, small floats), per-vertex.

/// Vertex shaders that do not compile as XFB variants, with the reason.
const EXPECTED_VERTEX_SKIPS: &[(&str, &str)] = &[(
    "ubo_std140.vert.spv",
    "unsupported by the Bifrost backend: fsin (32-bit → 32-bit)",
)];

/// Captures every 32-bit output of a shader without XFB decorations.
fn capture_everything(s: &mut Shader) {
    if s.outputs.iter().any(|o| o.xfb.is_some()) {
        return;
    }
    let mut offset = 0;
    let mut chosen = Vec::new();
    for (i, o) in s.outputs.iter().enumerate() {
        if o.ty.bits == 32 {
            chosen.push((i, offset));
            offset += 4 * u32::from(o.ty.comps);
        }
    }
    for (i, off) in chosen {
        s.outputs[i].xfb = Some(Xfb {
            buffer: 0,
            stride: offset,
            offset: off,
            stream: 0,
        });
    }
    s.info.xfb_mode = offset > 0;
}

/// Vertices of attribute data, and the draws' `Instance Size` (a power of two).
const VERTICES: u32 = 64;

/// Component `c` of vertex `v` of attribute `attr`: a non-negative small
/// float (loops.vert's `while (acc.z < 10.0) acc.z += a.z + 1.0` must end).
fn vertex_word(attr: u32, v: u32, c: u32) -> u32 {
    let h = (v * 4 + c)
        .wrapping_mul(2654435761)
        .wrapping_add(attr * 97)
        .rotate_left(7);
    ((h % 1000) as f32 / 8.0).to_bits()
}

#[test]
fn vertex_corpus_as_xfb_jobs_matches_the_interpreter() {
    use bifrost_vk::compiler::ir::interp::{
        AttributeBinding, AttributeKind, InputRate, InvocationIds, run_invocation,
    };
    use bifrost_vk::compiler::passes::lower_xfb::XfbBinding;
    use bifrost_vk::hw::attribute::{attribute_buffer as ab, attribute_desc as ad, attribute_type};
    use bifrost_vk::hw::format::{ComponentType, FormatArch, VertexFormat};
    use bifrost_vk::hw::{Arch, layouts};
    use bifrost_vk::jm::{AttributeTables, XfbJob, add_xfb_job};

    let mut names: Vec<String> = std::fs::read_dir(shader_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".vert.spv"))
        .collect();
    names.sort();
    let mut skipped = Vec::new();
    let mut compared = Vec::new();
    let mut failures = Vec::new();
    for name in names {
        let module = std::fs::read(shader_dir().join(&name)).unwrap();
        let mut s = spirv::parse(&module, "main", Stage::Vertex, &HashMap::new())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        capture_everything(&mut s);
        // Stride per XFB buffer (lower_xfb drops the decorations).
        let mut strides = [0u32; 4];
        for o in &s.outputs {
            if let Some(x) = o.xfb {
                strides[x.buffer as usize] = x.stride;
            }
        }
        let io = lower_io(&mut s);
        if !lower_xfb(&mut s) {
            skipped.push((name.clone(), "no 32-bit output to capture".to_string()));
            continue;
        }
        let layout = lower_sysvals(&mut s);
        // Attribute components read per attribute index.
        let mut comps = vec![0u8; io.attributes.len()];
        for i in &s.inputs {
            let c = &mut comps[i.location as usize];
            *c = (*c).max(i.component + i.ty.comps);
        }
        for model in [SimModel::G52, SimModel::G72] {
            let binary = match compile(
                &s,
                Options {
                    arch: model_arch(model),
                    ..Options::default()
                },
            ) {
                Ok(b) => b,
                Err(e) => {
                    if model == SimModel::G52 {
                        skipped.push((name.clone(), e.to_string()));
                    }
                    continue;
                }
            };
            let arch = match model {
                SimModel::G52 => Arch::V7,
                SimModel::G72 => Arch::V6,
            };
            let mut gpu = SimGpu::new(model);
            let mut mem = Memory::new();
            // A triangle strip of 9 vertices from firstVertex 5, 2 instances.
            let (count, first, instances) = (9u32, 5u32, 2u32);
            let topology = XfbTopology::TriangleStrip;
            let records = topology.primitive_count(count) * 3 * instances;
            let mut bindings = [None; 4];
            let mut xfb_bufs = Vec::new();
            for (b, &stride) in strides.iter().enumerate() {
                if stride == 0 {
                    continue;
                }
                let len = stride * records + 32;
                let init: Vec<u8> = (0..len)
                    .map(|i| (0xA5 ^ i ^ (b as u32 * 31)) as u8)
                    .collect();
                let buf = gpu.alloc(u64::from(len));
                gpu.write(buf.va, &init);
                mem.map(buf.va, init.clone()).unwrap();
                bindings[b] = Some(XfbBinding {
                    address: buf.va + 8,
                    size: len - 16,
                });
                xfb_bufs.push((b, buf.va, len as usize));
            }
            let offsets = gpu.alloc(64);
            mem.map(offsets.va, vec![0; 16]).unwrap();
            let draw = XfbDraw {
                topology,
                count,
                first,
                vertex_offset: 0,
                index: None,
                buffers: bindings,
                offsets_address: offsets.va,
                resolved_prims: None,
                provoking: ProvokingVertex::First,
            };
            // Attributes.
            let set =
                |w: &mut [u32], f: bifrost_vk::hw::layout::Field, x: u64| f.set(w, x).unwrap();
            let n_attr = comps.len().max(1);
            let mut attr_words = vec![0u32; 2 * n_attr];
            let mut buf_words = vec![0u32; 4 * n_attr];
            let mut state = DrawState::default();
            for (a, &n) in comps.iter().enumerate() {
                let n = n.max(1);
                let bytes: Vec<u8> = (0..VERTICES)
                    .flat_map(|v| (0..u32::from(n)).map(move |c| (v, c)))
                    .flat_map(|(v, c)| vertex_word(a as u32, v, c).to_le_bytes())
                    .collect();
                let buf = gpu.alloc(bytes.len() as u64);
                gpu.write(buf.va, &bytes);
                mem.map(buf.va, bytes.clone()).unwrap();
                let w = &mut attr_words[2 * a..2 * a + 2];
                w.copy_from_slice(&layouts(arch).attribute.defaults());
                set(w, ad::BUFFER_INDEX, a as u64);
                let format = FormatArch::for_arch(arch)
                    .attribute_format(VertexFormat::new(ComponentType::U32, n))
                    .unwrap();
                let f = match arch {
                    Arch::V6 => ad::FORMAT_V6,
                    Arch::V7 => ad::FORMAT,
                };
                set(w, f, format);
                let bw = &mut buf_words[4 * a..4 * a + 4];
                // Instanced: the linear index is vertex + instance × Instance
                // Size (VERTICES), so per-vertex data is 1D modulus VERTICES.
                set(bw, ab::TYPE, attribute_type::MODULUS_1D);
                set(bw, ab::DIVISOR, u64::from(VERTICES));
                set(bw, ab::POINTER, buf.va);
                set(bw, ab::STRIDE, 4 * u64::from(n));
                set(bw, ab::SIZE, bytes.len() as u64);
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
            let abufs = gpu.alloc(64.max(4 * buf_words.len() as u64));
            gpu.write_u32s(abufs.va, &buf_words);
            // UBOs / SSBOs and push constants, as for compute.
            let push = push_bytes();
            let push_buf = gpu.alloc(PUSH_BYTES as u64);
            gpu.write(push_buf.va, &push);
            mem.map(push_buf.va, push.clone()).unwrap();
            let mut addresses = HashMap::new();
            for (n, &(b, ubo)) in bindings_of(&s).iter().enumerate() {
                let bytes: Vec<u8> = (0..BUFFER_BYTES / 4)
                    .flat_map(|i| input_word(n, 2 * i).to_le_bytes())
                    .collect();
                let buf = gpu.alloc(BUFFER_BYTES as u64);
                gpu.write(buf.va, &bytes);
                mem.map(buf.va, bytes).unwrap();
                addresses.insert(b, buf.va);
                let range = BufferRange {
                    address: buf.va,
                    size: BUFFER_BYTES as u64,
                };
                if ubo {
                    state.ubos.insert(b, range);
                } else {
                    state.ssbos.insert(b, range);
                }
            }
            let sysvals = SysvalBlock {
                raw_vertex_offset: 0,
                base_vertex: first,
                base_instance: 1,
                push_constants_address: push_buf.va,
                num_workgroups: [0; 3],
                xfb_params: draw.params(),
            };
            let area = layout.fill(&sysvals, &push);
            let words = fau_words(&binary, &area, &addresses);
            let fau: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let job = XfbJob {
                binary: &binary,
                push_uniforms: &fau,
                invocations_per_instance: draw.invocations_per_instance(),
                instance_count: instances,
                attributes: Some(AttributeTables {
                    attributes: attrs.va,
                    buffers: abufs.va,
                    count: n_attr as u32,
                }),
                offset_start: 0,
                instance_size: VERTICES,
            };
            let run = gpu.run_chain(|chain, pool, arch| {
                add_xfb_job(chain, pool, arch, &job, [0, 0]).map(|j| j.is_some())
            });
            if let Err(e) = run {
                failures.push(format!("{name} on {model:?}: {e}"));
                continue;
            }
            state.push_uniforms = fau.clone();
            state.push_constants = push.clone();
            for instance in 0..instances {
                for i in 0..draw.invocations_per_instance() {
                    let ids = InvocationIds {
                        xfb_invocation: i,
                        instance_id: instance,
                        ..Default::default()
                    };
                    run_invocation(&s, &state, &mut mem, ids)
                        .unwrap_or_else(|e| panic!("{name}: interpreter: {e}"));
                }
            }
            let mut written = 0;
            for &(b, va, len) in &xfb_bufs {
                let got = gpu.read(va, len);
                let want = mem.range(va).unwrap();
                written += want
                    .iter()
                    .enumerate()
                    .filter(|&(i, &x)| x != (0xA5 ^ i as u32 ^ (b as u32 * 31)) as u8)
                    .count();
                if got != want {
                    let at = got.iter().zip(want).position(|(g, w)| g != w).unwrap();
                    let w = at & !3;
                    failures.push(format!(
                        "{name} on {model:?}: XFB buffer {b} differs at byte {at}: sim {:02x?} interp {:02x?}",
                        &got[w..w + 4],
                        &want[w..w + 4]
                    ));
                }
            }
            if model == SimModel::G52 {
                compared.push(format!(
                    "{name} ({} instructions, {written} XFB bytes)",
                    binary.stats.instructions
                ));
            }
        }
    }
    for c in &compared {
        eprintln!("compared on G52 and G72: {c}");
    }
    for (n, e) in &skipped {
        eprintln!("skipped {n}: {e}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    check_skips(&skipped, EXPECTED_VERTEX_SKIPS);
}

/// A push-constant word the shader loads but never uses is in the
/// `PushUniformLayout` (lower_sysvals runs before the backend's DCE) but not
/// in the backend's FAU numbering: the binding address goes right after the
/// last word still read, i.e. *inside* the layout's area. A driver that
/// appended addresses after `layout.words` would hand the shader a push
/// constant as its SSBO address.
#[test]
fn dead_trailing_push_constant_and_a_buffer() {
    let mut s = Shader::new(Stage::Compute);
    s.info.local_size = [1, 1, 1];
    let mut b = Builder::new(&mut s);
    let c0 = b.imm_u32(0);
    let _dead = b.load(
        Intrinsic::LoadPushConstant { base: 8 },
        ValueType::U32,
        &[c0],
    );
    let live = b.load(
        Intrinsic::LoadPushConstant { base: 0 },
        ValueType::U32,
        &[c0],
    );
    b.store(Intrinsic::StoreSsbo { set: 0, binding: 0 }, &[live, c0]);
    b.finish();
    let layout = lower_sysvals(&mut s);
    assert_eq!(layout.words.len(), 2);
    for model in [SimModel::G52, SimModel::G72] {
        // Without the area's length the address takes the dead word's place;
        // with it (what the driver passes) the address follows the area.
        for (area, address_word) in [(None, 1), (Some(layout.words.len() as u32), 2)] {
            let binary = compile(
                &s,
                Options {
                    arch: model_arch(model),
                    push_uniform_words: area,
                },
            )
            .unwrap();
            assert_eq!(binary.buffers, vec![(0, 0)]);
            assert_eq!(binary.uniform_words, address_word + 1);
            let (sim, interp) = run_both("dead_push", &s, &layout, &binary, model);
            assert_eq!(sim.buffers, interp.buffers);
            assert_eq!(
                &sim.buffers[0].1[..4],
                &push_bytes()[..4],
                "push constant 0 stored"
            );
        }
    }
}

/// shared_atomics.comp is racy by design (which invocation's exchange lands
/// where depends on the order of the SSBO atomics), so it is checked for
/// what every order gives, on the simulator and in the interpreter alike:
/// 2 workgroups × 32 invocations each add 1 to `hits` (0 → 64); each
/// workgroup's shared `total` is the sum of 2·l over its lanes (992), so
/// `minimum` becomes min(5000, 992); every word the exchanges and
/// compare-and-swaps write lies in ids[0..64] and holds a value below 64;
/// the words after them keep their sentinel.
#[test]
fn shared_atomics_order_free_results() {
    let name = "shared_atomics.comp.spv";
    let module = std::fs::read(shader_dir().join(name)).unwrap();
    let mut s = spirv::parse(&module, "main", Stage::Compute, &HashMap::new()).unwrap();
    let layout = lower_sysvals(&mut s);
    const SENTINEL: u32 = 0xdead_beef;
    let init = |_: usize| -> Vec<u8> {
        let mut w = vec![SENTINEL; BUFFER_BYTES / 4];
        w[0] = 0; // hits
        w[1] = 5000; // minimum
        w[2..2 + 64].fill(0); // ids[0..64]
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    };
    for model in [SimModel::G52, SimModel::G72] {
        let options = Options {
            arch: model_arch(model),
            ..Options::default()
        };
        let binary = compile(&s, options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (sim, interp) = run_both_with(name, &s, &layout, &binary, model, &init);
        for (who, out) in [("simulator", &sim), ("interpreter", &interp)] {
            let bytes = &out.buffers[0].1;
            let w: Vec<u32> = bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(w[0], 64, "{model:?} {who}: hits");
            assert_eq!(w[1], 992, "{model:?} {who}: minimum");
            assert!(
                w[2..2 + 64].iter().all(|&v| v < 64),
                "{model:?} {who}: ids {:?}",
                &w[2..2 + 64]
            );
            assert!(
                w[2 + 64..].iter().all(|&v| v == SENTINEL),
                "{model:?} {who}: wrote beyond ids[64]"
            );
        }
    }
}
