//! Register spilling to thread-local storage (`LOAD`/`STORE` with
//! `seg=tl`), driven by the colouring loop of [`super::ra`].
//!
//! - **Which values**: a virtual register from isel whose every definition
//!   writes it whole (a 32-bit result, or a message filling the whole
//!   vector); vectors assembled component by component (store data) are
//!   short-lived and never spilled, nor are the spill code's own
//!   temporaries (so every round strictly shrinks the spillable set and the
//!   loop ends). Among the candidates when colouring fails, the one with
//!   the lowest cost per interference degree goes, the cost being its defs
//!   and uses weighted by 10^loop depth: values used in loops stay in
//!   registers, values that conflict with many others leave first.
//! - **Where**: one slot per spilled value in the thread's TLS, at a
//!   naturally aligned offset (4, 8 or 16 bytes for 1, 2, 3–4 registers);
//!   the binary's `tls_size` is the end of the last slot.
//! - **How**: after every definition, the result goes to a fresh temporary
//!   and `STORE.iN` (seg=tl, address = (offset, 0), the Bifrost form Mesa
//!   uses too) writes it to the slot; before every use, `LOAD.i32` reads the
//!   used component into a fresh temporary (the whole vector for a
//!   message's staging operand), and so does a branch condition at the end
//!   of its block. Values a message both reads and writes as staging
//!   (tied registers) are never spilled.
//!
//! This module must never change what a program computes: a spilled value
//! reads back exactly what was last stored, on every path.

use super::CompileError;
use super::isel::{Program, Term};
use super::ops::{Dst, Instr, Op, Reg, Seg, Src};
use super::ra::{Allocation, Interference};

/// Spill cost per interference degree of each vreg (`None`: not spillable).
pub struct SpillCosts {
    metric: Vec<Option<f64>>,
}

