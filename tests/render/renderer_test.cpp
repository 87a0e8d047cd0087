// OffscreenRenderer: small scenes rendered on whatever Vulkan device exists (lavapipe on machines without a GPU),
// checked pixel by pixel, and the savings for CPU devices (ground cache, hidden particles) checked against the
// pictures without them. Each test writes its frame to DUCTILE_RENDER_TEST_OUTPUT_DIR for a person to look at.
#include "ductile/render/renderer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ductile/render/image.h"
#include "ductile/render/snapshot_scene.h"
#include "ductile/render/vulkan_util.h"
#include "ductile/snapshot.h"
#include "support/pixels.h"

namespace ductile::render {
namespace {

constexpr int kWidth = 160;
constexpr int kHeight = 120;

// The 8-bit sRGB encoding of linear `c`, as the renderer's sRGB target stores it.
int SrgbByte(float c) {
  const float encoded = c <= 0.0031308f ? 12.92f * c : 1.055f * std::pow(c, 1.0f / 2.4f) - 0.055f;
  return static_cast<int>(std::lround(255.0f * encoded));
}

float Luminance(const Pixel& p) {
  return 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
}
bool Reddish(const Pixel& p) {
  return p[0] > 90 && p[0] > 2 * p[1] && p[0] > 2 * p[2];
}
bool Greenish(const Pixel& p) {
  return p[1] > 90 && p[1] > 2 * p[0] && p[1] > 2 * p[2];
}
bool Bluish(const Pixel& p) {
  return p[2] > 90 && p[2] > 2 * p[0] && p[2] > p[1] + 30;
}

void Save(const Image& image, const std::string& name) {
  const std::filesystem::path folder = DUCTILE_RENDER_TEST_OUTPUT_DIR;
  std::filesystem::create_directories(folder);
  WritePng(folder / (name + ".png"), image);
}

std::string TestName() {
  return ::testing::UnitTest::GetInstance()->current_test_info()->name();
}

// A cube of half side 1 centred at the origin: 24 vertices with face normals, counter-clockwise from outside.
MeshData Box() {
  MeshData mesh;
  const std::array<Vec3, 6> normals{{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}};
  for (const Vec3& n : normals) {
    // Two axes spanning the face, with u x v = n.
    const Vec3 u = n[0] != 0 ? Vec3{0, n[0], 0} : (n[1] != 0 ? Vec3{0, 0, n[1]} : Vec3{n[2], 0, 0});
    const Vec3 v{n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2], n[0] * u[1] - n[1] * u[0]};
    const auto base = static_cast<std::uint32_t>(mesh.positions.size());
    for (const auto& [a, b] : std::array<std::pair<float, float>, 4>{{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}}) {
      mesh.positions.push_back({n[0] + a * u[0] + b * v[0], n[1] + a * u[1] + b * v[1], n[2] + a * u[2] + b * v[2]});
      mesh.normals.push_back(n);
    }
    mesh.indices.insert(mesh.indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
  }
  return mesh;
}

// world_from_mesh for the unit-half-side box scaled to half side `half` at `center`.
Mat4 Place(const Vec3& center, float half) {
  return {half, 0, 0, 0, 0, half, 0, 0, 0, 0, half, 0, center[0], center[1], center[2], 1};
}

// A camera 1 m in front of the origin (on -y) looking along +y; image x is world x, image up is world z.
RenderScene FrontViewScene() {
  RenderScene scene;
  scene.camera.eye = {0, -1, 0};
  scene.camera.target = {0, 0, 0};
  scene.grid.visible = false;
  return scene;
}

ParticleSet OneParticle(const Vec3& center, float radius, const Rgba& color) {
  ParticleSet set;
  set.positions = {center};
  set.colors = {color};
  set.radius = radius;
  return set;
}

class OffscreenRendererTest : public RendererFixture<kWidth, kHeight> {
 protected:
  Image RenderAndSave(const RenderScene& scene, const std::string& suffix = "") {
    Image image = renderer_->Render(scene);
    Save(image, TestName() + suffix);
    return image;
  }
};

TEST_F(OffscreenRendererTest, ReportsDeviceAndSize) {
  EXPECT_FALSE(renderer_->DeviceName().empty());
  EXPECT_EQ(renderer_->width(), kWidth);
  EXPECT_EQ(renderer_->height(), kHeight);
  EXPECT_GE(renderer_->samples(), 1);
  const Image image = renderer_->Render(FrontViewScene());
  EXPECT_EQ(image.width, kWidth);
  EXPECT_EQ(image.height, kHeight);
  EXPECT_EQ(image.rgba.size(), 4u * kWidth * kHeight);
}

TEST_F(OffscreenRendererTest, RedParticleFillsTheCentreAndCornersShowTheBackground) {
  RenderScene scene = FrontViewScene();
  scene.particles.push_back(OneParticle({0, 0, 0}, 0.1f, {1, 0, 0, 1}));
  const Image image = RenderAndSave(scene);
  EXPECT_TRUE(Reddish(At(image, kWidth / 2, kHeight / 2))) << At(image, kWidth / 2, kHeight / 2)[0];
  // The top row is the gradient's top: the clear colour.
  const Pixel corner = At(image, 0, 0);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(corner[k], SrgbByte(scene.background[k]), 3) << "channel " << k;
  EXPECT_EQ(corner[3], 255);
  // The sphere is round: 0.1 m at 1 m with a 40 degree field of view is about 0.1 / tan(20 deg) * 60 = 16 pixels
  // in radius; 12 pixels out it is red, 22 pixels out it is not.
  EXPECT_TRUE(Reddish(At(image, kWidth / 2 + 12, kHeight / 2)));
  EXPECT_TRUE(Reddish(At(image, kWidth / 2, kHeight / 2 - 12)));
  EXPECT_FALSE(Reddish(At(image, kWidth / 2 + 22, kHeight / 2)));
  EXPECT_FALSE(Reddish(At(image, kWidth / 2 + 12, kHeight / 2 + 12)));
}

TEST_F(OffscreenRendererTest, BoxLeftOfCentreAppearsOnlyInTheLeftHalf) {
  RenderScene scene = FrontViewScene();
  scene.meshes.push_back(Box());
  scene.instances.push_back({0, Place({-0.2f, 0, 0}, 0.08f), {0.1f, 0.8f, 0.1f, 1}, false});
  const Image image = RenderAndSave(scene);
  int left = 0, right = 0;
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      if (!Greenish(At(image, x, y))) continue;
      if (x < kWidth / 2) {
        ++left;
      } else {
        ++right;
      }
    }
  }
  EXPECT_GT(left, 200);
  EXPECT_EQ(right, 0);
}

// The renderer keeps the meshes it uploaded and reuses them while a scene's meshes stay the same (compared by
// content): a mesh whose vertices change must be drawn with the new ones.
TEST_F(OffscreenRendererTest, MeshIsReusedUntilItChanges) {
  RenderScene scene = FrontViewScene();
  scene.meshes.push_back(Box());
  scene.instances.push_back({0, Place({0, 0, 0}, 0.08f), {0.1f, 0.8f, 0.1f, 1}, false});
  const Image first = RenderAndSave(scene, "_first");
  EXPECT_TRUE(Greenish(At(first, kWidth / 2, kHeight / 2)));
  EXPECT_EQ(renderer_->Render(scene).rgba, first.rgba);

  // Three half sides to the left in the mesh's frame: 0.24 m in the world, about 0.24 / tan(20 deg) * 60 = 40
  // pixels left of the centre.
  for (Vec3& p : scene.meshes[0].positions) p[0] -= 3.0f;
  const Image moved = RenderAndSave(scene, "_moved");
  EXPECT_FALSE(Greenish(At(moved, kWidth / 2, kHeight / 2)));
  EXPECT_TRUE(Greenish(At(moved, kWidth / 2 - 40, kHeight / 2)));
}

