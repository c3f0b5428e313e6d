//! The IR interpreter: the reference semantics of a shader invocation.
//!
//! The backend's output on the simulator and the XFB oracle
//! (`compiler::xfb_reference`) are compared against what this executes, so it
//! is exact and never guesses: anything it cannot model returns an
//! [`InterpError`] value. It must never panic on a well-typed shader, whatever
//! memory it is given.
//!
//! Model:
//! - **Memory** ([`Memory`]): a sparse 64-bit byte-addressed space made of
//!   explicitly mapped ranges. An access must lie entirely inside one mapped
//!   range; anything else is [`InterpError::Unmapped`]. Little-endian.
//! - **Values**: every SSA value is up to four components stored as `u64`
//!   bit patterns, masked to the component width; booleans are 0/1. Memory
//!   holds booleans as 32-bit 0/1. `undef` reads as 0.
//! - **Push uniforms** ([`DrawState::push_uniforms`]): the driver's FAU area
//!   as bytes, read by `load_uniform` (after `lower_sysvals`). **Push
//!   constants** ([`DrawState::push_constants`]): the user's bytes, read by
//!   `load_push_constant` (before `lower_sysvals`). Reads outside either are errors.
//! - **UBO/SSBO**: `(set, binding)` → an address range in [`Memory`]; the byte
//!   offset is checked against the range (no robustness: out of range is an error).
//! - **Vertex attributes** ([`AttributeBinding`]): keyed by the number in the
//!   intrinsic (`location` before `lower_io`, attribute index after). An
//!   explicit fetch `load_attribute(raw_vertex_id, instance_id)` reads element
//!   `raw_vertex_id + offset_start` (wrapping u32) of a per-vertex buffer, or
//!   `instance_id / divisor` of a per-instance one (like Bifrost's LD_ATTR with
//!   `DRAW.Offset start`; `firstInstance` is folded into the per-instance
//!   buffer address by the driver, as PanVk does). Each element is `comps`
//!   32-bit words; components the format lacks read as (0, 0, 0, 1) with 1 of
//!   the format's kind. `load_input` is the same fetch with the invocation's
//!   own raw vertex id and instance id.
//! - **System values** not lowered yet come from [`SysValues`] and the
//!   invocation's [`InvocationIds`]: `vertex_index = raw_vertex_id +
//!   raw_vertex_offset`, `instance_index = instance_id + base_instance`,
//!   compute ids from the workgroup geometry.
//! - **Outputs**: `store_output` records the value per output (last write wins).
//! - **Fragment shaders**: `load_input` reads the already interpolated
//!   varying of its location from [`DrawState::varyings`] (interpolation is
//!   the rasterizer's job: `testing::raster` is its reference); `frag_coord`,
//!   `front_facing` and `point_coord` come from [`InvocationIds`]. `discard`
//!   ends the invocation: nothing it stored before to its outputs counts
//!   ([`InvocationResult::discarded`], every output `None`), and nothing after
//!   it runs.
//! - **Compute workgroups** ([`run_workgroup`]): one OS thread per invocation,
//!   synchronised at `barrier` by a barrier that counts only live invocations
//!   (an invocation that returned or failed no longer holds the others back,
//!   so a divergent barrier cannot deadlock). Between barriers invocations
//!   interleave arbitrarily; race-free shaders are deterministic. Shared memory
//!   is zero-initialised, [`ShaderInfo::shared_size`] bytes.
//! - **Loops** are bounded by [`DrawState::step_limit`] executed instructions.
//!
//! ALU semantics live in one function, [`alu`]; at merge time it is meant to
//! be replaced by (or checked against) `ir/eval.rs::eval_alu`, the shared
//! definition used by constant folding. Edge cases it defines: integer
//! division by zero (`udiv` → all ones, `idiv` → 0, `umod`/`irem`/`imod` → the
//! dividend), `INT_MIN / -1` wraps, shift counts modulo the bit size,
//! float→int conversions saturate with NaN → 0, `fmin`/`fmax` return the
//! non-NaN operand, `find_lsb`/`*find_msb` of no bit → -1, bitfield ops with
//! offset + count beyond the bit size → `Unsupported` (undefined in SPIR-V).
//! Half floats are computed in f64 and rounded once (exact for
//! add/sub/mul/div/sqrt); pack/unpack follow GLSL.std.450 with
//! round-half-to-even.
//!
//! [`ShaderInfo::shared_size`]: super::ShaderInfo::shared_size

use std::collections::{BTreeMap, HashMap};
use std::sync::{Condvar, Mutex};

use super::instr::*;
use super::shader::{Region, Shader};
use super::types::{Value, ValueType};

/// Why an invocation could not be executed. Errors are values, never panics.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    #[error("access of {len} bytes at {addr:#x} is outside mapped memory")]
    Unmapped { addr: u64, len: u64 },
    #[error("mapping {base:#x}+{size:#x} overlaps an existing range")]
    MapOverlap { base: u64, size: u64 },
    #[error("{what} read of {len} bytes at offset {offset} outside its {size} bytes")]
    OutOfRange {
        what: &'static str,
        offset: u64,
        len: u64,
        size: u64,
    },
    #[error("no {what} bound for {key}")]
    Unbound { what: &'static str, key: String },
    #[error("unsupported: {0}")]
    Unsupported(String),
    #[error("malformed IR: {0}")]
    Malformed(String),
    #[error("step limit exceeded")]
    StepLimit,
}

type Result<T> = std::result::Result<T, InterpError>;

/// A sparse little-endian address space of explicitly mapped ranges.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    ranges: BTreeMap<u64, Vec<u8>>,
}

impl Memory {
    pub fn new() -> Memory {
        Memory::default()
    }

    /// Map `bytes` at `base`. Ranges may not overlap.
    pub fn map(&mut self, base: u64, bytes: Vec<u8>) -> Result<()> {
        let size = bytes.len() as u64;
        let end = base
            .checked_add(size)
            .ok_or(InterpError::MapOverlap { base, size })?;
        let overlaps = self
            .ranges
            .range(..end)
            .next_back()
            .is_some_and(|(&b, r)| b + r.len() as u64 > base);
        if overlaps {
            return Err(InterpError::MapOverlap { base, size });
        }
        self.ranges.insert(base, bytes);
        Ok(())
    }

    /// The bytes of the range mapped exactly at `base`.
    pub fn range(&self, base: u64) -> Option<&[u8]> {
        self.ranges.get(&base).map(|v| v.as_slice())
    }

    fn locate(&self, addr: u64, len: u64) -> Result<(u64, usize)> {
        let err = InterpError::Unmapped { addr, len };
        let (&base, r) = self.ranges.range(..=addr).next_back().ok_or(err.clone())?;
        let off = addr - base;
        if off.checked_add(len).is_none_or(|e| e > r.len() as u64) {
            return Err(err);
        }
        Ok((base, off as usize))
    }

