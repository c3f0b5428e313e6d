//! Texture instructions compiled by our backend (`TEXS_2D`, `TEXC`) run on
//! the simulated G52 (v7) and G72 (v6) with texture and sampler descriptors
//! written by `jm::texture`, against `testing::sampler` (the reference
//! sampler written from the Vulkan spec, sharing nothing with the
//! simulator's texture unit).
//!
//! `texture_lod.comp` (tests/shaders) samples a combined image sampler with
//! `textureLod` at a random LOD (TEXC, explicit LOD), a separate image and
//! sampler at LOD 0 (TEXS_2D, zero LOD) and fetches a texel (TEXC, FETCH),
//! for 32 random coordinates in [-1.5, 2.5]² (every eighth one multiplied
//! by 10^30 on one axis), under every core wrap mode and both filters,
//! over NPOT textures in Linear and Tiled layouts, RGBA8 UNORM and (every
//! other case, the second image) sRGB.
//!
//! Bound: nearest filtering and fetches are exact; linear results within
//! 2^-22 absolute. Both compute the spec's weights in f64; the simulator
//! converts each texel to f32 before weighting (c / 255 rounded once, at
//! most 2^-25 off) and both round the sum to f32 once (2^-25 each): at
//! most 3 · 2^-25 < 2^-22 apart.

use std::collections::HashMap;

use bifrost_vk::compiler::bifrost::binary::{BUFFER_SIZE_WORD, ShaderBinary};
use bifrost_vk::compiler::bifrost::{Options, compile};
use bifrost_vk::compiler::ir::Stage;
use bifrost_vk::compiler::passes::lower_sysvals;
use bifrost_vk::compiler::spirv;
use bifrost_vk::hw::Arch;
use bifrost_vk::jm::compute::add_compute_job_with_textures;
use bifrost_vk::jm::texture::{
    MipLevel, MipmapMode, SamplerDesc, SamplerLod, TexelFormat, TexelLayout, TextureDesc,
    TextureDim, WrapMode, write_texture_tables,
};
use bifrost_vk::jm::{AttributeTables, ComputeJob, GpuPool, JmResult, JobChain};
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::sampler::storage::{self, StorageFormat};
use bifrost_vk::testing::sampler::{
    AddressMode, Bindings, BorderColor, Image, ImageFormat, Sampler,
};
use bifrost_vk::testing::{Buffer, SimGpu};

const INVOCATIONS: u32 = 32;

/// The Texture and Sampler tables of `textures` and `samplers` and one
/// COMPUTE job of `groups` workgroups of 16 invocations running the
/// uploaded `binary` with its push-uniform `words` and those tables (the
/// job's index in the chain).
fn textured_dispatch(
    chain: &mut JobChain,
    pool: &mut GpuPool,
    arch: Arch,
    (binary, code, words): (&ShaderBinary, u64, &[u64]),
    textures: &[Option<TextureDesc>],
    samplers: &[Option<SamplerDesc>],
    groups: u32,
) -> JmResult<u16> {
    let tables = write_texture_tables(pool, arch, textures, samplers)?;
    let job = ComputeJob {
        binary,
        code,
        push_uniforms: words,
        local_size: [16, 1, 1],
        groups: [groups, 1, 1],
        ubos: &[],
        attributes: None::<AttributeTables>,
        push_buffer: None,
    };
    add_compute_job_with_textures(chain, pool, arch, &job, Some(tables), [0, 0])
}

/// Runs `binary` over `INVOCATIONS` invocations in one dispatch
/// ([`textured_dispatch`]) with `queries` bound at (set 0, binding 3) and
/// an `out_bytes` output buffer, filled with 0xee canaries first, at
/// (0, 4); returns the output buffer.
fn dispatch_queries(
    gpu: &mut SimGpu,
    binary: &ShaderBinary,
    queries: &[u8],
    out_bytes: u64,
    textures: &[Option<TextureDesc>],
    samplers: &[Option<SamplerDesc>],
) -> Result<Buffer, String> {
    dispatch_sized_queries(gpu, binary, queries, out_bytes, None, textures, samplers)
}

/// [`dispatch_queries`] with texture 0's size word (`TEXTURE_SIZE_WORD`)
/// for the shaders that query or need it.
fn dispatch_sized_queries(
    gpu: &mut SimGpu,
    binary: &ShaderBinary,
    queries: &[u8],
    out_bytes: u64,
    size_word: Option<u64>,
    textures: &[Option<TextureDesc>],
    samplers: &[Option<SamplerDesc>],
) -> Result<Buffer, String> {
    use bifrost_vk::compiler::bifrost::binary::TEXTURE_SIZE_WORD;
    let qbuf = gpu.alloc(queries.len() as u64);
    gpu.write(qbuf.va, queries);
    let obuf = gpu.alloc(out_bytes);
    gpu.write(obuf.va, &vec![0xee; out_bytes as usize]);
    let words = fau_words(binary, |b| match (b, size_word) {
        ((s, 0), Some(w)) if s == TEXTURE_SIZE_WORD => (w, 0),
        ((0, 3), _) => (qbuf.va, queries.len() as u64),
        ((0, 4), _) => (obuf.va, out_bytes),
        _ => panic!("unexpected binding {b:?}"),
    });
    let code = gpu.upload(binary);
    gpu.run_chain(|chain, pool, arch| {
        textured_dispatch(
            chain,
            pool,
            arch,
            (binary, code, &words),
            textures,
            samplers,
            INVOCATIONS / 16,
        )?;
        Ok(true)
    })
    .map_err(|e| e.to_string())?;
    Ok(obuf)
}

/// Appends one 32-byte query of the texture-lookup shaders: (s, t), the
/// LOD and a pad word, then the texel coordinates and two pad words.
fn push_query(queries: &mut Vec<u8>, st: [f32; 2], lod: f32, texel: [i32; 2]) {
    for w in [st[0].to_bits(), st[1].to_bits(), lod.to_bits(), 0] {
        queries.extend_from_slice(&w.to_le_bytes());
    }
    for w in [texel[0], texel[1], 0, 0] {
        queries.extend_from_slice(&w.to_le_bytes());
    }
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn shader_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/shaders")
        .join(name)
}

fn compile_for(model: SimModel) -> ShaderBinary {
    compile_named("texture_lod.comp.spv", model)
}

fn compile_named(name: &str, model: SimModel) -> ShaderBinary {
    let bytes = std::fs::read(shader_path(name)).unwrap();
    let mut s = spirv::parse(&bytes, "main", Stage::Compute, &HashMap::new()).unwrap();
    lower_sysvals(&mut s);
    compile(
        &s,
        Options {
            arch: model.arch().into(),
            push_uniform_words: None,
            ..Options::default()
        },
    )
    .unwrap()
}

/// The byte offset of texel (x, y) in a Tiled (16×16 u-interleaved)
/// surface of `row_stride` bytes per row of tiles, 4 bytes per texel: in a
/// tile, bit i of x ^ y at bit 2i of the texel index and bit i of y at
/// bit 2i + 1 (Mesa's `src/panfrost/lib/pan_tiling.c`); tiles row-major.
fn tiled_offset(x: u32, y: u32, row_stride: u64) -> u64 {
    let (tx, ty) = (x / 16, y / 16);
    let (lx, ly) = (x % 16, y % 16);
    let x1 = lx ^ ly;
    let mut index = 0u32;
    for bit in 0..4 {
        index |= ((x1 >> bit) & 1) << (2 * bit);
        index |= ((ly >> bit) & 1) << (2 * bit + 1);
    }
    u64::from(ty) * row_stride + u64::from(tx) * 16 * 16 * 4 + u64::from(index) * 4
}

/// One image of `w`×`h` random texels in GPU memory, in `layout`.
fn upload(
    gpu: &mut SimGpu,
    rng: &mut Rng,
    w: u32,
    h: u32,
    layout: TexelLayout,
    format: ImageFormat,
) -> (Image, TextureDesc) {
    let texels: Vec<[u8; 4]> = (0..w * h)
        .map(|_| {
            let v = rng.next();
            [v as u8, (v >> 8) as u8, (v >> 16) as u8, (v >> 24) as u8]
        })
        .collect();
    let (row_stride, size) = match layout {
        TexelLayout::Linear => (4 * w, u64::from(4 * w * h)),
        TexelLayout::Tiled => {
            let rs = 16 * 4 * w.next_multiple_of(16);
            (rs, u64::from(rs) * u64::from(h.div_ceil(16)))
        }
    };
    let buf = gpu.alloc(size);
    for y in 0..h {
        for x in 0..w {
            let off = match layout {
                TexelLayout::Linear => u64::from(y * row_stride + 4 * x),
                TexelLayout::Tiled => tiled_offset(x, y, u64::from(row_stride)),
            };
            gpu.write(buf.va + off, &texels[(y * w + x) as usize]);
        }
    }
    let image = Image {
        width: w,
        height: h,
        texels,
        format,
    };
    let desc = TextureDesc {
        dim: Default::default(),
        layers: 1,
        layer_stride: 0,
        levels: 1,
        mips: Default::default(),
        address: buf.va,
        width: w,
        height: h,
        row_stride,
        layout,
        format: texel_format(format),
    };
    (image, desc)
}

/// The `jm::texture` format of a reference image format.
fn texel_format(format: ImageFormat) -> TexelFormat {
    match format {
        ImageFormat::Rgba8Unorm => TexelFormat::Rgba8Unorm,
        ImageFormat::Rgba8Srgb => TexelFormat::Rgba8Srgb,
        ImageFormat::Rgba8Uint => TexelFormat::Rgba8Uint,
        ImageFormat::Rgba8Sint => TexelFormat::Rgba8Sint,
        ImageFormat::R32Sfloat => TexelFormat::R32Sfloat,
        ImageFormat::R8Unorm => TexelFormat::R8Unorm,
        ImageFormat::R8g8Unorm => TexelFormat::Rg8Unorm,
        ImageFormat::A2b10g10r10UnormPack32 => TexelFormat::A2b10g10r10UnormPack32,
        ImageFormat::R5g6b5UnormPack16 => TexelFormat::R5g6b5UnormPack16,
        ImageFormat::R16g16b16a16Sfloat => TexelFormat::Rgba16Sfloat,
        ImageFormat::R32g32b32a32Sfloat => TexelFormat::Rgba32Sfloat,
        ImageFormat::R16Sfloat => TexelFormat::R16Sfloat,
        ImageFormat::R16g16Sfloat => TexelFormat::Rg16Sfloat,
        ImageFormat::R32g32Sfloat => TexelFormat::Rg32Sfloat,
        ImageFormat::R8Snorm => TexelFormat::R8Snorm,
        ImageFormat::R8g8Snorm => TexelFormat::Rg8Snorm,
        ImageFormat::R8g8b8a8Snorm => TexelFormat::Rgba8Snorm,
        ImageFormat::B8g8r8a8Unorm => TexelFormat::Bgra8Unorm,
        ImageFormat::B10g11r11UfloatPack32 => TexelFormat::B10g11r11UfloatPack32,
        ImageFormat::R16g16Uint => TexelFormat::Rg16Uint,
        ImageFormat::R16g16Sint => TexelFormat::Rg16Sint,
        ImageFormat::R32Uint => TexelFormat::R32Uint,
        ImageFormat::R32Sint => TexelFormat::R32Sint,
    }
}

fn to_hw(mode: AddressMode) -> WrapMode {
    match mode {
        AddressMode::Repeat => WrapMode::Repeat,
        AddressMode::MirroredRepeat => WrapMode::MirroredRepeat,
        AddressMode::ClampToEdge => WrapMode::ClampToEdge,
        AddressMode::ClampToBorder => WrapMode::ClampToBorder,
    }
}

fn hw_sampler(s: &Sampler) -> SamplerDesc {
    SamplerDesc {
        linear: s.mag_linear,
        wrap: s.address.map(to_hw),
        border: s.border.rgba(),
        lod: Default::default(),
    }
}

/// A reference sampler's hardware twin with its LOD state (filters, mipmap
/// mode, clamps, bias) and `compare`.
fn hw_mip_sampler(
    s: &Sampler,
    compare: Option<bifrost_vk::jm::graphics::CompareOp>,
) -> SamplerDesc {
    SamplerDesc {
        lod: SamplerLod {
            wrap_r: None,
            min_linear: Some(s.min_linear),
            mipmap: if s.mipmap_linear {
                MipmapMode::Linear
            } else {
                MipmapMode::Nearest
            },
            min_lod: s.min_lod,
            max_lod: s.max_lod,
            bias: s.lod_bias,
            compare,
        },
        ..hw_sampler(s)
    }
}

/// Makes `d` (an uploaded level) the next mip level of `desc`: the first
/// becomes the descriptor, later ones its further levels.
fn add_level(desc: &mut Option<TextureDesc>, d: TextureDesc) {
    match desc.as_mut() {
        None => *desc = Some(d),
        Some(base) => {
            base.mips[base.levels as usize - 1] = MipLevel {
                slice_stride: 0,
                address: d.address,
                row_stride: d.row_stride,
            };
            base.levels += 1;
        }
    }
}

/// The push-uniform words of `binary` with the buffers at `address(binding)`.
fn fau_words(binary: &ShaderBinary, address: impl Fn((u32, u32)) -> (u64, u64)) -> Vec<u64> {
    let base = binary.uniform_words as usize - binary.buffers.len();
    let mut words = vec![0u64; base];
    for &(set, binding) in &binary.buffers {
        words.push(if set & BUFFER_SIZE_WORD != 0 {
            address((set & !BUFFER_SIZE_WORD, binding)).1
        } else {
            address((set, binding)).0
        });
    }
    words
}

/// Runs the shader over two textures and two samplers; returns how many
/// components were compared.
fn run_case(
    model: SimModel,
    binary: &ShaderBinary,
    seed: u64,
    samplers: [Sampler; 2],
    layout: TexelLayout,
) -> usize {
    let mut rng = Rng(seed);
    let mut gpu = SimGpu::new(model);
    // The second image in sRGB for odd seeds (RGB decoded by the sRGB EOTF).
    let (img_a, desc_a) = upload(&mut gpu, &mut rng, 5, 3, layout, ImageFormat::Rgba8Unorm);
    let (img_b, desc_b) = upload(
        &mut gpu,
        &mut rng,
        7,
        18,
        layout,
        if seed % 2 == 1 {
            ImageFormat::Rgba8Srgb
        } else {
            ImageFormat::Rgba8Unorm
        },
    );
    let mut reference = Bindings::default();
    reference.images.insert((0, 0), img_a.clone());
    reference.images.insert((0, 1), img_b.clone());
    reference.samplers.insert((0, 0), samplers[0]);
    reference.samplers.insert((0, 2), samplers[1]);

    // Queries: st, lod, pad, texel, pad (32 bytes each).
    let mut queries = Vec::new();
    let mut want = Vec::new();
    for q in 0..INVOCATIONS {
        let mut st = [rng.unit() * 4.0 - 1.5, rng.unit() * 4.0 - 1.5];
        // A few huge coordinates (the wrap of an index far beyond i64).
        if q % 8 == 7 {
            st[(q / 8 % 2) as usize] *= 1e30;
        }
        let lod = rng.unit() * 3.0;
        let texel = [(rng.next() % 5) as i32, (rng.next() % 3) as i32];
        push_query(&mut queries, st, lod, texel);
        want.push(
            reference
                .sample(&img_a, &samplers[0], st[0], st[1], Some(lod))
                .unwrap(),
        );
        want.push(
            reference
                .sample(&img_b, &samplers[1], st[0], st[1], Some(0.0))
                .unwrap(),
        );
        want.push(reference.fetch(&img_a, texel[0], texel[1], 0).unwrap());
    }
    let textures = [Some(desc_a), Some(desc_b)];
    let hw_samplers = [
        Some(hw_sampler(&samplers[0])),
        None,
        Some(hw_sampler(&samplers[1])),
    ];
    let obuf = dispatch_queries(
        &mut gpu,
        binary,
        &queries,
        u64::from(INVOCATIONS) * 48,
        &textures,
        &hw_samplers,
    )
    .unwrap_or_else(|e| panic!("{model:?}: {e}"));
    let got = gpu.read_f32s(obuf.va, (INVOCATIONS * 12) as usize);
    let linear = [samplers[0].mag_linear, samplers[1].mag_linear];
    for (i, (g, w)) in got.chunks(4).zip(&want).enumerate() {
        let which = i % 3;
        let exact = which == 2 || !linear[which];
        for c in 0..4 {
            let ok = if exact {
                g[c] == w[c]
            } else {
                (f64::from(g[c]) - f64::from(w[c])).abs() <= 2f64.powi(-22)
            };
            assert!(
                ok,
                "{model:?} seed {seed} {layout:?} {samplers:?}: invocation {} result {which} component {c}: sim {:?} reference {:?}",
                i / 3,
                g,
                w
            );
        }
    }
    got.len()
}

#[test]
fn texture_lod_and_texel_fetch_match_the_reference_sampler() {
    let mut compared = 0;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_for(model);
        let mut seed = 1;
        for mode in AddressMode::ALL {
            for linear in [false, true] {
                for layout in [TexelLayout::Linear, TexelLayout::Tiled] {
                    let mut a = Sampler::simple(linear, mode);
                    a.border = BorderColor::OpaqueWhite;
                    // The second sampler: the other filter, U and V modes
                    // different, transparent black border.
                    let mut b = Sampler::simple(!linear, mode);
                    b.address[1] = AddressMode::ALL[(seed as usize) % 4];
                    seed += 1;
                    compared += run_case(model, &binary, seed, [a, b], layout);
                }
            }
        }
    }
    // 2 GPUs × 4 modes × 2 filters × 2 layouts × 32 invocations × 12 components.
    assert_eq!(compared, 2 * 4 * 2 * 2 * 32 * 12);
}

#[test]
fn the_compiled_shader_uses_texc_and_texs() {
    let binary = compile_for(SimModel::G52);
    let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code).unwrap();
    assert_eq!(text.matches("+TEXC ").count(), 2, "{text}");
    assert_eq!(text.matches("+TEXS_2D.f32 ").count(), 1, "{text}");
    assert!(text.contains("texture_index:1, sampler_index:2"), "{text}");
}

#[test]
fn a_missing_texture_descriptor_faults_the_job() {
    let model = SimModel::G52;
    let binary = compile_for(model);
    let mut gpu = SimGpu::new(model);
    let code = gpu.upload(&binary);
    let words = vec![0u64; binary.uniform_words as usize];
    let r = gpu.run_chain(|chain, pool, arch| {
        // One texture only: the shader's binding 1 is past the table.
        let desc = TextureDesc {
            dim: Default::default(),
            layers: 1,
            layer_stride: 0,
            levels: 1,
            mips: Default::default(),
            address: 0x1000,
            width: 1,
            height: 1,
            row_stride: 4,
            layout: TexelLayout::Linear,
            format: TexelFormat::Rgba8Unorm,
        };
        let smp = SamplerDesc {
            linear: false,
            wrap: [WrapMode::Repeat; 2],
            border: [0.0; 4],
            lod: Default::default(),
        };
        textured_dispatch(
            chain,
            pool,
            arch,
            (&binary, code, &words),
            &[Some(desc)],
            &[Some(smp)],
            1,
        )?;
        Ok(true)
    });
    let e = r.expect_err("the job must fault");
    assert!(format!("{e}").to_lowercase().contains("fault"), "{e}");
    // The GPU carries on.
    assert!(gpu.run_chain(|_, _, _| Ok(false)).unwrap().is_none());
}

/// `texture_int.comp`: texelFetch and nearest textureLod (LOD 0: TEXC LOD
/// ZERO; LOD 1.5: TEXC EXPLICIT) of RGBA8UI and RGBA8I textures (U32 and
/// S32 results: zero- and sign-extended bytes) under Repeat, Mirrored
/// Repeat and Clamp to Edge, on G52 and G72: every word exactly the
/// reference sampler's.
#[test]
fn integer_textures_match_the_reference_sampler() {
    let compared = integer_textures_match(ImageFormat::Rgba8Uint, ImageFormat::Rgba8Sint);
    eprintln!("{compared} integer texture words compared");
}

/// The same with RG16UI/RG16I (RG01) and R32UI/R32I (R001) textures
/// (2026-11-28, `gfx-fmt`): every word exactly the reference sampler's
/// (16-bit components zero- or sign-extended, absent G, B 0 and A the
/// integer 1).
#[test]
fn rg16_and_r32_integer_textures_match_the_reference_sampler() {
    let compared = integer_textures_match(ImageFormat::R16g16Uint, ImageFormat::R16g16Sint)
        + integer_textures_match(ImageFormat::R32Uint, ImageFormat::R32Sint);
    eprintln!("{compared} integer texture words compared");
}

