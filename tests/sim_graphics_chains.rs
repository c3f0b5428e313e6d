//! PanVk's own graphics job chains for a Mali-G52 (render passes recorded
//! by Mesa 25.0.7's PanVk, see the reference folder's README) replayed on
//! the simulated GPU: the vertex/tiler chain, then the fragment chain, and
//! the colour (and depth) attachment read back from its Tiled U-Interleaved
//! layout and compared with the images computed from the Vulkan rules
//! (`expected/`, 1 LSB tolerance per channel). Skipped, with a note, when
//! the reference data is missing.

use bifrost_vk::hw::snapshot::Snapshot;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::kmod::sim::framebuffer::u_interleaved_offset;
use bifrost_vk::kmod::sim::shader::Counters;
use bifrost_vk::testing::SimGpu;

const DIR: &str = bifrost_vk::reference_path!("mesa-g52/graphics");
/// The tiler heap every snapshot omits (README §2.3): 128 MiB of zeros.
const HEAP: (u64, u64) = (0xf800_0000, 0x800_0000);
const SIZE: u32 = 64;

fn path(rel: &str) -> String {
    format!("{DIR}/{rel}")
}

fn snapshot(name: &str) -> Option<Snapshot> {
    let data = std::fs::read(path(&format!("jobchains/{name}.snap"))).ok()?;
    Some(Snapshot::parse(&data).expect("snapshot parses"))
}

fn expected(name: &str) -> Option<Vec<u8>> {
    std::fs::read(path(&format!("expected/{name}"))).ok()
}

/// Loads `NAME.frag.snap` (its memory equals the `.vtc` one) plus the zero
/// heap; returns the GPU and the chain heads (vtc, frag).
fn load(model: SimModel, name: &str) -> Option<(SimGpu, Option<u64>, u64)> {
    let frag = snapshot(&format!("{name}.frag"))?;
    let vtc = snapshot(&format!("{name}.vtc")).map(|s| s.jc);
    let mut gpu = SimGpu::new(model);
    let jc = gpu.load_snapshot(&frag).expect("snapshot maps");
    gpu.alloc_at(HEAP.0, HEAP.1).expect("tiler heap maps");
    Some((gpu, vtc, jc))
}

fn skip(what: &str) {
    eprintln!("skipped: reference data for {what} missing ({DIR})");
}

/// The 64x64 RGBA8 attachment at `base`, row-major.
fn read_rgba8(gpu: &SimGpu, base: u64) -> Vec<u8> {
    let raw = gpu.read(base, (SIZE * SIZE * 4) as usize);
    let mut out = vec![0u8; raw.len()];
    for y in 0..SIZE {
        for x in 0..SIZE {
            let o = u_interleaved_offset(x, y, 4096, 4) as usize;
            let i = ((y * SIZE + x) * 4) as usize;
            out[i..i + 4].copy_from_slice(&raw[o..o + 4]);
        }
    }
    out
}

fn read_f32(gpu: &SimGpu, base: u64) -> Vec<f32> {
    let raw = gpu.read(base, (SIZE * SIZE * 4) as usize);
    let mut out = vec![0f32; (SIZE * SIZE) as usize];
    for y in 0..SIZE {
        for x in 0..SIZE {
            let o = u_interleaved_offset(x, y, 4096, 4) as usize;
            out[(y * SIZE + x) as usize] = f32::from_le_bytes(raw[o..o + 4].try_into().unwrap());
        }
    }
    out
}

/// Pixels (x, y) where `got` and `want` differ by more than 1 in a channel
/// (only where `only(x, y)`).
fn mismatches(got: &[u8], want: &[u8], only: impl Fn(u32, u32) -> bool) -> Vec<String> {
    let mut bad = Vec::new();
    for y in 0..SIZE {
        for x in 0..SIZE {
            if !only(x, y) {
                continue;
            }
            let i = ((y * SIZE + x) * 4) as usize;
            let (g, w) = (&got[i..i + 4], &want[i..i + 4]);
            if g.iter().zip(w).any(|(a, b)| a.abs_diff(*b) > 1) {
                bad.push(format!("({x}, {y}): got {g:?}, want {w:?}"));
            }
        }
    }
    bad
}

