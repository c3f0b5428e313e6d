//! Shader inputs and outputs: SPIR-V interface variables flattened into IR
//! input and output slots (Location/Component, built-ins, blocks, arrays
//! and matrices), with their XFB decorations, and the output stores at the
//! end of the entry point.

use spirv::BuiltIn as SpvBuiltIn;

use crate::compiler::ir::*;

use super::error::Result;
use super::function::Translator;
use super::types::{MAX_LEAVES, Type};
use super::variables::*;

/// One flattened output (becomes an IR `Output` if written or captured).
#[derive(Clone, Debug)]
pub struct OutLeaf {
    pub name: String,
    pub slot: OutputSlot,
    pub ty: ValueType,
    pub xfb: Option<Xfb>,
    /// The IR variable shadowing the output, created on first access.
    pub var: Option<VarId>,
    pub written: bool,
}

/// Interpolation decorations inherited while flattening an input (a
/// decoration on a variable or block member applies to everything in it).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct InterpCtx {
    pub(super) flat: bool,
    pub(super) noperspective: bool,
    pub(super) centroid: bool,
    pub(super) sample: bool,
}

impl InterpCtx {
    pub(super) fn of(d: &super::decorations::Decos) -> InterpCtx {
        InterpCtx {
            flat: d.flat,
            noperspective: d.noperspective,
            centroid: d.centroid,
            sample: d.sample,
        }
    }

    fn merge(self, inner: &InterpCtx) -> InterpCtx {
        InterpCtx {
            flat: self.flat || inner.flat,
            noperspective: self.noperspective || inner.noperspective,
            centroid: self.centroid || inner.centroid,
            sample: self.sample || inner.sample,
        }
    }
}

/// XFB decorations inherited while flattening an output.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct XfbCtx {
    pub(super) buffer: Option<u32>,
    pub(super) stride: Option<u32>,
    pub(super) stream: Option<u32>,
    pub(super) offset: Option<u32>,
}

impl<'m> Translator<'m> {
    /// The interpolation of one flattened input. Vertex inputs ignore the
    /// decorations (SPIR-V allows none there). Fragment inputs: 32-bit
    /// scalars and vectors only (what `LD_VAR` loads); integer inputs must
    /// be `Flat` (Vulkan's `Flat` rule for integer fragment inputs); `Flat`
    /// with `NoPerspective`, or `Centroid` with `Sample`, is invalid.
    fn interpolation_of(
        &self,
        name: &str,
        vt: ValueType,
        float: bool,
        c: InterpCtx,
    ) -> Result<(Interpolation, Sampling)> {
        if self.shader.stage != Stage::Fragment {
            return Ok((Interpolation::Smooth, Sampling::Center));
        }
        if vt.bits != 32 {
            return Err(self.unsupported(format!(
                "fragment input {name}: {}-bit components (only 32-bit varyings)",
                vt.bits
            )));
        }
        if c.flat && c.noperspective || c.centroid && c.sample {
            return Err(self.invalid(format!(
                "fragment input {name}: conflicting interpolation decorations"
            )));
        }
        if !float && !c.flat {
            return Err(self.invalid(format!(
                "fragment input {name}: an integer input must be decorated Flat"
            )));
        }
        let interpolation = if c.flat {
            Interpolation::Flat
        } else if c.noperspective {
            Interpolation::NoPerspective
        } else {
            Interpolation::Smooth
        };
        let sampling = if c.sample {
            Sampling::Sample
        } else if c.centroid {
            Sampling::Centroid
        } else {
            Sampling::Center
        };
        Ok((interpolation, sampling))
    }

