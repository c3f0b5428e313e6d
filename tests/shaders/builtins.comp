#version 450
// Compute built-ins.
layout(local_size_x = 4, local_size_y = 2, local_size_z = 2) in;
layout(set = 0, binding = 0) buffer B { uvec4 v[]; } b;
void main() {
    uint i = gl_LocalInvocationIndex + 16u * (gl_WorkGroupID.x + gl_NumWorkGroups.x * gl_WorkGroupID.y);
    b.v[i] = uvec4(gl_GlobalInvocationID, 0u) + uvec4(gl_LocalInvocationID, 1u) + uvec4(gl_WorkGroupSize, 2u) + uvec4(gl_NumWorkGroups, 3u);
}
