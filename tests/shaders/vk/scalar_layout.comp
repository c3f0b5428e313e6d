#version 450
#extension GL_EXT_scalar_block_layout : require
// Loader-level test of VK_EXT_scalar_block_layout (tests/scalar_layout.rs):
// storage, uniform and push-constant blocks whose members sit at the scalar
// layout's offsets (each member aligned to its component size), which
// std430/std140 would place elsewhere.
layout(local_size_x = 8) in;

// Scalar: v @0, f @12, w @16, size 24 (std430: w @16, size 32).
struct Item {
    uvec3 v;
    uint f;
    uvec2 w;
};
layout(scalar, set = 0, binding = 0) readonly buffer In { Item items[]; } src;
// Scalar: stride 12 (std430: 16).
layout(scalar, set = 0, binding = 1) writeonly buffer Out { uvec3 sums[]; } dst;
// Scalar: b @0, a @4, c @16 (std140: a @16, c @32).
layout(scalar, set = 0, binding = 2) uniform U { uint b; uvec3 a; uvec3 c; } u;
// Scalar: bias @0, scale @4 (std430: scale @16).
layout(scalar, push_constant) uniform PC { uint bias; uvec3 scale; } pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    Item s = src.items[i];
    dst.sums[i] = s.v * pc.scale + uvec3(s.f + s.w.x - s.w.y + pc.bias) + u.a * u.b + u.c;
}
