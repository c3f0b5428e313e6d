//! Test support: what tests, benches and tools need from inside the crate,
//! and the driver never does. Compiled only with the `testing` feature (which
//! the crate's dev-dependency on itself enables for every test and bench
//! build) or in unit tests; `cargo build --lib` leaves it out of the cdylib.
//!
//! - [`sim_gpu`]: [`SimGpu`], a harness that runs shader binaries and job
//!   chains on the simulated GPU through the `KernelDevice` trait.
//! - [`raster`]: a reference rasterizer written from the Vulkan spec's
//!   rasterization chapter (coverage, fill rule, sample locations,
//!   interpolation, lines, points) with the depth test and blending, the
//!   oracle for the simulator's tiler and fragment jobs; independent of the
//!   simulator.
//! - [`sampler`]: a reference texture sampler written from the Vulkan
//!   spec's image operations (wrapping, nearest/linear filtering, borders,
//!   texel fetch), the oracle for the simulated texture unit and what
//!   `ir::interp` samples with.
//! - [`png`]: a PNG writer (stored deflate, CRC-32, Adler-32) for frames a
//!   person can look at.
//! - [`fuzz`]: the whole compiler as one fuzz target, and a deterministic
//!   SPIR-V mutator (`bifrost-fuzz`, `fuzz/`).
//!
//! - [`reference_path!`](crate::reference_path): where the reference
//!   vectors are (the one place that says so).
//!
//! The compiler's test oracles stay beside the code they check, behind the
//! same feature: `compiler::xfb_reference`, `compiler::ir::interp`,
//! `compiler::ir::random`.
//!
//! Nothing in the driver may use this module.

pub mod fuzz;
pub mod png;
pub mod raster;
pub mod sampler;
pub mod sim_gpu;

pub use sim_gpu::{Buffer, Run, RunError, SimGpu, binary_from_code};

/// The path of `rel` in the reference vectors (Mesa's G52 binaries,
/// disassembly and job chains, genxml, the Bifrost ISA description), as a
/// `&'static str`, under the folder the build variable
/// `BIFROST_VK_REFERENCE` names (set in `.cargo/config.toml`, see
/// docs/DESIGN.md "The reference vectors"). Tests that read them say
/// "skipped" and return when the file is absent.
#[macro_export]
macro_rules! reference_path {
    ($rel:literal) => {
        concat!(env!("BIFROST_VK_REFERENCE"), "/", $rel)
    };
}
