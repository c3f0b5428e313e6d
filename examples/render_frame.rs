//! Frames through our graphics path on the simulated Mali-G52, written as
//! PNGs. Both are compiled by our compiler, drawn with `jm::graphics`
//! VERTEX + TILER jobs and `jm::framebuffer`'s FRAGMENT job, submitted as
//! two chains (the second with `JD_REQ_FS`), with a D32 depth buffer and
//! depth test LESS, and read back from the Tiled U-Interleaved attachment:
//!
//! - the default frame: two overlapping triangles (the near one green and
//!   drawn first, the far one with a colour per vertex and perspective),
//!   from `tests/shaders/graphics/clip_position.vert` and
//!   `tests/shaders/color_varying.frag`;
//! - `--textured`: a perspective floor (a quad with w from 1 to 2) between
//!   a near triangle drawn first and a far one drawn last that the floor
//!   hides in part, all three sampling a procedural 32×32 checkerboard
//!   (bilinear, repeat, Tiled U-Interleaved) times an interpolated colour,
//!   from `tests/shaders/graphics/clip_uv.vert` and `textured_b9.frag`
//!   (`texture(tex, v_uv) * v_color`, a combined image sampler at binding
//!   9).
//!
//!     cargo run --example render_frame [--textured] [OUT.png]
//!
//! Writes `target/render_frame.png` (or `target/render_frame_textured.png`)
//! by default. The frames are checked in as
//! `tests/shaders/graphics/render_frame.expected.png` and
//! `render_frame_textured.expected.png`; `tests/jm_graphics.rs` renders the
//! same scenes and compares them with those files and with the Vulkan
//! rules (`testing::raster`, and `testing::sampler` for the texture). Runs
//! in process (no loader): the Vulkan layer does not draw into attachments
//! yet.

use bifrost_vk::compiler::bifrost::{Options, compile_optimized};
use bifrost_vk::compiler::ir::Stage;
use bifrost_vk::compiler::pipeline::{compile_front, lower_for_tiler};
use bifrost_vk::hw::format::{ComponentType, VertexFormat};
use bifrost_vk::jm::JobChain;
use bifrost_vk::jm::attributes::{
    AttributeBuffer, AttributeRecord, write_attribute_tables_to_pool,
};
use bifrost_vk::jm::framebuffer::{
    BlockFormat, ColorFormat, ColorTarget, DepthTarget, Framebuffer, SampleLocations,
    add_fragment_job, write_framebuffer, write_tiler_context,
};
use bifrost_vk::jm::graphics::{
    Blend, ColorTargetState, CompareOp, DepthState, Draw, DrawExtras, IndexBuffer, IndexType,
    Program, RasterState, Scissor, Topology, Viewport, add_draw_with,
};
use bifrost_vk::jm::texture::{
    SamplerDesc, TexelFormat, TexelLayout, TextureDesc, WrapMode, write_texture_tables,
};
use bifrost_vk::jm::vertex_input::Indexing;
use bifrost_vk::kmod::JD_REQ_FS;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::kmod::sim::framebuffer::u_interleaved_offset;
use bifrost_vk::testing::SimGpu;

const SIZE: u32 = 64;

/// The default frame (`tests/jm_graphics.rs` keeps a copy): per vertex a
/// clip position (x, y, z, w) and a colour; indices draw the near triangle
/// first.
pub const VERTICES: [[f32; 7]; 6] = [
    [-0.875, -0.875, 0.75, 1.0, 1.0, 0.0, 0.0],
    [1.25, -0.5, 1.5, 2.0, 0.0, 1.0, 0.0],
    [-0.875, 0.59375, 0.75, 1.0, 0.0, 0.0, 1.0],
    [-0.5, -0.5, 0.25, 1.0, 0.0, 1.0, 0.0],
    [0.875, -0.25, 0.25, 1.0, 0.0, 1.0, 0.0],
    [-0.25, 0.90625, 0.25, 1.0, 0.0, 1.0, 0.0],
];
pub const INDICES: [u16; 6] = [3, 4, 5, 0, 1, 2];

