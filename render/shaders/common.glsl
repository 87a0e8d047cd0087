// Frame uniforms and lighting shared by the shaders. Must match FrameUniforms in src/scene_renderer.cpp (std140).
// World units are metres, z up; colours are linear until EncodeOutput.

layout(set = 0, binding = 0, std140) uniform Frame {
  mat4 view_proj;        // World to camera clip space (Vulkan: y down, depth 0..1).
  mat4 light_view_proj;  // World to the shadow map's clip space (orthographic).
  vec4 eye;              // xyz: camera position [m].
  vec4 key_direction;    // xyz: unit direction the key light travels; w: 1 when shadows are on.
  vec4 key_color;        // rgb.
  vec4 ambient;          // rgb.
  vec4 background_top;   // rgb.
  vec4 background_bottom;
  vec4 grid_color;       // rgba.
  vec4 grid;             // x: height [m], y: spacing [m], z: half extent [m], w: 1 when visible.
  vec4 grid_center;      // xy: centre of the grid square and of its fade [m].
  vec4 viewport;         // xy: size [pixels]; z: 1 when the shaders must encode sRGB; w: shadow map texel size [m].
}
frame;

layout(set = 0, binding = 1) uniform sampler2DShadow shadow_map;

// Fraction of key light reaching world point `p` with surface normal `n`: four taps of the hardware's depth
// comparison (percentage-closer filtering) around the point; with bilinear comparison (most GPUs) that is a
// 3x3-texel tent, with nearest (lavapipe) a 2x2 box. Four taps rather than more because on CPU devices this runs
// for every ground pixel. The lookup point moves along the normal by about a texel so that a
// surface does not shadow itself (acne).
float KeyLightVisibility(vec3 p, vec3 n) {
  if (frame.key_direction.w < 0.5) return 1.0;
  vec4 clip = frame.light_view_proj * vec4(p + n * (1.5 * frame.viewport.w), 1.0);
  vec3 ndc = clip.xyz / clip.w;
  vec2 uv = ndc.xy * 0.5 + 0.5;
  if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0)))) return 1.0;
  // Receivers beyond the map's far plane compare as 1.0: behind every caster, so shadowed where a caster is.
  float depth = clamp(ndc.z, 0.0, 1.0);
  vec2 offset = 0.5 / vec2(textureSize(shadow_map, 0));
  float sum = texture(shadow_map, vec3(uv + vec2(-offset.x, -offset.y), depth));
  sum += texture(shadow_map, vec3(uv + vec2(offset.x, -offset.y), depth));
  sum += texture(shadow_map, vec3(uv + vec2(-offset.x, offset.y), depth));
  sum += texture(shadow_map, vec3(uv + vec2(offset.x, offset.y), depth));
  return 0.25 * sum;
}

// Lambert diffuse and a little Blinn-Phong specular from the key light, plus a hemispheric ambient (brighter for
// normals facing up), for albedo `albedo` at point `p` with unit normal `n`.
vec3 Shade(vec3 albedo, vec3 p, vec3 n) {
  vec3 to_light = -frame.key_direction.xyz;
  vec3 to_eye = normalize(frame.eye.xyz - p);
  float visibility = KeyLightVisibility(p, n);
  float diffuse = max(dot(n, to_light), 0.0);
  vec3 half_vector = normalize(to_light + to_eye);
  float specular = diffuse > 0.0 ? pow(max(dot(n, half_vector), 0.0), 48.0) * 0.25 : 0.0;
  vec3 ambient = frame.ambient.rgb * (0.8 + 0.2 * n.z);
  return albedo * (ambient + frame.key_color.rgb * diffuse * visibility) + frame.key_color.rgb * specular * visibility;
}

// Shade without the specular term, for the ground, which covers much of the screen (cheaper on CPU devices).
vec3 ShadeMatte(vec3 albedo, vec3 p, vec3 n) {
  float diffuse = max(dot(n, -frame.key_direction.xyz), 0.0);
  float visibility = diffuse > 0.0 ? KeyLightVisibility(p, n) : 1.0;
  return albedo * (frame.ambient.rgb * (0.8 + 0.2 * n.z) + frame.key_color.rgb * diffuse * visibility);
}

// The colour to write: linear for an sRGB target (the hardware encodes), encoded here for a UNORM target.
vec4 EncodeOutput(vec4 linear) {
  if (frame.viewport.z < 0.5) return linear;
  vec3 c = clamp(linear.rgb, 0.0, 1.0);
  vec3 encoded = mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
  return vec4(encoded, linear.a);
}
