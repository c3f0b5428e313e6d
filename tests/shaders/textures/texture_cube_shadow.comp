#version 450
#extension GL_EXT_texture_shadow_lod : require
// Depth compares of cube maps and cube arrays with an explicit LOD
// (textureLod of samplerCubeShadow / samplerCubeArrayShadow, from
// GL_EXT_texture_shadow_lod: OpImageSampleDrefExplicitLod with Lod;
// tests/sim_textures.rs against testing::sampler::Bindings::sample_cube_dref).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform samplerCubeShadow tex;
layout(set = 0, binding = 1) uniform samplerCubeArrayShadow arr;
struct Query {
    vec4 dir_layer;
    float lod;
    float dref;
    float pad0;
    float pad1;
};
layout(std430, set = 0, binding = 3) readonly buffer Queries { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { vec4 r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    Query x = q[i];
    float a = textureLod(tex, vec4(x.dir_layer.xyz, x.dref), x.lod);
    float b = textureLod(arr, x.dir_layer, x.dref, x.lod);
    r[i] = vec4(a, b, 0.0, 0.0);
}
