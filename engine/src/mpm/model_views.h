// Host-side conversions from the Model to the plain data the MPM kernels read, shared by the CPU and CUDA
// backends.
#pragma once

#include <array>

#include "core/small_math.h"
#include "ductile/model.h"
#include "mpm/boundary.h"
#include "mpm/grid_kernels.h"

namespace ductile::mpm {

inline Vec3f ToVec3f(const std::array<float, 3>& a) {
  return {a[0], a[1], a[2]};
}

/// The grid-update constants of `model` with its colliders at `colliders` (host or device memory, as the caller
/// launches); the substep dt is left for the caller to set.
inline GridUpdateParams GridUpdateParamsFor(const Model& model, const Collider* colliders) {
  GridUpdateParams params;
  params.gravity = ToVec3f(model.gravity);
  params.origin = ToVec3f(model.grid_origin);
  params.h = model.h;
  params.domain_min = ToVec3f(model.domain_min);
  params.domain_max = ToVec3f(model.domain_max);
  params.walls = model.walls;
  params.colliders = colliders;
  params.num_colliders = static_cast<int>(model.colliders.size());
  return params;
}

}  // namespace ductile::mpm
