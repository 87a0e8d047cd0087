#include "run_command.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <numeric>
#include <vector>

#include "atomic_file.h"
#include "ductile/model.h"
#include "ductile/render/renderer.h"
#include "ductile/render/snapshot_scene.h"
#include "ductile/simulator.h"
#include "run_support.h"
#include "step_statistics.h"

namespace ductile::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void OnSignal(int) {
  g_interrupted.store(true);
}

// "WIDTHxHEIGHT" with both in [16, 16384]; false otherwise.
bool ParseSize(const std::string& text, int& width, int& height) {
  char x = 0;
  char rest = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &width, &x, &height, &rest) != 3 || x != 'x') return false;
  return width >= 16 && height >= 16 && width <= 16384 && height <= 16384;
}

// The --screenshot of `run`: a renderer made before the run (so a missing Vulkan device or a bad path fails at
// once) and the frame drawn when the simulated time reaches the requested instant.
class Screenshot {
 public:
  // Returns an empty string when the options are usable, else the message.
  std::string Open(const RunOptions& options, double duration) {
    path_ = options.screenshot_file;
    at_ = options.screenshot_at.value_or(duration);
    if (!(at_ >= 0 && at_ <= duration + 1e-12))
      return "--at must lie in [0, " + std::to_string(duration) + "] s (the run's duration), got " +
             std::to_string(at_);
    int width = 0, height = 0;
    if (!ParseSize(options.screenshot_size, width, height))
      return "--size must be WIDTHxHEIGHT with each in [16, 16384], got '" + options.screenshot_size + "'";
    if (!render::ParseColorMode(options.color_mode, view_.color_mode))
      return "--color must be material, speed, stress or plastic, got '" + options.color_mode + "'";
    const std::filesystem::path parent = std::filesystem::absolute(path_).parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(parent, ec))
      return "cannot write screenshot '" + path_.string() + "': folder '" + parent.string() + "' does not exist";
    if (::access(parent.c_str(), W_OK) != 0)
      return "cannot write screenshot '" + path_.string() + "': folder '" + parent.string() + "' is not writable";
    renderer_ = render::OffscreenRenderer::Create(width, height);
    return {};
  }
  bool enabled() const { return renderer_ != nullptr; }
  bool taken() const { return taken_; }
  double at() const { return at_; }

  // Draws and writes the frame once the simulated time has reached the requested instant (half a step of slack).
  void MaybeTake(const Simulator& sim, double dt) {
    if (!renderer_ || taken_ || sim.time() + 0.5 * dt < at_) return;
    Take(sim);
  }

  // Draws and writes the current state.
  void Take(const Simulator& sim) {
    Snapshot snapshot;
    sim.CaptureSnapshot(snapshot);
    const float aspect = static_cast<float>(renderer_->width()) / static_cast<float>(renderer_->height());
    const render::Camera camera = render::FrameSnapshot(snapshot, aspect);
    render::WritePng(path_, renderer_->Render(render::BuildRenderScene(snapshot, view_, camera)));
    taken_ = true;
  }

 private:
  std::filesystem::path path_;
  double at_ = 0;
  render::ViewOptions view_;
  std::unique_ptr<render::OffscreenRenderer> renderer_;
  bool taken_ = false;
};

const char* ProbeQuantityName(ProbeQuantity q) {
  switch (q) {
    case ProbeQuantity::kCenterOfMass:
      return "center_of_mass";
    case ProbeQuantity::kVelocity:
      return "velocity";
    case ProbeQuantity::kBounds:
      return "bounds";
    case ProbeQuantity::kKineticEnergy:
      return "kinetic_energy";
  }
  return "";
}

// Contact force and torque on each rigid body, integrated over the steps of the current output frame.
struct WrenchAccumulator {
  std::vector<std::array<double, 6>> impulse;  // per output body: ∫f dt, ∫τ dt
  double elapsed = 0;                          // [s]

