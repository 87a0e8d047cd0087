// CompileModel for cloth (model/compile_cloth.cpp): a sheet's vertices, masses, triangles with their rest shapes,
// and pinned vertex groups.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/small_math.h"
#include "ductile/model.h"

namespace ductile {
namespace {

Model CompileCloth(const std::string& object) {
  const std::string yaml =
      "grid: {h: 0.02, domain: {min: [-0.5, -0.5, 0.0], max: [0.5, 0.5, 1.0]}}\n"
      "materials:\n"
      "  cotton: {model: cloth, density: 1500, youngs_modulus: 1.0e5, poisson_ratio: 0.3, thickness: 0.002}\n"
      "objects:\n" +
      object;
  return CompileModel(LoadSceneFromString(yaml, "cloth.yaml"));
}

Vec3d At(const Model& m, int i) {
  return {m.x0[i][0], m.x0[i][1], m.x0[i][2]};
}

// A 0.4 × 0.2 m sheet with 5 vertices along x: spacing 0.1 m, so 3 rows along y; 2·4·2 = 16 triangles; its mass
// ρ·t·W·L = 1500 · 0.002 · 0.08 = 0.24 kg, shared by the vertices a third of each triangle each.
TEST(CompileCloth, SheetVerticesMassesAndTriangles) {
  const Model m = CompileCloth(
      "  towel: {material: cotton, shape: {type: sheet, width: 0.4, length: 0.2, vertices: 5}, "
      "pose: {position: [0, 0, 0.5], rpy_deg: [90, 0, 0]}}\n");
  ASSERT_EQ(m.num_particles, 15);
  ASSERT_EQ(m.cloth_elements.size(), 16u);
  EXPECT_NEAR(m.objects[0].mass, 0.24, 1e-6);
  // Corner vertices touch one or two triangles, inner ones six: masses in proportion.
  const double triangle = 1500 * 0.002 * 0.005 / 3;  // a third of one triangle's mass (area 0.005 m²)
  EXPECT_NEAR(m.mass[0], 2 * triangle, 1e-7);        // the −x, −y corner: two triangles (the diagonal runs from it)
  EXPECT_NEAR(m.mass[4], 1 * triangle, 1e-7);        // the +x, −y corner: one
  EXPECT_NEAR(m.mass[6], 6 * triangle, 1e-7);        // inner
  // Turned 90° about x: the sheet stands in the x-z plane; vertex 5 (row 1) is 0.1 m above vertex 0.
  EXPECT_NEAR(At(m, 5)[2] - At(m, 0)[2], 0.1, 1e-6);
  EXPECT_NEAR(At(m, 5)[1] - At(m, 0)[1], 0.0, 1e-6);
  // Every triangle's rest shape: F = [d₁ d₂] D̂⁻¹ of its rest edges has orthonormal columns (F is a rotation at rest),
  // and its volume is its area times the thickness.
  for (const mpm::ClothElement& e : m.cloth_elements) {
    const Vec3d x0 = At(m, e.vertex[0]);
    const Vec3d d1 = At(m, e.vertex[1]) - x0, d2 = At(m, e.vertex[2]) - x0;
    const Vec3d f1 = d1 * double(e.rest_inverse[0]);
    const Vec3d f2 = d1 * double(e.rest_inverse[1]) + d2 * double(e.rest_inverse[2]);
    EXPECT_NEAR(Norm(f1), 1.0, 1e-6);
    EXPECT_NEAR(Norm(f2), 1.0, 1e-6);
    EXPECT_NEAR(Dot(f1, f2), 0.0, 1e-6);
    EXPECT_NEAR(e.volume, 0.5 * Norm(Cross(d1, d2)) * 0.002, 1e-9);
  }
}

TEST(CompileCloth, PinGroupsSelectTheirVertices) {
  const Model m = CompileCloth(
      "  towel:\n"
      "    material: cotton\n"
      "    shape: {type: sheet, width: 0.4, length: 0.2, vertices: 5}\n"
      "    pose: {position: [0, 0, 0.5]}\n"
      "    pins:\n"
      "      all_corners: {corners: true}\n"
      "      middle: {vertices: [7]}\n"
      "      left_edge: {box: {min: [-0.25, -0.2, 0.4], max: [-0.15, 0.2, 0.6]}, release_time: 2,\n"
      "                  keyframes: [{time: 1, offset: [0, 0, 0.1]}]}\n");
  ASSERT_EQ(m.pin_groups.size(), 3u);
  EXPECT_EQ(m.pin_groups[0].name, "towel/all_corners");
  EXPECT_EQ(m.pin_groups[0].particles, (std::vector<std::int32_t>{0, 4, 10, 14}));
  EXPECT_EQ(m.pin_groups[1].particles, (std::vector<std::int32_t>{7}));
  EXPECT_EQ(m.pin_groups[2].particles, (std::vector<std::int32_t>{0, 5, 10}));  // x = −0.2
  // The offset ramps to its keyframe and holds; the group lets go at its release time.
  std::array<double, 3> offset{}, velocity{};
  m.pin_groups[2].Offset(0.5, offset, velocity);
  EXPECT_NEAR(offset[2], 0.05, 1e-12);
  EXPECT_NEAR(velocity[2], 0.1, 1e-12);
  m.pin_groups[2].Offset(1.5, offset, velocity);
  EXPECT_NEAR(offset[2], 0.1, 1e-12);
  EXPECT_EQ(velocity[2], 0.0);
  EXPECT_TRUE(m.pin_groups[2].Holds(1.999));
  EXPECT_FALSE(m.pin_groups[2].Holds(2.0));
  EXPECT_TRUE(m.pin_groups[0].Holds(1e9));
}

// A pinned towel whose pins are `pins`: compiling it fails with `message`.
void ExpectPinsRefused(const std::string& pins, const std::string& message) {
  try {
    CompileCloth(
        "  towel:\n"
        "    material: cotton\n"
        "    shape: {type: sheet, width: 0.4, length: 0.2, vertices: 5}\n"
        "    pose: {position: [0, 0, 0.5]}\n"
        "    pins: " +
        pins + "\n");
    ADD_FAILURE() << "expected SceneError for " << pins;
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(CompileCloth, PinsThatSelectNothingAreRefused) {
  ExpectPinsRefused("{far: {vertices: [3, 15]}}",
                    "pin group 'far' of object 'towel': vertex 15 does not exist (the cloth has 15, numbered from 0)");
  ExpectPinsRefused("{empty: {box: {min: [0.3, 0.3, 0.0], max: [0.4, 0.4, 0.1]}}}",
                    "pin group 'empty' of object 'towel': no vertex lies inside its box");
}

}  // namespace
}  // namespace ductile
