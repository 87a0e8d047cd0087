// Tetrahedral meshes: the check and orientation, the boundary surface, the Gmsh reader (a hand-written cube and
// broken files), and the grid, signed-distance and triangle-mesh tetrahedralisers (volumes, orientation, a closed
// outward surface, quality).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numbers>
#include <string>
#include <utility>

#include <Eigen/Geometry>

#include "fem/tet_mesh.h"
#include "fem/tetrahedralise.h"
#include "geometry/triangle_mesh.h"

namespace ductile::fem {
namespace {

using Eigen::Vector3d;

const std::filesystem::path kData = std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "fem";

// Writes `text` to a file named `name` in the test's temporary folder and returns its path.
std::filesystem::path WriteTemporary(const std::string& name, const std::string& text) {
  std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

double MinTetVolume(const TetMesh& mesh) {
  double least = std::numeric_limits<double>::infinity();
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) least = std::min(least, TetVolume(mesh, static_cast<int>(t)));
  return least;
}

double MinQuality(const TetMesh& mesh) {
  double least = std::numeric_limits<double>::infinity();
  for (const std::array<int, 4>& c : mesh.tets)
    least =
        std::min(least, TetQuality(mesh.vertices[c[0]], mesh.vertices[c[1]], mesh.vertices[c[2]], mesh.vertices[c[3]]));
  return least;
}

// The smallest dihedral angle [deg] over all tets: at the edge shared by the faces opposite corners k and l, π
// minus the angle between those faces' outward normals.
double MinDihedralDegrees(const TetMesh& mesh) {
  double least = 180;
  for (const std::array<int, 4>& c : mesh.tets) {
    std::array<Vector3d, 4> normal;  // outward normal of the face opposite corner k
    for (int k = 0; k < 4; ++k) {
      const Vector3d& a = mesh.vertices[c[(k + 1) % 4]];
      const Vector3d& b = mesh.vertices[c[(k + 2) % 4]];
      const Vector3d& d = mesh.vertices[c[(k + 3) % 4]];
      Vector3d n = (b - a).cross(d - a).normalized();
      if (n.dot(mesh.vertices[c[k]] - a) > 0) n = -n;
      normal[k] = n;
    }
    for (int k = 0; k < 4; ++k)
      for (int l = k + 1; l < 4; ++l)
        least =
            std::min(least, 180 - std::acos(std::clamp(normal[k].dot(normal[l]), -1.0, 1.0)) * 180 / std::numbers::pi);
  }
  return least;
}

// Volume enclosed by the surface triangles by the divergence theorem: Σ a·(b × c) / 6, positive for outward ones.
double EnclosedVolume(const TetMesh& mesh, const TetSurface& surface) {
  double sum = 0;
  for (const std::array<int, 3>& f : surface.triangles)
    sum += mesh.vertices[f[0]].dot(mesh.vertices[f[1]].cross(mesh.vertices[f[2]])) / 6;
  return sum;
}

// Checks that every edge of the surface triangles is run once in each direction (closed and consistently
// oriented) and that the edge and vertex lists are those of the triangles.
void ExpectClosedSurface(const TetSurface& surface) {
  std::map<std::pair<int, int>, int> directed;
  for (const std::array<int, 3>& f : surface.triangles)
    for (int k = 0; k < 3; ++k) ++directed[{f[k], f[(k + 1) % 3]}];
  for (const auto& [edge, count] : directed) {
    EXPECT_EQ(count, 1) << edge.first << "-" << edge.second;
    EXPECT_EQ(directed.count({edge.second, edge.first}), 1u) << edge.first << "-" << edge.second;
  }
  EXPECT_EQ(surface.edges.size(), directed.size() / 2);
  EXPECT_TRUE(std::is_sorted(surface.edges.begin(), surface.edges.end()));
  for (const std::array<int, 2>& e : surface.edges) EXPECT_LT(e[0], e[1]);
  EXPECT_TRUE(std::is_sorted(surface.vertices.begin(), surface.vertices.end()));
}

// The unit cube [0, 1]³ as 12 outward triangles, rotated by `rotation` and scaled by `side`.
std::pair<std::vector<Vector3d>, std::vector<std::array<int, 3>>> CubeTriangles(double side,
                                                                                const Eigen::Matrix3d& rotation) {
  std::vector<Vector3d> vertices(8);
  for (int i = 0; i < 8; ++i) vertices[i] = side * rotation * Vector3d(i & 1, (i >> 1) & 1, (i >> 2) & 1);
  const std::vector<std::array<int, 3>> triangles = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                                     {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  return {vertices, triangles};
}

TEST(FemTetMeshGmsh, ReadsTheHandWrittenCube) {
  const TetMeshResult read = ReadGmsh(kData / "unit_cube.msh");
  ASSERT_TRUE(read.ok()) << read.error;
  EXPECT_EQ(read.mesh.vertices.size(), 8u);
  EXPECT_EQ(read.mesh.tets.size(), 5u);
  EXPECT_NEAR(TotalVolume(read.mesh), 1.0, 1e-12);
  EXPECT_GT(MinTetVolume(read.mesh), 0.1);
  // Sparse tags 1, 20, 30, ... are numbered in file order; the curve block's parametric coordinate is skipped.
  EXPECT_EQ(read.mesh.vertices[1], Vector3d(1, 0, 0));
  EXPECT_EQ(read.mesh.vertices[2], Vector3d(1, 1, 0));
  EXPECT_EQ(read.mesh.vertices[6], Vector3d(1, 1, 1));
  const TetSurface surface = BuildSurface(read.mesh);
  EXPECT_EQ(surface.triangles.size(), 12u);
  EXPECT_EQ(surface.edges.size(), 18u);
  EXPECT_EQ(surface.vertices.size(), 8u);
  ExpectClosedSurface(surface);
  EXPECT_NEAR(EnclosedVolume(read.mesh, surface), 1.0, 1e-12);
}

TEST(FemTetMeshGmsh, NamesTheFileAndLineOfAMalformedNumber) {
  const TetMeshResult read = ReadGmsh(kData / "malformed.msh");
  EXPECT_FALSE(read.ok());
  EXPECT_NE(read.error.find("malformed.msh:24: "), std::string::npos) << read.error;
  EXPECT_NE(read.error.find("'zero'"), std::string::npos) << read.error;
}

TEST(FemTetMeshGmsh, NamesAMissingFile) {
  const std::filesystem::path path = kData / "no_such_mesh.msh";
  const TetMeshResult read = ReadGmsh(path);
  EXPECT_FALSE(read.ok());
  EXPECT_NE(read.error.find(path.string()), std::string::npos) << read.error;
  EXPECT_NE(read.error.find("no such file"), std::string::npos) << read.error;
}

TEST(FemTetMeshGmsh, RefusesBinaryFiles) {
  const TetMeshResult read =
      ReadGmsh(WriteTemporary("binary.msh", std::string("$MeshFormat\n4.1 1 8\n\x01\x00\x00\x00\n", 23)));
  EXPECT_NE(read.error.find("binary.msh:2: binary .msh is not supported, save as ASCII"), std::string::npos)
      << read.error;
}

TEST(FemTetMeshGmsh, RefusesOtherVersions) {
  const TetMeshResult read = ReadGmsh(WriteTemporary("v22.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"));
  EXPECT_NE(read.error.find("v22.msh:2: MSH version 2.2 is not supported"), std::string::npos) << read.error;
}

constexpr const char* kOneTetHeader =
    "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
    "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n";

TEST(FemTetMeshGmsh, ReportsATruncatedFile) {
  const std::string whole = kOneTetHeader;
  const TetMeshResult read = ReadGmsh(WriteTemporary("truncated.msh", whole.substr(0, whole.find("0 0 1\n"))));
  EXPECT_NE(read.error.find("truncated.msh:13: unexpected end of file, expected 3 node coordinates"), std::string::npos)
      << read.error;
}

TEST(FemTetMeshGmsh, ReportsATetOnAMissingNode) {
  const TetMeshResult read = ReadGmsh(WriteTemporary(
      "missing_node.msh", std::string(kOneTetHeader) + "$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 99\n$EndElements\n"));
  EXPECT_NE(read.error.find("missing_node.msh:19: tetrahedron 1 refers to node 99"), std::string::npos) << read.error;
}

TEST(FemTetMeshGmsh, ReportsAFileWithoutTetrahedra) {
  const TetMeshResult read = ReadGmsh(WriteTemporary(
      "triangles_only.msh", std::string(kOneTetHeader) + "$Elements\n1 1 1 1\n2 1 2 1\n1 1 2 3\n$EndElements\n"));
  EXPECT_NE(read.error.find("triangles_only.msh: no tetrahedra"), std::string::npos) << read.error;
}

TEST(FemTetMeshGmsh, ReadsVersion40AndOrientsItsTets) {
  const TetMeshResult read = ReadGmsh(WriteTemporary(
      "v40.msh",
      "$MeshFormat\n4 0 8\n$EndMeshFormat\n$Nodes\n1 4\n1 3 0 4\n7 0 0 0\n8 1 0 0\n9 0 1 0\n10 0 0 1\n$EndNodes\n"
      "$Elements\n1 1\n1 3 4 1\n1 7 9 8 10\n$EndElements\n"));
  ASSERT_TRUE(read.ok()) << read.error;
  ASSERT_EQ(read.mesh.tets.size(), 1u);
  EXPECT_NEAR(TetVolume(read.mesh, 0), 1.0 / 6, 1e-15);
}

TEST(FemTetMeshCheck, OrientsNegativeTetsAndCountsUnreferencedVertices) {
  TetMesh mesh;
  mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}, {5, 5, 5}};
  mesh.tets = {{0, 2, 1, 3}, {1, 2, 3, 4}};
  const TetMeshCheck check = CheckAndOrient(mesh);
  EXPECT_EQ(check.error, "");
  EXPECT_EQ(check.reoriented_tets, 1);
  EXPECT_EQ(check.unreferenced_vertices, 1);
  EXPECT_GT(MinTetVolume(mesh), 0);
  RemoveUnreferencedVertices(mesh);
  EXPECT_EQ(mesh.vertices.size(), 5u);
}

TEST(FemTetMeshCheck, NamesADegenerateTet) {
  TetMesh mesh;
  mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}};
  mesh.tets = {{0, 1, 2, 3}, {0, 1, 2, 4}};
  EXPECT_EQ(CheckAndOrient(mesh).error.rfind("tet 1 (0, 1, 2, 4) is degenerate", 0), 0u);
}

