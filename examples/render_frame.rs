//! One frame through our graphics path on the simulated Mali-G52, written
//! as a PNG: two overlapping triangles (the near one green and drawn
//! first, the far one with a colour per vertex) with a D32 depth buffer
//! and depth test LESS, compiled from `tests/shaders/graphics/
//! clip_position.vert` and `tests/shaders/color_varying.frag` by our
//! compiler, drawn with `jm::graphics` VERTEX + TILER jobs and
//! `jm::framebuffer`'s FRAGMENT job, submitted as two chains (the second
//! with `JD_REQ_FS`), read back from the Tiled U-Interleaved attachment.
//!
//!     cargo run --example render_frame [OUT.png]
//!
//! Writes `target/render_frame.png` by default. The frame is checked in as
//! `tests/shaders/graphics/render_frame.expected.png`;
//! `tests/jm_graphics.rs` renders the same scene and compares it with that
//! file and with the Vulkan rules (`testing::raster`). Runs in process (no
//! loader): the Vulkan layer does not draw into attachments yet.

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
    Blend, ColorTargetState, CompareOp, DepthState, Draw, IndexBuffer, IndexType, Program,
    RasterState, Scissor, Topology, Viewport, add_draw,
};
use bifrost_vk::jm::vertex_input::Indexing;
use bifrost_vk::kmod::JD_REQ_FS;
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::kmod::sim::framebuffer::u_interleaved_offset;
use bifrost_vk::testing::SimGpu;

const VS: &[u8] = include_bytes!("../tests/shaders/graphics/clip_position.vert.spv");
const FS: &[u8] = include_bytes!("../tests/shaders/color_varying.frag.spv");
const SIZE: u32 = 64;

/// The scene (`tests/jm_graphics.rs` keeps a copy): per vertex a clip
/// position (x, y, z, w) and a colour; indices draw the near triangle
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

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/render_frame.png".into());
    match render() {
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

fn render() -> Result<Vec<u8>, String> {
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
    let (vs_lowered, vs) = compile(VS, Stage::Vertex)?;
    let (fs_lowered, fs) = compile(FS, Stage::Fragment)?;

    let mut gpu = SimGpu::new(SimModel::G52);
    let vs_code = gpu.upload(&vs);
    let fs_code = gpu.upload(&fs);
    let heap = gpu.alloc(1 << 20);
    let locations = gpu.alloc(4096);
    gpu.write_u32s(locations.va, &SampleLocations::single_sampled());
    let data: Vec<f32> = VERTICES.iter().flatten().copied().collect();
    let vb = gpu.alloc(4 * data.len() as u64);
    gpu.write_f32s(vb.va, &data);
    let ib = gpu.alloc(64);
    let index_bytes: Vec<u8> = INDICES.iter().flat_map(|i| i.to_le_bytes()).collect();
    gpu.write(ib.va, &index_bytes);
    let color = gpu.alloc(16 * 1024);
    let depth = gpu.alloc(16 * 1024);

    let mut frag_head = 0;
    gpu.run_chain(|chain, pool, arch| {
        let context = write_tiler_context(pool, SIZE, SIZE, 1, heap.va, heap.size)?;
        let attributes = write_attribute_tables_to_pool(
            pool,
            arch,
            &[AttributeBuffer {
                address: vb.va,
                size: 4 * data.len() as u64,
                stride: 28,
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
                    format: VertexFormat::new(ComponentType::F32, 3),
                    offset: 16,
                },
            ],
        )?;
        let targets = [ColorTargetState {
            format: ColorFormat::Rgba8Unorm,
            blend: Blend::Opaque,
            write_mask: 15,
        }];
        add_draw(
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
                count: INDICES.len() as u32,
                first_vertex: 0,
                indices: Some(IndexBuffer {
                    address: ib.va,
                    ty: IndexType::U16,
                    vertex_offset: 0,
                    min_index: 0,
                    max_index: 5,
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
        )?;
        // Clear colour (0.2, 0.4, 0.6, 1.0) as UNORM8 bytes 51, 102, 153, 255.
        let colors = [ColorTarget {
            sample_stride: None,
            format: ColorFormat::Rgba8Unorm,
            block: BlockFormat::TiledUInterleaved,
            base: color.va,
            row_stride: 4096,
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
                    row_stride: 4096,
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
            let o = u_interleaved_offset(x, y, 4096, 4) as usize;
            let i = ((y * SIZE + x) * 4) as usize;
            rgba[i..i + 4].copy_from_slice(&raw[o..o + 4]);
        }
    }
    Ok(rgba)
}
