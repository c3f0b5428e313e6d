//! The fragment-job messages of the simulated shader core: ATEST (with
//! alpha-to-coverage), ZS_EMIT, BLEND (with alpha-to-one), the varying
//! loads LD_VAR(_IMM) / LD_VAR_FLAT(_IMM) (centre, centroid and sample
//! locations) and LD_VAR_SPECIAL (gl_FragCoord.zw, gl_PointCoord). They reach the
//! tile buffer, the render targets' blend descriptors and each thread's
//! pixel and interpolation weights through `Core::frag`
//! (`super::FragmentIo`, filled by `crate::kmod::sim::fragment`); outside
//! a fragment job they fault (INSTR_INVALID_ENC). Dispatched from
//! `super::message::execute`, with its staging-register and attribute
//! helpers.
//!
//! This module must never touch memory except through the MMU and never
//! write outside the staging registers and the tile buffer.

use super::exec::{Effects, Prepared, f32_to_f16};
use super::message::{
    Value, attribute_address, components, read_format, staging_read, staging_write,
};
use super::warp::{Lane, LaneCtx};
use super::{CachedClause, Core, fault, status};
use crate::kmod::sim::jobs::JobFault;

fn not_fragment(cc: &CachedClause, what: &str) -> JobFault {
    log::error!(
        "sim shader: {what} outside a fragment job (clause {:#x})",
        cc.va
    );
    fault(status::INSTR_INVALID_ENC, cc.va)
}

/// A discarded thread (`DISCARD.f32`) that reaches the tile buffer before
/// a clause with `terminate discarded threads` ended it: what the hardware
/// does then is undocumented (our compiler ends the clause at DISCARD and
/// sets the bit on every clause), so the job faults.
fn check_not_discarded(lane: &Lane, cc: &CachedClause, what: &str) -> Result<(), JobFault> {
    if lane.discarded {
        log::error!(
            "sim shader: {what} of a discarded thread (clause {:#x}; no `terminate discarded threads` since the DISCARD)",
            cc.va
        );
        return Err(fault(status::INSTR_INVALID_ENC, cc.va));
    }
    Ok(())
}

/// The late depth/stencil tests of the thread's pixel for the samples of
/// `coverage` (and of the thread's own coverage), with the shader's depth
/// `shader_z` or the rasterized one: the samples that passed.
fn late_test(
    core: &mut Core<'_>,
    ctx: &LaneCtx,
    coverage: u32,
    shader_z: Option<f32>,
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    let Some(f) = core.frag.as_mut() else {
        return Err(not_fragment(cc, "a late depth/stencil test"));
    };
    let Some(late) = f.late.as_mut() else {
        return Ok(coverage);
    };
    let Some(t) = f.threads.get_mut(ctx.thread as usize) else {
        return Err(fault(status::INSTR_INVALID_ENC, cc.va));
    };
    if t.tested {
        log::error!(
            "sim shader: a second late depth/stencil test for one thread (clause {:#x})",
            cc.va
        );
        return Err(fault(status::INSTR_INVALID_ENC, cc.va));
    }
    t.tested = true;
    let Some(pixel) = f.tile.index(t.x, t.y) else {
        return Err(fault(status::INSTR_INVALID_ENC, cc.va));
    };
    let (mask, passed) = late.zs.run(
        &mut f.tile,
        pixel,
        coverage & t.mask,
        &t.z,
        shader_z,
        f.front,
        late.offset,
        late.format,
    );
    late.passed += passed;
    Ok(mask)
}

