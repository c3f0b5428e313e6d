//! Graphics draws of our own on the simulated G52 (`jm::graphics`,
//! `jm::framebuffer`): recording one draw (VERTEX + TILER jobs and every
//! descriptor they point at) and rendering the triangle frame (both chains
//! on the simulator: 3 vertices, 1,334 fragments), and fragments shaded per
//! second on the simulator: a full-screen quad at 256×256 (65,536
//! fragments) and a soup of 10^4 small triangles at 256×256 (the fragment
//! count is printed once), the quad again at 4× MSAA with the resolve, and
//! the quad with a textured shader (`textured_b9.frag`: a 64×64 RGBA8
//! texture, bilinear, repeat, times an interpolated colour).
//! Run with `cargo bench --bench graphics`.

use bifrost_vk::compiler::bifrost::binary::ShaderBinary;
use bifrost_vk::compiler::bifrost::{Options, compile_optimized};
use bifrost_vk::compiler::ir::Stage;
use bifrost_vk::compiler::pipeline::{LoweredShader, compile_front, lower_for_tiler};
use bifrost_vk::hw::format::{ComponentType, VertexFormat};
use bifrost_vk::jm::JobChain;
use bifrost_vk::jm::attributes::{
    AttributeBuffer, AttributeRecord, write_attribute_tables_to_pool,
};
use bifrost_vk::jm::framebuffer::{
    BlockFormat, ColorFormat, ColorTarget, Framebuffer, SampleLocations, add_fragment_job,
    write_framebuffer, write_tiler_context,
};
use bifrost_vk::jm::graphics::{
    Blend, ColorTargetState, Draw, DrawExtras, Multisample, Program, RasterState, Scissor,
    Topology, Viewport, add_draw_with,
};
use bifrost_vk::jm::texture::{
    SamplerDesc, TexelFormat, TexelLayout, TextureDesc, TextureTables, WrapMode,
    write_texture_tables,
};
use bifrost_vk::jm::vertex_input::Indexing;
use bifrost_vk::kmod::JD_REQ_FS;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::kmod::sim::framebuffer::u_interleaved_offset;
use bifrost_vk::testing::SimGpu;

fn main() {
    divan::main();
}

const VS: &[u8] = include_bytes!("../tests/shaders/graphics/clip_position.vert.spv");
const FS: &[u8] = include_bytes!("../tests/shaders/color_varying.frag.spv");
/// Clip position and (u, v, g, a) per vertex; `texture(tex, v_uv) *
/// v_color` with the sampler at binding 9.
const TEXTURED_VS: &[u8] = include_bytes!("../tests/shaders/graphics/clip_uv.vert.spv");
const TEXTURED_FS: &[u8] = include_bytes!("../tests/shaders/graphics/textured_b9.frag.spv");

fn compile(spv: &[u8], stage: Stage) -> (LoweredShader, ShaderBinary) {
    let mut lowered = compile_front(spv, "main", stage, &Default::default())
        .unwrap()
        .main;
    if stage == Stage::Vertex {
        lower_for_tiler(&mut lowered).unwrap();
    }
    let binary = compile_optimized(
        &lowered.shader,
        Options {
            push_uniform_words: Some(lowered.push_uniforms.fau_words()),
            ..Options::default()
        },
    )
    .unwrap();
    (lowered, binary)
}

struct Setup {
    vs: (LoweredShader, ShaderBinary, u64),
    fs: (LoweredShader, ShaderBinary, u64),
    vb: u64,
    heap: (u64, u64),
    locations: u64,
    color: u64,
    /// Vertices, framebuffer side, vertex-buffer bytes.
    vertices: u32,
    size: u32,
    vb_bytes: u64,
    /// Samples per pixel (1, or 4 with an averaged colour target).
    samples: u32,
    /// Bytes between vertices and the second attribute's f32 components
    /// (the first is the clip position).
    stride: u32,
    varying_components: u8,
    /// Texture and sampler table entries (binding n at entry n).
    textures: Option<TableEntries>,
}

/// Texture and sampler table entries, as `write_texture_tables` takes them.
type TableEntries = (Vec<Option<TextureDesc>>, Vec<Option<SamplerDesc>>);

