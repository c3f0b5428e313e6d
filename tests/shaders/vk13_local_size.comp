#version 450
// Compiled for Vulkan 1.3 (SPIR-V 1.6): glslang emits OpExecutionModeId LocalSizeId.
layout(local_size_x = 64, local_size_y = 2) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
    b.v[gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * 64u] = gl_LocalInvocationIndex;
}
