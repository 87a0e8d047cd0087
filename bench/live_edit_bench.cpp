// The cost of one live edit of materials.dough.youngs_modulus on the simulation thread, the two ways it has been
// applied: the scene text parsed with the edit added to its overrides, compiled (every particle sampled again) and
// handed over with Simulator::UpdateModel; and Simulator::SetParameter, which patches the running model in place.
// Each iteration alternates between two values, so every edit changes the model. Scenes: scenes/dough_rolling.yaml
// (arg 0) and bench/scenes/dough_slab_50k.yaml (arg 1). SetParameter is timed on a simulator it has edited before
// (the model patched in place) and on the first edit (the model copied first). Results:
// bench/results/*-live-edit.md.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"

namespace ductile {
namespace {

const char* const kScenes[] = {"scenes/dough_rolling.yaml", "bench/scenes/dough_slab_50k.yaml"};
const char* const kKey = "materials.dough.youngs_modulus";
const char* const kValues[] = {"2.1e4", "2.0e4"};

struct Scene {
  std::filesystem::path file;
  std::string text;
};

Scene Read(int which) {
  Scene scene{std::filesystem::path(DUCTILE_SOURCE_DIR) / kScenes[which], {}};
  std::ifstream in(scene.file);
  std::ostringstream text;
  text << in.rdbuf();
  scene.text = text.str();
  return scene;
}

// A simulator of the scene after a few steps (the transfer cache and the contact solver warm).
std::unique_ptr<Simulator> Started(const Scene& scene) {
  auto sim = std::make_unique<Simulator>(
      std::make_shared<const Model>(CompileModel(LoadSceneFromString(scene.text, scene.file))));
  for (int i = 0; i < 3; ++i) sim->Step();
  return sim;
}

void BM_LiveEditRecompile(benchmark::State& state) {
  const Scene scene = Read(static_cast<int>(state.range(0)));
  const std::unique_ptr<Simulator> sim = Started(scene);
  int i = 0;
  for (auto _ : state) {
    const std::vector<Override> overrides{Override{kKey, kValues[i++ % 2]}};
    auto model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(scene.text, scene.file, overrides)));
    if (!sim->UpdateModel(std::move(model)).empty()) state.SkipWithError("UpdateModel refused the edit");
  }
  state.SetLabel(kScenes[state.range(0)]);
  state.counters["particles"] = sim->model().num_particles;
}

void BM_LiveEditSetParameter(benchmark::State& state) {
  const Scene scene = Read(static_cast<int>(state.range(0)));
  const std::unique_ptr<Simulator> sim = Started(scene);
  int i = 0;
  for (auto _ : state) {
    if (!sim->SetParameter(kKey, kValues[i++ % 2]).empty()) state.SkipWithError("SetParameter refused the edit");
  }
  state.SetLabel(kScenes[state.range(0)]);
  state.counters["particles"] = sim->model().num_particles;
}

// The first edit of a simulator's model also copies the model (its particle arrays; the rigid part stays shared).
void BM_LiveEditSetParameterFirst(benchmark::State& state) {
  const Scene scene = Read(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<Simulator> sim = Started(scene);
    state.ResumeTiming();
    if (!sim->SetParameter(kKey, kValues[0]).empty()) state.SkipWithError("SetParameter refused the edit");
    state.PauseTiming();
    sim.reset();  // not timed
    state.ResumeTiming();
  }
  state.SetLabel(kScenes[state.range(0)]);
}

BENCHMARK(BM_LiveEditRecompile)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LiveEditSetParameter)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LiveEditSetParameterFirst)->Arg(0)->Arg(1)->Iterations(20)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ductile