TEST(FemTetMeshCheck, NamesAnIndexOutOfRange) {
  TetMesh mesh;
  mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  mesh.tets = {{0, 1, 2, 4}};
  EXPECT_EQ(CheckAndOrient(mesh).error, "tet 0 (0, 1, 2, 4) refers to vertex 4, but the mesh has 4 vertices");
}

TEST(FemTetMeshCheck, RefusesNonManifoldAndOverlappingTets) {
  TetMesh mesh;
  mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, -1}, {0.2, 0.2, 2}};
  mesh.tets = {{0, 1, 2, 3}, {0, 2, 1, 4}, {0, 1, 2, 5}};
  EXPECT_EQ(CheckAndOrient(mesh).error.rfind("face (0, 1, 2) is shared by 3 tets (0, 1, 2)", 0), 0u);
  mesh.tets = {{0, 1, 2, 3}, {0, 1, 2, 5}};
  EXPECT_EQ(CheckAndOrient(mesh).error, "face (0, 1, 2) has tets 0 and 1 on the same side: they overlap");
}

TEST(FemTetMeshBox, FillsTheBoxWithPositiveTetsAndAClosedOutwardSurface) {
  const Vector3d half(0.3, 0.1, 0.05);
  const TetMesh mesh = TetrahedraliseBox(half, 0.04);
  // Cells: ⌈0.6/0.04⌉ = 15, ⌈0.2/0.04⌉ = 5, ⌈0.1/0.04⌉ = 3.
  EXPECT_EQ(mesh.tets.size(), 6u * 15 * 5 * 3);
  EXPECT_EQ(mesh.vertices.size(), 16u * 6 * 4);
  const double volume = 8 * half.prod();
  EXPECT_NEAR(TotalVolume(mesh), volume, 1e-12 * volume);
  EXPECT_GT(MinTetVolume(mesh), 0);
  TetMesh checked = mesh;
  const TetMeshCheck check = CheckAndOrient(checked);
  EXPECT_EQ(check.error, "");
  EXPECT_EQ(check.reoriented_tets, 0);
  const TetSurface surface = BuildSurface(mesh);
  ExpectClosedSurface(surface);
  EXPECT_EQ(surface.triangles.size(), 4u * (15 * 5 + 5 * 3 + 15 * 3));
  EXPECT_EQ(surface.vertices.size(), mesh.vertices.size() - 112u);  // all but the 14 x 4 x 2 interior nodes
  EXPECT_NEAR(EnclosedVolume(mesh, surface), volume, 1e-12 * volume);
}

