//! A draw inside a render pass: from a compiled vertex and fragment shader,
//! vertex input tables, topology, indices and the fixed-function state,
//! write the VERTEX job (vertex shading into varying buffers) and the
//! TILER job (primitive assembly into the tiler context's polygon list)
//! with the fragment side's Draw, Renderer State, Blend and Viewport
//! descriptors (genxml v6.xml/v7.xml "Tiler Job", "Primitive", "Primitive
//! Size", "Draw", "Renderer State", "Blend", "Viewport").
//!
//! # Jobs and submission
//! Every draw is a **VERTEX job followed by a TILER job** that depends on
//! it and on the previous draw's TILER job ([`Draw::previous_tiler`]), so
//! primitives reach the polygon list in API order. We do not use IDVS
//! (INDEXED_VERTEX) jobs, which PanVk uses on v7 for triangles: v6 has
//! none, PanVk itself falls back to VERTEX + TILER for points and for
//! shaders writing `gl_PointSize` ("Bifrost cannot write gl_PointSize
//! during IDVS", Mesa `src/panfrost/compiler/bifrost_compile.c`), and one
//! path serves every topology on both generations; the cost is one more
//! job and the varyings of every vertex in the range being shaded whether
//! or not a primitive uses them. Indexed draws shade the index range
//! [`IndexBuffer::min_index`] ..= [`IndexBuffer::max_index`] (PanVk reads
//! the index buffer on the CPU for the same range).
//!
//! A render pass is two kernel submissions, as in PanVk and the panfrost
//! kernel driver: the vertex/tiler chain (these jobs, `requirements` 0),
//! then the chain with the FRAGMENT job of [`super::framebuffer`]
//! (`requirements = JD_REQ_FS`, `kmod::JD_REQ_FS`), which must not start
//! before the first has finished (the queue's syncobj orders them). The
//! tiler context and heap ([`super::framebuffer::write_tiler_context`]) are
//! shared by both chains.
//!
//! # The vertex shader's contract
//! The vertex shader must be the rasterization variant lowered with
//! `compiler::pipeline::lower_for_tiler`: it stores `gl_Position` as
//! framebuffer x, y, depth and 1/w, computed from the viewport terms in
//! its push-uniform area (filled here from [`Viewport`]). The position
//! record has format "Snap 4" (what PanVk gives the tiler's position
//! buffer), generic varyings U32 records in one interleaved buffer
//! ([`super::varying`]), `gl_PointSize` an F32 record in its own buffer,
//! which the Primitive Size's "Size Array" points at with "Point size array
//! format" FP32. The fragment side's Varyings table has one record per
//! location the fragment shader loads (the fragment shader's `LD_VAR`
//! index is the location): F32 records of the loaded components for
//! smooth inputs (the interpolator converts), U32 for flat ones.
//!
//! # Fixed-function state
//! - Primitive: draw mode, index type (u8/u16/u32), restart (genxml
//!   "Implicit": the all-ones index of the index type, what Vulkan's
//!   `primitiveRestartEnable` means), first/last provoking vertex, index
//!   count, base vertex offset, point size (array or constant 1.0), line
//!   width (constant), "Low/High Depth Cull" on, job task split 6 (PanVk's
//!   values).
//! - Draw: cull front/back, front face CCW, position buffer, viewport,
//!   fragment push uniforms, renderer state, varyings, thread storage,
//!   and with [`DrawExtras::occlusion`] "Occlusion query" Counter with the
//!   counter's address (a precise occlusion query).
//! - Renderer state: the fragment shader's preloads, varying count,
//!   register allocation, wait dependencies, early-ZS modes (Mesa
//!   `src/panfrost/lib/pan_earlyzs.c`: shaders that neither discard nor
//!   write depth test early; "Weak Early" when the depth test always passes
//!   and writes nothing, else "Force Early"; "Force Late" otherwise), the
//!   depth function and write mask, near/far discard (depth clipping on),
//!   depth range fixed, `Multisample enable` with 4 samples and the
//!   sample mask ([`DrawExtras::multisample`]), alpha test Always; the
//!   stencil test ([`DrawExtras::stencil`]: per face reference, compare
//!   mask, compare function, fail/depth-fail/pass ops, write mask in
//!   `Stencil Mask, Misc`; off: masks 0xff without a depth state, 0 with
//!   one, as PanVk) and depth bias ([`DrawExtras::depth_bias`]: both
//!   faces, `Depth units` = 2 × constant as PanVk on Bifrost, `Depth
//!   factor`, `Depth bias clamp`); a stencil test forces early ZS instead
//!   of "Weak Early". One Blend descriptor per colour target
//!   follows it: "Opaque" without blending and with every channel written,
//!   else the fixed-function equation of [`super::blend`] (every factor
//!   and op the unit can express, else a [`JmError`]), the colour write
//!   mask, the blend constant as a UNORM8 in the top bits, "Load
//!   Destination" when the equation or a partial mask reads the
//!   destination, "Enable" off for an empty mask, "Alpha Zero NOP" / "Alpha
//!   One Store" where they hold; register format F32, conversion to the
//!   target's format.
//! - Viewport: x/y bounds ±∞ (PanVk's choice: the scissor does the
//!   clipping), depth min/max, the scissor rectangle (inclusive)
//!   intersected with the viewport's ([`visible_box`]: the tiler clips to
//!   its guard band only, the view volume ends at the viewport).
//!
//! Not encoded yet (the caller must not ask for them): occlusion predicates,
//! logic ops, dual-source blending on colour targets other than 0, IDVS
//! jobs.
//!
//! `tests/jm_graphics.rs` renders with these jobs on the simulated G52 and
//! compares the descriptors field by field with PanVk's for the same
//! render passes; where we differ on purpose, that test's module doc and
//! docs/STATUS.md say why.
//!
//! This module encodes what it is given; what a Vulkan pipeline's state
//! means is `vk/`'s business.

use super::blend::{self as ff, BlendEquation};
use super::chain::JobChain;
use super::compute::{AttributeTables, VertexJob, add_vertex_job_with_textures};
use super::error::{JmError, JmResult};
use super::framebuffer::{ColorFormat, ColorKind};
use super::pool::{GpuPool, SharedKey};
use super::varying::{VaryingBufferKind, VaryingLayout, varying_table_words};
use crate::compiler::bifrost::binary::{BlendRegisterFormat, FragmentInfo, ShaderBinary};
use crate::compiler::ir::{Interpolation, OutputSlot};
use crate::compiler::passes::SysvalBlock;
use crate::compiler::passes::lower_io::VaryingSlot;
use crate::compiler::pipeline::LoweredShader;
use crate::hw::attribute::attribute_desc as ad;
use crate::hw::compute::WorkSize;
use crate::hw::draw::{dcd, primitive as prim, primitive_size as psize, viewport as vp};
use crate::hw::format::{ComponentType, FormatArch, VertexFormat};
use crate::hw::job::{JobType, PAYLOAD_OFFSET, tiler_pointer};
use crate::hw::layout::{Field, Layout};
use crate::hw::shader::{
    REGISTERS_32_PER_THREAD, REGISTERS_64_PER_THREAD, fragment_preload as fpl, ld_var_preload,
    message_preload, multisample_misc as msm, renderer_state as rs, stencil_mask_misc as smm,
};
use crate::hw::{Arch, layouts};

/// A compiled program and where its code is.
#[derive(Clone, Copy, Debug)]
pub struct Program<'a> {
    pub binary: &'a ShaderBinary,
    /// GPU VA of `binary.code` (128-byte aligned, executable BO).
    pub code: u64,
    /// The front half's output for it (layouts, outputs).
    pub lowered: &'a LoweredShader,
    /// The 64-bit addresses of `binary.buffers`, in order.
    pub buffers: &'a [u64],
}

/// Vulkan primitive topologies (the non-adjacency, non-patch ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    PointList,
    LineList,
    LineStrip,
    TriangleList,
    TriangleStrip,
    TriangleFan,
}

