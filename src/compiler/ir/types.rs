//! Value types and typed ids.

use std::fmt;

/// An SSA value: an index into [`crate::compiler::ir::Shader::values`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

impl Value {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

/// A function-local variable (exists only before `lower_vars_to_ssa`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

impl fmt::Display for VarId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "$v{}", self.0)
    }
}

/// The type of an SSA value: NIR-style, untyped bits with a size and a
/// component count; the operation decides whether they are int or float.
/// Booleans are 1-bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ValueType {
    /// 1 (bool), 8, 16, 32 or 64.
    pub bits: u8,
    /// 1 to 4 (up to 16 for internal vectors is not allowed).
    pub comps: u8,
}

impl ValueType {
    pub const BOOL: ValueType = ValueType { bits: 1, comps: 1 };
    pub const U32: ValueType = ValueType { bits: 32, comps: 1 };
    pub const U64: ValueType = ValueType { bits: 64, comps: 1 };
    pub const F32: ValueType = ValueType { bits: 32, comps: 1 };

    pub const fn new(bits: u8, comps: u8) -> ValueType {
        ValueType { bits, comps }
    }

    pub const fn scalar(self) -> ValueType {
        ValueType {
            bits: self.bits,
            comps: 1,
        }
    }

    pub const fn with_comps(self, comps: u8) -> ValueType {
        ValueType {
            bits: self.bits,
            comps,
        }
    }

    pub const fn is_bool(self) -> bool {
        self.bits == 1
    }

    /// Bytes occupied in memory (booleans count as 32-bit).
    pub const fn byte_size(self) -> u32 {
        let bits = if self.bits == 1 { 32 } else { self.bits as u32 };
        bits / 8 * self.comps as u32
    }

    pub fn is_valid(self) -> bool {
        matches!(self.bits, 1 | 8 | 16 | 32 | 64) && (1..=4).contains(&self.comps)
    }

    /// Mask of the low `bits` bits of a component.
    pub const fn mask(self) -> u64 {
        if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }
}

/// Text form: `b1`, `i32`, `i32x4` ... (`i` = plain bits, the op gives meaning).
impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.bits == 1 {
            write!(f, "b1")?;
        } else {
            write!(f, "i{}", self.bits)?;
        }
        if self.comps > 1 {
            write!(f, "x{}", self.comps)?;
        }
        Ok(())
    }
}

impl std::str::FromStr for ValueType {
    type Err = String;
    fn from_str(s: &str) -> Result<ValueType, String> {
        let (base, comps) = match s.split_once('x') {
            Some((b, c)) => (b, c.parse::<u8>().map_err(|_| format!("bad type '{s}'"))?),
            None => (s, 1),
        };
        let bits = match base {
            "b1" => 1,
            _ => base
                .strip_prefix('i')
                .and_then(|b| b.parse::<u8>().ok())
                .ok_or_else(|| format!("bad type '{s}'"))?,
        };
        let ty = ValueType { bits, comps };
        if ty.is_valid() {
            Ok(ty)
        } else {
            Err(format!("bad type '{s}'"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_text_round_trips() {
        for ty in [
            ValueType::BOOL,
            ValueType::U32,
            ValueType::new(16, 2),
            ValueType::new(64, 4),
        ] {
            assert_eq!(ty.to_string().parse::<ValueType>(), Ok(ty));
        }
        assert!("i33".parse::<ValueType>().is_err());
        assert!("i32x5".parse::<ValueType>().is_err());
    }
}
