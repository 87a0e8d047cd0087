#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// Depth-only pass of the continua's surfaces into the shadow map; same vertex layout as surface.vert (normals and
// colours unused). Translucent surfaces cast full shadows.
layout(location = 0) in vec3 in_position;

void main() {
  gl_Position = frame.light_view_proj * vec4(in_position, 1.0);
}
