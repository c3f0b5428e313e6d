//! Intrinsics: preloaded system values, buffer addresses, loads and stores
//! (global, shared, uniform buffers, thread-local), vertex attributes and
//! varying stores.

use super::*;

impl Isel<'_> {
    pub(super) fn preload(&mut self, sv: SysVal) -> Result<Vec<Src>, CompileError> {
        let vertex = self.s.stage == Stage::Vertex;
        Ok(match sv {
            SysVal::RawVertexId | SysVal::XfbInvocation if vertex => {
                self.preloads.vertex_id = true;
                vec![Src::Phys(61)]
            }
            SysVal::InstanceId if vertex => {
                self.preloads.instance_id = true;
                vec![Src::Phys(62)]
            }
            SysVal::LocalInvocationId if !vertex => {
                self.preloads.local_invocation_xy = true;
                self.preloads.local_invocation_z = true;
                let x = self.shift(ShiftOp::LshiftAnd, Src::Phys(55), Src::Imm(0xffff), ZERO);
                let y = self.shift(ShiftOp::RshiftOr, Src::Phys(55), ZERO, Src::Imm(16));
                vec![x, y, Src::Phys(56)]
            }
            SysVal::WorkgroupId if !vertex => {
                self.preloads.workgroup = [true; 3];
                vec![Src::Phys(57), Src::Phys(58), Src::Phys(59)]
            }
            SysVal::GlobalInvocationId if !vertex => {
                self.preloads.global_invocation = [true; 3];
                vec![Src::Phys(60), Src::Phys(61), Src::Phys(62)]
            }
            sv => {
                return Err(unsupported(format!(
                    "system value {sv:?} in a {:?} shader (run lower_sysvals first)",
                    self.s.stage
                )));
            }
        })
    }

    /// The FAU word holding the bound size of buffer (set, binding) (low
    /// 32 bits; `ShaderBinary::buffers` marks it with `BUFFER_SIZE_WORD`).
    pub(super) fn buffer_size(&mut self, set: u32, binding: u32) -> Result<Src, CompileError> {
        Ok(self.buffer_address(set | BUFFER_SIZE_WORD, binding)?[0])
    }

    /// The FAU word holding the base address of buffer (set, binding).
    pub(super) fn buffer_address(
        &mut self,
        set: u32,
        binding: u32,
    ) -> Result<Vec<Src>, CompileError> {
        let i = match self.buffers.iter().position(|&b| b == (set, binding)) {
            Some(i) => i,
            None => {
                self.buffers.push((set, binding));
                self.buffers.len() - 1
            }
        };
        let word = self.uniform_base + i as u32;
        let word = u8::try_from(word)
            .ok()
            .filter(|&w| w < 128)
            .ok_or_else(|| unsupported("more than 128 FAU words"))?;
        Ok(vec![
            Src::Uniform { word, high: false },
            Src::Uniform { word, high: true },
        ])
    }

    /// The UBO table index of (set, binding) (`Options::ubo_table`).
    fn ubo_index(&mut self, set: u32, binding: u32) -> Result<u32, CompileError> {
        let i = match self.ubos.iter().position(|&b| b == (set, binding)) {
            Some(i) => i,
            None => {
                self.ubos.push((set, binding));
                self.ubos.len() - 1
            }
        };
        // The renderer state's `Uniform buffer count` is 8 bits wide.
        if i >= 255 {
            return Err(unsupported("more than 255 uniform buffers"));
        }
        Ok(i as u32)
    }

    /// `addr` (lo, hi; hi unused for WLS; the table index for a UBO) plus
    /// a constant byte offset.
    pub(super) fn offset_address(&mut self, addr: &[Src], seg: Seg, offset: u32) -> Vec<Src> {
        if offset == 0 {
            addr.to_vec()
        } else if seg == Seg::Wls {
            vec![self.emit(Op::IaddS32, &[addr[0], Src::Imm(offset)]), ZERO]
        } else if seg == Seg::Ubo {
            vec![
                self.emit(Op::IaddS32, &[addr[0], Src::Imm(offset)]),
                addr[1],
            ]
        } else {
            self.add64(addr, &[Src::Imm(offset), ZERO])
        }
    }

    /// Global or shared load of `ty` at `addr` (lo, hi); returns lanes.
    pub(super) fn load(
        &mut self,
        ty: ir::ValueType,
        addr: Vec<Src>,
        seg: Seg,
    ) -> Result<Vec<Src>, CompileError> {
        let per = lanes_per_comp(ty)?;
        if matches!(ty.bits, 8 | 16) {
            // One zero-extending LOAD.i8/.i16 per component.
            let bytes = ty.bits / 8;
            let mut lanes = Vec::with_capacity(ty.comps as usize);
            for c in 0..u32::from(ty.comps) {
                let a = self.offset_address(&addr, seg, c * u32::from(bytes));
                let v = self.new_vreg(1);
                let op = Op::Load { bytes, seg };
                let srcs = self.legalize(op, &a);
                self.push(Instr::new(
                    op,
                    Some(Dst::Reg(Reg { index: v, comp: 0 })),
                    srcs,
                ));
                lanes.push(Src::Reg(Reg { index: v, comp: 0 }));
            }
            return Ok(lanes);
        }
        let total = per * ty.comps as usize;
        let mut lanes = Vec::with_capacity(total);
        let mut done = 0;
        while done < total {
            let n = (total - done).min(4);
            let a = self.offset_address(&addr, seg, 4 * done as u32);
            let v = self.new_vreg(n as u8);
            let srcs = self.legalize(Op::Load { bytes: 4, seg }, &a);
            self.push(Instr::new(
                Op::Load {
                    bytes: 4 * n as u8,
                    seg,
                },
                Some(Dst::Reg(Reg { index: v, comp: 0 })),
                srcs,
            ));
            lanes.extend((0..n).map(|c| {
                Src::Reg(Reg {
                    index: v,
                    comp: c as u8,
                })
            }));
            done += n;
        }
        if ty.bits == 1 {
            lanes = lanes
                .into_iter()
                .map(|l| self.icmp(IcmpType::I32, Cmp::Ne, l, ZERO))
                .collect();
        }
        Ok(lanes)
    }

    pub(super) fn store(
        &mut self,
        ty: ir::ValueType,
        data: Vec<Src>,
        addr: Vec<Src>,
        seg: Seg,
    ) -> Result<(), CompileError> {
        if matches!(ty.bits, 8 | 16) {
            // One STORE.i8/.i16 per component (the low bits of its lane).
            let bytes = ty.bits / 8;
            for (c, &d) in data.iter().enumerate() {
                let a = self.offset_address(&addr, seg, c as u32 * u32::from(bytes));
                let v = self.new_reg();
                self.mov_to(v, d, false);
                let op = Op::Store { bytes, seg };
                let mut srcs = vec![Src::Reg(v)];
                srcs.extend(self.legalize(op, &a));
                self.push(Instr::new(op, None, srcs));
            }
            return Ok(());
        }
        lanes_per_comp(ty)?;
        let data: Vec<Src> = if ty.bits == 1 {
            data.into_iter()
                .map(|l| self.shift(ShiftOp::LshiftAnd, l, Src::Imm(1), ZERO))
                .collect()
        } else {
            data
        };
        let mut done = 0;
        while done < data.len() {
            let n = (data.len() - done).min(4);
            let a = self.offset_address(&addr, seg, 4 * done as u32);
            let v = self.staging(&data[done..done + n]);
            let op = Op::Store {
                bytes: 4 * n as u8,
                seg,
            };
            let mut srcs = vec![Src::Reg(Reg { index: v, comp: 0 })];
            srcs.extend(self.legalize(op, &a));
            self.push(Instr::new(op, None, srcs));
            done += n;
        }
        Ok(())
    }

    pub(super) fn attribute(
        &mut self,
        ty: ir::ValueType,
        location: u32,
        component: u8,
        vertex: Src,
        instance: Src,
    ) -> Result<Vec<Src>, CompileError> {
        if ty.bits != 32 {
            return Err(unsupported(format!("{}-bit vertex attributes", ty.bits)));
        }
        let n = component + ty.comps;
        if n > 4 {
            return Err(CompileError::Malformed(
                "attribute beyond 4 components".into(),
            ));
        }
        self.attribute_count = self.attribute_count.max(location + 1);
        let v = self.new_vreg(n);
        let dst = Some(Dst::Reg(Reg { index: v, comp: 0 }));
        let vertex = self.in_reg(vertex);
        let instance = self.in_reg(instance);
        if location < 16 {
            let op = Op::LdAttrImm {
                index: location as u8,
                comps: n,
            };
            self.push(Instr::new(op, dst, [vertex, instance]));
        } else {
            let idx = self.in_reg(Src::Imm(location));
            self.push(Instr::new(
                Op::LdAttr { comps: n },
                dst,
                vec![vertex, instance, idx],
            ));
        }
        Ok((component..n)
            .map(|c| Src::Reg(Reg { index: v, comp: c }))
            .collect())
    }

    /// `store_output`: output `output` to varying record `output` of this
    /// vertex (LEA_ATTR with the preloaded ids), its lanes stored
    /// unconverted by ST_CVT (see `ShaderBinary::varyings`).
    pub(super) fn store_output(&mut self, output: u32, data: Vec<Src>) -> Result<(), CompileError> {
        let ty = self
            .s
            .outputs
            .get(output as usize)
            .ok_or_else(|| CompileError::Malformed(format!("output {output} does not exist")))?
            .ty;
        if !matches!(ty.bits, 32 | 64) {
            return Err(unsupported(format!("{}-bit outputs", ty.bits)));
        }
        let words = data.len();
        if !(1..=4).contains(&words) {
            return Err(unsupported(format!(
                "an output of {words} 32-bit words (at most 4 per varying)"
            )));
        }
        if let Some(&w) = self.varyings.get(&output)
            && usize::from(w) != words
        {
            return Err(CompileError::Malformed(format!(
                "output {output} stored with {w} and {words} words"
            )));
        }
        self.varyings.insert(output, words as u8);
        self.preloads.vertex_id = true;
        self.preloads.instance_id = true;
        let lea = self.new_vreg(3);
        let at = |comp| Reg { index: lea, comp };
        let ids = vec![Src::Phys(61), Src::Phys(62)];
        if output < 16 {
            let op = Op::LeaAttrImm {
                index: output as u8,
            };
            self.push(Instr::new(op, Some(Dst::Reg(at(0))), ids));
        } else {
            let idx = self.in_reg(Src::Imm(output));
            let mut srcs = ids;
            srcs.push(idx);
            self.push(Instr::new(Op::LeaAttr, Some(Dst::Reg(at(0))), srcs));
        }
        self.st_cvt(&data, lea);
        Ok(())
    }

    /// The vreg holding `data` (1–4 words) as a message's staging vector:
    /// `data` itself when it is a whole vector vreg in order (a loaded or
    /// built vector stored as it is), else a fresh one filled by moves.
    fn staging(&mut self, data: &[Src]) -> u32 {
        if let Some(&Src::Reg(Reg { index, comp: 0 })) = data.first()
            && usize::from(self.vreg_sizes[index as usize]) == data.len()
            && data.iter().enumerate().all(|(c, &d)| {
                d == Src::Reg(Reg {
                    index,
                    comp: c as u8,
                })
            })
        {
            return index;
        }
        let v = self.new_vreg(data.len() as u8);
        for (c, &d) in data.iter().enumerate() {
            let r = Reg {
                index: v,
                comp: c as u8,
            };
            self.mov_to(r, d, c > 0);
        }
        v
    }

    /// `ST_CVT` of `data` (1–4 words, gathered into one staging vector) at
    /// the address and conversion word in the three registers of `lea`
    /// (a `LEA_ATTR*`/`LEA_ATTR_TEX` result).
    pub(super) fn st_cvt(&mut self, data: &[Src], lea: u32) {
        let v = self.staging(data);
        let at = |comp| Src::Reg(Reg { index: lea, comp });
        let srcs = vec![Src::Reg(Reg { index: v, comp: 0 }), at(0), at(1), at(2)];
        let comps = data.len() as u8;
        self.push(Instr::new(Op::StCvt { comps }, None, srcs));
    }

    /// The operand width of an atomic intrinsic (source 1).
    pub(super) fn atomic_bits(&self, intr: &ir::OpIntrinsic) -> Result<u8, CompileError> {
        match (intr.srcs.get(1), intr.srcs.first()) {
            (Some(v), Some(_)) => Ok(self.s.ty(*v).bits),
            _ => Err(CompileError::Malformed("atomic without operands".into())),
        }
    }

    pub(super) fn intrinsic(
        &mut self,
        intr: &ir::OpIntrinsic,
        dst: Option<Value>,
    ) -> Result<(), CompileError> {
        let need_dst = || dst.ok_or_else(|| CompileError::Malformed("load without dst".into()));
        let args: Vec<SrcList> = intr
            .srcs
            .iter()
            .map(|s| self.src(*s))
            .collect::<Result<_, _>>()?;
        match intr.kind {
            Intrinsic::LoadUniform { offset } => {
                let d = need_dst()?;
                let ty = self.s.ty(d);
                let n = lanes_per_comp(ty)? * ty.comps as usize;
                if offset % 4 != 0 {
                    return Err(unsupported("unaligned load_uniform"));
                }
                let mut lanes = Vec::new();
                for i in 0..n as u32 {
                    let w = offset / 4 + i;
                    let word = u8::try_from(w / 2)
                        .ok()
                        .filter(|&w| w < 128)
                        .ok_or_else(|| unsupported("more than 128 FAU words"))?;
                    let u = Src::Uniform {
                        word,
                        high: w % 2 == 1,
                    };
                    lanes.push(if ty.bits == 1 {
                        self.icmp(IcmpType::I32, Cmp::Ne, u, ZERO)
                    } else {
                        u
                    });
                }
                self.define(d, lanes);
            }
            Intrinsic::LoadSysVal(
                sv @ (SysVal::FragCoord
                | SysVal::FrontFacing
                | SysVal::PointCoord
                | SysVal::SampleId
                | SysVal::SamplePosition
                | SysVal::SampleMaskIn),
            ) => {
                let d = need_dst()?;
                if self.s.stage != Stage::Fragment {
                    return Err(unsupported(format!("{sv:?} outside a fragment shader")));
                }
                let lanes = self.fragment_sysval(sv)?;
                let n = self.s.ty(d).comps as usize;
                self.define(d, lanes.into_iter().take(n).collect::<SrcList>());
            }
            Intrinsic::LoadSysVal(sv) => {
                let d = need_dst()?;
                let lanes = self.preload(sv)?;
                let n = self.s.ty(d).comps as usize;
                self.define(d, lanes.into_iter().take(n).collect::<SrcList>());
            }
            Intrinsic::LoadGlobal => {
                let d = need_dst()?;
                let lanes = self.load(self.s.ty(d), args[0].to_vec(), Seg::None)?;
                self.define(d, lanes);
            }
            Intrinsic::StoreGlobal => {
                let ty = self.s.ty(intr.srcs[0]);
                self.store(ty, args[0].to_vec(), args[1].to_vec(), Seg::None)?;
            }
            Intrinsic::LoadShared => {
                let d = need_dst()?;
                let lanes = self.load(self.s.ty(d), vec![args[0][0], ZERO], Seg::Wls)?;
                self.define(d, lanes);
            }
            Intrinsic::StoreShared => {
                let ty = self.s.ty(intr.srcs[0]);
                self.store(ty, args[0].to_vec(), vec![args[1][0], ZERO], Seg::Wls)?;
            }
            Intrinsic::LoadUbo { set, binding } if self.ubo_table => {
                let d = need_dst()?;
                let index = self.ubo_index(set, binding)?;
                let addr = vec![args[0][0], Src::Imm(index)];
                let lanes = self.load(self.s.ty(d), addr, Seg::Ubo)?;
                self.define(d, lanes);
            }
            Intrinsic::LoadUbo { set, binding } | Intrinsic::LoadSsbo { set, binding } => {
                let d = need_dst()?;
                let base = self.buffer_address(set, binding)?;
                let addr = self.add64(&base, &[args[0][0], ZERO]);
                let lanes = self.load(self.s.ty(d), addr, Seg::None)?;
                self.define(d, lanes);
            }
            Intrinsic::BufferSize { set, binding } => {
                let d = need_dst()?;
                let size = self.buffer_size(set, binding)?;
                self.define(d, [size]);
            }
            Intrinsic::TextureSize { set, binding } => {
                let d = need_dst()?;
                let word = self.buffer_address(set | TEXTURE_SIZE_WORD, binding)?;
                self.define(d, word);
            }
            Intrinsic::StoreSsbo { set, binding } => {
                let ty = self.s.ty(intr.srcs[0]);
                let base = self.buffer_address(set, binding)?;
                let addr = self.add64(&base, &[args[1][0], ZERO]);
                self.store(ty, args[0].to_vec(), addr, Seg::None)?;
            }
            Intrinsic::SsboAtomic { set, binding, op } => {
                let base = self.buffer_address(set, binding)?;
                let addr = self.add64(&base, &[args[0][0], ZERO]);
                let bits = self.atomic_bits(intr)?;
                let addr = atomics::AtomicAddress::Global(addr);
                self.atomic(op, addr, &args[1..], bits, dst)?;
            }
            Intrinsic::GlobalAtomic { op } => {
                let bits = self.atomic_bits(intr)?;
                let addr = atomics::AtomicAddress::Global(args[0].to_vec());
                self.atomic(op, addr, &args[1..], bits, dst)?;
            }
            Intrinsic::SharedAtomic { op } => {
                let bits = self.atomic_bits(intr)?;
                let addr = atomics::AtomicAddress::Shared(args[0][0]);
                self.atomic(op, addr, &args[1..], bits, dst)?;
            }
            Intrinsic::Barrier => {
                self.uses_barrier = true;
                self.push(Instr::new(Op::Barrier, None, []));
            }
            Intrinsic::LoadAttribute {
                location,
                component,
            } => {
                let d = need_dst()?;
                let lanes =
                    self.attribute(self.s.ty(d), location, component, args[0][0], args[1][0])?;
                self.define(d, lanes);
            }
            Intrinsic::LoadInput {
                location,
                component,
            } if self.s.stage == Stage::Vertex => {
                let d = need_dst()?;
                self.preloads.vertex_id = true;
                self.preloads.instance_id = true;
                let lanes = self.attribute(
                    self.s.ty(d),
                    location,
                    component,
                    Src::Phys(61),
                    Src::Phys(62),
                )?;
                self.define(d, lanes);
            }
            Intrinsic::StoreOutput { output } if self.s.stage == Stage::Vertex => {
                self.store_output(output, args[0].to_vec())?;
            }
            Intrinsic::LoadInput {
                location,
                component,
            } if self.s.stage == Stage::Fragment => {
                let d = need_dst()?;
                let lanes = self.load_varying(self.s.ty(d), location, component)?;
                self.define(d, lanes);
            }
            Intrinsic::StoreOutput { output } if self.s.stage == Stage::Fragment => {
                self.store_fragment_output(output, args[0].to_vec())?;
            }
            Intrinsic::Discard if self.s.stage == Stage::Fragment => self.discard(),
            Intrinsic::Derivative { axis, coarse } if self.s.stage == Stage::Fragment => {
                let d = need_dst()?;
                let r = self.derivative(args[0][0], axis, coarse);
                self.define(d, [r]);
            }
            Intrinsic::Texture { .. } => {
                let d = need_dst()?;
                self.texture(intr.kind, &args, d)?;
            }
            Intrinsic::ImageLoad { .. } => {
                let d = need_dst()?;
                self.image_load(intr.kind, &args, d)?;
            }
            Intrinsic::ImageStore { .. } => self.image_store(intr.kind, &args)?,
            Intrinsic::ImageAtomic { .. } => self.image_atomic(intr.kind, &args, dst)?,
            k => return Err(unsupported(format!("intrinsic {k:?}"))),
        }
        Ok(())
    }
}
