#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// The ground square (2 x half extent on a side at z = height, centred on the camera target) as triangles whose
// corners the renderer computes: the part the key light's shadow map covers and the rest, in separate draws.
layout(location = 0) in vec2 in_xy;  // [m].
layout(location = 0) out vec3 v_world_position;

void main() {
  v_world_position = vec3(in_xy, frame.grid.x);
  gl_Position = frame.view_proj * vec4(v_world_position, 1.0);
}