fn setup() -> (SimGpu, Setup) {
    // gfx_triangle's vertices with w = 1.
    let data: [f32; 21] = [
        -0.75, -0.875, 0.0, 1.0, 1.0, 0.0, 0.0, //
        0.875, -0.375, 0.0, 1.0, 0.0, 1.0, 0.0, //
        -0.375, 0.84375, 0.0, 1.0, 0.0, 0.0, 1.0,
    ];
    setup_with(&data, 64)
}

/// The programs, `data` (clip x, y, z, w and an RGB colour per vertex, a
/// triangle list) and a `size`×`size` RGBA8 target on a simulated G52.
fn setup_with(data: &[f32], size: u32) -> (SimGpu, Setup) {
    setup_programs(VS, FS, data, 7, size)
}

/// [`setup_with`] for other programs, with `floats` f32 per vertex.
fn setup_programs(
    vs_spirv: &[u8],
    fs_spirv: &[u8],
    data: &[f32],
    floats: u32,
    size: u32,
) -> (SimGpu, Setup) {
    let (lvs, vs) = compile(vs_spirv, Stage::Vertex);
    let (lfs, fs) = compile(fs_spirv, Stage::Fragment);
    let mut gpu = SimGpu::new(SimModel::G52);
    let vs_code = gpu.upload(&vs);
    let fs_code = gpu.upload(&fs);
    let vb_bytes = 4 * data.len() as u64;
    let vb = gpu.alloc(vb_bytes.max(128));
    gpu.write_f32s(vb.va, data);
    let heap = gpu.alloc(1 << 22);
    let locations = gpu.alloc(4096);
    gpu.write_u32s(locations.va, &SampleLocations::single_sampled());
    let color = gpu.alloc(u64::from(size * size * 4).max(16 * 1024));
    let s = Setup {
        vs: (lvs, vs, vs_code),
        fs: (lfs, fs, fs_code),
        vb: vb.va,
        heap: (heap.va, heap.size),
        locations: locations.va,
        color: color.va,
        vertices: data.len() as u32 / floats,
        size,
        vb_bytes,
        samples: 1,
        stride: 4 * floats,
        varying_components: (floats - 4) as u8,
        textures: None,
    };
    (gpu, s)
}

/// A triangle list covering the whole framebuffer (two triangles).
fn full_screen_quad() -> Vec<f32> {
    let mut d = Vec::new();
    for (x, y) in [
        (-1.0, -1.0),
        (1.0, -1.0),
        (-1.0, 1.0),
        (-1.0, 1.0),
        (1.0, -1.0),
        (1.0, 1.0),
    ] {
        d.extend_from_slice(&[x, y, 0.0, 1.0, (x + 1.0) / 2.0, (y + 1.0) / 2.0, 0.5]);
    }
    d
}

/// `n` small triangles (legs of 2–4 pixels) at pseudo-random places of a
/// `size`×`size` framebuffer.
fn triangle_soup(n: u32, size: u32) -> Vec<f32> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |m: u32| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % u64::from(m)) as f32
    };
    let half = size as f32 / 2.0;
    let mut d = Vec::new();
    for _ in 0..n {
        let (x, y) = (next(size * 16) / 16.0, next(size * 16) / 16.0);
        let (a, b) = (2.0 + next(32) / 16.0, 2.0 + next(32) / 16.0);
        let c = [next(256) / 255.0, next(256) / 255.0, next(256) / 255.0];
        for (px, py) in [(x, y), (x + a, y), (x, y + b)] {
            d.extend_from_slice(&[px / half - 1.0, py / half - 1.0, 0.0, 1.0]);
            d.extend_from_slice(&c);
        }
    }
    d
}

