// Thread placement for a viewport drawn on a CPU device (app/studio/cpu_placement.h): the plan, pinning, the nice
// values given, and that threads started after the caller's priority was lowered run at the normal priority on every
// core. Built with the SimController test, under ThreadSanitizer, which also checks the launcher's hand-over. Each
// test lowers priorities only on threads it starts, never on the test runner's own.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "cpu_placement.h"
#include "ductile/model.h"
#include "ductile/scene.h"
#include "sim_controller.h"

namespace ductile::studio {
namespace {

int CallingThreadId() {
  const int tid = CurrentThreadId();
  EXPECT_EQ(tid, static_cast<int>(syscall(SYS_gettid)));
  return tid;
}

TEST(CpuPlacement, PlansTheSimulationOnTheFirstCoreAndDrawingOnTheLast) {
  const CorePlan two = PlanCores({0, 1});
  EXPECT_EQ(two.simulation_core, 0);
  EXPECT_EQ(two.viewport_cores, std::vector<int>{1});
  const CorePlan some = PlanCores({2, 5, 7});
  EXPECT_EQ(some.simulation_core, 2);
  EXPECT_EQ(some.viewport_cores, std::vector<int>{7});
  // One core (or none known): nothing to separate.
  EXPECT_EQ(PlanCores({3}).simulation_core, -1);
  EXPECT_TRUE(PlanCores({3}).viewport_cores.empty());
  EXPECT_EQ(PlanCores({}).simulation_core, -1);
}

TEST(CpuPlacement, PinsTheCallingThreadAndWidensItAgain) {
  const std::vector<int> allowed = AllowedCores();
  ASSERT_FALSE(allowed.empty());
  std::thread([&] {
    const int tid = CallingThreadId();
    ASSERT_TRUE(PinCallingThread({allowed.back()}));
    EXPECT_EQ(CoresOfThread(tid), std::vector<int>{allowed.back()});
    ASSERT_TRUE(PinCallingThread({}));  // every allowed core
    EXPECT_EQ(CoresOfThread(tid), allowed);
  }).join();
}

TEST(CpuPlacement, PlacesNamedThreadsOnTheirCoreAtTheirPriority) {
  const std::vector<int> allowed = AllowedCores();
  ASSERT_FALSE(allowed.empty());
  std::atomic<int> tid{0};
  std::atomic<bool> done{false};
  std::thread helper([&] {
    pthread_setname_np(pthread_self(), "dt-drawtest");  // at most 15 characters
    tid = CallingThreadId();
    while (!done) std::this_thread::yield();
  });
  while (tid == 0) std::this_thread::yield();
  const std::vector<int> named = ThreadsNamed("dt-drawtest");
  const int placed = PlaceThreads(named, {allowed.back()}, 12);
  const int nice = NiceOfThread(tid);
  const std::vector<int> cores = CoresOfThread(tid);
  done = true;
  helper.join();
  EXPECT_EQ(named, std::vector<int>{tid.load()});
  EXPECT_EQ(placed, 1);
  EXPECT_EQ(nice, 12);
  EXPECT_EQ(cores, std::vector<int>{allowed.back()});
  EXPECT_EQ(NiceOfThread(CallingThreadId()), 0);  // the caller's own is untouched
  EXPECT_TRUE(ThreadsNamed("dt-drawtest").empty());
}

// The UI thread lowers its own priority once the viewport is known to draw on the CPU; a simulation thread it starts
// later (the next scene's SimController) must not inherit that: it is started by the launcher, at nice 0 and on every
// core, and can then be pinned to the simulation's core.
TEST(CpuPlacement, ThreadsStartedAfterLoweringRunAtTheNormalPriority) {
  const std::vector<int> allowed = AllowedCores();
  ASSERT_FALSE(allowed.empty());
  std::thread ui([&] {
    ASSERT_TRUE(PinCallingThread({allowed.back()}));
    ASSERT_TRUE(LowerCallingThreadPriority(19));
    EXPECT_EQ(NiceOfThread(CallingThreadId()), 19);
    // An ordinary thread inherits both (the failure the launcher exists for).
    int inherited_nice = -1;
    std::vector<int> inherited_cores;
    std::thread([&] {
      inherited_nice = NiceOfThread(CallingThreadId());
      inherited_cores = CoresOfThread(CallingThreadId());
    }).join();
    EXPECT_EQ(inherited_nice, 19);
    EXPECT_EQ(inherited_cores, std::vector<int>{allowed.back()});
    // The launcher's threads do not.
    int nice = -1;
    std::vector<int> cores;
    std::thread started = StartNormalPriorityThread([&] {
      nice = NiceOfThread(CallingThreadId());
      cores = CoresOfThread(CallingThreadId());
    });
    started.join();
    EXPECT_EQ(nice, 0);
    EXPECT_EQ(cores, allowed);
  });
  ui.join();
}

// SetSimulationCore pins the simulation thread from its next loop on, while it plays; −1 gives it every core again.
TEST(CpuPlacement, SimControllerPinsItsThreadWhenAsked) {
  const std::vector<int> allowed = AllowedCores();
  ASSERT_FALSE(allowed.empty());
  constexpr const char* kScene = R"(
simulation: {dt: 2.0e-3, substeps: 2}
grid: {h: 0.04, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.3]}}
materials:
  rubber: {model: fixed_corotated, density: 500, youngs_modulus: 1.0e4, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.12, 0.12, 0.12]}, pose: {position: [0, 0, 0.1]}}
)";
  auto model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(kScene, "placement.yaml")));
  SimController controller(model, kScene, "placement.yaml", {}, 1);
  controller.Post(command::Play{});
  // Polls `done` every 5 ms for up to 20 s.
  const auto wait_for = [](auto done) {
    const auto start = std::chrono::steady_clock::now();
    while (!done()) {
      if (std::chrono::steady_clock::now() - start > std::chrono::seconds(20)) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  };
  ASSERT_TRUE(wait_for([&] { return controller.thread_id() != 0; }));
  const int tid = controller.thread_id();
  EXPECT_EQ(CoresOfThread(tid), allowed);
  EXPECT_EQ(NiceOfThread(tid), 0);
  controller.SetSimulationCore(allowed.front());
  EXPECT_TRUE(wait_for([&] { return CoresOfThread(tid) == std::vector<int>{allowed.front()}; }));
  controller.SetSimulationCore(-1);
  EXPECT_TRUE(wait_for([&] { return CoresOfThread(tid) == allowed; }));
}

}  // namespace
}  // namespace ductile::studio
