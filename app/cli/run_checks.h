// Valid but unwise runs, caught before they start (docs/cli.md, "Scale checks"): a substep too long for the CFL
// condition, a scene whose particles and grid need more memory than the machine has, more steps than a 64-bit
// count holds, a run that would take hours. The impossible is refused with an error; the merely unwise draws a
// warning on stderr that names the numbers and what to change. `run` and `validate` make the same checks.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "ductile/model.h"
#include "ductile/scene.h"

namespace ductile::cli {

/// Warns on stderr when simulation.substeps is below what the CFL condition needs for the stiffest material, and
/// for each cloth whose vertices lie farther apart than the grid spacing (ClothSpacingWarnings).
void WarnIfUnstable(const Model& model);

/// The memory a run of a scene needs, estimated from its description before any particle is sampled.
struct MemoryEstimate {
  double particles = 0;  ///< Σ over the MPM objects of shape volume × particles_per_cell / h³; a cloth's vertices.
  double bytes = 0;      ///< The particles at kBytesPerParticle each, plus the grid [bytes].
};

/// Memory per particle of a running scene [bytes]: the model's initial values, the state, the sort's copy, the
/// transfer cache and the grid's per-particle tables (measured: docs/cli.md, "Scale checks").
inline constexpr double kBytesPerParticle = 350;

MemoryEstimate EstimateMemory(const SceneDesc& scene);

/// This machine's physical memory [bytes].
double PhysicalMemoryBytes();

/// Refuses a scene whose run needs more memory than the machine has (returns the error) and warns on stderr when
/// it needs more than half of it. Call before CompileModel, which allocates the particles.
std::string CheckMemory(const SceneDesc& scene);

/// The steps of a run of `duration` seconds: round(duration / dt), at least 1. Returns an error when that is
/// more than a 64-bit count holds, else an empty string.
std::string CountSteps(double duration, double dt, std::int64_t& steps);

/// Warns on stderr when `steps` steps of `model` on `threads` threads would take more than an hour even at an
/// optimistic cost per particle and substep (a lower bound of the wall time).
void WarnIfSlow(const Model& model, std::int64_t steps, int threads);

/// During a run: once a few seconds of wall time have passed, warns once on stderr when the steps left would take
/// more than an hour at the cost per step measured so far.
class SlowRunWatch {
 public:
  explicit SlowRunWatch(std::int64_t steps) : steps_(steps), start_(std::chrono::steady_clock::now()) {}
  /// After `done` of the run's steps.
  void Check(std::int64_t done);

 private:
  std::int64_t steps_;
  std::chrono::steady_clock::time_point start_;
  bool checked_ = false;
};

}  // namespace ductile::cli
