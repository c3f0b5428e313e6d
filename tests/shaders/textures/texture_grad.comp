#version 450
// Explicit gradients: textureGrad of a sampler2D, a sampler3D and a
// sampler1D (lowered by the front end to textureLod at the spec's
// isotropic λ; tests/sim_textures.rs against testing::sampler).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler2D t2;
layout(set = 0, binding = 1) uniform sampler3D t3;
layout(set = 0, binding = 2) uniform sampler1D t1;
struct Query {
    vec4 str;
    vec4 dx;
    vec4 dy;
};
layout(std430, set = 0, binding = 3) readonly buffer Queries { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { vec4 r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    Query x = q[i];
    r[3u * i] = textureGrad(t2, x.str.xy, x.dx.xy, x.dy.xy);
    r[3u * i + 1u] = textureGrad(t3, x.str.xyz, x.dx.xyz, x.dy.xyz);
    r[3u * i + 2u] = textureGrad(t1, x.str.x, x.dx.x, x.dy.x);
}