TEST_F(OffscreenRendererTest, ParticleBehindBoxIsHiddenAndInFrontIsVisible) {
  RenderScene scene = FrontViewScene();
  scene.meshes.push_back(Box());
  scene.instances.push_back({0, Place({0, 0, 0}, 0.1f), {0.1f, 0.2f, 0.9f, 1}, false});
  scene.particles.push_back(OneParticle({0, 0.3f, 0}, 0.05f, {1, 0, 0, 1}));
  const Image behind = RenderAndSave(scene, "_behind");
  EXPECT_TRUE(Bluish(At(behind, kWidth / 2, kHeight / 2)));

  // The same particle in front of the box covers it; so its depth test can fail either way.
  scene.particles[0].positions[0] = {0, -0.3f, 0};
  const Image in_front = RenderAndSave(scene, "_in_front");
  EXPECT_TRUE(Reddish(At(in_front, kWidth / 2, kHeight / 2)));

  // A particle whose centre lies inside the box's front face shows the part that sticks out; the fragment depth is
  // the sphere's surface, not the centre plane (which coincides with the face and would fight it).
  scene.particles[0].positions[0] = {0, -0.1f, 0};
  const Image half_out = RenderAndSave(scene, "_half_out");
  EXPECT_TRUE(Reddish(At(half_out, kWidth / 2, kHeight / 2)));
}

TEST_F(OffscreenRendererTest, BoxShadowDarkensTheGroundBelowIt) {
  RenderScene scene;
  scene.camera.eye = {0.05f, -1.2f, 1.2f};
  scene.camera.target = {0.05f, 0.05f, 0};
  scene.lighting.key_direction = {0, 0, -1};
  scene.grid.visible = true;
  scene.grid.spacing = 0.1f;
  scene.meshes.push_back(Box());
  const MeshInstance box{0, Place({0.05f, 0.05f, 0.3f}, 0.1f), {0.8f, 0.8f, 0.8f, 1}, false};
  const Image without_box = RenderAndSave(scene, "_without_box");
  scene.instances.push_back(box);
  const Image with_box = RenderAndSave(scene, "_with_box");

  // The image centre is the ground right below the box (the box is drawn higher up in the image).
  const Pixel below = At(with_box, kWidth / 2, kHeight / 2);
  const Pixel lit = At(without_box, kWidth / 2, kHeight / 2);
  EXPECT_LT(Luminance(below), 0.7f * Luminance(lit)) << Luminance(below) << " vs " << Luminance(lit);
  // Ground far from the box is as bright with the box as without.
  const Pixel far_with = At(with_box, kWidth / 2, kHeight - 8);
  const Pixel far_without = At(without_box, kWidth / 2, kHeight - 8);
  EXPECT_NEAR(Luminance(far_with), Luminance(far_without), 2.0f);
  // The ground is drawn: without the grid the same pixel is the background.
  scene.grid.visible = false;
  const Image no_grid = RenderAndSave(scene, "_no_grid");
  EXPECT_GT(std::abs(Luminance(far_without) - Luminance(At(no_grid, kWidth / 2, kHeight - 8))), 10.0f);
}

TEST_F(OffscreenRendererTest, SelectedInstanceIsHighlighted) {
  RenderScene scene = FrontViewScene();
  scene.meshes.push_back(Box());
  scene.instances.push_back({0, Place({0, 0, 0}, 0.1f), {0.5f, 0.5f, 0.5f, 1}, false});
  const Image plain = RenderAndSave(scene, "_plain");
  scene.instances[0].selected = true;
  const Image selected = RenderAndSave(scene, "_selected");
  const Pixel a = At(plain, kWidth / 2, kHeight / 2);
  const Pixel b = At(selected, kWidth / 2, kHeight / 2);
  // The highlight is orange: more red than before, and redder than blue.
  EXPECT_GT(b[0], a[0] + 10);
  EXPECT_GT(b[0], b[2] + 30);
}

TEST_F(OffscreenRendererTest, ArrowsAndLinesAreDrawn) {
  RenderScene scene = FrontViewScene();
  Arrow arrow;
  arrow.origin = {-0.2f, 0, -0.15f};
  arrow.vector = {0, 0, 0.3f};
  arrow.shaft_radius = 0.012f;
  arrow.color = {1.0f, 0.8f, 0.1f, 1};
  scene.arrows.push_back(arrow);
  scene.lines.push_back({{0.1f, 0, -0.2f}, {0.1f, 0, 0.2f}, {0, 1, 0, 1}});
  const Image image = RenderAndSave(scene);
  // The arrow's shaft at x = -0.2 m: image column 80 - 0.2 / tan(20 deg) * 60, about 47.
  int yellow = 0;
  for (int x = 40; x < 55; ++x) {
    const Pixel p = At(image, x, kHeight / 2);
    yellow += p[0] > 120 && p[1] > 90 && p[2] < 80 ? 1 : 0;
  }
  EXPECT_GE(yellow, 2);
  // The line at x = 0.1 m: about column 96.
  int green = 0;
  for (int x = 92; x < 101; ++x) green += Greenish(At(image, x, kHeight / 2)) ? 1 : 0;
  EXPECT_GE(green, 1);
}

// A frame without particles after the frame's buffer grew (the old one freed) must not leave the particle
// descriptor pointing at the freed buffer: lavapipe crashed binding such a set in about one run in six.
TEST_F(OffscreenRendererTest, FrameWithoutParticlesAfterTheBufferGrewRenders) {
  RenderScene with_particles = FrontViewScene();
  with_particles.particles.push_back(OneParticle({0, 0, 0}, 0.1f, {1, 0, 0, 1}));
  RenderScene big = FrontViewScene();
  big.meshes.push_back(Box());
  for (int i = 0; i < 1000; ++i) {  // enough instances to outgrow the first buffer (64 KiB)
    big.instances.push_back({0, Place({0.001f * static_cast<float>(i % 50) - 0.025f, 0, 0}, 0.01f), {0, 0, 1, 1}});
  }
  for (int round = 0; round < 2; ++round) {
    renderer_->Render(with_particles);
    const Image image = renderer_->Render(big);
    EXPECT_TRUE(Bluish(At(image, kWidth / 2, kHeight / 2)));
  }
}

TEST_F(OffscreenRendererTest, InconsistentSceneThrows) {
  RenderScene scene = FrontViewScene();
  scene.instances.push_back({});  // Names mesh 0, which does not exist.
  EXPECT_THROW(renderer_->Render(scene), std::invalid_argument);
  scene.instances.clear();
  scene.particles.push_back(OneParticle({0, 0, 0}, 0.1f, {1, 0, 0, 1}));
  scene.particles[0].colors.clear();
  EXPECT_THROW(renderer_->Render(scene), std::invalid_argument);
  // The renderer still works afterwards.
  scene.particles[0].colors = {{1, 0, 0, 1}};
  EXPECT_TRUE(Reddish(At(renderer_->Render(scene), kWidth / 2, kHeight / 2)));
}

// A block of `count` particles in a cube, coloured by height, on a grid, lit and shadowed: the frame the studio
// draws. Reports the time per frame (not a limit: timings belong to benchmarks) and checks the particles are there.
double MillisecondsPerFrame(OffscreenRenderer& renderer, const RenderScene& scene, int frames, Image& last) {
  last = renderer.Render(scene);  // Warm-up: first-use costs of the buffers.
  const auto start = std::chrono::steady_clock::now();
  for (int f = 0; f < frames; ++f) last = renderer.Render(scene);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  return std::chrono::duration<double, std::milli>(elapsed).count() / frames;
}

