//! `lower_sysvals`: system values and push constants → the driver's
//! push-uniform (FAU) area, in a per-shader packed layout the job emitter
//! fills from a [`PushUniformLayout`].
//!
//! # The layout
//! Values come from two sources, each addressed in **8-byte FAU words**:
//! 1. the canonical **sysval block** ([`SysvalBlock`], byte offsets in
//!    [`sysval_offset`]), filled by the driver per draw/dispatch;
//! 2. the user's **push constants** (the bytes of vkCmdPushConstants).
//!
//! Like PanVk, a shader's push-uniform area holds only the words it uses:
//! first the used sysval words in ascending canonical order, then the used
//! push-constant words in ascending order. [`PushUniformLayout::words`] lists
//! them; word `i` of the area is at byte `8 * i`; a load keeps its byte
//! position within its word. [`PushUniformLayout::fill`] builds the area.
//! `words.len()` is the RSD's `Preload.Uniform count` (64-bit FAU words, a
//! 7-bit field: at most 127); the XFB variant needs at most 20 sysval words.
//!
//! | canonical bytes | value | who computes it |
//! |---|---|---|
//! | 0  | raw vertex offset (`DRAW.Offset start`) | CPU per draw (GPU kernel for indirect draws) |
//! | 4  | base vertex (`firstVertex`, or `vertexOffset` when indexed) | CPU / indirect kernel |
//! | 8  | base instance (`firstInstance`) | CPU / indirect kernel |
//! | 12 | reserved (0) | – |
//! | 16 | GPU address of the user push-constant bytes (u64) | CPU |
//! | 24, 28, 32 | number of workgroups x, y, z | CPU / indirect-dispatch kernel |
//! | 36 | reserved (0) | – |
//! | 40 + 4n | `XfbParam(n)`, n < [`XFB_PARAM_COUNT`] (see `lower_xfb.rs`) | see the XFB table |
//! | 224, 228, 232 | viewport scale x, y, z (f32; `lower_viewport`) | CPU per draw (`jm::graphics`) |
//! | 236, 240, 244 | viewport offset x, y, z (f32; `lower_viewport`) | CPU per draw (`jm::graphics`) |
//!
//! # What is lowered
//! - `vertex_index` → `raw_vertex_id + uniform(raw vertex offset)`;
//!   `instance_index` → `instance_id + uniform(base instance)`;
//!   `base_vertex`, `base_instance`, `raw_vertex_offset`, `num_workgroups`,
//!   `xfb_param(n)` → uniform loads (32-bit scalars, vectors built with `vec`).
//! - `workgroup_size` → a constant; `local_invocation_index` → arithmetic on
//!   `local_invocation_id` and the constant size.
//! - `load_push_constant` with a constant offset (from a `const` source) →
//!   uniform loads of its 32-bit (or 8-aligned 64-bit) components;
//!   dynamically indexed (or 8/16-bit) ones → `load_global` at
//!   `uniform(push-constant address) + base + offset`.
//! - **Kept** as intrinsics for the backend (preloaded registers on Bifrost):
//!   `raw_vertex_id` (r61), `instance_id` (r62), `xfb_invocation` (r61 of the
//!   XFB job), `local_invocation_id` (r55/r56), `workgroup_id` (r57–r59),
//!   `global_invocation_id` (r60–r62); in fragment shaders `frag_coord`,
//!   `front_facing`, `point_coord` (preloads and varying messages).
//!
//! Runs once, after every pass that creates sysvals (`lower_xfb`); it must
//! never see a shader that already contains `load_uniform`.

use std::collections::BTreeSet;

use crate::compiler::ir::*;

/// Byte offsets in the canonical sysval block.
pub mod sysval_offset {
    pub const RAW_VERTEX_OFFSET: u32 = 0;
    pub const BASE_VERTEX: u32 = 4;
    pub const BASE_INSTANCE: u32 = 8;
    /// gl_ViewIndex (VK_KHR_multiview).
    pub const VIEW_INDEX: u32 = 12;
    pub const PUSH_CONSTANTS_ADDRESS: u32 = 16;
    pub const NUM_WORKGROUPS: u32 = 24;
    /// gl_DrawID (VK_KHR_shader_draw_parameters).
    pub const DRAW_INDEX: u32 = 36;
    pub const XFB_PARAMS: u32 = 40;
    /// Viewport scale x, y, z then offset x, y, z (six f32), the terms of
    /// the viewport transform `lower_viewport` puts in vertex shaders;
    /// right after the XFB parameters.
    pub const VIEWPORT: u32 = XFB_PARAMS + 4 * super::XFB_PARAM_COUNT as u32;
    const _: () = assert!(VIEWPORT.is_multiple_of(8), "64-bit push words");
}

