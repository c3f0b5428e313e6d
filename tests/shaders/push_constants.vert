#version 450
// Push constants: a matrix, a vector and a scalar.
layout(push_constant) uniform PC {
    mat4 mvp;
    vec4 tint;
    uint mode;
} pc;
layout(location = 0) in vec4 a_position;
layout(location = 0) out vec4 v_color;
void main() {
    gl_Position = pc.mvp * a_position;
    v_color = pc.mode == 1u ? pc.tint : vec4(1.0);
}
