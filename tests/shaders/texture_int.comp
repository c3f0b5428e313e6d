#version 450
// Integer textures: texelFetch and nearest textureLod of a usampler2D and
// an isampler2D (tests/sim_textures.rs, against testing::sampler).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform usampler2D utex;
layout(set = 0, binding = 1) uniform isampler2D itex;
struct Query {
    vec2 st;
    ivec2 texel;
};
struct Result {
    uvec4 ufetch;
    uvec4 usample;
    ivec4 ifetch;
    ivec4 isample;
};
layout(std430, set = 0, binding = 3) readonly buffer Queries { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { Result r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    Query x = q[i];
    r[i].ufetch = texelFetch(utex, x.texel, 0);
    r[i].usample = textureLod(utex, x.st, 0.0);
    r[i].ifetch = texelFetch(itex, x.texel, 0);
    r[i].isample = textureLod(itex, x.st, 1.5);
}
