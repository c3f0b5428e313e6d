#version 450
#extension GL_EXT_demote_to_helper_invocation : require
// demote (compiled as discard) after a loop, and a signed integer output.
layout(location = 0) in vec2 v_uv;
layout(location = 0) out ivec4 o_value;
void main()
{
    int n = 0;
    for (int i = 0; i < 4; i++) {
        if (v_uv.x > float(i))
            n += i;
    }
    if (v_uv.y < 0.0)
        demote;
    o_value = ivec4(n, -n, int(v_uv.x), 7);
}
