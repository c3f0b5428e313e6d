//! `opt_copy_prop`: replace values that are copies of others by the
//! originals: `mov x`; identity swizzles; swizzles of swizzles (composed into
//! one swizzle of the original); a one-component swizzle of a `vec` whose
//! picked source is a scalar; `vec x` of one source; `vec` of the in-order
//! single-component swizzles of one value; `if` results every yielding
//! branch gives the same value defined outside the `if`; loop params every
//! `continue` passes unchanged (or as the init); loop results every `break`
//! gives the same value defined outside the loop. Only replaces a value by
//! one visible wherever it is used; leaves dead definitions to `opt_dce`.

use super::{Subst, defined_in, for_each_loop_exit};
use crate::compiler::inline_vec::InlineVec;
use crate::compiler::ir::*;

impl Shader {
    pub fn opt_copy_prop(&mut self) -> bool {
        self.run_pass("opt_copy_prop", opt_copy_prop)
    }
}

/// What a value's defining instruction is, for the patterns above.
#[derive(Clone)]
enum Def {
    Swizzle(Value, InlineVec<u8, 4>),
    Vec(ValueList),
}

struct CopyProp<'a> {
    values: &'a [ValueType],
    defs: Vec<Option<Def>>,
    subst: Subst,
    progress: bool,
}

fn opt_copy_prop(s: &mut Shader) -> bool {
    let mut body = std::mem::take(&mut s.body);
    let mut cp = CopyProp {
        values: &s.values,
        defs: vec![None; s.values.len()],
        subst: Subst::tracking(s),
        progress: false,
    };
    cp.region(&mut body);
    cp.subst.apply(&mut body);
    let progress = cp.progress;
    s.body = body;
    progress
}

