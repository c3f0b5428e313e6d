//! `lower_io`: assign vertex-input locations to Bifrost attribute slots and
//! outputs to varying slots, the numbering the job emitter uses for the
//! `Attributes` and `Varyings` descriptor arrays.
//!
//! Mapping (documented contract with the job emitter):
//! - **Attributes**: the distinct input locations, in ascending order, get
//!   attribute indices 0, 1, 2 … (`IoLayout::attributes[i]` is the location of
//!   attribute `i`). `load_input`/`load_attribute` and `Shader::inputs` are
//!   rewritten to carry the attribute index in their `location` field; the
//!   component is kept. (64-bit inputs spanning two locations are not handled.)
//! - **Varyings**: `gl_Position` → [`VaryingSlot::Position`] (its own buffer,
//!   `DRAW.Position`), `gl_PointSize` → [`VaryingSlot::PointSize`]; generic
//!   locations in ascending order → `Generic(0)`, `Generic(1)` …; then clip
//!   distances 0–7 packed four per slot, then cull distances likewise, as
//!   further generic slots. Each output keeps its component within the slot.
//!   Outputs are not renumbered: `IoLayout::varyings[o]` belongs to
//!   `Shader::outputs[o]`.
//! - XFB decorations are left intact (the XFB variant and the reference need them).
//! - **Fragment shaders** are left alone and get an empty layout: an input's
//!   location is the index of its varying record and an output's location
//!   its render target (`bifrost::binary` documents both).
//!
//! It never changes what a shader computes; only names of slots.

use std::collections::BTreeSet;

use crate::compiler::ir::*;

/// Where an output goes in the varying descriptors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VaryingSlot {
    Position,
    PointSize,
    Generic(u32),
}

/// The result of `lower_io`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IoLayout {
    /// Attribute index → input location.
    pub attributes: Vec<u32>,
    /// Output index → (varying slot, first component).
    pub varyings: Vec<(VaryingSlot, u8)>,
}

impl IoLayout {
    pub fn attribute_index(&self, location: u32) -> Option<u32> {
        self.attributes
            .iter()
            .position(|&l| l == location)
            .map(|i| i as u32)
    }
}

pub fn lower_io(shader: &mut Shader) -> IoLayout {
    if shader.stage == Stage::Fragment {
        return IoLayout::default();
    }
    let mut locations = BTreeSet::new();
    for i in &shader.inputs {
        locations.insert(i.location);
    }
    shader.body.for_each_instr(&mut |i| {
        if let Op::Intrinsic(OpIntrinsic {
            kind: Intrinsic::LoadInput { location, .. } | Intrinsic::LoadAttribute { location, .. },
            ..
        }) = &i.op
        {
            locations.insert(*location);
        }
    });
    let attributes: Vec<u32> = locations.into_iter().collect();
    let index = |l: u32| attributes.iter().position(|&x| x == l).unwrap_or(0) as u32;
    for i in &mut shader.inputs {
        i.location = index(i.location);
    }
    shader.body.for_each_region_mut(&mut |r| {
        for instr in &mut r.instrs {
            if let Op::Intrinsic(OpIntrinsic {
                kind:
                    Intrinsic::LoadInput { location, .. }
                    | Intrinsic::LoadAttribute { location, .. },
                ..
            }) = &mut instr.op
            {
                *location = index(*location);
            }
        }
    });
    let generic: Vec<u32> = shader
        .outputs
        .iter()
        .filter_map(|o| match o.slot {
            OutputSlot::Location { location, .. } => Some(location),
            _ => None,
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let n = generic.len() as u32;
    let varyings = shader
        .outputs
        .iter()
        .map(|o| match o.slot {
            OutputSlot::Location {
                location,
                component,
            } => (
                VaryingSlot::Generic(
                    generic.iter().position(|&l| l == location).unwrap_or(0) as u32
                ),
                component,
            ),
            OutputSlot::BuiltIn(BuiltIn::Position) => (VaryingSlot::Position, 0),
            OutputSlot::BuiltIn(BuiltIn::PointSize) => (VaryingSlot::PointSize, 0),
            OutputSlot::BuiltIn(BuiltIn::ClipDistance(i)) => {
                (VaryingSlot::Generic(n + u32::from(i) / 4), i % 4)
            }
            OutputSlot::BuiltIn(BuiltIn::CullDistance(i)) => {
                (VaryingSlot::Generic(n + 2 + u32::from(i) / 4), i % 4)
            }
            // Only fragment shaders declare it (returned above); a vertex
            // shader's front end never produces it.
            OutputSlot::BuiltIn(BuiltIn::FragDepth) => (VaryingSlot::Generic(n + 4), 0),
            OutputSlot::BuiltIn(BuiltIn::SampleMask) => (VaryingSlot::Generic(n + 4), 1),
            OutputSlot::SecondColor { component } => (VaryingSlot::Generic(n + 4), component),
        })
        .collect();
    IoLayout {
        attributes,
        varyings,
    }
}

impl Shader {
    /// Method form of [`lower_io`], so a pipeline reads as a list of passes.
    pub fn lower_io(&mut self) -> IoLayout {
        lower_io(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_become_dense_indices() {
        let mut s = Shader::new(Stage::Vertex);
        let mut b = Builder::new(&mut s);
        let a = b.load(
            Intrinsic::LoadInput {
                location: 5,
                component: 0,
            },
            ValueType::new(32, 4),
            &[],
        );
        let c = b.load(
            Intrinsic::LoadInput {
                location: 2,
                component: 1,
            },
            ValueType::U32,
            &[],
        );
        b.store(Intrinsic::StoreOutput { output: 0 }, &[a]);
        b.store(Intrinsic::StoreOutput { output: 1 }, &[c]);
        b.finish();
        s.outputs = vec![
            Output {
                name: "pos".into(),
                slot: OutputSlot::BuiltIn(BuiltIn::Position),
                ty: ValueType::new(32, 4),
                xfb: None,
            },
            Output {
                name: "v".into(),
                slot: OutputSlot::Location {
                    location: 3,
                    component: 1,
                },
                ty: ValueType::U32,
                xfb: Some(Xfb {
                    buffer: 0,
                    stride: 4,
                    offset: 0,
                    stream: 0,
                }),
            },
        ];
        let l = lower_io(&mut s);
        assert_eq!(l.attributes, vec![2, 5]);
        assert_eq!(
            l.varyings,
            vec![(VaryingSlot::Position, 0), (VaryingSlot::Generic(0), 1)]
        );
        let text = s.to_string();
        assert!(text.contains("load_input location=1 component=0"), "{text}");
        assert!(text.contains("load_input location=0 component=1"), "{text}");
        assert!(s.outputs[1].xfb.is_some());
    }
}
