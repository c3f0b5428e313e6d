//! Instructions: one struct per instruction kind, collected in [`Op`].
//!
//! ALU operations are NIR-style: the opcode ([`AluOp`]) gives the meaning of
//! the bits (int/float/bool), operate component-wise on vectors of equal width,
//! and have no source swizzles (use [`Op::Swizzle`]/[`Op::Vec`]). Memory and
//! system-value access are [`Intrinsic`]s. Structured control flow is
//! [`Op::If`] and [`Op::Loop`] with nested regions; [`Op::Yield`],
//! [`Op::Break`] and [`Op::Continue`] end regions.

use super::shader::Region;
use super::types::{Value, VarId};
use crate::compiler::inline_vec::InlineVec;

/// An instruction's defined values or value sources: up to six in place
/// (all but `if`/`loop` results and vectors of vectors), more on the heap.
pub type ValueList = InlineVec<Value, 6>;

/// One instruction: the values it defines and what it does.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    /// Defined values (one for most ops; any number for `if`/`loop`; none for stores).
    pub dsts: ValueList,
    pub op: Op,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Constant components, stored zero-extended in u64 (bit patterns; floats as bits).
    Const(OpConst),
    /// An undefined value of the dst type.
    Undef,
    Alu(OpAlu),
    /// Build a vector from scalars (or smaller vectors), in order.
    Vec(OpVec),
    /// Pick components of a vector: `dst[i] = src[comps[i]]`.
    Swizzle(OpSwizzle),
    Intrinsic(OpIntrinsic),
    If(If),
    Loop(Loop),
    /// Ends an `if` branch, giving the `if`'s results.
    Yield(OpValues),
    /// Leaves the innermost loop, giving the loop's results.
    Break(OpValues),
    /// Starts the next iteration of the innermost loop, giving its parameters.
    Continue(OpValues),
}