impl Topology {
    /// genxml "Draw Mode".
    fn draw_mode(self) -> u64 {
        match self {
            Topology::PointList => 1,
            Topology::LineList => 2,
            Topology::LineStrip => 4,
            Topology::TriangleList => 8,
            Topology::TriangleStrip => 10,
            Topology::TriangleFan => 12,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexType {
    U8,
    U16,
    U32,
}

/// An indexed draw's indices.
#[derive(Clone, Copy, Debug)]
pub struct IndexBuffer {
    /// GPU VA of the first index the draw reads (`firstIndex` applied).
    pub address: u64,
    pub ty: IndexType,
    /// `vertexOffset`: added to every index.
    pub vertex_offset: i32,
    /// Smallest and largest index the draw reads (restart indices
    /// excluded): the vertex job shades this range.
    pub min_index: u32,
    pub max_index: u32,
    /// `primitiveRestartEnable`.
    pub restart: bool,
}

/// Vulkan compare ops, in `VkCompareOp` order (= genxml "Func").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    Never = 0,
    Less = 1,
    Equal = 2,
    LessOrEqual = 3,
    Greater = 4,
    NotEqual = 5,
    GreaterOrEqual = 6,
    Always = 7,
}

impl CompareOp {
    /// Every op, in `VkCompareOp` order.
    pub const ALL_OPS: [CompareOp; 8] = [
        CompareOp::Never,
        CompareOp::Less,
        CompareOp::Equal,
        CompareOp::LessOrEqual,
        CompareOp::Greater,
        CompareOp::NotEqual,
        CompareOp::GreaterOrEqual,
        CompareOp::Always,
    ];
}

/// Depth test state (stencil and depth bias: [`DrawExtras`]). `None` in [`Draw::depth`]: no depth
/// attachment or the test disabled.
#[derive(Clone, Copy, Debug)]
pub struct DepthState {
    pub compare: CompareOp,
    pub write: bool,
}

/// `VkStencilOp`, in Vulkan's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StencilOp {
    Keep,
    Zero,
    Replace,
    IncrementAndClamp,
    DecrementAndClamp,
    Invert,
    IncrementAndWrap,
    DecrementAndWrap,
}

impl StencilOp {
    pub const ALL: [StencilOp; 8] = [
        StencilOp::Keep,
        StencilOp::Zero,
        StencilOp::Replace,
        StencilOp::IncrementAndClamp,
        StencilOp::DecrementAndClamp,
        StencilOp::Invert,
        StencilOp::IncrementAndWrap,
        StencilOp::DecrementAndWrap,
    ];

    /// genxml "Stencil Op".
    fn raw(self) -> u64 {
        match self {
            StencilOp::Keep => 0,
            StencilOp::Replace => 1,
            StencilOp::Zero => 2,
            StencilOp::Invert => 3,
            StencilOp::IncrementAndWrap => 4,
            StencilOp::DecrementAndWrap => 5,
            StencilOp::IncrementAndClamp => 6,
            StencilOp::DecrementAndClamp => 7,
        }
    }
}

/// `VkStencilOpState` of one face, with the dynamic reference and masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilFace {
    pub fail: StencilOp,
    pub pass: StencilOp,
    pub depth_fail: StencilOp,
    pub compare: CompareOp,
    pub compare_mask: u8,
    pub write_mask: u8,
    pub reference: u8,
}

/// The stencil test (`stencilTestEnable`): the framebuffer needs a
/// stencil attachment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilState {
    pub front: StencilFace,
    pub back: StencilFace,
}

/// `depthBiasEnable` with its three terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthBias {
    pub constant: f32,
    pub slope: f32,
    pub clamp: f32,
}

/// `VkPipelineMultisampleStateCreateInfo` as far as it is encoded: the
/// sample count (the framebuffer's: 1 or 4), `pSampleMask` (bits beyond
/// the sample count are ignored), sample shading, alpha-to-coverage and
/// alpha-to-one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Multisample {
    pub samples: u32,
    pub sample_mask: u32,
    /// `alphaToCoverageEnable`: RSD `Stencil Mask, Misc.Alpha-to-coverage`
    /// (ATEST turns the alpha it is given — render target 0's — into a
    /// coverage mask ANDed with the fragment's); like a discard, it makes
    /// the depth/stencil tests late unless the shader asks for early ones.
    pub alpha_to_coverage: bool,
    /// `alphaToOneEnable`: every render target's Blend `Alpha To One`
    /// (Mesa's src/panfrost/lib/pan_blend.c sets the same bit for it).
    pub alpha_to_one: bool,
    /// `sampleShadingEnable` with `minSampleShading` × samples > 1: the
    /// fragment shader runs once per covered sample (RSD `Evaluate
    /// per-sample`). Bifrost has no partial rate, so any minimum above one
    /// sample per pixel runs them all (the spec's count is a minimum, "at
    /// least"; Vulkan "Sample Shading"). A shader reading `gl_SampleID` /
    /// `gl_SamplePosition` or with a `Sample` input asks for it itself
    /// (`FragmentInfo::sample_shading`).
    pub sample_shading: bool,
}

impl Default for Multisample {
    fn default() -> Multisample {
        Multisample {
            samples: 1,
            sample_mask: u32::MAX,
            sample_shading: false,
            alpha_to_coverage: false,
            alpha_to_one: false,
        }
    }
}

impl Multisample {
    /// Whether Vulkan's `minSampleShading` asks for more than one
    /// invocation per pixel at `samples` (its count is ⌈min × samples⌉).
    pub fn min_sample_shading_runs_per_sample(min_sample_shading: f32, samples: u32) -> bool {
        (min_sample_shading * samples as f32).ceil() > 1.0
    }
}

/// Fixed-function state a [`Draw`] does not carry (kept apart so that
/// `Draw` literals stay valid): stencil, depth bias, an occlusion
/// counter, multisampling. [`add_draw`] is [`add_draw_with`] with none of
/// them (single-sampled).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DrawExtras {
    /// Renderer State `Multisample enable` (samples > 1) and `Sample mask`.
    pub multisample: Multisample,
    pub stencil: Option<StencilState>,
    pub depth_bias: Option<DepthBias>,
    /// GPU VA of a 64-bit counter (8-byte aligned) the draw's samples that
    /// pass the depth and stencil tests are added to (genxml Draw
    /// "Occlusion query" Counter, `Occlusion`): a precise occlusion query.
    pub occlusion: Option<u64>,
    /// The texture and sampler tables both shaders read
    /// ([`super::texture::write_texture_tables`]: binding n of set 0 at
    /// entry n, whichever stage samples it): the fragment Draw and the
    /// VERTEX job's point at them, both Renderer States count them.
    pub textures: Option<super::texture::TextureTables>,
    /// `instanceCount` and `firstInstance`.
    pub instancing: Instancing,
    /// `depthClampEnable`: the Renderer State's near/far discard off, so
    /// that depth outside the viewport's range is clamped to it (the
    /// Viewport's `Minimum Z`/`Maximum Z`) instead of clipped.
    pub depth_clamp: bool,
}

/// Instanced drawing: `count` instances (0: the draw does nothing), the
/// first numbered `first` (`gl_InstanceIndex` = instance id + `first`,
/// the base-instance sysval). The default is one instance, numbered 0.
/// Vertex `v` of instance `i` is element `v + i × Instance Size` of every
/// varying buffer, the padded count the hardware derives for the VERTEX
/// job (`super::varying`'s module doc); the TILER job's Draw carries the
/// same `Instance Size`, which is where the simulated tiler finds each
/// instance's vertices. Per-vertex attribute buffers of an instanced draw
/// must repeat per instance (the caller's `Indexing`, with
/// [`super::compute::vertex_instance_size`] as the divisor).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instancing {
    pub count: u32,
    pub first: u32,
}

impl Default for Instancing {
    fn default() -> Instancing {
        Instancing { count: 1, first: 0 }
    }
}

/// Blending of one colour target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Blend {
    /// `blendEnable = VK_FALSE`.
    Opaque,
    /// SRC_ALPHA / ONE_MINUS_SRC_ALPHA, op ADD, for colour and alpha
    /// ([`BlendEquation::SRC_ALPHA_OVER`]).
    SrcAlphaOver,
    /// `blendEnable = VK_TRUE` with these factors, ops and constants; what
    /// the fixed-function unit cannot do is a [`JmError`]
    /// ([`super::blend`]).
    Equation(BlendEquation),
}

impl Blend {
    /// The blend equation, `None` without blending.
    pub fn equation(&self) -> Option<BlendEquation> {
        match *self {
            Blend::Opaque => None,
            Blend::SrcAlphaOver => Some(BlendEquation::SRC_ALPHA_OVER),
            Blend::Equation(e) => Some(e),
        }
    }
}

/// One colour target as the fragment side writes it.
#[derive(Clone, Copy, Debug)]
pub struct ColorTargetState {
    pub format: ColorFormat,
    pub blend: Blend,
    /// `colorWriteMask` (bit 0 R … bit 3 A).
    pub write_mask: u8,
}

/// Rasterization state.
#[derive(Clone, Copy, Debug)]
pub struct RasterState {
    pub cull_front: bool,
    pub cull_back: bool,
    /// `frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE`.
    pub front_ccw: bool,
    /// Flat varyings take the first vertex's value (Vulkan's default) or
    /// the last one's (`VK_EXT_provoking_vertex`).
    pub first_provoking: bool,
    pub line_width: f32,
}

