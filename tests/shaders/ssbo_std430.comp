#version 450
// SSBOs with std430 layout and a runtime array; readonly input, written output.
layout(local_size_x = 64) in;
struct Particle { vec3 pos; float mass; vec3 vel; uint flags; };
layout(set = 0, binding = 0, std430) readonly buffer In { float dt; Particle particles[]; } src;
layout(set = 0, binding = 1, std430) buffer Out { uint count; Particle result[]; } dst;
void main() {
    uint i = gl_GlobalInvocationID.x;
    Particle p = src.particles[i];
    p.pos += p.vel * src.dt;
    if ((p.flags & 1u) != 0u) p.vel = -p.vel;
    dst.result[i] = p;
    dst.result[i].mass = p.mass * 0.5;
}
