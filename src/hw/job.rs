//! The job header every job-manager job starts with, the job types, and the
//! WRITE_VALUE payload (identical on v6 and v7; genxml "Job Header",
//! "Write Value Job Payload").
//!
//! Also the job aggregates (genxml `<aggregate>`): which descriptor sits at
//! which byte offset of a Compute/Vertex, Tiler, Indexed Vertex, Write Value,
//! Cache Flush and Fragment job.
//!
//! The tables are genxml's (`hw::genxml`), re-exported here under the
//! names the driver uses.
//!
//! A job is a 64-byte-aligned header followed by its payload in the same
//! allocation. The GPU writes `Exception Status`, `First Incomplete Task` and
//! `Fault Pointer` back into the header when the job completes.

pub use super::genxml::common::{
    CACHE_FLUSH_JOB, CACHE_FLUSH_JOB_PAYLOAD as CACHE_FLUSH_PAYLOAD, COMPUTE_JOB, FRAGMENT_JOB,
    FRAGMENT_JOB_PAYLOAD as FRAGMENT_PAYLOAD, JOB_HEADER, JOB_TYPE as JOB_TYPES, TILER_JOB_PADDING,
    TILER_POINTER, WRITE_VALUE_JOB, WRITE_VALUE_JOB_PAYLOAD as WRITE_VALUE_PAYLOAD,
    WRITE_VALUE_TYPE as WRITE_VALUE_TYPES, cache_flush_job_payload as cache_flush,
    fragment_job_payload as fragment, job_header as header, tiler_pointer,
};
/// The Tiler and Indexed Vertex job layouts with v7's Primitive; v6's
/// (`hw::layouts(Arch::V6)`) differ only in how `Draw Mode` is printed.
pub use super::genxml::v7::{INDEXED_VERTEX_JOB, TILER_JOB};
pub use super::layout::{Aggregate, Section};

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

/// Byte offset of a job's payload from its header.
pub const PAYLOAD_OFFSET: u64 = 32;

/// `Type` values of a Write Value Job Payload (genxml "Write Value Type").
pub mod write_value {
    pub use crate::hw::genxml::common::write_value_job_payload::*;
    pub const CYCLE_COUNTER: u64 = 1;
    pub const SYSTEM_TIMESTAMP: u64 = 2;
    pub const ZERO: u64 = 3;
    pub const IMMEDIATE_8: u64 = 4;
    pub const IMMEDIATE_16: u64 = 5;
    pub const IMMEDIATE_32: u64 = 6;
    pub const IMMEDIATE_64: u64 = 7;
}

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
