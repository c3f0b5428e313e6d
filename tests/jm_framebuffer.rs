//! `jm::framebuffer` against PanVk's framebuffers for the same render
//! passes (the G52 graphics reference vectors, docs/DESIGN.md "The
//! reference vectors"): `gfx_clear_only` (one RGBA8 target cleared to
//! (0.2, 0.4, 0.6, 1.0)) and `gfx_indexed_depth` (the same plus a cleared,
//! stored D32 depth target). The framebuffer parameters, the ZS CRC
//! extension, the render target, the tiler context and the FRAGMENT payload
//! must equal PanVk's words except where they hold addresses of memory we
//! allocate ourselves (and the tiler heap, which we size ourselves). The
//! clear words are computed here from the clear colour by the Vulkan
//! UNORM rule, not copied.

use bifrost_vk::hw::fbd::{self, framebuffer_parameters as fp, framebuffer_pointer as ptr};
use bifrost_vk::hw::job::{FRAGMENT_PAYLOAD, fragment as fj};
use bifrost_vk::hw::layout::{Field, Layout};
use bifrost_vk::hw::snapshot::Snapshot;
use bifrost_vk::hw::tiler::{TILER_CONTEXT, tiler_context};
use bifrost_vk::hw::{Arch, job};
use bifrost_vk::jm::framebuffer::{
    BlockFormat, ColorFormat, ColorTarget, DepthFormat, DepthTarget, Framebuffer, SampleLocations,
    StencilTarget, ZsOptions, add_fragment_job, write_framebuffer, write_framebuffer_with,
    write_tiler_context,
};
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::SimGpu;

const DIR: &str = bifrost_vk::reference_path!("mesa-g52/graphics/jobchains/");

/// Vulkan's float → UNORM8 conversion (round to nearest).
fn unorm8(v: f32) -> u32 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u32
}

