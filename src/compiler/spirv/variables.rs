//! Variables and pointers: global variables instantiated per storage class,
//! function-local and private variables as trees of IR variables, access
//! chains, and loads and stores through pointers. Inputs and outputs are
//! flattened in `io.rs`, explicit-layout memory (push constants, UBOs,
//! SSBOs, shared memory) is addressed in `memory.rs`.
//!
//! Pointers are compile-time objects ([`Ptr`]); the IR never sees them. This
//! module must never emit a store to an input or a read-only buffer, and must
//! turn every out-of-range constant index into an error.

use std::rc::Rc;

use spirv::StorageClass;

use crate::compiler::ir::*;

use super::error::Result;
use super::function::{Translator, Val};
use super::io::XfbCtx;
use super::module::Def;
use super::types::{MAX_LEAVES, Type};

/// Most alternatives a dynamic index may select between.
const MAX_DYNAMIC: u32 = 256;

#[derive(Clone, Copy, Debug)]
pub enum Index {
    Const(u32),
    Dyn(Value),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Space {
    Push,
    Ubo {
        set: u32,
        binding: u32,
    },
    Ssbo {
        set: u32,
        binding: u32,
    },
    Shared,
    /// `PhysicalStorageBuffer` memory (`GL_EXT_buffer_reference`): the
    /// address is `off_d` (a 64-bit value: the pointer plus dynamic index
    /// terms, always present) plus `off_c`.
    Global,
}

/// A pointer into explicit-layout memory: a byte offset (constant part plus
/// an optional dynamic part) and the layout rules in force at that position.
#[derive(Clone, Debug)]
pub struct Mem {
    pub space: Space,
    pub off_c: u32,
    pub off_d: Option<Value>,
    /// `MatrixStride` and `RowMajor` of the enclosing struct member.
    pub mat: Option<(u32, bool)>,
    /// Byte distance between vector components (row-major matrix columns).
    pub comp_stride: Option<u32>,
    /// `Global` only: the alignment in bytes the address is known to have
    /// (the access's `Aligned` operand, lowered by every offset added
    /// since); 1 when nothing is known.
    pub align: u32,
}

#[derive(Clone, Debug)]
pub enum Leaf {
    Var(VarId),
    /// An output: index into `Translator::out_leaves`.
    Output(usize),
    Input {
        location: u32,
        component: u8,
        ty: ValueType,
    },
    SysVal(SysVal, ValueType),
    /// Declared but unusable (unsupported built-in...): an error on access.
    Bad(String),
}

#[derive(Clone, Debug)]
pub enum Node {
    Leaf(Leaf),
    Comp(Vec<Node>),
}

#[derive(Clone, Debug)]
pub enum Root {
    Tree(Rc<Node>),
    Mem(Mem),
    /// A `UniformConstant` image, sampler or sampled image: loads give
    /// its [`Handle`](super::function::Handle); nothing else is allowed.
    Handle(super::function::Handle),
    /// A handle or unsupported variable: any access is an error.
    Opaque(String),
}

#[derive(Clone, Debug)]
pub struct Ptr {
    pub root: Root,
    /// Indices below the root (trees only; memory pointers fold them into the offset).
    pub path: Vec<Index>,
    /// The pointee type.
    pub ty: u32,
    /// The type at the root (trees are walked from it).
    pub root_ty: u32,
}

impl Ptr {
    pub fn values(&self, out: &mut Vec<Value>) {
        if let Root::Mem(m) = &self.root
            && let Some(d) = m.off_d
        {
            out.push(d);
        }
        for i in &self.path {
            if let Index::Dyn(v) = i {
                out.push(*v);
            }
        }
    }