impl Default for RasterState {
    fn default() -> RasterState {
        RasterState {
            cull_front: false,
            cull_back: false,
            front_ccw: true,
            first_provoking: true,
            line_width: 1.0,
        }
    }
}

/// A Vulkan viewport.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    pub min_depth: f32,
    pub max_depth: f32,
}

impl Viewport {
    /// The transform's scale and offset (Vulkan spec, "Controlling the
    /// Viewport": x_f = (p_x / 2) x_d + o_x with o_x = x + width / 2, …,
    /// z_f = p_z z_d + o_z with p_z = maxDepth − minDepth, o_z = minDepth).
    pub fn scale_offset(&self) -> ([f32; 3], [f32; 3]) {
        (
            [
                self.width / 2.0,
                self.height / 2.0,
                self.max_depth - self.min_depth,
            ],
            [
                self.x + self.width / 2.0,
                self.y + self.height / 2.0,
                self.min_depth,
            ],
        )
    }
}

/// A scissor rectangle (`offset` and `extent`, already clamped to the
/// framebuffer by the caller).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scissor {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// One draw.
#[derive(Clone, Copy, Debug)]
pub struct Draw<'a> {
    pub vertex: Program<'a>,
    pub fragment: Program<'a>,
    /// Attribute tables for the vertex shader
    /// (`super::attributes::write_attribute_tables*`).
    pub attributes: AttributeTables,
    /// Push-constant bytes and their GPU copy (for dynamically indexed
    /// push constants; 0 if none).
    pub push_constants: &'a [u8],
    pub push_constants_address: u64,
    pub topology: Topology,
    /// Vertices (non-indexed: `vertexCount`) or indices to draw.
    pub count: u32,
    /// `firstVertex` of a non-indexed draw.
    pub first_vertex: u32,
    pub indices: Option<IndexBuffer>,
    pub raster: RasterState,
    pub depth: Option<DepthState>,
    /// One per colour target of the framebuffer, in order.
    pub targets: &'a [ColorTargetState],
    pub viewport: Viewport,
    pub scissor: Scissor,
    /// GPU VA of the render pass's tiler context.
    pub tiler_context: u64,
    /// The previous draw's TILER job in this chain (0: none).
    pub previous_tiler: u16,
}

/// The jobs one draw appended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawJobs {
    pub vertex: u16,
    pub tiler: u16,
    /// GPU VA of the TILER job's fragment-side Draw descriptor.
    pub draw: u64,
}

/// Writes field `f` (an error when `v` does not fit); shared with `preload`.
pub(super) fn put(words: &mut [u32], f: Field, v: u64) -> JmResult<()> {
    f.set(words, v)
        .map_err(|_| JmError::Encoding("graphics descriptor field overflow"))
}

/// Writes the field at `path` of `layout`; shared with `preload`.
pub(super) fn set(layout: &Layout, words: &mut [u32], path: &str, v: u64) -> JmResult<()> {
    layout
        .set(words, path, v)
        .map_err(|_| JmError::Encoding("graphics descriptor field overflow"))
}

/// The push-uniform words of `p`: its layout filled from `sysvals` and the
/// push constants, then the buffer addresses (`ShaderBinary::buffers`).
pub fn push_uniform_words(
    p: &Program<'_>,
    sysvals: &SysvalBlock,
    push_constants: &[u8],
) -> JmResult<Vec<u64>> {
    let mut words = p.lowered.push_uniforms.fill_words(sysvals, push_constants);
    if p.buffers.len() != p.binary.buffers.len() {
        return Err(JmError::Encoding("one address per buffer binding"));
    }
    if !p.binary.buffers.is_empty() {
        let first = (p.binary.uniform_words as usize)
            .checked_sub(p.binary.buffers.len())
            .ok_or(JmError::Encoding("fewer FAU words than buffer bindings"))?;
        if words.len() > first {
            return Err(JmError::Encoding("push-uniform area overlaps buffer words"));
        }
        words.resize(first, 0);
        words.extend_from_slice(p.buffers);
    }
    if words.len() < p.binary.uniform_words as usize {
        words.resize(p.binary.uniform_words as usize, 0);
    }
    Ok(words)
}

/// Writes the descriptors of `d` and appends its VERTEX and TILER jobs to
/// `chain` (the vertex/tiler chain of the render pass). `None` when the
/// draw produces nothing (no vertices, or an empty scissor).
pub fn add_draw(
    chain: &mut JobChain,
    pool: &mut GpuPool,
    arch: Arch,
    d: &Draw<'_>,
) -> JmResult<Option<DrawJobs>> {
    add_draw_with(chain, pool, arch, d, &DrawExtras::default())
}

