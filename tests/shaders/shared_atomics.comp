#version 450
// Shared memory, barriers and atomics on shared memory and an SSBO.
layout(local_size_x = 32) in;
shared uint partial[32];
shared int total;
layout(set = 0, binding = 0) buffer Counters { uint hits; int minimum; uint ids[]; } c;
void main() {
    uint l = gl_LocalInvocationID.x;
    if (l == 0u) total = 0;
    partial[l] = l * 2u;
    barrier();
    atomicAdd(total, int(partial[(l + 1u) % 32u]));
    barrier();
    uint old = atomicAdd(c.hits, 1u);
    atomicMin(c.minimum, total);
    c.ids[old] = atomicExchange(c.ids[l], l);
    atomicCompSwap(c.ids[l + 32u], 0u, old);
}
