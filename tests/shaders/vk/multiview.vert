#version 450
#extension GL_EXT_multiview : require
// Loader-level test of VK_KHR_multiview (tests/multiview.rs): every
// invocation counts itself in hits[view * 64 + instance * 16 + vertex].
layout(std430, set = 0, binding = 0) buffer Hits {
    uint hits[512];
};

void main() {
    uint slot = uint(gl_ViewIndex) * 64u + uint(gl_InstanceIndex) * 16u + uint(gl_VertexIndex);
    if (slot < 512u) {
        atomicAdd(hits[slot], 1u);
    }
    gl_Position = vec4(float(gl_VertexIndex), float(gl_ViewIndex), 0.0, 1.0);
}
