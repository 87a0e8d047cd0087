#version 450
#extension GL_GOOGLE_include_directive : require
// The ground where no shadow can fall (see grid.glsl).
#define GRID_UNSHADOWED
#include "common.glsl"
#include "grid.glsl"
