#version 450
// Implicit-LOD sampling of a combined image sampler, modulated by a
// varying (as Mesa's fs_textured), plus a texel fetch.
layout(location = 0) in vec4 v_color;
layout(location = 1) in vec2 v_uv;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 1) uniform sampler2D tex;
void main()
{
    o_color = texture(tex, v_uv) * v_color + texelFetch(tex, ivec2(1, 2), 0) * 0.25;
}
