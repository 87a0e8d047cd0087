// CompileModel for cloth (model/compile_cloth.cpp): a sheet's vertices, masses, triangles with their rest shapes,
// and pinned vertex groups.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "core/small_math.h"
#include "ductile/model.h"
#include "ductile/model_checks.h"

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

const std::string kMeshes = std::string(DUCTILE_TEST_DATA_DIR) + "/meshes/";

// Every triangle's rest shape: F = [d₁ d₂] D̂⁻¹ of its rest edges has orthonormal columns (F is a rotation at rest),
// and its volume is its area times the thickness (2 mm). The positions are floats: 1e-5 of a tilted 1.5 cm edge.
void ExpectRestShapesAtRest(const Model& m) {
  for (const mpm::ClothElement& e : m.cloth_elements) {
    const Vec3d x0 = At(m, e.vertex[0]);
    const Vec3d d1 = At(m, e.vertex[1]) - x0, d2 = At(m, e.vertex[2]) - x0;
    const Vec3d f1 = d1 * double(e.rest_inverse[0]);
    const Vec3d f2 = d1 * double(e.rest_inverse[1]) + d2 * double(e.rest_inverse[2]);
    EXPECT_NEAR(Norm(f1), 1.0, 1e-5);
    EXPECT_NEAR(Norm(f2), 1.0, 1e-5);
    EXPECT_NEAR(Dot(f1, f2), 0.0, 1e-5);
    EXPECT_NEAR(e.volume, 0.5 * Norm(Cross(d1, d2)) * 0.002, 1e-9);
  }
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
  ExpectRestShapesAtRest(m);
}

// tests/data/meshes/cloth_square.obj is the triangles of an 11 × 11 sheet 1 cm apart written as a soup (600 vertex
// lines, 200 faces). Scaled by 1.5 and tilted 30° about y: the vertices at the same position are welded into 121, in
// the order of their first vertex line; the mass is ρ·t·A = 1500 · 0.002 · 0.15² = 0.0675 kg, each vertex a third
// of its triangles'; the rest shapes are the tilted triangles' own.
TEST(CompileCloth, MeshVerticesAreWeldedInTheFilesOrder) {
  const Model m = CompileCloth("  square: {material: cotton, shape: {type: mesh, file: " + kMeshes +
                               "cloth_square.obj, scale: 1.5}, pose: {position: [0, 0, 0.5], rpy_deg: [0, 30, 0]}}\n");
  ASSERT_EQ(m.num_particles, 121);
  ASSERT_EQ(m.cloth_elements.size(), 200u);
  EXPECT_NEAR(m.objects[0].mass, 0.0675, 1e-7);
  double volume = 0;
  for (const mpm::ClothElement& e : m.cloth_elements) volume += e.volume;
  EXPECT_NEAR(volume, 0.002 * 0.15 * 0.15, 1e-10);
  // The first face is the −x, −y square's lower triangle (0, 1, 2 welded), the second adds its fourth corner (3);
  // the third face starts the next square along x, whose new corners are 4 and 5.
  const double c = std::cos(M_PI / 6), s = std::sin(M_PI / 6);
  const auto world = [&](double x, double y) { return Vec3d{c * x, y, 0.5 - s * x}; };  // R_y(30°) (x, y, 0)
  const std::array<std::array<double, 2>, 6> expected{
      {{-0.075, -0.075}, {-0.06, -0.075}, {-0.06, -0.06}, {-0.075, -0.06}, {-0.045, -0.075}, {-0.045, -0.06}}};
  for (int v = 0; v < 6; ++v) EXPECT_LT(Norm(At(m, v) - world(expected[v][0], expected[v][1])), 1e-6) << "vertex " << v;
  const double triangle = 1500 * 0.002 * 0.5 * 0.015 * 0.015 / 3;  // a third of one triangle's mass
  EXPECT_NEAR(m.mass[0], 2 * triangle, 1e-8);                      // the −x, −y corner, as on the sheet
  EXPECT_NEAR(m.mass[2], 6 * triangle, 1e-8);                      // inner
  ExpectRestShapesAtRest(m);
}

