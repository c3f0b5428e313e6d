#version 450
// Dual-source blending (tests/jm_graphics.rs): the interpolated RGBA colour
// as the first colour (Location 0, Index 0) and a second colour made from
// it (Location 0, Index 1): the channels rotated (no arithmetic, so the
// blended values stay on the k/255 grid the tests rely on for exactness).
layout(location = 0) in vec4 v_color;
layout(location = 0, index = 0) out vec4 o_color;
layout(location = 0, index = 1) out vec4 o_src1;
void main()
{
    o_color = v_color;
    o_src1 = v_color.gbar;
}
