// The `objects` and `colliders` sections: MPM objects (a material filling a shape inside the grid domain) and the
// static analytic colliders of the grid.
#include <cmath>

#include "scene/desc_eigen.h"
#include "scene/scene_sections.h"
#include "scene/schema.h"
#include "scene/suggest.h"

namespace ductile::scene {

namespace {

using ductile::ToEigen;  // Vector3 -> Eigen (scene/desc_eigen.h), next to this file's quaternion overload

Eigen::Quaterniond ToEigen(const std::array<double, 4>& q) {
  return {q[0], q[1], q[2], q[3]};
}

// The object's world bounds must lie in the grid domain.
void CheckInsideDomain(const ParseContext& context, const Field& entry, const MpmObjectDesc& object,
                       const GridDesc& grid) {
  const Reader& reader = context.reader();
  const Eigen::Matrix3d R = ToEigen(object.pose.quaternion).toRotationMatrix();
  const Eigen::Vector3d p = ToEigen(object.pose.position);
  geometry::Bounds bounds;
  Eigen::Vector3d half = Eigen::Vector3d::Zero();
  switch (object.shape.type) {
    case ShapeType::kBox:
      half = R.cwiseAbs() * (0.5 * ToEigen(object.shape.size));
      bounds = {p - half, p + half};
      break;
    case ShapeType::kSphere:
      half.setConstant(object.shape.radius);
      bounds = {p - half, p + half};
      break;
    case ShapeType::kCylinder:
      // Axis along R's third column: half-length along it plus the radius across it.
      for (int i = 0; i < 3; ++i) {
        const double a = std::abs(R(i, 2));
        half[i] = a * 0.5 * object.shape.length + object.shape.radius * std::sqrt(std::max(0.0, 1 - a * a));
      }
      bounds = {p - half, p + half};
      break;
    case ShapeType::kSheet:
      half = R.col(0).cwiseAbs() * 0.5 * object.shape.width + R.col(1).cwiseAbs() * 0.5 * object.shape.length;
      bounds = {p - half, p + half};
      break;
    case ShapeType::kCapsule:
      // The segment between the caps' centres, grown by the radius.
      half = R.col(2).cwiseAbs() * 0.5 * object.shape.length + Eigen::Vector3d::Constant(object.shape.radius);
      bounds = {p - half, p + half};
      break;
    default: {  // kMesh: an object is never a plane.
      geometry::TriangleMesh mesh = context.mesh(object.shape.mesh_file);
      geometry::Transform(mesh, object.shape.mesh_scale, ToEigen(object.pose.quaternion), p);
      bounds = geometry::AxisAlignedBounds(mesh);
      break;
    }
  }
  const Eigen::Vector3d lo = ToEigen(grid.domain_min), hi = ToEigen(grid.domain_max);
  if ((bounds.min.array() < lo.array()).any() || (bounds.max.array() > hi.array()).any()) {
    reader.Fail(entry.key_node, entry.path,
                "object '" + object.name + "' is not inside the grid domain: its bounds are " +
                    FormatPoint(bounds.min) + " to " + FormatPoint(bounds.max) + ", the domain is " + FormatPoint(lo) +
                    " to " + FormatPoint(hi),
                {entry.path + ".shape", entry.path + ".pose", "grid.domain"});
  }
}

}  // namespace

MpmObjectDesc ParseObject(ParseContext& context, const Field& entry, const SceneDesc& scene) {
  const Reader& reader = context.reader();
  context.CheckName(entry, "object");
  context.ClaimName(entry, "object");
  MpmObjectDesc object;
  object.name = entry.key;
  object.where = context.Where(entry);
  const std::string what = "object '" + entry.key + "'";
  const MapFields map(reader, entry, what);
  map.CheckKeys(KeysOf({"objects", ""}));

  const Field material = map.Require("material");
  object.material = reader.Text(material);
  const MaterialDesc* material_desc = scene.FindMaterial(object.material);
  if (material_desc == nullptr) {
    std::vector<std::string> names;
    for (const MaterialDesc& m : scene.materials) names.push_back(m.name);
    names = SortedNames(names);
    reader.Fail(material, "undefined material '" + object.material + "' (defined: " +
                              (names.empty() ? "none" : JoinNames(names)) + ")" + DidYouMean(object.material, names));
  }
  const Field shape = map.Require("shape");
  // Cloth is a surface of triangles (a sheet, or a mesh that may be open); every other material fills a volume.
  const bool cloth = material_desc->model == MaterialModelDesc::kCloth;
  object.shape = ParseShape(context, shape, what, cloth ? ShapeUse::kCloth : ShapeUse::kMpmObject);
  if (cloth && object.shape.type != ShapeType::kSheet && object.shape.type != ShapeType::kMesh)
    reader.Fail(shape.node, shape.path,
                what + " has the cloth material '" + object.material + "': its shape must be of type sheet or mesh",
                {entry.path + ".material"});
  if (!cloth && object.shape.type == ShapeType::kSheet)
    reader.Fail(shape.node, shape.path,
                what + " is a sheet: its material must have model cloth ('" + object.material + "' does not)",
                {entry.path + ".material"});
  if (const auto pose = map.Find("pose")) object.pose = ParsePose(context, *pose, what);
  map.ReadEntryRows("objects.*.", &SceneDesc::objects, object);  // particles per cell, velocity
  if (const auto pins = map.Find("pins")) {
    if (!cloth) reader.FailAtKey(*pins, what + " is not cloth: only a cloth's vertices can be pinned");
    object.pins = ParsePinGroups(context, *pins, what, object.shape.type == ShapeType::kSheet);
  }
  CheckInsideDomain(context, entry, object, scene.grid);
  return object;
}

ColliderDesc ParseCollider(ParseContext& context, const Field& entry) {
  const Reader& reader = context.reader();
  context.CheckName(entry, "collider");
  ColliderDesc collider;
  collider.name = entry.key;
  collider.where = context.Where(entry);
  const std::string what = "collider '" + entry.key + "'";
  const MapFields map(reader, entry, what);
  map.CheckKeys(KeysOf({"colliders", ""}));
  collider.shape = ParseShape(context, map.Require("shape"), what, ShapeUse::kCollider);
  if (const auto pose = map.Find("pose")) collider.pose = ParsePose(context, *pose, what);
  if (const auto boundary = map.Find("boundary"))
    collider.boundary = ParseBoundary(context, *boundary, "boundary of " + what, BoundaryOwner::kCollider);
  return collider;
}

}  // namespace ductile::scene
