// The continua's reconstructed surfaces (particle_surface.h, ViewOptions::particle_style): the mesh's geometry on
// its own (closed, outward, where the beads' surface is), what BuildRenderScene makes of each material, and pictures
// drawn offscreen: the surface closes the gaps between beads, water shows what lies behind it, less where it is
// deeper. Each picture goes to DUCTILE_RENDER_TEST_OUTPUT_DIR for a person to look at.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ductile/render/image.h"
#include "ductile/render/particle_surface.h"
#include "ductile/render/renderer.h"
#include "ductile/render/snapshot_scene.h"
#include "ductile/snapshot.h"
#include "support/pixels.h"

namespace ductile::render {
namespace {

constexpr float kSpacing = 0.01f;  // [m].

float Distance(const Vec3& a, const Vec3& b) {
  return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

// A block of nx x ny x nz particles kSpacing apart, its lowest corner particle at `corner`.
std::vector<Vec3> Block(int nx, int ny, int nz, const Vec3& corner) {
  std::vector<Vec3> positions;
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      for (int k = 0; k < nz; ++k)
        positions.push_back({corner[0] + static_cast<float>(i) * kSpacing, corner[1] + static_cast<float>(j) * kSpacing,
                             corner[2] + static_cast<float>(k) * kSpacing});
  return positions;
}

SurfaceParams Smoothed(int passes) {
  SurfaceParams params;
  params.smoothing_passes = passes;
  return params;
}

SurfaceMesh Reconstruct(const std::vector<Vec3>& positions, SurfaceParams params = {}) {
  params.spacing = kSpacing;
  const std::vector<Rgba> colors(positions.size(), Rgba{0.8f, 0.3f, 0.2f, 1});
  return ReconstructSurface(positions, colors, params);
}

// Every edge of a closed, consistently wound mesh is used once in each direction.
void ExpectClosedAndConsistentlyWound(const SurfaceMesh& mesh) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> uses;
  for (std::size_t t = 0; t + 2 < mesh.indices.size(); t += 3)
    for (int e = 0; e < 3; ++e) ++uses[{mesh.indices[t + e], mesh.indices[t + (e + 1) % 3]}];
  int unmatched = 0;
  for (const auto& [edge, count] : uses) {
    const auto reverse = uses.find({edge.second, edge.first});
    if (count != 1 || reverse == uses.end() || reverse->second != 1) ++unmatched;
  }
  EXPECT_EQ(unmatched, 0);
}

// One particle alone: a closed sphere around it, about a bead's radius (half a spacing) wide, wound and lit from
// outside.
TEST(ParticleSurface, OneParticleIsAClosedSphereOfAboutTheBeadsRadius) {
  const Vec3 center{0.1f, -0.2f, 0.3f};
  const SurfaceMesh mesh = Reconstruct({center}, Smoothed(0));
  ASSERT_GT(mesh.indices.size(), 3u * 8u);
  ExpectClosedAndConsistentlyWound(mesh);
  for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
    const Vec3& p = mesh.positions[v];
    EXPECT_NEAR(Distance(p, center), 0.5f * kSpacing, 0.2f * kSpacing) << v;
    const Vec3 out{p[0] - center[0], p[1] - center[1], p[2] - center[2]};
    EXPECT_GT(out[0] * mesh.normals[v][0] + out[1] * mesh.normals[v][1] + out[2] * mesh.normals[v][2], 0.0f) << v;
    EXPECT_EQ(mesh.colors[v][3], 1.0f);  // opaque
  }
  for (std::size_t t = 0; t < mesh.indices.size(); t += 3) {
    const Vec3& a = mesh.positions[mesh.indices[t]];
    const Vec3& b = mesh.positions[mesh.indices[t + 1]];
    const Vec3& c = mesh.positions[mesh.indices[t + 2]];
    const Vec3 u{b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const Vec3 face{u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    const Vec3 out{a[0] - center[0], a[1] - center[1], a[2] - center[2]};
    EXPECT_GT(face[0] * out[0] + face[1] * out[1] + face[2] * out[2], 0.0f) << "triangle " << t / 3;
  }
}

// A flat block's top lies where its beads' tops are, half a spacing above the top layer, also after smoothing.
TEST(ParticleSurface, FlatBlockTopLiesHalfASpacingAboveItsTopLayer) {
  const std::vector<Vec3> block = Block(12, 12, 4, {0, 0, 0});
  const float top_layer = 3 * kSpacing;
  for (int passes : {0, 2}) {
    const SurfaceMesh mesh = Reconstruct(block, Smoothed(passes));
    ExpectClosedAndConsistentlyWound(mesh);
    int on_top = 0;
    for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
      const Vec3& p = mesh.positions[v];
      // The middle of the top face, away from the rounded edges.
      if (p[0] < 3 * kSpacing || p[0] > 8 * kSpacing || p[1] < 3 * kSpacing || p[1] > 8 * kSpacing) continue;
      if (p[2] < top_layer) continue;
      ++on_top;
      EXPECT_NEAR(p[2], top_layer + 0.5f * kSpacing, 0.1f * kSpacing) << "passes " << passes << " vertex " << v;
      EXPECT_GT(mesh.normals[v][2], 0.95f);
    }
    EXPECT_GE(on_top, 25) << passes;
  }
}

// Past kMaxSurfaceParticles the grid is coarser and the particles are binned per cell: the surface is still closed
// and its top still lies about half a (coarser) cell above the top layer.
TEST(ParticleSurface, ManyParticlesAreBinnedOnACoarserGridAndStillClosed) {
  const std::vector<Vec3> block = Block(40, 40, 16, {0, 0, 0});  // 25,600 particles
  ASSERT_GT(static_cast<std::int64_t>(block.size()), kMaxSurfaceParticles);
  const SurfaceMesh mesh = Reconstruct(block);
  ExpectClosedAndConsistentlyWound(mesh);
  const float top_layer = 15 * kSpacing;
  int on_top = 0;
  for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
    const Vec3& p = mesh.positions[v];
    if (p[0] < 0.1f || p[0] > 0.3f || p[1] < 0.1f || p[1] > 0.3f || p[2] < top_layer) continue;
    ++on_top;
    EXPECT_GT(p[2], top_layer);
    EXPECT_LT(p[2], top_layer + 1.2f * kSpacing);
  }
  EXPECT_GT(on_top, 100);
}

// A diverging run's last snapshot may hold a particle flung far away (finite, but 1e30 m off): the grid must not
// overflow its node counts (an int cast of 1e32 cells) but grow its cells, and the reconstruction must return.
TEST(ParticleSurface, AParticleFarAwayDoesNotOverflowTheGrid) {
  std::vector<Vec3> block = Block(4, 4, 4, {0, 0, 0});
  block.push_back({1e30f, -1e30f, 1e30f});
  EXPECT_NO_THROW(Reconstruct(block));
}

// Translucency: the opacity grows with the water behind a vertex along the line of sight.
TEST(ParticleSurface, OpacityGrowsWithTheThicknessBehindTheSurface) {
  // Seen from above: a pool 2 particles deep beside one 16 deep.
  std::vector<Vec3> water = Block(6, 6, 2, {0, 0, 0});
  const std::vector<Vec3> deep = Block(6, 6, 16, {0.2f, 0, 0});
  water.insert(water.end(), deep.begin(), deep.end());
  SurfaceParams params;
  params.absorption = 0.1f / kSpacing;
  params.eye = {0.12f, 0.025f, 2.0f};
  const SurfaceMesh mesh = Reconstruct(water, params);
  ASSERT_TRUE(mesh.translucent);
  float shallow_top = 0, deep_top = 0;
  for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
    const Vec3& p = mesh.positions[v];
    if (mesh.normals[v][2] < 0.95f || p[1] < 0.015f || p[1] > 0.035f) continue;
    if (p[0] > 0.015f && p[0] < 0.035f) shallow_top = std::max(shallow_top, mesh.colors[v][3]);
    if (p[0] > 0.215f && p[0] < 0.235f) deep_top = std::max(deep_top, mesh.colors[v][3]);
  }
  // 1 − exp(−0.16 d/spacing): about 0.2 over 2.1 spacings of water, about 0.8 over 16.
  EXPECT_GT(shallow_top, kMinOpacity);
  EXPECT_LT(shallow_top, 0.3f);
  EXPECT_GT(deep_top, 0.75f);
}

