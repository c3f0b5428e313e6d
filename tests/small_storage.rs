//! VK_KHR_8bit_storage, VK_KHR_16bit_storage and
//! VK_KHR_storage_buffer_storage_class through the Khronos loader, on the
//! simulated G52 and G72.
//!
//! `shaders/vk/small_storage.comp` reads 8- and 16-bit integers and halves
//! from a storage buffer, a uniform buffer and push constants, widens them
//! and writes 32-bit words, and writes 8-bit, 16-bit and half values back.
//! It runs twice: as glslang emits it for Vulkan 1.0 (storage buffers in
//! the Uniform storage class with BufferBlock) and re-assembled with its
//! storage buffers in the StorageBuffer class. Expectations follow SPIR-V's
//! conversion rules: OpUConvert zero-extends, OpSConvert sign-extends,
//! OpFConvert half → float is exact and float → half rounds to nearest
//! even here (the Vulkan spec leaves the rounding of OpFConvert without a
//! rounding mode to the implementation; the test computes it with the
//! `half` crate's IEEE conversion). No input is a NaN.

mod common;

use ash::vk;
use common::*;
use half::f16;

const GLSLANG: &[u8] = include_bytes!("shaders/vk/small_storage.comp.spv");
const STORAGE_BUFFER_CLASS: &[u8] = include_bytes!("shaders/vk/small_storage_sb.comp.spv");
const N: usize = 64;

struct Inputs {
    u8s: Vec<u8>,
    i8s: Vec<i8>,
    u16s: Vec<u16>,
    i16s: Vec<i16>,
    halves: Vec<f16>,
    v8: Vec<[u8; 4]>,
    hv: Vec<[f16; 2]>,
}

fn inputs() -> Inputs {
    let mut x = 0x1234_5678u32;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    // Finite halves: subnormals, zeros of both signs, the largest values,
    // infinities and random finite ones (an exponent field of 31 is only
    // used with a zero mantissa).
    let mut half = || {
        let b = next() as u16;
        if b & 0x7c00 == 0x7c00 {
            f16::from_bits(b & 0xfc00)
        } else {
            f16::from_bits(b)
        }
    };
    let mut fixed = vec![
        f16::from_bits(0x0001),
        f16::from_bits(0x8000),
        f16::from_bits(0x7bff),
        f16::from_bits(0xfc00),
        f16::from_bits(0x03ff),
        f16::from_f32(1.5),
    ];
    while fixed.len() < N {
        fixed.push(half());
    }
    Inputs {
        u8s: (0..N).map(|_| next() as u8).collect(),
        i8s: (0..N).map(|_| next() as i8).collect(),
        u16s: (0..N).map(|_| next() as u16).collect(),
        i16s: (0..N).map(|_| next() as i16).collect(),
        halves: fixed,
        v8: (0..N / 4).map(|_| (next()).to_le_bytes()).collect(),
        hv: (0..N / 2)
            .map(|_| [f16::from_bits(next() as u16 & 0x7bff), f16::from_f32(-2.25)])
            .collect(),
    }
}

