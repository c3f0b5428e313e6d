#version 450
// Vulkan 1.3 (SPIR-V 1.6) with a spec-constant workgroup size: OpExecutionModeId
// LocalSizeId pointing at OpSpecConstant ids.
layout(local_size_x_id = 3, local_size_y = 2, local_size_z_id = 4) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
    b.v[gl_LocalInvocationIndex] = gl_WorkGroupSize.x * gl_WorkGroupSize.z;
}