/// ATEST (fragment jobs): source 0 the coverage mask, source 1 the alpha
/// (f32, or an f16 half with `widen1`). Writes the coverage after the
/// renderer state's alpha test to its staging register (and returns it):
/// unchanged when the test passes, 0 when it fails. Only the compare
/// functions Always and Never are simulated (the fragment job refuses
/// others before running, since the reference value's source is not
/// documented). With late depth/stencil tests and fixed-function depth
/// ([`crate::kmod::sim::fragment::LateZs`]) the tests run here, on the
/// coverage the alpha test left: the result is the samples that passed
/// (Mesa's src/panfrost/lib/pan_earlyzs.c: the late test happens "when
/// ATEST executes"). A lane whose coverage is 0 writes nothing at BLEND.
pub(super) fn atest(
    core: &mut Core<'_>,
    p: &Prepared,
    lane: &mut Lane,
    ctx: &LaneCtx,
    s: &[u32; 4],
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    let Some(f) = core.frag.as_ref() else {
        return Err(not_fragment(cc, "ATEST"));
    };
    check_not_discarded(lane, cc, "ATEST")?;
    let fixed_function_depth = f.late.is_some_and(|l| !l.shader_depth);
    let alpha = match p.fields.modifier("widen1").unwrap_or("none") {
        "h0" => super::exec::f16_to_f32(s[1] as u16),
        "h1" => super::exec::f16_to_f32((s[1] >> 16) as u16),
        _ => f32::from_bits(s[1]),
    };
    let pass = match f.alpha_test {
        7 => true,
        0 => false,
        _ => return Err(fault(status::INSTR_INVALID_ENC, cc.va)),
    };
    let mut coverage = if pass { s[0] } else { 0 };
    if f.alpha_to_coverage {
        coverage &= alpha_coverage(alpha, f.tile.samples);
    }
    if fixed_function_depth {
        coverage = late_test(core, ctx, coverage, None, cc)?;
    }
    staging_write(lane, cc, 0, coverage);
    Ok(coverage)
}

/// The coverage mask alpha-to-coverage makes of `alpha` at `samples` per
/// pixel. The hardware's rule (and its dithering) is undocumented and the
/// Vulkan spec's "Multisample Coverage" leaves it to the implementation
/// (no samples at alpha 0, all at 1, monotonic): ours is deterministic —
/// the lowest ⌊alpha × samples + ½⌋ samples (alpha clamped to [0, 1], NaN
/// as 0), the same mask for every pixel.
pub fn alpha_coverage(alpha: f32, samples: u32) -> u32 {
    let a = if alpha.is_nan() {
        0.0
    } else {
        alpha.clamp(0.0, 1.0)
    };
    let n = ((a * samples as f32 + 0.5).floor() as u32).min(samples);
    if n >= 32 { u32::MAX } else { (1u32 << n) - 1 }
}

/// ZS_EMIT (fragment jobs): the shader's depth (source 0, f32; modifier
/// `z`) for the late depth/stencil tests, source 2 the coverage. Runs the
/// tests with that depth for every sample of the coverage (Vulkan's
/// `FragDepth` is per fragment) and writes the samples that passed to its
/// staging register (BLEND's coverage next). Only with `Depth source`
/// Shader and late tests ([`crate::kmod::sim::fragment::LateZs`]); the
/// stencil value (`gl_FragStencilRefEXT`, modifier `stencil`) is not
/// simulated: both fault otherwise (INSTR_INVALID_ENC).
pub(super) fn zs_emit(
    core: &mut Core<'_>,
    p: &Prepared,
    lane: &mut Lane,
    ctx: &LaneCtx,
    s: &[u32; 4],
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    let Some(f) = core.frag.as_ref() else {
        return Err(not_fragment(cc, "ZS_EMIT"));
    };
    check_not_discarded(lane, cc, "ZS_EMIT")?;
    let bad = |what: &str| {
        log::error!("sim shader: ZS_EMIT {what} (clause {:#x})", cc.va);
        fault(status::INSTR_INVALID_ENC, cc.va)
    };
    if p.fields.modifier("stencil") == Some("stencil") {
        return Err(bad("of a stencil value is not simulated"));
    }
    if p.fields.modifier("z") != Some("z") {
        return Err(bad("without a depth"));
    }
    if !f.late.is_some_and(|l| l.shader_depth) {
        return Err(bad(
            "without late depth/stencil tests and the shader as depth source",
        ));
    }
    let coverage = late_test(core, ctx, s[2], Some(f32::from_bits(s[0])), cc)?;
    staging_write(lane, cc, 0, coverage);
    Ok(coverage)
}

