#include "stats_json.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "run_support.h"

namespace ductile::cli {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  return 0.5 * (upper + *std::max_element(v.begin(), v.begin() + mid));
}

// The FEM–IPC domain's figures (none when the scene has no soft or affine bodies).
std::string IpcStats(const StepStatistics& st) {
  if (!st.has_ipc) return {};
  std::ostringstream out;
  out << std::setprecision(9) << "  \"ipc_min_distance\": " << st.ipc_min_distance << ",\n"
      << "  \"ipc_newton_iterations_mean\": " << st.PerStep(st.ipc_newton_sum) << ",\n"
      << "  \"ipc_newton_iterations_max\": " << st.ipc_newton_max << ",\n"
      << "  \"ipc_steps_not_converged\": " << st.ipc_not_converged << ",\n"
      << "  \"ipc_active_pairs_mean\": " << st.PerStep(st.ipc_active_pairs_sum) << ",\n"
      << "  \"ipc_active_pairs_max\": " << st.ipc_active_pairs_max << ",\n"
      << "  \"ipc_kinematic_lag_max\": " << st.ipc_kinematic_lag_max << ",\n"
      << "  \"ipc_contact_force_max\": " << st.ipc_contact_force_max << ",\n"
      << "  \"ms_per_step_ipc\": " << st.PerStep(st.phase_sums.ipc_ms) << ",\n"
      << "  \"ms_per_step_ipc_collision\": " << st.PerStep(st.phase_sums.ipc_collision_ms) << ",\n"
      << "  \"ms_per_step_ipc_energy\": " << st.PerStep(st.phase_sums.ipc_energy_ms) << ",\n"
      << "  \"ms_per_step_ipc_hessian\": " << st.PerStep(st.phase_sums.ipc_hessian_ms) << ",\n"
      << "  \"ms_per_step_ipc_linear_solve\": " << st.PerStep(st.phase_sums.ipc_solve_ms) << ",\n"
      << "  \"ms_per_step_ipc_ccd\": " << st.PerStep(st.phase_sums.ipc_ccd_ms) << ",\n";
  return out.str();
}

// The robots' warnings and each robot's most loaded link (docs/cli.md, "Statistics JSON").
std::string RobotStats(const RunResult& run) {
  std::ostringstream out;
  out << std::setprecision(9) << "  \"robot_warnings\": [";
  const std::vector<RobotWarning>& warnings = run.robot_warnings.warnings();
  for (std::size_t w = 0; w < warnings.size(); ++w) {
    const RobotWarning& warning = warnings[w];
    const RobotContactAlert& a = warning.first;
    out << (w ? ",\n" : "\n") << "    {\"robot\": " << JsonString(a.robot)
        << ", \"kind\": " << JsonString(RobotAlertKindName(a.kind)) << ", \"links\": [" << JsonString(a.link);
    if (!a.other_link.empty()) out << ", " << JsonString(a.other_link);
    out << "], \"time\": " << warning.time << ", \"force\": " << a.force << ", \"max_force\": " << warning.max_force
        << ", \"max_force_time\": " << warning.max_force_time << ", \"steps\": " << warning.steps
        << ", \"limit\": " << a.limit << ", \"message\": " << JsonString(DescribeRobotWarning(warning)) << "}";
  }
  out << (warnings.empty() ? "],\n" : "\n  ],\n") << "  \"robot_link_force_max\": {";
  for (std::size_t r = 0; r < run.robot_load_max.size(); ++r) {
    const auto& [load, time] = run.robot_load_max[r];
    out << (r ? ",\n" : "\n") << "    " << JsonString(load.robot) << ": {\"link\": " << JsonString(load.link)
        << ", \"force\": " << load.force << ", \"time\": " << time << ", \"limit\": " << load.limit << "}";
  }
  out << (run.robot_load_max.empty() ? "},\n" : "\n  },\n");
  return out.str();
}

}  // namespace

