// An 8-bit RGBA image as the renderer returns it, and writing it as a PNG file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace ductile::render {

/// A rendered frame: 8-bit sRGB-encoded RGBA, rows top to bottom (row 0 is the top), no padding between rows.
struct Image {
  int width = 0;                   ///< [pixels].
  int height = 0;                  ///< [pixels].
  std::vector<std::uint8_t> rgba;  ///< 4 * width * height bytes; pixel (x, y) starts at 4 * (y * width + x).
};

/// Writes `image` as an 8-bit RGBA PNG at `path`. Atomic: it writes a temporary file in the same folder and renames
/// it over `path`, so a reader never sees a half-written file. Throws std::invalid_argument when the image's size
/// and pixel buffer disagree, std::runtime_error naming the path and the reason when the file cannot be written.
/// Thread-safe for distinct paths.
void WritePng(const std::filesystem::path& path, const Image& image);

}  // namespace ductile::render