    pub fn read(&self, addr: u64, len: u64) -> Result<&[u8]> {
        let (base, off) = self.locate(addr, len)?;
        Ok(&self.ranges[&base][off..off + len as usize])
    }

    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        let (base, off) = self.locate(addr, data.len() as u64)?;
        let r = self.ranges.get_mut(&base).ok_or(InterpError::Unmapped {
            addr,
            len: data.len() as u64,
        })?;
        r[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }
}

/// An address range in [`Memory`] (a UBO/SSBO binding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferRange {
    pub address: u64,
    pub size: u64,
}

/// How the 32-bit words of an attribute element are interpreted for the
/// missing-component default (0, 0, 0, 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttributeKind {
    Float,
    Int,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputRate {
    Vertex,
    /// Element = instance_id / divisor (divisor 0 → element 0).
    Instance {
        divisor: u32,
    },
}

/// A vertex attribute: elements of `comps` 32-bit words at `address + e * stride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttributeBinding {
    pub address: u64,
    pub stride: u32,
    pub comps: u8,
    pub kind: AttributeKind,
    pub rate: InputRate,
}

/// Values of system values that are not lowered yet (tests of unlowered shaders).
#[derive(Clone, Debug, Default)]
pub struct SysValues {
    pub raw_vertex_offset: u32,
    pub base_vertex: u32,
    pub base_instance: u32,
    pub view_index: u32,
    pub draw_index: u32,
    pub num_workgroups: [u32; 3],
    /// `XfbParam(n)` before `lower_sysvals`.
    pub xfb_params: Vec<u32>,
}

/// What `texture` intrinsics read: the images and samplers bound to a draw
/// or dispatch, and the filtering rules (`testing::sampler` is the
/// reference, written from the Vulkan spec).
pub trait TextureSource: Send + Sync + std::fmt::Debug {
    /// The four components (bit patterns) of the access `kind` (an
    /// [`Intrinsic::Texture`]) at `coord` (the coordinate's components in
    /// order — a 3D image's r, or an array's layer after the 1D/2D
    /// coordinate — then zeros) with level of detail `lod` (f32 or
    /// i32 bits as the op says; 0 for implicit LOD). An error says why the
    /// result is not defined or not modelled.
    fn texture(
        &self,
        kind: Intrinsic,
        coord: [u32; 3],
        lod: u32,
    ) -> std::result::Result<[u32; 4], String>;
}

/// Everything shared by the invocations of one draw or dispatch.
#[derive(Clone, Debug)]
pub struct DrawState {
    pub push_uniforms: Vec<u8>,
    pub push_constants: Vec<u8>,
    pub ubos: HashMap<(u32, u32), BufferRange>,
    pub ssbos: HashMap<(u32, u32), BufferRange>,
    pub attributes: BTreeMap<u32, AttributeBinding>,
    /// `DRAW.Offset start`: added to raw vertex ids by attribute fetch.
    pub offset_start: u32,
    /// Fragment shaders: the interpolated varyings at this fragment, by
    /// location (four 32-bit components each).
    pub varyings: BTreeMap<u32, [u32; 4]>,
    pub sysvals: SysValues,
    /// The images and samplers `texture` intrinsics read (none: an error).
    pub textures: Option<std::sync::Arc<dyn TextureSource>>,
    /// Maximum instructions one invocation may execute.
    pub step_limit: u64,
}

impl Default for DrawState {
    fn default() -> DrawState {
        DrawState {
            push_uniforms: Vec::new(),
            push_constants: Vec::new(),
            ubos: HashMap::new(),
            ssbos: HashMap::new(),
            attributes: BTreeMap::new(),
            offset_start: 0,
            varyings: BTreeMap::new(),
            sysvals: SysValues::default(),
            textures: None,
            step_limit: 10_000_000,
        }
    }
}

/// The per-invocation ids (what Bifrost preloads in registers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InvocationIds {
    /// r61 of a vertex job: vertex id relative to `Offset start`.
    pub raw_vertex_id: u32,
    /// r62 of a vertex job.
    pub instance_id: u32,
    /// The captured-vertex index of an XFB-variant invocation (r61 in that job).
    pub xfb_invocation: u32,
    pub local_id: [u32; 3],
    pub workgroup_id: [u32; 3],
    /// Fragment shaders: `gl_FragCoord` (x, y, z, 1/w as f32 bits).
    pub frag_coord: [u32; 4],
    pub front_facing: bool,
    /// `gl_PointCoord` (s, t as f32 bits).
    pub point_coord: [u32; 2],
    /// `gl_SampleID`.
    pub sample_id: u32,
    /// `gl_SamplePosition` (x, y as f32 bits).
    pub sample_position: [u32; 2],
    /// `gl_SampleMaskIn[0]`.
    pub sample_mask_in: u32,
}

/// What one invocation produced besides memory writes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InvocationResult {
    /// Per output variable: the last stored components (bit patterns), if any.
    pub outputs: Vec<Option<Vec<u64>>>,
    pub steps: u64,
    /// A fragment invocation that executed `discard` (its outputs are all `None`).
    pub discarded: bool,
}

type Comps = [u64; 4];

fn mask(bits: u8) -> u64 {
    ValueType::new(bits, 1).mask()
}

fn sext(v: u64, bits: u8) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let s = 64 - bits as u32;
        ((v << s) as i64) >> s
    }
}

/// Evaluate one ALU op on all components: `ir/eval.rs::eval_alu` is the one
/// definition of ALU semantics (shared with constant folding); this only
/// checks the operand counts the interpreter was handed.
pub fn alu(op: AluOp, dst: ValueType, src_tys: &[ValueType], srcs: &[Comps]) -> Result<Comps> {
    if srcs.len() != op.num_srcs() || src_tys.len() != srcs.len() {
        return Err(InterpError::Malformed(format!(
            "{} source count",
            op.name()
        )));
    }
    let views: Vec<&[u64]> = srcs
        .iter()
        .zip(src_tys)
        .map(|(s, t)| &s[..usize::from(t.comps).min(4)])
        .collect();
    let values = super::eval::eval_alu(op, dst, src_tys, &views);
    let mut out = [0u64; 4];
    for (o, v) in out.iter_mut().zip(values) {
        *o = v;
    }
    Ok(out)
}

/// A barrier that counts only live invocations.
struct LiveBarrier {
    state: Mutex<(usize, usize, u64)>, // (live, arrived, generation)
    cv: Condvar,
}

impl LiveBarrier {
    fn new(n: usize) -> LiveBarrier {
        LiveBarrier {
            state: Mutex::new((n, 0, 0)),
            cv: Condvar::new(),
        }
    }

