#version 450
// Mesa's fs_textured with a LOD bias (`texture(tex, uv, bias)`: TEXC with
// LOD mode BIAS) at binding 9 (tests/jm_graphics.rs).
layout(location = 0) in vec4 v_color;
layout(location = 1) in vec2 v_uv;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 9) uniform sampler2D tex;
void main()
{
    o_color = texture(tex, v_uv, 0.75) * v_color;
}
