//! The job header every job-manager job starts with, the job types, and the
//! WRITE_VALUE payload (identical on v6 and v7; genxml "Job Header",
//! "Write Value Job Payload").
//!
//! A job is a 64-byte-aligned header followed by its payload in the same
//! allocation. The GPU writes `Exception Status`, `First Incomplete Task` and
//! `Fault Pointer` back into the header when the job completes.

use super::layout::{Field, Kind, Layout};

/// Job types (genxml enum "Job Type").
pub const JOB_TYPES: &[(u64, &str)] = &[
    (0, "Not started"),
    (1, "Null"),
    (2, "Write value"),
    (3, "Cache flush"),
    (4, "Compute"),
    (5, "Vertex"),
    (6, "Geometry"),
    (7, "Tiler"),
    (8, "Fused"),
    (9, "Fragment"),
    (10, "Indexed Vertex"),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum JobType {
    NotStarted = 0,
    Null = 1,
    WriteValue = 2,
    CacheFlush = 3,
    Compute = 4,
    Vertex = 5,
    Geometry = 6,
    Tiler = 7,
    Fused = 8,
    Fragment = 9,
    IndexedVertex = 10,
}

impl JobType {
    pub fn from_raw(raw: u64) -> Option<JobType> {
        use JobType::*;
        Some(match raw {
            0 => NotStarted,
            1 => Null,
            2 => WriteValue,
            3 => CacheFlush,
            4 => Compute,
            5 => Vertex,
            6 => Geometry,
            7 => Tiler,
            8 => Fused,
            9 => Fragment,
            10 => IndexedVertex,
            _ => return None,
        })
    }
}

pub mod header {
    use super::*;
    pub const EXCEPTION_STATUS: Field = Field::new("Exception Status", 0, 0, 32, Kind::Uint);
    pub const FIRST_INCOMPLETE_TASK: Field =
        Field::new("First Incomplete Task", 1, 0, 32, Kind::Uint);
    pub const FAULT_POINTER: Field = Field::new("Fault Pointer", 2, 0, 64, Kind::Address);
    pub const IS_64B: Field = Field::new("Is 64b", 4, 0, 1, Kind::Bool).default(1);
    pub const TYPE: Field = Field::new("Type", 4, 1, 7, Kind::Enum(JOB_TYPES));
    pub const BARRIER: Field = Field::new("Barrier", 4, 8, 1, Kind::Bool);
    pub const INVALIDATE_CACHE: Field = Field::new("Invalidate Cache", 4, 9, 1, Kind::Bool);
    pub const SUPPRESS_PREFETCH: Field = Field::new("Suppress Prefetch", 4, 11, 1, Kind::Bool);
    pub const ENABLE_TEXTURE_MAPPER: Field =
        Field::new("Enable Texture Mapper", 4, 12, 1, Kind::Bool);
    pub const RELAX_DEPENDENCY_1: Field = Field::new("Relax Dependency 1", 4, 14, 1, Kind::Bool);
    pub const RELAX_DEPENDENCY_2: Field = Field::new("Relax Dependency 2", 4, 15, 1, Kind::Bool);
    pub const INDEX: Field = Field::new("Index", 4, 16, 16, Kind::Uint);
    pub const DEPENDENCY_1: Field = Field::new("Dependency 1", 5, 0, 16, Kind::Uint);
    pub const DEPENDENCY_2: Field = Field::new("Dependency 2", 5, 16, 16, Kind::Uint);
    pub const NEXT: Field = Field::new("Next", 6, 0, 64, Kind::Address);
}

/// "Job Header": 32 bytes, 64-byte aligned.
pub static JOB_HEADER: Layout = Layout {
    name: "Job Header",
    words: 8,
    fields: &[
        header::EXCEPTION_STATUS,
        header::FIRST_INCOMPLETE_TASK,
        header::FAULT_POINTER,
        header::IS_64B,
        header::TYPE,
        header::BARRIER,
        header::INVALIDATE_CACHE,
        header::SUPPRESS_PREFETCH,
        header::ENABLE_TEXTURE_MAPPER,
        header::RELAX_DEPENDENCY_1,
        header::RELAX_DEPENDENCY_2,
        header::INDEX,
        header::DEPENDENCY_1,
        header::DEPENDENCY_2,
        header::NEXT,
    ],
};

/// Byte offset of a job's payload from its header.
pub const PAYLOAD_OFFSET: u64 = 32;

/// Write Value types (genxml enum "Write Value Type").
pub const WRITE_VALUE_TYPES: &[(u64, &str)] = &[
    (1, "Cycle Counter"),
    (2, "System Timestamp"),
    (3, "Zero"),
    (4, "Immediate 8"),
    (5, "Immediate 16"),
    (6, "Immediate 32"),
    (7, "Immediate 64"),
];

pub mod write_value {
    use super::*;
    pub const ADDRESS: Field = Field::new("Address", 0, 0, 64, Kind::Address);
    pub const TYPE: Field = Field::new("Type", 2, 0, 32, Kind::Enum(WRITE_VALUE_TYPES));
    pub const IMMEDIATE_VALUE: Field = Field::new("Immediate Value", 4, 0, 64, Kind::Uint);

    pub const CYCLE_COUNTER: u64 = 1;
    pub const SYSTEM_TIMESTAMP: u64 = 2;
    pub const ZERO: u64 = 3;
    pub const IMMEDIATE_8: u64 = 4;
    pub const IMMEDIATE_16: u64 = 5;
    pub const IMMEDIATE_32: u64 = 6;
    pub const IMMEDIATE_64: u64 = 7;
}

/// "Write Value Job Payload": 24 bytes after the job header.
pub static WRITE_VALUE_PAYLOAD: Layout = Layout {
    name: "Write Value Payload",
    words: 6,
    fields: &[
        write_value::ADDRESS,
        write_value::TYPE,
        write_value::IMMEDIATE_VALUE,
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The worked example of the PANSNAP1 README: header 1 word 4 = 0x00010003.
    #[test]
    fn header_word4_matches_reference_example() {
        let mut w = JOB_HEADER.defaults();
        header::TYPE.set(&mut w, JobType::Null as u64).unwrap();
        header::INDEX.set(&mut w, 1).unwrap();
        header::NEXT.set(&mut w, 0x10040).unwrap();
        assert_eq!(w[4], 0x0001_0003);
        assert_eq!(w[6], 0x10040);
        assert!(JOB_HEADER.check_reserved(&w).is_ok());
        w[4] |= 1 << 10; // the reserved bit of the "_bad" snapshot
        assert_eq!(
            JOB_HEADER.check_reserved(&w).unwrap_err().to_string(),
            "Invalid field of Job Header unpacked at word 4"
        );
    }

    #[test]
    fn dump_prints_like_pandecode() {
        let mut w = JOB_HEADER.defaults();
        header::TYPE
            .set(&mut w, JobType::WriteValue as u64)
            .unwrap();
        let text = JOB_HEADER.dump(&w, 2);
        assert!(text.contains("  Type: Write value\n"));
        assert!(text.contains("  Is 64b: true\n"));
        assert!(text.contains("  Next: 0x0\n"));
    }
}