RenderScene ParticleBlockScene(int per_side) {
  RenderScene scene;
  scene.camera.eye = {0.5f, -0.7f, 0.45f};
  scene.camera.target = {0, 0, 0.08f};
  ParticleSet set;
  set.radius = 0.004f;
  const float spacing = 0.16f / static_cast<float>(per_side);
  for (int i = 0; i < per_side; ++i) {
    for (int j = 0; j < per_side; ++j) {
      for (int k = 0; k < per_side; ++k) {
        set.positions.push_back(
            {(i - 0.5f * per_side) * spacing, (j - 0.5f * per_side) * spacing, 0.05f + k * spacing});
        const float t = static_cast<float>(k) / static_cast<float>(per_side);
        set.colors.push_back({0.9f * (1 - t) + 0.1f * t, 0.3f + 0.4f * t, 0.1f + 0.8f * t, 1});
      }
    }
  }
  scene.particles.push_back(std::move(set));
  scene.meshes.push_back(Box());
  scene.instances.push_back({0, Place({0.2f, 0.1f, 0.05f}, 0.05f), {0.6f, 0.6f, 0.65f, 1}, true});
  return scene;
}

// One preference for every device choice (the offscreen renderer, the studio's window, and whether the studio
// composes frames on the host): a discrete GPU, then an integrated one, a virtual one, the CPU implementation, the
// rest. The studio once took the first device for its window and the best-ranked one for the renderer, which differ
// where the loader lists lavapipe before a GPU.
TEST(DevicePreference, GpusComeBeforeTheCpuImplementation) {
  const std::array<VkPhysicalDeviceType, 5> order{
      VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU, VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU,
      VK_PHYSICAL_DEVICE_TYPE_CPU, VK_PHYSICAL_DEVICE_TYPE_OTHER};
  for (std::size_t i = 1; i < order.size(); ++i) EXPECT_LT(DeviceTypeRank(order[i - 1]), DeviceTypeRank(order[i]));
}

// The HUD at the size of a studio viewport: a dark translucent panel with bright text in the top-left corner, and
// nothing else in the frame changed; hiding it again gives back the plain frame. HudOn.png is the one to look at.
TEST(OffscreenRendererHud, DrawsTextOnADarkPanelInTheTopLeftCornerOnly) {
  constexpr int kHudWidth = 1280, kHudHeight = 720;
  std::unique_ptr<OffscreenRenderer> renderer;
  try {
    renderer = OffscreenRenderer::Create(kHudWidth, kHudHeight, 1);
  } catch (const NoVulkanDeviceError& error) {
    GTEST_SKIP() << "no Vulkan device to render with: " << error.what();
  }
  RenderScene scene = FrontViewScene();
  scene.particles.push_back(OneParticle({0.1f, 0, 0}, 0.08f, {0.8f, 0.1f, 0.1f, 1}));
  const Image plain = renderer->Render(scene);
  scene.hud.visible = true;
  scene.hud.lines = {"sim time 1.234 s",     "real-time factor 1.00 requested, 0.48 measured",
                     "3.2 ms per step",      "particles 5832   contacts 12",
                     "solver iterations 20", "Ctrl+drag: pull, click: select"};
  const Image with_hud = renderer->Render(scene);
  scene.hud.visible = false;
  const Image hidden_again = renderer->Render(scene);
  Save(plain, "HudOff");
  Save(with_hud, "HudOn");

  // The panel lies in the top-left quarter, kept off the corner by a margin of a few pixels.
  const int panel_width = kHudWidth / 2, panel_height = kHudHeight / 2;
  int darker = 0, brighter = 0, changed_outside = 0, changed_by_hiding = 0;
  for (int y = 0; y < kHudHeight; ++y) {
    for (int x = 0; x < kHudWidth; ++x) {
      const Pixel before = At(plain, x, y), after = At(with_hud, x, y), again = At(hidden_again, x, y);
      bool changed = false, changed_again = false;
      for (int c = 0; c < 3; ++c) {
        changed = changed || std::abs(after[c] - before[c]) > 2;
        changed_again = changed_again || std::abs(again[c] - before[c]) > 2;
      }
      changed_by_hiding += changed_again ? 1 : 0;
      if (x >= panel_width || y >= panel_height) {
        changed_outside += changed ? 1 : 0;
        continue;
      }
      darker += Luminance(after) < Luminance(before) - 6 ? 1 : 0;
      brighter += Luminance(after) > Luminance(before) + 100 ? 1 : 0;
    }
  }
  EXPECT_EQ(changed_outside, 0);
  EXPECT_EQ(changed_by_hiding, 0);
  // Six lines of 16-pixel text on a panel of about 410 x 130 pixels: most of it darkened, and text strokes bright.
  EXPECT_GT(darker, 20000);
  EXPECT_GT(brighter, 1500);
  EXPECT_EQ(At(with_hud, 2, 2), At(plain, 2, 2));
  EXPECT_LT(Luminance(At(with_hud, 12, 12)), Luminance(At(plain, 12, 12)) - 6);
}

TEST(OffscreenRendererTiming, SixThousandParticlesAt160x120And1280x720) {
  const RenderScene scene = ParticleBlockScene(18);  // 5832 particles.
  for (const auto& [width, height] : std::array<std::pair<int, int>, 2>{{{160, 120}, {1280, 720}}}) {
    std::unique_ptr<OffscreenRenderer> renderer;
    try {
      renderer = OffscreenRenderer::Create(width, height);
    } catch (const NoVulkanDeviceError& error) {
      GTEST_SKIP() << "no Vulkan device to render with: " << error.what();
    }
    Image image;
    const double ms = MillisecondsPerFrame(*renderer, scene, width > 200 ? 5 : 20, image);
    std::printf("render %dx%d, %zu particles, %d samples on %s: %.1f ms per frame\n", width, height,
                scene.particles[0].positions.size(), renderer->samples(), renderer->DeviceName().c_str(), ms);
    ::testing::Test::RecordProperty("ms_per_frame_" + std::to_string(width) + "x" + std::to_string(height),
                                    std::to_string(ms));
    Save(image, "ParticleBlock_" + std::to_string(width) + "x" + std::to_string(height));
    // The block's upper particles are the only blue things in the frame (the box is warm, the ground grey).
    int particle_pixels = 0;
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        const Pixel p = At(image, x, y);
        particle_pixels += p[2] > p[0] + 50 ? 1 : 0;
      }
    }
    EXPECT_GT(particle_pixels, width * height / 200);
  }
}

// The renderer's two savings for CPU devices must not change the picture: the ground cache (SceneRendererTarget::
// ground_cache), checked against a renderer that draws the ground every frame, and the culling of hidden particles
// (ViewOptions::cull_hidden_particles), checked by count and against the picture with every particle drawn.
constexpr int kCostWidth = 200;
constexpr int kCostHeight = 150;

// The largest difference of any channel of any pixel, and how many pixels differ by more than `threshold` in some
// channel.
struct Difference {
  int largest = 0;
  int pixels_over = 0;
};
Difference Compare(const Image& a, const Image& b, int threshold) {
  Difference d;
  for (std::size_t p = 0; p + 3 < a.rgba.size(); p += 4) {
    int pixel = 0;
    for (int c = 0; c < 3; ++c) pixel = std::max(pixel, std::abs(int{a.rgba[p + c]} - int{b.rgba[p + c]}));
    d.largest = std::max(d.largest, pixel);
    if (pixel > threshold) ++d.pixels_over;
  }
  return d;
}

