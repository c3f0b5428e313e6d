#version 450
// clip_position.vert moved and darkened per instance: gl_InstanceIndex
// (instance id + firstInstance) shifts x by a quarter and y by an eighth
// of w per instance and scales the colour by 1 - I/8 (exact in f32 on the
// test's grids; tests/jm_graphics.rs: instanced draws).
layout(location = 0) in vec4 in_pos;
layout(location = 1) in vec3 in_color;
layout(location = 0) out vec3 v_color;
void main()
{
    float i = float(gl_InstanceIndex);
    v_color = in_color * (1.0 - 0.125 * i);
    gl_Position = in_pos + vec4(0.25 * i * in_pos.w, 0.125 * i * in_pos.w, 0.0, 0.0);
}
