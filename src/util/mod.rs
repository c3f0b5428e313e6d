//! Small shared helpers.
