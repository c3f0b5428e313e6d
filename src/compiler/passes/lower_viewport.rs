//! `lower_viewport`: a vertex shader's `gl_Position` → the position the
//! tiler reads. Mali's tiler does no perspective division or viewport
//! transform of its own: the vertex shader stores framebuffer coordinates
//! and the reciprocal of w (Mesa does the same lowering for Bifrost before
//! its backend, `nir_lower_viewport_transform` called from
//! `src/panfrost/compiler/bifrost_compile.c`; PanVk's G52 vertex shaders in
//! the reference vectors compute `x · scale + offset` with FMA and store
//! the vec4 with the "Snap 4" varying format).
//!
//! Every `store_output` of the `Position` built-in stores instead
//!
//! ```text
//! rw = 1 / w
//! (x · rw · sx + ox, y · rw · sy + oy, z · rw · sz + oz, rw)
//! ```
//!
//! with `(sx, sy, sz)` / `(ox, oy, oz)` the viewport scale and offset of
//! the canonical sysval block (`sysval_offset::VIEWPORT`; for a Vulkan
//! viewport (x, y, width, height, minDepth, maxDepth): scale = (w/2, h/2,
//! maxDepth − minDepth), offset = (x + w/2, y + h/2, minDepth), the
//! spec's "Controlling the Viewport" equations). The six words are loaded
//! as uniforms: the pass runs **after** `lower_sysvals` (the whole shader
//! is then in `load_uniform` form) and appends the sysval words it needs
//! to the end of the push-uniform layout, after any push-constant words
//! (`PushUniformLayout::fill_words` fills words in whatever order they
//! are listed).
//!
//! Clipping is not done: a vertex with w ≤ 0 produces a position the
//! tiler cannot use (the job emitter documents the limits).

use crate::compiler::ir::*;
use crate::compiler::passes::lower_sysvals::sysval_offset::VIEWPORT;
use crate::compiler::passes::{PushUniformLayout, PushWord};

