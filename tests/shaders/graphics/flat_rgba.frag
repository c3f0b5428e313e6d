#version 450
// The provoking vertex's RGBA colour (flat) as it is (tests/jm_graphics.rs:
// blending scenes with exact expected values).
layout(location = 0) flat in vec4 v_color;
layout(location = 0) out vec4 o_color;
void main()
{
    o_color = v_color;
}
