#version 450
// Every 32-bit scalar and vector type captured, packed into one buffer.
layout(xfb_buffer = 0, xfb_stride = 144) out;
layout(location = 0, xfb_offset = 0) out float o_f1;
layout(location = 1, xfb_offset = 4) out vec2 o_f2;
layout(location = 2, xfb_offset = 12) out vec3 o_f3;
layout(location = 3, xfb_offset = 24) out vec4 o_f4;
layout(location = 4, xfb_offset = 40) flat out int o_i1;
layout(location = 5, xfb_offset = 44) flat out ivec2 o_i2;
layout(location = 6, xfb_offset = 52) flat out ivec3 o_i3;
layout(location = 7, xfb_offset = 64) flat out ivec4 o_i4;
layout(location = 8, xfb_offset = 80) flat out uint o_u1;
layout(location = 9, xfb_offset = 84) flat out uvec2 o_u2;
layout(location = 10, xfb_offset = 92) flat out uvec3 o_u3;
layout(location = 11, xfb_offset = 104) flat out uvec4 o_u4;
layout(location = 0) in vec4 a;
void main() {
    gl_Position = a;
    o_f1 = a.x;
    o_f2 = a.xy;
    o_f3 = a.xyz;
    o_f4 = a;
    o_i1 = int(a.x);
    o_i2 = ivec2(a.xy);
    o_i3 = ivec3(a.xyz);
    o_i4 = ivec4(a);
    o_u1 = uint(a.x);
    o_u2 = uvec2(a.xy);
    o_u3 = uvec3(a.xyz);
    o_u4 = uvec4(a);
}
