#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// An opaque continuum's surface (dough, clay, rubber, sand): lit and shadowed like the meshes, with a soft rim
// toward the silhouette that stands in for light scattered under the surface of a soft solid.
layout(location = 0) in vec3 v_world_position;
layout(location = 1) in vec3 v_world_normal;
layout(location = 2) in vec4 v_color;
layout(location = 0) out vec4 out_color;

void main() {
  vec3 n = normalize(v_world_normal);
  vec3 to_eye = normalize(frame.eye.xyz - v_world_position);
  vec3 color = Shade(v_color.rgb, v_world_position, n);
  float rim = 1.0 - max(dot(n, to_eye), 0.0);
  color += v_color.rgb * frame.key_color.rgb * (0.12 * rim * rim);
  out_color = EncodeOutput(vec4(color, 1.0));
}