    pub fn replace(&self, new: &mut impl Iterator<Item = Value>) -> Ptr {
        let mut p = self.clone();
        if let Root::Mem(m) = &mut p.root
            && let Some(d) = m.off_d.as_mut()
        {
            *d = new.next().unwrap_or(*d);
        }
        for i in &mut p.path {
            if let Index::Dyn(v) = i {
                *v = new.next().unwrap_or(*v);
            }
        }
        p
    }
}

impl<'m> Translator<'m> {
    /// Create the compile-time value of every global variable of the entry point.
    pub fn instantiate_globals(&mut self, interface: &[u32]) -> Result<()> {
        let m = self.m;
        let mut shared_at = 0u32;
        for &id in &m.globals {
            let Def::Var {
                ty: ptr_ty,
                class,
                init,
                word,
            } = m.def(id)?.clone()
            else {
                continue;
            };
            self.word = word;
            self.op_name = super::function::OpName::Text("OpVariable");
            self.instantiate_global(id, ptr_ty, class, init, interface, &mut shared_at)
                .map_err(|e| e.at(word))?;
        }
        Ok(())
    }

    fn instantiate_global(
        &mut self,
        id: u32,
        ptr_ty: u32,
        class: StorageClass,
        init: Option<u32>,
        interface: &[u32],
        shared_at: &mut u32,
    ) -> Result<()> {
        let m = self.m;
        let pointee = match m.ty(ptr_ty)? {
            Type::Pointer { pointee, .. } => *pointee,
            _ => return Err(self.invalid("variable type is not a pointer")),
        };
        let decos = m.decos(id).cloned().unwrap_or_default();
        let name = m.name(id);
        let in_interface = interface.contains(&id);
        let root = match class {
            StorageClass::Input | StorageClass::Output if !in_interface => {
                Root::Opaque(format!("{name} is not in the entry point's interface"))
            }
            StorageClass::Input => {
                m.leaf_types(pointee)?;
                let mut loc = decos.location;
                let node = self.input_node(
                    pointee,
                    &name,
                    &mut loc,
                    decos.component.unwrap_or(0),
                    decos.builtin,
                    super::io::InterpCtx::of(&decos),
                    0,
                )?;
                Root::Tree(Rc::new(node))
            }
            _ if decos.index.is_some_and(|i| i != 0) && class != StorageClass::Output => {
                return Err(self.invalid(format!("{name}: Index on a non-output variable")));
            }
            // `Index` 1 (the Vulkan spec's "Fragment Output Interface"):
            // the second colour of dual-source blending, a float scalar or
            // vector at Location 0 of a fragment shader.
            StorageClass::Output if decos.index.is_some_and(|i| i != 0) => {
                if decos.index != Some(1) {
                    return Err(self.invalid(format!("{name}: Index other than 0 or 1")));
                }
                if self.shader.stage != Stage::Fragment || decos.location != Some(0) {
                    return Err(self.invalid(format!(
                        "{name}: Index 1 outside Location 0 of a fragment shader"
                    )));
                }
                let component = decos.component.unwrap_or(0);
                let float = match m.ty(pointee)? {
                    Type::Vector { elem, .. } => {
                        matches!(m.ty(*elem)?, Type::Float { .. })
                    }
                    Type::Float { .. } => true,
                    _ => false,
                };
                let vt = m.value_type(pointee).filter(|_| float && component < 4);
                let Some(vt) = vt else {
                    return Err(self.unsupported(format!(
                        "{name}: a second colour that is not a float scalar or vector"
                    )));
                };
                let node = self.out_leaf(
                    name.clone(),
                    OutputSlot::SecondColor {
                        component: component as u8,
                    },
                    vt,
                    None,
                )?;
                Root::Tree(Rc::new(node))
            }
            StorageClass::Output => {
                m.leaf_types(pointee)?;
                let xfb = XfbCtx {
                    buffer: decos.xfb_buffer,
                    stride: decos.xfb_stride,
                    stream: decos.stream,
                    offset: decos.offset,
                };
                let mut loc = decos.location;
                let node = self.output_node(
                    pointee,
                    &name,
                    &mut loc,
                    decos.component.unwrap_or(0),
                    decos.builtin,
                    xfb,
                    0,
                )?;
                Root::Tree(Rc::new(node))
            }
            StorageClass::Private => {
                let node = self.var_node(pointee, &name, 0)?;
                Root::Tree(Rc::new(node))
            }
            StorageClass::PushConstant => {
                let size = m.extent(pointee)?;
                self.shader.info.push_constant_size = self.shader.info.push_constant_size.max(size);
                Root::Mem(Mem {
                    space: Space::Push,
                    off_c: 0,
                    off_d: None,
                    mat: None,
                    comp_stride: None,
                    align: 1,
                })
            }
            StorageClass::Uniform | StorageClass::StorageBuffer => {
                let set = decos.set.unwrap_or(0);
                let binding = decos.binding.unwrap_or(0);
                let block = m.decos(pointee).cloned().unwrap_or_default();
                if !matches!(m.ty(pointee)?, Type::Struct { .. }) {
                    Root::Opaque(format!(
                        "{name}: arrays of buffer blocks (descriptor arrays)"
                    ))
                } else {
                    let space = if class == StorageClass::StorageBuffer || block.buffer_block {
                        Space::Ssbo { set, binding }
                    } else {
                        Space::Ubo { set, binding }
                    };
                    Root::Mem(Mem {
                        space,
                        off_c: 0,
                        off_d: None,
                        mat: None,
                        comp_stride: None,
                        align: 1,
                    })
                }
            }
            StorageClass::Workgroup => {
                let (size, align) = m.natural_size_align(pointee, 0)?;
                let base = super::types::round_up(*shared_at, align.clamp(4, 16))?;
                *shared_at = base
                    .checked_add(size)
                    .ok_or_else(|| self.limit("shared memory larger than 4 GiB"))?;
                self.shader.info.shared_size = *shared_at;
                Root::Mem(Mem {
                    space: Space::Shared,
                    off_c: base,
                    off_d: None,
                    mat: None,
                    comp_stride: None,
                    align: 1,
                })
            }
            StorageClass::UniformConstant => {
                let at = Some((decos.set.unwrap_or(0), decos.binding.unwrap_or(0)));
                match m.ty(pointee)? {
                    Type::Image { .. } => Root::Handle(super::function::Handle {
                        image: at,
                        sampler: None,
                    }),
                    Type::Sampler => Root::Handle(super::function::Handle {
                        image: None,
                        sampler: at,
                    }),
                    Type::SampledImage { .. } => Root::Handle(super::function::Handle {
                        image: at,
                        sampler: at,
                    }),
                    Type::Array { .. } | Type::RuntimeArray { .. } => Root::Opaque(format!(
                        "{name}: arrays of images or samplers (descriptor arrays)"
                    )),
                    _ => Root::Opaque(format!("{name}: UniformConstant of this type")),
                }
            }
            other => Root::Opaque(format!("{name}: storage class {other:?}")),
        };
        let ptr = Val::Ptr(Rc::new(Ptr {
            root,
            path: vec![],
            ty: pointee,
            root_ty: pointee,
        }));
        self.globals.insert(id, ptr.clone());
        if let Some(init) = init {
            let (ity, v) = self.get(init)?;
            if ity != pointee {
                return Err(self.invalid(format!("initializer of {name} has the wrong type")));
            }
            self.store_ptr(&ptr, v)?;
        }
        Ok(())
    }

