#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// Copies this pixel of the frame slot's ground cache: the unshadowed ground, drawn by grid_cache.frag into an image
// of the target's size while the camera and the ground stay the same (scene_renderer.cpp). Drawn with grid.vert over
// the part of the ground the shadow map does not reach, where it replaces grid_unshadowed.frag at a fraction of its
// cost.
layout(set = 0, binding = 3) uniform sampler2D ground_cache;
layout(location = 0) out vec4 out_color;

void main() {
  out_color = EncodeOutput(vec4(texelFetch(ground_cache, ivec2(gl_FragCoord.xy), 0).rgb, 1.0));
}
