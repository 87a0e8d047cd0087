#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(location = 0) in vec4 in_position;  // xyz [m].
layout(location = 1) in vec4 in_color;
layout(location = 0) flat out vec4 v_color;

void main() {
  v_color = in_color;
  gl_Position = frame.view_proj * vec4(in_position.xyz, 1.0);
}
