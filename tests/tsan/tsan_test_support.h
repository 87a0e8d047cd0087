// What the SimController's ThreadSanitizer tests share: a small scene and a wait for a condition.
#pragma once

#include <chrono>
#include <thread>

namespace ductile::studio::tsan_test {

// An elastic cube of 27 particles and a rigid ball over the ground: a few milliseconds a step.
inline constexpr const char* kCubeAndBallScene = R"(
simulation: {dt: 2.0e-3, substeps: 2, gravity: [0, 0, -9.81]}
grid: {h: 0.04, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.3]}}
materials:
  rubber: {model: fixed_corotated, density: 500, youngs_modulus: 1.0e4, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.12, 0.12, 0.12]}, pose: {position: [0, 0, 0.1]},
         particles_per_cell: 1}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
  ball: {shape: {type: sphere, radius: 0.03}, mass: 0.1, pose: {position: [0.1, 0.1, 0.2]}}
)";

// Polls `done` every 2 ms for up to `seconds`; returns whether it came true.
template <typename Done>
bool WaitFor(Done done, double seconds = 20) {
  const auto start = std::chrono::steady_clock::now();
  while (!done()) {
    if (std::chrono::steady_clock::now() - start > std::chrono::duration<double>(seconds)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

}  // namespace ductile::studio::tsan_test