/// `texture_int.comp` over a `unsigned` and a `signed` texture (see
/// `integer_textures_match_the_reference_sampler`); returns the words
/// compared.
fn integer_textures_match(unsigned: ImageFormat, signed: ImageFormat) -> usize {
    let mut compared = 0;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("texture_int.comp.spv", model);
        let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code).unwrap();
        assert_eq!(text.matches("+TEXC ").count(), 4, "{text}");
        for (k, mode) in [
            AddressMode::Repeat,
            AddressMode::MirroredRepeat,
            AddressMode::ClampToEdge,
        ]
        .into_iter()
        .enumerate()
        {
            let mut rng = Rng(0x1_0000 + k as u64);
            let mut gpu = SimGpu::new(model);
            let layout = if k == 1 {
                TexelLayout::Tiled
            } else {
                TexelLayout::Linear
            };
            let (uimg, udesc) = upload(&mut gpu, &mut rng, 6, 5, layout, unsigned);
            let (iimg, idesc) = upload(&mut gpu, &mut rng, 3, 7, layout, signed);
            let sampler = Sampler::simple(false, mode);
            let reference = Bindings::default();
            let mut queries = Vec::new();
            let mut want: Vec<u32> = Vec::new();
            for _ in 0..INVOCATIONS {
                let st = [rng.unit() * 4.0 - 1.5, rng.unit() * 4.0 - 1.5];
                let texel = [(rng.next() % 3) as i32, (rng.next() % 5) as i32];
                for w in [
                    st[0].to_bits(),
                    st[1].to_bits(),
                    texel[0] as u32,
                    texel[1] as u32,
                ] {
                    queries.extend_from_slice(&w.to_le_bytes());
                }
                want.extend(uimg.texel_bits(texel[0] as u32, texel[1] as u32));
                want.extend(
                    reference
                        .sample_int(&uimg, &sampler, st[0], st[1], Some(0.0))
                        .unwrap(),
                );
                want.extend(iimg.texel_bits(texel[0] as u32, texel[1] as u32));
                want.extend(
                    reference
                        .sample_int(&iimg, &sampler, st[0], st[1], Some(1.5))
                        .unwrap(),
                );
            }
            let smp = hw_sampler(&sampler);
            let obuf = dispatch_queries(
                &mut gpu,
                &binary,
                &queries,
                u64::from(INVOCATIONS) * 64,
                &[Some(udesc), Some(idesc)],
                &[Some(smp), Some(smp)],
            )
            .unwrap_or_else(|e| panic!("{model:?} {mode:?}: {e}"));
            let got = gpu.read_u32s(obuf.va, want.len());
            assert_eq!(
                got, want,
                "{unsigned:?} {signed:?} {model:?} {mode:?} {layout:?}"
            );
            compared += got.len();
        }
    }
    assert_eq!(compared, 2 * 3 * 32 * 16);
    compared
}

#[test]
fn mismatched_result_formats_and_linear_integer_filtering_fault() {
    let model = SimModel::G52;
    // texture_lod.comp reads floats: give it an RGBA8UI texture.
    let binary = compile_for(model);
    for (format, linear) in [
        (TexelFormat::Rgba8Uint, false),
        (TexelFormat::Rgba8Unorm, true),
    ] {
        let mut gpu = SimGpu::new(model);
        let texels = gpu.alloc(64);
        let out = gpu.alloc(48 * 16);
        let q = gpu.alloc(32 * 16);
        let words = fau_words(&binary, |b| match b {
            (0, 3) => (q.va, 32 * 16),
            _ => (out.va, 48 * 16),
        });
        let code = gpu.upload(&binary);
        let desc = TextureDesc {
            dim: Default::default(),
            layers: 1,
            layer_stride: 0,
            levels: 1,
            mips: Default::default(),
            address: texels.va,
            width: 4,
            height: 4,
            row_stride: 16,
            layout: TexelLayout::Linear,
            format,
        };
        let smp = SamplerDesc {
            linear,
            wrap: [WrapMode::Repeat; 2],
            border: [0.0; 4],
            lod: Default::default(),
        };
        let r = gpu.run_chain(|chain, pool, arch| {
            textured_dispatch(
                chain,
                pool,
                arch,
                (&binary, code, &words),
                &[Some(desc), Some(desc)],
                &[Some(smp), None, Some(smp)],
                1,
            )?;
            Ok(true)
        });
        // A float read of an integer texture faults; so does linear
        // filtering of the integer texture in texture_int.comp below.
        if !linear {
            assert!(
                r.is_err(),
                "{format:?}: a float read of an integer texture must fault"
            );
        } else {
            assert!(r.is_ok(), "{format:?}: {r:?}");
        }
    }
    // texture_int.comp with a linear sampler: the texture unit faults.
    let binary = compile_named("texture_int.comp.spv", model);
    let mut gpu = SimGpu::new(model);
    let texels = gpu.alloc(256);
    let q = gpu.alloc(16 * 16);
    let out = gpu.alloc(64 * 16);
    let words = fau_words(&binary, |b| match b {
        (0, 3) => (q.va, 16 * 16),
        _ => (out.va, 64 * 16),
    });
    let code = gpu.upload(&binary);
    let desc = |format| TextureDesc {
        dim: Default::default(),
        layers: 1,
        layer_stride: 0,
        levels: 1,
        mips: Default::default(),
        address: texels.va,
        width: 4,
        height: 4,
        row_stride: 16,
        layout: TexelLayout::Linear,
        format,
    };
    let smp = SamplerDesc {
        linear: true,
        wrap: [WrapMode::Repeat; 2],
        border: [0.0; 4],
        lod: Default::default(),
    };
    let r = gpu.run_chain(|chain, pool, arch| {
        textured_dispatch(
            chain,
            pool,
            arch,
            (&binary, code, &words),
            &[
                Some(desc(TexelFormat::Rgba8Uint)),
                Some(desc(TexelFormat::Rgba8Sint)),
            ],
            &[Some(smp), Some(smp)],
            1,
        )?;
        Ok(true)
    });
    assert!(
        r.is_err(),
        "linear filtering of an integer texture must fault"
    );
}

/// Bad descriptors fault the job (its exception status), never the
/// simulator: texels outside every BO (a translation fault), texel
/// addresses past 2^64 and a Texture with reserved bits set, on both GPUs;
/// the next submit runs.
#[test]
fn bad_texture_descriptors_fault_the_job() {
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_for(model);
        let mut gpu = SimGpu::new(model);
        let code = gpu.upload(&binary);
        let q = gpu.alloc(32 * 16);
        let out = gpu.alloc(48 * 16);
        let words = fau_words(&binary, |b| match b {
            (0, 3) => (q.va, 32 * 16),
            _ => (out.va, 48 * 16),
        });
        for case in [
            "unmapped texels",
            "texels at the top of the address space",
            "reserved bits",
        ] {
            let desc = TextureDesc {
                dim: Default::default(),
                layers: 1,
                layer_stride: 0,
                levels: 1,
                mips: Default::default(),
                address: match case {
                    // 1 TiB: no BO is there.
                    "unmapped texels" => 1 << 40,
                    // Texel offsets would carry past 2^64.
                    "texels at the top of the address space" => u64::MAX - 7,
                    _ => q.va,
                },
                width: 4,
                height: 4,
                row_stride: 16,
                layout: TexelLayout::Linear,
                format: TexelFormat::Rgba8Unorm,
            };
            let smp = SamplerDesc {
                linear: false,
                wrap: [WrapMode::Repeat; 2],
                border: [0.0; 4],
                lod: Default::default(),
            };
            let r = gpu.run_chain_edited(
                |chain, pool, arch| {
                    textured_dispatch(
                        chain,
                        pool,
                        arch,
                        (&binary, code, &words),
                        &[Some(desc), Some(desc)],
                        &[Some(smp), None, Some(smp)],
                        1,
                    )?;
                    Ok(true)
                },
                |sim, head| {
                    if case != "reserved bits" {
                        return;
                    }
                    let table = texture_table(sim, model, head);
                    // A reserved bit of the Texture's word 2 (bits 21–23
                    // lie between `Levels` and `Minimum level`).
                    let mut b = [0u8; 4];
                    sim.read_gpu(table + 8, &mut b).unwrap();
                    let v = u32::from_le_bytes(b) | 1 << 22;
                    sim.write_gpu(table + 8, &v.to_le_bytes()).unwrap();
                },
            );
            assert!(r.is_err(), "{model:?} {case}: the job must fault");
        }
        assert!(gpu.run_chain(|_, _, _| Ok(false)).unwrap().is_none());
    }
}

/// Three random 5×3 RGBA8 UNORM layers, uploaded Linear 64 bytes apart,
/// and the texture descriptor of the array.
fn random_rgba8_layers(gpu: &mut SimGpu, rng: &mut Rng) -> (Vec<Image>, TextureDesc) {
    let layers: Vec<Image> = (0..3)
        .map(|_| Image {
            width: 5,
            height: 3,
            texels: (0..15)
                .map(|_| {
                    let v = rng.next();
                    [v as u8, (v >> 8) as u8, (v >> 16) as u8, (v >> 24) as u8]
                })
                .collect(),
            format: ImageFormat::Rgba8Unorm,
        })
        .collect();
    let buf = gpu.alloc(3 * 64);
    for (l, img) in layers.iter().enumerate() {
        for (i, t) in img.texels.iter().enumerate() {
            gpu.write(buf.va + 64 * l as u64 + 4 * i as u64, t);
        }
    }
    let desc = TextureDesc {
        dim: Default::default(),
        address: buf.va,
        width: 5,
        height: 3,
        row_stride: 20,
        layout: TexelLayout::Linear,
        format: TexelFormat::Rgba8Unorm,
        layers: 3,
        layer_stride: 64,
        levels: 1,
        mips: Default::default(),
    };
    (layers, desc)
}

/// `texture_array.comp`: a `sampler2DArray` of three 5×3 layers (64 bytes
/// apart, Linear), `textureLod` at a random LOD and at 0 with the layer
/// random in [−1, 4] (clamp(RNE(r), 0, 2)) and `texelFetch` of a random
/// layer, all TEXC with the array bit, nearest and linear, Repeat and
/// Clamp to Border, on G52 and G72, against the reference sampler (same
/// bound as above).
#[test]
fn array_textures_match_the_reference_sampler() {
    let mut compared = 0;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("texture_array.comp.spv", model);
        let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code).unwrap();
        assert_eq!(text.matches("+TEXC ").count(), 3, "{text}");
        for (k, (linear, mode)) in [
            (false, AddressMode::Repeat),
            (true, AddressMode::Repeat),
            (false, AddressMode::ClampToBorder),
            (true, AddressMode::ClampToBorder),
        ]
        .into_iter()
        .enumerate()
        {
            let mut rng = Rng(0xa77a + k as u64);
            let mut gpu = SimGpu::new(model);
            let (layers, desc) = random_rgba8_layers(&mut gpu, &mut rng);
            let mut sampler = Sampler::simple(linear, mode);
            sampler.border = BorderColor::OpaqueWhite;
            let oracle = Bindings::default();
            let mut queries = Vec::new();
            let mut want = Vec::new();
            for _ in 0..INVOCATIONS {
                let st = [rng.unit() * 4.0 - 1.5, rng.unit() * 4.0 - 1.5];
                let layer = rng.unit() * 5.0 - 1.0;
                let lod = rng.unit() * 2.0;
                let texel = [(rng.next() % 5) as i32, (rng.next() % 3) as i32];
                let ilayer = (rng.next() % 3) as i32;
                for w in [
                    st[0].to_bits(),
                    st[1].to_bits(),
                    layer.to_bits(),
                    lod.to_bits(),
                ] {
                    queries.extend_from_slice(&w.to_le_bytes());
                }
                for w in [texel[0], texel[1], ilayer, 0] {
                    queries.extend_from_slice(&w.to_le_bytes());
                }
                let img = &layers[bifrost_vk::testing::sampler::array_layer(layer, 3)];
                want.push(
                    oracle
                        .sample(img, &sampler, st[0], st[1], Some(lod))
                        .unwrap(),
                );
                want.push(
                    oracle
                        .sample(img, &sampler, st[0], st[1], Some(0.0))
                        .unwrap(),
                );
                want.push(
                    oracle
                        .fetch(&layers[ilayer as usize], texel[0], texel[1], 0)
                        .unwrap(),
                );
            }
            let smp = hw_sampler(&sampler);
            let obuf = dispatch_queries(
                &mut gpu,
                &binary,
                &queries,
                u64::from(INVOCATIONS) * 48,
                &[Some(desc)],
                &[Some(smp)],
            )
            .unwrap_or_else(|e| panic!("{model:?}: {e}"));
            let got = gpu.read_f32s(obuf.va, (INVOCATIONS * 12) as usize);
            for (i, (g, w)) in got.chunks(4).zip(&want).enumerate() {
                let exact = i % 3 == 2 || !linear;
                for c in 0..4 {
                    let ok = if exact {
                        g[c] == w[c]
                    } else {
                        (f64::from(g[c]) - f64::from(w[c])).abs() <= 2f64.powi(-22)
                    };
                    assert!(
                        ok,
                        "{model:?} {mode:?} linear {linear}: result {i}: sim {g:?} reference {w:?}"
                    );
                }
            }
            compared += got.len();
        }
    }
    assert_eq!(compared, 2 * 4 * 32 * 12);
}

/// A value on the 1/256 grid of the hardware's LOD values (TEXC's 8:8
/// register, the Sampler's `ulod`/`slod` fields) in [lo, hi].
fn lod_on_grid(rng: &mut Rng, lo: f32, hi: f32) -> f32 {
    let steps = ((hi - lo) * 256.0) as u64;
    lo + (rng.next() % (steps + 1)) as f32 / 256.0
}

/// Mipmaps with explicit LOD: `texture_lod.comp`'s `textureLod(tex, st,
/// lod)` (TEXC, explicit LOD) and `texelFetch(tex, texel, 0)` on a 13×9
/// RGBA8 UNORM image with its four levels (13×9, 6×4, 3×2, 1×1; Linear
/// or Tiled, one Surface With Stride per level), at random LODs in
/// [−4, 6] on the 1/256 grid, under samplers with random magnification and
/// minification filters, mipmap modes NEAREST and LINEAR, `minLod`,
/// `maxLod` and `mipLodBias` (also on the grid: the hardware keeps 8
/// fractional bits of each, so every λ here is exact in both), each wrap
/// mode, on the G52 and the G72, against the reference sampler's
/// "Level-of-Detail Operation" and "Image Level(s) Selection"
/// (`Bindings::sample_levels`). Bound: nearest filtering (of NEAREST
/// mipmaps) exact; otherwise 2^-21 (each level's linear result within
/// 2^-22 as in `texture_lod_and_texel_fetch_match_the_reference_sampler`,
/// the blend of two levels by δ, a multiple of 1/256, adds one f32
/// rounding of 2^-25 in each).
#[test]
fn mipmaps_with_explicit_lod_match_the_reference_sampler() {
    let (mut compared, mut per_level) = (0usize, [0usize; 4]);
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_for(model);
        for (k, mode) in AddressMode::ALL.into_iter().enumerate() {
            for case in 0..4u64 {
                let mut rng =
                    Rng(0x3a9_0000 + 16 * k as u64 + case + (model == SimModel::G72) as u64 * 256);
                let layout = if case % 2 == 0 {
                    TexelLayout::Linear
                } else {
                    TexelLayout::Tiled
                };
                let mut gpu = SimGpu::new(model);
                let mut levels = Vec::new();
                let mut desc = None;
                for l in 0..4u32 {
                    let (w, h) = ((13u32 >> l).max(1), (9u32 >> l).max(1));
                    let (img, d) =
                        upload(&mut gpu, &mut rng, w, h, layout, ImageFormat::Rgba8Unorm);
                    levels.push(img);
                    add_level(&mut desc, d);
                }
                let desc = desc.unwrap();
                let (img_b, desc_b) =
                    upload(&mut gpu, &mut rng, 4, 4, layout, ImageFormat::Rgba8Unorm);
                let mut smp = Sampler::simple(rng.next().is_multiple_of(2), mode);
                smp.min_linear = rng.next().is_multiple_of(2);
                smp.mipmap_linear = case >= 2;
                smp.border = BorderColor::OpaqueBlack;
                smp.min_lod = lod_on_grid(&mut rng, 0.0, 1.5);
                smp.max_lod = lod_on_grid(&mut rng, smp.min_lod, 5.0);
                smp.lod_bias = lod_on_grid(&mut rng, -1.5, 1.5);
                let hw = hw_mip_sampler(&smp, None);
                let plain = Sampler::simple(false, AddressMode::Repeat);
                let reference = Bindings::default();
                let (mut queries, mut want) = (Vec::new(), Vec::new());
                for _ in 0..INVOCATIONS {
                    let st = [rng.unit() * 3.0 - 1.0, rng.unit() * 3.0 - 1.0];
                    let lod = lod_on_grid(&mut rng, -4.0, 6.0);
                    let texel = [(rng.next() % 13) as i32, (rng.next() % 9) as i32];
                    push_query(&mut queries, st, lod, texel);
                    let lambda = (lod + smp.lod_bias).clamp(smp.min_lod, smp.max_lod);
                    per_level[(lambda.clamp(0.0, 3.0) + 0.5).ceil() as usize - 1] += 1;
                    want.push(
                        reference
                            .sample_levels(&levels, &smp, st[0], st[1], lod)
                            .unwrap(),
                    );
                    want.push(
                        reference
                            .sample(&img_b, &plain, st[0], st[1], Some(0.0))
                            .unwrap(),
                    );
                    want.push(reference.fetch(&levels[0], texel[0], texel[1], 0).unwrap());
                }
                let textures = [Some(desc), Some(desc_b)];
                let samplers = [Some(hw), None, Some(hw_sampler(&plain))];
                let obuf = dispatch_queries(
                    &mut gpu,
                    &binary,
                    &queries,
                    u64::from(INVOCATIONS) * 48,
                    &textures,
                    &samplers,
                )
                .unwrap_or_else(|e| panic!("{model:?}: {e}"));
                let got = gpu.read_f32s(obuf.va, (INVOCATIONS * 12) as usize);
                let exact_first = !smp.mipmap_linear && !smp.mag_linear && !smp.min_linear;
                for (i, (g, w)) in got.chunks(4).zip(&want).enumerate() {
                    let which = i % 3;
                    let exact = which != 0 || exact_first;
                    for c in 0..4 {
                        let ok = if exact {
                            g[c] == w[c]
                        } else {
                            (f64::from(g[c]) - f64::from(w[c])).abs() <= 2f64.powi(-21)
                        };
                        assert!(
                            ok,
                            "{model:?} {mode:?} case {case} {smp:?}: invocation {} result {which} component {c}: sim {g:?} reference {w:?}",
                            i / 3
                        );
                    }
                    compared += 4;
                }
            }
        }
    }
    eprintln!("{compared} components compared; λ's nearest level 0..3: {per_level:?}");
    assert_eq!(compared, 2 * 4 * 4 * 32 * 12);
    assert!(per_level.iter().all(|&n| n > 20), "{per_level:?}");
}

/// Texel offsets (`ConstOffset`): `texture_offset.comp`'s
/// `textureLodOffset(tex, st, lod, (−3, 2))` (TEXC, explicit LOD, offset
/// register), `textureLodOffset(tex, st, 0, (7, −8))` (TEXC, LOD zero: no
/// TEXS, which has no offsets) and `texelFetchOffset(tex, texel, 0, (1,
/// −1))`, on a 9×6 image with its levels (9×6, 4×3, 2×1, 1×1), every wrap
/// mode, both filters and mipmap modes, G52 and G72, against the reference
/// sampler's offsets ("Texel Coordinate Systems": added to the integer
/// texel coordinates before wrapping). Same bounds as the mipmap test.
#[test]
fn texel_offsets_match_the_reference_sampler() {
    let mut compared = 0usize;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("texture_offset.comp.spv", model);
        let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code).unwrap();
        assert_eq!(text.matches("+TEXC ").count(), 3, "{text}");
        for (k, mode) in AddressMode::ALL.into_iter().enumerate() {
            for case in 0..2u64 {
                let mut rng =
                    Rng(0x0ff5_e700 + 16 * k as u64 + case + 256 * (model == SimModel::G72) as u64);
                let layout = if case == 0 {
                    TexelLayout::Linear
                } else {
                    TexelLayout::Tiled
                };
                let mut gpu = SimGpu::new(model);
                let mut levels = Vec::new();
                let mut desc: Option<TextureDesc> = None;
                for l in 0..4u32 {
                    let (w, h) = ((9u32 >> l).max(1), (6u32 >> l).max(1));
                    let (img, d) =
                        upload(&mut gpu, &mut rng, w, h, layout, ImageFormat::Rgba8Unorm);
                    levels.push(img);
                    add_level(&mut desc, d);
                }
                let desc = desc.unwrap();
                let mut smp = Sampler::simple(case == 1, mode);
                smp.min_linear = k % 2 == 0;
                smp.mipmap_linear = case == 1;
                smp.border = BorderColor::OpaqueWhite;
                smp.max_lod = 3.0;
                let hw = hw_mip_sampler(&smp, None);
                let reference = Bindings::default();
                let (mut queries, mut want) = (Vec::new(), Vec::new());
                for _ in 0..INVOCATIONS {
                    let st = [rng.unit() * 3.0 - 1.0, rng.unit() * 3.0 - 1.0];
                    let lod = lod_on_grid(&mut rng, -1.0, 4.0);
                    // texel + (1, −1) inside level 0.
                    let texel = [(rng.next() % 8) as i32, 1 + (rng.next() % 5) as i32];
                    push_query(&mut queries, st, lod, texel);
                    let at = |lod: f32, offset: [i8; 2]| {
                        reference
                            .sample_levels_offset(&levels, &smp, st[0], st[1], lod, offset)
                            .unwrap()
                    };
                    want.push(at(lod, [-3, 2]));
                    want.push(at(0.0, [7, -8]));
                    want.push(
                        reference
                            .fetch(&levels[0], texel[0] + 1, texel[1] - 1, 0)
                            .unwrap(),
                    );
                }
                let obuf = dispatch_queries(
                    &mut gpu,
                    &binary,
                    &queries,
                    u64::from(INVOCATIONS) * 48,
                    &[Some(desc)],
                    &[Some(hw)],
                )
                .unwrap_or_else(|e| panic!("{model:?}: {e}"));
                let got = gpu.read_f32s(obuf.va, (INVOCATIONS * 12) as usize);
                let exact_sample = !smp.mipmap_linear && !smp.mag_linear && !smp.min_linear;
                for (i, (g, w)) in got.chunks(4).zip(&want).enumerate() {
                    let which = i % 3;
                    let exact = which == 2 || exact_sample;
                    for c in 0..4 {
                        let ok = if exact {
                            g[c] == w[c]
                        } else {
                            (f64::from(g[c]) - f64::from(w[c])).abs() <= 2f64.powi(-21)
                        };
                        assert!(
                            ok,
                            "{model:?} {mode:?} case {case}: invocation {} result {which} component {c}: sim {g:?} reference {w:?}",
                            i / 3
                        );
                    }
                    compared += 4;
                }
            }
        }
    }
    eprintln!("{compared} components with texel offsets compared");
    assert_eq!(compared, 2 * 4 * 2 * 32 * 12);
}

