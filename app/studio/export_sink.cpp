#include "export_sink.h"

namespace ductile::studio {

std::shared_ptr<ExportSink> ExportSink::Start(const std::filesystem::path& dir, double fps, std::string& error) {
  std::shared_ptr<ExportSink> sink(new ExportSink(dir, fps));
  error = sink->exporter_.Open(dir);
  return error.empty() ? sink : nullptr;
}

bool ExportSink::WriteFrames(const Snapshot& snapshot, std::int64_t count) {
  if (count < 1) return true;
  // Several frames due at one state (a step longer than a frame): the state once.
  if (const std::string problem = exporter_.Write(snapshot); !problem.empty()) {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = problem;
    return false;
  }
  frames_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void ExportSink::Finish(double /*end_time*/) {
  const std::string problem = exporter_.Close();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (error_.empty()) error_ = problem;
  }
  finished_.store(true, std::memory_order_release);
}

std::string ExportSink::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

std::string ExportSink::summary() const {
  return "exported " + std::to_string(frames()) + " frames to " + (dir_ / "frames.h5").string() + " (index " +
         (dir_ / "frames.xmf").string() + ")";
}

}  // namespace ductile::studio
