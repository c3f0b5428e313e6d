#version 450
// Depth gathers (OpImageDrefGather): textureGather and
// textureGatherOffset of a shadow sampler, results to a storage buffer
// (tests/sim_textures.rs runs it on the simulator against the reference
// sampler).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler2DShadow tex;
struct Query {
    vec2 st;
    float lod;
    float dref;
};
layout(std430, set = 0, binding = 3) readonly buffer Queries { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { vec4 r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    Query x = q[i];
    r[2u * i] = textureGather(tex, x.st, x.dref);
    r[2u * i + 1u] = textureGatherOffset(tex, x.st, x.dref, ivec2(2, -1));
}
