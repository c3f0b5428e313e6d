//! The compiler's front half as one pipeline: SPIR-V in, the lowered IR
//! variants a Vulkan pipeline needs out, each with the layouts the job
//! emitter fills descriptors and push uniforms from. The backend
//! (`bifrost::compile`) consumes [`LoweredShader::shader`].
//!
//! It must never panic on any input module: SPIR-V the front end rejects,
//! IR a pass leaves invalid and layouts the hardware cannot hold come back as
//! [`FrontError`] values. (Debug builds are stricter on purpose:
//! `Shader::run_pass` panics on invalid IR right after the optimisation pass
//! that produced it, naming the pass.) Tested on the corpus and on
//! bit-flipped corpus modules (`tests/compiler_corpus.rs`).
//!
//! # Passes, in order
//! Shared by every variant:
//! 1. `spirv` — [`spirv::parse`] (var form: function variables, loads, stores);
//! 2. `lower_vars_to_ssa`;
//! 3. `optimize` — fold, algebraic, copy-prop, CSE, DCE, if-merge until stable (it
//!    turns push-constant offsets into constants, which `lower_sysvals` needs
//!    to use FAU words instead of global loads); then `opt_loop_unroll`
//!    (loops with a small constant trip count) and, if it unrolled
//!    anything, `optimize` again; `opt_dse` (output stores overwritten on
//!    every path);
//! 4. `lower_io` — attribute and varying slots ([`IoLayout`]), then
//!    `lower_robust_buffers` only with [`FrontOptions::robust_buffer_access`],
//!    then `lower_int64` (64-bit division, remainder, abs, sign and
//!    int → float conversions the backend has no sequence for).
//!
//! Then per variant, on its own copy of the shader:
//! 5. `strip_xfb` (rasterization variant of a vertex shader), `lower_xfb`
//!    (XFB variant, only if the shader has XFB outputs or writes memory), nothing for compute and fragment shaders;
//! 6. `lower_sysvals` — push-uniform layout ([`PushUniformLayout`]), then
//!    `opt_licm` (loop-invariant code out of the loops left), then
//!    `opt_split_div` (a run-time divisor's reciprocal computed once, after
//!    the divisor, when a loop or several divisions use it);
//! 7. `optimize_round` — one round of the same passes cleans up what the
//!    lowering introduced (the XFB prologue's constants, sysval arithmetic,
//!    duplicate uniform loads, copies); a second round finds nothing on any
//!    corpus shader (tested), so it is not run;
//! 8. `compact_values` — dense value ids in text order for the backend.
//!
//! The order `lower_io` → `lower_xfb` → `lower_sysvals` is the one
//! `passes/lower_xfb.rs` documents. Debug builds (the tests) validate after
//! every step, release builds once per variant, after its last; with
//! `BIFROST_VK_DEBUG=ir` the IR is printed to stderr after the translation,
//! every lowering step and every optimisation pass that made progress (see
//! docs/DEBUGGING.md). [`compile_front_observed`] hands the IR after every
//! step to a callback (the corpus and snapshot tests use it).

use crate::compiler::ir::validate::ValidationError;
use crate::compiler::ir::{Shader, Stage};
use crate::compiler::passes::lower_xfb::{XFB_MAX_BUFFERS, lower_xfb_or_stores, writes_memory};
use crate::compiler::passes::{IoLayout, PushUniformLayout, debug_flag};
use crate::compiler::spirv::{self, SpecConstants, SpirvError};

/// Most 64-bit FAU words a shader may preload (the RSD's 7-bit
/// `Preload.Uniform count`).
pub const MAX_FAU_WORDS: usize = 127;

/// Which program of a pipeline stage a lowered shader is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// A compute shader.
    Compute,
    /// A vertex shader as the vertex/tiler jobs run it (no capture).
    Rasterization,
    /// A vertex shader's transform-feedback capture job (`lower_xfb`).
    Xfb,
    /// A fragment shader.
    Fragment,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Compute => "compute",
            Variant::Rasterization => "rasterization",
            Variant::Xfb => "xfb",
            Variant::Fragment => "fragment",
        }
    }
}

