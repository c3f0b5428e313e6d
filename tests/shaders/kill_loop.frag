#version 450
// discard inside a loop: the rest of the invocation never runs.
layout(location = 0) flat in int v_count;
layout(location = 0) out vec4 o_color;
void main()
{
    float acc = 0.0;
    for (int i = 0; i < v_count; i++) {
        acc += 0.25;
        if (acc > 1.0)
            discard;
    }
    o_color = vec4(acc);
}
