// An 8-bit RGBA image as the renderer returns it, and writing it as a PNG file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
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

/// Resamples an image of 4 bytes per pixel (any channel order; rows top to bottom, no padding) from `src_width` x
/// `src_height` to `dst_width` x `dst_height` pixels with bilinear filtering, sampled as a GPU samples a texture
/// with clamp-to-edge addressing: destination pixel (x, y) reads the source at ((x + ½)·src/dst − ½, ...), with
/// weights in steps of 1/256 and the result rounded, so it is within one unit of the exact filter. Each channel is
/// filtered on its own, as stored (an sRGB-encoded image is filtered in encoded values, as a UNORM view would be).
/// The viewport scales its scene image up with it on a CPU Vulkan device, where a full-screen pass costs several
/// times as much. Throws std::invalid_argument for a size below 1 or spans of the wrong length.
void ScaleBilinear(std::span<const std::uint8_t> src, int src_width, int src_height, std::span<std::uint8_t> dst,
                   int dst_width, int dst_height);

}  // namespace ductile::render
