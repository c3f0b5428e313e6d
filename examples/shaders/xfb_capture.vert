#version 450
// The README's transform-feedback example (examples/xfb_capture.rs):
// each captured vertex is its position and its gl_VertexIndex.
layout(location = 0) in vec2 a_pos;
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out vec2 v_pos;
layout(location = 1, xfb_buffer = 0, xfb_offset = 8) flat out uint v_vertex;
void main() {
    v_pos = a_pos;
    v_vertex = gl_VertexIndex;
    gl_Position = vec4(a_pos, 0.0, 1.0);
}
