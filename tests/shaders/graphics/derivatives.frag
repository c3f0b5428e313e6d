#version 450
// Derivatives of the interpolated attribute (tests/jm_graphics.rs): fine
// (the plain form), coarse and fwidth, of the attribute itself and of
// products of it (not affine: fine and coarse differ).
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 o;
void main()
{
    o.x = dFdx(v.x);
    o.y = dFdyFine(v.x * v.y);
    o.z = dFdxCoarse(v.z * v.z) + 2.0 * dFdyCoarse(v.y);
    o.w = fwidth(v.w * v.x);
}
