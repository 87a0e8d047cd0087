// Save and restore: a run saved after some steps and continued in a fresh simulator from the saved bytes ends in the
// bitwise-same state as the uninterrupted run, for every shipped scene and for 1 and 2 threads; so does a run
// continued from a copy of the State. Bytes that are not a state of the scene are refused with a message that says
// why, and the simulator keeps its state.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../physics/scene_fixture.h"
#include "ductile/scene.h"

namespace ductile {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> ShippedScenes() {
  std::vector<fs::path> scenes;
  for (const fs::directory_entry& e : fs::directory_iterator(fs::path(DUCTILE_SOURCE_DIR) / "scenes")) {
    if (e.path().extension() == ".yaml") scenes.push_back(e.path());
  }
  std::sort(scenes.begin(), scenes.end());
  return scenes;
}

std::unique_ptr<Simulator> SimulatorFromFile(const fs::path& scene, int threads) {
  auto model = std::make_shared<const Model>(CompileModel(LoadScene(scene.string())));
  return std::make_unique<Simulator>(model, SimulatorOptions{threads});
}

// Steps before the save and after it. Enough for every scene's transfer cache to be in use (prepared P2G, a sort
// kept across steps) and for rigid contacts to form in the scenes that start in contact.
constexpr int kBefore = 6;
constexpr int kAfter = 6;

class EveryShippedScene : public ::testing::TestWithParam<int> {};

TEST_P(EveryShippedScene, SaveRestoreContinueEqualsTheUninterruptedRun) {
  const int threads = GetParam();
  const std::vector<fs::path> scenes = ShippedScenes();
  ASSERT_GE(scenes.size(), 10u);
  for (const fs::path& scene : scenes) {
    SCOPED_TRACE(scene.filename().string());
    auto original = SimulatorFromFile(scene, threads);
    for (int i = 0; i < kBefore; ++i) original->Step();
    const std::vector<std::uint8_t> bytes = original->SaveState();
    const State copy = original->state();
    const std::uint64_t saved_hash = original->StateHash();
    for (int i = 0; i < kAfter; ++i) original->Step();

    auto resumed = SimulatorFromFile(scene, threads);
    resumed->RestoreState(bytes);
    EXPECT_EQ(resumed->StateHash(), saved_hash);
    EXPECT_EQ(resumed->step_count(), kBefore);
    EXPECT_EQ(resumed->time(), copy.time());
    for (int i = 0; i < kAfter; ++i) resumed->Step();
    EXPECT_EQ(resumed->StateHash(), original->StateHash());
    EXPECT_EQ(resumed->time(), original->time());

    // The same from an in-memory copy, into a simulator that has run on past it (the studio's rewind).
    for (int i = 0; i < 2; ++i) resumed->Step();
    resumed->SetState(copy);
    for (int i = 0; i < kAfter; ++i) resumed->Step();
    EXPECT_EQ(resumed->StateHash(), original->StateHash());
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, EveryShippedScene, ::testing::Values(1, 2));

// Teleoperation and the mouse spring are part of the state: a saved arm keeps its commanded joints and target,
// a grabbed object stays grabbed.
TEST(StateRestore, TeleopAndMouseSpringCarryOver) {
  const fs::path scene = fs::path(DUCTILE_SOURCE_DIR) / "scenes/gripper_pinch_lift.yaml";
  auto original = SimulatorFromFile(scene, 2);
  const std::vector<std::string> robots = original->RobotNames();
  ASSERT_FALSE(robots.empty());
  TeleopTarget target;
  target.robot = robots[0];
  target.link = "gripper_tcp";
  std::array<double, 4> q{};
  ASSERT_EQ(original->LinkPose(target.robot, target.link, target.position, q), "");
  target.quaternion = q;
  target.position[2] += 0.05;
  ASSERT_EQ(original->SetTeleopTarget(target), "");
  ASSERT_EQ(original->SetGripper({target.robot, 0.3, 0}), "");
  Perturbation spring;
  spring.kind = Perturbation::Kind::kObject;
  spring.index = 0;
  const ObjectSummary piece = original->SummarizeObject(0);
  spring.anchor = piece.center_of_mass;
  spring.target = {piece.center_of_mass[0], piece.center_of_mass[1], piece.center_of_mass[2] + 0.05};
  original->SetPerturbation(spring);
  for (int i = 0; i < 5; ++i) original->Step();
  const std::vector<std::uint8_t> bytes = original->SaveState();
  for (int i = 0; i < 5; ++i) original->Step();

  auto resumed = SimulatorFromFile(scene, 2);
  resumed->RestoreState(bytes);
  const TeleopStatus status = resumed->GetTeleopStatus(target.robot);
  EXPECT_TRUE(status.active);
  EXPECT_EQ(status.gripper_opening, 0.3);
  std::array<double, 3> anchor{};
  EXPECT_TRUE(resumed->PerturbationAnchor(anchor));
  for (int i = 0; i < 5; ++i) resumed->Step();
  EXPECT_EQ(resumed->StateHash(), original->StateHash());
  EXPECT_EQ(resumed->GetTeleopStatus(target.robot).ik_position, original->GetTeleopStatus(target.robot).ik_position);
}

constexpr char kSmallScene[] = R"(
simulation: {dt: 1.0e-3, substeps: 2}
grid: {h: 0.02, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.4]}}
materials:
  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 5.0e4, poisson_ratio: 0.3}
