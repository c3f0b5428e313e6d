//! The word reader: header check, endianness, and instruction framing.
//!
//! It only splits the module into instructions and offers checked operand
//! accessors; it knows no semantics. It must never index past an
//! instruction's words: every accessor returns an error instead.

use super::error::{Result, SpirvError};

pub const MAGIC: u32 = 0x0723_0203;

/// Largest id bound accepted (a guard against absurd allocations).
pub const MAX_ID_BOUND: u32 = 1 << 22;

/// The module header's fields.
#[derive(Clone, Copy, Debug)]
pub struct Header {
    pub bound: u32,
}

/// Convert a byte buffer to words, honouring the magic number's byte order.
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) {
        return Err(SpirvError::BadModule(format!(
            "byte length {} is not a multiple of 4",
            bytes.len()
        )));
    }
    if bytes.len() < 4 {
        return Err(SpirvError::BadModule("shorter than the header".into()));
    }
    let big = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) == MAGIC;
    // One loop per byte order (not a test per word), into a vector of the
    // right size.
    let (chunks, _) = bytes.as_chunks::<4>();
    let mut words = Vec::with_capacity(chunks.len());
    if big {
        words.extend(chunks.iter().map(|&c| u32::from_be_bytes(c)));
    } else {
        words.extend(chunks.iter().map(|&c| u32::from_le_bytes(c)));
    }
    Ok(words)
}

pub fn parse_header(words: &[u32]) -> Result<Header> {
    if words.len() < 5 {
        return Err(SpirvError::BadModule(
            "shorter than the 5-word header".into(),
        ));
    }
    if words[0] != MAGIC {
        return Err(SpirvError::BadModule(format!(
            "magic number {:#010x} is not {MAGIC:#010x}",
            words[0]
        )));
    }
    let major = (words[1] >> 16) as u8;
    let minor = (words[1] >> 8) as u8;
    if major != 1 || minor > 6 {
        return Err(SpirvError::BadModule(format!(
            "SPIR-V version {major}.{minor} is not 1.0 to 1.6"
        )));
    }
    let bound = words[3];
    // Every id needs a defining instruction of at least two words, so a bound
    // far beyond the module's size is corrupt (and would cost memory).
    let cap = MAX_ID_BOUND.min(
        u32::try_from(words.len())
            .unwrap_or(u32::MAX)
            .saturating_mul(2)
            .saturating_add(4096),
    );
    if bound == 0 || bound > cap {
        return Err(SpirvError::Limit {
            word: 3,
            what: format!("id bound {bound} (at most {cap} for this module)"),
        });
    }
    Ok(Header { bound })
}

/// One instruction: its opcode, operand words (without the first word) and
/// the word offset of its first word in the module.
#[derive(Clone, Copy, Debug)]
pub struct Inst<'a> {
    pub opcode: u32,
    pub op: Option<spirv::Op>,
    pub operands: &'a [u32],
    pub word: usize,
}

/// Split the words after the header into instructions.
pub fn instructions(words: &[u32]) -> Result<Vec<Inst<'_>>> {
    // Room for instructions of three words on average (what glslang's
    // modules average, or more), so the vector rarely grows.
    let mut out = Vec::with_capacity(words.len() / 3);
    let mut at = 5;
    while at < words.len() {
        let first = words[at];
        let count = (first >> 16) as usize;
        let opcode = first & 0xffff;
        if count == 0 || at + count > words.len() {
            return Err(SpirvError::Truncated { word: at });
        }
        out.push(Inst {
            opcode,
            op: spirv::Op::from_u32(opcode),
            operands: &words[at + 1..at + count],
            word: at,
        });
        at += count;
    }
    Ok(out)
}

impl<'a> Inst<'a> {
    /// Name of the opcode for messages.
    pub fn name(&self) -> String {
        match self.op {
            Some(op) => format!("Op{op:?}"),
            None => format!("opcode {}", self.opcode),
        }
    }

    pub fn invalid(&self, rule: impl Into<String>) -> SpirvError {
        SpirvError::Invalid {
            op: self.name(),
            word: self.word,
            rule: rule.into(),
        }
    }

    pub fn unsupported(&self, what: impl Into<String>) -> SpirvError {
        SpirvError::Unsupported {
            op: self.name(),
            word: self.word,
            what: what.into(),
        }
    }

    pub fn limit(&self, what: impl Into<String>) -> SpirvError {
        SpirvError::Limit {
            word: self.word,
            what: what.into(),
        }
    }

    /// Operand word `i`. Asked for several times per instruction: the
    /// check is inline, the error built out of line.
    #[inline]
    pub fn word(&self, i: usize) -> Result<u32> {
        match self.operands.get(i) {
            Some(&w) => Ok(w),
            None => Err(self.missing(i)),
        }
    }

    #[cold]
    #[inline(never)]
    fn missing(&self, i: usize) -> SpirvError {
        self.invalid(format!("missing operand {i}"))
    }

