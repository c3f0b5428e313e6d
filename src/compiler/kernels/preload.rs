//! The colour preload shader: the fragment program a FRAGMENT job's
//! pre-frame Draw runs over every pixel of a tile before the tile's
//! primitives, so that the tile buffer starts with the attachments' current
//! contents (Vulkan's `VK_ATTACHMENT_LOAD_OP_LOAD`; genxml v6.xml/v7.xml
//! "Pre Post Frame Shader Mode", the framebuffer's `Frame Shader DCDs`).
//!
//! For each loaded render target n: `texelFetch(texture n, ivec2(
//! gl_FragCoord.xy), 0)` stored to colour output n, as the component type
//! the target's blend conversion takes (what Mesa's preload shader does,
//! `src/panfrost/vulkan/panvk_vX_cmd_fb_preload.c`: one texel fetch per
//! target at the pixel's coordinate, written to `FRAG_RESULT_DATA0 + n`).
//! Texture n is binding n of set 0 (`compiler::bifrost::isel::texture`'s
//! convention); the fetch uses no sampler. No push uniforms, no varyings:
//! the pixel position comes from the fragment-position preload (r59).
//!
//! Single-sampled only: one fetch per pixel at level 0. Nothing here
//! records jobs (`jm::preload` does).

use crate::compiler::ir::*;

/// What a loaded target's texels are read as (its blend conversion's
/// register format: F32 for normalized and float formats, U32/S32 for
/// integer ones).
pub type PreloadType = SampledType;

/// The preload shader for `targets` (index n: render target n; `None`:
/// not loaded, its output not written). Fragment stage, no push uniforms.
pub fn preload_colors(targets: &[Option<PreloadType>]) -> Shader {
    let mut s = Shader::new(Stage::Fragment);
    s.info.name = "preload_colors".into();
    let vec4 = ValueType::new(32, 4);
    let mut outputs = Vec::new();
    for (n, t) in targets.iter().enumerate() {
        let Some(t) = t else { continue };
        let format = match t {
            SampledType::Float => ColorFormat::Float,
            SampledType::Sint => ColorFormat::Sint,
            SampledType::Uint => ColorFormat::Uint,
        };
        s.info.color_formats.push((n as u32, format));
        outputs.push((n as u32, *t, s.outputs.len() as u32));
        s.outputs.push(Output {
            name: format!("color{n}"),
            slot: OutputSlot::Location {
                location: n as u32,
                component: 0,
            },
            ty: vec4,
            xfb: None,
        });
    }
    let mut b = Builder::new(&mut s);
    if !outputs.is_empty() {
        let coord = b.sysval(SysVal::FragCoord, vec4);
        let xy = b.swizzle(coord, &[0, 1]);
        // gl_FragCoord.xy is the pixel's centre (x + 0.5, y + 0.5): the
        // conversion truncates it to the pixel.
        let pixel = b.alu_typed(AluOp::F2i, ValueType::new(32, 2), &[xy]);
        let lod = b.imm_i32(0);
        for (n, ty, output) in outputs {
            let texel = b.load(
                Intrinsic::Texture {
                    set: 0,
                    binding: n,
                    sampler: None,
                    op: TexOp::Fetch,
                    ty,
                    array: false,
                    dim: TexDim::D2,
                    offset: [0, 0],
                },
                vec4,
                &[pixel, lod],
            );
            b.store(Intrinsic::StoreOutput { output }, &[texel]);
        }
    }
    b.finish();
    s
}

/// The depth preload shader: `gl_FragDepth = texelFetch(texture 0,
/// ivec2(gl_FragCoord.xy), 0).r` (a D32 attachment read as R32F; Mesa's
/// preload writes `FRAG_RESULT_DEPTH` from a fetch the same way). The
/// compiler's epilogue sends it with `ZS_EMIT.z`.
pub fn preload_depth() -> Shader {
    let mut s = Shader::new(Stage::Fragment);
    s.info.name = "preload_depth".into();
    s.outputs.push(Output {
        name: "depth".into(),
        slot: OutputSlot::BuiltIn(BuiltIn::FragDepth),
        ty: ValueType::F32,
        xfb: None,
    });
    let vec4 = ValueType::new(32, 4);
    let mut b = Builder::new(&mut s);
    let coord = b.sysval(SysVal::FragCoord, vec4);
    let xy = b.swizzle(coord, &[0, 1]);
    let pixel = b.alu_typed(AluOp::F2i, ValueType::new(32, 2), &[xy]);
    let lod = b.imm_i32(0);
    let texel = b.load(
        Intrinsic::Texture {
            set: 0,
            binding: 0,
            sampler: None,
            op: TexOp::Fetch,
            ty: SampledType::Float,
            array: false,
            dim: TexDim::D2,
            offset: [0, 0],
        },
        vec4,
        &[pixel, lod],
    );
    let depth = b.channel(texel, 0);
    b.store(Intrinsic::StoreOutput { output: 0 }, &[depth]);
    b.finish();
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::bifrost::{self, Arch, Options};

    /// The shader compiles on both generations, reads the fragment
    /// position and writes exactly the loaded targets.
    #[test]
    fn preload_shader_compiles_and_writes_the_loaded_targets() {
        let targets = [
            Some(SampledType::Float),
            None,
            Some(SampledType::Uint),
            Some(SampledType::Sint),
        ];
        for arch in [Arch::V6, Arch::V7] {
            let s = preload_colors(&targets);
            let bin = bifrost::compile(
                &s,
                Options {
                    arch,
                    push_uniform_words: Some(0),
                    ubo_table: false,
                },
            )
            .unwrap();
            let f = bin.fragment.as_ref().unwrap();
            assert!(f.preloads.fragment_position);
            let written: Vec<_> = f
                .render_targets
                .iter()
                .map(|r| (r.index, r.format))
                .collect();
            use crate::compiler::bifrost::binary::BlendRegisterFormat as R;
            assert_eq!(written, vec![(0, R::F32), (2, R::U32), (3, R::S32)]);
            assert_eq!(bin.uniform_words, 0);
            let depth = bifrost::compile(
                &preload_depth(),
                Options {
                    arch,
                    push_uniform_words: Some(0),
                    ubo_table: false,
                },
            )
            .unwrap();
            let f = depth.fragment.as_ref().unwrap();
            assert!(f.writes_depth && f.render_targets.is_empty());
        }
    }
}
