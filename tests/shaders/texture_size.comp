#version 450
// textureSize at a given level and textureQueryLevels of a combined image
// sampler (tests/sim_textures.rs: the driver's size word against the
// image it describes).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) uniform sampler2D other;
layout(std430, set = 0, binding = 3) readonly buffer Queries { int lod[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { ivec4 r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    r[i] = ivec4(textureSize(tex, lod[i]), textureQueryLevels(tex), textureSize(other, 0).x);
}
