#version 450
// A clip-space position and (u, v, g, a) per vertex for the textured
// scenes (tests/jm_graphics.rs): the varyings Mesa's fs_textured reads,
// v_color = (1, g, 1 - g, a) at location 0 and v_uv = (u, v) at 1, both
// linear in the attribute, so the reference interpolates the attribute.
layout(location = 0) in vec4 in_pos;
layout(location = 1) in vec4 in_data;
layout(location = 0) out vec4 v_color;
layout(location = 1) out vec2 v_uv;
void main()
{
    v_color = vec4(1.0, in_data.z, 1.0 - in_data.z, in_data.w);
    v_uv = in_data.xy;
    gl_Position = in_pos;
}
