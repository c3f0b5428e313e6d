#version 450
// Storage images (sim_textures.rs::storage_images_store_and_load_like_the_vulkan_rules):
// invocation i stores q[i].value at q[i].store_xy of image 0, loads texel
// q[i].load_xy of image 1 and writes it to o[i]. The format qualifier names
// the family; the image's descriptor holds the format it converts to.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0, r32ui) uniform writeonly uimage2D dst;
layout(set = 0, binding = 1, r32ui) uniform readonly uimage2D src;
struct Query { ivec2 store_xy; ivec2 load_xy; uvec4 value; };
layout(std430, set = 0, binding = 3) readonly buffer Q { Query q[]; };
layout(std430, set = 0, binding = 4) writeonly buffer O { uvec4 o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    imageStore(dst, q[i].store_xy, q[i].value);
    o[i] = imageLoad(src, q[i].load_xy);
}
