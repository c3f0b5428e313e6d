//! What the backend hands to the job emitter: machine code plus what the
//! renderer state descriptor needs (register budget, preloads, FAU words).
//!
//! This is the contract between `compiler::bifrost` and `jm`: nothing else
//! about a compiled shader crosses it.

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
    /// Number of uniform buffers addressed through the UBO table (0: UBOs
    /// are read through `buffers`).
    pub ubo_count: u32,
    /// Buffer bindings the shader addresses (UBO and SSBO alike), as
    /// `(set, binding)`. **Convention**: the FAU words after the
    /// push-uniform area hold, in this order, the 64-bit GPU address of each
    /// binding (buffer address + bind offset; dynamic offsets applied). The
    /// area is `Options::push_uniform_words` long when the caller gives it
    /// (the driver passes `PushUniformLayout::words.len()`), else it ends at
    /// the highest word the shader reads. Either way the first address word
    /// is `uniform_words - buffers.len()`, and `uniform_words` counts them.
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
    pub stats: ShaderStats,
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
