//! VK_KHR_shader_non_semantic_info through the Khronos loader, on the
//! simulated G52 and G72: `shaders/vk/debug_info.comp`, compiled with
//! glslang's `-gV`, carries `SPV_KHR_non_semantic_info` and a
//! `NonSemantic.Shader.DebugInfo.100` instruction set (source text, lines,
//! scopes, variables); the pipeline is created and the dispatch computes
//! `out[i] = i × 3 + in[i] + base` as if the debug instructions were not
//! there (the extension's rule: non-semantic instructions may be ignored).

mod common;

use ash::vk;
use common::*;

const SHADER: &[u8] = include_bytes!("shaders/vk/debug_info.comp.spv");
const N: u32 = 64;

fn run(model: &str) {
    let gpu = Gpu::model_with(model, &[c"VK_KHR_shader_non_semantic_info"]);
    let d = &gpu.device;
    let ssbo = vk::DescriptorType::STORAGE_BUFFER;
    let program =
        objects::ComputeProgram::new(d, &[(0, ssbo), (1, ssbo)], 4, SHADER, "debug_info.comp");
    let (pipeline, layout, set_layout) = (program.pipeline, program.layout, program.set_layout);
    let input = Buf::new(d, 4 * u64::from(N), vk::BufferUsageFlags::STORAGE_BUFFER);
    let output = Buf::new(d, 4 * u64::from(N), vk::BufferUsageFlags::STORAGE_BUFFER);
    let values: Vec<u32> = (0..N).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    input.write(0, &values);
    output.bytes().fill(0xC5);
    let (pool, set) = objects::buffer_set(
        d,
        set_layout,
        &[
            (0, ssbo, input.buffer, 0, vk::WHOLE_SIZE),
            (1, ssbo, output.buffer, 0, vk::WHOLE_SIZE),
        ],
    );
    let base = 0xFFFF_FFF0u32;
    let cmd_pool = gpu.command_pool();
    let cb = gpu.command_buffer(cmd_pool);
    objects::record_dispatch(
        d,
        cb,
        (pipeline, layout, set),
        &base.to_le_bytes(),
        [N / 8, 1, 1],
    );
    gpu.submit_and_wait(&[cb]);
    for i in 0..N {
        let want = i
            .wrapping_mul(3)
            .wrapping_add(values[i as usize])
            .wrapping_add(base);
        assert_eq!(output.u32_at(4 * i as usize), want, "{model} out[{i}]");
    }
    // SAFETY: the GPU is idle.
    unsafe {
        d.destroy_command_pool(cmd_pool, None);
        d.destroy_descriptor_pool(pool, None);
    }
    program.destroy(d);
    input.destroy(d);
    output.destroy(d);
}

#[test]
fn debug_info_is_ignored_on_g52() {
    run("g52");
}

#[test]
fn debug_info_is_ignored_on_g72() {
    run("g72");
}
