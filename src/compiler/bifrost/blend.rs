//! Blend shaders: the Vulkan blend equation of one render target as
//! Bifrost code, for what the fixed-function blend unit cannot do
//! (`jm::blend` decides; MIN/MAX, SRC_ALPHA_SATURATE, factors on different
//! operands, blend constants that differ per channel, float targets,
//! partial write masks on RAW targets).
//!
//! How a blend shader runs (genxml v6.xml/v7.xml `Internal Blend` with
//! `Mode` Shader and its `Blend Shader` {`Return Value`, `PC`}; Mesa's
//! src/panfrost/compiler/bifrost_compile.c and its compiler README):
//! - a fragment shader's `BLEND` whose descriptor says Shader continues the
//!   thread at `PC` (low 32 bits; the upper ones are the fragment
//!   shader's) with the colour in r0–r3 (F32) and the return address
//!   (`Return Value`) in r48; coverage stays in r60;
//! - the blend shader may overwrite r0–r15 and r48 only (Mesa's README:
//!   r0–r3 colour 0, r4–r7 colour 1 for dual-source blending, r8–r15
//!   scratch, r48 the return address): we allocate its values in r4–r15;
//! - it reads the destination with `LD_TILE` (pixel indices: render
//!   target, sample 0, `y` = 255 "current pixel", Mesa's
//!   `bi_pixel_indices`; coverage r60; the target's 32-bit internal
//!   conversion descriptor as an immediate), computes the equation and
//!   writes with its own `BLEND` of an immediate Internal Blend descriptor
//!   (mode Opaque, the same conversion), then `JUMP r48`: back to the
//!   clause after the calling BLEND, or, for a return value of 0, the end
//!   of the thread (bifrost_compile.c: "jump to 0 terminates the blend
//!   shader", automatic on Bifrost).
//!
//! The equation is Vulkan's ("Blend Factors", "Blend Operations"): per
//! channel `op(s·f_s, d·f_d)` in f32 (MIN and MAX take s and d, without
//! factors), each product an `FMA` with −0 (so that x·f keeps IEEE signs),
//! the constants baked in as immediates. UNORM targets clamp the source
//! and the constants to [0, 1] first and the result after (Vulkan
//! "Blending": fixed-point attachments clamp the source, destination and
//! constants; the conversion to UNORM clamps too). Channels outside the
//! write mask are written back as LD_TILE read them. The results overwrite
//! r0–r3 (each channel after its last read; alpha, which every channel may
//! read, last) and the BLEND sends them from there.
//!
//! Dual-source factors (SRC1_*) read the second colour from r4–r7, where
//! the fragment shader put it before target 0's BLEND (Mesa's README:
//! r4–r7 colour 1); UNORM targets clamp it like the first. Such a shader
//! allocates only r8–r15.
//!
//! Multisampled targets (`BlendShaderDesc::multisampled`): the draw runs
//! per sample and LD_TILE adds the thread's sample ID from r61 to its
//! indices (Mesa's `bi_pixel_indices`); the shader's BLEND, with the
//! thread's coverage (its one sample), writes that sample only.
//!
//! Not done: f16 colours.

use super::isel::{Block, Program, Term};
use super::ops::{Dst, Instr, Op, Reg, Src};
use super::{CompileError, pack, ra, sched};

/// `VkBlendFactor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlendFactor {
    Zero,
    One,
    SrcColor,
    OneMinusSrcColor,
    DstColor,
    OneMinusDstColor,
    SrcAlpha,
    OneMinusSrcAlpha,
    DstAlpha,
    OneMinusDstAlpha,
    ConstantColor,
    OneMinusConstantColor,
    ConstantAlpha,
    OneMinusConstantAlpha,
    SrcAlphaSaturate,
    Src1Color,
    OneMinusSrc1Color,
    Src1Alpha,
    OneMinusSrc1Alpha,
}

