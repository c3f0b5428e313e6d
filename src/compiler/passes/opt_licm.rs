//! `opt_licm`: loop-invariant code motion. An instruction at the top level
//! of a loop body that computes the same value on every iteration moves in
//! front of the loop, so it runs once instead of once per iteration.
//!
//! What moves: ALU ops, `vec`, `swizzle`, constants and undefs, and the
//! reads that cannot fault or change while the shader runs — the
//! invocation's own inputs (`load_input`), push constants and uniforms and
//! system values — when every source is defined outside the loop (or by an
//! instruction that moved before it). Memory reads stay (UBO, SSBO,
//! global, attribute fetches at a computed index): moved out of a loop
//! that would not have run, they could read outside what the application
//! bound. Only the body's top level is looked at: an
//! instruction under an `if` may not run at all, and while moving a pure
//! one out would still be correct, it would be paid for on every path.
//! An instruction after a `break` or `continue` in program order still
//! moves: it is pure, so running it when the loop would not have is
//! harmless (integer division by zero has a defined result in the IR,
//! `ir::eval`). Inner loops are handled first, so code can move out of
//! several levels in one run.
//!
//! NIR does the same in `nir_opt_licm` (src/compiler/nir/nir_opt_licm.c).

use super::defined_in;
use crate::compiler::ir::*;

impl Shader {
    pub fn opt_licm(&mut self) -> bool {
        self.run_pass("opt_licm", opt_licm)
    }
}

fn opt_licm(s: &mut Shader) -> bool {
    let n = s.values.len();
    region(&mut s.body, n)
}

fn movable(instr: &Instr) -> bool {
    match &instr.op {
        Op::Const(_) | Op::Undef | Op::Alu(_) | Op::Vec(_) | Op::Swizzle(_) => true,
        Op::Intrinsic(i) => matches!(
            i.kind,
            Intrinsic::LoadInput { .. }
                | Intrinsic::LoadPushConstant { .. }
                | Intrinsic::LoadUniform { .. }
                | Intrinsic::LoadSysVal(_)
        ),
        _ => false,
    }
}

/// Hoists out of every loop in `region` (nested ones first); returns
/// whether anything moved.
fn region(region: &mut Region, num_values: usize) -> bool {
    let mut progress = false;
    let mut i = 0;
    while i < region.instrs.len() {
        let hoisted = match &mut region.instrs[i].op {
            Op::If(f) => {
                progress |= self::region(&mut f.then_region, num_values);
                progress |= self::region(&mut f.else_region, num_values);
                Vec::new()
            }
            Op::Loop(l) => {
                progress |= self::region(&mut l.body, num_values);
                hoist(l, num_values)
            }
            _ => Vec::new(),
        };
        let n = hoisted.len();
        if n > 0 {
            region.instrs.splice(i..i, hoisted);
            progress = true;
        }
        i += n + 1;
    }
    progress
}

/// Takes the invariant instructions out of `l`'s body, in order.
fn hoist(l: &mut Loop, num_values: usize) -> Vec<Instr> {
    // Values the loop defines; a value stops being the loop's when the
    // instruction defining it moves out.
    let mut inside = defined_in(&l.body, num_values);
    for p in &l.params {
        if let Some(d) = inside.get_mut(p.index()) {
            *d = true;
        }
    }
    let is_inside = |inside: &[bool], v: &Value| inside.get(v.index()).copied().unwrap_or(false);
    let mut out = Vec::new();
    let mut kept = Vec::with_capacity(l.body.instrs.len());
    for instr in std::mem::take(&mut l.body.instrs) {
        if movable(&instr) && !instr.srcs().iter().any(|v| is_inside(&inside, v)) {
            for d in &instr.dsts {
                if let Some(x) = inside.get_mut(d.index()) {
                    *x = false;
                }
            }
            out.push(instr);
        } else {
            kept.push(instr);
        }
    }
    l.body.instrs = kept;
    out
}

#[cfg(test)]
mod tests {
    use crate::compiler::ir::*;

    /// `while (acc < 10) acc += a.z + 1.0` (loops.vert): the input load,
    /// its swizzle, the constant and the add move out; what depends on the
    /// loop parameter stays.
    #[test]
    fn hoists_invariant_chains_only() {
        let mut s = Shader::parse(
            r#"shader vertex "main" {
  info local_size 0 0 0 shared 0 push 0
  input "a" location 0 component 0 i32x4
  output "v" location 0 component 0 i32
  values 12
  %0:i32 = const 0x0
  %1:i32 = loop (%2:i32 = %0) {
    %3:i32 = const 0x41200000
    %4:b1 = flt %2, %3
    if %4 {
      yield
    } else {
      break %2
    }
    %5:i32x4 = load_input location=0 component=0
    %6:i32 = swizzle %5.z
    %7:i32 = const 0x3f800000
    %8:i32 = fadd %6, %7
    %9:i32 = fadd %2, %8
    continue %9
  }
  store_output output=0 %1
}"#,
        )
        .unwrap();
        assert!(s.opt_licm());
        s.validate().unwrap();
        let text = s.to_string();
        let (before, body) = text.split_once("loop").unwrap();
        for moved in [
            "const 0x41200000",
            "load_input",
            "swizzle %5.z",
            "fadd %6, %7",
        ] {
            assert!(before.contains(moved), "{moved}: {text}");
            assert!(!body.contains(moved), "{moved}: {text}");
        }
        for kept in ["flt %2, %3", "fadd %2, %8"] {
            assert!(body.contains(kept), "{kept}: {text}");
        }
        assert!(!s.opt_licm(), "nothing left to move");
    }

    /// Stores, loads of memory and anything reading a loop parameter stay.
    #[test]
    fn leaves_memory_and_variant_code() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 10
  %0:i64 = const 0x1000
  %1:i32 = const 0x0
  loop (%2:i32 = %1) {
    %3:i32 = load_global %0
    store_global %3, %0
    %4:i32 = iadd %2, %3
    %5:b1 = ieq %4, %1
    if %5 {
      break
    } else {
      continue %4
    }
  }
}"#,
        )
        .unwrap();
        let before = s.to_string();
        assert!(!s.opt_licm());
        assert_eq!(s.to_string(), before);
    }
}