// A box floating over the ground grid, casting a shadow on it, with a few particles beside it.
RenderScene GroundScene(const Vec3& eye, const Vec3& box_center) {
  RenderScene scene;
  scene.camera.eye = eye;
  scene.camera.target = {0, 0, 0};
  scene.grid.visible = true;
  scene.grid.spacing = 0.1f;
  scene.grid.extent = 2;
  scene.meshes.push_back(Box());
  scene.instances.push_back({0, Place(box_center, 0.1f), {0.8f, 0.5f, 0.3f, 1}, false});
  ParticleSet set;
  for (int i = 0; i < 5; ++i) {
    set.positions.push_back({-0.3f + 0.05f * static_cast<float>(i), 0.2f, 0.05f});
    set.colors.push_back({0.2f, 0.5f, 0.9f, 1});
  }
  set.radius = 0.02f;
  scene.particles.push_back(set);
  return scene;
}

std::unique_ptr<OffscreenRenderer> MakeRenderer(bool ground_cache) {
  return OffscreenRenderer::Create(kCostWidth, kCostHeight, 1, ground_cache);
}

class FrameCostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      cached_ = MakeRenderer(true);
      uncached_ = MakeRenderer(false);
    } catch (const NoVulkanDeviceError& error) {
      GTEST_SKIP() << "no Vulkan device to render with: " << error.what();
    }
  }
  std::unique_ptr<OffscreenRenderer> cached_, uncached_;
};

// The cache is kept while nothing it depends on changes and drawn again when the camera moves; shadows on the
// cached ground follow a moving caster. Tolerance: the cache stores colours as 8-bit sRGB, which round-trips an
// 8-bit sRGB colour exactly, but the shadowed ground is computed from the cached colour (linear arithmetic on a
// value rounded to 8 bits), so it may differ from the directly drawn ground by a rounding step or two: at most 3
// levels, on no more than 2% of the pixels by more than 1 level (measured on lavapipe: 2 levels, 27 to 85 pixels).
TEST_F(FrameCostTest, GroundCacheGivesThePictureOfTheGroundDrawnEveryFrame) {
  const Vec3 eye_a{0.8f, -1.2f, 0.9f}, eye_b{-1.0f, -0.8f, 0.6f};
  const Vec3 box_a{0.1f, 0, 0.3f}, box_b{-0.15f, 0.1f, 0.25f};
  const std::array<std::pair<Vec3, Vec3>, 4> frames{{{eye_a, box_a}, {eye_b, box_a}, {eye_b, box_b}, {eye_a, box_a}}};
  std::array<Image, 4> cached;
  for (std::size_t f = 0; f < frames.size(); ++f) {
    const RenderScene scene = GroundScene(frames[f].first, frames[f].second);
    // The first frame of a new view (frames 0, 1 and 3: the camera moved) draws the ground directly; the second, the
    // view holding still, draws the cache and copies it.
    const Image changing = cached_->Render(scene);
    cached[f] = cached_->Render(scene);
    const Image direct = uncached_->Render(scene);
    Save(cached[f], "GroundCache_frame" + std::to_string(f) + "_cached");
    Save(direct, "GroundCache_frame" + std::to_string(f) + "_direct");
    const Difference d = Compare(cached[f], direct, 1);
    EXPECT_LE(d.largest, 3) << "frame " << f;
    EXPECT_LE(d.pixels_over, kCostWidth * kCostHeight / 50) << "frame " << f;
    if (f == 0 || frames[f].first != frames[f - 1].first) {
      EXPECT_EQ(Compare(changing, direct, 0).largest, 0) << "frame " << f << ": a new view draws the ground directly";
    }
  }
  // Each change shows: the camera (0 to 1), the caster and its shadow (1 to 2); the first view comes back exactly.
  EXPECT_GT(Compare(cached[0], cached[1], 10).pixels_over, kCostWidth * kCostHeight / 4);
  EXPECT_GT(Compare(cached[1], cached[2], 10).pixels_over, 100);
  EXPECT_EQ(Compare(cached[0], cached[3], 0).largest, 0);
}

// A slab of nx x ny x nz particles 1 cm apart on the ground.
Snapshot Slab(int nx, int ny, int nz) {
  constexpr float kSpacing = 0.01f;
  Snapshot snapshot;
  snapshot.material_names = {"dough"};
  snapshot.material_rgba = {{0.93f, 0.80f, 0.55f, 1.0f}};
  snapshot.object_names = {"slab"};
  SnapshotParticles& p = snapshot.particles;
  p.radius = 0.5f * kSpacing;
  for (int i = 0; i < nx; ++i) {
    for (int j = 0; j < ny; ++j) {
      for (int k = 0; k < nz; ++k) {
        p.position.push_back({(static_cast<float>(i) - 0.5f * static_cast<float>(nx - 1)) * kSpacing,
                              (static_cast<float>(j) - 0.5f * static_cast<float>(ny - 1)) * kSpacing,
                              (static_cast<float>(k) + 0.5f) * kSpacing});
      }
    }
  }
  const std::size_t n = p.position.size();
  p.speed.assign(n, 0.0f);
  p.plastic_strain.assign(n, 0.0f);
  p.material.assign(n, 0);
  p.object.assign(n, 0);
  snapshot.grid_spacing = 2 * kSpacing;
  return snapshot;
}

// The bead view (ViewOptions::particle_style), whose particles these tests count and draw.
ViewOptions Beads() {
  ViewOptions beads;
  beads.particle_style = ParticleStyle::kBeads;
  return beads;
}

std::size_t ParticleCount(const RenderScene& scene) {
  std::size_t n = 0;
  for (const ParticleSet& set : scene.particles) n += set.positions.size();
  return n;
}

TEST(HiddenParticles, OnlyParticlesSurroundedOnEverySideAreLeftOut) {
  const Snapshot slab = Slab(12, 10, 6);
  ViewOptions all = Beads();
  all.cull_hidden_particles = false;
  const Camera camera = FrameSnapshot(slab, 4.0f / 3.0f);
  EXPECT_EQ(ParticleCount(BuildRenderScene(slab, all, camera)), 12u * 10u * 6u);
  // The shell of the 12 x 10 x 6 block stays: all but the 10 x 8 x 4 inside it.
  const RenderScene culled = BuildRenderScene(slab, Beads(), camera);
  EXPECT_EQ(ParticleCount(culled), 12u * 10u * 6u - 10u * 8u * 4u);
  // Colours stay with their particles: the material colour for all.
  ASSERT_EQ(culled.particles[0].colors.size(), culled.particles[0].positions.size());
  for (const Rgba& c : culled.particles[0].colors) EXPECT_EQ(c, slab.material_rgba[0]);

  // Particles with gaps between them (twice the spacing apart) hide nothing.
  Snapshot sparse = slab;
  for (auto& p : sparse.particles.position) {
    for (float& x : p) x *= 2;
  }
  EXPECT_EQ(ParticleCount(BuildRenderScene(sparse, Beads(), camera)), 12u * 10u * 6u);
}

// A flat kClothSide x kClothSide-vertex sheet in the plane z = 0.5, drawn as a cloth (two triangles per square).
constexpr int kClothSide = 4;
Snapshot FlatClothSnapshot() {
  Snapshot snapshot = Slab(kClothSide, kClothSide, 1);
  for (auto& x : snapshot.particles.position) x[2] = 0.5f;
  SnapshotCloth cloth;
  cloth.num_vertices = kClothSide * kClothSide;
  for (std::uint32_t j = 0; j + 1 < kClothSide; ++j)
    for (std::uint32_t i = 0; i + 1 < kClothSide; ++i) {
      const std::uint32_t a = j * kClothSide + i;
      cloth.triangles.push_back({a, a + 1, a + kClothSide + 1});
      cloth.triangles.push_back({a, a + kClothSide + 1, a + kClothSide});
    }
  snapshot.cloths.push_back(cloth);
  return snapshot;
}

