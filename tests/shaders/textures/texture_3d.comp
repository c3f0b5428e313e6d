#version 450
// 3D textures: textureLod at an explicit LOD and at 0 and texelFetch of a
// sampler3D (TEXC with dimension 3, r in the first data register;
// tests/sim_textures.rs against testing::sampler).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler3D tex;
struct Query {
    vec3 str;
    float lod;
    ivec3 texel;
    int level;
};
layout(std430, set = 0, binding = 3) readonly buffer Queries { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { vec4 r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    Query x = q[i];
    r[3u * i] = textureLod(tex, x.str, x.lod);
    r[3u * i + 1u] = textureLod(tex, x.str, 0.0);
    r[3u * i + 2u] = texelFetch(tex, x.texel, x.level);
}
