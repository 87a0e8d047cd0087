#version 450
// A triangle covering the screen at the far plane (depth 1, so that drawn last with the depth test it fills only
// what nothing else covers); v_t is 0 at the top edge and 1 at the bottom.
layout(location = 0) out float v_t;

void main() {
  vec2 corner = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
  v_t = corner.y;
  gl_Position = vec4(corner * 2.0 - 1.0, 1.0, 1.0);
}