    /// A tree of fresh IR variables for a function/private variable of type `ty`.
    pub fn var_node(&mut self, ty: u32, name: &str, depth: u32) -> Result<Node> {
        if depth > 64 {
            return Err(self.limit("type nesting deeper than 64"));
        }
        if depth == 0 {
            let n = self.m.leaf_types(ty)?.len();
            if n > MAX_LEAVES {
                return Err(self.limit(format!("variable {name} has {n} leaves")));
            }
        }
        if let Some(vt) = self.m.value_type(ty) {
            return Ok(Node::Leaf(Leaf::Var(self.new_var(name.to_string(), vt)?)));
        }
        let n = self
            .m
            .child_count(ty)
            .ok_or_else(|| self.unsupported(format!("variable {name} of type %{ty}")))?;
        let mut out = Vec::new();
        for i in 0..n {
            let c = self
                .m
                .child_type(ty, i)
                .ok_or_else(|| self.invalid("bad type"))?;
            out.push(self.var_node(c, &format!("{name}[{i}]"), depth + 1)?);
        }
        Ok(Node::Comp(out))
    }

    /// An id used as a pointer operand: a physical pointer held as its
    /// 64-bit address (loaded from memory, converted from an integer)
    /// becomes a `Global` memory pointer at that address.
    pub fn get_ptr(&mut self, id: u32) -> Result<(u32, Val)> {
        let (ty, v) = self.get(id)?;
        let Val::Ssa(address) = v else {
            return Ok((ty, v));
        };
        let pointee = match self.m.ty(ty)? {
            Type::Pointer {
                class: StorageClass::PhysicalStorageBuffer,
                pointee,
            } => *pointee,
            _ => return Err(self.invalid(format!("%{id} is not a pointer"))),
        };
        self.m.ty(pointee)?;
        if self.ty(address) != ValueType::U64 {
            return Err(self.invalid("physical pointer is not a 64-bit value"));
        }
        Ok((
            ty,
            Val::Ptr(Rc::new(Ptr {
                root: Root::Mem(Mem {
                    space: Space::Global,
                    off_c: 0,
                    off_d: Some(address),
                    mat: None,
                    comp_stride: None,
                    align: 1,
                }),
                path: vec![],
                ty: pointee,
                root_ty: pointee,
            })),
        ))
    }

