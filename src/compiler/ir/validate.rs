//! The IR validator: [`Shader::validate`] checks every structural and typing
//! invariant the passes and the back end rely on. It never modifies the
//! shader and never panics, whatever the input.
//!
//! Rules:
//! - every value id is below `values.len()`, has a valid type and is defined
//!   exactly once; every use is in scope: defined earlier in the same region
//!   or in an enclosing one (loop params only inside their loop body; `if`
//!   and `loop` results only after the instruction);
//! - a region ends in exactly one place: `yield`/`break`/`continue` and `if`s
//!   whose branches both diverge are only allowed as the last instruction;
//!   `if` branches end in `yield` (or diverge), loop bodies always diverge
//!   (never fall off the end), the shader body never ends in a terminator;
//! - `yield` only as the last instruction of an `if` branch, with values
//!   matching the `if`'s results; `break`/`continue` only inside a loop, with
//!   values matching the innermost loop's results / params; an `if` with
//!   results needs a branch that yields;
//! - ALU typing per [`AluClass`] (see [`check_alu`] for `Special` and the
//!   float/int width rules), `vec`/`swizzle` component counts, intrinsic
//!   source/destination types (store_output value = output type, addresses
//!   64-bit scalars, byte offsets 32-bit scalars, var/output ids in range);
//! - constants have one in-range value per component.

use super::instr::*;
use super::shader::{Region, Shader};
use super::types::{Value, ValueType};

/// Why a shader is invalid; `context` is the offending instruction's text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}{}", if context.is_empty() { String::new() } else { format!(" in `{context}`") })]
pub struct ValidationError {
    pub message: String,
    pub context: String,
}

type VResult = Result<(), ValidationError>;

#[derive(Clone, Copy, PartialEq)]
enum RegionKind {
    Body,
    IfBranch,
    LoopBody,
}

struct Validator<'a> {
    s: &'a Shader,
    defined: Vec<bool>,
    visible: Vec<bool>,
    /// Values visible now, in definition order: each region (and a loop's
    /// params) hides its own when it ends. One stack for the whole walk,
    /// not a vector per region.
    scope: Vec<Value>,
    /// Enclosing `if` result types (innermost last), for yield.
    ifs: Vec<Vec<ValueType>>,
    /// Enclosing loops: (param types, result types), innermost last.
    loops: Vec<(Vec<ValueType>, Vec<ValueType>)>,
    /// The instruction being checked (printed only when reporting an error).
    context: Option<&'a Instr>,
}

impl Shader {
    /// Check every invariant of the IR (see the module doc).
    pub fn validate(&self) -> Result<(), ValidationError> {
        for (i, t) in self.values.iter().enumerate() {
            if !t.is_valid() {
                return Err(err(format!("value %{i} has invalid type {t:?}"), ""));
            }
        }
        for o in &self.outputs {
            if !o.ty.is_valid() || o.ty.is_bool() {
                return Err(err(format!("output {:?} has invalid type", o.name), ""));
            }
        }
        for v in &self.vars {
            if !v.ty.is_valid() {
                return Err(err(format!("variable {:?} has invalid type", v.name), ""));
            }
        }
        for i in &self.inputs {
            if !i.ty.is_valid() || i.ty.is_bool() {
                return Err(err(format!("input {:?} has invalid type", i.name), ""));
            }
        }
        let mut v = Validator {
            s: self,
            defined: vec![false; self.values.len()],
            visible: vec![false; self.values.len()],
            // At most every value is visible at once: no growth.
            scope: Vec::with_capacity(self.values.len()),
            ifs: Vec::new(),
            loops: Vec::new(),
            context: None,
        };
        v.region(&self.body, RegionKind::Body)
    }
}

fn err(message: impl Into<String>, context: &str) -> ValidationError {
    ValidationError {
        message: message.into(),
        context: context.to_string(),
    }
}

fn is_float_width(bits: u8) -> bool {
    matches!(bits, 16 | 32 | 64)
}

