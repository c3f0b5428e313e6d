#version 450
// A clip-space position and four integers per vertex (given as floats with
// integer values), for the integer colour targets (tests/jm_graphics.rs).
layout(location = 0) in vec4 in_pos;
layout(location = 1) in vec4 in_value;
layout(location = 0) flat out ivec4 v_value;
void main()
{
    v_value = ivec4(in_value);
    gl_Position = in_pos;
}
