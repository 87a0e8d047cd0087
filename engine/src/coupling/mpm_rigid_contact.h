// Two-way MPM-rigid contact (DESIGN.md §4 steps 1, 3b, 3c, 3e; Yu et al. 2025, Sec. IV): the rigid poses and
// velocities are frozen at the start of a step; in every MPM substep each particle inside a rigid geometry
// (φ < 0) becomes one contact, the grid velocities are corrected by the quasi-Newton contact solve
// (contact/mpm_contact_solver.h), and the contact impulses are summed per rigid body. The rigid step then takes
// the sum as a known impulse (Eq. 3): the material pushes the bodies as hard as they push it (Newton's third law
// per step, up to the solver tolerance).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <memory>
#include <vector>

#include "contact/mpm_contact_solver.h"
#include "contact/rigid_system.h"
#include "geometry/mesh_sdf.h"
#include "mpm/mpm_solver.h"

namespace ductile::coupling {

struct MpmContactSettings {
  double stiffness = 1e4;        ///< Point-contact stiffness per particle contact k [N/m], > 0.
  double dissipation = 10;       ///< Hunt-Crossley dissipation d [s/m], ≥ 0.
  double stiction_speed = 1e-4;  ///< v_s [m/s].
  double sigma = 1e-3;           ///< Friction regularisation σ.
  /// Per MPM material: its friction coefficient against rigid geometry, combined with the geometry's
  /// (contact::CombineFriction); negative: the geometry's μ alone.
  std::vector<double> material_friction;
  /// Grid spacing of the signed distance fields of mesh geometry [m] (the MPM grid's h / 2 by default).
  double mesh_sdf_cell = 0.01;
  contact::GridContactParams solver;
};

struct MpmContactStats {
  int contacts = 0;                       ///< Particle contacts in the last substep.
  std::vector<int> substep_iterations;    ///< Contact-solver iterations of each substep (0: no contact).
  std::vector<double> substep_residuals;  ///< Final residual ‖D∇ℓ‖ of each substep's solve.
  std::vector<int> body_contacts;         ///< Per rigid body: particle contacts on it in the last substep.
  int max_contacts = 0;                   ///< Over the step's substeps.
  bool converged = true;                  ///< Every substep's solve met its stopping rule.
};

class MpmRigidContact {
 public:
  explicit MpmRigidContact(const MpmContactSettings& settings) : settings_(settings) {}

  /// Freezes the rigid geometry's poses and velocities for this step and clears the impulse sums.
  void BeginStep(const contact::RigidSystem& rigid);
  /// The contact solve of one substep: pass as MpmSolver::Substep's grid hook.
  void SolveSubstep(mpm::MpmSolver& mpm, float dt);
  /// Impulse on rigid body b since BeginStep [N·s], and its moment about the body origin [N·m·s], world frame.
  /// Whether a step's impulses are held for body b (none before the first BeginStep).
  bool has_impulses(int b) const { return b >= 0 && b < static_cast<int>(linear_.size()); }
  const Eigen::Vector3d& linear_impulse(int b) const { return linear_[b]; }
  const Eigen::Vector3d& angular_impulse(int b) const { return angular_[b]; }
  const MpmContactStats& stats() const { return stats_; }

 private:
  struct Frozen {
    const geometry::CollisionGeometry* geometry = nullptr;
    const geometry::MeshSdf* sdf = nullptr;  // mesh geometry: its signed distance field
    Eigen::Isometry3d X_WG = Eigen::Isometry3d::Identity();
    Eigen::Isometry3d X_GW = Eigen::Isometry3d::Identity();  // its inverse, for the per-particle queries
    int body = -1;
    Eigen::Matrix<double, 6, 1> V = Eigen::Matrix<double, 6, 1>::Zero();  // body spatial velocity (world, at O)
    double radius = 0;  // bounding sphere about X_WG's origin; infinite for a half-space
  };
  MpmContactSettings settings_;
  std::vector<Frozen> geometries_;
  // Per world geometry: the signed distance field of a mesh, built at the first step that sees it.
  std::vector<std::shared_ptr<const geometry::MeshSdf>> mesh_sdfs_;
  std::vector<Eigen::Vector3d> origins_;  // body origins at the start of the step
  std::vector<Eigen::Vector3d> linear_, angular_;
  MpmContactStats stats_;
  std::vector<int> local_of_;  // grid node storage index -> problem node, −1
  // Per particle, reused across substeps: the geometry it is deepest inside (−1: none), φ there, ∇φ.
  std::vector<int> inside_;
  std::vector<double> depth_;
  std::vector<Eigen::Vector3d> normal_;
};

}  // namespace ductile::coupling
