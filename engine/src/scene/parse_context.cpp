// ParseContext and the pieces several sections share: names, locations, meshes, shapes, poses, boundaries.
#include "scene/parse_context.h"

#include <cmath>

#include "fem/tet_mesh.h"
#include "scene/desc_eigen.h"
#include "scene/schema.h"
#include "scene/suggest.h"

namespace ductile::scene {

namespace {

constexpr double kDegree = 3.14159265358979323846 / 180.0;

}  // namespace

std::vector<std::string> KeysOf(const std::vector<std::string>& path) {
  const SchemaNode* node = &SceneSchema();
  for (const std::string& key : path) {
    const bool entry = node->kind == SchemaKind::kNamedMap || node->kind == SchemaKind::kList;
    node = entry ? &node->children.front() : node->Find(key);
  }
  return node->ChildNames();
}

std::vector<std::string> SortedNames(const std::vector<std::string>& names) {
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

std::string FormatPoint(const Eigen::Vector3d& x) {
  std::ostringstream text;
  text << '(' << x.x() << ", " << x.y() << ", " << x.z() << ')';
  return text.str();
}

void ParseContext::CheckName(const Field& entry, const std::string& noun) const {
  if (entry.key.empty()) reader_.FailAtKey(entry, "a " + noun + " name must not be empty");
  if (entry.key.find('.') != std::string::npos)
    reader_.FailAtKey(entry, noun + " name '" + entry.key + "' must not contain '.' (it separates --set keys)");
}

void ParseContext::CheckWeldableName(const Field& entry, const std::string& noun) const {
  if (entry.key.find('/') != std::string::npos)
    reader_.FailAtKey(entry,
                      noun + " name '" + entry.key + "' must not contain '/' (welds name robot links ROBOT/LINK)");
  if (noun == "rigid body" && entry.key == "world")
    reader_.FailAtKey(entry, "rigid body name 'world' is reserved: welds use it for the world frame");
}

void ParseContext::ClaimName(const Field& entry, const std::string& noun) {
  const auto [claimed, inserted] = names_.try_emplace(entry.key, NamedEntry{noun, entry});
  if (inserted) return;
  const NamedEntry& first = claimed->second;
  const bool entry_is_later = entry.key_node.Mark().pos > first.field.key_node.Mark().pos;
  const Field& at = entry_is_later ? entry : first.field;
  const std::string& at_noun = entry_is_later ? noun : first.noun;
  const Field& other = entry_is_later ? first.field : entry;
  const std::string& other_noun = entry_is_later ? first.noun : noun;
  reader_.FailAtKey(at, at_noun + " name '" + entry.key + "' is already used by " + other_noun + " '" + entry.key +
                            "' (line " + std::to_string(other.key_node.Mark().line + 1) +
                            "): objects, rigid bodies and robots need distinct names (outputs are keyed by name)");
}

SourceLocation ParseContext::Where(const Field& entry) const {
  const YAML::Mark mark = entry.key_node.Mark();
  if (mark.is_null()) return {file_.string(), 0, 0};
  return {file_.string(), mark.line + 1, mark.column + 1};
}

std::filesystem::path ParseContext::Resolve(const std::string& name) const {
  const std::filesystem::path folder = file_.parent_path().empty() ? std::filesystem::path(".") : file_.parent_path();
  return std::filesystem::absolute(folder / name).lexically_normal();
}

std::filesystem::path ParseContext::LoadMesh(const Field& field, bool cloth) {
  const std::string name = reader_.Text(field);
  std::filesystem::path path = Resolve(name);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    reader_.Fail(field, "mesh file '" + name + "' not found (looked for " + path.string() + ")");
  geometry::TriangleMesh mesh;
  try {
    mesh = geometry::LoadObjMesh(path);
  } catch (const std::runtime_error& e) {
    reader_.Fail(field, "cannot load mesh '" + name + "': " + e.what());
  }
  if (cloth) {
    if (const auto defect = geometry::FindClothDefect(mesh))
      reader_.Fail(field, "mesh '" + name + "' cannot be a cloth: " + *defect);
  } else if (const auto open = geometry::FindOpenEdge(mesh)) {
    reader_.Fail(field, "mesh '" + name + "' is not closed: " + *open);
  }
  meshes_[path] = std::move(mesh);
  return path;
}

std::filesystem::path ParseContext::LoadTetMesh(const Field& field) const {
  const std::string name = reader_.Text(field);
  std::filesystem::path path = Resolve(name);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    reader_.Fail(field, "mesh file '" + name + "' not found (looked for " + path.string() + ")");
  const fem::TetMeshResult read = fem::ReadGmsh(path);
  if (!read.ok()) reader_.Fail(field, "cannot use tet mesh '" + name + "': " + read.error);
  return path;
}

ShapeDesc ParseShape(ParseContext& context, const Field& field, const std::string& owner, ShapeUse use,
                     const std::vector<std::string>& related) {
  const Reader& reader = context.reader();
  ShapeDesc shape;
  const MapFields map(reader, field, "shape of " + owner);
  const Field type = map.Require("type");
  shape.type = reader.Choice(type, "shape type", ShapeTypeNames());
  const bool object = use == ShapeUse::kMpmObject || use == ShapeUse::kCloth;
  const bool ipc_body = use == ShapeUse::kSoftBody || use == ShapeUse::kAffineBody;
  if (object && shape.type == ShapeType::kPlane)
    reader.Fail(type, "shape type 'plane' cannot be an MPM object (use box, sphere, cylinder, capsule or mesh)");
  if (ipc_body && shape.type == ShapeType::kPlane)
    reader.Fail(type,
                "shape type 'plane' cannot be a soft or affine body (use box, sphere, cylinder, capsule or "
                "mesh; the ground is a static rigid body)");
  if (use == ShapeUse::kAffineBody && shape.type == ShapeType::kSheet)
    reader.Fail(type, "shape type 'sheet' cannot be an affine body (a rigid body needs a volume: use a thin box)");
  if (!object && use != ShapeUse::kSoftBody && shape.type == ShapeType::kSheet)
    reader.Fail(type, "shape type 'sheet' is only for cloth objects and soft bodies");
  if (use == ShapeUse::kCollider && (shape.type == ShapeType::kMesh || shape.type == ShapeType::kCapsule))
    reader.Fail(type, "shape type '" + NameOf(shape.type) +
                          "' is not supported for colliders (use plane, box, sphere or cylinder)");
  if (use == ShapeUse::kMovingBody && shape.type == ShapeType::kPlane)
    reader.Fail(type.node, type.path, "shape type 'plane' is only for static rigid bodies (a half-space cannot move)",
                related);
  map.CheckKeys(ShapeKeys(shape.type), KeysOf({"objects", "", "shape"}),
                "does not apply to shape type " + NameOf(shape.type));
  switch (shape.type) {
    case ShapeType::kBox:
      shape.size = reader.Numbers<3>(map.Require("size"), Positive());
      break;
    case ShapeType::kSphere:
      shape.radius = reader.Number(map.Require("radius"), Positive());
      break;
    case ShapeType::kCylinder:
    case ShapeType::kCapsule:
      shape.radius = reader.Number(map.Require("radius"), Positive());
      shape.length = reader.Number(map.Require("length"), Positive());
      break;
    case ShapeType::kMesh:
      map.Read("scale", shape.mesh_scale, Positive());
      if (use == ShapeUse::kSoftBody && reader.Text(map.Require("file")).ends_with(".msh")) {
        shape.mesh_file = context.LoadTetMesh(map.Require("file"));
      } else {
        shape.mesh_file = context.LoadMesh(map.Require("file"), use == ShapeUse::kCloth);
      }
      break;
    case ShapeType::kSheet:
      shape.width = reader.Number(map.Require("width"), Positive());
      shape.length = reader.Number(map.Require("length"), Positive());
      shape.vertices = reader.Integer(map.Require("vertices"), 2);
      break;
    case ShapeType::kPlane:
      if (const auto normal = map.Find("normal")) {
        const Eigen::Vector3d n = ToEigen(reader.Numbers<3>(*normal));
        if (n.norm() == 0) reader.Fail(*normal, "'normal' must not be zero");
        shape.normal = {n.x() / n.norm(), n.y() / n.norm(), n.z() / n.norm()};
      }
      break;
  }
  return shape;
}

PoseDesc ParsePose(const ParseContext& context, const Field& field, const std::string& owner) {
  const Reader& reader = context.reader();
  const std::string what = "pose of " + owner;
  const MapFields map(reader, field, what);
  map.CheckKeys(KeysOf({"objects", "", "pose"}));
  return ReadPose(context, map, what);
}

PoseDesc ReadPose(const ParseContext& context, const MapFields& map, const std::string& what) {
  const Reader& reader = context.reader();
  PoseDesc pose;
  map.Read("position", pose.position);
  const auto rpy = map.Find("rpy_deg");
  const auto quaternion = map.Find("quaternion");
  if (rpy && quaternion) {
    const Field& second = rpy->key_node.Mark().pos > quaternion->key_node.Mark().pos ? *rpy : *quaternion;
    reader.FailAtKey(second, what + " takes either 'rpy_deg' or 'quaternion', not both");
  }
  if (rpy) {
    const std::array<double, 3> angles = reader.Numbers<3>(*rpy);
    // Extrinsic X-Y-Z: R = Rz(yaw)·Ry(pitch)·Rx(roll).
    const Eigen::Quaterniond q = Eigen::AngleAxisd(angles[2] * kDegree, Eigen::Vector3d::UnitZ()) *
                                 Eigen::AngleAxisd(angles[1] * kDegree, Eigen::Vector3d::UnitY()) *
                                 Eigen::AngleAxisd(angles[0] * kDegree, Eigen::Vector3d::UnitX());
    pose.quaternion = {q.w(), q.x(), q.y(), q.z()};
  }
  if (quaternion) {
    std::array<double, 4> q = reader.Numbers<4>(*quaternion);
    const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (norm == 0) reader.Fail(*quaternion, "'quaternion' must not be zero");
    for (double& c : q) c /= norm;
    pose.quaternion = q;
  }
  return pose;
}

BoundaryDesc ParseBoundary(const ParseContext& context, const Field& field, const std::string& what,
                           BoundaryOwner owner) {
  const Reader& reader = context.reader();
  BoundaryDesc boundary;
  const MapFields map(reader, field, what);
  map.CheckKeys(KeysOf({"grid", "boundary"}));
  if (const auto type = map.Find("type")) boundary.type = reader.Choice(*type, "boundary type", BoundaryTypeNames());
  // The friction through its row, in a scene of its own that holds this boundary where the row's binding finds it.
  SceneDesc held;
  if (owner == BoundaryOwner::kGrid) {
    held.walls = boundary;
    map.ReadRows("grid.boundary.", held);
    return held.walls;
  }
  held.colliders.resize(1);  // a collider without a name
  held.colliders[0].boundary = boundary;
  map.ReadRows("colliders.*.boundary.", {std::string()}, held);
  return held.colliders[0].boundary;
}

}  // namespace ductile::scene
