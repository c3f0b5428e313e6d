#version 450
// Loader-level test of fullDrawIndexUint32 (tests/vertex_stores.rs): each
// invocation appends gl_VertexIndex and the x of its input (a binding of
// stride 0, so every vertex reads element 0) to a storage buffer, and
// captures gl_VertexIndex for the draws run with transform feedback.
layout(location = 0) in vec4 a_pos;

layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 4) flat out uint v_id;

layout(std430, set = 0, binding = 0) buffer Ids {
    uint n;
    uint ids[63];
    float xs[64];
};

void main() {
    uint at = atomicAdd(n, 1u);
    if (at < 63u) {
        ids[at] = uint(gl_VertexIndex);
        xs[at] = a_pos.x;
    }
    v_id = uint(gl_VertexIndex);
    gl_Position = a_pos;
    gl_PointSize = 1.0;
}
