#version 450
// Gathers of a cube map: textureGather of components g and r
// (tests/sim_textures.rs against testing::sampler::Bindings::gather_cube).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform samplerCube tex;
struct Query {
    vec4 dir_layer;
    float lod;
    int level;
    float pad0;
    float pad1;
};
layout(std430, set = 0, binding = 3) readonly buffer Queries { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { vec4 r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    vec3 dir = q[i].dir_layer.xyz;
    r[2u * i] = textureGather(tex, dir, 1);
    r[2u * i + 1u] = textureGather(tex, dir);
}
