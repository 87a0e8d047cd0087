// WritePng: a round trip through libpng's reader, and the error for a path that cannot be written.
#include "ductile/render/image.h"

#include <gtest/gtest.h>
#include <png.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

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

}  // namespace
}  // namespace ductile::render
