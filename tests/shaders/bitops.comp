#version 450
// Integer and bit operations.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer B { uint u[]; } b;
layout(set = 0, binding = 1) buffer C { int i[]; } c;
void main() {
    uint x = b.u[gl_GlobalInvocationID.x];
    int y = c.i[gl_GlobalInvocationID.x];
    uint r = bitfieldExtract(x, 3, 5) + bitfieldInsert(x, 7u, 4, 3) + bitfieldReverse(x) + uint(bitCount(x));
    r += uint(findLSB(x)) + uint(findMSB(x)) + uint(findMSB(y)) + (x << 3) + (x >> 2) + uint(y >> 1);
    r ^= ~x | (x & 0xf0u);
    int s = y / 3 + y % 5 + abs(y) + sign(y) + min(y, 2) + max(y, -2) + clamp(y, -8, 8);
    uint carry;
    uint sum = uaddCarry(x, r, carry);
    uint hi, lo;
    umulExtended(x, r, hi, lo);
    b.u[gl_GlobalInvocationID.x] = r + sum + carry + hi + lo + x / 7u + x % 9u;
    c.i[gl_GlobalInvocationID.x] = s;
}