/// `textureSize` and `textureQueryLevels` (`texture_size.comp`): the IR's
/// `texture_size` reads the push-uniform word the driver fills for each
/// image (`binary::TEXTURE_SIZE_WORD`: (width − 1) | (height − 1) << 16,
/// levels above), and the shader computes max(1, size >> lod) (Vulkan
/// "Image Mip Level Sizing"). Images of 1×1 to 65536×65536 (edge sizes and
/// random ones) and 1 to 16 levels, every level, on the G52 and the G72:
/// every word as the spec's sizes. The textures are also bound (a shader
/// may sample what it queries); the query does not read them.
#[test]
fn texture_size_and_levels_match_the_image() {
    use bifrost_vk::compiler::bifrost::binary::TEXTURE_SIZE_WORD;
    let mut compared = 0;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("texture_size.comp.spv", model);
        let mut rng = Rng(0x5123 + (model == SimModel::G72) as u64);
        for case in 0..6 {
            let dims = |rng: &mut Rng| -> (u32, u32) {
                match case {
                    0 => (1, 1),
                    1 => (65536, 65536),
                    2 => (65536, 3),
                    _ => (
                        1 + (rng.next() % 4096) as u32,
                        1 + (rng.next() % 70000).min(65535) as u32,
                    ),
                }
            };
            let (w, h) = dims(&mut rng);
            let (ow, oh) = dims(&mut rng);
            let max_levels = 1 + w.max(h).ilog2();
            let levels = 1 + (rng.next() % u64::from(max_levels)) as u32;
            let mut gpu = SimGpu::new(model);
            let (_, mut desc) = upload(
                &mut gpu,
                &mut rng,
                1,
                1,
                TexelLayout::Linear,
                ImageFormat::Rgba8Unorm,
            );
            desc.width = w;
            desc.height = h;
            let other = TextureDesc {
                width: ow,
                height: oh,
                ..desc
            };
            let lods: Vec<i32> = (0..INVOCATIONS).map(|i| (i % levels) as i32).collect();
            let qbuf = gpu.alloc(4 * u64::from(INVOCATIONS));
            let bytes: Vec<u8> = lods.iter().flat_map(|l| l.to_le_bytes()).collect();
            gpu.write(qbuf.va, &bytes);
            let obuf = gpu.alloc(16 * u64::from(INVOCATIONS));
            let size_word = |w: u32, h: u32, levels: u32| {
                u64::from((w - 1) | (h - 1) << 16) | u64::from(levels) << 32
            };
            let base = binary.uniform_words as usize - binary.buffers.len();
            let mut words = vec![0u64; base];
            for &(set, binding) in &binary.buffers {
                words.push(match (set, binding) {
                    (s, 0) if s == TEXTURE_SIZE_WORD => size_word(w, h, levels),
                    (s, 1) if s == TEXTURE_SIZE_WORD => size_word(ow, oh, 1),
                    (0, 3) => qbuf.va,
                    (0, 4) => obuf.va,
                    b => panic!("unexpected entry {b:?}"),
                });
            }
            let code = gpu.upload(&binary);
            let smp = hw_sampler(&Sampler::simple(false, AddressMode::Repeat));
            gpu.run_chain(|chain, pool, arch| {
                textured_dispatch(
                    chain,
                    pool,
                    arch,
                    (&binary, code, &words),
                    &[Some(desc), Some(other)],
                    &[Some(smp), Some(smp)],
                    INVOCATIONS / 16,
                )?;
                Ok(true)
            })
            .unwrap_or_else(|e| panic!("{model:?}: {e}"));
            let got = gpu.read_u32s(obuf.va, 4 * INVOCATIONS as usize);
            for (i, r) in got.chunks(4).enumerate() {
                let l = lods[i] as u32;
                let want = [(w >> l).max(1), (h >> l).max(1), levels, ow];
                assert_eq!(r, want, "{model:?} {w}×{h} ({levels} levels) lod {l}");
                compared += 4;
            }
        }
    }
    assert_eq!(compared, 2 * 6 * 32 * 4);
}

/// Depth-compare sampling: `texture_shadow.comp`'s `textureLod(sampler2DShadow,
/// (s, t, dref), lod)` (TEXC explicit LOD with the shadow register) and at
/// LOD 0 (TEXC LOD ZERO) over an R32_SFLOAT image of 3 levels (7×5, 3×2, 1×1;
/// depths on a 1/8 grid in [0, 1], references on the same grid and
/// between, so equality happens), every `compareOp` (written flipped for
/// the hardware's texel-op-reference order, as Mesa's
/// `panfrost_flip_compare_func`), nearest and linear filters and mipmap
/// modes, Clamp to Border (border depth 1) and Repeat, G52 and G72: every
/// result within 2^-21 of the reference's "Depth Compare Operation" then
/// filtering (nearest ones exact). A simulator comparing reference-op-texel
/// instead fails it (checked by hand).
#[test]
fn depth_compares_match_the_reference_sampler() {
    use bifrost_vk::jm::graphics::CompareOp as HwOp;
    use bifrost_vk::testing::sampler::CompareOp;
    let mut compared = 0usize;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("texture_shadow.comp.spv", model);
        let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code).unwrap();
        assert_eq!(text.matches("+TEXC ").count(), 2, "{text}");
        for (k, op) in CompareOp::ALL.into_iter().enumerate() {
            for case in 0..2u64 {
                let mut rng =
                    Rng(0x5ad0_0000 + 16 * k as u64 + case + 256 * (model == SimModel::G72) as u64);
                let mut gpu = SimGpu::new(model);
                let mut levels = Vec::new();
                let mut desc: Option<TextureDesc> = None;
                for l in 0..3u32 {
                    let (w, h) = ((7u32 >> l).max(1), (5u32 >> l).max(1));
                    let (mut img, d) = upload(
                        &mut gpu,
                        &mut rng,
                        w,
                        h,
                        TexelLayout::Linear,
                        ImageFormat::R32Sfloat,
                    );
                    // Depths k/8 written over the random bytes.
                    for (i, t) in img.texels.iter_mut().enumerate() {
                        *t = ((rng.next() % 9) as f32 / 8.0).to_le_bytes();
                        gpu.write(d.address + 4 * i as u64, t);
                    }
                    levels.push(img);
                    add_level(&mut desc, d);
                }
                let desc = desc.unwrap();
                let mode = if case == 0 {
                    AddressMode::ClampToBorder
                } else {
                    AddressMode::Repeat
                };
                let mut smp = Sampler::simple(case == 1, mode);
                smp.min_linear = k % 2 == 1;
                smp.mipmap_linear = k % 3 == 0;
                smp.border = BorderColor::OpaqueWhite;
                smp.max_lod = 2.0;
                smp.compare = Some(op);
                let hw = hw_mip_sampler(&smp, Some(HwOp::ALL_OPS[k]));
                let reference = Bindings::default();
                let (mut queries, mut want) = (Vec::new(), Vec::new());
                for _ in 0..INVOCATIONS {
                    let st = [rng.unit() * 3.0 - 1.0, rng.unit() * 3.0 - 1.0];
                    let lod = lod_on_grid(&mut rng, -1.0, 4.0);
                    let dref = (rng.next() % 17) as f32 / 16.0;
                    for w in [
                        st[0].to_bits(),
                        st[1].to_bits(),
                        lod.to_bits(),
                        dref.to_bits(),
                    ] {
                        queries.extend_from_slice(&w.to_le_bytes());
                    }
                    for l in [lod, 0.0] {
                        want.push(
                            reference
                                .sample_levels_dref(&levels, &smp, st[0], st[1], l, dref)
                                .unwrap()[0],
                        );
                    }
                }
                let obuf = dispatch_queries(
                    &mut gpu,
                    &binary,
                    &queries,
                    u64::from(INVOCATIONS) * 8,
                    &[Some(desc)],
                    &[Some(hw)],
                )
                .unwrap_or_else(|e| panic!("{model:?}: {e}"));
                let got = gpu.read_f32s(obuf.va, 2 * INVOCATIONS as usize);
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    let ok = (f64::from(*g) - f64::from(*w)).abs() <= 2f64.powi(-21);
                    assert!(
                        ok,
                        "{model:?} {op:?} case {case}: result {i}: sim {g} reference {w}"
                    );
                    compared += 1;
                }
            }
        }
    }
    eprintln!("{compared} depth compares compared");
    assert_eq!(compared, 2 * 8 * 2 * 32 * 2);
}

/// One `w`×`h` image of random texels of `bpp` bytes (the rest of each
/// texel's four bytes zero) in `layout`: the Tiled offset is that of 4-byte
/// texels scaled to `bpp` (the u-interleaved index within a 16×16 tile
/// times the texel size, `Block::offset`'s rule).
fn upload_small(
    gpu: &mut SimGpu,
    rng: &mut Rng,
    (w, h, bpp): (u32, u32, u32),
    layout: TexelLayout,
    format: ImageFormat,
    hw: TexelFormat,
) -> (Image, TextureDesc) {
    let texels: Vec<[u8; 4]> = (0..w * h)
        .map(|_| {
            let v = rng.next();
            let mut t = [v as u8, (v >> 8) as u8, (v >> 16) as u8, (v >> 24) as u8];
            t[bpp as usize..].fill(0);
            t
        })
        .collect();
    let (row_stride, size) = match layout {
        TexelLayout::Linear => (bpp * w, u64::from(bpp * w * h)),
        TexelLayout::Tiled => {
            let rs = 16 * bpp * w.next_multiple_of(16);
            (rs, u64::from(rs) * u64::from(h.div_ceil(16)))
        }
    };
    let buf = gpu.alloc(size.max(4));
    for y in 0..h {
        for x in 0..w {
            let off = match layout {
                TexelLayout::Linear => u64::from(y * row_stride + bpp * x),
                TexelLayout::Tiled => {
                    let four = tiled_offset(x, y, u64::from(row_stride) * 4 / u64::from(bpp));
                    four / 4 * u64::from(bpp)
                }
            };
            gpu.write(buf.va + off, &texels[(y * w + x) as usize][..bpp as usize]);
        }
    }
    let image = Image {
        width: w,
        height: h,
        texels,
        format,
    };
    let desc = TextureDesc {
        dim: Default::default(),
        layers: 1,
        layer_stride: 0,
        levels: 1,
        mips: Default::default(),
        address: buf.va,
        width: w,
        height: h,
        row_stride,
        layout,
        format: hw,
    };
    (image, desc)
}

/// More sampled formats: R8_UNORM (swizzle R001), R8G8_UNORM (RG01) and
/// A2B10G10R10_UNORM_PACK32 through `texture_lod.comp` (TEXC explicit
/// LOD, TEXS of a second RGBA8 image, TEXC fetch) on 5×3 images in Linear
/// and Tiled layouts, both filters, every wrap mode, G52 and G72: nearest
/// and fetches exact, linear within 2^-22 (as for RGBA8), against the
/// reference's "Format Conversion" (UNORM c / (2^b − 1); absent channels
/// 0, 0, 1).
#[test]
fn r8_rg8_and_rgb10a2_textures_match_the_reference_sampler() {
    let mut compared = 0usize;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_for(model);
        for (f, (format, hw, bpp)) in [
            (ImageFormat::R8Unorm, TexelFormat::R8Unorm, 1),
            (ImageFormat::R8g8Unorm, TexelFormat::Rg8Unorm, 2),
            (
                ImageFormat::A2b10g10r10UnormPack32,
                TexelFormat::A2b10g10r10UnormPack32,
                4,
            ),
        ]
        .into_iter()
        .enumerate()
        {
            for (k, mode) in AddressMode::ALL.into_iter().enumerate() {
                for linear in [false, true] {
                    let layout = if (k + f) % 2 == 0 {
                        TexelLayout::Linear
                    } else {
                        TexelLayout::Tiled
                    };
                    let mut rng = Rng(0xf0_0000
                        + 64 * f as u64
                        + 8 * k as u64
                        + linear as u64
                        + 1024 * (model == SimModel::G72) as u64);
                    let mut gpu = SimGpu::new(model);
                    let (img, desc) =
                        upload_small(&mut gpu, &mut rng, (5, 3, bpp), layout, format, hw);
                    let (img_b, desc_b) =
                        upload(&mut gpu, &mut rng, 4, 4, layout, ImageFormat::Rgba8Unorm);
                    let mut smp = Sampler::simple(linear, mode);
                    smp.border = BorderColor::OpaqueWhite;
                    let plain = Sampler::simple(false, AddressMode::Repeat);
                    let reference = Bindings::default();
                    let (mut queries, mut want) = (Vec::new(), Vec::new());
                    for _ in 0..INVOCATIONS {
                        let st = [rng.unit() * 4.0 - 1.5, rng.unit() * 4.0 - 1.5];
                        let lod = rng.unit() * 2.0;
                        let texel = [(rng.next() % 5) as i32, (rng.next() % 3) as i32];
                        push_query(&mut queries, st, lod, texel);
                        want.push(
                            reference
                                .sample(&img, &smp, st[0], st[1], Some(lod))
                                .unwrap(),
                        );
                        want.push(
                            reference
                                .sample(&img_b, &plain, st[0], st[1], Some(0.0))
                                .unwrap(),
                        );
                        want.push(reference.fetch(&img, texel[0], texel[1], 0).unwrap());
                    }
                    let samplers = [Some(hw_sampler(&smp)), None, Some(hw_sampler(&plain))];
                    let obuf = dispatch_queries(
                        &mut gpu,
                        &binary,
                        &queries,
                        u64::from(INVOCATIONS) * 48,
                        &[Some(desc), Some(desc_b)],
                        &samplers,
                    )
                    .unwrap_or_else(|e| panic!("{model:?}: {e}"));
                    let got = gpu.read_f32s(obuf.va, (INVOCATIONS * 12) as usize);
                    for (i, (g, w)) in got.chunks(4).zip(&want).enumerate() {
                        let exact = i % 3 != 0 || !linear;
                        for c in 0..4 {
                            let ok = if exact {
                                g[c] == w[c]
                            } else {
                                (f64::from(g[c]) - f64::from(w[c])).abs() <= 2f64.powi(-22)
                            };
                            assert!(
                                ok,
                                "{model:?} {format:?} {mode:?} linear {linear} {layout:?}: invocation {} result {} component {c}: sim {g:?} reference {w:?}",
                                i / 3,
                                i % 3
                            );
                        }
                        compared += 4;
                    }
                }
            }
        }
    }
    eprintln!("{compared} components of R8/RG8/RGB10A2 textures compared");
    assert_eq!(compared, 2 * 3 * 4 * 2 * 32 * 12);
}

