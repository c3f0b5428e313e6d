#version 450
// Loader-level test of VK_KHR_shader_non_semantic_info
// (tests/non_semantic.rs): compiled with glslang's -gV, so the module
// carries NonSemantic.Shader.DebugInfo.100 instructions (source, lines,
// variables) that the driver must ignore. out[i] = i * 3 + in[i] + base.
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; } src;
layout(set = 0, binding = 1) writeonly buffer Out { uint data[]; } dst;
layout(push_constant) uniform Push { uint base; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint scaled = i * 3u;
    dst.data[i] = scaled + src.data[i] + pc.base;
}
