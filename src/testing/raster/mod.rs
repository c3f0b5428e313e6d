//! A reference rasterizer written from the Vulkan specification's
//! "Rasterization" chapter (Vulkan 1.3, chapter 28, `chapters/primsrast.adoc`)
//! and the per-sample operations of "Fragment Operations" / "The Framebuffer"
//! (depth test, blending: [`ops`]). It is the oracle the simulator's tiler and
//! fragment jobs will be checked against, so it shares nothing with the
//! simulator: it takes vertices already in framebuffer coordinates (after
//! clipping and the viewport transform, [`viewport_transform`]) and produces
//! fragments and samples.
//!
//! What it implements, with the spec's rules:
//! - **Sample locations**: the "standard sample locations" table for 1 and 4
//!   samples ([`sample_locations`]); a fragment's samples are offsets from its
//!   upper-left corner.
//! - **Polygons** ("Basic Polygon Rasterization"): facing from the sign of
//!   `a = -1/2 Σ (x_i y_{i⊕1} - x_{i⊕1} y_i)` (positive = front with
//!   `VK_FRONT_FACE_COUNTER_CLOCKWISE`; zero area is back-facing), culling,
//!   and coverage by point sampling: a sample is covered when it is inside the
//!   triangle. The spec requires that a sample on an edge shared by two
//!   triangles is covered by exactly one of them; we meet it with the
//!   top-left rule ([`FillRule::TopLeft`]): a sample on an edge is covered
//!   only if the edge is a top edge (horizontal, interior below it, framebuffer
//!   y pointing down) or a left edge (interior to its right).
//!   Vertex positions are snapped to a grid of [`SUBPIXEL_BITS`] fractional
//!   bits (`VkPhysicalDeviceLimits::subPixelPrecisionBits`) so that coverage
//!   is decided in exact integer arithmetic.
//! - **Barycentric interpolation**: `(a, b, c)` from sub-triangle areas at the
//!   evaluation point; perspective-correct
//!   `f = (a f_a/w_a + b f_b/w_b + c f_c/w_c) / (a/w_a + b/w_b + c/w_c)`,
//!   `NoPerspective` `f = a f_a + b f_b + c f_c`, `Flat` the provoking
//!   vertex's value; depth `z = a z_a + b z_b + c z_c` at each sample.
//! - **Lines** (`VK_LINE_RASTERIZATION_MODE_DEFAULT` with `strictLines` false,
//!   as "Basic Line Segment Rasterization" allows): the non-strict
//!   parallelogram: the major axis is the one with the larger extent (x on a
//!   tie), two edges of length `lineWidth` along the minor axis centred on the
//!   end points, coverage as for polygons. Attributes use
//!   `t = ((p - p_a)·(p_b - p_a)) / |p_b - p_a|²`, perspective-corrected the
//!   same way, depth `z = (1-t) z_a + t z_b`.
//! - **Points** ("Basic Point Rasterization"): a square of side `PointSize`
//!   centred on the vertex; samples inside it are covered (edges by the same
//!   fill rule); `PointCoord = (1/2 + (x_f - x_p)/size, 1/2 + (y_f - y_p)/size)`
//!   at the fragment centre; every attribute is the vertex's.
//!
//! This module must never read GPU memory or hardware descriptors.

pub mod ops;

#[cfg(test)]
mod tests;

/// Fractional bits of the vertex position grid (`subPixelPrecisionBits`).
pub const SUBPIXEL_BITS: u32 = 8;
const ONE: i64 = 1 << SUBPIXEL_BITS;

/// A position on the sub-pixel grid, in units of `1 / 2^SUBPIXEL_BITS` pixel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fixed {
    pub x: i64,
    pub y: i64,
}

impl Fixed {
    /// Snap framebuffer coordinates to the grid (round to nearest).
    pub fn snap(x: f64, y: f64) -> Fixed {
        Fixed {
            x: (x * ONE as f64).round() as i64,
            y: (y * ONE as f64).round() as i64,
        }
    }

    pub fn to_f64(self) -> (f64, f64) {
        (self.x as f64 / ONE as f64, self.y as f64 / ONE as f64)
    }
}