/// Ops whose sources are floats.
pub fn alu_reads_float(op: AluOp) -> bool {
    use AluOp::*;
    matches!(
        op,
        Fadd | Fsub
            | Fmul
            | Ffma
            | Fdiv
            | Fneg
            | Fabs
            | Fsign
            | Fmin
            | Fmax
            | Fsat
            | Fsqrt
            | Frsq
            | Frcp
            | Fexp2
            | Flog2
            | Fsin
            | Fcos
            | Ffloor
            | Fceil
            | Ftrunc
            | Ffract
            | FroundEven
            | Fpow
            | Feq
            | Fneu
            | Flt
            | Fge
            | F2i
            | F2u
            | F2f
    )
}

/// Ops that also accept booleans (bitwise, copies, equality, selection).
pub fn alu_accepts_bool(op: AluOp) -> bool {
    use AluOp::*;
    matches!(op, Mov | Iand | Ior | Ixor | Inot | Ieq | Ine | Bcsel)
}

/// Type rules of one ALU instruction (`dst` its destination type, `srcs`
/// its source types, already checked to number `op.num_srcs()`).
///
/// - Float ops need 16/32/64-bit values; integer ops need at least 8 bits;
///   booleans only in `mov iand ior ixor inot ieq ine` and as `bcsel`'s arms.
/// - Special: `bitfield_insert(base, insert, offset, count)` base/insert/dst
///   share a type, offset/count are 32-bit with the same component count;
///   `u/ibitfield_extract(value, offset, count)` likewise; `bit_count`,
///   `find_lsb`, `u/ifind_msb` give 32-bit results with the source's
///   component count; `bitcast` keeps the total bit count (no booleans);
///   `pack_half_2x16`, `pack_*norm_2x16` take i32x2 → i32, `pack_*norm_4x8`
///   i32x4 → i32, and the unpacks the reverse.
pub fn check_alu(op: AluOp, dst: ValueType, srcs: &[ValueType]) -> Result<(), String> {
    use AluOp::*;
    let need = |ok: bool, what: &str| {
        if ok {
            Ok(())
        } else {
            Err(format!("{}: {what}", op.name()))
        }
    };
    let width_ok = |t: ValueType| {
        if alu_reads_float(op) {
            is_float_width(t.bits)
        } else if alu_accepts_bool(op) {
            true
        } else {
            t.bits >= 8
        }
    };
    match op.class() {
        AluClass::Same => {
            need(
                srcs.iter().all(|&t| t == dst),
                "sources and result must share a type",
            )?;
            need(width_ok(dst), "bad bit size for this op")
        }
        AluClass::Compare => {
            need(
                dst == ValueType::new(1, srcs[0].comps),
                "result must be boolean of the sources' width",
            )?;
            need(srcs[1] == srcs[0], "sources must share a type")?;
            need(width_ok(srcs[0]), "bad bit size for this op")
        }
        AluClass::Select => {
            need(
                srcs[0] == ValueType::new(1, dst.comps),
                "condition must be boolean of the result's width",
            )?;
            need(
                srcs[1] == dst && srcs[2] == dst,
                "arms and result must share a type",
            )
        }
        AluClass::Shift => {
            need(
                srcs[0] == dst && dst.bits >= 8,
                "value and result must share an integer type",
            )?;
            need(
                srcs[1] == ValueType::new(32, dst.comps),
                "shift count must be 32-bit",
            )
        }
        AluClass::Convert => {
            need(
                srcs.iter().all(|t| t.comps == dst.comps),
                "component counts must match",
            )?;
            let (s, d) = (srcs[0].bits, dst.bits);
            let ok = match op {
                I2f | U2f => s >= 8 && is_float_width(d),
                F2i | F2u => is_float_width(s) && d >= 8,
                F2f => is_float_width(s) && is_float_width(d),
                I2i | U2u => s >= 8 && d >= 8,
                B2i => s == 1 && d >= 8,
                B2f => s == 1 && is_float_width(d),
                I2b => s >= 8 && d == 1,
                _ => false,
            };
            need(ok, "bad source/result bit sizes for this conversion")
        }
        AluClass::Special => {
            let v32 = |c: u8| ValueType::new(32, c);
            match op {
                BitfieldInsert => {
                    need(
                        srcs[0] == dst && srcs[1] == dst && dst.bits >= 8,
                        "base, insert and result must share an integer type",
                    )?;
                    need(
                        srcs[2] == v32(dst.comps) && srcs[3] == v32(dst.comps),
                        "offset and count must be 32-bit",
                    )
                }
                UbitfieldExtract | IbitfieldExtract => {
                    need(
                        srcs[0] == dst && dst.bits >= 8,
                        "value and result must share an integer type",
                    )?;
                    need(
                        srcs[1] == v32(dst.comps) && srcs[2] == v32(dst.comps),
                        "offset and count must be 32-bit",
                    )
                }
                BitCount | FindLsb | UfindMsb | IfindMsb => need(
                    srcs[0].bits >= 8 && dst == v32(srcs[0].comps),
                    "integer source, 32-bit result of the same width",
                ),
                Bitcast => need(
                    !srcs[0].is_bool()
                        && !dst.is_bool()
                        && u32::from(srcs[0].bits) * u32::from(srcs[0].comps)
                            == u32::from(dst.bits) * u32::from(dst.comps),
                    "bitcast must keep the total bit count (no booleans)",
                ),
                PackHalf2x16 | PackUnorm2x16 | PackSnorm2x16 => {
                    need(srcs[0] == v32(2) && dst == v32(1), "takes i32x2, gives i32")
                }
                PackUnorm4x8 | PackSnorm4x8 => {
                    need(srcs[0] == v32(4) && dst == v32(1), "takes i32x4, gives i32")
                }
                UnpackHalf2x16 | UnpackUnorm2x16 | UnpackSnorm2x16 => {
                    need(srcs[0] == v32(1) && dst == v32(2), "takes i32, gives i32x2")
                }
                UnpackUnorm4x8 | UnpackSnorm4x8 => {
                    need(srcs[0] == v32(1) && dst == v32(4), "takes i32, gives i32x4")
                }
                _ => Err(format!("{}: no type rule", op.name())),
            }
        }
    }
}

