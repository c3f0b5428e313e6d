//! 64-bit integers in shaders (`shaderInt64`) through the Khronos loader,
//! on the simulated G52 and G72: `tests/shaders/int64_ops.comp` computes
//! 24 results from each of 16 operand pairs (every operation of
//! GL_ARB_gpu_shader_int64 that needs no fp64: arithmetic, signed and
//! unsigned division and remainder, shifts, bitwise ops, abs, sign,
//! min/max/clamp, conversions to and from float and 32-bit integers,
//! packing, compares and selects), and the test computes the same from
//! the SPIR-V rules with Rust's integer types: wrapping arithmetic,
//! OpSDiv truncating, OpSMod taking the divisor's sign (glslang's `%`),
//! shift counts masked by the shader, conversions to f32 rounded to
//! nearest even, from f32 truncated. Division operands avoid what SPIR-V
//! leaves undefined (a zero divisor, `i64::MIN / -1`).

mod common;
#[path = "support/xfb_device.rs"]
mod xfb_device;

use ash::vk;
use common::*;
use xfb_device::submit_and_wait;

const SHADER: &[u8] = include_bytes!("shaders/int64_ops.comp.spv");
/// Results per invocation (`N` in the shader).
const N: usize = 24;
const INVOCATIONS: usize = 16;

/// The operand pairs: corners (signs, the extremes, values wider than 32
/// bits, powers of two) and pseudo-random values.
fn pairs() -> Vec<(i64, i64)> {
    let mut v = vec![
        (7, 2),
        (-7, 2),
        (7, -2),
        (-7, -2),
        (i64::MAX, 3),
        (i64::MIN, 7),
        (i64::MIN + 1, -1),
        (1 << 40, (1 << 20) + 1),
        (-(1 << 40) - 12345, 1 << 33),
        (0x0123_4567_89AB_CDEF, -0x1234_5678),
        (0, 5),
        ((1 << 24) + 1, 65),
    ];
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    while v.len() < INVOCATIONS {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let a = x as i64;
        let b = (x.rotate_left(29) >> (x % 50)) as i64 | 1;
        v.push((a, b));
    }
    v
}

/// OpSMod: the remainder with the divisor's sign.
fn smod(a: i64, b: i64) -> i64 {
    let r = a.wrapping_rem(b);
    if r != 0 && (r < 0) != (b < 0) {
        r.wrapping_add(b)
    } else {
        r
    }
}

/// What the shader's 24 lines give for (a, b), by the SPIR-V rules.
fn expected(a: i64, b: i64) -> [u64; N] {
    let (ua, ub) = (a as u64, b as u64);
    let f_bits = |f: f32| u64::from(f.to_bits());
    [
        a.wrapping_add(b) as u64,
        a.wrapping_sub(b) as u64,
        a.wrapping_mul(b) as u64,
        a.wrapping_div(b) as u64,
        smod(a, b) as u64,
        ua / ub,
        ua % ub,
        (a << (b & 63)) as u64,
        (a >> (b & 63)) as u64,
        ua >> (ub & 63),
        (ua & ub) | (ua ^ !ub),
        a.wrapping_neg() as u64,
        a.wrapping_abs() as u64,
        a.signum() as u64,
        (a.min(b) as u64) ^ (ua.max(ub) << 1),
        a.clamp(-1000, 1000) as u64,
        f_bits(a as f32),
        f_bits(ua as f32),
        ((a as i32 as f32 * 0.5) as i64) as u64,
        // int → uint64_t sign-extends (OpSConvert, then a bitcast).
        (a as i32 as i64 as u64) | u64::from(b as u32) << 32,
        ua.rotate_left(32),
        u64::from(a < b)
            | u64::from(ua < ub) << 1
            | u64::from(a == b) << 2
            | u64::from(a >= b) << 3,
        (if a > b { b } else { a }) as u64,
        u64::from(ua as u32) * 0x1_0000_0001,
    ]
}

fn run_on(model: &str) {
    let gpu = Gpu::with_int64(model);
    let d = &gpu.device;
    let compute = vk::ShaderStageFlags::COMPUTE;
    let ssbo = vk::DescriptorType::STORAGE_BUFFER;
    let set_layout = objects::set_layout(d, &[(0, ssbo), (1, ssbo)], compute);
    let layout = objects::pipeline_layout(d, &[set_layout], 0, compute);
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER;
    let input = Buf::new(d, 16 * INVOCATIONS as u64, usage);
    let out_bytes = 8 * (N * INVOCATIONS) as u64;
    // The results, then a canary word the shader must not reach.
    let output = Buf::new(d, out_bytes + 64, usage);
    output.bytes().fill(0xC5);
    let pairs = pairs();
    let words: Vec<i64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    input.write(0, &words);
    let (pool, set) = objects::buffer_set(
        d,
        set_layout,
        &[
            (0, ssbo, input.buffer, 0, vk::WHOLE_SIZE),
            (1, ssbo, output.buffer, 0, out_bytes),
        ],
    );
    let module = objects::shader_module(d, SHADER);
    let pipeline = objects::compute_pipeline(d, module, layout, model);
    // SAFETY: valid handles throughout; the GPU is idle at the end.
    unsafe {
        let cmd_pool = gpu.command_pool();
        let cb = gpu.command_buffer(cmd_pool);
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
        d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
        d.cmd_dispatch(cb, (INVOCATIONS / 8) as u32, 1, 1);
        d.end_command_buffer(cb).unwrap();
        submit_and_wait(&gpu, &[cb]);
        d.destroy_command_pool(cmd_pool, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_descriptor_pool(pool, None);
        d.destroy_pipeline_layout(layout, None);
        d.destroy_descriptor_set_layout(set_layout, None);
        d.destroy_shader_module(module, None);
    }
    let got = output.bytes();
    let word = |i: usize| u64::from_le_bytes(got[8 * i..8 * i + 8].try_into().unwrap());
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let want = expected(a, b);
        for (k, w) in want.iter().enumerate() {
            assert_eq!(
                word(i * N + k),
                *w,
                "{model}: line {k} of ({a:#x}, {b:#x}): got {:#x}, want {w:#x}",
                word(i * N + k)
            );
        }
    }
    assert!(
        got[out_bytes as usize..].iter().all(|&b| b == 0xC5),
        "{model}: written past the bound range"
    );
    input.destroy(d);
    output.destroy(d);
}

#[test]
fn int64_arithmetic_g52() {
    run_on("g52");
}

#[test]
fn int64_arithmetic_g72() {
    run_on("g72");
}
