//! Bit-range tables for hardware descriptors, with pack, unpack and dump.
//!
//! A descriptor is a sequence of little-endian 32-bit words. A [`Field`] names a
//! range of bits (absolute bit `start`, `width` ≤ 64 except for nested
//! structs), how its raw bits relate to the logical value ([`Modifier`]) and
//! how to print it ([`Kind`]). A [`Layout`] lists the fields of one
//! descriptor; bits that no field covers are reserved and must be zero,
//! which [`Layout::check_reserved`] verifies (hardware and Mesa's decoder
//! treat them as errors).
//!
//! A field may itself be a descriptor ([`Kind::Struct`]): the nested layout
//! sits at the field's bit offset (genxml nests "Shader", "Renderer
//! Properties", "Preload" ... inside "Renderer State" this way). Dumps print
//! such a field as a `Name:` heading with the nested fields indented below it,
//! reserved-bit checks descend into it, and [`Layout::lookup`] reaches its
//! fields by a dotted path (`"Preload.Compute.Work group X"`) as plain
//! [`Field`]s at absolute positions.
//!
//! Nothing here allocates on the packing path: `set`/`get` work on `&mut [u32]`.
//! This module must never know about a particular descriptor or architecture:
//! the tables live in the topic modules beside it.

use std::fmt::Write as _;

/// How a field's raw bits are shown and interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Uint,
    /// Two's-complement signed integer of the field's width.
    Int,
    Bool,
    /// A GPU virtual address.
    Address,
    /// IEEE-754 single (width 32).
    Float,
    /// An enumeration; unknown values print as `XXX: INVALID`, as in pandecode.
    Enum(&'static [(u64, &'static str)]),
    /// The 8-bit "padded" encoding: raw = shift | (odd << 5), value = (2*odd+1) << shift.
    Padded,
    /// An unsigned value printed in hexadecimal (genxml "hex").
    Hex,
    /// A 22-bit pixel format word (format enum << 12 | order/swizzle, sRGB at
    /// bit 20), printed per architecture by its [`PixelFormatTable`].
    PixelFormat(&'static PixelFormatTable),
    /// A level of detail in fixed point with 8 fractional bits (genxml
    /// "ulod"/"slod"); the logical value is the raw fixed-point number
    /// (sign-extended when `signed`), printed as a float.
    Lod {
        signed: bool,
    },
    /// A 32-bit word printed as hex and as the float with those bits
    /// (genxml "uint/float", e.g. border colours).
    UintFloat,
    /// Four 3-bit channel selectors (genxml "Component Swizzle").
    ComponentSwizzle,
    /// A nested descriptor whose bit 0 is this field's `start`.
    Struct(&'static Layout),
}

/// How an architecture prints a pixel format word (pandecode's
/// `Format (v6)` / `Format (v7)` lines).
#[derive(Debug, PartialEq, Eq)]
pub struct PixelFormatTable {
    /// `"v6"` or `"v7"`.
    pub arch: &'static str,
    /// The hardware `Format` enum (bits 12..20 of the word).
    pub formats: &'static [(u64, &'static str)],
    /// v7: the `RGB Component Order` enum (bits 0..12). v6 has none: its low
    /// 12 bits are four 3-bit `Channel` swizzles and bit 21 is big-endian.
    pub component_orders: Option<&'static [(u64, &'static str)]>,
}

/// The `Channel` enum of v6 swizzles (common.xml).
pub const CHANNELS: &[(u64, &str)] = &[(0, "R"), (1, "G"), (2, "B"), (3, "A"), (4, "0"), (5, "1")];

impl PixelFormatTable {
    /// The text pandecode prints for a pixel format word, without indentation.
    pub fn describe(&self, format: u64) -> String {
        let name = enum_name(self.formats, (format >> 12) & 0xff);
        let srgb = if format & (1 << 20) != 0 { " sRGB" } else { "" };
        match self.component_orders {
            Some(orders) => {
                let bad = if format & (1 << 21) != 0 {
                    " XXX BAD BIT"
                } else {
                    ""
                };
                let order = enum_name(orders, format & 0xfff);
                format!("Format ({}): {name}{srgb} {order}{bad}", self.arch)
            }
            None => {
                let big = if format & (1 << 21) != 0 {
                    " big-endian"
                } else {
                    ""
                };
                let ch = |i: u32| enum_name(CHANNELS, (format >> (3 * i)) & 7);
                format!(
                    "Format ({}): {name}{srgb}{big} {}{}{}{}",
                    self.arch,
                    ch(0),
                    ch(1),
                    ch(2),
                    ch(3)
                )
            }
        }
    }
}

