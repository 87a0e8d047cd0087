// Recorder: the studio's video recording (docs/studio.md, "Recording"). A FrameSink that draws each frame the
// SimController hands it with an offscreen renderer of its own, seen by the viewport's camera and colours of that
// moment, optionally with a HUD of simulated quantities, and pushes it to a record::VideoEncoder, which encodes on a
// thread of its own behind a bounded queue (a full queue makes the simulation wait; no frame is dropped).
//
// Threads: Start (renderer and file) runs on the UI thread, so that every problem is known before the first frame;
// the drawing runs on the simulation thread (FrameSink calls); the UI thread passes the camera with SetView, follows
// the progress with frames() and learns the outcome once finished() is true.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "ductile/record/video_encoder.h"
#include "ductile/render/renderer.h"
#include "ductile/render/snapshot_scene.h"
#include "frame_sink.h"

namespace ductile::studio {

/// What to record and how.
struct RecordingSettings {
  /// The MP4 file to write (replaced when it exists); its folder must exist and be writable.
  std::filesystem::path path;
  int width = 1280;      ///< [pixels], even, in [record::kMinSide, record::kMaxSide].
  int height = 720;      ///< [pixels], even, in [record::kMinSide, record::kMaxSide].
  int fps = 30;          ///< Frames per second of simulated time, in [record::kMinFps, record::kMaxFps].
  bool overlay = false;  ///< Draw the HUD (scene, simulated time, step, particles, contacts, iterations).
};

class Recorder : public FrameSink {
 public:
  /// Opens the video file and creates the renderer (1 sample per pixel on a CPU device such as lavapipe, where 4
  /// cost about three times as much; 4 on a GPU). Returns the recorder, or null with the reason in `error` (a bad
  /// size or rate, a missing or unwritable folder, no libx264, no Vulkan device) and no file left behind.
  /// `scene_name` heads the HUD. UI thread.
  static std::shared_ptr<Recorder> Start(const RecordingSettings& settings, const std::string& scene_name,
                                         std::string& error);

  /// The camera and particle colours of the frames from now on; until the first call, the camera frames the first
  /// frame's state. Thread-safe.
  void SetView(const render::Camera& camera, const render::ViewOptions& view);
  const RecordingSettings& settings() const { return settings_; }
  /// Frames pushed to the encoder so far. Thread-safe.
  std::int64_t frames() const { return frames_.load(std::memory_order_relaxed); }
  /// Whether the recording has ended (Finish ran): summary() and error() are final then. Thread-safe.
  bool finished() const { return finished_.load(std::memory_order_acquire); }
  /// Once finished(): "recorded FILE: N frames, D s of simulation".
  const std::string& summary() const { return summary_; }
  /// Once finished(): why the recording ended early or the file is incomplete, naming the file; empty when it did
  /// not.
  const std::string& error() const { return error_; }
  /// Once finished(): the simulated time the recording covers, from its start to its end [s].
  double simulated_seconds() const { return simulated_seconds_; }

  // FrameSink: the simulation thread.
  double fps() const override { return settings_.fps; }
  bool WriteFrames(const Snapshot& snapshot, std::int64_t count) override;
  void Finish(double end_time) override;

 private:
  explicit Recorder(RecordingSettings settings) : settings_(std::move(settings)) {}

  const RecordingSettings settings_;
  std::string scene_name_;
  record::VideoEncoder encoder_;
  std::unique_ptr<render::OffscreenRenderer> renderer_;
  double start_time_ = 0;  // simulated time of frame 0 [s]

  mutable std::mutex view_mutex_;  // guards camera_ and view_
  std::optional<render::Camera> camera_;
  render::ViewOptions view_;

  std::atomic<std::int64_t> frames_{0};
  std::atomic<bool> finished_{false};
  std::string summary_;  // written before finished_ is set, read after
  std::string error_;    // idem
  double simulated_seconds_ = 0;
};

}  // namespace ductile::studio