TEST(ParticleSurface, MismatchedColoursAndBadSpacingThrow) {
  const std::vector<Vec3> one{{0, 0, 0}};
  const std::vector<Rgba> none;
  EXPECT_THROW(ReconstructSurface(one, none, SurfaceParams{}), std::invalid_argument);
  const std::vector<Rgba> red{{1, 0, 0, 1}};
  SurfaceParams zero;
  zero.spacing = 0;
  EXPECT_THROW(ReconstructSurface(one, red, zero), std::invalid_argument);
  EXPECT_TRUE(ReconstructSurface({}, {}, SurfaceParams{}).indices.empty());
}

// A snapshot of blocks of particles kSpacing apart, one object and one material each, with the given models.
Snapshot Blocks(const std::vector<std::pair<std::vector<Vec3>, MaterialModelDesc>>& blocks) {
  Snapshot snapshot;
  SnapshotParticles& p = snapshot.particles;
  p.radius = 0.5f * kSpacing;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    snapshot.material_names.push_back("material" + std::to_string(b));
    snapshot.object_names.push_back("object" + std::to_string(b));
    SnapshotMaterial material;
    material.model = blocks[b].second;
    snapshot.materials.push_back(material);
    snapshot.material_rgba.push_back(b == 0 ? Rgba{0.85f, 0.15f, 0.1f, 1} : Rgba{0.1f, 0.3f, 0.9f, 1});
    for (const Vec3& x : blocks[b].first) {
      p.position.push_back(x);
      p.material.push_back(static_cast<std::int32_t>(b));
      p.object.push_back(static_cast<std::int32_t>(b));
    }
  }
  p.speed.assign(p.position.size(), 0.0f);
  p.plastic_strain.assign(p.position.size(), 0.0f);
  snapshot.grid_spacing = 2 * kSpacing;
  return snapshot;
}

