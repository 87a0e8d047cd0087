// End-to-end tests of ductile-cli: exit codes, output formats, overrides, and atomic outputs.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../physics/arm_scene.h"
#include "cli_fixture.h"
#include "decoded_video.h"

namespace ductile {
namespace {

using namespace cli_test;

TEST_F(CliTest, VersionAndHelp) {
  EXPECT_EQ(RunCli("--version").exit_code, 0);
  const Result help = RunCli("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("validate"), std::string::npos);
  EXPECT_NE(help.output.find("run"), std::string::npos);
  const Result run_help = RunCli("run --help");
  EXPECT_NE(run_help.output.find("--trajectory"), std::string::npos);
  EXPECT_NE(run_help.output.find("--stats"), std::string::npos);
  EXPECT_NE(run_help.output.find("--save-state"), std::string::npos);
  EXPECT_NE(run_help.output.find("--load-state"), std::string::npos);
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(RunCli("").exit_code, 2);
  EXPECT_EQ(RunCli("frobnicate").exit_code, 2);
  EXPECT_EQ(RunCli("run " + scene_.string() + " --no-such-flag").exit_code, 2);
  EXPECT_EQ(RunCli("run " + scene_.string() + " --set nonsense").exit_code, 2);
  EXPECT_EQ(RunCli("run " + scene_.string() + " --duration -1").exit_code, 2);
}

TEST_F(CliTest, ValidateGoodAndBadScenes) {
  const Result good = RunCli("validate " + scene_.string());
  EXPECT_EQ(good.exit_code, 0) << good.output;
  EXPECT_NE(good.output.find("ok"), std::string::npos);

  const fs::path bad = dir_ / "bad.yaml";
  std::ofstream(bad) << "materials:\n  rubber: {model: fixed_corotated, density: -1, youngs_modulus: 1, "
                        "poisson_ratio: 0.3}\n";
  const Result r = RunCli("validate " + bad.string());
  EXPECT_EQ(r.exit_code, 2);
  // FILE:LINE:COL: message
  EXPECT_NE(r.output.find(bad.string() + ":2:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("density"), std::string::npos) << r.output;

  const Result missing = RunCli("validate " + (dir_ / "nope.yaml").string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("nope.yaml"), std::string::npos);

  // What a domain refuses (the strong scheme with a collider) fails validate as it fails run, at the key's place.
  const fs::path strong = dir_ / "strong.yaml";
  std::ofstream(strong) << "simulation: {coupling: strong}\n"
                           "grid: {h: 0.02, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.4]}}\n"
                           "colliders:\n  floor: {shape: {type: plane}}\n";
  for (const char* command : {"validate ", "run "}) {
    const Result refused = RunCli(command + strong.string());
    EXPECT_EQ(refused.exit_code, 2) << command;
    EXPECT_NE(refused.output.find(strong.string() + ":1:"), std::string::npos) << refused.output;
    EXPECT_NE(refused.output.find("simulation.coupling: strong: the strong coupling takes no colliders"),
              std::string::npos)
        << refused.output;
  }
}

TEST_F(CliTest, RunWritesTrajectoryProbesAndStats) {
  const fs::path traj = dir_ / "t.csv", probes = dir_ / "p.csv", stats = dir_ / "s.json";
  const Result r = RunCli("run " + scene_.string() + " --trajectory " + traj.string() + " --probes " + probes.string() +
                          " --stats " + stats.string() + " --threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;

  std::istringstream lines(ReadFile(traj));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "time,body,x,y,z,qw,qx,qy,qz");
  int rows = 0;
  double last_time = -1, last_z = 1;
  while (std::getline(lines, line)) {
    ++rows;
    std::istringstream f(line);
    std::string time, body, x, y, z;
    std::getline(f, time, ',');
    std::getline(f, body, ',');
    std::getline(f, x, ',');
    std::getline(f, y, ',');
    std::getline(f, z, ',');
    EXPECT_EQ(body, "cube");
    EXPECT_GT(std::stod(time), last_time);
    last_time = std::stod(time);
    last_z = std::stod(z);
    EXPECT_EQ(line.substr(line.size() - 4), ",,,,");  // an MPM object has no orientation
  }
  // 0.05 s at 100 Hz: frames at t = 0, 0.01, ..., 0.05.
  EXPECT_EQ(rows, 6);
  EXPECT_NEAR(last_time, 0.05, 1e-9);
  EXPECT_LT(last_z, 0.2);  // it fell

  const std::string p = ReadFile(probes);
  EXPECT_EQ(p.substr(0, p.find('\n')), "time,probe,object,quantity,component,value");
  EXPECT_NE(p.find("cube_com,cube,center_of_mass,z,"), std::string::npos);

  const std::string s = ReadFile(stats);
  for (const char* key :
       {"particles", "h", "dt", "substeps", "steps", "wall_seconds", "ms_per_step_median", "ms_per_step_mean",
        "active_nodes_avg", "realtime_factor", "ms_per_step_p2g", "ms_per_step_g2p", "ms_per_step_g2p2g"}) {
    EXPECT_NE(s.find(std::string("\"") + key + "\":"), std::string::npos) << key;
  }
  EXPECT_NE(s.find("\"steps\": 50"), std::string::npos) << s;
}

TEST_F(CliTest, OverridesChangeTheRun) {
  const fs::path traj = dir_ / "t.csv";
  const Result r =
      RunCli("run " + scene_.string() + " --set simulation.gravity.2=0 --trajectory " + traj.string() + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string t = ReadFile(traj);
  const std::string last = t.substr(t.rfind('\n', t.size() - 2) + 1);
  // Without gravity the cube stays where it was: z = 0.2 within float resolution.
  std::istringstream f(last);
  std::string field;
  for (int i = 0; i < 5; ++i) std::getline(f, field, ',');
  EXPECT_NEAR(std::stod(field), 0.2, 1e-5);

  const Result bad = RunCli("run " + scene_.string() + " --set materials.rubber.poisson_ratio=0.5");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("--set materials.rubber.poisson_ratio=0.5: 'poisson_ratio' must be in (-1, 0.5)"),
            std::string::npos)
      << bad.output;
  EXPECT_EQ(bad.output.find("--set: "), std::string::npos) << bad.output;
}

TEST_F(CliTest, DivergedRunExitsOneWithAMessage) {
  const fs::path stats = dir_ / "s.json";
  const Result r =
      RunCli("run " + scene_.string() +
             " --set materials.rubber.youngs_modulus=1e9 --set simulation.substeps=1 --stats " + stats.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("diverged"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("object 'cube'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("warning: simulation.substeps = 1"), std::string::npos) << r.output;
  // The statistics of the partial run are written and say so.
  EXPECT_NE(ReadFile(stats).find("\"diverged\": true"), std::string::npos);
}

TEST_F(CliTest, UnwritableOutputFailsBeforeRunning) {
  const Result r =
      RunCli("run " + scene_.string() + " --trajectory /nonexistent-dir/t.csv --stats " + (dir_ / "s.json").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("/nonexistent-dir/t.csv"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "s.json"));
  // Nothing half-written is left behind.
  for (const auto& entry : fs::directory_iterator(dir_)) EXPECT_EQ(entry.path().extension(), ".yaml");
}

TEST_F(CliTest, InterruptedRunLeavesNoOutput) {
  const fs::path traj = dir_ / "t.csv";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string scene = scene_.string(), out = traj.string();
    execl(DUCTILE_CLI_PATH, DUCTILE_CLI_PATH, "run", scene.c_str(), "--duration", "1000", "--trajectory", out.c_str(),
          "--quiet", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until the run has started writing (its temporary file exists), then interrupt it.
  bool started = false;
  for (int i = 0; i < 200 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    for (const auto& entry : fs::directory_iterator(dir_))
      if (entry.path().string().find("t.csv.tmp") != std::string::npos) started = true;
  }
  EXPECT_TRUE(started);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_FALSE(fs::exists(traj));
  for (const auto& entry : fs::directory_iterator(dir_)) EXPECT_EQ(entry.path().extension(), ".yaml");
}

TEST_F(CliTest, RigidBodiesAppearInTrajectoryContactCsvAndStats) {
  // A 2 kg box resting on the ground: the contact force on it is its weight.
  const fs::path scene = dir_ / "rigid.yaml", traj = dir_ / "t.csv", csv = dir_ / "f.csv", stats = dir_ / "s.json";
  std::ofstream(scene) << R"(
simulation: {dt: 1.0e-3, duration: 0.2, output_rate: 50}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
  crate: {shape: {type: box, size: [0.2, 0.2, 0.2]}, mass: 2.0, pose: {position: [0, 0, 0.1]}}
)";
  const Result r = RunCli("run " + scene.string() + " --trajectory " + traj.string() + " --csv " + csv.string() +
                          " --stats " + stats.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream t(ReadFile(traj));
  std::string line;
  std::getline(t, line);
  ASSERT_EQ(line, "time,body,x,y,z,qw,qx,qy,qz");
  int rows = 0;
  while (std::getline(t, line)) {
    ++rows;
    EXPECT_EQ(line.find(",crate,"), line.find(',')) << line;  // only the moving body; the ground is static
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 8);
    EXPECT_EQ(line.find(",,"), std::string::npos) << "a rigid body has an orientation: " << line;
  }
  EXPECT_EQ(rows, 11);  // t = 0, 0.02, ..., 0.2
  std::istringstream f(ReadFile(csv));
  std::getline(f, line);
  ASSERT_EQ(line, "time,body,fx,fy,fz,tx,ty,tz,mpm_contacts");
  double last_fz = 0;
  rows = 0;
  while (std::getline(f, line)) {
    ++rows;
    std::istringstream cells(line);
    std::vector<std::string> c;
    for (std::string cell; std::getline(cells, cell, ',');) c.push_back(cell);
    ASSERT_EQ(c.size(), 9u) << line;
    EXPECT_EQ(c[1], "crate");
    EXPECT_EQ(c[8], "0");  // no MPM in this scene
    last_fz = std::stod(c[4]);
  }
  EXPECT_EQ(rows, 10);  // every frame after t = 0
  EXPECT_NEAR(last_fz, 2.0 * 9.81, 1e-3 * 2.0 * 9.81);
  const std::string s = ReadFile(stats);
  for (const char* key : {"rigid_bodies", "rigid_dofs", "ms_per_step_rigid", "sap_iterations_mean",
                          "sap_iterations_max", "sap_steps_not_converged", "rigid_contacts_mean"})
    EXPECT_NE(s.find(std::string("\"") + key + "\":"), std::string::npos) << key;
  EXPECT_NE(s.find("\"rigid_dofs\": 6"), std::string::npos) << s;
  EXPECT_NE(s.find("\"sap_steps_not_converged\": 0"), std::string::npos) << s;
}

// Robot warnings (issue 45; docs/cli.md, "Statistics JSON"): the iiwa's wrist folded into itself by its joint target
// (2.09 rad, no IK) with its link_force_limit lowered to 5 N by `--set`: the self-contact of links 5 and 7 and each
// of the two links above the limit are printed once, with the time, however many steps they last, and written to
// stats.json with their first and largest force; the most loaded link is in robot_link_force_max. Without the fold
// nothing is printed and the list is empty.
TEST_F(CliTest, RobotWarningsArePrintedOnceAndWrittenToTheStats) {
  const fs::path scene = dir_ / "arm.yaml", stats = dir_ / "s.json", calm = dir_ / "calm.json";
  std::ofstream(scene) << testing::IiwaGripperScene();
  const std::string run = "run " + scene.string() + " --duration 1 --set robots.arm.link_force_limit=5";
  const Result r = RunCli(run + " --set robots.arm.controllers.iiwa_joint_6.target=2.09 --stats " + stats.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(r.output, "links iiwa_link_5 and iiwa_link_7 touch (self-contact)"), 1) << r.output;
  EXPECT_EQ(count(r.output, "link iiwa_link_5 carries"), 1) << r.output;
  EXPECT_EQ(count(r.output, "link iiwa_link_7 carries"), 1) << r.output;
  EXPECT_EQ(count(r.output, "warning: t = "), 3) << r.output;
  const std::string s = ReadFile(stats);
  EXPECT_NE(s.find(R"("robot": "arm", "kind": "self_contact", "links": ["iiwa_link_5", "iiwa_link_7"], "time": )"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(R"("kind": "link_force", "links": ["iiwa_link_5"])"), std::string::npos) << s;
  EXPECT_NE(s.find(R"("limit": 5, "message": "robot 'arm': links iiwa_link_5 and iiwa_link_7 touch)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(R"("robot_link_force_max": {)"
                   "\n"
                   R"(    "arm": {"link": "iiwa_link_)"),
            std::string::npos)
      << s;
  const Result quiet = RunCli(run + " --stats " + calm.string());
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find("warning"), std::string::npos) << quiet.output;
  EXPECT_NE(ReadFile(calm).find(R"("robot_warnings": [],)"), std::string::npos) << ReadFile(calm);
}

TEST_F(CliTest, BadUrdfIsReportedAtItsLineWithExitTwo) {
  const fs::path scene = dir_ / "robot.yaml";
  std::ofstream(scene) << "robots:\n  arm: {urdf: " << DUCTILE_SOURCE_DIR
                       << "/tests/data/urdf/bad/negative_mass.urdf}\n";
  const Result r = RunCli("validate " + scene.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("negative_mass.urdf:4:13:"), std::string::npos) << r.output;
}

TEST_F(CliTest, BenchPrintsTheTableAndWritesJsonRows) {
  // Two scenes: the MPM cube and a plate scene with MPM-rigid contact, so the contact columns are not all zero.
  const fs::path plate = dir_ / "plate.yaml";
  std::ofstream(plate) << R"(
simulation: {dt: 1.0e-3, substeps: 4, duration: 0.02}
grid: {h: 0.02, domain: {min: [-0.2, -0.2, -0.1], max: [0.2, 0.2, 0.3]}}
materials:
  rubber: {model: fixed_corotated, density: 400, youngs_modulus: 1.0e5, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.1, 0.1, 0.1]}, pose: {position: [0, 0, 0.045]}}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
)";
  const fs::path json = dir_ / "bench.json";
  const Result r = RunCli("bench " + scene_.string() + " " + plate.string() + " --duration 0.02 --json " +
                          json.string() + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* column :
       {"scene", "particles", "n_v avg", "ms/step", "contacts avg", "contacts max", "iterations", "real time"})
    EXPECT_NE(r.output.find(column), std::string::npos) << column << " in\n" << r.output;
  const std::string rows = ReadFile(json);
  EXPECT_EQ(rows.front(), '[');
  for (const char* key : {"scene", "h", "particles", "n_v", "dt", "substeps", "ms_per_step", "contacts_avg",
                          "contacts_max", "iterations_avg", "realtime_factor"})
    EXPECT_NE(rows.find(std::string("\"") + key + "\":"), std::string::npos) << key << " in " << rows;
  EXPECT_NE(rows.find("\"scene\": \"scene\""), std::string::npos) << rows;
  EXPECT_NE(rows.find("\"scene\": \"plate\""), std::string::npos) << rows;
  EXPECT_NE(rows.find("\"substeps\": 4"), std::string::npos) << rows;
  // The cube starts 5 mm into the ground: the plate row has particle contacts and solver iterations.
  const std::size_t plate_row = rows.find("\"scene\": \"plate\"");
  EXPECT_EQ(rows.find("\"contacts_max\": 0,", plate_row), std::string::npos) << rows;
}

TEST_F(CliTest, BenchRejectsBadScenesAndPathsBeforeRunning) {
  const Result missing = RunCli("bench " + (dir_ / "nope.yaml").string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("nope.yaml"), std::string::npos) << missing.output;
  const Result unwritable = RunCli("bench " + scene_.string() + " --json /nonexistent/dir/b.json");
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_NE(unwritable.output.find("/nonexistent/dir/b.json"), std::string::npos) << unwritable.output;
  EXPECT_EQ(unwritable.output.find("ms/step"), std::string::npos) << "nothing runs: " << unwritable.output;
}

// --strong-table: the five Table I rows of Zong et al. 2024, each at Δt = 10 ms with one step under the strong
// coupling (one step each here: a few seconds in all, the dough rolling's 960 floor contacts most of it).
TEST_F(CliTest, BenchStrongTableRunsThePapersFiveScenesUnderTheStrongCoupling) {
  const fs::path json = dir_ / "strong.json";
  const Result r = RunCli("bench --strong-table --duration 0.01 --json " + json.string() + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string rows = ReadFile(json);
  for (const char* scene : {"ball_on_slope", "dough_tearing", "dough_rolling", "water_pouring", "close_lift_shake"})
    EXPECT_NE(rows.find(std::string("\"scene\": \"") + scene + "\""), std::string::npos) << scene << " in " << rows;
  std::size_t at = 0;
  int rows_at_ten_ms = 0;
  while ((at = rows.find("\"dt\": 0.01, \"substeps\": 1,", at)) != std::string::npos) {
    ++rows_at_ten_ms;
    ++at;
  }
  EXPECT_EQ(rows_at_ten_ms, 5) << rows;
  const Result with_scene = RunCli("bench --strong-table " + scene_.string());
  EXPECT_EQ(with_scene.exit_code, 2);
  EXPECT_NE(with_scene.output.find("--strong-table"), std::string::npos) << with_scene.output;
}

// Width and height from a PNG's IHDR chunk (big-endian at bytes 16-23), or {0, 0} when it is not a PNG.
std::pair<int, int> PngSize(const fs::path& path) {
  const std::string data = ReadFile(path);
  if (data.size() < 24 || data.compare(1, 3, "PNG") != 0 || data.compare(12, 4, "IHDR") != 0) return {0, 0};
  const auto be32 = [&](std::size_t at) {
    int v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(data[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

TEST_F(CliTest, ScreenshotIsWrittenAtTheRequestedSizeAndTime) {
  const fs::path png = dir_ / "shot.png";
  const Result r = RunCli("run " + scene_.string() + " --quiet --screenshot " + png.string() +
                          " --at 0.02 --size 200x120 --color speed");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(PngSize(png), std::make_pair(200, 120));
  // A picture of a lit scene compresses far less than a uniform image of that size (a few hundred bytes).
  EXPECT_GT(fs::file_size(png), 2000u);
  // No temporary file is left beside it.
  int files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 2) << "scene.yaml and shot.png only";
}

TEST_F(CliTest, ScreenshotProblemsAreReportedBeforeRunning) {
  const Result folder = RunCli("run " + scene_.string() + " --screenshot /nonexistent/dir/s.png");
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_NE(folder.output.find("/nonexistent/dir/s.png"), std::string::npos) << folder.output;
  EXPECT_NE(folder.output.find("does not exist"), std::string::npos) << folder.output;
  const Result late = RunCli("run " + scene_.string() + " --screenshot " + (dir_ / "s.png").string() + " --at 1");
  EXPECT_EQ(late.exit_code, 2);
  EXPECT_NE(late.output.find("--at must lie in [0, 0.05"), std::string::npos) << late.output;
  const Result size = RunCli("run " + scene_.string() + " --screenshot " + (dir_ / "s.png").string() + " --size 12");
  EXPECT_EQ(size.exit_code, 2);
  EXPECT_NE(size.output.find("--size must be WIDTHxHEIGHT"), std::string::npos) << size.output;
  const Result color = RunCli("run " + scene_.string() + " --screenshot " + (dir_ / "s.png").string() + " --color x");
  EXPECT_EQ(color.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir_ / "s.png"));
}

// Skips the test when ductile-cli could not render because the machine has no Vulkan device (exit 1 with
// NoVulkanDeviceError's message); any other failure is left to the test's assertions.
#define SKIP_WITHOUT_VULKAN(result)                                                        \
  if ((result).exit_code == 1 && (result).output.find("no Vulkan") != std::string::npos) { \
    GTEST_SKIP() << "no Vulkan device to render with: " << (result).output;                \
  }

// Mean absolute difference of the RGB channels of two images of the same size [levels of 255].
double MeanAbsoluteDifference(const render::Image& a, const render::Image& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.rgba.size(); ++i)
    if (i % 4 != 3) sum += std::abs(static_cast<int>(a.rgba[i]) - static_cast<int>(b.rgba[i]));
  return sum / (0.75 * static_cast<double>(a.rgba.size()));
}

// Pixels in rows [row_begin, row_end) of two images of the same size where a channel differs by more than 40 levels:
// what moved or was drawn over, not H.264's loss.
int ChangedPixels(const render::Image& a, const render::Image& b, int row_begin, int row_end) {
  int changed = 0;
  for (std::size_t i = 4 * static_cast<std::size_t>(row_begin * a.width);
       i < 4 * static_cast<std::size_t>(row_end * a.width); i += 4) {
    int most = 0;
    for (int c = 0; c < 3; ++c) most = std::max(most, std::abs(static_cast<int>(a.rgba[i + c]) - b.rgba[i + c]));
    if (most > 40) ++changed;
  }
  return changed;
}

TEST_F(CliTest, VideoHasAFrameForEveryIntervalOfSimulatedTime) {
  const fs::path mp4 = dir_ / "out.mp4";
  const Result r = RunCli("run " + scene_.string() + " --duration 0.5 --video " + mp4.string() +
                          " --fps 20 --size 320x240 --overlay --threads 1");
  SKIP_WITHOUT_VULKAN(r);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("video: " + mp4.string() + " (10 frames of 320x240 at 20 fps, 0.5 s)"), std::string::npos)
      << r.output;
  // Frames k = 0, 1, ... with k / fps before the end of the run: k = 0..9 for 0.5 s at 20 fps, frame k at k / 20 s.
  const test::DecodedVideo video = test::DecodeVideo(mp4, {0, 9});
  ASSERT_EQ(video.open_error, "");
  EXPECT_EQ(video.first_error, "");
  EXPECT_EQ(video.width, 320);
  EXPECT_EQ(video.height, 240);
  ASSERT_EQ(video.frames, 10);
  for (int k = 0; k < video.frames; ++k) EXPECT_NEAR(video.times[k], k / 20.0, 1e-6) << k;
  EXPECT_NEAR(video.container_duration, 0.5, 1.0 / 20);
  // The cube falls 0.16 m onto the domain floor within 0.2 s: below the HUD, a few hundred pixels (the cube is about
  // 30 pixels wide) change by far more than H.264's loss (a few levels).
  ASSERT_EQ(video.kept.size(), 2u);
  EXPECT_GT(ChangedPixels(video.kept.at(0), video.kept.at(9), 80, 240), 300);

  // The same run without --overlay differs in the HUD's corner (a dark panel with text) and nowhere else.
  const fs::path plain_mp4 = dir_ / "plain.mp4";
  const Result plain = RunCli("run " + scene_.string() + " --duration 0.5 --video " + plain_mp4.string() +
                              " --fps 20 --size 320x240 --threads 1");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  const test::DecodedVideo plain_video = test::DecodeVideo(plain_mp4, {0});
  ASSERT_EQ(plain_video.kept.size(), 1u);
  EXPECT_GT(ChangedPixels(video.kept.at(0), plain_video.kept.at(0), 0, 60), 1000);
  EXPECT_LT(ChangedPixels(video.kept.at(0), plain_video.kept.at(0), 100, 240), 20);
}

TEST_F(CliTest, AStepLongerThanAFrameFillsSeveralFrames) {
  // Δt = 0.1 s at 30 fps: 15 frames for 0.5 s, most of them repeats of a step's state.
  const fs::path mp4 = dir_ / "slow.mp4";
  const Result r = RunCli("run " + scene_.string() + " --set simulation.dt=0.1 --set simulation.substeps=400 " +
                          "--duration 0.5 --video " + mp4.string() + " --fps 30 --size 160x120 --quiet");
  SKIP_WITHOUT_VULKAN(r);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const test::DecodedVideo video = test::DecodeVideo(mp4, {1, 3, 4});
  ASSERT_EQ(video.frames, 15) << video.first_error;
  // Frames 1 to 3 (t = 1/30 to 3/30 s) all show the state at t = 0.1 s (a repeated picture comes out of H.264 the
  // same or within a level); frame 4 the state at 0.2 s, when the cube (about 15 pixels wide) has fallen 11 cm.
  EXPECT_LT(MeanAbsoluteDifference(video.kept.at(1), video.kept.at(3)), 0.5);
  EXPECT_GT(ChangedPixels(video.kept.at(3), video.kept.at(4), 0, 120), 100);
}

TEST_F(CliTest, VideoProblemsAreReportedBeforeRunning) {
  const Result folder = RunCli("run " + scene_.string() + " --video /nonexistent/dir/v.mp4");
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_NE(folder.output.find("video '/nonexistent/dir/v.mp4': folder '/nonexistent/dir' does not exist"),
            std::string::npos)
      << folder.output;
  EXPECT_EQ(folder.output.find("steps"), std::string::npos) << "nothing runs: " << folder.output;
  const fs::path mp4 = dir_ / "v.mp4";
  const Result odd = RunCli("run " + scene_.string() + " --video " + mp4.string() + " --size 321x240");
  EXPECT_EQ(odd.exit_code, 2);
  EXPECT_NE(odd.output.find("must be even"), std::string::npos) << odd.output;
  const Result rate = RunCli("run " + scene_.string() + " --video " + mp4.string() + " --fps 0");
  EXPECT_EQ(rate.exit_code, 2);
  EXPECT_NE(rate.output.find("frame rate must lie in [1, 240]"), std::string::npos) << rate.output;
  EXPECT_EQ(RunCli("run " + scene_.string() + " --fps 20").exit_code, 2) << "--fps needs --video";
  EXPECT_FALSE(fs::exists(mp4));
  if (::geteuid() != 0) {  // Root writes into read-only folders.
    const fs::path locked = dir_ / "locked";
    fs::create_directories(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    const Result unwritable = RunCli("run " + scene_.string() + " --video " + (locked / "v.mp4").string());
    fs::permissions(locked, fs::perms::owner_all);
    EXPECT_EQ(unwritable.exit_code, 2);
    EXPECT_NE(unwritable.output.find("is not writable"), std::string::npos) << unwritable.output;
  }
}

TEST_F(CliTest, InterruptedRunClosesItsVideo) {
  const fs::path mp4 = dir_ / "v.mp4";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string scene = scene_.string(), out = mp4.string();
    execl(DUCTILE_CLI_PATH, DUCTILE_CLI_PATH, "run", scene.c_str(), "--duration", "1000", "--video", out.c_str(),
          "--fps", "10", "--size", "64x48", "--quiet", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until a few fragments are written (the header alone is under 1 kB), then interrupt the run.
  bool recording = false;
  for (int i = 0; i < 400 && !recording; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(mp4, ec);
    recording = !ec && size > 4000;
  }
  EXPECT_TRUE(recording);
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 1) GTEST_SKIP() << "no Vulkan device to render with";
  EXPECT_EQ(WEXITSTATUS(status), 130);
  // Closed, not cut off: the file ends with the fragment index (`mfra`, whose last box is the 16-byte `mfro`).
  const std::string data = ReadFile(mp4);
  ASSERT_GT(data.size(), 16u);
  EXPECT_EQ(data.substr(data.size() - 12, 4), "mfro");
  const test::DecodedVideo video = test::DecodeVideo(mp4);
  ASSERT_EQ(video.open_error, "");
  EXPECT_EQ(video.first_error, "");
  EXPECT_GE(video.frames, 5);
  EXPECT_NEAR(video.container_duration, video.frames / 10.0, 0.1 + 1e-9);
}

TEST(Scenes, EveryShippedSceneRuns) {
  // Each scene in scenes/ validates and runs a few steps from the command line.
  int count = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(DUCTILE_SOURCE_DIR) / "scenes")) {
    if (entry.path().extension() != ".yaml") continue;
    ++count;
    const Result r = RunCli("run " + entry.path().string() + " --duration 0.01 --quiet");
    EXPECT_EQ(r.exit_code, 0) << entry.path() << ": " << r.output;
    EXPECT_EQ(r.output.find("warning"), std::string::npos) << entry.path() << ": " << r.output;
  }
  EXPECT_GE(count, 4);
}

// Demo logs (issue 6): a run's log replays to the same final state; a log of teleoperation, gripper and live-edit
// events replays bitwise on any thread count; a wrong hash, a malformed log and a missing scene are reported.
TEST_F(CliTest, DemoLogReplaysToTheSameFinalState) {
  const fs::path log = dir_ / "run.demo.yaml";
  const Result run = RunCli("run " + scene_.string() + " --quiet --demo-log " + log.string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string text = ReadFile(log);
  EXPECT_NE(text.find("ductile_demo_log: 1"), std::string::npos);
  EXPECT_NE(text.find("steps: 50"), std::string::npos);
  const Result replay = RunCli("replay " + log.string() + " --threads 1");
  EXPECT_EQ(replay.exit_code, 0) << replay.output;
  EXPECT_NE(replay.output.find("replay reproduces the log"), std::string::npos) << replay.output;

  // A log whose hash is not the run's: exit 1 and both hashes named.
  std::string wrong = text;
  const std::size_t at = wrong.find("final_state_hash: \"") + 19;
  wrong[at] = wrong[at] == '0' ? '1' : '0';
  std::ofstream(dir_ / "wrong.demo.yaml") << wrong;
  const Result differs = RunCli("replay " + (dir_ / "wrong.demo.yaml").string() + " --quiet");
  EXPECT_EQ(differs.exit_code, 1);
  EXPECT_NE(differs.output.find("replay differs from the log"), std::string::npos) << differs.output;
  // The log names the BLAS kernels of its run (OpenBLAS, the BLAS scripts/setup installs), here this machine's: the
  // verdict has nothing to add of them.
  const std::size_t kernels_at = text.find("blas_kernels: \"");
  ASSERT_NE(kernels_at, std::string::npos) << text;
  EXPECT_EQ(differs.output.find("OPENBLAS_CORETYPE"), std::string::npos) << differs.output;
  // Recorded with other kernels: the verdict names them and how to force them.
  std::string other = wrong;
  const std::size_t name_at = other.find("blas_kernels: \"") + 15;
  other.replace(name_at, other.find('"', name_at) - name_at, "Sandybridge");
  std::ofstream(dir_ / "other.demo.yaml") << other;
  const Result elsewhere = RunCli("replay " + (dir_ / "other.demo.yaml").string() + " --quiet");
  EXPECT_EQ(elsewhere.exit_code, 1);
  EXPECT_NE(elsewhere.output.find("recorded with OpenBLAS's Sandybridge kernels"), std::string::npos)
      << elsewhere.output;
  EXPECT_NE(elsewhere.output.find("OPENBLAS_CORETYPE=Sandybridge forces them"), std::string::npos) << elsewhere.output;
  // Not recorded (a log of before the key): the verdict names this run's kernels.
  std::string unrecorded = wrong;
  unrecorded.erase(unrecorded.find("blas_kernels: "), unrecorded.find('\n', kernels_at) - kernels_at + 1);
  std::ofstream(dir_ / "unrecorded.demo.yaml") << unrecorded;
  const Result unknown = RunCli("replay " + (dir_ / "unrecorded.demo.yaml").string() + " --quiet");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.output.find("OPENBLAS_CORETYPE=NAME"), std::string::npos) << unknown.output;
}

// Memcheck over a short run of every MPM material, the fused transfers, a collider and rigid contact: no value the
// simulation reads is uninitialised. A SIMD batch's padding lanes once took their stress from stale stack contents
// (times zero volume, harmless unless the stack held a NaN): runs diverged at their first step only when a video
// encoder thread happened to leave NaNs there. Valgrind flags such reads deterministically (about 5 s).
TEST_F(CliTest, StepsReadNoUninitialisedMemory) {
  if (RunCommand("valgrind --version").exit_code != 0) GTEST_SKIP() << "valgrind is not installed";
  // Valgrind 3.19 (Debian 12) does not decode every instruction of every CPU: on an AVX-512 host, Highway (libhwy,
  // loaded through FFmpeg's libjxl) runs RDTSCP in a static initialiser, which it stops at with SIGILL before our
  // code runs. Such a host cannot run this check at all; say so instead of failing.
  const Result probe = RunCommand("valgrind " + std::string(DUCTILE_CLI_PATH) + " --help");
  if (probe.output.find("Unrecognised instruction") != std::string::npos)
    GTEST_SKIP() << "valgrind cannot run ductile-cli on this CPU (an instruction it does not decode, in a library's "
                    "initialiser):\n"
                 << probe.output.substr(0, 400);
  const fs::path scene = dir_ / "mixed.yaml";
  std::ofstream(scene) << R"(
simulation: {dt: 2.0e-3, substeps: 4, gravity: [0, 0, -9.81]}
grid: {h: 0.04, domain: {min: [-0.3, -0.3, 0.0], max: [0.3, 0.3, 0.4]}, boundary: {type: friction, friction: 0.3}}
materials:
  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 5.0e4, poisson_ratio: 0.3}
  dough: {model: linear_corotated, density: 1000, youngs_modulus: 2.0e4, poisson_ratio: 0.4, yield_stress: 1.0e2}
  sand: {model: drucker_prager, density: 1600, youngs_modulus: 3.5e5, poisson_ratio: 0.3, friction_angle: 30}
  water: {model: fluid, density: 1000, bulk_modulus: 1.0e4, gamma: 7, viscosity: 0.01}
  clay: {model: stvk_hencky, density: 1200, youngs_modulus: 5.0e4, poisson_ratio: 0.35, yield_stress: 2.0e3}
objects:
  ball: {material: rubber, shape: {type: sphere, radius: 0.08}, pose: {position: [-0.15, 0, 0.2]}, velocity: [1, 0, 0], particles_per_cell: 5}
  slab: {material: dough, shape: {type: box, size: [0.2, 0.2, 0.08]}, pose: {position: [0, 0, 0.05]}, particles_per_cell: 5}
  pile: {material: sand, shape: {type: sphere, radius: 0.06}, pose: {position: [0.15, 0.15, 0.1]}, particles_per_cell: 5}
  pool: {material: water, shape: {type: box, size: [0.1, 0.1, 0.1]}, pose: {position: [-0.15, -0.15, 0.1]}, particles_per_cell: 5}
  lump: {material: clay, shape: {type: sphere, radius: 0.06}, pose: {position: [0.15, -0.15, 0.1]}, particles_per_cell: 5}
colliders:
  post: {shape: {type: box, size: [0.06, 0.06, 0.1]}, pose: {position: [-0.15, 0.15, 0.05]}, boundary: {type: sticky}}
rigid_bodies:
  block: {shape: {type: box, size: [0.1, 0.1, 0.05]}, mass: 1.0, pose: {position: [0, 0, 0.115]}}
)";
  const Result r = RunCli("validate " + scene.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Valgrind translates up to 60 guest instructions into one superblock by default; the AVX2 transfer kernels'
  // long straight-line blocks then exhaust its fixed translation storage ("VEX temporary storage exhausted"), so
  // translate at most 40 at a time. Smaller superblocks cost speed only, not checks.
  const Result memcheck =
      RunCommand("valgrind --error-exitcode=99 --quiet --vex-guest-max-insns=40 " + std::string(DUCTILE_CLI_PATH) +
                 " run " + scene.string() + " --duration 0.02 --threads 1 --quiet");
  EXPECT_EQ(memcheck.exit_code, 0) << memcheck.output;
}

TEST_F(CliTest, TeleopEventsReplayBitwiseOnAnyThreadCount) {
  const fs::path arm = fs::path(DUCTILE_SOURCE_DIR) / "scenes/arm_and_boxes.yaml";
  const fs::path events = dir_ / "events.demo.yaml";
  std::ofstream(events) << "ductile_demo_log: 1\nscene: " << arm.string() << R"(
overrides: ["contact.friction=0.7"]
steps: 300
events:
  - {step: 0, time: 0, teleop: {robot: arm, link: gripper_tcp, position: [0.6, 0.1, 0.62], quaternion: [0, 1, 0, 0]}}
  - {step: 60, gripper: {robot: arm, opening: 1}}
  - {step: 120, teleop: {robot: arm, link: gripper_tcp, position: [0.55, -0.05, 0.7], quaternion: [0, 1, 0, 0]}}
  - {step: 180, gripper: {robot: arm, opening: 0, force: 15}}
  - {step: 200, set: "contact.friction=0.8"}
  - {step: 240, teleop_clear: arm}
)";
  // No hash in a hand-written log: the first replay writes one, the second (one thread) must reproduce it.
  const fs::path recorded = dir_ / "recorded.demo.yaml";
  const Result first = RunCli("replay " + events.string() + " --quiet --threads 2 --demo-log " + recorded.string());
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::string text = ReadFile(recorded);
  EXPECT_NE(text.find("final_state_hash"), std::string::npos);
  EXPECT_NE(text.find("set: \"contact.friction=0.8\""), std::string::npos) << text;
  const Result second = RunCli("replay " + recorded.string() + " --threads 1");
  EXPECT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("replay reproduces the log"), std::string::npos) << second.output;

  // The events matter: the same steps without them end elsewhere.
  std::string without = text;
  without.erase(without.find("events:"));
  std::ofstream(dir_ / "without.demo.yaml") << without << "events: []\n";
  EXPECT_EQ(RunCli("replay " + (dir_ / "without.demo.yaml").string() + " --quiet").exit_code, 1);
}

TEST_F(CliTest, BadDemoLogsAreReportedWithExitTwo) {
  const fs::path bad = dir_ / "bad.demo.yaml";
  std::ofstream(bad) << "ductile_demo_log: 1\nscene: " << scene_.string()
                     << "\nsteps: 10\nevents:\n  - {step: 3, grip: {robot: arm}}\n";
  const Result r = RunCli("replay " + bad.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find(bad.string() + ":5:5: an event needs one of"), std::string::npos) << r.output;
  const fs::path robot = dir_ / "robot.demo.yaml";
  std::ofstream(robot) << "ductile_demo_log: 1\nscene: " << scene_.string()
                       << "\nsteps: 10\nevents:\n  - {step: 3, gripper: {robot: nobody}}\n";
  const Result refused = RunCli("replay " + robot.string() + " --quiet");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.output.find("event at step 3"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("no robot named 'nobody'"), std::string::npos) << refused.output;
  const fs::path missing = dir_ / "missing.demo.yaml";
  std::ofstream(missing) << "ductile_demo_log: 1\nscene: nowhere.yaml\nsteps: 1\n";
  EXPECT_EQ(RunCli("replay " + missing.string()).exit_code, 2);
  EXPECT_EQ(RunCli("replay " + (dir_ / "absent.yaml").string()).exit_code, 2);
}
}  // namespace
}  // namespace ductile
