#version 450
// Loader-level compute test shader (tests/xfb_loader.rs): out[i] = i * k + in[i]
// through a storage buffer pair, a dynamic uniform buffer and push constants.
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; } src;
layout(set = 0, binding = 1) writeonly buffer Out { uint data[]; } dst;
layout(set = 1, binding = 0) uniform K { uint k; } kk;
layout(push_constant) uniform Push { uint base; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    dst.data[i] = i * kk.k + src.data[i] + pc.base;
}