impl BlendFactor {
    /// Every factor, in `VkBlendFactor` order.
    pub const ALL: [BlendFactor; 19] = [
        BlendFactor::Zero,
        BlendFactor::One,
        BlendFactor::SrcColor,
        BlendFactor::OneMinusSrcColor,
        BlendFactor::DstColor,
        BlendFactor::OneMinusDstColor,
        BlendFactor::SrcAlpha,
        BlendFactor::OneMinusSrcAlpha,
        BlendFactor::DstAlpha,
        BlendFactor::OneMinusDstAlpha,
        BlendFactor::ConstantColor,
        BlendFactor::OneMinusConstantColor,
        BlendFactor::ConstantAlpha,
        BlendFactor::OneMinusConstantAlpha,
        BlendFactor::SrcAlphaSaturate,
        BlendFactor::Src1Color,
        BlendFactor::OneMinusSrc1Color,
        BlendFactor::Src1Alpha,
        BlendFactor::OneMinusSrc1Alpha,
    ];

    /// A dual-source factor (reads the second colour output).
    pub fn is_dual_source(self) -> bool {
        matches!(
            self,
            BlendFactor::Src1Color
                | BlendFactor::OneMinusSrc1Color
                | BlendFactor::Src1Alpha
                | BlendFactor::OneMinusSrc1Alpha
        )
    }
}

/// `VkBlendOp` (the core five).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlendOp {
    Add,
    Subtract,
    ReverseSubtract,
    Min,
    Max,
}

impl BlendOp {
    pub const ALL: [BlendOp; 5] = [
        BlendOp::Add,
        BlendOp::Subtract,
        BlendOp::ReverseSubtract,
        BlendOp::Min,
        BlendOp::Max,
    ];
}

/// A blend-enabled `VkPipelineColorBlendAttachmentState` (factors and
/// ops) with the pipeline's blend constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlendEquation {
    pub src_color: BlendFactor,
    pub dst_color: BlendFactor,
    pub color_op: BlendOp,
    pub src_alpha: BlendFactor,
    pub dst_alpha: BlendFactor,
    pub alpha_op: BlendOp,
    /// `blendConstants` (R, G, B, A), as given (a blend shader clamps them
    /// for UNORM targets).
    pub constants: [f32; 4],
}

/// What a blend shader computes and where it writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlendShaderDesc {
    /// Render target index (LD_TILE's pixel indices; the BLEND descriptor
    /// names it too).
    pub rt: u8,
    pub equation: BlendEquation,
    /// `colorWriteMask` (bit 0 R … bit 3 A).
    pub write_mask: u8,
    /// A UNORM target: source, constants and result clamped to [0, 1].
    pub unorm: bool,
    /// An integer target (colour and LD_TILE in U32/I32 registers): only
    /// the write mask applies (Vulkan does not blend integers; the
    /// equation must be ONE/ZERO ADD, anything else is refused).
    pub integer: bool,
    /// The target's 32-bit internal conversion descriptor (genxml
    /// `Internal Conversion`, register format F32) for LD_TILE.
    pub conversion: u32,
    /// The Internal Blend words (mode Opaque, the target, the conversion)
    /// of the shader's own BLEND.
    pub descriptor: [u32; 2],
    /// A multisampled framebuffer: the draw runs once per covered sample
    /// (the emitter sets `Evaluate per-sample` and the sample mask/ID
    /// preload) and LD_TILE reads the thread's sample, r61 bits 16.. (Mesa's
    /// `bi_pixel_indices`: the sample ID added to the indices' low byte).
    pub multisampled: bool,
}

/// LD_TILE's pixel indices: sample 0 (bits 0–7; at 4× the thread's
/// sample is added), render target (8–15),
/// x 0, y 255 = the thread's own pixel (Mesa's `bifrost_pixel_indices`
/// and `BIFROST_CURRENT_PIXEL`).
pub fn pixel_indices(rt: u8) -> u32 {
    u32::from(rt) << 8 | 255 << 24
}

const NEG_ZERO: Src = Src::Imm(0x8000_0000);

/// A factor's value for one channel.
#[derive(Clone, Copy)]
enum Factor {
    One,
    Value(Src),
}

struct Builder {
    instrs: Vec<Instr>,
    vreg_sizes: Vec<u8>,
}

