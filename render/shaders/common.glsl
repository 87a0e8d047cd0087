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
  vec4 viewport;         // xy: size [pixels]; z: unused; w: shadow map texel size [m].
}
frame;

layout(set = 0, binding = 1) uniform sampler2DShadow shadow_map;

// Fraction of key light reaching world point `p` with surface normal `n`: one gather of the hardware's depth
// comparison over the 2x2 texels around the point, blended with bilinear weights (percentage-closer filtering with
// smooth edges whether or not the device filters depth comparisons: lavapipe does not). One gather rather than
// several taps because on CPU devices this runs for every ground pixel. The lookup point moves along the normal by
// about a texel so that a surface does not shadow itself (acne).
float KeyLightVisibility(vec3 p, vec3 n) {
  if (frame.key_direction.w < 0.5) return 1.0;
  vec4 clip = frame.light_view_proj * vec4(p + n * (1.5 * frame.viewport.w), 1.0);
  vec3 ndc = clip.xyz / clip.w;
  vec2 uv = ndc.xy * 0.5 + 0.5;
  if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0)))) return 1.0;
  // Receivers beyond the map's far plane compare as 1.0: behind every caster, so shadowed where a caster is.
  float depth = clamp(ndc.z, 0.0, 1.0);
  vec2 texels = uv * vec2(textureSize(shadow_map, 0)) - 0.5;
  vec2 f = fract(texels);
  // Gather order: (i0, j1), (i1, j1), (i1, j0), (i0, j0) around the texel corner nearest `uv`.
  vec4 lit = textureGather(shadow_map, uv, depth);
  return mix(mix(lit.w, lit.z, f.x), mix(lit.x, lit.y, f.x), f.y);
}

// Lambert diffuse and a little Blinn-Phong specular from the key light, plus a hemispheric ambient (brighter for
// normals facing up), for albedo `albedo` at point `p` with unit normal `n`.
vec3 Shade(vec3 albedo, vec3 p, vec3 n) {
  vec3 to_light = -frame.key_direction.xyz;
  vec3 to_eye = normalize(frame.eye.xyz - p);
  float visibility = KeyLightVisibility(p, n);
  float diffuse = max(dot(n, to_light), 0.0);
  vec3 half_vector = normalize(to_light + to_eye);
  // cos^48 by squaring (x^3, then four squarings): a few multiplications instead of pow's exp2 and log2.
  float cos_half = max(dot(n, half_vector), 0.0);
  float power = cos_half * cos_half * cos_half;
  power *= power;
  power *= power;
  power *= power;
  power *= power;
  float specular = diffuse > 0.0 ? power * 0.25 : 0.0;
  vec3 ambient = frame.ambient.rgb * (0.8 + 0.2 * n.z);
  return albedo * (ambient + frame.key_color.rgb * diffuse * visibility) + frame.key_color.rgb * specular * visibility;
}

// Shade without the specular term, for the ground, which covers much of the screen (cheaper on CPU devices). Where
// no caster can shadow the point, `shadowed` false skips the shadow map; it must be a compile-time constant to save
// anything on CPU devices, which evaluate both sides of a branch.
vec3 ShadeMatte(vec3 albedo, vec3 p, vec3 n, bool shadowed) {
  float diffuse = max(dot(n, -frame.key_direction.xyz), 0.0);
  float visibility = shadowed ? KeyLightVisibility(p, n) : 1.0;
  return albedo * (frame.ambient.rgb * (0.8 + 0.2 * n.z) + frame.key_color.rgb * diffuse * visibility);
}

// The background's vertical gradient at `t`, 0 at the top edge of the target and 1 at the bottom.
vec3 BackgroundColor(float t) {
  return mix(frame.background_top.rgb, frame.background_bottom.rgb, t);
}

// Specialization constant 0: true for a UNORM target, where the shaders encode sRGB themselves. A constant rather
// than a uniform because CPU devices evaluate both sides of a branch: with it the encoding costs nothing when unused.
layout(constant_id = 0) const bool kEncodeSrgb = false;

// The colour to write: linear for an sRGB target (the hardware encodes), encoded here for a UNORM target.
vec4 EncodeOutput(vec4 linear) {
  if (!kEncodeSrgb) return linear;
  vec3 c = clamp(linear.rgb, 0.0, 1.0);
  vec3 s1 = sqrt(c);
  vec3 s2 = sqrt(s1);
  vec3 s3 = sqrt(s2);
  vec3 curve = 0.662002687 * s1 + 0.684122060 * s2 - 0.323583601 * s3 - 0.0225411470 * c;
  vec3 encoded = mix(c * 12.92, curve, step(vec3(0.0031308), c));
  return vec4(encoded, linear.a);
}
