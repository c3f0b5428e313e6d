#version 450
// A `break` out of a switch from inside an `if` in a case, and a `continue`
// from a switch inside a loop: branches to enclosing merges from nested
// selections (the front end duplicates the tail after the switch).
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer B { int v[]; } b;
void main() {
    uint i = gl_GlobalInvocationID.x;
    int r = 0;
    for (int k = 0; k < 4; k++) {
        switch (b.v[i] + k) {
        case 0:
            if (k == 2) break;
            r += 1;
            break;
        case 1:
            if (r > 3) continue;
            r += 10;
            break;
        default:
            r -= 1;
        }
        r *= 2;
    }
    b.v[i] = r;
}
