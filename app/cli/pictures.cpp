#include "pictures.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <utility>
#include <vector>

#include "atomic_file.h"
#include "run_support.h"

namespace ductile::cli {
namespace {

// "WIDTHxHEIGHT" with both in [16, 16384]; false otherwise.
bool ParseSize(const std::string& text, int& width, int& height) {
  char x = 0;
  char rest = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &width, &x, &height, &rest) != 3 || x != 'x') return false;
  return width >= 16 && height >= 16 && width <= 16384 && height <= 16384;
}

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

}  // namespace

std::string Pictures::Configure(const RunOptions& options, const SceneDesc& scene) {
  if (!ParseSize(options.size, width_, height_))
    return "--size must be WIDTHxHEIGHT with each in [16, 16384], got '" + options.size + "'";
  if (!render::ParseColorMode(options.color_mode, view_.color_mode))
    return "--color must be material, speed, stress or plastic, got '" + options.color_mode + "'";
  if (!render::ParseParticleStyle(options.particle_style, view_.particle_style))
    return "--particles-as must be surface or beads, got '" + options.particle_style + "'";
  overlay_ = options.overlay;
  scene_name_ = std::filesystem::path(options.scene).filename().string();
  if (!scene.cameras.empty()) camera_ = render::CameraOf(scene.cameras.front());
  return {};
}

void Pictures::FrameInitialState(const std::shared_ptr<const Model>& model, const Simulator& sim) {
  if (camera_) return;
  if (sim.step_count() == 0) {
    sim.CaptureSnapshot(snapshot_, false);
  } else {
    Simulator(model, SimulatorOptions{1}).CaptureSnapshot(snapshot_, false);
  }
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

render::Image Pictures::Render(const Simulator& sim) {
  sim.CaptureSnapshot(snapshot_, view_.color_mode == render::ColorMode::kVonMises);
  render::RenderScene scene = render::BuildRenderScene(snapshot_, view_, *camera_);
  if (overlay_) {
    scene.hud.visible = true;
    scene.hud.lines = HudLines(snapshot_, scene_name_);
  }
  return renderer_->Render(scene);
}

std::string Screenshot::Open(const RunOptions& options, double start, double end) {
  path_ = options.screenshot_file;
  at_ = options.screenshot_at.value_or(end);
  if (!(at_ >= start - 1e-12 && at_ <= end + 1e-12))
    return "--at must lie in [" + FormatNumber(start) + ", " + FormatNumber(end) + "] s (the run's span), got " +
           FormatNumber(at_);
  return CheckWritableFolder("screenshot", path_);
}

std::string Video::Open(const RunOptions& options, int width, int height, double start_time, double end_time) {
  start_time_ = start_time;
  end_time_ = end_time;
  path_ = options.video_file;
  width_ = width;
  height_ = height;
  fps_ = options.video_fps;
  return encoder_.Open(path_, width, height, fps_);
}

std::string Video::Capture(const Simulator& sim, Pictures& pictures) {
  if (!enabled()) return {};
  std::int64_t due = 0;
  while (Due(encoder_.frames_pushed() + due, sim.time())) ++due;
  if (due == 0) return {};
  render::Image frame = pictures.Render(sim);
  // Repeats of one state copy the image; the last moves it.
  for (std::int64_t i = 1; i < due; ++i) {
    std::string problem = encoder_.Push(frame);
    if (!problem.empty()) return problem;
  }
  return encoder_.Push(std::move(frame));
}

std::string Video::Describe() const {
  std::ostringstream text;
  text << path_ << " (" << frames() << " frames of " << width_ << "x" << height_ << " at " << fps_ << " fps, "
       << static_cast<double>(frames()) / fps_ << " s)";
  return text.str();
}

int RunPictures::Open(const RunOptions& options, const SceneDesc& scene, double start, double end) {
  if (options.screenshot_file.empty() && options.video_file.empty()) return kExitOk;
  std::string problem = pictures_.Configure(options, scene);
  if (problem.empty() && !options.screenshot_file.empty()) problem = screenshot_.Open(options, start, end);
  if (problem.empty() && !options.video_file.empty())
    problem = video_.Open(options, pictures_.width(), pictures_.height(), start, end);
  if (!problem.empty()) {
    std::cerr << problem << '\n';
    return kExitBadInput;
  }
  try {
    pictures_.CreateRenderer();
  } catch (const render::RenderError& e) {
    std::cerr << "cannot render the " << (screenshot_.enabled() ? "screenshot" : "video") << ": " << e.what() << '\n';
    if (video_.enabled()) {
      video_.Close();
      std::error_code ignored;
      std::filesystem::remove(options.video_file, ignored);
    }
    return kExitFailure;
  }
  return kExitOk;
}

void RunPictures::Start(const std::shared_ptr<const Model>& model, const Simulator& sim, std::string& failure) {
  if (!enabled()) return;
  pictures_.FrameInitialState(model, sim);
  Capture(sim, failure);
}

void RunPictures::Capture(const Simulator& sim, std::string& failure) {
  if (!enabled()) return;
  try {
    screenshot_.MaybeTake(sim, sim.model().dt, pictures_);
  } catch (const std::exception& e) {
    failure = "screenshot at t = " + std::to_string(sim.time()) + " s: " + e.what();
    screenshot_failed_ = true;
    return;
  }
  try {
    if (const std::string problem = video_.Capture(sim, pictures_); !problem.empty()) failure = problem;
  } catch (const std::exception& e) {
    failure = "video frame at t = " + std::to_string(sim.time()) + " s: " + e.what();
  }
}

void RunPictures::AfterRun(const Simulator& sim, bool interrupted) {
  if (!screenshot_.enabled() || screenshot_.taken() || screenshot_failed_ || interrupted) return;
  try {
    screenshot_.Take(sim, pictures_);
  } catch (const std::exception& e) {
    std::cerr << "screenshot: " << e.what() << '\n';
  }
}

std::string RunPictures::CloseVideo(std::string& failure) {
  if (!video_.enabled()) return {};
  std::string summary = video_.Describe();
  if (const std::string problem = video_.Close(); !problem.empty() && failure.empty()) failure = problem;
  return summary;
}

}  // namespace ductile::cli
