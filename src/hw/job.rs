//! The job header every job-manager job starts with, the job types, and the
//! WRITE_VALUE payload (identical on v6 and v7; genxml "Job Header",
//! "Write Value Job Payload").
//!
//! Also the job aggregates (genxml `<aggregate>`): which descriptor sits at
//! which byte offset of a Compute/Vertex, Tiler, Indexed Vertex, Write Value,
//! Cache Flush and Fragment job.
//!
//! A job is a 64-byte-aligned header followed by its payload in the same
//! allocation. The GPU writes `Exception Status`, `First Incomplete Task` and
//! `Fault Pointer` back into the header when the job completes.

use super::compute::{COMPUTE_JOB_PARAMETERS, INVOCATION};
use super::draw::{DRAW, PRIMITIVE, PRIMITIVE_SIZE};
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
    name: "Write Value Job Payload",
    words: 6,
    fields: &[
        write_value::ADDRESS,
        write_value::TYPE,
        write_value::IMMEDIATE_VALUE,
    ],
};

pub mod cache_flush {
    use super::*;
    pub const CLEAN_SHADER_CORE_LS: Field = Field::new("Clean Shader Core LS", 0, 0, 1, Kind::Bool);
    pub const INVALIDATE_SHADER_CORE_LS: Field =
        Field::new("Invalidate Shader Core LS", 0, 1, 1, Kind::Bool);
    pub const INVALIDATE_SHADER_CORE_OTHER: Field =
        Field::new("Invalidate Shader Core Other", 0, 2, 1, Kind::Bool);
    pub const JOB_MANAGER_CLEAN: Field = Field::new("Job Manager Clean", 0, 16, 1, Kind::Bool);
    pub const JOB_MANAGER_INVALIDATE: Field =
        Field::new("Job Manager Invalidate", 0, 17, 1, Kind::Bool);
    pub const TILER_CLEAN: Field = Field::new("Tiler Clean", 0, 24, 1, Kind::Bool);
    pub const TILER_INVALIDATE: Field = Field::new("Tiler Invalidate", 0, 25, 1, Kind::Bool);
    pub const L2_CLEAN: Field = Field::new("L2 Clean", 1, 0, 1, Kind::Bool);
    pub const L2_INVALIDATE: Field = Field::new("L2 Invalidate", 1, 1, 1, Kind::Bool);
}

/// "Cache Flush Job Payload": 8 bytes after the job header.
pub static CACHE_FLUSH_PAYLOAD: Layout = Layout {
    name: "Cache Flush Job Payload",
    words: 2,
    fields: &[
        cache_flush::CLEAN_SHADER_CORE_LS,
        cache_flush::INVALIDATE_SHADER_CORE_LS,
        cache_flush::INVALIDATE_SHADER_CORE_OTHER,
        cache_flush::JOB_MANAGER_CLEAN,
        cache_flush::JOB_MANAGER_INVALIDATE,
        cache_flush::TILER_CLEAN,
        cache_flush::TILER_INVALIDATE,
        cache_flush::L2_CLEAN,
        cache_flush::L2_INVALIDATE,
    ],
};

pub mod fragment {
    use super::*;
    pub const BOUND_MIN_X: Field = Field::new("Bound Min X", 0, 0, 12, Kind::Uint);
    pub const BOUND_MIN_Y: Field = Field::new("Bound Min Y", 0, 16, 12, Kind::Uint);
    pub const BOUND_MAX_X: Field = Field::new("Bound Max X", 1, 0, 12, Kind::Uint);
    pub const BOUND_MAX_Y: Field = Field::new("Bound Max Y", 1, 16, 12, Kind::Uint);
    pub const HAS_TILE_ENABLE_MAP: Field = Field::new("Has Tile Enable Map", 1, 31, 1, Kind::Bool);
    pub const FRAMEBUFFER: Field = Field::new("Framebuffer", 2, 0, 64, Kind::Address);
    pub const TILE_ENABLE_MAP: Field = Field::new("Tile Enable Map", 4, 0, 64, Kind::Address);
    pub const TILE_ENABLE_MAP_ROW_STRIDE: Field =
        Field::new("Tile Enable Map Row Stride", 6, 0, 8, Kind::Uint);
}

/// "Fragment Job Payload": 32 bytes after the job header.
pub static FRAGMENT_PAYLOAD: Layout = Layout {
    name: "Fragment Job Payload",
    words: 8,
    fields: &[
        fragment::BOUND_MIN_X,
        fragment::BOUND_MIN_Y,
        fragment::BOUND_MAX_X,
        fragment::BOUND_MAX_Y,
        fragment::HAS_TILE_ENABLE_MAP,
        fragment::FRAMEBUFFER,
        fragment::TILE_ENABLE_MAP,
        fragment::TILE_ENABLE_MAP_ROW_STRIDE,
    ],
};

pub mod tiler_pointer {
    use super::*;
    pub const ADDRESS: Field = Field::new("Address", 0, 0, 64, Kind::Address);
}

/// "Tiler Pointer": the tiler context address of tiler and IDVS jobs.
pub static TILER_POINTER: Layout = Layout {
    name: "Tiler Pointer",
    words: 2,
    fields: &[tiler_pointer::ADDRESS],
};

