#version 450
// Explicit gradients of a cube map: textureGrad of a samplerCube (the
// front end computes λ from the spec's cube derivative transformation;
// tests/sim_textures.rs against testing::sampler::cube_grad_lod).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform samplerCube tex;
struct Query {
    vec4 dir;
    vec4 dx;
    vec4 dy;
};
layout(std430, set = 0, binding = 3) readonly buffer Queries { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { vec4 r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    Query x = q[i];
    r[i] = textureGrad(tex, x.dir.xyz, x.dx.xyz, x.dy.xyz);
}
