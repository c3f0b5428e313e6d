#version 450
// A clip-space position (x, y, z, w) and a colour per vertex, for scenes
// with perspective (tests/jm_graphics.rs).
layout(location = 0) in vec4 in_pos;
layout(location = 1) in vec3 in_color;
layout(location = 0) out vec3 v_color;
void main()
{
    v_color = in_color;
    gl_Position = in_pos;
}
