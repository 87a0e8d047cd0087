// What the deformable domains' contacts give the rigid bodies in one step, the type that the domains, the coupling
// schemes, the rigid step and the State exchange (docs/architecture.md, "Domains and couplings"): per body the summed
// contact impulse and its moment. Plain data, apart from every solver (issue 46); what a domain's contact solve keeps
// for itself (the MPM domain's statistics and warm starts, mpm/mpm_contact_state.h) is in that domain's State part.
#pragma once

#include <Eigen/Core>
#include <vector>

namespace ductile {

/// What the contacts of the deformable domains (MPM, FEM–IPC) gave the rigid bodies in one step: per body, the impulse
/// [N·s] and its moment about the body origin at the step's start [N·m·s], world frame. Part of the State: the rigid
/// step takes the impulses, and the reports of the step (contact forces) read them.
struct RigidImpulses {
  std::vector<Eigen::Vector3d> linear, angular;
  /// Whether a step's impulses are held for body b (none before the first step).
  bool has(int b) const { return b >= 0 && b < static_cast<int>(linear.size()); }

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(linear, angular);
  }
};

}  // namespace ductile
