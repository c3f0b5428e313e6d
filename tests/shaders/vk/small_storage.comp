#version 450
// Loader-level test of VK_KHR_8bit_storage and VK_KHR_16bit_storage
// (tests/small_storage.rs): 8- and 16-bit integers and halves read from
// storage, uniform and push-constant blocks, widened, and written back
// narrow. `small_storage_sb.comp.spv` is the same module with its storage
// buffers in the StorageBuffer storage class (VK_KHR_storage_buffer_storage_class;
// glslang targets Vulkan 1.1 for it and regen.sh re-assembles it as SPIR-V 1.0).
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) readonly buffer In {
    uint8_t u8[64];
    int8_t i8[64];
    uint16_t u16[64];
    int16_t i16[64];
    float16_t h[64];
    u8vec4 v8[16];
    f16vec2 hv[32];
} src;
layout(std430, set = 0, binding = 1) buffer Out {
    uint words[];
} dst;
layout(std430, set = 0, binding = 2) writeonly buffer Small {
    uint8_t o8[64];
    uint16_t o16[64];
    float16_t oh[64];
} small;
layout(std140, set = 0, binding = 3) uniform U { int16_t k16; uint8_t k8; } u;
layout(push_constant) uniform PC { uint16_t p16; int8_t p8; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint base = i * 8u;
    dst.words[base + 0u] = uint(src.u8[i]);
    dst.words[base + 1u] = uint(int(src.i8[i]));
    dst.words[base + 2u] = uint(src.u16[i]);
    dst.words[base + 3u] = uint(int(src.i16[i]));
    dst.words[base + 4u] = floatBitsToUint(float(src.h[i]));
    dst.words[base + 5u] = uint(src.v8[i / 4u].y) + (uint(int(u.k16)) << 8);
    dst.words[base + 6u] = floatBitsToUint(float(src.hv[i / 2u].y)) ^ uint(u.k8);
    dst.words[base + 7u] = uint(pc.p16) + uint(int(pc.p8));
    small.o8[i] = src.u8[63u - i];
    small.o16[i] = uint16_t(uint(src.u16[i]) ^ 0x5a5au);
    small.oh[i] = float16_t(float(src.h[i]) * 2.0);
}
