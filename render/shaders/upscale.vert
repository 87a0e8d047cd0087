#version 450
// The whole target as two triangles, with v_uv running from 0 at the top-left corner to 1 at the bottom-right.
layout(location = 0) out vec2 v_uv;

const vec2 kCorners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(0, 1), vec2(0, 1), vec2(1, 0), vec2(1, 1));

void main() {
  v_uv = kCorners[gl_VertexIndex];
  gl_Position = vec4(v_uv * 2.0 - 1.0, 0.0, 1.0);
}
