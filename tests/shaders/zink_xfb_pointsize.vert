#version 450
// Zink style: position, point size and a varying in two buffers.
layout(xfb_buffer = 0, xfb_stride = 20) out gl_PerVertex {
    layout(xfb_offset = 0) vec4 gl_Position;
    layout(xfb_offset = 16) float gl_PointSize;
};
layout(location = 0, xfb_buffer = 1, xfb_offset = 0, xfb_stride = 16) out vec4 v_color;
layout(location = 0) in vec4 a_position;
layout(location = 1) in vec4 a_color;
void main() {
    gl_Position = a_position;
    gl_PointSize = 4.0;
    v_color = a_color;
}