    /// A value as it is stored, selected, merged or converted: a physical
    /// pointer below an access chain becomes its 64-bit address; anything
    /// else is returned as it is.
    pub fn pointer_as_value(&mut self, val: Val) -> Result<Val> {
        if let Val::Ptr(p) = &val
            && let Root::Mem(mem) = &p.root
            && mem.space == Space::Global
        {
            let mem = mem.clone();
            return Ok(Val::Ssa(self.mem_offset(&mem)?));
        }
        Ok(val)
    }

    pub fn ptr_of(&self, val: &Val) -> Result<Rc<Ptr>> {
        match val {
            Val::Ptr(p) => Ok(p.clone()),
            _ => Err(self.invalid("operand is not a pointer")),
        }
    }

    pub(super) fn index_value(&mut self, idx: Value) -> Result<Value> {
        let t = self.ty(idx);
        if t.comps != 1 || t.is_bool() {
            return Err(self.invalid("index is not a scalar integer"));
        }
        if t.bits == 32 {
            Ok(idx)
        } else {
            self.alu(AluOp::U2u, ValueType::U32, &[idx])
        }
    }

    /// `OpAccessChain`: a pointer below `base` following `indices` (ids).
    pub fn access_chain(&mut self, base: &Val, indices: &[u32]) -> Result<Val> {
        let base = self.ptr_of(base)?;
        let mut p = (*base).clone();
        if indices.len() > 64 {
            return Err(self.limit("access chain longer than 64"));
        }
        for &id in indices {
            let idx = match self.m.def(id)? {
                Def::Const { value, .. } => match value.as_u64() {
                    Some(v) => Index::Const(
                        u32::try_from(v).map_err(|_| self.invalid("constant index too large"))?,
                    ),
                    None => return Err(self.invalid("index constant is not a scalar")),
                },
                _ => {
                    let (_, v) = self.get_ssa(id)?;
                    // Physical pointers scale the index in 64 bits
                    // (`add_offset`); other memory in 32.
                    match &p.root {
                        Root::Mem(m) if m.space == Space::Global => Index::Dyn(v),
                        _ => Index::Dyn(self.index_value(v)?),
                    }
                }
            };
            let ty = p.ty;
            let is_struct = matches!(self.m.ty(ty)?, Type::Struct { .. });
            let child = match (idx, self.m.ty(ty)?) {
                (Index::Const(i), _) => self
                    .m
                    .child_type(ty, i)
                    .ok_or_else(|| self.invalid(format!("index {i} out of range for %{ty}")))?,
                (Index::Dyn(_), _) if is_struct => {
                    return Err(self.invalid("struct member index is not a constant"));
                }
                (Index::Dyn(_), _) => self
                    .m
                    .child_type(ty, 0)
                    .ok_or_else(|| self.invalid(format!("cannot index into %{ty}")))?,
            };
            match &mut p.root {
                Root::Mem(mem) => {
                    let mem2 = self.mem_step(mem.clone(), ty, idx)?;
                    *mem = mem2;
                }
                Root::Tree(_) => p.path.push(idx),
                Root::Handle(_) => {
                    return Err(self.invalid("access chain into an image or sampler"));
                }
                Root::Opaque(why) => return Err(self.unsupported(why.clone())),
            }
            p.ty = child;
        }
        Ok(Val::Ptr(Rc::new(p)))
    }

