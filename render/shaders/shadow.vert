#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// Depth-only pass of meshes into the shadow map; same vertex layout as mesh.vert (normals and colours unused).
layout(location = 0) in vec3 in_position;
layout(location = 2) in vec4 in_world_from_mesh0;
layout(location = 3) in vec4 in_world_from_mesh1;
layout(location = 4) in vec4 in_world_from_mesh2;
layout(location = 5) in vec4 in_world_from_mesh3;

void main() {
  mat4 world_from_mesh = mat4(in_world_from_mesh0, in_world_from_mesh1, in_world_from_mesh2, in_world_from_mesh3);
  gl_Position = frame.light_view_proj * (world_from_mesh * vec4(in_position, 1.0));
}
