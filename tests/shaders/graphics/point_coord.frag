#version 450
// gl_PointCoord and the pixel centre as colours into an RGBA32F target
// (tests/jm_graphics.rs).
layout(location = 0) out vec4 o;
void main()
{
    o = vec4(gl_PointCoord, gl_FragCoord.xy);
}
