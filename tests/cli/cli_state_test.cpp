// End-to-end tests of ductile-cli's saved states (--save-state, --load-state; docs/cli.md, "Saved states"): a
// resumed run ends bitwise where the run made in one go does, its outputs continue the saved time, and a file
// that cannot be used or written is refused with its path and the reason.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cli_fixture.h"
#include "state_resume.h"

namespace ductile {
namespace {

using namespace cli_test;
using testing::StatsValue;

// Saved states (--save-state, --load-state): a run saved half-way and resumed ends in the same state, bitwise, as
// the run made in one go, for an MPM-only scene, a scene of MPM and rigid bodies, and one of a robot arm.
TEST_F(CliTest, ResumedRunEndsInTheStateOfTheRunMadeInOneGo) {
  const fs::path scenes = fs::path(DUCTILE_SOURCE_DIR) / "scenes";
  for (const char* name : {"elastic_cube_drop.yaml", "dough_rolling.yaml", "arm_and_boxes.yaml"}) {
    const testing::ResumeRuns runs = testing::RunResumeCheck(scenes / name, "0.05", "0.05", "0.1", dir_);
    ASSERT_EQ(runs.first.exit_code, 0) << name << ": " << runs.first.output;
    ASSERT_EQ(runs.resumed.exit_code, 0) << name << ": " << runs.resumed.output;
    ASSERT_EQ(runs.straight.exit_code, 0) << name << ": " << runs.straight.output;
    EXPECT_EQ(runs.resumed_hash.size(), 16u) << name;
    EXPECT_EQ(runs.resumed_hash, runs.straight_hash) << name;
    // The resumed run starts at the saved time and ends where the one-go run does.
    EXPECT_EQ(std::stod(StatsValue(dir_ / "resumed.json", "start_time")), 0.05) << name;
    EXPECT_EQ(StatsValue(dir_ / "resumed.json", "sim_time"), StatsValue(dir_ / "straight.json", "sim_time")) << name;
    EXPECT_EQ(StatsValue(dir_ / "resumed.json", "steps"), StatsValue(dir_ / "first.json", "steps")) << name;
    // Without the state the second half ends elsewhere: the check can fail.
    EXPECT_NE(StatsValue(dir_ / "first.json", "state_hash"), runs.straight_hash) << name;
  }
}

// The rows of a CSV after its header whose time (first column) is above `after`.
std::vector<std::string> RowsAfter(const fs::path& csv, double after) {
  std::istringstream lines(ReadFile(csv));
  std::vector<std::string> rows;
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line))
    if (std::stod(line.substr(0, line.find(','))) > after + 1e-9) rows.push_back(line);
  return rows;
}

// A resumed run's trajectory and contact forces continue the times of the run that saved the state: its first
// frame is the loaded state, and every later row is the one-go run's row, to the digit.
TEST_F(CliTest, ResumedRunOutputsContinueFromTheLoadedTime) {
  const fs::path scene = fs::path(DUCTILE_SOURCE_DIR) / "scenes" / "dough_rolling.yaml";
  const fs::path state = dir_ / "a.state";
  ASSERT_EQ(RunCli("run " + scene.string() + " --quiet --duration 0.05 --save-state " + state.string()).exit_code, 0);
  const std::string outputs = " --trajectory " + (dir_ / "t.csv").string() + " --csv " + (dir_ / "f.csv").string();
  const Result resumed = RunCli("run " + scene.string() + " --load-state " + state.string() + " --duration 0.1" +
                                outputs + " --stats " + (dir_ / "s.json").string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("from t = 0.05 s to t = 0.15 s"), std::string::npos) << resumed.output;
  fs::rename(dir_ / "t.csv", dir_ / "resumed_t.csv");
  fs::rename(dir_ / "f.csv", dir_ / "resumed_f.csv");
  ASSERT_EQ(RunCli("run " + scene.string() + " --quiet --duration 0.15" + outputs).exit_code, 0);

  const std::vector<std::string> all = RowsAfter(dir_ / "resumed_t.csv", -1);
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front().substr(0, 5), "0.05,") << "the first frame is the loaded state";
  EXPECT_EQ(RowsAfter(dir_ / "resumed_t.csv", 0.05), RowsAfter(dir_ / "t.csv", 0.05));
  // Contact forces are means over the steps since the previous frame: from the resumed run's second frame on
  // (t = 0.1 at 30 frames/s), both runs average the same steps.
  const std::vector<std::string> forces = RowsAfter(dir_ / "resumed_f.csv", 0.08);
  EXPECT_FALSE(forces.empty());
  EXPECT_EQ(forces, RowsAfter(dir_ / "f.csv", 0.08));
  EXPECT_EQ(StatsValue(dir_ / "s.json", "steps"), "10");
}

