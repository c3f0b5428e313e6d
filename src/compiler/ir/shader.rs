//! The shader: values, variables, I/O and the body region.

use super::instr::{Instr, Op};
use super::types::{Value, ValueType, VarId};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    Vertex,
    Compute,
    /// A fragment shader: inputs are interpolated varyings, outputs colour
    /// targets (`location` = render target) and `FragDepth`.
    Fragment,
}

/// A sequence of instructions; `if`/`loop` instructions own nested regions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Region {
    pub instrs: Vec<Instr>,
}

impl Region {
    pub fn new() -> Region {
        Region::default()
    }

    /// Visit every instruction in this region and all nested regions, in program order.
    pub fn for_each_instr<'a, F: FnMut(&'a Instr) + ?Sized>(&'a self, f: &mut F) {
        for instr in &self.instrs {
            f(instr);
            match &instr.op {
                Op::If(i) => {
                    i.then_region.for_each_instr(f);
                    i.else_region.for_each_instr(f);
                }
                Op::Loop(l) => l.body.for_each_instr(f),
                _ => {}
            }
        }
    }

    /// Visit every region (this one first, then nested ones) mutably.
    pub fn for_each_region_mut<F: FnMut(&mut Region) + ?Sized>(&mut self, f: &mut F) {
        f(self);
        for instr in &mut self.instrs {
            match &mut instr.op {
                Op::If(i) => {
                    i.then_region.for_each_region_mut(f);
                    i.else_region.for_each_region_mut(f);
                }
                Op::Loop(l) => l.body.for_each_region_mut(f),
                _ => {}
            }
        }
    }

    /// True if control never reaches the end of this region (it ends in a
    /// `break`/`continue`, or an `if` both of whose branches never end).
    pub fn diverges(&self) -> bool {
        match self.instrs.last().map(|i| &i.op) {
            Some(Op::Break(_)) | Some(Op::Continue(_)) => true,
            Some(Op::If(i)) => i.then_region.diverges() && i.else_region.diverges(),
            _ => false,
        }
    }
}

/// Transform-feedback decoration of an output (SPIR-V XfbBuffer, XfbStride,
/// Offset, Stream). `offset` is the byte offset of the output's first component.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Xfb {
    pub buffer: u32,
    pub stride: u32,
    pub offset: u32,
    pub stream: u32,
}

/// Built-in outputs and inputs a vertex/compute shader can declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltIn {
    Position,
    PointSize,
    /// `gl_ClipDistance[index]`.
    ClipDistance(u8),
    /// `gl_CullDistance[index]`.
    CullDistance(u8),
    /// `gl_FragDepth` (fragment shaders; a 32-bit float).
    FragDepth,
    /// `gl_SampleMask[0]` (fragment shaders; a 32-bit integer: the samples
    /// the fragment keeps, ANDed with its coverage).
    SampleMask,
}

/// Where an output goes: a numbered location (with component), a
/// built-in, or the second colour of dual-source blending.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputSlot {
    Location {
        location: u32,
        component: u8,
    },
    BuiltIn(BuiltIn),
    /// A fragment output at `Location` 0 with `Index` 1 (the Vulkan spec's
    /// "Fragment Output Interface", dual-source blending): the second
    /// colour, which the SRC1_* blend factors of render target 0 read.
    SecondColor {
        component: u8,
    },
}

/// One flattened output variable: at most a vec4 of components in one slot.
/// Arrays, matrices and structs are split into one `Output` per slot by the
/// front end, each keeping the XFB offset of its own first component.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub name: String,
    pub slot: OutputSlot,
    pub ty: ValueType,
    pub xfb: Option<Xfb>,
}

/// How a fragment input is interpolated across the primitive (SPIR-V
/// `Flat` / `NoPerspective` decorations; none = perspective-correct).
/// Vertex inputs are always `Smooth` (the field means nothing there).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Interpolation {
    #[default]
    Smooth,
    Flat,
    NoPerspective,
}

