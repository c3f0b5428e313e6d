//! FRAGMENT jobs: clear the tile buffer, run the pre-frame shaders the
//! framebuffer enables (`Pre Frame 0/1` "Always": `pre_frame`), rasterize
//! the primitives the tiler jobs left in the polygon list
//! ([`super::tiler`]), test depth, run the fragment shader per covered
//! pixel on the shader core, and write the tile buffer back
//! ([`super::framebuffer`]).
//!
//! Per primitive, from its record's Draw descriptor: the fragment Renderer
//! State (shader, preloads, message preloads, depth state, alpha test,
//! followed by one 16-byte Blend descriptor per render target), the
//! `Viewport` (scissor box, x/y bounds, depth range), the `Position` buffer
//! (vertex positions as the vertex shaders stored them), `Varyings` /
//! `Varying buffers` (LD_VAR message preloads), `Push uniforms`.
//!
//! Fragment threads: one per pixel with a covered sample (1 or 4 samples
//! per pixel, the framebuffer's; the shader runs once per pixel, Vulkan's
//! rule without sample shading; with the Renderer State's `Evaluate
//! per-sample` at 4×, once per covered sample, each sample's threads in
//! quads of their own), in 2×2 quads with helper invocations for
//! the quad's other pixels (`quads`: what derivatives and implicit LOD
//! read), in groups of at most the core's thread count, primitives in
//! list order. A sample is covered when the
//! rasterizer covers it, it lies inside the viewport's x/y bounds, its bit
//! of the Renderer State's `Sample mask` is set and it passes the
//! depth/stencil tests. Preloads (Mesa's Bifrost fragment registers,
//! `bifrost_compile.c`): r60 = the coverage mask (bit s: sample s; Fragment
//! Preload "Coverage"), r59 = pixel x | y << 16 ("Fragment position"), r61
//! = the same mask (bits 0..15) | the sample id << 16 ("Sample mask/ID";
//! our reading: gl_SampleMaskIn is the covered samples; the id is 0 unless
//! the thread shades one sample, where the mask is that sample's bit). BLEND writes the
//! samples whose bit its coverage source has. Message preloads (v7
//! Renderer State words 15): an `LD_VAR` preload writes the varying
//! (`Varying Index` in the Draw's Varyings table), interpolated
//! perspective-correctly at the pixel centre, `Num Components` of it as F32
//! (one register each) or F16 (two per register), into r0.. for Message
//! Preload 1 and r4.. for Message Preload 2 (r0 is what Mesa's binaries
//! read after a first preload; r4 for the second is what Mesa's compiler
//! assumes, src/panfrost/compiler/bi_opt_message_preload.c: register
//! `4 * i + c` for preload i, and our compiler's v7 fragment shaders too).
//!
//! Depth/stencil, against the tile buffer's depth and stencil
//! (initialised from `Z Clear`, `S Clear`): fragments outside the
//! viewport's depth range are discarded before the shader when the
//! fixed-function near/far discard bits are set (clipping); then, with
//! `Pixel kill` and `ZS update` early, before the shader, or with both
//! Force Late, when the thread's ATEST (fixed-function depth) or ZS_EMIT
//! (`Depth source` Shader: the shader's depth) runs — after a `DISCARD`
//! ended the thread, so a discarded fragment tests, writes and counts
//! nothing: the depth bias of the triangle's face is added (`depth_bias`;
//! not to a shader's depth) and depth is clamped to the range; then the
//! stencil test of the primitive's face (front/back from its winding and
//! the Draw's `Front face CCW`), the depth test, the stencil op
//! (`stencil_op`) and the depth write, Vulkan's order, per sample with the
//! sample's own depth ([`ZsTest::run`]). With the Draw's `Occlusion query`
//! Counter, the samples passing both tests are added to the 64-bit counter
//! at `Occlusion` after each primitive. Preloads also: r58 = primitive
//! flags (0 front-facing, 1 back-facing: our choice beyond Mesa's "== 0").
//! Refused with JOB_CONFIG_FAULT: depth from the shader with early tests,
//! early pixel kill with a late ZS update (or the reverse) when anything is
//! tested or counted (Mesa's choice for discarding shaders that write
//! depth; how the hardware splits the two is undocumented), occlusion
//! Predicate mode, inverted alpha-to-coverage, alpha tests other than
//! Always/Never, preloads other than those above, tile enable maps; with a
//! multisampled framebuffer, `Multisample enable` off and `Multisample
//! late coverage`.
//!
//! This module must never learn anything except through GPU memory.

