// Bodies and the close–lift schedule shared by the FEM–IPC physics tests (tests/physics/ipc_test.cpp) and benchmarks
// (bench/ipc_bench.cpp).
#pragma once

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <vector>

#include "fem/ipc_system.h"
#include "fem/tetrahedralise.h"

namespace ductile::testing {

/// A pose at position p [m], no rotation.
inline Eigen::Isometry3d At(const Eigen::Vector3d& p) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = p;
  return X;
}

/// A box's closed surface (8 corners, 12 outward triangles) about its centre, half extents `half` [m].
inline void BoxSurface(const Eigen::Vector3d& half, std::vector<Eigen::Vector3d>& v,
                       std::vector<std::array<int, 3>>& f) {
  v.clear();
  for (int i = 0; i < 8; ++i)
    v.emplace_back((i & 1 ? 1 : -1) * half.x(), (i & 2 ? 1 : -1) * half.y(), (i & 4 ? 1 : -1) * half.z());
  f = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
       {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
}

/// A soft box of half extents `half` [m] meshed at edge length h [m], moved by `offset` [m]; Young's modulus E [Pa],
/// Poisson's ratio ν, neo-Hookean, 1,000 kg/m³.
inline fem::SoftBodyDesc SoftBox(const Eigen::Vector3d& half, double h, const Eigen::Vector3d& offset, double E,
                                 double nu) {
  fem::SoftBodyDesc soft;
  const fem::TetMesh mesh = fem::TetrahedraliseBox(half, h);
  for (const Eigen::Vector3d& p : mesh.vertices) soft.vertices.push_back(p + offset);
  soft.tets = mesh.tets;
  soft.lame = fem::LameFromYoungPoisson(E, nu);
  return soft;
}

/// ZeMa's close–lift protocol with kinematic fingers: a 5 cm soft cube (E = 1e5 Pa, ν = 0.4) on the ground between two
/// 1 × 4 × 4 cm fingers (kinematic bodies 0 and 1) that close 4 mm over 0.2 s, then lift 5 cm over 0.5 s.
struct CloseLift {
  static constexpr double kGap = 0.0253 + 0.005;  // finger centre: cube half width, clearance, finger half thickness
  static constexpr double kDuration = 0.7;        // [s]

  /// Adds the cube (meshed at edge length h), the fingers and the ground to `system` (not finalised).
  static void Build(fem::IpcSystem& system, double h) {
    system.AddSoftBody(SoftBox({0.025, 0.025, 0.025}, h, {0, 0, 0.0255}, 1e5, 0.4));
    for (int side : {-1, 1}) {
      fem::KinematicBodyDesc finger;
      BoxSurface({0.005, 0.02, 0.02}, finger.vertices, finger.faces);
      finger.pose = At({side * kGap, 0, 0.025});
      system.AddKinematicBody(finger);
    }
    system.AddHalfSpace({});
  }
  /// Sets the fingers' targets for the step that ends at time t [s].
  static void SetTargets(fem::IpcSystem& system, double t) {
    const double close = std::min(t / 0.2, 1.0) * 0.004, lift = std::clamp((t - 0.2) / 0.5, 0.0, 1.0) * 0.05;
    for (int side : {0, 1}) system.SetKinematicTarget(side, At({(side ? 1 : -1) * (kGap - close), 0, 0.025 + lift}));
  }
};

}  // namespace ductile::testing
