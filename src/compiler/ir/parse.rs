//! Parser for the text form written by `print.rs`: [`Shader::parse`].
//!
//! `parse(print(s)) == s` for every valid shader (value ids are kept as
//! written; `values N` gives the id count). The parser checks syntax, names
//! and that ids are in range and typed consistently; everything else is the
//! validator's job. It never panics: any input gives a shader or a
//! [`ParseError`] with a line and column. `//` comments run to the end of a
//! line. Constants may be written in hex (`0x..`) or decimal.

use super::instr::*;
use super::shader::*;
use super::types::{Value, ValueType, VarId};

/// A syntax error at a 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

/// More value ids than this is surely a typo (and would exhaust memory).
const MAX_VALUES: u64 = 1 << 24;
/// Deeper nesting than this is rejected instead of overflowing the stack.
const MAX_DEPTH: usize = 200;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Num(u64),
    Val(u32),
    Str(String),
    Punct(char),
    Newline,
    Eof,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Num(n) => format!("number {n}"),
            Tok::Val(v) => format!("%{v}"),
            Tok::Str(s) => format!("string {s:?}"),
            Tok::Punct(c) => format!("'{c}'"),
            Tok::Newline => "end of line".into(),
            Tok::Eof => "end of input".into(),
        }
    }
}

struct Token {
    tok: Tok,
    line: usize,
    col: usize,
}

fn lex(src: &str) -> Result<Vec<Token>, ParseError> {
    let mut out = Vec::new();
    let chars: Vec<char> = src.chars().collect();
    let (mut i, mut line, mut col) = (0usize, 1usize, 1usize);
    let e = |line, col, m: String| ParseError {
        line,
        col,
        message: m,
    };
    while i < chars.len() {
        let c = chars[i];
        let (tl, tc) = (line, col);
        let start = i;
        if c == '\n' {
            out.push(Token {
                tok: Tok::Newline,
                line,
                col,
            });
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let tok = if c.is_ascii_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            Tok::Ident(chars[start..i].iter().collect())
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            let n = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
                Some(h) => u64::from_str_radix(h, 16),
                None => text.parse::<u64>(),
            };
            Tok::Num(n.map_err(|_| e(tl, tc, format!("bad number '{text}'")))?)
        } else if c == '%' {
            i += 1;
            let s = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let text: String = chars[s..i].iter().collect();
            Tok::Val(
                text.parse::<u32>()
                    .map_err(|_| e(tl, tc, format!("bad value id '%{text}'")))?,
            )
        } else if c == '"' {
            i += 1;
            let mut s = String::new();
            loop {
                let Some(&ch) = chars.get(i) else {
                    return Err(e(tl, tc, "unterminated string".into()));
                };
                i += 1;
                match ch {
                    '"' => break,
                    '\n' => return Err(e(tl, tc, "unterminated string".into())),
                    '\\' => {
                        let esc = chars.get(i).copied();
                        i += 1;
                        match esc {
                            Some('n') => s.push('\n'),
                            Some('r') => s.push('\r'),
                            Some('t') => s.push('\t'),
                            Some('0') => s.push('\0'),
                            Some('\\') => s.push('\\'),
                            Some('"') => s.push('"'),
                            Some('\'') => s.push('\''),
                            Some('u') if chars.get(i) == Some(&'{') => {
                                let s0 = i + 1;
                                let mut j = s0;
                                while j < chars.len() && chars[j] != '}' && j - s0 < 8 {
                                    j += 1;
                                }
                                let hex: String = chars[s0..j.min(chars.len())].iter().collect();
                                let ch =
                                    u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                                match (ch, chars.get(j)) {
                                    (Some(ch), Some('}')) => s.push(ch),
                                    _ => {
                                        return Err(e(
                                            tl,
                                            tc,
                                            "bad \\u{..} escape in string".into(),
                                        ));
                                    }
                                }
                                i = j + 1;
                            }
                            _ => return Err(e(tl, tc, "bad escape in string".into())),
                        }
                    }
                    ch => s.push(ch),
                }
            }
            Tok::Str(s)
        } else if "{}(),=:.".contains(c) {
            i += 1;
            Tok::Punct(c)
        } else {
            return Err(e(tl, tc, format!("unexpected character {c:?}")));
        };
        // Columns count characters; strings may hold newlines only escaped.
        col += i - start;
        out.push(Token {
            tok,
            line: tl,
            col: tc,
        });
    }
    out.push(Token {
        tok: Tok::Eof,
        line,
        col,
    });
    Ok(out)
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    shader: Shader,
    /// Type of each id once seen at a definition.
    typed: Vec<Option<ValueType>>,
    depth: usize,
}