  explicit WrenchAccumulator(int bodies) : impulse(bodies, std::array<double, 6>{}) {}
  void Add(const Simulator& sim, double dt) {
    for (int b = 0; b < static_cast<int>(impulse.size()); ++b) {
      const RigidBodySummary s = sim.SummarizeRigidBody(b);
      for (int a = 0; a < 3; ++a) {
        impulse[b][a] += s.contact_force[a] * dt;
        impulse[b][3 + a] += s.contact_torque[a] * dt;
      }
    }
    elapsed += dt;
  }
  // One row per body with the frame's means, then a fresh frame.
  void Write(const Simulator& sim, std::ostream& out) {
    for (int b = 0; b < static_cast<int>(impulse.size()); ++b) {
      const RigidBodySummary s = sim.SummarizeRigidBody(b);
      out << sim.time() << ',' << s.name;
      for (double x : impulse[b]) out << ',' << (elapsed > 0 ? x / elapsed : 0.0);
      out << ',' << s.mpm_contacts << '\n';
      impulse[b].fill(0);
    }
    elapsed = 0;
  }
};

// Writes the rows of one output frame.
void WriteFrame(const Simulator& sim, std::ostream* trajectory, std::ostream* probes) {
  const Model& model = sim.model();
  const double t = sim.time();
  if (trajectory) {
    for (std::size_t o = 0; o < model.objects.size(); ++o) {
      const ObjectSummary s = sim.SummarizeObject(static_cast<int>(o));
      *trajectory << t << ',' << model.objects[o].name << ',' << s.center_of_mass[0] << ',' << s.center_of_mass[1]
                  << ',' << s.center_of_mass[2] << ",,,,\n";
    }
    for (int b = 0; b < sim.num_rigid_bodies(); ++b) {
      const RigidBodySummary s = sim.SummarizeRigidBody(b);
      *trajectory << t << ',' << s.name << ',' << s.position[0] << ',' << s.position[1] << ',' << s.position[2] << ','
                  << s.quaternion[0] << ',' << s.quaternion[1] << ',' << s.quaternion[2] << ',' << s.quaternion[3]
                  << '\n';
    }
  }
  if (probes) {
    for (const ProbeInfo& probe : model.probes) {
      const ObjectSummary s = sim.SummarizeObject(probe.object);
      auto row = [&](const char* component, double value) {
        *probes << t << ',' << probe.name << ',' << model.objects[probe.object].name << ','
                << ProbeQuantityName(probe.quantity) << ',' << component << ',' << value << '\n';
      };
      switch (probe.quantity) {
        case ProbeQuantity::kCenterOfMass:
          row("x", s.center_of_mass[0]);
          row("y", s.center_of_mass[1]);
          row("z", s.center_of_mass[2]);
          break;
        case ProbeQuantity::kVelocity:
          row("x", s.velocity[0]);
          row("y", s.velocity[1]);
          row("z", s.velocity[2]);
          break;
        case ProbeQuantity::kBounds:
          row("min_x", s.bounds_min[0]);
          row("min_y", s.bounds_min[1]);
          row("min_z", s.bounds_min[2]);
          row("max_x", s.bounds_max[0]);
          row("max_y", s.bounds_max[1]);
          row("max_z", s.bounds_max[2]);
          break;
        case ProbeQuantity::kKineticEnergy:
          row("value", s.kinetic_energy);
          break;
      }
    }
  }
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  return 0.5 * (upper + *std::max_element(v.begin(), v.begin() + mid));
}

void WarnIfUnstable(const Model& model) {
  const int recommended = model.RecommendedSubsteps();
  if (model.substeps < recommended) {
    std::cerr << "warning: simulation.substeps = " << model.substeps << " is below the " << recommended
              << " that the CFL condition needs for the elastic wave speed " << std::setprecision(3)
              << model.MaxWaveSpeed() << " m/s at h = " << model.h << " m and dt = " << model.dt
              << " s; the run may diverge\n";
  }
}

}  // namespace

int Validate(const std::string& scene, const std::vector<Override>& overrides) {
  try {
    const std::shared_ptr<const Model> model = LoadModel(scene, overrides);
    WarnIfUnstable(*model);
    std::cout << scene << ": ok (" << model->num_particles << " particles, " << model->objects.size() << " objects, "
              << model->materials.size() << " materials, " << model->RigidOutputBodies() << " moving rigid bodies with "
              << model->RigidDofs() << " dofs)\n";
    return kExitOk;
  } catch (const SceneError& e) {
    std::cerr << e.what() << '\n';
    return kExitBadInput;
  }
}

