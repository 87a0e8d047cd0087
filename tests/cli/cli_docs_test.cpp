// `ductile-cli docs parameters` (docs/cli.md): prints the parameter table's Markdown, checks a docs file against it
// and writes its lines into one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_fixture.h"

namespace ductile {
namespace {

using namespace cli_test;

const char* const kDtLine = "| `dt` | number | s | `0.001` | > 0 | Rigid (outer) time step Δt. |";

fs::path SceneFormat() {
  return fs::path(DUCTILE_SOURCE_DIR) / "docs" / "scene-format.md";
}

TEST_F(CliTest, DocsParametersPrintsTheTables) {
  const Result r = RunCli("docs parameters");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("## `simulation`\n", 0), 0U) << r.output.substr(0, 200);
  EXPECT_NE(r.output.find(kDtLine), std::string::npos);
  EXPECT_NE(r.output.find("### `ipc`"), std::string::npos);
  EXPECT_EQ(RunCli("docs").exit_code, 2);  // a topic is required
}

TEST_F(CliTest, DocsParametersChecksAndUpdatesADocsFile) {
  EXPECT_EQ(RunCli("docs parameters --check '" + SceneFormat().string() + "'").exit_code, 0);

  const std::string original = ReadFile(SceneFormat());
  std::string edited = original;
  const std::size_t at = edited.find(kDtLine);
  ASSERT_NE(at, std::string::npos);
  edited.replace(at, std::string(kDtLine).size(), "| `dt` | number | s | `2` | > 0 | Stale. |");
  const fs::path copy = dir_ / "scene-format.md";
  std::ofstream(copy) << edited;

  const Result check = RunCli("docs parameters --check '" + copy.string() + "'");
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_NE(check.output.find("scene-format.md:"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("differs from the parameter table"), std::string::npos) << check.output;
  EXPECT_EQ(ReadFile(copy), edited);  // --check writes nothing

  const Result update = RunCli("docs parameters --update '" + copy.string() + "'");
  EXPECT_EQ(update.exit_code, 0) << update.output;
  EXPECT_NE(update.output.find("1 line written from the parameter table"), std::string::npos) << update.output;
  EXPECT_EQ(ReadFile(copy), original);
}

TEST_F(CliTest, DocsParametersReportsAFileItCannotRead) {
  const Result r = RunCli("docs parameters --update '" + (dir_ / "missing.md").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("cannot read"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "missing.md"));
  EXPECT_NE(RunCli("docs parameters --check a.md --update b.md").exit_code, 0);
}

TEST_F(CliTest, DocsTelemetryChecksAndUpdatesItsBlock) {
  const Result print = RunCli("docs telemetry");
  EXPECT_EQ(print.exit_code, 0);
  EXPECT_EQ(print.output.rfind("| key | type | unit | domain | meaning | `--stats` keys |\n", 0), 0U) << print.output;
  EXPECT_NE(print.output.find("| `ipc_newton_iterations` | int |"), std::string::npos);

  const fs::path python = fs::path(DUCTILE_SOURCE_DIR) / "docs" / "python.md";
  EXPECT_EQ(RunCli("docs telemetry --check '" + python.string() + "'").exit_code, 0);
  const std::string original = ReadFile(python);
  std::string edited = original;
  const std::size_t at = edited.find("| `wall_ms` |");
  ASSERT_NE(at, std::string::npos);
  edited.erase(at, edited.find('\n', at) + 1 - at);  // a channel's line lost
  const fs::path copy = dir_ / "python.md";
  std::ofstream(copy) << edited;
  const Result check = RunCli("docs telemetry --check '" + copy.string() + "'");
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_NE(check.output.find("differs from the engine's"), std::string::npos) << check.output;
  EXPECT_EQ(RunCli("docs telemetry --update '" + copy.string() + "'").exit_code, 0);
  EXPECT_EQ(ReadFile(copy), original);

  std::ofstream(copy) << "# A file without the block\n";
  const Result none = RunCli("docs telemetry --update '" + copy.string() + "'");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.output.find("no block between the lines"), std::string::npos) << none.output;
  EXPECT_EQ(ReadFile(copy), "# A file without the block\n");
}

}  // namespace
}  // namespace ductile
