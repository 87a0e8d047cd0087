#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// A continuum's reconstructed surface (particle_surface.h): world positions, outward normals and a colour per vertex
// (alpha: the opacity of a translucent surface).
layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_color;

layout(location = 0) out vec3 v_world_position;
layout(location = 1) out vec3 v_world_normal;
layout(location = 2) out vec4 v_color;

void main() {
  v_world_position = in_position;
  v_world_normal = in_normal;
  v_color = in_color;
  gl_Position = frame.view_proj * vec4(in_position, 1.0);
}
