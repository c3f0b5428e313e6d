#version 450
// Valid SPIR-V the front end rejects with a clean Unsupported error.
layout(location = 1) in vec2 v_uv;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 1) uniform sampler3D tex;
void main()
{
    o_color = texture(tex, vec3(v_uv, 0.5));
}
