#version 450
// Early returns from inside loops and branches in called functions and main.
layout(location = 0) in vec4 a;
layout(location = 0) out vec4 v;
float find_first(vec4 x, float threshold) {
    for (int i = 0; i < 4; i++) {
        if (x[i] > threshold) return float(i);
    }
    return -1.0;
}
vec4 pick(vec4 x) {
    if (x.w < 0.0) return vec4(0.0);
    return x;
}
void main() {
    gl_Position = pick(a);
    v = vec4(find_first(a, 0.5));
    if (a.x == 0.0) return;
    v.x += 1.0;
}
