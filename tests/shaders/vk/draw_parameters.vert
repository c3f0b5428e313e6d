#version 450
#extension GL_ARB_shader_draw_parameters : require
// Loader-level test of VK_KHR_shader_draw_parameters
// (tests/draw_parameters.rs): every invocation counts itself in
// hits[draw * 64 + instance * 16 + vertex] and stores what it saw of
// gl_BaseVertexARB and gl_BaseInstanceARB beside it.
layout(std430, set = 0, binding = 0) buffer Out {
    uint hits[256];
    uint base_vertex[256];
    uint base_instance[256];
};

void main() {
    uint slot = uint(gl_DrawIDARB) * 64u + uint(gl_InstanceIndex) * 16u + uint(gl_VertexIndex);
    if (slot < 256u) {
        atomicAdd(hits[slot], 1u);
        base_vertex[slot] = uint(gl_BaseVertexARB);
        base_instance[slot] = uint(gl_BaseInstanceARB);
    }
    gl_Position = vec4(0.0);
    gl_PointSize = 1.0;
}
