// The command queue's replacement rules (command_queue.h), one by one on a CommandQueue, then under
// ThreadSanitizer: threads posting drags, teleop targets, scrubs and speeds to a SimController at once, the newest of
// each kept and nothing raced.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "command_queue.h"
#include "ductile/model.h"
#include "ductile/scene.h"
#include "sim_controller.h"
#include "tsan_test_support.h"

namespace ductile::studio {
namespace {

using tsan_test::kCubeAndBallScene;
using tsan_test::WaitFor;

// A mouse-spring move of the grab of body 0 at `anchor_x`, pulling towards `target_x`.
command::Perturb Drag(double anchor_x, double target_x) {
  Perturbation p;
  p.kind = Perturbation::Kind::kBody;
  p.index = 0;
  p.anchor = {anchor_x, 0, 0};
  p.target = {target_x, 0, 0};
  return {p};
}

command::Teleop Target(const std::string& robot, double x, const std::string& link = "gripper_tcp") {
  TeleopTarget t;
  t.robot = robot;
  t.link = link;
  t.position = {x, 0, 0};
  return {t};
}

// The queue after pushing `commands` in order.
std::deque<Command> Pushed(std::vector<Command> commands) {
  CommandQueue queue;
  for (Command& c : commands) queue.Push(std::move(c));
  return queue.commands();
}

double TargetX(const Command& c) {
  if (const auto* p = std::get_if<command::Perturb>(&c)) return p->perturbation.target[0];
  return std::get<command::Teleop>(c).target.position[0];
}

TEST(CommandQueue, SettingsReplaceTheQueuedOneAcrossAnything) {
  const std::deque<Command> q = Pushed({command::SetSpeed{0.5}, command::Step{}, command::SetHistoryLimit{100, 1},
                                        command::Reset{}, command::SetSpeed{0.25}, command::SetHistoryLimit{200, 0}});
  ASSERT_EQ(q.size(), 4u);
  EXPECT_EQ(std::get<command::SetSpeed>(q[0]).fraction, 0.25);  // in the older one's place
  EXPECT_TRUE(std::holds_alternative<command::Step>(q[1]));
  EXPECT_EQ(std::get<command::SetHistoryLimit>(q[2]).bytes, 200u);
  EXPECT_TRUE(std::holds_alternative<command::Reset>(q[3]));
}

TEST(CommandQueue, DragMovesOfOneGrabKeepOnlyTheNewest) {
  const std::deque<Command> q = Pushed({Drag(1, 1), command::Gripper{{"arm", 0, 5}}, Drag(1, 2), Drag(1, 3)});
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(TargetX(q[0]), 3);  // the grab's newest target, where its first move stood
  EXPECT_TRUE(std::holds_alternative<command::Gripper>(q[1]));
}

TEST(CommandQueue, ADragNeverMovesAcrossItsReleaseAnotherGrabOrAStep) {
  command::Perturb release;  // kind kNone
  std::deque<Command> q = Pushed({Drag(1, 1), release, Drag(1, 2)});
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(TargetX(q[0]), 1);
  EXPECT_EQ(TargetX(q[2]), 2);
  q = Pushed({Drag(1, 1), Drag(2, 2)});  // another grab (another anchor) of the same body
  EXPECT_EQ(q.size(), 2u);
  q = Pushed({Drag(1, 1), command::Step{}, Drag(1, 2)});  // the step ran with the first target
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(TargetX(q[0]), 1);
  q = Pushed({Drag(1, 1), release, release});  // releases are never dropped
  EXPECT_EQ(q.size(), 3u);
}

TEST(CommandQueue, TeleopTargetsReplaceTheSameRobotsAndLinksOnly) {
  std::deque<Command> q = Pushed({Target("left", 1), Target("right", 1), Target("left", 2), Target("right", 2)});
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(std::get<command::Teleop>(q[0]).target.robot, "left");
  EXPECT_EQ(TargetX(q[0]), 2);
  EXPECT_EQ(TargetX(q[1]), 2);
  // Teleoperation switched off and on again keeps all three in order.
  q = Pushed({Target("left", 1), command::TeleopClear{"left"}, Target("left", 2)});
  ASSERT_EQ(q.size(), 3u);
  EXPECT_TRUE(std::holds_alternative<command::TeleopClear>(q[1]));
  // Another robot's end of teleoperation is passed over.
  q = Pushed({Target("left", 1), command::TeleopClear{"right"}, Target("left", 2)});
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(TargetX(q[0]), 2);
  // Another link of the same robot is another target: kept, in order.
  q = Pushed({Target("left", 1), Target("left", 2, "iiwa_link_7"), Target("left", 3)});
  EXPECT_EQ(q.size(), 3u);
  // An edit between them is passed over; a load is not.
  q = Pushed({Target("left", 1), command::SetOverride{"contact.friction", "0.3"}, Target("left", 2)});
  EXPECT_EQ(q.size(), 2u);
  q = Pushed({Target("left", 1), command::LoadState{"a.state"}, Target("left", 2)});
  EXPECT_EQ(q.size(), 3u);
}

TEST(CommandQueue, AScrubReplacesOnlyTheScrubJustBeforeIt) {
  std::deque<Command> q = Pushed(
      {command::Scrub{5, false, 1}, command::SetSpeed{0.5}, command::Scrub{7, false, 2}, command::Scrub{9, false, 3}});
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(std::get<command::Scrub>(q[0]).serial, 9u);
  EXPECT_EQ(std::get<command::Scrub>(q[0]).request, 3u);
  // An input or a step in between would land elsewhere without the first scrub: both kept.
  q = Pushed({command::Scrub{5}, Target("arm", 1), command::Scrub{7}});
  EXPECT_EQ(q.size(), 3u);
  q = Pushed({command::Scrub{5}, command::Step{}, command::Scrub{7}});
  EXPECT_EQ(q.size(), 3u);
  q = Pushed({command::Scrub{5}, command::SetOverride{"contact.friction", "0.3"}, command::Scrub{7}});
  EXPECT_EQ(q.size(), 3u);
}

TEST(CommandQueue, EverythingElseKeepsItsOrder) {
  const std::deque<Command> q =
      Pushed({command::Play{}, command::Step{}, command::Step{}, command::Pause{}, command::Gripper{{"arm", 1, 0}},
              command::Gripper{{"arm", 0, 5}}, command::SaveState{"a.state"}, command::SaveState{"b.state"},
              command::OpenScene{"a.yaml"}, command::OpenScene{"b.yaml"}, command::Reset{}});
  ASSERT_EQ(q.size(), 11u);
  const std::vector<std::size_t> kinds = {0, 2, 2, 1, 11, 11, 13, 13, 17, 17, 3};
  for (std::size_t i = 0; i < q.size(); ++i) EXPECT_EQ(q[i].index(), kinds[i]) << i;
  EXPECT_EQ(std::get<command::SaveState>(q[7]).file, "b.state");
}

// Four threads post at once while the simulation plays: drags of one grab, teleop targets of a robot that is not
// there (refused: the refusals name it), scrubs and speeds. TSan checks the queue's lock; the newest speed is the
// one in force, and the scrubs' requests arrive in order.
TEST(CommandQueueTsan, ThreadsPostingAtOnceKeepTheNewestOfEachKind) {
  auto model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(kCubeAndBallScene, "tsan.yaml")));
  SimController controller(model, kCubeAndBallScene, "tsan.yaml", {}, 1);
  controller.Post(command::Play{});
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    while (!go) std::this_thread::yield();
    for (int i = 0; i < 300; ++i) controller.Post(Drag(0.1, 0.1 + 1e-4 * i));
    controller.Post(command::Perturb{});
  });
  threads.emplace_back([&] {
    while (!go) std::this_thread::yield();
    for (int i = 0; i < 300; ++i) controller.Post(Target("nobody", 1e-3 * i));
  });
  threads.emplace_back([&] {
    while (!go) std::this_thread::yield();
    for (int i = 0; i < 300; ++i) controller.Post(command::SetSpeed{i % 2 ? 0.5 : 0.75});
    controller.Post(command::SetSpeed{0.3});
  });
  go = true;
  for (std::uint64_t r = 1; r <= 200; ++r) controller.Post(command::Scrub{r % 7, false, r});
  for (std::thread& t : threads) t.join();
  const auto start = std::chrono::steady_clock::now();
  ControllerStatus st;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    st = controller.status();
  } while ((st.speed != 0.3 || st.history.scrub_request != 200) &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
  EXPECT_EQ(st.speed, 0.3);
  EXPECT_EQ(st.history.scrub_request, 200u);
  EXPECT_FALSE(st.playing);  // scrubbing pauses
  int refused = 0;
  for (const Event& e : controller.DrainEvents()) {
    if (e.key != kTeleopKey) continue;
    ++refused;
    EXPECT_NE(e.message.find("nobody"), std::string::npos) << e.message;
  }
  EXPECT_GE(refused, 1);
  EXPECT_LE(refused, 300);
}

}  // namespace
}  // namespace ductile::studio