/// The name of an enum value, or pandecode's marker for an unknown one.
pub fn enum_name(values: &[(u64, &'static str)], value: u64) -> &'static str {
    values
        .iter()
        .find(|(v, _)| *v == value)
        .map(|(_, n)| *n)
        .unwrap_or("XXX: INVALID")
}

/// How the stored bits relate to the logical value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modifier {
    None,
    /// Stored value = logical - n.
    Minus(u64),
    /// Stored value = logical >> n (the low n bits must be zero).
    Shr(u32),
    /// Stored value = log2(logical) (logical must be a power of two).
    Log2,
    /// Stored value = logical rounded up to a multiple of n (a power of two).
    Align(u64),
}

/// One named bit range of a descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    /// Absolute bit position: word * 32 + bit.
    pub start: u32,
    pub width: u32,
    pub kind: Kind,
    pub modifier: Modifier,
    /// Logical default value used by [`Layout::defaults`].
    pub default: u64,
}

impl Field {
    /// A field at `word:bit` of `width` bits.
    pub const fn new(name: &'static str, word: u32, bit: u32, width: u32, kind: Kind) -> Field {
        Field {
            name,
            start: word * 32 + bit,
            width,
            kind,
            modifier: Modifier::None,
            default: 0,
        }
    }

    pub const fn modifier(mut self, modifier: Modifier) -> Field {
        self.modifier = modifier;
        self
    }

    pub const fn default(mut self, default: u64) -> Field {
        self.default = default;
        self
    }

    /// The same field moved `bits` further into a descriptor (for nesting:
    /// `preload::UNIFORM_COUNT.at(12 * 32)` is the field inside Renderer State).
    pub const fn at(mut self, bits: u32) -> Field {
        self.start += bits;
        self
    }

    /// The nested layout of a [`Kind::Struct`] field.
    pub const fn nested(&self) -> Option<&'static Layout> {
        match self.kind {
            Kind::Struct(layout) => Some(layout),
            _ => None,
        }
    }

    const fn mask(&self) -> u64 {
        if self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    /// Logical value → raw bits, or an error if it does not fit.
    #[inline(always)]
    pub fn encode(&self, value: u64) -> Result<u64, PackError> {
        // The common case (plain unsigned fields and addresses) without
        // the general path's matches: recording packs a few of these per job.
        if matches!(self.modifier, Modifier::None)
            && !matches!(
                self.kind,
                Kind::Int | Kind::Lod { signed: true } | Kind::Padded
            )
        {
            return if value & !self.mask() == 0 {
                Ok(value)
            } else {
                Err(PackError {
                    field: self.name,
                    value,
                })
            };
        }
        self.encode_general(value)
    }

    #[inline(never)]
    fn encode_general(&self, value: u64) -> Result<u64, PackError> {
        let err = || PackError {
            field: self.name,
            value,
        };
        let raw = match self.modifier {
            Modifier::None => value,
            Modifier::Minus(n) => value.checked_sub(n).ok_or_else(err)?,
            Modifier::Shr(n) => {
                if value & ((1u64 << n) - 1) != 0 {
                    return Err(err());
                }
                value >> n
            }
            Modifier::Log2 => {
                if !value.is_power_of_two() {
                    return Err(err());
                }
                u64::from(value.trailing_zeros())
            }
            Modifier::Align(n) => value.checked_next_multiple_of(n).ok_or_else(err)?,
        };
        let raw = match self.kind {
            Kind::Int | Kind::Lod { signed: true } => {
                // Accept sign-extended negatives that fit the width.
                let v = raw as i64;
                let w = self.width;
                if w < 64 && (v < -(1i64 << (w - 1)) || v >= (1i64 << (w - 1))) {
                    return Err(err());
                }
                (v as u64) & self.mask()
            }
            Kind::Padded => encode_padded(raw).ok_or_else(err)?,
            _ => raw,
        };
        if raw & !self.mask() != 0 {
            return Err(err());
        }
        Ok(raw)
    }

    /// Raw bits → logical value (sign-extended for [`Kind::Int`]).
    pub fn decode(&self, raw: u64) -> u64 {
        let raw = match self.kind {
            Kind::Int | Kind::Lod { signed: true } if self.width < 64 => {
                let shift = 64 - self.width;
                (((raw << shift) as i64) >> shift) as u64
            }
            Kind::Padded => decode_padded(raw),
            _ => raw,
        };
        match self.modifier {
            Modifier::None => raw,
            Modifier::Minus(n) => raw.wrapping_add(n),
            Modifier::Shr(n) => raw << n,
            Modifier::Log2 => 1u64.checked_shl(raw as u32).unwrap_or(0),
            Modifier::Align(_) => raw,
        }
    }

    /// Read the raw bits of this field from `words` (missing words read as
    /// zero). Struct fields wider than 64 bits yield their low 64 bits.
    pub fn get_raw(&self, words: &[u32]) -> u64 {
        get_bits(words, self.start, self.width.min(64))
    }

    /// Read the logical value of this field.
    pub fn get(&self, words: &[u32]) -> u64 {
        self.decode(self.get_raw(words))
    }

    /// Write the logical value of this field.
    #[inline(always)]
    pub fn set(&self, words: &mut [u32], value: u64) -> Result<(), PackError> {
        let raw = self.encode(value)?;
        set_bits(words, self.start, self.width.min(64), raw);
        Ok(())
    }
}

/// The "padded" encoding of Mali: value = (2*odd + 1) << shift, raw = shift | odd << 5.
pub fn encode_padded(value: u64) -> Option<u64> {
    if value == 0 {
        return None;
    }
    let shift = u64::from(value.trailing_zeros());
    let multiplier = value >> shift; // odd by construction
    if shift >= 32 || multiplier > 15 {
        return None;
    }
    Some(shift | ((multiplier - 1) / 2) << 5)
}

/// The smallest value ≥ `n` (and ≥ 1) that the padded encoding holds:
/// `(2k+1) << s` with k ≤ 7, s ≤ 31. Not how instanced draws pad their
/// vertex count: the hardware's rule often pads further
/// (`super::attribute::padded_vertex_count`).
pub fn padded_round_up(n: u64) -> Option<u64> {
    let n = n.max(1);
    (0..32u32)
        .filter_map(|s| {
            let mut m = n.div_ceil(1u64 << s);
            if m.is_multiple_of(2) {
                m += 1;
            }
            (m <= 15).then(|| m << s)
        })
        .min()
}

pub fn decode_padded(raw: u64) -> u64 {
    let shift = raw & 0x1f;
    let odd = (raw >> 5) & 0x7;
    (2 * odd + 1) << shift
}

/// Read `width` bits at absolute bit `start` of little-endian 32-bit words.
pub fn get_bits(words: &[u32], start: u32, width: u32) -> u64 {
    let mut value = 0u64;
    let mut done = 0;
    while done < width {
        let bit = start + done;
        let word = words.get((bit / 32) as usize).copied().unwrap_or(0);
        let shift = bit % 32;
        let take = (32 - shift).min(width - done);
        let part = (u64::from(word) >> shift) & ((1u64 << take) - 1);
        value |= part << done;
        done += take;
    }
    value
}

/// Write `width` bits at absolute bit `start`; bits beyond `words` are dropped.
#[inline(always)]
pub fn set_bits(words: &mut [u32], start: u32, width: u32, value: u64) {
    let shift = start % 32;
    let at = (start / 32) as usize;
    // One word, or a word-aligned 64-bit pointer: the shapes of nearly
    // every field a job emitter packs.
    if shift + width <= 32 {
        if let Some(word) = words.get_mut(at) {
            let mask = (((1u64 << width) - 1) as u32) << shift;
            *word = (*word & !mask) | (((value as u32) << shift) & mask);
        }
        return;
    }
    if shift == 0
        && width == 64
        && let Some(pair) = words.get_mut(at..at + 2)
    {
        pair[0] = value as u32;
        pair[1] = (value >> 32) as u32;
        return;
    }
    set_bits_general(words, start, width, value);
}

#[inline(never)]
fn set_bits_general(words: &mut [u32], start: u32, width: u32, value: u64) {
    let mut done = 0;
    while done < width {
        let bit = start + done;
        let shift = bit % 32;
        let take = (32 - shift).min(width - done);
        let mask = ((1u64 << take) - 1) as u32;
        if let Some(word) = words.get_mut((bit / 32) as usize) {
            let part = ((value >> done) as u32) & mask;
            *word = (*word & !(mask << shift)) | (part << shift);
        }
        done += take;
    }
}

/// A value does not fit its field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("value {value:#x} does not fit field '{field}'")]
pub struct PackError {
    pub field: &'static str,
    pub value: u64,
}

/// A by-name access to a layout failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("{0} has no field '{1}'")]
    NoSuchField(&'static str, String),
    #[error(transparent)]
    Pack(#[from] PackError),
}

/// Reserved (unassigned) bits are set in an unpacked descriptor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid field of {layout} unpacked at word {word}")]
pub struct ReservedBitsError {
    pub layout: &'static str,
    pub word: u32,
}

/// The fields of one descriptor. Fields may overlap (alternative views of the
/// same bits, as genxml has them); only bits covered by no field are reserved.
#[derive(Debug, PartialEq, Eq)]
pub struct Layout {
    pub name: &'static str,
    /// Size in 32-bit words.
    pub words: u32,
    pub fields: &'static [Field],
}

impl Layout {
    pub const fn bytes(&self) -> usize {
        self.words as usize * 4
    }

    /// A top-level field by name.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// A field by dotted path through nested structs (`"Properties.Uniform
    /// buffer count"`), moved to its absolute position in this descriptor.
    pub fn lookup(&self, path: &str) -> Option<Field> {
        let (head, rest) = match path.split_once('.') {
            Some((h, r)) => (h, Some(r)),
            None => (path, None),
        };
        let f = *self.field(head)?;
        match rest {
            None => Some(f),
            Some(rest) => Some(f.nested()?.lookup(rest)?.at(f.start)),
        }
    }

    /// Set a field by dotted path; an unknown path is an error, so a field
    /// that one architecture lacks must be reached with [`Layout::lookup`].
    pub fn set(&self, words: &mut [u32], path: &str, value: u64) -> Result<(), LayoutError> {
        let f = self
            .lookup(path)
            .ok_or_else(|| LayoutError::NoSuchField(self.name, path.to_string()))?;
        Ok(f.set(words, value)?)
    }

    /// A descriptor from its defaults plus `(path, value)` pairs.
    pub fn build(&self, values: &[(&str, u64)]) -> Result<Vec<u32>, LayoutError> {
        let mut words = self.defaults();
        for (path, value) in values {
            self.set(&mut words, path, *value)?;
        }
        Ok(words)
    }

    /// Read a field by dotted path.
    pub fn get(&self, words: &[u32], path: &str) -> Option<u64> {
        self.lookup(path).map(|f| f.get(words))
    }

    /// Every non-struct field, nested ones included, at absolute positions,
    /// with its dotted path.
    pub fn leaves(&self) -> Vec<(String, Field)> {
        let mut out = Vec::new();
        self.collect_leaves("", 0, &mut out);
        out
    }

    fn collect_leaves(&self, prefix: &str, offset: u32, out: &mut Vec<(String, Field)>) {
        for f in self.fields {
            let path = format!("{prefix}{}", f.name);
            match f.kind {
                Kind::Struct(inner) => {
                    inner.collect_leaves(&format!("{path}."), offset + f.start, out)
                }
                _ => out.push((path, f.at(offset))),
            }
        }
    }

    /// A descriptor with every field at its default value.
    pub fn defaults(&self) -> Vec<u32> {
        let mut words = vec![0u32; self.words as usize];
        self.write_defaults(&mut words, 0);
        words
    }

    /// Write this layout's defaults into `words` at bit `offset`.
    pub fn write_defaults(&self, words: &mut [u32], offset: u32) {
        for f in self.fields {
            match f.kind {
                Kind::Struct(inner) => inner.write_defaults(words, offset + f.start),
                _ if f.default != 0 => {
                    // Defaults are chosen to fit; a table typo shows up in tests.
                    let _ = f.at(offset).set(words, f.default);
                }
                _ => {}
            }
        }
    }

    /// Words whose bits are not covered by any field (nested structs count
    /// by their own fields, as genxml's unpack check does).
    pub fn reserved_mask(&self) -> Vec<u32> {
        let mut covered = vec![0u32; self.words as usize];
        self.cover(&mut covered, 0);
        covered.iter().map(|c| !c).collect()
    }

    fn cover(&self, covered: &mut [u32], offset: u32) {
        for f in self.fields {
            match f.kind {
                Kind::Struct(inner) => inner.cover(covered, offset + f.start),
                _ => {
                    let mut done = 0;
                    while done < f.width {
                        let take = (f.width - done).min(64);
                        set_bits(covered, offset + f.start + done, take, u64::MAX);
                        done += take;
                    }
                }
            }
        }
    }

    /// Err if a reserved bit is set, naming the first offending word.
    pub fn check_reserved(&self, words: &[u32]) -> Result<(), ReservedBitsError> {
        match self.reserved_words(words).first() {
            Some(&word) => Err(ReservedBitsError {
                layout: self.name,
                word,
            }),
            None => Ok(()),
        }
    }

    /// Every word with a reserved bit set (pandecode reports each one).
    pub fn reserved_words(&self, words: &[u32]) -> Vec<u32> {
        self.reserved_mask()
            .iter()
            .enumerate()
            .filter(|&(i, mask)| words.get(i).copied().unwrap_or(0) & mask != 0)
            .map(|(i, _)| i as u32)
            .collect()
    }

    /// Logical values of every top-level field, in table order (struct
    /// fields yield their low 64 raw bits; see [`Layout::leaves`]).
    pub fn unpack(&self, words: &[u32]) -> Vec<(&'static str, u64)> {
        self.fields.iter().map(|f| (f.name, f.get(words))).collect()
    }

    /// A readable listing in the style of Mesa's pandecode: one `Name: value`
    /// line per field, indented by `indent` spaces; a nested struct prints as
    /// `Name:` with its fields two spaces deeper.
    pub fn dump(&self, words: &[u32], indent: usize) -> String {
        let mut out = String::new();
        self.dump_at(words, 0, indent, &mut out);
        out
    }

    fn dump_at(&self, words: &[u32], offset: u32, indent: usize, out: &mut String) {
        for f in self.fields {
            let f = f.at(offset);
            match f.kind {
                Kind::Struct(inner) => {
                    let _ = writeln!(out, "{:indent$}{}:", "", f.name);
                    inner.dump_at(words, f.start, indent + 2, out);
                }
                Kind::PixelFormat(table) => {
                    let _ = writeln!(out, "{:indent$}{}", "", table.describe(f.get(words)));
                }
                _ => {
                    let _ = writeln!(
                        out,
                        "{:indent$}{}: {}",
                        "",
                        f.name,
                        format_value(&f, f.get(words))
                    );
                }
            }
        }
    }
}

/// One descriptor of a job aggregate, at a byte offset from the job header.
#[derive(Debug, PartialEq, Eq)]
pub struct Section {
    pub name: &'static str,
    pub offset: usize,
    pub layout: &'static Layout,
}

impl Section {
    pub const fn new(name: &'static str, offset: usize, layout: &'static Layout) -> Section {
        Section {
            name,
            offset,
            layout,
        }
    }

    /// The section's words inside a job's words (empty if out of range).
    pub fn words<'a>(&self, job: &'a [u32]) -> &'a [u32] {
        let start = self.offset / 4;
        let end = start + self.layout.words as usize;
        job.get(start..end).unwrap_or(&[])
    }

    pub fn words_mut<'a>(&self, job: &'a mut [u32]) -> &'a mut [u32] {
        let start = self.offset / 4;
        let end = start + self.layout.words as usize;
        job.get_mut(start..end).unwrap_or(&mut [])
    }
}

