#version 450
// Specialization constants of every scalar kind used in control flow and arithmetic.
layout(constant_id = 0) const int ITERATIONS = 4;
layout(constant_id = 1) const float SCALE = 1.5;
layout(constant_id = 2) const bool USE_TINT = false;
layout(constant_id = 3) const uint MASK = 0xffu;
layout(location = 0) in vec4 a;
layout(location = 0) out vec4 v;
void main() {
    vec4 acc = vec4(0.0);
    for (int i = 0; i < ITERATIONS; i++) acc += a * SCALE;
    if (USE_TINT) acc *= vec4(1.0, 0.0, 0.0, 1.0);
    gl_Position = acc;
    v = vec4(float(MASK & 0x0fu));
}
