//! The SPIR-V front end against the GLSL corpus in tests/shaders/.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use bifrost_vk::compiler::ir::*;
use bifrost_vk::compiler::spirv::{self, SpecConstants, SpirvError};

fn shader_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders")
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(shader_dir())
        .expect("tests/shaders exists")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "spv"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

fn stage_of(name: &str) -> Stage {
    if name.contains(".comp") {
        Stage::Compute
    } else if name.contains(".frag") {
        Stage::Fragment
    } else {
        Stage::Vertex
    }
}

fn load(name: &str) -> Vec<u8> {
    std::fs::read(shader_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn parse_with(name: &str, spec: &SpecConstants) -> Result<Shader, SpirvError> {
    spirv::parse(&load(name), "main", stage_of(name), spec)
}

fn parse(name: &str) -> Shader {
    parse_with(name, &HashMap::new()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_corpus_shader_parses() {
    let corpus = corpus();
    assert!(corpus.len() >= 25, "corpus has {} modules", corpus.len());
    let mut failures = Vec::new();
    for (name, bytes) in &corpus {
        match spirv::parse(bytes, "main", stage_of(name), &HashMap::new()) {
            Ok(s) => assert!(s.instr_count() > 0, "{name}: empty body"),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A small structural check of the produced IR (the real validator lives in
/// `ir/validate.rs`): scoping, region ends, and the types of ALU ops,
/// vectors, swizzles, variables and output stores.
fn check_well_formed(s: &Shader) -> Result<(), String> {
    use std::collections::HashSet;
    fn region(
        s: &Shader,
        r: &Region,
        scope: &mut Vec<HashSet<Value>>,
        loops: usize,
        is_if: bool,
    ) -> Result<(), String> {
        let ty = |v: Value| {
            s.values
                .get(v.index())
                .copied()
                .ok_or(format!("{v} has no type"))
        };
        for (n, i) in r.instrs.iter().enumerate() {
            for &src in i.srcs() {
                if !scope.iter().any(|set| set.contains(&src)) {
                    return Err(format!("{src} used out of scope in {i:?}"));
                }
            }
            if i.op.is_terminator() && n + 1 != r.instrs.len() {
                return Err(format!("terminator {i:?} not last"));
            }
            match &i.op {
                Op::Alu(a) => {
                    let dst = ty(i.dsts[0])?;
                    let srcs: Vec<ValueType> =
                        a.srcs.iter().map(|&v| ty(v)).collect::<Result<_, _>>()?;
                    if srcs.len() != a.op.num_srcs() {
                        return Err(format!("{} has {} sources", a.op.name(), srcs.len()));
                    }
                    let ok = match a.op.class() {
                        AluClass::Same => srcs.iter().all(|&t| t == dst),
                        AluClass::Compare => {
                            srcs[0] == srcs[1] && dst == ValueType::new(1, srcs[0].comps)
                        }
                        AluClass::Select => {
                            srcs[0] == ValueType::new(1, dst.comps)
                                && srcs[1] == dst
                                && srcs[2] == dst
                        }
                        AluClass::Shift => {
                            srcs[0] == dst && srcs[1] == ValueType::new(32, dst.comps)
                        }
                        AluClass::Convert => srcs[0].comps == dst.comps,
                        AluClass::Special => true,
                    };
                    if !ok {
                        return Err(format!("{} with {srcs:?} -> {dst:?}", a.op.name()));
                    }
                }
                Op::Vec(v) => {
                    let dst = ty(i.dsts[0])?;
                    let mut comps = 0;
                    for &src in &v.srcs {
                        let t = ty(src)?;
                        if t.bits != dst.bits {
                            return Err(format!("vec of mixed bit sizes {i:?}"));
                        }
                        comps += t.comps;
                    }
                    if comps != dst.comps {
                        return Err(format!("vec component count {i:?}"));
                    }
                }
                Op::Swizzle(sw) => {
                    let t = ty(sw.src)?;
                    if sw.comps.iter().any(|&c| c >= t.comps)
                        || ty(i.dsts[0])?.comps as usize != sw.comps.len()
                    {
                        return Err(format!("bad swizzle {i:?}"));
                    }
                }
                Op::Intrinsic(x) => {
                    let (want, got) = match x.kind {
                        Intrinsic::LoadVar { var } => (
                            s.vars.get(var.0 as usize).map(|v| v.ty),
                            Some(ty(i.dsts[0])?),
                        ),
                        Intrinsic::StoreVar { var } => (
                            s.vars.get(var.0 as usize).map(|v| v.ty),
                            Some(ty(x.srcs[0])?),
                        ),
                        Intrinsic::StoreOutput { output } => (
                            s.outputs.get(output as usize).map(|o| o.ty),
                            Some(ty(x.srcs[0])?),
                        ),
                        _ => (None, None),
                    };
                    if want != got {
                        return Err(format!("variable/output type mismatch in {i:?}"));
                    }
                }
                Op::If(f) => {
                    if ty(f.cond)? != ValueType::BOOL {
                        return Err("if condition is not b1".into());
                    }
                    for branch in [&f.then_region, &f.else_region] {
                        scope.push(HashSet::new());
                        region(s, branch, scope, loops, true)?;
                        scope.pop();
                    }
                }
                Op::Loop(l) => {
                    scope.push(l.params.iter().copied().collect());
                    region(s, &l.body, scope, loops + 1, false)?;
                    scope.pop();
                    let ends = l.body.instrs.last().is_some_and(|i| i.op.is_terminator())
                        || l.body.diverges();
                    if !ends {
                        return Err("loop body does not end in a terminator".into());
                    }
                }
                Op::Break(_) | Op::Continue(_) if loops == 0 => {
                    return Err("break/continue outside a loop".into());
                }
                _ => {}
            }
            if let Some(set) = scope.last_mut() {
                set.extend(i.dsts.iter().copied());
            }
        }
        if is_if {
            let ends = r.instrs.last().is_some_and(|i| i.op.is_terminator()) || r.diverges();
            if !ends {
                return Err("if branch does not end in yield/break/continue".into());
            }
        }
        Ok(())
    }
    region(s, &s.body, &mut vec![HashSet::new()], 0, false)
}

#[test]
fn produced_ir_is_well_formed() {
    let mut failures = Vec::new();
    for (name, bytes) in corpus() {
        let s = spirv::parse(&bytes, "main", stage_of(&name), &HashMap::new()).unwrap();
        if let Err(e) = check_well_formed(&s) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn output<'a>(s: &'a Shader, name: &str) -> &'a Output {
    s.outputs
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no output {name} in {:#?}", s.outputs))
}

fn xfb(buffer: u32, stride: u32, offset: u32) -> Option<Xfb> {
    Some(Xfb {
        buffer,
        stride,
        offset,
        stream: 0,
    })
}

fn loc(location: u32, component: u8) -> OutputSlot {
    OutputSlot::Location {
        location,
        component,
    }
}

/// Every intrinsic of a kind, with its sources.
fn intrinsics(s: &Shader, pred: impl Fn(&Intrinsic) -> bool) -> Vec<(Intrinsic, Vec<Value>)> {
    let mut out = Vec::new();
    s.body.for_each_instr(&mut |i| {
        if let Op::Intrinsic(x) = &i.op
            && pred(&x.kind)
        {
            out.push((x.kind, x.srcs.to_vec()));
        }
    });
    out
}

/// The constant value of `v` if it is defined by a scalar `const`.
fn const_of(s: &Shader, v: Value) -> Option<u64> {
    let mut found = None;
    s.body.for_each_instr(&mut |i| {
        if i.dsts.first() == Some(&v)
            && let Op::Const(c) = &i.op
            && c.values.len() == 1
        {
            found = Some(c.values[0]);
        }
    });
    found
}

fn spec(pairs: &[(u32, &[u8])]) -> SpecConstants {
    pairs.iter().map(|(k, v)| (*k, v.to_vec())).collect()
}

#[test]
fn zink_gl_per_vertex_members_keep_xfb() {
    let s = parse("zink_xfb_position_clip.vert.spv");
    assert!(s.info.xfb_mode);
    let p = output(&s, "gl_Position");
    assert_eq!(p.slot, OutputSlot::BuiltIn(BuiltIn::Position));
    assert_eq!(p.ty, ValueType::new(32, 4));
    assert_eq!(p.xfb, xfb(0, 24, 0));
    let c0 = output(&s, "gl_ClipDistance[0]");
    assert_eq!(c0.slot, OutputSlot::BuiltIn(BuiltIn::ClipDistance(0)));
    assert_eq!(c0.xfb, xfb(0, 24, 16));
    let c1 = output(&s, "gl_ClipDistance[1]");
    assert_eq!(c1.slot, OutputSlot::BuiltIn(BuiltIn::ClipDistance(1)));
    assert_eq!(c1.xfb, xfb(0, 24, 20));
    // gl_PointSize/gl_CullDistance are declared by glslang but neither written nor captured.
    assert_eq!(s.outputs.len(), 3);
    assert_eq!(
        intrinsics(&s, |k| matches!(k, Intrinsic::StoreOutput { .. })).len(),
        3
    );
}

#[test]
fn zink_point_size_and_second_buffer() {
    let s = parse("zink_xfb_pointsize.vert.spv");
    assert_eq!(output(&s, "gl_Position").xfb, xfb(0, 20, 0));
    let ps = output(&s, "gl_PointSize");
    assert_eq!(ps.slot, OutputSlot::BuiltIn(BuiltIn::PointSize));
    assert_eq!(ps.xfb, xfb(0, 20, 16));
    let c = output(&s, "v_color");
    assert_eq!(c.slot, loc(0, 0));
    assert_eq!(c.xfb, xfb(1, 16, 0));
    assert_eq!(s.inputs.len(), 2);
    assert_eq!(s.inputs[1].location, 1);
}

#[test]
fn angle_block_members_inherit_buffer_and_stride_from_the_variable() {
    let s = parse("angle_xfb_block.vert.spv");
    assert_eq!(output(&s, "gl_Position").xfb, None);
    let expect = [
        ("v_out.color", 0, 0, 4),
        ("v_out.normal", 1, 16, 3),
        ("v_out.weight", 2, 28, 1),
        ("v_out.extra", 3, 32, 4),
    ];
    for (name, l, off, comps) in expect {
        let o = output(&s, name);
        assert_eq!(o.slot, loc(l, 0), "{name}");
        assert_eq!(o.xfb, xfb(1, 48, off), "{name}");
        assert_eq!(o.ty.comps, comps, "{name}");
    }
    let copy = output(&s, "v_position_copy");
    assert_eq!(copy.slot, loc(4, 0));
    assert_eq!(copy.xfb, xfb(2, 16, 0));
}

#[test]
fn angle_holes_between_offsets_and_four_buffers() {
    let s = parse("angle_xfb_holes.vert.spv");
    assert_eq!(output(&s, "v_a").xfb, xfb(0, 32, 4));
    assert_eq!(output(&s, "v_b").xfb, xfb(0, 32, 20));
    assert_eq!(output(&s, "v_not_captured").xfb, None);
    assert_eq!(output(&s, "v_not_captured").slot, loc(2, 0));
    assert_eq!(output(&s, "v_c").xfb, xfb(1, 24, 8));
    assert_eq!(output(&s, "v_d").xfb, xfb(2, 4, 0));
    let e = output(&s, "v_e");
    assert_eq!(e.xfb, xfb(3, 64, 12));
    assert_eq!(e.ty, ValueType::new(32, 4));
}

#[test]
fn every_32_bit_scalar_and_vector_type_is_captured() {
    let s = parse("xfb_all_types.vert.spv");
    let mut offset = 0;
    for (l, kind) in ["f", "i", "u"].iter().enumerate() {
        for n in 1..=4u8 {
            let name = format!("o_{kind}{n}");
            let o = output(&s, &name);
            assert_eq!(o.slot, loc(l as u32 * 4 + u32::from(n) - 1, 0), "{name}");
            assert_eq!(o.ty, ValueType::new(32, n), "{name}");
            assert_eq!(o.xfb, xfb(0, 144, offset), "{name}");
            offset += 4 * u32::from(n);
        }
    }
}

#[test]
fn arrays_matrices_and_structs_flatten_per_slot_with_own_offsets() {
    let s = parse("xfb_arrays_matrices.vert.spv");
    let expect: [(&str, u32, u32, u8); 10] = [
        ("o_arr[0]", 0, 0, 1),
        ("o_arr[1]", 1, 4, 1),
        ("o_arr[2]", 2, 8, 1),
        ("o_mat[0]", 3, 12, 3),
        ("o_mat[1]", 4, 24, 3),
        ("o_mat[2]", 5, 36, 3),
        ("o_vecs[0]", 6, 48, 4),
        ("o_vecs[1]", 7, 64, 4),
        ("o_pair.a", 8, 80, 2),
        ("o_pair.b", 9, 88, 1),
    ];
    for (name, l, off, comps) in expect {
        let o = output(&s, name);
        assert_eq!(o.slot, loc(l, 0), "{name}");
        assert_eq!(o.xfb, xfb(0, 112, off), "{name}");
        assert_eq!(o.ty.comps, comps, "{name}");
    }
}

#[test]
fn captured_but_unwritten_outputs_are_listed_without_a_store() {
    let s = parse("xfb_unwritten.vert.spv");
    assert_eq!(output(&s, "o_written").xfb, xfb(0, 32, 0));
    assert_eq!(output(&s, "o_captured_unwritten").xfb, xfb(0, 32, 16));
    assert!(s.outputs.iter().all(|o| o.name != "o_unused"));
    let stored: Vec<u32> = intrinsics(&s, |k| matches!(k, Intrinsic::StoreOutput { .. }))
        .iter()
        .map(|(k, _)| match k {
            Intrinsic::StoreOutput { output } => *output,
            _ => unreachable!(),
        })
        .collect();
    let unwritten = s
        .outputs
        .iter()
        .position(|o| o.name == "o_captured_unwritten")
        .unwrap();
    assert!(!stored.contains(&(unwritten as u32)));
    assert_eq!(stored.len(), 2, "gl_Position and o_written");
}

#[test]
fn component_decorations_share_a_location() {
    let s = parse("xfb_components.vert.spv");
    assert_eq!(output(&s, "o_lo").slot, loc(1, 0));
    assert_eq!(output(&s, "o_z").slot, loc(1, 2));
    assert_eq!(output(&s, "o_w").slot, loc(1, 3));
    assert_eq!(output(&s, "o_z").xfb, xfb(0, 16, 8));
    assert_eq!(output(&s, "o_w").xfb, xfb(0, 16, 12));
}

#[test]
fn handwritten_standalone_builtins_and_phis() {
    let s = parse("zink_handwritten.vert.spv");
    assert!(s.info.xfb_mode);
    assert_eq!(output(&s, "gl_Position").xfb, xfb(0, 32, 0));
    assert_eq!(output(&s, "gl_ClipDistance[0]").xfb, xfb(0, 32, 16));
    assert_eq!(output(&s, "gl_ClipDistance[1]").xfb, xfb(0, 32, 20));
    assert_eq!(output(&s, "v_bits").xfb, xfb(1, 4, 0));
    let text = s.to_string();
    assert!(
        text.contains("var \"phi_"),
        "phis go through variables:\n{text}"
    );
    assert!(text.contains("loop ()"));
}

#[test]
fn push_constant_offsets() {
    let s = parse("push_constants.vert.spv");
    assert_eq!(s.info.push_constant_size, 84);
    let loads = intrinsics(&s, |k| matches!(k, Intrinsic::LoadPushConstant { .. }));
    let bases: Vec<u32> = loads
        .iter()
        .map(|(k, _)| match k {
            Intrinsic::LoadPushConstant { base } => *base,
            _ => unreachable!(),
        })
        .collect();
    // mvp columns at 0/16/32/48, tint at 64, mode at 80.
    for b in [0, 16, 32, 48, 64, 80] {
        assert!(
            bases.contains(&b),
            "no push-constant load at {b}: {bases:?}"
        );
    }
}

#[test]
fn ubo_std140_offsets_and_row_major() {
    let s = parse("ubo_std140.vert.spv");
    let loads = intrinsics(&s, |k| matches!(k, Intrinsic::LoadUbo { .. }));
    let at = |set: u32, binding: u32| -> Vec<u64> {
        loads
            .iter()
            .filter(|(k, _)| *k == Intrinsic::LoadUbo { set, binding })
            .filter_map(|(_, srcs)| const_of(&s, srcs[0]))
            .collect()
    };
    let scene = at(0, 0);
    // view columns (column-major, stride 16).
    for off in [0, 16, 32, 48] {
        assert!(scene.contains(&off), "view column at {off}: {scene:?}");
    }
    // proj is row-major: 16 scalar loads at 64 + 4c + 16r.
    for c in 0..4u64 {
        for r in 0..4u64 {
            let off = 64 + 4 * c + 16 * r;
            assert!(scene.contains(&off), "proj[{c}][{r}] at {off}: {scene:?}");
        }
    }
    // ambient (vec3) at 240, time right after it at 252.
    assert!(scene.contains(&240) && scene.contains(&252), "{scene:?}");
    assert_eq!(at(1, 2), vec![0], "material.albedo");
    // lights[i] is dynamic: offset = i * 16 + 128 (+ 12 for intensity).
    let text = s.to_string();
    assert!(
        text.contains("const 0x80") && text.contains("const 0x8c"),
        "{text}"
    );
}

#[test]
fn ubo_scalar_layout_offsets() {
    let s = parse("ubo_scalar.vert.spv");
    let mut offsets: Vec<u64> = intrinsics(&s, |k| matches!(k, Intrinsic::LoadUbo { .. }))
        .iter()
        .filter_map(|(_, srcs)| const_of(&s, srcs[0]))
        .collect();
    offsets.sort();
    offsets.dedup();
    assert_eq!(offsets, vec![0, 12, 24, 36, 40]);
}

#[test]
fn ssbo_std430_runtime_array() {
    let s = parse("ssbo_std430.comp.spv");
    assert_eq!(s.info.local_size, [64, 1, 1]);
    let stores = intrinsics(&s, |k| {
        matches!(k, Intrinsic::StoreSsbo { set: 0, binding: 1 })
    });
    assert!(!stores.is_empty());
    let text = s.to_string();
    // Particle stride is 32 in std430; `particles` starts at 16 after `float dt`.
    assert!(text.contains("const 0x20"), "{text}");
    assert!(
        intrinsics(&s, |k| matches!(
            k,
            Intrinsic::LoadSsbo { set: 0, binding: 0 }
        ))
        .iter()
        .any(|(_, srcs)| const_of(&s, srcs[0]) == Some(0))
    );
}

#[test]
fn specialization_changes_the_ir() {
    let default = parse("spec_constants.vert.spv");
    let text = default.to_string();
    assert!(
        text.contains("const 0x4\n"),
        "default ITERATIONS = 4:\n{text}"
    );
    assert!(text.contains("const 0x3fc00000"), "default SCALE = 1.5");
    let spec = spec(&[
        (0, &7i32.to_le_bytes()),
        (1, &2.5f32.to_le_bytes()),
        (2, &1u32.to_le_bytes()),
        (3, &0x3u32.to_le_bytes()),
    ]);
    let s = parse_with("spec_constants.vert.spv", &spec).unwrap();
    let t = s.to_string();
    assert!(t.contains("const 0x7\n"), "ITERATIONS = 7:\n{t}");
    assert!(t.contains("const 0x40200000"), "SCALE = 2.5");
    assert!(!t.contains("const 0x3fc00000"));
    assert_ne!(text, t);
    // Wrong data size is an error naming the spec id.
    let bad = spec_with_size();
    assert!(matches!(
        parse_with("spec_constants.vert.spv", &bad),
        Err(SpirvError::Specialization { spec_id: 0, .. })
    ));
}

fn spec_with_size() -> SpecConstants {
    spec(&[(0, &[1, 2])])
}

#[test]
fn spec_constant_op_and_local_size_id() {
    let s = parse("spec_constant_op.comp.spv");
    assert_eq!(s.info.local_size, [1, 1, 1]);
    let t = s.to_string();
    assert!(t.contains("const 0x7\n"), "N = 3 * 2 + 1:\n{t}");
    assert!(t.contains("const 0x30\n"), "SHIFTED = 3 << 4");
    let spec = spec(&[
        (0, &16u32.to_le_bytes()),
        (1, &4u32.to_le_bytes()),
        (2, &5i32.to_le_bytes()),
    ]);
    let s = parse_with("spec_constant_op.comp.spv", &spec).unwrap();
    assert_eq!(s.info.local_size, [16, 4, 1]);
    let t = s.to_string();
    assert!(t.contains("const 0xb\n"), "N = 5 * 2 + 1:\n{t}");
    assert!(t.contains("const 0x50\n"), "SHIFTED = 5 << 4");
    assert!(
        t.contains("const 0x10\n"),
        "gl_WorkGroupSize.x follows the spec constant"
    );
}

#[test]
fn handwritten_edge_cases() {
    // sc_prod = select(flag, swap(a, b).x, 10) * a = 5 * 3 by default.
    let s = parse("edge_cases.comp.spv");
    let t = s.to_string();
    assert!(t.contains("const 0xf\n"), "{t}");
    assert!(
        t.contains("undef"),
        "OpUndef and the undefined shuffle component"
    );
    // The loop whose continue target is its header ends in `continue`.
    assert!(t.contains("continue\n"), "{t}");
    let flag_off = spec(&[(2, &0u32.to_le_bytes())]);
    let t = parse_with("edge_cases.comp.spv", &flag_off)
        .unwrap()
        .to_string();
    assert!(t.contains("const 0x1e\n"), "10 * 3 with the flag off:\n{t}");
    let swapped = spec(&[(0, &2u32.to_le_bytes()), (1, &9u32.to_le_bytes())]);
    let t = parse_with("edge_cases.comp.spv", &swapped)
        .unwrap()
        .to_string();
    assert!(t.contains("const 0x12\n"), "9 * 2:\n{t}");
}

#[test]
fn spirv_1_6_local_size_id() {
    let bytes = load("vk13_local_size.comp.spv");
    assert_eq!((bytes[6], bytes[5]), (1, 6), "SPIR-V 1.6 module");
    let s = parse("vk13_local_size.comp.spv");
    assert_eq!(s.info.local_size, [64, 2, 1]);
}

#[test]
fn spirv_1_6_local_size_id_from_spec_constants() {
    let s = parse("vk13_spec_local_size.comp.spv");
    assert_eq!(s.info.local_size, [1, 2, 1]);
    let spec = spec(&[(3, &8u32.to_le_bytes()), (4, &4u32.to_le_bytes())]);
    let s = parse_with("vk13_spec_local_size.comp.spv", &spec).unwrap();
    assert_eq!(s.info.local_size, [8, 2, 4]);
    assert!(s.to_string().contains("const 0x20\n"), "x * z = 32");
}

#[test]
fn shared_memory_barriers_and_atomics() {
    let s = parse("shared_atomics.comp.spv");
    assert_eq!(s.info.shared_size, 132);
    assert_eq!(intrinsics(&s, |k| *k == Intrinsic::Barrier).len(), 2);
    let ops: Vec<AtomicOp> = intrinsics(&s, |k| matches!(k, Intrinsic::SsboAtomic { .. }))
        .iter()
        .map(|(k, _)| match k {
            Intrinsic::SsboAtomic { op, .. } => *op,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(
        ops,
        [
            AtomicOp::Add,
            AtomicOp::Imin,
            AtomicOp::Exchange,
            AtomicOp::CompSwap
        ]
    );
    let shared = intrinsics(&s, |k| matches!(k, Intrinsic::SharedAtomic { .. }));
    assert_eq!(shared.len(), 1);
    // `total` comes first in the module, then partial[32] at 4..132.
    assert_eq!(const_of(&s, shared[0].1[0]), Some(0));
    let cas = intrinsics(&s, |k| {
        matches!(
            k,
            Intrinsic::SsboAtomic {
                op: AtomicOp::CompSwap,
                ..
            }
        )
    });
    assert_eq!(cas[0].1.len(), 3);
}

#[test]
fn vertex_builtins() {
    let s = parse("builtins.vert.spv");
    let svs: Vec<Intrinsic> = intrinsics(&s, |k| matches!(k, Intrinsic::LoadSysVal(_)))
        .into_iter()
        .map(|x| x.0)
        .collect();
    for sv in [
        SysVal::VertexIndex,
        SysVal::InstanceIndex,
        SysVal::BaseVertex,
        SysVal::BaseInstance,
    ] {
        assert!(svs.contains(&Intrinsic::LoadSysVal(sv)), "{sv:?}");
    }
    assert_eq!(
        output(&s, "gl_PointSize").slot,
        OutputSlot::BuiltIn(BuiltIn::PointSize)
    );
    assert_eq!(
        output(&s, "gl_ClipDistance[0]").slot,
        OutputSlot::BuiltIn(BuiltIn::ClipDistance(0))
    );
    assert_eq!(
        output(&s, "gl_CullDistance[0]").slot,
        OutputSlot::BuiltIn(BuiltIn::CullDistance(0))
    );
    assert_eq!(output(&s, "ids").slot, loc(0, 0));
}

#[test]
fn compute_builtins() {
    let s = parse("builtins.comp.spv");
    assert_eq!(s.info.local_size, [4, 2, 2]);
    let svs: Vec<Intrinsic> = intrinsics(&s, |k| matches!(k, Intrinsic::LoadSysVal(_)))
        .into_iter()
        .map(|x| x.0)
        .collect();
    for sv in [
        SysVal::LocalInvocationIndex,
        SysVal::LocalInvocationId,
        SysVal::GlobalInvocationId,
        SysVal::WorkgroupId,
        SysVal::NumWorkgroups,
    ] {
        assert!(svs.contains(&Intrinsic::LoadSysVal(sv)), "{sv:?}");
    }
    // gl_WorkGroupSize is a constant.
    assert!(s.to_string().contains("const 0x4 0x2 0x2"));
}

#[test]
fn control_flow_shapes() {
    let s = parse("loops.vert.spv");
    let mut loops = 0;
    let mut breaks = 0;
    s.body.for_each_instr(&mut |i| match i.op {
        Op::Loop(_) => loops += 1,
        Op::Break(_) => breaks += 1,
        _ => {}
    });
    assert_eq!(loops, 4, "for, nested for, do-while, while");
    assert!(breaks >= 4);
    let s = parse("switch.comp.spv");
    let mut ifs = 0;
    s.body.for_each_instr(&mut |i| {
        if matches!(i.op, Op::If(_)) {
            ifs += 1;
        }
    });
    assert!(ifs >= 4, "switch lowered to an if-chain");
    // `break` out of a switch from an `if` duplicates the tail after the
    // switch (r *= 2; k++) into that branch.
    let t = parse("switch_nested_break.comp.spv").to_string();
    assert_eq!(
        t.matches("imul").count(),
        4,
        "two r *= 2, two SSBO offsets:\n{t}"
    );
    assert_eq!(t.matches("continue").count(), 3, "{t}");
}

#[test]
fn rejections_name_the_opcode() {
    let e = parse_with("reject/images.comp.spv", &HashMap::new()).unwrap_err();
    assert!(matches!(e, SpirvError::Unsupported { .. }), "{e}");
    let bytes = load("loops.vert.spv");
    let e = spirv::parse(&bytes, "main", Stage::Compute, &HashMap::new()).unwrap_err();
    assert!(matches!(e, SpirvError::NoEntryPoint { .. }), "{e}");
    let e = spirv::parse(&bytes, "nope", Stage::Vertex, &HashMap::new()).unwrap_err();
    assert!(matches!(e, SpirvError::NoEntryPoint { .. }), "{e}");
    let e = spirv::parse(
        &bytes[..bytes.len() - 4],
        "main",
        Stage::Vertex,
        &HashMap::new(),
    )
    .unwrap_err();
    assert!(
        matches!(e, SpirvError::Truncated { .. } | SpirvError::BadModule(_)),
        "{e}"
    );
}

#[test]
fn words_and_bytes_agree() {
    let bytes = load("matrices.vert.spv");
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let a = spirv::parse(&bytes, "main", Stage::Vertex, &HashMap::new()).unwrap();
    let b = spirv::parse(&words, "main", Stage::Vertex, &HashMap::new()).unwrap();
    assert_eq!(a, b);
}

/// The printed IR of a few shaders, checked in; `BLESS=1` rewrites them.
#[test]
fn printed_ir_matches_expected_files() {
    let bless = std::env::var_os("BLESS").is_some();
    let mut mismatches = Vec::new();
    for name in [
        "zink_xfb_position_clip.vert.spv",
        "zink_handwritten.vert.spv",
        "push_constants.vert.spv",
        "early_return.vert.spv",
        "switch.comp.spv",
        "edge_cases.comp.spv",
    ] {
        let text = parse(name).to_string();
        let path = shader_dir()
            .join("expected")
            .join(format!("{}.ir", name.trim_end_matches(".spv")));
        if bless {
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with BLESS=1)", path.display()));
        if expected != text {
            mismatches.push(format!("{} differs; got:\n{text}", path.display()));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
#[ignore = "debug helper: SHADER=name.spv cargo test --test spirv_frontend dump -- --ignored --nocapture"]
fn dump() {
    let name = std::env::var("SHADER").unwrap_or_else(|_| "loops.vert.spv".into());
    match parse_with(&name, &HashMap::new()) {
        Ok(s) => println!("{s}"),
        Err(e) => println!("{name}: {e}"),
    }
}

mod robustness {
    //! Truncated and bit-flipped corpus modules must give an error or a
    //! shader, never a panic. `catch_unwind` only turns a panic into a test
    //! failure with the offending mutation; the front end has no panic guard.

    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Mutation {
        /// Keep the first `n` words (as a fraction of the module).
        Truncate(f64),
        /// Flip bit `bit` of word `word` (as a fraction), several times.
        Flip(Vec<(f64, u8)>),
        /// Overwrite a word with a value.
        Set(f64, u32),
        /// Set an operand of an instruction to a small value (usually a valid id).
        Operand(f64, f64, u32),
        /// Swap two whole instructions.
        Swap(f64, f64),
        /// Duplicate an instruction in place.
        Dup(f64),
    }

    fn mutation() -> impl Strategy<Value = Mutation> {
        prop_oneof![
            (0.0..1.0f64).prop_map(Mutation::Truncate),
            prop::collection::vec((0.0..1.0f64, 0u8..32), 1..6).prop_map(Mutation::Flip),
            (
                0.0..1.0f64,
                prop_oneof![
                    Just(0u32),
                    Just(u32::MAX),
                    Just(0x7fff_ffff),
                    0u32..64,
                    any::<u32>()
                ]
            )
                .prop_map(|(w, v)| Mutation::Set(w, v)),
            (0.0..1.0f64, 0.0..1.0f64, 0u32..96).prop_map(|(i, o, v)| Mutation::Operand(i, o, v)),
            (0.0..1.0f64, 0.0..1.0f64).prop_map(|(a, b)| Mutation::Swap(a, b)),
            (0.0..1.0f64).prop_map(Mutation::Dup),
        ]
    }

    /// (start, length) of every instruction after the header.
    fn framing(words: &[u32]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut at = 5;
        while at < words.len() {
            let n = (words[at] >> 16) as usize;
            if n == 0 || at + n > words.len() {
                break;
            }
            out.push((at, n));
            at += n;
        }
        out
    }

    fn words_of(bytes: &[u8]) -> Vec<u32> {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    fn apply(words: &mut Vec<u32>, m: &Mutation) {
        let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len.saturating_sub(1));
        match m {
            Mutation::Truncate(f) => {
                let n = (f * words.len() as f64) as usize;
                words.truncate(n);
            }
            Mutation::Flip(flips) => {
                for &(f, bit) in flips {
                    let i = at(f, words.len());
                    if let Some(w) = words.get_mut(i) {
                        *w ^= 1 << bit;
                    }
                }
            }
            Mutation::Operand(fi, fo, v) => {
                let insts = framing(words);
                if insts.is_empty() {
                    return;
                }
                let (start, n) = insts[at(*fi, insts.len())];
                if n > 1 {
                    let o = 1 + at(*fo, n - 1);
                    words[start + o] = *v;
                }
            }
            Mutation::Swap(fa, fb) => {
                let insts = framing(words);
                if insts.len() < 2 {
                    return;
                }
                let a = insts[at(*fa, insts.len())];
                let b = insts[at(*fb, insts.len())];
                let (first, second) = if a.0 <= b.0 { (a, b) } else { (b, a) };
                if first.0 == second.0 {
                    return;
                }
                let mut out = words[..first.0].to_vec();
                out.extend_from_slice(&words[second.0..second.0 + second.1]);
                out.extend_from_slice(&words[first.0 + first.1..second.0]);
                out.extend_from_slice(&words[first.0..first.0 + first.1]);
                out.extend_from_slice(&words[second.0 + second.1..]);
                *words = out;
            }
            Mutation::Dup(f) => {
                let insts = framing(words);
                if insts.is_empty() {
                    return;
                }
                let (start, n) = insts[at(*f, insts.len())];
                let copy = words[start..start + n].to_vec();
                words.splice(start..start, copy);
            }
            Mutation::Set(f, v) => {
                // Skip the magic so most cases reach the instruction decoder.
                let i = at(*f, words.len()).max(1);
                if let Some(w) = words.get_mut(i) {
                    *w = *v;
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: std::env::var("SPIRV_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(400),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]
        #[test]
        fn mutated_modules_never_panic(index in 0usize..1000, m in mutation()) {
            let corpus = corpus();
            let (name, bytes) = &corpus[index % corpus.len()];
            let mut words = words_of(bytes);
            apply(&mut words, &m);
            let stage = stage_of(name);
            let spec = SpecConstants::new();
            let outcome = std::panic::catch_unwind(|| {
                spirv::parse(&words, "main", stage, &spec).map(|s| (check_well_formed(&s), s.to_string()))
            });
            prop_assert!(outcome.is_ok(), "{name} with {m:?} panicked");
            if let Ok(Ok((checked, _))) = outcome {
                prop_assert!(checked.is_ok(), "{name} with {m:?}: {checked:?}");
            }
        }
    }
}

/// Every `texture` intrinsic of a shader, in program order.
fn textures(s: &Shader) -> Vec<Intrinsic> {
    let mut out = Vec::new();
    s.body.for_each_instr(&mut |i| {
        if let Op::Intrinsic(x) = &i.op
            && matches!(x.kind, Intrinsic::Texture { .. })
        {
            out.push(x.kind);
        }
    });
    out
}

#[test]
fn sampled_images_become_texture_intrinsics() {
    let tex = |set, binding, sampler, op, ty| Intrinsic::Texture {
        dim: Default::default(),
        set,
        binding,
        sampler,
        op,
        ty,
        array: false,
        offset: [0, 0],
    };
    let f = SampledType::Float;
    // Combined image sampler, separate image + sampler (OpSampledImage),
    // and a fetch through OpImage of the combined one.
    assert_eq!(
        textures(&parse("texture_lod.comp.spv")),
        [
            tex(0, 0, Some((0, 0)), TexOp::SampleLod, f),
            tex(0, 1, Some((0, 2)), TexOp::SampleLod, f),
            tex(0, 0, None, TexOp::Fetch, f),
        ]
    );
    assert_eq!(
        textures(&parse("texture_sample.frag.spv")),
        [
            tex(0, 1, Some((0, 1)), TexOp::Sample, f),
            tex(0, 1, None, TexOp::Fetch, f),
        ]
    );
    // ConstOffset: the offsets as the texture intrinsic's parameter.
    let off = |op, sampler, offset| Intrinsic::Texture {
        dim: Default::default(),
        set: 0,
        binding: 0,
        sampler,
        op,
        ty: f,
        array: false,
        offset,
    };
    assert_eq!(
        textures(&parse("texture_offset.comp.spv")),
        [
            off(TexOp::SampleLod, Some((0, 0)), [-3, 2]),
            off(TexOp::SampleLod, Some((0, 0)), [7, -8]),
            off(TexOp::Fetch, None, [1, -1]),
        ]
    );
    // Gathers: the component (a constant) in the op, offsets as above, an
    // integer image's type.
    let gather = |binding, c, ty, offset| Intrinsic::Texture {
        dim: Default::default(),
        set: 0,
        binding,
        sampler: Some((0, binding)),
        op: TexOp::Gather(c),
        ty,
        array: false,
        offset,
    };
    let s = parse("texture_gather.comp.spv");
    let i32t = SampledType::Sint;
    assert_eq!(
        textures(&s),
        [
            gather(0, 0, f, [0, 0]),
            gather(0, 1, f, [0, 0]),
            gather(0, 2, f, [0, 0]),
            gather(0, 3, f, [0, 0]),
            gather(0, 1, f, [-3, 2]),
            gather(0, 3, f, [7, -8]),
            gather(1, 0, i32t, [0, 0]),
            gather(1, 2, i32t, [1, -1]),
        ]
    );
    let text = s.to_string();
    assert!(
        text.contains("texture op=gather_a type=float set=0 binding=0"),
        "{text}"
    );
    assert_eq!(Shader::parse(&text).unwrap().to_string(), text);
    // A gather from a 2D array: the layer the coordinate's third component.
    let agather = |c, offset| Intrinsic::Texture {
        dim: Default::default(),
        set: 0,
        binding: 0,
        sampler: Some((0, 0)),
        op: TexOp::Gather(c),
        ty: f,
        array: true,
        offset,
    };
    assert_eq!(
        textures(&parse("texture_gather_array.comp.spv")),
        [agather(1, [0, 0]), agather(3, [-2, 3])]
    );
    // Depth gathers: the reference as the second source, a 4-vector.
    let s = parse("texture_gather_dref.comp.spv");
    let dref = |offset| Intrinsic::Texture {
        dim: Default::default(),
        set: 0,
        binding: 0,
        sampler: Some((0, 0)),
        op: TexOp::GatherDref,
        ty: f,
        array: false,
        offset,
    };
    assert_eq!(textures(&s), [dref([0, 0]), dref([2, -1])]);
    let text = s.to_string();
    assert!(text.contains("texture op=gather_dref"), "{text}");
    assert_eq!(Shader::parse(&text).unwrap().to_string(), text);
    // A 2D array: a three-component coordinate (the layer last).
    let arr = |sampler, op| Intrinsic::Texture {
        dim: Default::default(),
        set: 0,
        binding: 0,
        sampler,
        op,
        ty: f,
        array: true,
        offset: [0, 0],
    };
    assert_eq!(
        textures(&parse("texture_array.comp.spv")),
        [
            arr(Some((0, 0)), TexOp::SampleLod),
            arr(Some((0, 0)), TexOp::SampleLod),
            arr(None, TexOp::Fetch),
        ]
    );
    // Integer sampled types.
    let (u, i) = (SampledType::Uint, SampledType::Sint);
    assert_eq!(
        textures(&parse("texture_int.comp.spv")),
        [
            tex(0, 0, None, TexOp::Fetch, u),
            tex(0, 0, Some((0, 0)), TexOp::SampleLod, u),
            tex(0, 1, None, TexOp::Fetch, i),
            tex(0, 1, Some((0, 1)), TexOp::SampleLod, i),
        ]
    );
    // Through functions: a sampler2D parameter, a texture2D and a sampler.
    assert_eq!(
        textures(&parse("texture_functions.frag.spv")),
        [
            tex(0, 1, Some((0, 1)), TexOp::Sample, f),
            tex(0, 2, Some((0, 3)), TexOp::Sample, f),
        ]
    );
    // Mesa's fs_textured vector.
    let path = bifrost_vk::reference_path!("mesa-g52/shaders/fs_textured.spv");
    let Ok(bytes) = std::fs::read(path) else {
        eprintln!("skipped: {path} absent");
        return;
    };
    let s = spirv::parse(&bytes, "main", Stage::Fragment, &HashMap::new()).unwrap();
    assert_eq!(textures(&s), [tex(0, 1, Some((0, 1)), TexOp::Sample, f)]);
    // The text form round-trips.
    let text = s.to_string();
    assert!(
        text.contains(
            "texture op=sample type=float set=0 binding=1 sampler_set=0 sampler_binding=1"
        ),
        "{text}"
    );
    assert_eq!(Shader::parse(&text).unwrap().to_string(), text);
}

/// `imageStore`/`imageLoad` of 2D storage images become the IR's
/// `image_store`/`image_load` with the image's set and binding and its
/// sampled type; the text form round-trips.
#[test]
fn storage_images_become_image_intrinsics() {
    for (name, ty) in [
        ("vk/image_float.comp.spv", "float"),
        ("vk/image_uint.comp.spv", "uint"),
    ] {
        let s = parse_with(name, &HashMap::new()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = s.to_string();
        assert!(
            text.contains(&format!("image_store type={ty} set=0 binding=0")),
            "{name}:\n{text}"
        );
        assert!(
            text.contains(&format!("image_load type={ty} set=0 binding=1")),
            "{name}:\n{text}"
        );
        assert_eq!(Shader::parse(&text).unwrap().to_string(), text);
    }
    // A 2D array: the layer is the coordinate's third component.
    let text = parse("vk/image_array.comp.spv").to_string();
    assert!(
        text.contains("image_store type=float set=0 binding=0 array=1")
            && text.contains("image_load type=float set=0 binding=1 array=1"),
        "{text}"
    );
    assert_eq!(Shader::parse(&text).unwrap().to_string(), text);
    // Image atomics: OpImageTexelPointer + OpAtomic* → image_atomic.
    let s = parse("vk/image_atomic.comp.spv");
    let text = s.to_string();
    for want in [
        "image_atomic set=0 binding=0 op=add",
        "image_atomic set=0 binding=1 op=imax",
        "image_atomic set=0 binding=2 op=cmpxchg",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    assert_eq!(Shader::parse(&text).unwrap().to_string(), text);
}

/// 1D and 3D images (`gfx-tex4`): the texture intrinsic's `dim`, the
/// coordinate widths, 1D arrays, and size queries of 1D, 3D and array
/// images (the level word's high half), with text round trips.
#[test]
fn dimensioned_textures_become_texture_intrinsics() {
    for (name, wants) in [
        (
            "textures/texture_3d.comp.spv",
            &[
                "op=sample_lod type=float set=0 binding=0 sampler_set=0 sampler_binding=0 dim=d3",
                "op=fetch type=float set=0 binding=0 dim=d3",
            ][..],
        ),
        (
            "textures/texture_1d.comp.spv",
            &[
                "binding=0 sampler_set=0 sampler_binding=0 dim=d1",
                "op=fetch type=float set=0 binding=0 dim=d1",
                "sampler_binding=1 array=1 dim=d1",
                "op=fetch type=float set=0 binding=1 array=1 dim=d1",
            ][..],
        ),
        (
            "textures/texture_size_dims.comp.spv",
            &["texture_size set=0 binding=5"][..],
        ),
        (
            "textures/texture_grad.frag.spv",
            &[
                "flog2",
                "texture_size set=0 binding=1",
                "op=sample_lod type=float set=0 binding=1",
            ][..],
        ),
        (
            "textures/texture_size_array.frag.spv",
            &["texture_size set=0 binding=4"][..],
        ),
        (
            "textures/texture_cube.comp.spv",
            &[
                "op=sample_lod type=float set=0 binding=0 sampler_set=0 sampler_binding=0 dim=cube",
                "texture_size set=0 binding=0",
            ][..],
        ),
        (
            "textures/texture_cube_array.comp.spv",
            &["sampler_binding=0 array=1 dim=cube"][..],
        ),
    ] {
        let s = parse(name);
        let text = s.to_string();
        for want in wants {
            assert!(text.contains(want), "{name}: {want}:\n{text}");
        }
        assert_eq!(Shader::parse(&text).unwrap().to_string(), text, "{name}");
    }
    // Coordinates of the wrong width for the dimension are invalid IR.
    let s = parse("textures/texture_3d.comp.spv");
    let text = s.to_string().replace("dim=d3", "dim=d1");
    let bad = Shader::parse(&text).unwrap();
    assert!(s.validate().is_ok());
    assert!(bad.validate().is_err());
    // A cube's coordinate is a direction: its 3-vector under `dim=d1` is
    // invalid IR.
    let s = parse("textures/texture_cube.comp.spv");
    let text = s.to_string().replace("dim=cube", "dim=d1");
    assert!(s.validate().is_ok());
    assert!(Shader::parse(&text).unwrap().validate().is_err());
}

#[test]
fn unsupported_image_features_are_clean_errors() {
    for (name, says) in [
        ("reject/images.comp.spv", "image atomics on float images"),
        ("reject/texture_gather.frag.spv", "ImageGatherExtended"),
        ("reject/texture_shadow.frag.spv", "projective depth-compare"),
        ("reject/texture_cube.frag.spv", "cube images"),
        ("reject/texture_3d.frag.spv", "3D images"),
        ("reject/texture_proj.frag.spv", "projective"),
    ] {
        let e = parse_with(name, &HashMap::new()).unwrap_err();
        assert!(matches!(e, SpirvError::Unsupported { .. }), "{name}: {e}");
        assert!(e.to_string().contains(says), "{name}: {e}");
    }
}

/// The words of a module and the (start, opcode, length) of each
/// instruction after the 5-word header.
fn instructions(words: &[u32]) -> Vec<(usize, u16, usize)> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let len = (words[i] >> 16) as usize;
        out.push((i, words[i] as u16, len));
        i += len.max(1);
    }
    out
}

/// `name`'s words with `edit` applied to the first instruction of `opcode`
/// (its words, result-type operand first).
fn edited(name: &str, opcode: ::spirv::Op, edit: impl Fn(&mut [u32])) -> Vec<u32> {
    let bytes = load(name);
    let mut words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let (at, _, len) = *instructions(&words)
        .iter()
        .find(|(_, op, _)| *op == opcode as u16)
        .unwrap_or_else(|| panic!("{name} has no {opcode:?}"));
    edit(&mut words[at + 1..at + len]);
    words
}

#[test]
fn malformed_image_modules_are_clean_errors() {
    use ::spirv::Op as S;
    let invalid = |words: Vec<u32>, stage: Stage, says: &str| {
        let e = spirv::parse(&words, "main", stage, &HashMap::new()).unwrap_err();
        assert!(matches!(e, SpirvError::Invalid { .. }), "{says}: {e}");
        assert!(e.to_string().contains(says), "{says}: {e}");
    };
    let c = "texture_lod.comp.spv";
    // OpImageSampleExplicitLod: coordinate replaced by the image
    // (operands: type, id, sampled image, coordinate, mask, lod).
    invalid(
        edited(c, S::ImageSampleExplicitLod, |w| w[3] = w[2]),
        Stage::Compute,
        "not",
    );
    // ... its Lod operand replaced by the coordinate (a vector).
    invalid(
        edited(c, S::ImageSampleExplicitLod, |w| w[5] = w[3]),
        Stage::Compute,
        "Lod is not a 32-bit float",
    );
    // ... without the Lod bit.
    invalid(
        edited(c, S::ImageSampleExplicitLod, |w| w[4] = 0),
        Stage::Compute,
        "without Lod or Grad",
    );
    // OpImageFetch of a non-image (the coordinate as the image).
    invalid(
        edited(c, S::ImageFetch, |w| w[2] = w[3]),
        Stage::Compute,
        "not an image",
    );
    // OpImageGather whose Component is the coordinate (not a constant)
    // (operands: type, id, sampled image, coordinate, component, ...).
    invalid(
        edited("texture_gather.comp.spv", S::ImageGather, |w| w[4] = w[3]),
        Stage::Compute,
        "gather Component is not a constant",
    );
    // OpSampledImage whose sampler is the image.
    invalid(
        edited(c, S::SampledImage, |w| w[3] = w[2]),
        Stage::Compute,
        "without a sampler",
    );
    // OpTypeImage with MS = 2; OpTypeSampledImage of a float.
    invalid(edited(c, S::TypeImage, |w| w[5] = 2), Stage::Compute, "MS");
    let float_id = {
        let words: Vec<u32> = load(c)
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let (at, _, _) = *instructions(&words)
            .iter()
            .find(|(_, op, _)| *op == S::TypeFloat as u16)
            .unwrap();
        words[at + 1]
    };
    invalid(
        edited(c, S::TypeSampledImage, |w| w[1] = float_id),
        Stage::Compute,
        "non-image",
    );
    // Implicit-LOD sampling where there are no derivatives: the fragment
    // module's entry point turned into a GLCompute one.
    let f = "texture_sample.frag.spv";
    let words = edited(f, S::EntryPoint, |w| {
        w[0] = ::spirv::ExecutionModel::GLCompute as u32
    });
    let e = spirv::parse(&words, "main", Stage::Compute, &HashMap::new()).unwrap_err();
    assert!(
        matches!(
            e,
            SpirvError::Invalid { .. } | SpirvError::Unsupported { .. }
        ),
        "{e}"
    );
}

#[test]
fn texture_lod_runs_in_the_interpreter_against_the_reference_sampler() {
    use bifrost_vk::compiler::ir::interp::{BufferRange, DrawState, Memory, run_workgroup};
    use bifrost_vk::testing::sampler::{AddressMode, Bindings, Image, ImageFormat, Sampler};
    let s = parse("texture_lod.comp.spv");
    let image = Image {
        width: 4,
        height: 3,
        texels: (0..12u8)
            .map(|i| [i * 20, 255 - i * 20, i * 7, 200])
            .collect(),
        format: ImageFormat::Rgba8Unorm,
    };
    let mut b = Bindings::default();
    b.images.insert((0, 0), image.clone());
    b.images.insert((0, 1), image.clone());
    b.samplers
        .insert((0, 0), Sampler::simple(true, AddressMode::Repeat));
    b.samplers
        .insert((0, 2), Sampler::simple(false, AddressMode::MirroredRepeat));
    let mut queries = Vec::new();
    let mut want = Vec::new();
    for i in 0..16u32 {
        let (st, lod) = (
            [i as f32 * 0.17 - 0.9, 1.3 - i as f32 * 0.11],
            i as f32 * 0.25,
        );
        let texel = [(i % 4) as i32, (i % 3) as i32];
        for w in [st[0].to_bits(), st[1].to_bits(), lod.to_bits(), 0] {
            queries.extend_from_slice(&w.to_le_bytes());
        }
        for w in [texel[0], texel[1], 0, 0] {
            queries.extend_from_slice(&w.to_le_bytes());
        }
        want.push(
            b.sample(&image, &b.samplers[&(0, 0)], st[0], st[1], Some(lod))
                .unwrap(),
        );
        want.push(
            b.sample(&image, &b.samplers[&(0, 2)], st[0], st[1], Some(0.0))
                .unwrap(),
        );
        want.push(b.fetch(&image, texel[0], texel[1], 0).unwrap());
    }
    let mut memory = Memory::new();
    memory.map(0x1000, queries).unwrap();
    memory.map(0x8000, vec![0; 16 * 48]).unwrap();
    let mut state = DrawState {
        textures: Some(std::sync::Arc::new(b)),
        ..DrawState::default()
    };
    state.ssbos.insert(
        (0, 3),
        BufferRange {
            address: 0x1000,
            size: 16 * 32,
        },
    );
    state.ssbos.insert(
        (0, 4),
        BufferRange {
            address: 0x8000,
            size: 16 * 48,
        },
    );
    run_workgroup(&s, &state, &mut memory, [0, 0, 0]).unwrap();
    let got: Vec<f32> = memory
        .range(0x8000)
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want: Vec<f32> = want.concat();
    assert_eq!(got, want);
}

/// `Index` on fragment outputs (the Vulkan spec's "Fragment Output
/// Interface", dual-source blending): `graphics/dual_source.frag`'s
/// Location 0 Index 1 output is the IR's second colour; Index 1 at
/// another location, an Index of 2, or Index 1 in a vertex shader are
/// clean errors (the module's `OpDecorate ... Index`/`Location` words
/// edited).
#[test]
fn index_one_at_location_zero_is_the_second_colour() {
    let name = "graphics/dual_source.frag.spv";
    let s = parse(name);
    let slots: Vec<OutputSlot> = s.outputs.iter().map(|o| o.slot).collect();
    assert!(
        slots.contains(&OutputSlot::SecondColor { component: 0 }),
        "{slots:?}"
    );
    assert!(slots.contains(&OutputSlot::Location {
        location: 0,
        component: 0
    }));
    let bytes = load(name);
    let mut words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    // OpDecorate (opcode 71, 4 words) of the Index (32) 1 target.
    let at = (5..words.len() - 3)
        .find(|&i| words[i] == (4 << 16 | 71) && words[i + 2] == 32 && words[i + 3] == 1)
        .expect("an Index 1 decoration");
    let target = words[at + 1];
    let location = (5..words.len() - 3)
        .find(|&i| words[i] == (4 << 16 | 71) && words[i + 1] == target && words[i + 2] == 30)
        .expect("its Location decoration");
    let run = |words: &[u32], stage: Stage| {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        spirv::parse(&bytes, "main", stage, &HashMap::new())
    };
    let mut index2 = words.clone();
    index2[at + 3] = 2;
    let mut location1 = words.clone();
    location1[location + 3] = 1;
    for (what, w) in [("Index 2", &index2), ("Index 1 at Location 1", &location1)] {
        let e = run(w, Stage::Fragment).expect_err(what);
        assert!(e.to_string().contains("Index"), "{what}: {e}");
    }
    // The unedited module is fine; as a vertex shader it is an error too.
    assert!(run(&words, Stage::Fragment).is_ok());
    words[at + 3] = 1;
    assert!(run(&words, Stage::Vertex).is_err());
}
