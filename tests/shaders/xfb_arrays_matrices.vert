#version 450
// Captured arrays, a matrix and a struct: each flattened slot keeps its own offset.
struct Pair { vec2 a; float b; };
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 112) out float o_arr[3];
layout(location = 3, xfb_buffer = 0, xfb_offset = 12) out mat3 o_mat;
layout(location = 6, xfb_buffer = 0, xfb_offset = 48) out vec4 o_vecs[2];
layout(location = 8, xfb_buffer = 0, xfb_offset = 80) out Pair o_pair;
layout(location = 0) in vec4 a;
void main() {
    gl_Position = a;
    for (int i = 0; i < 3; i++) o_arr[i] = a[i];
    o_mat = mat3(a.xyz, a.yzx, a.zxy);
    o_vecs[0] = a;
    o_vecs[1] = -a;
    o_pair.a = a.xy;
    o_pair.b = a.w;
}