// A cloth is drawn as its mesh, two-sided: every triangle twice with opposite windings, the back copy's normals
// reversed; its vertex particles are left out unless cloth is shown as particles too.
TEST(ClothMesh, IsDrawnTwoSidedInsteadOfItsVertexParticles) {
  constexpr int kSide = kClothSide;
  Snapshot snapshot = FlatClothSnapshot();
  const SnapshotCloth& cloth = snapshot.cloths[0];
  const Camera camera = FrameSnapshot(snapshot, 4.0f / 3.0f);
  const RenderScene scene = BuildRenderScene(snapshot, ViewOptions{}, camera);
  EXPECT_EQ(ParticleCount(scene), 0u);
  ASSERT_EQ(scene.meshes.size(), 1u);
  const MeshData& mesh = scene.meshes[0];
  ASSERT_EQ(mesh.positions.size(), 2u * kSide * kSide);
  ASSERT_EQ(mesh.indices.size(), 2u * 3u * cloth.triangles.size());
  // A flat sheet: every normal is ±z, the back copy's the opposite of the front's.
  for (std::size_t v = 0; v < kSide * kSide; ++v) {
    EXPECT_NEAR(std::abs(mesh.normals[v][2]), 1.0f, 1e-6f) << v;
    EXPECT_EQ(mesh.normals[v + kSide * kSide][2], -mesh.normals[v][2]) << v;
    // Each copy a tenth of a cell (0.002 m) out along its own normal.
    EXPECT_NEAR(mesh.positions[v][2] - mesh.positions[v + kSide * kSide][2], 0.004f * mesh.normals[v][2], 1e-6f);
  }
  EXPECT_EQ(mesh.indices[3], mesh.indices[0] + kSide * kSide);  // the back copy of the first triangle, reversed
  EXPECT_EQ(mesh.indices[4], mesh.indices[2] + kSide * kSide);
  ASSERT_EQ(scene.instances.size(), 1u);
  EXPECT_EQ(scene.instances[0].color, snapshot.material_rgba[0]);
  ViewOptions beads;
  beads.cloth_as_particles = true;
  EXPECT_EQ(ParticleCount(BuildRenderScene(snapshot, beads, camera)), static_cast<std::size_t>(kSide * kSide));
}

// In a colour mode other than the material's, a cloth is coloured per vertex by its particles' values: a surface mesh
// (both sides, the same vertices as the two-sided mesh above) whose colours follow the speed, the slowest vertex
// coloured as zero and the fastest as the top of the map.
TEST(ClothMesh, SpeedColoursTheClothPerVertex) {
  constexpr int kSide = kClothSide;
  Snapshot snapshot = FlatClothSnapshot();
  const SnapshotCloth& cloth = snapshot.cloths[0];
  snapshot.particles.speed.assign(kSide * kSide, 0.0f);
  snapshot.particles.speed.back() = 2.0f;  // one fast corner
  ViewOptions speed;
  speed.color_mode = ColorMode::kSpeed;
  const RenderScene scene = BuildRenderScene(snapshot, speed, FrameSnapshot(snapshot, 4.0f / 3.0f));
  EXPECT_TRUE(scene.instances.empty());
  ASSERT_EQ(scene.surfaces.size(), 1u);
  const SurfaceMesh& surface = scene.surfaces[0];
  ASSERT_EQ(surface.positions.size(), 2u * kSide * kSide);
  ASSERT_EQ(surface.colors.size(), surface.positions.size());
  ASSERT_EQ(surface.indices.size(), 2u * 3u * cloth.triangles.size());
  const std::size_t fast = kSide * kSide - 1;
  EXPECT_NE(surface.colors[0], surface.colors[fast]);
  EXPECT_EQ(surface.colors[fast], surface.colors[fast + kSide * kSide]);  // both sides alike
  EXPECT_EQ(surface.colors[0], surface.colors[1]);                        // equal speeds, equal colours
  EXPECT_FALSE(surface.translucent);
  // The material colour mode keeps the mesh in the material's colour.
  EXPECT_TRUE(BuildRenderScene(snapshot, ViewOptions{}, FrameSnapshot(snapshot, 4.0f / 3.0f)).surfaces.empty());
}

// The culled particles are hidden: the picture changes only where the gaps between the outer spheres showed a
// sphere one layer down, which now show one further down or the ground, both in the block's shadow. Measured on
// lavapipe: 8 of the 30,000 pixels change by more than 24 levels (of 255); the bound is 0.5% of the pixels, 150.
TEST_F(FrameCostTest, CullingHiddenParticlesHardlyChangesThePicture) {
  const Snapshot slab = Slab(16, 12, 5);
  const Camera camera = FrameSnapshot(slab, static_cast<float>(kCostWidth) / static_cast<float>(kCostHeight));
  ViewOptions all = Beads();
  all.cull_hidden_particles = false;
  const Image every = cached_->Render(BuildRenderScene(slab, all, camera));
  const Image culled = cached_->Render(BuildRenderScene(slab, Beads(), camera));
  Save(every, "HiddenParticles_all");
  Save(culled, "HiddenParticles_culled");
  EXPECT_LT(Compare(every, culled, 24).pixels_over, kCostWidth * kCostHeight / 200);
}

// Render scale: the scene drawn at half the width and height into the renderer's own image and scaled up to the
// target (bilinear), the HUD at full size. Compared with the full-size frame, only edges differ much: an edge is
// blurred over about two pixels, so a pixel differs by more than 40 levels (of 255) only next to an edge. Measured on
// lavapipe at 200x150: 5.8% of the pixels with one sample, 5.7% with four; the bound is 15%. Everything else (the
// box, the particles, the ground and its shadow) stays where it was: the centroid of the box's colour moved by 0.4
// pixel at most (bound: 1 pixel) and its pixel count by 4% (bound: 20%). Going back to scale 1 gives the first frame
// exactly, so nothing of the half-size frame (its image, the smaller shadow map of a CPU device) is left behind.
Vec3 CentroidOf(const Image& image, bool (*match)(const Pixel&), int& count) {
  double sx = 0, sy = 0;
  count = 0;
  for (int y = 0; y < static_cast<int>(image.height); ++y) {
    for (int x = 0; x < static_cast<int>(image.width); ++x) {
      if (!match(At(image, x, y))) continue;
      sx += x;
      sy += y;
      ++count;
    }
  }
  return count > 0 ? Vec3{static_cast<float>(sx / count), static_cast<float>(sy / count), 0} : Vec3{-1, -1, 0};
}
bool BoxColoured(const Pixel& p) {  // the box of GroundScene, lit or in shade: orange
  return p[0] > 60 && p[0] > p[1] + 25 && p[1] > p[2] + 15;
}

