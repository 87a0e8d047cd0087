// The per-material constants that the MPM kernels read, compiled from a scene's material definition: plain data,
// copied to the device as is. They are part of the public Model, so they live in ductile/mpm_params.h.
#pragma once

#include "ductile/mpm_params.h"