/// [`add_draw`] with stencil, depth bias or an occlusion counter.
pub fn add_draw_with(
    chain: &mut JobChain,
    pool: &mut GpuPool,
    arch: Arch,
    d: &Draw<'_>,
    x: &DrawExtras,
) -> JmResult<Option<DrawJobs>> {
    let fs = d
        .fragment
        .binary
        .fragment
        .as_ref()
        .ok_or(JmError::Encoding(
            "the fragment program is not a fragment shader",
        ))?;
    let instances = x.instancing.count;
    if d.count == 0 || instances == 0 || visible_box(d).is_none() {
        return Ok(None);
    }
    if d.targets.len() > 8 {
        return Err(JmError::Encoding("more than 8 colour targets"));
    }
    if !matches!(x.multisample.samples, 1 | 4) {
        return Err(JmError::Encoding("sample count other than 1 or 4"));
    }
    for rt in &fs.render_targets {
        let Some(t) = d.targets.get(rt.index as usize) else {
            return Err(JmError::Encoding("fragment output without a colour target"));
        };
        let wanted = match t.format.kind() {
            ColorKind::Unorm | ColorKind::Snorm | ColorKind::Float => BlendRegisterFormat::F32,
            ColorKind::Uint => BlendRegisterFormat::U32,
            ColorKind::Sint => BlendRegisterFormat::S32,
        };
        if rt.format != wanted {
            return Err(JmError::Encoding(
                "the output's type does not match its colour target's format",
            ));
        }
    }

    // The vertex range the VERTEX job shades and how the tiler finds a
    // vertex's slot in the varying buffers (vertex jobs store at the raw
    // vertex id, which excludes `Offset start`: slot = index + base).
    let (offset_start, vertices, base) = match d.indices {
        None => (d.first_vertex, d.count, 0i64),
        Some(ib) => {
            if ib.min_index > ib.max_index {
                return Err(JmError::Encoding("index range is empty"));
            }
            let first = i64::from(ib.min_index) + i64::from(ib.vertex_offset);
            let first = u32::try_from(first)
                .map_err(|_| JmError::Encoding("vertex offset makes an index negative"))?;
            (
                first,
                ib.max_index - ib.min_index + 1,
                i64::from(ib.vertex_offset) - i64::from(first),
            )
        }
    };

    // Varying buffers (scratch memory of the chain) and the vertex side's
    // tables, the position record as "Snap 4".
    let layout = VaryingLayout::new(d.vertex.binary, &d.vertex.lowered.io)?;
    let position = layout
        .buffer(VaryingBufferKind::Position)
        .ok_or(JmError::Encoding(
            "the vertex shader does not store gl_Position",
        ))?;
    let instance_size = super::compute::vertex_instance_size(vertices, instances)?;
    let elements = super::varying::varying_elements(vertices, instances)?;
    let mut vas = Vec::with_capacity(layout.buffers.len());
    for b in &layout.buffers {
        let bytes = u64::from(b.stride) * elements;
        vas.push(pool.alloc(bytes.max(1), 64)?.gpu_va);
    }
    let (mut records, buffer_words) = varying_table_words(arch, &layout, &vas, elements)?;
    let formats = FormatArch::for_arch(arch);
    let format_field = match arch {
        Arch::V6 => ad::FORMAT_V6,
        Arch::V7 => ad::FORMAT,
    };
    let snap4 = snap4_format(formats).ok_or(JmError::Encoding("no Snap 4 format"))?;
    for (i, r) in layout.records.iter().enumerate() {
        if let Some(r) = r
            && r.buffer as usize == position.0
        {
            put(&mut records[2 * i..2 * i + 2], format_field, snap4)?;
        }
    }
    let rec = pool.alloc(4 * records.len() as u64, 64)?;
    rec.write_words(0, &records);
    let buf = pool.alloc(4 * buffer_words.len() as u64, 64)?;
    buf.write_words(0, &buffer_words);
    let varyings = AttributeTables {
        attributes: rec.gpu_va,
        buffers: buf.gpu_va,
        count: layout.records.len() as u32,
    };

    // Vertex push uniforms: draw sysvals and the viewport terms.
    let mut sysvals = SysvalBlock {
        raw_vertex_offset: offset_start,
        base_vertex: match d.indices {
            Some(ib) => ib.vertex_offset as u32,
            None => d.first_vertex,
        },
        push_constants_address: d.push_constants_address,
        base_instance: x.instancing.first,
        ..SysvalBlock::default()
    };
    let (scale, offset) = d.viewport.scale_offset();
    sysvals.set_viewport(scale, offset);
    let vertex_push = push_uniform_words(&d.vertex, &sysvals, d.push_constants)?;

    // The fragment side.
    let general = layout.buffer(VaryingBufferKind::General).map(|(i, _)| i);
    let frag_varyings =
        fragment_varying_table(pool, arch, d, general, varyings.buffers, fs.varying_count())?;
    let state = fragment_renderer_state(pool, arch, d, x)?;
    let viewport = write_viewport(pool, arch, d)?;
    let frag_push = push_uniform_words(&d.fragment, &sysvals, d.push_constants)?;
    let frag_push_va = if frag_push.is_empty() {
        0
    } else {
        let a = pool.alloc(8 * frag_push.len() as u64, 16)?;
        a.write_u64s(0, &frag_push);
        a.gpu_va
    };
    let storage = thread_storage(pool, arch, d.fragment.binary.tls_size)?;

    // The TILER job.
    let l = layouts(arch);
    let agg = l.tiler_job;
    let mut job = agg.defaults();
    let section = |name: &str| {
        agg.section(name)
            .ok_or(JmError::Encoding("tiler job layout lacks a section"))
    };
    let invocation = WorkSize::vertices(vertices, instances)
        .pack_graphics()
        .map_err(|_| JmError::Encoding("vertex count does not fit the invocation encoding"))?;
    section("Invocation")?
        .words_mut(&mut job)
        .copy_from_slice(&invocation);
    let writes_point_size = layout.buffer(VaryingBufferKind::PointSize);
    {
        let p = section("Primitive")?.words_mut(&mut job);
        put(p, prim::DRAW_MODE, d.topology.draw_mode())?;
        put(
            p,
            prim::FIRST_PROVOKING_VERTEX,
            u64::from(d.raster.first_provoking),
        )?;
        put(p, prim::JOB_TASK_SPLIT, 6)?;
        put(p, prim::INDEX_COUNT, u64::from(d.count))?;
        if let Some(ib) = d.indices {
            let (ty, restart_index) = match ib.ty {
                IndexType::U8 => (1, 0xff),
                IndexType::U16 => (2, 0xffff),
                IndexType::U32 => (3, 0xffff_ffff),
            };
            put(p, prim::INDEX_TYPE, ty)?;
            put(p, prim::INDICES, ib.address)?;
            put(p, prim::BASE_VERTEX_OFFSET, base as u64)?;
            if ib.restart {
                // genxml "Primitive restart" Implicit: the all-ones index.
                put(p, prim::PRIMITIVE_RESTART, 2)?;
                put(p, prim::PRIMITIVE_RESTART_INDEX, restart_index)?;
            }
        }
        if d.topology == Topology::PointList && writes_point_size.is_some() {
            // genxml "Point Size Array Format" FP32.
            put(p, prim::POINT_SIZE_ARRAY_FORMAT, 3)?;
        }
    }
    {
        let s = section("Primitive Size")?.words_mut(&mut job);
        match (d.topology, writes_point_size) {
            (Topology::PointList, Some((i, _))) => put(s, psize::SIZE_ARRAY, vas[i])?,
            (Topology::LineList | Topology::LineStrip, _) => {
                put(s, psize::CONSTANT, u64::from(d.raster.line_width.to_bits()))?
            }
            _ => put(s, psize::CONSTANT, u64::from(1.0f32.to_bits()))?,
        }
    }
    put(
        section("Tiler")?.words_mut(&mut job),
        tiler_pointer::ADDRESS,
        d.tiler_context,
    )?;
    let draw_section = section("Draw")?;
    {
        let w = draw_section.words_mut(&mut job);
        put(w, dcd::FRONT_FACE_CCW, u64::from(d.raster.front_ccw))?;
        put(w, dcd::CULL_FRONT_FACE, u64::from(d.raster.cull_front))?;
        put(w, dcd::CULL_BACK_FACE, u64::from(d.raster.cull_back))?;
        // The vertex job's first vertex, repeated as PanVk does (the
        // position and varying slots still start at the raw vertex id 0).
        put(w, dcd::OFFSET_START, u64::from(offset_start))?;
        put(w, dcd::INSTANCE_SIZE, instance_size)?;
        put(w, dcd::POSITION, vas[position.0])?;
        put(w, dcd::PUSH_UNIFORMS, frag_push_va)?;
        put(w, dcd::STATE, state)?;
        if let Some((table, buffers)) = frag_varyings {
            put(w, dcd::VARYING_BUFFERS, buffers)?;
            put(w, dcd::VARYINGS, table)?;
        }
        put(w, dcd::VIEWPORT, viewport)?;
        put(w, dcd::THREAD_STORAGE, storage)?;
        if let Some(t) = x.textures {
            put(w, dcd::TEXTURES, t.textures)?;
            put(w, dcd::SAMPLERS, t.samplers)?;
        }
        if let Some(counter) = x.occlusion {
            if counter == 0 || !counter.is_multiple_of(8) {
                return Err(JmError::Encoding(
                    "occlusion counter address null or not 8-byte aligned",
                ));
            }
            // genxml "Occlusion Mode" Counter.
            put(w, dcd::OCCLUSION_QUERY, 3)?;
            put(w, dcd::OCCLUSION, counter)?;
        }
    }
    // The jobs, once every descriptor is packed (an error above leaves
    // the chain as it was).
    let vertex = add_vertex_job_with_textures(
        chain,
        pool,
        arch,
        &VertexJob {
            binary: d.vertex.binary,
            code: d.vertex.code,
            push_uniforms: &vertex_push,
            vertices,
            instances,
            offset_start,
            ubos: &[],
            attributes: d.attributes,
            varyings,
        },
        x.textures,
        [0, 0],
    )?;
    let payload = &job[PAYLOAD_OFFSET as usize / 4..];
    let tiler = chain.add_job(
        pool,
        JobType::Tiler,
        payload,
        [vertex, d.previous_tiler],
        false,
    )?;
    let draw_va = chain
        .job_va(tiler)
        .ok_or(JmError::Encoding("tiler job missing"))?
        + draw_section.offset as u64;
    Ok(Some(DrawJobs {
        vertex,
        tiler,
        draw: draw_va,
    }))
}

/// The attribute format word of "Snap 4" with four components.
fn snap4_format(formats: &FormatArch) -> Option<u64> {
    // A 4-component F32 vertex format gives the component order (v7) or
    // swizzle (v6) for four components; swap its format for Snap 4.
    let f32x4 = formats.attribute_format(VertexFormat::new(ComponentType::F32, 4))?;
    Some(formats.format_value("Snap 4")? << 12 | (f32x4 & 0xfff))
}

/// The fragment side's varying records: location → the vertex shader's
/// generic slot of that location; returns (records, buffer table).
fn fragment_varying_table(
    pool: &mut GpuPool,
    arch: Arch,
    d: &Draw<'_>,
    general: Option<usize>,
    buffer_table: u64,
    count: u32,
) -> JmResult<Option<(u64, u64)>> {
    let Some(fs) = d.fragment.binary.fragment.as_ref() else {
        return Ok(None);
    };
    if count == 0 {
        return Ok(None);
    }
    let vs = &d.vertex.lowered;
    let formats = FormatArch::for_arch(arch);
    let format_field = match arch {
        Arch::V6 => ad::FORMAT_V6,
        Arch::V7 => ad::FORMAT,
    };
    let l = layouts(arch);
    let mut words = vec![0u32; 2 * count as usize];
    for load in &fs.varyings {
        let slot = vs
            .shader
            .outputs
            .iter()
            .zip(&vs.io.varyings)
            .find_map(|(o, &(slot, _))| match (o.slot, slot) {
                (OutputSlot::Location { location, .. }, VaryingSlot::Generic(g))
                    if location == load.location =>
                {
                    Some(g)
                }
                _ => None,
            })
            .ok_or(JmError::Encoding(
                "the fragment shader reads a location the vertex shader does not write",
            ))?;
        let general = general.ok_or(JmError::Encoding("no generic varying buffer"))?;
        let ty = if load.interpolation == Interpolation::Flat {
            ComponentType::U32
        } else {
            ComponentType::F32
        };
        let format = formats
            .attribute_format(VertexFormat::new(ty, load.components))
            .ok_or(JmError::Encoding("varying format has no hardware format"))?;
        let w = &mut words[2 * load.location as usize..2 * load.location as usize + 2];
        w.copy_from_slice(&l.attribute.defaults());
        put(w, ad::BUFFER_INDEX, general as u64)?;
        put(w, format_field, format)?;
        put(w, ad::OFFSET, 16 * u64::from(slot))?;
    }
    let table = pool.alloc(4 * words.len() as u64, 64)?;
    table.write_words(0, &words);
    Ok(Some((table.gpu_va, buffer_table)))
}

