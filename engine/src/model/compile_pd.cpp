// CompilePd (model/pd_bodies.h): the scene's `pd_bodies` as pd::PdModel bodies in the world frame, with the FEM
// domain's meshing (model/fem_model.h, ShapeTetMesh), and the rigid world's static planes as the half-spaces every
// vertex meets.
#include <algorithm>
#include <stdexcept>

#include "fem/tet_mesh.h"
#include "geometry/collision.h"
#include "model/compile_parts.h"
#include "model/fem_model.h"
#include "model/pd_bodies.h"
#include "model/rigid_model.h"
#include "scene/desc_eigen.h"

namespace ductile {

namespace {

// Whether x [m, world] lies inside the solid (a URDF link's box, sphere, cylinder or capsule, cylinders and capsules
// along their z axis), within 1e-9 m.
bool Inside(const PlacedShapeDesc& solid, const Eigen::Vector3d& x) {
  const Eigen::Vector3d p = ToIsometry(solid.pose).inverse() * x;
  const ShapeDesc& s = solid.shape;
  constexpr double kSlack = 1e-9;
  switch (s.type) {
    case ShapeType::kBox:
      return (p.cwiseAbs() - 0.5 * ToEigen(s.size)).maxCoeff() <= kSlack;
    case ShapeType::kSphere:
      return p.norm() <= s.radius + kSlack;
    case ShapeType::kCylinder:
      return std::abs(p.z()) <= 0.5 * s.length + kSlack && p.head<2>().norm() <= s.radius + kSlack;
    case ShapeType::kCapsule: {
      const double z = std::clamp(p.z(), -0.5 * s.length, 0.5 * s.length);
      return (p - Eigen::Vector3d(0, 0, z)).norm() <= s.radius + kSlack;
    }
    default:
      return false;  // the parser admits only these
  }
}

bool InsideAny(const std::vector<PlacedShapeDesc>& solids, const Eigen::Vector3d& x) {
  return std::any_of(solids.begin(), solids.end(), [&](const PlacedShapeDesc& s) { return Inside(s, x); });
}

// The skeleton of `desc` over its placed vertices: each bone the vertices in its box not taken by an earlier bone
// (a box may overlap its parent's: the joint's vertices belong to the parent), none pinned. A URDF's bone selects by
// its links' solids, which usually touch their parent's at the joint: the vertices a link fixed to the world pins
// stay pinned there, as an earlier bone's stay its.
std::vector<pd::PdBone> Bones(const PdSoftBodyDesc& desc, const std::vector<Eigen::Vector3d>& vertices,
                              const std::vector<int>& pinned, const std::string& what) {
  std::vector<pd::PdBone> bones;
  std::vector<int> taken(vertices.size(), -1);
  for (const int p : pinned) taken[static_cast<std::size_t>(p)] = -2;
  for (std::size_t b = 0; b < desc.skeleton.size(); ++b) {
    const PdBoneDesc& bone = desc.skeleton[b];
    const std::string name = what + ", bone '" + bone.name + "'";
    pd::PdBone out{.parent = -1,
                   .joint = bone.prismatic ? pd::JointKind::kPrismatic : pd::JointKind::kRevolute,
                   .axis = ToEigen(bone.axis).normalized(),
                   .anchor = ToEigen(bone.anchor),
                   .vertices = {}};
    for (std::size_t p = 0; p < b; ++p)
      if (desc.skeleton[p].name == bone.parent) out.parent = static_cast<int>(p);
    int pinned_inside = 0;
    for (std::size_t i = 0; i < vertices.size(); ++i) {
      const Eigen::Vector3d& x = vertices[i];
      bool inside = true;
      for (int a = 0; a < 3; ++a) inside = inside && x[a] >= bone.box_min[a] && x[a] <= bone.box_max[a];
      if (!bone.shapes.empty()) inside = InsideAny(bone.shapes, x);
      if (!inside || taken[i] >= 0) continue;
      if (taken[i] == -2) {
        pinned_inside += bone.shapes.empty() ? 1 : 0;
        continue;
      }
      taken[i] = static_cast<int>(b);
      out.vertices.push_back(static_cast<int>(i));
    }
    if (pinned_inside > 0)
      Fail(bone.where, name + ": its box holds " + std::to_string(pinned_inside) +
                           " pinned vertices (a bone moves with its joint; pin the joint's parent instead)");
    if (out.vertices.empty())
      Fail(bone.where, name + (bone.shapes.empty() ? ": its box" : ": its link's geometry") +
                           " holds no vertex of the body that an earlier bone does not hold");
    bones.push_back(std::move(out));
  }
  return bones;
}

PdBodiesModel::Body CompileBody(const PdSoftBodyDesc& desc, const SceneDesc& scene) {
  const std::string what = "pd body '" + desc.name + "'";
  fem::TetMesh mesh = CheckedShapeTetMesh(desc.shape, desc.resolution, 0, desc.where, what);
  PdBodiesModel::Body body;
  body.name = desc.name;
  body.rgba = desc.rgba;
  body.surface = fem::BuildSurface(mesh).triangles;
  body.mass = desc.density * fem::TotalVolume(mesh);
  body.velocity = ToEigen(desc.velocity);

  pd::PdBodyDesc pd;
  const Eigen::Isometry3d X_WS = ToIsometry(desc.pose);
  for (Eigen::Vector3d& v : mesh.vertices) v = X_WS * v;
  const std::size_t tets = mesh.tets.size();
  pd.density = desc.density;
  pd.youngs_modulus = {desc.youngs_modulus};
  pd.poisson_ratio = {desc.poisson_ratio};
  if (desc.has_pin_box) pd.pinned = PinnedVertices(mesh.vertices, desc.pin_min, desc.pin_max, desc.where, what);
  for (std::size_t i = 0; i < mesh.vertices.size(); ++i)  // the URDF's links fixed to the world
    if (InsideAny(desc.pin_shapes, mesh.vertices[i]) &&
        std::find(pd.pinned.begin(), pd.pinned.end(), static_cast<int>(i)) == pd.pinned.end())
      pd.pinned.push_back(static_cast<int>(i));
  pd.pneumatic_cell.assign(tets, 0);  // the whole body one chamber, at rest while its ratio is 1
  if (desc.muscle_stiffness > 0) {
    const Eigen::Vector3d direction = X_WS.linear() * ToEigen(desc.muscle_direction);
    for (std::size_t t = 0; t < tets; ++t)
      pd.muscles.push_back(
          {.tet = static_cast<int>(t), .group = 0, .direction = direction, .stiffness = desc.muscle_stiffness});
  }
  pd.bones = Bones(desc, mesh.vertices, pd.pinned, what);
  for (const PdBoneDesc& bone : desc.skeleton) body.bone_names.push_back(bone.name);
  pd.stick_velocity = scene.pd.stick_velocity;
  pd.max_contraction = scene.pd.max_contraction;
  pd.gravity = ToEigen(scene.simulation.gravity);
  pd.dt = scene.simulation.dt;
  pd.mesh = std::move(mesh);
  pd::PdModelResult made = pd::MakePdModel(std::move(pd));
  if (!made.ok()) Fail(desc.where, what + ": " + made.error);
  body.model = std::move(made.model);
  return body;
}

}  // namespace

pd::PdControls ControlsOf(const pd::PdModel& model, double pneumatic_ratio, double muscle_activation,
                          const std::vector<double>& joint_torques) {
  pd::PdControls u = pd::PdControls::Rest(model);
  for (double& a : u.cell_volume_ratio) a = pneumatic_ratio;
  for (double& a : u.muscle_activation) a = muscle_activation;
  for (std::size_t j = 0; j < u.joint_torques.size() && j < joint_torques.size(); ++j)
    u.joint_torques[j] = joint_torques[j];
  return u;
}

pd::PdState InitialStateOf(const pd::PdModel& model, const Eigen::Vector3d& velocity) {
  pd::PdState s = pd::PdState::AtRest(model);
  for (const int i : model.free_vertices) s.v.row(i) = velocity.transpose();
  return s;
}

void ApplyPdParameters(const SceneDesc& scene, PdBodiesModel& pd) {
  pd.settings.tolerance = scene.pd.tolerance;
  pd.settings.max_iterations = scene.pd.max_iterations;
  pd.friction = scene.pd.friction;
  for (std::size_t b = 0; b < pd.bodies.size() && b < scene.pd_bodies.size(); ++b) {
    const PdSoftBodyDesc& desc = scene.pd_bodies[b];
    PdBodiesModel::Body& body = pd.bodies[b];
    body.youngs_modulus = desc.youngs_modulus;
    body.poisson_ratio = desc.poisson_ratio;
    body.pneumatic_ratio = desc.pneumatic_ratio;
    body.muscle_activation = desc.muscle_activation;
    body.joint_torques.clear();
    for (const PdBoneDesc& bone : desc.skeleton) body.joint_torques.push_back(bone.torque);
  }
}

bool PdStructureChanged(const Model& a, const Model& b) {
  const bool a_empty = !a.pd || a.pd->empty(), b_empty = !b.pd || b.pd->empty();
  if (a_empty || b_empty) return a_empty != b_empty;
  const PdBodiesModel& x = *a.pd;
  const PdBodiesModel& y = *b.pd;
  if (x.bodies.size() != y.bodies.size() || x.planes.size() != y.planes.size()) return true;
  for (std::size_t i = 0; i < x.bodies.size(); ++i) {
    const pd::PdModel& p = x.bodies[i].model;
    const pd::PdModel& q = y.bodies[i].model;
    if (p.rest != q.rest || p.tets != q.tets || p.pinned != q.pinned || p.masses != q.masses ||
        p.muscles.size() != q.muscles.size() || p.stick_velocity != q.stick_velocity ||
        p.max_contraction != q.max_contraction || p.bones.size() != q.bones.size())
      return true;
    for (std::size_t j = 0; j < p.bones.size(); ++j)
      if (p.bones[j].vertices != q.bones[j].vertices || p.bones[j].parent != q.bones[j].parent ||
          p.bones[j].joint != q.bones[j].joint || p.bones[j].axis != q.bones[j].axis ||
          p.bones[j].anchor != q.bones[j].anchor)
        return true;
  }
  return false;
}

void CompilePd(const SceneDesc& scene, Model& model) {
  auto pd = std::make_shared<PdBodiesModel>();
  for (const PdSoftBodyDesc& b : scene.pd_bodies) pd->bodies.push_back(CompileBody(b, scene));
  ApplyPdParameters(scene, *pd);
  const RigidModel& rigid = *model.rigid;
  for (int g = 0; g < rigid.world.num_geometries(); ++g) {
    const geometry::CollisionGeometry& geometry = rigid.world.geometry(g);
    if (geometry.type != ShapeType::kPlane || geometry.body >= 0) continue;  // planes are static (the loader)
    const Eigen::Isometry3d X_WG = geometry::WorldPose(geometry, {});
    pd::PdHalfSpace plane;
    plane.normal = (X_WG.linear() * geometry.normal).normalized();
    plane.offset = plane.normal.dot(X_WG.translation());
    pd->planes.push_back(plane);
  }
  model.pd = std::move(pd);
}

}  // namespace ductile