impl SpillCosts {
    /// The cheapest spillable vreg among `candidates`.
    pub fn cheapest(&self, candidates: impl Iterator<Item = u32>) -> Option<u32> {
        candidates
            .filter_map(|v| {
                self.metric
                    .get(v as usize)
                    .copied()
                    .flatten()
                    .map(|m| (m, v))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map(|(_, v)| v)
    }

    /// The metric of `v` (tests and debugging).
    pub fn metric(&self, v: u32) -> Option<f64> {
        self.metric.get(v as usize).copied().flatten()
    }
}

/// State of spilling across colouring rounds.
pub struct Spiller {
    /// Vregs `0..original` came from isel; later ones are spill temporaries.
    original: usize,
    /// Per original vreg: every definition writes the whole register.
    whole_defs: Vec<bool>,
    spilled: Vec<bool>,
    tls_size: u32,
    spills: u32,
    fills: u32,
    spilled_values: u32,
}

/// Loop nesting depth of each block: structured loops are laid out
/// contiguously, so a back edge b → h (h ≤ b) covers blocks h..=b.
fn loop_depths(p: &Program) -> Vec<u32> {
    let mut depth = vec![0u32; p.blocks.len()];
    for b in 0..p.blocks.len() {
        for h in p.successors(b) {
            if h <= b {
                for d in &mut depth[h..=b] {
                    *d += 1;
                }
            }
        }
    }
    depth
}

impl Spiller {
    pub fn new(p: &Program) -> Spiller {
        let n = p.vreg_sizes.len();
        let mut whole_defs = vec![true; n];
        for ins in p.blocks.iter().flat_map(|b| &b.instrs) {
            if let Some(Dst::Reg(d)) = ins.dst {
                let size = p.vreg_sizes[d.index as usize];
                let whole = !ins.partial
                    && (size == 1
                        || (d.comp == 0
                            && ins.op.staging().is_some_and(|(c, _, w)| w && c == size)));
                if !whole {
                    whole_defs[d.index as usize] = false;
                }
            }
            // A message that reads and writes its staging registers needs
            // the same registers for both: renaming either side for spill
            // code would break that, so neither value is spilled.
            if matches!(ins.op.staging(), Some((_, true, true))) {
                for s in &ins.srcs {
                    if let Src::Reg(r) = s {
                        whole_defs[r.index as usize] = false;
                    }
                }
                if let Some(Dst::Reg(d)) = ins.dst {
                    whole_defs[d.index as usize] = false;
                }
            }
        }
        Spiller {
            original: n,
            whole_defs,
            spilled: vec![false; n],
            tls_size: 0,
            spills: 0,
            fills: 0,
            spilled_values: 0,
        }
    }

    fn spillable(&self, v: usize) -> bool {
        v < self.original && self.whole_defs[v] && !self.spilled[v]
    }

    /// Spill costs for the current program and interference graph.
    pub fn costs(&self, p: &Program, g: &Interference) -> SpillCosts {
        let depth = loop_depths(p);
        let mut cost = vec![0f64; p.vreg_sizes.len()];
        for (b, block) in p.blocks.iter().enumerate() {
            let w = 10f64.powi(depth[b].min(6) as i32);
            for ins in &block.instrs {
                if let Some(Dst::Reg(d)) = ins.dst {
                    cost[d.index as usize] += w;
                }
                for s in &ins.srcs {
                    if let Src::Reg(r) = s {
                        cost[r.index as usize] += w;
                    }
                }
            }
            if let Term::BranchZ(Src::Reg(r), _) = block.term {
                cost[r.index as usize] += w;
            }
        }
        let metric = (0..p.vreg_sizes.len())
            .map(|v| {
                self.spillable(v)
                    .then(|| cost[v] / (f64::from(g.degree[v]) + 1.0))
            })
            .collect();
        SpillCosts { metric }
    }

    /// Inserts the spill code for `victims` (each gets a TLS slot).
    pub fn spill(&mut self, p: &mut Program, victims: &[u32]) -> Result<(), CompileError> {
        let mut slot: Vec<Option<u32>> = vec![None; p.vreg_sizes.len()];
        for &v in victims {
            let v = v as usize;
            if slot[v].is_some() {
                continue;
            }
            if !self.spillable(v) {
                return Err(CompileError::Encode(format!(
                    "spill of a non-spillable value %{v}"
                )));
            }
            let size = u32::from(p.vreg_sizes[v]);
            let align = match size {
                1 => 4,
                2 => 8,
                _ => 16,
            };
            let offset = self.tls_size.next_multiple_of(align);
            // The offset is an embedded 32-bit constant; keep slots in the
            // range a TLS Size field can describe (16 << 31 bytes).
            self.tls_size = offset
                .checked_add(4 * size)
                .filter(|&e| e <= 1 << 24)
                .ok_or_else(|| CompileError::Unsupported("over 16 MiB of spills".into()))?;
            slot[v] = Some(offset);
            self.spilled[v] = true;
            self.spilled_values += 1;
        }
        for b in 0..p.blocks.len() {
            let old = std::mem::take(&mut p.blocks[b].instrs);
            let mut out = Vec::with_capacity(old.len());
            for mut ins in old {
                // `srcs[0]` is the staging data when the encoded sources
                // leave it out (STORE, and messages written like it).
                let staging_src = matches!(ins.op.staging(), Some((_, true, _)))
                    && ins.encoded_srcs().len() < ins.srcs.len();
                // Fills: one per (value, component) read by this instruction.
                let mut filled: Vec<((u32, u8), Reg)> = Vec::new();
                for (i, s) in ins.srcs.iter_mut().enumerate() {
                    let Src::Reg(r) = *s else { continue };
                    let Some(off) = slot[r.index as usize] else {
                        continue;
                    };
                    if i == 0 && staging_src {
                        // Staging data: the whole vector, contiguous.
                        let size = p.vreg_sizes[r.index as usize];
                        let t = new_vreg(p, size);
                        out.push(self.fill(t, off, size));
                        *s = Src::Reg(Reg {
                            index: t,
                            comp: r.comp,
                        });
                        continue;
                    }
                    let key = (r.index, r.comp);
                    let t = match filled.iter().find(|(k, _)| *k == key) {
                        Some(&(_, t)) => t,
                        None => {
                            let t = Reg {
                                index: new_vreg(p, 1),
                                comp: 0,
                            };
                            out.push(self.fill(t.index, off + 4 * u32::from(r.comp), 1));
                            filled.push((key, t));
                            t
                        }
                    };
                    *s = Src::Reg(t);
                }
                // Spill: the result goes to a temporary, then to its slot.
                let mut store = None;
                if let Some(Dst::Reg(d)) = ins.dst
                    && let Some(off) = slot[d.index as usize]
                {
                    let size = p.vreg_sizes[d.index as usize];
                    let t = new_vreg(p, size);
                    ins.dst = Some(Dst::Reg(Reg {
                        index: t,
                        comp: d.comp,
                    }));
                    store = Some(self.store(t, off, size));
                }
                out.push(ins);
                out.extend(store);
            }
            if let Term::BranchZ(Src::Reg(r), target) = p.blocks[b].term
                && let Some(off) = slot[r.index as usize]
            {
                let t = new_vreg(p, 1);
                out.push(self.fill(t, off + 4 * u32::from(r.comp), 1));
                p.blocks[b].term = Term::BranchZ(Src::Reg(Reg { index: t, comp: 0 }), target);
            }
            p.blocks[b].instrs = out;
        }
        Ok(())
    }

    fn fill(&mut self, t: u32, offset: u32, size: u8) -> Instr {
        self.fills += 1;
        Instr::new(
            Op::Load {
                bytes: 4 * size,
                seg: Seg::Tl,
            },
            Some(Dst::Reg(Reg { index: t, comp: 0 })),
            vec![Src::Imm(offset), Src::Imm(0)],
        )
    }

    fn store(&mut self, t: u32, offset: u32, size: u8) -> Instr {
        self.spills += 1;
        Instr::new(
            Op::Store {
                bytes: 4 * size,
                seg: Seg::Tl,
            },
            None,
            vec![
                Src::Reg(Reg { index: t, comp: 0 }),
                Src::Imm(offset),
                Src::Imm(0),
            ],
        )
    }

    /// The allocation's summary once colouring succeeded.
    pub fn finish(&self, work_registers: u32) -> Allocation {
        Allocation {
            work_registers,
            tls_size: self.tls_size,
            spills: self.spills,
            fills: self.fills,
            spilled_values: self.spilled_values,
            rounds: 0,
        }
    }
}

fn new_vreg(p: &mut Program, size: u8) -> u32 {
    p.vreg_sizes.push(size);
    p.vreg_sizes.len() as u32 - 1
}

#[cfg(test)]
mod tests {
    use super::super::ops::Seg;
    use super::super::{CompileError, isel, ra};
    use super::*;
    use crate::compiler::ir::Shader;

    /// `vec4s` vec4 loads (all live to the end), then a 5-trip loop that
    /// only reads `%hot` and its parameters, then a sum of every component.
    fn pressure_text(vec4s: u32) -> String {
        let mut t = String::from(
            "  %0:i32x3 = load_sysval sysval=global_invocation_id
  %1:i32 = swizzle %0.x
  %2:i64 = load_uniform offset=0
  %3:i32 = const 0x0
  %4:i32 = const 0x1
  %5:i32 = const 0x5
  %6:i32 = load_uniform offset=8
  %7:i32 = imul %1, %6
",
        );
        let mut next = 10;
        let mut vecs = Vec::new();
        for k in 0..vec4s {
            let (o, w, a, v) = (next, next + 1, next + 2, next + 3);
            next += 4;
            t += &format!(
                "  %{o}:i32 = const {:#x}\n  %{w}:i64 = u2u %{o}\n  %{a}:i64 = iadd %2, %{w}\n  %{v}:i32x4 = load_global %{a}\n",
                16 * k
            );
            vecs.push(v);
        }
        let (r, i, acc, done, i2, acc2) = (next, next + 1, next + 2, next + 3, next + 4, next + 5);
        next += 6;
        t += &format!(
            "  %{r}:i32 = loop (%{i}:i32 = %3, %{acc}:i32 = %1) {{
    %{done}:b1 = uge %{i}, %5
    if %{done} {{
      break %{acc}
    }} else {{
      yield
    }}
    %{acc2}:i32 = imul %{acc}, %7
    %{i2}:i32 = iadd %{i}, %4
    continue %{i2}, %{acc2}
  }}
"
        );
        let mut total = r;
        for v in &vecs {
            for c in ["x", "y", "z", "w"] {
                t += &format!(
                    "  %{}:i32 = swizzle %{v}.{c}\n  %{}:i32 = iadd %{total}, %{}\n",
                    next,
                    next + 1,
                    next
                );
                total = next + 1;
                next += 2;
            }
        }
        t += &format!("  store_global %{total}, %2\n");
        format!(
            "shader compute \"pressure\" {{\n  info local_size 1 1 1 shared 0 push 0\n  values {}\n{t}}}",
            next + 1
        )
    }