impl Op {
    /// `yield`, `break` and `continue` end a region.
    pub fn is_terminator(&self) -> bool {
        matches!(self, Op::Yield(_) | Op::Break(_) | Op::Continue(_))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct OpConst {
    pub values: InlineVec<u64, 4>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OpAlu {
    pub op: AluOp,
    pub srcs: ValueList,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OpVec {
    pub srcs: ValueList,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OpSwizzle {
    pub src: Value,
    pub comps: InlineVec<u8, 4>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OpValues {
    pub values: Vec<Value>,
}

/// `if cond { then } else { else }`; the instruction's dsts are the values the
/// branches `yield` (a branch that ends in break/continue yields nothing).
#[derive(Clone, Debug, PartialEq)]
pub struct If {
    pub cond: Value,
    pub then_region: Region,
    pub else_region: Region,
}

/// `loop(params = inits) { body }`: `params` are defined inside the body and
/// take `inits` on entry and the `continue` values afterwards; the
/// instruction's dsts are the values given by `break`. The body must end in a
/// terminator (or an `if` whose branches all terminate).
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    pub params: Vec<Value>,
    pub inits: Vec<Value>,
    pub body: Region,
}

/// How an ALU op relates source and destination types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AluClass {
    /// All sources and the destination share one type.
    Same,
    /// Sources share a type; the destination is boolean of the same width.
    Compare,
    /// Source 0 boolean; sources 1 and 2 and the destination share a type.
    Select,
    /// Source 1 is a 32-bit shift count; source 0 and the destination share a type.
    Shift,
    /// One source of any type; the destination's bit size is the op's choice.
    Convert,
    /// Rules of their own (see the op's doc).
    Special,
}

macro_rules! alu_ops {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $nsrc:literal, $class:ident; )*) => {
        /// ALU opcodes. Prefix: `i` integer (two's complement), `u` unsigned,
        /// `f` float, `b` boolean.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum AluOp {
            $( $(#[$doc])* $variant, )*
        }

        impl AluOp {
            pub const ALL: &'static [AluOp] = &[$(AluOp::$variant),*];

            /// The name in the text form.
            pub fn name(self) -> &'static str {
                match self { $(AluOp::$variant => $name,)* }
            }

            pub fn num_srcs(self) -> usize {
                match self { $(AluOp::$variant => $nsrc,)* }
            }

            pub fn class(self) -> AluClass {
                match self { $(AluOp::$variant => AluClass::$class,)* }
            }

            pub fn from_name(name: &str) -> Option<AluOp> {
                match name { $($name => Some(AluOp::$variant),)* _ => None }
            }
        }
    };
}

alu_ops! {
    /// Copy.
    Mov = "mov", 1, Same;
    // Integer arithmetic (wrapping).
    Iadd = "iadd", 2, Same;
    Isub = "isub", 2, Same;
    Imul = "imul", 2, Same;
    /// High half of the signed double-width product.
    ImulHigh = "imul_high", 2, Same;
    /// High half of the unsigned double-width product.
    UmulHigh = "umul_high", 2, Same;
    Ineg = "ineg", 1, Same;
    Iabs = "iabs", 1, Same;
    Isign = "isign", 1, Same;
    Imin = "imin", 2, Same;
    Imax = "imax", 2, Same;
    Umin = "umin", 2, Same;
    Umax = "umax", 2, Same;
    /// Unsigned division; x / 0 = all ones (undefined in SPIR-V; defined here for determinism).
    Udiv = "udiv", 2, Same;
    /// Signed division truncating toward zero; x / 0 = -1, INT_MIN / -1 = INT_MIN (see `eval.rs`).
    Idiv = "idiv", 2, Same;
    /// Unsigned remainder; x % 0 = x.
    Umod = "umod", 2, Same;
    /// Signed remainder with the sign of the dividend (SPIR-V OpSRem); x % 0 = x.
    Irem = "irem", 2, Same;
    /// Signed modulo with the sign of the divisor (SPIR-V OpSMod); x % 0 = x.
    Imod = "imod", 2, Same;
    // Bitwise (also on booleans).
    Iand = "iand", 2, Same;
    Ior = "ior", 2, Same;
    Ixor = "ixor", 2, Same;
    Inot = "inot", 1, Same;
    /// Shift counts are taken modulo the bit size.
    Ishl = "ishl", 2, Shift;
    Ishr = "ishr", 2, Shift;
    Ushr = "ushr", 2, Shift;
    /// bitfield_insert(base, insert, offset, count).
    BitfieldInsert = "bitfield_insert", 4, Special;
    /// ubitfield_extract(value, offset, count).
    UbitfieldExtract = "ubitfield_extract", 3, Special;
    IbitfieldExtract = "ibitfield_extract", 3, Special;
    BitfieldReverse = "bitfield_reverse", 1, Same;
    /// Population count; the destination is 32-bit.
    BitCount = "bit_count", 1, Special;
    /// Index of the lowest set bit, -1 if none; 32-bit result.
    FindLsb = "find_lsb", 1, Special;
    /// Index of the highest set bit, -1 if none; 32-bit result.
    UfindMsb = "ufind_msb", 1, Special;
    /// Index of the highest bit that differs from the sign bit, -1 if none.
    IfindMsb = "ifind_msb", 1, Special;
    // Float arithmetic.
    Fadd = "fadd", 2, Same;
    Fsub = "fsub", 2, Same;
    Fmul = "fmul", 2, Same;
    /// Fused multiply-add a*b+c.
    Ffma = "ffma", 3, Same;
    Fdiv = "fdiv", 2, Same;
    Fneg = "fneg", 1, Same;
    Fabs = "fabs", 1, Same;
    Fsign = "fsign", 1, Same;
    /// IEEE minNum: a NaN operand yields the other operand.
    Fmin = "fmin", 2, Same;
    Fmax = "fmax", 2, Same;
    Fsat = "fsat", 1, Same;
    Fsqrt = "fsqrt", 1, Same;
    Frsq = "frsq", 1, Same;
    Frcp = "frcp", 1, Same;
    Fexp2 = "fexp2", 1, Same;
    Flog2 = "flog2", 1, Same;
    Fsin = "fsin", 1, Same;
    Fcos = "fcos", 1, Same;
    Ffloor = "ffloor", 1, Same;
    Fceil = "fceil", 1, Same;
    Ftrunc = "ftrunc", 1, Same;
    Ffract = "ffract", 1, Same;
    FroundEven = "fround_even", 1, Same;
    Fpow = "fpow", 2, Same;
    // Comparisons (destination boolean).
    Ieq = "ieq", 2, Compare;
    Ine = "ine", 2, Compare;
    Ilt = "ilt", 2, Compare;
    Ige = "ige", 2, Compare;
    Ult = "ult", 2, Compare;
    Uge = "uge", 2, Compare;
    /// Ordered equal (false if either is NaN).
    Feq = "feq", 2, Compare;
    /// Unordered not-equal (true if either is NaN).
    Fneu = "fneu", 2, Compare;
    /// Ordered less-than.
    Flt = "flt", 2, Compare;
    /// Ordered greater-or-equal.
    Fge = "fge", 2, Compare;
    /// bcsel(cond, a, b): cond ? a : b, per component.
    Bcsel = "bcsel", 3, Select;
    // Conversions: the destination type gives the target bit size.
    /// Signed int → float.
    I2f = "i2f", 1, Convert;
    /// Unsigned int → float.
    U2f = "u2f", 1, Convert;
    /// Float → signed int, rounding toward zero, saturating (NaN → 0).
    F2i = "f2i", 1, Convert;
    /// Float → unsigned int, rounding toward zero, saturating (NaN → 0).
    F2u = "f2u", 1, Convert;
    /// Float → float of another width (round to nearest even).
    F2f = "f2f", 1, Convert;
    /// Sign-extend or truncate.
    I2i = "i2i", 1, Convert;
    /// Zero-extend or truncate.
    U2u = "u2u", 1, Convert;
    /// Boolean → integer 0/1.
    B2i = "b2i", 1, Convert;
    /// Boolean → float 0.0/1.0.
    B2f = "b2f", 1, Convert;
    /// Integer ≠ 0 → boolean.
    I2b = "i2b", 1, Convert;
    /// Reinterpret bits of equal total size (e.g. i32x2 ↔ i64).
    Bitcast = "bitcast", 1, Special;
    /// f32x2 → i32 holding two halves (x low).
    PackHalf2x16 = "pack_half_2x16", 1, Special;
    /// i32 → f32x2 from two halves.
    UnpackHalf2x16 = "unpack_half_2x16", 1, Special;
    /// f32x4 → i32 as unorm8 (x lowest byte).
    PackUnorm4x8 = "pack_unorm_4x8", 1, Special;
    PackSnorm4x8 = "pack_snorm_4x8", 1, Special;
    UnpackUnorm4x8 = "unpack_unorm_4x8", 1, Special;
    UnpackSnorm4x8 = "unpack_snorm_4x8", 1, Special;
    PackUnorm2x16 = "pack_unorm_2x16", 1, Special;
    PackSnorm2x16 = "pack_snorm_2x16", 1, Special;
    UnpackUnorm2x16 = "unpack_unorm_2x16", 1, Special;
    UnpackSnorm2x16 = "unpack_snorm_2x16", 1, Special;
}

/// Built-in and driver-provided values.
///
/// The first group are what SPIR-V built-ins lower to; `Raw*` are what the
/// Bifrost hardware preloads; the `Xfb*` group are the runtime parameters of
/// the transform-feedback variant (filled by the job emitter through the
/// push-uniform area, see `passes/lower_sysvals.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SysVal {
    /// gl_VertexIndex (absolute: includes firstVertex / vertexOffset).
    VertexIndex,
    /// gl_InstanceIndex (includes firstInstance).
    InstanceIndex,
    BaseVertex,
    BaseInstance,
    /// gl_ViewIndex (VK_KHR_multiview): the view a vertex shader runs
    /// for; 0 outside a multiview subpass.
    ViewIndex,
    /// gl_DrawID (VK_KHR_shader_draw_parameters): the index of the draw
    /// in a multi-draw command; 0 for single draws.
    DrawIndex,
    /// Vertex id relative to the draw's `Offset start`, as preloaded in r61.
    RawVertexId,
    /// The draw's `Offset start` (raw vertex offset).
    RawVertexOffset,
    /// 0-based instance number, as preloaded in r62.
    InstanceId,
    /// Fragment shaders: `gl_FragCoord` (f32x4: window x, y of the pixel
    /// centre, depth z, 1/w of the fragment).
    FragCoord,
    /// Fragment shaders: `gl_FrontFacing` (boolean).
    FrontFacing,
    /// Fragment shaders: `gl_PointCoord` (f32x2, point sprites).
    PointCoord,
    /// Fragment shaders: `gl_SampleID` (u32: the sample a sample-shaded
    /// invocation runs for; reading it enables sample shading).
    SampleId,
    /// Fragment shaders: `gl_SamplePosition` (f32x2: the sample's position
    /// in the pixel, (0.5, 0.5) the centre; enables sample shading).
    SamplePosition,
    /// Fragment shaders: `gl_SampleMaskIn[0]` (u32: the samples the
    /// rasterizer covered for this invocation).
    SampleMaskIn,
    LocalInvocationId,
    LocalInvocationIndex,
    WorkgroupId,
    GlobalInvocationId,
    NumWorkgroups,
    WorkgroupSize,
    /// Index of the captured-vertex invocation (XFB variant).
    XfbInvocation,
    /// A numbered XFB draw parameter (see `passes/lower_xfb.rs` for the table).
    XfbParam(u16),
}

/// Atomic read-modify-write operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    Imin,
    Imax,
    Umin,
    Umax,
    And,
    Or,
    Xor,
    Exchange,
    /// Sources: offset/address, compare, new value.
    CompSwap,
}

