#version 450
// 1D textures and mipmapped 1D arrays: textureLod and texelFetch of a
// sampler1D and a sampler1DArray (TEXC with dimension 1, the coordinate
// passed twice; tests/sim_textures.rs against testing::sampler).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler1D tex;
layout(set = 0, binding = 1) uniform sampler1DArray arr;
struct Query {
    float s;
    float layer;
    float lod;
    int texel;
    int ilayer;
    int level;
    int pad0;
    int pad1;
};
layout(std430, set = 0, binding = 3) readonly buffer Queries { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { vec4 r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    Query x = q[i];
    r[4u * i] = textureLod(tex, x.s, x.lod);
    r[4u * i + 1u] = texelFetch(tex, x.texel, x.level);
    r[4u * i + 2u] = textureLod(arr, vec2(x.s, x.layer), x.lod);
    r[4u * i + 3u] = texelFetch(arr, ivec2(x.texel, x.ilayer), x.level);
}