TEST(FemTetMeshSheet, HasOneElementThroughItsThickness) {
  const TetMesh mesh = TetrahedraliseSheet(0.4, 0.2, 0.005, 0.05);
  EXPECT_EQ(mesh.tets.size(), 6u * 8 * 4);
  EXPECT_NEAR(TotalVolume(mesh), 0.4 * 0.2 * 0.005, 1e-15);
  EXPECT_GT(MinTetVolume(mesh), 0);
  for (const Vector3d& x : mesh.vertices) EXPECT_NEAR(std::abs(x.z()), 0.0025, 1e-15);
  for (const std::array<int, 4>& tet : mesh.tets) {  // every tet spans the thickness
    int top = 0;
    for (const int v : tet) top += mesh.vertices[v].z() > 0;
    EXPECT_TRUE(top >= 1 && top <= 3);
  }
  ExpectClosedSurface(BuildSurface(mesh));
}

TEST(FemTetMeshSdf, MeshesASphereToItsVolumeWithBoundedQuality) {
  const double r = 0.1;
  const TetMesh mesh = TetrahedraliseSphere(r, 0.02);
  const double exact = 4.0 / 3.0 * std::numbers::pi * r * r * r;
  EXPECT_NEAR(TotalVolume(mesh), exact, 0.05 * exact);
  EXPECT_GE(MinQuality(mesh), 0.15);  // the snapping's threshold: every tet positive and not flat
  EXPECT_GT(MinDihedralDegrees(mesh), 7.0);
  TetMesh checked = mesh;
  EXPECT_EQ(CheckAndOrient(checked).error, "");
  EXPECT_EQ(checked.tets, mesh.tets);  // nothing reoriented
  const TetSurface surface = BuildSurface(mesh);
  ExpectClosedSurface(surface);
  EXPECT_NEAR(EnclosedVolume(mesh, surface), TotalVolume(mesh), 1e-12);
  // Most of the boundary lies on the sphere, all of it within h/2.
  int on_sphere = 0;
  for (const int v : surface.vertices) {
    on_sphere += std::abs(mesh.vertices[v].norm() - r) < 1e-9;
    EXPECT_LT(std::abs(mesh.vertices[v].norm() - r), 0.5 * 0.02);
  }
  EXPECT_GT(on_sphere, 2 * static_cast<int>(surface.vertices.size()) / 3);
}

