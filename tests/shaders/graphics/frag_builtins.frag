#version 450
// gl_FragCoord and gl_FrontFacing as colours into an RGBA32F target
// (tests/jm_graphics.rs): x, y, z and 1/w, w negated on back faces.
layout(location = 0) out vec4 o;
void main()
{
    o = gl_FragCoord;
    if (!gl_FrontFacing)
        o.w = -o.w;
}