/// The textured frame (`tests/jm_graphics.rs` keeps a copy): per vertex a
/// clip position (x, y, z, w) and (u, v, g, a), which `clip_uv.vert` turns
/// into v_uv = (u, v) and v_color = (1, g, 1 − g, a). Vertices 0–3: the
/// floor, NDC depth 0.4 at its near edge (w = 1) and 0.8 at its far edge
/// (w = 2); 4–6: a triangle at depth 0.2 in front of it; 7–9: a triangle
/// at depth 0.9 (w from 1 to 1.5) behind both.
pub const TEXTURED_VERTICES: [[f32; 8]; 10] = [
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
/// The near triangle, the floor, the far triangle: depth test LESS keeps
/// the near triangle over the floor and hides the far one behind both.
pub const TEXTURED_INDICES: [u16; 12] = [4, 5, 6, 0, 1, 2, 2, 1, 3, 7, 8, 9];
/// The binding (set 0) `textured_b9.frag` samples.
pub const TEXTURE_BINDING: usize = 9;

/// The textured frame's 32×32 RGBA8 texture, row after row: a
/// checkerboard of 8×8-texel squares, light squares off-white, dark ones a
/// gradient.
pub fn checkerboard() -> Vec<[u8; 4]> {
    (0..32 * 32)
        .map(|i| {
            let (x, y) = (i % 32, i / 32);
            if (x / 8 + y / 8) % 2 == 0 {
                [240, 236, 224, 255]
            } else {
                [(40 + 5 * x) as u8, (60 + 4 * y) as u8, 150, 255]
            }
        })
        .collect()
}

/// What a frame draws: one indexed triangle list with one vertex buffer
/// of f32 attributes, depth test LESS with writes, one RGBA8 target.
struct Frame<'a> {
    vertex_spirv: &'a [u8],
    fragment_spirv: &'a [u8],
    vertices: &'a [f32],
    /// Bytes between vertices; per attribute (location order) its f32
    /// components and byte offset.
    stride: u32,
    attributes: &'a [(u8, u32)],
    indices: &'a [u16],
    /// An RGBA8 texture (width, height, texels row after row) with a
    /// bilinear, repeating sampler at `TEXTURE_BINDING`.
    texture: Option<(u32, u32, Vec<[u8; 4]>)>,
}

fn main() {
    let mut textured = false;
    let mut out = None;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--textured" => textured = true,
            _ => out = Some(arg),
        }
    }
    let (frame, default_out) = if textured {
        (
            Frame {
                vertex_spirv: include_bytes!("../tests/shaders/graphics/clip_uv.vert.spv"),
                fragment_spirv: include_bytes!("../tests/shaders/graphics/textured_b9.frag.spv"),
                vertices: TEXTURED_VERTICES.as_flattened(),
                stride: 32,
                attributes: &[(4, 0), (4, 16)],
                indices: &TEXTURED_INDICES,
                texture: Some((32, 32, checkerboard())),
            },
            "target/render_frame_textured.png",
        )
    } else {
        (
            Frame {
                vertex_spirv: include_bytes!("../tests/shaders/graphics/clip_position.vert.spv"),
                fragment_spirv: include_bytes!("../tests/shaders/color_varying.frag.spv"),
                vertices: VERTICES.as_flattened(),
                stride: 28,
                attributes: &[(4, 0), (3, 16)],
                indices: &INDICES,
                texture: None,
            },
            "target/render_frame.png",
        )
    };
    let out = out.unwrap_or_else(|| default_out.into());
    match render(&frame) {
        Ok(rgba) => {
            if let Err(e) =
                bifrost_vk::testing::png::write_rgba8(std::path::Path::new(&out), SIZE, SIZE, &rgba)
            {
                eprintln!("cannot write {out}: {e}");
                std::process::exit(1);
            }
            let clear = [51u8, 102, 153, 255];
            let covered = rgba.chunks(4).filter(|p| *p != clear).count();
            println!("{out}: {SIZE}x{SIZE}, {covered} pixels drawn");
        }
        Err(e) => {
            eprintln!("render_frame: {e}");
            std::process::exit(1);
        }
    }
}

