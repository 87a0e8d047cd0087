// The pictures of `ductile-cli run` (docs/cli.md): one offscreen renderer shared by the --screenshot and the
// --video, and the two outputs that draw with it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "ductile/record/video_encoder.h"
#include "ductile/render/renderer.h"
#include "ductile/render/snapshot_scene.h"
#include "ductile/simulator.h"
#include "run_command.h"

namespace ductile::cli {

/// Simulated times closer than this are the same instant [s]: step boundaries accumulate round-off.
inline constexpr double kTimeSlack = 1e-9;

/// One offscreen renderer of --size pixels, the --color mode, the --overlay HUD, and one camera for the whole run:
/// the scene's first camera preset, else the framing of the state at the run's start and the MPM domain. So the
/// camera never moves, and a screenshot equals the video frame of its instant.
class Pictures {
 public:
  /// Checks --size and --color and takes the scene's first camera; returns the problem or an empty string.
  std::string Configure(const RunOptions& options, const SceneDesc& scene);
  int width() const { return width_; }
  int height() const { return height_; }

  /// Creates the renderer. Throws render::RenderError.
  void CreateRenderer() { renderer_ = render::OffscreenRenderer::Create(width_, height_); }

  /// Without a camera preset: frames the scene's state at t = 0 together with the MPM domain, where particles
  /// stay whatever they do, so that what falls or spreads remains in the picture. `sim` is the run's simulator; a
  /// run from a loaded state frames t = 0 all the same (a fresh simulator of `model`), so that its pictures
  /// continue those of the run that saved the state.
  void FrameInitialState(const std::shared_ptr<const Model>& model, const Simulator& sim);

  /// Draws the current state. Throws render::RenderError.
  render::Image Render(const Simulator& sim);

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

/// The --screenshot: the frame drawn when the simulated time reaches the requested instant.
class Screenshot {
 public:
  /// Checks --at against the run's span [start, end] of simulated time [s] and the path's folder; returns the
  /// problem or an empty string.
  std::string Open(const RunOptions& options, double start, double end);
  bool enabled() const { return !path_.empty(); }
  bool taken() const { return taken_; }

  /// Draws and writes the frame once the simulated time has reached the requested instant (half a step of slack).
  void MaybeTake(const Simulator& sim, double dt, Pictures& pictures) {
    if (!enabled() || taken_ || sim.time() + 0.5 * dt < at_) return;
    Take(sim, pictures);
  }

  /// Draws and writes the current state.
  void Take(const Simulator& sim, Pictures& pictures) {
    render::WritePng(path_, pictures.Render(sim));
    taken_ = true;
  }

 private:
  std::filesystem::path path_;
  double at_ = 0;
  bool taken_ = false;
};

/// The --video (docs/cli.md, "Video"). For a run from t0 to T, frame k shows the state at the first step boundary
/// at or after t0 + k / fps, for every k with t0 + k / fps before T: ceil((T − t0)·fps) frames that play in real
/// time and last T − t0 to within a frame. A step longer than a frame fills several frames with its state.
class Video {
 public:
  /// Opens the encoder (creating the file) for a run from `start_time` to `end_time` [s]; returns the problem or
  /// an empty string.
  std::string Open(const RunOptions& options, int width, int height, double start_time, double end_time);
  bool enabled() const { return encoder_.is_open(); }
  std::int64_t frames() const { return encoder_.frames_pushed(); }

  /// At a step boundary (the run's start included): draws the state once and pushes it as every frame due by now.
  /// Returns the encoder's error or an empty string; throws render::RenderError.
  std::string Capture(const Simulator& sim, Pictures& pictures);

  /// Finishes the file; returns the encoder's error or an empty string.
  std::string Close() { return encoder_.Close(); }

  /// "out.mp4 (10 frames of 320x240 at 20 fps, 0.5 s)".
  std::string Describe() const;
  const std::string& path() const { return path_; }

 private:
  bool Due(std::int64_t frame, double time) const {
    const double frame_time = start_time_ + static_cast<double>(frame) / fps_;
    return frame_time <= time + kTimeSlack && frame_time < end_time_ - kTimeSlack;
  }

  record::VideoEncoder encoder_;
  std::string path_;
  int width_ = 0;
  int height_ = 0;
  int fps_ = 0;
  double start_time_ = 0;
  double end_time_ = 0;
};

/// The --screenshot and the --video of a run: their checks before it, what they draw as it steps, and the video's
/// end whatever happened.
class RunPictures {
 public:
  /// For a run from `start` to `end` [s] of simulated time: checks the options and paths (exit 2), then creates
  /// the renderer (exit 1: no Vulkan device). Prints the problem; returns the exit code.
  int Open(const RunOptions& options, const SceneDesc& scene, double start, double end);
  bool enabled() const { return screenshot_.enabled() || video_.enabled(); }

  /// At the run's start: frames the camera and draws what is due. Sets `failure` on a problem.
  void Start(const std::shared_ptr<const Model>& model, const Simulator& sim, std::string& failure);
  /// After a step: the screenshot once its instant is reached, the video frames due. Sets `failure` on a problem.
  void Capture(const Simulator& sim, std::string& failure);
  /// After the run: a run that stopped before the screenshot's instant (diverged) shows its last state, unless
  /// it was interrupted.
  void AfterRun(const Simulator& sim, bool interrupted);
  /// Finishes the video whatever happened, so that what was recorded stays playable. Returns the video's summary
  /// (empty without one); sets `failure`, when still empty, to the encoder's problem.
  std::string CloseVideo(std::string& failure);

 private:
  Pictures pictures_;
  Screenshot screenshot_;
  Video video_;
  bool screenshot_failed_ = false;
};

}  // namespace ductile::cli
