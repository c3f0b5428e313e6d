//! FRAGMENT jobs: clear the tile buffer, rasterize the primitives the tiler
//! jobs left in the polygon list ([`super::tiler`]), test depth, run the
//! fragment shader per covered pixel on the shader core, and write the tile
//! buffer back ([`super::framebuffer`]).
//!
//! Per primitive, from its record's Draw descriptor: the fragment Renderer
//! State (shader, preloads, message preloads, depth state, alpha test,
//! followed by one 16-byte Blend descriptor per render target), the
//! `Viewport` (scissor box, x/y bounds, depth range), the `Position` buffer
//! (vertex positions as the vertex shaders stored them), `Varyings` /
//! `Varying buffers` (LD_VAR message preloads), `Push uniforms`.
//!
//! Fragment threads: one per covered pixel (single-sampled), in groups of
//! at most the core's thread count, primitives in list order. Preloads
//! (Mesa's Bifrost fragment registers, `bifrost_compile.c`): r60 = the
//! coverage mask (bit 0: the one sample; Fragment Preload "Coverage"), r59
//! = pixel x | y << 16 ("Fragment position"), r61 = sample mask (bits
//! 0..15) | sample id 0 << 16 ("Sample mask/ID"). Message preloads (v7
//! Renderer State words 15): an `LD_VAR` preload writes the varying
//! (`Varying Index` in the Draw's Varyings table), interpolated
//! perspective-correctly at the pixel centre, `Num Components` of it as F32
//! (one register each) or F16 (two per register), into r0.. for Message
//! Preload 1 and r4.. for Message Preload 2 (r0 is what Mesa's binaries
//! read after a first preload; r4 for the second is our reading).
//!
//! Depth/stencil: the depth test and write happen before the shader
//! (the early modes of `Pixel kill` / `ZS update`), against the tile
//! buffer's depth (initialised from `Z Clear`); fragments outside the
//! viewport's depth range are discarded when the fixed-function near/far
//! discard bits are set, and depth is clamped to it. Refused with
//! JOB_CONFIG_FAULT: stencil, depth from the shader, `Force Late` ZS update
//! with depth test or write, alpha-to-coverage, alpha tests other than
//! Always/Never, VAR_TEX preloads, preloads other than those above,
//! multisampling, tile enable maps.
//!
//! This module must never learn anything except through GPU memory.

use super::compute::load_resources;
use super::framebuffer::{Framebuffer, TileBuffer};
use super::idvs::read_position;
use super::jobs::{JobContext, JobFault, JobHeader};
use super::raster::{self, Fragment, TieBreak};
use super::shader::warp::ThreadSpec;
use super::shader::{Core, FragThread, FragmentIo, Program};
use super::tiler::{self, Kind, Record};
use crate::hw::draw::{dcd, viewport as vp};
use crate::hw::job::fragment as payload;
use crate::hw::layouts;
use crate::hw::shader::{
    fragment_preload as fpl, ld_var_preload, message_preload, multisample_misc as msm,
    renderer_state as rs, stencil_mask_misc as smm, var_tex_preload,
};

fn config(va: u64, what: &str) -> JobFault {
    log::error!("sim fragment: descriptor at {va:#x}: {what}");
    JobFault::config(va)
}

/// Fragments per shader-core group.
const GROUP: usize = 256;