TEST_F(CliTest, ResumedRunWithoutDurationGoesOnToTheScenesDuration) {
  const fs::path state = dir_ / "a.state";
  ASSERT_EQ(RunCli("run " + scene_.string() + " --quiet --duration 0.02 --save-state " + state.string()).exit_code, 0);
  const fs::path stats = dir_ / "s.json";
  const Result rest =
      RunCli("run " + scene_.string() + " --quiet --load-state " + state.string() + " --stats " + stats.string());
  ASSERT_EQ(rest.exit_code, 0) << rest.output;
  EXPECT_EQ(StatsValue(stats, "steps"), "30");  // 0.05 s, the scene's duration, less the saved 0.02 s
  EXPECT_NEAR(std::stod(StatsValue(stats, "sim_time")), 0.05, 1e-12);

  // A state at the scene's end has nothing left without --duration.
  const fs::path end = dir_ / "end.state";
  ASSERT_EQ(RunCli("run " + scene_.string() + " --quiet --save-state " + end.string()).exit_code, 0);
  const Result nothing_left = RunCli("run " + scene_.string() + " --load-state " + end.string());
  EXPECT_EQ(nothing_left.exit_code, 2);
  EXPECT_NE(nothing_left.output.find(end.string() + ": the state is at t = 0.05 s, at or past the scene's "
                                                    "simulation.duration 0.05 s: give --duration"),
            std::string::npos)
      << nothing_left.output;
  // With it, the run goes on; the screenshot's instant lies within the resumed span.
  const Result early = RunCli("run " + scene_.string() + " --load-state " + end.string() + " --duration 0.05" +
                              " --screenshot " + (dir_ / "s.png").string() + " --at 0.01");
  EXPECT_EQ(early.exit_code, 2);
  EXPECT_NE(early.output.find("--at must lie in [0.05, 0.1] s"), std::string::npos) << early.output;
}

// A file that is not a state of the scene is refused before anything runs, with its path and the reason, and no
// output file is created.
TEST_F(CliTest, BadStateFilesAreRefusedWithThePathAndTheReason) {
  const fs::path good = dir_ / "good.state";
  ASSERT_EQ(RunCli("run " + scene_.string() + " --quiet --duration 0.01 --save-state " + good.string()).exit_code, 0);
  const std::string bytes = ReadFile(good);
  ASSERT_GT(bytes.size(), 200u);
  std::string flipped = bytes;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x5a);
  std::ofstream(dir_ / "corrupt.state", std::ios::binary) << flipped;
  std::ofstream(dir_ / "truncated.state", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  std::ofstream(dir_ / "text.state") << "simulation: {dt: 1.0e-3}\n";
  // The same state loaded into another scene: a bigger cube has other particles.
  const fs::path other = dir_ / "other.yaml";
  std::string text = ReadFile(scene_);
  text.replace(text.find("size: [0.08, 0.08, 0.08]"), 24, "size: [0.1, 0.1, 0.1]");
  std::ofstream(other) << text;

  const fs::path stats = dir_ / "s.json";
  const auto load = [&](const fs::path& scene, const fs::path& state) {
    return RunCli("run " + scene.string() + " --load-state " + state.string() + " --stats " + stats.string());
  };
  const std::pair<fs::path, const char*> cases[] = {{dir_ / "corrupt.state", ": corrupt"},
                                                    {dir_ / "truncated.state", ": truncated"},
                                                    {dir_ / "text.state", ": not a Ductile state file"},
                                                    {dir_ / "missing.state", ": cannot open"}};
  for (const auto& [state, reason] : cases) {
    const Result r = load(scene_, state);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("cannot load state " + state.string() + reason), std::string::npos) << r.output;
  }
  // The same scene with another Δt: the state's time would not go on from where it was.
  const Result other_dt = RunCli("run " + scene_.string() + " --set simulation.dt=5e-4 --load-state " + good.string());
  EXPECT_EQ(other_dt.exit_code, 2) << other_dt.output;
  EXPECT_NE(other_dt.output.find("cannot load state " + good.string() +
                                 ": its time 0.01 s after 10 steps is not a multiple of this scene's simulation.dt = "
                                 "0.0005 s: it was saved with another simulation.dt (0.001 s)"),
            std::string::npos)
      << other_dt.output;
  const Result foreign = load(other, good);
  EXPECT_EQ(foreign.exit_code, 2) << foreign.output;
  EXPECT_NE(foreign.output.find(good.string() + ": saved from another scene"), std::string::npos) << foreign.output;
  EXPECT_FALSE(fs::exists(stats)) << "nothing ran";
  EXPECT_EQ(load(scene_, good).exit_code, 0) << "the good state loads";
}