use super::compute::load_resources;
use super::framebuffer::{DepthFormat, Framebuffer, TileBuffer};
use super::idvs::read_position;
use super::jobs::{JobContext, JobFault, JobHeader};
use super::raster::{self, Fragment, TieBreak};
use super::shader::warp::ThreadSpec;
use super::shader::{Core, FragThread, FragmentIo, Program};
use super::tiler::{self, Kind, Record};
use crate::hw::draw::{dcd, viewport as vp};
use crate::hw::genxml::common::stencil as stc;
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
    // The payload's bounds count 16×16 tiles whatever the effective tile
    // size (Mesa's `pan_emit_fragment_job_payload`: `extent >>
    // MALI_TILE_SHIFT`, a shift of 4).
    let t = 16;
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
    for dcd in fb.pre_frame.into_iter().flatten() {
        tile = pre_frame(ctx, job, &fb, dcd, rect, tile)?;
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
        let samples = &fb.sample_offsets[..];
        frags.clear();
        let Some(clip) = clip_to_scissor(rect, d.scissor) else {
            continue;
        };
        let v = |i: usize| read_position(ctx.mmu, d.position, r.vertices[i]);
        // Points and lines are front-facing (Vulkan "Basic Polygon
        // Rasterization" applies to polygons only); depth bias applies to
        // polygons.
        let mut front = true;
        let mut offset = 0.0f32;
        match r.kind {
            Kind::Triangle => {
                let vs = [v(0)?, v(1)?, v(2)?];
                // As the tiler culls: positive spec area = counter-clockwise.
                front = (-raster::facing_area(&vs) > 0.0) == d.front_ccw;
                if let Some(terms) = d.bias[usize::from(!front)] {
                    offset = depth_bias(&vs, terms, fb.z_internal);
                }
                raster::triangle(&vs, TieBreak(fb.tie_break), samples, clip, &mut frags);
            }
            Kind::Point => raster::point(&v(0)?, r.size, samples, clip, &mut frags),
            Kind::Line => raster::line(&v(0)?, &v(1)?, r.size, samples, clip, &mut frags),
        }
        // The viewport's x/y bounds and the Vulkan sample mask ("Sample Mask
        // Test") drop samples before the depth/stencil tests.
        frags.retain_mut(|f| {
            f.mask &= d.sample_mask & d.inside_bounds(f, samples);
            f.mask != 0
        });
        let mut passed = depth_stencil_test(
            d,
            &mut tile,
            &mut frags,
            front,
            offset,
            fb.z_internal,
            !d.late,
        );
        if !frags.is_empty() {
            let late = d.late.then_some(LateZs {
                zs: d.zs_test(),
                shader_depth: d.shader_depth,
                offset,
                format: fb.z_internal,
                passed: 0,
            });
            let point = match r.kind {
                Kind::Point => {
                    let p = v(0)?;
                    Some([p.x, p.y, r.size])
                }
                _ => None,
            };
            let (t, late_passed) = shade(ctx, job, d, &fb, r, tile, &frags, late, front, point)?;
            tile = t;
            passed += late_passed;
        }
        if let Some(counter) = d.occlusion {
            let old = ctx.mmu.read_words(counter, 2)?;
            let n = (u64::from(old[0]) | u64::from(old[1]) << 32).wrapping_add(passed);
            ctx.mmu.write(counter, &n.to_le_bytes())?;
        }
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
    /// Stencil test: front and back faces (`Stencil Mask, Misc` enable).
    stencil: Option<[StencilFace; 2]>,
    /// Depth bias per face (front, back): units, factor, clamp.
    bias: [Option<[f32; 3]>; 2],
    /// `Front face CCW` of the Draw.
    front_ccw: bool,
    /// Occlusion counter address (Draw `Occlusion query` Counter).
    occlusion: Option<u64>,
    /// Message preloads 1 and 2, in order.
    messages: Vec<Message>,
    /// `Sample mask` (bit s: sample s may be covered).
    sample_mask: u32,
    /// Coverage (r60), fragment position (r59), sample mask/ID (r61),
    /// primitive flags (r58).
    preload: [bool; 4],
    /// The depth/stencil tests run late (ATEST/ZS_EMIT, [`LateZs`]).
    late: bool,
    /// `Depth source` Shader: ZS_EMIT gives the depth.
    shader_depth: bool,
    /// `Point sprite coord origin max Y`.
    point_origin_max_y: bool,
    /// `Evaluate per-sample` at a multisampled framebuffer: one thread per
    /// covered sample.
    per_sample: bool,
    /// `Alpha-to-coverage`: ATEST masks the coverage by its alpha.
    alpha_to_coverage: bool,
}

