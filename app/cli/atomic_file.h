// An output file that appears under its name only when complete: written to a temporary file in the same
// folder, then renamed over the target by Commit(). Destroying an uncommitted AtomicFile removes the temporary,
// so an interrupted run never leaves a truncated file that looks complete.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace ductile::cli {

class AtomicFile {
 public:
  /// Opens the temporary file. Throws std::runtime_error naming the path when it cannot be created.
  explicit AtomicFile(std::filesystem::path target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ofstream& stream() { return stream_; }
  const std::filesystem::path& target() const { return target_; }
  /// Flushes, closes and renames the temporary over the target. Throws std::runtime_error on failure.
  void Commit();
  /// Removes the temporary without touching the target.
  void Discard();

 private:
  std::filesystem::path target_;
  std::filesystem::path temporary_;
  std::ofstream stream_;
  bool open_ = false;
};

/// Whether a file can be created at `path` (its folder exists and is writable), before a run spends its time:
/// returns an empty string, or "cannot write WHAT 'PATH': folder 'DIR' does not exist" (or "is not writable").
std::string CheckWritableFolder(const std::string& what, const std::filesystem::path& path);

}  // namespace ductile::cli
