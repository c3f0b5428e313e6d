//! SPIR-V types, their IR value types, and memory layout.
//!
//! Explicit layouts (UBO/SSBO/push constants) come from the `Offset`,
//! `ArrayStride` and `MatrixStride` decorations; where they are missing (shared
//! memory) a natural std430-like layout is computed. Sizes use checked
//! arithmetic: a huge array must give an error, never an overflow or a panic.

use spirv::StorageClass;

use super::error::{Result, SpirvError};
use super::module::Module;
use crate::compiler::ir::ValueType;

/// Most leaves (scalars/vectors) one composite may flatten to.
pub const MAX_LEAVES: usize = 4096;

#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    Void,
    Bool,
    Int {
        width: u8,
        signed: bool,
    },
    Float {
        width: u8,
    },
    Vector {
        elem: u32,
        n: u8,
    },
    Matrix {
        col: u32,
        n: u8,
    },
    Array {
        elem: u32,
        len: u32,
    },
    RuntimeArray {
        elem: u32,
    },
    Struct {
        members: Vec<u32>,
    },
    Pointer {
        class: StorageClass,
        pointee: u32,
    },
    Function {
        ret: u32,
        params: Vec<u32>,
    },
    /// `OpTypeImage`: the sampled type id, `Dim`, `Depth`, `Arrayed`,
    /// `MS` and `Sampled` operands as given (`image.rs` checks them on use).
    Image {
        sampled_ty: u32,
        dim: u32,
        depth: u32,
        arrayed: bool,
        ms: bool,
        sampled: u32,
    },
    Sampler,
    /// `OpTypeSampledImage` of an image type.
    SampledImage {
        image: u32,
    },
    /// Other handles: declared fine, rejected on use.
    Opaque(&'static str),
}

/// `v` rounded up to a multiple of `a` (an error past 4 GiB).
pub fn round_up(v: u32, a: u32) -> Result<u32> {
    v.checked_next_multiple_of(a.max(1))
        .ok_or_else(|| limit(format!("size {v} rounded to {a} exceeds 4 GiB")))
}

fn limit(what: String) -> SpirvError {
    SpirvError::Limit { word: 0, what }
}

