//! Derivatives (`Intrinsic::Derivative`) as lane shuffles within the 2×2
//! quad, the way Mesa selects them (`bi_emit_derivative` and `bi_clper` in
//! `src/panfrost/compiler/bifrost_compile.c`):
//!
//! - fine: `right = CLPER(x, lane XOR axis)`, `d = right − x`, and the sign
//!   flipped (`LSHIFT_XOR` of the lane id's axis bit into bit 31) on the
//!   lanes whose neighbour is on the left or above;
//! - coarse: `CLPER(x, axis) − CLPER(x, 0)` (the quad's top-left pixel and
//!   its right or lower neighbour).
//!
//! Quad lanes: bit 0 of the lane id is the pixel's x parity, bit 1 its y
//! parity (axis 1 = x, 2 = y: what Mesa's sign fix-up assumes). v7 uses
//! `CLPER.i32` (`subgroup4`, quad lanes); v6 (G71/G72, Mesa's
//! `BIFROST_LIMITED_CLPER`) `CLPER_OLD.i32`, which takes a warp lane, the
//! XOR computed from the lane id (FAU special 1) first: their warps are
//! one quad.
//!
//! This module must never emit a cross-lane read outside a fragment shader
//! (the IR validator and the front end refuse derivatives elsewhere).

use crate::compiler::ir::DerivativeAxis;

use super::super::Arch;
use super::super::ops::*;
use super::Isel;

/// The lane id (FAU special slot 1, `lane_id` in the disassembly).
const LANE_ID: Src = Src::Special {
    slot: 1,
    high: false,
};

impl Isel<'_> {
    /// `x` as read by the quad lane `lane` (`xor`: own lane XOR `lane`).
    fn clper(&mut self, x: Src, lane: u32, xor: bool) -> Src {
        let x = self.in_reg(x);
        match self.arch {
            Arch::V7 => self.emit(Op::Clper { xor }, &[x, Src::Imm(lane)]),
            Arch::V6 => {
                let lane = if xor {
                    let id = self.in_reg(LANE_ID);
                    self.emit(
                        Op::Shift {
                            op: ShiftOp::LshiftXor,
                            not1: false,
                            not_result: false,
                        },
                        &[id, Src::Imm(lane), Src::Imm(0)],
                    )
                } else {
                    Src::Imm(lane)
                };
                self.emit(Op::ClperOld, &[x, lane])
            }
        }
    }

    /// The derivative of the f32 `x` along `axis` (see the module docs).
    pub(super) fn derivative(&mut self, x: Src, axis: DerivativeAxis, coarse: bool) -> Src {
        let bit = match axis {
            DerivativeAxis::X => 1,
            DerivativeAxis::Y => 2,
        };
        let sub = Op::FaddF32 {
            neg: [false, true],
            abs: [false, false],
            clamp01: false,
        };
        if coarse {
            let left = self.clper(x, 0, false);
            let right = self.clper(x, bit, false);
            return self.emit(sub, &[right, left]);
        }
        let x = self.in_reg(x);
        let right = self.clper(x, bit, true);
        let diff = self.emit(sub, &[right, x]);
        // sign ^= the lane's axis bit, moved to bit 31. (The lane id goes
        // through a register: an instruction's one FAU slot cannot hold it
        // and an immediate together.)
        let id = self.in_reg(LANE_ID);
        let (lane, shift) = match axis {
            DerivativeAxis::X => (id, 31),
            DerivativeAxis::Y => {
                let masked = self.emit(
                    Op::Shift {
                        op: ShiftOp::LshiftAnd,
                        not1: false,
                        not_result: false,
                    },
                    &[id, Src::Imm(2), Src::Imm(0)],
                );
                (masked, 30)
            }
        };
        self.emit(
            Op::Shift {
                op: ShiftOp::LshiftXor,
                not1: false,
                not_result: false,
            },
            &[lane, diff, Src::Imm(shift)],
        )
    }
}