    /// Operand words from `i` on (empty if `i` is past the end).
    pub fn rest(&self, i: usize) -> &'a [u32] {
        self.operands.get(i..).unwrap_or(&[])
    }

    /// Require at least `n` operand words.
    #[inline]
    pub fn need(&self, n: usize) -> Result<()> {
        if self.operands.len() < n {
            Err(self.too_short(n))
        } else {
            Ok(())
        }
    }

    #[cold]
    #[inline(never)]
    fn too_short(&self, n: usize) -> SpirvError {
        self.invalid(format!(
            "{} operand words, at least {n} needed",
            self.operands.len()
        ))
    }

    /// A literal string starting at operand `i`; returns it and the index of the next operand.
    pub fn string(&self, i: usize) -> Result<(String, usize)> {
        let (s, next) = self.literal(i)?;
        Ok((s.decode(), next))
    }

    /// [`Inst::string`] undecoded: the words of the literal string
    /// starting at operand `i` (checked for its terminating NUL), and the
    /// index of the next operand.
    pub fn literal(&self, i: usize) -> Result<(Literal<'a>, usize)> {
        let words = self.rest(i);
        let Some(n) = words.iter().position(|w| w.to_le_bytes().contains(&0)) else {
            return Err(self.invalid("unterminated literal string"));
        };
        Ok((Literal(&words[..=n]), i + n + 1))
    }
}

/// A literal string's words, the last one holding its terminating NUL
/// (made by [`Inst::literal`]). Names (`OpName`, `OpMemberName`) are kept
/// so and decoded only when something asks for one: most are never used,
/// and a string each cost an allocation and a UTF-8 check.
#[derive(Clone, Copy, Debug)]
pub struct Literal<'a>(&'a [u32]);

impl Literal<'_> {
    /// The string: the bytes before the NUL (little-endian words, SPIR-V
    /// specification 2.2.1 "Literal"), invalid UTF-8 replaced as
    /// `String::from_utf8_lossy` does.
    pub fn decode(self) -> String {
        let Some((last, words)) = self.0.split_last() else {
            return String::new();
        };
        // Only the last word holds a NUL (`Inst::literal`): the string is
        // the words before it and that word's bytes before its NUL, copied
        // once into a vector of their size.
        let last = last.to_le_bytes();
        let tail = last.iter().position(|&b| b == 0).unwrap_or(last.len());
        let mut bytes = Vec::with_capacity(4 * words.len() + tail);
        for w in words {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        bytes.extend_from_slice(&last[..tail]);
        match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_headers_and_truncation() {
        assert!(words_from_bytes(&[1, 2, 3]).is_err());
        assert!(parse_header(&[MAGIC, 0x10000, 0, 10]).is_err());
        assert!(parse_header(&[0, 0x10000, 0, 10, 0]).is_err());
        assert!(parse_header(&[MAGIC, 0x20000, 0, 10, 0]).is_err());
        assert!(parse_header(&[MAGIC, 0x10000, 0, u32::MAX, 0]).is_err());
        let words = [MAGIC, 0x10000, 0, 10, 0, (5 << 16) | 17, 1];
        assert!(matches!(
            instructions(&words),
            Err(SpirvError::Truncated { word: 5 })
        ));
        let words = [MAGIC, 0x10000, 0, 10, 0, 0];
        assert!(instructions(&words).is_err());
    }

    #[test]
    fn reads_strings_and_big_endian() {
        let mut bytes = Vec::new();
        for w in [MAGIC, 0x10300, 0, 10, 0] {
            bytes.extend_from_slice(&w.to_be_bytes());
        }
        let words = words_from_bytes(&bytes).unwrap();
        assert_eq!(parse_header(&words).unwrap().bound, 10);
        let name = [u32::from_le_bytes(*b"main"), 0];
        let inst = Inst {
            opcode: 15,
            op: spirv::Op::from_u32(15),
            operands: &name,
            word: 5,
        };
        assert_eq!(inst.string(0).unwrap(), ("main".to_string(), 2));
        assert!(inst.word(7).is_err());
        // NUL inside a word, a string after another operand, invalid UTF-8
        // (replaced, as `from_utf8_lossy` does), no NUL at all.
        let words = [
            7,
            u32::from_le_bytes(*b"ab\0\0"),
            u32::from_le_bytes(*b"xyzw"),
            u32::from_le_bytes([b'v', 0xff, 0, b'q']),
            u32::from_le_bytes(*b"tail"),
        ];
        let inst = Inst {
            operands: &words,
            ..inst
        };
        assert_eq!(inst.string(1).unwrap(), ("ab".to_string(), 2));
        assert_eq!(inst.string(2).unwrap(), ("xyzwv\u{fffd}".to_string(), 4));
        assert!(inst.string(4).is_err());
        assert!(inst.string(9).is_err());
    }
}
