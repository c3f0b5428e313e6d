//! Clipping in the simulated rasterizer: triangles and lines with a vertex
//! behind the eye (1/w ≤ 0) or outside the guard band.
//!
//! The position buffer holds what the vertex shader stored, `(x_f, y_f,
//! z_f, 1/w_c)` in framebuffer coordinates (Mesa's `nir_lower_viewport_
//! transform`, our `passes/lower_viewport.rs`); genxml has no clipping
//! field and Mesa's Bifrost drivers leave clipping to the tiler, so **how
//! the hardware clips is undocumented**. Our model, chosen to give what
//! the Vulkan spec's "Primitive Clipping" asks:
//! - the clip-space position is recovered up to a positive scale as the
//!   homogeneous point `H = (x_f·w, y_f·w, z_f·w, w)`, `w = 1 / (1/w_c)`
//!   (exact but for the f32 rounding of what the shader stored);
//! - the primitive is clipped (Sutherland–Hodgman, each new vertex
//!   computed from the inside vertex towards the outside one, so that two
//!   primitives sharing an edge get the same point) against the guard band
//!   `|X| ≤ G·W`, `|Y| ≤ G·W` — which keeps `W ≥ 0` — and `W ≥ ε`; what
//!   lies outside the viewport but inside the guard band is removed by the
//!   scissor, which the emitter intersects with the viewport, and depth
//!   outside the depth range by the Renderer State's near/far discard per
//!   sample: together the spec's clip volume `−w ≤ x, y ≤ w`, `0 ≤ z ≤ w`;
//! - the clipped polygon is rasterized as a fan of triangles with the
//!   unclipped rules ([`super::raster`]); each fragment's weights are then
//!   the original primitive's (a clip vertex is a clip-space combination
//!   of the original vertices, and perspective-correct weights are
//!   clip-space weights, so they compose exactly);
//! - a vertex whose stored position is not finite, or whose 1/w is 0
//!   (w_c = 0 exactly, or a NaN), cannot be recovered: the primitive is
//!   dropped.
//!
//! Primitives entirely in front of the eye and inside the guard band
//! never come here: their rasterization is unchanged.

use super::raster::{GUARD_BAND, Vertex};

/// The clipping guard band (pixels), half the rasterizer's, so that a
/// clip vertex rounded to f32 stays well inside it.
const BAND: f64 = GUARD_BAND as f64 / 2.0;

/// A vertex of a clipped polygon: its position and its weights of the
/// original primitive's vertices (clip-space, summing to 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipVertex {
    pub v: Vertex,
    pub weights: [f64; 3],
}

/// Whether a primitive with these vertices must be clipped before it is
/// rasterized (a vertex behind the eye or beyond the guard band).
pub fn needs_clip(v: &[Vertex]) -> bool {
    let inside = |p: &Vertex| p.inv_w > 0.0 && p.x.abs() <= BAND as f32 && p.y.abs() <= BAND as f32;
    v.iter().any(|p| !inside(p))
}

/// The homogeneous point of a stored position, or `None` if it cannot be
/// recovered.
fn homogeneous(p: &Vertex) -> Option<[f64; 4]> {
    let finite = p.x.is_finite() && p.y.is_finite() && p.z.is_finite() && p.inv_w.is_finite();
    if !finite || p.inv_w == 0.0 {
        return None;
    }
    let w = 1.0 / f64::from(p.inv_w);
    Some([
        f64::from(p.x) * w,
        f64::from(p.y) * w,
        f64::from(p.z) * w,
        w,
    ])
}

type Point = ([f64; 4], [f64; 3]);

/// `a` (inside, distance `da` ≥ 0) towards `b` (outside, `db` < 0) up to
/// the plane.
fn intersect(a: &Point, da: f64, b: &Point, db: f64) -> Point {
    let t = da / (da - db);
    (
        std::array::from_fn(|i| a.0[i] + t * (b.0[i] - a.0[i])),
        std::array::from_fn(|i| a.1[i] + t * (b.1[i] - a.1[i])),
    )
}

/// Clipping planes, in the order they are applied.
const PLANES: usize = 5;

/// The signed distance of `h` from clipping plane `plane` (inside when
/// ≥ 0): the four guard-band planes, then `W ≥ eps`.
fn distance(plane: usize, h: &[f64; 4], eps: f64) -> f64 {
    match plane {
        0 => BAND * h[3] - h[0],
        1 => BAND * h[3] + h[0],
        2 => BAND * h[3] - h[1],
        3 => BAND * h[3] + h[1],
        _ => h[3] - eps,
    }
}

