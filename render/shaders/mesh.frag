#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(location = 0) in vec3 v_world_position;
layout(location = 1) in vec3 v_world_normal;
layout(location = 2) flat in vec4 v_color;
layout(location = 3) flat in float v_selected;
layout(location = 0) out vec4 out_color;

// Selection highlight: an orange tint plus a rim that brightens the silhouette.
const vec3 kSelectionColor = vec3(1.0, 0.45, 0.05);

void main() {
  vec3 n = normalize(v_world_normal);
  // Meshes are drawn without culling (imported meshes may wind either way): light the side the camera sees.
  vec3 to_eye = normalize(frame.eye.xyz - v_world_position);
  if (dot(n, to_eye) < 0.0) n = -n;
  vec3 color = Shade(v_color.rgb, v_world_position, n);
  if (v_selected > 0.5) {
    float rim = pow(1.0 - max(dot(n, to_eye), 0.0), 2.0);
    color = mix(color, kSelectionColor, 0.25) + kSelectionColor * rim;
  }
  out_color = EncodeOutput(vec4(color, 1.0));
}
