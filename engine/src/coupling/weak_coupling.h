// The asynchronous weak coupling of Yu et al. 2025, Sec. IV-A: the rigid geometry is frozen at the step's start;
// each deformable domain takes its substeps, each with a convex contact solve against the frozen geometry (Sec. V),
// summing the impulses the contacts put on each body; then one SAP step of the rigid system (Castro et al. 2022)
// takes those sums as known impulses (their Eq. 3). Newton's third law holds per step up to the contact solver's
// tolerance.
#pragma once

#include "coupling/coupling_scheme.h"

namespace ductile {

class WeakCoupling final : public CouplingScheme {
 public:
  void Advance(const Model& model, State::Data& state, CouplingStep& step) override;

 private:
  static void FreezeRigidGeometry(State::Data& state, CouplingStep& step);
  static void AdvanceDomains(const Model& model, const State::Data& state, CouplingStep& step);
  static void AdvanceRigid(const Model& model, State::Data& state, CouplingStep& step);
};

}  // namespace ductile
