//! The simulated rasterizer of FRAGMENT jobs: which pixels a triangle,
//! point or line covers, and the weights its varyings are interpolated with.
//!
//! Inputs are the vertices' positions as the vertex shaders stored them
//! (Mesa's Bifrost vertex shaders apply the viewport transform themselves:
//! `(x_f, y_f, z_f, 1/w_c)` in framebuffer coordinates, see
//! `nir_lower_viewport_transform` and the position store of the IDVS
//! position shader). Rules, from the Vulkan rasterization chapter:
//! - coverage at each of the pixel's sample positions ([`Samples`]: one
//!   at the centre for single-sampled framebuffers, the four of the
//!   framebuffer's sample-locations table at 4×), depth per sample, the
//!   varying weights at the pixel centre (the shader runs once per pixel,
//!   Vulkan's rule without sample shading);
//! - vertex x/y snapped to a 1/256-pixel grid (8 sub-pixel bits) and edge
//!   functions evaluated exactly in integers;
//! - a sample exactly on an edge is covered by the framebuffer's
//!   `Tie-Break Rule` ([`TieBreak`]);
//! - attributes interpolated perspective-correctly with the 1/w the
//!   position carries; depth linearly in screen space;
//! - points: a square of the point size centred on the vertex, covering
//!   centres in `[c − s/2, c + s/2)` (left/top edges in, right/bottom out);
//! - lines: Vulkan's non-strict lines (`strictLines` is false): a
//!   parallelogram of the line width measured along the minor axis, covering
//!   centres whose minor-axis distance to the segment is below half the
//!   width (the lower tie in), over the half-open major-axis range
//!   `[start, end)` so that strip vertices are drawn once; attributes and
//!   depth with the spec's t = ((p − a)·(b − a)) / |b − a|² (clamped).
//!
//! A triangle or line with a vertex behind the eye (1/w ≤ 0) or beyond
//! half the guard band is clipped first ([`super::clip`], our model of
//! what the hardware does) and its clipped polygon rasterized by these
//! rules; a point behind the eye is dropped (the spec discards a point
//! outside the clip volume).
//!
//! This module computes coverage only: it never reads memory.

use super::clip;

/// Sub-pixel bits of the snapped vertex grid.
pub const SUBPIXEL_BITS: u32 = 8;
const ONE: i64 = 1 << SUBPIXEL_BITS;
const HALF: i64 = ONE / 2;
/// Largest vertex coordinate (pixels) the rasterizer accepts.
pub const GUARD_BAND: f32 = (1 << 20) as f32;

/// The most samples per pixel the rasterizer evaluates.
pub const MAX_SAMPLES: usize = 4;

/// A pixel's sample positions: offsets in 1/256 pixel from its upper-left
/// corner, in sample-index order (at most [`MAX_SAMPLES`]).
pub type Samples<'a> = &'a [(i64, i64)];

/// The single sample of a single-sampled framebuffer: the pixel centre.
pub const CENTRE: [(i64, i64); 1] = [(HALF, HALF)];

/// A vertex as the position buffer holds it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vertex {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    /// 1 / w_clip.
    pub inv_w: f32,
}

/// One pixel with at least one covered sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fragment {
    pub x: u32,
    pub y: u32,
    /// Perspective-correct weights of the primitive's vertices at the pixel
    /// centre (points and lines use the first one or two).
    pub bary: [f32; 3],
    /// Bit s: sample s covered.
    pub mask: u32,
    /// Depth at each sample (framebuffer z, interpolated linearly; only
    /// covered samples' entries mean anything).
    pub z: [f32; MAX_SAMPLES],
    /// Depth and 1/w at the pixel centre (both linear in screen space),
    /// what `LD_VAR_SPECIAL` `frag_z`/`frag_w` read.
    pub centre: [f32; 2],
}

/// Depth and 1/w at screen-space (linear) weights `l` of the vertices.
fn centre_of(l: [f64; 3], v: [&Vertex; 3]) -> [f32; 2] {
    let z: f64 = (0..3).map(|i| l[i] * f64::from(v[i].z)).sum();
    let w: f64 = (0..3).map(|i| l[i] * f64::from(v[i].inv_w)).sum();
    [z as f32, w as f32]
}

