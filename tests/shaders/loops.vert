#version 450
// Nested loops with break and continue, a do-while and a while.
layout(location = 0) in vec4 a;
layout(location = 0) out vec4 v;
void main() {
    vec4 acc = vec4(0.0);
    for (int i = 0; i < 8; i++) {
        if (i == 2) continue;
        for (int j = 0; j < 4; j++) {
            if (j > i) break;
            acc += a * float(j);
        }
        if (acc.x > 100.0) break;
    }
    int k = 0;
    do { acc.y += 1.0; k++; } while (k < 3);
    while (acc.z < 10.0) { acc.z += a.z + 1.0; }
    gl_Position = acc;
    v = acc * 0.5;
}
