#version 450
#extension GL_GOOGLE_include_directive : require
// The unshadowed ground for the ground cache, with its shadow weight in alpha (see grid.glsl).
#define GRID_CACHE
#include "common.glsl"
#include "grid.glsl"