impl Shader {
    /// Rewrites the position stores (see the module doc); returns whether
    /// the shader stores a position at all.
    pub fn lower_viewport_transform(&mut self, layout: &mut PushUniformLayout) -> bool {
        let position: Vec<u32> = self
            .outputs
            .iter()
            .enumerate()
            .filter(|(_, o)| o.slot == OutputSlot::BuiltIn(BuiltIn::Position))
            .map(|(i, _)| i as u32)
            .collect();
        let mut stores = false;
        self.body.for_each_instr(&mut |i| {
            if let Op::Intrinsic(x) = &i.op
                && let Intrinsic::StoreOutput { output } = x.kind
                && position.contains(&output)
            {
                stores = true;
            }
        });
        if !stores {
            return false;
        }
        // Three 64-bit sysval words from VIEWPORT hold the six floats.
        let mut offsets = [0u32; 6];
        for (k, off) in offsets.iter_mut().enumerate() {
            let canonical = VIEWPORT + 4 * k as u32;
            let word = PushWord::Sysval(canonical / 8);
            if !layout.words.contains(&word) {
                layout.words.push(word);
            }
            *off = layout
                .sysval_offset(canonical)
                .expect("the word was just added");
        }
        self.run_pass("lower_viewport", |s| {
            Builder::rewrite(s, &mut |instr, e| {
                let Op::Intrinsic(x) = &instr.op else {
                    e.push(instr);
                    return;
                };
                let Intrinsic::StoreOutput { output } = x.kind else {
                    e.push(instr);
                    return;
                };
                if !position.contains(&output) {
                    e.push(instr);
                    return;
                }
                let v = x.srcs[0];
                let f32t = ValueType::F32;
                let uni = |e: &mut Builder<'_>, off: u32| {
                    e.load(Intrinsic::LoadUniform { offset: off }, f32t, &[])
                };
                let w = e.channel(v, 3);
                let rw = e.alu_typed(AluOp::Frcp, f32t, &[w]);
                let mut out = Vec::with_capacity(4);
                for c in 0..3u8 {
                    let p = e.channel(v, c);
                    let ndc = e.alu_typed(AluOp::Fmul, f32t, &[p, rw]);
                    let scale = uni(e, offsets[usize::from(c)]);
                    let offset = uni(e, offsets[3 + usize::from(c)]);
                    out.push(e.alu_typed(AluOp::Ffma, f32t, &[ndc, scale, offset]));
                }
                out.push(rw);
                let value = e.vec(&out);
                e.store(Intrinsic::StoreOutput { output }, &[value]);
            });
            true
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::ir::interp::{DrawState, InvocationIds, Memory, run_invocation};
    use crate::compiler::passes::SysvalBlock;

    /// `gl_Position = (x, y, z, w)` from constants, plus a generic output.
    fn shader(p: [f32; 4]) -> Shader {
        let mut s = Shader::new(Stage::Vertex);
        let f4 = ValueType::new(32, 4);
        for slot in [
            OutputSlot::Location {
                location: 0,
                component: 0,
            },
            OutputSlot::BuiltIn(BuiltIn::Position),
        ] {
            s.outputs.push(Output {
                name: "o".into(),
                slot,
                ty: f4,
                xfb: None,
            });
        }
        let mut b = Builder::new(&mut s);
        let v = b.imm(f4, &p.map(|c| u64::from(c.to_bits())));
        b.store(Intrinsic::StoreOutput { output: 0 }, &[v]);
        b.store(Intrinsic::StoreOutput { output: 1 }, &[v]);
        b.finish();
        s
    }

    #[test]
    fn positions_become_framebuffer_coordinates() {
        let p = [0.5f32, -0.25, 0.5, 2.0];
        let mut s = shader(p);
        let mut layout = s.lower_sysvals();
        assert!(layout.words.is_empty());
        assert!(s.lower_viewport_transform(&mut layout));
        assert_eq!(
            layout.words,
            (0..3)
                .map(|k| PushWord::Sysval(VIEWPORT / 8 + k))
                .collect::<Vec<_>>()
        );
        s.optimize();
        // A 64x32 viewport at (8, 4), depth 0.25..0.75.
        let (vx, vy, w, h, near, far) = (8.0f32, 4.0f32, 64.0f32, 32.0f32, 0.25f32, 0.75f32);
        let mut block = SysvalBlock::default();
        block.set_viewport(
            [w / 2.0, h / 2.0, far - near],
            [vx + w / 2.0, vy + h / 2.0, near],
        );
        let state = DrawState {
            push_uniforms: layout.fill(&block, &[]),
            ..DrawState::default()
        };
        let r = run_invocation(&s, &state, &mut Memory::new(), InvocationIds::default()).unwrap();
        let got: Vec<f32> = r.outputs[1]
            .as_ref()
            .unwrap()
            .iter()
            .map(|&b| f32::from_bits(b as u32))
            .collect();
        let ndc = [p[0] / p[3], p[1] / p[3], p[2] / p[3]];
        let want = [
            ndc[0] * w / 2.0 + vx + w / 2.0,
            ndc[1] * h / 2.0 + vy + h / 2.0,
            ndc[2] * (far - near) + near,
            1.0 / p[3],
        ];
        assert_eq!(got, want);
        // The generic output is untouched.
        let other: Vec<u64> = p.iter().map(|c| u64::from(c.to_bits())).collect();
        assert_eq!(r.outputs[0].as_deref(), Some(other.as_slice()));
    }

    #[test]
    fn shaders_without_a_position_are_left_alone() {
        let mut s = shader([0.0; 4]);
        s.outputs[1].slot = OutputSlot::BuiltIn(BuiltIn::PointSize);
        s.outputs[1].ty = ValueType::new(32, 4);
        let before = s.clone();
        let mut layout = PushUniformLayout::default();
        assert!(!s.lower_viewport_transform(&mut layout));
        assert_eq!(s.to_string(), before.to_string());
        assert!(layout.words.is_empty());
    }
}
