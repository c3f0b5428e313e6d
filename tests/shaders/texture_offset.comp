#version 450
// Texel offsets (ConstOffset): textureLodOffset at a given LOD and at 0,
// texelFetchOffset, results to a storage buffer (tests/sim_textures.rs
// runs it on the simulator against the reference sampler).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
struct Query {
    vec2 st;
    float lod;
    int pad;
    ivec2 texel;
    ivec2 pad2;
};
layout(std430, set = 0, binding = 3) readonly buffer Queries { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { vec4 r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    Query x = q[i];
    r[3u * i] = textureLodOffset(tex, x.st, x.lod, ivec2(-3, 2));
    r[3u * i + 1u] = textureLodOffset(tex, x.st, 0.0, ivec2(7, -8));
    r[3u * i + 2u] = texelFetchOffset(tex, x.texel, 0, ivec2(1, -1));
}