    fn wait(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.1 += 1;
        if s.1 >= s.0 {
            s.1 = 0;
            s.2 += 1;
            self.cv.notify_all();
            return;
        }
        let generation = s.2;
        while s.2 == generation {
            s = self.cv.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn leave(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.0 -= 1;
        if s.0 > 0 && s.1 >= s.0 {
            s.1 = 0;
            s.2 += 1;
            self.cv.notify_all();
        }
    }
}

enum Flow {
    Normal,
    Yield(Vec<Comps>),
    Break(Vec<Comps>),
    Continue(Vec<Comps>),
    /// `discard`: the invocation ends.
    Discard,
}

struct Exec<'a> {
    shader: &'a Shader,
    state: &'a DrawState,
    mem: &'a Mutex<Memory>,
    shared: &'a Mutex<Vec<u8>>,
    barrier: Option<&'a LiveBarrier>,
    ids: InvocationIds,
    values: Vec<Comps>,
    outputs: Vec<Option<Vec<u64>>>,
    vars: Vec<Comps>,
    steps: u64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Little-endian bytes of a value of type `ty` (booleans as 32-bit).
fn to_bytes(ty: ValueType, v: &Comps) -> Vec<u8> {
    let cb = if ty.bits == 1 {
        4
    } else {
        ty.bits as usize / 8
    };
    let mut out = Vec::with_capacity(cb * ty.comps as usize);
    for c in v.iter().take(ty.comps as usize) {
        out.extend_from_slice(&c.to_le_bytes()[..cb]);
    }
    out
}

fn from_bytes(ty: ValueType, bytes: &[u8]) -> Comps {
    let cb = if ty.bits == 1 {
        4
    } else {
        ty.bits as usize / 8
    };
    let mut out = [0u64; 4];
    for (c, chunk) in bytes.chunks(cb).take(ty.comps as usize).enumerate() {
        let mut w = [0u8; 8];
        w[..chunk.len()].copy_from_slice(chunk);
        let v = u64::from_le_bytes(w);
        out[c] = if ty.bits == 1 { (v != 0) as u64 } else { v };
    }
    out
}

fn atomic(op: AtomicOp, bits: u8, old: u64, data: u64, cmp: u64) -> u64 {
    let m = mask(bits);
    let (so, sd) = (sext(old, bits), sext(data, bits));
    (match op {
        AtomicOp::Add => old.wrapping_add(data),
        AtomicOp::Imin => so.min(sd) as u64,
        AtomicOp::Imax => so.max(sd) as u64,
        AtomicOp::Umin => old.min(data),
        AtomicOp::Umax => old.max(data),
        AtomicOp::And => old & data,
        AtomicOp::Or => old | data,
        AtomicOp::Xor => old ^ data,
        AtomicOp::Exchange => data,
        AtomicOp::CompSwap => {
            if old & m == cmp & m {
                data
            } else {
                old
            }
        }
    }) & m
}

impl Exec<'_> {
    fn get(&self, v: Value) -> Result<Comps> {
        self.values
            .get(v.index())
            .copied()
            .ok_or_else(|| InterpError::Malformed(format!("value {v} out of range")))
    }

    fn ty(&self, v: Value) -> Result<ValueType> {
        self.shader
            .values
            .get(v.index())
            .copied()
            .ok_or_else(|| InterpError::Malformed(format!("value {v} has no type")))
    }

    fn set(&mut self, v: Value, c: Comps) -> Result<()> {
        let ty = self.ty(v)?;
        let slot = self
            .values
            .get_mut(v.index())
            .ok_or_else(|| InterpError::Malformed(format!("value {v} out of range")))?;
        let m = ty.mask();
        *slot = [c[0] & m, c[1] & m, c[2] & m, c[3] & m];
        Ok(())
    }

    fn set_all(&mut self, dsts: &[Value], vals: &[Comps]) -> Result<()> {
        if dsts.len() != vals.len() {
            return Err(InterpError::Malformed("result count mismatch".into()));
        }
        for (d, v) in dsts.iter().zip(vals) {
            self.set(*d, *v)?;
        }
        Ok(())
    }

    fn region(&mut self, region: &Region) -> Result<Flow> {
        for instr in &region.instrs {
            self.steps += 1;
            if self.steps > self.state.step_limit {
                return Err(InterpError::StepLimit);
            }
            match self.instr(instr)? {
                Flow::Normal => {}
                f => return Ok(f),
            }
        }
        Ok(Flow::Normal)
    }

    fn vals(&self, vs: &[Value]) -> Result<Vec<Comps>> {
        vs.iter().map(|&v| self.get(v)).collect()
    }

    fn instr(&mut self, instr: &Instr) -> Result<Flow> {
        let dst = instr.dsts.first().copied();
        let one =
            |dst: Option<Value>| dst.ok_or_else(|| InterpError::Malformed("missing dst".into()));
        match &instr.op {
            Op::Const(c) => {
                let mut v = [0u64; 4];
                for (i, x) in c.values.iter().take(4).enumerate() {
                    v[i] = *x;
                }
                self.set(one(dst)?, v)?;
            }
            Op::Undef => self.set(one(dst)?, [0; 4])?,
            Op::Alu(a) => {
                let d = one(dst)?;
                // Fixed arrays: no allocation per instruction.
                let n = a.srcs.len();
                if n > 4 {
                    return Err(InterpError::Malformed(
                        "alu with more than 4 sources".into(),
                    ));
                }
                let mut tys = [ValueType::U32; 4];
                let mut vals = [[0u64; 4]; 4];
                for (k, &src) in a.srcs.iter().enumerate() {
                    tys[k] = self.ty(src)?;
                    vals[k] = self.get(src)?;
                }
                let (tys, srcs) = (&tys[..n], &vals[..n]);
                let r = alu(a.op, self.ty(d)?, tys, srcs)?;
                self.set(d, r)?;
            }
            Op::Vec(v) => {
                let mut out = [0u64; 4];
                let mut n = 0;
                for &s in &v.srcs {
                    let (t, x) = (self.ty(s)?, self.get(s)?);
                    for &comp in x.iter().take(t.comps as usize) {
                        if n >= 4 {
                            return Err(InterpError::Malformed("vec wider than 4".into()));
                        }
                        out[n] = comp;
                        n += 1;
                    }
                }
                self.set(one(dst)?, out)?;
            }
            Op::Swizzle(s) => {
                let x = self.get(s.src)?;
                let mut out = [0u64; 4];
                for (i, &c) in s.comps.iter().take(4).enumerate() {
                    out[i] = *x
                        .get(c as usize)
                        .ok_or_else(|| InterpError::Malformed("swizzle component".into()))?;
                }
                self.set(one(dst)?, out)?;
            }
            Op::Intrinsic(i) if i.kind == Intrinsic::Discard => return Ok(Flow::Discard),
            Op::Intrinsic(i) => self.intrinsic(i, dst)?,
            Op::If(i) => {
                let c = self.get(i.cond)?[0] & 1 != 0;
                let flow = self.region(if c { &i.then_region } else { &i.else_region })?;
                match flow {
                    Flow::Yield(v) => self.set_all(&instr.dsts, &v)?,
                    Flow::Normal => {
                        if !instr.dsts.is_empty() {
                            return Err(InterpError::Malformed("if branch yields nothing".into()));
                        }
                    }
                    f => return Ok(f),
                }
            }
            Op::Loop(l) => {
                let inits = self.vals(&l.inits)?;
                self.set_all(&l.params, &inits)?;
                loop {
                    match self.region(&l.body)? {
                        Flow::Continue(v) => self.set_all(&l.params, &v)?,
                        Flow::Break(v) => {
                            self.set_all(&instr.dsts, &v)?;
                            break;
                        }
                        Flow::Discard => return Ok(Flow::Discard),
                        _ => {
                            return Err(InterpError::Malformed("loop body fell through".into()));
                        }
                    }
                }
            }
            Op::Yield(v) => return Ok(Flow::Yield(self.vals(&v.values)?)),
            Op::Break(v) => return Ok(Flow::Break(self.vals(&v.values)?)),
            Op::Continue(v) => return Ok(Flow::Continue(self.vals(&v.values)?)),
        }
        Ok(Flow::Normal)
    }

    fn sysval(&self, sv: SysVal) -> Result<Comps> {
        let s = &self.state.sysvals;
        let ids = &self.ids;
        let ls = self.shader.info.local_size;
        let u = |x: u32| [x as u64, 0, 0, 0];
        let v3 = |x: [u32; 3]| [x[0] as u64, x[1] as u64, x[2] as u64, 0];
        Ok(match sv {
            SysVal::VertexIndex => u(ids.raw_vertex_id.wrapping_add(s.raw_vertex_offset)),
            SysVal::InstanceIndex => u(ids.instance_id.wrapping_add(s.base_instance)),
            SysVal::BaseVertex => u(s.base_vertex),
            SysVal::BaseInstance => u(s.base_instance),
            SysVal::ViewIndex => u(s.view_index),
            SysVal::DrawIndex => u(s.draw_index),
            SysVal::RawVertexId => u(ids.raw_vertex_id),
            SysVal::RawVertexOffset => u(s.raw_vertex_offset),
            SysVal::InstanceId => u(ids.instance_id),
            SysVal::FragCoord => ids.frag_coord.map(u64::from),
            SysVal::FrontFacing => u(u32::from(ids.front_facing)),
            SysVal::PointCoord => [
                u64::from(ids.point_coord[0]),
                u64::from(ids.point_coord[1]),
                0,
                0,
            ],
            SysVal::SampleId => u(ids.sample_id),
            SysVal::SamplePosition => [
                u64::from(ids.sample_position[0]),
                u64::from(ids.sample_position[1]),
                0,
                0,
            ],
            SysVal::SampleMaskIn => u(ids.sample_mask_in),
            SysVal::LocalInvocationId => v3(ids.local_id),
            SysVal::LocalInvocationIndex => {
                u(ids.local_id[0].wrapping_add(ls[0].wrapping_mul(
                    ids.local_id[1].wrapping_add(ls[1].wrapping_mul(ids.local_id[2])),
                )))
            }
            SysVal::WorkgroupId => v3(ids.workgroup_id),
            SysVal::GlobalInvocationId => v3([0, 1, 2].map(|d| {
                ids.workgroup_id[d]
                    .wrapping_mul(ls[d])
                    .wrapping_add(ids.local_id[d])
            })),
            SysVal::NumWorkgroups => v3(s.num_workgroups),
            SysVal::WorkgroupSize => v3(ls),
            SysVal::XfbInvocation => u(ids.xfb_invocation),
            SysVal::XfbParam(n) => {
                u(*s.xfb_params
                    .get(n as usize)
                    .ok_or_else(|| InterpError::Unbound {
                        what: "xfb param",
                        key: n.to_string(),
                    })?)
            }
        })
    }

    fn attribute(
        &self,
        location: u32,
        component: u8,
        ty: ValueType,
        raw_id: u32,
        instance: u32,
    ) -> Result<Comps> {
        let a = self
            .state
            .attributes
            .get(&location)
            .ok_or_else(|| InterpError::Unbound {
                what: "attribute",
                key: location.to_string(),
            })?;
        if ty.bits != 32 {
            return Err(InterpError::Unsupported(format!(
                "{}-bit attribute",
                ty.bits
            )));
        }
        let element = match a.rate {
            InputRate::Vertex => raw_id.wrapping_add(self.state.offset_start),
            InputRate::Instance { divisor } => instance.checked_div(divisor).unwrap_or(0),
        };
        let base = a.address.wrapping_add(element as u64 * a.stride as u64);
        let mem = lock(self.mem);
        let mut out = [0u64; 4];
        for (c, o) in out.iter_mut().enumerate().take(ty.comps as usize) {
            let comp = component as usize + c;
            *o = if comp < a.comps as usize {
                let b = mem.read(base.wrapping_add(4 * comp as u64), 4)?;
                u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64
            } else if comp == 3 {
                match a.kind {
                    AttributeKind::Float => 1.0f32.to_bits() as u64,
                    AttributeKind::Int => 1,
                }
            } else {
                0
            };
        }
        Ok(out)
    }

    fn buffer(&self, ssbo: bool, set: u32, binding: u32, offset: u64, len: u64) -> Result<u64> {
        let (what, map) = if ssbo {
            ("ssbo", &self.state.ssbos)
        } else {
            ("ubo", &self.state.ubos)
        };
        let r = map
            .get(&(set, binding))
            .ok_or_else(|| InterpError::Unbound {
                what,
                key: format!("set {set} binding {binding}"),
            })?;
        if offset.checked_add(len).is_none_or(|e| e > r.size) {
            return Err(InterpError::OutOfRange {
                what,
                offset,
                len,
                size: r.size,
            });
        }
        Ok(r.address.wrapping_add(offset))
    }

    fn bytes_of(what: &'static str, area: &[u8], offset: u64, len: u64) -> Result<Vec<u8>> {
        if offset
            .checked_add(len)
            .is_none_or(|e| e > area.len() as u64)
        {
            return Err(InterpError::OutOfRange {
                what,
                offset,
                len,
                size: area.len() as u64,
            });
        }
        Ok(area[offset as usize..(offset + len) as usize].to_vec())
    }

    fn intrinsic(&mut self, i: &OpIntrinsic, dst: Option<Value>) -> Result<()> {
        use Intrinsic::*;
        let src = |n: usize| -> Result<Value> {
            i.srcs
                .get(n)
                .copied()
                .ok_or_else(|| InterpError::Malformed(format!("intrinsic source {n}")))
        };
        let dst_ty = match dst {
            Some(d) => Some(self.ty(d)?),
            None => None,
        };
        let need = || {
            dst.zip(dst_ty)
                .ok_or_else(|| InterpError::Malformed("missing dst".into()))
        };
        match i.kind {
            LoadInput {
                location,
                component,
            } if self.shader.stage == super::shader::Stage::Fragment => {
                let (d, ty) = need()?;
                let v = self
                    .state
                    .varyings
                    .get(&location)
                    .ok_or_else(|| InterpError::Unbound {
                        what: "varying",
                        key: location.to_string(),
                    })?;
                let first = usize::from(component);
                if ty.bits != 32 || first + usize::from(ty.comps) > 4 {
                    return Err(InterpError::Unsupported(format!(
                        "varying read of {ty} at component {component}"
                    )));
                }
                let mut out = [0u64; 4];
                for (i, o) in out.iter_mut().take(usize::from(ty.comps)).enumerate() {
                    *o = u64::from(v[first + i]);
                }
                self.set(d, out)?;
            }
            LoadInput {
                location,
                component,
            } => {
                let (d, ty) = need()?;
                let ids = self.ids;
                let v =
                    self.attribute(location, component, ty, ids.raw_vertex_id, ids.instance_id)?;
                self.set(d, v)?;
            }
            LoadAttribute {
                location,
                component,
            } => {
                let (d, ty) = need()?;
                let raw = self.get(src(0)?)?[0] as u32;
                let inst = self.get(src(1)?)?[0] as u32;
                let v = self.attribute(location, component, ty, raw, inst)?;
                self.set(d, v)?;
            }
            StoreOutput { output } => {
                let v = self.get(src(0)?)?;
                let o = self
                    .outputs
                    .get_mut(output as usize)
                    .ok_or_else(|| InterpError::Malformed(format!("output {output}")))?;
                let comps = self.shader.outputs[output as usize].ty.comps as usize;
                *o = Some(v[..comps].to_vec());
            }
            LoadVar { var } => {
                let (d, _) = need()?;
                let v = *self
                    .vars
                    .get(var.0 as usize)
                    .ok_or_else(|| InterpError::Malformed(format!("var {var}")))?;
                self.set(d, v)?;
            }
            StoreVar { var } => {
                let v = self.get(src(0)?)?;
                let slot = self
                    .vars
                    .get_mut(var.0 as usize)
                    .ok_or_else(|| InterpError::Malformed(format!("var {var}")))?;
                *slot = v;
            }
            LoadSysVal(sv) => {
                let (d, _) = need()?;
                let v = self.sysval(sv)?;
                self.set(d, v)?;
            }
            LoadPushConstant { base } => {
                let (d, ty) = need()?;
                let off = base as u64 + self.get(src(0)?)?[0];
                let b = Self::bytes_of(
                    "push constant",
                    &self.state.push_constants,
                    off,
                    ty.byte_size() as u64,
                )?;
                self.set(d, from_bytes(ty, &b))?;
            }
            LoadUniform { offset } => {
                let (d, ty) = need()?;
                let b = Self::bytes_of(
                    "push uniform",
                    &self.state.push_uniforms,
                    offset as u64,
                    ty.byte_size() as u64,
                )?;
                self.set(d, from_bytes(ty, &b))?;
            }
            LoadUbo { set, binding } | LoadSsbo { set, binding } => {
                let (d, ty) = need()?;
                let off = self.get(src(0)?)?[0];
                let len = ty.byte_size() as u64;
                let addr =
                    self.buffer(matches!(i.kind, LoadSsbo { .. }), set, binding, off, len)?;
                let v = from_bytes(ty, lock(self.mem).read(addr, len)?);
                self.set(d, v)?;
            }
            BufferSize { set, binding } => {
                let (d, _) = need()?;
                let r = self
                    .state
                    .ssbos
                    .get(&(set, binding))
                    .or_else(|| self.state.ubos.get(&(set, binding)))
                    .ok_or_else(|| InterpError::Unbound {
                        what: "buffer",
                        key: format!("set {set} binding {binding}"),
                    })?;
                self.set(d, [r.size.min(u64::from(u32::MAX)), 0, 0, 0])?;
            }
            StoreSsbo { set, binding } => {
                let ty = self.ty(src(0)?)?;
                let bytes = to_bytes(ty, &self.get(src(0)?)?);
                let off = self.get(src(1)?)?[0];
                let addr = self.buffer(true, set, binding, off, bytes.len() as u64)?;
                lock(self.mem).write(addr, &bytes)?;
            }
            LoadGlobal => {
                let (d, ty) = need()?;
                let addr = self.get(src(0)?)?[0];
                let v = from_bytes(ty, lock(self.mem).read(addr, ty.byte_size() as u64)?);
                self.set(d, v)?;
            }
            StoreGlobal => {
                let ty = self.ty(src(0)?)?;
                let bytes = to_bytes(ty, &self.get(src(0)?)?);
                let addr = self.get(src(1)?)?[0];
                lock(self.mem).write(addr, &bytes)?;
            }
            LoadShared => {
                let (d, ty) = need()?;
                let off = self.get(src(0)?)?[0];
                let b = Self::bytes_of("shared", &lock(self.shared), off, ty.byte_size() as u64)?;
                self.set(d, from_bytes(ty, &b))?;
            }
            StoreShared => {
                let ty = self.ty(src(0)?)?;
                let bytes = to_bytes(ty, &self.get(src(0)?)?);
                let off = self.get(src(1)?)?[0];
                let mut sh = lock(self.shared);
                Self::bytes_of("shared", &sh, off, bytes.len() as u64)?;
                sh[off as usize..off as usize + bytes.len()].copy_from_slice(&bytes);
            }
            SsboAtomic { op, .. } | GlobalAtomic { op } | SharedAtomic { op } => {
                let (d, ty) = need()?;
                if ty.comps != 1 || !matches!(ty.bits, 32 | 64) {
                    return Err(InterpError::Unsupported(format!("atomic on {ty}")));
                }
                let len = ty.byte_size() as u64;
                let off = self.get(src(0)?)?[0];
                let (cmp, data) = if op == AtomicOp::CompSwap {
                    (self.get(src(1)?)?[0], self.get(src(2)?)?[0])
                } else {
                    (0, self.get(src(1)?)?[0])
                };
                let old = match i.kind {
                    SharedAtomic { .. } => {
                        let mut sh = lock(self.shared);
                        let b = Self::bytes_of("shared", &sh, off, len)?;
                        let old = from_bytes(ty, &b)[0];
                        let new = atomic(op, ty.bits, old, data, cmp);
                        sh[off as usize..(off + len) as usize]
                            .copy_from_slice(&new.to_le_bytes()[..len as usize]);
                        old
                    }
                    _ => {
                        let addr = match i.kind {
                            SsboAtomic { set, binding, .. } => {
                                self.buffer(true, set, binding, off, len)?
                            }
                            _ => off,
                        };
                        let mut mem = lock(self.mem);
                        let old = from_bytes(ty, mem.read(addr, len)?)[0];
                        let new = atomic(op, ty.bits, old, data, cmp);
                        mem.write(addr, &new.to_le_bytes()[..len as usize])?;
                        old
                    }
                };
                self.set(d, [old, 0, 0, 0])?;
            }
            Texture { op, .. } => {
                let (d, _) = need()?;
                let coord = self.get(src(0)?)?;
                if matches!(
                    op,
                    TexOp::SampleDref | TexOp::SampleDrefLod | TexOp::GatherDref
                ) {
                    return Err(InterpError::Unsupported(
                        "depth-compare sampling in the interpreter".into(),
                    ));
                }
                let lod = if matches!(op, TexOp::Sample | TexOp::SampleBias | TexOp::Gather(_)) {
                    0
                } else {
                    self.get(src(1)?)?[0] as u32
                };
                let source = self
                    .state
                    .textures
                    .as_ref()
                    .ok_or_else(|| InterpError::Unbound {
                        what: "texture source",
                        key: format!("{:?}", i.kind),
                    })?;
                let texel = source
                    .texture(
                        i.kind,
                        [coord[0] as u32, coord[1] as u32, coord[2] as u32],
                        lod,
                    )
                    .map_err(InterpError::Unsupported)?;
                self.set(d, texel.map(u64::from))?;
            }
            ImageLoad { .. } | ImageStore { .. } | ImageAtomic { .. } => {
                return Err(InterpError::Unsupported(
                    "storage images (no image memory in the interpreter's state)".into(),
                ));
            }
            TextureSize { .. } => {
                return Err(InterpError::Unsupported(
                    "texture size queries (no image sizes in the interpreter's state)".into(),
                ));
            }
            // One invocation at a time: there is no quad to differ across.
            Derivative { .. } => {
                return Err(InterpError::Unsupported(
                    "derivatives (the interpreter runs one invocation, not a 2x2 quad)".into(),
                ));
            }
            Barrier => {
                if let Some(b) = self.barrier {
                    b.wait();
                }
            }
            // Handled by `instr` (it changes control flow).
            Discard => return Err(InterpError::Malformed("discard outside `instr`".into())),
        }
        Ok(())
    }
}

fn run_one(
    shader: &Shader,
    state: &DrawState,
    mem: &Mutex<Memory>,
    shared: &Mutex<Vec<u8>>,
    barrier: Option<&LiveBarrier>,
    ids: InvocationIds,
) -> Result<InvocationResult> {
    let mut e = Exec {
        shader,
        state,
        mem,
        shared,
        barrier,
        ids,
        values: vec![[0; 4]; shader.values.len()],
        outputs: vec![None; shader.outputs.len()],
        vars: vec![[0; 4]; shader.vars.len()],
        steps: 0,
    };
    let r = e.region(&shader.body);
    if let Some(b) = barrier {
        b.leave();
    }
    match r? {
        Flow::Normal => Ok(InvocationResult {
            outputs: e.outputs,
            steps: e.steps,
            discarded: false,
        }),
        Flow::Discard => Ok(InvocationResult {
            outputs: vec![None; shader.outputs.len()],
            steps: e.steps,
            discarded: true,
        }),
        _ => Err(InterpError::Malformed(
            "terminator outside control flow".into(),
        )),
    }
}

/// Run one invocation (vertex shaders, XFB variants, single compute invocations).
/// Shared memory, if the shader uses any, is private to this call.
pub fn run_invocation(
    shader: &Shader,
    state: &DrawState,
    memory: &mut Memory,
    ids: InvocationIds,
) -> Result<InvocationResult> {
    let mem = Mutex::new(std::mem::take(memory));
    let shared = Mutex::new(vec![0u8; shader.info.shared_size as usize]);
    let r = run_one(shader, state, &mem, &shared, None, ids);
    *memory = mem.into_inner().unwrap_or_else(|e| e.into_inner());
    r
}

/// Run one compute workgroup: every local invocation, in lockstep at barriers
/// (one thread per invocation, see the module doc). Results in local-index order.
pub fn run_workgroup(
    shader: &Shader,
    state: &DrawState,
    memory: &mut Memory,
    workgroup_id: [u32; 3],
) -> Result<Vec<InvocationResult>> {
    let [x, y, z] = shader.info.local_size;
    let n = (x as usize) * (y as usize) * (z as usize);
    if n == 0 || n > 1024 {
        return Err(InterpError::Unsupported(format!(
            "workgroup of {n} invocations"
        )));
    }
    let mem = Mutex::new(std::mem::take(memory));
    let shared = Mutex::new(vec![0u8; shader.info.shared_size as usize]);
    let barrier = LiveBarrier::new(n);
    let results: Vec<Result<InvocationResult>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let ids = InvocationIds {
                    local_id: [i as u32 % x, (i as u32 / x) % y, i as u32 / (x * y)],
                    workgroup_id,
                    ..Default::default()
                };
                let (mem, shared, barrier) = (&mem, &shared, &barrier);
                s.spawn(move || run_one(shader, state, mem, shared, Some(barrier), ids))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(InterpError::Malformed("invocation thread panicked".into()))
                })
            })
            .collect()
    });
    *memory = mem.into_inner().unwrap_or_else(|e| e.into_inner());
    results.into_iter().collect()
}