    pub(super) fn locations_of(vt: ValueType) -> u32 {
        if vt.bits == 64 && vt.comps > 2 { 2 } else { 1 }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn input_node(
        &mut self,
        ty: u32,
        name: &str,
        loc: &mut Option<u32>,
        comp: u32,
        builtin: Option<SpvBuiltIn>,
        interp: InterpCtx,
        depth: u32,
    ) -> Result<Node> {
        if depth > 64 {
            return Err(self.limit("type nesting deeper than 64"));
        }
        let m = self.m;
        if let Some(b) = builtin {
            let fragment = self.shader.stage == Stage::Fragment;
            // `gl_SampleMaskIn` is an array of one 32-bit integer (the
            // Vulkan spec's "SampleMask" built-in: at most 32 samples).
            if b == SpvBuiltIn::SampleMask && fragment {
                return Ok(match m.ty(ty)? {
                    Type::Array { elem, len: 1 } => match m.value_type(*elem) {
                        Some(vt) if vt.bits == 32 && vt.comps == 1 && !vt.is_bool() => {
                            Node::Comp(vec![Node::Leaf(Leaf::SysVal(SysVal::SampleMaskIn, vt))])
                        }
                        _ => return Err(self.invalid("SampleMask must be an array of int")),
                    },
                    _ => return Err(self.invalid("SampleMask must be an array of one int")),
                });
            }
            let vt = m
                .value_type(ty)
                .ok_or_else(|| self.unsupported(format!("built-in {b:?} of a composite type")))?;
            let sv = match b {
                SpvBuiltIn::FragCoord if fragment => Some(SysVal::FragCoord),
                SpvBuiltIn::FrontFacing if fragment => Some(SysVal::FrontFacing),
                SpvBuiltIn::PointCoord if fragment => Some(SysVal::PointCoord),
                SpvBuiltIn::SampleId if fragment && vt.bits == 32 && vt.comps == 1 => {
                    Some(SysVal::SampleId)
                }
                SpvBuiltIn::SamplePosition if fragment && vt.bits == 32 && vt.comps == 2 => {
                    Some(SysVal::SamplePosition)
                }
                SpvBuiltIn::VertexIndex => Some(SysVal::VertexIndex),
                SpvBuiltIn::InstanceIndex => Some(SysVal::InstanceIndex),
                SpvBuiltIn::BaseVertex => Some(SysVal::BaseVertex),
                SpvBuiltIn::BaseInstance => Some(SysVal::BaseInstance),
                SpvBuiltIn::ViewIndex if self.shader.stage != Stage::Compute => {
                    Some(SysVal::ViewIndex)
                }
                SpvBuiltIn::DrawIndex if self.shader.stage == Stage::Vertex => {
                    Some(SysVal::DrawIndex)
                }
                SpvBuiltIn::LocalInvocationId => Some(SysVal::LocalInvocationId),
                SpvBuiltIn::LocalInvocationIndex => Some(SysVal::LocalInvocationIndex),
                SpvBuiltIn::GlobalInvocationId => Some(SysVal::GlobalInvocationId),
                SpvBuiltIn::WorkgroupId => Some(SysVal::WorkgroupId),
                SpvBuiltIn::NumWorkgroups => Some(SysVal::NumWorkgroups),
                SpvBuiltIn::WorkgroupSize => Some(SysVal::WorkgroupSize),
                _ => None,
            };
            return Ok(Node::Leaf(match sv {
                Some(sv) => Leaf::SysVal(sv, vt),
                None => Leaf::Bad(format!("input built-in {b:?}")),
            }));
        }
        if let Some(vt) = m.value_type(ty) {
            let Some(l) = *loc else {
                return Ok(Node::Leaf(Leaf::Bad(format!(
                    "input {name} has no Location"
                ))));
            };
            if comp > 3 || vt.is_bool() {
                return Err(self.invalid(format!("input {name}: bad Component or boolean type")));
            }
            let (interpolation, sampling) =
                self.interpolation_of(name, vt, m.is_float(ty), interp)?;
            self.shader.inputs.push(Input {
                name: name.to_string(),
                location: l,
                component: comp as u8,
                ty: vt,
                interpolation,
                sampling,
            });
            *loc = Some(l.saturating_add(Self::locations_of(vt)));
            return Ok(Node::Leaf(Leaf::Input {
                location: l,
                component: comp as u8,
                ty: vt,
            }));
        }
        let n = m
            .child_count(ty)
            .ok_or_else(|| self.unsupported(format!("input {name} of type %{ty}")))?;
        if n as usize > MAX_LEAVES {
            return Err(self.limit(format!("input {name} has {n} elements")));
        }
        let is_struct = matches!(m.ty(ty)?, Type::Struct { .. });
        let mut out = Vec::new();
        for i in 0..n {
            let c = m
                .child_type(ty, i)
                .ok_or_else(|| self.invalid("bad type"))?;
            let (cname, cb, cc, ci) = if is_struct {
                let d = m.member_decos(ty, i).cloned().unwrap_or_default();
                if let Some(l) = d.location {
                    *loc = Some(l);
                }
                let mname = m
                    .member_name(ty, i)
                    .unwrap_or_else(|| format!("{name}.{i}"));
                (
                    mname,
                    d.builtin,
                    d.component.unwrap_or(0),
                    interp.merge(&InterpCtx::of(&d)),
                )
            } else {
                (format!("{name}[{i}]"), None, comp, interp)
            };
            out.push(self.input_node(c, &cname, loc, cc, cb, ci, depth + 1)?);
        }
        Ok(Node::Comp(out))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn output_node(
        &mut self,
        ty: u32,
        name: &str,
        loc: &mut Option<u32>,
        comp: u32,
        builtin: Option<SpvBuiltIn>,
        xfb: XfbCtx,
        depth: u32,
    ) -> Result<Node> {
        if depth > 64 {
            return Err(self.limit("type nesting deeper than 64"));
        }
        let m = self.m;
        let xfb_at = |xfb: &XfbCtx| -> Option<Xfb> {
            Some(Xfb {
                buffer: xfb.buffer?,
                stride: xfb.stride.unwrap_or(0),
                offset: xfb.offset?,
                stream: xfb.stream.unwrap_or(0),
            })
        };
        if let Some(b) = builtin {
            let slots: Vec<(BuiltIn, u32)> = match b {
                SpvBuiltIn::Position => vec![(BuiltIn::Position, ty)],
                SpvBuiltIn::PointSize => vec![(BuiltIn::PointSize, ty)],
                SpvBuiltIn::ClipDistance | SpvBuiltIn::CullDistance => {
                    let (elem, len) = match m.ty(ty)? {
                        Type::Array { elem, len } if *len <= 8 => (*elem, *len),
                        _ => {
                            return Err(
                                self.invalid(format!("{b:?} must be an array of at most 8 floats"))
                            );
                        }
                    };
                    (0..len)
                        .map(|i| {
                            let s = if b == SpvBuiltIn::ClipDistance {
                                BuiltIn::ClipDistance(i as u8)
                            } else {
                                BuiltIn::CullDistance(i as u8)
                            };
                            (s, elem)
                        })
                        .collect()
                }
                SpvBuiltIn::FragDepth if self.shader.stage == Stage::Fragment => {
                    vec![(BuiltIn::FragDepth, ty)]
                }
                // `gl_SampleMask`: an array of one 32-bit integer (at most
                // 32 samples).
                SpvBuiltIn::SampleMask if self.shader.stage == Stage::Fragment => {
                    match m.ty(ty)? {
                        Type::Array { elem, len: 1 } => vec![(BuiltIn::SampleMask, *elem)],
                        _ => {
                            return Err(self.invalid("SampleMask must be an array of one int"));
                        }
                    }
                }
                other => {
                    return Ok(Node::Leaf(Leaf::Bad(format!("output built-in {other:?}"))));
                }
            };
            let mut nodes = Vec::new();
            for (i, (slot, sty)) in slots.iter().enumerate() {
                let vt = m
                    .value_type(*sty)
                    .ok_or_else(|| self.invalid(format!("{b:?} has a composite type")))?;
                let mut x = xfb;
                x.offset = xfb.offset.map(|o| o.saturating_add(4 * i as u32));
                let lname = if matches!(b, SpvBuiltIn::ClipDistance | SpvBuiltIn::CullDistance) {
                    format!("{name}[{i}]")
                } else {
                    name.to_string()
                };
                nodes.push(self.out_leaf(lname, OutputSlot::BuiltIn(*slot), vt, xfb_at(&x))?);
            }
            return Ok(
                if matches!(
                    b,
                    SpvBuiltIn::ClipDistance | SpvBuiltIn::CullDistance | SpvBuiltIn::SampleMask
                ) {
                    Node::Comp(nodes)
                } else {
                    nodes.pop().unwrap_or(Node::Leaf(Leaf::Bad("empty".into())))
                },
            );
        }
        if let Some(vt) = m.value_type(ty) {
            let Some(l) = *loc else {
                return Ok(Node::Leaf(Leaf::Bad(format!(
                    "output {name} has no Location"
                ))));
            };
            if comp > 3 || vt.is_bool() {
                return Err(self.invalid(format!("output {name}: bad Component or boolean type")));
            }
            if self.shader.stage == Stage::Fragment {
                let format = match m.ty(ty)? {
                    Type::Vector { elem, .. } => m.ty(*elem)?,
                    t => t,
                };
                let format = match format {
                    Type::Float { .. } => ColorFormat::Float,
                    Type::Int { signed: true, .. } => ColorFormat::Sint,
                    _ => ColorFormat::Uint,
                };
                let info = &mut self.shader.info;
                match info.color_formats.iter().find(|c| c.0 == l) {
                    Some(c) if c.1 != format => {
                        return Err(self.invalid(format!(
                            "output {name}: components of location {l} of different types"
                        )));
                    }
                    Some(_) => {}
                    None => {
                        info.color_formats.push((l, format));
                        info.color_formats.sort_unstable_by_key(|c| c.0);
                    }
                }
            }
            *loc = Some(l.saturating_add(Self::locations_of(vt)));
            return self.out_leaf(
                name.to_string(),
                OutputSlot::Location {
                    location: l,
                    component: comp as u8,
                },
                vt,
                xfb_at(&xfb),
            );
        }
        let n = m
            .child_count(ty)
            .ok_or_else(|| self.unsupported(format!("output {name} of type %{ty}")))?;
        if n as usize > MAX_LEAVES {
            return Err(self.limit(format!("output {name} has {n} elements")));
        }
        let struct_block = match m.ty(ty)? {
            Type::Struct { .. } => Some(m.decos(ty).is_some_and(|d| d.block)),
            _ => None,
        };
        let mut running = 0u32;
        let mut out = Vec::new();
        for i in 0..n {
            let c = m
                .child_type(ty, i)
                .ok_or_else(|| self.invalid("bad type"))?;
            let size = m.packed_size(c, 0)?;
            let mut x = xfb;
            let (cname, cb, cc) = match struct_block {
                Some(is_block) => {
                    let d = m.member_decos(ty, i).cloned().unwrap_or_default();
                    if let Some(l) = d.location {
                        *loc = Some(l);
                    }
                    x.buffer = d.xfb_buffer.or(x.buffer);
                    x.stride = d.xfb_stride.or(x.stride);
                    x.stream = d.stream.or(x.stream);
                    x.offset = if is_block {
                        d.offset
                    } else {
                        xfb.offset.map(|o| o.saturating_add(running))
                    };
                    let mname = m.member_name(ty, i);
                    let cname = match (d.builtin, mname) {
                        (Some(_), Some(mn)) => mn,
                        (_, Some(mn)) if !name.starts_with('%') => format!("{name}.{mn}"),
                        (_, Some(mn)) => mn,
                        (_, None) => format!("{name}.{i}"),
                    };
                    (cname, d.builtin, d.component.unwrap_or(0))
                }
                None => {
                    x.offset = xfb.offset.map(|o| o.saturating_add(running));
                    (format!("{name}[{i}]"), None, comp)
                }
            };
            running = running.saturating_add(size);
            out.push(self.output_node(c, &cname, loc, cc, cb, x, depth + 1)?);
        }
        Ok(Node::Comp(out))
    }

    pub(super) fn out_leaf(
        &mut self,
        name: String,
        slot: OutputSlot,
        ty: ValueType,
        xfb: Option<Xfb>,
    ) -> Result<Node> {
        self.out_leaves.push(OutLeaf {
            name,
            slot,
            ty,
            xfb,
            var: None,
            written: false,
        });
        Ok(Node::Leaf(Leaf::Output(self.out_leaves.len() - 1)))
    }

    /// Emit the `StoreOutput`s for every written output and fill `shader.outputs`.
    pub fn emit_output_stores(&mut self) -> Result<()> {
        let leaves = std::mem::take(&mut self.out_leaves);
        for leaf in &leaves {
            if !leaf.written && leaf.xfb.is_none() {
                continue;
            }
            let index = self.shader.outputs.len() as u32;
            self.shader.outputs.push(Output {
                name: leaf.name.clone(),
                slot: leaf.slot,
                ty: leaf.ty,
                xfb: leaf.xfb,
            });
            if let (true, Some(var)) = (leaf.written, leaf.var) {
                let v = self.load_var(var)?;
                self.effect(Intrinsic::StoreOutput { output: index }, &[v])?;
            }
        }
        self.out_leaves = leaves;
        Ok(())
    }

    // ---- pointers ----
}
