// Running the shipped scenes with robots (scenes/*.yaml with a `robots:` section) for what issue 45 asks of them: no
// robot link ever touches another link of its robot, and no link's contact force exceeds its robot's
// link_force_limit (docs/architecture.md, "Robot contact checks"). Shared by tests/physics/robot_scenes_test.cpp
// (the robots alone) and tests/slow/robot_scenes_slow_test.cpp (the whole scenes).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "ductile/robot_warnings.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"

namespace ductile::testing {

/// The names (without folder and extension) of the shipped scenes that have robots, sorted.
inline std::vector<std::string> ShippedRobotScenes() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(DUCTILE_SOURCE_DIR) / "scenes")) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("robots:", 0) == 0) {
        names.push_back(entry.path().stem().string());
        break;
      }
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// What a run found: the robots' warnings and, per robot, its most loaded link over the run with its time [s].
struct RobotSceneRun {
  RobotWarnings warnings;
  std::vector<std::pair<RobotLinkLoad, double>> most_loaded;
  /// Per robot: the largest distance [m] and angle [rad] its IK left between the tool and a scripted target from 1 s
  /// on (the first second approaches the first keyframe), and when [s]: what the scripts ask for beyond the reach,
  /// the joint limits or the margins.
  std::vector<std::array<double, 3>> ik_residual;
  double end_time = 0;  ///< [s]
};

/// The shipped scene `name`, whole or with its robots alone (`robots_only`: its MPM objects, soft and affine bodies
/// and probes left out, under the weak coupling: the robots follow their scripts against the rigid bodies only).
inline std::shared_ptr<const Model> RobotSceneModel(const std::string& name, bool robots_only) {
  SceneDesc scene = LoadScene(std::filesystem::path(DUCTILE_SOURCE_DIR) / "scenes" / (name + ".yaml"));
  if (robots_only) {
    scene.objects.clear();
    scene.soft_bodies.clear();
    scene.affine_bodies.clear();
    scene.probes.clear();
    scene.simulation.coupling = CouplingKind::kWeak;
  }
  return std::make_shared<const Model>(CompileModel(scene));
}

/// Runs the model from t = 0 to its duration, gathering every step's robot alerts and loads.
inline RobotSceneRun RunRobotScene(const std::shared_ptr<const Model>& model) {
  Simulator sim(model);
  RobotSceneRun run;
  while (sim.time() + 0.5 * model->dt < model->duration) {
    sim.Step();
    const StepTelemetry& t = sim.last_step();
    run.warnings.Add(sim.time(), t.robot_alerts);
    run.most_loaded.resize(t.robot_loads.size());
    run.ik_residual.resize(t.robot_loads.size());
    for (std::size_t r = 0; r < t.robot_loads.size(); ++r) {
      const TeleopStatus status = sim.GetTeleopStatus(t.robot_loads[r].robot);
      std::array<double, 3>& worst = run.ik_residual[r];
      if (sim.time() >= 1 && status.active && status.ik_position + 0.2 * status.ik_rotation > worst[0] + 0.2 * worst[1])
        worst = {status.ik_position, status.ik_rotation, sim.time()};
    }
    for (std::size_t r = 0; r < t.robot_loads.size(); ++r) {
      if (run.most_loaded[r].first.robot.empty() || t.robot_loads[r].force > run.most_loaded[r].first.force)
        run.most_loaded[r] = {t.robot_loads[r], sim.time()};
    }
  }
  run.end_time = sim.time();
  return run;
}

/// Expects no warning (each one printed as it failed) and prints each robot's most loaded link.
inline void ExpectRobotsRespected(const std::string& name, const RobotSceneRun& run) {
  for (std::size_t r = 0; r < run.most_loaded.size(); ++r) {
    const auto& [load, time] = run.most_loaded[r];
    const std::array<double, 3>& ik = run.ik_residual[r];
    std::printf(
        "%s: robot '%s', most loaded link %s: %.1f N at t = %.3f s (limit %.0f N); largest IK residual %.1f mm, %.3f "
        "rad at t = %.3f s\n",
        name.c_str(), load.robot.c_str(), load.link.c_str(), load.force, time, load.limit, 1e3 * ik[0], ik[1], ik[2]);
  }
  for (const RobotWarning& w : run.warnings.warnings()) {
    ADD_FAILURE() << name << ": t = " << w.time << " s: " << DescribeRobotWarning(w) << " (up to " << w.max_force
                  << " N at t = " << w.max_force_time << " s, in " << w.steps << " steps)";
  }
}

}  // namespace ductile::testing
