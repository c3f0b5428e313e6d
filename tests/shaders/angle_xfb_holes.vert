#version 450
// Holes between captured outputs, four buffers, an uncaptured varying between them.
layout(location = 0, xfb_buffer = 0, xfb_offset = 4, xfb_stride = 32) out vec2 v_a;
layout(location = 1, xfb_buffer = 0, xfb_offset = 20) out float v_b;
layout(location = 2) out vec4 v_not_captured;
layout(location = 3, xfb_buffer = 1, xfb_offset = 8, xfb_stride = 24) out vec3 v_c;
layout(location = 4, xfb_buffer = 2, xfb_offset = 0, xfb_stride = 4) out float v_d;
layout(location = 5, xfb_buffer = 3, xfb_offset = 12, xfb_stride = 64) out ivec4 v_e;
layout(location = 0) in vec4 a_position;
void main() {
    gl_Position = a_position;
    v_a = a_position.xy;
    v_b = a_position.z;
    v_not_captured = a_position;
    v_c = a_position.xyz * 3.0;
    v_d = 7.0;
    v_e = ivec4(a_position);
}
