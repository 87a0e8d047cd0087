// LoadMesh: OBJ through tinyobjloader and other formats through Assimp give the same solid; the mass properties
// of a mesh (signed tetrahedra) match the closed form of the corner tetrahedron and of a box.
#include <gtest/gtest.h>

#include <filesystem>

#include "geometry/mesh_import.h"
#include "model/compile_rigid.h"

namespace ductile {
namespace {

const std::filesystem::path kMeshes = std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "urdf/ductile_test_robot/meshes";

double Volume(const geometry::TriangleMesh& m) {
  double v = 0;
  for (const auto& t : m.triangles) v += m.vertices[t[0]].dot(m.vertices[t[1]].cross(m.vertices[t[2]])) / 6;
  return v;
}

TEST(MeshImport, StlThroughAssimpEqualsTheObj) {
  const geometry::TriangleMesh obj = geometry::LoadMesh(kMeshes / "tetra.obj");
  const geometry::TriangleMesh stl = geometry::LoadMesh(kMeshes / "tetra.stl");
  EXPECT_EQ(stl.triangles.size(), 4u);
  EXPECT_EQ(stl.vertices.size(), 4u);  // coincident STL corners joined
  EXPECT_NEAR(Volume(stl), 1.0 / 6.0, 1e-12);
  EXPECT_NEAR(Volume(obj), Volume(stl), 1e-12);
}

TEST(MeshImport, MissingOrUnreadableFilesThrowNamingTheFile) {
  try {
    geometry::LoadMesh(kMeshes / "nope.stl");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("nope.stl"), std::string::npos) << e.what();
  }
}

TEST(MeshImport, MeshMassPropertiesMatchTheClosedForm) {
  // The tetrahedron (0, e1, e2, e3): volume 1/6, centroid (1/4, 1/4, 1/4). Per unit density, about the origin
  // ∫(y² + z²) = 1/30 and ∫xy = 1/120; about the centroid Ixx = 1/30 − V(1/16 + 1/16) = 1/80 and the tensor's
  // off-diagonal entry −(1/120 − V/16) = +1/480.
  ShapeDesc shape;
  shape.type = ShapeType::kMesh;
  shape.mesh_file = kMeshes / "tetra.obj";
  const ShapeMassProperties p = ComputeShapeMassProperties(shape);
  EXPECT_NEAR(p.volume, 1.0 / 6.0, 1e-12);
  EXPECT_LT((p.center - Eigen::Vector3d::Constant(0.25)).norm(), 1e-12);
  EXPECT_NEAR(p.unit_inertia(0, 0), 1.0 / 80.0, 1e-12);
  EXPECT_NEAR(p.unit_inertia(1, 1), 1.0 / 80.0, 1e-12);
  EXPECT_NEAR(p.unit_inertia(0, 1), 1.0 / 480.0, 1e-12);
  // The same solid at twice the scale: volume ×8, inertia ×32.
  shape.mesh_scale = 2;
  const ShapeMassProperties q = ComputeShapeMassProperties(shape);
  EXPECT_NEAR(q.volume, 8.0 / 6.0, 1e-12);
  EXPECT_NEAR(q.unit_inertia(2, 2), 32.0 / 80.0, 1e-12);
}

}  // namespace
}  // namespace ductile