impl Module<'_> {
    /// The IR type of a scalar or vector type, `None` for anything else.
    ///
    /// A `PhysicalStorageBuffer` pointer is a value too: its 64-bit address
    /// (the `PhysicalStorageBuffer64` addressing model), held in variables,
    /// phis and memory like a `uint64_t`.
    pub fn value_type(&self, ty: u32) -> Option<ValueType> {
        match self.ty(ty).ok()? {
            Type::Bool => Some(ValueType::BOOL),
            Type::Pointer {
                class: StorageClass::PhysicalStorageBuffer,
                ..
            } => Some(ValueType::U64),
            Type::Int { width, .. } | Type::Float { width } => Some(ValueType::new(*width, 1)),
            Type::Vector { elem, n } => {
                let e = self.value_type(*elem)?;
                Some(e.with_comps(*n))
            }
            _ => None,
        }
    }

    /// Whether `ty` is a `PhysicalStorageBuffer` pointer type.
    pub fn is_physical_pointer(&self, ty: u32) -> bool {
        matches!(
            self.ty(ty),
            Ok(Type::Pointer {
                class: StorageClass::PhysicalStorageBuffer,
                ..
            })
        )
    }

    pub fn is_float(&self, ty: u32) -> bool {
        match self.ty(ty) {
            Ok(Type::Float { .. }) => true,
            Ok(Type::Vector { elem, .. }) => self.is_float(*elem),
            Ok(Type::Matrix { col, .. }) => self.is_float(*col),
            _ => false,
        }
    }

    /// The scalar type of a scalar, vector or matrix type.
    pub fn scalar_of(&self, ty: u32) -> u32 {
        match self.ty(ty) {
            Ok(Type::Vector { elem, .. }) => *elem,
            Ok(Type::Matrix { col, .. }) => self.scalar_of(*col),
            _ => ty,
        }
    }

    /// Number of children of a composite type (`None` for non-composites and runtime arrays).
    pub fn child_count(&self, ty: u32) -> Option<u32> {
        match self.ty(ty).ok()? {
            Type::Vector { n, .. } | Type::Matrix { n, .. } => Some(u32::from(*n)),
            Type::Array { len, .. } => Some(*len),
            Type::Struct { members } => Some(members.len() as u32),
            _ => None,
        }
    }

    /// The type of child `i` of a composite type.
    pub fn child_type(&self, ty: u32, i: u32) -> Option<u32> {
        match self.ty(ty).ok()? {
            Type::Vector { elem, n } => (i < u32::from(*n)).then_some(*elem),
            Type::Matrix { col, n } => (i < u32::from(*n)).then_some(*col),
            Type::Array { elem, len } => (i < *len).then_some(*elem),
            Type::RuntimeArray { elem } => Some(*elem),
            Type::Struct { members } => members.get(i as usize).copied(),
            _ => None,
        }
    }

    /// The scalar/vector leaf types of a type in order (matrices by column).
    pub fn leaf_types(&self, ty: u32) -> Result<Vec<ValueType>> {
        let mut out = Vec::new();
        self.collect_leaves(ty, &mut out, 0)?;
        Ok(out)
    }

    fn collect_leaves(&self, ty: u32, out: &mut Vec<ValueType>, depth: u32) -> Result<()> {
        if depth > 64 {
            return Err(limit("type nesting deeper than 64".into()));
        }
        if let Some(vt) = self.value_type(ty) {
            out.push(vt);
            return Ok(());
        }
        let n = self
            .child_count(ty)
            .ok_or_else(|| limit(format!("type %{ty} is not a value type")))?;
        if out.len() + n as usize > MAX_LEAVES {
            return Err(limit(format!(
                "type %{ty} has more than {MAX_LEAVES} leaves"
            )));
        }
        for i in 0..n {
            let c = self
                .child_type(ty, i)
                .ok_or_else(|| limit(format!("type %{ty} child {i}")))?;
            self.collect_leaves(c, out, depth + 1)?;
        }
        Ok(())
    }

    /// Natural (std430-like) size and alignment in bytes.
    pub fn natural_size_align(&self, ty: u32, depth: u32) -> Result<(u32, u32)> {
        if depth > 64 {
            return Err(limit("type nesting deeper than 64".into()));
        }
        let t = self.ty(ty)?;
        Ok(match t {
            Type::Bool => (4, 4),
            Type::Pointer {
                class: StorageClass::PhysicalStorageBuffer,
                ..
            } => (8, 8),
            Type::Int { width, .. } | Type::Float { width } => {
                let b = u32::from(*width / 8).max(1);
                (b, b)
            }
            Type::Vector { elem, n } => {
                let (s, _) = self.natural_size_align(*elem, depth + 1)?;
                let n = u32::from(*n);
                (s * n, s * if n == 3 { 4 } else { n })
            }
            Type::Matrix { col, n } => {
                let (s, a) = self.natural_size_align(*col, depth + 1)?;
                let stride = round_up(s, a)?;
                (stride * u32::from(*n), a)
            }
            Type::Array { elem, len } => {
                let stride = self.array_stride(ty)?;
                let (_, a) = self.natural_size_align(*elem, depth + 1)?;
                let size = stride
                    .checked_mul(*len)
                    .ok_or_else(|| limit(format!("array %{ty} is larger than 4 GiB")))?;
                (size, a)
            }
            Type::RuntimeArray { elem } => {
                let (_, a) = self.natural_size_align(*elem, depth + 1)?;
                (0, a)
            }
            Type::Struct { members } => {
                let mut end = 0u32;
                let mut align = 1u32;
                let mut at = 0u32;
                for (i, &m) in members.iter().enumerate() {
                    let (s, a) = self.natural_size_align(m, depth + 1)?;
                    align = align.max(a);
                    let off = match self.member_decos(ty, i as u32).and_then(|d| d.offset) {
                        Some(o) => o,
                        None => round_up(at, a)?,
                    };
                    at = off
                        .checked_add(s)
                        .ok_or_else(|| limit(format!("struct %{ty} is larger than 4 GiB")))?;
                    end = end.max(at);
                }
                (round_up(end, align)?, align)
            }
            _ => return Err(limit(format!("type %{ty} has no memory layout"))),
        })
    }

    /// Bytes up to the end of the last member (no tail padding): what a
    /// push-constant block can read.
    pub fn extent(&self, ty: u32) -> Result<u32> {
        let Type::Struct { members } = self.ty(ty)? else {
            return Ok(self.natural_size_align(ty, 0)?.0);
        };
        let mut end = 0u32;
        for (i, &m) in members.iter().enumerate() {
            let off = self.member_offset(ty, i as u32)?;
            let size = match self.ty(m)? {
                Type::Struct { .. } => self.extent(m)?,
                _ => self.natural_size_align(m, 1)?.0,
            };
            end = end.max(off.saturating_add(size));
        }
        Ok(end)
    }

    /// `ArrayStride` of an array type, or the natural stride.
    pub fn array_stride(&self, ty: u32) -> Result<u32> {
        if let Some(s) = self.decos(ty).and_then(|d| d.array_stride) {
            return Ok(s);
        }
        let elem = match self.ty(ty)? {
            Type::Array { elem, .. } | Type::RuntimeArray { elem } => *elem,
            _ => return Err(limit(format!("type %{ty} is not an array"))),
        };
        let (s, a) = self.natural_size_align(elem, 1)?;
        round_up(s, a)
    }

    /// Byte offset of member `i` of a struct (its `Offset` decoration or the natural one).
    pub fn member_offset(&self, ty: u32, i: u32) -> Result<u32> {
        if let Some(o) = self.member_decos(ty, i).and_then(|d| d.offset) {
            return Ok(o);
        }
        let Type::Struct { members } = self.ty(ty)? else {
            return Err(limit(format!("type %{ty} is not a struct")));
        };
        let mut at = 0u32;
        for (n, &m) in members.iter().enumerate() {
            let (s, a) = self.natural_size_align(m, 1)?;
            let off = match self.member_decos(ty, n as u32).and_then(|d| d.offset) {
                Some(o) => o,
                None => round_up(at, a)?,
            };
            if n as u32 == i {
                return Ok(off);
            }
            at = off.saturating_add(s);
        }
        Err(limit(format!("struct %{ty} has no member {i}")))
    }

    /// Tightly packed size (XFB: components in order, no padding).
    pub fn packed_size(&self, ty: u32, depth: u32) -> Result<u32> {
        if depth > 64 {
            return Err(limit("type nesting deeper than 64".into()));
        }
        if let Some(vt) = self.value_type(ty) {
            return Ok(vt.byte_size());
        }
        let too_big = || limit(format!("type %{ty} is larger than 4 GiB"));
        match self.ty(ty)? {
            Type::Matrix { col, n } => self
                .packed_size(*col, depth + 1)?
                .checked_mul(u32::from(*n))
                .ok_or_else(too_big),
            Type::Array { elem, len } => self
                .packed_size(*elem, depth + 1)?
                .checked_mul(*len)
                .ok_or_else(too_big),
            Type::Struct { members } => {
                let mut total = 0u32;
                for &m in members {
                    total = total
                        .checked_add(self.packed_size(m, depth + 1)?)
                        .ok_or_else(too_big)?;
                }
                Ok(total)
            }
            _ => Err(limit(format!("type %{ty} has no size"))),
        }
    }
}
