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

// Every channel's summaries under their JSON keys, in the table's order (ductile/telemetry.h); a channel that only
// some steps have (the FEM–IPC domain's) is left out when no step had it.
std::string ChannelStats(const StepStatistics& st, int substeps) {
  std::ostringstream out;
  out << std::setprecision(9);
  const std::vector<TelemetryChannel>& table = TelemetryChannels();
  for (std::size_t c = 0; c < table.size(); ++c) {
    if (table[c].present != nullptr && st.channels[c].steps == 0) continue;
    for (const ChannelSummary& summary : table[c].summaries)
      out << "  \"" << summary.json_key << "\": " << st.Summary(c, summary.stat, substeps) << ",\n";
  }
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
      << "  \"rigid_bodies\": " << sim.num_rigid_bodies() << ",\n"
      << "  \"rigid_dofs\": " << model.RigidDofs() << ",\n"
      << ChannelStats(st, model.substeps) << RobotStats(run)
      << "  \"realtime_factor\": " << run.RealtimeFactor(sim.time()) << ",\n"
      << "  \"particle_substeps_per_second\": " << (wall > 0 ? particle_substeps / wall : 0) << ",\n"
      << "  \"recommended_substeps\": " << model.RecommendedSubsteps() << ",\n"
      << "  \"diverged\": " << (run.diverged ? "true" : "false") << ",\n"
      << R"(  "state_hash": ")" << std::hex << sim.StateHash() << std::dec << "\"\n"
      << "}\n";
}

}  // namespace ductile::cli
