#version 450
#extension GL_EXT_scalar_block_layout : require
// Scalar block layout (VK_EXT_scalar_block_layout): vec3s packed at 12-byte strides.
layout(set = 0, binding = 0, scalar) uniform Packed {
    vec3 a;       // 0
    vec3 b[2];    // 12, 24
    float c;      // 36
    vec2 d;       // 40
} u;
layout(location = 0) out vec4 v;
void main() {
    gl_Position = vec4(u.a + u.b[0] + u.b[1], u.c);
    v = vec4(u.d, u.c, 1.0);
}
