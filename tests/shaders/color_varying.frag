#version 450
// The interpolated colour with alpha 1 (the shape of Mesa's gfx_triangle.frag).
layout(location = 0) in vec3 v_color;
layout(location = 0) out vec4 o_color;
void main()
{
    o_color = vec4(v_color, 1.0);
}
