// What the deformable domains hand the snapshot of a surface they draw (ductile/snapshot.h, SnapshotSoftBody): the
// triangles as the shared index list the renderer keeps from snapshot to snapshot, and positions and colours in float.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace ductile {

/// `faces` as a shared, immutable list of unsigned indices (built once per body, shared by every snapshot).
inline std::shared_ptr<const std::vector<std::array<std::uint32_t, 3>>> SharedTriangles(
    const std::vector<std::array<int, 3>>& faces) {
  auto out = std::make_shared<std::vector<std::array<std::uint32_t, 3>>>();
  out->reserve(faces.size());
  for (const std::array<int, 3>& f : faces)
    out->push_back(
        {static_cast<std::uint32_t>(f[0]), static_cast<std::uint32_t>(f[1]), static_cast<std::uint32_t>(f[2])});
  return out;
}

inline std::array<float, 3> ToFloat(const Eigen::Vector3d& x) {
  return {static_cast<float>(x.x()), static_cast<float>(x.y()), static_cast<float>(x.z())};
}

inline std::array<float, 4> ToFloat(const std::array<double, 4>& c) {
  return {static_cast<float>(c[0]), static_cast<float>(c[1]), static_cast<float>(c[2]), static_cast<float>(c[3])};
}

}  // namespace ductile
