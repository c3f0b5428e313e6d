#version 450
// Zink style: gl_Position and clip distances captured through gl_PerVertex.
layout(xfb_buffer = 0, xfb_stride = 24) out gl_PerVertex {
    layout(xfb_offset = 0) vec4 gl_Position;
    layout(xfb_offset = 16) float gl_ClipDistance[2];
};
layout(location = 0) in vec4 a_position;
layout(location = 1) in vec2 a_clip;
void main() {
    gl_Position = a_position;
    gl_ClipDistance[0] = a_clip.x;
    gl_ClipDistance[1] = a_clip.y;
}
