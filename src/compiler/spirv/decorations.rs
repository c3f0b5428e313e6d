//! Decorations of ids and of struct members, gathered before anything else.
//!
//! Only the decorations the front end acts on are kept; the rest are
//! accepted and ignored. This module must never interpret a decoration's
//! meaning (layout, XFB, I/O): it only records them.

use spirv::{BuiltIn, Decoration};

use super::error::Result;
use super::reader::Inst;

/// The decorations of one id or one struct member.
#[derive(Clone, Debug, Default)]
pub struct Decos {
    pub builtin: Option<BuiltIn>,
    pub location: Option<u32>,
    pub component: Option<u32>,
    /// `Index` (fragment outputs: 1 is dual-source blending's second
    /// colour).
    pub index: Option<u32>,
    pub set: Option<u32>,
    pub binding: Option<u32>,
    /// `Offset`: a byte offset in a block (layout) or in an XFB buffer.
    pub offset: Option<u32>,
    pub array_stride: Option<u32>,
    pub matrix_stride: Option<u32>,
    pub row_major: bool,
    pub block: bool,
    pub buffer_block: bool,
    pub xfb_buffer: Option<u32>,
    pub xfb_stride: Option<u32>,
    pub stream: Option<u32>,
    pub spec_id: Option<u32>,
    pub non_writable: bool,
    /// Interpolation and sampling of fragment inputs.
    pub flat: bool,
    pub noperspective: bool,
    pub centroid: bool,
    pub sample: bool,
    /// `NoContraction` or `Invariant`: the module asks for exact
    /// evaluation somewhere (`ShaderInfo::no_contraction`).
    pub exact: bool,
}

impl Decos {
    /// Record one decoration with its literal operands.
    pub fn apply(&mut self, inst: &Inst, deco: u32, args: &[u32]) -> Result<()> {
        let Some(d) = Decoration::from_u32(deco) else {
            return Err(inst.invalid(format!("unknown decoration {deco}")));
        };
        let arg = || {
            args.first()
                .copied()
                .ok_or_else(|| inst.invalid(format!("decoration {d:?} needs an operand")))
        };
        match d {
            Decoration::BuiltIn => {
                let b = arg()?;
                self.builtin = Some(
                    BuiltIn::from_u32(b)
                        .ok_or_else(|| inst.invalid(format!("unknown built-in {b}")))?,
                );
            }
            Decoration::Location => self.location = Some(arg()?),
            Decoration::Component => self.component = Some(arg()?),
            Decoration::Index => self.index = Some(arg()?),
            Decoration::DescriptorSet => self.set = Some(arg()?),
            Decoration::Binding => self.binding = Some(arg()?),
            Decoration::Offset => self.offset = Some(arg()?),
            Decoration::ArrayStride => self.array_stride = Some(arg()?),
            Decoration::MatrixStride => self.matrix_stride = Some(arg()?),
            Decoration::RowMajor => self.row_major = true,
            Decoration::ColMajor => self.row_major = false,
            Decoration::Block => self.block = true,
            Decoration::BufferBlock => self.buffer_block = true,
            Decoration::XfbBuffer => self.xfb_buffer = Some(arg()?),
            Decoration::XfbStride => self.xfb_stride = Some(arg()?),
            Decoration::Stream => self.stream = Some(arg()?),
            Decoration::SpecId => self.spec_id = Some(arg()?),
            Decoration::NonWritable => self.non_writable = true,
            Decoration::Flat => self.flat = true,
            Decoration::NoPerspective => self.noperspective = true,
            Decoration::Centroid => self.centroid = true,
            Decoration::Sample => self.sample = true,
            Decoration::NoContraction | Decoration::Invariant => self.exact = true,
            _ => {}
        }
        Ok(())
    }
}
