#version 450
// Mipmapped 2D arrays: textureLod and texelFetch of a sampler2DArray at
// any level (one Surface With Stride per layer and level;
// tests/sim_textures.rs against testing::sampler).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler2DArray tex;
struct Query {
    vec2 st;
    float layer;
    float lod;
    ivec2 texel;
    int ilayer;
    int level;
};
layout(std430, set = 0, binding = 3) readonly buffer Queries { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { vec4 r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    Query x = q[i];
    r[2u * i] = textureLod(tex, vec3(x.st, x.layer), x.lod);
    r[2u * i + 1u] = texelFetch(tex, ivec3(x.texel, x.ilayer), x.level);
}
