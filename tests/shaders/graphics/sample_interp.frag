#version 450
// A sample-interpolated colour into an RGBA32F target
// (tests/jm_graphics.rs): the `sample` qualifier runs the shader per
// covered sample and reads the varying at that sample's location.
layout(location = 0) sample in vec4 v_color;
layout(location = 0) out vec4 o;
void main()
{
    o = v_color;
}