    fn selected(text: &str) -> isel::Program {
        let mut s = Shader::parse(text).unwrap_or_else(|e| panic!("{e:?}"));
        s.lower_vars_to_ssa();
        s.optimize();
        isel::select(&s, &Default::default()).unwrap()
    }

    fn tls_ops(p: &isel::Program, b: usize) -> Vec<&Instr> {
        p.blocks[b]
            .instrs
            .iter()
            .filter(|i| {
                matches!(
                    i.op,
                    Op::Load { seg: Seg::Tl, .. } | Op::Store { seg: Seg::Tl, .. }
                )
            })
            .collect()
    }

    #[test]
    fn spills_cold_values_not_the_loop_ones() {
        let text = pressure_text(18); // 72 registers live across the loop
        let mut no_spill = selected(&text);
        assert!(matches!(
            ra::allocate(&mut no_spill),
            Err(CompileError::RegisterPressure { .. })
        ));

        let mut p = selected(&text);
        let original = p.vreg_sizes.len();
        let depth = loop_depths(&p);
        let a = ra::allocate_with_spilling(&mut p).unwrap();
        assert!(a.spilled_values > 0 && a.spills > 0 && a.fills > 0, "{a:?}");
        assert!(a.work_registers <= u32::from(ra::ALLOCATABLE));
        // Loop blocks (the same layout: spill code only adds instructions)
        // touch no TLS: the loop's values stayed in registers.
        assert!(depth.iter().any(|&d| d > 0));
        for (b, &d) in depth.iter().enumerate() {
            if d > 0 {
                assert!(tls_ops(&p, b).is_empty(), "TLS access in loop block {b}");
            }
        }
        // Every TLS access is naturally aligned and inside `tls_size`, and
        // every write is to a physical register of the budget.
        let mut slots = 0;
        for b in 0..p.blocks.len() {
            for ins in tls_ops(&p, b) {
                let (Op::Load { bytes, .. } | Op::Store { bytes, .. }) = ins.op else {
                    unreachable!()
                };
                let addr = if matches!(ins.op, Op::Store { .. }) {
                    &ins.srcs[1..]
                } else {
                    &ins.srcs[..]
                };
                let [Src::Imm(off), Src::Imm(0)] = addr else {
                    panic!("TLS address {addr:?}")
                };
                assert!(off + u32::from(bytes) <= a.tls_size);
                assert_eq!(off % u32::from(bytes.min(16).next_power_of_two()), 0);
                if matches!(ins.op, Op::Store { .. }) {
                    slots += 1;
                }
            }
            for ins in &p.blocks[b].instrs {
                if let Some(Dst::Phys(r)) = ins.dst {
                    assert!(r < ra::ALLOCATABLE || r == 63, "{ins}");
                }
                assert!(ins.srcs.iter().all(|s| !matches!(s, Src::Reg(_))));
            }
        }
        assert_eq!(slots, a.spills);
        // Straight-line definitions: one store per spilled value.
        assert_eq!(a.spills, a.spilled_values);
        assert!(p.vreg_sizes.len() > original);
    }

