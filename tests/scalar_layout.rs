//! VK_EXT_scalar_block_layout through the Khronos loader, on the simulated
//! G52 and G72: `shaders/vk/scalar_layout.comp` reads a storage buffer of
//! 24-byte structures, a uniform buffer and push constants laid out by the
//! scalar rules (GL_EXT_scalar_block_layout; Vulkan spec "Offset and
//! Stride Assignment": every member aligned to its component size), and
//! writes `uvec3`s 12 bytes apart. The test lays the inputs out by those
//! rules itself and computes the results with wrapping u32 arithmetic (the
//! SPIR-V integer rules); std430/std140 would put `w`, `scale`, `a`, `c`
//! and every output but the first elsewhere.

mod common;

use ash::vk;
use common::*;

const SHADER: &[u8] = include_bytes!("shaders/vk/scalar_layout.comp.spv");
const N: usize = 16;

#[derive(Clone, Copy)]
struct Item {
    v: [u32; 3],
    f: u32,
    w: [u32; 2],
}

fn items() -> Vec<Item> {
    let mut x = 0x9E37_79B9u32;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    (0..N)
        .map(|_| Item {
            v: [next(), next(), next()],
            f: next(),
            w: [next(), next()],
        })
        .collect()
}

fn run(model: &str) {
    let gpu = Gpu::model_with(model, &[c"VK_EXT_scalar_block_layout"]);
    let d = &gpu.device;
    let ssbo = vk::DescriptorType::STORAGE_BUFFER;
    let ubo = vk::DescriptorType::UNIFORM_BUFFER;
    let program = objects::ComputeProgram::new(
        d,
        &[(0, ssbo), (1, ssbo), (2, ubo)],
        16,
        SHADER,
        "scalar_layout.comp",
    );
    let (pipeline, layout, set_layout) = (program.pipeline, program.layout, program.set_layout);

    let input = Buf::new(d, 24 * N as u64, vk::BufferUsageFlags::STORAGE_BUFFER);
    let output = Buf::new(d, 12 * N as u64 + 64, vk::BufferUsageFlags::STORAGE_BUFFER);
    let uniform = Buf::new(d, 64, vk::BufferUsageFlags::UNIFORM_BUFFER);
    let data = items();
    for (i, it) in data.iter().enumerate() {
        // Scalar offsets: v 0, f 12, w 16; stride 24.
        input.write(24 * i, &it.v);
        input.write(24 * i + 12, &[it.f]);
        input.write(24 * i + 16, &it.w);
    }
    let (b, a, c) = (7u32, [3u32, 0xFFFF_FFFF, 100], [11u32, 22, 0x8000_0000]);
    // Scalar offsets: b 0, a 4, c 16.
    uniform.write(0, &[b]);
    uniform.write(4, &a);
    uniform.write(16, &c);
    output.bytes().fill(0xC5);
    // Scalar offsets: bias 0, scale 4.
    let (bias, scale) = (0x1234u32, [2u32, 0x1_0001, 0xFFFF_FFFE]);
    let mut push = Vec::new();
    for w in [bias, scale[0], scale[1], scale[2]] {
        push.extend_from_slice(&w.to_le_bytes());
    }
    let (pool, set) = objects::buffer_set(
        d,
        set_layout,
        &[
            (0, ssbo, input.buffer, 0, vk::WHOLE_SIZE),
            (1, ssbo, output.buffer, 0, vk::WHOLE_SIZE),
            (2, ubo, uniform.buffer, 0, vk::WHOLE_SIZE),
        ],
    );
    let cmd_pool = gpu.command_pool();
    let cb = gpu.command_buffer(cmd_pool);
    objects::record_dispatch(d, cb, (pipeline, layout, set), &push, [N as u32 / 8, 1, 1]);
    gpu.submit_and_wait(&[cb]);

    for (i, it) in data.iter().enumerate() {
        let splat =
            it.f.wrapping_add(it.w[0])
                .wrapping_sub(it.w[1])
                .wrapping_add(bias);
        let want: [u32; 3] = std::array::from_fn(|k| {
            it.v[k]
                .wrapping_mul(scale[k])
                .wrapping_add(splat)
                .wrapping_add(a[k].wrapping_mul(b))
                .wrapping_add(c[k])
        });
        let got: [u32; 3] = std::array::from_fn(|k| output.u32_at(12 * i + 4 * k));
        assert_eq!(got, want, "{model} item {i}");
    }
    // Nothing past the last output.
    assert!(
        output.bytes()[12 * N..].iter().all(|&x| x == 0xC5),
        "{model}: writes past the outputs"
    );

    // SAFETY: the GPU is idle.
    unsafe {
        d.destroy_command_pool(cmd_pool, None);
        d.destroy_descriptor_pool(pool, None);
    }
    program.destroy(d);
    for buf in [&input, &output, &uniform] {
        buf.destroy(d);
    }
}

#[test]
fn scalar_layout_blocks_on_g52() {
    run("g52");
}

#[test]
fn scalar_layout_blocks_on_g72() {
    run("g72");
}

#[test]
fn scalar_block_layout_is_reported() {
    let gpu = Gpu::model_with("g52", &[c"VK_EXT_scalar_block_layout"]);
    let mut scalar = vk::PhysicalDeviceScalarBlockLayoutFeatures::default();
    let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut scalar);
    // SAFETY: valid handles and chain.
    unsafe {
        gpu.instance
            .get_physical_device_features2(gpu.physical_device, &mut features)
    };
    assert_eq!(scalar.scalar_block_layout, vk::TRUE);
}
