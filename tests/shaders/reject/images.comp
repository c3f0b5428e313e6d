#version 450
// Valid SPIR-V the front end rejects: image atomics (imageAtomicAdd).
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D img;
void main() { imageAtomicAdd(img, ivec2(0), 1u); }
