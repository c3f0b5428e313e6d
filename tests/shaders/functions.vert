#version 450
// Functions with out/inout parameters, struct returns and nested calls.
struct Result { vec4 pos; float weight; };
layout(location = 0) in vec4 a;
layout(location = 0) out vec4 v;
void scale(inout vec4 x, float s) { x *= s; }
void split(vec4 x, out vec2 lo, out vec2 hi) { lo = x.xy; hi = x.zw; }
Result make(vec4 x) { Result r; r.pos = x; scale(r.pos, 2.0); r.weight = x.w; return r; }
void main() {
    Result r = make(a);
    vec2 lo, hi;
    split(r.pos, lo, hi);
    gl_Position = vec4(lo, hi);
    v = vec4(r.weight);
}