// Surface mode (the default) draws one surface per object instead of beads, each with its material's look; beads
// mode draws beads only.
TEST(ParticleSurface, BuildRenderSceneDrawsOneSurfacePerObjectWithItsMaterialsLook) {
  const Snapshot snapshot = Blocks({{Block(6, 6, 6, {0, 0, 0}), MaterialModelDesc::kFixedCorotated},
                                    {Block(6, 6, 6, {0.2f, 0, 0}), MaterialModelDesc::kFluid}});
  const Camera camera = FrameSnapshot(snapshot, 4.0f / 3.0f);
  const RenderScene surfaces = BuildRenderScene(snapshot, ViewOptions{}, camera);
  EXPECT_TRUE(surfaces.particles.empty());
  ASSERT_EQ(surfaces.surfaces.size(), 2u);
  EXPECT_FALSE(surfaces.surfaces[0].translucent);
  EXPECT_TRUE(surfaces.surfaces[1].translucent);
  for (const Rgba& c : surfaces.surfaces[0].colors) EXPECT_NEAR(c[0], 0.85f, 1e-4f);
  for (const Rgba& c : surfaces.surfaces[1].colors) EXPECT_NEAR(c[2], 0.9f, 1e-4f);

  ViewOptions beads;
  beads.particle_style = ParticleStyle::kBeads;
  beads.cull_hidden_particles = false;
  const RenderScene bead_scene = BuildRenderScene(snapshot, beads, camera);
  EXPECT_TRUE(bead_scene.surfaces.empty());
  ASSERT_EQ(bead_scene.particles.size(), 1u);
  EXPECT_EQ(bead_scene.particles[0].positions.size(), 2u * 6u * 6u * 6u);

  ParticleStyle style{};
  EXPECT_TRUE(ParseParticleStyle("beads", style));
  EXPECT_EQ(style, ParticleStyle::kBeads);
  EXPECT_TRUE(ParseParticleStyle("surface", style));
  EXPECT_EQ(style, ParticleStyle::kSurface);
  EXPECT_FALSE(ParseParticleStyle("blobs", style));
  EXPECT_STREQ(ParticleStyleName(ParticleStyle::kBeads), "beads");
}

