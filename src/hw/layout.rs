//! Bit-range tables for hardware descriptors, with pack, unpack and dump.
//!
//! A descriptor is a sequence of little-endian 32-bit words. A [`Field`] names a
//! range of bits (absolute bit `start`, `width` ≤ 64), how its raw bits relate to
//! the logical value ([`Modifier`]) and how to print it ([`Kind`]). A [`Layout`]
//! lists the fields of one descriptor; bits that no field covers are reserved
//! and must be zero, which [`Layout::check_reserved`] verifies (hardware and
//! Mesa's decoder treat them as errors).
//!
//! Nothing here allocates on the packing path: `set`/`get` work on `&mut [u32]`.

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
    /// An enumeration; unknown values print as numbers.
    Enum(&'static [(u64, &'static str)]),
    /// The 8-bit "padded" encoding: raw = shift | (odd << 5), value = (2*odd+1) << shift.
    Padded,
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

    const fn mask(&self) -> u64 {
        if self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    /// Logical value → raw bits, or an error if it does not fit.
    pub fn encode(&self, value: u64) -> Result<u64, PackError> {
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
        };
        let raw = match self.kind {
            Kind::Int => {
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
            Kind::Int if self.width < 64 => {
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
        }
    }

    /// Read the raw bits of this field from `words` (missing words read as zero).
    pub fn get_raw(&self, words: &[u32]) -> u64 {
        get_bits(words, self.start, self.width)
    }

    /// Read the logical value of this field.
    pub fn get(&self, words: &[u32]) -> u64 {
        self.decode(self.get_raw(words))
    }

    /// Write the logical value of this field.
    pub fn set(&self, words: &mut [u32], value: u64) -> Result<(), PackError> {
        let raw = self.encode(value)?;
        set_bits(words, self.start, self.width, raw);
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
pub fn set_bits(words: &mut [u32], start: u32, width: u32, value: u64) {
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

/// Reserved (unassigned) bits are set in an unpacked descriptor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid field of {layout} unpacked at word {word}")]
pub struct ReservedBitsError {
    pub layout: &'static str,
    pub word: u32,
}

/// The fields of one descriptor. Fields may overlap (alternative views of the
/// same bits, as genxml has them); only bits covered by no field are reserved.
#[derive(Debug)]
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

    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// A descriptor with every field at its default value.
    pub fn defaults(&self) -> Vec<u32> {
        let mut words = vec![0u32; self.words as usize];
        for f in self.fields {
            if f.default != 0 {
                // Defaults are chosen to fit; a table typo shows up in tests.
                let _ = f.set(&mut words, f.default);
            }
        }
        words
    }

    /// Words whose bits are not covered by any field.
    pub fn reserved_mask(&self) -> Vec<u32> {
        let mut covered = vec![0u32; self.words as usize];
        for f in self.fields {
            set_bits(&mut covered, f.start, f.width, u64::MAX);
        }
        covered.iter().map(|c| !c).collect()
    }

    /// Err if a reserved bit is set, naming the first offending word.
    pub fn check_reserved(&self, words: &[u32]) -> Result<(), ReservedBitsError> {
        for (i, mask) in self.reserved_mask().iter().enumerate() {
            if words.get(i).copied().unwrap_or(0) & mask != 0 {
                return Err(ReservedBitsError {
                    layout: self.name,
                    word: i as u32,
                });
            }
        }
        Ok(())
    }

    /// Logical values of every field, in table order.
    pub fn unpack(&self, words: &[u32]) -> Vec<(&'static str, u64)> {
        self.fields.iter().map(|f| (f.name, f.get(words))).collect()
    }

    /// A readable listing in the style of Mesa's pandecode: one `Name: value`
    /// line per field, indented by `indent` spaces.
    pub fn dump(&self, words: &[u32], indent: usize) -> String {
        let mut out = String::new();
        for f in self.fields {
            let _ = writeln!(
                out,
                "{:indent$}{}: {}",
                "",
                f.name,
                format_value(f, f.get(words))
            );
        }
        out
    }
}

/// Print one logical value the way pandecode does.
pub fn format_value(f: &Field, value: u64) -> String {
    match f.kind {
        Kind::Bool => (value != 0).to_string(),
        Kind::Address => format!("{value:#x}"),
        Kind::Int => (value as i64).to_string(),
        Kind::Float => format!("{:.6}", f32::from_bits(value as u32)),
        Kind::Enum(values) => values
            .iter()
            .find(|(v, _)| *v == value)
            .map(|(_, n)| (*n).to_string())
            .unwrap_or_else(|| format!("unknown ({value})")),
        Kind::Uint | Kind::Padded if f.width > 32 => format!("{value:#x}"),
        Kind::Uint | Kind::Padded => value.to_string(),
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
}
