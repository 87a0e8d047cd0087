// WritePng: a round trip through libpng's reader, and the error for a path that cannot be written. ScaleBilinear
// against a direct evaluation of the bilinear filter in double precision.
#include "ductile/render/image.h"

#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace ductile::render {
namespace {

Image ReadPng(const std::filesystem::path& path) {
  png_image png;
  std::memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&png, path.c_str()) == 0) {
    throw std::runtime_error("cannot read " + path.string() + ": " + png.message);
  }
  png.format = PNG_FORMAT_RGBA;
  Image image;
  image.width = static_cast<int>(png.width);
  image.height = static_cast<int>(png.height);
  image.rgba.resize(PNG_IMAGE_SIZE(png));
  if (png_image_finish_read(&png, nullptr, image.rgba.data(), 0, nullptr) == 0) {
    throw std::runtime_error("cannot decode " + path.string() + ": " + png.message);
  }
  return image;
}

TEST(WritePng, RoundTripKeepsEveryByte) {
  Image image;
  image.width = 7;
  image.height = 5;
  image.rgba.resize(4 * 7 * 5);
  for (std::size_t i = 0; i < image.rgba.size(); ++i) image.rgba[i] = static_cast<std::uint8_t>((i * 37 + 11) % 256);
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "ductile_write_png_round_trip.png";
  WritePng(path, image);
  const Image read = ReadPng(path);
  EXPECT_EQ(read.width, image.width);
  EXPECT_EQ(read.height, image.height);
  EXPECT_EQ(read.rgba, image.rgba);
  // Nothing but the file itself is left in the folder's namespace for it (the temporary file was renamed).
  for (const auto& entry : std::filesystem::directory_iterator(path.parent_path())) {
    EXPECT_EQ(entry.path().string().find(path.filename().string() + ".tmp"), std::string::npos) << entry.path();
  }
  std::filesystem::remove(path);
}

TEST(WritePng, UnwritablePathThrowsNamingThePath) {
  Image image{1, 1, {0, 0, 0, 255}};
  const std::filesystem::path path = "/nonexistent/dir/x.png";
  try {
    WritePng(path, image);
    FAIL() << "WritePng to " << path << " did not throw";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(WritePng, RejectsPixelBufferOfTheWrongSize) {
  Image image{2, 2, {0, 0, 0, 255}};
  EXPECT_THROW(WritePng(std::filesystem::temp_directory_path() / "ductile_bad.png", image), std::invalid_argument);
}

// The filter as a GPU samples with clamp-to-edge: destination pixel (x, y) reads the source at ((x + ½)·sw/dw − ½,
// (y + ½)·sh/dh − ½), blending the four texels around it with exact weights.
double ExactBilinear(const std::vector<std::uint8_t>& src, int sw, int sh, int dw, int dh, int x, int y, int c) {
  const auto place = [](int d, int from, int to, int& i0, int& i1, double& f) {
    const double s = (d + 0.5) * from / to - 0.5;
    const double lower = std::floor(s);
    f = s - lower;
    i0 = std::clamp(static_cast<int>(lower), 0, from - 1);
    i1 = std::clamp(static_cast<int>(lower) + 1, 0, from - 1);
  };
  int x0, x1, y0, y1;
  double fx, fy;
  place(x, sw, dw, x0, x1, fx);
  place(y, sh, dh, y0, y1, fy);
  const auto at = [&](int i, int j) {
    return static_cast<double>(src[4 * (static_cast<std::size_t>(j) * sw + i) + c]);
  };
  return (1 - fy) * ((1 - fx) * at(x0, y0) + fx * at(x1, y0)) + fy * ((1 - fx) * at(x0, y1) + fx * at(x1, y1));
}

std::vector<std::uint8_t> PseudoRandomPixels(int width, int height) {
  std::vector<std::uint8_t> pixels(4 * static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
  std::uint32_t state = 12345;
  for (std::uint8_t& p : pixels) {
    state = state * 1664525u + 1013904223u;
    p = static_cast<std::uint8_t>(state >> 24);
  }
  return pixels;
}

// Within 1.5 units of the exact filter at every pixel and channel: each weight is rounded to 1/256, at most 1/512
// off, which moves a blend of two values at most 255/512 ≈ 0.5 along x and as much along y (the y blend of two
// x blends keeps their error and adds its own); the result is rounded to the nearest unit (0.5 more). Doubling
// (the studio's half-size scene) has exact weights 1/4 and 3/4, so only the rounding: within 0.5. Covers doubling,
// odd sizes near it, other up- and down-scales and a single column.
TEST(ScaleBilinear, MatchesTheExactFilter) {
  const std::vector<std::array<int, 4>> cases{{64, 36, 128, 72}, {65, 37, 130, 74}, {64, 37, 128, 73},
                                              {30, 20, 97, 41},  {97, 41, 30, 20},  {1, 9, 5, 18}};
  for (const auto& [sw, sh, dw, dh] : cases) {
    const std::vector<std::uint8_t> src = PseudoRandomPixels(sw, sh);
    std::vector<std::uint8_t> dst(4 * static_cast<std::size_t>(dw) * static_cast<std::size_t>(dh));
    ScaleBilinear(src, sw, sh, dst, dw, dh);
    const bool doubling = dw == 2 * sw && dh == 2 * sh;
    double worst = 0;
    for (int y = 0; y < dh; ++y)
      for (int x = 0; x < dw; ++x)
        for (int c = 0; c < 4; ++c) {
          const double exact = ExactBilinear(src, sw, sh, dw, dh, x, y, c);
          const double got = dst[4 * (static_cast<std::size_t>(y) * dw + x) + c];
          worst = std::max(worst, std::abs(got - exact));
        }
    EXPECT_LE(worst, doubling ? 0.5 : 1.5) << sw << "x" << sh << " to " << dw << "x" << dh;
  }
}

// A constant image stays constant at any scale (the weights of each blend sum to exactly 1).
TEST(ScaleBilinear, KeepsAConstantImage) {
  const std::vector<std::uint8_t> src(4 * 13 * 7, 200);
  std::vector<std::uint8_t> dst(4 * 26 * 14);
  ScaleBilinear(src, 13, 7, dst, 26, 14);
  EXPECT_TRUE(std::all_of(dst.begin(), dst.end(), [](std::uint8_t v) { return v == 200; }));
}

TEST(ScaleBilinear, RejectsBadSizes) {
  std::vector<std::uint8_t> src(4 * 4 * 4), dst(4 * 8 * 8);
  EXPECT_THROW(ScaleBilinear(src, 4, 4, dst, 0, 8), std::invalid_argument);
  EXPECT_THROW(ScaleBilinear(src, 4, 3, dst, 8, 8), std::invalid_argument);
  EXPECT_THROW(ScaleBilinear(src, 4, 4, dst, 8, 7), std::invalid_argument);
}

}  // namespace
}  // namespace ductile::render