/// What a texture access does (see [`Intrinsic::Texture`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexOp {
    /// Filtered, level of detail from the implicit derivatives.
    Sample,
    /// Filtered, level of detail given.
    SampleLod,
    /// Filtered, level of detail from the implicit derivatives plus a
    /// bias (`OpImageSampleImplicitLod` with `Bias`; fragment shaders).
    SampleBias,
    /// Depth comparison against a reference, then filtered (the sampler's
    /// compare op; `OpImageSampleDrefImplicitLod`, fragment shaders): the
    /// result's first component.
    SampleDref,
    /// The same at a given level of detail (`OpImageSampleDrefExplicitLod`).
    SampleDrefLod,
    /// One texel at integer coordinates and level (`texelFetch`).
    Fetch,
    /// The given component (0–3: r, g, b, a) of the four texels a LINEAR
    /// filter would weight in the base level (`OpImageGather`, Vulkan
    /// "Texel Gathering"), in the spec's order i0j1, i1j1, i1j0, i0j0.
    Gather(u8),
    /// The depth compares (`reference` op texel, the sampler's compare op)
    /// of the same four texels' first components, 1.0 or 0.0, in that
    /// order (`OpImageDrefGather`, "Texel Gathering").
    GatherDref,
}

impl TexOp {
    pub const ALL: [TexOp; 11] = [
        TexOp::Sample,
        TexOp::SampleLod,
        TexOp::SampleBias,
        TexOp::SampleDref,
        TexOp::SampleDrefLod,
        TexOp::Fetch,
        TexOp::Gather(0),
        TexOp::Gather(1),
        TexOp::Gather(2),
        TexOp::Gather(3),
        TexOp::GatherDref,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TexOp::Sample => "sample",
            TexOp::SampleLod => "sample_lod",
            TexOp::SampleBias => "sample_bias",
            TexOp::SampleDref => "sample_dref",
            TexOp::SampleDrefLod => "sample_dref_lod",
            TexOp::Fetch => "fetch",
            TexOp::Gather(0) => "gather_r",
            TexOp::Gather(1) => "gather_g",
            TexOp::Gather(2) => "gather_b",
            TexOp::Gather(3) => "gather_a",
            // Refused by the validator.
            TexOp::Gather(_) => "gather_invalid",
            TexOp::GatherDref => "gather_dref",
        }
    }
}