/// Runs a FRAGMENT job.
pub fn execute(ctx: &JobContext<'_>, job: &JobHeader) -> Result<(), JobFault> {
    let l = layouts(ctx.arch);
    let p = ctx
        .mmu
        .read_words(job.payload(), l.fragment_payload.words as usize)?;
    if l.fragment_payload.check_reserved(&p).is_err() {
        return Err(config(job.payload(), "reserved bits set in the payload"));
    }
    if payload::HAS_TILE_ENABLE_MAP.get(&p) != 0 {
        return Err(config(job.payload(), "tile enable maps are not simulated"));
    }
    let fb = Framebuffer::read(ctx.mmu, ctx.arch, payload::FRAMEBUFFER.get(&p))?;
    let t = fb.tile_edge;
    let rect = [
        (payload::BOUND_MIN_X.get(&p) as u32 * t).max(fb.bound[0]),
        (payload::BOUND_MIN_Y.get(&p) as u32 * t).max(fb.bound[1]),
        ((payload::BOUND_MAX_X.get(&p) as u32 + 1) * t - 1)
            .min(fb.bound[2])
            .min(fb.width.saturating_sub(1)),
        ((payload::BOUND_MAX_Y.get(&p) as u32 + 1) * t - 1)
            .min(fb.bound[3])
            .min(fb.height.saturating_sub(1)),
    ];
    let mut tile = TileBuffer::cleared(&fb);
    if rect[0] > rect[2] || rect[1] > rect[3] {
        return Ok(());
    }
    let records = if fb.tiler_context != 0 {
        tiler::read_list(ctx.mmu, ctx.arch, fb.tiler_context)?
    } else {
        Vec::new()
    };
    let mut draws: Vec<(u64, DrawState)> = Vec::new();
    let mut frags = Vec::new();
    for r in &records {
        let state = match draws.iter().position(|(va, _)| *va == r.draw) {
            Some(i) => i,
            None => {
                draws.push((r.draw, DrawState::read(ctx, r.draw, &fb)?));
                draws.len() - 1
            }
        };
        let d = &draws[state].1;
        frags.clear();
        let clip = [
            rect[0].max(d.scissor[0]),
            rect[1].max(d.scissor[1]),
            rect[2].min(d.scissor[2]),
            rect[3].min(d.scissor[3]),
        ];
        if clip[0] > clip[2] || clip[1] > clip[3] {
            continue;
        }
        let v = |i: usize| read_position(ctx.mmu, d.position, r.vertices[i]);
        match r.kind {
            Kind::Triangle => {
                let vs = [v(0)?, v(1)?, v(2)?];
                raster::triangle(&vs, TieBreak(fb.tie_break), clip, &mut frags);
            }
            Kind::Point => raster::point(&v(0)?, r.size, clip, &mut frags),
            Kind::Line => raster::line(&v(0)?, &v(1)?, r.size, clip, &mut frags),
        }
        frags.retain(|f| d.inside_bounds(f));
        depth_test(d, &mut tile, &mut frags);
        if frags.is_empty() {
            continue;
        }
        tile = shade(ctx, job, d, r, tile, &frags)?;
    }
    tile.write_back(ctx.mmu, &fb, rect)?;
    if fb.tiler_context != 0 && !records.is_empty() {
        tiler::consume(ctx.mmu, fb.tiler_context)?;
    }
    Ok(())
}

/// A message preload: the results land in r`first`.. (F32: one register
/// per component; F16: two per register).
struct Message {
    first: u8,
    varying: u32,
    components: usize,
    f16: bool,
    /// VAR_TEX: the texture (and sampler) index; LD_VAR: None.
    texture: Option<u32>,
}

/// Everything of one Draw descriptor the fragment side uses.
struct DrawState {
    draw: Vec<u32>,
    draw_va: u64,
    rsd: Vec<u32>,
    blend: Vec<[u32; 4]>,
    position: u64,
    /// Inclusive scissor box.
    scissor: [u32; 4],
    /// Viewport x/y bounds (pixel centres outside are not covered).
    bounds: [f32; 4],
    depth_range: [f32; 2],
    depth_func: u64,
    depth_write: bool,
    near_discard: bool,
    far_discard: bool,
    alpha_test: u64,
    /// Message preloads 1 and 2, in order.
    messages: Vec<Message>,
    preload: [bool; 3],
}

