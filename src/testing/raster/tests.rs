//! Properties of the reference rasterizer checked independently of how it
//! computes them: meshes covering a rectangle cover every sample exactly
//! once, coverage does not depend on vertex order or integer translation,
//! interpolation reproduces vertex values and the projection of 3D
//! midpoints, and blending matches values worked by hand from the spec's
//! tables.

use super::ops::*;
use super::*;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn vtx(x: f64, y: f64) -> Vertex {
    Vertex {
        x,
        y,
        z: 0.5,
        w: 1.0,
        attrs: vec![],
    }
}

/// A grid of `cols` × `rows` cells over a `w` × `h` pixel rectangle whose
/// inner vertices are moved by up to ±1/4 pixel in steps of 1/8 (so that many
/// edges pass exactly through sample locations and pixel centres), each
/// cell split along a random diagonal into two triangles of random winding.
fn random_mesh(rng: &mut Rng, w: u32, h: u32, cols: usize, rows: usize) -> Vec<[Vertex; 3]> {
    let mut pts = vec![vec![(0.0, 0.0); cols + 1]; rows + 1];
    for (j, row) in pts.iter_mut().enumerate() {
        for (i, p) in row.iter_mut().enumerate() {
            let mut x = f64::from(w) * i as f64 / cols as f64;
            let mut y = f64::from(h) * j as f64 / rows as f64;
            // Snap the regular grid to eighths too, then jitter the inside.
            x = (x * 8.0).round() / 8.0;
            y = (y * 8.0).round() / 8.0;
            if i > 0 && i < cols {
                x += (rng.below(5) as f64 - 2.0) / 8.0;
            }
            if j > 0 && j < rows {
                y += (rng.below(5) as f64 - 2.0) / 8.0;
            }
            *p = (x, y);
        }
    }
    let mut tris = Vec::new();
    for j in 0..rows {
        for i in 0..cols {
            let [a, b, c, d] = [pts[j][i], pts[j][i + 1], pts[j + 1][i + 1], pts[j + 1][i]];
            let halves = if rng.below(2) == 0 {
                [[a, b, c], [a, c, d]]
            } else {
                [[a, b, d], [b, c, d]]
            };
            for mut t in halves {
                if rng.below(2) == 0 {
                    t.swap(1, 2);
                }
                tris.push(t.map(|(x, y)| vtx(x, y)));
            }
        }
    }
    tris
}

#[test]
fn random_meshes_cover_every_sample_exactly_once() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut triangles = 0;
    for round in 0..200 {
        let samples = if round % 2 == 0 { 1 } else { 4 };
        let (w, h) = (8 + rng.below(25) as u32, 8 + rng.below(25) as u32);
        let (cols, rows) = (1 + rng.below(6) as usize, 1 + rng.below(6) as usize);
        let mesh = random_mesh(&mut rng, w, h, cols, rows);
        triangles += mesh.len();
        let state = RasterState {
            samples,
            ..RasterState::default()
        };
        let mut target = Target::new(w, h, samples, [0.0; 4], 1.0);
        for t in &mesh {
            let frags = rasterize_triangle([&t[0], &t[1], &t[2]], &state, &[], w, h);
            shade_fragments(
                &mut target,
                &frags,
                &DepthState::default(),
                &BlendState::default(),
                |_| Some(([1.0; 4], [0.0; 4])),
            );
        }
        let bad: Vec<usize> = (0..target.writes.len())
            .filter(|&i| target.writes[i] != 1)
            .collect();
        assert!(
            bad.is_empty(),
            "round {round}: {w}x{h} {samples}x, {} samples written {:?} times",
            bad.len(),
            bad.iter()
                .take(4)
                .map(|&i| target.writes[i])
                .collect::<Vec<_>>()
        );
    }
    assert!(triangles > 4000, "{triangles}");
}

/// The coverage of one triangle as a sorted list of (x, y, mask).
fn coverage(v: [(f64, f64); 3], samples: u32) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::new();
    cover_triangle(
        v.map(|(x, y)| Fixed::snap(x, y)),
        samples,
        FillRule::TopLeft,
        64,
        64,
        |x, y, m| out.push((x, y, m)),
    );
    out.sort_unstable();
    out
}

#[test]
fn coverage_ignores_vertex_order_and_follows_integer_translation() {
    let mut rng = Rng(12345);
    for _ in 0..500 {
        let mut p = || {
            (
                (rng.below(160) as f64) / 8.0 + 4.0,
                (rng.below(160) as f64) / 8.0 + 4.0,
            )
        };
        let v = [p(), p(), p()];
        for samples in [1, 4] {
            let base = coverage(v, samples);
            for perm in [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
                assert_eq!(coverage(perm.map(|i| v[i]), samples), base, "{v:?}");
            }
            let (dx, dy) = (rng.below(20) as u32, rng.below(20) as u32);
            let moved = coverage(
                v.map(|(x, y)| (x + f64::from(dx), y + f64::from(dy))),
                samples,
            );
            let expect: Vec<_> = base.iter().map(|&(x, y, m)| (x + dx, y + dy, m)).collect();
            assert_eq!(moved, expect, "{v:?} by ({dx}, {dy})");
        }
    }
}

