#version 450
// Physical storage buffer pointers (GL_EXT_buffer_reference): a pointer in
// push constants (the harness stores the address of binding 0 there, as
// vkGetBufferDeviceAddress would give it), pointer arithmetic on the
// reference itself (OpPtrAccessChain), a pointer to uvec2 and back, a
// pointer-typed loop variable, a row-major matrix, 64-bit members, dynamic
// indexing and atomics through pointers.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 16) in;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer Block {
    vec4 v;
    layout(row_major) mat2x3 m;
    uint64_t big;
    int i[4];
};
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Word { uint x; };

// The memory the pointers point into, and the results.
layout(std430, set = 0, binding = 0) buffer Heap { uint words[]; } heap;
layout(std430, set = 0, binding = 1) buffer Out { uint o[]; } outb;

layout(push_constant) uniform PC {
    Block blocks;
} pc;

void main()
{
    uint l = gl_LocalInvocationIndex;
    uint g = gl_GlobalInvocationID.x;
    Block b = pc.blocks[g];                      // 64-byte stride
    uvec2 halves = uvec2(b);
    Block again = Block(halves);
    uint r = floatBitsToUint(again.v.x + again.v.z);
    r ^= floatBitsToUint(b.m[1][2]) + floatBitsToUint(b.m[0][1]) * 3u;
    uint64_t big = b.big * 3ul + uint64_t(g);
    b.big = big;
    int old = atomicAdd(b.i[l & 3u], int(l));
    // Walk four words through a pointer-typed loop variable.
    Word w = Word(uint64_t(b) + 48ul);
    uint sum = 0u;
    for (int k = 0; k < 4; k++) {
        sum += w.x * uint(k + 1);
        w = Word(uint64_t(w) + 4ul);
    }
    outb.o[4u * g] = r;
    outb.o[4u * g + 1u] = uint(big >> 7) ^ uint(old);
    outb.o[4u * g + 2u] = sum;
    // The same memory through the SSBO binding, after the atomic on it.
    outb.o[4u * g + 3u] = uint(uint64_t(w) - uint64_t(b)) + heap.words[16u * g + 12u + (l & 3u)];
}