/// The framebuffer axis of an [`Intrinsic::Derivative`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DerivativeAxis {
    X,
    Y,
}

/// The component type an image's texels are read as (SPIR-V `Sampled Type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SampledType {
    Float,
    Sint,
    Uint,
}

impl SampledType {
    pub const ALL: [SampledType; 3] = [SampledType::Float, SampledType::Sint, SampledType::Uint];

    pub fn name(self) -> &'static str {
        match self {
            SampledType::Float => "float",
            SampledType::Sint => "sint",
            SampledType::Uint => "uint",
        }
    }
}

/// The dimensionality of a sampled image (SPIR-V `Dim` 1D, 2D, 3D):
/// how many coordinate components address a texel (an array's layer comes
/// after them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TexDim {
    D1,
    #[default]
    D2,
    D3,
    /// A cube map (SPIR-V `Dim` Cube): the coordinate is a direction
    /// (x, y, z), plus the cube layer for a cube array.
    Cube,
}

impl TexDim {
    pub const ALL: [TexDim; 4] = [TexDim::D1, TexDim::D2, TexDim::D3, TexDim::Cube];

    pub fn name(self) -> &'static str {
        match self {
            TexDim::D1 => "d1",
            TexDim::D2 => "d2",
            TexDim::D3 => "d3",
            TexDim::Cube => "cube",
        }
    }

    /// Coordinate components before an array's layer.
    pub fn coords(self) -> u8 {
        match self {
            TexDim::D1 => 1,
            TexDim::D2 => 2,
            TexDim::D3 | TexDim::Cube => 3,
        }
    }
}