/// A fragment shader: `o = vec4(v.x + frag_coord.x, v.y, front_facing ?
/// 1 : 0.5, 1/w)` where `v` is the varying at location 2, component 1;
/// it discards when `v.x < 0` and stores a marker to memory after the
/// test (which a discarded invocation never reaches).
#[cfg(test)]
pub(crate) fn fragment_test_shader() -> Shader {
    use super::builder::Builder;
    use super::shader::{ColorFormat, Input, Interpolation, Output, OutputSlot, Sampling, Stage};
    let mut s = Shader::new(Stage::Fragment);
    let f2 = ValueType::new(32, 2);
    let f4 = ValueType::new(32, 4);
    s.info.color_formats = vec![(0, ColorFormat::Float)];
    s.inputs.push(Input {
        name: "v".into(),
        location: 2,
        component: 1,
        ty: f2,
        interpolation: Interpolation::NoPerspective,
        sampling: Sampling::Centroid,
    });
    s.outputs.push(Output {
        name: "o".into(),
        slot: OutputSlot::Location {
            location: 0,
            component: 0,
        },
        ty: f4,
        xfb: None,
    });
    let mut b = Builder::new(&mut s);
    let v = b.load(
        Intrinsic::LoadInput {
            location: 2,
            component: 1,
        },
        f2,
        &[],
    );
    let fc = b.sysval(SysVal::FragCoord, f4);
    let ff = b.sysval(SysVal::FrontFacing, ValueType::BOOL);
    let vx = b.channel(v, 0);
    let vy = b.channel(v, 1);
    let zero = b.imm_f32(0.0);
    let neg = b.alu(AluOp::Flt, &[vx, zero]);
    b.if_(
        neg,
        &[],
        |b| {
            b.store(Intrinsic::Discard, &[]);
            vec![]
        },
        |_| vec![],
    );
    let marker = b.imm_u32(0x600d);
    let addr = b.imm_u64(0x3000);
    b.store(Intrinsic::StoreGlobal, &[marker, addr]);
    let fx = b.channel(fc, 0);
    let fw = b.channel(fc, 3);
    let x = b.alu(AluOp::Fadd, &[vx, fx]);
    let one = b.imm_f32(1.0);
    let half = b.imm_f32(0.5);
    let z = b.alu(AluOp::Bcsel, &[ff, one, half]);
    let o = b.vec(&[x, vy, z, fw]);
    b.store(Intrinsic::StoreOutput { output: 0 }, &[o]);
    b.finish();
    s
}

