#version 450
// Matrix arithmetic: products, transpose, determinant, outer product, scaling.
layout(location = 0) in vec4 a;
layout(location = 1) in vec3 n;
layout(location = 0) out vec4 v;
layout(location = 1) out vec3 v_n;
void main() {
    mat4 m = mat4(1.0);
    m[3] = a;
    mat4 t = transpose(m) * 2.0;
    mat3 o = outerProduct(n, n);
    mat2 d2 = mat2(a.xy, a.zw);
    gl_Position = m * t * a;
    v = a * m + vec4(determinant(mat3(m)), determinant(d2), determinant(m), 0.0);
    v_n = o * n + mat3(m) * n;
}
