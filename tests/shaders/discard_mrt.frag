#version 450
// Every interpolation qualifier, a conditional discard and two render
// targets of different types (float and unsigned).
layout(location = 0) in vec4 v_color;
layout(location = 1) flat in ivec2 v_id;
layout(location = 2) noperspective in float v_fade;
layout(location = 3) centroid in vec2 v_uv;
layout(location = 4) sample in float v_weight;
layout(location = 5, component = 1) in vec2 v_packed;

layout(location = 0) out vec4 o_color;
layout(location = 2) out uvec2 o_id;

void main()
{
    if (v_color.a * v_fade < 0.25)
        discard;
    o_color = vec4(v_color.rgb * v_weight, v_uv.x + v_packed.y);
    o_id = uvec2(v_id) + uvec2(1, 2);
}
