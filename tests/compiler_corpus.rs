//! The compiler's front half (`compiler::pipeline`) on the whole shader
//! corpus of tests/shaders.
//!
//! - Every module goes through [`compile_front_observed`]: the IR validates
//!   after every step and its text parses back to the same IR.
//! - Meaning is preserved: the var-form IR straight from SPIR-V and every
//!   lowered variant run in `ir::interp` on the same synthesised inputs
//!   (attributes, UBO/SSBO contents, push constants, sysvals) and must give
//!   identical outputs and memory. The XFB variant is compared with
//!   `xfb_reference` fed by the var-form shader's outputs. Shaders the
//!   harness cannot drive are listed in [`SKIPS`] with the reason.
//! - Snapshots: the IR after each step of a few shaders is checked in under
//!   tests/shaders/snapshots/<shader>/NN-<step>.ir (`BLESS=1` rewrites them;
//!   review the diff).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use bifrost_vk::compiler::ir::interp::*;
use bifrost_vk::compiler::ir::*;
use bifrost_vk::compiler::passes::lower_xfb::{
    XFB_MAX_BUFFERS, XFB_PARAM_COUNT, XfbBinding, XfbDraw, XfbTopology,
};
use bifrost_vk::compiler::passes::{ProvokingVertex, PushUniformLayout, SysvalBlock};
use bifrost_vk::compiler::pipeline::{
    FrontOptions, FrontShaders, LoweredShader, Variant, compile_front, compile_front_observed,
    compile_vertex_capture,
};
use bifrost_vk::compiler::spirv::SpecConstants;

#[path = "support/bless.rs"]
mod bless;
#[path = "support/pointers.rs"]
mod pointers;

/// Corpus shaders the interpreter comparison cannot drive, and why.
/// Corpus shaders the interpreter comparison does not run, and why.
const SKIPS: &[(&str, &str)] = &[
    (
        "shared_atomics.comp.spv",
        "racy by design: `c.ids[old] = atomicExchange(c.ids[l], l)` depends on the \
         order invocations reach the SSBO atomics, which the interpreter leaves open",
    ),
    (
        "texture_lod.comp.spv",
        "its texel fetches take coordinates from the filled buffers, outside the \
         image (undefined; the reference sampler refuses them): sim_textures.rs \
         and spirv_frontend.rs drive it with their own queries",
    ),
    (
        "texture_array.comp.spv",
        "the same (texel fetches at coordinates from the filled buffers): \
         sim_textures.rs drives it with its own queries",
    ),
    (
        "texture_int.comp.spv",
        "the same (texel fetches at coordinates from the filled buffers): \
         sim_textures.rs drives it with its own queries",
    ),
    (
        "texture_shadow.comp.spv",
        "depth compares are not run by the interpreter: sim_textures.rs drives \
         it with its own queries",
    ),
    (
        "texture_size.comp.spv",
        "`texture_size` needs image sizes, which the interpreter's state does not \
         carry: sim_textures.rs drives it with the driver's size words",
    ),
    (
        "texture_gather.comp.spv",
        "its sampling coordinates come from the filled buffers and are not all \
         finite (the reference sampler refuses those): sim_textures.rs drives it \
         with its own queries",
    ),
    (
        "texture_gather_array.comp.spv",
        "the same as texture_gather.comp (coordinates from the filled buffers): \
         sim_textures.rs drives it with its own queries",
    ),
    (
        "texture_gather_dref.comp.spv",
        "depth compares are not run by the interpreter: sim_textures.rs drives \
         it with its own queries",
    ),
    (
        "texture_offset.comp.spv",
        "the same (texel fetches at coordinates from the filled buffers): \
         sim_textures.rs drives it with its own queries",
    ),
];

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
    } else if name.contains(".frag") {
        Stage::Fragment
    } else {
        Stage::Vertex
    }
}

fn step_name(variant: Option<Variant>, pass: &str) -> String {
    match variant {
        None => pass.to_string(),
        Some(v) => format!("{}.{pass}", v.name()),
    }
}

/// Run the pipeline, recording the IR after every step.
fn compile_recorded(name: &str, bytes: &[u8]) -> (Vec<(String, Shader)>, FrontShaders) {
    compile_recorded_with(name, bytes, &SpecConstants::new())
}