impl Builder {
    fn vreg(&mut self, size: u8) -> u32 {
        self.vreg_sizes.push(size);
        self.vreg_sizes.len() as u32 - 1
    }

    fn emit(&mut self, op: Op, srcs: &[Src]) -> Src {
        let v = self.vreg(1);
        let r = Reg { index: v, comp: 0 };
        self.instrs
            .push(Instr::new(op, Some(Dst::Reg(r)), srcs.to_vec()));
        Src::Reg(r)
    }

    fn fadd(&mut self, a: Src, b: Src, neg: [bool; 2], clamp01: bool) -> Src {
        self.emit(
            Op::FaddF32 {
                neg,
                abs: [false; 2],
                clamp01,
            },
            &[a, b],
        )
    }

    /// `x · f` with IEEE signs (`x · f + −0`).
    fn mul(&mut self, x: Src, f: Src) -> Src {
        self.emit(Op::FmaF32 { neg: [false; 3] }, &[x, f, NEG_ZERO])
    }

    fn one_minus(&mut self, x: Src) -> Src {
        self.fadd(Src::Imm(1.0f32.to_bits()), x, [false, true], false)
    }
}

/// The value of factor `f` for channel `c` (3: alpha, which uses the
/// equation's alpha factors), with source `s`, destination `d` and the
/// (clamped) constants `k`.
fn factor(
    b: &mut Builder,
    f: BlendFactor,
    c: usize,
    s: &[Src; 4],
    s1: &[Src; 4],
    d: &[Src; 4],
    k: &[f32; 4],
) -> Factor {
    use BlendFactor::*;
    let imm = |v: f32| Factor::Value(Src::Imm(v.to_bits()));
    match f {
        Zero => imm(0.0),
        One => Factor::One,
        // In the alpha channel the colour factors are the alphas (the
        // spec's alpha column): s[3], d[3], k[3] there.
        SrcColor => Factor::Value(s[c]),
        OneMinusSrcColor => Factor::Value(b.one_minus(s[c])),
        DstColor => Factor::Value(d[c]),
        OneMinusDstColor => Factor::Value(b.one_minus(d[c])),
        SrcAlpha => Factor::Value(s[3]),
        OneMinusSrcAlpha => Factor::Value(b.one_minus(s[3])),
        DstAlpha => Factor::Value(d[3]),
        OneMinusDstAlpha => Factor::Value(b.one_minus(d[3])),
        ConstantColor => imm(k[c]),
        OneMinusConstantColor => imm(1.0 - k[c]),
        ConstantAlpha => imm(k[3]),
        OneMinusConstantAlpha => imm(1.0 - k[3]),
        SrcAlphaSaturate if c == 3 => Factor::One,
        SrcAlphaSaturate => {
            let inv = b.one_minus(d[3]);
            Factor::Value(b.emit(Op::FminF32, &[s[3], inv]))
        }
        // The second colour (r4–r7): the spec's SRC1 rows, alpha in the
        // alpha column.
        Src1Color => Factor::Value(s1[c]),
        OneMinusSrc1Color => Factor::Value(b.one_minus(s1[c])),
        Src1Alpha => Factor::Value(s1[3]),
        OneMinusSrc1Alpha => Factor::Value(b.one_minus(s1[3])),
    }
}