impl DrawState {
    fn read(ctx: &JobContext<'_>, draw_va: u64, fb: &Framebuffer) -> Result<DrawState, JobFault> {
        let l = layouts(ctx.arch);
        let draw = ctx.mmu.read_words(draw_va, l.draw.words as usize)?;
        if l.draw.check_reserved(&draw).is_err() {
            return Err(config(draw_va, "reserved bits set in the Draw"));
        }
        let state = dcd::STATE.get(&draw);
        if state == 0 || !state.is_multiple_of(64) {
            return Err(config(draw_va, "null or misaligned renderer state"));
        }
        let rsd = ctx.mmu.read_words(state, l.renderer_state.words as usize)?;
        if l.renderer_state.check_reserved(&rsd).is_err() {
            return Err(config(state, "reserved bits set in Renderer State"));
        }
        let get = |path: &str| l.renderer_state.get(&rsd, path).unwrap_or(0);
        let ms = [rs::MULTISAMPLE_MISC.get(&rsd) as u32];
        let sm = [rs::STENCIL_MASK_MISC.get(&rsd) as u32];
        let depth_func = msm::DEPTH_FUNCTION.get(&ms);
        let depth_write = msm::DEPTH_WRITE_MASK.get(&ms) != 0;
        if smm::STENCIL_ENABLE.get(&sm) != 0 {
            return Err(config(state, "stencil is not simulated"));
        }
        if smm::ALPHA_TO_COVERAGE.get(&sm) != 0 {
            return Err(config(state, "alpha-to-coverage is not simulated"));
        }
        let alpha_test = smm::ALPHA_TEST_COMPARE_FUNCTION.get(&sm);
        if alpha_test != 7 && alpha_test != 0 {
            return Err(config(state, "alpha test function not simulated"));
        }
        if get("Properties.Depth source") == 3 {
            return Err(config(state, "depth from the shader is not simulated"));
        }
        if get("Properties.ZS update operation") == 3 && (depth_func != 7 || depth_write) {
            return Err(config(state, "late depth test is not simulated"));
        }
        let pre = |f: crate::hw::layout::Field| f.at(rs::PRELOAD.start).get(&rsd) != 0;
        for (f, what) in [
            (fpl::PC, "PC"),
            (fpl::PRIMITIVE_ID, "primitive id"),
            (fpl::PRIMITIVE_FLAGS, "primitive flags"),
        ] {
            if pre(f) {
                return Err(config(
                    state,
                    &format!("fragment preload {what} not simulated"),
                ));
            }
        }
        let preload = [
            pre(fpl::COVERAGE),
            pre(fpl::FRAGMENT_POSITION),
            pre(fpl::SAMPLE_MASK_ID),
        ];
        let mut messages = Vec::new();
        if let Some(mpl) = l.message_preload {
            let _ = mpl;
            for (i, field) in [rs::MESSAGE_PRELOAD_1, rs::MESSAGE_PRELOAD_2]
                .into_iter()
                .enumerate()
            {
                let w = [field.get(&rsd) as u32];
                match message_preload::TYPE.get(&w) {
                    0 => {}
                    1 => {
                        let fmt = ld_var_preload::REGISTER_FORMAT.get(&w);
                        if fmt > 1 {
                            return Err(config(state, "LD_VAR preload register format"));
                        }
                        messages.push(Message {
                            first: 4 * i as u8,
                            varying: ld_var_preload::VARYING_INDEX.get(&w) as u32,
                            components: ld_var_preload::NUM_COMPONENTS.get(&w) as usize,
                            f16: fmt == 1,
                            texture: None,
                        });
                    }
                    2 => {
                        let fmt = var_tex_preload::REGISTER_FORMAT.get(&w);
                        if fmt > 1 || var_tex_preload::SKIP.get(&w) != 0 {
                            return Err(config(state, "VAR_TEX preload not simulated"));
                        }
                        messages.push(Message {
                            first: 4 * i as u8,
                            varying: var_tex_preload::VARYING_INDEX.get(&w) as u32,
                            components: 4,
                            f16: fmt == 1,
                            texture: Some(var_tex_preload::TEXTURE_INDEX.get(&w) as u32),
                        });
                    }
                    _ => return Err(config(state, "message preload type not simulated")),
                }
            }
        }
        let rts = fb.rts.len();
        let mut blend = Vec::with_capacity(rts);
        for i in 0..rts {
            let w = ctx.mmu.read_words(
                state + u64::from(l.renderer_state.words) * 4 + 16 * i as u64,
                4,
            )?;
            if l.blend.check_reserved(&w).is_err() {
                return Err(config(state, "reserved bits set in a Blend descriptor"));
            }
            blend.push([w[0], w[1], w[2], w[3]]);
        }
        let viewport = dcd::VIEWPORT.get(&draw);
        let (scissor, bounds, depth_range) = if viewport == 0 {
            (
                [0, 0, u32::MAX, u32::MAX],
                [
                    f32::NEG_INFINITY,
                    f32::NEG_INFINITY,
                    f32::INFINITY,
                    f32::INFINITY,
                ],
                [0.0, 1.0],
            )
        } else {
            let v = ctx.mmu.read_words(viewport, l.viewport.words as usize)?;
            let f = |fl: crate::hw::layout::Field| f32::from_bits(fl.get(&v) as u32);
            (
                [
                    vp::SCISSOR_MINIMUM_X.get(&v) as u32,
                    vp::SCISSOR_MINIMUM_Y.get(&v) as u32,
                    vp::SCISSOR_MAXIMUM_X.get(&v) as u32,
                    vp::SCISSOR_MAXIMUM_Y.get(&v) as u32,
                ],
                [
                    f(vp::MINIMUM_X),
                    f(vp::MINIMUM_Y),
                    f(vp::MAXIMUM_X),
                    f(vp::MAXIMUM_Y),
                ],
                [f(vp::MINIMUM_Z), f(vp::MAXIMUM_Z)],
            )
        };
        let position = dcd::POSITION.get(&draw);
        if position == 0 {
            return Err(config(draw_va, "no position buffer"));
        }
        Ok(DrawState {
            draw,
            draw_va,
            rsd,
            blend,
            position,
            scissor,
            bounds,
            depth_range,
            depth_func,
            depth_write,
            near_discard: msm::FIXED_FUNCTION_NEAR_DISCARD.get(&ms) != 0,
            far_discard: msm::FIXED_FUNCTION_FAR_DISCARD.get(&ms) != 0,
            alpha_test,
            messages,
            preload,
        })
    }