/// Where a fragment input is sampled (SPIR-V `Centroid` / `Sample`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Sampling {
    #[default]
    Center,
    Centroid,
    Sample,
}

/// One flattened input (a location, first component, type): a vertex
/// attribute, or a fragment shader's varying with its interpolation.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    pub name: String,
    pub location: u32,
    pub component: u8,
    pub ty: ValueType,
    pub interpolation: Interpolation,
    pub sampling: Sampling,
}

/// A function-local variable (promoted to SSA values by `lower_vars_to_ssa`).
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    pub name: String,
    pub ty: ValueType,
}

/// Facts about the shader outside its body.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShaderInfo {
    pub name: String,
    /// Compute workgroup size.
    pub local_size: [u32; 3],
    /// The SPIR-V `Xfb` execution mode was present.
    pub xfb_mode: bool,
    /// Bytes of workgroup shared memory.
    pub shared_size: u32,
    /// Bytes of user push constants the shader may read.
    pub push_constant_size: u32,
    /// Fragment shaders: the `EarlyFragmentTests` execution mode (depth and
    /// stencil tests before the shader runs, even if it discards or writes
    /// depth).
    pub early_fragment_tests: bool,
    /// Fragment shaders: the number format of each colour output location
    /// (render target), ascending by location, whether or not it is written.
    pub color_formats: Vec<(u32, ColorFormat)>,
    /// The module decorates something `NoContraction` or `Invariant`:
    /// `opt_contract` leaves the whole shader alone (contraction is
    /// optional, and an invariant output must not depend on how another
    /// program's use counts let the same expression contract).
    pub no_contraction: bool,
}

/// The component type of a fragment shader's colour output (SPIR-V
/// `OpTypeFloat` / signed / unsigned `OpTypeInt`): what the blend unit
/// converts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColorFormat {
    Float,
    Sint,
    Uint,
}

impl ColorFormat {
    pub fn name(self) -> &'static str {
        match self {
            ColorFormat::Float => "float",
            ColorFormat::Sint => "sint",
            ColorFormat::Uint => "uint",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Shader {
    pub stage: Stage,
    pub info: ShaderInfo,
    pub inputs: Vec<Input>,
    pub outputs: Vec<Output>,
    pub vars: Vec<Variable>,
    /// Type of every SSA value, indexed by [`Value`].
    pub values: Vec<ValueType>,
    pub body: Region,
}

impl Shader {
    pub fn new(stage: Stage) -> Shader {
        Shader {
            stage,
            info: ShaderInfo::default(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            vars: Vec::new(),
            values: Vec::new(),
            body: Region::new(),
        }
    }

    /// Allocate a new SSA value of the given type.
    pub fn new_value(&mut self, ty: ValueType) -> Value {
        self.values.push(ty);
        Value(self.values.len() as u32 - 1)
    }

    pub fn ty(&self, v: Value) -> ValueType {
        self.values[v.index()]
    }

    pub fn new_var(&mut self, name: impl Into<String>, ty: ValueType) -> VarId {
        self.vars.push(Variable {
            name: name.into(),
            ty,
        });
        VarId(self.vars.len() as u32 - 1)
    }

    /// Which value ids are defined somewhere (instruction results and loop
    /// params), indexed by value; ids out of range are ignored.
    pub fn defined_values(&self) -> Vec<bool> {
        let mut defined = vec![false; self.values.len()];
        self.body.for_each_instr(&mut |instr| {
            let params = match &instr.op {
                Op::Loop(l) => &l.params[..],
                _ => &[],
            };
            for v in instr.dsts.iter().chain(params) {
                if let Some(d) = defined.get_mut(v.index()) {
                    *d = true;
                }
            }
        });
        defined
    }

    /// Number of instructions in the whole body, nested regions included.
    pub fn instr_count(&self) -> usize {
        let mut n = 0;
        self.body.for_each_instr(&mut |_| n += 1);
        n
    }
}
