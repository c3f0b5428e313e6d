#version 450
// Image atomics (sim_textures.rs::image_atomics_match_every_order):
// invocation i adds q[i].add to texel q[i].xy of image 0 (r32ui), raises
// the same texel of image 1 (r32i) to q[i].value, and swaps i + 1 into
// image 2 (r32ui) where it still holds 0; o[i] = the three old values.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D sums;
layout(set = 0, binding = 1, r32i) uniform iimage2D maxes;
layout(set = 0, binding = 2, r32ui) uniform uimage2D first;
struct Query { ivec2 xy; uint add; int value; };
layout(std430, set = 0, binding = 3) readonly buffer Q { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer O { uvec4 o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint sum = imageAtomicAdd(sums, q[i].xy, q[i].add);
    int m = imageAtomicMax(maxes, q[i].xy, q[i].value);
    uint f = imageAtomicCompSwap(first, q[i].xy, 0u, i + 1u);
    o[i] = uvec4(sum, uint(m), f, 0u);
}
