#include "atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace ductile::cli {

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  temporary_ = target_;
  temporary_ += ".tmp-" + std::to_string(::getpid());
  if (std::filesystem::is_directory(target_)) {
    throw std::runtime_error("cannot write '" + target_.string() + "': it is a directory");
  }
  stream_.open(temporary_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!stream_) {
    throw std::runtime_error("cannot write '" + target_.string() + "': " + std::strerror(errno));
  }
  open_ = true;
}

AtomicFile::~AtomicFile() {
  Discard();
}

void AtomicFile::Commit() {
  if (!open_) throw std::runtime_error("'" + target_.string() + "' was already closed");
  stream_.flush();
  const bool ok = static_cast<bool>(stream_);
  stream_.close();
  open_ = false;
  std::error_code ec;
  if (!ok) {
    std::filesystem::remove(temporary_, ec);
    throw std::runtime_error("writing '" + target_.string() + "' failed (disk full?)");
  }
  std::filesystem::rename(temporary_, target_, ec);
  if (ec) {
    std::filesystem::remove(temporary_, ec);
    throw std::runtime_error("cannot write '" + target_.string() + "': " + ec.message());
  }
}

std::string CheckWritableFolder(const std::string& what, const std::filesystem::path& path) {
  const std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
  const std::string prefix = "cannot write " + what + " '" + path.string() + "': folder '" + parent.string() + "' ";
  std::error_code ec;
  if (!std::filesystem::is_directory(parent, ec)) return prefix + "does not exist";
  if (::access(parent.c_str(), W_OK) != 0) return prefix + "is not writable";
  return {};
}

void AtomicFile::Discard() {
  if (!open_) return;
  stream_.close();
  open_ = false;
  std::error_code ec;
  std::filesystem::remove(temporary_, ec);
}

}  // namespace ductile::cli
