#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// One instance per particle, a four-vertex strip (two triangles) of a quad facing the camera that covers the sphere's
// silhouette; particle.frag ray-casts the sphere inside it.
layout(location = 0) in vec4 in_center_radius;  // xyz: centre [m]; w: radius [m].
layout(location = 1) in vec4 in_color;

layout(location = 0) out vec3 v_world_position;
layout(location = 1) flat out vec4 v_center_radius;
layout(location = 2) flat out vec4 v_color;

const vec2 kCorners[4] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(-1, 1), vec2(1, 1));

void main() {
  vec3 center = in_center_radius.xyz;
  float radius = in_center_radius.w;
  vec3 to_eye = frame.eye.xyz - center;
  float distance_to_eye = length(to_eye);
  v_center_radius = in_center_radius;
  v_color = in_color;
  if (distance_to_eye <= radius * 1.001) {
    // The camera is inside the sphere: nothing to draw (a degenerate triangle outside the clip volume).
    v_world_position = center;
    gl_Position = vec4(0.0, 0.0, -1.0, 1.0);
    return;
  }
  vec3 axis = to_eye / distance_to_eye;
  // The silhouette is the cone from the eye tangent to the sphere, half angle asin(r / d); on the plane through the
  // centre perpendicular to the axis it is a circle of radius r d / sqrt(d^2 - r^2).
  float half_size = radius * distance_to_eye / sqrt(distance_to_eye * distance_to_eye - radius * radius);
  vec3 helper = abs(axis.z) < 0.99 ? vec3(0.0, 0.0, 1.0) : vec3(1.0, 0.0, 0.0);
  vec3 right = normalize(cross(helper, axis));
  vec3 up = cross(axis, right);
  vec2 corner = kCorners[gl_VertexIndex];
  vec3 world = center + (corner.x * right + corner.y * up) * half_size;
  v_world_position = world;
  gl_Position = frame.view_proj * vec4(world, 1.0);
}
