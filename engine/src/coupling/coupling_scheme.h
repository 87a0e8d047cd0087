// A coupling scheme advances the deformable domains and the rigid system together by one outer step
// (docs/architecture.md, "Domains and couplings"). The weak scheme of Yu et al. 2025 is the first
// (weak_coupling.h); the strong implicit scheme of Zong, Jiang, Han 2024, one convex contact problem over the rigid
// and grid velocities, is the second to come behind the same interface.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "domain/deformable_domain.h"
#include "ductile/model.h"
#include "ductile/telemetry.h"
#include "state/state_data.h"

namespace ductile {

namespace contact {
class RigidSystem;
}

/// What a coupling scheme advances and where it reports: the Workspace's domains, rigid system, telemetry and
/// failure message (Workspace::Coupled), without the rest of the Workspace.
struct CouplingStep {
  std::span<const std::unique_ptr<DeformableDomain>> domains;  ///< In the registry's order.
  contact::RigidSystem* rigid = nullptr;                       ///< Null when the scene has no rigid bodies.
  StepTelemetry& telemetry;                                    ///< Of this step.
  std::string& rigid_failure;                                  ///< A rigid step that fails leaves its message here.

  /// Whether a domain's last Advance stopped on a non-physical state.
  bool AnyDiverged() const {
    for (const std::unique_ptr<DeformableDomain>& d : domains)
      if (d->diverged()) return true;
    return false;
  }
};

class CouplingScheme {
 public:
  virtual ~CouplingScheme() = default;
  /// Advances every domain and the rigid system of `state` by one step of model.dt. Records what it did in
  /// step.telemetry; a rigid step that fails leaves its message in step.rigid_failure.
  virtual void Advance(const Model& model, State::Data& state, CouplingStep& step) = 0;
};

}  // namespace ductile
