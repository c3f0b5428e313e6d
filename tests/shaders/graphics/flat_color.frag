#version 450
// The provoking vertex's colour (flat), alpha 1 (tests/jm_graphics.rs).
layout(location = 0) flat in vec3 v_color;
layout(location = 0) out vec4 o_color;
void main()
{
    o_color = vec4(v_color, 1.0);
}
