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
#include <optional>
#include <sstream>
#include <vector>

#include "atomic_file.h"
#include "ductile/model.h"
#include "ductile/record/video_encoder.h"
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

// Simulated times closer than this are the same instant [s]: step boundaries accumulate round-off.
constexpr double kTimeSlack = 1e-9;

// The HUD of --overlay: the scene, the simulated time and step, and what the last step did. No wall-clock figures,
// so a run drawn twice gives the same pictures.
std::vector<std::string> HudLines(const Snapshot& s, const std::string& scene_name) {
  std::array<char, 160> line{};
  std::vector<std::string> lines;
  std::snprintf(line.data(), line.size(), "%s   t = %.3f s", scene_name.c_str(), s.time);
  lines.emplace_back(line.data());
  std::snprintf(line.data(), line.size(), "step %lld   dt %.3g ms, N = %d", static_cast<long long>(s.step), 1e3 * s.dt,
                s.substeps);
  lines.emplace_back(line.data());
  std::snprintf(line.data(), line.size(), "%zu particles   %d contacts   %d solver it", s.particles.position.size(),
                s.telemetry.mpm_contacts + s.telemetry.rigid_contacts,
                s.telemetry.mpm_contact_iterations + s.telemetry.sap_iterations);
  lines.emplace_back(line.data());
  return lines;
}

// The pictures of `run` (--screenshot, --video): one offscreen renderer of --size pixels, the --color mode, the
// --overlay HUD, and one camera for the whole run: the scene's first camera preset, else the framing of the state at
// t = 0 and the MPM domain. So the camera never moves, and a screenshot equals the video frame of its instant.
class Pictures {
 public:
  // Checks --size and --color and takes the scene's first camera; returns the problem or an empty string.
  std::string Configure(const RunOptions& options, const SceneDesc& scene) {
    if (!ParseSize(options.size, width_, height_))
      return "--size must be WIDTHxHEIGHT with each in [16, 16384], got '" + options.size + "'";
    if (!render::ParseColorMode(options.color_mode, view_.color_mode))
      return "--color must be material, speed, stress or plastic, got '" + options.color_mode + "'";
    overlay_ = options.overlay;
    scene_name_ = std::filesystem::path(options.scene).filename().string();
    if (!scene.cameras.empty()) {
      const CameraDesc& preset = scene.cameras.front();
      render::Camera camera;
      for (int a = 0; a < 3; ++a) {
        camera.eye[a] = static_cast<float>(preset.eye[a]);
        camera.target[a] = static_cast<float>(preset.target[a]);
      }
      camera.fov_y_degrees = static_cast<float>(preset.fov_deg);
      camera_ = camera;
    }
    return {};
  }
  int width() const { return width_; }
  int height() const { return height_; }

  // Creates the renderer. Throws render::RenderError.
  void CreateRenderer() { renderer_ = render::OffscreenRenderer::Create(width_, height_); }

  // Without a camera preset: frames the initial state together with the MPM domain, where particles stay whatever
  // they do, so that what falls or spreads remains in the picture.
  void FrameInitialState(const Simulator& sim) {
    if (camera_) return;
    sim.CaptureSnapshot(snapshot_, false);
    const std::array<float, 3>& low = snapshot_.domain_min;
    const std::array<float, 3>& high = snapshot_.domain_max;
    if (high[2] > low[2]) {
      // FrameSnapshot fits the bounds of the particles and shapes: the domain's corners join the particles.
      for (int corner = 0; corner < 8; ++corner)
        snapshot_.particles.position.push_back(
            {corner & 1 ? high[0] : low[0], corner & 2 ? high[1] : low[1], corner & 4 ? high[2] : low[2]});
    }
    camera_ = render::FrameSnapshot(snapshot_, static_cast<float>(width_) / static_cast<float>(height_));
  }

  // Draws the current state. Throws render::RenderError.
  render::Image Render(const Simulator& sim) {
    sim.CaptureSnapshot(snapshot_, view_.color_mode == render::ColorMode::kVonMises);
    render::RenderScene scene = render::BuildRenderScene(snapshot_, view_, *camera_);
    if (overlay_) {
      scene.hud.visible = true;
      scene.hud.lines = HudLines(snapshot_, scene_name_);
    }
    return renderer_->Render(scene);
  }

