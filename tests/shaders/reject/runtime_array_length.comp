#version 450
// Valid SPIR-V the front end rejects: .length() of a runtime array needs the
// buffer size, which the IR has no intrinsic for (OpArrayLength).
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint n; uint v[]; } b;
void main() { b.n = uint(b.v.length()); }
