//! The module-level pass: capabilities, entry points, execution modes,
//! decorations, names, types, constants (with specialization applied),
//! global variables and the block structure of every function.
//!
//! It must never look inside function bodies beyond splitting them into
//! blocks; that is the job of `function.rs` and `cfg.rs`. Every id is
//! checked against the header's bound before it is used as an index.

use rustc_hash::FxHashMap as HashMap;

use spirv::{Capability, ExecutionMode, ExecutionModel, Op, StorageClass};

use super::SpecConstants;
use super::constants::Cst;
use super::decorations::Decos;
use super::error::{Result, SpirvError};
use super::reader::{Header, Inst, Literal};
use super::types::Type;

/// What an id is at module level.
#[derive(Clone, Debug, Default)]
pub enum Def {
    #[default]
    None,
    Type(Type),
    /// A constant (specialization already applied).
    Const {
        ty: u32,
        value: Cst,
    },
    /// A global variable: its pointer type, storage class and initializer.
    Var {
        ty: u32,
        class: StorageClass,
        init: Option<u32>,
        /// Word offset of the `OpVariable` (for errors).
        word: usize,
    },
    Function,
    /// An `OpExtInstImport`: true for GLSL.std.450, false for non-semantic sets.
    ExtSet(bool),
    Other,
}

#[derive(Clone, Debug)]
pub struct EntryPoint {
    pub model: ExecutionModel,
    pub func: u32,
    pub name: String,
    pub interface: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct Block<'a> {
    pub label: u32,
    /// Every instruction after the label, terminator last.
    pub insts: Vec<Inst<'a>>,
}

impl<'a> Block<'a> {
    /// The `OpSelectionMerge`/`OpLoopMerge` before the terminator, if any.
    pub fn merge(&self) -> Option<&Inst<'a>> {
        let n = self.insts.len();
        if n < 2 {
            return None;
        }
        let m = &self.insts[n - 2];
        matches!(m.op, Some(Op::SelectionMerge) | Some(Op::LoopMerge)).then_some(m)
    }
}

#[derive(Clone, Debug)]
pub struct Function<'a> {
    pub id: u32,
    pub ret_ty: u32,
    pub fn_ty: u32,
    pub params: Vec<(u32, u32)>,
    pub blocks: Vec<Block<'a>>,
    pub block_index: HashMap<u32, usize>,
}

pub struct Module<'a> {
    pub header: Header,
    pub defs: Vec<Def>,
    pub decos: HashMap<u32, Decos>,
    pub member_decos: HashMap<(u32, u32), Decos>,
    names: HashMap<u32, Literal<'a>>,
    member_names: HashMap<(u32, u32), Literal<'a>>,
    pub entry_points: Vec<EntryPoint>,
    /// (function, mode, operands, operands are ids, word).
    pub exec_modes: Vec<(u32, ExecutionMode, Vec<u32>, bool, usize)>,
    pub functions: HashMap<u32, Function<'a>>,
    /// Global variables in declaration order.
    pub globals: Vec<u32>,
    /// Specialization ids that were applied, for error checks by callers.
    pub applied_spec_ids: Vec<u32>,
}

const SUPPORTED_CAPS: &[Capability] = &[
    Capability::Shader,
    Capability::Matrix,
    Capability::Float16,
    Capability::Float64,
    Capability::Int64,
    Capability::Int16,
    Capability::Int8,
    Capability::Int64Atomics,
    Capability::TransformFeedback,
    Capability::ClipDistance,
    Capability::CullDistance,
    Capability::DrawParameters,
    Capability::MultiView,
    Capability::StorageBuffer16BitAccess,
    Capability::UniformAndStorageBuffer16BitAccess,
    Capability::StoragePushConstant16,
    Capability::StorageBuffer8BitAccess,
    Capability::UniformAndStorageBuffer8BitAccess,
    Capability::StoragePushConstant8,
    Capability::ImageQuery,
    Capability::Sampled1D,
    // `samplerCubeArray` (cube arrays: `spirv/image.rs`).
    Capability::SampledCubeArray,
    Capability::SampledBuffer,
    Capability::StorageImageExtendedFormats,
    Capability::VulkanMemoryModel,
    Capability::VulkanMemoryModelDeviceScope,
    Capability::ShaderNonUniform,
    Capability::RuntimeDescriptorArray,
    Capability::DemoteToHelperInvocation,
    Capability::SampleRateShading,
    // The Fine/Coarse derivative instructions (`OpDPdxFine` ...).
    Capability::DerivativeControl,
    // Pointers into buffer memory by address (`GL_EXT_buffer_reference`):
    // 64-bit values, accessed by global loads and stores.
    Capability::PhysicalStorageBufferAddresses,
];