/// A job layout (genxml `<aggregate>`): sections at byte offsets.
#[derive(Debug, PartialEq, Eq)]
pub struct Aggregate {
    pub name: &'static str,
    /// Total size in bytes (a multiple of 64; jobs are 64-byte aligned).
    pub bytes: usize,
    pub sections: &'static [Section],
}

impl Aggregate {
    pub fn section(&self, name: &str) -> Option<&'static Section> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// A job with every section at its defaults.
    pub fn defaults(&self) -> Vec<u32> {
        let mut job = vec![0u32; self.bytes / 4];
        for s in self.sections {
            s.layout.write_defaults(&mut job[s.offset / 4..], 0);
        }
        job
    }
}

/// Print one logical value the way pandecode does.
pub fn format_value(f: &Field, value: u64) -> String {
    match f.kind {
        Kind::Bool => (value != 0).to_string(),
        Kind::Address => format!("{value:#x}"),
        Kind::Int => (value as i64 as i32).to_string(),
        Kind::Float => format_float(f32::from_bits(value as u32)),
        Kind::Enum(values) => enum_name(values, value).to_string(),
        Kind::Uint | Kind::Padded | Kind::Hex if f.width > 32 => format!("{value:#x}"),
        Kind::Hex => format!("{value:#x}"),
        Kind::Uint | Kind::Padded => (value as u32).to_string(),
        Kind::PixelFormat(table) => table.describe(value),
        Kind::Lod { signed: false } => format!("{:.6}", value as u32 as f64 / 256.0),
        Kind::Lod { signed: true } => format!("{:.6}", value as i64 as i32 as f64 / 256.0),
        Kind::UintFloat => format!(
            "0x{:X} ({})",
            value as u32,
            format_float(f32::from_bits(value as u32))
        ),
        Kind::ComponentSwizzle => {
            let name = |i: u32| b"RGBA01??"[((value >> (3 * i)) & 7) as usize] as char;
            format!(
                "{} ({}{}{}{})",
                value as u32,
                name(0),
                name(1),
                name(2),
                name(3)
            )
        }
        Kind::Struct(_) => format!("{value:#x}"),
    }
}