/// The framebuffer's `Tie-Break Rule` (genxml enum, values 0..7).
///
/// Our reading of the names: each rule names an angle of an edge direction
/// that is "in" and one that is "out"; the "in" set is the half-open
/// semicircle of directions that starts at the "in" angle and ends at the
/// "out" angle. Directions are measured in framebuffer coordinates (x right,
/// y down; angle = atan2(dy, dx)), every edge oriented so that the
/// primitive's interior is on its positive side (`cross(d, p − start) > 0`).
/// A sample exactly on an edge is covered when that edge's direction is in
/// the set. Any such set covers a sample on an edge shared by two
/// primitives exactly once, since the edge has opposite directions in them.
/// PanVk programs `MINUS_180_IN_0_OUT` (2): directions with dy < 0, or
/// dy = 0 and dx < 0 — with our orientation the left and bottom edges
/// (unverified on hardware; the Vulkan spec leaves the choice to the
/// implementation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TieBreak(pub u64);

impl TieBreak {
    /// Whether a sample on an edge of direction (dx, dy) is covered.
    pub fn includes(self, dx: i64, dy: i64) -> bool {
        match self.0 {
            0 => dy > 0 || (dy == 0 && dx > 0), // [0, 180)
            1 => dy > 0 || (dy == 0 && dx < 0), // (0, 180]
            2 => dy < 0 || (dy == 0 && dx < 0), // [-180, 0)
            3 => dy < 0 || (dy == 0 && dx > 0), // (-180, 0]
            4 => dx < 0 || (dx == 0 && dy > 0), // [90, 270)
            5 => dx < 0 || (dx == 0 && dy < 0), // (90, 270]
            6 => dx > 0 || (dx == 0 && dy < 0), // [-90, 90)
            _ => dx > 0 || (dx == 0 && dy > 0), // (-90, 90]
        }
    }
}

fn snap(v: f32) -> Option<i64> {
    (v.is_finite() && v.abs() <= GUARD_BAND).then(|| (f64::from(v) * ONE as f64).round() as i64)
}

/// Pixel centre in sub-pixel units.
fn centre(p: u32) -> i64 {
    i64::from(p) * ONE + HALF
}

/// Signed doubled area in framebuffer coordinates (y down): positive when
/// the vertices run clockwise on screen (the Vulkan spec's area formula
/// negates this, so its counter-clockwise means this is negative).
pub fn doubled_area(v: &[Vertex; 3]) -> f64 {
    let (a, b, c) = (v[0], v[1], v[2]);
    f64::from(b.x - a.x) * f64::from(c.y - a.y) - f64::from(b.y - a.y) * f64::from(c.x - a.x)
}

/// [`doubled_area`] with the sign of the visible (clipped) part of the
/// triangle, which is what facing is decided on: a vertex behind the eye
/// is stored mirrored through the centre of projection, and each one
/// flips the projected orientation (the homogeneous determinant of
/// (x·w, y·w, w) is w₀w₁w₂ times the projected area).
pub fn facing_area(v: &[Vertex; 3]) -> f64 {
    let behind = v.iter().filter(|p| p.inv_w < 0.0).count();
    if behind % 2 == 1 {
        -doubled_area(v)
    } else {
        doubled_area(v)
    }
}

fn perspective(linear: [f64; 3], inv_w: [f32; 3]) -> [f32; 3] {
    let q: Vec<f64> = (0..3).map(|i| linear[i] * f64::from(inv_w[i])).collect();
    let s: f64 = q.iter().sum();
    if s == 0.0 || !s.is_finite() {
        return linear.map(|l| l as f32);
    }
    [(q[0] / s) as f32, (q[1] / s) as f32, (q[2] / s) as f32]
}

/// An edge on the grid (start, end) and whether samples on it are covered.
type Edge = ((i64, i64), (i64, i64), bool);