/// The pre-frame shader (the framebuffer's `Pre Frame 0` "Always", the
/// first Draw at `dcds`): before the list's primitives, its fragment shader
/// runs once on every pixel of the job's rectangle (inside the Draw's
/// scissor) with every sample covered, in 2×2 quads, its BLENDs writing the
/// tile buffer. Our reading of what the hardware does (Mesa's colour
/// preload relies on it: `src/panfrost/vulkan/panvk_vX_cmd_fb_preload.c`
/// writes a Draw without a position buffer or varyings whose shader fetches
/// each pixel). The Draw needs no `Position`. A depth preload (the
/// shader's depth, late tests, depth function Always, depth write) writes
/// each pixel's depth through the ordinary late path (clamped to the
/// Viewport's depth range). One that tests depth or stencil otherwise,
/// counts occlusion, interpolates varyings or reads `Primitive flags` is
/// not simulated (JOB_CONFIG_FAULT).
fn pre_frame(
    ctx: &JobContext<'_>,
    job: &JobHeader,
    fb: &Framebuffer,
    dcds: u64,
    rect: [u32; 4],
    tile: TileBuffer,
) -> Result<TileBuffer, JobFault> {
    let d = DrawState::read_with(ctx, dcds, fb, true)?;
    // Depth: only the depth preload's form, the shader's depth written
    // with late tests and depth function Always.
    let tests = d.depth_func != 7 || d.stencil.is_some();
    let depth_ok = !d.depth_write || (d.late && d.shader_depth);
    if tests || !depth_ok || d.occlusion.is_some() || (d.late && !d.shader_depth) {
        return Err(config(
            dcds,
            "a frame shader with depth/stencil tests or occlusion counting is not simulated",
        ));
    }
    if !d.messages.is_empty() || d.preload[3] {
        return Err(config(
            dcds,
            "a frame shader reading varyings or primitive flags is not simulated",
        ));
    }
    let Some(clip) = clip_to_scissor(rect, d.scissor) else {
        return Ok(tile);
    };
    let all = (1u32 << fb.sample_offsets.len()) - 1;
    let mask = all & d.sample_mask;
    if mask == 0 {
        return Ok(tile);
    }
    let mut frags = Vec::new();
    for y in clip[1]..=clip[3] {
        for x in clip[0]..=clip[2] {
            frags.push(Fragment {
                x,
                y,
                bary: [1.0, 0.0, 0.0],
                mask,
                z: [0.0; raster::MAX_SAMPLES],
                centre: [0.0, 1.0],
            });
        }
    }
    let record = Record {
        kind: Kind::Point,
        size: 0.0,
        draw: dcds,
        vertices: [0; 3],
        provoking_last: false,
    };
    let late = d.late.then_some(LateZs {
        zs: d.zs_test(),
        shader_depth: d.shader_depth,
        offset: 0.0,
        format: fb.z_internal,
        passed: 0,
    });
    let (tile, _) = shade(ctx, job, &d, fb, &record, tile, &frags, late, true, None)?;
    Ok(tile)
}

impl DrawState {
    fn read(ctx: &JobContext<'_>, draw_va: u64, fb: &Framebuffer) -> Result<DrawState, JobFault> {
        Self::read_with(ctx, draw_va, fb, false)
    }

