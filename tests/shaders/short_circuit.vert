#version 450
// Short-circuit logic: glslang emits OpPhi for && and || with side effects.
layout(location = 0) in vec4 a;
layout(location = 0) out vec4 v;
int counter = 0;
bool bump(bool r) { counter++; return r; }
void main() {
    bool p = a.x > 0.0 && bump(a.y > 0.0);
    bool q = a.z > 0.0 || bump(a.w > 0.0);
    gl_Position = a;
    v = vec4(p ? 1.0 : 0.0, q ? 1.0 : 0.0, float(counter), a.x > 1.0 ? a.y : a.z);
}