/// The smallest W kept: a fixed fraction of the largest |W| of the
/// primitive, so that every projected coordinate stays finite.
fn epsilon(h: &[[f64; 4]]) -> f64 {
    h.iter().map(|p| p[3].abs()).fold(0.0, f64::max) * f64::from(2.0f32.powi(-40))
}

fn project(p: &Point) -> ClipVertex {
    let [x, y, z, w] = p.0;
    ClipVertex {
        v: Vertex {
            x: (x / w) as f32,
            y: (y / w) as f32,
            z: (z / w) as f32,
            inv_w: (1.0 / w) as f32,
        },
        weights: p.1,
    }
}

/// Triangle `v` clipped: the polygon's vertices in order (fewer than three:
/// nothing left to draw).
pub fn triangle(v: &[Vertex; 3]) -> Vec<ClipVertex> {
    let mut h = [[0.0; 4]; 3];
    for (k, p) in v.iter().enumerate() {
        match homogeneous(p) {
            Some(q) => h[k] = q,
            None => return Vec::new(),
        }
    }
    let mut poly: Vec<Point> = (0..3)
        .map(|k| {
            let mut w = [0.0; 3];
            w[k] = 1.0;
            (h[k], w)
        })
        .collect();
    let eps = epsilon(&h);
    for plane in 0..PLANES {
        let d = |h: &[f64; 4]| distance(plane, h, eps);
        let n = poly.len();
        if n == 0 {
            break;
        }
        let mut out = Vec::with_capacity(n + 1);
        for i in 0..n {
            let (prev, cur) = (&poly[(i + n - 1) % n], &poly[i]);
            let (dp, dc) = (d(&prev.0), d(&cur.0));
            if dc >= 0.0 {
                if dp < 0.0 {
                    out.push(intersect(cur, dc, prev, dp));
                }
                out.push(*cur);
            } else if dp >= 0.0 {
                out.push(intersect(prev, dp, cur, dc));
            }
        }
        poly = out;
    }
    if poly.len() < 3 {
        return Vec::new();
    }
    poly.iter().map(project).collect()
}

/// Line `a`–`b` clipped: its new end points (`None`: nothing left).
pub fn line(a: &Vertex, b: &Vertex) -> Option<[ClipVertex; 2]> {
    let (ha, hb) = (homogeneous(a)?, homogeneous(b)?);
    let mut p: Point = (ha, [1.0, 0.0, 0.0]);
    let mut q: Point = (hb, [0.0, 1.0, 0.0]);
    let eps = epsilon(&[ha, hb]);
    for plane in 0..PLANES {
        let d = |h: &[f64; 4]| distance(plane, h, eps);
        let (dp, dq) = (d(&p.0), d(&q.0));
        match (dp >= 0.0, dq >= 0.0) {
            (true, true) => {}
            (false, false) => return None,
            (true, false) => q = intersect(&p, dp, &q, dq),
            (false, true) => p = intersect(&q, dq, &p, dp),
        }
    }
    Some([project(&p), project(&q)])
}

/// Depth and 1/w at clip-space weights `bary` of the original vertices
/// `v` (two for a line, three for a triangle), from their homogeneous z
/// and w: a clip vertex far out in the guard band has a large depth, and
/// interpolating its f32 value would lose the depth's low bits.
pub fn depth_and_inv_w(v: &[Vertex], bary: [f32; 3]) -> (f32, f32) {
    let (z, w) = v.iter().zip(bary).fold((0.0, 0.0), |(z, w), (p, b)| {
        let (b, pw) = (f64::from(b), 1.0 / f64::from(p.inv_w));
        (z + b * f64::from(p.z) * pw, w + b * pw)
    });
    ((z / w) as f32, (1.0 / w) as f32)
}