objects:
  ball: {material: rubber, shape: {type: sphere, radius: 0.06}, pose: {position: [0, 0, 0.2]}}
)";

// Expects RestoreState(bytes) to throw a StateError whose message contains `reason`, and the state to stay.
void ExpectRefused(Simulator& sim, const std::vector<std::uint8_t>& bytes, const std::string& reason) {
  const std::uint64_t before = sim.StateHash();
  const double time = sim.time();
  try {
    sim.RestoreState(bytes);
    ADD_FAILURE() << "accepted; expected a refusal with '" << reason << "'";
  } catch (const StateError& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
  EXPECT_EQ(sim.StateHash(), before);
  EXPECT_EQ(sim.time(), time);
}

TEST(StateRestore, RefusesWhatIsNotAStateOfTheScene) {
  auto sim = testing::SimulatorFromYaml(kSmallScene, 1);
  sim->Step();
  const std::vector<std::uint8_t> good = sim->SaveState();
  sim->Step();

  ExpectRefused(*sim, {}, "truncated");
  std::vector<std::uint8_t> bytes = good;
  bytes[0] = 'X';
  ExpectRefused(*sim, bytes, "not a Ductile state file");
  bytes = good;
  bytes[8] = 99;  // the format version
  ExpectRefused(*sim, bytes, "state format version 99");
  // Cut anywhere: the header ends early, or the payload is shorter than the header promises.
  for (std::size_t cut : {std::size_t{4}, std::size_t{20}, good.size() / 2, good.size() - 1}) {
    ExpectRefused(*sim, std::vector<std::uint8_t>(good.begin(), good.begin() + static_cast<long>(cut)), "truncated");
  }
  bytes = good;
  bytes[bytes.size() - 10] ^= 0x40;  // one bit of the payload
  ExpectRefused(*sim, bytes, "corrupt");

  // A state of another scene (another ball size: other particles).
  std::string other = kSmallScene;
  other.replace(other.find("radius: 0.06"), 12, "radius: 0.07");
  auto elsewhere = testing::SimulatorFromYaml(other, 1);
  ExpectRefused(*sim, elsewhere->SaveState(), "saved from another scene");
  EXPECT_THROW(sim->SetState(elsewhere->state()), StateError);

  // And the good bytes still restore.
  sim->RestoreState(good);
  EXPECT_EQ(sim->step_count(), 1);
}

TEST(StateRestore, FilesNameTheirPathWhenTheyFail) {
  auto sim = testing::SimulatorFromYaml(kSmallScene, 1);
  const fs::path dir = fs::temp_directory_path() / "ductile_state_test";
  fs::create_directories(dir);
  const std::string missing = (dir / "missing.state").string();
  fs::remove(missing);
  try {
    sim->LoadStateFile(missing);
    ADD_FAILURE() << "a missing file was accepted";
  } catch (const StateError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  const std::string unwritable = (dir / "no_such_folder" / "x.state").string();
  try {
    sim->SaveStateFile(unwritable);
    ADD_FAILURE() << "wrote into a folder that does not exist";
  } catch (const StateError& e) {
    EXPECT_NE(std::string(e.what()).find(unwritable), std::string::npos) << e.what();
  }
  // A good file round-trips; a corrupt one is refused with its path, and the earlier file survives a failed save.
  const std::string good = (dir / "good.state").string();
  sim->Step();
  sim->SaveStateFile(good);
  const std::uint64_t saved = sim->StateHash();
  sim->Step();
  sim->LoadStateFile(good);
  EXPECT_EQ(sim->StateHash(), saved);
  {
    std::fstream f(good, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x7f');
  }
  try {
    sim->LoadStateFile(good);
    ADD_FAILURE() << "a corrupt file was accepted";
  } catch (const StateError& e) {
    EXPECT_NE(std::string(e.what()).find(good), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ductile
