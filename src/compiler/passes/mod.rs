//! IR passes, one per file, each exposed as a `Shader` method returning
//! whether it made progress, so a pipeline reads as a list:
//!
//! ```ignore
//! s.lower_vars_to_ssa();
//! s.optimize(); // opt_constant_fold, opt_algebraic, opt_copy_prop, opt_cse, opt_dce, opt_if_merge, opt_peephole_select until stable
//! ```
//!
//! Adding a pass: create `passes/my_pass.rs` with
//! `impl Shader { pub fn my_pass(&mut self) -> bool { self.run_pass("my_pass", my_pass) } }`
//! and add one `mod my_pass;` line below. [`Shader::run_pass`] is the hook
//! every pass goes through: in debug builds it validates the IR after the pass
//! (panicking with the pass name, the error and the IR), and with the
//! environment variable `BIFROST_VK_DEBUG=ir` (a comma-separated list; `ir`
//! or `all`) it prints the IR after every pass that made progress to stderr.
//!
//! This module also holds the small helpers passes share (use counts,
//! constant lookup, value substitution). Passes never look at SPIR-V or
//! Bifrost details.

mod compact_values;
mod lower_int64;
pub mod lower_io;
pub mod lower_robust;
pub mod lower_sysvals;
mod lower_vars_to_ssa;
mod lower_viewport;
pub mod lower_xfb;
mod opt_algebraic;
mod opt_constant_fold;
mod opt_contract;
mod opt_copy_prop;
mod opt_cse;
mod opt_dce;
mod opt_dse;
mod opt_if_merge;
mod opt_licm;
mod opt_loop_unroll;
mod opt_peephole_select;
mod opt_split_div;

pub use lower_io::{IoLayout, lower_io};
pub use lower_sysvals::{PushUniformLayout, PushWord, SysvalBlock, lower_sysvals};
pub use lower_xfb::{ProvokingVertex, XfbDraw, XfbTopology, lower_xfb, strip_xfb};

use crate::compiler::ir::*;

/// Whether `BIFROST_VK_DEBUG` lists `flag` (or `all`). The variable is read
/// once per process (the compiler asks after every pass).
pub fn debug_flag(flag: &str) -> bool {
    static FLAGS: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    FLAGS
        .get_or_init(|| std::env::var("BIFROST_VK_DEBUG").ok())
        .as_deref()
        .is_some_and(|v| v.split(',').any(|f| f.trim() == flag || f.trim() == "all"))
}

impl Shader {
    /// Run one pass: afterwards reset the types of ids nothing defines (so
    /// the text form stays short), dump the IR if `BIFROST_VK_DEBUG=ir`, and
    /// in debug builds validate it.
    pub fn run_pass(&mut self, name: &str, pass: impl FnOnce(&mut Shader) -> bool) -> bool {
        let progress = pass(self);
        // The reset only shortens the text form (`compact_values` drops
        // the ids anyway): a walk of the whole shader that release builds
        // skip unless the IR is printed.
        if progress && (cfg!(debug_assertions) || debug_flag("ir")) {
            let defined = self.defined_values();
            for (ty, d) in self.values.iter_mut().zip(defined) {
                if !d {
                    *ty = ValueType::U32;
                }
            }
            if debug_flag("ir") {
                eprintln!("// IR after {name}\n{self}");
            }
        }
        if cfg!(debug_assertions)
            && let Err(e) = self.validate()
        {
            panic!("IR invalid after {name}: {e}\n{self}");
        }
        progress
    }

    /// The generic optimisation loop: run the opt passes until none makes
    /// progress (at most 16 rounds). Returns whether anything changed.
    pub fn optimize(&mut self) -> bool {
        let mut any = false;
        for _ in 0..16 {
            let progress = self.optimize_round();
            any |= progress;
            if !progress {
                break;
            }
        }
        any
    }

    /// One round of the opt passes, each once in the loop's order: what
    /// `compiler::pipeline` runs after the per-variant lowering, whose
    /// leftovers (copies, repeated constants and loads, identities, dead
    /// code, adjacent `if`s on one condition) one round removes — a second
    /// round finds nothing on any corpus shader or Mesa vector
    /// (`tests/backend_corpus.rs::front_half_output_needs_no_reoptimisation`),
    /// and would cost about a fifth of an XFB pipeline's compile. Returns
    /// whether anything changed.
    pub fn optimize_round(&mut self) -> bool {
        let mut progress = false;
        // Folding keeps a table of the constants, which is the one
        // `opt_algebraic` would build by walking the shader again.
        let mut consts = None;
        progress |= self.run_pass("opt_constant_fold", |s| {
            let (progress, table) = opt_constant_fold::fold_keeping_consts(s);
            consts = Some(table);
            progress
        });
        progress |= self.run_pass("opt_algebraic", |s| {
            let table = consts.take().unwrap_or_else(|| const_values(s));
            opt_algebraic::algebraic_with_consts(s, table)
        });
        progress |= self.opt_copy_prop();
        progress |= self.opt_cse();
        progress |= self.opt_dce();
        progress |= self.opt_if_merge();
        progress |= self.opt_peephole_select();
        progress
    }
}

