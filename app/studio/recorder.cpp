#include "recorder.h"

#include <array>
#include <cstdio>
#include <exception>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

namespace ductile::studio {
namespace {

// The HUD of a recorded frame: simulated quantities only. Wall-clock figures (measured speed, ms per step, the
// viewport's frame rate) would describe the recording's own slowdown rather than the scene, so they are left out.
std::vector<std::string> OverlayLines(const Snapshot& s, const std::string& scene_name) {
  std::ostringstream head, step, counts;
  head.setf(std::ios::fixed);
  head.precision(3);
  head << scene_name << "   t = " << s.time << " s";
  step << "step " << s.step << "   dt " << 1e3 * s.dt << " ms, N = " << s.substeps;
  counts << s.particles.position.size() << " particles   " << s.telemetry.mpm_contacts + s.telemetry.rigid_contacts
         << " contacts   " << s.telemetry.mpm_contact_iterations + s.telemetry.sap_iterations << " solver it";
  return {head.str(), step.str(), counts.str()};
}

}  // namespace

std::shared_ptr<Recorder> Recorder::Start(const RecordingSettings& settings, const std::string& scene_name,
                                          std::string& error) {
  std::shared_ptr<Recorder> recorder(new Recorder(settings));
  recorder->scene_name_ = scene_name;
  record::QuietEncoderLogs();  // libx264's settings and statistics would fill the terminal at every recording
  // The file first: the encoder checks the size, the rate and the folder, and creates nothing when one is wrong.
  error = recorder->encoder_.Open(settings.path, settings.width, settings.height, settings.fps);
  if (!error.empty()) return nullptr;
  try {
    recorder->renderer_ = render::OffscreenRenderer::Create(settings.width, settings.height, 1);
    if (recorder->renderer_->DeviceName().find("llvmpipe") == std::string::npos)
      recorder->renderer_ = render::OffscreenRenderer::Create(settings.width, settings.height, 4);
  } catch (const std::exception& e) {
    // No picture, no file: the empty video just created goes.
    recorder->encoder_.Close();
    std::error_code ignored;
    std::filesystem::remove(settings.path, ignored);
    error = "video '" + settings.path.string() + "': cannot render: " + e.what();
    return nullptr;
  }
  return recorder;
}

void Recorder::SetView(const render::Camera& camera, const render::ViewOptions& view) {
  const std::lock_guard lock(view_mutex_);
  camera_ = camera;
  view_ = view;
}

bool Recorder::WriteFrames(const Snapshot& snapshot, std::int64_t count) {
  if (frames() == 0) start_time_ = snapshot.time;
  render::Image frame;
  try {
    render::RenderScene scene;
    {
      const std::lock_guard lock(view_mutex_);
      if (!camera_)
        camera_ =
            render::FrameSnapshot(snapshot, static_cast<float>(settings_.width) / static_cast<float>(settings_.height));
      scene = render::BuildRenderScene(snapshot, view_, *camera_);
    }
    if (settings_.overlay) {
      scene.hud.visible = true;
      scene.hud.lines = OverlayLines(snapshot, scene_name_);
    }
    frame = renderer_->Render(scene);
  } catch (const std::exception& e) {
    std::ostringstream message;
    message << "recording '" << settings_.path.string() << "' stopped: the frame at t = " << snapshot.time
            << " s could not be drawn: " << e.what();
    error_ = message.str();
    return false;
  }
  const auto push = [this](render::Image image) {
    std::string problem = encoder_.Push(std::move(image));
    if (!problem.empty()) {
      error_ = "recording stopped: " + problem;
      return false;
    }
    frames_.store(encoder_.frames_pushed(), std::memory_order_relaxed);
    return true;
  };
  // Repeats of one state copy the image into the queue; the last moves it.
  for (std::int64_t i = 1; i < count; ++i)
    if (!push(frame)) return false;
  return count < 1 || push(std::move(frame));
}

void Recorder::Finish(double end_time) {
  const std::string problem = encoder_.Close();
  if (error_.empty() && !problem.empty()) error_ = "recording incomplete: " + problem;
  renderer_.reset();  // its device memory is not needed any more
  simulated_seconds_ = frames() > 0 ? end_time - start_time_ : 0;
  std::array<char, 64> seconds{};
  std::snprintf(seconds.data(), seconds.size(), "%.3f", simulated_seconds_);
  summary_ = "recorded " + settings_.path.string() + ": " + std::to_string(frames()) + " frames, " + seconds.data() +
             " s of simulation";
  finished_.store(true, std::memory_order_release);
}

}  // namespace ductile::studio
