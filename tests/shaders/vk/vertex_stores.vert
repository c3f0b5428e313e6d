#version 450
// Loader-level test of vertexPipelineStoresAndAtomics (tests/vertex_stores.rs):
// every invocation counts itself per (instance, vertex) and stores a value
// computed from its input, and also captures one vec4 for the draws that
// run with transform feedback active.
layout(location = 0) in vec4 a_pos;

layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out vec4 v_pos;

layout(std430, set = 0, binding = 0) buffer Hits {
    // hits[instance * 64 + vertex]: how many invocations saw that vertex.
    uint hits[256];
    // values[instance * 64 + vertex]: a_pos.x * 2 + instance.
    float values[256];
};

void main() {
    uint slot = uint(gl_InstanceIndex) * 64u + uint(gl_VertexIndex);
    if (slot < 256u) {
        atomicAdd(hits[slot], 1u);
        values[slot] = a_pos.x * 2.0 + float(gl_InstanceIndex);
    }
    v_pos = a_pos;
    gl_Position = a_pos;
    gl_PointSize = 1.0;
}
