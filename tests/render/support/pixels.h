// The render tests' offscreen renderer and the reading of their pictures.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <memory>

#include "ductile/render/image.h"
#include "ductile/render/renderer.h"

namespace ductile::render {

/// One pixel's R, G, B, A bytes.
using Pixel = std::array<int, 4>;

/// The pixel at column `x`, row `y` (from the top) of `image`.
inline Pixel At(const Image& image, int x, int y) {
  const std::size_t i = 4 * (static_cast<std::size_t>(y) * image.width + static_cast<std::size_t>(x));
  return {image.rgba[i], image.rgba[i + 1], image.rgba[i + 2], image.rgba[i + 3]};
}

/// A fixture with an OffscreenRenderer of `kWidth` x `kHeight` pixels (4 samples); its tests are skipped where there
/// is no Vulkan device.
template <int kWidth, int kHeight>
class RendererFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      renderer_ = OffscreenRenderer::Create(kWidth, kHeight);
    } catch (const NoVulkanDeviceError& error) {
      GTEST_SKIP() << "no Vulkan device to render with: " << error.what();
    }
  }
  std::unique_ptr<OffscreenRenderer> renderer_;
};

}  // namespace ductile::render