#[test]
fn edges_through_sample_points_follow_the_top_left_rule() {
    // A right triangle whose left and top edges pass through pixel centres
    // (x = 2.5, y = 2.5) and whose hypotenuse passes through the centres
    // (2.5 + k, 6.5 - k): left and top edge samples are in, the hypotenuse's
    // (a right/bottom edge) are out.
    let cov = coverage([(2.5, 2.5), (6.5, 2.5), (2.5, 6.5)], 1);
    let pixels: Vec<(u32, u32)> = cov.iter().map(|&(x, y, _)| (x, y)).collect();
    let mut expect = Vec::new();
    for y in 2..6 {
        for x in 2..6 {
            if x + y < 8 {
                expect.push((x, y));
            }
        }
    }
    expect.sort_unstable_by_key(|&(x, y)| (x, y));
    let mut got = pixels.clone();
    got.sort_unstable_by_key(|&(x, y)| (x, y));
    assert_eq!(got, expect);
    // Its mirror through the square's centre owns the hypotenuse and
    // not the mirrored (now bottom and right) edges: together the two cover
    // the 4 × 4 pixels of the square once each.
    let flip = coverage([(6.5, 6.5), (2.5, 6.5), (6.5, 2.5)], 1);
    assert!(flip.iter().all(|&(x, y, _)| x < 6 && y < 6 && x + y >= 8));
    let mut both: Vec<(u32, u32)> = got
        .into_iter()
        .chain(flip.iter().map(|&(x, y, _)| (x, y)))
        .collect();
    both.sort_unstable();
    let square: Vec<(u32, u32)> = (2..6).flat_map(|x| (2..6).map(move |y| (x, y))).collect();
    assert_eq!(both, square);
}

#[test]
fn four_samples_use_the_standard_locations() {
    // A rectangle covering x < 0.5 of pixel (0,0)'s row: samples at x 0.375
    // and 0.125 (samples 0 and 2) are in.
    let cov = coverage([(0.0, 0.0), (0.5, 0.0), (0.5, 1.0)], 4);
    let cov2 = coverage([(0.0, 0.0), (0.5, 1.0), (0.0, 1.0)], 4);
    let mask = cov.iter().chain(&cov2).fold(0, |m, &(_, _, s)| m | s);
    assert_eq!(mask, 0b0101);
    // Resolve averages: two of four samples white → 0.5.
    let mut t = Target::new(1, 1, 4, [0.0; 4], 1.0);
    for &(x, y, m) in cov.iter().chain(&cov2) {
        for s in 0..4 {
            if m & (1 << s) != 0 {
                let i = t.index(x, y, s);
                t.color[i] = [1.0; 4];
            }
        }
    }
    assert_eq!(t.resolve(), vec![[0.5; 4]]);
}

#[test]
fn facing_and_culling_follow_the_signed_area() {
    // y points down: (0,0) → (8,0) → (0,8) turns clockwise on screen, and
    // the spec's a = -1/2 Σ(x_i y_i+1 - x_i+1 y_i) is negative for it.
    let cw = [(0.0, 0.0), (8.0, 0.0), (0.0, 8.0)];
    assert_eq!(signed_area(&cw), -32.0);
    let v = cw.map(|(x, y)| vtx(x, y));
    let state = RasterState::default();
    let f = rasterize_triangle([&v[0], &v[1], &v[2]], &state, &[], 16, 16);
    assert!(!f.is_empty() && f.iter().all(|f| !f.front_facing));
    let back = RasterState {
        cull_back: true,
        ..state
    };
    assert!(rasterize_triangle([&v[0], &v[1], &v[2]], &back, &[], 16, 16).is_empty());
    let cw_front = RasterState {
        front_ccw: false,
        cull_back: true,
        ..state
    };
    let f = rasterize_triangle([&v[0], &v[1], &v[2]], &cw_front, &[], 16, 16);
    assert!(!f.is_empty() && f.iter().all(|f| f.front_facing));
}

#[test]
fn interpolation_reproduces_vertex_values_and_projected_midpoints() {
    let vp = Viewport {
        x: 0.0,
        y: 0.0,
        width: 64.0,
        height: 64.0,
        min_depth: 0.0,
        max_depth: 1.0,
    };
    let mut rng = Rng(777);
    let mut r = |lo: f64, hi: f64| lo + (hi - lo) * (rng.below(10_000) as f64 / 10_000.0);
    for _ in 0..300 {
        let clip: [[f64; 4]; 3] = std::array::from_fn(|_| {
            let w = r(0.5, 4.0);
            [r(-0.9, 0.9) * w, r(-0.9, 0.9) * w, r(0.0, 0.9) * w, w]
        });
        let vals: [f64; 3] = std::array::from_fn(|_| r(-10.0, 10.0));
        let v: [Vertex; 3] =
            std::array::from_fn(|i| viewport_transform(clip[i], &vp, vec![vals[i]]));
        let pos = v.each_ref().map(|p| (p.x, p.y));
        if signed_area(&pos).abs() < 1.0 {
            continue;
        }
        let w = v.each_ref().map(|p| p.w);
        for (i, p) in pos.iter().enumerate() {
            let b = barycentric(pos, p.0, p.1);
            for mode in [Interpolation::Smooth, Interpolation::NoPerspective] {
                let got = interpolate(&b, &w, &vals, mode, 0);
                assert!(
                    (got - vals[i]).abs() < 1e-9,
                    "{mode:?}: {got} vs {}",
                    vals[i]
                );
            }
        }
        // The clip-space midpoint of edge 0-1 projects to a screen point
        // where the perspective-correct value is the midpoint value, and
        // depth (linear in screen space) is the projected midpoint's depth.
        let mid: [f64; 4] = std::array::from_fn(|k| (clip[0][k] + clip[1][k]) / 2.0);
        let m = viewport_transform(mid, &vp, vec![]);
        let b = barycentric(pos, m.x, m.y);
        let smooth = interpolate(&b, &w, &vals, Interpolation::Smooth, 0);
        assert!((smooth - (vals[0] + vals[1]) / 2.0).abs() < 1e-9);
        let z = b[0] * v[0].z + b[1] * v[1].z + b[2] * v[2].z;
        assert!((z - m.z).abs() < 1e-9);
        // Flat takes the provoking vertex.
        assert_eq!(interpolate(&b, &w, &vals, Interpolation::Flat, 2), vals[2]);
    }
}