 private:
  int width_ = 0;
  int height_ = 0;
  render::ViewOptions view_;
  bool overlay_ = false;
  std::string scene_name_;
  std::optional<render::Camera> camera_;
  std::unique_ptr<render::OffscreenRenderer> renderer_;
  Snapshot snapshot_;
};

// The --screenshot of `run`: the frame drawn when the simulated time reaches the requested instant.
class Screenshot {
 public:
  // Checks --at and the path; returns the problem or an empty string.
  std::string Open(const RunOptions& options, double duration) {
    path_ = options.screenshot_file;
    at_ = options.screenshot_at.value_or(duration);
    if (!(at_ >= 0 && at_ <= duration + 1e-12))
      return "--at must lie in [0, " + std::to_string(duration) + "] s (the run's duration), got " +
             std::to_string(at_);
    const std::filesystem::path parent = std::filesystem::absolute(path_).parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(parent, ec))
      return "cannot write screenshot '" + path_.string() + "': folder '" + parent.string() + "' does not exist";
    if (::access(parent.c_str(), W_OK) != 0)
      return "cannot write screenshot '" + path_.string() + "': folder '" + parent.string() + "' is not writable";
    return {};
  }
  bool enabled() const { return !path_.empty(); }
  bool taken() const { return taken_; }

  // Draws and writes the frame once the simulated time has reached the requested instant (half a step of slack).
  void MaybeTake(const Simulator& sim, double dt, Pictures& pictures) {
    if (!enabled() || taken_ || sim.time() + 0.5 * dt < at_) return;
    Take(sim, pictures);
  }

  // Draws and writes the current state.
  void Take(const Simulator& sim, Pictures& pictures) {
    render::WritePng(path_, pictures.Render(sim));
    taken_ = true;
  }

 private:
  std::filesystem::path path_;
  double at_ = 0;
  bool taken_ = false;
};

// The --video of `run` (docs/cli.md, "Video"). Frame k shows the state at the first step boundary at or after
// t = k / fps, for every k with k / fps before the end of the run T: ceil(T·fps) frames that play in real time and
// last T to within a frame. A step longer than a frame fills several frames with its state.
class Video {
 public:
  // Opens the encoder (creating the file) for a run that ends at `end_time` [s]; returns the problem or an empty
  // string.
  std::string Open(const RunOptions& options, int width, int height, double end_time) {
    end_time_ = end_time;
    path_ = options.video_file;
    width_ = width;
    height_ = height;
    fps_ = options.video_fps;
    return encoder_.Open(path_, width, height, fps_);
  }
  bool enabled() const { return encoder_.is_open(); }
  std::int64_t frames() const { return encoder_.frames_pushed(); }

  // At a step boundary (t = 0 included): draws the state once and pushes it as every frame due by now. Returns
  // the encoder's error or an empty string; throws render::RenderError.
  std::string Capture(const Simulator& sim, Pictures& pictures) {
    if (!enabled()) return {};
    std::int64_t due = 0;
    while (Due(encoder_.frames_pushed() + due, sim.time())) ++due;
    if (due == 0) return {};
    render::Image frame = pictures.Render(sim);
    for (std::int64_t i = 1; i <= due; ++i) {
      std::string problem = encoder_.Push(i < due ? frame : std::move(frame));
      if (!problem.empty()) return problem;
    }
    return {};
  }

  // Finishes the file; returns the encoder's error or an empty string.
  std::string Close() { return encoder_.Close(); }

  // "out.mp4 (10 frames of 320x240 at 20 fps, 0.5 s)".
  std::string Describe() const {
    std::ostringstream text;
    text << path_ << " (" << frames() << " frames of " << width_ << "x" << height_ << " at " << fps_ << " fps, "
         << static_cast<double>(frames()) / fps_ << " s)";
    return text.str();
  }
  const std::string& path() const { return path_; }

 private:
  bool Due(std::int64_t frame, double time) const {
    const double frame_time = static_cast<double>(frame) / fps_;
    return frame_time <= time + kTimeSlack && frame_time < end_time_ - kTimeSlack;
  }

