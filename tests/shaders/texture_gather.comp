#version 450
// Texture gathers (OpImageGather): textureGather of each component of a
// float image, textureGatherOffset with two offsets, and textureGather /
// textureGatherOffset of an integer image, results to a storage buffer
// (tests/sim_textures.rs runs it on the simulator against the reference
// sampler).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) uniform isampler2D itex;
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
    vec2 st = q[i].st;
    r[8u * i] = textureGather(tex, st);
    r[8u * i + 1u] = textureGather(tex, st, 1);
    r[8u * i + 2u] = textureGather(tex, st, 2);
    r[8u * i + 3u] = textureGather(tex, st, 3);
    r[8u * i + 4u] = textureGatherOffset(tex, st, ivec2(-3, 2), 1);
    r[8u * i + 5u] = textureGatherOffset(tex, st, ivec2(7, -8), 3);
    r[8u * i + 6u] = intBitsToFloat(textureGather(itex, st, 0));
    r[8u * i + 7u] = intBitsToFloat(textureGatherOffset(itex, st, ivec2(1, -1), 2));
}