#[test]
fn fragments_carry_depth_per_sample_and_flat_values() {
    let mk = |x, y, z, a| Vertex {
        x,
        y,
        z,
        w: 1.0,
        attrs: vec![a, a],
    };
    let v = [
        mk(0.0, 0.0, 0.0, 1.0),
        mk(16.0, 0.0, 0.5, 2.0),
        mk(0.0, 16.0, 1.0, 3.0),
    ];
    let state = RasterState {
        samples: 4,
        provoking_first: false,
        ..RasterState::default()
    };
    let interp = [Interpolation::Smooth, Interpolation::Flat];
    let frags = rasterize_triangle([&v[0], &v[1], &v[2]], &state, &interp, 32, 32);
    assert!(!frags.is_empty());
    for f in &frags {
        // z = x/32 + y/16 on this plane, evaluated at each sample location.
        for (s, &(sx, sy)) in sample_locations(4).iter().enumerate() {
            let want = (f64::from(f.x) + sx) / 32.0 + (f64::from(f.y) + sy) / 16.0;
            assert!((f.depth[s] - want).abs() < 1e-12);
        }
        let want = 1.0 + (f64::from(f.x) + 0.5) / 16.0 + 2.0 * (f64::from(f.y) + 0.5) / 16.0;
        assert!((f.attrs[0] - want).abs() < 1e-12);
        assert_eq!(f.attrs[1], 3.0);
    }
}

#[test]
fn x_major_lines_cover_one_pixel_per_column() {
    let mut rng = Rng(4242);
    for _ in 0..400 {
        let x0 = rng.below(64) as f64 / 8.0 + 1.0;
        let x1 = x0 + 1.0 + rng.below(200) as f64 / 8.0;
        let y0 = rng.below(160) as f64 / 8.0 + 9.0;
        let dy = (rng.below(2 * 64) as f64 / 8.0 - 8.0).clamp(-(x1 - x0), x1 - x0);
        let (a, b) = if rng.below(2) == 0 {
            (vtx(x0, y0), vtx(x1, y0 + dy))
        } else {
            (vtx(x1, y0 + dy), vtx(x0, y0))
        };
        let frags = rasterize_line(&a, &b, &RasterState::default(), &[], 64, 64);
        for col in 0..64u32 {
            let cx = f64::from(col) + 0.5;
            let n = frags.iter().filter(|f| f.x == col).count();
            if cx > x0 && cx < x1 {
                assert_eq!(n, 1, "column {col} of ({x0},{y0})-({x1},{})", y0 + dy);
            } else if cx < x0 || cx > x1 {
                assert_eq!(n, 0, "column {col}");
            }
        }
    }
    // A horizontal line on row 2 and its interpolated attribute.
    let mut a = vtx(1.0, 2.5);
    let mut b = vtx(6.0, 2.5);
    a.attrs = vec![0.0];
    b.attrs = vec![10.0];
    let frags = rasterize_line(
        &a,
        &b,
        &RasterState::default(),
        &[Interpolation::NoPerspective],
        8,
        8,
    );
    let px: Vec<(u32, u32)> = frags.iter().map(|f| (f.x, f.y)).collect();
    assert_eq!(px, vec![(1, 2), (2, 2), (3, 2), (4, 2), (5, 2)]);
    assert_eq!(frags[0].attrs[0], 1.0); // t = (1.5 - 1) / 5
}

#[test]
fn points_are_squares_of_their_size() {
    let state = |size| RasterState {
        point_size: size,
        ..RasterState::default()
    };
    let px = |f: &[Fragment]| f.iter().map(|f| (f.x, f.y)).collect::<Vec<_>>();
    let one = rasterize_point(&vtx(3.5, 4.5), &state(1.0), 16, 16);
    assert_eq!(px(&one), vec![(3, 4)]);
    assert_eq!(one[0].point_coord, Some((0.5, 0.5)));
    let two = rasterize_point(&vtx(4.0, 4.0), &state(2.0), 16, 16);
    assert_eq!(px(&two), vec![(3, 3), (4, 3), (3, 4), (4, 4)]);
    assert_eq!(two[0].point_coord, Some((0.25, 0.25)));
    assert_eq!(two[3].point_coord, Some((0.75, 0.75)));
    let three = rasterize_point(&vtx(5.5, 5.5), &state(3.0), 16, 16);
    assert_eq!(three.len(), 9);
    assert!(
        three
            .iter()
            .all(|f| (4..=6).contains(&f.x) && (4..=6).contains(&f.y))
    );
    // Points next to each other on a grid of their size never overlap.
    let mut t = Target::new(16, 16, 4, [0.0; 4], 1.0);
    let four = RasterState {
        samples: 4,
        ..state(2.0)
    };
    for y in 0..8 {
        for x in 0..8 {
            let f = rasterize_point(
                &vtx(2.0 * x as f64 + 1.0, 2.0 * y as f64 + 1.0),
                &four,
                16,
                16,
            );
            shade_fragments(
                &mut t,
                &f,
                &DepthState::default(),
                &BlendState::default(),
                |_| Some(([1.0; 4], [0.0; 4])),
            );
        }
    }
    assert!(t.writes.iter().all(|&n| n == 1));
}

