//! Fragment shaders: varying loads, fragment built-ins, `discard`, and the
//! epilogue that hands colour and depth to the tile buffer (`ATEST`,
//! `ZS_EMIT`, one `BLEND` per render target), as Mesa's Bifrost compiler
//! emits them on G52/G72 (src/panfrost/compiler/bifrost_compile.c:
//! `bi_emit_load_vary`, `bi_emit_fragment_out`, `bi_emit_atest`,
//! `bi_emit_blend_op`). The contract with the job emitter is
//! [`FragmentInfo`]'s documentation in `binary.rs`.
//!
//! Outputs are collected as they are stored (the front end stores them
//! once, at the end of the entry point) and sent after the body; a store
//! under control flow is refused.

use std::collections::BTreeMap;

use super::*;
use crate::compiler::bifrost::binary::{
    BlendRegisterFormat, FragmentInfo, FragmentPreloads, RenderTargetWrite, VaryingLoad,
    VaryingPreload,
};
use crate::compiler::ir::{ColorFormat, Interpolation, OutputSlot, Sampling};

/// Render targets a fragment shader may write (the blend descriptor FAU
/// slots 8..15).
pub const MAX_RENDER_TARGETS: u32 = 8;

/// The FAU special slot holding the sample-locations table's address
/// (Mesa's `BIR_FAU_SAMPLE_POS_ARRAY`, 64 bits).
pub const FAU_SAMPLE_POSITIONS: u8 = 6;

/// What instruction selection learns about a fragment shader.
#[derive(Default)]
pub(super) struct FragState {
    pub preloads: FragmentPreloads,
    pub varyings: BTreeMap<u32, VaryingLoad>,
    /// Render target → its four component lanes as stored.
    pub colors: BTreeMap<u32, [Option<Src>; 4]>,
    pub depth: Option<Src>,
    pub can_discard: bool,
    pub reads_frag_coord: bool,
    pub reads_front_facing: bool,
    pub reads_point_coord: bool,
    /// `gl_SampleID` or `gl_SamplePosition` is read, or an input is
    /// `Sample`-interpolated: the shader runs once per covered sample.
    pub sample_shading: bool,
    /// `gl_SampleMask` as stored (ANDed into the coverage before ATEST).
    pub sample_mask: Option<Src>,
    /// The second colour of dual-source blending (`Location` 0, `Index`
    /// 1), moved to r4–r7 right before render target 0's BLEND.
    pub second_color: Option<[Option<Src>; 4]>,
    /// Four-register vectors `LD_VAR*` loaded (vreg → components written):
    /// a render target's colour made of their first components is sent
    /// from them, the rest filled in place, instead of copied (once each).
    pub loaded: BTreeMap<u32, u8>,
    /// v7 message preloads: preload i writes the varying into r(4i)..
    /// before the shader starts (see [`plan_message_preloads`]).
    pub messages: Vec<VaryingPreload>,
}

