// What a deformable domain's contacts give the rigid bodies in one step, the type that the domains, the coupling
// schemes, the rigid step and the State exchange (docs/architecture.md, "Domains and couplings"): per body the summed
// contact impulse and its moment, the contact solves' statistics, and the last substep's solution as the next
// step's guess. Plain data, apart from every solver (issue 46).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace ductile {

struct MpmContactStats {
  int contacts = 0;                       ///< Particle contacts in the last substep.
  std::vector<int> substep_iterations;    ///< Contact-solver iterations of each substep (0: no contact).
  std::vector<double> substep_residuals;  ///< Final residual ‖D∇ℓ‖ of each substep's solve.
  std::vector<int> body_contacts;         ///< Per rigid body: particle contacts on it in the last substep.
  int max_contacts = 0;                   ///< Over the step's substeps.
  bool converged = true;                  ///< Every substep's solve met its stopping rule.

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(contacts, substep_iterations, substep_residuals, body_contacts, max_contacts, converged);
  }
};

/// One MPM particle's contact impulse, kept as the next solve's initial guess.
struct WarmContact {
  int particle_id = -1;                               ///< The particle's id (not its storage index).
  int geometry = -1;                                  ///< Index of the frozen geometry it touched.
  Eigen::Vector3d gamma_W = Eigen::Vector3d::Zero();  ///< Its impulse on the material, world frame [N·s].

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(particle_id, geometry, gamma_W);
  }
};

/// One grid node's velocity at the last contact solve's last iterate, kept as the next solve's guess.
struct WarmNode {
  std::int64_t cell = -1;                       ///< The node's grid coordinates (i·n_y + j)·n_z + k.
  Eigen::Vector3d v = Eigen::Vector3d::Zero();  ///< [m/s] (GridContactResult::v_iterate).

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(cell, v);
  }
};

/// What the MPM-rigid contact solves of one step gave the rigid bodies: per body, the impulse [N·s] and its moment
/// about the body origin at the step's start [N·m·s], world frame; and the solves' statistics. Part of the State:
/// the rigid step takes the impulses, and the reports of the step (contact forces) read them.
struct RigidImpulses {
  std::vector<Eigen::Vector3d> linear, angular;
  MpmContactStats stats;
  /// The MPM contacts of the step's last substep, in particle order: the next step's initial guess of each
  /// particle's impulse (MpmRigidContact). Part of the State so that a restored State steps bitwise alike.
  std::vector<WarmContact> warm;
  /// The nodes of the step's last substep's contact problem, by grid coordinates (ascending): the next step's
  /// velocity guess (GridContactProblem::v_guess). Near-rigid contacts only (empty under Hunt-Crossley).
  std::vector<WarmNode> warm_nodes;
  /// Whether a step's impulses are held for body b (none before the first step).
  bool has(int b) const { return b >= 0 && b < static_cast<int>(linear.size()); }

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(linear, angular, stats, warm, warm_nodes);
  }
};

}  // namespace ductile
