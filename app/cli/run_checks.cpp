#include "run_checks.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <numbers>
#include <sstream>

#include "ductile/model_checks.h"
#include "run_support.h"

namespace ductile::cli {
namespace {

// Estimated wall time above which a run draws a warning [s].
constexpr double kSlowRunSeconds = 3600;
// The optimistic costs of the estimate before a run: a substep of a scene without particles [s], and one particle
// in one substep on one thread [s] (docs/cli.md, "Scale checks": a few times below what the 2-core machines
// measure, so that the estimate is a lower bound).
constexpr double kMinSecondsPerSubstep = 2e-6;
constexpr double kMinSecondsPerParticleSubstep = 20e-9;
// Wall time after which a run compares its measured cost with what is left [s].
constexpr double kMeasureAfterSeconds = 2;

// The volume of a closed mesh's bounding box [m³] (a bound of the mesh's volume), from the OBJ's vertex lines;
// 0 when the file cannot be read (CompileModel reports that).
double MeshBoxVolume(const ShapeDesc& shape) {
  std::ifstream in(shape.mesh_file);
  double low[3] = {1e300, 1e300, 1e300};
  double high[3] = {-1e300, -1e300, -1e300};
  for (std::string line; std::getline(in, line);) {
    if (line.size() < 2 || line[0] != 'v' || line[1] != ' ') continue;
    std::istringstream fields(line.substr(2));
    double p[3] = {0, 0, 0};
    if (!(fields >> p[0] >> p[1] >> p[2])) continue;
    for (int a = 0; a < 3; ++a) {
      low[a] = std::min(low[a], p[a]);
      high[a] = std::max(high[a], p[a]);
    }
  }
  if (high[0] < low[0]) return 0;
  const double s = shape.mesh_scale;
  return (high[0] - low[0]) * (high[1] - low[1]) * (high[2] - low[2]) * s * s * s;
}

// The `v` lines of a mesh's OBJ file: a bound of the vertices of a cloth made of it; 0 when the file cannot be read.
double MeshVertexLines(const ShapeDesc& shape) {
  std::ifstream in(shape.mesh_file);
  double count = 0;
  for (std::string line; std::getline(in, line);)
    if (line.size() >= 2 && line[0] == 'v' && line[1] == ' ') ++count;
  return count;
}

// The volume of an MPM object's shape [m³].
double ShapeVolume(const ShapeDesc& shape) {
  const double r = shape.radius;
  const double ball = 4.0 / 3.0 * std::numbers::pi * r * r * r;
  switch (shape.type) {
    case ShapeType::kBox:
      return shape.size[0] * shape.size[1] * shape.size[2];
    case ShapeType::kSphere:
      return ball;
    case ShapeType::kCylinder:
      return std::numbers::pi * r * r * shape.length;
    case ShapeType::kCapsule:
      return std::numbers::pi * r * r * shape.length + ball;
    case ShapeType::kMesh:
      return MeshBoxVolume(shape);
    case ShapeType::kPlane:
    case ShapeType::kSheet:  // cloth: no volume of cells, its vertices are counted apart (as a cloth mesh's are)
      return 0;
  }
  return 0;
}

// "512 MiB", "3.2 GiB", "318 TiB": three significant digits.
std::string FormatBytes(double bytes) {
  const char* units[] = {"MiB", "GiB", "TiB"};
  double value = bytes / (1024.0 * 1024);
  int unit = 0;
  while (value >= 1024 && unit < 2) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g %s", value, units[unit]);
  return text;
}

// "45 min", "11.6 h", "3.1 days".
std::string FormatWallTime(double seconds) {
  const auto rounded = [](double x) { return FormatNumber(std::round(x * 10) / 10); };
  if (seconds < 3600) return rounded(seconds / 60) + " min";
  if (seconds < 48 * 3600) return rounded(seconds / 3600) + " h";
  if (seconds < 2 * 365 * 86400.0) return rounded(seconds / 86400) + " days";
  return FormatNumber(seconds / (365 * 86400.0)) + " years";
}

}  // namespace

void WarnIfUnstable(const Model& model) {
  const int recommended = model.RecommendedSubsteps();
  // The strong coupling's implicit step has no CFL bound (and no substeps).
  if (model.coupling == CouplingKind::kWeak && model.substeps < recommended) {
    const std::string hint = ImplicitClothHint(model);
    std::cerr << "warning: simulation.substeps = " << model.substeps << " is below the " << recommended
              << " that the CFL condition needs for the elastic wave speed " << std::setprecision(3)
              << model.MaxWaveSpeed() << " m/s at h = " << model.h << " m and dt = " << model.dt
              << " s; the run may diverge" << (hint.empty() ? "" : "; " + hint) << '\n';
  }
  for (const std::string& warning : ClothSpacingWarnings(model)) std::cerr << "warning: " << warning << '\n';
}

MemoryEstimate EstimateMemory(const SceneDesc& scene) {
  const double h = scene.grid.h;
  const double cell = h * h * h;
  MemoryEstimate estimate;
  double cells = 0;  // cells the objects fill
  for (const MpmObjectDesc& object : scene.objects) {
    if (object.shape.type == ShapeType::kSheet) {  // a particle per vertex of the sheet
      const double across = object.shape.vertices;
      estimate.particles +=
          across * std::max(2.0, std::round((across - 1) * object.shape.length / object.shape.width) + 1);
      continue;
    }
    const MaterialDesc* material = scene.FindMaterial(object.material);
    if (material != nullptr && material->model == MaterialModelDesc::kCloth) {  // a particle per mesh vertex
      estimate.particles += MeshVertexLines(object.shape);
      continue;
    }
    const double object_cells = ShapeVolume(object.shape) / cell;
    cells += object_cells;
    estimate.particles += object_cells * object.particles_per_cell;
  }
  // The grid: three 4-byte tables over the domain's 4x4x4-node blocks, and 16 bytes per node of the active blocks
  // (those that hold particles and their neighbours: about twice the filled cells).
  double blocks = 1;
  for (int a = 0; a < 3; ++a)
    blocks *= std::ceil(((scene.grid.domain_max[a] - scene.grid.domain_min[a]) / h + 1 + 2 * kGridPadding) / 4);
  estimate.bytes = estimate.particles * kBytesPerParticle + 12 * blocks + 32 * cells;
  return estimate;
}

double PhysicalMemoryBytes() {
  return static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGE_SIZE));
}