/// Why the front half could not produce a shader.
#[derive(Debug, thiserror::Error)]
pub enum FrontError {
    #[error(transparent)]
    Spirv(#[from] SpirvError),
    /// A pass produced IR that does not validate: a compiler bug, reported
    /// instead of miscompiling.
    #[error("IR invalid after {pass} ({}): {error}", variant.map_or("shared", Variant::name))]
    InvalidIr {
        variant: Option<Variant>,
        pass: &'static str,
        error: ValidationError,
    },
    #[error("{} variant needs {words} push-uniform words, at most {MAX_FAU_WORDS} fit", variant.name())]
    TooManyPushUniforms { variant: Variant, words: usize },
}

/// One lowered program and what the job emitter needs to run it.
#[derive(Clone, Debug)]
pub struct LoweredShader {
    pub variant: Variant,
    /// The lowered IR (SSA, no variables, sysvals in push uniforms).
    pub shader: Shader,
    /// Attribute and varying slots (empty for compute). The XFB variant
    /// shares the rasterization variant's attributes and declares no varyings.
    pub io: IoLayout,
    /// The words of the push-uniform (FAU) area, in order.
    pub push_uniforms: PushUniformLayout,
}

/// Everything the front half produces for one shader stage.
#[derive(Clone, Debug)]
pub struct FrontShaders {
    /// The rasterization variant of a vertex shader, or the compute shader.
    pub main: LoweredShader,
    /// The XFB variant, for vertex shaders with XFB outputs or stores.
    pub xfb: Option<LoweredShader>,
    /// `XfbStride` of each XFB buffer the shader captures to, 0 for the
    /// others (what the per-draw offset advance needs).
    pub xfb_strides: [u32; XFB_MAX_BUFFERS as usize],
    /// A vertex shader that writes memory (SSBO/global stores, atomics):
    /// its XFB variant exists even without XFB outputs and is also its
    /// vertex stage (`lower_xfb::lower_xfb_or_stores`).
    pub vertex_stores: bool,
}

impl FrontShaders {
    /// The variants, main first.
    pub fn variants(&self) -> impl Iterator<Item = &LoweredShader> {
        std::iter::once(&self.main).chain(self.xfb.as_ref())
    }
}

/// What the front half's output depends on besides the module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FrontOptions {
    /// The device enables `robustBufferAccess`: UBO/SSBO accesses are
    /// bounds-checked (`lower_robust_buffers`, after `lower_io`) and the
    /// XFB variant reads zeros for inputs past their bound range.
    pub robust_buffer_access: bool,
    /// The variants will be compiled with `bifrost::Options::ubo_table`:
    /// robust buffer access then leaves UBO loads to the hardware's bounds
    /// check (`passes::lower_robust`).
    pub ubo_table: bool,
    /// Fuse single-use products into the sums that read them
    /// (`passes::opt_contract`), as SPIR-V allows without `NoContraction`.
    /// Off by default: the corpus tests compare the lowered IR with the
    /// unoptimised one bit for bit; the driver and `bifrost-shaderdb` turn
    /// it on.
    pub contract: bool,
}

impl FrontOptions {
    /// What the driver compiles with (`vk/pipeline.rs`) on a device
    /// without `robustBufferAccess`; `bifrost-shaderdb` and the compile
    /// benchmarks use it too. Its backend counterpart is
    /// `bifrost::Options::ubo_table`.
    pub const DRIVER: FrontOptions = FrontOptions {
        robust_buffer_access: false,
        ubo_table: true,
        contract: true,
    };
}

/// Run the front half (see the module doc).
pub fn compile_front(
    module: &[u8],
    entry: &str,
    stage: Stage,
    spec: &SpecConstants,
) -> Result<FrontShaders, FrontError> {
    compile_front_with(module, entry, stage, spec, FrontOptions::default())
}

/// [`compile_front`] with options.
pub fn compile_front_with(
    module: &[u8],
    entry: &str,
    stage: Stage,
    spec: &SpecConstants,
    options: FrontOptions,
) -> Result<FrontShaders, FrontError> {
    compile_front_full(module, entry, stage, spec, options, &mut |_, _, _| {})
}

