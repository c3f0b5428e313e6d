#version 450
// A depth compare of a cube map with an implicit LOD (TEXC with LOD mode
// COMPUTE, the shadow register and dimension Cube; tests/jm_graphics.rs):
// the direction and the reference are the interpolated colour varying of
// clip_rgba.vert.
layout(location = 0) in vec4 v_dir;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 2) uniform samplerCubeShadow tex;
void main()
{
    o_color = vec4(texture(tex, v_dir));
}
