// Per-run sums of the simulator's step telemetry: what `ductile-cli run --stats` and `ductile-cli bench` report.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
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
  // The FEM–IPC domain (when the scene has soft or affine bodies).
  bool has_ipc = false;
  double ipc_min_distance = std::numeric_limits<double>::infinity();  ///< Smallest over every step's iterates [m].
  double ipc_newton_sum = 0;
  int ipc_newton_max = 0;
  std::int64_t ipc_not_converged = 0;
  double ipc_active_pairs_sum = 0;
  int ipc_active_pairs_max = 0;
  double ipc_kinematic_lag_max = 0;
  double ipc_contact_force_max = 0;

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
    if (t.has_ipc) {
      has_ipc = true;
      ipc_min_distance = std::min(ipc_min_distance, t.ipc_min_distance);
      ipc_newton_sum += t.ipc_newton_iterations;
      ipc_newton_max = std::max(ipc_newton_max, t.ipc_newton_iterations);
      if (!t.ipc_converged) ++ipc_not_converged;
      ipc_active_pairs_sum += t.ipc_active_pairs;
      ipc_active_pairs_max = std::max(ipc_active_pairs_max, t.ipc_active_pairs);
      ipc_kinematic_lag_max = std::max(ipc_kinematic_lag_max, t.ipc_kinematic_lag);
      ipc_contact_force_max = std::max(ipc_contact_force_max, t.ipc_contact_force);
      phase_sums.ipc_ms += t.ipc_ms;
      phase_sums.ipc_collision_ms += t.ipc_collision_ms;
      phase_sums.ipc_energy_ms += t.ipc_energy_ms;
      phase_sums.ipc_hessian_ms += t.ipc_hessian_ms;
      phase_sums.ipc_solve_ms += t.ipc_solve_ms;
      phase_sums.ipc_ccd_ms += t.ipc_ccd_ms;
    }
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