/// Value replacement map: `dst → src` for values a pass has made redundant.
/// Chains resolve transitively; [`Subst::apply`] rewrites every use.
///
/// The opt passes walk the shader in program order and resolve each
/// instruction's sources as they go ([`Subst::resolve_srcs`]); in SSA form
/// a value is replaced at its definition, before any use, so the final
/// `apply` usually finds nothing to rewrite. A map made with
/// [`Subst::tracking`] remembers which values sources already hold and
/// lets `apply` skip its walk unless one of them got a replacement later
/// (only then can a source be stale): the result is the same, one walk of
/// the whole shader cheaper.
pub struct Subst {
    map: Vec<Option<Value>>,
    any: bool,
    /// [`Subst::tracking`]: values some source holds, by id (empty otherwise).
    read: Vec<bool>,
    tracking: bool,
    /// A value in `read` (or an id past it) got a replacement after it
    /// was read: `apply` must walk.
    stale: bool,
}

impl Subst {
    pub fn new(shader: &Shader) -> Subst {
        Subst {
            map: vec![None; shader.values.len()],
            any: false,
            read: Vec::new(),
            tracking: false,
            stale: false,
        }
    }

    /// A map whose [`Subst::apply`] walks only when a source may be stale:
    /// the pass must resolve every source it visits with
    /// [`Subst::resolve_srcs`] and report every value it stores into a
    /// source otherwise with [`Subst::note_read`].
    pub fn tracking(shader: &Shader) -> Subst {
        Subst {
            read: vec![false; shader.values.len()],
            tracking: true,
            ..Subst::new(shader)
        }
    }

    /// Grow to cover ids allocated after construction.
    fn fit(&mut self, v: Value) {
        if v.index() >= self.map.len() {
            self.map.resize(v.index() + 1, None);
        }
    }

    pub fn replace(&mut self, from: Value, to: Value) {
        let to = self.get(to);
        if from != to {
            self.fit(from);
            self.map[from.index()] = Some(to);
            self.any = true;
            if self.read.get(from.index()).copied().unwrap_or(false) {
                self.stale = true;
            }
        }
    }

    pub fn get(&self, mut v: Value) -> Value {
        let mut steps = 0;
        while let Some(Some(n)) = self.map.get(v.index()) {
            v = *n;
            steps += 1;
            if steps > self.map.len() {
                break;
            }
        }
        v
    }

    /// Rewrite `instr`'s direct sources through the map (what `apply` does
    /// to them) and note the values they now hold.
    #[inline]
    pub fn resolve_srcs(&mut self, instr: &mut Instr) {
        for src in instr.srcs_mut() {
            let v = self.get(*src);
            *src = v;
            self.note_read(v);
        }
    }

    /// A source now holds `v` (for [`Subst::tracking`] maps).
    #[inline]
    pub fn note_read(&mut self, v: Value) {
        match self.read.get_mut(v.index()) {
            Some(r) => *r = true,
            // An id past the table: no cheap record, so `apply` walks.
            None => self.stale |= self.tracking,
        }
    }

    pub fn is_empty(&self) -> bool {
        !self.any
    }

    /// Rewrite every use in `region` (nested regions included).
    pub fn apply(&self, region: &mut Region) {
        if !self.any || (self.tracking && !self.stale) {
            return;
        }
        region.for_each_region_mut(&mut |r| {
            for instr in &mut r.instrs {
                for src in instr.srcs_mut() {
                    *src = self.get(*src);
                }
            }
        });
    }
}

/// Number of uses of every value (direct sources of every instruction,
/// terminator operands and loop inits included).
pub fn use_counts(shader: &Shader) -> Vec<u32> {
    let mut counts = vec![0u32; shader.values.len()];
    shader.body.for_each_instr(&mut |instr| {
        for v in instr.srcs() {
            if let Some(c) = counts.get_mut(v.index()) {
                *c += 1;
            }
        }
    });
    counts
}

/// The components of values defined by a `const`, by value id: one pool
/// of components and a (start, length) slot per value, not a vector each.
pub struct ConstTable {
    slots: Vec<Option<(u32, u32)>>,
    pool: Vec<u64>,
}

impl ConstTable {
    /// The components of `v`, if it is a known constant.
    pub fn get(&self, v: Value) -> Option<&[u64]> {
        let (start, len) = (*self.slots.get(v.index())?)?;
        Some(&self.pool[start as usize..(start + len) as usize])
    }

    /// Records `v` as the constant `values` (growing the table for ids
    /// allocated after it was built).
    pub fn set(&mut self, v: Value, values: &[u64]) {
        if v.index() >= self.slots.len() {
            self.slots.resize(v.index() + 1, None);
        }
        let start = self.pool.len() as u32;
        self.pool.extend_from_slice(values);
        self.slots[v.index()] = Some((start, values.len() as u32));
    }
}

