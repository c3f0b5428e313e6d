#version 450
// Eight render targets of mixed kinds from one flat colour
// (tests/jm_graphics.rs): RGBA8 UNORM, R32 UINT, R32 SINT, RGBA16F,
// RGB10A2 UNORM, R8 UNORM, RGBA32F, RGBA32 UINT.
layout(location = 0) flat in vec4 v_color;
layout(location = 0) out vec4 o0;
layout(location = 1) out uint o1;
layout(location = 2) out int o2;
layout(location = 3) out vec4 o3;
layout(location = 4) out vec4 o4;
layout(location = 5) out vec4 o5;
layout(location = 6) out vec4 o6;
layout(location = 7) out uvec4 o7;
void main()
{
    o0 = v_color;
    o1 = uint(v_color.r * 1000.0) + 70000u;
    o2 = -int(v_color.g * 1000.0) - 7;
    o3 = v_color * 4.0 - 1.0;
    o4 = v_color.abgr;
    o5 = vec4(1.0 - v_color.b);
    o6 = v_color * v_color;
    o7 = uvec4(v_color * 255.0) * 3u;
}
