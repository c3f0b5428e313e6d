//! Job-manager command emission: job chains written into GPU memory at
//! record time, and the per-command-buffer GPU memory pool they live in.
//!
//! Headers and payloads are packed with the tables of `crate::hw`; this
//! module never submits anything (that is `vk::queue` through `kmod`).

pub mod attributes;
pub mod blend;
pub mod chain;
pub mod compute;
pub mod error;
pub mod framebuffer;
pub mod graphics;
pub mod image;
pub mod patch;
pub mod pool;
pub mod preload;
pub mod recorder;
pub mod shader;
pub mod templates;
pub mod texture;
pub mod tls;
pub mod varying;
pub mod vertex_input;
pub mod xfb;

pub use chain::JobChain;
pub use compute::{AttributeTables, ComputeJob, VertexJob, add_compute_job, add_vertex_job};
pub use error::{JmError, JmResult};
pub use pool::{GpuAlloc, GpuPool};
pub use recorder::Recorder;
pub use shader::ShaderCode;
pub use varying::{VaryingLayout, varying_elements, write_varying_tables};
pub use vertex_input::{Indexing, NpotMagic, pack_attribute_buffer};
pub use xfb::{XfbJob, add_xfb_job};