    /// `frame_shader`: a frame shader's Draw, which has no position buffer.
    fn read_with(
        ctx: &JobContext<'_>,
        draw_va: u64,
        fb: &Framebuffer,
        frame_shader: bool,
    ) -> Result<DrawState, JobFault> {
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
        let stencil = if smm::STENCIL_ENABLE.get(&sm) != 0 {
            let face = |word: u64, write_mask: u64| StencilFace {
                reference: stc::REFERENCE_VALUE.get(&[word as u32]) as u8,
                compare_mask: stc::MASK.get(&[word as u32]) as u8,
                func: stc::COMPARE_FUNCTION.get(&[word as u32]),
                fail: stc::STENCIL_FAIL.get(&[word as u32]),
                depth_fail: stc::DEPTH_FAIL.get(&[word as u32]),
                pass: stc::DEPTH_PASS.get(&[word as u32]),
                write_mask: write_mask as u8,
            };
            Some([
                face(get("Stencil front"), smm::STENCIL_MASK_FRONT.get(&sm)),
                face(get("Stencil back"), smm::STENCIL_MASK_BACK.get(&sm)),
            ])
        } else {
            None
        };
        let bias_terms = [
            f32::from_bits(get("Depth units") as u32),
            f32::from_bits(get("Depth factor") as u32),
            f32::from_bits(get("Depth bias clamp") as u32),
        ];
        let bias = [
            (smm::FRONT_FACING_DEPTH_BIAS.get(&sm) != 0).then_some(bias_terms),
            (smm::BACK_FACING_DEPTH_BIAS.get(&sm) != 0).then_some(bias_terms),
        ];
        let front_ccw = dcd::FRONT_FACE_CCW.get(&draw) != 0;
        let occlusion = match dcd::OCCLUSION_QUERY.get(&draw) {
            0 => None,
            3 => {
                let va = dcd::OCCLUSION.get(&draw);
                if va == 0 || !va.is_multiple_of(8) {
                    return Err(config(draw_va, "occlusion counter null or misaligned"));
                }
                Some(va)
            }
            _ => return Err(config(draw_va, "occlusion predicate not simulated")),
        };
        if fb.samples > 1 {
            if msm::MULTISAMPLE_ENABLE.get(&ms) == 0 {
                return Err(config(
                    state,
                    "single-sampled rasterization into a multisampled framebuffer is not simulated",
                ));
            }
            if msm::MULTISAMPLE_LATE_COVERAGE.get(&ms) != 0 {
                return Err(config(state, "late coverage is not simulated"));
            }
        }
        if smm::ALPHA_TO_COVERAGE_INVERT.get(&sm) != 0 {
            return Err(config(state, "inverted alpha-to-coverage is not simulated"));
        }
        let alpha_test = smm::ALPHA_TEST_COMPARE_FUNCTION.get(&sm);
        if alpha_test != 7 && alpha_test != 0 {
            return Err(config(state, "alpha test function not simulated"));
        }
        // genxml "Pixel Kill": Force Early 0, Strong Early 1, Weak Early 2,
        // Force Late 3. Both late: the tests run at ATEST (fixed-function
        // depth) or ZS_EMIT (depth from the shader), per fragment thread,
        // after the shader decided its coverage (discard) and depth, which
        // is Vulkan's order without early fragment tests (Mesa's
        // src/panfrost/lib/pan_earlyzs.c: "all depth/stencil tests must be
        // deferred until the value is known after the ZS_EMIT
        // instruction"). Both early: before the shader. Early kill with a
        // late update (Mesa's choice for discarding shaders that write
        // depth) splits the test from the write in a way the public
        // sources do not describe: refused unless nothing is tested.
        let late_kill = get("Properties.Pixel kill operation") == 3;
        let late_update = get("Properties.ZS update operation") == 3;
        let shader_depth = get("Properties.Depth source") == 3;
        let tests_something =
            depth_func != 7 || depth_write || stencil.is_some() || occlusion.is_some();
        if late_kill != late_update && tests_something {
            return Err(config(
                state,
                "early pixel kill with a late ZS update (or the reverse) is not simulated",
            ));
        }
        let late = late_kill && late_update;
        let point_origin_max_y = get("Properties.Point sprite coord origin max Y") != 0;
        if shader_depth && !late {
            // What early tests make of a shader's depth is undocumented
            // (Vulkan ignores it with EarlyFragmentTests; our compiler then
            // writes none).
            return Err(config(
                state,
                "depth from the shader with early depth/stencil tests is not simulated",
            ));
        }
        let pre = |f: crate::hw::layout::Field| f.at(rs::PRELOAD.start).get(&rsd) != 0;
        for (f, what) in [(fpl::PC, "PC"), (fpl::PRIMITIVE_ID, "primitive id")] {
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
            pre(fpl::PRIMITIVE_FLAGS),
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
        if position == 0 && !frame_shader {
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
            stencil,
            bias,
            front_ccw,
            occlusion,
            messages,
            sample_mask: msm::SAMPLE_MASK.get(&ms) as u32,
            preload,
            late,
            shader_depth,
            point_origin_max_y,
            per_sample: fb.samples > 1 && msm::EVALUATE_PER_SAMPLE.get(&ms) != 0,
            alpha_to_coverage: smm::ALPHA_TO_COVERAGE.get(&sm) != 0,
        })
    }

    /// The tests' state.
    fn zs_test(&self) -> ZsTest {
        let [lo, hi] = self.depth_range;
        ZsTest {
            range: [lo.min(hi), lo.max(hi)],
            depth_func: self.depth_func,
            depth_write: self.depth_write,
            stencil: self.stencil,
        }
    }

