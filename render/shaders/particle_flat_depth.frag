#version 450
#extension GL_GOOGLE_include_directive : require
// The sphere impostor at the depth of its quad, for CPU devices (see particle.glsl).
#define PARTICLE_FLAT_DEPTH
#include "common.glsl"
#include "particle.glsl"