/// [`compile_front`], calling `observe(variant, pass, shader)` with the IR
/// after every step (`variant` is `None` for the shared steps 1–4). Passes
/// are named as in the module doc; `observe` sees a step even when it made
/// no progress.
pub fn compile_front_observed(
    module: &[u8],
    entry: &str,
    stage: Stage,
    spec: &SpecConstants,
    observe: &mut dyn FnMut(Option<Variant>, &'static str, &Shader),
) -> Result<FrontShaders, FrontError> {
    compile_front_full(module, entry, stage, spec, FrontOptions::default(), observe)
}

/// [`compile_front_observed`] with options.
pub fn compile_front_full(
    module: &[u8],
    entry: &str,
    stage: Stage,
    spec: &SpecConstants,
    options: FrontOptions,
    observe: &mut dyn FnMut(Option<Variant>, &'static str, &Shader),
) -> Result<FrontShaders, FrontError> {
    let mut step = |variant: Option<Variant>, pass: &'static str, s: &Shader| {
        check_step(variant, pass, s, observe)
    };
    let (mut s, io) = shared_steps(module, entry, stage, spec, options, &mut step)?;
    if stage != Stage::Vertex {
        let variant = if stage == Stage::Compute {
            Variant::Compute
        } else {
            Variant::Fragment
        };
        let main = finish(variant, s, io, &mut step)?;
        return Ok(FrontShaders {
            main,
            xfb: None,
            xfb_strides: [0; XFB_MAX_BUFFERS as usize],
            vertex_stores: false,
        });
    }
    // The rasterization variant's steps come first (what observers see).
    let xfb_source = s.clone();
    let xfb_attributes = io.attributes.clone();
    s.strip_xfb();
    step(Some(Variant::Rasterization), "strip_xfb", &s)?;
    let main = finish(Variant::Rasterization, s, io, &mut step)?;
    let capture = capture_variant(xfb_source, xfb_attributes, options, &mut step)?;
    Ok(FrontShaders {
        main,
        xfb: capture.xfb,
        xfb_strides: capture.xfb_strides,
        vertex_stores: capture.vertex_stores,
    })
}

/// What a vertex pipeline that rasterizes nothing runs: the XFB variant
/// alone ([`compile_vertex_capture`]).
#[derive(Clone, Debug)]
pub struct VertexCapture {
    /// As [`FrontShaders::xfb`].
    pub xfb: Option<LoweredShader>,
    pub xfb_strides: [u32; XFB_MAX_BUFFERS as usize],
    pub vertex_stores: bool,
}

/// The front half of a vertex shader for a pipeline that rasterizes
/// nothing (rasterizer discard, or no attachments): steps 1–4 and the XFB
/// variant, without the rasterization variant nobody would run. Its XFB
/// variant is the same IR [`compile_front_with`] gives.
pub fn compile_vertex_capture(
    module: &[u8],
    entry: &str,
    spec: &SpecConstants,
    options: FrontOptions,
) -> Result<VertexCapture, FrontError> {
    let mut step = |variant: Option<Variant>, pass: &'static str, s: &Shader| {
        check_step(variant, pass, s, &mut |_, _, _| {})
    };
    let (s, io) = shared_steps(module, entry, Stage::Vertex, spec, options, &mut step)?;
    capture_variant(s, io.attributes, options, &mut step)
}

