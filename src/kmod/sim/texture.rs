//! The simulated texture unit, as far as fragment jobs' VAR_TEX message
//! preloads need it: one 2D texel lookup with a Texture and a Sampler
//! descriptor (v7 layouts, unpacked with the `hw` tables) at normalized
//! coordinates.
//!
//! Simulated: 2D textures of one level and one layer, format RGBA8 UNORM
//! with the identity swizzle, texel ordering Tiled (u-interleaved 16x16
//! tiles, `Row stride` bytes per row of tiles, as render targets) or Linear,
//! the surface from the "Surface With Stride" the texture's `Surfaces`
//! points at; samplers with normalized coordinates, the same filter for
//! minification and magnification (so that no level of detail has to be
//! computed: the one level is sampled), wrap modes Repeat, Clamp to Edge
//! and Mirrored Repeat. Filtering by the Vulkan rules ("Texel Filtering"):
//! nearest takes the texel containing (u, v) = (s·width, t·height);
//! linear weights the four texels around (u − ½, v − ½). Anything else is a
//! JOB_CONFIG_FAULT naming the descriptor.
//!
//! This module must never read memory except through the MMU.

use super::framebuffer::{Block, unorm8};
use super::jobs::JobFault;
use super::mmu::Mmu;
use crate::hw::Arch;
use crate::hw::texture::{sampler, surface_with_stride as sws, texture_desc as td};

fn config(va: u64, what: &str) -> JobFault {
    log::error!("sim texture: descriptor at {va:#x}: {what}");
    JobFault::config(va)
}

/// Bytes of a v7 Texture and of a Sampler descriptor in their tables.
const TEXTURE_BYTES: u64 = 32;
const SAMPLER_BYTES: u64 = 32;

/// A texture ready to be sampled.
pub struct Texture {
    base: u64,
    row_stride: u64,
    block: Block,
    width: u32,
    height: u32,
    nearest: bool,
    wrap: [u64; 2],
}

fn wrap(mode: u64, i: i64, n: u32) -> u32 {
    let n = i64::from(n);
    let v = match mode {
        8 => i.rem_euclid(n),
        12 => {
            let m = i.rem_euclid(2 * n);
            if m < n { m } else { 2 * n - 1 - m }
        }
        _ => i.clamp(0, n - 1),
    };
    v as u32
}

