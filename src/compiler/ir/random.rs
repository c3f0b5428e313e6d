//! Random valid IR programs for property tests: pass round trips and
//! validation here, and (for the back end) "compile it and compare with the
//! interpreter". Deterministic per seed, no dependency on a test framework;
//! every program terminates (loops have a counter param and a trip count of
//! at most `max_trips`; every `continue` increments the counter).
//!
//! A program is a vertex shader with `num_outputs` i32 outputs at locations
//! 0.., reading `vertex_index`/`instance_index`, doing integer (and, if
//! enabled, float) arithmetic, `vec`/`swizzle`, nested `if`s with results,
//! loops with params, results and early `break`/`continue` from nested ifs,
//! and storing to the outputs (also inside branches and loops). With
//! `use_vars`, values cross regions through function-local variables the
//! way the SPIR-V front end emits them (every variable is stored before the
//! first load). Division ops are included; their by-zero results are defined
//! in `eval.rs`.

use super::builder::Builder;
use super::instr::*;
use super::shader::*;
use super::types::{Value, ValueType, VarId};

/// Knobs of [`random_shader`].
#[derive(Clone, Debug)]
pub struct RandomConfig {
    /// Instructions per region (roughly).
    pub max_instrs: usize,
    /// Nesting depth of ifs and loops.
    pub max_depth: usize,
    pub max_trips: u32,
    pub num_outputs: u32,
    /// Use float ops (no transcendentals).
    pub floats: bool,
    /// Carry values across regions through variables (var form) as well
    /// as through results and params.
    pub use_vars: bool,
    /// Also use 16/64-bit and vector arithmetic, bitfield, bitcast and pack ops.
    pub extended: bool,
}

impl Default for RandomConfig {
    fn default() -> RandomConfig {
        RandomConfig {
            max_instrs: 8,
            max_depth: 3,
            max_trips: 4,
            num_outputs: 2,
            floats: true,
            use_vars: false,
            extended: true,
        }
    }
}

/// A small deterministic PRNG (splitmix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

const I32: ValueType = ValueType::U32;
const B1: ValueType = ValueType::BOOL;

const INT_BINOPS: &[AluOp] = &[
    AluOp::Iadd,
    AluOp::Isub,
    AluOp::Imul,
    AluOp::Iand,
    AluOp::Ior,
    AluOp::Ixor,
    AluOp::Ishl,
    AluOp::Ushr,
    AluOp::Ishr,
    AluOp::Imin,
    AluOp::Umax,
    AluOp::Udiv,
    AluOp::Irem,
    AluOp::Imod,
    AluOp::UmulHigh,
];
const INT_UNOPS: &[AluOp] = &[
    AluOp::Ineg,
    AluOp::Inot,
    AluOp::Iabs,
    AluOp::BitCount,
    AluOp::UfindMsb,
];
const COMPARES: &[AluOp] = &[AluOp::Ieq, AluOp::Ine, AluOp::Ilt, AluOp::Uge];
const FLOAT_BINOPS: &[AluOp] = &[AluOp::Fadd, AluOp::Fmul, AluOp::Fmin, AluOp::Fsub];

struct Gen<'r, 'c> {
    rng: &'r mut Rng,
    cfg: &'c RandomConfig,
    /// Values visible in each enclosing region (innermost last).
    scopes: Vec<Vec<Value>>,
    /// Function-local variables (var form only).
    vars: Vec<VarId>,
    /// Loop counters of the enclosing loops with their trip count (innermost last).
    loops: Vec<LoopInfo>,
}

#[derive(Clone)]
struct LoopInfo {
    counter: Value,
    /// Params after the counter (their types).
    carried: Vec<ValueType>,
    results: Vec<ValueType>,
}

/// A random valid vertex shader for `seed` (see the module doc).
pub fn random_shader(seed: u64, cfg: &RandomConfig) -> Shader {
    let mut rng = Rng::new(seed);
    let mut s = Shader::new(Stage::Vertex);
    s.info.name = format!("random_{seed}");
    s.info.local_size = [1, 1, 1];
    for i in 0..cfg.num_outputs {
        s.outputs.push(Output {
            name: format!("o{i}"),
            slot: OutputSlot::Location {
                location: i,
                component: 0,
            },
            ty: I32,
            xfb: None,
        });
    }
    let mut vars = Vec::new();
    if cfg.use_vars {
        for i in 0..3 {
            vars.push(s.new_var(format!("v{i}"), I32));
        }
    }
    let mut b = Builder::new(&mut s);
    let mut g = Gen {
        rng: &mut rng,
        cfg,
        scopes: vec![Vec::new()],
        vars,
        loops: Vec::new(),
    };
    let vi = b.sysval(SysVal::VertexIndex, I32);
    let ii = b.sysval(SysVal::InstanceIndex, I32);
    g.scopes[0].extend([vi, ii]);
    for var in g.vars.clone() {
        if g.rng.chance(80) {
            let v = g.value(&mut b, I32);
            b.store_var(var, v);
        }
    }
    g.region(&mut b, 0);
    for o in 0..cfg.num_outputs {
        let v = g.value(&mut b, I32);
        b.store(Intrinsic::StoreOutput { output: o }, &[v]);
    }
    b.finish();
    s
}