    /// The samples of `f`'s pixel inside the viewport's x/y bounds.
    fn inside_bounds(&self, f: &Fragment, samples: raster::Samples<'_>) -> u32 {
        let mut mask = 0;
        for (s, &(ox, oy)) in samples.iter().enumerate() {
            let sx = f.x as f32 + ox as f32 / 256.0;
            let sy = f.y as f32 + oy as f32 / 256.0;
            if sx >= self.bounds[0]
                && sy >= self.bounds[1]
                && sx <= self.bounds[2]
                && sy <= self.bounds[3]
            {
                mask |= 1 << s;
            }
        }
        mask
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

/// One face's stencil state (genxml "Stencil", write mask from `Stencil
/// Mask, Misc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilFace {
    pub reference: u8,
    pub compare_mask: u8,
    /// genxml `Func`.
    pub func: u64,
    /// genxml "Stencil Op" for stencil fail, depth fail, depth pass.
    pub fail: u64,
    pub depth_fail: u64,
    pub pass: u64,
    pub write_mask: u8,
}

/// A stencil operation (genxml "Stencil Op": Keep, Replace, Zero, Invert,
/// Incr Wrap, Decr Wrap, Incr Sat, Decr Sat) on `s`, written through the
/// face's write mask.
pub fn stencil_op(op: u64, s: u8, face: &StencilFace) -> u8 {
    let v = match op {
        0 => s,
        1 => face.reference,
        2 => 0,
        3 => !s,
        4 => s.wrapping_add(1),
        5 => s.wrapping_sub(1),
        6 => s.saturating_add(1),
        _ => s.saturating_sub(1),
    };
    (s & !face.write_mask) | (v & face.write_mask)
}

/// The depth bias of a triangle (Vulkan "Depth Bias": o = m × slope + r ×
/// constant, clamped): m = max(|∂z/∂x|, |∂z/∂y|) of the triangle's plane in
/// framebuffer coordinates (the spec allows this approximation of the
/// gradient's length); r = 2^-24 for a D24 tile buffer, 2^-16 for D16,
/// 2^(e − 23) for D32 with e the exponent of the largest |z| of the
/// vertices. `terms` are the Renderer State's `Depth units` (counted in
/// r / 2, what PanVk's `constantFactor × 2` implies), `Depth factor`,
/// `Depth bias clamp`.
pub fn depth_bias(v: &[raster::Vertex; 3], terms: [f32; 3], format: DepthFormat) -> f32 {
    let [units, factor, clamp] = terms;
    let (x1, y1, z1) = (v[1].x - v[0].x, v[1].y - v[0].y, v[1].z - v[0].z);
    let (x2, y2, z2) = (v[2].x - v[0].x, v[2].y - v[0].y, v[2].z - v[0].z);
    let det = x1 * y2 - x2 * y1;
    let m = if det == 0.0 {
        0.0
    } else {
        let dzdx = (z1 * y2 - z2 * y1) / det;
        let dzdy = (x1 * z2 - x2 * z1) / det;
        dzdx.abs().max(dzdy.abs())
    };
    let r = match format {
        DepthFormat::D24X8 => (2.0f32).powi(-24),
        DepthFormat::D16 => (2.0f32).powi(-16),
        DepthFormat::D32 => {
            let zmax = v.iter().map(|p| p.z.abs()).fold(0.0f32, f32::max);
            if zmax == 0.0 || !zmax.is_finite() {
                (2.0f32).powi(-149)
            } else {
                // The exponent e of zmax: 2^e <= zmax < 2^(e + 1).
                let e = ((zmax.to_bits() >> 23) & 0xff) as i32 - 127;
                (2.0f32).powi(e - 23)
            }
        }
    };
    let o = m * factor + r * units / 2.0;
    if clamp > 0.0 {
        o.min(clamp)
    } else if clamp < 0.0 {
        o.max(clamp)
    } else {
        o
    }
}

/// Depth as the tile buffer holds it: D24 and D16 keep the nearest
/// 24/16-bit UNORM value (tested and written at that precision, as the
/// Vulkan spec's depth test does for fixed-point attachments), D32 the
/// f32.
pub fn quantize_depth(z: f32, format: DepthFormat) -> f32 {
    let max = match format {
        DepthFormat::D32 => return z,
        DepthFormat::D24X8 => f64::from((1u32 << 24) - 1),
        DepthFormat::D16 => 65535.0,
    };
    let z = if z.is_nan() {
        0.0
    } else {
        f64::from(z).clamp(0.0, 1.0)
    };
    ((z * max).round() / max) as f32
}

/// The depth/stencil state of a draw (Renderer State and viewport depth
/// range), what the early and the late tests apply.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ZsTest {
    /// The viewport's depth range, ordered (min, max).
    pub range: [f32; 2],
    pub depth_func: u64,
    pub depth_write: bool,
    /// Front and back faces' stencil state (`None`: stencil off).
    pub stencil: Option<[StencilFace; 2]>,
}

/// The late depth/stencil tests of one primitive's fragment threads
/// (`Pixel kill operation` and `ZS update operation` Force Late): run by
/// ATEST with the rasterized depth (+ `offset`, the depth bias), or by
/// ZS_EMIT with the shader's depth when the Renderer State's `Depth
/// source` is Shader (`shader_depth`); `passed` counts the samples that
/// passed both tests (the occlusion counter's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LateZs {
    pub zs: ZsTest,
    pub shader_depth: bool,
    pub offset: f32,
    pub format: DepthFormat,
    pub passed: u64,
}

