#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// Per vertex, in the mesh frame.
layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
// Per instance: world_from_mesh (columns), the inverse transpose of its 3x3 part for normals, colour, flags.
layout(location = 2) in vec4 in_world_from_mesh0;
layout(location = 3) in vec4 in_world_from_mesh1;
layout(location = 4) in vec4 in_world_from_mesh2;
layout(location = 5) in vec4 in_world_from_mesh3;
layout(location = 6) in vec4 in_normal_matrix0;
layout(location = 7) in vec4 in_normal_matrix1;
layout(location = 8) in vec4 in_normal_matrix2;
layout(location = 9) in vec4 in_color;
layout(location = 10) in vec4 in_flags;  // x: 1 when selected.

layout(location = 0) out vec3 v_world_position;
layout(location = 1) out vec3 v_world_normal;
layout(location = 2) flat out vec4 v_color;
layout(location = 3) flat out float v_selected;

void main() {
  mat4 world_from_mesh = mat4(in_world_from_mesh0, in_world_from_mesh1, in_world_from_mesh2, in_world_from_mesh3);
  mat3 normal_matrix = mat3(in_normal_matrix0.xyz, in_normal_matrix1.xyz, in_normal_matrix2.xyz);
  vec4 world = world_from_mesh * vec4(in_position, 1.0);
  v_world_position = world.xyz;
  v_world_normal = normal_matrix * in_normal;
  v_color = in_color;
  v_selected = in_flags.x;
  gl_Position = frame.view_proj * world;
}
