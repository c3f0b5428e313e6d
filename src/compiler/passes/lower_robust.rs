//! `lower_robust_buffers`: robust buffer access (the Vulkan feature
//! `robustBufferAccess`) for uniform and storage buffers.
//!
//! Every `load_ubo`, `load_ssbo`, `store_ssbo` and `ssbo_atomic` becomes
//! conditional on the whole access lying inside the range bound to its
//! binding (`buffer_size`, the descriptor's range):
//! `size ≥ bytes && offset ≤ size − bytes`. Outside it a load or an atomic
//! gives zeros and a store or an atomic writes nothing. The Vulkan spec
//! ("Robust Buffer Access", under the `robustBufferAccess` feature) allows
//! exactly that: out-of-bounds loads return values from the bound range or
//! zeros, out-of-bounds stores may only modify the bound range (we drop
//! them), out-of-bounds atomics write nothing there and return undefined
//! values.
//!
//! Run after `lower_io` (where buffer accesses have their final form) and
//! before the variants are made; only when the device enables the feature
//! (`compiler::pipeline::FrontOptions`), since every access pays a compare
//! and a branch.
//!
//! [`lower_robust_buffers_except_ubos`] leaves `load_ubo` alone, for
//! shaders whose UBO loads go through the hardware's UBO table
//! (`bifrost::Options::ubo_table`): the hardware checks each load against
//! the descriptor's `Entries` (the bound range rounded up to 16 bytes) and
//! returns zeros past it (the simulator's reading, `kmod/sim/shader/
//! message.rs`). Bytes between the range's end and that rounding are still
//! memory bound to the buffer — the driver's UBO offsets are 256-byte
//! aligned and buffer sizes are reported rounded up to 64 bytes
//! (`vk/buffer.rs`) — which robust buffer access allows a load to return.

use crate::compiler::ir::*;

/// Make every UBO/SSBO access bounds-checked (module doc). Returns whether
/// anything changed.
pub fn lower_robust_buffers(shader: &mut Shader) -> bool {
    lower(shader, true)
}

/// [`lower_robust_buffers`] for every access but `load_ubo` (module doc).
pub fn lower_robust_buffers_except_ubos(shader: &mut Shader) -> bool {
    lower(shader, false)
}

fn lower(shader: &mut Shader, ubos: bool) -> bool {
    let mut changed = false;
    Builder::rewrite(shader, &mut |instr, e| {
        let Op::Intrinsic(i) = &instr.op else {
            e.push(instr);
            return;
        };
        let (set, binding, offset, bytes) = match i.kind {
            Intrinsic::LoadUbo { set, binding } if ubos => {
                (set, binding, i.srcs[0], e.ty(instr.dsts[0]).byte_size())
            }
            Intrinsic::LoadSsbo { set, binding } | Intrinsic::SsboAtomic { set, binding, .. } => {
                (set, binding, i.srcs[0], e.ty(instr.dsts[0]).byte_size())
            }
            Intrinsic::StoreSsbo { set, binding } => {
                (set, binding, i.srcs[1], e.ty(i.srcs[0]).byte_size())
            }
            _ => {
                e.push(instr);
                return;
            }
        };
        changed = true;
        let u32t = ValueType::U32;
        let size = e.load(Intrinsic::BufferSize { set, binding }, u32t, &[]);
        let bytes = e.imm_u32(bytes);
        let room = e.alu_typed(AluOp::Isub, u32t, &[size, bytes]);
        let big_enough = e.alu_typed(AluOp::Uge, ValueType::BOOL, &[size, bytes]);
        let offset_fits = e.alu_typed(AluOp::Uge, ValueType::BOOL, &[room, offset]);
        let inside = e.alu_typed(AluOp::Iand, ValueType::BOOL, &[big_enough, offset_fits]);
        match instr.dsts.first().copied() {
            None => {
                e.if_(
                    inside,
                    &[],
                    |b| {
                        b.push(instr);
                        vec![]
                    },
                    |_| vec![],
                );
            }
            Some(dst) => {
                let ty = e.ty(dst);
                let result = e.if_(
                    inside,
                    &[ty],
                    |b| {
                        let v = b.new_value(ty);
                        let mut access = instr;
                        access.dsts = [v].into();
                        b.push(access);
                        vec![v]
                    },
                    |b| vec![b.imm(ty, &vec![0; ty.comps as usize])],
                );
                e.mov(dst, result[0]);
            }
        }
    });
    changed
}

impl Shader {
    /// Method form of [`lower_robust_buffers`].
    pub fn lower_robust_buffers(&mut self) -> bool {
        self.run_pass("lower_robust_buffers", lower_robust_buffers)
    }

    /// Method form of [`lower_robust_buffers_except_ubos`].
    pub fn lower_robust_buffers_except_ubos(&mut self) -> bool {
        self.run_pass(
            "lower_robust_buffers_except_ubos",
            lower_robust_buffers_except_ubos,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every access of every kind ends up under a bounds check, in nested
    /// regions too, and nothing else changes.
    #[test]
    fn every_access_is_guarded() {
        let text = r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 8
  %0:i32 = const 0x4
  %1:i32x4 = load_ubo set=0 binding=1 %0
  %2:i32 = swizzle %1.x
  %3:b1 = ieq %2, %0
  if %3 {
    %4:i32 = load_ssbo set=1 binding=0 %2
    store_ssbo set=1 binding=0 %4, %0
    %5:i32 = ssbo_atomic set=1 binding=2 op=add %0, %4
    yield
  } else {
    yield
  }
}"#;
        let mut s: Shader = text.parse().expect("parses");
        assert!(s.lower_robust_buffers());
        s.validate().unwrap();
        let printed = s.to_string();
        assert_eq!(printed.matches("buffer_size").count(), 4, "{printed}");
        // Each access sits in the then-branch of its own check.
        assert_eq!(printed.matches("if ").count(), 5, "{printed}");

        // With the UBO table the UBO load stays as it was.
        let mut s: Shader = text.parse().expect("parses");
        assert!(s.lower_robust_buffers_except_ubos());
        s.validate().unwrap();
        let printed = s.to_string();
        assert_eq!(printed.matches("buffer_size").count(), 3, "{printed}");
        assert_eq!(printed.matches("if ").count(), 4, "{printed}");
        assert!(
            printed.contains("= load_ubo set=0 binding=1 %0"),
            "{printed}"
        );
    }
}