impl<'a> Validator<'a> {
    fn fail<T>(&self, message: impl Into<String>) -> Result<T, ValidationError> {
        let text = self
            .context
            .map(|i| self.s.instr_to_string(i))
            .unwrap_or_default();
        Err(err(message, text.lines().next().unwrap_or_default()))
    }

    fn ty(&self, v: Value) -> Result<ValueType, ValidationError> {
        match self.s.values.get(v.index()) {
            Some(&t) => Ok(t),
            None => self.fail(format!(
                "value {v} is out of range (values {})",
                self.s.values.len()
            )),
        }
    }

    /// The type of a use of `v` (every source of every instruction: the
    /// check is inline, the error built out of line).
    #[inline]
    fn use_(&self, v: Value) -> Result<ValueType, ValidationError> {
        match (self.s.values.get(v.index()), self.visible.get(v.index())) {
            (Some(&t), Some(true)) => Ok(t),
            _ => self.use_error(v),
        }
    }

    #[cold]
    #[inline(never)]
    fn use_error(&self, v: Value) -> Result<ValueType, ValidationError> {
        self.ty(v)?;
        self.fail(format!("use of {v} which is not defined in scope"))
    }

    /// Defines `v` in the innermost scope; its type.
    #[inline]
    fn def(&mut self, v: Value) -> Result<ValueType, ValidationError> {
        let i = v.index();
        match (self.s.values.get(i), self.defined.get(i)) {
            (Some(&t), Some(false)) => {
                self.defined[i] = true;
                self.visible[i] = true;
                self.scope.push(v);
                Ok(t)
            }
            _ => self.def_error(v),
        }
    }

    #[cold]
    #[inline(never)]
    fn def_error(&self, v: Value) -> Result<ValueType, ValidationError> {
        self.ty(v)?;
        self.fail(format!("{v} is defined more than once"))
    }

    /// Hides the values defined since the scope stack was `mark` long.
    fn end_scope(&mut self, mark: usize) {
        for v in self.scope.drain(mark..) {
            self.visible[v.index()] = false;
        }
    }

    fn set_context(&mut self, instr: &'a Instr) {
        self.context = Some(instr);
    }

    fn region(&mut self, region: &'a Region, kind: RegionKind) -> VResult {
        let mark = self.scope.len();
        let r = self.region_inner(region, kind);
        self.end_scope(mark);
        r
    }