/// The v7 Renderer State's `Message Preload 1/2` (genxml v7.xml `Message
/// Preload`, type `LD_VAR`): the hardware interpolates a varying before
/// the shader starts and hands it in registers, so the shader needs no
/// `LD_VAR` clause for it. Mesa uses them for the first two `LD_VAR_IMM`
/// of the entry block with a float register format
/// (src/panfrost/compiler/bi_opt_message_preload.c), preload i landing in
/// r(4i).. (`bi_register(4 * i + c)` there; `kmod/sim/fragment.rs` executes
/// the same). Ours: the first two locations loaded, in program order, that
/// are 32-bit, smooth (perspective-correct, which is what the simulator's
/// preload computes) and sampled at the pixel centre (what a centre
/// `LD_VAR_IMM` reads too); each preloads every component any load of the
/// location reads. The registers (all four of a preload) are reserved for
/// the whole shader and read in place, so a load anywhere (also under
/// control flow) reads them.
/// v6 has no message preloads (genxml v6.xml has no such field).
pub(super) fn plan_message_preloads(s: &Shader) -> Vec<VaryingPreload> {
    let mut plan: Vec<VaryingPreload> = Vec::new();
    let mut refused: Vec<u32> = Vec::new();
    // The second preload's r4–r7 would hold dual-source blending's second
    // colour at the first BLEND.
    let max_preloads = if s
        .outputs
        .iter()
        .any(|o| matches!(o.slot, OutputSlot::SecondColor { .. }))
    {
        1
    } else {
        2
    };
    s.body.for_each_instr(&mut |i| {
        let IrOp::Intrinsic(ir::OpIntrinsic {
            kind:
                Intrinsic::LoadInput {
                    location,
                    component,
                },
            ..
        }) = &i.op
        else {
            return;
        };
        let (location, component) = (*location, *component);
        let Some(&d) = i.dsts.first() else {
            return;
        };
        let ty = s.ty(d);
        let n = component.saturating_add(ty.comps);
        if let Some(p) = plan.iter_mut().find(|p| p.location == location) {
            p.components = p.components.max(n);
            return;
        }
        if plan.len() == max_preloads || refused.contains(&location) {
            return;
        }
        let fits = ty.bits == 32
            && n <= 4
            && location < 32
            && s.inputs.iter().any(|decl| {
                decl.location == location
                    && decl.interpolation == Interpolation::Smooth
                    && decl.sampling == Sampling::Center
            });
        if fits {
            plan.push(VaryingPreload {
                location,
                components: n,
            });
        } else {
            refused.push(location);
        }
    });
    plan
}

/// Whether a region or one nested in it stores an output (`nested`: only
/// count stores inside `if`/`loop` bodies).
pub(super) fn stores_output_nested(r: &Region) -> bool {
    let mut found = false;
    for i in &r.instrs {
        match &i.op {
            IrOp::If(f) => {
                f.then_region
                    .for_each_instr(&mut |j| found |= is_store_output(j));
                f.else_region
                    .for_each_instr(&mut |j| found |= is_store_output(j));
            }
            IrOp::Loop(l) => l.body.for_each_instr(&mut |j| found |= is_store_output(j)),
            _ => {}
        }
    }
    found
}

fn is_store_output(i: &ir::Instr) -> bool {
    matches!(
        i.op,
        IrOp::Intrinsic(ir::OpIntrinsic {
            kind: Intrinsic::StoreOutput { .. },
            ..
        })
    )
}

