//! The FAU ("fast access uniform") operands of the simulated shader core:
//! uniform slots (the 64-bit push-uniform words a job preloads; Mesa's
//! src/panfrost/compiler/bifrost/disassemble.c and
//! `bi_emit_load_push_constant` in bifrost_compile.c: FAU index `0x80|n` is
//! word n of the DCD's `Push uniforms` buffer, only
//! the first `Preload.Uniform count` words are loaded) and the special
//! values (lane id, warp id, core id). Embedded constants are resolved by
//! the decoder and read in `exec`.
//!
//! Fragment shading adds the blend descriptors (specials 8..15: words 2–3,
//! the "Internal" half, of render target i's Blend descriptor, which the
//! BLEND instruction takes as its second and third sources, Mesa's
//! `BIR_FAU_BLEND_0 + rt`).
//!
//! This module must never read GPU memory while a shader runs: the words
//! are fetched once per job by `super::super::compute`.

use super::warp::LaneCtx;

/// Uniform slot `slot` (64 bits), if the job preloaded it.
pub fn uniform(words: &[u64], slot: u8) -> Option<u64> {
    words.get(usize::from(slot)).copied()
}

/// A special FAU value (index below 0x20): 0 zero, 1 lane id, 2 warp id,
/// 3 core id. The fragment-only ones (framebuffer size, ATEST datum,
/// sample position, blend descriptors) are not available here.
pub fn special(index: u8, ctx: &LaneCtx) -> Option<u64> {
    match index {
        0 => Some(0),
        1 => Some(u64::from(ctx.lane_id)),
        2 => Some(u64::from(ctx.warp_id)),
        3 => Some(u64::from(ctx.core_id)),
        _ => None,
    }
}

/// A fragment-only FAU special: 6 = the framebuffer's sample-locations
/// table address (Mesa's `BIR_FAU_SAMPLE_POS_ARRAY`; see
/// `Framebuffer::sample_locations`), 8 + i = render target i's blend
/// descriptor (Internal words, low word first); None outside fragment jobs.
pub fn fragment_special(index: u8, frag: Option<&super::FragmentIo>) -> Option<u64> {
    let f = frag?;
    match index {
        6 => Some(f.sample_locations),
        8..=15 => f
            .blend
            .get(usize::from(index - 8))
            .map(|b| u64::from(b[2]) | (u64::from(b[3]) << 32)),
        _ => None,
    }
}