/// Bytes per row of 16×16 tiles of a Tiled U-Interleaved RGBA8 surface
/// `width` texels wide.
fn tiled_row_stride(width: u32) -> u32 {
    width.div_ceil(16) * 16 * 16 * 4
}

fn render(frame: &Frame<'_>) -> Result<Vec<u8>, String> {
    let compile = |spv: &[u8], stage| -> Result<_, String> {
        let front =
            compile_front(spv, "main", stage, &Default::default()).map_err(|e| e.to_string())?;
        let mut lowered = front.main;
        if stage == Stage::Vertex {
            lower_for_tiler(&mut lowered).map_err(|e| e.to_string())?;
        }
        let binary = compile_optimized(
            &lowered.shader,
            Options {
                push_uniform_words: Some(lowered.push_uniforms.fau_words()),
                ..Options::default()
            },
        )
        .map_err(|e| e.to_string())?;
        Ok((lowered, binary))
    };
    let (vs_lowered, vs) = compile(frame.vertex_spirv, Stage::Vertex)?;
    let (fs_lowered, fs) = compile(frame.fragment_spirv, Stage::Fragment)?;

    let mut gpu = SimGpu::new(SimModel::G52);
    let vs_code = gpu.upload(&vs);
    let fs_code = gpu.upload(&fs);
    let heap = gpu.alloc(1 << 20);
    let locations = gpu.alloc(4096);
    gpu.write_u32s(locations.va, &SampleLocations::single_sampled());
    let vb_bytes = 4 * frame.vertices.len() as u64;
    let vb = gpu.alloc(vb_bytes);
    gpu.write_f32s(vb.va, frame.vertices);
    let ib = gpu.alloc(2 * frame.indices.len() as u64);
    let index_bytes: Vec<u8> = frame.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
    gpu.write(ib.va, &index_bytes);
    let max_index = frame.indices.iter().copied().max().unwrap_or(0);
    let row_stride = tiled_row_stride(SIZE);
    let color = gpu.alloc(u64::from(row_stride * SIZE.div_ceil(16)));
    let depth = gpu.alloc(u64::from(row_stride * SIZE.div_ceil(16)));

    // The texture: Tiled U-Interleaved texels and the texture and sampler
    // tables' entries (binding n of set 0 at entry n, `jm::texture`).
    let texture = match &frame.texture {
        Some((width, height, texels)) => {
            let stride = tiled_row_stride(*width);
            let buf = gpu.alloc(u64::from(stride * height.div_ceil(16)));
            for (i, texel) in texels.iter().enumerate() {
                let (x, y) = (i as u32 % width, i as u32 / width);
                gpu.write(
                    buf.va + u_interleaved_offset(x, y, u64::from(stride), 4),
                    texel,
                );
            }
            let mut textures = vec![None; TEXTURE_BINDING + 1];
            let mut samplers = vec![None; TEXTURE_BINDING + 1];
            textures[TEXTURE_BINDING] = Some(TextureDesc {
                dim: Default::default(),
                address: buf.va,
                width: *width,
                height: *height,
                row_stride: stride,
                layout: TexelLayout::Tiled,
                format: TexelFormat::Rgba8Unorm,
                layers: 1,
                layer_stride: 0,
                levels: 1,
                mips: Default::default(),
            });
            samplers[TEXTURE_BINDING] = Some(SamplerDesc {
                linear: true,
                wrap: [WrapMode::Repeat; 2],
                border: [0.0; 4],
                lod: Default::default(),
            });
            Some((textures, samplers))
        }
        None => None,
    };

    let mut frag_head = 0;
    gpu.run_chain(|chain, pool, arch| {
        let context = write_tiler_context(pool, SIZE, SIZE, 1, heap.va, heap.size)?;
        let records: Vec<AttributeRecord> = frame
            .attributes
            .iter()
            .map(|&(components, offset)| AttributeRecord {
                buffer: 0,
                format: VertexFormat::new(ComponentType::F32, components),
                offset,
            })
            .collect();
        let attributes = write_attribute_tables_to_pool(
            pool,
            arch,
            &[AttributeBuffer {
                address: vb.va,
                size: vb_bytes,
                stride: frame.stride,
                indexing: Indexing::Linear,
            }],
            &records,
        )?;
        let textures = match &texture {
            Some((t, s)) => Some(write_texture_tables(pool, arch, t, s)?),
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
                    binary: &vs,
                    code: vs_code,
                    lowered: &vs_lowered,
                    buffers: &[],
                },
                fragment: Program {
                    binary: &fs,
                    code: fs_code,
                    lowered: &fs_lowered,
                    buffers: &[],
                },
                attributes,
                push_constants: &[],
                push_constants_address: 0,
                topology: Topology::TriangleList,
                count: frame.indices.len() as u32,
                first_vertex: 0,
                indices: Some(IndexBuffer {
                    address: ib.va,
                    ty: IndexType::U16,
                    vertex_offset: 0,
                    min_index: 0,
                    max_index: u32::from(max_index),
                    restart: false,
                }),
                raster: RasterState::default(),
                depth: Some(DepthState {
                    compare: CompareOp::Less,
                    write: true,
                }),
                targets: &targets,
                viewport: Viewport {
                    x: 0.0,
                    y: 0.0,
                    width: SIZE as f32,
                    height: SIZE as f32,
                    min_depth: 0.0,
                    max_depth: 1.0,
                },
                scissor: Scissor {
                    x: 0,
                    y: 0,
                    width: SIZE,
                    height: SIZE,
                },
                tiler_context: context,
                previous_tiler: 0,
            },
            &DrawExtras {
                textures,
                ..DrawExtras::default()
            },
        )?;
        // Clear colour (0.2, 0.4, 0.6, 1.0) as UNORM8 bytes 51, 102, 153, 255.
        let colors = [ColorTarget {
            sample_stride: None,
            format: ColorFormat::Rgba8Unorm,
            block: BlockFormat::TiledUInterleaved,
            base: color.va,
            row_stride,
            clear: Some([0xff99_6633; 4]),
        }];
        let pointer = write_framebuffer(
            pool,
            arch,
            &Framebuffer {
                width: SIZE,
                height: SIZE,
                colors: &colors,
                depth: Some(DepthTarget {
                    sample_stride: None,
                    block: BlockFormat::TiledUInterleaved,
                    base: depth.va,
                    row_stride,
                    clear: 1.0,
                    write: true,
                }),
                tiler_context: context,
                samples: 1,
                sample_locations: locations.va,
            },
        )?;
        let mut frag = JobChain::new();
        add_fragment_job(&mut frag, pool, pointer, SIZE, SIZE, [0, 0])?;
        frag_head = frag.head();
        Ok(true)
    })
    .map_err(|e| format!("vertex/tiler chain: {e}"))?;
    gpu.submit_with(frag_head, JD_REQ_FS)
        .map_err(|e| format!("fragment chain: {e}"))?;

    let raw = gpu.read(color.va, (SIZE * SIZE * 4) as usize);
    let mut rgba = vec![0u8; raw.len()];
    for y in 0..SIZE {
        for x in 0..SIZE {
            let o = u_interleaved_offset(x, y, u64::from(row_stride), 4) as usize;
            let i = ((y * SIZE + x) * 4) as usize;
            rgba[i..i + 4].copy_from_slice(&raw[o..o + 4]);
        }
    }
    Ok(rgba)
}