/// One `w`×`h` image of the given texels (`bpp` bytes each, row-major) in
/// `layout` (Tiled: the u-interleaved index times `bpp`, as
/// `upload_small`), as the reference's [`Image`] (texels of more than 4
/// bytes as consecutive 4-byte entries) and its descriptor.
fn upload_wide(
    gpu: &mut SimGpu,
    (w, h, bpp): (u32, u32, u32),
    texels: &[Vec<u8>],
    layout: TexelLayout,
    format: ImageFormat,
) -> (Image, TextureDesc) {
    let (row_stride, size) = match layout {
        TexelLayout::Linear => (bpp * w, u64::from(bpp * w * h)),
        TexelLayout::Tiled => {
            let rs = 16 * bpp * w.next_multiple_of(16);
            (rs, u64::from(rs) * u64::from(h.div_ceil(16)))
        }
    };
    let buf = gpu.alloc(size.max(4));
    for y in 0..h {
        for x in 0..w {
            let off = match layout {
                TexelLayout::Linear => u64::from(y * row_stride + bpp * x),
                TexelLayout::Tiled => {
                    let four = tiled_offset(x, y, u64::from(row_stride) * 4 / u64::from(bpp));
                    four / 4 * u64::from(bpp)
                }
            };
            gpu.write(buf.va + off, &texels[(y * w + x) as usize]);
        }
    }
    let words = texels
        .iter()
        .flat_map(|t| {
            t.chunks(4)
                .map(|c| {
                    let mut word = [0u8; 4];
                    word[..c.len()].copy_from_slice(c);
                    word
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let (image, mut desc) = (
        Image {
            width: w,
            height: h,
            texels: words,
            format,
        },
        upload_desc(buf.va, (w, h, row_stride), layout),
    );
    desc.format = texel_format(format);
    (image, desc)
}

fn upload_desc(
    address: u64,
    (w, h, row_stride): (u32, u32, u32),
    layout: TexelLayout,
) -> TextureDesc {
    TextureDesc {
        dim: Default::default(),
        layers: 1,
        layer_stride: 0,
        levels: 1,
        mips: Default::default(),
        address,
        width: w,
        height: h,
        row_stride,
        layout,
        format: TexelFormat::Rgba8Unorm,
    }
}

/// Random texel bytes of `format`. `finite`: every float component
/// finite (binary16: exponent 31 made 30; f32: magnitudes 2^-27..2^27);
/// else raw random bits with one component in eight ±∞ and one in eight
/// a NaN (the raw bits also give denormals, binary16's 65504 and f32's
/// 10^38).
fn random_texel(rng: &mut Rng, format: ImageFormat, finite: bool) -> Vec<u8> {
    let halves = match format {
        ImageFormat::R16Sfloat => 1,
        ImageFormat::R16g16Sfloat => 2,
        _ => 4,
    };
    match format {
        ImageFormat::R5g6b5UnormPack16 => (rng.next() as u16).to_le_bytes().to_vec(),
        // Every code (SNORM −128 included: it reads −1).
        ImageFormat::R8Snorm => vec![rng.next() as u8],
        ImageFormat::R8g8Snorm => (rng.next() as u16).to_le_bytes().to_vec(),
        ImageFormat::R8g8b8a8Snorm | ImageFormat::B8g8r8a8Unorm => {
            (rng.next() as u32).to_le_bytes().to_vec()
        }
        // Raw bits (exponent 31: ∞ or NaN); finite: such an exponent made 30.
        ImageFormat::B10g11r11UfloatPack32 => {
            let mut w = rng.next() as u32;
            if finite {
                for (at, m) in [(0, 6), (11, 6), (22, 5)] {
                    if (w >> (at + m)) & 31 == 31 {
                        w &= !(1 << (at + m));
                    }
                }
            }
            w.to_le_bytes().to_vec()
        }
        ImageFormat::R32g32Sfloat => {
            let mut t = random_texel(rng, ImageFormat::R32g32b32a32Sfloat, finite);
            t.truncate(8);
            t
        }
        ImageFormat::R16g16b16a16Sfloat | ImageFormat::R16Sfloat | ImageFormat::R16g16Sfloat => (0
            ..halves)
            .flat_map(|_| {
                let h = rng.next() as u16;
                let sign = h & 0x8000;
                let h = match (finite, rng.next() % 8) {
                    (true, _) if h & 0x7c00 == 0x7c00 => h & !0x0400,
                    (true, _) => h,
                    (false, 0) => 0x7c00 | sign,
                    (false, 1) => 0x7e01 | sign,
                    (false, _) => h,
                };
                h.to_le_bytes()
            })
            .collect(),
        _ => (0..4)
            .flat_map(|_| {
                let r = rng.next();
                let sign = r as u32 & 0x8000_0000;
                let bits = match (finite, rng.next() % 8) {
                    (true, _) => {
                        let exp = 100 + (r >> 32) as u32 % 55;
                        sign | exp << 23 | (r as u32 & 0x7f_ffff)
                    }
                    (false, 0) => 0x7f80_0000 | sign,
                    (false, 1) => 0x7fc0_0001 | sign,
                    (false, _) => r as u32,
                };
                bits.to_le_bytes()
            })
            .collect(),
    }
}

/// The same texel with every float component's sign cleared (|t|).
fn abs_texel(format: ImageFormat, t: &[u8]) -> Vec<u8> {
    let mut t = t.to_vec();
    match format {
        ImageFormat::R16g16b16a16Sfloat | ImageFormat::R16Sfloat | ImageFormat::R16g16Sfloat => {
            (0..t.len() / 2).for_each(|k| t[2 * k + 1] &= 0x7f)
        }
        ImageFormat::R32g32b32a32Sfloat | ImageFormat::R32g32Sfloat => {
            (0..t.len() / 4).for_each(|k| t[4 * k + 3] &= 0x7f)
        }
        // |c| of a two's complement byte (−128 reads −1: |−1| = 1 = 127).
        ImageFormat::R8Snorm | ImageFormat::R8g8Snorm | ImageFormat::R8g8b8a8Snorm => t
            .iter_mut()
            .for_each(|b| *b = (*b as i8).unsigned_abs().min(127)),
        _ => {}
    }
    t
}

/// RGB565 UNORM (Vulkan R5G6B5_UNORM_PACK16: "RGB565" with the swizzle
/// BGR1), RGBA16F and RGBA32F through `texture_lod.comp` (TEXC explicit
/// LOD, TEXS of a second RGBA8 image, TEXC fetch) on 5×3 images in Linear
/// and Tiled layouts, both filters, every wrap mode, G52 and G72.
///
/// Nearest and fetches: bit for bit (a NaN matches any NaN: the spec's
/// conversion keeps a NaN a NaN, not its payload), with infinities and
/// NaNs among the texels. Linear (finite texels only: what the hardware's
/// filter makes of an infinity or NaN is undocumented): both sides weight
/// exact f32 texels (RGB565: the simulator rounds each to f32 first, 2^-25
/// relative) in f64 and round once to f32, so they differ by at most one
/// rounding of each plus the f64 error, all below 2^-22 · A, A = Σ w·|t|
/// — the reference's own filtering of the image with every sign cleared.
#[test]
fn rgb565_rgba16f_and_rgba32f_textures_match_the_reference_sampler() {
    let (compared, specials) = wide_textures_match(
        0xf1_0000,
        &[
            (ImageFormat::R5g6b5UnormPack16, 2),
            (ImageFormat::R16g16b16a16Sfloat, 8),
            (ImageFormat::R32g32b32a32Sfloat, 16),
        ],
    );
    eprintln!(
        "{compared} components of RGB565/RGBA16F/RGBA32F textures compared, {specials} of them infinities or NaNs"
    );
    assert_eq!(compared, 2 * 3 * 4 * 2 * 32 * 12);
    assert!(specials > 0, "no infinity or NaN reached a nearest sample");
}

/// The same for the texture formats added on 2026-11-28 (`gfx-fmt`):
/// R16F (R001), RG16F and RG32F (RG01), R8/RG8/RGBA8 SNORM, B8G8R8A8
/// UNORM ("RGBA8 UNORM" with the swizzle BGRA) and B10G11R11 UFLOAT ("R11F
/// G11F B10F"): nearest and fetches bit
/// for bit (infinities and NaNs among the float texels, every SNORM code
/// including −128, which reads −1), linear within the bound above.
#[test]
fn r16f_rg16f_rg32f_snorm_and_bgra_textures_match_the_reference_sampler() {
    let (compared, specials) = wide_textures_match(
        0xf2_0000,
        &[
            (ImageFormat::R16Sfloat, 2),
            (ImageFormat::R16g16Sfloat, 4),
            (ImageFormat::R32g32Sfloat, 8),
            (ImageFormat::R8Snorm, 1),
            (ImageFormat::R8g8Snorm, 2),
            (ImageFormat::R8g8b8a8Snorm, 4),
            (ImageFormat::B8g8r8a8Unorm, 4),
            (ImageFormat::B10g11r11UfloatPack32, 4),
        ],
    );
    eprintln!("{compared} components compared, {specials} of them infinities or NaNs");
    assert_eq!(compared, 2 * 8 * 4 * 2 * 32 * 12);
    assert!(specials > 0, "no infinity or NaN reached a nearest sample");
}

/// `formats` (with their bytes per texel) through `texture_lod.comp` as
/// described for `rgb565_rgba16f_and_rgba32f_textures_match_the_reference_sampler`,
/// random texels seeded from `seed`; returns the components compared and
/// the infinities or NaNs among the exact ones.
fn wide_textures_match(seed: u64, formats: &[(ImageFormat, u32)]) -> (usize, usize) {
    let (mut compared, mut specials) = (0usize, 0usize);
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_for(model);
        for (f, &(format, bpp)) in formats.iter().enumerate() {
            for (k, mode) in AddressMode::ALL.into_iter().enumerate() {
                for linear in [false, true] {
                    let layout = if (k + f) % 2 == 0 {
                        TexelLayout::Linear
                    } else {
                        TexelLayout::Tiled
                    };
                    let mut rng = Rng(seed
                        + 64 * f as u64
                        + 8 * k as u64
                        + linear as u64
                        + 1024 * (model == SimModel::G72) as u64);
                    let mut gpu = SimGpu::new(model);
                    let texels: Vec<Vec<u8>> = (0..15)
                        .map(|_| random_texel(&mut rng, format, linear))
                        .collect();
                    let (img, desc) = upload_wide(&mut gpu, (5, 3, bpp), &texels, layout, format);
                    let abs = Image {
                        texels: texels
                            .iter()
                            .flat_map(|t| {
                                let t = abs_texel(format, t);
                                t.chunks(4)
                                    .map(|c| {
                                        let mut w = [0u8; 4];
                                        w[..c.len()].copy_from_slice(c);
                                        w
                                    })
                                    .collect::<Vec<_>>()
                            })
                            .collect(),
                        ..img.clone()
                    };
                    let (img_b, desc_b) =
                        upload(&mut gpu, &mut rng, 4, 4, layout, ImageFormat::Rgba8Unorm);
                    let mut smp = Sampler::simple(linear, mode);
                    smp.border = BorderColor::OpaqueWhite;
                    let plain = Sampler::simple(false, AddressMode::Repeat);
                    let reference = Bindings::default();
                    let (mut queries, mut want, mut scale) = (Vec::new(), Vec::new(), Vec::new());
                    for _ in 0..INVOCATIONS {
                        let st = [rng.unit() * 4.0 - 1.5, rng.unit() * 4.0 - 1.5];
                        let lod = rng.unit() * 2.0;
                        let texel = [(rng.next() % 5) as i32, (rng.next() % 3) as i32];
                        push_query(&mut queries, st, lod, texel);
                        want.push(
                            reference
                                .sample(&img, &smp, st[0], st[1], Some(lod))
                                .unwrap(),
                        );
                        scale.push(
                            reference
                                .sample(&abs, &smp, st[0], st[1], Some(lod))
                                .unwrap(),
                        );
                        want.push(
                            reference
                                .sample(&img_b, &plain, st[0], st[1], Some(0.0))
                                .unwrap(),
                        );
                        want.push(reference.fetch(&img, texel[0], texel[1], 0).unwrap());
                    }
                    let samplers = [Some(hw_sampler(&smp)), None, Some(hw_sampler(&plain))];
                    let obuf = dispatch_queries(
                        &mut gpu,
                        &binary,
                        &queries,
                        u64::from(INVOCATIONS) * 48,
                        &[Some(desc), Some(desc_b)],
                        &samplers,
                    )
                    .unwrap_or_else(|e| panic!("{model:?}: {e}"));
                    let got = gpu.read_f32s(obuf.va, (INVOCATIONS * 12) as usize);
                    for (i, (g, w)) in got.chunks(4).zip(&want).enumerate() {
                        let exact = i % 3 != 0 || !linear;
                        for c in 0..4 {
                            let ok = if exact {
                                specials += usize::from(!w[c].is_finite());
                                g[c].to_bits() == w[c].to_bits() || (g[c].is_nan() && w[c].is_nan())
                            } else {
                                let bound = 2f64.powi(-22) * f64::from(scale[i / 3][c]);
                                (f64::from(g[c]) - f64::from(w[c])).abs() <= bound
                            };
                            assert!(
                                ok,
                                "{model:?} {format:?} {mode:?} linear {linear} {layout:?}: invocation {} result {} component {c}: sim {g:?} reference {w:?}",
                                i / 3,
                                i % 3
                            );
                        }
                        compared += 4;
                    }
                }
            }
        }
    }
    (compared, specials)
}

/// The simulator reads RGB565 only with the swizzle BGR1 `jm::texture`
/// writes: with the identity swizzle (whose alpha would be the format's
/// absent fourth channel, undocumented) the job faults on G52 and G72,
/// while the same dispatch unedited runs.
#[test]
fn rgb565_with_another_swizzle_faults() {
    use bifrost_vk::hw::texture::texture_desc as td;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_for(model);
        for edit in [false, true] {
            let mut gpu = SimGpu::new(model);
            let code = gpu.upload(&binary);
            let q = gpu.alloc(32 * 16);
            let out = gpu.alloc(48 * 16);
            let words = fau_words(&binary, |b| match b {
                (0, 3) => (q.va, 32 * 16),
                _ => (out.va, 48 * 16),
            });
            let texels: Vec<Vec<u8>> = (0..16).map(|i| vec![i as u8, 0x80]).collect();
            let (_, desc) = upload_wide(
                &mut gpu,
                (4, 4, 2),
                &texels,
                TexelLayout::Linear,
                ImageFormat::R5g6b5UnormPack16,
            );
            let smp = hw_sampler(&Sampler::simple(false, AddressMode::Repeat));
            let r = gpu.run_chain_edited(
                |chain, pool, arch| {
                    textured_dispatch(
                        chain,
                        pool,
                        arch,
                        (&binary, code, &words),
                        &[Some(desc), Some(desc)],
                        &[Some(smp), None, Some(smp)],
                        1,
                    )?;
                    Ok(true)
                },
                |sim, head| {
                    if !edit {
                        return;
                    }
                    let table = texture_table(sim, model, head);
                    let mut bytes = [0u8; 32];
                    sim.read_gpu(table, &mut bytes).unwrap();
                    let mut t: Vec<u32> = bytes
                        .chunks(4)
                        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                        .collect();
                    assert_eq!(td::SWIZZLE.get(&t), 0o5012, "jm::texture's RGB565 swizzle");
                    td::SWIZZLE.set(&mut t, 0o3210).unwrap();
                    let bytes: Vec<u8> = t.iter().flat_map(|w| w.to_le_bytes()).collect();
                    sim.write_gpu(table, &bytes).unwrap();
                },
            );
            assert_eq!(r.is_err(), edit, "{model:?} edited {edit}: {r:?}");
        }
    }
}

/// Mipmapped RGBA16F and RGBA32F: `texture_lod.comp` (TEXC explicit LOD,
/// TEXS of a second image, fetch) over a 13×9 image with its four levels
/// of finite random texels (Linear or Tiled, 8- and 16-byte texels, one
/// Surface With Stride per level), random filters, mipmap modes NEAREST
/// and LINEAR, `minLod`/`maxLod`/`mipLodBias` and LODs on the 1/256 grid,
/// each wrap mode, G52 and G72, against `Bindings::sample_levels`. Bound:
/// nearest mipmaps of nearest filters and fetches bit for bit; the rest
/// within 2^-21 · A, A = the same sample of the levels with every sign
/// cleared (each level within 2^-22 · A as in
/// `rgb565_rgba16f_and_rgba32f_textures_match_the_reference_sampler`, the
/// blend by δ one more rounding of each side).
#[test]
fn mipmapped_float_textures_match_the_reference_sampler() {
    let mut compared = 0usize;
    let to_words = |t: &[Vec<u8>]| -> Vec<[u8; 4]> {
        t.iter()
            .flat_map(|t| {
                t.chunks(4)
                    .map(|c| c.try_into().unwrap())
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_for(model);
        for (f, (format, bpp)) in [
            (ImageFormat::R16g16b16a16Sfloat, 8),
            (ImageFormat::R32g32b32a32Sfloat, 16),
        ]
        .into_iter()
        .enumerate()
        {
            for (k, mode) in AddressMode::ALL.into_iter().enumerate() {
                for case in 0..4u64 {
                    let mut rng = Rng(0x5e7_0000
                        + 256 * f as u64
                        + 16 * k as u64
                        + case
                        + (model == SimModel::G72) as u64 * 4096);
                    let layout = if case % 2 == 0 {
                        TexelLayout::Linear
                    } else {
                        TexelLayout::Tiled
                    };
                    let mut gpu = SimGpu::new(model);
                    let (mut levels, mut abs_levels, mut desc) = (Vec::new(), Vec::new(), None);
                    for l in 0..4u32 {
                        let (w, h) = ((13u32 >> l).max(1), (9u32 >> l).max(1));
                        let texels: Vec<Vec<u8>> = (0..w * h)
                            .map(|_| random_texel(&mut rng, format, true))
                            .collect();
                        let (img, d) = upload_wide(&mut gpu, (w, h, bpp), &texels, layout, format);
                        let abs: Vec<Vec<u8>> =
                            texels.iter().map(|t| abs_texel(format, t)).collect();
                        abs_levels.push(Image {
                            texels: to_words(&abs),
                            ..img.clone()
                        });
                        levels.push(img);
                        add_level(&mut desc, d);
                    }
                    let desc = desc.unwrap();
                    let (img_b, desc_b) =
                        upload(&mut gpu, &mut rng, 4, 4, layout, ImageFormat::Rgba8Unorm);
                    let mut smp = Sampler::simple(rng.next().is_multiple_of(2), mode);
                    smp.min_linear = rng.next().is_multiple_of(2);
                    smp.mipmap_linear = case >= 2;
                    smp.border = BorderColor::OpaqueWhite;
                    smp.min_lod = lod_on_grid(&mut rng, 0.0, 1.5);
                    smp.max_lod = lod_on_grid(&mut rng, smp.min_lod, 5.0);
                    smp.lod_bias = lod_on_grid(&mut rng, -1.5, 1.5);
                    let hw = hw_mip_sampler(&smp, None);
                    let plain = Sampler::simple(false, AddressMode::Repeat);
                    let reference = Bindings::default();
                    let (mut queries, mut want, mut scale) = (Vec::new(), Vec::new(), Vec::new());
                    for _ in 0..INVOCATIONS {
                        let st = [rng.unit() * 3.0 - 1.0, rng.unit() * 3.0 - 1.0];
                        let lod = lod_on_grid(&mut rng, -4.0, 6.0);
                        let texel = [(rng.next() % 13) as i32, (rng.next() % 9) as i32];
                        push_query(&mut queries, st, lod, texel);
                        want.push(
                            reference
                                .sample_levels(&levels, &smp, st[0], st[1], lod)
                                .unwrap(),
                        );
                        scale.push(
                            reference
                                .sample_levels(&abs_levels, &smp, st[0], st[1], lod)
                                .unwrap(),
                        );
                        want.push(
                            reference
                                .sample(&img_b, &plain, st[0], st[1], Some(0.0))
                                .unwrap(),
                        );
                        want.push(reference.fetch(&levels[0], texel[0], texel[1], 0).unwrap());
                    }
                    let textures = [Some(desc), Some(desc_b)];
                    let samplers = [Some(hw), None, Some(hw_sampler(&plain))];
                    let obuf = dispatch_queries(
                        &mut gpu,
                        &binary,
                        &queries,
                        u64::from(INVOCATIONS) * 48,
                        &textures,
                        &samplers,
                    )
                    .unwrap_or_else(|e| panic!("{model:?}: {e}"));
                    let got = gpu.read_f32s(obuf.va, (INVOCATIONS * 12) as usize);
                    let exact_first = !smp.mipmap_linear && !smp.mag_linear && !smp.min_linear;
                    for (i, (g, w)) in got.chunks(4).zip(&want).enumerate() {
                        let which = i % 3;
                        let exact = which != 0 || exact_first;
                        for c in 0..4 {
                            let ok = if exact {
                                g[c].to_bits() == w[c].to_bits()
                            } else {
                                let bound = 2f64.powi(-21) * f64::from(scale[i / 3][c]);
                                (f64::from(g[c]) - f64::from(w[c])).abs() <= bound
                            };
                            assert!(
                                ok,
                                "{model:?} {format:?} {mode:?} case {case} {smp:?}: invocation {} result {which} component {c}: sim {g:?} reference {w:?}",
                                i / 3
                            );
                        }
                        compared += 4;
                    }
                }
            }
        }
    }
    eprintln!("{compared} components of mipmapped RGBA16F/RGBA32F compared");
    assert_eq!(compared, 2 * 2 * 4 * 4 * 32 * 12);
}

/// The byte offset of texel (x, y) of a storage image with `bpp` bytes per
/// texel: row-major `row_stride` apart (Linear), or the u-interleaved
/// order of [`tiled_offset`] inside 16×16 tiles, `row_stride` bytes per
/// row of tiles (Tiled).
fn storage_offset(x: u32, y: u32, row_stride: u32, bpp: u32, layout: TexelLayout) -> u64 {
    match layout {
        TexelLayout::Linear => u64::from(y * row_stride + x * bpp),
        TexelLayout::Tiled => {
            let within = (tiled_offset(x % 16, y % 16, 0)) / 4;
            u64::from(y / 16) * u64::from(row_stride)
                + (u64::from(x / 16) * 256 + within) * u64::from(bpp)
        }
    }
}

/// One storage-image case: `shader` (its images at bindings 0 and 1, the
/// queries at 3, the results at 4) on `model`, both images `w`×`h` of
/// `format` in `layout`. Each of 64 invocations stores a random texel at a
/// distinct random position of image 0 (all 0xee canaries first) and
/// loads a random texel of image 1 (random bytes). Checks every byte of
/// image 0 — stored texels as `testing::sampler::storage::encode` says,
/// the rest still canaries — and every loaded texel as `decode` says;
/// returns the number of texels compared.
fn storage_case(
    model: SimModel,
    shader: &ShaderBinary,
    format: StorageFormat,
    layout: TexelLayout,
    layers: u32,
    seed: u64,
) -> usize {
    use bifrost_vk::jm::compute::add_compute_job;
    use bifrost_vk::jm::image::{ImageDesc, ImageFormat as HwFormat, write_image_tables};
    const N: usize = 64;
    let (w, h) = (13u32, 7u32);
    let mut rng = Rng(seed);
    let mut gpu = SimGpu::new(model);
    let bpp = format.bytes() as u32;
    let (row_stride, layer_size) = match layout {
        TexelLayout::Linear => (bpp * w + 16, (bpp * w + 16) * h),
        TexelLayout::Tiled => {
            let rs = 256 * bpp * w.div_ceil(16);
            (rs, rs * h.div_ceil(16))
        }
    };
    // Layers a padded 64 bytes apart beyond the layer's own size.
    let layer_stride = if layers > 1 { layer_size + 64 } else { 0 };
    let size = u64::from(layer_size + (layers - 1) * layer_stride);
    let offset = |x: u32, y: u32, l: u32| {
        storage_offset(x, y, row_stride, bpp, layout) + u64::from(l * layer_stride)
    };
    let dst = gpu.alloc(size);
    gpu.write(dst.va, &vec![0xee; size as usize]);
    let src = gpu.alloc(size);
    let src_bytes: Vec<u8> = (0..size).map(|_| rng.next() as u8).collect();
    gpu.write(src.va, &src_bytes);
    let hw = match format {
        StorageFormat::Rgba8Unorm => HwFormat::Rgba8Unorm,
        StorageFormat::Rgba8Uint => HwFormat::Rgba8Uint,
        StorageFormat::Rgba32Sfloat => HwFormat::Rgba32Sfloat,
        StorageFormat::R32Uint => HwFormat::R32Uint,
    };
    let desc = |va: u64| ImageDesc {
        address: va,
        size,
        width: w,
        height: h,
        layers,
        row_stride,
        layer_stride,
        layout,
        format: hw,
    };
    // Distinct store positions: a shuffle of the texel indices.
    let mut order: Vec<u32> = (0..w * h * layers).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, (rng.next() % (i as u64 + 1)) as usize);
    }
    let mut queries = Vec::new();
    let mut stores = Vec::new();
    let mut loads = Vec::new();
    for (i, &t) in order.iter().take(N).enumerate() {
        let (sx, sy, sl) = (t % w, t / w % h, t / (w * h));
        let (lx, ly) = (
            (rng.next() % u64::from(w)) as u32,
            (rng.next() % u64::from(h)) as u32,
        );
        let ll = (rng.next() % u64::from(layers)) as u32;
        let value: [u32; 4] = std::array::from_fn(|c| match format {
            // Floats in [-0.25, 1.25] (clamped ones too), every eighth
            // texel a value next to a rounding boundary k + 1/2 of the
            // 8-bit code, every ninth NaN in one component.
            StorageFormat::Rgba8Unorm => {
                if i % 9 == 0 && c == 1 {
                    f32::NAN.to_bits()
                } else if i % 8 == 0 {
                    let k = (rng.next() % 255) as f32 + 0.5;
                    let f = k / 255.0;
                    [
                        f,
                        f32::from_bits(f.to_bits() + 1),
                        f32::from_bits(f.to_bits() - 1),
                    ][c % 3]
                        .to_bits()
                } else {
                    (rng.unit() * 1.5 - 0.25).to_bits()
                }
            }
            StorageFormat::Rgba8Uint => (rng.next() % 256) as u32,
            StorageFormat::Rgba32Sfloat | StorageFormat::R32Uint => rng.next() as u32,
        });
        // The queries: ivec2 store, ivec2 load, the texel; ivec4s for arrays.
        let coords: Vec<i32> = if layers > 1 {
            vec![
                sx as i32, sy as i32, sl as i32, 0, lx as i32, ly as i32, ll as i32, 0,
            ]
        } else {
            vec![sx as i32, sy as i32, lx as i32, ly as i32]
        };
        for v in coords {
            queries.extend_from_slice(&v.to_le_bytes());
        }
        for v in value {
            queries.extend_from_slice(&v.to_le_bytes());
        }
        stores.push(((sx, sy, sl), value));
        loads.push((lx, ly, ll));
    }
    let qbuf = gpu.alloc(queries.len() as u64);
    gpu.write(qbuf.va, &queries);
    let out_bytes = 16 * N as u64;
    let obuf = gpu.alloc(out_bytes);
    gpu.write(obuf.va, &vec![0xee; out_bytes as usize]);
    let words = fau_words(shader, |b| match b {
        (0, 3) => (qbuf.va, queries.len() as u64),
        (0, 4) => (obuf.va, out_bytes),
        _ => panic!("unexpected binding {b:?}"),
    });
    let code = gpu.upload(shader);
    gpu.run_chain(|chain, pool, arch| {
        let tables = write_image_tables(pool, arch, &[Some(desc(dst.va)), Some(desc(src.va))])?;
        let job = ComputeJob {
            binary: shader,
            code,
            push_uniforms: &words,
            local_size: [16, 1, 1],
            groups: [N as u32 / 16, 1, 1],
            ubos: &[],
            attributes: Some(tables),
            push_buffer: None,
        };
        add_compute_job(chain, pool, arch, &job, [0, 0])?;
        Ok(true)
    })
    .unwrap_or_else(|e| panic!("{model:?} {format:?} {layout:?}: {e}"));
    // Image 0: every byte.
    let mut want = vec![0xeeu8; size as usize];
    for &((x, y, l), value) in &stores {
        let at = offset(x, y, l) as usize;
        let bytes = storage::encode(format, value);
        want[at..at + bytes.len()].copy_from_slice(&bytes);
    }
    let got = gpu.read(dst.va, size as usize);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{model:?} {format:?} {layout:?}: image byte {i}");
    }
    // The loads.
    let out = gpu.read(obuf.va, out_bytes as usize);
    for (i, &(x, y, l)) in loads.iter().enumerate() {
        let at = offset(x, y, l) as usize;
        let want = storage::decode(format, &src_bytes[at..at + bpp as usize]);
        let got: [u32; 4] = std::array::from_fn(|c| {
            u32::from_le_bytes(out[16 * i + 4 * c..16 * i + 4 * c + 4].try_into().unwrap())
        });
        assert_eq!(
            got, want,
            "{model:?} {format:?} {layout:?}: load {i} of ({x}, {y}, {l})"
        );
    }
    stores.len() + loads.len()
}

/// Storage images (`imageStore`/`imageLoad`, SPIR-V `OpImageWrite`/
/// `OpImageRead`) compiled by our backend (`DTSEL_IMM` + `LEA_ATTR_TEX` +
/// `ST_CVT`; `LD_ATTR_TEX`) with `jm::image`'s attribute tables, on the
/// G52 and a v6 G72, RGBA8 UNORM (`image_float.comp`), RGBA32F
/// (`image_float32.comp`), R32UI and RGBA8UI (`image_uint.comp`), Linear
/// and Tiled: every byte of the stored image and every loaded texel as the
/// Vulkan conversion rules give (`testing::sampler::storage`).
#[test]
fn storage_images_store_and_load_like_the_vulkan_rules() {
    let mut compared = 0;
    for model in [SimModel::G52, SimModel::G72] {
        for (name, formats) in [
            ("vk/image_float.comp.spv", &[StorageFormat::Rgba8Unorm][..]),
            (
                "vk/image_float32.comp.spv",
                &[StorageFormat::Rgba32Sfloat][..],
            ),
            (
                "vk/image_uint.comp.spv",
                &[StorageFormat::R32Uint, StorageFormat::Rgba8Uint][..],
            ),
            // A 2D array of 3 layers.
            ("vk/image_array.comp.spv", &[StorageFormat::Rgba8Unorm][..]),
        ] {
            let layers = if name.contains("array") { 3 } else { 1 };
            let shader = compile_named(name, model);
            for &format in formats {
                for (k, layout) in [TexelLayout::Linear, TexelLayout::Tiled]
                    .into_iter()
                    .enumerate()
                {
                    let seed = 0x5eed + k as u64;
                    compared += storage_case(model, &shader, format, layout, layers, seed);
                }
            }
        }
    }
    assert_eq!(compared, 2 * 5 * 2 * 128);
}

/// A storage-image access the descriptors do not cover faults the job like
/// hardware (its exception status, never a panic; what the hardware does
/// is undocumented, so the simulator faults rather than guess):
/// DATA_INVALID_FAULT for a store at x = width or y = height (outside the
/// image), a load of an image binding the tables do not have, and a texel
/// past the record's `Size`. The same dispatch in bounds runs. (A texel
/// past its BO is an MMU fault: `sim_graphics_chains.rs::
/// bad_image_descriptors_fault_the_upload`.)
#[test]
fn bad_storage_image_accesses_fault() {
    use bifrost_vk::jm::compute::add_compute_job;
    use bifrost_vk::jm::image::{ImageDesc, ImageFormat as HwFormat, write_image_tables};
    let model = SimModel::G52;
    let shader = compile_named("vk/image_uint.comp.spv", model);
    let run = |store: (i32, i32), images: usize, size: u64, bo: u64| {
        let mut gpu = SimGpu::new(model);
        let img = gpu.alloc(bo);
        let mut queries = Vec::new();
        for i in 0..16 {
            let s = if i == 5 { store } else { (i, 0) };
            for v in [s.0, s.1, 0, 0, 7, 0, 0, 0] {
                queries.extend_from_slice(&v.to_le_bytes());
            }
        }
        let qbuf = gpu.alloc(queries.len() as u64);
        gpu.write(qbuf.va, &queries);
        let obuf = gpu.alloc(256);
        let words = fau_words(&shader, |b| match b {
            (0, 3) => (qbuf.va, queries.len() as u64),
            _ => (obuf.va, 256),
        });
        let code = gpu.upload(&shader);
        let desc = ImageDesc {
            address: img.va,
            size,
            width: 16,
            height: 64,
            layers: 1,
            row_stride: 64,
            layer_stride: 0,
            layout: TexelLayout::Linear,
            format: HwFormat::R32Uint,
        };
        gpu.run_chain(|chain, pool, arch| {
            let all = [Some(desc), Some(desc)];
            let tables = write_image_tables(pool, arch, &all[..images])?;
            let job = ComputeJob {
                binary: &shader,
                code,
                push_uniforms: &words,
                local_size: [16, 1, 1],
                groups: [1, 1, 1],
                ubos: &[],
                attributes: Some(tables),
                push_buffer: None,
            };
            add_compute_job(chain, pool, arch, &job, [0, 0])?;
            Ok(true)
        })
        .map(|_| ())
        .map_err(|e| e.fault().expect("a job fault"))
    };
    assert_eq!(run((16, 0), 2, 4096, 4096).unwrap_err().status, 0x58);
    assert_eq!(run((0, 64), 2, 4096, 4096).unwrap_err().status, 0x58);
    assert_eq!(run((0, 0), 1, 4096, 4096).unwrap_err().status, 0x58);
    // `Size` 1 KiB: row 63 (bytes 4032..4096) lies past it.
    assert_eq!(run((15, 63), 2, 1024, 4096).unwrap_err().status, 0x58);
    run((15, 63), 2, 4096, 4096).expect("in bounds, it runs");
}

/// Image atomics (`imageAtomicAdd`, `imageAtomicMax` on a signed image,
/// `imageAtomicCompSwap`; SPIR-V `OpImageTexelPointer` + `OpAtomic*`),
/// compiled as `DTSEL_IMM` + `LEA_ATTR_TEX` then a global atomic on the
/// texel's address, over 4×2-texel R32UI/R32I images (Linear and Tiled, G52
/// and a v6 G72), 64 invocations, 8 per texel. The hardware defines no
/// order between invocations, so the test checks what every order gives:
/// each texel's sum is its initial value plus its invocations' addends and
/// the returned old values, sorted, step by exactly those addends; each
/// maximum is the largest of the initial value and the operands, every
/// returned old value one of them and not above it; exactly one invocation
/// per texel finds the compare-swap image at 0 and the texel holds its
/// value, every other invocation returns that value.
#[test]
fn image_atomics_match_every_order() {
    use bifrost_vk::jm::compute::add_compute_job;
    use bifrost_vk::jm::image::{ImageDesc, ImageFormat as HwFormat, write_image_tables};
    const N: usize = 64;
    let mut checked = 0;
    for model in [SimModel::G52, SimModel::G72] {
        let shader = compile_named("vk/image_atomic.comp.spv", model);
        for layout in [TexelLayout::Linear, TexelLayout::Tiled] {
            let mut rng = Rng(0xa70 + checked as u64);
            let mut gpu = SimGpu::new(model);
            let (w, h) = (4u32, 2u32);
            let (row_stride, size) = match layout {
                TexelLayout::Linear => (16, 32u64),
                TexelLayout::Tiled => (1024, 1024u64),
            };
            let init: [Vec<u32>; 3] = [
                (0..8).map(|_| rng.next() as u32 % 1000).collect(),
                (0..8)
                    .map(|_| (rng.next() % 2000) as u32 as i32 as u32)
                    .map(|v| v.wrapping_sub(1000))
                    .collect(),
                vec![0; 8],
            ];
            let images: Vec<Buffer> = (0..3).map(|_| gpu.alloc(size)).collect();
            for (img, vals) in images.iter().zip(&init) {
                gpu.write(img.va, &vec![0xee; size as usize]);
                for t in 0..8u32 {
                    let at = storage_offset(t % w, t / w, row_stride, 4, layout);
                    gpu.write(img.va + at, &vals[t as usize].to_le_bytes());
                }
            }
            let mut queries = Vec::new();
            let mut q = Vec::new();
            for i in 0..N {
                let t = (i % 8) as u32;
                let add = 1 + rng.next() as u32 % 100;
                let value = (rng.next() as u32 % 4000) as i32 - 2000;
                for v in [(t % w) as i32, (t / w) as i32, add as i32, value] {
                    queries.extend_from_slice(&v.to_le_bytes());
                }
                q.push((t, add, value));
            }
            let qbuf = gpu.alloc(queries.len() as u64);
            gpu.write(qbuf.va, &queries);
            let obuf = gpu.alloc(16 * N as u64);
            let words = fau_words(&shader, |b| match b {
                (0, 3) => (qbuf.va, queries.len() as u64),
                (0, 4) => (obuf.va, 16 * N as u64),
                _ => panic!("unexpected binding {b:?}"),
            });
            let code = gpu.upload(&shader);
            let desc = |va: u64, format| {
                Some(ImageDesc {
                    address: va,
                    size,
                    width: w,
                    height: h,
                    layers: 1,
                    row_stride,
                    layer_stride: 0,
                    layout,
                    format,
                })
            };
            let tables = [
                desc(images[0].va, HwFormat::R32Uint),
                desc(images[1].va, HwFormat::R32Sint),
                desc(images[2].va, HwFormat::R32Uint),
            ];
            gpu.run_chain(|chain, pool, arch| {
                let tables = write_image_tables(pool, arch, &tables)?;
                let job = ComputeJob {
                    binary: &shader,
                    code,
                    push_uniforms: &words,
                    local_size: [16, 1, 1],
                    groups: [N as u32 / 16, 1, 1],
                    ubos: &[],
                    attributes: Some(tables),
                    push_buffer: None,
                };
                add_compute_job(chain, pool, arch, &job, [0, 0])?;
                Ok(true)
            })
            .unwrap_or_else(|e| panic!("{model:?} {layout:?}: {e}"));
            let out = gpu.read(obuf.va, 16 * N);
            let old = |i: usize, c: usize| {
                u32::from_le_bytes(out[16 * i + 4 * c..16 * i + 4 * c + 4].try_into().unwrap())
            };
            let at = |t: u32| storage_offset(t % w, t / w, row_stride, 4, layout);
            let texel = |img: usize, t: u32| {
                u32::from_le_bytes(gpu.read(images[img].va + at(t), 4).try_into().unwrap())
            };
            for t in 0..8u32 {
                let mine: Vec<usize> = (0..N).filter(|&i| q[i].0 == t).collect();
                // Sums: the returned olds, sorted, step by the addends.
                let mut steps: Vec<(u32, u32)> =
                    mine.iter().map(|&i| (old(i, 0), q[i].1)).collect();
                steps.sort();
                let mut expect = init[0][t as usize];
                for &(o, add) in &steps {
                    assert_eq!(o, expect, "{model:?} {layout:?}: sum chain of texel {t}");
                    expect += add;
                }
                assert_eq!(
                    texel(0, t),
                    expect,
                    "{model:?} {layout:?}: sum of texel {t}"
                );
                // Maxima.
                let m0 = init[1][t as usize] as i32;
                let max = mine.iter().map(|&i| q[i].2).fold(m0, i32::max);
                assert_eq!(
                    texel(1, t) as i32,
                    max,
                    "{model:?} {layout:?}: max of texel {t}"
                );
                for &i in &mine {
                    let o = old(i, 1) as i32;
                    assert!(o <= max && (o == m0 || mine.iter().any(|&j| q[j].2 == o)));
                }
                // Compare-swap: one winner.
                let winners: Vec<usize> =
                    mine.iter().copied().filter(|&i| old(i, 2) == 0).collect();
                assert_eq!(winners.len(), 1, "{model:?} {layout:?}: texel {t}");
                let won = winners[0] as u32 + 1;
                assert_eq!(texel(2, t), won);
                assert!(mine.iter().all(|&i| i == winners[0] || old(i, 2) == won));
                checked += 1;
            }
            // Nothing outside the texels was touched.
            for img in &images {
                let bytes = gpu.read(img.va, size as usize);
                for (k, b) in bytes.iter().enumerate() {
                    let inside = (0..8).any(|t| (at(t)..at(t) + 4).contains(&(k as u64)));
                    assert!(inside || *b == 0xee, "{model:?} {layout:?}: byte {k}");
                }
            }
        }
    }
    assert_eq!(checked, 2 * 2 * 8);
}

/// Texture gathers (`texture_gather.comp`: `textureGather` of each
/// component of a float image, `textureGatherOffset` with (−3, 2) and
/// (7, −8), and of an RGBA8I image at (0, 0) and (1, −1) offsets): TEXC
/// FETCH with a GATHER4 component, the result reordered as Mesa does.
/// Float images RGBA8 UNORM, sRGB, R8 UNORM (absent components 0, 0, 1),
/// RGB10A2 and RGBA16F (finite and non-finite texels: a gather moves
/// texels, it does not filter them) of NPOT sizes, Linear and Tiled, every
/// wrap mode (border OpaqueBlack or OpaqueWhite; the integer image's sampler takes Clamp
/// to Edge where the float one has Clamp to Border: the reference refuses
/// a float border for integer texels), the sampler's filter random (a
/// gather ignores it), coordinates in [−1.5, 2.5]², one in four on the
/// texel-centre grid where ⌊u − ½⌋ changes, G52 and G72: every word equal
/// to `testing::sampler`'s gather from the spec's "Texel Gathering" (a
/// NaN matches any NaN).
#[test]
fn gathers_match_the_reference_sampler() {
    let mut compared = 0usize;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("texture_gather.comp.spv", model);
        let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code).unwrap();
        assert_eq!(text.matches("+TEXC ").count(), 8, "{text}");
        for (f, format) in [
            ImageFormat::Rgba8Unorm,
            ImageFormat::Rgba8Srgb,
            ImageFormat::R8Unorm,
            ImageFormat::A2b10g10r10UnormPack32,
            ImageFormat::R16g16b16a16Sfloat,
        ]
        .into_iter()
        .enumerate()
        {
            for (k, mode) in AddressMode::ALL.into_iter().enumerate() {
                for layout in [TexelLayout::Linear, TexelLayout::Tiled] {
                    let mut rng = Rng(0x6a7_0000
                        + 64 * f as u64
                        + 8 * k as u64
                        + (layout == TexelLayout::Tiled) as u64
                        + 4096 * (model == SimModel::G72) as u64);
                    let mut gpu = SimGpu::new(model);
                    let (w, h) = (3 + (rng.next() % 6) as u32, 2 + (rng.next() % 6) as u32);
                    let (img, desc) = match format {
                        ImageFormat::R8Unorm => upload_small(
                            &mut gpu,
                            &mut rng,
                            (w, h, 1),
                            layout,
                            format,
                            TexelFormat::R8Unorm,
                        ),
                        ImageFormat::R16g16b16a16Sfloat => {
                            let texels: Vec<Vec<u8>> = (0..w * h)
                                .map(|i| random_texel(&mut rng, format, i % 2 == 0))
                                .collect();
                            upload_wide(&mut gpu, (w, h, 8), &texels, layout, format)
                        }
                        _ => upload(&mut gpu, &mut rng, w, h, layout, format),
                    };
                    let (iw, ih) = (2 + (rng.next() % 5) as u32, 3 + (rng.next() % 4) as u32);
                    let (iimg, idesc) =
                        upload(&mut gpu, &mut rng, iw, ih, layout, ImageFormat::Rgba8Sint);
                    let mut smp = Sampler::simple(rng.next().is_multiple_of(2), mode);
                    smp.border = if layout == TexelLayout::Linear {
                        BorderColor::OpaqueBlack
                    } else {
                        BorderColor::OpaqueWhite
                    };
                    let imode = if mode == AddressMode::ClampToBorder {
                        AddressMode::ClampToEdge
                    } else {
                        mode
                    };
                    let ismp = Sampler::simple(false, imode);
                    let reference = Bindings::default();
                    let (mut queries, mut want) = (Vec::new(), Vec::<[u32; 4]>::new());
                    for q in 0..INVOCATIONS {
                        let mut st = [rng.unit() * 4.0 - 1.5, rng.unit() * 4.0 - 1.5];
                        if q % 4 == 0 {
                            // u − ½ an integer: the texel centre, where the
                            // gathered square moves by one.
                            let (a, b) = ((rng.next() % 24) as f32 - 8.0, (rng.next() % 24) as f32);
                            st = [(a + 0.5) / w as f32, (b - 8.0 + 0.5) / h as f32];
                        }
                        push_query(&mut queries, st, 0.0, [0, 0]);
                        let g = |c: usize, offset: [i8; 2]| {
                            reference
                                .gather(&img, &smp, (st[0], st[1]), offset, c)
                                .unwrap()
                        };
                        for c in 0..4 {
                            want.push(g(c, [0, 0]));
                        }
                        want.push(g(1, [-3, 2]));
                        want.push(g(3, [7, -8]));
                        for (c, offset) in [(0, [0, 0]), (2, [1, -1])] {
                            want.push(
                                reference
                                    .gather(&iimg, &ismp, (st[0], st[1]), offset, c)
                                    .unwrap(),
                            );
                        }
                    }
                    let obuf = dispatch_queries(
                        &mut gpu,
                        &binary,
                        &queries,
                        u64::from(INVOCATIONS) * 128,
                        &[Some(desc), Some(idesc)],
                        &[Some(hw_sampler(&smp)), Some(hw_sampler(&ismp))],
                    )
                    .unwrap_or_else(|e| panic!("{model:?} {format:?} {mode:?} {layout:?}: {e}"));
                    let got = gpu.read_u32s(obuf.va, want.len() * 4);
                    for (i, (g, w)) in got.chunks(4).zip(&want).enumerate() {
                        for c in 0..4 {
                            let nan = |x: u32| f32::from_bits(x).is_nan();
                            let float = i % 8 < 6;
                            assert!(
                                g[c] == w[c] || (float && nan(g[c]) && nan(w[c])),
                                "{model:?} {format:?} {mode:?} {layout:?}: invocation {} result {} component {c}: sim {g:x?} reference {w:x?}",
                                i / 8,
                                i % 8
                            );
                        }
                        compared += 4;
                    }
                }
            }
        }
    }
    eprintln!("{compared} gathered words compared");
    assert_eq!(compared, 2 * 5 * 4 * 2 * 32 * 32);
}

