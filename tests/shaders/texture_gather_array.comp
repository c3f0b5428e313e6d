#version 450
// Gathers from a 2D array texture (OpImageGather of a sampler2DArray: the
// layer is the coordinate's third component), results to a storage buffer
// (tests/sim_textures.rs, against testing::sampler).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler2DArray tex;
struct Query {
    vec2 st;
    float layer;
    float lod;
    ivec2 texel;
    int ilayer;
    int pad;
};
layout(std430, set = 0, binding = 3) readonly buffer Queries { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { vec4 r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    Query x = q[i];
    r[2u * i] = textureGather(tex, vec3(x.st, x.layer), 1);
    r[2u * i + 1u] = textureGatherOffset(tex, vec3(x.st, x.layer), ivec2(-2, 3), 3);
}
