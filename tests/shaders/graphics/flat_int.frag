#version 450
// The provoking vertex's integers to a signed integer colour target
// (tests/jm_graphics.rs).
layout(location = 0) flat in ivec4 v_value;
layout(location = 0) out ivec4 o_value;
void main()
{
    o_value = v_value;
}
