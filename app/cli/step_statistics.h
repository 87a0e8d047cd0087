// Per-run sums of the simulator's step telemetry: what `ductile-cli run --stats` and `ductile-cli bench` report.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ductile/simulator.h"
#include "ductile/telemetry.h"

namespace ductile::cli {

struct StepStatistics {
  std::vector<double> step_ms;  ///< Wall time of every step [ms].
  double active_nodes_sum = 0;  ///< Σ over steps of the substeps' mean active grid nodes.
  StepTelemetry phase_sums;     ///< Per-phase times summed over the steps [ms].
  int sap_iterations_max = 0, rigid_contacts_max = 0;
  double sap_iterations_sum = 0, rigid_contacts_sum = 0;
  std::int64_t sap_not_converged = 0;
  double mpm_contacts_sum = 0;    ///< Σ over steps of the last substep's particle contacts.
  double mpm_iterations_sum = 0;  ///< Contact-solver iterations summed over all substeps.
  int mpm_contacts_max = 0;       ///< Most particle contacts in one substep.
  std::int64_t mpm_not_converged = 0;

  void Add(const StepTelemetry& t) {
    step_ms.push_back(t.wall_ms);
    active_nodes_sum += t.active_nodes_avg;
    phase_sums.sort_ms += t.sort_ms;
    phase_sums.p2g_ms += t.p2g_ms;
    phase_sums.grid_ms += t.grid_ms;
    phase_sums.g2p_ms += t.g2p_ms;
    phase_sums.g2p2g_ms += t.g2p2g_ms;
    phase_sums.rigid_ms += t.rigid_ms;
    sap_iterations_sum += t.sap_iterations;
    sap_iterations_max = std::max(sap_iterations_max, t.sap_iterations);
    rigid_contacts_sum += t.rigid_contacts;
    rigid_contacts_max = std::max(rigid_contacts_max, t.rigid_contacts);
    if (!t.sap_converged) ++sap_not_converged;
    mpm_contacts_sum += t.mpm_contacts;
    mpm_contacts_max = std::max(mpm_contacts_max, t.mpm_contacts_max);
    mpm_iterations_sum += t.mpm_contact_iterations;
    if (!t.mpm_contact_converged) ++mpm_not_converged;
  }

  std::size_t steps() const { return step_ms.size(); }
  /// Mean over the steps of a sum; 0 before the first step.
  double PerStep(double sum) const { return steps() ? sum / static_cast<double>(steps()) : 0; }
  double MeanStepMs() const {
    double sum = 0;
    for (double ms : step_ms) sum += ms;
    return PerStep(sum);
  }
  /// Contact-solver iterations per substep.
  double MpmIterationsPerSubstep(int substeps) const { return PerStep(mpm_iterations_sum) / substeps; }
};

}  // namespace ductile::cli
