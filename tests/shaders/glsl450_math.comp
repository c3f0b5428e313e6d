#version 450
// The GLSL.std.450 set a compute shader uses.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { vec4 v[]; } b;
void main() {
    vec4 x = b.v[0];
    vec4 y = b.v[1];
    vec4 r = abs(x) + sign(x) + floor(x) + ceil(x) + fract(x) + round(x) + trunc(x);
    r += min(x, y) + max(x, y) + clamp(x, 0.0, 1.0) + mix(x, y, 0.3) + step(0.5, x) + smoothstep(0.0, 1.0, x);
    r += sqrt(x) + inversesqrt(y) + exp(x) + exp2(x) + log(y) + log2(y) + pow(x, y);
    r += sin(x) + cos(x) + tan(x) + asin(x) + acos(x) + atan(x) + atan(x, y);
    r += sinh(x) + cosh(x) + tanh(x) + radians(x) + degrees(y);
    r += fma(x, y, r) + vec4(length(x), distance(x, y), dot(x, y), 0.0);
    r.xyz += cross(x.xyz, y.xyz) + normalize(y.xyz) + reflect(x.xyz, y.xyz) + refract(x.xyz, y.xyz, 0.7) + faceforward(x.xyz, y.xyz, x.xyz);
    ivec4 e;
    vec4 m = frexp(x, e);
    r += ldexp(m, e) + modf(x, y);
    b.v[2] = r;
    b.v[3] = vec4(uintBitsToFloat(packHalf2x16(x.xy)), uintBitsToFloat(packUnorm4x8(x)), uintBitsToFloat(packSnorm2x16(y.xy)), 0.0);
    b.v[4] = vec4(unpackHalf2x16(floatBitsToUint(x.x)), unpackSnorm2x16(floatBitsToUint(x.y)));
    b.v[5] = unpackUnorm4x8(floatBitsToUint(y.z)) + unpackSnorm4x8(floatBitsToUint(y.w));
}