/// Local storage for the fragment shader (shared when it needs no TLS).
pub(super) fn thread_storage(pool: &mut GpuPool, arch: Arch, tls: u32) -> JmResult<u64> {
    let write = |pool: &mut GpuPool| -> JmResult<u64> {
        let t = super::templates::templates(arch);
        let mut w = t.local_storage;
        super::tls::emit_thread_storage(pool, arch, w.as_mut_slice(), tls)?;
        let a = pool.alloc(4 * w.as_slice().len() as u64, 64)?;
        a.write_words(0, w.as_slice());
        Ok(a.gpu_va)
    };
    if tls == 0 {
        pool.shared(SharedKey::EmptyLocalStorage, write)
    } else {
        write(pool)
    }
}

/// The scissor rectangle intersected with the viewport's (outward to
/// whole pixels), `None` when empty. The tiler clips only to its guard
/// band (our model, `kmod/sim/clip.rs`); the spec's clip volume ends at
/// the viewport's edges (`−w ≤ x, y ≤ w`), so the scissor box written
/// into the Viewport descriptor ends there too, as Mesa's Gallium driver
/// does (`panfrost_emit_viewport` in
/// `src/gallium/drivers/panfrost/pan_cmdstream.c`). A viewport edge that
/// is not on a pixel boundary lets the pixels it cuts through be drawn
/// whole (no test has one).
fn visible_box(d: &Draw<'_>) -> Option<Scissor> {
    let v = &d.viewport;
    let s = &d.scissor;
    let span = |o: f32, e: f32, so: u32, se: u32| -> Option<(u32, u32)> {
        let (lo, hi) = (o.min(o + e), o.max(o + e));
        let lo = (lo.floor().max(0.0) as u64).max(u64::from(so));
        let hi = (hi.ceil().max(0.0) as u64).min(u64::from(so) + u64::from(se));
        (hi > lo).then(|| (lo as u32, (hi - lo) as u32))
    };
    let (x, width) = span(v.x, v.width, s.x, s.width)?;
    let (y, height) = span(v.y, v.height, s.y, s.height)?;
    Some(Scissor {
        x,
        y,
        width,
        height,
    })
}

fn write_viewport(pool: &mut GpuPool, arch: Arch, d: &Draw<'_>) -> JmResult<u64> {
    let l = layouts(arch);
    let mut w = l.viewport.defaults();
    let v = &d.viewport;
    put(
        &mut w,
        vp::MINIMUM_Z,
        u64::from(v.min_depth.min(v.max_depth).to_bits()),
    )?;
    put(
        &mut w,
        vp::MAXIMUM_Z,
        u64::from(v.min_depth.max(v.max_depth).to_bits()),
    )?;
    let Some(s) = visible_box(d) else {
        return Err(JmError::Encoding("empty scissor"));
    };
    let max = |o: u32, e: u32| -> JmResult<u64> {
        let m = u64::from(o) + u64::from(e) - 1;
        if m > 0xffff {
            return Err(JmError::Encoding("scissor beyond 65536 pixels"));
        }
        Ok(m)
    };
    put(&mut w, vp::SCISSOR_MINIMUM_X, u64::from(s.x))?;
    put(&mut w, vp::SCISSOR_MINIMUM_Y, u64::from(s.y))?;
    put(&mut w, vp::SCISSOR_MAXIMUM_X, max(s.x, s.width)?)?;
    put(&mut w, vp::SCISSOR_MAXIMUM_Y, max(s.y, s.height)?)?;
    let a = pool.alloc(4 * w.len() as u64, 64)?;
    a.write_words(0, &w);
    Ok(a.gpu_va)
}

/// A v7 fragment Renderer State's `Shader register allocation` (32 or 64
/// registers per thread from the binary's work registers) and `Shader wait
/// dependency 6/7` (from `FragmentInfo`): shared by draws and the preload
/// shaders of `super::preload`.
pub(super) fn set_v7_shader_properties(
    layout: &Layout,
    w: &mut [u32],
    b: &ShaderBinary,
    fs: &FragmentInfo,
) -> JmResult<()> {
    let props = |name: &str| format!("Properties.{name}");
    let alloc = if b.work_registers <= 32 {
        REGISTERS_32_PER_THREAD
    } else {
        REGISTERS_64_PER_THREAD
    };
    set(layout, w, &props("Shader register allocation"), alloc)?;
    set(
        layout,
        w,
        &props("Shader wait dependency 6"),
        u64::from(fs.wait_dependency_6),
    )?;
    set(
        layout,
        w,
        &props("Shader wait dependency 7"),
        u64::from(fs.wait_dependency_7),
    )
}