/// Pixels of `rect` (inclusive x0, y0, x1, y1) with a sample covered by
/// triangle `v` (clipped first when [`clip::needs_clip`] says so: each
/// pixel once, in scanline order, its weights the original vertices').
pub fn triangle(
    v: &[Vertex; 3],
    rule: TieBreak,
    samples: Samples<'_>,
    rect: [u32; 4],
    out: &mut Vec<Fragment>,
) {
    if !clip::needs_clip(v) {
        return unclipped_triangle(v, rule, samples, rect, out);
    }
    let poly = clip::triangle(v);
    let start = out.len();
    let mut sub = Vec::new();
    // Where each pixel's fragment is in `out` (a pixel's samples may lie
    // in two triangles of the fan at 4×).
    let mut at = std::collections::HashMap::new();
    let depth_at = |b: [f32; 3]| clip::depth_and_inv_w(v, b);
    for i in 1..poly.len().saturating_sub(1) {
        let corners = [&poly[0], &poly[i], &poly[i + 1]];
        let tri = corners.map(|c| c.v);
        sub.clear();
        unclipped_triangle(&tri, rule, samples, rect, &mut sub);
        for f in &mut sub {
            let (z, inv_w) = depth_at(clip::compose(f.bary, &corners));
            f.centre = [z, inv_w];
            for (s, &offset) in samples.iter().enumerate().take(MAX_SAMPLES) {
                if f.mask & (1 << s) != 0 {
                    let (b, _) = unclipped_weights_at(&tri, f.x, f.y, offset);
                    f.z[s] = depth_at(clip::compose(b, &corners)).0;
                }
            }
        }
        for f in &sub {
            let bary = clip::compose(f.bary, &corners);
            // One fragment with both masks (the weights are the same
            // plane's).
            match at.get(&(f.x, f.y)) {
                Some(&k) => {
                    let g: &mut Fragment = &mut out[k];
                    for s in 0..MAX_SAMPLES {
                        if f.mask & (1 << s) != 0 {
                            g.z[s] = f.z[s];
                        }
                    }
                    g.mask |= f.mask;
                }
                None => {
                    at.insert((f.x, f.y), out.len());
                    out.push(Fragment { bary, ..*f });
                }
            }
        }
    }
    out[start..].sort_by_key(|f| (f.y, f.x));
}

fn unclipped_triangle(
    v: &[Vertex; 3],
    rule: TieBreak,
    samples: Samples<'_>,
    rect: [u32; 4],
    out: &mut Vec<Fragment>,
) {
    let mut p = [(0i64, 0i64); 3];
    for i in 0..3 {
        match (snap(v[i].x), snap(v[i].y)) {
            (Some(x), Some(y)) => p[i] = (x, y),
            _ => return,
        }
    }
    let cross = |a: (i64, i64), b: (i64, i64), c: (i64, i64)| {
        (b.0 - a.0) as i128 * (c.1 - a.1) as i128 - (b.1 - a.1) as i128 * (c.0 - a.0) as i128
    };
    let area = cross(p[0], p[1], p[2]);
    if area == 0 {
        return;
    }
    let sign: i128 = if area > 0 { 1 } else { -1 };
    // Edge i is opposite vertex i: from p[i+1] to p[i+2] (reversed when the
    // triangle runs the other way, so the interior is on its positive side).
    let edges: Vec<Edge> = (0..3)
        .map(|i| {
            let (s, e) = (p[(i + 1) % 3], p[(i + 2) % 3]);
            let (dx, dy) = if sign > 0 {
                (e.0 - s.0, e.1 - s.1)
            } else {
                (s.0 - e.0, s.1 - e.1)
            };
            (s, e, rule.includes(dx, dy))
        })
        .collect();
    let min = |a: i64, b: i64, c: i64| a.min(b).min(c);
    let max = |a: i64, b: i64, c: i64| a.max(b).max(c);
    let [x0, y0, x1, y1] = bbox(
        rect,
        min(p[0].0, p[1].0, p[2].0),
        min(p[0].1, p[1].1, p[2].1),
        max(p[0].0, p[1].0, p[2].0),
        max(p[0].1, p[1].1, p[2].1),
    );
    let area_abs = (area * sign) as f64;
    let inv_w = [v[0].inv_w, v[1].inv_w, v[2].inv_w];
    let weights = |c: (i64, i64)| -> [i128; 3] {
        std::array::from_fn(|i| cross(edges[i].0, edges[i].1, c) * sign)
    };
    let depth = |e: [i128; 3]| {
        let l = e.map(|ei| ei as f64 / area_abs);
        (l[0] * f64::from(v[0].z) + l[1] * f64::from(v[1].z) + l[2] * f64::from(v[2].z)) as f32
    };
    for py in y0..=y1 {
        for px in x0..=x1 {
            let corner = (i64::from(px) * ONE, i64::from(py) * ONE);
            let mut mask = 0u32;
            let mut z = [0.0f32; MAX_SAMPLES];
            for (s, &(ox, oy)) in samples.iter().enumerate().take(MAX_SAMPLES) {
                let e = weights((corner.0 + ox, corner.1 + oy));
                let inside = e
                    .iter()
                    .zip(&edges)
                    .all(|(&ei, &(_, _, tie_in))| ei > 0 || (ei == 0 && tie_in));
                if inside {
                    mask |= 1 << s;
                    z[s] = depth(e);
                }
            }
            if mask == 0 {
                continue;
            }
            // Varyings at the pixel centre, covered or not (the plane
            // equations extend past the edges).
            let linear = weights((centre(px), centre(py))).map(|ei| ei as f64 / area_abs);
            out.push(Fragment {
                x: px,
                y: py,
                bary: perspective(linear, inv_w),
                mask,
                z,
                centre: centre_of(linear, [&v[0], &v[1], &v[2]]),
            });
        }
    }
}

