#version 450
// Valid SPIR-V the front end rejects with a clean Unsupported error: a
// depth gather of a cube (cube sampling itself is supported).
layout(location = 1) in vec2 v_uv;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 1) uniform sampler2D tex;
layout(set = 0, binding = 2) uniform sampler2DShadow stex;
layout(set = 0, binding = 3) uniform samplerCubeShadow ctex;
layout(set = 0, binding = 4) uniform sampler2DArray atex;
void main()
{
    o_color = textureGather(ctex, vec3(v_uv, 1.0), 0.5);
}
