#version 450
// Fragment built-ins: gl_FragCoord, gl_FrontFacing, gl_PointCoord in,
// gl_FragDepth out, with early fragment tests requested.
layout(early_fragment_tests) in;
layout(location = 0) in float v_depth_bias;
layout(location = 0) out vec4 o_color;
void main()
{
    o_color = vec4(gl_FragCoord.xy * 0.125, gl_PointCoord.x, gl_FrontFacing ? 1.0 : 0.5);
    gl_FragDepth = gl_FragCoord.z + v_depth_bias * gl_FragCoord.w;
}