    fn region_inner(&mut self, region: &'a Region, kind: RegionKind) -> VResult {
        let n = region.instrs.len();
        for (i, instr) in region.instrs.iter().enumerate() {
            self.set_context(instr);
            let last = i + 1 == n;
            let ends = instr.op.is_terminator()
                || matches!(&instr.op, Op::If(f) if f.then_region.diverges() && f.else_region.diverges());
            if ends && !last {
                return self.fail("instructions after the end of a region");
            }
            self.instr(instr, kind)?;
        }
        self.context = None;
        match kind {
            RegionKind::Body => {
                if region.instrs.last().is_some_and(|i| i.op.is_terminator()) {
                    return self.fail("the shader body cannot end in a terminator");
                }
            }
            RegionKind::IfBranch => {
                let yields = region
                    .instrs
                    .last()
                    .is_some_and(|i| matches!(i.op, Op::Yield(_)));
                if !yields && !region.diverges() {
                    return self.fail("an if branch must end in yield, break or continue");
                }
            }
            RegionKind::LoopBody => {
                if !region.diverges() {
                    return self.fail("a loop body must end in break or continue");
                }
            }
        }
        Ok(())
    }

    fn values_match(&self, what: &str, values: &[Value], tys: &[ValueType]) -> VResult {
        if values.len() != tys.len() {
            return self.fail(format!(
                "{what} gives {} values, expected {}",
                values.len(),
                tys.len()
            ));
        }
        for (&v, &t) in values.iter().zip(tys) {
            if self.use_(v)? != t {
                return self.fail(format!(
                    "{what} value {v} has the wrong type (expected {t})"
                ));
            }
        }
        Ok(())
    }