/// What the simulated gather refuses (the hardware's answer is
/// undocumented): a sampler with a compare function (a depth gather
/// without the shadow register: JOB_CONFIG_FAULT) and a float gather of
/// an integer texture (INSTR_INVALID_ENC, as for TEX) fault the job, on
/// the G52 and the G72; the same GPU then runs the
/// gather with a plain sampler.
#[test]
fn gathers_the_simulator_does_not_model_fault() {
    use bifrost_vk::jm::graphics::CompareOp as HwOp;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("texture_gather.comp.spv", model);
        let mut rng = Rng(0x6a7_fa17 + (model == SimModel::G72) as u64);
        let mut gpu = SimGpu::new(model);
        let layout = TexelLayout::Linear;
        let (_, desc) = upload(&mut gpu, &mut rng, 4, 4, layout, ImageFormat::Rgba8Unorm);
        let (_, udesc) = upload(&mut gpu, &mut rng, 4, 4, layout, ImageFormat::Rgba8Uint);
        let (_, idesc) = upload(&mut gpu, &mut rng, 4, 4, layout, ImageFormat::Rgba8Sint);
        let mut queries = Vec::new();
        for _ in 0..INVOCATIONS {
            push_query(&mut queries, [rng.unit(), rng.unit()], 0.0, [0, 0]);
        }
        let plain = hw_sampler(&Sampler::simple(false, AddressMode::Repeat));
        let compare = hw_mip_sampler(
            &Sampler::simple(false, AddressMode::Repeat),
            Some(HwOp::Less),
        );
        let mut run = |textures: [TextureDesc; 2], samplers: [SamplerDesc; 2]| {
            dispatch_queries(
                &mut gpu,
                &binary,
                &queries,
                u64::from(INVOCATIONS) * 128,
                &textures.map(Some),
                &samplers.map(Some),
            )
            .map(|_| ())
        };
        let r = run([desc, idesc], [compare, plain]);
        assert!(
            r.as_ref().is_err_and(|e| e.contains("JOB_CONFIG_FAULT")),
            "{model:?}: a gather with a compare function: {r:?}"
        );
        let r = run([udesc, idesc], [plain, plain]);
        assert!(
            r.as_ref().is_err_and(|e| e.contains("INSTR_INVALID_ENC")),
            "{model:?}: a float gather of RGBA8UI: {r:?}"
        );
        run([desc, idesc], [plain, plain]).unwrap_or_else(|e| panic!("{model:?}: {e}"));
    }
}

