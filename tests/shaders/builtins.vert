#version 460
// Vertex built-ins: vertex/instance index, base vertex/instance, point size, cull distance.
layout(location = 0) in vec4 a;
layout(location = 0) flat out ivec4 ids;
out gl_PerVertex {
    vec4 gl_Position;
    float gl_PointSize;
    float gl_ClipDistance[1];
    float gl_CullDistance[1];
};
void main() {
    ids = ivec4(gl_VertexIndex, gl_InstanceIndex, gl_BaseVertex, gl_BaseInstance);
    gl_Position = a + vec4(float(gl_VertexIndex));
    gl_PointSize = 1.0;
    gl_ClipDistance[0] = a.x;
    gl_CullDistance[0] = a.y;
}
