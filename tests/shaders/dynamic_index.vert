#version 450
// Dynamic indexing of local arrays, vector components and input arrays.
layout(location = 0) in vec4 a;
layout(location = 1) in vec4 weights[3];
layout(location = 0) out vec4 v;
layout(location = 1) out float o[4];
void main() {
    float table[5] = float[5](1.0, 2.0, 3.0, 4.0, 5.0);
    int i = int(a.x) & 3;
    table[i] = a.y;
    vec4 w = weights[i % 3];
    w[i] = table[i + 1];
    gl_Position = w;
    v = vec4(table[4 - i]);
    o[i] = a.z;
    o[3 - i] = a.w;
}
