#version 450
// gl_FragDepth from the interpolated alpha (ZS_EMIT, late depth test and
// write; tests/jm_graphics.rs); the colour as interpolated.
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 o_color;
void main()
{
    o_color = vec4(v_color.rgb, 1.0);
    gl_FragDepth = v_color.a;
}
