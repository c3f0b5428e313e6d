//! What the backend hands to the job emitter: machine code plus what the
//! renderer state descriptor needs (register budget, preloads, FAU words).
//!
//! This is the contract between `compiler::bifrost` and `jm`: nothing else
//! about a compiled shader crosses it.
//!
//! Textures are the one convention outside [`ShaderBinary`]: a `texture`
//! access of (set 0, binding n) reads entry n of the job's Texture table,
//! its sampler (set 0, binding m) entry m of the Sampler table (the
//! instruction's immediate indices; `isel/texture.rs`), so the emitter
//! (`jm::texture`) places descriptors by binding and needs no list from
//! the binary. Bindings a shader samples are in its IR (`Intrinsic::Texture`).

/// Flag in the set of a [`ShaderBinary::buffers`] entry: the word holds
/// the binding's bound size, not its address (descriptor sets number
/// fewer than 2^31, so no set has this bit).
pub const BUFFER_SIZE_WORD: u32 = 1 << 31;

/// Flag in the set of a [`ShaderBinary::buffers`] entry: the word
/// describes the image bound to (set, binding) for `textureSize` and
/// `textureQueryLevels` (the IR's `texture_size`), as Mesa's Bifrost GL
/// driver passes texture sizes in uniforms (`PAN_SYSVAL_TEXTURE_SIZE`): low
/// 32 bits (width − 1) | (height − 1) << 16 of level 0, high 32 bits the
/// number of levels. (The Vulkan layer does not fill it yet: it knows no
/// images.)
pub const TEXTURE_SIZE_WORD: u32 = 1 << 30;

/// Registers the hardware preloads before the first clause runs, requested
/// through the renderer state's Preload word (`Preload` in Mesa's
/// src/panfrost/lib/genxml/v7.xml; register assignment in
/// src/panfrost/compiler/bifrost_compile.c).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Preloads {
    /// Vertex jobs: r61 = raw vertex id (relative to `Offset start`), r62 = instance id.
    pub vertex_id: bool,
    pub instance_id: bool,
    /// Compute jobs: r55 = local invocation id x|y<<16, r56 = z.
    pub local_invocation_xy: bool,
    pub local_invocation_z: bool,
    /// r57..r59 = workgroup id x, y, z.
    pub workgroup: [bool; 3],
    /// r60..r62 = global invocation id x, y, z.
    pub global_invocation: [bool; 3],
}

impl Preloads {
    /// The vertex preloads as bits: 0 vertex id, 1 instance id.
    pub fn vertex_bits(&self) -> u64 {
        bits(&[self.vertex_id, self.instance_id])
    }

    /// The compute preloads as bits: 0 local invocation xy, 1 local
    /// invocation z, 2..=4 workgroup x..z, 5..=7 global invocation x..z.
    pub fn compute_bits(&self) -> u64 {
        let [wx, wy, wz] = self.workgroup;
        let [gx, gy, gz] = self.global_invocation;
        bits(&[
            self.local_invocation_xy,
            self.local_invocation_z,
            wx,
            wy,
            wz,
            gx,
            gy,
            gz,
        ])
    }
}

/// Bit i set when `on[i]`.
fn bits(on: &[bool]) -> u64 {
    on.iter()
        .enumerate()
        .fold(0, |m, (i, &b)| m | u64::from(b) << i)
}

/// Registers a fragment job preloads (`Fragment Preload` in Mesa's
/// src/panfrost/lib/genxml/v7.xml; register numbers from
/// src/panfrost/compiler/bifrost_compile.c). Read in place, never allocated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FragmentPreloads {
    /// r58 = primitive flags (`Primitive flags`, bit 10): 0 for a
    /// front-facing primitive (what `gl_FrontFacing` compares against).
    pub primitive_flags: bool,
    /// r59 = fragment position (`Fragment position`, bit 11): pixel x in
    /// the low, y in the high 16 bits.
    pub fragment_position: bool,
    /// r60 = coverage mask (`Coverage`, bit 7): ATEST, ZS_EMIT and BLEND
    /// read it, ATEST and ZS_EMIT write the updated mask back. Always set.
    pub coverage: bool,
    /// r61 = sample mask/ID (`Sample mask/ID`, bit 13): the source operand
    /// of `LD_VAR*`.
    pub sample_mask_id: bool,
}

