#version 450
// A clip-space position and an RGBA colour per vertex, for the blending
// scenes (tests/jm_graphics.rs).
layout(location = 0) in vec4 in_pos;
layout(location = 1) in vec4 in_color;
layout(location = 0) out vec4 v_color;
void main()
{
    v_color = in_color;
    gl_Position = in_pos;
}
