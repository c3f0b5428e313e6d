#version 450
// Switch with fallthrough, shared targets and default.
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer B { int v[]; } b;
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = b.v[i];
    int r = 0;
    switch (x) {
    case 0: r = 10; break;
    case 1:
    case 2: r = 20; break;
    case 3: r = 30;
    case 4: r += 40; break;
    default: r = -1; break;
    }
    b.v[i] = r;
}
