#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(location = 0) flat in vec4 v_color;
layout(location = 0) out vec4 out_color;

void main() { out_color = EncodeOutput(v_color); }
