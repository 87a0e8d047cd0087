// The CUDA backend of the MPM substep: the same SIM_HD kernels as the CPU backend (transfer_kernels.h,
// grid_kernels.h, constitutive/), launched one thread per particle or node on a dense grid, with atomic adds
// for P2G. Built only when nvcc is present; the CPU backend is the reference it is tested against.
#pragma once

#include <string>

#include "ductile/model.h"
#include "mpm/particles.h"

namespace ductile::cuda {

/// Whether a CUDA device can be used; `reason` says why not when it cannot.
bool DeviceAvailable(std::string* reason = nullptr);

/// One explicit MPM substep of dt [s] on the device: copies the particles in, runs P2G, the grid update and
/// G2P with the return map, copies them back. Throws std::runtime_error on a CUDA error.
void Substep(const Model& model, mpm::Particles& particles, float dt);

}  // namespace ductile::cuda
