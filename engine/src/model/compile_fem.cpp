// CompileFem (model/fem_model.h): the scene's soft and affine bodies as the IPC domain's bodies, and the rigid
// geometry as its kinematic bodies and half-spaces. Meshes come from fem/tetrahedralise.h (our own: TetGen is AGPL,
// CGAL's mesher GPL) or a Gmsh file (fem/tet_mesh.h).
#include <algorithm>
#include <stdexcept>

#include "fem/affine_body.h"
#include "fem/tetrahedralise.h"
#include "geometry/triangle_mesh.h"
#include "model/compile_parts.h"
#include "model/compile_rigid.h"
#include "model/fem_model.h"
#include "model/rigid_model.h"
#include "scene/desc_eigen.h"

namespace ductile {

fem::TetMesh ShapeTetMesh(const ShapeDesc& shape, double h, double thickness, const SourceLocation& where,
                          const std::string& what) {
  try {
    switch (shape.type) {
      case ShapeType::kBox:
        return fem::TetrahedraliseBox(0.5 * ToEigen(shape.size), h);
      case ShapeType::kSphere:
        return fem::TetrahedraliseSphere(shape.radius, h);
      case ShapeType::kCylinder:
        return fem::TetrahedraliseCylinder(shape.radius, 0.5 * shape.length, h);
      case ShapeType::kCapsule:
        return fem::TetrahedraliseCapsule(shape.radius, 0.5 * shape.length, h);
      case ShapeType::kSheet:
        return fem::TetrahedraliseSheet(shape.width, shape.length, thickness, shape.width / (shape.vertices - 1));
      case ShapeType::kMesh: {
        fem::TetMeshResult result;
        if (shape.mesh_file.extension() == ".msh") {
          result = fem::ReadGmsh(shape.mesh_file);
          for (Eigen::Vector3d& v : result.mesh.vertices) v *= shape.mesh_scale;
        } else {
          geometry::TriangleMesh surface;
          FileMesh(shape, surface.vertices, surface.triangles);
          result = fem::TetrahedraliseTriangleMesh(surface, h);
        }
        if (!result.ok()) Fail(where, what + ": " + result.error);
        return std::move(result.mesh);
      }
      case ShapeType::kPlane:
        break;
    }
  } catch (const SceneError&) {
    throw;
  } catch (const std::exception& e) {  // std::invalid_argument from the mesher, runtime_error from a file
    Fail(where, what + ": cannot mesh its shape: " + e.what());
  }
  Fail(where, what + ": a plane cannot be meshed");
}

fem::TetMesh CheckedShapeTetMesh(const ShapeDesc& shape, double h, double thickness, const SourceLocation& where,
                                 const std::string& what) {
  fem::TetMesh mesh = ShapeTetMesh(shape, h, thickness, where, what);
  if (const fem::TetMeshCheck check = fem::CheckAndOrient(mesh); !check.error.empty())
    Fail(where, what + ": " + check.error);
  fem::RemoveUnreferencedVertices(mesh);
  return mesh;
}

std::vector<int> PinnedVertices(const std::vector<Eigen::Vector3d>& vertices, const Vector3& min, const Vector3& max,
                                const SourceLocation& where, const std::string& what) {
  const Eigen::Vector3d lo = ToEigen(min), hi = ToEigen(max);
  std::vector<int> pinned;
  for (std::size_t v = 0; v < vertices.size(); ++v)
    if ((vertices[v].array() >= lo.array()).all() && (vertices[v].array() <= hi.array()).all())
      pinned.push_back(static_cast<int>(v));
  if (pinned.empty()) Fail(where, what + ": its 'pin_box' holds none of its vertices");
  return pinned;
}

namespace {

// The boundary of a tet mesh as a compact triangle surface (its own vertices, outward faces).
void SurfaceOf(const fem::TetMesh& mesh, std::vector<Eigen::Vector3d>& vertices,
               std::vector<std::array<int, 3>>& faces) {
  vertices = mesh.vertices;
  faces = fem::BuildSurface(mesh).triangles;
  geometry::RemoveUnusedVertices(vertices, faces);
}

void CompileSoftBody(const SoftBodyDesc& desc, FemModel& fem) {
  const std::string what = "soft body '" + desc.name + "'";
  fem::TetMesh mesh = CheckedShapeTetMesh(desc.shape, desc.resolution, desc.thickness, desc.where, what);
  FemModel::SoftBody body;
  body.name = desc.name;
  body.rgba = desc.rgba;
  body.surface = fem::BuildSurface(mesh).triangles;
  body.mass = desc.density * fem::TotalVolume(mesh);
  const Eigen::Isometry3d X_WS = ToIsometry(desc.pose);
  for (const Eigen::Vector3d& v : mesh.vertices) body.desc.vertices.push_back(X_WS * v);
  body.desc.tets = std::move(mesh.tets);
  body.desc.model = ElasticModelOf(desc.model);
  body.desc.lame = fem::LameFromYoungPoisson(desc.youngs_modulus, desc.poisson_ratio);
  body.desc.density = desc.density;
  body.desc.velocity = ToEigen(desc.velocity);
  if (desc.has_pin_box)
    body.desc.pinned = PinnedVertices(body.desc.vertices, desc.pin_min, desc.pin_max, desc.where, what);
  fem.soft_bodies.push_back(std::move(body));
}

void CompileAffineBody(const AffineBodyDesc& desc, FemModel& fem) {
  const std::string what = "affine body '" + desc.name + "'";
  FemModel::AffineBody body;
  body.name = desc.name;
  body.rgba = desc.rgba;
  std::vector<Eigen::Vector3d> vertices;
  std::vector<std::array<int, 3>> faces;
  if (desc.shape.type == ShapeType::kMesh) {
    FileMesh(desc.shape, vertices, faces);
  } else {
    // A box as one cell (8 corners, 12 triangles); round shapes at the body's resolution.
    const double h = desc.shape.type == ShapeType::kBox ? 2 * ToEigen(desc.shape.size).maxCoeff() : desc.resolution;
    SurfaceOf(ShapeTetMesh(desc.shape, h, 0, desc.where, what), vertices, faces);
  }
  const ShapeMassProperties props = ComputeShapeMassProperties(desc.shape);
  if (!(props.volume > 0)) Fail(desc.where, what + ": its shape encloses no volume");
  for (Eigen::Vector3d& v : vertices) v -= props.center;
  body.desc.vertices = std::move(vertices);
  body.desc.faces = std::move(faces);
  body.desc.mass = desc.density * props.volume;
  body.desc.volume = props.volume;
  body.desc.second_moment = fem::SecondMomentFromInertia(desc.density * props.unit_inertia);
  body.desc.stiffness = desc.stiffness;
  const Eigen::Isometry3d X_WS = ToIsometry(desc.pose);
  body.desc.pose = X_WS * Eigen::Translation3d(props.center);
  const Eigen::Vector3d omega = ToEigen(desc.angular_velocity);
  body.desc.velocity = ToEigen(desc.velocity) + omega.cross(X_WS.linear() * props.center);
  body.desc.angular_velocity = omega;
  fem.affine_bodies.push_back(std::move(body));
}

// Every rigid geometry: a static plane as a half-space, every other as a kinematic surface at its pose at t = 0.
void CompileKinematic(const RigidModel& rigid, FemModel& fem) {
  multibody::Kinematics kin;
  if (rigid.tree.num_bodies() > 0) multibody::CalcKinematics(rigid.tree, rigid.q0, 0, kin);
  const SourceLocation nowhere;
  for (int g = 0; g < rigid.world.num_geometries(); ++g) {
    const geometry::CollisionGeometry& geometry = rigid.world.geometry(g);
    const Eigen::Isometry3d X_WG = geometry::WorldPose(geometry, kin.X_WB);
    if (geometry.type == ShapeType::kPlane) {
      if (geometry.body >= 0) continue;  // the loader allows planes on static bodies only
      fem::HalfSpaceDesc plane;
      plane.normal = (X_WG.linear() * geometry.normal).normalized();
      plane.offset = plane.normal.dot(X_WG.translation());
      fem.half_spaces.push_back(plane);
      continue;
    }
    FemModel::Kinematic k;
    k.geometry = g;
    k.body = geometry.body;
    k.desc.pose = X_WG;
    if (geometry.type == ShapeType::kMesh) {
      if (!geometry.mesh) continue;
      k.desc.vertices = geometry.mesh->vertices;
      k.desc.faces = geometry.mesh->triangles;
      geometry::RemoveUnusedVertices(k.desc.vertices, k.desc.faces);
    } else {
      ShapeDesc shape;
      shape.type = geometry.type;
      shape.size = {2 * geometry.half_extents.x(), 2 * geometry.half_extents.y(), 2 * geometry.half_extents.z()};
      shape.radius = geometry.radius;
      shape.length = geometry.length;
      const double h = geometry.type == ShapeType::kBox ? 4 * geometry.half_extents.maxCoeff() : geometry.radius / 3;
      SurfaceOf(ShapeTetMesh(shape, h, 0, nowhere, "rigid geometry '" + geometry.name + "'"), k.desc.vertices,
                k.desc.faces);
    }
    fem.kinematic.push_back(std::move(k));
  }
}

}  // namespace

fem::ElasticModel ElasticModelOf(SoftModelDesc model) {
  switch (model) {
    case SoftModelDesc::kFixedCorotated:
      return fem::ElasticModel::kFixedCorotated;
    case SoftModelDesc::kStvk:
      return fem::ElasticModel::kStVK;
    case SoftModelDesc::kNeoHookean:
      break;
  }
  return fem::ElasticModel::kNeoHookean;
}

fem::IpcSettings CompileIpcSettings(const SceneDesc& scene) {
  fem::IpcSettings s;
  s.dhat = scene.ipc.dhat;
  s.barrier_stiffness = scene.ipc.barrier_stiffness;
  s.friction = scene.ipc.friction;
  s.friction_velocity = scene.ipc.friction_velocity;
  s.newton_tolerance = scene.ipc.newton_tolerance;
  s.max_newton_iterations = scene.ipc.max_newton_iterations;
  s.gravity = ToEigen(scene.simulation.gravity);
  return s;
}

fem::IpcSystem BuildIpcSystem(const FemModel& fem) {
  fem::IpcSystem system;
  system.set_settings(fem.settings);
  for (const FemModel::SoftBody& b : fem.soft_bodies) system.AddSoftBody(b.desc);
  for (const FemModel::AffineBody& b : fem.affine_bodies) system.AddAffineBody(b.desc);
  for (const FemModel::Kinematic& k : fem.kinematic) system.AddKinematicBody(k.desc);
  for (const fem::HalfSpaceDesc& p : fem.half_spaces) system.AddHalfSpace(p);
  system.Finalize();
  return system;
}

bool FemStructureChanged(const Model& a, const Model& b) {
  const bool a_empty = !a.fem || a.fem->empty(), b_empty = !b.fem || b.fem->empty();
  if (a_empty || b_empty) return a_empty != b_empty;
  const FemModel& x = *a.fem;
  const FemModel& y = *b.fem;
  if (x.soft_bodies.size() != y.soft_bodies.size() || x.affine_bodies.size() != y.affine_bodies.size() ||
      x.kinematic.size() != y.kinematic.size() || x.half_spaces.size() != y.half_spaces.size())
    return true;
  for (std::size_t i = 0; i < x.soft_bodies.size(); ++i)
    if (x.soft_bodies[i].desc.vertices.size() != y.soft_bodies[i].desc.vertices.size() ||
        x.soft_bodies[i].desc.tets != y.soft_bodies[i].desc.tets ||
        x.soft_bodies[i].desc.pinned != y.soft_bodies[i].desc.pinned)
      return true;
  for (std::size_t i = 0; i < x.affine_bodies.size(); ++i)
    if (x.affine_bodies[i].desc.faces != y.affine_bodies[i].desc.faces) return true;
  for (std::size_t i = 0; i < x.kinematic.size(); ++i)
    if (x.kinematic[i].desc.faces != y.kinematic[i].desc.faces) return true;
  return false;
}

void CompileFem(const SceneDesc& scene, Model& model) {
  auto fem = std::make_shared<FemModel>();
  fem->settings = CompileIpcSettings(scene);
  for (const SoftBodyDesc& b : scene.soft_bodies) CompileSoftBody(b, *fem);
  for (const AffineBodyDesc& b : scene.affine_bodies) CompileAffineBody(b, *fem);
  if (!fem->empty()) {
    CompileKinematic(*model.rigid, *fem);
    try {
      BuildIpcSystem(*fem);  // checks the meshes and that no surfaces touch or intersect at t = 0
    } catch (const std::invalid_argument& e) {
      const SourceLocation& at =
          scene.soft_bodies.empty() ? scene.affine_bodies.front().where : scene.soft_bodies.front().where;
      Fail(at, std::string("the soft and affine bodies cannot start: ") + e.what());
    }
  }
  model.fem = std::move(fem);
}

}  // namespace ductile
