//! bifrost-vk: a Vulkan driver for Arm Mali Bifrost (Job Manager) GPUs.
//!
//! This file is the module list only; docs/ARCHITECTURE.md is the map.

pub mod compiler;
pub mod hw;
pub mod icd;
pub mod jm;
pub mod kmod;
/// Test support (the simulator harness); only with the `testing` feature,
/// which tests, benches and tools get through a dev-dependency on this crate.
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod util;
pub mod vk;
