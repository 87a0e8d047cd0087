// ExportSink: the studio's export of frames (Record > Export frames; docs/studio.md, "Export"): a FrameSink that
// writes each due frame's state into DIR/frames.h5 with its XDMF index, as `ductile-cli run --export` does
// (ductile/record/frame_export.h). It is a recording of its own: one of a video or an export runs at a time.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "ductile/record/frame_export.h"
#include "frame_sink.h"

namespace ductile::studio {

class ExportSink final : public FrameSink {
 public:
  /// Opens DIR for frames at `fps` per simulated second (the scene's output rate). Null with `error` set when the
  /// folder cannot be written.
  static std::shared_ptr<ExportSink> Start(const std::filesystem::path& dir, double fps, std::string& error);

  double fps() const override { return fps_; }
  bool wants_stress() const override { return true; }
  bool WriteFrames(const Snapshot& snapshot, std::int64_t count) override;
  void Finish(double end_time) override;

  // For the UI thread.
  bool finished() const { return finished_.load(std::memory_order_acquire); }
  std::int64_t frames() const { return frames_.load(std::memory_order_relaxed); }
  std::string error() const;
  std::string summary() const;

 private:
  ExportSink(std::filesystem::path dir, double fps) : dir_(std::move(dir)), fps_(fps) {}

  std::filesystem::path dir_;
  double fps_ = 30;
  record::FrameExporter exporter_;
  std::atomic<std::int64_t> frames_{0};
  std::atomic<bool> finished_{false};
  mutable std::mutex mutex_;
  std::string error_;
};

}  // namespace ductile::studio