impl ZsTest {
    /// The tests for the samples of `mask` at tile-buffer pixel `pixel`:
    /// depth = the shader's `shader_z` or the rasterized `z` of the sample
    /// plus `offset`, clamped to the depth range and held at the tile
    /// buffer's precision ([`quantize_depth`]); then the stencil test of
    /// the `front` or back face, the depth test, the stencil ops and the
    /// depth write, in the order of the Vulkan spec's "Stencil Test" and
    /// "Depth Test". Returns the samples that passed and how many.
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &self,
        tile: &mut TileBuffer,
        pixel: usize,
        mask: u32,
        z: &[f32; raster::MAX_SAMPLES],
        shader_z: Option<f32>,
        front: bool,
        offset: f32,
        format: DepthFormat,
    ) -> (u32, u64) {
        let [lo, hi] = self.range;
        let face = self.stencil.map(|f| f[usize::from(!front)]);
        let (mut out, mut passed) = (mask, 0);
        for s in 0..tile.samples.min(raster::MAX_SAMPLES as u32) {
            let bit = 1u32 << s;
            if mask & bit == 0 {
                continue;
            }
            let raw = shader_z.unwrap_or(z[s as usize] + offset);
            // max/min rather than clamp: never a panic on NaN bounds.
            let z = quantize_depth(raw.max(lo).min(hi), format);
            let i = tile.sample(pixel, s);
            if let Some(face) = &face {
                let st = tile.stencil[i];
                let pass = depth_passes(
                    face.func,
                    f32::from(face.reference & face.compare_mask),
                    f32::from(st & face.compare_mask),
                );
                if !pass {
                    tile.stencil[i] = stencil_op(face.fail, st, face);
                    out &= !bit;
                    continue;
                }
            }
            let depth_ok = depth_passes(self.depth_func, z, tile.depth[i]);
            if let Some(face) = &face {
                let op = if depth_ok { face.pass } else { face.depth_fail };
                tile.stencil[i] = stencil_op(op, tile.stencil[i], face);
            }
            if !depth_ok {
                out &= !bit;
                continue;
            }
            if self.depth_write {
                tile.depth[i] = z;
            }
            passed += 1;
        }
        (out, passed)
    }
}

