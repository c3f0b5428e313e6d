#version 450
// ANGLE style: captured varyings in an output block, plus a separate buffer.
layout(location = 0, xfb_buffer = 1, xfb_stride = 48) out Varyings {
    layout(xfb_offset = 0) vec4 color;
    layout(xfb_offset = 16) vec3 normal;
    layout(xfb_offset = 28) float weight;
    layout(xfb_offset = 32) vec4 extra;
} v_out;
layout(location = 4, xfb_buffer = 2, xfb_offset = 0, xfb_stride = 16) out vec4 v_position_copy;
layout(location = 0) in vec4 a_position;
layout(location = 1) in vec3 a_normal;
void main() {
    gl_Position = a_position;
    v_position_copy = a_position;
    v_out.color = vec4(1.0, 0.5, 0.25, 1.0);
    v_out.normal = a_normal;
    v_out.weight = a_position.w * 2.0;
    v_out.extra = a_position.zyxw;
}
