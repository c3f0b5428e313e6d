//! The stable text form of the IR (printer). `parse.rs` reads it back; the
//! two must stay inverse: `parse(print(s)) == s` for every valid shader.
//!
//! ```text
//! shader compute "name" {
//!   info local_size 8 8 1 shared 0 push 16
//!   input "a_pos" location 0 component 0 i32x4
//!   output "gl_Position" builtin position i32x4 xfb buffer 0 stride 16 offset 0 stream 0
//!   output "v" location 1 component 0 i32x2
//!   var "tmp" i32
//!   values 12
//!   unused %11:i32x2
//!   %0:i32 = const 0x1
//!   %1:b1 = ilt %0, %0
//!   %2:i32 = load_sysval sysval=vertex_index
//!   store_output output=1 %3
//!   %4:i32 = if %1 {
//!     yield %0
//!   } else {
//!     yield %2
//!   }
//!   %5:i32 = loop (%6:i32 = %0) {
//!     break %6
//!   }
//! }
//! ```
//! Inputs, outputs and variables are numbered by their order of appearance.
//! `values N` records how many value ids exist so that unused ids survive;
//! `unused` lists the ids no instruction defines whose type is not `i32`.
//! `//` starts a comment (the parser skips it; the printer never writes one).

use std::fmt::{self, Write as _};

use super::instr::*;
use super::shader::*;
use super::types::{Value, ValueType};

const SWIZZLE: [char; 4] = ['x', 'y', 'z', 'w'];

impl SysVal {
    /// Text name and optional numeric argument.
    pub fn text(self) -> (&'static str, Option<u32>) {
        use SysVal::*;
        match self {
            VertexIndex => ("vertex_index", None),
            InstanceIndex => ("instance_index", None),
            BaseVertex => ("base_vertex", None),
            BaseInstance => ("base_instance", None),
            ViewIndex => ("view_index", None),
            DrawIndex => ("draw_index", None),
            RawVertexId => ("raw_vertex_id", None),
            RawVertexOffset => ("raw_vertex_offset", None),
            InstanceId => ("instance_id", None),
            FragCoord => ("frag_coord", None),
            FrontFacing => ("front_facing", None),
            PointCoord => ("point_coord", None),
            SampleId => ("sample_id", None),
            SamplePosition => ("sample_position", None),
            SampleMaskIn => ("sample_mask_in", None),
            LocalInvocationId => ("local_invocation_id", None),
            LocalInvocationIndex => ("local_invocation_index", None),
            WorkgroupId => ("workgroup_id", None),
            GlobalInvocationId => ("global_invocation_id", None),
            NumWorkgroups => ("num_workgroups", None),
            WorkgroupSize => ("workgroup_size", None),
            XfbInvocation => ("xfb_invocation", None),
            XfbParam(n) => ("xfb_param", Some(u32::from(n))),
        }
    }
}

impl AtomicOp {
    pub const ALL: [AtomicOp; 10] = [
        AtomicOp::Add,
        AtomicOp::Imin,
        AtomicOp::Imax,
        AtomicOp::Umin,
        AtomicOp::Umax,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Exchange,
        AtomicOp::CompSwap,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Imin => "imin",
            AtomicOp::Imax => "imax",
            AtomicOp::Umin => "umin",
            AtomicOp::Umax => "umax",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Exchange => "xchg",
            AtomicOp::CompSwap => "cmpxchg",
        }
    }
}