/// One step's checks: validation (every step in debug builds, the last of
/// a variant in release builds: an error then names `compact_values`,
/// whichever pass broke the IR), the `BIFROST_VK_DEBUG=ir` dump, `observe`.
fn check_step(
    variant: Option<Variant>,
    pass: &'static str,
    s: &Shader,
    observe: &mut dyn FnMut(Option<Variant>, &'static str, &Shader),
) -> Result<(), FrontError> {
    if cfg!(debug_assertions) || pass == LAST_STEP {
        s.validate().map_err(|error| FrontError::InvalidIr {
            variant,
            pass,
            error,
        })?;
    }
    // The optimisation passes print themselves (`Shader::run_pass`);
    // the SPIR-V translation and the lowering passes are printed here.
    if !matches!(pass, "lower_vars_to_ssa" | "optimize" | "compact_values") && debug_flag("ir") {
        let v = variant.map_or("shared", Variant::name);
        eprintln!("// IR after {pass} ({v})\n{s}");
    }
    observe(variant, pass, s);
    Ok(())
}

/// Steps 1–4, shared by every variant.
fn shared_steps(
    module: &[u8],
    entry: &str,
    stage: Stage,
    spec: &SpecConstants,
    options: FrontOptions,
    step: &mut Step<'_>,
) -> Result<(Shader, IoLayout), FrontError> {
    let mut s = spirv::parse(module, entry, stage, spec)?;
    step(None, "spirv", &s)?;
    s.lower_vars_to_ssa();
    step(None, "lower_vars_to_ssa", &s)?;
    s.optimize();
    step(None, "optimize", &s)?;
    // After the first optimisation, which makes loop bounds and counters
    // constants; the copies' counter arithmetic folds in the second.
    if s.opt_loop_unroll() {
        step(None, "opt_loop_unroll", &s)?;
        // One round folds the copies' counters (constant folding runs in
        // program order, so a chain of compares and selects on them folds
        // in one walk); the variants' own round cleans up the rest.
        s.optimize_round();
        step(None, "optimize", &s)?;
    }
    // Output stores overwritten on every path (none from SPIR-V, whose
    // outputs are stored once at the end: one walk to find that out).
    if s.opt_dse() {
        step(None, "opt_dse", &s)?;
    }
    let io = s.lower_io();
    step(None, "lower_io", &s)?;
    if options.robust_buffer_access && options.ubo_table {
        s.lower_robust_buffers_except_ubos();
        step(None, "lower_robust_buffers_except_ubos", &s)?;
    } else if options.robust_buffer_access {
        s.lower_robust_buffers();
        step(None, "lower_robust_buffers", &s)?;
    }
    if s.lower_int64() {
        step(None, "lower_int64", &s)?;
    }
    // Before the variants: both compute every product the same way.
    if options.contract && s.opt_contract() {
        step(None, "opt_contract", &s)?;
    }
    Ok((s, io))
}

/// A vertex shader's XFB variant (steps 5–8 on `s`, the shared steps'
/// output), its strides and whether it writes memory; `attributes` are
/// the shared steps' attribute slots.
fn capture_variant(
    mut xfb_shader: Shader,
    attributes: Vec<u32>,
    options: FrontOptions,
    step: &mut Step<'_>,
) -> Result<VertexCapture, FrontError> {
    let s = &xfb_shader;
    let mut xfb_strides = [0; XFB_MAX_BUFFERS as usize];
    for x in s.outputs.iter().filter_map(|o| o.xfb) {
        if let Some(stride) = xfb_strides.get_mut(x.buffer as usize) {
            *stride = x.stride;
        }
    }
    let vertex_stores = writes_memory(s);
    let xfb_io = IoLayout {
        attributes,
        varyings: Vec::new(),
    };
    let robust = options.robust_buffer_access;
    let xfb = if lower_xfb_or_stores(&mut xfb_shader, vertex_stores, robust) {
        step(Some(Variant::Xfb), "lower_xfb", &xfb_shader)?;
        Some(finish(Variant::Xfb, xfb_shader, xfb_io, step)?)
    } else {
        None
    };
    Ok(VertexCapture {
        xfb,
        xfb_strides,
        vertex_stores,
    })
}

/// The last step of every variant: where release builds validate.
const LAST_STEP: &str = "compact_values";

type Step<'a> = dyn FnMut(Option<Variant>, &'static str, &Shader) -> Result<(), FrontError> + 'a;

