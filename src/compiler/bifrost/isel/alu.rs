//! ALU operations: IR ALU ops to backend instructions per 32-bit lane,
//! 8/16-bit conversions, shifts, compares and selects.

use super::*;

impl Isel<'_> {
    pub(super) fn alu(
        &mut self,
        op: AluOp,
        d: Value,
        srcs: &[Value],
    ) -> Result<SrcList, CompileError> {
        let dty = self.s.ty(d);
        let sty = srcs.first().map(|s| self.s.ty(*s)).unwrap_or(dty);
        // Up to four sources in place (every ALU op has at most three; a
        // list per instruction was a measurable share of compile time).
        let mut args_inline: [SrcList; 4] = Default::default();
        let args_heap: Vec<SrcList>;
        let args: &[SrcList] = if srcs.len() <= args_inline.len() {
            for (slot, s) in args_inline.iter_mut().zip(srcs) {
                *slot = self.src(*s)?;
            }
            &args_inline[..srcs.len()]
        } else {
            args_heap = srcs
                .iter()
                .map(|s| self.src(*s))
                .collect::<Result<_, _>>()?;
            &args_heap
        };
        if let Some(first) = args.first()
            && let Some(lanes) = self.pack_unpack(op, first)?
        {
            return Ok(lanes.into());
        }
        let comps = dty.comps as usize;
        let small = |b: u8| matches!(b, 8 | 16);
        if small(sty.bits) || small(dty.bits) {
            return self.small_convert(op, dty, sty, &args[0]);
        }
        if op == AluOp::Bitcast {
            // Same bits, regrouped: lanes are 32-bit either way.
            if !matches!(dty.bits, 32 | 64) || !matches!(sty.bits, 32 | 64) {
                return Err(unsupported(format!(
                    "bitcast {}-bit → {}-bit",
                    sty.bits, dty.bits
                )));
            }
            return Ok(args[0].clone());
        }
        // Lanes per component of each source.
        let per: InlineVec<usize, 4> = srcs
            .iter()
            .map(|s| lanes_per_comp(self.s.ty(*s)))
            .collect::<Result<_, _>>()?;
        for (k, lanes) in args.iter().enumerate() {
            if lanes.len() < per[k] {
                return Err(CompileError::Malformed(format!(
                    "{}: source {k} has {} lanes, its type needs {}",
                    op.name(),
                    lanes.len(),
                    per[k]
                )));
            }
        }
        let mut out = SrcList::new();
        for c in 0..comps {
            let a = |k: usize| -> SrcList {
                let p = per[k];
                // Scalar sources broadcast (shift counts).
                let cc = if args[k].len() / p > c { c } else { 0 };
                SrcList::from(&args[k][cc * p..cc * p + p])
            };
            out.extend(self.alu_comp(op, dty, sty, &a)?);
        }
        Ok(out)
    }

    /// Moves and integer conversions from or to 8/16-bit values, which
    /// live zero-extended in one 32-bit lane per component.
    pub(super) fn small_convert(
        &mut self,
        op: AluOp,
        dty: ir::ValueType,
        sty: ir::ValueType,
        src: &[Src],
    ) -> Result<SrcList, CompileError> {
        let per = lanes_per_comp(sty)?;
        let bad = || {
            unsupported(format!(
                "{} on {}-bit → {}-bit values",
                op.name(),
                sty.bits,
                dty.bits
            ))
        };
        let mut out = SrcList::new();
        for c in 0..dty.comps as usize {
            let x = *src.get(c * per).ok_or_else(|| {
                CompileError::Malformed(format!("{}: source too short", op.name()))
            })?;
            match op {
                AluOp::Mov => out.push(x),
                // Widening: the lane is already zero-extended.
                AluOp::U2u if dty.bits > sty.bits => {
                    out.push(x);
                    if dty.bits == 64 {
                        out.push(ZERO);
                    }
                }
                AluOp::I2i if dty.bits > sty.bits => {
                    let k = Src::Imm(32 - u32::from(sty.bits));
                    let up = self.shift(ShiftOp::LshiftOr, x, ZERO, k);
                    let v = self.emit(Op::ArshiftI32, &[up, ZERO, k]);
                    out.push(v);
                    if dty.bits == 64 {
                        out.push(self.emit(Op::ArshiftI32, &[v, ZERO, Src::Imm(31)]));
                    }
                }
                // Truncation keeps the lane zero-extended.
                AluOp::I2i | AluOp::U2u if dty.bits < sty.bits => {
                    let m = Src::Imm((1u32 << dty.bits) - 1);
                    out.push(self.shift(ShiftOp::LshiftAnd, x, m, ZERO));
                }
                AluOp::I2i | AluOp::U2u => out.push(x),
                // Half ↔ float (16-bit storage): `F16_TO_F32` widens the
                // lane's low half exactly; `V2F32_TO_V2F16` rounds to
                // nearest even (what OpFConvert without a rounding mode
                // allows), a zero in the high half keeps the lane
                // zero-extended.
                AluOp::F2f if (sty.bits, dty.bits) == (16, 32) => {
                    out.push(self.emit(Op::F16ToF32 { high: false }, &[x]));
                }
                AluOp::F2f if (sty.bits, dty.bits) == (32, 16) => {
                    out.push(self.emit(Op::V2F32ToV2F16, &[x, ZERO]));
                }
                AluOp::F2f if sty.bits == dty.bits => out.push(x),
                _ => return Err(bad()),
            }
        }
        Ok(out)
    }

    pub(super) fn shift(&mut self, op: ShiftOp, a: Src, b: Src, s: Src) -> Src {
        self.emit(
            Op::Shift {
                op,
                not1: false,
                not_result: false,
            },
            &[a, b, s],
        )
    }

    /// Shift count modulo 32.
    pub(super) fn shift_count(&mut self, s: Src) -> Src {
        match s {
            Src::Imm(v) => Src::Imm(v & 31),
            _ => self.shift(ShiftOp::LshiftAnd, s, Src::Imm(31), ZERO),
        }
    }

    pub(super) fn fadd(&mut self, a: Src, b: Src, neg: [bool; 2]) -> Src {
        self.emit(
            Op::FaddF32 {
                neg,
                abs: [false; 2],
                clamp01: false,
            },
            &[a, b],
        )
    }

    pub(super) fn icmp(&mut self, ty: IcmpType, cmp: Cmp, a: Src, b: Src) -> Src {
        self.emit(Op::Icmp { ty, cmp }, &[a, b])
    }

    pub(super) fn mux(&mut self, if_zero: Src, if_nonzero: Src, c: Src) -> Src {
        self.emit(Op::MuxI32, &[if_zero, if_nonzero, c])
    }

    pub(super) fn alu_comp(
        &mut self,
        op: AluOp,
        dty: ir::ValueType,
        sty: ir::ValueType,
        a: &dyn Fn(usize) -> SrcList,
    ) -> Result<SrcList, CompileError> {
        use AluOp::*;
        let wide = sty.bits == 64;
        let bits_ok = |b: u8| matches!(b, 1 | 32);
        let x = a(0);
        let s0 = x[0];
        let bad = || unsupported(format!("{} on {}-bit values", op.name(), sty.bits));
        // Bitwise ops and selects work lane by lane at any width.
        match op {
            Mov => return Ok(x),
            Iand | Ior | Ixor => {
                let y = a(1);
                let sop = match op {
                    Iand => ShiftOp::LshiftAnd,
                    Ior => ShiftOp::LshiftOr,
                    _ => ShiftOp::LshiftXor,
                };
                return Ok(x
                    .iter()
                    .zip(&y)
                    .map(|(&p, &q)| self.shift(sop, p, q, ZERO))
                    .collect());
            }
            Inot => {
                return Ok(x
                    .iter()
                    .map(|&p| {
                        self.emit(
                            Op::Shift {
                                op: ShiftOp::LshiftOr,
                                not1: false,
                                not_result: true,
                            },
                            &[p, ZERO, ZERO],
                        )
                    })
                    .collect());
            }
            Bcsel => {
                let c = self.truth(x[0]);
                let (t, f) = (a(1), a(2));
                return Ok(t.iter().zip(&f).map(|(&t, &f)| self.mux(f, t, c)).collect());
            }
            Bitcast => {
                if dty.bits != sty.bits && !(bits_ok(dty.bits) || dty.bits == 64) {
                    return Err(bad());
                }
                return Ok(x);
            }
            _ => {}
        }
        // Bifrost has no fp64 (the driver does not advertise shaderFloat64).
        let f64_src = sty.bits == 64 && op.name().starts_with('f');
        let f64_dst = dty.bits == 64 && matches!(op, I2f | U2f | B2f | F2f);
        if f64_src || f64_dst {
            return Err(unsupported(format!(
                "{} on f64 (64-bit float): Bifrost has no fp64 arithmetic",
                op.name()
            )));
        }
        if wide {
            return Ok(match op {
                Iadd => self.add64(&x, &a(1)).into(),
                Isub => self.sub64(&x, &a(1)).into(),
                Ineg => self.sub64(&[ZERO, ZERO], &x).into(),
                Imul => self.mul64(&x, &a(1)).into(),
                Ishl | Ishr | Ushr => self.shift64(op, &x, a(1)[0]).into(),
                Ieq | Ine => {
                    let y = a(1);
                    let lo = self.icmp(IcmpType::I32, Cmp::Eq, x[0], y[0]);
                    let hi = self.icmp(IcmpType::I32, Cmp::Eq, x[1], y[1]);
                    let both = self.shift(ShiftOp::LshiftAnd, lo, hi, ZERO);
                    if op == Ieq {
                        SrcList::from([both])
                    } else {
                        SrcList::from([self.emit(
                            Op::Shift {
                                op: ShiftOp::LshiftOr,
                                not1: false,
                                not_result: true,
                            },
                            &[both, ZERO, ZERO],
                        )])
                    }
                }
                Imin | Imax | Umin | Umax => {
                    let y = a(1);
                    let lt = self.lt64(&x, &y, matches!(op, Imin | Imax));
                    let (if_lt, if_not) = if matches!(op, Imin | Umin) {
                        (x, y)
                    } else {
                        (y, x)
                    };
                    SrcList::from([
                        self.mux(if_not[0], if_lt[0], lt),
                        self.mux(if_not[1], if_lt[1], lt),
                    ])
                }
                Ult | Uge | Ilt | Ige => {
                    let lt = self.lt64(&x, &a(1), matches!(op, Ilt | Ige));
                    if matches!(op, Ult | Ilt) {
                        SrcList::from([lt])
                    } else {
                        SrcList::from([self.emit(
                            Op::Shift {
                                op: ShiftOp::LshiftOr,
                                not1: false,
                                not_result: true,
                            },
                            &[lt, ZERO, ZERO],
                        )])
                    }
                }
                I2i | U2u if dty.bits == 32 => SrcList::from([x[0]]),
                I2i | U2u if dty.bits == 64 => x,
                I2b => {
                    let or = self.shift(ShiftOp::LshiftOr, x[0], x[1], ZERO);
                    SrcList::from([self.icmp(IcmpType::I32, Cmp::Ne, or, ZERO)])
                }
                _ => return Err(bad()),
            });
        }
        if !bits_ok(sty.bits) {
            return Err(bad());
        }
        let r = match op {
            Iadd => self.emit(Op::IaddS32, &[s0, a(1)[0]]),
            Isub => self.emit(Op::IsubS32, &[s0, a(1)[0]]),
            // A power of two is a shift (which `peephole` can fuse with a
            // mask or a logic op; `IMUL` fuses with nothing).
            Imul => match (s0, a(1)[0]) {
                (x, Src::Imm(c)) | (Src::Imm(c), x) if c.is_power_of_two() => {
                    self.shift(ShiftOp::LshiftOr, x, ZERO, Src::Imm(c.trailing_zeros()))
                }
                (x, y) => self.emit(Op::ImulI32, &[x, y]),
            },
            UmulHigh => self.umul_high(s0, a(1)[0]),
            Ineg => self.emit(Op::IsubS32, &[ZERO, s0]),
            Iabs => self.emit(Op::IabsS32, &[s0]),
            Imin | Imax | Umin | Umax => {
                let b = a(1)[0];
                let ty = if matches!(op, Imin | Imax) {
                    IcmpType::S32
                } else {
                    IcmpType::U32
                };
                let lt = self.icmp(ty, Cmp::Lt, s0, b);
                // lt ? a : b for min, lt ? b : a for max
                if matches!(op, Imin | Umin) {
                    self.mux(b, s0, lt)
                } else {
                    self.mux(s0, b, lt)
                }
            }
            Ishl | Ishr | Ushr => {
                let n = self.shift_count(a(1)[0]);
                match op {
                    Ishl => self.shift(ShiftOp::LshiftOr, s0, ZERO, n),
                    Ushr => self.shift(ShiftOp::RshiftOr, s0, ZERO, n),
                    _ => self.emit(Op::ArshiftI32, &[s0, ZERO, n]),
                }
            }
            Udiv | Umod => {
                let (q, r) = self.udivmod(s0, a(1)[0]);
                if op == Udiv { q } else { r }
            }
            Idiv | Irem | Imod => {
                let y = a(1)[0];
                let ax = self.emit(Op::IabsS32, &[s0]);
                let ay = match y {
                    Src::Imm(c) => Src::Imm((c as i32).unsigned_abs()),
                    _ => self.emit(Op::IabsS32, &[y]),
                };
                let (q, r) = self.udivmod(ax, ay);
                let xneg = self.icmp(IcmpType::S32, Cmp::Lt, s0, ZERO);
                match op {
                    Idiv => {
                        // Negate when the signs differ; x / 0 = -1.
                        let diff = self.shift(ShiftOp::LshiftXor, s0, y, ZERO);
                        let dneg = self.icmp(IcmpType::S32, Cmp::Lt, diff, ZERO);
                        let nq = self.emit(Op::IsubS32, &[ZERO, q]);
                        let q = self.mux(q, nq, dneg);
                        let y0 = self.icmp(IcmpType::I32, Cmp::Eq, y, ZERO);
                        self.mux(q, Src::Imm(u32::MAX), y0)
                    }
                    _ => {
                        // Remainder with the dividend's sign (x % 0 = x).
                        let nr = self.emit(Op::IsubS32, &[ZERO, r]);
                        let rem = self.mux(r, nr, xneg);
                        if op == Irem {
                            rem
                        } else {
                            // Modulo: add y when rem != 0 and its sign differs from y's.
                            let diff = self.shift(ShiftOp::LshiftXor, rem, y, ZERO);
                            let dneg = self.icmp(IcmpType::S32, Cmp::Lt, diff, ZERO);
                            let nz = self.icmp(IcmpType::I32, Cmp::Ne, rem, ZERO);
                            let fix = self.shift(ShiftOp::LshiftAnd, dneg, nz, ZERO);
                            let sum = self.emit(Op::IaddS32, &[rem, y]);
                            self.mux(rem, sum, fix)
                        }
                    }
                }
            }
            UbitfieldExtract | IbitfieldExtract | BitfieldInsert => {
                // off = min(offset, 32), cnt = min(count, 32 - off) (eval.rs);
                // shifts by 32 give 0 on Bifrost, so (1 << 32) - 1 is all ones.
                let (o_src, c_src) = if op == BitfieldInsert {
                    (a(2)[0], a(3)[0])
                } else {
                    (a(1)[0], a(2)[0])
                };
                let umin = |s: &mut Self, x: Src, y: Src| {
                    let lt = s.icmp(IcmpType::U32, Cmp::Lt, x, y);
                    s.mux(y, x, lt)
                };
                let off = umin(self, o_src, Src::Imm(32));
                let room = self.emit(Op::IsubS32, &[Src::Imm(32), off]);
                let cnt = umin(self, c_src, room);
                let one_shl = self.shift(ShiftOp::LshiftOr, Src::Imm(1), ZERO, cnt);
                let mask = self.emit(Op::IsubS32, &[one_shl, Src::Imm(1)]);
                match op {
                    UbitfieldExtract => {
                        let sh = self.shift(ShiftOp::RshiftOr, s0, ZERO, off);
                        self.shift(ShiftOp::LshiftAnd, sh, mask, ZERO)
                    }
                    IbitfieldExtract => {
                        let left = self.emit(Op::IsubS32, &[room, cnt]);
                        let up = self.shift(ShiftOp::LshiftOr, s0, ZERO, left);
                        let right = self.emit(Op::IsubS32, &[Src::Imm(32), cnt]);
                        let v = self.emit(Op::ArshiftI32, &[up, ZERO, right]);
                        let zero_cnt = self.icmp(IcmpType::I32, Cmp::Eq, cnt, ZERO);
                        self.mux(v, ZERO, zero_cnt)
                    }
                    _ => {
                        let fmask = self.shift(ShiftOp::LshiftOr, mask, ZERO, off);
                        let ins = self.shift(ShiftOp::LshiftOr, a(1)[0], ZERO, off);
                        let ins = self.shift(ShiftOp::LshiftAnd, ins, fmask, ZERO);
                        let keep = self.emit(
                            Op::Shift {
                                op: ShiftOp::LshiftAnd,
                                not1: true,
                                not_result: false,
                            },
                            &[s0, fmask, ZERO],
                        );
                        self.shift(ShiftOp::LshiftOr, keep, ins, ZERO)
                    }
                }
            }
            Isign => {
                // (x >> 31 arithmetic) | ((-x) >> 31 logical)
                let neg = self.emit(Op::IsubS32, &[ZERO, s0]);
                let pos = self.shift(ShiftOp::RshiftOr, neg, ZERO, Src::Imm(31));
                let sign = self.emit(Op::ArshiftI32, &[s0, ZERO, Src::Imm(31)]);
                self.shift(ShiftOp::LshiftOr, sign, pos, ZERO)
            }
            Fsign => {
                // 1.0 if x > 0, -1.0 if x < 0, else +0.0 (zeros and NaN).
                let gt = self.emit(Op::Fcmp { cmp: Cmp::Gt }, &[s0, ZERO]);
                let lt = self.emit(Op::Fcmp { cmp: Cmp::Lt }, &[s0, ZERO]);
                let p = self.shift(ShiftOp::LshiftAnd, gt, Src::Imm(0x3f80_0000), ZERO);
                let n = self.shift(ShiftOp::LshiftAnd, lt, Src::Imm(0xbf80_0000), ZERO);
                self.shift(ShiftOp::LshiftOr, p, n, ZERO)
            }
            FindLsb => {
                // 31 - clz(x & -x): -1 for 0.
                let neg = self.emit(Op::IsubS32, &[ZERO, s0]);
                let low = self.shift(ShiftOp::LshiftAnd, s0, neg, ZERO);
                let clz = self.emit(Op::ClzU32, &[low]);
                self.emit(Op::IsubS32, &[Src::Imm(31), clz])
            }
            IfindMsb => {
                let sign = self.emit(Op::ArshiftI32, &[s0, ZERO, Src::Imm(31)]);
                let v = self.shift(ShiftOp::LshiftXor, s0, sign, ZERO);
                let clz = self.emit(Op::ClzU32, &[v]);
                self.emit(Op::IsubS32, &[Src::Imm(31), clz])
            }
            BitfieldReverse => self.emit(Op::BitrevI32, &[s0]),
            BitCount => self.emit(Op::PopcountI32, &[s0]),
            UfindMsb => {
                let clz = self.emit(Op::ClzU32, &[s0]);
                self.emit(Op::IsubS32, &[Src::Imm(31), clz])
            }
            Fadd => self.fadd(s0, a(1)[0], [false, false]),
            Fsub => self.fadd(s0, a(1)[0], [false, true]),
            Fmul => self.emit(
                Op::FmaF32 {
                    neg: [false, false, true],
                },
                &[s0, a(1)[0], ZERO],
            ),
            Ffma => self.emit(Op::FmaF32 { neg: [false; 3] }, &[s0, a(1)[0], a(2)[0]]),
            Frcp | Fdiv | Frsq | Fsqrt | Fexp2 | Flog2 | Fsin | Fcos | Fpow => {
                let y = matches!(op, Fdiv | Fpow).then(|| a(1)[0]);
                self.float_math(op, s0, y)?
            }
            Fneg => self.shift(ShiftOp::LshiftXor, s0, Src::Imm(0x8000_0000), ZERO),
            Fabs => self.shift(ShiftOp::LshiftAnd, s0, Src::Imm(0x7fff_ffff), ZERO),
            Fsat => self.emit(
                Op::FaddF32 {
                    neg: [false, true],
                    abs: [false; 2],
                    clamp01: true,
                },
                &[s0, ZERO],
            ),
            Fmin => self.emit(Op::FminF32, &[s0, a(1)[0]]),
            Fmax => self.emit(Op::FmaxF32, &[s0, a(1)[0]]),
            Ffloor | Fceil | Ftrunc | FroundEven => {
                let round = match op {
                    Ffloor => Round::Rtn,
                    Fceil => Round::Rtp,
                    Ftrunc => Round::Rtz,
                    _ => Round::Rte,
                };
                self.emit(Op::FroundF32 { round }, &[s0])
            }
            Ffract => {
                // x - floor(x) on the ADD unit: it pairs with the FROUND in
                // one tuple, reading it through `t` (Mesa's fract).
                let fl = self.emit(Op::FroundF32 { round: Round::Rtn }, &[s0]);
                self.emit(Op::FaddF32Add { neg: [false, true] }, &[s0, fl])
            }
            Ieq | Ine | Ilt | Ige | Ult | Uge => {
                let (ty, cmp) = match op {
                    Ieq => (IcmpType::I32, Cmp::Eq),
                    Ine => (IcmpType::I32, Cmp::Ne),
                    Ilt => (IcmpType::S32, Cmp::Lt),
                    Ige => (IcmpType::S32, Cmp::Ge),
                    Ult => (IcmpType::U32, Cmp::Lt),
                    _ => (IcmpType::U32, Cmp::Ge),
                };
                self.icmp(ty, cmp, s0, a(1)[0])
            }
            Feq | Fneu | Flt | Fge => {
                let cmp = match op {
                    Feq => Cmp::Eq,
                    Fneu => Cmp::Ne,
                    Flt => Cmp::Lt,
                    _ => Cmp::Ge,
                };
                self.emit(Op::Fcmp { cmp }, &[s0, a(1)[0]])
            }
            I2f if dty.bits == 32 => self.emit(Op::S32ToF32, &[s0]),
            U2f if dty.bits == 32 => self.emit(Op::U32ToF32, &[s0]),
            F2i if dty.bits == 32 => self.emit(Op::F32ToS32, &[s0]),
            F2u if dty.bits == 32 => self.emit(Op::F32ToU32, &[s0]),
            F2f | I2i | U2u if dty.bits == 32 => s0,
            I2i if dty.bits == 64 => {
                let hi = self.emit(Op::ArshiftI32, &[s0, ZERO, Src::Imm(31)]);
                return Ok(SrcList::from([s0, hi]));
            }
            U2u if dty.bits == 64 => return Ok(SrcList::from([s0, ZERO])),
            B2i if dty.bits == 32 => self.shift(ShiftOp::LshiftAnd, s0, Src::Imm(1), ZERO),
            B2i if dty.bits == 64 => {
                return Ok(SrcList::from([
                    self.shift(ShiftOp::LshiftAnd, s0, Src::Imm(1), ZERO),
                    ZERO,
                ]));
            }
            B2f if dty.bits == 32 => {
                self.shift(ShiftOp::LshiftAnd, s0, Src::Imm(0x3f80_0000), ZERO)
            }
            I2b => self.icmp(IcmpType::I32, Cmp::Ne, s0, ZERO),
            _ => {
                return Err(unsupported(format!(
                    "{} ({}-bit → {}-bit)",
                    op.name(),
                    sty.bits,
                    dty.bits
                )));
            }
        };
        Ok(SrcList::from([r]))
    }
}
