#version 450
// Loader-level transform-feedback test shader (tests/xfb_loader.rs):
// buffer 0 gets the scaled position and the vertex/instance indices,
// buffer 1 a per-instance value at offset 4 of an 8-byte stride (bytes
// 0..4 of every record are never written).
layout(location = 0) in vec4 a_pos;
layout(location = 1) in float a_inst;

layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 32) out vec4 v_pos;
layout(location = 1, xfb_buffer = 0, xfb_offset = 16) flat out uvec2 v_ids;
layout(location = 2, xfb_buffer = 1, xfb_offset = 4, xfb_stride = 8) out float v_inst;

layout(set = 0, binding = 0) uniform Offset { vec4 offset; } u;
layout(push_constant) uniform Push { float scale; } pc;

void main() {
    v_pos = a_pos * pc.scale + u.offset;
    v_ids = uvec2(gl_VertexIndex, gl_InstanceIndex);
    v_inst = a_inst;
    gl_Position = a_pos;
    // Point-list pipelines must write it (VUID-VkGraphicsPipelineCreateInfo-Vertex-07722).
    gl_PointSize = 1.0;
}
