#version 450
// Conversions between int, uint, float and bool, and bit casts.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { vec4 f; ivec4 i; uvec4 u; } b;
void main() {
    vec4 f = b.f;
    ivec4 i = ivec4(f) + ivec4(b.u);
    uvec4 u = uvec4(f) + uvec4(b.i);
    bvec4 t = greaterThan(f, vec4(0.0));
    b.f = vec4(i) + vec4(u) + vec4(t) + intBitsToFloat(i) + uintBitsToFloat(u);
    b.i = ivec4(t) + floatBitsToInt(f);
    b.u = uvec4(t) + floatBitsToUint(f);
    if (any(t) && !all(t)) b.f.x = 0.0;
}
