// PNG output through libpng's simplified write API into a temporary file that is renamed into place, and bilinear
// resampling of 8-bit images on the CPU.
#include "ductile/render/image.h"

#include <png.h>

#include <unistd.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
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

// Where destination column (or row) d of `dst` reads a source of `src` columns: the two texels and the second's
// weight in 1/256, as a GPU's bilinear sampler with clamp-to-edge addressing places them.
struct Tap {
  int first = 0, second = 0;
  std::uint32_t weight = 0;  // Of `second`, 0 to 256.
};

std::vector<Tap> Taps(int src, int dst) {
  std::vector<Tap> taps(static_cast<std::size_t>(dst));
  const double step = static_cast<double>(src) / static_cast<double>(dst);
  for (int d = 0; d < dst; ++d) {
    const double s = (d + 0.5) * step - 0.5;
    const double lower = std::floor(s);
    const int i = static_cast<int>(lower);
    Tap& tap = taps[static_cast<std::size_t>(d)];
    tap.first = std::clamp(i, 0, src - 1);
    tap.second = std::clamp(i + 1, 0, src - 1);
    tap.weight = static_cast<std::uint32_t>(std::lround((s - lower) * 256.0));
  }
  return taps;
}

// Whether `taps` doubles the size: destination 2i + 1 reads source i and i + 1 with weights 3/4 and 1/4.
bool Doubles(const std::vector<Tap>& taps) {
  return taps.size() % 2 == 0 && taps.size() >= 4 && taps[1].first == 0 && taps[1].second == 1 &&
         taps[1].weight == 64 && 2 * static_cast<std::size_t>(taps.back().first) + 2 == taps.size();
}

// Source row `row` filtered along x into `out`, 4 values per destination pixel, in units of 1/2^shift of a source
// value: shift 2 where `doubles` (Doubles(columns)), else 8.
void ScaleRow(const std::uint8_t* row, const std::vector<Tap>& columns, bool doubles, std::uint16_t* out) {
  if (doubles) {
    // Pixel 2i + 1 is (3 p_i + p_(i+1)) / 4 and pixel 2i + 2 is (p_i + 3 p_(i+1)) / 4; the edges copy theirs. Each
    // pair of neighbours gives eight consecutive values, which the compiler vectorises.
    const std::size_t width = columns.size() / 2;
    for (int c = 0; c < 4; ++c) {
      out[c] = static_cast<std::uint16_t>(4 * row[c]);
      out[8 * width - 4 + static_cast<std::size_t>(c)] = static_cast<std::uint16_t>(4 * row[4 * (width - 1) + c]);
    }
    // Pixels as 64-bit words of four 16-bit channels, channel c in bits 16c (so in memory order on a little-endian
    // machine); a sum of such words never carries across channels (at most 4 · 255 per channel).
    static_assert(std::endian::native == std::endian::little);
    const auto word = [row](std::size_t i) {
      std::uint64_t w = 0;
      for (int c = 0; c < 4; ++c) w |= static_cast<std::uint64_t>(row[4 * i + static_cast<std::size_t>(c)]) << (16 * c);
      return w;
    };
    for (std::size_t i = 0; i + 1 < width; ++i) {
      const std::uint64_t a = word(i), b = word(i + 1);
      const std::uint64_t odd = 3 * a + b, even = a + 3 * b;
      std::memcpy(out + 8 * i + 4, &odd, sizeof odd);
      std::memcpy(out + 8 * i + 8, &even, sizeof even);
    }
    return;
  }
  for (std::size_t x = 0; x < columns.size(); ++x) {
    const Tap& tap = columns[x];
    const std::uint8_t* a = row + 4 * static_cast<std::size_t>(tap.first);
    const std::uint8_t* b = row + 4 * static_cast<std::size_t>(tap.second);
    for (int c = 0; c < 4; ++c) {
      out[4 * x + static_cast<std::size_t>(c)] =
          static_cast<std::uint16_t>(a[c] * (256 - tap.weight) + b[c] * tap.weight);
    }
  }
}

}  // namespace

void ScaleBilinear(std::span<const std::uint8_t> src, int src_width, int src_height, std::span<std::uint8_t> dst,
                   int dst_width, int dst_height) {
  if (src_width < 1 || src_height < 1 || dst_width < 1 || dst_height < 1) {
    throw std::invalid_argument("ScaleBilinear: image sizes must be at least 1x1");
  }
  const auto bytes = [](int width, int height) {
    return 4 * static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  };
  if (src.size() != bytes(src_width, src_height) || dst.size() != bytes(dst_width, dst_height)) {
    throw std::invalid_argument("ScaleBilinear: a pixel buffer's length does not match its size");
  }
  const std::vector<Tap> columns = Taps(src_width, dst_width);
  const std::vector<Tap> rows = Taps(src_height, dst_height);
  const bool doubles_x = Doubles(columns);
  const bool doubles_y = doubles_x && Doubles(rows);
  const std::uint32_t shift = doubles_x ? 2 : 8;  // Of ScaleRow's values.
  const std::size_t row_values = 4 * static_cast<std::size_t>(dst_width);
  const std::size_t src_row_bytes = 4 * static_cast<std::size_t>(src_width);
  // The two source rows the current destination row blends, filtered along x; each is filtered once, as consecutive
  // destination rows share them.
  std::array<std::vector<std::uint16_t>, 2> filtered{std::vector<std::uint16_t>(row_values),
                                                     std::vector<std::uint16_t>(row_values)};
  std::array<int, 2> filtered_row{-1, -1};
  const auto filtered_source_row = [&](int r) -> const std::uint16_t* {
    for (std::size_t k = 0; k < 2; ++k)
      if (filtered_row[k] == r) return filtered[k].data();
    // Replace the row further up: rows are visited top to bottom, and the other one may be this row's partner.
    const std::size_t k = filtered_row[0] < filtered_row[1] ? 0 : 1;
    ScaleRow(src.data() + src_row_bytes * static_cast<std::size_t>(r), columns, doubles_x, filtered[k].data());
    filtered_row[k] = r;
    return filtered[k].data();
  };
  for (int y = 0; y < dst_height; ++y) {
    const Tap& tap = rows[static_cast<std::size_t>(y)];
    const std::uint16_t* upper = filtered_source_row(tap.first);
    const std::uint16_t* lower = filtered_source_row(tap.second);
    std::uint8_t* out = dst.data() + row_values * static_cast<std::size_t>(y);
    if (doubles_y) {
      // Weights 3/4 and 1/4 (or 1 and 0 at the edges) on values in quarters: sixteenths fit 16 bits.
      const std::uint16_t w1 = static_cast<std::uint16_t>(tap.weight / 64), w0 = static_cast<std::uint16_t>(4 - w1);
      for (std::size_t k = 0; k < row_values; ++k) {
        out[k] = static_cast<std::uint8_t>(static_cast<std::uint16_t>(upper[k] * w0 + lower[k] * w1 + 8) >> 4);
      }
    } else {
      const std::uint32_t w1 = tap.weight, w0 = 256 - tap.weight;
      const std::uint32_t total_shift = shift + 8, half = 1u << (total_shift - 1);
      for (std::size_t k = 0; k < row_values; ++k) {
        out[k] = static_cast<std::uint8_t>((upper[k] * w0 + lower[k] * w1 + half) >> total_shift);
      }
    }
  }
}

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