/// The fragment Renderer State followed by one Blend descriptor per
/// colour target.
fn fragment_renderer_state(
    pool: &mut GpuPool,
    arch: Arch,
    d: &Draw<'_>,
    x: &DrawExtras,
) -> JmResult<u64> {
    let l = layouts(arch);
    let b = d.fragment.binary;
    let fs = b
        .fragment
        .as_ref()
        .ok_or(JmError::Encoding("not a fragment shader"))?;
    if d.fragment.code == 0 || !d.fragment.code.is_multiple_of(128) {
        return Err(JmError::Encoding(
            "shader code address not 128-byte aligned",
        ));
    }
    let layout = l.renderer_state;
    let mut w = layout.defaults();
    put(&mut w, rs::SHADER_ADDRESS, d.fragment.code)?;
    put(&mut w, rs::VARYING_COUNT, u64::from(fs.varying_count()))?;
    put(
        &mut w,
        rs::PRELOAD_UNIFORM_COUNT,
        u64::from(b.uniform_words),
    )?;
    if let Some(t) = x.textures {
        put(&mut w, rs::TEXTURE_COUNT, u64::from(t.texture_count))?;
        put(&mut w, rs::SAMPLER_COUNT, u64::from(t.sampler_count))?;
    }
    let props = |name: &str| format!("Properties.{name}");
    // genxml "Depth Source": Fixed function 2, Shader 3.
    set(
        layout,
        &mut w,
        &props("Depth source"),
        if fs.writes_depth { 3 } else { 2 },
    )?;
    if arch == Arch::V7 {
        set_v7_shader_properties(layout, &mut w, b, fs)?;
        // The compiler's LD_VAR message preloads (`FragmentInfo::messages`;
        // genxml v7.xml "Message Preload", type LD_VAR, register format
        // F32), as Mesa's `pan_shader_prepare_bifrost_rsd` packs them.
        for (field, m) in [rs::MESSAGE_PRELOAD_1, rs::MESSAGE_PRELOAD_2]
            .into_iter()
            .zip(&fs.messages)
        {
            let mut msg = [0u32];
            let pack = |f: Field, v: u64, msg: &mut [u32]| put(msg, f, v);
            pack(message_preload::TYPE, 1, &mut msg)?;
            pack(
                ld_var_preload::VARYING_INDEX,
                u64::from(m.location),
                &mut msg,
            )?;
            pack(ld_var_preload::REGISTER_FORMAT, 0, &mut msg)?;
            pack(
                ld_var_preload::NUM_COMPONENTS,
                u64::from(m.components),
                &mut msg,
            )?;
            put(&mut w, field, u64::from(msg[0]))?;
        }
        if fs.messages.len() > 2 {
            return Err(JmError::Encoding("more than two message preloads"));
        }
    } else if !fs.messages.is_empty() {
        // v6 has no message preloads: the shader was compiled for v7.
        return Err(JmError::Encoding(
            "a v7 fragment shader (message preloads) on a v6 GPU",
        ));
    }
    let mut reads_dest = false;
    for t in d.targets {
        reads_dest |= target_blend(t)?.load_destination;
    }
    let a2c = x.multisample.alpha_to_coverage;
    let modifies_coverage = fs.can_discard || fs.writes_depth || fs.writes_sample_mask || a2c;
    set(
        layout,
        &mut w,
        &props("Shader modifies coverage"),
        u64::from(modifies_coverage),
    )?;
    set(
        layout,
        &mut w,
        &props("Allow forward pixel to kill"),
        u64::from(!modifies_coverage && !reads_dest),
    )?;
    set(
        layout,
        &mut w,
        &props("Allow forward pixel to be killed"),
        u64::from(!fs.writes_depth),
    )?;
    // genxml "Pixel Kill": Force Early 0, Weak Early 2, Force Late 3.
    let (func, write) = match d.depth {
        Some(s) => (s.compare as u64, s.write),
        None => (CompareOp::Always as u64, false),
    };
    let early = if !fs.early_z_allowed || (a2c && !fs.early_fragment_tests) {
        3
    } else if func == CompareOp::Always as u64 && !write && x.stencil.is_none() {
        2
    } else {
        0
    };
    set(layout, &mut w, &props("Pixel kill operation"), early)?;
    set(layout, &mut w, &props("ZS update operation"), early)?;

    let mut ms = [0u32];
    // `Sample mask` is pSampleMask (the default all ones, what PanVk
    // writes); the simulator ANDs it with each pixel's coverage.
    let multisampled = x.multisample.samples > 1;
    put(
        &mut ms,
        msm::SAMPLE_MASK,
        u64::from(x.multisample.sample_mask & 0xffff),
    )?;
    put(&mut ms, msm::MULTISAMPLE_ENABLE, u64::from(multisampled))?;
    // Sample shading: one thread per covered sample, r61 holding its id
    // (genxml "Evaluate per-sample"; single-sampled it changes nothing).
    // A blend shader at 4× stores one sample per invocation, so it makes
    // the whole draw per-sample too (Mesa's Gallium driver,
    // src/gallium/drivers/panfrost/pan_cmdstream.c: "MSAA blend shaders
    // need to pass their sample ID to LD_TILE/ST_TILE ... we need
    // per-sample shading for the blend shader, accomplished by forcing
    // per-sample shading for the whole program", with the sample mask/ID
    // preload; src/panfrost/compiler/bifrost_compile.c `bi_pixel_indices`
    // adds the sample ID to LD_TILE's indices).
    let mut calls_blend_shaders = false;
    for (i, t) in d.targets.iter().enumerate() {
        let written = fs.render_targets.iter().any(|r| r.index == i as u32);
        calls_blend_shaders |= written && target_blend(t)?.shader.is_some();
    }
    let blend_per_sample = multisampled && calls_blend_shaders;
    let per_sample =
        multisampled && (fs.sample_shading || x.multisample.sample_shading) || blend_per_sample;
    put(&mut ms, msm::EVALUATE_PER_SAMPLE, u64::from(per_sample))?;
    put(&mut ms, msm::FIXED_FUNCTION_DEPTH_RANGE_FIXED, 1)?;
    put(&mut ms, msm::SHADER_DEPTH_RANGE_FIXED, 1)?;
    put(&mut ms, msm::DEPTH_FUNCTION, func)?;
    put(&mut ms, msm::DEPTH_WRITE_MASK, u64::from(write))?;
    // Depth clipping (the spec's 0 ≤ z_c ≤ w_c, `kmod/sim/clip.rs`) unless
    // the depth is clamped instead, as PanVk writes it (`!clamp_depth` in
    // its JM renderer state, `src/panfrost/vulkan/panvk_vX_pipeline.c`).
    let clip = u64::from(!x.depth_clamp);
    put(&mut ms, msm::FIXED_FUNCTION_NEAR_DISCARD, clip)?;
    put(&mut ms, msm::FIXED_FUNCTION_FAR_DISCARD, clip)?;
    put(&mut w, rs::MULTISAMPLE_MISC, u64::from(ms[0]))?;
    let mut sm = [0u32];
    put(
        &mut sm,
        smm::ALPHA_TEST_COMPARE_FUNCTION,
        CompareOp::Always as u64,
    )?;
    put(&mut sm, smm::ALPHA_TO_COVERAGE, u64::from(a2c))?;
    if let Some(b) = x.depth_bias {
        put(&mut sm, smm::FRONT_FACING_DEPTH_BIAS, 1)?;
        put(&mut sm, smm::BACK_FACING_DEPTH_BIAS, 1)?;
        // Bifrost's `Depth units` counts half the spec's r: PanVk writes
        // `depthBiasConstantFactor * 2` on v6/v7 (Mesa
        // `src/panfrost/vulkan/jm/panvk_vX_cmd_draw.c`; the Gallium driver
        // does the same with `offset_units`), and the simulator reads it so.
        set(
            layout,
            &mut w,
            "Depth units",
            u64::from((2.0 * b.constant).to_bits()),
        )?;
        set(layout, &mut w, "Depth factor", u64::from(b.slope.to_bits()))?;
        set(
            layout,
            &mut w,
            "Depth bias clamp",
            u64::from(b.clamp.to_bits()),
        )?;
    }
    match x.stencil {
        Some(st) => {
            put(&mut sm, smm::STENCIL_ENABLE, 1)?;
            put(
                &mut sm,
                smm::STENCIL_MASK_FRONT,
                u64::from(st.front.write_mask),
            )?;
            put(
                &mut sm,
                smm::STENCIL_MASK_BACK,
                u64::from(st.back.write_mask),
            )?;
            for (side, f) in [("Stencil front", st.front), ("Stencil back", st.back)] {
                let mut f_set =
                    |field: &str, v: u64| set(layout, &mut w, &format!("{side}.{field}"), v);
                f_set("Reference Value", u64::from(f.reference))?;
                f_set("Mask", u64::from(f.compare_mask))?;
                f_set("Compare Function", f.compare as u64)?;
                f_set("Stencil Fail", f.fail.raw())?;
                f_set("Depth Fail", f.depth_fail.raw())?;
                f_set("Depth Pass", f.pass.raw())?;
            }
        }
        None => {
            // Stencil is off; its masks are the pipeline's (0 from a
            // depth-stencil state without stencil) or all ones without a
            // depth-stencil state, as PanVk writes them.
            let stencil_mask = if d.depth.is_some() { 0 } else { 0xff };
            put(&mut sm, smm::STENCIL_MASK_FRONT, stencil_mask)?;
            put(&mut sm, smm::STENCIL_MASK_BACK, stencil_mask)?;
            for side in ["Stencil front", "Stencil back"] {
                set(layout, &mut w, &format!("{side}.Mask"), stencil_mask)?;
            }
        }
    }
    put(&mut w, rs::STENCIL_MASK_MISC, u64::from(sm[0]))?;
    let p = fs.preloads;
    for (f, on) in [
        (fpl::COVERAGE, p.coverage),
        (fpl::PRIMITIVE_FLAGS, p.primitive_flags),
        (fpl::FRAGMENT_POSITION, p.fragment_position),
        (fpl::SAMPLE_MASK_ID, p.sample_mask_id || blend_per_sample),
    ] {
        put(&mut w, f.at(rs::PRELOAD.start), u64::from(on))?;
    }

    let rsd_bytes = 4 * w.len() as u64;
    let total = rsd_bytes + 16 * d.targets.len() as u64;
    let a = pool.alloc(total, 64)?;
    a.write_words(0, &w);
    for (i, t) in d.targets.iter().enumerate() {
        let register = fs
            .render_targets
            .iter()
            .find(|r| r.index == i as u32)
            .map_or(BlendRegisterFormat::F32, |r| r.format);
        // Dual-source blending reads the second colour the fragment
        // shader leaves in r4–r7 at target 0's BLEND only (Vulkan's
        // `maxFragmentDualSrcAttachments` is 1 here).
        if i != 0 && t.blend.equation().is_some_and(|eq| ff::is_dual_source(&eq)) {
            return Err(JmError::Encoding(
                "dual-source blend factors on a colour target other than 0",
            ));
        }
        let mut bw = blend_words_with(arch, i as u32, t, register)?;
        if let Some((eq, mask)) = target_blend(t)?.shader
            && let Some(written) = fs.render_targets.iter().find(|r| r.index == i as u32)
        {
            let integer = matches!(t.format.kind(), ColorKind::Uint | ColorKind::Sint);
            if (written.format == BlendRegisterFormat::F32) == integer {
                return Err(JmError::Encoding(
                    "a blend shader for a colour of another type than the target's",
                ));
            }
            let unorm = t.format.kind() == ColorKind::Unorm;
            let mut desc = ff::shader_desc(&eq, mask, i as u8, unorm, integer, [bw[2], bw[3]]);
            // At 4× the draw runs per sample (above) and the blend shader
            // reads its thread's sample.
            desc.multisampled = multisampled;
            let pc = blend_shader_address(pool, &desc)?;
            if pc >> 32 != d.fragment.code >> 32 {
                return Err(JmError::Encoding(
                    "blend shader outside the fragment shader's 4 GiB region",
                ));
            }
            // The clause after the target's BLEND, or 0 after the last one
            // (the thread then ends with the blend shader).
            let ret = match written.return_offset {
                0 => 0,
                o => d.fragment.code + u64::from(o),
            };
            let layout = crate::hw::blend::blend(arch);
            set(
                layout,
                &mut bw,
                "Internal.Mode",
                crate::hw::blend::MODE_SHADER,
            )?;
            set(layout, &mut bw, "Internal.Shader.PC", pc & 0xffff_ffff)?;
            set(
                layout,
                &mut bw,
                "Internal.Shader.Return Value",
                ret & 0xffff_ffff,
            )?;
        }
        if x.multisample.alpha_to_one {
            set(crate::hw::blend::blend(arch), &mut bw, "Alpha To One", 1)?;
        }
        a.write_words(rsd_bytes + 16 * i as u64, &bw);
    }
    Ok(a.gpu_va)
}

