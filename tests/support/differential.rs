//! Shared by the differential compute tests (`backend_sim.rs`,
//! `spill_sim.rs`): compile an IR program with the Bifrost backend, run it
//! as COMPUTE jobs on the simulated G52 and G72 and in `ir::interp`, and
//! require the same bytes in the output buffer. Never a place for
//! tolerances: a difference of one bit fails.

use bifrost_vk::compiler::bifrost::binary::ShaderBinary;
use bifrost_vk::compiler::bifrost::{Options, compile, disasm};
use bifrost_vk::compiler::ir::Shader;
use bifrost_vk::compiler::ir::interp::{DrawState, Memory, run_workgroup};
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::SimGpu;

/// Runs `text` on both simulated models and the interpreter over `groups`
/// workgroups. FAU words: `words(out_va)`; one output buffer pre-filled
/// with `init`. Panics at the first model whose bytes differ; returns the
/// binary and the bytes of the last model (G72).
pub fn differential_run(
    text: &str,
    words: impl Fn(u64) -> Vec<u64>,
    init: &[u8],
    groups: [u32; 3],
) -> (ShaderBinary, Vec<u8>) {
    let shader = Shader::parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let binary = compile(&shader, Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let disassembly = || disasm::disassemble(&binary.code).unwrap();
    let mut last = Vec::new();
    for model in [SimModel::G52, SimModel::G72] {
        let mut gpu = SimGpu::new(model);
        let buf = gpu.alloc(init.len() as u64);
        gpu.write(buf.va, init);
        let uniforms = words(buf.va);
        gpu.run_compute(&binary, &uniforms, shader.info.local_size, groups)
            .unwrap_or_else(|e| panic!("{model:?}: {e}\n{}", disassembly()));
        let got = gpu.read(buf.va, init.len());

        let mut mem = Memory::new();
        mem.map(buf.va, init.to_vec()).unwrap();
        let state = DrawState {
            push_uniforms: uniforms.iter().flat_map(|w| w.to_le_bytes()).collect(),
            ..DrawState::default()
        };
        for z in 0..groups[2] {
            for y in 0..groups[1] {
                for x in 0..groups[0] {
                    run_workgroup(&shader, &state, &mut mem, [x, y, z]).unwrap();
                }
            }
        }
        let want = mem.range(buf.va).unwrap();
        let diffs: Vec<String> = got
            .chunks(4)
            .zip(want.chunks(4))
            .enumerate()
            .filter(|(_, (g, w))| g != w)
            .take(8)
            .map(|(i, (g, w))| {
                format!(
                    "byte {:#x}: simulator {g:02x?}, interpreter {w:02x?}",
                    4 * i
                )
            })
            .collect();
        assert!(
            diffs.is_empty(),
            "{model:?}: simulator differs from the interpreter:\n{}\n{}",
            diffs.join("\n"),
            disassembly()
        );
        last = got;
    }
    (binary, last)
}
