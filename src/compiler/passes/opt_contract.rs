//! `opt_contract`: floating-point contraction. `fadd(fmul(a, b), c)` (either
//! operand order) becomes `ffma(a, b, c)`, one rounding instead of two,
//! where the product is 32-bit, has no other use and is defined in the
//! same region as the sum (a product outside a loop stays outside it).
//!
//! SPIR-V allows this unless an operation is decorated `NoContraction`
//! (SPIR-V specification, "Decoration": NoContraction "… if applied to an
//! OpFMul, that multiply can't be combined with an addition to yield a
//! fused multiply-add operation"); Vulkan's precision rules then bound
//! `ffma` like the two operations it replaces. Mesa's NIR does the same
//! (`src/compiler/nir/nir_opt_algebraic.py`, the `ffma` fusion for
//! non-exact `fadd`s), and Bifrost's `FMA.f32` does both in one
//! instruction. A module that decorates anything `NoContraction` or
//! `Invariant` is left alone as a whole (`ShaderInfo::no_contraction`):
//! we do not track which results the decoration reaches, and an invariant
//! output must come out the same in every program.
//!
//! The driver runs it once, on the shared IR before the variants are made
//! (`pipeline::compile_front`), so the rasterization and XFB variants of
//! a vertex shader compute every product the same way.

use super::use_counts;
use crate::compiler::ir::*;

impl Shader {
    pub fn opt_contract(&mut self) -> bool {
        self.run_pass("opt_contract", opt_contract)
    }
}

fn opt_contract(s: &mut Shader) -> bool {
    if s.info.no_contraction {
        return false;
    }
    let counts = use_counts(s);
    // The factors of each single-use 32-bit `fmul`, with the region it
    // was seen in (regions are numbered as they are walked).
    let mut products: Vec<Option<(u32, Value, Value)>> = vec![None; s.values.len()];
    let values = &s.values;
    let mut region_id = 0u32;
    let mut progress = false;
    s.body.for_each_region_mut(&mut |r| {
        region_id += 1;
        for instr in &mut r.instrs {
            let Op::Alu(alu) = &mut instr.op else {
                continue;
            };
            let Some(&dst) = instr.dsts.first() else {
                continue;
            };
            match alu.op {
                AluOp::Fmul if values[dst.index()].bits == 32 && counts[dst.index()] == 1 => {
                    products[dst.index()] = Some((region_id, alu.srcs[0], alu.srcs[1]));
                }
                AluOp::Fadd => {
                    let here = |v: Value| match products[v.index()] {
                        Some((id, a, b)) if id == region_id => Some((a, b)),
                        _ => None,
                    };
                    let (x, y) = (alu.srcs[0], alu.srcs[1]);
                    let fused = match (here(x), here(y)) {
                        (Some((a, b)), _) => Some((x, a, b, y)),
                        (None, Some((a, b))) => Some((y, a, b, x)),
                        (None, None) => None,
                    };
                    if let Some((product, a, b, c)) = fused {
                        // The product now has no use left; DCE removes it.
                        products[product.index()] = None;
                        alu.op = AluOp::Ffma;
                        alu.srcs.clear();
                        alu.srcs.push(a);
                        alu.srcs.push(b);
                        alu.srcs.push(c);
                        progress = true;
                    }
                }
                _ => {}
            }
        }
    });
    progress
}

#[cfg(test)]
mod tests {
    use crate::compiler::ir::*;

    fn contracted(text: &str) -> String {
        let mut s: Shader = text.parse().expect("parses");
        s.opt_contract();
        s.opt_dce();
        s.validate().unwrap();
        s.to_string()
    }

    /// A single-use product in the sum's region fuses (either operand
    /// order); one with two uses, a 16-bit one, one from an outer region
    /// and every product of a `no_contraction` shader stay.
    #[test]
    fn fuses_single_use_products_of_the_same_region() {
        let text = r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 13
  %0:i32 = const 0x3f800000
  %1:i32 = const 0x40000000
  %2:i32 = fmul %0, %1
  %3:i32 = fadd %0, %2
  %4:i32 = fmul %1, %1
  %5:i32 = fadd %4, %4
  %6:i16 = const 0x3c00
  %7:i16 = fmul %6, %6
  %8:i16 = fadd %7, %6
  %9:i32 = const 0x0
  %10:i32 = fmul %3, %5
  %11:b1 = ieq %9, %9
  if %11 {
    %12:i32 = fadd %10, %0
    store_ssbo set=0 binding=0 %12, %9
    yield
  } else {
    yield
  }
  store_ssbo set=0 binding=0 %8, %9
  store_ssbo set=0 binding=0 %5, %9
}"#;
        let out = contracted(text);
        assert!(out.contains("%3:i32 = ffma %0, %1, %0"), "{out}");
        assert!(!out.contains("%2:i32 = fmul"), "{out}");
        assert!(out.contains("%4:i32 = fmul %1, %1"), "{out}");
        assert!(out.contains("%5:i32 = fadd %4, %4"), "{out}");
        assert!(out.contains("%8:i16 = fadd %7, %6"), "{out}");
        assert!(out.contains("%12:i32 = fadd %10, %0"), "{out}");
        let mut s: Shader = text.parse().unwrap();
        s.info.no_contraction = true;
        assert!(!s.opt_contract());
    }
}