/// ONE / ZERO, ADD: the source replaces the destination (a float target's
/// partial write mask, done by a blend shader).
const REPLACE: BlendEquation = BlendEquation {
    src_color: ff::BlendFactor::One,
    dst_color: ff::BlendFactor::Zero,
    color_op: ff::BlendOp::Add,
    src_alpha: ff::BlendFactor::One,
    dst_alpha: ff::BlendFactor::Zero,
    alpha_op: ff::BlendOp::Add,
    constants: [0.0; 4],
};

/// The GPU VA of the blend shader `desc`, compiled and uploaded to the
/// pool's executable memory the first time the pool sees it.
fn blend_shader_address(
    pool: &mut GpuPool,
    desc: &crate::compiler::bifrost::blend::BlendShaderDesc,
) -> JmResult<u64> {
    let key = format!("{desc:?}");
    if let Some(&va) = pool.code_cache.get(&key) {
        return Ok(va);
    }
    let code = crate::compiler::bifrost::blend::compile_blend_shader(desc).map_err(|e| {
        log::error!("blend shader: {e}");
        JmError::Encoding("blend shader compilation failed")
    })?;
    let va = pool.upload_code(&code)?;
    pool.code_cache.insert(key, va);
    Ok(va)
}

/// How a colour target's Blend descriptor blends.
struct TargetBlend {
    /// `Mode`: Opaque 1, Fixed-Function 2.
    mode: u64,
    /// `Enable`: false when no channel is written.
    enable: bool,
    load_destination: bool,
    rgb: ff::Function,
    alpha: ff::Function,
    constant: f32,
    alpha_zero_nop: bool,
    alpha_one_store: bool,
    /// The target needs a blend shader of this equation and write mask
    /// (the descriptor's words are then the Opaque ones its BLEND uses,
    /// `fragment_renderer_state` switches the RSD's copy to Shader).
    shader: Option<(BlendEquation, u8)>,
}

/// The blend unit's settings for `t` (Mesa's choices in `pan_blend.c` for
/// the modes: "Opaque" only without blending and with every channel
/// written, else fixed function, reading the destination when the
/// equation or a partial write mask needs it).
fn target_blend(t: &ColorTargetState) -> JmResult<TargetBlend> {
    if t.format.is_raw() {
        // Float, integer, SNORM and 16-bit UNORM targets are RAW to the blend unit: stored as
        // the conversion writes them, Opaque (a blend shader would do the
        // rest: not encoded).
        let all = (1u8 << t.format.components()) - 1;
        let mask = t.write_mask & all;
        let float = t.format.kind() == ColorKind::Float;
        let partial = mask != 0 && mask != all;
        let integer = matches!(t.format.kind(), ColorKind::Uint | ColorKind::Sint);
        if !float && !integer && (partial || mask != 0 && t.blend.equation().is_some()) {
            // SNORM and 16-bit UNORM: our blend shaders compute in F32 and
            // clamp for 8-bit UNORM only; their LD_TILE/BLEND conversions
            // for these RAW formats are not written or tested.
            return Err(JmError::Encoding(
                "blending or a partial write mask on a SNORM or 16-bit UNORM target: not done",
            ));
        }
        let shader = match t.blend.equation() {
            Some(_) if !float => {
                return Err(JmError::Encoding("blending an integer target"));
            }
            Some(eq) if mask != 0 => {
                let eq = if t.format.components() < 4 {
                    ff::without_destination_alpha(&eq)
                } else {
                    eq
                };
                Some((eq, mask))
            }
            // A partial mask alone: the source replaces the written channels.
            None if partial => Some((REPLACE, mask)),
            _ => None,
        };
        return Ok(TargetBlend {
            mode: 1,
            enable: mask != 0,
            load_destination: shader.is_some(),
            rgb: ff::Function::REPLACE,
            alpha: ff::Function::REPLACE,
            constant: 0.0,
            alpha_zero_nop: false,
            alpha_one_store: false,
            shader,
        });
    }
    let mask = t.write_mask & 15;
    let mut b = TargetBlend {
        mode: 2,
        enable: mask != 0,
        load_destination: mask != 0 && mask != 15,
        rgb: ff::Function::REPLACE,
        alpha: ff::Function::REPLACE,
        constant: 0.0,
        alpha_zero_nop: false,
        alpha_one_store: false,
        shader: None,
    };
    match t.blend.equation() {
        None if mask == 15 => b.mode = 1,
        None => {}
        Some(eq) => {
            let eq = if t.format.components() < 4 {
                ff::without_destination_alpha(&eq)
            } else {
                eq
            };
            if mask == 0 {
                // Nothing written (`Enable` false): no equation needed.
                return Ok(b);
            }
            if ff::needs_blend_shader(&eq, mask)? {
                // The blend shader's own BLEND is Opaque.
                b.mode = 1;
                b.load_destination = true;
                b.shader = Some((eq, mask));
                return Ok(b);
            }
            let f = ff::fixed_function(&eq, mask)?;
            b.rgb = f.rgb;
            b.alpha = f.alpha;
            b.constant = f.constant;
            if mask != 0 {
                b.load_destination |= f.rgb.reads_dest() || f.alpha.reads_dest();
                b.alpha_zero_nop = f.alpha_zero_nop;
                b.alpha_one_store = f.alpha_one_store;
            }
        }
    }
    Ok(b)
}

/// The Blend descriptor of colour target `rt` written by a float output.
pub fn blend_words(arch: Arch, rt: u32, t: &ColorTargetState) -> JmResult<Vec<u32>> {
    blend_words_with(arch, rt, t, BlendRegisterFormat::F32)
}