/// Depth gathers (`texture_gather_dref.comp`: `textureGather` and
/// `textureGatherOffset` (2, −1) of a `sampler2DShadow`): TEXC FETCH
/// GATHER4_R with the shadow bit and the reference in the register after
/// the LOD's. R32F images of random NPOT sizes with depths on a 1/8 grid
/// in [0, 1] and references on a 1/16 grid (equality happens), Linear and
/// Tiled, every `compareOp` (written flipped, as for sampling), every wrap
/// mode (border OpaqueWhite or TransparentBlack: depth 1 or 0), G52 and
/// G72: every word equal to the reference's "Texel Gathering" of the
/// "Depth Compare Operation" results.
#[test]
fn depth_gathers_match_the_reference_sampler() {
    use bifrost_vk::jm::graphics::CompareOp as HwOp;
    use bifrost_vk::testing::sampler::CompareOp;
    let mut compared = 0usize;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("texture_gather_dref.comp.spv", model);
        let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code).unwrap();
        assert_eq!(text.matches("+TEXC ").count(), 2, "{text}");
        for (k, op) in CompareOp::ALL.into_iter().enumerate() {
            for (m, mode) in AddressMode::ALL.into_iter().enumerate() {
                let mut rng = Rng(0xd6a7_0000
                    + 16 * k as u64
                    + m as u64
                    + 256 * (model == SimModel::G72) as u64);
                let layout = if (k + m) % 2 == 0 {
                    TexelLayout::Linear
                } else {
                    TexelLayout::Tiled
                };
                let mut gpu = SimGpu::new(model);
                let (w, h) = (2 + (rng.next() % 7) as u32, 2 + (rng.next() % 7) as u32);
                let (mut img, d) = upload(&mut gpu, &mut rng, w, h, layout, ImageFormat::R32Sfloat);
                // Depths k/8 written over the random bytes.
                for y in 0..h {
                    for x in 0..w {
                        let t = ((rng.next() % 9) as f32 / 8.0).to_le_bytes();
                        img.texels[(y * w + x) as usize] = t;
                        let off = match layout {
                            TexelLayout::Linear => u64::from(y * d.row_stride + 4 * x),
                            TexelLayout::Tiled => tiled_offset(x, y, u64::from(d.row_stride)),
                        };
                        gpu.write(d.address + off, &t);
                    }
                }
                let mut smp = Sampler::simple(m % 2 == 0, mode);
                smp.border = if k % 2 == 0 {
                    BorderColor::OpaqueWhite
                } else {
                    BorderColor::TransparentBlack
                };
                smp.compare = Some(op);
                let hw = hw_mip_sampler(&smp, Some(HwOp::ALL_OPS[k]));
                let reference = Bindings::default();
                let (mut queries, mut want) = (Vec::new(), Vec::<[u32; 4]>::new());
                for _ in 0..INVOCATIONS {
                    let st = [rng.unit() * 4.0 - 1.5, rng.unit() * 4.0 - 1.5];
                    let dref = (rng.next() % 17) as f32 / 16.0;
                    for word in [st[0].to_bits(), st[1].to_bits(), 0, dref.to_bits()] {
                        queries.extend_from_slice(&word.to_le_bytes());
                    }
                    for offset in [[0, 0], [2, -1]] {
                        want.push(
                            reference
                                .gather_dref(&img, &smp, (st[0], st[1]), offset, dref)
                                .unwrap(),
                        );
                    }
                }
                let obuf = dispatch_queries(
                    &mut gpu,
                    &binary,
                    &queries,
                    u64::from(INVOCATIONS) * 32,
                    &[Some(d)],
                    &[Some(hw)],
                )
                .unwrap_or_else(|e| panic!("{model:?} {op:?} {mode:?}: {e}"));
                let got = gpu.read_u32s(obuf.va, want.len() * 4);
                for (i, (g, w)) in got.chunks(4).zip(&want).enumerate() {
                    assert_eq!(
                        g,
                        w,
                        "{model:?} {op:?} {mode:?} {layout:?}: invocation {} result {}",
                        i / 2,
                        i % 2
                    );
                    compared += 4;
                }
            }
        }
    }
    eprintln!("{compared} depth-gather words compared");
    assert_eq!(compared, 2 * 8 * 4 * 32 * 8);
}

/// Gathers from a 2D array (`texture_gather_array.comp`: component g, and
/// component a with the offset (−2, 3), of a `sampler2DArray`): the layer
/// rounded to nearest even and clamped as for sampling (TEXC's array
/// register). Three 5×3 RGBA8 UNORM layers 64 bytes apart, layers in
/// [−1, 4], every wrap mode (border OpaqueBlack), G52 and G72: every word
/// equal to the reference's gather of layer clamp(RNE(r), 0, 2).
#[test]
fn array_gathers_match_the_reference_sampler() {
    let mut compared = 0;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("texture_gather_array.comp.spv", model);
        let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code).unwrap();
        assert_eq!(text.matches("+TEXC ").count(), 2, "{text}");
        for (k, mode) in AddressMode::ALL.into_iter().enumerate() {
            let mut rng = Rng(0x6a7_a77a + k as u64 + 16 * (model == SimModel::G72) as u64);
            let mut gpu = SimGpu::new(model);
            let (layers, desc) = random_rgba8_layers(&mut gpu, &mut rng);
            let mut sampler = Sampler::simple(false, mode);
            sampler.border = BorderColor::OpaqueBlack;
            let reference = Bindings::default();
            let (mut queries, mut want) = (Vec::new(), Vec::<[u32; 4]>::new());
            for _ in 0..INVOCATIONS {
                let st = [rng.unit() * 4.0 - 1.5, rng.unit() * 4.0 - 1.5];
                let layer = rng.unit() * 5.0 - 1.0;
                for w in [st[0].to_bits(), st[1].to_bits(), layer.to_bits(), 0] {
                    queries.extend_from_slice(&w.to_le_bytes());
                }
                queries.extend_from_slice(&[0; 16]);
                let img = &layers[bifrost_vk::testing::sampler::array_layer(layer, 3)];
                for (c, offset) in [(1, [0, 0]), (3, [-2, 3])] {
                    want.push(
                        reference
                            .gather(img, &sampler, (st[0], st[1]), offset, c)
                            .unwrap(),
                    );
                }
            }
            let obuf = dispatch_queries(
                &mut gpu,
                &binary,
                &queries,
                u64::from(INVOCATIONS) * 32,
                &[Some(desc)],
                &[Some(hw_sampler(&sampler))],
            )
            .unwrap_or_else(|e| panic!("{model:?} {mode:?}: {e}"));
            let got = gpu.read_u32s(obuf.va, want.len() * 4);
            for (i, (g, w)) in got.chunks(4).zip(&want).enumerate() {
                assert_eq!(
                    g,
                    w,
                    "{model:?} {mode:?}: invocation {} result {}",
                    i / 2,
                    i % 2
                );
                compared += 4;
            }
        }
    }
    eprintln!("{compared} array-gather words compared");
    assert_eq!(compared, 2 * 4 * 32 * 8);
}

/// `count` random RGBA8 UNORM images of `w`×`h` texels, one after the
/// other in one buffer (`stride` bytes apart: each image's bytes rounded
/// up to 64, plus 64 bytes of gap), in `layout`: the slices of a 3D level
/// or the layers of an array level. Returns the images, the first texel's
/// address, the row stride and the stride.
fn upload_stack(
    gpu: &mut SimGpu,
    rng: &mut Rng,
    (w, h, count): (u32, u32, u32),
    layout: TexelLayout,
) -> (Vec<Image>, u64, u32, u64) {
    let (row_stride, size) = match layout {
        TexelLayout::Linear => (4 * w, u64::from(4 * w * h)),
        TexelLayout::Tiled => {
            let rs = 16 * 4 * w.next_multiple_of(16);
            (rs, u64::from(rs) * u64::from(h.div_ceil(16)))
        }
    };
    let stride = size.next_multiple_of(64) + 64;
    let buf = gpu.alloc(stride * u64::from(count));
    let mut images = Vec::new();
    for k in 0..count {
        let texels: Vec<[u8; 4]> = (0..w * h)
            .map(|_| {
                let v = rng.next();
                [v as u8, (v >> 8) as u8, (v >> 16) as u8, (v >> 24) as u8]
            })
            .collect();
        for y in 0..h {
            for x in 0..w {
                let off = match layout {
                    TexelLayout::Linear => u64::from(y * row_stride + 4 * x),
                    TexelLayout::Tiled => tiled_offset(x, y, u64::from(row_stride)),
                };
                gpu.write(
                    buf.va + stride * u64::from(k) + off,
                    &texels[(y * w + x) as usize],
                );
            }
        }
        images.push(Image {
            width: w,
            height: h,
            texels,
            format: ImageFormat::Rgba8Unorm,
        });
    }
    (images, buf.va, row_stride, stride)
}

/// A mipmapped RGBA8 UNORM image in GPU memory: `levels` levels of a
/// `w`×`h` image with `count` slices (3D: level l has max(1, count >> l);
/// `dim` D3) or layers (arrays: `count` at every level), each level a
/// [`upload_stack`]. Returns the levels (each its slices or layers) and
/// the descriptor.
fn upload_levels(
    gpu: &mut SimGpu,
    rng: &mut Rng,
    (w, h, count, levels): (u32, u32, u32, u32),
    dim: TextureDim,
    layout: TexelLayout,
) -> (Vec<Vec<Image>>, TextureDesc) {
    let volume = matches!(dim, TextureDim::D3 { .. });
    let mut out = Vec::new();
    let mut desc: Option<TextureDesc> = None;
    for l in 0..levels {
        let n = if volume { (count >> l).max(1) } else { count };
        let (lw, lh) = ((w >> l).max(1), (h >> l).max(1));
        let (images, address, row_stride, stride) = upload_stack(gpu, rng, (lw, lh, n), layout);
        out.push(images);
        match desc.as_mut() {
            None => {
                desc = Some(TextureDesc {
                    address,
                    width: w,
                    height: h,
                    row_stride,
                    layout,
                    format: TexelFormat::Rgba8Unorm,
                    layers: if volume { 1 } else { count },
                    layer_stride: stride,
                    dim,
                    levels: 1,
                    mips: Default::default(),
                });
            }
            Some(d) => {
                d.mips[l as usize - 1] = MipLevel {
                    address,
                    row_stride,
                    slice_stride: stride,
                };
                d.levels += 1;
            }
        }
    }
    (out, desc.unwrap())
}

/// The bound of the linear and mipmapped results below: 2^-21, as in
/// `mipmaps_with_explicit_lod_match_the_reference_sampler` (each level's
/// filtering weights exact f32 texels in f64 and rounds once — 2^-25 off
/// each side — a 3D filter's eight weights included, and the blend of two
/// levels by δ, a multiple of 1/256, adds one more rounding).
fn assert_close(got: &[f32], want: &[[f32; 4]], exact: impl Fn(usize) -> bool, what: &str) {
    for (i, (g, w)) in got.chunks(4).zip(want).enumerate() {
        for c in 0..4 {
            let ok = if exact(i) {
                g[c] == w[c]
            } else {
                (f64::from(g[c]) - f64::from(w[c])).abs() <= 2f64.powi(-21)
            };
            assert!(ok, "{what}: result {i}: sim {g:?} reference {w:?}");
        }
    }
}

/// A random sampler of the reference with every LOD field on the 1/256
/// grid (see `lod_on_grid`), filters and mipmap mode random, every axis's
/// address mode `mode` except W, which is `mode_w`.
fn random_lod_sampler(rng: &mut Rng, mode: AddressMode, mode_w: AddressMode) -> Sampler {
    let mut s = Sampler::simple(rng.next().is_multiple_of(2), mode);
    s.min_linear = rng.next().is_multiple_of(2);
    s.mipmap_linear = rng.next().is_multiple_of(2);
    s.address_w = mode_w;
    s.border = BorderColor::OpaqueWhite;
    s.min_lod = lod_on_grid(rng, 0.0, 1.0);
    s.max_lod = lod_on_grid(rng, s.min_lod, 5.0);
    s.lod_bias = lod_on_grid(rng, -1.0, 1.0);
    s
}

/// 3D textures: `textures/texture_3d.comp` (`textureLod(sampler3D, str,
/// lod)` at a random LOD on the 1/256 grid in [−2, 5] and at 0 — TEXC
/// EXPLICIT and ZERO with dimension 3 and r in the first data register —
/// and `texelFetch` of a random texel of a random level) over a 7×5×6
/// RGBA8 UNORM image with 3 levels (7×5×6, 3×2×3, 1×1×1; slices 64 bytes
/// past their size apart), Linear and Tiled, every wrap mode for S/T with
/// another for R, random filters, mipmap modes, `minLod`/`maxLod`/bias,
/// coordinates in [−1.5, 2.5]³, on the G52 and a v6 G72, against the
/// reference's 3D filtering (`Bindings::sample_axes_levels`, eight texels
/// weighted by products of the three axes' weights). Nearest filtering of
/// NEAREST mipmaps and fetches exact, the rest within 2^-21.
#[test]
fn textures_3d_match_the_reference_sampler() {
    let mut compared = 0;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("textures/texture_3d.comp.spv", model);
        let text = bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code).unwrap();
        assert_eq!(text.matches("+TEXC ").count(), 3, "{text}");
        for (k, mode) in AddressMode::ALL.into_iter().enumerate() {
            for layout in [TexelLayout::Linear, TexelLayout::Tiled] {
                let mut rng = Rng(0x3d3d + 16 * k as u64 + (layout == TexelLayout::Tiled) as u64);
                let mut gpu = SimGpu::new(model);
                let (levels, desc) = upload_levels(
                    &mut gpu,
                    &mut rng,
                    (7, 5, 6, 3),
                    TextureDim::D3 { depth: 6 },
                    layout,
                );
                let mode_w = AddressMode::ALL[(k + 1) % 4];
                let sampler = random_lod_sampler(&mut rng, mode, mode_w);
                let oracle = Bindings::default();
                let mut queries = Vec::new();
                let mut want = Vec::new();
                for _ in 0..INVOCATIONS {
                    let str: [f32; 3] = std::array::from_fn(|_| rng.unit() * 4.0 - 1.5);
                    let lod = lod_on_grid(&mut rng, -2.0, 5.0);
                    let level = (rng.next() % 3) as usize;
                    let img = &levels[level];
                    let texel = [
                        (rng.next() % u64::from(img[0].width)) as i32,
                        (rng.next() % u64::from(img[0].height)) as i32,
                        (rng.next() % img.len() as u64) as i32,
                    ];
                    for w in [
                        str[0].to_bits(),
                        str[1].to_bits(),
                        str[2].to_bits(),
                        lod.to_bits(),
                    ] {
                        queries.extend_from_slice(&w.to_le_bytes());
                    }
                    for w in [texel[0], texel[1], texel[2], level as i32] {
                        queries.extend_from_slice(&w.to_le_bytes());
                    }
                    for l in [lod, 0.0] {
                        want.push(
                            oracle
                                .sample_axes_levels(&levels, &sampler, str, 3, l)
                                .unwrap(),
                        );
                    }
                    let f = Bindings::fetch_axes(&levels, texel, level as i32).unwrap();
                    want.push(f.map(f32::from_bits));
                }
                let mut smp = hw_mip_sampler(&sampler, None);
                smp.lod.wrap_r = Some(to_hw(mode_w));
                let obuf = dispatch_queries(
                    &mut gpu,
                    &binary,
                    &queries,
                    u64::from(INVOCATIONS) * 48,
                    &[Some(desc)],
                    &[Some(smp)],
                )
                .unwrap_or_else(|e| panic!("{model:?}: {e}"));
                let got = gpu.read_f32s(obuf.va, (INVOCATIONS * 12) as usize);
                let nearest = !sampler.mag_linear && !sampler.min_linear && !sampler.mipmap_linear;
                assert_close(
                    &got,
                    &want,
                    |i| i % 3 == 2 || nearest,
                    &format!("{model:?} {mode:?}/{mode_w:?} {layout:?} {sampler:?}"),
                );
                compared += got.len();
            }
        }
    }
    assert_eq!(compared, 2 * 4 * 2 * 32 * 12);
}

/// 1D textures and mipmapped 1D arrays: `textures/texture_1d.comp`
/// (`textureLod` and `texelFetch` of a `sampler1D` and of a
/// `sampler1DArray`; TEXC with dimension 1, the coordinate passed as both
/// sources as Mesa does, the array's layer RNE-rounded and clamped) over a
/// 13-texel RGBA8 UNORM image with 4 levels (13, 6, 3, 1) and an array of
/// three such layers with 4 levels (one Surface With Stride per layer and
/// level, Mesa's order), Linear and Tiled, every wrap mode, random
/// filters, mipmap modes and LOD state, s in [−1.5, 2.5], layers in
/// [−1, 4], LODs in [−2, 5] on the 1/256 grid, G52 and v6 G72, against
/// the reference's 1D filtering (`Bindings::sample_axes_levels` with one
/// axis) of layer clamp(RNE(r), 0, 2). Same bounds as the 3D test.
#[test]
fn textures_1d_and_1d_arrays_match_the_reference_sampler() {
    let mut compared = 0;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("textures/texture_1d.comp.spv", model);
        for (k, mode) in AddressMode::ALL.into_iter().enumerate() {
            for layout in [TexelLayout::Linear, TexelLayout::Tiled] {
                let mut rng = Rng(0x1d1d + 16 * k as u64 + (layout == TexelLayout::Tiled) as u64);
                let mut gpu = SimGpu::new(model);
                let (plain, plain_desc) =
                    upload_levels(&mut gpu, &mut rng, (13, 1, 1, 4), TextureDim::D1, layout);
                let (layered, array_desc) =
                    upload_levels(&mut gpu, &mut rng, (13, 1, 3, 4), TextureDim::D1, layout);
                // The levels of one layer, each a one-image stack.
                let layer_levels = |l: usize| -> Vec<Vec<Image>> {
                    layered.iter().map(|lv| vec![lv[l].clone()]).collect()
                };
                let sampler = random_lod_sampler(&mut rng, mode, mode);
                let oracle = Bindings::default();
                let mut queries = Vec::new();
                let mut want = Vec::new();
                for _ in 0..INVOCATIONS {
                    let s = rng.unit() * 4.0 - 1.5;
                    let layer = rng.unit() * 5.0 - 1.0;
                    let lod = lod_on_grid(&mut rng, -2.0, 5.0);
                    let level = (rng.next() % 4) as usize;
                    let texel = (rng.next() % u64::from((13u32 >> level).max(1))) as i32;
                    let ilayer = (rng.next() % 3) as i32;
                    for w in [s.to_bits(), layer.to_bits(), lod.to_bits()] {
                        queries.extend_from_slice(&w.to_le_bytes());
                    }
                    for w in [texel, ilayer, level as i32, 0, 0] {
                        queries.extend_from_slice(&w.to_le_bytes());
                    }
                    let str = [s, 0.0, 0.0];
                    want.push(
                        oracle
                            .sample_axes_levels(&plain, &sampler, str, 1, lod)
                            .unwrap(),
                    );
                    let f = Bindings::fetch_axes(&plain, [texel, 0, 0], level as i32).unwrap();
                    want.push(f.map(f32::from_bits));
                    let l = bifrost_vk::testing::sampler::array_layer(layer, 3);
                    want.push(
                        oracle
                            .sample_axes_levels(&layer_levels(l), &sampler, str, 1, lod)
                            .unwrap(),
                    );
                    let f = Bindings::fetch_axes(
                        &layer_levels(ilayer as usize),
                        [texel, 0, 0],
                        level as i32,
                    )
                    .unwrap();
                    want.push(f.map(f32::from_bits));
                }
                let smp = hw_mip_sampler(&sampler, None);
                let obuf = dispatch_queries(
                    &mut gpu,
                    &binary,
                    &queries,
                    u64::from(INVOCATIONS) * 64,
                    &[Some(plain_desc), Some(array_desc)],
                    &[Some(smp), Some(smp)],
                )
                .unwrap_or_else(|e| panic!("{model:?}: {e}"));
                let got = gpu.read_f32s(obuf.va, (INVOCATIONS * 16) as usize);
                let nearest = !sampler.mag_linear && !sampler.min_linear && !sampler.mipmap_linear;
                assert_close(
                    &got,
                    &want,
                    |i| i % 2 == 1 || nearest,
                    &format!("{model:?} {mode:?} {layout:?} {sampler:?}"),
                );
                compared += got.len();
            }
        }
    }
    assert_eq!(compared, 2 * 4 * 2 * 32 * 16);
}