/// Number of `XfbParam(n)` words in the sysval block (what each means is
/// `lower_xfb`'s `xfb_param` table).
pub const XFB_PARAM_COUNT: u16 = 46;

/// Size of the canonical sysval block in bytes (a whole number of words).
pub const SYSVAL_BLOCK_SIZE: u32 = sysval_offset::VIEWPORT + 4 * 6;

const _: () =
    assert!(sysval_offset::XFB_PARAMS + 4 * XFB_PARAM_COUNT as u32 == sysval_offset::VIEWPORT);

/// Push constants live above this in the pass's intermediate numbering.
const PUSH_CONSTANT_SPACE: u32 = 1 << 20;

/// The canonical sysval block, as the driver fills it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SysvalBlock {
    pub raw_vertex_offset: u32,
    pub base_vertex: u32,
    pub base_instance: u32,
    pub view_index: u32,
    pub draw_index: u32,
    pub push_constants_address: u64,
    pub num_workgroups: [u32; 3],
    pub xfb_params: [u32; XFB_PARAM_COUNT as usize],
    /// Viewport scale x, y, z, offset x, y, z as f32 bits (see
    /// [`SysvalBlock::set_viewport`]).
    pub viewport: [u32; 6],
}

impl Default for SysvalBlock {
    fn default() -> SysvalBlock {
        SysvalBlock {
            raw_vertex_offset: 0,
            base_vertex: 0,
            base_instance: 0,
            view_index: 0,
            draw_index: 0,
            push_constants_address: 0,
            num_workgroups: [0; 3],
            xfb_params: [0; XFB_PARAM_COUNT as usize],
            viewport: [0; 6],
        }
    }
}

impl SysvalBlock {
    /// The viewport terms: `scale` and `offset` of the transform
    /// `x_fb = x_ndc * scale + offset` per axis.
    pub fn set_viewport(&mut self, scale: [f32; 3], offset: [f32; 3]) {
        for i in 0..3 {
            self.viewport[i] = scale[i].to_bits();
            self.viewport[3 + i] = offset[i].to_bits();
        }
    }

    /// The block as 32-bit words: word `k` holds bytes `4k..4k + 4` of the
    /// canonical block (`sysval_offset`), little-endian; padding is zero.
    pub fn to_words(&self) -> [u32; SYSVAL_BLOCK_SIZE as usize / 4] {
        use sysval_offset::*;
        let mut w = [0u32; SYSVAL_BLOCK_SIZE as usize / 4];
        let at = |offset: u32| offset as usize / 4;
        w[at(RAW_VERTEX_OFFSET)] = self.raw_vertex_offset;
        w[at(BASE_VERTEX)] = self.base_vertex;
        w[at(BASE_INSTANCE)] = self.base_instance;
        w[at(VIEW_INDEX)] = self.view_index;
        w[at(DRAW_INDEX)] = self.draw_index;
        w[at(PUSH_CONSTANTS_ADDRESS)] = self.push_constants_address as u32;
        w[at(PUSH_CONSTANTS_ADDRESS) + 1] = (self.push_constants_address >> 32) as u32;
        w[at(NUM_WORKGROUPS)..at(NUM_WORKGROUPS) + 3].copy_from_slice(&self.num_workgroups);
        w[at(XFB_PARAMS)..at(VIEWPORT)].copy_from_slice(&self.xfb_params);
        w[at(VIEWPORT)..].copy_from_slice(&self.viewport);
        w
    }
}

/// One 8-byte word of a shader's push-uniform area.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PushWord {
    /// Canonical sysval-block word (bytes `8w..8w+8`).
    Sysval(u32),
    /// User push-constant word (bytes `8w..8w+8` of the push constants).
    PushConstant(u32),
}

/// Which words a shader's push-uniform area holds, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PushUniformLayout {
    pub words: Vec<PushWord>,
}

impl PushUniformLayout {
    /// Bytes of the push-uniform area (what `DRAW.Push uniforms` points to).
    pub fn fill(&self, sysvals: &SysvalBlock, push_constants: &[u8]) -> Vec<u8> {
        self.fill_words(sysvals, push_constants)
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect()
    }