    fn inside_bounds(&self, f: &Fragment) -> bool {
        let (cx, cy) = (f.x as f32 + 0.5, f.y as f32 + 0.5);
        cx >= self.bounds[0] && cy >= self.bounds[1] && cx <= self.bounds[2] && cy <= self.bounds[3]
    }
}

/// A depth comparison (genxml `Func`): whether `z` passes against `stored`.
pub fn depth_passes(func: u64, z: f32, stored: f32) -> bool {
    match func {
        0 => false,
        1 => z < stored,
        2 => z == stored,
        3 => z <= stored,
        4 => z > stored,
        5 => z != stored,
        6 => z >= stored,
        _ => true,
    }
}

/// Early depth: discard, clamp, test and write; drops failing fragments.
fn depth_test(d: &DrawState, tile: &mut TileBuffer, frags: &mut Vec<Fragment>) {
    let [lo, hi] = d.depth_range;
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    frags.retain_mut(|f| {
        if (d.near_discard && f.z < lo) || (d.far_discard && f.z > hi) {
            return false;
        }
        f.z = f.z.clamp(lo, hi);
        let Some(i) = tile.index(f.x, f.y) else {
            return false;
        };
        if !depth_passes(d.depth_func, f.z, tile.depth[i]) {
            return false;
        }
        if d.depth_write {
            tile.depth[i] = f.z;
        }
        true
    });
}

/// Reads varying `index` of the Draw for element `slot`: up to 4 f32.
fn varying_value(
    ctx: &JobContext<'_>,
    d: &DrawState,
    index: u32,
    slot: u32,
) -> Result<[f32; 4], JobFault> {
    use crate::hw::attribute::{attribute_buffer as ab, attribute_desc as ad};
    use crate::hw::format::ComponentType;
    let table = dcd::VARYINGS.get(&d.draw);
    let buffers = dcd::VARYING_BUFFERS.get(&d.draw);
    let count = rs::VARYING_COUNT.get(&d.rsd) as u32;
    if table == 0 || buffers == 0 || index >= count {
        return Err(config(d.draw_va, "LD_VAR of a varying the draw lacks"));
    }
    let attr = ctx.mmu.read_words(table + 8 * u64::from(index), 2)?;
    let buf = ctx
        .mmu
        .read_words(buffers + 16 * ad::BUFFER_INDEX.get(&attr), 4)?;
    if ab::TYPE.get(&buf) != crate::hw::attribute::attribute_type::LINEAR_1D {
        return Err(config(d.draw_va, "varying buffer type not simulated"));
    }
    let (fmt, swizzle) = layouts(ctx.arch)
        .formats
        .decode_attribute_format(ad::FORMAT.get(&attr))
        .filter(|(f, _)| f.ty == ComponentType::F32)
        .ok_or_else(|| config(d.draw_va, "varying format not simulated"))?;
    let off = u64::from(slot) * ab::STRIDE.get(&buf) + (ad::OFFSET.get(&attr) as u32 as u64);
    let n = u64::from(fmt.components);
    if off + 4 * n > ab::SIZE.get(&buf) {
        return Err(config(d.draw_va, "varying element outside its buffer"));
    }
    let w = ctx
        .mmu
        .read_words(ab::POINTER.get(&buf) + off, n as usize)?;
    Ok(swizzle.map(|c| match c {
        0..=3 => w.get(c as usize).map_or(0.0, |&x| f32::from_bits(x)),
        5 => 1.0,
        _ => 0.0,
    }))
}