/// Mipmapped 2D arrays: `textures/texture_array_levels.comp`
/// (`textureLod` and `texelFetch` of a `sampler2DArray` at any level) over
/// three 11×7 RGBA8 UNORM layers with 4 levels (11×7, 5×3, 2×1, 1×1), one
/// Surface With Stride per layer and level in Mesa's order (layer ×
/// levels + level, `panfrost_emit_texture_payload`), Linear and Tiled,
/// every wrap mode, random filters, mipmap modes and LOD state, layers in
/// [−1, 4], G52 and v6 G72, against `Bindings::sample_levels` of layer
/// clamp(RNE(r), 0, 2). Nearest of NEAREST mipmaps and fetches exact, the
/// rest within 2^-21.
#[test]
fn mipmapped_arrays_match_the_reference_sampler() {
    let mut compared = 0;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("textures/texture_array_levels.comp.spv", model);
        for (k, mode) in AddressMode::ALL.into_iter().enumerate() {
            for layout in [TexelLayout::Linear, TexelLayout::Tiled] {
                let mut rng = Rng(0xa1e7 + 16 * k as u64 + (layout == TexelLayout::Tiled) as u64);
                let mut gpu = SimGpu::new(model);
                let (levels, desc) =
                    upload_levels(&mut gpu, &mut rng, (11, 7, 3, 4), TextureDim::D2, layout);
                let layer_levels =
                    |l: usize| -> Vec<Image> { levels.iter().map(|lv| lv[l].clone()).collect() };
                let sampler = random_lod_sampler(&mut rng, mode, mode);
                let oracle = Bindings::default();
                let mut queries = Vec::new();
                let mut want = Vec::new();
                for _ in 0..INVOCATIONS {
                    let st = [rng.unit() * 4.0 - 1.5, rng.unit() * 4.0 - 1.5];
                    let layer = rng.unit() * 5.0 - 1.0;
                    let lod = lod_on_grid(&mut rng, -2.0, 5.0);
                    let level = (rng.next() % 4) as usize;
                    let img = &levels[level][0];
                    let texel = [
                        (rng.next() % u64::from(img.width)) as i32,
                        (rng.next() % u64::from(img.height)) as i32,
                    ];
                    let ilayer = (rng.next() % 3) as i32;
                    for w in [
                        st[0].to_bits(),
                        st[1].to_bits(),
                        layer.to_bits(),
                        lod.to_bits(),
                    ] {
                        queries.extend_from_slice(&w.to_le_bytes());
                    }
                    for w in [texel[0], texel[1], ilayer, level as i32] {
                        queries.extend_from_slice(&w.to_le_bytes());
                    }
                    let l = bifrost_vk::testing::sampler::array_layer(layer, 3);
                    want.push(
                        oracle
                            .sample_levels(&layer_levels(l), &sampler, st[0], st[1], lod)
                            .unwrap(),
                    );
                    let img = &levels[level][ilayer as usize];
                    want.push(
                        img.texel(texel[0] as u32, texel[1] as u32)
                            .map(|x| x as f32),
                    );
                }
                let smp = hw_mip_sampler(&sampler, None);
                let obuf = dispatch_queries(
                    &mut gpu,
                    &binary,
                    &queries,
                    u64::from(INVOCATIONS) * 32,
                    &[Some(desc)],
                    &[Some(smp)],
                )
                .unwrap_or_else(|e| panic!("{model:?}: {e}"));
                let got = gpu.read_f32s(obuf.va, (INVOCATIONS * 8) as usize);
                let nearest = !sampler.mag_linear && !sampler.min_linear && !sampler.mipmap_linear;
                assert_close(
                    &got,
                    &want,
                    |i| i % 2 == 1 || nearest,
                    &format!("{model:?} {mode:?} {layout:?} {sampler:?}"),
                );
                compared += got.len();
            }
        }
    }
    assert_eq!(compared, 2 * 4 * 2 * 32 * 8);
}

/// Size queries of 1D, 3D and array images:
/// `textures/texture_size_dims.comp` (`textureSize` of a `sampler1D`,
/// `sampler3D`, `sampler2DArray` and `sampler1DArray` at every level,
/// `textureQueryLevels` of three of them). The driver's two words per
/// image (`TEXTURE_SIZE_WORD`): (width − 1) | (height − 1) << 16, and the
/// level count | (depth − 1 or layers − 1) << 16. Sizes 1, 65536 and
/// random, random level counts, G52 and G72: every component as the
/// spec's "Image Mip Level Sizing" (an array's layer count unchanged by
/// the level).
#[test]
fn size_queries_of_1d_3d_and_arrays_match_the_image() {
    use bifrost_vk::compiler::bifrost::binary::TEXTURE_SIZE_WORD;
    let mut compared = 0;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("textures/texture_size_dims.comp.spv", model);
        let mut rng = Rng(0x51e3 + (model == SimModel::G72) as u64);
        for case in 0..5 {
            let dim = |rng: &mut Rng, max: u32| -> u32 {
                match case {
                    0 => 1,
                    1 => max,
                    _ => 1 + (rng.next() % u64::from(max)) as u32,
                }
            };
            // (width, height, depth or layers) of t1, t3, a2, a1.
            let t1 = (dim(&mut rng, 65536), 1, 1);
            let t3 = (
                dim(&mut rng, 2048),
                dim(&mut rng, 2048),
                dim(&mut rng, 2048),
            );
            let a2 = (
                dim(&mut rng, 65536),
                dim(&mut rng, 65536),
                dim(&mut rng, 2048),
            );
            let a1 = (dim(&mut rng, 65536), 1, dim(&mut rng, 2048));
            let levels = |rng: &mut Rng, largest: u32| {
                1 + (rng.next() % u64::from(1 + largest.ilog2())) as u32
            };
            let l1 = levels(&mut rng, t1.0);
            let l3 = levels(&mut rng, t3.0.max(t3.1).max(t3.2));
            let la2 = levels(&mut rng, a2.0.max(a2.1));
            let la1 = levels(&mut rng, a1.0);
            let lmax = l1.min(l3).min(la2).min(la1);
            let lods: Vec<i32> = (0..INVOCATIONS).map(|i| (i % lmax) as i32).collect();
            let mut gpu = SimGpu::new(model);
            let qbuf = gpu.alloc(4 * u64::from(INVOCATIONS));
            let bytes: Vec<u8> = lods.iter().flat_map(|l| l.to_le_bytes()).collect();
            gpu.write(qbuf.va, &bytes);
            let obuf = gpu.alloc(48 * u64::from(INVOCATIONS));
            let size_word = |(w, h, third): (u32, u32, u32), levels: u32| {
                u64::from((w - 1) | (h - 1) << 16) | u64::from(levels | (third - 1) << 16) << 32
            };
            let base = binary.uniform_words as usize - binary.buffers.len();
            let mut words = vec![0u64; base];
            for &(set, binding) in &binary.buffers {
                words.push(match (set, binding) {
                    (s, 0) if s == TEXTURE_SIZE_WORD => size_word(t1, l1),
                    (s, 1) if s == TEXTURE_SIZE_WORD => size_word(t3, l3),
                    (s, 2) if s == TEXTURE_SIZE_WORD => size_word(a2, la2),
                    (s, 5) if s == TEXTURE_SIZE_WORD => size_word(a1, la1),
                    (0, 3) => qbuf.va,
                    (0, 4) => obuf.va,
                    b => panic!("unexpected entry {b:?}"),
                });
            }
            let code = gpu.upload(&binary);
            gpu.run_chain(|chain, pool, arch| {
                textured_dispatch(
                    chain,
                    pool,
                    arch,
                    (&binary, code, &words),
                    &[],
                    &[],
                    INVOCATIONS / 16,
                )?;
                Ok(true)
            })
            .unwrap_or_else(|e| panic!("{model:?}: {e}"));
            let got = gpu.read_u32s(obuf.va, 12 * INVOCATIONS as usize);
            for (i, r) in got.chunks(12).enumerate() {
                let l = lods[i] as u32;
                let m = |x: u32| (x >> l).max(1);
                let want = [
                    m(t1.0),
                    m(t3.0),
                    m(t3.1),
                    m(t3.2),
                    m(a2.0),
                    m(a2.1),
                    a2.2,
                    l3,
                    m(a1.0),
                    a1.2,
                    la2,
                    l1,
                ];
                assert_eq!(r, want, "{model:?} case {case} lod {l}");
                compared += 12;
            }
        }
    }
    assert_eq!(compared, 2 * 5 * 32 * 12);
}

/// Explicit gradients: `textures/texture_grad.comp` (`textureGrad` of a
/// `sampler2D` 13×9, a `sampler3D` 7×5×6 and a `sampler1D` of 13 texels,
/// each with all its levels, Linear) — the front end computes λbase =
/// log2 max(ρx, ρy) from the gradients and the size words (the spec's
/// "Scale Factor Operation", isotropic) and samples at that explicit LOD
/// (TEXC EXPLICIT, the register's 8:8 fixed point truncated toward zero,
/// Mesa's `bi_emit_texc_lod_88`). Random gradients (each component ±
/// 2^[−8, 1]), coordinates in [−1.5, 2.5], every wrap mode, random filters,
/// mipmap modes and LOD state, G52 and v6 G72. The reference: ρ in f64, λ
/// truncated to the same 1/256 grid, then `sample_levels` /
/// `sample_axes_levels`. A query whose λ·256 lies within 0.01 of an
/// integer is drawn again, so f32 against f64 cannot truncate
/// differently. Nearest of NEAREST mipmaps exact, the rest within 2^-21.
#[test]
fn explicit_gradients_match_the_reference_sampler() {
    use bifrost_vk::compiler::bifrost::binary::TEXTURE_SIZE_WORD;
    let mut compared = 0;
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("textures/texture_grad.comp.spv", model);
        for (k, mode) in AddressMode::ALL.into_iter().enumerate() {
            let mut rng = Rng(0x9ad + 16 * k as u64 + (model == SimModel::G72) as u64);
            let mut gpu = SimGpu::new(model);
            let layout = TexelLayout::Linear;
            let (l2, d2) = upload_levels(&mut gpu, &mut rng, (13, 9, 1, 4), TextureDim::D2, layout);
            let (l3, d3) = upload_levels(
                &mut gpu,
                &mut rng,
                (7, 5, 6, 3),
                TextureDim::D3 { depth: 6 },
                layout,
            );
            let (l1, d1) = upload_levels(&mut gpu, &mut rng, (13, 1, 1, 4), TextureDim::D1, layout);
            let l2: Vec<Image> = l2.into_iter().map(|mut l| l.remove(0)).collect();
            let sampler = random_lod_sampler(&mut rng, mode, mode);
            let oracle = Bindings::default();
            let sizes = [[13.0, 9.0, 1.0], [7.0, 5.0, 6.0], [13.0, 1.0, 1.0]];
            let axes = [2usize, 3, 1];
            let mut queries = Vec::new();
            let mut want = Vec::new();
            for _ in 0..INVOCATIONS {
                // Gradients until every image's λ is clear of the grid.
                let (str, dx, dy, lods) = loop {
                    let str: [f32; 3] = std::array::from_fn(|_| rng.unit() * 4.0 - 1.5);
                    let mut grad = || -> [f32; 3] {
                        std::array::from_fn(|_| {
                            let e = (rng.next() % 10) as i32 - 8;
                            let sign = if rng.next().is_multiple_of(2) {
                                1.0
                            } else {
                                -1.0
                            };
                            sign * (1.0 + rng.unit()) * 2f32.powi(e)
                        })
                    };
                    let (dx, dy) = (grad(), grad());
                    let mut lods = [0.0f32; 3];
                    let mut clear = true;
                    for img in 0..3 {
                        let rho = |g: [f32; 3]| -> f64 {
                            (0..axes[img])
                                .map(|a| (f64::from(g[a]) * sizes[img][a]).powi(2))
                                .sum::<f64>()
                                .sqrt()
                        };
                        let lambda = rho(dx).max(rho(dy)).log2();
                        let x = (lambda * 256.0).clamp(-4096.0, 4096.0);
                        if (x - x.round()).abs() < 0.01 {
                            clear = false;
                        }
                        lods[img] = (x.trunc() / 256.0) as f32;
                    }
                    if clear {
                        break (str, dx, dy, lods);
                    }
                };
                for v in [str, dx, dy] {
                    for w in [v[0], v[1], v[2], 0.0] {
                        queries.extend_from_slice(&w.to_bits().to_le_bytes());
                    }
                }
                want.push(
                    oracle
                        .sample_levels(&l2, &sampler, str[0], str[1], lods[0])
                        .unwrap(),
                );
                want.push(
                    oracle
                        .sample_axes_levels(&l3, &sampler, str, 3, lods[1])
                        .unwrap(),
                );
                want.push(
                    oracle
                        .sample_axes_levels(&l1, &sampler, str, 1, lods[2])
                        .unwrap(),
                );
            }
            let qbuf = gpu.alloc(queries.len() as u64);
            gpu.write(qbuf.va, &queries);
            let out_bytes = u64::from(INVOCATIONS) * 48;
            let obuf = gpu.alloc(out_bytes);
            let size_word = |(w, h, third): (u32, u32, u32), levels: u32| {
                u64::from((w - 1) | (h - 1) << 16) | u64::from(levels | (third - 1) << 16) << 32
            };
            let base = binary.uniform_words as usize - binary.buffers.len();
            let mut words = vec![0u64; base];
            for &(set, binding) in &binary.buffers {
                words.push(match (set, binding) {
                    (s, 0) if s == TEXTURE_SIZE_WORD => size_word((13, 9, 1), 4),
                    (s, 1) if s == TEXTURE_SIZE_WORD => size_word((7, 5, 6), 3),
                    (s, 2) if s == TEXTURE_SIZE_WORD => size_word((13, 1, 1), 4),
                    (0, 3) => qbuf.va,
                    (0, 4) => obuf.va,
                    b => panic!("unexpected entry {b:?}"),
                });
            }
            let code = gpu.upload(&binary);
            let mut smp = hw_mip_sampler(&sampler, None);
            smp.lod.wrap_r = Some(to_hw(sampler.address_w));
            gpu.run_chain(|chain, pool, arch| {
                textured_dispatch(
                    chain,
                    pool,
                    arch,
                    (&binary, code, &words),
                    &[Some(d2), Some(d3), Some(d1)],
                    &[Some(smp), Some(smp), Some(smp)],
                    INVOCATIONS / 16,
                )?;
                Ok(true)
            })
            .unwrap_or_else(|e| panic!("{model:?}: {e}"));
            let got = gpu.read_f32s(obuf.va, (INVOCATIONS * 12) as usize);
            let nearest = !sampler.mag_linear && !sampler.min_linear && !sampler.mipmap_linear;
            assert_close(
                &got,
                &want,
                |_| nearest,
                &format!("{model:?} {mode:?} {sampler:?}"),
            );
            compared += got.len();
        }
    }
    assert_eq!(compared, 2 * 4 * 32 * 12);
}

/// A texture whose `Dimension` differs from the access's (a 2D texture
/// read by the 3D shader, a 3D one by the 1D shader, a 2D one by the 1D
/// shader) faults the job — the hardware's answer is undocumented — on
/// the G52 and the G72, and the next dispatch with the right descriptors
/// runs.
#[test]
fn textures_of_another_dimension_fault() {
    for model in [SimModel::G52, SimModel::G72] {
        let three = compile_named("textures/texture_3d.comp.spv", model);
        let one = compile_named("textures/texture_1d.comp.spv", model);
        let mut rng = Rng(0xd1a);
        let mut gpu = SimGpu::new(model);
        let layout = TexelLayout::Linear;
        let (_, d1) = upload_levels(&mut gpu, &mut rng, (8, 1, 1, 1), TextureDim::D1, layout);
        let (_, a1) = upload_levels(&mut gpu, &mut rng, (8, 1, 2, 1), TextureDim::D1, layout);
        let (_, d2) = upload_levels(&mut gpu, &mut rng, (8, 4, 1, 1), TextureDim::D2, layout);
        let (_, d3) = upload_levels(
            &mut gpu,
            &mut rng,
            (8, 4, 2, 1),
            TextureDim::D3 { depth: 2 },
            layout,
        );
        let smp = hw_sampler(&Sampler::simple(false, AddressMode::Repeat));
        let queries = vec![0u8; 32 * INVOCATIONS as usize];
        let out = u64::from(INVOCATIONS) * 64;
        let run = |gpu: &mut SimGpu, binary: &ShaderBinary, textures: &[Option<TextureDesc>]| {
            dispatch_queries(
                gpu,
                binary,
                &queries,
                out,
                textures,
                &[Some(smp), Some(smp)],
            )
        };
        for (binary, textures, what) in [
            (&three, [Some(d2), None], "a 2D texture read as 3D"),
            (&one, [Some(d3), Some(a1)], "a 3D texture read as 1D"),
            (&one, [Some(d2), Some(a1)], "a 2D texture read as 1D"),
        ] {
            let r = run(&mut gpu, binary, &textures);
            assert!(r.is_err(), "{model:?}: {what} must fault");
        }
        run(&mut gpu, &three, &[Some(d3)]).unwrap_or_else(|e| panic!("{model:?}: {e}"));
        run(&mut gpu, &one, &[Some(d1), Some(a1)]).unwrap_or_else(|e| panic!("{model:?}: {e}"));
    }
}

/// `cubes` cubes of `levels` levels of n × n RGBA8 UNORM faces in GPU
/// memory: each level one allocation of its 6 × cubes faces (face f of
/// cube c at layer 6c + f), a face's bytes plus 64 apart; the images as
/// `[cube][level][face]` and the descriptor.
fn upload_cubes(
    gpu: &mut SimGpu,
    rng: &mut Rng,
    (n, levels, cubes): (u32, u32, u32),
    layout: TexelLayout,
) -> (Vec<Vec<Vec<Image>>>, TextureDesc) {
    let mut images = vec![vec![Vec::new(); levels as usize]; cubes as usize];
    let mut desc: Option<TextureDesc> = None;
    for l in 0..levels {
        let m = (n >> l).max(1);
        let (row_stride, face_bytes) = match layout {
            TexelLayout::Linear => (4 * m, u64::from(4 * m * m)),
            TexelLayout::Tiled => {
                let rs = 16 * 4 * m.next_multiple_of(16);
                (rs, u64::from(rs) * u64::from(m.div_ceil(16)))
            }
        };
        let stride = face_bytes + 64;
        let buf = gpu.alloc(stride * u64::from(6 * cubes));
        for c in 0..cubes {
            for f in 0..6u32 {
                let base = buf.va + stride * u64::from(6 * c + f);
                let texels: Vec<[u8; 4]> = (0..m * m)
                    .map(|_| {
                        let v = rng.next();
                        [v as u8, (v >> 8) as u8, (v >> 16) as u8, (v >> 24) as u8]
                    })
                    .collect();
                for y in 0..m {
                    for x in 0..m {
                        let off = match layout {
                            TexelLayout::Linear => u64::from(y * row_stride + 4 * x),
                            TexelLayout::Tiled => tiled_offset(x, y, u64::from(row_stride)),
                        };
                        gpu.write(base + off, &texels[(y * m + x) as usize]);
                    }
                }
                images[c as usize][l as usize].push(Image {
                    width: m,
                    height: m,
                    texels,
                    format: ImageFormat::Rgba8Unorm,
                });
            }
        }
        match desc.as_mut() {
            None => {
                desc = Some(TextureDesc {
                    dim: TextureDim::Cube,
                    layers: 6 * cubes,
                    layer_stride: stride,
                    levels: 1,
                    mips: Default::default(),
                    address: buf.va,
                    width: n,
                    height: n,
                    row_stride,
                    layout,
                    format: TexelFormat::Rgba8Unorm,
                })
            }
            Some(d) => {
                d.mips[l as usize - 1] = MipLevel {
                    address: buf.va,
                    row_stride,
                    slice_stride: stride,
                };
                d.levels += 1;
            }
        }
    }
    (images, desc.unwrap())
}