void WriteStatsJson(const std::string& scene, const Simulator& sim, const RunResult& run, std::ostream& out) {
  const Model& model = sim.model();
  const StepStatistics& st = run.statistics;
  const double wall = run.wall_seconds;
  const double particle_substeps = static_cast<double>(model.num_particles) * model.substeps * st.steps();
  out << std::setprecision(9) << "{\n"
      << "  \"scene\": " << JsonString(scene) << ",\n"
      << "  \"particles\": " << model.num_particles << ",\n"
      << "  \"h\": " << model.h << ",\n"
      << "  \"dt\": " << model.dt << ",\n"
      << "  \"substeps\": " << model.substeps << ",\n"
      << "  \"steps\": " << st.steps() << ",\n"
      << "  \"start_time\": " << run.start_time << ",\n"
      << "  \"sim_time\": " << sim.time() << ",\n"
      << "  \"threads\": " << sim.threads() << ",\n"
      << "  \"backend\": " << JsonString(sim.backend()) << ",\n"
      << "  \"wall_seconds\": " << wall << ",\n"
      << "  \"ms_per_step_median\": " << Median(st.step_ms) << ",\n"
      << "  \"ms_per_step_mean\": " << st.MeanStepMs() << ",\n"
      << "  \"active_nodes_avg\": " << st.PerStep(st.active_nodes_sum) << ",\n"
      << "  \"ms_per_step_sort\": " << st.PerStep(st.phase_sums.sort_ms) << ",\n"
      << "  \"ms_per_step_p2g\": " << st.PerStep(st.phase_sums.p2g_ms) << ",\n"
      << "  \"ms_per_step_grid\": " << st.PerStep(st.phase_sums.grid_ms) << ",\n"
      << "  \"ms_per_step_g2p\": " << st.PerStep(st.phase_sums.g2p_ms) << ",\n"
      << "  \"ms_per_step_g2p2g\": " << st.PerStep(st.phase_sums.g2p2g_ms) << ",\n"
      << "  \"rigid_bodies\": " << sim.num_rigid_bodies() << ",\n"
      << "  \"rigid_dofs\": " << model.RigidDofs() << ",\n"
      << "  \"ms_per_step_rigid\": " << st.PerStep(st.phase_sums.rigid_ms) << ",\n"
      << "  \"sap_iterations_mean\": " << st.PerStep(st.sap_iterations_sum) << ",\n"
      << "  \"sap_iterations_max\": " << st.sap_iterations_max << ",\n"
      << "  \"sap_steps_not_converged\": " << st.sap_not_converged << ",\n"
      << "  \"rigid_contacts_mean\": " << st.PerStep(st.rigid_contacts_sum) << ",\n"
      << "  \"rigid_contacts_max\": " << st.rigid_contacts_max << ",\n"
      << "  \"mpm_contacts_mean\": " << st.PerStep(st.mpm_contacts_sum) << ",\n"
      << "  \"mpm_contacts_max\": " << st.mpm_contacts_max << ",\n"
      << "  \"mpm_contact_iterations_per_substep\": " << st.MpmIterationsPerSubstep(model.substeps) << ",\n"
      << "  \"mpm_contact_steps_not_converged\": " << st.mpm_not_converged << ",\n"
      << IpcStats(st) << RobotStats(run) << "  \"realtime_factor\": " << run.RealtimeFactor(sim.time()) << ",\n"
      << "  \"particle_substeps_per_second\": " << (wall > 0 ? particle_substeps / wall : 0) << ",\n"
      << "  \"recommended_substeps\": " << model.RecommendedSubsteps() << ",\n"
      << "  \"diverged\": " << (run.diverged ? "true" : "false") << ",\n"
      << R"(  "state_hash": ")" << std::hex << sim.StateHash() << std::dec << "\"\n"
      << "}\n";
}

}  // namespace ductile::cli
