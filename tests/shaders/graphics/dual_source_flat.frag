#version 450
// Dual-source blending with flat colours (tests/jm_graphics.rs: random
// blend scenes): the provoking vertex's RGBA colour as the first colour
// (Location 0, Index 0) and its channels rotated as the second (Index 1).
layout(location = 0) flat in vec4 v_color;
layout(location = 0, index = 0) out vec4 o_color;
layout(location = 0, index = 1) out vec4 o_src1;
void main()
{
    o_color = v_color;
    o_src1 = v_color.gbar;
}
