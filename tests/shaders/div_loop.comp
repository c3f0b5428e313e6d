#version 450
// Integer division inside a loop by divisors the loop does not change:
// push constants, arithmetic on one, and a system value. The backend
// divides by a run-time value with a long shift-and-subtract sequence;
// opt_split_div computes each divisor's reciprocal once, before the loop.
layout(local_size_x = 64) in;
layout(push_constant) uniform PC {
    uint n;      // a float's bits: a large divisor
    uint d;      // a small integer (0 included)
    int sd;      // a float's bits: either sign
    uint count;  // a small integer: the trip count, below 8
    uint pad;
    uint e;      // a small integer, negated below
} pc;
layout(std430, set = 0, binding = 0) buffer Out { uint data[]; } o;
void main() {
    uint gid = gl_GlobalInvocationID.x;
    uint acc = 0u;
    int sacc = 0;
    for (uint i = 0u; i < (pc.count & 7u); i++) {
        uint x = gid * 2654435761u + i * 0x9e3779b9u;
        acc += x / pc.d + x % pc.d;
        acc ^= (x / pc.n) * 3u + x % pc.n;
        acc += x / gl_NumWorkGroups.x;
        int sx = int(x);
        int neg = -int(pc.e);
        sacc += sx / pc.sd + sx % neg;
        sacc ^= sx / neg + sx % pc.sd;
    }
    o.data[gid * 2u] = acc;
    o.data[gid * 2u + 1u] = uint(sacc);
}