/// C's `%f` for a float: six decimals, `inf`, `nan`.
pub fn format_float(v: f32) -> String {
    if v.is_nan() {
        if v.is_sign_negative() { "-nan" } else { "nan" }.to_string()
    } else if v.is_infinite() {
        if v < 0.0 { "-inf" } else { "inf" }.to_string()
    } else {
        format!("{:.6}", f64::from(v))
    }
}

/// Little-endian bytes → words (a trailing partial word is zero-extended).
pub fn words_from_bytes(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

/// Words → little-endian bytes.
pub fn bytes_from_words(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_cross_word_boundaries() {
        let mut w = [0u32; 4];
        set_bits(&mut w, 28, 40, 0xab_cdef_0123);
        assert_eq!(get_bits(&w, 28, 40), 0xab_cdef_0123);
        assert_eq!(w[0], 0x3000_0000);
        assert_eq!(w[1], 0xbcde_f012);
        assert_eq!(w[2], 0x0000_000a);
    }

    #[test]
    fn modifiers_round_trip_and_reject() {
        let minus = Field::new("m", 0, 0, 12, Kind::Uint).modifier(Modifier::Minus(1));
        assert_eq!(minus.encode(1), Ok(0));
        assert!(minus.encode(0).is_err());
        assert!(minus.encode(4097).is_err());
        let shr = Field::new("p", 0, 12, 52, Kind::Address).modifier(Modifier::Shr(4));
        let mut w = [0u32; 2];
        shr.set(&mut w, 0x1234_5670).unwrap();
        assert_eq!(shr.get(&w), 0x1234_5670);
        assert!(shr.encode(0x1234_5678).is_err());
        let log2 = Field::new("l", 0, 0, 5, Kind::Uint).modifier(Modifier::Log2);
        assert_eq!(log2.encode(1 << 31), Ok(31));
        assert_eq!(log2.decode(31), 1 << 31);
        assert!(log2.encode(3).is_err());
        let int = Field::new("i", 0, 0, 8, Kind::Int);
        assert_eq!(int.encode(-3i64 as u64), Ok(0xfd));
        assert_eq!(int.decode(0xfd) as i64, -3);
        assert!(int.encode(200).is_err());
    }

    #[test]
    fn padded_encoding() {
        for v in [1u64, 2, 3, 4, 5, 6, 8, 12, 15, 1 << 20, 3 << 20, 7 << 31] {
            let raw = encode_padded(v).unwrap();
            assert_eq!(decode_padded(raw), v);
        }
        assert_eq!(encode_padded(17), None);
        assert_eq!(encode_padded(0), None);
        assert_eq!(encode_padded(3), Some(0x20));
    }

    #[test]
    fn padded_round_up_is_the_next_encodable_value() {
        let mut encodable: Vec<u64> = (0..256).map(decode_padded).collect();
        encodable.sort_unstable();
        for n in 0..5000u64 {
            let up = padded_round_up(n).unwrap();
            assert!(encode_padded(up).is_some(), "{n} -> {up}");
            let want = *encodable.iter().find(|&&v| v >= n.max(1)).unwrap();
            assert_eq!(up, want, "{n}");
        }
        assert_eq!(padded_round_up(17), Some(18));
        assert_eq!(padded_round_up(100), Some(104));
        assert_eq!(padded_round_up(15 << 31), Some(15 << 31));
        assert_eq!(padded_round_up((15 << 31) + 1), None);
    }
}