/// The Blend descriptor of colour target `rt` written by an output of
/// `register` format.
pub fn blend_words_with(
    arch: Arch,
    rt: u32,
    t: &ColorTargetState,
    register: BlendRegisterFormat,
) -> JmResult<Vec<u32>> {
    let layout = crate::hw::blend::blend(arch);
    let mut w = layout.defaults();
    let s = |w: &mut Vec<u32>, path: &str, v: u64| set(layout, w, path, v);
    let b = target_blend(t)?;
    s(&mut w, "Round to FB precision", 1)?;
    s(&mut w, "Enable", u64::from(b.enable))?;
    s(&mut w, "Load Destination", u64::from(b.load_destination))?;
    for (part, f) in [("RGB", &b.rgb), ("Alpha", &b.alpha)] {
        s(&mut w, &format!("Equation.{part}.A"), f.a)?;
        s(
            &mut w,
            &format!("Equation.{part}.Negate A"),
            u64::from(f.negate_a),
        )?;
        s(&mut w, &format!("Equation.{part}.B"), f.b)?;
        s(
            &mut w,
            &format!("Equation.{part}.Negate B"),
            u64::from(f.negate_b),
        )?;
        s(&mut w, &format!("Equation.{part}.C"), f.c)?;
        s(
            &mut w,
            &format!("Equation.{part}.Invert C"),
            u64::from(f.invert_c),
        )?;
    }
    // A RAW target is written whole (Opaque; `target_blend` refused a
    // partial mask).
    let color_mask = if (t.format.is_raw() || b.shader.is_some()) && b.enable {
        15
    } else {
        t.write_mask & 15
    };
    s(&mut w, "Equation.Color Mask", u64::from(color_mask))?;
    s(&mut w, "Internal.Mode", b.mode)?;
    let ff = "Internal.Fixed-Function";
    s(&mut w, &format!("{ff}.Num Comps"), 4)?;
    s(&mut w, &format!("{ff}.RT"), u64::from(rt))?;
    // Set when the equation leaves the destination alone for alpha 0 and
    // overwrites it for alpha 1 (`blend::alpha_zero_nop`/`alpha_one_store`).
    s(
        &mut w,
        &format!("{ff}.Alpha Zero NOP"),
        u64::from(b.alpha_zero_nop),
    )?;
    s(
        &mut w,
        &format!("{ff}.Alpha One Store"),
        u64::from(b.alpha_one_store),
    )?;
    let formats = FormatArch::for_arch(arch);
    // The constant as a UNORM of the format's constant size, the
    // conversion to the target's internal format (Mesa's
    // `panfrost_blendable_formats` memory formats, sRGB in bit 20).
    s(
        &mut w,
        "Constant",
        ff::pack_constant(b.constant, t.format.constant_bits()),
    )?;
    let pixel = formats
        .format_value(t.format.blend_memory_format())
        .ok_or(JmError::Encoding("no blend memory format"))?;
    use crate::hw::format::channel;
    let raw = t.format.is_raw();
    let order = match (arch, t.format.components()) {
        // v7: component order RGBA (RGB1 for a RAW format without alpha,
        // Mesa's R001 / RGB1); v6: swizzle R, G, B, A (R, 0, 0, 1 or
        // R, G, B, 1).
        (Arch::V7, n) if raw && n < 4 => crate::hw::format::ORDER_RGB1,
        (Arch::V7, _) => crate::hw::format::ORDER_RGBA,
        (Arch::V6, 1) if raw => {
            crate::hw::format::v6_swizzle(channel::R, channel::ZERO, channel::ZERO, channel::ONE)
        }
        (Arch::V6, 2) if raw => {
            crate::hw::format::v6_swizzle(channel::R, channel::G, channel::ZERO, channel::ONE)
        }
        (Arch::V6, 3) if raw => {
            crate::hw::format::v6_swizzle(channel::R, channel::G, channel::B, channel::ONE)
        }
        (Arch::V6, _) => crate::hw::format::v6_swizzle(0, 1, 2, 3),
    };
    s(
        &mut w,
        &format!("{ff}.Conversion.Memory Format"),
        pixel << 12 | order | u64::from(t.format.srgb()) << 20,
    )?;
    // genxml "Register File Format" F32 1, I32 2, U32 3.
    let register = match register {
        BlendRegisterFormat::F32 => 1,
        BlendRegisterFormat::S32 => 2,
        BlendRegisterFormat::U32 => 3,
    };
    s(
        &mut w,
        &format!("{ff}.Conversion.Register Format"),
        register,
    )?;
    Ok(w)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::compiler::bifrost::binary::{
        FragmentInfo, FragmentPreloads, RenderTargetWrite, VaryingLoad, VaryingStore,
    };
    use crate::compiler::ir::{BuiltIn, Output, Sampling, Shader, Stage, ValueType};
    use crate::compiler::passes::IoLayout;
    use crate::compiler::pipeline::Variant;
    use crate::hw::job::header;
    use crate::jm::Recorder;
    use crate::kmod::Device;
    use crate::kmod::sim::{SimDevice, SimModel};

    /// A vertex program storing a position and location 2; a fragment
    /// program loading location 2 (binaries never run: the words are read).
    fn programs() -> (LoweredShader, ShaderBinary, LoweredShader, ShaderBinary) {
        let f4 = ValueType::new(32, 4);
        let mut vs = Shader::new(Stage::Vertex);
        for slot in [
            OutputSlot::BuiltIn(BuiltIn::Position),
            OutputSlot::Location {
                location: 2,
                component: 0,
            },
        ] {
            vs.outputs.push(Output {
                name: "o".into(),
                slot,
                ty: f4,
                xfb: None,
            });
        }
        let lowered_vs = LoweredShader {
            variant: Variant::Rasterization,
            shader: vs,
            io: IoLayout {
                attributes: vec![],
                varyings: vec![(VaryingSlot::Position, 0), (VaryingSlot::Generic(0), 0)],
            },
            push_uniforms: Default::default(),
        };
        let vs_binary = ShaderBinary {
            varyings: vec![
                VaryingStore { index: 0, words: 4 },
                VaryingStore { index: 1, words: 3 },
            ],
            ..ShaderBinary::default()
        };
        let lowered_fs = LoweredShader {
            variant: Variant::Fragment,
            shader: Shader::new(Stage::Fragment),
            io: IoLayout::default(),
            push_uniforms: Default::default(),
        };
        let fs_binary = ShaderBinary {
            fragment: Some(FragmentInfo {
                preloads: FragmentPreloads {
                    coverage: true,
                    sample_mask_id: true,
                    ..Default::default()
                },
                render_targets: vec![RenderTargetWrite {
                    index: 0,
                    format: BlendRegisterFormat::F32,
                    components: 4,
                    return_offset: 0,
                }],
                early_z_allowed: true,
                varyings: vec![VaryingLoad {
                    location: 2,
                    components: 3,
                    interpolation: Interpolation::Smooth,
                    sampling: Sampling::Center,
                }],
                ..Default::default()
            }),
            ..ShaderBinary::default()
        };
        (lowered_vs, vs_binary, lowered_fs, fs_binary)
    }

    /// `Recorder::draw`: a VERTEX job then a TILER job depending on it
    /// and on the previous draw's TILER job; a pending barrier lands on the
    /// VERTEX job; the fragment varying table maps location 2 to the
    /// vertex shader's generic slot 0 as F32 × 3.
    #[test]
    fn recorder_draws_are_vertex_then_tiler_jobs() {
        let device = Arc::new(Device::with_dump_dir(
            Box::new(SimDevice::new(SimModel::G52)),
            None,
        ));
        let mut rec = Recorder::new(device, Arch::V7);
        let (lvs, vs, lfs, fs) = programs();
        let targets = [ColorTargetState {
            format: ColorFormat::Rgba8Unorm,
            blend: Blend::SrcAlphaOver,
            write_mask: 15,
        }];
        let mut draw = Draw {
            vertex: Program {
                binary: &vs,
                code: 0x10_0000,
                lowered: &lvs,
                buffers: &[],
            },
            fragment: Program {
                binary: &fs,
                code: 0x10_0080,
                lowered: &lfs,
                buffers: &[],
            },
            attributes: AttributeTables::default(),
            push_constants: &[],
            push_constants_address: 0,
            topology: Topology::TriangleStrip,
            count: 5,
            first_vertex: 7,
            indices: None,
            raster: RasterState::default(),
            depth: None,
            targets: &targets,
            viewport: Viewport {
                x: 0.0,
                y: 0.0,
                width: 16.0,
                height: 16.0,
                min_depth: 0.0,
                max_depth: 1.0,
            },
            scissor: Scissor {
                x: 0,
                y: 0,
                width: 16,
                height: 16,
            },
            tiler_context: 0x20_0000,
            previous_tiler: 0,
        };
        let first = rec.draw(&draw).unwrap().unwrap();
        assert_eq!((first.vertex, first.tiler), (1, 2));
        rec.barrier();
        draw.previous_tiler = first.tiler;
        let second = rec.draw(&draw).unwrap().unwrap();
        assert_eq!((second.vertex, second.tiler), (3, 4));
        let headers: Vec<(u64, u64, u64, u64)> = (0..4)
            .map(|i| {
                rec.chain().read_header(i, |w| {
                    (
                        header::TYPE.get(w),
                        header::DEPENDENCY_1.get(w),
                        header::DEPENDENCY_2.get(w),
                        header::BARRIER.get(w),
                    )
                })
            })
            .collect();
        let (v, t) = (JobType::Vertex as u64, JobType::Tiler as u64);
        assert_eq!(
            headers,
            vec![(v, 0, 0, 0), (t, 1, 0, 0), (v, 0, 0, 1), (t, 3, 2, 0)]
        );
        // The TILER job's Draw: offset start, a fragment varying table.
        let dev = rec.device();
        let read = |va: u64, n: usize| {
            let k = dev.kernel();
            let bo = k
                .live_bos()
                .into_iter()
                .find(|b| va >= b.gpu_va && va + 4 * n as u64 <= b.gpu_va + b.size)
                .expect("a BO holds the descriptor");
            let mut b = vec![0u8; bo.size as usize];
            k.bo_read(&bo, &mut b).unwrap();
            let at = (va - bo.gpu_va) as usize;
            crate::hw::layout::words_from_bytes(&b[at..at + 4 * n])
        };
        let w = read(second.draw, 32);
        assert_eq!(dcd::OFFSET_START.get(&w), 7);
        let table = dcd::VARYINGS.get(&w);
        let rec2 = read(table + 16, 2);
        let f = FormatArch::for_arch(Arch::V7);
        assert_eq!(
            f.decode_attribute_format(ad::FORMAT.get(&rec2)).unwrap().0,
            VertexFormat::new(ComponentType::F32, 3)
        );
        assert_eq!(ad::OFFSET.get(&rec2), 0);
        // The varying buffers: position (16 B), generic (16 B per slot).
        let buffers = read(dcd::VARYING_BUFFERS.get(&w), 8);
        use crate::hw::attribute::attribute_buffer as ab;
        assert_eq!(ad::BUFFER_INDEX.get(&rec2), 1);
        assert_eq!(ab::STRIDE.get(&buffers[4..8]), 16);
        assert_eq!(ab::POINTER.get(&buffers[0..4]), dcd::POSITION.get(&w));
    }
}