    /// The push-uniform area as the 64-bit FAU words a job takes
    /// (little-endian, word `i` = bytes `8i..8i+8`); bytes past the end of
    /// the push constants read as zero.
    pub fn fill_words(&self, sysvals: &SysvalBlock, push_constants: &[u8]) -> Vec<u64> {
        let mut words = Vec::with_capacity(self.words.len());
        self.fill_words_into(sysvals, push_constants, &mut words);
        words
    }

    /// [`PushUniformLayout::fill_words`] appended to `out` (a vector the
    /// caller reuses).
    pub fn fill_words_into(
        &self,
        sysvals: &SysvalBlock,
        push_constants: &[u8],
        out: &mut Vec<u64>,
    ) {
        let block = sysvals.to_words();
        let sysval = |i: u32| {
            let lo = block.get(2 * i as usize).copied().unwrap_or(0);
            let hi = block.get(2 * i as usize + 1).copied().unwrap_or(0);
            u64::from(lo) | u64::from(hi) << 32
        };
        let word = |src: &[u8], i: u32| {
            let at = 8 * i as usize;
            match src.get(at..at + 8) {
                Some(b) => u64::from_le_bytes(b.try_into().expect("8 bytes")),
                None => {
                    let mut w = [0u8; 8];
                    for (k, d) in w.iter_mut().enumerate() {
                        *d = src.get(at + k).copied().unwrap_or(0);
                    }
                    u64::from_le_bytes(w)
                }
            }
        };
        out.extend(self.words.iter().map(|w| match *w {
            PushWord::Sysval(i) => sysval(i),
            PushWord::PushConstant(i) => word(push_constants, i),
        }));
    }

    /// Byte offset in this shader's push-uniform area of canonical sysval
    /// byte `canonical` (e.g. `sysval_offset::XFB_PARAMS + 4 * n`), if the
    /// shader uses it. GPU kernels that patch a draw's parameters (indirect
    /// draws, restart resolution) are given these offsets by the driver.
    pub fn sysval_offset(&self, canonical: u32) -> Option<u32> {
        self.words
            .iter()
            .position(|&w| w == PushWord::Sysval(canonical / 8))
            .map(|i| 8 * i as u32 + canonical % 8)
    }

    /// FAU words to preload (the RSD's `Preload.Uniform count`).
    pub fn fau_words(&self) -> u32 {
        self.words.len() as u32
    }
}