/// The standard sample locations of a sample count, as offsets in pixels from
/// the fragment's upper-left corner ("Standard sample locations" table).
pub fn sample_locations(samples: u32) -> &'static [(f64, f64)] {
    match samples {
        1 => &[(0.5, 0.5)],
        4 => &[
            (0.375, 0.125),
            (0.875, 0.375),
            (0.125, 0.625),
            (0.625, 0.875),
        ],
        _ => panic!("standard sample locations implemented for 1 and 4 samples"),
    }
}

/// A vertex after clipping and the viewport transform: framebuffer `x`, `y`,
/// depth `z`, the clip-space `w` (for perspective correction) and its
/// attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct Vertex {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub w: f64,
    pub attrs: Vec<f64>,
}

/// A viewport ("Controlling the Viewport"): `x`, `y`, `width`, `height`,
/// `minDepth`, `maxDepth`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub min_depth: f64,
    pub max_depth: f64,
}

/// Clip coordinates → framebuffer coordinates: the perspective division to
/// normalized device coordinates, then `x_f = (p_x/2) x_d + o_x` with
/// `o_x = x + width/2`, `p_x = width` (likewise y), `z_f = p_z z_d + o_z` with
/// `p_z = maxDepth - minDepth`, `o_z = minDepth`.
pub fn viewport_transform(clip: [f64; 4], vp: &Viewport, attrs: Vec<f64>) -> Vertex {
    let w = clip[3];
    let (xd, yd, zd) = (clip[0] / w, clip[1] / w, clip[2] / w);
    Vertex {
        x: vp.width / 2.0 * xd + vp.x + vp.width / 2.0,
        y: vp.height / 2.0 * yd + vp.y + vp.height / 2.0,
        z: (vp.max_depth - vp.min_depth) * zd + vp.min_depth,
        w,
        attrs,
    }
}

/// A vertex in clip coordinates with its attributes.
pub type ClipVertex = ([f64; 4], Vec<f64>);

/// "Primitive Clipping": the polygon `v` (a triangle, or any convex
/// polygon) clipped to the view volume `−w_c ≤ x_c ≤ w_c`,
/// `−w_c ≤ y_c ≤ w_c`, `0 ≤ z_c ≤ w_c` (without depth clamping; with it,
/// `depth_clamp`, the two z planes are not applied). Each plane in turn
/// (Sutherland–Hodgman): a new vertex where an edge from P₁ (inside) to
/// P₂ (outside) meets the plane is `P = t P₁ + (1 − t) P₂` in clip
/// coordinates, its attributes by the same `t` (the spec's rule for
/// "the value of t … used to clip color, texture coordinates"). Returns
/// the clipped polygon in order; fewer than three vertices: nothing
/// visible. For a line pass the two end points: the result is the
/// clipped segment (or fewer than two points).
pub fn clip_polygon(v: &[ClipVertex], depth_clamp: bool) -> Vec<ClipVertex> {
    let planes: [fn(&[f64; 4]) -> f64; 6] = [
        |c| c[3] - c[0],
        |c| c[3] + c[0],
        |c| c[3] - c[1],
        |c| c[3] + c[1],
        |c| c[2],
        |c| c[3] - c[2],
    ];
    let used = if depth_clamp { 4 } else { 6 };
    let mix = |a: &ClipVertex, da: f64, b: &ClipVertex, db: f64| -> ClipVertex {
        // a inside (da ≥ 0), b outside (db < 0): t weighs a.
        let t = db / (db - da);
        (
            std::array::from_fn(|i| t * a.0[i] + (1.0 - t) * b.0[i]),
            a.1.iter()
                .zip(&b.1)
                .map(|(x, y)| t * x + (1.0 - t) * y)
                .collect(),
        )
    };
    let mut poly: Vec<ClipVertex> = v.to_vec();
    let closed = poly.len() > 2;
    for d in &planes[..used] {
        let n = poly.len();
        if n == 0 {
            break;
        }
        let mut out = Vec::with_capacity(n + 1);
        if !closed {
            // A segment: keep the inside part.
            let (da, db) = (d(&poly[0].0), d(&poly[1].0));
            match (da >= 0.0, db >= 0.0) {
                (true, true) => out = poly.clone(),
                (false, false) => {}
                (true, false) => out = vec![poly[0].clone(), mix(&poly[0], da, &poly[1], db)],
                (false, true) => out = vec![mix(&poly[1], db, &poly[0], da), poly[1].clone()],
            }
            poly = out;
            continue;
        }
        for i in 0..n {
            let (prev, cur) = (&poly[(i + n - 1) % n], &poly[i]);
            let (dp, dc) = (d(&prev.0), d(&cur.0));
            if dc >= 0.0 {
                if dp < 0.0 {
                    out.push(mix(cur, dc, prev, dp));
                }
                out.push(cur.clone());
            } else if dp >= 0.0 {
                out.push(mix(prev, dp, cur, dc));
            }
        }
        poly = out;
    }
    poly
}