    fn out_var(&mut self, i: usize) -> Result<VarId> {
        let (name, ty, var) = match self.out_leaves.get(i) {
            Some(l) => (l.name.clone(), l.ty, l.var),
            None => return Err(self.invalid("bad output")),
        };
        if let Some(v) = var {
            return Ok(v);
        }
        let v = self.new_var(format!("out_{name}"), ty)?;
        if let Some(l) = self.out_leaves.get_mut(i) {
            l.var = Some(v);
        }
        Ok(v)
    }

    fn load_leaf(&mut self, leaf: &Leaf) -> Result<Value> {
        match leaf {
            Leaf::Var(v) => self.load_var(*v),
            Leaf::Output(i) => {
                let var = self.out_var(*i)?;
                self.load_var(var)
            }
            Leaf::Input {
                location,
                component,
                ty,
            } => self.intrinsic(
                Intrinsic::LoadInput {
                    location: *location,
                    component: *component,
                },
                *ty,
                &[],
            ),
            Leaf::SysVal(sv, ty) => self.intrinsic(Intrinsic::LoadSysVal(*sv), *ty, &[]),
            Leaf::Bad(why) => Err(self.unsupported(why.clone())),
        }
    }

    fn store_leaf(&mut self, leaf: &Leaf, v: Value) -> Result<()> {
        match leaf {
            Leaf::Var(var) => self.store_var(*var, v),
            Leaf::Output(i) => {
                let var = self.out_var(*i)?;
                self.store_var(var, v)?;
                if let Some(l) = self.out_leaves.get_mut(*i) {
                    l.written = true;
                }
                Ok(())
            }
            Leaf::Input { .. } | Leaf::SysVal(..) => Err(self.invalid("store to an input")),
            Leaf::Bad(why) => Err(self.unsupported(why.clone())),
        }
    }

    /// Select between alternatives by a dynamic index (last one is the default).
    fn select_chain(&mut self, idx: Value, alts: Vec<Val>) -> Result<Val> {
        let mut it = alts.into_iter().enumerate().rev();
        let Some((_, mut acc)) = it.next() else {
            return Err(self.invalid("empty selection"));
        };
        for (i, alt) in it {
            let k = self.u32c(i as u32)?;
            let c = self.compare(AluOp::Ieq, idx, k)?;
            acc = self.select_val(c, &alt, &acc)?;
        }
        Ok(acc)
    }

    /// Component-wise select of two Vals of one shape.
    pub fn select_val(&mut self, c: Value, a: &Val, b: &Val) -> Result<Val> {
        match (a, b) {
            (Val::Ssa(a), Val::Ssa(b)) => Ok(Val::Ssa(self.bcsel(c, *a, *b)?)),
            (Val::Comp(a), Val::Comp(b)) if a.len() == b.len() => {
                let mut out = Vec::new();
                for (x, y) in a.iter().zip(b) {
                    out.push(self.select_val(c, x, y)?);
                }
                Ok(Val::Comp(out))
            }
            _ => Err(self.unsupported("selecting between pointers or different shapes")),
        }
    }

