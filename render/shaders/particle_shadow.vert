#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "particles.glsl"

// Particles into the shadow map: each is the disc through its centre facing the key light (orthographic, so the
// silhouette is the radius), drawn as one triangle around the disc whose corners outside the disc
// particle_shadow.frag discards. One triangle rather than a quad or a polygon: on CPU devices the cost of a
// particle's shadow is mostly the cost of setting up its triangles. The hemisphere facing the light is in front of
// the disc (lit), the other faces away from the light anyway, and whatever lies behind it is shadowed. Three
// vertices per particle: vertex 3 p + corner.
layout(location = 0) out vec2 v_local;  // Position in the disc's plane [radii].

// An equilateral triangle around the unit circle (circumradius 2), in radii.
const vec2 kCorners[3] = vec2[](vec2(0.0, 2.0), vec2(-1.7320508, -1.0), vec2(1.7320508, -1.0));

void main() {
  vec3 axis = -frame.key_direction.xyz;
  vec3 helper = abs(axis.z) < 0.99 ? vec3(0.0, 0.0, 1.0) : vec3(1.0, 0.0, 0.0);
  vec3 right = normalize(cross(helper, axis));
  vec3 up = cross(axis, right);
  vec4 center_radius = particles[gl_VertexIndex / 3].center_radius;
  vec2 corner = kCorners[gl_VertexIndex % 3];
  v_local = corner;
  vec3 world = center_radius.xyz + (corner.x * right + corner.y * up) * center_radius.w;
  gl_Position = frame.light_view_proj * vec4(world, 1.0);
}