#[test]
fn depth_test_keeps_the_nearest_fragment() {
    let mk = |z| {
        [(0.0, 0.0), (8.0, 0.0), (0.0, 8.0)].map(|(x, y)| Vertex {
            x,
            y,
            z,
            w: 1.0,
            attrs: vec![],
        })
    };
    for op in CompareOp::ALL {
        let mut t = Target::new(8, 8, 1, [0.0; 4], 0.5);
        let ds = DepthState {
            test: true,
            write: true,
            compare: op,
        };
        for (z, color) in [(0.25, 0.2), (0.75, 0.4), (0.5, 0.6)] {
            let v = mk(z);
            let f = rasterize_triangle([&v[0], &v[1], &v[2]], &RasterState::default(), &[], 8, 8);
            shade_fragments(&mut t, &f, &ds, &BlendState::default(), |_| {
                Some(([color; 4], [0.0; 4]))
            });
        }
        // Worked by hand with the stored depth starting at 0.5, z of the
        // three draws 0.25, 0.75, 0.5, written on pass.
        let (want_z, want_c) = match op {
            CompareOp::Never => (0.5, 0.0),
            CompareOp::Less => (0.25, 0.2),
            CompareOp::Equal => (0.5, 0.6),
            CompareOp::LessOrEqual => (0.25, 0.2),
            CompareOp::Greater => (0.75, 0.4),
            CompareOp::NotEqual => (0.5, 0.6),
            CompareOp::GreaterOrEqual => (0.75, 0.4),
            CompareOp::Always => (0.5, 0.6),
        };
        let i = t.index(1, 1, 0);
        assert_eq!((t.depth[i], t.color[i][0]), (want_z, want_c), "{op:?}");
    }
}

const S: [f64; 4] = [0.5, 0.25, 1.0, 0.75];
const S1: [f64; 4] = [0.125, 0.5, 0.75, 0.25];
const D: [f64; 4] = [0.2, 0.4, 0.6, 0.5];
const C: [f64; 4] = [0.1, 0.2, 0.3, 0.4];

/// Each factor as the source factor with destination factor Zero and op
/// Add: the result is `S × factor`, worked by hand from the "Blend Factors"
/// table for S, S1, D, C above (RGB column, alpha column).
#[test]
fn every_blend_factor_matches_the_spec_table() {
    use BlendFactor::*;
    let cases: [(BlendFactor, [f64; 3], f64); 19] = [
        (Zero, [0.0, 0.0, 0.0], 0.0),
        (One, [1.0, 1.0, 1.0], 1.0),
        (SrcColor, [0.5, 0.25, 1.0], 0.75),
        (OneMinusSrcColor, [0.5, 0.75, 0.0], 0.25),
        (DstColor, [0.2, 0.4, 0.6], 0.5),
        (OneMinusDstColor, [0.8, 0.6, 0.4], 0.5),
        (SrcAlpha, [0.75, 0.75, 0.75], 0.75),
        (OneMinusSrcAlpha, [0.25, 0.25, 0.25], 0.25),
        (DstAlpha, [0.5, 0.5, 0.5], 0.5),
        (OneMinusDstAlpha, [0.5, 0.5, 0.5], 0.5),
        (ConstantColor, [0.1, 0.2, 0.3], 0.4),
        (OneMinusConstantColor, [0.9, 0.8, 0.7], 0.6),
        (ConstantAlpha, [0.4, 0.4, 0.4], 0.4),
        (OneMinusConstantAlpha, [0.6, 0.6, 0.6], 0.6),
        // min(As = 0.75, 1 - Ad = 0.5) for RGB, 1 for alpha.
        (SrcAlphaSaturate, [0.5, 0.5, 0.5], 1.0),
        (Src1Color, [0.125, 0.5, 0.75], 0.25),
        (OneMinusSrc1Color, [0.875, 0.5, 0.25], 0.75),
        (Src1Alpha, [0.25, 0.25, 0.25], 0.25),
        (OneMinusSrc1Alpha, [0.75, 0.75, 0.75], 0.75),
    ];
    assert_eq!(cases.len(), BlendFactor::ALL.len());
    for (f, rgb, a) in cases {
        let state = BlendState {
            enable: true,
            src_color: f,
            dst_color: Zero,
            src_alpha: f,
            dst_alpha: Zero,
            constants: C,
            ..BlendState::default()
        };
        let got = blend(&state, S, S1, D, true);
        let want = [S[0] * rgb[0], S[1] * rgb[1], S[2] * rgb[2], S[3] * a];
        for k in 0..4 {
            assert!(
                (got[k] - want[k]).abs() < 1e-12,
                "{f:?}: {got:?} vs {want:?}"
            );
        }
        // As the destination factor (source factor Zero): D × factor.
        let state = BlendState {
            src_color: Zero,
            dst_color: f,
            src_alpha: Zero,
            dst_alpha: f,
            ..state
        };
        let got = blend(&state, S, S1, D, true);
        let want = [D[0] * rgb[0], D[1] * rgb[1], D[2] * rgb[2], D[3] * a];
        for k in 0..4 {
            assert!(
                (got[k] - want[k]).abs() < 1e-12,
                "dst {f:?}: {got:?} vs {want:?}"
            );
        }
    }
}

