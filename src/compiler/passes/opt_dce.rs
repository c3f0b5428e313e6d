//! `opt_dce`: dead code elimination. Removes instructions without side
//! effects whose results are unused, `if` results nobody uses (and their
//! yielded values), loop results (and their `break` values), loop params only
//! feeding their own `continue` slot, `if`s with no results and empty
//! branches, loops with no results and no side effects (even if they might
//! not terminate, as NIR does), and code after the end of a region. Never
//! removes stores, atomics or barriers.

use super::{branch_yield_mut, for_each_loop_exit_mut, truncate_after_end, use_counts};
use crate::compiler::ir::*;

impl Shader {
    pub fn opt_dce(&mut self) -> bool {
        self.run_pass("opt_dce", opt_dce)
    }
}

fn opt_dce(s: &mut Shader) -> bool {
    let mut any = false;
    loop {
        let mut again = false;
        any |= sweep(s, &mut again);
        if !again {
            // One sweep left no work for another (see `sweep`): debug builds
            // (the corpus tests) check it.
            if cfg!(debug_assertions) {
                let mut copy = s.clone();
                assert!(
                    !sweep(&mut copy, &mut false),
                    "opt_dce: a second sweep made progress\n{s}"
                );
            }
            return any;
        }
    }
}

/// One sweep: use counts, unreachable code, then [`dce_region`]. Returns
/// whether it changed anything; sets `again` when another sweep may find
/// more. The backward walk keeps the counts exact as it removes code (every
/// removed source is decremented, and a value's uses all come after its
/// definition, so they are gone before the walk reaches it), except where
/// `dce_region` says otherwise: truncated code and removed loops keep
/// their uses counted, and a loop whose body or parameters changed may
/// have left a parameter used only by its own `continue` slot (which is
/// decided once, before the body is walked). Without those, a second
/// sweep would start from the same counts and find nothing.
fn sweep(s: &mut Shader, again: &mut bool) -> bool {
    let mut counts = use_counts(s);
    let mut progress = false;
    s.body
        .for_each_region_mut(&mut |r| progress |= truncate_after_end(r));
    *again |= progress;
    progress |= dce_region(&mut s.body, &mut counts, again);
    progress
}

fn decrement(instr: &Instr, counts: &mut [u32]) {
    for v in instr.srcs() {
        if let Some(c) = counts.get_mut(v.index()) {
            *c = c.saturating_sub(1);
        }
    }
}

fn is_empty_branch(r: &Region) -> bool {
    matches!(&r.instrs[..], [Instr { op: Op::Yield(y), .. }] if y.values.is_empty())
}

/// Whether running `region` has no effect besides control flow (no stores,
/// atomics or barriers anywhere inside). Like NIR's dead-loop removal, a
/// pure loop without results is removed even if it might not terminate.
fn is_pure(region: &Region) -> bool {
    region.instrs.iter().all(|i| match &i.op {
        Op::If(f) => is_pure(&f.then_region) && is_pure(&f.else_region),
        Op::Loop(l) => is_pure(&l.body),
        op if op.is_terminator() => true,
        _ => !i.has_side_effects(),
    })
}

/// Walk backwards so chains die in one sweep. Dead instructions are
/// marked and dropped together at the end (the walk never returns to the
/// instructions after one it removes), not moved out one by one.
fn dce_region(region: &mut Region, counts: &mut Vec<u32>, again: &mut bool) -> bool {
    let mut progress = false;
    // Allocated at the first removal (most walks remove nothing).
    let mut removed: Vec<bool> = Vec::new();
    let len = region.instrs.len();
    let remove = |removed: &mut Vec<bool>, i: usize| {
        if removed.is_empty() {
            removed.resize(len, false);
        }
        removed[i] = true;
    };
    let mut i = region.instrs.len();
    while i > 0 {
        i -= 1;
        let instr = &mut region.instrs[i];
        let unused = |v: &Value, counts: &[u32]| counts.get(v.index()).is_none_or(|&c| c == 0);
        match &mut instr.op {
            Op::If(f) => {
                // Unused results: drop them and the yielded values.
                let dead: Vec<usize> = (0..instr.dsts.len())
                    .filter(|&k| unused(&instr.dsts[k], counts))
                    .collect();
                if !dead.is_empty() {
                    for region in [&mut f.then_region, &mut f.else_region] {
                        if let Some(y) = branch_yield_mut(region) {
                            for &k in dead.iter().rev() {
                                let v = y.values.remove(k);
                                if let Some(c) = counts.get_mut(v.index()) {
                                    *c = c.saturating_sub(1);
                                }
                            }
                        }
                    }
                    for &k in dead.iter().rev() {
                        instr.dsts.remove(k);
                    }
                    progress = true;
                }
                progress |= dce_region(&mut f.else_region, counts, again);
                progress |= dce_region(&mut f.then_region, counts, again);
                if instr.dsts.is_empty()
                    && is_empty_branch(&f.then_region)
                    && is_empty_branch(&f.else_region)
                {
                    decrement(&region.instrs[i], counts);
                    remove(&mut removed, i);
                    progress = true;
                }
            }
            Op::Loop(l) => {
                let dead: Vec<usize> = (0..instr.dsts.len())
                    .filter(|&k| unused(&instr.dsts[k], counts))
                    .collect();
                if !dead.is_empty() {
                    for_each_loop_exit_mut(&mut l.body, &mut |exit| {
                        if let Op::Break(b) = &mut exit.op {
                            for &k in dead.iter().rev() {
                                if k < b.values.len() {
                                    let v = b.values.remove(k);
                                    if let Some(c) = counts.get_mut(v.index()) {
                                        *c = c.saturating_sub(1);
                                    }
                                }
                            }
                        }
                    });
                    for &k in dead.iter().rev() {
                        instr.dsts.remove(k);
                    }
                    progress = true;
                }
                // Params whose only uses are their own continue slot.
                let mut own = vec![0u32; l.params.len()];
                for_each_loop_exit_mut(&mut l.body, &mut |exit| {
                    if let Op::Continue(c) = &exit.op {
                        for (k, v) in c.values.iter().enumerate() {
                            if l.params.get(k) == Some(v) {
                                own[k] += 1;
                            }
                        }
                    }
                });
                let dead: Vec<usize> = (0..l.params.len())
                    .filter(|&k| counts.get(l.params[k].index()).is_none_or(|&c| c == own[k]))
                    .collect();
                if !dead.is_empty() {
                    for_each_loop_exit_mut(&mut l.body, &mut |exit| {
                        if let Op::Continue(c) = &mut exit.op {
                            for &k in dead.iter().rev() {
                                if k < c.values.len() {
                                    let v = c.values.remove(k);
                                    if let Some(c) = counts.get_mut(v.index()) {
                                        *c = c.saturating_sub(1);
                                    }
                                }
                            }
                        }
                    });
                    for &k in dead.iter().rev() {
                        l.params.remove(k);
                        let v = l.inits.remove(k);
                        if let Some(c) = counts.get_mut(v.index()) {
                            *c = c.saturating_sub(1);
                        }
                    }
                    // The `continue` values dropped may have been another
                    // parameter's last uses besides its own slot.
                    *again = true;
                    progress = true;
                }
                if dce_region(&mut l.body, counts, again) {
                    // A parameter may now be used by its own slot only.
                    *again = true;
                    progress = true;
                }
                if instr.dsts.is_empty() && is_pure(&l.body) {
                    decrement(&region.instrs[i], counts);
                    remove(&mut removed, i);
                    // The body's uses stay counted.
                    *again = true;
                    progress = true;
                }
            }
            _ => {
                let dead =
                    !instr.has_side_effects() && instr.dsts.iter().all(|d| unused(d, counts));
                if dead {
                    decrement(&region.instrs[i], counts);
                    remove(&mut removed, i);
                    progress = true;
                }
            }
        }
    }
    if !removed.is_empty() {
        let mut k = 0;
        region.instrs.retain(|_| {
            k += 1;
            !removed[k - 1]
        });
    }
    progress
}

