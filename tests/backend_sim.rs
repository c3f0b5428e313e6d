//! The Bifrost backend on the simulated shader core: IR programs compiled
//! by `compiler::bifrost`, launched as COMPUTE jobs through the job emitter,
//! compared byte for byte with the IR interpreter (differential tests).

use bifrost_vk::compiler::bifrost::{Options, compile};
use bifrost_vk::compiler::ir::Shader;
use bifrost_vk::compiler::ir::interp::{DrawState, Memory, run_workgroup};
use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::kmod::sim::testing::SimGpu;

/// Runs `text` on the simulator and the interpreter over `groups`
/// workgroups. FAU words: `words(out_va)`; one output buffer of `size`
/// bytes, pre-filled with `init`. Returns the simulator's bytes.
fn differential(
    text: &str,
    words: impl Fn(u64) -> Vec<u64>,
    init: &[u8],
    groups: [u32; 3],
) -> Vec<u8> {
    let shader = Shader::parse(text).unwrap_or_else(|e| panic!("{e:?}"));
    let mut last = Vec::new();
    for model in [SimModel::G52, SimModel::G72] {
        let binary = compile(&shader, Options::default()).unwrap_or_else(|e| panic!("{e}"));
        let mut gpu = SimGpu::new(model);
        let buf = gpu.alloc(init.len() as u64);
        gpu.write(buf.va, init);
        let uniforms = words(buf.va);
        gpu.run_compute(&binary, &uniforms, shader.info.local_size, groups)
            .unwrap_or_else(|e| {
                panic!(
                    "{model:?}: {e}\n{}",
                    bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code).unwrap()
                )
            });
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
        let want = mem.range(buf.va).unwrap().to_vec();
        assert_eq!(
            got,
            want,
            "{model:?}: simulator differs from the interpreter\n{}",
            bifrost_vk::compiler::bifrost::disasm::disassemble(&binary.code).unwrap()
        );
        last = got;
    }
    last
}

const ARITH: &str = r#"shader compute "arith" {
  info local_size 8 1 1 shared 0 push 0
  values 32
  %0:i32x3 = load_sysval sysval=global_invocation_id
  %1:i32 = swizzle %0.x
  %2:i32 = const 0x3
  %3:i32 = imul %1, %2
  %4:i32 = iadd %3, %1
  %5:i32 = load_uniform offset=0
  %6:i32 = isub %4, %5
  %7:i32 = ishl %6, %2
  %8:i32 = ushr %7, %5
  %9:i32 = ixor %8, %1
  %10:i32 = i2f %9
  %11:i32 = const 0x3f000000
  %12:i32 = fmul %10, %11
  %13:i32 = fadd %12, %10
  %14:b1 = flt %13, %11
  %15:i32 = bcsel %14, %13, %9
  %16:i64 = load_uniform offset=8
  %17:i32 = const 0x4
  %18:i32 = imul %1, %17
  %19:i64 = u2u %18
  %20:i64 = iadd %16, %19
  store_global %15, %20
}"#;

#[test]
fn arith_matches_interpreter() {
    let out = differential(ARITH, |va| vec![5, va], &[0xaa; 64], [2, 1, 1]);
    assert_ne!(out, vec![0xaa; 64]);
}
