#version 450

// A particle in the shadow map is the disc through its centre facing the light: the hemisphere facing the light is
// in front of it (lit), the other faces away from the light anyway, and whatever lies behind the particle is
// shadowed. Writing no depth of its own keeps the rasterizer's early depth test, which matters on CPU devices for
// blocks of particles many layers deep.
layout(location = 0) in vec2 v_local;  // Position on the quad in radii.

void main() {
  if (dot(v_local, v_local) > 1.0) discard;
}
