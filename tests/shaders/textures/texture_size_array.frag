#version 450
// textureSize of a 2D array (rejected before gfx-tex4; now the layer
// count from the size word's high half: tests/spirv_frontend.rs).
layout(location = 1) in vec2 v_uv;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 1) uniform sampler2D tex;
layout(set = 0, binding = 2) uniform sampler2DShadow stex;
layout(set = 0, binding = 3) uniform samplerCube ctex;
layout(set = 0, binding = 4) uniform sampler2DArray atex;
void main()
{
    o_color = vec4(textureSize(atex, 0), 0);
}
