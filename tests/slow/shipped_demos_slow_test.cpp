// The demo logs shipped in scenes/demos/ (written by scripts/make-demos) replay to the final state they recorded:
// `ductile-cli replay LOG` exits 0 only when the final state hash matches bitwise. Label `slow`: the logs drive
// the teleoperation scenes for 2-3 simulated seconds each, minutes in all on 2 cores. A log that no longer matches
// after a change to the simulation's arithmetic is regenerated with scripts/make-demos. A log that names the BLAS
// kernels of its run (`blas_kernels`: FEM bodies and the strong coupling round as they do, and OpenBLAS picks them by
// CPU) is replayed with them forced (OPENBLAS_CORETYPE), so it checks the same arithmetic on any machine whose CPU
// has those kernels' instructions (soft_toy_pick's SkylakeX kernels need AVX-512).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../support/run_command.h"
#include "ductile/demo_log.h"

namespace ductile {
namespace {

TEST(ShippedDemos, ReplayToTheirRecordedState) {
  const std::filesystem::path folder = std::filesystem::path(DUCTILE_SOURCE_DIR) / "scenes" / "demos";
  std::vector<std::filesystem::path> logs;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().string().ends_with(".demo.yaml")) logs.push_back(entry.path());
  ASSERT_FALSE(logs.empty()) << "no demo logs in " << folder;
  for (const std::filesystem::path& log : logs) {
    const std::string kernels = LoadDemoLog(log).blas_kernels;
    const std::string force = kernels.empty() ? "" : "OPENBLAS_CORETYPE=" + kernels + " ";
    const testing::CommandResult r =
        testing::RunCommand(force + std::string(DUCTILE_CLI_PATH) + " replay '" + log.string() + "'");
    EXPECT_EQ(r.exit_code, 0) << log << ":\n" << r.output;
    EXPECT_NE(r.output.find("replay reproduces the log"), std::string::npos) << log << ":\n" << r.output;
  }
}

}  // namespace
}  // namespace ductile
