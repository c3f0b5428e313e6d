#version 450
// div_loop.comp's divisions in a vertex shader: the corpus runs vertex
// shaders through the whole pipeline (opt_licm, opt_split_div) on the
// simulator. Divisors: push constants (a float's bits, a small integer
// including 0, a negated one); dividends from an attribute.
layout(push_constant) uniform PC {
    uint n;
    uint d;
    int sd;
    uint count;
    uint pad;
    uint e;
} pc;
layout(location = 0) in uvec4 a;
layout(location = 0) flat out uvec4 v;
void main() {
    uint acc = 0u;
    int sacc = 0;
    for (uint i = 0u; i < (pc.count & 7u); i++) {
        uint x = a.x * 2654435761u + i * (a.y | 1u);
        acc += x / pc.d + x % pc.d;
        acc ^= x / pc.n + x % pc.n;
        int sx = int(x);
        int neg = -int(pc.e);
        sacc += sx / pc.sd + sx % neg;
        sacc ^= sx / neg + sx % pc.sd;
    }
    v = uvec4(acc, uint(sacc), a.z / pc.d, a.w % pc.n);
    gl_Position = vec4(float(acc & 255u), float(sacc & 255), 0.0, 1.0);
}
