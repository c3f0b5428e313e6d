//! libFuzzer target: arbitrary bytes into the SPIR-V front end, for both
//! stages and with and without specialization data. The front end must return
//! `Ok` or `Err` and never panic, hang or allocate without bound; any panic is
//! a bug (libFuzzer reports it as a crash).
#![no_main]

use std::collections::HashMap;

use bifrost_vk::compiler::ir::Stage;
use bifrost_vk::compiler::spirv;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let no_spec = HashMap::new();
    let mut spec = HashMap::new();
    for id in 0..4u32 {
        spec.insert(id, 7u32.to_le_bytes().to_vec());
    }
    for stage in [Stage::Vertex, Stage::Compute] {
        for s in [&no_spec, &spec] {
            if let Ok(shader) = spirv::parse(data, "main", stage, s) {
                let _ = shader.to_string();
            }
        }
    }
});