/// Runs the fragment shader over `frags` (one primitive `r`); returns the
/// tile buffer BLEND wrote into.
fn shade(
    ctx: &JobContext<'_>,
    job: &JobHeader,
    d: &DrawState,
    r: &Record,
    tile: TileBuffer,
    frags: &[Fragment],
) -> Result<TileBuffer, JobFault> {
    let entry = rs::SHADER_ADDRESS.get(&d.rsd);
    if entry == 0 {
        return Err(config(d.draw_va, "null fragment shader"));
    }
    let uniforms = rs::PRELOAD_UNIFORM_COUNT.get(&d.rsd) as usize;
    let (fau, res) = load_resources(ctx, &d.draw, d.draw_va, &d.rsd, uniforms, 1, false)?;
    // The varyings the message preloads read, per vertex of the primitive.
    let corners = match r.kind {
        Kind::Triangle => 3,
        Kind::Line => 2,
        Kind::Point => 1,
    };
    let mut values: Vec<Vec<[f32; 4]>> = Vec::new();
    let mut textures = Vec::new();
    for m in &d.messages {
        let mut v = Vec::new();
        for c in 0..corners {
            v.push(varying_value(ctx, d, m.varying, r.vertices[c])?);
        }
        values.push(v);
        textures.push(match m.texture {
            Some(i) => Some(super::texture::Texture::read(
                ctx.mmu,
                ctx.arch,
                dcd::TEXTURES.get(&d.draw),
                dcd::SAMPLERS.get(&d.draw),
                i,
                (
                    rs::TEXTURE_COUNT.get(&d.rsd) as u32,
                    rs::SAMPLER_COUNT.get(&d.rsd) as u32,
                ),
            )?),
            None => None,
        });
    }
    let mut core = Core::new(ctx.mmu, ctx.arch, Program { entry, fau, res });
    core.shared = Some(ctx.clauses);
    core.frag = Some(FragmentIo {
        tile,
        blend: d.blend.clone(),
        threads: Vec::new(),
        vertices: r.vertices,
        corners,
        provoking: if r.provoking_last { corners - 1 } else { 0 },
        alpha_test: d.alpha_test,
    });
    let mut result = Ok(());
    for chunk in frags.chunks(GROUP) {
        let mut threads = Vec::with_capacity(chunk.len());
        let mut places = Vec::with_capacity(chunk.len());
        for (t, f) in chunk.iter().enumerate() {
            let mut pre: Vec<(u8, u32)> = Vec::new();
            if d.preload[0] {
                pre.push((60, 1));
            }
            if d.preload[1] {
                pre.push((59, f.x | (f.y << 16)));
            }
            if d.preload[2] {
                pre.push((61, 1));
            }
            for (m, msg) in d.messages.iter().enumerate() {
                let mut out = [0.0f32; 4];
                for (c, o) in out.iter_mut().enumerate() {
                    *o = (0..corners).map(|k| f.bary[k] * values[m][k][c]).sum();
                }
                if let Some(tex) = &textures[m] {
                    out = tex.sample(ctx.mmu, out[0], out[1])?;
                }
                let first = msg.first;
                for (c, &v) in out.iter().enumerate().take(msg.components.min(4)) {
                    if msg.f16 {
                        let h = u32::from(super::shader::exec::f32_to_f16(v, false));
                        let reg = first + (c / 2) as u8;
                        match pre.iter_mut().find(|(r, _)| *r == reg) {
                            Some((_, w)) => *w |= h << 16,
                            None => pre.push((reg, h)),
                        }
                    } else {
                        pre.push((first + c as u8, v.to_bits()));
                    }
                }
            }
            threads.push(ThreadSpec {
                preload: pre,
                thread: t as u64,
            });
            places.push(FragThread {
                x: f.x,
                y: f.y,
                bary: f.bary,
            });
        }
        if let Some(io) = core.frag.as_mut() {
            io.threads = places;
        }
        if let Err(e) = core.run_group(&threads, 0, 0) {
            result = Err(e);
            break;
        }
    }
    ctx.counters.push(super::compute::JobCounters {
        job_va: job.va,
        counters: core.counters,
    });
    result?;
    core.frag
        .take()
        .map(|io| io.tile)
        .ok_or_else(|| config(d.draw_va, "fragment state lost"))
}

#[cfg(test)]
mod tests {
    use super::depth_passes;

    #[test]
    fn depth_functions() {
        let cases = [
            (0, [false, false, false]),
            (1, [true, false, false]),
            (2, [false, true, false]),
            (3, [true, true, false]),
            (4, [false, false, true]),
            (5, [true, false, true]),
            (6, [false, true, true]),
            (7, [true, true, true]),
        ];
        for (func, expect) in cases {
            // z below, equal to, above the stored 0.5.
            let got = [0.25f32, 0.5, 0.75].map(|z| depth_passes(func, z, 0.5));
            assert_eq!(got, expect, "func {func}");
        }
    }
}