impl Isel<'_> {
    /// `load_input` of a fragment shader: `LD_VAR_IMM` (smooth,
    /// no-perspective) or `LD_VAR_FLAT_IMM` (flat) of record `location`.
    pub(super) fn load_varying(
        &mut self,
        ty: ir::ValueType,
        location: u32,
        component: u8,
    ) -> Result<Vec<Src>, CompileError> {
        if ty.bits != 32 {
            return Err(unsupported(format!("{}-bit varyings", ty.bits)));
        }
        if location >= 32 {
            return Err(unsupported(format!(
                "varying location {location} (LD_VAR_IMM indexes 0..31)"
            )));
        }
        let n = component + ty.comps;
        if n > 4 {
            return Err(CompileError::Malformed(
                "varying beyond 4 components".into(),
            ));
        }
        // The declaration says how to interpolate (every input of a location
        // shares it: Vulkan's interface matching by location).
        let decl = self
            .s
            .inputs
            .iter()
            .find(|i| i.location == location)
            .ok_or_else(|| {
                CompileError::Malformed(format!("load_input of undeclared location {location}"))
            })?;
        let (interpolation, sampling) = (decl.interpolation, decl.sampling);
        let entry = self.frag.varyings.entry(location).or_insert(VaryingLoad {
            location,
            components: n,
            interpolation,
            sampling,
        });
        entry.components = entry.components.max(n);
        if let Some(slot) = self
            .frag
            .messages
            .iter()
            .position(|m| m.location == location)
        {
            // Preloaded (see `plan_message_preloads`): read in place.
            return Ok((component..n)
                .map(|c| Src::Phys(4 * slot as u8 + c))
                .collect());
        }
        self.frag.preloads.sample_mask_id = true;
        // Four registers, whatever the load writes: BLEND may use them.
        let v = self.new_vreg(4);
        self.frag.loaded.insert(v, n);
        let dst = Some(Dst::Reg(Reg { index: v, comp: 0 }));
        let index = location as u8;
        let op = match interpolation {
            Interpolation::Flat => Op::LdVarFlatImm { index, comps: n },
            Interpolation::Smooth | Interpolation::NoPerspective => Op::LdVarImm {
                index,
                comps: n,
                sample: match sampling {
                    Sampling::Center => VarSample::Center,
                    Sampling::Centroid => VarSample::Centroid,
                    Sampling::Sample => VarSample::Sample,
                },
            },
        };
        let srcs = if op.num_srcs() == 1 {
            vec![Src::Phys(61)]
        } else {
            vec![]
        };
        self.push(Instr::new(op, dst, srcs));
        Ok((component..n)
            .map(|c| Src::Reg(Reg { index: v, comp: c }))
            .collect())
    }

    /// One `LD_VAR_SPECIAL` result register.
    fn var_special(&mut self, name: VarSpecial) -> Vec<Src> {
        self.frag.preloads.sample_mask_id = true;
        let comps = if name == VarSpecial::Point { 2 } else { 1 };
        let v = self.new_vreg(comps);
        let dst = Some(Dst::Reg(Reg { index: v, comp: 0 }));
        self.push(Instr::new(
            Op::LdVarSpecial { name },
            dst,
            vec![Src::Phys(61)],
        ));
        (0..comps)
            .map(|c| Src::Reg(Reg { index: v, comp: c }))
            .collect()
    }

    /// `gl_SamplePosition`: the sample's entry of the sample-locations
    /// table, whose address is FAU special 6 (Mesa's
    /// `BIR_FAU_SAMPLE_POS_ARRAY` and
    /// src/panfrost/compiler/pan_lower_sample_pos.c: 4 bytes per sample, x
    /// and y 16-bit in 1/256 pixel from the pixel's upper-left corner, the
    /// layout `jm::framebuffer::SampleLocations` writes): x / 256, y / 256.
    fn sample_position(&mut self) -> Result<[Src; 2], CompileError> {
        self.frag.preloads.sample_mask_id = true;
        // (r61 >> 14) & 0x7c = sample id × 4.
        let offset = self.shift(
            ShiftOp::RshiftAnd,
            Src::Phys(61),
            Src::Imm(0x7c),
            Src::Imm(14),
        );
        let table = [false, true].map(|high| Src::Special {
            slot: FAU_SAMPLE_POSITIONS,
            high,
        });
        let table = [self.in_reg(table[0]), self.in_reg(table[1])];
        let addr = self.add64(&table, &[offset, ZERO]);
        let word = self.load(ir::ValueType::U32, addr, Seg::None)?[0];
        let mut lanes = [ZERO; 2];
        for (lane, out) in lanes.iter_mut().enumerate() {
            let f = self.emit(
                Op::SmallIntToF32 {
                    signed: false,
                    bits: 16,
                    lane: lane as u8,
                },
                &[word],
            );
            *out = self.emit(
                Op::FmaF32 {
                    neg: [false, false, false],
                },
                &[f, Src::Imm((1.0f32 / 256.0).to_bits()), ZERO],
            );
        }
        Ok(lanes)
    }

    /// Whether the shader itself asks for sample shading (the Vulkan
    /// spec's "Sample Shading": `SampleId` or `SamplePosition` in its
    /// interface; a `Sample` input, which we take as asking too).
    fn shader_asks_sample_shading(&self) -> bool {
        let mut found = self.s.inputs.iter().any(|i| i.sampling == Sampling::Sample);
        self.s.body.for_each_instr(&mut |i| {
            found |= matches!(
                i.op,
                IrOp::Intrinsic(ir::OpIntrinsic {
                    kind: Intrinsic::LoadSysVal(SysVal::SampleId | SysVal::SamplePosition),
                    ..
                })
            );
        });
        found
    }

    /// The fragment built-ins (`frag_coord`, `front_facing`, `point_coord`).
    pub(super) fn fragment_sysval(&mut self, sv: SysVal) -> Result<Vec<Src>, CompileError> {
        Ok(match sv {
            // x, y: the pixel position preloaded in r59 (16 bits each) plus
            // the pixel centre's 0.5 — or, when the shader asks for sample
            // shading itself, its sample's position (the spec's FragCoord:
            // "the location of one of the samples corresponding to the
            // shader invocation"; at one sample the table's entry is the
            // centre); z and 1/w from the varying unit.
            SysVal::FragCoord => {
                self.frag.reads_frag_coord = true;
                self.frag.preloads.fragment_position = true;
                let within = if self.shader_asks_sample_shading() {
                    self.sample_position()?
                } else {
                    [Src::Imm(0.5f32.to_bits()); 2]
                };
                let mut lanes = Vec::with_capacity(4);
                for (lane, &offset) in within.iter().enumerate() {
                    let lane = lane as u8;
                    let f = self.emit(
                        Op::SmallIntToF32 {
                            signed: false,
                            bits: 16,
                            lane,
                        },
                        &[Src::Phys(59)],
                    );
                    lanes.push(self.emit(
                        Op::FaddF32 {
                            neg: [false; 2],
                            abs: [false; 2],
                            clamp01: false,
                        },
                        &[f, offset],
                    ));
                }
                lanes.extend(self.var_special(VarSpecial::FragZ));
                lanes.extend(self.var_special(VarSpecial::FragW));
                lanes
            }
            // r58 == 0 for a front-facing primitive (Mesa's
            // `load_front_face`); booleans are 0 / all ones.
            SysVal::FrontFacing => {
                self.frag.reads_front_facing = true;
                self.frag.preloads.primitive_flags = true;
                vec![self.emit(
                    Op::Icmp {
                        ty: IcmpType::I32,
                        cmp: Cmp::Eq,
                    },
                    &[Src::Phys(58), ZERO],
                )]
            }
            SysVal::PointCoord => {
                self.frag.reads_point_coord = true;
                self.var_special(VarSpecial::Point)
            }
            // r61 bits 16.. hold the sample a sample-shaded thread runs for
            // (Mesa's `bi_load_sample_id_to`: a 5-bit field, its upper bits
            // unreliable on hardware). Reading it asks for sample shading
            // (the Vulkan spec's "Sample Shading": SampleId in the interface
            // means minSampleShading 1.0).
            SysVal::SampleId => {
                self.frag.sample_shading = true;
                self.frag.preloads.sample_mask_id = true;
                vec![self.shift(
                    ShiftOp::RshiftAnd,
                    Src::Phys(61),
                    Src::Imm(0x1f),
                    Src::Imm(16),
                )]
            }
            // r61 bits 0..15: the samples the rasterizer covered (Mesa's
            // `load_sample_mask_in`).
            SysVal::SampleMaskIn => {
                self.frag.preloads.sample_mask_id = true;
                vec![self.emit(
                    Op::Shift {
                        op: ShiftOp::LshiftAnd,
                        not1: false,
                        not_result: false,
                    },
                    &[Src::Phys(61), Src::Imm(0xffff), ZERO],
                )]
            }
            // The sample's entry of the sample-locations table, whose
            // address is FAU special 6 (Mesa's `BIR_FAU_SAMPLE_POS_ARRAY`
            // and src/panfrost/compiler/pan_lower_sample_pos.c: 4 bytes per
            // sample, x and y 16-bit in 1/256 pixel from the pixel's
            // upper-left corner, the layout `jm::framebuffer::SampleLocations`
            // writes): x / 256, y / 256. Enables sample shading too.
            SysVal::SamplePosition => {
                self.frag.sample_shading = true;
                self.sample_position()?.to_vec()
            }
            other => return Err(unsupported(format!("system value {other:?}"))),
        })
    }

    /// `discard`: `DISCARD.f32.eq #0, #0` (always true).
    pub(super) fn discard(&mut self) {
        self.frag.can_discard = true;
        self.push(Instr::new(Op::DiscardF32, None, [ZERO, ZERO]));
    }

    /// `store_output` of a fragment shader: remember the lanes.
    pub(super) fn store_fragment_output(
        &mut self,
        output: u32,
        data: Vec<Src>,
    ) -> Result<(), CompileError> {
        let o =
            self.s.outputs.get(output as usize).ok_or_else(|| {
                CompileError::Malformed(format!("output {output} does not exist"))
            })?;
        if o.ty.bits != 32 {
            return Err(unsupported(format!("{}-bit fragment outputs", o.ty.bits)));
        }
        match o.slot {
            OutputSlot::BuiltIn(ir::BuiltIn::FragDepth) => {
                self.frag.depth = data.first().copied();
            }
            OutputSlot::BuiltIn(ir::BuiltIn::SampleMask) => {
                self.frag.sample_mask = data.first().copied();
            }
            OutputSlot::Location {
                location,
                component,
            } => {
                if location >= MAX_RENDER_TARGETS {
                    return Err(unsupported(format!(
                        "render target {location} (at most {MAX_RENDER_TARGETS})"
                    )));
                }
                let lanes = self.frag.colors.entry(location).or_default();
                for (i, &d) in data.iter().enumerate() {
                    let c = usize::from(component) + i;
                    *lanes.get_mut(c).ok_or_else(|| {
                        CompileError::Malformed("colour beyond 4 components".into())
                    })? = Some(d);
                }
            }
            OutputSlot::SecondColor { component } => {
                let lanes = self.frag.second_color.get_or_insert_default();
                for (i, &d) in data.iter().enumerate() {
                    let c = usize::from(component) + i;
                    *lanes.get_mut(c).ok_or_else(|| {
                        CompileError::Malformed("colour beyond 4 components".into())
                    })? = Some(d);
                }
            }
            OutputSlot::BuiltIn(b) => {
                return Err(unsupported(format!("fragment output built-in {b:?}")));
            }
        }
        Ok(())
    }

    /// BLEND of render target `rt` from the four registers starting at
    /// `colour` (its descriptor in FAU slot 8 + rt), and what it writes.
    fn blend(
        &mut self,
        rt: u32,
        colour: Src,
        coverage: Src,
        lanes: &[Option<Src>],
    ) -> RenderTargetWrite {
        let slot = 8 + rt as u8;
        self.push(Instr::new(
            Op::Blend { rt: rt as u8 },
            Some(Dst::Phys(48)),
            vec![
                colour,
                coverage,
                Src::Special { slot, high: false },
                Src::Special { slot, high: true },
            ],
        ));
        RenderTargetWrite {
            index: rt,
            format: self.color_format(rt),
            components: lanes.iter().rposition(Option::is_some).map_or(0, |i| i + 1) as u8,
            // Known once the code is laid out (`bifrost::compile`).
            return_offset: 0,
        }
    }

    fn color_format(&self, rt: u32) -> BlendRegisterFormat {
        match self.s.info.color_formats.iter().find(|c| c.0 == rt) {
            Some((_, ColorFormat::Sint)) => BlendRegisterFormat::S32,
            Some((_, ColorFormat::Uint)) => BlendRegisterFormat::U32,
            _ => BlendRegisterFormat::F32,
        }
    }

    /// A varying load whose `n` loaded components are exactly the colour's
    /// first `n` lanes (in order), and whose other registers nothing else
    /// fills: its vector can be BLEND's staging. Each load serves once.
    fn loaded_prefix(&mut self, lanes: &[Option<Src>; 4]) -> Option<(u32, u8)> {
        let Some(Src::Reg(first)) = lanes[0] else {
            return None;
        };
        let n = *self.frag.loaded.get(&first.index)?;
        let prefix = (0..usize::from(n)).all(|c| {
            lanes[c]
                == Some(Src::Reg(Reg {
                    index: first.index,
                    comp: c as u8,
                }))
        });
        // The rest must not read the load's own (undefined) registers.
        let rest_ok = lanes[usize::from(n)..]
            .iter()
            .all(|l| !matches!(l, Some(Src::Reg(r)) if r.index == first.index));
        if !(prefix && rest_ok) {
            return None;
        }
        self.frag.loaded.remove(&first.index);
        Some((first.index, n))
    }

    /// A colour whose first components are a message preload's registers
    /// in order, all of them (r(4i).. of preload i): BLEND reads r(4i)..
    /// r(4i + 3) and only the rest is written there, as Mesa's
    /// gfx_triangle and vs_ids fragment shaders do (`BLEND ... @r0`).
    /// Registers past the preloaded components are written by nothing
    /// else (the whole 4-register block is reserved) and read as varyings
    /// by nothing (they were never loaded). The caller uses it for a single
    /// render target only, so no later colour reads what this one overwrote.
    fn preloaded_prefix(&self, lanes: &[Option<Src>; 4]) -> Option<(u8, u8)> {
        let Some(Src::Phys(first)) = lanes[0] else {
            return None;
        };
        if first % 4 != 0 {
            return None;
        }
        let slot = first / 4;
        let n = self.frag.messages.get(usize::from(slot))?.components;
        let prefix = (0..n).all(|c| lanes[usize::from(c)] == Some(Src::Phys(first + c)));
        prefix.then_some((first, n))
    }

    /// The epilogue at the end of the shader: ATEST, ZS_EMIT, BLENDs.
    pub(super) fn fragment_epilogue(&mut self) -> Result<FragmentInfo, CompileError> {
        self.frag.preloads.coverage = true;
        let coverage = Src::Phys(60);
        // `gl_SampleMask`: the samples it clears leave the coverage before
        // ATEST (Mesa folds the output into its `bi_coverage` the same
        // way); the Vulkan spec's "Sample Mask" rule: coverage AND mask.
        if let Some(mask) = self.frag.sample_mask {
            self.push(Instr::new(
                Op::Shift {
                    op: ShiftOp::LshiftAnd,
                    not1: false,
                    not_result: false,
                },
                Some(Dst::Phys(60)),
                vec![coverage, mask, ZERO],
            ));
        }
        // Alpha for the alpha-to-coverage/alpha test: render target 0's
        // when it is a float with alpha written, else 1.0 (passes).
        let alpha = match self.frag.colors.get(&0) {
            Some(lanes) if self.color_format(0) == BlendRegisterFormat::F32 => {
                lanes[3].unwrap_or(Src::Imm(1.0f32.to_bits()))
            }
            _ => Src::Imm(1.0f32.to_bits()),
        };
        // The ATEST datum takes the tuple's FAU slot: alpha in a register.
        let alpha = self.in_reg(alpha);
        self.push(Instr::new(
            Op::Atest,
            Some(Dst::Phys(60)),
            vec![coverage, alpha],
        ));
        // With `EarlyFragmentTests` the shader's depth has no effect (the
        // Vulkan spec's "Early Fragment Test Mode"): no ZS_EMIT, and the
        // depth source stays fixed-function.
        if self.s.info.early_fragment_tests {
            self.frag.depth = None;
        }
        if let Some(z) = self.frag.depth {
            let z = self.in_reg(z);
            self.push(Instr::new(
                Op::ZsEmit {
                    z: true,
                    stencil: false,
                },
                Some(Dst::Phys(60)),
                vec![z, z, coverage],
            ));
        }
        let mut render_targets = Vec::new();
        // A second colour takes r4–r7 at render target 0's BLEND: the
        // first colour is then not sent from a preload's registers.
        let second = self.frag.second_color.take();
        let single = self.frag.colors.len() == 1 && second.is_none();
        let colors = std::mem::take(&mut self.frag.colors);
        let mut colours_ready = Vec::new();
        for (&rt, lanes) in &colors {
            let preloaded = if single {
                self.preloaded_prefix(lanes)
            } else {
                None
            };
            if let Some((first, n)) = preloaded {
                for (c, lane) in lanes.iter().enumerate().skip(usize::from(n)) {
                    self.push(Instr::new(
                        Op::MovI32,
                        Some(Dst::Phys(first + c as u8)),
                        vec![lane.unwrap_or(ZERO)],
                    ));
                }
                render_targets.push(self.blend(rt, Src::Phys(first), coverage, lanes));
                continue;
            }
            let v = match self.loaded_prefix(lanes) {
                // The loaded components are the colour's first ones: fill
                // the unloaded rest of the load's registers.
                Some((v, n)) => {
                    for (c, lane) in lanes.iter().enumerate().skip(usize::from(n)) {
                        let r = Reg {
                            index: v,
                            comp: c as u8,
                        };
                        self.mov_to(r, lane.unwrap_or(ZERO), true);
                    }
                    v
                }
                None => {
                    let v = self.new_vreg(4);
                    for (c, lane) in lanes.iter().enumerate() {
                        let r = Reg {
                            index: v,
                            comp: c as u8,
                        };
                        self.mov_to(r, lane.unwrap_or(ZERO), c > 0);
                    }
                    v
                }
            };
            colours_ready.push((rt, Src::Reg(Reg { index: v, comp: 0 }), lanes));
        }
        // Every colour is gathered before the first BLEND: a blend shader
        // it calls may overwrite r0–r15, where a later colour might still
        // be read from (a v7 message preload).
        for (rt, colour, lanes) in colours_ready {
            // Dual-source blending (Mesa's `bi_emit_fragment_out`: "putting
            // the color in registers r4-r7"): the second colour goes to
            // r4–r7 right before target 0's BLEND, where the blend shader
            // it calls reads it (Mesa's Bifrost compiler README: r4–r7
            // colour 1). The register allocator keeps every value live
            // across these moves out of the registers they write
            // (`ra::interference`), the first colour included; the DAG
            // keeps the BLEND after them. A target 0 without blend shader
            // ignores the registers.
            if rt == 0
                && let Some(second) = second
            {
                for (c, lane) in second.iter().enumerate() {
                    self.push(Instr::new(
                        Op::MovI32,
                        Some(Dst::Phys(4 + c as u8)),
                        vec![lane.unwrap_or(ZERO)],
                    ));
                }
            }
            render_targets.push(self.blend(rt, colour, coverage, lanes));
        }
        let writes_depth = self.frag.depth.is_some();
        let early = self.s.info.early_fragment_tests;
        let writes_sample_mask = self.frag.sample_mask.is_some();
        // A `Sample`-decorated input asks for sample shading too (the
        // Vulkan spec lets it: "Interpolation Decorations", Sample).
        let sample_shading = self.frag.sample_shading
            || self.s.inputs.iter().any(|i| i.sampling == Sampling::Sample);
        Ok(FragmentInfo {
            preloads: self.frag.preloads,
            render_targets,
            writes_depth,
            can_discard: self.frag.can_discard,
            reads_frag_coord: self.frag.reads_frag_coord,
            reads_front_facing: self.frag.reads_front_facing,
            reads_point_coord: self.frag.reads_point_coord,
            early_fragment_tests: early,
            early_z_allowed: early
                || !(writes_depth || self.frag.can_discard || writes_sample_mask),
            writes_sample_mask,
            sample_shading,
            varyings: self.frag.varyings.values().copied().collect(),
            messages: self.frag.messages.clone(),
            // Known once the clauses are formed (`bifrost::compile`).
            wait_dependency_6: false,
            wait_dependency_7: false,
        })
    }
}
