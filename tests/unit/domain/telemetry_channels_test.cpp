// The telemetry channel table (ductile/telemetry.h): unique keys, each channel reading its own field of
// StepTelemetry, the FEM–IPC channels only in steps that have the domain, every `--stats` key in docs/cli.md's
// table and the generated table of docs/python.md equal to the engine's.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "ductile/telemetry.h"

namespace ductile {
namespace {

std::string ReadDoc(const char* name) {
  std::ifstream file(std::filesystem::path(DUCTILE_SOURCE_DIR) / "docs" / name);
  EXPECT_TRUE(file) << name;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// Every scalar of StepTelemetry set to a value of its own (flags false, the opposite of their defaults).
StepTelemetry DistinctTelemetry() {
  StepTelemetry t;
  double next = 1;
  for (double* x : {&t.wall_ms,           &t.active_nodes_avg,
                    &t.sort_ms,           &t.p2g_ms,
                    &t.grid_ms,           &t.g2p_ms,
                    &t.g2p2g_ms,          &t.rigid_ms,
                    &t.sap_residual,      &t.mpm_contact_residual,
                    &t.ipc_min_distance,  &t.ipc_kinematic_lag,
                    &t.ipc_contact_force, &t.ipc_ms,
                    &t.ipc_collision_ms,  &t.ipc_energy_ms,
                    &t.ipc_hessian_ms,    &t.ipc_solve_ms,
                    &t.ipc_ccd_ms,        &t.pd_residual,
                    &t.pd_contact_force,  &t.pd_ms})
    *x = next++ + 0.5;
  for (int* x :
       {&t.active_blocks, &t.substeps, &t.sap_iterations, &t.rigid_contacts, &t.mpm_contacts, &t.mpm_contacts_max,
        &t.mpm_contact_iterations, &t.ipc_newton_iterations, &t.ipc_active_pairs, &t.pd_iterations, &t.pd_contacts})
    *x = static_cast<int>(next++);
  t.sap_converged = t.mpm_contact_converged = t.ipc_converged = t.pd_converged = false;
  t.has_ipc = t.has_pd = true;
  return t;
}

TEST(TelemetryChannels, KeysAndStatsKeysAreUnique) {
  std::set<std::string> keys, json;
  for (const TelemetryChannel& c : TelemetryChannels()) {
    EXPECT_TRUE(keys.insert(c.key).second) << c.key;
    EXPECT_NE(c.read, nullptr) << c.key;
    EXPECT_STRNE(c.doc, "") << c.key;
    for (const ChannelSummary& s : c.summaries) EXPECT_TRUE(json.insert(s.json_key).second) << s.json_key;
  }
  EXPECT_EQ(FindTelemetryChannel("sap_iterations") >= 0, true);
  EXPECT_EQ(FindTelemetryChannel("no_such_channel"), -1);
}

TEST(TelemetryChannels, EachChannelReadsAFieldOfItsOwn) {
  // Two channels reading one field (a copy-and-paste slip) would read the same value here.
  const StepTelemetry t = DistinctTelemetry();
  std::set<double> values;
  for (const TelemetryChannel& c : TelemetryChannels()) {
    const double x = c.read(t);
    if (c.type == ChannelType::kFlag) {
      EXPECT_EQ(x, 0) << c.key;                        // every flag is false in `t`
      EXPECT_EQ(c.read(StepTelemetry{}), 1) << c.key;  // and true by default
    } else {
      EXPECT_TRUE(values.insert(x).second) << c.key << " reads " << x << ", as another channel does";
      EXPECT_EQ(c.type == ChannelType::kInteger, x == static_cast<int>(x)) << c.key;
    }
  }
  EXPECT_EQ(TelemetryChannels()[static_cast<std::size_t>(FindTelemetryChannel("sap_iterations"))].read(t),
            t.sap_iterations);
  EXPECT_EQ(TelemetryChannels()[static_cast<std::size_t>(FindTelemetryChannel("ipc_min_distance"))].read(t),
            t.ipc_min_distance);
}

TEST(TelemetryChannels, IpcAndPdChannelsAreInStepsWithTheirDomainOnly) {
  StepTelemetry with = DistinctTelemetry(), without_ipc = DistinctTelemetry(), without_pd = DistinctTelemetry();
  without_ipc.has_ipc = false;
  without_pd.has_pd = false;
  int ipc = 0, pd = 0;
  for (const TelemetryChannel& c : TelemetryChannels()) {
    const bool is_ipc = std::string(c.domain) == "ipc", is_pd = std::string(c.domain) == "pd";
    ipc += is_ipc ? 1 : 0;
    pd += is_pd ? 1 : 0;
    EXPECT_TRUE(c.In(with)) << c.key;
    EXPECT_EQ(c.In(without_ipc), !is_ipc) << c.key;
    EXPECT_EQ(c.In(without_pd), !is_pd) << c.key;
  }
  EXPECT_EQ(ipc, 12);
  EXPECT_EQ(pd, 6);
}

TEST(TelemetryChannels, EveryStatsKeyIsInTheCliDocs) {
  const std::string cli = ReadDoc("cli.md");
  const std::size_t table = cli.find("### Statistics JSON");
  ASSERT_NE(table, std::string::npos);
  const std::string stats = cli.substr(table, cli.find("\n\n", cli.find("| key |", table)) - table);
  for (const TelemetryChannel& c : TelemetryChannels())
    for (const ChannelSummary& s : c.summaries) {
      const std::string key = s.json_key;
      const bool listed =
          stats.find("| " + key + " |") != std::string::npos || stats.find("| " + key + ", ") != std::string::npos ||
          stats.find(", " + key + " |") != std::string::npos || stats.find(", " + key + ", ") != std::string::npos;
      EXPECT_TRUE(listed) << key << " is not in docs/cli.md's statistics table";
    }
}

TEST(TelemetryChannels, PythonDocsHoldTheGeneratedTable) {
  const std::string python = ReadDoc("python.md");
  const TelemetryDocsUpdate update = UpdateTelemetryDocs(python);
  ASSERT_EQ(update.problem, "");
  EXPECT_FALSE(update.changed) << "run ductile-cli docs telemetry --update docs/python.md";
  EXPECT_EQ(update.text, python);
  // A stale block is written again, the rest of the text kept; a text without the block is refused as it is.
  const std::string channel = "| `sap_iterations` |";
  std::string stale = python;
  stale.replace(stale.find(channel), channel.size(), "| `sap_iters` |");
  const TelemetryDocsUpdate fixed = UpdateTelemetryDocs(stale);
  EXPECT_TRUE(fixed.changed);
  EXPECT_EQ(fixed.text, python);
  const TelemetryDocsUpdate none = UpdateTelemetryDocs("# no table here\n");
  EXPECT_NE(none.problem.find("no block between the lines"), std::string::npos);
  EXPECT_EQ(none.text, "# no table here\n");
  EXPECT_NE(TelemetryDocs().find("| `sap_iterations` | int | – | rigid | Newton iterations of the rigid step's SAP "
                                 "solve. | `sap_iterations_mean`, `sap_iterations_max` |"),
            std::string::npos);
}

}  // namespace
}  // namespace ductile
