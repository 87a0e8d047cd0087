#include "model/add_multibody.h"

#include <Eigen/Cholesky>
#include <map>

#include "geometry/mesh_import.h"
#include "scene/desc_eigen.h"

namespace ductile::multibody {
geometry::CollisionGeometry ToCollisionGeometry(const GeometryDesc& g, const ContactDefaults& defaults) {
  geometry::CollisionGeometry out;
  out.name = g.name;
  out.type = g.shape.type;
  out.half_extents = ToEigen(g.shape.size) / 2;
  out.radius = g.shape.radius;
  out.length = g.shape.length;
  out.normal = ToEigen(g.shape.normal);
  if (g.shape.type == ShapeType::kMesh) {
    std::shared_ptr<geometry::TriangleMesh> mesh;
    try {
      mesh = std::make_shared<geometry::TriangleMesh>(geometry::LoadMesh(g.shape.mesh_file));
    } catch (const std::runtime_error& e) {
      throw SceneError(g.where.file, g.where.line, g.where.column, "geometry '" + g.name + "': " + e.what());
    }
    for (Eigen::Vector3d& v : mesh->vertices) v *= g.shape.mesh_scale;
    out.mesh = mesh;
  }
  out.X_BG = ToIsometry(g.pose);
  out.friction = g.contact.friction >= 0 ? g.contact.friction : defaults.friction;
  out.stiffness = g.contact.stiffness > 0 ? g.contact.stiffness : defaults.stiffness;
  out.dissipation = g.contact.dissipation >= 0 ? g.contact.dissipation : defaults.dissipation;
  return out;
}

namespace {

// The joint of body b, whose link is the child of joint j (none: the robot's root, placed at X_WR).
void SetJoint(const JointDesc* j, const std::string& name, const Eigen::Isometry3d& X_WR, bool floating_base,
              const std::map<std::string, int>& body_of_link, Body& b) {
  if (j == nullptr) {
    // The root: welded to the world at X_WR, or floating from there.
    b.joint = floating_base ? JointType::kFloating : JointType::kFixed;
    b.joint_name = name + "/base";
    b.X_PJ = X_WR;
    return;
  }
  b.joint = j->type;
  b.joint_name = j->name;
  if (j->parent == "world") {
    b.X_PJ = X_WR * ToIsometry(j->origin);
  } else {
    b.parent = body_of_link.at(j->parent);
    b.X_PJ = ToIsometry(j->origin);
  }
  b.axis_J = ToEigen(j->axis).normalized();
  b.lower = std::isfinite(j->lower) ? j->lower : -1e300;
  b.upper = std::isfinite(j->upper) ? j->upper : 1e300;
  b.effort = std::isfinite(j->effort) ? j->effort : 1e300;
  b.velocity_limit = std::isfinite(j->velocity) ? j->velocity : 1e300;
  b.damping = j->damping;
  if (j->type == JointType::kFloating && j->parent != "world")
    throw SceneError(j->where.file, j->where.line, j->where.column,
                     "floating joint '" + j->name + "' must have parent 'world'");
}

// Collision filtering among the bodies from `first` on: links joined by a joint, and every link with the links
// rigidly welded to it (a chain of fixed joints) and their jointed neighbours.
void ExcludeAdjacentLinks(const MultibodyTree& tree, int first, geometry::CollisionWorld& world) {
  const int last = tree.num_bodies();
  const auto rigid_root = [&](int b) {
    while (tree.body(b).joint == JointType::kFixed && tree.body(b).parent >= first) b = tree.body(b).parent;
    return b;
  };
  for (int a = first; a < last; ++a)
    for (int b = a + 1; b < last; ++b) {
      const int ra = rigid_root(a), rb = rigid_root(b);
      const int pa = tree.body(ra).parent, pb = tree.body(rb).parent;
      const bool adjacent = ra == rb || (pa >= first && rigid_root(pa) == rb) || (pb >= first && rigid_root(pb) == ra);
      if (adjacent) world.ExcludeBodyPair(a, b);
    }
}

// A moving joint must carry mass, or the mass matrix is singular: checks the joints of the bodies from `first` on.
void CheckJointsMoveMass(const MultibodyDesc& desc, const std::string& name, const MultibodyTree& tree, int first) {
  Kinematics kin;
  CalcKinematics(tree, tree.DefaultPositions(), 0, kin);
  const Eigen::MatrixXd M = CalcMassMatrix(tree, kin);
  for (int i = first; i < tree.num_bodies(); ++i) {
    const Body& b = tree.body(i);
    if (b.nv == 0) continue;
    const Eigen::MatrixXd block = M.block(b.v_start, b.v_start, b.nv, b.nv);
    if (block.llt().info() != Eigen::Success || block.diagonal().minCoeff() <= 1e-12) {
      const JointDesc* j = desc.FindJoint(b.joint_name);
      const SourceLocation where = j ? j->where : SourceLocation{desc.source.string(), 0, 0};
      throw SceneError(where.file, where.line, where.column,
                       "joint '" + b.joint_name + "' of '" + name +
                           "' moves no mass or inertia (give its child links <inertial> mass and inertia)");
    }
  }
}

}  // namespace

int AddMultibody(const MultibodyDesc& desc, const std::string& name, const Eigen::Isometry3d& X_WR, bool floating_base,
                 const ContactDefaults& defaults, MultibodyTree& tree, geometry::CollisionWorld& world,
                 bool single_body) {
  std::map<std::string, int> body_of_link;
  std::map<std::string, const JointDesc*> joint_of_child;
  for (const JointDesc& j : desc.joints) joint_of_child[j.child] = &j;
  const int first = tree.num_bodies();
  const bool single = single_body && desc.links.size() == 1;
  for (const LinkDesc& link : desc.links) {
    Body b;
    b.name = single ? name : name + "/" + link.name;
    b.link = link.name;
    const auto found = joint_of_child.find(link.name);
    SetJoint(found == joint_of_child.end() ? nullptr : found->second, name, X_WR, floating_base, body_of_link, b);
    b.mass = link.inertia.mass;
    b.p_BCm = ToEigen(link.inertia.com);
    const auto& I = link.inertia.inertia;
    b.I_Cm_B << I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2];
    const int index = tree.AddBody(b);
    body_of_link[link.name] = index;
    for (const GeometryDesc& g : link.collisions) {
      geometry::CollisionGeometry cg = ToCollisionGeometry(g, defaults);
      cg.body = index;
      world.Add(std::move(cg));
    }
  }
  ExcludeAdjacentLinks(tree, first, world);
  CheckJointsMoveMass(desc, name, tree, first);
  return first;
}

}  // namespace ductile::multibody
