#version 450
// A captured output that is never written still occupies its XFB range (its
// value is undefined); an uncaptured unwritten output disappears.
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 32) out vec4 o_written;
layout(location = 1, xfb_buffer = 0, xfb_offset = 16) out vec4 o_captured_unwritten;
layout(location = 2) out vec4 o_unused;
layout(location = 0) in vec4 a;
void main() {
    gl_Position = a;
    o_written = a;
}