  record::VideoEncoder encoder_;
  std::string path_;
  int width_ = 0;
  int height_ = 0;
  int fps_ = 0;
  double end_time_ = 0;
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
  SceneDesc scene;
  std::shared_ptr<const Model> model;
  try {
    scene = LoadScene(options.scene, options.overrides);
    model = std::make_shared<const Model>(CompileModel(scene));
  } catch (const SceneError& e) {
    std::cerr << e.what() << '\n';
    return kExitBadInput;
  }
  const double duration = options.replay ? static_cast<double>(options.replay->steps) * model->dt
                                         : options.duration.value_or(model->duration);
  if (!(duration > 0)) {
    std::cerr << "--duration must be > 0, got " << duration << '\n';
    return kExitBadInput;
  }
  WarnIfUnstable(*model);

  // Open every output before the run, so an unwritable path fails at once.
  std::unique_ptr<AtomicFile> trajectory, probes, stats, csv, demo_log;
  try {
    if (!options.demo_log_file.empty()) demo_log = std::make_unique<AtomicFile>(options.demo_log_file);
    if (!options.csv_file.empty()) csv = std::make_unique<AtomicFile>(options.csv_file);
    if (!options.trajectory_file.empty()) trajectory = std::make_unique<AtomicFile>(options.trajectory_file);
    if (!options.probes_file.empty()) probes = std::make_unique<AtomicFile>(options.probes_file);
    if (!options.stats_file.empty()) stats = std::make_unique<AtomicFile>(options.stats_file);
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return kExitBadInput;
  }
  // The pictures: arguments and paths first (exit 2), then the renderer (a missing Vulkan device: exit 1).
  Pictures pictures;
  Screenshot screenshot;
  Video video;
  const std::int64_t steps =
      options.replay ? options.replay->steps : std::max<std::int64_t>(1, std::llround(duration / model->dt));
  std::unique_ptr<DemoPlayer> player;
  if (options.replay) player = std::make_unique<DemoPlayer>(*options.replay);
  if (!options.screenshot_file.empty() || !options.video_file.empty()) {
    std::string problem = pictures.Configure(options, scene);
    if (problem.empty() && !options.screenshot_file.empty()) problem = screenshot.Open(options, duration);
    if (problem.empty() && !options.video_file.empty())
      problem = video.Open(options, pictures.width(), pictures.height(), static_cast<double>(steps) * model->dt);
    if (!problem.empty()) {
      std::cerr << problem << '\n';
      return kExitBadInput;
    }
    try {
      pictures.CreateRenderer();
    } catch (const render::RenderError& e) {
      std::cerr << "cannot render the " << (screenshot.enabled() ? "screenshot" : "video") << ": " << e.what() << '\n';
      if (video.enabled()) {
        video.Close();
        std::error_code ignored;
        std::filesystem::remove(options.video_file, ignored);
      }
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
  if (screenshot.enabled() || video.enabled()) pictures.FrameInitialState(sim);
  const double frame_interval = 1.0 / model->output_rate;
  double next_frame = 0;
  StepStatistics stats_sum;
  WrenchAccumulator wrenches(sim.num_rigid_bodies());

  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  WriteFrame(sim, trajectory_out, probes_out);
  next_frame += frame_interval;
  std::string failure;
  bool diverged = false;
  bool screenshot_failed = false;
  const auto take_pictures = [&] {
    try {
      screenshot.MaybeTake(sim, model->dt, pictures);
    } catch (const std::exception& e) {
      failure = "screenshot at t = " + std::to_string(sim.time()) + " s: " + e.what();
      screenshot_failed = true;
      return;
    }
    try {
      if (const std::string problem = video.Capture(sim, pictures); !problem.empty()) failure = problem;
    } catch (const std::exception& e) {
      failure = "video frame at t = " + std::to_string(sim.time()) + " s: " + e.what();
    }
  };
  take_pictures();
  const auto start = std::chrono::steady_clock::now();
  Progress progress(duration, !options.quiet && ::isatty(STDERR_FILENO));
  for (std::int64_t i = 0; i < steps; ++i) {
    if (g_interrupted.load()) break;
    if (player) {
      if (std::string refused = player->ApplyDue(sim); !refused.empty()) {
        failure = "replay: " + refused;
        break;
      }
    }
    try {
      sim.Step();
    } catch (const SimulationDiverged& e) {
      failure = e.what();
      diverged = true;
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
    take_pictures();
    if (!failure.empty()) break;
    progress.Update(sim.time(), static_cast<double>(i + 1) / static_cast<double>(steps));
  }
  // A diverged run still shows its last state, where it failed.
  if (screenshot.enabled() && !screenshot.taken() && !screenshot_failed && !g_interrupted.load()) {
    try {
      screenshot.Take(sim, pictures);
    } catch (const std::exception& e) {
      std::cerr << "screenshot: " << e.what() << '\n';
    }
  }
  progress.Finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The video is finished whatever happened: what was recorded up to an interruption or a failure stays playable.
  std::string video_summary;
  if (video.enabled()) {
    video_summary = video.Describe();
    if (const std::string problem = video.Close(); !problem.empty() && failure.empty()) failure = problem;
  }
  if (g_interrupted.load()) {
    std::cerr << "interrupted at t = " << sim.time() << " s; no output files were written";
    if (!video_summary.empty()) std::cerr << " except the video: " << video_summary;
    std::cerr << '\n';
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
        << "  \"ms_per_step_g2p2g\": " << st.PerStep(st.phase_sums.g2p2g_ms) << ",\n"
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
        << "  \"diverged\": " << (diverged ? "true" : "false") << ",\n"
        << "  \"state_hash\": \"" << std::hex << sim.StateHash() << std::dec << "\"\n"
        << "}\n";
  }
  // The replay's verdict: the final state against the log's hash.
  std::string replay_verdict;
  if (options.replay && failure.empty() && options.replay->final_state_hash) {
    std::ostringstream verdict;
    verdict << std::hex << std::setw(16) << std::setfill('0') << sim.StateHash();
    if (sim.StateHash() == *options.replay->final_state_hash) {
      replay_verdict =
          "replay reproduces the log: final state hash " + verdict.str() + " after " + std::to_string(done) + " steps";
    } else {
      std::ostringstream expected;
      expected << std::hex << std::setw(16) << std::setfill('0') << *options.replay->final_state_hash;
      failure = "replay differs from the log: final state hash " + verdict.str() + ", the log has " + expected.str() +
                " (same scene file? same build? the hash is bitwise)";
    }
  }
  if (demo_log && failure.empty()) {
    DemoLog log;
    if (options.replay) log = *options.replay;
    log.scene = std::filesystem::absolute(options.scene).lexically_normal();
    log.overrides = options.overrides;
    log.steps = static_cast<std::int64_t>(done);
    log.final_state_hash = sim.StateHash();
    demo_log->Discard();  // WriteDemoLog writes atomically itself
    try {
      WriteDemoLog(options.demo_log_file, log);
    } catch (const std::exception& e) {
      std::cerr << e.what() << '\n';
      return kExitFailure;
    }
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
    if (!video_summary.empty()) std::cerr << "video up to there: " << video_summary << '\n';
    return kExitFailure;
  }
  if (!options.quiet) {
    std::cout << options.scene << ": " << done << " steps, t = " << sim.time() << " s, " << model->num_particles
              << " particles, " << std::setprecision(3) << wall << " s wall, " << mean_ms << " ms/step, "
              << (wall > 0 ? sim.time() / wall : 0) << "x real time\n";
    if (!video_summary.empty()) std::cout << "video: " << video_summary << '\n';
    if (!replay_verdict.empty()) std::cout << replay_verdict << '\n';
    if (demo_log) std::cout << "demo log: " << options.demo_log_file << '\n';
  }
  return kExitOk;
}

int Replay(const std::string& log_file, RunOptions options) {
  DemoLog log;
  try {
    log = LoadDemoLog(log_file);
  } catch (const SceneError& e) {
    std::cerr << e.what() << '\n';
    return kExitBadInput;
  }
  if (!std::filesystem::exists(log.scene)) {
    std::cerr << log_file << ": the scene '" << log.scene.string() << "' does not exist\n";
    return kExitBadInput;
  }
  options.scene = log.scene.string();
  options.overrides = log.overrides;
  options.duration.reset();
  options.replay = std::make_shared<const DemoLog>(std::move(log));
  return Run(options);
}

}  // namespace ductile::cli