TEST(RenderScale, HalfScaleKeepsThePictureAndScaleOneComesBackExactly) {
  for (const int samples : {1, 4}) {
    std::unique_ptr<OffscreenRenderer> renderer;
    try {
      renderer = OffscreenRenderer::Create(kCostWidth, kCostHeight, samples);
    } catch (const NoVulkanDeviceError& error) {
      GTEST_SKIP() << "no Vulkan device to render with: " << error.what();
    }
    const RenderScene scene = GroundScene({0.8f, -1.2f, 0.9f}, {0.1f, 0, 0.3f});
    const Image full = renderer->Render(scene);
    const Image half = renderer->Render(scene, 0.5f);
    const Image full_again = renderer->Render(scene);
    const std::string name = "RenderScale_samples" + std::to_string(samples);
    Save(full, name + "_full");
    Save(half, name + "_half");
    ASSERT_EQ(half.width, full.width);
    ASSERT_EQ(half.height, full.height);
    EXPECT_EQ(Compare(full, full_again, 0).largest, 0) << samples << " samples";
    const Difference d = Compare(full, half, 40);
    EXPECT_LT(d.pixels_over, kCostWidth * kCostHeight * 15 / 100) << samples << " samples";
    EXPECT_GT(Compare(full, half, 0).pixels_over, 0) << "the half-size frame should differ somewhere";
    int full_count = 0, half_count = 0;
    const Vec3 a = CentroidOf(full, BoxColoured, full_count), b = CentroidOf(half, BoxColoured, half_count);
    ASSERT_GT(full_count, 200) << "the box should cover a few hundred pixels";
    EXPECT_NEAR(half_count, full_count, full_count / 5);
    EXPECT_NEAR(a[0], b[0], 1.0f);
    EXPECT_NEAR(a[1], b[1], 1.0f);
    std::printf(
        "render scale 0.5, %d samples: %.1f%% of pixels over 40 levels; box centroid moved (%.2f, %.2f) px, "
        "its pixels %d -> %d\n",
        samples, 100.0 * d.pixels_over / (kCostWidth * kCostHeight), b[0] - a[0], b[1] - a[1], full_count, half_count);
  }
}

// The studio's viewport on a CPU device (OffscreenRenderer's cpu_viewport) draws into a UNORM image whose sRGB
// encoding the shaders do (an approximation within a quarter of a level, common.glsl) and scales a half-size scene
// up on the host (ScaleBilinear). Against the default renderer (an sRGB image encoded by the device, scaled up by a
// full-size pass sampling it): at scale 1 the encoding alone differs, by at most a level after rounding (bound: 2).
// At scale 0.5 the host filters the encoded values where the device's sampler filters linear ones, so only pixels
// next to an edge between light and dark differ much: bound 2% over 40 levels (measured on lavapipe at 200x150:
// none), and the box stays where it was: its centroid within half a pixel (measured: 0.28, -0.12 px; the filter's
// weights differ, its taps do not) and its pixel count within 10% (measured: 1,227 against 1,209, 1.5%; edge pixels
// that fall either side of the colour test).
TEST(RenderScale, CpuViewportGivesTheDefaultRenderersPicture) {
  std::unique_ptr<OffscreenRenderer> device_scaled, host_scaled;
  try {
    device_scaled = OffscreenRenderer::Create(kCostWidth, kCostHeight, 1);
    host_scaled = OffscreenRenderer::Create(kCostWidth, kCostHeight, 1, true, true);
  } catch (const NoVulkanDeviceError& error) {
    GTEST_SKIP() << "no Vulkan device to render with: " << error.what();
  }
  const RenderScene scene = GroundScene({0.8f, -1.2f, 0.9f}, {0.1f, 0, 0.3f});
  const Image full = device_scaled->Render(scene), full_cpu = host_scaled->Render(scene);
  const Image half = device_scaled->Render(scene, 0.5f), half_cpu = host_scaled->Render(scene, 0.5f);
  Save(full_cpu, "RenderScale_cpu_viewport_full");
  Save(half_cpu, "RenderScale_cpu_viewport_half");
  const int largest_full = Compare(full, full_cpu, 0).largest;
  const Difference d = Compare(half, half_cpu, 40);
  std::printf("cpu viewport: scale 1 differs by at most %d levels; scale 0.5: %.2f%% of pixels over 40 levels\n",
              largest_full, 100.0 * d.pixels_over / (kCostWidth * kCostHeight));
  EXPECT_LE(largest_full, 2);
  EXPECT_LT(d.pixels_over, kCostWidth * kCostHeight * 2 / 100);
  EXPECT_GT(Compare(full_cpu, half_cpu, 0).pixels_over, 0) << "the half-size frame should differ somewhere";
  int count = 0, count_cpu = 0;
  const Vec3 a = CentroidOf(half, BoxColoured, count), b = CentroidOf(half_cpu, BoxColoured, count_cpu);
  ASSERT_GT(count, 200) << "the box should cover a few hundred pixels";
  std::printf("cpu viewport at scale 0.5: box centroid moved (%.2f, %.2f) px, its pixels %d -> %d\n", b[0] - a[0],
              b[1] - a[1], count, count_cpu);
  EXPECT_NEAR(count_cpu, count, count / 10);
  EXPECT_NEAR(a[0], b[0], 0.5f);
  EXPECT_NEAR(a[1], b[1], 0.5f);
}

// The HUD is drawn after the scene is scaled up, at full size: its bright text strokes are the same pixels at either
// scale (bound: 3% of them differ, for the panel's translucency over a blurrier background; measured: none of 956).
TEST(RenderScale, HudStaysAtFullSize) {
  std::unique_ptr<OffscreenRenderer> renderer;
  try {
    renderer = OffscreenRenderer::Create(640, 360, 1);
  } catch (const NoVulkanDeviceError& error) {
    GTEST_SKIP() << "no Vulkan device to render with: " << error.what();
  }
  RenderScene scene = FrontViewScene();
  scene.particles.push_back(OneParticle({0.1f, 0, 0}, 0.08f, {0.8f, 0.1f, 0.1f, 1}));
  scene.hud.visible = true;
  scene.hud.lines = {"sim time 1.234 s", "viewport 30 fps, scene at 320x180 (50%)"};
  const Image full = renderer->Render(scene);
  const Image half = renderer->Render(scene, 0.5f);
  Save(half, "RenderScale_hud_half");
  int text = 0, moved = 0;
  for (int y = 0; y < 90; ++y) {
    for (int x = 0; x < 320; ++x) {
      const bool a = Luminance(At(full, x, y)) > 180, b = Luminance(At(half, x, y)) > 180;
      text += a ? 1 : 0;
      moved += a != b ? 1 : 0;
    }
  }
  ASSERT_GT(text, 200) << "the HUD's text should show";
  std::printf("render scale 0.5: %d of the HUD's %d text pixels moved\n", moved, text);
  EXPECT_LE(moved, text * 3 / 100);
}