impl Intrinsic {
    /// Text name and `key=value` parameters, in a fixed order.
    pub fn text(self) -> (&'static str, Vec<(&'static str, String)>) {
        use Intrinsic::*;
        let n = |v: u32| v.to_string();
        match self {
            LoadInput {
                location,
                component,
            } => (
                "load_input",
                vec![
                    ("location", n(location)),
                    ("component", n(component.into())),
                ],
            ),
            LoadAttribute {
                location,
                component,
            } => (
                "load_attribute",
                vec![
                    ("location", n(location)),
                    ("component", n(component.into())),
                ],
            ),
            StoreOutput { output } => ("store_output", vec![("output", n(output))]),
            LoadVar { var } => ("load_var", vec![("var", n(var.0))]),
            StoreVar { var } => ("store_var", vec![("var", n(var.0))]),
            LoadSysVal(sv) => {
                let (name, arg) = sv.text();
                let mut params = vec![("sysval", name.to_string())];
                if let Some(a) = arg {
                    params.push(("index", n(a)));
                }
                ("load_sysval", params)
            }
            LoadPushConstant { base } => ("load_push_constant", vec![("base", n(base))]),
            LoadUniform { offset } => ("load_uniform", vec![("offset", n(offset))]),
            LoadUbo { set, binding } => {
                ("load_ubo", vec![("set", n(set)), ("binding", n(binding))])
            }
            LoadSsbo { set, binding } => {
                ("load_ssbo", vec![("set", n(set)), ("binding", n(binding))])
            }
            BufferSize { set, binding } => (
                "buffer_size",
                vec![("set", n(set)), ("binding", n(binding))],
            ),
            StoreSsbo { set, binding } => {
                ("store_ssbo", vec![("set", n(set)), ("binding", n(binding))])
            }
            SsboAtomic { set, binding, op } => (
                "ssbo_atomic",
                vec![
                    ("set", n(set)),
                    ("binding", n(binding)),
                    ("op", op.name().into()),
                ],
            ),
            LoadGlobal => ("load_global", vec![]),
            StoreGlobal => ("store_global", vec![]),
            GlobalAtomic { op } => ("global_atomic", vec![("op", op.name().into())]),
            LoadShared => ("load_shared", vec![]),
            StoreShared => ("store_shared", vec![]),
            SharedAtomic { op } => ("shared_atomic", vec![("op", op.name().into())]),
            Texture {
                set,
                binding,
                sampler,
                op,
                ty,
                array,
                dim,
                offset,
            } => {
                let mut params = vec![
                    ("op", op.name().into()),
                    ("type", ty.name().into()),
                    ("set", n(set)),
                    ("binding", n(binding)),
                ];
                if let Some((s, b)) = sampler {
                    params.push(("sampler_set", n(s)));
                    params.push(("sampler_binding", n(b)));
                }
                if array {
                    params.push(("array", n(1)));
                }
                if dim != TexDim::D2 {
                    params.push(("dim", dim.name().into()));
                }
                if offset != [0, 0] {
                    // x in the low byte, y in the next, two's complement.
                    let packed = u32::from(offset[0] as u8) | u32::from(offset[1] as u8) << 8;
                    params.push(("offset", n(packed)));
                }
                ("texture", params)
            }
            Derivative { axis, coarse } => (
                match (axis, coarse) {
                    (DerivativeAxis::X, false) => "ddx",
                    (DerivativeAxis::X, true) => "ddx_coarse",
                    (DerivativeAxis::Y, false) => "ddy",
                    (DerivativeAxis::Y, true) => "ddy_coarse",
                },
                vec![],
            ),
            ImageLoad {
                set,
                binding,
                ty,
                array,
            }
            | ImageStore {
                set,
                binding,
                ty,
                array,
            } => {
                let mut params = vec![
                    ("type", ty.name().into()),
                    ("set", n(set)),
                    ("binding", n(binding)),
                ];
                if array {
                    params.push(("array", n(1)));
                }
                let name = if matches!(self, ImageLoad { .. }) {
                    "image_load"
                } else {
                    "image_store"
                };
                (name, params)
            }
            ImageAtomic { set, binding, op } => (
                "image_atomic",
                vec![
                    ("set", n(set)),
                    ("binding", n(binding)),
                    ("op", op.name().into()),
                ],
            ),
            TextureSize { set, binding } => (
                "texture_size",
                vec![("set", n(set)), ("binding", n(binding))],
            ),
            Barrier => ("barrier", vec![]),
            Discard => ("discard", vec![]),
        }
    }
}

impl BuiltIn {
    pub fn text(self) -> String {
        match self {
            BuiltIn::Position => "position".into(),
            BuiltIn::PointSize => "point_size".into(),
            BuiltIn::ClipDistance(i) => format!("clip_distance{i}"),
            BuiltIn::CullDistance(i) => format!("cull_distance{i}"),
            BuiltIn::FragDepth => "frag_depth".into(),
            BuiltIn::SampleMask => "sample_mask".into(),
        }
    }
}

