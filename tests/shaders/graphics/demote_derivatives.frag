#version 450
#extension GL_EXT_demote_to_helper_invocation : require
// derivatives.frag after demoting the lower-right pixel of every 2x2 quad
// (tests/jm_graphics.rs): a demoted invocation writes nothing but stays
// in its quad as a helper, so the derivatives of the other three still
// see its values (Vulkan's OpDemoteToHelperInvocation).
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 o;
void main()
{
    ivec2 p = ivec2(gl_FragCoord.xy);
    if ((p.x & 1) == 1 && (p.y & 1) == 1)
        demote;
    o.x = dFdx(v.x);
    o.y = dFdyFine(v.x * v.y);
    o.z = dFdxCoarse(v.z * v.z) + 2.0 * dFdyCoarse(v.y);
    o.w = fwidth(v.w * v.x);
}