// The colour modes colour the surface: a block whose left half is still and right half fast shows the colour map's
// two ends on the two sides.
TEST(ParticleSurface, ColourModesColourTheSurfaceByTheParticlesField) {
  Snapshot snapshot = Blocks({{Block(12, 6, 6, {0, 0, 0}), MaterialModelDesc::kFixedCorotated}});
  for (std::size_t i = 0; i < snapshot.particles.position.size(); ++i)
    snapshot.particles.speed[i] = snapshot.particles.position[i][0] < 0.055f ? 0.0f : 2.0f;
  ViewOptions speed;
  speed.color_mode = ColorMode::kSpeed;
  speed.color_range = 2.0f;
  const RenderScene scene = BuildRenderScene(snapshot, speed, FrameSnapshot(snapshot, 1.0f));
  ASSERT_EQ(scene.surfaces.size(), 1u);
  const SurfaceMesh& mesh = scene.surfaces[0];
  const Rgba slow = ColorMap(0), fast = ColorMap(1);
  int slow_vertices = 0, fast_vertices = 0;
  for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
    const float x = mesh.positions[v][0];
    if (x < 0.02f) {
      EXPECT_NEAR(mesh.colors[v][0], slow[0], 0.02f) << v;
      ++slow_vertices;
    } else if (x > 0.09f) {
      EXPECT_NEAR(mesh.colors[v][0], fast[0], 0.02f) << v;
      ++fast_vertices;
    }
  }
  EXPECT_GT(slow_vertices, 10);
  EXPECT_GT(fast_vertices, 10);
}

// Pictures -------------------------------------------------------------------------------------------------------

constexpr int kWidth = 160;
constexpr int kHeight = 120;

void Save(const Image& image, const std::string& name) {
  const std::filesystem::path folder = DUCTILE_RENDER_TEST_OUTPUT_DIR;
  std::filesystem::create_directories(folder);
  WritePng(folder / ("Surface_" + name + ".png"), image);
}

// The pixel (column, row) of world point `p` seen by `camera` at kWidth x kHeight (the renderer's projection:
// Vulkan clip space, image rows from the top).
std::array<int, 2> Project(const Camera& camera, const Vec3& p) {
  // Camera axes: forward f, right r = f x up, up u = r x f.
  Vec3 f{camera.target[0] - camera.eye[0], camera.target[1] - camera.eye[1], camera.target[2] - camera.eye[2]};
  const float fl = std::hypot(f[0], f[1], f[2]);
  for (float& c : f) c /= fl;
  Vec3 r{f[1] * camera.up[2] - f[2] * camera.up[1], f[2] * camera.up[0] - f[0] * camera.up[2],
         f[0] * camera.up[1] - f[1] * camera.up[0]};
  const float rl = std::hypot(r[0], r[1], r[2]);
  for (float& c : r) c /= rl;
  const Vec3 u{r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0]};
  const Vec3 d{p[0] - camera.eye[0], p[1] - camera.eye[1], p[2] - camera.eye[2]};
  const float depth = d[0] * f[0] + d[1] * f[1] + d[2] * f[2];
  const float t = std::tan(0.5f * camera.fov_y_degrees * 3.14159265f / 180.0f);
  const float aspect = static_cast<float>(kWidth) / static_cast<float>(kHeight);
  const float x = (d[0] * r[0] + d[1] * r[1] + d[2] * r[2]) / (depth * t * aspect);
  const float y = (d[0] * u[0] + d[1] * u[1] + d[2] * u[2]) / (depth * t);
  return {static_cast<int>(std::floor((x * 0.5f + 0.5f) * kWidth)),
          static_cast<int>(std::floor((0.5f - y * 0.5f) * kHeight))};
}

