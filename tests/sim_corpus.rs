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
//! Vertex shaders (tests/shaders/*.vert.spv) run twice: as the **XFB
//! capture job** of a draw (`jm::add_xfb_job`, a VERTEX-typed job; shaders
//! without XFB decorations get every 32-bit output captured so that all
//! their outputs are compared, see `capture_everything`), and their
//! **rasterization variant** as a plain VERTEX job whose varying buffers
//! (position, point size, generic slots; `jm::varying`) are compared byte
//! for byte.
//!
//! Shaders the backend cannot compile are listed with the exact
//! `CompileError` ([`EXPECTED_SKIPS`]); an unlisted shader that does not
//! compile, or any error other than `Unsupported`, fails the test; a listed
//! one that starts compiling is compared like the rest.
//!
//! Shaders that use float ops the backend approximates (division,
//! reciprocal, square roots, exp2/log2/pow, sin/cos) cannot match the
//! interpreter's correctly rounded results bit for bit: they are compared
//! as f32 words within a per-shader bound ([`TOLERANCES`]); every other
//! shader is compared exactly, and one that uses an approximated op without
//! a listed bound fails.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use bifrost_vk::compiler::bifrost::binary::{BUFFER_SIZE_WORD, ShaderBinary};
use bifrost_vk::compiler::bifrost::{Options, compile};
use bifrost_vk::compiler::ir::interp::{BufferRange, DrawState, Memory, run_workgroup};
use bifrost_vk::compiler::ir::*;
use bifrost_vk::compiler::passes::*;
use bifrost_vk::compiler::spirv;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::SimGpu;

#[path = "support/pointers.rs"]
mod pointers;
#[path = "support/varyings.rs"]
mod varyings;

/// Bytes of every synthesised buffer.
const BUFFER_BYTES: usize = 16 << 10;
/// Workgroups of every dispatch.
const GROUPS: [u32; 3] = [2, 1, 1];
/// Bytes of push constants offered (Vulkan's minimum maxPushConstantsSize).
const PUSH_BYTES: usize = 128;

/// Compute shaders the backend does not compile yet, with the reason it gave
/// when this list was last updated (the backend is still growing: a listed
/// shader may fail on a later op; it must fail with a clean `Unsupported`).
const EXPECTED_SKIPS: &[(&str, &str)] = &[(
    "int64_double.comp.spv",
    "unsupported by the Bifrost backend: fmul on f64 (64-bit float): Bifrost has no fp64 arithmetic",
)];

/// How far a shader's results may be from the interpreter's: a word
/// matches if its bits are equal, both are NaN, or both are finite f32 with
/// |sim − interp| ≤ `rel` · |interp| + `abs` (infinities must be equal).
#[derive(Clone, Copy, Debug)]
struct Tolerance {
    rel: f64,
    abs: f64,
}

/// Shaders using approximated float ops, with their bound and why.
///
/// These bounds are regression bounds for *our* sequences, tighter than
/// what Vulkan's precision rules would allow these shaders (those are
/// data-dependent and far looser: sin alone may be off by 2^-11 absolute).
/// Conformance to the spec's bounds is tested op by op in
/// tests/float_precision.rs, which measures our sequences at ≤ 0.95 ULP
/// (sin/cos ≤ 6.6e-8 absolute). Here a value may differ from the
/// interpreter's correctly rounded one by those ULP-level errors carried
/// through the shader's remaining arithmetic; a bug in selection,
/// allocation or scheduling gives an unrelated value, and an approximation
/// made worse by a few hundred ULP fails (checked by perturbing a sine
/// coefficient). Loosening a sequence within the spec may need these
/// widened, with the reason here.
const TOLERANCES: &[(&str, Tolerance)] = &[
    // v_color = vec4(c, 1) · albedo · sin(time): the sine is the only inexact
    // factor; an absolute sine error ε scales the product by
    // (1 + ε / sin(time)). With ε ≤ 6.6e-8 ≈ 2^-23.9 and |sin(time)| ≥ 2^-5,
    // that is < 2^-18 relative. gl_Position is exact arithmetic.
    (
        "ubo_std140.vert.spv",
        Tolerance {
            rel: 1.0 / (1 << 18) as f64,
            abs: 0.0,
        },
    ),
    // r = a sum of ~40 GLSL.std.450 terms of x and y, ~20 of them
    // approximated (sqrt, inversesqrt, exp, log, pow, sin, cos, tan, the
    // inverse trigonometric and hyperbolic functions, length, normalize,
    // refract ...), each ≤ 1 ULP of its magnitude (≤ 2^3 for inputs in
    // (0, 1)): ≤ 20 · 2^-20 < 2^-12 absolute, which also covers
    // cancellation in the sum; the relative 2^-18 covers the corpus's own
    // inputs, where r is dominated by inversesqrt(denormal) ≈ 5e21.
    (
        "glsl450_math.comp.spv",
        Tolerance {
            rel: 1.0 / (1 << 18) as f64,
            abs: 1.0 / (1 << 12) as f64,
        },
    ),
];