/// A compiled Bifrost shader.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShaderBinary {
    /// Clauses, followed by the 128-byte prefetch padding the hardware needs
    /// after the last clause. Uploaded to a GPU buffer at a 128-byte aligned
    /// address; the renderer state's `Shader` points at its first byte.
    pub code: Vec<u8>,
    /// Highest work register used + 1 (decides v7's 32/64 registers-per-thread allocation).
    pub work_registers: u32,
    pub preloads: Preloads,
    /// 64-bit FAU words (push-uniform buffer words) the shader reads: `Preload.Uniform count`.
    pub uniform_words: u32,
    /// Bytes of thread-local storage per thread (spilling), 0 if none.
    pub tls_size: u32,
    /// The shader uses a workgroup barrier (`Shader contains barrier`).
    pub uses_barrier: bool,
    /// Bytes of workgroup shared memory.
    pub shared_size: u32,
    /// Number of vertex attributes read with LD_ATTR (sizes the attribute tables).
    pub attribute_count: u32,
    /// Number of uniform buffers addressed through the UBO table
    /// (`ubos.len()`; 0 without `Options::ubo_table`, where UBOs are read
    /// through `buffers`): the renderer state's `Uniform buffer count`.
    pub ubo_count: u32,
    /// With `Options::ubo_table`: the (set, binding) of each entry of the
    /// job's UBO table, in index order. **Convention**: entry i is the
    /// Uniform Buffer descriptor of the range bound to `ubos[i]` (its
    /// address, and `Entries` = the range in 16-byte units, rounded up).
    pub ubos: Vec<(u32, u32)>,
    /// Buffer bindings the shader addresses (UBO and SSBO alike), as
    /// `(set, binding)`. **Convention**: the FAU words after the
    /// push-uniform area hold, in this order, the 64-bit GPU address of each
    /// binding (buffer address + bind offset; dynamic offsets applied). The
    /// area is `Options::push_uniform_words` long when the caller gives it
    /// (the driver passes `PushUniformLayout::words.len()`), else it ends at
    /// the highest word the shader reads. Either way the first address word
    /// is `uniform_words - buffers.len()`, and `uniform_words` counts them.
    /// An entry whose set has [`BUFFER_SIZE_WORD`] set is instead the byte
    /// size of the range bound to (set without the flag, binding), in the
    /// word's low 32 bits (the IR's `buffer_size`).
    pub buffers: Vec<(u32, u32)>,
    /// The varyings the shader writes (vertex shaders' `store_output`, as
    /// LEA_ATTR + ST_CVT), ascending by record index. **Convention**: the
    /// index of record `i` in the DCD's `Varyings` table is the index of
    /// the output in `Shader::outputs` (so `LoweredShader::io.varyings[i]`
    /// says which slot and component it belongs to); the RSD's `Varying
    /// count` is [`ShaderBinary::varying_count`]. Records the shader never
    /// writes may be left zero. The store writes `words` 32-bit words at the
    /// record's address unconverted, so the record's format must be a
    /// 32-bit format (F32/U32/I32) of `words` components: LEA_ATTR runs with
    /// register format `auto`, which takes the record's format as the
    /// register format, and a 32-bit format of the registers' own type is
    /// stored bit for bit. See `jm::varying` for the emitter's side.
    pub varyings: Vec<VaryingStore>,
    /// Fragment shaders: what the fragment RSD needs (`None` otherwise).
    pub fragment: Option<FragmentInfo>,
    pub stats: ShaderStats,
}

