// A soft arm on a two-bone skeleton lying just above the ground, for the tests of skeletons with contact: a 6 cm x
// 2 cm x 2 cm block (63 vertices) whose bones are the vertices on its centre line (so every surface vertex is flesh
// and can touch the ground): the −x ones (x ≤ −2 cm) on a revolute joint about z at its −x end, the +x ones
// (x ≥ 2 cm) on a revolute joint about y at x = 2 cm. Random per-tet E in [2e4, 4e4] Pa and ν in [0.25, 0.35], a
// pneumatic cell in every other tet and a muscle group along (1, 0, 0.2) in every third; the ground z ≥ −10.5 mm
// (the arm's bottom face at −10 mm), μ = 0.5. A torque about z sweeps the arm over the ground, its flesh sliding
// there faster than the stick velocity.
#pragma once

#include <gtest/gtest.h>

#include <random>

#include "fem/tetrahedralise.h"
#include "pd/pd_model.h"

namespace ductile::pd {

inline PdModel GroundedArm(double friction = 0.5) {
  PdBodyDesc desc;
  desc.mesh = fem::TetrahedraliseBox(Eigen::Vector3d(0.03, 0.01, 0.01), 0.01);
  std::mt19937 random(41);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  PdBone upper{.parent = -1,
               .joint = JointKind::kRevolute,
               .axis = Eigen::Vector3d::UnitZ(),
               .anchor = Eigen::Vector3d(-0.03, 0, 0),
               .vertices = {}};
  PdBone lower{.parent = 0,
               .joint = JointKind::kRevolute,
               .axis = Eigen::Vector3d::UnitY(),
               .anchor = Eigen::Vector3d(0.02, 0, 0),
               .vertices = {}};
  for (std::size_t i = 0; i < desc.mesh.vertices.size(); ++i) {
    const Eigen::Vector3d& x = desc.mesh.vertices[i];
    if (std::abs(x.y()) > 1e-9 || std::abs(x.z()) > 1e-9) continue;
    if (x.x() < -0.019) upper.vertices.push_back(static_cast<int>(i));
    if (x.x() > 0.019) lower.vertices.push_back(static_cast<int>(i));
  }
  desc.bones = {upper, lower};
  for (std::size_t t = 0; t < desc.mesh.tets.size(); ++t) {
    desc.youngs_modulus.push_back(2e4 * (1 + unit(random)));
    desc.poisson_ratio.push_back(0.25 + 0.1 * unit(random));
    desc.pneumatic_cell.push_back(t % 2 == 0 ? 0 : -1);
    if (t % 3 == 0)
      desc.muscles.push_back({.tet = static_cast<int>(t), .group = 0, .direction = {1, 0, 0.2}, .stiffness = 1e4});
  }
  desc.obstacles = {{.normal = Eigen::Vector3d::UnitZ(), .offset = -0.0105, .friction = friction}};
  PdModelResult made = MakePdModel(std::move(desc));
  EXPECT_TRUE(made.ok()) << made.error;
  return std::move(made.model);
}

/// The arm's controls at step n: the sweeping torque, a small load on the child joint, the cell inflating and the
/// muscles half active.
inline PdControls GroundedArmControls(const PdModel& model, int n) {
  PdControls u = PdControls::Rest(model);
  u.joint_torques = {0.01, -0.001};
  u.cell_volume_ratio[0] = 1.0 + 0.02 * n;
  u.muscle_activation[0] = 0.3;
  return u;
}

}  // namespace ductile::pd
