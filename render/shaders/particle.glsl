// The sphere impostor fragment shader shared by particle.frag and particle_flat_depth.frag; included after
// common.glsl.

// Sphere impostor: intersects the eye ray through this fragment with the particle's sphere and shades the hit point.
// The alpha is the pixel's coverage of the silhouette, turned into MSAA samples by alpha-to-coverage (anti-aliased
// edges without blending).
//
// Depth: particle.frag writes the hit point's depth, so particles intersect meshes and each other exactly; it is
// never nearer than the triangle's (particle.vert), which lets GPUs keep their early depth test. CPU devices
// (lavapipe) test depth after any shader that writes it, so they use particle_flat_depth.frag (PARTICLE_FLAT_DEPTH
// defined), where the particle keeps the triangle's depth, the plane touching the sphere at its nearest point: the
// depth test then rejects hidden particles before shading (they are drawn front to back), at the cost of
// intersections with meshes that are off by up to a radius.
#ifndef PARTICLE_FLAT_DEPTH
layout(depth_greater) out float gl_FragDepth;
#endif
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
#ifndef PARTICLE_FLAT_DEPTH
  vec4 clip = frame.view_proj * vec4(hit, 1.0);
  gl_FragDepth = clip.z / clip.w;
#endif
  out_color = EncodeOutput(vec4(Shade(v_color.rgb, hit, normal), coverage));
}