/// What a compiled fragment shader needs from its renderer state
/// descriptor and the draw (the contract with the job emitter).
///
/// - **Preloads** ([`FragmentInfo::preloads`]; [`ShaderBinary::preloads`]
///   stays all false): `coverage` (r60) is always
///   set, `sample_mask_id` (r61) whenever a varying is loaded or
///   `gl_SampleID`, `gl_SamplePosition` or `gl_SampleMaskIn` is read,
///   `fragment_position` (r59) when `gl_FragCoord.xy` is read,
///   `primitive_flags` (r58) when `gl_FrontFacing` is.
/// - **Sample shading** ([`FragmentInfo::sample_shading`]): the emitter
///   sets `Evaluate per-sample` at a multisampled framebuffer; the shader
///   reads FAU special 6 (the sample-locations table's address, which the
///   hardware supplies) for `gl_SamplePosition`.
/// - **Varyings** ([`FragmentInfo::varyings`]): `LD_VAR_IMM` /
///   `LD_VAR_FLAT_IMM` with immediate index = the input's **location**: the
///   record `location` of the draw's varying table (`DRAW.Varyings`,
///   the table the vertex stage wrote; `Varying count` =
///   [`FragmentInfo::varying_count`]). Smooth inputs are loaded with
///   register format `f32` (the record's format converts to f32),
///   flat ones with `auto` (unconverted: the record must have a 32-bit
///   format of the input's type, as the vertex stage's records have, see
///   [`ShaderBinary::varyings`]). A load reads components 0 ..
///   `components` of the record. The instruction has no perspective
///   switch: a `NoPerspective` input is interpolated as the record says,
///   so the producer must arrange it (PanVk does it outside the fragment
///   shader too); [`VaryingLoad::interpolation`] says which inputs need it.
/// - **Epilogue**: one `ATEST` (coverage r60, alpha = render target 0's
///   alpha when it is a written float vec4, else 1.0; the ATEST datum is
///   FAU special slot 5, read implicitly as Mesa's compiler does: a value
///   the hardware supplies, nothing the shader binary asks the emitter
///   for; the alpha test and alpha-to-coverage it applies are the RSD's
///   `Stencil Mask, Misc` fields), then `ZS_EMIT` if the shader writes
///   depth, then one `BLEND` per written render target in ascending order,
///   each the last instruction of its clause, the last one ending the
///   shader. BLEND `n` takes its 64-bit **blend descriptor** from FAU
///   special slots `blend_descriptor_n` (`fau_idx` 8 + n; the hardware fills
///   them from the RSD's blend array, one `Blend` descriptor per render
///   target), reads the colour from four consecutive registers (unwritten
///   components 0) in the register format of
///   [`RenderTargetWrite::format`] (the blend descriptor's conversion
///   `Register format` must say the same) and writes r48 (the return
///   address a blend shader jumps back to; never allocated in fragment
///   shaders). A BLEND whose descriptor says Shader calls a blend shader
///   (`blend.rs`) that may overwrite r0–r15 and r48: nothing live across
///   a BLEND is allocated there (`ra.rs`), and
///   [`RenderTargetWrite::return_offset`] says where it returns.
/// - **Clause headers**: every clause has `td` (terminate discarded
///   threads); the ATEST clause signals slot 0, BLEND clauses depend on
///   slots 0, 6 and 7 (tile-buffer depth and colour), ATEST and ZS_EMIT
///   clauses on 6, as Mesa's G52 binaries show. A first clause's own
///   dependencies are the RSD's `Shader wait dependency 6/7`
///   ([`FragmentInfo::wait_dependency_6`]).
/// - **Other RSD fields** the emitter derives: `Shader modifies coverage`
///   and the pixel-kill/ZS-update operations from
///   [`FragmentInfo::can_discard`], [`FragmentInfo::writes_depth`] and
///   [`FragmentInfo::early_z_allowed`]; `Depth source` = shader when
///   `writes_depth`; `Varying count` = [`FragmentInfo::varying_count`];
///   `Preload.Fragment` from [`FragmentInfo::preloads`]; `Preload.Uniform
///   count` = [`ShaderBinary::uniform_words`] as for the other stages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FragmentInfo {
    pub preloads: FragmentPreloads,
    /// Render targets written, ascending by index (`location`).
    pub render_targets: Vec<RenderTargetWrite>,
    /// `gl_FragDepth` is written (`ZS_EMIT.z`): RSD `Shader modifies coverage`
    /// / depth source = shader. Never with `EarlyFragmentTests`, where the
    /// shader's depth has no effect (Vulkan's "Early Fragment Test Mode"):
    /// the store is dropped and no ZS_EMIT emitted.
    pub writes_depth: bool,
    /// The shader may discard (`DISCARD.f32`): RSD `Shader contains discard`.
    pub can_discard: bool,
    /// `gl_FragCoord` is read (xy from r59, z/w with `LD_VAR_SPECIAL`).
    pub reads_frag_coord: bool,
    pub reads_front_facing: bool,
    pub reads_point_coord: bool,
    /// The `EarlyFragmentTests` execution mode.
    pub early_fragment_tests: bool,
    /// `gl_SampleMask` is written: ANDed into the coverage (r60) before
    /// ATEST, so, like a discard, it needs `Shader modifies coverage` and
    /// late depth/stencil tests unless `early_fragment_tests`.
    pub writes_sample_mask: bool,
    /// The shader reads `gl_SampleID` or `gl_SamplePosition`, or declares a
    /// `Sample`-interpolated input: it must run once per covered sample
    /// (RSD `Multisample, Misc.Evaluate per-sample`; r61's bits 16.. then
    /// hold the sample id, and `gl_SamplePosition` reads the sample's
    /// entry of the sample-locations table at FAU special 6).
    pub sample_shading: bool,
    /// Depth/stencil tests may run before the shader: requested by
    /// `EarlyFragmentTests`, or harmless because the shader neither
    /// discards nor writes depth (the job emitter still decides with the
    /// pipeline's state, e.g. occlusion queries or stencil writes).
    pub early_z_allowed: bool,
    /// The varyings loaded, ascending by location (the preloaded ones
    /// included).
    pub varyings: Vec<VaryingLoad>,
    /// v7 only: the RSD's `Message Preload 1` and `2` (in this order; at
    /// most two), each an `LD_VAR` preload the shader reads from r(4i)..
    /// instead of loading (`isel/fragment.rs::plan_message_preloads`).
    /// Empty for v6, which has no message preloads.
    pub messages: Vec<VaryingPreload>,
    /// RSD `Properties.Shader wait dependency 6` / `7`: the shader's first
    /// clause is a tile-buffer access (ATEST or ZS_EMIT: 6; BLEND: 6 and 7)
    /// and no earlier clause can wait for it (Mesa's `wait_6`/`wait_7`).
    pub wait_dependency_6: bool,
    pub wait_dependency_7: bool,
}

