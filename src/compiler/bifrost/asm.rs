//! Bifrost assembler (in progress).