#[cfg(test)]
mod tests {
    use super::super::builder::Builder;
    use super::super::shader::Stage;
    use super::*;

    #[test]
    fn memory_is_checked() {
        let mut m = Memory::new();
        m.map(0x1000, vec![0; 16]).unwrap();
        assert!(m.map(0x100c, vec![0; 8]).is_err());
        assert!(m.read(0x100c, 4).is_ok());
        assert!(m.read(0x100d, 4).is_err());
        assert!(m.write(0xfff, &[1]).is_err());
        assert!(m.read(u64::MAX, 2).is_err());
    }

    #[test]
    fn loop_and_global_store() {
        let mut s = Shader::new(Stage::Compute);
        s.info.local_size = [1, 1, 1];
        let mut b = Builder::new(&mut s);
        let zero = b.imm_u32(0);
        let ten = b.imm_u32(10);
        let r = b.loop_(&[zero, zero], &[ValueType::U32], |b, p| {
            let done = b.alu(AluOp::Uge, &[p[0], ten]);
            b.if_(
                done,
                &[],
                |b| {
                    b.break_(&[p[1]]);
                    vec![]
                },
                |_| vec![],
            );
            let one = b.imm_u32(1);
            vec![
                b.alu(AluOp::Iadd, &[p[0], one]),
                b.alu(AluOp::Iadd, &[p[1], p[0]]),
            ]
        });
        let addr = b.imm_u64(0x2000);
        b.store(Intrinsic::StoreGlobal, &[r[0], addr]);
        b.finish();
        let mut m = Memory::new();
        m.map(0x2000, vec![0; 4]).unwrap();
        run_invocation(&s, &DrawState::default(), &mut m, InvocationIds::default()).unwrap();
        assert_eq!(m.read(0x2000, 4).unwrap(), &45u32.to_le_bytes());
    }