/// A memory or system operation with constant parameters and value sources.
#[derive(Clone, Debug, PartialEq)]
pub struct OpIntrinsic {
    pub kind: Intrinsic,
    pub srcs: ValueList,
}

/// Intrinsic kinds. Byte offsets are u32 sources unless stated; addresses
/// (global memory) are 64-bit sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Intrinsic {
    /// Read an input: location and first component. No sources. In a
    /// vertex shader the attribute of this vertex; in a fragment shader the
    /// varying interpolated as its `Input` declaration says.
    LoadInput {
        location: u32,
        component: u8,
    },
    /// Read a vertex attribute for an explicit vertex: srcs = [raw vertex id, instance id].
    LoadAttribute {
        location: u32,
        component: u8,
    },
    /// Write output variable `output` (index into `Shader::outputs`): `srcs = [value]`.
    StoreOutput {
        output: u32,
    },
    /// Function-local variables: `srcs = []` / `[value]`.
    LoadVar {
        var: VarId,
    },
    StoreVar {
        var: VarId,
    },
    LoadSysVal(SysVal),
    /// User push constants: srcs = [byte offset], added to `base`.
    LoadPushConstant {
        base: u32,
    },
    /// The driver's push-uniform (FAU) area after `lower_sysvals`: srcs = [], byte offset constant.
    LoadUniform {
        offset: u32,
    },
    /// srcs = [byte offset].
    LoadUbo {
        set: u32,
        binding: u32,
    },
    /// srcs = [byte offset].
    LoadSsbo {
        set: u32,
        binding: u32,
    },
    /// srcs = []: the size in bytes (u32) of the range bound to a UBO or
    /// SSBO binding (what robust buffer access and `OpArrayLength` need).
    BufferSize {
        set: u32,
        binding: u32,
    },
    /// srcs = [value, byte offset].
    StoreSsbo {
        set: u32,
        binding: u32,
    },
    /// srcs = [byte offset, data] or [byte offset, compare, data] for CompSwap.
    SsboAtomic {
        set: u32,
        binding: u32,
        op: AtomicOp,
    },
    /// `srcs = [address]`.
    LoadGlobal,
    /// srcs = [value, address].
    StoreGlobal,
    /// srcs = [address, data] or [address, compare, data].
    GlobalAtomic {
        op: AtomicOp,
    },
    /// Workgroup shared memory: srcs = [byte offset] / [value, byte offset].
    LoadShared,
    StoreShared,
    SharedAtomic {
        op: AtomicOp,
    },
    /// A texture access (SPIR-V `OpImageSample*`, `OpImageFetch`): the
    /// image descriptor at (`set`, `binding`), filtered with the sampler at
    /// `sampler` (`None` for fetches, which use none). 2D images, or 2D
    /// arrays with `array` (the coordinate's third component is the layer:
    /// a float for sampling, an integer for fetches). Sources by `op`:
    /// `Sample` [coord: 2/3 × f32] (implicit LOD, fragment shaders),
    /// `SampleLod` [coord: 2/3 × f32, lod: f32], `SampleBias` [coord: 2/3 ×
    /// f32, bias: f32] (fragment shaders), `SampleDref` [coord, dref: f32]
    /// (fragment shaders), `SampleDrefLod` [coord, lod: f32, dref: f32], `Fetch` [coord: 2/3 × i32,
    /// lod: i32], `Gather` [coord: 2/3 × f32] (any stage: the base level), `GatherDref` [coord, dref: f32]. One 4 × 32-bit result, as `ty` says (floats for `Float`,
    /// integers for `Sint`/`Uint`).
    Texture {
        set: u32,
        binding: u32,
        sampler: Option<(u32, u32)>,
        op: TexOp,
        ty: SampledType,
        array: bool,
        /// 1D, 2D, 3D or cube (printed `dim=d1`/`dim=d3`/`dim=cube`; 2D
        /// prints nothing): the coordinate has `dim.coords()` components
        /// (a cube's: its direction), plus the layer for an array (1D, 2D
        /// and cube only).
        dim: TexDim,
        /// A constant texel offset (SPIR-V `ConstOffset`), added to the
        /// integer texel coordinates (x, y; 2D only).
        offset: [i8; 2],
    },
    /// Fragment shaders: the derivative of `srcs = [value: f32]` along
    /// framebuffer x or y (SPIR-V `OpDPdx`/`OpDPdy` and their `Fine`/
    /// `Coarse` forms; Vulkan "Derivative Operations"): the difference of
    /// the value between neighbouring invocations of the 2×2 quad (fine: the
    /// invocation's own row or column; coarse: one per quad). One f32
    /// result.
    Derivative {
        axis: DerivativeAxis,
        coarse: bool,
    },
    /// A storage-image load (SPIR-V `OpImageRead`): srcs = [coord: 2 ×
    /// i32, or 3 × i32 with the layer third for a 2D array (`array`)] of
    /// the image at (`set`, `binding`); one 4 × 32-bit result,
    /// the texel converted from the image's format to `ty` (floats for
    /// `Float`, integers for `Sint`/`Uint`). The format is the
    /// descriptor's, not the shader's.
    ImageLoad {
        set: u32,
        binding: u32,
        ty: SampledType,
        array: bool,
    },
    /// A storage-image store (SPIR-V `OpImageWrite`): srcs = [coord (as
    /// for `ImageLoad`), texel: 4 × 32-bit of `ty`], converted to the
    /// image's format.
    ImageStore {
        set: u32,
        binding: u32,
        ty: SampledType,
        array: bool,
    },
    /// A storage-image atomic (SPIR-V `OpImageTexelPointer` + `OpAtomic*`):
    /// srcs = [coord: 2 × i32, data], or [coord, compare, new] for
    /// `CompSwap` (the other atomics' order), on the 32-bit texel of the
    /// 2D image at (`set`, `binding`); the old value.
    ImageAtomic {
        set: u32,
        binding: u32,
        op: AtomicOp,
    },
    /// srcs = []: the image bound to (`set`, `binding`) as two u32: level
    /// 0's (width − 1) | (height − 1) << 16, and its number of levels
    /// (`OpImageQuerySizeLod`, `OpImageQueryLevels`).
    TextureSize {
        set: u32,
        binding: u32,
    },
    /// Workgroup execution and memory barrier.
    Barrier,
    /// Fragment shaders: the invocation ends here and writes nothing (no
    /// colour, depth or coverage); `OpKill`, `OpTerminateInvocation` and
    /// `OpDemoteToHelperInvocation` all become this. No sources.
    Discard,
}

