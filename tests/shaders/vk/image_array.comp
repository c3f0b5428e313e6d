#version 450
// 2D-array storage images (sim_textures.rs::storage_images_store_and_load_like_the_vulkan_rules):
// invocation i stores q[i].value at q[i].store (x, y, layer) of image 0,
// loads texel q[i].load of image 1 and writes it to o[i].
layout(local_size_x = 16) in;
layout(set = 0, binding = 0, rgba8) uniform writeonly image2DArray dst;
layout(set = 0, binding = 1, rgba8) uniform readonly image2DArray src;
struct Query { ivec4 store; ivec4 load; vec4 value; };
layout(std430, set = 0, binding = 3) readonly buffer Q { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer O { vec4 o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    imageStore(dst, q[i].store.xyz, q[i].value);
    o[i] = imageLoad(src, q[i].load.xyz);
}