impl FragmentInfo {
    /// The RSD's `Varying count`: one past the highest location loaded.
    pub fn varying_count(&self) -> u32 {
        self.varyings
            .iter()
            .map(|v| v.location + 1)
            .max()
            .unwrap_or(0)
    }
}

/// The register format a `BLEND` hands its colour in (the blend
/// descriptor's conversion must match).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlendRegisterFormat {
    F32,
    S32,
    U32,
}

/// One render target a fragment shader writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderTargetWrite {
    /// Render target index (= output location), 0..8.
    pub index: u32,
    pub format: BlendRegisterFormat,
    /// Components the shader writes (the rest are sent as 0).
    pub components: u8,
    /// Byte offset from the shader's start of the clause after this
    /// target's `BLEND`: where a blend shader called by it returns (the
    /// Blend descriptor's `Return Value` is the shader's address plus this,
    /// as Mesa's `return_offset`); 0 for the last `BLEND`, which ends the
    /// thread (a return value of 0 ends it after the blend shader).
    pub return_offset: u32,
}

/// One varying record a fragment shader loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VaryingLoad {
    /// Record index in the varying table = the input's location.
    pub location: u32,
    /// Components 0..components of the record are read (1..=4).
    pub components: u8,
    pub interpolation: crate::compiler::ir::Interpolation,
    pub sampling: crate::compiler::ir::Sampling,
}

/// An `LD_VAR` message preload: varying record `location` (smooth, at the
/// pixel centre), components 0..`components` as F32, one register each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VaryingPreload {
    pub location: u32,
    pub components: u8,
}

/// One varying record a vertex shader writes (see [`ShaderBinary::varyings`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VaryingStore {
    /// Record index in the `Varyings` table = output index.
    pub index: u32,
    /// 32-bit words stored per vertex (1–4; a 64-bit component is two).
    pub words: u8,
}

impl ShaderBinary {
    /// The RSD's `Varying count`: one past the highest record written.
    pub fn varying_count(&self) -> u32 {
        self.varyings.iter().map(|v| v.index + 1).max().unwrap_or(0)
    }
}

/// Static statistics in shader-db's terms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShaderStats {
    pub instructions: u32,
    pub tuples: u32,
    pub clauses: u32,
    pub quadwords: u32,
    pub spills: u32,
    pub fills: u32,
}

impl ShaderStats {
    /// Instructions per tuple (2.0 is full).
    pub fn tuple_fullness(&self) -> f64 {
        if self.tuples == 0 {
            0.0
        } else {
            f64::from(self.instructions) / f64::from(self.tuples)
        }
    }
}
