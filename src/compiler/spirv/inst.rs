//! Translation of one non-control-flow instruction inside a function body:
//! variables, loads/stores, access chains, calls, atomics, barriers, and the
//! dispatch to `alu.rs`/`glsl450.rs`.
//!
//! Every operand is looked up through `Translator::get*`, which checks that
//! the id exists and is in scope; every unknown opcode is an error.

use std::rc::Rc;

use spirv::{Op, StorageClass};

use crate::compiler::ir::{AluOp, AtomicOp, Intrinsic, Stage, Value, ValueType};

use super::error::Result;
use super::function::{Translator, Val};
use super::module::Def;
use super::reader::Inst;
use super::types::Type;
use super::variables::{Index, Ptr, Root, Space};

/// The `Aligned` bit of the memory operands (SPIR-V spec 3.26, Memory
/// Operands); `Volatile` (bit 0) takes no literal, so Aligned's literal is
/// the first word after the mask.
const MEMORY_OPERAND_ALIGNED: u32 = 0x2;

/// Whether `v` points into physical storage buffer memory.
fn is_global(v: &Val) -> bool {
    matches!(v, Val::Ptr(p) if matches!(&p.root, Root::Mem(m) if m.space == Space::Global))
}

impl<'m> Translator<'m> {
    pub fn inst(&mut self, inst: &Inst) -> Result<()> {
        let Some(op) = inst.op else {
            return Err(inst.unsupported("unknown opcode"));
        };
        match op {
            Op::Nop
            | Op::Line
            | Op::NoLine
            | Op::LifetimeStart
            | Op::LifetimeStop
            | Op::MemoryBarrier
            | Op::Name
            | Op::ModuleProcessed => Ok(()),
            Op::Variable => self.local_variable(inst),
            Op::Undef => {
                let (ty, id) = (inst.word(0)?, inst.word(1)?);
                let v = self.undef_val(ty)?;
                self.bind(id, ty, v)
            }
            Op::Load | Op::AtomicLoad => {
                inst.need(3)?;
                let (ty, id) = (inst.word(0)?, inst.word(1)?);
                let (_, ptr) = self.get_ptr(inst.word(2)?)?;
                let operands = (op == Op::Load).then(|| inst.rest(3));
                let ptr = self.with_access_align(ptr, operands)?;
                let p = self.ptr_of(&ptr)?;
                if p.ty != ty {
                    return Err(inst.invalid("loaded type differs from the pointee type"));
                }
                let v = self.load_ptr(&ptr)?;
                self.bind(id, ty, v)
            }
            Op::Store | Op::AtomicStore => {
                inst.need(2)?;
                let (_, ptr) = self.get_ptr(inst.word(0)?)?;
                let vid = if op == Op::AtomicStore {
                    inst.word(3)?
                } else {
                    inst.word(1)?
                };
                let operands = (op == Op::Store).then(|| inst.rest(2));
                let ptr = self.with_access_align(ptr, operands)?;
                let (_, v) = self.get(vid)?;
                let v = self.pointer_as_value(v)?;
                self.store_ptr(&ptr, v)
            }
            Op::CopyMemory => {
                inst.need(2)?;
                let (_, dst) = self.get_ptr(inst.word(0)?)?;
                let (_, src) = self.get_ptr(inst.word(1)?)?;
                if is_global(&dst) || is_global(&src) {
                    return Err(inst.unsupported("OpCopyMemory through a physical pointer"));
                }
                let v = self.load_ptr(&src)?;
                self.store_ptr(&dst, v)
            }
            Op::AccessChain | Op::InBoundsAccessChain => {
                inst.need(3)?;
                let (ty, id) = (inst.word(0)?, inst.word(1)?);
                let (_, base) = self.get_ptr(inst.word(2)?)?;
                let p = self.access_chain(&base, inst.rest(3))?;
                match (self.m.ty(ty)?, &p) {
                    (Type::Pointer { pointee, .. }, Val::Ptr(pp)) if *pointee == pp.ty => {}
                    _ => return Err(inst.invalid("access chain result type does not match")),
                }
                self.bind(id, ty, p)
            }
            Op::PtrAccessChain | Op::InBoundsPtrAccessChain => {
                inst.need(4)?;
                let (ty, id) = (inst.word(0)?, inst.word(1)?);
                let (base_ty, base) = self.get_ptr(inst.word(2)?)?;
                let base = self.ptr_element(base_ty, &base, inst.word(3)?)?;
                let p = self.access_chain(&base, inst.rest(4))?;
                match (self.m.ty(ty)?, &p) {
                    (Type::Pointer { pointee, .. }, Val::Ptr(pp)) if *pointee == pp.ty => {}
                    _ => return Err(inst.invalid("access chain result type does not match")),
                }
                self.bind(id, ty, p)
            }
            Op::ArrayLength => {
                inst.need(4)?;
                let (ty, id) = (inst.word(0)?, inst.word(1)?);
                let (_, base) = self.get_ptr(inst.word(2)?)?;
                let v = self.array_length(&base, inst.word(3)?)?;
                self.bind(id, ty, Val::Ssa(v))
            }
            Op::CopyObject | Op::CopyLogical => {
                inst.need(3)?;
                let (ty, id) = (inst.word(0)?, inst.word(1)?);
                let (sty, v) = self.get(inst.word(2)?)?;
                if op == Op::CopyObject && sty != ty {
                    return Err(inst.invalid("copy changes the type"));
                }
                let v = self.pointer_as_value(v)?;
                self.check_val(ty, &v, 0)?;
                self.bind(id, ty, v)
            }
            Op::FunctionCall => {
                inst.need(3)?;
                let (ty, id, func) = (inst.word(0)?, inst.word(1)?, inst.word(2)?);
                let mut args = Vec::new();
                for &a in inst.rest(3) {
                    args.push(self.get(a)?);
                }
                let word = self.word;
                let r = self.call(func, args)?;
                self.set_inst(inst);
                let _ = word;
                match r {
                    Some(v) => self.bind(id, ty, v),
                    None => Ok(()),
                }
            }
            Op::ControlBarrier => self.effect(Intrinsic::Barrier, &[]),
            Op::DPdx
            | Op::DPdy
            | Op::Fwidth
            | Op::DPdxFine
            | Op::DPdyFine
            | Op::FwidthFine
            | Op::DPdxCoarse
            | Op::DPdyCoarse
            | Op::FwidthCoarse => self.derivative(inst, op),
            // A demoted invocation only lives on as a helper for derivatives,
            // which this compiler does not support: ending it is
            // indistinguishable (its outputs and stores are discarded either way).
            Op::DemoteToHelperInvocation => {
                if self.shader.stage != Stage::Fragment {
                    return Err(
                        inst.invalid("OpDemoteToHelperInvocation outside a fragment shader")
                    );
                }
                self.effect(Intrinsic::Discard, &[])
            }
            Op::IsHelperInvocationEXT => Err(inst.unsupported("OpIsHelperInvocationEXT")),
            Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
            | Op::AtomicExchange
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicCompareExchange => self.atomic(inst, op),
            Op::ExtInst => {
                inst.need(4)?;
                match self.m.def(inst.word(2)?)? {
                    Def::ExtSet(true) => self.glsl450(inst),
                    Def::ExtSet(false) => Ok(()),
                    _ => Err(inst.invalid("OpExtInst with an unknown set")),
                }
            }
            Op::SampledImage
            | Op::Image
            | Op::ImageSampleImplicitLod
            | Op::ImageSampleExplicitLod
            | Op::ImageSampleDrefImplicitLod
            | Op::ImageSampleDrefExplicitLod
            | Op::ImageSampleProjImplicitLod
            | Op::ImageSampleProjExplicitLod
            | Op::ImageSampleProjDrefImplicitLod
            | Op::ImageSampleProjDrefExplicitLod
            | Op::ImageFetch
            | Op::ImageGather
            | Op::ImageDrefGather
            | Op::ImageRead
            | Op::ImageWrite
            | Op::ImageTexelPointer
            | Op::ImageQuerySize
            | Op::ImageQuerySizeLod
            | Op::ImageQueryLevels
            | Op::ImageQueryLod
            | Op::ImageQuerySamples
            | Op::ImageQueryFormat
            | Op::ImageQueryOrder
            | Op::ImageSparseSampleImplicitLod
            | Op::ImageSparseSampleExplicitLod
            | Op::ImageSparseSampleDrefImplicitLod
            | Op::ImageSparseSampleDrefExplicitLod
            | Op::ImageSparseFetch
            | Op::ImageSparseGather
            | Op::ImageSparseDrefGather
            | Op::ImageSparseTexelsResident
            | Op::ImageSparseRead => self.image_inst(inst, op),
            Op::Phi => Err(inst.invalid("OpPhi after the start of a block")),
            Op::SelectionMerge | Op::LoopMerge => {
                Err(inst.invalid("merge instruction not before a terminator"))
            }
            Op::Branch
            | Op::BranchConditional
            | Op::Switch
            | Op::Return
            | Op::ReturnValue
            | Op::Kill
            | Op::Unreachable => Err(inst.invalid("terminator in the middle of a block")),
            _ => self.alu_inst(inst, op),
        }
    }