/// "Tiler Job Padding": 48 reserved (must-be-zero) bytes.
pub static TILER_JOB_PADDING: Layout = Layout {
    name: "Tiler Job Padding",
    words: 12,
    fields: &[],
};

/// One descriptor of a job aggregate, at a byte offset from the job header.
#[derive(Debug, PartialEq, Eq)]
pub struct Section {
    pub name: &'static str,
    pub offset: usize,
    pub layout: &'static Layout,
}

impl Section {
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

const fn section(name: &'static str, offset: usize, layout: &'static Layout) -> Section {
    Section {
        name,
        offset,
        layout,
    }
}

/// "Compute Job" (also Vertex and Geometry jobs): header @0, Invocation @32,
/// Parameters @40, Draw @64; 192 bytes.
pub static COMPUTE_JOB: Aggregate = Aggregate {
    name: "Compute Job",
    bytes: 192,
    sections: &[
        section("Header", 0, &JOB_HEADER),
        section("Invocation", 32, &INVOCATION),
        section("Parameters", 40, &COMPUTE_JOB_PARAMETERS),
        section("Draw", 64, &DRAW),
    ],
};

/// "Tiler Job": 256 bytes.
pub static TILER_JOB: Aggregate = Aggregate {
    name: "Tiler Job",
    bytes: 256,
    sections: &[
        section("Header", 0, &JOB_HEADER),
        section("Invocation", 32, &INVOCATION),
        section("Primitive", 40, &PRIMITIVE),
        section("Primitive Size", 64, &PRIMITIVE_SIZE),
        section("Tiler", 72, &TILER_POINTER),
        section("Padding", 80, &TILER_JOB_PADDING),
        section("Draw", 128, &DRAW),
    ],
};

/// "Indexed Vertex Job" (IDVS): 384 bytes.
pub static INDEXED_VERTEX_JOB: Aggregate = Aggregate {
    name: "Indexed Vertex Job",
    bytes: 384,
    sections: &[
        section("Header", 0, &JOB_HEADER),
        section("Invocation", 32, &INVOCATION),
        section("Primitive", 40, &PRIMITIVE),
        section("Primitive Size", 64, &PRIMITIVE_SIZE),
        section("Tiler", 72, &TILER_POINTER),
        section("Padding", 80, &TILER_JOB_PADDING),
        section("Fragment Draw", 128, &DRAW),
        section("Vertex Draw", 256, &DRAW),
    ],
};

/// "Write Value Job": header + payload; 64 bytes.
pub static WRITE_VALUE_JOB: Aggregate = Aggregate {
    name: "Write Value Job",
    bytes: 64,
    sections: &[
        section("Header", 0, &JOB_HEADER),
        section("Payload", 32, &WRITE_VALUE_PAYLOAD),
    ],
};

/// "Cache Flush Job": header + payload; 64 bytes.
pub static CACHE_FLUSH_JOB: Aggregate = Aggregate {
    name: "Cache Flush Job",
    bytes: 64,
    sections: &[
        section("Header", 0, &JOB_HEADER),
        section("Payload", 32, &CACHE_FLUSH_PAYLOAD),
    ],
};

/// "Fragment Job": header + payload; 64 bytes.
pub static FRAGMENT_JOB: Aggregate = Aggregate {
    name: "Fragment Job",
    bytes: 64,
    sections: &[
        section("Header", 0, &JOB_HEADER),
        section("Payload", 32, &FRAGMENT_PAYLOAD),
    ],
};

impl JobType {
    /// The layout of a job of this type, if it has a payload.
    pub fn aggregate(self) -> Option<&'static Aggregate> {
        match self {
            JobType::Compute | JobType::Vertex | JobType::Geometry => Some(&COMPUTE_JOB),
            JobType::Tiler => Some(&TILER_JOB),
            JobType::IndexedVertex => Some(&INDEXED_VERTEX_JOB),
            JobType::WriteValue => Some(&WRITE_VALUE_JOB),
            JobType::CacheFlush => Some(&CACHE_FLUSH_JOB),
            JobType::Fragment => Some(&FRAGMENT_JOB),
            JobType::NotStarted | JobType::Null | JobType::Fused => None,
        }
    }
}

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

    #[test]
    fn aggregates_fit_and_do_not_overlap() {
        for agg in [
            &COMPUTE_JOB,
            &TILER_JOB,
            &INDEXED_VERTEX_JOB,
            &WRITE_VALUE_JOB,
            &CACHE_FLUSH_JOB,
            &FRAGMENT_JOB,
        ] {
            assert_eq!(agg.bytes % 64, 0, "{}", agg.name);
            let mut end = 0;
            for s in agg.sections {
                assert!(s.offset >= end, "{}: {} overlaps", agg.name, s.name);
                end = s.offset + s.layout.bytes();
                assert!(end <= agg.bytes, "{}: {} too long", agg.name, s.name);
            }
            let job = agg.defaults();
            assert_eq!(header::IS_64B.get(&job), 1);
        }
        let job = COMPUTE_JOB.defaults();
        let draw = COMPUTE_JOB.section("Draw").unwrap();
        assert_eq!(draw.offset, 64);
        assert_eq!(crate::hw::draw::dcd::INSTANCE_SIZE.get(draw.words(&job)), 1);
        assert_eq!(JobType::Vertex.aggregate(), Some(&COMPUTE_JOB));
    }
}
