#version 450
// Layer 1 of a cube array sampled with an implicit LOD (TEXC LOD COMPUTE,
// dimension Cube, the array register; tests/jm_graphics.rs).
layout(location = 0) in vec4 v_dir;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 2) uniform samplerCubeArray tex;
void main()
{
    o_color = texture(tex, vec4(v_dir.xyz, 1.0));
}
