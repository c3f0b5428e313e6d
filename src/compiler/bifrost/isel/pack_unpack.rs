//! Instruction selection of the GLSL.std.450 pack/unpack ops (see
//! `ir::eval` for their exact meaning, which these sequences reproduce bit
//! for bit):
//! - halves through the conversion instructions (`V2F32_TO_V2F16` rounds
//!   to nearest even like the spec; `F16_TO_F32` is exact, its NaN result
//!   replaced by the IR's canonical NaN);
//! - norm packing as clamp (`FADD` clamp modifier, NaN → 0) → scale →
//!   round to nearest even (`FROUND`) → integer → shift into place;
//! - norm unpacking as byte/half → float (`U8_TO_F32` ...) → a correctly
//!   rounded division by 255/127/65535/32767: the product with the
//!   reciprocal, corrected once by its exact FMA residual (checked for
//!   every possible input by `exact_division_by_the_norm_scales`).
//!
//! It must never emit anything but ops with a `fold()`.

use super::*;

/// The IR's canonical f32 NaN.
const CANONICAL_NAN: u32 = 0x7fc0_0000;

/// (components, bits per component, signed) of a norm pack/unpack op.
fn norm_shape(op: AluOp) -> Option<(u8, u8, bool)> {
    use AluOp::*;
    Some(match op {
        PackUnorm4x8 | UnpackUnorm4x8 => (4, 8, false),
        PackSnorm4x8 | UnpackSnorm4x8 => (4, 8, true),
        PackUnorm2x16 | UnpackUnorm2x16 => (2, 16, false),
        PackSnorm2x16 | UnpackSnorm2x16 => (2, 16, true),
        _ => return None,
    })
}

/// The norm scale: 2^bits - 1, or 2^(bits-1) - 1 when signed.
fn norm_scale(bits: u8, signed: bool) -> f32 {
    ((1u32 << (bits - u8::from(signed))) - 1) as f32
}

impl Isel<'_> {
    /// The lanes of a pack/unpack op on `src` (source 0's lanes); `None`
    /// for every other op.
    pub(super) fn pack_unpack(
        &mut self,
        op: AluOp,
        src: &[Src],
    ) -> Result<Option<Vec<Src>>, CompileError> {
        use AluOp::*;
        let need = |n: usize| {
            if src.len() < n {
                Err(CompileError::Malformed(format!(
                    "{}: source has {} lanes, needs {n}",
                    op.name(),
                    src.len()
                )))
            } else {
                Ok(())
            }
        };
        Ok(Some(match op {
            PackHalf2x16 => {
                need(2)?;
                vec![self.emit(Op::V2F32ToV2F16, &[src[0], src[1]])]
            }
            UnpackHalf2x16 => {
                need(1)?;
                (0..2)
                    .map(|i| {
                        let f = self.emit(Op::F16ToF32 { high: i == 1 }, &[src[0]]);
                        self.canonicalize_nan(f)
                    })
                    .collect()
            }
            PackUnorm4x8 | PackSnorm4x8 | PackUnorm2x16 | PackSnorm2x16 => {
                let (n, bits, signed) = norm_shape(op).expect("norm op");
                need(n.into())?;
                vec![self.pack_norm(&src[..n.into()], bits, signed)]
            }
            UnpackUnorm4x8 | UnpackSnorm4x8 | UnpackUnorm2x16 | UnpackSnorm2x16 => {
                let (n, bits, signed) = norm_shape(op).expect("norm op");
                need(1)?;
                (0..n)
                    .map(|lane| self.unpack_norm(src[0], bits, signed, lane))
                    .collect()
            }
            _ => return Ok(None),
        }))
    }

    /// `f`, or the canonical NaN if `f` is a NaN.
    fn canonicalize_nan(&mut self, f: Src) -> Src {
        let nan = self.emit(Op::Fcmp { cmp: Cmp::Ne }, &[f, f]);
        self.mux(f, Src::Imm(CANONICAL_NAN), nan)
    }

    fn pack_norm(&mut self, comps: &[Src], bits: u8, signed: bool) -> Src {
        let scale = norm_scale(bits, signed);
        let mut acc = ZERO;
        for (c, &x) in comps.iter().enumerate() {
            // clamp (NaN → 0), scale, round to nearest even, to integer.
            let clamped = if signed {
                self.emit(Op::FaddClampM1F32, &[x, ZERO])
            } else {
                self.emit(
                    Op::FaddF32 {
                        neg: [false; 2],
                        abs: [false; 2],
                        clamp01: true,
                    },
                    &[x, ZERO],
                )
            };
            let scaled = self.emit(
                Op::FmaF32 {
                    neg: [false, false, true],
                },
                &[clamped, Src::Imm(scale.to_bits()), ZERO],
            );
            let rounded = self.emit(Op::FroundF32 { round: Round::Rte }, &[scaled]);
            let mut q = self.emit(Op::F32ToS32, &[rounded]);
            let shift = u32::from(bits) * c as u32;
            // Negative values need their field masked, except the top field,
            // whose excess bits the shift drops.
            if signed && shift + u32::from(bits) < 32 {
                q = self.shift(ShiftOp::LshiftAnd, q, Src::Imm((1u32 << bits) - 1), ZERO);
            }
            acc = self.shift(ShiftOp::LshiftOr, q, acc, Src::Imm(shift));
        }
        acc
    }

    fn unpack_norm(&mut self, v: Src, bits: u8, signed: bool, lane: u8) -> Src {
        let scale = norm_scale(bits, signed);
        let x = self.emit(Op::SmallIntToF32 { signed, bits, lane }, &[v]);
        // q0 = x * (1/s); q = q0 + (x - q0 * s) * (1/s): correctly rounded x / s.
        let r = Src::Imm((1.0 / scale).to_bits());
        let q0 = self.emit(
            Op::FmaF32 {
                neg: [false, false, true],
            },
            &[x, r, ZERO],
        );
        let e = self.emit(
            Op::FmaF32 {
                neg: [true, false, false],
            },
            &[q0, Src::Imm(scale.to_bits()), x],
        );
        let q = self.emit(Op::FmaF32 { neg: [false; 3] }, &[e, r, q0]);
        if signed {
            // -128 / 127 and -32768 / 32767 clamp to -1.
            self.emit(Op::FmaxF32, &[q, Src::Imm((-1.0f32).to_bits())])
        } else {
            q
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unpack division sequence, evaluated with the ops' folds, equals
    /// the correctly rounded quotient for every input of every norm format.
    #[test]
    fn exact_division_by_the_norm_scales() {
        for (bits, signed) in [(8, false), (8, true), (16, false), (16, true)] {
            let scale = norm_scale(bits, signed);
            let r = (1.0 / scale).to_bits();
            let fma = |neg: [bool; 3], a: u32, b: u32, c: u32| {
                Op::FmaF32 { neg }.fold(&[a, b, c]).expect("alu")
            };
            let lo: i32 = if signed { -(1 << (bits - 1)) } else { 0 };
            let hi: i32 = if signed { 1 << (bits - 1) } else { 1 << bits };
            for raw in lo..hi {
                let x = (raw as f32).to_bits();
                let q0 = fma([false, false, true], x, r, 0);
                let e = fma([true, false, false], q0, scale.to_bits(), x);
                let q = fma([false; 3], e, r, q0);
                assert_eq!(
                    q,
                    (raw as f32 / scale).to_bits(),
                    "{raw} / {scale} ({bits} bits)"
                );
            }
        }
    }
}
