// Helpers for physics tests: build a simulator from inline YAML.
#pragma once

#include <memory>
#include <string>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"

namespace ductile::testing {

inline std::shared_ptr<const Model> ModelFromYaml(const std::string& yaml) {
  return std::make_shared<const Model>(CompileModel(LoadSceneFromString(yaml, "inline.yaml")));
}

inline std::unique_ptr<Simulator> SimulatorFromYaml(const std::string& yaml, int threads = 0) {
  return std::make_unique<Simulator>(ModelFromYaml(yaml), SimulatorOptions{threads});
}

/// Steps until the simulated time reaches t [s] (within half a step).
inline void RunUntil(Simulator& sim, double t) {
  while (sim.time() + 0.5 * sim.model().dt < t) sim.Step();
}

}  // namespace ductile::testing
