#version 450
// layout(early_fragment_tests) with a discard and a gl_FragDepth write
// (tests/jm_graphics.rs): the tests, depth writes and sample counting
// happen before the shader, the discard only drops the colour, the
// shader's depth has no effect.
layout(early_fragment_tests) in;
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 o_color;
void main()
{
    gl_FragDepth = 0.0;
    if (v_color.r < 0.5)
        discard;
    o_color = v_color;
}
