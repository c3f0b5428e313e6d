#version 450
// A depth compare of layer 1 of a cube array with an implicit LOD (TEXC
// LOD COMPUTE, shadow and array registers, dimension Cube;
// tests/jm_graphics.rs): the reference is the varying's fourth component.
layout(location = 0) in vec4 v_dir;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 2) uniform samplerCubeArrayShadow tex;
void main()
{
    o_color = vec4(texture(tex, vec4(v_dir.xyz, 1.0), v_dir.w));
}
