//! Our whole graphics path on the simulated G52: the reference vectors'
//! GLSL (`gfx_*.vert/.frag.spv`, docs/DESIGN.md "The reference vectors")
//! compiled by our compiler (the vertex shader lowered for the tiler by
//! `pipeline::lower_for_tiler`), VERTEX + TILER jobs from `jm::graphics`,
//! the framebuffer and FRAGMENT job from `jm::framebuffer`, submitted as
//! two chains (the second with `JD_REQ_FS`). The attachments are compared
//! with `testing::raster` (the Vulkan rules, written independently of the
//! simulator): exact coverage, colours within 1 LSB, depth exactly.
//!
//! The vertex data are those of PanVk's vectors (the reference folder's
//! `capture_graphics.c`), whose vertices put no pixel centre on an edge.

use bifrost_vk::compiler::bifrost::binary::ShaderBinary;
use bifrost_vk::compiler::bifrost::{Options, compile_optimized};
use bifrost_vk::compiler::ir::Stage;
use bifrost_vk::compiler::pipeline::{LoweredShader, compile_front, lower_for_tiler};
use bifrost_vk::hw::format::{ComponentType, VertexFormat};
use bifrost_vk::jm::attributes::{
    AttributeBuffer, AttributeRecord, write_attribute_tables_to_pool,
};
use bifrost_vk::jm::blend::{BlendEquation, BlendFactor, BlendOp};
use bifrost_vk::jm::framebuffer::{
    BlockFormat, ColorFormat, ColorKind, ColorTarget, DepthFormat as ZDepthFormat, DepthTarget,
    Framebuffer, SampleLocations, StencilTarget, ZsOptions, add_fragment_job, write_framebuffer,
    write_framebuffer_loaded, write_tiler_context,
};
use bifrost_vk::jm::graphics::{
    Blend, ColorTargetState, CompareOp, DepthBias, DepthState, Draw, DrawExtras, DrawJobs,
    IndexBuffer, IndexType, Multisample, Program, RasterState, Scissor, StencilFace, StencilOp,
    StencilState, Topology, Viewport, add_draw, add_draw_with,
};
use bifrost_vk::jm::texture::{
    SamplerDesc, TexelFormat, TexelLayout, TextureDesc, WrapMode, write_texture_tables,
};
use bifrost_vk::jm::{Indexing, JobChain};
use bifrost_vk::kmod::JD_REQ_FS;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::kmod::sim::framebuffer::u_interleaved_offset;
use bifrost_vk::testing::raster::{self, Interpolation, ops};
use bifrost_vk::testing::{RunError, SimGpu};

const SHADERS: &str = bifrost_vk::reference_path!("mesa-g52/graphics/shaders");
const SIZE: u32 = 64;
const CLEAR: [f32; 4] = [0.2, 0.4, 0.6, 1.0];

fn spv(name: &str) -> Option<Vec<u8>> {
    std::fs::read(format!("{SHADERS}/{name}")).ok()
}

fn skip(what: &str) {
    eprintln!("skipped: {what} not found ({SHADERS})");
}

/// A compiled stage: the front half's output and the binary.
struct Stage2 {
    lowered: LoweredShader,
    binary: ShaderBinary,
}

fn compile(spv: &[u8], stage: Stage) -> Stage2 {
    compile_for(spv, stage, Options::default().arch)
}

fn compile_for(spv: &[u8], stage: Stage, arch: bifrost_vk::compiler::bifrost::Arch) -> Stage2 {
    let front = compile_front(spv, "main", stage, &Default::default()).expect("front half");
    let mut lowered = front.main;
    if stage == Stage::Vertex {
        assert!(lower_for_tiler(&mut lowered).expect("lower_for_tiler"));
    }
    let binary = compile_optimized(
        &lowered.shader,
        Options {
            push_uniform_words: Some(lowered.push_uniforms.fau_words()),
            arch,
            ubo_table: false,
        },
    )
    .expect("backend");
    Stage2 { lowered, binary }
}

/// Vulkan's float → UNORM8 conversion.
fn unorm8(v: f32) -> u32 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u32
}

/// One draw of a scene.
#[derive(Clone)]
struct DrawSpec {
    topology: Topology,
    count: u32,
    first: u32,
    /// Indices (the draw reads `count` of them from the start).
    indices: Option<Indices>,
    blend: Blend,
    /// `colorWriteMask` of the one colour target.
    write_mask: u8,
    /// Stencil, depth bias, occlusion counter (`occlusion` is replaced by
    /// a counter of the harness's when `Some`).
    extras: DrawExtras,
    raster: RasterState,
}

#[derive(Clone)]
struct Indices {
    ty: IndexType,
    values: Vec<u32>,
    vertex_offset: i32,
    restart: bool,
}

impl Indices {
    fn u16(values: &[u32]) -> Option<Indices> {
        Some(Indices {
            ty: IndexType::U16,
            values: values.to_vec(),
            vertex_offset: 0,
            restart: false,
        })
    }

    fn restart_value(&self) -> u32 {
        match self.ty {
            IndexType::U8 => 0xff,
            IndexType::U16 => 0xffff,
            IndexType::U32 => u32::MAX,
        }
    }

    fn bytes(&self) -> Vec<u8> {
        self.values
            .iter()
            .flat_map(|&i| match self.ty {
                IndexType::U8 => vec![i as u8],
                IndexType::U16 => (i as u16).to_le_bytes().to_vec(),
                IndexType::U32 => i.to_le_bytes().to_vec(),
            })
            .collect()
    }

    /// The indices that are not restarts.
    fn used(&self) -> impl Iterator<Item = u32> + '_ {
        let r = self.restart_value();
        self.values
            .iter()
            .copied()
            .filter(move |&i| !self.restart || i != r)
    }
}

/// The fragment shader's output for interpolated inputs `c` (what the
/// reference shades with).
type Shade = fn(&[f64]) -> [f64; 4];

fn opaque_colour(c: &[f64]) -> [f64; 4] {
    [c[0], c[1], c[2], 1.0]
}

/// A render pass: one vertex buffer, one pipeline (per scene), draws.
struct Scene<'a> {
    vs: &'a Stage2,
    fs: &'a Stage2,
    /// Vertex data (f32) and stride in bytes; attributes (format, offset).
    data: Vec<f32>,
    stride: u32,
    attributes: Vec<(u8, u32)>,
    depth: Option<DepthState>,
    draws: Vec<DrawSpec>,
    viewport: Viewport,
    scissor: Scissor,
    /// The fragment shader's function and how its input is interpolated.
    shade: Shade,
    interpolation: Interpolation,
    /// A stencil attachment (S8) cleared to this value.
    stencil_clear: Option<u8>,
    /// The colour attachment's format.
    format: ColorFormat,
    /// The depth attachment's format (with `depth`).
    depth_format: ZDepthFormat,
    /// Samples per pixel (1 or 4); with 4, depth and stencil are stored
    /// per sample.
    samples: u32,
    /// With 4 samples: the colour target stores every sample ("Layered";
    /// `Output::color` then holds them, sample-minor) instead of their
    /// average.
    per_sample: bool,
    /// Texture and sampler tables for the fragment shader (binding n of
    /// set 0 at entry n, `jm::texture`).
    textures: Option<SceneTextures>,
    /// Colour targets 1, 2 … (opaque, every channel written; single
    /// sample), their codes in `Output::more_codes`.
    more_formats: Vec<ColorFormat>,
    /// Write masks of targets 1, 2 … (missing ones: 15); a partial mask of
    /// a float target takes a blend shader.
    more_write_masks: Vec<u8>,
    /// The reference runs the shader once per covered sample (the Vulkan
    /// spec's "Sample Shading"): what the shader's use of `SampleId`,
    /// `SamplePosition` or a `Sample` input, or `minSampleShading`, asks.
    sample_shading: bool,
}

type SceneTextures = (Vec<Option<TextureDesc>>, Vec<Option<SamplerDesc>>);

struct Output {
    /// RGBA per pixel, or per sample (sample-minor) with `per_sample`: the
    /// leading bytes of each pixel in memory (8-bit formats).
    color: Vec<u8>,
    /// The same pixels' channel codes as the Vulkan format defines its
    /// layout (`format_codes`); channels the format lacks read 0.
    codes: Vec<[u32; 4]>,
    /// Per sample (sample-minor).
    depth: Option<Vec<f32>>,
    /// Per sample (sample-minor).
    stencil: Option<Vec<u8>>,
    /// Each draw's occlusion counter (0 for draws without one).
    occlusion: Vec<u64>,
    jobs: Vec<DrawJobs>,
    /// Per `Scene::more_formats` target, its pixels' codes as `codes`.
    more_codes: Vec<Vec<[u32; 4]>>,
}

struct Rendered {
    gpu: SimGpu,
    color: Vec<u8>,
    depth: Option<Vec<f32>>,
    jobs: Vec<DrawJobs>,
}

fn viewport() -> Viewport {
    Viewport {
        x: 0.0,
        y: 0.0,
        width: SIZE as f32,
        height: SIZE as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    }
}

fn full_scissor() -> Scissor {
    Scissor {
        x: 0,
        y: 0,
        width: SIZE,
        height: SIZE,
    }
}

fn read_surface(gpu: &SimGpu, base: u64) -> Vec<[u8; 4]> {
    let raw = gpu.read(base, (SIZE * SIZE * 4) as usize);
    let mut out = vec![[0u8; 4]; (SIZE * SIZE) as usize];
    for y in 0..SIZE {
        for x in 0..SIZE {
            let o = u_interleaved_offset(x, y, 4096, 4) as usize;
            out[(y * SIZE + x) as usize] = raw[o..o + 4].try_into().unwrap();
        }
    }
    out
}

/// Records the scene's two chains and runs them; `Err` is the first
/// chain's fault.
fn try_render_on(
    gpu: &mut SimGpu,
    scene: &Scene<'_>,
    edit: impl FnOnce(&mut AttributeBuffer),
) -> Result<Output, RunError> {
    try_render_pass(gpu, scene, edit, &Pass::default())
}

/// Where a render pass's first colour target lives and how it starts.
#[derive(Clone, Debug, Default)]
struct Pass {
    /// The target's memory (allocated by the pass when `None`).
    color: Option<u64>,
    /// loadOp LOAD (the target is not cleared: the preload reads it).
    load: bool,
    /// Linear rows (`SIZE` pixels each) instead of 16×16 u-interleaved tiles.
    linear: bool,
    /// Framebuffer Parameters word and value written over what the
    /// emitter wrote, before the FRAGMENT chain runs (fault tests).
    patch_fbd: &'static [(u64, u32)],
    /// Targets 1, 2 … (Tiled): their memory and whether they load.
    more: Vec<(u64, bool)>,
    /// The depth target's memory (allocated by the pass when `None`) and
    /// whether it loads (D32 only).
    depth: Option<u64>,
    load_depth: bool,
}

/// [`try_render_on`] with the first colour target as `pass` says.
fn try_render_pass(
    gpu: &mut SimGpu,
    scene: &Scene<'_>,
    edit: impl FnOnce(&mut AttributeBuffer),
    pass: &Pass,
) -> Result<Output, RunError> {
    let vs_code = gpu.upload(&scene.vs.binary);
    let fs_code = gpu.upload(&scene.fs.binary);
    let heap = gpu.alloc(1 << 20);
    let locations = gpu.alloc(4096);
    gpu.write_u32s(
        locations.va,
        &SampleLocations::for_samples(scene.samples).unwrap(),
    );
    let n = scene.samples;
    // One 64x64 surface per stored sample: 16 KiB at 4 bytes per pixel.
    let colour_samples = if scene.per_sample { n } else { 1 };
    let vbytes = 4 * scene.data.len() as u64;
    let vb = gpu.alloc(vbytes.max(64));
    gpu.write_f32s(vb.va, &scene.data);
    let color_va = match pass.color {
        Some(va) => va,
        None => {
            gpu.alloc(
                4096 * u64::from(scene.format.memory_bytes_per_pixel()) * u64::from(colour_samples),
            )
            .va
        }
    };
    // Tiled: rows of 16×16 tiles; Linear: rows of `SIZE` pixels.
    let bpp0 = scene.format.memory_bytes_per_pixel();
    let (block0, stride0) = if pass.linear {
        (BlockFormat::Linear, SIZE * bpp0)
    } else {
        (BlockFormat::TiledUInterleaved, 1024 * bpp0)
    };
    let offset0 = move |x: u32, y: u32| -> usize {
        if pass.linear {
            (y * SIZE * bpp0 + x * bpp0) as usize
        } else {
            u_interleaved_offset(x, y, u64::from(stride0), u64::from(bpp0)) as usize
        }
    };
    let depth_va = match pass.depth {
        Some(va) => va,
        None => gpu.alloc(16 * 1024 * u64::from(n)).va,
    };
    // Targets 1, 2 …: the pass's memory (Tiled) or new buffers.
    let more_bufs: Vec<u64> = scene
        .more_formats
        .iter()
        .enumerate()
        .map(|(k, f)| match pass.more.get(k) {
            Some(&(va, _)) => va,
            None => gpu.alloc(4096 * u64::from(f.memory_bytes_per_pixel())).va,
        })
        .collect();
    let stencil_buf = gpu.alloc(4 * 1024 * u64::from(n));
    let per_sample = |stride: u32| (n > 1).then_some(stride);
    let counters = gpu.alloc(8 * scene.draws.len().max(1) as u64);
    gpu.write(counters.va, &vec![0u8; 8 * scene.draws.len()]);
    let mut index_bufs = Vec::new();
    for d in &scene.draws {
        index_bufs.push(d.indices.as_ref().map(|ix| {
            let bytes = ix.bytes();
            let b = gpu.alloc(64.max(bytes.len() as u64));
            gpu.write(b.va, &bytes);
            b.va
        }));
    }
    let mut attr_buffer = AttributeBuffer {
        address: vb.va,
        size: vbytes,
        stride: scene.stride,
        indexing: Indexing::Linear,
    };
    edit(&mut attr_buffer);
    let records: Vec<AttributeRecord> = scene
        .attributes
        .iter()
        .map(|&(n, offset)| AttributeRecord {
            buffer: 0,
            format: VertexFormat::new(ComponentType::F32, n),
            offset,
        })
        .collect();
    let mut frag_head = 0;
    let mut fbd_va = 0;
    let mut jobs = Vec::new();
    gpu.run_chain(|chain, pool, arch| {
        let context = write_tiler_context(pool, SIZE, SIZE, n, heap.va, heap.size)?;
        let attributes = write_attribute_tables_to_pool(pool, arch, &[attr_buffer], &records)?;
        let textures = match &scene.textures {
            Some((t, s)) => Some(write_texture_tables(pool, arch, t, s)?),
            None => None,
        };
        let mut previous = 0;
        for (k, (d, ib)) in scene.draws.iter().zip(&index_bufs).enumerate() {
            let mut targets = vec![ColorTargetState {
                format: scene.format,
                blend: d.blend,
                write_mask: d.write_mask,
            }];
            targets.extend(scene.more_formats.iter().enumerate().map(|(k, &format)| {
                ColorTargetState {
                    format,
                    blend: Blend::Opaque,
                    write_mask: scene.more_write_masks.get(k).copied().unwrap_or(15),
                }
            }));
            let indices = ib.map(|address| {
                let ix = d.indices.as_ref().unwrap();
                IndexBuffer {
                    address,
                    ty: ix.ty,
                    vertex_offset: ix.vertex_offset,
                    min_index: ix.used().min().unwrap(),
                    max_index: ix.used().max().unwrap(),
                    restart: ix.restart,
                }
            });
            let draw = Draw {
                vertex: Program {
                    binary: &scene.vs.binary,
                    code: vs_code,
                    lowered: &scene.vs.lowered,
                    buffers: &[],
                },
                fragment: Program {
                    binary: &scene.fs.binary,
                    code: fs_code,
                    lowered: &scene.fs.lowered,
                    buffers: &[],
                },
                attributes,
                push_constants: &[],
                push_constants_address: 0,
                topology: d.topology,
                count: d.count,
                first_vertex: d.first,
                indices,
                raster: d.raster,
                depth: scene.depth,
                targets: &targets,
                viewport: scene.viewport,
                scissor: scene.scissor,
                tiler_context: context,
                previous_tiler: previous,
            };
            let extras = DrawExtras {
                occlusion: d.extras.occlusion.map(|_| counters.va + 8 * k as u64),
                multisample: Multisample {
                    samples: n,
                    ..d.extras.multisample
                },
                textures: textures.or(d.extras.textures),
                ..d.extras
            };
            if let Some(j) = add_draw_with(chain, pool, arch, &draw, &extras)? {
                previous = j.tiler;
                jobs.push(j);
            }
        }
        // The fragment chain: its own JobChain, submitted second.
        let mut colors = vec![ColorTarget {
            sample_stride: scene
                .per_sample
                .then_some(16 * 1024 * scene.format.memory_bytes_per_pixel() / 4),
            format: scene.format,
            block: block0,
            base: color_va,
            row_stride: stride0,
            clear: (!pass.load).then(|| scene.format.clear_words(clear_colour(scene.format))),
        }];
        for (k, (&format, &buf)) in scene.more_formats.iter().zip(&more_bufs).enumerate() {
            let loaded = pass.more.get(k).is_some_and(|&(_, load)| load);
            colors.push(ColorTarget {
                sample_stride: None,
                format,
                block: BlockFormat::TiledUInterleaved,
                base: buf,
                row_stride: 1024 * format.memory_bytes_per_pixel(),
                clear: (!loaded).then(|| format.clear_words(clear_colour(format))),
            });
        }
        // D24S8: the stencil is byte 3 of the depth surface's pixels.
        let interleaved = scene.depth_format == ZDepthFormat::D24S8;
        let zs = ZsOptions {
            stencil: scene.stencil_clear.map(|clear| StencilTarget {
                sample_stride: per_sample(if interleaved { 16 * 1024 } else { 4 * 1024 }),
                block: BlockFormat::TiledUInterleaved,
                base: if interleaved {
                    depth_va
                } else {
                    stencil_buf.va
                },
                row_stride: if interleaved { 4096 } else { 1024 },
                clear,
                write: true,
            }),
            depth_format: scene.depth_format,
        };
        let mut load = vec![false; colors.len()];
        load[0] = pass.load;
        for (k, &(_, l)) in pass.more.iter().enumerate() {
            load[k + 1] = l;
        }
        let pointer = write_framebuffer_loaded(
            pool,
            arch,
            &Framebuffer {
                width: SIZE,
                height: SIZE,
                colors: &colors,
                depth: scene.depth.map(|_| DepthTarget {
                    sample_stride: per_sample(16 * 1024),
                    block: BlockFormat::TiledUInterleaved,
                    base: depth_va,
                    row_stride: 4096,
                    clear: 1.0,
                    write: true,
                }),
                tiler_context: context,
                samples: n,
                sample_locations: locations.va,
            },
            &zs,
            &load,
            pass.load_depth,
        )?;
        let mut frag = JobChain::new();
        add_fragment_job(&mut frag, pool, pointer, SIZE, SIZE, [0, 0])?;
        frag_head = frag.head();
        fbd_va = pointer & !63;
        Ok(!chain.is_empty())
    })?;
    for &(word, value) in pass.patch_fbd {
        gpu.sim()
            .write_gpu(fbd_va + 4 * word, &value.to_le_bytes())
            .expect("the framebuffer descriptor is mapped");
    }
    // The pool was reset after the first submit, not unmapped: the
    // fragment chain and the tiler context are still in place.
    gpu.submit_with(frag_head, JD_REQ_FS)?;
    // RGBA per pixel (or per sample, sample-minor); channels the format
    // lacks read 0.
    let bpp = scene.format.memory_bytes_per_pixel();
    let surface = u64::from(4096 * bpp);
    let mut color = vec![0u8; (4 * SIZE * SIZE * colour_samples) as usize];
    let mut codes = vec![[0u32; 4]; (SIZE * SIZE * colour_samples) as usize];
    for s in 0..colour_samples {
        let raw = gpu.read(
            color_va + u64::from(s) * surface,
            (SIZE * SIZE * bpp) as usize,
        );
        for y in 0..SIZE {
            for x in 0..SIZE {
                let o = offset0(x, y);
                let i = 4 * ((y * SIZE + x) * colour_samples + s) as usize;
                let n = bpp.min(4) as usize;
                color[i..i + n].copy_from_slice(&raw[o..o + n]);
                codes[i / 4] = format_codes(scene.format, &raw[o..o + bpp as usize]);
            }
        }
    }
    let sample_minor = |surfaces: Vec<Vec<u32>>| -> Vec<u32> {
        (0..(SIZE * SIZE * n) as usize)
            .map(|i| surfaces[i % n as usize][i / n as usize])
            .collect()
    };
    let depth = scene.depth.map(|_| {
        // D16: two bytes per pixel (tile rows 4096 bytes apart as for the
        // others: the emitter takes the row stride it is given).
        let bpp = if scene.depth_format == ZDepthFormat::D16 {
            2
        } else {
            4
        };
        let surfaces = (0..n)
            .map(|s| {
                let raw = gpu.read(
                    depth_va + 16 * 1024 * u64::from(s),
                    (SIZE * SIZE * 4) as usize,
                );
                (0..SIZE * SIZE)
                    .map(|i| {
                        let o = u_interleaved_offset(i % SIZE, i / SIZE, 4096, bpp) as usize;
                        raw[o..o + bpp as usize]
                            .iter()
                            .rev()
                            .fold(0u32, |v, &b| v << 8 | u32::from(b))
                    })
                    .collect()
            })
            .collect();
        sample_minor(surfaces)
            .into_iter()
            .map(|b| match scene.depth_format {
                ZDepthFormat::D32 => f32::from_bits(b),
                // X8_D24 and D24S8: the UNORM value in the low 24 bits.
                ZDepthFormat::D24X8 | ZDepthFormat::D24S8 => {
                    (f64::from(b & 0xff_ffff) / f64::from((1u32 << 24) - 1)) as f32
                }
                // D16_UNORM: the 16-bit UNORM value.
                ZDepthFormat::D16 => (f64::from(b) / 65535.0) as f32,
            })
            .collect()
    });
    let stencil = scene.stencil_clear.map(|_| {
        let surfaces = (0..n)
            .map(|s| {
                if scene.depth_format == ZDepthFormat::D24S8 {
                    // The top byte of each D24S8 pixel.
                    return read_surface(gpu, depth_va + 16 * 1024 * u64::from(s))
                        .into_iter()
                        .map(|b| u32::from(b[3]))
                        .collect();
                }
                let raw = gpu.read(stencil_buf.va + 4096 * u64::from(s), (SIZE * SIZE) as usize);
                (0..SIZE * SIZE)
                    .map(|i| {
                        u32::from(raw[u_interleaved_offset(i % SIZE, i / SIZE, 1024, 1) as usize])
                    })
                    .collect()
            })
            .collect();
        sample_minor(surfaces)
            .into_iter()
            .map(|v| v as u8)
            .collect()
    });
    let more_codes = scene
        .more_formats
        .iter()
        .zip(&more_bufs)
        .map(|(&format, &buf)| {
            let bpp = format.memory_bytes_per_pixel();
            let raw = gpu.read(buf, (SIZE * SIZE * bpp) as usize);
            (0..SIZE * SIZE)
                .map(|i| {
                    let o = u_interleaved_offset(
                        i % SIZE,
                        i / SIZE,
                        u64::from(1024 * bpp),
                        u64::from(bpp),
                    ) as usize;
                    format_codes(format, &raw[o..o + bpp as usize])
                })
                .collect()
        })
        .collect();
    let occlusion = (0..scene.draws.len())
        .map(|k| u64::from_le_bytes(gpu.read(counters.va + 8 * k as u64, 8).try_into().unwrap()))
        .collect();
    Ok(Output {
        color,
        codes,
        depth,
        stencil,
        occlusion,
        jobs,
        more_codes,
    })
}

/// A pixel's channel codes from its bytes in memory, by the Vulkan
/// format's definition ("Formats": `VK_FORMAT_R5G6B5_UNORM_PACK16` has R in
/// bits 11..15, G in 5..10, B in 0..4; `VK_FORMAT_A2B10G10R10_UNORM_PACK32`
/// R in 0..9, G in 10..19, B in 20..29, A in 30..31; the 8-bit formats one
/// byte per component in order).
fn format_codes(format: ColorFormat, bytes: &[u8]) -> [u32; 4] {
    match format {
        ColorFormat::R5g6b5UnormPack16 => {
            let v = u32::from(u16::from_le_bytes([bytes[0], bytes[1]]));
            [v >> 11, (v >> 5) & 63, v & 31, 0]
        }
        ColorFormat::A2b10g10r10UnormPack32 => {
            let v = u32::from_le_bytes(bytes.try_into().unwrap());
            [v & 1023, (v >> 10) & 1023, (v >> 20) & 1023, v >> 30]
        }
        // B8G8R8A8: B in byte 0, R in byte 2.
        ColorFormat::Bgra8Unorm | ColorFormat::Bgra8Srgb => {
            [2, 1, 0, 3].map(|b| u32::from(bytes[b]))
        }
        // A1R5G5B5_UNORM_PACK16: B in bits 0..4, G 5..9, R 10..14, A 15.
        ColorFormat::A1r5g5b5UnormPack16 => {
            let v = u32::from(u16::from_le_bytes([bytes[0], bytes[1]]));
            [(v >> 10) & 31, (v >> 5) & 31, v & 31, v >> 15]
        }
        // R4G4B4A4_UNORM_PACK16: R in bits 12..15, G 8..11, B 4..7, A 0..3;
        // B4G4R4A4 swaps R and B.
        ColorFormat::R4g4b4a4UnormPack16 | ColorFormat::B4g4r4a4UnormPack16 => {
            let v = u32::from(u16::from_le_bytes([bytes[0], bytes[1]]));
            let n = [v >> 12, (v >> 8) & 15, (v >> 4) & 15, v & 15];
            if format == ColorFormat::R4g4b4a4UnormPack16 {
                n
            } else {
                [n[2], n[1], n[0], n[3]]
            }
        }
        // One 32-bit word.
        ColorFormat::B10g11r11UfloatPack32 => {
            [u32::from_le_bytes(bytes[..4].try_into().unwrap()), 0, 0, 0]
        }
        // Components of 8, 16 or 32 bits each, R first ("Formats": the
        // non-packed formats' components in order, each little-endian).
        _ if format.is_raw() => {
            let size = (format.memory_bytes_per_pixel() / format.components()) as usize;
            std::array::from_fn(|c| {
                bytes.get(size * c..size * (c + 1)).map_or(0, |b| {
                    b.iter()
                        .rev()
                        .fold(0u32, |v, &byte| v << 8 | u32::from(byte))
                })
            })
        }
        _ => std::array::from_fn(|c| bytes.get(c).map_or(0, |&b| u32::from(b))),
    }
}

/// The clear colour of a scene's target: [`CLEAR`], or for an integer
/// format the integers 255 × `CLEAR`.
fn clear_colour(format: ColorFormat) -> [f32; 4] {
    match format.kind() {
        // 8-bit signed integers: 100 × `CLEAR` (255 × does not fit).
        ColorKind::Sint if format.memory_bytes_per_pixel() == format.components() => {
            CLEAR.map(|c| (c * 100.0).round())
        }
        ColorKind::Uint | ColorKind::Sint => CLEAR.map(|c| (c * 255.0).round()),
        _ => CLEAR,
    }
}

/// `scene` rendered on a fresh simulated `model`; the chains must complete.
fn render_on(model: SimModel, scene: &Scene<'_>) -> Output {
    let mut gpu = SimGpu::new(model);
    try_render_on(&mut gpu, scene, |_| {})
        .unwrap_or_else(|e| panic!("the chains must complete: {e}"))
}

fn render(scene: &Scene<'_>) -> Rendered {
    let mut gpu = SimGpu::new(SimModel::G52);
    let out = try_render_on(&mut gpu, scene, |_| {})
        .unwrap_or_else(|e| panic!("the chains must complete: {e}"));
    Rendered {
        gpu,
        color: out.color,
        depth: out.depth,
        jobs: out.jobs,
    }
}

/// The same scene by the Vulkan rules (`testing::raster`): clip → viewport
/// transform, primitive assembly ("Drawing Commands", "Primitive
/// Topologies", primitive restart), rasterization, depth test and blending
/// per fragment. Also returns the pixels whose centre lies exactly on a
/// triangle edge (the FBD's tie-break rule and the reference's top-left
/// rule may differ there, both allowed).
/// Renders `scene` with blending off and every channel written on a new
/// simulated `model`; returns what the GPU stored, the reference and the
/// pixels whose centre lies on an edge.
fn render_opaque(model: SimModel, scene: &mut Scene<'_>) -> (Output, ops::Target, Vec<bool>) {
    for d in &mut scene.draws {
        d.blend = Blend::Opaque;
        d.write_mask = 15;
    }
    let mut gpu = SimGpu::new(model);
    let out = try_render_on(&mut gpu, scene, |_| {})
        .unwrap_or_else(|e| panic!("{:?}: the chains must complete: {e}", scene.format));
    let (want, on_edge) = reference(scene);
    (out, want, on_edge)
}

fn reference(scene: &Scene<'_>) -> (ops::Target, Vec<bool>) {
    let (target, on_edge, _) = reference_counted(scene);
    (target, on_edge)
}

/// [`reference`], also returning each draw's samples that passed the depth
/// and stencil tests (what a precise occlusion query counts).
fn reference_counted(scene: &Scene<'_>) -> (ops::Target, Vec<bool>, Vec<u64>) {
    reference_shaded(scene, false, &mut |f| {
        Some(ops::Shaded {
            colour: (scene.shade)(&f.attrs),
            ..Default::default()
        })
    })
}

/// [`reference_counted`] with a fragment shader that sees the whole
/// fragment (position, facing, point coordinate) and may discard (`None`)
/// or write `FragDepth`; `early`: the `EarlyFragmentTests` mode.
fn reference_shaded(
    scene: &Scene<'_>,
    early: bool,
    shade: &mut dyn FnMut(&raster::Fragment) -> Option<ops::Shaded>,
) -> (ops::Target, Vec<bool>, Vec<u64>) {
    let mut passed = Vec::new();
    let clear = clear_colour(scene.format).map(f64::from);
    // The attachment is RGBA8 UNORM: blends read the stored 8-bit values.
    let target = ops::Target::new(SIZE, SIZE, scene.samples, clear, 1.0);
    let mut target = match scene.format.kind() {
        ColorKind::Unorm => {
            target.with_unorm_format(scene.format.channel_bits(), scene.format.srgb())
        }
        ColorKind::Snorm => target.with_snorm_format(scene.format.channel_bits()),
        ColorKind::Float => target.with_float_or_int(Some(
            if scene.format == ColorFormat::B10g11r11UfloatPack32 {
                11
            } else {
                8 * scene.format.memory_bytes_per_pixel() / scene.format.components()
            },
        )),
        ColorKind::Uint | ColorKind::Sint => target.with_float_or_int(None),
    };
    if let Some(s) = scene.stencil_clear {
        target.stencil.fill(s);
    }
    target.components = scene.format.components();
    let resolution = match scene.depth_format {
        ZDepthFormat::D32 => ops::DepthResolution::Float32,
        ZDepthFormat::D24X8 | ZDepthFormat::D24S8 => {
            target.depth_bits = Some(24);
            ops::DepthResolution::Unorm(24)
        }
        ZDepthFormat::D16 => {
            target.depth_bits = Some(16);
            ops::DepthResolution::Unorm(16)
        }
    };
    let mut on_edge = vec![false; (SIZE * SIZE) as usize];
    let v = scene.viewport;
    let vp = raster::Viewport {
        x: f64::from(v.x),
        y: f64::from(v.y),
        width: f64::from(v.width),
        height: f64::from(v.height),
        min_depth: f64::from(v.min_depth),
        max_depth: f64::from(v.max_depth),
    };
    let floats = scene.stride as usize / 4;
    let (pos_n, pos_off) = scene.attributes[0];
    let (col_n, col_off) = scene.attributes[1];
    let clip_vertex = |i: usize| -> raster::ClipVertex {
        let at = |off: u32, k: usize| f64::from(scene.data[i * floats + off as usize / 4 + k]);
        let mut clip = [0.0, 0.0, 0.0, 1.0];
        for (k, c) in clip.iter_mut().enumerate().take(pos_n as usize) {
            *c = at(pos_off, k);
        }
        let attrs = (0..col_n as usize).map(|k| at(col_off, k)).collect();
        (clip, attrs)
    };
    let vertex = |i: usize| {
        let (clip, attrs) = clip_vertex(i);
        raster::viewport_transform(clip, &vp, attrs)
    };
    // The x/y clip planes end at the viewport's edges: a sample is inside
    // them exactly when it is inside the viewport rectangle, which is on
    // pixel boundaries in every scene (the emitter's scissor box rounds
    // outwards). z and w are clipped geometrically (`clipped_fan`).
    let in_viewport = |x: u32, y: u32| {
        let (x, y) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
        let (x0, x1) = (vp.x.min(vp.x + vp.width), vp.x.max(vp.x + vp.width));
        let (y0, y1) = (vp.y.min(vp.y + vp.height), vp.y.max(vp.y + vp.height));
        x > x0.floor() && x < x1.ceil() && y > y0.floor() && y < y1.ceil()
    };
    let depth = match scene.depth {
        Some(d) => ops::DepthState {
            test: true,
            write: d.write,
            compare: ops::CompareOp::ALL[d.compare as usize],
        },
        None => ops::DepthState::default(),
    };
    for d in &scene.draws {
        let mut draw_passed = 0u64;
        let stencil = d.extras.stencil.map(reference_stencil);
        // The vertex numbers of the draw, split at restart indices.
        let mut segments: Vec<Vec<usize>> = vec![Vec::new()];
        for k in 0..d.count {
            match &d.indices {
                Some(ix) => {
                    let i = ix.values[k as usize];
                    if ix.restart && i == ix.restart_value() {
                        segments.push(Vec::new());
                    } else {
                        let v = i64::from(i) + i64::from(ix.vertex_offset);
                        segments.last_mut().unwrap().push(v as usize);
                    }
                }
                None => segments.last_mut().unwrap().push((d.first + k) as usize),
            }
        }
        let blend = reference_blend(&d.blend, d.write_mask);
        let state = raster::RasterState {
            cull_front: d.raster.cull_front,
            cull_back: d.raster.cull_back,
            front_ccw: d.raster.front_ccw,
            line_width: f64::from(d.raster.line_width),
            point_size: 4.0,
            provoking_first: d.raster.first_provoking,
            samples: scene.samples,
            ..raster::RasterState::default()
        };
        // The sample mask ("Sample Mask Test") drops samples first.
        let sample_mask = d.extras.multisample.sample_mask;
        // Under sample shading each covered sample is an invocation of its
        // own ("Sample Shading"), after the sample mask test.
        // `depthClampEnable`: z_f clamped to the depth range ("Depth
        // Clamping and Range").
        let clamp = d.extras.depth_clamp;
        let (z_lo, z_hi) = (
            vp.min_depth.min(vp.max_depth),
            vp.min_depth.max(vp.max_depth),
        );
        let masked = |frags: Vec<raster::Fragment>| -> Vec<raster::Fragment> {
            frags
                .into_iter()
                .map(|mut f| {
                    if clamp {
                        for z in &mut f.depth {
                            *z = z.clamp(z_lo, z_hi);
                        }
                    }
                    f
                })
                .filter(|f| in_viewport(f.x, f.y))
                .filter_map(|mut f| {
                    f.mask &= sample_mask;
                    (f.mask != 0).then_some(f)
                })
                .flat_map(|f| {
                    if scene.sample_shading && scene.samples > 1 {
                        f.per_sample()
                    } else {
                        vec![f]
                    }
                })
                .collect()
        };
        let interp = vec![scene.interpolation; col_n as usize];
        for seg in &segments {
            let n = seg.len();
            // Triangles in the spec's vertex order (first provoking vertex).
            let triangles: Vec<[usize; 3]> = match d.topology {
                Topology::TriangleList => (0..n / 3)
                    .map(|t| [seg[3 * t], seg[3 * t + 1], seg[3 * t + 2]])
                    .collect(),
                Topology::TriangleStrip => (0..n.saturating_sub(2))
                    .map(|i| [seg[i], seg[i + 1 + i % 2], seg[i + 2 - i % 2]])
                    .collect(),
                Topology::TriangleFan => (0..n.saturating_sub(2))
                    .map(|i| [seg[i + 1], seg[i + 2], seg[0]])
                    .collect(),
                _ => Vec::new(),
            };
            let mut frags = Vec::new();
            let provoking = if d.raster.first_provoking { 0 } else { 2 };
            let flat = (scene.interpolation == Interpolation::Flat).then_some(provoking);
            let pieces: Vec<[raster::Vertex; 3]> = triangles
                .iter()
                .flat_map(|t| {
                    let (fan, clipped) =
                        clipped_fan(t.map(clip_vertex), &vp, flat, d.extras.depth_clamp);
                    if clipped {
                        mark_near_clipped_edges(&fan, &mut on_edge);
                    }
                    fan
                })
                .collect();
            for vs in pieces {
                let snapped: [(i64, i64); 3] = std::array::from_fn(|k| {
                    (
                        (vs[k].x * 256.0).round() as i64,
                        (vs[k].y * 256.0).round() as i64,
                    )
                });
                for y in 0..SIZE {
                    for x in 0..SIZE {
                        if sample_on_edge(&snapped, x, y, scene.samples) {
                            on_edge[(y * SIZE + x) as usize] = true;
                        }
                    }
                }
                let tri = masked(raster::rasterize_triangle(
                    [&vs[0], &vs[1], &vs[2]],
                    &state,
                    &interp,
                    SIZE,
                    SIZE,
                ));
                // Depth bias is per polygon ("Depth Bias").
                let depth_offset = d.extras.depth_bias.map_or(0.0, |b| {
                    ops::depth_bias(
                        vs.each_ref().map(|v| [v.x, v.y, v.z]),
                        f64::from(b.constant),
                        f64::from(b.slope),
                        f64::from(b.clamp),
                        resolution,
                    )
                });
                let zs = ops::ZsState {
                    depth,
                    stencil,
                    depth_offset,
                };
                draw_passed +=
                    ops::shade_fragments_tests(&mut target, &tri, &zs, &blend, early, &mut *shade);
            }
            match d.topology {
                Topology::PointList => {
                    for &i in seg {
                        // A point outside the clip volume is discarded.
                        let (c, _) = clip_vertex(i);
                        let inside = c[3] > 0.0 && (clamp || (c[2] >= 0.0 && c[2] <= c[3]));
                        if inside {
                            frags.extend(raster::rasterize_point(&vertex(i), &state, SIZE, SIZE));
                        }
                    }
                }
                Topology::LineStrip => {
                    for w in seg.windows(2) {
                        let given = [clip_vertex(w[0]), clip_vertex(w[1])];
                        let ends = raster::clip_polygon(&given, clamp);
                        if ends.len() < 2 {
                            continue;
                        }
                        let [a, b] = [0, 1]
                            .map(|k| raster::viewport_transform(ends[k].0, &vp, ends[k].1.clone()));
                        // Within a pixel and a half of an end the two may
                        // differ: the simulated tiler ends a clipped line
                        // at its guard band and drops the samples past the
                        // depth range, and it clamps the spec's t to the
                        // segment where the reference extrapolates.
                        for end in [&a, &b] {
                            mark_near(end.x, end.y, 1.5, &mut on_edge);
                        }
                        frags.extend(raster::rasterize_line(&a, &b, &state, &interp, SIZE, SIZE));
                    }
                }
                _ => {}
            }
            let frags = masked(frags);
            // Points and lines are front-facing and have no depth bias.
            let zs = ops::ZsState {
                depth,
                stencil,
                ..ops::ZsState::default()
            };
            draw_passed +=
                ops::shade_fragments_tests(&mut target, &frags, &zs, &blend, early, &mut *shade);
        }
        passed.push(draw_passed);
    }
    (target, on_edge, passed)
}

/// Triangle `c` (clip coordinates, the spec's vertex order) clipped to
/// the z planes of the view volume (`raster::clip_polygon`; the x/y planes
/// are the viewport rectangle, applied per sample by the caller; with
/// `depth_clamp` the x/y planes instead, geometrically) and
/// transformed to framebuffer coordinates, as a fan of triangles in the
/// spec's vertex order; whether clipping changed it. `flat`: the
/// provoking vertex whose attributes every clip vertex takes.
fn clipped_fan(
    c: [raster::ClipVertex; 3],
    vp: &raster::Viewport,
    flat: Option<usize>,
    depth_clamp: bool,
) -> (Vec<[raster::Vertex; 3]>, bool) {
    let inside = if depth_clamp {
        // No z planes: the x/y planes, which also cut what lies behind
        // the eye, are clipped geometrically.
        c.iter()
            .all(|(p, _)| p[3] > 0.0 && p[0].abs() <= p[3] && p[1].abs() <= p[3])
    } else {
        c.iter()
            .all(|(p, _)| p[3] > 0.0 && p[2] >= 0.0 && p[2] <= p[3])
    };
    if inside {
        let v = c.map(|(p, a)| raster::viewport_transform(p, vp, a));
        return (vec![v], false);
    }
    let mut poly = raster::clip_polygon(&c, depth_clamp);
    if let Some(k) = flat {
        for v in &mut poly {
            v.1.clone_from(&c[k].1);
        }
    }
    let v: Vec<raster::Vertex> = poly
        .into_iter()
        .map(|(p, a)| raster::viewport_transform(p, vp, a))
        .collect();
    let fan = (1..v.len().saturating_sub(1))
        .map(|i| [v[0].clone(), v[i].clone(), v[i + 1].clone()])
        .collect();
    (fan, true)
}

/// Marks the pixels with a centre within 1/32 pixel of an edge of a
/// clipped polygon (given as its fan): there the clip vertices' rounding
/// (ours in f64 from clip coordinates, the simulated tiler's from the f32
/// positions the shader stored, with the near plane applied per sample)
/// may decide a centre differently.
fn mark_near_clipped_edges(fan: &[[raster::Vertex; 3]], near: &mut [bool]) {
    let mut corners: Vec<(f64, f64)> = Vec::new();
    if let Some(first) = fan.first() {
        corners.push((first[0].x, first[0].y));
        corners.push((first[1].x, first[1].y));
    }
    for t in fan {
        corners.push((t[2].x, t[2].y));
    }
    let n = corners.len();
    for y in 0..SIZE {
        for x in 0..SIZE {
            let p = (f64::from(x) + 0.5, f64::from(y) + 0.5);
            let close = (0..n).any(|i| {
                let (a, b) = (corners[i], corners[(i + 1) % n]);
                let (dx, dy) = (b.0 - a.0, b.1 - a.1);
                let len2 = dx * dx + dy * dy;
                let t = if len2 > 0.0 {
                    (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let (qx, qy) = (a.0 + t * dx - p.0, a.1 + t * dy - p.1);
                (qx * qx + qy * qy).sqrt() < 1.0 / 32.0
            });
            if close {
                near[(y * SIZE + x) as usize] = true;
            }
        }
    }
}

/// Marks the pixels with a centre within `r` pixels of (x, y).
fn mark_near(x: f64, y: f64, r: f64, near: &mut [bool]) {
    for py in 0..SIZE {
        for px in 0..SIZE {
            let (dx, dy) = (f64::from(px) + 0.5 - x, f64::from(py) + 0.5 - y);
            if dx * dx + dy * dy <= r * r {
                near[(py * SIZE + px) as usize] = true;
            }
        }
    }
}

/// The reference's stencil state for ours (`VkStencilOp` and
/// `VkCompareOp` in Vulkan's order in both).
fn reference_stencil(s: StencilState) -> ops::StencilState {
    let op =
        |o: StencilOp| ops::StencilOp::ALL[StencilOp::ALL.iter().position(|&g| g == o).unwrap()];
    let face = |f: StencilFace| ops::StencilFace {
        fail: op(f.fail),
        pass: op(f.pass),
        depth_fail: op(f.depth_fail),
        compare: ops::CompareOp::ALL[f.compare as usize],
        compare_mask: f.compare_mask,
        write_mask: f.write_mask,
        reference: f.reference,
    };
    ops::StencilState {
        front: face(s.front),
        back: face(s.back),
    }
}

/// `ops::BlendState` of the reference for our blend state (the enums are
/// both in Vulkan's order).
fn reference_blend(b: &Blend, write_mask: u8) -> ops::BlendState {
    let factor = |f: BlendFactor| {
        ops::BlendFactor::ALL[BlendFactor::ALL.iter().position(|&g| g == f).unwrap()]
    };
    let op = |o: BlendOp| ops::BlendOp::ALL[BlendOp::ALL.iter().position(|&g| g == o).unwrap()];
    let mut state = ops::BlendState {
        write_mask: u32::from(write_mask),
        ..ops::BlendState::default()
    };
    if let Some(eq) = b.equation() {
        state.enable = true;
        state.src_color = factor(eq.src_color);
        state.dst_color = factor(eq.dst_color);
        state.color_op = op(eq.color_op);
        state.src_alpha = factor(eq.src_alpha);
        state.dst_alpha = factor(eq.dst_alpha);
        state.alpha_op = op(eq.alpha_op);
        state.constants = eq.constants.map(f64::from);
    }
    state
}

/// Coverage exact (pixels the reference wrote vs pixels that are not the
/// clear colour), colours within 1 LSB; returns the covered count.
fn assert_matches(got: &[u8], want: &ops::Target, only: impl Fn(u32, u32) -> bool) -> usize {
    assert_matches_within(got, want, only, 1)
}

/// `assert_matches` with colours within `lsb`.
fn assert_matches_within(
    got: &[u8],
    want: &ops::Target,
    only: impl Fn(u32, u32) -> bool,
    lsb: u8,
) -> usize {
    let want_rgba = want.resolve_rgba8();
    let clear: Vec<u8> = CLEAR.iter().map(|&c| unorm8(c) as u8).collect();
    let mut bad = Vec::new();
    let mut covered = 0;
    for y in 0..SIZE {
        for x in 0..SIZE {
            if !only(x, y) {
                continue;
            }
            let i = (y * SIZE + x) as usize;
            let n = want.components as usize;
            let (g, w) = (&got[4 * i..4 * i + n], &want_rgba[4 * i..4 * i + n]);
            let written = want.writes[i] > 0;
            covered += usize::from(written);
            let close = g.iter().zip(w).all(|(a, b)| a.abs_diff(*b) <= lsb);
            if !close || (!written && g != &clear[..n]) {
                bad.push(format!("({x}, {y}): got {g:?}, want {w:?}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} pixels differ: {:?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
    covered
}

fn triangle_scene<'a>(vs: &'a Stage2, fs: &'a Stage2) -> Scene<'a> {
    Scene {
        textures: None,
        vs,
        fs,
        data: vec![
            -0.75, -0.875, 1.0, 0.0, 0.0, //
            0.875, -0.375, 0.0, 1.0, 0.0, //
            -0.375, 0.84375, 0.0, 0.0, 1.0,
        ],
        stride: 20,
        attributes: vec![(2, 0), (3, 8)],
        depth: None,
        draws: vec![DrawSpec {
            topology: Topology::TriangleList,
            count: 3,
            first: 0,
            indices: None,
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras::default(),
            raster: RasterState::default(),
        }],
        viewport: viewport(),
        scissor: full_scissor(),
        shade: opaque_colour,
        interpolation: Interpolation::Smooth,
        stencil_clear: None,
        format: ColorFormat::Rgba8Unorm,
        depth_format: ZDepthFormat::D32,
        samples: 1,
        per_sample: false,
        more_formats: Vec::new(),
        more_write_masks: Vec::new(),
        sample_shading: false,
    }
}

fn triangle_shaders() -> Option<(Stage2, Stage2)> {
    let (Some(v), Some(f)) = (spv("gfx_triangle.vert.spv"), spv("gfx_triangle.frag.spv")) else {
        skip("gfx_triangle.{vert,frag}.spv");
        return None;
    };
    Some((compile(&v, Stage::Vertex), compile(&f, Stage::Fragment)))
}

#[test]
fn our_triangle_renders_like_the_vulkan_rules() {
    let Some((vs, fs)) = triangle_shaders() else {
        return;
    };
    eprintln!(
        "gfx_triangle.vert for the tiler: {:?}; gfx_triangle.frag: {:?}",
        vs.binary.stats, fs.binary.stats
    );
    let scene = triangle_scene(&vs, &fs);
    let r = render(&scene);
    let covered = assert_matches(&r.color, &reference(&scene).0, |_, _| true);
    // The reference folder's summary counts 1334 covered pixels.
    assert_eq!(covered, 1334);
    // Two jobs in the vertex/tiler chain, the tiler one after the vertex one.
    assert_eq!(r.jobs.len(), 1);
    assert_eq!((r.jobs[0].vertex, r.jobs[0].tiler), (1, 2));
}

#[test]
fn indexed_depth_scene_renders_like_the_vulkan_rules() {
    let (Some(v), Some(f)) = (
        spv("gfx_indexed_depth.vert.spv"),
        spv("gfx_triangle.frag.spv"),
    ) else {
        return skip("gfx_indexed_depth.vert.spv");
    };
    let (vs, fs) = (compile(&v, Stage::Vertex), compile(&f, Stage::Fragment));
    let scene = depth_scene(&vs, &fs);
    let r = render(&scene);
    let (want, _) = reference(&scene);
    assert_matches(&r.color, &want, |_, _| true);
    let depth = r.depth.unwrap();
    for (i, (g, w)) in depth.iter().zip(&want.depth).enumerate() {
        // Interpolated in f32 by the GPU, in f64 by the reference.
        assert!(
            (f64::from(*g) - w).abs() <= 1e-6,
            "depth at ({}, {}): {g} vs {w}",
            i as u32 % SIZE,
            i as u32 / SIZE
        );
    }
    // The summary's counts: 958 green, 935 red pixels.
    let count = |c: [u8; 4]| r.color.chunks(4).filter(|p| *p == c).count();
    assert_eq!(count([0, 255, 0, 255]), 958);
    assert_eq!(count([255, 0, 0, 255]), 935);
}

fn depth_scene<'a>(vs: &'a Stage2, fs: &'a Stage2) -> Scene<'a> {
    Scene {
        textures: None,
        vs,
        fs,
        data: vec![
            -0.875, -0.875, 0.75, 1.0, 0.0, 0.0, //
            0.625, -0.875, 0.75, 1.0, 0.0, 0.0, //
            -0.875, 0.59375, 0.75, 1.0, 0.0, 0.0, //
            -0.5, -0.5, 0.25, 0.0, 1.0, 0.0, //
            0.875, -0.25, 0.25, 0.0, 1.0, 0.0, //
            -0.25, 0.90625, 0.25, 0.0, 1.0, 0.0,
        ],
        stride: 24,
        attributes: vec![(3, 0), (3, 12)],
        depth: Some(DepthState {
            compare: CompareOp::Less,
            write: true,
        }),
        draws: vec![DrawSpec {
            topology: Topology::TriangleList,
            count: 6,
            first: 0,
            indices: Indices::u16(&[3, 4, 5, 0, 1, 2]),
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras::default(),
            raster: RasterState::default(),
        }],
        viewport: viewport(),
        scissor: full_scissor(),
        shade: opaque_colour,
        interpolation: Interpolation::Smooth,
        stencil_clear: None,
        format: ColorFormat::Rgba8Unorm,
        depth_format: ZDepthFormat::D32,
        samples: 1,
        per_sample: false,
        more_formats: Vec::new(),
        more_write_masks: Vec::new(),
        sample_shading: false,
    }
}

#[test]
fn points_and_lines_render_like_the_vulkan_rules() {
    let (Some(v), Some(f)) = (
        spv("gfx_points_lines.vert.spv"),
        spv("gfx_triangle.frag.spv"),
    ) else {
        return skip("gfx_points_lines.vert.spv");
    };
    let (vs, fs) = (compile(&v, Stage::Vertex), compile(&f, Stage::Fragment));
    let scene = points_lines_scene(&vs, &fs);
    let r = render(&scene);
    assert_eq!(r.jobs.len(), 2);
    // The second draw's tiler job waits for its vertex job and the first
    // draw's tiler job (primitives stay in API order).
    assert_eq!((r.jobs[1].vertex, r.jobs[1].tiler), (3, 4));
    let (want, _) = reference(&scene);
    // Points (rows 0..16): exactly the reference's 4x4 squares.
    let covered = assert_matches(&r.color, &want, |_, y| y < 16);
    assert_eq!(covered, 3 * 16);
    // Lines are non-strict (implementation-dependent pixels): every line
    // pixel is within one pixel of the strip and yellow → cyan, every row
    // 32..55 has one.
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
            let px = &r.color[i..i + 4];
            if px == clear {
                continue;
            }
            rows[y as usize] += 1;
            let d = dist(f64::from(x) + 0.5, f64::from(y) + 0.5);
            assert!(d <= 1.0, "line pixel ({x}, {y}) is {d} px from the strip");
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

fn points_lines_scene<'a>(vs: &'a Stage2, fs: &'a Stage2) -> Scene<'a> {
    let draw = |topology, count, first| DrawSpec {
        topology,
        count,
        first,
        indices: None,
        blend: Blend::Opaque,
        write_mask: 15,
        extras: DrawExtras::default(),
        raster: RasterState::default(),
    };
    Scene {
        textures: None,
        vs,
        fs,
        data: vec![
            -0.75, -0.75, 1.0, 0.0, 0.0, //
            0.0, -0.75, 0.0, 1.0, 0.0, //
            0.75, -0.75, 0.0, 0.0, 1.0, //
            -0.75, 0.0, 1.0, 1.0, 0.0, //
            -0.25, 0.75, 1.0, 1.0, 0.0, //
            0.25, 0.0, 0.0, 1.0, 1.0, //
            0.75, 0.75, 0.0, 1.0, 1.0,
        ],
        stride: 20,
        attributes: vec![(2, 0), (3, 8)],
        depth: None,
        draws: vec![
            draw(Topology::PointList, 3, 0),
            draw(Topology::LineStrip, 4, 3),
        ],
        viewport: viewport(),
        scissor: full_scissor(),
        shade: opaque_colour,
        interpolation: Interpolation::Smooth,
        stencil_clear: None,
        format: ColorFormat::Rgba8Unorm,
        depth_format: ZDepthFormat::D32,
        samples: 1,
        per_sample: false,
        more_formats: Vec::new(),
        more_write_masks: Vec::new(),
        sample_shading: false,
    }
}

// ---- Our descriptors against PanVk's --------------------------------------

use bifrost_vk::hw::layout::Layout;
use bifrost_vk::hw::snapshot::Snapshot;
use bifrost_vk::hw::{Arch, layouts};

const CHAINS: &str = bifrost_vk::reference_path!("mesa-g52/graphics/jobchains");

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The leaves of `layout` whose values differ, except `ignore` (addresses
/// of memory each driver allocates itself).
fn differing(layout: &Layout, ours: &[u32], theirs: &[u32], ignore: &[&str]) -> Vec<String> {
    layout
        .leaves()
        .into_iter()
        .filter(|(p, _)| !ignore.contains(&p.as_str()))
        .filter(|(_, f)| f.get_raw(ours) != f.get_raw(theirs))
        .map(|(p, f)| {
            format!(
                "{p}: ours {:#x}, PanVk {:#x}",
                f.get_raw(ours),
                f.get_raw(theirs)
            )
        })
        .collect()
}

/// One PanVk draw's descriptors: (job words, RSD + blend words, viewport).
struct Descriptors {
    job: Vec<u32>,
    rsd: Vec<u32>,
    blend: Vec<u32>,
    viewport: Vec<u32>,
}

fn read_descriptors(read: &dyn Fn(u64, usize) -> Vec<u32>, job_va: u64, idvs: bool) -> Descriptors {
    let l = layouts(Arch::V7);
    let agg = if idvs {
        l.indexed_vertex_job
    } else {
        l.tiler_job
    };
    let job = read(job_va, agg.bytes);
    let draw = agg
        .section(if idvs { "Fragment Draw" } else { "Draw" })
        .unwrap()
        .words(&job)
        .to_vec();
    use bifrost_vk::hw::draw::dcd;
    let state = dcd::STATE.get(&draw);
    let rsd = read(state, l.renderer_state.bytes());
    let blend = read(state + l.renderer_state.bytes() as u64, l.blend.bytes());
    let viewport = read(dcd::VIEWPORT.get(&draw), l.viewport.bytes());
    Descriptors {
        job,
        rsd,
        blend,
        viewport,
    }
}

/// Fields where our descriptors differ from PanVk's on purpose (prefix of
/// the leaf path, why). docs/STATUS.md ("Graphics job emission") repeats
/// the list.
const CHOSEN: &[(&str, &str)] = &[
    (
        "Primitive.Secondary Shader",
        "PanVk's IDVS job runs a varying shader after the position shader; \
         our VERTEX job runs the whole vertex shader",
    ),
    (
        "Primitive.Point size array format",
        "our point sizes are an F32 varying (FP32 array), PanVk's FP16",
    ),
    (
        "Renderer State.Preload.",
        "the fragment binary's own preloads (PanVk's shader reads 2 FAU \
         words; a shader of ours that loads a varying with LD_VAR needs r61)",
    ),
    (
        "Renderer State.Properties.Shader wait dependency",
        "the binary's: our first clause is LD_VAR, PanVk's is ATEST",
    ),
    (
        "Renderer State.Message Preload",
        "the fragment binary's: our v7 shaders preload the first two smooth \
         centre-sampled varyings (isel/fragment.rs), Mesa's the first two \
         LD_VAR_IMM or VAR_TEX of the entry block",
    ),
    (
        "Draw.Flat Shading Vertex",
        "PanVk sets it in its line-strip draw only; we give the provoking \
         vertex in Primitive.First provoking vertex (what the simulator \
         reads) and leave this 0",
    ),
    (
        "Renderer State.Secondary shader",
        "v7.xml overlaps it with the Message Preload word (README 2.3)",
    ),
];

/// Compares our descriptors for `scene`'s draw `draw` with PanVk's job at
/// `panvk_job`: every differing field must be in [`CHOSEN`], and the
/// fields that come from the fragment binary must say what it asks for.
/// Returns the differing fields.
fn compare_with_panvk(
    name: &str,
    panvk_job: u64,
    idvs: bool,
    scene: &Scene<'_>,
    draw: usize,
) -> Option<Vec<String>> {
    let Ok(file) = std::fs::read(format!("{CHAINS}/{name}.vtc.snap")) else {
        skip(name);
        return None;
    };
    let snap = Snapshot::parse(&file).unwrap();
    let theirs = read_descriptors(&|va, n| words(snap.read(va, n).unwrap()), panvk_job, idvs);
    let r = render(scene);
    let tiler_va = r.jobs[draw].draw - 128;
    let ours = read_descriptors(&|va, n| words(&r.gpu.read_gpu(va, n)), tiler_va, false);
    let l = layouts(Arch::V7);
    let theirs_agg = if idvs {
        l.indexed_vertex_job
    } else {
        l.tiler_job
    };
    let ours_agg = l.tiler_job;
    let sec = |agg: &bifrost_vk::hw::layout::Aggregate, job: &[u32], s: &str| {
        agg.section(s).unwrap().words(job).to_vec()
    };
    let fd = if idvs { "Fragment Draw" } else { "Draw" };
    let mut report = Vec::new();
    for (what, layout, a, b, ignore) in [
        (
            "Invocation",
            l.invocation,
            sec(ours_agg, &ours.job, "Invocation"),
            sec(theirs_agg, &theirs.job, "Invocation"),
            &[][..],
        ),
        (
            "Primitive",
            l.primitive,
            sec(ours_agg, &ours.job, "Primitive"),
            sec(theirs_agg, &theirs.job, "Primitive"),
            &["Indices"][..],
        ),
        (
            "Primitive Size",
            l.primitive_size,
            sec(ours_agg, &ours.job, "Primitive Size"),
            sec(theirs_agg, &theirs.job, "Primitive Size"),
            // A pointer for point-size arrays (then "Constant" overlaps it).
            if scene.draws[draw].topology == Topology::PointList {
                &["Size Array", "Constant"][..]
            } else {
                &[][..]
            },
        ),
        (
            "Draw",
            l.draw,
            sec(ours_agg, &ours.job, "Draw"),
            sec(theirs_agg, &theirs.job, fd),
            &[
                "Position",
                "Push uniforms",
                "State",
                "Varying buffers",
                "Varyings",
                "Viewport",
                "Thread Storage",
            ][..],
        ),
        (
            "Renderer State",
            l.renderer_state,
            ours.rsd.clone(),
            theirs.rsd.clone(),
            &["Shader.Shader"][..],
        ),
        (
            "Blend",
            l.blend,
            ours.blend.clone(),
            theirs.blend.clone(),
            &[][..],
        ),
        (
            "Viewport",
            l.viewport,
            ours.viewport.clone(),
            theirs.viewport.clone(),
            &[][..],
        ),
    ] {
        for d in differing(layout, &a, &b, ignore) {
            report.push(format!("{what}.{d}"));
        }
    }
    let unexplained: Vec<&String> = report
        .iter()
        .filter(|d| !CHOSEN.iter().any(|(p, _)| d.starts_with(p)))
        .collect();
    assert!(
        unexplained.is_empty(),
        "{name}: fields differ from PanVk's without a reason: {unexplained:#?}"
    );
    // The binary-derived fields are the binary's.
    let rsd = l.renderer_state;
    let f = scene.fs.binary.fragment.as_ref().unwrap();
    let get = |path: &str| rsd.get(&ours.rsd, path).unwrap();
    assert_eq!(
        get("Properties.Shader wait dependency 6"),
        u64::from(f.wait_dependency_6)
    );
    assert_eq!(
        get("Properties.Shader wait dependency 7"),
        u64::from(f.wait_dependency_7)
    );
    assert_eq!(
        get("Preload.Fragment.Sample mask/ID"),
        u64::from(f.preloads.sample_mask_id)
    );
    assert_eq!(
        get("Preload.Fragment.Coverage"),
        u64::from(f.preloads.coverage)
    );
    assert_eq!(
        get("Preload.Uniform count"),
        u64::from(scene.fs.binary.uniform_words)
    );
    // The compiler's LD_VAR message preloads (v7), in order, or none.
    for (i, field) in ["Message Preload 1", "Message Preload 2"]
        .iter()
        .enumerate()
    {
        match f.messages.get(i) {
            Some(m) => {
                assert_eq!(get(&format!("{field}.Type")), 1, "{field}: LD_VAR");
                assert_eq!(
                    get(&format!("{field}.LD_VAR.Varying Index")),
                    u64::from(m.location)
                );
                assert_eq!(
                    get(&format!("{field}.LD_VAR.Num Components")),
                    u64::from(m.components)
                );
                assert_eq!(get(&format!("{field}.LD_VAR.Register Format")), 0);
            }
            None => assert_eq!(get(&format!("{field}.Type")), 0),
        }
    }
    Some(report)
}

/// gfx_triangle and gfx_indexed_depth (IDVS in PanVk, VERTEX + TILER
/// here) and gfx_points_lines (TILER jobs in both): the primitive, draw,
/// fragment renderer state, blend and viewport descriptors agree with
/// PanVk's except for the fields in [`CHOSEN`].
#[test]
fn descriptors_match_panvk() {
    let Some((vs, fs)) = triangle_shaders() else {
        return;
    };
    let Some(report) = compare_with_panvk(
        "gfx_triangle",
        0xf7fd_2380,
        true,
        &triangle_scene(&vs, &fs),
        0,
    ) else {
        return;
    };
    // The IDVS-only bit differs: the comparison sees the descriptors.
    assert!(
        report
            .iter()
            .any(|d| d.starts_with("Primitive.Secondary Shader"))
    );
    // The fragment shader's varying comes from a message preload on v7,
    // as in PanVk's: the same Message Preload 1 (LD_VAR of record 0), and
    // no `Sample mask/ID` preload (no LD_VAR reads r61).
    assert!(
        !report
            .iter()
            .any(|d| d.contains("Message Preload") || d.contains("Sample mask/ID")),
        "{report:#?}"
    );
    eprintln!("gfx_triangle: {report:#?}");

    let (Some(v), Some(f)) = (
        spv("gfx_indexed_depth.vert.spv"),
        spv("gfx_triangle.frag.spv"),
    ) else {
        return;
    };
    let (dvs, dfs) = (compile(&v, Stage::Vertex), compile(&f, Stage::Fragment));
    let scene = depth_scene(&dvs, &dfs);
    let report = compare_with_panvk("gfx_indexed_depth", 0xf7f9_93c0, true, &scene, 0).unwrap();
    eprintln!("gfx_indexed_depth: {report:#?}");

    let Some(v) = spv("gfx_points_lines.vert.spv") else {
        return;
    };
    let pvs = compile(&v, Stage::Vertex);
    let scene = points_lines_scene(&pvs, &dfs);
    let report = compare_with_panvk("gfx_points_lines", 0xf7ee_c440, false, &scene, 0).unwrap();
    assert!(
        report
            .iter()
            .any(|d| d.starts_with("Primitive.Point size array format"))
    );
    eprintln!("gfx_points_lines (points): {report:#?}");
    let report = compare_with_panvk("gfx_points_lines", 0xf7ee_c740, false, &scene, 1).unwrap();
    eprintln!("gfx_points_lines (lines): {report:#?}");
}

/// PanVk's SRC_ALPHA / ONE_MINUS_SRC_ALPHA blend descriptor
/// (gfx_blend_textured, IDVS job 2) equals ours word for word.
#[test]
fn alpha_blend_descriptor_matches_panvk() {
    let Ok(file) = std::fs::read(format!("{CHAINS}/gfx_blend_textured.vtc.snap")) else {
        return skip("gfx_blend_textured.vtc.snap");
    };
    let snap = Snapshot::parse(&file).unwrap();
    let theirs = read_descriptors(&|va, n| words(snap.read(va, n).unwrap()), 0xf7f4_4540, true);
    let ours = bifrost_vk::jm::graphics::blend_words(
        Arch::V7,
        0,
        &ColorTargetState {
            format: ColorFormat::Rgba8Unorm,
            blend: Blend::SrcAlphaOver,
            write_mask: 15,
        },
    )
    .unwrap();
    let l = layouts(Arch::V7);
    assert_eq!(
        differing(l.blend, &ours, &theirs.blend, &[]),
        Vec::<String>::new()
    );
    assert_eq!(ours, theirs.blend);
}

// ---- Random scenes and faults ---------------------------------------------

const GRAPHICS_SHADERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shaders/graphics");

/// Our clip-position vertex shader (vec4 position, vec3 colour) and the
/// corpus's colour fragment shader.
fn clip_shaders() -> (Stage2, Stage2) {
    let v = std::fs::read(format!("{GRAPHICS_SHADERS}/clip_position.vert.spv")).unwrap();
    let f = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/shaders/color_varying.frag.spv"
    ))
    .unwrap();
    (compile(&v, Stage::Vertex), compile(&f, Stage::Fragment))
}

struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Random triangles (clip w a power of two, so the viewport transform is
/// exact in f32 and coverage can be compared exactly; random depth, random
/// colours; some triangles leave the framebuffer), depth LESS, random
/// culling, viewport and scissor, through our whole chain, against
/// `testing::raster`. Pixels are left out where a triangle edge passes
/// exactly through the pixel centre (the FBD's tie-break rule and the
/// reference's top-left rule are both allowed) or where two fragments'
/// depths are within 1e-4 (f32 and f64 interpolation may order them
/// differently).
#[test]
fn random_triangle_scenes_match_the_reference_rasterizer() {
    let (vs, fs) = clip_shaders();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut compared = 0usize;
    let mut covered_total = 0usize;
    for round in 0..12 {
        let vp_size = [32.0f32, 64.0][rng.next(2) as usize];
        let vp_h = [32.0f32, 64.0][rng.next(2) as usize];
        let viewport = Viewport {
            x: [0.0, 8.0, 16.0][rng.next(3) as usize],
            y: [0.0, 8.0, -8.0][rng.next(3) as usize],
            width: vp_size,
            height: vp_h,
            min_depth: 0.25,
            max_depth: 0.75,
        };
        let scissor = Scissor {
            x: rng.next(8) as u32,
            y: rng.next(8) as u32,
            width: 40 + rng.next(25) as u32,
            height: 40 + rng.next(25) as u32,
        };
        let scissor = Scissor {
            width: scissor.width.min(SIZE - scissor.x),
            height: scissor.height.min(SIZE - scissor.y),
            ..scissor
        };
        let raster = RasterState {
            cull_back: rng.next(3) == 0,
            front_ccw: rng.next(2) == 0,
            ..RasterState::default()
        };
        let triangles = 6;
        let mut data = Vec::new();
        for _ in 0..3 * triangles {
            // NDC on the 1/8192 grid in [-1.5, 1.5), z in [0, 1).
            let w = [0.5f32, 1.0, 2.0, 4.0][rng.next(4) as usize];
            let ndc = |r: &mut Rng| (r.next(3 * 8192) as f32 - 1.5 * 8192.0) / 8192.0;
            let (x, y) = (ndc(&mut rng), ndc(&mut rng));
            let z = rng.next(1024) as f32 / 1024.0;
            data.extend_from_slice(&[x * w, y * w, z * w, w]);
            for _ in 0..3 {
                data.push(rng.next(256) as f32 / 255.0);
            }
        }
        let scene = Scene {
            textures: None,
            vs: &vs,
            fs: &fs,
            data,
            stride: 28,
            attributes: vec![(4, 0), (3, 16)],
            depth: Some(DepthState {
                compare: CompareOp::Less,
                write: true,
            }),
            draws: vec![DrawSpec {
                topology: Topology::TriangleList,
                count: 3 * triangles,
                first: 0,
                indices: None,
                blend: Blend::Opaque,
                write_mask: 15,
                extras: DrawExtras::default(),
                raster,
            }],
            viewport,
            scissor,
            shade: opaque_colour,
            interpolation: Interpolation::Smooth,
            stencil_clear: None,
            format: ColorFormat::Rgba8Unorm,
            depth_format: ZDepthFormat::D32,
            samples: 1,
            per_sample: false,
            more_formats: Vec::new(),
            more_write_masks: Vec::new(),
            sample_shading: false,
        };
        let r = render(&scene);

        // The reference: fragments per triangle, scissored.
        let vpr = raster::Viewport {
            x: f64::from(viewport.x),
            y: f64::from(viewport.y),
            width: f64::from(viewport.width),
            height: f64::from(viewport.height),
            min_depth: 0.25,
            max_depth: 0.75,
        };
        let state = raster::RasterState {
            cull_back: raster.cull_back,
            front_ccw: raster.front_ccw,
            ..raster::RasterState::default()
        };
        let mut target = ops::Target::new(SIZE, SIZE, 1, CLEAR.map(f64::from), 1.0);
        let mut excluded = vec![false; (SIZE * SIZE) as usize];
        let mut depths: Vec<Vec<f64>> = vec![Vec::new(); (SIZE * SIZE) as usize];
        for t in 0..triangles {
            let vs: Vec<raster::Vertex> = (0..3)
                .map(|k| {
                    let at = |c: usize| f64::from(scene.data[(3 * t as usize + k) * 7 + c]);
                    raster::viewport_transform(
                        [at(0), at(1), at(2), at(3)],
                        &vpr,
                        vec![at(4), at(5), at(6)],
                    )
                })
                .collect();
            let snapped: [(i64, i64); 3] = std::array::from_fn(|k| {
                (
                    (vs[k].x * 256.0).round() as i64,
                    (vs[k].y * 256.0).round() as i64,
                )
            });
            for y in 0..SIZE {
                for x in 0..SIZE {
                    if centre_on_edge(&snapped, x, y) {
                        excluded[(y * SIZE + x) as usize] = true;
                    }
                }
            }
            let frags: Vec<raster::Fragment> = raster::rasterize_triangle(
                [&vs[0], &vs[1], &vs[2]],
                &state,
                &[Interpolation::Smooth; 3],
                SIZE,
                SIZE,
            )
            .into_iter()
            .filter(|f| {
                // The clip volume's x/y planes: the viewport rectangle
                // (whole pixels in this scene).
                let (x, y) = (f64::from(f.x) + 0.5, f64::from(f.y) + 0.5);
                f.x >= scissor.x
                    && f.y >= scissor.y
                    && f.x < scissor.x + scissor.width
                    && f.y < scissor.y + scissor.height
                    && x > vpr.x
                    && x < vpr.x + vpr.width
                    && y > vpr.y
                    && y < vpr.y + vpr.height
            })
            .collect();
            for f in &frags {
                depths[(f.y * SIZE + f.x) as usize].push(f.depth[0]);
            }
            ops::shade_fragments(
                &mut target,
                &frags,
                &ops::DepthState {
                    test: true,
                    write: true,
                    compare: ops::CompareOp::Less,
                },
                &ops::BlendState::default(),
                |f| Some(([f.attrs[0], f.attrs[1], f.attrs[2], 1.0], [0.0; 4])),
            );
        }
        for (i, d) in depths.iter_mut().enumerate() {
            d.sort_by(f64::total_cmp);
            if d.windows(2).any(|w| w[1] - w[0] < 1e-4) {
                excluded[i] = true;
            }
        }
        let only = |x: u32, y: u32| !excluded[(y * SIZE + x) as usize];
        covered_total += assert_matches(&r.color, &target, only);
        let depth = r.depth.unwrap();
        for i in 0..(SIZE * SIZE) as usize {
            if excluded[i] {
                continue;
            }
            compared += 1;
            assert!(
                (f64::from(depth[i]) - target.depth[i]).abs() <= 1e-6,
                "round {round}: depth at ({}, {}): {} vs {}",
                i as u32 % SIZE,
                i as u32 / SIZE,
                depth[i],
                target.depth[i]
            );
        }
    }
    eprintln!("{compared} pixels compared, {covered_total} covered");
    assert!(covered_total > 5_000, "only {covered_total} covered pixels");
}

/// Whether the centre of pixel (x, y) lies exactly on an edge of the
/// triangle `p` (positions on the 1/256-pixel grid).
fn centre_on_edge(p: &[(i64, i64); 3], x: u32, y: u32) -> bool {
    point_on_edge(p, (i64::from(x) * 256 + 128, i64::from(y) * 256 + 128))
}

/// Whether one of the standard sample locations of `samples` in pixel
/// (x, y) lies exactly on a horizontal edge of the triangle `p`: the only
/// edges where the FBD's `MINUS_180_IN_0_OUT` (left and bottom edges,
/// `kmod::sim::raster::TieBreak`) and the reference's top-left rule
/// disagree — both take a sample on an edge running upwards (dy < 0 with
/// the interior on the edge's positive side) and leave one running
/// downwards.
fn sample_on_edge(p: &[(i64, i64); 3], x: u32, y: u32, samples: u32) -> bool {
    raster::sample_locations(samples).iter().any(|&(sx, sy)| {
        let c = (
            i64::from(x) * 256 + (sx * 256.0) as i64,
            i64::from(y) * 256 + (sy * 256.0) as i64,
        );
        (0..3).any(|i| {
            let (a, b) = (p[i], p[(i + 1) % 3]);
            a.1 == b.1 && a.1 == c.1 && c.0 >= a.0.min(b.0) && c.0 <= a.0.max(b.0)
        })
    })
}

/// Whether the point `c` (on the 1/256-pixel grid) lies on an edge of `p`.
fn point_on_edge(p: &[(i64, i64); 3], c: (i64, i64)) -> bool {
    (0..3).any(|i| {
        let (a, b) = (p[i], p[(i + 1) % 3]);
        let e = (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0);
        let within = |v: i64, lo: i64, hi: i64| v >= lo.min(hi) && v <= lo.max(hi);
        e == 0 && within(c.0, a.0, b.0) && within(c.1, a.1, b.1)
    })
}

/// A vertex buffer whose records point outside any BO: the VERTEX job
/// faults (JOB_READ_FAULT at the unmapped address, job status set,
/// the chain stopped, nothing drawn) and the next render pass on the same
/// GPU renders correctly.
#[test]
fn a_vertex_buffer_outside_its_bo_faults_and_the_gpu_carries_on() {
    let Some((vs, fs)) = triangle_shaders() else {
        return;
    };
    let scene = triangle_scene(&vs, &fs);
    let mut gpu = SimGpu::new(SimModel::G52);
    let unmapped = 0x7_0000_0000u64;
    let err = match try_render_on(&mut gpu, &scene, |b| b.address = unmapped) {
        Err(e) => e,
        Ok(_) => panic!("a vertex buffer outside every BO must fault"),
    };
    let RunError::Fault { job_va, fault } = &err else {
        panic!("expected a job fault, got {err}");
    };
    // JOB_READ_FAULT (0x42): the attribute fetch read unmapped memory.
    assert_eq!(fault.status, 0x42, "{err}");
    assert_eq!(fault.fault_va & !0xfff, unmapped, "{err}");
    // The faulting job is the first of the chain (the VERTEX job).
    let header = words(&gpu.read_gpu(*job_va, 32));
    use bifrost_vk::hw::job::header as h;
    assert_eq!(h::INDEX.get(&header), 1);
    assert_eq!(
        h::TYPE.get(&header),
        bifrost_vk::hw::job::JobType::Vertex as u64
    );
    let out = try_render_on(&mut gpu, &scene, |_| {}).expect("the next chains run");
    let covered = assert_matches(&out.color, &reference(&scene).0, |_, _| true);
    assert_eq!(covered, 1334);
}

// ---- Topologies, index types, restart, flat shading, blending --------------

/// A 5x5 grid of vertices (vec4 clip position with w = 1, vec3 colour),
/// vertex `5j + i` near pixel (4 + 14i, 4 + 14j), positions on the
/// 1/256-pixel grid, colours random.
fn grid_data(rng: &mut Rng) -> Vec<f32> {
    let mut data = Vec::new();
    for j in 0..5u64 {
        for i in 0..5u64 {
            let jitter = |r: &mut Rng| r.next(3 * 256) as f32 / 256.0;
            let px = 4.0 + 14.0 * i as f32 + jitter(rng);
            let py = 4.0 + 14.0 * j as f32 + jitter(rng);
            data.extend_from_slice(&[px / 32.0 - 1.0, py / 32.0 - 1.0, 0.0, 1.0]);
            for _ in 0..3 {
                data.push(rng.next(256) as f32 / 255.0);
            }
        }
    }
    data
}

/// A full-framebuffer quad of two triangles (one draw), each corner's
/// position and RGBA-sized attribute from `corner(x, y)` at NDC x, y = ±1
/// (`clip_point.vert`-style vertices: stride 32, a vec4 position and a
/// vec4 attribute).
fn quad_scene<'a, T: From<f32>>(
    vs: &'a Stage2,
    fs: &'a Stage2,
    corner: impl Fn(T, T) -> [f32; 8],
) -> Scene<'a> {
    let mut data = Vec::new();
    for (x, y) in [
        (-1.0, -1.0),
        (1.0, -1.0),
        (-1.0, 1.0),
        (-1.0, 1.0),
        (1.0, -1.0),
        (1.0, 1.0),
    ] {
        data.extend_from_slice(&corner(T::from(x), T::from(y)));
    }
    let draws = vec![DrawSpec {
        topology: Topology::TriangleList,
        count: 6,
        first: 0,
        indices: None,
        blend: Blend::Opaque,
        write_mask: 15,
        extras: DrawExtras::default(),
        raster: RasterState::default(),
    }];
    let mut scene = grid_scene(vs, fs, data, draws);
    scene.stride = 32;
    scene.attributes = vec![(4, 0), (4, 16)];
    scene
}

fn grid_scene<'a>(
    vs: &'a Stage2,
    fs: &'a Stage2,
    data: Vec<f32>,
    draws: Vec<DrawSpec>,
) -> Scene<'a> {
    Scene {
        textures: None,
        vs,
        fs,
        data,
        stride: 28,
        attributes: vec![(4, 0), (3, 16)],
        depth: None,
        draws,
        viewport: viewport(),
        scissor: full_scissor(),
        shade: opaque_colour,
        interpolation: Interpolation::Smooth,
        stencil_clear: None,
        format: ColorFormat::Rgba8Unorm,
        depth_format: ZDepthFormat::D32,
        samples: 1,
        per_sample: false,
        more_formats: Vec::new(),
        more_write_masks: Vec::new(),
        sample_shading: false,
    }
}

fn render_and_compare(scene: &Scene<'_>) -> usize {
    let r = render(scene);
    let (want, on_edge) = reference(scene);
    assert_matches(&r.color, &want, |x, y| !on_edge[(y * SIZE + x) as usize])
}

/// Primitive clipping: random triangles with one or two vertices behind
/// the eye (clip w < 0) or in front of the near plane or past the far one
/// (z outside [0, w]), in a viewport smaller than the framebuffer, and
/// points behind the eye or outside the depth range (then a line strip
/// through them), depth LESS, random
/// culling, through our chains (the simulated tiler clips: `kmod/sim/
/// clip.rs`) against the spec's clipping in `testing::raster`
/// (`clip_polygon`, then a fan). Pixels with a centre within 1/32 pixel of
/// a clipped polygon's edge or within 1.5 pixels of a line's end are
/// left out, as are centres on edges; every other pixel's colour within
/// 1 LSB, its depth within
/// 2^-16 (where a clipped primitive drew: plus its depth slope / 256, the
/// reference's snapping of clip vertices). Checked by hand: without the
/// simulated tiler's triangle clipping 1,569 pixels differ, without its
/// line clipping 136, with facing taken from the mirrored vertices 320.
/// Six scenes on the G52, two on a v6 G72; three of them with
/// `depthClampEnable` (depth clamped to the range, not clipped: the
/// reference clips x and y geometrically instead; near/far discard left on
/// there makes 1,413 pixels differ, checked by hand).
#[test]
fn primitives_through_the_eye_and_depth_planes_are_clipped_like_the_vulkan_rules() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    // Positions and RGBA colours; a point size of 4.
    let stages = |arch| {
        (
            graphics_stage("clip_point.vert", Stage::Vertex, arch),
            graphics_stage("rgba_varying.frag", Stage::Fragment, arch),
        )
    };
    let (g52, g72) = (stages(IsaArch::V7), stages(IsaArch::V6));
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut compared, mut clipped_covered, mut left_out) = (0usize, 0usize, 0usize);
    for round in 0..8 {
        let (model, (vs, fs)) = if round < 6 {
            (SimModel::G52, &g52)
        } else {
            (SimModel::G72, &g72)
        };
        let triangles = 8u32;
        let points = 24u32;
        let mut data = Vec::new();
        let mut clipped_vertices = Vec::new();
        for v in 0..3 * triangles + points {
            let in_triangle = v < 3 * triangles;
            // One or two vertices of a triangle behind the eye; every
            // third point behind it.
            let behind = if in_triangle {
                let t = v / 3;
                v % 3 == 0 || (t % 2 == 1 && v % 3 == 1)
            } else {
                v % 3 == 0
            };
            let w = if behind {
                -[0.5f32, 1.0, 2.0][rng.next(3) as usize]
            } else {
                [0.5f32, 1.0, 2.0, 4.0][rng.next(4) as usize]
            };
            let ndc = |r: &mut Rng| (r.next(3 * 8192) as f32 - 1.5 * 8192.0) / 8192.0;
            let (x, y) = (ndc(&mut rng), ndc(&mut rng));
            // z/w in [-0.25, 1.25): some vertices past the near or far plane.
            let z = (rng.next(1536) as f32 - 256.0) / 1024.0;
            data.extend_from_slice(&[x * w, y * w, z * w, w]);
            for _ in 0..3 {
                data.push(rng.next(256) as f32 / 255.0);
            }
            data.push(1.0);
            clipped_vertices.push(behind || !(0.0..=1.0).contains(&z));
        }
        let raster = RasterState {
            cull_back: rng.next(3) == 0,
            front_ccw: rng.next(2) == 0,
            ..RasterState::default()
        };
        // Rounds 4, 5 and 7 clamp depth instead of clipping it.
        let depth_clamp = matches!(round, 4 | 5 | 7);
        let draw = |topology, count, first| DrawSpec {
            topology,
            count,
            first,
            indices: None,
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras {
                depth_clamp,
                ..DrawExtras::default()
            },
            raster,
        };
        let mut scene = grid_scene(
            vs,
            fs,
            data,
            vec![
                draw(Topology::TriangleList, 3 * triangles, 0),
                draw(Topology::PointList, points, 3 * triangles),
                // The points again as a line strip.
                draw(Topology::LineStrip, points, 3 * triangles),
            ],
        );
        scene.stride = 32;
        scene.attributes = vec![(4, 0), (4, 16)];
        scene.shade = rgba_output;
        scene.depth = Some(DepthState {
            compare: CompareOp::Less,
            write: true,
        });
        scene.viewport = Viewport {
            x: [0.0, 8.0][rng.next(2) as usize],
            y: [0.0, 4.0][rng.next(2) as usize],
            width: [40.0, 48.0][rng.next(2) as usize],
            height: [44.0, 56.0][rng.next(2) as usize],
            min_depth: 0.25,
            max_depth: 0.75,
        };
        let r = render_on(model, &scene);
        let (want, left) = reference(&scene);
        // The pixels that triangles needing clipping draw: the reference
        // of a scene of those triangles alone.
        let keep: Vec<u32> = (0..triangles)
            .filter(|t| (0..3).any(|k| clipped_vertices[(3 * t + k) as usize]))
            .collect();
        let mut d = Vec::new();
        for t in &keep {
            d.extend_from_slice(&scene.data[(24 * t) as usize..(24 * (t + 1)) as usize]);
        }
        let mut alone = grid_scene(
            vs,
            fs,
            d,
            vec![draw(Topology::TriangleList, 3 * keep.len() as u32, 0)],
        );
        alone.viewport = scene.viewport;
        alone.stride = 32;
        alone.attributes = vec![(4, 0), (4, 16)];
        let (clipped_only, _) = reference(&alone);
        // The steepest depth slope (per pixel) of the clipped triangles'
        // visible parts.
        let vpr = raster::Viewport {
            x: f64::from(scene.viewport.x),
            y: f64::from(scene.viewport.y),
            width: f64::from(scene.viewport.width),
            height: f64::from(scene.viewport.height),
            min_depth: 0.25,
            max_depth: 0.75,
        };
        let mut slope = 0f64;
        for t in &keep {
            let c = std::array::from_fn(|k| {
                let at = |j: usize| f64::from(scene.data[(24 * t + 8 * k as u32) as usize + j]);
                ([at(0), at(1), at(2), at(3)], vec![])
            });
            for f in clipped_fan(c, &vpr, None, depth_clamp).0 {
                let (x1, y1, z1) = (f[1].x - f[0].x, f[1].y - f[0].y, f[1].z - f[0].z);
                let (x2, y2, z2) = (f[2].x - f[0].x, f[2].y - f[0].y, f[2].z - f[0].z);
                let det = x1 * y2 - x2 * y1;
                if det.abs() > 1e-9 {
                    let (gx, gy) = ((z1 * y2 - z2 * y1) / det, (x1 * z2 - x2 * z1) / det);
                    slope = slope.max(gx.hypot(gy));
                }
            }
        }
        clipped_covered += clipped_only.writes.iter().filter(|&&n| n > 0).count();
        let mut strip = grid_scene(
            vs,
            fs,
            scene.data.clone(),
            vec![draw(Topology::LineStrip, points, 3 * triangles)],
        );
        strip.viewport = scene.viewport;
        strip.stride = 32;
        strip.attributes = vec![(4, 0), (4, 16)];
        let (lines_only, _) = reference(&strip);
        let depth = r.depth.as_ref().unwrap();
        let only = |x: u32, y: u32| !left[(y * SIZE + x) as usize];
        compared += assert_matches(&r.color, &want, only);
        for i in 0..(SIZE * SIZE) as usize {
            if left[i] {
                left_out += 1;
                continue;
            }
            // The reference snaps clip vertices to the 1/256-pixel grid,
            // which tilts a clipped polygon's depth plane (and a clipped
            // line's depth along it) by up to its slope × √2/512 inside
            // it: a looser bound where a clipped triangle or the strip
            // drew.
            let bound = if clipped_only.writes[i] > 0 || lines_only.writes[i] > 0 {
                2f64.powi(-16) + slope / 256.0
            } else {
                2f64.powi(-16)
            };
            assert!(
                (f64::from(depth[i]) - want.depth[i]).abs() <= bound,
                "round {round}: depth at ({}, {}): {} vs {}",
                i as u32 % SIZE,
                i as u32 / SIZE,
                depth[i],
                want.depth[i]
            );
        }
    }
    eprintln!(
        "{compared} covered pixels compared, {clipped_covered} drawn by clipped triangles, \
         {left_out} left out"
    );
    assert!(
        clipped_covered > 2_000,
        "only {clipped_covered} pixels of clipped triangles"
    );
    // Most of those left out are around the line strip's ends.
    assert!(
        left_out * 4 < compared,
        "{left_out} pixels left out of {compared}"
    );
}

/// Instanced draws (`jm::graphics::Instancing`): `instanced_offset.vert`
/// shifts each instance by (I/4, I/8) of w and scales its colour by
/// 1 − I/8, I = `gl_InstanceIndex` = instance id + `firstInstance` (the
/// base-instance sysval). Random lists and strips over random triangles,
/// indexed or not, 1–4 instances from `firstInstance` 0–3, depth LESS,
/// G52 and a v6 G72, against the reference drawing each instance's
/// vertices (computed by the same rule in f64) as draws of their own, in
/// instance order: coverage exact off edges, colours within 1 LSB. The
/// vertex buffer is per-vertex data repeated per instance (`Indexing::
/// PerVertex` with the padded count; the smallest index is 0, see below).
/// Checked by hand: a tiler that ignores the instance count (468 pixels
/// differ) or steps one element past `Instance Size` per instance (36)
/// fails. `instanceCount` = 0 appends no jobs.
#[test]
fn instanced_draws_render_every_instance_like_the_vulkan_rules() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    use bifrost_vk::jm::compute::vertex_instance_size;
    use bifrost_vk::jm::graphics::Instancing;
    let f = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/shaders/color_varying.frag.spv"
    ))
    .unwrap();
    let stages = |arch| {
        (
            graphics_stage("instanced_offset.vert", Stage::Vertex, arch),
            compile_for(&f, Stage::Fragment, arch),
        )
    };
    let (g52, g72) = (stages(IsaArch::V7), stages(IsaArch::V6));
    let mut rng = Rng(0x51_7cc1_b727_220a);
    let mut covered = 0;
    for round in 0..8 {
        let (model, (vs, fs)) = if round < 6 {
            (SimModel::G52, &g52)
        } else {
            (SimModel::G72, &g72)
        };
        let data = grid_data(&mut rng);
        let nverts = (data.len() / 7) as u32;
        let count = 1 + rng.next(4) as u32;
        let first = rng.next(4) as u32;
        let strip = rng.next(2) == 0;
        let topology = if strip {
            Topology::TriangleStrip
        } else {
            Topology::TriangleList
        };
        let indexed = rng.next(2) == 0;
        let n = if strip {
            4 + rng.next(6)
        } else {
            3 * (1 + rng.next(3))
        } as usize;
        let mut values: Vec<u32> = (0..n).map(|_| rng.next(u64::from(nverts)) as u32).collect();
        // The smallest index 0: the attribute unit's linear index adds
        // `Offset start` (the first vertex) before the per-vertex modulus
        // (`jm::vertex_input`), so per-vertex data repeats correctly per
        // instance only from element 0.
        values[0] = 0;
        let draw = |first_vertex: u32, indices: Option<Indices>, instancing| DrawSpec {
            topology,
            count: n as u32,
            first: first_vertex,
            indices,
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras {
                instancing,
                ..DrawExtras::default()
            },
            raster: RasterState::default(),
        };
        // Ours: the vertices once, `count` instances. Non-indexed draws
        // read the vertices in draw order from a buffer of its own.
        let (ours_data, ours_indices) = if indexed {
            (data.clone(), Indices::u16(&values))
        } else {
            let mut d = Vec::new();
            for &v in &values {
                d.extend_from_slice(&data[7 * v as usize..7 * v as usize + 7]);
            }
            (d, None)
        };
        let per_instance = Instancing { count, first };
        let mut scene = grid_scene(vs, fs, ours_data, vec![draw(0, ours_indices, per_instance)]);
        scene.depth = Some(DepthState {
            compare: CompareOp::Less,
            write: true,
        });
        // The vertex job's vertex range: the whole index range (0..max)
        // of an indexed draw, the draw's vertices otherwise.
        let range = if indexed {
            values.iter().max().unwrap() - values.iter().min().unwrap() + 1
        } else {
            n as u32
        };
        let padded = vertex_instance_size(range, count).unwrap() as u32;
        let mut gpu = SimGpu::new(model);
        let out = try_render_on(&mut gpu, &scene, |b| {
            if count > 1 {
                b.indexing = Indexing::PerVertex {
                    instance_size: padded,
                };
            }
        })
        .unwrap();
        // The reference: each instance's vertices by the shader's rule,
        // each instance a draw of its own.
        let mut expanded = Vec::new();
        let mut draws = Vec::new();
        let vertices_per_copy = if indexed { nverts } else { n as u32 };
        let source: Vec<f32> = scene.data.clone();
        for k in 0..count {
            let i = f64::from(first + k);
            for v in source.chunks(7) {
                let w = f64::from(v[3]);
                let moved = [
                    f64::from(v[0]) + 0.25 * i * w,
                    f64::from(v[1]) + 0.125 * i * w,
                    f64::from(v[2]),
                    w,
                ];
                expanded.extend(moved.map(|c| c as f32));
                expanded.extend(
                    v[4..7]
                        .iter()
                        .map(|&c| (f64::from(c) * (1.0 - 0.125 * i)) as f32),
                );
            }
            let base = k * vertices_per_copy;
            draws.push(if indexed {
                let mut ix = Indices::u16(&values).unwrap();
                ix.vertex_offset = base as i32;
                draw(0, Some(ix), Instancing::default())
            } else {
                draw(base, None, Instancing::default())
            });
        }
        let mut want_scene = grid_scene(vs, fs, expanded, draws);
        want_scene.depth = Some(DepthState {
            compare: CompareOp::Less,
            write: true,
        });
        let (want, on_edge) = reference(&want_scene);
        let c = assert_matches(&out.color, &want, |x, y| !on_edge[(y * SIZE + x) as usize]);
        assert!(c > 0, "round {round}: nothing drawn");
        covered += c;
    }
    assert!(covered > 2_000, "{covered} pixels covered");
    // No instances: no jobs.
    let (vs, fs) = &g52;
    let mut scene = grid_scene(
        vs,
        fs,
        grid_data(&mut rng),
        vec![DrawSpec {
            topology: Topology::TriangleList,
            count: 3,
            first: 0,
            indices: None,
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras {
                instancing: Instancing { count: 0, first: 0 },
                ..DrawExtras::default()
            },
            raster: RasterState::default(),
        }],
    );
    scene.depth = None;
    let r = render(&scene);
    assert!(r.jobs.is_empty(), "{:?}", r.jobs.len());
}

/// Triangle strips with u8 indices and restart (0xff), a fan with u32
/// indices and a vertex offset, a list with u16 indices whose smallest
/// index is not 0, back-face culling on the strip.
#[test]
fn strips_fans_index_types_and_restart_render_like_the_vulkan_rules() {
    let (vs, fs) = clip_shaders();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let data = grid_data(&mut rng);
    let draws = vec![
        DrawSpec {
            topology: Topology::TriangleStrip,
            count: 11,
            first: 0,
            indices: Some(Indices {
                ty: IndexType::U8,
                values: vec![0, 5, 1, 6, 2, 7, 0xff, 10, 15, 11, 16],
                vertex_offset: 0,
                restart: true,
            }),
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras::default(),
            raster: RasterState {
                cull_back: true,
                front_ccw: true,
                ..RasterState::default()
            },
        },
        DrawSpec {
            topology: Topology::TriangleFan,
            count: 6,
            first: 0,
            indices: Some(Indices {
                ty: IndexType::U32,
                values: [23, 24, 19, 18, 17, 22].map(|i| i - 2).to_vec(),
                vertex_offset: 2,
                restart: false,
            }),
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras::default(),
            raster: RasterState::default(),
        },
        DrawSpec {
            topology: Topology::TriangleList,
            count: 6,
            first: 0,
            indices: Indices::u16(&[3, 4, 8, 4, 9, 8]),
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras::default(),
            raster: RasterState::default(),
        },
    ];
    let scene = grid_scene(&vs, &fs, data, draws);
    let covered = render_and_compare(&scene);
    // Culling the other face leaves only the fan and the list: the six
    // strip triangles (three 14x14 cells) all have one winding in the
    // spec's vertex order, so they all survive or all go.
    let mut other = grid_scene(&vs, &fs, scene.data.clone(), scene.draws.clone());
    other.draws[0].raster.front_ccw = false;
    let covered_other = render_and_compare(&other);
    assert!(covered_other > 400, "{covered_other} pixels covered");
    assert!(
        covered > covered_other + 450,
        "{covered} vs {covered_other}"
    );
}

/// Flat shading: a strip with the first vertex provoking, a list with the
/// last (`VK_EXT_provoking_vertex`'s rule), every pixel the provoking
/// vertex's colour.
#[test]
fn flat_shading_takes_the_provoking_vertex() {
    let (vs, _) = clip_shaders();
    let f = std::fs::read(format!("{GRAPHICS_SHADERS}/flat_color.frag.spv")).unwrap();
    let fs = compile(&f, Stage::Fragment);
    let mut rng = Rng(0x0bad_cafe_dead_beef);
    let data = grid_data(&mut rng);
    let draws = vec![
        DrawSpec {
            topology: Topology::TriangleStrip,
            count: 6,
            first: 0,
            indices: Indices::u16(&[0, 5, 1, 6, 2, 7]),
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras::default(),
            raster: RasterState::default(),
        },
        DrawSpec {
            topology: Topology::TriangleList,
            count: 6,
            first: 0,
            indices: Indices::u16(&[15, 16, 20, 16, 21, 20]),
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras::default(),
            raster: RasterState {
                first_provoking: false,
                ..RasterState::default()
            },
        },
    ];
    let mut scene = grid_scene(&vs, &fs, data, draws);
    scene.interpolation = Interpolation::Flat;
    let covered = render_and_compare(&scene);
    assert!(covered > 450, "{covered} pixels covered");
}

/// SRC_ALPHA / ONE_MINUS_SRC_ALPHA blending of overlapping translucent
/// triangles over the clear colour and each other.
#[test]
fn alpha_blending_renders_like_the_vulkan_rules() {
    let (vs, _) = clip_shaders();
    let f = std::fs::read(format!("{GRAPHICS_SHADERS}/translucent.frag.spv")).unwrap();
    let fs = compile(&f, Stage::Fragment);
    let mut rng = Rng(0x5555_aaaa_1234_4321);
    let data = grid_data(&mut rng);
    let draws = vec![DrawSpec {
        topology: Topology::TriangleList,
        count: 12,
        first: 0,
        indices: Indices::u16(&[0, 4, 20, 24, 4, 0, 2, 22, 10, 12, 14, 21]),
        blend: Blend::SrcAlphaOver,
        write_mask: 15,
        extras: DrawExtras::default(),
        raster: RasterState::default(),
    }];
    let mut scene = grid_scene(&vs, &fs, data, draws);
    scene.shade = |c| [c[0], c[1], 0.25, c[2]];
    let covered = render_and_compare(&scene);
    assert!(covered > 1500, "{covered} pixels covered");
}

// ---- The checked-in frame ---------------------------------------------------

/// `examples/render_frame.rs`'s scene (a copy of its vertices and indices):
/// rendered here through the same path, the PNG equals the checked-in
/// `tests/shaders/graphics/render_frame.expected.png` (which the example
/// wrote; `BLESS=1` rewrites it from this test) byte for byte, and the
/// pixels equal the Vulkan rules.
#[test]
fn the_checked_in_frame_is_what_we_render() {
    const VERTICES: [[f32; 7]; 6] = [
        [-0.875, -0.875, 0.75, 1.0, 1.0, 0.0, 0.0],
        [1.25, -0.5, 1.5, 2.0, 0.0, 1.0, 0.0],
        [-0.875, 0.59375, 0.75, 1.0, 0.0, 0.0, 1.0],
        [-0.5, -0.5, 0.25, 1.0, 0.0, 1.0, 0.0],
        [0.875, -0.25, 0.25, 1.0, 0.0, 1.0, 0.0],
        [-0.25, 0.90625, 0.25, 1.0, 0.0, 1.0, 0.0],
    ];
    let (vs, fs) = clip_shaders();
    let mut scene = grid_scene(
        &vs,
        &fs,
        VERTICES.iter().flatten().copied().collect(),
        vec![DrawSpec {
            topology: Topology::TriangleList,
            count: 6,
            first: 0,
            indices: Indices::u16(&[3, 4, 5, 0, 1, 2]),
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras::default(),
            raster: RasterState::default(),
        }],
    );
    scene.depth = Some(DepthState {
        compare: CompareOp::Less,
        write: true,
    });
    let r = render(&scene);
    let (want, on_edge) = reference(&scene);
    assert!(on_edge.iter().all(|&e| !e), "a pixel centre on an edge");
    let covered = assert_matches(&r.color, &want, |_, _| true);
    assert_eq!(covered, 1620);
    let png = bifrost_vk::testing::png::encode_rgba8(SIZE, SIZE, &r.color);
    let path = format!("{GRAPHICS_SHADERS}/render_frame.expected.png");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &png).unwrap();
    }
    let expected = std::fs::read(&path).expect("the checked-in frame");
    assert!(expected == png, "{path} differs from the rendered frame");
}

/// `examples/render_frame.rs --textured`'s scene (a copy of its vertices,
/// indices and texture): a perspective floor between a near and a far
/// triangle, all sampling a 32×32 checkerboard (Tiled, bilinear, repeat)
/// at binding 9 times an interpolated colour (`clip_uv.vert` +
/// `textured_b9.frag`), depth test LESS on D32. Every pixel whose centre is
/// on no edge within 1 LSB of the reference rasterizer × the reference
/// sampler (`textured_shade`, the bound explained at
/// `mesa_fs_textured_renders_like_the_reference_sampler`); the depth test
/// decides (the floor behind the near triangle, the far triangle behind
/// both, at least 0.1 apart in depth); the PNG equals the checked-in
/// `tests/shaders/graphics/render_frame_textured.expected.png` byte for
/// byte (`BLESS=1` rewrites it from this test).
#[test]
fn the_checked_in_textured_frame_is_what_we_render() {
    use bifrost_vk::testing::sampler::{AddressMode, Image, ImageFormat, Sampler};
    const VERTICES: [[f32; 8]; 10] = [
        [-0.95, 0.95, 0.4, 1.0, 0.0, 0.0, 0.25, 1.0],
        [0.95, 0.95, 0.4, 1.0, 2.0, 0.0, 0.25, 1.0],
        [-1.2, -0.6, 1.6, 2.0, 0.0, 2.0, 0.75, 1.0],
        [1.2, -0.6, 1.6, 2.0, 2.0, 2.0, 0.75, 1.0],
        [-0.8, -0.85, 0.2, 1.0, 0.0, 0.0, 0.0, 1.0],
        [0.3, -0.55, 0.2, 1.0, 1.0, 0.0, 0.5, 1.0],
        [-0.45, 0.5, 0.2, 1.0, 0.0, 1.0, 1.0, 1.0],
        [-0.1, -0.95, 0.9, 1.0, 0.0, 0.0, 1.0, 1.0],
        [1.425, -1.05, 1.35, 1.5, 1.5, 0.0, 0.5, 1.0],
        [0.6, 0.9, 1.35, 1.5, 0.75, 1.5, 0.0, 1.0],
    ];
    const INDICES: [u16; 12] = [4, 5, 6, 0, 1, 2, 2, 1, 3, 7, 8, 9];
    let texels: Vec<[u8; 4]> = (0..32 * 32)
        .map(|i| {
            let (x, y) = (i % 32, i / 32);
            if (x / 8 + y / 8) % 2 == 0 {
                [240, 236, 224, 255]
            } else {
                [(40 + 5 * x) as u8, (60 + 4 * y) as u8, 150, 255]
            }
        })
        .collect();
    let v = std::fs::read(format!("{GRAPHICS_SHADERS}/clip_uv.vert.spv")).unwrap();
    let f = std::fs::read(format!("{GRAPHICS_SHADERS}/textured_b9.frag.spv")).unwrap();
    let vs = compile(&v, Stage::Vertex);
    let fs = compile(&f, Stage::Fragment);
    let mut gpu = SimGpu::new(SimModel::G52);
    // Two 16×16 tiles per row of tiles, two rows.
    let row_stride = 2 * 16 * 16 * 4;
    let buf = gpu.alloc(2 * row_stride);
    for (i, t) in texels.iter().enumerate() {
        let (x, y) = (i as u32 % 32, i as u32 / 32);
        gpu.write(buf.va + u_interleaved_offset(x, y, row_stride, 4), t);
    }
    let mut textures = vec![None; 10];
    let mut samplers = vec![None; 10];
    textures[9] = Some(TextureDesc {
        dim: Default::default(),
        layers: 1,
        layer_stride: 0,
        levels: 1,
        mips: Default::default(),
        address: buf.va,
        width: 32,
        height: 32,
        row_stride: row_stride as u32,
        layout: TexelLayout::Tiled,
        format: TexelFormat::Rgba8Unorm,
    });
    samplers[9] = Some(SamplerDesc {
        linear: true,
        wrap: [WrapMode::Repeat; 2],
        border: [0.0; 4],
        lod: Default::default(),
    });
    let image = Image {
        width: 32,
        height: 32,
        texels,
        format: ImageFormat::Rgba8Unorm,
    };
    TEXTURE.with(|t| *t.borrow_mut() = Some((image, Sampler::simple(true, AddressMode::Repeat))));
    let mut scene = grid_scene(
        &vs,
        &fs,
        VERTICES.iter().flatten().copied().collect(),
        vec![DrawSpec {
            topology: Topology::TriangleList,
            count: INDICES.len() as u32,
            first: 0,
            indices: Indices::u16(&INDICES.map(u32::from)),
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras::default(),
            raster: RasterState::default(),
        }],
    );
    scene.stride = 32;
    scene.attributes = vec![(4, 0), (4, 16)];
    scene.shade = textured_shade;
    scene.textures = Some((textures, samplers));
    scene.depth = Some(DepthState {
        compare: CompareOp::Less,
        write: true,
    });
    let out = try_render_on(&mut gpu, &scene, |_| {})
        .unwrap_or_else(|e| panic!("the chains must complete: {e}"));
    let (want, on_edge) = reference(&scene);
    let edges = on_edge.iter().filter(|&&e| e).count();
    let covered = assert_matches(&out.color, &want, |x, y| !on_edge[(y * SIZE + x) as usize]);
    eprintln!("{covered} textured pixels compared, {edges} on an edge left out");
    assert!(covered > 2500, "only {covered} pixels covered");
    // The depth test decided: without it the far triangle, drawn last,
    // would cover pixels the reference gives to the floor and the near
    // triangle.
    let mut no_depth = scene;
    no_depth.depth = None;
    let (painted, _) = reference(&no_depth);
    let (tested, painted) = (want.resolve_rgba8(), painted.resolve_rgba8());
    let hidden = (0..on_edge.len())
        .filter(|&i| !on_edge[i] && tested[4 * i..4 * i + 4] != painted[4 * i..4 * i + 4])
        .count();
    assert!(
        hidden > 200,
        "only {hidden} pixels where the depth test matters"
    );
    let png = bifrost_vk::testing::png::encode_rgba8(SIZE, SIZE, &out.color);
    let path = format!("{GRAPHICS_SHADERS}/render_frame_textured.expected.png");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &png).unwrap();
    }
    let expected = std::fs::read(&path).expect("the checked-in textured frame");
    assert!(expected == png, "{path} differs from the rendered frame");
}

/// The same path on a v6 GPU (G72): shaders compiled for v6, v6
/// descriptors (no Message Preload or register-allocation fields, the v6
/// attribute and pixel formats), the same image.
#[test]
fn the_depth_scene_renders_on_a_v6_gpu() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let v = std::fs::read(format!("{GRAPHICS_SHADERS}/clip_position.vert.spv")).unwrap();
    let f = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/shaders/color_varying.frag.spv"
    ))
    .unwrap();
    let vs = compile_for(&v, Stage::Vertex, IsaArch::V6);
    let fs = compile_for(&f, Stage::Fragment, IsaArch::V6);
    let mut rng = Rng(0x6666_0000_7777_1111);
    let data = grid_data(&mut rng);
    let mut scene = grid_scene(
        &vs,
        &fs,
        data,
        vec![DrawSpec {
            topology: Topology::TriangleStrip,
            count: 10,
            first: 0,
            indices: Indices::u16(&[0, 6, 1, 12, 2, 18, 8, 24, 14, 19]),
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras::default(),
            raster: RasterState::default(),
        }],
    );
    scene.depth = Some(DepthState {
        compare: CompareOp::LessOrEqual,
        write: true,
    });
    let mut gpu = SimGpu::new(SimModel::G72);
    let out = try_render_on(&mut gpu, &scene, |_| {})
        .unwrap_or_else(|e| panic!("the v6 chains must complete: {e}"));
    let (want, on_edge) = reference(&scene);
    let covered = assert_matches(&out.color, &want, |x, y| !on_edge[(y * SIZE + x) as usize]);
    assert!(covered > 500, "{covered} pixels covered");
}

/// v7 message preloads (`FragmentInfo::messages`): `split_rgba.frag`
/// reads three smooth varyings; compiled for v7 the first two come from
/// the RSD's Message Preload 1 and 2 (r0.., r4..) and only the third is an
/// `LD_VAR_IMM`, compiled for v6 all three are. Both render the random
/// colour cells exactly as `rgba_varying.frag` (one vec4 varying) does, on
/// the G52 and on a v6 G72, and as the Vulkan rules say.
#[test]
fn message_preloads_render_like_ld_var() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    use bifrost_vk::compiler::bifrost::binary::VaryingPreload;
    use bifrost_vk::compiler::bifrost::disasm::disassemble;
    let v = std::fs::read(format!("{GRAPHICS_SHADERS}/split_rgba.vert.spv")).unwrap();
    let f = std::fs::read(format!("{GRAPHICS_SHADERS}/split_rgba.frag.spv")).unwrap();
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let (vs, fs) = (
            compile_for(&v, Stage::Vertex, arch),
            compile_for(&f, Stage::Fragment, arch),
        );
        let info = fs.binary.fragment.as_ref().unwrap();
        let text = disassemble(&fs.binary.code).unwrap();
        let ld_vars = text.matches("LD_VAR_IMM").count();
        if arch == IsaArch::V7 {
            assert_eq!(
                info.messages,
                [
                    VaryingPreload {
                        location: 0,
                        components: 2
                    },
                    VaryingPreload {
                        location: 1,
                        components: 1
                    }
                ]
            );
            assert_eq!(ld_vars, 1, "{text}");
            assert!(text.contains("index:2"), "{text}");
        } else {
            assert!(info.messages.is_empty());
            assert_eq!(ld_vars, 3, "{text}");
        }
        let (rvs, rfs) = rgba_shaders(arch);
        let mut rng = Rng(0x5eed_0000_1234_5678);
        let split = rgba_scene(&vs, &fs, &mut rng, 4);
        let mut rng = Rng(0x5eed_0000_1234_5678);
        let whole = rgba_scene(&rvs, &rfs, &mut rng, 4);
        let got = try_render_on(&mut SimGpu::new(model), &split, |_| {})
            .unwrap_or_else(|e| panic!("{model:?}: {e}"));
        let want = try_render_on(&mut SimGpu::new(model), &whole, |_| {})
            .unwrap_or_else(|e| panic!("{model:?}: {e}"));
        assert!(got.color == want.color, "{model:?}: images differ");
        let (reference_image, on_edge) = reference(&split);
        let covered = assert_matches(&got.color, &reference_image, |x, y| {
            !on_edge[(y * SIZE + x) as usize]
        });
        assert!(covered > 3000, "{model:?}: {covered} pixels covered");
    }
    // A v7 binary with message preloads on a v6 GPU: refused, no job.
    let fs7 = compile_for(&f, Stage::Fragment, IsaArch::V7);
    let vs6 = compile_for(&v, Stage::Vertex, IsaArch::V6);
    let mut rng = Rng(1);
    let scene = rgba_scene(&vs6, &fs7, &mut rng, 8);
    let err = try_render_on(&mut SimGpu::new(SimModel::G72), &scene, |_| {})
        .err()
        .expect("refused");
    assert!(err.to_string().contains("message preloads"), "{err}");

    // Mesa's fs_textured on v7 (its pixels: `mesa_fs_textured_renders_like_
    // the_reference_sampler`): both varyings preloaded (no LD_VAR), the
    // products written straight into BLEND's colour registers
    // (`isel/peephole.rs::place_colours`): one MOV left, alpha's, which
    // ATEST reads too.
    if let Ok(f) = std::fs::read(bifrost_vk::reference_path!(
        "mesa-g52/shaders/fs_textured.spv"
    )) {
        let fs = compile_for(&f, Stage::Fragment, IsaArch::V7);
        let text = disassemble(&fs.binary.code).unwrap();
        assert!(!text.contains("LD_VAR"), "{text}");
        assert_eq!(text.matches("MOV.i32").count(), 1, "{text}");
        assert_eq!(fs.binary.fragment.as_ref().unwrap().messages.len(), 2);
    }
}

/// What `add_draw` refuses (an error, no job) or skips (no job).
#[test]
fn bad_draws_are_errors() {
    let (vs, fs) = clip_shaders();
    let mut gpu = SimGpu::new(SimModel::G52);
    let vs_code = gpu.upload(&vs.binary);
    let fs_code = gpu.upload(&fs.binary);
    let targets = [ColorTargetState {
        format: ColorFormat::Rgba8Unorm,
        blend: Blend::Opaque,
        write_mask: 15,
    }];
    let r = gpu.run_chain(|chain, pool, arch| {
        let base = Draw {
            vertex: Program {
                binary: &vs.binary,
                code: vs_code,
                lowered: &vs.lowered,
                buffers: &[],
            },
            fragment: Program {
                binary: &fs.binary,
                code: fs_code,
                lowered: &fs.lowered,
                buffers: &[],
            },
            attributes: Default::default(),
            push_constants: &[],
            push_constants_address: 0,
            topology: Topology::TriangleList,
            count: 3,
            first_vertex: 0,
            indices: None,
            raster: RasterState::default(),
            depth: None,
            targets: &targets,
            viewport: viewport(),
            scissor: full_scissor(),
            tiler_context: 0x1000,
            previous_tiler: 0,
        };
        // Nothing to draw: no jobs.
        for d in [
            Draw { count: 0, ..base },
            Draw {
                scissor: Scissor {
                    width: 0,
                    ..full_scissor()
                },
                ..base
            },
        ] {
            assert_eq!(add_draw(chain, pool, arch, &d).unwrap(), None);
        }
        let vertex_as_fragment = Draw {
            fragment: base.vertex,
            ..base
        };
        let fragment_as_vertex = Draw {
            vertex: base.fragment,
            ..base
        };
        let misaligned = Draw {
            fragment: Program {
                code: fs_code + 64,
                ..base.fragment
            },
            ..base
        };
        let no_targets = Draw {
            targets: &[],
            ..base
        };
        let empty_range = Draw {
            indices: Some(IndexBuffer {
                address: 0x1000,
                ty: IndexType::U16,
                vertex_offset: 0,
                min_index: 5,
                max_index: 4,
                restart: false,
            }),
            ..base
        };
        let negative = Draw {
            indices: Some(IndexBuffer {
                address: 0x1000,
                ty: IndexType::U32,
                vertex_offset: -3,
                min_index: 1,
                max_index: 4,
                restart: false,
            }),
            ..base
        };
        let mut max = BlendEquation::SRC_ALPHA_OVER;
        max.color_op = BlendOp::Max;
        let mut two_constants = BlendEquation::SRC_ALPHA_OVER;
        two_constants.src_color = BlendFactor::ConstantColor;
        two_constants.dst_color = BlendFactor::OneMinusConstantColor;
        two_constants.constants = [0.5, 0.25, 0.5, 0.5];
        let mut dual = BlendEquation::SRC_ALPHA_OVER;
        dual.dst_alpha = BlendFactor::OneMinusSrc1Alpha;
        for eq in [max, two_constants, dual] {
            assert!(matches!(
                bifrost_vk::jm::blend::needs_blend_shader(&eq, 15),
                Ok(true)
            ));
        }
        // MAX, two constants and dual-source factors take blend shaders:
        // they are not errors (`blend_shaders_on_unorm_targets_match_the_reference`,
        // `every_blend_factor_and_op_renders_like_the_vulkan_rules`).
        for (what, d) in [
            ("a vertex shader as fragment program", vertex_as_fragment),
            ("a fragment shader as vertex program", fragment_as_vertex),
            ("misaligned fragment code", misaligned),
            ("an output without a target", no_targets),
            ("an empty index range", empty_range),
            ("a negative first vertex", negative),
        ] {
            assert!(add_draw(chain, pool, arch, &d).is_err(), "{what}");
        }
        // Integer targets: no blending (partial masks take blend shaders
        // as on float targets), and the output's type must match.
        let raw_targets = [
            (ColorFormat::Rgba32Uint, Blend::SrcAlphaOver, 15),
            (ColorFormat::Rgba32Sint, Blend::Opaque, 0b0111),
            (ColorFormat::Rgba32Uint, Blend::Opaque, 15),
            (ColorFormat::R32Sint, Blend::Opaque, 1),
        ]
        .map(|(format, blend, write_mask)| {
            [ColorTargetState {
                format,
                blend,
                write_mask,
            }]
        });
        for t in &raw_targets {
            let d = Draw { targets: t, ..base };
            assert!(add_draw(chain, pool, arch, &d).is_err(), "{:?}", t[0]);
        }
        // Dual-source factors on a target other than 0 (the second colour
        // is in r4–r7 at target 0's BLEND only).
        let dual_on_1 = [
            targets[0],
            ColorTargetState {
                blend: Blend::Equation(dual),
                ..targets[0]
            },
        ];
        let d = Draw {
            targets: &dual_on_1,
            ..base
        };
        assert!(matches!(
            add_draw(chain, pool, arch, &d),
            Err(bifrost_vk::jm::JmError::Encoding(m)) if m.contains("dual-source")
        ));
        // A blend shader at 4× is drawn per sample since `gfx-dual`
        // (`blend_shaders_at_4x_blend_every_sample_with_its_own_destination`).
        for samples in [0, 2, 3, 8, 16] {
            let extras = DrawExtras {
                multisample: Multisample {
                    samples,
                    sample_mask: u32::MAX,
                    ..Multisample::default()
                },
                ..DrawExtras::default()
            };
            assert!(
                add_draw_with(chain, pool, arch, &base, &extras).is_err(),
                "{samples} samples"
            );
        }
        assert!(chain.is_empty(), "no job was appended");
        Ok(false)
    });
    assert!(r.unwrap().is_none());
}

/// Random index streams on the grid: list, strip or fan, u8/u16/u32
/// indices with a random vertex offset, restarts in strips and fans,
/// random culling, several draws per render pass, against the reference.
#[test]
fn random_indexed_draws_match_the_reference_rasterizer() {
    let (vs, fs) = clip_shaders();
    let mut rng = Rng(0x7f4a_7c15_9e37_79b9);
    let mut covered = 0;
    for _ in 0..10 {
        let data = grid_data(&mut rng);
        let mut draws = Vec::new();
        for _ in 0..3 {
            let topology = [
                Topology::TriangleList,
                Topology::TriangleStrip,
                Topology::TriangleFan,
            ][rng.next(3) as usize];
            let ty = [IndexType::U8, IndexType::U16, IndexType::U32][rng.next(3) as usize];
            let vertex_offset = rng.next(4) as i32;
            let restart = topology != Topology::TriangleList && rng.next(2) == 0;
            let n = 6 + rng.next(9) as usize;
            let mut ix = Indices {
                ty,
                values: Vec::new(),
                vertex_offset,
                restart,
            };
            for k in 0..n {
                if restart && k > 0 && rng.next(5) == 0 {
                    ix.values.push(ix.restart_value());
                } else {
                    ix.values.push(rng.next(25 - vertex_offset as u64) as u32);
                }
            }
            if ix.used().next().is_none() {
                ix.values[0] = 0;
            }
            draws.push(DrawSpec {
                topology,
                count: n as u32,
                first: 0,
                indices: Some(ix),
                blend: Blend::Opaque,
                write_mask: 15,
                extras: DrawExtras::default(),
                raster: RasterState {
                    cull_back: rng.next(3) == 0,
                    front_ccw: rng.next(2) == 0,
                    ..RasterState::default()
                },
            });
        }
        covered += render_and_compare(&grid_scene(&vs, &fs, data, draws));
    }
    assert!(covered > 3000, "{covered} pixels covered");
}

// ---- Fixed-function blending ------------------------------------------------

fn rgba_shaders(arch: bifrost_vk::compiler::bifrost::Arch) -> (Stage2, Stage2) {
    let v = std::fs::read(format!("{GRAPHICS_SHADERS}/clip_rgba.vert.spv")).unwrap();
    let f = std::fs::read(format!("{GRAPHICS_SHADERS}/rgba_varying.frag.spv")).unwrap();
    (
        compile_for(&v, Stage::Vertex, arch),
        compile_for(&f, Stage::Fragment, arch),
    )
}

fn rgba_output(c: &[f64]) -> [f64; 4] {
    [c[0], c[1], c[2], c[3]]
}

/// Appends a quad (a strip of 4 vertices, or a list of 6) of one colour
/// whose edges lie a quarter pixel up and left of the pixel grid, so no
/// pixel centre is on an edge: it covers pixels x..x+w, y..y+h.
fn push_quad(data: &mut Vec<f32>, x: u32, y: u32, w: u32, h: u32, colour: &[f32], list: bool) {
    let corners: &[(u32, u32)] = if list {
        &[(0, 0), (1, 0), (0, 1), (0, 1), (1, 0), (1, 1)]
    } else {
        &[(0, 0), (1, 0), (0, 1), (1, 1)]
    };
    for &(i, j) in corners {
        let px = (x + i * w) as f32 - 0.25;
        let py = (y + j * h) as f32 - 0.25;
        data.extend_from_slice(&[px / 32.0 - 1.0, py / 32.0 - 1.0, 0.0, 1.0]);
        data.extend_from_slice(colour);
    }
}

/// A scene of clip position (4 floats) + RGBA (4 floats) vertices whose
/// first draw is the destination every later draw blends onto: `cells`
/// opaque squares of `cell` pixels, each of one colour k/255 from `rng`,
/// tiling the framebuffer (one triangle-list draw).
fn rgba_scene<'a>(vs: &'a Stage2, fs: &'a Stage2, rng: &mut Rng, cell: u32) -> Scene<'a> {
    let mut data = Vec::new();
    let n = SIZE / cell;
    for j in 0..n {
        for i in 0..n {
            let colour: Vec<f32> = (0..4).map(|_| rng.next(256) as f32 / 255.0).collect();
            push_quad(&mut data, i * cell, j * cell, cell, cell, &colour, true);
        }
    }
    Scene {
        textures: None,
        vs,
        fs,
        data,
        stride: 32,
        attributes: vec![(4, 0), (4, 16)],
        depth: None,
        draws: vec![DrawSpec {
            topology: Topology::TriangleList,
            count: 6 * n * n,
            first: 0,
            indices: None,
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras::default(),
            raster: RasterState::default(),
        }],
        viewport: viewport(),
        scissor: full_scissor(),
        shade: rgba_output,
        interpolation: Interpolation::Smooth,
        stencil_clear: None,
        format: ColorFormat::Rgba8Unorm,
        depth_format: ZDepthFormat::D32,
        samples: 1,
        per_sample: false,
        more_formats: Vec::new(),
        more_write_masks: Vec::new(),
        sample_shading: false,
    }
}

/// A source component: mostly in [0, 1], sometimes outside (UNORM
/// targets clamp it) or exactly 0 or 1 (alpha shortcuts).
fn source_value(rng: &mut Rng) -> f32 {
    match rng.next(8) {
        0 => 0.0,
        1 => 1.0,
        2 => -0.25 + rng.next(64) as f32 / 256.0,
        3 => 1.0 + rng.next(64) as f32 / 256.0,
        _ => rng.next(256) as f32 / 255.0,
    }
}

/// What the Vulkan spec's factor table scales by, for deciding whether the
/// fixed-function unit (one `A + B × C` per equation, one constant) can
/// express a pair: `None` for dual-source factors (a second colour output
/// the unit has no register for); constants are one quantity when the
/// constants are all equal.
fn factor_quantity(f: BlendFactor, alpha: bool) -> Option<(&'static str, bool)> {
    use BlendFactor::*;
    Some(match f {
        Zero => ("0", false),
        One => ("0", true),
        SrcColor if alpha => ("As", false),
        OneMinusSrcColor if alpha => ("As", true),
        DstColor if alpha => ("Ad", false),
        OneMinusDstColor if alpha => ("Ad", true),
        SrcColor => ("s", false),
        OneMinusSrcColor => ("s", true),
        DstColor => ("d", false),
        OneMinusDstColor => ("d", true),
        SrcAlpha => ("As", false),
        OneMinusSrcAlpha => ("As", true),
        DstAlpha => ("Ad", false),
        OneMinusDstAlpha => ("Ad", true),
        ConstantColor | ConstantAlpha => ("c", false),
        OneMinusConstantColor | OneMinusConstantAlpha => ("c", true),
        SrcAlphaSaturate if alpha => ("0", true),
        SrcAlphaSaturate => ("min(As, 1-Ad)", false),
        Src1Color | OneMinusSrc1Color | Src1Alpha | OneMinusSrc1Alpha => return None,
    })
}

/// Whether `op(s·sf, d·df)` is one `±A ± B × C'` of the unit (constants
/// all equal): ADD/SUBTRACT/REVERSE_SUBTRACT, no dual source, no
/// SRC_ALPHA_SATURATE for colour, and ZERO/ONE on one side, or both sides
/// scaling by one quantity x or 1 − x, or ADD of s·d + d·s.
fn expressible(op: BlendOp, sf: BlendFactor, df: BlendFactor, alpha: bool) -> bool {
    if matches!(op, BlendOp::Min | BlendOp::Max) {
        return false;
    }
    let (Some(s), Some(d)) = (factor_quantity(sf, alpha), factor_quantity(df, alpha)) else {
        return false;
    };
    if s.0.starts_with("min") || d.0.starts_with("min") {
        return false;
    }
    let two_s_d = op == BlendOp::Add
        && if alpha {
            s == ("Ad", false) && d == ("As", false)
        } else {
            s == ("d", false) && d == ("s", false)
        };
    s.0 == "0" || d.0 == "0" || s.0 == d.0 || two_s_d
}

use bifrost_vk::compiler::bifrost::Arch as IsaArch;

/// `dual_source.frag`'s second colour: the first rotated.
fn dual_source_src1(c: &[f64]) -> [f64; 4] {
    [c[1], c[2], c[3], c[0]]
}

fn dual_source_shaders(arch: IsaArch) -> (Stage2, Stage2) {
    let v = std::fs::read(format!("{GRAPHICS_SHADERS}/clip_rgba.vert.spv")).unwrap();
    let f = std::fs::read(format!("{GRAPHICS_SHADERS}/dual_source.frag.spv")).unwrap();
    (
        compile_for(&v, Stage::Vertex, arch),
        compile_for(&f, Stage::Fragment, arch),
    )
}

/// The reference of a scene drawn with `dual_source.frag` (or, with
/// `dual` false, a shader writing only the first colour).
fn reference_dual(scene: &Scene<'_>, dual: bool) -> (ops::Target, Vec<bool>) {
    let (t, e, _) = reference_shaded(scene, false, &mut |f| {
        Some(ops::Shaded {
            colour: (scene.shade)(&f.attrs),
            src1: if dual {
                dual_source_src1(&f.attrs)
            } else {
                [0.0; 4]
            },
            ..Default::default()
        })
    });
    (t, e)
}

/// Renders `cases` (one 4×4 cell each, over a destination of random
/// colours) with `vs`/`fs` on `model` and compares every pixel with the
/// reference exactly; returns the equations compared.
fn render_blend_cells(
    model: SimModel,
    vs: &Stage2,
    fs: &Stage2,
    cases: &[BlendEquation],
    dual: bool,
    rng: &mut Rng,
) -> usize {
    let cells = (SIZE / 4) * (SIZE / 4);
    let mut compared = 0;
    for (pass, chunk) in cases.chunks(cells as usize).enumerate() {
        let mut scene = rgba_scene(vs, fs, rng, 4);
        for (i, eq) in chunk.iter().enumerate() {
            let (cx, cy) = ((i as u32 % (SIZE / 4)) * 4, (i as u32 / (SIZE / 4)) * 4);
            let colour: Vec<f32> = (0..4).map(|_| source_value(rng)).collect();
            let first = scene.data.len() as u32 / 8;
            push_quad(&mut scene.data, cx, cy, 4, 4, &colour, false);
            scene.draws.push(DrawSpec {
                topology: Topology::TriangleStrip,
                count: 4,
                first,
                indices: None,
                blend: Blend::Equation(*eq),
                write_mask: 15,
                extras: DrawExtras::default(),
                raster: RasterState::default(),
            });
        }
        // Uniform colours: the results are exact.
        let out = render_on(model, &scene);
        let (want, on_edge) = reference_dual(&scene, dual);
        assert!(on_edge.iter().all(|&e| !e));
        let covered = assert_matches_within(&out.color, &want, |_, _| true, 0);
        assert_eq!(covered, (SIZE * SIZE) as usize, "{model:?} pass {pass}");
        compared += chunk.len();
    }
    compared
}

/// Every `VkBlendFactor` as source and destination factor of the colour
/// equation and of the alpha equation, with every `VkBlendOp`: the pairs
/// the fixed-function unit can express (`expressible`, our statement of the
/// unit from the spec's tables) and, through blend shaders
/// (`compiler::bifrost::blend`), all the others render as the Vulkan rules
/// say, each in its own 4×4 cell over a smooth destination. The
/// dual-source ones (SRC1_*, the spec's "Dual-Source Blending") are drawn
/// with `dual_source.frag` (second colour at Location 0, Index 1) on the
/// G52 and on a v6 G72. Source colours are uniform per cell, some outside
/// [0, 1], alpha sometimes exactly 0 or 1; the constants are equal (one
/// quantity, k/255).
#[test]
fn every_blend_factor_and_op_renders_like_the_vulkan_rules() {
    use bifrost_vk::jm::blend::{fixed_function, needs_blend_shader};
    let (vs, fs) = rgba_shaders(Options::default().arch);
    let mut rng = Rng(0xb1e9_d000_0000_0001);
    let k = rng.next(256) as f32 / 255.0;
    let mut cases = Vec::new();
    let mut dual_cases = Vec::new();
    let (mut dual_rgb, mut shaders) = (0, 0);
    for alpha in [false, true] {
        for op in BlendOp::ALL {
            for sf in BlendFactor::ALL {
                for df in BlendFactor::ALL {
                    let mut eq = BlendEquation {
                        src_color: BlendFactor::One,
                        dst_color: BlendFactor::Zero,
                        color_op: BlendOp::Add,
                        src_alpha: BlendFactor::One,
                        dst_alpha: BlendFactor::Zero,
                        alpha_op: BlendOp::Add,
                        constants: [k; 4],
                    };
                    if alpha {
                        (eq.src_alpha, eq.dst_alpha, eq.alpha_op) = (sf, df, op);
                    } else {
                        (eq.src_color, eq.dst_color, eq.color_op) = (sf, df, op);
                    }
                    let ok = fixed_function(&eq, 15).is_ok();
                    assert_eq!(
                        ok,
                        expressible(op, sf, df, alpha),
                        "{op:?} {sf:?} {df:?} (alpha equation: {alpha})"
                    );
                    // What the unit cannot do takes a blend shader.
                    assert_eq!(
                        needs_blend_shader(&eq, 15).ok(),
                        Some(!ok),
                        "{op:?} {sf:?} {df:?}"
                    );
                    shaders += usize::from(!ok);
                    if sf.is_dual_source() || df.is_dual_source() {
                        dual_cases.push(eq);
                        dual_rgb += usize::from(!alpha);
                    } else {
                        cases.push(eq);
                    }
                }
            }
        }
    }
    eprintln!(
        "{} equations ({shaders} with a blend shader), {} of them dual-source ({dual_rgb} colour)",
        cases.len() + dual_cases.len(),
        dual_cases.len()
    );
    let compared = render_blend_cells(SimModel::G52, &vs, &fs, &cases, false, &mut rng);
    assert_eq!(compared, cases.len());
    assert!(cases.len() > 2000, "{} equations", cases.len());
    assert!(shaders > 2900, "{shaders} blend shaders");
    assert_eq!(dual_cases.len(), 1360);
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let (vs, fs) = dual_source_shaders(arch);
        let n = render_blend_cells(model, &vs, &fs, &dual_cases, true, &mut rng);
        assert_eq!(n, dual_cases.len());
    }
}

/// A fragment shader writing a second colour (Location 0, Index 1) draws
/// as if it did not when target 0's state reads no second colour: the
/// fixed-function SRC_ALPHA_OVER, opaque writes and a MAX blend shader,
/// on the G52 and a v6 G72, against the reference with the first colour
/// only.
#[test]
fn a_second_colour_without_dual_source_blending_is_ignored() {
    let mut max = BlendEquation::SRC_ALPHA_OVER;
    max.color_op = BlendOp::Max;
    let mut rng = Rng(0x5ec0_0d00_0000_0002);
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let (vs, fs) = dual_source_shaders(arch);
        for blend in [Blend::SrcAlphaOver, Blend::Opaque, Blend::Equation(max)] {
            let mut scene = rgba_scene(&vs, &fs, &mut rng, 8);
            for _ in 0..4 {
                let colour: Vec<f32> = (0..4).map(|_| source_value(&mut rng)).collect();
                let (x, y) = (
                    rng.next(SIZE as u64 - 16) as u32,
                    rng.next(SIZE as u64 - 16) as u32,
                );
                let first = scene.data.len() as u32 / 8;
                push_quad(&mut scene.data, x, y, 16, 16, &colour, false);
                scene.draws.push(DrawSpec {
                    topology: Topology::TriangleStrip,
                    count: 4,
                    first,
                    indices: None,
                    blend,
                    write_mask: 15,
                    extras: DrawExtras::default(),
                    raster: RasterState::default(),
                });
            }
            let out = render_on(model, &scene);
            let (want, _) = reference_dual(&scene, false);
            let covered = assert_matches_within(&out.color, &want, |_, _| true, 0);
            assert_eq!(covered, (SIZE * SIZE) as usize, "{model:?} {blend:?}");
        }
    }
}

/// A random blend state (factors and ops drawn from all of Vulkan's, the
/// dual-source factors only when `dual`, for scenes drawn with a shader
/// writing a second colour: fixed function where the unit can, else a
/// blend shader), or no blending; constants k/255, the same in every
/// channel or not.
fn random_blend(rng: &mut Rng, write_mask: u8, dual: bool) -> Blend {
    use bifrost_vk::jm::blend::{is_dual_source, needs_blend_shader};
    if rng.next(6) == 0 {
        return Blend::Opaque;
    }
    loop {
        let mut f = || BlendFactor::ALL[rng.next(19) as usize];
        let (sc, dc, sa, da) = (f(), f(), f(), f());
        let mut op = || BlendOp::ALL[rng.next(5) as usize];
        let (co, ao) = (op(), op());
        let k = rng.next(256) as f32 / 255.0;
        let constants = if rng.next(2) == 0 {
            [k; 4]
        } else {
            std::array::from_fn(|_| rng.next(256) as f32 / 255.0)
        };
        let eq = BlendEquation {
            src_color: sc,
            dst_color: dc,
            color_op: co,
            src_alpha: sa,
            dst_alpha: da,
            alpha_op: ao,
            constants,
        };
        if needs_blend_shader(&eq, write_mask).is_ok() && (dual || !is_dual_source(&eq)) {
            return Blend::Equation(eq);
        }
    }
}

/// A random scene of overlapping flat-shaded triangles, each its own draw
/// with a random blend state and write mask, over a destination of 8×8
/// cells: colours are exact (flat sources and k/255 values make every
/// blend result exact in f32 and f64).
fn random_blend_scene<'a>(vs: &'a Stage2, fs: &'a Stage2, rng: &mut Rng) -> Scene<'a> {
    random_blend_scene_with(vs, fs, rng, false)
}

/// [`random_blend_scene`], dual-source states included when `dual`.
fn random_blend_scene_with<'a>(
    vs: &'a Stage2,
    fs: &'a Stage2,
    rng: &mut Rng,
    dual: bool,
) -> Scene<'a> {
    let mut scene = rgba_scene(vs, fs, rng, 8);
    scene.interpolation = Interpolation::Flat;
    for _ in 0..6 {
        let first = scene.data.len() as u32 / 8;
        let w = [1.0f32, 2.0][rng.next(2) as usize];
        for _ in 0..3 {
            let p = |r: &mut Rng| (r.next(80 * 256) as f32 / 256.0 - 8.0) / 32.0 - 1.0;
            let (x, y) = (p(rng), p(rng));
            scene.data.extend_from_slice(&[x * w, y * w, 0.0, w]);
            for _ in 0..4 {
                scene.data.push(source_value(rng));
            }
        }
        let write_mask = if rng.next(2) == 0 {
            15
        } else {
            rng.next(16) as u8
        };
        scene.draws.push(DrawSpec {
            topology: Topology::TriangleList,
            count: 3,
            first,
            indices: None,
            blend: random_blend(rng, write_mask, dual),
            write_mask,
            extras: DrawExtras::default(),
            raster: RasterState {
                first_provoking: rng.next(2) == 0,
                ..RasterState::default()
            },
        });
    }
    scene
}

fn flat_rgba_shaders(arch: bifrost_vk::compiler::bifrost::Arch) -> (Stage2, Stage2) {
    let v = std::fs::read(format!("{GRAPHICS_SHADERS}/clip_rgba.vert.spv")).unwrap();
    let f = std::fs::read(format!("{GRAPHICS_SHADERS}/flat_rgba.frag.spv")).unwrap();
    (
        compile_for(&v, Stage::Vertex, arch),
        compile_for(&f, Stage::Fragment, arch),
    )
}

/// Renders `scene` on `model` and compares it with the reference exactly
/// (pixels with a centre on an edge left out); returns the pixels compared
/// that some triangle after the destination covered.
fn blend_scene_matches(model: SimModel, scene: &Scene<'_>) -> usize {
    blend_scene_matches_dual(model, scene, false)
}

/// [`blend_scene_matches`]; `dual`: the scene's shader writes
/// [`dual_source_src1`] as its second colour.
fn blend_scene_matches_dual(model: SimModel, scene: &Scene<'_>, dual: bool) -> usize {
    let mut gpu = SimGpu::new(model);
    let out = try_render_on(&mut gpu, scene, |_| {})
        .unwrap_or_else(|e| panic!("the chains must complete: {e}"));
    let (want, on_edge) = reference_dual(scene, dual);
    assert_matches_within(
        &out.color,
        &want,
        |x, y| !on_edge[(y * SIZE + x) as usize],
        0,
    );
    want.writes
        .iter()
        .zip(&on_edge)
        .filter(|&(&w, &e)| w > 1 && !e)
        .count()
}

/// Random scenes of blended triangles (random factors, ops, constants,
/// write masks, blending on or off, perspective) on the G52 and on a v6
/// G72: every pixel as the Vulkan rules say, exactly.
#[test]
fn random_blend_scenes_match_the_reference_rasterizer() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x0b1e_d5ce_7e5a_1234);
    let mut blended = 0;
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, 10),
        (SimModel::G72, IsaArch::V6, 3),
    ] {
        let (vs, fs) = flat_rgba_shaders(arch);
        for _ in 0..scenes {
            let scene = random_blend_scene(&vs, &fs, &mut rng);
            blended += blend_scene_matches(model, &scene);
        }
    }
    eprintln!("{blended} pixels drawn over by blended triangles");
    assert!(blended > 3000, "{blended}");
    // Dual-source states too (2026-11-28, `gfx-dual`), with a flat
    // shader writing a second colour.
    let (mut dual_blended, mut dual_draws) = (0, 0);
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, 4),
        (SimModel::G72, IsaArch::V6, 2),
    ] {
        let v = std::fs::read(format!("{GRAPHICS_SHADERS}/clip_rgba.vert.spv")).unwrap();
        let f = std::fs::read(format!("{GRAPHICS_SHADERS}/dual_source_flat.frag.spv")).unwrap();
        let vs = compile_for(&v, Stage::Vertex, arch);
        let fs = compile_for(&f, Stage::Fragment, arch);
        for _ in 0..scenes {
            let scene = random_blend_scene_with(&vs, &fs, &mut rng, true);
            dual_draws += scene
                .draws
                .iter()
                .filter(|d| {
                    d.blend
                        .equation()
                        .is_some_and(|eq| bifrost_vk::jm::blend::is_dual_source(&eq))
                })
                .count();
            dual_blended += blend_scene_matches_dual(model, &scene, true);
        }
    }
    eprintln!(
        "{dual_blended} pixels blended in the dual-source scenes, {dual_draws} dual-source draws"
    );
    assert!(dual_draws >= 10, "{dual_draws}");
}

// ---- Stencil, depth bias, occlusion counters -------------------------------

fn random_stencil_face(rng: &mut Rng) -> StencilFace {
    let mut op = || StencilOp::ALL[rng.next(8) as usize];
    let (fail, pass, depth_fail) = (op(), op(), op());
    let mask = |r: &mut Rng| [0xff, 0x0f, 0xf0, 0x3c, r.next(256) as u8][r.next(5) as usize];
    StencilFace {
        fail,
        pass,
        depth_fail,
        compare: CompareOp::ALL_OPS[rng.next(8) as usize],
        compare_mask: mask(rng),
        write_mask: mask(rng),
        reference: [0, 1, 2, 0x80, 0xff, rng.next(256) as u8][rng.next(6) as usize],
    }
}

/// A scene of 6 flat-shaded triangles, one draw each, random winding, each
/// in its own depth band (z in 0.1k + [0.03, 0.07], the bias clamped to
/// ±0.02: no two triangles tie in depth), random stencil state per face,
/// random depth bias (constant only, or constant and slope with a clamp of
/// their sign), an occlusion counter per draw; depth test random, D32 +
/// S8 attachments.
fn random_zs_scene<'a>(vs: &'a Stage2, fs: &'a Stage2, rng: &mut Rng) -> Scene<'a> {
    let mut scene = rgba_scene(vs, fs, rng, 8);
    scene.data.clear();
    scene.draws.clear();
    scene.interpolation = Interpolation::Flat;
    scene.stencil_clear = Some(rng.next(256) as u8);
    scene.depth = Some(DepthState {
        compare: CompareOp::ALL_OPS[[1, 3, 4, 6, 7, 5][rng.next(6) as usize]],
        write: rng.next(4) != 0,
    });
    let mut bands: Vec<u64> = (0..6).collect();
    for i in (1..6).rev() {
        bands.swap(i, rng.next(i as u64 + 1) as usize);
    }
    for band in bands {
        let first = scene.data.len() as u32 / 8;
        let colour: Vec<f32> = (0..4).map(|_| rng.next(256) as f32 / 255.0).collect();
        for _ in 0..3 {
            let p = |r: &mut Rng| (r.next(72 * 256) as f32 / 256.0 - 4.0) / 32.0 - 1.0;
            let z = 0.1 * band as f32 + 0.03 + rng.next(1025) as f32 / 1024.0 * 0.04;
            scene.data.extend_from_slice(&[p(rng), p(rng), z, 1.0]);
            scene.data.extend_from_slice(&colour);
        }
        let sign = if rng.next(2) == 0 { 1.0f32 } else { -1.0 };
        let depth_bias = match rng.next(3) {
            0 => None,
            1 => Some(DepthBias {
                constant: sign * rng.next(1000) as f32,
                slope: 0.0,
                clamp: 0.0,
            }),
            _ => Some(DepthBias {
                constant: sign * rng.next(1000) as f32,
                slope: sign * rng.next(9) as f32 / 4.0,
                clamp: sign * (rng.next(20) + 1) as f32 / 1000.0,
            }),
        };
        let stencil = (rng.next(5) != 0).then(|| StencilState {
            front: random_stencil_face(rng),
            back: random_stencil_face(rng),
        });
        scene.draws.push(DrawSpec {
            topology: Topology::TriangleList,
            count: 3,
            first,
            indices: None,
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras {
                stencil,
                depth_bias,
                occlusion: Some(0),
                ..DrawExtras::default()
            },
            raster: RasterState {
                front_ccw: rng.next(2) == 0,
                ..RasterState::default()
            },
        });
    }
    scene
}

/// Random scenes with stencil (every `VkStencilOp` and `VkCompareOp`,
/// front and back faces, compare and write masks, references), depth bias
/// (constant, slope, clamp; D32, r = 2^(e − 23), and X8_D24, r = 2^-24,
/// depth tested and stored at 24 bits) and a precise
/// occlusion counter per draw, on the G52 and a v6 G72: colours and
/// stencil exactly as the Vulkan rules say, depth within 1e-6, every
/// draw's counter equal to the reference's samples passing both tests.
/// Scenes with a pixel centre on a triangle edge are drawn again
/// (tie-break rules may differ there and counts include every pixel).
#[test]
fn random_stencil_depth_bias_and_occlusion_scenes_match_the_reference() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x57e4_c115_dead_0001);
    let (mut scenes_done, mut counted, mut stencil_changed) = (0, 0u64, 0usize);
    let (mut d16_pixels, mut d16_off_by_one) = (0usize, 0usize);
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, 12),
        (SimModel::G72, IsaArch::V6, 3),
    ] {
        let (vs, fs) = flat_rgba_shaders(arch);
        let mut done = 0;
        while done < scenes {
            let mut scene = random_zs_scene(&vs, &fs, &mut rng);
            // Every other scene on 24-bit depth (r = 2^-24, depth at 24
            // bits): X8_D24 + S8, or D24S8 (one interleaved surface, the
            // stencil in each pixel's top byte); every fourth on D16 (r =
            // 2^-16, depth at 16 bits).
            match done % 4 {
                1 => scene.depth_format = ZDepthFormat::D24X8,
                3 => scene.depth_format = ZDepthFormat::D24S8,
                2 => scene.depth_format = ZDepthFormat::D16,
                _ => {}
            }
            let (want, on_edge, passed) = reference_counted(&scene);
            if on_edge.iter().any(|&e| e) {
                continue;
            }
            done += 1;
            let out = render_on(model, &scene);
            assert_matches_within(&out.color, &want, |_, _| true, 0);
            let stencil = out.stencil.unwrap();
            let clear = scene.stencil_clear.unwrap();
            for (i, (g, w)) in stencil.iter().zip(&want.stencil).enumerate() {
                assert_eq!(
                    g,
                    w,
                    "stencil at ({}, {})",
                    i as u32 % SIZE,
                    i as u32 / SIZE
                );
                stencil_changed += usize::from(*w != clear);
            }
            // D16: within one code (the simulator interpolates depth in
            // f32, the reference in f64; a depth within ~1e-7 of a half-way
            // point between two 16-bit codes may round either way, which
            // "Depth Test"'s conversion to the attachment's format allows).
            let code = if scene.depth_format == ZDepthFormat::D16 {
                1.0 / 65535.0 + 1e-7
            } else {
                1e-6
            };
            for (i, (g, w)) in out.depth.unwrap().iter().zip(&want.depth).enumerate() {
                let d = (f64::from(*g) - w).abs();
                assert!(
                    d <= code,
                    "depth at ({}, {}): {g} vs {w}",
                    i as u32 % SIZE,
                    i as u32 / SIZE
                );
                d16_off_by_one += usize::from(d > 1e-6);
                d16_pixels += usize::from(scene.depth_format == ZDepthFormat::D16 && *w < 1.0);
            }
            assert_eq!(out.occlusion, passed, "occlusion counters");
            counted += passed.iter().sum::<u64>();
            scenes_done += 1;
        }
    }
    eprintln!(
        "{scenes_done} scenes, {counted} samples counted, {stencil_changed} stencil values changed; \
         D16: {d16_pixels} pixels drawn, {d16_off_by_one} one code from the reference"
    );
    assert!(counted > 2000 && stencil_changed > 1000 && d16_pixels > 1000);
    assert!(
        d16_off_by_one * 100 < d16_pixels,
        "{d16_off_by_one} of {d16_pixels}"
    );
}

/// R8 and RG8 UNORM targets (internal R8G8B8A8, written back as one or two
/// bytes per pixel): random blended scenes as above, on the G52 and a v6
/// G72; the channels the format has equal the reference's exactly, where
/// blending reads the missing destination alpha as 1 (our emitter turns
/// destination-alpha factors into ONE/ZERO for these targets).
#[test]
fn r8_and_rg8_targets_blend_like_the_vulkan_rules() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x0088_0808_1234_5678);
    let mut blended = 0;
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let (vs, fs) = flat_rgba_shaders(arch);
        for format in [ColorFormat::R8Unorm, ColorFormat::Rg8Unorm] {
            for _ in 0..3 {
                let mut scene = random_blend_scene(&vs, &fs, &mut rng);
                scene.format = format;
                // Make destination alpha matter: DST_ALPHA factors often.
                for d in &mut scene.draws[1..] {
                    if let Blend::Equation(eq) = &mut d.blend
                        && rng.next(2) == 0
                    {
                        eq.dst_color = BlendFactor::OneMinusDstAlpha;
                        eq.src_color = BlendFactor::DstAlpha;
                        eq.color_op = BlendOp::Add;
                    }
                }
                blended += blend_scene_matches(model, &scene);
            }
        }
    }
    eprintln!("{blended} pixels drawn over by blended triangles");
    assert!(blended > 1500, "{blended}");
}

// ---- Multisampling ----------------------------------------------------------

/// Random triangles for a 4× scene: clip position (x, y, z, w) and RGBA per
/// vertex (stride 32), NDC x/y on the 1/256 grid in [-1.25, 1.25) (1/8
/// pixel, the grid the standard 4× sample locations lie on, so edges and
/// vertices fall on sample points often), each triangle in its
/// own depth band (`bands` shuffled: the depth test, not f32 against f64,
/// decides which triangle is in front), clip w from `ws`.
fn msaa_triangles(rng: &mut Rng, triangles: usize, ws: &[f32]) -> Vec<f32> {
    let mut bands: Vec<usize> = (0..triangles).collect();
    for i in (1..triangles).rev() {
        bands.swap(i, rng.next(i as u64 + 1) as usize);
    }
    let mut data = Vec::new();
    for &band in &bands {
        let colour: Vec<f32> = (0..4).map(|_| rng.next(256) as f32 / 255.0).collect();
        for _ in 0..3 {
            let w = ws[rng.next(ws.len() as u64) as usize];
            let ndc = |r: &mut Rng| (r.next(640) as f32 - 320.0) / 256.0;
            let (x, y) = (ndc(rng), ndc(rng));
            let z = (band as f32 + 0.1 + 0.8 * rng.next(1024) as f32 / 1024.0) / triangles as f32;
            data.extend_from_slice(&[x * w, y * w, z * w, w]);
            data.extend_from_slice(&colour);
        }
    }
    data
}

fn msaa_scene<'a>(
    vs: &'a Stage2,
    fs: &'a Stage2,
    data: Vec<f32>,
    rng: &mut Rng,
    interpolation: Interpolation,
) -> Scene<'a> {
    let count = (data.len() / 8) as u32;
    // Mostly every sample; one scene in three a random non-empty mask.
    let sample_mask = if rng.next(3) == 0 {
        1 + rng.next(15) as u32
    } else {
        u32::MAX
    };
    Scene {
        textures: None,
        vs,
        fs,
        data,
        stride: 32,
        attributes: vec![(4, 0), (4, 16)],
        depth: Some(DepthState {
            compare: CompareOp::Less,
            write: true,
        }),
        draws: vec![DrawSpec {
            topology: Topology::TriangleList,
            count,
            first: 0,
            indices: None,
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras {
                multisample: Multisample {
                    samples: 4,
                    sample_mask,
                    ..Multisample::default()
                },
                ..DrawExtras::default()
            },
            raster: RasterState {
                cull_back: rng.next(4) == 0,
                front_ccw: rng.next(2) == 0,
                ..RasterState::default()
            },
        }],
        viewport: viewport(),
        scissor: full_scissor(),
        shade: rgba_output,
        interpolation,
        stencil_clear: None,
        format: ColorFormat::Rgba8Unorm,
        depth_format: ZDepthFormat::D32,
        samples: 4,
        per_sample: true,
        more_formats: Vec::new(),
        more_write_masks: Vec::new(),
        sample_shading: false,
    }
}

/// What a 4× comparison saw.
#[derive(Default, Debug)]
struct MsaaCounts {
    samples_compared: usize,
    samples_covered: usize,
    /// Pixels with some but not all samples covered by the last writer or
    /// covered by several triangles: where a resolve averages different
    /// values.
    mixed_pixels: usize,
    /// Largest |resolved − 255 × mean of the reference's samples| seen.
    worst_resolve: f64,
    /// Pixels left out (a sample on a horizontal edge).
    left_out: usize,
    /// Samples on a (non-horizontal) edge of some triangle, compared.
    on_edges: usize,
}

impl MsaaCounts {
    /// Adds one scene's counts (the worst resolve error is the larger).
    fn add(&mut self, c: &MsaaCounts) {
        self.samples_compared += c.samples_compared;
        self.samples_covered += c.samples_covered;
        self.mixed_pixels += c.mixed_pixels;
        self.worst_resolve = self.worst_resolve.max(c.worst_resolve);
        self.left_out += c.left_out;
        self.on_edges += c.on_edges;
    }
}

/// Renders `scene` (4×) on `model` twice — every sample stored, then the
/// resolved surface — and compares both with the reference (pixels with a
/// sample on a triangle edge left out: the FBD's tie-break rule and the
/// reference's top-left rule may give such a sample to different
/// triangles, both allowed): per sample coverage exactly (a sample differs
/// from the clear colour exactly when the reference wrote it), colour
/// within `lsb`, depth within 1e-6; the resolved pixel within `bound` of
/// 255 × the mean of the reference's samples, and equal to the mean of the
/// stored samples rounded to nearest, ties up (the simulator's documented
/// choice, which the per-sample surface lets us check).
fn msaa_scene_matches(model: SimModel, scene: &Scene<'_>, lsb: u8, bound: f64) -> MsaaCounts {
    msaa_scene_matches_dual(model, scene, lsb, bound, false)
}

/// [`msaa_scene_matches`] for a scene drawn with `dual_source.frag`
/// (`dual`: the reference's second colour is [`dual_source_src1`]).
fn msaa_scene_matches_dual(
    model: SimModel,
    scene: &Scene<'_>,
    lsb: u8,
    bound: f64,
    dual: bool,
) -> MsaaCounts {
    let mut gpu = SimGpu::new(model);
    let samples = try_render_on(&mut gpu, scene, |_| {})
        .unwrap_or_else(|e| panic!("the chains must complete: {e}"));
    let resolved_scene = Scene {
        textures: None,
        per_sample: false,
        more_formats: Vec::new(),
        more_write_masks: Vec::new(),
        sample_shading: false,
        data: scene.data.clone(),
        attributes: scene.attributes.clone(),
        draws: scene.draws.clone(),
        ..*scene
    };
    let mut gpu = SimGpu::new(model);
    let resolved = try_render_on(&mut gpu, &resolved_scene, |_| {})
        .unwrap_or_else(|e| panic!("the chains must complete: {e}"));
    let (want, on_edge) = reference_dual(scene, dual);
    let n = scene.samples as usize;
    let bits = scene.format.channel_bits();
    let max: [f64; 4] = bits.map(|b| f64::from((1u32 << b) - 1));
    let depth = samples.depth.as_ref().unwrap();
    let mut counts = MsaaCounts::default();
    let mut bad = Vec::new();
    counts.on_edges = samples_on_edges(scene);
    for (p, &edge) in on_edge.iter().enumerate() {
        if edge {
            counts.left_out += 1;
            continue;
        }
        let (x, y) = (p as u32 % SIZE, p as u32 / SIZE);
        let mut sum = [0u32; 4];
        let mut mean = [0.0f64; 4];
        let mut written = 0;
        for s in 0..n {
            let i = p * n + s;
            // Channel codes; a sample the reference did not write holds
            // the stored clear colour, exactly.
            let got = samples.codes[i];
            let stored: [u32; 4] =
                std::array::from_fn(|c| (want.color[i][c] * max[c]).round() as u32);
            counts.samples_compared += 1;
            let tolerance = if want.writes[i] > 0 {
                counts.samples_covered += 1;
                written += 1;
                u32::from(lsb)
            } else {
                0
            };
            if !(0..4).all(|c| bits[c] == 0 || got[c].abs_diff(stored[c]) <= tolerance) {
                bad.push(format!(
                    "({x}, {y}) sample {s}: {got:?}, want {stored:?} (written {})",
                    want.writes[i]
                ));
            }
            if (f64::from(depth[i]) - want.depth[i]).abs() > 1e-6 {
                bad.push(format!(
                    "({x}, {y}) sample {s}: depth {} want {}",
                    depth[i], want.depth[i]
                ));
            }
            for c in 0..4 {
                sum[c] += got[c];
                mean[c] += want.color[i][c] * max[c] / n as f64;
            }
        }
        let distinct = (0..n)
            .map(|s| want.color[p * n + s].map(f64::to_bits))
            .collect::<std::collections::HashSet<_>>()
            .len();
        counts.mixed_pixels += usize::from(distinct > 1 || (written > 0 && written < n));
        let got = resolved.codes[p];
        for c in (0..4).filter(|&c| bits[c] > 0) {
            let err = (f64::from(got[c]) - mean[c]).abs();
            counts.worst_resolve = counts.worst_resolve.max(err);
            let ties_up = (sum[c] + n as u32 / 2) / n as u32;
            if err > bound || got[c] != ties_up {
                bad.push(format!(
                    "({x}, {y}) resolved {got:?}: channel {c} {err} from the mean {}",
                    mean[c]
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} differences: {:?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
    counts
}

/// Samples of the framebuffer lying exactly on an edge of one of the
/// scene's triangles (x/y from clip position / w, as the viewport of
/// [`viewport`] maps them).
fn samples_on_edges(scene: &Scene<'_>) -> usize {
    let floats = scene.stride as usize / 4;
    let vertex = |i: usize| {
        let at = |k: usize| f64::from(scene.data[i * floats + k]);
        let w = at(3);
        let px = |ndc: f64| ((ndc * 32.0 + 32.0) * 256.0).round() as i64;
        (px(at(0) / w), px(at(1) / w))
    };
    let mut n = 0;
    for t in 0..scene.data.len() / floats / 3 {
        let p = [vertex(3 * t), vertex(3 * t + 1), vertex(3 * t + 2)];
        for y in 0..SIZE {
            for x in 0..SIZE {
                for &(sx, sy) in raster::sample_locations(scene.samples) {
                    let c = (
                        i64::from(x) * 256 + (sx * 256.0) as i64,
                        i64::from(y) * 256 + (sy * 256.0) as i64,
                    );
                    n += usize::from(point_on_edge(&p, c));
                }
            }
        }
    }
    n
}

/// Random flat-coloured triangles at 4× (random winding, culling, sample
/// mask; depth LESS, each triangle in its own depth band), through our
/// chains on the simulated G52 and a v6 G72, against `testing::raster` at
/// 4× with the standard sample locations: every sample's coverage, colour
/// and depth exactly; the resolved (Average) surface within the Vulkan
/// conversion's freedom: a flat colour makes every sample exact, so the
/// resolved value must be one of the two integers nearest 255 × the mean
/// ("Conversion from Floating-Point to Normalized Fixed-Point": either
/// neighbour may be returned), i.e. less than 1 LSB away.
#[test]
fn msaa_4x_random_triangles_match_the_reference_rasterizer() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x4a5a_11ce_0bad_cafe);
    let mut total = MsaaCounts::default();
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, 8),
        (SimModel::G72, IsaArch::V6, 4),
    ] {
        let (vs, fs) = flat_rgba_shaders(arch);
        for _ in 0..scenes {
            let data = msaa_triangles(&mut rng, 24, &[1.0]);
            let scene = msaa_scene(&vs, &fs, data, &mut rng, Interpolation::Flat);
            let c = msaa_scene_matches(model, &scene, 0, 0.999_999);
            total.add(&c);
        }
    }
    eprintln!("{total:?}");
    assert!(total.samples_covered > 40_000, "{total:?}");
    assert!(total.mixed_pixels > 2_000, "{total:?}");
}

/// Blend shaders at 4× (2026-11-28, `gfx-dual`): over a destination of
/// 24 random opaque triangles (pixels whose samples hold different
/// colours), 16 random triangles each blended with a state only a blend
/// shader does — MIN/MAX, per-channel constants, SRC_ALPHA_SATURATE,
/// dual-source factors — and a random write mask, drawn with
/// `dual_source.frag` on the G52 and a v6 G72. The draw runs per sample
/// (`Evaluate per-sample`, as Mesa forces for blend shaders at 4×) and the
/// blend shader's LD_TILE reads the thread's sample: every covered sample
/// is blended with its own destination, uncovered ones keep theirs. Per
/// sample exactly as the reference (colours k/255 uniform per triangle, so
/// the results are exact), then resolved (within 1 LSB of the mean).
#[test]
fn blend_shaders_at_4x_blend_every_sample_with_its_own_destination() {
    let mut rng = Rng(0xb1e4_d4c5_0000_0004);
    let mut total = MsaaCounts::default();
    let mut states = [0usize; 4];
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, 3),
        (SimModel::G72, IsaArch::V6, 2),
    ] {
        let (vs, fs) = dual_source_shaders(arch);
        for _ in 0..scenes {
            let mut data = msaa_triangles(&mut rng, 24, &[1.0]);
            let four = DrawExtras {
                multisample: Multisample {
                    samples: 4,
                    sample_mask: u32::MAX,
                    ..Multisample::default()
                },
                ..DrawExtras::default()
            };
            let mut draws = vec![DrawSpec {
                topology: Topology::TriangleList,
                count: 72,
                first: 0,
                indices: None,
                blend: Blend::Opaque,
                write_mask: 15,
                extras: four,
                raster: RasterState::default(),
            }];
            let blended = msaa_triangles(&mut rng, 16, &[1.0]);
            for t in 0..16u32 {
                use BlendFactor::*;
                let k = |rng: &mut Rng| rng.next(256) as f32 / 255.0;
                let constants = [k(&mut rng), k(&mut rng), k(&mut rng), k(&mut rng)];
                let which = rng.next(4) as usize;
                states[which] += 1;
                let (sc, dc, co, sa, da, ao) = match which {
                    0 => (One, One, BlendOp::Min, One, One, BlendOp::Max),
                    1 => (
                        ConstantColor,
                        OneMinusConstantColor,
                        BlendOp::Add,
                        ConstantAlpha,
                        DstAlpha,
                        BlendOp::Subtract,
                    ),
                    2 => (
                        SrcAlphaSaturate,
                        One,
                        BlendOp::Add,
                        SrcAlphaSaturate,
                        Zero,
                        BlendOp::Add,
                    ),
                    _ => (
                        Src1Color,
                        OneMinusSrc1Color,
                        BlendOp::Add,
                        OneMinusSrc1Alpha,
                        Src1Alpha,
                        BlendOp::ReverseSubtract,
                    ),
                };
                let eq = BlendEquation {
                    src_color: sc,
                    dst_color: dc,
                    color_op: co,
                    src_alpha: sa,
                    dst_alpha: da,
                    alpha_op: ao,
                    constants,
                };
                draws.push(DrawSpec {
                    topology: Topology::TriangleList,
                    count: 3,
                    first: 72 + 3 * t,
                    indices: None,
                    blend: Blend::Equation(eq),
                    write_mask: if rng.next(3) == 0 {
                        1 + rng.next(14) as u8
                    } else {
                        15
                    },
                    extras: four,
                    raster: RasterState::default(),
                });
            }
            data.extend_from_slice(&blended);
            let scene = Scene {
                textures: None,
                vs: &vs,
                fs: &fs,
                data,
                stride: 32,
                attributes: vec![(4, 0), (4, 16)],
                depth: Some(DepthState {
                    compare: CompareOp::Always,
                    write: true,
                }),
                draws,
                viewport: viewport(),
                scissor: full_scissor(),
                shade: rgba_output,
                interpolation: Interpolation::Smooth,
                stencil_clear: None,
                format: ColorFormat::Rgba8Unorm,
                depth_format: ZDepthFormat::D32,
                samples: 4,
                per_sample: true,
                more_formats: Vec::new(),
                more_write_masks: Vec::new(),
                sample_shading: false,
            };
            let c = msaa_scene_matches_dual(model, &scene, 0, 0.999_999, true);
            total.add(&c);
        }
    }
    eprintln!("{total:?}, states {states:?}");
    assert!(states.iter().all(|&n| n >= 10), "{states:?}");
    assert!(total.samples_covered > 20_000, "{total:?}");
    assert!(total.mixed_pixels > 1_000, "{total:?}");
}

/// A depth-tested 4× scene with perspective (clip w 0.5–4) and colours
/// interpolated at the pixel centre: per sample coverage and depth exactly
/// (within 1e-6), colours within 1 LSB (the shader's f32 interpolation
/// against the reference's f64, then rounding to UNORM8); resolved within
/// 1.5 LSB of 255 × the mean of the reference's samples: each stored sample
/// is within 1 LSB of the reference's, so their mean is, and rounding the
/// mean adds at most 0.5.
#[test]
fn msaa_4x_depth_tested_scene_matches_the_reference_rasterizer() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x0dee_b0a7_5ca1_ab1e);
    let mut total = MsaaCounts::default();
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, 4),
        (SimModel::G72, IsaArch::V6, 2),
    ] {
        let (vs, fs) = rgba_shaders(arch);
        for _ in 0..scenes {
            let data = msaa_triangles(&mut rng, 16, &[0.5, 1.0, 2.0, 4.0]);
            let scene = msaa_scene(&vs, &fs, data, &mut rng, Interpolation::Smooth);
            let c = msaa_scene_matches(model, &scene, 1, 1.5);
            total.add(&c);
        }
    }
    eprintln!("{total:?}");
    assert!(total.samples_covered > 20_000, "{total:?}");
    assert!(total.mixed_pixels > 1_000, "{total:?}");
}

/// Sample counts other than 1 and 4, and multisampled surfaces the
/// hardware's documented modes cannot store, are `JmError`s: the
/// framebuffer, the tiler context and the sample-locations table refuse
/// 0, 2, 3, 8, 16 samples; a per-sample surface needs a multisampled
/// framebuffer; stored multisampled depth or stencil needs a sample stride
/// (a resolved Z/S writeback is not documented); sample surfaces must not
/// overlap and must be 64-byte aligned; an sRGB target is not resolved
/// (the hardware's average of encoded values is undocumented). The same
/// framebuffers with good
/// values encode.
#[test]
fn bad_sample_counts_and_msaa_surfaces_are_errors() {
    let mut gpu = SimGpu::new(SimModel::G52);
    let r = gpu.run_chain(|_, pool, arch| {
        let colour = ColorTarget {
            sample_stride: None,
            format: ColorFormat::Rgba8Unorm,
            block: BlockFormat::TiledUInterleaved,
            base: 0x10_0000,
            row_stride: 4096,
            clear: None,
        };
        let depth = DepthTarget {
            sample_stride: Some(16 * 1024),
            block: BlockFormat::TiledUInterleaved,
            base: 0x20_0000,
            row_stride: 4096,
            clear: 1.0,
            write: true,
        };
        let fb = |colors: &'static [ColorTarget], depth: Option<DepthTarget>, samples: u32| {
            Framebuffer {
                width: SIZE,
                height: SIZE,
                colors,
                depth,
                tiler_context: 0,
                samples,
                sample_locations: 0x30_0000,
            }
        };
        let colours: &'static [ColorTarget] = Box::leak(Box::new([colour]));
        let per_sample: &'static [ColorTarget] = Box::leak(Box::new([ColorTarget {
            sample_stride: Some(16 * 1024),
            ..colour
        }]));
        let overlapping: &'static [ColorTarget] = Box::leak(Box::new([ColorTarget {
            sample_stride: Some(4096),
            ..colour
        }]));
        let misaligned: &'static [ColorTarget] = Box::leak(Box::new([ColorTarget {
            sample_stride: Some(16 * 1024 + 4),
            ..colour
        }]));
        let two: &'static [ColorTarget] = Box::leak(Box::new([colour, colour]));
        let eight_wide: &'static [ColorTarget] = Box::leak(Box::new(
            [ColorTarget {
                format: ColorFormat::Rgba32Uint,
                sample_stride: Some(64 * 1024),
                row_stride: 16 * 1024,
                ..colour
            }; 8],
        ));
        let srgb: &'static [ColorTarget] = Box::leak(Box::new([ColorTarget {
            format: ColorFormat::Rgba8Srgb,
            ..colour
        }]));
        for samples in [0, 2, 3, 8, 16] {
            assert!(
                write_framebuffer(pool, arch, &fb(colours, None, samples)).is_err(),
                "{samples} samples"
            );
            assert!(write_tiler_context(pool, SIZE, SIZE, samples, 0x1000, 4096).is_err());
            assert!(SampleLocations::for_samples(samples).is_err());
        }
        let resolved_depth = DepthTarget {
            sample_stride: None,
            ..depth
        };
        for (what, f) in [
            ("a per-sample surface at 1x", fb(per_sample, None, 1)),
            ("a depth sample stride at 1x", fb(colours, Some(depth), 1)),
            (
                "stored 4x depth without a stride",
                fb(colours, Some(resolved_depth), 4),
            ),
            ("overlapping sample surfaces", fb(overlapping, None, 4)),
            ("misaligned sample surfaces", fb(misaligned, None, 4)),
            // Eight RGBA32UI targets at 4x need 512 bytes per pixel: more
            // than a 4x4 tile of 4 KiB holds.
            ("too much tile buffer", fb(eight_wide, None, 4)),
            // Averaging sRGB-encoded samples is not what Vulkan asks.
            ("a resolved sRGB target", fb(srgb, None, 4)),
        ] {
            assert!(write_framebuffer(pool, arch, &f).is_err(), "{what}");
        }
        for f in [
            fb(colours, None, 1),
            fb(colours, None, 4),
            // 8 KiB per 16x16 tile: 8x8 tiles.
            fb(two, None, 4),
            fb(per_sample, Some(depth), 4),
            fb(
                colours,
                Some(DepthTarget {
                    write: false,
                    ..resolved_depth
                }),
                4,
            ),
        ] {
            write_framebuffer(pool, arch, &f).unwrap();
        }
        assert!(write_tiler_context(pool, SIZE, SIZE, 4, 0x1000, 4096).is_ok());
        Ok(false)
    });
    assert!(r.unwrap().is_none());
}

/// The stencil, depth-bias and occlusion scenes above at 4× with a random
/// sample mask per draw: every sample's colour, stencil value and depth
/// exactly as the reference's (D32 within 1e-6, every other scene D24),
/// each draw's occlusion counter equal to the reference's samples passing
/// both tests (a precise query counts samples). Scenes with a sample on a
/// horizontal edge are drawn again.
#[test]
fn msaa_4x_stencil_depth_bias_and_occlusion_scenes_match_the_reference() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x4a5a_57e4_c115_0004);
    let (mut counted, mut stencil_changed, mut partial) = (0u64, 0usize, 0usize);
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, 6),
        (SimModel::G72, IsaArch::V6, 2),
    ] {
        let (vs, fs) = flat_rgba_shaders(arch);
        let mut done = 0;
        while done < scenes {
            let mut scene = random_zs_scene(&vs, &fs, &mut rng);
            scene.samples = 4;
            scene.per_sample = true;
            if done % 2 == 1 {
                scene.depth_format = ZDepthFormat::D24X8;
            }
            for d in &mut scene.draws {
                if rng.next(2) == 0 {
                    d.extras.multisample.sample_mask = 1 + rng.next(15) as u32;
                }
            }
            let (want, on_edge, passed) = reference_counted(&scene);
            if on_edge.iter().any(|&e| e) {
                continue;
            }
            done += 1;
            let out = render_on(model, &scene);
            let clear = scene.stencil_clear.unwrap();
            let stencil = out.stencil.unwrap();
            let depth = out.depth.unwrap();
            for i in 0..(SIZE * SIZE * 4) as usize {
                let (p, s) = (i / 4, i % 4);
                let at = format!("({}, {}) sample {s}", p as u32 % SIZE, p as u32 / SIZE);
                let stored = want.color[i].map(|c| (c * 255.0).round() as u8);
                assert_eq!(out.color[4 * i..4 * i + 4], stored, "colour at {at}");
                assert_eq!(stencil[i], want.stencil[i], "stencil at {at}");
                assert!(
                    (f64::from(depth[i]) - want.depth[i]).abs() <= 1e-6,
                    "depth at {at}: {} vs {}",
                    depth[i],
                    want.depth[i]
                );
                stencil_changed += usize::from(want.stencil[i] != clear);
            }
            for p in 0..(SIZE * SIZE) as usize {
                let s = &want.stencil[4 * p..4 * p + 4];
                partial += usize::from(s.iter().any(|&v| v != s[0]));
            }
            assert_eq!(out.occlusion, passed, "occlusion counters");
            counted += passed.iter().sum::<u64>();
        }
    }
    eprintln!(
        "{counted} samples counted, {stencil_changed} stencil samples changed, {partial} pixels with differing stencil samples"
    );
    assert!(counted > 8000 && stencil_changed > 4000 && partial > 500);
}

/// More colour formats (`VK_FORMAT_R8G8B8A8_SRGB`,
/// `VK_FORMAT_R5G6B5_UNORM_PACK16`, `VK_FORMAT_A2B10G10R10_UNORM_PACK32`):
/// random blended scenes as above (blend constants on the format's
/// constant grid, k / (2^b − 1), since the unit holds the constant at that
/// precision), on the G52 and a v6 G72, read back by the Vulkan format's
/// layout and compared with the reference, which stores each channel at
/// the format's size and blends sRGB destinations linearized: every
/// channel code exactly for the UNORM formats; within 1 code for sRGB (the
/// simulator's f32 sRGB conversions against the reference's f64 may round
/// a value near a code boundary the other way; Vulkan allows sRGB
/// conversions that inexact).
#[test]
fn more_colour_formats_blend_like_the_vulkan_rules() {
    let (compared, off_by_one) = blended_formats_match(
        Rng(0x5e6b_1010_2a2b_0565),
        &[
            ColorFormat::Rgba8Srgb,
            ColorFormat::R5g6b5UnormPack16,
            ColorFormat::A2b10g10r10UnormPack32,
        ],
    );
    eprintln!("{compared} channels compared, {off_by_one} one code apart (sRGB only)");
    assert!(compared > 100_000, "{compared}");
}

/// The BGRA orders and the other 16-bit packed UNORM formats (2026-11-28,
/// `gfx-fmt`): `B8G8R8A8_UNORM`/`_SRGB` (internal R8G8B8A8, writeback
/// R8G8B8A8 with the RT swizzle B, G, R, A), `A1R5G5B5_UNORM_PACK16`
/// (internal and writeback R5G5B5A1, swizzle B, G, R, A),
/// `R4G4B4A4_UNORM_PACK16` and `B4G4R4A4_UNORM_PACK16` (R4G4B4A4, swizzles
/// A, B, G, R and A, R, G, B), Mesa's `panfrost_blendable_formats` pairs
/// with blend conversions "RGBA8 TB", "RGB5 A1 AU", "RGBA4 AU": random
/// blended scenes as in `more_colour_formats_blend_like_the_vulkan_rules`
/// (constants on the k/(2^b − 1) grid of channel 0's size), read back by
/// the Vulkan layouts: every channel code exactly (sRGB within 1 code).
#[test]
fn bgra_and_small_packed_formats_blend_like_the_vulkan_rules() {
    let (compared, off_by_one) = blended_formats_match(
        Rng(0xb6ea_5551_4444_0bad),
        &[
            ColorFormat::Bgra8Unorm,
            ColorFormat::Bgra8Srgb,
            ColorFormat::A1r5g5b5UnormPack16,
            ColorFormat::R4g4b4a4UnormPack16,
            ColorFormat::B4g4r4a4UnormPack16,
        ],
    );
    eprintln!("{compared} channels compared, {off_by_one} one code apart (sRGB only)");
    assert!(compared > 150_000, "{compared}");
}

/// Three random blended scenes per format on the G52 and on a v6 G72 (see
/// `more_colour_formats_blend_like_the_vulkan_rules`); returns the channels
/// compared and those one code apart.
fn blended_formats_match(mut rng: Rng, formats: &[ColorFormat]) -> (usize, usize) {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut compared = 0usize;
    let mut off_by_one = 0usize;
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let (vs, fs) = flat_rgba_shaders(arch);
        for &format in formats {
            let kmax = ((1u32 << format.constant_bits()) - 1) as f32;
            for _ in 0..3 {
                let mut scene = random_blend_scene(&vs, &fs, &mut rng);
                scene.format = format;
                for d in &mut scene.draws {
                    if let Blend::Equation(eq) = &mut d.blend {
                        eq.constants = eq.constants.map(|k| (k * kmax).round() / kmax);
                    }
                }
                let mut gpu = SimGpu::new(model);
                let out = try_render_on(&mut gpu, &scene, |_| {})
                    .unwrap_or_else(|e| panic!("{format:?}: the chains must complete: {e}"));
                let (want, on_edge) = reference(&scene);
                let bits = format.channel_bits();
                let lsb = u32::from(format.srgb());
                let mut bad = Vec::new();
                for (i, got) in out.codes.iter().enumerate() {
                    if on_edge[i] {
                        continue;
                    }
                    let w: [u32; 4] = std::array::from_fn(|c| {
                        (want.color[i][c] * f64::from((1u32 << bits[c]) - 1)).round() as u32
                    });
                    for c in 0..4 {
                        if bits[c] == 0 {
                            continue;
                        }
                        compared += 1;
                        let d = got[c].abs_diff(w[c]);
                        off_by_one += usize::from(d == 1);
                        if d > lsb {
                            bad.push(format!(
                                "{format:?} ({}, {}): got {got:?}, want {w:?}",
                                i as u32 % SIZE,
                                i as u32 / SIZE
                            ));
                            break;
                        }
                    }
                }
                assert!(
                    bad.is_empty(),
                    "{} differ: {:?}",
                    bad.len(),
                    &bad[..bad.len().min(6)]
                );
            }
        }
    }
    (compared, off_by_one)
}

fn int_shaders(arch: bifrost_vk::compiler::bifrost::Arch, signed: bool) -> (Stage2, Stage2) {
    let v = std::fs::read(format!("{GRAPHICS_SHADERS}/clip_int.vert.spv")).unwrap();
    let name = if signed { "flat_int" } else { "flat_uint" };
    let f = std::fs::read(format!("{GRAPHICS_SHADERS}/{name}.frag.spv")).unwrap();
    (
        compile_for(&v, Stage::Vertex, arch),
        compile_for(&f, Stage::Fragment, arch),
    )
}

/// A value of a float or integer target as the Vulkan format defines it,
/// from the words `format_codes` read.
fn stored_value(format: ColorFormat, words: [u32; 4], c: usize) -> f64 {
    match format {
        // B10G11R11_UFLOAT_PACK32: R bits 0..10, G 11..21 (6-bit
        // mantissas), B 22..31 (5-bit); 5-bit exponents, bias 15 ("Unsigned
        // 11-Bit / 10-Bit Floating-Point Numbers").
        ColorFormat::B10g11r11UfloatPack32 => {
            let (shift, m) = [(0, 6), (11, 6), (22, 5)][c];
            let code = (words[0] >> shift) & ((1 << (m + 5)) - 1);
            let (e, f) = ((code >> m) as i32, f64::from(code & ((1 << m) - 1)));
            let scale = f64::from(1u32 << m);
            match e {
                0 => f / scale * 2f64.powi(-14),
                31 if f == 0.0 => f64::INFINITY,
                31 => f64::NAN,
                _ => (1.0 + f / scale) * 2f64.powi(e - 15),
            }
        }
        _ => {
            // Components of `bits` each: binary16 or f32, two's complement
            // for SINT, code / (2^(b−1) − 1) clamped to −1 for SNORM, code /
            // (2^b − 1) for UNORM ("Conversion from Normalized Fixed-Point to
            // Floating-Point").
            let bits = 8 * format.memory_bytes_per_pixel() / format.components();
            let signed = (i64::from(words[c]) << (64 - bits)) >> (64 - bits);
            match format.kind() {
                ColorKind::Float if bits == 16 => half::f16::from_bits(words[c] as u16).to_f64(),
                ColorKind::Float => f64::from(f32::from_bits(words[c])),
                ColorKind::Sint => signed as f64,
                ColorKind::Snorm => (signed as f64 / f64::from((1u32 << (bits - 1)) - 1)).max(-1.0),
                ColorKind::Unorm => f64::from(words[c]) / f64::from((1u32 << bits) - 1),
                ColorKind::Uint => f64::from(words[c]),
            }
        }
    }
}

/// Float and 32-bit integer colour targets (`R16G16B16A16_SFLOAT`,
/// `R32G32B32A32_SFLOAT`, `R32_UINT`, `R32_SINT`, `R32G32B32A32_UINT`,
/// `R32G32B32A32_SINT`: RAW tile-buffer formats, the blend unit's
/// conversion writing each pixel): random opaque scenes of flat values
/// (floats from −64 to 64 on a 2^-16 grid, some beyond binary16's
/// precision, some tiny or large; integers of up to 24 bits, negative for
/// the signed formats) on the G52 and a v6 G72, read back by the Vulkan
/// format's layout: every component exactly as the reference stores it
/// (floats unclamped and rounded to binary16 to nearest even or kept as
/// f32; integers as written). Blending and partial write masks on these
/// targets are `JmError`s (they take a blend shader).
#[test]
fn float_and_integer_targets_store_like_the_vulkan_rules() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0xf10a_7132_1a7e_6e55);
    let mut compared = 0usize;
    let mut rounded = 0usize;
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let float = flat_rgba_shaders(arch);
        let uint = int_shaders(arch, false);
        let sint = int_shaders(arch, true);
        for format in [
            ColorFormat::Rgba16Sfloat,
            ColorFormat::Rgba32Sfloat,
            ColorFormat::B10g11r11UfloatPack32,
            ColorFormat::R32Uint,
            ColorFormat::R32Sint,
            ColorFormat::Rgba32Uint,
            ColorFormat::Rgba32Sint,
        ] {
            let (vs, fs) = match format.kind() {
                ColorKind::Uint => (&uint.0, &uint.1),
                ColorKind::Sint => (&sint.0, &sint.1),
                _ => (&float.0, &float.1),
            };
            for _ in 0..2 {
                let mut scene = random_blend_scene(vs, fs, &mut rng);
                scene.format = format;
                // Replace every colour with a value of the format's kind.
                for v in 0..scene.data.len() / 8 {
                    for c in 0..4 {
                        scene.data[8 * v + 4 + c] = match format.kind() {
                            ColorKind::Uint => rng.next(1 << 24) as f32,
                            ColorKind::Sint => rng.next(1 << 24) as f32 - (1 << 23) as f32,
                            _ => match rng.next(8) {
                                0 => (rng.next(1 << 20) as f32 + 0.5) * 2f32.powi(-30),
                                1 => rng.next(1 << 20) as f32 * 8.0,
                                _ => (rng.next(1 << 23) as f32 - (1 << 22) as f32) / 65536.0,
                            },
                        };
                    }
                }
                let (out, want, on_edge) = render_opaque(model, &mut scene);
                let mut bad = Vec::new();
                for (i, words) in out.codes.iter().enumerate() {
                    if on_edge[i] {
                        continue;
                    }
                    for c in 0..format.components() as usize {
                        compared += 1;
                        let got = stored_value(format, *words, c);
                        let w = want.color[i][c];
                        if got != w {
                            bad.push(format!(
                                "{format:?} ({}, {}) component {c}: got {got}, want {w}",
                                i as u32 % SIZE,
                                i as u32 / SIZE
                            ));
                        }
                        let exact = scene.data.iter().any(|&v| f64::from(v) == w);
                        rounded += usize::from(want.writes[i] > 0 && !exact);
                    }
                }
                assert!(
                    bad.is_empty(),
                    "{} differ: {:?}",
                    bad.len(),
                    &bad[..bad.len().min(6)]
                );
            }
        }
    }
    eprintln!("{compared} components compared, {rounded} of them rounded on the way");
    assert!(compared > 150_000, "{compared}");
}

/// Blend shaders on float targets (`R16G16B16A16_SFLOAT`,
/// `R32G32B32A32_SFLOAT`, which the blend unit cannot blend): every
/// colour and alpha equation of the every-factor test above (every op,
/// every factor; the dual-source ones drawn with `dual_source.frag`, since
/// `gfx-dual`), blend constants k/255
/// different in each channel, each in its own 4×4 cell over a flat
/// destination, with a random write mask (full half of the time) — on
/// the G52 for both formats and on a v6 G72 for RGBA16F. Every component
/// as the reference (f64, unclamped, stored rounded to binary16 or f32)
/// within one unit in the last place of the stored format plus 2^-20: the
/// blend shader rounds each product and the sum to f32 (terms below 2 in
/// magnitude: less than 2^-21 off), the reference rounds once, so the
/// stored result may land on the neighbouring value. How many differ at
/// all is printed.
#[test]
fn blend_shaders_on_float_targets_match_the_reference() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0xb1e5_f10a_7000_0001);
    let mut cases = Vec::new();
    let mut dual_cases = Vec::new();
    for alpha in [false, true] {
        for op in BlendOp::ALL {
            for sf in BlendFactor::ALL {
                for df in BlendFactor::ALL {
                    let mut eq = BlendEquation {
                        src_color: BlendFactor::One,
                        dst_color: BlendFactor::Zero,
                        color_op: BlendOp::Add,
                        src_alpha: BlendFactor::One,
                        dst_alpha: BlendFactor::Zero,
                        alpha_op: BlendOp::Add,
                        constants: std::array::from_fn(|_| rng.next(256) as f32 / 255.0),
                    };
                    if alpha {
                        (eq.src_alpha, eq.dst_alpha, eq.alpha_op) = (sf, df, op);
                    } else {
                        (eq.src_color, eq.dst_color, eq.color_op) = (sf, df, op);
                    }
                    if sf.is_dual_source() || df.is_dual_source() {
                        dual_cases.push(eq);
                    } else {
                        cases.push(eq);
                    }
                }
            }
        }
    }
    let (mut compared, mut inexact) = (0usize, 0usize);
    let cells = (SIZE / 4) * (SIZE / 4);
    for (model, arch, formats) in [
        (
            SimModel::G52,
            IsaArch::V7,
            &[ColorFormat::Rgba16Sfloat, ColorFormat::Rgba32Sfloat][..],
        ),
        (SimModel::G72, IsaArch::V6, &[ColorFormat::Rgba16Sfloat][..]),
    ] {
        let flat = flat_rgba_shaders(arch);
        let dual_shaders = dual_source_shaders(arch);
        // The dual-source equations with `dual_source.frag` (smooth
        // colours, uniform per cell), the others with flat ones.
        let sets = [(&cases, &flat, false), (&dual_cases, &dual_shaders, true)];
        for (&format, (set, (vs, fs), dual)) in formats
            .iter()
            .flat_map(|f| sets.iter().map(move |s| (f, *s)))
        {
            for chunk in set.chunks(cells as usize) {
                let mut scene = rgba_scene(vs, fs, &mut rng, 4);
                scene.interpolation = if dual {
                    Interpolation::Smooth
                } else {
                    Interpolation::Flat
                };
                scene.format = format;
                for (i, eq) in chunk.iter().enumerate() {
                    let (cx, cy) = ((i as u32 % (SIZE / 4)) * 4, (i as u32 / (SIZE / 4)) * 4);
                    let colour: Vec<f32> = (0..4).map(|_| source_value(&mut rng)).collect();
                    let first = scene.data.len() as u32 / 8;
                    push_quad(&mut scene.data, cx, cy, 4, 4, &colour, false);
                    let write_mask = if rng.next(2) == 0 {
                        15
                    } else {
                        rng.next(16) as u8
                    };
                    scene.draws.push(DrawSpec {
                        topology: Topology::TriangleStrip,
                        count: 4,
                        first,
                        indices: None,
                        blend: Blend::Equation(*eq),
                        write_mask,
                        extras: DrawExtras::default(),
                        raster: RasterState::default(),
                    });
                }
                let mut gpu = SimGpu::new(model);
                let out = try_render_on(&mut gpu, &scene, |_| {})
                    .unwrap_or_else(|e| panic!("{format:?}: the chains must complete: {e}"));
                let (want, on_edge) = reference_dual(&scene, dual);
                for (i, words) in out.codes.iter().enumerate() {
                    if on_edge[i] {
                        continue;
                    }
                    for c in 0..4 {
                        compared += 1;
                        let got = stored_value(format, *words, c);
                        let w = want.color[i][c];
                        if got == w || (got.is_nan() && w.is_nan()) {
                            continue;
                        }
                        inexact += 1;
                        // One unit in the last place of the stored format.
                        let ulp = if format == ColorFormat::Rgba16Sfloat {
                            2f64.powi(w.abs().max(2f64.powi(-14)).log2().floor() as i32 - 10)
                        } else {
                            2f64.powi(w.abs().max(2f64.powi(-126)).log2().floor() as i32 - 23)
                        };
                        assert!(
                            (got - w).abs() <= ulp + 2f64.powi(-20),
                            "{format:?} ({}, {}) component {c}: got {got}, want {w}",
                            i as u32 % SIZE,
                            i as u32 / SIZE
                        );
                    }
                }
            }
        }
    }
    eprintln!(
        "{} equations ({} dual-source), {compared} components compared, {inexact} not exactly the reference's",
        cases.len() + dual_cases.len(),
        dual_cases.len()
    );
    assert_eq!(dual_cases.len(), 1360);
    assert!(compared > 100_000, "{compared}");
}

/// Partial write masks on integer targets (`R32G32B32A32_UINT`/`SINT`,
/// `R32_UINT`): blend shaders that keep the masked-out channels as LD_TILE
/// read them (integer registers throughout), random scenes of 6
/// overlapping triangles with random masks on the G52 and a v6 G72: every
/// component exactly as the reference.
#[test]
fn blend_shaders_mask_integer_targets_like_the_vulkan_rules() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x1a7e_6e55_b1e5_0003);
    let (mut compared, mut masked) = (0usize, 0usize);
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let uint = int_shaders(arch, false);
        let sint = int_shaders(arch, true);
        for format in [
            ColorFormat::Rgba32Uint,
            ColorFormat::Rgba32Sint,
            ColorFormat::R32Uint,
        ] {
            let (vs, fs) = match format.kind() {
                ColorKind::Uint => (&uint.0, &uint.1),
                _ => (&sint.0, &sint.1),
            };
            let mut scene = random_blend_scene(vs, fs, &mut rng);
            scene.format = format;
            for v in 0..scene.data.len() / 8 {
                for c in 0..4 {
                    scene.data[8 * v + 4 + c] = match format.kind() {
                        ColorKind::Uint => rng.next(1 << 24) as f32,
                        _ => rng.next(1 << 24) as f32 - (1 << 23) as f32,
                    };
                }
            }
            for d in &mut scene.draws {
                d.blend = Blend::Opaque;
                d.write_mask = rng.next(16) as u8;
                masked += usize::from(d.write_mask != 15);
            }
            let mut gpu = SimGpu::new(model);
            let out = try_render_on(&mut gpu, &scene, |_| {})
                .unwrap_or_else(|e| panic!("{format:?}: the chains must complete: {e}"));
            let (want, on_edge) = reference(&scene);
            for (i, words) in out.codes.iter().enumerate() {
                if on_edge[i] {
                    continue;
                }
                for c in 0..format.components() as usize {
                    compared += 1;
                    let got = stored_value(format, *words, c);
                    assert_eq!(
                        got,
                        want.color[i][c],
                        "{format:?} ({}, {}) component {c}",
                        i as u32 % SIZE,
                        i as u32 / SIZE
                    );
                }
            }
        }
    }
    eprintln!("{compared} components compared, {masked} draws with a partial mask");
    assert!(compared > 40_000 && masked > 20, "{compared} {masked}");
}

/// The RAW formats added after the first float and 32-bit integer ones
/// (2026-11-28, `gfx-fmt`): the 8- and 16-bit integer formats, RG32
/// UINT/SINT, R16F/RG16F/R32F/RG32F, the SNORM formats and 16-bit UNORM
/// (RAW8 … RAW64 internal, `RAW<bits>` writeback, the blend conversion's
/// memory format the pixel format: Mesa's `pan_rt_init_format`). Random
/// opaque scenes of flat values on the G52 and a v6 G72, read back by the
/// Vulkan format's layout: every component exactly as the reference stores
/// it — integers of the component's range (signed ones negative too)
/// exactly, floats as in `float_and_integer_targets_store_like_the_vulkan_rules`
/// (binary16 rounded to nearest even, overflow to infinity), SNORM/UNORM
/// values from −1.25 to 1.25 (a fifth of them on the code grid's
/// half-way points, the rest at random) clamped, scaled and rounded to
/// nearest ("Conversion from Floating-Point to Normalized Fixed-Point").
/// Returns nothing; prints the counts.
#[test]
fn small_integer_float_and_snorm_targets_store_like_the_vulkan_rules() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x5a0b_8e16_f00d_7a11);
    let (mut compared, mut clamped, mut ties) = (0usize, 0usize, 0usize);
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let float = flat_rgba_shaders(arch);
        let uint = int_shaders(arch, false);
        let sint = int_shaders(arch, true);
        for format in NEW_RAW_FORMATS {
            let (vs, fs) = match format.kind() {
                ColorKind::Uint => (&uint.0, &uint.1),
                ColorKind::Sint => (&sint.0, &sint.1),
                _ => (&float.0, &float.1),
            };
            let bits = 8 * format.memory_bytes_per_pixel() / format.components();
            let mut scene = random_blend_scene(vs, fs, &mut rng);
            scene.format = format;
            for v in 0..scene.data.len() / 8 {
                for c in 0..4 {
                    let range = 1u64 << bits.min(24);
                    scene.data[8 * v + 4 + c] = match format.kind() {
                        ColorKind::Uint => rng.next(range) as f32,
                        ColorKind::Sint => rng.next(range) as f32 - (range / 2) as f32,
                        ColorKind::Float => match rng.next(8) {
                            0 => (rng.next(1 << 20) as f32 + 0.5) * 2f32.powi(-30),
                            1 => rng.next(1 << 20) as f32 * 8.0,
                            _ => (rng.next(1 << 23) as f32 - (1 << 22) as f32) / 65536.0,
                        },
                        _ => {
                            let max = if format.kind() == ColorKind::Snorm {
                                (1u32 << (bits - 1)) - 1
                            } else {
                                (1u32 << bits) - 1
                            };
                            if rng.next(5) == 0 {
                                // A half-way point k + 1/2 of the code grid.
                                let k = rng.next(2 * u64::from(max)) as f64 - f64::from(max) + 0.5;
                                (k / f64::from(max)) as f32
                            } else {
                                (rng.next(1 << 20) as f32 / (1 << 20) as f32) * 2.5 - 1.25
                            }
                        }
                    };
                }
            }
            let (out, want, on_edge) = render_opaque(model, &mut scene);
            let mut bad = Vec::new();
            for (i, words) in out.codes.iter().enumerate() {
                if on_edge[i] {
                    continue;
                }
                for c in 0..format.components() as usize {
                    compared += 1;
                    let got = stored_value(format, *words, c);
                    let w = want.color[i][c];
                    if got != w {
                        bad.push(format!(
                            "{format:?} ({}, {}) component {c}: got {got} ({:#x}), want {w}",
                            i as u32 % SIZE,
                            i as u32 / SIZE,
                            words[c]
                        ));
                    }
                    if want.writes[i] > 0
                        && matches!(format.kind(), ColorKind::Snorm | ColorKind::Unorm)
                    {
                        clamped += usize::from(w.abs() == 1.0 || w == 0.0);
                        let scale = if format.kind() == ColorKind::Snorm {
                            f64::from((1u32 << (bits - 1)) - 1)
                        } else {
                            f64::from((1u32 << bits) - 1)
                        };
                        ties += usize::from(scene.data.iter().any(|&v| {
                            let x = f64::from(v) * scale;
                            x.fract().abs() == 0.5 && (x.round() / scale) == w
                        }));
                    }
                }
            }
            assert!(
                bad.is_empty(),
                "{} differ: {:?}",
                bad.len(),
                &bad[..bad.len().min(6)]
            );
        }
    }
    eprintln!(
        "{compared} components compared; normalized: {clamped} clamped or zero, {ties} rounded from a half-way point"
    );
    assert!(compared > 150_000, "{compared}");
}

/// The RAW formats of `small_integer_float_and_snorm_targets_store_like_the_vulkan_rules`.
const NEW_RAW_FORMATS: [ColorFormat; 27] = [
    ColorFormat::R8Uint,
    ColorFormat::R8Sint,
    ColorFormat::Rg8Uint,
    ColorFormat::Rg8Sint,
    ColorFormat::Rgba8Uint,
    ColorFormat::Rgba8Sint,
    ColorFormat::R16Uint,
    ColorFormat::R16Sint,
    ColorFormat::Rg16Uint,
    ColorFormat::Rg16Sint,
    ColorFormat::Rgba16Uint,
    ColorFormat::Rgba16Sint,
    ColorFormat::Rg32Uint,
    ColorFormat::Rg32Sint,
    ColorFormat::R16Sfloat,
    ColorFormat::Rg16Sfloat,
    ColorFormat::R32Sfloat,
    ColorFormat::Rg32Sfloat,
    ColorFormat::R8Snorm,
    ColorFormat::Rg8Snorm,
    ColorFormat::Rgba8Snorm,
    ColorFormat::R16Snorm,
    ColorFormat::Rg16Snorm,
    ColorFormat::Rgba16Snorm,
    ColorFormat::R16Unorm,
    ColorFormat::Rg16Unorm,
    ColorFormat::Rgba16Unorm,
];

/// 4× with the packed UNORM formats (`R5G6B5_UNORM_PACK16`,
/// `A2B10G10R10_UNORM_PACK32`): random flat-coloured triangles as in
/// `msaa_4x_random_triangles_match_the_reference_rasterizer`, stored per
/// sample and resolved, read back by the Vulkan layout: every sample's
/// channel codes exactly, the resolved codes less than one code from the
/// mean of the reference's samples (in codes of each channel's size).
#[test]
fn msaa_4x_packed_unorm_formats_resolve_like_the_vulkan_rules() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x0565_1010_2a4f_5eed);
    let (vs, fs) = flat_rgba_shaders(IsaArch::V7);
    let mut total = MsaaCounts::default();
    for format in [
        ColorFormat::R5g6b5UnormPack16,
        ColorFormat::A2b10g10r10UnormPack32,
    ] {
        for _ in 0..3 {
            let data = msaa_triangles(&mut rng, 24, &[1.0]);
            let mut scene = msaa_scene(&vs, &fs, data, &mut rng, Interpolation::Flat);
            scene.format = format;
            let c = msaa_scene_matches(SimModel::G52, &scene, 0, 0.999_999);
            total.add(&c);
        }
    }
    eprintln!("{total:?}");
    assert!(
        total.samples_covered > 30_000 && total.mixed_pixels > 3_000,
        "{total:?}"
    );
}

/// `gfx_points_lines` at 4× with every sample stored: the three 4×4
/// points cover every sample of their pixels, and every sample of the line
/// strip's rows equals the reference's non-strict lines at the standard 4×
/// locations (coverage exactly, colour within 1 LSB: interpolated with the
/// spec's t at the pixel centre).
#[test]
fn points_and_lines_at_4x_render_like_the_vulkan_rules() {
    let (Some(v), Some(f)) = (
        spv("gfx_points_lines.vert.spv"),
        spv("gfx_triangle.frag.spv"),
    ) else {
        return skip("gfx_points_lines.vert.spv");
    };
    let (vs, fs) = (compile(&v, Stage::Vertex), compile(&f, Stage::Fragment));
    let mut scene = points_lines_scene(&vs, &fs);
    scene.samples = 4;
    scene.per_sample = true;
    let mut gpu = SimGpu::new(SimModel::G52);
    let out = try_render_on(&mut gpu, &scene, |_| {})
        .unwrap_or_else(|e| panic!("the chains must complete: {e}"));
    let (want, _) = reference(&scene);
    let (mut points, mut line_samples, mut differ) = (0, 0, Vec::new());
    for i in 0..(SIZE * SIZE * 4) as usize {
        let (p, s) = (i / 4, i % 4);
        let (x, y) = (p as u32 % SIZE, p as u32 / SIZE);
        let got = out.codes[i];
        let stored: [u32; 4] = std::array::from_fn(|c| (want.color[i][c] * 255.0).round() as u32);
        let close = (0..4).all(|c| got[c].abs_diff(stored[c]) <= 1);
        if y < 16 {
            assert!(close, "point sample ({x}, {y}) {s}: {got:?} vs {stored:?}");
            points += usize::from(want.writes[i] > 0);
        } else {
            line_samples += usize::from(want.writes[i] > 0);
            if !close {
                differ.push((x, y, s, got, stored));
            }
        }
    }
    eprintln!(
        "{points} point samples, {line_samples} line samples, {} line samples differ: {:?}",
        differ.len(),
        &differ[..differ.len().min(8)]
    );
    assert_eq!(points, 3 * 16 * 4);
    assert!(differ.is_empty());
}

// ---- Textures ---------------------------------------------------------------

thread_local! {
    /// The texture the current thread's textured scene samples (the
    /// reference shade function is a plain `fn`).
    static TEXTURE: std::cell::RefCell<Option<(
        bifrost_vk::testing::sampler::Image,
        bifrost_vk::testing::sampler::Sampler,
    )>> = const { std::cell::RefCell::new(None) };
}

/// Mesa's fs_textured by the reference sampler: `texture(tex, v_uv) *
/// v_color` with v_color = (1, g, 1 − g, a) and v_uv = (u, v) from the
/// interpolated attribute (u, v, g, a) (`clip_uv.vert`).
fn textured_shade(c: &[f64]) -> [f64; 4] {
    TEXTURE.with(|t| {
        let t = t.borrow();
        let (image, sampler) = t.as_ref().expect("a texture for the scene");
        let b = bifrost_vk::testing::sampler::Bindings::default();
        let texel = b
            .sample(image, sampler, c[0] as f32, c[1] as f32, None)
            .expect("the reference samples");
        let colour = [1.0, c[2], 1.0 - c[2], c[3]];
        std::array::from_fn(|k| f64::from(texel[k]) * colour[k])
    })
}

/// Mesa's `fs_textured.spv` compiled by our compiler (`TEXS_2D` with a
/// computed LOD), drawn by our emitters with an 8×8 texture the test
/// uploads (Tiled and Linear), bilinear filtering, every wrap mode, texture
/// coordinates from −0.75 to 1.75 and perspective (w from 1 to 2), on the
/// G52 and a v6 G72: every covered pixel within 1 LSB of the reference
/// rasterizer's interpolation times the reference sampler. Bound: the
/// simulator interpolates in f32 and the reference in f64, so u, v, g and
/// a differ by a few f32 ULPs; the colour, a product of a texel blend and
/// the varying, moves by far less than 1/255, which only matters where
/// the exact value lies next to a rounding boundary: 1 LSB.
#[test]
fn mesa_fs_textured_renders_like_the_reference_sampler() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    use bifrost_vk::testing::sampler::{AddressMode, BorderColor, Image, Sampler};
    let Ok(f) = std::fs::read(bifrost_vk::reference_path!(
        "mesa-g52/shaders/fs_textured.spv"
    )) else {
        skip("fs_textured.spv");
        return;
    };
    let v = std::fs::read(format!("{GRAPHICS_SHADERS}/clip_uv.vert.spv")).unwrap();
    let mut covered = 0;
    let b9 = std::fs::read(format!("{GRAPHICS_SHADERS}/textured_b9.frag.spv")).unwrap();
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let vs = compile_for(&v, Stage::Vertex, arch);
        let fs = compile_for(&f, Stage::Fragment, arch);
        let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&fs.binary.code).unwrap();
        assert!(text.contains("TEXS_2D.f32.computed_lod"), "{text}");
        // The same shader at binding 9: TEXC, LOD mode COMPUTE (7 << 20).
        let fs_b9 = compile_for(&b9, Stage::Fragment, arch);
        let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&fs_b9.binary.code).unwrap();
        assert!(
            text.contains("+TEXC ") && text.contains("0xf4787899"),
            "{text}"
        );
        for (k, mode) in AddressMode::ALL.into_iter().enumerate() {
            // Binding 1 (TEXS) for the first two wrap modes, 9 (TEXC) after.
            let (fs, binding) = if k < 2 { (&fs, 1) } else { (&fs_b9, 9) };
            let mut rng = Rng(0x7e47_0000 + k as u64);
            let layout = if k % 2 == 0 {
                TexelLayout::Tiled
            } else {
                TexelLayout::Linear
            };
            let texels: Vec<[u8; 4]> = (0..64)
                .map(|_| [0; 4].map(|_: u8| rng.next(256) as u8))
                .collect();
            let image = Image {
                width: 8,
                height: 8,
                texels: texels.clone(),
                format: bifrost_vk::testing::sampler::ImageFormat::Rgba8Unorm,
            };
            let mut sampler = Sampler::simple(true, mode);
            sampler.border = BorderColor::OpaqueBlack;
            let mut gpu = SimGpu::new(model);
            let (row_stride, bytes) = match layout {
                TexelLayout::Tiled => (16 * 16 * 4, 16 * 16 * 4),
                TexelLayout::Linear => (8 * 4, 8 * 8 * 4),
            };
            let buf = gpu.alloc(bytes);
            for (i, t) in texels.iter().enumerate() {
                let (x, y) = (i as u32 % 8, i as u32 / 8);
                let off = match layout {
                    TexelLayout::Tiled => u_interleaved_offset(x, y, row_stride, 4),
                    TexelLayout::Linear => u64::from(y) * row_stride + 4 * u64::from(x),
                };
                gpu.write(buf.va + off, t);
            }
            let wrap = match mode {
                AddressMode::Repeat => WrapMode::Repeat,
                AddressMode::MirroredRepeat => WrapMode::MirroredRepeat,
                AddressMode::ClampToEdge => WrapMode::ClampToEdge,
                AddressMode::ClampToBorder => WrapMode::ClampToBorder,
            };
            let desc = TextureDesc {
                dim: Default::default(),
                layers: 1,
                layer_stride: 0,
                levels: 1,
                mips: Default::default(),
                address: buf.va,
                width: 8,
                height: 8,
                row_stride: row_stride as u32,
                layout,
                format: TexelFormat::Rgba8Unorm,
            };
            let smp = SamplerDesc {
                linear: true,
                wrap: [wrap; 2],
                border: sampler.border.rgba(),
                lod: Default::default(),
            };
            TEXTURE.with(|t| *t.borrow_mut() = Some((image, sampler)));
            // Two triangles covering most of the framebuffer; corners at
            // w = 1 and w = 2 (perspective), edges a quarter pixel off
            // the pixel grid.
            let corners = [
                (-0.9, -0.95, 1.0, [-0.75, -0.75, 0.0, 1.0]),
                (0.85, -0.9, 2.0, [1.75, -0.5, 0.5, 0.75]),
                (-0.8, 0.9, 2.0, [-0.5, 1.75, 1.0, 1.0]),
                (0.95, 0.85, 1.0, [1.5, 1.5, 0.25, 0.5]),
            ];
            let mut data = Vec::new();
            for &i in &[0usize, 1, 2, 2, 1, 3] {
                let (x, y, w, attr) = corners[i];
                let x = x - 0.25 / 32.0;
                let y = y - 0.25 / 32.0;
                data.extend_from_slice(&[x * w, y * w, 0.0, w]);
                data.extend_from_slice(&attr);
            }
            let draws = vec![DrawSpec {
                topology: Topology::TriangleList,
                count: 6,
                first: 0,
                indices: None,
                blend: Blend::Opaque,
                write_mask: 15,
                extras: DrawExtras::default(),
                raster: RasterState::default(),
            }];
            let mut scene = grid_scene(&vs, fs, data, draws);
            scene.stride = 32;
            scene.attributes = vec![(4, 0), (4, 16)];
            scene.shade = textured_shade;
            scene.interpolation = Interpolation::Smooth;
            let mut textures = vec![None; binding + 1];
            let mut samplers = vec![None; binding + 1];
            textures[binding] = Some(desc);
            samplers[binding] = Some(smp);
            scene.textures = Some((textures, samplers));
            let out = try_render_on(&mut gpu, &scene, |_| {})
                .unwrap_or_else(|e| panic!("{model:?} {mode:?}: the chains must complete: {e}"));
            let (want, on_edge) = reference(&scene);
            covered += assert_matches(&out.color, &want, |x, y| !on_edge[(y * SIZE + x) as usize]);
        }
    }
    // Two GPUs × four wrap modes × most of 64×64.
    eprintln!("{covered} textured pixels compared");
    assert!(covered > 8 * 3000, "{covered} pixels covered");
}

/// Vertex-stage texturing through our draws: `clip_vtex.vert` samples
/// (`textureLod`, TEXC explicit LOD) an uploaded 4×4 texture at each
/// vertex's random (u, v) in [−1, 2]² and LOD in [0, 2] under each wrap
/// mode, bilinear, and passes the colour on; `rgba_varying.frag` writes it.
/// The reference draws the same triangles with the reference sampler's
/// colours as vertex colours: covered pixels within 1 LSB (the vertex
/// colours agree within 2^-22, see `sim_textures.rs`; interpolation in f32
/// against f64 as everywhere here), on the G52 and a v6 G72.
#[test]
fn vertex_shaders_sample_textures_in_our_draws() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    use bifrost_vk::testing::sampler::{AddressMode, Bindings, BorderColor, Image, Sampler};
    let v = std::fs::read(format!("{GRAPHICS_SHADERS}/clip_vtex.vert.spv")).unwrap();
    let f = std::fs::read(format!("{GRAPHICS_SHADERS}/rgba_varying.frag.spv")).unwrap();
    let mut covered = 0;
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let vs = compile_for(&v, Stage::Vertex, arch);
        let fs = compile_for(&f, Stage::Fragment, arch);
        let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&vs.binary.code).unwrap();
        assert!(text.contains("+TEXC "), "{text}");
        for (k, mode) in AddressMode::ALL.into_iter().enumerate() {
            let mut rng = Rng(0x7e47_7e47 + k as u64);
            let texels: Vec<[u8; 4]> = (0..16)
                .map(|_| [0; 4].map(|_: u8| rng.next(256) as u8))
                .collect();
            let image = Image {
                width: 4,
                height: 4,
                texels: texels.clone(),
                format: bifrost_vk::testing::sampler::ImageFormat::Rgba8Unorm,
            };
            let mut sampler = Sampler::simple(true, mode);
            sampler.border = BorderColor::OpaqueWhite;
            sampler.max_lod = 4.0;
            let mut gpu = SimGpu::new(model);
            let buf = gpu.alloc(64);
            for (i, t) in texels.iter().enumerate() {
                gpu.write(buf.va + 4 * i as u64, t);
            }
            let desc = TextureDesc {
                dim: Default::default(),
                layers: 1,
                layer_stride: 0,
                levels: 1,
                mips: Default::default(),
                address: buf.va,
                width: 4,
                height: 4,
                row_stride: 16,
                layout: TexelLayout::Linear,
                format: TexelFormat::Rgba8Unorm,
            };
            let smp = SamplerDesc {
                linear: true,
                wrap: [[
                    WrapMode::Repeat,
                    WrapMode::MirroredRepeat,
                    WrapMode::ClampToEdge,
                    WrapMode::ClampToBorder,
                ][k]; 2],
                border: sampler.border.rgba(),
                lod: Default::default(),
            };
            // Six random triangles; the reference's vertex colours are the
            // reference sampler's.
            let oracle = Bindings::default();
            let (mut data, mut want_data) = (Vec::new(), Vec::new());
            for _ in 0..18 {
                let pos = [
                    rng.next(1 << 16) as f32 / 32768.0 - 1.0,
                    rng.next(1 << 16) as f32 / 32768.0 - 1.0,
                    0.0,
                    1.0,
                ];
                let uv = [
                    rng.next(1 << 16) as f32 / 21845.0 - 1.0,
                    rng.next(1 << 16) as f32 / 21845.0 - 1.0,
                    rng.next(1 << 16) as f32 / 32768.0,
                    0.0,
                ];
                let c = oracle
                    .sample(&image, &sampler, uv[0], uv[1], Some(uv[2]))
                    .unwrap();
                data.extend_from_slice(&pos);
                data.extend_from_slice(&uv);
                want_data.extend_from_slice(&pos);
                want_data.extend_from_slice(&c);
            }
            let draws = vec![DrawSpec {
                topology: Topology::TriangleList,
                count: 18,
                first: 0,
                indices: None,
                blend: Blend::Opaque,
                write_mask: 15,
                extras: DrawExtras::default(),
                raster: RasterState::default(),
            }];
            let mut scene = grid_scene(&vs, &fs, data, draws);
            scene.stride = 32;
            scene.attributes = vec![(4, 0), (4, 16)];
            scene.shade = rgba_output;
            let mut textures = vec![None; 3];
            let mut samplers = vec![None; 3];
            textures[2] = Some(desc);
            samplers[2] = Some(smp);
            scene.textures = Some((textures, samplers));
            let out = try_render_on(&mut gpu, &scene, |_| {})
                .unwrap_or_else(|e| panic!("{model:?} {mode:?}: the chains must complete: {e}"));
            let mut want_scene = grid_scene(&vs, &fs, want_data, scene.draws.clone());
            want_scene.stride = 32;
            want_scene.attributes = vec![(4, 0), (4, 16)];
            want_scene.shade = rgba_output;
            let (want, on_edge) = reference(&want_scene);
            covered += assert_matches(&out.color, &want, |x, y| !on_edge[(y * SIZE + x) as usize]);
        }
    }
    eprintln!("{covered} pixels of vertex-textured triangles compared");
    assert!(covered > 2000, "{covered} pixels covered");
}

// ---- Derivatives ------------------------------------------------------------

/// `derivatives.frag` (dFdx, dFdyFine, dFdxCoarse + 2·dFdyCoarse, fwidth,
/// of the interpolated attribute and products of it) over random
/// triangles with perspective (clip w 1/2, 1 or 2; vertices on the
/// 1/256-pixel grid, so snapping moves nothing), drawn by our emitters
/// into an RGBA32F target on the G52 (`CLPER.i32`) and a v6 G72
/// (`CLPER_OLD.i32`). The reference: the Vulkan spec's "Derivative
/// Operations" — fine derivatives are differences between the two
/// invocations of the quad's row (x) or column (y) holding the pixel,
/// coarse ones those of the quad's top-left pixel's row or column — of the
/// function evaluated on `testing::raster`'s interpolation of the
/// triangle at each pixel centre, covered or not (helper invocations for
/// the uncovered pixels of quads on edges continue the attribute's plane).
/// Pixels whose centre lies on an edge are skipped (the tie rules may
/// differ, both allowed).
///
/// Bound: 2^-17 absolute. The simulator interpolates in f32 (weights
/// rounded from f64, three products and two sums: within about 2^-21 of
/// the exact value for attributes in [0, 1]); a product of two such
/// values is within 2^-20, a difference of two within 2^-19, and the
/// widest output (a coarse difference plus twice another, or fwidth's two
/// terms) within 2^-18. The reference is exact to f64.
#[test]
fn derivatives_of_varyings_match_the_quad_differences() {
    check_derivatives("derivatives.frag.spv", |_, _| false);
}

/// `demote_derivatives.frag`: `derivatives.frag` after
/// `OpDemoteToHelperInvocation` of the lower-right pixel of every quad.
/// Vulkan keeps a demoted invocation running as a helper: it writes
/// nothing (those pixels keep the clear colour), and the other three
/// pixels' derivatives are the same as without the demote. The compiler
/// turns the demote into `DISCARD.f32`, which on Bifrost only marks the
/// thread; the scheduler leaves `terminate discarded threads` off the
/// clauses before the derivatives (`bifrost/sched.rs`), so the thread is
/// still in its quad when `CLPER` reads it. With `td` on the DISCARD's
/// clause the quads' derivatives read an ended thread and this fails.
#[test]
fn demoted_invocations_stay_in_their_quads_as_helpers() {
    check_derivatives("demote_derivatives.frag.spv", |x, y| {
        x & 1 == 1 && y & 1 == 1
    });
}

/// Renders the random derivative scenes with the fragment shader `frag`
/// and checks every pixel: those `demoted(x, y)` names hold the clear
/// colour, the others the derivatives of the spec's rules.
fn check_derivatives(frag: &str, demoted: impl Fn(u32, u32) -> bool) {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let v = std::fs::read(format!("{GRAPHICS_SHADERS}/clip_rgba.vert.spv")).unwrap();
    let f = std::fs::read(format!("{GRAPHICS_SHADERS}/{frag}")).unwrap();
    let bound = 2f64.powi(-17);
    let (mut compared, mut with_helpers, mut max_err) = (0usize, 0usize, 0f64);
    let mut demoted_pixels = 0usize;
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let vs = compile_for(&v, Stage::Vertex, arch);
        let fs = compile_for(&f, Stage::Fragment, arch);
        let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&fs.binary.code).unwrap();
        let clper = match arch {
            IsaArch::V7 => "CLPER.i32",
            IsaArch::V6 => "CLPER_OLD.i32",
        };
        assert!(text.contains(clper), "{text}");
        let mut rng = Rng(0xdf0d_0000_0000_0001 ^ (arch == IsaArch::V6) as u64);
        for _ in 0..3 {
            let mut data = Vec::new();
            let mut tris: Vec<[raster::Vertex; 3]> = Vec::new();
            for _ in 0..8 {
                let mut tri = Vec::new();
                for _ in 0..3 {
                    // Framebuffer position on the 1/256 grid, in [-4, 68).
                    let px = rng.next(72 * 256) as f64 / 256.0 - 4.0;
                    let py = rng.next(72 * 256) as f64 / 256.0 - 4.0;
                    let w = [0.5, 1.0, 2.0][rng.next(3) as usize];
                    let attrs: Vec<f64> =
                        (0..4).map(|_| rng.next(1 << 16) as f64 / 65536.0).collect();
                    let clip = [(px / 32.0 - 1.0) * w, (py / 32.0 - 1.0) * w, 0.0, w];
                    data.extend(clip.iter().map(|&c| c as f32));
                    data.extend(attrs.iter().map(|&a| a as f32));
                    tri.push(raster::Vertex {
                        x: px,
                        y: py,
                        z: 0.0,
                        w,
                        attrs,
                    });
                }
                tris.push([tri[0].clone(), tri[1].clone(), tri[2].clone()]);
            }
            let draws = vec![DrawSpec {
                topology: Topology::TriangleList,
                count: 24,
                first: 0,
                indices: None,
                blend: Blend::Opaque,
                write_mask: 15,
                extras: DrawExtras::default(),
                raster: RasterState::default(),
            }];
            let mut scene = grid_scene(&vs, &fs, data, draws);
            scene.stride = 32;
            scene.attributes = vec![(4, 0), (4, 16)];
            scene.format = ColorFormat::Rgba32Sfloat;
            let mut gpu = SimGpu::new(model);
            let out = try_render_on(&mut gpu, &scene, |_| {})
                .unwrap_or_else(|e| panic!("{model:?}: the chains must complete: {e}"));
            // The reference: the last triangle covering each pixel, and
            // whether its centre lies on an edge of any triangle.
            let mut owner = vec![None; (SIZE * SIZE) as usize];
            let mut on_edge = vec![false; (SIZE * SIZE) as usize];
            let state = raster::RasterState::default();
            for (t, tri) in tris.iter().enumerate() {
                let grid = tri
                    .clone()
                    .map(|v| ((v.x * 256.0) as i64, (v.y * 256.0) as i64));
                let frags = raster::rasterize_triangle(
                    [&tri[0], &tri[1], &tri[2]],
                    &state,
                    &[Interpolation::Smooth; 4],
                    SIZE,
                    SIZE,
                );
                for fr in &frags {
                    owner[(fr.y * SIZE + fr.x) as usize] = Some((t, frags.len()));
                }
                for y in 0..SIZE {
                    for x in 0..SIZE {
                        on_edge[(y * SIZE + x) as usize] |= centre_on_edge(&grid, x, y);
                    }
                }
            }
            let covered_by = |t: usize, x: u32, y: u32| {
                let tri = &tris[t];
                let frags = raster::rasterize_triangle(
                    [&tri[0], &tri[1], &tri[2]],
                    &state,
                    &[Interpolation::Smooth; 4],
                    SIZE,
                    SIZE,
                );
                frags.iter().any(|f| f.x == x && f.y == y)
            };
            for y in 0..SIZE {
                for x in 0..SIZE {
                    let i = (y * SIZE + x) as usize;
                    let Some((t, _)) = owner[i] else { continue };
                    if on_edge[i] {
                        continue;
                    }
                    if demoted(x, y) {
                        let clear = ColorFormat::Rgba32Sfloat
                            .clear_words(clear_colour(ColorFormat::Rgba32Sfloat));
                        assert_eq!(
                            out.codes[i], clear,
                            "{model:?} demoted pixel ({x}, {y}) was written"
                        );
                        demoted_pixels += 1;
                        continue;
                    }
                    let tri = &tris[t];
                    let at = |px: u32, py: u32| -> Vec<f64> {
                        let pos = [
                            (tri[0].x, tri[0].y),
                            (tri[1].x, tri[1].y),
                            (tri[2].x, tri[2].y),
                        ];
                        let b = raster::barycentric(pos, f64::from(px) + 0.5, f64::from(py) + 0.5);
                        let w = [tri[0].w, tri[1].w, tri[2].w];
                        (0..4)
                            .map(|k| {
                                let fv = [tri[0].attrs[k], tri[1].attrs[k], tri[2].attrs[k]];
                                raster::interpolate(&b, &w, &fv, Interpolation::Smooth, 0)
                            })
                            .collect()
                    };
                    let (qx, qy) = (x & !1, y & !1);
                    let fine_x = |g: &dyn Fn(&[f64]) -> f64| g(&at(qx + 1, y)) - g(&at(qx, y));
                    let fine_y = |g: &dyn Fn(&[f64]) -> f64| g(&at(x, qy + 1)) - g(&at(x, qy));
                    let coarse_x = |g: &dyn Fn(&[f64]) -> f64| g(&at(qx + 1, qy)) - g(&at(qx, qy));
                    let coarse_y = |g: &dyn Fn(&[f64]) -> f64| g(&at(qx, qy + 1)) - g(&at(qx, qy));
                    let want = [
                        fine_x(&|a| a[0]),
                        fine_y(&|a| a[0] * a[1]),
                        coarse_x(&|a| a[2] * a[2]) + 2.0 * coarse_y(&|a| a[1]),
                        fine_x(&|a| a[3] * a[0]).abs() + fine_y(&|a| a[3] * a[0]).abs(),
                    ];
                    let got = out.codes[i].map(|w| f64::from(f32::from_bits(w)));
                    for c in 0..4 {
                        let err = (got[c] - want[c]).abs();
                        max_err = max_err.max(err);
                        assert!(
                            err <= bound,
                            "{model:?} pixel ({x}, {y}) component {c}: got {}, want {} (triangle {t})",
                            got[c],
                            want[c]
                        );
                        compared += 1;
                    }
                    let quad = [(qx, qy), (qx + 1, qy), (qx, qy + 1), (qx + 1, qy + 1)];
                    if quad
                        .iter()
                        .any(|&(px, py)| px >= SIZE || py >= SIZE || !covered_by(t, px, py))
                    {
                        with_helpers += 1;
                    }
                }
            }
        }
    }
    eprintln!(
        "{frag}: {compared} derivative components compared, {with_helpers} pixels in quads with \
         helper invocations, {demoted_pixels} demoted pixels, largest difference {max_err:e}"
    );
    assert!(compared > 4 * 2 * 3 * 700, "{compared}");
    assert!(with_helpers > 200, "{with_helpers}");
    if demoted(1, 1) {
        assert!(demoted_pixels > 500, "{demoted_pixels}");
    }
}

thread_local! {
    /// The mipmapped texture, sampler and implicit λbase of the current
    /// thread's minified scene.
    static MIPMAPPED: std::cell::RefCell<Option<(
        Vec<bifrost_vk::testing::sampler::Image>,
        bifrost_vk::testing::sampler::Sampler,
        f32,
    )>> = const { std::cell::RefCell::new(None) };
}

/// Mesa's fs_textured by the reference sampler with mipmaps: the texture
/// at the interpolated (u, v) with the scene's implicit λbase, times
/// v_color = (1, g, 1 − g, a).
fn minified_shade(c: &[f64]) -> [f64; 4] {
    MIPMAPPED.with(|t| {
        let t = t.borrow();
        let (levels, sampler, lod) = t.as_ref().expect("a texture for the scene");
        let texel = bifrost_vk::testing::sampler::Bindings::default()
            .sample_levels(levels, sampler, c[0] as f32, c[1] as f32, *lod)
            .expect("the reference samples");
        let colour = [1.0, c[2], 1.0 - c[2], c[3]];
        std::array::from_fn(|k| f64::from(texel[k]) * colour[k])
    })
}

/// Implicit LOD in fragment shaders: Mesa's fs_textured (TEXS_2D computed
/// LOD, binding 1), the same at binding 9 (TEXC, LOD mode COMPUTE) and
/// with a shader bias of 0.75 (`texture(tex, uv, 0.75)`: TEXC, LOD mode
/// BIAS; the reference adds it to λbase, "Level-of-Detail Operation") over
/// a 64×64 quad (w = 1) whose (u, v) run across the 64×64 framebuffer by
/// (Sx, Sy) texture widths, so ∂u/∂x = 64 Sx / 64 texels per pixel: a
/// minified 64×64 texture of 7 levels (64 … 1, Linear), λbase =
/// log2 max(64 Sx/64, 64 Sy/64) between 0.6 and 3.4, mipmap modes NEAREST
/// and LINEAR, bilinear or nearest minification, a bias, on the G52 and a
/// v6 G72: every covered pixel within 1 LSB of the reference rasterizer's
/// interpolation times the reference sampler (`sample_levels` at the
/// λbase of `testing::sampler::implicit_lod`, rounded to 1/256 as the
/// simulator's). The simulator takes one λ per quad from the coordinates'
/// coarse differences in f32 (the slopes here are constant, so every
/// quad's λ rounds to the same 1/256 step: the test asserts that λ·256 is
/// at least 0.01 from a rounding boundary).
#[test]
fn minified_textures_take_their_level_from_the_quad_derivatives() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    use bifrost_vk::jm::texture::{MipLevel, MipmapMode, SamplerLod};
    use bifrost_vk::testing::sampler::{AddressMode, Image, ImageFormat, Sampler, implicit_lod};
    let Ok(f) = std::fs::read(bifrost_vk::reference_path!(
        "mesa-g52/shaders/fs_textured.spv"
    )) else {
        skip("fs_textured.spv");
        return;
    };
    let v = std::fs::read(format!("{GRAPHICS_SHADERS}/clip_uv.vert.spv")).unwrap();
    let b9 = std::fs::read(format!("{GRAPHICS_SHADERS}/textured_b9.frag.spv")).unwrap();
    let bias = std::fs::read(format!("{GRAPHICS_SHADERS}/textured_bias.frag.spv")).unwrap();
    let mut covered = 0;
    let scales = [(1.5f64, 1.625f64), (3.0, 1.25), (2.25, 5.5), (10.5, 4.0)];
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let vs = compile_for(&v, Stage::Vertex, arch);
        let fs = compile_for(&f, Stage::Fragment, arch);
        let fs_b9 = compile_for(&b9, Stage::Fragment, arch);
        let fs_bias = compile_for(&bias, Stage::Fragment, arch);
        let text =
            bifrost_vk::compiler::bifrost::disasm::disassemble(&fs_bias.binary.code).unwrap();
        // TEXC with LOD mode BIAS (5 << 20).
        assert!(
            text.contains("+TEXC ") && text.contains("0xf4587899"),
            "{text}"
        );
        for (k, &(sx, sy)) in scales.iter().enumerate() {
            // The shader's own bias (`textured_bias.frag`: 0.75).
            let (fs, binding, shader_bias) = match k % 3 {
                0 => (&fs, 1, 0.0),
                1 => (&fs_b9, 9, 0.0),
                _ => (&fs_bias, 9, 0.75),
            };
            let mut rng = Rng(0x3a9_7e47 + k as u64 + 16 * (arch == IsaArch::V6) as u64);
            let mut gpu = SimGpu::new(model);
            let mut levels = Vec::new();
            let mut desc = TextureDesc {
                dim: Default::default(),
                layers: 1,
                layer_stride: 0,
                levels: 7,
                mips: Default::default(),
                address: 0,
                width: 64,
                height: 64,
                row_stride: 256,
                layout: TexelLayout::Linear,
                format: TexelFormat::Rgba8Unorm,
            };
            for l in 0..7u32 {
                let n = 64 >> l;
                let texels: Vec<[u8; 4]> = (0..n * n)
                    .map(|_| [0; 4].map(|_: u8| rng.next(256) as u8))
                    .collect();
                let buf = gpu.alloc(u64::from(4 * n * n));
                for (i, t) in texels.iter().enumerate() {
                    gpu.write(buf.va + 4 * i as u64, t);
                }
                match l {
                    0 => desc.address = buf.va,
                    _ => {
                        desc.mips[l as usize - 1] = MipLevel {
                            slice_stride: 0,
                            address: buf.va,
                            row_stride: 4 * n,
                        }
                    }
                }
                levels.push(Image {
                    width: n,
                    height: n,
                    texels,
                    format: ImageFormat::Rgba8Unorm,
                });
            }
            let mut sampler = Sampler::simple(true, AddressMode::Repeat);
            sampler.min_linear = k != 1;
            sampler.mipmap_linear = k >= 2;
            sampler.max_lod = 6.0;
            sampler.lod_bias = [0.0, 0.5, -0.25, 0.0][k];
            let smp = SamplerDesc {
                linear: true,
                wrap: [WrapMode::Repeat; 2],
                border: [0.0; 4],
                lod: SamplerLod {
                    wrap_r: None,
                    min_linear: Some(sampler.min_linear),
                    mipmap: if sampler.mipmap_linear {
                        MipmapMode::Linear
                    } else {
                        MipmapMode::Nearest
                    },
                    min_lod: 0.0,
                    max_lod: 6.0,
                    bias: sampler.lod_bias,
                    compare: None,
                },
            };
            // u = u0 + sx · x/64, v = v0 + sy · y/64 over the framebuffer.
            let (u0, v0) = (-0.3, 0.2);
            let lod = implicit_lod((64, 64), sx / 64.0, 0.0, 0.0, sy / 64.0) + shader_bias;
            let exact = (64.0 * sx.max(sy) / 64.0).log2() * 256.0;
            assert!(
                (exact - exact.floor() - 0.5).abs() > 0.01,
                "λ·256 = {exact} too close to a rounding boundary"
            );
            MIPMAPPED.with(|t| *t.borrow_mut() = Some((levels, sampler, lod)));
            let corner = |x: f64, y: f64| {
                let (u, v) = (u0 + sx * (x + 1.0) / 2.0, v0 + sy * (y + 1.0) / 2.0);
                [x as f32, y as f32, 0.0, 1.0, u as f32, v as f32, 0.25, 1.0]
            };
            let mut scene = quad_scene(&vs, fs, corner);
            scene.shade = minified_shade;
            let mut textures = vec![None; binding + 1];
            let mut samplers = vec![None; binding + 1];
            textures[binding] = Some(desc);
            samplers[binding] = Some(smp);
            scene.textures = Some((textures, samplers));
            let out = try_render_on(&mut gpu, &scene, |_| {}).unwrap_or_else(|e| {
                panic!("{model:?} scale {sx}×{sy}: the chains must complete: {e}")
            });
            let (want, on_edge) = reference(&scene);
            covered += assert_matches(&out.color, &want, |x, y| !on_edge[(y * SIZE + x) as usize]);
        }
    }
    eprintln!("{covered} minified pixels compared");
    assert!(covered > 8 * 3500, "{covered}");
}

/// The reference for `shadow_b9.frag`: the depth compare of the scene's
/// mipmapped R32F texture against 0.5 at the interpolated (u, v) and the
/// scene's implicit λbase, splatted, times v_color = (1, g, 1 − g, a).
fn shadow_shade(c: &[f64]) -> [f64; 4] {
    MIPMAPPED.with(|t| {
        let t = t.borrow();
        let (levels, sampler, lod) = t.as_ref().expect("a texture for the scene");
        let r = bifrost_vk::testing::sampler::Bindings::default()
            .sample_levels_dref(levels, sampler, c[0] as f32, c[1] as f32, *lod, 0.5)
            .expect("the reference samples")[0];
        let colour = [1.0, c[2], 1.0 - c[2], c[3]];
        colour.map(|k| f64::from(r) * k)
    })
}

/// Depth compares with an implicit LOD in a fragment shader:
/// `shadow_b9.frag` (`texture(sampler2DShadow, (u, v, 0.5))`: TEXC with
/// LOD mode COMPUTE and the shadow register) over the minified quad of
/// `minified_textures_take_their_level_from_the_quad_derivatives`, a 64×64
/// R32F texture of 7 levels with depths k/8 (so no depth equals the
/// reference only approximately), compare LESS and GREATER_OR_EQUAL,
/// NEAREST and LINEAR mipmaps, bilinear, on the G52 and a v6 G72: every
/// pixel within 1 LSB of the reference rasterizer's interpolation times
/// `sample_levels_dref` at `implicit_lod`.
#[test]
fn depth_compares_with_implicit_lod_in_fragment_shaders() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    use bifrost_vk::jm::graphics::CompareOp as HwOp;
    use bifrost_vk::jm::texture::{MipLevel, MipmapMode, SamplerLod};
    use bifrost_vk::testing::sampler::{
        AddressMode, CompareOp, Image, ImageFormat, Sampler, implicit_lod,
    };
    let v = std::fs::read(format!("{GRAPHICS_SHADERS}/clip_uv.vert.spv")).unwrap();
    let f = std::fs::read(format!("{GRAPHICS_SHADERS}/shadow_b9.frag.spv")).unwrap();
    let mut covered = 0;
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let vs = compile_for(&v, Stage::Vertex, arch);
        let fs = compile_for(&f, Stage::Fragment, arch);
        for (k, (sx, sy, op, hw_op)) in [
            (3.0f64, 1.25f64, CompareOp::Less, HwOp::Less),
            (2.25, 5.5, CompareOp::GreaterOrEqual, HwOp::GreaterOrEqual),
        ]
        .into_iter()
        .enumerate()
        {
            let mut rng = Rng(0x5ad_7e47 + k as u64 + 16 * (arch == IsaArch::V6) as u64);
            let mut gpu = SimGpu::new(model);
            let mut levels = Vec::new();
            let mut desc = TextureDesc {
                dim: Default::default(),
                layers: 1,
                layer_stride: 0,
                levels: 7,
                mips: Default::default(),
                address: 0,
                width: 64,
                height: 64,
                row_stride: 256,
                layout: TexelLayout::Linear,
                format: TexelFormat::R32Sfloat,
            };
            for l in 0..7u32 {
                let n = 64 >> l;
                let texels: Vec<[u8; 4]> = (0..n * n)
                    .map(|_| (rng.next(9) as f32 / 8.0).to_le_bytes())
                    .collect();
                let buf = gpu.alloc(u64::from(4 * n * n));
                for (i, t) in texels.iter().enumerate() {
                    gpu.write(buf.va + 4 * i as u64, t);
                }
                match l {
                    0 => desc.address = buf.va,
                    _ => {
                        desc.mips[l as usize - 1] = MipLevel {
                            slice_stride: 0,
                            address: buf.va,
                            row_stride: 4 * n,
                        }
                    }
                }
                levels.push(Image {
                    width: n,
                    height: n,
                    texels,
                    format: ImageFormat::R32Sfloat,
                });
            }
            let mut sampler = Sampler::simple(true, AddressMode::Repeat);
            sampler.mipmap_linear = k == 1;
            sampler.max_lod = 6.0;
            sampler.compare = Some(op);
            let smp = SamplerDesc {
                linear: true,
                wrap: [WrapMode::Repeat; 2],
                border: [0.0; 4],
                lod: SamplerLod {
                    wrap_r: None,
                    min_linear: None,
                    mipmap: if sampler.mipmap_linear {
                        MipmapMode::Linear
                    } else {
                        MipmapMode::Nearest
                    },
                    min_lod: 0.0,
                    max_lod: 6.0,
                    bias: 0.0,
                    compare: Some(hw_op),
                },
            };
            let (u0, v0) = (0.1, -0.4);
            let lod = implicit_lod((64, 64), sx / 64.0, 0.0, 0.0, sy / 64.0);
            let exact = sx.max(sy).log2() * 256.0;
            assert!((exact - exact.floor() - 0.5).abs() > 0.01, "{exact}");
            MIPMAPPED.with(|t| *t.borrow_mut() = Some((levels, sampler, lod)));
            let corner = |x: f64, y: f64| {
                let (u, v) = (u0 + sx * (x + 1.0) / 2.0, v0 + sy * (y + 1.0) / 2.0);
                [x as f32, y as f32, 0.0, 1.0, u as f32, v as f32, 0.75, 1.0]
            };
            let mut scene = quad_scene(&vs, &fs, corner);
            scene.shade = shadow_shade;
            let mut textures = vec![None; 10];
            let mut samplers = vec![None; 10];
            textures[9] = Some(desc);
            samplers[9] = Some(smp);
            scene.textures = Some((textures, samplers));
            let out = try_render_on(&mut gpu, &scene, |_| {})
                .unwrap_or_else(|e| panic!("{model:?} {op:?}: the chains must complete: {e}"));
            let (want, on_edge) = reference(&scene);
            covered += assert_matches(&out.color, &want, |x, y| !on_edge[(y * SIZE + x) as usize]);
        }
    }
    eprintln!("{covered} shadowed pixels compared");
    assert!(covered > 4 * 4000, "{covered}");
}

// ---------------------------------------------------------------------
// Fragment built-ins and the epilogue (issue 9, `gfx-frag`): discard,
// gl_FragCoord, gl_FrontFacing, gl_PointCoord, gl_FragDepth, early
// fragment tests.

fn graphics_stage(name: &str, stage: Stage, arch: bifrost_vk::compiler::bifrost::Arch) -> Stage2 {
    let spv = std::fs::read(format!("{GRAPHICS_SHADERS}/{name}.spv")).unwrap();
    compile_for(&spv, stage, arch)
}

fn disassembly(s: &Stage2) -> String {
    bifrost_vk::compiler::bifrost::disasm::disassemble(&s.binary.code).unwrap()
}

/// The colour/depth/stencil/counter comparison of the ZS scenes: colour
/// within `lsb`, stencil exactly, depth within 1e-6, every draw's
/// occlusion counter equal to the reference's. Returns the pixels the
/// reference wrote.
fn assert_zs_scene_matches(out: &Output, want: &ops::Target, passed: &[u64], lsb: u8) -> usize {
    let covered = assert_matches_within(&out.color, want, |_, _| true, lsb);
    if let Some(stencil) = &out.stencil {
        for (i, (g, w)) in stencil.iter().zip(&want.stencil).enumerate() {
            assert_eq!(
                g,
                w,
                "stencil at ({}, {})",
                i as u32 % SIZE,
                i as u32 / SIZE
            );
        }
    }
    for (i, (g, w)) in out
        .depth
        .as_ref()
        .unwrap()
        .iter()
        .zip(&want.depth)
        .enumerate()
    {
        assert!(
            (f64::from(*g) - w).abs() <= 1e-6,
            "depth at ({}, {}): {g} vs {w}",
            i as u32 % SIZE,
            i as u32 / SIZE
        );
    }
    assert_eq!(out.occlusion, passed, "occlusion counters");
    covered
}

/// The shader of `discard.frag` by the Vulkan rules: discarded where red
/// < 0.5 or on the checkerboard of odd x + y; else the colour.
fn discard_shader(f: &raster::Fragment) -> Option<ops::Shaded> {
    let c = [f.attrs[0], f.attrs[1], f.attrs[2], f.attrs[3]];
    (c[0] >= 0.5 && (f.x ^ f.y) & 1 == 0).then_some(ops::Shaded {
        colour: c,
        ..Default::default()
    })
}

/// `discard` (OpKill, and OpTerminateInvocation in `terminate.frag`,
/// every other scene → `DISCARD.f32`, the renderer state's `Shader
/// modifies coverage` and Force Late pixel kill / ZS update): the random
/// stencil, depth-bias and occlusion scenes drawn with `discard.frag`
/// (discards where the triangle's red is below 0.5 and on a checkerboard
/// of gl_FragCoord), on the G52 and a v6 G72. A discarded fragment writes
/// no colour, no depth and no stencil and is not counted; the other pixels
/// of its quad carry on. Colour, stencil and counters exactly, depth
/// within 1e-6.
#[test]
fn discarded_fragments_write_nothing_and_are_not_counted() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0xd15c_a4d0_0000_0001);
    let (mut scenes_done, mut covered, mut counted, mut discarded) = (0, 0, 0u64, 0usize);
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, 8),
        (SimModel::G72, IsaArch::V6, 3),
    ] {
        let vs = graphics_stage("clip_rgba.vert", Stage::Vertex, arch);
        // `OpKill` and `OpTerminateInvocation`, every other scene.
        let shaders = ["discard.frag", "terminate.frag"].map(|name| {
            let fs = graphics_stage(name, Stage::Fragment, arch);
            assert!(fs.binary.fragment.as_ref().unwrap().can_discard);
            assert!(
                disassembly(&fs).contains("DISCARD.f32"),
                "{}",
                disassembly(&fs)
            );
            fs
        });
        let mut done = 0;
        while done < scenes {
            let mut scene = random_zs_scene(&vs, &shaders[done % 2], &mut rng);
            if done % 2 == 1 {
                scene.depth_format = ZDepthFormat::D24X8;
            }
            let (want, on_edge, passed) = reference_shaded(&scene, false, &mut discard_shader);
            if on_edge.iter().any(|&e| e) {
                continue;
            }
            // Fragments the reference discards (for the figures).
            let (all, _, _) = reference_shaded(&scene, false, &mut |f| {
                Some(ops::Shaded {
                    colour: [f.attrs[0], f.attrs[1], f.attrs[2], f.attrs[3]],
                    ..Default::default()
                })
            });
            done += 1;
            let out = render_on(model, &scene);
            covered += assert_zs_scene_matches(&out, &want, &passed, 0);
            discarded += (0..all.writes.len())
                .filter(|&i| all.writes[i] > want.writes[i])
                .count();
            counted += passed.iter().sum::<u64>();
            scenes_done += 1;
        }
    }
    eprintln!(
        "{scenes_done} scenes, {covered} pixels written, {discarded} pixels with discarded fragments, {counted} samples counted"
    );
    assert!(covered > 1000 && discarded > 1000 && counted > 1000);
}

/// `layout(early_fragment_tests)` with a discard and a `gl_FragDepth`
/// write (`early_discard.frag`): the compiler drops the depth (Vulkan:
/// "no effect"), the emitter keeps the tests early; the depth/stencil
/// tests, writes and the sample counting happen before the shader, so a
/// discarded fragment still writes depth and stencil and is counted, and
/// only its colour is dropped. Random stencil/depth-bias/occlusion scenes,
/// G52 and v6 G72.
#[test]
fn early_fragment_tests_run_before_the_discard() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0xea41_7e57_0000_0001);
    let (mut scenes_done, mut counted) = (0, 0u64);
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, 6),
        (SimModel::G72, IsaArch::V6, 2),
    ] {
        let vs = graphics_stage("clip_rgba.vert", Stage::Vertex, arch);
        let fs = graphics_stage("early_discard.frag", Stage::Fragment, arch);
        let info = fs.binary.fragment.as_ref().unwrap();
        assert!(info.early_fragment_tests && info.can_discard && !info.writes_depth);
        assert!(!disassembly(&fs).contains("ZS_EMIT"));
        let mut done = 0;
        while done < scenes {
            let scene = random_zs_scene(&vs, &fs, &mut rng);
            let (want, on_edge, passed) = reference_shaded(&scene, true, &mut |f| {
                (f.attrs[0] >= 0.5).then_some(ops::Shaded {
                    colour: [f.attrs[0], f.attrs[1], f.attrs[2], f.attrs[3]],
                    depth: Some(0.0),
                    ..Default::default()
                })
            });
            if on_edge.iter().any(|&e| e) {
                continue;
            }
            done += 1;
            let out = render_on(model, &scene);
            assert_zs_scene_matches(&out, &want, &passed, 0);
            counted += passed.iter().sum::<u64>();
            scenes_done += 1;
        }
    }
    eprintln!("{scenes_done} scenes, {counted} samples counted");
    assert!(counted > 1000);
}

/// The largest difference between the RGBA32F words of `out` and the
/// reference's colours over the pixels the reference wrote (the others
/// must hold the clear colour exactly); also how many components were
/// compared.
fn float_target_error(out: &Output, want: &ops::Target) -> (f64, usize) {
    let (mut worst, mut compared) = (0f64, 0usize);
    // One entry per pixel, or per sample (sample-minor) when stored so.
    let n = out.codes.len() / (SIZE * SIZE) as usize;
    for i in 0..out.codes.len() {
        let got = out.codes[i].map(|w| f64::from(f32::from_bits(w)));
        let p = (i / n) as u32;
        if want.writes[i] == 0 {
            assert_eq!(
                got,
                CLEAR.map(f64::from),
                "({}, {}) sample {} is not the clear colour",
                p % SIZE,
                p / SIZE,
                i % n
            );
            continue;
        }
        for (c, &g) in got.iter().enumerate() {
            let e = (g - want.color[i][c]).abs();
            assert!(
                e.is_finite(),
                "({}, {}) sample {} component {c}: {g} vs {}",
                p % SIZE,
                p / SIZE,
                i % n,
                want.color[i][c]
            );
            worst = worst.max(e);
            compared += 1;
        }
    }
    (worst, compared)
}

/// Random triangles for the built-in scenes: `triangles` draws of one
/// triangle each (random winding and front face, no culling), vertices on
/// the 1/256 grid in [-4, 68)², clip w from `ws`, depth in [0, 1); the
/// colour attribute of each vertex is `attrs(rng, w, depth)`.
fn builtin_scene<'a>(
    vs: &'a Stage2,
    fs: &'a Stage2,
    rng: &mut Rng,
    triangles: u32,
    ws: &[f32],
    attrs: &dyn Fn(&mut Rng, f32, f32) -> [f32; 4],
) -> Scene<'a> {
    let mut data = Vec::new();
    let mut draws = Vec::new();
    for t in 0..triangles {
        for _ in 0..3 {
            let px = rng.next(72 * 256) as f32 / 256.0 - 4.0;
            let py = rng.next(72 * 256) as f32 / 256.0 - 4.0;
            let w = ws[rng.next(ws.len() as u64) as usize];
            let z = rng.next(1 << 12) as f32 / 4096.0;
            data.extend_from_slice(&[(px / 32.0 - 1.0) * w, (py / 32.0 - 1.0) * w, z * w, w]);
            data.extend_from_slice(&attrs(rng, w, z));
        }
        draws.push(DrawSpec {
            topology: Topology::TriangleList,
            count: 3,
            first: 3 * t,
            indices: None,
            blend: Blend::Opaque,
            write_mask: 15,
            extras: DrawExtras::default(),
            raster: RasterState {
                front_ccw: rng.next(2) == 0,
                ..RasterState::default()
            },
        });
    }
    let mut scene = grid_scene(vs, fs, data, draws);
    scene.stride = 32;
    scene.attributes = vec![(4, 0), (4, 16)];
    scene
}

/// `gl_FragCoord` (x, y from the r59 preload + 0.5; z and w by
/// `LD_VAR_SPECIAL` frag_z / frag_w) and `gl_FrontFacing` (the r58
/// primitive-flags preload) as colours into an RGBA32F target
/// (`frag_builtins.frag`: (x, y, z, ±1/w), w negated on back faces): 8
/// random triangles per scene with clip w ½–4 (perspective), random
/// winding and front face; 4 scenes on the G52 and 2 on a v6 G72 at 1×,
/// 2 and 1 at 4× (every sample stored: each covered sample holds its
/// fragment's centre values, no sample shading); the reference: the pixel
/// centre, depth and 1/w interpolated linearly in screen space at the
/// centre (the spec's FragCoord), the primitive's facing. x, y and the
/// sign exactly, z and 1/w within **2^-20** (f32 against f64
/// interpolation).
#[test]
fn frag_coord_and_front_facing_match_the_reference() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let bound = 2f64.powi(-20);
    let mut rng = Rng(0xf4a6_c004_d000_0001);
    let (mut worst, mut compared, mut back) = (0f64, 0usize, 0usize);
    for (model, arch, scenes, samples) in [
        (SimModel::G52, IsaArch::V7, 4, 1),
        (SimModel::G72, IsaArch::V6, 2, 1),
        (SimModel::G52, IsaArch::V7, 2, 4),
        (SimModel::G72, IsaArch::V6, 1, 4),
    ] {
        let vs = graphics_stage("clip_rgba.vert", Stage::Vertex, arch);
        let fs = graphics_stage("frag_builtins.frag", Stage::Fragment, arch);
        let text = disassembly(&fs);
        assert!(text.contains("frag_z") && text.contains("frag_w"), "{text}");
        let mut done = 0;
        while done < scenes {
            // The colour attribute carries 1/w and the depth, interpolated
            // linearly in screen space by the reference: FragCoord.w and
            // FragCoord.z at the pixel centre (at 4× too: no sample
            // shading).
            let mut scene =
                builtin_scene(&vs, &fs, &mut rng, 8, &[0.5, 1.0, 2.0, 4.0], &|_, w, z| {
                    [1.0 / w, z, 0.0, 0.0]
                });
            scene.format = ColorFormat::Rgba32Sfloat;
            scene.interpolation = Interpolation::NoPerspective;
            scene.samples = samples;
            scene.per_sample = samples > 1;
            let (want, on_edge, _) = reference_shaded(&scene, false, &mut |f| {
                let w = if f.front_facing {
                    f.attrs[0]
                } else {
                    -f.attrs[0]
                };
                if samples == 1 {
                    // At 1× the one sample is the centre.
                    assert!((f.depth[0] - f.attrs[1]).abs() < 1e-12);
                }
                Some(ops::Shaded {
                    colour: [f64::from(f.x) + 0.5, f64::from(f.y) + 0.5, f.attrs[1], w],
                    ..Default::default()
                })
            });
            if on_edge.iter().any(|&e| e) {
                continue;
            }
            done += 1;
            let out = render_on(model, &scene);
            let (e, n) = float_target_error(&out, &want);
            for i in 0..out.codes.len() {
                if want.writes[i] > 0 {
                    let got = out.codes[i].map(f32::from_bits);
                    assert_eq!(
                        [f64::from(got[0]), f64::from(got[1])],
                        [want.color[i][0], want.color[i][1]],
                        "x, y at pixel {i}"
                    );
                    assert_eq!(got[3] < 0.0, want.color[i][3] < 0.0, "facing at pixel {i}");
                    back += usize::from(got[3] < 0.0);
                }
            }
            worst = worst.max(e);
            compared += n;
        }
    }
    eprintln!(
        "{compared} components compared, {back} back-facing pixels or samples, largest difference {worst:e} (bound {bound:e})"
    );
    assert!(worst <= bound, "largest difference {worst}");
    assert!(compared > 4000 && back > 200);
}

/// `gl_PointCoord` (`LD_VAR_SPECIAL` point, `Point sprite coord origin max
/// Y` clear: Vulkan's upper-left origin) with the pixel centre
/// (`point_coord.frag` into RGBA32F): 24 points of size 4 per scene
/// (`clip_point.vert`) at random positions on the 1/256 grid, 3 scenes on
/// the G52 and 2 on a v6 G72, against the spec's (0.5 + (x_f − x_p) / size,
/// 0.5 + (y_f − y_p) / size) at the pixel centre; within **2^-20**.
#[test]
fn point_coord_matches_the_reference() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let bound = 2f64.powi(-20);
    let mut rng = Rng(0x9014_7c00_4d00_0001);
    let (mut worst, mut compared) = (0f64, 0usize);
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, 3),
        (SimModel::G72, IsaArch::V6, 2),
    ] {
        let vs = graphics_stage("clip_point.vert", Stage::Vertex, arch);
        let fs = graphics_stage("point_coord.frag", Stage::Fragment, arch);
        assert!(fs.binary.fragment.as_ref().unwrap().reads_point_coord);
        for _ in 0..scenes {
            let mut data = Vec::new();
            for _ in 0..24 {
                let px = rng.next(72 * 256) as f32 / 256.0 - 4.0;
                let py = rng.next(72 * 256) as f32 / 256.0 - 4.0;
                data.extend_from_slice(&[px / 32.0 - 1.0, py / 32.0 - 1.0, 0.5, 1.0]);
                data.extend_from_slice(&[0.0; 4]);
            }
            let draws = vec![DrawSpec {
                topology: Topology::PointList,
                count: 24,
                first: 0,
                indices: None,
                blend: Blend::Opaque,
                write_mask: 15,
                extras: DrawExtras::default(),
                raster: RasterState::default(),
            }];
            let mut scene = grid_scene(&vs, &fs, data, draws);
            scene.stride = 32;
            scene.attributes = vec![(4, 0), (4, 16)];
            scene.format = ColorFormat::Rgba32Sfloat;
            let (want, _, _) = reference_shaded(&scene, false, &mut |f| {
                let (s, t) = f.point_coord.unwrap();
                Some(ops::Shaded {
                    colour: [s, t, f64::from(f.x) + 0.5, f64::from(f.y) + 0.5],
                    ..Default::default()
                })
            });
            let out = render_on(model, &scene);
            let (e, n) = float_target_error(&out, &want);
            worst = worst.max(e);
            compared += n;
        }
    }
    eprintln!("{compared} components compared, largest difference {worst:e} (bound {bound:e})");
    assert!(worst <= bound, "largest difference {worst}");
    assert!(compared > 4000);
}

/// The stencil/occlusion scenes for `frag_depth.frag`: smooth colours,
/// each triangle's alpha (the shader's depth) in its own band of 0.1 and
/// its rasterized depth in the reversed band, a random compare op with
/// depth writes, no depth bias.
fn frag_depth_scene<'a>(vs: &'a Stage2, fs: &'a Stage2, rng: &mut Rng) -> Scene<'a> {
    let mut scene = random_zs_scene(vs, fs, rng);
    scene.interpolation = Interpolation::Smooth;
    scene.depth = Some(DepthState {
        compare: CompareOp::ALL_OPS[[1, 3, 4, 6, 5][rng.next(5) as usize]],
        write: true,
    });
    for t in 0..scene.data.len() / 24 {
        let band = rng.next(9) as f32;
        for v in 0..3 {
            let o = 24 * t + 8 * v;
            scene.data[o + 2] = 0.95 - 0.1 * band;
            for c in 0..3 {
                scene.data[o + 4 + c] = rng.next(256) as f32 / 255.0;
            }
            scene.data[o + 7] = 0.1 * band + 0.03 + rng.next(1025) as f32 / 1024.0 * 0.04;
        }
    }
    for d in &mut scene.draws {
        d.extras.depth_bias = None;
    }
    scene
}

/// `frag_depth.frag` by the Vulkan rules.
fn frag_depth_shader(f: &raster::Fragment) -> Option<ops::Shaded> {
    Some(ops::Shaded {
        colour: [f.attrs[0], f.attrs[1], f.attrs[2], 1.0],
        depth: Some(f.attrs[3]),
        ..Default::default()
    })
}

/// `gl_FragDepth` (`ZS_EMIT.z`, `Depth source` Shader, Force Late pixel
/// kill and ZS update): 6 triangles per scene, one draw each, smooth
/// colours, the depth written from the interpolated alpha (each triangle's
/// alpha in its own band of 0.1, so f32 and f64 interpolation cannot order
/// two differently) and rasterized depths unrelated to it; random depth
/// compare op (write on), random stencil state, an occlusion counter per
/// draw, D32 and X8_D24, G52 and v6 G72: colour within 1 LSB, stencil and
/// counters exactly, depth within 1e-6 of the reference, which tests with
/// the shader's depth.
#[test]
fn frag_depth_is_tested_and_written_late() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0xf4a6_de97_0000_0001);
    let (mut scenes_done, mut covered, mut counted) = (0, 0, 0u64);
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, 8),
        (SimModel::G72, IsaArch::V6, 3),
    ] {
        let vs = graphics_stage("clip_rgba.vert", Stage::Vertex, arch);
        let fs = graphics_stage("frag_depth.frag", Stage::Fragment, arch);
        assert!(fs.binary.fragment.as_ref().unwrap().writes_depth);
        assert!(disassembly(&fs).contains("ZS_EMIT"), "{}", disassembly(&fs));
        let mut done = 0;
        while done < scenes {
            let mut scene = frag_depth_scene(&vs, &fs, &mut rng);
            if done % 2 == 1 {
                scene.depth_format = ZDepthFormat::D24X8;
            }
            let (want, on_edge, passed) = reference_shaded(&scene, false, &mut frag_depth_shader);
            if on_edge.iter().any(|&e| e) {
                continue;
            }
            done += 1;
            let out = render_on(model, &scene);
            covered += assert_zs_scene_matches(&out, &want, &passed, 1);
            counted += passed.iter().sum::<u64>();
            scenes_done += 1;
        }
    }
    eprintln!("{scenes_done} scenes, {covered} pixels written, {counted} samples counted");
    assert!(covered > 1000 && counted > 1000);
}

/// The formats of `mrt.frag`'s eight outputs, in location order.
const MRT_FORMATS: [ColorFormat; 8] = [
    ColorFormat::Rgba8Unorm,
    ColorFormat::R32Uint,
    ColorFormat::R32Sint,
    ColorFormat::Rgba16Sfloat,
    ColorFormat::A2b10g10r10UnormPack32,
    ColorFormat::R8Unorm,
    ColorFormat::Rgba32Sfloat,
    ColorFormat::Rgba32Uint,
];

/// `mrt.frag` by GLSL's rules (f32 arithmetic, conversions to integers
/// rounding toward zero): output `k` for the colour `c`.
fn mrt_output(k: usize, c: [f64; 4]) -> [f64; 4] {
    let c = c.map(|v| v as f32);
    let f = |v: [f32; 4]| v.map(f64::from);
    match k {
        0 => f(c),
        1 => [f64::from((c[0] * 1000.0) as u32 + 70000), 0.0, 0.0, 1.0],
        2 => [f64::from(-((c[1] * 1000.0) as i32) - 7), 0.0, 0.0, 1.0],
        3 => f(c.map(|v| v * 4.0 - 1.0)),
        4 => f([c[3], c[2], c[1], c[0]]),
        5 => f([1.0 - c[2]; 4]),
        6 => f(c.map(|v| v * v)),
        _ => c.map(|v| f64::from((v * 255.0) as u32 * 3)),
    }
}

/// Multiple render targets: one draw of `mrt.frag` writes eight targets
/// of mixed kinds (RGBA8 UNORM, R32_UINT, R32_SINT, RGBA16F,
/// A2B10G10R10 UNORM, R8 UNORM, RGBA32F, RGBA32_UINT: 60 bytes per pixel,
/// so `jm::framebuffer` picks 8×8 effective tiles) with a different value
/// each; 8 random flat-coloured triangles per scene, random winding, 3
/// scenes on the G52 and 2 on a v6 G72. Every target's every component
/// exactly as the reference stores the shader's output for it (UNORM codes
/// rounded to nearest, binary16 to nearest even, integers as written).
#[test]
fn eight_render_targets_of_mixed_formats_take_one_draw() {
    let mut rng = Rng(0x8a77_0000_0000_0001);
    let (compared, written) = mrt_scenes_match(&mut rng, [15; 8], [3, 2]);
    eprintln!("{compared} components of targets 1-7 compared, {written} pixels written");
    assert!(compared > 50_000 && written > 1000);
}

/// The return path of blend shaders: `mrt.frag` as above with partial
/// write masks on the RGBA16F target 3 (R, B) and the RGBA32F target 6
/// (G, A), which take blend shaders called from the middle of the
/// fragment shader's BLENDs (each returns to the clause after its BLEND,
/// `RenderTargetWrite::return_offset`); 2 scenes on the G52 and 2 on a v6
/// G72. Every target exactly as the reference (the masked-out channels
/// keep the clear colour), so the targets after the calls were written
/// with the right colours too.
#[test]
fn blend_shaders_in_the_middle_of_eight_targets_return_to_the_fragment_shader() {
    let mut rng = Rng(0x8a77_b1e0_0000_0002);
    let mut masks = [15; 8];
    masks[3] = 0b0101;
    masks[6] = 0b1010;
    let (compared, written) = mrt_scenes_match(&mut rng, masks, [2, 2]);
    eprintln!("{compared} components of targets 1-7 compared, {written} pixels written");
    assert!(compared > 30_000 && written > 500);
}

/// Renders random `mrt.frag` scenes (`scenes` on the G52, then on a v6
/// G72) with the targets' write `masks` and compares every target with
/// the reference: (components of targets 1–7 compared, pixels of target 0
/// written).
fn mrt_scenes_match(rng: &mut Rng, masks: [u8; 8], scenes: [usize; 2]) -> (usize, usize) {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let rng = &mut *rng;
    let (mut compared, mut written) = (0usize, 0usize);
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, scenes[0]),
        (SimModel::G72, IsaArch::V6, scenes[1]),
    ] {
        let vs = graphics_stage("clip_rgba.vert", Stage::Vertex, arch);
        let fs = graphics_stage("mrt.frag", Stage::Fragment, arch);
        assert_eq!(fs.binary.fragment.as_ref().unwrap().render_targets.len(), 8);
        let mut done = 0;
        while done < scenes {
            let mut data = Vec::new();
            for _ in 0..8 {
                let colour: Vec<f32> = (0..4).map(|_| rng.next(256) as f32 / 255.0).collect();
                for _ in 0..3 {
                    let p = |r: &mut Rng| (r.next(72 * 256) as f32 / 256.0 - 4.0) / 32.0 - 1.0;
                    data.extend_from_slice(&[p(rng), p(rng), 0.5, 1.0]);
                    data.extend_from_slice(&colour);
                }
            }
            let draws = vec![DrawSpec {
                topology: Topology::TriangleList,
                count: 24,
                first: 0,
                indices: None,
                blend: Blend::Opaque,
                write_mask: masks[0],
                extras: DrawExtras::default(),
                raster: RasterState {
                    front_ccw: rng.next(2) == 0,
                    ..RasterState::default()
                },
            }];
            let scene_for = |format: ColorFormat, more: Vec<ColorFormat>, mask: u8| {
                let mut draws = draws.clone();
                draws[0].write_mask = mask;
                let mut s = grid_scene(&vs, &fs, data.clone(), draws);
                s.stride = 32;
                s.attributes = vec![(4, 0), (4, 16)];
                s.interpolation = Interpolation::Flat;
                s.format = format;
                s.more_formats = more;
                s.more_write_masks = masks[1..].to_vec();
                s
            };
            let scene = scene_for(MRT_FORMATS[0], MRT_FORMATS[1..].to_vec(), masks[0]);
            let mut wants = Vec::new();
            let mut edge = false;
            for (k, &format) in MRT_FORMATS.iter().enumerate() {
                let s = scene_for(format, Vec::new(), masks[k]);
                let (want, on_edge, _) = reference_shaded(&s, false, &mut |f| {
                    Some(ops::Shaded {
                        colour: mrt_output(k, [f.attrs[0], f.attrs[1], f.attrs[2], f.attrs[3]]),
                        ..Default::default()
                    })
                });
                edge |= on_edge.iter().any(|&e| e);
                wants.push(want);
            }
            if edge {
                continue;
            }
            done += 1;
            let out = render_on(model, &scene);
            written += assert_matches_within(&out.color, &wants[0], |_, _| true, 0);
            for (k, &format) in MRT_FORMATS.iter().enumerate().skip(1) {
                let want = &wants[k];
                let codes = &out.more_codes[k - 1];
                for (i, code) in codes.iter().enumerate() {
                    for c in 0..format.components() as usize {
                        let w = want.color[i][c];
                        let got = match format.kind() {
                            ColorKind::Unorm => {
                                let bits = format.channel_bits()[c];
                                f64::from(code[c]) / f64::from((1u32 << bits) - 1)
                            }
                            _ => stored_value(format, *code, c),
                        };
                        assert!(
                            (got - w).abs() <= 1e-9,
                            "target {k} {format:?} ({}, {}) component {c}: got {got}, want {w}",
                            i as u32 % SIZE,
                            i as u32 / SIZE
                        );
                        compared += 1;
                    }
                }
            }
        }
    }
    (compared, written)
}

/// What the public sources leave open faults the FRAGMENT job instead of
/// being guessed, and the next render pass on the same GPU renders:
/// `gl_PointCoord` read while drawing triangles (`LD_VAR_SPECIAL` point
/// outside a point primitive: INSTR_INVALID_ENC, 0x51) and a shader depth
/// with early depth/stencil tests (a `frag_depth.frag` binary whose
/// `FragmentInfo` is edited to allow early tests, so the renderer state
/// says `Depth source` Shader with early pixel kill: JOB_CONFIG_FAULT,
/// 0x40). G52 and v6 G72.
#[test]
fn fragment_cases_the_hardware_leaves_open_fault() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0xfa01_7000_0000_0001);
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let vs = graphics_stage("clip_rgba.vert", Stage::Vertex, arch);
        let points = graphics_stage("point_coord.frag", Stage::Fragment, arch);
        let mut early_depth = graphics_stage("frag_depth.frag", Stage::Fragment, arch);
        let info = early_depth.binary.fragment.as_mut().unwrap();
        info.early_fragment_tests = true;
        info.early_z_allowed = true;
        let good = graphics_stage("discard.frag", Stage::Fragment, arch);
        let mut gpu = SimGpu::new(model);
        let mut triangles = builtin_scene(&vs, &points, &mut rng, 4, &[1.0], &|_, _, _| [0.0; 4]);
        triangles.format = ColorFormat::Rgba32Sfloat;
        let depth_scene = random_zs_scene(&vs, &early_depth, &mut rng);
        for (what, scene, status) in [
            ("gl_PointCoord of a triangle", &triangles, 0x51),
            ("a shader depth with early tests", &depth_scene, 0x40),
        ] {
            let err = match try_render_on(&mut gpu, scene, |_| {}) {
                Ok(_) => panic!("{model:?}: {what} must fault"),
                Err(e) => e,
            };
            let fault = err
                .fault()
                .unwrap_or_else(|| panic!("{model:?}: {what}: {err}"));
            assert_eq!(fault.status, status, "{model:?}: {what}: {err}");
            let ok = random_zs_scene(&vs, &good, &mut rng);
            try_render_on(&mut gpu, &ok, |_| {})
                .unwrap_or_else(|e| panic!("{model:?}: the next render pass after {what}: {e}"));
        }
    }
}

/// `discard` and `gl_FragDepth` at 4× (every sample's colour, depth and
/// stencil stored): the stencil/occlusion scenes of
/// `discarded_fragments_write_nothing_and_are_not_counted` and
/// `frag_depth_is_tested_and_written_late` with a random `pSampleMask` in
/// half the draws, 3 scenes of each on the G52 and 1 on a v6 G72. A
/// discarded fragment touches none of its samples; the shader's depth is
/// every covered sample's. Every sample's colour (within 1 LSB for the
/// smooth colours of the depth scenes), stencil exactly, depth within
/// 1e-6, counters exactly.
#[test]
fn discard_and_frag_depth_at_4x_match_the_reference() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x4a5a_d15c_de97_0004);
    let (mut samples_compared, mut counted) = (0usize, 0u64);
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, 3),
        (SimModel::G72, IsaArch::V6, 1),
    ] {
        let vs = graphics_stage("clip_rgba.vert", Stage::Vertex, arch);
        let discard = graphics_stage("discard.frag", Stage::Fragment, arch);
        let depth = graphics_stage("frag_depth.frag", Stage::Fragment, arch);
        for writes_depth in [false, true] {
            let mut done = 0;
            while done < scenes {
                let mut scene = if writes_depth {
                    frag_depth_scene(&vs, &depth, &mut rng)
                } else {
                    random_zs_scene(&vs, &discard, &mut rng)
                };
                scene.samples = 4;
                scene.per_sample = true;
                for d in &mut scene.draws {
                    if rng.next(2) == 0 {
                        d.extras.multisample.sample_mask = 1 + rng.next(15) as u32;
                    }
                }
                let shader: fn(&raster::Fragment) -> Option<ops::Shaded> = if writes_depth {
                    frag_depth_shader
                } else {
                    discard_shader
                };
                let (want, on_edge, passed) = reference_shaded(&scene, false, &mut |f| shader(f));
                if on_edge.iter().any(|&e| e) {
                    continue;
                }
                done += 1;
                let out = render_on(model, &scene);
                let (stencil, z) = (out.stencil.unwrap(), out.depth.unwrap());
                let lsb = u8::from(writes_depth);
                for i in 0..(SIZE * SIZE * 4) as usize {
                    let (p, s) = (i / 4, i % 4);
                    let at = format!("({}, {}) sample {s}", p as u32 % SIZE, p as u32 / SIZE);
                    let stored = want.color[i].map(|c| (c * 255.0).round() as u8);
                    let got = &out.color[4 * i..4 * i + 4];
                    assert!(
                        got.iter().zip(&stored).all(|(a, b)| a.abs_diff(*b) <= lsb),
                        "colour at {at}: {got:?} vs {stored:?}"
                    );
                    assert_eq!(stencil[i], want.stencil[i], "stencil at {at}");
                    assert!(
                        (f64::from(z[i]) - want.depth[i]).abs() <= 1e-6,
                        "depth at {at}: {} vs {}",
                        z[i],
                        want.depth[i]
                    );
                    samples_compared += 1;
                }
                assert_eq!(out.occlusion, passed, "occlusion counters");
                counted += passed.iter().sum::<u64>();
            }
        }
    }
    eprintln!("{samples_compared} samples compared, {counted} samples counted");
    assert!(counted > 5000);
}

/// `gl_SampleID`, `gl_SamplePosition` and `gl_SampleMaskIn` under sample
/// shading (`sample_id.frag` → (position x, y, id, mask) into RGBA32F;
/// reading the first two turns sample shading on: RSD `Evaluate
/// per-sample`, one thread per covered sample, r61 = its bit | id << 16,
/// the position from the sample-locations table at FAU special 6): 8
/// random triangles per scene, every sample stored, 3 scenes on the G52
/// and 2 on a v6 G72 at 4×, 1 of each at 1×; the reference: one invocation
/// per covered sample (the Vulkan spec's "Sample Shading"), its standard
/// location, its index and its own bit as the mask ("SampleMask"). Every
/// component exactly; at 4× all four positions and ids must appear.
#[test]
fn sample_id_and_position_run_per_sample() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x5a3b_1e1d_0000_0004);
    let (mut compared, mut seen) = (0usize, [0usize; 4]);
    for (model, arch, scenes, samples) in [
        (SimModel::G52, IsaArch::V7, 3, 4),
        (SimModel::G72, IsaArch::V6, 2, 4),
        (SimModel::G52, IsaArch::V7, 1, 1),
        (SimModel::G72, IsaArch::V6, 1, 1),
    ] {
        let vs = graphics_stage("clip_rgba.vert", Stage::Vertex, arch);
        let fs = graphics_stage("sample_id.frag", Stage::Fragment, arch);
        let info = fs.binary.fragment.as_ref().expect("fragment info");
        assert!(info.sample_shading && info.preloads.sample_mask_id);
        for _ in 0..scenes {
            let mut scene = builtin_scene(&vs, &fs, &mut rng, 8, &[1.0], &|_, _, _| [0.0; 4]);
            scene.format = ColorFormat::Rgba32Sfloat;
            scene.samples = samples;
            scene.per_sample = samples > 1;
            scene.sample_shading = true;
            for d in &mut scene.draws {
                d.extras.multisample.samples = samples;
            }
            let (want, _, _) = reference_shaded(&scene, false, &mut |f| {
                let (px, py) = f.sample_position(samples);
                Some(ops::Shaded {
                    colour: [px, py, f64::from(f.sample.unwrap_or(0)), f64::from(f.mask)],
                    ..Default::default()
                })
            });
            let out = render_on(model, &scene);
            let (worst, n) = float_target_error(&out, &want);
            assert_eq!(worst, 0.0, "{model:?} {samples}×");
            compared += n;
            for (i, w) in want.writes.iter().enumerate() {
                if *w > 0 && samples == 4 {
                    seen[i % 4] += 1;
                    assert_eq!(want.color[i][2] as usize, i % 4, "sample id of entry {i}");
                }
            }
        }
    }
    eprintln!("{compared} components compared, samples written per index {seen:?}");
    assert!(compared > 4000 && seen.iter().all(|&n| n > 500), "{seen:?}");
}

/// The RGBA32F result of sample `i` of `out` (`per_sample` storage).
fn float_sample(out: &Output, i: usize) -> [f64; 4] {
    out.codes[i].map(|w| f64::from(f32::from_bits(w)))
}

/// `gl_SampleMask` (written) and `gl_SampleMaskIn` (`sample_mask.frag`:
/// the mask a flat varying's red, a random 0–15 per triangle, ANDed into
/// the coverage before ATEST; alpha = gl_SampleMaskIn): 8 random
/// triangles per scene, every sample stored, at 4× on the G52 (3 scenes)
/// and a v6 G72 (2), with the pipeline's sample shading on in one scene of
/// each (`Multisample::sample_shading`: gl_SampleMaskIn is then the
/// invocation's own sample), and one scene at 1×. Reference: the spec's
/// "Sample Mask" output (coverage AND mask: cleared samples keep the
/// clear colour) and "SampleMask" input. Every sample exactly.
#[test]
fn sample_mask_output_removes_samples() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x5a3b_1e1d_0000_0005);
    let (mut compared, mut removed) = (0usize, 0usize);
    for (model, arch, samples, shading) in [
        (SimModel::G52, IsaArch::V7, 4, false),
        (SimModel::G52, IsaArch::V7, 4, false),
        (SimModel::G52, IsaArch::V7, 4, true),
        (SimModel::G72, IsaArch::V6, 4, false),
        (SimModel::G72, IsaArch::V6, 4, true),
        (SimModel::G52, IsaArch::V7, 1, false),
    ] {
        let vs = graphics_stage("clip_rgba.vert", Stage::Vertex, arch);
        let fs = graphics_stage("sample_mask.frag", Stage::Fragment, arch);
        let info = fs.binary.fragment.as_ref().expect("fragment info");
        assert!(info.writes_sample_mask && !info.sample_shading && !info.early_z_allowed);
        let mut scene = builtin_scene(&vs, &fs, &mut rng, 8, &[1.0], &|rng, _, _| {
            [0.0, 0.5, 0.5, 0.0].map(|c: f32| c + rng.next(1 << 10) as f32 / 4096.0)
        });
        // One mask per triangle, on all three vertices (flat).
        for t in 0..scene.data.len() / 24 {
            let mask = rng.next(16) as f32;
            for k in 0..3 {
                scene.data[(3 * t + k) * 8 + 4] = mask;
            }
        }
        scene.format = ColorFormat::Rgba32Sfloat;
        scene.interpolation = Interpolation::Flat;
        scene.samples = samples;
        scene.per_sample = samples > 1;
        scene.sample_shading = shading;
        for d in &mut scene.draws {
            d.extras.multisample.samples = samples;
            d.extras.multisample.sample_shading = shading;
        }
        let mut cleared = 0usize;
        let (want, _, _) = reference_shaded(&scene, false, &mut |f| {
            let mask = f.attrs[0] as u32;
            cleared += (f.mask & !mask).count_ones() as usize;
            Some(ops::Shaded {
                colour: [f.attrs[1], f.attrs[2], 0.25, f64::from(f.mask)],
                sample_mask: Some(mask),
                ..Default::default()
            })
        });
        let out = render_on(model, &scene);
        let (worst, n) = float_target_error(&out, &want);
        assert_eq!(worst, 0.0, "{model:?} {samples}× shading {shading}");
        if shading {
            for (i, w) in want.writes.iter().enumerate() {
                if *w > 0 {
                    assert_eq!(float_sample(&out, i)[3], f64::from(1u32 << (i % 4)));
                }
            }
        }
        compared += n;
        removed += cleared;
    }
    eprintln!("{compared} components compared, {removed} covered samples removed by the mask");
    assert!(compared > 4000 && removed > 1000);
}

/// Random triangles with a random colour per vertex, clip w ½–4
/// (perspective), for the interpolation scenes at 4× (every sample
/// stored, RGBA32F). Triangle t's red lies in [t/8, (t + 1)/8), so a
/// value's red names the triangle it came from ([`colour_ranges`]).
fn interpolation_scene<'a>(
    vs: &'a Stage2,
    fs: &'a Stage2,
    rng: &mut Rng,
    sample_shading: bool,
) -> Scene<'a> {
    let mut scene = builtin_scene(vs, fs, rng, 8, &[0.5, 1.0, 2.0, 4.0], &|rng, _, _| {
        [0.0f32; 4].map(|_| rng.next(1 << 16) as f32 / 65536.0)
    });
    for t in 0..scene.data.len() / 24 {
        for k in 0..3 {
            let red = &mut scene.data[(3 * t + k) * 8 + 4];
            *red = (t as f32 + *red) / 8.0;
        }
    }
    scene.format = ColorFormat::Rgba32Sfloat;
    scene.interpolation = Interpolation::Smooth;
    scene.samples = 4;
    scene.per_sample = true;
    scene.sample_shading = sample_shading;
    for d in &mut scene.draws {
        d.extras.multisample.samples = 4;
    }
    scene
}

/// Per triangle of an [`interpolation_scene`]: the smallest and largest of
/// its vertices' colours. A perspective-correct value at a point inside
/// the triangle is a convex combination of them; an extrapolated one
/// (read outside the triangle) need not be.
fn colour_ranges(scene: &Scene<'_>) -> Vec<([f64; 4], [f64; 4])> {
    (0..scene.data.len() / 24)
        .map(|t| {
            let c = |k: usize, j: usize| f64::from(scene.data[(3 * t + k) * 8 + 4 + j]);
            let lo = std::array::from_fn(|j| c(0, j).min(c(1, j)).min(c(2, j)));
            let hi = std::array::from_fn(|j| c(0, j).max(c(1, j)).max(c(2, j)));
            (lo, hi)
        })
        .collect()
}

/// Whether `c` lies within the colour range of the triangle its red names
/// (with `slack`).
fn within_its_triangle(c: &[f64], ranges: &[([f64; 4], [f64; 4])], slack: f64) -> bool {
    let t = ((c[0] * 8.0).floor().max(0.0) as usize).min(ranges.len() - 1);
    let (lo, hi) = ranges[t];
    (0..4).all(|k| c[k] >= lo[k] - slack && c[k] <= hi[k] + slack)
}

/// An [`interpolation_scene`] against the reference reading each fragment's
/// input with `read`: every written sample within **2^-16** of it (f32
/// against f64) and within its triangle's colour range (never
/// extrapolated). Returns the largest difference, the components compared
/// and the fragments whose centre value lies outside the range (where
/// reading at the centre would have extrapolated).
fn interpolation_scene_matches(
    model: SimModel,
    scene: &Scene<'_>,
    read: &dyn Fn(&raster::Fragment) -> Vec<f64>,
) -> (f64, usize, usize) {
    let ranges = colour_ranges(scene);
    let mut outside = 0usize;
    let (want, _, _) = reference_shaded(scene, false, &mut |f| {
        let c = read(f);
        assert!(within_its_triangle(&c, &ranges, 1e-9), "reference {c:?}");
        if !within_its_triangle(&f.attrs, &ranges, 1e-6) {
            outside += 1;
        }
        Some(ops::Shaded {
            colour: [c[0], c[1], c[2], c[3]],
            ..Default::default()
        })
    });
    let out = render_on(model, scene);
    let (worst, n) = float_target_error(&out, &want);
    for (i, w) in want.writes.iter().enumerate() {
        if *w > 0 {
            let got = float_sample(&out, i);
            assert!(
                within_its_triangle(&got, &ranges, 1e-5),
                "{model:?}: sample {i} = {got:?} outside its triangle's colours"
            );
        }
    }
    (worst, n, outside)
}

/// `Centroid` inputs at 4× (`centroid.frag`: `LD_VAR_IMM ... centroid`,
/// no sample shading): 8 random perspective triangles per scene, 3 scenes
/// on the G52 and 2 on a v6 G72, every sample stored. The reference reads
/// the input where our rule puts the centroid (`Fragment::centroid_inputs`:
/// the centre when all four samples are covered, else the lowest covered
/// sample's location; the spec allows any covered point): every sample
/// within **2^-16** (f32 against f64), every value within its triangle's
/// vertex colours; the scenes have partly covered pixels whose centre lies
/// outside the triangle (where a centre read would extrapolate).
#[test]
fn centroid_inputs_are_read_at_a_covered_sample() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let bound = 2f64.powi(-16);
    let mut rng = Rng(0x5a3b_1e1d_0000_0006);
    let (mut worst, mut compared, mut outside) = (0f64, 0usize, 0usize);
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, 3),
        (SimModel::G72, IsaArch::V6, 2),
    ] {
        let vs = graphics_stage("clip_rgba.vert", Stage::Vertex, arch);
        let fs = graphics_stage("centroid.frag", Stage::Fragment, arch);
        assert!(
            disassembly(&fs).contains("centroid"),
            "{}",
            disassembly(&fs)
        );
        assert!(!fs.binary.fragment.as_ref().unwrap().sample_shading);
        for _ in 0..scenes {
            let scene = interpolation_scene(&vs, &fs, &mut rng, false);
            let (e, n, o) =
                interpolation_scene_matches(model, &scene, &|f| f.centroid_inputs(4).to_vec());
            worst = worst.max(e);
            compared += n;
            outside += o;
        }
    }
    eprintln!(
        "{compared} components compared, {outside} fragments whose centre lies outside the triangle, largest difference {worst:e} (bound {bound:e})"
    );
    assert!(worst <= bound, "largest difference {worst}");
    assert!(compared > 4000 && outside > 50, "{outside}");
}

/// `Sample` inputs at 4× (`sample_interp.frag`: `LD_VAR_IMM ... sample`;
/// the qualifier turns sample shading on): one invocation per covered
/// sample reading the input at its own location (the spec's
/// "Interpolation Decorations", Sample), 8 random perspective triangles
/// per scene, 3 scenes on the G52 and 2 on a v6 G72: every sample within
/// **2^-16** of the reference and within its triangle's colours.
#[test]
fn sample_inputs_are_read_at_each_sample() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let bound = 2f64.powi(-16);
    let mut rng = Rng(0x5a3b_1e1d_0000_0007);
    let (mut worst, mut compared) = (0f64, 0usize);
    let differ = std::cell::Cell::new(0usize);
    for (model, arch, scenes) in [
        (SimModel::G52, IsaArch::V7, 3),
        (SimModel::G72, IsaArch::V6, 2),
    ] {
        let vs = graphics_stage("clip_rgba.vert", Stage::Vertex, arch);
        let fs = graphics_stage("sample_interp.frag", Stage::Fragment, arch);
        assert!(fs.binary.fragment.as_ref().unwrap().sample_shading);
        for _ in 0..scenes {
            let scene = interpolation_scene(&vs, &fs, &mut rng, true);
            let (e, n, _) = interpolation_scene_matches(model, &scene, &|f| {
                let c = f.sample_inputs().to_vec();
                if (0..4).any(|k| (c[k] - f.attrs[k]).abs() > 1e-3) {
                    differ.set(differ.get() + 1);
                }
                c
            });
            worst = worst.max(e);
            compared += n;
        }
    }
    eprintln!(
        "{compared} components compared, {} samples whose value differs from the centre's, largest difference {worst:e} (bound {bound:e})",
        differ.get()
    );
    assert!(worst <= bound, "largest difference {worst}");
    assert!(compared > 4000 && differ.get() > 1000, "{}", differ.get());
}

/// Alpha-to-coverage and alpha-to-one (`Multisample::alpha_to_coverage`,
/// `alpha_to_one`: RSD `Alpha-to-coverage`, Blend `Alpha To One`) with
/// `flat_rgba.frag` (a flat colour whose alpha ATEST receives): 8 random
/// triangles per scene, alpha per triangle one of 0.075, 0.325, 0.575,
/// 0.825, 1.0 (0–4 samples by our rule, away from its rounding edges),
/// every sample stored, at 4× on the G52 (2 scenes, one with alpha-to-one)
/// and a v6 G72 (2), 1× on the G52 (1). Reference: the spec's
/// "Multisample Coverage" with our deterministic mask
/// (`ops::alpha_to_coverage_mask`: the lowest ⌊alpha × samples + ½⌋
/// samples) ANDed into the coverage, alpha replaced by 1 with
/// alpha-to-one. Every sample exactly.
#[test]
fn alpha_to_coverage_and_alpha_to_one_match_the_reference() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x5a3b_1e1d_0000_0008);
    let (mut compared, mut dropped) = (0usize, 0usize);
    for (model, arch, samples, to_one) in [
        (SimModel::G52, IsaArch::V7, 4, false),
        (SimModel::G52, IsaArch::V7, 4, true),
        (SimModel::G72, IsaArch::V6, 4, false),
        (SimModel::G72, IsaArch::V6, 4, true),
        (SimModel::G52, IsaArch::V7, 1, true),
    ] {
        let vs = graphics_stage("clip_rgba.vert", Stage::Vertex, arch);
        let fs = graphics_stage("flat_rgba.frag", Stage::Fragment, arch);
        let mut scene = builtin_scene(&vs, &fs, &mut rng, 8, &[1.0], &|rng, _, _| {
            [0.0f32; 4].map(|_| rng.next(1 << 10) as f32 / 1024.0)
        });
        for t in 0..scene.data.len() / 24 {
            let alpha = [0.075f32, 0.325, 0.575, 0.825, 1.0][rng.next(5) as usize];
            for k in 0..3 {
                scene.data[(3 * t + k) * 8 + 7] = alpha;
            }
        }
        scene.format = ColorFormat::Rgba32Sfloat;
        scene.interpolation = Interpolation::Flat;
        scene.samples = samples;
        scene.per_sample = samples > 1;
        for d in &mut scene.draws {
            d.extras.multisample.samples = samples;
            d.extras.multisample.alpha_to_coverage = true;
            d.extras.multisample.alpha_to_one = to_one;
        }
        let mut cleared = 0usize;
        let (want, _, _) = reference_shaded(&scene, false, &mut |f| {
            let c = [f.attrs[0], f.attrs[1], f.attrs[2], f.attrs[3]];
            let mask = ops::alpha_to_coverage_mask(c[3], samples);
            cleared += (f.mask & !mask).count_ones() as usize;
            Some(ops::Shaded {
                colour: [c[0], c[1], c[2], if to_one { 1.0 } else { c[3] }],
                sample_mask: Some(mask),
                ..Default::default()
            })
        });
        let out = render_on(model, &scene);
        let (worst, n) = float_target_error(&out, &want);
        assert_eq!(worst, 0.0, "{model:?} {samples}× alpha-to-one {to_one}");
        compared += n;
        dropped += cleared;
    }
    eprintln!(
        "{compared} components compared, {dropped} covered samples removed by alpha-to-coverage"
    );
    assert!(compared > 4000 && dropped > 1000);
}

/// `gl_FragCoord.xy` under sample shading the shader asks for
/// (`sample_frag_coord.frag`: (FragCoord.xy, SampleID, 0) into RGBA32F):
/// the pixel plus the shaded sample's location (the spec's FragCoord:
/// "the location of one of the samples corresponding to the shader
/// invocation"; the pixel centre at 1×). 8 random triangles, every sample
/// stored, 2 scenes on the G52 and 1 on a v6 G72 at 4×, 1 on the G52 at
/// 1×; every component exactly.
#[test]
fn frag_coord_is_the_sample_location_under_sample_shading() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x5a3b_1e1d_0000_0009);
    let mut compared = 0usize;
    for (model, arch, samples) in [
        (SimModel::G52, IsaArch::V7, 4),
        (SimModel::G52, IsaArch::V7, 4),
        (SimModel::G72, IsaArch::V6, 4),
        (SimModel::G52, IsaArch::V7, 1),
    ] {
        let vs = graphics_stage("clip_rgba.vert", Stage::Vertex, arch);
        let fs = graphics_stage("sample_frag_coord.frag", Stage::Fragment, arch);
        let mut scene = builtin_scene(&vs, &fs, &mut rng, 8, &[1.0], &|_, _, _| [0.0; 4]);
        scene.format = ColorFormat::Rgba32Sfloat;
        scene.samples = samples;
        scene.per_sample = samples > 1;
        scene.sample_shading = true;
        for d in &mut scene.draws {
            d.extras.multisample.samples = samples;
        }
        let (want, _, _) = reference_shaded(&scene, false, &mut |f| {
            let (px, py) = f.sample_position(samples);
            Some(ops::Shaded {
                colour: [
                    f64::from(f.x) + px,
                    f64::from(f.y) + py,
                    f64::from(f.sample.unwrap_or(0)),
                    0.0,
                ],
                ..Default::default()
            })
        });
        let out = render_on(model, &scene);
        let (worst, n) = float_target_error(&out, &want);
        assert_eq!(worst, 0.0, "{model:?} {samples}×");
        compared += n;
    }
    eprintln!("{compared} components compared");
    assert!(compared > 4000);
}

/// A cube's levels of six faces, its sampler and an implicit λbase.
type CubeScene = (
    Vec<Vec<bifrost_vk::testing::sampler::Image>>,
    bifrost_vk::testing::sampler::Sampler,
    f32,
);

thread_local! {
    /// The cube, sampler and implicit λbase of the current thread's cube
    /// scene.
    static CUBE: std::cell::RefCell<Option<CubeScene>> = const { std::cell::RefCell::new(None) };
}

/// The reference for `cube_implicit.frag`: the cube sampled in the
/// interpolated direction at the scene's implicit λbase.
fn cube_shade(c: &[f64]) -> [f64; 4] {
    CUBE.with(|t| {
        let t = t.borrow();
        let (levels, sampler, lod) = t.as_ref().expect("a cube for the scene");
        let dir = [c[0] as f32, c[1] as f32, c[2] as f32];
        bifrost_vk::testing::sampler::Bindings::sample_cube(levels, sampler, dir, *lod)
            .expect("the reference samples")
            .map(f64::from)
    })
}

/// Implicit LOD of cube maps in fragment shaders: `cube_implicit.frag`
/// (`texture(samplerCube, dir)`: TEXC with LOD mode COMPUTE, dimension
/// Cube) over a full-framebuffer quad (w = 1) whose direction is
/// M + (sc0 + kx·x)·S + (tc0 + ky·y)·T for a face's axes M, S, T (Vulkan
/// "Cube Map Face Selection and Transformations") and NDC (x, y), so the whole quad
/// stays on that face with |rc| = 1 and ∂s/∂x = kx / 64, ∂t/∂y = ky / 64
/// per pixel (the spec's "Cube Map Derivative Transformation" with a
/// constant rc): a 256×256 RGBA8 cube of 9 levels, λbase = log2(256 ·
/// max(kx, ky) / 64) between 0.3 and 1.9, faces +X, −Y, +Z and −X,
/// bilinear, NEAREST and LINEAR mipmaps, a sampler bias, on the G52 and a
/// v6 G72: every covered pixel within 1 LSB of the reference rasterizer's
/// interpolation times `Bindings::sample_cube` at `implicit_lod`'s λbase
/// (rounded to 1/256 as the simulator's; the test asserts λ·256 is at
/// least 0.01 from a rounding boundary). The simulator's λ for a cube
/// (`kmod::sim::texture::cube_implicit_lod`) projects the quad's
/// neighbours onto lane 0's face; a simulator taking λ from the packed s
/// word as for 2D fails it (checked by hand).
#[test]
fn cube_maps_take_their_implicit_lod_from_the_quad() {
    let mut covered = cube_implicit_scenes("cube_implicit.frag.spv", false, false);
    covered += cube_implicit_scenes("cube_array_implicit.frag.spv", false, true);
    eprintln!("{covered} cube pixels compared");
    assert!(covered > 16 * 3500, "{covered}");
}

/// The reference for `cube_shadow.frag`: the depth compare of the scene's
/// R32F cube with the interpolated fourth component (the reference) in the
/// interpolated direction at the scene's λbase, splatted.
fn cube_shadow_shade(c: &[f64]) -> [f64; 4] {
    CUBE.with(|t| {
        let t = t.borrow();
        let (levels, sampler, lod) = t.as_ref().expect("a cube for the scene");
        let dir = [c[0] as f32, c[1] as f32, c[2] as f32];
        let r = bifrost_vk::testing::sampler::Bindings::sample_cube_dref(
            levels,
            sampler,
            dir,
            *lod,
            c[3] as f32,
        )
        .expect("the reference samples")[0];
        [f64::from(r); 4]
    })
}

/// Depth compares of cube maps (`cube_shadow.frag`: `texture(
/// samplerCubeShadow, vec4(dir, 0.4375))`, TEXC LOD COMPUTE with the
/// shadow register and dimension Cube) over the scenes of
/// `cube_maps_take_their_implicit_lod_from_the_quad` with an R32F cube of
/// depths k/8 (the reference, 7/16, equals none), compare LESS, GREATER
/// (written flipped, as for 2D), LESS_OR_EQUAL and ALWAYS by scene, on
/// the G52 and a v6 G72: every pixel within 1 LSB of the reference's
/// compare-then-filter (`Bindings::sample_cube_dref`: each texel compared
/// before a corner's three are averaged). A simulator ignoring the
/// reference for cubes fails it (checked by hand).
#[test]
fn cube_depth_compares_match_the_reference() {
    let mut covered = cube_implicit_scenes("cube_shadow.frag.spv", true, false);
    covered += cube_implicit_scenes("cube_array_shadow.frag.spv", true, true);
    eprintln!("{covered} cube shadow pixels compared");
    assert!(covered > 16 * 3500, "{covered}");
}

/// The four cube scenes of the implicit-LOD tests with fragment shader
/// `frag` (binding 2), RGBA8 texels or (`shadow`) R32F depths compared
/// with the direction varying's fourth component; with `array`, a cube
/// array of two cubes of which the shader samples layer 1; the pixels
/// compared.
fn cube_implicit_scenes(frag: &str, shadow: bool, array: bool) -> usize {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    use bifrost_vk::jm::texture::{MipLevel, MipmapMode, SamplerLod, TextureDim};
    use bifrost_vk::testing::sampler::{
        AddressMode, Image, ImageFormat, Sampler, cube_direction, implicit_lod,
    };
    let v = std::fs::read(format!("{GRAPHICS_SHADERS}/clip_rgba.vert.spv")).unwrap();
    let f = std::fs::read(format!("{GRAPHICS_SHADERS}/{frag}")).unwrap();
    let format = if shadow {
        (ImageFormat::R32Sfloat, TexelFormat::R32Sfloat)
    } else {
        (ImageFormat::Rgba8Unorm, TexelFormat::Rgba8Unorm)
    };
    let n = 256u32;
    let mut covered = 0;
    // (face, kx, ky, sc0, tc0, sampler bias)
    let scenes = [
        (0usize, 0.35f32, 0.3f32, 0.2f32, -0.3f32, 0.0f32),
        (3, 0.5, 0.9, -0.4, 0.05, 0.25),
        (4, 0.85, 0.45, 0.1, 0.4, -0.5),
        (1, 0.6, 0.6, -0.3, -0.35, 0.5),
    ];
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let vs = compile_for(&v, Stage::Vertex, arch);
        let fs = compile_for(&f, Stage::Fragment, arch);
        for (k, &(face, kx, ky, sc0, tc0, bias)) in scenes.iter().enumerate() {
            let mut rng = Rng(0xc0be_7e47 + k as u64 + 16 * (arch == IsaArch::V6) as u64);
            let mut gpu = SimGpu::new(model);
            let mut levels = Vec::new();
            let mut desc = TextureDesc {
                dim: TextureDim::Cube,
                layers: if array { 12 } else { 6 },
                layer_stride: u64::from(4 * n * n),
                levels: 9,
                mips: Default::default(),
                address: 0,
                width: n,
                height: n,
                row_stride: 4 * n,
                layout: TexelLayout::Linear,
                format: format.1,
            };
            for l in 0..9u32 {
                let m = n >> l;
                let cubes = if array { 2 } else { 1 };
                let buf = gpu.alloc(u64::from(cubes * 6 * 4 * m * m));
                let mut faces = Vec::new();
                for fi in 0..6 * cubes {
                    let texels: Vec<[u8; 4]> = (0..m * m)
                        .map(|_| match shadow {
                            true => (rng.next(9) as f32 / 8.0).to_le_bytes(),
                            false => [0; 4].map(|_: u8| rng.next(256) as u8),
                        })
                        .collect();
                    let bytes: Vec<u8> = texels.iter().flatten().copied().collect();
                    gpu.write(buf.va + u64::from(fi * 4 * m * m), &bytes);
                    faces.push(Image {
                        width: m,
                        height: m,
                        texels,
                        format: format.0,
                    });
                }
                // The cube the shader samples: the last one.
                levels.push(faces.split_off(faces.len() - 6));
                match l {
                    0 => desc.address = buf.va,
                    _ => {
                        desc.mips[l as usize - 1] = MipLevel {
                            slice_stride: u64::from(4 * m * m),
                            address: buf.va,
                            row_stride: 4 * m,
                        }
                    }
                }
            }
            let mut sampler = Sampler::simple(true, AddressMode::ClampToEdge);
            sampler.mipmap_linear = k % 2 == 1;
            sampler.max_lod = 8.0;
            sampler.lod_bias = bias;
            let compare = [
                CompareOp::Less,
                CompareOp::Greater,
                CompareOp::LessOrEqual,
                CompareOp::Always,
            ][k];
            if shadow {
                sampler.compare = Some(ops::CompareOp::ALL[compare as usize]);
            }
            let smp = SamplerDesc {
                linear: true,
                wrap: [WrapMode::ClampToEdge; 2],
                border: [0.0; 4],
                lod: SamplerLod {
                    wrap_r: None,
                    min_linear: Some(true),
                    mipmap: if sampler.mipmap_linear {
                        MipmapMode::Linear
                    } else {
                        MipmapMode::Nearest
                    },
                    min_lod: 0.0,
                    max_lod: 8.0,
                    bias,
                    compare: shadow.then_some(compare),
                },
            };
            let size = f64::from(SIZE);
            let lod = implicit_lod((n, n), f64::from(kx) / size, 0.0, 0.0, f64::from(ky) / size);
            let exact = (f64::from(n) * f64::from(kx.max(ky)) / size).log2() * 256.0;
            assert!(
                (exact - exact.floor() - 0.5).abs() > 0.01,
                "λ·256 = {exact} too close to a rounding boundary"
            );
            CUBE.with(|t| *t.borrow_mut() = Some((levels, sampler, lod)));
            let corner = |x: f32, y: f32| {
                let d = cube_direction(face, sc0 + kx * x, tc0 + ky * y);
                [x, y, 0.0, 1.0, d[0], d[1], d[2], 0.4375]
            };
            let mut scene = quad_scene(&vs, &fs, corner);
            scene.shade = if shadow {
                cube_shadow_shade
            } else {
                cube_shade
            };
            scene.textures = Some((vec![None, None, Some(desc)], vec![None, None, Some(smp)]));
            let out = try_render_on(&mut gpu, &scene, |_| {})
                .unwrap_or_else(|e| panic!("{model:?} scene {k}: the chains must complete: {e}"));
            let (want, on_edge) = reference(&scene);
            covered += assert_matches(&out.color, &want, |x, y| !on_edge[(y * SIZE + x) as usize]);
        }
    }
    covered
}

// loadOp LOAD: the colour preload (`jm::preload`, the FRAGMENT job's
// pre-frame Draw).

/// A random two-pass scene of quads (edges a quarter pixel off the pixel
/// grid: no centre on an edge) in `format`: `first` opaque quads, then
/// `second` quads, half of them opaque, half SRC_ALPHA_OVER. Returns the
/// scene with every draw and the number of the first pass's.
fn preload_scene<'a>(
    vs: &'a Stage2,
    fs: &'a Stage2,
    rng: &mut Rng,
    format: ColorFormat,
    first: u32,
    second: u32,
) -> (Scene<'a>, usize) {
    let mut data = Vec::new();
    let mut draws = Vec::new();
    for k in 0..first + second {
        let (x, y) = (
            rng.next(u64::from(SIZE)) as u32,
            rng.next(u64::from(SIZE)) as u32,
        );
        let w = 1 + rng.next(u64::from(SIZE - x)) as u32;
        let h = 1 + rng.next(u64::from(SIZE - y)) as u32;
        let colour: Vec<f32> = (0..4).map(|_| rng.next(256) as f32 / 255.0).collect();
        push_quad(&mut data, x, y, w, h, &colour, true);
        let blended = k >= first && rng.next(2) == 1;
        draws.push(DrawSpec {
            topology: Topology::TriangleList,
            count: 6,
            first: 6 * k,
            indices: None,
            blend: if blended {
                Blend::SrcAlphaOver
            } else {
                Blend::Opaque
            },
            write_mask: 15,
            extras: DrawExtras::default(),
            raster: RasterState::default(),
        });
    }
    let scene = Scene {
        textures: None,
        vs,
        fs,
        data,
        stride: 32,
        attributes: vec![(4, 0), (4, 16)],
        depth: None,
        draws,
        viewport: viewport(),
        scissor: full_scissor(),
        shade: rgba_output,
        interpolation: Interpolation::Smooth,
        stencil_clear: None,
        format,
        depth_format: ZDepthFormat::D32,
        samples: 1,
        per_sample: false,
        more_formats: Vec::new(),
        more_write_masks: Vec::new(),
        sample_shading: false,
    };
    (scene, first as usize)
}

/// Whether the pixel's stored codes equal the reference's value, exactly:
/// RGBA8 UNORM codes against the value × 255, RGBA16F halves against the
/// value (which the reference rounded to f16).
fn codes_equal(format: ColorFormat, got: [u32; 4], want: [f64; 4]) -> bool {
    (0..4).all(|c| match format {
        ColorFormat::Rgba16Sfloat => half::f16::from_bits(got[c] as u16).to_f64() == want[c],
        _ => f64::from(got[c]) == (want[c] * 255.0).round(),
    })
}

/// Render pass 1 draws random opaque quads over the clear colour and
/// stores; render pass 2 LOADs the same attachment (no clear) and draws
/// more, opaque and blended. The result equals the reference
/// (`testing::raster`) of all the draws in one pass, exactly, for RGBA8
/// UNORM and RGBA16F, Linear and Tiled, on the G52 and a v6 G72.
#[test]
fn a_loaded_colour_target_continues_the_previous_render_pass() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x10ad_0b5e_7711_2026);
    let mut compared = 0usize;
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let (vs, fs) = rgba_shaders(arch);
        for format in [ColorFormat::Rgba8Unorm, ColorFormat::Rgba16Sfloat] {
            for linear in [false, true] {
                let (scene, first) = preload_scene(&vs, &fs, &mut rng, format, 6, 8);
                let (want, _) = reference(&scene);
                let mut gpu = SimGpu::new(model);
                let buf = gpu.alloc(4096 * u64::from(format.memory_bytes_per_pixel()));
                let mut pass1 = preload_scene(&vs, &fs, &mut Rng(0), format, 0, 0).0;
                pass1.data = scene.data.clone();
                pass1.draws = scene.draws[..first].to_vec();
                let mut pass2 = preload_scene(&vs, &fs, &mut Rng(0), format, 0, 0).0;
                pass2.data = scene.data.clone();
                pass2.draws = scene.draws[first..].to_vec();
                let mut pass = Pass {
                    color: Some(buf.va),
                    linear,
                    ..Pass::default()
                };
                try_render_pass(&mut gpu, &pass1, |_| {}, &pass)
                    .unwrap_or_else(|e| panic!("pass 1 must complete: {e}"));
                pass.load = true;
                let out = try_render_pass(&mut gpu, &pass2, |_| {}, &pass)
                    .unwrap_or_else(|e| panic!("pass 2 must complete: {e}"));
                let mut bad = Vec::new();
                for (i, &got) in out.codes.iter().enumerate() {
                    compared += 1;
                    if !codes_equal(format, got, want.color[i]) {
                        bad.push(format!(
                            "({}, {}): got {got:x?}, want {:?}",
                            i as u32 % SIZE,
                            i as u32 / SIZE,
                            want.color[i]
                        ));
                    }
                }
                assert!(
                    bad.is_empty(),
                    "{model:?} {format:?} linear {linear}: {} pixels differ: {:?}",
                    bad.len(),
                    &bad[..bad.len().min(6)]
                );
            }
        }
    }
    assert_eq!(compared, 8 * (SIZE * SIZE) as usize);
}

/// A LOAD of an attachment whose memory holds random bytes keeps them
/// exactly wherever the pass draws nothing (every byte value goes through
/// the texture fetch, the float and the blend conversion back: UNORM, sRGB,
/// BGRA and packed formats), and the drawn quad covers the rest (checked
/// for RGBA8 UNORM); Linear and Tiled, G52 and G72.
#[test]
fn loading_random_bytes_reproduces_them_where_nothing_is_drawn() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x5eed_b17e_5a11_0add);
    let formats = [
        ColorFormat::Rgba8Unorm,
        ColorFormat::Rgba8Srgb,
        ColorFormat::Bgra8Unorm,
        ColorFormat::R8Unorm,
        ColorFormat::R5g6b5UnormPack16,
        ColorFormat::A2b10g10r10UnormPack32,
    ];
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let (vs, fs) = rgba_shaders(arch);
        for format in formats {
            for linear in [false, true] {
                let mut scene = preload_scene(&vs, &fs, &mut Rng(0), format, 0, 0).0;
                let colour = [0.2f32, 0.4, 0.6, 0.8];
                push_quad(&mut scene.data, 10, 20, 23, 17, &colour, true);
                scene.draws.push(DrawSpec {
                    topology: Topology::TriangleList,
                    count: 6,
                    first: 0,
                    indices: None,
                    blend: Blend::Opaque,
                    write_mask: 15,
                    extras: DrawExtras::default(),
                    raster: RasterState::default(),
                });
                let bpp = format.memory_bytes_per_pixel();
                let size = (SIZE * SIZE * bpp) as usize;
                let mut gpu = SimGpu::new(model);
                let buf = gpu.alloc(size as u64);
                let bytes: Vec<u8> = (0..size).map(|_| rng.next(256) as u8).collect();
                gpu.write(buf.va, &bytes);
                let pass = Pass {
                    color: Some(buf.va),
                    load: true,
                    linear,
                    ..Pass::default()
                };
                try_render_pass(&mut gpu, &scene, |_| {}, &pass)
                    .unwrap_or_else(|e| panic!("{format:?}: the pass must complete: {e}"));
                let after = gpu.read(buf.va, size);
                let quad = colour.map(|c| unorm8(c) as u8);
                let n = bpp as usize;
                for y in 0..SIZE {
                    for x in 0..SIZE {
                        let o = if linear {
                            (bpp * (y * SIZE + x)) as usize
                        } else {
                            u_interleaved_offset(x, y, u64::from(1024 * bpp), u64::from(bpp))
                                as usize
                        };
                        let inside = (10..33).contains(&x) && (20..37).contains(&y);
                        let want = match (inside, format) {
                            (false, _) => &bytes[o..o + n],
                            (true, ColorFormat::Rgba8Unorm) => &quad[..],
                            (true, _) => continue,
                        };
                        assert_eq!(
                            &after[o..o + n],
                            want,
                            "{model:?} {format:?} linear {linear}: pixel ({x}, {y})"
                        );
                    }
                }
            }
        }
    }
}

/// Frame shader modes we do not emit, a null frame-shader pointer and one
/// into unmapped memory fault the FRAGMENT job instead of being guessed.
#[test]
fn bad_frame_shader_modes_and_pointers_fault() {
    let (vs, fs) = rgba_shaders(bifrost_vk::compiler::bifrost::Arch::V7);
    let scene = preload_scene(&vs, &fs, &mut Rng(7), ColorFormat::Rgba8Unorm, 0, 2).0;
    // Word 0: Pre Frame 0 (bits 0–2), Pre Frame 1 (3–5), Post Frame
    // (6–8); words 6–7: Frame Shader DCDs (genxml "Framebuffer Parameters").
    let cases: [(&'static [(u64, u32)], u32); 6] = [
        // Pre Frame 0 Intersect, Early ZS always: JOB_CONFIG_FAULT.
        (&[(0, 2)], 0x40),
        (&[(0, 3)], 0x40),
        // Pre Frame 1 (see below) or a post-frame shader as well.
        // (Pre Frame 1 Always reads a second Draw that is zero here: a
        // null renderer state.)
        (&[(0, 1 | 1 << 3)], 0x40),
        (&[(0, 1 | 1 << 6)], 0x40),
        // A null DCD pointer.
        (&[(6, 0), (7, 0)], 0x40),
        // One into unmapped memory (64 GiB up): a read fault.
        (&[(6, 0), (7, 0x10)], 0x42),
    ];
    for (patch, status) in cases {
        let mut gpu = SimGpu::new(SimModel::G52);
        let buf = gpu.alloc(16 * 1024);
        let pass = Pass {
            color: Some(buf.va),
            load: true,
            patch_fbd: patch,
            ..Pass::default()
        };
        let err = match try_render_pass(&mut gpu, &scene, |_| {}, &pass) {
            Err(e) => e,
            Ok(_) => panic!("{patch:?}: the FRAGMENT job must fault"),
        };
        let fault = err.fault().unwrap_or_else(|| panic!("{patch:?}: {err}"));
        assert_eq!(fault.status, status, "{patch:?}: {err}");
    }
}

/// Five colour targets, four loaded from random contents: target 0 RGBA8
/// UNORM (random bytes; a quad drawn), R32UI and RGBA8UI (random bytes),
/// RGBA32F (random finite floats), and target 4 R8 UNORM cleared. The
/// draws write only target 0, so the loaded integer and float targets keep
/// every bit everywhere, the cleared one holds its clear colour, and
/// target 0 its bytes outside the quad; 32 bytes per pixel make the tiles
/// 8×8. Linear and Tiled target 0, G52 and G72.
#[test]
fn several_loaded_targets_of_other_types_keep_their_contents() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let more = [
        ColorFormat::R32Uint,
        ColorFormat::Rgba8Uint,
        ColorFormat::Rgba32Sfloat,
        ColorFormat::R8Unorm,
    ];
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let (vs, fs) = rgba_shaders(arch);
        for linear in [false, true] {
            let mut scene = preload_scene(&vs, &fs, &mut Rng(0), ColorFormat::Rgba8Unorm, 0, 0).0;
            scene.more_formats = more.to_vec();
            let colour = [0.2f32, 0.4, 0.6, 0.8];
            push_quad(&mut scene.data, 5, 9, 30, 40, &colour, true);
            scene.draws.push(DrawSpec {
                topology: Topology::TriangleList,
                count: 6,
                first: 0,
                indices: None,
                blend: Blend::Opaque,
                write_mask: 15,
                extras: DrawExtras::default(),
                raster: RasterState::default(),
            });
            let mut gpu = SimGpu::new(model);
            let mut fill = |gpu: &mut SimGpu, bytes: u32, float: bool| {
                let buf = gpu.alloc(u64::from(bytes));
                let data: Vec<u8> = if float {
                    (0..bytes / 4)
                        .flat_map(|_| {
                            let v = (rng.next(2_000_001) as f32 - 1_000_000.0) / 1024.0;
                            v.to_le_bytes()
                        })
                        .collect()
                } else {
                    (0..bytes).map(|_| rng.next(256) as u8).collect()
                };
                gpu.write(buf.va, &data);
                (buf.va, data)
            };
            let t0 = fill(&mut gpu, 16 * 1024, false);
            let mut mores = Vec::new();
            for (k, f) in more.iter().enumerate() {
                let bytes = 4096 * f.memory_bytes_per_pixel();
                mores.push((
                    fill(&mut gpu, bytes, *f == ColorFormat::Rgba32Sfloat),
                    k < 3,
                ));
            }
            let pass = Pass {
                color: Some(t0.0),
                load: true,
                linear,
                more: mores.iter().map(|((va, _), l)| (*va, *l)).collect(),
                ..Pass::default()
            };
            try_render_pass(&mut gpu, &scene, |_| {}, &pass)
                .unwrap_or_else(|e| panic!("{model:?}: the pass must complete: {e}"));
            let after = gpu.read(t0.0, 16 * 1024);
            let quad = colour.map(|c| unorm8(c) as u8);
            for y in 0..SIZE {
                for x in 0..SIZE {
                    let o = if linear {
                        (4 * (y * SIZE + x)) as usize
                    } else {
                        u_interleaved_offset(x, y, 4096, 4) as usize
                    };
                    let inside = (5..35).contains(&x) && (9..49).contains(&y);
                    let want = if inside { &quad[..] } else { &t0.1[o..o + 4] };
                    assert_eq!(&after[o..o + 4], want, "{model:?} target 0 ({x}, {y})");
                }
            }
            for (k, ((va, before), loaded)) in mores.iter().enumerate() {
                let after = gpu.read(*va, before.len());
                if *loaded {
                    assert!(after == *before, "{model:?} target {}: changed", k + 1);
                } else {
                    // R8 UNORM cleared to CLEAR's red: one byte per pixel.
                    let red = unorm8(CLEAR[0]) as u8;
                    assert!(
                        after.iter().all(|&b| b == red),
                        "{model:?} target {}: not the clear colour",
                        k + 1
                    );
                }
            }
        }
    }
}

/// Depth LOAD (`write_framebuffer_loaded` with `load_depth`: the depth
/// preload as pre-frame shader 1): pass 1 draws random opaque quads at
/// random depths with LESS and writes, storing colour and D32 depth; pass
/// 2 loads both and draws more quads at random depths with LESS (opaque
/// and blended), every quad at its own depth. Colour equals the reference
/// of all draws in one pass exactly, depth within 1e-6 (Tiled, G52 and v6
/// G72).
#[test]
fn a_loaded_depth_target_continues_the_previous_render_pass() {
    use bifrost_vk::compiler::bifrost::Arch as IsaArch;
    let mut rng = Rng(0xde97_4a11_0ad5_2026);
    for (model, arch) in [(SimModel::G52, IsaArch::V7), (SimModel::G72, IsaArch::V6)] {
        let (vs, fs) = rgba_shaders(arch);
        for _ in 0..2 {
            let (mut scene, first) =
                preload_scene(&vs, &fs, &mut rng, ColorFormat::Rgba8Unorm, 8, 8);
            // Each quad's six vertices at one depth k/64 (exact in f32),
            // no two quads at the same depth (no ties for LESS, which the
            // reference's f64 interpolation would break at random).
            let mut depths: Vec<u32> = (0..64).collect();
            for q in 0..scene.draws.len() {
                let k = depths.swap_remove(rng.next(depths.len() as u64) as usize);
                let z = k as f32 / 64.0;
                for v in 0..6 {
                    scene.data[(6 * q + v) * 8 + 2] = z;
                }
            }
            scene.depth = Some(DepthState {
                compare: CompareOp::Less,
                write: true,
            });
            let (want, _) = reference(&scene);
            let mut gpu = SimGpu::new(model);
            let colour = gpu.alloc(16 * 1024);
            let depth = gpu.alloc(16 * 1024);
            let mut pass1 = preload_scene(&vs, &fs, &mut Rng(0), ColorFormat::Rgba8Unorm, 0, 0).0;
            pass1.data = scene.data.clone();
            pass1.depth = scene.depth;
            pass1.draws = scene.draws[..first].to_vec();
            let mut pass2 = preload_scene(&vs, &fs, &mut Rng(0), ColorFormat::Rgba8Unorm, 0, 0).0;
            pass2.data = scene.data.clone();
            pass2.depth = scene.depth;
            pass2.draws = scene.draws[first..].to_vec();
            let mut pass = Pass {
                color: Some(colour.va),
                depth: Some(depth.va),
                ..Pass::default()
            };
            try_render_pass(&mut gpu, &pass1, |_| {}, &pass)
                .unwrap_or_else(|e| panic!("pass 1 must complete: {e}"));
            pass.load = true;
            pass.load_depth = true;
            let out = try_render_pass(&mut gpu, &pass2, |_| {}, &pass)
                .unwrap_or_else(|e| panic!("pass 2 must complete: {e}"));
            let got_depth = out.depth.as_ref().unwrap();
            let mut bad = Vec::new();
            for (i, &got) in out.codes.iter().enumerate() {
                let colour_ok = codes_equal(ColorFormat::Rgba8Unorm, got, want.color[i]);
                // Depth within 1e-6 of the reference's f64 interpolation
                // (the stored depths are the quads' exact k/64).
                if !colour_ok || (f64::from(got_depth[i]) - want.depth[i]).abs() > 1e-6 {
                    bad.push(format!(
                        "({}, {}): got {got:?} z {}, want {:?} z {}",
                        i as u32 % SIZE,
                        i as u32 / SIZE,
                        got_depth[i],
                        want.color[i],
                        want.depth[i]
                    ));
                }
            }
            assert!(
                bad.is_empty(),
                "{model:?}: {} pixels differ: {:?}",
                bad.len(),
                &bad[..bad.len().min(6)]
            );
        }
    }
}