fn run(model: &str, spirv: &[u8]) {
    let gpu = Gpu::model_with(
        model,
        &[
            c"VK_KHR_storage_buffer_storage_class",
            c"VK_KHR_16bit_storage",
            c"VK_KHR_8bit_storage",
        ],
    );
    let d = &gpu.device;
    let ssbo = vk::DescriptorType::STORAGE_BUFFER;
    let ubo = vk::DescriptorType::UNIFORM_BUFFER;
    let program = objects::ComputeProgram::new(
        d,
        &[(0, ssbo), (1, ssbo), (2, ssbo), (3, ubo)],
        4,
        spirv,
        "small_storage.comp",
    );
    let (pipeline, layout, set_layout) = (program.pipeline, program.layout, program.set_layout);

    let inp = inputs();
    // std430 offsets from the module's decorations: u8 0, i8 64, u16 128,
    // i16 256, halves 384, u8vec4 512, f16vec2 576.
    let src = Buf::new(d, 704, vk::BufferUsageFlags::STORAGE_BUFFER);
    let bytes = src.bytes();
    for i in 0..N {
        bytes[i] = inp.u8s[i];
        bytes[64 + i] = inp.i8s[i] as u8;
        bytes[128 + 2 * i..130 + 2 * i].copy_from_slice(&inp.u16s[i].to_le_bytes());
        bytes[256 + 2 * i..258 + 2 * i].copy_from_slice(&inp.i16s[i].to_le_bytes());
        bytes[384 + 2 * i..386 + 2 * i].copy_from_slice(&inp.halves[i].to_bits().to_le_bytes());
    }
    for (j, v) in inp.v8.iter().enumerate() {
        bytes[512 + 4 * j..516 + 4 * j].copy_from_slice(v);
    }
    for (j, v) in inp.hv.iter().enumerate() {
        bytes[576 + 4 * j..578 + 4 * j].copy_from_slice(&v[0].to_bits().to_le_bytes());
        bytes[578 + 4 * j..580 + 4 * j].copy_from_slice(&v[1].to_bits().to_le_bytes());
    }
    let words = Buf::new(d, 4 * 8 * N as u64, vk::BufferUsageFlags::STORAGE_BUFFER);
    // o8 0, o16 64, halves 192; 64 canary bytes after them.
    let small = Buf::new(d, 320 + 64, vk::BufferUsageFlags::STORAGE_BUFFER);
    small.bytes().fill(0xC5);
    let uniform = Buf::new(d, 64, vk::BufferUsageFlags::UNIFORM_BUFFER);
    // std140 offsets: k16 0, k8 2.
    let (k16, k8) = (-300i16, 0xA5u8);
    uniform.bytes()[0..2].copy_from_slice(&k16.to_le_bytes());
    uniform.bytes()[2] = k8;
    // Push constants: p16 0, p8 2.
    let (p16, p8) = (0xBEEFu16, -7i8);
    let mut push = p16.to_le_bytes().to_vec();
    push.extend_from_slice(&[p8 as u8, 0]);
    let (pool, set) = objects::buffer_set(
        d,
        set_layout,
        &[
            (0, ssbo, src.buffer, 0, vk::WHOLE_SIZE),
            (1, ssbo, words.buffer, 0, vk::WHOLE_SIZE),
            (2, ssbo, small.buffer, 0, 320),
            (3, ubo, uniform.buffer, 0, vk::WHOLE_SIZE),
        ],
    );
    let cmd_pool = gpu.command_pool();
    let cb = gpu.command_buffer(cmd_pool);
    objects::record_dispatch(d, cb, (pipeline, layout, set), &push, [N as u32 / 8, 1, 1]);
    gpu.submit_and_wait(&[cb]);

    for i in 0..N {
        let want = [
            u32::from(inp.u8s[i]),
            i32::from(inp.i8s[i]) as u32,
            u32::from(inp.u16s[i]),
            i32::from(inp.i16s[i]) as u32,
            inp.halves[i].to_f32().to_bits(),
            u32::from(inp.v8[i / 4][1]).wrapping_add((i32::from(k16) as u32) << 8),
            inp.hv[i / 2][1].to_f32().to_bits() ^ u32::from(k8),
            u32::from(p16).wrapping_add(i32::from(p8) as u32),
        ];
        let got: [u32; 8] = std::array::from_fn(|k| words.u32_at(4 * (8 * i + k)));
        assert_eq!(got, want, "{model} invocation {i}");
        let b = small.bytes();
        assert_eq!(b[i], inp.u8s[N - 1 - i], "{model} o8[{i}]");
        let o16 = u16::from_le_bytes([b[64 + 2 * i], b[65 + 2 * i]]);
        assert_eq!(o16, inp.u16s[i] ^ 0x5a5a, "{model} o16[{i}]");
        let oh = u16::from_le_bytes([b[192 + 2 * i], b[193 + 2 * i]]);
        let doubled = f16::from_f32(inp.halves[i].to_f32() * 2.0);
        assert_eq!(
            oh,
            doubled.to_bits(),
            "{model} oh[{i}] from {:?}",
            inp.halves[i]
        );
    }
    assert!(
        small.bytes()[320..].iter().all(|&x| x == 0xC5),
        "{model}: writes past the bound range"
    );

    // SAFETY: the GPU is idle.
    unsafe {
        d.destroy_command_pool(cmd_pool, None);
        d.destroy_descriptor_pool(pool, None);
    }
    program.destroy(d);
    for b in [&src, &words, &small, &uniform] {
        b.destroy(d);
    }
}

#[test]
fn small_storage_on_g52() {
    run("g52", GLSLANG);
    run("g52", STORAGE_BUFFER_CLASS);
}

#[test]
fn small_storage_on_g72() {
    run("g72", GLSLANG);
    run("g72", STORAGE_BUFFER_CLASS);
}

#[test]
fn small_storage_features_are_reported_and_io16_refused() {
    let gpu = Gpu::model_with(
        "g52",
        &[
            c"VK_KHR_storage_buffer_storage_class",
            c"VK_KHR_16bit_storage",
        ],
    );
    let mut f16s = vk::PhysicalDevice16BitStorageFeatures::default();
    let mut f8s = vk::PhysicalDevice8BitStorageFeatures::default();
    let mut features = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut f16s)
        .push_next(&mut f8s);
    // SAFETY: valid handles and chain.
    unsafe {
        gpu.instance
            .get_physical_device_features2(gpu.physical_device, &mut features)
    };
    assert_eq!(
        [
            f16s.storage_buffer16_bit_access,
            f16s.uniform_and_storage_buffer16_bit_access,
            f16s.storage_push_constant16,
            f16s.storage_input_output16,
        ],
        [vk::TRUE, vk::TRUE, vk::TRUE, vk::FALSE]
    );
    assert_eq!(
        [
            f8s.storage_buffer8_bit_access,
            f8s.uniform_and_storage_buffer8_bit_access,
            f8s.storage_push_constant8,
        ],
        [vk::TRUE; 3]
    );
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let names = [
        c"VK_KHR_storage_buffer_storage_class".as_ptr(),
        c"VK_KHR_16bit_storage".as_ptr(),
    ];
    let mut io = vk::PhysicalDevice16BitStorageFeatures::default().storage_input_output16(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&names)
        .push_next(&mut io);
    assert_eq!(
        create_device(&gpu.instance, gpu.physical_device, &info).err(),
        Some(vk::Result::ERROR_FEATURE_NOT_PRESENT)
    );
}
