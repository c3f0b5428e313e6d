#version 450
// Depth-compare sampling (OpImageSampleDrefExplicitLod) of a shadow
// sampler at a given LOD and at 0, results to a storage buffer
// (tests/sim_textures.rs runs it against the reference sampler).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler2DShadow tex;
struct Query {
    vec2 st;
    float lod;
    float dref;
};
layout(std430, set = 0, binding = 3) readonly buffer Queries { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { vec2 r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    Query x = q[i];
    r[i] = vec2(textureLod(tex, vec3(x.st, x.dref), x.lod),
                textureLod(tex, vec3(x.st, x.dref), 0.0));
}