// A closed, curved surface is a cloth too: the icosahedron of tests/data/meshes (12 vertices, 20 faces, circumradius
// 1, edge 1.0514622), scaled by 0.1, is at rest as it is, each face in its own plane, with the mass ρ·t·20·(√3/4)·a².
TEST(CompileCloth, ClosedCurvedMeshIsAtRestAsGiven) {
  const Model m = CompileCloth("  ball: {material: cotton, shape: {type: mesh, file: " + kMeshes +
                               "icosahedron.obj, scale: 0.1}, pose: {position: [0, 0, 0.5]}}\n");
  ASSERT_EQ(m.num_particles, 12);
  ASSERT_EQ(m.cloth_elements.size(), 20u);
  const double a = 0.1 * 1.0514622;
  EXPECT_NEAR(m.objects[0].mass, 1500 * 0.002 * 20 * std::sqrt(3.0) / 4 * a * a, 1e-6);
  ExpectRestShapesAtRest(m);
}

// Pins of a mesh cloth: `vertices` number the welded vertices in the file's order, `box` selects by position.
TEST(CompileCloth, MeshPinsSelectWeldedVertices) {
  const Model m = CompileCloth(
      "  square:\n"
      "    material: cotton\n"
      "    shape: {type: mesh, file: " +
      kMeshes +
      "cloth_square.obj}\n"
      "    pose: {position: [0, 0, 0.5]}\n"
      "    pins:\n"
      "      two: {vertices: [0, 4]}\n"
      "      far_edge: {box: {min: [0.045, -0.1, 0.4], max: [0.1, 0.1, 0.6]}}\n");
  ASSERT_EQ(m.pin_groups.size(), 2u);
  EXPECT_EQ(m.pin_groups[0].particles, (std::vector<std::int32_t>{0, 4}));
  ASSERT_EQ(m.pin_groups[1].particles.size(), 11u);  // the x = 0.05 column
  for (const std::int32_t v : m.pin_groups[1].particles) EXPECT_NEAR(At(m, v)[0], 0.05, 1e-6);
}

// A cloth whose median edge is longer than h draws a warning that names it: the sheet of 0.1 m spacing and the
// square scaled to 5 cm spacing do on h = 2 cm; the square at 1 cm does not.
TEST(CompileCloth, CoarseClothsDrawASpacingWarning) {
  const Model m = CompileCloth(
      "  towel: {material: cotton, shape: {type: sheet, width: 0.4, length: 0.2, vertices: 5}, "
      "pose: {position: [0, 0, 0.2]}}\n"
      "  fine: {material: cotton, shape: {type: mesh, file: " +
      kMeshes +
      "cloth_square.obj}, pose: {position: [0, 0, 0.5]}}\n"
      "  coarse: {material: cotton, shape: {type: mesh, file: " +
      kMeshes + "cloth_square.obj, scale: 5}, pose: {position: [0, 0, 0.8]}}\n");
  const std::vector<std::string> warnings = ClothSpacingWarnings(m);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("cloth object 'towel' has a median edge length of 0.1 m, more than the grid spacing "
                             "h = 0.02 m"),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[1].find("cloth object 'coarse' has a median edge length of 0.05 m"), std::string::npos)
      << warnings[1];
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

// The shipped T-shirt (assets/cloth/tshirt.obj through scenes/tshirt_drop.yaml) is a cloth of the size of Yu et al.
// 2025's (Table I: 12,160 particles, vertices and faces together): within 20% of 4,000 vertices and 8,000
// triangles, 0.82 m across the sleeves and 0.65 m long, lying flat (5 mm between its layers), its edges short enough
// for the scene's grid (no spacing warning).
TEST(CompileCloth, ShippedTShirtLoadsAsCloth) {
  const Model m = CompileModel(LoadScene(std::filesystem::path(DUCTILE_SOURCE_DIR) / "scenes" / "tshirt_drop.yaml"));
  ASSERT_EQ(m.objects.size(), 1u);
  EXPECT_NEAR(m.num_particles, 4000, 800);
  EXPECT_NEAR(static_cast<double>(m.cloth_elements.size()), 8000, 1600);
  EXPECT_TRUE(ClothSpacingWarnings(m).empty());
  std::array<float, 3> lo = m.x0[0], hi = m.x0[0];
  for (const std::array<float, 3>& x : m.x0)
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], x[a]);
      hi[a] = std::max(hi[a], x[a]);
    }
  EXPECT_NEAR(hi[0] - lo[0], 0.82, 0.03);
  EXPECT_NEAR(hi[1] - lo[1], 0.65, 0.01);
  EXPECT_NEAR(hi[2] - lo[2], 0.005, 1e-6);
}

}  // namespace
}  // namespace ductile
