#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// A translucent continuum's surface (water), blended over what lies behind it. The vertex alpha a is the opacity of
// the water behind this point along the line of sight, 1 − exp(−σ d) (Beer-Lambert over the thickness d, computed on
// the CPU: particle_surface.cpp). On top, a reflection of the sky weighted by Schlick's approximation of the Fresnel
// factor (Schlick 1994, "An inexpensive BRDF model for physically-based rendering", eq. 24, F0 = 0.02 for water):
// the composite is a·body + (1 − a)·F·sky + (1 − a)(1 − F)·behind, written as one colour and alpha for the
// pipeline's straight alpha blend.
layout(location = 0) in vec3 v_world_position;
layout(location = 1) in vec3 v_world_normal;
layout(location = 2) in vec4 v_color;
layout(location = 0) out vec4 out_color;

void main() {
  vec3 n = normalize(v_world_normal);
  vec3 to_eye = normalize(frame.eye.xyz - v_world_position);
  float cos_view = max(dot(n, to_eye), 0.0);
  float m = 1.0 - cos_view;
  float fresnel = 0.02 + 0.98 * (m * m) * (m * m) * m;
  vec3 body = Shade(v_color.rgb, v_world_position, n);
  // The sky seen in the water: the background's light end, brightened toward the key light's colour.
  vec3 sky = mix(frame.background_bottom.rgb, frame.key_color.rgb, 0.35);
  float a = v_color.a;
  float reflected = (1.0 - a) * fresnel;
  float alpha = a + reflected;
  out_color = EncodeOutput(vec4((a * body + reflected * sky) / max(alpha, 1e-4), alpha));
}
