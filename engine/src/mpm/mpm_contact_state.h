// What the MPM domain's contact solve against the rigid geometry (coupling/mpm_rigid_contact.h; the strong scheme's
// joint solve, coupling/strong_coupling.h) keeps from one step to the next: its statistics for the telemetry and the
// reports, and its last substep's solution as the next step's initial guess. Part of the MPM domain's State
// (MpmState::contact), so that a restored State steps bitwise alike; the rigid bodies see only the impulses
// (domain/rigid_impulses.h). Eigen-free, as the device backend's sources include the MPM State.
#pragma once

#include <cstdint>
#include <vector>

#include "core/small_math.h"

namespace ductile::mpm {

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
  int particle_id = -1;  ///< The particle's id (not its storage index).
  int geometry = -1;     ///< Index of the frozen geometry it touched.
  Vec3d gamma_W;         ///< Its impulse on the material, world frame [N·s].

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(particle_id, geometry, gamma_W);
  }
};

/// One grid node's velocity at the last contact solve's last iterate, kept as the next solve's guess.
struct WarmNode {
  std::int64_t cell = -1;  ///< The node's grid coordinates (i·n_y + j)·n_z + k.
  Vec3d v;                 ///< [m/s] (GridContactResult::v_iterate).

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(cell, v);
  }
};

/// The MPM contact solve's part of the State.
struct MpmContactState {
  MpmContactStats stats;  ///< Of the last step (cleared when a step freezes the rigid geometry).
  /// The contacts of the step's last substep, in particle order: the next step's initial guess of each particle's
  /// impulse (MpmRigidContact).
  std::vector<WarmContact> warm;
  /// The nodes of the step's last substep's contact problem, by grid coordinates (ascending): the next step's
  /// velocity guess (GridContactProblem::v_guess). Near-rigid contacts only (empty under Hunt-Crossley).
  std::vector<WarmNode> warm_nodes;

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(stats, warm, warm_nodes);
  }
};

}  // namespace ductile::mpm