#[cfg(test)]
mod tests {
    use crate::compiler::ir::*;

    #[test]
    fn removes_dead_chains_results_and_params() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 12
  %0:i32 = const 0x0
  %1:i32 = const 0x1
  %2:i32 = iadd %0, %1
  %3:i32 = imul %2, %2
  %4:b1 = ieq %0, %1
  %5:i32, %6:i32 = if %4 {
    yield %0, %1
  } else {
    yield %1, %0
  }
  %9:i32 = loop (%7:i32 = %0, %8:i32 = %1) {
    %10:i32 = iadd %7, %1
    %11:b1 = ieq %10, %8
    store_ssbo set=0 binding=0 %10, %10
    if %11 {
      break %10
    } else {
      yield
    }
    continue %10, %8
  }
  store_ssbo set=0 binding=0 %5, %0
}"#,
        )
        .unwrap();
        assert!(s.opt_dce());
        let expected = r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 12
  %0:i32 = const 0x0
  %1:i32 = const 0x1
  %4:b1 = ieq %0, %1
  %5:i32 = if %4 {
    yield %0
  } else {
    yield %1
  }
  loop (%7:i32 = %0, %8:i32 = %1) {
    %10:i32 = iadd %7, %1
    %11:b1 = ieq %10, %8
    store_ssbo set=0 binding=0 %10, %10
    if %11 {
      break
    } else {
      yield
    }
    continue %10, %8
  }
  store_ssbo set=0 binding=0 %5, %0
}
"#;
        assert_eq!(s.to_string(), expected);
        assert!(!s.opt_dce());
    }

    /// A loop parameter whose last use besides its own `continue` slot
    /// dies in the body only shows as dead to a second sweep: the changed
    /// body must ask for it.
    #[test]
    fn a_parameter_dead_after_its_body_needs_the_second_sweep() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 8
  %0:i32 = const 0x0
  %1:i32 = const 0x1
  %5:i32 = load_sysval sysval=local_invocation_index
  %2:b1 = ieq %5, %0
  loop (%3:i32 = %0) {
    %4:i32 = iadd %3, %1
    store_ssbo set=0 binding=0 %1, %0
    if %2 {
      break
    } else {
      yield
    }
    continue %3
  }
}"#,
        )
        .unwrap();
        assert!(s.opt_dce());
        let text = s.to_string();
        assert!(text.contains("  loop () {\n"), "{text}");
        assert!(text.contains("    continue\n"), "{text}");
        assert!(!text.contains("iadd"), "{text}");
        assert!(!s.opt_dce());
    }

    /// Dropping a dead parameter drops its `continue` values, which can be
    /// another parameter's last uses besides its own slot (found by
    /// `tests/ir_passes.rs::random_deep_programs`).
    #[test]
    fn a_parameter_dead_after_another_is_dropped_needs_the_second_sweep() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 6
  %0:i32 = load_sysval sysval=local_invocation_index
  %1:i32 = const 0x0
  %5:b1 = ieq %0, %1
  loop (%2:i32 = %1, %3:i32 = %1) {
    store_ssbo set=0 binding=0 %1, %1
    if %5 {
      break
    } else {
      yield
    }
    continue %2, %2
  }
}"#,
        )
        .unwrap();
        assert!(s.opt_dce());
        let text = s.to_string();
        assert!(text.contains("  loop () {\n"), "{text}");
        assert!(text.contains("    continue\n"), "{text}");
        assert!(!s.opt_dce());
    }
}