/// A random direction for cube sampling: anywhere (kind 0), with an exact
/// tie between the largest magnitudes (1: two or three equal components,
/// on a face edge or a corner of the cube), within a texel of a face's
/// edge (2) or of its corner (3) at an `n`-texel level 0.
fn cube_direction(rng: &mut Rng, kind: u64, n: u32) -> [f32; 3] {
    let sign = |rng: &mut Rng| {
        if rng.next().is_multiple_of(2) {
            1.0f32
        } else {
            -1.0
        }
    };
    match kind {
        0 => [0; 3].map(|_: i32| rng.unit() * 2.0 - 1.0),
        1 => {
            let a = 0.25 + rng.unit();
            let mut d = [a * sign(rng), a * sign(rng), (rng.unit() * 2.0 - 1.0) * a];
            if rng.next().is_multiple_of(4) {
                d[2] = a * sign(rng);
            }
            let k = (rng.next() % 3) as usize;
            d.swap(k, 2);
            d
        }
        _ => {
            let face = (rng.next() % 6) as usize;
            let near_edge = |rng: &mut Rng| sign(rng) * (1.0 - rng.unit() * 2.0 / n as f32);
            let sc = if kind == 3 {
                near_edge(rng)
            } else {
                rng.unit() * 2.0 - 1.0
            };
            let tc = near_edge(rng);
            let (sc, tc) = if rng.next().is_multiple_of(2) {
                (sc, tc)
            } else {
                (tc, sc)
            };
            let ma = 0.5 + rng.unit() * 3.0;
            bifrost_vk::testing::sampler::cube_direction(face, sc, tc).map(|c| ma * c)
        }
    }
}

/// Whether nearest filtering of `dir` is well away from every texel
/// boundary of an `n`-texel cube's levels (2^-10 texel): the shader's f32
/// face coordinates may differ from the reference's f64 ones in the last
/// bits, which must not change the texel. Coordinates on or past the face's
/// edge clamp to the edge texel in both.
fn nearest_is_safe(dir: [f32; 3], n: u32, levels: u32) -> bool {
    let (_, s, t) = bifrost_vk::testing::sampler::cube_face(dir);
    (0..levels).all(|l| {
        let m = f64::from((n >> l).max(1));
        [s, t].iter().all(|&c| {
            let u = c * m;
            u <= 2f64.powi(-10) || u >= m - 2f64.powi(-10) || {
                let f = u - u.floor();
                f > 2f64.powi(-10) && f < 1.0 - 2f64.powi(-10)
            }
        })
    })
}

/// Cube maps and cube arrays: `texture_cube.comp`'s `textureLod(samplerCube,
/// dir, lod)` and `texture_cube_array.comp`'s `textureLod(samplerCubeArray,
/// (dir, layer), lod)` (TEXC dimension Cube: the face selected by our ALU
/// code, packed into the s word; a cube array's layer in the array
/// register), each with `textureSize` at a level, on RGBA8 UNORM cubes
/// (8×8 faces with 4 levels; arrays of 3 cubes of 6×6 faces with 3
/// levels), Linear and Tiled, directions anywhere, with exact ties (face
/// edges and cube corners), within a texel of face edges and of corners,
/// random LODs in [−1, 4] and sampler LOD state (filters, mipmap modes,
/// clamps, bias on the 1/256 grid), random wrap modes (which cubes
/// ignore), G52 (v7 payload: faces as layers, levels inside) and a v6 G72
/// (levels outside, faces inside), against the reference sampler's face
/// selection and seamless edge handling (`Bindings::sample_cube`).
/// Bound: nearest filtering of NEAREST mipmaps exact (directions within
/// 2^-10 texel of a texel boundary are redrawn: the shader's f32 face
/// coordinates — 1/ma from `frcp`, about one ULP — and the reference's
/// f64 ones may fall on either side); otherwise 2^-14 (a coordinate a few
/// ULPs apart moves a bilinear weight by about n · 2^-22). Sizes exactly.
#[test]
fn cube_maps_and_cube_arrays_match_the_reference_sampler() {
    let (mut compared, mut linear_edges, mut per_kind) = (0usize, 0usize, [0usize; 4]);
    for model in [SimModel::G52, SimModel::G72] {
        for array in [false, true] {
            let name = if array {
                "textures/texture_cube_array.comp.spv"
            } else {
                "textures/texture_cube.comp.spv"
            };
            let binary = compile_named(name, model);
            let (n, levels, cubes) = if array { (6, 3, 3) } else { (8, 4, 1) };
            for case in 0..8u64 {
                let mut rng = Rng(0xc0be_0000
                    + case
                    + 64 * u64::from(array)
                    + 256 * (model == SimModel::G72) as u64);
                let layout = if case % 2 == 0 {
                    TexelLayout::Linear
                } else {
                    TexelLayout::Tiled
                };
                let mut gpu = SimGpu::new(model);
                let (images, desc) = upload_cubes(&mut gpu, &mut rng, (n, levels, cubes), layout);
                let mode = AddressMode::ALL[(rng.next() % 4) as usize];
                let mut smp = Sampler::simple(case / 2 % 2 == 1, mode);
                smp.min_linear = rng.next().is_multiple_of(2);
                smp.mipmap_linear = case >= 4;
                smp.min_lod = lod_on_grid(&mut rng, 0.0, 1.0);
                smp.max_lod = lod_on_grid(&mut rng, smp.min_lod, 4.0);
                smp.lod_bias = lod_on_grid(&mut rng, -1.0, 1.0);
                let exact = !smp.mag_linear && !smp.min_linear && !smp.mipmap_linear;
                let (mut queries, mut want, mut sizes) = (Vec::new(), Vec::new(), Vec::new());
                for q in 0..INVOCATIONS {
                    let kind = u64::from(q % 4);
                    let dir = loop {
                        let d = cube_direction(&mut rng, kind, n);
                        if !exact || nearest_is_safe(d, n, levels) {
                            break d;
                        }
                    };
                    per_kind[kind as usize] += 1;
                    if !exact && kind >= 2 {
                        linear_edges += 1;
                    }
                    let layer = rng.unit() * (cubes as f32 + 0.8) - 0.4;
                    let cube = bifrost_vk::testing::sampler::array_layer(layer, cubes as usize);
                    let lod = lod_on_grid(&mut rng, -1.0, 4.0);
                    let level = (rng.next() % u64::from(levels)) as i32;
                    for w in [
                        dir[0].to_bits(),
                        dir[1].to_bits(),
                        dir[2].to_bits(),
                        layer.to_bits(),
                    ] {
                        queries.extend_from_slice(&w.to_le_bytes());
                    }
                    for w in [lod.to_bits(), level as u32, 0, 0] {
                        queries.extend_from_slice(&w.to_le_bytes());
                    }
                    want.push(Bindings::sample_cube(&images[cube], &smp, dir, lod).unwrap());
                    let m = (n >> level).max(1) as f32;
                    sizes.push([m, m, if array { cubes as f32 } else { 0.0 }, 0.0]);
                }
                let size_word = u64::from((n - 1) | (n - 1) << 16)
                    | u64::from(levels | if array { (cubes - 1) << 16 } else { 0 }) << 32;
                let hw = hw_mip_sampler(&smp, None);
                let obuf = dispatch_sized_queries(
                    &mut gpu,
                    &binary,
                    &queries,
                    32 * u64::from(INVOCATIONS),
                    Some(size_word),
                    &[Some(desc)],
                    &[Some(hw)],
                )
                .unwrap_or_else(|e| panic!("{model:?} array {array} case {case}: {e}"));
                let got = gpu.read_f32s(obuf.va, 8 * INVOCATIONS as usize);
                for (i, r) in got.chunks(8).enumerate() {
                    let (g, w) = (&r[..4], want[i]);
                    for c in 0..4 {
                        let ok = if exact {
                            g[c] == w[c]
                        } else {
                            (f64::from(g[c]) - f64::from(w[c])).abs() <= 2f64.powi(-14)
                        };
                        assert!(
                            ok,
                            "{model:?} array {array} case {case} {smp:?}: invocation {i} component {c}: sim {g:?} reference {w:?}"
                        );
                    }
                    assert_eq!(
                        &r[4..],
                        &sizes[i],
                        "{model:?} array {array} case {case}: size {i}"
                    );
                    compared += 8;
                }
            }
        }
    }
    eprintln!(
        "{compared} components compared; directions by kind (any, tie, edge, corner): {per_kind:?}; \
         {linear_edges} linear near an edge or corner"
    );
    assert_eq!(compared, 2 * 2 * 8 * 32 * 8);
}

/// Cube reads the simulator cannot honour fault the job (never panic),
/// on the G52 and a v6 G72: a cube read through 2D instructions
/// (`texture_lod.comp`'s TEXS_2D and TEXC of dimension 2), a 2D image read
/// as a cube, a two-cube array read without an array index, and a cube
/// descriptor whose faces are not square (`Height` edited in GPU memory;
/// `jm::texture` refuses to write one). The next dispatch runs.
#[test]
fn bad_cube_reads_fault_the_job() {
    use bifrost_vk::compiler::bifrost::binary::TEXTURE_SIZE_WORD;
    for model in [SimModel::G52, SimModel::G72] {
        let cube_binary = compile_named("textures/texture_cube.comp.spv", model);
        let plain_binary = compile_for(model);
        let mut gpu = SimGpu::new(model);
        let mut rng = Rng(0xbad_c0be);
        let (_, cube) = upload_cubes(&mut gpu, &mut rng, (4, 1, 1), TexelLayout::Linear);
        let (_, two_cubes) = upload_cubes(&mut gpu, &mut rng, (4, 1, 2), TexelLayout::Linear);
        let (_, flat) = upload(
            &mut gpu,
            &mut rng,
            4,
            4,
            TexelLayout::Linear,
            ImageFormat::Rgba8Unorm,
        );
        let not_square = TextureDesc { height: 2, ..cube };
        let refused = gpu.run_chain(|_, pool, arch| {
            write_texture_tables(pool, arch, &[Some(not_square)], &[])?;
            Ok(false)
        });
        assert!(
            refused.is_err(),
            "jm::texture must refuse non-square cube faces"
        );
        let smp = hw_sampler(&Sampler::simple(false, AddressMode::Repeat));
        let q = gpu.alloc(32 * 32);
        let bytes: Vec<u8> = (0..32 * 8)
            .flat_map(|k| if k % 8 == 0 { 1.0f32 } else { 0.0 }.to_le_bytes())
            .collect();
        gpu.write(q.va, &bytes);
        let out = gpu.alloc(48 * 32);
        for (case, binary, textures) in [
            ("a cube read as 2D", &plain_binary, [Some(cube), Some(cube)]),
            (
                "a 2D image read as a cube",
                &cube_binary,
                [Some(flat), None],
            ),
            (
                "a cube array without an index",
                &cube_binary,
                [Some(two_cubes), None],
            ),
            (
                "faces that are not square",
                &cube_binary,
                [Some(cube), None],
            ),
        ] {
            let words = fau_words(binary, |b| match b {
                (s, _) if s == TEXTURE_SIZE_WORD => (0x0003_0003, 0),
                (0, 3) => (q.va, 32 * 32),
                _ => (out.va, 48 * 32),
            });
            let code = gpu.upload(binary);
            let textures: Vec<_> = textures.into_iter().filter(|t| t.is_some()).collect();
            let r = gpu.run_chain_edited(
                |chain, pool, arch| {
                    textured_dispatch(
                        chain,
                        pool,
                        arch,
                        (binary, code, &words),
                        &textures,
                        &[Some(smp), None, Some(smp)],
                        2,
                    )?;
                    Ok(true)
                },
                |sim, head| {
                    if case != "faces that are not square" {
                        return;
                    }
                    let table = texture_table(sim, model, head);
                    // Word 1: `Width` − 1 in bits 0–15, `Height` − 1 in 16–31.
                    let mut b = [0u8; 4];
                    sim.read_gpu(table + 4, &mut b).unwrap();
                    let v = u32::from_le_bytes(b) & 0xffff | 1 << 16;
                    sim.write_gpu(table + 4, &v.to_le_bytes()).unwrap();
                },
            );
            assert!(r.is_err(), "{model:?} {case}: the job must fault");
        }
        assert!(gpu.run_chain(|_, _, _| Ok(false)).unwrap().is_none());
    }
}

/// Whether a gather of `dir` is well away from the boundaries where its
/// LINEAR footprint moves (texel centres of the `n`-texel level 0, 2^-10
/// texel), for the reason of [`nearest_is_safe`].
fn gather_is_safe(dir: [f32; 3], n: u32) -> bool {
    let (_, s, t) = bifrost_vk::testing::sampler::cube_face(dir);
    [s, t].iter().all(|&c| {
        let u = c * f64::from(n) - 0.5;
        let f = u - u.floor();
        f > 2f64.powi(-10) && f < 1.0 - 2f64.powi(-10)
    })
}

/// Gathers of cube maps: `texture_cube_gather.comp`'s `textureGather` of
/// components g and r of a samplerCube (TEXC FETCH GATHER4 with dimension
/// Cube and the packed face) over RGBA8 UNORM cubes of 5×5 and 8×8 faces,
/// Linear and Tiled, the directions of the cube test (anywhere, exact
/// ties, near edges and corners: the footprint's texels past an edge come
/// from the neighbouring face, past a corner the average of three), G52
/// and a v6 G72, against `Bindings::gather_cube` ("Texel Gathering":
/// i0j1, i1j1, i1j0, i0j0). Bound: 2^-22 (directions within 2^-10 texel
/// of a footprint change redrawn; a texel is the same f32 in both, a
/// corner's average of three differs by the simulator's f32 texels,
/// c / 255 rounded once, before its f64 average: one ULP at most).
#[test]
fn cube_gathers_match_the_reference_sampler() {
    let (mut compared, mut corners, mut exact) = (0usize, 0usize, 0usize);
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("textures/texture_cube_gather.comp.spv", model);
        for case in 0..4u64 {
            let mut rng = Rng(0x6a7_c0be + case + 16 * (model == SimModel::G72) as u64);
            let layout = if case % 2 == 0 {
                TexelLayout::Linear
            } else {
                TexelLayout::Tiled
            };
            let n = if case < 2 { 5 } else { 8 };
            let mut gpu = SimGpu::new(model);
            let (images, desc) = upload_cubes(&mut gpu, &mut rng, (n, 1, 1), layout);
            let faces = &images[0][0];
            let (mut queries, mut want) = (Vec::new(), Vec::new());
            for q in 0..INVOCATIONS {
                let kind = u64::from(q % 4);
                let dir = loop {
                    let d = cube_direction(&mut rng, kind, n);
                    if gather_is_safe(d, n) {
                        break d;
                    }
                };
                corners += usize::from(kind == 3);
                for w in [
                    dir[0].to_bits(),
                    dir[1].to_bits(),
                    dir[2].to_bits(),
                    0,
                    0,
                    0,
                    0,
                    0,
                ] {
                    queries.extend_from_slice(&w.to_le_bytes());
                }
                want.push(Bindings::gather_cube(faces, dir, 1).unwrap());
                want.push(Bindings::gather_cube(faces, dir, 0).unwrap());
            }
            let smp = Sampler::simple(true, AddressMode::Repeat);
            let obuf = dispatch_queries(
                &mut gpu,
                &binary,
                &queries,
                32 * u64::from(INVOCATIONS),
                &[Some(desc)],
                &[Some(hw_sampler(&smp))],
            )
            .unwrap_or_else(|e| panic!("{model:?} case {case}: {e}"));
            let got = gpu.read_f32s(obuf.va, 8 * INVOCATIONS as usize);
            for (i, (g, w)) in got.chunks(4).zip(&want).enumerate() {
                for c in 0..4 {
                    assert!(
                        (f64::from(g[c]) - f64::from(w[c])).abs() <= 2f64.powi(-22),
                        "{model:?} case {case}: invocation {} gather {}: sim {g:?} reference {w:?}",
                        i / 2,
                        i % 2
                    );
                    exact += usize::from(g[c] == w[c]);
                }
                compared += 4;
            }
        }
    }
    eprintln!(
        "{compared} gathered components compared ({exact} exactly equal), {corners} directions \
         near a corner"
    );
    assert_eq!(compared, 2 * 4 * 32 * 8);
}

/// Explicit gradients of cube maps: `texture_cube_grad.comp`
/// (`textureGrad(samplerCube, dir, dPdx, dPdy)`: the front end selects the
/// face as the backend does and computes λbase by the spec's "Cube Map
/// Derivative Transformation", then TEXC EXPLICIT with its 8:8 register
/// truncated toward zero) on 16×16 RGBA8 cubes of 5 levels, Linear and
/// Tiled, the cube test's directions (anywhere, exact ties, near edges and
/// corners), random gradients (each component ± 2^[−9, 0]), bilinear
/// filtering, NEAREST and LINEAR mipmaps, random LOD state, G52 and a v6
/// G72, against `Bindings::sample_cube` at `cube_grad_lod`'s λ (f64)
/// truncated to the same 1/256 grid; a query whose λ·256 lies within 0.01
/// of an integer is drawn again. Bound 2^-14 (as the cube test).
#[test]
fn cube_gradients_match_the_reference_sampler() {
    use bifrost_vk::testing::sampler::cube_grad_lod;
    let (mut compared, mut per_level) = (0usize, [0usize; 5]);
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile_named("textures/texture_cube_grad.comp.spv", model);
        for case in 0..4u64 {
            let mut rng = Rng(0x64ad_c0be + case + 16 * (model == SimModel::G72) as u64);
            let layout = if case % 2 == 0 {
                TexelLayout::Linear
            } else {
                TexelLayout::Tiled
            };
            let (n, levels) = (16u32, 5u32);
            let mut gpu = SimGpu::new(model);
            let (images, desc) = upload_cubes(&mut gpu, &mut rng, (n, levels, 1), layout);
            let mode = AddressMode::ALL[(rng.next() % 4) as usize];
            let mut smp = Sampler::simple(true, mode);
            smp.mipmap_linear = case >= 2;
            smp.min_lod = lod_on_grid(&mut rng, 0.0, 1.0);
            smp.max_lod = lod_on_grid(&mut rng, smp.min_lod + 1.0, 4.0);
            smp.lod_bias = lod_on_grid(&mut rng, -1.0, 1.0);
            let (mut queries, mut want) = (Vec::new(), Vec::new());
            for q in 0..INVOCATIONS {
                let (dir, dx, dy, lod) = loop {
                    let dir = cube_direction(&mut rng, u64::from(q % 4), n);
                    let mut grad = || -> [f32; 3] {
                        std::array::from_fn(|_| {
                            let e = (rng.next() % 10) as i32 - 9;
                            let sign = if rng.next().is_multiple_of(2) {
                                1.0
                            } else {
                                -1.0
                            };
                            sign * (1.0 + rng.unit()) * 2f32.powi(e)
                        })
                    };
                    let (dx, dy) = (grad(), grad());
                    let x = (cube_grad_lod(n, dir, dx, dy) * 256.0).clamp(-4096.0, 4096.0);
                    if (x - x.round()).abs() >= 0.01 {
                        break (dir, dx, dy, (x.trunc() / 256.0) as f32);
                    }
                };
                let lambda = (lod + smp.lod_bias).clamp(smp.min_lod, smp.max_lod);
                per_level[(lambda.clamp(0.0, 4.0) + 0.5).ceil() as usize - 1] += 1;
                for v in [dir, dx, dy] {
                    for w in [v[0], v[1], v[2], 0.0] {
                        queries.extend_from_slice(&w.to_bits().to_le_bytes());
                    }
                }
                want.push(Bindings::sample_cube(&images[0], &smp, dir, lod).unwrap());
            }
            let size_word = u64::from((n - 1) | (n - 1) << 16) | u64::from(levels) << 32;
            let hw = hw_mip_sampler(&smp, None);
            let obuf = dispatch_sized_queries(
                &mut gpu,
                &binary,
                &queries,
                16 * u64::from(INVOCATIONS),
                Some(size_word),
                &[Some(desc)],
                &[Some(hw)],
            )
            .unwrap_or_else(|e| panic!("{model:?} case {case}: {e}"));
            let got = gpu.read_f32s(obuf.va, 4 * INVOCATIONS as usize);
            for (i, (g, w)) in got.chunks(4).zip(&want).enumerate() {
                for c in 0..4 {
                    assert!(
                        (f64::from(g[c]) - f64::from(w[c])).abs() <= 2f64.powi(-14),
                        "{model:?} case {case} {smp:?}: invocation {i}: sim {g:?} reference {w:?}"
                    );
                }
                compared += 4;
            }
        }
    }
    eprintln!("{compared} components compared; λ's nearest level 0..4: {per_level:?}");
    assert_eq!(compared, 2 * 4 * 32 * 4);
    assert!(
        per_level.iter().filter(|&&k| k > 0).count() >= 3,
        "{per_level:?}"
    );
}

/// The GPU address of the texture table of the COMPUTE job at `head`
/// (its Draw section's `Textures` pointer), read through the simulator.
fn texture_table(sim: &bifrost_vk::kmod::sim::SimDevice, model: SimModel, head: u64) -> u64 {
    let l = bifrost_vk::hw::layouts(model.arch());
    let draw = l.compute_job.section("Draw").unwrap().offset as u64;
    let mut w = [0u8; 8];
    let at = head + draw + u64::from(bifrost_vk::hw::draw::dcd::TEXTURES.start / 8);
    sim.read_gpu(at, &mut w).unwrap();
    let table = u64::from_le_bytes(w);
    assert_ne!(table, 0, "no texture table at {at:#x}");
    table
}
