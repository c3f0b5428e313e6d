#version 450
// OpSpecConstantOp (spec-constant arithmetic) and a spec-constant workgroup size.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;
layout(constant_id = 2) const int COUNT = 3;
const int N = COUNT * 2 + 1;
const uint SHIFTED = uint(COUNT) << 4;
layout(set = 0, binding = 0) buffer B { int data[]; } b;
void main() {
    int acc = 0;
    for (int i = 0; i < N; i++) acc += i;
    b.data[gl_LocalInvocationIndex] = acc + int(SHIFTED) + int(gl_WorkGroupSize.x);
}
