#version 450
// Valid SPIR-V the front end rejects: an atomic on a float storage image
// (imageAtomicExchange on r32f).
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r32f) uniform image2D img;
void main() { imageAtomicExchange(img, ivec2(0), 1.0); }
