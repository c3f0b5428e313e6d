//! Compiler passes, one per file, each named for what it does.
//!
//! (Minimal on the `xfb` branch: only the I/O, sysval and XFB lowerings; the
//! merge combines this with the generic passes.)

pub mod lower_io;
pub mod lower_sysvals;
pub mod lower_xfb;

pub use lower_io::{IoLayout, lower_io};
pub use lower_sysvals::{PushUniformLayout, PushWord, SysvalBlock, lower_sysvals};
pub use lower_xfb::{ProvokingVertex, XfbDraw, XfbTopology, lower_xfb, strip_xfb};
