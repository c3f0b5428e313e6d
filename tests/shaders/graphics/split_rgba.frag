#version 450
// The colour of split_rgba.vert's three varyings put back together
// (rgba_varying.frag's output when nothing is lost on the way).
layout(location = 0) in vec2 v_rg;
layout(location = 1) in float v_b;
layout(location = 2) in float v_a;
layout(location = 0) out vec4 o_color;
void main()
{
    o_color = vec4(v_rg, v_b, v_a);
}
