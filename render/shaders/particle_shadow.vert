#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// Particles into the shadow map: quads through the centre facing the key light (orthographic, so the silhouette is
// the radius), drawn as a four-vertex strip per instance.
layout(location = 0) in vec4 in_center_radius;  // xyz: centre [m]; w: radius [m].

layout(location = 0) out vec2 v_local;  // Position on the quad in radii.

const vec2 kCorners[4] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(-1, 1), vec2(1, 1));

void main() {
  vec3 axis = -frame.key_direction.xyz;
  vec3 helper = abs(axis.z) < 0.99 ? vec3(0.0, 0.0, 1.0) : vec3(1.0, 0.0, 0.0);
  vec3 right = normalize(cross(helper, axis));
  vec3 up = cross(axis, right);
  vec2 corner = kCorners[gl_VertexIndex];
  vec3 world = in_center_radius.xyz + (corner.x * right + corner.y * up) * in_center_radius.w;
  v_local = corner;
  gl_Position = frame.light_view_proj * vec4(world, 1.0);
}