    fn tree_load(&mut self, node: &Node, ty: u32, path: &[Index], depth: u32) -> Result<Val> {
        if depth > 64 {
            return Err(self.limit("type nesting deeper than 64"));
        }
        let Some((first, rest)) = path.split_first() else {
            return match node {
                Node::Leaf(l) => Ok(Val::Ssa(self.load_leaf(l)?)),
                Node::Comp(children) => {
                    let mut out = Vec::new();
                    for (i, c) in children.iter().enumerate() {
                        let cty = self
                            .m
                            .child_type(ty, i as u32)
                            .ok_or_else(|| self.invalid("bad type"))?;
                        out.push(self.tree_load(c, cty, &[], depth + 1)?);
                    }
                    Ok(Val::Comp(out))
                }
            };
        };
        match node {
            Node::Leaf(l) => {
                // A component of a vector leaf.
                if !rest.is_empty() {
                    return Err(self.invalid("index into a scalar"));
                }
                let v = self.load_leaf(l)?;
                let n = self.ty(v).comps;
                match *first {
                    Index::Const(i) if i < u32::from(n) => Ok(Val::Ssa(self.channel(v, i as u8)?)),
                    Index::Const(i) => Err(self.invalid(format!("component {i} out of range"))),
                    Index::Dyn(idx) => {
                        let mut alts = Vec::new();
                        for c in 0..n {
                            alts.push(Val::Ssa(self.channel(v, c)?));
                        }
                        self.select_chain(idx, alts)
                    }
                }
            }
            Node::Comp(children) => match *first {
                Index::Const(i) => {
                    let c = children
                        .get(i as usize)
                        .ok_or_else(|| self.invalid(format!("index {i} out of range")))?;
                    let cty = self
                        .m
                        .child_type(ty, i)
                        .ok_or_else(|| self.invalid("bad type"))?;
                    self.tree_load(c, cty, rest, depth + 1)
                }
                Index::Dyn(idx) => {
                    if children.len() as u32 > MAX_DYNAMIC {
                        return Err(
                            self.limit(format!("dynamic index over {} elements", children.len()))
                        );
                    }
                    let mut alts = Vec::new();
                    for (i, c) in children.iter().enumerate() {
                        let cty = self
                            .m
                            .child_type(ty, i as u32)
                            .ok_or_else(|| self.invalid("bad type"))?;
                        alts.push(self.tree_load(c, cty, rest, depth + 1)?);
                    }
                    self.select_chain(idx, alts)
                }
            },
        }
    }