    fn local_variable(&mut self, inst: &Inst) -> Result<()> {
        inst.need(3)?;
        let (ty, id) = (inst.word(0)?, inst.word(1)?);
        let class = inst.word(2)?;
        if class != StorageClass::Function as u32 {
            return Err(inst.invalid("variable in a function is not of Function storage class"));
        }
        let pointee = match self.m.ty(ty)? {
            Type::Pointer { pointee, .. } => *pointee,
            _ => return Err(inst.invalid("variable type is not a pointer")),
        };
        let name = self.m.name(id);
        let node = self.var_node(pointee, &name, 0)?;
        let ptr = Val::Ptr(Rc::new(Ptr {
            root: Root::Tree(Rc::new(node)),
            path: vec![],
            ty: pointee,
            root_ty: pointee,
        }));
        if let Some(&init) = inst.operands.get(3) {
            let (ity, v) = self.get(init)?;
            if ity != pointee {
                return Err(inst.invalid("initializer has the wrong type"));
            }
            self.store_ptr(&ptr, v)?;
        }
        self.bind(id, ty, ptr)
    }

    fn atomic(&mut self, inst: &Inst, op: Op) -> Result<()> {
        inst.need(5)?;
        let (ty, id) = (inst.word(0)?, inst.word(1)?);
        let vt = self
            .m
            .value_type(ty)
            .filter(|t| t.comps == 1 && !t.is_bool())
            .ok_or_else(|| inst.invalid("atomic result is not an integer scalar"))?;
        // A storage-image texel (`OpImageTexelPointer`, `image.rs`) or memory.
        let (space, offset) = match self.get(inst.word(2)?)?.1 {
            super::function::Val::Texel(t) => {
                if vt.bits != 32 {
                    return Err(inst.invalid("image atomic result is not 32-bit"));
                }
                (Err(t.image), t.coord)
            }
            _ => {
                let (_, ptr) = self.get_ptr(inst.word(2)?)?;
                // Atomics have no memory operands: their scalar is naturally aligned.
                let ptr = self.with_access_align(ptr, None)?;
                if self.ptr_of(&ptr)?.ty != ty {
                    return Err(inst.invalid("atomic pointer type differs from the result type"));
                }
                let (space, offset) = self.atomic_target(&ptr)?;
                (Ok(space), offset)
            }
        };
        let value = |s: &mut Self, i: usize| -> Result<crate::compiler::ir::Value> {
            let (_, v) = s.get_ssa(inst.word(i)?)?;
            if s.ty(v) != vt {
                return Err(inst.invalid("atomic operand type differs from the result type"));
            }
            Ok(v)
        };
        let (aop, srcs) = match op {
            Op::AtomicCompareExchange => {
                inst.need(8)?;
                let new = value(self, 6)?;
                let cmp = value(self, 7)?;
                (AtomicOp::CompSwap, vec![offset, cmp, new])
            }
            Op::AtomicIIncrement | Op::AtomicIDecrement => {
                let k = self.iconst(vt, if op == Op::AtomicIIncrement { 1 } else { -1 })?;
                (AtomicOp::Add, vec![offset, k])
            }
            _ => {
                inst.need(6)?;
                let mut v = value(self, 5)?;
                let aop = match op {
                    Op::AtomicIAdd => AtomicOp::Add,
                    Op::AtomicISub => {
                        v = self.alu_same(crate::compiler::ir::AluOp::Ineg, &[v])?;
                        AtomicOp::Add
                    }
                    Op::AtomicSMin => AtomicOp::Imin,
                    Op::AtomicUMin => AtomicOp::Umin,
                    Op::AtomicSMax => AtomicOp::Imax,
                    Op::AtomicUMax => AtomicOp::Umax,
                    Op::AtomicAnd => AtomicOp::And,
                    Op::AtomicOr => AtomicOp::Or,
                    Op::AtomicXor => AtomicOp::Xor,
                    _ => AtomicOp::Exchange,
                };
                (aop, vec![offset, v])
            }
        };
        let kind = match space {
            Err((set, binding)) => Intrinsic::ImageAtomic {
                set,
                binding,
                op: aop,
            },
            Ok(Space::Ssbo { set, binding }) => Intrinsic::SsboAtomic {
                set,
                binding,
                op: aop,
            },
            Ok(Space::Global) => Intrinsic::GlobalAtomic { op: aop },
            _ => Intrinsic::SharedAtomic { op: aop },
        };
        let r = self.intrinsic(kind, vt, &srcs)?;
        let _ = ValueType::U32;
        self.bind(id, ty, Val::Ssa(r))
    }
}