/// The pixels of `rect` any of whose samples (anywhere in the pixel) can
/// lie in the sub-pixel box [lo, hi] (empty ranges come out with x0 > x1
/// or y0 > y1).
fn bbox(rect: [u32; 4], lo_x: i64, lo_y: i64, hi_x: i64, hi_y: i64) -> [u32; 4] {
    let lo = |v: i64, r: u32| ((v - ONE + 1).div_euclid(ONE)).max(i64::from(r)).max(0);
    let hi = |v: i64, r: u32| (v.div_euclid(ONE)).min(i64::from(r));
    let (x0, y0) = (lo(lo_x, rect[0]), lo(lo_y, rect[1]));
    let (x1, y1) = (hi(hi_x, rect[2]), hi(hi_y, rect[3]));
    if x0 > x1 || y0 > y1 {
        return [1, 1, 0, 0];
    }
    [x0 as u32, y0 as u32, x1 as u32, y1 as u32]
}

/// Pixels of `rect` with a sample covered by a point of `size` pixels at
/// `v`.
pub fn point(v: &Vertex, size: f32, samples: Samples<'_>, rect: [u32; 4], out: &mut Vec<Fragment>) {
    let in_front = v.inv_w > 0.0;
    if !in_front {
        return;
    }
    let (Some(cx), Some(cy)) = (snap(v.x), snap(v.y)) else {
        return;
    };
    if !(size.is_finite() && size > 0.0) {
        return;
    }
    let half = (f64::from(size) * ONE as f64 / 2.0).round() as i64;
    let [x0, y0, x1, y1] = bbox(rect, cx - half, cy - half, cx + half, cy + half);
    for py in y0..=y1 {
        for px in x0..=x1 {
            let mut mask = 0u32;
            for (s, &(ox, oy)) in samples.iter().enumerate().take(MAX_SAMPLES) {
                let (sx, sy) = (i64::from(px) * ONE + ox, i64::from(py) * ONE + oy);
                if sx >= cx - half && sx < cx + half && sy >= cy - half && sy < cy + half {
                    mask |= 1 << s;
                }
            }
            if mask != 0 {
                out.push(Fragment {
                    x: px,
                    y: py,
                    bary: [1.0, 0.0, 0.0],
                    mask,
                    z: [v.z; MAX_SAMPLES],
                    centre: [v.z, v.inv_w],
                });
            }
        }
    }
}

/// Pixels of `rect` with a sample covered by the line from `a` to `b` of
/// `width` pixels (non-strict rule, see the module docs); the weights at
/// the pixel centre's projection on the segment (the spec's t, clamped to
/// [0, 1]), depth at each sample's.
pub fn line(
    a: &Vertex,
    b: &Vertex,
    width: f32,
    samples: Samples<'_>,
    rect: [u32; 4],
    out: &mut Vec<Fragment>,
) {
    if clip::needs_clip(&[*a, *b]) {
        let Some(ends) = clip::line(a, b) else {
            return;
        };
        let start = out.len();
        let (p, q) = (&ends[0].v, &ends[1].v);
        unclipped_line(p, q, width, samples, rect, out);
        let depth_at = |bary: [f32; 3]| clip::depth_and_inv_w(&[*a, *b], bary);
        for f in &mut out[start..] {
            f.bary = clip::compose(f.bary, &[&ends[0], &ends[1]]);
            let (z, inv_w) = depth_at(f.bary);
            f.centre = [z, inv_w];
            for (s, &offset) in samples.iter().enumerate().take(MAX_SAMPLES) {
                if f.mask & (1 << s) != 0 {
                    let (b, _) = unclipped_line_weights_at(p, q, f.x, f.y, offset);
                    f.z[s] = depth_at(clip::compose(b, &[&ends[0], &ends[1]])).0;
                }
            }
        }
        return;
    }
    unclipped_line(a, b, width, samples, rect, out);
}

