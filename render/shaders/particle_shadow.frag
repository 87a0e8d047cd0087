#version 450

// The particle's disc in the shadow map (particle_shadow.vert): its triangle's corners outside the disc are
// discarded. Writing no depth of its own keeps the rasterizer's early depth test (the depth write waits for the
// discard), which matters on CPU devices for blocks of particles many layers deep.
layout(location = 0) in vec2 v_local;  // Position in the disc's plane [radii].

void main() {
  if (dot(v_local, v_local) > 1.0) discard;
}
