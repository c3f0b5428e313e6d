//! Instruction selection of 32-bit atomics on SSBO/global and shared
//! memory, the way Mesa's Bifrost compiler emits them for v6/v7:
//! - exchange → `AXCHG.i32`, compare-and-swap → `ACMPXCHG.i32` (staging:
//!   new value, compare value), both with a `seg` modifier, so they address
//!   shared memory by its offset directly;
//! - every other operation → the tuple pair `*ATOM_C(_RETURN).i32` +
//!   `+ATOM_CX` (the scheduler keeps them together), which only takes a
//!   global address: a shared-memory offset first becomes one through the
//!   `*SEG_ADD.wls` + `+SEG_ADD.wls` pair.
//!
//! The old value comes back in the staging register, which is also the
//! operand's register. 64-bit atomics are unsupported.

use super::*;

/// Where an atomic operates.
pub(super) enum AtomicAddress {
    /// A 64-bit global address (lo, hi).
    Global(Vec<Src>),
    /// A byte offset into workgroup-local memory.
    Shared(Src),
}

fn atom_opc(op: AtomicOp) -> Option<AtomOpc> {
    Some(match op {
        AtomicOp::Add => AtomOpc::Add,
        AtomicOp::Imin => AtomOpc::Smin,
        AtomicOp::Imax => AtomOpc::Smax,
        AtomicOp::Umin => AtomOpc::Umin,
        AtomicOp::Umax => AtomOpc::Umax,
        AtomicOp::And => AtomOpc::And,
        AtomicOp::Or => AtomOpc::Or,
        AtomicOp::Xor => AtomOpc::Xor,
        AtomicOp::Exchange | AtomicOp::CompSwap => return None,
    })
}

impl Isel<'_> {
    /// Emits atomic `op` at `addr`; `data` are the lanes of the operand
    /// sources (compare then new value for CompSwap); defines `dst` (the
    /// old value) if the IR has one.
    pub(super) fn atomic(
        &mut self,
        op: AtomicOp,
        addr: AtomicAddress,
        data: &[SrcList],
        data_bits: u8,
        dst: Option<Value>,
    ) -> Result<(), CompileError> {
        if data_bits != 32 {
            return Err(unsupported(format!("{data_bits}-bit atomics")));
        }
        let needed = if op == AtomicOp::CompSwap { 2 } else { 1 };
        if data.len() < needed || data.iter().any(|d| d.is_empty()) {
            return Err(CompileError::Malformed(format!(
                "atomic {op:?} needs {needed} operands"
            )));
        }
        let staging = match atom_opc(op) {
            None => self.exchange(op, addr, data),
            Some(opc) => {
                let ret = dst.is_some_and(|d| self.used.contains(&d));
                self.atom_c(opc, addr, data[0][0], ret)
            }
        };
        if let Some(d) = dst {
            self.define(d, [Src::Reg(staging)]);
        }
        Ok(())
    }

    /// `AXCHG`/`ACMPXCHG`; returns the staging register (the old value).
    fn exchange(&mut self, op: AtomicOp, addr: AtomicAddress, data: &[SrcList]) -> Reg {
        let (seg, a) = match addr {
            AtomicAddress::Global(a) => (Seg::None, vec![self.in_reg(a[0]), self.in_reg(a[1])]),
            AtomicAddress::Shared(off) => (Seg::Wls, vec![self.in_reg(off), ZERO]),
        };
        let (hw, values) = if op == AtomicOp::CompSwap {
            (Op::Acmpxchg { seg }, vec![data[1][0], data[0][0]])
        } else {
            (Op::Axchg { seg }, vec![data[0][0]])
        };
        let v = self.new_vreg(values.len() as u8);
        for (c, &x) in values.iter().enumerate() {
            let r = Reg {
                index: v,
                comp: c as u8,
            };
            self.mov_to(r, x, c > 0);
        }
        let staging = Reg { index: v, comp: 0 };
        let mut srcs = vec![Src::Reg(staging)];
        srcs.extend(self.legalize(hw, &a));
        self.push(Instr::new(hw, Some(Dst::Reg(staging)), srcs));
        staging
    }

    /// The `ATOM_C` + `ATOM_CX` pair; returns the staging register.
    fn atom_c(&mut self, opc: AtomOpc, addr: AtomicAddress, arg: Src, ret: bool) -> Reg {
        let (lo, hi) = match addr {
            AtomicAddress::Global(a) => (self.in_reg(a[0]), self.in_reg(a[1])),
            AtomicAddress::Shared(off) => {
                let off = self.in_reg(off);
                let lo = self.new_reg();
                self.push(Instr::new(
                    Op::SegAddWls { high: false },
                    Some(Dst::Reg(lo)),
                    vec![off],
                ));
                let hi = self.new_reg();
                let srcs = self.legalize(Op::SegAddWls { high: true }, &[ZERO]);
                self.push(Instr::new(
                    Op::SegAddWls { high: true },
                    Some(Dst::Reg(hi)),
                    srcs,
                ));
                (Src::Reg(lo), Src::Reg(hi))
            }
        };
        let staging = self.new_reg();
        self.mov_to(staging, arg, false);
        let s = Src::Reg(staging);
        self.push(Instr::new(Op::AtomC { opc, ret }, None, [lo, hi, s]));
        self.push(Instr::new(
            Op::AtomCx,
            Some(Dst::Reg(staging)),
            vec![s, lo, hi, s],
        ));
        staging
    }
}
