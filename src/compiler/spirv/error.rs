//! Errors of the SPIR-V front end.
//!
//! Every rejection names the opcode (or rule) and the word offset of the
//! instruction that caused it, so a driver log line is enough to find the
//! culprit with `spirv-dis --offsets`. The front end must never panic on
//! malformed input: every path that can fail returns one of these.

use thiserror::Error;

/// Why a SPIR-V module was rejected.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum SpirvError {
    /// The header or the word stream itself is unusable.
    #[error("bad SPIR-V module: {0}")]
    BadModule(String),
    /// An instruction's word count runs past the end of the module or is zero.
    #[error("truncated instruction at word {word}")]
    Truncated { word: usize },
    /// The module breaks a SPIR-V rule (wrong operand count, unknown id, type mismatch...).
    #[error("invalid {op} at word {word}: {rule}")]
    Invalid {
        op: String,
        word: usize,
        rule: String,
    },
    /// Valid SPIR-V this front end does not implement.
    #[error("unsupported {op} at word {word}: {what}")]
    Unsupported {
        op: String,
        word: usize,
        what: String,
    },
    /// The requested entry point does not exist for the requested stage.
    #[error("no entry point \"{name}\" for stage {stage}")]
    NoEntryPoint { name: String, stage: String },
    /// Specialization data does not fit the constant it specializes.
    #[error("specialization constant {spec_id}: {rule}")]
    Specialization { spec_id: u32, rule: String },
    /// A size, count or nesting depth beyond what the front end accepts.
    #[error("limit exceeded at word {word}: {what}")]
    Limit { word: usize, what: String },
}

impl SpirvError {
    /// Give an error raised by a context-free helper (layout, type lookup)
    /// the word offset of the instruction being translated.
    pub fn at(self, at: usize) -> SpirvError {
        match self {
            SpirvError::Invalid { op, word: 0, rule } => SpirvError::Invalid { op, word: at, rule },
            SpirvError::Unsupported { op, word: 0, what } => {
                SpirvError::Unsupported { op, word: at, what }
            }
            SpirvError::Limit { word: 0, what } => SpirvError::Limit { word: at, what },
            other => other,
        }
    }
}

pub type Result<T> = std::result::Result<T, SpirvError>;