/// Lower sysvals and push constants (see the module doc); returns the layout.
pub fn lower_sysvals(shader: &mut Shader) -> PushUniformLayout {
    use sysval_offset::*;
    let local_size = shader.info.local_size;
    let u32t = ValueType::U32;
    // In place: only regions holding something to lower are rebuilt, and
    // the walk also collects the uniform words the result reads. Values
    // are allocated in program order, as a whole-shader rewrite would.
    // It also records the scalar constants it passes (what a
    // `load_push_constant` offset may be), each before any use.
    let mut seen = Seen {
        used: BTreeSet::new(),
        consts: ScalarConsts::new(shader.values.len()),
    };
    let mut body = std::mem::take(&mut shader.body);
    let mut b = Builder::new(shader);
    lower_region(&mut body, &mut b, &mut seen, &mut |instr, e, consts| {
        let Op::Intrinsic(i) = &instr.op else {
            e.push(instr);
            return;
        };
        let Some(&dst) = instr.dsts.first() else {
            e.push(instr);
            return;
        };
        let uni = |e: &mut Builder<'_>, off: u32| {
            e.load(Intrinsic::LoadUniform { offset: off }, u32t, &[])
        };
        match i.kind {
            Intrinsic::LoadSysVal(sv) => {
                let v = match sv {
                    SysVal::VertexIndex => {
                        let raw = e.load(Intrinsic::LoadSysVal(SysVal::RawVertexId), u32t, &[]);
                        let off = uni(e, RAW_VERTEX_OFFSET);
                        e.alu_typed(AluOp::Iadd, u32t, &[raw, off])
                    }
                    SysVal::InstanceIndex => {
                        let id = e.load(Intrinsic::LoadSysVal(SysVal::InstanceId), u32t, &[]);
                        let base = uni(e, BASE_INSTANCE);
                        e.alu_typed(AluOp::Iadd, u32t, &[id, base])
                    }
                    SysVal::BaseVertex => uni(e, BASE_VERTEX),
                    SysVal::BaseInstance => uni(e, BASE_INSTANCE),
                    SysVal::ViewIndex => uni(e, VIEW_INDEX),
                    SysVal::DrawIndex => uni(e, DRAW_INDEX),
                    SysVal::RawVertexOffset => uni(e, RAW_VERTEX_OFFSET),
                    SysVal::XfbParam(n) => uni(e, XFB_PARAMS + 4 * u32::from(n)),
                    SysVal::NumWorkgroups => {
                        let c: ValueList = (0..3).map(|k| uni(e, NUM_WORKGROUPS + 4 * k)).collect();
                        e.emit(ValueType::new(32, 3), Op::Vec(OpVec { srcs: c }))
                    }
                    SysVal::WorkgroupSize => {
                        let v: Vec<u64> = local_size.iter().map(|&x| u64::from(x)).collect();
                        e.imm(ValueType::new(32, 3), &v)
                    }
                    SysVal::LocalInvocationIndex => {
                        let id = e.load(
                            Intrinsic::LoadSysVal(SysVal::LocalInvocationId),
                            ValueType::new(32, 3),
                            &[],
                        );
                        let c: Vec<Value> = (0..3)
                            .map(|k| {
                                e.emit(
                                    u32t,
                                    Op::Swizzle(OpSwizzle {
                                        src: id,
                                        comps: [k].into(),
                                    }),
                                )
                            })
                            .collect();
                        let sx = e.imm(u32t, &[u64::from(local_size[0])]);
                        let sy = e.imm(u32t, &[u64::from(local_size[1])]);
                        let zy = e.alu_typed(AluOp::Imul, u32t, &[c[2], sy]);
                        let yz = e.alu_typed(AluOp::Iadd, u32t, &[zy, c[1]]);
                        let yzx = e.alu_typed(AluOp::Imul, u32t, &[yz, sx]);
                        e.alu_typed(AluOp::Iadd, u32t, &[yzx, c[0]])
                    }
                    _ => {
                        e.push(instr);
                        return;
                    }
                };
                e.mov(dst, v);
            }
            Intrinsic::LoadPushConstant { base } => {
                let ty = e.ty(dst);
                let src = i.srcs[0];
                let constant = consts.get(src).map(|o| u64::from(base) + o);
                let word_ok = |off: u64| match ty.bits {
                    32 => off.is_multiple_of(4),
                    64 => off.is_multiple_of(8),
                    _ => false,
                };
                let v = match constant {
                    Some(off)
                        if word_ok(off)
                            && off + u64::from(ty.byte_size())
                                < u64::from(u32::MAX - PUSH_CONSTANT_SPACE) =>
                    {
                        let cb = ty.bits as u32 / 8;
                        let comps: Vec<Value> = (0..ty.comps as u32)
                            .map(|c| {
                                e.load(
                                    Intrinsic::LoadUniform {
                                        offset: PUSH_CONSTANT_SPACE + off as u32 + cb * c,
                                    },
                                    ty.scalar(),
                                    &[],
                                )
                            })
                            .collect();
                        if comps.len() == 1 {
                            comps[0]
                        } else {
                            e.emit(ty, Op::Vec(OpVec { srcs: comps.into() }))
                        }
                    }
                    _ => {
                        let lo = uni(e, PUSH_CONSTANTS_ADDRESS);
                        let hi = uni(e, PUSH_CONSTANTS_ADDRESS + 4);
                        let pair = e.emit(
                            ValueType::new(32, 2),
                            Op::Vec(OpVec {
                                srcs: [lo, hi].into(),
                            }),
                        );
                        let addr = e.alu_typed(AluOp::Bitcast, ValueType::U64, &[pair]);
                        let b = e.imm(u32t, &[u64::from(base)]);
                        let off = e.alu_typed(AluOp::Iadd, u32t, &[src, b]);
                        let off64 = e.alu_typed(AluOp::U2u, ValueType::U64, &[off]);
                        let at = e.alu_typed(AluOp::Iadd, ValueType::U64, &[addr, off64]);
                        e.load(Intrinsic::LoadGlobal, ty, &[at])
                    }
                };
                e.mov(dst, v);
            }
            _ => e.push(instr),
        }
    });
    b.finish();
    shader.body = body;
    // Assign packed positions: used sysval words, then used push-constant
    // words (`PushWord`'s order, which `words` keeps sorted).
    let layout = PushUniformLayout {
        words: seen.used.into_iter().collect(),
    };
    if !layout.words.is_empty() {
        shader.body.for_each_region_mut(&mut |r| {
            for instr in &mut r.instrs {
                if let Op::Intrinsic(OpIntrinsic {
                    kind: Intrinsic::LoadUniform { offset },
                    ..
                }) = &mut instr.op
                {
                    let w = word_of(*offset);
                    // Every word read is in the layout (collected above).
                    let (Ok(position) | Err(position)) = layout.words.binary_search(&w);
                    *offset = 8 * position as u32 + *offset % 8;
                }
            }
        });
    }
    layout
}