    #[test]
    fn costs_prefer_values_outside_loops_and_never_pick_temporaries() {
        let text = pressure_text(18);
        let mut p = selected(&text);
        let mut spiller = Spiller::new(&p);
        let g = ra::interference(&p);
        let costs = spiller.costs(&p, &g);
        // The loop's multiplier operand (`%7`, read every iteration) costs
        // more per degree than any loaded vector used once after the loop.
        let depth = loop_depths(&p);
        let in_loop = |v: u32| {
            p.blocks.iter().enumerate().any(|(b, blk)| {
                depth[b] > 0
                    && blk.instrs.iter().any(|i| {
                        i.srcs
                            .iter()
                            .any(|s| matches!(s, Src::Reg(r) if r.index == v))
                    })
            })
        };
        let vectors: Vec<u32> = (0..p.vreg_sizes.len() as u32)
            .filter(|&v| p.vreg_sizes[v as usize] == 4 && costs.metric(v).is_some())
            .collect();
        let hot: Vec<u32> = (0..p.vreg_sizes.len() as u32)
            .filter(|&v| in_loop(v) && costs.metric(v).is_some())
            .collect();
        assert!(!vectors.is_empty() && !hot.is_empty());
        let coldest_hot = hot
            .iter()
            .map(|&v| costs.metric(v).unwrap())
            .fold(f64::MAX, f64::min);
        for &v in &vectors {
            assert!(costs.metric(v).unwrap() < coldest_hot);
        }
        let all = 0..p.vreg_sizes.len() as u32;
        let pick = costs.cheapest(all).unwrap();
        assert!(!in_loop(pick));
        // After one spill, the new temporaries are never candidates.
        let before = p.vreg_sizes.len();
        spiller.spill(&mut p, &[pick]).unwrap();
        let g = ra::interference(&p);
        let costs = spiller.costs(&p, &g);
        assert!(p.vreg_sizes.len() > before);
        for t in before..p.vreg_sizes.len() {
            assert_eq!(costs.metric(t as u32), None);
        }
        assert_eq!(costs.metric(pick), None, "spilled twice");
    }

    #[test]
    fn spilling_program_round_trips_through_the_assembler() {
        let bin = super::super::tests::check(&pressure_text(18));
        assert!(bin.tls_size > 0 && bin.stats.spills > 0);
        let dis = super::super::disasm::disassemble(&bin.code).unwrap();
        assert!(dis.contains(".tl"), "{dis}");
    }
}