#[cold]
#[inline(never)]
fn not_a_type(id: u32) -> SpirvError {
    SpirvError::Invalid {
        op: "type".into(),
        word: 0,
        rule: format!("%{id} is not a type"),
    }
}

impl<'a> Module<'a> {
    // `def`, `ty` and `check_id` run for nearly every operand: their
    // checks are inline, their errors built out of line.

    #[inline]
    pub fn def(&self, id: u32) -> Result<&Def> {
        match self.defs.get(id as usize) {
            Some(d) => Ok(d),
            None => Err(self.out_of_bound(id)),
        }
    }

    #[cold]
    #[inline(never)]
    fn out_of_bound(&self, id: u32) -> SpirvError {
        SpirvError::Invalid {
            op: "id".into(),
            word: 0,
            rule: format!("id %{id} is not below the bound {}", self.header.bound),
        }
    }

    #[inline]
    pub fn ty(&self, id: u32) -> Result<&Type> {
        match self.def(id)? {
            Def::Type(t) => Ok(t),
            _ => Err(not_a_type(id)),
        }
    }

    pub fn decos(&self, id: u32) -> Option<&Decos> {
        self.decos.get(&id)
    }

    pub fn member_decos(&self, id: u32, member: u32) -> Option<&Decos> {
        self.member_decos.get(&(id, member))
    }

    pub fn name(&self, id: u32) -> String {
        self.names
            .get(&id)
            .map_or_else(|| format!("%{id}"), |s| s.decode())
    }

    /// The `OpMemberName` of member `member` of struct type `ty`.
    pub fn member_name(&self, ty: u32, member: u32) -> Option<String> {
        self.member_names.get(&(ty, member)).map(|s| s.decode())
    }

