#version 450
// Physical storage buffer pointers, second part: a self-referential block
// (OpTypeForwardPointer), pointers stored into memory and the null pointer,
// a pointer-typed loop variable walking a linked list, a pointer argument,
// a select between pointers, atomics through a pointer. The harness stores
// the addresses of bindings 0 and 1 in the push constants; each invocation
// builds its own list of four 16-byte nodes at byte 64g of binding 0 (in
// reverse order for odd g) and walks it.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 16) in;

layout(buffer_reference) buffer Node;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Node {
    Node next;
    uint value;
    uint visits;
};
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float f[]; };

layout(std430, set = 0, binding = 0) buffer Heap { uint words[]; } heap;
layout(std430, set = 0, binding = 1) buffer Out { uint o[]; } outb;

layout(push_constant) uniform PC {
    Node nodes;
    Floats results;
} pc;

float twice(Floats p, uint i)
{
    return p.f[i] * 2.0;
}

void main()
{
    uint g = gl_GlobalInvocationID.x;
    uint l = gl_LocalInvocationIndex;
    bool odd = (g & 1u) != 0u;
    uint64_t base = uint64_t(pc.nodes) + uint64_t(64u * g);
    for (uint k = 0u; k < 4u; k++) {
        Node n = Node(base + uint64_t(16u * k));
        uint next = odd ? k - 1u : k + 1u;
        n.next = next < 4u ? Node(base + uint64_t(16u * next)) : Node(0ul);
    }
    Node head = Node(base + (odd ? 48ul : 0ul));
    uint sum = 0u;
    uint count = 0u;
    for (Node n = head; uint64_t(n) != 0ul; n = n.next) {
        count++;
        sum += n.value * count;
        atomicAdd(n.visits, count);
    }
    Floats r = pc.results;
    Floats mine = (l & 1u) != 0u ? r : Floats(uint64_t(r) + 4ul);
    float t = twice(r, 2u * g);
    mine.f[2u * g] = t;
    outb.o[64u + g] = sum;
    outb.o[96u + g] = count + heap.words[16u * g + 3u];
}