impl Translator<'_> {
    /// The alignment a load or store through a physical pointer may assume:
    /// the `Aligned` memory operand, which Vulkan requires on every
    /// `OpLoad`/`OpStore` through a `PhysicalStorageBuffer` pointer (the
    /// Vulkan Guide, "Buffer Device Address Alignment", after the spec's
    /// rules for SPIR-V modules) and which must be a power of two (SPIR-V
    /// spec 3.26, Memory Operands). `operands = None` (atomics):
    /// the scalar's natural alignment. Other pointers are returned as they are.
    fn with_access_align(&self, ptr: Val, operands: Option<&[u32]>) -> Result<Val> {
        let Val::Ptr(p) = &ptr else {
            return Ok(ptr);
        };
        let Root::Mem(mem) = &p.root else {
            return Ok(ptr);
        };
        if mem.space != Space::Global {
            return Ok(ptr);
        }
        let align = match operands {
            None => 8,
            Some(ops) => {
                let mask = ops.first().copied().unwrap_or(0);
                if mask & MEMORY_OPERAND_ALIGNED == 0 {
                    return Err(self.invalid(
                        "access through a physical pointer without the Aligned memory operand",
                    ));
                }
                let a = ops
                    .get(1)
                    .copied()
                    .ok_or_else(|| self.invalid("Aligned memory operand without its literal"))?;
                if !a.is_power_of_two() {
                    return Err(self.invalid(format!("Aligned {a} is not a power of two")));
                }
                a
            }
        };
        let mut p = (**p).clone();
        if let Root::Mem(mem) = &mut p.root {
            mem.align = align;
        }
        Ok(Val::Ptr(Rc::new(p)))
    }

    /// `OpPtrAccessChain`'s `Element`: `base` moved by `element` times the
    /// `ArrayStride` of its pointer type `base_ty` (SPIR-V spec,
    /// OpPtrAccessChain; Vulkan requires the decoration on physical pointer
    /// types used this way). Only physical pointers: Vulkan allows
    /// `OpPtrAccessChain` elsewhere only with variable pointers.
    fn ptr_element(&mut self, base_ty: u32, base: &Val, element: u32) -> Result<Val> {
        let p = self.ptr_of(base)?;
        let mut mem = match &p.root {
            Root::Mem(mem) if mem.space == Space::Global => mem.clone(),
            _ => return Err(self.unsupported("OpPtrAccessChain outside physical storage buffers")),
        };
        let stride = self
            .m
            .decos(base_ty)
            .and_then(|d| d.array_stride)
            .ok_or_else(|| self.invalid("OpPtrAccessChain base pointer type has no ArrayStride"))?;
        let (_, e) = self.get_ssa(element)?;
        self.add_offset(&mut mem, Index::Dyn(e), stride)?;
        let mut p = (*p).clone();
        p.root = Root::Mem(mem);
        Ok(Val::Ptr(Rc::new(p)))
    }
}