    /// Parse the module-level parts of a module.
    pub fn parse(header: Header, insts: &[Inst<'a>], spec: &SpecConstants) -> Result<Module<'a>> {
        let mut m = Module {
            header,
            defs: vec![Def::None; header.bound as usize],
            decos: HashMap::default(),
            member_decos: HashMap::default(),
            names: HashMap::default(),
            member_names: HashMap::default(),
            entry_points: Vec::new(),
            exec_modes: Vec::new(),
            functions: HashMap::default(),
            globals: Vec::new(),
            applied_spec_ids: Vec::new(),
        };
        // Pass 1: annotations, which may appear before what they decorate.
        for inst in insts {
            m.annotation(inst)?;
        }
        // Pass 2: types, constants, variables, functions.
        let mut current: Option<Function<'a>> = None;
        for inst in insts {
            if let Some(f) = current.as_mut() {
                match inst.op {
                    Some(Op::FunctionEnd) => {
                        let f = current.take().expect("checked above");
                        if f.blocks.is_empty() {
                            return Err(inst.invalid("function without blocks"));
                        }
                        m.functions.insert(f.id, f);
                    }
                    Some(Op::FunctionParameter) => {
                        inst.need(2)?;
                        if !f.blocks.is_empty() {
                            return Err(inst.invalid("parameter after the first block"));
                        }
                        let id = m.check_id(inst, inst.word(1)?)?;
                        f.params.push((id, inst.word(0)?));
                    }
                    Some(Op::Label) => {
                        let id = m.check_id(inst, inst.word(0)?)?;
                        if f.block_index.insert(id, f.blocks.len()).is_some() {
                            return Err(inst.invalid(format!("label %{id} defined twice")));
                        }
                        m.defs[id as usize] = Def::Other;
                        f.blocks.push(Block {
                            label: id,
                            insts: Vec::new(),
                        });
                    }
                    Some(Op::Function) => return Err(inst.invalid("nested OpFunction")),
                    _ => match f.blocks.last_mut() {
                        Some(b) => b.insts.push(*inst),
                        None => return Err(inst.invalid("instruction outside a block")),
                    },
                }
                continue;
            }
            match inst.op {
                Some(Op::Function) => {
                    inst.need(4)?;
                    let id = m.check_id(inst, inst.word(1)?)?;
                    m.defs[id as usize] = Def::Function;
                    current = Some(Function {
                        id,
                        ret_ty: inst.word(0)?,
                        fn_ty: inst.word(3)?,
                        params: Vec::new(),
                        blocks: Vec::new(),
                        block_index: HashMap::default(),
                    });
                }
                Some(Op::FunctionEnd) => {
                    return Err(inst.invalid("OpFunctionEnd outside a function"));
                }
                _ => m.global(inst, spec)?,
            }
        }
        if current.is_some() {
            return Err(SpirvError::BadModule("missing OpFunctionEnd".into()));
        }
        if let Some(id) = m
            .defs
            .iter()
            .position(|d| matches!(d, Def::Type(Type::Pointer { pointee: 0, .. })))
        {
            return Err(SpirvError::Invalid {
                op: "OpTypeForwardPointer".into(),
                word: 0,
                rule: format!("pointer %{id} is declared but never defined"),
            });
        }
        Ok(m)
    }

    #[inline]
    pub fn check_id(&self, inst: &Inst, id: u32) -> Result<u32> {
        if id == 0 || id >= self.header.bound {
            Err(self.bad_id(inst, id))
        } else {
            Ok(id)
        }
    }

    #[cold]
    #[inline(never)]
    fn bad_id(&self, inst: &Inst, id: u32) -> SpirvError {
        inst.invalid(format!("id %{id} is not in 1..{}", self.header.bound))
    }

    fn annotation(&mut self, inst: &Inst<'a>) -> Result<()> {
        match inst.op {
            Some(Op::Capability) => {
                let c = inst.word(0)?;
                let cap = Capability::from_u32(c);
                if !cap.is_some_and(|c| SUPPORTED_CAPS.contains(&c)) {
                    return Err(inst.unsupported(match cap {
                        Some(c) => format!("capability {c:?}"),
                        None => format!("capability {c}"),
                    }));
                }
            }
            Some(Op::EntryPoint) => {
                inst.need(3)?;
                let model = ExecutionModel::from_u32(inst.word(0)?)
                    .ok_or_else(|| inst.invalid("unknown execution model"))?;
                let func = self.check_id(inst, inst.word(1)?)?;
                let (name, next) = inst.string(2)?;
                let interface = inst.rest(next).to_vec();
                for &i in &interface {
                    self.check_id(inst, i)?;
                }
                self.entry_points.push(EntryPoint {
                    model,
                    func,
                    name,
                    interface,
                });
            }
            Some(Op::ExecutionMode) | Some(Op::ExecutionModeId) => {
                inst.need(2)?;
                let func = self.check_id(inst, inst.word(0)?)?;
                let mode = ExecutionMode::from_u32(inst.word(1)?)
                    .ok_or_else(|| inst.invalid("unknown execution mode"))?;
                self.exec_modes.push((
                    func,
                    mode,
                    inst.rest(2).to_vec(),
                    inst.op == Some(Op::ExecutionModeId),
                    inst.word,
                ));
            }
            Some(Op::ExtInstImport) => {
                let id = self.check_id(inst, inst.word(0)?)?;
                let (name, _) = inst.string(1)?;
                let def = if name == "GLSL.std.450" {
                    Def::ExtSet(true)
                } else if name.starts_with("NonSemantic.") {
                    Def::ExtSet(false)
                } else {
                    return Err(inst.unsupported(format!("extended instruction set \"{name}\"")));
                };
                self.defs[id as usize] = def;
            }
            Some(Op::Name) => {
                let id = self.check_id(inst, inst.word(0)?)?;
                let (name, _) = inst.literal(1)?;
                self.names.insert(id, name);
            }
            Some(Op::MemberName) => {
                let id = self.check_id(inst, inst.word(0)?)?;
                let member = inst.word(1)?;
                let (name, _) = inst.literal(2)?;
                self.member_names.insert((id, member), name);
            }
            Some(Op::Decorate) => {
                inst.need(2)?;
                let id = self.check_id(inst, inst.word(0)?)?;
                self.decos
                    .entry(id)
                    .or_default()
                    .apply(inst, inst.word(1)?, inst.rest(2))?;
            }
            Some(Op::MemberDecorate) => {
                inst.need(3)?;
                let id = self.check_id(inst, inst.word(0)?)?;
                let member = inst.word(1)?;
                self.member_decos.entry((id, member)).or_default().apply(
                    inst,
                    inst.word(2)?,
                    inst.rest(3),
                )?;
            }
            Some(Op::DecorationGroup) | Some(Op::GroupDecorate) | Some(Op::GroupMemberDecorate) => {
                return Err(inst.unsupported("decoration groups"));
            }
            _ => {}
        }
        Ok(())
    }

    fn define(&mut self, inst: &Inst, id: u32, def: Def) -> Result<()> {
        let id = self.check_id(inst, id)?;
        if !matches!(self.defs[id as usize], Def::None) {
            return Err(inst.invalid(format!("id %{id} defined twice")));
        }
        self.defs[id as usize] = def;
        Ok(())
    }

    /// Is `id` a type already defined?
    fn type_id(&self, inst: &Inst, id: u32) -> Result<u32> {
        match self.defs.get(id as usize) {
            Some(Def::Type(_)) => Ok(id),
            _ => Err(inst.invalid(format!("%{id} is not a previously defined type"))),
        }
    }

    fn global(&mut self, inst: &Inst, spec: &SpecConstants) -> Result<()> {
        let Some(op) = inst.op else {
            return Err(inst.unsupported("unknown opcode"));
        };
        let ty = |m: &Self, i: usize| -> Result<u32> { m.type_id(inst, inst.word(i)?) };
        let t = match op {
            Op::TypeVoid => Type::Void,
            Op::TypeBool => Type::Bool,
            Op::TypeInt => {
                inst.need(3)?;
                let width = inst.word(1)?;
                if !matches!(width, 8 | 16 | 32 | 64) {
                    return Err(inst.unsupported(format!("{width}-bit integers")));
                }
                Type::Int {
                    width: width as u8,
                    signed: inst.word(2)? != 0,
                }
            }
            Op::TypeFloat => {
                let width = inst.word(1)?;
                if !matches!(width, 16 | 32 | 64) || inst.operands.len() > 2 {
                    return Err(inst.unsupported(format!("{width}-bit float encoding")));
                }
                Type::Float { width: width as u8 }
            }
            Op::TypeVector => {
                let elem = ty(self, 1)?;
                let n = inst.word(2)?;
                if !matches!(
                    self.ty(elem)?,
                    Type::Bool | Type::Int { .. } | Type::Float { .. }
                ) {
                    return Err(inst.invalid("vector of a non-scalar type"));
                }
                if !(2..=4).contains(&n) {
                    return Err(inst.unsupported(format!("{n}-component vectors")));
                }
                Type::Vector { elem, n: n as u8 }
            }
            Op::TypeMatrix => {
                let col = ty(self, 1)?;
                let n = inst.word(2)?;
                if !matches!(self.ty(col)?, Type::Vector { .. }) || !(2..=4).contains(&n) {
                    return Err(inst.invalid("matrix must have 2 to 4 vector columns"));
                }
                Type::Matrix { col, n: n as u8 }
            }
            Op::TypeArray => {
                let elem = ty(self, 1)?;
                let len_id = inst.word(2)?;
                let len = match self.def(len_id)? {
                    Def::Const { value, .. } => value
                        .as_u64()
                        .ok_or_else(|| inst.invalid("array length is not a scalar constant"))?,
                    _ => return Err(inst.invalid("array length is not a constant")),
                };
                if len == 0 || len > 1 << 24 {
                    return Err(inst.limit(format!("array length {len}")));
                }
                Type::Array {
                    elem,
                    len: len as u32,
                }
            }
            Op::TypeRuntimeArray => Type::RuntimeArray { elem: ty(self, 1)? },
            Op::TypeStruct => {
                let mut members = Vec::new();
                for i in 1..inst.operands.len() {
                    members.push(ty(self, i)?);
                }
                Type::Struct { members }
            }
            Op::TypePointer => {
                let class = StorageClass::from_u32(inst.word(1)?)
                    .ok_or_else(|| inst.invalid("unknown storage class"))?;
                // Forward pointers may point at a type defined later.
                let pointee = inst.word(2)?;
                self.check_id(inst, pointee)?;
                Type::Pointer { class, pointee }
            }
            // Declares an id that a later `OpTypePointer` defines; only
            // physical pointers (to blocks that point to themselves) need it.
            Op::TypeForwardPointer => {
                inst.need(2)?;
                self.check_id(inst, inst.word(0)?)?;
                let class = StorageClass::from_u32(inst.word(1)?);
                if class != Some(StorageClass::PhysicalStorageBuffer) {
                    return Err(inst.unsupported("forward pointers outside PhysicalStorageBuffer"));
                }
                // A placeholder with pointee 0 (never a valid id) until the
                // `OpTypePointer`: types declared in between may name it.
                let id = inst.word(0)?;
                return self.define(
                    inst,
                    id,
                    Def::Type(Type::Pointer {
                        class: StorageClass::PhysicalStorageBuffer,
                        pointee: 0,
                    }),
                );
            }
            Op::TypeFunction => {
                let ret = ty(self, 1)?;
                let mut params = Vec::new();
                for i in 2..inst.operands.len() {
                    params.push(ty(self, i)?);
                }
                Type::Function { ret, params }
            }
            Op::TypeImage => {
                inst.need(8)?;
                let flag = |i: usize| -> Result<bool> {
                    match inst.word(i)? {
                        0 => Ok(false),
                        1 => Ok(true),
                        _ => Err(inst.invalid("Arrayed and MS must be 0 or 1")),
                    }
                };
                Type::Image {
                    sampled_ty: ty(self, 1)?,
                    dim: inst.word(2)?,
                    depth: inst.word(3)?,
                    arrayed: flag(4)?,
                    ms: flag(5)?,
                    sampled: inst.word(6)?,
                }
            }
            Op::TypeSampler => Type::Sampler,
            Op::TypeSampledImage => {
                let image = ty(self, 1)?;
                if !matches!(self.ty(image)?, Type::Image { .. }) {
                    return Err(inst.invalid("OpTypeSampledImage of a non-image type"));
                }
                Type::SampledImage { image }
            }
            Op::TypeAccelerationStructureKHR => Type::Opaque("acceleration structure"),
            Op::Constant
            | Op::ConstantTrue
            | Op::ConstantFalse
            | Op::ConstantComposite
            | Op::ConstantNull
            | Op::SpecConstant
            | Op::SpecConstantTrue
            | Op::SpecConstantFalse
            | Op::SpecConstantComposite
            | Op::SpecConstantOp
            | Op::Undef => {
                inst.need(2)?;
                let ty = ty(self, 0)?;
                let id = inst.word(1)?;
                let value = self.constant(inst, op, ty, id, spec)?;
                return self.define(inst, id, Def::Const { ty, value });
            }
            Op::Variable => {
                inst.need(3)?;
                let ptr = ty(self, 0)?;
                let id = inst.word(1)?;
                let class = StorageClass::from_u32(inst.word(2)?)
                    .ok_or_else(|| inst.invalid("unknown storage class"))?;
                if class == StorageClass::Function {
                    return Err(inst.invalid("Function variable outside a function"));
                }
                match self.ty(ptr)? {
                    Type::Pointer { class: c, .. } if *c == class => {}
                    _ => {
                        return Err(
                            inst.invalid("result type is not a pointer of the same storage class")
                        );
                    }
                }
                let init = inst.operands.get(3).copied();
                self.define(
                    inst,
                    id,
                    Def::Var {
                        ty: ptr,
                        class,
                        init,
                        word: inst.word,
                    },
                )?;
                self.globals.push(id);
                return Ok(());
            }
            Op::String => {
                let id = inst.word(0)?;
                return self.define(inst, id, Def::Other);
            }
            Op::ExtInstImport => return Ok(()),
            Op::Capability
            | Op::Extension
            | Op::MemoryModel
            | Op::EntryPoint
            | Op::ExecutionMode
            | Op::ExecutionModeId
            | Op::Source
            | Op::SourceContinued
            | Op::SourceExtension
            | Op::Name
            | Op::MemberName
            | Op::ModuleProcessed
            | Op::Decorate
            | Op::MemberDecorate
            | Op::DecorateId
            | Op::DecorateString
            | Op::MemberDecorateString
            | Op::Line
            | Op::NoLine
            | Op::Nop => return Ok(()),
            Op::ExtInst => {
                // Non-semantic debug info at module level.
                inst.need(4)?;
                match self.def(inst.word(2)?)? {
                    Def::ExtSet(false) => {
                        let id = inst.word(1)?;
                        return self.define(inst, id, Def::Other);
                    }
                    _ => return Err(inst.unsupported("extended instruction outside a function")),
                }
            }
            _ => return Err(inst.unsupported("instruction outside a function")),
        };
        let id = inst.word(0)?;
        if let Type::Pointer { class, .. } = t
            && let Some(Def::Type(Type::Pointer {
                class: declared,
                pointee: 0,
            })) = self.defs.get(id as usize)
        {
            // The definition of a forward-declared pointer.
            if *declared != class {
                return Err(inst.invalid(format!(
                    "pointer %{id} was forward-declared with another storage class"
                )));
            }
            self.defs[id as usize] = Def::Type(t);
            return Ok(());
        }
        self.define(inst, id, Def::Type(t))
    }
}