impl Instr {
    pub fn new(dsts: impl Into<ValueList>, op: Op) -> Instr {
        Instr {
            dsts: dsts.into(),
            op,
        }
    }

    /// Value sources read directly by this instruction (not by nested regions).
    #[inline]
    pub fn srcs(&self) -> &[Value] {
        match &self.op {
            Op::Const(_) | Op::Undef => &[],
            Op::Alu(a) => &a.srcs,
            Op::Vec(v) => &v.srcs,
            Op::Swizzle(s) => std::slice::from_ref(&s.src),
            Op::Intrinsic(i) => &i.srcs,
            Op::If(i) => std::slice::from_ref(&i.cond),
            Op::Loop(l) => &l.inits,
            Op::Yield(v) | Op::Break(v) | Op::Continue(v) => &v.values,
        }
    }

    /// Mutable access to the direct sources, for rewriting passes.
    #[inline]
    pub fn srcs_mut(&mut self) -> &mut [Value] {
        match &mut self.op {
            Op::Const(_) | Op::Undef => &mut [],
            Op::Alu(a) => &mut a.srcs,
            Op::Vec(v) => &mut v.srcs,
            Op::Swizzle(s) => std::slice::from_mut(&mut s.src),
            Op::Intrinsic(i) => &mut i.srcs,
            Op::If(i) => std::slice::from_mut(&mut i.cond),
            Op::Loop(l) => &mut l.inits,
            Op::Yield(v) | Op::Break(v) | Op::Continue(v) => &mut v.values,
        }
    }

    /// Whether removing the instruction (when its results are unused) changes behaviour.
    pub fn has_side_effects(&self) -> bool {
        match &self.op {
            Op::Intrinsic(i) => matches!(
                i.kind,
                Intrinsic::StoreOutput { .. }
                    | Intrinsic::StoreVar { .. }
                    | Intrinsic::StoreSsbo { .. }
                    | Intrinsic::SsboAtomic { .. }
                    | Intrinsic::StoreGlobal
                    | Intrinsic::GlobalAtomic { .. }
                    | Intrinsic::StoreShared
                    | Intrinsic::SharedAtomic { .. }
                    | Intrinsic::ImageStore { .. }
                    | Intrinsic::ImageAtomic { .. }
                    | Intrinsic::Barrier
                    | Intrinsic::Discard
            ),
            Op::If(_) | Op::Loop(_) => true,
            op => op.is_terminator(),
        }
    }
}
