#version 450
// A centroid-interpolated colour into an RGBA32F target
// (tests/jm_graphics.rs): at a partly covered pixel it is read at a
// covered sample, never extrapolated beyond the triangle.
layout(location = 0) centroid in vec4 v_color;
layout(location = 0) out vec4 o;
void main()
{
    o = v_color;
}
