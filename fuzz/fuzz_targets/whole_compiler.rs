//! libFuzzer target: arbitrary bytes through the whole compiler — SPIR-V
//! front end, front half, backend — for every stage, both robustness
//! settings, every variant and both architectures
//! (`bifrost_vk::testing::fuzz::compile_everything`). Any panic is a bug.
//! On the stable toolchain, `bifrost-fuzz` runs the same target with a
//! mutator of its own (`src/bin/bifrost-fuzz.rs`).
#![no_main]

use bifrost_vk::testing::fuzz::compile_everything;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = compile_everything(data);
});
