#version 450
// textureGrad in a fragment shader (rejected before gfx-tex4; now an
// explicit LOD computed from the gradients: tests/spirv_frontend.rs).
layout(location = 1) in vec2 v_uv;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 1) uniform sampler2D tex;
layout(set = 0, binding = 2) uniform sampler2DShadow stex;
layout(set = 0, binding = 3) uniform samplerCube ctex;
layout(set = 0, binding = 4) uniform sampler2DArray atex;
void main()
{
    o_color = textureGrad(tex, v_uv, vec2(0.1), vec2(0.1));
}
