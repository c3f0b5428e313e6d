#version 450
// clip_rgba.vert with gl_PointSize 4 (tests/jm_graphics.rs: gl_PointCoord).
layout(location = 0) in vec4 in_pos;
layout(location = 1) in vec4 in_color;
layout(location = 0) out vec4 v_color;
void main()
{
    v_color = in_color;
    gl_Position = in_pos;
    gl_PointSize = 4.0;
}