fn compile_recorded_with(
    name: &str,
    bytes: &[u8],
    spec: &SpecConstants,
) -> (Vec<(String, Shader)>, FrontShaders) {
    let mut steps = Vec::new();
    let front = compile_front_observed(bytes, "main", stage_of(name), spec, &mut |v, pass, s| {
        steps.push((step_name(v, pass), s.clone()))
    })
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    (steps, front)
}

/// The capture-only front half (what a pipeline that rasterizes nothing
/// runs) makes the same XFB variant, strides and store flag as the full
/// one, for every vertex shader of the corpus, with and without robust
/// buffer access.
#[test]
fn capture_only_front_half_matches_the_full_one() {
    let mut vertex = 0;
    for (name, bytes) in corpus() {
        if stage_of(&name) != Stage::Vertex {
            continue;
        }
        vertex += 1;
        for (robust, ubo_table) in [(false, true), (true, false), (true, true)] {
            let options = FrontOptions {
                robust_buffer_access: robust,
                ubo_table,
                contract: ubo_table,
            };
            let spec = SpecConstants::new();
            let full = bifrost_vk::compiler::pipeline::compile_front_with(
                &bytes,
                "main",
                Stage::Vertex,
                &spec,
                options,
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            let capture = compile_vertex_capture(&bytes, "main", &spec, options)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let text = |x: &Option<LoweredShader>| x.as_ref().map(|l| l.shader.to_string());
            assert_eq!(
                text(&capture.xfb),
                text(&full.xfb),
                "{name} robust {robust} UBO table {ubo_table}"
            );
            let layout = |x: &Option<LoweredShader>| {
                x.as_ref()
                    .map(|l| (l.io.clone(), l.push_uniforms.words.clone()))
            };
            assert_eq!(layout(&capture.xfb), layout(&full.xfb), "{name}");
            assert_eq!(capture.xfb_strides, full.xfb_strides, "{name}");
            assert_eq!(capture.vertex_stores, full.vertex_stores, "{name}");
        }
    }
    assert!(vertex >= 20, "only {vertex} vertex shaders in the corpus");
}

#[test]
fn every_shader_lowers_validates_and_round_trips() {
    let corpus = corpus();
    assert!(corpus.len() >= 30, "corpus has {} modules", corpus.len());
    let mut failures = Vec::new();
    let mut xfb_variants = 0;
    for (name, bytes) in &corpus {
        let mut steps = Vec::new();
        let result = compile_front_observed(
            bytes,
            "main",
            stage_of(name),
            &SpecConstants::new(),
            &mut |v, pass, s| steps.push((step_name(v, pass), s.clone())),
        );
        let front = match result {
            Ok(f) => f,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        for (step, s) in &steps {
            if let Err(e) = s.validate() {
                failures.push(format!("{name} after {step}: invalid: {e}"));
            }
            let text = s.to_string();
            match Shader::parse(&text) {
                Ok(back) if back == *s => {}
                Ok(back) => failures.push(format!(
                    "{name} after {step}: parse(print) differs\n{text}\n---\n{back}"
                )),
                Err(e) => failures.push(format!("{name} after {step}: reparse: {e}\n{text}")),
            }
        }
        for v in front.variants() {
            if let Err(e) = check_fully_lowered(&v.shader) {
                failures.push(format!("{name} ({}): {e}", v.variant.name()));
            }
        }
        let has_xfb = steps[0].1.outputs.iter().any(|o| o.xfb.is_some());
        assert_eq!(
            front.xfb.is_some(),
            has_xfb,
            "{name}: XFB variant iff XFB outputs"
        );
        xfb_variants += front.xfb.is_some() as usize;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(xfb_variants >= 8, "only {xfb_variants} XFB variants");
}

/// What the backend must never see: variables, unlowered sysvals that are
/// not preloaded registers, push-constant loads, XFB decorations.
fn check_fully_lowered(s: &Shader) -> Result<(), String> {
    if !s.vars.is_empty() {
        return Err(format!("{} variables left", s.vars.len()));
    }
    if s.outputs.iter().any(|o| o.xfb.is_some()) {
        return Err("XFB decorations left".into());
    }
    let mut bad = Vec::new();
    s.body.for_each_instr(&mut |i| {
        if let Op::Intrinsic(OpIntrinsic { kind, .. }) = &i.op {
            match kind {
                Intrinsic::LoadVar { .. }
                | Intrinsic::StoreVar { .. }
                | Intrinsic::LoadPushConstant { .. } => bad.push(format!("{kind:?}")),
                Intrinsic::LoadSysVal(sv)
                    if !matches!(
                        sv,
                        SysVal::RawVertexId
                            | SysVal::InstanceId
                            | SysVal::XfbInvocation
                            | SysVal::LocalInvocationId
                            | SysVal::WorkgroupId
                            | SysVal::GlobalInvocationId
                            | SysVal::FragCoord
                            | SysVal::FrontFacing
                            | SysVal::PointCoord
                    ) =>
                {
                    bad.push(format!("{kind:?}"))
                }
                _ => {}
            }
        }
    });
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!("not lowered: {bad:?}"))
    }
}

// ---- meaning preserved: var form vs lowered variants in the interpreter ----

const BUFFER_SIZE: usize = 1 << 16;
const PUSH_CONSTANTS_ADDRESS: u64 = 0x7000_0000;
const RAW_VERTEX_OFFSET: u32 = 3;
const BASE_INSTANCE: u32 = 2;
const NUM_WORKGROUPS: [u32; 3] = [2, 1, 1];

/// Deterministic bytes that make "nice" numbers often enough for shaders
/// that branch on their inputs: small integers and small floats.
fn fill(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let word: u32 = match x % 4 {
            0 => (x >> 8) as u32 % 16,
            1 => ((((x >> 8) % 64) as f32 - 16.0) * 0.25).to_bits(),
            2 => (x >> 16) as u32,
            _ => ((x >> 8) as u32 % 8).wrapping_neg(),
        };
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// The buffers a shader uses: (is_ssbo, set, binding).
fn buffers_of(s: &Shader) -> BTreeSet<(bool, u32, u32)> {
    let mut out = BTreeSet::new();
    s.body.for_each_instr(&mut |i| {
        if let Op::Intrinsic(OpIntrinsic { kind, .. }) = &i.op {
            match *kind {
                Intrinsic::LoadUbo { set, binding } => {
                    out.insert((false, set, binding));
                }
                Intrinsic::LoadSsbo { set, binding }
                | Intrinsic::StoreSsbo { set, binding }
                | Intrinsic::SsboAtomic { set, binding, .. } => {
                    out.insert((true, set, binding));
                }
                _ => {}
            }
        }
    });
    out
}

/// Memory and bindings for one run: every buffer of the var-form shader
/// (lowering never adds any), push constants readable at their address.
fn environment(name: &str, var_form: &Shader) -> (Memory, DrawState) {
    let mut memory = Memory::new();
    let mut state = DrawState::default();
    for (n, (ssbo, set, binding)) in buffers_of(var_form).into_iter().enumerate() {
        let address = 0x1000_0000 + ((n as u64) << 20);
        memory
            .map(address, fill(n as u64 + 1, BUFFER_SIZE))
            .unwrap();
        let range = BufferRange {
            address,
            size: BUFFER_SIZE as u64,
        };
        let map = if ssbo {
            &mut state.ssbos
        } else {
            &mut state.ubos
        };
        map.insert((set, binding), range);
    }
    let mut pc = fill(99, var_form.info.push_constant_size.max(4) as usize);
    pointers::patch_push_constants(name, &mut pc, |b| {
        state
            .ssbos
            .get(&b)
            .or(state.ubos.get(&b))
            .map(|r| r.address)
    });
    memory.map(PUSH_CONSTANTS_ADDRESS, pc.clone()).unwrap();
    state.push_constants = pc;
    state.sysvals = SysValues {
        raw_vertex_offset: RAW_VERTEX_OFFSET,
        base_vertex: RAW_VERTEX_OFFSET,
        base_instance: BASE_INSTANCE,
        view_index: 0,
        draw_index: 0,
        num_workgroups: NUM_WORKGROUPS,
        xfb_params: Vec::new(),
    };
    state.step_limit = 1_000_000;
    state.textures = textures_of(var_form);
    (memory, state)
}

/// A 4×3 image (and a linear, repeating sampler) at every binding the
/// shader samples, for `testing::sampler`.
fn textures_of(
    s: &Shader,
) -> Option<std::sync::Arc<dyn bifrost_vk::compiler::ir::interp::TextureSource>> {
    use bifrost_vk::testing::sampler::{AddressMode, Bindings, Image, ImageFormat, Sampler};
    let mut b = Bindings::default();
    s.body.for_each_instr(&mut |i| {
        if let Op::Intrinsic(OpIntrinsic {
            kind:
                Intrinsic::Texture {
                    set,
                    binding,
                    sampler,
                    ty,
                    array,
                    ..
                },
            ..
        }) = &i.op
        {
            let format = match ty {
                SampledType::Float => ImageFormat::Rgba8Unorm,
                SampledType::Uint => ImageFormat::Rgba8Uint,
                SampledType::Sint => ImageFormat::Rgba8Sint,
            };
            let image = Image {
                width: 4,
                height: 3,
                texels: (0..12u8)
                    .map(|t| [t * 21, 250 - t * 13, t * 7, 255])
                    .collect(),
                format,
            };
            if *array {
                b.arrays
                    .insert((*set, *binding), vec![image.clone(), image]);
            } else {
                b.images.insert((*set, *binding), image);
            }
            if let Some(smp) = sampler {
                b.samplers.insert(
                    *smp,
                    Sampler::simple(*ty == SampledType::Float, AddressMode::Repeat),
                );
            }
        }
    });
    if b.images.is_empty() {
        None
    } else {
        Some(std::sync::Arc::new(b))
    }
}

fn sysval_block(xfb_params: Option<[u32; XFB_PARAM_COUNT as usize]>) -> SysvalBlock {
    let mut b = SysvalBlock {
        raw_vertex_offset: RAW_VERTEX_OFFSET,
        base_vertex: RAW_VERTEX_OFFSET,
        base_instance: BASE_INSTANCE,
        push_constants_address: PUSH_CONSTANTS_ADDRESS,
        num_workgroups: NUM_WORKGROUPS,
        ..Default::default()
    };
    if let Some(p) = xfb_params {
        b.xfb_params = p;
    }
    b
}

fn lowered_state(base: &DrawState, layout: &PushUniformLayout, block: &SysvalBlock) -> DrawState {
    let mut state = base.clone();
    state.push_uniforms = layout.fill(block, &base.push_constants);
    state
}

/// A snapshot of every mapped buffer, for comparing memory after runs.
fn memory_image(memory: &Memory, var_form: &Shader) -> Vec<Vec<u8>> {
    (0..buffers_of(var_form).len())
        .map(|n| {
            memory
                .range(0x1000_0000 + ((n as u64) << 20))
                .unwrap()
                .to_vec()
        })
        .collect()
}

type Attributes = BTreeMap<u32, AttributeBinding>;

/// Vertex attributes for the var-form shader (keyed by location) and the
/// lowered one (keyed by attribute index): four 32-bit words per element.
fn attributes(
    var_form: &Shader,
    lowered: &LoweredShader,
    memory: &mut Memory,
) -> Result<(Attributes, Attributes), String> {
    let mut by_location = BTreeMap::new();
    for input in &var_form.inputs {
        if input.ty.bits > 32 {
            return Err("64-bit vertex inputs".into());
        }
        if by_location.contains_key(&input.location) {
            continue;
        }
        let address = 0x4000_0000 + ((input.location as u64) << 20);
        memory
            .map(address, fill(1000 + input.location as u64, 16 * 64))
            .unwrap();
        by_location.insert(
            input.location,
            AttributeBinding {
                address,
                stride: 16,
                comps: 4,
                kind: AttributeKind::Float,
                rate: InputRate::Vertex,
            },
        );
    }
    let by_index = lowered
        .io
        .attributes
        .iter()
        .enumerate()
        .map(|(i, loc)| (i as u32, by_location[loc]))
        .collect();
    Ok((by_location, by_index))
}

type Outcome = Result<(Vec<InvocationResult>, Vec<Vec<u8>>), InterpError>;

fn run_compute(s: &Shader, state: &DrawState, mut memory: Memory, image_of: &Shader) -> Outcome {
    let mut results = Vec::new();
    for wg in 0..NUM_WORKGROUPS[0] {
        let r = run_workgroup(s, state, &mut memory, [wg, 0, 0])?;
        results.extend(r.into_iter().map(|r| InvocationResult { steps: 0, ..r }));
    }
    Ok((results, memory_image(&memory, image_of)))
}

const VERTICES: u32 = 4;
const INSTANCES: u32 = 2;

fn run_vertices(s: &Shader, state: &DrawState, mut memory: Memory, image_of: &Shader) -> Outcome {
    let mut results = Vec::new();
    for instance_id in 0..INSTANCES {
        for raw_vertex_id in 0..VERTICES {
            let ids = InvocationIds {
                raw_vertex_id,
                instance_id,
                ..Default::default()
            };
            let r = run_invocation(s, state, &mut memory, ids)?;
            results.push(InvocationResult { steps: 0, ..r });
        }
    }
    Ok((results, memory_image(&memory, image_of)))
}

/// Compare the var form with every variant of one shader. `Ok(None)` when
/// the comparison ran, `Ok(Some(reason))` when the harness cannot drive it.
fn compare(name: &str, var_form: &Shader, front: &FrontShaders) -> Result<Option<String>, String> {
    let (mut memory, state) = environment(name, var_form);
    let main = &front.main;
    let block = sysval_block(None);
    if var_form.stage == Stage::Compute {
        let want = run_compute(var_form, &state, memory.clone(), var_form);
        let got = run_compute(
            &main.shader,
            &lowered_state(&state, &main.push_uniforms, &block),
            memory,
            var_form,
        );
        return match (want, got) {
            (Err(e), _) => Ok(Some(format!("var form does not run: {e}"))),
            (Ok(w), Ok(g)) if w == g => Ok(None),
            (Ok(w), g) => Err(format!(
                "{name}: lowered compute differs\nvar form: {w:?}\nlowered:  {g:?}"
            )),
        };
    }
    if var_form.stage == Stage::Fragment {
        return compare_fragments(name, var_form, &main.shader, &state, memory);
    }
    let (by_location, by_index) = match attributes(var_form, main, &mut memory) {
        Ok(a) => a,
        Err(reason) => return Ok(Some(reason)),
    };
    let mut var_state = state.clone();
    var_state.attributes = by_location;
    let want = match run_vertices(var_form, &var_state, memory.clone(), var_form) {
        Ok(w) => w,
        Err(e) => return Ok(Some(format!("var form does not run: {e}"))),
    };
    let mut raster_state = lowered_state(&state, &main.push_uniforms, &block);
    raster_state.attributes = by_index.clone();
    let got = run_vertices(&main.shader, &raster_state, memory.clone(), var_form);
    if got.as_ref() != Ok(&want) {
        return Err(format!(
            "{name}: rasterization variant differs\nvar form: {want:?}\nlowered:  {got:?}"
        ));
    }
    if let Some(xfb) = &front.xfb {
        // The XFB variant fetches by vertex index (`lower_xfb`'s attribute
        // contract), the var form by raw id = vertex index − the raw
        // vertex offset: the same elements from buffers based that much
        // lower.
        let mut xfb_state = state.clone();
        xfb_state.attributes = by_index
            .into_iter()
            .map(|(i, mut a)| {
                let rebase = u64::from(RAW_VERTEX_OFFSET) * u64::from(a.stride);
                a.address = a.address.wrapping_sub(rebase);
                (i, a)
            })
            .collect();
        compare_xfb(name, var_form, &want.0, xfb, &xfb_state, memory)?;
    }
    Ok(None)
}

/// Fragments per fragment shader: even ones get small integers in every
/// varying word (loop counts of flat integer inputs stay short), odd ones
/// floats; gl_FragCoord, gl_FrontFacing and gl_PointCoord vary too.
const FRAGMENTS: u32 = 8;

/// The varyings and built-ins of fragment `f`.
fn fragment_inputs(var_form: &Shader, base: &DrawState, f: u32) -> (DrawState, InvocationIds) {
    let mut state = base.clone();
    for input in &var_form.inputs {
        let words = std::array::from_fn(|k| {
            let k = k as u32 + 4 * input.location;
            if f.is_multiple_of(2) {
                (f + k) % 5
            } else {
                (f as f32 * 0.37 - k as f32 * 0.21).to_bits()
            }
        });
        state.varyings.insert(input.location, words);
    }
    let ids = InvocationIds {
        frag_coord: [
            (f as f32 + 0.5).to_bits(),
            (2.0 * f as f32 + 0.5).to_bits(),
            (f as f32 / 8.0).to_bits(),
            (1.0 / (f as f32 + 1.0)).to_bits(),
        ],
        front_facing: !f.is_multiple_of(3),
        point_coord: [(f as f32 / 8.0).to_bits(), 0.25f32.to_bits()],
        ..Default::default()
    };
    (state, ids)
}

/// The var form and the lowered fragment shader on [`FRAGMENTS`]
/// fragments: equal outputs, equal discards. A fragment the var form cannot
/// run (a loop bound by a float's bits) is left out; at least one must run.
fn compare_fragments(
    name: &str,
    var_form: &Shader,
    lowered: &Shader,
    state: &DrawState,
    memory: Memory,
) -> Result<Option<String>, String> {
    let mut ran = 0;
    for f in 0..FRAGMENTS {
        let (st, ids) = fragment_inputs(var_form, state, f);
        let Ok(want) = run_invocation(var_form, &st, &mut memory.clone(), ids) else {
            continue;
        };
        let got = run_invocation(lowered, &st, &mut memory.clone(), ids);
        let strip = |r: InvocationResult| InvocationResult { steps: 0, ..r };
        match got {
            Ok(g) if strip(g.clone()) == strip(want.clone()) => ran += 1,
            g => {
                return Err(format!(
                    "{name}: fragment {f} differs
var form: {want:?}
lowered:  {g:?}"
                ));
            }
        }
    }
    Ok((ran == 0).then(|| "no fragment runs in the var form".to_string()))
}

/// XFB variants [`compare_xfb`] checked.
static XFB_COMPARED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

const XFB_BASE: u64 = 0x5000_0000;
const XFB_OFFSETS: u64 = 0x5f00_0000;

fn sentinel(i: usize) -> u8 {
    (i as u8).wrapping_mul(37) ^ 0xA5
}

/// The XFB variant of a point-list draw of [`VERTICES`] × [`INSTANCES`]
/// (`firstVertex` = the raw vertex offset, so vertex ids match the var-form
/// runs) against the bytes the var-form outputs say must be captured.
fn compare_xfb(
    name: &str,
    var_form: &Shader,
    var_results: &[InvocationResult],
    xfb: &LoweredShader,
    base: &DrawState,
    mut memory: Memory,
) -> Result<(), String> {
    let records = (VERTICES * INSTANCES) as usize;
    let mut expected: Vec<(Vec<u8>, BTreeSet<usize>)> = Vec::new();
    let mut buffers = [None; XFB_MAX_BUFFERS as usize];
    for b in 0..XFB_MAX_BUFFERS {
        let Some(stride) = var_form
            .outputs
            .iter()
            .filter_map(|o| o.xfb)
            .find(|x| x.buffer == b)
            .map(|x| x.stride)
        else {
            expected.push((Vec::new(), BTreeSet::new()));
            continue;
        };
        // Room for every record plus a tail that must stay untouched.
        let size = stride as usize * records;
        let bytes: Vec<u8> = (0..size + 64).map(sentinel).collect();
        let address = XFB_BASE + (u64::from(b) << 24);
        memory.map(address, bytes.clone()).unwrap();
        buffers[b as usize] = Some(XfbBinding {
            address,
            size: size as u32,
        });
        let mut want = bytes;
        let mut dont_care = BTreeSet::new();
        for (r, result) in var_results.iter().enumerate() {
            for (o, out) in var_form.outputs.iter().enumerate() {
                let Some(x) = out.xfb.filter(|x| x.buffer == b) else {
                    continue;
                };
                // Never-written captured outputs capture undefined values.
                let Some(comps) = result.outputs[o].clone() else {
                    let at = r * stride as usize + x.offset as usize;
                    let len = out.ty.comps as usize * (out.ty.bits / 8) as usize;
                    dont_care.extend(at..at + len);
                    continue;
                };
                let width = (out.ty.bits / 8) as usize;
                let at = r * stride as usize + x.offset as usize;
                for (c, v) in comps.iter().enumerate() {
                    want[at + c * width..at + (c + 1) * width]
                        .copy_from_slice(&v.to_le_bytes()[..width]);
                }
            }
        }
        expected.push((want, dont_care));
    }
    memory.map(XFB_OFFSETS, vec![0; 16]).unwrap();
    let draw = XfbDraw {
        topology: XfbTopology::PointList,
        count: VERTICES,
        first: RAW_VERTEX_OFFSET,
        vertex_offset: 0,
        index: None,
        buffers,
        offsets_address: XFB_OFFSETS,
        resolved_prims: None,
        provoking: ProvokingVertex::First,
    };
    let state = lowered_state(base, &xfb.push_uniforms, &sysval_block(Some(draw.params())));
    for instance_id in 0..INSTANCES {
        for s in 0..VERTICES {
            let ids = InvocationIds {
                xfb_invocation: s,
                instance_id,
                ..Default::default()
            };
            run_invocation(&xfb.shader, &state, &mut memory, ids)
                .map_err(|e| format!("{name}: XFB variant fails: {e}"))?;
        }
    }
    for (b, (want, dont_care)) in expected.iter().enumerate() {
        if want.is_empty() {
            continue;
        }
        let mut got = memory
            .range(XFB_BASE + ((b as u64) << 24))
            .unwrap()
            .to_vec();
        for &i in dont_care {
            got[i] = want[i];
        }
        if got != *want {
            return Err(format!(
                "{name}: XFB buffer {b} differs\nwant {want:02x?}\ngot  {got:02x?}"
            ));
        }
    }
    XFB_COMPARED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

#[test]
fn lowering_preserves_meaning() {
    let skips: HashMap<&str, &str> = SKIPS.iter().copied().collect();
    let mut failures = Vec::new();
    let mut unexpected_skips = Vec::new();
    let mut compared = 0;
    for (name, bytes) in corpus() {
        if skips.contains_key(name.as_str()) {
            continue;
        }
        let (steps, front) = compile_recorded(&name, &bytes);
        let var_form = &steps[0].1;
        match compare(&name, var_form, &front) {
            Ok(None) => compared += 1,
            Ok(Some(reason)) => {
                unexpected_skips.push(format!("{name}: cannot compare ({reason})"));
            }
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        unexpected_skips.is_empty(),
        "{}",
        unexpected_skips.join("\n")
    );
    assert!(compared >= 25, "only {compared} shaders compared");
    let xfb = XFB_COMPARED.load(std::sync::atomic::Ordering::Relaxed);
    assert!(xfb >= 8, "only {xfb} XFB variants compared");
    eprintln!("compared {compared} shaders, {xfb} XFB variants; skipped {SKIPS:?}");
}

#[test]
fn specialized_shaders_preserve_meaning() {
    // Non-default specialization: other trip counts, a taken branch, a
    // larger workgroup.
    type SpecPairs<'a> = &'a [(u32, &'a [u8])];
    let cases: &[(&str, SpecPairs)] = &[
        (
            "spec_constants.vert.spv",
            &[
                (0, &7i32.to_le_bytes()),
                (1, &2.5f32.to_le_bytes()),
                (2, &1u32.to_le_bytes()),
                (3, &3u32.to_le_bytes()),
            ],
        ),
        (
            "spec_constant_op.comp.spv",
            &[
                (0, &16u32.to_le_bytes()),
                (1, &4u32.to_le_bytes()),
                (2, &5i32.to_le_bytes()),
            ],
        ),
        (
            "vk13_spec_local_size.comp.spv",
            &[(3, &8u32.to_le_bytes()), (4, &2u32.to_le_bytes())],
        ),
    ];
    for (name, pairs) in cases {
        let spec: SpecConstants = pairs.iter().map(|(k, v)| (*k, v.to_vec())).collect();
        let bytes = std::fs::read(shader_dir().join(name)).unwrap();
        let (steps, front) = compile_recorded_with(name, &bytes, &spec);
        let (_, default) = compile_recorded(name, &bytes);
        assert_ne!(
            front.main.shader, default.main.shader,
            "{name}: specialization ignored"
        );
        for (step, s) in &steps {
            assert_eq!(
                Shader::parse(&s.to_string()).as_ref(),
                Ok(s),
                "{name} after {step}"
            );
        }
        assert_eq!(compare(name, &steps[0].1, &front), Ok(None), "{name}");
    }
}

#[test]
fn compile_front_is_the_observed_pipeline() {
    // The plain entry point gives the same result as the observed one.
    for (name, bytes) in corpus().into_iter().take(6) {
        let (_, observed) = compile_recorded(&name, &bytes);
        let plain = compile_front(&bytes, "main", stage_of(&name), &SpecConstants::new()).unwrap();
        assert_eq!(plain.main.shader, observed.main.shader, "{name}");
    }
}

// ---- snapshots: the IR after every step, for review ----

/// Shaders whose every step is checked in: a Zink XFB vertex shader, an
/// ANGLE-style one, a compute shader with loops and switches, a vertex
/// shader with specialization constants.
const SNAPSHOTS: &[&str] = &[
    "zink_xfb_position_clip.vert.spv",
    "angle_xfb_block.vert.spv",
    "switch_nested_break.comp.spv",
    "spec_constants.vert.spv",
    "div_loop.comp.spv",
];

#[test]
fn snapshots_after_every_step() {
    let mut failures = Vec::new();
    for name in SNAPSHOTS {
        let bytes = std::fs::read(shader_dir().join(name)).unwrap();
        let (steps, _) = compile_recorded(name, &bytes);
        let dir = shader_dir()
            .join("snapshots")
            .join(name.trim_end_matches(".spv"));
        let mut expected_files = BTreeSet::new();
        for (n, (step, s)) in steps.iter().enumerate() {
            let file = format!("{n:02}-{step}.ir");
            if let Err(e) = bless::check(&dir.join(&file), &s.to_string()) {
                failures.push(e);
            }
            expected_files.insert(file);
        }
        // Stale snapshots of steps that no longer exist.
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                let file = e.file_name().to_string_lossy().into_owned();
                if !expected_files.contains(&file) {
                    if bless::enabled() {
                        std::fs::remove_file(e.path()).unwrap();
                    } else {
                        failures.push(format!("{}: stale snapshot", e.path().display()));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches (BLESS=1 to accept):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
#[ignore = "debug helper: SHADER=name.spv cargo test --test compiler_corpus dump -- --ignored --nocapture"]
fn dump() {
    // The IR after every step of the front half (or the error), for one
    // corpus module; STEP=<substring> keeps only matching steps.
    let name = std::env::var("SHADER").unwrap_or_else(|_| "zink_xfb_position_clip.vert.spv".into());
    let filter = std::env::var("STEP").unwrap_or_default();
    let bytes = match std::fs::read(shader_dir().join(&name)) {
        Ok(b) => b,
        Err(e) => return println!("{name}: {e}"),
    };
    let result = compile_front_observed(
        &bytes,
        "main",
        stage_of(&name),
        &SpecConstants::new(),
        &mut |v, pass, s| {
            let step = step_name(v, pass);
            if step.contains(&filter) {
                println!("// ---- {name}: after {step}\n{s}");
            }
        },
    );
    match result {
        Ok(front) => {
            for v in front.variants() {
                println!(
                    "// {} variant: {:?}\n// push uniforms: {:?}",
                    v.variant.name(),
                    v.io,
                    v.push_uniforms.words
                );
            }
        }
        Err(e) => println!("{name}: {e}"),
    }
}

mod robustness {
    //! Mutated corpus modules that still parse must lower through the whole
    //! pipeline, or fail with a `FrontError`, never panic (in release builds;
    //! debug builds also panic on invalid IR from an optimisation pass, which
    //! this catches as well). `FRONT_FUZZ_CASES` sets the number of cases.

    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: std::env::var("FRONT_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1000),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]
        #[test]
        fn mutated_modules_never_panic_the_pipeline(
            index in 0usize..1000,
            flips in proptest::collection::vec((0.0f64..1.0, 0u8..32), 1..4),
        ) {
            let corpus = corpus();
            let (name, bytes) = &corpus[index % corpus.len()];
            let mut words: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            for (at, bit) in &flips {
                // Skip the 5-word header so most cases reach the translator.
                let i = 5 + ((words.len() - 5) as f64 * at) as usize;
                if let Some(w) = words.get_mut(i) {
                    *w ^= 1 << bit;
                }
            }
            let mutated: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let stage = stage_of(name);
            let outcome = std::panic::catch_unwind(|| {
                compile_front(&mutated, "main", stage, &SpecConstants::new()).map(|_| ())
            });
            prop_assert!(outcome.is_ok(), "{name} with {flips:?} panicked");
        }
    }
}

#[test]
fn the_benchmark_covers_the_corpus() {
    let bench = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/spirv_frontend.rs"),
    )
    .unwrap();
    let missing: Vec<String> = corpus()
        .into_iter()
        .map(|(name, _)| name)
        .filter(|name| !bench.contains(&format!("\"{name}\"")))
        .collect();
    assert!(
        missing.is_empty(),
        "add to benches/spirv_frontend.rs SHADERS: {missing:?}"
    );
}