/// Whether the lowered shader uses an op the backend approximates.
fn uses_approximated_ops(s: &Shader) -> bool {
    let mut any = false;
    s.body.for_each_instr(&mut |i| {
        if let Op::Alu(a) = &i.op {
            any |= matches!(
                a.op,
                AluOp::Fdiv
                    | AluOp::Frcp
                    | AluOp::Frsq
                    | AluOp::Fsqrt
                    | AluOp::Fexp2
                    | AluOp::Flog2
                    | AluOp::Fsin
                    | AluOp::Fcos
                    | AluOp::Fpow
            );
        }
    });
    any
}

/// The comparison mode of a shader: `Ok(None)` exact, `Ok(Some(t))` within
/// `t`, `Err` if it uses approximated ops but has no listed bound.
fn tolerance_of(name: &str, s: &Shader) -> Result<Option<Tolerance>, String> {
    let listed = TOLERANCES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t);
    match (uses_approximated_ops(s), listed) {
        (false, _) => Ok(None),
        (true, Some(t)) => Ok(Some(t)),
        (true, None) => Err(format!(
            "{name} uses approximated float ops: give it a bound in TOLERANCES"
        )),
    }
}

/// Whether one 32-bit word of the simulator matches the interpreter's.
fn word_matches(got: u32, want: u32, tolerance: Option<Tolerance>) -> bool {
    if got == want {
        return true;
    }
    let Some(t) = tolerance else {
        return false;
    };
    let (g, w) = (f32::from_bits(got), f32::from_bits(want));
    if g.is_nan() || w.is_nan() {
        return g.is_nan() && w.is_nan();
    }
    if g.is_infinite() || w.is_infinite() {
        return g == w;
    }
    let (g, w) = (f64::from(g), f64::from(w));
    (g - w).abs() <= t.rel * w.abs() + t.abs
}

/// The first byte of the first word that does not match, if any, and the
/// largest relative deviation |sim − interp| / |interp| among matching
/// words that are not bit-identical (for the record).
fn compare_bytes(got: &[u8], want: &[u8], tolerance: Option<Tolerance>) -> (Option<usize>, f64) {
    let mut worst = 0f64;
    let word = |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    for i in (0..got.len().min(want.len()) & !3).step_by(4) {
        let (g, w) = (word(got, i), word(want, i));
        if !word_matches(g, w, tolerance) {
            return (Some(i), worst);
        }
        let (g, w) = (f64::from(f32::from_bits(g)), f64::from(f32::from_bits(w)));
        if g != w && w.is_finite() && w != 0.0 {
            worst = worst.max((g - w).abs() / w.abs());
        }
    }
    let tail = got.len().min(want.len()) & !3;
    if got[tail..] != want[tail..] || got.len() != want.len() {
        return (Some(tail), worst);
    }
    (None, worst)
}

/// Compute shaders that compile but whose result depends on the order of
/// their invocations' atomics: checked by a dedicated test each instead.
const ORDER_DEPENDENT: &[&str] = &["shared_atomics.comp.spv"];

/// Compute shaders that sample textures: run with texture and sampler
/// descriptors against the reference sampler by `sim_textures.rs`.
const TEXTURED: &[&str] = &[
    "texture_array.comp.spv",
    "texture_gather.comp.spv",
    "texture_gather_array.comp.spv",
    "texture_gather_dref.comp.spv",
    "texture_int.comp.spv",
    "texture_lod.comp.spv",
    "texture_offset.comp.spv",
    "texture_shadow.comp.spv",
    "texture_size.comp.spv",
];

fn shader_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders")
}

