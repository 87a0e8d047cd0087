// A coupling scheme advances the deformable domains and the rigid system together by one outer step
// (docs/architecture.md, "Domains and couplings"). The weak scheme of Yu et al. 2025 is the first
// (weak_coupling.h); the strong implicit scheme of Zong, Jiang, Han 2024, one convex contact problem over the rigid
// and grid velocities, is the second to come behind the same interface.
#pragma once

#include "ductile/model.h"
#include "state/state_data.h"

namespace ductile {

struct Workspace;

class CouplingScheme {
 public:
  virtual ~CouplingScheme() = default;
  /// Advances every domain and the rigid system of `state` by one step of model.dt. Records what it did in
  /// workspace.telemetry; a rigid step that fails leaves its message in workspace.rigid_failure.
  virtual void Advance(const Model& model, State::Data& state, Workspace& workspace) = 0;
};

}  // namespace ductile