// The red material, lit or in a highlight, against the grey background.
bool Reddish(const Pixel& p) {
  return p[0] > 90 && p[0] > p[1] + 60 && p[0] > p[2] + 60;
}

using SurfacePictureTest = RendererFixture<kWidth, kHeight>;

// A one-particle-thick wall facing the camera: as beads the background shows through the gaps between each four
// neighbouring spheres; as a surface every gap is covered in the material's colour.
TEST_F(SurfacePictureTest, SurfaceClosesTheGapsBetweenBeads) {
  constexpr float kWall = 0.05f;  // spacing of this wall's particles [m]
  Snapshot snapshot;
  snapshot.material_names = {"rubber"};
  snapshot.material_rgba = {{0.85f, 0.12f, 0.1f, 1}};
  snapshot.materials.resize(1);
  snapshot.object_names = {"wall"};
  snapshot.particles.radius = 0.5f * kWall;
  for (int i = 0; i < 8; ++i)
    for (int k = 0; k < 8; ++k)
      snapshot.particles.position.push_back(
          {(static_cast<float>(i) - 3.5f) * kWall, 0, (static_cast<float>(k) - 3.5f) * kWall});
  const std::size_t n = snapshot.particles.position.size();
  snapshot.particles.material.assign(n, 0);
  snapshot.particles.object.assign(n, 0);
  Camera camera;
  camera.eye = {0, -1, 0};
  camera.target = {0, 0, 0};
  ViewOptions beads;
  beads.particle_style = ParticleStyle::kBeads;
  beads.show_domain = false;
  ViewOptions surface = beads;
  surface.particle_style = ParticleStyle::kSurface;
  RenderScene bead_scene = BuildRenderScene(snapshot, beads, camera);
  RenderScene surface_scene = BuildRenderScene(snapshot, surface, camera);
  bead_scene.grid.visible = surface_scene.grid.visible = false;
  const Image bead_image = renderer_->Render(bead_scene);
  const Image surface_image = renderer_->Render(surface_scene);
  Save(bead_image, "WallAsBeads");
  Save(surface_image, "WallAsSurface");
  // The gaps: the middles of the squares of four neighbouring particles, 0.71 spacings from each.
  int gaps = 0, bead_gaps_open = 0, surface_gaps_covered = 0;
  for (int i = 0; i < 7; ++i) {
    for (int k = 0; k < 7; ++k) {
      const auto [x, y] =
          Project(camera, {(static_cast<float>(i) - 3.0f) * kWall, 0, (static_cast<float>(k) - 3.0f) * kWall});
      ++gaps;
      if (!Reddish(At(bead_image, x, y))) ++bead_gaps_open;
      const Pixel covered = At(surface_image, x, y);
      if (Reddish(covered)) ++surface_gaps_covered;
      EXPECT_TRUE(Reddish(covered)) << i << " " << k << ": " << covered[0] << " " << covered[1] << " " << covered[2];
    }
  }
  EXPECT_EQ(bead_gaps_open, gaps);
  EXPECT_EQ(surface_gaps_covered, gaps);
  // Both cover the wall's particles themselves (but for the four corners, which the surface rounds off); outside the
  // wall both show the background.
  for (const Vec3& p : snapshot.particles.position) {
    if (std::abs(p[0]) > 3 * kWall && std::abs(p[2]) > 3 * kWall) continue;
    const auto [x, y] = Project(camera, p);
    EXPECT_TRUE(Reddish(At(bead_image, x, y)));
    const Pixel q = At(surface_image, x, y);
    EXPECT_TRUE(Reddish(q)) << p[0] << " " << p[2] << ": " << q[0] << " " << q[1] << " " << q[2] << " at " << x << ","
                            << y;
  }
  const auto [outside_x, outside_y] = Project(camera, {6 * kWall, 0, 0});
  EXPECT_FALSE(Reddish(At(surface_image, outside_x, outside_y)));
}

