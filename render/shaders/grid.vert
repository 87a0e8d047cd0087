#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// The ground square: 2 x half extent on a side at z = height, centred on the camera target.
layout(location = 0) out vec3 v_world_position;

const vec2 kCorners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));

void main() {
  vec2 xy = frame.grid_center.xy + kCorners[gl_VertexIndex] * frame.grid.z;
  v_world_position = vec3(xy, frame.grid.x);
  gl_Position = frame.view_proj * vec4(v_world_position, 1.0);
}