/// Panics naming the first differing pixels unless [`mismatches`] finds none.
fn assert_image(got: &[u8], want: &[u8], only: impl Fn(u32, u32) -> bool) {
    let bad = mismatches(got, want, only);
    assert!(
        bad.is_empty(),
        "{} pixels differ: {:?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
}

/// Runs the vertex/tiler chain (if any), then the fragment chain; checks
/// that no shader read a register before waiting for the message writing
/// it, and returns the shader-core counters of both.
fn run(gpu: &mut SimGpu, vtc: Option<u64>, frag: u64) -> Counters {
    let mut counters = Counters::default();
    if let Some(jc) = vtc {
        counters.add(&gpu.submit(jc).expect("vertex/tiler chain runs").counters);
    }
    counters.add(&gpu.submit(frag).expect("fragment chain runs").counters);
    assert_eq!(counters.hazards, 0, "reads before scoreboard waits");
    counters
}

#[test]
fn gfx_clear_only() {
    let (Some((mut gpu, _, frag)), Some(want)) = (
        load(SimModel::G52, "gfx_clear_only"),
        expected("gfx_clear_only.expected.rgba"),
    ) else {
        return skip("gfx_clear_only");
    };
    run(&mut gpu, None, frag);
    let got = read_rgba8(&gpu, 0xf7f3_0000);
    assert_image(&got, &want, |_, _| true);
}

#[test]
fn gfx_triangle() {
    let (Some((mut gpu, vtc, frag)), Some(want)) = (
        load(SimModel::G52, "gfx_triangle"),
        expected("gfx_triangle.expected.rgba"),
    ) else {
        return skip("gfx_triangle");
    };
    let counters = run(&mut gpu, vtc, frag);
    let got = read_rgba8(&gpu, 0xf7ff_2000);
    assert_image(&got, &want, |_, _| true);
    // Threads: 3 vertices × (position + varying shader) and one fragment
    // per covered pixel (the pixels that are not the clear colour).
    let covered = want.chunks(4).filter(|p| *p != [51, 102, 153, 255]).count() as u64;
    assert_eq!(counters.threads, 6 + covered, "{counters:?}");
    eprintln!("gfx_triangle: {counters:?}");
    // The fragment job consumed the polygon list: running both chains
    // again draws the same image, not the triangle twice.
    run(&mut gpu, vtc, frag);
    assert_eq!(read_rgba8(&gpu, 0xf7ff_2000), got);
}

#[test]
fn gfx_indexed_depth() {
    let (Some((mut gpu, vtc, frag)), Some(want), Some(want_depth)) = (
        load(SimModel::G52, "gfx_indexed_depth"),
        expected("gfx_indexed_depth.expected.rgba"),
        expected("gfx_indexed_depth.expected-depth.f32"),
    ) else {
        return skip("gfx_indexed_depth");
    };
    run(&mut gpu, vtc, frag);
    let got = read_rgba8(&gpu, 0xf7fb_d000);
    assert_image(&got, &want, |_, _| true);
    let depth = read_f32(&gpu, 0xf7fb_9000);
    for (i, (g, w)) in depth.iter().zip(want_depth.chunks(4)).enumerate() {
        let w = f32::from_le_bytes(w.try_into().unwrap());
        assert!(
            (g - w).abs() <= 1e-6,
            "depth at ({}, {}): {g} vs {w}",
            i % 64,
            i / 64
        );
    }
}

#[test]
fn gfx_points_lines() {
    let (Some((mut gpu, vtc, frag)), Some(want)) = (
        load(SimModel::G52, "gfx_points_lines"),
        expected("gfx_points_lines.points-only.expected.rgba"),
    ) else {
        return skip("gfx_points_lines");
    };
    run(&mut gpu, vtc, frag);
    let got = read_rgba8(&gpu, 0xf7f0_c000);
    // Points: only the 4x4 squares are compared (the lines are not in the
    // image); they lie in rows 6..9, which no line reaches.
    assert_image(&got, &want, |_, y| y < 16);
    // Lines (non-strict, width 1): every pixel that is not the clear
    // colour below row 16 lies within one pixel of a segment of the strip,
    // every row 32..55 has at least one, and the colour is yellow → cyan.
    let strip = [(8.0, 32.0), (24.0, 56.0), (40.0, 32.0), (56.0, 56.0)];
    let dist = |px: f64, py: f64| {
        strip
            .windows(2)
            .map(|s| {
                let ((ax, ay), (bx, by)) = (s[0], s[1]);
                let (dx, dy) = (bx - ax, by - ay);
                let t = (((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
                ((px - ax - t * dx).powi(2) + (py - ay - t * dy).powi(2)).sqrt()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let clear = [51u8, 102, 153, 255];
    let mut rows = [0u32; 64];
    for y in 16..SIZE {
        for x in 0..SIZE {
            let i = ((y * SIZE + x) * 4) as usize;
            let px = &got[i..i + 4];
            if px == clear {
                continue;
            }
            rows[y as usize] += 1;
            let d = dist(f64::from(x) + 0.5, f64::from(y) + 0.5);
            assert!(d <= 1.0, "line pixel ({x}, {y}) is {d} px from the strip");
            // Yellow (255, 255, 0) to cyan (0, 255, 255): red + blue = 255.
            let rb = i32::from(px[0]) + i32::from(px[2]);
            assert!(
                px[1] >= 254 && (rb - 255).abs() <= 2 && px[3] == 255,
                "({x}, {y}) {px:?}"
            );
        }
    }
    for (y, n) in rows.iter().enumerate().take(56).skip(32) {
        assert!(*n >= 1, "row {y} has no line pixel");
    }
}

#[test]
fn a_bad_framebuffer_pointer_faults_and_the_gpu_carries_on() {
    let Some((mut gpu, _, frag)) = load(SimModel::G52, "gfx_clear_only") else {
        return skip("gfx_clear_only");
    };
    // Payload word 2/3: the tagged framebuffer pointer → unmapped memory.
    let saved = gpu.read(frag + 32 + 8, 8);
    gpu.write(frag + 32 + 8, &0x1234_0001u64.to_le_bytes());
    let err = gpu.submit(frag).unwrap_err();
    assert_eq!(err.fault().unwrap().status, 0x42, "{err}");
    // An MFBD tag without the MFBD bit is a configuration fault.
    gpu.write(
        frag + 32 + 8,
        &(u64::from_le_bytes(saved.clone().try_into().unwrap()) & !1).to_le_bytes(),
    );
    let err = gpu.submit(frag).unwrap_err();
    assert_eq!(err.fault().unwrap().status, 0x40, "{err}");
    // A 65536 x 65536 framebuffer (Framebuffer Parameters word 8 at
    // 0xf7f10020) is refused instead of exhausting the host.
    gpu.write(frag + 32 + 8, &saved);
    let size = gpu.read_u32s(0xf7f1_0020, 1)[0];
    gpu.write_u32s(0xf7f1_0020, &[0xffff_ffff]);
    gpu.write(frag, &[0; 4]);
    let f = gpu.submit(frag).unwrap_err().fault().unwrap();
    assert_eq!((f.status, f.fault_va), (0x40, 0xf7f1_0000));
    gpu.write_u32s(0xf7f1_0020, &[size]);
    // Restored, the job runs.
    gpu.write(frag, &[0; 4]);
    gpu.submit(frag).expect("runs again");
}

#[test]
fn a_full_tiler_heap_is_out_of_memory_and_the_gpu_carries_on() {
    let Some((mut gpu, Some(vtc), frag)) = load(SimModel::G52, "gfx_triangle") else {
        return skip("gfx_triangle");
    };
    // The Tiler Heap descriptor (at 0xf7fd2280, README §2.2): Top (words
    // 6-7) 16 bytes above Bottom leaves no room for one primitive.
    let heap = 0xf7fd_2280u64;
    let top = gpu.read(heap + 24, 8);
    gpu.write(heap + 24, &(HEAP.0 + 16).to_le_bytes());
    let err = gpu.submit(vtc).unwrap_err();
    assert_eq!(err.fault().unwrap().status, 0x60, "{err}");
    // With the heap restored the same chains run and draw the triangle.
    gpu.write(heap + 24, &top);
    gpu.write(vtc, &[0; 4]);
    run(&mut gpu, Some(vtc), frag);
    let want = expected("gfx_triangle.expected.rgba").unwrap();
    let got = read_rgba8(&gpu, 0xf7ff_2000);
    assert!(mismatches(&got, &want, |_, _| true).is_empty());
}

#[test]
fn unsupported_fragment_state_faults() {
    let Some((mut gpu, Some(vtc), frag)) = load(SimModel::G52, "gfx_triangle") else {
        return skip("gfx_triangle");
    };
    // Inverted alpha-to-coverage (Renderer State word 9 bit 18) in the
    // fragment RSD (stencil, bit 16, and alpha-to-coverage, bit 17, are
    // simulated: tests/jm_graphics.rs; Vulkan has no inverted form).
    let rsd = 0xf7fd_2180u64;
    let w9 = gpu.read_u32s(rsd + 36, 1)[0];
    gpu.write_u32s(rsd + 36, &[w9 | 1 << 18]);
    gpu.submit(vtc).expect("vertex/tiler chain runs");
    let err = gpu.submit(frag).unwrap_err();
    assert_eq!(err.fault().unwrap().status, 0x40, "{err}");
    // The colour attachment was not touched.
    assert!(gpu.read(0xf7ff_2000, 16 * 1024).iter().all(|&b| b == 0));
}

#[test]
fn a_v6_gpu_refuses_v7_descriptors() {
    // The snapshots hold v7 descriptors. On a G72 (v6) the Render Target,
    // whose block-format bits differ between v6 and v7, is refused
    // (JOB_CONFIG_FAULT at the render target, 0xf7f10080), and so is the
    // IDVS job's renderer state with its v7-only bits.
    let Some((mut gpu, _, frag)) = load(SimModel::G72, "gfx_clear_only") else {
        return skip("gfx_clear_only");
    };
    let f = gpu.submit(frag).unwrap_err().fault().unwrap();
    assert_eq!((f.status, f.fault_va), (0x40, 0xf7f1_0080));
    let Some((mut gpu, Some(vtc), _)) = load(SimModel::G72, "gfx_triangle") else {
        return;
    };
    let err = gpu.submit(vtc).unwrap_err();
    assert_eq!(err.fault().unwrap().status, 0x40, "{err}");
}

/// Whether the centre of pixel (x, y) lies exactly on an edge of the
/// triangle `p` (positions on the 1/256-pixel grid).
fn centre_on_edge(p: &[(i64, i64); 3], x: u32, y: u32) -> bool {
    let c = (i64::from(x) * 256 + 128, i64::from(y) * 256 + 128);
    (0..3).any(|i| {
        let (a, b) = (p[i], p[(i + 1) % 3]);
        let e = (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0);
        let within = |v: i64, lo: i64, hi: i64| v >= lo.min(hi) && v <= lo.max(hi);
        e == 0 && within(c.0, a.0, b.0) && within(c.1, a.1, b.1)
    })
}

#[test]
fn random_triangles_match_the_reference_rasterizer() {
    use bifrost_vk::testing::raster::{self, Interpolation, RasterState};
    // PanVk's triangle pipeline with other vertices written into its vertex
    // buffer (binding 0 at 0xf7ff6000, stride 20: vec2 NDC position, vec3
    // colour): coverage and colours through the simulated IDVS, tiler and
    // fragment jobs against `testing::raster` (the spec's rules, written
    // independently). Pixels whose centre is exactly on an edge are left
    // out: there the two use different tie rules (the FBD's rule vs
    // top-left), both allowed by the spec.
    let Some((mut gpu, Some(vtc), frag)) = load(SimModel::G52, "gfx_triangle") else {
        return skip("gfx_triangle");
    };
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let clear = [51u8, 102, 153, 255];
    let mut compared = 0;
    for round in 0..40 {
        // Pixel positions on the 1/256 grid inside [-16, 80): some
        // triangles leave the framebuffer.
        let p: [(i64, i64); 3] = std::array::from_fn(|_| {
            (
                next(96 * 256) as i64 - 16 * 256,
                next(96 * 256) as i64 - 16 * 256,
            )
        });
        let colours: [[f32; 3]; 3] =
            std::array::from_fn(|_| std::array::from_fn(|_| next(256) as f32 / 255.0));
        let mut data = Vec::new();
        for i in 0..3 {
            // NDC = pixel / 32 - 1, exact in f32.
            data.push(p[i].0 as f32 / (256.0 * 32.0) - 1.0);
            data.push(p[i].1 as f32 / (256.0 * 32.0) - 1.0);
            data.extend_from_slice(&colours[i]);
        }
        gpu.write_f32s(0xf7ff_6000, &data);
        gpu.write(vtc, &[0; 4]);
        gpu.write(frag, &[0; 4]);
        run(&mut gpu, Some(vtc), frag);
        let got = read_rgba8(&gpu, 0xf7ff_2000);
        let vs: Vec<raster::Vertex> = (0..3)
            .map(|i| raster::Vertex {
                x: p[i].0 as f64 / 256.0,
                y: p[i].1 as f64 / 256.0,
                z: 0.0,
                w: 1.0,
                attrs: colours[i].iter().map(|&c| f64::from(c)).collect(),
            })
            .collect();
        let frags = raster::rasterize_triangle(
            [&vs[0], &vs[1], &vs[2]],
            &RasterState::default(),
            &[Interpolation::Smooth; 3],
            SIZE,
            SIZE,
        );
        let mut want = vec![None; (SIZE * SIZE) as usize];
        for f in &frags {
            want[(f.y * SIZE + f.x) as usize] = Some(f.attrs.clone());
        }
        for y in 0..SIZE {
            for x in 0..SIZE {
                if centre_on_edge(&p, x, y) {
                    continue;
                }
                let i = ((y * SIZE + x) * 4) as usize;
                let g = &got[i..i + 4];
                match &want[(y * SIZE + x) as usize] {
                    None => assert_eq!(g, clear, "round {round}: ({x}, {y}) {p:?}"),
                    Some(a) => {
                        compared += 1;
                        for c in 0..3 {
                            let w = (a[c].clamp(0.0, 1.0) * 255.0).round();
                            assert!(
                                (f64::from(g[c]) - w).abs() <= 1.0,
                                "round {round}: ({x}, {y}) channel {c}: {} vs {w}",
                                g[c]
                            );
                        }
                        assert_eq!(g[3], 255);
                    }
                }
            }
        }
    }
    eprintln!("{compared} covered pixels compared");
    assert!(compared > 10_000, "only {compared} covered pixels compared");
}

#[test]
fn gfx_blend_textured() {
    // The texture upload runs first, as PanVk submitted it (README §2.3):
    // its descriptor-copy COMPUTE job writes the image's Attribute and 3D
    // Attribute Buffer records, then PanVk's buffer-to-image copy shader
    // (DTSEL_IMM + LEA_ATTR_TEX + ST_CVT, 16x16 threads) stores the staging
    // texels (1 KiB, row-major at 0xf7ff6000) into the texture BO
    // (0xf7fc1000, one 16x16 Tiled U-Interleaved tile). Its snapshot is a
    // separate SUBMIT with its own memory, so the resulting texture block is
    // copied into the draw's memory at the same VA, as the README says.
    // Then the descriptor-copy compute job, the IDVS job, VAR_TEX with the
    // copied texture and sampler descriptors, bilinear filtering with
    // CLAMP_TO_EDGE and the fixed-function blend run on the simulated GPU.
    let (Some(upload), Some((mut gpu, vtc, frag)), Some(want)) = (
        snapshot("gfx_blend_textured_upload.vtc"),
        load(SimModel::G52, "gfx_blend_textured"),
        expected("gfx_blend_textured.expected.rgba"),
    ) else {
        return skip("gfx_blend_textured");
    };
    let texture = upload_texture(&upload);
    for j in 0..16u32 {
        for i in 0..16u32 {
            let o = u_interleaved_offset(i, j, 1024, 4) as usize;
            assert_eq!(
                texture[o..o + 4],
                [17 * i as u8, 17 * j as u8, 255 - 17 * i as u8, 128],
                "texel ({i}, {j}) after the upload chain"
            );
        }
    }
    gpu.write(0xf7fc_1000, &texture);
    run(&mut gpu, vtc, frag);
    let got = read_rgba8(&gpu, 0xf7f6_4000);
    assert_image(&got, &want, |_, _| true);
}

/// Runs PanVk's upload chain (`gfx_blend_textured_upload.vtc`) on a fresh
/// simulated G52 and returns the texture BO's 4 KiB (0xf7fc1000) after it.
/// The BO starts as 0xee canaries so that a texel the chain does not
/// write cannot pass for a written one.
fn upload_texture(upload: &Snapshot) -> Vec<u8> {
    let mut gpu = SimGpu::new(SimModel::G52);
    let jc = gpu.load_snapshot(upload).expect("upload snapshot maps");
    gpu.write(0xf7fc_1000, &[0xee; 4096]);
    let run = gpu.submit(jc).expect("upload chain runs");
    assert_eq!(run.counters.hazards, 0, "reads before scoreboard waits");
    gpu.read(0xf7fc_1000, 4096)
}

/// PanVk's image descriptor for the upload (the Attribute Buffer pair the
/// descriptor-copy job copies into the copy job's tables): its VA in the
/// upload snapshot, found by its first word (type 3D Interleaved, pointer
/// 0xf7fc1000).
fn image_descriptor(upload: &Snapshot) -> u64 {
    let word = 0xf7fc_1006u32.to_le_bytes();
    upload
        .blocks
        .iter()
        .find_map(|b| {
            (0..b.bytes.len() / 16)
                .find(|&i| b.bytes[16 * i..16 * i + 4] == word)
                .map(|i| b.gpu_va + 16 * i as u64)
        })
        .expect("the image's attribute buffer record")
}

/// Bad image descriptors fault the copy job like hardware (its exception
/// status, never a panic), and the same chain runs once they are restored:
/// a 1D buffer type, a Size too small for the texels, an S dimension
/// smaller than the grid (texels outside the image: undocumented on
/// hardware, a fault here), and a pointer 64 bytes before the end of the
/// texture BO (the stores leave the BO: a write fault at the first
/// unmapped byte's page).
#[test]
fn bad_image_descriptors_fault_the_upload() {
    let Some(upload) = snapshot("gfx_blend_textured_upload.vtc") else {
        return skip("gfx_blend_textured_upload");
    };
    let desc = image_descriptor(&upload);
    let try_with = |offset: u64, bytes: &[u8]| {
        let mut gpu = SimGpu::new(SimModel::G52);
        let jc = gpu.load_snapshot(&upload).expect("upload snapshot maps");
        gpu.write(desc + offset, bytes);
        gpu.submit(jc).map(|_| ())
    };
    let status = |r: Result<(), bifrost_vk::testing::RunError>| r.unwrap_err().fault().unwrap();
    // Type 1D (word 0 bits 0..5).
    assert_eq!(
        status(try_with(0, &0xf7fc_1001u32.to_le_bytes())).status,
        0x58
    );
    // Size (word 3) of 512 bytes: the texels of rows 8..15 lie past it.
    assert_eq!(status(try_with(12, &512u32.to_le_bytes())).status, 0x58);
    // S dimension 8 (continuation word 0 bits 16..31, minus one).
    let cont = u32::from_le_bytes(upload_bytes(&upload, desc + 16, 4).try_into().unwrap());
    let narrow = (cont & 0xffff) | (7 << 16);
    assert_eq!(status(try_with(16, &narrow.to_le_bytes())).status, 0x58);
    // Pointer 64 bytes before the end of the 4 KiB texture BO.
    let f = status(try_with(0, &(0xf7fc_1fc0u32 | 6).to_le_bytes()));
    assert_eq!(f.status, 0x43, "write fault");
    assert!(f.fault_va >= 0xf7fc_2000, "{:#x}", f.fault_va);
    // Unchanged, it runs.
    try_with(0, &0xf7fc_1006u32.to_le_bytes()).expect("the upload runs");
}

/// `len` bytes of the snapshot's memory at `va`.
fn upload_bytes(snap: &Snapshot, va: u64, len: usize) -> Vec<u8> {
    let b = snap
        .blocks
        .iter()
        .find(|b| b.gpu_va <= va && va + len as u64 <= b.gpu_va + b.bytes.len() as u64)
        .expect("a block holds it");
    let at = (va - b.gpu_va) as usize;
    b.bytes[at..at + len].to_vec()
}

/// PanVk's triangle fragment shader rewritten to load its varying with an
/// instruction instead of the message preload.
const LD_VAR_SHADER: &str = "clause_0:
ds(0) nbb vary td ncph next_atest dwb(0) 
{
    *NOP t0
    +LD_VAR_IMM.v3.store.f32.center t1, #0.y, index:0, @r0
}

clause_1:
ds(0) nbb atest td ncph next_blend dwb(0, 6, 7) 
{
    *NOP t0
    +MOV.i32 t1, 0x3f800000 /* 1.000000 */
    *NOP t0
    +ATEST r60:t1, r60, t1, @r60
}

clause_4:
ds(0) eos blend td 
{
    *NOP t0
    +MOV.i32 r3:t1, 0x3f800000 /* 1.000000 */
    *NOP t0
    +BLEND r48:t1, r60, blend_descriptor_0.x, blend_descriptor_0.y, @r0
}
";

#[test]
fn ld_var_instructions_interpolate_like_the_preload() {
    use bifrost_vk::compiler::bifrost::asm::assemble;
    use bifrost_vk::testing::binary_from_code;
    let (Some((mut gpu, Some(vtc), frag)), Some(want)) = (
        load(SimModel::G52, "gfx_triangle"),
        expected("gfx_triangle.expected.rgba"),
    ) else {
        return skip("gfx_triangle");
    };
    let code = assemble(LD_VAR_SHADER).expect("assembles");
    let shader = gpu.upload(&binary_from_code(&code, 0));
    // Fragment RSD (0xf7fd2180): Shader address (words 0-1), Message
    // Preload 1 (word 15, low half) disabled.
    let rsd = 0xf7fd_2180u64;
    gpu.write(rsd, &shader.to_le_bytes());
    let w15 = gpu.read_u32s(rsd + 60, 1)[0];
    gpu.write_u32s(rsd + 60, &[w15 & 0xffff_0000]);
    run(&mut gpu, Some(vtc), frag);
    let got = read_rgba8(&gpu, 0xf7ff_2000);
    assert_image(&got, &want, |_, _| true);
    // The flat form gives every pixel the provoking (first) vertex's red.
    let flat = LD_VAR_SHADER.replace(
        "LD_VAR_IMM.v3.store.f32.center t1, #0.y,",
        "LD_VAR_FLAT_IMM.v3.f32 t1,",
    );
    let code = assemble(&flat).expect("assembles");
    let shader = gpu.upload(&binary_from_code(&code, 0));
    gpu.write(rsd, &shader.to_le_bytes());
    gpu.write(vtc, &[0; 4]);
    gpu.write(frag, &[0; 4]);
    run(&mut gpu, Some(vtc), frag);
    let got = read_rgba8(&gpu, 0xf7ff_2000);
    let clear = [51u8, 102, 153, 255];
    let mut covered = 0;
    for (i, px) in got.chunks(4).enumerate() {
        if want[4 * i..4 * i + 4] == clear {
            assert_eq!(px, clear);
        } else {
            assert_eq!(px, [255, 0, 0, 255], "pixel {i}");
            covered += 1;
        }
    }
    assert_eq!(covered, 1334);
}

/// Our compiler's own binary of the triangle's fragment shader
/// (`gfx_triangle.frag.spv`: the colour varying from a message preload,
/// ATEST, BLEND) in place of Mesa's, in PanVk's triangle chain: the image
/// is the one the Vulkan rules give. The fragment preloads and message
/// preloads are the binary's own (`FragmentInfo::preloads`, `messages`).
#[test]
fn our_compiled_fragment_shader_renders_the_triangle() {
    use bifrost_vk::compiler::bifrost::{Options, compile_optimized};
    use bifrost_vk::compiler::ir::Stage;
    use bifrost_vk::compiler::pipeline::compile_front;
    let (Some((mut gpu, Some(vtc), frag)), Some(want), Ok(spv)) = (
        load(SimModel::G52, "gfx_triangle"),
        expected("gfx_triangle.expected.rgba"),
        std::fs::read(path("shaders/gfx_triangle.frag.spv")),
    ) else {
        return skip("gfx_triangle");
    };
    let front = compile_front(&spv, "main", Stage::Fragment, &Default::default())
        .expect("the front half compiles the fragment shader");
    let binary = compile_optimized(
        &front.main.shader,
        Options {
            push_uniform_words: Some(front.main.push_uniforms.fau_words()),
            ..Options::default()
        },
    )
    .expect("the backend compiles the fragment shader");
    let info = binary.fragment.clone().expect("fragment metadata");
    assert_eq!(binary.uniform_words, 0);
    let shader = gpu.upload(&binary);
    // Fragment RSD (0xf7fd2180): Shader address (words 0-1); Preload
    // (word 12) the binary's fragment preload bits; Message Preload 1
    // (word 15, low half) off.
    let rsd = 0xf7fd_2180u64;
    gpu.write(rsd, &shader.to_le_bytes());
    use bifrost_vk::hw::shader::{fragment_preload as fp, renderer_state::PRELOAD};
    let mut words = gpu.read_u32s(rsd, 16);
    let p = info.preloads;
    for (field, on) in [
        (fp::COVERAGE, p.coverage),
        (fp::PRIMITIVE_FLAGS, p.primitive_flags),
        (fp::FRAGMENT_POSITION, p.fragment_position),
        (fp::SAMPLE_MASK_ID, p.sample_mask_id),
    ] {
        field
            .at(PRELOAD.start)
            .set(&mut words, u64::from(on))
            .unwrap();
    }
    // Message Preload 1 and 2 (word 15): the binary's LD_VAR preloads
    // (v7: the colour varying, record 0, as in Mesa's binary), else off.
    use bifrost_vk::hw::shader::{
        ld_var_preload as lv, message_preload as mp,
        renderer_state::{MESSAGE_PRELOAD_1, MESSAGE_PRELOAD_2},
    };
    assert!(!info.messages.is_empty(), "v7: the varying is preloaded");
    for (i, field) in [MESSAGE_PRELOAD_1, MESSAGE_PRELOAD_2]
        .into_iter()
        .enumerate()
    {
        let mut m = [0u32];
        if let Some(msg) = info.messages.get(i) {
            mp::TYPE.set(&mut m, 1).unwrap();
            lv::VARYING_INDEX
                .set(&mut m, u64::from(msg.location))
                .unwrap();
            lv::NUM_COMPONENTS
                .set(&mut m, u64::from(msg.components))
                .unwrap();
        }
        field.set(&mut words, u64::from(m[0])).unwrap();
    }
    gpu.write_u32s(rsd, &words);
    let counters = run(&mut gpu, Some(vtc), frag);
    // Our binary ran: one fragment thread per covered pixel, each executing
    // its instructions.
    let covered = want.chunks(4).filter(|p| *p != [51, 102, 153, 255]).count() as u64;
    assert_eq!(counters.threads, 6 + covered, "{counters:?}");
    assert!(
        counters.instructions >= covered * u64::from(binary.stats.instructions),
        "{counters:?}"
    );
    let got = read_rgba8(&gpu, 0xf7ff_2000);
    assert_image(&got, &want, |_, _| true);
}

/// PanVk's clear-only render pass made multisampled by hand: the FBD's
/// `Sample Count`/`Sample Pattern`, the render target's `Writeback MSAA`
/// and the Tiler Context's `Sample Pattern` must agree on 1 sample or on 4
/// with the rotated grid, else the FRAGMENT job stops with
/// JOB_CONFIG_FAULT (0x40) and writes nothing; 4 samples with "Average"
/// and a sample-locations table in memory run, and resolve the clear colour
/// to itself; "Multiple" (one surface, undocumented order) and 2 samples
/// fault.
#[test]
fn multisampled_framebuffers_fault_unless_consistent() {
    use bifrost_vk::hw::fbd::{self, FRAMEBUFFER_BYTES, framebuffer_parameters as fbp};
    use bifrost_vk::hw::{Arch, tiler::tiler_context as tc};
    let (Some((mut gpu, _, frag)), Some(want)) = (
        load(SimModel::G52, "gfx_clear_only"),
        expected("gfx_clear_only.expected.rgba"),
    ) else {
        return skip("gfx_clear_only");
    };
    let fbd_va = 0xf7f1_0000u64;
    let tagged = u64::from_le_bytes(gpu.read(frag + 32 + 8, 8).try_into().unwrap());
    let tag = [tagged as u32, (tagged >> 32) as u32];
    assert_eq!(fbd::framebuffer_pointer::POINTER.get(&tag), fbd_va);
    let zs = fbd::framebuffer_pointer::ZS_CRC_EXTENSION_PRESENT.get(&tag) != 0;
    let rt_va = fbd_va
        + FRAMEBUFFER_BYTES
        + if zs {
            fbd::zs_crc_extension(Arch::V7).bytes() as u64
        } else {
            0
        };
    let rt_layout = fbd::render_target(Arch::V7);
    let params = gpu.read_u32s(fbd_va, 16);
    let rt = gpu.read_u32s(rt_va, 16);
    let tiler_va = fbp::TILER.get(&params);
    let tiler = (tiler_va != 0).then(|| gpu.read_u32s(tiler_va, 3));
    let locations = gpu.alloc(4096);
    gpu.write_u32s(
        locations.va,
        &bifrost_vk::jm::framebuffer::SampleLocations::rotated_4x(),
    );
    let colour = 0xf7f3_0000u64;
    // (samples, FBD pattern, Writeback MSAA, tiler pattern, runs)
    let cases = [
        (4, 0, 1, 0, false),
        (2, 2, 1, 2, false),
        (4, 2, 0, 2, false),
        (4, 2, 2, 2, false),
        (1, 0, 1, 0, false),
        (4, 2, 1, 0, tiler.is_none()),
        (4, 2, 1, 2, true),
    ];
    for (samples, pattern, msaa, tiler_pattern, runs) in cases {
        let mut p = params.clone();
        fbp::SAMPLE_COUNT.set(&mut p, samples).unwrap();
        fbp::SAMPLE_PATTERN.set(&mut p, pattern).unwrap();
        fbp::SAMPLE_LOCATIONS.set(&mut p, locations.va).unwrap();
        let mut r = rt.clone();
        rt_layout.set(&mut r, "Writeback MSAA", msaa).unwrap();
        gpu.write_u32s(fbd_va, &p);
        gpu.write_u32s(rt_va, &r);
        if let (Some(t), true) = (&tiler, tiler_va != 0) {
            let mut t = t.clone();
            tc::SAMPLE_PATTERN.set(&mut t, tiler_pattern).unwrap();
            gpu.write_u32s(tiler_va, &t);
        }
        gpu.write(colour, &vec![0u8; 16 * 1024]);
        gpu.write(frag, &[0; 4]);
        let what =
            format!("{samples} samples, pattern {pattern}, MSAA {msaa}, tiler {tiler_pattern}");
        match gpu.submit(frag) {
            Ok(_) => {
                assert!(runs, "{what} ran");
                assert_image(&read_rgba8(&gpu, colour), &want, |_, _| true);
            }
            Err(e) => {
                assert!(!runs, "{what}: {e}");
                assert_eq!(e.fault().unwrap().status, 0x40, "{what}: {e}");
                assert!(
                    gpu.read(colour, 16 * 1024).iter().all(|&b| b == 0),
                    "{what}"
                );
            }
        }
    }
}