/// The push-uniform word a `load_uniform` byte offset of the pass's
/// intermediate numbering reads.
fn word_of(offset: u32) -> PushWord {
    if offset >= PUSH_CONSTANT_SPACE {
        PushWord::PushConstant((offset - PUSH_CONSTANT_SPACE) / 8)
    } else {
        PushWord::Sysval(offset / 8)
    }
}

/// What the walk of [`lower_region`] collects.
struct Seen {
    /// The words the `load_uniform`s of the result read.
    used: BTreeSet<PushWord>,
    /// The scalar constants of the shader walked so far.
    consts: ScalarConsts,
}

/// Notes the word `instr` reads if it is a `load_uniform`.
fn note_uniform(instr: &Instr, used: &mut BTreeSet<PushWord>) {
    if let Op::Intrinsic(OpIntrinsic {
        kind: Intrinsic::LoadUniform { offset },
        ..
    }) = &instr.op
    {
        used.insert(word_of(*offset));
    }
}

/// Notes what an instruction the walk keeps tells: the word it reads if
/// it is a `load_uniform`, its value if it is a scalar `const`.
fn note_kept(instr: &Instr, seen: &mut Seen) {
    match &instr.op {
        Op::Const(c) => seen.consts.note(instr, c),
        _ => note_uniform(instr, &mut seen.used),
    }
}

/// What lowers one instruction: appends its replacement to the builder;
/// gets the scalar constants defined before it.
type Lower<'f, 's> = dyn FnMut(Instr, &mut Builder<'s>, &ScalarConsts) + 'f;

/// Whether the lowering closure of [`lower_sysvals`] replaces `instr`
/// (it keeps everything else as it is).
fn needs_lowering(instr: &Instr) -> bool {
    let Op::Intrinsic(i) = &instr.op else {
        return false;
    };
    if instr.dsts.is_empty() {
        return false;
    }
    match i.kind {
        Intrinsic::LoadSysVal(sv) => matches!(
            sv,
            SysVal::VertexIndex
                | SysVal::InstanceIndex
                | SysVal::BaseVertex
                | SysVal::BaseInstance
                | SysVal::ViewIndex
                | SysVal::DrawIndex
                | SysVal::RawVertexOffset
                | SysVal::XfbParam(_)
                | SysVal::NumWorkgroups
                | SysVal::WorkgroupSize
                | SysVal::LocalInvocationIndex
        ),
        Intrinsic::LoadPushConstant { .. } => true,
        _ => false,
    }
}

/// Lowers `region` (nested regions first, in program order) through
/// `lower`, which appends an instruction's replacement to `b`'s region;
/// notes in `seen` the words every `load_uniform` of the result reads and
/// the scalar constants it keeps. Every instruction is visited after all
/// those that dominate it (program order), so the constants an
/// instruction's sources may be are known when it is lowered. A region is
/// rebuilt from its first instruction to lower on; one with none stays
/// where it is.
fn lower_region<'s>(
    region: &mut Region,
    b: &mut Builder<'s>,
    seen: &mut Seen,
    lower: &mut Lower<'_, 's>,
) {
    let mut first = None;
    for (k, instr) in region.instrs.iter_mut().enumerate() {
        lower_nested(instr, b, seen, lower);
        if needs_lowering(instr) {
            first = Some(k);
            break;
        }
        note_kept(instr, seen);
    }
    let Some(first) = first else {
        return;
    };
    let old = std::mem::take(&mut region.instrs);
    // Lowering adds instructions: room for half as many again.
    region.instrs.reserve(old.len() + old.len() / 2);
    let mut rest = old.into_iter();
    region.instrs.extend(rest.by_ref().take(first));
    for (k, mut instr) in rest.enumerate() {
        // The first one's nested regions were lowered by the scan above.
        if k > 0 {
            lower_nested(&mut instr, b, seen, lower);
        }
        if needs_lowering(&instr) {
            let start = region.instrs.len();
            lower(instr, b, &seen.consts);
            b.drain_into(&mut region.instrs);
            for new in &region.instrs[start..] {
                note_uniform(new, &mut seen.used);
            }
        } else {
            note_kept(&instr, seen);
            region.instrs.push(instr);
        }
    }
}

