#version 450
// gl_SamplePosition, gl_SampleID and gl_SampleMaskIn as colours into an
// RGBA32F target (tests/jm_graphics.rs). Reading the first two makes the
// shader run once per covered sample (Vulkan "Sample Shading").
layout(location = 0) out vec4 o;
void main()
{
    o = vec4(gl_SamplePosition, float(gl_SampleID), float(gl_SampleMaskIn[0]));
}