impl Gen<'_, '_> {
    fn visible(&self, b: &Builder, ty: ValueType) -> Vec<Value> {
        self.scopes
            .iter()
            .flatten()
            .copied()
            .filter(|&v| b.ty(v) == ty)
            .collect()
    }

    fn define(&mut self, v: Value) {
        if let Some(s) = self.scopes.last_mut() {
            s.push(v);
        }
    }

    /// A visible value of `ty`, or a new constant / variable load.
    fn value(&mut self, b: &mut Builder, ty: ValueType) -> Value {
        if ty == I32 && !self.vars.is_empty() && self.rng.chance(30) {
            let var = self.rng.pick(&self.vars);
            let v = b.load_var(var);
            self.define(v);
            return v;
        }
        let vis = self.visible(b, ty);
        if !vis.is_empty() && self.rng.chance(80) {
            return self.rng.pick(&vis);
        }
        let v = if ty == B1 {
            let x = self.rng.chance(50);
            b.imm_bool(x)
        } else if ty == I32 {
            let x = match self.rng.below(4) {
                0 => 0,
                1 => 1,
                2 => 0xffff_ffff,
                _ => self.rng.below(100) as u32,
            };
            b.imm_u32(x)
        } else {
            let c = (0..ty.comps)
                .map(|_| self.rng.below(16))
                .collect::<Vec<_>>();
            b.imm(ty, &c)
        };
        self.define(v);
        v
    }

    fn region(&mut self, b: &mut Builder, depth: usize) {
        let n = 1 + self.rng.below(self.cfg.max_instrs as u64) as usize;
        for _ in 0..n {
            self.instr(b, depth);
        }
    }

    fn instr(&mut self, b: &mut Builder, depth: usize) {
        let kind = self.rng.below(100);
        let nested = depth < self.cfg.max_depth;
        let v = match kind {
            0..=29 => {
                let op = self.rng.pick(INT_BINOPS);
                let x = self.value(b, I32);
                let y = self.value(b, I32);
                b.alu(op, &[x, y])
            }
            30..=37 => {
                let op = self.rng.pick(INT_UNOPS);
                let x = self.value(b, I32);
                b.alu_typed(op, I32, &[x])
            }
            38..=47 => {
                let op = self.rng.pick(COMPARES);
                let x = self.value(b, I32);
                let y = self.value(b, I32);
                b.alu(op, &[x, y])
            }
            48..=53 => {
                let c = self.value(b, B1);
                let x = self.value(b, I32);
                let y = self.value(b, I32);
                b.alu(AluOp::Bcsel, &[c, x, y])
            }
            54..=57 => {
                let c = self.value(b, B1);
                if self.rng.chance(50) {
                    b.alu_typed(AluOp::B2i, I32, &[c])
                } else {
                    let d = self.value(b, B1);
                    b.alu(
                        self.rng.pick(&[AluOp::Iand, AluOp::Ior, AluOp::Ixor]),
                        &[c, d],
                    )
                }
            }
            58..=63 if self.cfg.floats => {
                let x = self.value(b, I32);
                let y = self.value(b, I32);
                let fx = b.alu_typed(AluOp::I2f, I32, &[x]);
                let fy = b.alu_typed(AluOp::U2f, I32, &[y]);
                let f = b.alu(self.rng.pick(FLOAT_BINOPS), &[fx, fy]);
                b.alu_typed(AluOp::F2i, I32, &[f])
            }
            64..=69 => {
                let x = self.value(b, I32);
                let y = self.value(b, I32);
                let v = b.vec(&[x, y]);
                let c = self.rng.below(2) as u8;
                let comps: &[u8] = if self.rng.chance(50) { &[c] } else { &[1, 0] };
                let sw = b.swizzle(v, comps);
                if comps.len() == 1 {
                    sw
                } else {
                    let z = b.swizzle(sw, &[0]);
                    b.alu(AluOp::Iadd, &[z, x])
                }
            }
            70..=75 => {
                let o = self.rng.below(u64::from(self.cfg.num_outputs)) as u32;
                let v = self.value(b, I32);
                if self.cfg.num_outputs > 0 {
                    b.store(Intrinsic::StoreOutput { output: o }, &[v]);
                }
                return;
            }
            76..=79 if !self.vars.is_empty() => {
                let var = self.rng.pick(&self.vars);
                let v = self.value(b, I32);
                b.store_var(var, v);
                return;
            }
            80..=87 if nested => {
                self.if_(b, depth);
                return;
            }
            88..=93 if nested => {
                self.loop_(b, depth);
                return;
            }
            94..=99 if !self.loops.is_empty() => {
                self.early_exit(b);
                return;
            }
            _ if self.cfg.extended && self.rng.chance(50) => self.extended(b),
            _ => {
                let x = self.value(b, I32);
                let one = b.imm_u32(1);
                b.alu(AluOp::Iadd, &[x, one])
            }
        };
        self.define(v);
    }