/// Steps 6 and 7 of one variant.
fn finish(
    variant: Variant,
    mut s: Shader,
    io: IoLayout,
    step: &mut Step<'_>,
) -> Result<LoweredShader, FrontError> {
    let push_uniforms = s.lower_sysvals();
    step(Some(variant), "lower_sysvals", &s)?;
    if push_uniforms.words.len() > MAX_FAU_WORDS {
        return Err(FrontError::TooManyPushUniforms {
            variant,
            words: push_uniforms.words.len(),
        });
    }
    // Invariant code (the lowering's uniform and system-value reads
    // included) out of the loops that are left.
    if s.opt_licm() {
        step(Some(variant), "opt_licm", &s)?;
    }
    // Division by a divisor defined outside the loop that divides, or
    // shared by several divisions: its reciprocal once, after the divisor.
    if s.opt_split_div() {
        step(Some(variant), "opt_split_div", &s)?;
    }
    // The shared steps' output is optimised already: one round cleans up
    // after the lowering (`Shader::optimize_round`).
    s.optimize_round();
    step(Some(variant), "optimize", &s)?;
    s.compact_values();
    step(Some(variant), LAST_STEP, &s)?;
    Ok(LoweredShader {
        variant,
        shader: s,
        io,
        push_uniforms,
    })
}

/// Makes the rasterization variant of a vertex shader store what the tiler
/// reads: `gl_Position` in framebuffer coordinates and 1/w
/// (`passes/lower_viewport.rs`), the viewport's scale and offset appended
/// to [`LoweredShader::push_uniforms`] as sysval words; then `optimize`
/// and `compact_values` again. For vertex shaders whose draws rasterize
/// (`jm::graphics`); [`compile_front`] leaves the variant in clip space
/// because vertex jobs without a tiler (and their tests) read it so.
/// Returns whether the shader stores a position.
pub fn lower_for_tiler(shader: &mut LoweredShader) -> Result<bool, FrontError> {
    let variant = shader.variant;
    if variant != Variant::Rasterization {
        return Ok(false);
    }
    let step = |pass: &'static str, s: &Shader| {
        s.validate().map_err(|error| FrontError::InvalidIr {
            variant: Some(variant),
            pass,
            error,
        })
    };
    if !shader
        .shader
        .lower_viewport_transform(&mut shader.push_uniforms)
    {
        return Ok(false);
    }
    step("lower_viewport", &shader.shader)?;
    if shader.push_uniforms.words.len() > MAX_FAU_WORDS {
        return Err(FrontError::TooManyPushUniforms {
            variant,
            words: shader.push_uniforms.words.len(),
        });
    }
    // Unlike after the per-variant lowering, one round is not always
    // enough here (`tests/shaders/vk/multiview.vert` needs a second):
    // the full loop.
    shader.shader.optimize();
    shader.shader.compact_values();
    step(LAST_STEP, &shader.shader)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_spirv_is_an_error_value() {
        let e = compile_front(&[0u8; 7], "main", Stage::Vertex, &SpecConstants::new()).unwrap_err();
        assert!(matches!(e, FrontError::Spirv(_)), "{e}");
        let e = compile_front(&[], "main", Stage::Compute, &SpecConstants::new()).unwrap_err();
        assert!(matches!(e, FrontError::Spirv(_)), "{e}");
    }

    #[test]
    fn push_uniform_area_is_bounded() {
        // 128 distinct push-constant words: one more than the RSD can preload.
        let mut text = String::from(
            "shader compute \"\" {\n  info local_size 1 1 1 shared 0 push 1024\n  values 257\n",
        );
        for w in 0..128 {
            text += &format!("  %{}:i32 = const {:#x}\n", 2 * w, 8 * w);
            text += &format!(
                "  %{}:i32 = load_push_constant base=0 %{}\n",
                2 * w + 1,
                2 * w
            );
        }
        text += "  %256:i32 = const 0x0\n";
        for w in 0..128 {
            text += &format!("  store_ssbo set=0 binding=0 %{}, %256\n", 2 * w + 1);
        }
        text += "}\n";
        let s = Shader::parse(&text).unwrap();
        s.validate().unwrap();
        let e = finish(Variant::Compute, s, IoLayout::default(), &mut |_, _, _| {
            Ok(())
        })
        .unwrap_err();
        assert!(
            matches!(
                e,
                FrontError::TooManyPushUniforms {
                    variant: Variant::Compute,
                    words: 128
                }
            ),
            "{e}"
        );
    }
}