/// The selected (virtual-register) program of a blend shader.
pub fn select(desc: &BlendShaderDesc) -> Result<Program, CompileError> {
    let mut b = Builder {
        instrs: Vec::new(),
        vreg_sizes: Vec::new(),
    };
    let coverage = Src::Phys(60);
    // The destination, as the target's conversion gives it (F32).
    let dv = b.vreg(4);
    let indices = if desc.multisampled {
        // (r61 >> 16) & 0x1f = the thread's sample (Mesa's
        // `bi_load_sample_id_to`), added to the indices' sample byte.
        let id = b.emit(
            Op::Shift {
                op: super::ops::ShiftOp::RshiftAnd,
                not1: false,
                not_result: false,
            },
            &[Src::Phys(61), Src::Imm(0x1f), Src::Imm(16)],
        );
        b.emit(Op::IaddS32, &[Src::Imm(pixel_indices(desc.rt)), id])
    } else {
        Src::Imm(pixel_indices(desc.rt))
    };
    b.instrs.push(Instr::new(
        Op::LdTile,
        Some(Dst::Reg(Reg { index: dv, comp: 0 })),
        [indices, coverage, Src::Imm(desc.conversion)],
    ));
    let d: [Src; 4] = std::array::from_fn(|c| {
        Src::Reg(Reg {
            index: dv,
            comp: c as u8,
        })
    });
    let clamp_k = |v: f32| {
        if !desc.unorm {
            v
        } else if v.is_nan() {
            0.0
        } else {
            v.clamp(0.0, 1.0)
        }
    };
    let k = desc.equation.constants.map(clamp_k);
    // The source: r0–r3, clamped in place for UNORM targets.
    let s: [Src; 4] = std::array::from_fn(|c| Src::Phys(c as u8));
    // The second colour of dual-source blending: r4–r7 (kept out of the
    // allocation below when an equation reads it).
    let s1: [Src; 4] = std::array::from_fn(|c| Src::Phys(4 + c as u8));
    let dual = [
        desc.equation.src_color,
        desc.equation.dst_color,
        desc.equation.src_alpha,
        desc.equation.dst_alpha,
    ]
    .iter()
    .any(|f| f.is_dual_source());
    let clamped: &[u8] = if dual {
        &[0, 1, 2, 3, 4, 5, 6, 7]
    } else {
        &[0, 1, 2, 3]
    };
    if desc.unorm {
        for &c in clamped {
            b.instrs.push(Instr::new(
                Op::FaddF32 {
                    neg: [false; 2],
                    abs: [false; 2],
                    clamp01: true,
                },
                Some(Dst::Phys(c)),
                [Src::Phys(c), Src::Imm(0)],
            ));
        }
    }
    if desc.integer {
        let replace = desc.equation.src_color == BlendFactor::One
            && desc.equation.src_alpha == BlendFactor::One
            && desc.equation.dst_color == BlendFactor::Zero
            && desc.equation.dst_alpha == BlendFactor::Zero
            && desc.equation.color_op == BlendOp::Add
            && desc.equation.alpha_op == BlendOp::Add;
        if !replace {
            return Err(CompileError::Unsupported(
                "blending an integer target".into(),
            ));
        }
    }
    for c in 0..4usize {
        let result = if desc.write_mask & (1 << c) == 0 {
            b.emit(Op::MovI32, &[d[c]])
        } else if desc.integer {
            b.emit(Op::MovI32, &[s[c]])
        } else {
            let (sf, df, op) = if c == 3 {
                (
                    desc.equation.src_alpha,
                    desc.equation.dst_alpha,
                    desc.equation.alpha_op,
                )
            } else {
                (
                    desc.equation.src_color,
                    desc.equation.dst_color,
                    desc.equation.color_op,
                )
            };
            match op {
                BlendOp::Min => b.emit(Op::FminF32, &[s[c], d[c]]),
                BlendOp::Max => b.emit(Op::FmaxF32, &[s[c], d[c]]),
                _ => {
                    let fs = factor(&mut b, sf, c, &s, &s1, &d, &k);
                    let fd = factor(&mut b, df, c, &s, &s1, &d, &k);
                    let x = match fs {
                        Factor::One => s[c],
                        Factor::Value(f) => b.mul(s[c], f),
                    };
                    let y = match fd {
                        Factor::One => d[c],
                        Factor::Value(f) => b.mul(d[c], f),
                    };
                    let neg = match op {
                        BlendOp::Add => [false, false],
                        BlendOp::Subtract => [false, true],
                        _ => [true, false],
                    };
                    b.fadd(x, y, neg, desc.unorm)
                }
            }
        };
        // Into r(c): channel c's source is not read after this (alpha,
        // which the others read, comes last).
        b.instrs
            .push(Instr::new(Op::MovI32, Some(Dst::Phys(c as u8)), [result]));
    }
    let scratch = b.vreg(1);
    b.instrs.push(Instr::new(
        Op::Blend { rt: desc.rt },
        Some(Dst::Reg(Reg {
            index: scratch,
            comp: 0,
        })),
        [
            Src::Phys(0),
            coverage,
            Src::Imm(desc.descriptor[0]),
            Src::Imm(desc.descriptor[1]),
        ],
    ));
    Ok(Program {
        blocks: vec![Block {
            instrs: b.instrs,
            term: Term::End,
        }],
        vreg_sizes: b.vreg_sizes,
        // Only r4–r15 are ours to allocate (r0–r3 hold the colour, r48
        // the return address; everything else belongs to the fragment
        // shader), r8–r15 when r4–r7 hold a second colour we read.
        reserved: if dual { !0xff00u64 } else { !0xfff0u64 },
        return_register: Some(48),
        ..Program::default()
    })
}

