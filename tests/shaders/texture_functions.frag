#version 450
// Samplers and images passed to functions (glslang passes UniformConstant
// pointers), a combined sampler and a separate image + sampler.
layout(location = 1) in vec2 v_uv;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 1) uniform sampler2D tex;
layout(set = 0, binding = 2) uniform texture2D img;
layout(set = 0, binding = 3) uniform sampler smp;
vec4 twice(sampler2D s, vec2 uv) { return texture(s, uv) * 2.0; }
vec4 sep(texture2D t, sampler s, vec2 uv) { return texture(sampler2D(t, s), uv); }
void main() { o_color = twice(tex, v_uv) + sep(img, smp, v_uv); }