/// LD_VAR_SPECIAL (fragment jobs): `frag_z` / `frag_w` — the depth and
/// 1/w at the pixel centre (gl_FragCoord.z and .w; both linear in screen
/// space; the depth as rasterized, before depth bias), one register
/// each; `point` (`v2`) — gl_PointCoord of a point primitive, Vulkan's
/// "Point Sprites" (0.5 + (x_f − x_p) / size, 0.5 + (y_f − y_p) / size)
/// at the pixel centre, y flipped (1 − t) when the Renderer State's
/// `Point sprite coord origin max Y` is set (Mesa's Gallium driver sets it
/// for GL's lower-left origin). `point` outside a point primitive
/// (undefined in Vulkan, undocumented on the hardware), sample positions
/// other than the centre at 4× and register formats other than f32/f16
/// fault (INSTR_INVALID_ENC). The first source is not read.
pub(super) fn ld_var_special(
    core: &mut Core<'_>,
    p: &Prepared,
    lane: &mut Lane,
    ctx: &LaneCtx,
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    let Some(f) = core.frag.as_ref() else {
        return Err(not_fragment(cc, p.name));
    };
    let bad = |what: &str| {
        log::error!("sim shader: LD_VAR_SPECIAL {what} (clause {:#x})", cc.va);
        fault(status::INSTR_INVALID_ENC, cc.va)
    };
    match (
        p.fields.modifier("sample").unwrap_or("none"),
        f.tile.samples,
    ) {
        ("center", _) | ("centroid" | "sample", 1) => {}
        _ => return Err(bad("sample mode not simulated")),
    }
    let Some(t) = f.threads.get(ctx.thread as usize).copied() else {
        return Err(bad("from a thread without a pixel"));
    };
    let values: Vec<f32> = match p.fields.modifier("varying_name").unwrap_or("") {
        "frag_z" => vec![t.centre[0]],
        "frag_w" => vec![t.centre[1]],
        "point" => {
            let Some([px, py, size]) = f.point else {
                return Err(bad("point outside a point primitive"));
            };
            let s = 0.5 + (t.x as f32 + 0.5 - px) / size;
            let mut u = 0.5 + (t.y as f32 + 0.5 - py) / size;
            if f.point_origin_max_y {
                u = 1.0 - u;
            }
            vec![s, u]
        }
        _ => return Err(bad("varying name not simulated")),
    };
    if components(p) != values.len() {
        return Err(bad("vector size differs from the value's"));
    }
    match p.fields.modifier("register_format").unwrap_or("auto") {
        "f32" | "auto" => {
            for (i, v) in values.iter().enumerate() {
                staging_write(lane, cc, i, v.to_bits());
            }
        }
        "f16" => {
            let h: Vec<u32> = values
                .iter()
                .map(|&v| u32::from(f32_to_f16(v, false)))
                .collect();
            staging_write(lane, cc, 0, h[0] | h.get(1).map_or(0, |x| x << 16));
        }
        _ => return Err(bad("register format not simulated")),
    }
    Ok(0)
}