type PResult<T> = Result<T, ParseError>;

impl Shader {
    /// Parse the text form (see `print.rs`).
    pub fn parse(text: &str) -> Result<Shader, ParseError> {
        let toks = lex(text)?;
        let mut p = Parser {
            toks,
            pos: 0,
            shader: Shader::new(Stage::Compute),
            typed: Vec::new(),
            depth: 0,
        };
        p.shader_()?;
        Ok(p.shader)
    }
}

impl std::str::FromStr for Shader {
    type Err = ParseError;
    fn from_str(text: &str) -> Result<Shader, ParseError> {
        Shader::parse(text)
    }
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)].tok
    }

    fn next(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn err<T>(&self, message: impl Into<String>) -> PResult<T> {
        let t = &self.toks[self.pos.min(self.toks.len() - 1)];
        Err(ParseError {
            line: t.line,
            col: t.col,
            message: message.into(),
        })
    }

    fn unexpected<T>(&self, wanted: &str) -> PResult<T> {
        self.err(format!(
            "expected {wanted}, found {}",
            self.peek().describe()
        ))
    }

    fn skip_newlines(&mut self) {
        while *self.peek() == Tok::Newline {
            self.pos += 1;
        }
    }

    fn punct(&mut self, c: char) -> PResult<()> {
        if *self.peek() == Tok::Punct(c) {
            self.next();
            Ok(())
        } else {
            self.unexpected(&format!("'{c}'"))
        }
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if *self.peek() == Tok::Punct(c) {
            self.next();
            true
        } else {
            false
        }
    }

    fn newline(&mut self) -> PResult<()> {
        match self.peek() {
            Tok::Newline => {
                self.skip_newlines();
                Ok(())
            }
            Tok::Eof => Ok(()),
            _ => self.unexpected("end of line"),
        }
    }

    fn ident(&mut self) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.next();
                Ok(s)
            }
            _ => self.unexpected("a name"),
        }
    }

    fn keyword(&mut self, k: &str) -> PResult<()> {
        if matches!(self.peek(), Tok::Ident(s) if s == k) {
            self.next();
            Ok(())
        } else {
            self.unexpected(&format!("'{k}'"))
        }
    }

    fn eat_keyword(&mut self, k: &str) -> bool {
        if matches!(self.peek(), Tok::Ident(s) if s == k) {
            self.next();
            true
        } else {
            false
        }
    }

    fn num(&mut self) -> PResult<u64> {
        match self.peek() {
            &Tok::Num(n) => {
                self.next();
                Ok(n)
            }
            _ => self.unexpected("a number"),
        }
    }

    fn num_u32(&mut self) -> PResult<u32> {
        let n = self.num()?;
        match u32::try_from(n) {
            Ok(v) => Ok(v),
            Err(_) => {
                self.pos -= 1;
                self.err(format!("{n} does not fit 32 bits"))
            }
        }
    }

    fn num_u8(&mut self) -> PResult<u8> {
        let n = self.num()?;
        match u8::try_from(n) {
            Ok(v) => Ok(v),
            Err(_) => {
                self.pos -= 1;
                self.err(format!("{n} does not fit 8 bits"))
            }
        }
    }

    fn string(&mut self) -> PResult<String> {
        match self.peek().clone() {
            Tok::Str(s) => {
                self.next();
                Ok(s)
            }
            _ => self.unexpected("a string"),
        }
    }

    fn ty(&mut self) -> PResult<ValueType> {
        let name = self.ident()?;
        match name.parse::<ValueType>() {
            Ok(t) => Ok(t),
            Err(m) => {
                self.pos -= 1;
                self.err(m)
            }
        }
    }

    /// A value use: `%N` with N in range.
    fn value(&mut self) -> PResult<Value> {
        match *self.peek() {
            Tok::Val(v) => {
                if v as usize >= self.typed.len() {
                    return self.err(format!(
                        "%{v} is out of range (values {})",
                        self.typed.len()
                    ));
                }
                self.next();
                Ok(Value(v))
            }
            _ => self.unexpected("a value"),
        }
    }

    /// A definition `%N:TYPE`.
    fn def(&mut self) -> PResult<Value> {
        let v = self.value()?;
        self.punct(':')?;
        let t = self.ty()?;
        match self.typed[v.index()] {
            Some(old) if old != t => {
                return self.err(format!("{v} defined again with another type"));
            }
            _ => {}
        }
        self.typed[v.index()] = Some(t);
        Ok(v)
    }

    /// `%a, %b, ...` (possibly empty, up to the end of the line or a '{'/')').
    fn value_list(&mut self) -> PResult<Vec<Value>> {
        let mut vals = Vec::new();
        if !matches!(self.peek(), Tok::Val(_)) {
            return Ok(vals);
        }
        loop {
            vals.push(self.value()?);
            if !self.eat_punct(',') {
                return Ok(vals);
            }
        }
    }

    fn shader_(&mut self) -> PResult<()> {
        self.skip_newlines();
        self.keyword("shader")?;
        self.shader.stage = match self.ident()?.as_str() {
            "vertex" => Stage::Vertex,
            "compute" => Stage::Compute,
            "fragment" => Stage::Fragment,
            _ => {
                self.pos -= 1;
                return self.err("unknown stage (vertex, compute or fragment)");
            }
        };
        self.shader.info.name = self.string()?;
        self.punct('{')?;
        self.newline()?;
        self.keyword("info")?;
        self.keyword("local_size")?;
        for i in 0..3 {
            self.shader.info.local_size[i] = self.num_u32()?;
        }
        self.shader.info.xfb_mode = self.eat_keyword("xfb_mode");
        self.shader.info.early_fragment_tests = self.eat_keyword("early_fragment_tests");
        self.keyword("shared")?;
        self.shader.info.shared_size = self.num_u32()?;
        self.keyword("push")?;
        self.shader.info.push_constant_size = self.num_u32()?;
        self.newline()?;
        loop {
            if self.eat_keyword("color") {
                self.keyword("location")?;
                let location = self.num_u32()?;
                let format = match self.ident()?.as_str() {
                    "float" => ColorFormat::Float,
                    "sint" => ColorFormat::Sint,
                    "uint" => ColorFormat::Uint,
                    _ => {
                        self.pos -= 1;
                        return self.err("unknown colour format (float, sint or uint)");
                    }
                };
                self.shader.info.color_formats.push((location, format));
            } else if self.eat_keyword("input") {
                let name = self.string()?;
                self.keyword("location")?;
                let location = self.num_u32()?;
                self.keyword("component")?;
                let component = self.num_u8()?;
                let ty = self.ty()?;
                let interpolation = if self.eat_keyword("flat") {
                    Interpolation::Flat
                } else if self.eat_keyword("noperspective") {
                    Interpolation::NoPerspective
                } else {
                    Interpolation::Smooth
                };
                let sampling = if self.eat_keyword("centroid") {
                    Sampling::Centroid
                } else if self.eat_keyword("sample") {
                    Sampling::Sample
                } else {
                    Sampling::Center
                };
                self.shader.inputs.push(Input {
                    name,
                    location,
                    component,
                    ty,
                    interpolation,
                    sampling,
                });
            } else if self.eat_keyword("output") {
                let name = self.string()?;
                let slot = if self.eat_keyword("location") {
                    let location = self.num_u32()?;
                    self.keyword("component")?;
                    OutputSlot::Location {
                        location,
                        component: self.num_u8()?,
                    }
                } else if self.eat_keyword("builtin") {
                    OutputSlot::BuiltIn(self.builtin()?)
                } else if self.eat_keyword("second_color") {
                    self.keyword("component")?;
                    OutputSlot::SecondColor {
                        component: self.num_u8()?,
                    }
                } else {
                    return self.unexpected("'location', 'builtin' or 'second_color'");
                };
                let ty = self.ty()?;
                let xfb = if self.eat_keyword("xfb") {
                    self.keyword("buffer")?;
                    let buffer = self.num_u32()?;
                    self.keyword("stride")?;
                    let stride = self.num_u32()?;
                    self.keyword("offset")?;
                    let offset = self.num_u32()?;
                    self.keyword("stream")?;
                    let stream = self.num_u32()?;
                    Some(Xfb {
                        buffer,
                        stride,
                        offset,
                        stream,
                    })
                } else {
                    None
                };
                self.shader.outputs.push(Output {
                    name,
                    slot,
                    ty,
                    xfb,
                });
            } else if self.eat_keyword("var") {
                let name = self.string()?;
                let ty = self.ty()?;
                self.shader.vars.push(Variable { name, ty });
            } else {
                break;
            }
            self.newline()?;
        }
        self.keyword("values")?;
        let n = self.num()?;
        if n > MAX_VALUES {
            self.pos -= 1;
            return self.err(format!("too many values (at most {MAX_VALUES})"));
        }
        self.typed = vec![None; n as usize];
        self.newline()?;
        if self.eat_keyword("unused") {
            loop {
                self.def()?;
                if !self.eat_punct(',') {
                    break;
                }
            }
            self.newline()?;
        }
        let body = self.region()?;
        self.punct('}')?;
        self.skip_newlines();
        if *self.peek() != Tok::Eof {
            return self.unexpected("end of input");
        }
        self.shader.body = body;
        self.shader.values = self
            .typed
            .iter()
            .map(|t| t.unwrap_or(ValueType::U32))
            .collect();
        Ok(())
    }

    fn builtin(&mut self) -> PResult<BuiltIn> {
        let name = self.ident()?;
        let b = match name.as_str() {
            "position" => Some(BuiltIn::Position),
            "point_size" => Some(BuiltIn::PointSize),
            "frag_depth" => Some(BuiltIn::FragDepth),
            "sample_mask" => Some(BuiltIn::SampleMask),
            _ => {
                let idx = |p: &str| name.strip_prefix(p).and_then(|n| n.parse::<u8>().ok());
                idx("clip_distance")
                    .map(BuiltIn::ClipDistance)
                    .or_else(|| idx("cull_distance").map(BuiltIn::CullDistance))
            }
        };
        match b {
            // Only the canonical spelling (no leading zeros) round-trips.
            Some(b) if b.text() == name => Ok(b),
            _ => {
                self.pos -= 1;
                self.err(format!("unknown builtin '{name}'"))
            }
        }
    }

    /// Instructions up to (not including) a closing '}'.
    fn region(&mut self) -> PResult<Region> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err("control flow nested too deeply");
        }
        let mut region = Region::new();
        self.skip_newlines();
        while !matches!(self.peek(), Tok::Punct('}') | Tok::Eof) {
            region.instrs.push(self.instr()?);
            self.newline()?;
        }
        self.depth -= 1;
        Ok(region)
    }

    fn instr(&mut self) -> PResult<Instr> {
        let mut dsts = Vec::new();
        if matches!(self.peek(), Tok::Val(_)) {
            loop {
                dsts.push(self.def()?);
                if !self.eat_punct(',') {
                    break;
                }
            }
            self.punct('=')?;
        }
        let name = self.ident()?;
        let op = match name.as_str() {
            "const" => {
                let mut values = Vec::new();
                while let Tok::Num(_) = self.peek() {
                    values.push(self.num()?);
                }
                Op::Const(OpConst {
                    values: values.into(),
                })
            }
            "undef" => Op::Undef,
            "vec" => Op::Vec(OpVec {
                srcs: self.value_list()?.into(),
            }),
            "swizzle" => {
                let src = self.value()?;
                self.punct('.')?;
                let comps = self.ident()?;
                let mut out = Vec::new();
                for c in comps.chars() {
                    match "xyzw".find(c) {
                        Some(i) => out.push(i as u8),
                        None => {
                            self.pos -= 1;
                            return self.err(format!("bad swizzle '{comps}'"));
                        }
                    }
                }
                Op::Swizzle(OpSwizzle {
                    src,
                    comps: out.into(),
                })
            }
            "yield" => Op::Yield(OpValues {
                values: self.value_list()?,
            }),
            "break" => Op::Break(OpValues {
                values: self.value_list()?,
            }),
            "continue" => Op::Continue(OpValues {
                values: self.value_list()?,
            }),
            "if" => {
                let cond = self.value()?;
                self.punct('{')?;
                self.newline()?;
                let then_region = self.region()?;
                self.punct('}')?;
                self.keyword("else")?;
                self.punct('{')?;
                self.newline()?;
                let else_region = self.region()?;
                self.punct('}')?;
                Op::If(If {
                    cond,
                    then_region,
                    else_region,
                })
            }
            "loop" => {
                self.punct('(')?;
                let (mut params, mut inits) = (Vec::new(), Vec::new());
                if !self.eat_punct(')') {
                    loop {
                        params.push(self.def()?);
                        self.punct('=')?;
                        inits.push(self.value()?);
                        if self.eat_punct(')') {
                            break;
                        }
                        self.punct(',')?;
                    }
                }
                self.punct('{')?;
                self.newline()?;
                let body = self.region()?;
                self.punct('}')?;
                Op::Loop(Loop {
                    params,
                    inits,
                    body,
                })
            }
            _ => {
                if let Some(op) = AluOp::from_name(&name) {
                    Op::Alu(OpAlu {
                        op,
                        srcs: self.value_list()?.into(),
                    })
                } else {
                    let kind = self.intrinsic(&name)?;
                    Op::Intrinsic(OpIntrinsic {
                        kind,
                        srcs: self.value_list()?.into(),
                    })
                }
            }
        };
        Ok(Instr::new(dsts, op))
    }

    /// Intrinsic name already read; parses `key=value` parameters.
    fn intrinsic(&mut self, name: &str) -> PResult<Intrinsic> {
        use Intrinsic::*;
        let name_pos = self.pos - 1;
        let mut params: Vec<(String, Tok, usize)> = Vec::new();
        while let Tok::Ident(k) = self.peek().clone() {
            let at = self.pos;
            self.next();
            self.punct('=')?;
            let v = self.next();
            if !matches!(v, Tok::Ident(_) | Tok::Num(_)) {
                self.pos -= 1;
                return self.unexpected("a parameter value");
            }
            params.push((k, v, at));
        }
        let has_sampler = params.iter().any(|(k, _, _)| k == "sampler_set");
        let has_array = params.iter().any(|(k, _, _)| k == "array");
        let has_offset = params.iter().any(|(k, _, _)| k == "offset");
        let has_dim = params.iter().any(|(k, _, _)| k == "dim");
        let mut used = 0usize;
        let mut get = |this: &Self, key: &str| -> PResult<Tok> {
            match params.iter().find(|(k, _, _)| k == key) {
                Some((_, v, _)) => {
                    used += 1;
                    Ok(v.clone())
                }
                None => this.err(format!("{name} needs parameter '{key}'")),
            }
        };
        let num = |this: &Self, t: Tok| -> PResult<u32> {
            match t {
                Tok::Num(n) => {
                    u32::try_from(n).or_else(|_| this.err(format!("{n} does not fit 32 bits")))
                }
                _ => this.err("expected a number parameter"),
            }
        };
        let atomic = |this: &Self, t: Tok| -> PResult<AtomicOp> {
            match t {
                Tok::Ident(s) => match AtomicOp::ALL.iter().find(|o| o.name() == s) {
                    Some(&o) => Ok(o),
                    None => this.err(format!("unknown atomic op '{s}'")),
                },
                _ => this.err("expected an atomic op name"),
            }
        };
        let small = |this: &Self, n: u32| -> PResult<u8> {
            u8::try_from(n).or_else(|_| this.err(format!("{n} does not fit 8 bits")))
        };
        let kind = match name {
            "load_input" | "load_attribute" => {
                let location = num(self, get(self, "location")?)?;
                let component = small(self, num(self, get(self, "component")?)?)?;
                if name == "load_input" {
                    LoadInput {
                        location,
                        component,
                    }
                } else {
                    LoadAttribute {
                        location,
                        component,
                    }
                }
            }
            "store_output" => StoreOutput {
                output: num(self, get(self, "output")?)?,
            },
            "load_var" => LoadVar {
                var: VarId(num(self, get(self, "var")?)?),
            },
            "store_var" => StoreVar {
                var: VarId(num(self, get(self, "var")?)?),
            },
            "load_sysval" => {
                let Tok::Ident(sv) = get(self, "sysval")? else {
                    return self.err("expected a sysval name");
                };
                let sysval = match sv.as_str() {
                    "xfb_param" => {
                        let n = num(self, get(self, "index")?)?;
                        SysVal::XfbParam(
                            u16::try_from(n)
                                .or_else(|_| self.err("xfb_param index does not fit 16 bits"))?,
                        )
                    }
                    _ => match SYSVALS.iter().find(|s| s.text().0 == sv) {
                        Some(&s) => s,
                        None => return self.err(format!("unknown sysval '{sv}'")),
                    },
                };
                LoadSysVal(sysval)
            }
            "load_push_constant" => LoadPushConstant {
                base: num(self, get(self, "base")?)?,
            },
            "load_uniform" => LoadUniform {
                offset: num(self, get(self, "offset")?)?,
            },
            "load_ubo" | "load_ssbo" | "store_ssbo" | "ssbo_atomic" | "buffer_size" => {
                let set = num(self, get(self, "set")?)?;
                let binding = num(self, get(self, "binding")?)?;
                match name {
                    "load_ubo" => LoadUbo { set, binding },
                    "load_ssbo" => LoadSsbo { set, binding },
                    "store_ssbo" => StoreSsbo { set, binding },
                    "buffer_size" => BufferSize { set, binding },
                    _ => SsboAtomic {
                        set,
                        binding,
                        op: atomic(self, get(self, "op")?)?,
                    },
                }
            }
            "load_global" => LoadGlobal,
            "store_global" => StoreGlobal,
            "global_atomic" => GlobalAtomic {
                op: atomic(self, get(self, "op")?)?,
            },
            "load_shared" => LoadShared,
            "store_shared" => StoreShared,
            "shared_atomic" => SharedAtomic {
                op: atomic(self, get(self, "op")?)?,
            },
            "texture" => {
                let ident = |this: &Self, t: Tok| -> PResult<String> {
                    match t {
                        Tok::Ident(s) => Ok(s),
                        _ => this.err("expected a name parameter"),
                    }
                };
                let op = ident(self, get(self, "op")?)?;
                let op = match TexOp::ALL.iter().find(|o| o.name() == op) {
                    Some(&o) => o,
                    None => return self.err(format!("unknown texture op '{op}'")),
                };
                let ty = ident(self, get(self, "type")?)?;
                let ty = match SampledType::ALL.iter().find(|t| t.name() == ty) {
                    Some(&t) => t,
                    None => return self.err(format!("unknown sampled type '{ty}'")),
                };
                let set = num(self, get(self, "set")?)?;
                let binding = num(self, get(self, "binding")?)?;
                let sampler = if has_sampler {
                    Some((
                        num(self, get(self, "sampler_set")?)?,
                        num(self, get(self, "sampler_binding")?)?,
                    ))
                } else {
                    None
                };
                let array = has_array && num(self, get(self, "array")?)? != 0;
                let dim = if has_dim {
                    let d = ident(self, get(self, "dim")?)?;
                    match TexDim::ALL.iter().find(|t| t.name() == d) {
                        Some(&t) => t,
                        None => return self.err(format!("unknown texture dimension '{d}'")),
                    }
                } else {
                    TexDim::D2
                };
                let offset = if has_offset {
                    let packed = num(self, get(self, "offset")?)?;
                    if packed > 0xffff {
                        return self.err("a texture offset is two bytes");
                    }
                    [packed as u8 as i8, (packed >> 8) as u8 as i8]
                } else {
                    [0, 0]
                };
                Texture {
                    offset,
                    dim,
                    set,
                    binding,
                    sampler,
                    op,
                    ty,
                    array,
                }
            }
            "ddx" | "ddx_coarse" | "ddy" | "ddy_coarse" => Derivative {
                axis: if name.starts_with("ddx") {
                    DerivativeAxis::X
                } else {
                    DerivativeAxis::Y
                },
                coarse: name.ends_with("_coarse"),
            },
            "image_load" | "image_store" => {
                let ty = match get(self, "type")? {
                    Tok::Ident(t) => t,
                    _ => return self.err("expected a name parameter"),
                };
                let ty = match SampledType::ALL.iter().find(|t| t.name() == ty) {
                    Some(&t) => t,
                    None => return self.err(format!("unknown sampled type '{ty}'")),
                };
                let set = num(self, get(self, "set")?)?;
                let binding = num(self, get(self, "binding")?)?;
                let array = has_array && num(self, get(self, "array")?)? != 0;
                if name == "image_load" {
                    ImageLoad {
                        set,
                        binding,
                        ty,
                        array,
                    }
                } else {
                    ImageStore {
                        set,
                        binding,
                        ty,
                        array,
                    }
                }
            }
            "image_atomic" => ImageAtomic {
                set: num(self, get(self, "set")?)?,
                binding: num(self, get(self, "binding")?)?,
                op: atomic(self, get(self, "op")?)?,
            },
            "texture_size" => TextureSize {
                set: num(self, get(self, "set")?)?,
                binding: num(self, get(self, "binding")?)?,
            },
            "barrier" => Barrier,
            "discard" => Discard,
            _ => {
                self.pos = name_pos;
                return self.err(format!("unknown operation '{name}'"));
            }
        };
        if used != params.len() {
            return self.err(format!("unexpected parameters for {name}"));
        }
        Ok(kind)
    }
}