// The CPU viewport composes the HUD on the host from the panel drawn over black (B) and over white (W): over a
// scene pixel c it stores B + (W − B)·c. Checked against the blend ImGui itself does on a UNORM target: its panel
// colour (WindowBg, 0.06 in all three channels, stored unencoded: 15.3) at the HUD's opacity of 0.7 over the frame
// drawn without the HUD, 0.7 · 15.3 + 0.3 · c, at panel pixels with no text (the right end of the short first line:
// nothing but the panel). Bound: 2 levels (B and W are rounded to 8 bits, half a level each, and the blend's result
// to a level). And the text: its bright strokes fall on the pixels where the device-drawn HUD of the default renderer
// has them (bound 1% of the strokes, for the panel blended in linear light there).
TEST(RenderScale, CpuViewportComposesTheHudOnTheHost) {
  constexpr int kHudWidth = 640, kHudHeight = 360;
  std::unique_ptr<OffscreenRenderer> device_drawn, host_composed;
  try {
    device_drawn = OffscreenRenderer::Create(kHudWidth, kHudHeight, 1);
    host_composed = OffscreenRenderer::Create(kHudWidth, kHudHeight, 1, true, true);
  } catch (const NoVulkanDeviceError& error) {
    GTEST_SKIP() << "no Vulkan device to render with: " << error.what();
  }
  RenderScene scene = GroundScene({0.8f, -1.2f, 0.9f}, {0.1f, 0, 0.3f});
  // The second frame of a view, as the ones after it: the ground from the renderer's cache (the first frame of a view
  // draws it directly, which may differ by a level).
  host_composed->Render(scene, 0.5f);
  const Image plain = host_composed->Render(scene, 0.5f);
  scene.hud.visible = true;
  scene.hud.lines = {"t = 1.234 s", "viewport 30 fps, scene at 320x180 (50%)", "drag: orbit  wheel: zoom"};
  const Image with_hud = host_composed->Render(scene, 0.5f);
  const Image device_hud = device_drawn->Render(scene, 0.5f);
  Save(with_hud, "RenderScale_cpu_viewport_hud");

  // Panel-only pixels: right of the first line's text (16-pixel font, about 90 pixels long from x = 16) and left of
  // the panel's right edge (the second line is about 330 long), within the first line's height (y 12 to 26).
  int checked = 0, largest = 0;
  for (int y = 14; y < 24; ++y) {
    for (int x = 150; x < 300; ++x) {
      const Pixel under = At(plain, x, y), over = At(with_hud, x, y);
      for (int c = 0; c < 3; ++c) {
        const double expected = 0.7 * 0.06 * 255 + 0.3 * under[c];
        largest = std::max(largest, static_cast<int>(std::lround(std::abs(over[c] - expected))));
      }
      ++checked;
    }
  }
  std::printf("host-composed HUD panel: largest difference from the blend %d levels over %d pixels\n", largest,
              checked);
  EXPECT_LE(largest, 2);

  // A stroke's inside (luminance over 220) in one must be at least an edge (over 140) in the other: the edges' partial
  // coverage is blended in linear light by the default renderer and in stored values here, so they differ in shade.
  int text = 0, moved = 0;
  for (int y = 0; y < kHudHeight / 2; ++y) {
    for (int x = 0; x < kHudWidth * 2 / 3; ++x) {
      const float a = Luminance(At(device_hud, x, y)), b = Luminance(At(with_hud, x, y));
      text += a > 220 ? 1 : 0;
      moved += (a > 220 && b <= 140) || (b > 220 && a <= 140) ? 1 : 0;
    }
  }
  ASSERT_GT(text, 300) << "the HUD's text should show";
  std::printf("host-composed HUD: %d of the device-drawn HUD's %d text pixels are not text here\n", moved, text);
  EXPECT_LE(moved, text / 100);
  // Below the panel the frame is the scene's, bitwise.
  for (int y = kHudHeight / 2; y < kHudHeight; ++y)
    for (int x = 0; x < kHudWidth; ++x) ASSERT_EQ(At(with_hud, x, y), At(plain, x, y)) << x << ", " << y;
}

// RenderInto gives Render's picture in the renderer's byte order; the HUD follows its text; Resize gives the picture
// of a renderer made at the new size, bitwise; a buffer of the wrong size is refused.
TEST(RenderScale, CpuViewportRendersIntoABufferAndFollowsResizes) {
  std::unique_ptr<OffscreenRenderer> renderer, fresh;
  try {
    renderer = OffscreenRenderer::Create(kCostWidth, kCostHeight, 1, true, true);
    fresh = OffscreenRenderer::Create(120, 90, 1, true, true);
  } catch (const NoVulkanDeviceError& error) {
    GTEST_SKIP() << "no Vulkan device to render with: " << error.what();
  }
  RenderScene scene = GroundScene({0.8f, -1.2f, 0.9f}, {0.1f, 0, 0.3f});
  scene.hud.visible = true;
  scene.hud.lines = {"t = 1.234 s"};
  // Second frames of the view throughout (see CpuViewportComposesTheHudOnTheHost).
  renderer->Render(scene, 0.5f);
  const Image image = renderer->Render(scene, 0.5f);
  std::vector<std::uint8_t> pixels(image.rgba.size());
  renderer->RenderInto(scene, 0.5f, pixels);
  const int red = renderer->bgra() ? 2 : 0;
  for (std::size_t i = 0; i < pixels.size(); i += 4) {
    ASSERT_EQ(pixels[i + red], image.rgba[i]) << i;
    ASSERT_EQ(pixels[i + 1], image.rgba[i + 1]) << i;
    ASSERT_EQ(pixels[i + 2 - red], image.rgba[i + 2]) << i;
  }
  std::vector<std::uint8_t> wrong(pixels.size() - 4);
  EXPECT_THROW(renderer->RenderInto(scene, 0.5f, wrong), std::invalid_argument);

  // The HUD's panel is drawn again only when its text changes (else the last one read back is blended): new text
  // shows at once, and the old text comes back as it was.
  scene.hud.lines = {"t = 9.876 s"};
  const Image other_text = renderer->Render(scene, 0.5f);
  EXPECT_GT(Compare(other_text, image, 0).pixels_over, 20) << "the new text should show";
  scene.hud.lines = {"t = 1.234 s"};
  EXPECT_EQ(renderer->Render(scene, 0.5f).rgba, image.rgba);
  scene.hud.visible = false;
  EXPECT_GT(Compare(renderer->Render(scene, 0.5f), image, 0).pixels_over, 20) << "a hidden HUD should go";
  scene.hud.visible = true;

  renderer->Resize(120, 90);
  EXPECT_EQ(renderer->width(), 120);
  EXPECT_EQ(renderer->height(), 90);
  renderer->Render(scene, 0.5f);
  fresh->Render(scene, 0.5f);
  const Image resized = renderer->Render(scene, 0.5f), made = fresh->Render(scene, 0.5f);
  ASSERT_EQ(resized.width, 120);
  ASSERT_EQ(resized.height, 90);
  EXPECT_EQ(Compare(resized, made, 0).largest, 0);
  EXPECT_THROW(renderer->Resize(0, 90), std::invalid_argument);
  EXPECT_EQ(renderer->Render(scene, 0.5f).rgba, resized.rgba) << "a refused size leaves the renderer as it was";
}

TEST(RenderScale, OutsideZeroToOneIsRefusedAndTheRendererCarriesOn) {
  std::unique_ptr<OffscreenRenderer> renderer;
  try {
    renderer = OffscreenRenderer::Create(kWidth, kHeight, 1);
  } catch (const NoVulkanDeviceError& error) {
    GTEST_SKIP() << "no Vulkan device to render with: " << error.what();
  }
  RenderScene scene = FrontViewScene();
  scene.particles.push_back(OneParticle({0, 0, 0}, 0.2f, {0.9f, 0.1f, 0.1f, 1}));
  for (const float scale : {0.0f, -0.5f, 1.5f, std::nanf("")}) {
    try {
      renderer->Render(scene, scale);
      ADD_FAILURE() << "render scale " << scale << " was accepted";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("render scale"), std::string::npos) << error.what();
    }
  }
  // A tiny scale still draws at least one pixel each way, and the next frame is a normal one.
  EXPECT_NO_THROW(renderer->Render(scene, 0.001f));
  EXPECT_TRUE(Reddish(At(renderer->Render(scene), kWidth / 2, kHeight / 2)));
}

// Depth readback (OffscreenRenderer::RenderWithDepth): distances along the viewing axis, checked against geometry.
// The depth is 32-bit (or 24-bit) window-space depth with near 0.01 m and far 50 m: at z ≤ 2 m its resolution is
// about 2⁻²⁴ · z² · (f − n) / (f n) ≤ 2.4e-5 m, so 1e-4 m bounds what the readback can get wrong; the box's
// rasterised face and the sphere impostor are exact at a pixel centre.
struct DepthFrame {
  std::vector<std::uint8_t> pixels;
  std::vector<float> depth;
  float At(int x, int y) const { return depth[static_cast<std::size_t>(y) * kWidth + static_cast<std::size_t>(x)]; }
};

DepthFrame RenderDepth(OffscreenRenderer& renderer, const RenderScene& scene) {
  DepthFrame frame;
  frame.pixels.resize(4 * static_cast<std::size_t>(kWidth) * kHeight);
  frame.depth.resize(static_cast<std::size_t>(kWidth) * kHeight);
  renderer.RenderWithDepth(scene, frame.pixels, frame.depth);
  return frame;
}