/// Each op with factors SrcAlpha / OneMinusSrcAlpha, by hand: s·0.75 and
/// d·0.25 for RGB (alpha uses the same factors).
#[test]
fn every_blend_op_matches_the_spec_table() {
    let state = |op| BlendState {
        enable: true,
        src_color: BlendFactor::SrcAlpha,
        dst_color: BlendFactor::OneMinusSrcAlpha,
        color_op: op,
        src_alpha: BlendFactor::SrcAlpha,
        dst_alpha: BlendFactor::OneMinusSrcAlpha,
        alpha_op: op,
        ..BlendState::default()
    };
    let cases = [
        (BlendOp::Add, [0.425, 0.2875, 0.9, 0.6875]),
        (BlendOp::Subtract, [0.325, 0.0875, 0.6, 0.4375]),
        // d·df - s·sf, clamped to 0 for the UNORM target.
        (BlendOp::ReverseSubtract, [0.0, 0.0, 0.0, 0.0]),
        (BlendOp::Min, [0.2, 0.25, 0.6, 0.5]),
        (BlendOp::Max, [0.5, 0.4, 1.0, 0.75]),
    ];
    assert_eq!(cases.len(), BlendOp::ALL.len());
    for (op, want) in cases {
        let got = blend(&state(op), S, S1, D, true);
        for k in 0..4 {
            assert!(
                (got[k] - want[k]).abs() < 1e-12,
                "{op:?}: {got:?} vs {want:?}"
            );
        }
    }
    // Without clamping (a float target) reverse subtract goes negative.
    let got = blend(&state(BlendOp::ReverseSubtract), S, S1, D, false);
    assert!((got[0] - (-0.325)).abs() < 1e-12);
    // The write mask keeps the destination in cleared channels; unclamped
    // sources are clamped for UNORM targets.
    let masked = BlendState {
        write_mask: 0b1010,
        ..state(BlendOp::Add)
    };
    let got = blend(&masked, [2.0, 2.0, 2.0, 2.0], S1, D, true);
    assert_eq!(got, [0.2, 1.0, 0.6, 1.0]);
}

/// A frame a person can look at: a perspective-correct gradient triangle
/// over a depth-tested one at 4×, resolved and written as a PNG; the PNG's
/// pixels are the resolved frame's.
#[test]
fn a_resolved_frame_encodes_as_png() {
    let vp = Viewport {
        x: 0.0,
        y: 0.0,
        width: 64.0,
        height: 48.0,
        min_depth: 0.0,
        max_depth: 1.0,
    };
    let state = RasterState {
        samples: 4,
        ..RasterState::default()
    };
    let mut t = Target::new(64, 48, 4, [0.0, 0.0, 0.0, 1.0], 1.0);
    let ds = DepthState {
        test: true,
        write: true,
        compare: CompareOp::Less,
    };
    let tris = [
        [
            ([-0.9, -0.9, 0.5, 1.0], 0.0),
            ([0.9, -0.9, 0.5, 1.0], 1.0),
            ([0.0, 0.9, 0.5, 1.0], 0.5),
        ],
        [
            ([-1.5, 1.5, 0.2, 2.0], 1.0),
            ([0.0, -1.0, 0.8, 1.0], 0.0),
            ([1.5, 1.5, 0.2, 2.0], 1.0),
        ],
    ];
    for (k, tri) in tris.iter().enumerate() {
        let v = tri.map(|(clip, a)| viewport_transform(clip, &vp, vec![a]));
        let f = rasterize_triangle(
            [&v[0], &v[1], &v[2]],
            &state,
            &[Interpolation::Smooth],
            64,
            48,
        );
        shade_fragments(&mut t, &f, &ds, &BlendState::default(), |f| {
            let a = f.attrs[0];
            Some((
                if k == 0 {
                    [a, 1.0 - a, 0.0, 1.0]
                } else {
                    [0.0, a, 1.0, 1.0]
                },
                [0.0; 4],
            ))
        });
    }
    let rgba = t.resolve_rgba8();
    // Something of both triangles is visible, and the background remains.
    assert!(rgba.chunks(4).any(|p| p[2] == 255));
    assert!(rgba.chunks(4).any(|p| p[0] > 128 && p[2] == 0));
    assert!(rgba.chunks(4).any(|p| p == [0, 0, 0, 255]));
    let png = crate::testing::png::encode_rgba8(64, 48, &rgba);
    assert_eq!(png.len(), 8 + 25 + (12 + 2 + 5 + 48 * 257 + 4) + 12);
    if let Some(dir) = std::env::var_os("BIFROST_VK_FRAMES") {
        let path = std::path::Path::new(&dir).join("reference_raster.png");
        crate::testing::png::write_rgba8(&path, 64, 48, &rgba).unwrap();
    }
}