fn unclipped_line(
    a: &Vertex,
    b: &Vertex,
    width: f32,
    samples: Samples<'_>,
    rect: [u32; 4],
    out: &mut Vec<Fragment>,
) {
    let (Some(ax), Some(ay), Some(bx), Some(by)) = (snap(a.x), snap(a.y), snap(b.x), snap(b.y))
    else {
        return;
    };
    if !(width.is_finite() && width > 0.0) || (ax == bx && ay == by) {
        return;
    }
    let half = (f64::from(width) * ONE as f64 / 2.0).round() as i64;
    let (dx, dy) = (bx - ax, by - ay);
    let y_major = dy.abs() >= dx.abs();
    let [x0, y0, x1, y1] = bbox(
        rect,
        ax.min(bx) - half,
        ay.min(by) - half,
        ax.max(bx) + half,
        ay.max(by) + half,
    );
    // Whether (sx, sy) is covered: its fraction along the major axis in
    // [0, 1), its minor-axis distance to the segment below half the width.
    let covered = |sx: i64, sy: i64| {
        let (major_s, major_a, major_d, minor_s, minor_a, minor_d) = if y_major {
            (sy, ay, dy, sx, ax, dx)
        } else {
            (sx, ax, dx, sy, ay, dy)
        };
        let along = (major_s - major_a) * major_d.signum();
        let t = (major_s - major_a) as f64 / major_d as f64;
        let minor_on_line = minor_a as f64 + t * minor_d as f64;
        let dist = minor_s as f64 - minor_on_line;
        along >= 0 && along < major_d.abs() && dist >= -(half as f64) && dist < half as f64
    };
    // Attributes and depth use the spec's t = ((p − a)·(b − a)) / |b − a|²
    // ("Basic Line Segment Rasterization"), clamped to the segment.
    let length2 = (dx as f64) * (dx as f64) + (dy as f64) * (dy as f64);
    let project = |sx: i64, sy: i64| {
        (((sx - ax) as f64 * dx as f64 + (sy - ay) as f64 * dy as f64) / length2).clamp(0.0, 1.0)
    };
    let depth = |t: f64| ((1.0 - t) * f64::from(a.z) + t * f64::from(b.z)) as f32;
    for py in y0..=y1 {
        for px in x0..=x1 {
            let mut mask = 0u32;
            let mut z = [0.0f32; MAX_SAMPLES];
            for (s, &(ox, oy)) in samples.iter().enumerate().take(MAX_SAMPLES) {
                let (sx, sy) = (i64::from(px) * ONE + ox, i64::from(py) * ONE + oy);
                if covered(sx, sy) {
                    mask |= 1 << s;
                    z[s] = depth(project(sx, sy));
                }
            }
            if mask == 0 {
                continue;
            }
            let t = project(centre(px), centre(py));
            out.push(Fragment {
                x: px,
                y: py,
                bary: perspective([1.0 - t, t, 0.0], [a.inv_w, b.inv_w, 1.0]),
                mask,
                z,
                centre: centre_of([1.0 - t, t, 0.0], [a, b, b]),
            });
        }
    }
}

/// The weights of triangle `v`'s vertices at the centre of pixel (`px`,
/// `py`), covered or not (the plane equations extend past the edges: what
/// a helper invocation of the pixel's quad interpolates with); the same
/// arithmetic as [`triangle`]'s, with the depth and 1/w there
/// ([`Fragment::centre`]). A triangle [`triangle`] drops (a vertex
/// outside the guard band, zero area) gives the first vertex's weights.
pub fn triangle_weights(v: &[Vertex; 3], px: u32, py: u32) -> ([f32; 3], [f32; 2]) {
    triangle_weights_at(v, px, py, (HALF, HALF))
}

/// [`triangle_weights`] at `offset` (1/256 pixel from the pixel's
/// upper-left corner, a sample position) instead of the centre.
pub fn triangle_weights_at(
    v: &[Vertex; 3],
    px: u32,
    py: u32,
    offset: (i64, i64),
) -> ([f32; 3], [f32; 2]) {
    Weights::triangle(v).at(px, py, offset)
}

/// A primitive's weights at any pixel, covered or not
/// ([`triangle_weights_at`], [`line_weights_at`]), with its clipping done
/// once: the fragment job asks for every helper pixel and every sample.
pub enum Weights {
    /// Unclipped: the primitive's own plane (or line).
    Triangle([Vertex; 3]),
    Line(Vertex, Vertex),
    /// Clipped: a triangle of the fan (any one's plane extends to every
    /// pixel: the largest's) or the clipped segment, whose weights are
    /// composed onto the original vertices, depth and 1/w from those.
    ClippedTriangle([Vertex; 3], [clip::ClipVertex; 3], [Vertex; 3]),
    ClippedLine([clip::ClipVertex; 2], [Vertex; 2]),
    /// The first vertex's weights: a point, or a primitive with nothing
    /// visible.
    First(Vertex),
}