fn lower_nested<'s>(
    instr: &mut Instr,
    b: &mut Builder<'s>,
    seen: &mut Seen,
    lower: &mut Lower<'_, 's>,
) {
    match &mut instr.op {
        Op::If(f) => {
            lower_region(&mut f.then_region, b, seen, lower);
            lower_region(&mut f.else_region, b, seen, lower);
        }
        Op::Loop(l) => lower_region(&mut l.body, b, seen, lower),
        _ => {}
    }
}

/// The value of every single-component `const` recorded, by value id
/// (what a `load_push_constant` offset may be): a dense table over the
/// shader's values before the lowering, and a map for ids past them (only
/// invalid IR has them).
struct ScalarConsts {
    /// Allocated at the first constant.
    dense: Vec<Option<u64>>,
    /// The length `dense` gets.
    values: usize,
    other: rustc_hash::FxHashMap<Value, u64>,
}

impl ScalarConsts {
    fn new(values: usize) -> ScalarConsts {
        ScalarConsts {
            dense: Vec::new(),
            values,
            other: Default::default(),
        }
    }

    /// Records `instr`, a `const` with components `c`, if it is a scalar.
    fn note(&mut self, instr: &Instr, c: &OpConst) {
        let [d] = instr.dsts.as_slice() else { return };
        if c.values.len() != 1 {
            return;
        }
        if self.dense.is_empty() {
            self.dense.resize(self.values, None);
        }
        match self.dense.get_mut(d.index()) {
            Some(slot) => *slot = Some(c.values[0]),
            None => {
                self.other.insert(*d, c.values[0]);
            }
        }
    }

    fn get(&self, v: Value) -> Option<u64> {
        match self.dense.get(v.index()) {
            Some(c) => *c,
            None => self.other.get(&v).copied(),
        }
    }
}