/// "Stencil Test": ops worked by hand; a failing test applies failOp, a
/// passing one with a failing depth test depthFailOp, through the write
/// mask; the count is of samples passing both tests. "Depth Bias": r and m
/// by hand.
#[test]
fn stencil_and_depth_bias_by_hand() {
    use super::ops::{
        DepthResolution, StencilFace, StencilOp, StencilState, ZsState, depth_bias,
        shade_fragments_zs,
    };
    assert_eq!(StencilOp::IncrementAndClamp.apply(255, 0), 255);
    assert_eq!(StencilOp::IncrementAndWrap.apply(255, 0), 0);
    assert_eq!(StencilOp::DecrementAndClamp.apply(0, 0), 0);
    assert_eq!(StencilOp::DecrementAndWrap.apply(0, 0), 255);
    assert_eq!(StencilOp::Invert.apply(0x0f, 0), 0xf0);
    assert_eq!(StencilOp::Replace.apply(3, 9), 9);
    let face = StencilFace {
        fail: StencilOp::Replace,
        pass: StencilOp::IncrementAndWrap,
        depth_fail: StencilOp::Zero,
        compare: CompareOp::Equal,
        compare_mask: 0x0f,
        write_mask: 0x3f,
        reference: 0xa5,
    };
    let mut t = Target::new(3, 1, 1, [0.0; 4], 0.5);
    t.stencil = vec![0x45, 0x15, 0x45];
    t.depth = vec![0.5, 0.5, 0.25];
    let frags: Vec<Fragment> = (0..3)
        .map(|x| Fragment {
            x,
            y: 0,
            mask: 1,
            depth: vec![0.375],
            front_facing: true,
            attrs: vec![],
            point_coord: None,
            sample_attrs: vec![],
            sample: None,
        })
        .collect();
    let zs = ZsState {
        depth: DepthState {
            test: true,
            write: false,
            compare: CompareOp::Less,
        },
        stencil: Some(StencilState {
            front: face,
            back: face,
        }),
        ..ZsState::default()
    };
    let passed = shade_fragments_zs(&mut t, &frags, &zs, &BlendState::default(), |_| {
        Some(([1.0; 4], [0.0; 4]))
    });
    // x 0: 5 == 5, depth passes: 0x45 + 1 = 0x46. x 1: 5 == 5 → same:
    // 0x16. x 2: depth fails: zero through 0x3f → 0x40.
    assert_eq!(t.stencil, [0x46, 0x16, 0x40]);
    assert_eq!(passed, 2);
    t.stencil = vec![0xc4; 3];
    shade_fragments_zs(&mut t, &frags, &zs, &BlendState::default(), |_| {
        Some(([1.0; 4], [0.0; 4]))
    });
    // 5 != 4: replace with 0xa5 through 0x3f → 0xc0 | 0x25.
    assert_eq!(t.stencil, [0xe5; 3]);
    // z = x / 4 + y / 8: m = 1/4; largest |z| 0.75 → e = -1, r = 2^-24.
    let v = [[0.0, 0.0, 0.0], [3.0, 0.0, 0.75], [0.0, 2.0, 0.25]];
    let r = 2f64.powi(-24);
    assert_eq!(
        depth_bias(v, 3.0, 0.0, 0.0, DepthResolution::Float32),
        3.0 * r
    );
    assert_eq!(depth_bias(v, 0.0, 2.0, 0.0, DepthResolution::Float32), 0.5);
    assert_eq!(
        depth_bias(v, 0.0, 2.0, 0.25, DepthResolution::Float32),
        0.25
    );
    assert_eq!(
        depth_bias(v, 1.0, 0.0, 0.0, DepthResolution::Unorm(16)),
        2f64.powi(-16)
    );
}

/// The sRGB transfer functions at values worked by hand from the Khronos
/// Data Format Specification's formulas (0.5 encoded is
/// ((0.5 + 0.055) / 1.055)^2.4 = 0.21404...; 0.5 linear encodes to
/// 1.055 × 0.5^(1/2.4) − 0.055 = 0.73535...), the linear segment, the
/// end points, and a round trip; UNORM formats of mixed channel sizes and
/// sRGB store what "Conversion from Floating-Point to Normalized
/// Fixed-Point" gives, and blending reads an sRGB destination linearized.
#[test]
fn srgb_and_packed_unorm_targets_by_hand() {
    assert!((srgb_to_linear(0.5) - 0.214_041_140_5).abs() < 1e-9);
    assert!((linear_to_srgb(0.5) - 0.735_356_983_1).abs() < 1e-9);
    assert_eq!(srgb_to_linear(0.04), 0.04 / 12.92);
    assert_eq!(linear_to_srgb(0.003), 0.003 * 12.92);
    assert_eq!(srgb_to_linear(0.0), 0.0);
    assert!((srgb_to_linear(1.0) - 1.0).abs() < 1e-12);
    for i in 0..=255 {
        let c = f64::from(i) / 255.0;
        assert!((linear_to_srgb(srgb_to_linear(c)) - c).abs() < 1e-9);
    }
    // R5G6B5: 0.5 → 16/31 (15.5 rounds up), 32/63 (31.5 up), 16/31; no
    // alpha (stored 0, read as 1 when blending).
    let t = Target::new(1, 1, 1, [0.5, 0.5, 0.5, 0.5], 1.0).with_unorm_format([5, 6, 5, 0], false);
    assert_eq!(t.color[0], [16.0 / 31.0, 32.0 / 63.0, 16.0 / 31.0, 0.0]);
    // 10-bit RGB and 2-bit alpha: 0.3 → 307/1023 (306.9), alpha 0.5 → 2/3
    // (1.5 rounds up).
    let t =
        Target::new(1, 1, 1, [0.3, 0.3, 0.3, 0.5], 1.0).with_unorm_format([10, 10, 10, 2], false);
    assert_eq!(
        t.color[0],
        [307.0 / 1023.0, 307.0 / 1023.0, 307.0 / 1023.0, 2.0 / 3.0]
    );
    // sRGB: linear 0.5 is stored as round(0.73536 × 255) = 188; blending
    // ONE + ONE of 0.1 onto it reads 188/255 linearized.
    let mut t = Target::new(1, 1, 1, [0.5, 0.5, 0.5, 1.0], 1.0).with_unorm_format([8; 4], true);
    assert_eq!(t.color[0][0], 188.0 / 255.0);
    let add = BlendState {
        enable: true,
        src_color: BlendFactor::One,
        dst_color: BlendFactor::One,
        ..BlendState::default()
    };
    let f = Fragment {
        x: 0,
        y: 0,
        mask: 1,
        depth: vec![0.5],
        front_facing: true,
        attrs: vec![],
        point_coord: None,
        sample_attrs: vec![],
        sample: None,
    };
    shade_fragments(&mut t, &[f], &DepthState::default(), &add, |_| {
        Some(([0.1, 0.1, 0.1, 1.0], [0.0; 4]))
    });
    let want = (linear_to_srgb(srgb_to_linear(188.0 / 255.0) + 0.1) * 255.0).round() / 255.0;
    assert_eq!(t.color[0][0], want);
    assert!(want > 188.0 / 255.0);
}

