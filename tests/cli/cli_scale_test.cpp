// End-to-end tests of ductile-cli's checks of valid but absurd input (docs/cli.md, "Scale checks"): the
// impossible is refused before anything is allocated or run, the unwise is warned about with its numbers, by
// `validate` as by `run`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_fixture.h"

namespace ductile {
namespace {

using namespace cli_test;

TEST_F(CliTest, MoreStepsThanACountHoldsAreRefused) {
  const std::string absurd = " --set simulation.dt=1e-12 --duration 1e10";
  for (const char* command : {"validate ", "run "}) {
    const Result r = RunCli(command + scene_.string() + absurd);
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_NE(r.output.find("the run would take 1e+22 steps (1e+10 s at simulation.dt = 1e-12 s), more than a "
                            "64-bit step count holds"),
              std::string::npos)
        << r.output;
  }
}

TEST_F(CliTest, ARunOfHoursIsWarnedAboutBeforeItStarts) {
  // Δt = 1e-12 s asks 4e9 steps for 4 ms.
  const std::string slow = scene_.string() + " --set simulation.dt=1e-12 --duration 0.004";
  const Result validate = RunCli("validate " + slow);
  EXPECT_EQ(validate.exit_code, 0) << validate.output;
  EXPECT_NE(validate.output.find("warning: 4e+09 steps of simulation.dt = 1e-12 s (0.004 s simulated) with 2 "
                                 "substeps of "),
            std::string::npos)
      << validate.output;
  EXPECT_NE(validate.output.find("would take at least"), std::string::npos) << validate.output;
  EXPECT_NE(validate.output.find("raise simulation.dt, shorten --duration"), std::string::npos) << validate.output;
  // `run` warns before it opens its outputs: here one that fails, so nothing runs.
  const Result run = RunCli("run " + slow + " --trajectory /nonexistent-dir/t.csv");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.output.find("warning: 4e+09 steps"), std::string::npos) << run.output;
  EXPECT_LT(run.output.find("warning: 4e+09 steps"), run.output.find("/nonexistent-dir/t.csv")) << run.output;
  // The same scene for a sensible time draws no warning.
  EXPECT_EQ(RunCli("validate " + scene_.string()).output.find("warning"), std::string::npos);
}

TEST_F(CliTest, ARunMeasuredToTakeHoursIsWarnedAboutEarly) {
  // 2e8 steps of 512 particles: 47 min at the optimistic estimate (14 µs a step), which therefore stays silent,
  // and many hours at the cost measured in the run's first 2 s (0.1 to 0.3 ms a step on 2 cores). The run is
  // interrupted once that is said.
  const Result r = RunCommand("timeout -s INT --preserve-status 5 " + std::string(DUCTILE_CLI_PATH) + " run " +
                              scene_.string() + " --duration 2e5 --quiet");
  EXPECT_EQ(r.exit_code, 130) << r.output;
  EXPECT_EQ(r.output.find("would take at least"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("warning: at the measured "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" ms per step, the "), std::string::npos) << r.output;
}

// This machine's memory [bytes], as ductile-cli reads it.
double MachineMemory() {
  return static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
}

TEST_F(CliTest, AScenePastTheMachinesMemoryIsRefusedBeforeSampling) {
  // 1e9 particles per cell in the cube's 64 cells: 6.4e10 particles, 2.2e13 bytes, refused before one is sampled.
  const fs::path scene = dir_ / "huge.yaml";
  std::string text = ReadFile(scene_);
  text.replace(text.find("pose: {position: [0, 0, 0.2]}"), 29,
               "pose: {position: [0, 0, 0.2]}, particles_per_cell: 1000000000");
  std::ofstream(scene) << text;
  ASSERT_LT(MachineMemory(), 2e13) << "a machine this large needs a larger scene here";
  const fs::path stats = dir_ / "s.json";
  for (const std::string& command :
       {"validate " + scene.string(), "run " + scene.string() + " --stats " + stats.string()}) {
    const Result r = RunCli(command);
    EXPECT_EQ(r.exit_code, 2) << command << r.output;
    EXPECT_NE(r.output.find(scene.string() + ": the run needs about 6.4e+10 particles"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("more than this machine's"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("raise grid.h or lower the objects' particles_per_cell"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(stats));
}

TEST_F(CliTest, ASceneNeedingMostOfTheMachinesMemoryIsWarnedAbout) {
  // The cube becomes a rod of 0.4 x 0.02 x 0.02 m (20 cells of 0.02 m) with particles_per_cell chosen for 3/4 of
  // this machine's memory at 350 bytes a particle. Turned along the domain's diagonal, its bounding box holds far
  // more than the 2e8 candidate points that the engine samples at most, so compiling the scene is refused at once
  // instead of sampling the particles: the warning, which comes first, is what is checked.
  const long ppc = std::lround(0.75 * MachineMemory() / 350 / 20);
  const fs::path scene = dir_ / "big.yaml";
  std::string text = ReadFile(scene_);
  const std::string cube = "shape: {type: box, size: [0.08, 0.08, 0.08]}, pose: {position: [0, 0, 0.2]}";
  text.replace(text.find(cube), cube.size(),
               "shape: {type: box, size: [0.4, 0.02, 0.02]}, pose: {position: [0, 0, 0.2], rpy_deg: [0, -35, 45]}, "
               "particles_per_cell: " +
                   std::to_string(ppc));
  std::ofstream(scene) << text;
  const Result r = RunCli("validate " + scene.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("warning: " + scene.string() + ": the run needs about "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("more than half of this machine's"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("more than the 2e8 supported"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace ductile