impl Weights {
    pub fn triangle(v: &[Vertex; 3]) -> Weights {
        if !clip::needs_clip(v) {
            return Weights::Triangle(*v);
        }
        let poly = clip::triangle(v);
        let best = (1..poly.len().saturating_sub(1)).max_by(|&i, &j| {
            let area = |k: usize| doubled_area(&[poly[0].v, poly[k].v, poly[k + 1].v]).abs();
            area(i).total_cmp(&area(j))
        });
        match best {
            Some(i) => {
                let corners = [poly[0], poly[i], poly[i + 1]];
                Weights::ClippedTriangle(corners.map(|c| c.v), corners, *v)
            }
            None => Weights::First(v[0]),
        }
    }

    pub fn line(a: &Vertex, b: &Vertex) -> Weights {
        if !clip::needs_clip(&[*a, *b]) {
            return Weights::Line(*a, *b);
        }
        match clip::line(a, b) {
            Some(ends) => Weights::ClippedLine(ends, [*a, *b]),
            None => Weights::First(*a),
        }
    }

    /// The weights at `offset` (1/256 pixel) in pixel (`px`, `py`), with
    /// the depth and 1/w there.
    pub fn at(&self, px: u32, py: u32, offset: (i64, i64)) -> ([f32; 3], [f32; 2]) {
        match self {
            Weights::Triangle(v) => unclipped_weights_at(v, px, py, offset),
            Weights::Line(a, b) => unclipped_line_weights_at(a, b, px, py, offset),
            Weights::ClippedTriangle(tri, corners, v) => {
                let (b, _) = unclipped_weights_at(tri, px, py, offset);
                let bary = clip::compose(b, &corners.each_ref());
                let (z, inv_w) = clip::depth_and_inv_w(v, bary);
                (bary, [z, inv_w])
            }
            Weights::ClippedLine(ends, v) => {
                let (b, _) = unclipped_line_weights_at(&ends[0].v, &ends[1].v, px, py, offset);
                let bary = clip::compose(b, &ends.each_ref());
                let (z, inv_w) = clip::depth_and_inv_w(v, bary);
                (bary, [z, inv_w])
            }
            Weights::First(v) => ([1.0, 0.0, 0.0], [v.z, v.inv_w]),
        }
    }
}

fn unclipped_weights_at(
    v: &[Vertex; 3],
    px: u32,
    py: u32,
    offset: (i64, i64),
) -> ([f32; 3], [f32; 2]) {
    let first = ([1.0, 0.0, 0.0], [v[0].z, v[0].inv_w]);
    let mut p = [(0i64, 0i64); 3];
    for i in 0..3 {
        match (snap(v[i].x), snap(v[i].y)) {
            (Some(x), Some(y)) => p[i] = (x, y),
            _ => return first,
        }
    }
    let cross = |a: (i64, i64), b: (i64, i64), c: (i64, i64)| {
        (b.0 - a.0) as i128 * (c.1 - a.1) as i128 - (b.1 - a.1) as i128 * (c.0 - a.0) as i128
    };
    let area = cross(p[0], p[1], p[2]);
    if area == 0 {
        return first;
    }
    let sign: i128 = if area > 0 { 1 } else { -1 };
    let c = (
        i64::from(px) * ONE + offset.0,
        i64::from(py) * ONE + offset.1,
    );
    let linear: [f64; 3] = std::array::from_fn(|i| {
        (cross(p[(i + 1) % 3], p[(i + 2) % 3], c) * sign) as f64 / (area * sign) as f64
    });
    (
        perspective(linear, [v[0].inv_w, v[1].inv_w, v[2].inv_w]),
        centre_of(linear, [&v[0], &v[1], &v[2]]),
    )
}

/// The weights of line `a`–`b` at the centre of pixel (`px`, `py`), covered
/// or not: [`line`]'s t of the centre (clamped to the segment), with the
/// depth and 1/w there.
pub fn line_weights(a: &Vertex, b: &Vertex, px: u32, py: u32) -> ([f32; 3], [f32; 2]) {
    line_weights_at(a, b, px, py, (HALF, HALF))
}

/// [`line_weights`] at `offset` (1/256 pixel from the pixel's upper-left
/// corner) instead of the centre.
pub fn line_weights_at(
    a: &Vertex,
    b: &Vertex,
    px: u32,
    py: u32,
    offset: (i64, i64),
) -> ([f32; 3], [f32; 2]) {
    Weights::line(a, b).at(px, py, offset)
}

