#version 450
// Cube arrays: textureLod of a samplerCubeArray (direction and layer)
// and textureSize at a level (tests/sim_textures.rs against
// testing::sampler::Bindings::sample_cube).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform samplerCubeArray tex;
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
    Query x = q[i];
    r[2u * i] = textureLod(tex, x.dir_layer, x.lod);
    r[2u * i + 1u] = vec4(textureSize(tex, x.level), 0.0);
}