/// Weights of the original vertices from weights `bary` of clip vertices
/// `corners`.
pub fn compose(bary: [f32; 3], corners: &[&ClipVertex]) -> [f32; 3] {
    let mut w = [0.0f64; 3];
    for (b, c) in bary.iter().zip(corners) {
        for (k, wk) in w.iter_mut().enumerate() {
            *wk += f64::from(*b) * c.weights[k];
        }
    }
    w.map(|x| x as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: f32, y: f32, z: f32, w: f32) -> Vertex {
        // The stored form of clip position (x, y, z, w) with an identity
        // viewport: framebuffer = NDC.
        Vertex {
            x: x / w,
            y: y / w,
            z: z / w,
            inv_w: 1.0 / w,
        }
    }

    #[test]
    fn a_triangle_in_front_is_not_clipped() {
        let v = [
            at(0.0, 0.0, 0.5, 1.0),
            at(8.0, 0.0, 0.5, 2.0),
            at(0.0, 8.0, 0.5, 4.0),
        ];
        assert!(!needs_clip(&v));
        let p = triangle(&v);
        assert_eq!(p.len(), 3);
        for (k, c) in p.iter().enumerate() {
            assert_eq!(c.v, v[k]);
            assert_eq!(c.weights[k], 1.0);
        }
    }

    #[test]
    fn a_vertex_behind_the_eye_is_cut_at_w_near_zero() {
        // (0, 0, ·, 1), (4, 0, ·, 1), (0, 0, ·, -1): the part with w > 0
        // is a quadrilateral whose far end runs towards the guard band.
        let v = [
            at(0.0, 0.0, 0.0, 1.0),
            at(4.0, 0.0, 0.0, 1.0),
            at(0.0, 4.0, 0.0, -1.0),
        ];
        assert!(needs_clip(&v));
        let p = triangle(&v);
        assert!(p.len() >= 4, "{p:?}");
        for c in &p {
            assert!(c.v.inv_w > 0.0, "{c:?}");
            assert!(c.v.x.abs() <= BAND as f32 && c.v.y.abs() <= BAND as f32);
            let s: f64 = c.weights.iter().sum();
            assert!((s - 1.0).abs() < 1e-9);
            // A clip vertex is the clip-space combination of the originals:
            // its projected x is that combination's x / w.
            let hx: f64 = (0..3).map(|k| c.weights[k] * [0.0, 4.0, 0.0][k]).sum();
            let hw: f64 = (0..3).map(|k| c.weights[k] * [1.0, 1.0, -1.0][k]).sum();
            assert!(hw > 0.0);
            assert!((f64::from(c.v.x) - hx / hw).abs() <= 1e-3 * (hx / hw).abs().max(1.0));
        }
        // The two vertices in front are kept.
        assert!(p.iter().any(|c| c.weights == [1.0, 0.0, 0.0]));
        assert!(p.iter().any(|c| c.weights == [0.0, 1.0, 0.0]));
    }

    #[test]
    fn shared_edges_get_the_same_clip_points() {
        let (a, b) = (at(1.0, 2.0, 0.0, 2.0), at(-3.0, 5.0, 0.0, -1.5));
        let (c, d) = (at(6.0, -1.0, 0.0, 1.0), at(-4.0, -6.0, 0.0, 3.0));
        let p = triangle(&[a, b, c]);
        let q = triangle(&[b, a, d]);
        let on_ab = |poly: &[ClipVertex]| -> Vec<Vertex> {
            let mut v: Vec<Vertex> = poly
                .iter()
                .filter(|c| c.weights[2] == 0.0 && c.weights[0] != 0.0 && c.weights[1] != 0.0)
                .map(|c| c.v)
                .collect();
            v.sort_by(|x, y| x.x.total_cmp(&y.x));
            v
        };
        assert!(!on_ab(&p).is_empty());
        assert_eq!(on_ab(&p), on_ab(&q));
    }

    #[test]
    fn unrecoverable_or_invisible_primitives_vanish() {
        let ok = at(0.0, 0.0, 0.0, 1.0);
        let nan = Vertex { x: f32::NAN, ..ok };
        let zero = Vertex { inv_w: 0.0, ..ok };
        assert!(triangle(&[ok, ok, nan]).is_empty());
        assert!(triangle(&[ok, zero, ok]).is_empty());
        let behind = [
            at(0.0, 0.0, 0.0, -1.0),
            at(1.0, 0.0, 0.0, -1.0),
            at(0.0, 1.0, 0.0, -2.0),
        ];
        assert!(triangle(&behind).is_empty());
        assert!(line(&behind[0], &behind[1]).is_none());
        let l = line(&at(0.0, 0.0, 0.0, 1.0), &at(2.0, 0.0, 0.0, -1.0)).unwrap();
        assert_eq!(l[0].weights, [1.0, 0.0, 0.0]);
        assert!(l[1].v.inv_w > 0.0 && l[1].weights[1] > 0.0 && l[1].weights[1] < 0.5);
    }
}