/// How a sample exactly on an edge is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FillRule {
    /// Covered on top and left edges only (see the module documentation).
    #[default]
    TopLeft,
}

impl FillRule {
    /// Whether samples on an edge running `(dx, dy)` belong to the primitive
    /// whose interior is on the edge's positive side (the side where
    /// [`edge`] is positive). For every direction exactly one of `(dx, dy)`
    /// and `(-dx, -dy)` owns its samples, which is what makes two triangles
    /// sharing an edge cover each sample on it once.
    pub fn owns(self, dx: i64, dy: i64) -> bool {
        match self {
            // With y down and the interior on the positive side, a top edge
            // runs towards +x and a left edge runs upwards (towards -y).
            FillRule::TopLeft => dy < 0 || (dy == 0 && dx > 0),
        }
    }
}

/// Twice the signed area of the triangle `a, b, p`, on the grid:
/// `(b - a) × (p - a)`; positive when `p` is on the interior side of `a → b`
/// for a triangle of positive [`Fixed`] orientation.
fn edge(a: Fixed, b: Fixed, p: Fixed) -> i128 {
    i128::from(b.x - a.x) * i128::from(p.y - a.y) - i128::from(b.y - a.y) * i128::from(p.x - a.x)
}

/// The spec's polygon area `a = -1/2 Σ (x_i y_{i⊕1} - x_{i⊕1} y_i)` in
/// framebuffer coordinates (positive: front-facing with
/// `VK_FRONT_FACE_COUNTER_CLOCKWISE`).
pub fn signed_area(p: &[(f64, f64)]) -> f64 {
    let n = p.len();
    -0.5 * (0..n)
        .map(|i| {
            let (a, b) = (p[i], p[(i + 1) % n]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum::<f64>()
}

/// Which samples of which pixels a triangle on the grid covers: calls
/// `cover(x, y, mask)` once per pixel with at least one covered sample (bit
/// `i` = sample `i` of [`sample_locations`]), pixels inside `0..width` ×
/// `0..height` only. Vertex order and winding do not matter; a zero-area
/// triangle covers nothing.
pub fn cover_triangle(
    v: [Fixed; 3],
    samples: u32,
    rule: FillRule,
    width: u32,
    height: u32,
    mut cover: impl FnMut(u32, u32, u32),
) {
    let mut v = v;
    let area = edge(v[0], v[1], v[2]);
    if area == 0 {
        return;
    }
    if area < 0 {
        v.swap(1, 2);
    }
    let edges = [(v[0], v[1]), (v[1], v[2]), (v[2], v[0])];
    let owns = edges.map(|(a, b)| rule.owns(b.x - a.x, b.y - a.y));
    let locs: Vec<(i64, i64)> = sample_locations(samples)
        .iter()
        .map(|&(sx, sy)| ((sx * ONE as f64) as i64, (sy * ONE as f64) as i64))
        .collect();
    let min_x = v.iter().map(|p| p.x).min().unwrap().div_euclid(ONE).max(0);
    let max_x = (v.iter().map(|p| p.x).max().unwrap().div_euclid(ONE) + 1).min(i64::from(width));
    let min_y = v.iter().map(|p| p.y).min().unwrap().div_euclid(ONE).max(0);
    let max_y = (v.iter().map(|p| p.y).max().unwrap().div_euclid(ONE) + 1).min(i64::from(height));
    for py in min_y..max_y {
        for px in min_x..max_x {
            let mut mask = 0;
            for (i, &(sx, sy)) in locs.iter().enumerate() {
                let p = Fixed {
                    x: px * ONE + sx,
                    y: py * ONE + sy,
                };
                let inside = edges.iter().zip(owns).all(|(&(a, b), own)| {
                    let e = edge(a, b, p);
                    e > 0 || (e == 0 && own)
                });
                if inside {
                    mask |= 1 << i;
                }
            }
            if mask != 0 {
                cover(px as u32, py as u32, mask);
            }
        }
    }
}

/// Barycentric coordinates `(a, b, c)` of the point `(x, y)` in the triangle
/// `v` (framebuffer coordinates): each is the area of the sub-triangle
/// opposite its vertex over the whole area.
pub fn barycentric(v: [(f64, f64); 3], x: f64, y: f64) -> [f64; 3] {
    let area = |p: (f64, f64), q: (f64, f64), r: (f64, f64)| {
        (q.0 - p.0) * (r.1 - p.1) - (q.1 - p.1) * (r.0 - p.0)
    };
    let total = area(v[0], v[1], v[2]);
    [
        area((x, y), v[1], v[2]) / total,
        area(v[0], (x, y), v[2]) / total,
        area(v[0], v[1], (x, y)) / total,
    ]
}

/// How a fragment shader input is interpolated (SPIR-V decorations).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Interpolation {
    /// Perspective-correct (no decoration).
    #[default]
    Smooth,
    /// `NoPerspective`: linear in framebuffer space.
    NoPerspective,
    /// `Flat`: the provoking vertex's value.
    Flat,
}

/// Interpolate attribute values `f` of vertices with clip `w` at weights
/// `bary` (triangles: barycentrics; lines: `[1 - t, t]`).
pub fn interpolate(
    bary: &[f64],
    w: &[f64],
    f: &[f64],
    mode: Interpolation,
    provoking: usize,
) -> f64 {
    match mode {
        Interpolation::Flat => f[provoking],
        Interpolation::NoPerspective => bary.iter().zip(f).map(|(b, f)| b * f).sum(),
        Interpolation::Smooth => {
            let num: f64 = bary.iter().zip(w).zip(f).map(|((b, w), f)| b * f / w).sum();
            let den: f64 = bary.iter().zip(w).map(|(b, w)| b / w).sum();
            num / den
        }
    }
}

/// Primitive-level state of a draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RasterState {
    pub samples: u32,
    pub cull_front: bool,
    pub cull_back: bool,
    /// `VK_FRONT_FACE_COUNTER_CLOCKWISE` when true.
    pub front_ccw: bool,
    pub line_width: f64,
    pub point_size: f64,
    pub fill_rule: FillRule,
    /// The provoking vertex is the first (Vulkan's default) or the last.
    pub provoking_first: bool,
}

impl Default for RasterState {
    fn default() -> RasterState {
        RasterState {
            samples: 1,
            cull_front: false,
            cull_back: false,
            front_ccw: true,
            line_width: 1.0,
            point_size: 1.0,
            fill_rule: FillRule::TopLeft,
            provoking_first: true,
        }
    }
}

/// One fragment of a primitive: its pixel, covered samples, the depth at
/// each sample, and its inputs evaluated at the fragment centre.
#[derive(Clone, Debug, PartialEq)]
pub struct Fragment {
    pub x: u32,
    pub y: u32,
    /// Bit `i`: sample `i` covered.
    pub mask: u32,
    /// Depth at each sample location (meaningful for covered samples).
    pub depth: Vec<f64>,
    pub front_facing: bool,
    /// The attributes at the fragment centre, each interpolated its way.
    pub attrs: Vec<f64>,
    /// `PointCoord` (points only).
    pub point_coord: Option<(f64, f64)>,
    /// The attributes at each sample location (index = sample), each
    /// interpolated its way: what `Sample` and `Centroid` inputs read.
    /// Points: the attributes themselves.
    pub sample_attrs: Vec<Vec<f64>>,
    /// Under sample shading, the sample this invocation runs for
    /// (`SampleId`; its `mask` is that sample's bit alone); `None` for an
    /// invocation per pixel.
    pub sample: Option<u32>,
}

impl Fragment {
    /// The invocations of the fragment under sample shading (the Vulkan
    /// spec's "Sample Shading" with `minSampleShading` 1.0, or a shader
    /// using `SampleId`/`SamplePosition`/a `Sample` input): one per covered
    /// sample, in sample order, each covering its own sample only
    /// ("SampleMask": the invocation's coverage).
    pub fn per_sample(&self) -> Vec<Fragment> {
        (0..32)
            .filter(|s| self.mask & (1u32 << s) != 0)
            .map(|s| Fragment {
                mask: 1 << s,
                sample: Some(s),
                ..self.clone()
            })
            .collect()
    }

    /// The attributes a `Sample`-decorated input reads: at the shaded
    /// sample's location (sample 0's without sample shading, which our
    /// compiler never leaves such a shader: a `Sample` input turns sample
    /// shading on).
    pub fn sample_inputs(&self) -> &[f64] {
        let s = self.sample.unwrap_or(0) as usize;
        self.sample_attrs.get(s).map_or(&self.attrs, |a| a)
    }

    /// The attributes a `Centroid`-decorated input reads, among the
    /// locations the spec's "Interpolation Decorations" allows (a point
    /// of the pixel covered by the primitive; with every sample covered
    /// it may be the centre). Our choice, which the simulator makes too:
    /// every sample of the pixel (of `samples`) covered by this
    /// invocation → the centre; otherwise the location of its
    /// lowest-numbered covered sample.
    pub fn centroid_inputs(&self, samples: u32) -> &[f64] {
        let all = if samples >= 32 {
            u32::MAX
        } else {
            (1u32 << samples) - 1
        };
        let m = self.mask & all;
        if m == all || m == 0 {
            return &self.attrs;
        }
        let s = m.trailing_zeros() as usize;
        self.sample_attrs.get(s).map_or(&self.attrs, |a| a)
    }

    /// `SamplePosition` of the shaded sample: its standard location in the
    /// pixel ("Standard Sample Locations"), (0.5, 0.5) at one sample.
    pub fn sample_position(&self, samples: u32) -> (f64, f64) {
        let locs = sample_locations(samples);
        locs[(self.sample.unwrap_or(0) as usize).min(locs.len() - 1)]
    }
}

/// The fragments of a triangle (none if culled or of zero area), in raster
/// order; `interp[i]` says how attribute `i` is interpolated.
pub fn rasterize_triangle(
    v: [&Vertex; 3],
    state: &RasterState,
    interp: &[Interpolation],
    width: u32,
    height: u32,
) -> Vec<Fragment> {
    let snapped = v.map(|p| Fixed::snap(p.x, p.y));
    let pos = snapped.map(Fixed::to_f64);
    let area = signed_area(&pos);
    let front = if state.front_ccw {
        area > 0.0
    } else {
        area < 0.0
    };
    if (front && state.cull_front) || (!front && state.cull_back) || area == 0.0 {
        return Vec::new();
    }
    let provoking = if state.provoking_first { 0 } else { 2 };
    let w = v.map(|p| p.w);
    let locs = sample_locations(state.samples);
    let mut out = Vec::new();
    cover_triangle(
        snapped,
        state.samples,
        state.fill_rule,
        width,
        height,
        |x, y, mask| {
            let (cx, cy) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
            let bary = barycentric(pos, cx, cy);
            let attrs = (0..v[0].attrs.len())
                .map(|i| {
                    let f = v.map(|p| p.attrs[i]);
                    interpolate(
                        &bary,
                        &w,
                        &f,
                        interp.get(i).copied().unwrap_or_default(),
                        provoking,
                    )
                })
                .collect();
            let depth = locs
                .iter()
                .map(|&(sx, sy)| {
                    let b = barycentric(pos, f64::from(x) + sx, f64::from(y) + sy);
                    b[0] * v[0].z + b[1] * v[1].z + b[2] * v[2].z
                })
                .collect();
            let sample_attrs = locs
                .iter()
                .map(|&(sx, sy)| {
                    let b = barycentric(pos, f64::from(x) + sx, f64::from(y) + sy);
                    (0..v[0].attrs.len())
                        .map(|i| {
                            let f = v.map(|p| p.attrs[i]);
                            let mode = interp.get(i).copied().unwrap_or_default();
                            interpolate(&b, &w, &f, mode, provoking)
                        })
                        .collect()
                })
                .collect();
            out.push(Fragment {
                x,
                y,
                mask,
                depth,
                front_facing: front,
                attrs,
                point_coord: None,
                sample_attrs,
                sample: None,
            });
        },
    );
    out
}

/// The coverage of a convex quadrilateral as two triangles sharing the
/// diagonal 0-2 (whose samples the fill rule gives to exactly one of them),
/// keyed by (y, x) so that iteration is in raster order.
fn cover_quad(
    quad: [Fixed; 4],
    state: &RasterState,
    width: u32,
    height: u32,
) -> std::collections::BTreeMap<(u32, u32), u32> {
    let mut masks = std::collections::BTreeMap::new();
    for tri in [[quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]] {
        cover_triangle(
            tri,
            state.samples,
            state.fill_rule,
            width,
            height,
            |x, y, m| {
                *masks.entry((y, x)).or_insert(0) |= m;
            },
        );
    }
    masks
}

/// The fragments of a line segment from `a` to `b` (non-strict parallelogram).
pub fn rasterize_line(
    a: &Vertex,
    b: &Vertex,
    state: &RasterState,
    interp: &[Interpolation],
    width: u32,
    height: u32,
) -> Vec<Fragment> {
    let (pa, pb) = (Fixed::snap(a.x, a.y), Fixed::snap(b.x, b.y));
    if pa == pb {
        return Vec::new();
    }
    let half = Fixed::snap(state.line_width / 2.0, 0.0).x;
    let x_major = (pb.x - pa.x).abs() >= (pb.y - pa.y).abs();
    let off = |p: Fixed, s: i64| {
        if x_major {
            Fixed {
                x: p.x,
                y: p.y + s * half,
            }
        } else {
            Fixed {
                x: p.x + s * half,
                y: p.y,
            }
        }
    };
    let quad = [off(pa, -1), off(pb, -1), off(pb, 1), off(pa, 1)];
    let (ax, ay) = pa.to_f64();
    let (bx, by) = pb.to_f64();
    let len2 = (bx - ax).powi(2) + (by - ay).powi(2);
    let provoking = if state.provoking_first { 0 } else { 1 };
    let locs = sample_locations(state.samples);
    let masks = cover_quad(quad, state, width, height);
    let t_at = |x: f64, y: f64| ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / len2;
    masks
        .into_iter()
        .map(|((y, x), mask)| {
            let t = t_at(f64::from(x) + 0.5, f64::from(y) + 0.5);
            let attrs = (0..a.attrs.len())
                .map(|i| {
                    let mode = interp.get(i).copied().unwrap_or_default();
                    interpolate(
                        &[1.0 - t, t],
                        &[a.w, b.w],
                        &[a.attrs[i], b.attrs[i]],
                        mode,
                        provoking,
                    )
                })
                .collect();
            let depth = locs
                .iter()
                .map(|&(sx, sy)| {
                    let t = t_at(f64::from(x) + sx, f64::from(y) + sy);
                    (1.0 - t) * a.z + t * b.z
                })
                .collect();
            let sample_attrs = locs
                .iter()
                .map(|&(sx, sy)| {
                    let t = t_at(f64::from(x) + sx, f64::from(y) + sy).clamp(0.0, 1.0);
                    (0..a.attrs.len())
                        .map(|i| {
                            let mode = interp.get(i).copied().unwrap_or_default();
                            interpolate(
                                &[1.0 - t, t],
                                &[a.w, b.w],
                                &[a.attrs[i], b.attrs[i]],
                                mode,
                                provoking,
                            )
                        })
                        .collect()
                })
                .collect();
            Fragment {
                x,
                y,
                mask,
                depth,
                front_facing: true,
                attrs,
                point_coord: None,
                sample_attrs,
                sample: None,
            }
        })
        .collect()
}

/// The fragments of a point of side `state.point_size`.
pub fn rasterize_point(p: &Vertex, state: &RasterState, width: u32, height: u32) -> Vec<Fragment> {
    let c = Fixed::snap(p.x, p.y);
    let half = Fixed::snap(state.point_size / 2.0, 0.0).x;
    let corner = |sx: i64, sy: i64| Fixed {
        x: c.x + sx * half,
        y: c.y + sy * half,
    };
    let quad = [corner(-1, -1), corner(1, -1), corner(1, 1), corner(-1, 1)];
    let masks = cover_quad(quad, state, width, height);
    let (cx, cy) = c.to_f64();
    let n = sample_locations(state.samples).len();
    masks
        .into_iter()
        .map(|((y, x), mask)| Fragment {
            x,
            y,
            mask,
            depth: vec![p.z; n],
            front_facing: true,
            attrs: p.attrs.clone(),
            point_coord: Some((
                0.5 + (f64::from(x) + 0.5 - cx) / state.point_size,
                0.5 + (f64::from(y) + 0.5 - cy) / state.point_size,
            )),
            sample_attrs: vec![p.attrs.clone(); n],
            sample: None,
        })
        .collect()
}
