#version 450
// Two outputs sharing location 1 through Component, both captured.
layout(location = 1, component = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out vec2 o_lo;
layout(location = 1, component = 2, xfb_buffer = 0, xfb_offset = 8) out float o_z;
layout(location = 1, component = 3, xfb_buffer = 0, xfb_offset = 12) out float o_w;
layout(location = 0) in vec4 a;
void main() {
    gl_Position = a;
    o_lo = a.xy;
    o_z = a.z;
    o_w = a.w;
}
