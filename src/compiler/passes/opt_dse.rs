//! `opt_dse`: dead-store elimination across branches, for the stores the
//! lowered IR can prove dead — `store_output`. A store to an output is
//! removed when, on every path from it to the end of the shader, the same
//! output is stored again (or a `discard` drops every output): outputs are
//! write-only in the IR (no instruction reads one back) and only the last
//! value stored counts (`ir::interp`'s model; on Bifrost a vertex shader's
//! varying store or a fragment shader's blend of a later store overwrites
//! the earlier one's bytes). A `store_output` always writes its output
//! whole (`ir/validate.rs` checks the value's type against the output's),
//! so "same output" is the whole aliasing question.
//!
//! The analysis is a backward must-analysis on the structured IR: the set
//! of outputs surely stored again before the end. An `if` takes the
//! intersection of its branches; `break` continues with the set after its
//! loop; `continue` with the set at the start of the loop body, which is
//! found by iterating from the empty set up to the least fixed point (so a
//! store inside a loop is dead only if it is overwritten in the same
//! iteration, or after the loop on every exit, or at the start of the next
//! iteration *and* on every exit).
//!
//! What it never touches: memory stores (SSBO, global, shared, images).
//! Another invocation may read those, and the IR records neither
//! `Volatile`/`Coherent` accesses nor which memory model the module uses,
//! so proving a store unobservable would need more than the two stores'
//! addresses; `lower_vars_to_ssa` has already removed the function-local
//! variables, the one memory that is surely private. Function-local
//! `store_var`s left before that pass are its business.
//!
//! The SPIR-V front end writes each output once, at the end of `main`
//! (`spirv/io.rs`, `emit_output_stores`), so on shaders from SPIR-V this
//! pass finds nothing; it matters for IR that other producers write (the
//! driver's kernels, lowering passes, tests), and costs one walk over the
//! instructions when no output is stored twice.

use crate::compiler::ir::*;

impl Shader {
    pub fn opt_dse(&mut self) -> bool {
        self.run_pass("opt_dse", opt_dse)
    }
}

/// A set of outputs (bit `i` = output `i`; shaders with more than 128
/// outputs are left alone).
type Outputs = u128;

fn stored_output(instr: &Instr) -> Option<u32> {
    match &instr.op {
        Op::Intrinsic(OpIntrinsic {
            kind: Intrinsic::StoreOutput { output },
            ..
        }) => Some(*output),
        _ => None,
    }
}

fn is_discard(instr: &Instr) -> bool {
    matches!(
        &instr.op,
        Op::Intrinsic(OpIntrinsic {
            kind: Intrinsic::Discard,
            ..
        })
    )
}

/// Where the paths out of a region go: the sets there.
#[derive(Clone, Copy)]
struct Exits {
    /// After the innermost `if` (`yield`).
    yield_to: Outputs,
    /// After the innermost loop (`break`).
    break_to: Outputs,
    /// The start of the innermost loop's body (`continue`).
    continue_to: Outputs,
}

struct Walk {
    all: Outputs,
    removed: bool,
}

impl Walk {
    /// The set at the start of `region`, given the set where it falls off
    /// its end (`end`) and its exits; with `remove`, dead stores go.
    fn region(&mut self, region: &mut Region, end: Outputs, exits: Exits, remove: bool) -> Outputs {
        let mut dead = Vec::new();
        let mut d = end;
        for (i, instr) in region.instrs.iter_mut().enumerate().rev() {
            if let Some(o) = stored_output(instr) {
                let bit = 1u128.checked_shl(o).unwrap_or(0);
                if remove && d & bit != 0 {
                    dead.push(i);
                }
                d |= bit;
                continue;
            }
            if is_discard(instr) {
                d = self.all;
                continue;
            }
            d = match &mut instr.op {
                Op::Yield(_) => exits.yield_to,
                Op::Break(_) => exits.break_to,
                Op::Continue(_) => exits.continue_to,
                Op::If(f) => {
                    let inner = Exits {
                        yield_to: d,
                        ..exits
                    };
                    let t = self.region(&mut f.then_region, d, inner, remove);
                    let e = self.region(&mut f.else_region, d, inner, remove);
                    t & e
                }
                Op::Loop(l) => {
                    // Least fixed point of the set at the body's start.
                    let mut start = 0;
                    loop {
                        let inner = Exits {
                            yield_to: d,
                            break_to: d,
                            continue_to: start,
                        };
                        let next = self.region(&mut l.body, start, inner, false);
                        if next == start {
                            break;
                        }
                        start = next;
                    }
                    if remove {
                        let inner = Exits {
                            yield_to: d,
                            break_to: d,
                            continue_to: start,
                        };
                        self.region(&mut l.body, start, inner, true);
                    }
                    start
                }
                _ => d,
            };
        }
        if !dead.is_empty() {
            self.removed = true;
            // `dead` is in descending order: removing from the back keeps
            // the other indices valid.
            for i in dead {
                region.instrs.remove(i);
            }
        }
        d
    }
}

