// The ground fragment shader shared by grid.frag and grid_unshadowed.frag; included after common.glsl.

// A translucent ground with minor lines every `spacing` and major lines every 10, anti-aliased by measuring the
// distance to the nearest line in pixels (one screen-space derivative serves both line families); lit and
// shadowed like any surface, fading out towards the edge of the square.
//
// The ground is drawn after the opaque meshes and particles, so where its depth test passes, what lies behind it is
// the background: it mixes with the background's gradient itself and writes opaque colours, which costs CPU devices
// far less than blending with the target. (Anything below the ground plane is hidden rather than seen through the
// gaps between lines.) The part of the square outside the shadow map's reach is drawn by grid_unshadowed.frag
// (GRID_UNSHADOWED defined), without the shadow lookup.
//
// GRID_CACHE (grid_cache.frag) draws the unshadowed ground into the ground cache and stores in alpha how much of the
// key light the pixel loses in full shadow (see ground_shadow.frag).
#if defined(GRID_UNSHADOWED) || defined(GRID_CACHE)
const bool kReceivesShadow = false;
#else
const bool kReceivesShadow = true;
#endif

layout(location = 0) in vec3 v_world_position;
layout(location = 0) out vec4 out_color;

// Line intensity in [0, 1] for lines every 1 unit of `coord`, `width` pixels wide, where one pixel spans
// `per_pixel` units. Lines closer than a few pixels apart fade out instead of turning into moire.
float Lines(vec2 coord, vec2 per_pixel, float width) {
  vec2 distance_in_pixels = abs(fract(coord - 0.5) - 0.5) / per_pixel;
  float line = clamp(0.5 * width + 0.5 - min(distance_in_pixels.x, distance_in_pixels.y), 0.0, 1.0);
  return line * (1.0 - smoothstep(0.2, 0.5, max(per_pixel.x, per_pixel.y)));
}

void main() {
  vec2 coord = v_world_position.xy / frame.grid.y;
  vec2 per_pixel = max(fwidth(coord), vec2(1e-6));
  float minor = Lines(coord, per_pixel, 1.0);
  float major = Lines(coord * 0.1, per_pixel * 0.1, 1.5);
  float line = max(0.5 * minor, major);
  vec3 albedo = mix(frame.grid_color.rgb * 0.22, frame.grid_color.rgb, line);
  vec3 normal = vec3(0.0, 0.0, frame.eye.z >= frame.grid.x ? 1.0 : -1.0);
  float distance_to_center = length(v_world_position.xy - frame.grid_center.xy);
  float fade = 1.0 - smoothstep(0.4 * frame.grid.z, frame.grid.z, distance_to_center);
  float alpha = frame.grid_color.a * fade * mix(0.85, 1.0, line);
  vec3 ground = ShadeMatte(albedo, v_world_position, normal, kReceivesShadow);
  vec3 background = BackgroundColor(gl_FragCoord.y / frame.viewport.y);
#ifdef GRID_CACHE
  // The output is linear in the key light's visibility v: colour(v) = colour(1) - (1 - v) * alpha * albedo * key *
  // diffuse, and albedo is grid_color times (0.22 + 0.78 line), so one scalar per pixel gives every v.
  float diffuse = max(dot(normal, -frame.key_direction.xyz), 0.0);
  out_color = vec4(mix(background, ground, alpha), alpha * (0.22 + 0.78 * line) * diffuse);
#else
  out_color = EncodeOutput(vec4(mix(background, ground, alpha), 1.0));
#endif
}