/// BLEND (fragment jobs): source 0 the coverage mask, sources 1/2 the
/// render target's blend descriptor (FAU specials 8 + rt: Internal Blend
/// words). Staging registers hold the colour in the descriptor's
/// `Register Format` (F32: one register per component; F16: two
/// components per register, low half first), `Num Comps` of them (missing
/// ones read G = B = 0, A = 1). The colour is blended into each sample s
/// of render target `RT` at the thread's pixel whose coverage bit s is set
/// (the samples of the framebuffer; one blend per sample, each with its
/// own destination): `Mode` Opaque replaces it, Fixed-Function applies the Blend
/// descriptor's equation, constant and the Fixed-Function `Alpha Zero
/// NOP` / `Alpha One Store` shortcuts (`framebuffer::blend_unorm`, in the
/// target's internal format: codes decoded, sRGB linearized, the result
/// encoded); the conversion's `Memory Format` must match the target; the
/// equation's `Color Mask` applies to both; a descriptor with `Enable`
/// false writes nothing. Modes Shader and Off and other register formats fault
/// (INSTR_INVALID_ENC). The result (the destination register) is 0.
///
/// `Mode` Shader calls a blend shader (genxml `Blend Shader`; how, in
/// `compiler::bifrost::blend`): the thread continues at `PC` (the low 32
/// bits; the upper ones are the calling clause's) with the colour's F32
/// registers copied to r0–r3 and the result — r48 in every fragment
/// shader, Mesa's convention — the `Return Value` (low 32 bits of the
/// return address, 0: the thread ends after the blend shader). A BLEND
/// whose descriptor is not the FAU blend slot (an immediate: a blend
/// shader's own BLEND) must be Opaque or Fixed-Function and writes every
/// channel: the render target's Blend descriptor's equation (its colour
/// mask) is not applied, the blend shader did that (our reading: Mesa's
/// blend shaders apply the write mask themselves and the descriptor of a
/// target with a blend shader carries no equation). A blend shader calling
/// one faults.
#[allow(clippy::too_many_arguments)]
pub(super) fn blend(
    core: &mut Core<'_>,
    p: &Prepared,
    lane: &mut Lane,
    ctx: &LaneCtx,
    s: &[u32; 4],
    cc: &CachedClause,
    fx: &mut Effects,
) -> Result<u32, JobFault> {
    use crate::hw::blend::{blend_desc, blend_equation, blend_fixed_function, internal_blend};
    use crate::hw::genxml::v7::internal_conversion;
    use crate::kmod::sim::framebuffer::{BlendFunction, BlendMode, TileFormat, blend_unorm};
    let arch = core.arch;
    let Some(f) = core.frag.as_mut() else {
        return Err(not_fragment(cc, "BLEND"));
    };
    check_not_discarded(lane, cc, "BLEND")?;
    if f.late.is_some() && !f.threads.get(ctx.thread as usize).is_some_and(|t| t.tested) {
        // The late tests decide which samples BLEND may write; a BLEND
        // before them (no ATEST or ZS_EMIT) is not what any compiler
        // emits, and what the hardware does then is undocumented.
        log::error!(
            "sim shader: BLEND before the late depth/stencil test (clause {:#x})",
            cc.va
        );
        return Err(fault(status::INSTR_INVALID_ENC, cc.va));
    }
    let internal = [s[1], s[2]];
    let mode = internal_blend::MODE.get(&internal);
    let rt = blend_fixed_function::RT.get(&internal) as usize;
    let regfmt = internal_conversion::REGISTER_FORMAT
        .at(blend_fixed_function::CONVERSION.start)
        .get(&internal);
    let comps = blend_fixed_function::NUM_COMPS.get(&internal) as usize;
    let bad = |what: &str| {
        log::error!("sim shader: BLEND {what} (clause {:#x})", cc.va);
        fault(status::INSTR_INVALID_ENC, cc.va)
    };
    // The fragment shader's BLEND reads its descriptor from FAU special
    // slot 8 + rt; a blend shader's has it as immediates.
    let fau_rt = match p.srcs.get(1) {
        Some(crate::hw::isa::Operand::Special { index, .. }) if *index >= 8 => {
            Some(usize::from(*index - 8))
        }
        _ => None,
    };
    let from_blend_shader = fau_rt.is_none();
    if mode == crate::hw::blend::MODE_SHADER {
        // The Shader view overlays the conversion, RT and Num Comps: the
        // target is the FAU slot's, the colour four registers as they are
        // (what our fragment shaders send, F32).
        let Some(rt) = fau_rt else {
            return Err(bad("in a blend shader calls a blend shader"));
        };
        let Some(desc) = f.blend.get(rt).copied() else {
            return Err(bad("names a render target the framebuffer lacks"));
        };
        let covered = s[0] & ((1u32 << f.tile.samples) - 1);
        if covered == 0 || blend_desc::ENABLE.get(&desc) == 0 {
            return Ok(0);
        }
        use crate::hw::blend::blend_shader;
        let region = cc.va & !0xffff_ffff;
        // The fields' `shr` modifiers: `get` gives the addresses' bits.
        let pc = region | blend_shader::PC.get(&internal);
        let ret = blend_shader::RETURN_VALUE.get(&internal) as u32;
        let colour: [u32; 4] = std::array::from_fn(|i| staging_read(lane, cc, i));
        lane.regs[..4].copy_from_slice(&colour);
        fx.branch = Some(pc);
        return Ok(ret);
    }
    let Some(desc) = f.blend.get(rt).copied() else {
        return Err(bad("names a render target the framebuffer lacks"));
    };
    // The colour as f32 (register formats F32, F16), or the integers
    // (I32, U32) as they are.
    let mut colour = [0.0, 0.0, 0.0, 1.0];
    let mut ints = [0u32; 4];
    for (i, c) in colour.iter_mut().enumerate().take(comps.min(4)) {
        *c = match regfmt {
            1 => f32::from_bits(staging_read(lane, cc, i)),
            0 => {
                let w = staging_read(lane, cc, i / 2);
                super::exec::f16_to_f32((w >> (16 * (i % 2))) as u16)
            }
            2 | 3 => {
                ints[i] = staging_read(lane, cc, i);
                0.0
            }
            _ => return Err(bad("register format not simulated")),
        };
    }
    // Blend `Alpha To One` (alphaToOneEnable): the source alpha is 1.
    if blend_desc::ALPHA_TO_ONE.get(&desc) != 0 && matches!(regfmt, 0 | 1) {
        colour[3] = 1.0;
    }
    let samples = f.tile.samples;
    let covered = s[0] & ((1u32 << samples) - 1);
    if covered == 0 || blend_desc::ENABLE.get(&desc) == 0 {
        return Ok(0);
    }
    let equation = [desc[1]];
    let mask = if from_blend_shader {
        15
    } else {
        blend_equation::COLOR_MASK.get(&equation) as u8
    };
    let mode = match mode {
        1 => BlendMode::Opaque,
        2 => {
            let rgb = BlendFunction::unpack(blend_equation::RGB.get(&equation));
            let alpha = BlendFunction::unpack(blend_equation::ALPHA.get(&equation));
            if !rgb.supported() || !alpha.supported() {
                return Err(bad("blend operand not simulated"));
            }
            BlendMode::FixedFunction {
                rgb,
                alpha,
                mask,
                constant: blend_desc::CONSTANT.get(&desc) as u16,
                alpha_zero_nop: blend_fixed_function::ALPHA_ZERO_NOP.get(&internal) != 0,
                alpha_one_store: blend_fixed_function::ALPHA_ONE_STORE.get(&internal) != 0,
            }
        }
        _ => return Err(bad("mode Off not simulated")),
    };
    let Some((x, y)) = f.threads.get(ctx.thread as usize).map(|t| (t.x, t.y)) else {
        return Err(bad("from a thread without a pixel"));
    };
    let Some(i) = f.tile.index(x, y) else {
        return Err(bad("outside the tile buffer"));
    };
    let first = f.tile.sample(i, 0);
    let Some(&tile_format) = f.tile.formats.get(rt) else {
        return Err(bad("names a render target the framebuffer lacks"));
    };
    let memory = internal_conversion::MEMORY_FORMAT
        .at(blend_fixed_function::CONVERSION.start)
        .get(&internal);
    let Some(target) = f.tile.colour.get_mut(rt) else {
        return Err(bad("names a render target the framebuffer lacks"));
    };
    let format = match tile_format {
        TileFormat::Unorm(format) => {
            // The conversion's `Memory Format` must be the one Mesa pairs
            // with the target's internal format
            // (`panfrost_blendable_formats`: "RGBA8 TB", "RGB10 A2 TB",
            // "R5G6B5 AU/PU"), sRGB (bit 20) as the target.
            if !unorm_memory_formats(format.bits).contains(&(memory >> 12 & 0xff))
                || (memory >> 20 & 1 == 1) != format.srgb
                || regfmt > 1
            {
                return Err(bad("conversion differs from the render target's format"));
            }
            format
        }
        TileFormat::Raw { bytes } => {
            // RAW targets: Opaque only (blending them takes a blend
            // shader), the colour converted to the conversion's memory
            // format and stored as its bytes.
            if mode != BlendMode::Opaque || mask & 15 != 15 {
                return Err(bad("blending a RAW (float/integer) target"));
            }
            let raw = raw_pixel(arch, memory, regfmt, colour, ints, bytes)
                .ok_or_else(|| bad("conversion to a RAW target not simulated"))?;
            for sample in 0..samples as usize {
                if covered & (1 << sample) != 0 {
                    target[first + sample] = raw;
                }
            }
            return Ok(0);
        }
    };
    // Each covered sample blends with its own destination.
    for sample in 0..samples as usize {
        if covered & (1 << sample) == 0 {
            continue;
        }
        let dst = target[first + sample];
        let blended = blend_unorm(&mode, colour, dst, format);
        let mut out = dst;
        for ch in 0..4 {
            if mask & (1 << ch) != 0 {
                out[ch] = blended[ch];
            }
        }
        target[first + sample] = out;
    }
    Ok(0)
}

