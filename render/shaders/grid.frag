#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// A translucent ground with minor lines every `spacing` and major lines every 10, anti-aliased by measuring the
// distance to the nearest line in pixels (screen-space derivatives); lit and shadowed like any surface, fading
// out towards the edge of the square.
layout(location = 0) in vec3 v_world_position;
layout(location = 0) out vec4 out_color;

// Line intensity in [0, 1] for lines every 1 unit of `coord`, `width` pixels wide.
float Lines(vec2 coord, float width) {
  vec2 per_pixel = fwidth(coord);
  vec2 distance_in_pixels = abs(fract(coord - 0.5) - 0.5) / max(per_pixel, vec2(1e-6));
  float line = 1.0 - clamp(min(distance_in_pixels.x, distance_in_pixels.y) - 0.5 * width + 0.5, 0.0, 1.0);
  // Lines closer than a few pixels apart fade out instead of turning into moire.
  return line * (1.0 - smoothstep(0.2, 0.5, max(per_pixel.x, per_pixel.y)));
}

void main() {
  vec2 coord = v_world_position.xy / frame.grid.y;
  float minor = Lines(coord, 1.0);
  float major = Lines(coord / 10.0, 1.5);
  float line = max(0.5 * minor, major);
  vec3 albedo = mix(frame.grid_color.rgb * 0.22, frame.grid_color.rgb, line);
  vec3 normal = vec3(0.0, 0.0, frame.eye.z >= frame.grid.x ? 1.0 : -1.0);
  float distance_to_center = length(v_world_position.xy - frame.grid_center.xy);
  float fade = 1.0 - smoothstep(0.4 * frame.grid.z, frame.grid.z, distance_to_center);
  float alpha = frame.grid_color.a * fade * mix(0.85, 1.0, line);
  out_color = EncodeOutput(vec4(ShadeMatte(albedo, v_world_position, normal), alpha));
}