/// binary16 rounding by hand: exact values stay, ties go to the even
/// mantissa (1 + 2^-11 → 1; 1 + 3 × 2^-11 → 1 + 2^-9), the spacing is
/// 2^-24 among denormals, and 65520 is the first value that overflows.
#[test]
fn binary16_rounding_by_hand() {
    assert_eq!(round_to_f16(1.0), 1.0);
    assert_eq!(round_to_f16(-2.5), -2.5);
    assert_eq!(round_to_f16(1.0 + 2f64.powi(-11)), 1.0);
    assert_eq!(
        round_to_f16(1.0 + 3.0 * 2f64.powi(-11)),
        1.0 + 2f64.powi(-9)
    );
    assert_eq!(round_to_f16(0.1), 1638.0 / 16384.0);
    assert_eq!(round_to_f16(3.0 * 2f64.powi(-26)), 2f64.powi(-24));
    assert_eq!(round_to_f16(65504.0), 65504.0);
    assert_eq!(round_to_f16(65519.0), 65504.0);
    assert_eq!(round_to_f16(-65520.0), f64::NEG_INFINITY);
}

/// Unsigned 11- and 10-bit floats by hand: 1.0 and the largest finite
/// values stay, ties to even (1 + 2^-7 → 1 with 6 mantissa bits), the
/// denormal spacing 2^-20 / 2^-19, negative values to 0, overflow past
/// half a unit above the largest finite value to infinity.
#[test]
fn unsigned_small_floats_by_hand() {
    assert_eq!(round_to_unsigned_float(1.0, 6), 1.0);
    assert_eq!(round_to_unsigned_float(1.0 + 2f64.powi(-7), 6), 1.0);
    assert_eq!(
        round_to_unsigned_float(1.0 + 3.0 * 2f64.powi(-7), 6),
        1.0 + 2f64.powi(-5)
    );
    assert_eq!(round_to_unsigned_float(1.0 + 2f64.powi(-6), 5), 1.0);
    assert_eq!(round_to_unsigned_float(65024.0, 6), 65024.0);
    assert_eq!(round_to_unsigned_float(64512.0, 5), 64512.0);
    assert_eq!(round_to_unsigned_float(65280.0, 6), f64::INFINITY);
    assert_eq!(round_to_unsigned_float(65279.0, 6), 65024.0);
    assert_eq!(
        round_to_unsigned_float(1.6 * 2f64.powi(-20), 6),
        2f64.powi(-19)
    );
    assert_eq!(round_to_unsigned_float(0.4 * 2f64.powi(-19), 5), 0.0);
    assert_eq!(round_to_unsigned_float(-3.0, 6), 0.0);
}

