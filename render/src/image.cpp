// PNG output through libpng's simplified write API into a temporary file that is renamed into place.
#include "ductile/render/image.h"

#include <png.h>

#include <unistd.h>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

namespace ductile::render {
namespace {

// A temporary name next to `path` that no other writer in this process or another process uses at the same time.
std::filesystem::path TemporaryPathFor(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  std::filesystem::path temp = path;
  temp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  return temp;
}

}  // namespace

void WritePng(const std::filesystem::path& path, const Image& image) {
  if (image.width <= 0 || image.height <= 0 ||
      image.rgba.size() != 4 * static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height)) {
    throw std::invalid_argument("WritePng(" + path.string() + "): image of " + std::to_string(image.width) + "x" +
                                std::to_string(image.height) + " pixels has " + std::to_string(image.rgba.size()) +
                                " bytes of RGBA data");
  }
  const std::filesystem::path temp = TemporaryPathFor(path);
  std::FILE* file = std::fopen(temp.c_str(), "wb");
  if (file == nullptr) {
    throw std::runtime_error("cannot write PNG " + path.string() + ": " + std::strerror(errno));
  }

  png_image png;
  std::memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGBA;
  const int written = png_image_write_to_stdio(&png, file, 0, image.rgba.data(), 0, nullptr);
  // libpng reports the reason in png.message; the stream still has to be closed and flushed to know the data is
  // on disk (a full disk shows up at fclose).
  const std::string png_message = png.message;
  png_image_free(&png);
  const bool closed = std::fclose(file) == 0;
  const int close_errno = errno;
  if (written == 0 || !closed) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    const std::string reason = written == 0 ? "libpng: " + png_message : std::strerror(close_errno);
    throw std::runtime_error("cannot write PNG " + path.string() + ": " + reason);
  }

  std::error_code rename_error;
  std::filesystem::rename(temp, path, rename_error);
  if (rename_error) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw std::runtime_error("cannot write PNG " + path.string() + ": rename from " + temp.string() +
                             " failed: " + rename_error.message());
  }
}

}  // namespace ductile::render
