// One 1280x720 frame of the studio's viewport drawn offscreen by libductile_render (issue 5): a dough slab of
// particles (1 cm apart, radius 5 mm) under a rolling pin (a cylinder) next to a box, built from a Snapshot by
// BuildRenderScene exactly as the studio builds it (ground grid, shadows, domain outline, a contact-force arrow) and
// framed by FrameSnapshot. Slabs of 30x30x6 = 5,400 and 50x50x20 = 50,000 particles, at 1 and 4 samples per pixel.
// Each iteration is OffscreenRenderer::Render: record, submit, wait, read the image back. Counters: ms per frame
// and frames per second. BM_StudioFrame: the studio's frame on a CPU device, the scene built every frame, with the
// continua as beads or as surfaces (issue 22). Results: bench/results/*-render.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "ductile/render/image.h"
#include "ductile/render/renderer.h"
#include "ductile/render/snapshot_scene.h"
#include "ductile/snapshot.h"

namespace ductile {
namespace {

constexpr int kWidth = 1280;
constexpr int kHeight = 720;

// A slab of nx x ny x nz particles 1 cm apart resting on the ground (z = 0), a rolling pin lying on it along x and
// a box beside it; the pin carries a contact force so the frame has an arrow.
Snapshot DoughSlab(int nx, int ny, int nz) {
  constexpr float kSpacing = 0.01f;  // [m].
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
  p.von_mises.assign(n, 0.0f);
  p.plastic_strain.assign(n, 0.0f);
  p.material.assign(n, 0);
  p.object.assign(n, 0);
  const float top = static_cast<float>(nz) * kSpacing;
  snapshot.grid_spacing = kSpacing;
  snapshot.domain_min = {-0.5f * static_cast<float>(nx + 10) * kSpacing, -0.5f * static_cast<float>(ny + 10) * kSpacing,
                         0.0f};
  snapshot.domain_max = {-snapshot.domain_min[0], -snapshot.domain_min[1], top + 0.15f};

  SnapshotBody pin_body;
  pin_body.name = "rolling_pin";
  pin_body.position = {0.0f, 0.0f, top + 0.03f};
  pin_body.contact_force = {0.0f, 0.0f, 20.0f};
  snapshot.bodies.push_back(pin_body);
  SnapshotShape pin;
  pin.name = "rolling_pin";
  pin.body = 0;
  pin.type = ShapeType::kCylinder;
  pin.radius = 0.03f;
  pin.length = 0.8f * static_cast<float>(nx) * kSpacing;
  pin.position = pin_body.position;
  pin.quaternion = {0.70710678f, 0.0f, 0.70710678f, 0.0f};  // z axis along world x.
  pin.rgba = {0.62f, 0.42f, 0.25f, 1.0f};
  snapshot.shapes.push_back(pin);
  SnapshotShape box;
  box.name = "box";
  box.type = ShapeType::kBox;
  box.half_extents = {0.04f, 0.04f, 0.04f};
  box.position = {0.5f * static_cast<float>(nx) * kSpacing + 0.08f, 0.0f, 0.04f};
  box.rgba = {0.55f, 0.58f, 0.65f, 1.0f};
  snapshot.shapes.push_back(box);
  return snapshot;
}

// Arguments: particle count selector (0: 30x30x6, 1: 50x50x20), samples per pixel, render scale [%] (the scene
// drawn at that fraction of the image's width and height and scaled up) and cpu (1: drawn as the studio's viewport
// draws on a CPU device, OffscreenRenderer's cpu_viewport: UNORM images, the frame composed on the host).
void BM_RenderFrame(benchmark::State& state) {
  const Snapshot snapshot = state.range(0) == 0 ? DoughSlab(30, 30, 6) : DoughSlab(50, 50, 20);
  const auto samples = static_cast<int>(state.range(1));
  const float render_scale = static_cast<float>(state.range(2)) / 100.0f;
  std::unique_ptr<render::OffscreenRenderer> renderer;
  try {
    renderer = render::OffscreenRenderer::Create(kWidth, kHeight, samples, true, state.range(3) != 0);
  } catch (const render::NoVulkanDeviceError& error) {
    state.SkipWithError(error.what());
    return;
  }
  const render::Camera camera =
      render::FrameSnapshot(snapshot, static_cast<float>(kWidth) / static_cast<float>(kHeight));
  // Beads, as before the surfaces (issue 22), so that the figures compare with the earlier ones; BM_StudioFrame
  // measures the surfaces.
  render::ViewOptions beads;
  beads.particle_style = render::ParticleStyle::kBeads;
  const render::RenderScene scene = render::BuildRenderScene(snapshot, beads, camera);
  // Into one buffer, as the viewport draws into its window's image; a warm-up frame first (first-use costs of
  // buffers and caches).
  std::vector<std::uint8_t> pixels(4 * static_cast<std::size_t>(kWidth) * static_cast<std::size_t>(kHeight));
  renderer->RenderInto(scene, render_scale, pixels);
  for (auto _ : state) {
    renderer->RenderInto(scene, render_scale, pixels);
    benchmark::DoNotOptimize(pixels.data());
  }
  state.counters["particles"] = static_cast<double>(snapshot.particles.position.size());
  state.counters["samples"] = renderer->samples();
  state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.SetLabel(renderer->DeviceName());
}
BENCHMARK(BM_RenderFrame)
    ->ArgNames({"slab", "samples", "scale", "cpu"})
    ->ArgsProduct({{0, 1}, {1, 4}, {100, 50}, {0}})
    ->ArgsProduct({{0, 1}, {1}, {100, 50}, {1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

// One frame of the studio's viewport on a CPU device as it draws one while the simulation runs (issue 22): the
// RenderScene built from the snapshot (BuildRenderScene: with the surface style the continua's surfaces are
// reconstructed here, every frame), then drawn at a render scale of 50% and composed on the host
// (cpu_viewport), 1280x720, 1 sample. Arguments: style (0 beads, 1 surface) and material (0 dough, a solid; 1 water,
// translucent, with a wider kernel and its thickness along the line of sight) of the 30x30x6 slab (5,400 particles).
// Counters as BM_RenderFrame's, and build_ms, the mean time BuildRenderScene took.
void BM_StudioFrame(benchmark::State& state) {
  Snapshot snapshot = DoughSlab(30, 30, 6);
  SnapshotMaterial material;
  material.model = state.range(1) == 0 ? MaterialModelDesc::kFixedCorotated : MaterialModelDesc::kFluid;
  snapshot.materials = {material};
  render::ViewOptions view;
  view.particle_style = state.range(0) == 0 ? render::ParticleStyle::kBeads : render::ParticleStyle::kSurface;
  std::unique_ptr<render::OffscreenRenderer> renderer;
  try {
    renderer = render::OffscreenRenderer::Create(kWidth, kHeight, 1, true, true);
  } catch (const render::NoVulkanDeviceError& error) {
    state.SkipWithError(error.what());
    return;
  }
  const render::Camera camera =
      render::FrameSnapshot(snapshot, static_cast<float>(kWidth) / static_cast<float>(kHeight));
  std::vector<std::uint8_t> pixels(4 * static_cast<std::size_t>(kWidth) * static_cast<std::size_t>(kHeight));
  renderer->RenderInto(render::BuildRenderScene(snapshot, view, camera), 0.5f, pixels);
  double build_seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const render::RenderScene scene = render::BuildRenderScene(snapshot, view, camera);
    build_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    renderer->RenderInto(scene, 0.5f, pixels);
    benchmark::DoNotOptimize(pixels.data());
  }
  state.counters["particles"] = static_cast<double>(snapshot.particles.position.size());
  state.counters["build_ms"] = 1e3 * build_seconds / static_cast<double>(std::max<std::int64_t>(state.iterations(), 1));
  state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.SetLabel(renderer->DeviceName());
}
BENCHMARK(BM_StudioFrame)
    ->ArgNames({"style", "material"})
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

// The studio viewport's host upscale on a CPU device (part of SceneRenderer::UpscaleOnHost): render::ScaleBilinear from
// the half-size scene image to the 1280x720 viewport. Arguments: the source's width and height.
void BM_ScaleBilinear(benchmark::State& state) {
  const auto width = static_cast<int>(state.range(0)), height = static_cast<int>(state.range(1));
  std::vector<std::uint8_t> src(4 * static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 7);
  std::vector<std::uint8_t> dst(4 * static_cast<std::size_t>(kWidth) * static_cast<std::size_t>(kHeight));
  for (auto _ : state) {
    render::ScaleBilinear(src, width, height, dst, kWidth, kHeight);
    benchmark::DoNotOptimize(dst.data());
  }
}
BENCHMARK(BM_ScaleBilinear)
    ->ArgNames({"width", "height"})
    ->Args({640, 360})
    ->Args({960, 540})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ductile

BENCHMARK_MAIN();
