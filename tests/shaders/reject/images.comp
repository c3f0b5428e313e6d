#version 450
// Valid SPIR-V the front end rejects: storage images (imageStore).
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r32f) uniform image2D img;
void main() { imageStore(img, ivec2(0), vec4(1.0)); }
