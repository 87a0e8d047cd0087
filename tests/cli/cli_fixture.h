// What the tests of ductile-cli share: a fixture with a folder of its own and a small MPM scene in it (a rubber
// cube falling for 0.05 s), reading a file whole, and the command runners (tests/support/run_command.h), so that
// a test file says `using namespace cli_test;`.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../support/run_command.h"

namespace ductile::cli_test {

namespace fs = std::filesystem;

using Result = testing::CommandResult;
using testing::RunCli;
using testing::RunCommand;

inline std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ductile_cli_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    scene_ = dir_ / "scene.yaml";
    std::ofstream(scene_) << R"(
simulation: {dt: 1.0e-3, substeps: 2, duration: 0.05, output_rate: 100}
grid: {h: 0.02, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.4]}}
materials:
  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 1.0e4, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.08, 0.08, 0.08]}, pose: {position: [0, 0, 0.2]}}
output:
  probes:
    cube_com: {object: cube, quantity: center_of_mass}
)";
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  fs::path scene_;
};

}  // namespace ductile::cli_test
