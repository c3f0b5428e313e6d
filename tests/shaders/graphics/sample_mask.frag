#version 450
// gl_SampleMask from a flat varying (its red channel, a small integer) and
// gl_SampleMaskIn as alpha, into an RGBA32F target (tests/jm_graphics.rs):
// no sample shading, the samples the mask clears keep their old colour.
layout(location = 0) flat in vec4 v_color;
layout(location = 0) out vec4 o;
void main()
{
    gl_SampleMask[0] = int(v_color.x);
    o = vec4(v_color.yz, 0.25, float(gl_SampleMaskIn[0]));
}
