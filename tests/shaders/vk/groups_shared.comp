#version 450
// Loader-level indirect-dispatch test with workgroup memory
// (tests/xfb_loader.rs): each invocation stores a marker of its workgroup
// and local index in shared memory, and after a barrier writes its
// neighbour's marker and the workgroup counts it sees.
layout(local_size_x = 4, local_size_y = 2) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; } o;
shared uint s[8];
void main() {
    uvec3 n = gl_NumWorkGroups;
    uvec3 g = gl_WorkGroupID;
    uint group = g.x + n.x * (g.y + n.y * g.z);
    uint lid = gl_LocalInvocationIndex;
    s[lid] = group * 16u + lid + 1u;
    barrier();
    uint i = group * 8u + lid;
    o.data[2u * i] = s[(lid + 1u) % 8u];
    o.data[2u * i + 1u] = n.x | (n.y << 8) | (n.z << 16);
}