TEST_F(CliTest, UnwritableSaveStateIsRefusedBeforeRunning) {
  const fs::path stats = dir_ / "s.json";
  const Result missing = RunCli("run " + scene_.string() + " --duration 1000 --save-state /nonexistent-dir/a.state " +
                                "--stats " + stats.string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("cannot write state '/nonexistent-dir/a.state': folder '/nonexistent-dir' does not "
                                "exist"),
            std::string::npos)
      << missing.output;
  EXPECT_FALSE(fs::exists(stats)) << "nothing ran: " << missing.output;
  const Result folder = RunCli("run " + scene_.string() + " --duration 1000 --save-state " + dir_.string());
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_NE(folder.output.find("it is a directory"), std::string::npos) << folder.output;
  // A demo log replays from t = 0: it cannot describe a resumed run.
  const Result log = RunCli("run " + scene_.string() + " --load-state " + (dir_ / "a.state").string() + " --demo-log " +
                            (dir_ / "a.demo.yaml").string());
  EXPECT_EQ(log.exit_code, 2);
  EXPECT_NE(log.output.find("--demo-log cannot follow --load-state"), std::string::npos) << log.output;
}

// Runs ductile-cli with `args` in a child process whose stderr goes to `log`; returns its pid.
pid_t StartCli(const std::vector<std::string>& args, const fs::path& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDERR_FILENO);
    std::vector<char*> argv{const_cast<char*>(DUCTILE_CLI_PATH)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(DUCTILE_CLI_PATH, argv.data());
    _exit(127);
  }
  return pid;
}

// Waits until a file whose name contains `part` appears in `dir` (at most 10 s).
bool AwaitFile(const fs::path& dir, const std::string& part) {
  for (int i = 0; i < 400; ++i) {
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().filename().string().find(part) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return false;
}

int ExitStatusOf(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// An interrupted run saves the state it reached, between two steps, and a run goes on from it; a state file that
// cannot be written at the end (its folder is gone) is reported with its path.
TEST_F(CliTest, InterruptedRunSavesItsStateAndAFailedSaveIsReported) {
  const fs::path state = dir_ / "a.state", log = dir_ / "stderr.txt";
  pid_t pid = StartCli({"run", scene_.string(), "--duration", "1000", "--save-state", state.string(), "--stats",
                        (dir_ / "s.json").string()},
                       log);
  ASSERT_TRUE(AwaitFile(dir_, "a.state.tmp"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, SIGINT);
  EXPECT_EQ(ExitStatusOf(pid), 130);
  EXPECT_NE(ReadFile(log).find("except the state: " + state.string()), std::string::npos) << ReadFile(log);
  EXPECT_FALSE(fs::exists(dir_ / "s.json"));
  const fs::path stats = dir_ / "resumed.json";
  const Result resumed = RunCli("run " + scene_.string() + " --quiet --load-state " + state.string() +
                                " --duration 0.01 --stats " + stats.string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_GT(std::stod(StatsValue(stats, "start_time")), 0);

  const fs::path gone = dir_ / "gone";
  fs::create_directories(gone);
  pid = StartCli({"run", scene_.string(), "--duration", "1000", "--save-state", (gone / "b.state").string()}, log);
  ASSERT_TRUE(AwaitFile(gone, "b.state.tmp"));
  fs::remove_all(gone);
  kill(pid, SIGINT);
  EXPECT_EQ(ExitStatusOf(pid), 130);
  EXPECT_NE(ReadFile(log).find("state not saved: cannot write '" + (gone / "b.state").string() + "'"),
            std::string::npos)
      << ReadFile(log);
}

}  // namespace
}  // namespace ductile
