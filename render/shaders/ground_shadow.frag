#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// The ground where the shadow map reaches, from the ground cache: the cached colour is the ground in full key light,
// and its alpha how much of the key light the pixel loses where the light is blocked (grid_cache.frag), so a shadow
// costs one lookup and one shadow map gather instead of the ground's whole pattern (grid.glsl).
layout(set = 0, binding = 3) uniform sampler2D ground_cache;
layout(location = 0) in vec3 v_world_position;
layout(location = 0) out vec4 out_color;

void main() {
  vec4 cached = texelFetch(ground_cache, ivec2(gl_FragCoord.xy), 0);
  vec3 normal = vec3(0.0, 0.0, frame.eye.z >= frame.grid.x ? 1.0 : -1.0);
  float blocked = 1.0 - KeyLightVisibility(v_world_position, normal);
  vec3 color = max(cached.rgb - blocked * cached.a * frame.grid_color.rgb * frame.key_color.rgb, vec3(0.0));
  out_color = EncodeOutput(vec4(color, 1.0));
}
