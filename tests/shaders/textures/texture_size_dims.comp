#version 450
// Size queries of 1D, 3D and array images: textureSize at a level and
// textureQueryLevels (tests/sim_textures.rs).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler1D t1;
layout(set = 0, binding = 1) uniform sampler3D t3;
layout(set = 0, binding = 2) uniform sampler2DArray a2;
layout(set = 0, binding = 5) uniform sampler1DArray a1;
layout(std430, set = 0, binding = 3) readonly buffer Queries { int lod[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { ivec4 r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    int l = lod[i];
    r[3u * i] = ivec4(textureSize(t1, l), textureSize(t3, l));
    r[3u * i + 1u] = ivec4(textureSize(a2, l), textureQueryLevels(t3));
    r[3u * i + 2u] = ivec4(textureSize(a1, l), textureQueryLevels(a2), textureQueryLevels(t1));
}