/// The components of every value defined by a `const`.
pub fn const_values(shader: &Shader) -> ConstTable {
    let mut consts = ConstTable {
        slots: vec![None; shader.values.len()],
        pool: Vec::new(),
    };
    shader.body.for_each_instr(&mut |instr| {
        if let (Op::Const(c), [d]) = (&instr.op, &instr.dsts[..])
            && d.index() < consts.slots.len()
        {
            consts.set(*d, &c.values);
        }
    });
    consts
}

/// Every value defined inside `region` (results, loop params, nested regions).
pub fn defined_in(region: &Region, num_values: usize) -> Vec<bool> {
    let mut defined = vec![false; num_values];
    region.for_each_instr(&mut |instr| {
        let params = match &instr.op {
            Op::Loop(l) => &l.params[..],
            _ => &[],
        };
        for v in instr.dsts.iter().chain(params) {
            if let Some(d) = defined.get_mut(v.index()) {
                *d = true;
            }
        }
    });
    defined
}

/// Visit the `break`/`continue` instructions that target the loop whose body
/// is `body` (not those of nested loops).
pub fn for_each_loop_exit_mut(body: &mut Region, f: &mut dyn FnMut(&mut Instr)) {
    for instr in &mut body.instrs {
        match &mut instr.op {
            Op::Break(_) | Op::Continue(_) => f(instr),
            Op::If(i) => {
                for_each_loop_exit_mut(&mut i.then_region, f);
                for_each_loop_exit_mut(&mut i.else_region, f);
            }
            _ => {}
        }
    }
}

/// Read-only version of [`for_each_loop_exit_mut`].
pub fn for_each_loop_exit<'a>(body: &'a Region, f: &mut dyn FnMut(&'a Instr)) {
    for instr in &body.instrs {
        match &instr.op {
            Op::Break(_) | Op::Continue(_) => f(instr),
            Op::If(i) => {
                for_each_loop_exit(&i.then_region, f);
                for_each_loop_exit(&i.else_region, f);
            }
            _ => {}
        }
    }
}

/// The `yield` ending each branch of an `if` (none for a diverging branch).
pub fn branch_yield_mut(region: &mut Region) -> Option<&mut OpValues> {
    match region.instrs.last_mut().map(|i| &mut i.op) {
        Some(Op::Yield(y)) => Some(y),
        _ => None,
    }
}

/// Drop everything after the first instruction that ends the region (a
/// terminator or an `if` both of whose branches diverge): it is unreachable.
/// A diverging `if` ending the region loses its results (nothing can use them).
pub fn truncate_after_end(region: &mut Region) -> bool {
    let diverging_if = |i: &Instr| matches!(&i.op, Op::If(f) if f.then_region.diverges() && f.else_region.diverges());
    let end = region
        .instrs
        .iter()
        .position(|i| i.op.is_terminator() || diverging_if(i));
    let mut progress = false;
    if let Some(e) = end {
        if e + 1 < region.instrs.len() {
            region.instrs.truncate(e + 1);
            progress = true;
        }
        let last = &mut region.instrs[e];
        if diverging_if(last) && !last.dsts.is_empty() {
            last.dsts.clear();
            progress = true;
        }
    }
    progress
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shader() -> Shader {
        Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 4
  %0:i32 = load_sysval sysval=local_invocation_index
  %1:i32 = mov %0
  %2:i32 = iadd %1, %1
  store_ssbo set=0 binding=0 %2, %1
}"#,
        )
        .unwrap()
    }

    /// A tracking map's `apply` still rewrites a source that was resolved
    /// before its value got a replacement (the walk it skips otherwise).
    #[test]
    fn tracking_subst_applies_replacements_made_after_a_read() {
        let mut s = shader();
        let mut subst = Subst::tracking(&s);
        for instr in &mut s.body.instrs {
            subst.resolve_srcs(instr);
        }
        subst.replace(Value(1), Value(0));
        subst.apply(&mut s.body);
        assert_eq!(s.body.instrs[2].srcs(), &[Value(0), Value(0)]);
        assert_eq!(s.body.instrs[3].srcs(), &[Value(2), Value(0)]);
    }

    /// Replacements made before any source holds the value need no walk:
    /// resolving in program order already rewrote every use.
    #[test]
    fn tracking_subst_resolves_uses_after_the_replacement() {
        let mut s = shader();
        let mut subst = Subst::tracking(&s);
        let mut instrs = std::mem::take(&mut s.body.instrs);
        for instr in &mut instrs {
            subst.resolve_srcs(instr);
            if let Op::Alu(OpAlu {
                op: AluOp::Mov,
                srcs,
            }) = &instr.op
            {
                subst.replace(instr.dsts[0], srcs[0]);
            }
        }
        assert!(!subst.stale);
        assert_eq!(instrs[2].srcs(), &[Value(0), Value(0)]);
        assert_eq!(instrs[3].srcs(), &[Value(2), Value(0)]);
    }
}