/// Builds the vertex/tiler chain into `chain` and the fragment chain;
/// returns the fragment chain's head.
fn record(
    s: &Setup,
    chain: &mut JobChain,
    pool: &mut bifrost_vk::jm::GpuPool,
    arch: bifrost_vk::hw::Arch,
) -> bifrost_vk::jm::JmResult<u64> {
    let size = s.size;
    let context = write_tiler_context(pool, size, size, s.samples, s.heap.0, s.heap.1)?;
    let attributes = write_attribute_tables_to_pool(
        pool,
        arch,
        &[AttributeBuffer {
            address: s.vb,
            size: s.vb_bytes,
            stride: s.stride,
            indexing: Indexing::Linear,
        }],
        &[
            AttributeRecord {
                buffer: 0,
                format: VertexFormat::new(ComponentType::F32, 4),
                offset: 0,
            },
            AttributeRecord {
                buffer: 0,
                format: VertexFormat::new(ComponentType::F32, s.varying_components),
                offset: 16,
            },
        ],
    )?;
    let textures: Option<TextureTables> = match &s.textures {
        Some((t, smp)) => Some(write_texture_tables(pool, arch, t, smp)?),
        None => None,
    };
    let targets = [ColorTargetState {
        format: ColorFormat::Rgba8Unorm,
        blend: Blend::Opaque,
        write_mask: 15,
    }];
    add_draw_with(
        chain,
        pool,
        arch,
        &Draw {
            vertex: Program {
                binary: &s.vs.1,
                code: s.vs.2,
                lowered: &s.vs.0,
                buffers: &[],
            },
            fragment: Program {
                binary: &s.fs.1,
                code: s.fs.2,
                lowered: &s.fs.0,
                buffers: &[],
            },
            attributes,
            push_constants: &[],
            push_constants_address: 0,
            topology: Topology::TriangleList,
            count: s.vertices,
            first_vertex: 0,
            indices: None,
            raster: RasterState::default(),
            depth: None,
            targets: &targets,
            viewport: Viewport {
                x: 0.0,
                y: 0.0,
                width: size as f32,
                height: size as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            },
            scissor: Scissor {
                x: 0,
                y: 0,
                width: size,
                height: size,
            },
            tiler_context: context,
            previous_tiler: 0,
        },
        &DrawExtras {
            multisample: Multisample {
                samples: s.samples,
                sample_mask: u32::MAX,
                ..Multisample::default()
            },
            textures,
            ..DrawExtras::default()
        },
    )?;
    let colors = [ColorTarget {
        sample_stride: None,
        format: ColorFormat::Rgba8Unorm,
        block: BlockFormat::TiledUInterleaved,
        base: s.color,
        row_stride: size.div_ceil(16) * 16 * 16 * 4,
        clear: Some([0xff99_6633; 4]),
    }];
    let pointer = write_framebuffer(
        pool,
        arch,
        &Framebuffer {
            width: size,
            height: size,
            colors: &colors,
            depth: None,
            tiler_context: context,
            samples: s.samples,
            sample_locations: s.locations,
        },
    )?;
    let mut frag = JobChain::new();
    add_fragment_job(&mut frag, pool, pointer, size, size, [0, 0])?;
    Ok(frag.head())
}

/// Recording only: the draw's jobs and descriptors, the framebuffer and
/// the FRAGMENT job (nothing submitted; the pool is reset each time).
#[divan::bench(sample_count = 200)]
fn record_triangle_render_pass(bencher: divan::Bencher) {
    let (mut gpu, s) = setup();
    bencher.bench_local(|| {
        gpu.run_chain(|chain, pool, arch| {
            record(&s, chain, pool, arch)?;
            Ok(false)
        })
        .unwrap()
    });
}

/// Recording and rendering: both chains on the simulated G52.
#[divan::bench(sample_count = 50)]
fn render_triangle_frame(bencher: divan::Bencher) {
    let (mut gpu, s) = setup();
    bencher.bench_local(|| {
        let mut frag = 0;
        gpu.run_chain(|chain, pool, arch| {
            frag = record(&s, chain, pool, arch)?;
            Ok(true)
        })
        .unwrap();
        gpu.submit_with(frag, JD_REQ_FS).unwrap();
    });
}

/// Renders the pass of `s` once; returns the fragment threads the
/// FRAGMENT job started.
fn render(gpu: &mut SimGpu, s: &Setup) -> u64 {
    let mut frag = 0;
    gpu.run_chain(|chain, pool, arch| {
        frag = record(s, chain, pool, arch)?;
        Ok(true)
    })
    .unwrap();
    gpu.submit_with(frag, JD_REQ_FS).unwrap().counters.threads
}

/// Fragments shaded per second: a full-screen quad at 256×256 (65,536
/// fragments of `color_varying.frag`), recording and both chains.
#[divan::bench(sample_count = 20)]
fn render_full_screen_quad_256(bencher: divan::Bencher) {
    let (mut gpu, s) = setup_with(&full_screen_quad(), 256);
    let fragments = render(&mut gpu, &s);
    assert_eq!(fragments, 256 * 256);
    bencher
        .counter(divan::counter::ItemsCount::new(fragments))
        .bench_local(|| render(&mut gpu, &s));
}