impl CopyProp<'_> {
    fn comps(&self, v: Value) -> usize {
        self.values
            .get(v.index())
            .map_or(0, |t| usize::from(t.comps))
    }

    fn copy(&mut self, dst: Value, src: Value) {
        self.subst.replace(dst, src);
        self.progress = true;
    }

    fn region(&mut self, region: &mut Region) {
        for instr in &mut region.instrs {
            self.subst.resolve_srcs(instr);
            let dst = instr.dsts.first().copied();
            match &mut instr.op {
                Op::Alu(OpAlu {
                    op: AluOp::Mov,
                    srcs,
                }) => {
                    if let (Some(d), [s]) = (dst, &srcs[..]) {
                        self.copy(d, *s);
                    }
                }
                Op::Swizzle(sw) => {
                    let Some(d) = dst else { continue };
                    // Compose with a swizzle source.
                    if let Some(Some(Def::Swizzle(inner, ic))) =
                        self.defs.get(sw.src.index()).cloned()
                        && sw.comps.iter().all(|&c| usize::from(c) < ic.len())
                    {
                        sw.comps = sw.comps.iter().map(|&c| ic[usize::from(c)]).collect();
                        sw.src = inner;
                        self.subst.note_read(inner);
                        self.progress = true;
                    }
                    let identity = sw.comps.len() == self.comps(sw.src)
                        && sw
                            .comps
                            .iter()
                            .enumerate()
                            .all(|(i, &c)| usize::from(c) == i);
                    if identity {
                        self.copy(d, sw.src);
                        continue;
                    }
                    if let (Some(Some(Def::Vec(srcs))), [c]) =
                        (self.defs.get(sw.src.index()).cloned(), &sw.comps[..])
                    {
                        // Find the vec source holding component c.
                        let mut first = 0;
                        for s in srcs {
                            let n = self.comps(s);
                            if usize::from(*c) < first + n {
                                if n == 1 {
                                    self.copy(d, s);
                                }
                                break;
                            }
                            first += n;
                        }
                        continue;
                    }
                    self.defs[d.index()] = Some(Def::Swizzle(sw.src, sw.comps.clone()));
                }
                Op::Vec(v) => {
                    let Some(d) = dst else { continue };
                    if let [s] = v.srcs[..] {
                        self.copy(d, s);
                        continue;
                    }
                    // vec x.x, x.y, ..., x.w (all of x, in order) → x.
                    let mut whole = None;
                    let mut ok = true;
                    for (i, s) in v.srcs.iter().enumerate() {
                        match self.defs.get(s.index()) {
                            Some(Some(Def::Swizzle(x, c)))
                                if c[..] == [i as u8] && whole.is_none_or(|w| w == *x) =>
                            {
                                whole = Some(*x)
                            }
                            _ => ok = false,
                        }
                    }
                    if let (true, Some(x)) = (ok, whole)
                        && self.comps(x) == v.srcs.len()
                    {
                        self.copy(d, x);
                        continue;
                    }
                    self.defs[d.index()] = Some(Def::Vec(v.srcs.clone()));
                }
                Op::If(f) => {
                    self.region(&mut f.then_region);
                    self.region(&mut f.else_region);
                    if instr.dsts.is_empty() {
                        continue;
                    }
                    let n = self.values.len();
                    let inside_then = defined_in(&f.then_region, n);
                    let inside_else = defined_in(&f.else_region, n);
                    let mut yields = Vec::new();
                    for r in [&f.then_region, &f.else_region] {
                        if let Some(Instr {
                            op: Op::Yield(y), ..
                        }) = r.instrs.last()
                        {
                            yields.push(&y.values);
                        }
                    }
                    for (k, &d) in instr.dsts.iter().enumerate() {
                        let Some(v) = yields
                            .first()
                            .and_then(|y| y.get(k))
                            .map(|&v| self.subst.get(v))
                        else {
                            continue;
                        };
                        let same = yields
                            .iter()
                            .all(|y| y.get(k).map(|&x| self.subst.get(x)) == Some(v));
                        let outside = !inside_then.get(v.index()).copied().unwrap_or(true)
                            && !inside_else.get(v.index()).copied().unwrap_or(true);
                        if same && outside {
                            self.copy(d, v);
                        }
                    }
                }
                Op::Loop(l) => {
                    // Params every continue passes unchanged (or as the init) are the init.
                    for k in 0..l.params.len() {
                        let (p, init) = (l.params[k], l.inits[k]);
                        let mut invariant = true;
                        for_each_loop_exit(&l.body, &mut |exit| {
                            if let Op::Continue(c) = &exit.op {
                                let v = c.values.get(k).map(|&v| self.subst.get(v));
                                if v != Some(p) && v != Some(init) {
                                    invariant = false;
                                }
                            }
                        });
                        if invariant && self.subst.get(p) == p {
                            self.copy(p, init);
                        }
                    }
                    self.region(&mut l.body);
                    let mut inside = defined_in(&l.body, self.values.len());
                    for p in &l.params {
                        inside[p.index()] = true;
                    }
                    for (k, &d) in instr.dsts.iter().enumerate() {
                        let mut val: Option<Option<Value>> = None;
                        for_each_loop_exit(&l.body, &mut |exit| {
                            if let Op::Break(b) = &exit.op {
                                let v = b.values.get(k).map(|&v| self.subst.get(v));
                                val = match val {
                                    None => Some(v),
                                    Some(prev) if prev == v => Some(prev),
                                    Some(_) => Some(None),
                                };
                            }
                        });
                        if let Some(Some(v)) = val
                            && !inside.get(v.index()).copied().unwrap_or(true)
                        {
                            self.copy(d, v);
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::compiler::ir::*;

    #[test]
    fn propagates_copies() {
        let mut s = Shader::parse(
            r#"shader compute "" {
  info local_size 1 1 1 shared 0 push 0
  values 14
  %0:i32x2 = load_sysval sysval=workgroup_id
  %1:i32x2 = mov %0
  %2:i32 = swizzle %1.x
  %3:i32 = swizzle %1.y
  %4:i32x2 = vec %2, %3
  %5:i32x2 = swizzle %4.yx
  %6:i32 = swizzle %5.x
  %7:b1 = ieq %6, %2
  %8:i32 = if %7 {
    yield %2
  } else {
    yield %2
  }
  %11:i32 = loop (%9:i32 = %3) {
    %10:i32 = iadd %9, %8
    if %7 {
      break %3
    } else {
      yield
    }
    continue %9
  }
  store_ssbo set=0 binding=0 %4, %11
}"#,
        )
        .unwrap();
        s.validate().unwrap();
        assert!(s.opt_copy_prop());
        let text = s.to_string();
        assert!(text.contains("%10:i32 = iadd %3, %2"), "{text}");
        assert!(text.contains("%6:i32 = swizzle %0.y"), "{text}");
        assert!(text.contains("%7:b1 = ieq %6, %2"), "{text}");
        assert!(text.contains("store_ssbo set=0 binding=0 %0, %3"), "{text}");
    }
}
