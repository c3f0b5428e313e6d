//! bifrost-vk: a Vulkan driver for Arm Mali Bifrost (Job Manager) GPUs.
//!
//! This file is the module list only; docs/ARCHITECTURE.md is the map.

pub mod compiler;
pub mod hw;
pub mod icd;
pub mod jm;
pub mod kmod;
pub mod util;
pub mod vk;
