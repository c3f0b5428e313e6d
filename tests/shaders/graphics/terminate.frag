#version 450
#extension GL_EXT_terminate_invocation : require
// discard.frag with OpTerminateInvocation (tests/jm_graphics.rs).
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 o_color;
void main()
{
    if (v_color.r < 0.5)
        terminateInvocation;
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (((p.x ^ p.y) & 1) != 0)
        terminateInvocation;
    o_color = v_color;
}
