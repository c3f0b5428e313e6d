#version 450
// Texel fetch and explicit-LOD sampling from a combined image sampler and
// from a separate image and sampler, results to a storage buffer
// (tests/sim_textures.rs runs it on the simulator against the reference
// sampler in testing::sampler).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) uniform texture2D img;
layout(set = 0, binding = 2) uniform sampler smp;
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
    r[3u * i] = textureLod(tex, x.st, x.lod);
    r[3u * i + 1u] = textureLod(sampler2D(img, smp), x.st, 0.0);
    r[3u * i + 2u] = texelFetch(tex, x.texel, 0);
}
