#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// Sphere impostor: intersects the eye ray through this fragment with the particle's sphere, shades the hit point
// and writes its depth, so particles intersect meshes and each other correctly. The alpha is the pixel's coverage of
// the silhouette, turned into MSAA samples by alpha-to-coverage (anti-aliased edges without blending).
layout(location = 0) in vec3 v_world_position;
layout(location = 1) flat in vec4 v_center_radius;
layout(location = 2) flat in vec4 v_color;
layout(location = 0) out vec4 out_color;

void main() {
  vec3 center = v_center_radius.xyz;
  float radius = v_center_radius.w;
  vec3 origin = frame.eye.xyz;
  vec3 direction = normalize(v_world_position - origin);
  vec3 to_origin = origin - center;
  float b = dot(to_origin, direction);
  // Distance from the centre to the ray, computed without the cancellation of b^2 - c for small, far spheres.
  vec3 closest = to_origin - b * direction;
  float miss_distance = length(closest);
  float coverage = clamp((radius - miss_distance) / max(fwidth(miss_distance), 1e-9) + 0.5, 0.0, 1.0);
  if (coverage <= 0.0) discard;
  float h = sqrt(max(radius * radius - miss_distance * miss_distance, 0.0));
  vec3 hit = origin + (-b - h) * direction;
  vec3 normal = normalize(hit - center);
  vec4 clip = frame.view_proj * vec4(hit, 1.0);
  gl_FragDepth = clip.z / clip.w;
  out_color = EncodeOutput(vec4(Shade(v_color.rgb, hit, normal), coverage));
}