    fn instr(&mut self, instr: &'a Instr, kind: RegionKind) -> VResult {
        // Direct sources first (they must be visible before the definitions).
        // Up to four in place (no allocation per instruction).
        let srcs = instr.srcs();
        let mut inline = [ValueType::U32; 4];
        let heap: Vec<ValueType>;
        let src_tys: &[ValueType] = if srcs.len() <= inline.len() {
            for (slot, &v) in inline.iter_mut().zip(srcs) {
                *slot = self.use_(v)?;
            }
            &inline[..srcs.len()]
        } else {
            heap = srcs
                .iter()
                .map(|&v| self.use_(v))
                .collect::<Result<_, _>>()?;
            &heap
        };
        let one_dst = |this: &Self| -> Result<ValueType, ValidationError> {
            if instr.dsts.len() != 1 {
                return this.fail("expected exactly one result");
            }
            this.ty(instr.dsts[0])
        };
        match &instr.op {
            Op::Const(c) => {
                let t = one_dst(self)?;
                if c.values.len() != t.comps as usize {
                    return self.fail("constant needs one value per component");
                }
                if c.values.iter().any(|&x| x & !t.mask() != 0) {
                    return self.fail("constant does not fit its type");
                }
            }
            Op::Undef => {
                one_dst(self)?;
            }
            Op::Alu(a) => {
                let t = one_dst(self)?;
                if a.srcs.len() != a.op.num_srcs() {
                    return self.fail(format!("{} takes {} sources", a.op.name(), a.op.num_srcs()));
                }
                if let Err(e) = check_alu(a.op, t, src_tys) {
                    return self.fail(e);
                }
            }
            Op::Vec(v) => {
                let t = one_dst(self)?;
                let comps: u32 = src_tys.iter().map(|t| u32::from(t.comps)).sum();
                if v.srcs.is_empty()
                    || comps != u32::from(t.comps)
                    || src_tys.iter().any(|s| s.bits != t.bits)
                {
                    return self.fail(
                        "vec sources must share the bit size and add up to the result's components",
                    );
                }
            }
            Op::Swizzle(sw) => {
                let t = one_dst(self)?;
                let src = src_tys[0];
                if sw.comps.len() != t.comps as usize
                    || t.bits != src.bits
                    || sw.comps.iter().any(|&c| c >= src.comps)
                {
                    return self
                        .fail("swizzle components must exist in the source and match the result");
                }
            }
            Op::Intrinsic(i) => self.intrinsic(instr, i, src_tys)?,
            Op::If(f) => {
                if src_tys[0] != ValueType::BOOL {
                    return self.fail("if condition must be a scalar boolean");
                }
                let mut tys = Vec::new();
                for &d in &instr.dsts {
                    tys.push(self.ty(d)?);
                }
                if !tys.is_empty() && f.then_region.diverges() && f.else_region.diverges() {
                    return self.fail("if has results but no branch yields");
                }
                self.ifs.push(tys);
                let r = self
                    .region(&f.then_region, RegionKind::IfBranch)
                    .and_then(|_| self.region(&f.else_region, RegionKind::IfBranch));
                self.ifs.pop();
                r?;
                self.set_context(instr);
            }
            Op::Loop(l) => {
                if l.params.len() != l.inits.len() {
                    return self.fail("loop needs one init per param");
                }
                let mut ptys = Vec::new();
                for (&p, &it) in l.params.iter().zip(src_tys) {
                    let t = self.ty(p)?;
                    if t != it {
                        return self.fail(format!("loop param {p} and its init differ in type"));
                    }
                    ptys.push(t);
                }
                let mut rtys = Vec::new();
                for &d in &instr.dsts {
                    rtys.push(self.ty(d)?);
                }
                // Params are defined inside the body's scope.
                let mark = self.scope.len();
                let mut r = Ok(());
                for &p in &l.params {
                    if let Err(e) = self.def(p) {
                        r = Err(e);
                        break;
                    }
                }
                if r.is_ok() {
                    self.loops.push((ptys, rtys));
                    // Hide the enclosing if from yields inside the loop.
                    let saved_ifs = std::mem::take(&mut self.ifs);
                    r = self.region(&l.body, RegionKind::LoopBody);
                    self.ifs = saved_ifs;
                    self.loops.pop();
                }
                self.end_scope(mark);
                r?;
                self.set_context(instr);
            }
            Op::Yield(y) => {
                if kind != RegionKind::IfBranch {
                    return self.fail("yield outside an if branch");
                }
                let tys = self.ifs.last().cloned().unwrap_or_default();
                self.values_match("yield", &y.values, &tys)?;
            }
            Op::Break(b) => {
                let Some((_, rtys)) = self.loops.last().cloned() else {
                    return self.fail("break outside a loop");
                };
                self.values_match("break", &b.values, &rtys)?;
            }
            Op::Continue(c) => {
                let Some((ptys, _)) = self.loops.last().cloned() else {
                    return self.fail("continue outside a loop");
                };
                self.values_match("continue", &c.values, &ptys)?;
            }
        }
        if !matches!(
            instr.op,
            Op::Alu(_)
                | Op::Const(_)
                | Op::Undef
                | Op::Vec(_)
                | Op::Swizzle(_)
                | Op::Intrinsic(_)
                | Op::If(_)
                | Op::Loop(_)
        ) && !instr.dsts.is_empty()
        {
            return self.fail("terminators define no values");
        }
        for &d in &instr.dsts {
            self.def(d)?;
        }
        Ok(())
    }