/// Per covered sample, before the shader: discard outside the depth range
/// (the fixed-function near/far discard: clipping, whatever the ZS mode);
/// with `early`, then the depth/stencil tests ([`ZsTest::run`] with the
/// depth bias `offset`). Clears the samples that fail from each fragment's
/// mask, drops fragments left without one, and returns how many samples
/// passed the tests (0 without `early`).
fn depth_stencil_test(
    d: &DrawState,
    tile: &mut TileBuffer,
    frags: &mut Vec<Fragment>,
    front: bool,
    offset: f32,
    format: DepthFormat,
    early: bool,
) -> u64 {
    let zs = d.zs_test();
    let [lo, hi] = zs.range;
    let mut passed = 0;
    frags.retain_mut(|f| {
        let Some(pixel) = tile.index(f.x, f.y) else {
            return false;
        };
        for s in 0..tile.samples.min(raster::MAX_SAMPLES as u32) {
            let z = f.z[s as usize];
            if (d.near_discard && z < lo) || (d.far_discard && z > hi) {
                f.mask &= !(1u32 << s);
            }
        }
        if early {
            let (mask, n) = zs.run(tile, pixel, f.mask, &f.z, None, front, offset, format);
            f.mask = mask;
            passed += n;
        }
        f.mask != 0
    });
    passed
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

/// The fragments of one primitive as 2×2 quads (pixels (2i, 2j) to
/// (2i + 1, 2j + 1)), in the order their first fragment comes, four
/// threads each in lane order: lane bit 0 = x parity, bit 1 = y parity
/// (the layout Mesa's `bi_emit_derivative` assumes for `CLPER`). A pixel of
/// the quad without a fragment — not covered, or its samples failed the
/// early tests — is a helper invocation (`true`): coverage 0, the
/// primitive's weights at its centre (`weights`), so that its varyings
/// continue the plane (Vulkan "Helper Invocations"; BLEND writes nothing
/// for it).
fn quads(
    frags: &[Fragment],
    weights: impl Fn(u32, u32) -> ([f32; 3], [f32; 2]),
) -> Vec<(Fragment, bool)> {
    let mut index: std::collections::HashMap<(u32, u32), usize> = Default::default();
    let mut slots: Vec<[Option<Fragment>; 4]> = Vec::new();
    for f in frags {
        let key = (f.x >> 1, f.y >> 1);
        let q = *index.entry(key).or_insert_with(|| {
            slots.push([None; 4]);
            slots.len() - 1
        });
        slots[q][((f.x & 1) | (f.y & 1) << 1) as usize] = Some(*f);
    }
    let mut out = Vec::with_capacity(slots.len() * 4);
    for quad in slots {
        let Some(any) = quad.iter().flatten().next().copied() else {
            continue;
        };
        for (lane, f) in quad.iter().enumerate() {
            match f {
                Some(f) => out.push((*f, false)),
                None => {
                    let (x, y) = (
                        (any.x & !1) | (lane as u32 & 1),
                        (any.y & !1) | (lane as u32 >> 1),
                    );
                    let (bary, centre) = weights(x, y);
                    out.push((
                        Fragment {
                            x,
                            y,
                            bary,
                            mask: 0,
                            z: [0.0; raster::MAX_SAMPLES],
                            centre,
                        },
                        true,
                    ));
                }
            }
        }
    }
    out
}

/// Runs the fragment shader over `frags` (one primitive `r`) in 2×2 quads
/// with helper invocations ([`quads`]); returns the tile buffer BLEND
/// wrote into and the samples that passed the `late` tests.
#[allow(clippy::too_many_arguments)]
fn shade(
    ctx: &JobContext<'_>,
    job: &JobHeader,
    d: &DrawState,
    fb: &Framebuffer,
    r: &Record,
    tile: TileBuffer,
    frags: &[Fragment],
    late: Option<LateZs>,
    front: bool,
    point: Option<[f32; 3]>,
) -> Result<(TileBuffer, u64), JobFault> {
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
        if let Some(Some((t, _))) = textures.last() {
            if !t.is_float() {
                return Err(config(d.draw_va, "VAR_TEX preload of an integer texture"));
            }
            t.single_layer()?;
        }
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
        late,
        front,
        point,
        point_origin_max_y: d.point_origin_max_y,
        sample_locations: fb.sample_locations,
        alpha_to_coverage: d.alpha_to_coverage,
    });
    let mut result = Ok(());
    // The primitive's vertices, for the weights of helper invocations.
    let mut verts = [raster::Vertex::default(); 3];
    // (A frame shader's Draw has no position buffer: no vertices.)
    if d.position != 0 {
        for (k, v) in verts.iter_mut().enumerate().take(corners) {
            *v = read_position(ctx.mmu, d.position, r.vertices[k])?;
        }
    }
    let offsets = &fb.sample_offsets[..];
    // Clipped once per primitive, asked per helper pixel and sample.
    let weights = match r.kind {
        Kind::Triangle => raster::Weights::triangle(&verts),
        Kind::Line => raster::Weights::line(&verts[0], &verts[1]),
        Kind::Point => raster::Weights::First(verts[0]),
    };
    let weights_at = |x: u32, y: u32, at: (i64, i64)| weights.at(x, y, at);
    let centre = (128, 128);
    // Sample shading (`Evaluate per-sample` at a multisampled
    // framebuffer): one thread per covered sample, its coverage that
    // sample's bit and r61's bits 16.. its index (Mesa's
    // `bi_load_sample_id_to`); each sample's threads form their own 2×2
    // quads, whose helpers are the missing pixels at the same sample.
    // Without it one thread per pixel, sample id 0.
    let mut quads_by_sample: Vec<(Fragment, bool, u32)> = Vec::new();
    if d.per_sample && offsets.len() > 1 {
        for s in 0..offsets.len() {
            let layer: Vec<Fragment> = frags
                .iter()
                .filter(|f| f.mask & (1 << s) != 0)
                .map(|f| Fragment { mask: 1 << s, ..*f })
                .collect();
            let q = quads(&layer, |x, y| weights_at(x, y, centre));
            quads_by_sample.extend(q.into_iter().map(|(f, h)| (f, h, s as u32)));
        }
    } else {
        let q = quads(frags, |x, y| weights_at(x, y, centre));
        quads_by_sample.extend(q.into_iter().map(|(f, h)| (f, h, 0)));
    }
    for chunk in quads_by_sample.chunks(GROUP) {
        let mut threads = Vec::with_capacity(chunk.len());
        let mut places = Vec::with_capacity(chunk.len());
        for (t, (f, helper, sample)) in chunk.iter().enumerate() {
            let mut pre: Vec<(u8, u32)> = Vec::new();
            if d.preload[0] {
                pre.push((60, f.mask));
            }
            if d.preload[1] {
                pre.push((59, f.x | (f.y << 16)));
            }
            if d.preload[2] {
                pre.push((61, f.mask | sample << 16));
            }
            if d.preload[3] {
                // Primitive flags: 0 for a front-facing primitive (what
                // Mesa's `load_front_face` compares against); 1 for a
                // back-facing one is our choice (the other bits of r58 are
                // undocumented; only "== 0" is ever read).
                pre.push((58, u32::from(!front)));
            }
            for (m, msg) in d.messages.iter().enumerate() {
                let mut out = [0.0f32; 4];
                for (c, o) in out.iter_mut().enumerate() {
                    *o = (0..corners).map(|k| f.bary[k] * values[m][k][c]).sum();
                }
                if let Some((tex, smp)) = &textures[m] {
                    // The preload's LOD is computed from the quad: not
                    // simulated, so only where it selects nothing.
                    if tex.lod_matters(smp) {
                        return Err(config(
                            d.draw_va,
                            "VAR_TEX preload of a mipmapped texture or with two filters",
                        ));
                    }
                    out = tex
                        .sample(ctx.mmu, smp, out[0], out[1], 0, 0.0, [0, 0], None)?
                        .map(f32::from_bits);
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
                helper: *helper,
            });
            let mut sample_bary = [[0.0f32; 3]; raster::MAX_SAMPLES];
            if offsets.len() > 1 {
                for (b, &at) in sample_bary.iter_mut().zip(offsets) {
                    *b = weights_at(f.x, f.y, at).0;
                }
            }
            // A sample-shaded thread interpolates centre-sampled varyings
            // (and message preloads) at the pixel centre, as without
            // sample shading: `f.bary` (the Vulkan spec allows any point
            // of the pixel for them; Bifrost's `center` mode names it).
            places.push(FragThread {
                sample_bary,
                x: f.x,
                y: f.y,
                bary: f.bary,
                mask: f.mask,
                z: f.z,
                centre: f.centre,
                tested: false,
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
        .map(|io| (io.tile, io.late.map_or(0, |l| l.passed)))
        .ok_or_else(|| config(d.draw_va, "fragment state lost"))
}

/// The part of tile rectangle `rect` inside `scissor` (both inclusive
/// `[x0, y0, x1, y1]`), `None` when they do not meet.
fn clip_to_scissor(rect: [u32; 4], scissor: [u32; 4]) -> Option<[u32; 4]> {
    let clip = [
        rect[0].max(scissor[0]),
        rect[1].max(scissor[1]),
        rect[2].min(scissor[2]),
        rect[3].min(scissor[3]),
    ];
    (clip[0] <= clip[2] && clip[1] <= clip[3]).then_some(clip)
}

#[cfg(test)]
mod tests {
    use super::{DepthFormat, StencilFace, depth_bias, depth_passes, stencil_op};
    use crate::kmod::sim::raster::Vertex;

    /// r per tile-buffer format, the slope term, the clamp; `Depth units`
    /// counts r / 2.
    #[test]
    fn depth_bias_terms() {
        let v = |x: f32, y: f32, z: f32| Vertex {
            x,
            y,
            z,
            inv_w: 1.0,
        };
        // z = 0.5 + x / 64 (m = 1/64), largest z 0.5 + 8/64 = 0.625 (e = -1).
        let tri = [v(0.0, 0.0, 0.5), v(8.0, 0.0, 0.625), v(0.0, 8.0, 0.5)];
        let r24 = 2f32.powi(-24);
        assert_eq!(depth_bias(&tri, [2.0, 0.0, 0.0], DepthFormat::D24X8), r24);
        assert_eq!(
            depth_bias(&tri, [2.0, 0.0, 0.0], DepthFormat::D16),
            2f32.powi(-16)
        );
        assert_eq!(
            depth_bias(&tri, [2.0, 0.0, 0.0], DepthFormat::D32),
            2f32.powi(-24)
        );
        assert_eq!(
            depth_bias(&tri, [0.0, 2.0, 0.0], DepthFormat::D32),
            2.0 / 64.0
        );
        assert_eq!(depth_bias(&tri, [0.0, 2.0, 0.01], DepthFormat::D32), 0.01);
        assert_eq!(
            depth_bias(&tri, [0.0, -2.0, -0.01], DepthFormat::D32),
            -0.01
        );
        assert_eq!(
            depth_bias(&tri, [0.0, -2.0, 0.01], DepthFormat::D32),
            -2.0 / 64.0
        );
    }

    #[test]
    fn stencil_ops_follow_the_genxml_order() {
        let face = StencilFace {
            reference: 0x5a,
            compare_mask: 0xff,
            func: 7,
            fail: 0,
            depth_fail: 0,
            pass: 0,
            write_mask: 0xff,
        };
        let got: Vec<u8> = (0..8).map(|op| stencil_op(op, 0xff, &face)).collect();
        assert_eq!(got, [0xff, 0x5a, 0, 0, 0, 0xfe, 0xff, 0xfe]);
        let got: Vec<u8> = (0..8).map(|op| stencil_op(op, 0, &face)).collect();
        assert_eq!(got, [0, 0x5a, 0, 0xff, 1, 0xff, 1, 0]);
        let masked = StencilFace {
            write_mask: 0x0f,
            ..face
        };
        assert_eq!(stencil_op(1, 0xf0, &masked), 0xfa);
    }

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