/// Every sysval without an argument (for name lookup).
const SYSVALS: [SysVal; 22] = [
    SysVal::VertexIndex,
    SysVal::InstanceIndex,
    SysVal::BaseVertex,
    SysVal::BaseInstance,
    SysVal::ViewIndex,
    SysVal::DrawIndex,
    SysVal::RawVertexId,
    SysVal::RawVertexOffset,
    SysVal::InstanceId,
    SysVal::LocalInvocationId,
    SysVal::LocalInvocationIndex,
    SysVal::WorkgroupId,
    SysVal::GlobalInvocationId,
    SysVal::NumWorkgroups,
    SysVal::WorkgroupSize,
    SysVal::XfbInvocation,
    SysVal::FragCoord,
    SysVal::FrontFacing,
    SysVal::PointCoord,
    SysVal::SampleId,
    SysVal::SamplePosition,
    SysVal::SampleMaskIn,
];

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"shader vertex "t\"q" {
  info local_size 1 2 3 xfb_mode shared 4 push 16
  input "a" location 0 component 1 i32x2
  output "gl_Position" builtin position i32x4 xfb buffer 0 stride 16 offset 0 stream 0
  output "c" builtin clip_distance3 i32
  output "v" location 1 component 0 i32x2
  var "tmp" i32
  values 12
  unused %11:b1
  %0:i32 = const 0x1 // a comment
  %1:b1 = ilt %0, %0
  %2:i32 = load_sysval sysval=xfb_param index=3
  %3:i32x2 = vec %0, %2
  store_output output=2 %3
  %4:i32 = if %1 {
    yield %0
  } else {
    yield %2
  }
  %5:i32 = loop (%6:i32 = %0) {
    %7:i32 = ssbo_atomic set=0 binding=1 op=cmpxchg %0, %6, %4
    break %6
  }
  %8:i32 = swizzle %3.y
  %9:i32 = load_var var=0
  barrier
  %10:i32x2 = swizzle %3.yx
}
"#;

    #[test]
    fn parses_and_round_trips() {
        let s = Shader::parse(TEXT).unwrap();
        assert_eq!(s.info.name, "t\"q");
        assert_eq!(s.values.len(), 12);
        assert_eq!(s.values[11], ValueType::BOOL);
        let printed = s.to_string();
        let again = Shader::parse(&printed).unwrap();
        assert_eq!(again, s);
        assert_eq!(again.to_string(), printed);
        s.validate().unwrap();
    }

    #[test]
    fn errors_have_positions() {
        let bad = TEXT.replace("ilt %0, %0", "ilt %0, %99");
        let e = Shader::parse(&bad).unwrap_err();
        assert_eq!((e.line, e.col), (11, 19), "{e}");
        let bad = TEXT.replace("load_sysval", "load_sysvalue");
        let e = Shader::parse(&bad).unwrap_err();
        assert_eq!(e.line, 12, "{e}");
        assert!(e.message.contains("unknown operation"));
    }

    #[test]
    fn never_panics_on_prefixes_and_garbage() {
        for end in 0..TEXT.len() {
            if TEXT.is_char_boundary(end) {
                let _ = Shader::parse(&TEXT[..end]);
            }
        }
        for s in [
            "",
            "}",
            "shader",
            "%",
            "%99999999999",
            "\"\\u{110000}\"",
            "0xzz",
            "values 99999999999",
        ] {
            let _ = Shader::parse(s);
        }
        let deep = format!(
            "shader compute \"\" {{\n info local_size 1 1 1 shared 0 push 0\n values 0\n{}",
            "loop () {\n".repeat(10_000)
        );
        assert!(Shader::parse(&deep).is_err());
    }
}