    fn tree_store(
        &mut self,
        node: &Node,
        ty: u32,
        path: &[Index],
        val: &Val,
        depth: u32,
    ) -> Result<()> {
        if depth > 64 {
            return Err(self.limit("type nesting deeper than 64"));
        }
        let Some((first, rest)) = path.split_first() else {
            return match (node, val) {
                (Node::Leaf(l), Val::Ssa(v)) => self.store_leaf(l, *v),
                (Node::Comp(children), Val::Comp(parts)) if children.len() == parts.len() => {
                    for (i, (c, p)) in children.iter().zip(parts).enumerate() {
                        let cty = self
                            .m
                            .child_type(ty, i as u32)
                            .ok_or_else(|| self.invalid("bad type"))?;
                        self.tree_store(c, cty, &[], p, depth + 1)?;
                    }
                    Ok(())
                }
                _ => Err(self.invalid("stored value does not match the pointer type")),
            };
        };
        match node {
            Node::Leaf(l) => {
                let Val::Ssa(s) = val else {
                    return Err(self.invalid("stored value is not a scalar"));
                };
                if !rest.is_empty() {
                    return Err(self.invalid("index into a scalar"));
                }
                let old = self.load_leaf(l)?;
                let n = self.ty(old).comps;
                if self.ty(*s) != self.ty(old).scalar() {
                    return Err(self.invalid("stored component has the wrong type"));
                }
                let mut comps = Vec::new();
                for c in 0..n {
                    let oc = self.channel(old, c)?;
                    comps.push(match *first {
                        Index::Const(i) if i == u32::from(c) => *s,
                        Index::Const(_) => oc,
                        Index::Dyn(idx) => {
                            let k = self.u32c(u32::from(c))?;
                            let is = self.compare(AluOp::Ieq, idx, k)?;
                            self.bcsel(is, *s, oc)?
                        }
                    });
                }
                if let Index::Const(i) = *first
                    && i >= u32::from(n)
                {
                    return Err(self.invalid(format!("component {i} out of range")));
                }
                let new = self.vec(&comps)?;
                self.store_leaf(l, new)
            }
            Node::Comp(children) => match *first {
                Index::Const(i) => {
                    let c = children
                        .get(i as usize)
                        .ok_or_else(|| self.invalid(format!("index {i} out of range")))?;
                    let cty = self
                        .m
                        .child_type(ty, i)
                        .ok_or_else(|| self.invalid("bad type"))?;
                    self.tree_store(c, cty, rest, val, depth + 1)
                }
                Index::Dyn(idx) => {
                    if children.len() as u32 > MAX_DYNAMIC {
                        return Err(
                            self.limit(format!("dynamic index over {} elements", children.len()))
                        );
                    }
                    for (i, c) in children.iter().enumerate() {
                        let cty = self
                            .m
                            .child_type(ty, i as u32)
                            .ok_or_else(|| self.invalid("bad type"))?;
                        let k = self.u32c(i as u32)?;
                        let is = self.compare(AluOp::Ieq, idx, k)?;
                        self.emit_if(
                            is,
                            |t| t.tree_store(c, cty, rest, val, depth + 1),
                            |_| Ok(()),
                        )?;
                    }
                    Ok(())
                }
            },
        }
    }

    pub fn load_ptr(&mut self, ptr: &Val) -> Result<Val> {
        let p = self.ptr_of(ptr)?;
        match &p.root {
            Root::Mem(mem) => self.mem_load(mem, p.ty, 0),
            Root::Tree(node) => {
                let node = node.clone();
                self.tree_load(&node, p.root_ty, &p.path, 0)
            }
            Root::Handle(h) => Ok(Val::Handle(*h)),
            Root::Opaque(why) => Err(self.unsupported(why.clone())),
        }
    }

    pub fn store_ptr(&mut self, ptr: &Val, val: Val) -> Result<()> {
        let p = self.ptr_of(ptr)?;
        self.check_val(p.ty, &val, 0)?;
        match &p.root {
            Root::Mem(mem) => self.mem_store(mem, p.ty, &val, 0),
            Root::Tree(node) => {
                let node = node.clone();
                self.tree_store(&node, p.root_ty, &p.path, &val, 0)
            }
            Root::Handle(_) => Err(self.invalid("store to an image or sampler variable")),
            Root::Opaque(why) => Err(self.unsupported(why.clone())),
        }
    }

    /// A byte-offset pointer for atomics: the memory space and offset value.
    pub fn atomic_target(&mut self, ptr: &Val) -> Result<(Space, Value)> {
        let p = self.ptr_of(ptr)?;
        match &p.root {
            Root::Mem(mem)
                if matches!(
                    mem.space,
                    Space::Ssbo { .. } | Space::Shared | Space::Global
                ) =>
            {
                let o = self.mem_offset(mem)?;
                Ok((mem.space, o))
            }
            _ => Err(self
                .unsupported("atomics outside SSBOs, shared memory and physical storage buffers")),
        }
    }
}