    #[test]
    fn workgroup_barrier_and_shared() {
        // Each invocation writes its id to shared[i], barrier, reads shared[n-1-i] to global.
        let mut s = Shader::new(Stage::Compute);
        s.info.local_size = [8, 1, 1];
        s.info.shared_size = 32;
        let mut b = Builder::new(&mut s);
        let idx = b.sysval(SysVal::LocalInvocationIndex, ValueType::U32);
        let four = b.imm_u32(4);
        let off = b.alu(AluOp::Imul, &[idx, four]);
        b.store(Intrinsic::StoreShared, &[idx, off]);
        b.store(Intrinsic::Barrier, &[]);
        let seven = b.imm_u32(7);
        let other = b.alu(AluOp::Isub, &[seven, idx]);
        let ooff = b.alu(AluOp::Imul, &[other, four]);
        let v = b.load(Intrinsic::LoadShared, ValueType::U32, &[ooff]);
        let off64 = b.alu_typed(AluOp::U2u, ValueType::U64, &[off]);
        let base = b.imm_u64(0x3000);
        let addr = b.alu(AluOp::Iadd, &[base, off64]);
        b.store(Intrinsic::StoreGlobal, &[v, addr]);
        b.finish();
        let mut m = Memory::new();
        m.map(0x3000, vec![0; 32]).unwrap();
        run_workgroup(&s, &DrawState::default(), &mut m, [0; 3]).unwrap();
        let got: Vec<u8> = m.read(0x3000, 32).unwrap().to_vec();
        let want: Vec<u8> = (0..8u32).rev().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn alu_edges() {
        let t = ValueType::U32;
        let r = |op, a: u64, b: u64| alu(op, t, &[t, t], &[[a, 0, 0, 0], [b, 0, 0, 0]]).unwrap()[0];
        assert_eq!(r(AluOp::Udiv, 7, 0), 0xffff_ffff);
        assert_eq!(r(AluOp::Umod, 7, 0), 7);
        assert_eq!(r(AluOp::Idiv, 0x8000_0000, 0xffff_ffff), 0x8000_0000);
        assert_eq!(r(AluOp::Imod, (-7i32) as u32 as u64, 3), 2);
        assert_eq!(
            r(AluOp::Irem, (-7i32) as u32 as u64, 3),
            (-1i32) as u32 as u64
        );
        assert_eq!(r(AluOp::Ishl, 1, 33), 2);
        assert_eq!(r(AluOp::Ishr, 0x8000_0000, 31), 0xffff_ffff);
    }

    #[test]
    fn attributes_defaults_rates_and_errors() {
        let mut s = Shader::new(Stage::Vertex);
        let mut b = Builder::new(&mut s);
        // Location 0: 2 float comps read as vec4 → (x, y, 0, 1.0).
        let a = b.load(
            Intrinsic::LoadInput {
                location: 0,
                component: 0,
            },
            ValueType::new(32, 4),
            &[],
        );
        // Location 1: per-instance ints, divisor 2, read as vec4 from component 1.
        let i = b.load(
            Intrinsic::LoadInput {
                location: 1,
                component: 1,
            },
            ValueType::new(32, 3),
            &[],
        );
        let vi = b.sysval(SysVal::VertexIndex, ValueType::U32);
        b.store(Intrinsic::StoreOutput { output: 0 }, &[a]);
        b.store(Intrinsic::StoreOutput { output: 1 }, &[i]);
        b.store(Intrinsic::StoreOutput { output: 2 }, &[vi]);
        b.finish();
        for (n, ty) in [(0, 4), (1, 3), (2, 1)] {
            s.outputs.push(super::super::shader::Output {
                name: format!("o{n}"),
                slot: super::super::shader::OutputSlot::Location {
                    location: n,
                    component: 0,
                },
                ty: ValueType::new(32, ty),
                xfb: None,
            });
        }
        let mut m = Memory::new();
        let floats: Vec<u8> = (0..40u32)
            .flat_map(|v| (v as f32).to_bits().to_le_bytes())
            .collect();
        m.map(0x1000, floats).unwrap();
        let ints: Vec<u8> = (0..8u32).flat_map(|v| (100 + v).to_le_bytes()).collect();
        m.map(0x2000, ints).unwrap();
        let mut state = DrawState {
            offset_start: 10,
            ..Default::default()
        };
        state.sysvals.raw_vertex_offset = 10;
        state.attributes.insert(
            0,
            AttributeBinding {
                address: 0x1000,
                stride: 8,
                comps: 2,
                kind: AttributeKind::Float,
                rate: InputRate::Vertex,
            },
        );
        state.attributes.insert(
            1,
            AttributeBinding {
                address: 0x2000,
                stride: 8,
                comps: 2,
                kind: AttributeKind::Int,
                rate: InputRate::Instance { divisor: 2 },
            },
        );
        let ids = InvocationIds {
            raw_vertex_id: 3,
            instance_id: 3,
            ..Default::default()
        };
        let r = run_invocation(&s, &state, &mut m, ids).unwrap();
        let f = |x: f32| x.to_bits() as u64;
        // Element 13 of the float buffer: words 26, 27.
        assert_eq!(r.outputs[0], Some(vec![f(26.0), f(27.0), 0, f(1.0)]));
        // Instance element 1: words 2, 3 → component 1 = 103, then 0, then int 1.
        assert_eq!(r.outputs[1], Some(vec![103, 0, 1]));
        assert_eq!(r.outputs[2], Some(vec![13]));
        // Out of mapped memory: an error value, not a panic.
        let far = InvocationIds {
            raw_vertex_id: 1000,
            ..ids
        };
        assert!(matches!(
            run_invocation(&s, &state, &mut m, far),
            Err(InterpError::Unmapped { .. })
        ));
        state.attributes.remove(&1);
        assert!(matches!(
            run_invocation(&s, &state, &mut m, ids),
            Err(InterpError::Unbound { .. })
        ));
    }

    #[test]
    fn ssbo_atomics_and_ubo_bounds() {
        let mut s = Shader::new(Stage::Compute);
        s.info.local_size = [4, 1, 1];
        let mut b = Builder::new(&mut s);
        let zero = b.imm_u32(0);
        let one = b.imm_u32(1);
        let old = b.load(
            Intrinsic::SsboAtomic {
                set: 0,
                binding: 1,
                op: AtomicOp::Add,
            },
            ValueType::U32,
            &[zero, one],
        );
        let four = b.imm_u32(4);
        let u = b.load(
            Intrinsic::LoadUbo { set: 0, binding: 0 },
            ValueType::U32,
            &[four],
        );
        let sum = b.alu(AluOp::Iadd, &[old, u]);
        let idx = b.sysval(SysVal::LocalInvocationIndex, ValueType::U32);
        let off = b.alu(AluOp::Imul, &[idx, four]);
        let off4 = b.alu(AluOp::Iadd, &[off, four]);
        // Store at a slot chosen by the invocation (no races on the result).
        b.store(Intrinsic::StoreSsbo { set: 0, binding: 1 }, &[sum, off4]);
        b.finish();
        let mut m = Memory::new();
        m.map(0x100, 7u64.to_le_bytes().to_vec()).unwrap();
        m.map(0x200, vec![0; 20]).unwrap();
        let mut state = DrawState::default();
        state.ubos.insert(
            (0, 0),
            BufferRange {
                address: 0x100,
                size: 8,
            },
        );
        state.ssbos.insert(
            (0, 1),
            BufferRange {
                address: 0x200,
                size: 20,
            },
        );
        run_workgroup(&s, &state, &mut m, [0; 3]).unwrap();
        let out = m.read(0x200, 20).unwrap();
        assert_eq!(&out[..4], &4u32.to_le_bytes());
        let mut olds: Vec<u32> = out[4..]
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        olds.sort_unstable();
        // UBO word 1 is 0 (the u64 7 has its high word zero).
        assert_eq!(olds, vec![0, 1, 2, 3]);
        // A UBO smaller than the read: error.
        state.ubos.insert(
            (0, 0),
            BufferRange {
                address: 0x100,
                size: 6,
            },
        );
        assert!(matches!(
            run_workgroup(&s, &state, &mut m, [0; 3]),
            Err(InterpError::OutOfRange { .. })
        ));
    }

    #[test]
    fn half_floats_and_packing() {
        use crate::compiler::ir::eval::{f16_to_f32, f64_to_f16};
        for h in 0..=u16::MAX {
            let f = f16_to_f32(h);
            if f.is_nan() {
                assert_eq!(f64_to_f16(f as f64) & 0x7c00, 0x7c00);
            } else {
                assert_eq!(f64_to_f16(f as f64), h, "{h:#x}");
            }
        }
        assert_eq!(f64_to_f16(65519.0), 0x7bff);
        assert_eq!(f64_to_f16(65520.0), 0x7c00);
        assert_eq!(f64_to_f16(2.0f64.powi(-25)), 0); // tie → even (0)
        assert_eq!(f64_to_f16(1.5 * 2.0f64.powi(-25)), 1);
        assert_eq!(f64_to_f16(1.0 + 2.0f64.powi(-11)), 0x3c00); // tie → even
        let v2 = ValueType::new(32, 2);
        let u = ValueType::U32;
        let packed = alu(
            AluOp::PackHalf2x16,
            u,
            &[v2],
            &[[1.0f32.to_bits() as u64, (-2.0f32).to_bits() as u64, 0, 0]],
        )
        .unwrap()[0];
        assert_eq!(packed, 0xc000_3c00);
        let back = alu(AluOp::UnpackHalf2x16, v2, &[u], &[[packed, 0, 0, 0]]).unwrap();
        assert_eq!(back[1], (-2.0f32).to_bits() as u64);
        let v4 = ValueType::new(32, 4);
        let f = |x: f32| x.to_bits() as u64;
        let p = alu(
            AluOp::PackSnorm4x8,
            u,
            &[v4],
            &[[f(1.0), f(-1.0), f(0.5), f(-2.0)]],
        )
        .unwrap()[0];
        assert_eq!(p, 0x81_40_81_7f);
        let un = alu(AluOp::UnpackSnorm4x8, v4, &[u], &[[p, 0, 0, 0]]).unwrap();
        assert_eq!(un[1], f(-1.0));
        let h = ValueType::new(16, 1);
        let sum = alu(
            AluOp::Fadd,
            h,
            &[h, h],
            &[[0x3c00, 0, 0, 0], [0x3c00, 0, 0, 0]],
        )
        .unwrap();
        assert_eq!(sum[0], 0x4000);
    }

    #[test]
    fn fragment_invocations_read_varyings_and_builtins_and_discard() {
        let s = super::fragment_test_shader();
        s.validate().unwrap();
        let f = |x: f32| x.to_bits();
        for (vx, front) in [(2.5f32, true), (0.0, false), (-1.0, true)] {
            let mut state = DrawState::default();
            state.varyings.insert(2, [f(9.0), f(vx), f(-3.25), f(7.0)]);
            let ids = InvocationIds {
                frag_coord: [f(10.5), f(3.5), f(0.25), f(0.125)],
                front_facing: front,
                ..Default::default()
            };
            let mut m = Memory::new();
            m.map(0x3000, vec![0; 4]).unwrap();
            let r = run_invocation(&s, &state, &mut m, ids).unwrap();
            let stored = u32::from_le_bytes(m.read(0x3000, 4).unwrap().try_into().unwrap());
            if vx < 0.0 {
                // Discarded before the store and the output.
                assert!(r.discarded);
                assert_eq!(r.outputs, vec![None]);
                assert_eq!(stored, 0);
            } else {
                assert!(!r.discarded);
                assert_eq!(stored, 0x600d);
                let want = [vx + 10.5, -3.25, if front { 1.0 } else { 0.5 }, 0.125];
                let want: Vec<u64> = want.iter().map(|x| u64::from(x.to_bits())).collect();
                assert_eq!(r.outputs, vec![Some(want)]);
            }
        }
        // An unbound varying or a read past the record is an error value.
        let e = run_invocation(
            &s,
            &DrawState::default(),
            &mut Memory::new(),
            InvocationIds::default(),
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                InterpError::Unbound {
                    what: "varying",
                    ..
                }
            ),
            "{e}"
        );
    }
}
