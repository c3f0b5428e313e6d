#version 450
// Loader-level test of robustBufferAccess (tests/robust_access.rs):
// invocation i reads, writes and counts at element k = base + i of
// buffers whose bound ranges end part-way through the indices used.
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint s[]; } src;
layout(std140, set = 0, binding = 1) uniform Ubo { uvec4 u[8]; } ubo;
layout(std430, set = 0, binding = 2) writeonly buffer Dst { uint d[]; } dst;
layout(std430, set = 0, binding = 3) buffer Counts { uint c[]; } counts;
layout(std140, set = 0, binding = 4) uniform Wide { uvec4 w[8]; } wide;
layout(std430, set = 0, binding = 5) writeonly buffer Results { uint r[]; } results;
layout(push_constant) uniform Push { uint base; } pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint k = pc.base + i;
    uvec4 w = wide.w[k];
    results.r[8 * i + 0] = src.s[k];
    results.r[8 * i + 1] = ubo.u[k / 4u].y;
    results.r[8 * i + 2] = atomicAdd(counts.c[k], 1u);
    results.r[8 * i + 3] = w.x;
    results.r[8 * i + 4] = w.y;
    results.r[8 * i + 5] = w.z;
    results.r[8 * i + 6] = w.w;
    results.r[8 * i + 7] = k;
    dst.d[k] = 1000u + k;
}
