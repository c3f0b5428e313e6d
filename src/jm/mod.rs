//! (placeholder: filled by the owning work item)