/// Fragments shaded per second: 10^4 small triangles at 256×256 (one
/// draw; the fragment count is printed).
#[divan::bench(sample_count = 10)]
fn render_triangle_soup_10k(bencher: divan::Bencher) {
    let (mut gpu, s) = setup_with(&triangle_soup(10_000, 256), 256);
    let fragments = render(&mut gpu, &s);
    eprintln!("triangle soup: {fragments} fragments");
    bencher
        .counter(divan::counter::ItemsCount::new(fragments))
        .bench_local(|| render(&mut gpu, &s));
}

/// The full-screen quad at 4× MSAA (every sample covered, the shader once
/// per pixel, four samples blended and averaged on writeback).
#[divan::bench(sample_count = 20)]
fn render_full_screen_quad_256_msaa4(bencher: divan::Bencher) {
    let (mut gpu, mut s) = setup_with(&full_screen_quad(), 256);
    s.samples = 4;
    gpu.write_u32s(s.locations, &SampleLocations::rotated_4x());
    // Pixels on the shared diagonal have samples in both triangles: each
    // shades them once (256 more threads than pixels).
    let fragments = render(&mut gpu, &s);
    assert_eq!(fragments, 256 * 256 + 256);
    bencher
        .counter(divan::counter::ItemsCount::new(fragments))
        .bench_local(|| render(&mut gpu, &s));
}

/// Fragments shaded per second with a texture: the full-screen quad at
/// 256×256 (65,536 fragments of `textured_b9.frag`, TEXC with a computed
/// LOD) sampling a 64×64 RGBA8 texture (Tiled U-Interleaved, random
/// texels, bilinear, repeat; u and v from 0 to 2, so each texel covers 2×2
/// pixels), recording and both chains.
#[divan::bench(sample_count = 20)]
fn render_textured_quad_256(bencher: divan::Bencher) {
    let mut data = Vec::new();
    for (x, y) in [
        (-1.0f32, -1.0f32),
        (1.0, -1.0),
        (-1.0, 1.0),
        (-1.0, 1.0),
        (1.0, -1.0),
        (1.0, 1.0),
    ] {
        data.extend_from_slice(&[x, y, 0.0, 1.0, x + 1.0, y + 1.0, (x + 1.0) / 2.0, 1.0]);
    }
    let (mut gpu, mut s) = setup_programs(TEXTURED_VS, TEXTURED_FS, &data, 8, 256);
    // Four 16×16 tiles per row of tiles, four rows.
    let row_stride = 4 * 16 * 16 * 4;
    let texels = gpu.alloc(4 * row_stride);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for y in 0..64 {
        for x in 0..64 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let texel = (state as u32 | 0xff00_0000).to_le_bytes();
            gpu.write(
                texels.va + u_interleaved_offset(x, y, row_stride, 4),
                &texel,
            );
        }
    }
    let mut textures = vec![None; 10];
    let mut samplers = vec![None; 10];
    textures[9] = Some(TextureDesc {
        dim: Default::default(),
        address: texels.va,
        width: 64,
        height: 64,
        row_stride: row_stride as u32,
        layout: TexelLayout::Tiled,
        format: TexelFormat::Rgba8Unorm,
        layers: 1,
        layer_stride: 0,
        levels: 1,
        mips: Default::default(),
    });
    samplers[9] = Some(SamplerDesc {
        linear: true,
        wrap: [WrapMode::Repeat; 2],
        border: [0.0; 4],
        lod: Default::default(),
    });
    s.textures = Some((textures, samplers));
    let fragments = render(&mut gpu, &s);
    assert_eq!(fragments, 256 * 256);
    // The texture reached the pixels: random texels, bilinear, give
    // thousands of different colours (the clear colour is one).
    let pixels = gpu.read(s.color, 256 * 256 * 4);
    let distinct: std::collections::HashSet<&[u8]> = pixels.chunks(4).collect();
    assert!(distinct.len() > 1000, "{} colours", distinct.len());
    bencher
        .counter(divan::counter::ItemsCount::new(fragments))
        .bench_local(|| render(&mut gpu, &s));
}
