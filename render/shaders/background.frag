#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(location = 0) in float v_t;
layout(location = 0) out vec4 out_color;

void main() {
  out_color = EncodeOutput(vec4(BackgroundColor(v_t), 1.0));
}