fn write_list(out: &mut String, values: &[Value]) {
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{v}");
    }
}

struct Printer<'a> {
    shader: &'a Shader,
    out: String,
}

impl Printer<'_> {
    /// The type of a value; `?` for an id out of range (only in invalid IR).
    fn ty_text(&self, v: Value) -> String {
        match self.shader.values.get(v.index()) {
            Some(t) => t.to_string(),
            None => "?".into(),
        }
    }

    fn defs(&mut self, dsts: &[Value]) {
        if dsts.is_empty() {
            return;
        }
        for (i, d) in dsts.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let _ = write!(self.out, "{d}:{}", self.ty_text(*d));
        }
        self.out.push_str(" = ");
    }

    fn region(&mut self, region: &Region, depth: usize) {
        for instr in &region.instrs {
            self.instr(instr, depth);
        }
    }

    fn instr(&mut self, instr: &Instr, depth: usize) {
        let pad = "  ".repeat(depth);
        self.out.push_str(&pad);
        self.defs(&instr.dsts);
        match &instr.op {
            Op::Const(c) => {
                self.out.push_str("const");
                for v in &c.values {
                    let _ = write!(self.out, " {v:#x}");
                }
            }
            Op::Undef => self.out.push_str("undef"),
            Op::Alu(a) => {
                let _ = write!(self.out, "{} ", a.op.name());
                write_list(&mut self.out, &a.srcs);
            }
            Op::Vec(v) => {
                self.out.push_str("vec ");
                write_list(&mut self.out, &v.srcs);
            }
            Op::Swizzle(s) => {
                let comps: String = s.comps.iter().map(|&c| SWIZZLE[c as usize & 3]).collect();
                let _ = write!(self.out, "swizzle {}.{comps}", s.src);
            }
            Op::Intrinsic(i) => {
                let (name, params) = i.kind.text();
                self.out.push_str(name);
                for (k, v) in params {
                    let _ = write!(self.out, " {k}={v}");
                }
                if !i.srcs.is_empty() {
                    self.out.push(' ');
                    write_list(&mut self.out, &i.srcs);
                }
            }
            Op::If(i) => {
                let _ = writeln!(self.out, "if {} {{", i.cond);
                self.region(&i.then_region, depth + 1);
                let _ = writeln!(self.out, "{pad}}} else {{");
                self.region(&i.else_region, depth + 1);
                let _ = write!(self.out, "{pad}}}");
            }
            Op::Loop(l) => {
                self.out.push_str("loop (");
                for (n, (p, i)) in l.params.iter().zip(&l.inits).enumerate() {
                    if n > 0 {
                        self.out.push_str(", ");
                    }
                    let _ = write!(self.out, "{p}:{} = {i}", self.ty_text(*p));
                }
                let _ = writeln!(self.out, ") {{");
                self.region(&l.body, depth + 1);
                let _ = write!(self.out, "{pad}}}");
            }
            Op::Yield(v) | Op::Break(v) | Op::Continue(v) => {
                self.out.push_str(match &instr.op {
                    Op::Yield(_) => "yield",
                    Op::Break(_) => "break",
                    _ => "continue",
                });
                if !v.values.is_empty() {
                    self.out.push(' ');
                    write_list(&mut self.out, &v.values);
                }
            }
        }
        self.out.push('\n');
    }
}

impl Shader {
    /// One instruction in the text form (nested regions included, no indentation),
    /// for error messages and debug output.
    pub fn instr_to_string(&self, instr: &Instr) -> String {
        let mut p = Printer {
            shader: self,
            out: String::new(),
        };
        p.instr(instr, 0);
        p.out.pop();
        p.out
    }
}

fn quote(s: &str) -> String {
    format!("{s:?}")
}