fn unclipped_line_weights_at(
    a: &Vertex,
    b: &Vertex,
    px: u32,
    py: u32,
    offset: (i64, i64),
) -> ([f32; 3], [f32; 2]) {
    let first = ([1.0, 0.0, 0.0], [a.z, a.inv_w]);
    let (Some(ax), Some(ay), Some(bx), Some(by)) = (snap(a.x), snap(a.y), snap(b.x), snap(b.y))
    else {
        return first;
    };
    let (dx, dy) = (bx - ax, by - ay);
    let length2 = (dx as f64) * (dx as f64) + (dy as f64) * (dy as f64);
    if length2 == 0.0 {
        return first;
    }
    let (sx, sy) = (
        i64::from(px) * ONE + offset.0,
        i64::from(py) * ONE + offset.1,
    );
    let t =
        (((sx - ax) as f64 * dx as f64 + (sy - ay) as f64 * dy as f64) / length2).clamp(0.0, 1.0);
    (
        perspective([1.0 - t, t, 0.0], [a.inv_w, b.inv_w, 1.0]),
        centre_of([1.0 - t, t, 0.0], [a, b, b]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vx(x: f32, y: f32) -> Vertex {
        Vertex {
            x,
            y,
            z: 0.5,
            inv_w: 1.0,
        }
    }

    #[test]
    fn tie_break_rule_2_takes_left_and_bottom_edges() {
        let rule = TieBreak(2);
        // A square of two triangles from (0,0) to (4,4) with the diagonal
        // through pixel centres: every centre covered exactly once.
        let rect = [0, 0, 7, 7];
        let mut a = Vec::new();
        let mut b = Vec::new();
        triangle(
            &[vx(0.5, 0.5), vx(4.5, 0.5), vx(4.5, 4.5)],
            rule,
            &CENTRE,
            rect,
            &mut a,
        );
        triangle(
            &[vx(0.5, 0.5), vx(4.5, 4.5), vx(0.5, 4.5)],
            rule,
            &CENTRE,
            rect,
            &mut b,
        );
        let mut count = [[0u8; 8]; 8];
        for f in a.iter().chain(&b) {
            count[f.y as usize][f.x as usize] += 1;
        }
        for (y, row) in count.iter().enumerate() {
            for (x, &n) in row.iter().enumerate() {
                let inside = (0..=4).contains(&x) && (0..=4).contains(&y);
                // The outer edges run through centres: rule 2 keeps the left
                // (x = 0.5, interior to +x) and bottom (y = 4.5) edges, drops
                // the top and right ones.
                let expect = inside && x < 4 && y > 0;
                assert_eq!(n, u8::from(expect), "pixel ({x}, {y})");
            }
        }
        // Rule 0 (the complement for horizontal edges) takes the top edge
        // instead of the bottom one.
        let mut c = Vec::new();
        triangle(
            &[vx(0.5, 0.5), vx(4.5, 0.5), vx(4.5, 4.5)],
            TieBreak(0),
            &CENTRE,
            rect,
            &mut c,
        );
        assert!(c.iter().any(|f| f.y == 0));
        assert!(!a.iter().any(|f| f.y == 0));
        // Every rule covers a shared edge once, whatever the winding.
        for r in 0..8 {
            let rule = TieBreak(r);
            for (dx, dy) in [(1, 0), (0, 1), (3, -2), (-5, 7)] {
                assert_ne!(rule.includes(dx, dy), rule.includes(-dx, -dy), "rule {r}");
            }
        }
    }

    #[test]
    fn interpolation_is_perspective_correct() {
        // Vertex 1 has w = 4: at the screen-space midpoint of edge 0-1 the
        // perspective weight of vertex 1 is (0.5/4) / (0.5 + 0.5/4) = 0.2.
        let v = [
            Vertex {
                x: 0.0,
                y: 0.0,
                z: 0.0,
                inv_w: 1.0,
            },
            Vertex {
                x: 16.0,
                y: 0.0,
                z: 1.0,
                inv_w: 0.25,
            },
            Vertex {
                x: 0.0,
                y: 16.0,
                z: 0.0,
                inv_w: 1.0,
            },
        ];
        let mut out = Vec::new();
        triangle(&v, TieBreak(2), &CENTRE, [0, 0, 15, 15], &mut out);
        let f = out.iter().find(|f| f.x == 7 && f.y == 0).unwrap();
        // Centre (7.5, 0.5): linear weights (1 - 7.5/16 - 0.5/16, 7.5/16, 0.5/16).
        let l = [0.5, 7.5 / 16.0, 0.5 / 16.0];
        let q = [l[0], l[1] * 0.25, l[2]];
        let s: f64 = q.iter().sum();
        assert!((f64::from(f.bary[1]) - q[1] / s).abs() < 1e-6);
        assert!((f64::from(f.z[0]) - l[1]).abs() < 1e-6, "depth is linear");
    }

    #[test]
    fn points_and_lines() {
        let mut out = Vec::new();
        point(&vx(8.0, 8.0), 4.0, &CENTRE, [0, 0, 63, 63], &mut out);
        let xs: Vec<u32> = out.iter().filter(|f| f.y == 6).map(|f| f.x).collect();
        assert_eq!(xs, vec![6, 7, 8, 9]);
        assert_eq!(out.len(), 16);
        // A y-major line: one pixel per row over [y0, y1).
        let mut l = Vec::new();
        line(
            &vx(8.0, 32.0),
            &vx(24.0, 56.0),
            1.0,
            &CENTRE,
            [0, 0, 63, 63],
            &mut l,
        );
        assert_eq!(l.len(), 24);
        for f in &l {
            let x_on = 8.0 + (f64::from(f.y) + 0.5 - 32.0) * 16.0 / 24.0;
            assert!((f64::from(f.x) + 0.5 - x_on).abs() <= 0.5, "{f:?}");
        }
    }

    /// Vulkan's standard 4× locations in 1/256 pixel (what
    /// `jm::framebuffer::SampleLocations::rotated_4x` puts in the table).
    const FOUR: [(i64, i64); 4] = [(96, 32), (224, 96), (32, 160), (160, 224)];

    /// Random meshes at 4×: a 6×6 grid of cells over a 24×24-pixel square,
    /// interior vertices jittered by up to half a pixel (every cell stays
    /// convex) on the 1/8-pixel grid (the grid the
    /// samples lie on, so edges and vertices fall on samples), each cell
    /// split by a random diagonal, random winding: every sample of the
    /// square is covered exactly once, whatever the tie-break rule, and
    /// depth is the plane's at each sample.
    #[test]
    fn meshes_cover_every_4x_sample_once() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let (cells, side) = (6usize, 4.0f32);
        let mut on_sample = 0;
        for round in 0..40 {
            let rule = TieBreak(round % 8);
            let n = cells + 1;
            let mut grid = vec![(0.0f32, 0.0f32); n * n];
            for j in 0..n {
                for i in 0..n {
                    let jitter = |k: usize, r: &mut dyn FnMut(u64) -> u64| {
                        if k == 0 || k == cells {
                            0.0
                        } else {
                            (r(9) as f32 - 4.0) / 8.0
                        }
                    };
                    grid[j * n + i] = (
                        i as f32 * side + jitter(i, &mut next),
                        j as f32 * side + jitter(j, &mut next),
                    );
                }
            }
            let mut count = vec![0u8; 24 * 24 * 4];
            for j in 0..cells {
                for i in 0..cells {
                    let c = [
                        j * n + i,
                        j * n + i + 1,
                        (j + 1) * n + i + 1,
                        (j + 1) * n + i,
                    ];
                    let tris = if next(2) == 0 {
                        [[c[0], c[1], c[2]], [c[0], c[2], c[3]]]
                    } else {
                        [[c[0], c[1], c[3]], [c[1], c[2], c[3]]]
                    };
                    for mut t in tris {
                        if next(2) == 0 {
                            t.swap(1, 2);
                        }
                        let v = t.map(|k| Vertex {
                            x: grid[k].0,
                            y: grid[k].1,
                            z: 0.25 + grid[k].0 / 64.0,
                            inv_w: 1.0,
                        });
                        let mut out = Vec::new();
                        triangle(&v, rule, &FOUR, [0, 0, 23, 23], &mut out);
                        for f in &out {
                            for (s, &(ox, oy)) in FOUR.iter().enumerate() {
                                if f.mask & (1 << s) == 0 {
                                    continue;
                                }
                                count[((f.y * 24 + f.x) * 4) as usize + s] += 1;
                                let sx = f.x as f32 + ox as f32 / 256.0;
                                assert!((f.z[s] - (0.25 + sx / 64.0)).abs() < 1e-6);
                                let (px, py) =
                                    (i64::from(f.x) * 256 + ox, i64::from(f.y) * 256 + oy);
                                let snapped =
                                    v.map(|p| ((p.x * 256.0) as i64, (p.y * 256.0) as i64));
                                on_sample += usize::from((0..3).any(|e| {
                                    let (a, b) = (snapped[e], snapped[(e + 1) % 3]);
                                    (b.0 - a.0) * (py - a.1) == (b.1 - a.1) * (px - a.0)
                                }));
                            }
                        }
                    }
                }
            }
            assert!(count.iter().all(|&c| c == 1), "round {round}: {count:?}");
        }
        assert!(on_sample > 500, "only {on_sample} samples on edges");
    }
}