impl Texture {
    /// Unpacks texture `index` of the table at `textures` and sampler
    /// `index` of `samplers` (tables of `count` and `sampler_count`).
    pub fn read(
        mmu: &Mmu,
        arch: Arch,
        textures: u64,
        samplers: u64,
        index: u32,
        counts: (u32, u32),
    ) -> Result<Texture, JobFault> {
        if arch != Arch::V7 {
            return Err(config(textures, "textures are simulated on v7 only"));
        }
        let l = crate::hw::layouts(arch);
        if textures == 0 || samplers == 0 || index >= counts.0 || index >= counts.1 {
            return Err(config(textures, "no such texture or sampler"));
        }
        let tva = textures + TEXTURE_BYTES * u64::from(index);
        let t = mmu.read_words(tva, l.texture.words as usize)?;
        if l.texture.check_reserved(&t).is_err() {
            return Err(config(tva, "reserved bits set in Texture"));
        }
        let format = td::FORMAT.get(&t);
        let name = crate::hw::layout::enum_name(l.formats.table.formats, (format >> 12) & 0xff);
        if td::DIMENSION.get(&t) != 2
            || name != "RGBA8 UNORM"
            || format & 0xfff != 0
            || format >> 20 != 0
            || td::SWIZZLE.get(&t) != 0o3210
            || td::LEVELS.get(&t) != 1
            || td::ARRAY_SIZE.get(&t) != 1
            || td::DEPTH.get(&t) != 1
            || td::SAMPLE_COUNT.get(&t) != 1
        {
            return Err(config(tva, "texture kind not simulated"));
        }
        let block = match td::TEXEL_ORDERING.get(&t) {
            1 => Block::TiledUInterleaved,
            2 => Block::Linear,
            _ => return Err(config(tva, "texel ordering not simulated")),
        };
        let surface = td::SURFACES.get(&t);
        let s = mmu.read_words(surface, l.surface_with_stride.words as usize)?;
        let sva = samplers + SAMPLER_BYTES * u64::from(index);
        let sm = mmu.read_words(sva, l.sampler.words as usize)?;
        if l.sampler.check_reserved(&sm).is_err() {
            return Err(config(sva, "reserved bits set in Sampler"));
        }
        let nearest = sampler::MAGNIFY_NEAREST.get(&sm) != 0;
        let ws = sampler::WRAP_MODE_S.get(&sm);
        let wt = sampler::WRAP_MODE_T.get(&sm);
        if sampler::NORMALIZED_COORDINATES.get(&sm) == 0
            || nearest != (sampler::MINIFY_NEAREST.get(&sm) != 0)
            || sampler::COMPARE_FUNCTION.get(&sm) != 0
            || ![ws, wt].iter().all(|w| matches!(w, 8 | 9 | 12))
        {
            return Err(config(sva, "sampler state not simulated"));
        }
        let row_stride = sws::ROW_STRIDE.get(&s) as i64;
        if row_stride <= 0 {
            return Err(config(surface, "negative or zero row stride"));
        }
        Ok(Texture {
            base: sws::POINTER.get(&s),
            row_stride: row_stride as u64,
            block,
            width: td::WIDTH.get(&t) as u32,
            height: td::HEIGHT.get(&t) as u32,
            nearest,
            wrap: [ws, wt],
        })
    }

    fn texel(&self, mmu: &Mmu, x: u32, y: u32) -> Result<[f32; 4], JobFault> {
        let mut b = [0u8; 4];
        let off = self.block.offset(x, y, self.row_stride, 4);
        mmu.read(self.base + off, &mut b)?;
        Ok(b.map(unorm8))
    }

    /// The filtered colour at normalized coordinates (s, t).
    pub fn sample(&self, mmu: &Mmu, s: f32, t: f32) -> Result<[f32; 4], JobFault> {
        let u = f64::from(s) * f64::from(self.width);
        let v = f64::from(t) * f64::from(self.height);
        if !(u.is_finite() && v.is_finite()) {
            return Ok([0.0; 4]);
        }
        if self.nearest {
            let x = wrap(self.wrap[0], u.floor() as i64, self.width);
            let y = wrap(self.wrap[1], v.floor() as i64, self.height);
            return self.texel(mmu, x, y);
        }
        let (u, v) = (u - 0.5, v - 0.5);
        let (i0, j0) = (u.floor() as i64, v.floor() as i64);
        let (a, b) = (u - u.floor(), v - v.floor());
        let mut out = [0.0f64; 4];
        for (dj, wy) in [(0, 1.0 - b), (1, b)] {
            for (di, wx) in [(0, 1.0 - a), (1, a)] {
                let x = wrap(self.wrap[0], i0 + di, self.width);
                let y = wrap(self.wrap[1], j0 + dj, self.height);
                let c = self.texel(mmu, x, y)?;
                for k in 0..4 {
                    out[k] += wx * wy * f64::from(c[k]);
                }
            }
        }
        Ok(out.map(|x| x as f32))
    }
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wrap_modes() {
        // Clamp to edge, repeat, mirrored repeat over 4 texels.
        let idx = [-2i64, -1, 0, 3, 4, 5, 8];
        assert_eq!(idx.map(|i| wrap(9, i, 4)), [0, 0, 0, 3, 3, 3, 3]);
        assert_eq!(idx.map(|i| wrap(8, i, 4)), [2, 3, 0, 3, 0, 1, 0]);
        assert_eq!(idx.map(|i| wrap(12, i, 4)), [1, 0, 0, 3, 3, 2, 0]);
    }
}