    /// Wider, narrower and vector arithmetic returning an i32.
    fn extended(&mut self, b: &mut Builder) -> Value {
        let x = self.value(b, I32);
        let y = self.value(b, I32);
        match self.rng.below(7) {
            0 | 1 => {
                let bits = self.rng.pick(&[8u8, 16, 64]);
                let ty = ValueType::new(bits, 1);
                let widen = self.rng.pick(&[AluOp::I2i, AluOp::U2u]);
                let wx = b.alu_typed(widen, ty, &[x]);
                let wy = b.alu_typed(widen, ty, &[y]);
                let op = self.rng.pick(INT_BINOPS);
                let r = if op.class() == AluClass::Shift {
                    b.alu(op, &[wx, y])
                } else {
                    b.alu(op, &[wx, wy])
                };
                b.alu_typed(self.rng.pick(&[AluOp::I2i, AluOp::U2u]), I32, &[r])
            }
            2 => {
                let v = b.vec(&[x, y]);
                let z = self.value(b, I32);
                let w = b.vec(&[z, x]);
                let r = b.alu(self.rng.pick(INT_BINOPS), &[v, w]);
                let c = self.rng.below(2) as u8;
                b.swizzle(r, &[c])
            }
            3 => {
                let v = b.vec(&[x, y]);
                let q = b.alu_typed(AluOp::Bitcast, ValueType::U64, &[v]);
                let one = b.imm_u64(0xffff_ffff);
                let r = b.alu(AluOp::Iadd, &[q, one]);
                let back = b.alu_typed(AluOp::Bitcast, ValueType::new(32, 2), &[r]);
                b.swizzle(back, &[1])
            }
            4 => {
                let off = b.imm_u32(self.rng.below(40) as u32);
                let op = self
                    .rng
                    .pick(&[AluOp::UbitfieldExtract, AluOp::IbitfieldExtract]);
                if self.rng.chance(50) {
                    b.alu_typed(op, I32, &[x, off, y])
                } else {
                    let cnt = self.value(b, I32);
                    b.alu_typed(AluOp::BitfieldInsert, I32, &[x, y, off, cnt])
                }
            }
            5 if self.cfg.floats => {
                let fx = b.alu_typed(AluOp::I2f, I32, &[x]);
                let fy = b.alu_typed(AluOp::U2f, I32, &[y]);
                let v = b.vec(&[fx, fy]);
                let op = self.rng.pick(&[
                    AluOp::PackHalf2x16,
                    AluOp::PackUnorm2x16,
                    AluOp::PackSnorm2x16,
                ]);
                let p = b.alu_typed(op, I32, &[v]);
                let u = b.alu_typed(AluOp::UnpackHalf2x16, ValueType::new(32, 2), &[p]);
                let c = b.swizzle(u, &[0]);
                b.alu_typed(AluOp::F2i, I32, &[c])
            }
            _ => {
                let op = self.rng.pick(&[
                    AluOp::BitfieldReverse,
                    AluOp::FindLsb,
                    AluOp::IfindMsb,
                    AluOp::Isign,
                ]);
                b.alu_typed(op, I32, &[x])
            }
        }
    }

