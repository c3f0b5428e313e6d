#version 450
// A cube map sampled with an implicit LOD in a fragment shader (TEXC with
// LOD mode COMPUTE and dimension Cube; tests/jm_graphics.rs): the
// direction is the interpolated colour varying of clip_rgba.vert.
layout(location = 0) in vec4 v_dir;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 2) uniform samplerCube tex;
void main()
{
    o_color = texture(tex, v_dir.xyz);
}