int Run(const RunOptions& options) {
  std::shared_ptr<const Model> model;
  try {
    model = LoadModel(options.scene, options.overrides);
  } catch (const SceneError& e) {
    std::cerr << e.what() << '\n';
    return kExitBadInput;
  }
  const double duration = options.duration.value_or(model->duration);
  if (!(duration > 0)) {
    std::cerr << "--duration must be > 0, got " << duration << '\n';
    return kExitBadInput;
  }
  WarnIfUnstable(*model);

  // Open every output before the run, so an unwritable path fails at once.
  std::unique_ptr<AtomicFile> trajectory, probes, stats, csv;
  try {
    if (!options.csv_file.empty()) csv = std::make_unique<AtomicFile>(options.csv_file);
    if (!options.trajectory_file.empty()) trajectory = std::make_unique<AtomicFile>(options.trajectory_file);
    if (!options.probes_file.empty()) probes = std::make_unique<AtomicFile>(options.probes_file);
    if (!options.stats_file.empty()) stats = std::make_unique<AtomicFile>(options.stats_file);
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return kExitBadInput;
  }
  Screenshot screenshot;
  if (!options.screenshot_file.empty()) {
    try {
      const std::string problem = screenshot.Open(options, duration);
      if (!problem.empty()) {
        std::cerr << problem << '\n';
        return kExitBadInput;
      }
    } catch (const render::RenderError& e) {
      std::cerr << "cannot render the screenshot: " << e.what() << '\n';
      return kExitFailure;
    }
  }
  std::ostream* trajectory_out = trajectory ? &trajectory->stream() : nullptr;
  std::ostream* probes_out = probes ? &probes->stream() : nullptr;
  if (trajectory_out) *trajectory_out << std::setprecision(9) << "time,body,x,y,z,qw,qx,qy,qz\n";
  if (probes_out) *probes_out << std::setprecision(9) << "time,probe,object,quantity,component,value\n";
  std::ostream* csv_out = csv ? &csv->stream() : nullptr;
  if (csv_out) *csv_out << std::setprecision(9) << "time,body,fx,fy,fz,tx,ty,tz,mpm_contacts\n";

  Simulator sim(model, SimulatorOptions{options.threads});
  const std::int64_t steps = std::max<std::int64_t>(1, std::llround(duration / model->dt));
  const double frame_interval = 1.0 / model->output_rate;
  double next_frame = 0;
  StepStatistics stats_sum;
  WrenchAccumulator wrenches(sim.num_rigid_bodies());

  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  WriteFrame(sim, trajectory_out, probes_out);
  next_frame += frame_interval;
  std::string failure;
  bool screenshot_failed = false;
  const auto take_screenshot = [&] {
    try {
      screenshot.MaybeTake(sim, model->dt);
    } catch (const std::exception& e) {
      failure = "screenshot at t = " + std::to_string(sim.time()) + " s: " + e.what();
      screenshot_failed = true;
    }
  };
  take_screenshot();
  const auto start = std::chrono::steady_clock::now();
  Progress progress(duration, !options.quiet && ::isatty(STDERR_FILENO));
  for (std::int64_t i = 0; i < steps; ++i) {
    if (g_interrupted.load()) break;
    try {
      sim.Step();
    } catch (const SimulationDiverged& e) {
      failure = e.what();
      break;
    }
    stats_sum.Add(sim.last_step());
    if (csv_out) wrenches.Add(sim, model->dt);
    // A frame whenever the simulated time reaches the next output time (half a step of slack for rounding).
    if (sim.time() + 0.5 * model->dt >= next_frame) {
      WriteFrame(sim, trajectory_out, probes_out);
      if (csv_out) wrenches.Write(sim, *csv_out);
      while (next_frame <= sim.time() + 0.5 * model->dt) next_frame += frame_interval;
    }
    take_screenshot();
    if (!failure.empty()) break;
    progress.Update(sim.time(), static_cast<double>(i + 1) / static_cast<double>(steps));
  }
  // A diverged run still shows its last state, where it failed.
  if (screenshot.enabled() && !screenshot.taken() && !screenshot_failed && !g_interrupted.load()) {
    try {
      screenshot.Take(sim);
    } catch (const std::exception& e) {
      std::cerr << "screenshot: " << e.what() << '\n';
    }
  }
  progress.Finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (g_interrupted.load()) {
    std::cerr << "interrupted at t = " << sim.time() << " s; no output files were written\n";
    return kExitInterrupted;
  }

  const StepStatistics& st = stats_sum;
  const std::size_t done = st.steps();
  const double mean_ms = st.MeanStepMs();
  const double particle_substeps = static_cast<double>(model->num_particles) * model->substeps * done;
  if (stats) {
    std::ostream& out = stats->stream();
    out << std::setprecision(9) << "{\n"
        << "  \"scene\": " << JsonString(options.scene) << ",\n"
        << "  \"particles\": " << model->num_particles << ",\n"
        << "  \"h\": " << model->h << ",\n"
        << "  \"dt\": " << model->dt << ",\n"
        << "  \"substeps\": " << model->substeps << ",\n"
        << "  \"steps\": " << done << ",\n"
        << "  \"sim_time\": " << sim.time() << ",\n"
        << "  \"threads\": " << sim.threads() << ",\n"
        << "  \"wall_seconds\": " << wall << ",\n"
        << "  \"ms_per_step_median\": " << Median(st.step_ms) << ",\n"
        << "  \"ms_per_step_mean\": " << mean_ms << ",\n"
        << "  \"active_nodes_avg\": " << st.PerStep(st.active_nodes_sum) << ",\n"
        << "  \"ms_per_step_sort\": " << st.PerStep(st.phase_sums.sort_ms) << ",\n"
        << "  \"ms_per_step_p2g\": " << st.PerStep(st.phase_sums.p2g_ms) << ",\n"
        << "  \"ms_per_step_grid\": " << st.PerStep(st.phase_sums.grid_ms) << ",\n"
        << "  \"ms_per_step_g2p\": " << st.PerStep(st.phase_sums.g2p_ms) << ",\n"
        << "  \"rigid_bodies\": " << sim.num_rigid_bodies() << ",\n"
        << "  \"rigid_dofs\": " << model->RigidDofs() << ",\n"
        << "  \"ms_per_step_rigid\": " << st.PerStep(st.phase_sums.rigid_ms) << ",\n"
        << "  \"sap_iterations_mean\": " << st.PerStep(st.sap_iterations_sum) << ",\n"
        << "  \"sap_iterations_max\": " << st.sap_iterations_max << ",\n"
        << "  \"sap_steps_not_converged\": " << st.sap_not_converged << ",\n"
        << "  \"rigid_contacts_mean\": " << st.PerStep(st.rigid_contacts_sum) << ",\n"
        << "  \"rigid_contacts_max\": " << st.rigid_contacts_max << ",\n"
        << "  \"mpm_contacts_mean\": " << st.PerStep(st.mpm_contacts_sum) << ",\n"
        << "  \"mpm_contacts_max\": " << st.mpm_contacts_max << ",\n"
        << "  \"mpm_contact_iterations_per_substep\": " << st.MpmIterationsPerSubstep(model->substeps) << ",\n"
        << "  \"mpm_contact_steps_not_converged\": " << st.mpm_not_converged << ",\n"
        << "  \"realtime_factor\": " << (wall > 0 ? sim.time() / wall : 0) << ",\n"
        << "  \"particle_substeps_per_second\": " << (wall > 0 ? particle_substeps / wall : 0) << ",\n"
        << "  \"recommended_substeps\": " << model->RecommendedSubsteps() << ",\n"
        << "  \"diverged\": " << (failure.empty() ? "false" : "true") << ",\n"
        << "  \"state_hash\": \"" << std::hex << sim.StateHash() << std::dec << "\"\n"
        << "}\n";
  }
  try {
    if (trajectory) trajectory->Commit();
    if (probes) probes->Commit();
    if (stats) stats->Commit();
    if (csv) csv->Commit();
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return kExitFailure;
  }
  if (!failure.empty()) {
    std::cerr << failure << '\n';
    return kExitFailure;
  }
  if (!options.quiet) {
    std::cout << options.scene << ": " << done << " steps, t = " << sim.time() << " s, " << model->num_particles
              << " particles, " << std::setprecision(3) << wall << " s wall, " << mean_ms << " ms/step, "
              << (wall > 0 ? sim.time() / wall : 0) << "x real time\n";
  }
  return kExitOk;
}

}  // namespace ductile::cli
