// Grid-node update (MLS-MPM, Hu et al. 2018, Sec. 5): momentum to velocity, gravity, then boundary conditions
// (boundary.h) from the domain walls and the static colliders. One call per node, SIM_HD.
#pragma once

#include "core/sim_hd.h"
#include "core/small_math.h"
#include "mpm/boundary.h"

namespace ductile::mpm {

/// Everything a node update reads, as plain data (colliders by pointer and count).
struct GridUpdateParams {
  float dt = 0;        ///< Substep [s].
  Vec3f gravity{};     ///< [m/s²].
  Vec3f origin{};      ///< World position of node (0, 0, 0) [m].
  float h = 0;         ///< Grid spacing [m].
  Vec3f domain_min{};  ///< Nodes outside [domain_min, domain_max] get the wall condition.
  Vec3f domain_max{};
  WallParams walls;
  const Collider* colliders = nullptr;
  int num_colliders = 0;
};

/// The velocity [m/s] of grid node (i, j, k) with mass m [kg] > 0 and momentum mv [kg·m/s] after gravity and
/// boundary conditions.
SIM_HD Vec3f UpdateNodeVelocity(const GridUpdateParams& p, int i, int j, int k, float m, const Vec3f& mv) {
  Vec3f v = mv / m + p.gravity * p.dt;
  const Vec3f x{p.origin.x + static_cast<float>(i) * p.h, p.origin.y + static_cast<float>(j) * p.h,
                p.origin.z + static_cast<float>(k) * p.h};
  for (int a = 0; a < 3; ++a) {
    if (x[a] <= p.domain_min[a]) {
      Vec3f n{};
      n[a] = 1.0f;
      v = ApplyBoundary(p.walls.kind, p.walls.friction, n, v);
    } else if (x[a] >= p.domain_max[a]) {
      Vec3f n{};
      n[a] = -1.0f;
      v = ApplyBoundary(p.walls.kind, p.walls.friction, n, v);
    }
  }
  for (int c = 0; c < p.num_colliders; ++c) {
    Vec3f n;
    const float phi = ColliderSignedDistance(p.colliders[c], x, n);
    if (phi < 0) v = ApplyBoundary(p.colliders[c].kind, p.colliders[c].friction, n, v);
  }
  return v;
}

}  // namespace ductile::mpm
