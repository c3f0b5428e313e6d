#version 450
// The interpolated RGBA colour as it is (tests/jm_graphics.rs: blending).
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 o_color;
void main()
{
    o_color = v_color;
}