TEST(FemTetMeshSdf, MeshesACylinderAndACapsule) {
  const double r = 0.05, half_length = 0.1;
  const TetMesh cylinder = TetrahedraliseCylinder(r, half_length, 0.01);
  const double cylinder_volume = std::numbers::pi * r * r * 2 * half_length;
  EXPECT_NEAR(TotalVolume(cylinder), cylinder_volume, 0.05 * cylinder_volume);
  EXPECT_GE(MinQuality(cylinder), 0.15);
  for (const Vector3d& x : cylinder.vertices) EXPECT_LE(std::abs(x.z()), half_length + 0.5 * 0.01);
  const TetMesh capsule = TetrahedraliseCapsule(r, half_length, 0.01);
  const double capsule_volume = cylinder_volume + 4.0 / 3.0 * std::numbers::pi * r * r * r;
  EXPECT_NEAR(TotalVolume(capsule), capsule_volume, 0.05 * capsule_volume);
  EXPECT_GE(MinQuality(capsule), 0.15);
}

TEST(FemTetMeshSdf, RefusesBadSizes) {
  EXPECT_THROW(TetrahedraliseSphere(0.1, 0), std::invalid_argument);
  EXPECT_THROW(TetrahedraliseSphere(-0.1, 0.01), std::invalid_argument);
  EXPECT_THROW(TetrahedraliseBox(Vector3d(1, 1, 1), 1e-4), std::invalid_argument);  // 2e4³ cells
}

TEST(FemTetMeshTriangleMesh, FillsARotatedClosedCubeToItsVolume) {
  const double side = 0.1;
  const Eigen::Matrix3d rotation = Eigen::AngleAxisd(0.4, Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  const auto [vertices, triangles] = CubeTriangles(side, rotation);
  const TetMeshResult result = TetrahedraliseTriangleMesh(geometry::TriangleMesh{vertices, triangles}, side / 8);
  ASSERT_TRUE(result.ok()) << result.error;
  const double volume = side * side * side;
  EXPECT_NEAR(TotalVolume(result.mesh), volume, 0.05 * volume);
  EXPECT_GE(MinQuality(result.mesh), 0.15);
  ExpectClosedSurface(BuildSurface(result.mesh));
  // Every vertex is within h of the cube (kept tets reach out by up to h, the snapping pulls them in).
  for (const Vector3d& x : result.mesh.vertices) {
    const Vector3d local = rotation.transpose() * x / side;
    EXPECT_LT(local.maxCoeff(), 1 + 1.0 / 8) << local.transpose();
    EXPECT_GT(local.minCoeff(), -1.0 / 8) << local.transpose();
  }
}

TEST(FemTetMeshTriangleMesh, RefusesAnOpenOrInconsistentMesh) {
  auto [vertices, triangles] = CubeTriangles(1, Eigen::Matrix3d::Identity());
  std::vector<std::array<int, 3>> open = triangles;
  open.pop_back();
  const TetMeshResult refused = TetrahedraliseTriangleMesh(geometry::TriangleMesh{vertices, open}, 0.2);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.error.find("is used by 1 face(s)"), std::string::npos) << refused.error;
  std::swap(triangles[0][1], triangles[0][2]);
  EXPECT_NE(TetrahedraliseTriangleMesh(geometry::TriangleMesh{vertices, triangles}, 0.2)
                .error.find("not consistently oriented"),
            std::string::npos);
}

}  // namespace
}  // namespace ductile::fem
