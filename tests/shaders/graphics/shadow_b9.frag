#version 450
// Depth-compare sampling with an implicit LOD (OpImageSampleDrefImplicitLod:
// TEXC, LOD mode COMPUTE, shadow register) of a shadow sampler at binding 9,
// against the constant reference 0.5 (tests/jm_graphics.rs).
layout(location = 0) in vec4 v_color;
layout(location = 1) in vec2 v_uv;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 9) uniform sampler2DShadow stex;
void main()
{
    o_color = vec4(texture(stex, vec3(v_uv, 0.5))) * v_color;
}
