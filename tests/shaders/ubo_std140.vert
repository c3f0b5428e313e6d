#version 450
// A std140 UBO: vec3 + float packing, arrays with 16-byte stride, row-major matrix.
struct Light { vec3 dir; float intensity; };
layout(set = 0, binding = 0, std140) uniform Scene {
    mat4 view;
    layout(row_major) mat4 proj;
    Light lights[4];
    float scales[3];
    vec3 ambient;
    float time;
} scene;
layout(set = 1, binding = 2) uniform Material { vec4 albedo; } material;
layout(location = 0) in vec4 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 0) out vec4 v_color;
void main() {
    gl_Position = scene.proj * scene.view * a_position;
    vec3 c = scene.ambient;
    for (int i = 0; i < 4; i++)
        c += max(dot(a_normal, scene.lights[i].dir), 0.0) * scene.lights[i].intensity * scene.scales[i % 3];
    v_color = vec4(c, 1.0) * material.albedo * sin(scene.time);
}
