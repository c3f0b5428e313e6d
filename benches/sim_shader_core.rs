//! Throughput of the simulated shader core: Mesa's `cs_loop` compute shader
//! (a 40-iteration loop with a load per iteration) over 2048 invocations,
//! submitted as a COMPUTE job through the `SimGpu` harness. divan reports
//! executed (non-NOP, per-thread) instructions per second as "items/s".
//!
//! `cargo bench --bench sim_shader_core`

use bifrost_vk::kmod::sim::SimModel;
use bifrost_vk::testing::{SimGpu, binary_from_code};
use divan::counter::ItemsCount;

fn main() {
    divan::main();
}

fn setup(
    model: SimModel,
) -> Option<(
    SimGpu,
    bifrost_vk::compiler::bifrost::binary::ShaderBinary,
    Vec<u64>,
)> {
    let code = std::fs::read(bifrost_vk::reference_path!("mesa-g52/shaders/cs_loop.bin")).ok()?;
    let mut gpu = SimGpu::new(model);
    let x = gpu.alloc(4096);
    let y = gpu.alloc(8192);
    let n = gpu.alloc(8192);
    let xs: Vec<f32> = (0..1024).map(|i| (i % 7) as f32 * 0.25).collect();
    gpu.write_f32s(x.va, &xs);
    let set = gpu.alloc(4096);
    for (i, b) in [x, y, n].iter().enumerate() {
        gpu.write(set.va + 32 * i as u64, &b.va.to_le_bytes());
        gpu.write(set.va + 32 * i as u64 + 8, &(b.size as u32).to_le_bytes());
    }
    let push = u64::from(0.5f32.to_bits()) | (40u64 << 32);
    let uniforms = vec![0, 64 << 32, set.va, push];
    let binary = binary_from_code(&code, uniforms.len() as u32);
    Some((gpu, binary, uniforms))
}

#[divan::bench(args = [SimModel::G52, SimModel::G72])]
fn cs_loop_2048_threads(bencher: divan::Bencher, model: SimModel) {
    let Some((mut gpu, binary, uniforms)) = setup(model) else {
        eprintln!("skipped: reference data missing");
        return;
    };
    let run = gpu
        .run_compute(&binary, &uniforms, [32, 1, 1], [64, 1, 1])
        .expect("cs_loop runs");
    eprintln!("{model:?}: {:?}", run.counters);
    bencher
        .counter(ItemsCount::new(run.counters.instructions))
        .bench_local(|| {
            gpu.run_compute(&binary, &uniforms, [32, 1, 1], [64, 1, 1])
                .expect("cs_loop runs")
        });
}