std::string CheckMemory(const SceneDesc& scene) {
  const MemoryEstimate estimate = EstimateMemory(scene);
  const double machine = PhysicalMemoryBytes();
  if (estimate.bytes <= 0.5 * machine) return {};
  const std::string needs = scene.file.string() + ": the run needs about " + FormatNumber(estimate.particles) +
                            " particles (each object's volume x particles_per_cell / grid.h^3) and " +
                            FormatBytes(estimate.bytes) + " of memory with the grid, ";
  const std::string change = ": raise grid.h or lower the objects' particles_per_cell or size";
  if (estimate.bytes > machine) return needs + "more than this machine's " + FormatBytes(machine) + change;
  std::cerr << "warning: " << needs << "more than half of this machine's " << FormatBytes(machine) << change << '\n';
  return {};
}

std::string CountSteps(double duration, double dt, std::int64_t& steps) {
  const double count = std::round(duration / dt);
  // 2^63 is the first double beyond int64; every double below it converts exactly.
  if (!(count < 9.2233720368547758e18)) {
    return "the run would take " + FormatNumber(count) + " steps (" + FormatNumber(duration) +
           " s at simulation.dt = " + FormatNumber(dt) +
           " s), more than a 64-bit step count holds: raise simulation.dt or shorten --duration";
  }
  steps = std::max<std::int64_t>(1, static_cast<std::int64_t>(count));
  return {};
}

void WarnIfSlow(const Model& model, std::int64_t steps, int threads) {
  const double per_substep =
      kMinSecondsPerSubstep + model.num_particles * kMinSecondsPerParticleSubstep / std::max(1, threads);
  const double seconds = static_cast<double>(steps) * model.substeps * per_substep;
  if (seconds <= kSlowRunSeconds) return;
  std::cerr << "warning: " << FormatNumber(static_cast<double>(steps))
            << " steps of simulation.dt = " << FormatNumber(model.dt) << " s ("
            << FormatNumber(static_cast<double>(steps) * model.dt) << " s simulated) with " << model.substeps
            << " substeps of " << model.num_particles << " particles on " << threads << " threads would take at least "
            << FormatWallTime(seconds)
            << ": raise simulation.dt, shorten --duration or use fewer particles (raise grid.h)\n";
}

void SlowRunWatch::Check(std::int64_t done) {
  if (checked_ || done <= 0) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed < kMeasureAfterSeconds) return;
  checked_ = true;
  const double per_step = elapsed / static_cast<double>(done);
  const double left = per_step * static_cast<double>(steps_ - done);
  if (left <= kSlowRunSeconds) return;
  std::cerr << "warning: at the measured " << FormatNumber(per_step * 1e3, 3) << " ms per step, the "
            << FormatNumber(static_cast<double>(steps_ - done), 3) << " steps left take about " << FormatWallTime(left)
            << ": shorten --duration or raise simulation.dt (with --save-state, Ctrl-C saves the state to go on "
               "later with --load-state)\n";
}

}  // namespace ductile::cli