/// LD_TILE (fragment jobs; our blend shaders' destination read): source 0
/// the pixel indices (sample bits 0–7, render target 8–15, x 16–23, y
/// 24–31; only y = 255, x = 0 — the thread's own pixel, Mesa's
/// `BIFROST_CURRENT_PIXEL` — is simulated), source 1 the coverage (not
/// read: the sample is read whatever it says), source 2 the target's
/// 32-bit internal conversion descriptor, whose `Memory Format` must be
/// the one BLEND pairs with the target and whose `Register Format` must be
/// F32 (U32/I32 for the integer formats). Writes the sample's colour to
/// `vecsize` staging registers: UNORM targets decoded to f32 (sRGB
/// linearized; absent channels 0, alpha 1), RAW ones from the
/// conversion's RGBA16F, RGBA32F or R32F as f32 (G = B = 0, A = 1), or
/// RGBA32UI/RGBA32I/R32UI/R32I words as they are (G = B = 0, A = 1).
/// Anything else faults (INSTR_INVALID_ENC).
pub(super) fn ld_tile(
    core: &mut Core<'_>,
    p: &Prepared,
    lane: &mut Lane,
    ctx: &LaneCtx,
    s: &[u32; 4],
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    use crate::hw::genxml::v7::internal_conversion;
    use crate::kmod::sim::framebuffer::TileFormat;
    let arch = core.arch;
    let Some(f) = core.frag.as_ref() else {
        return Err(not_fragment(cc, "LD_TILE"));
    };
    let bad = |what: &str| {
        log::error!("sim shader: LD_TILE {what} (clause {:#x})", cc.va);
        fault(status::INSTR_INVALID_ENC, cc.va)
    };
    let (sample, rt, x, y) = (
        s[0] & 0xff,
        (s[0] >> 8 & 0xff) as usize,
        s[0] >> 16 & 0xff,
        s[0] >> 24,
    );
    if y != 255 || x != 0 {
        return Err(bad("of another pixel than the thread's is not simulated"));
    }
    if sample >= f.tile.samples {
        return Err(bad("of a sample the framebuffer lacks"));
    }
    let conv = [s[2]];
    // F32 1, I32 2, U32 3 (genxml "Register File Format").
    let regfmt = internal_conversion::REGISTER_FORMAT.get(&conv);
    if !matches!(regfmt, 1..=3) {
        return Err(bad("register format not simulated"));
    }
    let memory = internal_conversion::MEMORY_FORMAT.get(&conv);
    let Some(t) = f.threads.get(ctx.thread as usize) else {
        return Err(bad("from a thread without a pixel"));
    };
    let Some(i) = f.tile.index(t.x, t.y) else {
        return Err(bad("outside the tile buffer"));
    };
    let (Some(&format), Some(target)) = (f.tile.formats.get(rt), f.tile.colour.get(rt)) else {
        return Err(bad("names a render target the framebuffer lacks"));
    };
    let Some(&words) = target.get(f.tile.sample(i, 0) + sample as usize) else {
        return Err(bad("outside the tile buffer"));
    };
    let colour: [u32; 4] = match format {
        TileFormat::Unorm(_) if regfmt != 1 => {
            return Err(bad("of a UNORM target in integer registers"));
        }
        TileFormat::Unorm(format) => {
            // As BLEND: the Memory Format Mesa pairs with the target.
            if !unorm_memory_formats(format.bits).contains(&(memory >> 12 & 0xff))
                || (memory >> 20 & 1 == 1) != format.srgb
            {
                return Err(bad("conversion differs from the render target's format"));
            }
            format.decode(words).map(f32::to_bits)
        }
        TileFormat::Raw { bytes } => {
            // 32-bit words the pixel takes in the tile buffer; the RAW8 and
            // RAW16 targets match none of the conversions below.
            let n = bytes.div_ceil(4);
            let formats = crate::hw::layouts(arch).formats;
            let value = memory >> 12 & 0xff;
            let is = |name: &str| formats.format_value(name) == Some(value);
            let h = |w: u32, hi: bool| {
                super::exec::f16_to_f32((w >> (16 * u32::from(hi))) as u16).to_bits()
            };
            let float = regfmt == 1;
            if is("RGBA16F") && n == 2 && float {
                [
                    h(words[0], false),
                    h(words[0], true),
                    h(words[1], false),
                    h(words[1], true),
                ]
            } else if is("RGBA32F") && n == 4 && float {
                words
            } else if is("R32F") && n == 1 && float {
                [words[0], 0, 0, 1f32.to_bits()]
            } else if (is("RGBA32UI") || is("RGBA32I")) && n == 4 && !float {
                words
            } else if (is("R32UI") || is("R32I")) && n == 1 && !float {
                // Our reading: the missing components as 0, 0, 1.
                [words[0], 0, 0, 1]
            } else {
                return Err(bad("conversion of a RAW target not simulated"));
            }
        }
    };
    for (c, &v) in colour.iter().enumerate().take(components(p).min(4)) {
        staging_write(lane, cc, c, v);
    }
    Ok(0)
}

