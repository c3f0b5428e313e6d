#version 450
// Loader-level indirect-dispatch test shader (tests/xfb_loader.rs): each
// invocation writes its linear index + 1 and the workgroup counts it sees.
layout(local_size_x = 4, local_size_y = 2) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; } o;
void main() {
    uvec3 n = gl_NumWorkGroups;
    uvec3 g = gl_WorkGroupID;
    uint group = g.x + n.x * (g.y + n.y * g.z);
    uint i = group * 8u + gl_LocalInvocationIndex;
    o.data[2u * i] = i + 1u;
    o.data[2u * i + 1u] = n.x | (n.y << 8) | (n.z << 16);
}