fn opt_dse(s: &mut Shader) -> bool {
    let n = s.outputs.len();
    if n == 0 || n > 128 {
        return false;
    }
    // Only worth a walk when some output is stored twice.
    let mut stores = vec![0u32; n];
    let mut twice = false;
    s.body.for_each_instr(&mut |i| {
        if let Some(o) = stored_output(i)
            && let Some(c) = stores.get_mut(o as usize)
        {
            *c += 1;
            twice |= *c > 1;
        }
    });
    if !twice {
        return false;
    }
    let all = u128::MAX >> (128 - n);
    let mut w = Walk {
        all,
        removed: false,
    };
    let none = Exits {
        yield_to: 0,
        break_to: 0,
        continue_to: 0,
    };
    w.region(&mut s.body, 0, none, true);
    w.removed
}

#[cfg(test)]
mod tests {
    use crate::compiler::ir::interp::{DrawState, InvocationIds, Memory, run_invocation};
    use crate::compiler::ir::random::{RandomConfig, random_shader};
    use crate::compiler::ir::*;

    fn outputs(s: &Shader, vertex: u32, instance: u32) -> Vec<Option<Vec<u64>>> {
        let ids = InvocationIds {
            raw_vertex_id: vertex,
            instance_id: instance,
            ..InvocationIds::default()
        };
        run_invocation(s, &DrawState::default(), &mut Memory::new(), ids)
            .unwrap()
            .outputs
    }

    /// Output 0 is stored on both branches of an `if` and then at the
    /// start of every loop iteration and after the loop: all but the last
    /// store die. Output 1 is stored on one branch and, late in an
    /// iteration the loop may leave before: those stay; the store the same
    /// iteration overwrites dies.
    const BRANCHES: &str = r#"shader vertex "" {
  info local_size 0 0 0 shared 0 push 0
  output "v" location 0 component 0 i32
  output "w" location 1 component 0 i32
  values 12
  %1:i32 = load_sysval sysval=vertex_index
  %2:i32 = load_sysval sysval=instance_index
  store_output output=0 %1
  store_output output=1 %1
  %3:b1 = ult %1, %2
  if %3 {
    store_output output=0 %2
    store_output output=1 %2
    yield
  } else {
    store_output output=0 %1
    yield
  }
  %4:i32 = const 0x0
  %5:i32 = const 0x1
  loop (%6:i32 = %4) {
    store_output output=0 %6
    %7:b1 = uge %6, %2
    if %7 {
      break
    } else {
      yield
    }
    store_output output=1 %2
    store_output output=1 %6
    %8:i32 = iadd %6, %5
    continue %8
  }
  store_output output=0 %1
}"#;

    #[test]
    fn removes_stores_overwritten_on_every_path() {
        let original = Shader::parse(BRANCHES).unwrap();
        let mut s = original.clone();
        assert!(s.opt_dse());
        s.validate().unwrap();
        let text = s.to_string();
        assert_eq!(text.matches("store_output output=0").count(), 1, "{text}");
        assert_eq!(text.matches("store_output output=1").count(), 3, "{text}");
        let (_, body) = text.split_once("loop").unwrap();
        assert!(body.contains("store_output output=1 %6"), "{text}");
        assert!(!body.contains("store_output output=1 %2"), "{text}");
        assert!(!s.opt_dse(), "nothing left to remove");
        for v in 0..4 {
            for i in 0..4 {
                assert_eq!(outputs(&original, v, i), outputs(&s, v, i), "{v} {i}");
            }
        }
    }

    /// Random programs (stores to outputs in branches and loops, then one
    /// to every output at the end): the outputs are the same after the
    /// pass, and it does remove stores.
    #[test]
    fn random_programs_keep_their_outputs() {
        let mut removed = 0;
        for seed in 0..200u64 {
            let cfg = RandomConfig {
                use_vars: seed % 2 == 0,
                ..RandomConfig::default()
            };
            let mut original = random_shader(seed, &cfg);
            if seed % 3 != 0 {
                // Without the generator's final store to every output, the
                // stores in branches and loops decide the outputs.
                while original
                    .body
                    .instrs
                    .last()
                    .and_then(super::stored_output)
                    .is_some()
                {
                    original.body.instrs.pop();
                }
            }
            original.lower_vars_to_ssa();
            let before = original.to_string().matches("store_output").count();
            let mut s = original.clone();
            if s.opt_dse() {
                removed += before - s.to_string().matches("store_output").count();
            }
            s.validate().unwrap();
            for (v, i) in [(0, 0), (1, 0), (7, 3), (0xffff_fff0, 1)] {
                assert_eq!(
                    outputs(&original, v, i),
                    outputs(&s, v, i),
                    "seed {seed}\n{original}\n{s}"
                );
            }
        }
        assert!(removed > 50, "{removed}");
    }
}