impl Shader {
    /// Method form of [`lower_sysvals`].
    pub fn lower_sysvals(&mut self) -> PushUniformLayout {
        lower_sysvals(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::ir::interp::*;

    /// `SysvalBlock::to_words` puts each field at its `sysval_offset` and
    /// zeros everywhere else.
    #[test]
    fn words_follow_the_sysval_offsets() {
        use sysval_offset::*;
        let mut b = SysvalBlock {
            raw_vertex_offset: 0x1111_0001,
            base_vertex: 0x2222_0002,
            base_instance: 0x3333_0003,
            view_index: 0x7777_0007,
            draw_index: 0x0999_0009,
            push_constants_address: 0x4444_0004_5555_0005,
            num_workgroups: [0x66, 0x77, 0x88],
            ..SysvalBlock::default()
        };
        for (i, p) in b.xfb_params.iter_mut().enumerate() {
            *p = 0x1000_0000 + i as u32;
        }
        b.set_viewport([1.5, -2.0, 0.5], [3.0, 4.0, 0.25]);
        let mut want = vec![(RAW_VERTEX_OFFSET, 0x1111_0001), (BASE_VERTEX, 0x2222_0002)];
        want.extend([(BASE_INSTANCE, 0x3333_0003), (VIEW_INDEX, 0x7777_0007)]);
        want.extend([
            (DRAW_INDEX, 0x0999_0009),
            (PUSH_CONSTANTS_ADDRESS, 0x5555_0005),
        ]);
        want.push((PUSH_CONSTANTS_ADDRESS + 4, 0x4444_0004));
        want.extend((0..3).map(|i| (NUM_WORKGROUPS + 4 * i, 0x66 + 0x11 * i)));
        want.extend((0..u32::from(XFB_PARAM_COUNT)).map(|i| (XFB_PARAMS + 4 * i, 0x1000_0000 + i)));
        let vp = [1.5f32, -2.0, 0.5, 3.0, 4.0, 0.25];
        want.extend((0..6).map(|i| (VIEWPORT + 4 * i, vp[i as usize].to_bits())));
        let words = b.to_words();
        for (k, w) in words.iter().enumerate() {
            let at = 4 * k as u32;
            let expected = want.iter().find(|(o, _)| *o == at).map_or(0, |&(_, v)| v);
            assert_eq!(*w, expected, "byte offset {at}");
        }
        assert_eq!(4 * words.len(), SYSVAL_BLOCK_SIZE as usize);
    }

    const PC_ADDR: u64 = 0x9000;
    const OUT_ADDR: u64 = 0xA000;

    /// A shader storing each interesting value to consecutive u32 slots at OUT_ADDR.
    fn shader(stage: Stage) -> (Shader, usize) {
        let mut s = Shader::new(stage);
        s.info.local_size = [4, 2, 3];
        s.info.push_constant_size = 64;
        let mut b = Builder::new(&mut s);
        let u = ValueType::U32;
        let mut vals = Vec::new();
        for sv in [
            SysVal::VertexIndex,
            SysVal::InstanceIndex,
            SysVal::BaseVertex,
            SysVal::BaseInstance,
            SysVal::ViewIndex,
            SysVal::DrawIndex,
            SysVal::RawVertexOffset,
            SysVal::LocalInvocationIndex,
            SysVal::XfbParam(0),
            SysVal::XfbParam(27),
        ] {
            vals.push(b.sysval(sv, u));
        }
        for sv in [SysVal::NumWorkgroups, SysVal::WorkgroupSize] {
            let v = b.sysval(sv, ValueType::new(32, 3));
            for c in 0..3 {
                vals.push(b.channel(v, c));
            }
        }
        // Constant-offset push constants: scalar, vec3 across a word boundary, u64.
        let c4 = b.imm_u32(4);
        vals.push(b.load(Intrinsic::LoadPushConstant { base: 0 }, u, &[c4]));
        let c0 = b.imm_u32(0);
        let v3 = b.load(
            Intrinsic::LoadPushConstant { base: 20 },
            ValueType::new(32, 3),
            &[c0],
        );
        for c in 0..3 {
            vals.push(b.channel(v3, c));
        }
        let c40 = b.imm_u32(40);
        let q = b.load(
            Intrinsic::LoadPushConstant { base: 0 },
            ValueType::U64,
            &[c40],
        );
        let q2 = b.alu_typed(AluOp::Bitcast, ValueType::new(32, 2), &[q]);
        vals.push(b.channel(q2, 0));
        vals.push(b.channel(q2, 1));
        // Dynamically indexed: offset = 4 * instance id.
        let iid = b.sysval(SysVal::InstanceId, u);
        let dyn_off = b.alu(AluOp::Imul, &[iid, c4]);
        vals.push(b.load(Intrinsic::LoadPushConstant { base: 8 }, u, &[dyn_off]));
        let n = vals.len();
        for (i, v) in vals.into_iter().enumerate() {
            let a = b.imm_u64(OUT_ADDR + 4 * i as u64);
            b.store(Intrinsic::StoreGlobal, &[v, a]);
        }
        b.finish();
        (s, n)
    }

    fn run(s: &Shader, n: usize, state: &DrawState, ids: InvocationIds, pc: &[u8]) -> Vec<u8> {
        let mut m = Memory::new();
        m.map(OUT_ADDR, vec![0; 4 * n]).unwrap();
        m.map(PC_ADDR, pc.to_vec()).unwrap();
        run_invocation(s, state, &mut m, ids).unwrap();
        m.range(OUT_ADDR).unwrap().to_vec()
    }

    #[test]
    fn lowered_matches_unlowered() {
        let (s, n) = shader(Stage::Vertex);
        let pc: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37)).collect();
        let mut xfb_params = [0u32; XFB_PARAM_COUNT as usize];
        for (i, p) in xfb_params.iter_mut().enumerate() {
            *p = 0x1000 + i as u32;
        }
        let block = SysvalBlock {
            raw_vertex_offset: 100,
            base_vertex: 7,
            base_instance: 3,
            view_index: 5,
            draw_index: 11,
            push_constants_address: PC_ADDR,
            num_workgroups: [5, 6, 7],
            xfb_params,
            viewport: [0; 6],
        };
        let ids = InvocationIds {
            raw_vertex_id: 12,
            instance_id: 2,
            local_id: [3, 1, 2],
            ..Default::default()
        };
        let unlowered_state = DrawState {
            push_constants: pc.clone(),
            sysvals: SysValues {
                raw_vertex_offset: block.raw_vertex_offset,
                base_vertex: block.base_vertex,
                base_instance: block.base_instance,
                view_index: block.view_index,
                draw_index: block.draw_index,
                num_workgroups: block.num_workgroups,
                xfb_params: xfb_params.to_vec(),
            },
            ..Default::default()
        };
        let want = run(&s, n, &unlowered_state, ids, &pc);
        let mut lowered = s.clone();
        let layout = lower_sysvals(&mut lowered);
        let mut left = Vec::new();
        lowered.body.for_each_instr(&mut |i| {
            if let Op::Intrinsic(OpIntrinsic { kind, .. }) = &i.op {
                match kind {
                    Intrinsic::LoadPushConstant { .. } => left.push(*kind),
                    Intrinsic::LoadSysVal(sv)
                        if !matches!(
                            sv,
                            SysVal::RawVertexId | SysVal::InstanceId | SysVal::LocalInvocationId
                        ) =>
                    {
                        left.push(*kind)
                    }
                    _ => {}
                }
            }
        });
        assert!(left.is_empty(), "not lowered: {left:?}");
        let lowered_state = DrawState {
            push_uniforms: layout.fill(&block, &pc),
            ..Default::default()
        };
        let got = run(&lowered, n, &lowered_state, ids, &pc);
        assert_eq!(got, want);
        // Packed: sysval words first (ascending), then push-constant words.
        let first_pc = layout
            .words
            .iter()
            .position(|w| matches!(w, PushWord::PushConstant(_)))
            .unwrap();
        assert!(
            layout.words[..first_pc]
                .iter()
                .all(|w| matches!(w, PushWord::Sysval(_)))
        );
        assert!(layout.words.windows(2).all(|w| w[0] < w[1]));
        // Push constants 4, 20..32, 40..48 → words 0, 2, 3, 5.
        assert_eq!(
            layout.words[first_pc..],
            [
                PushWord::PushConstant(0),
                PushWord::PushConstant(2),
                PushWord::PushConstant(3),
                PushWord::PushConstant(5)
            ]
        );
        assert_eq!(layout.fau_words(), layout.words.len() as u32);
    }

