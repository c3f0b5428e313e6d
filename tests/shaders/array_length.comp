#version 450
// OpArrayLength: .length() of runtime arrays comes from the size of the
// range bound to the storage buffer (a member after a header, and a block
// that is only the array).
layout(local_size_x = 4) in;
layout(std430, set = 0, binding = 0) buffer A { uint n; uint pad; uvec2 v[]; } a;
layout(std430, set = 0, binding = 1) buffer B { float f[]; } b;
void main() {
    uint i = gl_LocalInvocationIndex;
    if (i == 0u) {
        a.n = uint(a.v.length());
    }
    if (i < uint(b.f.length())) {
        b.f[i] = float(b.f.length()) + float(i);
    }
}