fn rgba8_clear(c: [f32; 4]) -> [u32; 4] {
    let p = unorm8(c[0]) | unorm8(c[1]) << 8 | unorm8(c[2]) << 16 | unorm8(c[3]) << 24;
    [p; 4]
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Zero the given fields (addresses that legitimately differ).
fn mask(w: &mut [u32], fields: &[Field]) {
    for f in fields {
        f.set(w, 0).unwrap();
    }
}

/// Equal words, or a panic naming every field that differs.
fn same(what: &str, layout: &Layout, ours: &[u32], theirs: &[u32]) {
    if ours == theirs {
        return;
    }
    let diffs: Vec<String> = layout
        .leaves()
        .into_iter()
        .filter(|(_, f)| f.get_raw(ours) != f.get_raw(theirs))
        .map(|(p, f)| {
            format!(
                "{p}: ours {:#x}, PanVk {:#x}",
                f.get_raw(ours),
                f.get_raw(theirs)
            )
        })
        .collect();
    panic!("{what} differs from PanVk's:\n{}", diffs.join("\n"));
}

struct Emitted {
    gpu: SimGpu,
    pointer: u64,
    context: u64,
    payload: Vec<u32>,
}

fn emit(colors: &[ColorTarget], depth: Option<DepthTarget>) -> Emitted {
    let mut gpu = SimGpu::new(SimModel::G52);
    let heap = gpu.alloc(1 << 20);
    let locations = gpu.alloc(4096);
    gpu.write_u32s(locations.va, &SampleLocations::single_sampled());
    let (mut pointer, mut context, mut job_va) = (0, 0, 0);
    // The FRAGMENT job is built, not run: only its words are compared.
    let _ = gpu.run_chain(|chain, pool, arch| {
        context = write_tiler_context(pool, 64, 64, 1, heap.va, heap.size)?;
        pointer = write_framebuffer(
            pool,
            arch,
            &Framebuffer {
                width: 64,
                height: 64,
                colors,
                depth,
                tiler_context: context,
                samples: 1,
                sample_locations: locations.va,
            },
        )?;
        add_fragment_job(chain, pool, pointer, 64, 64, [0, 0])?;
        job_va = chain.job_va(1).unwrap();
        Ok(false)
    });
    let payload = words(&gpu.read_gpu(job_va + job::PAYLOAD_OFFSET, FRAGMENT_PAYLOAD.bytes()));
    Emitted {
        gpu,
        pointer,
        context,
        payload,
    }
}

fn compare(name: &str, colors: &[ColorTarget], depth: Option<DepthTarget>) {
    let path = format!("{DIR}{name}.frag.snap");
    let Ok(file) = std::fs::read(&path) else {
        eprintln!("skipped: {path} not found (the reference vectors sit beside the clone)");
        return;
    };
    let snap = Snapshot::parse(&file).unwrap();
    let read = |va: u64, n: usize| words(snap.read(va, n).unwrap());
    let ours = emit(colors, depth);
    let gpu = &ours.gpu;
    let our = |va: u64, n: usize| words(&gpu.read_gpu(va, n));

    // FRAGMENT payload: the same tiles; the framebuffer pointer's tags too.
    let mut theirs_payload = read(snap.jc + job::PAYLOAD_OFFSET, FRAGMENT_PAYLOAD.bytes());
    let their_pointer = fj::FRAMEBUFFER.get(&theirs_payload);
    let mut our_payload = ours.payload.clone();
    assert_eq!(fj::FRAMEBUFFER.get(&our_payload), ours.pointer);
    let tags = |p: u64| p & 63;
    assert_eq!(
        tags(ours.pointer),
        tags(their_pointer),
        "framebuffer pointer tags"
    );
    mask(&mut our_payload, &[fj::FRAMEBUFFER]);
    mask(&mut theirs_payload, &[fj::FRAMEBUFFER]);
    same(
        "FRAGMENT payload",
        &FRAGMENT_PAYLOAD,
        &our_payload,
        &theirs_payload,
    );

    // Framebuffer parameters.
    let params = &fbd::FRAMEBUFFER_PARAMETERS;
    let n = params.bytes();
    let (our_fb, their_fb) = (ours.pointer & !63, their_pointer & !63);
    let mut a = our(our_fb, n);
    let mut b = read(their_fb, n);
    assert_eq!(fp::TILER.get(&a), ours.context);
    let their_context = fp::TILER.get(&b);
    mask(&mut a, &[fp::SAMPLE_LOCATIONS, fp::TILER]);
    mask(&mut b, &[fp::SAMPLE_LOCATIONS, fp::TILER]);
    same("Framebuffer Parameters", params, &a, &b);

    // ZS CRC extension and render targets follow the 128-byte framebuffer.
    let mut at = fbd::FRAMEBUFFER_BYTES;
    if depth.is_some() {
        let zs = fbd::zs_crc_extension(Arch::V7);
        let n = zs.bytes();
        let base = zs.lookup("ZS Writeback Base").unwrap();
        let mut a = our(our_fb + at, n);
        let mut b = read(their_fb + at, n);
        mask(&mut a, &[base]);
        mask(&mut b, &[base]);
        same("ZS CRC Extension", zs, &a, &b);
        at += n as u64;
    }
    let rt = fbd::render_target(Arch::V7);
    let base = rt.lookup("RGB.Base").unwrap();
    for i in 0..colors.len() as u64 {
        let n = rt.bytes();
        let mut a = our(our_fb + at + i * n as u64, n);
        let mut b = read(their_fb + at + i * n as u64, n);
        mask(&mut a, &[base]);
        mask(&mut b, &[base]);
        same("Render Target", rt, &a, &b);
    }

    // Tiler context (its heap is ours: only the pointer differs).
    let n = TILER_CONTEXT.bytes();
    let mut a = our(ours.context, n);
    let mut b = read(their_context, n);
    mask(&mut a, &[tiler_context::HEAP, tiler_context::POLYGON_LIST]);
    mask(&mut b, &[tiler_context::HEAP, tiler_context::POLYGON_LIST]);
    same("Tiler Context", &TILER_CONTEXT, &a, &b);

    // The pointer's tags say what follows the framebuffer.
    let tag_words = [ours.pointer as u32, (ours.pointer >> 32) as u32];
    assert_eq!(
        ptr::ZS_CRC_EXTENSION_PRESENT.get(&tag_words),
        u64::from(depth.is_some())
    );
    assert_eq!(
        ptr::RENDER_TARGET_COUNT.get(&tag_words),
        colors.len() as u64
    );
}

fn color() -> ColorTarget {
    ColorTarget {
        sample_stride: None,
        format: ColorFormat::Rgba8Unorm,
        block: BlockFormat::TiledUInterleaved,
        base: 0x10_0000,
        row_stride: 4096,
        clear: Some(rgba8_clear([0.2, 0.4, 0.6, 1.0])),
    }
}

#[test]
fn clear_only_framebuffer_matches_panvk() {
    compare("gfx_clear_only", &[color()], None);
}

#[test]
fn colour_and_depth_framebuffer_matches_panvk() {
    compare(
        "gfx_indexed_depth",
        &[color()],
        Some(DepthTarget {
            sample_stride: None,
            block: BlockFormat::TiledUInterleaved,
            base: 0x20_0000,
            row_stride: 4096,
            clear: 1.0,
            write: true,
        }),
    );
}

#[test]
fn bad_framebuffers_are_errors() {
    let mut gpu = SimGpu::new(SimModel::G72);
    let r = gpu.run_chain(|_, pool, arch| {
        for (w, h, n) in [
            (0, 64, 1),
            (64, 0, 1),
            (70_000, 64, 1),
            (64, 64, 0),
            (64, 64, 9),
        ] {
            let colors = vec![color(); n];
            let fb = Framebuffer {
                width: w,
                height: h,
                colors: &colors,
                depth: None,
                tiler_context: 0,
                samples: 1,
                sample_locations: 0,
            };
            assert!(
                write_framebuffer(pool, arch, &fb).is_err(),
                "{w}x{h}, {n} targets"
            );
        }
        assert!(write_tiler_context(pool, 0, 1, 1, 0, 4096).is_err());
        // D24S8: the stencil is the depth surface's top byte, so a stencil
        // target elsewhere (or without depth) is an error; the same
        // surface encodes.
        let colors = [color()];
        let depth = DepthTarget {
            block: BlockFormat::TiledUInterleaved,
            base: 0x10_0000,
            row_stride: 4096,
            clear: 1.0,
            write: true,
            sample_stride: None,
        };
        let stencil = StencilTarget {
            block: depth.block,
            base: depth.base,
            row_stride: depth.row_stride,
            clear: 0,
            write: true,
            sample_stride: None,
        };
        let fb = |depth| Framebuffer {
            width: 64,
            height: 64,
            colors: &colors,
            depth,
            tiler_context: 0,
            samples: 1,
            sample_locations: 0,
        };
        for (d, st, ok) in [
            (Some(depth), stencil, true),
            (None, stencil, false),
            (
                Some(depth),
                StencilTarget {
                    base: 0x20_0000,
                    ..stencil
                },
                false,
            ),
            (
                Some(depth),
                StencilTarget {
                    row_stride: 1024,
                    ..stencil
                },
                false,
            ),
        ] {
            let zs = ZsOptions {
                depth_format: DepthFormat::D24S8,
                stencil: Some(st),
            };
            assert_eq!(
                write_framebuffer_with(pool, arch, &fb(d), &zs).is_ok(),
                ok,
                "{d:?} {st:?}"
            );
        }
        Ok(false)
    });
    assert!(r.unwrap().is_none());
}

/// Byte offset of pixel (x, y) in a Tiled U-Interleaved surface: 16×16
/// tiles left to right, tile rows `row_stride` apart, and inside a tile
/// index i with bit 2k+1 = y_k and bit 2k = x_k XOR y_k (k = 0..3).
fn u_interleaved(x: u32, y: u32, row_stride: u32, bytes: u32) -> u64 {
    let (tx, ty) = (x & 15, y & 15);
    let mut i = 0;
    for k in 0..4 {
        let xk = (tx >> k) & 1;
        let yk = (ty >> k) & 1;
        i |= (yk << (2 * k + 1)) | ((xk ^ yk) << (2 * k));
    }
    u64::from(y >> 4) * u64::from(row_stride) + u64::from(((x >> 4) * 256 + i) * bytes)
}

/// A render pass of our own that only clears: the FRAGMENT job our
/// emitters write runs on the simulated G52 and leaves every pixel at the
/// clear colour (converted by the UNORM rule) and every depth at the clear
/// depth, with nothing written past either surface.
#[test]
fn our_clear_framebuffer_renders_on_the_simulator() {
    let (w, h) = (48u32, 40u32);
    let row_stride = w.div_ceil(16) * 256 * 4;
    let surface = u64::from(row_stride) * u64::from(h.div_ceil(16));
    let mut gpu = SimGpu::new(SimModel::G52);
    let heap = gpu.alloc(1 << 20);
    let locations = gpu.alloc(4096);
    gpu.write_u32s(locations.va, &SampleLocations::single_sampled());
    let color_buf = gpu.alloc(surface + 256);
    let depth_buf = gpu.alloc(surface + 256);
    gpu.write(color_buf.va, &vec![0xAB; (surface + 256) as usize]);
    gpu.write(depth_buf.va, &vec![0xCD; (surface + 256) as usize]);
    let clear = [0.25f32, 0.5, 0.75, 1.0];
    let run = gpu
        .run_chain(|chain, pool, arch| {
            let context = write_tiler_context(pool, w, h, 1, heap.va, heap.size)?;
            let colors = [ColorTarget {
                sample_stride: None,
                base: color_buf.va,
                row_stride,
                clear: Some(rgba8_clear(clear)),
                ..color()
            }];
            let pointer = write_framebuffer(
                pool,
                arch,
                &Framebuffer {
                    width: w,
                    height: h,
                    colors: &colors,
                    depth: Some(DepthTarget {
                        sample_stride: None,
                        block: BlockFormat::TiledUInterleaved,
                        base: depth_buf.va,
                        row_stride,
                        clear: 0.375,
                        write: true,
                    }),
                    tiler_context: context,
                    samples: 1,
                    sample_locations: locations.va,
                },
            )?;
            add_fragment_job(chain, pool, pointer, w, h, [0, 0])?;
            Ok(true)
        })
        .unwrap_or_else(|e| panic!("the FRAGMENT job must complete: {e}"));
    assert!(run.is_some(), "a chain was submitted");
    let color = gpu.read(color_buf.va, (surface + 256) as usize);
    let depth = gpu.read(depth_buf.va, (surface + 256) as usize);
    let want = [
        unorm8(clear[0]),
        unorm8(clear[1]),
        unorm8(clear[2]),
        unorm8(clear[3]),
    ];
    for y in 0..h {
        for x in 0..w {
            let at = u_interleaved(x, y, row_stride, 4) as usize;
            let px: Vec<u32> = color[at..at + 4].iter().map(|&b| u32::from(b)).collect();
            assert_eq!(px, want, "colour at ({x}, {y})");
            let d = f32::from_le_bytes(depth[at..at + 4].try_into().unwrap());
            assert_eq!(d, 0.375, "depth at ({x}, {y})");
        }
    }
    assert!(
        color[surface as usize..].iter().all(|&b| b == 0xAB),
        "colour written past the surface"
    );
    assert!(
        depth[surface as usize..].iter().all(|&b| b == 0xCD),
        "depth written past the surface"
    );
}

/// The 4× sample-locations table holds Vulkan's standard 4× locations
/// (`testing::raster::sample_locations(4)`, from the spec's table) in
/// 1/256 pixel, zero after them, and the pixel centre as the origin in
/// entry 32 (Mesa's `pan_samples.c` layout); the single-sampled table
/// the centre in entries 0 and 32.
#[test]
fn sample_location_tables_hold_the_standard_locations() {
    use bifrost_vk::testing::raster::sample_locations;
    for (samples, table) in [
        (1, SampleLocations::single_sampled()),
        (4, SampleLocations::rotated_4x()),
    ] {
        assert_eq!(SampleLocations::for_samples(samples).unwrap(), table);
        let standard = sample_locations(samples);
        for (i, &w) in table.iter().enumerate() {
            let (x, y) = (f64::from(w & 0xffff) / 256.0, f64::from(w >> 16) / 256.0);
            match (i, standard.get(i)) {
                (32, _) => assert_eq!((x, y), (0.5, 0.5), "origin"),
                (_, Some(&s)) => assert_eq!((x, y), s, "{samples}x sample {i}"),
                (_, None) => assert_eq!(w, 0, "{samples}x entry {i}"),
            }
        }
    }
}

/// loadOp LOAD (`write_framebuffer_preloaded`): the framebuffer enables
/// pre-frame shader 0 with mode "Always" and points at three Draws, the
/// first the colour preload (its Renderer State counts one texture per
/// target and one sampler; the loaded target's Blend is Opaque, the other
/// disabled; texture entry n reads target n when it loads), the other two
/// zero; the shader is compiled once per pool. Loads the emitter cannot
/// encode are errors.
#[test]
fn preloaded_framebuffers_point_at_the_preload_draw() {
    use bifrost_vk::hw::draw::dcd;
    use bifrost_vk::hw::layouts;
    use bifrost_vk::hw::shader::renderer_state as rs;
    use bifrost_vk::jm::framebuffer::write_framebuffer_preloaded;
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let loaded = ColorTarget {
            clear: None,
            ..color()
        };
        let other = ColorTarget {
            format: ColorFormat::R32Uint,
            base: 0x20_0000,
            clear: Some([7; 4]),
            ..color()
        };
        let colors = [loaded, other];
        fn fb(colors: &[ColorTarget]) -> Framebuffer<'_> {
            Framebuffer {
                width: 64,
                height: 48,
                colors,
                depth: None,
                tiler_context: 0,
                samples: 1,
                sample_locations: 0,
            }
        }
        let mut pointers = Vec::new();
        let mut plain = 0u64;
        let mut arch = Arch::V7;
        let r = gpu.run_chain(|_, pool, a| {
            arch = a;
            let zs = ZsOptions::default();
            for _ in 0..2 {
                pointers.push(write_framebuffer_preloaded(
                    pool,
                    a,
                    &fb(&colors),
                    &zs,
                    &[true, false],
                )?);
            }
            // Errors: a clear colour on a loaded target, one flag per
            // target, a multisampled framebuffer, a format the texture
            // path does not read.
            let cleared = [color()];
            assert!(write_framebuffer_preloaded(pool, a, &fb(&cleared), &zs, &[true]).is_err());
            assert!(write_framebuffer_preloaded(pool, a, &fb(&colors), &zs, &[true]).is_err());
            let one = [loaded];
            let ms = Framebuffer {
                samples: 4,
                ..fb(&one)
            };
            assert!(write_framebuffer_preloaded(pool, a, &ms, &zs, &[true]).is_err());
            let unorm16 = [ColorTarget {
                format: ColorFormat::R16Unorm,
                ..loaded
            }];
            assert!(write_framebuffer_preloaded(pool, a, &fb(&unorm16), &zs, &[true]).is_err());
            // Nothing loaded: no frame shader.
            plain = write_framebuffer_preloaded(pool, a, &fb(&colors), &zs, &[false, false])?;
            Ok(false)
        });
        assert!(r.unwrap().is_none());
        let l = layouts(arch);
        let mut shaders = Vec::new();
        for &p in &pointers {
            let fbd_va = ptr::POINTER.get(&[p as u32, (p >> 32) as u32]);
            let params =
                words(&gpu.read_gpu(fbd_va, 4 * fbd::FRAMEBUFFER_PARAMETERS.words as usize));
            assert_eq!(fp::PRE_FRAME_0.get(&params), 1, "Always");
            assert_eq!(fp::PRE_FRAME_1.get(&params), 0);
            assert_eq!(fp::POST_FRAME.get(&params), 0);
            let dcds = fp::FRAME_SHADER_DCDS.get(&params);
            assert!(dcds != 0 && dcds.is_multiple_of(64), "{dcds:#x}");
            let draw_bytes = 4 * l.draw.words as usize;
            let all = words(&gpu.read_gpu(dcds, 3 * draw_bytes));
            let (draw, rest) = all.split_at(l.draw.words as usize);
            assert!(
                rest.iter().all(|&w| w == 0),
                "pre-frame 1 and post-frame Draws are zero"
            );
            assert_eq!(dcd::POSITION.get(draw), 0);
            let state = dcd::STATE.get(draw);
            let rsd = words(&gpu.read_gpu(state, 4 * l.renderer_state.words as usize));
            assert_eq!(rs::TEXTURE_COUNT.get(&rsd), 2);
            assert_eq!(rs::SAMPLER_COUNT.get(&rsd), 1);
            shaders.push(rs::SHADER_ADDRESS.get(&rsd));
            let blend = bifrost_vk::hw::blend::blend(arch);
            let bd = |i: u64| {
                words(&gpu.read_gpu(state + 4 * u64::from(l.renderer_state.words) + 16 * i, 16))
            };
            assert_eq!(blend.get(&bd(0), "Enable").unwrap(), 1);
            assert_eq!(blend.get(&bd(0), "Internal.Mode").unwrap(), 1, "Opaque");
            assert_eq!(blend.get(&bd(1), "Enable").unwrap(), 0);
            let textures = words(&gpu.read_gpu(dcd::TEXTURES.get(draw), 64));
            assert!(textures[..8].iter().any(|&w| w != 0));
            assert!(textures[8..].iter().all(|&w| w == 0));
        }
        assert_eq!(shaders[0], shaders[1], "compiled once per pool");
        let fbd_va = ptr::POINTER.get(&[plain as u32, (plain >> 32) as u32]);
        let params = words(&gpu.read_gpu(fbd_va, 4 * fbd::FRAMEBUFFER_PARAMETERS.words as usize));
        assert_eq!(fp::PRE_FRAME_0.get(&params), 0, "nothing loaded: Never");
        assert_eq!(fp::FRAME_SHADER_DCDS.get(&params), 0);
    }
}