    fn if_(&mut self, b: &mut Builder, depth: usize) {
        let cond = self.value(b, B1);
        let nres = if self.cfg.use_vars {
            0
        } else {
            self.rng.below(3) as usize
        };
        let tys = vec![I32; nres];
        // Both branch closures need the generator: they run one after the other.
        let this = std::cell::RefCell::new(&mut *self);
        let branch = |b: &mut Builder| {
            let mut g = this.borrow_mut();
            g.scopes.push(Vec::new());
            g.region(b, depth + 1);
            let ys = (0..nres).map(|_| g.value(b, I32)).collect();
            g.scopes.pop();
            ys
        };
        let results = b.if_(cond, &tys, branch, branch);
        for r in results {
            self.define(r);
        }
    }

    fn loop_(&mut self, b: &mut Builder, depth: usize) {
        let trips = 1 + self.rng.below(u64::from(self.cfg.max_trips)) as u32;
        let ncarried = if self.cfg.use_vars {
            0
        } else {
            self.rng.below(3) as usize
        };
        let nres = if self.cfg.use_vars {
            0
        } else {
            self.rng.below(3) as usize
        };
        let zero = b.imm_u32(0);
        let mut inits = vec![zero];
        for _ in 0..ncarried {
            inits.push(self.value(b, I32));
        }
        let info_results = vec![I32; nres];
        let this = std::cell::RefCell::new(&mut *self);
        let results = b.loop_(&inits, &info_results, |b, params| {
            let mut g = this.borrow_mut();
            let counter = params[0];
            g.loops.push(LoopInfo {
                counter,
                carried: vec![I32; ncarried],
                results: vec![I32; nres],
            });
            g.scopes.push(params.to_vec());
            // Leave after `trips` iterations.
            let limit = b.imm_u32(trips);
            let done = b.alu(AluOp::Uge, &[counter, limit]);
            let outs: Vec<Value> = (0..nres).map(|_| g.value(b, I32)).collect();
            b.if_(
                done,
                &[],
                |b| {
                    b.break_(&outs);
                    vec![]
                },
                |_| vec![],
            );
            g.region(b, depth + 1);
            let next = g.continue_values(b);
            g.scopes.pop();
            g.loops.pop();
            next
        });
        for r in results {
            self.define(r);
        }
    }

    /// The values of a `continue` of the innermost loop: counter + 1, then the carried values.
    fn continue_values(&mut self, b: &mut Builder) -> Vec<Value> {
        let info = self.loops.last().cloned().expect("inside a loop");
        let one = b.imm_u32(1);
        let mut vals = vec![b.alu(AluOp::Iadd, &[info.counter, one])];
        for &t in &info.carried {
            vals.push(self.value(b, t));
        }
        vals
    }

    /// `if c { break ... / continue ... } else { yield }` inside a loop.
    fn early_exit(&mut self, b: &mut Builder) {
        let cond = self.value(b, B1);
        let info = self.loops.last().cloned().expect("inside a loop");
        let is_break = self.rng.chance(50);
        let this = std::cell::RefCell::new(&mut *self);
        b.if_(
            cond,
            &[],
            |b| {
                let mut g = this.borrow_mut();
                g.scopes.push(Vec::new());
                if is_break {
                    let vals: Vec<Value> = info.results.iter().map(|&t| g.value(b, t)).collect();
                    b.break_(&vals);
                } else {
                    let vals = g.continue_values(b);
                    b.continue_(&vals);
                }
                g.scopes.pop();
                vec![]
            },
            |_| vec![],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generator must keep producing the control flow the tests rely on.
    #[test]
    fn random_programs_cover_control_flow() {
        let (mut ifs, mut loops, mut exits, mut nested_loops) = (0, 0, 0, 0);
        for seed in 0..100 {
            let s = random_shader(seed, &RandomConfig::default());
            s.body.for_each_instr(&mut |i| match &i.op {
                Op::If(_) => ifs += 1,
                Op::Loop(l) => {
                    loops += 1;
                    l.body.for_each_instr(&mut |j| {
                        nested_loops += usize::from(matches!(j.op, Op::Loop(_)))
                    });
                }
                Op::Break(_) | Op::Continue(_) => exits += 1,
                _ => {}
            });
        }
        assert!(
            ifs > 100 && loops > 30 && exits > 100 && nested_loops > 5,
            "{ifs} {loops} {exits} {nested_loops}"
        );
    }

    #[test]
    fn random_programs_are_valid() {
        for seed in 0..200 {
            for use_vars in [false, true] {
                let cfg = RandomConfig {
                    use_vars,
                    ..RandomConfig::default()
                };
                let s = random_shader(seed, &cfg);
                if seed == 3 && std::env::var("SHOW_RANDOM").is_ok() {
                    eprintln!("{s}");
                }
                if let Err(e) = s.validate() {
                    panic!("seed {seed}: {e}\n{s}");
                }
            }
        }
    }
}
