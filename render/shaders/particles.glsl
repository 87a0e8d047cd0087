// The frame's particles, read by the particle vertex shaders: each particle's triangle (facing the camera or the
// light) is three consecutive vertices of one non-instanced draw (CPU devices process each instance of an instanced
// draw on its own, which costs more than the few vertices of a particle). Must match ParticleData in
// src/scene_renderer.cpp.
struct Particle {
  vec4 center_radius;  // xyz: centre [m]; w: radius [m].
  vec4 color;          // Linear RGBA.
};

layout(set = 0, binding = 2, std430) readonly buffer Particles {
  Particle particles[];
};