/// The names of the corpus shaders ending in `suffix`, sorted.
fn corpus(suffix: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(shader_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(suffix))
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

/// The UBO table of `binary` (`Options::ubo_table`): every binding is
/// BUFFER_BYTES long.
fn ubo_table(binary: &ShaderBinary, addresses: &HashMap<(u32, u32), u64>) -> Vec<(u64, u32)> {
    binary
        .ubos
        .iter()
        .map(|b| (addresses[b], BUFFER_BYTES as u32))
        .collect()
}

/// The FAU words: the push-uniform area, then one address (or bound size)
/// per entry of `binary.buffers`, starting at word `uniform_words − buffers.len()` — the
/// backend's rule (one past the highest `load_uniform` word it still reads
/// after its own optimisation). That can be *less* than the area's length
/// when a trailing push-uniform word is dead (see
/// `dead_trailing_push_constant_and_a_buffer`); the words cut off are read
/// by nobody.
fn fau_words(
    binary: &ShaderBinary,
    mut words: Vec<u64>,
    addresses: &HashMap<(u32, u32), u64>,
) -> Vec<u64> {
    let base = binary.uniform_words as usize - binary.buffers.len();
    words.resize(base, 0);
    for &(set, binding) in &binary.buffers {
        // A size word (every buffer here is BUFFER_BYTES long), or an address.
        words.push(if set & BUFFER_SIZE_WORD != 0 {
            BUFFER_BYTES as u64
        } else {
            addresses[&(set, binding)]
        });
    }
    words
}

/// `s` compiled for `model` (`push_uniform_words` and `ubo_table` as in
/// [`Options`]); a compile error is recorded in `skipped` (on G52 only:
/// once per shader) and gives `None`.
fn compile_or_skip(
    name: &str,
    s: &Shader,
    model: SimModel,
    (push_uniform_words, ubo_table): (Option<u32>, bool),
    skipped: &mut Vec<(String, String)>,
) -> Option<ShaderBinary> {
    let options = Options {
        arch: model.arch().into(),
        push_uniform_words,
        ubo_table,
    };
    match compile(s, options) {
        Ok(b) => Some(b),
        Err(e) => {
            if model == SimModel::G52 {
                skipped.push((name.to_string(), e.to_string()));
            }
            None
        }
    }
}

/// The end of a corpus test: lists what was compared and skipped, fails
/// with every collected failure, then [`check_skips`].
fn finish(
    compared: &[String],
    skipped: &[(String, String)],
    failures: &[String],
    expected: &[(&str, &str)],
) {
    for c in compared {
        eprintln!("compared on G52 and G72: {c}");
    }
    for (n, e) in skipped {
        eprintln!("skipped {n}: {e}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    check_skips(skipped, expected);
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
    run_both_with(name, s, layout, binary, model, &input_word)
}

/// [`run_both`] with buffer contents `input(buffer, word)`.
fn run_both_with(
    name: &str,
    s: &Shader,
    layout: &PushUniformLayout,
    binary: &ShaderBinary,
    model: SimModel,
    input: &dyn Fn(usize, usize) -> u32,
) -> (Outcome, Outcome) {
    let binds = bindings_of(s);
    let mut gpu = SimGpu::new(model);
    let mut push = push_bytes();
    let push_buf = gpu.alloc(PUSH_BYTES as u64);
    let mut addresses = HashMap::new();
    let mut inits = Vec::new();
    for (n, &(b, _)) in binds.iter().enumerate() {
        let bytes: Vec<u8> = (0..BUFFER_BYTES / 4)
            .flat_map(|i| input(n, i).to_le_bytes())
            .collect();
        let buf = gpu.alloc(BUFFER_BYTES as u64);
        gpu.write(buf.va, &bytes);
        addresses.insert(b, buf.va);
        inits.push(bytes);
    }
    pointers::patch_push_constants(name, &mut push, |b| addresses.get(&b).copied());
    gpu.write(push_buf.va, &push);
    let sysvals = SysvalBlock {
        raw_vertex_offset: 0,
        base_vertex: 0,
        base_instance: 0,
        view_index: 0,
        draw_index: 0,
        push_constants_address: push_buf.va,
        num_workgroups: GROUPS,
        xfb_params: [0; lower_xfb::XFB_PARAM_COUNT as usize],
        viewport: [0; 6],
    };
    let words = fau_words(binary, layout.fill_words(&sysvals, &push), &addresses);

    // ---- simulator ----
    let ubos = ubo_table(binary, &addresses);
    let code = gpu.upload(binary);
    gpu.run_compute_job(&bifrost_vk::jm::ComputeJob {
        binary,
        code,
        push_uniforms: &words,
        local_size: s.info.local_size,
        groups: GROUPS,
        ubos: &ubos,
        attributes: None,
        push_buffer: None,
    })
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
    for name in corpus(".comp.spv") {
        if ORDER_DEPENDENT.contains(&name.as_str()) || TEXTURED.contains(&name.as_str()) {
            continue;
        }
        let module = std::fs::read(shader_dir().join(&name)).unwrap();
        let mut s = spirv::parse(&module, "main", Stage::Compute, &HashMap::new())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let layout = lower_sysvals(&mut s);
        let tolerance = match tolerance_of(&name, &s) {
            Ok(t) => t,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        // UBOs read through address words, and (where the shader reads
        // any) through the UBO table, as the driver compiles them.
        for (model, table) in [SimModel::G52, SimModel::G72]
            .into_iter()
            .flat_map(|m| [(m, false), (m, true)])
        {
            // A shader that does not compile is listed once, without the table.
            let mut table_skips = Vec::new();
            let skips = if table {
                &mut table_skips
            } else {
                &mut skipped
            };
            let Some(binary) = compile_or_skip(&name, &s, model, (None, table), skips) else {
                continue;
            };
            if table && binary.ubos.is_empty() {
                continue;
            }
            if !binary.varyings.is_empty() {
                failures.push(format!("{name}: the XFB variant stores varyings"));
                continue;
            }
            let (sim, interp) = run_both(&name, &s, &layout, &binary, model);
            assert!(sim.changed > 0, "{name}: the dispatch wrote nothing");
            if tolerance.is_none() {
                assert_eq!(sim.changed, interp.changed, "{name}");
            }
            for ((b, got), (_, want)) in sim.buffers.iter().zip(&interp.buffers) {
                let (at, worst) = compare_bytes(got, want, tolerance);
                if let Some(at) = at {
                    failures.push(format!(
                        "{name} on {model:?}: binding {b:?} differs at byte {at}: sim {:02x?} interp {:02x?}",
                        &got[at..(at + 4).min(got.len())],
                        &want[at..(at + 4).min(want.len())]
                    ));
                }
                if worst > 0.0 {
                    eprintln!(
                        "{name} on {model:?}: binding {b:?}: largest relative deviation {worst:.2e} (within {tolerance:?})"
                    );
                }
            }
            if model == SimModel::G52 {
                compared.push(format!(
                    "{name}{} ({} instructions, {} bytes written)",
                    if table { " with the UBO table" } else { "" },
                    binary.stats.instructions,
                    sim.changed
                ));
            }
        }
    }
    finish(&compared, &skipped, &failures, EXPECTED_SKIPS);
}

// ---- vertex shaders, as XFB capture jobs ----
//
// Every vertex shader of the corpus runs as the XFB job of a draw: shaders
// with XFB decorations keep them; the others get every 32-bit output
// captured into buffer 0 (consecutive offsets), which exposes all their
// outputs to the comparison. Inputs: one attribute buffer per attribute
// (R32UI × the components the shader reads, small floats), per-vertex.

/// Vertex shaders that do not compile as XFB variants, with the reason.
const EXPECTED_VERTEX_SKIPS: &[(&str, &str)] = &[];

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

/// Components read per attribute location of `s` (`count` locations), at
/// least one each.
fn attribute_comps(s: &Shader, count: usize) -> Vec<u8> {
    let mut comps = vec![0u8; count];
    for i in &s.inputs {
        let c = &mut comps[i.location as usize];
        *c = (*c).max(i.component + i.ty.comps);
    }
    comps.into_iter().map(|c| c.max(1)).collect()
}

/// The push constants and one buffer per binding of `s` (UBOs / SSBOs), as
/// for compute: written to `gpu` and described to the interpreter in
/// `mem`/`state`. Returns the push bytes, their address and the address of
/// each binding.
fn bind_buffers(
    gpu: &mut SimGpu,
    mem: &mut Memory,
    state: &mut DrawState,
    s: &Shader,
) -> (Vec<u8>, u64, HashMap<(u32, u32), u64>) {
    let push = push_bytes();
    let push_buf = gpu.alloc(PUSH_BYTES as u64);
    gpu.write(push_buf.va, &push);
    mem.map(push_buf.va, push.clone()).unwrap();
    let mut addresses = HashMap::new();
    for (n, &(b, ubo)) in bindings_of(s).iter().enumerate() {
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
    (push, push_buf.va, addresses)
}

#[test]
fn vertex_corpus_as_xfb_jobs_matches_the_interpreter() {
    use bifrost_vk::compiler::ir::interp::{InvocationIds, run_invocation};
    use bifrost_vk::compiler::passes::lower_xfb::XfbBinding;
    use bifrost_vk::jm::{XfbJob, add_xfb_job};
    use varyings::attribute_tables;

    let names = corpus(".vert.spv");
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
        // Products fused into sums, as the driver compiles.
        s.opt_contract();
        if !lower_xfb(&mut s) {
            skipped.push((name.clone(), "no 32-bit output to capture".to_string()));
            continue;
        }
        let layout = lower_sysvals(&mut s);
        let tolerance = match tolerance_of(&name, &s) {
            Ok(t) => t,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let comps = attribute_comps(&s, io.attributes.len());
        for model in [SimModel::G52, SimModel::G72] {
            // UBOs through the UBO table, as the driver compiles XFB variants.
            let Some(binary) = compile_or_skip(&name, &s, model, (None, true), &mut skipped) else {
                continue;
            };
            if !binary.varyings.is_empty() {
                failures.push(format!("{name}: the XFB variant stores varyings"));
                continue;
            }
            let arch = model.arch();
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
            // Attributes. Instanced: the linear index is vertex + instance
            // × Instance Size (VERTICES), so per-vertex data is 1D modulus
            // VERTICES.
            let mut state = DrawState::default();
            let attributes = attribute_tables(
                &mut gpu,
                arch,
                &comps,
                VERTICES,
                Some(VERTICES),
                |a, v, c| vertex_word(a as u32, v, c),
                &mut state,
                &mut mem,
            );
            let (push, push_va, addresses) = bind_buffers(&mut gpu, &mut mem, &mut state, &s);
            let sysvals = SysvalBlock {
                raw_vertex_offset: 0,
                base_vertex: first,
                base_instance: 1,
                view_index: 0,
                draw_index: 0,
                push_constants_address: push_va,
                num_workgroups: [0; 3],
                xfb_params: draw.params(),
                viewport: [0; 6],
            };
            let area = layout.fill_words(&sysvals, &push);
            let fau = fau_words(&binary, area, &addresses);
            let ubos = ubo_table(&binary, &addresses);
            let code = gpu.upload(&binary);
            let job = XfbJob {
                binary: &binary,
                code,
                push_buffer: None,
                push_uniforms: &fau,
                ubos: &ubos,
                invocations_per_instance: draw.invocations_per_instance(),
                instance_count: instances,
                attributes: Some(attributes),
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
            state.push_uniforms = fau.iter().flat_map(|w| w.to_le_bytes()).collect();
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
                let (at, worst) = compare_bytes(&got, want, tolerance);
                if let Some(at) = at {
                    failures.push(format!(
                        "{name} on {model:?}: XFB buffer {b} differs at byte {at}: sim {:02x?} interp {:02x?}",
                        &got[at..(at + 4).min(got.len())],
                        &want[at..(at + 4).min(want.len())]
                    ));
                }
                if worst > 0.0 {
                    eprintln!(
                        "{name} on {model:?}: XFB buffer {b}: largest relative deviation {worst:.2e} (within {tolerance:?})"
                    );
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
    finish(&compared, &skipped, &failures, EXPECTED_VERTEX_SKIPS);
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
                    arch: model.arch().into(),
                    push_uniform_words: area,
                    ubo_table: false,
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

// ---- vertex shaders, rasterization variants as VERTEX jobs ----
//
// Every vertex shader's rasterization variant (what `compile_front` makes
// for the vertex/tiler jobs: XFB decorations stripped, outputs as varying
// stores) runs as a VERTEX job with the varying tables of `jm::varying`;
// the bytes of its position, point-size and general varying buffers must
// equal what `ir::interp` computes for the same vertices (as f32 words
// within its `TOLERANCES` bound for a shader with approximated float ops;
// the initial
// pattern where an output is not written). Two jobs per shader: 17
// vertices × 3 instances (Instance Size 18: padded, so elements 17, 35 and
// 53 stay unwritten; per-vertex attributes 1D modulus) and 6 vertices × 1
// instance from `Offset start` 4 (1D linear attributes).

/// Vertex shaders whose rasterization variant does not compile, with the reason.
const EXPECTED_RASTER_SKIPS: &[(&str, &str)] = &[];

#[test]
fn vertex_corpus_as_vertex_jobs_matches_the_interpreter() {
    use bifrost_vk::compiler::ir::interp::DrawState;
    use bifrost_vk::compiler::pipeline::{Variant, compile_front};
    use varyings::{
        VaryingJob, attribute_span, attribute_tables, first_difference, run_and_expect,
    };

    let names = corpus(".vert.spv");
    let (mut skipped, mut compared, mut failures) = (Vec::new(), Vec::new(), Vec::new());
    for name in names {
        let module = std::fs::read(shader_dir().join(&name)).unwrap();
        let front = compile_front(&module, "main", Stage::Vertex, &HashMap::new())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let main = &front.main;
        assert_eq!(main.variant, Variant::Rasterization, "{name}");
        assert!(
            main.shader.outputs.iter().all(|o| o.xfb.is_none()),
            "{name}: the rasterization variant keeps no XFB decorations"
        );
        // The XFB variant of a shader with captured outputs stores no
        // varyings (its job has no varying tables); its own test runs it.
        if let Some(x) = &front.xfb {
            assert!(x.io.varyings.is_empty(), "{name}");
            if let Ok(b) = compile(&x.shader, Options::default()) {
                assert!(b.varyings.is_empty(), "{name}: XFB variant stores varyings");
            }
        }
        let s = &main.shader;
        let tolerance = tolerance_of(&name, s).unwrap_or_else(|e| panic!("{e}"));
        let comps = attribute_comps(s, main.io.attributes.len());
        for model in [SimModel::G52, SimModel::G72] {
            let push_words = Some(main.push_uniforms.words.len() as u32);
            let Some(binary) = compile_or_skip(&name, s, model, (push_words, false), &mut skipped)
            else {
                continue;
            };
            let arch = model.arch();
            let mut bytes_written = 0;
            for (vertices, instances, offset_start) in [(17u32, 3u32, 0u32), (6, 1, 4)] {
                let what =
                    format!("{name} on {model:?}, {vertices}×{instances} from {offset_start}");
                let mut gpu = SimGpu::new(model);
                let mut mem = Memory::new();
                let mut state = DrawState::default();
                let (elements, modulus) = attribute_span(vertices, instances, offset_start);
                let attributes = attribute_tables(
                    &mut gpu,
                    arch,
                    &comps,
                    elements,
                    modulus,
                    |a, e, c| vertex_word(a as u32, e, c),
                    &mut state,
                    &mut mem,
                );
                let (push, push_va, addresses) = bind_buffers(&mut gpu, &mut mem, &mut state, s);
                // A non-indexed draw from firstVertex = Offset start.
                let sysvals = SysvalBlock {
                    raw_vertex_offset: offset_start,
                    base_vertex: offset_start,
                    base_instance: 1,
                    view_index: 0,
                    draw_index: 0,
                    push_constants_address: push_va,
                    num_workgroups: [0; 3],
                    xfb_params: SysvalBlock::default().xfb_params,
                    viewport: [0; 6],
                };
                let area = main.push_uniforms.fill_words(&sysvals, &push);
                let words = fau_words(&binary, area, &addresses);
                state.push_uniforms = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                state.push_constants = push.clone();
                let job = VaryingJob {
                    shader: s,
                    io: &main.io,
                    binary: &binary,
                    push_uniforms: &words,
                    ubos: &[],
                    attributes,
                    vertices,
                    instances,
                    offset_start,
                };
                match run_and_expect(&mut gpu, &job, &state, &mut mem) {
                    Err(e) => failures.push(format!("{what}: {e}")),
                    Ok((_, bufs)) => {
                        for b in &bufs {
                            bytes_written += b.written;
                            if compare_bytes(&b.got, &b.want, tolerance).0.is_some() {
                                let d = first_difference(b).unwrap_or_default();
                                failures.push(format!("{what}: {d}"));
                            }
                        }
                        if !bufs
                            .iter()
                            .any(|b| b.kind == bifrost_vk::jm::varying::VaryingBufferKind::Position)
                            && s.outputs
                                .iter()
                                .any(|o| o.slot == OutputSlot::BuiltIn(BuiltIn::Position))
                        {
                            failures.push(format!("{what}: no position buffer"));
                        }
                    }
                }
            }
            if model == SimModel::G52 {
                compared.push(format!(
                    "{name} ({} instructions, {} varyings, {bytes_written} varying bytes)",
                    binary.stats.instructions,
                    binary.varyings.len()
                ));
            }
        }
    }
    finish(&compared, &skipped, &failures, EXPECTED_RASTER_SKIPS);
}

/// glsl450_math.comp over eight input sets, within its [`TOLERANCES`]
/// bound: the corpus test runs it on the synthesised inputs only, which
/// leave most of its float result NaN or dominated by inversesqrt of a
/// denormal; inputs in (0.05, 0.95) keep every GLSL.std.450 function
/// (sqrt, inversesqrt, exp, log, pow, sin, cos, tan, asin ... frexp, ldexp,
/// and the pack/unpack words) defined, so each term counts.
#[test]
fn glsl450_math_within_tolerance_over_eight_input_sets() {
    let name = "glsl450_math.comp.spv";
    let module = std::fs::read(shader_dir().join(name)).unwrap();
    let mut s = spirv::parse(&module, "main", Stage::Compute, &HashMap::new()).unwrap();
    let layout = lower_sysvals(&mut s);
    s.optimize();
    let tolerance = tolerance_of(name, &s).unwrap();
    assert!(tolerance.is_some(), "glsl450_math uses approximated ops");
    // The corpus inputs (x.x, x.z in [-125, 125], x.y, x.w denormal) leave
    // b.v[2] mostly NaN or dominated by inversesqrt(denormal); inputs in
    // (0.05, 0.95) keep every GLSL.std.450 function of the shader defined,
    // so each term counts. Set 0 is the corpus's own.
    let sets: Vec<Box<dyn Fn(usize, usize) -> u32>> =
        std::iter::once(Box::new(input_word) as Box<dyn Fn(usize, usize) -> u32>)
            .chain((1..8u32).map(|k| {
                Box::new(move |n: usize, i: usize| {
                    if i < 8 {
                        let h = (i as u32 * 4 + k).wrapping_mul(2654435761).rotate_left(11);
                        (0.05 + 0.9 * (h % 10007) as f32 / 10007.0).to_bits()
                    } else {
                        input_word(n, i)
                    }
                }) as Box<dyn Fn(usize, usize) -> u32>
            }))
            .collect();
    let mut worst_all = 0f64;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile(
            &s,
            Options {
                arch: model.arch().into(),
                ..Options::default()
            },
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        for (k, input) in sets.iter().enumerate() {
            let (sim, interp) = run_both_with(name, &s, &layout, &binary, model, input.as_ref());
            assert!(sim.changed > 0 && interp.changed > 0, "nothing written");
            let (got, want) = (&sim.buffers[0].1, &interp.buffers[0].1);
            let r: Vec<f32> = got[32..48]
                .chunks(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            if k > 0 {
                assert!(
                    r.iter().all(|v| v.is_finite()),
                    "input set {k}: b.v[2] = {r:?}"
                );
            }
            let (at, worst) = compare_bytes(got, want, tolerance);
            if let Some(at) = at {
                let f = |x: &[u8]| f32::from_le_bytes([x[at], x[at + 1], x[at + 2], x[at + 3]]);
                panic!(
                    "{name} on {model:?}, input set {k}: word at byte {at}: sim {:e} interp {:e}",
                    f(got),
                    f(want)
                );
            }
            worst_all = worst_all.max(worst);
        }
        eprintln!(
            "{name} on {model:?}: {} instructions, {} input sets, largest relative deviation {worst_all:.2e}",
            binary.stats.instructions,
            sets.len()
        );
    }
}

/// The rules of the tolerant comparison.
#[test]
fn tolerant_word_comparison() {
    let t = Some(Tolerance {
        rel: 1.0 / (1 << 18) as f64,
        abs: 1.0 / (1 << 12) as f64,
    });
    let b = f32::to_bits;
    assert!(word_matches(b(1.0), b(1.0), None));
    assert!(!word_matches(b(1.0), b(1.0 + f32::EPSILON), None));
    assert!(word_matches(b(1000.0), b(1000.0 + 1000.0 / 300_000.0), t));
    assert!(!word_matches(b(1000.0), b(1000.0 + 1000.0 / 100_000.0), t));
    assert!(word_matches(b(1e-4), b(2e-4), t), "absolute part");
    assert!(!word_matches(b(0.0), b(1e-3), t));
    assert!(word_matches(f32::NAN.to_bits(), 0x7fc0_0001, t), "any NaN");
    assert!(!word_matches(f32::NAN.to_bits(), b(1.0), t));
    assert!(!word_matches(b(f32::INFINITY), b(f32::MAX), t));
    assert!(!word_matches(b(f32::INFINITY), b(f32::NEG_INFINITY), t));
    let (at, _) = compare_bytes(&[0, 0, 0x80, 0x3f, 1, 2], &[0, 0, 0x80, 0x3f, 1, 3], t);
    assert_eq!(
        at,
        Some(4),
        "bytes after the last whole word compare exactly"
    );
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
    let init = |_: usize, word: usize| -> u32 {
        match word {
            0 => 0,     // hits
            1 => 5000,  // minimum
            2..66 => 0, // ids[0..64]
            _ => SENTINEL,
        }
    };
    for model in [SimModel::G52, SimModel::G72] {
        let options = Options {
            arch: model.arch().into(),
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

/// `buffer_reference.comp` against its GLSL, computed here from the
/// harness's inputs (the differential test above compares the simulator
/// with the interpreter of the same IR; this checks what that IR means):
/// invocation `g` (of 2 × 16) works on the 64-byte `Block` at word `16g`
/// of binding 0, whose address the push constants hold.
#[test]
fn buffer_reference_matches_the_glsl() {
    let name = "buffer_reference.comp.spv";
    let module = std::fs::read(shader_dir().join(name)).unwrap();
    let mut s = spirv::parse(&module, "main", Stage::Compute, &HashMap::new()).unwrap();
    let layout = lower_sysvals(&mut s);
    assert_eq!(s.info.local_size, [16, 1, 1]);
    // Binding 0 (the heap) and binding 1 (the results), as `run_both` fills them.
    let mut heap: Vec<u32> = (0..BUFFER_BYTES / 4).map(|i| input_word(0, i)).collect();
    let mut out: Vec<u32> = (0..BUFFER_BYTES / 4).map(|i| input_word(1, i)).collect();
    for g in 0..32usize {
        let (l, b) = (g % 16, 16 * g);
        let f = |w: u32| f32::from_bits(w);
        // v.x + v.z; m is row-major mat2x3 at byte 16: m[c][r] at 16 + 8r + 4c.
        let mut r = (f(heap[b]) + f(heap[b + 2])).to_bits();
        r ^= heap[b + 9].wrapping_add(heap[b + 6].wrapping_mul(3));
        let big = (u64::from(heap[b + 10]) | u64::from(heap[b + 11]) << 32)
            .wrapping_mul(3)
            .wrapping_add(g as u64);
        heap[b + 10] = big as u32;
        heap[b + 11] = (big >> 32) as u32;
        let slot = b + 12 + (l & 3);
        let old = heap[slot];
        heap[slot] = old.wrapping_add(l as u32);
        let sum = (0..4).fold(0u32, |acc, k| {
            acc.wrapping_add(heap[b + 12 + k].wrapping_mul(k as u32 + 1))
        });
        out[4 * g] = r;
        out[4 * g + 1] = ((big >> 7) as u32) ^ old;
        out[4 * g + 2] = sum;
        // The walk ends 48 + 16 bytes past the block.
        out[4 * g + 3] = 64u32.wrapping_add(heap[slot]);
    }
    let bytes = |w: &[u32]| -> Vec<u8> { w.iter().flat_map(|v| v.to_le_bytes()).collect() };
    for model in [SimModel::G52, SimModel::G72] {
        let options = Options {
            arch: model.arch().into(),
            ..Options::default()
        };
        let binary = compile(&s, options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (sim, interp) = run_both(name, &s, &layout, &binary, model);
        for (who, o) in [("simulator", &sim), ("interpreter", &interp)] {
            assert_eq!(o.buffers[0].0, (0, 0));
            assert!(o.buffers[0].1 == bytes(&heap), "{model:?} {who}: heap");
            assert!(o.buffers[1].1 == bytes(&out), "{model:?} {who}: results");
        }
    }
}

/// `buffer_reference_list.comp` against its GLSL: invocation `g` links four
/// 16-byte nodes at byte 64g of binding 0 (`next` pointers, the null pointer
/// last), walks them (reversed for odd g) and writes through a selected
/// pointer into binding 1. The stored pointers are absolute: binding 0's
/// address is read back from the first one and every other must agree.
#[test]
fn buffer_reference_list_matches_the_glsl() {
    let name = "buffer_reference_list.comp.spv";
    let module = std::fs::read(shader_dir().join(name)).unwrap();
    let mut s = spirv::parse(&module, "main", Stage::Compute, &HashMap::new()).unwrap();
    let layout = lower_sysvals(&mut s);
    assert_eq!(s.info.local_size, [16, 1, 1]);
    let expect = |heap_va: u64| -> (Vec<u32>, Vec<u32>) {
        let mut heap: Vec<u32> = (0..BUFFER_BYTES / 4).map(|i| input_word(0, i)).collect();
        let mut out: Vec<u32> = (0..BUFFER_BYTES / 4).map(|i| input_word(1, i)).collect();
        for g in 0..32usize {
            let (l, b, odd) = (g % 16, 16 * g, g % 2 == 1);
            for k in 0..4usize {
                let next = if odd { k.checked_sub(1) } else { Some(k + 1) };
                let ptr = match next {
                    Some(n) if n < 4 => heap_va + 64 * g as u64 + 16 * n as u64,
                    _ => 0,
                };
                heap[b + 4 * k] = ptr as u32;
                heap[b + 4 * k + 1] = (ptr >> 32) as u32;
            }
            let order: [usize; 4] = if odd { [3, 2, 1, 0] } else { [0, 1, 2, 3] };
            let mut sum = 0u32;
            for (i, &k) in order.iter().enumerate() {
                let count = i as u32 + 1;
                sum = sum.wrapping_add(heap[b + 4 * k + 2].wrapping_mul(count));
                heap[b + 4 * k + 3] = heap[b + 4 * k + 3].wrapping_add(count);
            }
            let t = (f32::from_bits(out[2 * g]) * 2.0).to_bits();
            out[2 * g + usize::from(l % 2 == 0)] = t;
            out[64 + g] = sum;
            out[96 + g] = 4u32.wrapping_add(heap[b + 3]);
        }
        (heap, out)
    };
    let words = |b: &[u8]| -> Vec<u32> {
        b.chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    for model in [SimModel::G52, SimModel::G72] {
        let options = Options {
            arch: model.arch().into(),
            ..Options::default()
        };
        let binary = compile(&s, options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (sim, interp) = run_both(name, &s, &layout, &binary, model);
        for (who, o) in [("simulator", &sim), ("interpreter", &interp)] {
            assert_eq!(o.buffers[0].0, (0, 0));
            let (heap, out) = (words(&o.buffers[0].1), words(&o.buffers[1].1));
            // Invocation 0's node 0 points at its node 1, 16 bytes on.
            let heap_va = (u64::from(heap[0]) | u64::from(heap[1]) << 32) - 16;
            let (want_heap, want_out) = expect(heap_va);
            assert!(heap == want_heap, "{model:?} {who}: nodes");
            assert!(out == want_out, "{model:?} {who}: results");
        }
    }
}
