#version 450
// gl_FragCoord.xy and gl_SampleID into an RGBA32F target
// (tests/jm_graphics.rs): with sample shading, FragCoord is the shaded
// sample's location.
layout(location = 0) out vec4 o;
void main()
{
    o = vec4(gl_FragCoord.xy, float(gl_SampleID), 0.0);
}