impl Translator<'_> {
    /// `OpDPdx`/`OpDPdy`/`OpFwidth` and their `Fine`/`Coarse` forms
    /// (fragment shaders only: the SPIR-V spec's `DerivativeControl` and
    /// the `Fragment` execution model). Each component becomes an
    /// `Intrinsic::Derivative`; `fwidth` is |d/dx| + |d/dy| (GLSL.std
    /// "fwidth"). The plain forms are fine, as Mesa's Bifrost backend
    /// treats `ddx`/`ddy` (`bi_emit_derivative` with `coarse` false).
    fn derivative(&mut self, inst: &Inst, op: Op) -> Result<()> {
        use crate::compiler::ir::DerivativeAxis;
        inst.need(3)?;
        let (ty, id) = (inst.word(0)?, inst.word(1)?);
        if self.shader.stage != Stage::Fragment {
            return Err(inst.invalid("a derivative outside a fragment shader"));
        }
        let vt = self.result_vt(ty)?;
        let p = self.ssa(inst.word(2)?)?;
        if vt.bits != 32 || !self.m.is_float(ty) || self.ty(p) != vt {
            return Err(inst.unsupported("derivatives of other than 32-bit floats"));
        }
        let coarse = matches!(op, Op::DPdxCoarse | Op::DPdyCoarse | Op::FwidthCoarse);
        let axes: &[DerivativeAxis] = match op {
            Op::DPdx | Op::DPdxFine | Op::DPdxCoarse => &[DerivativeAxis::X],
            Op::DPdy | Op::DPdyFine | Op::DPdyCoarse => &[DerivativeAxis::Y],
            _ => &[DerivativeAxis::X, DerivativeAxis::Y],
        };
        let mut comps = Vec::with_capacity(usize::from(vt.comps));
        for c in 0..vt.comps {
            let x = self.channel(p, c)?;
            let mut sum: Option<Value> = None;
            for &axis in axes {
                let d =
                    self.intrinsic(Intrinsic::Derivative { axis, coarse }, ValueType::F32, &[x])?;
                sum = Some(match sum {
                    None if axes.len() == 1 => d,
                    None => self.alu_same(AluOp::Fabs, &[d])?,
                    Some(s) => {
                        let a = self.alu_same(AluOp::Fabs, &[d])?;
                        self.alu_same(AluOp::Fadd, &[s, a])?
                    }
                });
            }
            comps.push(sum.ok_or_else(|| inst.invalid("no derivative axis"))?);
        }
        let v = self.vec(&comps)?;
        self.bind(id, ty, Val::Ssa(v))
    }
}