/// The words a RAW render target holds for a colour (`colour` from F32/F16
/// registers, `ints` from I32/U32 ones): the conversion's memory format
/// ("R8UI" … "RGBA32F", the SNORM and 16-bit UNORM formats, "R11F G11F
/// B10F") converted by the Vulkan rules (`hw::pixel`: binary16 rounded to
/// nearest even, SNORM/UNORM codes rounded to nearest, integers cast to the
/// component size), float formats from float registers and integer ones
/// from integer registers only; `None` for anything else or a pixel whose
/// size does not round up to the target's `bytes`.
/// The conversion `Memory Format` values Mesa pairs with a UNORM
/// target's internal format (`panfrost_blendable_formats`: "RGBA8 TB",
/// "RGB10 A2 TB", "RGBA4 AU/PU", "RGB5 A1 AU/PU", "R5G6B5 AU/PU"); BLEND
/// and LD_TILE fault on any other.
fn unorm_memory_formats(bits: [u32; 4]) -> &'static [u64] {
    match bits {
        [8, 8, 8, 8] => &[237],
        [10, 10, 10, 2] => &[238],
        [4, 4, 4, 4] => &[232, 233],
        [5, 5, 5, 1] => &[224, 225],
        _ => &[226, 227],
    }
}

fn raw_pixel(
    arch: crate::hw::Arch,
    memory: u64,
    regfmt: u64,
    colour: [f32; 4],
    ints: [u32; 4],
    bytes: u32,
) -> Option<[u32; 4]> {
    let formats = crate::hw::layouts(arch).formats;
    let name = formats.format_name(memory >> 12 & 0xff)?;
    let layout = crate::hw::pixel::RawLayout::of(name)?;
    let out = if matches!(regfmt, 0 | 1) {
        layout.pack_floats(colour)?
    } else {
        layout.pack_ints(ints)?
    };
    (layout.bytes().next_power_of_two() == bytes).then_some(out)
}

