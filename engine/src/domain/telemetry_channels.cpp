// The telemetry channel table (ductile/telemetry.h): one row per scalar of StepTelemetry, with the `--stats` keys it
// is summed up under (docs/cli.md, "Statistics JSON"; those keys are never renamed).
#include <string>
#include <utility>
#include <vector>

#include "ductile/telemetry.h"

namespace ductile {

namespace {

using enum ChannelStat;
using enum ChannelType;

// A row: the key, label, unit, doc and domain, then the type, the reading, the presence flag and the summaries.
TelemetryChannel Row(const char* key, const char* label, const char* unit, const char* domain, const char* doc,
                     ChannelType type, double (*read)(const StepTelemetry&), std::vector<ChannelSummary> summaries,
                     bool StepTelemetry::*present = nullptr) {
  return {.key = key,
          .label = label,
          .unit = unit,
          .doc = doc,
          .domain = domain,
          .type = type,
          .read = read,
          .present = present,
          .summaries = std::move(summaries)};
}

double Flag(bool value) {
  return value ? 1 : 0;
}

std::vector<TelemetryChannel> StepAndMpmRows() {
  return {
      Row("wall_ms", "step time", "ms", "step", "Wall-clock time of the step.", kReal,
          [](const StepTelemetry& t) { return t.wall_ms; }, {{kMean, "ms_per_step_mean"}}),
      Row("substeps", "MPM substeps", "", "mpm", "MPM substeps taken.", kInteger,
          [](const StepTelemetry& t) { return static_cast<double>(t.substeps); }, {}),
      Row("active_nodes", "active grid nodes", "", "mpm", "Grid nodes with mass, averaged over the substeps.", kReal,
          [](const StepTelemetry& t) { return t.active_nodes_avg; }, {{kMean, "active_nodes_avg"}}),
      Row("active_blocks", "active grid blocks", "", "mpm", "Allocated 4x4x4 grid blocks in the last substep.",
          kInteger, [](const StepTelemetry& t) { return static_cast<double>(t.active_blocks); }, {}),
      Row("sort_ms", "sort", "ms", "mpm", "Particle sort into grid blocks and block activation.", kReal,
          [](const StepTelemetry& t) { return t.sort_ms; }, {{kMean, "ms_per_step_sort"}}),
      Row("p2g_ms", "P2G", "ms", "mpm",
          "Stress and P2G of the first substep when the last step did not prepare it; summing the block windows.",
          kReal, [](const StepTelemetry& t) { return t.p2g_ms; }, {{kMean, "ms_per_step_p2g"}}),
      Row("grid_ms", "grid", "ms", "mpm", "Grid update and boundary conditions, then the MPM-rigid contact solve.",
          kReal, [](const StepTelemetry& t) { return t.grid_ms; }, {{kMean, "ms_per_step_grid"}}),
      Row("g2p_ms", "G2P", "ms", "mpm", "G2P, F update and plasticity of a last substep not fused with the next P2G.",
          kReal, [](const StepTelemetry& t) { return t.g2p_ms; }, {{kMean, "ms_per_step_g2p"}}),
      Row("g2p2g_ms", "G2P2G", "ms", "mpm", "Fused G2P of a substep and stress and P2G of the next.", kReal,
          [](const StepTelemetry& t) { return t.g2p2g_ms; }, {{kMean, "ms_per_step_g2p2g"}}),
  };
}

std::vector<TelemetryChannel> RigidAndContactRows() {
  return {
      Row("rigid_ms", "rigid step", "ms", "rigid", "Wall-clock time of the rigid step.", kReal,
          [](const StepTelemetry& t) { return t.rigid_ms; }, {{kMean, "ms_per_step_rigid"}}),
      Row("sap_iterations", "SAP iterations", "", "rigid", "Newton iterations of the rigid step's SAP solve.", kInteger,
          [](const StepTelemetry& t) { return static_cast<double>(t.sap_iterations); },
          {{kMean, "sap_iterations_mean"}, {kMax, "sap_iterations_max"}}),
      Row("sap_residual", "SAP residual", "", "rigid", "The SAP solve's final optimality residual ‖D∇ℓ‖.", kReal,
          [](const StepTelemetry& t) { return t.sap_residual; }, {}),
      Row("sap_converged", "SAP converged", "", "rigid", "Whether the SAP solve met its stopping rule.", kFlag,
          [](const StepTelemetry& t) { return Flag(t.sap_converged); },
          {{kStepsWhereFalse, "sap_steps_not_converged"}}),
      Row("rigid_contacts", "rigid contacts", "", "rigid", "Rigid-rigid contact points.", kInteger,
          [](const StepTelemetry& t) { return static_cast<double>(t.rigid_contacts); },
          {{kMean, "rigid_contacts_mean"}, {kMax, "rigid_contacts_max"}}),
      Row("mpm_contacts", "MPM contacts", "", "mpm_contact", "Particle contacts with rigid geometry, last substep.",
          kInteger, [](const StepTelemetry& t) { return static_cast<double>(t.mpm_contacts); },
          {{kMean, "mpm_contacts_mean"}}),
      Row("mpm_contacts_max", "MPM contacts (most)", "", "mpm_contact", "The most particle contacts in one substep.",
          kInteger, [](const StepTelemetry& t) { return static_cast<double>(t.mpm_contacts_max); },
          {{kMax, "mpm_contacts_max"}}),
      Row("mpm_contact_iterations", "MPM contact iterations", "", "mpm_contact",
          "Contact-solver iterations summed over the substeps.", kInteger,
          [](const StepTelemetry& t) { return static_cast<double>(t.mpm_contact_iterations); },
          {{kMeanPerSubstep, "mpm_contact_iterations_per_substep"}}),
      Row("mpm_contact_residual", "MPM contact residual", "kg^(1/2)·m/s", "mpm_contact",
          "Final residual of the last substep's contact solve.", kReal,
          [](const StepTelemetry& t) { return t.mpm_contact_residual; }, {}),
      Row("mpm_contact_converged", "MPM contact converged", "", "mpm_contact",
          "Whether every substep's contact solve met its tolerance.", kFlag,
          [](const StepTelemetry& t) { return Flag(t.mpm_contact_converged); },
          {{kStepsWhereFalse, "mpm_contact_steps_not_converged"}}),
  };
}

// The FEM–IPC domain's, in steps that have it (StepTelemetry::has_ipc).
std::vector<TelemetryChannel> IpcRows() {
  constexpr bool StepTelemetry::*ipc = &StepTelemetry::has_ipc;
  return {
      Row(
          "ipc_min_distance", "IPC min distance", "m", "ipc",
          "Smallest surface distance over the step's Newton iterates (d̂ if none came nearer).", kReal,
          [](const StepTelemetry& t) { return t.ipc_min_distance; }, {{kMin, "ipc_min_distance"}}, ipc),
      Row(
          "ipc_newton_iterations", "IPC Newton iterations", "", "ipc", "Projected Newton iterations of the step.",
          kInteger, [](const StepTelemetry& t) { return static_cast<double>(t.ipc_newton_iterations); },
          {{kMean, "ipc_newton_iterations_mean"}, {kMax, "ipc_newton_iterations_max"}}, ipc),
      Row(
          "ipc_converged", "IPC converged", "", "ipc", "Whether Newton met its tolerance within the iteration limit.",
          kFlag, [](const StepTelemetry& t) { return Flag(t.ipc_converged); },
          {{kStepsWhereFalse, "ipc_steps_not_converged"}}, ipc),
      Row(
          "ipc_active_pairs", "IPC active pairs", "", "ipc", "Contact pairs closer than d̂ at the step's end.", kInteger,
          [](const StepTelemetry& t) { return static_cast<double>(t.ipc_active_pairs); },
          {{kMean, "ipc_active_pairs_mean"}, {kMax, "ipc_active_pairs_max"}}, ipc),
      Row(
          "ipc_kinematic_lag", "IPC kinematic lag", "m", "ipc",
          "How far a kinematic (rigid) surface point fell short of its pose.", kReal,
          [](const StepTelemetry& t) { return t.ipc_kinematic_lag; }, {{kMax, "ipc_kinematic_lag_max"}}, ipc),
      Row(
          "ipc_contact_force", "IPC contact force", "N", "ipc",
          "Sum of the contact force magnitudes on the rigid geometries.", kReal,
          [](const StepTelemetry& t) { return t.ipc_contact_force; }, {{kMax, "ipc_contact_force_max"}}, ipc),
      Row(
          "ipc_ms", "IPC step", "ms", "ipc", "Wall-clock time of the IPC step.", kReal,
          [](const StepTelemetry& t) { return t.ipc_ms; }, {{kMean, "ms_per_step_ipc"}}, ipc),
      Row(
          "ipc_collision_ms", "IPC collision", "ms", "ipc", "The IPC step's broad and narrow phase.", kReal,
          [](const StepTelemetry& t) { return t.ipc_collision_ms; }, {{kMean, "ms_per_step_ipc_collision"}}, ipc),
      Row(
          "ipc_energy_ms", "IPC energy", "ms", "ipc", "The IPC step's energies and gradients (line search included).",
          kReal, [](const StepTelemetry& t) { return t.ipc_energy_ms; }, {{kMean, "ms_per_step_ipc_energy"}}, ipc),
      Row(
          "ipc_hessian_ms", "IPC Hessian", "ms", "ipc", "The IPC step's Hessians, their projection and assembly.",
          kReal, [](const StepTelemetry& t) { return t.ipc_hessian_ms; }, {{kMean, "ms_per_step_ipc_hessian"}}, ipc),
      Row(
          "ipc_solve_ms", "IPC linear solve", "ms", "ipc", "The IPC step's sparse Cholesky factorisation and solve.",
          kReal, [](const StepTelemetry& t) { return t.ipc_solve_ms; }, {{kMean, "ms_per_step_ipc_linear_solve"}}, ipc),
      Row(
          "ipc_ccd_ms", "IPC CCD", "ms", "ipc", "The IPC step's continuous collision detection.", kReal,
          [](const StepTelemetry& t) { return t.ipc_ccd_ms; }, {{kMean, "ms_per_step_ipc_ccd"}}, ipc),
  };
}

// The projective-dynamics domain's, in steps that have it (StepTelemetry::has_pd).
std::vector<TelemetryChannel> PdRows() {
  constexpr bool StepTelemetry::*pd = &StepTelemetry::has_pd;
  return {
      Row(
          "pd_iterations", "PD iterations", "", "pd",
          "Local/global sweeps and Newton steps of the step, the most of any body.", kInteger,
          [](const StepTelemetry& t) { return static_cast<double>(t.pd_iterations); },
          {{kMean, "pd_iterations_mean"}, {kMax, "pd_iterations_max"}}, pd),
      Row(
          "pd_converged", "PD converged", "", "pd", "Whether every body met pd.tolerance within pd.max_iterations.",
          kFlag, [](const StepTelemetry& t) { return Flag(t.pd_converged); },
          {{kStepsWhereFalse, "pd_steps_not_converged"}}, pd),
      Row(
          "pd_residual", "PD residual", "", "pd",
          "The largest body's force residual relative to its weight and inertial forces.", kReal,
          [](const StepTelemetry& t) { return t.pd_residual; }, {{kMax, "pd_residual_max"}}, pd),
      Row(
          "pd_contacts", "PD contacts", "", "pd", "Vertices carrying a contact force at the step's end.", kInteger,
          [](const StepTelemetry& t) { return static_cast<double>(t.pd_contacts); },
          {{kMean, "pd_contacts_mean"}, {kMax, "pd_contacts_max"}}, pd),
      Row(
          "pd_contact_force", "PD contact force", "N", "pd",
          "Sum of the contact force magnitudes on rigid geometry and the ground.", kReal,
          [](const StepTelemetry& t) { return t.pd_contact_force; }, {{kMax, "pd_contact_force_max"}}, pd),
      Row(
          "pd_ms", "PD step", "ms", "pd", "Wall-clock time of the projective-dynamics step.", kReal,
          [](const StepTelemetry& t) { return t.pd_ms; }, {{kMean, "ms_per_step_pd"}}, pd),
  };
}

std::vector<TelemetryChannel> Build() {
  std::vector<TelemetryChannel> table = StepAndMpmRows();
  for (TelemetryChannel& row : RigidAndContactRows()) table.push_back(std::move(row));
  for (TelemetryChannel& row : IpcRows()) {
    row.when = "in scenes with soft or affine bodies";
    table.push_back(std::move(row));
  }
  for (TelemetryChannel& row : PdRows()) {
    row.when = "in scenes with pd bodies";
    table.push_back(std::move(row));
  }
  return table;
}

}  // namespace

const std::vector<TelemetryChannel>& TelemetryChannels() {
  static const std::vector<TelemetryChannel> table = Build();
  return table;
}

std::string TelemetryDocs() {
  std::string out = "| key | type | unit | domain | meaning | `--stats` keys |\n|---|---|---|---|---|---|\n";
  for (const TelemetryChannel& c : TelemetryChannels()) {
    const char* type = c.type == kFlag ? "bool" : c.type == kInteger ? "int" : "float";
    std::string stats;
    for (const ChannelSummary& summary : c.summaries)
      stats += (stats.empty() ? "`" : ", `") + std::string(summary.json_key) + "`";
    out += std::string("| `") + c.key + "` | " + type + " | " + (*c.unit != 0 ? c.unit : "–") + " | " + c.domain +
           " | " + c.doc + (*c.when != 0 ? std::string(" Only ") + c.when + "." : "") + " | " +
           (stats.empty() ? "–" : stats) + " |\n";
  }
  return out;
}

TelemetryDocsUpdate UpdateTelemetryDocs(const std::string& markdown) {
  static const std::string begin =
      "<!-- generated by `ductile-cli docs telemetry` from engine/src/domain/telemetry_channels.cpp -->\n";
  static const std::string end = "<!-- end of generated text -->";
  TelemetryDocsUpdate out;
  out.text = markdown;
  const std::size_t from = markdown.find(begin);
  const std::size_t to = from == std::string::npos ? from : markdown.find(end, from);
  if (to == std::string::npos) {
    out.problem = "no block between the lines '" + begin.substr(0, begin.size() - 1) + "' and '" + end + "'";
    return out;
  }
  const std::size_t start = from + begin.size();
  const std::string table = TelemetryDocs();
  out.changed = markdown.compare(start, to - start, table) != 0;
  out.text = markdown.substr(0, start) + table + markdown.substr(to);
  return out;
}

int FindTelemetryChannel(const std::string& key) {
  const std::vector<TelemetryChannel>& table = TelemetryChannels();
  for (std::size_t i = 0; i < table.size(); ++i)
    if (key == table[i].key) return static_cast<int>(i);
  return -1;
}

}  // namespace ductile