    fn intrinsic(&self, instr: &Instr, i: &OpIntrinsic, src_tys: &[ValueType]) -> VResult {
        use Intrinsic::*;
        let u32t = ValueType::U32;
        let u64t = ValueType::U64;
        let nd = instr.dsts.len();
        let dst = instr.dsts.first().map(|&d| self.ty(d)).transpose()?;
        let srcs_are = |want: &[ValueType]| src_tys == want;
        let (ok, what): (bool, &str) = match i.kind {
            LoadInput { .. } | LoadSysVal(_) | LoadUniform { .. } => {
                (nd == 1 && src_tys.is_empty(), "no sources, one result")
            }
            LoadAttribute { .. } => (
                nd == 1 && srcs_are(&[u32t, u32t]),
                "sources [vertex id: i32, instance id: i32], one result",
            ),
            StoreOutput { output } => match self.s.outputs.get(output as usize) {
                None => return self.fail(format!("output {output} does not exist")),
                Some(o) => (
                    nd == 0 && srcs_are(&[o.ty]),
                    "one source of the output's type, no result",
                ),
            },
            LoadVar { var } => match self.s.vars.get(var.0 as usize) {
                None => return self.fail(format!("variable {var} does not exist")),
                Some(v) => (
                    nd == 1 && src_tys.is_empty() && dst == Some(v.ty),
                    "no sources, a result of the variable's type",
                ),
            },
            StoreVar { var } => match self.s.vars.get(var.0 as usize) {
                None => return self.fail(format!("variable {var} does not exist")),
                Some(v) => (
                    nd == 0 && srcs_are(&[v.ty]),
                    "one source of the variable's type, no result",
                ),
            },
            LoadPushConstant { .. } | LoadUbo { .. } | LoadSsbo { .. } | LoadShared => (
                nd == 1 && srcs_are(&[u32t]),
                "a 32-bit byte offset, one result",
            ),
            LoadGlobal => (nd == 1 && srcs_are(&[u64t]), "a 64-bit address, one result"),
            BufferSize { .. } => (
                nd == 1 && src_tys.is_empty() && dst == Some(u32t),
                "no sources, a 32-bit result",
            ),
            StoreSsbo { .. } | StoreShared => (
                nd == 0 && src_tys.len() == 2 && src_tys[1] == u32t && !src_tys[0].is_bool(),
                "sources [value, 32-bit byte offset], no result",
            ),
            StoreGlobal => (
                nd == 0 && src_tys.len() == 2 && src_tys[1] == u64t && !src_tys[0].is_bool(),
                "sources [value, 64-bit address], no result",
            ),
            SsboAtomic { op, .. } | SharedAtomic { op } | GlobalAtomic { op } => {
                let addr = if matches!(i.kind, GlobalAtomic { .. }) {
                    u64t
                } else {
                    u32t
                };
                let n = if op == AtomicOp::CompSwap { 3 } else { 2 };
                let data_ok = |t: &ValueType| Some(*t) == dst && t.comps == 1 && t.bits >= 32;
                (
                    nd == 1
                        && src_tys.len() == n
                        && src_tys[0] == addr
                        && src_tys[1..].iter().all(data_ok),
                    "sources [address/offset, (compare,) data] with data of the result's scalar 32/64-bit type",
                )
            }
            Texture {
                op,
                sampler,
                array,
                dim,
                offset,
                ..
            } => {
                let f32t = ValueType::F32;
                let c = dim.coords() + u8::from(array);
                // No 3D arrays (Vulkan has none); gathers and offsets of 2D
                // images only (Vulkan gathers 2D and cube images; offsets of
                // other dimensions are not supported by the front end).
                // Cube maps: sampling and gathers without offsets (no
                // fetches or depth compares through this intrinsic yet).
                let cube_ok = offset == [0, 0]
                    && matches!(
                        op,
                        TexOp::Sample
                            | TexOp::SampleLod
                            | TexOp::SampleBias
                            | TexOp::SampleDref
                            | TexOp::SampleDrefLod
                            | TexOp::Gather(_)
                    );
                let dim_ok = !(array && dim == TexDim::D3)
                    && (dim != TexDim::Cube || cube_ok)
                    && (dim == TexDim::D2
                        || dim == TexDim::Cube
                        || (offset == [0, 0]
                            && !matches!(op, TexOp::Gather(_) | TexOp::GatherDref)));
                let (srcs, ok_sampler): (&[ValueType], bool) = match op {
                    TexOp::Sample => (&[f32t.with_comps(c)], sampler.is_some()),
                    TexOp::SampleLod | TexOp::SampleBias | TexOp::SampleDref => {
                        (&[f32t.with_comps(c), f32t], sampler.is_some())
                    }
                    TexOp::SampleDrefLod => (&[f32t.with_comps(c), f32t, f32t], sampler.is_some()),
                    TexOp::Fetch => (&[u32t.with_comps(c), u32t], sampler.is_none()),
                    TexOp::Gather(k) => (&[f32t.with_comps(c)], sampler.is_some() && k < 4),
                    TexOp::GatherDref => (&[f32t.with_comps(c), f32t], sampler.is_some()),
                };
                (
                    nd == 1
                        && srcs_are(srcs)
                        && ok_sampler
                        && dim_ok
                        && dst == Some(u32t.with_comps(4))
                        && (!matches!(op, TexOp::Sample | TexOp::SampleBias | TexOp::SampleDref)
                            || self.s.stage == super::Stage::Fragment),
                    "sources [coord (1-3 x f32 by dimension, + 1 for an array), lod f32 for \
                     sample_lod] with a sampler, or [coord (i32), lod i32] without one for \
                     fetch; a 4 x 32-bit result; implicit LOD in fragment shaders only; \
                     gathers of components 0-3; gathers and offsets of 2D images only, no 3D arrays",
                )
            }
            Derivative { .. } => (
                nd == 1
                    && srcs_are(&[ValueType::F32])
                    && dst == Some(ValueType::F32)
                    && self.s.stage == super::Stage::Fragment,
                "one f32 source, an f32 result, in a fragment shader only",
            ),
            ImageLoad { array, .. } => (
                nd == 1
                    && srcs_are(&[u32t.with_comps(2 + u8::from(array))])
                    && dst == Some(u32t.with_comps(4)),
                "one source (coord: 2 x i32, 3 for an array), a 4 x 32-bit result",
            ),
            ImageStore { array, .. } => (
                nd == 0 && srcs_are(&[u32t.with_comps(2 + u8::from(array)), u32t.with_comps(4)]),
                "sources [coord: 2 x i32 (3 for an array), texel: 4 x 32-bit], no result",
            ),
            ImageAtomic { op, .. } => {
                let n = if op == AtomicOp::CompSwap { 3 } else { 2 };
                (
                    nd == 1
                        && src_tys.len() == n
                        && src_tys[0] == u32t.with_comps(2)
                        && src_tys[1..].iter().all(|t| *t == u32t)
                        && dst == Some(u32t),
                    "sources [coord: 2 x i32, (compare,) data: 32-bit], a 32-bit result",
                )
            }
            TextureSize { .. } => (
                nd == 1 && src_tys.is_empty() && dst == Some(u32t.with_comps(2)),
                "no sources, a 2 x 32-bit result",
            ),
            Barrier => (nd == 0 && src_tys.is_empty(), "no sources, no result"),
            Discard => (
                nd == 0 && src_tys.is_empty() && self.s.stage == super::Stage::Fragment,
                "no sources, no result, in a fragment shader only",
            ),
        };
        if ok {
            Ok(())
        } else {
            self.fail(format!("{} takes {what}", i.kind.text().0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::ir::{Builder, Stage};

    fn ok_shader() -> Shader {
        let mut s = Shader::new(Stage::Compute);
        let mut b = Builder::new(&mut s);
        let zero = b.imm_u32(0);
        let ten = b.imm_u32(10);
        let r = b.loop_(&[zero], &[ValueType::U32], |b, p| {
            let done = b.alu(AluOp::Uge, &[p[0], ten]);
            b.if_(
                done,
                &[],
                |b| {
                    b.break_(&[p[0]]);
                    vec![]
                },
                |_| vec![],
            );
            let one = b.imm_u32(1);
            vec![b.alu(AluOp::Iadd, &[p[0], one])]
        });
        b.store(Intrinsic::StoreSsbo { set: 0, binding: 0 }, &[r[0], zero]);
        b.finish();
        s
    }

    #[test]
    fn accepts_valid_loop() {
        ok_shader().validate().unwrap();
    }

    #[test]
    fn rejects_out_of_scope_use() {
        let mut s = ok_shader();
        // Use the loop param (%2) after the loop.
        let last = s.body.instrs.last_mut().unwrap();
        if let Op::Intrinsic(i) = &mut last.op {
            i.srcs[0] = Value(2);
        }
        let e = s.validate().unwrap_err();
        assert!(e.message.contains("not defined in scope"), "{e}");
    }

    #[test]
    fn rejects_double_definition_and_bad_types() {
        let mut s = ok_shader();
        s.body.instrs[1].dsts[0] = Value(0);
        assert!(s.validate().unwrap_err().message.contains("more than once"));

        let mut s = Shader::new(Stage::Compute);
        let mut b = Builder::new(&mut s);
        let x = b.imm_u32(1);
        let y = b.imm(ValueType::new(16, 1), &[1]);
        b.alu_typed(AluOp::Iadd, ValueType::U32, &[x, y]);
        b.finish();
        assert!(s.validate().unwrap_err().message.contains("share a type"));
    }

    #[test]
    fn rejects_break_outside_loop_and_falling_loop() {
        let mut s = Shader::new(Stage::Compute);
        let mut b = Builder::new(&mut s);
        b.break_(&[]);
        b.finish();
        assert!(s.validate().is_err());

        let mut s = ok_shader();
        if let Op::Loop(l) = &mut s.body.instrs[2].op {
            l.body.instrs.pop();
        }
        assert!(s.validate().unwrap_err().message.contains("loop body"));
    }

    #[test]
    fn rejects_bad_constant_and_swizzle() {
        let mut s = Shader::new(Stage::Compute);
        let mut b = Builder::new(&mut s);
        let v = b.emit(
            ValueType::new(8, 1),
            Op::Const(OpConst {
                values: [256].into(),
            }),
        );
        b.finish();
        assert!(s.validate().is_err());
        let mut s = Shader::new(Stage::Compute);
        let mut b = Builder::new(&mut s);
        let x = b.imm(ValueType::new(32, 2), &[1, 2]);
        b.swizzle(x, &[2]);
        b.finish();
        assert!(s.validate().unwrap_err().message.contains("swizzle"));
        let _ = v;
    }

    fn text_err(body: &str) -> String {
        let text = format!(
            "shader vertex \"\" {{\n info local_size 1 1 1 shared 0 push 0\n output \"o\" location 0 component 0 i32x2\n var \"v\" i32\n values 8\n{body}\n}}"
        );
        let s = Shader::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        match s.validate() {
            Ok(()) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn intrinsic_and_region_rules() {
        let ok = "%0:i32 = const 0x0\n%1:i32x2 = vec %0, %0\nstore_output output=0 %1";
        assert_eq!(text_err(ok), "");
        assert!(text_err("%0:i32 = const 0x0\nstore_output output=0 %0").contains("output's type"));
        assert!(
            text_err("%0:i32 = const 0x0\n%1:i32x2 = vec %0, %0\nstore_output output=1 %1")
                .contains("does not exist")
        );
        assert!(text_err("%0:i32 = const 0x0\n%1:i32 = load_global %0").contains("64-bit address"));
        assert!(
            text_err("%0:i64 = const 0x0\n%1:i32 = load_ssbo set=0 binding=0 %0")
                .contains("32-bit byte offset")
        );
        assert!(text_err("%0:i64 = load_var var=0").contains("variable's type"));
        assert!(text_err("%0:i32 = load_var var=3").contains("does not exist"));
        // Yield count, yield outside an if, terminator in the middle.
        let bad_yield = "%0:b1 = const 0x1\n%1:i32 = if %0 {\n yield\n} else {\n yield\n}";
        assert!(text_err(bad_yield).contains("yield gives 0 values"));
        assert!(text_err("loop () {\n yield\n}").contains("yield outside"));
        assert!(text_err("loop () {\n break\n %0:i32 = const 0x1\n}").contains("after the end"));
        let bad_continue = "%0:i32 = const 0x0\nloop (%1:i32 = %0) {\n continue\n}";
        assert!(text_err(bad_continue).contains("continue gives 0 values"));
        // Loop params are not visible after the loop.
        let param_escape =
            "%0:i32 = const 0x0\nloop (%1:i32 = %0) {\n break\n}\n%2:i32 = iadd %1, %0";
        assert!(text_err(param_escape).contains("not defined in scope"));
        // If results need a yielding branch.
        let no_yield = "%0:b1 = const 0x1\nloop () {\n %1:i32 = if %0 {\n  break\n } else {\n  continue\n }\n}";
        assert!(text_err(no_yield).contains("no branch yields"));
        // ALU class rules.
        assert!(
            text_err("%0:i32 = const 0x0\n%1:b1 = ilt %0, %0\n%2:i32 = bcsel %0, %0, %0")
                .contains("condition")
        );
        assert!(text_err("%0:i8 = const 0x0\n%1:i8 = fadd %0, %0").contains("bad bit size"));
        assert!(text_err("%0:i32 = const 0x0\n%1:i16 = bitcast %0").contains("total bit count"));
        assert!(text_err("%0:i32 = const 0x0\n%1:i16 = i2f %0").is_empty());
        assert!(text_err("%0:b1 = const 0x2").contains("does not fit"));
    }
}
