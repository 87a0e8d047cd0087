#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "particles.glsl"

// Three vertices per particle (vertex 3 p + corner): a triangle facing the camera around the sphere's silhouette,
// inside which particle.frag ray-casts the sphere. One triangle rather than a quad: on CPU devices setting up
// triangles costs more than the extra fragments, most of which the depth test rejects. The triangle lies in the plane
// that touches the sphere at its point nearest the eye, so its depth is nowhere behind the sphere's surface: the
// depth test can run before the fragment shader (the sphere's exact depth, when written, is never nearer than the
// triangle's: depth_greater).
layout(location = 0) out vec3 v_world_position;
layout(location = 1) flat out vec4 v_center_radius;
layout(location = 2) flat out vec4 v_color;

// An equilateral triangle around the unit circle (circumradius 2).
const vec2 kCorners[3] = vec2[](vec2(0.0, 2.0), vec2(-1.7320508, -1.0), vec2(1.7320508, -1.0));

void main() {
  Particle particle = particles[gl_VertexIndex / 3];
  vec4 in_center_radius = particle.center_radius;
  vec3 center = in_center_radius.xyz;
  float radius = in_center_radius.w;
  vec3 to_eye = frame.eye.xyz - center;
  float distance_to_eye = length(to_eye);
  v_center_radius = in_center_radius;
  v_color = particle.color;
  if (distance_to_eye <= radius * 1.001) {
    // The camera is inside the sphere: nothing to draw (a degenerate triangle outside the clip volume).
    v_world_position = center;
    gl_Position = vec4(0.0, 0.0, -1.0, 1.0);
    return;
  }
  vec3 axis = to_eye / distance_to_eye;
  // The silhouette is the cone from the eye tangent to the sphere, half angle asin(r / d); on the tangent plane at
  // the nearest point, d - r from the eye, it is a circle of radius (d - r) r / sqrt(d^2 - r^2).
  float half_size = radius * (distance_to_eye - radius) / sqrt(distance_to_eye * distance_to_eye - radius * radius);
  vec3 helper = abs(axis.z) < 0.99 ? vec3(0.0, 0.0, 1.0) : vec3(1.0, 0.0, 0.0);
  vec3 right = normalize(cross(helper, axis));
  vec3 up = cross(axis, right);
  vec2 corner = kCorners[gl_VertexIndex % 3];
  vec3 world = center + axis * radius + (corner.x * right + corner.y * up) * half_size;
  v_world_position = world;
  gl_Position = frame.view_proj * vec4(world, 1.0);
}
