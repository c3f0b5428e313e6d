#version 450
// clip_rgba.vert's colour split over three smooth varyings (red-green,
// blue, alpha at locations 0, 1, 2), for the message preload test in
// tests/jm_graphics.rs: on v7 the first two are preloaded, the third is
// loaded with LD_VAR.
layout(location = 0) in vec4 in_pos;
layout(location = 1) in vec4 in_color;
layout(location = 0) out vec2 v_rg;
layout(location = 1) out float v_b;
layout(location = 2) out float v_a;
void main()
{
    v_rg = in_color.rg;
    v_b = in_color.b;
    v_a = in_color.a;
    gl_Position = in_pos;
}