/// Sample shading, `Sample`/`Centroid` inputs, the `SampleMask` output and
/// alpha-to-coverage worked by hand: a triangle whose left edge is the
/// line x = 0.5 covers samples 1 and 3 of pixel (0, 0) at 4× (standard
/// x 0.875 and 0.625; 0 and 2 at 0.375 and 0.125 are outside); its
/// attribute is framebuffer x, so each value names where it was read.
#[test]
fn sample_shading_centroid_and_sample_masks_by_hand() {
    let v = |x: f64, y: f64| Vertex {
        x,
        y,
        z: 0.5,
        w: 1.0,
        attrs: vec![x],
    };
    // A large triangle whose left edge is the vertical line x = 0.5.
    let (a, b, c) = (v(0.5, -8.0), v(16.0, 4.0), v(0.5, 16.0));
    let state = RasterState {
        samples: 4,
        ..RasterState::default()
    };
    let frags = rasterize_triangle([&a, &b, &c], &state, &[Interpolation::NoPerspective], 1, 1);
    assert_eq!(frags.len(), 1);
    let f = &frags[0];
    // Standard locations: x 0.375, 0.875, 0.125, 0.625 → samples 1 and 3.
    assert_eq!(f.mask, 0b1010);
    assert_eq!(f.attrs, vec![0.5]);
    assert_eq!(
        f.sample_attrs,
        vec![vec![0.375], vec![0.875], vec![0.125], vec![0.625]]
    );
    // Centroid: not all covered → the lowest covered sample (1), not the
    // centre; all covered → the centre.
    assert_eq!(f.centroid_inputs(4), &[0.875]);
    let full = Fragment {
        mask: 0b1111,
        ..f.clone()
    };
    assert_eq!(full.centroid_inputs(4), &[0.5]);
    // Sample shading: one invocation per covered sample.
    let per = f.per_sample();
    assert_eq!(
        per.iter().map(|p| (p.mask, p.sample)).collect::<Vec<_>>(),
        vec![(0b0010, Some(1)), (0b1000, Some(3))]
    );
    assert_eq!(per[1].sample_inputs(), &[0.625]);
    assert_eq!(per[1].sample_position(4), (0.625, 0.875));
    assert_eq!(per[0].centroid_inputs(4), &[0.875]);
    // Alpha-to-coverage: the lowest round(alpha × samples) samples.
    assert_eq!(alpha_to_coverage_mask(0.0, 4), 0);
    assert_eq!(alpha_to_coverage_mask(0.3, 4), 0b0001);
    assert_eq!(alpha_to_coverage_mask(0.6, 4), 0b0011);
    assert_eq!(alpha_to_coverage_mask(0.7, 4), 0b0111);
    assert_eq!(alpha_to_coverage_mask(1.0, 4), 0b1111);
    assert_eq!(alpha_to_coverage_mask(f64::NAN, 4), 0);
    assert_eq!(alpha_to_coverage_mask(0.49, 1), 0);
    // The SampleMask output leaves samples out of the tests and the write.
    let mut t = Target::new(1, 1, 4, [0.0; 4], 1.0);
    let depth = ZsState::default();
    shade_fragments_tests(
        &mut t,
        &frags,
        &depth,
        &BlendState::default(),
        false,
        |_| {
            Some(Shaded {
                colour: [1.0; 4],
                sample_mask: Some(0b0011),
                ..Default::default()
            })
        },
    );
    assert_eq!(t.writes, vec![0, 1, 0, 0]);
}

/// "Primitive Clipping" worked by hand: a triangle with one vertex behind
/// the eye and one past the far plane; attributes that are the clip
/// coordinates themselves must come out equal to the new positions
/// (clip-space linear interpolation with the spec's t).
#[test]
fn clip_polygon_cuts_at_the_view_volume() {
    let v = |c: [f64; 4]| -> ClipVertex { (c, c.to_vec()) };
    let inside = [
        v([0.0, 0.0, 0.5, 1.0]),
        v([0.5, 0.0, 0.5, 1.0]),
        v([0.0, 0.5, 0.5, 1.0]),
    ];
    assert_eq!(clip_polygon(&inside, false), inside.to_vec());
    // (0, 0, 0.5, 1) in; (0, 0, -1, -1) behind the eye; (0.5, 0, 3, 2)
    // past the far plane (z > w).
    let tri = [
        v([0.0, 0.0, 0.5, 1.0]),
        v([0.0, 0.0, -1.0, -1.0]),
        v([0.5, 0.0, 3.0, 2.0]),
    ];
    let p = clip_polygon(&tri, false);
    assert!(p.len() >= 3, "{p:?}");
    for (c, a) in &p {
        assert!(c[2] >= -1e-12 && c[2] <= c[3] + 1e-12, "{c:?}");
        assert!(c[0].abs() <= c[3] + 1e-12 && c[1].abs() <= c[3] + 1e-12);
        for k in 0..4 {
            assert!((a[k] - c[k]).abs() < 1e-12);
        }
    }
    // Along the edge from the first vertex to the one behind, z = 0.5 −
    // 1.5 s and w = 1 − 2 s: z = 0 at s = 1/3, the point (0, 0, 0, 1/3).
    assert!(p.iter().any(|(c, _)| {
        c[2].abs() < 1e-12 && (c[3] - 1.0 / 3.0).abs() < 1e-12 && c[0].abs() < 1e-12
    }));
    // The edge to the far vertex meets z = w at s = 0.5 / 1.5 = 1/3:
    // (1/6, 0, 4/3, 4/3).
    assert!(
        p.iter()
            .any(|(c, _)| { (c[0] - 1.0 / 6.0).abs() < 1e-12 && (c[2] - 4.0 / 3.0).abs() < 1e-12 })
    );
    // With depth clamping only x and y are clipped (and the vertex behind
    // the eye still is, by them).
    let q = clip_polygon(&tri, true);
    assert!(q.iter().all(|(c, _)| c[0].abs() <= c[3] + 1e-12));
    // Entirely behind the eye: nothing; a segment keeps its inside part.
    let behind = [
        v([0.0, 0.0, -0.5, -1.0]),
        v([0.1, 0.0, -0.5, -1.0]),
        v([0.0, 0.1, -0.5, -1.0]),
    ];
    assert!(clip_polygon(&behind, false).is_empty());
    let seg = clip_polygon(&[tri[0].clone(), tri[1].clone()], false);
    assert_eq!(seg.len(), 2);
    assert_eq!(seg[0], tri[0]);
    assert!((seg[1].0[3] - 1.0 / 3.0).abs() < 1e-12 && seg[1].0[2].abs() < 1e-12);
}