impl fmt::Display for Shader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stage = match self.stage {
            Stage::Vertex => "vertex",
            Stage::Compute => "compute",
            Stage::Fragment => "fragment",
        };
        let mut p = Printer {
            shader: self,
            out: String::new(),
        };
        let _ = writeln!(p.out, "shader {stage} {} {{", quote(&self.info.name));
        let info = &self.info;
        let _ = writeln!(
            p.out,
            "  info local_size {} {} {}{}{} shared {} push {}",
            info.local_size[0],
            info.local_size[1],
            info.local_size[2],
            if info.xfb_mode { " xfb_mode" } else { "" },
            if info.early_fragment_tests {
                " early_fragment_tests"
            } else {
                ""
            },
            info.shared_size,
            info.push_constant_size
        );
        for (location, format) in &info.color_formats {
            let _ = writeln!(p.out, "  color location {location} {}", format.name());
        }
        for i in &self.inputs {
            let _ = writeln!(
                p.out,
                "  input {} location {} component {} {}{}{}",
                quote(&i.name),
                i.location,
                i.component,
                i.ty,
                match i.interpolation {
                    Interpolation::Smooth => "",
                    Interpolation::Flat => " flat",
                    Interpolation::NoPerspective => " noperspective",
                },
                match i.sampling {
                    Sampling::Center => "",
                    Sampling::Centroid => " centroid",
                    Sampling::Sample => " sample",
                }
            );
        }
        for o in &self.outputs {
            let _ = write!(p.out, "  output {} ", quote(&o.name));
            let _ = match o.slot {
                OutputSlot::Location {
                    location,
                    component,
                } => {
                    write!(p.out, "location {location} component {component}")
                }
                OutputSlot::BuiltIn(b) => write!(p.out, "builtin {}", b.text()),
                OutputSlot::SecondColor { component } => {
                    write!(p.out, "second_color component {component}")
                }
            };
            let _ = write!(p.out, " {}", o.ty);
            if let Some(x) = o.xfb {
                let _ = write!(
                    p.out,
                    " xfb buffer {} stride {} offset {} stream {}",
                    x.buffer, x.stride, x.offset, x.stream
                );
            }
            p.out.push('\n');
        }
        for v in &self.vars {
            let _ = writeln!(p.out, "  var {} {}", quote(&v.name), v.ty);
        }
        let _ = writeln!(p.out, "  values {}", self.values.len());
        // Ids no instruction defines (left by passes) keep their type only
        // here; the pass framework resets them to i32 so this line is rare.
        let unused: Vec<String> = self
            .defined_values()
            .iter()
            .enumerate()
            .filter(|&(i, &d)| !d && self.values[i] != ValueType::U32)
            .map(|(i, _)| format!("%{i}:{}", self.values[i]))
            .collect();
        if !unused.is_empty() {
            let _ = writeln!(p.out, "  unused {}", unused.join(", "));
        }
        p.region(&self.body, 1);
        p.out.push_str("}\n");
        f.write_str(&p.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::ir::{Builder, ValueType};

    #[test]
    fn prints_structured_control_flow() {
        let mut s = Shader::new(Stage::Compute);
        s.info.name = "t".into();
        s.info.local_size = [1, 1, 1];
        let mut b = Builder::new(&mut s);
        let zero = b.imm_u32(0);
        let id = b.sysval(SysVal::GlobalInvocationId, ValueType::new(32, 3));
        let x = b.channel(id, 0);
        let r = b.loop_(&[zero], &[ValueType::U32], |b, p| {
            let c = b.alu(AluOp::Uge, &[p[0], x]);
            b.if_(
                c,
                &[],
                |b| {
                    b.break_(&[p[0]]);
                    vec![]
                },
                |_| vec![],
            );
            let one = b.imm_u32(1);
            vec![b.alu(AluOp::Iadd, &[p[0], one])]
        });
        b.store(Intrinsic::StoreSsbo { set: 0, binding: 1 }, &[r[0], zero]);
        b.finish();
        let text = s.to_string();
        let expected = "\
shader compute \"t\" {
  info local_size 1 1 1 shared 0 push 0
  values 8
  %0:i32 = const 0x0
  %1:i32x3 = load_sysval sysval=global_invocation_id
  %2:i32 = swizzle %1.x
  %7:i32 = loop (%3:i32 = %0) {
    %4:b1 = uge %3, %2
    if %4 {
      break %3
    } else {
      yield
    }
    %5:i32 = const 0x1
    %6:i32 = iadd %3, %5
    continue %6
  }
  store_ssbo set=0 binding=1 %7, %0
}
";
        assert_eq!(text, expected);
    }
}