// Water in front of a green box: where the water is shallow along the line of sight the box shows through it
// (green), where it is deep much less; an opaque material of the same shape hides the box everywhere.
TEST_F(SurfacePictureTest, WaterBlendsWithWhatLiesBehindItLessWhereItIsDeeper) {
  constexpr float kDrop = 0.02f;  // spacing of these particles [m]
  auto snapshot_of = [&](MaterialModelDesc model) {
    Snapshot snapshot;
    snapshot.material_names = {"water"};
    snapshot.material_rgba = {{0.15f, 0.35f, 0.85f, 1}};
    SnapshotMaterial material;
    material.model = model;
    snapshot.materials = {material};
    snapshot.object_names = {"pool"};
    snapshot.particles.radius = 0.5f * kDrop;
    // Seen along +y: the left half 2 particles deep, the right half 14.
    for (int i = 0; i < 16; ++i)
      for (int k = 0; k < 10; ++k)
        for (int j = 0; j < (i < 8 ? 2 : 14); ++j)
          snapshot.particles.position.push_back({(static_cast<float>(i) - 7.5f) * kDrop, static_cast<float>(j) * kDrop,
                                                 (static_cast<float>(k) - 4.5f) * kDrop});
    const std::size_t n = snapshot.particles.position.size();
    snapshot.particles.material.assign(n, 0);
    snapshot.particles.object.assign(n, 0);
    SnapshotShape box;
    box.type = ShapeType::kBox;
    box.half_extents = {0.5f, 0.02f, 0.5f};
    box.position = {0, 0.6f, 0};
    box.rgba = {0.1f, 0.8f, 0.15f, 1};
    snapshot.shapes.push_back(box);
    return snapshot;
  };
  Camera camera;
  camera.eye = {0, -1, 0};
  camera.target = {0, 0, 0};
  ViewOptions options;
  options.show_domain = false;
  auto render = [&](MaterialModelDesc model, const std::string& name) {
    RenderScene scene = BuildRenderScene(snapshot_of(model), options, camera);
    scene.grid.visible = false;
    scene.lighting.shadows = false;
    const Image image = renderer_->Render(scene);
    Save(image, name);
    return image;
  };
  const Image water = render(MaterialModelDesc::kFluid, "WaterOverGreen");
  const Image solid = render(MaterialModelDesc::kFixedCorotated, "SolidOverGreen");
  const auto [shallow_x, shallow_y] = Project(camera, {-4 * kDrop, 0, 0});
  const auto [deep_x, deep_y] = Project(camera, {4 * kDrop, 0, 0});
  const Pixel shallow = At(water, shallow_x, shallow_y), deep = At(water, deep_x, deep_y);
  const Pixel shallow_solid = At(solid, shallow_x, shallow_y);
  // The box shows through shallow water: green leads; less of it through deep water, where the water's blue leads.
  EXPECT_GT(shallow[1], shallow[2]) << shallow[0] << " " << shallow[1] << " " << shallow[2];
  EXPECT_GT(shallow[1] - shallow[2], deep[1] - deep[2] + 40) << deep[0] << " " << deep[1] << " " << deep[2];
  EXPECT_GT(deep[2], deep[1]);
  // The water tints the box: bluer than the box alone would be; the opaque material hides it.
  EXPECT_GT(shallow[2], 60);
  EXPECT_GT(shallow_solid[2], shallow_solid[1]);
}

}  // namespace
}  // namespace ductile::render
