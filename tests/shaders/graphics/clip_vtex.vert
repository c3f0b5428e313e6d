#version 450
// Vertex-stage texturing: the colour is textureLod of a combined image
// sampler at the vertex's (u, v) and LOD (tests/jm_graphics.rs).
layout(location = 0) in vec4 in_pos;
layout(location = 1) in vec4 in_uv;
layout(location = 0) out vec4 v_color;
layout(set = 0, binding = 2) uniform sampler2D tex;
void main()
{
    v_color = textureLod(tex, in_uv.xy, in_uv.z);
    gl_Position = in_pos;
}