/// Compiles the blend shader of `desc`: machine code followed by the
/// prefetch padding, as [`super::compile`] lays out shaders.
pub fn compile_blend_shader(desc: &BlendShaderDesc) -> Result<Vec<u8>, CompileError> {
    let mut prog = select(desc)?;
    ra::allocate(&mut prog)?;
    let sched = sched::schedule(&prog)?;
    let (code, _) = pack::encode_program(&sched.clauses, &sched.block_clause)?;
    if crate::compiler::passes::debug_flag("shaders") {
        eprintln!("// blend shader: {desc:?}\n{prog}");
        match super::disasm::disassemble(&code) {
            Ok(text) => eprintln!("{text}"),
            Err(e) => eprintln!("// disassembly failed: {e}"),
        }
    }
    if cfg!(debug_assertions) {
        let clauses = crate::hw::isa::decode_shader(&code)
            .map_err(|e| CompileError::Encode(format!("our binary does not decode: {e}")))?;
        super::verify::check_clauses(&clauses)
            .map_err(|e| CompileError::Encode(format!("clause rules: {e}")))?;
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(color_op: BlendOp) -> BlendShaderDesc {
        BlendShaderDesc {
            rt: 1,
            equation: BlendEquation {
                src_color: BlendFactor::SrcAlphaSaturate,
                dst_color: BlendFactor::ConstantColor,
                color_op,
                src_alpha: BlendFactor::One,
                dst_alpha: BlendFactor::OneMinusSrcAlpha,
                alpha_op: BlendOp::Add,
                constants: [0.25, 0.5, 0.75, 1.0],
            },
            write_mask: 0b1011,
            unorm: true,
            integer: false,
            conversion: 0x1234_5678,
            descriptor: [0x9abc_def1, 0x1234_5678],
            multisampled: false,
        }
    }

    /// The allocator keeps values live across a fragment shader's BLEND
    /// (which may call a blend shader) out of r0–r15 and r48, and only
    /// those: values dead before it may use them.
    #[test]
    fn values_live_across_a_blend_avoid_the_blend_shader_registers() {
        use super::super::ops::Src;
        let mut sizes = vec![4u8];
        let mut instrs = Vec::new();
        let reg = |index: u32, comp: u8| Reg { index, comp };
        // v0: the first colour, from four values dead after it.
        for c in 0..4u8 {
            let mut i = Instr::new(
                Op::MovI32,
                Some(Dst::Reg(reg(0, c))),
                [Src::Imm(u32::from(c) + 1)],
            );
            i.partial = c > 0;
            instrs.push(i);
        }
        // v1..v8: values defined before the BLEND and read after it.
        for k in 1..=8u32 {
            sizes.push(1);
            instrs.push(Instr::new(
                Op::MovI32,
                Some(Dst::Reg(reg(k, 0))),
                [Src::Imm(100 + k)],
            ));
        }
        let blend = |rt: u8, v: u32| {
            Instr::new(
                Op::Blend { rt },
                Some(Dst::Phys(48)),
                [
                    Src::Reg(reg(v, 0)),
                    Src::Phys(60),
                    Src::Special {
                        slot: 8 + rt,
                        high: false,
                    },
                    Src::Special {
                        slot: 8 + rt,
                        high: true,
                    },
                ],
            )
        };
        instrs.push(blend(0, 0));
        // v9: the second colour, the sums of the v1..v8 pairs.
        sizes.push(4);
        for c in 0..4u8 {
            let mut i = Instr::new(
                Op::IaddS32,
                Some(Dst::Reg(reg(9, c))),
                [
                    Src::Reg(reg(1 + 2 * u32::from(c), 0)),
                    Src::Reg(reg(2 + 2 * u32::from(c), 0)),
                ],
            );
            i.partial = c > 0;
            instrs.push(i);
        }
        instrs.push(blend(1, 9));
        let mut p = Program {
            blocks: vec![Block {
                instrs,
                term: Term::End,
            }],
            vreg_sizes: sizes,
            reserved: 1 << 48,
            ..Program::default()
        };
        ra::allocate(&mut p).unwrap();
        let instrs = &p.blocks[0].instrs;
        let first_blend = instrs
            .iter()
            .position(|i| matches!(i.op, Op::Blend { .. }))
            .unwrap();
        let mut after = 0;
        for i in &instrs[first_blend + 1..] {
            for s in &i.srcs {
                if let Src::Phys(r) = *s
                    && r != 60
                    && !matches!(i.op, Op::Blend { .. })
                {
                    assert!(
                        r >= 16 && r != 48,
                        "r{r} read after the BLEND: {:?}",
                        p.blocks[0]
                    );
                    after += 1;
                }
            }
        }
        assert_eq!(after, 8);
        // The first colour is dead after its BLEND: it may sit low.
        let Src::Phys(first) = instrs[first_blend].srcs[0] else {
            panic!("allocated");
        };
        assert!(first < 16, "r{first}");
    }

    /// The code decodes, uses only r0–r15 and r48/r60 (read), reads the
    /// tile, ends with BLEND then `JUMP r48`.
    #[test]
    fn blend_shaders_stay_in_their_registers_and_return_through_r48() {
        for op in BlendOp::ALL {
            let code = compile_blend_shader(&desc(op)).unwrap();
            let text = super::super::disasm::disassemble(&code).unwrap();
            assert!(text.contains("LD_TILE"), "{text}");
            let blend = text.find("BLEND").expect("a BLEND");
            let jump = text.rfind("JUMP").expect("a JUMP");
            assert!(blend < jump, "{text}");
            let clauses = crate::hw::isa::decode_shader(&code).unwrap();
            for (_, c) in &clauses {
                // Staging registers (LD_TILE's destination, BLEND's colour).
                assert!(c.header.staging_register < 16, "{text}");
                for t in &c.tuples {
                    for w in [&t.fma.dest, &t.add.dest].into_iter().flatten() {
                        assert!(w.reg < 16, "writes r{}\n{text}", w.reg);
                    }
                }
            }
        }
        // Dual-source factors read r4–r7 and allocate only r8–r15.
        let mut d = desc(BlendOp::Add);
        d.equation.src_color = BlendFactor::Src1Alpha;
        d.equation.dst_alpha = BlendFactor::OneMinusSrc1Color;
        let code = compile_blend_shader(&d).unwrap();
        let text = super::super::disasm::disassemble(&code).unwrap();
        assert!(text.contains("r7"), "{text}");
        for (_, c) in &crate::hw::isa::decode_shader(&code).unwrap() {
            for t in &c.tuples {
                for w in [&t.fma.dest, &t.add.dest].into_iter().flatten() {
                    assert!(w.reg < 16, "writes r{}\n{text}", w.reg);
                }
            }
        }
        let mut p = select(&d).unwrap();
        ra::allocate(&mut p).unwrap();
        for i in &p.blocks[0].instrs {
            // r4–r7 are only clamped in place.
            if let Some(Dst::Phys(r)) = i.dst
                && (4..8).contains(&r)
            {
                assert_eq!(i.srcs[0], Src::Phys(r), "{i}");
            }
        }
    }
}
