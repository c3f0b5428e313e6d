#version 450
// Red, green from the colour; blue 0.25; alpha from the colour's blue
// (tests/jm_graphics.rs: SRC_ALPHA / ONE_MINUS_SRC_ALPHA blending).
layout(location = 0) in vec3 v_color;
layout(location = 0) out vec4 o_color;
void main()
{
    o_color = vec4(v_color.rg, 0.25, v_color.b);
}
