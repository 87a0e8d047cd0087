#include "geometry/triangle_mesh.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace ductile::geometry {
namespace {

const std::filesystem::path kMeshes = std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "meshes";

// The message of the std::runtime_error that `load` throws, or "" when it throws none.
std::string LoadError(const std::filesystem::path& file) {
  try {
    LoadObjMesh(file);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(TriangleMesh, LoadsAndTriangulatesQuads) {
  const TriangleMesh cube = LoadObjMesh(kMeshes / "cube.obj");
  EXPECT_EQ(cube.vertices.size(), 8u);
  EXPECT_EQ(cube.triangles.size(), 12u);
  EXPECT_EQ(cube.vertices[6], Eigen::Vector3d(0.5, 0.5, 0.5));
}

TEST(TriangleMesh, ClosedMeshesHaveNoOpenEdge) {
  for (const char* name : {"cube.obj", "tetrahedron.obj", "icosahedron.obj"}) {
    const std::optional<std::string> open = FindOpenEdge(LoadObjMesh(kMeshes / name));
    EXPECT_FALSE(open.has_value()) << name << ": " << open.value_or("");
  }
}

TEST(TriangleMesh, MergesRepeatedVerticesOfATriangleSoup) {
  const TriangleMesh soup = LoadObjMesh(kMeshes / "cube_soup.obj");
  EXPECT_EQ(soup.triangles.size(), 12u);
  EXPECT_FALSE(FindOpenEdge(soup).has_value());
  EXPECT_TRUE(Contains(soup, Eigen::Vector3d(0.1, -0.2, 0.3)));
}

TEST(TriangleMesh, OpenMeshNamesAnEdgeUsedOnce) {
  const std::optional<std::string> open = FindOpenEdge(LoadObjMesh(kMeshes / "open_cube.obj"));
  ASSERT_TRUE(open.has_value());
  // The missing top face leaves edges among vertices 5-8 (numbered from 1) with one face each.
  EXPECT_EQ(*open, "edge (5, 8) is used by 1 face(s)");
}

TEST(TriangleMesh, InconsistentOrientationIsNotClosed) {
  const std::optional<std::string> open = FindOpenEdge(LoadObjMesh(kMeshes / "flipped_cube.obj"));
  ASSERT_TRUE(open.has_value());
  EXPECT_NE(open->find("not consistently oriented"), std::string::npos) << *open;
}

TEST(TriangleMesh, NonManifoldEdgeAndDegenerateFaceAreReported) {
  TriangleMesh fan;
  fan.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}};
  fan.triangles = {{0, 1, 2}, {1, 0, 3}, {0, 1, 4}};
  EXPECT_EQ(FindOpenEdge(fan).value_or(""), "edge (1, 2) is used by 3 face(s)");
  fan.triangles = {{0, 1, 1}};
  EXPECT_EQ(FindOpenEdge(fan).value_or(""), "face 1 (1, 2, 2) repeats a vertex");
}

TEST(TriangleMesh, ContainsCube) {
  const TriangleMesh cube = LoadObjMesh(kMeshes / "cube.obj");
  EXPECT_TRUE(Contains(cube, Eigen::Vector3d(0, 0, 0)));
  EXPECT_TRUE(Contains(cube, Eigen::Vector3d(0.49, -0.49, 0.49)));
  EXPECT_TRUE(Contains(cube, Eigen::Vector3d(-0.3, 0.2, -0.45)));
  EXPECT_FALSE(Contains(cube, Eigen::Vector3d(0.51, 0, 0)));
  EXPECT_FALSE(Contains(cube, Eigen::Vector3d(0, 0, -0.6)));
  EXPECT_FALSE(Contains(cube, Eigen::Vector3d(2, 2, 2)));
  EXPECT_NEAR(WindingNumber(cube, Eigen::Vector3d(0.1, 0.2, 0.3)), 1.0, 1e-12);
  EXPECT_NEAR(WindingNumber(cube, Eigen::Vector3d(0.7, 0.2, 0.3)), 0.0, 1e-12);
}

TEST(TriangleMesh, ContainsIcosahedronAndInwardOrientation) {
  TriangleMesh ico = LoadObjMesh(kMeshes / "icosahedron.obj");
  // The inscribed sphere of a unit-circumradius icosahedron has radius ≈ 0.7947; the circumscribed one 1.
  for (const Eigen::Vector3d& d : {Eigen::Vector3d(1, 0, 0), Eigen::Vector3d(0.3, -0.5, 0.8).normalized()}) {
    EXPECT_TRUE(Contains(ico, 0.79 * d));
    EXPECT_FALSE(Contains(ico, 1.01 * d));
  }
  for (std::array<int, 3>& t : ico.triangles) std::swap(t[1], t[2]);
  EXPECT_NEAR(WindingNumber(ico, Eigen::Vector3d(0.1, 0, 0)), -1.0, 1e-12);
  EXPECT_TRUE(Contains(ico, Eigen::Vector3d(0.1, 0, 0)));
}

TEST(TriangleMesh, TransformAndBounds) {
  TriangleMesh tet = LoadObjMesh(kMeshes / "tetrahedron.obj");
  const Bounds before = AxisAlignedBounds(tet);
  EXPECT_EQ(before.min, Eigen::Vector3d(0, 0, 0));
  EXPECT_EQ(before.max, Eigen::Vector3d(1, 1, 1));
  // Scale 2, a quarter turn about z (x -> y), then lift by 3 m.
  const Eigen::Quaterniond quarter_turn(Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitZ()));
  Transform(tet, 2.0, quarter_turn, Eigen::Vector3d(0, 0, 3));
  EXPECT_TRUE(tet.vertices[1].isApprox(Eigen::Vector3d(0, 2, 3)));
  const Bounds after = AxisAlignedBounds(tet);
  EXPECT_TRUE(after.min.isApprox(Eigen::Vector3d(-2, 0, 3)));
  EXPECT_TRUE(after.max.isApprox(Eigen::Vector3d(0, 2, 5)));
  EXPECT_TRUE(Contains(tet, Eigen::Vector3d(-0.2, 0.2, 3.2)));
  EXPECT_FALSE(Contains(tet, Eigen::Vector3d(0.2, 0.2, 3.2)));
}

TEST(TriangleMesh, LoadErrorsNameTheFile) {
  const std::string missing = LoadError(kMeshes / "no_such_mesh.obj");
  EXPECT_NE(missing.find("no_such_mesh.obj' not found"), std::string::npos) << missing;
  const std::string garbage = LoadError(kMeshes / "garbage.obj");
  EXPECT_NE(garbage.find("garbage.obj' has no triangles"), std::string::npos) << garbage;
  const std::string bad_index = LoadError(kMeshes / "bad_index.obj");
  EXPECT_NE(bad_index.find("bad_index.obj' has a face that refers to vertex"), std::string::npos) << bad_index;
  const std::string folder = LoadError(kMeshes);
  EXPECT_NE(folder.find("is not a regular file"), std::string::npos) << folder;
}

}  // namespace
}  // namespace ductile::geometry
