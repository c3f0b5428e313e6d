#version 450
#extension GL_ARB_gpu_shader_int64 : require
// 64-bit integers and doubles in an SSBO.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint64_t a; int64_t b; double c; dvec2 d; } buf;
void main() {
    buf.a = buf.a * 3ul + uint64_t(buf.b);
    buf.b = buf.b >> 2;
    buf.c = buf.c * 0.5 + double(buf.a);
    buf.d = buf.d.yx + dvec2(buf.c);
}
