#version 450
// 64-bit integer arithmetic (shaderInt64): every operation of
// GL_ARB_gpu_shader_int64 that needs no fp64, per invocation on one pair
// of operands. Run through the loader by tests/int64.rs; the corpus tests
// run it on the simulator against the reference interpreter.
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 8) in;

layout(set = 0, binding = 0) readonly buffer In {
    i64vec2 pairs[];
};
layout(set = 0, binding = 1) writeonly buffer Out {
    uint64_t r[];
};

const uint N = 24;

void main() {
    uint i = gl_GlobalInvocationID.x;
    int64_t a = pairs[i].x;
    int64_t b = pairs[i].y;
    uint64_t ua = uint64_t(a);
    uint64_t ub = uint64_t(b);
    uint o = i * N;
    r[o + 0] = uint64_t(a + b);
    r[o + 1] = uint64_t(a - b);
    r[o + 2] = uint64_t(a * b);
    r[o + 3] = uint64_t(a / b);
    r[o + 4] = uint64_t(a % b);
    r[o + 5] = ua / ub;
    r[o + 6] = ua % ub;
    r[o + 7] = uint64_t(a << (b & 63));
    r[o + 8] = uint64_t(a >> (b & 63));
    r[o + 9] = ua >> (ub & 63);
    r[o + 10] = ua & ub | (ua ^ ~ub);
    r[o + 11] = uint64_t(-a);
    r[o + 12] = uint64_t(abs(a));
    r[o + 13] = uint64_t(sign(a));
    r[o + 14] = uint64_t(min(a, b)) ^ (max(ua, ub) << 1);
    r[o + 15] = uint64_t(clamp(a, int64_t(-1000), int64_t(1000)));
    r[o + 16] = uint64_t(floatBitsToUint(float(a)));
    r[o + 17] = uint64_t(floatBitsToUint(float(ua)));
    r[o + 18] = uint64_t(int64_t(float(int(a)) * 0.5));
    r[o + 19] = uint64_t(int(a)) | uint64_t(uint(b)) << 32;
    r[o + 20] = packUint2x32(unpackUint2x32(ua).yx);
    r[o + 21] = uint64_t((a < b ? 1 : 0) | (ua < ub ? 2 : 0) | (a == b ? 4 : 0) | (a >= b ? 8 : 0));
    r[o + 22] = uint64_t(mix(a, b, a > b));
    r[o + 23] = uint64_t(uint64_t(uint(ua)) * 0x100000001ul);
}