std::unique_ptr<OffscreenRenderer> DepthRenderer() {
  return OffscreenRenderer::Create(kWidth, kHeight, 1, true, false, true);
}

TEST(DepthReadback, BoxFaceAndSphereAtTheirDistancesAlongTheAxisAndTheBackgroundAtInfinity) {
  std::unique_ptr<OffscreenRenderer> renderer;
  try {
    renderer = DepthRenderer();
  } catch (const NoVulkanDeviceError& error) {
    GTEST_SKIP() << "no Vulkan device to render with: " << error.what();
  }
  ASSERT_TRUE(renderer->reads_depth());
  RenderScene scene = FrontViewScene();  // eye at y = −1 looking along +y
  scene.meshes.push_back(Box());
  scene.instances.push_back({0, Place({0, 0, 0}, 0.1f), {0.1f, 0.2f, 0.9f, 1}, false});
  const DepthFrame box = RenderDepth(*renderer, scene);
  // The front face y = −0.1 is 0.9 m along the axis at every pixel it covers: off the centre too, where the range
  // along the pixel's ray is longer (a 40° field of view: the face spans about ±15 pixels around the centre).
  EXPECT_NEAR(box.At(kWidth / 2, kHeight / 2), 0.9f, 1e-4f);
  EXPECT_NEAR(box.At(kWidth / 2 + 10, kHeight / 2 - 10), 0.9f, 1e-4f);
  EXPECT_TRUE(std::isinf(box.At(2, 2))) << "the background: " << box.At(2, 2);
  // The colour is the Render's.
  const Image image = renderer->Render(scene);
  EXPECT_TRUE(std::equal(image.rgba.begin(), image.rgba.end(), box.pixels.begin()));

  // A sphere of radius 0.05 centred 0.7 m ahead: where a pixel centre's ray eye + s d (d's axis component 1) first
  // meets it, s is the depth along the axis.
  scene.instances.clear();
  scene.particles.push_back(OneParticle({0, -0.3f, 0}, 0.05f, {1, 0, 0, 1}));
  const DepthFrame sphere = RenderDepth(*renderer, scene);
  const double t = std::tan(20 * 3.14159265358979 / 180), aspect = static_cast<double>(kWidth) / kHeight;
  for (const int dx : {0, 4, 8}) {
    const double u = 2 * (kWidth / 2 + dx + 0.5) / kWidth - 1, v = 2 * (kHeight / 2 + 0.5) / kHeight - 1;
    const double dx_ray = u * t * aspect, dz_ray = -v * t;  // the ray (dx_ray, 1, dz_ray), centre (0, 0.7, 0)
    const double dd = dx_ray * dx_ray + 1 + dz_ray * dz_ray, dc = 0.7, cc = 0.7 * 0.7 - 0.05 * 0.05;
    const double expected = (dc - std::sqrt(dc * dc - dd * cc)) / dd;
    EXPECT_NEAR(sphere.At(kWidth / 2 + dx, kHeight / 2), expected, 1e-4) << dx << " pixels right of the centre";
  }
}

TEST(DepthReadback, TheGroundMatchesTheRayPlaneIntersectionAtEveryPixel) {
  std::unique_ptr<OffscreenRenderer> renderer;
  try {
    renderer = DepthRenderer();
  } catch (const NoVulkanDeviceError& error) {
    GTEST_SKIP() << "no Vulkan device to render with: " << error.what();
  }
  RenderScene scene;
  scene.camera.eye = {0.3f, -1.2f, 0.5f};
  scene.camera.target = {0, 0.2f, 0.2f};
  scene.grid.visible = true;
  const DepthFrame frame = RenderDepth(*renderer, scene);
  // The camera's frame: forward, right = forward × up, up' = right × forward; a pixel centre's ray is forward +
  // x tan(fov/2) aspect right − y tan(fov/2) up' (x, y in [−1, 1], y down), whose axis component is 1, so the ray
  // parameter where it meets z = 0 is the depth along the axis.
  using V = std::array<double, 3>;
  const auto sub = [](const V& a, const V& b) { return V{a[0] - b[0], a[1] - b[1], a[2] - b[2]}; };
  const auto cross = [](const V& a, const V& b) {
    return V{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  };
  const auto unit = [](const V& a) {
    const double n = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    return V{a[0] / n, a[1] / n, a[2] / n};
  };
  const V eye{0.3, -1.2, 0.5};
  const V forward = unit(sub(V{0, 0.2, 0.2}, eye));
  const V right = unit(cross(forward, V{0, 0, 1}));
  const V up = cross(right, forward);
  const double t = std::tan(20 * 3.14159265358979 / 180), aspect = static_cast<double>(kWidth) / kHeight;
  int ground = 0, sky = 0;
  double worst = 0;
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      const double u = 2 * (x + 0.5) / kWidth - 1, v = 2 * (y + 0.5) / kHeight - 1;
      V ray{};
      for (int a = 0; a < 3; ++a) ray[a] = forward[a] + u * t * aspect * right[a] - v * t * up[a];
      const double hit = ray[2] < 0 ? -eye[2] / ray[2] : -1;
      const V p{eye[0] + hit * ray[0], eye[1] + hit * ray[1], 0};
      // Inside the grid's square (half side 5 m about the camera's target) with a margin: the ground; beyond it or
      // above the horizon: the background.
      const double from_x = std::abs(p[0] - 0), from_y = std::abs(p[1] - 0.2);
      if (hit > 0 && from_x < 4.9 && from_y < 4.9) {
        ++ground;
        worst = std::max(worst, std::abs(frame.At(x, y) - hit) / hit);
      } else if (hit < 0 || from_x > 5.1 || from_y > 5.1) {
        ++sky;
        EXPECT_TRUE(std::isinf(frame.At(x, y))) << x << ", " << y;
      }
    }
  }
  std::printf("ground: %d pixels, largest relative depth error %.2e; background: %d pixels\n", ground, worst, sky);
  EXPECT_GT(ground, kWidth * kHeight / 4);
  EXPECT_GT(sky, 0);
  // Relative 2e-4: the depth resolution at the farthest ground in view (about 6 m: 2⁻²⁴ · 6 m · (f − n) / (f n) ≈
  // 6e-5 relative; 8.5e-5 measured on lavapipe) with margin.
  EXPECT_LT(worst, 2e-4);
}

TEST(DepthReadback, NeedsOneSampleAndARendererMadeForIt) {
  try {
    EXPECT_THROW(OffscreenRenderer::Create(kWidth, kHeight, 4, true, false, true), std::invalid_argument);
    EXPECT_THROW(OffscreenRenderer::Create(kWidth, kHeight, 1, true, true, true), std::invalid_argument);
    std::unique_ptr<OffscreenRenderer> plain = OffscreenRenderer::Create(kWidth, kHeight, 1);
    EXPECT_FALSE(plain->reads_depth());
    std::vector<std::uint8_t> pixels(4 * static_cast<std::size_t>(kWidth) * kHeight);
    std::vector<float> depth(static_cast<std::size_t>(kWidth) * kHeight);
    EXPECT_THROW(plain->RenderWithDepth(FrontViewScene(), pixels, depth), std::invalid_argument);
    std::unique_ptr<OffscreenRenderer> with_depth = DepthRenderer();
    depth.pop_back();
    EXPECT_THROW(with_depth->RenderWithDepth(FrontViewScene(), pixels, depth), std::invalid_argument);
  } catch (const NoVulkanDeviceError& error) {
    GTEST_SKIP() << "no Vulkan device to render with: " << error.what();
  }
}

}  // namespace
}  // namespace ductile::render
