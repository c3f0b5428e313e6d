//! (placeholder: filled by the owning work item)
pub mod isa;