    /// A push-constant load inside a branch and a loop, its constant
    /// offset defined before them: read as push uniforms (the constants
    /// are known where the loads are lowered), not through the address.
    #[test]
    fn nested_loads_see_constant_offsets_defined_before() {
        let mut s = Shader::parse(
            r#"shader vertex "" {
  info local_size 0 0 0 shared 0 push 64
  values 10
  %0:i32 = const 0x8
  %1:i32 = load_sysval sysval=instance_id
  %2:i32 = const 0x0
  %3:b1 = ieq %1, %2
  %4:i32 = if %3 {
    %5:i32 = load_push_constant base=4 %0
    yield %5
  } else {
    yield %1
  }
  loop () {
    %6:i32 = load_push_constant base=0 %0
    %7:i32 = iadd %6, %4
    %8:i64 = const 0xa000
    store_global %7, %8
    break
  }
}"#,
        )
        .unwrap();
        let layout = lower_sysvals(&mut s);
        let text = s.to_string();
        assert!(!text.contains("load_global"), "{text}");
        // Bytes 12 and 8 of the push constants: words 1 (high half) and 1.
        assert_eq!(layout.words, vec![PushWord::PushConstant(1)], "{text}");
        assert!(text.contains("load_uniform offset=4"), "{text}");
        assert!(text.contains("load_uniform offset=0"), "{text}");
        s.validate().unwrap();
    }

    #[test]
    fn unused_sysvals_take_no_space() {
        let mut s = Shader::new(Stage::Vertex);
        let mut b = Builder::new(&mut s);
        let v = b.sysval(SysVal::BaseInstance, ValueType::U32);
        let a = b.imm_u64(OUT_ADDR);
        b.store(Intrinsic::StoreGlobal, &[v, a]);
        b.finish();
        let layout = lower_sysvals(&mut s);
        assert_eq!(layout.words, vec![PushWord::Sysval(1)]);
        assert_eq!(layout.sysval_offset(sysval_offset::BASE_INSTANCE), Some(0));
        assert_eq!(layout.sysval_offset(sysval_offset::BASE_VERTEX), None);
        assert!(s.to_string().contains("load_uniform offset=0"));
    }
}