/// Depth LOAD (`write_framebuffer_loaded`): pre-frame shader 1 "Always"
/// with the depth preload at Draw 1 (depth from the shader, late ZS
/// update, depth write on, Blends disabled), Draw 0 zero when no colour
/// loads; refused without a depth target or for a depth format other than
/// D32.
#[test]
fn depth_preload_is_pre_frame_shader_1() {
    use bifrost_vk::hw::draw::dcd;
    use bifrost_vk::hw::layouts;
    use bifrost_vk::hw::shader::{multisample_misc as msm, renderer_state as rs};
    use bifrost_vk::jm::framebuffer::write_framebuffer_loaded;
    let mut gpu = SimGpu::new(SimModel::G52);
    let colors = [color()];
    let depth = DepthTarget {
        sample_stride: None,
        block: BlockFormat::TiledUInterleaved,
        base: 0x20_0000,
        row_stride: 4096,
        clear: 1.0,
        write: true,
    };
    let fb = Framebuffer {
        width: 64,
        height: 64,
        colors: &colors,
        depth: Some(depth),
        tiler_context: 0,
        samples: 1,
        sample_locations: 0,
    };
    let mut pointer = 0;
    let mut arch = Arch::V7;
    let r = gpu.run_chain(|_, pool, a| {
        arch = a;
        let zs = ZsOptions::default();
        pointer = write_framebuffer_loaded(pool, a, &fb, &zs, &[false], true)?;
        let no_depth = Framebuffer { depth: None, ..fb };
        assert!(write_framebuffer_loaded(pool, a, &no_depth, &zs, &[false], true).is_err());
        let d24 = ZsOptions {
            depth_format: DepthFormat::D24X8,
            stencil: None,
        };
        assert!(write_framebuffer_loaded(pool, a, &fb, &d24, &[false], true).is_err());
        Ok(false)
    });
    assert!(r.unwrap().is_none());
    let l = layouts(arch);
    let fbd_va = ptr::POINTER.get(&[pointer as u32, (pointer >> 32) as u32]);
    let params = words(&gpu.read_gpu(fbd_va, 4 * fbd::FRAMEBUFFER_PARAMETERS.words as usize));
    assert_eq!(fp::PRE_FRAME_0.get(&params), 0);
    assert_eq!(fp::PRE_FRAME_1.get(&params), 1, "Always");
    let dcds = fp::FRAME_SHADER_DCDS.get(&params);
    let n = l.draw.words as usize;
    let all = words(&gpu.read_gpu(dcds, 4 * 3 * n));
    assert!(all[..n].iter().all(|&w| w == 0), "no colour preload");
    assert!(all[2 * n..].iter().all(|&w| w == 0), "no post-frame shader");
    let draw = &all[n..2 * n];
    let rsd = words(&gpu.read_gpu(dcd::STATE.get(draw), 4 * l.renderer_state.words as usize));
    let get = |path: &str| l.renderer_state.get(&rsd, path).unwrap();
    assert_eq!(get("Properties.Depth source"), 3, "Shader");
    assert_eq!(get("Properties.ZS update operation"), 3, "Force Late");
    assert_eq!(get("Properties.Pixel kill operation"), 3, "Force Late");
    let ms = [rs::MULTISAMPLE_MISC.get(&rsd) as u32];
    assert_eq!(msm::DEPTH_FUNCTION.get(&ms), 7, "Always");
    assert_eq!(msm::DEPTH_WRITE_MASK.get(&ms), 1);
    assert_eq!(rs::TEXTURE_COUNT.get(&rsd), 1);
}