/// LD_VAR, LD_VAR_IMM (smooth) and LD_VAR_FLAT(_IMM) (fragment jobs):
/// varying `index` (the `index` immediate, or LD_VAR's second source) of
/// the Draw's Varyings table, `vecsize` components into the staging
/// registers. Smooth: the primitive's vertices' values weighted
/// perspective-correctly at the pixel centre (`sample` center), at the
/// centroid (`centroid`: the centre when the first source's coverage holds
/// every sample, else its lowest covered sample's position) or at the
/// sample the first source's bits 16.. name (`sample`); in a
/// single-sampled framebuffer all three are the centre; `explicit` and
/// `none` fault. Flat: the
/// provoking vertex's value, `function` none only. Register formats: f32
/// (one register per component), f16 (two per register, low half first),
/// u32/s32 (flat), auto (the varying's own type). `update` (the varying
/// cache's store/retrieve policy) does not change results and is ignored.
pub(super) fn ld_var(
    core: &mut Core<'_>,
    p: &Prepared,
    lane: &mut Lane,
    ctx: &LaneCtx,
    s: &[u32; 4],
    cc: &CachedClause,
) -> Result<u32, JobFault> {
    let Some(f) = core.frag.as_ref() else {
        return Err(not_fragment(cc, p.name));
    };
    let bad = |what: &str| {
        log::error!("sim shader: {} {what} (clause {:#x})", p.name, cc.va);
        fault(status::INSTR_INVALID_ENC, cc.va)
    };
    let flat = p.name.starts_with("LD_VAR_FLAT");
    let index = if p.name.ends_with("_IMM") {
        p.fields.immediate("index").unwrap_or(0)
    } else {
        s[1]
    };
    let Some(t) = f.threads.get(ctx.thread as usize).copied() else {
        return Err(bad("from a thread without a pixel"));
    };
    let samples = f.tile.samples;
    let mut bary = t.bary;
    if flat {
        if p.fields.modifier("function").unwrap_or("none") != "none" {
            return Err(bad("with a combining function"));
        }
    } else {
        match p.fields.modifier("sample").unwrap_or("none") {
            "center" => {}
            _ if samples == 1 => match p.fields.modifier("sample") {
                Some("centroid" | "sample") => {}
                _ => return Err(bad("sample mode not simulated")),
            },
            // The first source is r61 as preloaded (our compiler's and
            // older Mesa's choice; Mesa's v9+ `BI_PRELOAD_CENTROID_ID` has
            // no Bifrost counterpart in genxml): its coverage (bits 0..15)
            // picks the centroid. Our rule, within what the Vulkan spec's
            // "Interpolation Decorations" allows (a point covered by the
            // primitive, the centre when every sample is covered): all of
            // the pixel's samples covered → the centre; otherwise the
            // lowest-numbered covered sample's position. No coverage (a
            // helper invocation): the centre.
            "centroid" => {
                let all = (1u32 << samples) - 1;
                let mask = s[0] & all;
                if mask != 0 && mask != all {
                    let first = mask.trailing_zeros() as usize;
                    bary = t.sample_bary[first.min(crate::kmod::sim::raster::MAX_SAMPLES - 1)];
                }
            }
            // The sample r61's bits 16.. name (the thread's sample under
            // sample shading, 0 otherwise).
            "sample" => {
                let id = (s[0] >> 16) & 0x1f;
                if id >= samples || id as usize >= crate::kmod::sim::raster::MAX_SAMPLES {
                    return Err(bad("a sample index beyond the sample count"));
                }
                bary = t.sample_bary[id as usize];
            }
            _ => return Err(bad("sample mode not simulated")),
        }
    }
    let (vertices, corners, provoking) = (f.vertices, f.corners, f.provoking);
    let mut values = [[Value::F(0.0); 4]; 3];
    let sources: Vec<usize> = if flat {
        vec![provoking]
    } else {
        (0..corners).collect()
    };
    for &k in &sources {
        let (addr, format) = attribute_address(core, vertices[k], 0, index, true, cc)?;
        values[k] = read_format(core, addr, format, cc)?;
    }
    let n = components(p);
    let reg_format = p.fields.modifier("register_format").unwrap_or("auto");
    let mut words = [0u32; 4];
    for (c, w) in words.iter_mut().enumerate().take(n) {
        let v = if flat {
            values[provoking][c]
        } else {
            let mut acc = 0.0f32;
            for (k, vk) in values.iter().enumerate().take(corners) {
                match vk[c] {
                    Value::F(x) => acc += bary[k] * x,
                    _ => return Err(bad("interpolates an integer varying")),
                }
            }
            Value::F(acc)
        };
        *w = match (reg_format, v) {
            ("f16", Value::F(x)) => u32::from(f32_to_f16(x, false)),
            ("f32" | "auto", Value::F(x)) => x.to_bits(),
            ("u32" | "s32" | "auto", Value::U(u)) => u,
            ("u32" | "s32" | "auto", Value::I(i)) => i as u32,
            _ => return Err(bad("register format does not match the varying")),
        };
    }
    if reg_format == "f16" {
        for i in 0..n.div_ceil(2) {
            let hi = if 2 * i + 1 < n {
                words[2 * i + 1] << 16
            } else {
                0
            };
            staging_write(lane, cc, i, (words[2 * i] & 0xffff) | hi);
        }
    } else {
        for (i, &w) in words.iter().enumerate().take(n) {
            staging_write(lane, cc, i, w);
        }
    }
    Ok(0)
}
