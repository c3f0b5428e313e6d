#version 450
// discard (OpKill) where the interpolated red is below 0.5 and on a
// checkerboard of pixels (tests/jm_graphics.rs: a discarded fragment
// writes no colour, no depth, no stencil and is not counted).
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 o_color;
void main()
{
    if (v_color.r < 0.5)
        discard;
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (((p.x ^ p.y) & 1) != 0)
        discard;
    o_color = v_color;
}
